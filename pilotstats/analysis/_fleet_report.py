"""The fleet report: FD.io CSIT's trending-dashboard table over many series.

:func:`fleet_report` runs :func:`~pilotstats.analysis.trend_many` (or
:func:`~pilotstats.analysis.detect_many`) and returns a :class:`FleetReport`: the table as a
DataFrame (worst regression first), as terminal text, and as a self-contained static HTML
page with one inline SVG trend plot with axes per series (no script, no external file).
The table is the one of FD.io CSIT's trending dashboard ("Trend", "Runs", "Short-Term
Change", "Long-Term Change", "Regressions", "Progressions"; CSIT
``resources/tools/presentation/generator_tables.py``, ``table_perf_trending_dash``).
"""

from __future__ import annotations

import dataclasses
import html
import itertools
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from pilotstats._protocols import select_items
from pilotstats._typing import FleetEngine
from pilotstats._validation import check_bool, check_choice, check_text
from pilotstats.changepoints._csit import classify_change
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import Result, format_number, json_safe

__all__ = ["DASHBOARD_COLUMNS", "FleetExecution", "FleetReport", "fleet_report"]

#: Columns of :meth:`FleetReport.dashboard`, in order.
DASHBOARD_COLUMNS = (
    "series", "trend", "runs", "short_term_change_percent", "long_term_change_percent",
    "regressions", "progressions", "new_regression", "last_classification", "error",
)

#: Shown for a CSIT change that the history is too short to define (NaN).
TOO_SHORT = "n/a (history too short)"


def _levels(row: Mapping[str, Any], kind: str, n: int, higher_is_better: bool
            ) -> list[tuple[int, int, float, str]]:
    """``(start, end, level, classification)`` of each trend segment of a result row."""
    if row.get("error") is not None:
        return []
    if kind == "trend":
        starts = [0, *row["boundaries"]]
        means = list(row["group_means"])
        labels = list(row["classifications"])
    else:
        starts = [0, *row["locations"]]
        means = list(row["segment_means"])
        labels = ["normal"]
        for before, after in itertools.pairwise(means):
            labels.append(classify_change(after, before, higher_is_better))
    ends = [*starts[1:], n]
    return [(s, e, float(m), str(c))
            for s, e, m, c in zip(starts, ends, means, labels, strict=True)]


@dataclasses.dataclass(frozen=True, slots=True)
class FleetReport(Result):
    """Trends of many series: the CSIT dashboard table, text, and a static HTML page.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one series: the
    ``dict`` of its row of :attr:`results` (``report[0]``, or ``report["series name"]``),
    in the order of :attr:`results`; :meth:`to_frame` is a copy of :attr:`results`.

    Attributes
    ----------
    kind : {"trend", "detect"}
        Which batch analysis produced :attr:`results` (MDL trend groups or guarded change
        points).
    results : pandas.DataFrame
        The output of :func:`trend_many` or :func:`detect_many` (one row per series).
    values : mapping of str to ndarray
        Each series' values in order (for the plots).
    higher_is_better : bool
        Direction of the labels and of "worst".
    unit : str or None
        Label of the measured quantity (``"s"`` for times).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.analysis import fleet_report
    >>> rng = np.random.default_rng(0)
    >>> report = fleet_report({"flat": rng.normal(10, 0.1, 50),
    ...                        "slower": np.r_[rng.normal(10, 0.1, 45), [12.0] * 5]},
    ...                       higher_is_better=False)
    >>> report.new_regressions
    ('slower',)
    >>> report.dashboard()["series"].tolist()  # worst regression first
    ['slower', 'flat']
    """

    kind: str
    results: Any
    values: Mapping[str, Any]
    higher_is_better: bool
    unit: str | None = None

    def __len__(self) -> int:
        return len(self.results)

    def _row(self, position: int) -> dict[str, Any]:
        row: dict[str, Any] = self.results.iloc[position].to_dict()
        return row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for position in range(len(self.results)):
            yield self._row(position)

    def __getitem__(self, key: Any) -> Any:
        """The row of series ``key`` (a name), or the row(s) at an index or slice."""
        if not isinstance(key, str):
            return select_items(key, len(self.results), self._row, "FleetReport")
        matches = [int(i) for i in (self.results["series"] == key).to_numpy().nonzero()[0]]
        if not matches:
            raise KeyError(f"no series named {key!r}")
        return self._row(matches[0])

    def to_frame(self) -> Any:
        """One row per series: a copy of :attr:`results` (see :meth:`dashboard` for the
        CSIT table, worst regression first).

        Returns
        -------
        pandas.DataFrame
        """
        return self.results.copy()

    @property
    def new_regressions(self) -> tuple[str, ...]:
        """Series with a new regression (see ``new_regression`` of the batch functions)."""
        flags = self.results["new_regression"].fillna(False).astype(bool)
        return tuple(str(s) for s in self.results.loc[flags, "series"])

    def dashboard(self) -> Any:
        """The CSIT trending-dashboard table, worst regression first.

        Returns
        -------
        pandas.DataFrame
            Columns ``series``, ``trend`` (last trend), ``runs`` (runs in the last trend
            group, or samples since the last change point), ``short_term_change_percent``,
            ``long_term_change_percent``, ``regressions``, ``progressions``,
            ``new_regression``, ``last_classification`` and ``error``. Sorted by new
            regression, then number of regressions, then how much worse the long-term
            change is (larger first), then series; failed series last.
        """
        import pandas as pd

        r = self.results
        if self.kind == "trend":
            runs = r["runs_in_last_trend"]
        else:
            since = r["n"] - r["last_change"].fillna(0).astype("Int64")
            runs = since.where(r["error"].isna(), pd.NA)
        table = pd.DataFrame({
            "series": r["series"], "trend": r["last_trend"], "runs": runs,
            "short_term_change_percent": r["short_term_change_percent"],
            "long_term_change_percent": r["long_term_change_percent"],
            "regressions": r["regressions"], "progressions": r["progressions"],
            "new_regression": r["new_regression"],
            "last_classification": r["last_classification"], "error": r["error"],
        })
        sign = -1.0 if self.higher_is_better else 1.0
        keys = pd.DataFrame({
            "failed": r["error"].notna(),
            "new": r["new_regression"].fillna(False).astype(bool),
            "count": r["regressions"].fillna(0).astype("int64"),
            "worse": (sign * r["long_term_change_percent"]).fillna(-math.inf),
            "series": r["series"],
        })
        order = keys.sort_values(["failed", "new", "count", "worse", "series"],
                                 ascending=[True, False, False, False, True],
                                 kind="stable").index
        return table.loc[order].reset_index(drop=True)

    def _text_rows(self) -> list[list[str]]:
        rows = []
        for row in self.dashboard().itertuples(index=False):
            if row.error is not None:
                rows.append([row.series, "-", "-", "-", "-", "-", "-", f"error: {row.error}"])
                continue
            status = "NEW REGRESSION" if row.new_regression else str(row.last_classification)
            rows.append([row.series, format_number(row.trend, 4), str(row.runs),
                         _change(row.short_term_change_percent),
                         _change(row.long_term_change_percent),
                         str(row.regressions), str(row.progressions), status])
        return rows

    def __str__(self) -> str:
        from pilotstats.analysis._table import render_table

        unit = f" [{self.unit}]" if self.unit else ""
        header = [f"series ({len(self.results)})", f"trend{unit}", "runs", "short-term %",
                  "long-term %", "regressions", "progressions", "status"]
        return render_table(header, self._text_rows())

    def to_html(self, *, title: str = "pilotstats fleet report",
                command_line: str | Sequence[str] | None = None) -> str:
        """A self-contained static HTML page: the dashboard with one trend plot per series.

        Each series gets a plot with axes: its values (grey), its trend levels (blue
        normal, red regression, green progression), value ticks in :attr:`unit` and run
        ticks. A change the history is too short to define reads
        ``"n/a (history too short)"``.

        Parameters
        ----------
        title : str, default "pilotstats fleet report"
            Page title and heading.
        command_line : str or sequence of str, optional
            The command line that made the report, shown on the page with the versions.

        Returns
        -------
        str
            The page (inline CSS and inline SVG only: it opens from disk in any browser).
        """
        from pilotstats.analysis._html import page
        from pilotstats.analysis._svg_plot import series_svg

        esc = html.escape
        by_series = {str(row["series"]): row for row in self.results.to_dict("records")}
        body = []
        for row in self.dashboard().itertuples(index=False):
            values = _plottable(self.values.get(row.series, ()))
            levels = _levels(by_series[row.series], self.kind, int(values.size),
                             self.higher_is_better)
            plot = series_svg(values, levels, unit=self.unit, name=str(row.series))
            if row.error is not None:
                cells = ["-"] * 6 + [f"error: {row.error}"]
                css = "failed"
            else:
                status = ("new regression" if row.new_regression
                          else str(row.last_classification))
                cells = [format_number(row.trend, 4), str(row.runs),
                         _change(row.short_term_change_percent),
                         _change(row.long_term_change_percent),
                         str(row.regressions), str(row.progressions), status]
                css = "regression" if row.new_regression else str(row.last_classification)
            tds = "".join(f"<td>{esc(c)}</td>" for c in cells)
            body.append(f'<tr class="{esc(css)}"><td class="name">{esc(row.series)}</td>'
                        f"{tds}<td>{plot}</td></tr>")
        unit = f" [{esc(self.unit)}]" if self.unit else ""
        direction = "higher is better" if self.higher_is_better else "lower is better"
        method = ("MDL trend groups (FD.io CSIT jumpavg)" if self.kind == "trend"
                  else "guarded change points (detect_changes)")
        header = "".join(f"<th>{h}</th>" for h in (
            "series", f"trend{unit}", "runs", "short-term change %", "long-term change %",
            "regres&shy;sions", "progres&shy;sions", "status", "trend plot"))
        summary = (f'<p class="summary{" bad" if self.new_regressions else ""}">'
                   f"{len(self.results)} series; {esc(method)}; {direction}; "
                   f"{len(self.new_regressions)} with a new regression. Worst regression "
                   "first.</p>")
        return page(title, [summary, f'<div class="scroll"><table><thead><tr>{header}</tr>'
                                     f"</thead><tbody>{''.join(body)}</tbody></table></div>"],
                    command_line=command_line, wide=True)

    def write_html(self, path: str | os.PathLike[str], *,
                   title: str = "pilotstats fleet report",
                   command_line: str | Sequence[str] | None = None) -> Path:
        """Write :meth:`to_html` to ``path`` (UTF-8) and return the path.

        Parameters
        ----------
        path : str or path-like
            Destination ``.html`` file.
        title, command_line
            As for :meth:`to_html`.

        Returns
        -------
        pathlib.Path
        """
        from pilotstats.analysis._html import write_page

        return write_page(self.to_html(title=title, command_line=command_line), path)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dashboard: ``kind``, ``higher_is_better``, ``unit``, ``series`` rows."""
        rows = [{key: json_safe(None if value is _na() else value) for key, value in r.items()}
                for r in self.dashboard().to_dict("records")]
        return {"kind": self.kind, "higher_is_better": self.higher_is_better,
                "unit": self.unit, "confidence_level": None,
                "new_regressions": list(self.new_regressions), "series": rows}


def _change(value: Any) -> str:
    """A CSIT change in percent, or :data:`TOO_SHORT` when it is undefined (NaN)."""
    if value is None or value is _na():
        return TOO_SHORT
    number = float(value)
    return TOO_SHORT if math.isnan(number) else format_number(number, 3)


def _plottable(values: Any) -> np.ndarray:
    """One number per run (the mean of multi-sample runs); empty when not numeric."""
    try:
        return np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        try:
            return np.array([np.mean(np.asarray(run, dtype=np.float64)) for run in values])
        except (TypeError, ValueError):
            return np.zeros(0)


def _na() -> Any:
    import pandas as pd

    return pd.NA


@dataclasses.dataclass(frozen=True, slots=True)
class FleetExecution:
    """Where :func:`fleet_report` runs the series: the ``workers``, ``engine`` and ``client``
    of :func:`detect_many` / :func:`trend_many`. Complexity: O(1).

    Attributes
    ----------
    workers : int, optional
        Threads or Dask batches; ``workers=1`` is serial.
    engine : {"threads", "dask"}, default "threads"
        Where the series run.
    client : distributed.Client, optional
        Dask client for ``engine="dask"``.

    Examples
    --------
    >>> from pilotstats.analysis import FleetExecution
    >>> FleetExecution(workers=1).engine
    'threads'
    """

    workers: int | None = None
    engine: FleetEngine = "threads"
    client: Any = None


def fleet_report(
    table: Any, *, by: str | Sequence[str] | None = None, order: str | None = None,
    value: str | None = None, method: Literal["trend", "detect"] = "trend",
    execution: FleetExecution | None = None, higher_is_better: bool = True,
    short_window: int = 10, long_window: int = 180, unit: str | None = None,
    progress: bool | None = None, **options: Any,
) -> FleetReport:
    """Analyse every series of a table and build the CSIT trending dashboard.

    Parameters
    ----------
    table : DataFrame, Arrow table, Dask DataFrame, dict, or path
        As in :func:`detect_many` (long table, dict of series, asv results folder, CSV or
        Parquet file).
    by : str or sequence of str
        Series-key column(s).
    order : str, optional
        Order column.
    value : str
        Value column.
    method : {"trend", "detect"}, default "trend"
        :func:`trend_many` (MDL trend groups, CSIT) or :func:`detect_many` (guarded change
        points).
    execution : FleetExecution, optional
        Workers, engine and Dask client (default ``FleetExecution()``: threads).
    higher_is_better : bool, default True
        Direction (CSIT throughput); set False for times.
    short_window, long_window : int, default 10, 180
        CSIT's short and long windows, in runs.
    unit : str, optional
        Label of the measured quantity shown in the table header.
    progress : bool, optional
        Progress bar (default: for 200 series or more).
    **options
        Passed to the single-series function (``mdl_partition`` or ``detect_changes``).

    Returns
    -------
    FleetReport

    Raises
    ------
    InvalidInputError
        Unknown ``method``; anything :func:`detect_many` refuses.

    Notes
    -----
    The table is FD.io CSIT's trending dashboard (see :class:`FleetReport`), with the
    metrics of :func:`~pilotstats.changepoints.trend_compliance`. Complexity: O(total
    points) for the table, plus one SVG plot per series.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.analysis import fleet_report
    >>> report = fleet_report({"a": np.r_[np.full(30, 5.0), np.full(5, 4.0)]})
    >>> "<svg" in report.to_html(), report.new_regressions
    (True, ('a',))
    """
    from pilotstats.analysis._many import InvalidSeries, detect_many, trend_many

    chosen = check_choice(method, "method", ("trend", "detect"))
    direction = check_bool(higher_is_better, "higher_is_better")
    unit = check_text(unit, "unit", allow_none=True)
    run = _execution(execution, options)
    function = trend_many if chosen == "trend" else detect_many
    source, values, by, order, value = _split_series(table, by, order, value, run.engine)
    results = function(source, by=by, order=order, value=value, workers=run.workers,
                       engine=run.engine, client=run.client, higher_is_better=direction,
                       short_window=short_window, long_window=long_window,
                       progress=progress, **options)
    shown = {name: np.zeros(0) if isinstance(v, InvalidSeries) else v  # error rows: no data
             for name, v in values.items()}
    return FleetReport(chosen, results, shown, direction, unit)


def _split_series(table: Any, by: Any, order: Any, value: Any,
                  engine: str) -> tuple[Any, dict[str, Any], Any, Any, Any]:
    """The batch's input and every series' values (for the plots).

    A Dask collection on the dask engine is analysed where it lies; anything else is split
    once, so that the batch gets the series in their final order.
    """
    from pilotstats.analysis._many import _is_dask_collection, _tasks

    if _is_dask_collection(table) and engine == "dask":
        values = {name: v for name, _, v in _tasks(table.compute(), by, order, value)}
        return table, values, by, order, value
    values = {name: v for name, _, v in _tasks(table, by, order, value)}
    return values, values, None, None, None


def _execution(execution: Any, options: Mapping[str, Any]) -> FleetExecution:
    """The checked :class:`FleetExecution` (the default one for None)."""
    misplaced = sorted({"workers", "engine", "client"} & set(options))
    if misplaced:
        raise InvalidInputError(f"fleet_report takes {misplaced} as "
                                "execution=FleetExecution(...)")
    run = FleetExecution() if execution is None else execution
    if not isinstance(run, FleetExecution):
        raise InvalidInputError(f"execution must be a FleetExecution, got {type(run).__name__}")
    return run
