"""Tests of the work planner (wps spec §6): bisection order, doubling, ramp, stop rule."""

from __future__ import annotations

import math
from itertools import islice

import numpy as np
import pytest

from pilotstats.exceptions import DataRangeWarning, InvalidInputError, ShortRoundWarning
from pilotstats.session import IntervalTarget, RampOptions, WorkPlanner, WpsOptions, work_sequence
from pilotstats.session._planner import _bisection_fraction, _ramp_increment

# Fractions of the documentation's figure (doc/features/warm-up-and-cool-down-phase-detection.rst,
# wps spec §6.3): round 2 is the midpoint of a and round 1, round 3 of round 1 and b, round 8
# of a and round 4.
DOCUMENTED_FRACTIONS = [1 / 2, 1 / 4, 3 / 4, 1 / 8, 3 / 8, 5 / 8, 7 / 8, 1 / 16]


def test_bisection_fractions() -> None:
    assert [_bisection_fraction(r) for r in range(1, 9)] == DOCUMENTED_FRACTIONS
    level4 = [_bisection_fraction(r) for r in range(8, 16)]
    assert level4 == [(2 * j - 1) / 16 for j in range(1, 9)]


def test_work_sequence_documented_order() -> None:
    a, b = 10, 1000
    expected = [math.floor(a + f * (b - a)) for f in DOCUMENTED_FRACTIONS]
    assert list(islice(work_sequence(a, b), 8)) == expected
    assert expected == [505, 257, 752, 133, 381, 628, 876, 71]
    exact = list(islice(work_sequence(0.0, 1.0, integer_work=False), 8))
    assert exact == DOCUMENTED_FRACTIONS
    assert list(islice(work_sequence(0, 16), 8)) == [8, 4, 12, 2, 6, 10, 14, 1]
    # Geometry: round 2 is the midpoint of a and round 1, round 8 of a and round 4.
    w = list(islice(work_sequence(0.0, 64.0, integer_work=False), 8))
    assert w[1] == (0 + w[0]) / 2 and w[2] == (w[0] + 64) / 2 and w[7] == (0 + w[3]) / 2


def test_work_sequence_invalid() -> None:
    with pytest.raises(InvalidInputError, match="a must not exceed b"):
        next(work_sequence(5, 1))
    with pytest.raises(InvalidInputError, match="a must lie in"):
        next(work_sequence(-1, 1))
    with pytest.raises(InvalidInputError, match="b must be a finite number"):
        next(work_sequence(1, float("nan")))


def test_short_round_doubling_example() -> None:
    # wps spec §6.1: short rounds (< 1 s) double the work; the soft limit (5 x the mean of
    # previous amounts, §6.4) caps the sixth proposal: 5 * mean(1, 2, 4, 8, 16) = 31.
    planner = WorkPlanner(1, 1000, min_round_duration=1.0)
    proposals = []
    for _ in range(6):
        work = planner.next_work()
        proposals.append(work)
        planner.record(work, 0.001 * work)
    assert proposals == [1, 2, 4, 8, 16, 31]
    assert planner.phase == "doubling"
    # Above b/2 the proposal jumps to b.
    planner = WorkPlanner(1, 1000, ramp=RampOptions(initial_work=600))
    planner.record(600, 0.5)
    assert planner.next_work() == 1000
    # Still short at b: propose b again and warn.
    planner_b = WorkPlanner(1, 1000, ramp=RampOptions(initial_work=1000))
    with pytest.warns(ShortRoundWarning, match="still shorter than min_round_duration"):
        planner_b.record(1000, 0.5)
    assert planner_b.next_work() == 1000


def test_first_long_round_sets_lower_bound() -> None:
    planner = WorkPlanner(50, 10_000, min_round_duration=1.0)
    assert planner.next_work() == 50
    planner.record(50, 0.3)
    assert planner.next_work() == 100
    planner.record(100, 0.6)
    planner.record(200, 1.2)
    assert planner.lower_bound == 200
    assert planner.phase == "ramp"


def test_ramp_increment() -> None:
    # k = (2T - 2 s n) / (n^2 - n) with n = 51 (wps spec §6.2).
    k, n = _ramp_increment(60.0, 1.0, 51)  # type: ignore[misc]
    assert n == 51 and k == pytest.approx((120 - 102) / (51 * 50))
    # s n >= T: n_eff = ceil(T/s) - 1 = 29.
    k, n = _ramp_increment(60.0, 2.0, 51)  # type: ignore[misc]
    assert n == 29 and k == pytest.approx((120 - 116) / (29 * 28))
    assert _ramp_increment(60.0, 40.0, 51) is None


def test_ramp_takes_target_time_on_linear_workload() -> None:
    # Duration = w / 100 (alpha = 0): rounds 1..n of the ramp take n s + k n (n-1)/2 = T.
    planner = WorkPlanner(
        1,
        1e9,
        min_round_duration=1.0,
        integer_work=False,
        ramp=RampOptions(initial_work=100, initial_rounds=51),
        wps=WpsOptions(interval=IntervalTarget(min_subsessions=1000)),
    )
    total = 0.0
    while True:
        phase = planner.phase
        work = planner.next_work()
        if planner.n_rounds > 0 and phase != "ramp":
            break
        duration = work / 100.0
        total += duration
        planner.record(work, duration)
    assert planner.n_rounds == 51
    assert total == pytest.approx(60.0, rel=1e-9)


def _linear(work: float, alpha: float = 0.0, v: float = 100.0) -> float:
    return alpha + work / v


def test_bisection_follows_documented_sequence() -> None:
    # The ramp is skipped (s >= T), the soft limit disabled and alpha = 0, so the lower bound
    # stays at the first long round and the proposals are work_sequence(a, b).
    planner = WorkPlanner(
        1,
        10_000,
        min_round_duration=1.0,
        ramp=RampOptions(target_initial_time=1.0, initial_work=200, soft_limit_factor=math.inf),
    )
    planner.record(200, _linear(200))
    assert planner.phase == "bisection" and planner.lower_bound == 200
    proposals = []
    for _ in range(8):
        work = planner.next_work()
        proposals.append(work)
        planner.record(work, _linear(work, alpha=0.5))
    assert proposals == list(islice(work_sequence(200, 10_000), 8))


def test_soft_limit_caps_and_sequence_advances() -> None:
    planner = WorkPlanner(
        1,
        10_000,
        min_round_duration=1.0,
        ramp=RampOptions(target_initial_time=1.0, initial_work=200),
    )
    planner.record(200, _linear(200))
    assert planner.next_work() == 1000  # 5 x mean(200) < 200 + (10000 - 200)/2
    planner.record(1000, _linear(1000))
    # The index advanced: the next fraction is 1/4 (2650), below 5 x mean = 3000.
    assert planner.next_work() == 2650


def test_alpha_raises_lower_bound() -> None:
    # t = -2 + w / 100: the alpha-implied minimum is 200 units (wps spec §6.5).
    planner = WorkPlanner(
        1,
        10_000,
        min_round_duration=1.0,
        ramp=RampOptions(target_initial_time=1.0, initial_work=500, soft_limit_factor=math.inf),
    )
    for _ in range(6):
        work = planner.next_work()
        planner.record(work, _linear(work, alpha=-2.0))
    assert planner.wps_result is not None
    assert planner.wps_result.alpha == pytest.approx(-2.0)
    assert planner.lower_bound == 500  # 200 < first long round's 500: unchanged
    # Rounds of at most 50 units end before warm-up is over (0.01 s); the alpha filter drops
    # them and the lower bound rises from the first round's 10 units to 50.
    planner = WorkPlanner(
        1,
        10_000,
        min_round_duration=0.0,
        ramp=RampOptions(target_initial_time=0.01, initial_work=10, soft_limit_factor=math.inf),
    )
    for _ in range(6):
        work = planner.next_work()
        planner.record(work, _linear(work, alpha=-0.5) if work > 50 else 0.01)
    assert planner.wps_result is not None and planner.wps_result.n_rounds_used == 5
    assert planner.lower_bound == 50  # ceil(-alpha * v) = ceil(0.5 * 100)


def test_alpha_minimum_beyond_range_warns() -> None:
    planner = WorkPlanner(
        1,
        1000,
        min_round_duration=0.0,
        ramp=RampOptions(target_initial_time=1.0, initial_work=900, soft_limit_factor=math.inf),
    )
    # The harness ran rounds above max_work; t = -150 + w / 10 puts the alpha-implied
    # minimum at 1500 units, beyond max_work = 1000.
    rounds = [(1600, 10.0), (1800, 30.0), (1700, 20.0), (1900, 40.0)]
    with pytest.warns(DataRangeWarning, match="reaches max_work"):
        for work, duration in rounds:
            planner.record(work, duration)
    assert planner.lower_bound == 1600  # the first round's work, left unchanged


def test_stop_rule_noise_free() -> None:
    # Noise-free linear rounds: zero-width interval; finished once h >= 21 (Pilot's h > 20).
    planner = WorkPlanner(
        1,
        100_000,
        min_round_duration=0.0,
        ramp=RampOptions(target_initial_time=1.0, initial_work=1000),
    )
    while not planner.finished:
        work = planner.next_work()
        planner.record(work, _linear(work, alpha=0.3))
        assert planner.n_rounds <= 40
    result = planner.wps_result
    assert result is not None and result.n_subsessions == 21 and planner.n_rounds == 21
    assert result.throughput == pytest.approx(100.0)


def test_unit_reading_pacing_v62() -> None:
    # V6.2 unit_test_session_duration.cc CalculatingOptimalSessionDuration: b = 50, one unit
    # reading per unit of work, 15 required (supplied), no warm-up removal, threshold 0:
    # work amounts 1, 5, 10, then finished.
    planner = WorkPlanner(1, 50, min_round_duration=0.0, wps=WpsOptions(enabled=False))
    amounts = []
    while not planner.finished:
        work = planner.next_work()
        amounts.append(work)
        planner.record(work, 0.1 * work, unit_readings=int(work), required_unit_readings=15)
        assert len(amounts) < 10
    assert amounts == [1, 5, 10]


def test_unit_reading_requirement_computed() -> None:
    rng = np.random.default_rng(2)
    planner = WorkPlanner(1, 10_000, min_round_duration=0.0, wps=WpsOptions(enabled=False))
    for _ in range(30):
        work = planner.next_work()
        planner.record(work, 0.01 * work, unit_readings=rng.normal(10, 1, size=int(work)))
        if planner.finished:
            break
    assert planner.finished


def test_invalid_arguments() -> None:
    with pytest.raises(InvalidInputError, match="min_work must not exceed max_work"):
        WorkPlanner(10, 5)
    with pytest.raises(InvalidInputError, match="max_work"):
        WorkPlanner(0, 0)
    with pytest.raises(InvalidInputError, match="initial_work must not exceed"):
        WorkPlanner(1, 10, ramp=RampOptions(initial_work=20))
    with pytest.raises(InvalidInputError, match="initial_rounds"):
        WorkPlanner(1, 10, ramp=RampOptions(initial_rounds=1))
    with pytest.raises(InvalidInputError, match="subsession_basis"):
        WorkPlanner(1, 10, wps=WpsOptions(subsession_basis="blocks"))  # type: ignore[arg-type]
    planner = WorkPlanner(1, 10)
    with pytest.raises(InvalidInputError, match="duration"):
        planner.record(1, -1.0)  # 0 s (a coarse timer) is accepted as a short round
    with pytest.raises(InvalidInputError, match="work"):
        planner.record(float("nan"), 1.0)
    with pytest.raises(InvalidInputError, match="required_unit_readings"):
        planner.record(1, 1.0, required_unit_readings=-1)
    assert planner.n_rounds == 0


def test_pilot_slice_grid_v61() -> None:
    # V6.1 unit_test_session_duration.cc TestCalcNextRoundWorkAmountFromWPS (compat only):
    # b = 1000, T = 60 s, lower bound 10 established by a round (10 units, 1 s); rounds of
    # 1 s with the listed work amounts; Pilot's plugin answers without the soft limit.
    planner = WorkPlanner(
        1,
        1000,
        method="pilot",
        ramp=RampOptions(initial_work=10, soft_limit_factor=math.inf),
    )
    answers = []
    for work in (10, 365, 999, 15):
        planner.record(work, 1.0)
        answers.append(planner.next_work())
        assert not planner.finished  # every call reports that more rounds are needed
    assert answers == [21, 373, 15, 20]
    assert planner.phase == "slices" and planner.lower_bound == 10


def test_pilot_mode_runs_to_completion() -> None:
    rng = np.random.default_rng(9)
    planner = WorkPlanner(1, 100_000, method="pilot", min_round_duration=0.5)
    for _ in range(400):
        work = planner.next_work()
        planner.record(work, 0.2 + work / 1000.0 * (1 + rng.normal(0, 0.01)))
        if planner.finished:
            break
    assert planner.finished
    result = planner.wps_result
    assert result is not None and result.method == "pilot"
    assert result.n_subsessions >= 21 and 0 < result.throughput_half_width
