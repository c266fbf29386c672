"""Trend of benchmark results over many result files: :func:`trend` (MDL partitioning)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, SupportsIndex, overload

from pilotstats._protocols import select_items
from pilotstats._validation import check_bool, check_confidence_level
from pilotstats.analysis._analyze import AnalysisReport, analyze
from pilotstats.analysis._progress import call_collecting_warnings, progress_items
from pilotstats.analysis._runs import combine_runs
from pilotstats.changepoints import TrendGroup, mdl_partition
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError, PilotStatsError
from pilotstats.io import Measurements
from pilotstats.results import Result, decode_float, decode_float_fields, draw, format_quantity

__all__ = ["BenchmarkTrend", "TrendReport", "trend"]

@dataclass(frozen=True, slots=True)
class BenchmarkTrend(Result):
    """One benchmark's means over the result files and their MDL segments.

    ``means[i]`` is the estimate of result ``i`` (None where the benchmark is missing or
    not analysable), ``ci_low[i]``/``ci_high[i]`` its confidence interval (None where it has
    none; runs as the units when the result has several), ``runs_per_result[i]`` its runs
    (None where missing). ``segments`` are the :class:`~pilotstats.changepoints.TrendGroup`
    of the MDL partition of the means: half-open ranges of file indices, ``n_runs`` the
    results in the segment that hold the benchmark; a segment classified ``"regression"``
    has a higher (slower) level than the previous one.

    Examples
    --------
    One entry of a :class:`TrendReport`:

    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import trend
    >>> files = [Measurements([1.0, 1.01, 0.99, 1.0] * 5, benchmark="b") for _ in range(4)]
    >>> files += [Measurements([1.5, 1.51, 1.49, 1.5] * 5, benchmark="b") for _ in range(4)]
    >>> report = trend(files)
    >>> item = report["b"]
    >>> print(item)
    b: results [0, 4): mean 1 s, normal; results [4, 8): mean 1.5 s, regression
    >>> [round(mean, 2) for mean in item.means]
    [1.0, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5]
    """

    name: str
    unit: str
    means: tuple[float | None, ...]
    segments: tuple[TrendGroup, ...]
    note: str = ""
    ci_low: tuple[float | None, ...] = ()
    ci_high: tuple[float | None, ...] = ()
    runs_per_result: tuple[int | None, ...] = ()

    @property
    def last_classification(self) -> str | None:
        """Classification of the newest segment."""
        return self.segments[-1].classification if self.segments else None

    def __str__(self) -> str:
        parts = "; ".join(
            f"results [{s.start}, {s.end}): mean {format_quantity(s.mean, 's')}, "
            f"{s.classification}" for s in self.segments
        ) or self.note
        return f"{self.name}: {parts}"


@dataclass(frozen=True, slots=True)
class TrendReport(Result):
    """Trends of all benchmarks over an ordered list of result files.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`BenchmarkTrend` (``report[0]`` or ``report["name"]``), and :meth:`to_frame`
    has one row per benchmark (``to_frame(long_format=True)``: one per benchmark and result).

    Examples
    --------
    Returned by :func:`trend`; four result files at 1 s, then four at 1.5 s:

    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import trend
    >>> files = [Measurements([1.0, 1.01, 0.99, 1.0] * 5, benchmark="b") for _ in range(4)]
    >>> files += [Measurements([1.5, 1.51, 1.49, 1.5] * 5, benchmark="b") for _ in range(4)]
    >>> report = trend(files)
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    benchmark  results  runs per result  mean   segment
    ---------  -------  ---------------  -----  ----------
    b          0 .. 3   1                1 s    normal
    b          4 .. 7   1                1.5 s  regression
    """

    labels: tuple[str, ...]
    benchmarks: tuple[BenchmarkTrend, ...]
    confidence_level: float = 0.95

    def __iter__(self) -> Iterator[BenchmarkTrend]:
        return iter(self.benchmarks)

    def __len__(self) -> int:
        return len(self.benchmarks)

    @overload
    def __getitem__(self, key: str | SupportsIndex) -> BenchmarkTrend: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[BenchmarkTrend, ...]: ...

    def __getitem__(self, key: Any) -> Any:
        """The benchmark ``key`` (a name), or the item(s) at an index or slice."""
        if not isinstance(key, str):
            return select_items(key, len(self.benchmarks), self.benchmarks.__getitem__,
                                "TrendReport")
        for item in self.benchmarks:
            if item.name == key:
                return item
        raise KeyError(f"no benchmark named {key!r}")

    @property
    def regressions(self) -> tuple[str, ...]:
        """Benchmarks whose newest segment is a regression."""
        return tuple(b.name for b in self.benchmarks if b.last_classification == "regression")

    def __str__(self) -> str:
        from pilotstats.analysis._table import render_table

        return render_table(*self._table_parts())

    def _repr_html_(self) -> str:
        from pilotstats._html import report_html

        return report_html(f"Trend of {len(self.benchmarks)} benchmark(s) over "
                           f"{len(self.labels)} results (MDL levels)", *self._table_parts())

    def _table_parts(self) -> tuple[list[str], list[list[str]]]:
        rows = []
        for b in self.benchmarks:
            if not b.segments:
                rows.append([b.name, "-", "-", "-", b.note])
                continue
            for s in b.segments:
                counts = [c for c in b.runs_per_result[s.start:s.end] if c is not None]
                runs = ("-" if not counts else str(min(counts)) if min(counts) == max(counts)
                        else f"{min(counts)}-{max(counts)}")
                rows.append([b.name, f"{self.labels[s.start]} .. {self.labels[s.end - 1]}",
                             runs, format_quantity(s.mean, b.unit), s.classification])
        return ["benchmark", "results", "runs per result", "mean", "segment"], rows

    def to_frame(self, *, long_format: bool = False) -> Any:
        """One row per benchmark, or (``long_format=True``) per benchmark and result.

        Parameters
        ----------
        long_format : bool, default False
            False: one row per benchmark (index ``name``) with ``unit``, ``n_results``
            (results holding the benchmark), ``n_segments``, ``last_classification``,
            ``last_mean`` (level of the newest segment) and ``note``. True: the long table,
            one row per benchmark and result (index ``benchmark``, ``result``) with the
            result's ``mean`` and its MDL ``segment`` (number), ``segment_mean`` and
            ``classification``.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import trend
        >>> files = [Measurements([1.0, 1.01, 0.99, 1.0] * 5, benchmark="b") for _ in range(4)]
        >>> files += [Measurements([1.5, 1.51, 1.49, 1.5] * 5, benchmark="b") for _ in range(4)]
        >>> report = trend(files)
        >>> report.to_frame().loc["b", "last_classification"]
        'regression'
        >>> report.to_frame(long_format=True).loc[("b", "7"), "classification"]
        'regression'
        """
        from pilotstats.analysis._frames import records_frame

        if not check_bool(long_format, "long_format"):
            return records_frame(
                [{"name": b.name, "unit": b.unit,
                  "n_results": sum(m is not None for m in b.means),
                  "n_segments": len(b.segments), "last_classification": b.last_classification,
                  "last_mean": b.segments[-1].mean if b.segments else None, "note": b.note}
                 for b in self.benchmarks], "name")
        rows = []
        for b in self.benchmarks:
            for i, (label, mean) in enumerate(zip(self.labels, b.means, strict=True)):
                found = [(j, s) for j, s in enumerate(b.segments) if s.start <= i < s.end]
                j, segment = found[0] if found else (None, None)
                rows.append({"benchmark": b.name, "result": label, "mean": mean, "unit": b.unit,
                             "n_runs": (b.runs_per_result[i] if i < len(b.runs_per_result)
                                        else None),
                             "segment": j,
                             "segment_mean": None if segment is None else segment.mean,
                             "classification": None if segment is None
                             else segment.classification})
        return records_frame(rows, ["benchmark", "result"])

    def plot(self, *, benchmark: str | None = None, ax: Any = None) -> Any:
        """Means of one benchmark with its MDL levels (needs matplotlib).

        See :func:`pilotstats.plotting.plot_trend`.
        """
        return draw(self, benchmark=benchmark, ax=ax)

    def to_html(self, *, title: str | None = None,
                command_line: str | Sequence[str] | None = None) -> str:
        """A self-contained HTML page of the trend (needs matplotlib for the plots).

        The verdict table, the run structure (runs, between- and within-run standard
        deviations), one section per benchmark with its plots, and the command line
        and versions; inline CSS and SVG only (no script, no network).

        Parameters
        ----------
        title : str, optional
            Page title (default: what the page answers).
        command_line : str or sequence of str, optional
            The command line that made the report, shown on the page.

        Returns
        -------
        str
            The page; :meth:`write_html` writes it to a file.

        Examples
        --------
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import trend
        >>> files = [Measurements([1.0, 1.01, 0.99, 1.0] * 5, benchmark="b") for _ in range(4)]
        >>> files += [Measurements([1.5, 1.51, 1.49, 1.5] * 5, benchmark="b") for _ in range(4)]
        >>> page = trend(files).to_html()
        >>> "1 end in a regression" in page, page.count("<svg")
        (True, 1)
        """
        return trend_page(self, title=title, command_line=command_line)

    def write_html(self, path: str | os.PathLike[str], *, title: str | None = None,
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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrendReport:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            tuple(data["labels"]),
            tuple(BenchmarkTrend(b["name"], b["unit"], tuple(decode_float(b["means"])),
                                 tuple(_segment_from_dict(s) for s in b["segments"]),
                                 b["note"],
                                 tuple(decode_float(b.get("ci_low", ()))),
                                 tuple(decode_float(b.get("ci_high", ()))),
                                 tuple(b.get("runs_per_result", ())))
                  for b in data["benchmarks"]),
            float(data.get("confidence_level", 0.95)),
        )


def _source_label(item: Any, folder: bool) -> str | None:
    """The file name(s) a result was loaded from, or None."""
    from pathlib import PurePath

    if isinstance(item, AnalysisReport):
        sources: list[Any] = [] if item.source is None else [item.source]
    elif isinstance(item, Measurements):
        meta = item.metadata.get(item.names[0], {}) if item.names else {}
        sources = list(meta.get("sources") or [meta.get("source")])
    elif isinstance(item, Sequence) and item and all(isinstance(m, Measurements)
                                                     for m in item):
        sources = [_source_label(m, folder) for m in item]
    else:
        return None
    if not sources or any(not isinstance(v, str) or not v for v in sources):
        return None
    path = PurePath(sources[0])
    name = "/".join(path.parts[-2:]) if folder else path.name
    return name if len(sources) == 1 else f"{name} +{len(sources) - 1} files"


def _default_labels(results: Sequence[Any]) -> list[str]:
    """File names of the results (with their folder when names repeat), else indices."""
    for folder in (False, True):
        labels = [_source_label(item, folder) for item in results]
        if all(label is not None for label in labels) and len(set(labels)) == len(labels):
            return [str(label) for label in labels]
    return [str(i) for i in range(len(results))]


def _segment_from_dict(data: Mapping[str, Any]) -> TrendGroup:
    """A :class:`~pilotstats.changepoints.TrendGroup` from its ``to_dict()`` (a NaN std was
    written as None)."""
    values = decode_float_fields(TrendGroup, data)
    if values.get("std") is None:
        values["std"] = math.nan
    return TrendGroup(**values)


def trend(
    results: Sequence[Measurements | AnalysisReport | Sequence[Measurements]], *,
    labels: Sequence[str] | None = None, confidence_level: float = 0.95,
    detect_warmup: bool = True, progress: bool = False, summary_statistic: str = "mean",
    assume_runs_equivalent: bool = False,
) -> TrendReport:
    """Partition each benchmark's per-result means into levels by MDL.

    Parameters
    ----------
    results : sequence of Measurements, AnalysisReport or sequence of Measurements
        Results in time (commit) order, oldest first, at least 2. A result given as a
        sequence of :class:`Measurements` (several files of one commit, e.g. one per CI
        job) is analysed as one result whose files keep their own runs.
    labels : sequence of str, optional
        One label per result (for the tables and plots). Default: each result's file name
        (the ``source`` of its metadata, ``"1.json +2 files"`` for several files, with
        the folder when names repeat), or ``"0", "1", ...`` when a result has none.
    confidence_level : float, default 0.95
        Passed to :func:`analyze` for :class:`Measurements` inputs.
    detect_warmup : bool, default True
        Stable-phase detection when analysing :class:`Measurements` inputs.
    progress : bool, default False
        Progress bar over the results (needs ``tqdm``).
    summary_statistic : {"mean", "median", "min"}, default "mean"
        Each result's estimate (see :func:`analyze`).
    assume_runs_equivalent : bool, default False
        Passed to :func:`analyze` (a result of one run: its interval is taken as it is).

    Returns
    -------
    TrendReport

    Raises
    ------
    NotEnoughDataError
        Fewer than 2 results.
    PilotStatsError
        This build lacks :func:`pilotstats.changepoints.mdl_partition`.

    Notes
    -----
    Each result contributes one value per benchmark, its run-level estimate (the mean over
    its runs, see :func:`analyze`; ``runs_per_result`` says how many runs each result
    had); the partition is the minimum description length grouping of FD.io CSIT's
    jumpavg, reproduced by :func:`pilotstats.changepoints.mdl_partition`, with
    lower-is-better labels.

    Complexity: :func:`analyze` on each of the R results, plus O(R²) per benchmark.

    Examples
    --------
    >>> from pilotstats.io import Measurements
    >>> files = [Measurements([1.0, 1.01, 0.99, 1.0] * 5, benchmark="b") for _ in range(4)]
    >>> files += [Measurements([1.5, 1.51, 1.49, 1.5] * 5, benchmark="b") for _ in range(4)]
    >>> report = trend(files)
    >>> [s.classification for s in report["b"].segments]
    ['normal', 'regression']
    """
    if not isinstance(results, Sequence) or isinstance(results, (str, bytes)):
        raise InvalidInputError(
            f"results must be a sequence (list or tuple) of Measurements or AnalysisReport "
            f"objects, oldest first; got {type(results).__name__}"
        )
    if len(results) < 2:
        raise NotEnoughDataError(f"trend needs at least 2 results, got {len(results)}")
    level = check_confidence_level(confidence_level)
    detect_warmup = check_bool(detect_warmup, "detect_warmup")
    progress = check_bool(progress, "progress")
    names = _default_labels(results) if labels is None else [str(x) for x in labels]
    if len(names) != len(results):
        raise InvalidInputError(f"labels has {len(names)} entries for {len(results)} results")
    reports = _result_reports(results, level, detect_warmup, progress, summary_statistic,
                              assume_runs_equivalent)
    ordered: dict[str, str] = {}
    for report in reports:
        for b in report:
            ordered.setdefault(b.name, b.unit)
    trends = [_benchmark_trend(name, unit, reports) for name, unit in ordered.items()]
    return TrendReport(tuple(names), tuple(trends), level)


def _result_reports(results: Sequence[Any], level: float, detect_warmup: bool, progress: bool,
                    summary_statistic: str,
                    assume_runs_equivalent: bool) -> list[AnalysisReport]:
    """Each result's analysis (given, or computed as :func:`analyze` does)."""
    reports: list[AnalysisReport] = []
    for index in progress_items([str(i) for i in range(len(results))], progress, "trend"):
        item = combine_runs(results[int(index)], f"results[{index}]")
        if isinstance(item, AnalysisReport):
            reports.append(item)
        elif isinstance(item, Measurements):
            reports.append(analyze(item, confidence_level=level, wps_analysis=False,
                                   detect_warmup=detect_warmup,
                                   summary_statistic=summary_statistic,
                                   assume_runs_equivalent=assume_runs_equivalent))
        else:
            raise InvalidInputError(f"results[{index}] must be Measurements (or a list of "
                                    "them, one per file) or an AnalysisReport")
    return reports


def _benchmark_trend(name: str, unit: str, reports: Sequence[AnalysisReport]) -> BenchmarkTrend:
    """One benchmark's per-result estimates and their MDL partition."""
    means: list[float | None] = []
    lows: list[float | None] = []
    highs: list[float | None] = []
    counts: list[int | None] = []
    for report in reports:
        try:
            entry = report[name]
        except KeyError:
            means.append(None)
            lows.append(None)
            highs.append(None)
            counts.append(None)
            continue
        means.append(entry.mean)
        lows.append(entry.ci_low)
        highs.append(entry.ci_high)
        counts.append(entry.n_runs)
    bounds: dict[str, Any] = {"ci_low": tuple(lows), "ci_high": tuple(highs),
                              "runs_per_result": tuple(counts)}
    present = [m for m in means if m is not None]
    if len(present) < 2:
        return BenchmarkTrend(name, unit, tuple(means), (),
                              "present in fewer than 2 results", **bounds)
    values = [math.nan if m is None else m for m in means]
    try:
        groups, caught = call_collecting_warnings(
            mdl_partition, values, higher_is_better=False, nan_policy="omit")
    except PilotStatsError as exc:
        return BenchmarkTrend(name, unit, tuple(means), (), str(exc), **bounds)
    return BenchmarkTrend(name, unit, tuple(means), groups.groups, "; ".join(caught),
                          **bounds)


def trend_page(report: TrendReport, *, title: str | None = None,
               command_line: str | Sequence[str] | None = None) -> str:
    """The page of a trend: the segment table, then each benchmark's trend plot."""
    from functools import partial

    from pilotstats.analysis._html import page, plot_or_note, table
    from pilotstats.analysis._html_reports import esc, notes_list
    from pilotstats.analysis._titles import trend_title

    header, rows = report._table_parts()
    classes: list[str] = []
    for b in report:
        classes += [s.classification for s in b.segments] or ["failed"]
    summary = (f"{len(report)} benchmark(s) over {len(report.labels)} results; "
               f"{len(report.regressions)} end in a regression")
    body = [f'<p class="summary{" bad" if report.regressions else ""}">{esc(summary)}.</p>',
            table(header, rows, classes),
            "<p>Results, oldest first: " + ", ".join(
                f"<code>{esc(label)}</code>" for label in report.labels) + "</p>"]
    structure = [[b.name, *("-" if c is None else str(c) for c in b.runs_per_result)]
                 for b in report]
    body.append("<h2>Runs per result</h2>" + table(["benchmark", *report.labels], structure))
    for item in report:
        name = item.name
        plot = plot_or_note(partial(report.plot, benchmark=name), (8.0, 3.6))
        body.append(f"<h2>{esc(trend_title(item, len(report.labels)))}</h2>{plot}"
                    + notes_list([item.note] if item.note else []))
    return page(title or "pilotstats trend", body, command_line=command_line)
