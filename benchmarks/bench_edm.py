"""Benchmark EDM change points: pilotstats vs the PyPI port ``breakout-detection``.

The port runs the reference C++ of ``twitter/BreakoutDetection`` behind pybind11. Both are
timed on the same inputs in the same run (steady state, JIT compilation excluded and
reported separately); the table shows the median of repeats of CPU time (``process_time``,
robust on a shared machine) and wall time, and the ratio port / pilotstats.

Usage::

    python benchmarks/bench_edm.py                  # 1k, 10k (port and ours), 30k to 1e6 ours
    python benchmarks/bench_edm.py --port-30k       # also the port at 30k (about 4 min CPU)
    python benchmarks/bench_edm.py --quick          # 1k and 10k only
    python benchmarks/bench_edm.py --write benchmarks/RESULTS_edm.md
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

import pilotstats
from pilotstats import _config
from pilotstats.changepoints import EdmStream, edm, edm_single

try:
    from importlib.metadata import version as _version

    import breakout as port_module

    PORT_VERSION: str | None = _version("breakout-detection")
except ImportError:  # pragma: no cover - optional peer
    port_module = None
    PORT_VERSION = None


def series(n: int, seed: int = 0) -> np.ndarray:
    """Warm-up-like test series: decaying start, two level shifts, noise and a few spikes."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    x = rng.normal(0.0, 1.0, n) + 3.0 * np.exp(-t / (0.02 * n))
    x[n // 3 :] += 1.0
    x[2 * n // 3 :] -= 0.5
    x[rng.integers(0, n, max(3, n // 500))] += 8.0
    return x


def shifts(n: int, seed: int = 1) -> np.ndarray:
    """Hard case for the pruning: 20 level shifts of N(0, 3) levels in N(0, 1) noise."""
    rng = np.random.default_rng(seed)
    return np.repeat(rng.normal(0.0, 3.0, 20), -(-n // 20))[:n] + rng.normal(0.0, 1.0, n)


def swept_edm(x: np.ndarray, **kwargs: Any) -> Any:
    """``edm`` with the pruning off: the plain sweep over every (t, s) pair."""
    limit = _config.EDM_PRUNE_MIN_POINTS
    _config.EDM_PRUNE_MIN_POINTS = 10**12
    try:
        return edm(x, min_size=30, **kwargs)
    finally:
        _config.EDM_PRUNE_MIN_POINTS = limit


def timed(func: Callable[[], Any], repeats: int) -> tuple[float, float, Any]:
    """Median CPU and wall seconds over ``repeats`` calls, and the last result."""
    cpu, wall = [], []
    result = None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        result = func()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), result


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="only n = 1,000 and 10,000")
    parser.add_argument("--port-30k", action="store_true", help="also time the port at 30k")
    parser.add_argument("--write", type=Path, help="write a markdown report to this path")
    args = parser.parse_args()

    lines: list[str] = []

    def out(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    out("## EDM change points: pilotstats vs breakout-detection (PyPI port)")
    out()
    out(f"- command: `python benchmarks/bench_edm.py {' '.join(sys.argv[1:])}`".rstrip())
    out(
        f"- pilotstats {pilotstats.__version__ if hasattr(pilotstats, '__version__') else '?'}"
        f", numpy {np.__version__}, breakout-detection {PORT_VERSION or 'not installed'}, "
        f"Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.platform()})"
    )
    out(
        "- data: warm-up-like series (decaying start, two level shifts, N(0, 1) noise, spikes);"
        " min_size 30; times are medians of repeats, CPU = process time (the machine is"
        " shared, so wall time can be larger); JIT compilation excluded"
    )

    # first call including compilation (numba cache=True may make this fast)
    c0 = time.perf_counter()
    edm(series(200), min_size=30)
    edm_single(series(200), min_size=30)
    edm_single(series(200), min_size=30, exact=False)
    out(f"- first calls including JIT compilation or cache load: {fmt(time.perf_counter() - c0)}")
    out()

    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 30_000, 100_000, 1_000_000]
    out("### `edm` (EDM-multi, β = 0.008, degree 1) and EDM-percent (percent 0.25)")
    out()
    out(
        "Pruned: the default programme (exact bounds skip candidates from "
        "`_config.EDM_PRUNE_MIN_POINTS` = 5,001 values on); swept: the same call with pruning "
        "off (every (t, s) pair). *shifts*: 20 level shifts of N(0, 3) levels in N(0, 1) "
        "noise, the hard case for the bounds (the objective keeps rising)."
    )
    out()
    out(
        "| n | data | variant | pilotstats CPU | pilotstats wall | swept CPU | swept / pruned | "
        "port CPU | port wall | port / pilotstats (CPU) | same locations |"
    )
    out("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for data, x in (("warm-up", series(n)), ("shifts", shifts(n))):
            if data == "shifts" and not 30_000 <= n <= 100_000:
                continue
            for variant, kwargs in (("multi", {"beta": 0.008}), ("percent", {"percent": 0.25})):
                if (n > 100_000 or data == "shifts") and variant == "percent":
                    continue
                repeats = 5 if n <= 1_000 else (3 if n <= 10_000 else 1)
                cpu, wall, ours = timed(lambda x=x, kw=kwargs: edm(x, min_size=30, **kw), repeats)
                checks = []  # same locations as the swept programme and as the port
                swept_cpu = None
                if 10_000 <= n <= 100_000:
                    swept_cpu, _, swept = timed(
                        lambda x=x, kw=kwargs: swept_edm(x, **kw), repeats
                    )
                    checks.append(list(swept.locations) == list(ours.locations))
                port_cpu = port_wall = None
                run_port = port_module is not None and data == "warm-up" and (
                    n <= 10_000 or (n == 30_000 and args.port_30k and variant == "multi")
                )
                if run_port:
                    port_repeats = 3 if n <= 1_000 else 1
                    port_cpu, port_wall, ref = timed(
                        lambda x=x, kw=kwargs: port_module.breakout(
                            x.tolist(), min_size=30, method="multi", **kw
                        ),
                        port_repeats,
                    )
                    checks.append(list(ours.locations) == ref)
                same = "–" if not checks else ("yes" if all(checks) else "NO")
                ratio = f"{port_cpu / cpu:.1f}x" if port_cpu is not None else "–"
                gain = f"{swept_cpu / cpu:.1f}x" if swept_cpu is not None else "–"
                out(
                    f"| {n:,} | {data} | {variant} | {fmt(cpu)} | {fmt(wall)} | "
                    f"{fmt(swept_cpu)} | {gain} | {fmt(port_cpu)} | {fmt(port_wall)} | "
                    f"{ratio} | {same} |"
                )
    out()

    out("### `edm_single` (EDM-X exact, EDM-tail)")
    out()
    out("| n | variant | pilotstats CPU | port CPU | port / pilotstats (CPU) | same location |")
    out("|---|---|---|---|---|---|")
    for n in (1_000, 10_000):
        x = series(n)
        for exact in (True, False):
            repeats = 3 if n <= 1_000 else 1
            cpu, _, ours = timed(lambda x=x, e=exact: edm_single(x, min_size=30, exact=e), repeats)
            if port_module is not None:
                port_cpu, _, ref = timed(
                    lambda x=x, e=exact: port_module.breakout(
                        x.tolist(), min_size=30, method="amoc", exact=e
                    ),
                    repeats,
                )
                ratio = f"{port_cpu / cpu:.1f}x"
                same = "yes" if list(ours.locations) == ref else "no (expected: tree differs)"
                if exact and same != "yes":
                    same = "NO"
            else:
                port_cpu, ratio, same = None, "–", "–"
            name = "EDM-X" if exact else "EDM-tail"
            out(f"| {n:,} | {name} | {fmt(cpu)} | {fmt(port_cpu)} | {ratio} | {same} |")
    out()

    out("### `EdmStream`: cost of one append vs recomputing `edm` on all values")
    out()
    out(
        "| n before append | append 1 value (CPU, mean of 50) | recompute `edm` (CPU) | "
        "recompute / append |"
    )
    out("|---|---|---|---|")
    for n in (1_000, 10_000):
        base = series(n + 50)
        # keep the appended values inside the range so no rescaling is triggered
        low, high = base[:n].min(), base[:n].max()
        tail = np.clip(base[n:], low, high)
        stream = EdmStream(min_size=30)
        stream.extend(base[:n])
        c0 = time.process_time()
        for value in tail:
            stream.append(float(value))
        append_cpu = (time.process_time() - c0) / len(tail)
        full = np.r_[base[:n], tail]
        assert stream.result().locations == edm(full, min_size=30).locations
        recompute_cpu, _, _ = timed(lambda full=full: edm(full, min_size=30), 1 if n > 1_000 else 3)
        out(
            f"| {n:,} | {fmt(append_cpu)} | {fmt(recompute_cpu)} | "
            f"{recompute_cpu / append_cpu:.0f}x |"
        )
    out()

    if args.write:
        args.write.write_text("\n".join(lines) + "\n")
        print(f"written to {args.write}")


if __name__ == "__main__":
    main()
