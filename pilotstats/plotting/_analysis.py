"""Renderers of measurements and analysis reports (matplotlib, imported lazily).

Each function draws on a given ``ax`` (or a new figure) and returns the axes, with labelled
axes, units and the confidence level written next to every interval.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats.plotting._common import (
    DATA_COLOUR,
    LEVEL_COLOUR,
    axis_label,
    fit_title,
    interval_band,
    level_text,
    new_axes,
    outside_legend,
    time_scale,
    value_scale,
)
from pilotstats.results import format_number, plot_doc, renders

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.analysis import (
        AnalysisReport,
        BenchmarkAnalysis,
        ComparisonReport,
        TrendReport,
    )
    from pilotstats.io import Measurements

__all__ = ["plot_analysis", "plot_comparison", "plot_measurements", "plot_trend"]

_VERDICT_COLORS = {"regression": "tab:red", "progression": "tab:green",
                   "no significant change": "tab:gray", "not analysable": "lightgray"}

#: Runs named in the legend of :func:`plot_measurements` (the others are counted).
_RUNS_IN_LEGEND = 8


@renders("pilotstats.io.Measurements")
@plot_doc
def plot_measurements(measurements: Measurements, *, benchmark: str | None = None,
                      ax: Any = None, heading: str | None = None) -> Any:
    """Time per unit of work of each sample in time order, one colour per run.

    Every sample is a filled marker; harness warm-ups are crosses. Runs from several files
    (:func:`~pilotstats.io.load_many`) are coloured by file, otherwise by run; the legend
    names the files or runs (the first eight and how many more) and the warm-ups; the
    title gives the benchmark, its samples and runs.

    Parameters
    ----------
    measurements : Measurements
        Samples to draw.
    benchmark : str, optional
        Which benchmark (default: the first).
    {ax}
    heading : str, optional
        Written before the title instead of the benchmark's name (e.g. ``"baseline"``).

    {returns}

    Notes
    -----
    Complexity: O(n) for n samples, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pilotstats.io import Measurements
    >>> ax = plot_measurements(Measurements([1e-3, 1.1e-3, 1e-3], benchmark="b"))
    >>> ax.get_ylabel(), ax.get_title()
    ('time per work unit (ms)', 'b: 3 samples, 1 run')
    """
    name = benchmark if benchmark is not None else measurements.names[0]
    part = measurements[name] if len(measurements) > 1 or benchmark else measurements
    ax = new_axes(ax)
    label, factor = time_scale(part.time_per_work)
    runs = list(part.by_run())
    files = _run_files(part.metadata.get(name, {}), [run_id for run_id, _ in runs])
    groups = sorted(set(files.values()), key=list(files.values()).index)
    position = 0
    named: dict[Any, Any] = {}
    warm_label: str | None = "harness warm-up"
    for run_id, run in runs:
        y = run.time_per_work / factor
        x = np.arange(position, position + y.size)
        warm = run.warmup
        key = files.get(run_id, run_id)
        colour = (f"C{groups.index(files[run_id]) % 10}" if files else
                  f"C{len(named) % 10}" if key not in named else named[key])
        text = None
        if key not in named and len(named) < _RUNS_IN_LEGEND:
            count = sum(1 for f in files.values() if f == key)
            text = (f"{key} ({count} run{'s' if count != 1 else ''})" if files
                    else f"run {run_id}")
        named.setdefault(key, colour)
        ax.plot(x[~warm], y[~warm], "o", markersize=3, color=colour, label=text)
        if warm.any():
            ax.plot(x[warm], y[warm], "x", markersize=4, color=colour, label=warm_label)
            warm_label = None
        position += y.size
    hidden = (len(groups) if files else len(runs)) - _RUNS_IN_LEGEND
    if hidden > 0:
        ax.plot([], [], " ", label=f"+ {hidden} more {'files' if files else 'runs'}")
    ax.set_xlabel("sample (runs in time order" + (", coloured by file)" if files else ")"))
    ax.set_ylabel(f"time per work unit ({label})")
    count = len(runs)
    fit_title(ax, f"{heading or name}: {part.n_samples} samples, "
              f"{count} run{'s' if count != 1 else ''}"
              + (f" in {len(groups)} files" if files else ""))
    outside_legend(ax)
    return ax


def _run_files(meta: Any, run_ids: list[Any]) -> dict[Any, str]:
    """{run id: file name} when the runs come from two files or more, else empty."""
    from pathlib import PurePath

    sources = meta.get("run_sources") if hasattr(meta, "get") else None
    if not isinstance(sources, dict):
        return {}
    names = {run_id: PurePath(str(sources[run_id])).name for run_id in run_ids
             if run_id in sources}
    if len(set(sources.values())) < 2 or len(names) != len(run_ids):
        return {}
    if len(set(names.values())) < len(set(sources[r] for r in run_ids)):  # same base names
        names = {r: "/".join(PurePath(str(sources[r])).parts[-2:]) for r in run_ids}
    return names


@renders("pilotstats.analysis.AnalysisReport")
@plot_doc
def plot_analysis(report: AnalysisReport, *, benchmark: str | None = None,
                  ax: Any = None) -> Any:
    """Each benchmark's estimate with its interval, in absolute values.

    One benchmark (``benchmark`` given, or a report of one): the estimate as a line with
    its interval as a band, each run's statistic as a point (the units of a run-level
    interval) and the ``±half_width_percent`` target; the title states the estimate and
    its interval. Several benchmarks (of different magnitudes): one row each, the interval
    drawn relative to its estimate (%) and written next to it in absolute values.

    Parameters
    ----------
    report : AnalysisReport
        Result of :func:`~pilotstats.analysis.analyze`.
    benchmark : str, optional
        Draw only this benchmark (absolute values on the y axis).
    {ax}

    {returns}

    Notes
    -----
    Complexity: O(B + R) artists for B benchmarks of R runs, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> ax = analyze(Measurements(rng.normal(1.0, 0.01, 100), benchmark="b")).plot()
    >>> ax.get_title()
    'b: mean 1.001 s [0.9987, 1.003 s] (95 % CI, 1 run)'
    """
    if benchmark is not None or len(report) == 1:
        item = report[benchmark] if benchmark is not None else report.benchmarks[0]
        return _plot_one_analysis(item, new_axes(ax))
    ax = new_axes(ax)
    rows = [b for b in report if b.mean and b.ci_low is not None and b.ci_high is not None]
    y = np.arange(len(rows))
    for i, item in enumerate(rows):
        mean = float(item.mean or 0.0)
        low = 100.0 * (float(item.ci_low or 0.0) / mean - 1.0)
        high = 100.0 * (float(item.ci_high or 0.0) / mean - 1.0)
        ax.hlines(i, low, high, color="tab:blue", linewidth=3)
        ax.annotate(f" {_estimate_text(item)}", xy=(high, i), fontsize=7, va="center")
    ax.plot(np.zeros(len(rows)), y, "k|", markersize=12)
    ax.axvline(-report.half_width_percent, color="tab:gray", linestyle=":")
    ax.axvline(report.half_width_percent, color="tab:gray", linestyle=":",
               label=f"target ±{format_number(report.half_width_percent)} %")
    ax.set_yticks(y, [f"{b.name} ({_runs_text(b)})" for b in rows], fontsize=7)
    ax.set_xlabel(f"interval relative to the estimate (%, {level_text(report.confidence_level)})")
    within = sum(b.achieved_half_width_percent <= report.half_width_percent for b in rows)
    fit_title(ax, f"{len(report)} benchmarks: {within} of {len(rows)} intervals within "
              f"±{format_number(report.half_width_percent)} %"
              + (f", {len(report) - len(rows)} without an interval"
                 if len(rows) < len(report) else ""))
    ax.legend(fontsize=7)
    return ax


def _runs_text(item: BenchmarkAnalysis) -> str:
    return f"{item.n_runs} run{'s' if item.n_runs != 1 else ''}"


def _estimate_text(item: BenchmarkAnalysis) -> str:
    """``"mean 1.874 ms [0.9597, 2.788 ms]"`` (one unit for the whole text)."""
    if item.mean is None:
        return f"({item.status})"
    shown, factor = value_scale([item.mean], item.unit)
    unit = f" {shown}" if shown else ""
    text = f"{item.summary_statistic} {format_number(item.mean / factor)}{unit}"
    if item.ci_low is None or item.ci_high is None:
        return text + " (no interval)"
    return (text + f" [{format_number(item.ci_low / factor)}, "
            f"{format_number(item.ci_high / factor)}{unit}]")


def _plot_one_analysis(item: BenchmarkAnalysis, ax: Any) -> Any:
    level = level_text(item.confidence_level)
    values = [v for v in (item.mean, item.ci_low, item.ci_high, *item.run_values)
              if v is not None]
    shown, factor = value_scale(values, item.unit)
    if item.run_values:
        runs = np.asarray(item.run_values, dtype=float) / factor
        ax.plot(np.arange(runs.size), runs, "o", color=DATA_COLOUR, markersize=4,
                label=f"each {item.interval_units[:-1] if item.interval_units else 'run'}'s "
                f"{item.summary_statistic.split()[-1]}")
        span = [-0.5, runs.size - 0.5]
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel(f"{item.interval_units or 'runs'} (in order)")
    else:
        span = [-0.5, 0.5]
        ax.set_xticks([])
        ax.set_xlabel("one run (no run-to-run variation in the interval)")
    if item.mean is not None:
        if item.ci_low is not None and item.ci_high is not None:
            interval_band(ax, span, item.ci_low / factor, item.ci_high / factor,
                          label=f"{level} of the {item.summary_statistic}")
        ax.plot(span, [item.mean / factor] * 2, color=LEVEL_COLOUR, linewidth=2,
                label=item.summary_statistic)
        target = abs(item.mean) * item.half_width_percent / 100.0
        text = f"target ±{format_number(item.half_width_percent)} %"
        drawn = item.ci_low is None or item.ci_high is None or (
            target >= 0.05 * (item.ci_high - item.ci_low))
        for sign in (-1, 1) if drawn else ():
            ax.plot(span, [(item.mean + sign * target) / factor] * 2, "--",
                    color="tab:orange", linewidth=1, label=text if sign > 0 else None)
        if not drawn:
            ax.plot([], [], " ", label=f"{text} (too narrow to draw)")
    ax.set_ylabel(axis_label(f"{item.summary_statistic} time per work unit"
                             if item.unit == "s" else item.summary_statistic, shown))
    fit_title(ax, f"{item.name}: {_estimate_text(item)} ({level}, {_runs_text(item)})")
    outside_legend(ax)
    return ax


@renders("pilotstats.analysis.ComparisonReport")
@plot_doc
def plot_comparison(report: ComparisonReport, *, benchmark: str | None = None,
                    ax: Any = None) -> Any:
    """Forest plot of relative changes (new vs baseline) with their run-level intervals.

    Each change is ``ratio - 1`` of the run-level estimates with its Fieller interval (see
    :func:`~pilotstats.analysis.compare`). Points are coloured by verdict (red regression,
    green progression, grey no change); inconclusive benchmarks (one run on a side) have
    no interval and are counted in the title. With one benchmark (``benchmark`` given, or a
    report of one) the title states the answer: the change, its interval and the verdict.

    Parameters
    ----------
    report : ComparisonReport
        Result of :func:`~pilotstats.analysis.compare`.
    benchmark : str, optional
        Draw only this benchmark.
    {ax}

    {returns}

    Notes
    -----
    Complexity: O(B) artists for B benchmarks, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import compare
    >>> rng = np.random.default_rng(0)
    >>> runs = np.repeat(np.arange(5), 20)  # 5 processes of 20 samples per side
    >>> old = Measurements(rng.normal(1.0, 0.01, 100), run=runs, benchmark="b")
    >>> new = Measurements(rng.normal(1.1, 0.01, 100), run=runs, benchmark="b")
    >>> ax = compare(old, new).plot()
    >>> ax.get_xlabel()
    'change of the run-level mean, new vs baseline (%, 95 % CI)'
    >>> ax.get_title()
    'b: +9.86 % [+9.54, +10.18 %] regression (95 % CI, 5 vs 5 runs)'
    """
    from pilotstats.analysis._titles import change_title

    ax = new_axes(ax)
    chosen = list(report) if benchmark is None else [report[benchmark]]
    rows = [c for c in chosen if c.relative_change is not None and c.relative_ci_low is not None]
    y = np.arange(len(rows))
    for i, item in enumerate(rows):
        color = _VERDICT_COLORS.get(item.verdict, "tab:gray")
        low = 100.0 * (item.relative_ci_low if item.relative_ci_low is not None else np.nan)
        high = 100.0 * (item.relative_ci_high if item.relative_ci_high is not None else np.nan)
        ax.hlines(i, low, high, color=color, linewidth=3)
        ax.plot(100.0 * float(item.relative_change or 0.0), i, "o", color=color)
    ax.axvline(0.0, color="black", linewidth=0.8)
    if report.min_change_percent > 0:
        for sign in (-1, 1):
            ax.axvline(sign * report.min_change_percent, color="tab:gray", linestyle=":")
    ax.set_yticks(y, [c.name for c in rows], fontsize=7)
    ax.set_xlabel(
        f"change of the run-level mean, new vs baseline (%, "
        f"{level_text(report.confidence_level)})"
    )
    if len(chosen) == 1:
        ax.set_yticks([])  # the title names the benchmark
        for i, item in enumerate(rows):
            ax.annotate(f"{100.0 * float(item.relative_change or 0.0):+.2f} %",
                        xy=(100.0 * float(item.relative_change or 0.0), i),
                        xytext=(0, 6), textcoords="offset points", ha="center",
                        fontsize=8)
        fit_title(ax, change_title(chosen[0]), fontsize="medium")
        return ax
    _verdict_legend(ax, rows)
    undecided = sum(c.verdict == "inconclusive" for c in chosen)
    missing = len(chosen) - len(rows) - undecided
    fit_title(ax, f"new vs baseline: {len(report.regressions)} regression(s), "
              f"{len(report.progressions)} progression(s) of {len(rows)} compared"
              + (f", {undecided} inconclusive (1 run on a side)" if undecided else "")
              + (f", {missing} not analysable" if missing else ""))
    return ax


def _verdict_legend(ax: Any, rows: list[Any]) -> None:
    """One legend entry per verdict drawn (point: change, bar: interval)."""
    from matplotlib.lines import Line2D

    shown = [v for v in _VERDICT_COLORS if any(c.verdict == v for c in rows)]
    handles = [Line2D([], [], color=_VERDICT_COLORS[v], marker="o", linewidth=3, label=v)
               for v in shown]
    if handles:
        ax.legend(handles=handles, fontsize=7, title="verdict (point: change, bar: CI)",
                  title_fontsize=7)


@renders("pilotstats.analysis.TrendReport")
@plot_doc
def plot_trend(report: TrendReport, *, benchmark: str | None = None, ax: Any = None) -> Any:
    """Per-result means of one benchmark, the MDL levels and each level's interval.

    Each result's mean is a point with its interval (runs as units when it has several);
    each MDL segment is a step at its level, shaded with the confidence interval of the
    level (the mean of the segment's result means, a t interval over them; none for a
    segment of one result). Results are labelled with their :attr:`TrendReport.labels`
    (file names); the title states the newest level and its classification.

    Parameters
    ----------
    report : TrendReport
        Result of :func:`~pilotstats.analysis.trend`.
    benchmark : str, optional
        Which benchmark (default: the first).
    {ax}

    {returns}

    Notes
    -----
    Complexity: O(R) for R results, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import trend
    >>> files = [Measurements([1.0, 1.01, 0.99] * 10, benchmark="b") for _ in range(3)]
    >>> files += [Measurements([2.0, 2.01, 1.99] * 10, benchmark="b") for _ in range(3)]
    >>> ax = trend(files).plot()
    >>> ax.get_ylabel()
    'mean time per work unit (s)'
    >>> ax.get_title()
    'b: newest level 2 s, regression (+100 % vs 1 s); 2 levels over 6 results'
    """
    from pilotstats.analysis._titles import trend_title

    ax = new_axes(ax)
    item = report[benchmark] if benchmark is not None else report.benchmarks[0]
    means = np.array([np.nan if v is None else v for v in item.means], dtype=float)
    label, factor = time_scale(means)
    x = np.arange(means.size)
    low = np.array([np.nan if v is None else v for v in item.ci_low] or [np.nan] * x.size)
    high = np.array([np.nan if v is None else v for v in item.ci_high] or [np.nan] * x.size)
    has_ci = np.isfinite(low) & np.isfinite(high) & np.isfinite(means)
    level = level_text(report.confidence_level)
    if has_ci.any():
        ax.errorbar(x[has_ci], means[has_ci] / factor,
                    yerr=[(means - low)[has_ci] / factor, (high - means)[has_ci] / factor],
                    fmt="none", ecolor="tab:blue", alpha=0.6, capsize=2,
                    label=f"interval of each mean ({level})")
    ax.plot(x, means / factor, "o", color="tab:blue", label="mean of each result")
    band_label: str | None = f"{level} of each level"
    for segment in item.segments:
        color = {"regression": "tab:red", "progression": "tab:green"}.get(
            segment.classification, "black")
        ax.hlines(segment.mean / factor, segment.start - 0.4, segment.end - 0.6, color=color,
                  linewidth=2)
        half = segment.mean_half_width(report.confidence_level)
        if not math.isnan(half):
            interval_band(ax, [segment.start - 0.4, segment.end - 0.6],
                          (segment.mean - half) / factor, (segment.mean + half) / factor,
                          color=color, label=band_label)
            band_label = None
    ax.set_xticks(x, list(report.labels), rotation=60 if means.size > 4 else 0, fontsize=7,
                  ha="right" if means.size > 4 else "center")
    ax.set_xlabel("result (oldest first)")
    ax.set_ylabel(f"mean time per work unit ({label})")
    fit_title(ax, trend_title(item, len(report.labels)))
    ax.legend(fontsize=7)
    return ax
