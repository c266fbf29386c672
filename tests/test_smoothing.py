"""Tests of pilotstats.smoothing on synthetic data (smoothing spec §1–§11)."""

from __future__ import annotations

import datetime
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pilotstats._kernels import smoothing as kernels
from pilotstats.demo._smoothing import demo_smoothing
from pilotstats.exceptions import (
    EmptyGroupError,
    InvalidInputError,
    NotEnoughDataError,
    TargetNotExtremeWarning,
)
from pilotstats.smoothing import (
    Contributors,
    CorrelationOptions,
    Crossovers,
    DivergenceAnalysis,
    RegionOptions,
    Regions,
    analyze_regions,
    contributors,
    crossovers,
    divergence_regions,
    sma,
)
from tests.naive_smoothing import naive_contributors, naive_sma

DAY = 86400.0


def midnight_days(n: int, start: str = "2024-01-01") -> pd.DatetimeIndex:
    return pd.date_range(start, periods=n, freq="D")


def step_fixture(seed: int = 7) -> tuple[pd.DatetimeIndex, np.ndarray]:
    """Daily midnight timestamps (so window edges fall exactly on observations), a step
    from 1.0 to 0.6 at day 40 and small noise (spec §14)."""
    rng = np.random.default_rng(seed)
    days = midnight_days(80)
    y = np.where(np.arange(80) < 40, 1.0, 0.6) + rng.normal(0, 0.02, 80)
    return days, y


# ---------------------------------------------------------------- kernels


class TestKernels:
    def test_prefix_sums_twin(self) -> None:
        rng = np.random.default_rng(1)
        y = rng.normal(size=300)
        y[rng.random(300) < 0.1] = np.nan
        for a, b in zip(
            kernels.compensated_prefix_sums(y),
            kernels.compensated_prefix_sums.py_func(y),
            strict=True,
        ):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)

    @pytest.mark.parametrize("left,right", [(True, False), (False, True), (True, True),
                                            (False, False)])
    def test_window_bounds_twin(self, left: bool, right: bool) -> None:
        rng = np.random.default_rng(2)
        t = np.sort(rng.integers(0, 50, 200)).astype(float)
        first, stop = kernels.window_bounds(t, 3.0, left, right)
        first_py, stop_py = kernels.window_bounds.py_func(t, 3.0, left, right)
        np.testing.assert_array_equal(first, first_py)
        np.testing.assert_array_equal(stop, stop_py)
        # brute force: row ranges of the window definition
        for i in range(t.size):
            low, high = t[i] - 3.0, t[i] + 3.0
            inside = ((t >= low) if left else (t > low)) & ((t <= high) if right else (t < high))
            rows = np.flatnonzero(inside)
            assert first[i] == rows[0] and stop[i] == rows[-1] + 1

    def test_range_means_twin(self) -> None:
        rng = np.random.default_rng(3)
        y = rng.normal(size=100)
        y[::7] = np.nan
        high, low, count = kernels.compensated_prefix_sums(y)
        first = rng.integers(0, 50, 40).astype(np.int64)
        stop = first + rng.integers(0, 50, 40).astype(np.int64)
        a = kernels.range_means(high, low, count, first, stop, y)
        b = kernels.range_means.py_func(high, low, count, first, stop, y)
        np.testing.assert_allclose(a, b, rtol=1e-12)
        for i in range(40):
            segment = y[first[i] : stop[i]]
            segment = segment[~np.isnan(segment)]
            if segment.size:
                assert a[i] == pytest.approx(segment.mean(), rel=1e-14)
            else:
                assert math.isnan(a[i])

    def test_compensation_beats_naive_prefix_sums(self) -> None:
        # a huge offset early on would destroy plain prefix-sum differences
        y = np.concatenate(([1e16, -1e16], np.full(10, 0.1)))
        high, low, count = kernels.compensated_prefix_sums(y)
        mean = kernels.range_means(
            high, low, count, np.array([2], dtype=np.int64), np.array([12], dtype=np.int64), y
        )
        assert mean[0] == pytest.approx(0.1, rel=1e-15)


# ---------------------------------------------------------------- sma


class TestSmaExactness:
    def test_closed_left_on_window_edges(self) -> None:
        days = midnight_days(5)
        y = [1.0, 2.0, 4.0, 8.0, 16.0]
        # w = 2 days: window [t - 1 d, t + 1 d) holds the previous day and the day itself
        np.testing.assert_array_equal(sma(days.to_numpy(), y, "2D"), [1.0, 1.5, 3.0, 6.0, 12.0])
        # closed right (pandas' default for offsets): (t - 1 d, t + 1 d] is the mirror image
        np.testing.assert_array_equal(
            sma(days.to_numpy(), y, "2D", closed="right"), [1.5, 3.0, 6.0, 12.0, 16.0]
        )
        np.testing.assert_array_equal(
            sma(days.to_numpy(), y, "2D", closed="both"), [1.5, 7 / 3, 14 / 3, 28 / 3, 12.0]
        )
        np.testing.assert_array_equal(sma(days.to_numpy(), y, "2D", closed="neither"), y)

    def test_step_fixture_left_matches_pandas_and_right_differs(self) -> None:
        days, y = step_fixture()
        series = pd.Series(y, index=days)
        for window in ("2D", "14D", "28D"):  # even days: edges fall on midnights
            expected = series.rolling(pd.Timedelta(window), center=True, closed="left").mean()
            got = sma(days, y, window)
            np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-15, atol=1e-15)
            right = sma(days, y, window, closed="right")
            assert np.max(np.abs(right.to_numpy() - got.to_numpy())) > 1e-3

    @pytest.mark.parametrize("closed", ["left", "right", "both", "neither"])
    def test_against_pandas_random_irregular(self, closed: str) -> None:
        rng = np.random.default_rng(11)
        seconds = np.sort(rng.integers(0, 400 * 86400, 2000))
        seconds[100:105] = seconds[100]  # duplicates
        y = rng.lognormal(size=seconds.size)
        y[rng.random(seconds.size) < 0.05] = np.nan
        index = pd.to_datetime(seconds, unit="s")
        series = pd.Series(y, index=index)
        for window in ("1D", "14D", "49D", "36h"):
            expected = series.rolling(pd.Timedelta(window), center=True, closed=closed).mean()
            got = sma(index, series, window, closed=closed)
            np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-15, atol=1e-15)

    @pytest.mark.parametrize("closed", ["left", "right", "both", "neither"])
    def test_against_brute_force(self, closed: str) -> None:
        rng = np.random.default_rng(5)
        t = np.sort(rng.integers(0, 30, 60)).astype(float) * 3600.0
        y = rng.normal(size=60)
        y[rng.random(60) < 0.2] = np.nan
        for width in (3600.0, 4 * 3600.0, 10 * 3600.0, None):
            got = sma(t, y, width, closed=closed)
            np.testing.assert_allclose(got, naive_sma(t, y, width, closed), rtol=1e-14)

    def test_global_mean_spellings(self) -> None:
        y = np.array([1.0, np.nan, 3.0, 5.0])
        t = np.arange(4) * DAY
        for window in (None, "inf", math.inf):
            np.testing.assert_array_equal(sma(t, y, window), [3.0, 3.0, 3.0, 3.0])

    def test_nan_handling(self) -> None:
        t = np.array([0.0, 1.0, 2.0, 10.0, 11.0]) * DAY
        y = np.array([1.0, np.nan, 3.0, np.nan, np.nan])
        got = sma(t, y, "4D")
        np.testing.assert_array_equal(got[:3], [1.0, 2.0, 2.0])  # [t - 2 d, t + 2 d)
        assert np.isnan(got[3:]).all()  # the window holds only NaN

    def test_duplicate_timestamps_share_values(self) -> None:
        t = np.array([0, 1, 1, 1, 2, 5]) * DAY
        y = np.array([1.0, 2.0, 7.0, 3.0, 4.0, 9.0])
        got = sma(t, y, "2D")
        assert got[1] == got[2] == got[3] == pytest.approx(13.0 / 4)

    def test_equal_windows_give_identical_bits(self) -> None:
        # a gap makes the short and the long window hold the same rows: equal SMAs, no
        # spurious crossover from different summation paths
        rng = np.random.default_rng(3)
        t = np.concatenate((np.arange(10) * 3600.0, 100 * DAY + np.arange(10) * 3600.0))
        y = rng.uniform(0.1, 0.9, 20) * np.pi
        short = sma(t, y, "2D")
        long = sma(t, y, "6D")
        assert np.array_equal(short, long)
        assert len(crossovers(short, long)) == 0

    def test_dst_crossing_local_times_use_elapsed_time(self) -> None:
        # hourly observations in New York across the 2024-03-10 spring-forward change
        local = pd.date_range("2024-03-08", "2024-03-13", freq="h", tz="America/New_York")
        y = np.arange(local.size, dtype=float)
        got = sma(local, y, "1D")
        utc = local.tz_convert("UTC")
        seconds = (utc.as_unit("s").asi8).astype(float)
        np.testing.assert_array_equal(got.to_numpy(), naive_sma(seconds, y, DAY))
        # every window covers exactly 24 h of elapsed time: 24 hourly points away from edges
        counts = np.array([
            np.sum((seconds >= s - 12 * 3600) & (seconds < s + 12 * 3600)) for s in seconds
        ])
        assert (counts[12:-12] == 24).all()
        # naive local times read with tz= give the same instants
        naive = local.tz_localize(None)
        np.testing.assert_array_equal(
            sma(naive, y, "1D", tz="America/New_York").to_numpy(), got.to_numpy()
        )
        # wall-clock mode (paper-exact only) differs near the change
        wall = sma(local, y, "1D", wallclock_tz="America/New_York")
        assert not np.array_equal(wall.to_numpy(), got.to_numpy())

    def test_input_types_agree(self) -> None:
        days, y = step_fixture()
        expected = sma(days, y, "14D").to_numpy()
        seconds = days.as_unit("s").asi8.astype(float)
        np.testing.assert_array_equal(sma(seconds, y, "14D"), expected)
        np.testing.assert_array_equal(sma(days.to_numpy(), y, "14D"), expected)
        np.testing.assert_array_equal(sma(list(days.to_pydatetime()), y, "14D"), expected)
        aware = pd.Series(days.tz_localize("UTC").tz_convert("Asia/Tokyo"))
        np.testing.assert_array_equal(sma(aware, y, "14D").to_numpy(), expected)
        np.testing.assert_array_equal(sma(seconds, y, datetime.timedelta(days=14)), expected)
        np.testing.assert_array_equal(sma(seconds, y, 14 * DAY), expected)
        np.testing.assert_array_equal(sma(seconds, y, pd.Timedelta("14D")), expected)

    def test_pandas_output_keeps_index(self) -> None:
        days, y = step_fixture()
        values = pd.Series(y, index=np.arange(100, 180), name="perf")
        got = sma(days, values, "7D")
        assert isinstance(got, pd.Series)
        assert got.name == "perf" and got.index.equals(values.index)
        assert isinstance(sma(days.to_numpy(), y, "7D"), np.ndarray)

    def test_inputs_not_modified(self) -> None:
        days, y = step_fixture()
        copy = y.copy()
        sma(days, y, "7D")
        np.testing.assert_array_equal(y, copy)

    @settings(max_examples=40, deadline=None)
    @given(
        steps=st.lists(st.integers(0, 3), min_size=1, max_size=25),
        values=st.lists(st.one_of(st.floats(-1e3, 1e3), st.just(math.nan)), min_size=25,
                        max_size=25),
        width=st.integers(1, 8),
        closed=st.sampled_from(["left", "right", "both", "neither"]),
    )
    def test_property_against_brute_force(
        self, steps: list[int], values: list[float], width: int, closed: str
    ) -> None:
        # integer-hour times with many duplicates and edges exactly on observations
        t = np.cumsum(steps).astype(float) * 3600.0
        y = np.array(values[: t.size])
        got = sma(t, y, width * 3600.0, closed=closed)  # type: ignore[arg-type]
        np.testing.assert_allclose(got, naive_sma(t, y, width * 3600.0, closed), rtol=1e-12,
                                   atol=1e-9)

    @settings(max_examples=30, deadline=None)
    @given(
        a=st.floats(-100, 100), b=st.floats(0.1, 10),
        shift=st.integers(-10**6, 10**6), seed=st.integers(0, 1000),
    )
    def test_affine_equivariance_and_time_shift(
        self, a: float, b: float, shift: int, seed: int
    ) -> None:
        rng = np.random.default_rng(seed)
        t = np.sort(rng.integers(0, 60, 40)).astype(float) * 3600.0
        y = rng.normal(size=40)
        base = sma(t, y, "5h")
        np.testing.assert_allclose(sma(t, a + b * y, "5h"), a + b * base, rtol=1e-9,
                                   atol=1e-9 * (abs(a) + b))
        np.testing.assert_array_equal(sma(t + shift, y, "5h"), base)


class TestSmaErrors:
    def test_unsorted(self) -> None:
        with pytest.raises(InvalidInputError, match="sorted"):
            sma([2.0, 1.0, 3.0], [1.0, 2.0, 3.0], "1D")

    @pytest.mark.parametrize("times", [["2024-01-01", "2024-01-02"], [True, False],
                                       np.array([1, 2], dtype="timedelta64[s]")])
    def test_non_datetime_times(self, times: object) -> None:
        with pytest.raises(InvalidInputError, match="times"):
            sma(times, [1.0, 2.0], "1D")

    @pytest.mark.parametrize("window", [0, -5.0, "0D", "-1D", "1M", "often", [3], True,
                                        pd.Timedelta("NaT")])
    def test_bad_window(self, window: object) -> None:
        with pytest.raises(InvalidInputError, match="window"):
            sma([0.0, 1.0], [1.0, 2.0], window)

    def test_empty(self) -> None:
        with pytest.raises(EmptyGroupError):
            sma([], [], "1D")
        assert issubclass(EmptyGroupError, InvalidInputError)
        assert issubclass(EmptyGroupError, NotEnoughDataError)

    def test_other_errors(self) -> None:
        with pytest.raises(InvalidInputError, match="same length"):
            sma([0.0, 1.0], [1.0], "1D")
        with pytest.raises(InvalidInputError, match="NaT"):
            sma(pd.DatetimeIndex(["2024-01-01", pd.NaT]), [1.0, 2.0], "1D")
        with pytest.raises(InvalidInputError, match="closed"):
            sma([0.0, 1.0], [1.0, 2.0], "1D", closed="middle")  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="infinite"):
            sma([0.0, 1.0], [1.0, np.inf], "1D")
        with pytest.raises(InvalidInputError, match="time-zone"):
            sma(pd.DatetimeIndex(["2024-01-01"]), [1.0], "1D", tz="Mars/Olympus")


# ---------------------------------------------------------------- crossovers


class TestCrossovers:
    def test_strict_comparison_and_ties(self) -> None:
        long = np.full(7, 2.0)
        # touching from below: no crossover
        assert len(crossovers([1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0], long)) == 0
        # touching from above: a down and an up crossover
        c = crossovers([3.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0], long)
        assert c.positions.tolist() == [1, 2] and c.directions == ("down", "up")
        # NaN compares as False ("not above")
        c = crossovers([3.0, np.nan, 3.0, 1.0, 1.0, 1.0, 1.0], long)
        assert c.positions.tolist() == [1, 2, 3]

    def test_record_fields(self) -> None:
        t = np.arange(5) * DAY
        c = crossovers(
            pd.Series([1.0, 3.0, 3.0, 1.0, 1.0], index=pd.to_datetime(t, unit="s")),
            pd.Series([2.0] * 5, index=pd.to_datetime(t, unit="s")),
        )
        assert isinstance(c, Crossovers)
        assert c.times.tolist() == [DAY, 3 * DAY]
        assert c.sma_short.tolist() == [3.0, 1.0]
        assert c.sma_long.tolist() == [2.0, 2.0]
        assert c.to_frame()["direction"].tolist() == ["up", "down"]
        json.dumps(c.to_dict(), allow_nan=False)
        assert "2 crossovers" in str(c)
        assert not c.positions.flags.writeable

    def test_min_width_drops_close_crossovers(self) -> None:
        t = np.array([0, 1, 2, 3, 20, 40]) * DAY
        short = np.array([1.0, 3.0, 1.0, 3.0, 1.0, 3.0])
        long = np.full(6, 2.0)
        assert crossovers(short, long, times=t).positions.tolist() == [1, 2, 3, 4, 5]
        kept = crossovers(short, long, times=t, min_width="5D")
        assert kept.positions.tolist() == [1, 4, 5]

    def test_duplicate_timestamps_put_crossover_on_first(self) -> None:
        t = np.array([0, 1, 2, 3, 3, 3, 4, 5, 6, 7]) * DAY
        y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=float)
        short = sma(t, y, "2D")
        long = sma(t, y, None)
        c = crossovers(short, long, times=t)
        assert c.positions.tolist() == [3]

    def test_errors(self) -> None:
        with pytest.raises(InvalidInputError, match="aligned"):
            crossovers([1.0, 2.0], [1.0])
        with pytest.raises(EmptyGroupError):
            crossovers([], [])
        with pytest.raises(InvalidInputError, match="same index"):
            crossovers(pd.Series([1.0, 2.0]), pd.Series([1.0, 2.0], index=[5, 6]))
        with pytest.raises(InvalidInputError, match="needs observation times"):
            crossovers([1.0, 2.0], [2.0, 1.0], min_width="1D")


# ---------------------------------------------------------------- regions


class TestRegions:
    def fixture(self) -> tuple[np.ndarray, np.ndarray]:
        t = np.arange(60) * DAY
        y = np.ones(60)
        y[20:40] = 0.5
        y[25] = 0.2
        y[30] = 0.2  # tie: the earliest row is the job of interest
        return t, y

    def test_regions_between_crossovers(self) -> None:
        t, y = self.fixture()
        r = divergence_regions(t, y, short="6D", long="24D")
        c = r.crossovers
        assert len(c) >= 2 and len(r) == len(c) - 1
        np.testing.assert_array_equal(r.starts, c.positions[:-1])
        np.testing.assert_array_equal(r.stops, c.positions[1:])
        np.testing.assert_array_equal(r.n_rows, r.stops - r.starts)
        for k in range(len(r)):
            segment = y[r.starts[k] : r.stops[k]]
            assert r.means[k] == pytest.approx(segment.mean())
            assert r.job_positions[k] == r.starts[k] + int(np.argmin(segment))
            assert r.job_values[k] == segment.min()
            assert r.sides[k] == ("above" if r.sma_short[r.starts[k]] >
                                       r.sma_long[r.starts[k]] else "below")
            assert r.start_times[k] == t[r.starts[k]]
            assert r.end_times[k] == t[r.stops[k] - 1]
            assert r.next_crossover_times[k] == t[r.stops[k]]
        below = [k for k in range(len(r)) if r.sides[k] == "below"]
        assert any(r.job_positions[k] == 25 for k in below)  # first of the tied minima

    def test_higher_is_worse_flips_job(self) -> None:
        t, y = self.fixture()
        r = divergence_regions(t, -y, short="6D", long="24D", higher_is_better=False)
        for k in range(len(r)):
            segment = -y[r.starts[k] : r.stops[k]]
            assert r.job_positions[k] == r.starts[k] + int(np.argmax(segment))

    def test_min_observations_and_single_row_regions(self) -> None:
        t = np.arange(12) * DAY
        y = np.array([1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1], dtype=float)
        r = divergence_regions(t, y, short="1D", long=None)  # the window holds one day
        assert r.n_rows.tolist() == [1] and r.starts.tolist() == [4]
        assert r.sides == ("below",)
        assert len(divergence_regions(t, y, short="1D", long=None, min_observations=2)) == 0
        labels = r.labels()
        assert labels.shape == (12,)
        assert set(labels[labels >= 0]) == set(range(len(r)))

    def test_head_and_tail_dropped(self) -> None:
        t = np.arange(30) * DAY
        y = np.where(np.arange(30) < 15, 1.0, 0.0)
        r = divergence_regions(t, y, short="4D", long=None)
        assert len(r.crossovers) == 1 and len(r) == 0  # one crossover: no bounded region
        assert "0 divergence regions" in str(r)

    def test_result_is_json_safe(self) -> None:
        t, y = self.fixture()
        r = divergence_regions(t, y, short="6D", long="24D")
        assert isinstance(r, Regions)
        json.dumps(r.to_dict(), allow_nan=False)
        assert "divergence regions" in str(r)
        assert list(r.to_frame().columns)[:3] == ["region_id", "start", "stop"]

    def test_errors(self) -> None:
        t, y = self.fixture()
        with pytest.raises(InvalidInputError, match="longer than short"):
            divergence_regions(t, y, short="14D", long="14D")
        with pytest.raises(InvalidInputError, match="longer than short"):
            divergence_regions(t, y, short="14D", long="7D")
        with pytest.raises(InvalidInputError, match="short must be a finite"):
            divergence_regions(t, y, short=None, long="7D")
        with pytest.raises(InvalidInputError, match="min_observations"):
            divergence_regions(t, y, min_observations=0)
        with pytest.raises(InvalidInputError, match="sorted"):
            divergence_regions(t[::-1], y)
        with pytest.raises(EmptyGroupError):
            divergence_regions([], [])


# ---------------------------------------------------------------- contributors


def contributor_fixture() -> tuple[pd.DataFrame, Regions]:
    t = np.arange(40) * DAY
    perf = np.ones(40)
    perf[15:25] = 0.6
    perf[20] = 0.3
    load = np.linspace(0.0, 1.0, 40)
    load[20] = 5.0  # worst (highest) load at the job of interest: flagged
    rate = np.full(40, 2.0)  # constant: every row ties, p = 1
    gap = np.full(40, np.nan)
    partial = np.linspace(1, 2, 40)
    partial[20] = np.nan  # NaN at the job: record kept, not flagged
    frame = pd.DataFrame({
        "perf": perf, "load": load, "rate": rate, "gap": gap, "partial": partial,
        "name": ["x"] * 40,
    })
    regions = divergence_regions(t, perf, short="4D", long="16D")
    return frame, regions


class TestContributors:
    def test_minmax_records(self) -> None:
        frame, regions = contributor_fixture()
        result = contributors(frame, regions, target="perf",
                              metrics_higher_is_better={"load": False})
        rec = result.records
        assert set(rec["metric"]) == {"load", "rate", "partial"}  # gap all-NaN, name text
        k = int(np.flatnonzero(regions.job_positions == 20)[0])
        row = rec[(rec["region_id"] == k) & (rec["metric"] == "load")].iloc[0]
        assert row["flagged"] and row["threshold"] == 5.0 and row["n_match"] == 1
        assert row["p_value"] == pytest.approx(1 / row["n_obs"])
        assert row["random_p"] == pytest.approx(1 / regions.n_rows[k])
        tie = rec[(rec["region_id"] == k) & (rec["metric"] == "rate")].iloc[0]
        assert tie["flagged"] and tie["n_match"] == tie["n_obs"] and tie["p_value"] == 1.0
        assert not tie["significant"]
        nan_job = rec[(rec["region_id"] == k) & (rec["metric"] == "partial")].iloc[0]
        assert not nan_job["flagged"] and nan_job["n_obs"] == regions.n_rows[k] - 1
        assert "perf" not in set(rec["metric"])
        json.dumps(result.to_dict(), allow_nan=False)
        assert isinstance(result, Contributors) and "contributor records" in str(result)

    def test_correlations(self) -> None:
        rng = np.random.default_rng(8)
        t = np.arange(120) * DAY
        load = rng.uniform(0, 1, 120)
        perf = 1 - 0.5 * load + np.where(np.arange(120) // 30 % 2 == 0, 0.0, 0.3)
        frame = pd.DataFrame({"perf": perf, "load": load, "noise": rng.normal(size=120)})
        regions = divergence_regions(t, perf, short="6D", long="40D")
        result = contributors(frame, regions, target="perf",
                              correlations=CorrelationOptions(p_threshold=1e-3))
        table = result.correlations
        assert table is not None and len(table) > 0
        assert set(table["metric"]) == {"load"} and (table["r"] < -0.9).all()
        from scipy import stats

        row = table.iloc[0]
        k = int(row["region_id"])
        a, b = regions.starts[k], regions.stops[k]
        expected = stats.pearsonr(load[a:b], perf[a:b])
        assert row["r"] == pytest.approx(expected[0]) and row["n_points"] == b - a
        assert row["start_t"] == regions.start_times[k]
        json.dumps(result.to_dict(), allow_nan=False)

    def test_single_row_region_has_p_one(self) -> None:
        t = np.arange(12) * DAY
        y = np.array([1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1], dtype=float)
        frame = pd.DataFrame({"y": y, "m": np.arange(12.0)})
        regions = divergence_regions(t, y, short="1D", long=None)
        rec = contributors(frame, regions, target="y").records
        single = rec[rec["region_id"].isin(np.flatnonzero(regions.n_rows == 1))]
        assert len(single) and (single["p_value"] == 1.0).all()
        assert not single["significant"].any()

    @pytest.mark.parametrize("classifier", ["minmax", "percentile"])
    def test_against_brute_force(self, classifier: str) -> None:
        rng = np.random.default_rng(21)
        n = 300
        t = np.sort(rng.integers(0, 200, n)).astype(float) * DAY / 2
        perf = rng.normal(1, 0.1, n) + 0.2 * np.sin(np.arange(n) / 20)
        metrics = {
            "a": rng.integers(0, 5, n).astype(float),  # many ties
            "b": rng.normal(size=n),
            "c": np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
        }
        frame = pd.DataFrame({"perf": perf, **metrics})
        directions = {"a": False, "b": True, "c": False}
        regions = divergence_regions(t, perf, short="6D", long="20D")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TargetNotExtremeWarning)
            result = contributors(frame, regions, target="perf",
                                  metrics_higher_is_better=directions,
                                  classifier=classifier, quantile=0.3)  # type: ignore[arg-type]
        bounds = list(zip(regions.starts.tolist(), regions.stops.tolist(), strict=True))
        expected = naive_contributors(metrics, perf, bounds, directions, classifier, 0.3)
        got = result.records.sort_values(["region_id", "metric"]).reset_index(drop=True)
        want = pd.DataFrame(expected).sort_values(["region_id", "metric"]).reset_index(drop=True)
        assert len(got) == len(want) > 0
        np.testing.assert_array_equal(got["region_id"], want["region_id"])
        np.testing.assert_array_equal(got["metric"], want["metric"])
        np.testing.assert_allclose(got["threshold"], want["threshold"], rtol=1e-12)
        np.testing.assert_array_equal(got["flagged"], want["flagged"])
        np.testing.assert_array_equal(got["n_match"], want["n_match"])
        np.testing.assert_array_equal(got["n_obs"], want["n_obs"])
        np.testing.assert_array_equal(got["job_position"], want["job_position"])

    def test_percentile_strict_and_skip_constant(self) -> None:
        frame, regions = contributor_fixture()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TargetNotExtremeWarning)  # constant-perf regions
            result = contributors(frame, regions, target="perf", classifier="percentile",
                                  metrics_higher_is_better={"load": False}, skip_constant=True)
        assert "rate" not in set(result.records["metric"])  # constant in every region
        # strict test: values equal to the cutoff never match
        rec = result.records
        assert (rec["n_match"] < rec["n_obs"]).all()

    def test_target_not_extreme_warning(self) -> None:
        t = np.arange(30) * DAY
        y = np.ones(30)
        y[10:20] = 0.5  # every value of the low region ties at its minimum
        frame = pd.DataFrame({"y": y, "m": np.arange(30.0)})
        regions = divergence_regions(t, y, short="4D", long=None)
        with pytest.warns(TargetNotExtremeWarning):
            contributors(frame, regions, target="y", classifier="percentile")

    def test_summary_binomial(self) -> None:
        from scipy import stats

        records = pd.DataFrame({
            "group": ["g"] * 6, "platform": ["p1", "p1", "p2", "p2", "p2", "p1"],
            "region_id": [0, 1, 2, 3, 4, 5], "job_position": [0] * 6, "job_t": [0.0] * 6,
            "metric": ["m"] * 5 + ["z"], "higher_is_better": [True] * 6,
            "threshold": [0.0] * 6, "target_value": [0.0] * 6,
            "flagged": [True, False, True, True, False, False],
            "n_match": [1, 1, 1, 1, 1, 1], "n_obs": [20, 20, 12, 15, 5, 20],
            "n_rows": [20, 20, 12, 15, 5, 20],
        })
        records["p_value"] = records["n_match"] / records["n_obs"]
        records["random_p"] = 1 / records["n_rows"]
        records["significant"] = records["p_value"] < 0.1
        result = Contributors(records=records, target="y", classifier="minmax", quantile=0.25,
                              significance_level=0.1, metrics=("m", "z"))
        table = result.summary().set_index("metric")
        # significant m records: rows 0, 1, 2, 3 (p = .05, .05, 1/12, 1/15); row 4 p = .2
        assert table.loc["m", "n"] == 4 and table.loc["m", "k"] == 3
        assert table.loc["m", "fraction:p1"] == pytest.approx(1 / 4)
        assert table.loc["m", "fraction:p2"] == pytest.approx(2 / 4)
        assert table.loc["m", "total"] == pytest.approx(3 / 4)
        assert table.loc["m", "p0"] == pytest.approx(1 / 12)  # largest flagged p_value
        assert table.loc["m", "p_value"] == pytest.approx(
            stats.binomtest(3, 4, 1 / 12, alternative="greater").pvalue)
        fixed = result.summary(binomial_p0=0.1).set_index("metric")
        assert fixed.loc["m", "p_value"] == pytest.approx(
            stats.binomtest(3, 4, 0.1, alternative="greater").pvalue)
        assert table.loc["z", "k"] == 0 and table.loc["z", "p_value"] == 1.0
        assert not table.loc["z", "significant"]
        assert list(result.summary()["metric"]) == ["m", "z"]
        counts = result.counts()
        assert counts["anomalous_observations"] == 5 and counts["flagged_significant"] == 3
        assert counts["flagged_any"] == 3

    def test_errors(self) -> None:
        frame, regions = contributor_fixture()
        with pytest.raises(InvalidInputError, match="unknown metric"):
            contributors(frame, regions, target="perf", metrics=["load", "nope"])
        with pytest.raises(InvalidInputError, match="rows"):
            contributors(frame.iloc[:-1], regions, target="perf")
        with pytest.raises(InvalidInputError, match="differs"):
            contributors(frame.assign(perf=frame["perf"][::-1].to_numpy()), regions,
                         target="perf")
        with pytest.raises(InvalidInputError, match="target"):
            contributors(frame, regions, target="missing")
        with pytest.raises(InvalidInputError, match="classifier"):
            contributors(frame, regions, target="perf", classifier="median")  # type: ignore
        with pytest.raises(InvalidInputError, match="metrics_higher_is_better"):
            contributors(frame, regions, target="perf", metrics_higher_is_better="nersc")
        with pytest.raises(EmptyGroupError):
            contributors(frame.iloc[:0], regions, target="perf")


# ---------------------------------------------------------------- analyze_regions


def grouped_frame(seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for platform in ("fs1", "fs2"):
        for bench in ("read", "write"):
            t = pd.date_range("2017-01-01", periods=150, freq="D", tz="UTC") + pd.to_timedelta(
                rng.integers(0, 3600, 150), unit="s")
            load = rng.uniform(0, 1, 150)
            perf = 1 - 0.4 * load + 0.2 * np.sin(np.arange(150) / 15) + rng.normal(0, .02, 150)
            parts.append(pd.DataFrame({"time": t, "platform": platform, "bench": bench,
                                       "perf": perf, "load": load,
                                       "noise": rng.normal(size=150)}))
    return pd.concat(parts, ignore_index=True)


class TestAnalyzeRegions:
    def test_no_regions_gives_empty_tables(self) -> None:
        frame = pd.DataFrame({"t": np.arange(10) * DAY, "y": np.ones(10), "m": np.arange(10.0),
                              "g": ["a"] * 9 + ["b"]})
        result = analyze_regions(frame, time="t", target="y", group_by="g",
                                 options=RegionOptions(short="2D", long="4D", correlations=True))
        assert result.counts["groups"] == 2 and result.counts["regions"] == 0
        assert result.counts["anomalous_observations"] == 0
        assert len(result.contributors) == 0 and len(result.summary) == 0
        json.dumps(result.to_dict(), allow_nan=False)

    def test_matches_building_blocks_per_group(self) -> None:
        frame = grouped_frame()
        result = analyze_regions(frame, time="time", target="perf",
                                 group_by=["platform", "bench"],
                                 options=RegionOptions(short="7D", long="28D"),
                                 metrics_higher_is_better={"load": False})
        assert isinstance(result, DivergenceAnalysis)
        assert result.counts["groups"] == 4
        total = 0
        for (platform, bench), rows in frame.groupby(["platform", "bench"]):
            regions = divergence_regions(rows["time"], rows["perf"].to_numpy(), short="7D",
                                         long="28D")
            total += len(regions)
            mine = result.regions[(result.regions["platform"] == platform)
                                  & (result.regions["bench"] == bench)]
            np.testing.assert_array_equal(mine["job_t"], regions.job_times)
            np.testing.assert_array_equal(mine["n_rows"], regions.n_rows)
            single = contributors(rows.reset_index(drop=True), regions, target="perf",
                                  metrics=["load", "noise"],
                                  metrics_higher_is_better={"load": False})
            got = result.contributors[result.contributors["group"] == f"{platform} / {bench}"]
            np.testing.assert_array_equal(got["p_value"], single.records["p_value"])
            np.testing.assert_array_equal(got["flagged"], single.records["flagged"])
        assert result.counts["regions"] == total == len(result.regions)
        assert result.summary.iloc[0]["metric"] == "load"
        json.dumps(result.to_dict(), allow_nan=False)
        assert "divergence regions" in str(result)
        assert set(result.sma.columns) >= {"group", "t", "y", "sma_short", "sma_long", "diff",
                                           "above"}
        assert set(result.crossovers.columns) >= {"position", "t", "direction"}

    def test_sorts_within_groups_and_drops_nan_targets(self) -> None:
        frame = grouped_frame()
        base = analyze_regions(frame, time="time", target="perf", group_by="platform",
                               options=RegionOptions(short="7D", long="28D"))
        shuffled = frame.sample(frac=1.0, random_state=3)
        shuffled.loc[shuffled.index[:5], "perf"] = np.nan
        other = analyze_regions(shuffled, time="time", target="perf", group_by="platform",
                                options=RegionOptions(short="7D", long="28D"))
        assert other.counts["dropped_nan_target"] == 5
        assert other.counts["rows_analysed"] == len(frame) - 5
        unchanged = analyze_regions(frame.sample(frac=1.0, random_state=4), time="time",
                                    target="perf", group_by="platform",
                                    options=RegionOptions(short="7D", long="28D"))
        pd.testing.assert_frame_equal(unchanged.regions.drop(columns="job_row"),
                                      base.regions.drop(columns="job_row"))

    def test_preset_and_overrides(self) -> None:
        frame = grouped_frame().rename(columns={"load": "contention_bw", "noise": "fs_ave_mds_cpu"})
        frame = frame.assign(**{m: np.nan for m in (
            "contention_opens", "contention_stats", "contention_ops", "fs_ave_oss_cpu",
            "fshealth_ost_most_full_pct", "fshealth_ost_overloaded_oss_count",
            "topology_job_max_radius")})
        final = analyze_regions(frame, time="time", target="perf", preset="sc18-final")
        assert final.settings["short"] == "14D" and final.settings["classifier"] == "minmax"
        assert set(final.contributors["metric"]) == {"contention_bw", "fs_ave_mds_cpu"}
        assert not final.contributors["higher_is_better"].any()  # "tokio" directions
        draft = analyze_regions(frame, time="time", target="perf", preset="sc18-draft")
        assert draft.settings["long"] == "28D" and draft.settings["min_observations"] == 7
        assert (draft.regions["n_rows"] >= 7).all()
        override = analyze_regions(
            frame, time="time", target="perf", metrics_higher_is_better="tokio",
            options=RegionOptions.from_preset("sc18-draft", long="49D", classifier="minmax"))
        assert override.settings["long"] == "49D" and override.settings["classifier"] == "minmax"

    def test_date_range_and_correlations(self) -> None:
        frame = grouped_frame()
        result = analyze_regions(frame, time="time", target="perf", group_by="platform",
                                 options=RegionOptions(short="7D", long="28D", correlations=True),
                                 date_range=("2017-02-01", "2017-05-01"),
                                 date_tz="America/New_York",
                                 metrics_higher_is_better={"load": False})
        kept = frame["time"].between(pd.Timestamp("2017-02-01 05:00", tz="UTC"),
                                     pd.Timestamp("2017-05-01 04:00", tz="UTC"),
                                     inclusive="left")
        assert result.counts["rows_analysed"] == int(kept.sum())
        assert result.correlations is not None
        assert set(result.correlations.columns) >= {"group", "region_id", "metric", "r",
                                                    "p_value", "n_points"}
        assert (result.correlations["p_value"] < 1e-5).all()

    def test_errors(self) -> None:
        frame = grouped_frame()
        with pytest.raises(InvalidInputError, match="time column"):
            analyze_regions(frame, time="when", target="perf")
        with pytest.raises(InvalidInputError, match="unknown metric"):
            analyze_regions(frame, time="time", target="perf",
                            options=RegionOptions(metrics=["load", "cpu"]))
        with pytest.raises(InvalidInputError, match="longer than short"):
            analyze_regions(frame, time="time", target="perf",
                            options=RegionOptions(short="28D", long="7D"))
        with pytest.raises(InvalidInputError, match="preset"):
            analyze_regions(frame, time="time", target="perf", preset="sc19")  # type: ignore
        with pytest.raises(EmptyGroupError):
            analyze_regions(frame.assign(perf=np.nan), time="time", target="perf")
        with pytest.raises(EmptyGroupError):
            analyze_regions(frame, time="time", target="perf", date_range=("2030-01-01",
                                                                           "2031-01-01"))
        with pytest.raises(InvalidInputError):
            analyze_regions(frame.iloc[:0], time="time", target="perf")

    def test_target_and_metric_directions_have_separate_names(self) -> None:
        frame = grouped_frame()
        with pytest.raises(InvalidInputError, match="metrics_higher_is_better"):
            analyze_regions(frame, time="time", target="perf",
                            higher_is_better={"load": False})  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="direction of the target"):
            analyze_regions(frame, time="time", target="perf", metrics_higher_is_better=False)
        low = analyze_regions(frame, time="time", target="perf", group_by="platform",
                              options=RegionOptions(short="7D", long="28D"), higher_is_better=False,
                              metrics_higher_is_better={"load": False})
        assert low.settings["higher_is_better"] is False
        assert "target_higher_is_better" not in low.settings
        jobs = low.regions.dropna(subset=["job_y"])
        assert len(jobs) and (jobs["job_y"] >= jobs["mean_y"]).all()  # the worst is highest
        assert set(low.regions.columns) >= {"side", "n_rows"}


# ---------------------------------------------------------------- plots and demo


class TestPlots:
    def test_smoke(self) -> None:
        matplotlib = pytest.importorskip("matplotlib")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from pilotstats.plotting import plot_contributor_ranking, plot_timeline, plot_umami
        from pilotstats.plotting._smoothing import UMAMI_COLOURS, umami_colour

        frame, regions = contributor_fixture()
        ax = plot_timeline(regions)
        assert ax.get_legend() is not None
        analysis = analyze_regions(grouped_frame(), time="time", target="perf",
                                   group_by="platform",
                                   options=RegionOptions(short="7D", long="28D"),
                                   metrics_higher_is_better={"load": False})
        assert plot_timeline(analysis, group="fs1", min_region_duration="10D") is not None
        axes = plot_umami(frame, regions, 0, target="perf", metrics=["load", "partial"],
                          metrics_higher_is_better={"load": False})
        assert axes.shape == (3, 2)
        bars = plot_contributor_ranking(analysis)
        assert len(bars.patches) >= 2
        from pilotstats.plotting import plot_flag_heatmap, plot_sma_difference

        assert plot_sma_difference(regions) is not None
        assert plot_sma_difference(analysis, group="fs2") is not None
        assert plot_flag_heatmap(analysis) is not None
        plt.close("all")
        # quartile colours: tie goes to the lower bucket, above max to the top one
        others = [1.0, 2.0, 3.0, 4.0, 5.0]
        assert umami_colour(2.0, others) == UMAMI_COLOURS[0]
        assert umami_colour(3.0, others) == UMAMI_COLOURS[1]
        assert umami_colour(9.0, others) == UMAMI_COLOURS[3]
        assert umami_colour(9.0, others, higher_is_better=False) == UMAMI_COLOURS[0]
        with pytest.raises(InvalidInputError, match="group"):
            plot_timeline(analysis)


def test_demo() -> None:
    text = demo_smoothing()
    assert text.startswith("Smoothing (SC'18 divergence regions)")
    assert "contention_bw" in text.splitlines()[4]  # the planted contributor ranks first


def test_sma_keeps_small_windows_on_data_spanning_600_decades() -> None:
    from pilotstats.smoothing import sma

    times = 1.5e9 + 86400.0 * np.arange(300)
    values = np.logspace(-300, 300, 300)
    means = sma(times, values, "3D")
    assert not np.any(means == 0)
    expected = [math.fsum(values[max(0, i - 1):i + 2]) / len(values[max(0, i - 1):i + 2])
                for i in range(300)]
    np.testing.assert_allclose(means, expected, rtol=1e-14)
    assert np.all(np.isfinite(sma(times, np.full(300, 1.7e308), "3D")))
