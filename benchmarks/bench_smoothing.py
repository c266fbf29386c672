"""Benchmarks of pilotstats.smoothing against pandas (the peer) in the same run.

Usage::

    python benchmarks/bench_smoothing.py [--quick] [--tokio PATH]

1. ``sma`` on 10^3 .. 10^6 irregular timestamps vs pandas
   ``Series.rolling(w, center=True, closed="left").mean()`` on a DatetimeIndex (identical
   definition; the results are checked to agree to 1e-15).
2. The full SC'18 pipeline on the three TOKIO files (about 21k rows, 40 groups): CSV loading
   and cleaning, then ``analyze_regions(preset="sc18-final")``; the per-group pandas route
   (rolling SMAs + crossovers + a per-region loop, as the reference notebooks did) is timed
   on the same frame for comparison.

Steady-state timings are the minimum of several repeats after a warm-up (JIT compiled);
the first call including compilation is reported separately.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

import _compiled  # noqa: F401

import pilotstats
from pilotstats.datasets import read_tokio_summaries
from pilotstats.smoothing import analyze_regions, sma

TARGET = "darshan_normalized_perf_by_max"
METRICS = [
    "contention_bw", "contention_opens", "contention_stats", "contention_ops",
    "fs_ave_mds_cpu", "fs_ave_oss_cpu", "fshealth_ost_most_full_pct",
    "fshealth_ost_overloaded_oss_count", "topology_job_max_radius",
]


def best_of(func: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_sma(sizes: list[int], repeat: int) -> list[str]:
    lines = ["| n | window | pilotstats sma | pandas rolling | ratio | max abs diff |",
             "| --- | --- | --- | --- | --- | --- |"]
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    sma(np.arange(10.0), np.ones(10), 2.0)
    first = time.perf_counter() - start
    for n in sizes:
        seconds = np.sort(rng.integers(0, 10 * 365 * 86400, n)).astype(np.float64)
        values = rng.normal(size=n)
        index = pd.to_datetime(seconds.astype(np.int64), unit="s")
        series = pd.Series(values, index=index)
        for window in ("14D", "49D"):
            ours = best_of(lambda s=seconds, v=values, w=window: sma(s, v, w), repeat)
            peer = best_of(
                lambda s=series, w=window: s.rolling(pd.Timedelta(w), center=True,
                                                     closed="left").mean(), repeat)
            diff = float(np.max(np.abs(
                sma(seconds, values, window)
                - series.rolling(pd.Timedelta(window), center=True, closed="left").mean()
                .to_numpy())))
            lines.append(f"| {n:,} | {window} | {ours * 1e3:.1f} ms | {peer * 1e3:.1f} ms | "
                         f"{ours / peer:.2f} | {diff:.1e} |")
    lines.append(f"\nFirst call including JIT compilation (or cache load): {first:.2f} s")
    return lines


def pandas_pipeline(frame: pd.DataFrame) -> int:
    """Peer route: pandas rolling SMAs per group, crossovers, a loop over regions."""
    anomalous = set()
    for key, rows in frame.groupby(["_test_platform", "_benchmark_id"]):
        index = pd.to_datetime(rows["_datetime_start"].to_numpy(float), unit="s")
        y = pd.Series(rows[TARGET].to_numpy(float), index=index)
        short = y.rolling(pd.Timedelta("14D"), center=True, closed="left").mean().to_numpy()
        long = y.rolling(pd.Timedelta("49D"), center=True, closed="left").mean().to_numpy()
        above = short > long
        cross = np.flatnonzero(above[1:] != above[:-1]) + 1
        for a, b in itertools.pairwise(cross):
            region = rows.iloc[a:b]
            job = region[TARGET].to_numpy().argmin()
            for metric in METRICS:
                if metric not in region:
                    continue
                column = region[metric].to_numpy(float)
                good = column[~np.isnan(column)]
                if good.size == 0:
                    continue
                cutoff = good.max()
                if np.sum(good == cutoff) / good.size < 0.10:
                    anomalous.add((key, a + job))
    return len(anomalous)


def bench_tokio(folder: Path, repeat: int) -> list[str]:
    start = time.perf_counter()
    frame = read_tokio_summaries(folder)
    load = time.perf_counter() - start

    def ours() -> Any:
        return analyze_regions(frame, time="_datetime_start", target=TARGET,
                               group_by=["_test_platform", "_benchmark_id"],
                               preset="sc18-final")

    result = ours()
    analysis = best_of(ours, repeat)
    peer = best_of(lambda: pandas_pipeline(frame), repeat)
    peer_count = pandas_pipeline(frame)
    return [
        "| step | time |", "| --- | --- |",
        f"| read_tokio_summaries (3 CSV.gz, cleaning, filters; {len(frame):,} rows) | "
        f"{load:.2f} s |",
        f"| analyze_regions, sc18-final, 40 groups ({result.counts['regions']} regions, "
        f"{result.counts['records']} records, ranking) | {analysis:.2f} s |",
        f"| full pipeline (load + analysis) | {load + analysis:.2f} s |",
        f"| peer: pandas rolling + per-region loop (anomalous count only: {peer_count}) | "
        f"{peer:.2f} s |",
        f"| ratio analysis / peer | {analysis / peer:.2f} |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--tokio", default=str(Path(__file__).resolve().parents[2] /
                                               "shared" / "datasets" / "tokio"))
    args = parser.parse_args()
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
    repeat = 1 if args.quick else 5
    print(f"pilotstats {pilotstats.__version__}, numpy {np.__version__}, "
          f"pandas {pd.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()} {platform.system()}, {os.cpu_count()} CPUs\n")
    print("## sma vs pandas rolling(center=True, closed='left')\n")
    print("\n".join(bench_sma(sizes, repeat)))
    folder = Path(args.tokio)
    if folder.is_dir():
        print("\n## SC'18 pipeline on the TOKIO data\n")
        print("\n".join(bench_tokio(folder, 1 if args.quick else 3)))
    else:
        print(f"\n(TOKIO data not found at {folder}; pipeline benchmark skipped)")


if __name__ == "__main__":
    main()
