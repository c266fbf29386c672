"""Statistically guarded change-point detection: EDM candidates confirmed by a test.

Public: :func:`detect_changes`. Documentation ``docs/algorithms/detect-changes.md`` (the
significance guard, and its candidates from EDM-percent with Pilot's parameters).

The faithful :func:`~pilotstats.changepoints.edm` tests nothing: with EDM-percent the first
change point is accepted whatever the data, so on pure noise it reports a change almost
surely. :func:`detect_changes` keeps EDM as the *candidate* generator and removes every
candidate that a significance test does not confirm (*Algorithms › detect_changes*,
``docs/algorithms/detect-changes.md``).

This module holds :func:`detect_changes` and its result :class:`DetectedChangePoints`; the
scan statistics and scanners are in :mod:`pilotstats.changepoints._detect_scan` and the
guard (backward elimination and re-scans) in :mod:`pilotstats.changepoints._detect_guard`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import arithmetic_scale
from pilotstats._typing import ArrayLike1D, ChangeTest, Float64Array1D, RandomState
from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_int,
    check_probability,
    check_rng,
    check_text,
    coerce_rng,
)
from pilotstats.changepoints._detect_guard import _guard, _Guarded, _refit_needed
from pilotstats.changepoints._detect_scan import (
    _absolute_steps,
    _candidate_locations,
    _PermutationScanner,
    _rank_residual_autocorrelation,
    _RankScanner,
    _Scanner,
    _segment_residual_autocorrelation,
    _variance_inflation,
)
from pilotstats.changepoints._results import ChangePoints, keeps_index, make_segments
from pilotstats.exceptions import InvalidInputError

__all__ = ["DetectedChangePoints", "detect_changes"]


@dataclass(frozen=True, slots=True)
class DetectedChangePoints(ChangePoints):
    """:class:`ChangePoints` of :func:`detect_changes` with the guard's diagnostics.

    Attributes
    ----------
    candidates : tuple of int
        EDM-percent candidates before the significance guard.
    statistics : tuple of float
        Maximal standardized rank statistic of each reported change point (its window
        scan, after the variance inflation).
    rank_autocorrelation : float
        Lag-1 autocorrelation of the ranks of the residuals (data minus running median);
        0.0 when there was no candidate.
    variance_inflation : float
        ``(1 + ρ)/(1 − ρ)`` applied to the null variance (1 when ρ <= 0).
    change_types : tuple of str
        What each reported change point changes: ``"level"``, or ``"variance"`` when
        ``detect_changes(..., variance_changes=True)`` found its window's scale test the more
        significant.
    guard_passes : int
        Re-scan passes the guard made, summed over its runs (at most
        ``_config.DETECT_MAX_GUARD_PASSES`` = 8 per run and ``1 + _config.DETECT_MAX_REFITS``
        = 4 runs; 0 when nothing was searched): a diagnostic of the cost, bounded by a
        constant.
    (All other attributes: see :class:`ChangePoints`.)

    Examples
    --------
    Returned by :func:`detect_changes`; besides the accepted change points it keeps the
    EDM candidates the significance guard examined (here the spurious candidate 33 is
    rejected and 63 is refined to the true change at 60):

    >>> import numpy as np
    >>> from pilotstats.changepoints import detect_changes
    >>> rng = np.random.default_rng(7)
    >>> x = np.concatenate([rng.normal(12.0, 1.0, 60), rng.normal(10.0, 1.0, 240)])
    >>> result = detect_changes(x)
    >>> result.candidates, result.locations
    ((33, 63), (61,))
    >>> result.variance_inflation  # ranks not positively autocorrelated: no inflation
    1.0
    >>> print(result)  # doctest: +ELLIPSIS
    detect_changes: 1 change point at [61] (p = [2.03e-22], rank) (n = 300, ...)
    """

    candidates: tuple[int, ...] = ()
    statistics: tuple[float, ...] = ()
    rank_autocorrelation: float = 0.0
    variance_inflation: float = 1.0
    change_types: tuple[str, ...] = ()
    guard_passes: int = 0

    def __post_init__(self) -> None:
        ChangePoints.__post_init__(self)
        kinds = tuple(str(k) for k in self.change_types) or ("level",) * len(self.locations)
        if len(kinds) != len(self.locations) or not set(kinds) <= {"level", "variance"}:
            raise InvalidInputError(
                f"change_types must hold one of 'level'/'variance' per change point "
                f"({len(self.locations)}), got {self.change_types!r}"
            )
        object.__setattr__(self, "change_types", kinds)
        object.__setattr__(self, "guard_passes", int(self.guard_passes))
        object.__setattr__(self, "candidates", tuple(int(c) for c in self.candidates))
        object.__setattr__(self, "statistics", tuple(float(s) for s in self.statistics))
        object.__setattr__(self, "rank_autocorrelation", float(self.rank_autocorrelation))
        object.__setattr__(self, "variance_inflation", float(self.variance_inflation))
        if len(self.statistics) != len(self.locations):
            raise InvalidInputError(
                f"statistics must have one entry per change point ({len(self.locations)}), "
                f"got {len(self.statistics)}"
            )


def _check_significance_level(value: Any) -> float:
    return check_probability(value, "significance_level")


@keeps_index
def detect_changes(
    x: ArrayLike1D,
    *,
    min_size: int = 30,
    significance_level: float = 0.05,
    rng: RandomState = None,
    test: ChangeTest = "rank",
    n_permutations: int = 199,
    location_tolerance: int = _config.DETECT_LOCATION_TOLERANCE,
    variance_changes: bool | None = None,
    unit: str | None = None,
) -> DetectedChangePoints:
    """Change points confirmed by a significance test (EDM candidates + backward elimination).

    Candidates come from EDM-percent with Pilot's parameters (percent 0.25, degree 1) on the
    range-scaled series; each candidate is then tested against its two neighbours and the
    least significant one is removed until every remaining change point passes; confirmed
    segments are finally re-scanned for a change EDM missed. The result
    is deterministic, invariant under ``x → a·x + b`` (a > 0), robust to isolated spikes
    (ranks and medians only) and stays quiet on stationary noise, autocorrelated or not.

    Parameters
    ----------
    x : array_like, shape (n,)
        Measurements in time order (finite).
    min_size : int, default 30
        Minimum segment length in observations, δ >= 2: every segment between two change
        points holds at least this many observations (Pilot's
        ``MIN_CHANGEPOINT_DETECTION_SAMPLE_SIZE``).
    significance_level : float in (0, 1), default 0.05
        False-alarm level the detector is calibrated to: on a stationary series, the
        probability of reporting any change point is at most about this value. Each change
        point is kept when its selection-adjusted p-value is at most
        ``_config.DETECT_THRESHOLD_FACTOR * significance_level`` (0.005 at the default).
    rng : None, int or numpy.random.Generator, optional
        Randomness of ``test="permutation"`` (required there, so that a seed fixes the
        result). The default ``"rank"`` test uses no randomness and ignores it.
    test : {"rank", "permutation"}, default "rank"
        Significance test (see Notes). ``"rank"``: Mann–Whitney scan with an analytic,
        selection-adjusted and autocorrelation-aware p-value. ``"permutation"``: the EDM
        median contrast with a permutation p-value; it assumes exchangeable samples (on
        AR(1) noise with φ = 0.5 it reports a change in about a third of the series), so
        prefer ``"rank"`` for raw benchmark readings.
    n_permutations : int, default 199
        Permutations per tested window for ``test="permutation"``; must be at least
        ``1/threshold − 1`` (199 at the default level) so that a change can pass.
    location_tolerance : int, default 5
        How precisely a location is wanted, in samples: each confirmed change point is
        placed where the posterior probability that the true change lies within
        ``± location_tolerance`` is largest (see Notes). Smaller values favour the single
        most likely split. 5 is the margin of the usual evaluation of change-point
        detectors (TCPDBench); :func:`stable_phase` uses 10, its warm-up criterion.
    variance_changes : bool or None, default None
        Also detect changes of variance (scale), not only of level: every tested window
        is scanned a second time, on its absolute successive differences, and the two
        p-values are combined by Bonferroni (see Notes), so the false-alarm level holds.
        ``change_types`` of the result says which kind each change point is. None (the
        default) means True with ``test="rank"`` and False with ``test="permutation"``,
        which scans levels only; False restricts the rank test to changes of level.
    unit : str, optional
        Label of the measured quantity, carried into the result.

    Returns
    -------
    DetectedChangePoints
        A :class:`ChangePoints` with ``locations``; ``segments`` (the two segments
        adjacent to change point j, ``segments[j]`` and ``segments[j + 1]``, are the
        ones its test compared);
        ``p_values`` (selection-adjusted, one per change point); ``test``;
        ``method = "detect_changes"``; ``parameters`` with every setting (including
        ``per_test_threshold``); the diagnostics ``candidates`` (EDM candidates before the
        guard), ``statistics`` (maximal standardized rank statistics),
        ``rank_autocorrelation`` and ``variance_inflation``. ``too_short`` is True when
        n < 2·min_size (then nothing is searched).

    Raises
    ------
    InvalidInputError
        Non-numeric, non-1-D or non-finite ``x``; ``min_size`` not an integer >= 2;
        ``significance_level`` outside (0, 1); unknown ``test``; invalid ``rng``;
        ``test="permutation"`` without ``rng`` or with too few ``n_permutations``;
        ``variance_changes`` not a bool, or True with ``test="permutation"``.
    NotEnoughDataError
        ``x`` is empty.

    See Also
    --------
    edm : the faithful EDM algorithms without a guard.
    stable_phase : warm-up/cool-down trimming built on this detector.

    Notes
    -----
    The method is described in *Algorithms › detect_changes*
    (``docs/algorithms/detect-changes.md``).

    **Candidates**: EDM-percent (N. A. James, A. Kejariwal, D. S. Matteson,
    arXiv:1411.7955, 2014; reference ``twitter/BreakoutDetection`` ``src/edm-per.cpp``) with
    δ = ``min_size``, percent 0.25, degree 1 on ``(x − min)/(max − min)``. EDM accepts the
    first split whatever the data, so candidates alone mean nothing. Series
    longer than L = ``_config.DETECT_EDM_MAX_POINTS`` (1,000) are searched on the medians of
    L blocks (block i: ``x[floor(i·n/L):floor((i+1)·n/L)]``, ``floor(n/L)`` or ``ceil(n/L)``
    samples; δ_b = ``max(2, ceil(δ·L/n))``; ``candidate_block_size`` is ``ceil(n/L)``),
    locations then refined on the raw data. The search thus costs the same O(L²) at every
    n >= L and the total cost grows with n (issue 26: blocks of ``ceil(n/L)`` samples made
    it drop from 70 ms at n = 6,000 to 24 ms at 6,001). L was 6,000 until issue 26 lowered it
    to 1,000 so that the search never makes the call slower than ruptures Binseg (l2); series
    of up to 1,000 points (all of TCPD) are searched point by point as before.

    **Test** (``"rank"``): change point c_j is tested on the pooled window
    ``x[c_{j−1}:c_{j+1}]`` (c_0 = 0, c_{K+1} = n) with the scan form of the two-sided
    Mann–Whitney test: the maximum over admissible splits of the standardized statistic
    Z(t) (tie-corrected variance and continuity correction as
    :func:`scipy.stats.mannwhitneyu` with ``method="asymptotic"``). Its p-value is the
    Siegmund approximation ``2Φ(−b) + 2bφ(b)·log((L − δ)/δ)`` of the tail of the maximum of
    a standardized Brownian bridge (L: window length), so that the search for the split is
    accounted for; with L = 2δ it is the plain Mann–Whitney p-value.

    **Test** (``"permutation"``): ``T = max_t t(L − t)/L²·(med(r[:t]) −
    med(r[t:]))²`` over admissible splits of the pooled window, on its mid-ranks r, and
    ``p = (1 + #{T_perm >= T})/(B + 1)`` over B random permutations of the window.

    **Location**: the split whose ``±h`` neighbourhood (``h = location_tolerance``, 5)
    holds the most posterior probability under a
    two-level Gaussian working likelihood with a flat prior (the Bayes estimate for the
    loss "missed by more than h"), computed on values clipped to median ± 4 MAD on each
    side of the rank-CUSUM split, so spikes cannot move it. The posterior's noise variance
    is the smaller of the two-level residual variance and half the mean squared successive
    difference (von Neumann), so that trends, seasonality or further shifts in the window
    do not flatten the posterior and drag the estimate off the evidence; when the posterior
    mode is an end of the admissible range the mode is returned (a change closer than δ to
    a neighbour, e.g. TCPD ``nile`` at 28 with δ = 30, is placed at 30, not at 40). The
    arg-max of a change statistic wanders further with the noise (1σ shift after 50 of 500
    samples, h = 10: within ±10 in 97.5 % of 800 series against 92–93 % for the rank-CUSUM
    arg-max). The estimate is tuned to its loss: on 200 such series h = 5 places the change
    within ±5 in 86 % (h = 10: 74 %) and within ±10 in 92 % (h = 10: 96 %).

    **Autocorrelation** (``"rank"``): the null variance of Z is multiplied by
    ``(1 + ρ)/(1 − ρ)``, the long-run variance factor of an AR(1) process, with ρ the lag-1
    autocorrelation of ranks of residuals (capped at ``_config.DETECT_MAX_AUTOCORRELATION``,
    0.95). First the residuals are ``x`` minus its running median of width about δ. This
    keeps the test honest on autocorrelated benchmark series, where the plain rank test
    reports a change on half or more of AR(1) series with φ = 0.5 (50 % at n = 300, 63 % at
    n = 1000, 100 series each). [EXT] The running median follows a trend, so a smooth trend
    or random walk would pass for independent noise and be cut into a staircase of steps δ
    apart (TCPD ``us_population``: 18 steps). The dependence is therefore re-estimated
    *under the alternative* (Crainiceanu & Vogelsang 2007; Shao & Zhang 2010): on the
    residuals of ``x`` minus the medians of the confirmed segments. Where it is larger and
    would make a confirmed change point insignificant, the guard is rerun with it (at most
    ``_config.DETECT_MAX_REFITS`` = 3 times; the inflation only grows). A real step leaves
    white residuals and is kept; a staircase cut into a trend leaves a ramp in every segment
    and is dropped. The reported ``rank_autocorrelation`` is the ρ finally used. Limit: a
    trend whose rise within δ samples is small against the noise leaves nearly white
    residuals, and its steps, statistically real, are still reported.

    **Variance** (``variance_changes=True``, [EXT]): every window is also scanned, with the same
    rank test, on its absolute successive differences ``|x_i − x_{i−1}|``: a change of
    scale by k multiplies all of them by k while a change of level moves one. The window's
    p-value is ``min(1, 2·min(p_level, p_scale))`` (Bonferroni), so the calibration holds;
    the variance scan gets its own inflation from the same residual autocorrelation of the
    absolute differences, re-estimated under the fitted segmentation like that of the level
    scan (a trend whose slope drifts leaves a ramp in its absolute differences, which would
    otherwise be cut into a staircase of variance changes; the guard is rerun when either
    grown inflation would make a confirmed change point of its kind fail). A σ doubling at
    mid-series (n = 500) is found in 100 % of 200 runs (94 % within ±25), against 2 % without
    the option.

    **Elimination** (Hunter/Otava style, Daly et al., ICPE 2020): drop the change point with
    the largest p-value while it exceeds the per-test threshold and re-test; when all pass,
    move each change point to its window's location estimate and check again. [EXT] Then every
    confirmed segment of length >= 2δ is scanned once more with the same test and
    significant splits are added (followed by a new elimination), because EDM's greedy
    dynamic programme can miss a clear change: on three levels 0, 5, 10 of 40 samples each
    it returns a single split. This repeats at most ``_config.DETECT_MAX_GUARD_PASSES`` (8)
    times and stops as soon as a segmentation repeats (``guard_passes`` counts the passes);
    scans and locations are memoised per window. Reported p-values are those of the final
    segmentation.

    **Calibration** (``tests/test_detect_slow.py``, 200 seeded series per cell): the
    default reports a change in 0–0.5 % of i.i.d. N(0, 1) series (n = 100, 300, 1000) and
    1–1.5 % of AR(1) φ = 0.5 series (``variance_changes=True``: 0–1.5 %); a warm-up of 50 samples
    in 500 is located by :func:`stable_phase` (h = 10) within ±10 in 96 % (1σ) and 100 % (2σ)
    of runs. On the 25 TCPD series (TCPDBench protocol, defaults) F1 0.712 and cover 0.657
    (``variance_changes=False``: 0.684 and 0.595); see ``benchmarks/RESULTS_detect.md``.

    Cost: EDM candidates O(n²) (O(L²), L = 1,000, for long series) plus O(K·n log n) for
    K elimination rounds (``"permutation"``: O(K·B·n log n)); on N(0, 1) noise 2.6 ms at
    n = 1,000, about 30 ms at 10^4 and 0.4 s at 10^5, never above ruptures Binseg (l2)
    from 100 to 10^6 points (``benchmarks/RESULTS_detect.md``). A fresh process runs it
    without numba (vectorised numpy twins of the kernels, identical results; see
    ``pilotstats/_kernels/_jit.py``).

    References
    ----------
    N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
    experience from 'breaking bad'", arXiv:1411.7955 (2014).
    D. Siegmund, "Confidence sets in change-point problems", International Statistical
    Review 56 (1988) 31–48.
    D. Daly et al., "The use of change point detection to identify software performance
    regressions in a continuous integration system", ICPE 2020 (Hunter/Otava elimination).
    C. M. Crainiceanu, T. J. Vogelsang, "Nonmonotonic power for tests of a mean shift in a
    time series", Journal of Statistical Computation and Simulation 77 (2007) 457–476.
    X. Shao, X. Zhang, "Testing for change points in time series", Journal of the American
    Statistical Association 105 (2010) 1228–1240.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import detect_changes
    >>> rng = np.random.default_rng(7)
    >>> x = np.concatenate([rng.normal(12.0, 1.0, 60), rng.normal(10.0, 1.0, 240)])
    >>> result = detect_changes(x)
    >>> result.locations
    (61,)
    >>> result.p_values[0] < 1e-6
    True
    >>> detect_changes(rng.normal(10.0, 1.0, 300)).locations
    ()

    A change of variance only is found too, unless ``variance_changes=False``:

    >>> y = np.concatenate([rng.normal(10.0, 1.0, 250), rng.normal(10.0, 2.0, 250)])
    >>> wide = detect_changes(y)
    >>> len(wide.locations), wide.change_types
    (1, ('variance',))
    >>> detect_changes(y, variance_changes=False).locations
    ()
    """
    data = as_float_array(x, "x")
    options = _detect_options(
        min_size=min_size, significance_level=significance_level, rng=rng, test=test,
        n_permutations=n_permutations, location_tolerance=location_tolerance,
        variance_changes=variance_changes, unit=unit,
    )
    return _detect(data, options)


@dataclass(frozen=True, slots=True)
class _DetectOptions:
    """Validated options of :func:`detect_changes` (shared with ``DetectStream``)."""

    delta: int
    level: float
    test: ChangeTest
    unit: str | None
    rng: RandomState
    permutations: int
    tolerance: int
    variance_changes: bool
    threshold: float


def _detect_options(
    *,
    min_size: Any,
    significance_level: Any,
    rng: Any,
    test: Any,
    n_permutations: Any,
    location_tolerance: Any,
    variance_changes: Any,
    unit: Any,
) -> _DetectOptions:
    """Validate the options of :func:`detect_changes` (raises InvalidInputError)."""
    delta = check_int(min_size, "min_size", low=2)
    level = _check_significance_level(significance_level)
    chosen: ChangeTest = check_choice(test, "test", ("rank", "permutation"))
    unit = check_text(unit, "unit", allow_none=True)
    check_rng(rng)  # the Generator is built only for the permutation test
    permutations = check_int(n_permutations, "n_permutations", low=1)
    tolerance = check_int(location_tolerance, "location_tolerance", low=0)
    if variance_changes is None:
        variance_changes = chosen == "rank"
    if not isinstance(variance_changes, (bool, np.bool_)):
        raise InvalidInputError(
            f"variance_changes must be True, False or None, got {variance_changes!r}"
        )
    if variance_changes and chosen != "rank":
        raise InvalidInputError(
            "variance_changes=True needs test='rank' (the permutation test scans levels "
            "only); "
            f"got test={chosen!r}"
        )
    threshold = float(_config.DETECT_THRESHOLD_FACTOR) * level
    if not 0.0 < threshold < 1.0:
        raise InvalidInputError(
            "_config.DETECT_THRESHOLD_FACTOR * significance_level must lie in (0, 1), got "
            f"{threshold!r}; restore the factor with pilotstats._config.reset()"
        )
    if chosen == "permutation":
        if rng is None:
            raise InvalidInputError(
                "test='permutation' needs rng (an integer seed or a numpy Generator) so that "
                "the result is reproducible; got rng=None"
            )
        needed = math.ceil(1.0 / threshold - 1.0 - 1e-9)
        if permutations < needed:
            raise InvalidInputError(
                f"n_permutations must be at least {needed} for significance_level {level:g}: "
                f"the smallest permutation p-value 1/(n_permutations + 1) must not exceed "
                f"the per-test threshold {threshold:g}; got {permutations}"
            )
    return _DetectOptions(
        delta, level, chosen, unit, rng, permutations, tolerance, bool(variance_changes),
        threshold,
    )


def _detect(
    data: Float64Array1D,
    options: _DetectOptions,
    *,
    candidates_of: Callable[[Float64Array1D, int], tuple[tuple[int, ...], int]] | None = None,
    memo: dict[Any, Any] | None = None,
) -> DetectedChangePoints:
    """:func:`detect_changes` on validated data.

    ``candidates_of(scaled data, min_size)`` returns the EDM candidates and the block size
    (default :func:`_candidate_locations`; ``DetectStream`` passes its incremental one);
    ``memo`` keeps the rank scans of windows between calls on growing prefixes of one
    series (``DetectStream``; not used by the permutation test, whose draws depend on the
    order of the scans).
    """
    delta, level, chosen, unit = options.delta, options.level, options.test, options.unit
    rng, permutations, tolerance = options.rng, options.permutations, options.tolerance
    variance_changes, threshold = options.variance_changes, options.threshold
    locate_candidates = _candidate_locations if candidates_of is None else candidates_of
    n = int(data.shape[0])
    too_short = n < 2 * delta
    candidates: tuple[int, ...] = ()
    block = 1
    # Ranks, ratios and the location estimate are unchanged by an exact power-of-two
    # scale; it keeps squares and differences of data near the float64 limit finite.
    scale = arithmetic_scale(data)
    data, segment_data = (np.ascontiguousarray(data * scale) if scale != 1.0 else data), data
    if not too_short:
        candidates, block = locate_candidates(data, delta)
    scanner: _Scanner
    guarded = _Guarded((), (), (), (), 0)
    if chosen == "rank":
        rho = 0.0
        step_inflation = 1.0
        if not too_short:
            rho = _rank_residual_autocorrelation(data, delta)
            if variance_changes:
                steps = _absolute_steps(data)
                step_inflation = _variance_inflation(_rank_residual_autocorrelation(steps, delta))
        inflation = _variance_inflation(rho)
        scanner = _RankScanner(
            data, delta, inflation, tolerance, variance_changes=bool(variance_changes),
            step_inflation=step_inflation, memo=memo,
        )
        if not too_short:
            guarded = _guard(scanner, candidates, n, threshold)
            # dependence re-estimated under the fitted alternative: a trend cut into steps
            # leaves ramps in every segment, and the steps are then tested again with that
            # long-run variance; the same holds for the absolute differences, which a trend
            # of changing slope turns into a staircase of variance changes. Both inflations
            # only ever grow, so this ends after a few refits
            for _ in range(int(_config.DETECT_MAX_REFITS)):
                if not guarded.locations:  # nothing confirmed that a refit could fail
                    break
                fitted = _segment_residual_autocorrelation(data, guarded.locations)
                fitted_steps = (
                    _variance_inflation(_segment_residual_autocorrelation(steps, guarded.locations))
                    if variance_changes else step_inflation
                )
                if not _refit_needed(
                    guarded, (inflation, step_inflation),
                    (_variance_inflation(fitted), fitted_steps), n, delta, threshold,
                    2 if variance_changes else 1,
                ):
                    break
                if _variance_inflation(fitted) > inflation:
                    rho, inflation = fitted, _variance_inflation(fitted)
                step_inflation = max(step_inflation, fitted_steps)
                scanner = _RankScanner(
                    data, delta, inflation, tolerance, variance_changes=bool(variance_changes),
                    step_inflation=step_inflation, memo=memo,
                )
                again = _guard(scanner, candidates, n, threshold)
                guarded = _Guarded(
                    again.locations, again.p_values, again.statistics, again.kinds,
                    guarded.passes + again.passes,
                )
    else:  # the permutation test assumes exchangeable samples: no inflation
        rho, inflation = math.nan, 1.0
        scanner = _PermutationScanner(data, delta, coerce_rng(rng), permutations, tolerance)
        if not too_short:
            guarded = _guard(scanner, candidates, n, threshold)
    parameters: dict[str, Any] = {
        "min_size": delta,
        "significance_level": level,
        "per_test_threshold": threshold,
        "test": chosen,
        "location_tolerance": tolerance,
        "variance_changes": bool(variance_changes),
        "candidate_method": "edm-percent",
        "candidate_percent": float(_config.DETECT_CANDIDATE_PERCENT),
        "candidate_degree": int(_config.DETECT_CANDIDATE_DEGREE),
        "candidate_scale": "range",
        "candidate_block_size": block,
    }
    if chosen == "permutation":
        parameters["n_permutations"] = permutations
    return DetectedChangePoints(
        locations=guarded.locations,
        segments=make_segments(segment_data, guarded.locations, scale),
        n=n,
        method="detect_changes",
        parameters=parameters,
        p_values=guarded.p_values,
        test=chosen,
        too_short=too_short,
        unit=unit,
        candidates=candidates,
        statistics=guarded.statistics,
        rank_autocorrelation=rho,
        variance_inflation=inflation,
        change_types=guarded.kinds,
        guard_passes=guarded.passes,
    )
