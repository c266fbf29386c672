"""Command line entry point: ``python -m pilotstats`` and the ``pilotstats`` script."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    parser = argparse.ArgumentParser(
        prog="pilotstats", description="Statistically honest performance measurements."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="analyse embedded sample data and print a report")
    arguments = parser.parse_args(argv)
    if arguments.command == "demo":
        from pilotstats._demo import run_demo

        print(run_demo())
    return 0


if __name__ == "__main__":
    sys.exit(main())
