"""``pilotstats trend FILE|FOLDER... [--fail-on-regression]``: MDL partition of per-file
means over many result files, oldest first."""

from __future__ import annotations

import argparse
from typing import Any

from pilotstats.cli._common import emit, out
from pilotstats.cli._files import add_file_options, analyze_files, expand, group_points, groups

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register ``trend`` on the subparsers of the main parser."""
    trend = commands.add_parser("trend", help="MDL partition of per-file means over many "
                                "result files (oldest first)")
    trend.add_argument("files", nargs="*", metavar="FILE",
                       help="results oldest first; with '--', each group of files between "
                       "separators is one result whose files are its runs")
    trend.add_argument("--fail-on-regression", action="store_true",
                       help="exit 1 when a benchmark's newest segment is a regression")
    add_file_options(trend)


def run(args: argparse.Namespace) -> int:
    """Print the trend; 1 with ``--fail-on-regression`` when it ends in a regression."""
    from pilotstats.analysis import trend

    found = groups(args)
    notes: list[str] = []
    if found is None:
        points = [([path], label) for path, label in expand(args.files, notes)]
    else:
        points = group_points(found)
    reports = [analyze_files(files, args) for files, _ in points]
    report = trend(reports, labels=[label for _, label in points],
                   confidence_level=args.confidence_level)
    if args.html:
        from pilotstats.cli._html import write_trend_html

        write_trend_html(args, report)
    if args.json:
        emit({"command": "trend", "files": [files[0] if len(files) == 1 else files
                                            for files, _ in points], "order": notes,
              **report.to_dict()})
    else:
        out("\n".join([str(report), *(f"order: {note}" for note in notes)]))
    return 1 if args.fail_on_regression and report.regressions else 0
