"""engine="dask" of detect_many/trend_many on a real LocalCluster (2 worker processes)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pilotstats.analysis import detect_many, trend_many
from pilotstats.exceptions import InvalidInputError

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from tests.test_many import _assert_frames_identical, _table  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
        dask_client = distributed.Client(cluster)
    try:
        yield dask_client
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dask_client.close()
            cluster.close()


def test_dask_identical_to_serial(client: Any) -> None:
    assert len(client.nthreads()) == 2
    table = _table(n_series=10, n=150)
    for function, options in ((detect_many, {"min_size": 20}), (trend_many, {})):
        serial = function(table, by=["suite", "test"], order="run", value="mpps", workers=1,
                          **options)
        on_dask = function(table, by=["suite", "test"], order="run", value="mpps",
                           engine="dask", client=client, **options)
        _assert_frames_identical(serial, on_dask)


def test_dask_dataframe_partitioned_by_series(client: Any) -> None:
    table = _table(n_series=8, n=120)
    serial = detect_many(table, by="test", order="run", value="mpps", workers=1, min_size=20)
    # one partition per group of whole series (sorted by key, then split on key bounds)
    ordered = table.sort_values(["test", "run"]).set_index("test", drop=False)
    ordered.index.name = None
    frame = dd.from_pandas(ordered, npartitions=3, sort=True)
    assert frame.npartitions >= 2
    on_dask = detect_many(frame, by="test", order="run", value="mpps", engine="dask",
                          client=client, min_size=20)
    _assert_frames_identical(serial, on_dask)
    # the threads engine computes the Dask DataFrame locally
    local = detect_many(frame, by="test", order="run", value="mpps", workers=2, min_size=20)
    _assert_frames_identical(serial, local)


def test_series_split_over_partitions_is_refused(client: Any) -> None:
    table = _table(n_series=2, n=60).sort_values("run")
    frame = dd.from_pandas(table.reset_index(drop=True), npartitions=2, sort=False)
    with pytest.raises(InvalidInputError, match="spans several partitions"):
        trend_many(frame, by="test", order="run", value="mpps", engine="dask", client=client)


def test_failing_series_on_dask(client: Any) -> None:
    series = {"ok": np.r_[np.ones(40), 2 * np.ones(40)] + np.tile([0.0, 0.01], 40),
              "bad": np.r_[np.ones(5), np.inf]}
    out = detect_many(series, engine="dask", client=client, min_size=10)
    assert out["series"].tolist() == ["ok", "bad"]
    assert out.loc[0, "error"] is None and len(out.loc[0, "locations"]) == 1
    assert out.loc[1, "error"].startswith("InvalidInputError")


class _KillOnce(distributed.WorkerPlugin):  # type: ignore[misc]
    """Worker plugin: the first worker to start its second batch dies on the spot
    (``os._exit``), once in the whole cluster (an O_EXCL marker file), so that one worker is
    lost mid-batch with a finished batch in its memory and one running."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.started = 0

    def setup(self, worker: Any) -> None:
        self.started = 0

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        import os

        if finish != "executing":
            return
        self.started += 1
        if self.started < 2:
            return
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        os._exit(1)


def test_a_worker_killed_mid_batch_costs_a_recomputation_not_the_batch(tmp_path: Any) -> None:
    """200 series on 2 Dask workers, one worker killed while it holds a
    finished batch and runs another: the rows equal the serial loop's."""
    rng = np.random.default_rng(11)
    series = {f"s{i:03d}": np.r_[rng.normal(10, 1, 60), rng.normal(10 + (i % 3), 1, 60)]
              for i in range(200)}
    serial = detect_many(series, workers=1, min_size=10)
    marker = tmp_path / "killed"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=50)
        dask_client = distributed.Client(cluster)
    try:
        pids = set(dask_client.run(__import__("os").getpid).values())
        dask_client.register_plugin(_KillOnce(str(marker)))
        on_dask = detect_many(series, engine="dask", client=dask_client, min_size=10)
        assert marker.exists(), "no worker was killed: the test proved nothing"
        dask_client.wait_for_workers(2, timeout=60)
        assert set(dask_client.run(__import__("os").getpid).values()) != pids  # restarted
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dask_client.close()
            cluster.close()
    assert on_dask["error"].isna().all()
    _assert_frames_identical(serial, on_dask)


def test_a_batch_that_keeps_failing_gives_cluster_error_rows(client: Any,
                                                             monkeypatch: Any) -> None:
    """After its retries, a failed batch gives ClusterError rows for its series only."""
    from pilotstats import _config
    from pilotstats.analysis import _many

    monkeypatch.setattr(_config, "DASK_RETRIES", 1)
    tasks = [(f"s{i}", i, np.ones(30)) for i in range(8)]
    rows = _many._run_dask(tasks, _row_failing_on_s3, (), client, 2, None, ("series", "n",
                                                                           "error"))
    assert [r["series"] for r in rows] == [t[0] for t in tasks]
    failed = [r["series"] for r in rows if r["error"]]
    assert "s3" in failed and all(r["error"].startswith("ClusterError") for r in rows
                                  if r["error"])
    assert len(failed) < len(tasks)  # only the batch holding s3


def _row_failing_on_s3(name: str, values: Any) -> dict[str, Any]:
    if name == "s3":  # an infrastructure failure, not a series error (not caught by rows)
        raise OSError("simulated lost connection")
    return {"series": name, "n": len(values), "error": None}


def test_no_scatter_and_no_lost_dependencies(client: Any) -> None:
    """Equal batches of equal series (what client.scatter(hash=True) merged into one key and
    then lost) all come back, three calls in a row."""
    series = {f"s{i}": np.r_[np.ones(30), 2 * np.ones(30)] for i in range(40)}
    serial = trend_many(series, workers=1)
    for _ in range(3):
        _assert_frames_identical(serial, trend_many(series, engine="dask", client=client))
