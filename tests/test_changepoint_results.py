"""Tests of the shared change-point result classes (``pilotstats.changepoints._results``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pilotstats.changepoints import ChangePoints, Segment, SingleChangePoint
from pilotstats.changepoints._results import _mean_std, make_segments, safe_median
from pilotstats.exceptions import InvalidInputError


def _example() -> ChangePoints:
    x = np.array([1.0, 1.0, 2.0, 1.0, 4.0, 4.0, 5.0, 4.0, 4.0])
    return ChangePoints(
        locations=(np.int64(4),),
        segments=make_segments(x, [4]),
        n=9,
        method="edm-multi",
        parameters={"min_size": 2, "beta": 0.008},
    )


def test_segments_statistics() -> None:
    result = _example()
    first, second = result.segments
    assert (first.start, first.end, first.n) == (0, 4, 4)
    assert (second.start, second.end, second.n) == (4, 9, 5)
    assert first.mean == pytest.approx(1.25)
    assert first.median == 1.0
    assert first.std == pytest.approx(np.std([1, 1, 2, 1], ddof=1))
    assert second.population_std == pytest.approx(np.std([4, 4, 5, 4, 4]))
    assert isinstance(result.locations[0], int)
    assert list(result) == [first, second] == [result[0], result[1]]
    assert len(result) == 2 and result  # one item per segment; truthy: a change point


def test_single_sample_segment_has_nan_std() -> None:
    (segment,) = make_segments(np.array([3.0]), [])
    assert math.isnan(segment.std)
    assert segment.population_std == 0.0
    assert segment.to_dict()["std"] is None


def test_json_and_str() -> None:
    result = _example()
    json.dumps(result.to_dict(), allow_nan=False)
    assert str(result) == "edm-multi: 1 change point at [4] (n = 9, min_size = 2, beta = 0.008)"
    assert "<table>" in result._repr_html_()
    with pytest.raises(TypeError):
        result.parameters["beta"] = 1.0  # type: ignore[index]


def test_records_follow_otava() -> None:
    result = _example()
    (record,) = result.to_records(metric="latency", times=[10 * i for i in range(9)])
    assert record["metric"] == "latency"
    assert record["index"] == 4
    assert record["time"] == 40
    assert record["mean_before"] == pytest.approx(1.25)
    assert record["mean_after"] == pytest.approx(4.2)
    assert record["forward_change_percent"] == pytest.approx((4.2 / 1.25 - 1) * 100)
    assert record["magnitude"] == pytest.approx(4.2 / 1.25 - 1)
    assert record["stddev_before"] == pytest.approx(np.std([1, 1, 2, 1]))
    assert record["p_value"] is None
    (otava,) = result.to_records(otava_keys=True)
    assert "pvalue" in otava and otava["time"] is None
    json.dumps(result.to_records(), allow_nan=False)
    with pytest.raises(InvalidInputError, match="times"):
        result.to_records(times=[1, 2])


def test_records_zero_mean_before() -> None:
    x = np.array([0.0, 0.0, 0.0, 2.0, 2.0, 2.0])
    result = ChangePoints(
        (3,), make_segments(x, [3]), 6, "edm-multi", p_values=(0.01,), test="rank"
    )
    (record,) = result.to_records()
    assert record["forward_change_percent"] == 0.0
    assert record["magnitude"] == 1.0
    assert record["p_value"] == 0.01
    assert "p = [0.01], rank" in str(result)


def test_inconsistent_fields_rejected() -> None:
    x = np.arange(6.0)
    with pytest.raises(InvalidInputError, match="p_values"):
        ChangePoints((3,), make_segments(x, [3]), 6, "x", p_values=(0.1, 0.2))
    with pytest.raises(InvalidInputError, match="segments"):
        ChangePoints((3,), make_segments(x, []), 6, "x")


def test_empty_result() -> None:
    x = np.ones(5)
    result = ChangePoints((), make_segments(x, []), 5, "edm-percent", too_short=True)
    assert len(result) == 1 and not result  # one segment, no change point: falsy
    assert "too short" in str(result)
    assert result.to_records() == []


def test_single_change_point() -> None:
    single = SingleChangePoint(
        location=np.int64(10), statistic=np.float64(5.0), n=20, min_size=5, exact=True
    )
    assert single.found and single.locations == (10,)
    assert isinstance(single.location, int) and isinstance(single.statistic, float)
    assert str(single) == "edm-x: change at 10 (statistic 5, n = 20, min_size = 5)"
    none = SingleChangePoint(None, 0.0, 8, 5, False, method="edm-tail", too_short=True)
    assert not none.found and none.locations == ()
    assert "too short" in str(none)
    json.dumps(none.to_dict(), allow_nan=False)
    assert isinstance(Segment(0, 1, 1, 0.0, 0.0, math.nan).to_dict(), dict)


def test_segment_statistics_equal_numpy() -> None:
    """``safe_median`` and ``_mean_std`` skip NumPy's generic machinery but must give
    ``np.median``, ``np.mean`` and ``np.std(ddof=1)`` bit for bit (signed zeros included)."""
    rng = np.random.default_rng(0)
    for n in [*range(1, 40), 128, 129, 1001]:
        for kind in range(4):
            v = rng.standard_normal(n) * 10.0 ** rng.uniform(-5.0, 5.0)
            if kind == 1:
                v = np.round(v)
            elif kind == 2:
                v = np.full(n, -0.0)
            elif kind == 3:
                v = v + 1e6
            expected = (np.median(v), np.mean(v), np.std(v, ddof=1) if n > 1 else math.nan)
            got = (safe_median(v), *_mean_std(v))
            assert repr(got) == repr(tuple(float(e) for e in expected)), (n, kind)
