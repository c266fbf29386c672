"""Work-per-second (WPS) regression: stable throughput from whole rounds.

A benchmark round that processes ``w`` units of work in ``t`` seconds passes through setup,
warm-up, stable and cool-down phases. With ``v`` the stable throughput (units/s),

    t = alpha + w / v,

where ``alpha`` (s) is the net overhead of the non-stable phases (documentation
``docs/algorithms/wps.md``; Pilot's documentation
``doc/features/warm-up-and-cool-down-phase-detection.rst``).
:func:`wps` fits this line to rounds of different work amounts, merging consecutive rounds into
subsessions until their rates are nearly uncorrelated, and reports ``v`` with an honest
(t-based, asymmetric) confidence interval.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._kernels.regression import block_line_fit
from pilotstats._stats import two_sided_t
from pilotstats._typing import (
    ArrayLike1D,
    Float64Array1D,
    Int64Array1D,
    MeanMethod,
    SubsessionBasis,
    WpsMethod,
)
from pilotstats._validation import (
    as_float_array,
    check_bool,
    check_choice,
    check_confidence_level,
    check_int,
    check_real,
    check_text,
)
from pilotstats.autocorrelation import optimal_subsession_size
from pilotstats.autocorrelation._blocks import check_autocorrelation_limit
from pilotstats.exceptions import (
    ConvergenceWarning,
    DegenerateDesignError,
    InvalidInputError,
    NotEnoughDataError,
    SubsessionSizeNotFoundError,
)
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    format_interval,
    format_number,
    format_quantity,
)

__all__ = ["WpsPrediction", "WpsResult", "wps"]

#: Pilot's fixed multiplier of the standard error (wps spec §7 item 3), ``method="pilot"`` only.
_PILOT_SE_MULTIPLIER = 2.0


def _invert_slope_interval(low: float, high: float) -> tuple[float, float, bool]:
    """Map a slope interval ``[low, high]`` (s/unit) to a throughput interval (units/s).

    ``1/x`` is decreasing on ``(0, inf)``, so ``[low, high]`` with ``low > 0`` maps to
    ``[1/high, 1/low]``. A slope interval reaching 0 cannot exclude arbitrarily fast
    throughput (upper end ``inf``); one wholly at or below 0 contains no positive
    throughput (``nan, nan``). Returns ``(low, high, bounded)`` (wps spec §3.5).
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
        interval = format_interval(low, high, self.confidence_level, "s")
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
        exclude an arbitrarily fast throughput) and both ends are NaN when the whole slope
        interval is at or below 0.
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
    _work_mean: float
    _work_sxx: float

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

        The slope interval inverted (wps spec §3.5): ``[1/slope_high, 1/slope_low]``, with an
        upper end of ``inf`` when the slope interval reaches 0.
        """
        level = self._level(confidence_level)
        if self.method == "pilot" or level == self.confidence_level:
            return ConfidenceInterval(self.throughput_ci_low, self.throughput_ci_high)
        low, high = self.slope_interval(level)
        v_low, v_high, _ = _invert_slope_interval(low, high)
        return ConfidenceInterval(v_low, v_high)

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
            with ``sigma2 = residual_std_error**2`` (wps spec §3.6). The fit is on block means,
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
        sigma2 = self.residual_std_error**2
        spread = sigma2 * (
            1.0 + 1.0 / self.n_subsessions + (values - self._work_mean) ** 2 / self._work_sxx
        )
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
        ``ŷ ± t_{h-2} s sqrt(1/h + (w - w̄)²/S_ww)`` on the block fit (wps spec §3.6), and
        the wider prediction band of :meth:`predict`. The title gives the throughput with
        its (asymmetric) confidence interval.

        Parameters
        ----------
        work, durations : array_like, shape (n_rounds,)
            The rounds the result was computed from (the result does not keep them);
            durations in seconds (auto-scaled to ms/µs/ns on the axis).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure). ``plt.show`` is never called.
        prediction_band : bool, default True
            Also draw the prediction band.
        title : str, optional
            Title (default: ``v`` with its confidence interval, q and h).

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        InvalidInputError
            The rounds are not finite 1-D arrays of length ``n_rounds``.
        MissingDependencyError
            matplotlib is not installed (``pip install "pilotstats[plot]"``).

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
        from pilotstats.regression._plots import plot_wps

        return plot_wps(
            self, work, durations, ax=ax, prediction_band=prediction_band, title=title
        )

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
        return (
            f"{head}, alpha = {format_quantity(self.alpha, 's')}, "
            f"q = {self.subsession_size}, h = {self.n_subsessions}, "
            f"rounds used = {self.n_rounds_used}/{self.n_rounds}"
        )


@dataclass(frozen=True, slots=True)
class _LineFit:
    """Internal: one block regression on a set of kept rounds."""

    kept: np.ndarray
    q: int
    h: int
    alpha: float
    beta: float
    ssr_blocks: float
    s_xx: float
    s_yy: float
    x_mean: float
    se_scale_sxx: float

    @property
    def valid(self) -> bool:
        return self.beta > 0.0


def _autocorrelation_series(
    w: Float64Array1D, d: Float64Array1D, basis: SubsessionBasis
) -> tuple[Float64Array1D | None, MeanMethod]:
    """The series whose lag-1 autocorrelation chooses ``q``; None when it is constant.

    ``"rates"``: per-round rates ``w/d`` with harmonic block means (wps spec §3.2, Pilot).
    ``"residuals"``: residuals of the round-level line fit, arithmetic block means. Rates
    depend on ``w`` whenever ``alpha != 0`` (``w/d = v / (1 + alpha v / w)``), so a design
    whose work amounts trend (the bisection order ascends within each level) makes the rates
    autocorrelated although the errors are not; residuals carry only the errors.
    Exactly constant rates or (numerically) zero residuals give None: ``q = 1``.
    """
    if basis == "rates":
        rates = w / d
        return (None if np.all(rates == rates[0]) else rates), "harmonic"
    alpha, beta, *_ = block_line_fit(w, d, 1, False)
    if not math.isfinite(beta):
        return None, "arithmetic"  # degenerate design, reported by the block fit
    residuals = d - (alpha + beta * w)
    if np.max(np.abs(residuals)) <= _config.WPS_ZERO_RESIDUAL_TOLERANCE * np.max(d):
        return None, "arithmetic"
    return residuals, "arithmetic"


def _fit_kept(
    work: Float64Array1D,
    durations: Float64Array1D,
    kept: np.ndarray,
    *,
    autocorrelation_limit: float,
    subsession_size: int | None,
    pilot: bool,
    basis: SubsessionBasis,
    describe_filter: str,
) -> _LineFit:
    """Choose q on the kept rounds and fit the block line (wps spec §3.2–§3.4)."""
    w = np.ascontiguousarray(work[kept])
    d = np.ascontiguousarray(durations[kept])
    n_kept = w.shape[0]
    if n_kept < 3:
        raise NotEnoughDataError(
            f"need at least 3 rounds {describe_filter}, got {n_kept} of {work.shape[0]}"
        )
    if float(np.max(d) - np.min(d)) <= _config.WPS_ZERO_RESIDUAL_TOLERANCE * float(np.max(d)):
        raise DegenerateDesignError(
            f"the durations of the {n_kept} rounds used are all equal (up to rounding, "
            f"{format_number(float(d[0]))} s) although their work amounts differ: the time "
            "does not measurably grow with the work, so the slope is rounding noise and the "
            "throughput undetermined; use larger work amounts (or a finer timer)"
        )
    if np.all(w == w[0]):
        raise DegenerateDesignError(
            f"the slope is not identifiable: all {n_kept} rounds used have the same work "
            f"amount ({format_number(float(w[0]), 10)}); the work amounts must differ between "
            "rounds"
        )
    if subsession_size is None:
        series, mean_method = _autocorrelation_series(w, d, basis)
        if series is None:
            found: int | None = 1
        else:
            found = optimal_subsession_size(
                series, autocorrelation_limit=autocorrelation_limit, mean_method=mean_method
            )
            if found is not None and _degenerate_blocks(w, found, pilot):
                # A cyclic schedule whose period divides q gives every block the same mean
                # work (e.g. w = tile([1, 2, 4, 8], k) with q = 4): skip such sizes and take
                # the next size that meets the limit and identifies the slope.
                found = _next_identifiable_size(
                    w, series, mean_method, found, autocorrelation_limit, pilot
                )
        if found is None:
            what = "per-round rates" if basis == "rates" else "per-round residuals"
            raise SubsessionSizeNotFoundError(
                f"no subsession size q in 1..{n_kept // 3} brings the lag-1 autocorrelation "
                f"of the {what} of the {n_kept} kept rounds within "
                f"autocorrelation_limit={autocorrelation_limit:g}; record more rounds, raise "
                "autocorrelation_limit or pass subsession_size"
            )
        q = int(found)
    else:
        q = subsession_size
    h = n_kept // q
    if h < 3:
        raise NotEnoughDataError(
            f"subsession_size={q} leaves {h} subsession(s) of the {n_kept} kept rounds; the "
            "regression needs at least 3 (two parameters plus one degree of freedom)"
        )
    alpha, beta, ssr_blocks, s_xx, s_yy, x_mean, _ = block_line_fit(w, d, q, pilot)
    x_max = float(np.max(w)) * (q if pilot else 1)
    if s_xx <= h * (_config.WPS_DEGENERATE_RELATIVE_TOLERANCE * x_max) ** 2:
        raise DegenerateDesignError(
            f"the slope is not identifiable: all {h} subsessions of {q} round(s) have the same "
            f"mean work amount ({format_number(float(x_mean), 10)}); the work amounts must "
            "differ between rounds"
        )
    if pilot:
        # Pilot's S_xx: the (h-1)-divisor variance of the block means of the kept work amounts
        # about their overall mean, times (number of input rounds - 1) (wps spec §7 item 5).
        block_means = w[: h * q].reshape(h, q).mean(axis=1)
        var_q = float(np.sum((block_means - w.mean()) ** 2) / (h - 1))
        se_scale_sxx = var_q * (work.shape[0] - 1)
    else:
        se_scale_sxx = float(s_xx)
    return _LineFit(
        kept=kept,
        q=q,
        h=h,
        alpha=float(alpha),
        beta=float(beta),
        ssr_blocks=float(ssr_blocks),
        s_xx=float(s_xx),
        s_yy=float(s_yy),
        x_mean=float(x_mean),
        se_scale_sxx=se_scale_sxx,
    )


def _degenerate_blocks(w: Float64Array1D, q: int, pilot: bool) -> bool:
    """Whether the block means of ``w`` for size ``q`` leave the slope unidentifiable."""
    h = w.shape[0] // q
    if h < 3:
        return False  # reported as "too few subsessions" by the caller
    blocks = w[: h * q].reshape(h, q).mean(axis=1) * (q if pilot else 1)
    spread = float(np.sum((blocks - blocks.mean()) ** 2))
    x_max = float(np.max(w)) * (q if pilot else 1)
    return bool(spread <= h * (_config.WPS_DEGENERATE_RELATIVE_TOLERANCE * x_max) ** 2)


def _next_identifiable_size(
    w: Float64Array1D,
    series: Float64Array1D,
    mean_method: MeanMethod,
    first: int,
    limit: float,
    pilot: bool,
) -> int | None:
    """Smallest ``q > first`` with ``|r1(q)| <= limit`` and a non-degenerate design.

    Falls back to ``first`` (the caller then reports the degenerate design) when no size
    up to ``n // 3`` qualifies. O(n) per size tried.
    """
    from pilotstats.autocorrelation import lag1_autocorrelation

    for q in range(first + 1, series.shape[0] // 3 + 1):
        if abs(lag1_autocorrelation(series, q, mean_method=mean_method)) <= limit and not (
            _degenerate_blocks(w, q, pilot)
        ):
            return q
    return first


def _alpha_filter(
    work: Float64Array1D,
    duration: Float64Array1D,
    base: np.ndarray,
    describe: str,
    fit_args: dict[str, Any],
) -> tuple[_LineFit, float | None]:
    """The alpha-based round filter (wps spec §5) with a deterministic end.

    Iterates ``kept = base & (w > -alpha v)`` from the fit on ``base``. It stops at a fixed
    point. If the kept sets cycle (two fits exclude each other's rounds), the fit of the
    cycle that keeps the most rounds (the earliest on a tie) is returned: a deterministic
    rule. A step that leaves no valid fit raises, as before. Returns the fit and the
    alpha-implied minimum work applied to obtain it (None when no round was excluded by it).
    """
    fit = _fit_kept(work, duration, base, describe_filter=describe, **fit_args)
    history: list[tuple[_LineFit, float | None]] = [(fit, None)]
    for n_fits in range(1, _config.WPS_MAX_FILTER_FITS + 1):
        candidate = _alpha_minimum(fit)
        kept = base if candidate is None else base & (work > candidate)
        if np.array_equal(kept, fit.kept):
            return fit, candidate
        for index, (earlier, _) in enumerate(history):
            if np.array_equal(kept, earlier.kept):
                cycle = history[index:]
                best = max(range(len(cycle)), key=lambda i: (int(cycle[i][0].kept.sum()), -i))
                return cycle[best]
        if n_fits == _config.WPS_MAX_FILTER_FITS:
            warnings.warn(
                f"the alpha-based round filter of wps did not settle after {n_fits} fits; "
                "returning the last fit",
                ConvergenceWarning,
                stacklevel=3,
            )
            return fit, history[-1][1]
        describe_alpha = (
            f"{describe} and a work amount above the alpha-implied minimum "
            f"{format_number(candidate)}"
        )
        fit = _fit_kept(work, duration, kept, describe_filter=describe_alpha, **fit_args)
        history.append((fit, candidate))
    return fit, history[-1][1]  # pragma: no cover - the loop always returns


def _alpha_minimum(fit: _LineFit) -> float | None:
    """Alpha-implied minimum work ``-alpha * v`` when ``alpha < 0`` and the fit is valid."""
    if fit.valid and fit.alpha < 0.0:
        return -fit.alpha / fit.beta
    return None


def _prediction_errors(
    work: Float64Array1D, durations: Float64Array1D, predicted: Float64Array1D
) -> tuple[float, float, float]:
    """``SSR``, ``RMSE`` and ``sqrt(SSR) / sum(d)`` of a predictor (wps spec §4)."""
    ssr = float(np.sum((durations - predicted) ** 2))
    return ssr, math.sqrt(ssr / work.shape[0]), math.sqrt(ssr) / float(np.sum(durations))


def wps(
    work: ArrayLike1D,
    durations: ArrayLike1D,
    *,
    confidence_level: float = 0.95,
    autocorrelation_limit: float = 0.1,
    min_round_duration: float = 0.0,
    subsession_size: int | None = None,
    alpha_filter: bool = True,
    method: WpsMethod | None = None,
    subsession_basis: SubsessionBasis = "rates",
    unit: str = "units",
) -> WpsResult:
    """Estimate stable throughput by work-per-second regression ``t = alpha + w / v``.

    Parameters
    ----------
    work : array_like, shape (n,)
        Work done by each round (units), finite and positive, in execution order.
    durations : array_like, shape (n,)
        Duration of each round in **seconds**, finite and positive, same order and length.
    confidence_level : float, default 0.95
        Level of every interval, in (0, 1).
    autocorrelation_limit : float, default 0.1
        Limit on the absolute lag-1 autocorrelation of the subsession rates, in (0, 1].
    min_round_duration : float, default 0.0
        Rounds shorter than this (s) are excluded (too short to time reliably).
    subsession_size : int, optional
        Rounds per subsession; bypasses the autocorrelation scan. Must leave ``h >= 3``.
    alpha_filter : bool, default True
        Also exclude rounds whose work is not above the alpha-implied minimum ``-alpha * v``,
        iterating to a fixed point (wps spec §5). If the kept sets cycle instead, the fit of
        the cycle that keeps the most rounds (the earliest on a tie) is returned. With an
        automatic subsession size, the filter is run again with the size it found, so the
        result equals ``wps(..., subsession_size=result.subsession_size)``.
    method : {None, "default", "pilot"}, optional
        ``"pilot"`` reproduces Pilot v0.14 exactly, including its defects (strict duration
        filter, no alpha filter, regression on block sums, Pilot's ``S_xx``, fixed ``2 SE``
        interval and absolute inverted width, wps spec §7.1). Only for comparison with Pilot.
    subsession_basis : {"rates", "residuals"}, default "rates"
        Series whose lag-1 autocorrelation chooses the subsession size: the per-round rates
        ``w/d`` (harmonic block means; Pilot and wps spec §3.2) or the residuals of the
        round-level line fit (arithmetic block means). Rates vary with ``w`` whenever
        ``alpha != 0``, so work amounts that trend (as in the bisection order) make them
        autocorrelated although the errors are not, and the scan then merges far more rounds
        than needed; ``"residuals"`` measures the correlation of the errors only and is what
        :class:`~pilotstats.regression.WorkPlanner` and
        :class:`~pilotstats.session.BenchmarkSession` use by default.
    unit : str, default "units"
        Label of the work unit, used in text output.

    Returns
    -------
    WpsResult
        Overhead ``alpha``, slope ``1/v`` and throughput ``v`` with intervals, subsession
        size, goodness of fit and prediction-error metrics.

    Raises
    ------
    InvalidInputError
        Mismatched lengths, NaN/inf, non-positive work or durations, bad parameters.
    NotEnoughDataError
        Fewer than 3 rounds survive the filters, or ``subsession_size`` leaves fewer than 3
        subsessions.
    SubsessionSizeNotFoundError
        No subsession size brings the lag-1 autocorrelation of the rates within the limit.
    DegenerateDesignError
        All subsessions have the same mean work amount, or all durations are equal up to
        rounding: the slope is not identifiable.

    Warns
    -----
    ConvergenceWarning
        The alpha filter has neither settled nor cycled after
        ``_config.WPS_MAX_FILTER_FITS`` fits.

    See Also
    --------
    pilotstats.regression.WorkPlanner : chooses the work amounts of the next rounds.
    pilotstats.autocorrelation.optimal_subsession_size : the subsession-size scan.

    Notes
    -----
    Model (wps spec §1): ``t = t_su + t_wu + t_st + t_cd``, ``v = w_st / t_st``, hence
    ``t = alpha + w / v`` with ``alpha = t_su + t_wu + t_cd - (w_wu + w_cd) / v``.

    Estimator (wps spec §3): the per-round rates ``w_i / t_i`` choose the subsession size
    ``q`` (harmonic block means, first ``q`` with ``|r1| <= autocorrelation_limit``); the
    ``h = floor(N/q)`` blocks of consecutive kept rounds are averaged, ``X_j`` = mean work,
    ``Y_j`` = mean duration (averaging preserves ``alpha``; Pilot's block sums multiply it by
    ``q``), and ordinary least squares on ``(X_j, Y_j)`` gives ``alpha`` and ``beta = 1/v``
    with ``se_beta = sqrt(sigma2 / S_xx)``, ``sigma2 = SSR / (h - 2)``. The slope interval is
    ``beta +/- t_{h-2}((1 + c)/2) se_beta``; inverting it (``1/x`` is decreasing) gives the
    asymmetric throughput interval ``[1/beta_hi, 1/beta_lo]``, unbounded above when
    ``beta_lo <= 0``. Pilot instead reports ``|1/(beta - 2SE) - 1/(beta + 2SE)|``, which
    explodes and changes sign when ``2 SE >= beta`` (spec §7 items 3–4).

    The interval assumes errors of constant variance. When timing noise grows with the
    round duration (multiplicative noise) it is too narrow: in simulated sessions with 2 %
    multiplicative noise the 95 % interval covered the truth in about 88 % of runs (94 % with
    additive noise).

    Complexity: O(n log n) per fit (the subsession-size scan) and at most
    ``2·_config.WPS_MAX_FILTER_FITS`` fits with the alpha filter; O(n) memory.

    References
    ----------
    .. [1] Y. Li, Y. Ji, I. Kim, E. Miller, D. Long and C. Maltzahn, "Pilot: A Framework
       that Understands How to Do Performance Benchmarks the Right Way", MASCOTS 2016;
       Pilot documentation, "Warm-up and cool-down phase detection" (WPS method).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import wps
    >>> work = np.array([50, 100, 50, 100, 80, 60, 90, 70.0])
    >>> durations = -2.0 + work / 1.5
    >>> result = wps(work, durations, autocorrelation_limit=1.0)
    >>> round(result.throughput, 9), round(result.alpha, 9)
    (1.5, -2.0)
    """
    w = as_float_array(work, "work", positive=True)
    duration = as_float_array(durations, "durations", positive=True)
    if w.shape[0] != duration.shape[0]:
        raise InvalidInputError(
            f"work and durations must have the same length (one entry per round), "
            f"got {w.shape[0]} and {duration.shape[0]}"
        )
    level = check_confidence_level(confidence_level)
    limit = check_autocorrelation_limit(autocorrelation_limit)
    threshold = check_real(min_round_duration, "min_round_duration", low=0.0)
    q_given = (
        None if subsession_size is None else check_int(subsession_size, "subsession_size", low=1)
    )
    chosen = "default" if method is None else check_choice(method, "method", ("default", "pilot"))
    pilot = chosen == "pilot"
    basis = check_choice(subsession_basis, "subsession_basis", ("rates", "residuals"))
    if pilot and basis != "rates":
        raise InvalidInputError(
            'method="pilot" chooses q from the rates; use subsession_basis="rates"'
        )
    alpha_filter = check_bool(alpha_filter, "alpha_filter")
    unit = check_text(unit, "unit")

    if pilot:
        base = duration > threshold
        describe = f"longer than min_round_duration={threshold:g} s"
    else:
        base = duration >= threshold
        describe = f"with a duration of at least min_round_duration={threshold:g} s"
    fit_args: dict[str, Any] = {
        "autocorrelation_limit": limit,
        "subsession_size": q_given,
        "pilot": pilot,
        "basis": basis,
    }
    min_work: float | None = None
    if alpha_filter and not pilot:
        fit, min_work = _alpha_filter(w, duration, base, describe, fit_args)
        if q_given is None:
            # The subsession size may change from one filter step to the next; the answer
            # is the explicit-q answer for the size found, so wps(w, t) and
            # wps(w, t, subsession_size=result.subsession_size) agree by construction.
            # An error here is the error the explicit call raises (the size does not fit
            # a filtered set), so auto and explicit q agree on failures too.
            fit, min_work = _alpha_filter(
                w, duration, base, describe, {**fit_args, "subsession_size": fit.q}
            )
    else:
        fit = _fit_kept(w, duration, base, describe_filter=describe, **fit_args)
    return _build_result(
        w, duration, fit, level, limit, threshold, min_work, chosen, basis, unit
    )


def _build_result(
    work: Float64Array1D,
    duration: Float64Array1D,
    fit: _LineFit,
    level: float,
    limit: float,
    threshold: float,
    min_work: float | None,
    method: str,
    basis: str,
    unit: str,
) -> WpsResult:
    """Intervals and prediction metrics of a finished fit (wps spec §3.5, §3.6, §4)."""
    pilot = method == "pilot"
    dof = fit.h - 2
    sigma2 = fit.ssr_blocks / dof
    se_beta = math.sqrt(sigma2 / fit.se_scale_sxx)
    se_alpha = math.sqrt(sigma2 * (1.0 / fit.h + fit.x_mean**2 / fit.se_scale_sxx))
    multiplier = _PILOT_SE_MULTIPLIER if pilot else two_sided_t(level, dof)
    slope_low = fit.beta - multiplier * se_beta
    slope_high = fit.beta + multiplier * se_beta
    throughput = 1.0 / fit.beta if fit.valid else math.nan
    if pilot:
        # Pilot's reported width |1/(beta - 2SE) - 1/(beta + 2SE)|, centred on v (spec §7.1).
        width = abs(1.0 / slope_low - 1.0 / slope_high) if se_beta > 0 else 0.0
        v_low, v_high = throughput - width / 2, throughput + width / 2
        bounded = math.isfinite(width) and fit.valid
    else:
        v_low, v_high, bounded = _invert_slope_interval(slope_low, slope_high)
    r_squared = 1.0 - fit.ssr_blocks / fit.s_yy if fit.s_yy > 0 else 1.0

    kept = fit.kept
    w_used, d_used = work[kept], duration[kept]
    ssr, rmse, relative = _prediction_errors(w_used, d_used, fit.alpha + fit.beta * w_used)
    ssr_all, _, relative_all = _prediction_errors(work, duration, fit.alpha + fit.beta * work)
    if pilot:
        ssr = ssr_all
    naive = float(np.sum(w_used) / np.sum(d_used))
    naive_ssr, _, naive_relative = _prediction_errors(w_used, d_used, w_used / naive)
    rounds_used = np.flatnonzero(kept).astype(np.int64)
    rounds_used.setflags(write=False)
    return WpsResult(
        alpha=fit.alpha,
        alpha_ci_low=fit.alpha - multiplier * se_alpha,
        alpha_ci_high=fit.alpha + multiplier * se_alpha,
        alpha_stderr=se_alpha,
        slope=fit.beta,
        slope_ci_low=slope_low,
        slope_ci_high=slope_high,
        slope_stderr=se_beta,
        throughput=throughput,
        throughput_ci_low=float(v_low),
        throughput_ci_high=float(v_high),
        subsession_size=fit.q,
        n_subsessions=fit.h,
        dof=dof,
        n_rounds=int(work.shape[0]),
        n_rounds_used=int(rounds_used.shape[0]),
        rounds_used=rounds_used,
        r_squared=float(r_squared),
        residual_std_error=math.sqrt(sigma2),
        ssr=ssr,
        rmse=rmse,
        relative_error=relative,
        ssr_all=ssr_all,
        relative_error_all=relative_all,
        naive_throughput=naive,
        naive_ssr=naive_ssr,
        naive_relative_error=naive_relative,
        min_round_duration=threshold,
        min_work=None if min_work is None else float(min_work),
        valid=fit.valid,
        bounded=bool(bounded),
        confidence_level=level,
        autocorrelation_limit=limit,
        method=method,
        subsession_basis=basis,
        unit=unit,
        _work_mean=fit.x_mean,
        _work_sxx=fit.s_xx,
    )
