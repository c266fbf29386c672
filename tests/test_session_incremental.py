"""The incremental benchmark session decides exactly as a from-scratch analysis does.

:class:`~pilotstats.session.BenchmarkSession` decides each round from running block sums
with certified error bounds (``pilotstats/_kernels/session.py``) and runs the full analysis
only when the bounds do not settle a decision. These tests compare, round after round, its
verdicts with the full analysis of the same values, the kernels' bounds with the sums the
full analysis computes, and saved/loaded sessions with uninterrupted ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pilotstats import _config
from pilotstats._kernels import autocorrelation as ac
from pilotstats._kernels import session as kernels
from pilotstats.session import (
    Baseline,
    BenchmarkSession,
    IndexOptions,
    IntervalTarget,
    PerformanceIndex,
    RoundLimits,
    WarmupOptions,
    WpsOptions,
)
from pilotstats.session._incremental import IndexStream, RunningSum, verdict_of
from pilotstats.session._options import options_from_flat
from pilotstats.session._planner import unit_reading_work


def ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    noise = rng.normal(size=n)
    values = np.empty(n)
    previous = 0.0
    for i in range(n):
        previous = phi * previous + noise[i]
        values[i] = previous
    return values


def series(name: str, n: int, seed: int = 0) -> np.ndarray:
    """Test series: i.i.d., autocorrelated, a level shift, a large offset, a first outlier,
    a few distinct integers and a trend."""
    rng = np.random.default_rng(seed)
    makers: dict[str, Callable[[], np.ndarray]] = {
        "iid": lambda: 10.0 + 0.1 * rng.normal(size=n),
        "ar05": lambda: 10.0 + 0.1 * ar1(rng, n, 0.5),
        "ar09": lambda: 10.0 + 0.1 * ar1(rng, n, 0.9),
        "shift": lambda: np.r_[np.full(n // 2, 10.0), np.full(n - n // 2, 11.0)]
        + 0.01 * rng.normal(size=n),
        "offset": lambda: 1e9 + rng.normal(size=n),
        "first_outlier": lambda: np.r_[100.0, 10.0 + 0.1 * rng.normal(size=n - 1)],
        "integers": lambda: rng.integers(0, 3, n).astype(float),
        "trend": lambda: np.linspace(0.0, 1.0, n) + 0.1 * rng.normal(size=n),
    }
    return makers[name]()


SERIES = ("iid", "ar05", "ar09", "shift", "offset", "first_outlier", "integers", "trend")


def full_verdict(session: BenchmarkSession, kind: str, index: int) -> Any:
    session._analyses.clear()
    session._decisions.clear()  # rounds as replicates: decide again from the rounds
    return verdict_of(session._analysis(kind, index))


def check_verdicts(session: BenchmarkSession) -> int:
    """Assert that every verdict is the full analysis's; return how many were incremental."""
    settled = 0
    for kind in ("readings", "unit_readings"):
        for index, verdict in enumerate(session._verdicts[kind]):
            incremental = not session._analyses.get((kind, index))
            want = full_verdict(session, kind, index)
            assert verdict.done == want.done
            if verdict.done:
                assert verdict.fraction == want.fraction == 1.0
            else:
                if verdict.fraction is not None:
                    assert verdict == want
                session._analyses.clear()
                assert session._progress_of(kind, index) == (want.fraction, want.needed)
            settled += incremental
    return settled


# -- kernels ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SERIES)
def test_extended_prefix_sums_equal_one_pass_bit_for_bit(name: str) -> None:
    x = series(name, 1000)
    for extend in (ac.extend_prefix_sums, ac.extend_prefix_sums.py_func):
        high, low = np.zeros(1001), np.zeros(1001)
        for start, stop in ((0, 1), (1, 7), (7, 500), (500, 1000)):
            extend(x, start, stop, False, high, low)
            want_high, want_low, _ = prefix_sums(x[:stop])
            assert np.array_equal(high[: stop + 1], want_high)
            assert np.array_equal(low[: stop + 1], want_low)
            total, compensation = high[stop], low[stop]
            assert x[0] + (total + compensation) / stop == ac.overall_mean(x[:stop], False)


def prefix_sums(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The prefix sums of the full analysis: one pass from zero (arithmetic mean)."""
    high, low = np.zeros(x.shape[0] + 1), np.zeros(x.shape[0] + 1)
    ac.extend_prefix_sums(x, 0, x.shape[0], False, high, low)
    return high, low, float(x[0])


def grown_stream(x: np.ndarray, chunks: int, rows: int = 60) -> IndexStream:
    stream = IndexStream("mean")
    stream._table = np.zeros((rows, 8))
    for part in np.array_split(x, chunks):
        stream.extend(part)
    return stream


@pytest.mark.parametrize("name", SERIES)
def test_moment_bounds_hold_the_full_analysis_sums(name: str) -> None:
    x = series(name, 900, seed=3)
    stream = grown_stream(x, 37)
    n = x.shape[0]
    m = ac.overall_mean(x, False)
    centre = m - x[0]
    high, low, shift = prefix_sums(x)
    for q in range(1, 60):
        h = n // q
        bounds = kernels.moment_bounds(
            stream._table, q, centre, n, stream._spread, stream._peak_low
        )
        assert bounds == kernels.moment_bounds.py_func(
            stream._table, q, centre, n, stream._spread, stream._peak_low
        )
        ss_low, ss_high, sl_low, sl_high = bounds
        s2, g = ac.block_moments(x, q, False, m)  # the block-sum path
        assert ss_low <= s2 * (h - 1) * (1 + 1e-15) and s2 * (h - 1) <= ss_high * (1 + 1e-15)
        assert sl_low <= g * (h - 1) * (1 + 1e-15) + 1e-300
        assert g * (h - 1) <= sl_high * (1 + 1e-15) + 1e-300
        # The prefix path: its ratio lies within the ratio bounds.
        r1 = ac.lag1_from_prefix(high, low, shift, n, q, False, m)
        if ss_low > 0:
            assert min(sl_low / ss_low, sl_low / ss_high) <= r1 + 1e-12
            assert r1 <= max(sl_high / ss_low, sl_high / ss_high) + 1e-12
        # The bounds are tight: a few parts in 1e9 at most unless the sums are near 0.
        if ss_low > 1e-6 * ss_high > 0:
            assert (ss_high - ss_low) <= 1e-9 * ss_high


@pytest.mark.parametrize("name", SERIES)
@pytest.mark.parametrize("limit", [0.1, 0.5])
def test_certified_size_is_the_full_scan_size_when_settled(name: str, limit: float) -> None:
    x = series(name, 1500, seed=5)
    settled = 0
    for n in (30, 90, 300, 1000, 1500):
        stream = grown_stream(x[:n], 7, rows=n // 3 + 1)
        centre = stream._centre()
        args = (stream._table, centre, n, stream._spread, stream._peak_low, limit)
        q = kernels.certified_subsession_size(*args)
        assert q == kernels.certified_subsession_size.py_func(*args)
        m = ac.overall_mean(x[:n], False)
        want = ac.first_subsession_size(x[:n], limit, False, m)
        if q != -2:
            assert q == want
            settled += 1
    assert settled >= 4


@pytest.mark.parametrize("name", ["iid", "ar05", "first_outlier", "offset"])
def test_certified_size_at_the_exact_threshold(name: str) -> None:
    # A limit equal to |r1| as the full analysis computes it (and one ulp either side) is
    # the hardest case: the scan must give the full scan's size or admit it is unsettled.
    x = series(name, 700, seed=6)
    n = x.shape[0]
    m = ac.overall_mean(x, False)
    high, low, shift = prefix_sums(x)
    stream = grown_stream(x, 5, rows=n // 3 + 1)
    centre = stream._centre()
    for q in (1, 2, 3):
        exact = abs(ac.lag1_from_prefix(high, low, shift, n, q, False, m))
        if q == 1:
            exact = abs(ac.lag1_coefficient(x, 1, False, m))
        for limit in (np.nextafter(exact, 0.0), exact, np.nextafter(exact, 1.0)):
            if not 0.0 < limit <= 1.0:
                continue
            got = kernels.certified_subsession_size(
                stream._table, centre, n, stream._spread, stream._peak_low, limit
            )
            assert got in (-2, ac.first_subsession_size(x, limit, False, m))


def test_blocks_table_rebuilds_a_row_whose_reference_drifted() -> None:
    x = np.r_[np.zeros(300), np.full(300, 50.0)] + np.random.default_rng(2).normal(size=600)
    stream = grown_stream(x[:300], 3, rows=4)
    rho = stream._table[1, 1]
    stream.extend(x[300:])
    assert stream._table[1, 1] != rho  # the mean moved by 25 sigma: the row was rebuilt
    want = np.zeros((4, 8))
    kernels.extend_blocks.py_func(stream._high, stream._low, 600, want, stream._centre())
    assert np.array_equal(stream._table, want)


def test_running_sum_is_fsum() -> None:
    rng = np.random.default_rng(4)
    values = list(rng.normal(size=500) * 10.0 ** rng.integers(-20, 20, 500))
    values += [1e100, 1.0, -1e100, 1e-100]
    total = RunningSum()
    for i, value in enumerate(values):
        total.add(float(value))
        if i % 50 == 0 or i == len(values) - 1:
            assert total.value() == math.fsum(values[: i + 1])


# -- sessions --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SERIES)
@pytest.mark.parametrize("percent", [1e-6, 0.05, 0.5])
def test_readings_verdicts_equal_the_full_analysis_every_round(name: str, percent: float) -> None:
    # every round runs the full analysis as the reference: O(n²) overall, so the pure-Python
    # pass (PILOTSTATS_DISABLE_JIT=1) checks the first 300 rounds only
    x = series(name, 300 if _config.jit_disabled() else 1200, seed=7)
    session = BenchmarkSession(
        readings=IndexOptions(interval=IntervalTarget(half_width_percent=percent)),
        limits=RoundLimits(min_rounds=3, max_rounds=None),
    )
    settled = rounds = 0
    for value in x:
        session._analyses.clear()
        session.record(None, 1.0, readings=[value])
        settled += check_verdicts(session)
        rounds += 1
        if session.done:
            break
    # Beyond the first rounds (fewer than 3 values) the bounds settle nearly every round.
    assert settled >= rounds - 10


@pytest.mark.parametrize("p", [0.0, 0.02, 0.5, 0.97])
def test_binary_verdicts_come_from_the_count_of_ones(p: float) -> None:
    rng = np.random.default_rng(8)
    session = BenchmarkSession(
        readings=IndexOptions(interval=IntervalTarget(half_width=0.02),
            declarations=[PerformanceIndex("ok", "", "binary")]),
        limits=RoundLimits(min_rounds=3, max_rounds=None),
    )
    settled = 0
    for _ in range(600):
        session._analyses.clear()
        session.record(None, 1.0, readings=[float(rng.random() < p)])
        settled += check_verdicts(session)
        if session.done:
            break
    assert settled >= session.n_rounds - 2  # the first two rounds hold fewer than 3 values


def unit_session(**options: Any) -> BenchmarkSession:
    return BenchmarkSession(**options_from_flat({**options, "min_rounds": 3, "max_rounds": None}))


def unit_rounds(seed: int, n_rounds: int, size: int = 200) -> list[list[np.ndarray]]:
    """Rounds of two unit-readings indices: a latency with a warm-up and a 0/1 outcome."""
    rng = np.random.default_rng(seed)
    rounds = []
    for _ in range(n_rounds):
        latency = 1e-3 * (1.0 + 0.05 * ar1(rng, size, 0.6))
        latency[: size // 5] += 2e-3
        hits = (rng.random(size) < 0.9).astype(float)
        rounds.append([latency, hits])
    return rounds


@pytest.mark.parametrize(
    "options",
    [
        {"warmup_removal": "stable_phase"},
        {"warmup_removal": "trim", "unit_readings_half_width_percent": 0.2},
        {"warmup_removal": "none", "unit_readings_mean_method": "harmonic"},
        {"baseline_unit_readings": [Baseline(1.01e-3, 1e-12, 20), None]},
    ],
    ids=["stable_phase", "trim", "ratio", "baseline"],
)
def test_unit_reading_verdicts_and_results_equal_from_scratch(options: dict[str, Any]) -> None:
    indices = [PerformanceIndex("latency", "s"), PerformanceIndex("hit", "", "binary")]
    session = unit_session(unit_readings_indices=indices, **options)
    for units in unit_rounds(11, 40):
        session._analyses.clear()
        session.record(None, 1.0, unit_readings=units)
        check_verdicts(session)
        if session.done:
            break
    rebuilt = BenchmarkSession.from_state(session.state())
    assert rebuilt._verdicts == session._verdicts
    assert rebuilt.result() == session.result()
    assert rebuilt.progress == session.progress


def test_saved_session_resumes_identically(tmp_path: Any) -> None:
    x = series("ar05", 600, seed=9)
    options = {"min_rounds": 3, "max_rounds": None, "readings_half_width_percent": 0.02}
    straight = BenchmarkSession(**options_from_flat(options))
    resumed = BenchmarkSession(**options_from_flat(options))
    path = tmp_path / "session.json"
    for i, value in enumerate(x):
        straight.record(None, 1.0, readings=[value])
        resumed.record(None, 1.0, readings=[value])
        if i % 97 == 0:
            resumed.save(path)
            resumed = BenchmarkSession.load(path)
        assert resumed._verdicts == straight._verdicts
        assert resumed.done == straight.done
    assert resumed.result() == straight.result()
    assert resumed.progress == straight.progress


def test_state_of_the_earlier_format_still_loads() -> None:
    # A state as BenchmarkSession.state() wrote it before the session became incremental.
    state = {
        "version": 1,
        "options": {"min_rounds": 3, "max_rounds": None, "readings_half_width_percent": 5.0},
        "rounds": [
            {"work": None, "duration": 1.0, "readings": [v], "unit_readings": None}
            for v in (1.0, 1.1, 0.9, 1.05)
        ],
    }
    session = BenchmarkSession.from_state(state)
    assert session.n_rounds == 4 and session.result().readings[0].n == 4
    assert session.state()["rounds"] == state["rounds"]
    assert session._verdicts["readings"] == (full_verdict(session, "readings", 0),)


def test_work_pacing_follows_the_full_analysis() -> None:
    # With max_work, each unfinished unit-readings index proposes work from its required
    # size: the incremental required size must be the full analysis's.
    rng = np.random.default_rng(12)
    session = BenchmarkSession(
        max_work=1e6,
        wps=WpsOptions(enabled=False),
        unit_readings=IndexOptions(interval=IntervalTarget(half_width_percent=1.0)),
        limits=RoundLimits(min_round_duration=0.0, min_rounds=5),
        warmup=WarmupOptions(removal="none"),
    )
    works: list[float] = []
    while not session.done and session.n_rounds < 100:
        work = session.next_work()
        assert work is not None
        works.append(work)
        count = max(3, int(work) // 100)
        session.record(work, 0.01, unit_readings=1.0 + 0.1 * ar1(rng, count, 0.3))
        check_verdicts(session)
        verdict = full_verdict(session, "unit_readings", 0)
        expected = (
            []
            if verdict.done
            else [unit_reading_work(verdict.needed, verdict.n, math.fsum(works), works[-1])]
        )
        assert session._unit_reading_proposals() == expected
    assert session.done and len(set(works)) > 2
