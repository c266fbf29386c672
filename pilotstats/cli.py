"""Command line: ``pilotstats`` / ``python -m pilotstats``.

Subcommands::

    pilotstats fleet SOURCE [--by COL...] [--order COL] [--value COL] [--json] [--html FILE]
    pilotstats warmup
    pilotstats demo
    pilotstats run [options] -- PROGRAM ARGS...   (see pilotstats.session._cli)
    pilotstats bisect --good REV --bad REV [options] -- PROGRAM ARGS...
                                                  (see pilotstats.session._bisect_cli)
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
and the command exits with its own status (:mod:`pilotstats._pipes`).

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
:mod:`pilotstats.session._cli` and :mod:`pilotstats.session._bisect_cli`). Tracebacks are
printed only with ``--debug`` (accepted anywhere on the command line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main"]


#: Options of analyze / compare / trend and whether each takes a value (filled by _parser).
_FILE_OPTIONS: dict[str, dict[str, bool]] = {}


def _parser() -> argparse.ArgumentParser:
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
    commands.add_parser("demo", help="analyse embedded sample data and print a report")
    from pilotstats._cli_fleet import add_commands

    add_commands(commands)  # fleet, warmup
    from pilotstats.session._bisect_cli import add_bisect_parser

    add_bisect_parser(commands)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
        sub.add_argument("--confidence-level", type=float, default=0.95, metavar="C",
                         help="level of every interval (default 0.95)")
        sub.add_argument("--autocorrelation-limit", type=float, default=0.1, metavar="R",
                         help="limit on the lag-1 autocorrelation of subsession means "
                         "(default 0.1)")
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
        sub.add_argument("--no-progress", action="store_true", help="no progress bars")
        sub.add_argument("--html", default=None, metavar="FILE",
                         help="also write a self-contained HTML report (tables, plots with "
                         "intervals, run structure, command and versions)")

    analyze = commands.add_parser("analyze", help="per benchmark: warm-up, mean with CI "
                                  "(runs as units), variance components, runs needed")
    analyze.add_argument("files", nargs="*", metavar="FILE",
                         help="result files or folders; '--' ends a group of files "
                         "analysed together as the runs of one measurement")
    analyze.add_argument("--half-width-percent", type=float, default=1.0, metavar="P",
                         help="target CI half width in %% of the mean (default 1 = ±1 %%)")
    analyze.add_argument("--run-cost", type=float, default=None, metavar="C",
                         help="cost of starting a run in samples' worth; given, the plan "
                         "also chooses the samples per run")
    analyze.add_argument("--benchmark", action="append", default=None, metavar="NAME",
                         help="analyse only this benchmark (repeatable)")
    common(analyze)

    compare = commands.add_parser(
        "compare", help="ratio new/base per benchmark with a run-level interval; exit status "
        "1 on a significant regression, 5 when inconclusive (one run on a side)",
        usage="pilotstats compare [options] BASE... -- NEW...  (or BASE NEW)")
    compare.add_argument("files", nargs="*", metavar="FILE",
                         help="BASE... -- NEW...: the baseline's files, '--', the new files "
                         "(each file its own runs); BASE NEW: one file per side")
    compare.add_argument("--min-change-percent", type=float, default=0.0, metavar="P",
                         help="ignore changes smaller than P %% (default 0)")
    compare.add_argument("--allow-missing", action="store_true",
                         help="exit 0 (not 2) when no benchmark could be compared or one is "
                         "not analysable")
    compare.add_argument("--pair", action="append", default=None, metavar="OLD=NEW",
                         help="compare the baseline's benchmark OLD with the new benchmark "
                         "NEW (repeatable; split at the '=' that leaves two existing names)")
    compare.add_argument("--match", default=None, metavar="REGEX",
                         help="pair differently named benchmarks: a name's key is the name "
                         "without the text of REGEX's first match (only its first group, "
                         "if it has groups); equal keys pair, e.g. --match 'f\\d+' pairs "
                         "'sha256sum f100' with 'sha256sum f130'")
    common(compare)

    trend = commands.add_parser("trend", help="MDL partition of per-file means over many "
                                "result files (oldest first)")
    trend.add_argument("files", nargs="*", metavar="FILE",
                       help="results oldest first; with '--', each group of files between "
                       "separators is one result whose files are its runs")
    trend.add_argument("--fail-on-regression", action="store_true",
                       help="exit 1 when a benchmark's newest segment is a regression")
    common(trend)

    for name, sub in (("analyze", analyze), ("compare", compare), ("trend", trend)):
        _FILE_OPTIONS[name] = {option: action.nargs != 0 for action in sub._actions
                               for option in action.option_strings}
    points = commands.add_parser(
        "changepoints", help="significance-tested change points (detect_changes) of a CSV "
        "column or a harness file's benchmark; --method edm for the faithful EDM")
    points.add_argument("file", metavar="FILE")
    points.add_argument("--column", default=None, metavar="C",
                        help="CSV input: numeric column (required for CSV)")
    points.add_argument("--benchmark", default=None, metavar="NAME",
                        help="harness input: the benchmark whose time per work is searched "
                        "(required when the file holds several)")
    points.add_argument("--format", default=None, metavar="NAME",
                        help="harness input: skip format detection")
    points.add_argument("--time-column", default=None, metavar="T",
                        help="column with the time stamp of each row (for the records)")
    points.add_argument("--method", choices=("detect", "edm"), default="detect",
                        help="detect (default): EDM candidates kept only when a rank test "
                        "finds them significant, with p-values; edm: the faithful, untested "
                        "E-Divisive with Medians (BreakoutDetection)")
    points.add_argument("--min-size", type=int, default=None, metavar="N",
                        help="minimum segment length in observations (default 30)")
    points.add_argument("--significance-level", type=float, default=None, metavar="A",
                        help="--method detect: family-wise significance level (default 0.05)")
    points.add_argument("--beta", type=float, default=None,
                        help="--method edm: EDM-multi penalty")
    points.add_argument("--percent", type=float, default=None,
                        help="--method edm: EDM-percent threshold (instead of --beta)")
    points.add_argument("--delimiter", default=",")
    points.add_argument("--json", action="store_true",
                        help="print Otava-like change-point records as JSON")
    from pilotstats.session._cli import add_run_parser

    add_run_parser(commands)
    return parser


def _load(path: str, args: argparse.Namespace) -> Any:
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


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def _out(text: str) -> None:
    """Print to stdout (a closed reader drops it quietly: :mod:`pilotstats._pipes`)."""
    print(text, flush=True)


def _emit(data: Any) -> None:
    _out(json.dumps(data, indent=2, allow_nan=False))


def _cli_text(text: str) -> str:
    """Library advice rephrased with the command line's options."""
    return text.replace("raise autocorrelation_limit, or pass subsession_size explicitly",
                        "or raise --autocorrelation-limit")


def _expand(paths: Sequence[str], notes: list[str] | None = None) -> list[tuple[str, str]]:
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


def _groups(args: argparse.Namespace) -> list[list[str]] | None:
    """The ``--``-separated groups of files (None: no ``--`` was given)."""
    groups = getattr(args, "groups", None)
    if groups is None:
        return None
    return [group for group in [list(args.files), *groups] if group]


def _group_files(group: Sequence[str]) -> list[str]:
    """The files of one group (a folder gives its result files)."""
    return [path for path, _ in _expand(group)]


def _group_label(files: Sequence[str], folder: bool = False) -> str:
    """``1.json +2 files``; with ``folder``, ``base/1.json +2 files`` (its folder too)."""
    first = Path(files[0])
    shown = f"{first.parent.name}/{first.name}" if folder and first.parent.name else first.name
    return shown if len(files) == 1 else f"{shown} +{len(files) - 1} files"


def _group_points(groups: Sequence[Sequence[str]]) -> list[tuple[list[str], str]]:
    """Each group's files and label; labels name the folder too when names repeat."""
    files = [_group_files(group) for group in groups]
    labels = [_group_label(group) for group in files]
    if len(set(labels)) < len(labels):
        labels = [_group_label(group, folder=True) for group in files]
    return list(zip(files, labels, strict=True))


def _analysis_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"confidence_level": args.confidence_level,
            "autocorrelation_limit": args.autocorrelation_limit,
            "detect_warmup": not args.no_warmup_detection, "progress": _progress(args),
            "summary_statistic": args.summary_statistic,
            "assume_runs_equivalent": args.assume_runs_equivalent}


def _analyze_files(files: Sequence[str], args: argparse.Namespace, **options: Any) -> Any:
    """Analysis of one measurement: one file, or several files as its runs."""
    from pilotstats.analysis import analyze

    loaded = [_load(path, args) for path in files]
    return analyze(loaded[0] if len(loaded) == 1 else loaded, **_analysis_options(args),
                   **options)


def _split_groups(parser: argparse.ArgumentParser, arguments: list[str]
                  ) -> tuple[list[str], list[list[str]]]:
    """Split ``CMD [opts] FILES -- FILES [-- FILES]`` at each ``--`` into file groups.

    Options written after a ``--`` (``... -- new.json --json``) are moved back in front,
    with their value when they take one; every other token after a ``--`` is a file.
    """
    del parser  # the file commands' options are recorded in _FILE_OPTIONS
    takes_value = _FILE_OPTIONS[arguments[0]]
    cut = arguments.index("--")
    head, groups = arguments[:cut], [list[str]()]
    tokens = iter(arguments[cut + 1:])
    for token in tokens:
        name = token.split("=", 1)[0]
        if token == "--":
            groups.append([])
        elif token.startswith("--") and name in takes_value:
            head.append(token)
            if takes_value[name] and "=" not in token:
                head.append(next(tokens, ""))
        else:
            groups[-1].append(token)
    return head, groups


def _check_files(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors of the file lists (argparse's exit status 2 with the usage line)."""
    if args.command not in ("analyze", "compare", "trend"):
        return
    groups = _groups(args)
    if not args.files and not groups:
        parser.error(f"{args.command}: give at least one result file")
    if args.command != "compare":
        return
    if groups is None and len(args.files) != 2:
        parser.error(f"compare: got {len(args.files)} file(s) without '--'; give BASE NEW "
                     "(one file per side) or BASE... -- NEW... (several files per side)")
    if groups is not None and (len(groups) != 2 or len(args.groups) != 1):
        parser.error("compare: give the baseline's files, one '--', then the new files "
                     f"(got {len(groups)} non-empty group(s))")


def _run_analyze(args: argparse.Namespace) -> int:
    groups = _groups(args)
    targets = ([(path, [path]) for path, _ in _expand(args.files)] if groups is None
               else [(" ".join(files), files) for files in map(_group_files, groups)])
    results = [(label, _analyze_files(files, args, half_width_percent=args.half_width_percent,
                                      benchmarks=args.benchmark, run_cost=args.run_cost))
               for label, files in targets]
    if args.html:
        from pilotstats._cli_html import write_analyze_html

        write_analyze_html(args, targets, results)
    if args.json:
        _emit({"command": "analyze",
               "results": [{**report.to_dict(), "file": label} for label, report in results]})
    else:
        blocks = []
        for label, report in results:
            blocks.append(f"{label}\n{report}" if len(results) > 1 else str(report))
        _out(_cli_text("\n\n".join(blocks)))
    return 0


def _compare_sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The baseline's and the new files (``BASE... -- NEW...`` or ``BASE NEW``)."""
    groups = _groups(args)
    if groups is None:
        for path in args.files:
            if Path(path).is_dir():
                raise SystemExit(f"pilotstats: {path} is a folder; compare takes result "
                                 "files (BASE... -- NEW...; use trend for a folder of results)")
        return [args.files[0]], [args.files[1]]
    base, new = (_group_files(group) for group in groups)
    return base, new


def _side_text(files: Sequence[str]) -> str:
    return files[0] if len(files) == 1 else f"{len(files)} files: {', '.join(files)}"


def _run_compare(args: argparse.Namespace) -> int:
    from pilotstats.analysis import compare

    base_files, new_files = _compare_sides(args)
    loaded = [[_load(path, args) for path in files] for files in (base_files, new_files)]
    options = _analysis_options(args)
    report = compare(*(side[0] if len(side) == 1 else side for side in loaded),
                     min_change_percent=args.min_change_percent, pairs=args.pair,
                     match=args.match, **options)
    unanalysable = [c.name for c in report if c.verdict == "not analysable"]
    undecided = list(report.inconclusive)
    compared = len(report) - len(unanalysable) - len(undecided)
    incomplete = compared + len(undecided) == 0 or bool(unanalysable)
    runs = sorted({(c.base_n_runs, c.new_n_runs) for c in report})
    summary = (f"compared {compared} of {len(report) + len(report.only_in_base)} baseline "
               f"benchmark(s) ({'; '.join(f'{b} vs {n} runs' for b, n in runs) or 'no runs'}"
               f"): {len(report.regressions)} regression(s), "
               f"{len(report.improvements)} improvement(s), {len(undecided)} inconclusive, "
               f"{len(unanalysable)} not analysable, {len(report.only_in_base)} only in the "
               f"baseline, {len(report.only_in_new)} only in the new results")
    if incomplete:
        summary += ("; incomplete comparison (allowed by --allow-missing)" if args.allow_missing
                    else "; incomplete comparison: exit status 2 (pass --allow-missing to "
                    "accept it)")
    if undecided and not report.has_regression and not (incomplete and not args.allow_missing):
        summary += (f"; inconclusive: 1 run (or 1 file of runs sharing a process) on a "
                    f"side for {len(undecided)} benchmark(s), so the run-to-run variance is "
                    f"unknown: exit status {EXIT_INCONCLUSIVE} (measure more runs or files, "
                    "or pass --assume-runs-equivalent)")
    if any(c.runs_assumed_equivalent for c in report):
        summary += ("; runs assumed equivalent: intervals of single runs exclude run-to-run "
                    "variation")
    if args.html:
        from pilotstats._cli_html import write_compare_html

        write_compare_html(args, report, loaded, (base_files, new_files))
    if args.json:
        _emit({"command": "compare",
               "base": base_files[0] if len(base_files) == 1 else base_files,
               "new": new_files[0] if len(new_files) == 1 else new_files,
               "base_files": base_files, "new_files": new_files, **report.to_dict(),
               "not_analysable": unanalysable, "inconclusive": undecided,
               "incomplete": incomplete, "summary": summary})
    else:
        _out(_cli_text(f"baseline: {_side_text(base_files)}\nnew:      "
                       f"{_side_text(new_files)}\n{report}\n{summary}"))
    if report.has_regression:
        return 1
    if incomplete and not args.allow_missing:
        return 2
    return EXIT_INCONCLUSIVE if undecided else 0


def _run_trend(args: argparse.Namespace) -> int:
    from pilotstats.analysis import trend

    groups = _groups(args)
    notes: list[str] = []
    if groups is None:
        points = [([path], label) for path, label in _expand(args.files, notes)]
    else:
        points = _group_points(groups)
    reports = [_analyze_files(files, args) for files, _ in points]
    report = trend(reports, labels=[label for _, label in points],
                   confidence_level=args.confidence_level)
    if args.html:
        from pilotstats._cli_html import write_trend_html

        write_trend_html(args, report)
    if args.json:
        _emit({"command": "trend", "files": [files[0] if len(files) == 1 else files
                                             for files, _ in points], "order": notes,
               **report.to_dict()})
    else:
        _out("\n".join([str(report), *(f"order: {note}" for note in notes)]))
    return 1 if args.fail_on_regression and report.regressions else 0


def _series(args: argparse.Namespace) -> tuple[Any, list[str] | None, str]:
    """The searched values, their time stamps (or None) and the metric's name."""
    import csv

    from pilotstats.io._source import read_text

    lower = args.file.lower()
    if not lower.endswith((".csv", ".csv.gz", ".tsv")) or args.format is not None:
        from pilotstats import io

        measurements = io.load(args.file, format=args.format)
        names = measurements.names
        name = args.benchmark or (names[0] if len(names) == 1 else None)
        if name is None or name not in names:
            raise SystemExit(f"pilotstats: {args.file}: choose a benchmark with --benchmark "
                             f"(available: {', '.join(names)})")
        return measurements[name].time_per_work, None, name
    if args.column is None:
        raise SystemExit(f"pilotstats: {args.file} is CSV; name its numeric column with --column")
    from pilotstats._validation import check_delimiter

    delimiter = "\t" if lower.endswith(".tsv") else check_delimiter(args.delimiter)
    text, label = read_text(args.file, kind="CSV")
    reader = csv.DictReader(text.splitlines(), delimiter=delimiter)
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise SystemExit(f"pilotstats: {label}: malformed CSV: {exc}") from None
    header = list(reader.fieldnames or [])
    if args.column not in header:
        raise SystemExit(f"pilotstats: {label}: column {args.column!r} not found "
                         f"(header {header})")
    if not rows:
        raise SystemExit(f"pilotstats: {label}: no data rows below the header")
    values = []
    for number, row in enumerate(rows, start=2):
        try:
            values.append(float(row[args.column]))
        except (TypeError, ValueError):
            raise SystemExit(f"pilotstats: {label}: row {number}, column {args.column}: "
                             f"not a number: {row[args.column]!r}") from None
    times = None
    if args.time_column is not None:
        if args.time_column not in rows[0]:
            raise SystemExit(f"pilotstats: {label}: time column {args.time_column!r} not found")
        times = [row[args.time_column] for row in rows]
    return values, times, args.column


def _run_changepoints(args: argparse.Namespace) -> int:
    from pilotstats.changepoints import ChangePoints, detect_changes, edm

    values, times, metric = _series(args)
    result: ChangePoints
    options: dict[str, Any] = {}
    if args.min_size is not None:
        options["min_size"] = args.min_size
    if args.method == "detect":
        if args.beta is not None or args.percent is not None:
            raise SystemExit("pilotstats: --beta and --percent belong to --method edm")
        if args.significance_level is not None:
            options["significance_level"] = args.significance_level
        result = detect_changes(values, **options)
    else:
        if args.significance_level is not None:
            raise SystemExit("pilotstats: --significance-level belongs to --method detect "
                             "(the faithful EDM tests nothing)")
        options.setdefault("min_size", 30)
        if args.percent is not None:
            options["percent"] = args.percent
        elif args.beta is not None:
            options["beta"] = args.beta
        result = edm(values, **options)
    records = result.to_records(metric, times, otava_keys=True)
    if args.json:
        _emit({"command": "changepoints", "file": args.file, "column": metric,
               "method": args.method, "result": result.to_dict(), "records": records})
    else:
        lines = [str(result)]
        if args.method == "edm":
            lines.append("  (faithful EDM: candidates are not significance-tested; the "
                         "default --method detect tests them)")
        lines += [f"  {segment}" for segment in result.segments]
        _out("\n".join(lines))
    return 0


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
    from pilotstats._pipes import quiet_pipes

    with quiet_pipes():  # a closed reader (``| head``) ends the output quietly
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    from pilotstats.exceptions import PilotStatsError

    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    arguments = [a for a in arguments if a != "--debug"]
    parser = _parser()
    groups: list[list[str]] | None = None
    if arguments and arguments[0] in ("analyze", "compare", "trend") and "--" in arguments:
        arguments, groups = _split_groups(parser, arguments)
    args = parser.parse_args(arguments)
    args.command_line = ["pilotstats", *(sys.argv[1:] if argv is None else argv)]
    if groups is not None:
        args.groups = groups
    _check_files(parser, args)
    try:
        if hasattr(args, "fleet_handler"):  # fleet, warmup (pilotstats._cli_fleet)
            return int(args.fleet_handler(args))
        if hasattr(args, "bisect_handler"):  # bisect (pilotstats.session._bisect_cli)
            return int(args.bisect_handler(args))
        if args.command == "demo":
            from pilotstats._demo import run_demo

            print(run_demo())
            return 0
        if args.command == "analyze":
            return _run_analyze(args)
        if args.command == "compare":
            return _run_compare(args)
        if args.command == "trend":
            return _run_trend(args)
        if args.command == "run":
            from pilotstats.session._cli import run_command

            return run_command(args)
        return _run_changepoints(args)
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


#: Exit status of :func:`main` for bad input or usage (argparse uses 2 as well).
EXIT_BAD_INPUT = 2
#: Exit status of :func:`main` for an internal error (a bug in pilotstats).
EXIT_INTERNAL_ERROR = 3
#: Exit status of ``compare`` when some benchmark had one run on a side (no verdict).
EXIT_INCONCLUSIVE = 5


def _report(debug: bool) -> None:
    """Print the current exception's traceback when ``--debug`` was given."""
    if debug:
        import traceback

        traceback.print_exc(file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
