"""``pilotstats demo``: analyse embedded sample data and print a report."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register ``demo`` on the subparsers of the main parser."""
    commands.add_parser("demo", help="analyse embedded sample data and print a report")


def run(args: argparse.Namespace) -> int:
    """Print the demonstration report; 0."""
    del args  # the demo has no options
    from pilotstats.demo import run_demo

    print(run_demo())
    return 0
