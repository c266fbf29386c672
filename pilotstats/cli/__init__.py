"""Command line: ``pilotstats`` / ``python -m pilotstats``.

Subcommands::

    pilotstats fleet SOURCE [--by COL...] [--order COL] [--value COL] [--json] [--html FILE]
    pilotstats compile
    pilotstats demo
    pilotstats run [options] -- PROGRAM ARGS...   (see pilotstats.cli._run)
    pilotstats bisect --good REV --bad REV [options] -- PROGRAM ARGS...
                                                  (see pilotstats.cli._bisect)
    pilotstats analyze FILE|FOLDER... [-- FILE... ...] [--json] [--half-width-percent 1]
                       [--summary-statistic median] [--run-cost C] [--html FILE]
    pilotstats compare BASE... -- NEW... [--json] [--min-change-percent 0] [--allow-missing]
                       [--assume-runs-equivalent] [--pair OLD=NEW ...] [--match REGEX]
                       [--html FILE]
    pilotstats compare BASE NEW          (one file per side)
    pilotstats trend FILE|FOLDER... [--json] [--fail-on-regression] [--html FILE]
    pilotstats trend FILE... -- FILE... -- FILE...   (several files per result)
    pilotstats changepoints FILE [--column C | --benchmark B] [--method detect|edm] [--json]

Result files of pyperf, pytest-benchmark, asv, Google Benchmark, hyperfine, JMH and
criterion.rs are recognised from their content; CSV files need ``--column``. A FOLDER
argument of ``analyze``/``trend`` is an asv results folder or a pytest-benchmark storage
folder (``.benchmarks``), read whole in commit/time order. Output piped into a closed
reader (``| head``) ends quietly, for every subcommand: the rest of the output is dropped
and the command exits with its own status (:mod:`pilotstats.cli._pipes`).

Several files per side (one convention for ``analyze``, ``compare`` and ``trend``): ``--``
separates groups of files, and each group is ONE measurement whose files are its runs.
A file with its own replicate structure (pyperf processes, Google Benchmark repetitions,
hyperfine runs, asv processes, JMH forks) contributes those runs, distinct from the runs of
the other files; a file without one (pytest-benchmark) is one run. ``compare BASE... --
NEW...`` compares two groups (``compare BASE NEW`` without ``--``: one file per side);
``analyze F1 F2 --`` analyses F1 and F2 together; ``trend A1 A2 -- B1 B2 -- C1 C2`` has
three results of two files each. Without ``--`` every file of ``analyze``/``trend`` is a
measurement of its own. The outputs say how many runs each side had.

Exit status (for CI jobs):

* 0 — success;
* 1 — a regression was found (``compare`` finds a significant regression, or ``trend``
  ends in one with ``--fail-on-regression``); never used for errors;
* 2 — bad input or usage: unreadable, corrupt or malformed files (also corrupt gzip, JSON
  nested too deeply, numbers beyond the float64 range, oversized CSV fields), invalid
  options, or data the analysis cannot use; also ``compare`` when nothing could be
  compared or a benchmark is not analysable (unless ``--allow-missing``); a one-line
  message says what to fix;
* 3 — internal error (a bug in pilotstats): a one-line message asks for a report;
* 5 — ``compare`` is inconclusive: no regression was found, but some benchmark had one
  run on a side, so the run-to-run variance is unknown and it has no verdict
  ("inconclusive: 1 run per side"); measure more runs (processes, repetitions, files)
  or pass ``--assume-runs-equivalent``.

``pilotstats run`` and ``pilotstats bisect`` have their own statuses (see
:mod:`pilotstats.cli._run` and :mod:`pilotstats.cli._bisect`). Tracebacks are
printed only with ``--debug`` (accepted anywhere on the command line).

Every subcommand is a module of this package with ``add_parser(subparsers)`` and
``run(args) -> int``, registered in :data:`COMMANDS`; :func:`main` dispatches on
``args.command``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from pilotstats.cli import (
    _analyze,
    _bisect,
    _changepoints,
    _compare,
    _compile,
    _demo,
    _fleet,
    _run,
    _trend,
)
from pilotstats.cli._common import EXIT_BAD_INPUT, EXIT_INCONCLUSIVE, EXIT_INTERNAL_ERROR
from pilotstats.cli._files import FILE_COMMANDS, check_files, split_groups

__all__ = ["COMMANDS", "EXIT_BAD_INPUT", "EXIT_INCONCLUSIVE", "EXIT_INTERNAL_ERROR", "main"]

#: Every subcommand: its name and its module (``add_parser(subparsers)``, ``run(args)``),
#: in the order of ``pilotstats --help``.
COMMANDS: dict[str, ModuleType] = {
    "demo": _demo,
    "fleet": _fleet,
    "compile": _compile,
    "bisect": _bisect,
    "analyze": _analyze,
    "compare": _compare,
    "trend": _trend,
    "changepoints": _changepoints,
    "run": _run,
}

def _parser() -> argparse.ArgumentParser:
    """The ``pilotstats`` parser with every subcommand of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="pilotstats",
        description="Statistically honest performance measurements: analyse, compare and "
        "track benchmark results of pyperf, pytest-benchmark, asv, Google Benchmark, "
        "hyperfine, JMH and criterion.rs.",
        epilog="exit status: 0 ok, 1 regression found, 2 bad input or usage, 3 internal "
        "error, 5 compare inconclusive (one run on a side). Several files per side: "
        "'--' separates groups of files, each group one measurement whose files are its "
        "runs (compare BASE... -- NEW...). --debug (anywhere) prints tracebacks.",
    )
    parser.add_argument("--debug", action="store_true",
                        help="print a traceback on errors (accepted anywhere)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS.values():
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    0 ok, 1 regression found, 2 bad input or usage, 3 internal error, 5 ``compare``
    inconclusive (see the module docstring). ``--debug`` anywhere in ``argv`` prints
    tracebacks.

    Examples
    --------
    >>> import contextlib, io, json, os, tempfile
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> folder = tempfile.mkdtemp()
    >>> def export(name, times):
    ...     path = os.path.join(folder, name)
    ...     with open(path, "w") as handle:
    ...         json.dump({"results": [{"command": "job", "times": times}]}, handle)
    ...     return path
    >>> base = [export(f"base{i}.json", (0.100 + rng.normal(0, 0.001, 20)).tolist())
    ...         for i in range(3)]                # three hyperfine exports per side
    >>> slow = [export(f"new{i}.json", (0.105 + rng.normal(0, 0.001, 20)).tolist())
    ...         for i in range(3)]
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     status = main(["compare", *base, "--", *slow])
    >>> status, "1 significant regression(s)" in out.getvalue()
    (1, True)
    """
    from pilotstats.cli._pipes import quiet_pipes

    with quiet_pipes():  # a closed reader (``| head``) ends the output quietly
        return _main(argv)


def _parse(argv: Sequence[str] | None) -> tuple[argparse.Namespace, bool]:
    """The parsed arguments (file groups split at ``--``) and whether ``--debug`` was given."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    arguments = [a for a in arguments if a != "--debug"]
    parser = _parser()
    groups: list[list[str]] | None = None
    if arguments and arguments[0] in FILE_COMMANDS and "--" in arguments:
        arguments, groups = split_groups(parser, arguments)
    args = parser.parse_args(arguments)
    args.command_line = ["pilotstats", *(sys.argv[1:] if argv is None else argv)]
    if groups is not None:
        args.groups = groups
    check_files(parser, args)
    return args, debug


def _main(argv: Sequence[str] | None) -> int:
    from pilotstats.exceptions import PilotStatsError

    args, debug = _parse(argv)
    try:
        return int(COMMANDS[args.command].run(args))
    except PilotStatsError as exc:
        _report(debug)
        print(f"pilotstats: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # unreadable output/input outside the loaders
        _report(debug)
        print(f"pilotstats: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            return EXIT_BAD_INPUT
        raise
    except Exception as exc:  # a bug: exit 3, distinguishable from a regression (1)
        _report(debug)
        print(f"pilotstats: internal error: {type(exc).__name__}: {exc}"[:2000]
              + ("" if debug else " (rerun with --debug for the traceback)")
              + "; please report it", file=sys.stderr)
        return EXIT_INTERNAL_ERROR


def _report(debug: bool) -> None:
    """Print the current exception's traceback when ``--debug`` was given."""
    if debug:
        import traceback

        traceback.print_exc(file=sys.stderr)
