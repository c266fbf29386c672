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
