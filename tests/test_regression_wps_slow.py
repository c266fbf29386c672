"""Slow coverage simulations of the WPS throughput interval (acceptance targets).

Rounds follow ``t = alpha + w / v + e`` with true ``alpha = -0.5 s``, ``v = 100 units/s``,
work amounts uniform in [200, 1000] units, and noise ``e`` either i.i.d. N(0, 0.2^2) or AR(1)
with ``phi = 0.6`` (innovations N(0, 0.2^2)). The 95 % interval of ``v`` must cover the truth
in 93–97 % of 1000 replications (i.i.d.) and in at least 90 % with subsession merging (AR(1)).
Run with ``pytest -s --only-slow`` to see the rates.
"""

from __future__ import annotations

import math
import warnings
from itertools import islice

import numpy as np
import pytest

from pilotstats.exceptions import ConvergenceWarning, LackOfFitWarning
from pilotstats.regression import wps
from pilotstats.session import (
    IntervalTarget,
    RampOptions,
    RoundLimits,
    WpsOptions,
    run_session,
    work_sequence,
)

ALPHA, V, SIGMA = -0.5, 100.0, 0.2
REPLICATIONS = 1000


def _coverage(
    phi: float, n: int, seed: int, design: str = "random", **options: object
) -> tuple[float, float]:
    """Share of replications whose 95 % interval contains ``V``, and the mean q.

    ``design="random"``: i.i.d. uniform work amounts; ``"bisection"``: the planner's order
    (:func:`work_sequence`), whose work amounts ascend within each level, so that
    autocorrelated noise does bias the naive slope interval.
    """
    rng = np.random.default_rng(seed)
    hits = 0
    sizes = []
    ordered = np.array(list(islice(work_sequence(200.0, 1000.0, integer_work=False), n)))
    for _ in range(REPLICATIONS):
        work = rng.uniform(200.0, 1000.0, size=n) if design == "random" else ordered
        innovations = rng.normal(0.0, SIGMA, size=n)
        noise = np.empty(n)
        noise[0] = innovations[0] / math.sqrt(1.0 - phi * phi)
        for i in range(1, n):
            noise[i] = phi * noise[i - 1] + innovations[i]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", LackOfFitWarning)  # 0.1 % of linear fits
            result = wps(work, ALPHA + work / V + noise, **options)  # type: ignore[arg-type]
        sizes.append(result.subsession_size)
        hits += result.throughput_ci_low <= V <= result.throughput_ci_high
    return hits / REPLICATIONS, float(np.mean(sizes))


def _band(level: float = 0.95) -> float:
    return 3.0 * math.sqrt(level * (1.0 - level) / REPLICATIONS)


@pytest.mark.slow
@pytest.mark.parametrize("basis", ["rates", "residuals"])
def test_coverage_iid(basis: str) -> None:
    rate, mean_q = _coverage(0.0, 120, seed=20261121, subsession_basis=basis)
    print(f"\ni.i.d. noise, n = 120, basis {basis}: coverage {rate:.3f}, mean q {mean_q:.2f}")
    assert 0.93 <= rate <= 0.97
    assert abs(rate - 0.95) <= _band()


@pytest.mark.slow
@pytest.mark.parametrize("basis", ["rates", "residuals"])
def test_coverage_ar1_with_subsessions(basis: str) -> None:
    rate, mean_q = _coverage(0.6, 300, 20261122, "bisection", subsession_basis=basis)
    naive, _ = _coverage(0.6, 300, 20261122, "bisection", subsession_size=1)
    print(
        f"\nAR(1) phi = 0.6, n = 300, bisection design, basis {basis}: coverage {rate:.3f} "
        f"(mean q {mean_q:.2f}); without merging (q = 1): {naive:.3f}"
    )
    assert rate >= 0.90
    assert naive < rate  # merging is what rescues the interval


@pytest.mark.slow
def test_session_coverage_with_optional_stopping() -> None:
    # Whole sessions (planner design, width-based stopping at 5 %) on t = -0.035 + w / 2e5
    # with i.i.d. N(0, 0.01^2) noise; stopping on the width makes coverage slightly below
    # nominal, so the band is one-sided at 90 %.
    replications = 200
    hits = 0
    rounds = []
    for seed in range(replications):
        rng = np.random.default_rng(seed)

        def workload(work: float, rng: np.random.Generator = rng) -> float:
            return max(-0.035 + work / 2e5 + rng.normal(0.0, 0.01), 1e-4)

        result = run_session(
            workload,
            1e6,
            ramp=RampOptions(target_initial_time=2.0),
            wps=WpsOptions(interval=IntervalTarget(half_width_percent=2.5)),
            limits=RoundLimits(min_round_duration=0.3, min_rounds=10),
        )
        assert result.wps is not None
        rounds.append(result.n_rounds)
        hits += result.wps.throughput_ci_low <= 2e5 <= result.wps.throughput_ci_high
    rate = hits / replications
    print(f"\nsessions (±2.5 % target): coverage {rate:.3f}, mean rounds {np.mean(rounds):.1f}")
    assert rate >= 0.90
