"""Renderers of the regression results (matplotlib, imported lazily through ``_common``).

Reached through :func:`pilotstats.results.draw` from
:meth:`WpsResult.plot <pilotstats.regression.WpsResult.plot>`,
:meth:`CalibrationResult.plot <pilotstats.regression.CalibrationResult.plot>`,
:meth:`Prediction.plot <pilotstats.regression.Prediction.plot>` and the calibration
diagnostics :meth:`ConfidenceRegion.plot <pilotstats.regression.ConfidenceRegion.plot>`
(joint confidence region: ellipse and exact contour of S) and
:meth:`ResidualDiagnostics.plot <pilotstats.regression.ResidualDiagnostics.plot>`
(standardised residuals against the conditions).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._validation import as_float_array, check_int
from pilotstats.exceptions import InvalidInputError
from pilotstats.plotting._common import (
    BAND_ALPHA,
    DATA_COLOUR,
    LEVEL_COLOUR,
    axis_label,
    check_series,
    interval_band,
    level_text,
    new_axes,
    outside_legend,
    time_scale,
)
from pilotstats.results import (
    format_interval,
    format_number,
    format_quantity,
    plot_doc,
    renders,
)

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.regression import (
        CalibrationResult,
        ConfidenceRegion,
        Prediction,
        ResidualDiagnostics,
        WpsResult,
    )

__all__ = ["plot_calibration", "plot_prediction", "plot_region", "plot_residuals", "plot_wps"]

#: Points of the fitted line and bands of a WPS plot.
_LINE_POINTS = 200

#: Largest integer-valued condition range filled in point by point for a calibration curve.
_MAX_INTEGER_GRID = 500


@renders("pilotstats.regression.WpsResult")
@plot_doc
def plot_wps(
    result: WpsResult,
    work: Any,
    durations: Any,
    *,
    ax: Any = None,
    prediction_band: bool = True,
    title: str | None = None,
) -> Any:
    """Rounds (work vs duration), the WPS line, its confidence and prediction bands.

    Rounds kept by the filters are filled dots, excluded ones hollow; around the line the
    confidence band of the mean duration (:meth:`WpsResult.mean_duration_interval
    <pilotstats.regression.WpsResult.mean_duration_interval>`) and, lighter, the prediction
    band of :meth:`WpsResult.predict <pilotstats.regression.WpsResult.predict>`.

    Parameters
    ----------
    result : WpsResult
        Result of :func:`~pilotstats.regression.wps`.
    work, durations : array_like, shape (n_rounds,)
        The rounds the result was computed from (durations in seconds).
    {ax}
    prediction_band : bool, default True
        Also draw the prediction band of :meth:`WpsResult.predict`.
    title : str, optional
        Title (default: the throughput with its confidence interval).

    {returns}

    Raises
    ------
    InvalidInputError
        The rounds are not finite 1-D arrays of length ``n_rounds``.
    {no_matplotlib}
    """
    what = "the WpsResult"
    work = check_series(work, result.n_rounds, name="work", what=what)
    duration = check_series(durations, result.n_rounds, name="durations", what=what)
    label, factor = time_scale(duration)
    ax = new_axes(ax)
    used = np.zeros(result.n_rounds, dtype=bool)
    used[np.asarray(result.rounds_used, dtype=np.int64)] = True
    ax.plot(work[used], duration[used] / factor, "o", color=DATA_COLOUR, markersize=3,
            label=f"rounds used ({int(used.sum())})")
    if not used.all():
        ax.plot(work[~used], duration[~used] / factor, "o", color=DATA_COLOUR, markersize=3,
                markerfacecolor="none", alpha=0.7,
                label=f"rounds excluded ({int((~used).sum())})")
    grid = np.linspace(float(work.min()), float(work.max()), _LINE_POINTS)
    fitted = result.alpha + result.slope * grid
    level = result.confidence_level
    q = result.subsession_size
    if math.isfinite(result.residual_std_error) and result.dof > 0:
        if prediction_band:
            predicted = result.predict(grid)
            what_pi = "a round" if q == 1 else f"the mean of {q} rounds"
            interval_band(ax, grid, np.asarray(predicted.low) / factor,
                          np.asarray(predicted.high) / factor, color=LEVEL_COLOUR,
                          alpha=BAND_ALPHA / 2,
                          label=f"{level_text(level, 'PI')} of {what_pi}")
        low, high = result.mean_duration_interval(grid)
        interval_band(ax, grid, low / factor, high / factor, color=LEVEL_COLOUR,
                      alpha=2 * BAND_ALPHA, label=f"{level_text(level)} of the mean duration")
    ax.plot(grid, fitted / factor, "-", color=LEVEL_COLOUR, linewidth=2.0,
            label=f"t = α + w/v (α = {format_quantity(result.alpha, 's')})")
    ax.set_xlabel(axis_label("work per round", result.unit))
    ax.set_ylabel(axis_label("round duration", label))
    ax.set_title(title if title is not None else _wps_title(result), fontsize="medium")
    outside_legend(ax)
    return ax


def _wps_title(result: WpsResult) -> str:
    rate = f"{result.unit}/s"
    if result.valid:
        interval = format_interval(result.throughput_ci_low, result.throughput_ci_high,
                                   result.confidence_level, rate)
        if math.isinf(result.throughput_ci_high):
            interval = interval.replace(", inf]", ", inf)")
        title = f"WPS: v = {format_quantity(result.throughput, rate)} ({interval})"
    else:
        title = "WPS: throughput undetermined (slope <= 0)"
    return title + f"\nq = {result.subsession_size}, h = {result.n_subsessions} subsessions"


def _condition_axis(conditions: Any, condition_index: int | None, name: str) -> np.ndarray:
    """Numeric position of each trial condition on the x axis."""
    rows = list(conditions)
    if condition_index is None:
        try:
            return as_float_array(rows, name)
        except InvalidInputError as exc:
            raise InvalidInputError(
                f"{name} are not scalars; pass condition_index= (which entry of each "
                "condition row to put on the x axis) or x= (the positions)"
            ) from exc
    index = check_int(condition_index, "condition_index", low=0)
    try:
        values = [np.ravel(np.asarray(row, dtype=float))[index] for row in rows]
    except (IndexError, TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"condition_index={index} does not select a number from every row of {name}"
        ) from exc
    return as_float_array(values, name)


def _default_curve(conditions: Any, positions: np.ndarray, index: int | None) -> Any:
    """Dense conditions for the model curve: every integer between the measured ones."""
    if index is None and np.all(positions == np.round(positions)):
        low, high = int(positions.min()), int(positions.max())
        if 0 < high - low <= _MAX_INTEGER_GRID:
            return list(range(low, high + 1))
    return list(conditions)


@renders("pilotstats.regression.CalibrationResult")
def plot_calibration(
    result: CalibrationResult,
    output: int = 0,
    *,
    conditions: Any = None,
    x_axis: Any = None,
    condition_index: int | None = None,
    ax: Any = None,
    prediction_band: bool = True,
    xlabel: str | None = None,
    ylabel: str | None = None,
    unit: str | None = None,
    title: str | None = None,
) -> Any:
    """Measurements of one output against the calibrated model with CI and PI bands.

    Parameters and errors: :meth:`CalibrationResult.plot
    <pilotstats.regression.CalibrationResult.plot>`.
    """
    problem = result._problem
    m = int(problem.z.shape[1])
    column = check_int(output, "output", low=0)
    if column >= m:
        raise InvalidInputError(f"output must lie in [0, {m - 1}] (one per measure), got {column}")
    measured_x = _condition_axis(problem.condition_list, condition_index, "conditions")
    if conditions is None:
        curve_conditions = _default_curve(problem.condition_list, measured_x, condition_index)
    else:
        curve_conditions = list(conditions)
    if x_axis is None:
        curve_x = _condition_axis(curve_conditions, condition_index, "conditions")
    else:
        curve_x = check_series(x_axis, len(curve_conditions), name="x_axis", what="the conditions")
    order = np.argsort(curve_x, kind="stable")
    ax = new_axes(ax)
    lowest, highest = float(measured_x.min()), float(measured_x.max())
    outside = [(float(curve_x.min()), lowest), (highest, float(curve_x.max()))]
    shaded = False
    for begin, end in outside:
        if end > begin:
            ax.axvspan(begin, end, color="0.95", linewidth=0, zorder=0,
                       label=None if shaded else "extrapolation")
            shaded = True
    z = problem.z[:, column]
    observed = np.isfinite(z)
    ax.plot(measured_x[observed], z[observed], "o", color="black", markersize=4,
            label="measured", zorder=3)
    mean = result.predict(curve_conditions)
    _draw_prediction(ax, mean, curve_x[order], column, order, label="model")
    if prediction_band and result.weighting in ("ols", "irls", "fixed"):
        new = result.prediction_interval(curve_conditions)
        xs = curve_x[order]
        interval_band(ax, xs, new.low[order, column], new.high[order, column],
                      color=LEVEL_COLOUR, alpha=BAND_ALPHA / 2,
                      label=f"{level_text(new.confidence_level, 'PI')} of a new measurement")
    ax.set_xlabel(xlabel or "condition")
    ax.set_ylabel(axis_label(ylabel or f"output {column}", unit))
    if title is None:
        names = ", ".join(result.parameter_names)
        title = f"calibrated model ({names}; {result.weighting}, dof = {result.dof})"
    ax.set_title(title, fontsize="medium")
    outside_legend(ax)
    return ax


def _draw_prediction(
    ax: Any, prediction: Prediction, xs: np.ndarray, column: int, order: np.ndarray,
    *, label: str,
) -> None:
    values = np.asarray(prediction.values)[order, column]
    kind = "mean" if prediction.kind == "mean" else "new measurement"
    interval_band(ax, xs, np.asarray(prediction.low)[order, column],
                  np.asarray(prediction.high)[order, column], color=LEVEL_COLOUR,
                  alpha=2 * BAND_ALPHA,
                  label=f"{level_text(prediction.confidence_level)} of the {kind}"
                  if prediction.kind == "mean"
                  else f"{level_text(prediction.confidence_level, 'PI')} of a {kind}")
    ax.plot(xs, values, "-", color=LEVEL_COLOUR, linewidth=2.0, label=label)


@renders("pilotstats.regression.Prediction")
def plot_prediction(
    prediction: Prediction,
    x_axis: Any,
    output: int = 0,
    *,
    ax: Any = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    unit: str | None = None,
    title: str | None = None,
) -> Any:
    """Predicted values of one output over the condition axis with their interval band.

    Parameters and errors: :meth:`Prediction.plot <pilotstats.regression.Prediction.plot>`.
    """
    values = np.asarray(prediction.values)
    t, m = int(values.shape[0]), int(values.shape[1])
    positions = check_series(x_axis, t, name="x_axis", what="the Prediction (one per condition)")
    column = check_int(output, "output", low=0)
    if column >= m:
        raise InvalidInputError(f"output must lie in [0, {m - 1}] (one per measure), got {column}")
    order = np.argsort(positions, kind="stable")
    ax = new_axes(ax)
    _draw_prediction(ax, prediction, positions[order], column, order, label="prediction")
    ax.set_xlabel(xlabel or "condition")
    ax.set_ylabel(axis_label(ylabel or f"output {column}", unit))
    if title is None:
        title = f"model prediction ({prediction.kind}, dof = {prediction.dof})"
    ax.set_title(title, fontsize="medium")
    outside_legend(ax)
    return ax


@renders("pilotstats.regression.ConfidenceRegion")
def plot_region(region: ConfidenceRegion, *, ax: Any = None, title: str | None = None) -> Any:
    """The linearised ellipse, the exact contour S = threshold and the estimate."""
    ax = new_axes(ax)
    level = format_number(region.confidence_level * 100)
    ax.plot(region.ellipse[:, 0], region.ellipse[:, 1], color=LEVEL_COLOUR,
            label=f"{level} % ellipse (linearised)")
    ok = np.isfinite(region.sse_grid)
    top = float(region.sse_grid[ok].max()) * 10 if ok.any() else 0.0
    finite = np.where(ok, region.sse_grid, top)
    if ok.any() and finite.min() < region.sse_threshold < finite.max():
        kind = "profile" if region.profiled else "exact"
        ax.contour(region.grid_x, region.grid_y, finite.T, levels=[region.sse_threshold],
                   colors="C3", linestyles="--")
        ax.plot([], [], color="C3", linestyle="--", label=f"{kind} contour of S")
    ax.plot(region.center[0], region.center[1], "o", color=DATA_COLOUR, label="estimate")
    ax.set_xlabel(region.parameter_names[0])
    ax.set_ylabel(region.parameter_names[1])
    ax.set_title(title if title is not None else
                 f"joint region, agreement {format_number(100 * region.agreement, 3)} %")
    outside_legend(ax)
    return ax


@renders("pilotstats.regression.ResidualDiagnostics")
def plot_residuals(
    diagnostics: ResidualDiagnostics, *, ax: Any = None, xlabel: str | None = None,
    title: str | None = None,
) -> Any:
    """Standardised residuals against the condition, one series per measure, ±2 guides."""
    ax = new_axes(ax)
    x = diagnostics.condition_values
    for j, name in enumerate(diagnostics.measure_names):
        ax.plot(x, diagnostics.standardized[:, j], "o", markersize=4, label=name)
    ax.axhline(0.0, color=DATA_COLOUR, linewidth=0.8)
    for level in (-2.0, 2.0):
        ax.axhline(level, color=DATA_COLOUR, linewidth=0.8, linestyle=":")
    ax.set_xlabel(xlabel if xlabel is not None else "condition")
    ax.set_ylabel("standardised residual")
    ax.set_title(title if title is not None else str(diagnostics).replace(", lack", ",\nlack"))
    outside_legend(ax)
    return ax
