"""Tests of :func:`pilotstats.changepoints.stable_phase`: Pilot's method and the
dominant-segment rule, and the steady state of long forks (``method="equivalence"`` and
``method="auto"``; one slow real-data guard).

Pinned values: Pilot's own unit tests (spec ``edm.md`` §9, P-1); provenance in
``tests/reference/stable_phase/README.md``.
"""

from __future__ import annotations

import dataclasses
import doctest
import itertools
import json
import math
import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from pilotstats import _config
from pilotstats.changepoints import StablePhase, dominant_segment, stable_phase
from pilotstats.changepoints import _stable as stable_module
from pilotstats.changepoints._steady import window_medians
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from tests.scripts import load_script

# ------------------------------------------------------------------------------------------
# Pilot's pinned values (P-1): lib/test/unit_test_statistics.cc at d8bf8a5
# ------------------------------------------------------------------------------------------

THREE_LEVELS = [1.1] * 30 + [5.1] * 30 + [1.1] * 30  # TestChangeInMean1, FindDominantSegment (a)
LONG_PLATEAU = [1.1] * 30 + [5.1] * 130 + [1.1] * 30  # FindDominantSegment (b)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise Check classes over exactly the quantities their reference pins."""
    if "quantity" in metafunc.fixturenames and metafunc.cls is not None:
        metafunc.parametrize("quantity", sorted(metafunc.cls.ref))


class CheckPilotStablePhase:
    """Compare ``stable_phase(data, method="pilot")`` with Pilot's asserted outcome.

    ``ref`` keys: ``locations`` (EDM-percent change points), ``last`` (last change point,
    ``pilot_find_one_changepoint``; None = ERR_NO_CHANGEPOINT), ``dominant`` ((begin, end)
    of ``pilot_find_dominant_segment``; None = ERR_NO_DOMINANT_SEGMENT).
    """

    data: ClassVar[list[float]]
    ref: ClassVar[dict[str, Any]]

    def test_quantity(self, quantity: str) -> None:
        res = stable_phase(self.data, method="pilot")
        expected = self.ref[quantity]
        if quantity == "locations":
            assert res.locations == tuple(expected)
        elif quantity == "last":
            assert (res.locations[-1] if res.locations else None) == expected
        elif quantity == "dominant":
            assert dominant_segment(res.locations, len(self.data)) == expected
            if expected is None:
                assert not res.found and res.outcome == "no_dominant_segment"
                assert (res.start, res.end) == (0, len(self.data))
            else:
                assert res.found and res.outcome == "trimmed"
                assert (res.start, res.end) == tuple(expected)
        else:  # pragma: no cover - a typo in a reference table
            raise AssertionError(f"unknown quantity {quantity!r}")


class TestPilotChangeInMean1(CheckPilotStablePhase):
    # TestChangeInMean1: pilot_changepoint_detection -> [30, 60]
    data = THREE_LEVELS
    ref: ClassVar[dict[str, Any]] = {"locations": [30, 60]}


class TestPilotFindDominantSegmentA(CheckPilotStablePhase):
    # FindDominantSegment (a): ERR_NO_DOMINANT_SEGMENT
    data = THREE_LEVELS
    ref: ClassVar[dict[str, Any]] = {"dominant": None}


class TestPilotFindDominantSegmentB(CheckPilotStablePhase):
    # FindDominantSegment (b): begin 30, end 131 (Pilot's test calls 131 an EDM artefact)
    data = LONG_PLATEAU
    ref: ClassVar[dict[str, Any]] = {"dominant": (30, 131)}


class TestPilotFindChangepointA(CheckPilotStablePhase):
    # FindChangepoint (a): 30 x 1.1 -> ERR_NO_CHANGEPOINT
    data = [1.1] * 30
    ref: ClassVar[dict[str, Any]] = {"last": None}


class TestPilotFindChangepointB(CheckPilotStablePhase):
    # FindChangepoint (b): 30 x 1.1, 30 x 5.1 -> 30
    data = [1.1] * 30 + [5.1] * 30
    ref: ClassVar[dict[str, Any]] = {"last": 30}


class TestPilotFindChangepointC(CheckPilotStablePhase):
    # FindChangepoint (c): 30 x 1.1, 30 x 5.1, 30 x 1.1 -> 60
    data = THREE_LEVELS
    ref: ClassVar[dict[str, Any]] = {"last": 60}


# ------------------------------------------------------------------------------------------
# dominant-segment rule (spec §4.4)
# ------------------------------------------------------------------------------------------


class TestDominantSegment:
    @pytest.mark.parametrize(
        ("change_points", "n", "expected"),
        [
            ([], 1, (0, 1)),
            ([], 10, (0, 10)),
            ([5], 10, None),  # two halves: neither exceeds floor(10/2)
            ([5], 11, (5, 11)),
            ([6], 11, (0, 6)),
            ([30, 60], 90, None),
            ([30, 131], 190, (30, 131)),
            ([10, 20, 80], 100, (20, 80)),
            ([49], 100, (49, 100)),
            ([51], 100, (0, 51)),
            ([50], 100, None),
            ([1, 2, 3], 7, (3, 7)),
        ],
    )
    def test_rule(self, change_points: list[int], n: int, expected: Any) -> None:
        assert dominant_segment(change_points, n) == expected

    def test_brute_force_definition(self) -> None:
        rng = np.random.default_rng(0)
        for _ in range(300):
            n = int(rng.integers(1, 60))
            k = int(rng.integers(0, min(n, 6)))
            cps = sorted(set(int(c) for c in rng.integers(1, n, size=k))) if n > 1 else []
            bounds = [0, *cps, n]
            winners = [(a, b) for a, b in itertools.pairwise(bounds) if 2 * (b - a) > n]
            assert dominant_segment(cps, n) == (winners[0] if winners else None)

    @pytest.mark.parametrize(
        ("change_points", "n"),
        [([0], 10), ([10], 10), ([5, 5], 10), ([6, 4], 10), ([2.5], 10), ([], 0)],
    )
    def test_bad_input(self, change_points: list[Any], n: int) -> None:
        with pytest.raises(InvalidInputError):
            dominant_segment(change_points, n)


# ------------------------------------------------------------------------------------------
# outcomes of the default method
# ------------------------------------------------------------------------------------------


def warmup_series(seed: int = 0, shift: float = 3.0, n: int = 300, warm: int = 50) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = 10.0 + rng.standard_normal(n)
    x[:warm] += shift
    return x


class TestRobustOutcomes:
    def test_warmup_trimmed(self) -> None:
        x = warmup_series()
        phase = stable_phase(x)
        assert phase.found and phase.outcome == "trimmed"
        assert abs(phase.start - 50) <= 3 and phase.end == 300
        assert phase.warmup_length == phase.start and phase.cooldown_length == 0
        assert phase.stable_n == 300 - phase.start
        part = x[phase.start : phase.end]
        assert phase.mean == pytest.approx(float(np.mean(part)))
        assert phase.median == pytest.approx(float(np.median(part)))
        assert phase.std == pytest.approx(float(np.std(part, ddof=1)))
        assert phase.mean_ci is not None and phase.ci_note is None
        low, high = phase.confidence_interval()
        assert low < phase.mean < high
        wide = phase.confidence_interval(0.99)
        assert wide.low < low and wide.high > high

    def test_warmup_and_cooldown(self) -> None:
        x = warmup_series(seed=1, n=320)
        x[-40:] -= 4.0
        phase = stable_phase(x)
        assert phase.outcome == "trimmed"
        assert abs(phase.start - 50) <= 3 and abs(phase.end - 280) <= 3
        assert phase.cooldown_length == 320 - phase.end

    def test_no_warmup_keeps_everything(self) -> None:
        phase = stable_phase(np.random.default_rng(2).normal(10, 1, 250))
        assert phase.found and phase.outcome == "no_change"
        lengths = (phase.warmup_length, phase.cooldown_length)
        assert (phase.start, phase.end, *lengths) == (0, 250, 0, 0)

    def test_not_enough_data(self) -> None:
        phase = stable_phase(np.arange(40.0), min_size=30)
        assert phase.found and phase.outcome == "not_enough_data"
        assert (phase.start, phase.end) == (0, 40)

    def test_no_dominant_segment(self) -> None:
        x = np.repeat([0.0, 5.0, 10.0], 40) + 0.1 * np.random.default_rng(3).standard_normal(120)
        phase = stable_phase(x)
        assert len(phase.locations) == 2
        assert not phase.found and phase.outcome == "no_dominant_segment"
        lengths = (phase.warmup_length, phase.cooldown_length)
        assert (phase.start, phase.end, *lengths) == (0, 120, 0, 0)
        assert "no stable phase" in str(phase)

    def test_plateau_robust_finds_true_edges(self) -> None:
        phase = stable_phase(LONG_PLATEAU)
        assert (phase.start, phase.end) == (30, 160)
        assert phase.mean == pytest.approx(5.1)

    def test_pilot_on_noise_invents_phases_robust_does_not(self) -> None:
        x = np.random.default_rng(4).normal(10, 1, 300)
        assert stable_phase(x).outcome == "no_change"
        assert stable_phase(x, method="pilot").locations != ()

    def test_ci_fallback_is_documented(self) -> None:
        # alternating 0/1: r1 = -1 for odd q, constant block means (r1 := 1) for even q,
        # so no subsession size qualifies (autocorrelation spec §2.2, §3)
        alternating = np.arange(45) % 2 * 1.0
        phase = stable_phase(alternating, method="pilot")
        assert phase.outcome == "no_change"
        assert phase.mean_ci is None and "subsession size" in (phase.ci_note or "")
        with pytest.raises(NotEnoughDataError, match="no confidence interval"):
            phase.confidence_interval()
        assert "no CI" in str(phase)
        single = stable_phase([4.0])
        assert single.mean_ci is None and "1 sample" in (single.ci_note or "")
        assert math.isnan(single.std)

    def test_constant(self) -> None:
        phase = stable_phase([2.5] * 100)
        assert phase.outcome == "no_change" and phase.mean == 2.5
        assert phase.confidence_interval() == (2.5, 2.5)

    def test_pilot_short_round_kept_whole(self) -> None:
        phase = stable_phase(np.arange(29.0), method="pilot")
        assert phase.outcome == "not_enough_data" and phase.found
        assert phase.change_points.too_short and phase.significance_level is None

    def test_result_contract(self) -> None:
        phase = stable_phase(warmup_series(seed=5), unit="s", confidence_level=0.9)
        assert isinstance(phase, StablePhase)
        data = phase.to_dict()
        json.dumps(data, allow_nan=False)
        assert data["warmup_length"] == phase.start and data["locations"] == list(phase.locations)
        assert data["confidence_level"] == 0.9 and data["unit"] == "s"
        assert "90 % CI" in str(phase) and "warm-up" in str(phase)
        assert "<table>" in phase._repr_html_()
        with pytest.raises(dataclasses.FrozenInstanceError):
            phase.start = 3  # type: ignore[misc]
        assert isinstance(phase.start, int) and isinstance(phase.mean, float)

    def test_scale_invariance_and_determinism(self) -> None:
        x = warmup_series(seed=6, shift=2.0)
        base = stable_phase(x)
        moved = stable_phase(1e-3 * x - 7.0)
        assert (moved.start, moved.end, moved.outcome) == (base.start, base.end, base.outcome)
        assert stable_phase(x) == base

    def test_input_not_modified(self) -> None:
        x = warmup_series(seed=7)
        copy = x.copy()
        stable_phase(x)
        stable_phase(x, method="pilot")
        np.testing.assert_array_equal(x, copy)


class TestBadInput:
    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [
            ({"method": "fast"}, "method"),
            ({"min_size": 1}, "min_size"),
            ({"significance_level": 1.5}, "significance_level"),
            ({"confidence_level": 95}, "confidence_level"),
            ({"confidence_level": 0.0}, "confidence_level"),
        ],
    )
    def test_bad_parameters(self, kwargs: dict[str, Any], match: str) -> None:
        with pytest.raises(InvalidInputError, match=match):
            stable_phase(np.arange(100.0), **kwargs)

    @pytest.mark.parametrize("data", [[np.nan] * 5, np.ones((4, 4)), "abc", [None, 1.0]])
    def test_bad_data(self, data: Any) -> None:
        with pytest.raises(InvalidInputError, match="x"):
            stable_phase(data)

    def test_empty(self) -> None:
        with pytest.raises(NotEnoughDataError):
            stable_phase([], method="pilot")


def test_docstring_examples() -> None:
    failures, _ = doctest.testmod(stable_module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_demo_report() -> None:
    from pilotstats.demo._changepoints import demo_stable_phase, warmup_sample

    report = demo_stable_phase()
    assert "stable phase [" in report and "method='pilot'" in report
    assert "no_change" in report  # the readings after the warm-up are kept whole
    phase = stable_phase(warmup_sample())
    assert abs(phase.start - 45) <= 5 and phase.end == 240


def test_readme_fragment_example() -> None:
    rng = np.random.default_rng(1)
    readings = 12.0 + 0.4 * rng.standard_normal(300)
    readings[:60] += 2.0
    readings[150] += 25.0
    phase = stable_phase(readings, unit="ms")
    assert (phase.start, phase.end, phase.outcome) == (60, 300, "trimmed")
    assert stable_phase(readings[60:]).outcome == "no_change"


# Steady state of long forks: ``stable_phase(method="equivalence")`` and ``method="auto"``.
# Synthetic forks of known shape check each rule of the model (settling band, final-run length,
# spread and confirmation, classification); the real-data guard runs the JMH development split
# when ``PILOTSTATS_JMH_DEV`` points at it and skips otherwise.
BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_warmup_jmh.py"


def decaying_fork(rng: np.random.Generator, n: int = 3000, amplitude: float = 0.3,
                  tau: float = 100.0, noise: float = 0.01) -> np.ndarray:
    t = np.arange(n)
    return 1.0 + amplitude * np.exp(-t / tau) + rng.normal(0.0, noise, n)


def test_window_medians_match_a_plain_loop() -> None:
    rng = np.random.default_rng(1)
    for n, window in [(10, 3), (12, 4), (7, 10), (3001, 50)]:
        x = rng.normal(size=n)
        expected = [np.median(x[i : i + window]) for i in range(0, n, window)]
        np.testing.assert_allclose(window_medians(x, window), expected, rtol=0, atol=0)


def test_flat_noise_is_flat_without_change_points() -> None:
    rng = np.random.default_rng(2)
    x = 10.0 + rng.normal(0.0, 1.0, 3000)
    phase = stable_phase(x)
    assert phase.method == "equivalence"
    assert phase.found and phase.classification == "flat"
    assert phase.locations == ()
    # only the conservative 5 % discard
    assert phase.start == 150 and phase.outcome == "trimmed"


def test_flat_without_discard_is_no_change() -> None:
    rng = np.random.default_rng(3)
    phase = stable_phase(10.0 + rng.normal(0.0, 0.1, 2000), min_warmup_fraction=0.0)
    assert (phase.start, phase.outcome, phase.classification) == (0, "no_change", "flat")


@pytest.mark.parametrize("seed", range(5))
def test_zero_mean_and_wide_noise_is_steady(seed: int) -> None:
    """The level tolerance vanishes at mean 0; the significance check keeps noise steady."""
    rng = np.random.default_rng(seed)
    assert stable_phase(rng.standard_normal(1000)).found
    assert stable_phase(rng.exponential(1.0, 3000)).found


def test_warmup_decay_is_found_and_classified() -> None:
    rng = np.random.default_rng(4)
    x = decaying_fork(rng)
    phase = stable_phase(x)
    assert phase.found and phase.classification == "warmup"
    # 0.3·exp(-t/100) falls below the 0.019 band (1.9 % of 1.0) at t ≈ 276: window end 300
    assert 200 <= phase.start <= 350
    assert phase.locations == (phase.start,)
    assert phase.mean == pytest.approx(1.0, abs=0.005)


def test_rates_swap_warmup_and_slowdown() -> None:
    rng = np.random.default_rng(5)
    rate = 2.0 - decaying_fork(rng)  # throughput rising to its steady value
    assert stable_phase(rate, higher_is_better=True).classification == "warmup"
    assert stable_phase(rate).classification == "slowdown"


def test_slowdown_after_a_good_start() -> None:
    rng = np.random.default_rng(6)
    x = 1.0 + rng.normal(0.0, 0.01, 3000)
    x[600:] += 0.2
    phase = stable_phase(x)
    assert phase.found and phase.classification == "slowdown"
    assert phase.start == 600


def test_small_significant_shift_does_not_end_the_steady_state() -> None:
    rng = np.random.default_rng(7)
    x = 1.0 + rng.normal(0.0, 0.005, 3000)
    x[1500:] += 0.003  # 0.3 %: significant with 1500 samples a side, practically irrelevant
    phase = stable_phase(x)
    assert phase.found and phase.classification == "flat"
    assert stable_phase(x, method="robust").locations  # the guard does see it


def test_late_change_means_no_steady_state() -> None:
    rng = np.random.default_rng(8)
    x = 1.0 + rng.normal(0.0, 0.01, 3000)
    x[2700:] += 0.5
    phase = stable_phase(x)
    assert not phase.found
    assert (phase.outcome, phase.classification) == ("no_steady_state", "no_steady_state")
    assert (phase.start, phase.end) == (0, 3000)
    assert "settles only in its last" in (phase.note or "")
    assert str(phase).startswith("no steady state in 3000 samples")


def test_wandering_level_means_no_steady_state() -> None:
    rng = np.random.default_rng(9)
    walk = np.cumsum(rng.normal(0.0, 0.02, 3000))
    phase = stable_phase(10.0 + walk + rng.normal(0.0, 0.05, 3000))
    assert not phase.found and phase.classification == "no_steady_state"


def test_spikes_and_periodic_patterns_do_not_end_the_steady_state() -> None:
    rng = np.random.default_rng(10)
    x = 1e-5 * (1.0 + rng.lognormal(0.0, 0.05, 3000))
    x[rng.choice(3000, 30, replace=False)] *= 100.0  # GC pauses
    x += 2e-7 * (np.arange(3000) % 20 == 0)  # a periodic hiccup every 20 iterations
    phase = stable_phase(x)
    assert phase.found and phase.classification == "flat"


def test_bimodal_iterations_are_steady() -> None:
    rng = np.random.default_rng(11)
    modes = np.where(rng.random(3000) < 0.3, 1.2, 1.0)
    phase = stable_phase(modes + rng.normal(0.0, 0.01, 3000))
    assert phase.found


def test_auto_switches_at_the_long_series_length() -> None:
    rng = np.random.default_rng(12)
    x = 5.0 + rng.normal(0.0, 0.1, _config.EQUIVALENCE_LONG_SERIES)
    assert stable_phase(x).method == "equivalence"
    assert stable_phase(x[:-1]).method == "robust"
    assert stable_phase(x, method="robust").method == "robust"
    assert stable_phase(x[:500], method="equivalence").method == "equivalence"


def test_too_short_for_equivalence_is_kept_whole() -> None:
    phase = stable_phase(np.arange(50.0), method="equivalence")
    assert (phase.outcome, phase.start, phase.end, phase.found) == ("not_enough_data", 0, 50, True)


def test_scale_invariance_and_no_mutation() -> None:
    rng = np.random.default_rng(13)
    x = decaying_fork(rng)
    before = x.copy()
    a = stable_phase(x)
    b = stable_phase(1e-6 * x)
    np.testing.assert_array_equal(x, before)
    assert (a.start, a.found, a.classification) == (b.start, b.found, b.classification)


def test_result_serialises_with_class_and_note() -> None:
    rng = np.random.default_rng(14)
    data = stable_phase(decaying_fork(rng)).to_dict()
    text = json.dumps(data)
    assert data["classification"] == "warmup" and "band" in data["note"]
    assert json.loads(text)["method"] == "equivalence"


def test_every_method_classifies() -> None:
    rng = np.random.default_rng(15)
    x = np.r_[rng.normal(14.0, 1.0, 60), rng.normal(10.0, 1.0, 440)]
    assert stable_phase(x).classification == "warmup"
    assert stable_phase(x, method="pilot").classification in ("warmup", "no_steady_state")
    assert stable_phase(rng.normal(10.0, 1.0, 300)).classification == "flat"


@pytest.mark.parametrize(
    ("keyword", "value", "message"),
    [
        ("tolerance", 0.0, "tolerance"),
        ("tolerance", 1.0, "tolerance"),
        ("min_steady_fraction", 1.5, "min_steady_fraction"),
        ("min_warmup_fraction", -0.1, "min_warmup_fraction"),
        ("min_warmup_fraction", 0.9, "1 - min_steady_fraction"),
        ("higher_is_better", "yes", "higher_is_better must be True or False"),
        ("method", "fork", "method"),
    ],
)
def test_bad_parameters_are_named(keyword: str, value: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        stable_phase(np.ones(1500), **{keyword: value})  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------
# real-data guard: the JMH development split (built locally, never committed)
# ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_jmh_development_split_floors() -> None:
    """Floors slightly below the figures measured on the final commit (README): accuracy
    0.813, median onset error 143, in band 0.611 (CP-SSD: 0.701, 277.5, 0.18)."""
    bench = load_script(BENCH, "bench_warmup_jmh")
    folder = bench.data_dir(["", os.environ.get("PILOTSTATS_JMH_DEV", "")])
    if folder is None:
        pytest.skip("PILOTSTATS_JMH_DEV does not point at the JMH development split")
    series, labels, _ = bench.load(folder)
    answers, _, _ = bench.ours(series)
    result = bench.score(answers, labels)
    assert result["accuracy"] >= 0.80
    assert result["median_onset_error"] <= 160
    assert result["in_band"] >= 0.58


@pytest.mark.parametrize("n", [3000, 16000])
def test_step_inside_a_window_is_the_end_of_the_transient(n: int) -> None:
    """A step that falls inside a window is located by the significance check, not read as
    a change that keeps occurring."""
    rng = np.random.default_rng(16)
    x = np.r_[rng.normal(10.0, 1.0, n // 2), rng.normal(12.0, 1.0, n - n // 2)]
    phase = stable_phase(x)
    assert phase.found and phase.classification == "slowdown"
    assert abs(phase.start - n // 2) <= 40
