"""Calibration of performance models by (generalised, iteratively reweighted) least squares.

Documentation: ``docs/algorithms/calibration.md``. Gauss–Newton ("approximate
Newton–Raphson") on the weighted sum of squares S(x) = Σ_t e_tᵀ W_t e_t with
finite-difference sensitivities, step halving and bounds; weights by OLS, fixed 1/z²,
IRLS 1/y(x̂)² (default), user arrays, callables or full covariance blocks; integer
parameters (server counts, pool sizes) by ±1 neighbour search with refit; linearised
confidence intervals on parameters and predictions; identifiability diagnostics.

This module holds :func:`calibrate` and the final inference step; the machinery lives in
private modules and is re-exported here: ``_calibration_problem`` (problem, weights,
whitening), ``_gauss_newton`` (the solver and the integer neighbour search),
``_calibration_diagnostics`` (:class:`DesignDiagnostics`, :func:`design_diagnostics`),
``_prediction`` (:class:`Prediction`), ``_calibration_results`` (:class:`CalibrationResult`),
``_label_switching`` and ``_integer_intervals``.

References
----------
.. [1] M. Woodside, "Regression techniques for performance parameter estimation",
   tutorial, WOSP/SIPEW 2010, San Jose.
.. [2] M. Woodside, "The relationship of performance models to data", SIPEW 2008,
   LNCS 5119, pp. 9–28, doi:10.1007/978-3-540-69814-2_3.
.. [3] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989, §2.1 (linearised
   inference), §14 (Gauss–Newton with step halving).

:func:`calibrate`, notes:

The model is a callable h(x, u) -> y; objects that also provide
``evaluate_all(params, conditions) -> (T, m)`` are evaluated for all trials at once (e.g.
:class:`~pilotstats.regression.ClosedNetworkModel`); they may declare ``lower_bounds``,
``upper_bounds`` and ``parameter_names``. Default bounds are the model's declared ones
(demands >= 0, counts >= 1), else none (integers >= 1). ``weights="irls"`` assumes a
constant coefficient of variation; a weight callable is iterated like IRLS; ``covariance``
cannot be combined with ``weights`` other than the default, and only its shape matters.
Fixed parameters (Woodside's tutorial, slide 47: "fix one of two interchangeable
parameters") are reported with their value, no standard error and no interval, and do not
count in dof. :class:`InvalidInputError` covers mismatched shapes, a model returning
NaN/inf or the wrong number of measures, zero measurements with ``weights="fixed"``, zero
predictions with IRLS, x0 (or a fixed value) outside bounds, non-integral integer starts,
an unknown ``fixed`` name, or every parameter fixed. :class:`IdentifiabilityWarning`: M is
rank deficient or badly conditioned (standard errors and intervals are NaN when rank
deficient); :class:`LabelSwitchingWarning`: permuting some fitted parameters leaves S
unchanged (:attr:`CalibrationResult.interchangeable` names them);
:class:`ConvergenceWarning`: ``max_iter`` reached, no step lowers S, or IRLS did not
settle. See also :func:`f_test` and :func:`design_diagnostics`.

Gauss–Newton ([1]_, [2]_): with H_t = ∂h/∂x at x (forward differences), M = Σ H_tᵀ W_t H_t,
g = Σ H_tᵀ W_t e_t and dx = M⁻¹ g (solved by Cholesky of the Jacobi-scaled M; the
minimum-norm least-squares step if M is singular). Try x⁺ = clip(x + λ dx) with λ = 1
and halve λ while S(x⁺) > S(x), at most 30 times. Inference: dof = observed values
− n, mse = S/dof, P = mse M⁻¹ at x̂ with the final weights (M from central differences
at the same step, so its error is O(ρ²)), se_i = √P_ii, intervals
x̂_i ± t_{(1+c)/2; dof} se_i (linearised, [3]_). IRLS is the fixed point
x̂ = argmin Σ e(x)ᵀ W(x̂) e(x), not the joint minimiser of Σ (e/y(x))².
Integer parameters get the interval where the profile of S (continuous parameters
refitted, weights frozen at x̂) crosses S(x̂)(1 + F_{1, dof; c}/dof), on each side by a
parabola with its vertex at m̂ through the profile at m̂ ± 1
(``docs/algorithms/calibration.md``).

:func:`calibrate`, references:

.. [1] M. Woodside, "Regression techniques for performance parameter estimation",
   WOSP/SIPEW 2010 tutorial.
.. [2] M. Woodside, SIPEW 2008, LNCS 5119, doi:10.1007/978-3-540-69814-2_3.
.. [3] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats import _config
from pilotstats._stats import t_quantile
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
    LabelSwitchingWarning,
    NotEnoughDataError,
)
from pilotstats.regression._calibration_diagnostics import (
    DesignDiagnostics,
    _diagnose,
    design_diagnostics,
)
from pilotstats.regression._calibration_problem import (
    FiniteDifference,
    FloatArray,
    IntegerStrategy,
    WeightsOption,
    _Fit,
    _names,
    _Options,
    _Problem,
    _readonly,
    _Weighting,
    _Whitener,
)
from pilotstats.regression._calibration_results import CalibrationResult, Prediction
from pilotstats.regression._gauss_newton import (
    _MAX_IRLS_PASSES,
    _MIN_FD_STEP,
    _config_of,
    _fit_weighted,
    _jacobian,
    _neighbour_search,
    _scaled,
    _whiten_jacobian,
)
from pilotstats.regression._integer_intervals import _integer_interval
from pilotstats.regression._label_switching import _interchangeable
from pilotstats.regression._label_switching import _message as _switching_message

__all__ = [
    "CalibrationResult",
    "DesignDiagnostics",
    "Prediction",
    "SolverOptions",
    "calibrate",
    "design_diagnostics",
]


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


def _fixed(
    fixed: Any, names: tuple[str, ...], x_start: FloatArray
) -> npt.NDArray[np.bool_]:
    """Mask of held parameters; their values (from ``fixed`` or x0) are written to x_start."""
    n = x_start.shape[0]
    mask = np.zeros(n, dtype=bool)
    if fixed is None:
        return mask
    if isinstance(fixed, Mapping):
        for key, value in fixed.items():
            if isinstance(key, str):
                if key not in names:
                    raise InvalidInputError(
                        f"fixed: unknown parameter name {key!r}; the parameters are "
                        f"{', '.join(names)}"
                    )
                i = names.index(key)
            else:
                i = check_int(key, "fixed index", low=-n, high=n - 1) % n
            x_start[i] = check_real(value, f"fixed value of {names[i]}")
            mask[i] = True
        return mask
    if isinstance(fixed, (str, bytes)) or not isinstance(fixed, Sequence | np.ndarray):
        raise InvalidInputError(
            "fixed must be a mapping {name or index: value} or a sequence of indices "
            "(held at their x0 values)"
        )
    for index in fixed:
        mask[check_int(index, "fixed index", low=-n, high=n - 1) % n] = True
    return mask


@dataclass(frozen=True, slots=True)
class SolverOptions:
    """Tuning knobs of :func:`calibrate`'s Gauss–Newton solver (rarely changed).

    Parameters
    ----------
    fd_step : float, default 1e-6
        Relative finite-difference step ρ: ``δ_j = ρ·max(|x_j|, s_j)``.
    fd : {"forward", "central"}, default "forward"
        Finite differences of the iterations (inference always uses central ones).
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

    Notes
    -----
    Complexity: O(1); the values are checked by :func:`calibrate`.

    Examples
    --------
    >>> from pilotstats.regression import SolverOptions
    >>> SolverOptions(max_iter=5).max_iter
    5
    """

    fd_step: float | None = None
    fd: FiniteDifference = "forward"
    xtol: float | None = None
    ftol: float | None = None
    max_iter: int = 100
    integer_strategy: IntegerStrategy = "neighbour"
    max_scaled_condition: float | None = None


def calibrate(
    model: Any, conditions: Any, measurements: Any, x0: Any, *,
    weights: WeightsOption = "irls", integer: Sequence[int] | None = None, bounds: Any = None,
    confidence_level: float = 0.95, covariance: Any = None,
    parameter_names: Sequence[str] | None = None,
    fixed: Mapping[str | int, float] | Sequence[int] | None = None,
    solver_options: SolverOptions | None = None,
) -> CalibrationResult:
    """Fit model parameters to measurements by Gauss–Newton weighted least squares.

    Method: module docstring. Complexity: O(T·m·n²) and n + 1 model calls per trial and step.

    Parameters
    ----------
    model : callable
        h(x, u) -> y (scalar or (m,)) for parameters x (n,) and one trial's conditions u.
    conditions : sequence, length T
        Controlled inputs u_t of each trial (e.g. population N, or rows [N, Z]).
    measurements : array_like, shape (T,) or (T, m)
        Measured z_t; NaN marks a missing value (weight 0, not counted in dof).
    x0 : array_like, shape (n,)
        Starting point; also sets the finite-difference scale ``s_j = |x0_j|`` (1 if 0).
    weights : None, "fixed", "irls", array_like or callable, default "irls"
        None: OLS; ``"fixed"``: 1/z²; ``"irls"``: 1/y(x̂)² to a fixed point; fixed weights
        (T, m) or (T,); or a callable ``w(y, z) -> (T, m)``.
    integer : sequence of int, optional
        Indices of integer parameters (server counts, pool sizes).
    bounds : (lower, upper), optional
        Scalars or (n,) arrays, None for no bound; default: the model's declared bounds.
    confidence_level : float, default 0.95
    covariance : array_like, shape (T, m, m), optional
        Measurement covariance blocks R_t for full GLS (W_t = R_t⁻¹); default weights only.
    parameter_names : sequence of str, optional
        Names for reports and warnings (default: the model's, else ``x[i]``).
    fixed : mapping or sequence of int, optional
        Parameters held at a known value, not fitted: ``{"D1": 2.0}`` (name or index) or
        ``[0, 2]`` (at their x0 values); equal bounds hold a parameter the same way.
    solver_options : SolverOptions, optional
        Tuning of the solver; default ``SolverOptions()``.

    Returns
    -------
    CalibrationResult

    Raises
    ------
    InvalidInputError, NotEnoughDataError
        Bad shapes, options, model output, bounds, integer starts or ``fixed`` entries; dof < 1.

    Warns
    -----
    IdentifiabilityWarning, LabelSwitchingWarning, ConvergenceWarning
        Undetermined or interchangeable parameters; the solver or IRLS did not converge.

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
    x_start = as_float_array(x0, "x0").copy()
    level, options, strategy, limit = _solver_settings(confidence_level, solver_options, x_start)
    names = _names(parameter_names, model, x_start.shape[0])
    fixed_mask, integer_mask = _masks(fixed, integer, bounds, model, names, x_start, options)
    dof = _dof(problem, fixed_mask)
    weighting = _Weighting(weights, covariance, problem)
    free = _free(integer_mask, fixed_mask)
    fit, profile = _solve(problem, weighting, x_start, free, options, integer_mask, strategy)
    return _inference(
        problem, weighting, fit, free, options, level, dof, names, _indices(integer_mask),
        profile, limit, _indices(fixed_mask),
    )


def _indices(mask: npt.NDArray[np.bool_]) -> tuple[int, ...]:
    """The positions where ``mask`` is true, as Python ints."""
    return tuple(int(i) for i in np.flatnonzero(mask))


def _free(
    integer_mask: npt.NDArray[np.bool_], fixed_mask: npt.NDArray[np.bool_]
) -> npt.NDArray[np.int64]:
    """Indices of the continuous fitted parameters (named error when there are none)."""
    free = np.flatnonzero(~integer_mask & ~fixed_mask).astype(np.int64)
    if free.size == 0:
        raise InvalidInputError(
            "at least one parameter must be estimated and continuous (not integer, not fixed)"
        )
    return free


def _solver_settings(
    confidence_level: float, solver_options: SolverOptions | None, x_start: FloatArray
) -> tuple[float, _Options, str, float]:
    """Checked level, solver options, integer strategy and condition limit."""
    n = x_start.shape[0]
    level = check_confidence_level(confidence_level)
    solver = SolverOptions() if solver_options is None else solver_options
    if not isinstance(solver, SolverOptions):
        raise InvalidInputError(
            f"solver_options must be a SolverOptions, got {type(solver).__name__}")
    fd_step, fd, xtol, ftol, max_iter, integer_strategy, max_scaled_condition = (
        solver.fd_step, solver.fd, solver.xtol, solver.ftol, solver.max_iter,
        solver.integer_strategy, solver.max_scaled_condition,
    )
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
    return level, options, integer_strategy, limit


def _masks(
    fixed: Any, integer: Sequence[int] | None, bounds: Any, model: Any,
    names: tuple[str, ...], x_start: FloatArray, options: _Options,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Fixed and integer masks; sets the bounds in ``options`` and held values in x_start."""
    n = x_start.shape[0]
    fixed_mask = _fixed(fixed, names, x_start)
    integer_mask = np.zeros(n, dtype=bool)
    for index in integer or ():
        i = check_int(index, "integer index", low=-n, high=n - 1)
        integer_mask[i] = True
    options.lower, options.upper = _bounds(bounds, model, n, integer_mask)
    pinned = options.lower == options.upper  # equal bounds: held at that value
    x_start[pinned] = options.lower[pinned]
    fixed_mask |= pinned
    integer_mask &= ~fixed_mask
    for i in _indices(integer_mask):
        if not float(x_start[i]).is_integer():
            raise InvalidInputError(
                f"x0[{i}] = {x_start[i]!r} is an integer parameter; give a whole-number start"
            )
    outside = (x_start < options.lower) | (x_start > options.upper)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        what = "fixed value" if fixed_mask[i] else "x0"
        raise InvalidInputError(
            f"{what} of {names[i]} = {float(x_start[i])!r} lies outside its bounds "
            f"[{options.lower[i]:g}, {options.upper[i]:g}]"
        )
    return fixed_mask, integer_mask


def _dof(problem: _Problem, fixed_mask: npt.NDArray[np.bool_]) -> int:
    """Residual degrees of freedom (named error below 1)."""
    n = fixed_mask.shape[0]
    dof = problem.n_obs - int(n - fixed_mask.sum())
    if dof < 1:
        raise NotEnoughDataError(
            f"{problem.n_obs} observed measurement value(s) cannot calibrate {n} parameters; "
            "need more values than parameters (dof >= 1): add trials or measures"
        )
    return dof


def _solve(
    problem: _Problem, weighting: _Weighting, x_start: FloatArray,
    free: npt.NDArray[np.int64], options: _Options, integer_mask: npt.NDArray[np.bool_],
    integer_strategy: str,
) -> tuple[_Fit, dict[tuple[int, ...], float]]:
    """The weighted fit (with the integer strategy when there are integer parameters) and
    the profile of S over the integer configurations tried."""
    integer_idx = _indices(integer_mask)
    profile: dict[tuple[int, ...], float] = {}
    if not integer_idx:
        return _fit_weighted(problem, weighting, x_start, free, options), profile
    x_begin = x_start.copy()
    if integer_strategy in ("tutorial", "tutorial_then_neighbour"):
        all_free = np.arange(x_start.shape[0], dtype=np.int64)
        tutorial = _fit_weighted(problem, weighting, x_begin, all_free, options, integer_mask)
        x_begin = tutorial.x
    if integer_strategy == "tutorial":
        fit = _fit_weighted(problem, weighting, x_begin, free, options)
        profile[_config_of(fit.x, integer_idx)] = fit.sse
        return fit, profile
    fit = _neighbour_search(problem, weighting, x_begin, free, options, integer_idx, profile)
    return fit, profile


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
    fixed_idx: tuple[int, ...] = (),
) -> CalibrationResult:
    n = fit.x.shape[0]
    whiten = fit.whitener if fit.whitener is not None else weighting.whitener()
    r = whiten(problem.z - fit.y)
    sse = float(r @ r)
    mse = sse / dof
    # Inference sensitivities use central differences at the same step: their error is
    # O(ρ²) instead of O(ρ), so standard errors are accurate to ~1e-10 rather than ~1e-6.
    central = dataclasses.replace(options, fd="central")
    raw = _jacobian(problem, fit.x, fit.y, free, central)
    jac = _whiten_jacobian(whiten, raw)
    matrix = jac.T @ jac
    sensitivity, information = _embed_free(raw, matrix, free, problem.shape, n)
    diagnostics = _diagnose(matrix, [names[i] for i in free], limit)
    covariance, stderr, status = _covariance(matrix, free, n, mse, diagnostics.rank, fit.status)
    t = t_quantile(0.5 + level / 2, dof)
    ci_low, ci_high = fit.x - t * stderr, fit.x + t * stderr
    if integer_idx and diagnostics.rank == free.size:
        critical = sse * (1 + t * t / dof)  # F_{1, dof; c} = t²_{(1+c)/2; dof}
        for i in integer_idx:
            ci_low[i], ci_high[i] = _integer_interval(
                problem, whiten, fit.x, sse, free, options, i, critical
            )
    interchangeable = _identification_warnings(
        diagnostics, problem, whiten, fit.x, sse, free, names, options
    )
    if not fit.converged:
        _warn_not_converged(fit)
    return CalibrationResult(
        params=_readonly(fit.x),
        stderr=_readonly(stderr),
        ci_low=_readonly(ci_low),
        ci_high=_readonly(ci_high),
        covariance=_readonly(covariance),
        sse=sse,
        mse=float(mse),
        dof=int(dof),
        condition_number=float(diagnostics.condition_number),
        scaled_condition_number=float(diagnostics.scaled_condition_number),
        rank=int(diagnostics.rank),
        iterations=int(fit.iterations),
        converged=bool(fit.converged),
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
        fixed_indices=fixed_idx,
        sensitivity=_readonly(sensitivity),
        information=_readonly(information),
        interchangeable=interchangeable,
        _problem=problem,
        _options=options,
        _whitener=whiten,
    )


def _covariance(
    matrix: FloatArray, free: npt.NDArray[np.int64], n: int, mse: float, rank: int,
    status: str,
) -> tuple[FloatArray, FloatArray, str]:
    """Covariance ``mse (J^T J)^-1`` of the free parameters (all NaN when rank deficient),
    the standard errors, and the status (``"rank_deficient"`` then)."""
    covariance = np.full((n, n), np.nan)
    if rank == free.size:
        scaled, d = _scaled(matrix)
        inverse = np.linalg.pinv(scaled, hermitian=True) * d[:, None] * d[None, :]
        covariance[np.ix_(free, free)] = mse * inverse
    else:
        status = "rank_deficient"
    stderr = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    stderr[np.isnan(np.diag(covariance))] = np.nan
    return covariance, stderr, status


def _warn_not_converged(fit: _Fit) -> None:
    """ConvergenceWarning (at the caller of :func:`calibrate`) saying why the fit stopped."""
    reason = {
        "max_iter": "the iteration limit max_iter was reached",
        "no_decrease": "no step along the Gauss–Newton direction lowered S",
        "irls_max_passes": f"IRLS weights did not settle in {_MAX_IRLS_PASSES} passes",
    }.get(fit.status, fit.status)
    warnings.warn(
        f"calibration did not converge: {reason} (S = {fit.sse:.6g}); try another x0, "
        "a larger max_iter or check that the model is smooth in its parameters",
        ConvergenceWarning,
        stacklevel=4,
    )


def _embed_free(
    raw: FloatArray, matrix: FloatArray, free: npt.NDArray[np.int64],
    shape: tuple[int, ...], n: int,
) -> tuple[FloatArray, FloatArray]:
    """Sensitivities and information matrix of the free parameters, NaN for fixed ones."""
    sensitivity = np.full((*shape, n), np.nan)
    sensitivity[..., free] = raw
    information = np.full((n, n), np.nan)
    information[np.ix_(free, free)] = matrix
    return sensitivity, information


def _identification_warnings(
    diagnostics: DesignDiagnostics, problem: _Problem, whiten: _Whitener, x: FloatArray,
    sse: float, free: npt.NDArray[np.int64], names: tuple[str, ...], options: _Options,
) -> tuple[tuple[str, ...], ...]:
    """IdentifiabilityWarning and LabelSwitchingWarning (at the caller of
    :func:`calibrate`) when they apply; returns the groups of interchangeable parameters."""
    if not diagnostics.identifiable:
        warnings.warn(diagnostics.message(), IdentifiabilityWarning, stacklevel=4)
    interchangeable = _interchangeable(
        problem, whiten, x, sse, free, names, options.lower, options.upper
    )
    if interchangeable:
        warnings.warn(_switching_message(interchangeable, sse), LabelSwitchingWarning,
                      stacklevel=4)
    return interchangeable
