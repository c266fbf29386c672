"""Line estimators of :func:`~pilotstats.regression._wps` beyond OLS, and its lack-of-fit test.

``estimator="wls"``: feasible weighted least squares with a constant coefficient of
variation, ``Var(Y_j) = sigma^2 (mu_j / mu_bar)^2`` (timing noise proportional to the round
length; Carroll and Ruppert, *Transformation and Weighting in Regression*, 1988, §2.1,
iterated to a fixed point of the weights), covariance ``sigma^2 (X' W X)^-1`` with
``sigma^2 = sum w e^2 / (h - 2)``. Under additive noise the weights are wrong but the
interval stays conservative on the designs simulated (an estimated variance power was tried
and dropped: its sampling noise cost 2-3 points of coverage with 24 rounds).

``estimator="huber"``: Huber's M-estimator (``c = 1.345``, Huber's Proposal 2 scale,
iteratively reweighted least squares; Huber, *Robust Statistics*, 1981, §7.7-7.8, the "H1"
covariance with its small-sample factor ``K``) on the same variance-weighted problem, so it
is robust to outlying rounds *and* to multiplicative noise. It reproduces
``statsmodels.RLM(y, X, M=HuberT()).fit(scale_est=HuberScale())`` on the weighted rows.

Lack of fit (Draper and Smith, *Applied Regression Analysis*, 3rd ed., 1998, §2.1): with
replicated work amounts the residual sum of squares of the round-level line splits into pure
error (within equal work amounts) and lack of fit, ``F = (SS_lof / (m - 2)) / (SS_pe /
(n - m))`` with ``m`` distinct work amounts; without replicates the test of a quadratic term
``t = a + b w + c w^2`` (``F = (SS_lin - SS_quad) / (SS_quad / (n - 3))``). Both use the
estimator's variance weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from pilotstats import _config
from pilotstats._typing import Float64Array1D

__all__: list[str] = []

#: Tuning constant of Huber's psi (95 % efficiency at the normal), as statsmodels' HuberT.
HUBER_C = 1.345
#: Tuning constant of Huber's Proposal 2 scale, as statsmodels' HuberScale.
HUBER_SCALE_D = 2.5
#: Most iterations of the Proposal 2 scale (statsmodels' ``maxiter``).
_HUBER_SCALE_ITERATIONS = 30
#: Consistency constant of the MAD for the normal distribution (``Phi^-1(3/4)``).
_MAD_NORMAL = 0.6744897501960817


@dataclass(frozen=True, slots=True)
class _EstimatedLine:
    """Internal: a weighted or robust block line with its covariance."""

    alpha: float
    beta: float
    covariance: np.ndarray  # 2 x 2, (alpha, beta)
    sigma2: float  # variance (s^2) of a block mean whose expected duration is `reference`
    reference: float  # mu_bar (s)
    r_squared: float


def block_means(w: Float64Array1D, d: Float64Array1D, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Means of work and duration over the ``h = n // q`` blocks of ``q`` consecutive rounds."""
    h = w.shape[0] // q
    return w[: h * q].reshape(h, q).mean(axis=1), d[: h * q].reshape(h, q).mean(axis=1)


def _weighted_line(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Weighted least squares ``y = a + b x``: ``(a, b, (X'WX)^-1, residuals)``, centred sums."""
    total = float(np.sum(weights))
    x_bar = float(np.sum(weights * x) / total)
    y_bar = float(np.sum(weights * y) / total)
    s_xx = float(np.sum(weights * (x - x_bar) ** 2))
    beta = float(np.sum(weights * (x - x_bar) * (y - y_bar)) / s_xx)
    alpha = y_bar - beta * x_bar
    inverse = np.array(
        [[1.0 / total + x_bar**2 / s_xx, -x_bar / s_xx], [-x_bar / s_xx, 1.0 / s_xx]]
    )
    return alpha, beta, inverse, y - alpha - beta * x


def _positive_means(fitted: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Fitted durations, floored at half the smallest observed one (weights stay finite)."""
    return np.asarray(np.maximum(fitted, 0.5 * float(np.min(y))), dtype=np.float64)


def variance_weights(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Weights ``(mu_bar / mu)^2`` of a constant coefficient of variation, at a fixed point.

    Feasible WLS: ``mu`` are the fitted durations of the previous fit (OLS first); refit
    until the slope changes by at most ``1e-12`` relative (at most
    ``WPS_WLS_MAX_ITERATIONS`` fits), so the returned weights are those of the returned
    line. Returns the weights and ``mu_bar`` (the mean fitted duration, s).
    """
    h = x.shape[0]
    alpha, beta, _, _ = _weighted_line(x, y, np.ones(h))
    for _ in range(_config.WPS_WLS_MAX_ITERATIONS):
        mu = _positive_means(alpha + beta * x, y)
        weights = (float(np.mean(mu)) / mu) ** 2
        alpha, new_beta, _, _ = _weighted_line(x, y, weights)
        settled = abs(new_beta - beta) <= 1e-12 * abs(new_beta)
        beta = new_beta
        if settled:
            break
    mu = _positive_means(alpha + beta * x, y)
    reference = float(np.mean(mu))
    return (reference / mu) ** 2, reference


def _weighted_r_squared(y: np.ndarray, residuals: np.ndarray, weights: np.ndarray) -> float:
    y_bar = float(np.sum(weights * y) / np.sum(weights))
    total = float(np.sum(weights * (y - y_bar) ** 2))
    return 1.0 - float(np.sum(weights * residuals**2)) / total if total > 0 else 1.0


def wls_line(x: np.ndarray, y: np.ndarray) -> _EstimatedLine:
    """Feasible WLS of the block means, variance proportional to ``mu^2`` (module docstring)."""
    weights, reference = variance_weights(x, y)
    alpha, beta, inverse, residuals = _weighted_line(x, y, weights)
    sigma2 = float(np.sum(weights * residuals**2)) / (x.shape[0] - 2)
    return _EstimatedLine(
        alpha, beta, sigma2 * inverse, sigma2, reference,
        _weighted_r_squared(y, residuals, weights),
    )


def huber_scale(residuals: np.ndarray, dof: int, *, d: float = HUBER_SCALE_D) -> float:
    """Huber's Proposal 2 scale (as statsmodels' ``HuberScale``): the fixed point of
    ``s^2 = sum chi(r / s) s^2 / (n b)``, ``chi(z) = min(z, d)^2 / 2``, with ``b`` the
    consistency constant ``(dof / n) E[chi(Z)]`` at the normal, from the MAD about the median.
    """
    n = residuals.shape[0]
    normal_cdf = 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))
    b = (dof / n) * (
        d**2 + (1 - d**2) * normal_cdf - 0.5 - d / math.sqrt(2 * math.pi) * math.exp(-0.5 * d**2)
    )
    scale = float(np.median(np.abs(residuals - np.median(residuals)))) / _MAD_NORMAL
    previous = math.inf
    for _ in range(_HUBER_SCALE_ITERATIONS - 1):
        if abs(previous - scale) <= 1e-8 or scale <= 0.0:
            break
        z = np.abs(residuals / scale)
        chi = np.where(z < d, 0.5 * z**2, 0.5 * d**2)
        previous, scale = scale, math.sqrt(float(np.sum(chi)) * scale**2 / (n * b))
    return scale


def huber_regression(
    design: np.ndarray, y: np.ndarray, *, c: float = HUBER_C
) -> tuple[np.ndarray, np.ndarray, float]:
    """Huber M-estimate of ``y = design @ params`` by IRLS, as statsmodels'
    ``RLM(y, design, M=HuberT()).fit(scale_est=HuberScale())``.

    Scale: Huber's Proposal 2 (:func:`huber_scale`), updated every iteration (more
    efficient at the normal than the MAD, which matters with a few dozen subsessions);
    stops when the deviance ``sum rho(r / s)`` changes by at most ``1e-8``. Covariance "H1":
    ``K^2 sum psi^2 / (n - p) s^2 / (mean psi')^2 (X'X)^-1`` with
    ``K = 1 + p/n var(psi') / mean(psi')^2``. Returns ``(params, covariance, scale)``.
    """
    n, p = design.shape
    params = np.linalg.lstsq(design, y, rcond=None)[0]
    residuals = y - design @ params
    scale = huber_scale(residuals, n - p)
    deviance = math.inf
    for _ in range(_config.WPS_HUBER_MAX_ITERATIONS):
        if scale <= 0.0:
            break
        standardized = np.abs(residuals / scale)
        weights = np.where(standardized <= c, 1.0, c / np.maximum(standardized, c))
        root = np.sqrt(weights)
        params = np.linalg.lstsq(design * root[:, None], y * root, rcond=None)[0]
        residuals = y - design @ params
        scale = huber_scale(residuals, n - p)
        if scale <= 0.0:
            break
        r = np.abs(residuals / scale)
        new = float(np.sum(np.where(r <= c, 0.5 * r**2, c * r - 0.5 * c**2)))
        if abs(new - deviance) <= 1e-8:
            break
        deviance = new
    inverse = np.linalg.inv(design.T @ design)
    if scale <= 0.0:
        return params, np.zeros((p, p)), 0.0
    r = residuals / scale
    psi = np.clip(r, -c, c)
    psi_deriv = (np.abs(r) <= c).astype(np.float64)
    m = float(np.mean(psi_deriv))
    if m == 0.0:
        return params, np.full((p, p), math.inf), scale
    k = 1.0 + p / n * float(np.var(psi_deriv)) / m**2
    factor = k**2 * float(np.sum(psi**2)) / (n - p) * scale**2 / m**2
    return params, factor * inverse, scale


def huber_line(x: np.ndarray, y: np.ndarray) -> _EstimatedLine:
    """Huber's M-estimate of the block line on the WLS variance weights (module docstring)."""
    weights, reference = variance_weights(x, y)
    root = np.sqrt(weights)
    design = np.column_stack([root, root * x])
    params, covariance, scale = huber_regression(design, root * y)
    alpha, beta = float(params[0]), float(params[1])
    residuals = y - alpha - beta * x
    return _EstimatedLine(
        alpha, beta, covariance, scale**2, reference,
        _weighted_r_squared(y, residuals, weights),
    )


def lack_of_fit(w: Float64Array1D, d: Float64Array1D, weighted: bool) -> tuple[float, str]:
    """Lack-of-fit test of the straight line on the rounds; ``(p_value, test)``.

    ``test`` is ``"pure error"`` (replicated work amounts: at least 3 distinct amounts and
    2 degrees of freedom of pure error), ``"quadratic"`` (at least 4 rounds and 3 distinct
    amounts otherwise) or ``"none"`` (p = NaN: two work amounts always fit a line). With
    ``weighted``, the constant-CV weights ``(mu_bar / mu)^2`` of the round-level fit. An
    exact fit (both sums of squares at rounding level) gives p = 1; exact replicates around
    a curve give p = 0.
    """
    n = w.shape[0]
    levels = np.unique(w)  # without return_inverse: 15x faster at 1e5 rounds
    m = levels.shape[0]
    if m < 3 or n < 4:
        return math.nan, "none"
    weights = variance_weights(w, d)[0] if weighted else np.ones(n)
    _, _, _, residuals = _weighted_line(w, d, weights)
    ss_line = float(np.sum(weights * residuals**2))
    tiny = n * (_config.WPS_ZERO_RESIDUAL_TOLERANCE * float(np.max(d))) ** 2
    if n - m >= 2:
        inverse_index = np.searchsorted(levels, w)
        sums = np.bincount(inverse_index, weights * d)
        totals = np.bincount(inverse_index, weights)
        group_mean = (sums / totals)[inverse_index]
        ss_error = float(np.sum(weights * (d - group_mean) ** 2))
        dof_test, dof_error, test = m - 2, n - m, "pure error"
    else:
        # normal equations in z = w mapped onto [-1, 1] (well conditioned, O(n))
        low, high = float(levels[0]), float(levels[-1])
        z = (2.0 * w - (low + high)) / (high - low)
        powers = [weights, weights * z]
        powers += [powers[1] * z, powers[1] * z * z, powers[1] * z * z * z]
        moments = [float(np.sum(p)) for p in powers]
        normal = np.array([moments[0:3], moments[1:4], moments[2:5]])
        rhs = np.array([float(np.sum(p * d)) for p in powers[:3]])
        c0, c1, c2 = np.linalg.solve(normal, rhs)
        ss_error = float(np.sum(weights * (d - (c0 + z * (c1 + z * c2))) ** 2))
        dof_test, dof_error, test = 1, n - 3, "quadratic"
    ss_lack = max(ss_line - ss_error, 0.0)
    if ss_error <= tiny:
        return (1.0 if ss_lack <= tiny else 0.0), test
    statistic = (ss_lack / dof_test) / (ss_error / dof_error)
    return float(special.fdtrc(dof_test, dof_error, statistic)), test
