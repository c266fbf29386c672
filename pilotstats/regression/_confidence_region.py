"""Joint confidence regions of two calibrated parameters: the linearised ellipse and the exact
contour of E = S on a grid (``docs/algorithms/calibration.md``, *Confidence regions*).

Woodside's tutorial (WOSP/SIPEW 2010, slides 23 and 38-40) draws the contours of E around the
estimate and reads "contours of E nearly elliptical, so the assumptions are supported". For
parameters (i, j) pilotstats computes

* the linearised region (x − x̂)ᵀ P_ij⁻¹ (x − x̂) ≤ 2 F_{2, dof; c}, with P_ij the 2 × 2 block
  of the covariance (Seber & Wild 1989, eq. 5.13), and
* the exact region S_prof(x_i, x_j) ≤ S(x̂) (1 + 2 F_{2, dof; c} / dof) (Beale 1960; Seber &
  Wild 1989, eq. 5.22), where S_prof minimises S over the other continuous parameters with
  the weights frozen at x̂ (no refit is needed when the model has only these two).

Near a linear model the two coincide; :attr:`ConfidenceRegion.agreement` measures how far.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats._validation import check_confidence_level, check_int
from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._calibration_problem import FloatArray, _Problem, _readonly
from pilotstats.regression._gauss_newton import _gauss_newton
from pilotstats.results import Result, draw, format_number

_ELLIPSE_POINTS = 181
_GRID_MARGIN = 1.6


@dataclasses.dataclass(frozen=True, slots=True)
class ConfidenceRegion(Result):
    """Joint confidence region of two calibrated parameters.

    Attributes
    ----------
    parameter_names : tuple of str
        Names of the two parameters (x axis, y axis).
    indices : tuple of int
        Their positions in ``CalibrationResult.params``.
    center : ndarray, shape (2,)
        The estimates x̂_i, x̂_j.
    covariance : ndarray, shape (2, 2)
        The 2 × 2 block of P (with ``profile=False``: the conditional covariance
        mse · (M_ij)⁻¹ given the other parameters at x̂, to match the slice of S).
    confidence_level : float
    dof : int
        Residual degrees of freedom of the fit.
    f_quantile : float
        F_{2, dof; c}.
    ellipse : ndarray, shape (k, 2)
        Boundary of the linearised region (closed polygon).
    sse_threshold : float
        S(x̂)(1 + 2 F_{2, dof; c}/dof): the exact region is where the profile of S is below.
    grid_x, grid_y : ndarray
        Grid of the exact contour (``grid_x`` for the first parameter).
    sse_grid : ndarray, shape (len(grid_x), len(grid_y))
        Profile of S at each grid point (other continuous parameters refitted, weights frozen
        at x̂); inf where the model cannot be evaluated.
    profiled : bool
        True if other continuous parameters were refitted at each grid point.
    agreement : float
        Share of grid points on which the ellipse and the exact region agree (inside both or
        outside both); 1 for a linear model.

    Examples
    --------
    Returned by :meth:`CalibrationResult.confidence_region`:

    >>> import numpy as np
    >>> from pilotstats.regression import calibrate
    >>> u = np.arange(1.0, 9.0)
    >>> z = 2 * u + 1 + 0.1 * np.sin(3 * u)
    >>> fit = calibrate(lambda p, v: p[0] * v + p[1], u, z, [1.0, 0.0], weights=None)
    >>> region = fit.confidence_region(grid=15)
    >>> region.parameter_names, round(region.agreement, 2)
    (('x[0]', 'x[1]'), 1.0)
    >>> region.contains(fit.params[region.indices[0]], fit.params[region.indices[1]])
    True
    """

    parameter_names: tuple[str, ...]
    indices: tuple[int, int]
    center: FloatArray
    covariance: FloatArray
    confidence_level: float
    dof: int
    f_quantile: float
    ellipse: FloatArray
    sse_threshold: float
    grid_x: FloatArray
    grid_y: FloatArray
    sse_grid: FloatArray
    profiled: bool
    agreement: float

    def contains(self, a: float, b: float, *, region: str = "ellipse") -> bool:
        """True if the point (a, b) lies in the ellipse (``region="ellipse"``) or in the
        exact region (``region="exact"``, read off the grid at the nearest grid point)."""
        from pilotstats._validation import check_choice

        if check_choice(region, "region", ("ellipse", "exact")) == "exact":
            i = int(np.argmin(np.abs(self.grid_x - a)))
            j = int(np.argmin(np.abs(self.grid_y - b)))
            return bool(self.sse_grid[i, j] <= self.sse_threshold)
        d = np.array([a, b], dtype=np.float64) - self.center
        value = float(d @ np.linalg.solve(self.covariance, d))
        return value <= 2 * self.f_quantile

    def plot(self, *, ax: Any = None, title: str | None = None) -> Any:
        """Draw the ellipse, the exact contour of S and the estimate.

        Needs matplotlib. Returns the matplotlib Axes (``plt.show`` is never called).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.regression import calibrate
        >>> u = np.arange(1.0, 9.0)
        >>> fit = calibrate(lambda p, v: p[0] * v + p[1], u, 2 * u + 1 + 0.1 * np.sin(3 * u),
        ...                 [1.0, 0.0], weights=None)
        >>> ax = fit.confidence_region(grid=11).plot()
        >>> ax.get_xlabel()
        'x[0]'
        """
        return draw(self, ax=ax, title=title)

    def __str__(self) -> str:
        level = format_number(self.confidence_level * 100)
        kind = "profile" if self.profiled else "exact"
        return (
            f"{level} % joint region of {self.parameter_names[0]}, {self.parameter_names[1]}: "
            f"ellipse "
            f"vs {kind} contour of S agree on {format_number(100 * self.agreement, 3)} % of a "
            f"{self.grid_x.size} × {self.grid_y.size} grid"
        )


def _index(value: Any, names: tuple[str, ...], n: int) -> int:
    if isinstance(value, str):
        if value not in names:
            raise InvalidInputError(f"unknown parameter {value!r}; the parameters are {names}")
        return names.index(value)
    return check_int(value, "parameters entry", low=-n, high=n - 1) % n


def confidence_region(
    result: Any, level: float | None, chosen: Any, grid: int, profile: bool
) -> ConfidenceRegion:
    """Compute the region for :meth:`CalibrationResult.confidence_region`."""
    from scipy import stats

    n = result.params.shape[0]
    held = set(result.integer_indices) | set(result.fixed_indices)
    free = [i for i in range(n) if i not in held]
    if chosen is None:
        if len(free) < 2:
            raise InvalidInputError("a joint region needs two estimated continuous parameters")
        pair = (free[0], free[1])
    else:
        if isinstance(chosen, str) or len(chosen) != 2:
            raise InvalidInputError("pair must name exactly two parameters")
        pair = (_index(chosen[0], result.parameter_names, n),
                _index(chosen[1], result.parameter_names, n))
    if pair[0] == pair[1] or pair[0] not in free or pair[1] not in free:
        raise InvalidInputError(
            "pair must be two different estimated continuous parameters (not integer, "
            "not fixed)"
        )
    grid = check_int(grid, "grid", low=5, high=201)
    c = result.confidence_level if level is None else check_confidence_level(level)
    cov = np.asarray(result.covariance)[np.ix_(pair, pair)]
    if not np.isfinite(cov).all():
        raise InvalidInputError("the fit is rank deficient: no confidence region exists")
    others = np.array([i for i in free if i not in pair], dtype=np.int64)
    profiled = bool(profile and others.size > 0)
    if not profile and others.size:
        # a slice with the others held at x̂: compare with the conditional ellipse
        cov = result.mse * np.linalg.inv(np.asarray(result.information)[np.ix_(pair, pair)])
    dof = result.dof
    f = float(stats.f.ppf(c, 2, dof))
    center = np.array([result.params[pair[0]], result.params[pair[1]]])
    values, vectors = np.linalg.eigh(cov)
    angle = np.linspace(0.0, 2 * np.pi, _ELLIPSE_POINTS)
    circle = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    ellipse = center + (circle * np.sqrt(2 * f * np.maximum(values, 0.0))) @ vectors.T
    threshold = result.sse * (1 + 2 * f / dof)
    half = _GRID_MARGIN * np.sqrt(2 * f * np.diag(cov))
    gx = np.linspace(center[0] - half[0], center[0] + half[0], grid)
    gy = np.linspace(center[1] - half[1], center[1] + half[1], grid)
    sse = _profile_grid(result, pair, others if profiled else np.array([], np.int64), gx, gy)
    inside_exact = sse <= threshold
    dx = gx[:, None] - center[0]
    dy = gy[None, :] - center[1]
    inv = np.linalg.inv(cov)
    quad = inv[0, 0] * dx**2 + 2 * inv[0, 1] * dx * dy + inv[1, 1] * dy**2
    inside_ellipse = quad <= 2 * f
    agreement = float(np.mean(inside_exact == inside_ellipse))
    return ConfidenceRegion(
        parameter_names=(result.parameter_names[pair[0]], result.parameter_names[pair[1]]),
        indices=(int(pair[0]), int(pair[1])),
        center=_readonly(center),
        covariance=_readonly(cov),
        confidence_level=float(c),
        dof=int(dof),
        f_quantile=f,
        ellipse=_readonly(ellipse),
        sse_threshold=float(threshold),
        grid_x=_readonly(gx),
        grid_y=_readonly(gy),
        sse_grid=_readonly(sse),
        profiled=profiled,
        agreement=agreement,
    )


def _profile_grid(
    result: Any,
    pair: tuple[int, int],
    others: npt.NDArray[np.int64],
    gx: FloatArray,
    gy: FloatArray,
) -> FloatArray:
    problem: _Problem = result._problem
    options = result._options
    whiten = result._whitener
    x_hat = np.array(result.params)
    info = np.asarray(result.information)
    out = np.full((gx.size, gy.size), np.inf)
    evaluations = problem.evaluations
    for a, va in enumerate(gx):
        for b, vb in enumerate(gy):
            x = x_hat.copy()
            x[pair[0]], x[pair[1]] = va, vb
            if others.size:
                # warm start on the linearised profile: x_o = x̂_o − M_oo⁻¹ M_op δ
                delta = np.array([va - x_hat[pair[0]], vb - x_hat[pair[1]]])
                m_oo = info[np.ix_(others, others)]
                m_op = info[np.ix_(others, np.array(pair, dtype=np.int64))]
                x[others] = x_hat[others] - np.linalg.solve(m_oo, m_op @ delta)
                x[others] = np.clip(x[others], options.lower[others], options.upper[others])
            if (x < options.lower).any() or (x > options.upper).any():
                continue
            try:
                if others.size:
                    out[a, b] = _gauss_newton(problem, whiten, x, others, options).sse
                else:
                    r = whiten(problem.z - problem.evaluate(x))
                    out[a, b] = float(r @ r)
            except InvalidInputError:
                continue
    problem.evaluations = evaluations
    return out
