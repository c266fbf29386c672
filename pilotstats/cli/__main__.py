"""``python -m pilotstats.cli`` (the same as ``python -m pilotstats``)."""

from __future__ import annotations

import sys

from pilotstats.cli import main

if __name__ == "__main__":
    sys.exit(main())
