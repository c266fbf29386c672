"""Benchmark for issue 13: the subsession-size scan on level-shifted series, and the fuzz matrix.

Run: ``python benchmarks/bench_reliability.py [--write benchmarks/RESULTS_reliability.md]``.

* ``optimal_subsession_size`` on i.i.d. N(0, 1) noise and on the same noise with a level
  shift of 5 at n/2 (every r1(q) stays near 1 until q is a quarter of the series, so the
  scan visits q = 1..n/4). The current scan (double-double prefix sums, O(n/q) per q,
  O(n log n) in total) is timed against the former direct scan (O(n) per q, O(n²) in total,
  reproduced here from ``_kernels.autocorrelation.lag1_coefficient``) on the same inputs.
  Peer: ``statsmodels.tsa.stattools.acf`` of the block means for every q (what a user would
  write with statsmodels), only at the smallest size.
* The bad-value matrix of ``tests/fuzz_harness.py``: outcome counts.

Timings: minimum of repeats, JIT compiled first (excluded), wall time.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _compiled  # noqa: E402, F401

import pilotstats  # noqa: E402
from pilotstats._kernels import autocorrelation as kernels  # noqa: E402
from pilotstats.autocorrelation import optimal_subsession_size  # noqa: E402


def best_time(func: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def direct_scan(x: np.ndarray, limit: float = 0.1) -> int | None:
    """The former O(n²) worst-case scan: lag1_coefficient (O(n)) for q = 1, 2, ..."""
    m = float(kernels.overall_mean(x, False))
    for q in range(1, x.size // 3 + 1):
        if abs(kernels.lag1_coefficient(x, q, False, m)) <= limit:
            return q
    return None


def statsmodels_scan(x: np.ndarray, limit: float = 0.1) -> int | None:
    from statsmodels.tsa.stattools import acf

    for q in range(1, x.size // 3 + 1):
        h = x.size // q
        means = x[: h * q].reshape(h, q).mean(axis=1)
        if abs(acf(means, nlags=1, fft=True)[1]) <= limit:
            return q
    return None


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", default=None)
    parser.add_argument("--old-max", type=int, default=100_000,
                        help="largest n for the former O(n²) scan (default 1e5)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    optimal_subsession_size(rng.standard_normal(100))  # compile
    direct_scan(rng.standard_normal(100))
    lines = [
        "## Issue 13: near-linear subsession-size scan, fuzzed public API",
        "",
        "- command: `python benchmarks/bench_reliability.py --write "
        "benchmarks/RESULTS_reliability.md`",
        f"- pilotstats {pilotstats.__version__}, numpy {np.__version__}, Python "
        f"{platform.python_version()}, {platform.machine()}, {platform.platform()}",
        "- timings on a shared 2-core machine under load from other jobs (minimum of 3 "
        "repeats, JIT compilation excluded); the ratios matter more than the absolute times",
        "",
        "### `optimal_subsession_size`: i.i.d. noise vs a level shift of 5 at n/2",
        "",
        "| n | series | q found | pilotstats (prefix sums) | former direct scan | "
        "former / now | statsmodels acf per q |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in (100_000, 300_000, 1_000_000):
        for kind in ("i.i.d.", "level shift"):
            x = rng.standard_normal(n)
            if kind == "level shift":
                x[n // 2:] += 5.0
            now = best_time(lambda x=x: optimal_subsession_size(x))
            q = optimal_subsession_size(x)
            old = peer = "–"
            ratio = "–"
            if n <= args.old_max:
                t_old = best_time(lambda x=x: direct_scan(x), repeats=1)
                assert direct_scan(x) == q
                old, ratio = fmt(t_old), f"{t_old / now:.0f}x"
                if n == 100_000 and kind == "i.i.d.":
                    peer = fmt(best_time(lambda x=x: statsmodels_scan(x), repeats=1))
            lines.append(f"| {n:,} | {kind} | {q} | {fmt(now)} | {old} | {ratio} | {peer} |")
            print(lines[-1], flush=True)

    from tests import fuzz_harness

    start = time.perf_counter()
    results = fuzz_harness.run_matrix(quick=False)
    elapsed = time.perf_counter() - start
    counts: dict[str, int] = {}
    owned = {t.name for t in fuzz_harness._targets() if "issue 11" in t.note}
    owned_counts: dict[str, int] = {}
    for call, outcome, _ in results:
        bucket = owned_counts if call.target in owned else counts
        bucket[outcome] = bucket.get(outcome, 0) + 1
    lines += [
        "",
        "### Bad-value matrix (`tests/fuzz_harness.py`, full)",
        "",
        f"{len(results)} calls over {len({c.target for c, _, _ in results})} targets in "
        f"{elapsed:.0f} s (watched worker processes).",
        "",
        "| outcome | calls (targets of this change) | calls (detect_changes, stable_phase, "
        "dominant_segment: issue 11) |",
        "|---|---|---|",
    ]
    for outcome in ("named", "answer", "other", "accepted", "bad-result", "mutated",
                    "runtime-warning", "crash", "hang"):
        lines.append(f"| {outcome} | {counts.get(outcome, 0)} | {owned_counts.get(outcome, 0)} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text(text)


if __name__ == "__main__":
    main()
