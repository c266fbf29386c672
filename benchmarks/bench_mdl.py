"""Benchmark: MDL trend partitioning, pilotstats vs jumpavg 0.4.2 in the same run.

Usage::

    python benchmarks/bench_mdl.py                 # jumpavg up to n = 2,000
    python benchmarks/bench_mdl.py --peer-5000     # also jumpavg at n = 5,000 (~1 min+)
    python benchmarks/bench_mdl.py --quick         # small sizes only

Inputs (spec ``specs/mdl.md`` §12): five equal segments of N(100, 1) with steps of several
sigma, and pure Gaussian noise. Times are process CPU seconds, median of repeats, JIT
compilation excluded (the first call, which compiles or loads numba's cache, is reported
separately; a cold compile is measured in a subprocess with an empty cache). Both search
modes of pilotstats are timed: the default pruned mode and the plain programme
(``pruning=False``); both return identical partitions (checked here too).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _compiled  # noqa: F401

from pilotstats.changepoints import mdl_partition

try:
    import jumpavg
except ImportError:  # pragma: no cover
    jumpavg = None


def segments(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(100.0, 1.0, n)
    levels = np.array([0.0, -5.0, 3.0, -2.0, 6.0])
    return x + np.repeat(levels, -(-n // 5))[:n]


def noise(n: int, seed: int = 2) -> np.ndarray:
    return np.random.default_rng(seed).normal(100.0, 1.0, n)


def cpu_time(func: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        func()
        times.append(time.process_time() - start)
    return statistics.median(times)


def peak_memory(func: Callable[[], Any]) -> float:
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def cold_compile_seconds() -> float:
    code = (
        "import time, numpy as np\n"
        "from pilotstats.changepoints import mdl_partition\n"
        "t = time.perf_counter(); mdl_partition(np.arange(1.0, 30.0)); "
        "mdl_partition(np.arange(1.0, 30.0), pruning=False)\n"
        "print(time.perf_counter() - t)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(Path(__file__).parents[1]))
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-5000", action="store_true", help="time jumpavg at n = 5,000")
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()

    import numba

    print("# MDL partitioning benchmark")
    print(f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
          f"jumpavg {'0.4.2' if jumpavg else 'not installed'}, {platform.machine()}, "
          f"{os.cpu_count()} cpus")  # fmt: skip
    t0 = time.perf_counter()
    mdl_partition(segments(50))
    mdl_partition(segments(50), pruning=False)
    print(f"first call in this process (compile or cache load): {time.perf_counter() - t0:.2f} s")
    print(f"cold JIT compile (empty numba cache, subprocess): {cold_compile_seconds():.2f} s")
    print()
    sizes = [100, 1000, 2000] if args.quick else [100, 1000, 2000, 5000, 20000, 100000]
    peer_max = 5000 if args.peer_5000 else 2000
    header = ("| input | n | pilotstats pruned (s) | pilotstats full DP (s) | jumpavg (s) | "
              "ratio pruned | ratio full | groups | peak traced MB (pruned) |")  # fmt: skip
    print(header)
    print("|" + "---|" * 9)
    for name, make in (("5 segments", segments), ("noise", noise)):
        for n in sizes:
            if name == "noise" and n > 20000:
                continue  # no boundary to prune at: O(N²) like the plain programme
            x = make(n)
            repeats = 5 if n <= 5000 else 1
            fast = cpu_time(lambda x=x: mdl_partition(x), repeats)
            full_ok = n <= 20000 and not (name == "noise" and n > 5000)
            full = cpu_time(lambda x=x: mdl_partition(x, pruning=False), 1 if n > 2000 else 3) \
                if full_ok else float("nan")  # fmt: skip
            a = mdl_partition(x)
            if full_ok:
                b = mdl_partition(x, pruning=False)
                assert a.boundaries.tolist() == b.boundaries.tolist()
                assert a.total_bits == b.total_bits
            peer = float("nan")
            if jumpavg is not None and n <= peer_max:
                values = [float(v) for v in x]
                holder: list[Any] = []
                peer = cpu_time(
                    lambda v=values, h=holder: h.append(jumpavg.classify(v)),
                    3 if n <= 1000 else 1,
                )
                ref = holder[-1]
                assert len(ref) == len(a.groups) and abs(ref.bits - a.total_bits) < 1e-9
            memory = peak_memory(lambda x=x: mdl_partition(x)) if n >= 1000 else float("nan")
            def fmt(v: float) -> str:
                return "–" if v != v else f"{v:.4g}"
            print(
                f"| {name} | {n} | {fmt(fast)} | {fmt(full)} | {fmt(peer)} | "
                f"{fmt(peer / fast)} | {fmt(peer / full)} | {len(a.groups)} | {fmt(memory)} |"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
