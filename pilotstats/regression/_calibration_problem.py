"""Calibration problem set-up: the validated model/conditions/measurements, whitening of residuals
by the chosen weights (OLS, fixed, IRLS, arrays, callables, covariance blocks) and the option and
fit records shared by the Gauss–Newton solver (``docs/algorithms/calibration.md``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from pilotstats._validation import (
    as_float_array,
    as_real_array,
    check_choice,
    check_predictions_nonzero,
)
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
)

FloatArray = npt.NDArray[np.float64]
WeightsOption = Literal["irls", "fixed"] | None | npt.ArrayLike | Callable[..., Any]
FiniteDifference = Literal["forward", "central"]
IntegerStrategy = Literal["neighbour", "tutorial_then_neighbour", "tutorial"]


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
                "model must be a callable h(params, u) -> y "
                "(or provide evaluate_all(params, conditions))"
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
    try:  # strict: numeric strings, dates and complex numbers are not numbers
        array = as_real_array(conditions, "conditions", allow_nonfinite=True)
    except InvalidInputError:
        return conditions  # the model's own evaluation judges them
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


# --------------------------------------------------------------------------- weighting


class _Weighting:
    """Resolve the ``weights`` / ``covariance`` options into whiteners."""

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
            check_predictions_nonzero(np.where(zero, y0, 1.0), self.problem.observed)
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
        check_predictions_nonzero(y, self.problem.observed)
        return np.where(self.problem.observed, 1.0 / y**2, 0.0)


def _names(parameter_names: Sequence[str] | None, model: Any, n: int) -> tuple[str, ...]:
    names = parameter_names if parameter_names is not None else getattr(
        model, "parameter_names", None
    )
    if names is None or len(tuple(names)) != n:
        if parameter_names is not None:
            raise InvalidInputError(f"parameter_names must have {n} entries")
        return tuple(f"x[{i}]" for i in range(n))
    return tuple(str(v) for v in names)


