"""Gauss–Newton weighted least squares for :func:`~pilotstats.regression.calibrate`:
finite-difference sensitivities, Jacobi-scaled linear algebra (rank, solve), step halving
with bounds, IRLS passes and the ±1 neighbour search over integer parameters
(``docs/algorithms/calibration.md``).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from pilotstats import _config
from pilotstats.exceptions import (
    InvalidInputError,
)
from pilotstats.regression._calibration_problem import (
    FloatArray,
    _Fit,
    _Options,
    _Problem,
    _Weighting,
    _Whitener,
)

_MAX_HALVINGS = 30
_MAX_IRLS_PASSES = 50
_MAX_NEIGHBOUR_MOVES = 100
_NEIGHBOUR_IMPROVEMENT = 1e-12


def _jacobian(
    problem: _Problem,
    x: FloatArray,
    y: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    unit_step: npt.NDArray[np.bool_] | None = None,
) -> FloatArray:
    """Finite-difference sensitivities ∂h/∂x_j, shape (T, m, n_free)."""
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
    (almost) undetermined combination of parameters does not produce a wild step; the
    step is recorded and a warning is emitted.
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
    """Gauss–Newton with step halving and bounds for one fixed weighting."""
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



def _fit_weighted(
    problem: _Problem,
    weighting: _Weighting,
    x0: FloatArray,
    free: npt.NDArray[np.int64],
    options: _Options,
    rounding: npt.NDArray[np.bool_] | None = None,
) -> _Fit:
    """Fit with the chosen weighting; IRLS passes until x̂ is a fixed point."""
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
    """±1 neighbour search over the integer parameters with continuous refits."""
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


