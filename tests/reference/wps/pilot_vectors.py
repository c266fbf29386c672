"""Pilot's WPS test vectors (wps spec §8), rebuilt exactly as Pilot's C++ tests build them.

Run ``python tests/reference/wps/pilot_vectors.py`` to print them. Provenance of every vector
and expected value is in ``README.md`` beside this file. Durations are returned in seconds
(Pilot's integer nanoseconds divided by 1e9, as the project API expects).
"""

from __future__ import annotations

import math

#: V5.1, lib/test/unit_test_statistics.cc, OrdinaryLeastSquareLinearRegression1.
V51_WORK = [50.0, 100.0, 150.0, 200.0, 250.0]
V51_DURATIONS_NS = [162e9, 233e9, 324e9, 417e9, 572e9]

#: V5.3, OrdinaryLeastSquareLinearRegression3 (real data A).
V53_WORK = [429497000.0, 472446000.0, 515396000.0, 558346000.0]
V53_DURATIONS_NS = [4681140000, 5526190000, 5632120000, 5611980000]

#: V5.4, OrdinaryLeastSquareLinearRegression4 (real data B).
V54_WORK = [
    429496729.0,
    472446392.0,
    515396064.0,
    558345736.0,
    601295408.0,
    644245080.0,
    687194752.0,
    730144424.0,
    773094096.0,
]
V54_DURATIONS_NS = [
    5731883327,
    5235129386,
    5321265550,
    5860121124,
    6040418744,
    6513983890,
    6623204911,
    6828709974,
    7455453108,
]

#: V5.5 work sequences, lib/test/unit_test_readings_warmup_removal.cc.
V55_IDENTICAL_DIFF = [50.0, 100.0, 50.0, 100.0]
V55_CHANGING_DIFF = [50.0, 100.0, 50.0, 100.0, 50.0, 80.0, 50.0, 80.0, 50.0, 100.0, 50.0, 100.0]


def seconds(durations_ns: list[float]) -> list[float]:
    """Pilot's nanoseconds to the project's seconds."""
    return [value / 1e9 for value in durations_ns]


def v52_rounds() -> tuple[list[float], list[float]]:
    """V5.2 (noise-free): ``w = 500*100 + 30 t_s + 15*30``, ``d = 10 + 100 + 30 + t_s`` ns."""
    work, durations = [], []
    for t_s in range(0, 2000, 50):
        work.append(500.0 * 100 + 30.0 * t_s + 15.0 * 30)
        durations.append((10.0 + 100.0 + 30.0 + t_s) / 1e9)
    return work, durations


def v55_duration(work: float) -> float:
    """V5.5 synthetic round in Pilot's double arithmetic with truncation toward zero.

    setup 1 s, warm-up 2 s at 4.5 units/s, stable 1.5 units/s, cool-down 1 s at 0.75 units/s.
    """
    warmup_work = math.trunc(4.5e-9 * 2e9)  # 9 units
    cooldown_work = math.trunc(0.75e-9 * 1e9)  # 0 units
    stable_ns = math.trunc((work - warmup_work - cooldown_work) / 1.5e-9)
    return (4e9 + stable_ns) / 1e9


if __name__ == "__main__":
    print("V5.1", V51_WORK, seconds(V51_DURATIONS_NS))
    print("V5.2", *v52_rounds())
    print("V5.3", V53_WORK, seconds(V53_DURATIONS_NS))
    print("V5.4", V54_WORK, seconds(V54_DURATIONS_NS))
    for name, work in (("identical", V55_IDENTICAL_DIFF), ("changing", V55_CHANGING_DIFF)):
        print("V5.5", name, work, [v55_duration(w) for w in work])
