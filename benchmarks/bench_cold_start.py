"""Benchmark: first calls in fresh processes with an empty numba cache, and import time.

Usage::

    python benchmarks/bench_cold_start.py              # every entry point, 1 process each
    python benchmarks/bench_cold_start.py --repeat 3   # median of 3 fresh processes each
    python benchmarks/bench_cold_start.py --warm       # also the same calls with a warm cache
    python benchmarks/bench_cold_start.py --size 2000  # longer series (default 240)
    python benchmarks/bench_cold_start.py --compile    # interpreted tier off: compile at once
    python benchmarks/bench_cold_start.py --process    # issue 26: whole-process CPU and RSS

Each entry point of ``pilotstats._compile.ENTRY_POINTS`` (the calls ``python -m pilotstats
compile`` makes) runs in its own fresh Python process with ``NUMBA_CACHE_DIR`` set to a new
empty folder. Reported: CPU seconds of the first call (everything after ``import
pilotstats``: the subpackage imports, ``import numba``, LLVM start-up and the compilation of
the kernels the call uses) and its wall time; the issue's target is <= 2 s CPU each. By
default small first calls run interpreted (the kernels' pure-Python twins, identical
results) and compile nothing; ``--size`` lengthens the series past the interpreted tier's
limits, and ``--compile`` turns the tier off to show the full compile cost. The
import line measures ``import pilotstats`` after ``import numpy`` in fresh processes
(target <= 0.3 s), median of 7.

``--process`` (issue 26) measures whole processes instead: a new interpreter with an empty
``NUMBA_CACHE_DIR`` runs ``import pilotstats``, one call of ``detect_changes`` or ``edm`` on
1,000 N(0, 1) points, and reports the CPU time of the whole process (user + sys from
``getrusage(RUSAGE_SELF)``, interpreter start-up and every import included) and its peak
resident set size (``ru_maxrss``); targets <= 0.4 s and <= 80 MB. The same process then
makes later calls at other sizes and reports each call's CPU and wall time and whether it
imported numba (the first sign of a compilation); target: no call pauses more than 0.5 s
to compile.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pilotstats._compile import ENTRY_POINTS  # noqa: E402

CALL = """
import json, sys, time
import pilotstats
import pilotstats._compile as compile_module
compile_module.SERIES_LENGTH = int(sys.argv[2])
ENTRY_POINTS = compile_module.ENTRY_POINTS
cpu, wall = time.process_time(), time.perf_counter()
ENTRY_POINTS[sys.argv[1]]()
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                  "numba": "numba" in sys.modules}))
"""

IMPORT = """
import json, time
import numpy
cpu, wall = time.process_time(), time.perf_counter()
import pilotstats
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}))
"""


PROCESS = """
import json, resource, sys, time
import numpy as np
import pilotstats
from pilotstats.changepoints import detect_changes, edm
function = detect_changes if sys.argv[1] == "detect_changes" else edm
x = np.random.default_rng(1000).standard_normal(1000)
function(x)
usage = resource.getrusage(resource.RUSAGE_SELF)
first = {"cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
         "numba": "numba" in sys.modules, "scipy": "scipy" in sys.modules}
later = []
for n in map(int, sys.argv[2:]):
    y = np.random.default_rng(n).standard_normal(n)
    had = "numba" in sys.modules
    cpu, wall = time.process_time(), time.perf_counter()
    function(y)
    later.append({"n": n, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                  "numba_imported": "numba" in sys.modules and not had})
print(json.dumps({"first": first, "later": later}))
"""

LATER = {"detect_changes": (300, 2_000, 5_000, 20_000, 100_000, 1_000),
         "edm": (300, 1_500, 2_000, 1_000, 5_000)}


def process_table(repeat: int) -> None:
    """Issue 26: whole fresh processes (empty numba cache), then later calls."""
    print("| call in a fresh process (1,000 points) | process CPU s (user + sys) | "
          "peak RSS MB | numba / scipy imported |")
    print("|---|---|---|---|")
    laters: dict[str, list[dict[str, float]]] = {}
    for name in ("detect_changes", "edm"):
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                runs.append(_run(PROCESS, name, *map(str, LATER[name]), cache=cache))
        firsts = [r["first"] for r in runs]
        laters[name] = runs[0]["later"]  # type: ignore[assignment]
        cpus = [f["cpu"] for f in firsts]
        rss = [f["rss_mb"] for f in firsts]
        print(f"| `{name}` | {statistics.median(cpus):.3f} ({min(cpus):.3f}-{max(cpus):.3f}) | "
              f"{statistics.median(rss):.1f} ({min(rss):.1f}-{max(rss):.1f}) | "
              f"{'yes' if any(f['numba'] for f in firsts) else 'no'} / "
              f"{'yes' if any(f['scipy'] for f in firsts) else 'no'} |", flush=True)
    print()
    print("Later calls in the same process (first of the processes above):")
    print()
    print("| function | n | CPU s | wall s | imported numba (compiles) |")
    print("|---|---|---|---|---|")
    for name, rows in laters.items():
        for row in rows:
            print(f"| `{name}` | {int(row['n']):,} | {row['cpu']:.3f} | {row['wall']:.3f} | "
                  f"{'yes' if row['numba_imported'] else 'no'} |")


def _run(code: str, *args: str, cache: str | None = None,
         compile_at_once: bool = False) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PILOTSTATS_INTERPRETED_TIER"] = "0" if compile_at_once else "1"
    env.pop("PILOTSTATS_DISABLE_JIT", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True,
                         capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per entry")
    parser.add_argument("--warm", action="store_true", help="also time with a warm cache")
    parser.add_argument("--entries", nargs="*", default=None, help="subset of entry points")
    parser.add_argument("--size", type=int, default=240, help="series length (default 240)")
    parser.add_argument("--compile", action="store_true",
                        help="interpreted tier off: every kernel compiles on its first call")
    parser.add_argument("--process", action="store_true",
                        help="issue 26: whole-process CPU and RSS of detect_changes and edm "
                             "at 1,000 points, then later calls")
    args = parser.parse_args()
    if args.process:
        print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} "
              f"CPUs, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}; median "
              f"(range) of {args.repeat} fresh processes")
        print()
        process_table(args.repeat)
        print(f"\nload average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        return
    import numba

    print(f"python {platform.python_version()}, numba {numba.__version__}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}; series length {args.size}, "
          f"interpreted tier {'off' if args.compile else 'on'}")
    print()
    print("| entry point | first call, empty cache: CPU s | wall s | numba imported |"
          + (" warm cache: CPU s |" if args.warm else ""))
    print("|---|---|---|---|" + ("---|" if args.warm else ""))
    worst = 0.0
    for name in args.entries or list(ENTRY_POINTS):
        cold = []
        warm = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                run = (CALL, name, str(args.size))
                cold.append(_run(*run, cache=cache, compile_at_once=args.compile))
                if args.warm:
                    warm.append(_run(*run, cache=cache, compile_at_once=args.compile))
        cpu = statistics.median(r["cpu"] for r in cold)
        wall = statistics.median(r["wall"] for r in cold)
        worst = max(worst, cpu)
        extra = f" {statistics.median(r['cpu'] for r in warm):.2f} |" if args.warm else ""
        imported = "yes" if any(r["numba"] for r in cold) else "no"
        print(f"| `{name}` | {cpu:.2f} | {wall:.2f} | {imported} |{extra}", flush=True)
    imports = [_run(IMPORT) for _ in range(7)]
    print()
    print(f"largest first-call CPU: {worst:.2f} s")
    print(f"import pilotstats after numpy: {statistics.median(r['wall'] for r in imports):.3f} s "
          f"wall, {statistics.median(r['cpu'] for r in imports):.3f} s CPU (median of 7)")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
