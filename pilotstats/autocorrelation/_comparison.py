"""Comparing two results: Welch's t-test and the sample size needed to separate them.

Documentation ``docs/algorithms/subsession.md``; Pilot ``lib/libpilot.cc``
(``pilot_p_eq``, ``pilot_calc_deg_of_freedom``, ``pilot_optimal_sample_size_for_eq_test``).

:func:`welch_test`, notes:

See ``docs/algorithms/subsession.md``. ``t = d / se`` with
``se = sqrt(v1/n1 + v2/n2)``, two-sided ``p = 2 F_nu(-|t|)``, interval
``d -/+ t_nu((1+c)/2) se``; ``nu`` from :func:`welch_degrees_of_freedom` (not floored).

:func:`welch_test`, references:

.. [1] B. L. Welch, "The generalization of Student's problem when several different
   population variances are involved", Biometrika 34 (1947) 28-35.

:func:`required_sample_size_for_comparison`, notes:

See ``docs/algorithms/subsession.md``. ``nu`` at the current sizes,
``t = t_nu(significance_level / 2)``, ``D = (d / t)^2 - v_b / n_b``,
``required_subsessions = max(2, ceil_tol(v / D))`` (Pilot truncates; rounding up is correct).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pilotstats import _config
from pilotstats._stats import ceil_tol, t_cdf, t_quantile
from pilotstats._typing import Alternative
from pilotstats._validation import (
    check_choice,
    check_confidence_level,
    check_int,
    check_probability,
    check_welch_side,
)
from pilotstats.autocorrelation._subsession import SubsessionResult
from pilotstats.exceptions import InvalidInputError, UnreachableTargetError
from pilotstats.results import (
    ConfidenceInterval,
    PValueResult,
    Result,
    format_interval,
    format_number,
)

__all__ = [
    "ComparisonSampleSizeResult",
    "WelchResult",
    "compare_subsession_means",
    "required_sample_size_for_comparison",
    "welch_degrees_of_freedom",
    "welch_test",
]

ALTERNATIVES: tuple[Alternative, ...] = ("two-sided", "less", "greater")


def welch_degrees_of_freedom(var1: float, n1: int, var2: float, n2: int) -> float:
    """Welch–Satterthwaite degrees of freedom, not floored.

    Parameters
    ----------
    var1, n1 : float, int
        Variance and count of the first side (``n1 >= 2``).
    var2, n2 : float, int
        Variance and count of the second side (``n2 >= 2``).

    Returns
    -------
    float
        ``nu = (v1/n1 + v2/n2)^2 / ((v1/n1)^2/(n1-1) + (v2/n2)^2/(n2-1))``; NaN when both
        variances are 0. Pilot's docs show a floor, its code does not; neither do we.

    Raises
    ------
    InvalidInputError
        Negative variance, non-integer count.
    NotEnoughDataError
        A count below 2.

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.datasets import speed_of_light
    >>> a, b = speed_of_light()
    >>> round(welch_degrees_of_freedom(a.var(ddof=1), a.size, b.var(ddof=1), b.size), 3)
    27.754
    """
    _, v1, count1 = check_welch_side(0.0, var1, n1, "1")
    _, v2, count2 = check_welch_side(0.0, var2, n2, "2")
    return _dof(v1, count1, v2, count2)


def _dof(v1: float, n1: int, v2: float, n2: int) -> float:
    # Scaled by the larger variance of the mean, so neither tiny (1e-203: a*a underflows)
    # nor huge (1e308: a + b overflows) variances turn a well-defined dof into NaN/inf.
    a, b = v1 / n1, v2 / n2
    scale = max(a, b)
    if not scale > 0:
        return math.nan
    a, b = a / scale, b / scale
    denominator = a * a / (n1 - 1) + b * b / (n2 - 1)
    return (a + b) ** 2 / denominator if denominator > 0 else math.nan


def _standard_error(v1: float, n1: int, v2: float, n2: int) -> float:
    """``sqrt(v1/n1 + v2/n2)`` without intermediate overflow or underflow."""
    return math.hypot(math.sqrt(v1 / n1), math.sqrt(v2 / n2))


def _difference(m1: float, m2: float) -> float:
    d = m1 - m2
    if not math.isfinite(d):
        raise InvalidInputError(
            f"the difference of the means {m1!r} - {m2!r} overflows float64; rescale the "
            "data (e.g. change the unit) before comparing"
        )
    return d


@dataclass(frozen=True, slots=True)
class WelchResult(PValueResult):
    """Welch's unequal-variance t-test of ``mean1 - mean2``.

    Attributes
    ----------
    difference : float
        ``mean1 - mean2``.
    ci_low, ci_high : float
        Interval of the difference (one-sided alternatives give an infinite end).
    p_value : float
        p-value for ``alternative``.
    dof : float
        Welch–Satterthwaite degrees of freedom (NaN when the standard error is 0).
    statistic : float
        ``t = difference / standard_error`` (+/-inf when the standard error is 0 and the
        means differ).
    standard_error : float
        ``sqrt(var1/n1 + var2/n2)``.
    alternative : str
        ``"two-sided"``, ``"less"`` (mean1 < mean2) or ``"greater"``.
    confidence_level : float
        Level of the interval.

    Unpacking yields ``(statistic, p_value)``.

    Examples
    --------
    Returned by :func:`welch_test` (and :func:`compare_subsession_means`):

    >>> from pilotstats.autocorrelation import welch_test
    >>> r = welch_test(98.105, 0.699**2, 65, 98.394, 0.743**2, 65)
    >>> print(r)
    difference -0.289 (95 % CI [-0.5394, -0.03863], t = -2.284, dof = 127.5, p = 0.02402, two-sided)
    >>> r.p_value < 0.05
    True
    """

    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    dof: float
    statistic: float
    standard_error: float
    alternative: str
    confidence_level: float

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval of the difference at ``confidence_level`` (None: the stored level)."""
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        return ConfidenceInterval(
            *_interval(self.difference, self.standard_error, self.dof, level, self.alternative)
        )

    def __str__(self) -> str:
        return (
            f"difference {format_number(self.difference)} "
            f"({format_interval(self.ci_low, self.ci_high, self.confidence_level)}, "
            f"t = {format_number(self.statistic)}, dof = {format_number(self.dof)}, "
            f"p = {format_number(self.p_value)}, {self.alternative})"
        )


def _interval(
    d: float, se: float, dof: float, level: float, alternative: str
) -> tuple[float, float]:
    if se == 0.0:
        return d, d
    if alternative == "two-sided":
        half = t_quantile((1.0 + level) / 2.0, dof) * se
        return d - half, d + half
    margin = t_quantile(level, dof) * se
    if alternative == "less":
        return -math.inf, d + margin
    return d - margin, math.inf


def welch_test(
    mean1: float,
    var1: float,
    n1: int,
    mean2: float,
    var2: float,
    n2: int,
    *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    alternative: Alternative = "two-sided",
) -> WelchResult:
    """Welch's t-test and confidence interval for the difference of two means.

    For autocorrelated data pass subsession statistics ``(m, s2_q, h)`` of each side
    (see :func:`compare_subsession_means`), never the raw ``(mean, var, n)``.

    Parameters
    ----------
    mean1, var1, n1 : float, float, int
        Mean, variance and count of the first (baseline) side; ``n1 >= 2``.
    mean2, var2, n2 : float, float, int
        The same for the second side.
    confidence_level : float in (0, 1), default 0.95
        Level of the interval of ``mean1 - mean2``.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        ``"less"`` tests ``mean1 < mean2``, ``"greater"`` tests ``mean1 > mean2``.

    Returns
    -------
    WelchResult
        With zero standard error: dof NaN, ``p = 1`` if the means are equal else 0, and
        the degenerate interval ``[d, d]``.

    Raises
    ------
    InvalidInputError
        Negative variance or count, non-finite inputs, bad options, or a difference, t
        statistic or interval that overflows float64 (means near 1e308 with a small
        standard error: rescale the data).
    NotEnoughDataError
        ``n1 < 2`` or ``n2 < 2`` (Pilot returns an "undecided" p = 0.5 instead).

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> result = welch_test(98.105, 0.699**2, 65, 98.394, 0.743**2, 65)
    >>> round(result.p_value, 3), round(result.ci_low, 3), round(result.ci_high, 3)
    (0.024, -0.539, -0.039)
    """
    level = check_confidence_level(confidence_level)
    side = check_choice(alternative, "alternative", ALTERNATIVES)
    m1, v1, c1 = check_welch_side(mean1, var1, n1, "1")
    m2, v2, c2 = check_welch_side(mean2, var2, n2, "2")
    d = _difference(m1, m2)
    se = _standard_error(v1, c1, v2, c2)
    if se == 0.0:
        p = 1.0 if d == 0.0 else 0.0
        statistic = 0.0 if d == 0.0 else math.copysign(math.inf, d)
        return WelchResult(d, d, d, p, math.nan, statistic, 0.0, side, level)
    dof = _dof(v1, c1, v2, c2)
    statistic = d / se
    if not math.isfinite(statistic):
        raise InvalidInputError(
            f"the t statistic {d!r} / {se!r} overflows float64; rescale the data (e.g. "
            "change the unit) before comparing"
        )
    p = _t_p_value(statistic, dof, side)
    low, high = _finite_interval(d, se, dof, level, side)
    return WelchResult(d, low, high, min(1.0, p), dof, statistic, se, side, level)


def _t_p_value(statistic: float, dof: float, side: str) -> float:
    """p-value of a t statistic for the alternative ``side``."""
    if side == "two-sided":
        return 2.0 * t_cdf(-abs(statistic), dof)
    if side == "less":
        return t_cdf(statistic, dof)
    return t_cdf(-statistic, dof)


def _finite_interval(
    d: float, se: float, dof: float, level: float, side: str
) -> tuple[float, float]:
    """:func:`_interval`, refusing an end that overflowed to infinity."""
    low, high = _interval(d, se, dof, level, side)
    if math.isinf(low if side != "less" else high) or (
        side == "two-sided" and math.isinf(high)
    ):
        raise InvalidInputError(
            f"the confidence interval of the difference overflows float64 (standard error "
            f"{se!r}); rescale the data (e.g. change the unit) before comparing"
        )
    return low, high


def compare_subsession_means(
    a: SubsessionResult,
    b: SubsessionResult,
    *,
    confidence_level: float | None = None,
    alternative: Alternative = "two-sided",
) -> WelchResult:
    """Welch's test of ``a.mean - b.mean`` on subsession statistics ``(m, s2_q, h)``.

    Parameters
    ----------
    a, b : SubsessionResult
        Results of :func:`~pilotstats.autocorrelation.subsession_analysis` (``a`` is the
        baseline).
    confidence_level : float, optional
        Level of the interval; defaults to ``a.confidence_level``.
    alternative : {"two-sided", "less", "greater"}
        As in :func:`welch_test`.

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> from pilotstats.autocorrelation import subsession_analysis
    >>> from pilotstats.datasets import ferrari_response_times
    >>> x = ferrari_response_times()
    >>> r = compare_subsession_means(subsession_analysis(x[:24], subsession_size=2),
    ...                              subsession_analysis(x[24:], subsession_size=2))
    >>> r.p_value > 0.05
    True
    """
    if not isinstance(a, SubsessionResult) or not isinstance(b, SubsessionResult):
        raise InvalidInputError("a and b must both be SubsessionResult objects")
    level = a.confidence_level if confidence_level is None else confidence_level
    return welch_test(
        a.mean, a.subsession_variance, a.n_subsessions,
        b.mean, b.subsession_variance, b.n_subsessions,
        confidence_level=level, alternative=alternative,
    )


@dataclass(frozen=True, slots=True)
class ComparisonSampleSizeResult(Result):
    """(Sub)samples the new side needs for Welch's test to reach ``significance_level``.

    Attributes
    ----------
    required_subsessions : int
        Subsessions required on the new side (at least 2).
    samples : int
        ``subsession_size * max(required_subsessions, min_subsessions)``.
    dof : float
        Welch dof at the current sizes.
    significance_level : float
        Two-sided p-value to reach (``p <= significance_level``).
    subsession_size : int
        Block size of the new side.

    Examples
    --------
    Returned by :func:`required_sample_size_for_comparison`:

    >>> from pilotstats.autocorrelation import required_sample_size_for_comparison
    >>> r = required_sample_size_for_comparison(98.105, 0.699**2, 65, 98.394, 0.743**2, 65,
    ...                                         significance_level=0.01)
    >>> print(r)
    need 118 samples (118 subsessions of 1) to reach p <= 0.01
    >>> r.required_subsessions
    118
    """

    required_subsessions: int
    samples: int
    dof: float
    significance_level: float
    subsession_size: int

    def __str__(self) -> str:
        return (
            f"need {self.samples} samples ({self.required_subsessions} subsessions of "
            f"{self.subsession_size}) to reach p <= {format_number(self.significance_level)}"
        )


def required_sample_size_for_comparison(
    baseline_mean: float,
    baseline_var: float,
    baseline_n: int,
    mean: float,
    var: float,
    n: int,
    *,
    significance_level: float = 0.05,
    subsession_size: int = 1,
    min_subsessions: int = 0,
) -> ComparisonSampleSizeResult:
    """Sample size the new side needs to separate it from a fixed baseline.

    Parameters
    ----------
    baseline_mean, baseline_var, baseline_n : float, float, int
        Baseline (sub)session statistics.
    mean, var, n : float, float, int
        Current statistics of the new side.
    significance_level : float in (0, 1), default 0.05
        Two-sided Welch p-value to reach at the observed difference.
    subsession_size : int, default 1
        Block size of the new side (samples = q x subsessions).
    min_subsessions : int, default 0
        Minimum number of subsessions, a floor on the count required.

    Returns
    -------
    ComparisonSampleSizeResult

    Raises
    ------
    UnreachableTargetError
        No size of the new side can reach the target: the observed difference is 0 or the
        baseline's own uncertainty already exceeds what the target allows.
    NotEnoughDataError, InvalidInputError
        As :func:`welch_test`.

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> r = required_sample_size_for_comparison(98.105, 0.699**2, 65, 98.394, 0.743**2, 65,
    ...                                         significance_level=0.01)
    >>> r.required_subsessions
    118
    """
    target = check_probability(significance_level, "significance_level")
    q = check_int(subsession_size, "subsession_size", low=1)
    floor = check_int(min_subsessions, "min_subsessions", low=0)
    m1, v1, c1 = check_welch_side(
        baseline_mean, baseline_var, baseline_n, "1",
        ("baseline_mean", "baseline_var", "baseline_n"),
    )
    m2, v2, c2 = check_welch_side(mean, var, n, "2", ("mean", "var", "n"))
    dof = _dof(v1, c1, v2, c2)
    t = t_quantile(target / 2.0, dof) if math.isfinite(dof) else math.nan
    reserve = _variance_reserve(_difference(m1, m2), t, v1, c1, target)
    needed = v2 / reserve
    if not (math.isfinite(needed) and needed < _config.MAX_REPORTED_COUNT):
        raise UnreachableTargetError(
            f"the new side would need more than {_config.MAX_REPORTED_COUNT} "
            f"subsessions to reach p <= {target:g} (variance {v2!r} against a margin of "
            f"{reserve!r}); accept a larger significance_level"
        )
    required = max(2, ceil_tol(needed))
    return ComparisonSampleSizeResult(
        required_subsessions=required, samples=q * max(required, floor), dof=dof,
        significance_level=target, subsession_size=q,
    )


def _variance_reserve(d: float, t: float, v1: float, c1: int, target: float) -> float:
    """``(d / t)^2 - v1 / c1``: the variance of the new side's mean that still reaches
    ``p <= target``; raises when no sample size can."""
    try:
        reserve = (d / t) ** 2 - v1 / c1 if t != 0 else math.nan
    except OverflowError:  # (d / t)^2 beyond float64: any n reaches the target
        reserve = math.inf
    if not reserve > 0:  # NaN or <= 0; +inf (a huge difference) is reachable by any n
        raise UnreachableTargetError(
            f"no sample size of the new side can reach p <= {target:g}: the observed "
            f"difference {d!r} is too small relative to the baseline's own standard error "
            f"{math.sqrt(v1 / c1)!r} (collect more baseline samples, or accept a larger "
            "significance_level)"
        )
    return reserve
