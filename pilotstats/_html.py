"""Jupyter HTML of report tables: a captioned table with the report's notes below it.

Shared by the measurement containers of :mod:`pilotstats.io` and the reports of
:mod:`pilotstats.analysis` for their ``_repr_html_``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

from pilotstats.results import format_number, json_safe

__all__ = ["report_html"]


def _cell(value: Any) -> str:
    value = json_safe(value)
    if value is None:
        return "–"
    if isinstance(value, float):
        return format_number(value, 4)
    return str(value)


def report_html(
    title: str, header: Sequence[str], rows: Iterable[Sequence[Any]], notes: Iterable[str] = ()
) -> str:
    """An HTML table with a caption, one ``<tr>`` per row, and the notes below it."""
    head = "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td style='text-align:left'>{html.escape(_cell(v))}</td>"
                         for v in row) + "</tr>"
        for row in rows
    )
    listed = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
    return (
        f"<div><table><caption style='text-align:left'><strong>{html.escape(title)}"
        f"</strong></caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        + (f"<ul>{listed}</ul>" if listed else "") + "</div>"
    )
