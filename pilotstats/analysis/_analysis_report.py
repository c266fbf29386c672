"""Results of :func:`~pilotstats.analysis.analyze`: BenchmarkAnalysis and AnalysisReport."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, SupportsIndex, overload

import numpy as np

from pilotstats._protocols import select_items
from pilotstats._validation import check_confidence_level
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import (
    Result,
    decode_float,
    decode_float_fields,
    draw,
    format_interval,
    format_number,
    format_quantity,
)

__all__ = ["AnalysisReport", "BenchmarkAnalysis"]


@dataclass(frozen=True, slots=True)
class BenchmarkAnalysis(Result):
    """Analysis of one benchmark: warm-up, estimate with CI at the run level, plan, WPS.

    The analysed quantity is the time per unit of work (``elapsed / work``: seconds per loop,
    iteration, call or op), after removing the harness's warm-ups and the detected warm-up
    and cool-down of each run. With two runs or more (processes, forks, repetitions, files)
    the interval has the runs as its units (two levels, Kalibera & Jones 2013: it includes
    the run-to-run variation); with one run it is the subsession interval of that run,
    which cannot include the run-to-run variation (``interval_units`` and ``notes`` say so).

    Attributes
    ----------
    name : str
        Benchmark name.
    unit : str
        Unit of the analysed quantity (``"s"`` per unit of work).
    summary_statistic : str
        Summary statistic of the headline estimate: ``"mean"``, ``"harmonic mean"`` (JMH
        throughput); with several runs ``"run median"`` / ``"run min"`` (the mean over runs
        of each run's median / minimum, see :func:`analyze`); with one run ``"median"`` or
        ``"subsession min"``.
    n : int
        Samples analysed.
    n_total : int
        Samples in the input for this benchmark (warm-ups included).
    n_runs : int
        Replicates (processes, forks, repetitions; one per file without such structure).
    harness_warmups : int
        Samples the harness itself marked as warm-ups (removed).
    detected_warmup, detected_cooldown : int or None
        Further samples removed at the start / end of runs by stable-phase detection;
        ``None`` when detection did not run (see ``warmup_removal``).
    warmup_removal : str
        ``"stable_phase"`` or ``"none"`` (the names :class:`~pilotstats.session.BenchmarkSession`
        uses for the same choice).
    mean, ci_low, ci_high : float or None
        Estimate and its confidence interval (None when not determinable): runs as units
        with two runs or more, the subsession interval of the run with one.
    confidence_level : float
        Level of the interval.
    subsession_size, n_subsessions : int or None
        Block size ``q`` and number of blocks ``h`` of a single run's interval (None with
        several runs).
    subsession_variance : float or None
        ``s2_q`` of a single run (what a comparison of single runs needs, with ``h``).
    autocorrelation : float or None
        Lag-1 autocorrelation of the block means (single run).
    half_width_percent : float
        Target half width of the interval, percent of the mean.
    samples : int or None
        Samples needed for ``±half_width_percent`` at ``confidence_level`` (single run;
        with several runs the plan is ``plan_runs`` x ``plan_samples_per_run``).
    between_run_std, within_run_std : float or None
        Standard deviation of the run means, and pooled standard deviation within runs
        (descriptive; the variance components are ``between_variance``/``within_variance``).
    wps_throughput, wps_throughput_ci_low, wps_throughput_ci_high, wps_alpha : float or None
        Work-per-second regression ``t = α + w/v`` (work units per second, overhead in s),
        when the work varies between samples.
    status : str
        ``"ok"``, ``"no_subsession_size"`` (collect more data), ``"not_enough_data"``.
    notes : tuple of str
        What was skipped and why; warnings raised by the underlying methods.
    interval_units : str or None
        ``"runs"`` (two runs or more: the interval includes run-to-run variation) or
        ``"subsessions"`` (one run: blocks of that run, run-to-run variation excluded);
        None without an interval.
    run_values : tuple of float
        Each run's statistic (the units of a ``"runs"`` interval; empty with one run).
    block_size : int or None
        Samples per block of a run median / minimum (one size for every run).
    between_variance, within_variance : float or None
        Kalibera & Jones's variance components (see
        :class:`~pilotstats.autocorrelation.TwoLevelResult`): ``T_1^2`` of a run mean and
        ``T_2^2`` per sample (autocorrelation-aware); None with one run or runs too short.
    plan_runs, plan_samples_per_run : int or None
        Runs (files, when they are the units) x samples per run (file) that reach
        ``±half_width_percent``
        (:func:`~pilotstats.autocorrelation.required_runs`; ``run_cost`` of :func:`analyze`
        lets it choose the run length); None with one run or when unreachable.
    additional_runs : int or None
        ``plan_runs`` minus the runs measured (0: enough).

    Examples
    --------
    One entry of an :class:`AnalysisReport`:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> report = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench"))
    >>> item = report["bench"]
    >>> print(item)  # doctest: +NORMALIZE_WHITESPACE
    bench: mean 2 ms (95 % CI [1.998, 2.003] ms, n = 200, 1 run, q = 1, warm-up 0, need 4
    for ±1 %; the interval excludes run-to-run variation)
    >>> item.n, item.subsession_size, item.samples
    (200, 1, 4)

    Several runs (here 8 processes whose levels differ) make the runs the units:

    >>> levels = rng.normal(2e-3, 4e-5, 8)
    >>> runs = Measurements(np.concatenate([rng.normal(m, 2e-5, 50) for m in levels]),
    ...                     run=np.repeat(np.arange(8), 50), benchmark="bench")
    >>> item = analyze(runs, detect_warmup=False)["bench"]
    >>> print(item)  # doctest: +NORMALIZE_WHITESPACE
    bench: mean 1.985 ms (95 % CI [1.954, 2.015] ms, n = 400, 8 runs, warm-up off, need 16
    runs x 50 for ±1 %)
    >>> item.interval_units, item.additional_runs
    ('runs', 8)
    """

    name: str
    unit: str
    summary_statistic: str
    n: int
    n_total: int
    n_runs: int
    harness_warmups: int
    detected_warmup: int | None
    detected_cooldown: int | None
    warmup_removal: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    confidence_level: float
    subsession_size: int | None
    n_subsessions: int | None
    subsession_variance: float | None
    autocorrelation: float | None
    half_width_percent: float
    samples: int | None
    between_run_std: float | None
    within_run_std: float | None
    wps_throughput: float | None
    wps_throughput_ci_low: float | None
    wps_throughput_ci_high: float | None
    wps_alpha: float | None
    status: str
    notes: tuple[str, ...] = ()
    interval_units: str | None = None
    run_values: tuple[float, ...] = ()
    block_size: int | None = None
    between_variance: float | None = None
    within_variance: float | None = None
    plan_runs: int | None = None
    plan_samples_per_run: int | None = None
    additional_runs: int | None = None

    def confidence_interval(self, confidence_level: float | None = None) -> Any:
        """Interval of the mean at ``confidence_level`` (None: the stored level)."""
        from pilotstats._stats import two_sided_t
        from pilotstats.results import ConfidenceInterval

        level = self.confidence_level if confidence_level is None else check_confidence_level(
            confidence_level)
        if self.interval_units in ("runs", "files") and len(self.run_values) >= 2:
            harmonic = self.summary_statistic == "harmonic mean"
            values = np.asarray(self.run_values, dtype=np.float64)
            values = 1.0 / values if harmonic else values
            centre = float(np.mean(values))
            half = two_sided_t(level, values.size - 1) * float(
                np.std(values, ddof=1)) / math.sqrt(values.size)
            if not harmonic:
                return ConfidenceInterval(centre - half, centre + half)
            return ConfidenceInterval(1.0 / (centre + half),
                                      1.0 / (centre - half) if centre > half else math.inf)
        if self.mean is None or self.subsession_variance is None or not self.n_subsessions:
            return ConfidenceInterval(math.nan, math.nan)
        if self.summary_statistic != "mean":
            if confidence_level is None and self.ci_low is not None and self.ci_high is not None:
                return ConfidenceInterval(self.ci_low, self.ci_high)
            raise InvalidInputError("intervals at another level are available for the "
                                    "arithmetic mean only; rerun analyze(confidence_level=...)")
        half = two_sided_t(level, self.n_subsessions - 1) * math.sqrt(
            self.subsession_variance / self.n_subsessions)
        return ConfidenceInterval(self.mean - half, self.mean + half)

    @property
    def achieved_half_width_percent(self) -> float:
        """Half width of the interval in % of the estimate (inf without an interval)."""
        if not self.mean or self.ci_low is None or self.ci_high is None:
            return math.inf
        return 50.0 * (self.ci_high - self.ci_low) / abs(self.mean)

    @property
    def warmup_text(self) -> str:
        """Human-readable warm-up summary."""
        if self.warmup_removal == "stable_phase":
            text = f"{self.detected_warmup}"
            if self.detected_cooldown:
                text += f" (+{self.detected_cooldown} cool-down)"
        else:
            text = "off"
        if self.harness_warmups:
            text += f" + {self.harness_warmups} harness"
        return text

    @property
    def plan_text(self) -> str:
        """What reaches ``±half_width_percent``: runs (files) x samples each, or samples."""
        if self.interval_units in ("runs", "files"):
            if self.plan_runs is None:
                return "-"
            more = f" (+{self.additional_runs})" if self.additional_runs else ""
            return (f"{self.plan_runs} {self.interval_units} x {self.plan_samples_per_run}"
                    f"{more}")
        return "-" if self.samples is None else str(self.samples)

    def __str__(self) -> str:
        if self.mean is None:
            return f"{self.name}: n = {self.n}, {self.status}"
        interval = format_interval(self.ci_low, self.ci_high, self.confidence_level, self.unit,
                                   estimate=self.mean)
        runs = f"{self.n_runs} run{'s' if self.n_runs != 1 else ''}"
        if self.interval_units in ("runs", "files"):
            plan = (f"need {self.plan_runs} {self.interval_units} x "
                    f"{self.plan_samples_per_run}" if self.plan_runs is not None
                    else "no run plan")
            return (f"{self.name}: {self.summary_statistic} "
                    f"{format_quantity(self.mean, self.unit)} ({interval}, n = {self.n}, "
                    f"{runs}, warm-up {self.warmup_text}, {plan} for "
                    f"±{format_number(self.half_width_percent)} %)")
        return (f"{self.name}: {self.summary_statistic} "
                f"{format_quantity(self.mean, self.unit)} "
                f"({interval}, n = {self.n}, {runs}, q = {self.subsession_size}, warm-up "
                f"{self.warmup_text}, need {self.samples} for "
                f"±{format_number(self.half_width_percent)} %"
                + ("; the interval excludes run-to-run variation)"
                   if self.interval_units == "subsessions" else ")"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BenchmarkAnalysis:
        """Rebuild from :meth:`to_dict` output (e.g. ``pilotstats analyze --json``)."""
        values = decode_float_fields(cls, data)
        values["notes"] = tuple(values.get("notes", ()))
        values["run_values"] = tuple(float(v) for v in values.get("run_values", ()))
        return cls(**values)


@dataclass(frozen=True, slots=True)
class AnalysisReport(Result):
    """Analyses of all benchmarks of a :class:`~pilotstats.io.Measurements`.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`BenchmarkAnalysis` (``report[0]``; ``report["name"]`` selects one by name).
    ``str(report)`` is a table; ``to_dict()`` / :meth:`from_dict` round-trip through JSON.

    Examples
    --------
    Returned by :func:`analyze`; ``str()`` is the table the command line prints:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> report = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench"))
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    benchmark  n    runs  warm-up removed  estimate [95 % CI]           q  need for ±1 %
    ---------  ---  ----  ---------------  ---------------------------  -  -------------
    bench      200  1     0                mean 2 ms [1.998, 2.003 ms]  1  4
      bench: one run: the run-to-run variance is unknown, so the interval covers this run
      only (measure more runs: processes, repetitions or files)
    >>> [item.name for item in report.benchmarks]
    ['bench']
    """

    benchmarks: tuple[BenchmarkAnalysis, ...]
    confidence_level: float
    half_width_percent: float
    source: str | None = None

    def __iter__(self) -> Iterator[BenchmarkAnalysis]:
        return iter(self.benchmarks)

    def __len__(self) -> int:
        return len(self.benchmarks)

    @overload
    def __getitem__(self, key: str | SupportsIndex) -> BenchmarkAnalysis: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[BenchmarkAnalysis, ...]: ...

    def __getitem__(self, key: Any) -> Any:
        """The benchmark ``key`` (a name), or the item(s) at an index or slice."""
        if not isinstance(key, str):
            return select_items(key, len(self.benchmarks), self.benchmarks.__getitem__,
                                "AnalysisReport")
        for item in self.benchmarks:
            if item.name == key:
                return item
        raise KeyError(f"no benchmark named {key!r}; available: "
                       f"{[b.name for b in self.benchmarks]}")

    @property
    def names(self) -> tuple[str, ...]:
        """Benchmark names."""
        return tuple(b.name for b in self.benchmarks)

    def __str__(self) -> str:
        from pilotstats.analysis._table import render_table

        header, rows, notes = self._table_parts()
        return "\n".join([render_table(header, rows), *notes])

    def _repr_html_(self) -> str:
        from pilotstats._html import report_html

        header, rows, notes = self._table_parts()
        title = f"Analysis of {len(self)} benchmark(s)" + (f" ({self.source})" if self.source
                                                           else "")
        return report_html(title, header, rows, (note.strip() for note in notes))

    def to_frame(self) -> Any:
        """One row per benchmark (index ``name``), the columns of
        :meth:`BenchmarkAnalysis.to_dict`.

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import analyze
        >>> rng = np.random.default_rng(0)
        >>> frame = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="b")).to_frame()
        >>> int(frame.loc["b", "n"]), float(frame.loc["b", "mean"].round(4))
        (200, 0.002)
        """
        from pilotstats.analysis._frames import records_frame

        return records_frame(self.benchmarks, "name")

    def _table_parts(self) -> tuple[list[str], list[list[str]], list[str]]:
        level = f"{format_number(self.confidence_level * 100, 6)} % CI"
        rows = []
        for b in self.benchmarks:
            if b.mean is None:
                mean_text = f"({b.status})"
            elif b.ci_low is None or b.ci_high is None:
                mean_text = (f"{b.summary_statistic} {format_quantity(b.mean, b.unit)} "
                             f"(no CI: {b.status})")
            else:
                mean_text = (f"{b.summary_statistic} {format_quantity(b.mean, b.unit)} "
                             f"[{_bounds(b.ci_low, b.ci_high, b.unit, b.mean)}]")
            rows.append([b.name, str(b.n), str(b.n_runs), b.warmup_text, mean_text,
                         "-" if b.subsession_size is None else str(b.subsession_size),
                         b.plan_text])
        header = ["benchmark", "n", "runs", "warm-up removed", f"estimate [{level}]", "q",
                  f"need for ±{format_number(self.half_width_percent)} %"]
        lines: list[str] = []
        shared = set.intersection(*(set(b.notes) for b in self.benchmarks)) if len(
            self.benchmarks) > 1 else set()
        for note in sorted(shared):
            lines.append(f"  all benchmarks: {note}")
        for b in self.benchmarks:
            if b.wps_throughput is not None:
                lines.append(f"  {b.name}: work-per-second regression v = "
                             f"{format_number(b.wps_throughput)} work/s "
                             f"[{format_number(b.wps_throughput_ci_low)}, "
                             f"{format_number(b.wps_throughput_ci_high)}]"
                             f" ({level}), overhead α = {format_quantity(b.wps_alpha, 's')}")
            for note in b.notes:
                if note not in shared:
                    lines.append(f"  {b.name}: {note}")
        return header, rows, lines

    def plot(self, *, benchmark: str | None = None, ax: Any = None) -> Any:
        """Estimates with their intervals in absolute values (needs matplotlib).

        See :func:`pilotstats.plotting.plot_analysis`.
        """
        return draw(self, benchmark=benchmark, ax=ax)

    def to_html(self, *, title: str | None = None,
                command_line: str | Sequence[str] | None = None,
                measurements: Any = None) -> str:
        """A self-contained HTML page of the analysis (needs matplotlib for the plots).

        The verdict table, the run structure (runs, between- and within-run standard
        deviations), one section per benchmark with its plots (the samples too when
        ``measurements`` is given), and the command line and versions; inline CSS and SVG
        only (no script, no network).

        Parameters
        ----------
        title : str, optional
            Page title (default: what the page answers).
        command_line : str or sequence of str, optional
            The command line that made the report, shown on the page.
        measurements : Measurements or sequence of Measurements, optional
            The measurements analysed (a list: one per file): adds each benchmark's
            samples plot (runs coloured, warm-ups marked).

        Returns
        -------
        str
            The page; :meth:`write_html` writes it to a file.

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import analyze
        >>> rng = np.random.default_rng(0)
        >>> report = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench"))
        >>> page = report.to_html(command_line="pilotstats analyze bench.json")
        >>> page.startswith("<!DOCTYPE html>"), "<svg" in page, "bench.json" in page
        (True, True, True)
        """
        return analysis_page([(None, self)], title=title, command_line=command_line,
                             measurements=None if measurements is None else [measurements])

    def write_html(self, path: str | os.PathLike[str], *, title: str | None = None,
                   command_line: str | Sequence[str] | None = None,
                measurements: Any = None) -> Path:
        """Write :meth:`to_html` to ``path`` (UTF-8) and return the path.

        Parameters
        ----------
        path : str or path-like
            Destination ``.html`` file.
        title, command_line, measurements
            As for :meth:`to_html`.

        Returns
        -------
        pathlib.Path
        """
        from pilotstats.analysis._html import write_page

        return write_page(self.to_html(title=title, command_line=command_line,
                                       measurements=measurements), path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnalysisReport:
        """Rebuild from :meth:`to_dict` output.

        Examples
        --------
        >>> import json
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import analyze
        >>> rng = np.random.default_rng(1)
        >>> report = analyze(Measurements(rng.normal(1.0, 0.01, 60), benchmark="x"))
        >>> again = AnalysisReport.from_dict(json.loads(json.dumps(report.to_dict())))
        >>> again.to_dict() == report.to_dict()
        True
        """
        return cls(
            tuple(BenchmarkAnalysis.from_dict(b) for b in data["benchmarks"]),
            float(data["confidence_level"]),
            float(decode_float(data["half_width_percent"])),
            data.get("source"),
        )


def _bounds(low: float | None, high: float | None, unit: str, estimate: float) -> str:
    """``low, high unit`` in the estimate's unit (one unit per table cell)."""
    text = format_interval(low, high, 0.5, unit, estimate=estimate)
    return text.split("[", 1)[1].replace("]", "")


def _analysis_structure(report: AnalysisReport) -> str:
    """The run-structure table of an analysis page."""
    from pilotstats.analysis._html import table
    from pilotstats.analysis._html_reports import quantity, std_text

    header = ["benchmark", "runs", "interval units", "between-run std", "within-run std",
              "run-mean std (T1)", "sample std (T2)", f"plan for ±"
              f"{format_number(report.half_width_percent)} %"]
    rows = [[b.name, str(b.n_runs), b.interval_units or "-",
             quantity(b.between_run_std, b.unit), quantity(b.within_run_std, b.unit),
             std_text(b.between_variance, b.unit), std_text(b.within_variance, b.unit), b.plan_text]
            for b in report]
    return table(header, rows)


def _analysis_row_class(item: BenchmarkAnalysis, target: float) -> str:
    """CSS class of a row: ``within-target`` within the target, ``inconclusive`` without CI."""
    if item.mean is None or item.ci_low is None or item.ci_high is None:
        return "inconclusive"
    half = 50.0 * (item.ci_high - item.ci_low) / abs(item.mean) if item.mean else math.inf
    return "within-target" if half <= target else ""


def analysis_page(reports: Sequence[tuple[str | None, AnalysisReport]], *,
                  title: str | None = None, command_line: str | Sequence[str] | None = None,
                  measurements: Sequence[Any] | None = None) -> str:
    """The page of one or more analyses (one per measurement of ``pilotstats analyze``).

    ``measurements`` (optional, one per report) adds each benchmark's samples plot.
    """
    from functools import partial

    from pilotstats.analysis._html import page, plot_or_note, table
    from pilotstats.analysis._html_reports import esc, notes_list, one_measurement, samples_plot

    if measurements is not None and len(measurements) != len(reports):
        raise InvalidInputError(f"measurements has {len(measurements)} entries for "
                                f"{len(reports)} report(s)")
    body: list[str] = []
    for position, (label, report) in enumerate(reports):
        shown = one_measurement(measurements[position], "measurements") if measurements else None
        header, rows, notes = report._table_parts()
        within = sum(_analysis_row_class(b, report.half_width_percent) == "within-target"
                     for b in report)
        with_ci = sum(b.ci_low is not None for b in report)
        if len(reports) > 1 or label:
            body.append(f"<h2>{esc(label or f'measurement {position + 1}')}</h2>")
        body.append(
            f'<p class="summary">{len(report)} benchmark(s): {with_ci} with a '
            f"{format_number(report.confidence_level * 100, 6)} % confidence interval, "
            f"{within} of them within ±{format_number(report.half_width_percent)} % of "
            "the estimate (green rows).</p>")
        body.append(table(header, rows, [_analysis_row_class(b, report.half_width_percent)
                                         for b in report]))
        body.append("<h3>Run structure</h3><p>Runs are processes, repetitions or files; "
                    "with two or more, the interval's units are the runs (or the files) and "
                    "it includes the run-to-run variation.</p>" + _analysis_structure(report))
        for item in report:
            name = item.name
            plots = plot_or_note(partial(report.plot, benchmark=name))
            plots += samples_plot(shown, name, "samples")
            body.append(f"<h3>{esc(name)}</h3><div class=\"plots\">{plots}</div>"
                        + notes_list(item.notes))
        shown_notes = {f"  {b.name}: {note}" for b in report for note in b.notes}
        rest = [n.strip() for n in notes if n not in shown_notes]
        if rest:
            body.append("<h3>Other notes</h3>" + notes_list(rest))
    return page(title or "pilotstats analysis", body, command_line=command_line)
