"""``pilotstats compare BASE... -- NEW...`` (or ``BASE NEW``): the ratio new/base per
benchmark with a run-level interval; exit status 1 on a significant regression, 2 when the
comparison is incomplete, 5 when inconclusive (one run on a side)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pilotstats.cli._common import EXIT_INCONCLUSIVE, cli_text, emit, out
from pilotstats.cli._files import add_file_options, analysis_options, group_files, groups, load

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register ``compare`` on the subparsers of the main parser."""
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
    add_file_options(compare)


def _sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The baseline's and the new files (``BASE... -- NEW...`` or ``BASE NEW``)."""
    found = groups(args)
    if found is None:
        for path in args.files:
            if Path(path).is_dir():
                raise SystemExit(f"pilotstats: {path} is a folder; compare takes result "
                                 "files (BASE... -- NEW...; use trend for a folder of results)")
        return [args.files[0]], [args.files[1]]
    base, new = (group_files(group) for group in found)
    return base, new


def _side_text(files: Sequence[str]) -> str:
    return files[0] if len(files) == 1 else f"{len(files)} files: {', '.join(files)}"


def _summary(args: argparse.Namespace, report: Any, unanalysable: list[str],
             undecided: list[str], incomplete: bool) -> str:
    """The last line of the output: what was compared, and why the status is what it is."""
    compared = len(report) - len(unanalysable) - len(undecided)
    runs = sorted({(c.base_n_runs, c.new_n_runs) for c in report})
    summary = (f"compared {compared} of {len(report) + len(report.only_in_base)} baseline "
               f"benchmark(s) ({'; '.join(f'{b} vs {n} runs' for b, n in runs) or 'no runs'}"
               f"): {len(report.regressions)} regression(s), "
               f"{len(report.progressions)} progression(s), {len(undecided)} inconclusive, "
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
    return summary


def run(args: argparse.Namespace) -> int:
    """Print the comparison; 1 regression, 2 incomplete, 5 inconclusive, else 0."""
    from pilotstats.analysis import compare

    base_files, new_files = _sides(args)
    loaded = [[load(path, args) for path in files] for files in (base_files, new_files)]
    report = compare(*(side[0] if len(side) == 1 else side for side in loaded),
                     min_change_percent=args.min_change_percent, pairs=args.pair,
                     match=args.match, **analysis_options(args))
    unanalysable = [c.name for c in report if c.verdict == "not analysable"]
    undecided = list(report.inconclusive)
    compared = len(report) - len(unanalysable) - len(undecided)
    incomplete = compared + len(undecided) == 0 or bool(unanalysable)
    summary = _summary(args, report, unanalysable, undecided, incomplete)
    if args.html:
        from pilotstats.cli._html import write_compare_html

        write_compare_html(args, report, loaded, (base_files, new_files))
    if args.json:
        emit({"command": "compare",
              "base": base_files[0] if len(base_files) == 1 else base_files,
              "new": new_files[0] if len(new_files) == 1 else new_files,
              "base_files": base_files, "new_files": new_files, **report.to_dict(),
              "not_analysable": unanalysable, "inconclusive": undecided,
              "incomplete": incomplete, "summary": summary})
    else:
        out(cli_text(f"baseline: {_side_text(base_files)}\nnew:      "
                     f"{_side_text(new_files)}\n{report}\n{summary}"))
    if report.has_regression:
        return 1
    if incomplete and not args.allow_missing:
        return 2
    return EXIT_INCONCLUSIVE if undecided else 0
