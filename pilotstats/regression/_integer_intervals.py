"""Confidence intervals of integer parameters (server counts, pool sizes) from the profile of
the weighted sum of squares E = S (``docs/algorithms/calibration.md``, *Integer parameters*).

Woodside's tutorial (WOSP/SIPEW 2010) reports half widths such as ±0.207 for integer
parameters. Their linearised standard error does not exist (no derivative in an integer),
so pilotstats reads the interval off the profile of S instead: with the weights frozen at
x̂, refit the continuous parameters at m̂ − 1 and m̂ + 1, pass on each side a parabola with
its vertex at the profile minimum m̂ through the neighbour's profile value, and find where
it crosses the F-based threshold

    S_crit = S(x̂) · (1 + F_{1, dof; c} / dof)

(the same threshold as the exact E-contour of :meth:`CalibrationResult.confidence_region`,
Seber & Wild 1989, §5.2.1, for one parameter). If a neighbour's profile value lies below
S_crit, the walk goes on outward and interpolates linearly between the bracketing integers;
a bound ends the interval at the bound.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._calibration_problem import FloatArray, _Options, _Problem, _Whitener
from pilotstats.regression._gauss_newton import _gauss_newton

_MAX_WALK = 50


def _profile_value(
    problem: _Problem,
    whiten: _Whitener,
    x: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    index: int,
    value: float,
) -> float:
    """min over the continuous parameters of S with parameter ``index`` held at ``value``."""
    start = x.copy()
    start[index] = value
    try:
        return _gauss_newton(problem, whiten, start, free, options).sse
    except InvalidInputError:
        return math.inf


def _crossing(s0: float, s_near: float, critical: float) -> float:
    """Distance from m̂ at which the parabola s0 + (s_near − s0) δ², whose vertex is the
    profile minimum m̂, reaches ``critical`` (< 1 because s_near >= critical)."""
    if not math.isfinite(s_near):
        return 0.0
    if s_near <= s0:
        return 1.0
    return math.sqrt(max(critical - s0, 0.0) / (s_near - s0))


def _integer_interval(
    problem: _Problem,
    whiten: _Whitener,
    x: FloatArray,
    sse: float,
    free: npt.NDArray[np.int64],
    options: _Options,
    index: int,
    critical: float,
) -> tuple[float, float]:
    """(low, high) ends of the profile interval of integer parameter ``index``."""
    centre = float(x[index])
    lower, upper = options.lower[index], options.upper[index]
    near = {
        d: _profile_value(problem, whiten, x, free, options, index, centre + d)
        if lower <= centre + d <= upper else None
        for d in (-1.0, 1.0)
    }
    ends = []
    for d in (-1.0, 1.0):
        s_near = near[d]
        if s_near is None:
            ends.append(centre)  # the bound itself
            continue
        if s_near >= critical:
            ends.append(centre + d * _crossing(sse, s_near, critical))
            continue
        previous, s_previous, k = centre + d, s_near, 1
        while True:
            k += 1
            point = centre + d * k
            if not lower <= point <= upper or k > _MAX_WALK:
                ends.append(previous)
                break
            s_point = _profile_value(problem, whiten, x, free, options, index, point)
            if s_point >= critical:
                share = (critical - s_previous) / (s_point - s_previous)
                ends.append(previous + d * share)
                break
            previous, s_previous = point, s_point
    return ends[0], ends[1]
