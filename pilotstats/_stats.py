"""Small numerical helpers shared by the pillars: quantiles and tolerant rounding.

:mod:`scipy.special` is imported on first use of a t or normal quantile, not with this
module: importing it costs about 0.14 s CPU and 15 MB (it loads scipy's array-API layer,
which touches every numpy submodule), about a third of a fresh process that runs
``detect_changes`` or ``edm`` once on 1,000 points. :func:`normal_cdf`, which
those need, is therefore computed here, as scipy computes it.
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats import _config

__all__ = [
    "arithmetic_scale",
    "ceil_tol",
    "normal_cdf",
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
    from scipy import special

    return float(special.stdtrit(dof, probability))


def t_cdf(value: float, dof: float) -> float:
    """Cumulative distribution function of Student's t with ``dof`` degrees of freedom."""
    from scipy import special

    return float(special.stdtr(dof, value))


def two_sided_t(confidence_level: float, dof: float) -> float:
    """Critical value ``t_dof((1 + c) / 2)`` of a two-sided interval at level ``c``."""
    return t_quantile((1.0 + confidence_level) / 2.0, dof)


def normal_quantile(probability: float) -> float:
    """The ``probability`` quantile of the standard normal distribution."""
    from scipy import special

    return float(special.ndtri(probability))


# Rational approximations of erfc (Cephes, S. L. Moshier 1984-1992, ``ndtr.c``): erfc(x) =
# exp(-x²)·P(x)/Q(x) on [1, 8) and exp(-x²)·R(x)/S(x) from 8 on; erf(x) = x·T(x²)/U(x²) on
# [0, 1]. Q, S and U have an implicit leading coefficient 1.
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
           4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
           9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q = (1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
           1.65666309194161350182E3, 5.57535340817727675546E2)
_ERFC_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
           6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_ERFC_S = (2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
           1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)
_ERF_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
          7.00332514112805075473E3, 5.55923013010394962768E4)
_ERF_U = (3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
          2.26290000613890934246E4, 4.92673942608635921086E4)
_MAX_LOG = 7.09782712893383996843E2  # log of the largest double
_SQRT_HALF = 0.7071067811865476


def _horner(x: float, coefficients: tuple[float, ...], leading_one: bool) -> float:
    """Polynomial in ``x`` by Horner's rule (highest coefficient first; with
    ``leading_one`` an implicit leading coefficient 1 precedes ``coefficients``)."""
    if leading_one:
        total = x + coefficients[0]
    else:
        total = coefficients[0]
    for c in coefficients[1:]:
        total = total * x + c
    return total


def _erf(x: float) -> float:
    if x < 0.0:
        return -_erf(-x)
    if x > 1.0:
        return 1.0 - _erfc(x)
    z = x * x
    return x * _horner(z, _ERF_T, False) / _horner(z, _ERF_U, True)


def _erfc(a: float) -> float:
    x = -a if a < 0.0 else a
    if x < 1.0:
        return 1.0 - _erf(a)
    z = -a * a
    if z < -_MAX_LOG:
        return 2.0 if a < 0 else 0.0
    z = math.exp(z)
    if x < 8.0:
        p, q = _horner(x, _ERFC_P, False), _horner(x, _ERFC_Q, True)
    else:
        p, q = _horner(x, _ERFC_R, False), _horner(x, _ERFC_S, True)
    y = (z * p) / q
    if a < 0:
        y = 2.0 - y
    if y != 0.0:
        return y
    return 2.0 if a < 0 else 0.0


def normal_cdf(value: float) -> float:
    """Standard normal distribution function Φ(value), as :func:`scipy.special.ndtr`.

    The same Cephes rational approximations in the same floating-point operations, so the
    result is that of scipy bit for bit (checked on 350,000 arguments in
    ``tests/test_stats.py``); computed here so that the change-point detectors do
    not import scipy (see the module notes). NaN gives NaN.
    """
    a = float(value)
    if math.isnan(a):
        return math.nan
    x = a * _SQRT_HALF
    z = abs(x)
    if z < 1.0:
        return 0.5 + 0.5 * _erf(x)
    y = 0.5 * _erfc(z)
    return 1.0 - y if x > 0 else y


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
