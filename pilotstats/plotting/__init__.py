"""Figures of every pillar: one renderer per result type (matplotlib, imported lazily).

This package is the top layer of the library's results: it imports the result types of the
pillars (inside its functions) and nothing below imports it. Importing it registers one
renderer per result type with :func:`pilotstats.results.renders`; a result's ``plot``
method calls :func:`pilotstats.results.draw`, which finds the renderer of its type.
``import pilotstats`` imports this package last, so every ``plot`` method works once
``pilotstats`` is imported. matplotlib is imported on the first drawing, never here.

A new figure goes in the module of its pillar (``_changepoints``, ``_regression``,
``_autocorrelation``, ``_smoothing``, ``_analysis``), decorated with
``@renders("pilotstats.<pillar>.<ResultType>")``; the shared building blocks (axes,
units, bands, change-point markers) are in ``_common``, the shared docstring blocks in
:data:`pilotstats.results.PLOT_DOC` (:func:`pilotstats.results.plot_doc`).
"""

from __future__ import annotations

from pilotstats.plotting import _changepoints, _regression  # noqa: F401  (they register)
from pilotstats.plotting._analysis import (
    plot_analysis,
    plot_comparison,
    plot_measurements,
    plot_trend,
)
from pilotstats.plotting._autocorrelation import plot_half_width
from pilotstats.plotting._smoothing import (
    plot_contributor_ranking,
    plot_flag_heatmap,
    plot_sma_difference,
    plot_timeline,
    plot_umami,
)

__all__ = [
    "plot_analysis",
    "plot_comparison",
    "plot_contributor_ranking",
    "plot_flag_heatmap",
    "plot_half_width",
    "plot_measurements",
    "plot_sma_difference",
    "plot_timeline",
    "plot_trend",
    "plot_umami",
]
