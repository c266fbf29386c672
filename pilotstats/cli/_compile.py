"""``pilotstats compile``: compile every numba kernel into the on-disk cache (images, CI)."""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register ``compile`` on the subparsers of the main parser."""
    command = commands.add_parser(
        "compile", help="compile every numba kernel into the on-disk cache (for images and CI)")
    command.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    """Compile the kernels, print each entry point's time; 0."""
    from pilotstats._compile import compile_kernels

    report = compile_kernels()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, allow_nan=False))
    else:
        print(report)
    return 0
