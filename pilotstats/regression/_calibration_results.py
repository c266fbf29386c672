"""The result of a calibration, :class:`CalibrationResult` (estimates, inference, plots,
confidence regions, residual diagnostics; ``docs/algorithms/calibration.md``).
:class:`Prediction` lives in ``_prediction`` and is re-exported here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._stats import t_quantile
from pilotstats._validation import (
    check_confidence_level,
)
from pilotstats.exceptions import (
    InvalidInputError,
)
from pilotstats.regression._calibration_diagnostics import DesignDiagnostics
from pilotstats.regression._calibration_problem import (
    FloatArray,
    _frozen_conditions,
    _Options,
    _Problem,
    _readonly,
)
from pilotstats.regression._gauss_newton import (
    _jacobian,
)

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.regression._confidence_region import ConfidenceRegion
    from pilotstats.regression._residual_diagnostics import ResidualDiagnostics
from pilotstats.regression._prediction import Prediction
from pilotstats.results import Result, draw, format_number, plot_doc

__all__ = ["CalibrationResult", "Prediction"]


@dataclasses.dataclass(frozen=True, slots=True)
class CalibrationResult(Result):
    """Result of :func:`calibrate`.

    Attributes
    ----------
    params : ndarray, shape (n,)
        Estimates x̂.
    stderr : ndarray, shape (n,)
        √P_ii (NaN if rank deficient, and for integer and fixed parameters).
    ci_low, ci_high : ndarray, shape (n,)
        Marginal confidence interval x̂_i ∓ t_{(1+c)/2; dof} se_i (conditional on the
        integer parameters). Integer parameters: the interval where the profile of S
        crosses S(x̂)(1 + F_{1, dof; c}/dof) (see :func:`calibrate`). NaN for fixed
        parameters.
    covariance : ndarray, shape (n, n)
        P = mse · M⁻¹ over the continuous parameters (NaN rows/columns for integers and
        fixed parameters).
    sse : float
        Weighted sum of squares S(x̂) with the final weights.
    mse : float
        S/dof.
    dof : int
        Observed measurement values minus the number of estimated (not fixed) parameters.
    condition_number, scaled_condition_number : float
        cond(M) and cond(D M D) at x̂.
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
    fixed_indices : tuple of int
        Parameters held fixed (``fixed=`` or equal bounds).
    sensitivity : ndarray, shape (T, m, n)
        H_t = ∂h(x, u_t)/∂x at x̂ (central differences; Woodside's tutorial, slide 23), NaN
        columns for integer and fixed parameters.
    information : ndarray, shape (n, n)
        M = Σ_t H_tᵀ W_t H_t with the final weights W_t = R_t⁻¹ (up to the scale that the
        mse estimates), so that ``covariance = mse · M⁻¹`` (slide 23); NaN rows and
        columns for integer and fixed parameters.
    interchangeable : tuple of tuple of str
        Groups of parameters whose fitted values can be permuted without changing S
        (label switching; a :class:`~pilotstats.exceptions.LabelSwitchingWarning` was
        emitted). Empty when none.

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
    fixed_indices: tuple[int, ...]
    sensitivity: FloatArray
    information: FloatArray
    interchangeable: tuple[tuple[str, ...], ...]
    _problem: Any = dataclasses.field(repr=False, compare=False)
    _options: Any = dataclasses.field(repr=False, compare=False)
    _whitener: Any = dataclasses.field(repr=False, compare=False)

    def confidence_region(
        self,
        confidence_level: float | None = None,
        *,
        pair: Any = None,
        grid: int = 25,
        profile: bool = True,
    ) -> ConfidenceRegion:
        """Joint confidence region of two parameters: the ellipse and the exact E contour.

        Woodside's tutorial (WOSP/SIPEW 2010, slides 23 and 38-40) plots the contours of E
        (the weighted sum of squares S) around the estimate: when they are nearly
        elliptical, the linearised intervals are trustworthy. The ellipse is
        (x − x̂)ᵀ P_ij⁻¹ (x − x̂) ≤ 2 F_{2, dof; c}; the exact region is where the profile
        of S (other continuous parameters refitted, weights frozen at x̂) stays below
        S(x̂)(1 + 2 F_{2, dof; c}/dof) (Seber & Wild 1989, §5.2).

        Parameters
        ----------
        confidence_level : float, optional
            Level of the region (default: the fit's).
        pair : pair of str or int, optional
            The two parameters (names or indices); default the first two estimated
            continuous ones.
        grid : int, default 25
            Grid points per axis for the exact contour (5..201); the grid spans 1.6 times
            the ellipse's extent.
        profile : bool, default True
            Refit the other continuous parameters at each grid point (the profile); False
            holds them at x̂ (a conditional slice, cheaper), and the ellipse is then the
            conditional one, mse · (M_ij)⁻¹.

        Returns
        -------
        ConfidenceRegion
            With :meth:`~ConfidenceRegion.plot` and the share of grid points on which the
            ellipse and the exact region agree.

        Raises
        ------
        InvalidInputError
            Fewer than two estimated continuous parameters, an unknown name, or a rank
            deficient fit.

        Notes
        -----
        Complexity: grid² profile fits (each a few Gauss–Newton steps over the other
        parameters), or grid² model evaluations without other parameters.

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.regression import calibrate
        >>> u = np.arange(1.0, 9.0)
        >>> z = 2 * u + 1 + 0.1 * np.sin(3 * u)
        >>> fit = calibrate(lambda p, v: p[0] * v + p[1], u, z, [1.0, 0.0], weights=None)
        >>> fit.confidence_region(grid=21).agreement > 0.99
        True
        """
        from pilotstats.regression._confidence_region import confidence_region

        return confidence_region(self, confidence_level, pair, grid, profile)

    def residual_diagnostics(
        self,
        *,
        condition_index: int | None = None,
        x_axis: Any = None,
        significance_level: float = 0.05,
        trend_degree: int = 2,
    ) -> ResidualDiagnostics:
        """Residual trend, normality and lack-of-fit tests, with a residual plot.

        Woodside's tutorial (WOSP/SIPEW 2010, slide 47): "look at its predictions"; a
        trend of the residuals against the conditions "indicates additional resource
        use" that the model is missing. The residuals are standardised,
        r = √w · e / √mse, then tested for a trend against the condition (F test of a
        polynomial of degree ``trend_degree`` per measure, Bonferroni across measures),
        for normality (Shapiro–Wilk) and, when some conditions are replicated, for lack of
        fit (pure-error F test).

        Parameters
        ----------
        condition_index : int, optional
            For conditions given as rows (e.g. ``[N, Z]``): which entry is the axis.
        x_axis : array_like, shape (T,), optional
            The axis value of each trial instead (for non-numeric conditions).
        significance_level : float, default 0.05
        trend_degree : int, default 2
            Degree of the polynomial trend tested (1: a straight slope; 2 also catches the
            curved pattern of a missing resource). 1..5.

        Returns
        -------
        ResidualDiagnostics
            With :meth:`~ResidualDiagnostics.plot` (residuals against the condition).

        Raises
        ------
        InvalidInputError
            Row conditions without ``condition_index`` or ``x_axis``, or an ``x_axis`` of
            the wrong length.

        Notes
        -----
        Complexity: O(T m) plus the Shapiro–Wilk test, O(N log N) in the residual count.

        Examples
        --------
        >>> from pilotstats.regression import calibrate
        >>> fit = calibrate(lambda p, u: p[0] * u, [1, 2, 3, 4, 5], [2.1, 3.9, 6.2, 7.9, 10.1],
        ...                 [1.0], weights=None)
        >>> print(fit.residual_diagnostics())  # doctest: +ELLIPSIS
        residuals: trend p = ..., normality p = ..., lack of fit p = n/a
        """
        from pilotstats.regression._residual_diagnostics import residual_diagnostics

        return residual_diagnostics(
            self, condition_index, x_axis, significance_level, trend_degree
        )

    @property
    def half_width_percent(self) -> FloatArray:
        """Half width (±) of each parameter's interval in % of its estimate (as Woodside's
        tutorial tabulates it; the integer parameters' profile intervals are halved too);
        NaN for fixed parameters."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = 100 * (self.ci_high - self.ci_low) / 2 / np.abs(self.params)
        return out

    def confidence_interval(
        self, confidence_level: float | None = None
    ) -> tuple[FloatArray, FloatArray]:
        """Marginal parameter intervals at another level (None: the stored level)."""
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        t = t_quantile(0.5 + level / 2, self.dof)
        return self.params - t * self.stderr, self.params + t * self.stderr

    def _sensitivities(self, conditions: Any) -> tuple[FloatArray, FloatArray, Any]:
        problem: _Problem = self._problem
        options: _Options = self._options
        held = set(self.integer_indices) | set(self.fixed_indices)
        free = np.array(
            [i for i in range(self.params.shape[0]) if i not in held], dtype=np.int64
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
        """Predictions at new conditions with confidence intervals for the mean.

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
        """Intervals for a new measurement: ŷ ± t √(C_jj + mse·r_j).

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

    @plot_doc
    def plot(
        self,
        output: int = 0,
        *,
        conditions: Any = None,
        x_axis: Any = None,
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
        x_axis : array_like, optional
            Positions of ``conditions`` on the x axis (default: the conditions themselves,
            or their entry ``condition_index``).
        condition_index : int, optional
            For conditions given as rows (e.g. ``[N, Z]``): which entry is the x axis.
        {ax}
        prediction_band : bool, default True
            Also draw the prediction band (skipped for weightings whose new-measurement
            variance is unknown: arrays, callables, covariances).
        xlabel, ylabel : str, optional
            Axis names (default ``"condition"`` and ``"output <j>"``).
        unit : str, optional
            Unit of the output, appended to the y label.
        title : str, optional
            Title (default: parameter names, weighting and dof).

        {returns}

        Raises
        ------
        InvalidInputError
            ``output`` out of range, conditions that are not numbers (without
            ``condition_index`` or ``x_axis``), or ``x_axis`` of another length than ``conditions``.
        {no_matplotlib}

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
        return draw(
            self, output, conditions=conditions, x_axis=x_axis, condition_index=condition_index,
            ax=ax, prediction_band=prediction_band, xlabel=xlabel, ylabel=ylabel, unit=unit,
            title=title
        )

    def summary(self) -> str:
        """A multi-line table of estimates, standard errors, intervals and half widths.

        The half width (±) of each interval is also given in % of the estimate, as
        Woodside's tutorial tabulates it. Integer parameters show their profile interval,
        fixed parameters their value only.
        """
        level = format_number(self.confidence_level * 100)
        lines = [
            f"calibration ({self.weighting}): status {self.status}, {self.iterations} "
            f"iterations, {self.irls_passes} pass(es), S = {format_number(self.sse, 6)}, "
            f"mse = {format_number(self.mse, 6)}, dof = {self.dof}",
            f"{'parameter':>12} {'estimate':>12} {'std err':>10}   {level + ' % CI':<26}"
            f"{'± %':>8}",
        ]
        for i, name in enumerate(self.parameter_names):
            if i in self.fixed_indices:
                lines.append(f"{name:>12} {self.params[i]:>12.6g} {'(fixed)':>10}")
                continue
            error = "(integer)" if i in self.integer_indices else f"{self.stderr[i]:.3g}"
            value = float(self.half_width_percent[i])
            percent = f"{value:.3g}" if math.isfinite(value) else "nan"
            interval = f"[{self.ci_low[i]:.6g}, {self.ci_high[i]:.6g}]"
            lines.append(
                f"{name:>12} {self.params[i]:>12.6g} {error:>10}   {interval:<26}{percent:>8}"
            )
        lines.append(
            f"cond(M) = {format_number(self.condition_number)}, scaled cond = "
            f"{format_number(self.scaled_condition_number)}, rank {self.rank}"
        )
        if self.interchangeable:
            lines.append(
                "label switching: "
                + "; ".join(", ".join(g) for g in self.interchangeable)
                + " can be permuted without changing S"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        level = format_number(self.confidence_level * 100)
        parts = ", ".join(
            f"{name} = {format_number(self.params[i], 5)}"
            + (
                ""
                if not (math.isfinite(self.ci_low[i]) and math.isfinite(self.ci_high[i]))
                else f" [{format_number(self.ci_low[i], 5)}, {format_number(self.ci_high[i], 5)}]"
            )
            for i, name in enumerate(self.parameter_names)
        )
        return (
            f"calibration {self.status} ({self.weighting}): {parts} ({level} % CI, "
            f"dof = {self.dof}, S = {format_number(self.sse, 4)})"
        )


