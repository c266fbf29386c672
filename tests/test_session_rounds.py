"""Sessions with rounds as replicates and pooled warm-up removal."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pilotstats.autocorrelation import TwoLevelResult, two_level_analysis
from pilotstats.cli._run import PRESETS
from pilotstats.session import (
    BenchmarkSession,
    IndexOptions,
    IntervalTarget,
    PerformanceIndex,
    RoundLimits,
    WarmupOptions,
)
from pilotstats.session._options import options_from_flat
from pilotstats.session._rounds import RoundSeries, grid_points

TRUE_MEAN, SIGMA = 5.0, 1.0


def step_round(rng: np.random.Generator, n: int = 50) -> np.ndarray:
    """The README's bench.py: the first 40 % of the readings are 3 sigma slower."""
    values = TRUE_MEAN + rng.normal(0.0, SIGMA, n)
    values[: int(0.4 * n)] += 3.0 * SIGMA
    return values


def gradual_round(rng: np.random.Generator, n: int) -> np.ndarray:
    """A gradual warm-up 3 sigma exp(-i / tau), tau = n / 10."""
    return TRUE_MEAN + 3.0 * SIGMA * np.exp(-np.arange(n) / (n / 10)) + rng.normal(0, SIGMA, n)


def short_round(rng: np.random.Generator) -> np.ndarray:
    """Rounds of 20 readings whose first 3 are +6 sigma."""
    values = TRUE_MEAN + rng.normal(0.0, SIGMA, 20)
    values[:3] += 6.0 * SIGMA
    return values


def quick_options(**extra: Any) -> dict[str, Any]:
    """The options ``pilotstats run`` builds with its default preset (quick)."""
    preset = PRESETS["quick"]
    options = {
        "autocorrelation_limit": preset["autocorrelation_limit"],
        "readings_half_width_percent": preset["half_width_percent"],
        "unit_readings_half_width_percent": preset["half_width_percent"],
        "readings_min_subsessions": int(preset["min_subsessions"]),
        "unit_readings_min_subsessions": int(preset["min_subsessions"]),
        "min_size": 30,
    }
    options.update(extra)
    return options


def run(one_round: Callable[[np.random.Generator], np.ndarray], seed: int,
        **options: Any) -> BenchmarkSession:
    rng = np.random.default_rng(seed)
    session = BenchmarkSession(**options_from_flat(options))
    while not session.done:
        session.record(None, 1.0, unit_readings=one_round(rng))
    return session


def test_grid_points() -> None:
    assert grid_points(0) == [0]
    assert grid_points(10) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 10]
    points = grid_points(10_000)
    assert len(points) < 50 and all(b > a for a, b in itertools.pairwise(points))


def test_rounds_are_the_units_of_the_interval() -> None:
    # Without warm-up removal the interval is two_level_analysis over the rounds.
    rng = np.random.default_rng(3)
    rounds = [10.0 + rng.normal(0, 0.5) + rng.normal(0, 1.0, 40) for _ in range(12)]
    session = BenchmarkSession(
        unit_readings=IndexOptions(interval=IntervalTarget(half_width_percent=0.01),
            declarations=[PerformanceIndex("t", "ms")]),
        limits=RoundLimits(min_rounds=3, max_rounds=None),
        warmup=WarmupOptions(removal="none"),
    )
    for values in rounds:
        session.record(None, 1.0, unit_readings=values)
    item = session.result().unit_readings[0]
    expected = two_level_analysis(rounds)
    assert isinstance(item.analysis, TwoLevelResult) and item.analysis.n_units == 12
    assert item.analysis.mean == pytest.approx(expected.mean, rel=1e-12)
    assert item.analysis.ci_low == pytest.approx(expected.ci_low, rel=1e-12)
    assert item.analysis.between_variance == expected.between_variance
    assert item.warmup_cut is None and not item.widened and item.n == 480
    # The round-to-round variation (sd 0.5) is inside the interval: far wider than the
    # naive interval of the 480 readings pooled as if independent.
    pooled = np.concatenate(rounds)
    naive = 1.96 * pooled.std(ddof=1) / math.sqrt(pooled.size)
    assert item.analysis.half_width > 2 * naive


def test_round_to_round_variation_keeps_coverage() -> None:
    # Each round has its own level (sd 0.3) and autocorrelated readings: the pooled
    # readings' interval misses often; the rounds' interval keeps its level.
    covered = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        session = BenchmarkSession(
            unit_readings=IndexOptions(interval=IntervalTarget(half_width_percent=50)),
            limits=RoundLimits(min_rounds=10),
            warmup=WarmupOptions(removal="none"),
        )
        for _ in range(10):
            noise = np.convolve(rng.normal(0, 1, 220), np.ones(20) / 20, mode="valid")
            session.record(None, 1.0, unit_readings=TRUE_MEAN + rng.normal(0, 0.3) + noise)
        analysis = session.result().unit_readings[0].analysis
        assert analysis is not None
        covered += analysis.ci_low <= TRUE_MEAN <= analysis.ci_high
    assert covered >= 53  # 95 % of 60 is 57; the pooled readings' interval covered ~20


def test_pooled_cut_is_exact_for_a_step_and_default_min_size() -> None:
    session = run(step_round, 0, **quick_options())
    item = session.result().unit_readings[0]
    assert session.n_rounds == 30 and item.warmup_cut == 20 and item.widened is not None
    assert item.analysis is not None and item.analysis.ci_low <= TRUE_MEAN
    assert TRUE_MEAN <= item.analysis.ci_high and item.warmup_kept_rounds == 0
    assert item.note is not None and "first 20 readings" in item.note
    result = session.result()
    assert item.note in result.notes and "note: " in result.summary()
    json.dumps(result.to_dict(), allow_nan=False)
    assert result.to_dict()["unit_readings"][0]["warmup_cut"] == 20


def test_ratio_index_rounds_are_replicates_of_the_reciprocal() -> None:
    # A throughput (ratio index, harmonic mean): the rounds' mean reciprocals are the
    # replicates and the interval is their interval inverted.
    rng = np.random.default_rng(8)
    rounds = [1.0 / (0.01 + rng.normal(0, 0.001) + rng.normal(0, 0.002, 80)) for _ in range(12)]
    session = BenchmarkSession(
        unit_readings=IndexOptions(interval=IntervalTarget(half_width_percent=0.01),
            declarations=[PerformanceIndex("v", "op/s", "ratio")]),
        limits=RoundLimits(min_rounds=3, max_rounds=None),
        warmup=WarmupOptions(removal="none"),
    )
    for values in rounds:
        session.record(None, 1.0, unit_readings=values)
    item = session.result().unit_readings[0]
    reciprocal = two_level_analysis([1.0 / r for r in rounds])
    assert isinstance(item.analysis, TwoLevelResult) and item.index_type == "ratio"
    assert item.analysis.mean == pytest.approx(1.0 / reciprocal.mean, rel=1e-12)
    assert item.analysis.ci_low == pytest.approx(1.0 / reciprocal.ci_high, rel=1e-12)
    assert item.analysis.ci_high == pytest.approx(1.0 / reciprocal.ci_low, rel=1e-12)
    assert item.analysis.ci_low <= 100.0 <= item.analysis.ci_high
    assert "harmonic mean" in item.analysis.note


def test_rounds_of_varying_length() -> None:
    # Rounds of 3 to 200 readings (a session that varies the work): the cut is the same
    # position in every round; rounds shorter than it keep nothing and are no replicate,
    # and only rounds at least twice the cut bound the residual warm-up.
    rng = np.random.default_rng(1)
    session = BenchmarkSession(
        unit_readings=IndexOptions(interval=IntervalTarget(min_subsessions=5)),
        limits=RoundLimits(min_rounds=5),
    )
    while not session.done:
        values = TRUE_MEAN + rng.normal(0, SIGMA, int(rng.choice([3, 10, 60, 200])))
        values[:20] += 4.0
        session.record(None, 1.0, unit_readings=values)
    item = session.result().unit_readings[0]
    assert item.warmup_cut == 20 and item.analysis is not None and item.widened
    assert item.analysis.ci_low <= TRUE_MEAN <= item.analysis.ci_high
    assert item.note is not None and "kept no reading" in item.note
    assert item.analysis.n_units < session.n_rounds and item.warmup_kept_rounds == 0


def test_no_warmup_removes_nothing() -> None:
    session = run(lambda rng: TRUE_MEAN + rng.normal(0, SIGMA, 50), 1, **quick_options())
    item = session.result().unit_readings[0]
    assert item.warmup_cut == 0 and item.n_removed == 0 and not item.widened
    assert item.note is None


def test_warmup_reaching_the_half_is_flagged() -> None:
    # A warm-up over 80 % of each round cannot be removed by comparing with the half.
    def long_warmup(rng: np.random.Generator) -> np.ndarray:
        values = TRUE_MEAN + rng.normal(0, SIGMA, 50)
        values[:40] += 3.0
        return values

    result = run(long_warmup, 2, **quick_options()).result()
    item = result.unit_readings[0]
    assert result.warmup_kept and item.warmup_kept_rounds == result.n_rounds
    assert item.note is not None and "could not be removed" in item.note
    assert "warm-up kept" in str(item) and any("half" in note for note in result.notes)


def test_decision_equals_a_rebuild_from_the_raw_rounds() -> None:
    # Incremental per-round decisions: after every round, the stored series decides
    # exactly as a series rebuilt from the raw rounds, and the verdict is the analysis's.
    rng = np.random.default_rng(5)
    session = BenchmarkSession(**options_from_flat({
        "min_rounds": 3, "max_rounds": None,
        **{k: v for k, v in quick_options().items() if k != "min_size"}}))
    raw: list[np.ndarray] = []
    while not session.done:
        values = gradual_round(rng, 60 + int(rng.integers(0, 20)))
        raw.append(values)
        session.record(None, 1.0, unit_readings=values)
        fresh = RoundSeries(pooled=True)
        for item in raw:
            fresh.add(item)
        got, want = session._decision(0), fresh.decide(session.confidence_level)
        assert got.cut == want.cut and got.widened == want.widened
        assert np.array_equal(got.means, want.means)
        assert np.array_equal([got.ci_low, got.ci_high], [want.ci_low, want.ci_high],
                              equal_nan=True)
        verdict = session._verdicts["unit_readings"][0]
        session._analyses.clear()
        analysis = session._analysis("unit_readings", 0)
        assert (verdict.done, verdict.fraction) == (analysis.done, analysis.fraction)
    rebuilt = BenchmarkSession.from_state(session.state())
    assert rebuilt.result() == session.result()


def test_loose_autocorrelation_limit_is_flagged() -> None:
    # Readings whose subsession means stay autocorrelated under quick's limit of 0.8.
    rng = np.random.default_rng(7)
    x = np.zeros(200)
    for i in range(1, 200):
        x[i] = 0.6 * x[i - 1] + rng.normal()
    session = BenchmarkSession(
        autocorrelation_limit=0.8,
        readings=IndexOptions(interval=IntervalTarget(half_width_percent=0.01)),
        limits=RoundLimits(min_rounds=3, max_rounds=200),
    )
    for value in 100.0 + x:
        session.record(None, 1.0, readings=[value])
    item = session.result().readings[0]
    assert item.note is not None and "lag-1 autocorrelation" in item.note
    assert "see note" in str(item) and item.note in session.result().notes
    strict = BenchmarkSession(
        readings=IndexOptions(interval=IntervalTarget(half_width_percent=0.01)),
        limits=RoundLimits(min_rounds=3, max_rounds=200),
    )
    for value in 100.0 + x:
        strict.record(None, 1.0, readings=[value])
    assert strict.result().readings[0].note is None


def coverage(one_round: Callable[[np.random.Generator], np.ndarray], sessions: int,
             **options: Any) -> tuple[float, float]:
    covered = either = 0
    for seed in range(sessions):
        item = run(one_round, seed, **options).result().unit_readings[0]
        assert item.analysis is not None
        hit = item.analysis.ci_low <= TRUE_MEAN <= item.analysis.ci_high
        covered += hit
        either += hit or item.warmup_kept_rounds > 0
    return covered / sessions, either / sessions


@pytest.mark.slow
def test_bench_py_coverage_with_cli_defaults() -> None:
    # README bench.py (rounds of 50, first 40 % +3 sigma), the
    # command's default options; 200 seeded sessions must cover the stable mean >= 93 %.
    # Measured with benchmarks/bench_session_coverage.py: 99.5 % (was 86.5 % with the
    # README's --min-size 8; 84 % in the 70 sessions first reported).
    covered, _ = coverage(step_round, 200, **quick_options())
    assert covered >= 0.93


@pytest.mark.slow
@pytest.mark.parametrize("n", [50, 500], ids=["rounds-50", "rounds-500"])
def test_gradual_warmup_coverage(n: int) -> None:
    # 3 sigma exp(-i / (n / 10)), 200 seeded sessions with the
    # command's defaults: coverage >= 90 % and covered or flagged >= 98 %. Measured:
    # 99.0 % (rounds of 50) and 98.5 % (rounds of 500); before: 0 % and 9.5 %.
    covered, either = coverage(lambda rng: gradual_round(rng, n), 200, **quick_options())
    assert covered >= 0.90 and either >= 0.98


@pytest.mark.slow
def test_short_rounds_coverage() -> None:
    # Rounds of 20 whose first 3 readings are +6 sigma (the old
    # session reported mean 10.36 [10.21, 10.52] with no note), 200 seeded sessions:
    # covered or flagged >= 98 %. Measured: 98.0 % (none flagged); before: 0 %.
    covered, either = coverage(short_round, 200, **quick_options(min_size=3))
    assert either >= 0.98 and covered >= 0.95


def test_cli_chooses_the_warmup_removal() -> None:
    from pilotstats.cli import _parser
    from pilotstats.cli._run_config import config_from_args

    def options(*extra: str) -> dict[str, Any]:
        args = _parser().parse_args(["run", "--pi", "x,,0", *extra, "--", "prog"])
        return dict(config_from_args(args)["session_options"])

    assert options()["warmup_removal"] == "pooled"
    assert options("--warmup-removal", "stable_phase")["warmup_removal"] == "stable_phase"
    with pytest.raises(SystemExit):
        options("--warmup-removal", "median")
