"""Figures for measurements and analysis reports (matplotlib, imported lazily).

Each function draws on a given ``ax`` (or a new figure) and returns the axes, with labelled
axes, units and the confidence level written next to every interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._plotting import level_text, new_axes, time_scale
from pilotstats.results import format_number

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.analysis._analyze import AnalysisReport
    from pilotstats.analysis._compare import ComparisonReport
    from pilotstats.analysis._trend import TrendReport
    from pilotstats.io import Measurements

__all__ = ["plot_analysis", "plot_comparison", "plot_measurements", "plot_trend"]

_VERDICT_COLORS = {"regression": "tab:red", "improvement": "tab:green",
                   "no significant change": "tab:gray", "not analysable": "lightgray"}


def plot_measurements(measurements: Measurements, *, benchmark: str | None = None,
                      ax: Any = None) -> Any:
    """Time per unit of work of each sample in time order, one colour per run.

    Harness warm-ups are drawn hollow.

    Parameters
    ----------
    measurements : Measurements
        Samples to draw.
    benchmark : str, optional
        Which benchmark (default: the first).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Complexity: O(n) for n samples, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pilotstats.io import Measurements
    >>> ax = plot_measurements(Measurements([1e-3, 1.1e-3, 1e-3], benchmark="b"))
    >>> ax.get_ylabel()
    'time per work unit (ms)'
    """
    name = benchmark if benchmark is not None else measurements.names[0]
    part = measurements[name] if len(measurements) > 1 or benchmark else measurements
    ax = new_axes(ax)
    values = part.time_per_work
    label, factor = time_scale(values)
    position = 0
    for run_id, run in part.by_run():
        y = run.time_per_work / factor
        x = np.arange(position, position + y.size)
        warm = run.warmup
        line = ax.plot(x[~warm], y[~warm], "o", markersize=3, label=f"run {run_id}")[0]
        if warm.any():
            ax.plot(x[warm], y[warm], "o", markersize=3, markerfacecolor="none",
                    color=line.get_color())
        position += y.size
    ax.set_xlabel("sample (runs in time order)")
    ax.set_ylabel(f"time per work unit ({label})")
    ax.set_title(name)
    if len(part.runs) <= 10:
        ax.legend(fontsize=7)
    return ax


def plot_analysis(report: AnalysisReport, *, ax: Any = None) -> Any:
    """Forest plot: each benchmark's interval relative to its estimate (percent).

    Parameters
    ----------
    report : AnalysisReport
        Result of :func:`~pilotstats.analysis.analyze`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Complexity: O(B) artists for B benchmarks, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> ax = analyze(Measurements(rng.normal(1.0, 0.01, 100), benchmark="b")).plot()
    >>> ax.get_xlabel()
    'interval relative to the estimate (%, 95 % CI)'
    """
    ax = new_axes(ax)
    names, lows, highs = [], [], []
    for item in report:
        if item.mean is None or item.ci_low is None or item.ci_high is None or not item.mean:
            continue
        names.append(f"{item.name} (q = {item.subsession_size}, n = {item.n})")
        lows.append(100.0 * (item.ci_low / item.mean - 1.0))
        highs.append(100.0 * (item.ci_high / item.mean - 1.0))
    y = np.arange(len(names))
    ax.hlines(y, lows, highs, color="tab:blue", linewidth=3)
    ax.plot(np.zeros(len(names)), y, "k|", markersize=12)
    ax.axvline(-report.half_width_percent, color="tab:gray", linestyle=":")
    ax.axvline(report.half_width_percent, color="tab:gray", linestyle=":",
               label=f"target ±{format_number(report.half_width_percent)} %")
    ax.set_yticks(y, names, fontsize=7)
    ax.set_xlabel(f"interval relative to the estimate (%, {level_text(report.confidence_level)})")
    ax.legend(fontsize=7)
    return ax


def plot_comparison(report: ComparisonReport, *, ax: Any = None) -> Any:
    """Forest plot of relative changes (new vs baseline) with their run-level intervals.

    Each change is ``ratio - 1`` of the run-level estimates with its Fieller interval (see
    :func:`~pilotstats.analysis.compare`). Points are coloured by verdict (red regression,
    green improvement, grey no change); inconclusive benchmarks (one run on a side) have
    no interval and are counted in the title.

    Parameters
    ----------
    report : ComparisonReport
        Result of :func:`~pilotstats.analysis.compare`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

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
    >>> compare(old, new).plot().get_xlabel()
    'change of the run-level mean, new vs baseline (%, 95 % CI)'
    """
    ax = new_axes(ax)
    rows = [c for c in report if c.relative_change is not None and c.relative_ci_low is not None]
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
    from matplotlib.lines import Line2D

    shown = [v for v in _VERDICT_COLORS if any(c.verdict == v for c in rows)]
    handles = [Line2D([], [], color=_VERDICT_COLORS[v], marker="o", linewidth=3, label=v)
               for v in shown]
    if handles:
        ax.legend(handles=handles, fontsize=7, title="verdict (point: change, bar: CI)",
                  title_fontsize=7)
    undecided = len(report.inconclusive)
    missing = len(report.comparisons) - len(rows) - undecided
    ax.set_title(f"new vs baseline: {len(report.regressions)} regression(s), "
                 f"{len(report.improvements)} improvement(s) of {len(rows)} compared"
                 + (f", {undecided} inconclusive (1 run on a side)" if undecided else "")
                 + (f", {missing} not analysable" if missing else ""))
    return ax


def plot_trend(report: TrendReport, *, benchmark: str | None = None, ax: Any = None) -> Any:
    """Per-result means of one benchmark with the MDL levels drawn as steps.

    Parameters
    ----------
    report : TrendReport
        Result of :func:`~pilotstats.analysis.trend`.
    benchmark : str, optional
        Which benchmark (default: the first).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

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
    >>> trend(files).plot().get_ylabel()
    'mean time per work unit (s)'
    """
    ax = new_axes(ax)
    item = report[benchmark] if benchmark is not None else report.benchmarks[0]
    means = np.array([np.nan if v is None else v for v in item.means], dtype=float)
    label, factor = time_scale(means)
    x = np.arange(means.size)
    low = np.array([np.nan if v is None else v for v in item.ci_low] or [np.nan] * x.size)
    high = np.array([np.nan if v is None else v for v in item.ci_high] or [np.nan] * x.size)
    has_ci = np.isfinite(low) & np.isfinite(high) & np.isfinite(means)
    if has_ci.any():
        level = level_text(report.confidence_level)
        ax.errorbar(x[has_ci], means[has_ci] / factor,
                    yerr=[(means - low)[has_ci] / factor, (high - means)[has_ci] / factor],
                    fmt="none", ecolor="tab:blue", alpha=0.6, capsize=2,
                    label=f"interval of each mean ({level})")
    ax.plot(x, means / factor, "o", color="tab:blue", label="mean of each result")
    for segment in item.segments:
        color = {"regression": "tab:red", "progression": "tab:green"}.get(
            segment.classification, "black")
        ax.hlines(segment.mean / factor, segment.start - 0.4, segment.end - 0.6, color=color,
                  linewidth=2)
    ax.set_xticks(x, list(report.labels), rotation=60, fontsize=7)
    ax.set_xlabel("result (oldest first)")
    ax.set_ylabel(f"mean time per work unit ({label})")
    ax.set_title(f"{item.name}: MDL levels (red: regression, green: progression)")
    ax.legend(fontsize=7)
    return ax
