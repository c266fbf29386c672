"""``--html FILE`` of ``pilotstats analyze``, ``compare`` and ``trend``.

Each writes one self-contained page (:mod:`pilotstats.analysis._html`) with the
exact command line (``args.command_line``, recorded by :func:`pilotstats.cli.main`) and the
versions, then says on stderr where it went; the command's own output and exit status are
unchanged.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["write_analyze_html", "write_compare_html", "write_trend_html"]


def _command(args: argparse.Namespace) -> list[str] | None:
    command = getattr(args, "command_line", None)
    return list(command) if command is not None else None


def _written(path: Any) -> None:
    print(f"pilotstats: HTML report written to {path}", file=sys.stderr)


def write_analyze_html(args: argparse.Namespace, targets: Sequence[tuple[str, Sequence[str]]],
                       results: Sequence[tuple[str, Any]]) -> None:
    """The page of ``pilotstats analyze``: every measurement's analysis and samples."""
    from pilotstats.analysis._analysis_report import analysis_page
    from pilotstats.analysis._html import write_page
    from pilotstats.cli._files import load

    measurements = []
    for _, files in targets:
        loaded = [load(path, args) for path in files]
        measurements.append(loaded[0] if len(loaded) == 1 else loaded)
    headings = [None if len(targets) == 1 and len(files) == 1 else
                files[0] if len(files) == 1 else f"{len(files)} files: {', '.join(files)}"
                for _, files in targets]
    text = analysis_page([(heading, report) for heading, (_, report)
                          in zip(headings, results, strict=True)],
                         command_line=_command(args), measurements=measurements)
    _written(write_page(text, args.html))


def write_compare_html(args: argparse.Namespace, report: Any, loaded: Sequence[Any],
                       files: tuple[Sequence[str], Sequence[str]]) -> None:
    """The page of ``pilotstats compare``: verdicts, run structure, changes and samples."""
    from pilotstats.analysis._compare import comparison_page
    from pilotstats.analysis._html import write_page

    sides = tuple(side[0] if len(side) == 1 else side for side in loaded)
    names = tuple(paths[0] if len(paths) == 1 else f"{len(paths)} files: {', '.join(paths)}"
                  for paths in files)
    text = comparison_page(report, command_line=_command(args),
                           measurements=(sides[0], sides[1]), sides=(names[0], names[1]))
    _written(write_page(text, args.html))


def write_trend_html(args: argparse.Namespace, report: Any) -> None:
    """The page of ``pilotstats trend``: segments, runs per result and trend plots."""
    _written(report.write_html(args.html, command_line=_command(args)))
