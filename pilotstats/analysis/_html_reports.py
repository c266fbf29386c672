"""The HTML pages of :class:`AnalysisReport`, :class:`ComparisonReport` and :class:`TrendReport`.

Each page leads with the answer (a summary line and the verdict table), then the run
structure (runs per side, between- and within-run standard deviations, Kalibera & Jones
2013), then one section per benchmark with its plots and notes, and ends with the exact
command line and the versions (:func:`pilotstats.analysis._html.page`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from pilotstats.analysis._html import page, plot_or_note, table
from pilotstats.analysis._titles import change_title, trend_title
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import draw, format_number, format_quantity

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.analysis._analyze import AnalysisReport, BenchmarkAnalysis
    from pilotstats.analysis._compare import ComparisonReport
    from pilotstats.analysis._trend import TrendReport
    from pilotstats.io import Measurements

__all__ = ["analysis_page", "comparison_page", "trend_page"]

_esc = html.escape


def _std(variance: float | None, unit: str) -> str:
    """``sqrt(variance)`` as a quantity, ``"-"`` when unknown."""
    if variance is None or not math.isfinite(variance) or variance < 0:
        return "-"
    return format_quantity(math.sqrt(variance), unit)


def _quantity(value: float | None, unit: str) -> str:
    return "-" if value is None else format_quantity(value, unit)


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{_esc(n)}</li>" for n in notes) + "</ul>"


def _one_measurement(given: Any, side: str) -> Measurements | None:
    """A :class:`Measurements` (a list of files merged as their runs), or None."""
    if given is None:
        return None
    from pilotstats.analysis._runs import combine_runs
    from pilotstats.io import Measurements

    value = combine_runs(given, side)
    if not isinstance(value, Measurements):
        raise InvalidInputError(f"{side} must be Measurements or a list of them (one per "
                                f"file), got {type(value).__name__}")
    return value


def _samples_plot(measurements: Measurements | None, name: str, heading: str) -> str:
    if measurements is None or name not in measurements.names:
        return ""
    return plot_or_note(partial(draw, measurements, benchmark=name, heading=heading),
                        (7.0, 3.0))


def _analysis_structure(report: AnalysisReport) -> str:
    header = ["benchmark", "runs", "interval units", "between-run std", "within-run std",
              "run-mean std (T1)", "sample std (T2)", f"plan for ±"
              f"{format_number(report.half_width_percent)} %"]
    rows = [[b.name, str(b.n_runs), b.interval_units or "-",
             _quantity(b.between_run_std, b.unit), _quantity(b.within_run_std, b.unit),
             _std(b.between_variance, b.unit), _std(b.within_variance, b.unit), b.plan_text]
            for b in report]
    return table(header, rows)


def _analysis_row_class(item: BenchmarkAnalysis, target: float) -> str:
    if item.mean is None or item.ci_low is None or item.ci_high is None:
        return "inconclusive"
    half = 50.0 * (item.ci_high - item.ci_low) / abs(item.mean) if item.mean else math.inf
    return "improvement" if half <= target else ""


def analysis_page(reports: Sequence[tuple[str | None, AnalysisReport]], *,
                  title: str | None = None, command_line: str | Sequence[str] | None = None,
                  measurements: Sequence[Any] | None = None) -> str:
    """The page of one or more analyses (one per measurement of ``pilotstats analyze``).

    ``measurements`` (optional, one per report) adds each benchmark's samples plot.
    """
    if measurements is not None and len(measurements) != len(reports):
        raise InvalidInputError(f"measurements has {len(measurements)} entries for "
                                f"{len(reports)} report(s)")
    body: list[str] = []
    for position, (label, report) in enumerate(reports):
        shown = _one_measurement(measurements[position], "measurements") if measurements else None
        header, rows, notes = report._table_parts()
        within = sum(_analysis_row_class(b, report.half_width_percent) == "improvement"
                     for b in report)
        with_ci = sum(b.ci_low is not None for b in report)
        if len(reports) > 1 or label:
            body.append(f"<h2>{_esc(label or f'measurement {position + 1}')}</h2>")
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
            plots += _samples_plot(shown, name, "samples")
            body.append(f"<h3>{_esc(name)}</h3><div class=\"plots\">{plots}</div>"
                        + _notes(item.notes))
        shown_notes = {f"  {b.name}: {note}" for b in report for note in b.notes}
        rest = [n.strip() for n in notes if n not in shown_notes]
        if rest:
            body.append("<h3>Other notes</h3>" + _notes(rest))
    return page(title or "pilotstats analysis", body, command_line=command_line)


def comparison_page(report: ComparisonReport, *, title: str | None = None,
                    command_line: str | Sequence[str] | None = None,
                    measurements: tuple[Any, Any] | None = None,
                    sides: tuple[str, str] | None = None) -> str:
    """The page of a comparison; ``measurements`` = (base, new) adds the samples plots."""
    base = _one_measurement(measurements[0], "base") if measurements else None
    new = _one_measurement(measurements[1], "new") if measurements else None
    header, rows, notes = report._table_parts()
    bad = report.has_regression
    summary = (f"{len(report.regressions)} significant regression(s), "
               f"{len(report.improvements)} improvement(s), "
               f"{len(report.inconclusive)} inconclusive of {len(report)} compared "
               f"benchmark(s)")
    body = []
    if sides is not None:
        body.append(f"<p>baseline: <code>{_esc(sides[0])}</code><br>new: "
                    f"<code>{_esc(sides[1])}</code></p>")
    body.append(f'<p class="summary{" bad" if bad else ""}">{_esc(summary)}.</p>')
    body.append(table(header, rows, [c.verdict.replace(" ", "-") if c.verdict in (
        "regression", "improvement", "inconclusive") else "" for c in report]))
    body.append(_notes([n.strip() for n in notes]))
    structure = [[c.name, f"{c.base_n_runs} / {c.new_n_runs}", c.interval_units or "-",
                  "-" if c.base_n_subsessions is None
                  else f"{c.base_n_subsessions} / {c.new_n_subsessions}",
                  _std(c.base_between_variance, c.unit), _std(c.base_within_variance, c.unit),
                  _std(c.new_between_variance, c.unit), _std(c.new_within_variance, c.unit)]
                 for c in report]
    body.append("<h2>Run structure</h2><p>The interval's units are the runs (processes, "
                "repetitions) or, with several files a side, the files; T1 is the standard "
                "deviation of a run mean, T2 that of a sample within a run (Kalibera &amp; "
                "Jones 2013).</p>" + table(
                    ["benchmark", "runs (base / new)", "interval units", "units (base / new)",
                     "base T1", "base T2", "new T1", "new T2"], structure)
                + ("<p>-: not estimated (files as units: each file's mean over its runs is "
                   "one unit; one run on a side; or runs too short).</p>"
                   if any(c.base_between_variance is None for c in report) else ""))
    if len(report) > 1:
        body.append("<h2>All changes</h2>" + plot_or_note(
            report.plot, (8.0, 1.2 + 0.35 * len(report))))
    for item in report:
        name = item.name
        change = plot_or_note(partial(report.plot, benchmark=name), (8.0, 1.9))
        samples = _samples_plot(base, name, "baseline") + _samples_plot(new, name, "new")
        body.append(f'<h2 class="verdict-{_esc(item.verdict.split()[0])}">'
                    f"{_esc(change_title(item))}</h2>{change}"
                    + (f'<div class="plots">{samples}</div>' if samples else "")
                    + _notes([item.note] if item.note else []))
    return page(title or "pilotstats comparison: new vs baseline", body, command_line=command_line)


def trend_page(report: TrendReport, *, title: str | None = None,
               command_line: str | Sequence[str] | None = None) -> str:
    """The page of a trend: the segment table, then each benchmark's trend plot."""
    header, rows = report._table_parts()
    classes: list[str] = []
    for b in report:
        classes += [s.classification for s in b.segments] or ["failed"]
    summary = (f"{len(report)} benchmark(s) over {len(report.labels)} results; "
               f"{len(report.regressions)} end in a regression")
    body = [f'<p class="summary{" bad" if report.regressions else ""}">{_esc(summary)}.</p>',
            table(header, rows, classes),
            "<p>Results, oldest first: " + ", ".join(
                f"<code>{_esc(label)}</code>" for label in report.labels) + "</p>"]
    structure = [[b.name, *("-" if c is None else str(c) for c in b.runs_per_result)]
                 for b in report]
    body.append("<h2>Runs per result</h2>" + table(["benchmark", *report.labels], structure))
    for item in report:
        name = item.name
        plot = plot_or_note(partial(report.plot, benchmark=name), (8.0, 3.6))
        body.append(f"<h2>{_esc(trend_title(item, len(report.labels)))}</h2>{plot}"
                    + _notes([item.note] if item.note else []))
    return page(title or "pilotstats trend", body, command_line=command_line)
