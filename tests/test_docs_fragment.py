"""The README fragment's doctest example runs."""

from __future__ import annotations

import doctest
from pathlib import Path

FRAGMENT = Path(__file__).resolve().parents[1] / "docs_fragments" / "io_cli.md"


def test_io_cli_fragment_examples() -> None:
    result = doctest.testfile(str(FRAGMENT), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
