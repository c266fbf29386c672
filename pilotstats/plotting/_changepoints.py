"""Renderers of the change-point results (matplotlib, imported lazily through ``_common``).

The ``plot`` methods of :class:`~pilotstats.changepoints.ChangePoints` (and
:class:`~pilotstats.changepoints.DetectedChangePoints`),
:class:`~pilotstats.changepoints.SingleChangePoint`,
:class:`~pilotstats.changepoints.StablePhase`, :class:`~pilotstats.changepoints.SteadyState`
and :class:`~pilotstats.changepoints.TrendGroups` reach these functions through
:func:`pilotstats.results.draw`. Results do not keep the series, so each takes it back and
checks its length.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._validation import check_choice, check_confidence_level
from pilotstats.exceptions import InvalidInputError
from pilotstats.plotting._common import (
    BAND_ALPHA,
    DATA_COLOUR,
    LEVEL_COLOUR,
    axis_label,
    change_point_lines,
    check_series,
    fit_title,
    interval_band,
    level_text,
    new_axes,
    outside_legend,
    segment_levels,
    value_scale,
)
from pilotstats.results import (
    format_interval,
    format_number,
    format_quantity,
    plot_doc,
    renders,
)

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.changepoints import (
        ChangePoints,
        SingleChangePoint,
        StablePhase,
        SteadyState,
        TrendGroups,
    )

__all__ = ["plot_change_points", "plot_stable_phase", "plot_steady_state", "plot_trend_groups"]

#: Colours of the MDL labels (red regression, green progression).
_LABEL_COLOURS = {"regression": "C3", "progression": "C2"}

_LEVELS = ("median", "mean")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


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


@renders("pilotstats.changepoints.ChangePoints")
@renders("pilotstats.changepoints.SingleChangePoint")
@plot_doc
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

    Change points are dashed vertical lines between the last sample of a segment and the
    first of the next, annotated with their p-values when the detector tested them
    (:class:`~pilotstats.changepoints.DetectedChangePoints`).

    Parameters
    ----------
    result : ChangePoints or SingleChangePoint
        Result of ``edm``, ``edm_single``, ``detect_changes`` or ``EdmStream``.
    {series}
    {ax}
    level : {"median", "mean"}, default "median"
        Statistic drawn as each segment's level (EDM separates medians).
    {unit}
    {ylabel}
    title : str, optional
        Title (default: the method, the change points found, the test and n).

    {returns}

    Raises
    ------
    InvalidInputError
        ``x`` is not a finite 1-D series of the result's length n; unknown ``level``.
    {no_matplotlib}
    """
    data = check_series(x, result.n, what=f"the {type(result).__name__}")
    chosen = check_choice(level, "level", _LEVELS)
    shown_unit, factor = value_scale(data, unit if unit is not None else result.unit)
    ax = new_axes(ax)
    _draw_series(ax, data, factor)
    locations = result.locations
    segments = getattr(result, "segments", None)
    if segments is None:  # a SingleChangePoint keeps no segment statistics
        from pilotstats.changepoints._results import make_segments

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
        title = _change_points_title(result, p_values)
    _label_axes(ax, shown_unit, ylabel, title)
    return ax


def _change_points_title(result: Any, p_values: Any) -> str:
    count = len(result.locations)
    noun = "change point" if count == 1 else "change points"
    title = f"{result.method}: {count} {noun}" if count else f"{result.method}: no change"
    test = getattr(result, "test", None)
    significance = result.parameters.get("significance_level")
    if p_values is not None and test:
        title += f" ({test} test"
        if significance is not None:
            title += f", level {format_number(float(significance), 3)}"
        title += ")"
    return title + f", n = {result.n}"


@renders("pilotstats.changepoints.StablePhase")
@plot_doc
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
    {series}
    {ax}
    {unit}
    {ylabel}
    title : str, optional
        Title (default: the stable phase, its mean and confidence interval).
    show_change_points : bool, default True
        Draw the change points behind the decision (with p-values when the detector
        tested them).

    {returns}

    Raises
    ------
    InvalidInputError
        ``x`` is not a finite 1-D series of the result's length n.
    {no_matplotlib}
    """
    data = check_series(x, result.n, what="the StablePhase")
    unit = unit if unit is not None else result.unit
    shown_unit, factor = value_scale(data, unit)
    ax = new_axes(ax)
    n = result.n
    if result.warmup_length:
        ax.axvspan(-0.5, result.start - 0.5, color="C1", alpha=0.15, linewidth=0,
                   label=f"warm-up ({result.warmup_length} samples)")
    if result.cooldown_length:
        ax.axvspan(result.end - 0.5, n - 0.5, color="C4", alpha=0.15, linewidth=0,
                   label=f"cool-down ({result.cooldown_length} samples)")
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
    _label_axes(ax, shown_unit, ylabel, title if title is not None else
                _stable_phase_title(result, unit))
    return ax


def _stable_phase_title(result: StablePhase, unit: str | None) -> str:
    n = result.n
    if not result.found:
        return (
            f"no stable phase: no segment longer than n/2 = {n / 2:g} "
            f"({len(result.locations)} change points, {result.method})"
        )
    title = f"stable phase [{result.start}, {result.end}) of {n}: mean " + (
        format_quantity(result.mean, unit)
    )
    if result.mean_ci is None:
        return title + " (no CI)"
    return title + " (" + format_interval(
        result.mean_ci.ci_low, result.mean_ci.ci_high, result.confidence_level, unit
    ) + ")"


@renders("pilotstats.changepoints.TrendGroups")
@plot_doc
def plot_trend_groups(
    result: TrendGroups,
    x: Any = None,
    *,
    ax: Any = None,
    unit: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    show_std: bool = True,
    confidence_level: float | None = 0.95,
) -> Any:
    """Samples, MDL group means as steps with their intervals, and the labelled boundaries.

    Each group's mean is a step shaded with its confidence interval
    (:meth:`TrendGroup.mean_half_width <pilotstats.changepoints.TrendGroup.mean_half_width>`)
    and, lighter, ± its std; the title states the newest level with its interval. The first
    run of a regression (red) or progression (green) group gets a dashed line and a
    triangle pointing the way the mean moved; other boundaries are grey.

    Parameters
    ----------
    result : TrendGroups
        Result of :func:`~pilotstats.changepoints.mdl_partition` or ``MdlStream``.
    x : sequence of runs, optional
        The runs the result was computed from (a number or a sequence of samples per run);
        without them only the groups are drawn.
    {ax}
    unit : str, optional
        Label of the measured quantity's unit (a display label; the numeric coding
        resolution is ``result.resolution``); ``"s"`` is auto-scaled.
    {ylabel}
    title : str, optional
        Title (default: groups, regressions and progressions).
    show_std : bool, default True
        Shade mean ± std (``ddof=1``) of each group; groups of one sample have no band.
    confidence_level : float in (0, 1) or None, default 0.95
        Shade the confidence interval of each group mean (None: none); groups of one
        sample have none.

    {returns}

    Raises
    ------
    InvalidInputError
        ``x`` is not a sequence of ``n_runs`` runs of finite numbers.
    {no_matplotlib}
    """
    runs = _trend_runs(result, x)
    scale_from = runs.samples if runs is not None else [g.mean for g in result.groups]
    shown_unit, factor = value_scale(scale_from, unit)
    ax = new_axes(ax)
    if runs is not None:
        counts = np.diff(runs.offsets)
        positions = np.repeat(runs.original, counts)
        ax.plot(positions, runs.samples / factor, ".", color=DATA_COLOUR, markersize=4,
                label="samples")
    level = None if confidence_level is None else check_confidence_level(confidence_level)
    halves = [math.nan if level is None else g.mean_half_width(level) for g in result.groups]
    _draw_group_bands(ax, result, factor, halves, level, show_std)
    segment_levels(ax, [(g.start, g.end, g.mean / factor) for g in result.groups],
                   color=LEVEL_COLOUR, label="group mean")
    for label, colour in _LABEL_COLOURS.items():
        starts = [g.start for g in result.groups if g.classification == label]
        change_point_lines(ax, starts, color=colour, label=label)
        ax.plot(np.asarray(starts, dtype=float) - 0.5,
                [g.mean / factor for g in result.groups if g.classification == label],
                "v" if (label == "regression") == result.higher_is_better else "^",
                color=colour, markersize=7, linestyle="none")
    normal = [g.start for g in result.groups[1:] if g.classification == "normal"]
    change_point_lines(ax, normal, color="0.5", label="boundary (no label)")
    ax.set_xlabel("run index")
    ax.set_ylabel(axis_label(ylabel or "value", shown_unit))
    fit_title(ax, title if title is not None else
              _trend_groups_title(result, halves[-1], shown_unit, factor), fontsize="medium")
    outside_legend(ax)
    return ax


def _trend_runs(result: TrendGroups, x: Any) -> Any:
    """The parsed runs of ``x`` (None without ``x``), checked against the result."""
    if x is None:
        return None
    from pilotstats.changepoints._mdl_input import _parse_values

    policy = "zero" if np.asarray(result.replaced).any() else "omit"
    runs = _parse_values(x, policy)
    if runs.n_original != result.n_runs:
        raise InvalidInputError(
            f"x must be the runs the TrendGroups was computed from, n_runs = "
            f"{result.n_runs}; got {runs.n_original} runs"
        )
    return runs


def _draw_group_bands(ax: Any, result: TrendGroups, factor: float, halves: list[float],
                      level: float | None, show_std: bool) -> None:
    """Shade each group's mean ± std and its confidence interval."""
    if show_std:
        banded = [group for group in result.groups if not math.isnan(group.std)]
        for i, group in enumerate(banded):
            interval_band(ax, [group.start - 0.5, group.end - 0.5],
                          (group.mean - group.std) / factor, (group.mean + group.std) / factor,
                          color=LEVEL_COLOUR, alpha=BAND_ALPHA,
                          label="group mean ± std" if i == 0 else None)
    if level is None:
        return
    label: str | None = f"{level_text(level)} of the group mean"
    for group, half in zip(result.groups, halves, strict=True):
        if math.isnan(half):
            continue
        interval_band(ax, [group.start - 0.5, group.end - 0.5],
                      (group.mean - half) / factor, (group.mean + half) / factor,
                      color=LEVEL_COLOUR, alpha=2.5 * BAND_ALPHA, label=label)
        label = None


def _trend_groups_title(result: TrendGroups, half: float, shown_unit: str | None,
                        factor: float) -> str:
    n_reg = sum(g.classification == "regression" for g in result.groups)
    n_prog = sum(g.classification == "progression" for g in result.groups)
    better = "higher" if result.higher_is_better else "lower"
    newest = result.groups[-1]
    shown_level = format_number(newest.mean / factor)
    if not math.isnan(half):
        shown_level += f" ± {format_number(half / factor, 2)}"
    shown_level += f" {shown_unit}" if shown_unit else ""
    return (
        f"MDL trend: newest level {shown_level} ({newest.classification}); "
        f"{_count(len(result.groups), 'group')} over "
        f"{_count(result.n_runs, 'run')}, {_count(n_reg, 'regression')}, "
        f"{_count(n_prog, 'progression')} ({better} is better)"
    )


@renders("pilotstats.changepoints.SteadyState")
@plot_doc
def plot_steady_state(
    result: SteadyState,
    forks: Any,
    *,
    ax: Any = None,
    unit: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
) -> Any:
    """Every fork as a line, its onset as a dot, the steady mean with its between-fork CI.

    Forks that are not steady are dotted.

    Parameters
    ----------
    result : SteadyState
        Result of :func:`~pilotstats.changepoints.steady_state`.
    forks : array_like or sequence of array_like
        The forks the result was computed from.
    {ax}
    {unit}
    {ylabel}
    title : str, optional
        Title (default: the result's one-line summary).

    {returns}

    Raises
    ------
    InvalidInputError
        ``forks`` not as many series as the result has forks, of the same lengths.
    {no_matplotlib}
    """
    from pilotstats._validation import check_forks

    rows = check_forks(forks)
    if len(rows) != len(result):
        raise InvalidInputError(
            f"forks must be the {len(result)} forks the SteadyState was computed from; got "
            f"{len(rows)}"
        )
    data = [check_series(row, fork.n, name=f"forks[{fork.fork}]", what="the SteadyState")
            for row, fork in zip(rows, result, strict=True)]
    unit = unit if unit is not None else result.unit
    shown_unit, factor = value_scale(np.concatenate(data), unit)
    ax = new_axes(ax)
    for values, fork in zip(data, result, strict=True):
        colour = f"C{fork.fork % 10}"
        style = "-" if fork.steady else ":"
        ax.plot(np.arange(fork.n), values / factor, style, color=colour, linewidth=0.6,
                alpha=0.8, label=f"fork {fork.fork}: {fork.classification}")
        if fork.onset is not None:
            ax.plot([fork.onset], [values[fork.onset] / factor], "o", color=colour,
                    markersize=6, markeredgecolor="black", zorder=3)
    longest = max(fork.n for fork in result)
    if not math.isnan(result.mean):
        span = np.array([-0.5, longest - 0.5])
        if not math.isnan(result.ci_low):
            interval_band(ax, span, result.ci_low / factor, result.ci_high / factor,
                          color=LEVEL_COLOUR, alpha=2 * BAND_ALPHA,
                          label=f"{level_text(result.confidence_level)} between forks")
        ax.axhline(result.mean / factor, color=LEVEL_COLOUR, linewidth=1.5,
                   label="steady mean")
    ax.set_xlabel("iteration")
    ax.set_ylabel(axis_label(ylabel or "value", shown_unit))
    ax.set_title(title if title is not None else str(result), fontsize="medium")
    outside_legend(ax)
    return ax
