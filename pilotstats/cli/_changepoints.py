"""``pilotstats changepoints FILE [--column C | --benchmark B] [--method detect|edm]``:
significance-tested change points of a CSV column or of a harness file's benchmark."""

from __future__ import annotations

import argparse
from typing import Any

from pilotstats.cli._common import emit, out

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register ``changepoints`` on the subparsers of the main parser."""
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


def _harness_series(args: argparse.Namespace) -> tuple[Any, list[str] | None, str]:
    """The time per work of the chosen benchmark of a harness file."""
    from pilotstats import io

    measurements = io.load(args.file, format=args.format)
    names = measurements.names
    name = args.benchmark or (names[0] if len(names) == 1 else None)
    if name is None or name not in names:
        raise SystemExit(f"pilotstats: {args.file}: choose a benchmark with --benchmark "
                         f"(available: {', '.join(names)})")
    return measurements[name].time_per_work, None, name


def _series(args: argparse.Namespace) -> tuple[Any, list[str] | None, str]:
    """The searched values, their time stamps (or None) and the metric's name."""
    lower = args.file.lower()
    if not lower.endswith((".csv", ".csv.gz", ".tsv")) or args.format is not None:
        return _harness_series(args)
    if args.column is None:
        raise SystemExit(f"pilotstats: {args.file} is CSV; name its numeric column with --column")
    from pilotstats.io._tables import load_csv_series

    values, times = load_csv_series(args.file, args.column, time_column=args.time_column,
                                     delimiter="\t" if lower.endswith(".tsv") else args.delimiter)
    return values, times, args.column


def _detect(values: Any, args: argparse.Namespace) -> Any:
    """The change points of the chosen ``--method``."""
    from pilotstats.changepoints import detect_changes, edm

    options: dict[str, Any] = {}
    if args.min_size is not None:
        options["min_size"] = args.min_size
    if args.method == "detect":
        if args.beta is not None or args.percent is not None:
            raise SystemExit("pilotstats: --beta and --percent belong to --method edm")
        if args.significance_level is not None:
            options["significance_level"] = args.significance_level
        return detect_changes(values, **options)
    if args.significance_level is not None:
        raise SystemExit("pilotstats: --significance-level belongs to --method detect "
                         "(the faithful EDM tests nothing)")
    options.setdefault("min_size", 30)
    if args.percent is not None:
        options["percent"] = args.percent
    elif args.beta is not None:
        options["beta"] = args.beta
    return edm(values, **options)


def run(args: argparse.Namespace) -> int:
    """Print the change points (or their records as JSON); 0."""
    from pilotstats.changepoints import ChangePoints

    values, times, metric = _series(args)
    result: ChangePoints = _detect(values, args)
    records = result.to_records(metric, times, otava_keys=True)
    if args.json:
        emit({"command": "changepoints", "file": args.file, "column": metric,
              "method": args.method, "result": result.to_dict(), "records": records})
    else:
        lines = [str(result)]
        if args.method == "edm":
            lines.append("  (faithful EDM: candidates are not significance-tested; the "
                         "default --method detect tests them)")
        lines += [f"  {segment}" for segment in result.segments]
        out("\n".join(lines))
    return 0
