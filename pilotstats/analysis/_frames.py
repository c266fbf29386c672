"""pandas tables of the analysis reports.

``to_frame`` turns a report into a :class:`pandas.DataFrame` (one row per benchmark, or per
benchmark and result file for a trend); :func:`pilotstats._html.report_html` renders the
same rows as HTML for ``_repr_html_``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["records_frame"]


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
