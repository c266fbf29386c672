"""The fits behind :func:`~pilotstats.regression._wps`.

The block regression of one set of kept rounds (subsession size chosen on the autocorrelation
of the rates or residuals, skipping sizes whose blocks cannot identify the line), the
alpha-filter that drops rounds shorter than the fitted overhead, the prediction errors, and
the assembly of the :class:`~pilotstats.regression.WpsResult` with its confidence interval.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from pilotstats import _config
from pilotstats._kernels.regression import block_line_fit
from pilotstats._stats import two_sided_t
from pilotstats._typing import Float64Array1D, MeanMethod, SubsessionBasis
from pilotstats.autocorrelation import optimal_subsession_size
from pilotstats.exceptions import (
    ConvergenceWarning,
    DegenerateDesignError,
    LackOfFitWarning,
    NotEnoughDataError,
)
from pilotstats.regression._wps_estimators import (
    block_means,
    huber_line,
    lack_of_fit,
    wls_line,
)
from pilotstats.regression._wps_results import WpsResult, _invert_slope_interval
from pilotstats.results import format_number

__all__: list[str] = []


#: Pilot's fixed multiplier of the standard error (``lib/libpilot.cc``); ``method="pilot"`` only.
_PILOT_SE_MULTIPLIER = 2.0


@dataclass(frozen=True, slots=True)
class _LineFit:
    """Internal: one block regression on a set of kept rounds."""

    kept: np.ndarray
    q: int
    h: int
    alpha: float
    beta: float
    ssr_blocks: float
    s_xx: float
    s_yy: float
    x_mean: float
    se_scale_sxx: float
    note: str | None = None

    @property
    def valid(self) -> bool:
        return self.beta > 0.0


def _autocorrelation_series(
    w: Float64Array1D, d: Float64Array1D, basis: SubsessionBasis
) -> tuple[Float64Array1D | None, MeanMethod]:
    """The series whose lag-1 autocorrelation chooses ``q``; None when it is constant.

    ``"rates"``: per-round rates ``w/d`` with harmonic block means (as Pilot).
    ``"residuals"``: residuals of the round-level line fit, arithmetic block means. Rates
    depend on ``w`` whenever ``alpha != 0`` (``w/d = v / (1 + alpha v / w)``), so a design
    whose work amounts trend (the bisection order ascends within each level) makes the rates
    autocorrelated although the errors are not; residuals carry only the errors.
    Exactly constant rates or (numerically) zero residuals give None: ``q = 1``.
    """
    if basis == "rates":
        rates = w / d
        return (None if np.all(rates == rates[0]) else rates), "harmonic"
    alpha, beta, *_ = block_line_fit(w, d, 1, False)
    if not math.isfinite(beta):
        return None, "arithmetic"  # degenerate design, reported by the block fit
    residuals = d - (alpha + beta * w)
    if np.max(np.abs(residuals)) <= _config.WPS_ZERO_RESIDUAL_TOLERANCE * np.max(d):
        return None, "arithmetic"
    return residuals, "arithmetic"


def _fit_kept(
    work: Float64Array1D,
    durations: Float64Array1D,
    kept: np.ndarray,
    *,
    autocorrelation_limit: float,
    subsession_size: int | None,
    pilot: bool,
    basis: SubsessionBasis,
    describe_filter: str,
) -> _LineFit:
    """Choose q on the kept rounds and fit the block line."""
    w = np.ascontiguousarray(work[kept])
    d = np.ascontiguousarray(durations[kept])
    n_kept = w.shape[0]
    _check_kept_rounds(w, d, describe_filter, int(work.shape[0]))
    note: str | None = None
    q = 1 if subsession_size is None else subsession_size
    if subsession_size is None:
        q, note = _choose_subsession_size(w, d, autocorrelation_limit, pilot, basis)
    h = n_kept // q
    if h < 3:
        raise NotEnoughDataError(
            f"subsession_size={q} leaves {h} subsession(s) of the {n_kept} kept rounds; the "
            "regression needs at least 3 (two parameters plus one degree of freedom)"
        )
    alpha, beta, ssr_blocks, s_xx, s_yy, x_mean, _ = block_line_fit(w, d, q, pilot)
    x_max = float(np.max(w)) * (q if pilot else 1)
    if s_xx <= h * (_config.WPS_DEGENERATE_RELATIVE_TOLERANCE * x_max) ** 2:
        raise DegenerateDesignError(
            f"the slope is not identifiable: all {h} subsessions of {q} round(s) have the same "
            f"mean work amount ({format_number(float(x_mean), 10)}); the work amounts must "
            "differ between rounds"
        )
    if pilot:
        # Pilot's S_xx: the (h-1)-divisor variance of the block means of the kept work amounts
        # about their overall mean, times (number of input rounds - 1) (as Pilot computes it).
        block_means = w[: h * q].reshape(h, q).mean(axis=1)
        var_q = float(np.sum((block_means - w.mean()) ** 2) / (h - 1))
        se_scale_sxx = var_q * (work.shape[0] - 1)
    else:
        se_scale_sxx = float(s_xx)
    return _LineFit(
        kept=kept,
        q=q,
        h=h,
        alpha=float(alpha),
        beta=float(beta),
        ssr_blocks=float(ssr_blocks),
        s_xx=float(s_xx),
        s_yy=float(s_yy),
        x_mean=float(x_mean),
        se_scale_sxx=se_scale_sxx,
        note=note,
    )


def _check_kept_rounds(
    w: Float64Array1D, d: Float64Array1D, describe_filter: str, n_rounds: int
) -> None:
    """At least 3 kept rounds, durations that vary and work amounts that differ."""
    n_kept = w.shape[0]
    if n_kept < 3:
        raise NotEnoughDataError(
            f"need at least 3 rounds {describe_filter}, got {n_kept} of {n_rounds}"
        )
    if float(np.max(d) - np.min(d)) <= _config.WPS_ZERO_RESIDUAL_TOLERANCE * float(np.max(d)):
        raise DegenerateDesignError(
            f"the durations of the {n_kept} rounds used are all equal (up to rounding, "
            f"{format_number(float(d[0]))} s) although their work amounts differ: the time "
            "does not measurably grow with the work, so the slope is rounding noise and the "
            "throughput undetermined; use larger work amounts (or a finer timer)"
        )
    if np.all(w == w[0]):
        raise DegenerateDesignError(
            f"the slope is not identifiable: all {n_kept} rounds used have the same work "
            f"amount ({format_number(float(w[0]), 10)}); the work amounts must differ between "
            "rounds"
        )


def _choose_subsession_size(
    w: Float64Array1D, d: Float64Array1D, autocorrelation_limit: float, pilot: bool,
    basis: SubsessionBasis,
) -> tuple[int, str | None]:
    """The scanned subsession size of the kept rounds, and a note when it is a fallback."""
    series, mean_method = _autocorrelation_series(w, d, basis)
    if series is None:
        return 1, None
    found = optimal_subsession_size(
        series, autocorrelation_limit=autocorrelation_limit, mean_method=mean_method
    )
    if found is not None and _degenerate_blocks(w, found, pilot):
        # A cyclic schedule whose period divides q gives every block the same mean
        # work (e.g. w = tile([1, 2, 4, 8], k) with q = 4): skip such sizes and take
        # the next size that meets the limit and identifies the slope.
        found = _next_identifiable_size(
            w, series, mean_method, found, autocorrelation_limit, pilot
        )
    if found is None:
        # No identifiable size meets the limit (short or strongly correlated
        # series): fall back to the identifiable size with the smallest |r1| and
        # say so, rather than fail on a schedule the planner itself produced.
        return _fallback_size(w, series, mean_method, autocorrelation_limit, pilot, basis)
    return int(found), None


def _degenerate_blocks(w: Float64Array1D, q: int, pilot: bool) -> bool:
    """Whether the block means of ``w`` for size ``q`` leave the slope unidentifiable."""
    h = w.shape[0] // q
    if h < 3:
        return False  # reported as "too few subsessions" by the caller
    blocks = w[: h * q].reshape(h, q).mean(axis=1) * (q if pilot else 1)
    spread = float(np.sum((blocks - blocks.mean()) ** 2))
    x_max = float(np.max(w)) * (q if pilot else 1)
    return bool(spread <= h * (_config.WPS_DEGENERATE_RELATIVE_TOLERANCE * x_max) ** 2)


def _next_identifiable_size(
    w: Float64Array1D,
    series: Float64Array1D,
    mean_method: MeanMethod,
    first: int,
    limit: float,
    pilot: bool,
) -> int | None:
    """Smallest ``q > first`` with ``|r1(q)| <= limit`` and a non-degenerate design.

    None when no size up to ``n // 3`` qualifies (the caller then falls back to
    :func:`_fallback_size`). O(n) per size tried.
    """
    from pilotstats.autocorrelation import lag1_autocorrelation

    for q in range(first + 1, series.shape[0] // 3 + 1):
        if abs(lag1_autocorrelation(series, q, mean_method=mean_method)) <= limit and not (
            _degenerate_blocks(w, q, pilot)
        ):
            return q
    return None


def _fallback_size(
    w: Float64Array1D,
    series: Float64Array1D,
    mean_method: MeanMethod,
    limit: float,
    pilot: bool,
    basis: SubsessionBasis,
) -> tuple[int, str]:
    """The identifiable size in ``1..n//3`` with the smallest ``|r1|``, and a note saying so.

    Used when no size meets ``autocorrelation_limit``; the smallest size wins a tie. Raises
    :class:`DegenerateDesignError` when every size gives blocks of equal mean work (no size
    identifies the slope). O(n^2) in the worst case (O(n) per size).
    """
    from pilotstats.autocorrelation import lag1_autocorrelation

    n = series.shape[0]
    best: tuple[float, int] | None = None
    for q in range(1, n // 3 + 1):
        if _degenerate_blocks(w, q, pilot):
            continue
        r1 = abs(lag1_autocorrelation(series, q, mean_method=mean_method))
        if best is None or r1 < best[0]:
            best = (r1, q)
    what = "per-round rates" if basis == "rates" else "per-round residuals"
    if best is None:
        raise DegenerateDesignError(
            f"no subsession size q in 1..{n // 3} identifies the slope: every size gives "
            f"blocks of {n} kept rounds with the same mean work amount; the work amounts "
            "must differ between rounds"
        )
    r1, q = best
    note = (
        f"no subsession size met autocorrelation_limit={limit:g} (lag-1 autocorrelation of "
        f"the {what} of the {n} kept rounds); used q = {q}, the size with the smallest "
        f"|r1| = {r1:.3g}: the subsessions are still correlated, so the interval may be "
        "too narrow; record more rounds"
    )
    return q, note


def _alpha_filter(
    work: Float64Array1D,
    duration: Float64Array1D,
    base: np.ndarray,
    describe: str,
    fit_args: dict[str, Any],
) -> tuple[_LineFit, float | None]:
    """The alpha-based round filter with a deterministic end.

    Iterates ``kept = base & (w > -alpha v)`` from the fit on ``base``. It stops at a fixed
    point. If the kept sets cycle (two fits exclude each other's rounds), the fit of the
    cycle that keeps the most rounds (the earliest on a tie) is returned: a deterministic
    rule. A step that leaves no valid fit raises, as before. Returns the fit and the
    alpha-implied minimum work applied to obtain it (None when no round was excluded by it).
    """
    fit = _fit_kept(work, duration, base, describe_filter=describe, **fit_args)
    history: list[tuple[_LineFit, float | None]] = [(fit, None)]
    for n_fits in range(1, _config.WPS_MAX_FILTER_FITS + 1):
        candidate = _alpha_minimum(fit)
        kept = base if candidate is None else base & (work > candidate)
        if np.array_equal(kept, fit.kept):
            return fit, candidate
        for index, (earlier, _) in enumerate(history):
            if np.array_equal(kept, earlier.kept):
                cycle = history[index:]
                best = max(range(len(cycle)), key=lambda i: (int(cycle[i][0].kept.sum()), -i))
                return cycle[best]
        if n_fits == _config.WPS_MAX_FILTER_FITS:
            warnings.warn(
                f"the alpha-based round filter of wps did not settle after {n_fits} fits; "
                "returning the last fit",
                ConvergenceWarning,
                stacklevel=3,
            )
            return fit, history[-1][1]
        describe_alpha = (
            f"{describe} and a work amount above the alpha-implied minimum "
            f"{format_number(candidate)}"
        )
        fit = _fit_kept(work, duration, kept, describe_filter=describe_alpha, **fit_args)
        history.append((fit, candidate))
    return fit, history[-1][1]  # pragma: no cover - the loop always returns


def _alpha_minimum(fit: _LineFit) -> float | None:
    """Alpha-implied minimum work ``-alpha * v`` when ``alpha < 0`` and the fit is valid."""
    if fit.valid and fit.alpha < 0.0:
        return -fit.alpha / fit.beta
    return None


def _prediction_errors(
    work: Float64Array1D, durations: Float64Array1D, predicted: Float64Array1D
) -> tuple[float, float, float]:
    """``SSR``, ``RMSE`` and ``sqrt(SSR) / sum(d)`` of a predictor."""
    ssr = float(np.sum((durations - predicted) ** 2))
    return ssr, math.sqrt(ssr / work.shape[0]), math.sqrt(ssr) / float(np.sum(durations))


def _build_result(
    work: Float64Array1D,
    duration: Float64Array1D,
    fit: _LineFit,
    level: float,
    limit: float,
    threshold: float,
    min_work: float | None,
    method: str,
    basis: str,
    unit: str,
    estimator: str = "ols",
    lack_of_fit_level: float = 0.001,
) -> WpsResult:
    """Intervals, lack-of-fit test and prediction metrics of a finished fit."""
    pilot = method == "pilot"
    dof = fit.h - 2
    fit, sigma2, reference, se_alpha, se_beta, covariance, r_squared = _line_uncertainty(
        fit, work, duration, estimator
    )
    multiplier = _PILOT_SE_MULTIPLIER if pilot else two_sided_t(level, dof)
    slope_low = fit.beta - multiplier * se_beta
    slope_high = fit.beta + multiplier * se_beta
    throughput, v_low, v_high, bounded = _throughput_interval(
        fit, slope_low, slope_high, se_beta, pilot
    )
    kept = fit.kept
    w_used, d_used = work[kept], duration[kept]
    errors = _fit_errors(work, duration, fit, pilot)
    rounds_used = np.flatnonzero(kept).astype(np.int64)
    rounds_used.setflags(write=False)
    p_value, test, flagged = _lack_of_fit_check(w_used, d_used, estimator, lack_of_fit_level)
    return WpsResult(
        alpha=fit.alpha,
        alpha_ci_low=fit.alpha - multiplier * se_alpha,
        alpha_ci_high=fit.alpha + multiplier * se_alpha,
        alpha_stderr=se_alpha,
        slope=fit.beta,
        slope_ci_low=slope_low,
        slope_ci_high=slope_high,
        slope_stderr=se_beta,
        throughput=throughput,
        throughput_ci_low=float(v_low),
        throughput_ci_high=float(v_high),
        subsession_size=fit.q,
        n_subsessions=fit.h,
        dof=dof,
        n_rounds=int(work.shape[0]),
        n_rounds_used=int(rounds_used.shape[0]),
        rounds_used=rounds_used,
        r_squared=float(r_squared),
        residual_std_error=math.sqrt(sigma2),
        **errors._asdict(),
        min_round_duration=threshold,
        min_work=None if min_work is None else float(min_work),
        valid=fit.valid,
        bounded=bool(bounded),
        confidence_level=level,
        autocorrelation_limit=limit,
        method=method,
        subsession_basis=basis,
        unit=unit,
        estimator=estimator,
        lack_of_fit=flagged,
        lack_of_fit_p_value=p_value,
        lack_of_fit_test=test,
        lack_of_fit_level=lack_of_fit_level,
        notes=() if fit.note is None else (fit.note,),
        _work_mean=fit.x_mean,
        _work_sxx=fit.s_xx,
        _covariance=covariance,
        _reference_duration=reference,
    )


def _line_uncertainty(
    fit: _LineFit, work: Float64Array1D, duration: Float64Array1D, estimator: str
) -> tuple[_LineFit, float, float, float, float, tuple[float, float, float], float]:
    """The line (refitted for ``estimator != "ols"``) with its residual variance, reference
    duration, standard errors of alpha and beta, covariance and R^2."""
    sigma2 = fit.ssr_blocks / (fit.h - 2)
    se_beta = math.sqrt(sigma2 / fit.se_scale_sxx)
    se_alpha = math.sqrt(sigma2 * (1.0 / fit.h + fit.x_mean**2 / fit.se_scale_sxx))
    r_squared = 1.0 - fit.ssr_blocks / fit.s_yy if fit.s_yy > 0 else 1.0
    reference = math.nan
    covariance = (se_alpha**2, math.nan, se_beta**2)
    if estimator != "ols":
        x, y = block_means(work[fit.kept], duration[fit.kept], fit.q)
        line = wls_line(x, y) if estimator == "wls" else huber_line(x, y)
        fit = replace(fit, alpha=line.alpha, beta=line.beta)
        sigma2, reference = line.sigma2, line.reference
        se_alpha = math.sqrt(float(line.covariance[0, 0]))
        se_beta = math.sqrt(float(line.covariance[1, 1]))
        covariance = (se_alpha**2, float(line.covariance[0, 1]), se_beta**2)
        r_squared = line.r_squared
    return fit, sigma2, reference, se_alpha, se_beta, covariance, r_squared


def _throughput_interval(
    fit: _LineFit, slope_low: float, slope_high: float, se_beta: float, pilot: bool
) -> tuple[float, float, float, bool]:
    """Throughput ``1 / beta`` and its interval (``v_low, v_high, bounded``)."""
    throughput = 1.0 / fit.beta if fit.valid else math.nan
    if pilot:
        # Pilot's reported width |1/(beta - 2SE) - 1/(beta + 2SE)|, centred on v (Pilot).
        width = abs(1.0 / slope_low - 1.0 / slope_high) if se_beta > 0 else 0.0
        v_low, v_high = throughput - width / 2, throughput + width / 2
        bounded = math.isfinite(width) and fit.valid
    elif fit.valid:
        v_low, v_high, bounded = _invert_slope_interval(slope_low, slope_high)
    else:  # undetermined throughput: no estimate, hence no bound either (never a finite one)
        v_low, v_high, bounded = math.nan, math.nan, False
    return throughput, v_low, v_high, bounded


def _lack_of_fit_check(
    w_used: Float64Array1D, d_used: Float64Array1D, estimator: str, lack_of_fit_level: float
) -> tuple[float, str, bool]:
    """Lack-of-fit test of the used rounds; warns (at the caller of :func:`wps`) when it
    rejects linearity at ``lack_of_fit_level``."""
    p_value, test = lack_of_fit(w_used, d_used, estimator != "ols")
    flagged = bool(p_value < lack_of_fit_level)
    if flagged:
        warnings.warn(
            f"the round durations are not linear in the work ({test} lack-of-fit test, "
            f"p = {format_number(p_value, 2)} < {lack_of_fit_level:g}): t = alpha + w / v "
            "does not hold over this range, so v and its interval describe a line the "
            "workload does not follow; plot the fit (result.plot) and narrow the work range",
            LackOfFitWarning,
            stacklevel=4,
        )
    return p_value, test, flagged


class _FitErrors(NamedTuple):
    """Prediction errors of the line and of the naive ``sum(w) / sum(t)`` estimate."""

    ssr: float
    rmse: float
    relative_error: float
    ssr_all: float
    relative_error_all: float
    naive_throughput: float
    naive_ssr: float
    naive_relative_error: float


def _fit_errors(
    work: Float64Array1D, duration: Float64Array1D, fit: _LineFit, pilot: bool
) -> _FitErrors:
    """Errors on the used rounds and on all rounds (Pilot: its ``ssr`` is over all)."""
    w_used, d_used = work[fit.kept], duration[fit.kept]
    ssr, rmse, relative = _prediction_errors(w_used, d_used, fit.alpha + fit.beta * w_used)
    ssr_all, _, relative_all = _prediction_errors(work, duration, fit.alpha + fit.beta * work)
    if pilot:
        ssr = ssr_all
    naive = float(np.sum(w_used) / np.sum(d_used))
    naive_ssr, _, naive_relative = _prediction_errors(w_used, d_used, w_used / naive)
    return _FitErrors(ssr, rmse, relative, ssr_all, relative_all, naive, naive_ssr,
                      naive_relative)
