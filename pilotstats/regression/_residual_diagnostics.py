"""Residual diagnostics of a calibration: trend against the conditions, normality and lack
of fit (``docs/algorithms/calibration.md``, *Residual diagnostics*).

Woodside's tutorial (WOSP/SIPEW 2010, slide 47): after a fit, "look at its predictions"; a
trend of the residuals against the load "indicates additional resource use" that the model
lacks. :func:`residual_diagnostics` standardises the residuals (r_tj = √w_tj e_tj / √mse,
so that under the model they are roughly N(0, 1)) and tests

* a **trend**: per measure, the least-squares regression of r on a polynomial of degree
  d (default 2: a curved pattern, such as the one a missing resource leaves, is caught as
  well as a slope) in the condition, overall F test of the d slope terms on n − d − 1 dof;
  the overall p value is Bonferroni's min p × m;
* **normality**: Shapiro–Wilk on all standardised residuals (needs 3 to 5000 values);
* **lack of fit**, when some conditions are replicated: pure-error sum of squares
  SS_pe = Σ w (z − z̄_group)² on dof_pe = Σ (n_group − 1), lack-of-fit SS_lof = S − SS_pe on
  dof − dof_pe, F = (SS_lof/dof_lof)/(SS_pe/dof_pe) (Draper & Smith 1998, §2.1).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from pilotstats._validation import as_float_array, check_int, check_probability
from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._calibration_problem import FloatArray, _readonly
from pilotstats.results import Result, draw, format_number

_SHAPIRO_MAX = 5000


@dataclasses.dataclass(frozen=True, slots=True)
class ResidualDiagnostics(Result):
    """Trend, normality and lack-of-fit tests on the residuals of a calibration.

    Attributes
    ----------
    standardized : ndarray, shape (T, m)
        √w_tj · e_tj / √mse (NaN where a measurement is missing).
    condition_values : ndarray, shape (T,)
        Position of each trial on the condition axis (e.g. the population N).
    measure_names : tuple of str
    trend_slopes : ndarray, shape (m,)
        Least-squares slope of the standardised residuals against the condition, per
        measure.
    trend_p_values : ndarray, shape (m,)
        p values of the trend F test (polynomial of degree ``trend_degree``); NaN with
        fewer than trend_degree + 2 distinct conditions.
    trend_degree : int
    trend_p_value : float
        min p × m (Bonferroni), capped at 1.
    normality_statistic, normality_p_value : float
        Shapiro–Wilk W and p on all standardised residuals (NaN outside 3..5000 values).
    lack_of_fit_statistic, lack_of_fit_p_value : float
        Lack-of-fit F and p (NaN without replicated conditions).
    lack_of_fit_dof : tuple of int
        (dof_lof, dof_pe); (0, 0) without replicates.
    significance_level : float
    trend_detected, non_normal, lack_of_fit : bool
        p < significance_level for each test (False when a test is unavailable).

    Examples
    --------
    Returned by :meth:`CalibrationResult.residual_diagnostics`; a straight line fitted to a
    curve leaves a systematic pattern:

    >>> import numpy as np
    >>> from pilotstats.regression import calibrate, polynomial_model
    >>> n = np.repeat(np.arange(1.0, 9.0), 2)
    >>> z = 1 + 0.5 * n + 0.05 * n**2 + 0.01 * np.cos(5 * np.arange(16))
    >>> fit = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    >>> diagnostics = fit.residual_diagnostics()
    >>> diagnostics.lack_of_fit, diagnostics.lack_of_fit_dof
    (True, (6, 8))
    """

    standardized: FloatArray
    condition_values: FloatArray
    measure_names: tuple[str, ...]
    trend_slopes: FloatArray
    trend_p_values: FloatArray
    trend_degree: int
    trend_p_value: float
    normality_statistic: float
    normality_p_value: float
    lack_of_fit_statistic: float
    lack_of_fit_p_value: float
    lack_of_fit_dof: tuple[int, int]
    significance_level: float
    trend_detected: bool
    non_normal: bool
    lack_of_fit: bool

    def plot(self, *, ax: Any = None, xlabel: str | None = None,
             title: str | None = None) -> Any:
        """Standardised residuals against the condition, one marker series per measure.

        Needs matplotlib; returns the Axes (``plt.show`` is never called). Bands at ±2 mark
        the range of about 95 % of N(0, 1) residuals.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pilotstats.regression import calibrate
        >>> fit = calibrate(lambda p, u: p[0] * u, [1, 2, 3, 4], [2.1, 3.9, 6.2, 7.9], [1.0],
        ...                 weights=None)
        >>> ax = fit.residual_diagnostics().plot(xlabel="N")
        >>> ax.get_xlabel()
        'N'
        """
        return draw(self, ax=ax, xlabel=xlabel, title=title)

    def __str__(self) -> str:
        def p(value: float) -> str:
            return "n/a" if math.isnan(value) else format_number(value, 3)

        return (
            f"residuals: trend p = {p(self.trend_p_value)}"
            f"{' (TREND)' if self.trend_detected else ''}, normality p = "
            f"{p(self.normality_p_value)}{' (NOT normal)' if self.non_normal else ''}, "
            f"lack of fit p = {p(self.lack_of_fit_p_value)}"
            f"{' (LACK OF FIT)' if self.lack_of_fit else ''}"
        )


def _axis(result: Any, condition_index: int | None, x_axis: Any) -> FloatArray:
    problem = result._problem
    t_count = problem.z.shape[0]
    if x_axis is not None:
        values = as_float_array(x_axis, "x_axis")
        if values.shape[0] != t_count:
            raise InvalidInputError(f"x_axis must have one value per trial ({t_count})")
        return values
    try:
        rows = np.asarray(problem.condition_list, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            "conditions are not numbers; give x_axis= (one value per trial)"
        ) from exc
    if rows.ndim == 1:
        return rows
    if condition_index is None:
        if rows.ndim == 2 and rows.shape[1] == 1:
            return rows[:, 0]
        raise InvalidInputError(
            "conditions are rows; give condition_index= (which entry is the axis) or x_axis="
        )
    j = check_int(condition_index, "condition_index", low=0, high=rows.shape[1] - 1)
    return rows[:, j]


def _groups(problem: Any) -> list[list[int]]:
    keys: dict[str, list[int]] = {}
    for t, u in enumerate(problem.condition_list):
        keys.setdefault(repr(np.asarray(u, dtype=object).tolist()), []).append(t)
    return [g for g in keys.values() if len(g) > 1]


def _trend(xs: FloatArray, ys: FloatArray, degree: int) -> tuple[float, float]:
    """Slope of ys on xs and the p value of the F test of a degree-``degree`` polynomial trend
    against a constant."""
    from scipy import stats

    centred = (xs - xs.mean()) / (xs.std() if xs.std() > 0 else 1.0)
    design = np.vander(centred, degree + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(design, ys, rcond=None)
    sse_full = float(((ys - design @ coef) ** 2).sum())
    sse_mean = float(((ys - ys.mean()) ** 2).sum())
    dof = xs.size - degree - 1
    slope = float(np.polyfit(xs, ys, 1)[0])
    if sse_full <= 0:
        return slope, 0.0 if sse_mean > 0 else 1.0
    f_stat = ((sse_mean - sse_full) / degree) / (sse_full / dof)
    return slope, float(stats.f.sf(f_stat, degree, dof))


def residual_diagnostics(
    result: Any,
    condition_index: int | None,
    x_axis: Any,
    significance_level: float,
    trend_degree: int = 2,
) -> ResidualDiagnostics:
    """Compute the diagnostics for :meth:`CalibrationResult.residual_diagnostics`."""
    from scipy import stats

    significance = check_probability(significance_level, "significance_level")
    degree = check_int(trend_degree, "trend_degree", low=1, high=5)
    problem = result._problem
    axis = _axis(result, condition_index, x_axis)
    observed = problem.observed
    weights = np.asarray(result.weights)
    residuals = np.asarray(result.residuals)
    scale = math.sqrt(result.mse) if result.mse > 0 else 1.0
    standardized = np.where(observed, np.sqrt(weights) * np.where(observed, residuals, 0.0)
                            / scale, np.nan)
    m = standardized.shape[1]
    names = getattr(problem.model, "measure_names", None)
    if names is None or len(names) != m:
        names = tuple(f"output {j}" for j in range(m))
    slopes = np.full(m, np.nan)
    p_values = np.full(m, np.nan)
    for j in range(m):
        keep = observed[:, j]
        xs, ys = axis[keep], standardized[keep, j]
        if np.unique(xs).size >= degree + 2:
            slopes[j], p_values[j] = _trend(xs, ys, degree)
    finite = p_values[np.isfinite(p_values)]
    trend_p = float(min(1.0, finite.min() * finite.size)) if finite.size else math.nan
    pooled = standardized[observed]
    if 3 <= pooled.size <= _SHAPIRO_MAX and np.ptp(pooled) > 0:
        w_stat, w_p = (float(v) for v in stats.shapiro(pooled))
    else:
        w_stat, w_p = math.nan, math.nan
    ss_pe, dof_pe = 0.0, 0
    z = problem.z
    for group in _groups(problem):
        for j in range(m):
            members = [t for t in group if observed[t, j]]
            if len(members) < 2:
                continue
            w = weights[members, j]
            values = z[members, j]
            centre = float(w @ values / w.sum()) if w.sum() > 0 else float(values.mean())
            ss_pe += float(w @ (values - centre) ** 2)
            dof_pe += len(members) - 1
    dof_lof = result.dof - dof_pe
    if dof_pe >= 1 and dof_lof >= 1 and ss_pe > 0:
        f_stat = ((result.sse - ss_pe) / dof_lof) / (ss_pe / dof_pe)
        lof_p = float(stats.f.sf(f_stat, dof_lof, dof_pe))
        dofs = (int(dof_lof), int(dof_pe))
    else:
        f_stat, lof_p, dofs = math.nan, math.nan, (0, 0)
    return ResidualDiagnostics(
        standardized=_readonly(standardized),
        condition_values=_readonly(axis),
        measure_names=tuple(str(v) for v in names),
        trend_slopes=_readonly(slopes),
        trend_p_values=_readonly(p_values),
        trend_degree=int(degree),
        trend_p_value=trend_p,
        normality_statistic=w_stat,
        normality_p_value=w_p,
        lack_of_fit_statistic=float(f_stat),
        lack_of_fit_p_value=lof_p,
        lack_of_fit_dof=dofs,
        significance_level=significance,
        trend_detected=bool(trend_p < significance),
        non_normal=bool(w_p < significance),
        lack_of_fit=bool(lof_p < significance),
    )
