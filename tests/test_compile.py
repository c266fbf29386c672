"""`pilotstats._compile` (`python -m pilotstats compile`), the cache location and thread-safe
lazy compilation."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from pathlib import Path

import pytest

from pilotstats import _config
from pilotstats._compile import ENTRY_POINTS, cache_location, compile_kernels
from pilotstats._kernels import _jit
from pilotstats.cli import main
from pilotstats.exceptions import InvalidInputError


def test_every_entry_point_compiles_without_error() -> None:
    report = compile_kernels()
    assert report.errors == {}
    assert list(report.seconds) == list(ENTRY_POINTS)
    assert all(v >= 0.0 for v in report.seconds.values())
    json.dumps(report.to_dict(), allow_nan=False)
    with pytest.raises(InvalidInputError, match="unknown entry point"):
        compile_kernels(["nope"])


def test_cli_compile() -> None:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        status = main(["compile", "--json"])
    data = json.loads(out.getvalue())
    assert status == 0 and data["errors"] == {} and set(data["seconds"]) == set(ENTRY_POINTS)


def test_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert cache_location() == str(tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr("os.access", lambda *args: False)  # a read-only package folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_location() == str(tmp_path / "xdg" / "numba")


def test_kernels_compile_once_under_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    builds = []

    def body(x: float) -> float:
        return x + 1.0

    lazy = _jit.LazyKernel(body)
    original = lazy._build

    def counting(**options: bool) -> object:
        builds.append(1)
        return original(**options)

    monkeypatch.setattr(lazy, "_build", counting, raising=False)
    results: list[float] = []
    threads = [threading.Thread(target=lambda: results.append(lazy(1.0))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [2.0] * 8 and len(builds) == 1


def test_nogil_is_a_config_flag() -> None:
    assert _config.NOGIL is True
    _config.NOGIL = False
    _config.reset()
    assert _config.NOGIL is True


def test_compiled_kernels_release_the_gil() -> None:
    if not _jit.numba_available():
        pytest.skip("kernels run as plain Python (JIT disabled)")
    from pilotstats._kernels import mdl

    dispatcher = mdl.mdl_advance.compiled()
    assert dispatcher.targetoptions.get("nogil") is True
