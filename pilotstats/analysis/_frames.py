"""pandas tables and Jupyter HTML of the analysis reports.

``to_frame`` turns a report into a :class:`pandas.DataFrame` (one row per benchmark, or per
benchmark and result file for a trend); ``report_html`` renders the same rows as an HTML
table with a title and the report's notes, for ``_repr_html_``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

from pilotstats.results import format_number, json_safe

__all__ = ["records_frame", "report_html"]


def records_frame(records: Iterable[Any], index: str | Sequence[str]) -> Any:
    """DataFrame of result objects' ``to_dict()`` rows, indexed by ``index``.

    Tuple-valued entries (notes) are joined with ``"; "`` so every cell is a scalar.
    """
    import pandas as pd

    rows = []
    for record in records:
        row = record.to_dict() if hasattr(record, "to_dict") else dict(record)
        rows.append({k: "; ".join(map(str, v)) if isinstance(v, list) else v
                     for k, v in row.items()})
    keys = [index] if isinstance(index, str) else list(index)
    if not rows:
        return pd.DataFrame(columns=keys).set_index(keys)
    return pd.DataFrame(rows).set_index(keys)


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
