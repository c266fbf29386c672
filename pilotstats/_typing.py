"""Array aliases and ``Literal`` option types shared across pilotstats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

#: A validated, C-contiguous, one-dimensional float64 array.
Float64Array1D: TypeAlias = npt.NDArray[np.float64]
#: A validated integer array.
Int64Array1D: TypeAlias = npt.NDArray[np.int64]
#: Anything :func:`numpy.asarray` turns into a 1-D numeric array (list, tuple, ndarray,
#: pandas Series, ...).
ArrayLike1D: TypeAlias = npt.ArrayLike | Sequence[float] | Any

#: Mean used for block means and the overall mean.
MeanMethod: TypeAlias = Literal["arithmetic", "harmonic"]
#: Rule for the t quantile of the required sample size.
SampleSizeMethod: TypeAlias = Literal["pilot", "iterate"]
#: Interval for a binomial proportion.
ProportionMethod: TypeAlias = Literal["wilson", "pilot"]
#: What a sample-size calculation is about.
SampleKind: TypeAlias = Literal["mean", "proportion"]
#: Alternative hypothesis of a test.
Alternative: TypeAlias = Literal["two-sided", "less", "greater"]
#: Seed or generator accepted wherever randomness is used.
RandomState: TypeAlias = int | np.random.Generator | None
#: Estimator variant of the work-per-second regression.
WpsMethod: TypeAlias = Literal["default", "pilot"]

WpsEstimator: TypeAlias = Literal["ols", "wls", "huber"]

CsitEncoding: TypeAlias = Literal["jumpavg", "methodology"]
#: Phase of the work planner.
PlannerPhase: TypeAlias = Literal["doubling", "ramp", "bisection", "slices"]
#: How a benchmark session removes warm-up and cool-down from each round's unit readings.
WarmupRemoval: TypeAlias = Literal["pooled", "stable_phase", "trim", "none"]
#: Type of a session's performance index: arithmetic mean, harmonic mean (rates) or a
#: 0/1 proportion with the Wilson interval.
IndexType: TypeAlias = Literal["ordinary", "ratio", "binary"]
#: Series whose autocorrelation chooses the WPS subsession size.
SubsessionBasis: TypeAlias = Literal["rates", "residuals"]
#: Direction label of a level against the previous one (MDL groups, detected segments, trends).
ChangeLabel: TypeAlias = Literal["normal", "regression", "progression"]
#: Verdict of an A/B comparison (:func:`pilotstats.analysis.compare`): a significant change
#: carries the direction label of :data:`ChangeLabel` ("regression": slower,
#: "progression": faster).
ComparisonVerdict: TypeAlias = Literal["regression", "progression", "no significant change",
                                       "inconclusive", "not analysable"]
#: Where the series of ``detect_many``/``trend_many`` run: a local thread pool or Dask.
FleetEngine: TypeAlias = Literal["threads", "dask"]
#: Handling of NaN samples in trend data.
NanPolicy: TypeAlias = Literal["raise", "omit", "zero"]
#: Preprocessing of EDM change-point searches.
EdmScale: TypeAlias = Literal["range", "none"]
#: Interval tree of EDM-tail: the paper's (default) or the reference code's.
EdmTree: TypeAlias = Literal["paper", "reference"]
#: Significance test of the guarded change-point detector.
ChangeTest: TypeAlias = Literal["rank", "permutation"]
#: Engine of stable-phase detection.
StablePhaseMethod: TypeAlias = Literal["auto", "equivalence", "robust", "pilot"]

#: Which edges of the centred SMA window are closed.
WindowClosed: TypeAlias = Literal["left", "right", "both", "neither"]
#: Contributor classifier of the divergence analysis.
ContributorClassifier: TypeAlias = Literal["minmax", "percentile"]
#: Parameter presets of the divergence analysis.
SmoothingPreset: TypeAlias = Literal["sc18-final", "sc18-draft"]
