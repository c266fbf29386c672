"""What every subcommand of :mod:`pilotstats.cli` shares: exit statuses and printing."""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["EXIT_BAD_INPUT", "EXIT_INCONCLUSIVE", "EXIT_INTERNAL_ERROR", "cli_text", "emit",
           "out"]

#: Exit status of :func:`pilotstats.cli.main` for bad input or usage (argparse uses 2 as well).
EXIT_BAD_INPUT = 2
#: Exit status of :func:`pilotstats.cli.main` for an internal error (a bug in pilotstats).
EXIT_INTERNAL_ERROR = 3
#: Exit status of ``compare`` when some benchmark had one run on a side (no verdict).
EXIT_INCONCLUSIVE = 5


def out(text: str) -> None:
    """Print to stdout (a closed reader drops it quietly: :mod:`pilotstats.cli._pipes`)."""
    print(text, flush=True)


def emit(data: Any) -> None:
    """Print ``data`` as indented JSON (no NaN)."""
    out(json.dumps(data, indent=2, allow_nan=False))


def cli_text(text: str) -> str:
    """Library advice rephrased with the command line's options."""
    return text.replace("raise autocorrelation_limit, or pass subsession_size explicitly",
                        "or raise --autocorrelation-limit")


def progress(no_progress: bool) -> bool:
    """Whether to show progress bars: not disabled and stderr is a terminal."""
    return not no_progress and sys.stderr.isatty()
