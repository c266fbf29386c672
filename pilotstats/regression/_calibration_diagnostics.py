"""Identifiability diagnostics of a calibration design: :class:`DesignDiagnostics`, the
rank/condition analysis of M = Σ Hᵀ W H and :func:`design_diagnostics`
(``docs/algorithms/calibration.md``, *Model comparison and identifiability*).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_conditions_sequence,
    check_predictions_nonzero,
    check_real,
)
from pilotstats.exceptions import (
    InvalidInputError,
)
from pilotstats.regression._calibration_problem import (
    FloatArray,
    _names,
    _Options,
    _Problem,
    _raw_evaluate,
    _readonly,
    _Whitener,
)
from pilotstats.regression._gauss_newton import (
    _MIN_FD_STEP,
    _jacobian,
    _rank,
    _scaled,
    _whiten_jacobian,
)
from pilotstats.results import Result, format_number


@dataclasses.dataclass(frozen=True, slots=True)
class DesignDiagnostics(Result):
    """Identifiability of the parameters of a design at a parameter point.

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
    """Identifiability of a planned experiment at assumed parameters x.

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
    check_conditions_sequence(conditions)
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
    whiten = _Whitener(problem.observed, weights=_diagnostic_weights(weights, y, problem))
    jac = _whiten_jacobian(whiten, _jacobian(problem, point, y, np.arange(n), options))
    return _diagnose(jac.T @ jac, _names(parameter_names, model, n), limit)


def _diagnostic_weights(weights: Any, y: FloatArray, problem: _Problem) -> FloatArray:
    """Weights of :func:`design_diagnostics`: ones, ``1/y^2`` (``"irls"``) or the array."""
    if weights is None:
        return np.ones_like(y)
    if isinstance(weights, str):
        check_choice(weights, "weights", ("irls",))
        check_predictions_nonzero(y, problem.observed)
        return 1.0 / y**2
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 1 and y.shape[1] == 1:
        w = w[:, None]
    if w.shape != y.shape or not np.isfinite(w).all() or (w < 0).any():
        raise InvalidInputError(
            f"weights must be finite, non-negative and of shape {y.shape}, got {w.shape}"
        )
    return w
