"""Speed of ``detect_changes`` on heavy-tailed, spiky rounds like pytest-benchmark's.

Run from the repository root::

    python benchmarks/bench_detect_heavy.py            # n = 16,000 and 100,000, analyze 80,000
    python benchmarks/bench_detect_heavy.py --quick    # n = 16,000 only

Data (generated, nothing committed): :func:`pytest_benchmark_like` draws rounds with a
lognormal body (median 36.6 µs, log-sd 0.25), slow structure of the kind real rounds show
(levels that move by a few per cent every 30–3,000 rounds, a slow random walk, a periodic
component) and 1 % spikes of about 100× (GC pauses, scheduler preemption; p99 about 4 ms as in
the real ``test_sort`` benchmark of issue 11). The structure is what made the guard of
``detect_changes`` cycle before the fix: its re-scan/elimination loop is now bounded by
``_config.DETECT_MAX_GUARD_PASSES`` passes (reported as ``guard_passes``).

The script also writes a pytest-benchmark JSON of two benchmarks (21,577 and 59,949 rounds,
the sizes of the real file of issue 11; 81,526 in total) to a temporary directory and times
``pilotstats analyze`` on it (the CLI, in a subprocess, including interpreter start-up).

Peer: ``ruptures`` Binseg (L2 cost, penalty 3·log n, ``min_size=30``) on the same series,
when installed (``pip install -e ".[bench]"``).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _compiled  # noqa: E402, F401

from pilotstats.changepoints import detect_changes, stable_phase  # noqa: E402


def pytest_benchmark_like(n: int, seed: int = 0) -> np.ndarray:
    """Rounds (seconds) with a lognormal body, slow structure and 1 % spikes of ~100×."""
    rng = np.random.default_rng(seed)
    log_level = np.zeros(n)
    i = 0
    while i < n:
        length = int(rng.integers(30, 3000))
        log_level[i : i + length] = rng.normal(0.0, 0.05)
        i += length
    log_level += np.cumsum(rng.normal(0.0, 0.002, n))
    log_level += 0.03 * np.sin(2.0 * np.pi * np.arange(n) / 997.0)
    x = 36.6e-6 * np.exp(log_level + rng.normal(0.0, 0.25, n))
    spikes = rng.random(n) < 0.01
    x[spikes] *= 100.0 * rng.lognormal(0.0, 0.3, int(spikes.sum()))
    return x


def time_detect(n: int, seed: int) -> tuple[float, int, int]:
    x = pytest_benchmark_like(n, seed)
    start = time.perf_counter()
    result = detect_changes(x)
    return time.perf_counter() - start, len(result.locations), result.guard_passes


def time_stable_phase(n: int, seed: int) -> tuple[float, str]:
    """Seconds of ``stable_phase`` (defaults: the equivalence model from n = 1000) and its
    class."""
    x = pytest_benchmark_like(n, seed)
    start = time.perf_counter()
    phase = stable_phase(x)
    return time.perf_counter() - start, phase.classification


def time_ruptures(n: int, seed: int) -> float | None:
    try:
        import ruptures
    except ImportError:
        return None
    x = pytest_benchmark_like(n, seed)
    start = time.perf_counter()
    ruptures.Binseg(model="l2", min_size=30).fit(x).predict(pen=3.0 * np.log(n))
    return time.perf_counter() - start


def write_pytest_benchmark_json(path: Path, seed: int = 0) -> int:
    """A pytest-benchmark ``--benchmark-json`` file of two generated benchmarks."""
    benchmarks = []
    total = 0
    for index, (name, rounds) in enumerate((("test_sort", 21_577), ("test_search", 59_949))):
        data = pytest_benchmark_like(rounds, seed + index).tolist()
        total += rounds
        benchmarks.append(
            {
                "group": None,
                "name": name,
                "fullname": f"tests/test_perf.py::{name}",
                "params": None,
                "param": None,
                "extra_info": {},
                "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5,
                            "max_time": 1.0, "min_time": 5e-06, "warmup": False},
                "stats": {"min": min(data), "max": max(data), "mean": float(np.mean(data)),
                          "rounds": rounds, "iterations": 1, "data": data},
            }
        )
    document = {"machine_info": {}, "commit_info": {}, "benchmarks": benchmarks,
                "datetime": "2026-01-01T00:00:00", "version": "4.0.0"}
    path.write_text(json.dumps(document))
    return total


def time_analyze() -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pytest_benchmark_80k.json"
        rounds = write_pytest_benchmark_json(path)
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pilotstats", "analyze", str(path)],
            env=env, capture_output=True, text=True, check=False,
        )
        elapsed = time.perf_counter() - start
    return elapsed, rounds, done.returncode


def main() -> None:
    quick = "--quick" in sys.argv
    import numba

    print(f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
          f"{os.cpu_count()} CPUs, {platform.machine()}")
    detect_changes(pytest_benchmark_like(2_000))  # JIT compile / cache load
    stable_phase(pytest_benchmark_like(2_000))
    sizes = (16_000,) if quick else (16_000, 100_000)
    print("\n| n | seed | detect_changes (s) | change points | guard passes "
          "| ruptures Binseg l2 (s) | ratio ours/Binseg | stable_phase (s) | class |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for seed in (0, 1, 2):
            seconds, found, passes = time_detect(n, seed)
            peer = time_ruptures(n, seed) if n <= 16_000 else None
            peer_text = f"{peer:.2f}" if peer is not None else "–"
            ratio = f"{seconds / peer:.2f}" if peer else "–"
            phase_seconds, label = time_stable_phase(n, seed)
            print(
                f"| {n:,} | {seed} | {seconds:.2f} | {found} | {passes} "
                f"| {peer_text} | {ratio} | {phase_seconds:.2f} | {label} |"
            )
    if not quick:
        elapsed, rounds, code = time_analyze()
        print(f"\npilotstats analyze on a pytest-benchmark JSON of {rounds:,} rounds "
              f"(2 benchmarks): {elapsed:.1f} s wall, exit code {code}")


if __name__ == "__main__":
    main()
