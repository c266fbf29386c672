"""Benchmark: MdlStream.result() against one append, at a history of 10^3 to 10^5 runs.

Usage::

    python benchmarks/bench_mdl_stream.py

A stream of N(100, 1) runs with a 3-sigma step in the middle is filled to the history
length (JIT compilation excluded); then 100 appends, each followed by a result (the
streaming pattern: the last group grows), and 50 more results with nothing new are timed
one by one (wall seconds, median). Target of issue 14: a result costs at most 2 appends.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _compiled  # noqa: F401

from pilotstats.changepoints import MdlStream


def main() -> None:
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print()
    print("| history (runs) | append ms | result() after each append ms | repeated result() ms "
          "| result / append |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for size in (1_000, 10_000, 100_000):
        x = 100.0 + rng.normal(0.0, 1.0, size + 100)
        x[size // 2:] += 3.0
        stream = MdlStream()
        stream.extend(x[:size])
        stream.result()
        appends, interleaved, results = [], [], []
        for value in x[size:]:
            start = time.perf_counter()
            stream.append(float(value))
            appends.append(time.perf_counter() - start)
            start = time.perf_counter()
            stream.result()
            interleaved.append(time.perf_counter() - start)
        for _ in range(50):
            start = time.perf_counter()
            stream.result()
            results.append(time.perf_counter() - start)
        a, i = statistics.median(appends), statistics.median(interleaved)
        r = statistics.median(results)
        print(f"| {size:,} | {1e3 * a:.3f} | {1e3 * i:.3f} | {1e3 * r:.3f} | "
              f"{max(i, r) / a:.1f} |", flush=True)


if __name__ == "__main__":
    main()
