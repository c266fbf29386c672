"""Per-round cost of :class:`pilotstats.session.BenchmarkSession` versus the readings held.

A session holding ``N`` readings (10k, 40k, 160k) is rebuilt with
:meth:`BenchmarkSession.from_state` (the rounds are replayed, analysed once), then the CPU
time of further :meth:`~BenchmarkSession.record` calls is measured (median of ``--repeat``).
Three harnesses: one reading per round (``readings``), 1,000 unit readings per round
(``unit_readings``, warm-up removal off so that only the analyses are timed), both on an
AR(1) series (phi 0.5, so the subsession size is above 1), and one reading per round of a
series with a level shift halfway (``level_shift``: no subsession size qualifies, the worst
case of the scan). The target (+-0.001 %) needs millions of values, so the session never
stops. The figures before the session became
incremental were measured with this script on the tree before that change (commit 60d416c).

Run: ``PYTHONPATH=$PWD python benchmarks/bench_session.py`` (a few seconds per size; the
first call compiles the kernels, outside the timings).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import _compiled  # noqa: F401
import numpy as np

from pilotstats.session import BenchmarkSession

SIZES = (10_000, 40_000, 160_000)
UNITS_PER_ROUND = 1_000


def ar1(rng: np.random.Generator, n: int, phi: float = 0.5) -> np.ndarray:
    """``n`` values of a stationary AR(1) series around 10."""
    noise = rng.normal(0.0, 0.1, n)
    values = np.empty(n)
    previous = 0.0
    for i in range(n):
        previous = phi * previous + noise[i]
        values[i] = previous
    return 10.0 + values


def level_shift(rng: np.random.Generator, n: int, at: int) -> np.ndarray:
    """``n`` values around 10 that step to 11 after ``at`` values."""
    return 10.0 + (np.arange(n) >= at) + 0.01 * rng.normal(size=n)


def state(kind: str, data: np.ndarray) -> dict[str, Any]:
    """A session state holding ``data`` as readings or unit readings."""
    options: dict[str, Any] = {"min_rounds": 10, "max_rounds": None}
    if kind != "unit_readings":
        options["readings_half_width_percent"] = 1e-3
        rounds = [
            {"work": None, "duration": 1.0, "readings": [float(v)], "unit_readings": None}
            for v in data
        ]
    else:
        options.update(unit_readings_half_width_percent=1e-3, warmup_removal="none")
        rounds = [
            {"work": None, "duration": 1.0, "readings": None, "unit_readings": [chunk.tolist()]}
            for chunk in data.reshape(-1, UNITS_PER_ROUND)
        ]
    return {"version": 1, "options": options, "rounds": rounds}


def timed_record(session: BenchmarkSession, kind: str, chunk: np.ndarray) -> float:
    """CPU seconds of recording one round holding ``chunk``."""
    start = time.process_time()
    if kind != "unit_readings":
        session.record(None, 1.0, readings=[float(chunk[0])])
    else:
        session.record(None, 1.0, unit_readings=chunk)
    return time.process_time() - start


def measure(kind: str, size: int, repeat: int, rng: np.random.Generator) -> float:
    """Median CPU seconds of one ``record`` call."""
    step = UNITS_PER_ROUND if kind == "unit_readings" else 1
    if kind == "level_shift":
        data = level_shift(rng, size + repeat * step, size // 2)
    else:
        data = ar1(rng, size + repeat * step)
    session = BenchmarkSession.from_state(state(kind, data[:size]))
    rounds = []
    for r in range(repeat):
        chunk = data[size + r * step : size + (r + 1) * step]
        rounds.append(timed_record(session, kind, chunk))
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="timed rounds per size")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    measure("readings", 1_000, 2, rng)  # compile the kernels outside the timings
    measure("unit_readings", 2_000, 2, rng)
    print(f"{'harness':<14} {'readings':>9} {'record ms':>10}")
    for kind in ("readings", "unit_readings", "level_shift"):
        for size in args.sizes:
            per_round = measure(kind, size, args.repeat, rng)
            print(f"{kind:<14} {size:>9} {per_round * 1e3:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
