"""Calibration of performance models by (generalised, iteratively reweighted) least squares.

Implements specification ``calibration.md`` §3–§6 and §8: Gauss–Newton ("approximate
Newton–Raphson") on the weighted sum of squares S(x) = Σ_t e_tᵀ W_t e_t with
finite-difference sensitivities, step halving and bounds; weights by OLS, fixed 1/z²,
IRLS 1/y(x̂)² (default), user arrays, callables or full covariance blocks; integer
parameters (server counts, pool sizes) by ±1 neighbour search with refit; linearised
confidence intervals on parameters and predictions; identifiability diagnostics.

References
----------
.. [1] M. Woodside, "Regression techniques for performance parameter estimation",
   tutorial, WOSP/SIPEW 2010, San Jose.
.. [2] M. Woodside, "The relationship of performance models to data", SIPEW 2008,
   LNCS 5119, pp. 9–28, doi:10.1007/978-3-540-69814-2_3.
.. [3] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989, §2.1 (linearised
   inference), §14 (Gauss–Newton with step halving).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import stats

from pilotstats import _config
from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_confidence_level,
    check_int,
    check_real,
)
from pilotstats.exceptions import (
    ConvergenceWarning,
    IdentifiabilityWarning,
    InvalidInputError,
    NotEnoughDataError,
)
from pilotstats.results import Result, format_number

__all__ = [
    "CalibrationResult",
    "DesignDiagnostics",
    "Prediction",
    "calibrate",
    "design_diagnostics",
]

FloatArray = npt.NDArray[np.float64]
WeightsOption = Literal["irls", "fixed"] | None | npt.ArrayLike | Callable[..., Any]
FiniteDifference = Literal["forward", "central"]
IntegerStrategy = Literal["neighbour", "tutorial_then_neighbour", "tutorial"]

_MAX_HALVINGS = 30
_MAX_IRLS_PASSES = 50
_MAX_NEIGHBOUR_MOVES = 100
_NEIGHBOUR_IMPROVEMENT = 1e-12


def _readonly(array: npt.ArrayLike) -> FloatArray:
    out = np.array(array, dtype=np.float64, copy=True)
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------- the problem


class _Problem:
    """Model, conditions and measurements of one calibration (validated once)."""

    def __init__(self, model: Any, conditions: Any, measurements: Any) -> None:
        if not callable(model) and not callable(getattr(model, "evaluate_all", None)):
            raise InvalidInputError(
                "model must be a callable h(x, u) -> y (or provide evaluate_all(x, conditions))"
            )
        self.model = model
        self.vectorised: Callable[[FloatArray, Any], Any] | None = getattr(
            model, "evaluate_all", None
        )
        if isinstance(conditions, (str, bytes)):
            raise InvalidInputError("conditions must be a sequence of trial conditions")
        try:
            self.condition_list = list(conditions)
        except TypeError as exc:
            raise InvalidInputError(
                f"conditions must be a sequence with one entry per trial, got "
                f"{type(conditions).__name__}"
            ) from exc
        self.conditions = conditions
        self.model_conditions = _frozen_conditions(conditions) if self.vectorised else conditions
        z_raw = np.asarray(measurements, dtype=object)
        z = as_float_array(
            measurements, "measurements", ndim=1 if z_raw.ndim <= 1 else 2, allow_nonfinite=True
        )
        if np.isinf(z).any():
            raise InvalidInputError("measurements contain infinite values; use NaN for missing")
        self.scalar_output = z.ndim == 1
        self.z = z[:, None] if z.ndim == 1 else z
        if self.z.shape[0] != len(self.condition_list):
            raise InvalidInputError(
                f"measurements has {self.z.shape[0]} rows but conditions has "
                f"{len(self.condition_list)} trials; give one row of measurements per trial"
            )
        self.observed = np.isfinite(self.z)
        self.n_obs = int(self.observed.sum())
        if self.n_obs == 0:
            raise NotEnoughDataError("measurements contain no observed (non-NaN) value")
        self.evaluations = 0

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.z.shape[0]), int(self.z.shape[1]))

    def evaluate(self, x: FloatArray, conditions: Any = None) -> FloatArray:
        """Return h(x, u_t) for every trial as a (T, m) array; NaN/inf or shape → error."""
        conds = self.model_conditions if conditions is None else conditions
        cond_list = self.condition_list if conditions is None else list(conditions)
        self.evaluations += 1
        xs = np.array(x, dtype=np.float64, copy=True)
        y = _raw_evaluate(self.model, self.vectorised, xs, conds, cond_list)
        m = self.z.shape[1]
        if y.shape != (len(cond_list), m):
            raise InvalidInputError(
                f"model returned {y.shape[1] if y.ndim == 2 else y.shape} measure(s) per "
                f"trial but measurements have {m} column(s); they must match"
            )
        if not np.isfinite(y).all():
            t, j = np.argwhere(~np.isfinite(y))[0]
            raise InvalidInputError(
                f"model returned a non-finite value ({y[t, j]!r}) for trial {int(t)}, "
                f"measure {int(j)} at parameters x = {np.array2string(xs, precision=6)}; "
                "the model must return finite predictions (check bounds and x0)"
            )
        return y


def _frozen_conditions(conditions: Any) -> Any:
    """A read-only float copy of numeric conditions (lets vectorised models cache parsing);
    anything else unchanged."""
    try:
        array = np.array(conditions, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError):
        return conditions
    array.setflags(write=False)
    return array


def _raw_evaluate(
    model: Any,
    vectorised: Callable[[FloatArray, Any], Any] | None,
    x: FloatArray,
    conditions: Any,
    cond_list: list[Any],
) -> FloatArray:
    """Evaluate the model for every trial as (T, m), without checks on the values."""
    if vectorised is not None:
        y: FloatArray = np.asarray(vectorised(x, conditions), dtype=np.float64)
        return y[:, None] if y.ndim == 1 else y
    rows = [np.atleast_1d(np.asarray(model(x.copy(), u), dtype=np.float64)) for u in cond_list]
    lengths = {row.shape for row in rows}
    if len(lengths) != 1 or rows[0].ndim != 1:
        raise InvalidInputError(
            f"model returned outputs of different shapes {sorted(lengths)}; it must "
            "return the same number of measures (a scalar or a 1-D vector) for every trial"
        )
    stacked: FloatArray = np.stack(rows)
    return stacked


class _Whitener:
    """Map residual arrays (T, m) to whitened vectors r with rᵀr = Σ eᵀ W e."""

    def __init__(
        self,
        observed: npt.NDArray[np.bool_],
        weights: FloatArray | None = None,
        chol: FloatArray | None = None,
    ) -> None:
        self.observed = observed
        self.weights = weights
        self.chol = chol  # (T, m, m) upper factors U with W_t = Uᵀ U
        if weights is not None:
            self.root = np.sqrt(np.where(observed, weights, 0.0))

    def __call__(self, e: FloatArray) -> FloatArray:
        if self.chol is not None:
            full: FloatArray = np.einsum("tij,tj->ti", self.chol, e).ravel()
            return full
        out: FloatArray = (self.root * np.where(self.observed, e, 0.0))[self.observed]
        return out

    def weight_diagonal(self) -> FloatArray:
        if self.chol is not None:
            diagonal: FloatArray = np.einsum("tij,tij->tj", self.chol, self.chol)
            return diagonal
        assert self.weights is not None
        return np.where(self.observed, self.weights, 0.0)


@dataclasses.dataclass
class _Options:
    fd_step: float
    fd: str
    xtol: float
    ftol: float
    max_iter: int
    scale: FloatArray
    lower: FloatArray
    upper: FloatArray


@dataclasses.dataclass
class _Fit:
    x: FloatArray
    y: FloatArray
    sse: float
    iterations: int
    status: str
    converged: bool
    history: list[tuple[float, float, float]]
    rank_deficient_steps: int
    passes: int = 1
    whitener: _Whitener | None = None


def _jacobian(
    problem: _Problem,
    x: FloatArray,
    y: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    unit_step: npt.NDArray[np.bool_] | None = None,
) -> FloatArray:
    """Finite-difference sensitivities ∂h/∂x_j, shape (T, m, n_free) (spec §3)."""
    columns = []
    for j in free:
        if unit_step is not None and unit_step[j]:
            delta = 1.0
        else:
            delta = options.fd_step * max(abs(x[j]), options.scale[j])
        if options.fd == "central":
            up = min(x[j] + delta, options.upper[j])
            down = max(x[j] - delta, options.lower[j])
            xp = x.copy()
            xp[j] = up
            xm = x.copy()
            xm[j] = down
            columns.append((problem.evaluate(xp) - problem.evaluate(xm)) / (up - down))
            continue
        step = delta if x[j] + delta <= options.upper[j] else -delta
        xp = x.copy()
        xp[j] = x[j] + step
        columns.append((problem.evaluate(xp) - y) / (xp[j] - x[j]))
    return np.stack(columns, axis=-1)


def _whiten_jacobian(whiten: _Whitener, jac: FloatArray) -> FloatArray:
    return np.stack([whiten(jac[..., i]) for i in range(jac.shape[-1])], axis=-1)


#: Smallest relative finite-difference step: below float64's epsilon, x + h·|x| == x.
_MIN_FD_STEP = float(np.finfo(np.float64).eps)


def _scaled(matrix: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Jacobi scaling D M D with D = diag(M_ii^-1/2) (zero diagonals left unscaled).

    Every linear-algebra step goes through here, so a non-finite M (sensitivities that
    overflow float64) becomes a named error instead of numpy's ``LinAlgError``.
    """
    if not np.isfinite(matrix).all():
        raise InvalidInputError(
            "the sensitivity matrix M = HᵀWH has non-finite entries: model predictions, "
            "conditions or weights overflow float64 (or fd_step is too small to move x); "
            "rescale the conditions/measurements (e.g. change units)"
        )
    diag = np.diag(matrix).copy()
    d = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 1.0)
    return matrix * d[:, None] * d[None, :], d


def _rank(matrix: FloatArray) -> int:
    """Numerical rank of M from the SVD of its Jacobi-scaled form (tolerance σ_max·n·eps)."""
    if not np.any(np.diag(matrix) > 0):
        return 0
    scaled, _ = _scaled(matrix)
    scaled[np.diag(matrix) <= 0, :] = 0.0
    scaled[:, np.diag(matrix) <= 0] = 0.0
    sigma = np.linalg.svd(scaled, compute_uv=False)
    tol = sigma[0] * matrix.shape[0] * np.finfo(np.float64).eps
    return int((sigma > tol).sum())


def _solve(matrix: FloatArray, rhs: FloatArray) -> tuple[FloatArray, bool]:
    """Solve M dx = g on the Jacobi-scaled D M D.

    Cholesky when the scaled matrix is well conditioned; otherwise the minimum-norm step of
    the truncated pseudo-inverse, dropping directions with σ < STEP_RCOND·σ_max, so that an
    (almost) undetermined combination of parameters does not produce a wild step (spec §3:
    "take the minimum-norm least-squares step, record it and warn").
    """
    scaled, d = _scaled(matrix)
    zero = np.diag(matrix) <= 0
    scaled[zero, :] = 0.0
    scaled[:, zero] = 0.0
    sigma = np.linalg.svd(scaled, compute_uv=False)
    if sigma[0] > 0 and sigma[-1] > _config.CALIBRATION_STEP_RCOND * sigma[0]:
        try:
            factor = np.linalg.cholesky(scaled)
            w = np.linalg.solve(factor.T, np.linalg.solve(factor, d * rhs))
            return d * w, False
        except np.linalg.LinAlgError:
            pass
    w = np.linalg.pinv(scaled, rcond=_config.CALIBRATION_STEP_RCOND, hermitian=True) @ (d * rhs)
    return d * w, True


def _gauss_newton(
    problem: _Problem,
    whiten: _Whitener,
    x0: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    rounding: npt.NDArray[np.bool_] | None = None,
) -> _Fit:
    """Gauss–Newton with step halving and bounds for one fixed weighting (spec §3)."""
    x = x0.copy()
    y = problem.evaluate(x)
    r = whiten(problem.z - y)
    sse = float(r @ r)
    history: list[tuple[float, float, float]] = []
    status = "max_iter"
    converged = False
    small = 0
    deficient = 0
    iterations = 0
    for iterations in range(1, options.max_iter + 1):
        jac = _whiten_jacobian(whiten, _jacobian(problem, x, y, free, options, rounding))
        matrix = jac.T @ jac
        gradient = jac.T @ r
        dx, singular = _solve(matrix, gradient)
        deficient += int(singular)
        lam = 1.0
        accepted = False
        for _ in range(_MAX_HALVINGS + 1):
            trial = x.copy()
            trial[free] = np.clip(x[free] + lam * dx, options.lower[free], options.upper[free])
            if rounding is not None:
                trial[rounding] = np.maximum(np.round(trial[rounding]), options.lower[rounding])
            try:
                y_trial = problem.evaluate(trial)
            except InvalidInputError:
                lam *= 0.5
                continue
            r_trial = whiten(problem.z - y_trial)
            sse_trial = float(r_trial @ r_trial)
            if sse_trial <= sse:
                accepted = True
                break
            lam *= 0.5
        if not accepted:
            predicted = float(gradient @ dx)
            if predicted <= 1e-10 * max(sse, np.finfo(np.float64).tiny) or sse == 0.0:
                status, converged = "converged", True
            else:
                status = "no_decrease"
            iterations -= 1
            break
        step = trial - x
        relative = float(
            np.max(np.abs(step) / np.maximum(np.abs(x), options.scale)) if step.size else 0.0
        )
        decrease = sse - sse_trial
        previous = sse
        x, y, r, sse = trial, y_trial, r_trial, sse_trial
        history.append((sse, relative, lam))
        if relative <= options.xtol:
            status, converged = "converged", True
            break
        small = small + 1 if decrease <= options.ftol * previous else 0
        if small >= 2:
            status, converged = "converged", True
            break
    return _Fit(x, y, sse, iterations, status, converged, history, deficient, 1, whiten)


# --------------------------------------------------------------------------- weighting


def _check_predictions_nonzero(y: FloatArray, observed: npt.NDArray[np.bool_]) -> None:
    bad = observed & (y == 0)
    if bad.any():
        t, j = np.argwhere(bad)[0]
        raise InvalidInputError(
            f"IRLS weights 1/y^2 need non-zero predictions; the model predicts 0 for trial "
            f"{int(t)}, measure {int(j)}; use weights=None or an explicit weight array"
        )


class _Weighting:
    """Resolve the ``weights`` / ``covariance`` options into whiteners (spec §4)."""

    def __init__(self, weights: Any, covariance: Any, problem: _Problem) -> None:
        self.problem = problem
        self.chol: FloatArray | None = None
        self.fixed: FloatArray | None = None
        self.callable: Callable[[FloatArray, FloatArray], Any] | None = None
        t_count, m = problem.shape
        if covariance is not None:
            if weights is not None and not (isinstance(weights, str) and weights == "irls"):
                raise InvalidInputError("give either weights or covariance, not both")
            cov = np.asarray(covariance, dtype=np.float64)
            if cov.shape != (t_count, m, m) or not np.isfinite(cov).all():
                raise InvalidInputError(
                    f"covariance must be a finite (T, m, m) = ({t_count}, {m}, {m}) stack of "
                    f"measurement covariance matrices, got shape {cov.shape}"
                )
            if not problem.observed.all():
                raise InvalidInputError("covariance= cannot be combined with NaN measurements")
            try:
                inverse = np.linalg.inv(cov)
                lower = np.linalg.cholesky(0.5 * (inverse + np.swapaxes(inverse, 1, 2)))
            except np.linalg.LinAlgError as exc:
                raise InvalidInputError(
                    "every covariance block must be symmetric positive definite"
                ) from exc
            self.chol = np.swapaxes(lower, 1, 2)
            self.label = "covariance"
            self.kind = "fixed"
            return
        if weights is None:
            self.label, self.kind = "ols", "fixed"
            self.fixed = np.ones((t_count, m))
        elif isinstance(weights, str):
            check_choice(weights, "weights", ("irls", "fixed"))
            self.label = weights
            if weights == "fixed":
                z = problem.z
                zero = problem.observed & (z == 0)
                if zero.any():
                    t, j = np.argwhere(zero)[0]
                    raise InvalidInputError(
                        f"weights='fixed' uses 1/z^2 but measurement [{int(t)}, {int(j)}] is 0; "
                        "use weights='irls' (1/y^2 from predictions) or give explicit weights"
                    )
                self.kind = "fixed"
                self.fixed = np.where(problem.observed, 1.0 / np.where(zero, 1.0, z) ** 2, 0.0)
            else:
                self.kind = "iterative"
        elif callable(weights):
            self.label, self.kind = "callable", "iterative"
            self.callable = weights
        else:
            array = as_float_array(
                weights, "weights", ndim=np.ndim(weights) if np.ndim(weights) in (1, 2) else 1,
                nonnegative=True,
            )
            if array.ndim == 1:
                array = array[:, None] * np.ones((1, m)) if array.shape[0] == t_count else array
            if array.shape != (t_count, m):
                raise InvalidInputError(
                    f"weights array must have shape (T, m) = ({t_count}, {m}) (or (T,)), "
                    f"got {array.shape}"
                )
            self.label, self.kind = "array", "fixed"
            self.fixed = array

    def whitener(self, weights: FloatArray | None = None) -> _Whitener:
        if self.chol is not None:
            return _Whitener(self.problem.observed, chol=self.chol)
        values = self.fixed if weights is None else weights
        assert values is not None
        return _Whitener(self.problem.observed, weights=values)

    def initial(self, x0: FloatArray) -> FloatArray:
        """Weights of the first pass of an iterative scheme."""
        z = self.problem.z
        if self.callable is not None:
            return self.from_predictions(self.problem.evaluate(x0))
        zero = self.problem.observed & (z == 0)
        y0 = self.problem.evaluate(x0) if zero.any() else np.ones_like(z)
        base = np.where(zero, y0, z)
        if zero.any():
            _check_predictions_nonzero(np.where(zero, y0, 1.0), self.problem.observed)
        return np.where(self.problem.observed, 1.0 / np.where(self.problem.observed, base, 1) ** 2,
                        0.0)

    def from_predictions(self, y: FloatArray) -> FloatArray:
        if self.callable is not None:
            w = np.asarray(self.callable(y.copy(), self.problem.z.copy()), dtype=np.float64)
            if w.ndim == 1 and self.problem.shape[1] == 1:
                w = w[:, None]
            if w.shape != self.problem.shape or not np.isfinite(w).all() or (w < 0).any():
                raise InvalidInputError(
                    f"the weights callable must return finite non-negative weights of shape "
                    f"{self.problem.shape}, got shape {w.shape}"
                )
            return np.where(self.problem.observed, w, 0.0)
        _check_predictions_nonzero(y, self.problem.observed)
        return np.where(self.problem.observed, 1.0 / y**2, 0.0)


def _fit_weighted(
    problem: _Problem,
    weighting: _Weighting,
    x0: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    rounding: npt.NDArray[np.bool_] | None = None,
) -> _Fit:
    """Fit with the chosen weighting; IRLS passes until x̂ is a fixed point (spec §4)."""
    if weighting.kind == "fixed":
        return _gauss_newton(problem, weighting.whitener(), x0, free, options, rounding)
    fit = _gauss_newton(
        problem, weighting.whitener(weighting.initial(x0)), x0, free, options, rounding
    )
    total_iterations = fit.iterations
    history = list(fit.history)
    deficient = fit.rank_deficient_steps
    passes = 1
    settled = False
    for passes in range(2, _MAX_IRLS_PASSES + 2):  # noqa: B007
        whiten = weighting.whitener(weighting.from_predictions(fit.y))
        new = _gauss_newton(problem, whiten, fit.x, free, options, rounding)
        change = float(
            np.max(np.abs(new.x - fit.x) / np.maximum(np.abs(fit.x), options.scale))
        )
        total_iterations += new.iterations
        history.extend(new.history)
        deficient += new.rank_deficient_steps
        fit = new
        if change <= 10 * options.xtol:
            settled = True
            break
    final = weighting.whitener(weighting.from_predictions(fit.y))
    r = final(problem.z - fit.y)
    status = fit.status if settled else "irls_max_passes"
    return _Fit(
        fit.x,
        fit.y,
        float(r @ r),
        total_iterations,
        status,
        fit.converged and settled,
        history,
        deficient,
        passes,
        final,
    )


# --------------------------------------------------------------------------- diagnostics


@dataclasses.dataclass(frozen=True, slots=True)
class DesignDiagnostics(Result):
    """Identifiability of the parameters of a design at a parameter point (spec §8).

    Attributes
    ----------
    rank : int
        Numerical rank of M = Σ Hᵀ W H (SVD of the Jacobi-scaled M, tolerance σ_max·n·eps).
    n_parameters : int
        Number of free parameters n.
    condition_number : float
        cond(M) = σ_max/σ_min (inf if singular).
    scaled_condition_number : float
        cond(D M D), D = diag(M_ii^-1/2): independent of parameter units (inf if some
        parameter has no effect).
    weakest_direction : ndarray, shape (n,)
        Unit eigenvector of D M D's smallest eigenvalue (the worst-determined combination of
        scaled parameters).
    poorly_determined : tuple of str
        Names of the parameters that take part in the (near-)null directions.
    parameter_names : tuple of str
    identifiable : bool
        rank == n and scaled condition number <= the limit.
    max_scaled_condition : float

    Examples
    --------
    Returned by :func:`design_diagnostics`; four trials at the same population cannot separate
    three service demands from throughput alone:

    >>> from pilotstats.regression import ClosedNetworkModel, design_diagnostics
    >>> model = ClosedNetworkModel(3, think_time=10.0, measures=("throughput",))
    >>> diagnostics = design_diagnostics(model, [1, 1, 1, 1], [2.0, 3.0, 4.0])
    >>> print(diagnostics)
    design NOT identifiable: rank 1 of 3, cond(M) = inf, scaled cond = inf
    >>> diagnostics.rank
    1
    """

    rank: int
    n_parameters: int
    condition_number: float
    scaled_condition_number: float
    weakest_direction: FloatArray
    poorly_determined: tuple[str, ...]
    parameter_names: tuple[str, ...]
    identifiable: bool
    max_scaled_condition: float

    def message(self) -> str:
        """A sentence explaining which parameters are not determined (empty if all are)."""
        if self.identifiable:
            return ""
        terms = [
            (v, name)
            for v, name in zip(self.weakest_direction, self.parameter_names, strict=True)
            if abs(v) >= 0.05
        ]
        combination = " ".join(
            (f"{'−' if v < 0 else ''}{abs(v):.2f}·{name}" if i == 0
             else f"{'+' if v >= 0 else '−'} {abs(v):.2f}·{name}")
            for i, (v, name) in enumerate(terms)
        )
        names = ", ".join(self.poorly_determined)
        if self.rank < self.n_parameters:
            head = (
                f"the data do not determine the parameters {names}: the sensitivity matrix "
                f"M is rank deficient (rank {self.rank} of {self.n_parameters})"
            )
        else:
            head = (
                f"the parameters {names} are poorly determined: scaled condition number "
                f"{self.scaled_condition_number:.3g} exceeds {self.max_scaled_condition:.3g}"
            )
        return (
            f"{head}; the weakest combination (scaled) is {combination}. Measure more "
            "quantities (e.g. per-station residence times) or spread the conditions "
            "(populations) wider"
        )

    def __str__(self) -> str:
        state = "identifiable" if self.identifiable else "NOT identifiable"
        return (
            f"design {state}: rank {self.rank} of {self.n_parameters}, cond(M) = "
            f"{format_number(self.condition_number)}, scaled cond = "
            f"{format_number(self.scaled_condition_number)}"
        )


def _diagnose(
    matrix: FloatArray, names: Sequence[str], max_scaled_condition: float
) -> DesignDiagnostics:
    n = matrix.shape[0]
    rank = _rank(matrix)
    sigma = np.linalg.svd(matrix, compute_uv=False)
    cond = float(sigma[0] / sigma[-1]) if sigma[-1] > 0 and rank == n else math.inf
    diag = np.diag(matrix)
    scaled, _ = _scaled(matrix)
    eigenvalues, vectors = np.linalg.eigh(scaled)
    if (diag <= 0).any():
        scaled_cond = math.inf
    else:
        scaled_cond = (
            float(eigenvalues[-1] / eigenvalues[0]) if eigenvalues[0] > 0 else math.inf
        )
        if rank < n:
            scaled_cond = math.inf
    weakest = vectors[:, 0]
    weakest = weakest * (1.0 if weakest[np.argmax(np.abs(weakest))] >= 0 else -1.0)
    nullity = max(n - rank, 1)
    null_space = vectors[:, :nullity]
    involvement = np.sqrt((null_space**2).sum(axis=1))
    flagged = (involvement >= 0.1) | (diag <= 0)
    identifiable = rank == n and scaled_cond <= max_scaled_condition
    poorly = tuple(str(names[i]) for i in range(n) if flagged[i]) if not identifiable else ()
    return DesignDiagnostics(
        rank=rank,
        n_parameters=n,
        condition_number=cond,
        scaled_condition_number=float(scaled_cond),
        weakest_direction=_readonly(weakest),
        poorly_determined=poorly,
        parameter_names=tuple(str(v) for v in names),
        identifiable=bool(identifiable),
        max_scaled_condition=float(max_scaled_condition),
    )


# --------------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True, slots=True)
class Prediction(Result):
    """Model predictions with linearised confidence (or prediction) intervals (spec §6).

    Attributes
    ----------
    values : ndarray, shape (T, m)
        ŷ = h(x̂, u) for each condition (row) and measure (column).
    stderr : ndarray, shape (T, m)
        Standard error: √C_jj (mean) or √(C_jj + mse·r_j) (new measurement).
    half_widths : ndarray, shape (T, m)
        t_{(1+c)/2; dof} · stderr.
    covariance : ndarray, shape (T, m, m)
        C = H P Hᵀ per condition (mean only).
    confidence_level : float
    dof : int
    kind : str
        ``"mean"`` (confidence interval of h) or ``"new observation"`` (prediction
        interval).

    Examples
    --------
    Returned by :meth:`CalibrationResult.predict` and
    :meth:`CalibrationResult.prediction_interval`:

    >>> import numpy as np
    >>> from pilotstats.regression import ClosedNetworkModel, calibrate
    >>> model = ClosedNetworkModel(3, think_time=10.0)
    >>> populations = [1, 4, 7, 10, 13, 16, 19]
    >>> z = model.evaluate_all(np.array([2.0, 3.0, 4.0]), populations)
    >>> z = z * (1 + 0.01 * np.sin(np.arange(z.size)).reshape(z.shape))  # 1 % "noise"
    >>> fit = calibrate(model, populations, z, [1.0, 1.0, 1.0])
    >>> prediction = fit.predict([25])  # extrapolate to 25 users
    >>> prediction.values.shape, prediction.kind
    ((1, 4), 'mean')
    >>> bool(np.all(prediction.half_widths > 0))
    True
    """

    values: FloatArray
    stderr: FloatArray
    half_widths: FloatArray
    covariance: FloatArray
    confidence_level: float
    dof: int
    kind: str

    @property
    def low(self) -> FloatArray:
        """Lower interval ends ŷ − half_widths."""
        return self.values - self.half_widths

    @property
    def high(self) -> FloatArray:
        """Upper interval ends ŷ + half_widths."""
        return self.values + self.half_widths

    def combine(self, coefficients: Any) -> tuple[FloatArray, FloatArray]:
        """Value and half-width of a linear combination aᵀy per condition (e.g. R = Σ T_i).

        Parameters
        ----------
        coefficients : array_like, shape (m,)

        Returns
        -------
        values, half_widths : ndarray, shape (T,)
            aᵀŷ and t·√(aᵀ C a) (mean intervals only).
        """
        a = as_float_array(coefficients, "coefficients")
        if a.shape[0] != self.values.shape[1]:
            raise InvalidInputError(
                f"coefficients must have one entry per measure ({self.values.shape[1]})"
            )
        if self.kind != "mean":
            raise InvalidInputError("combine() needs a mean prediction (from predict())")
        t = stats.t.ppf(0.5 + self.confidence_level / 2, self.dof)
        variance = np.einsum("i,tij,j->t", a, self.covariance, a)
        return self.values @ a, t * np.sqrt(np.maximum(variance, 0.0))

    def plot(
        self,
        x: Any,
        output: int = 0,
        *,
        ax: Any = None,
        xlabel: str | None = None,
        ylabel: str | None = None,
        unit: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw one output's predictions over the condition axis with their band.

        Needs matplotlib. The band is the confidence interval of the mean
        (:meth:`CalibrationResult.predict`) or the prediction interval of a new measurement
        (:meth:`CalibrationResult.prediction_interval`), as :attr:`kind` says.

        Parameters
        ----------
        x : array_like, shape (T,)
            Position of each condition on the x axis (e.g. the populations N); the
            prediction does not keep its conditions.
        output : int, default 0
            Column (measure) to draw.
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure). ``plt.show`` is never called.
        xlabel, ylabel : str, optional
            Axis names (default ``"condition"`` and ``"output <j>"``).
        unit : str, optional
            Unit of the output, appended to the y label.
        title : str, optional
            Title (default: the kind of interval and the degrees of freedom).

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        InvalidInputError
            ``len(x)`` is not the number of conditions, or ``output`` is out of range.
        MissingDependencyError
            matplotlib is not installed (``pip install "pilotstats[plot]"``).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pilotstats.regression import calibrate
        >>> fit = calibrate(lambda p, u: p[0] * u, [1, 2, 3, 4], [2.1, 3.9, 6.2, 7.9], [1.0],
        ...                 weights=None)
        >>> ax = fit.predict([1, 5, 10]).plot([1, 5, 10], xlabel="load", unit="s")
        >>> ax.get_ylabel()
        'output 0 (s)'
        """
        from pilotstats.regression._plots import plot_prediction

        return plot_prediction(
            self, x, output, ax=ax, xlabel=xlabel, ylabel=ylabel, unit=unit, title=title
        )

    def __str__(self) -> str:
        return (
            f"{self.kind} prediction at {self.values.shape[0]} condition(s) × "
            f"{self.values.shape[1]} measure(s), {format_number(self.confidence_level * 100)} "
            f"% CI half-widths up to {format_number(float(np.max(self.half_widths)))}"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class CalibrationResult(Result):
    """Result of :func:`calibrate` (spec §3, §6, §8).

    Attributes
    ----------
    params : ndarray, shape (n,)
        Estimates x̂.
    stderr : ndarray, shape (n,)
        √P_ii (NaN if rank deficient, and for integer parameters).
    ci_low, ci_high : ndarray, shape (n,)
        Marginal confidence interval x̂_i ∓ t_{(1+c)/2; dof} se_i (conditional on the
        integer parameters; NaN for integer parameters).
    covariance : ndarray, shape (n, n)
        P = mse · M⁻¹ over the continuous parameters (NaN rows/columns for integers).
    sse : float
        Weighted sum of squares S(x̂) with the final weights.
    mse : float
        S/dof.
    dof : int
        Observed measurement values minus the number of parameters n.
    condition_number, scaled_condition_number : float
        cond(M) and cond(D M D) at x̂ (spec §8).
    rank : int
        Numerical rank of M (continuous parameters).
    iterations : int
        Gauss–Newton iterations (summed over IRLS passes and neighbour refits of the final
        configuration).
    converged : bool
    status : str
        ``"converged"``, ``"max_iter"``, ``"no_decrease"``, ``"irls_max_passes"`` or
        ``"rank_deficient"``.
    confidence_level : float
    t_quantile : float
        t_{(1+c)/2; dof}.
    weighting : str
        ``"ols"``, ``"fixed"``, ``"irls"``, ``"array"``, ``"callable"`` or
        ``"covariance"``.
    weights : ndarray, shape (T, m)
        Final (diagonal) weights W_t.
    predictions, residuals : ndarray, shape (T, m)
        h(x̂, u_t) and z_t − h(x̂, u_t).
    n_observations : int
        Observed (non-NaN) measurement values.
    n_evaluations : int
        Model evaluations (each a call over all trials).
    irls_passes : int
        Weighted Gauss–Newton passes.
    history : ndarray, shape (k, 3)
        Per accepted step: S, max relative step, step factor λ.
    rank_deficient_steps : int
        Steps solved by minimum-norm least squares because M was singular.
    parameter_names : tuple of str
    integer_indices : tuple of int
    integer_profile : tuple
        (integer configuration, S) for every configuration visited by the neighbour search.
    poorly_determined : tuple of str
        Parameters named by the identifiability diagnostics (empty if all are determined).
    diagnostics : DesignDiagnostics

    Examples
    --------
    Returned by :func:`calibrate`; here the service demands of a closed network are recovered
    from slightly perturbed throughput and response-time measurements:

    >>> import numpy as np
    >>> from pilotstats.regression import ClosedNetworkModel, calibrate
    >>> model = ClosedNetworkModel(3, think_time=10.0)
    >>> populations = [1, 4, 7, 10, 13, 16, 19]
    >>> z = model.evaluate_all(np.array([2.0, 3.0, 4.0]), populations)
    >>> z = z * (1 + 0.01 * np.sin(np.arange(z.size)).reshape(z.shape))  # 1 % "noise"
    >>> fit = calibrate(model, populations, z, [1.0, 1.0, 1.0])
    >>> print(fit)  # doctest: +ELLIPSIS
    calibration converged (irls): D1 = 1.9993 [1.9917, 2.0068], D2 = 3.0009 [2.9912, 3.0107], ...
    >>> low, high = fit.confidence_interval()
    >>> bool(np.all((low < [2.0, 3.0, 4.0]) & ([2.0, 3.0, 4.0] < high)))
    True
    """

    params: FloatArray
    stderr: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    covariance: FloatArray
    sse: float
    mse: float
    dof: int
    condition_number: float
    scaled_condition_number: float
    rank: int
    iterations: int
    converged: bool
    status: str
    confidence_level: float
    t_quantile: float
    weighting: str
    weights: FloatArray
    predictions: FloatArray
    residuals: FloatArray
    n_observations: int
    n_evaluations: int
    irls_passes: int
    history: FloatArray
    rank_deficient_steps: int
    parameter_names: tuple[str, ...]
    integer_indices: tuple[int, ...]
    integer_profile: tuple[tuple[tuple[int, ...], float], ...]
    poorly_determined: tuple[str, ...]
    diagnostics: DesignDiagnostics
    _problem: Any = dataclasses.field(repr=False, compare=False)
    _options: Any = dataclasses.field(repr=False, compare=False)

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[FloatArray, FloatArray]:
        """Marginal parameter intervals at another level (None: the stored level)."""
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        t = stats.t.ppf(0.5 + level / 2, self.dof)
        return self.params - t * self.stderr, self.params + t * self.stderr

    def _sensitivities(self, conditions: Any) -> tuple[FloatArray, FloatArray, Any]:
        problem: _Problem = self._problem
        options: _Options = self._options
        free = np.array(
            [i for i in range(self.params.shape[0]) if i not in self.integer_indices],
            dtype=np.int64,
        )
        conds = list(conditions) if not isinstance(conditions, np.ndarray) else conditions
        shadow = _Problem.__new__(_Problem)
        shadow.model = problem.model
        shadow.vectorised = problem.vectorised
        shadow.condition_list = list(conds)
        shadow.conditions = conds
        shadow.model_conditions = _frozen_conditions(conds) if shadow.vectorised else conds
        shadow.z = np.zeros((len(shadow.condition_list), problem.z.shape[1]))
        shadow.evaluations = 0
        x = np.array(self.params)
        y = shadow.evaluate(x)
        jac = _jacobian(shadow, x, y, free, dataclasses.replace(options, fd="central"))
        return y, jac, free

    def predict(self, conditions: Any) -> Prediction:
        """Predictions at new conditions with confidence intervals for the mean (spec §6).

        Parameters
        ----------
        conditions : sequence
            Trial conditions in the same format as for :func:`calibrate`.

        Returns
        -------
        Prediction
            ŷ = h(x̂, u), C = H P Hᵀ, half-widths t_{(1+c)/2; dof} √C_jj.
        """
        y, jac, free = self._sensitivities(conditions)
        p = np.asarray(self.covariance)[np.ix_(free, free)]
        cov = np.einsum("tia,ab,tjb->tij", jac, p, jac)
        se = np.sqrt(np.maximum(np.einsum("tii->ti", cov), 0.0))
        return Prediction(
            values=_readonly(y),
            stderr=_readonly(se),
            half_widths=_readonly(self.t_quantile * se),
            covariance=_readonly(cov),
            confidence_level=self.confidence_level,
            dof=self.dof,
            kind="mean",
        )

    def prediction_interval(self, conditions: Any, *, variance_shape: Any = None) -> Prediction:
        """Intervals for a new measurement: ŷ ± t √(C_jj + mse·r_j) (spec §6).

        Parameters
        ----------
        conditions : sequence
            New trial conditions.
        variance_shape : array_like, shape (T, m), optional
            r_j = 1/w_j at the new conditions. Default: 1 for OLS, ŷ² for ``"irls"`` and
            ``"fixed"``; required for array, callable or covariance weights.

        Returns
        -------
        Prediction
        """
        mean = self.predict(conditions)
        if variance_shape is not None:
            shape = np.asarray(variance_shape, dtype=np.float64)
            if shape.shape != mean.values.shape or (shape < 0).any():
                raise InvalidInputError(
                    f"variance_shape must be non-negative with shape {mean.values.shape}"
                )
        elif self.weighting == "ols":
            shape = np.ones_like(mean.values)
        elif self.weighting in ("irls", "fixed"):
            shape = mean.values**2
        else:
            raise InvalidInputError(
                f"prediction_interval needs variance_shape= (1/weight at the new conditions) "
                f"for weighting {self.weighting!r}"
            )
        se = np.sqrt(mean.stderr**2 + self.mse * shape)
        return Prediction(
            values=mean.values,
            stderr=_readonly(se),
            half_widths=_readonly(self.t_quantile * se),
            covariance=mean.covariance,
            confidence_level=self.confidence_level,
            dof=self.dof,
            kind="new observation",
        )

    def plot(
        self,
        output: int = 0,
        *,
        conditions: Any = None,
        x: Any = None,
        condition_index: int | None = None,
        ax: Any = None,
        prediction_band: bool = True,
        xlabel: str | None = None,
        ylabel: str | None = None,
        unit: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw measurements of one output against the model with CI and PI bands.

        Needs matplotlib. Black dots are the measured values z_t of ``output``; the line is
        the calibrated model h(x̂, u) over the condition axis inside the confidence band of
        the mean (:meth:`predict`) and, for OLS, ``"irls"`` and ``"fixed"`` weights, the
        wider prediction band of a new measurement (:meth:`prediction_interval`).

        Parameters
        ----------
        output : int, default 0
            Column (measure) to draw.
        conditions : sequence, optional
            Conditions at which to draw the model (e.g. ``range(1, 31)`` to extrapolate).
            Default: every integer between the smallest and largest measured condition
            when the conditions are integer scalars (such as populations N), else the
            measured conditions.
        x : array_like, optional
            Positions of ``conditions`` on the x axis (default: the conditions themselves,
            or their entry ``condition_index``).
        condition_index : int, optional
            For conditions given as rows (e.g. ``[N, Z]``): which entry is the x axis.
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure). ``plt.show`` is never called.
        prediction_band : bool, default True
            Also draw the prediction band (skipped for weightings whose new-measurement
            variance is unknown: arrays, callables, covariances).
        xlabel, ylabel : str, optional
            Axis names (default ``"condition"`` and ``"output <j>"``).
        unit : str, optional
            Unit of the output, appended to the y label.
        title : str, optional
            Title (default: parameter names, weighting and dof).

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        InvalidInputError
            ``output`` out of range, conditions that are not numbers (without
            ``condition_index`` or ``x``), or ``x`` of another length than ``conditions``.
        MissingDependencyError
            matplotlib is not installed (``pip install "pilotstats[plot]"``).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pilotstats.regression import calibrate
        >>> fit = calibrate(lambda p, u: p[0] * u, [1, 2, 3, 4], [2.1, 3.9, 6.2, 7.9], [1.0],
        ...                 weights=None)
        >>> ax = fit.plot(xlabel="load", ylabel="response time", unit="s")
        >>> ax.get_ylabel()
        'response time (s)'
        """
        from pilotstats.regression._plots import plot_calibration

        return plot_calibration(
            self,
            output,
            conditions=conditions,
            x=x,
            condition_index=condition_index,
            ax=ax,
            prediction_band=prediction_band,
            xlabel=xlabel,
            ylabel=ylabel,
            unit=unit,
            title=title,
        )

    def summary(self) -> str:
        """A multi-line table of estimates, standard errors and intervals."""
        level = format_number(self.confidence_level * 100)
        lines = [
            f"calibration ({self.weighting}): status {self.status}, {self.iterations} "
            f"iterations, {self.irls_passes} pass(es), S = {format_number(self.sse, 6)}, "
            f"mse = {format_number(self.mse, 6)}, dof = {self.dof}",
            f"{'parameter':>12} {'estimate':>12} {'std err':>10}   {level} % CI",
        ]
        for i, name in enumerate(self.parameter_names):
            if i in self.integer_indices:
                lines.append(f"{name:>12} {self.params[i]:>12.6g} {'(integer)':>10}")
                continue
            lines.append(
                f"{name:>12} {self.params[i]:>12.6g} {self.stderr[i]:>10.3g}   "
                f"[{self.ci_low[i]:.6g}, {self.ci_high[i]:.6g}]"
            )
        lines.append(
            f"cond(M) = {format_number(self.condition_number)}, scaled cond = "
            f"{format_number(self.scaled_condition_number)}, rank {self.rank}"
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        level = format_number(self.confidence_level * 100)
        parts = ", ".join(
            f"{name} = {format_number(self.params[i], 5)}"
            + (
                ""
                if i in self.integer_indices or not math.isfinite(self.stderr[i])
                else f" [{format_number(self.ci_low[i], 5)}, {format_number(self.ci_high[i], 5)}]"
            )
            for i, name in enumerate(self.parameter_names)
        )
        return (
            f"calibration {self.status} ({self.weighting}): {parts} ({level} % CI, "
            f"dof = {self.dof}, S = {format_number(self.sse, 4)})"
        )


# --------------------------------------------------------------------------- calibrate


def _bounds(
    bounds: Any, model: Any, n: int, integer: npt.NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray]:
    if bounds is None:
        lower = np.asarray(getattr(model, "lower_bounds", np.full(n, -np.inf)), dtype=float)
        upper = np.asarray(getattr(model, "upper_bounds", np.full(n, np.inf)), dtype=float)
        if lower.shape != (n,) or upper.shape != (n,):
            lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
        lower = lower.copy()
        lower[integer & np.isneginf(lower)] = 1.0
        return lower, upper.copy()
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise InvalidInputError("bounds must be a (lower, upper) pair")
    out = []
    for side, default in zip(bounds, (-np.inf, np.inf), strict=True):
        if side is None:
            out.append(np.full(n, default))
        else:
            array = np.broadcast_to(np.asarray(side, dtype=np.float64), (n,)).copy()
            array[np.isnan(array)] = default
            out.append(array)
    if (out[0] > out[1]).any():
        raise InvalidInputError("bounds: every lower bound must be <= its upper bound")
    return out[0], out[1]


def calibrate(
    model: Any,
    conditions: Any,
    measurements: Any,
    x0: Any,
    *,
    weights: WeightsOption = "irls",
    integer: Sequence[int] | None = None,
    bounds: Any = None,
    confidence_level: float = 0.95,
    covariance: Any = None,
    fd_step: float | None = None,
    fd: FiniteDifference = "forward",
    xtol: float | None = None,
    ftol: float | None = None,
    max_iter: int = 100,
    integer_strategy: IntegerStrategy = "neighbour",
    max_scaled_condition: float | None = None,
    parameter_names: Sequence[str] | None = None,
) -> CalibrationResult:
    """Fit model parameters to measurements by Gauss–Newton weighted least squares.

    Parameters
    ----------
    model : callable
        h(x, u) -> y: parameters (n,) and one trial's conditions in, the predicted
        measurement (scalar or (m,) vector) out. Objects that also provide
        ``evaluate_all(x, conditions) -> (T, m)`` are evaluated for all trials at once
        (e.g. :class:`~pilotstats.regression.ClosedNetworkModel`); they may declare
        ``lower_bounds``, ``upper_bounds`` and ``parameter_names``.
    conditions : sequence, length T
        Controlled inputs u_t of each trial (e.g. population N, or rows [N, Z]).
    measurements : array_like, shape (T,) or (T, m)
        Measured z_t; NaN marks a missing value (weight 0, not counted in dof).
    x0 : array_like, shape (n,)
        Starting point; also sets the finite-difference scale ``s_j = |x0_j|`` (1 if 0).
    weights : None, "fixed", "irls", array_like or callable, default "irls"
        None: OLS (W = I). ``"fixed"``: W = diag(1/z²). ``"irls"``: W = diag(1/y(x̂)²),
        re-weighted until x̂ is a fixed point (constant coefficient of variation).
        An array (T, m) or (T,): fixed weights. A callable ``w(y, z) -> (T, m)`` of the
        current predictions and the measurements, iterated like IRLS.
    integer : sequence of int, optional
        Indices of integer parameters (server counts, pool sizes).
    bounds : (lower, upper), optional
        Scalars or (n,) arrays, None for no bound. Default: the model's declared bounds
        (demands >= 0, counts >= 1), else unbounded (integers >= 1).
    confidence_level : float, default 0.95
    covariance : array_like, shape (T, m, m), optional
        Measurement covariance blocks R_t for full GLS (W_t = R_t⁻¹); only their shape
        matters. Cannot be combined with ``weights`` other than the default.
    fd_step : float, default 1e-6
        Relative finite-difference step ρ: ``δ_j = ρ·max(|x_j|, s_j)``.
    fd : {"forward", "central"}, default "forward"
    xtol : float, default 1e-7
        Stop when ``max_j |λ dx_j| / max(|x_j|, s_j) <= xtol``.
    ftol : float, default 1e-12
        Or when two consecutive accepted steps each lower S by at most ftol·S.
    max_iter : int, default 100
        Gauss–Newton iterations per weighted pass.
    integer_strategy : {"neighbour", "tutorial_then_neighbour", "tutorial"}
        Integer parameters: ±1 neighbour search with refit (default), optionally after the
        tutorial's rounding phase, or the tutorial's rule alone (for comparison).
    max_scaled_condition : float, default 1e6
        Warn when the scaled condition number of M exceeds it.
    parameter_names : sequence of str, optional
        Names for reports and warnings (default: the model's, else ``x[i]``).

    Returns
    -------
    CalibrationResult

    Raises
    ------
    InvalidInputError
        Mismatched shapes, a model returning NaN/inf or the wrong number of measures,
        zero measurements with ``weights="fixed"``, zero predictions with IRLS, x0 outside
        bounds or non-integral integer starts.
    NotEnoughDataError
        No more observed values than parameters (dof < 1).

    Warns
    -----
    IdentifiabilityWarning
        M is rank deficient or badly conditioned; the message names the parameters that
        are not determined. Standard errors and intervals are NaN when rank deficient.
    ConvergenceWarning
        ``max_iter`` reached, no step lowers S, or IRLS did not settle.

    See Also
    --------
    f_test : compare nested calibrated models.
    design_diagnostics : identifiability of a planned experiment.

    Notes
    -----
    Spec §3 ([1]_, [2]_): with H_t = ∂h/∂x at x (forward differences), M = Σ H_tᵀ W_t H_t,
    g = Σ H_tᵀ W_t e_t and dx = M⁻¹ g (solved by Cholesky of the Jacobi-scaled M; the
    minimum-norm least-squares step if M is singular). Try x⁺ = clip(x + λ dx) with λ = 1
    and halve λ while S(x⁺) > S(x), at most 30 times. Inference (§6): dof = observed values
    − n, mse = S/dof, P = mse M⁻¹ at x̂ with the final weights (M from central differences
    at the same step, so its error is O(ρ²)), se_i = √P_ii, intervals
    x̂_i ± t_{(1+c)/2; dof} se_i (linearised, [3]_). IRLS (§4) is the fixed point
    x̂ = argmin Σ e(x)ᵀ W(x̂) e(x), not the joint minimiser of Σ (e/y(x))².

    References
    ----------
    .. [1] M. Woodside, "Regression techniques for performance parameter estimation",
       WOSP/SIPEW 2010 tutorial.
    .. [2] M. Woodside, SIPEW 2008, LNCS 5119, doi:10.1007/978-3-540-69814-2_3.
    .. [3] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import ClosedNetworkModel, calibrate, mva
    >>> model = ClosedNetworkModel(3, think_time=10.0)
    >>> populations = [1, 4, 7, 10, 13, 16, 19]
    >>> z = model.evaluate_all(np.array([2.0, 3.0, 4.0]), populations)
    >>> z = z * (1 + 0.01 * np.sin(np.arange(z.size)).reshape(z.shape))
    >>> fit = calibrate(model, populations, z, [1.0, 1.0, 1.0])
    >>> np.round(fit.params, 1)
    array([2., 3., 4.])
    """
    problem = _Problem(model, conditions, measurements)
    x_start = as_float_array(x0, "x0")
    n = x_start.shape[0]
    level = check_confidence_level(confidence_level)
    options = _Options(
        fd_step=check_real(
            _config.CALIBRATION_FD_STEP if fd_step is None else fd_step, "fd_step",
            low=_MIN_FD_STEP, high=0.1,
        ),
        fd=check_choice(fd, "fd", ("forward", "central")),
        xtol=check_real(
            _config.CALIBRATION_XTOL if xtol is None else xtol, "xtol", low=0.0,
            low_inclusive=False,
        ),
        ftol=check_real(_config.CALIBRATION_FTOL if ftol is None else ftol, "ftol", low=0.0),
        max_iter=check_int(max_iter, "max_iter", low=1),
        scale=np.where(x_start != 0, np.abs(x_start), 1.0),
        lower=np.zeros(n),
        upper=np.zeros(n),
    )
    check_choice(integer_strategy, "integer_strategy",
                 ("neighbour", "tutorial_then_neighbour", "tutorial"))
    limit = check_real(
        _config.MAX_SCALED_CONDITION if max_scaled_condition is None else max_scaled_condition,
        "max_scaled_condition", low=1.0,
    )
    integer_mask = np.zeros(n, dtype=bool)
    for index in integer or ():
        i = check_int(index, "integer index", low=-n, high=n - 1)
        integer_mask[i] = True
    integer_idx = tuple(int(i) for i in np.flatnonzero(integer_mask))
    for i in integer_idx:
        if not float(x_start[i]).is_integer():
            raise InvalidInputError(
                f"x0[{i}] = {x_start[i]!r} is an integer parameter; give a whole-number start"
            )
    options.lower, options.upper = _bounds(bounds, model, n, integer_mask)
    outside = (x_start < options.lower) | (x_start > options.upper)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InvalidInputError(
            f"x0[{i}] = {x_start[i]!r} lies outside its bounds "
            f"[{options.lower[i]:g}, {options.upper[i]:g}]"
        )
    names = _names(parameter_names, model, n)
    dof = problem.n_obs - n
    if dof < 1:
        raise NotEnoughDataError(
            f"{problem.n_obs} observed measurement value(s) cannot calibrate {n} parameters; "
            "need more values than parameters (dof >= 1): add trials or measures"
        )
    weighting = _Weighting(weights, covariance, problem)
    free = np.flatnonzero(~integer_mask).astype(np.int64)
    if free.size == 0:
        raise InvalidInputError("at least one parameter must be continuous (not integer)")

    profile: dict[tuple[int, ...], float] = {}
    if integer_idx:
        x_begin = x_start.copy()
        if integer_strategy in ("tutorial", "tutorial_then_neighbour"):
            all_free = np.arange(n, dtype=np.int64)
            tutorial = _fit_weighted(problem, weighting, x_begin, all_free, options, integer_mask)
            x_begin = tutorial.x
        if integer_strategy == "tutorial":
            fit = _fit_weighted(problem, weighting, x_begin, free, options)
            profile[_config_of(fit.x, integer_idx)] = fit.sse
        else:
            fit = _neighbour_search(
                problem, weighting, x_begin, free, options, integer_idx, profile
            )
    else:
        fit = _fit_weighted(problem, weighting, x_start, free, options)
    return _inference(
        problem, weighting, fit, free, options, level, dof, names, integer_idx, profile, limit
    )


def _names(parameter_names: Sequence[str] | None, model: Any, n: int) -> tuple[str, ...]:
    names = parameter_names if parameter_names is not None else getattr(
        model, "parameter_names", None
    )
    if names is None or len(tuple(names)) != n:
        if parameter_names is not None:
            raise InvalidInputError(f"parameter_names must have {n} entries")
        return tuple(f"x[{i}]" for i in range(n))
    return tuple(str(v) for v in names)


def _config_of(x: FloatArray, integer_idx: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(round(float(x[i])) for i in integer_idx)


def _neighbour_search(
    problem: _Problem,
    weighting: _Weighting,
    x_begin: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    integer_idx: tuple[int, ...],
    profile: dict[tuple[int, ...], float],
) -> _Fit:
    """±1 neighbour search over the integer parameters with continuous refits (spec §5)."""
    current = _fit_weighted(problem, weighting, x_begin, free, options)
    profile[_config_of(current.x, integer_idx)] = current.sse
    for _ in range(_MAX_NEIGHBOUR_MOVES):
        best: _Fit | None = None
        for i in integer_idx:
            for delta in (-1.0, 1.0):
                candidate = current.x.copy()
                candidate[i] += delta
                if not options.lower[i] <= candidate[i] <= options.upper[i]:
                    continue
                key = _config_of(candidate, integer_idx)
                if key in profile and profile[key] >= current.sse:
                    continue
                try:
                    trial = _fit_weighted(problem, weighting, candidate, free, options)
                except InvalidInputError:
                    profile[key] = math.inf
                    continue
                profile[key] = trial.sse
                bar = (1 - _NEIGHBOUR_IMPROVEMENT) * (best.sse if best else current.sse)
                if trial.sse < bar:
                    best = trial
        if best is None:
            break
        current = best
    return current


def _inference(
    problem: _Problem,
    weighting: _Weighting,
    fit: _Fit,
    free: npt.NDArray[np.int64],
    options: _Options,
    level: float,
    dof: int,
    names: tuple[str, ...],
    integer_idx: tuple[int, ...],
    profile: dict[tuple[int, ...], float],
    limit: float,
) -> CalibrationResult:
    n = fit.x.shape[0]
    whiten = fit.whitener if fit.whitener is not None else weighting.whitener()
    r = whiten(problem.z - fit.y)
    sse = float(r @ r)
    mse = sse / dof
    # Inference sensitivities use central differences at the same step: their error is
    # O(ρ²) instead of O(ρ), so standard errors are accurate to ~1e-10 rather than ~1e-6.
    central = dataclasses.replace(options, fd="central")
    jac = _whiten_jacobian(whiten, _jacobian(problem, fit.x, fit.y, free, central))
    matrix = jac.T @ jac
    diagnostics = _diagnose(matrix, [names[i] for i in free], limit)
    covariance = np.full((n, n), np.nan)
    status, converged = fit.status, fit.converged
    if diagnostics.rank == free.size:
        scaled, d = _scaled(matrix)
        inverse = np.linalg.pinv(scaled, hermitian=True) * d[:, None] * d[None, :]
        covariance[np.ix_(free, free)] = mse * inverse
    else:
        status = "rank_deficient"
    stderr = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    stderr[np.isnan(np.diag(covariance))] = np.nan
    t = float(stats.t.ppf(0.5 + level / 2, dof))
    if not diagnostics.identifiable:
        warnings.warn(diagnostics.message(), IdentifiabilityWarning, stacklevel=3)
    if not converged:
        reason = {
            "max_iter": "the iteration limit max_iter was reached",
            "no_decrease": "no step along the Gauss–Newton direction lowered S",
            "irls_max_passes": f"IRLS weights did not settle in {_MAX_IRLS_PASSES} passes",
        }.get(fit.status, fit.status)
        warnings.warn(
            f"calibration did not converge: {reason} (S = {fit.sse:.6g}); try another x0, "
            "a larger max_iter or check that the model is smooth in its parameters",
            ConvergenceWarning,
            stacklevel=3,
        )
    return CalibrationResult(
        params=_readonly(fit.x),
        stderr=_readonly(stderr),
        ci_low=_readonly(fit.x - t * stderr),
        ci_high=_readonly(fit.x + t * stderr),
        covariance=_readonly(covariance),
        sse=sse,
        mse=float(mse),
        dof=int(dof),
        condition_number=float(diagnostics.condition_number),
        scaled_condition_number=float(diagnostics.scaled_condition_number),
        rank=int(diagnostics.rank),
        iterations=int(fit.iterations),
        converged=bool(converged),
        status=status,
        confidence_level=float(level),
        t_quantile=t,
        weighting=weighting.label,
        weights=_readonly(whiten.weight_diagonal()),
        predictions=_readonly(fit.y),
        residuals=_readonly(problem.z - fit.y),
        n_observations=int(problem.n_obs),
        n_evaluations=int(problem.evaluations),
        irls_passes=int(fit.passes),
        history=_readonly(np.array(fit.history, dtype=np.float64).reshape(-1, 3)),
        rank_deficient_steps=int(fit.rank_deficient_steps),
        parameter_names=names,
        integer_indices=integer_idx,
        integer_profile=tuple(sorted(profile.items())),
        poorly_determined=diagnostics.poorly_determined,
        diagnostics=diagnostics,
        _problem=problem,
        _options=options,
    )


def design_diagnostics(
    model: Any,
    conditions: Any,
    x: Any,
    *,
    weights: Any = None,
    fd_step: float | None = None,
    max_scaled_condition: float | None = None,
    parameter_names: Sequence[str] | None = None,
) -> DesignDiagnostics:
    """Identifiability of a planned experiment at assumed parameters x (spec §8).

    Parameters
    ----------
    model : callable
        As for :func:`calibrate`.
    conditions : sequence
        Planned trial conditions.
    x : array_like, shape (n,)
        Assumed parameter values.
    weights : None, "irls" or array_like, default None
        None: W = I; ``"irls"``: 1/y(x)² at the assumed x; or explicit (T, m) weights.
    fd_step : float, default 1e-6
    max_scaled_condition : float, default 1e6
    parameter_names : sequence of str, optional

    Returns
    -------
    DesignDiagnostics
        Rank, condition numbers and the weakest parameter combination of M = Σ Hᵀ W H.

    Notes
    -----
    Complexity: p + 1 model evaluations over the T trials (forward differences) plus
    O(T·m·p² + p³) linear algebra for p parameters and m measures.

    Examples
    --------
    >>> from pilotstats.regression import ClosedNetworkModel, design_diagnostics
    >>> model = ClosedNetworkModel(3, think_time=10.0, measures=("throughput",))
    >>> design_diagnostics(model, [1, 1, 1, 1], [2.0, 3.0, 4.0]).rank
    1
    """
    point = as_float_array(x, "x")
    n = point.shape[0]
    step = check_real(_config.CALIBRATION_FD_STEP if fd_step is None else fd_step, "fd_step",
                      low=_MIN_FD_STEP, high=0.1)
    limit = check_real(
        _config.MAX_SCALED_CONDITION if max_scaled_condition is None else max_scaled_condition,
        "max_scaled_condition", low=1.0, allow_inf=True,
    )
    if isinstance(conditions, (str, bytes, Mapping, set, frozenset)) or not hasattr(
        conditions, "__len__"
    ):
        raise InvalidInputError(
            f"conditions must be a sequence with one entry per trial, got "
            f"{type(conditions).__name__}"
        )
    cond_list = list(conditions)
    y_probe = _raw_evaluate(model, getattr(model, "evaluate_all", None), point, conditions,
                            cond_list)
    problem = _Problem(model, conditions, np.ones_like(y_probe))
    y = problem.evaluate(point)
    options = _Options(
        fd_step=step,
        fd="forward",
        xtol=1.0,
        ftol=0.0,
        max_iter=1,
        scale=np.where(point != 0, np.abs(point), 1.0),
        lower=np.full(n, -np.inf),
        upper=np.full(n, np.inf),
    )
    if weights is None:
        w = np.ones_like(y)
    elif isinstance(weights, str):
        check_choice(weights, "weights", ("irls",))
        _check_predictions_nonzero(y, problem.observed)
        w = 1.0 / y**2
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim == 1 and y.shape[1] == 1:
            w = w[:, None]
        if w.shape != y.shape or not np.isfinite(w).all() or (w < 0).any():
            raise InvalidInputError(
                f"weights must be finite, non-negative and of shape {y.shape}, got {w.shape}"
            )
    whiten = _Whitener(problem.observed, weights=w)
    jac = _whiten_jacobian(whiten, _jacobian(problem, point, y, np.arange(n), options))
    return _diagnose(jac.T @ jac, _names(parameter_names, model, n), limit)
