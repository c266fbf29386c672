"""Command line: ``pilotstats`` / ``python -m pilotstats``.

Subcommands::

    pilotstats demo
    pilotstats analyze FILE... [--json] [--target-percent 1] [--confidence-level 0.95]
    pilotstats compare BASE NEW [--json] [--min-change-percent 0]
    pilotstats trend FILE... [--json]
    pilotstats changepoints FILE --column C [--time-column T] [--json]

Result files of pyperf, pytest-benchmark, asv, Google Benchmark, hyperfine, JMH and
criterion.rs are recognised from their content; CSV files need ``--column``.

Exit status (for CI jobs):

* 0 — success;
* 1 — a regression was found (``compare`` finds a significant regression, or ``trend``
  ends in one with ``--fail-on-regression``); never used for errors;
* 2 — bad input or usage: unreadable, corrupt or malformed files (also corrupt gzip, JSON
  nested too deeply, numbers beyond the float64 range, oversized CSV fields), invalid
  options, or data the analysis cannot use; a one-line message says what to fix;
* 3 — internal error (a bug in pilotstats): a one-line message asks for a report.

Tracebacks are printed only with ``--debug`` (accepted anywhere on the command line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pilotstats",
        description="Statistically honest performance measurements: analyse, compare and "
        "track benchmark results of pyperf, pytest-benchmark, asv, Google Benchmark, "
        "hyperfine, JMH and criterion.rs.",
        epilog="exit status: 0 ok, 1 regression found, 2 bad input or usage, 3 internal "
        "error. --debug (anywhere) prints tracebacks.",
    )
    parser.add_argument("--debug", action="store_true",
                        help="print a traceback on errors (accepted anywhere)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("demo", help="analyse embedded sample data and print a report")

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
        sub.add_argument("--no-progress", action="store_true", help="no progress bars")

    analyze = commands.add_parser("analyze", help="per benchmark: warm-up, mean with CI, "
                                  "subsession size, samples needed")
    analyze.add_argument("files", nargs="+", metavar="FILE")
    analyze.add_argument("--target-percent", type=float, default=1.0, metavar="P",
                         help="target CI half-width in %% of the mean (default 1 = ±1 %%)")
    analyze.add_argument("--benchmark", action="append", default=None, metavar="NAME",
                         help="analyse only this benchmark (repeatable)")
    common(analyze)

    compare = commands.add_parser("compare", help="Welch comparison per benchmark; exit "
                                  "status 1 on a significant regression")
    compare.add_argument("base", metavar="BASE")
    compare.add_argument("new", metavar="NEW")
    compare.add_argument("--min-change-percent", type=float, default=0.0, metavar="P",
                         help="ignore changes smaller than P %% (default 0)")
    common(compare)

    trend = commands.add_parser("trend", help="MDL partition of per-file means over many "
                                "result files (oldest first)")
    trend.add_argument("files", nargs="+", metavar="FILE")
    trend.add_argument("--fail-on-regression", action="store_true",
                       help="exit 1 when a benchmark's newest segment is a regression")
    common(trend)

    points = commands.add_parser("changepoints", help="EDM change points of a CSV column")
    points.add_argument("file", metavar="FILE")
    points.add_argument("--column", required=True, metavar="C", help="numeric column")
    points.add_argument("--time-column", default=None, metavar="T",
                        help="column with the time stamp of each row (for the records)")
    points.add_argument("--min-size", type=int, default=30, metavar="N",
                        help="minimum segment length (default 30)")
    points.add_argument("--beta", type=float, default=None, help="EDM-multi penalty")
    points.add_argument("--percent", type=float, default=None,
                        help="EDM-percent threshold (instead of --beta)")
    points.add_argument("--delimiter", default=",")
    points.add_argument("--json", action="store_true",
                        help="print Otava-like change-point records as JSON")
    return parser


def _load(path: str, args: argparse.Namespace) -> Any:
    from pilotstats import io

    if path.lower().endswith((".csv", ".csv.gz", ".tsv")) and args.format is None:
        if args.column is None:
            raise SystemExit(f"pilotstats: {path} is CSV; name its time column with --column")
        return io.load_csv(path, value_column=args.column, work_column=args.work_column,
                           benchmark_column=args.benchmark_column, time_unit=args.time_unit,
                           delimiter="\t" if path.lower().endswith(".tsv") else ",")
    return io.load(path, format=args.format)


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def _emit(data: Any) -> None:
    print(json.dumps(data, indent=2, allow_nan=False))


def _run_analyze(args: argparse.Namespace) -> int:
    from pilotstats.analysis import analyze

    results = []
    for path in args.files:
        report = analyze(_load(path, args), confidence_level=args.confidence_level,
                         autocorrelation_limit=args.autocorrelation_limit,
                         target_percent=args.target_percent,
                         detect_warmup=not args.no_warmup_detection,
                         benchmarks=args.benchmark, progress=_progress(args))
        results.append((path, report))
    if args.json:
        _emit({"command": "analyze",
               "results": [{**report.to_dict(), "file": path} for path, report in results]})
    else:
        blocks = []
        for path, report in results:
            blocks.append(f"{path}\n{report}" if len(results) > 1 else str(report))
        print("\n\n".join(blocks))
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    from pilotstats.analysis import compare

    report = compare(_load(args.base, args), _load(args.new, args),
                     confidence_level=args.confidence_level,
                     autocorrelation_limit=args.autocorrelation_limit,
                     min_change_percent=args.min_change_percent,
                     detect_warmup=not args.no_warmup_detection, progress=_progress(args))
    if args.json:
        _emit({"command": "compare", "base": args.base, "new": args.new, **report.to_dict()})
    else:
        print(f"baseline: {args.base}\nnew:      {args.new}\n{report}")
    return 1 if report.has_regression else 0


def _run_trend(args: argparse.Namespace) -> int:
    from pilotstats.analysis import trend

    loaded = [_load(path, args) for path in args.files]
    report = trend(loaded, labels=[Path(p).name for p in args.files],
                   confidence_level=args.confidence_level, progress=_progress(args))
    if args.json:
        _emit({"command": "trend", "files": list(args.files), **report.to_dict()})
    else:
        print(report)
    return 1 if args.fail_on_regression and report.regressions else 0


def _run_changepoints(args: argparse.Namespace) -> int:
    import csv

    from pilotstats.analysis import _backends
    from pilotstats.io._source import read_text

    edm = _backends.edm()
    if edm is None:
        raise SystemExit("pilotstats: this build lacks pilotstats.changepoints.edm")
    from pilotstats.io._tables import check_delimiter

    delimiter = check_delimiter(args.delimiter)
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
    options: dict[str, Any] = {"min_size": args.min_size}
    if args.percent is not None:
        options["percent"] = args.percent
    elif args.beta is not None:
        options["beta"] = args.beta
    result = edm(values, **options)
    records = result.to_records(args.column, times, otava_keys=True)
    if args.json:
        _emit({"command": "changepoints", "file": args.file, "column": args.column,
               "result": result.to_dict(), "records": records})
    else:
        print(result)
        for segment in result.segments:
            print(f"  {segment}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    0 ok, 1 regression found, 2 bad input or usage, 3 internal error (see the module
    docstring). ``--debug`` anywhere in ``argv`` prints tracebacks.

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
    >>> base = export("base.json", (0.100 + rng.normal(0, 0.001, 60)).tolist())
    >>> slow = export("new.json", (0.105 + rng.normal(0, 0.001, 60)).tolist())
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     status = main(["compare", base, slow])
    >>> status, "1 significant regression(s)" in out.getvalue()
    (1, True)
    """
    from pilotstats.exceptions import PilotStatsError

    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    args = _parser().parse_args([a for a in arguments if a != "--debug"])
    try:
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
        return _run_changepoints(args)
    except PilotStatsError as exc:
        _report(debug)
        print(f"pilotstats: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # unreadable output/input outside the loaders, broken pipe
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


def _report(debug: bool) -> None:
    """Print the current exception's traceback when ``--debug`` was given."""
    if debug:
        import traceback

        traceback.print_exc(file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
