"""pilotstats: statistically honest performance measurements.

Subpackages (each re-exports its public names):

- :mod:`pilotstats.autocorrelation` — subsession (block-mean) analysis, confidence
  intervals of means, required sample sizes, Welch comparisons.
- :mod:`pilotstats.changepoints` — EDM change points, stable-phase (warm-up/cool-down)
  detection, MDL trend partitioning.
- :mod:`pilotstats.regression` — work-per-second regression, work planning, queueing models
  and calibration; :mod:`pilotstats.session` drives a benchmark to a CI target.
- :mod:`pilotstats.smoothing` — time-window moving averages, divergence regions,
  contributors.
- :mod:`pilotstats.io` and :mod:`pilotstats.analysis` — loaders for benchmark-harness
  results and the analyses that combine the pillars (:func:`analyze`, :func:`compare`,
  :func:`trend`).

Two protocols are shared by the pillars: :class:`Stream` (streaming analyses:
``append``, ``extend``, ``result``, ``len``) and :class:`ResultCollection` (results made of
several items: iteration, indexing, ``len``, ``to_frame``).

Importing pilotstats imports no numba and compiles nothing; kernels compile on first use.
Subpackages (which need scipy, pandas or statsmodels) are imported on first attribute
access, so ``import pilotstats`` stays fast (about 0.05 s on top of numpy).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pilotstats import datasets, exceptions
from pilotstats._protocols import ResultCollection, Stream
from pilotstats._version import __version__
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
    PilotStatsError,
    PilotStatsWarning,
)
from pilotstats.results import ConfidenceInterval

if TYPE_CHECKING:
    from pilotstats import (
        analysis,
        autocorrelation,
        changepoints,
        io,
        regression,
        session,
        smoothing,
    )
    from pilotstats.analysis import analyze, compare, trend
    from pilotstats.autocorrelation import (
        optimal_subsession_size,
        required_sample_size,
        subsession_analysis,
        welch_test,
    )
    from pilotstats.io import Measurements, load
    from pilotstats.session import BenchmarkSession, run_session


_LAZY_MODULES = ("analysis", "autocorrelation", "changepoints", "io", "regression", "session",
                 "smoothing")
_LAZY_NAMES = {
    "optimal_subsession_size": "pilotstats.autocorrelation",
    "required_sample_size": "pilotstats.autocorrelation",
    "subsession_analysis": "pilotstats.autocorrelation",
    "welch_test": "pilotstats.autocorrelation",
    "BenchmarkSession": "pilotstats.session",
    "run_session": "pilotstats.session",
    "Measurements": "pilotstats.io",
    "load": "pilotstats.io",
    "analyze": "pilotstats.analysis",
    "compare": "pilotstats.analysis",
    "trend": "pilotstats.analysis",
}

__all__ = [
    "BenchmarkSession",
    "ConfidenceInterval",
    "InvalidInputError",
    "Measurements",
    "NotEnoughDataError",
    "PilotStatsError",
    "PilotStatsWarning",
    "ResultCollection",
    "Stream",
    "__version__",
    "analysis",
    "analyze",
    "autocorrelation",
    "changepoints",
    "compare",
    "datasets",
    "exceptions",
    "io",
    "load",
    "optimal_subsession_size",
    "regression",
    "required_sample_size",
    "run_session",
    "session",
    "smoothing",
    "subsession_analysis",
    "trend",
    "welch_test",
]


def __getattr__(name: str) -> Any:
    """Import heavier subpackages and their re-exported names on first access (PEP 562)."""
    if name in _LAZY_MODULES:
        module = importlib.import_module(f"pilotstats.{name}")
        globals()[name] = module
        return module
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pilotstats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


from pilotstats import plotting as plotting  # noqa: E402  (last: registers the renderers)
