"""Benchmark: WPS regression (pilotstats) vs statsmodels OLS on the same rounds.

Run: ``python benchmarks/bench_wps.py``. Steady-state timings (JIT warmed up first), minimum
of repeats. statsmodels is the peer for the line fit with its t-based intervals; pilotstats
additionally chooses the subsession size and runs the alpha filter (default call), so the
like-for-like row is ``wps(subsession_size=1, alpha_filter=False)``.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import statsmodels
import statsmodels.api as sm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout too

import _compiled  # noqa: F401

import pilotstats
from pilotstats.regression import wps


def best_time(func: Callable[[], object], repeats: int = 7) -> float:
    """Minimum wall time of ``repeats`` batches (each long enough to time), per call."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            func()
        elapsed = time.perf_counter() - start
        if elapsed > 0.05:
            break
        number *= 2
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            func()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def rounds(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    work = rng.uniform(200.0, 1000.0, size=n)
    return work, -0.5 + work / 100.0 + rng.normal(0.0, 0.2, size=n)


def statsmodels_fit(work: np.ndarray, durations: np.ndarray) -> tuple[float, float]:
    model = sm.OLS(durations, sm.add_constant(work)).fit()
    low, high = model.conf_int(alpha=0.05)[1]
    return 1.0 / high, 1.0 / low


def main() -> None:
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"statsmodels {statsmodels.__version__}, pilotstats {pilotstats.__version__}, "
        f"{platform.machine()} {platform.processor() or platform.system()}"
    )
    work, durations = rounds(50)
    start = time.perf_counter()
    wps(work, durations)
    print(
        f"first call (includes JIT compilation or cache load): {time.perf_counter() - start:.3f} s"
    )
    print(
        f"{'n':>7} {'statsmodels OLS':>16} {'wps q=1, no filter':>19} {'ratio':>6} "
        f"{'wps default':>12} {'ratio':>6}"
    )
    for n in (100, 1_000, 10_000, 100_000):
        work, durations = rounds(n)
        peer = best_time(lambda w=work, d=durations: statsmodels_fit(w, d))
        plain = best_time(
            lambda w=work, d=durations: wps(w, d, subsession_size=1, alpha_filter=False)
        )
        full = best_time(lambda w=work, d=durations: wps(w, d))
        print(
            f"{n:>7} {peer * 1e3:>13.3f} ms {plain * 1e3:>16.3f} ms {plain / peer:>6.2f} "
            f"{full * 1e3:>9.3f} ms {full / peer:>6.2f}"
        )


if __name__ == "__main__":
    main()
