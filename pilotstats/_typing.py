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

#: Mean used for block means and the overall mean (autocorrelation spec §2.1).
MeanMethod: TypeAlias = Literal["arithmetic", "harmonic"]
#: Rule for the t quantile of the required sample size (autocorrelation spec §6).
SampleSizeMethod: TypeAlias = Literal["pilot", "iterate"]
#: Interval for a binomial proportion (autocorrelation spec §5).
ProportionMethod: TypeAlias = Literal["wilson", "pilot"]
#: What a sample-size calculation is about.
SampleKind: TypeAlias = Literal["mean", "proportion"]
#: Alternative hypothesis of a test.
Alternative: TypeAlias = Literal["two-sided", "less", "greater"]
#: Seed or generator accepted wherever randomness is used.
RandomState: TypeAlias = int | np.random.Generator | None
#: Preprocessing of EDM change-point searches (edm spec §2.2).
EdmScale: TypeAlias = Literal["range", "none"]
#: Interval tree of EDM-tail: the paper's (default) or the reference code's (edm spec §5.5).
EdmTree: TypeAlias = Literal["paper", "reference"]
