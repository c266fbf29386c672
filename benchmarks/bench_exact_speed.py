"""Benchmark (issue 26): speed of the exact MDL and EDM searches, against the peers in the
same run.

* ``mdl_partition``: the exact programme (default, with its output-preserving pruning)
  and the bounded-history mode ``max_history=1000`` on noise, three level shifts and
  CSIT-like series (``_csit_like.py``), n = 1e3, 1e4, 1e5; jumpavg 0.4.2 at n = 1e3.
  Agreement of the bounded mode with the exact partition on CSIT-like series (pooled
  boundary Jaccard |exact ∩ bounded| / |exact ∪ bounded| and identical series).
* ``edm`` (EDM-multi, β 0.008, degree 1): serial DP and the parallel DP over all numba
  threads (``_config.EDM_PARALLEL``), n = 1e3, 1e4, 1e5; breakout-detection (PyPI port of
  ``twitter/BreakoutDetection``) at n = 1e3 and 1e4.
* EDM-tail (``edm_single(exact=False)``): n = 1e3 … 1e6 on the warm-up-like series of
  ``bench_edm.py`` and on N(0, 1) noise; the port at 1e3 and 1e4.

CPU = process time (all threads), wall = perf_counter; one repeat at n >= 1e5, otherwise
the median of 3; JIT compilation excluded (warm-up calls first). Every row checks that
the compared outputs agree.

Usage::

    python benchmarks/bench_exact_speed.py [--quick] [--write benchmarks/RESULTS_exact.md]
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _compiled  # noqa: F401
from _csit_like import csit_like

from pilotstats import _config
from pilotstats.changepoints import edm, edm_single, mdl_partition

try:
    import jumpavg
except ImportError:  # pragma: no cover - optional peer
    jumpavg = None
try:
    import breakout as port
except ImportError:  # pragma: no cover - optional peer
    port = None


def warmup_series(n: int, seed: int = 0) -> np.ndarray:
    """``bench_edm.py``'s series: decaying start, two level shifts, N(0, 1) noise, spikes."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    x = rng.normal(0.0, 1.0, n) + 3.0 * np.exp(-t / (0.02 * n))
    x[n // 3 :] += 1.0
    x[2 * n // 3 :] -= 0.5
    x[rng.integers(0, n, max(3, n // 500))] += 8.0
    return x


def mdl_noise(n: int) -> np.ndarray:
    return np.random.default_rng(2).normal(100.0, 1.0, n)


def mdl_shifts(n: int) -> np.ndarray:
    return mdl_noise(n) + np.repeat([0.0, -5.0, 3.0], -(-n // 3))[:n]


def timed(func: Callable[[], Any], repeats: int) -> tuple[float, float, Any]:
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
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n <= 1e4 only")
    parser.add_argument("--write", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    lines: list[str] = []

    def out(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    import numba

    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    load = os.getloadavg()
    out("## Exact MDL and EDM searches: speed (issue 26)")
    out()
    out(f"- command: `python benchmarks/bench_exact_speed.py {' '.join(sys.argv[1:])}`".rstrip())
    out(
        f"- Python {platform.python_version()}, numpy {np.__version__}, numba "
        f"{numba.__version__} ({numba.get_num_threads()} threads), jumpavg "
        f"{'0.4.2' if jumpavg else 'not installed'}, breakout-detection "
        f"{'0.3.0' if port else 'not installed'}, {os.cpu_count()} CPUs"
    )
    out(f"- load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    # warm-up: compile every kernel timed below
    mdl_partition(mdl_shifts(3000))
    mdl_partition(mdl_shifts(3000), max_history=100)
    edm(warmup_series(300), min_size=30)
    _config.EDM_PARALLEL = True
    edm(warmup_series(300), min_size=30)
    _config.EDM_PARALLEL = False
    edm_single(warmup_series(300), min_size=30, exact=False)
    out()

    out("### `mdl_partition`: exact programme vs `max_history=1000`")
    out()
    out("| input | n | exact CPU | bounded CPU | jumpavg CPU | jumpavg / exact | "
        "groups exact | groups bounded |")  # fmt: skip
    out("|---|---|---|---|---|---|---|---|")
    for name, make in (
        ("noise", mdl_noise),
        ("3 shifts", mdl_shifts),
        ("CSIT-like", lambda n: csit_like(n, 0)),
    ):
        for n in sizes:
            x = make(n)
            repeats = 1 if n >= 100_000 else 3
            exact_cpu, _, exact = timed(lambda x=x: mdl_partition(x), repeats)
            bounded_cpu, _, bounded = timed(
                lambda x=x: mdl_partition(x, max_history=1000), repeats
            )
            peer_cpu: float | None = None
            ratio = "–"
            if jumpavg is not None and n <= 1_000:
                values = [float(v) for v in x]
                peer_cpu, _, ref = timed(lambda v=values: jumpavg.classify(v), 1)
                assert len(ref) == len(exact.groups)
                ratio = f"{peer_cpu / exact_cpu:.0f}x"
            out(
                f"| {name} | {n:,} | {fmt(exact_cpu)} | {fmt(bounded_cpu)} | {fmt(peer_cpu)} |"
                f" {ratio} | {len(exact.groups)} | {len(bounded.groups)} |"
            )
    out()

    out("### `mdl_partition(max_history=H)`: agreement with the exact partition, CSIT-like")
    out()
    out("| series × n | H | pooled boundary agreement | identical series | "
        "boundaries (exact) | exact CPU (all) | bounded CPU (all) |")  # fmt: skip
    out("|---|---|---|---|---|---|---|")
    groups = [(40, 5_000), (12, 20_000)]
    if not args.quick:
        groups.append((3, 100_000))
    for count, n in groups:
        exact_sets = []
        exact_total = 0.0
        series = [csit_like(n, seed) for seed in range(count)]
        for x in series:
            cpu, _, res = timed(lambda x=x: mdl_partition(x), 1)
            exact_total += cpu
            exact_sets.append(set(res.boundaries.tolist()))
        for history in (250, 500, 1000):
            inter = union = same = 0
            bounded_total = 0.0
            for x, exact_set in zip(series, exact_sets, strict=True):
                cpu, _, res = timed(lambda x=x, h=history: mdl_partition(x, max_history=h), 1)
                bounded_total += cpu
                got = set(res.boundaries.tolist())
                inter += len(exact_set & got)
                union += len(exact_set | got)
                same += exact_set == got
            out(
                f"| {count} × {n:,} | {history} | {inter / max(union, 1):.4%} | "
                f"{same}/{count} | {sum(len(s) for s in exact_sets)} | {fmt(exact_total)} | "
                f"{fmt(bounded_total)} |"
            )
    out()

    out("### `edm` (EDM-multi, β 0.008, degree 1, min_size 30): serial and parallel DP")
    out()
    out("| n | serial CPU | serial wall | parallel CPU | parallel wall | port CPU | "
        "port / serial (CPU) | same locations |")  # fmt: skip
    out("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        x = warmup_series(n)
        repeats = 1 if n >= 100_000 else 3
        s_cpu, s_wall, serial = timed(lambda x=x: edm(x, min_size=30, beta=0.008), repeats)
        _config.EDM_PARALLEL = True
        try:
            p_cpu, p_wall, parallel = timed(lambda x=x: edm(x, min_size=30, beta=0.008), repeats)
        finally:
            _config.EDM_PARALLEL = False
        same = list(serial.locations) == list(parallel.locations)
        port_cpu = None
        if port is not None and n <= 10_000:
            port_cpu, _, ref = timed(
                lambda x=x: port.breakout(x.tolist(), min_size=30, method="multi", beta=0.008),
                1,
            )
            same = same and list(serial.locations) == ref
        ratio = f"{port_cpu / s_cpu:.0f}x" if port_cpu else "–"
        out(
            f"| {n:,} | {fmt(s_cpu)} | {fmt(s_wall)} | {fmt(p_cpu)} | {fmt(p_wall)} | "
            f"{fmt(port_cpu)} | {ratio} | {'yes' if same else 'NO'} |"
        )
    out()

    out("### EDM-tail (`edm_single(exact=False)`, min_size 30, paper tree)")
    out()
    out("| input | n | CPU | wall | location | port CPU | port / ours (CPU) | same location |")
    out("|---|---|---|---|---|---|---|---|")
    tail_sizes = sizes if args.quick else [*sizes, 1_000_000]
    for name, make in (
        ("warm-up-like", warmup_series),
        ("noise", lambda n: np.random.default_rng(1).normal(size=n)),
    ):
        for n in tail_sizes:
            x = make(n)
            cpu, wall, res = timed(
                lambda x=x: edm_single(x, min_size=30, exact=False), 1 if n >= 100_000 else 3
            )
            port_cpu = None
            same = "–"
            if port is not None and n <= 10_000:
                port_cpu, _, ref = timed(
                    lambda x=x: port.breakout(x.tolist(), min_size=30, method="amoc", exact=False),
                    1,
                )
                same = "yes" if list(res.locations) == ref else "no (the port's tree differs)"
            ratio = f"{port_cpu / cpu:.0f}x" if port_cpu else "–"
            out(
                f"| {name} | {n:,} | {fmt(cpu)} | {fmt(wall)} | {res.location} | "
                f"{fmt(port_cpu)} | {ratio} | {same} |"
            )
    out()
    end = os.getloadavg()
    out(f"- load average at end: {end[0]:.2f} / {end[1]:.2f} / {end[2]:.2f}")
    if args.write:
        args.write.write_text("\n".join(lines) + "\n")
        print(f"written to {args.write}")


if __name__ == "__main__":
    main()
