"""Loader and analysis speed: pilotstats.io vs the harnesses' own readers, same files.

Run: ``python benchmarks/bench_io.py`` (writes nothing; paste the output into
``benchmarks/RESULTS_io.md``). Needs ``pyperf`` and ``pandas``.

Cases:

- a pyperf suite (``BENCHMARKS`` benchmarks x 20 processes x (1 warm-up + ``VALUES`` values)):
  ``pilotstats.io.load_pyperf`` vs ``pyperf.BenchmarkSuite.load`` (pyperf's own JSON reader,
  which also merges metadata and checks runs), both from the same gzip-compressed file;
- a CSV of samples: ``pilotstats.io.load_csv`` vs ``pandas.read_csv`` (column parsing only);
- the statistics of that suite: ``pilotstats.analysis.analyze`` (subsession CI, sample
  size, no warm-up detection) vs pyperf's per-benchmark ``mean()``/``stdev()`` (reported for
  scale; pyperf computes no interval).

Times are the median of repeats after one warm-up call.
"""

from __future__ import annotations

import gzip
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _compiled  # noqa: F401
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's pilotstats

BENCHMARKS = 40
PROCESSES = 20
VALUES = 50
REPEATS = 5


def timed(function: Callable[[], Any], repeats: int = REPEATS) -> float:
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pyperf_suite(path: Path) -> None:
    rng = np.random.default_rng(0)
    benchmarks = []
    for b in range(BENCHMARKS):
        runs = []
        for _ in range(PROCESSES):
            level = 1e-6 * (1 + b / 10) * (1 + rng.normal(0, 0.01))
            values = (level * (1 + rng.normal(0, 0.02, VALUES))).tolist()
            runs.append({"metadata": {"date": "2026-11-21 06:00:00.000000", "duration": 1.0},
                         "warmups": [[1024, level * 1.2]], "values": values})
        benchmarks.append({"metadata": {"name": f"bench_{b}", "loops": 1024}, "runs": runs})
    document = {"version": "1.0", "metadata": {"unit": "second", "perf_version": "2.10.0"},
                "benchmarks": benchmarks}
    with gzip.open(path, "wt") as handle:
        json.dump(document, handle)


def main() -> int:
    import pandas as pd
    import pyperf

    from pilotstats.analysis import analyze
    from pilotstats.io import load_csv, load_pyperf

    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"pyperf {pyperf.__version__}, pandas {pd.__version__}, {platform.machine()}, "
          f"{platform.processor() or platform.platform()}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        suite_path = Path(tmp) / "suite.json.gz"
        pyperf_suite(suite_path)
        n_samples = BENCHMARKS * PROCESSES * (VALUES + 1)
        ours = timed(lambda: load_pyperf(suite_path))
        theirs = timed(lambda: pyperf.BenchmarkSuite.load(str(suite_path)))
        rows.append((f"load pyperf suite ({n_samples} samples)", ours,
                     "pyperf.BenchmarkSuite.load", theirs))

        rng = np.random.default_rng(1)
        csv_path = Path(tmp) / "samples.csv"
        frame = pd.DataFrame({"bench": np.repeat([f"b{i}" for i in range(10)], 20000),
                              "ns": rng.normal(1000, 10, 200000)})
        frame.to_csv(csv_path, index=False)
        ours = timed(lambda: load_csv(csv_path, value_column="ns", benchmark_column="bench",
                                      time_unit="ns"))
        theirs = timed(lambda: pd.read_csv(csv_path))
        rows.append(("load CSV (200000 rows)", ours, "pandas.read_csv", theirs))

        measurements = load_pyperf(suite_path)
        suite = pyperf.BenchmarkSuite.load(str(suite_path))
        ours = timed(lambda: analyze(measurements, detect_warmup=False, wps_analysis=False), 3)
        theirs = timed(lambda: [(b.mean(), b.stdev()) for b in suite.get_benchmarks()], 3)
        rows.append((f"statistics of {BENCHMARKS} benchmarks", ours,
                     "pyperf mean()+stdev() (no CI)", theirs))

    print(f"{'case':45s} {'pilotstats':>12s} {'peer':>12s} {'ratio':>7s}  peer")
    for case, ours, peer_name, theirs in rows:
        print(f"{case:45s} {ours * 1e3:10.2f}ms {theirs * 1e3:10.2f}ms {ours / theirs:7.2f}  "
              f"{peer_name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
