"""Result files of ``analyze``, ``compare`` and ``trend``: options, loading and file groups.

Several files per side: ``--`` separates groups of files, and each group is one
measurement whose files are its runs (see :mod:`pilotstats.cli`). A folder argument is an
asv results folder or a pytest-benchmark storage folder, read whole, oldest first.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pilotstats.cli._common import progress

__all__ = ["FILE_COMMANDS", "add_file_options", "analysis_options", "analyze_files",
           "check_files", "expand", "group_files", "group_points", "groups", "load",
           "split_groups"]

#: The subcommands that read result files and accept ``--``-separated groups of them.
FILE_COMMANDS = ("analyze", "compare", "trend")


def _add_input_options(sub: argparse.ArgumentParser) -> None:
    """The options that say how the result files are read."""
    sub.add_argument("--format", default=None, metavar="NAME",
                     help="skip format detection: pyperf, pytest-benchmark, asv, "
                     "google-benchmark, hyperfine, jmh, criterion")
    sub.add_argument("--column", default=None, metavar="C",
                     help="CSV input: column holding the time of each sample")
    sub.add_argument("--work-column", default=None, metavar="W",
                     help="CSV input: column holding the work of each sample")
    sub.add_argument("--benchmark-column", default=None, metavar="B",
                     help="CSV input: column holding the benchmark name")
    sub.add_argument("--time-unit", default="s", metavar="U",
                     help="CSV input: unit of the time column (ns, us, ms, s)")


def _add_analysis_options(sub: argparse.ArgumentParser) -> None:
    """The options of the analysis of each measurement."""
    sub.add_argument("--no-warmup-detection", action="store_true",
                     help="do not run stable-phase (warm-up/cool-down) detection")
    sub.add_argument("--summary-statistic", choices=("mean", "median", "min"),
                     default="mean",
                     help="what summarises each run: mean, median or min (median/min "
                     "suit heavy-tailed timings); several runs: the mean over runs of "
                     "each run's median/minimum, every run in blocks of one size, with "
                     "the runs as the units of the interval")
    sub.add_argument("--clock", choices=("real", "cpu"), default=None,
                     help="Google Benchmark input: real_time (default) or cpu_time")
    sub.add_argument("--time", choices=("wall", "user", "user+system"), default=None,
                     help="hyperfine input: wall-clock times (default), user or "
                     "user+system CPU time of each run")
    sub.add_argument("--assume-runs-equivalent", action="store_true",
                     help="with a single run, use blocks of it as the units of the "
                     "interval (it then excludes run-to-run variation, as the output "
                     "says); otherwise one run on a side of compare is inconclusive")


def add_file_options(sub: argparse.ArgumentParser) -> None:
    """The options shared by ``analyze``, ``compare`` and ``trend``."""
    sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sub.add_argument("--confidence-level", type=float, default=0.95, metavar="C",
                     help="level of every interval (default 0.95)")
    sub.add_argument("--autocorrelation-limit", type=float, default=0.1, metavar="R",
                     help="limit on the lag-1 autocorrelation of subsession means "
                     "(default 0.1)")
    _add_input_options(sub)
    _add_analysis_options(sub)
    sub.add_argument("--no-progress", action="store_true", help="no progress bars")
    sub.add_argument("--html", default=None, metavar="FILE",
                     help="also write a self-contained HTML report (tables, plots with "
                     "intervals, run structure, command and versions)")


def load(path: str, args: argparse.Namespace) -> Any:
    """The measurements of one result file (CSV with ``--column``, else format detection)."""
    from pilotstats import io

    if path.lower().endswith((".csv", ".csv.gz", ".tsv")) and args.format is None:
        if args.column is None:
            raise SystemExit(f"pilotstats: {path} is CSV; name its time column with --column")
        return io.load_csv(path, value_column=args.column, work_column=args.work_column,
                           benchmark_column=args.benchmark_column, time_unit=args.time_unit,
                           delimiter="\t" if path.lower().endswith(".tsv") else ",")
    options = {key: value for key, value in (("clock", args.clock), ("time", args.time))
               if value is not None}
    return io.load(path, format=args.format, **options)


def expand(paths: Sequence[str], notes: list[str] | None = None) -> list[tuple[str, str]]:
    """(path, label) of every result: folders (asv results, pytest-benchmark storage) are
    read whole, oldest first; files stand for themselves. ``notes`` receives how each
    folder's results were ordered (asv: equal commit dates)."""
    from pilotstats.io._result_history import result_history

    expanded: list[tuple[str, str]] = []
    for path in paths:
        if Path(path).is_dir():
            history = result_history(path)
            expanded += [(str(e.path), e.label) for e in history]
            if notes is not None and history and history[0].order:
                notes.append(f"{path}: {history[0].order}")
        else:
            expanded.append((path, Path(path).name))
    return expanded


def groups(args: argparse.Namespace) -> list[list[str]] | None:
    """The ``--``-separated groups of files (None: no ``--`` was given)."""
    found = getattr(args, "groups", None)
    if found is None:
        return None
    return [group for group in [list(args.files), *found] if group]


def group_files(group: Sequence[str]) -> list[str]:
    """The files of one group (a folder gives its result files)."""
    return [path for path, _ in expand(group)]


def _group_label(files: Sequence[str], folder: bool = False) -> str:
    """``1.json +2 files``; with ``folder``, ``base/1.json +2 files`` (its folder too)."""
    first = Path(files[0])
    shown = f"{first.parent.name}/{first.name}" if folder and first.parent.name else first.name
    return shown if len(files) == 1 else f"{shown} +{len(files) - 1} files"


def group_points(found: Sequence[Sequence[str]]) -> list[tuple[list[str], str]]:
    """Each group's files and label; labels name the folder too when names repeat."""
    files = [group_files(group) for group in found]
    labels = [_group_label(group) for group in files]
    if len(set(labels)) < len(labels):
        labels = [_group_label(group, folder=True) for group in files]
    return list(zip(files, labels, strict=True))


def analysis_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`pilotstats.analysis.analyze` set by the options."""
    return {"confidence_level": args.confidence_level,
            "autocorrelation_limit": args.autocorrelation_limit,
            "detect_warmup": not args.no_warmup_detection, "progress": progress(args.no_progress),
            "summary_statistic": args.summary_statistic,
            "assume_runs_equivalent": args.assume_runs_equivalent}


def analyze_files(files: Sequence[str], args: argparse.Namespace, **options: Any) -> Any:
    """Analysis of one measurement: one file, or several files as its runs."""
    from pilotstats.analysis import analyze

    loaded = [load(path, args) for path in files]
    return analyze(loaded[0] if len(loaded) == 1 else loaded, **analysis_options(args),
                   **options)


def _takes_value(parser: argparse.ArgumentParser, command: str) -> dict[str, bool]:
    """The options of the subcommand ``command`` and whether each takes a value."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = action.choices[command]
    return {option: item.nargs != 0 for item in sub._actions for option in item.option_strings}


def split_groups(parser: argparse.ArgumentParser, arguments: list[str]
                 ) -> tuple[list[str], list[list[str]]]:
    """Split ``CMD [opts] FILES -- FILES [-- FILES]`` at each ``--`` into file groups.

    Options written after a ``--`` (``... -- new.json --json``) are moved back in front,
    with their value when they take one; every other token after a ``--`` is a file.
    """
    takes_value = _takes_value(parser, arguments[0])
    cut = arguments.index("--")
    head, found = arguments[:cut], [list[str]()]
    tokens = iter(arguments[cut + 1:])
    for token in tokens:
        name = token.split("=", 1)[0]
        if token == "--":
            found.append([])
        elif token.startswith("--") and name in takes_value:
            head.append(token)
            if takes_value[name] and "=" not in token:
                head.append(next(tokens, ""))
        else:
            found[-1].append(token)
    return head, found


def check_files(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors of the file lists (argparse's exit status 2 with the usage line)."""
    if args.command not in FILE_COMMANDS:
        return
    found = groups(args)
    if not args.files and not found:
        parser.error(f"{args.command}: give at least one result file")
    if args.command != "compare":
        return
    if found is None and len(args.files) != 2:
        parser.error(f"compare: got {len(args.files)} file(s) without '--'; give BASE NEW "
                     "(one file per side) or BASE... -- NEW... (several files per side)")
    if found is not None and (len(found) != 2 or len(args.groups) != 1):
        parser.error("compare: give the baseline's files, one '--', then the new files "
                     f"(got {len(found)} non-empty group(s))")
