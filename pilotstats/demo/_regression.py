"""Regression sections of the demonstration: work per second and model calibration."""

from __future__ import annotations

import warnings

import numpy as np

from pilotstats.exceptions import LabelSwitchingWarning
from pilotstats.regression import ClosedNetworkModel, calibrate, f_test
from pilotstats.session import (
    IntervalTarget,
    RampOptions,
    RoundLimits,
    WpsOptions,
    run_session,
)

__all__ = ["SAMPLE_MEASUREMENTS", "SAMPLE_POPULATIONS", "demo_calibration", "demo_wps"]

#: Populations of the embedded experiment (think time 10 s).
SAMPLE_POPULATIONS = (1, 4, 7, 10, 13, 16, 19)

#: Measured T_1, T_2, T_3 (s) and throughput f (1/s) per population: a seeded
#: discrete-event simulation (tests/sim_closed_network.py, horizon 40 000 s, warm-up
#: 2 000 s, seed 7 + N) of exponential FCFS stations with true demands D = [2, 3, 4] s.
SAMPLE_MEASUREMENTS = (
    (2.04962, 2.94622, 4.04779, 0.0522895),
    (2.67032, 4.68859, 6.99963, 0.165263),
    (3.17189, 6.70655, 12.379, 0.217711),
    (3.54923, 8.80233, 20.137, 0.236632),
    (3.80682, 10.0221, 29.4942, 0.243658),
    (3.97951, 10.3165, 40.708, 0.246053),
    (3.95415, 11.7388, 50.0345, 0.250526),
)


def demo_wps() -> str:
    """Return a short report: a simulated benchmark session and a WPS fit.

    The workload is simulated (seeded, so the report is deterministic): every round has a
    20 ms setup, a 30 ms warm-up three times faster than the stable phase, the stable phase
    at 200 000 ops/s and a 10 ms cool-down, plus 10 ms of Gaussian noise. The true model is
    ``t = -0.035 s + w / 200000``.

    Returns
    -------
    str
        A few lines: the session's stopping point and throughput interval, the overhead
        ``alpha``, and the naive ``sum(w)/sum(t)`` estimate for contrast.

    Notes
    -----
    Complexity: A fixed small example: well under a second once compiled.

    Examples
    --------
    >>> print(demo_wps().splitlines()[0])
    WPS demo: simulated workload, true stable throughput 2e+05 op/s, alpha = -35 ms
    """
    v = 2e5
    rng = np.random.default_rng(2026)

    def workload(work: float | None) -> float:
        amount = float(work or 0.0)
        w_warmup = min(amount, 0.03 * 3.0 * v)
        rest = amount - w_warmup
        w_cooldown = min(rest, 0.005 * v)
        rest -= w_cooldown
        duration = 0.02 + w_warmup / (3.0 * v) + rest / v + w_cooldown / (0.5 * v)
        return max(duration + float(rng.normal(0.0, 0.01)), 1e-4)

    result = run_session(
        workload,
        1e6,
        ramp=RampOptions(target_initial_time=2.0),
        wps=WpsOptions(interval=IntervalTarget(half_width_percent=2.5)),
        limits=RoundLimits(min_round_duration=0.3),
        unit="op",
    )
    fit = result.wps
    lines = [
        "WPS demo: simulated workload, true stable throughput 2e+05 op/s, alpha = -35 ms",
        f"session: {result.n_rounds} rounds, {result.total_duration:.1f} s of rounds, "
        f"stop reason {result.stop_reason}",
    ]
    if fit is not None:
        lines.append(f"fit: {fit}")
        lines.append(
            f"prediction error relative to total time: WPS {fit.relative_error:.2%}, "
            f"naive sum(w)/sum(t) = {fit.naive_throughput:.4g} op/s: "
            f"{fit.naive_relative_error:.2%}"
        )
    return "\n".join(lines)


def demo_calibration() -> str:
    """Calibrate a 3-station closed network to the embedded sample and report.

    Returns
    -------
    str
        A short report: estimated demands with 95 % CIs (true values 2, 3, 4 s), the
        predicted response time at N = 30 (extrapolated) with its CI, and the F test of a
        2-queue against the 3-queue model (response time and throughput only).

    Notes
    -----
    Complexity: A fixed small example: well under a second once compiled.

    Examples
    --------
    >>> print(demo_calibration())  # doctest: +ELLIPSIS
    Calibrating a closed 3-station network ...
    """
    z = np.array(SAMPLE_MEASUREMENTS)
    model = ClosedNetworkModel(3, think_time=10.0)
    fit = calibrate(model, SAMPLE_POPULATIONS, z, [1.0, 1.0, 1.0])
    lines = [
        "Calibrating a closed 3-station network (Z = 10 s) to simulated per-station "
        "residence times and throughput at N = 1, 4, ..., 19 (IRLS weights; true D = 2, 3, 4 s):",
    ]
    for i, name in enumerate(fit.parameter_names):
        lines.append(
            f"  {name} = {fit.params[i]:.4f} s  (95 % CI [{fit.ci_low[i]:.4f}, "
            f"{fit.ci_high[i]:.4f}] s, se {fit.stderr[i]:.4f})"
        )
    lines.append(
        f"  {fit.status} after {fit.iterations} Gauss–Newton iterations, dof = {fit.dof}, "
        f"cond(M) = {fit.condition_number:.3g}"
    )
    prediction = fit.predict([30])
    total, half = prediction.combine([1.0, 1.0, 1.0, 0.0])
    lines.append(
        f"Predicted response time at N = 30 (extrapolated): {total[0]:.2f} s "
        f"± {half[0]:.2f} s (95 % CI)"
    )
    short = np.column_stack([z[:, :3].sum(axis=1), z[:, 3]])
    three = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "throughput"))
    two = ClosedNetworkModel(2, think_time=10.0, measures=("response_time", "throughput"))
    with warnings.catch_warnings():
        # R and f do not say which queue is which (label switching): the F test asks how
        # many queues there are, not which is which
        warnings.simplefilter("ignore", LabelSwitchingWarning)
        full = calibrate(three, SAMPLE_POPULATIONS, short, [1.0, 1.5, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the 2-queue optimum has D1 = D2 (reported below)
        restricted = calibrate(two, SAMPLE_POPULATIONS, short, [1.0, 2.0])
        test = f_test(restricted, full)
    lines.append(
        f"F test, 2 queues vs 3 queues (R and f only): {test}; "
        + ("a third queue is needed" if test.p_value < 0.05 else "2 queues suffice")
    )
    return "\n".join(lines)
