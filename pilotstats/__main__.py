"""Command line entry point: ``python -m pilotstats`` (see :mod:`pilotstats.cli`)."""

from __future__ import annotations

import sys

from pilotstats.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
