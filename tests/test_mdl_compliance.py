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


def test_short_history_uses_earliest_trend() -> None:
    values = step_series([(10.0, 30), (8.0, 15)])
    groups = mdl_partition(values)
    c = trend_compliance(groups)
    assert c.window_start == 0 and c.window_end == 45 - 1 - 10
    assert c.reference == groups.groups[0].mean and not c.reference_is_earliest
    # n <= S: "if the history is too short, the earliest available trend is used" (CSIT),
    # not NaN
    history = [10.0, 10.1, 9.9, 10.0, 7.0, 7.1, 6.9, 7.0]
    short = trend_compliance(history)
    first = mdl_partition(history)
    assert short.reference == first.trend_mean[0] and short.reference_is_earliest
    assert (short.window_start, short.window_end) == (0, 0)
    assert short.long_term_change == pytest.approx(
        (first.trend_mean[-1] - first.trend_mean[0]) / first.trend_mean[0]
    )
    assert "short history" in str(short)
    json.dumps(short.to_dict(), allow_nan=False)
    edge = trend_compliance(values[:10])  # n == S: still the earliest trend
    assert edge.reference_is_earliest and (edge.window_start, edge.window_end) == (0, 0)
    one = trend_compliance(values[:11])  # n == S + 1: the window is run 0
    assert (one.window_start, one.window_end) == (0, 0) and not one.reference_is_earliest
    single = trend_compliance([5.0])
    assert single.reference == 5.0 and single.long_term_change == 0.0


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
    # no run is a short period older than the last: the earliest trend
    early = trend_compliance(values, times=seconds, short_period="10000D")
    oldest = n - 1 - 60  # the earliest run within 180 days (and 180 runs)
    assert early.reference_is_earliest
    assert (early.window_start, early.window_end) == (oldest, oldest)
    assert early.reference == mdl_partition(values).trend_mean[oldest]


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


# ------------------------------------------------------------------------------------------
# CSIT's per-run averaging and its stated precision
# ------------------------------------------------------------------------------------------


def _trial_runs(seed: int) -> list[list[float]]:
    """15 runs of 10 trials at 100, then 10 at 98, trial noise sd 3 (seed 1: the trial
    coding finds no change, the per-run averages do)."""
    rng = np.random.default_rng(seed)
    return [list(100 + rng.normal(0, 3, 10)) for _ in range(15)] + [
        list(98 + rng.normal(0, 3, 10)) for _ in range(10)
    ]


def _approx(value: object) -> object:
    """``pytest.approx`` for numbers; other JSON values (None, text, flags) exactly (pytest
    9.2 refuses ``approx(None, rel=...)``)."""
    if isinstance(value, float):
        return pytest.approx(value, rel=1e-13)
    return value


def test_per_run_average_partitions_the_run_means() -> None:
    runs = _trial_runs(1)
    means = [float(np.mean(run)) for run in runs]
    averaged = trend_compliance(runs, per_run_average=True)
    reference = trend_compliance(means)  # the same up to the summation order (ulps)
    for key, value in reference.to_dict().items():
        assert averaged.to_dict()[key] == _approx(value), key
    # "this acts as a single trial with aggregate duration": another partition than coding
    # every trial as a sample (jumpavg's own model, the default)
    assert mdl_partition(means).boundaries.tolist() == [15]
    assert mdl_partition(runs).boundaries.tolist() == []
    trials = trend_compliance(runs)
    assert trials.runs_in_last_trend == 25 and averaged.runs_in_last_trend == 10
    assert averaged.long_term_change == pytest.approx(
        (np.mean(means[15:]) - np.mean(means[:15])) / np.mean(means[:15])
    )


def test_methodology_encoding_uses_4096_pixels() -> None:
    runs = _trial_runs(33)
    top = max(max(run) for run in runs)
    text = trend_compliance(runs, encoding="methodology")
    expected = trend_compliance(mdl_partition(runs, resolution=top / 4096))
    assert text.to_dict() == expected.to_dict()
    # the precision really changes: jumpavg's code codes the maximum as 8191 units
    code = mdl_partition(runs)
    assert code.resolution == pytest.approx(top / 8191, rel=1e-15)
    assert mdl_partition(runs, resolution=top / 4096).total_bits != code.total_bits
    # sbps scales it: max / 2**sbps
    eight = trend_compliance(runs, encoding="methodology", sbps=8)
    assert eight.to_dict() == trend_compliance(
        mdl_partition(runs, resolution=top / 256)
    ).to_dict()
    both = trend_compliance(runs, encoding="methodology", per_run_average=True)
    means = [float(np.mean(run)) for run in runs]
    expected = trend_compliance(mdl_partition(means, resolution=max(means) / 4096))
    for key, value in expected.to_dict().items():
        assert both.to_dict()[key] == _approx(value), key


def test_per_run_average_and_encoding_validation() -> None:
    runs = _trial_runs(1)
    groups = mdl_partition(runs)
    with pytest.raises(InvalidInputError, match="only when values are given"):
        trend_compliance(groups, per_run_average=True)
    with pytest.raises(InvalidInputError, match="only when values are given"):
        trend_compliance(groups, encoding="methodology")
    with pytest.raises(InvalidInputError, match="encoding"):
        trend_compliance(runs, encoding="csv")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="resolution or encoding"):
        trend_compliance(runs, encoding="methodology", resolution=0.1)
    with pytest.raises(InvalidInputError, match="per_run_average"):
        trend_compliance(runs, per_run_average="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="empty run"):
        trend_compliance([[1.0], []], per_run_average=True)
    with pytest.raises(InvalidInputError, match="positive maximum"):
        trend_compliance([-1.0, -2.0, -3.0], encoding="methodology")
