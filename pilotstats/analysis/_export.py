"""Export analyses as rows of an Apache Otava (ex Hunter) CSV: one row per result file."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from typing import Any

from pilotstats.analysis._analyze import AnalysisReport
from pilotstats.exceptions import InvalidInputError

__all__ = ["to_otava_csv"]


def to_otava_csv(
    reports: Sequence[AnalysisReport],
    destination: str | os.PathLike[str] | Any = None,
    *,
    times: Sequence[Any],
    attributes: Mapping[str, Sequence[Any]] | None = None,
    time_column: str = "time",
) -> str:
    """Write per-result summaries (mean, CI, n) as an Otava CSV, one row per report.

    pilotstats does the within-run statistics; Otava tracks the summaries across commits
    with its E-divisive change points. Configure the test with ``time_column`` and the metric
    columns ``<benchmark>`` (the mean, lower is better: ``direction: -1``).

    Parameters
    ----------
    reports : sequence of AnalysisReport
        One analysis per result (commit), oldest first.
    destination : path or writable text file, optional
        Where to write; the CSV text is returned in any case.
    times : sequence
        One time stamp per report (ISO strings or epoch seconds), written to ``time_column``.
    attributes : mapping of str to sequence, optional
        Extra columns (e.g. ``{"commit": [...], "version": [...]}``), one value per report.
    time_column : str, default "time"
        Name of the time column.

    Returns
    -------
    str
        The CSV text. Columns: time, attributes, then for each benchmark ``<name>`` (mean),
        ``<name>.ci_low``, ``<name>.ci_high``, ``<name>.n``; empty cells where a report lacks
        the benchmark or its interval.

    Notes
    -----
    Otava's CSV importer (``apache/otava: otava/importer.py``, ``docs/CSV.md``) reads a time
    column, attribute columns and numeric metric columns.

    Complexity: O(R·B) for R reports of B benchmarks.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> reports = [analyze(Measurements(rng.normal(1.0, 0.01, 50), benchmark="b"))
    ...            for _ in range(2)]
    >>> text = to_otava_csv(reports, times=["2026-01-01", "2026-01-02"],
    ...                     attributes={"commit": ["abc", "def"]})
    >>> text.splitlines()[0]
    'time,commit,b,b.ci_low,b.ci_high,b.n'
    """
    if len(times) != len(reports):
        raise InvalidInputError(f"times has {len(times)} entries for {len(reports)} reports")
    extra = dict(attributes or {})
    for key, values in extra.items():
        if len(values) != len(reports):
            raise InvalidInputError(f"attribute {key!r} has {len(values)} entries for "
                                    f"{len(reports)} reports")
    buffer = io.StringIO()
    _write_rows(csv.writer(buffer, lineterminator="\n"), reports, times, extra, time_column)
    text = buffer.getvalue()
    if destination is not None:
        if isinstance(destination, (str, os.PathLike)):
            with open(destination, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        else:
            destination.write(text)
    return text


def _write_rows(writer: Any, reports: Sequence[AnalysisReport], times: Sequence[Any],
                extra: Mapping[str, Sequence[Any]], time_column: str) -> None:
    """The header and one row per report (empty cells where a benchmark is missing)."""
    names: dict[str, None] = {}
    for report in reports:
        if not isinstance(report, AnalysisReport):
            raise InvalidInputError("reports must be AnalysisReport objects (from analyze)")
        for item in report:
            names.setdefault(item.name, None)
    header = [time_column, *extra]
    for name in names:
        header += [name, f"{name}.ci_low", f"{name}.ci_high", f"{name}.n"]
    writer.writerow(header)
    for index, report in enumerate(reports):
        row: list[Any] = [times[index], *(values[index] for values in extra.values())]
        for name in names:
            try:
                item = report[name]
            except KeyError:
                row += ["", "", "", ""]
                continue
            row += ["" if v is None else repr(float(v)) for v in (item.mean, item.ci_low,
                                                                   item.ci_high)]
            row.append(item.n)
        writer.writerow(row)
