"""Coverage of session intervals: rounds as replicates and pooled warm-up removal (issue 23).

Seeded sessions of a simulated benchmark program whose rounds each print unit readings
(per-operation latencies, stable mean 5.0, sd 1) are driven through
:class:`pilotstats.session.BenchmarkSession` built exactly as ``pilotstats run`` builds it
(its own argument parser and session factory, so the options are the command's defaults),
and the 95 % interval of the latency index is checked against the true stable mean.
A session counts as *flagged* when its result says the warm-up could not be removed
(``warmup_kept``). Scenarios:

- ``bench``: the README's ``bench.py 50`` (the first 40 % of each round +3 sigma);
- ``none``: the same rounds without warm-up;
- ``gradual-50`` / ``gradual-500``: a gradual warm-up ``3 sigma exp(-i / tau)``,
  ``tau`` = round length / 10, in rounds of 50 and of 500 readings;
- ``short-20``: rounds of 20 readings whose first 3 are +6 sigma.

Run (about a minute per 200 sessions of 50-reading rounds on one core)::

    PYTHONPATH=$PWD python benchmarks/bench_session_coverage.py --sessions 200
    PYTHONPATH=$PWD python benchmarks/bench_session_coverage.py --preset strict

``--extra ARG`` passes further ``pilotstats run`` options (e.g. ``--extra=--min-size=8``).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import _compiled  # noqa: F401
import numpy as np

from pilotstats.cli import _parser
from pilotstats.cli._run_config import config_from_args, new_session
from pilotstats.session import BenchmarkSession, SessionResult
from pilotstats.session._runner import parse_pi

TRUE_MEAN, SIGMA = 5.0, 1.0


def _bench(n: int) -> Callable[[np.random.Generator], np.ndarray]:
    def one_round(rng: np.random.Generator) -> np.ndarray:
        values = TRUE_MEAN + rng.normal(0.0, SIGMA, n)
        values[: int(0.4 * n)] += 3.0 * SIGMA
        return values
    return one_round


def _gradual(n: int) -> Callable[[np.random.Generator], np.ndarray]:
    shape = 3.0 * SIGMA * np.exp(-np.arange(n) / (n / 10.0))
    return lambda rng: TRUE_MEAN + shape + rng.normal(0.0, SIGMA, n)


def _short(rng: np.random.Generator) -> np.ndarray:
    values = TRUE_MEAN + rng.normal(0.0, SIGMA, 20)
    values[:3] += 6.0 * SIGMA
    return values


SCENARIOS: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "bench": _bench(50),
    "none": lambda rng: TRUE_MEAN + rng.normal(0.0, SIGMA, 50),
    "gradual-50": _gradual(50),
    "gradual-500": _gradual(500),
    "short-20": _short,
}


def cli_session(preset: str | None, extra: list[str]) -> Callable[[], BenchmarkSession]:
    """A factory of sessions configured as ``pilotstats run [--preset P] ... -- prog``."""
    argv = ["run", "--pi", "latency,ms,0,ordinary,1", *extra]
    if preset is not None:
        argv += ["--preset", preset]
    args = _parser().parse_args([*argv, "--", "prog"])
    config = config_from_args(args)
    pis = [pi for text in args.pi for pi in parse_pi(text)]
    return lambda: new_session(config, pis)


def run_one(make: Callable[[], BenchmarkSession], scenario: str, seed: int) -> SessionResult:
    """One seeded session of a scenario."""
    rng = np.random.default_rng(seed)
    session = make()
    one_round = SCENARIOS[scenario]
    while not session.done:
        session.record(None, 1.0, unit_readings=one_round(rng))
    return session.result()


def measure(make: Callable[[], BenchmarkSession], scenario: str, sessions: int,
            first_seed: int = 0) -> dict[str, Any]:
    """Coverage, flags, width and rounds over seeded sessions."""
    covered = flagged = either = 0
    rounds, widths, cuts = [], [], []
    for seed in range(first_seed, first_seed + sessions):
        result = run_one(make, scenario, seed)
        item = result.unit_readings[0]
        analysis = item.analysis
        assert analysis is not None
        hit = analysis.ci_low <= TRUE_MEAN <= analysis.ci_high
        flag = item.warmup_kept_rounds > 0
        covered += hit
        flagged += flag
        either += hit or flag
        rounds.append(result.n_rounds)
        widths.append(analysis.ci_high - analysis.ci_low)
        cut = getattr(item, "warmup_cut", None)  # absent before issue 23
        cuts.append(cut if cut is not None else math.nan)
    return {
        "coverage": covered / sessions, "flagged": flagged / sessions,
        "covered_or_flagged": either / sessions, "rounds": float(np.median(rounds)),
        "width": float(np.median(widths)), "cut": float(np.nanmedian(cuts)) if cuts else math.nan,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seed of the first session (seeds first .. first + sessions - 1)")
    parser.add_argument("--preset", default=None,
                        help="pilotstats run --preset (default: the command's default)")
    parser.add_argument("--extra", action="append", default=[],
                        help="further pilotstats run options, e.g. --extra=--min-size=8")
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS))
    parser.add_argument("--library", action="store_true",
                        help="BenchmarkSession() with the library's defaults instead")
    args = parser.parse_args()
    make = BenchmarkSession if args.library else cli_session(args.preset, args.extra)
    label = "library BenchmarkSession()" if args.library else args.preset or "default"
    print(f"preset {label} {' '.join(args.extra)}; {args.sessions} sessions per scenario "
          f"(seeds {args.first_seed}-{args.first_seed + args.sessions - 1})")
    print("| scenario | coverage | flagged | covered or flagged | median rounds | "
          "median CI width | median cut | s |")
    print("|---|---|---|---|---|---|---|---|")
    for scenario in args.scenarios:
        start = time.process_time()
        row = measure(make, scenario, args.sessions, args.first_seed)
        print(f"| {scenario} | {row['coverage']:.1%} | {row['flagged']:.1%} | "
              f"{row['covered_or_flagged']:.1%} | {row['rounds']:.0f} | {row['width']:.3f} | "
              f"{row['cut']:.0f} | {time.process_time() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
