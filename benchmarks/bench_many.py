"""Benchmark: many series at once (detect_many, trend_many) on threads and on Dask.

Usage::

    python benchmarks/bench_many.py                    # 2,000 series x 500 points
    python benchmarks/bench_many.py --series 500       # quicker
    python benchmarks/bench_many.py --dask 1 2 4       # also a LocalCluster scaling table
    python benchmarks/bench_many.py --kernel-share     # also the serial CPU in kernels

Input: a long pandas table of ``--series`` series of ``--points`` N(10, 1) samples, a third
of them with a 1-sigma step in the middle. For each batch function: a plain loop over the
single-series function (the baseline every batch must equal), ``workers=1`` (serial) and
``workers=2`` (two threads; the kernels release the GIL), wall seconds (best of
``--repeat``) and process CPU seconds; the speed-up is serial wall / threaded wall. Results
of every configuration are checked identical to the loop. JIT compilation is excluded
(everything is called once first). With ``--dask``, a ``LocalCluster`` of 1, 2, 4 worker
processes (one thread each) runs the same batch; the table gives wall time and wall time
per series (so the cost of 10^5 series can be read off). With ``--kernel-share``, the
serial batch (``workers=1``) is run again with every compiled-kernel call timed (thread CPU
time, median of ``--repeat``): CPU per series inside kernels (which release the GIL,
including their dispatch) and outside them (Python and NumPy, mostly holding the GIL); the
kernel share bounds what threads can gain (Amdahl).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _compiled  # noqa: F401

from pilotstats.analysis import detect_many, trend_many
from pilotstats.changepoints import detect_changes, mdl_partition


def make_table(n_series: int, n_points: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.normal(10.0, 1.0, (n_series, n_points))
    values[::3, n_points // 2:] += 1.0
    return pd.DataFrame({
        "test": np.repeat([f"t{i:06d}" for i in range(n_series)], n_points),
        "run": np.tile(np.arange(n_points), n_series),
        "value": values.ravel(),
    })


def timed(function: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    best_wall, best_cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = function()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, out


def kernel_share(batch: Callable[..., Any], table: pd.DataFrame, kw: dict[str, Any],
                 repeat: int) -> tuple[float, float, float]:
    """Median thread CPU seconds of a serial batch: total, inside kernels, calls per series."""
    from pilotstats._kernels._jit import LazyKernel

    inside = [0.0, 0]
    plain = LazyKernel.__call__

    def timed_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return plain(self, *args, **kwargs)
        finally:
            inside[0] += time.thread_time() - start
            inside[1] += 1

    totals, kernels = [], []
    LazyKernel.__call__ = timed_call  # type: ignore[method-assign]
    try:
        for _ in range(repeat):
            inside[0], inside[1] = 0.0, 0
            start = time.thread_time()
            batch(table, workers=1, **kw)
            totals.append(time.thread_time() - start)
            kernels.append(inside[0])
    finally:
        LazyKernel.__call__ = plain  # type: ignore[method-assign]
    return statistics.median(totals), statistics.median(kernels), float(inside[1])


def _warm_worker(table: pd.DataFrame, kw: dict[str, Any]) -> None:
    detect_many(table, workers=1, **kw)
    trend_many(table, workers=1, **kw)


def same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    return bool(a.astype(str).equals(b.astype(str)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--points", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--dask", type=int, nargs="*", default=None, metavar="WORKERS")
    parser.add_argument("--kernel-share", action="store_true",
                        help="also the serial CPU per series inside and outside the kernels")
    args = parser.parse_args()
    table = make_table(args.series, args.points)
    series = [g["value"].to_numpy() for _, g in table.groupby("test")]
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{args.series} series x {args.points} points; wall = best of {args.repeat}")
    print()
    print("| function | loop over single calls: wall s | workers=1: wall s (CPU s) | "
          "workers=2: wall s (CPU s) | speed-up 2 threads | identical |")
    print("|---|---|---|---|---|---|")
    cases: list[tuple[str, Callable[..., Any], Callable[[np.ndarray], Any]]] = [
        ("detect_many", detect_many, detect_changes),
        ("trend_many", trend_many, mdl_partition),
    ]
    kw = {"by": "test", "order": "run", "value": "value", "progress": False}
    for name, batch, single in cases:
        batch(table.head(2 * args.points), workers=1, **kw)  # compile outside the timings
        loop_wall, _, _ = timed(lambda single=single: [single(x) for x in series], 1)
        w1, c1, serial = timed(lambda batch=batch: batch(table, workers=1, **kw), args.repeat)
        w2, c2, threaded = timed(lambda batch=batch: batch(table, workers=2, **kw),
                                 args.repeat)
        locations = "locations" if name == "detect_many" else "boundaries"
        expected = [tuple(r.locations) if name == "detect_many" else tuple(r.boundaries)
                    for r in (single(x) for x in series)]
        identical = same(serial, threaded) and serial[locations].tolist() == expected
        print(f"| `{name}` | {loop_wall:.2f} | {w1:.2f} ({c1:.2f}) | {w2:.2f} ({c2:.2f}) | "
              f"{w1 / w2:.2f}x | {identical} |", flush=True)
    if args.kernel_share:
        print()
        print("| function (workers=1) | CPU ms per series | in kernels | outside kernels | "
              "kernel calls per series | kernel share |")
        print("|---|---|---|---|---|---|")
        for name, batch, _ in cases:
            total, inside, calls = kernel_share(batch, table, kw, args.repeat)
            per = 1e3 / args.series
            print(f"| `{name}` | {total * per:.3f} | {inside * per:.3f} | "
                  f"{(total - inside) * per:.3f} | {calls / args.series:.1f} | "
                  f"{inside / total:.1%} |", flush=True)
    if args.dask:
        from distributed import Client, LocalCluster

        print()
        print("| Dask LocalCluster workers | detect_many wall s | per series ms | "
              "trend_many wall s | per series ms | identical to serial | busiest worker CPU s "
              "(detect / trend) |")
        print("|---|---|---|---|---|---|---|")
        reference = {name: batch(table, workers=1, **kw) for name, batch, _ in cases}
        for n_workers in args.dask:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=40)
                client = Client(cluster)
            try:
                cells, identical = [], True
                # compile the kernels in every worker process, outside the timings (a batch
                # of a few series reaches one worker only)
                client.run(_warm_worker, table.head(4 * args.points), kw)
                busiest = []
                for name, batch, _ in cases:
                    wall, _, out = timed(lambda batch=batch, client=client: batch(
                        table, engine="dask", client=client, **kw), args.repeat)
                    identical &= same(out, reference[name])
                    cells += [f"{wall:.2f}", f"{1e3 * wall / args.series:.2f}"]
                    # CPU of each worker process during one more batch: on a loaded machine
                    # the wall times swing with other jobs, the busiest worker's CPU does not
                    # (1 worker's CPU / the busiest of 2 bounds the speed-up on free cores)
                    before = client.run(time.process_time)
                    batch(table, engine="dask", client=client, **kw)
                    after = client.run(time.process_time)
                    busiest.append(max(after[w] - before[w] for w in after))
                print(f"| {n_workers} | {' | '.join(cells)} | {identical} | "
                      f"{busiest[0]:.2f} / {busiest[1]:.2f} |", flush=True)
            finally:
                client.close()
                cluster.close()
    print()
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
