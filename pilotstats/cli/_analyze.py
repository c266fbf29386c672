"""``pilotstats analyze FILE|FOLDER... [-- FILE... ...]``: per benchmark, warm-up, mean with
a run-level interval, variance components and the runs needed."""

from __future__ import annotations

import argparse
from typing import Any

from pilotstats.cli._common import cli_text, emit, out
from pilotstats.cli._files import add_file_options, analyze_files, expand, group_files, groups

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register ``analyze`` on the subparsers of the main parser."""
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
    add_file_options(analyze)


def run(args: argparse.Namespace) -> int:
    """Print the analysis of every measurement; 0."""
    found = groups(args)
    targets = ([(path, [path]) for path, _ in expand(args.files)] if found is None
               else [(" ".join(files), files) for files in map(group_files, found)])
    results = [(label, analyze_files(files, args, half_width_percent=args.half_width_percent,
                                     benchmarks=args.benchmark, run_cost=args.run_cost))
               for label, files in targets]
    if args.html:
        from pilotstats.cli._html import write_analyze_html

        write_analyze_html(args, targets, results)
    if args.json:
        emit({"command": "analyze",
              "results": [{**report.to_dict(), "file": label} for label, report in results]})
    else:
        blocks = []
        for label, report in results:
            blocks.append(f"{label}\n{report}" if len(results) > 1 else str(report))
        out(cli_text("\n\n".join(blocks)))
    return 0
