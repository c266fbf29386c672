"""Figures of the change-point results (matplotlib, imported lazily through ``_plotting``).

The ``plot`` methods of :class:`~pilotstats.changepoints.ChangePoints`,
:class:`~pilotstats.changepoints.SingleChangePoint`,
:class:`~pilotstats.changepoints.DetectedChangePoints` and
:class:`~pilotstats.changepoints.StablePhase` call these functions. Results do not keep the
series, so each takes it back and checks its length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._plotting import (
    BAND_ALPHA,
    DATA_COLOUR,
    LEVEL_COLOUR,
    axis_label,
    change_point_lines,
    check_series,
    interval_band,
    level_text,
    new_axes,
    outside_legend,
    segment_levels,
    value_scale,
)
from pilotstats._validation import check_choice
from pilotstats.changepoints._results import make_segments
from pilotstats.results import format_interval, format_number, format_quantity

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.changepoints._results import ChangePoints, SingleChangePoint
    from pilotstats.changepoints.stable import StablePhase

__all__ = ["plot_change_points", "plot_stable_phase"]

_LEVELS = ("median", "mean")


def _draw_series(ax: Any, data: np.ndarray, factor: float) -> None:
    ax.plot(
        np.arange(data.shape[0]),
        data / factor,
        ".",
        color=DATA_COLOUR,
        markersize=3,
        label="samples",
    )


def _label_axes(ax: Any, unit: str | None, ylabel: str | None, title: str | None) -> None:
    ax.set_xlabel("sample index")
    ax.set_ylabel(axis_label(ylabel or "value", unit))
    if title:
        ax.set_title(title, fontsize="medium")
    outside_legend(ax)


def plot_change_points(
    result: ChangePoints | SingleChangePoint,
    x: Any,
    *,
    ax: Any = None,
    level: str = "median",
    unit: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
) -> Any:
    """Series, segment levels and change-point markers of a change-point result.

    Parameters
    ----------
    result : ChangePoints or SingleChangePoint
        Result of ``edm``, ``edm_single``, ``detect_changes`` or ``EdmStream``.
    x : array_like, shape (n,)
        The series the result was computed from.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    level : {"median", "mean"}, default "median"
        Statistic drawn as each segment's level (EDM separates medians).
    unit : str, optional
        Unit of ``x`` (default: the result's ``unit``); seconds are auto-scaled.
    ylabel : str, optional
        Name of the measured quantity (default ``"value"``).
    title : str, optional
        Title (default: the method and the change points found).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InvalidInputError
        ``x`` is not a finite 1-D series of the result's length n; unknown ``level``.
    MissingDependencyError
        matplotlib is not installed.
    """
    data = check_series(x, result.n, what=f"the {type(result).__name__}")
    chosen = check_choice(level, "level", _LEVELS)
    shown_unit, factor = value_scale(data, unit if unit is not None else result.unit)
    ax = new_axes(ax)
    _draw_series(ax, data, factor)
    locations = result.locations
    segments = make_segments(data, locations)
    segment_levels(
        ax,
        [(s.start, s.end, getattr(s, chosen) / factor) for s in segments],
        color=LEVEL_COLOUR,
        label=f"segment {chosen}",
    )
    p_values = getattr(result, "p_values", None)
    change_point_lines(ax, locations, p_values=p_values)
    if title is None:
        count = len(locations)
        noun = "change point" if count == 1 else "change points"
        title = f"{result.method}: {count} {noun}" if count else f"{result.method}: no change"
        test = getattr(result, "test", None)
        significance = result.parameters.get("significance_level")
        if p_values is not None and test:
            title += f" ({test} test"
            if significance is not None:
                title += f", level {format_number(float(significance), 3)}"
            title += ")"
        title += f", n = {result.n}"
    _label_axes(ax, shown_unit, ylabel, title)
    return ax


def plot_stable_phase(
    result: StablePhase,
    x: Any,
    *,
    ax: Any = None,
    unit: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    show_change_points: bool = True,
) -> Any:
    """Series with shaded warm-up and cool-down, the stable mean and its CI band.

    Parameters
    ----------
    result : StablePhase
        Result of :func:`~pilotstats.changepoints.stable_phase`.
    x : array_like, shape (n,)
        The series the result was computed from.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    unit : str, optional
        Unit of ``x`` (default: the result's ``unit``); seconds are auto-scaled.
    ylabel : str, optional
        Name of the measured quantity (default ``"value"``).
    title : str, optional
        Title (default: the stable phase, its mean and confidence interval).
    show_change_points : bool, default True
        Draw the change points behind the decision (with p-values when the detector
        tested them).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InvalidInputError
        ``x`` is not a finite 1-D series of the result's length n.
    MissingDependencyError
        matplotlib is not installed.
    """
    data = check_series(x, result.n, what="the StablePhase")
    unit = unit if unit is not None else result.unit
    shown_unit, factor = value_scale(data, unit)
    ax = new_axes(ax)
    n = result.n
    if result.warmup:
        ax.axvspan(-0.5, result.start - 0.5, color="C1", alpha=0.15, linewidth=0,
                   label=f"warm-up ({result.warmup} samples)")
    if result.cooldown:
        ax.axvspan(result.end - 0.5, n - 0.5, color="C4", alpha=0.15, linewidth=0,
                   label=f"cool-down ({result.cooldown} samples)")
    _draw_series(ax, data, factor)
    span = np.array([result.start - 0.5, result.end - 0.5])
    if result.found:
        if result.mean_ci is not None:
            low, high = result.confidence_interval()
            interval_band(ax, span, low / factor, high / factor, color=LEVEL_COLOUR,
                          alpha=2 * BAND_ALPHA,
                          label=f"{level_text(result.confidence_level)} of the mean")
        segment_levels(ax, [(result.start, result.end, result.mean / factor)],
                       color=LEVEL_COLOUR, label="stable-phase mean")
    if show_change_points:
        change_point_lines(ax, result.locations, p_values=result.change_points.p_values)
    if title is None:
        if not result.found:
            title = (
                f"no stable phase: no segment longer than n/2 = {n / 2:g} "
                f"({len(result.locations)} change points, {result.method})"
            )
        else:
            title = f"stable phase [{result.start}, {result.end}) of {n}: mean " + (
                format_quantity(result.mean, unit)
            )
            if result.mean_ci is not None:
                title += " (" + format_interval(
                    result.mean_ci.ci_low, result.mean_ci.ci_high, result.confidence_level, unit
                ) + ")"
            else:
                title += " (no CI)"
    _label_axes(ax, shown_unit, ylabel, title)
    return ax
