"""Small numerical helpers shared by the pillars: quantiles and tolerant rounding.

Only :mod:`scipy.special` is imported (cheap); ``scipy.stats`` is not needed here.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from pilotstats import _config

__all__ = [
    "arithmetic_scale",
    "ceil_tol",
    "normal_quantile",
    "t_cdf",
    "t_quantile",
    "two_sided_t",
]


def ceil_tol(value: float) -> int:
    """Round up, treating values within a relative 1e-9 above an integer as that integer.

    ``ceil_tol(y) = ceil(y - tol * max(1, |y|))``, so that
    floating-point noise such as ``65.00000000001`` does not ask for one more sample.
    """
    tolerance = _config.CEIL_RELATIVE_TOLERANCE * max(1.0, abs(value))
    return math.ceil(value - tolerance)


def t_quantile(probability: float, dof: float) -> float:
    """The ``probability`` quantile of Student's t with ``dof`` degrees of freedom."""
    return float(special.stdtrit(dof, probability))


def t_cdf(value: float, dof: float) -> float:
    """Cumulative distribution function of Student's t with ``dof`` degrees of freedom."""
    return float(special.stdtr(dof, value))


def two_sided_t(confidence_level: float, dof: float) -> float:
    """Critical value ``t_dof((1 + c) / 2)`` of a two-sided interval at level ``c``."""
    return t_quantile((1.0 + confidence_level) / 2.0, dof)


def normal_quantile(probability: float) -> float:
    """The ``probability`` quantile of the standard normal distribution."""
    return float(special.ndtri(probability))


def arithmetic_scale(values: np.ndarray) -> float:
    """The exact power of two that brings ``max|values|`` below 2**500 (1.0 when it is).

    Sums, squares and midpoints of the scaled values cannot overflow, ranks and ratios are
    unchanged, and dividing a result by the scale restores it exactly (up to the rounding
    of the operation). O(n).
    """
    # max|v| as max(max v, −min v) (exact; NaN when any value is NaN), without a copy
    peak = max(float(values.max()), -float(values.min())) if values.size else 0.0
    if peak > 2.0**500:
        return math.ldexp(1.0, -math.frexp(peak)[1])
    return 1.0
