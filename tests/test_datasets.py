"""pilotstats.datasets: bundled real data with licences, and downloads via pooch tested
against a local HTTP server on 127.0.0.1 serving copies of the files."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pilotstats import datasets
from pilotstats.exceptions import DatasetDownloadError, InvalidInputError

pytest.importorskip("pooch")


def test_embedded_samples_unchanged() -> None:
    assert datasets.ferrari_response_times().size == 48
    assert datasets.binary_outcomes().sum() == 11
    first, second = datasets.speed_of_light()
    assert (first.size, second.size) == (100, 23)


def test_every_bundled_tcpd_series_loads_with_annotations() -> None:
    for name in datasets.tcpd_names()[:-2]:
        series = datasets.tcpd_series(name)
        assert series.values.dtype == np.float64 and series.values.size == len(series.time)
        assert len(series.annotations) == 5
        assert all(0 <= c < series.values.size for cps in series.annotations.values()
                   for c in cps)
        assert series.licence.startswith(("CC BY 4.0", "CC0"))
        assert name in str(series)


def test_tcpd_to_series_keeps_time_labels() -> None:
    frame = datasets.tcpd_series("jfk_passengers").to_series()
    assert frame.index[0] == "1977-01" and frame.name == "jfk_passengers"
    assert np.array_equal(frame.to_numpy(), datasets.tcpd_series("jfk_passengers").values)


def test_bundled_real_samples() -> None:
    frame = datasets.tokio_sample()
    assert len(frame) == 162 and (frame["darshan_agg_perf_by_slowest_posix"] > 0).all()
    assert datasets.mongodb_series().size == 132
    for family in ("tcpd", "tokio", "mongodb"):
        assert "licen" in datasets.dataset_licence(family).lower()


def test_unknown_names_are_named_errors() -> None:
    with pytest.raises(InvalidInputError, match="unknown TCPD series 'bitcoin'"):
        datasets.tcpd_series("bitcoin")
    with pytest.raises(InvalidInputError, match="unknown data family"):
        datasets.dataset_licence("nothing")
    with pytest.raises(InvalidInputError, match="downloadable files"):
        datasets.fetch("nothing.csv")


def test_download_from_local_server_and_cache(
    http_folder: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    datasets_dir: Path,
) -> None:
    root, url = http_folder
    shutil.copy(datasets_dir / "tcpd" / "datasets" / "nile.json", root / "nile.json")
    monkeypatch.setenv("PILOTSTATS_DATA_URL", url)
    cache = tmp_path / "cache"
    nile = datasets.tcpd_series("nile", cache_dir=cache)
    assert nile.values.size == 100 and nile.time[0] == "1871"
    assert (cache / "nile.json").is_file()
    (root / "nile.json").unlink()  # the second call is served from the cache
    assert datasets.tcpd_series("nile", cache_dir=cache).values.size == 100


def test_tokio_summaries_from_local_server(
    http_folder: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    datasets_dir: Path,
) -> None:
    root, url = http_folder
    for path in (datasets_dir / "tokio").glob("*-summaries_*.csv.gz"):
        shutil.copy(path, root / path.name)
    monkeypatch.setenv("PILOTSTATS_DATA_URL", url)
    monkeypatch.setenv("PILOTSTATS_DATA_DIR", str(tmp_path / "cache"))
    folder = datasets.tokio_summaries()
    assert folder == tmp_path / "cache"
    assert len(list(folder.glob("*-summaries_*.csv.gz"))) == 3


def test_corrupt_download_is_refused(
    http_folder: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, url = http_folder
    (root / "nile.json").write_text('{"not": "the nile"}')
    monkeypatch.setenv("PILOTSTATS_DATA_URL", url)
    with pytest.raises(DatasetDownloadError, match="SHA-256") as caught:
        datasets.fetch("nile.json", cache_dir=tmp_path / "cache")
    assert caught.value.url == f"{url}/nile.json"
    assert not (tmp_path / "cache" / "nile.json").exists()


def test_offline_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline_data: dict[str, str]
) -> None:
    monkeypatch.setenv("PILOTSTATS_DATA_URL", offline_data["PILOTSTATS_DATA_URL"])
    with pytest.raises(DatasetDownloadError, match=r"could not download seatbelts\.json") as caught:
        datasets.fetch("seatbelts.json", cache_dir=tmp_path)
    assert "place a copy of the file" in str(caught.value)
    assert isinstance(caught.value, OSError)


def test_pooch_import_does_not_warn_in_a_jupyter_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No "TqdmWarning: IProgress not found" in ``changepoints.ipynb`` (pooch
    imports ``tqdm.auto``, which in a Jupyter kernel without ipywidgets warns). A kernel
    is simulated the way tqdm detects one; the warning is real without the guard."""
    import sys
    import types
    import warnings

    pytest.importorskip("tqdm")
    from pilotstats.datasets._remote import _import_pooch

    shell = type("ZMQInteractiveShell", (), {})()
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # not installed
    for name in [n for n in sys.modules if n == "pooch" or n.startswith(("pooch.", "tqdm."))]:
        monkeypatch.delitem(sys.modules, name)

    def imported_warnings(load: object) -> list[str]:
        for name in [n for n in sys.modules if n == "pooch" or n.startswith(("pooch.", "tqdm."))]:
            del sys.modules[name]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert callable(load)
            load()
        return [str(w.message) for w in caught]

    def plain_import() -> None:
        import pooch  # noqa: F401

    assert any("IProgress not found" in m for m in imported_warnings(plain_import))
    assert not any("tqdm" in m or "IProgress" in m for m in imported_warnings(_import_pooch))
    assert _import_pooch().__name__ == "pooch"
