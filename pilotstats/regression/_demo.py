"""Demonstration of the work-per-second pillar for ``python -m pilotstats demo``."""

from __future__ import annotations

import numpy as np

__all__ = ["demo_wps"]


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
    from pilotstats.session import (
        IntervalTarget,
        RampOptions,
        RoundLimits,
        WpsOptions,
        run_session,
    )

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
