"""``pilotstats bisect --good REV --bad REV [options] -- PROGRAM ARGS...``.

Writes into ``--output DIR``: ``bisect.json`` (the state, after every run; ``--resume``
continues from it), and at the end ``result.json``, ``result.csv`` (one row per measured
commit) and ``summary.md`` (a summary to paste into an issue).

Exit status (the table of every command in the README): 1 the first bad commit was found
(a regression, as for ``compare``); 0 no regression in range; 5 inconclusive (a budget ran
out, a step could not be decided, or skipped commits hide the culprit: no answer, as for
``compare`` and ``run``); 2 bad usage or input (also a reference commit that does not build
or run); 128+N stopped by signal N (the runs so far are kept: ``--resume``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from typing import Any

__all__ = ["EXIT_FOUND", "EXIT_INCONCLUSIVE", "add_parser", "run"]

#: Exit status: the first bad commit was found (a regression, as ``compare``'s 1).
EXIT_FOUND = 1
#: Exit status: the bisection could not name a commit (budget, undecidable step, skips).
EXIT_INCONCLUSIVE = 5


def add_parser(commands: Any) -> None:
    """Register ``bisect`` on the subparsers of the main parser."""
    parser = commands.add_parser(
        "bisect",
        help="find the commit that made a program slower, each step decided statistically",
        usage="pilotstats bisect --good REV --bad REV [options] -- PROGRAM ARGS...",
        description="Bisect the commits between --good and --bad: every commit runs in a "
        "temporary git worktree (your checkout is never touched), interleaved with runs of "
        "both references so that machine drift cancels, and each step is a sequential "
        "test that stops as soon as the answer is clear. Exit status: 1 first bad commit "
        "found, 0 no regression in range, 5 inconclusive, 2 bad usage, 128+N stopped by "
        "signal N (--resume continues).")
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM ARGS",
                        help="the benchmark command, after --; it runs in each commit's "
                        "worktree")
    parser.add_argument("--good", required=True, metavar="REV", help="a commit known good")
    parser.add_argument("--bad", required=True, metavar="REV",
                        help="a later commit known (or suspected) slower")
    parser.add_argument("--repo", default=".", metavar="DIR",
                        help="a directory in the git repository (default: .)")
    parser.add_argument("--build", default=None, metavar="CMD",
                        help="shell command run in each worktree before its runs; commits "
                        "whose build fails are skipped")
    parser.add_argument("--min-change-percent", type=float, default=5.0, metavar="P",
                        help="a regression is a slowdown of at least P %% (default 5)")
    parser.add_argument("--higher-is-better", action="store_true",
                        help="the metric is a throughput (default: a time)")
    parser.add_argument("--column", type=int, default=None, metavar="COL",
                        help="read the metric from CSV column COL (0-based) of the "
                        "program's last output line (default: its wall-clock time)")
    parser.add_argument("--error-probability", type=float, default=0.05, metavar="A",
                        help="bound on the probability of a wrong answer (default 0.05)")
    parser.add_argument("--confidence-level", type=float, default=0.95, metavar="C",
                        help="level of the reported intervals (default 0.95)")
    parser.add_argument("--max-runs", type=int, default=2000, metavar="N",
                        help="program runs in all (default 2000)")
    parser.add_argument("--max-step-runs", type=int, default=60, metavar="N",
                        help="runs of one probed commit before its step is inconclusive "
                        "(default 60)")
    parser.add_argument("--max-duration", type=float, default=None, metavar="S",
                        help="wall-clock budget in seconds")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="seconds one build or run may take")
    parser.add_argument("-o", "--output", default="pilotstats-bisect", metavar="DIR",
                        help="results folder (default pilotstats-bisect)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the bisection stored in --output (give the same "
                        "references, options and program again)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the random order of interleaved runs")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def run(args: argparse.Namespace) -> int:
    """``pilotstats bisect``: print the verdict, write the result files, return the status."""
    from pilotstats.exceptions import InvalidInputError
    from pilotstats.session._bisect import BisectOptions, bisect

    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if not program:
        raise InvalidInputError("give the benchmark program after --, e.g. pilotstats "
                                "bisect --good v1.0 --bad main -- python bench.py")
    received: list[int] = []

    def interrupt(signum: int, frame: Any) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    previous = {number: signal.signal(number, interrupt)
                for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        result = bisect(
            args.good, args.bad, program, repo=args.repo, build=args.build,
            min_change_percent=args.min_change_percent, higher_is_better=args.higher_is_better,
            column=args.column, max_runs=args.max_runs, output_dir=args.output,
            resume=args.resume, options=BisectOptions(
                error_probability=args.error_probability,
                confidence_level=args.confidence_level, max_step_runs=args.max_step_runs,
                max_duration=args.max_duration, timeout=args.timeout, seed=args.seed))
    except KeyboardInterrupt:
        print(f"pilotstats: interrupted; the runs so far are in {args.output}/bisect.json "
              "(continue with --resume and the same arguments)", file=sys.stderr)
        return 128 + (received[0] if received else signal.SIGINT)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    data = result.to_dict()
    _write(os.path.join(args.output, "result.json"),
           json.dumps(data, indent=1, allow_nan=False) + "\n")
    _write(os.path.join(args.output, "result.csv"), result.to_csv())
    _write(os.path.join(args.output, "summary.md"), result.to_markdown())
    if args.json:
        print(json.dumps(data, indent=1, allow_nan=False))
    else:
        print(result)
        for probe in result.probes:
            print(f"  {probe}")
        print(f"results: {args.output}/summary.md, result.json, result.csv")
    if result.verdict == "found":
        return EXIT_FOUND
    return 0 if result.verdict == "no regression in range" else EXIT_INCONCLUSIVE

