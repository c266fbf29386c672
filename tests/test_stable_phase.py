"""Fast tests of :func:`pilotstats.changepoints.stable_phase` and the dominant-segment rule.

Pinned values: Pilot's own unit tests (spec ``edm.md`` §9, P-1); provenance in
``tests/reference/stable_phase/README.md``.
"""

from __future__ import annotations

import dataclasses
import doctest
import itertools
import json
import math
from typing import Any, ClassVar

import numpy as np
import pytest

from pilotstats.changepoints import StablePhase, dominant_segment, stable_phase
from pilotstats.changepoints import stable as stable_module
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError

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
