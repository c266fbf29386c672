"""pilotstats: statistically honest performance measurements.

Subpackages (each re-exports its public names):

- :mod:`pilotstats.autocorrelation` — subsession (block-mean) analysis, confidence
  intervals of means, required sample sizes, Welch comparisons.
- :mod:`pilotstats.changepoints` — EDM change points, stable-phase (warm-up/cool-down)
  detection, MDL trend partitioning.
- :mod:`pilotstats.regression` — work-per-second regression, work planning, queueing models
  and calibration.
- :mod:`pilotstats.smoothing` — time-window moving averages, divergence regions,
  contributors.

Importing pilotstats imports no numba and compiles nothing; kernels compile on first use.
"""

from pilotstats import autocorrelation, changepoints, datasets, exceptions, regression, smoothing
from pilotstats.autocorrelation import (
    optimal_subsession_size,
    required_sample_size,
    subsession_analysis,
    welch_test,
)
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
    PilotStatsError,
    PilotStatsWarning,
)
from pilotstats.results import ConfidenceInterval

__version__ = "0.1.0"

__all__ = [
    "ConfidenceInterval",
    "InvalidInputError",
    "NotEnoughDataError",
    "PilotStatsError",
    "PilotStatsWarning",
    "__version__",
    "autocorrelation",
    "changepoints",
    "datasets",
    "exceptions",
    "optimal_subsession_size",
    "regression",
    "required_sample_size",
    "smoothing",
    "subsession_analysis",
    "welch_test",
]
