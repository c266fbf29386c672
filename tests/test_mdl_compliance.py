"""Trend compliance metrics (spec ``specs/mdl.md`` §10) on hand-built trend lists."""

from __future__ import annotations

import datetime as dt
import json
import math

import numpy as np
import pytest

from pilotstats.changepoints import TrendCompliance, mdl_partition, trend_compliance
from pilotstats.exceptions import InvalidInputError


def step_series(levels: list[tuple[float, int]], noise: float = 0.01) -> list[float]:
    """Runs at given levels with a small deterministic wiggle (clear groups)."""
    out: list[float] = []
    for level, count in levels:
        out.extend(level + noise * ((-1) ** i) * (i % 3) for i in range(count))
    return out


def test_runs_as_time_window_and_change() -> None:
    values = step_series([(10.0, 200), (12.0, 30), (9.0, 20)])
    groups = mdl_partition(values)
    assert groups.boundaries.tolist() == [200, 230]
    c = trend_compliance(groups)
    n = 250
    assert len(values) == n
    # window: runs max(0, n - 180) .. n - 1 - 10 = 70 .. 239
    assert (c.window_start, c.window_end) == (70, 239)
    assert c.reference == groups.groups[1].mean  # max trend inside the window
    assert c.last_trend == groups.groups[2].mean
    assert c.runs_in_last_trend == 20
    assert c.long_term_change == pytest.approx((c.last_trend - c.reference) / c.reference)
    assert c.long_term_change_percent == pytest.approx(100 * c.long_term_change)
    # recent window: groups starting in the last 10 runs -> none
    assert (c.n_regressions, c.n_progressions) == (0, 0)
    c30 = trend_compliance(groups, short_window=30)
    assert (c30.n_regressions, c30.n_progressions) == (1, 0)
    c60 = trend_compliance(groups, short_window=60)
    assert (c60.n_regressions, c60.n_progressions) == (1, 1)


def test_short_history_uses_earliest_trend_and_empty_window_is_nan() -> None:
    values = step_series([(10.0, 30), (8.0, 15)])
    groups = mdl_partition(values)
    c = trend_compliance(groups)
    assert c.window_start == 0 and c.window_end == 45 - 1 - 10
    assert c.reference == groups.groups[0].mean
    short = trend_compliance(values[:8])  # n <= S
    assert math.isnan(short.reference) and math.isnan(short.long_term_change)
    assert short.window_start is None
    json.dumps(short.to_dict(), allow_nan=False)
    edge = trend_compliance(values[:10])  # n == S: still empty
    assert math.isnan(edge.reference)
    one = trend_compliance(values[:11])  # n == S + 1: window is run 0
    assert (one.window_start, one.window_end) == (0, 0)


def test_lower_is_better_uses_min() -> None:
    values = step_series([(5.0, 40), (4.0, 40), (6.0, 30)])
    groups = mdl_partition(values, higher_is_better=False)
    assert [g.classification for g in groups.groups] == ["normal", "progression", "regression"]
    c = trend_compliance(groups)
    assert not c.higher_is_better
    assert c.reference == groups.groups[1].mean
    assert c.long_term_change > 0  # latency went up against the best (lowest) trend
    up = trend_compliance(groups, higher_is_better=True)
    assert up.reference == max(g.mean for g in groups.groups[:3])


def test_real_time_window_keeps_the_nearer_limit() -> None:
    values = step_series([(10.0, 250), (11.0, 50)])
    n = len(values)
    start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    # two runs a day: 180 runs span 90 days, nearer than 180 days -> run limit wins
    times = [start + dt.timedelta(hours=12 * i) for i in range(n)]
    c = trend_compliance(values, times=times)
    assert c.window_start == n - 180
    # last run 7 days back = 14 runs at two per day
    assert c.window_end == n - 1 - 14
    # one run every 3 days: 180 days = 60 runs, nearer than 180 runs -> day limit wins
    sparse = [start + dt.timedelta(days=3 * i) for i in range(n)]
    stamps = np.datetime64("2024-01-01T00:00", "ns") + np.arange(n) * np.timedelta64(3, "D")
    c2 = trend_compliance(values, times=stamps)
    assert (trend_compliance(values, times=sparse).window_start) == c2.window_start
    assert c2.window_start == n - 1 - 60
    assert c2.window_end == n - 1 - 3  # t <= t_last - 7 days: runs 3 or more back
    assert c2.short_period == 7 * 86400.0 and c2.long_period == 180 * 86400.0
    seconds = [3 * 86400.0 * i for i in range(n)]
    c3 = trend_compliance(values, times=seconds, short_period=dt.timedelta(days=7),
                          long_period=180 * 86400.0)  # fmt: skip
    assert (c3.window_start, c3.window_end) == (c2.window_start, c2.window_end)
    naive = [dt.datetime(2024, 1, 1) + dt.timedelta(days=3 * i) for i in range(n)]
    c4 = trend_compliance(values, times=naive, short_period="1W", long_period="4320h")
    assert (c4.window_start, c4.window_end) == (c2.window_start, c2.window_end)
    empty = trend_compliance(values, times=seconds, short_period="10000D")
    assert math.isnan(empty.reference)


def test_values_are_partitioned_first_and_str() -> None:
    values = step_series([(10.0, 30), (8.0, 15)])
    c = trend_compliance(values)
    assert isinstance(c, TrendCompliance)
    assert c.last_trend == pytest.approx(8.0, abs=0.02) and c.runs_in_last_trend == 15
    assert c.long_term_change == pytest.approx(-0.2, abs=0.005)
    text = str(c)
    assert "last trend" in text and "%" in text and "\n" not in text
    json.dumps(c.to_dict(), allow_nan=False)
    assert mdl_partition(values).compliance(short_window=5).short_window == 5


def test_missing_last_run_and_zero_reference() -> None:
    values = [[10.0], [10.1], [9.9], [10.0]] * 5 + [[math.nan]]
    groups = mdl_partition(values, nan_policy="omit")
    c = trend_compliance(groups, short_window=2)
    assert c.last_run == 19 and c.runs_in_last_trend == 20


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"short_window": -1}, "short_window"),
        ({"long_window": 0}, "long_window"),
        ({"times": [1.0, 2.0]}, "one timestamp per run"),
        ({"times": [float(i) for i in range(20)][::-1]}, "non-decreasing"),
        ({"times": list(range(20)), "short_period": "7 days"}, "short_period"),
        ({"times": list(range(20)), "long_period": -5.0}, "long_period"),
        ({"times": ["x"] * 20}, "times"),
        ({"resolution": 0.1, "short_window": 3}, "resolution and sbps"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    groups = mdl_partition([10.0 + 0.1 * (i % 3) for i in range(20)])
    with pytest.raises(InvalidInputError, match=match):
        trend_compliance(groups, **kwargs)
