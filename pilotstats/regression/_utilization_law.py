"""Service demands from measured throughputs and utilizations by the utilization law.

When only utilizations U and throughputs X are measured (no response times), the
utilization law U_k = Σ_c X_c D_kc / m_k (Denning & Buzen 1978; one of the model equations
of Woodside's tutorial, WOSP/SIPEW 2010) makes every station's busy fraction a linear
function of the throughputs through the origin. Regressing U on X without an intercept,
one station at a time, estimates the demands D_kc with t intervals: the estimator
practitioners use for service-demand estimation (Rolia & Vetland 1995; Zhang, Cherkasova &
Smirni 2007). Documentation: ``docs/algorithms/calibration.md``, *Utilization law*.

:func:`utilization_law_demands`, notes:

Each station's utilization is regressed on the throughputs through the origin,
U_tk · m_k = Σ_c X_tc D_kc + e_tk, the utilization law U = X D of operational analysis
([1]_; Woodside's tutorial lists it among the model equations, [2]_). This is the
service-demand estimate to use when only U and X are measured; with response times as
well, calibrate a :class:`ClosedNetworkModel` with ``measures`` including
``"utilizations"``.

Per station k (least squares through the origin, [3]_): D̂_k = (XᵀWX)⁻¹XᵀW b_k with
b_k = U_k m_k, s_k² = Σ_t w_t (b_tk − x_tᵀD̂_k)²/(T − C), Cov(D̂_k) = s_k² (XᵀWX)⁻¹ and
the interval D̂ ± t_{(1+c)/2; T−C} se. Errors in the measured throughputs are ignored
(they are usually far smaller than the utilization noise).

:func:`utilization_law_demands`, references:

.. [1] P. J. Denning and J. P. Buzen, "The operational analysis of queueing network
   models", ACM Computing Surveys 10(3), 1978, pp. 225–261 (utilization law).
.. [2] M. Woodside, "Regression techniques for performance parameter estimation",
   WOSP/SIPEW 2010 tutorial.
.. [3] J. Rolia and V. Vetland, "Parameter estimation for performance models of
   distributed application systems", CASCON 1995.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats._stats import t_quantile
from pilotstats._validation import as_float_array, check_choice, check_confidence_level
from pilotstats.exceptions import DegenerateDesignError, InvalidInputError, NotEnoughDataError
from pilotstats.results import Result, format_number

__all__ = ["UtilizationLawResult", "utilization_law_demands"]

FloatArray = npt.NDArray[np.float64]
_MAX_PASSES = 50


def _readonly(array: npt.ArrayLike) -> FloatArray:
    out = np.array(array, dtype=np.float64, copy=True)
    out.setflags(write=False)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class UtilizationLawResult(Result):
    """Service demands estimated by the utilization law, with t intervals.

    Attributes
    ----------
    demands : ndarray, shape (K,) or (K, C)
        D̂_kc in seconds per response (one class: shape (K,)).
    stderr : ndarray, shape like ``demands``
        Standard errors of the regression through the origin.
    ci_low, ci_high : ndarray, shape like ``demands``
        D̂ ∓ t_{(1+c)/2; dof} · stderr.
    residual_std : ndarray, shape (K,)
        Residual standard deviation of each station's regression (weighted residuals for
        ``weights="relative"``, i.e. a relative error).
    dof : int
        Trials minus classes, T − C (per station).
    confidence_level : float
    t_quantile : float
    weights : str
        ``"ols"`` or ``"relative"``.
    n_trials : int
    passes : int
        Weighted passes (1 for OLS and for one class).

    Examples
    --------
    >>> from pilotstats.regression import utilization_law_demands
    >>> result = utilization_law_demands([0.1, 0.2, 0.3], [[0.21, 0.29], [0.39, 0.61],
    ...                                                      [0.60, 0.90]])
    >>> print(result)
    utilization law (ols): D1 = 1.993 [1.88, 2.106], D2 = 3.007 [2.894, 3.12] s (95 % CI, dof = 2)
    """

    demands: FloatArray
    stderr: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    residual_std: FloatArray
    dof: int
    confidence_level: float
    t_quantile: float
    weights: str
    n_trials: int
    passes: int

    @property
    def half_width_percent(self) -> FloatArray:
        """Half width (±) of each interval in % of its demand."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = 100 * (self.ci_high - self.ci_low) / 2 / np.abs(self.demands)
        return out

    def __str__(self) -> str:
        level = format_number(self.confidence_level * 100)
        flat = self.demands.reshape(self.demands.shape[0], -1)
        low = self.ci_low.reshape(flat.shape)
        high = self.ci_high.reshape(flat.shape)
        parts = []
        for k in range(flat.shape[0]):
            for c in range(flat.shape[1]):
                label = f"D{k + 1}" if flat.shape[1] == 1 else f"D{k + 1},{c + 1}"
                parts.append(
                    f"{label} = {format_number(flat[k, c])} [{format_number(low[k, c])}, "
                    f"{format_number(high[k, c])}]"
                )
        return (
            f"utilization law ({self.weights}): {', '.join(parts)} s ({level} % CI, "
            f"dof = {self.dof})"
        )


def _station_fit(
    x: FloatArray, b: FloatArray, relative: bool
) -> tuple[FloatArray, FloatArray, float, int]:
    """WLS through the origin of b on x (T, C): estimate, covariance / s², s², passes."""
    weights = np.ones(x.shape[0])
    passes = 1
    gram = x.T @ x
    estimate = np.linalg.solve(gram, x.T @ b)
    if relative:
        for passes in range(1, _MAX_PASSES + 1):  # noqa: B007
            fitted = x @ estimate
            if (fitted <= 0).any():
                raise DegenerateDesignError(
                    "weights='relative' needs positive fitted utilizations; a station's "
                    "fitted busy fraction is <= 0 (use weights=None)"
                )
            weights = 1.0 / fitted**2
            gram = (x * weights[:, None]).T @ x
            new = np.linalg.solve(gram, (x * weights[:, None]).T @ b)
            change = np.max(np.abs(new - estimate) / np.maximum(np.abs(estimate), 1e-300))
            estimate = new
            if x.shape[1] == 1 or change <= 1e-12:
                break
    residual = b - x @ estimate
    dof = x.shape[0] - x.shape[1]
    s2 = float(weights @ residual**2) / dof
    inverse: FloatArray = np.asarray(np.linalg.inv(gram), dtype=np.float64)
    out: FloatArray = np.asarray(estimate, dtype=np.float64)
    return out, inverse, s2, passes


def _utilization_inputs(
    throughputs: Any, utilizations: Any, servers: Any
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Checked throughputs (T, C), utilizations (T, K) and server counts (K,)."""
    x = np.asarray(throughputs, dtype=object)
    xt = as_float_array(throughputs, "throughputs", ndim=2 if x.ndim == 2 else 1,
                        nonnegative=True)
    xt = xt[:, None] if xt.ndim == 1 else xt
    u_raw = np.asarray(utilizations, dtype=object)
    ut = as_float_array(utilizations, "utilizations", ndim=2 if u_raw.ndim == 2 else 1)
    ut = ut[:, None] if ut.ndim == 1 else ut
    t_count, c_count = xt.shape
    k_count = ut.shape[1]
    if ut.shape[0] != t_count:
        raise InvalidInputError(
            f"throughputs has {t_count} trials but utilizations has {ut.shape[0]}; give one "
            "row per trial"
        )
    if servers is None:
        counts = np.ones(k_count)
    else:
        counts = as_float_array(servers, "servers")
        if counts.shape != (k_count,) or (counts < 1).any():
            raise InvalidInputError(f"servers must be {k_count} counts >= 1")
    dof = t_count - c_count
    if dof < 1:
        raise NotEnoughDataError(
            f"{t_count} trial(s) cannot estimate {c_count} demand(s) per station; need at "
            "least one more trial than classes"
        )
    if np.linalg.matrix_rank(xt) < c_count:
        raise DegenerateDesignError(
            "the throughputs do not determine the demands (all zero, or classes whose "
            "throughputs are proportional); vary the class mix across trials"
        )
    return xt, ut, counts


def _fit_stations(
    xt: FloatArray, busy: FloatArray, relative: bool
) -> tuple[FloatArray, FloatArray, FloatArray, int]:
    """Demands (K, C), standard errors, residual std (K,) and passes of every station."""
    k_count, c_count = busy.shape[1], xt.shape[1]
    demands = np.empty((k_count, c_count))
    stderr = np.empty((k_count, c_count))
    residual_std = np.empty(k_count)
    passes = 1
    for k in range(k_count):
        estimate, inverse, s2, used = _station_fit(xt, busy[:, k], relative)
        demands[k] = estimate
        stderr[k] = np.sqrt(np.maximum(s2 * np.diag(inverse), 0.0))
        residual_std[k] = np.sqrt(s2)
        passes = max(passes, used)
    return demands, stderr, residual_std, passes


def utilization_law_demands(
    throughputs: Any,
    utilizations: Any,
    *,
    servers: Any = None,
    weights: str | None = None,
    confidence_level: float = 0.95,
) -> UtilizationLawResult:
    """Estimate service demands from throughputs and utilizations by the utilization law.

    Each station's busy servers U_tk · m_k are regressed on the throughputs through the
    origin (U = X D); with response times as well, calibrate a :class:`ClosedNetworkModel`.

    Parameters
    ----------
    throughputs : array_like, shape (T,) or (T, C)
        Measured throughput X_tc (responses per second) of each trial and class.
    utilizations : array_like, shape (T,) or (T, K)
        Measured utilization of each station in each trial (per server, 0..1; noisy
        values slightly outside are accepted).
    servers : array_like, shape (K,), optional
        Server counts m_k (default 1); D_k is the demand per response.
    weights : {None, "relative"}, default None
        None: ordinary least squares (constant error variance). ``"relative"``: weights
        1/Û² (constant coefficient of variation, iterated to a fixed point for several
        classes); with one class D̂_k is then the mean of U_tk m_k / X_t.
    confidence_level : float, default 0.95

    Returns
    -------
    UtilizationLawResult

    Raises
    ------
    InvalidInputError
        Mismatched shapes, non-finite values, negative throughputs, servers < 1.
    NotEnoughDataError
        No more trials than classes (dof = T − C < 1).
    DegenerateDesignError
        The throughput columns are linearly dependent (e.g. all zero), or a fitted
        utilization is <= 0 with ``weights="relative"``.

    Notes
    -----
    Estimator and interval: see the module docstring. Complexity O(T C² K).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import utilization_law_demands
    >>> x = np.array([0.05, 0.10, 0.15, 0.20])
    >>> u = np.outer(x, [2.0, 3.0, 4.0]) * (1 + 0.01 * np.array([[1, -1, 0]] * 4))
    >>> result = utilization_law_demands(x, u, weights="relative")
    >>> np.round(result.demands, 2)
    array([2.02, 2.97, 4.  ])
    """
    level = check_confidence_level(confidence_level)
    check_choice(weights, "weights", (None, "relative"))
    xt, ut, counts = _utilization_inputs(throughputs, utilizations, servers)
    t_count, c_count = xt.shape
    dof = t_count - c_count
    demands, stderr, residual_std, passes = _fit_stations(
        xt, ut * counts[None, :], weights == "relative"
    )
    t = t_quantile(0.5 + level / 2, dof)
    if c_count == 1:
        demands, stderr = demands[:, 0], stderr[:, 0]
    return UtilizationLawResult(
        demands=_readonly(demands),
        stderr=_readonly(stderr),
        ci_low=_readonly(demands - t * stderr),
        ci_high=_readonly(demands + t * stderr),
        residual_std=_readonly(residual_std),
        dof=int(dof),
        confidence_level=float(level),
        t_quantile=float(t),
        weights="ols" if weights is None else "relative",
        n_trials=int(t_count),
        passes=int(passes),
    )
