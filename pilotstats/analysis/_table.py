"""Plain-text tables for the command line and the reports' ``__str__``."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["render_table"]


def render_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned text columns separated by two spaces, with a rule under the header.

    Examples
    --------
    >>> print(render_table(["a", "bb"], [["1", "2"], ["333", "4"]]))
    a    bb
    ---  --
    1    2
    333  4
    """
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])
