"""Smoothing: time-window moving averages, crossovers, divergence regions, contributors.

Implements the feature-detection and contributor analysis of G. K. Lockwood et al.,
*A Year in the Life of a Parallel File System* (SC'18): centred, time-based simple moving
averages (:func:`sma`), their :func:`crossovers`, the :func:`divergence_regions` between
crossovers, the :func:`contributors` classification of each region's worst job, and the
frame-level pipeline :func:`analyze_regions`. Figures: :mod:`pilotstats.plotting`.
"""

from pilotstats.smoothing._analysis import DivergenceAnalysis, RegionOptions, analyze_regions
from pilotstats.smoothing._contributors import Contributors, CorrelationOptions, contributors
from pilotstats.smoothing._presets import (
    PRESETS,
    TOKIO_HIGHER_IS_WORSE,
    TOKIO_METRIC_LABELS,
    TOKIO_PLATFORM_LABELS,
    UMAMI_METRICS,
)
from pilotstats.smoothing._regions import Crossovers, Regions, crossovers, divergence_regions
from pilotstats.smoothing._sma import sma

__all__ = [
    "PRESETS",
    "TOKIO_HIGHER_IS_WORSE",
    "TOKIO_METRIC_LABELS",
    "TOKIO_PLATFORM_LABELS",
    "UMAMI_METRICS",
    "Contributors",
    "CorrelationOptions",
    "Crossovers",
    "DivergenceAnalysis",
    "RegionOptions",
    "Regions",
    "analyze_regions",
    "contributors",
    "crossovers",
    "divergence_regions",
    "sma",
]
