"""Change-point sections of the demonstration: EDM, stable phase and the MDL trend."""

from __future__ import annotations

import numpy as np

from pilotstats.changepoints import (
    EdmStream,
    edm,
    edm_single,
    mdl_partition,
    stable_phase,
    trend_compliance,
)
from pilotstats.results import format_number

__all__ = ["DEMO_THROUGHPUT", "demo_edm", "demo_mdl", "demo_stable_phase", "warmup_sample"]

#: 60 daily throughput results in Mpps (synthetic, CSIT-like): a stable trend with one
#: failed-looking dip at run 20, a regression at run 30 and a progression at run 45.
DEMO_THROUGHPUT: tuple[float, ...] = (
    12.52, 12.42, 12.56, 12.58, 12.34, 12.40, 12.51, 12.47, 12.50, 12.43,
    12.57, 12.56, 12.51, 12.59, 12.54, 12.43, 12.53, 12.42, 12.57, 12.50,
    11.60, 12.45, 12.60, 12.49, 12.47, 12.47, 12.54, 12.53, 12.53, 12.53,
    12.17, 11.97, 11.96, 11.93, 12.05, 12.09, 11.99, 11.93, 11.93, 12.05,
    12.06, 12.04, 11.95, 12.02, 12.01, 12.92, 12.97, 12.92, 12.95, 12.91,
    12.92, 12.95, 12.78, 12.87, 12.86, 12.85, 12.88, 13.02, 12.83, 12.98,
)  # fmt: skip


def demo_edm() -> str:
    """Return a short readable report of :func:`edm`, :func:`edm_single` and
    :class:`EdmStream` on a seeded warm-up-like sample (deterministic)."""
    rng = np.random.default_rng(20141127)
    warmup = 14.0 - 4.0 * np.linspace(0.0, 1.0, 60) + rng.normal(0.0, 0.3, 60)
    stable = 10.0 + rng.normal(0.0, 0.3, 300)
    slow = 11.5 + rng.normal(0.0, 0.3, 140)
    x = np.concatenate([warmup, stable, slow])
    multi = edm(x, min_size=30)
    percent = edm(x, min_size=30, percent=0.25)
    single = edm_single(x, min_size=30)
    stream = EdmStream(min_size=30)
    for start in range(0, x.size, 100):
        stream.extend(x[start : start + 100])
    lines = [
        "EDM change points (James, Kejariwal & Matteson 2014) on 500 samples:",
        "60 warm-up samples drifting from 14 to 10 ms, 300 at 10 ms, 140 at 11.5 ms",
        "(true changes at 60 and 360; the faithful EDM reproduces the reference's greedy",
        "recursion, including its displaced and extra change points; EDM-X reports one)",
        f"  edm (beta 0.008):     {multi}",
        f"  edm (percent 0.25):   {percent}",
        f"  edm_single (EDM-X):   {single}",
        f"  EdmStream, 5 chunks:  locations {list(stream.result().locations)} "
        f"(equal to edm: {stream.result().locations == multi.locations})",
        "  segments of edm (beta 0.008):",
    ]
    lines.extend(f"    {segment}" for segment in multi)
    return "\n".join(lines)


def warmup_sample() -> np.ndarray:
    """An embedded synthetic round of 240 latency readings in milliseconds.

    The first 45 readings are a warm-up (caches cold: about 14.5 ms, decaying), the rest
    fluctuate around 12.0 ms with σ = 0.4 ms, and two isolated spikes (a GC pause at
    reading 120, a page fault at 200) sit in the stable phase. Values are rounded to
    0.01 ms and reproducible (fixed seed).
    """
    rng = np.random.default_rng(20261121)
    n, warm = 240, 45
    x = 12.0 + 0.4 * rng.standard_normal(n)
    x[:warm] += 2.5 * np.exp(-np.arange(warm) / 60.0)
    x[120] += 9.0
    x[200] += 6.0
    return np.round(x, 2)


def demo_stable_phase() -> str:
    """Run stable-phase detection on :func:`warmup_sample` and return a readable report.

    Returns
    -------
    str
        The default (guarded) result, the same data under Pilot's procedure, and the
        result on the stable readings alone (no warm-up: nothing must be trimmed).
    """
    x = warmup_sample()
    robust = stable_phase(x, unit="ms")
    pilot = stable_phase(x, method="pilot", unit="ms")
    tail = stable_phase(x[robust.start :], unit="ms")
    p_values = ", ".join(f"{p:.2g}" for p in (robust.change_points.p_values or ()))
    lines = [
        "Stable-phase detection (pilotstats.changepoints.stable_phase)",
        f"  sample: {x.size} readings in ms; true warm-up 45 readings, spikes at 120 and 200",
        f"  default (guarded EDM): {robust}",
        f"    change points {list(robust.locations)} with p-values [{p_values}]",
        f"  method='pilot' (EDM-percent, no test): {pilot}",
        f"    change points {list(pilot.locations)}",
        f"  readings after the warm-up only: {tail.outcome} "
        f"(warm-up {tail.warmup_length}, cool-down {tail.cooldown_length})",
    ]
    return "\n".join(lines)


def demo_mdl() -> str:
    """Return a short report of the MDL trend analysis of :data:`DEMO_THROUGHPUT`.

    Returns
    -------
    str
        Groups with their labels, and the CSIT compliance metrics.

    Examples
    --------
    >>> from pilotstats.demo._changepoints import demo_mdl
    >>> print(demo_mdl().splitlines()[0])
    MDL trend analysis (jumpavg model) of 60 throughput runs [Mpps]:
    """
    groups = mdl_partition(DEMO_THROUGHPUT)
    lines = [f"MDL trend analysis (jumpavg model) of {groups.n_runs} throughput runs [Mpps]:"]
    for group in groups.groups:
        lines.append(
            f"  runs {group.start:>2}-{group.end - 1:<2} mean {format_number(group.mean, 5):>6} "
            f"std {format_number(group.std, 2):>5}  {group.classification}"
        )
    compliance = trend_compliance(groups, short_window=10, long_window=180)
    lines.append(
        f"  boundaries {groups.boundaries.tolist()}, {format_number(groups.total_bits, 6)} "
        f"bits (resolution {format_number(groups.resolution, 3)} Mpps)"
    )
    lines.append(f"  compliance: {compliance}")
    return "\n".join(lines)
