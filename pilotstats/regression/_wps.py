"""Work-per-second (WPS) regression: stable throughput from whole rounds.

A benchmark round that processes ``w`` units of work in ``t`` seconds passes through setup,
warm-up, stable and cool-down phases. With ``v`` the stable throughput (units/s),

    t = alpha + w / v,

where ``alpha`` (s) is the net overhead of the non-stable phases (documentation
``docs/algorithms/wps.md``; Pilot's documentation
``doc/features/warm-up-and-cool-down-phase-detection.rst``).
:func:`wps` fits this line to rounds of different work amounts, merging consecutive rounds into
subsessions until their rates are nearly uncorrelated, and reports ``v`` with an honest
(t-based, asymmetric) confidence interval.

This module holds :func:`wps`; its result classes are in
:mod:`pilotstats.regression._wps_results` and the fits (block regression, alpha-filter,
result assembly) in :mod:`pilotstats.regression._wps_fit`.

:func:`wps`, notes:

Model (``docs/algorithms/wps.md``): ``t = t_su + t_wu + t_st + t_cd``, ``v = w_st / t_st``,
hence
``t = alpha + w / v`` with ``alpha = t_su + t_wu + t_cd - (w_wu + w_cd) / v``.

Estimator: the per-round rates ``w_i / t_i`` choose the subsession size
``q`` (harmonic block means, first ``q`` with ``|r1| <= autocorrelation_limit``); the
``h = floor(N/q)`` blocks of consecutive kept rounds are averaged, ``X_j`` = mean work,
``Y_j`` = mean duration (averaging preserves ``alpha``; Pilot's block sums multiply it by
``q``), and ordinary least squares on ``(X_j, Y_j)`` gives ``alpha`` and ``beta = 1/v``
with ``se_beta = sqrt(sigma2 / S_xx)``, ``sigma2 = SSR / (h - 2)``. The slope interval is
``beta +/- t_{h-2}((1 + c)/2) se_beta``; inverting it (``1/x`` is decreasing) gives the
asymmetric throughput interval ``[1/beta_hi, 1/beta_lo]``, unbounded above when
``beta_lo <= 0``. Pilot instead reports ``|1/(beta - 2SE) - 1/(beta + 2SE)|``, which
explodes and changes sign when ``2 SE >= beta`` (see ``docs/algorithms/wps.md``,
*Defects not copied*).

When no subsession size meets ``autocorrelation_limit`` (short series, or a cyclic
schedule whose period makes every qualifying size degenerate), the identifiable size
with the smallest ``|r1|`` is used and ``result.notes`` says so; this never raises on a
schedule :class:`~pilotstats.session.WorkPlanner` produces.

The ``ols`` interval assumes errors of constant variance. When timing noise grows with
the round duration (multiplicative noise) it is too narrow; ``wls`` and ``huber``
weight the rounds for noise proportional to their duration. Measured coverage of the
95 % interval of ``v`` on the README schedule, 400 seeded runs each
(``benchmarks/RESULTS_wps.md``, *Estimators*): additive N(0, 0.02 s) noise: ols 93.2 %,
wls 95.5 %, huber 95.5 %; 5 % multiplicative noise: ols 86.3 %, wls 94.8 %, huber 95.0 %.

Lack of fit (Draper and Smith, *Applied Regression Analysis*, 1998, §2.1): on the
kept rounds, with the estimator's variance weights, the residual sum of squares of the
line is split into pure error (within equal work amounts) and lack of fit,
``F = (SS_lof / (m - 2)) / (SS_pe / (n - m))`` on ``(m - 2, n - m)`` degrees of
freedom for ``m`` distinct work amounts; without replicates a quadratic term is tested
(``F`` on ``(1, n - 3)``). The test assumes independent rounds.

:func:`wps`, options: ``subsession_size`` must leave ``h >= 3`` subsessions. With
``alpha_filter`` the rounds whose work is not above the alpha-implied minimum ``-alpha * v``
are excluded too, iterating to a fixed point; if the kept sets cycle instead, the fit of
the cycle that keeps the most rounds (the earliest on a tie) is returned. With an automatic
subsession size the filter is run again with the size it found, so the result equals
``wps(..., subsession_size=result.subsession_size)``. ``method="pilot"`` reproduces Pilot
v0.14 exactly, including its defects (strict duration filter, no alpha filter, regression on
block sums, Pilot's ``S_xx``, fixed ``2 SE`` interval and absolute inverted width).
``subsession_basis``: the per-round rates ``w/d`` (harmonic block means, as Pilot) or the
residuals of the round-level line fit (arithmetic block means). Rates vary with ``w``
whenever ``alpha != 0``, so work amounts that trend (as in the bisection order) make them
autocorrelated although the errors are not, and the scan then merges far more rounds than
needed; ``"residuals"`` measures the correlation of the errors only and is what
:class:`~pilotstats.session.WorkPlanner` and :class:`~pilotstats.session.BenchmarkSession`
use by default. ``estimator``: the subsession size and the alpha filter come from the OLS
fit in every case. ``"ols"``: ordinary least squares (constant noise variance, additive
timing noise). ``"wls"``: feasible weighted least squares with a noise standard deviation
proportional to the expected duration (multiplicative noise, a constant coefficient of
variation); conservative under additive noise. ``"huber"``: Huber's M-estimator
(``c = 1.345``, Proposal 2 scale, "H1" covariance) on the same weights, for rounds with
outlying durations. ``lack_of_fit_level``: a rejection (pure-error F test when work amounts
are replicated, else a quadratic-term test) sets ``result.lack_of_fit`` and emits
:class:`~pilotstats.exceptions.LackOfFitWarning`.

:func:`wps`, errors and warnings: :class:`~pilotstats.exceptions.InvalidInputError` for
mismatched lengths, NaN/inf, non-positive work or durations, bad parameters, or a rate
work / duration beyond float64 (durations near 1e-308 s);
:class:`~pilotstats.exceptions.NotEnoughDataError` when fewer than 3 rounds survive the
filters or ``subsession_size`` leaves fewer than 3 subsessions;
:class:`~pilotstats.exceptions.DegenerateDesignError` when all rounds have the same work
amount, every subsession size (or an explicit one) gives blocks of equal mean work, or all
durations are equal up to rounding (the slope is not identifiable).
:class:`~pilotstats.exceptions.ConvergenceWarning` when the alpha filter has neither settled
nor cycled after ``_config.WPS_MAX_FILTER_FITS`` fits. Complexity: O(n log n) per fit (the
subsession-size scan) and at most ``2·_config.WPS_MAX_FILTER_FITS`` fits with the alpha
filter; O(n) memory. See also :class:`~pilotstats.session.WorkPlanner` (chooses the work
amounts of the next rounds) and
:func:`~pilotstats.autocorrelation.optimal_subsession_size` (the subsession-size scan).

:func:`wps`, references:

.. [1] Y. Li, Y. Gupta, E. L. Miller and D. D. E. Long, "Pilot: A Framework
   that Understands How to Do Performance Benchmarks the Right Way", MASCOTS 2016;
   Pilot documentation, "Warm-up and cool-down phase detection" (WPS method).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from pilotstats._typing import (
    ArrayLike1D,
    Float64Array1D,
    SubsessionBasis,
    WpsEstimator,
    WpsMethod,
)
from pilotstats._validation import (
    as_float_array,
    check_autocorrelation_limit,
    check_bool,
    check_choice,
    check_confidence_level,
    check_int,
    check_real,
    check_text,
)
from pilotstats.exceptions import DegenerateDesignError, InvalidInputError, NotEnoughDataError
from pilotstats.regression._wps_fit import _alpha_filter, _build_result, _fit_kept, _LineFit
from pilotstats.regression._wps_results import WpsPrediction, WpsResult

__all__ = ["WpsPrediction", "WpsResult", "wps"]


def wps(
    work: ArrayLike1D, durations: ArrayLike1D, *, confidence_level: float = 0.95,
    autocorrelation_limit: float = 0.1, min_round_duration: float = 0.0,
    subsession_size: int | None = None, alpha_filter: bool = True,
    method: WpsMethod | None = None, subsession_basis: SubsessionBasis = "rates",
    unit: str = "units", estimator: WpsEstimator = "ols", lack_of_fit_level: float = 0.001,
) -> WpsResult:
    """Estimate stable throughput by work-per-second regression ``t = alpha + w / v``.

    Details: module docstring. Complexity: O(n log n) per fit, O(n) memory.

    Parameters
    ----------
    work, durations : array_like, shape (n,)
        Work (units) and duration (**seconds**) of each round, finite, positive, in order.
    confidence_level : float, default 0.95
        Level of every interval, in (0, 1).
    autocorrelation_limit : float, default 0.1
        Limit on the absolute lag-1 autocorrelation of the subsession series, in (0, 1].
    min_round_duration : float, default 0.0
        Rounds shorter than this (s) are excluded (too short to time reliably).
    subsession_size : int, optional
        Rounds per subsession; bypasses the autocorrelation scan. Must leave ``h >= 3``.
    alpha_filter : bool, default True
        Also exclude rounds whose work is not above ``-alpha * v``, to a fixed point.
    method : {None, "default", "pilot"}, optional
        ``"pilot"`` reproduces Pilot v0.14 exactly, defects included (comparison only).
    subsession_basis : {"rates", "residuals"}, default "rates"
        Series whose lag-1 autocorrelation chooses the subsession size.
    unit : str, default "units"
        Label of the work unit, used in text output.
    estimator : {"ols", "wls", "huber"}, default "ols"
        How the line is fitted to the subsession means; not with ``method="pilot"``.
    lack_of_fit_level : float, default 0.001
        Significance level of the lack-of-fit test of the straight line.

    Returns
    -------
    WpsResult
        ``alpha``, ``1/v`` and ``v`` with intervals, subsession size and fit metrics.

    Raises
    ------
    InvalidInputError, NotEnoughDataError, DegenerateDesignError
        Bad input or parameters; fewer than 3 rounds or subsessions left; a slope that is
        not identifiable (see the module docstring).

    Warns
    -----
    ConvergenceWarning, LackOfFitWarning
        The alpha filter did not settle; the lack-of-fit test rejects the line.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import wps
    >>> work = np.array([50, 100, 50, 100, 80, 60, 90, 70.0])
    >>> durations = -2.0 + work / 1.5
    >>> result = wps(work, durations, autocorrelation_limit=1.0)
    >>> round(result.throughput, 9), round(result.alpha, 9)
    (1.5, -2.0)
    """
    w, duration = _checked_rounds(work, durations)
    o = _checked_settings(confidence_level, autocorrelation_limit, min_round_duration,
                          subsession_size, alpha_filter, method, subsession_basis, unit,
                          estimator, lack_of_fit_level)
    base, describe, fit_args = _round_filter(duration, o)
    if o.alpha_filter and not o.pilot:
        fit, min_work = _alpha_filter(w, duration, base, describe, fit_args)
        if o.q_given is None:  # rerun with the q found: the explicit-q answer for that size
            try:
                rerun, min_work = _alpha_filter(
                    w, duration, base, describe, {**fit_args, "subsession_size": fit.q})
                fit = replace(rerun, note=fit.note)  # how the scan found q (or None)
            except (NotEnoughDataError, DegenerateDesignError) as exc:
                fit = _first_pass(fit, exc)
    else:
        fit, min_work = _fit_kept(w, duration, base, describe_filter=describe, **fit_args), None
    return _build_result(w, duration, fit, o.level, o.limit, o.threshold, min_work, o.chosen,
                         o.basis, o.unit, o.how, o.lof_level)


class _Settings(NamedTuple):
    """The checked keyword arguments of :func:`wps`."""

    level: float
    limit: float
    threshold: float
    q_given: int | None
    chosen: str
    pilot: bool
    basis: str
    alpha_filter: bool
    how: str
    lof_level: float
    unit: str


def _checked_rounds(work: ArrayLike1D,
                    durations: ArrayLike1D) -> tuple[Float64Array1D, Float64Array1D]:
    """Work and durations as float arrays of one length whose rates are finite."""
    w = as_float_array(work, "work", positive=True)
    duration = as_float_array(durations, "durations", positive=True)
    if w.shape[0] != duration.shape[0]:
        raise InvalidInputError(
            f"work and durations must have the same length (one entry per round), "
            f"got {w.shape[0]} and {duration.shape[0]}"
        )
    with np.errstate(over="ignore"):
        rates = w / duration
    if not np.isfinite(rates).all():  # durations near 1e-308 s: work per second overflows
        raise InvalidInputError(
            "work / duration overflows float64 (durations of about 1e-308 s or work near "
            "1e308); rescale (e.g. give durations in a smaller unit, or work in thousands)")
    return w, duration


def _checked_settings(
    confidence_level: float, autocorrelation_limit: float, min_round_duration: float,
    subsession_size: int | None, alpha_filter: bool, method: WpsMethod | None,
    subsession_basis: SubsessionBasis, unit: str, estimator: WpsEstimator,
    lack_of_fit_level: float,
) -> _Settings:
    """The keyword arguments of :func:`wps`, checked in order (named errors)."""
    level = check_confidence_level(confidence_level)
    limit = check_autocorrelation_limit(autocorrelation_limit)
    threshold = check_real(min_round_duration, "min_round_duration", low=0.0)
    q_given = (
        None if subsession_size is None else check_int(subsession_size, "subsession_size", low=1)
    )
    chosen = "default" if method is None else check_choice(method, "method", ("default", "pilot"))
    pilot = chosen == "pilot"
    basis = check_choice(subsession_basis, "subsession_basis", ("rates", "residuals"))
    if pilot and basis != "rates":
        raise InvalidInputError(
            'method="pilot" chooses q from the rates; use subsession_basis="rates"'
        )
    alpha_filter = check_bool(alpha_filter, "alpha_filter")
    how = check_choice(estimator, "estimator", ("ols", "wls", "huber"))
    if pilot and how != "ols":
        raise InvalidInputError(
            'method="pilot" fits by ordinary least squares; use estimator="ols"'
        )
    lof_level = check_real(lack_of_fit_level, "lack_of_fit_level", low=0.0, high=1.0)
    unit = check_text(unit, "unit")
    return _Settings(level, limit, threshold, q_given, chosen, pilot, basis, alpha_filter, how,
                     lof_level, unit)


def _round_filter(
    duration: Float64Array1D, o: _Settings
) -> tuple[npt.NDArray[np.bool_], str, dict[str, Any]]:
    """The duration filter of the rounds, its description, and the common fit arguments."""
    if o.pilot:
        base = duration > o.threshold
        describe = f"longer than min_round_duration={o.threshold:g} s"
    else:
        base = duration >= o.threshold
        describe = f"with a duration of at least min_round_duration={o.threshold:g} s"
    fit_args: dict[str, Any] = {
        "autocorrelation_limit": o.limit,
        "subsession_size": o.q_given,
        "pilot": o.pilot,
        "basis": o.basis,
    }
    return base, describe, fit_args


def _first_pass(fit: _LineFit, exc: Exception) -> _LineFit:
    """The first pass's fit, noting why the rerun with the size it found failed (too few or
    degenerate blocks on a set the filter visits with that size)."""
    note = (
        f"the alpha filter rerun with q = {fit.q} failed ({exc}); the fit of the "
        "first pass is reported, so wps(..., subsession_size=q) differs"
    )
    return replace(fit, note=note if fit.note is None else f"{fit.note}; {note}")
