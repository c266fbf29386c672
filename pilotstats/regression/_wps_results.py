"""Results of the WPS regression: :class:`WpsResult` and its predictions, :class:`WpsPrediction`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats._stats import two_sided_t
from pilotstats._typing import ArrayLike1D, Float64Array1D, Int64Array1D
from pilotstats._validation import as_float_array, check_confidence_level
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    draw,
    format_interval,
    format_number,
    format_quantity,
    plot_doc,
)

__all__ = ["WpsPrediction", "WpsResult"]


def _invert_slope_interval(low: float, high: float) -> tuple[float, float, bool]:
    """Map a slope interval ``[low, high]`` (s/unit) to a throughput interval (units/s).

    ``1/x`` is decreasing on ``(0, inf)``, so ``[low, high]`` with ``low > 0`` maps to
    ``[1/high, 1/low]``. A slope interval reaching 0 cannot exclude arbitrarily fast
    throughput (upper end ``inf``); one wholly at or below 0 contains no positive
    throughput (``nan, nan``). Returns ``(low, high, bounded)``.
    """
    if low > 0.0:
        return 1.0 / high, 1.0 / low, True
    if high > 0.0:
        return 1.0 / high, math.inf, False
    return math.nan, math.nan, False


@dataclass(frozen=True, slots=True)
class WpsPrediction(Result):
    """Predicted round duration with a prediction interval (see :meth:`WpsResult.predict`).

    Attributes
    ----------
    work : float or ndarray
        Work amounts the prediction is for.
    duration : float or ndarray
        Predicted duration ``alpha + work / v`` (s).
    low, high : float or ndarray
        Prediction interval (s). For ``subsession_size > 1`` it is the interval for the mean
        duration of ``subsession_size`` rounds run at ``work`` (the fit is on block means).
    confidence_level : float
        Level of the interval.
    subsession_size : int
        Rounds per subsession of the underlying fit.

    Examples
    --------
    Returned by :meth:`WpsResult.predict`:

    >>> import numpy as np
    >>> from pilotstats.regression import wps
    >>> work = np.array([50, 100, 50, 100, 80, 60, 90, 70.0])
    >>> durations = -2.0 + work / 1.5 + 0.1 * np.sin(np.arange(8))  # v = 1.5, alpha = -2
    >>> result = wps(work, durations, autocorrelation_limit=1.0)
    >>> print(result.predict(120))
    duration 78.01 s at work 120 (95 % PI [77.76, 78.27] s)
    """

    work: float | Float64Array1D
    duration: float | Float64Array1D
    low: float | Float64Array1D
    high: float | Float64Array1D
    confidence_level: float
    subsession_size: int

    def __str__(self) -> str:
        if isinstance(self.duration, np.ndarray):
            return (
                f"predicted durations for {self.duration.size} work amounts "
                f"({format_number(self.confidence_level * 100, 6)} % prediction intervals)"
            )
        low, high, work = float(self.low), float(self.high), float(self.work)  # type: ignore[arg-type]
        interval = format_interval(low, high, self.confidence_level, "s",
                                   estimate=float(self.duration))  # type: ignore[arg-type]
        interval = interval.replace("% CI", "% PI")
        return (
            f"duration {format_quantity(self.duration, 's')} at work "
            f"{format_number(work)} ({interval})"
        )


@dataclass(frozen=True, slots=True)
class WpsResult(Result):
    """Result of :func:`wps`: stable throughput ``v`` and overhead ``alpha`` of ``t = alpha + w/v``.

    Attributes
    ----------
    alpha : float
        Net overhead of the non-stable phases (s); negative when warm-up is faster than the
        stable phase.
    alpha_ci_low, alpha_ci_high : float
        Confidence interval of ``alpha`` (s), ``alpha +/- t_{h-2} * alpha_stderr``.
    alpha_stderr : float
        Standard error of ``alpha`` (s).
    slope : float
        ``beta = 1/v`` (s per unit of work).
    slope_ci_low, slope_ci_high : float
        t-based confidence interval of the slope with ``h - 2`` degrees of freedom.
    slope_stderr : float
        Standard error of the slope.
    throughput : float
        Stable throughput ``v = 1/slope`` (units/s); NaN when the slope is not positive.
    throughput_ci_low, throughput_ci_high : float
        Interval of ``v`` obtained by inverting the slope interval; asymmetric about ``v``.
        ``throughput_ci_high`` is ``inf`` when the slope interval reaches 0 (the data cannot
        exclude an arbitrarily fast throughput). Both ends are NaN when the throughput is
        undetermined (``valid`` False: the slope estimate is at or below 0, even if its
        interval reaches positive slopes), so an undetermined throughput never carries a
        finite bound.
    subsession_size : int
        Rounds merged per subsession (q).
    n_subsessions : int
        Number of subsessions in the fit (h).
    dof : int
        Degrees of freedom of the t quantiles, ``h - 2``.
    n_rounds : int
        Rounds given.
    n_rounds_used : int
        Rounds kept by the duration and alpha filters (trailing rounds included).
    rounds_used : ndarray of int64
        Indices (into the input) of the kept rounds.
    r_squared : float
        Coefficient of determination of the block fit.
    residual_std_error : float
        ``sqrt(SSR_blocks / (h - 2))`` (s), the residual standard error of the block fit.
    ssr, rmse, relative_error : float
        Squared prediction error of the WPS line over the used rounds (s²), its root mean
        (s) and ``sqrt(ssr) / sum(durations)`` (the prediction error relative to total time).
    ssr_all, relative_error_all : float
        The same over all input rounds.
    naive_throughput : float
        ``sum(w) / sum(t)`` over the used rounds, the naive estimate, for contrast.
    naive_ssr, naive_relative_error : float
        Prediction error of the naive predictor ``w / naive_throughput`` over the used rounds.
    min_round_duration : float
        Duration threshold of the round filter (s).
    min_work : float or None
        Final alpha-implied minimum work amount ``-alpha * v`` used by the filter, or None.
    valid : bool
        The slope is positive (``throughput`` is defined).
    bounded : bool
        The throughput interval is finite.
    confidence_level : float
        Level of the intervals.
    autocorrelation_limit : float
        Limit used to choose the subsession size.
    method : str
        ``"default"`` or ``"pilot"``.
    subsession_basis : str
        ``"rates"`` or ``"residuals"``: the series that chose ``subsession_size``.
    unit : str
        Label of the work unit (throughput is in ``unit``/s).
    estimator : str
        ``"ols"``, ``"wls"`` or ``"huber"``: how the line was fitted to the subsession means.
        For ``wls``/``huber`` the noise standard deviation is proportional to the expected
        duration and ``residual_std_error`` is its value at the mean fitted duration.
    lack_of_fit : bool
        The lack-of-fit test rejected the straight line at ``lack_of_fit_level``: the
        durations are not linear in the work (the interval of ``v`` then describes a line
        that does not hold). A :class:`~pilotstats.exceptions.LackOfFitWarning` was emitted.
    lack_of_fit_p_value : float
        p-value of that test; NaN when no test is possible (``lack_of_fit_test == "none"``).
    lack_of_fit_test : str
        ``"pure error"`` (replicated work amounts), ``"quadratic"`` (a quadratic-term test,
        no replicates) or ``"none"`` (fewer than 3 distinct work amounts or 4 rounds).
    lack_of_fit_level : float
        Significance level of the lack-of-fit test.
    notes : tuple of str
        What the fit had to give up, e.g. no subsession size met ``autocorrelation_limit``
        and the least correlated size was used (the interval may then be too narrow).

    Examples
    --------
    Returned by :func:`wps`:

    >>> import numpy as np
    >>> from pilotstats.regression import wps
    >>> work = np.array([50, 100, 50, 100, 80, 60, 90, 70.0])
    >>> durations = -2.0 + work / 1.5 + 0.1 * np.sin(np.arange(8))  # v = 1.5, alpha = -2
    >>> result = wps(work, durations, autocorrelation_limit=1.0)
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    v = 1.5 units/s (95 % CI [1.492, 1.507] units/s), alpha = -2.005 s, q = 1, h = 8,
    rounds used = 8/8
    >>> low, high = result.confidence_interval()
    >>> bool(low < 1.5 < high)
    True
    """

    alpha: float
    alpha_ci_low: float
    alpha_ci_high: float
    alpha_stderr: float
    slope: float
    slope_ci_low: float
    slope_ci_high: float
    slope_stderr: float
    throughput: float
    throughput_ci_low: float
    throughput_ci_high: float
    subsession_size: int
    n_subsessions: int
    dof: int
    n_rounds: int
    n_rounds_used: int
    rounds_used: Int64Array1D
    r_squared: float
    residual_std_error: float
    ssr: float
    rmse: float
    relative_error: float
    ssr_all: float
    relative_error_all: float
    naive_throughput: float
    naive_ssr: float
    naive_relative_error: float
    min_round_duration: float
    min_work: float | None
    valid: bool
    bounded: bool
    confidence_level: float
    autocorrelation_limit: float
    method: str
    subsession_basis: str
    unit: str
    estimator: str
    lack_of_fit: bool
    lack_of_fit_p_value: float
    lack_of_fit_test: str
    lack_of_fit_level: float
    notes: tuple[str, ...]
    _work_mean: float
    _work_sxx: float
    _covariance: tuple[float, float, float]
    _reference_duration: float

    def _mean_variance(self, work: np.ndarray) -> np.ndarray:
        """Variance (s^2) of the fitted mean duration at ``work`` (a block mean's scale)."""
        if self.estimator == "ols":
            return np.asarray(
                self.residual_std_error**2
                * (1.0 / self.n_subsessions + (work - self._work_mean) ** 2 / self._work_sxx)
            )
        var_a, cov_ab, var_b = self._covariance
        return np.asarray(var_a + 2.0 * work * cov_ab + work**2 * var_b)

    def _noise_variance(self, work: np.ndarray) -> np.ndarray:
        """Variance (s^2) of one block mean around the line at ``work`` (the variance model)."""
        sigma2 = self.residual_std_error**2
        if self.estimator == "ols":
            return np.full(np.shape(work), sigma2)
        mu = np.maximum(self.alpha + self.slope * work, 0.0)
        return np.asarray(sigma2 * (mu / self._reference_duration) ** 2)

    @property
    def throughput_half_width(self) -> float:
        """Half the width of the throughput interval, ``(high - low) / 2`` (units/s).

        The interval is asymmetric about ``throughput``, so this is not the distance to
        either end; ``inf`` when the interval is unbounded, NaN when it is empty.
        """
        return (self.throughput_ci_high - self.throughput_ci_low) / 2.0

    def _extra_dict(self) -> dict[str, Any]:
        return {"throughput_half_width": self.throughput_half_width}

    def _level(self, confidence_level: float | None) -> float:
        if confidence_level is None:
            return self.confidence_level
        return check_confidence_level(confidence_level)

    def slope_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Confidence interval of the slope ``1/v`` (s/unit).

        ``slope +/- t_{h-2}((1 + c)/2) * slope_stderr``; ``None`` means the stored level.
        Under ``method="pilot"`` the interval is Pilot's fixed ``slope +/- 2 SE`` whatever
        the level.
        """
        level = self._level(confidence_level)
        if self.method == "pilot" or level == self.confidence_level:
            return ConfidenceInterval(self.slope_ci_low, self.slope_ci_high)
        half = two_sided_t(level, self.dof) * self.slope_stderr
        return ConfidenceInterval(self.slope - half, self.slope + half)

    def alpha_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Confidence interval of the overhead ``alpha`` (s), t-based with ``h - 2`` dof."""
        level = self._level(confidence_level)
        if self.method == "pilot" or level == self.confidence_level:
            return ConfidenceInterval(self.alpha_ci_low, self.alpha_ci_high)
        half = two_sided_t(level, self.dof) * self.alpha_stderr
        return ConfidenceInterval(self.alpha - half, self.alpha + half)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Confidence interval of the throughput ``v`` (units/s).

        The slope interval inverted: ``[1/slope_high, 1/slope_low]``, with an
        upper end of ``inf`` when the slope interval reaches 0; ``(nan, nan)`` when the
        throughput is undetermined (``valid`` False).
        """
        level = self._level(confidence_level)
        if not self.valid:
            return ConfidenceInterval(math.nan, math.nan)
        if self.method == "pilot" or level == self.confidence_level:
            return ConfidenceInterval(self.throughput_ci_low, self.throughput_ci_high)
        low, high = self.slope_interval(level)
        v_low, v_high, _ = _invert_slope_interval(low, high)
        return ConfidenceInterval(v_low, v_high)

    def mean_duration_interval(
        self, work: ArrayLike1D, *, confidence_level: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Confidence band of the mean duration ``alpha + work * slope`` at each ``work``.

        ``duration +/- t_{h-2}((1 + c)/2) * sqrt(var(fitted mean))``, the variance of the
        fitted line at ``work`` (on the scale of a block mean); ``None`` means the stored
        level.

        Parameters
        ----------
        work : array_like
            Work amounts.
        confidence_level : float, optional
            Level of the band; the result's level when None.

        Returns
        -------
        low, high : ndarray
            The ends of the band, of the shape of ``work`` (s).
        """
        level = self._level(confidence_level)
        values = np.asarray(work, dtype=float)
        fitted = self.alpha + self.slope * values
        t = two_sided_t(level, self.dof)
        spread = np.sqrt(self._mean_variance(values))
        return fitted - t * spread, fitted + t * spread

    def predict(
        self, work: ArrayLike1D | float, *, confidence_level: float | None = None
    ) -> WpsPrediction:
        """Predict the duration of a round of ``work`` units, with a prediction interval.

        Parameters
        ----------
        work : float or array_like
            Work amount(s), finite and positive.
        confidence_level : float, optional
            Level of the interval; the result's level when None.

        Returns
        -------
        WpsPrediction
            ``duration = alpha + work * slope`` and the interval
            ``duration +/- t_{h-2}((1 + c)/2) * sqrt(sigma2 (1 + 1/h + (w - Xbar)^2 / S_xx))``
            with ``sigma2 = residual_std_error**2`` (``ols``; for ``wls``/``huber`` the
            noise variance follows the variance model and the mean's variance comes from
            the fitted covariance). The fit is on block means,
            so for ``subsession_size > 1`` this is the interval for the mean duration of
            ``subsession_size`` rounds at ``work``.

        Raises
        ------
        InvalidInputError
            Non-positive or non-finite work amounts.
        """
        level = self._level(confidence_level)
        scalar = np.ndim(work) == 0
        values = as_float_array(np.atleast_1d(np.asarray(work)), "work", positive=True)
        duration = self.alpha + values * self.slope
        if self.estimator == "ols":
            sigma2 = self.residual_std_error**2
            spread = sigma2 * (
                1.0 + 1.0 / self.n_subsessions + (values - self._work_mean) ** 2 / self._work_sxx
            )
        else:
            spread = self._noise_variance(values) + self._mean_variance(values)
        half = two_sided_t(level, self.dof) * np.sqrt(spread)
        low = duration - half
        high = duration + half
        if scalar:
            return WpsPrediction(
                float(values[0]),
                float(duration[0]),
                float(low[0]),
                float(high[0]),
                level,
                self.subsession_size,
            )
        for array in (values, duration, low, high):
            array.setflags(write=False)
        return WpsPrediction(values, duration, low, high, level, self.subsession_size)

    @plot_doc
    def plot(
        self,
        work: ArrayLike1D,
        durations: ArrayLike1D,
        *,
        ax: Any = None,
        prediction_band: bool = True,
        title: str | None = None,
    ) -> Any:
        """Draw the rounds, the fitted line ``t = alpha + w/v`` and its bands (needs matplotlib).

        Rounds kept by the filters are filled dots, excluded ones hollow. Around the line:
        the confidence band of the mean duration,
        ``ŷ ± t_{h-2} s sqrt(1/h + (w - w̄)²/S_ww)`` on the block fit, and
        the wider prediction band of :meth:`predict`. The title gives the throughput with
        its (asymmetric) confidence interval.

        Parameters
        ----------
        work, durations : array_like, shape (n_rounds,)
            The rounds the result was computed from (the result does not keep them);
            durations in seconds (auto-scaled to ms/µs/ns on the axis).
        {ax}
        prediction_band : bool, default True
            Also draw the prediction band.
        title : str, optional
            Title (default: ``v`` with its confidence interval, q and h).

        {returns}

        Raises
        ------
        InvalidInputError
            The rounds are not finite 1-D arrays of length ``n_rounds``.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.regression import wps
        >>> rng = np.random.default_rng(0)
        >>> w = rng.uniform(100, 1000, 60)
        >>> t = 0.5 + w / 200.0 + rng.normal(0, 0.05, 60)
        >>> ax = wps(w, t, unit="requests").plot(w, t)
        >>> ax.get_xlabel(), ax.get_ylabel()
        ('work per round (requests)', 'round duration (s)')
        """
        return draw(self, work, durations, ax=ax, prediction_band=prediction_band, title=title)

    def __str__(self) -> str:
        rate_unit = f"{self.unit}/s"
        if not self.valid:
            head = f"v undetermined (slope {format_number(self.slope)} s/{self.unit} <= 0)"
        else:
            low, high = self.throughput_ci_low, self.throughput_ci_high
            interval = format_interval(low, high, self.confidence_level, rate_unit)
            if math.isinf(high):
                interval = interval.replace(", inf]", ", inf)")
            head = f"v = {format_quantity(self.throughput, rate_unit)} ({interval})"
        text = (
            f"{head}, alpha = {format_quantity(self.alpha, 's')}, "
            f"q = {self.subsession_size}, h = {self.n_subsessions}, "
            f"rounds used = {self.n_rounds_used}/{self.n_rounds}"
        )
        if self.estimator != "ols":
            text += f", estimator {self.estimator}"
        if self.notes:
            text += f"; {len(self.notes)} note(s) in result.notes"
        if self.lack_of_fit:
            text += (
                f"; LACK OF FIT: not linear in the work "
                f"({self.lack_of_fit_test} test p = {format_number(self.lack_of_fit_p_value, 2)})"
            )
        return text
