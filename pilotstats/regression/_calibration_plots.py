"""Figures of calibration diagnostics: joint confidence regions (ellipse and exact contour of
S) and standardised residuals against the conditions (matplotlib, imported lazily)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._plotting import DATA_COLOUR, LEVEL_COLOUR, new_axes, outside_legend
from pilotstats.results import format_number

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.regression._confidence_region import ConfidenceRegion
    from pilotstats.regression._residual_diagnostics import ResidualDiagnostics

__all__ = ["plot_region", "plot_residuals"]


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
