"""Benchmark: DetectStream (streaming ``detect_changes``) against the batch call at 10^5.

Usage::

    python benchmarks/bench_streams.py             # noise and shifts, n = 10^5
    python benchmarks/bench_streams.py --naive     # also: a batch call at every 1,000th value
    python benchmarks/bench_streams.py --stable    # also: StablePhaseStream (method="robust")
    python benchmarks/bench_streams.py --n 6000 --every 100 --naive   # within the EDM limit

For each series (N(0, 1) noise; the warm-up, shifts and spikes of ``bench_detect.py``;
Student-t(2) heavy tails), JIT compilation excluded (a warm-up call first), process CPU
seconds (the machine is shared; wall seconds beside them):

* one batch ``detect_changes`` at n = 10^5 (median of 3);
* 10^5 ``DetectStream.append`` calls, no result (the cost of the appends alone);
* 10^5 appends with ``result()`` after every 1,000th (the streaming pattern), split into
  appends and results; every 10th result is checked against the batch call (outside the
  timing);
* with ``--naive``: the batch call on every 1,000th prefix (what recomputing costs).

Target of issue 26: the appends cost < 10× one batch call at 10^5.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _compiled  # noqa: F401
from bench_detect import make_series

from pilotstats.changepoints import (
    DetectStream,
    StablePhaseStream,
    detect_changes,
    stable_phase,
)

N = 100_000
EVERY = 1_000


def clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def since(start: tuple[float, float]) -> tuple[float, float]:
    cpu, wall = clocks()
    return cpu - start[0], wall - start[1]


def series(name: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(2026)
    if name == "noise":
        return rng.standard_normal(n)
    if name == "heavy":
        return rng.standard_t(2.0, n)
    return make_series(n)[0]


def run(
    x: np.ndarray,
    make: Callable[[], Any],
    batch: Callable[[np.ndarray], Any],
    naive: bool,
    every: int,
) -> dict[str, float]:
    n = x.shape[0]
    batch(x[:2_000])  # compile
    make().extend(x[:2_000])
    out: dict[str, float] = {}
    times = []
    for _ in range(3):
        start = clocks()
        batch(x)
        times.append(since(start))
    out["batch_cpu"] = statistics.median(t[0] for t in times)
    out["batch_wall"] = statistics.median(t[1] for t in times)

    stream = make()
    start = clocks()
    for value in x:
        stream.append(value)
    out["appends_cpu"], out["appends_wall"] = since(start)

    stream = make()
    append_cpu = result_cpu = append_wall = result_wall = 0.0
    mismatches = checked = 0
    for k in range(0, n, every):
        start = clocks()
        for value in x[k : k + every]:
            stream.append(value)
        cpu, wall = since(start)
        append_cpu, append_wall = append_cpu + cpu, append_wall + wall
        start = clocks()
        found = stream.result()
        cpu, wall = since(start)
        result_cpu, result_wall = result_cpu + cpu, result_wall + wall
        if (k // every) % 10 == 9:
            checked += 1
            mismatches += repr(found) != repr(batch(x[: k + every]))
    out.update(
        pattern_append_cpu=append_cpu, pattern_append_wall=append_wall,
        pattern_result_cpu=result_cpu, pattern_result_wall=result_wall,
        checked=checked, mismatches=mismatches,
    )
    if naive:
        start = clocks()
        for k in range(every, n + 1, every):
            batch(x[:k])
        out["naive_cpu"], out["naive_wall"] = since(start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive", action="store_true", help="also time batch calls per 1,000")
    parser.add_argument("--stable", action="store_true", help="also time StablePhaseStream")
    parser.add_argument("--series", nargs="+", default=["noise", "shifts", "heavy"])
    parser.add_argument("--n", type=int, default=N, help="series length (default 10^5)")
    parser.add_argument("--every", type=int, default=EVERY, help="result every k-th append")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    cases: list[tuple[str, Callable[[], Any], Callable[[np.ndarray], Any]]] = [
        ("DetectStream", DetectStream, detect_changes),
    ]
    if args.stable:
        cases.append((
            'StablePhaseStream(method="robust")',
            lambda: StablePhaseStream(method="robust"),
            lambda v: stable_phase(v, method="robust"),
        ))
    print(f"\nn = {args.n:,}, a result every {args.every:,}th append\n")
    print("| stream | series | batch at n CPU s (wall) | n appends CPU s (wall) | "
          "appends / batch | appends + results: appends CPU s | results CPU s "
          "(wall) | all / batch | results == batch | naive batch per result CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, make, batch in cases:
        for name in args.series:
            r = run(series(name, args.n), make, batch, args.naive, args.every)
            total = r["pattern_append_cpu"] + r["pattern_result_cpu"]
            naive = f"{r['naive_cpu']:.1f}" if "naive_cpu" in r else "–"
            print(
                f"| {label} | {name} | {r['batch_cpu']:.3f} ({r['batch_wall']:.3f}) | "
                f"{r['appends_cpu']:.3f} ({r['appends_wall']:.3f}) | "
                f"{r['appends_cpu'] / r['batch_cpu']:.2f} | {r['pattern_append_cpu']:.3f} | "
                f"{r['pattern_result_cpu']:.2f} ({r['pattern_result_wall']:.2f}) | "
                f"{total / r['batch_cpu']:.1f} | "
                f"{r['checked'] - r['mismatches']}/{r['checked']} | {naive} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
