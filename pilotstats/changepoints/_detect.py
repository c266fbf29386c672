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
    DetectOptions,
    as_float_array,
    check_detect_options,
    coerce_rng,
)
from pilotstats.changepoints._detect_guard import _guard, _Guarded, _refit_needed
from pilotstats.changepoints._detect_scan import (
    _absolute_steps,
    _candidate_locations,
    _PermutationScanner,
    _rank_residual_autocorrelation,
    _RankScanner,
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

    EDM-percent candidates are tested against their neighbours, the least significant
    removed until all pass, and confirmed segments re-scanned. Deterministic, invariant
    under ``x → a·x + b`` (a > 0), robust to spikes, quiet on (autocorrelated) noise.

    Parameters
    ----------
    x : array_like, shape (n,)
        Measurements in time order (finite).
    min_size : int, default 30
        Minimum segment length δ >= 2 (Pilot's ``MIN_CHANGEPOINT_DETECTION_SAMPLE_SIZE``).
    significance_level : float in (0, 1), default 0.05
        False-alarm level (probability of any report on a stationary series); each change
        point needs a p-value <= ``_config.DETECT_THRESHOLD_FACTOR * significance_level``.
    rng : None, int or numpy.random.Generator, optional
        Randomness of ``test="permutation"`` (required there).
    test : {"rank", "permutation"}, default "rank"
        Mann–Whitney scan with an autocorrelation-aware p-value, or the EDM median
        contrast with a permutation p-value (assumes exchangeable samples).
    n_permutations : int, default 199
        Permutations per window for ``test="permutation"`` (at least ``1/threshold − 1``).
    location_tolerance : int, default 5
        Each change point is placed where the posterior probability that the true change
        lies within ``± location_tolerance`` samples is largest.
    variance_changes : bool or None, default None
        Also detect changes of scale (Bonferroni-combined with the level scan). None means
        True with ``test="rank"``, False with ``test="permutation"``.
    unit : str, optional
        Label of the measured quantity, carried into the result.

    Returns
    -------
    DetectedChangePoints
        ``locations``, ``segments``, selection-adjusted ``p_values``, ``parameters`` and the
        guard's diagnostics; ``too_short`` when n < 2·min_size (nothing is searched).

    Raises
    ------
    InvalidInputError
        Invalid ``x`` or option (e.g. ``test="permutation"`` without ``rng``).
    NotEnoughDataError
        ``x`` is empty.

    Notes
    -----
    Complexity: O(n²) for the EDM candidates (O(L²), L = 1,000, on long series) plus
    O(K·n log n) for K elimination rounds. Method: ``docs/algorithms/detect-changes.md``.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import detect_changes
    >>> rng = np.random.default_rng(7)
    >>> x = np.concatenate([rng.normal(12.0, 1.0, 60), rng.normal(10.0, 1.0, 240)])
    >>> result = detect_changes(x)
    >>> result.locations, result.p_values[0] < 1e-6
    ((61,), True)
    >>> y = np.concatenate([rng.normal(10.0, 1.0, 250), rng.normal(10.0, 2.0, 250)])
    >>> detect_changes(y).change_types, detect_changes(y, variance_changes=False).locations
    (('variance',), ())
    """
    data = as_float_array(x, "x")
    options = check_detect_options(
        min_size=min_size, significance_level=significance_level, rng=rng, test=test,
        n_permutations=n_permutations, location_tolerance=location_tolerance,
        variance_changes=variance_changes, unit=unit)
    return detect_validated(data, options)


@dataclass(frozen=True, slots=True)
class _Inflation:
    """The rank test's dependence correction: the lag-1 rank autocorrelation ``rho`` of the
    level residuals, its variance inflation, and that of the absolute differences."""

    rho: float
    level: float
    steps: float


def detect_validated(
    data: Float64Array1D,
    options: DetectOptions,
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
    locate_candidates = _candidate_locations if candidates_of is None else candidates_of
    n = int(data.shape[0])
    too_short = n < 2 * options.delta
    # Ranks, ratios and the location estimate are unchanged by an exact power-of-two
    # scale; it keeps squares and differences of data near the float64 limit finite.
    scale = arithmetic_scale(data)
    data, segment_data = (np.ascontiguousarray(data * scale) if scale != 1.0 else data), data
    candidates: tuple[int, ...] = ()
    block = 1
    if not too_short:
        candidates, block = locate_candidates(data, options.delta)
    if options.test == "rank":
        guarded, inflation = _rank_guard(data, candidates, options, too_short, memo)
    else:  # the permutation test assumes exchangeable samples: no inflation
        inflation = _Inflation(math.nan, 1.0, 1.0)
        scanner = _PermutationScanner(
            data, options.delta, coerce_rng(options.rng), options.permutations,
            options.tolerance,
        )
        guarded = _Guarded((), (), (), (), 0)
        if not too_short:
            guarded = _guard(scanner, candidates, n, options.threshold)
    return DetectedChangePoints(
        locations=guarded.locations,
        segments=make_segments(segment_data, guarded.locations, scale),
        n=n,
        method="detect_changes",
        parameters=_parameters(options, block),
        p_values=guarded.p_values,
        test=options.test,
        too_short=too_short,
        unit=options.unit,
        candidates=candidates,
        statistics=guarded.statistics,
        rank_autocorrelation=inflation.rho,
        variance_inflation=inflation.level,
        change_types=guarded.kinds,
        guard_passes=guarded.passes,
    )


def _initial_inflation(
    data: Float64Array1D, steps: Float64Array1D | None, delta: int
) -> _Inflation:
    """The inflations estimated under the null: residuals from a running median (of the
    absolute differences ``steps`` too, when variance changes are scanned)."""
    rho = _rank_residual_autocorrelation(data, delta)
    step_inflation = 1.0
    if steps is not None:
        step_inflation = _variance_inflation(_rank_residual_autocorrelation(steps, delta))
    return _Inflation(rho, _variance_inflation(rho), step_inflation)


def _rank_scanner(
    data: Float64Array1D,
    options: DetectOptions,
    inflation: _Inflation,
    memo: dict[Any, Any] | None,
) -> _RankScanner:
    return _RankScanner(
        data, options.delta, inflation.level, options.tolerance,
        variance_changes=options.variance_changes, step_inflation=inflation.steps, memo=memo,
    )


def _rank_guard(
    data: Float64Array1D,
    candidates: tuple[int, ...],
    options: DetectOptions,
    too_short: bool,
    memo: dict[Any, Any] | None,
) -> tuple[_Guarded, _Inflation]:
    """The guard with the rank test, refitted while the dependence under the fitted
    alternative would make a confirmed change point fail."""
    if too_short:
        return _Guarded((), (), (), (), 0), _Inflation(0.0, _variance_inflation(0.0), 1.0)
    steps = _absolute_steps(data) if options.variance_changes else None
    inflation = _initial_inflation(data, steps, options.delta)
    n = int(data.shape[0])
    guarded = _guard(_rank_scanner(data, options, inflation, memo), candidates, n,
                     options.threshold)
    # dependence re-estimated under the fitted alternative: a trend cut into steps leaves
    # ramps in every segment, and the steps are then tested again with that long-run
    # variance; the same holds for the absolute differences, which a trend of changing
    # slope turns into a staircase of variance changes. Both inflations only ever grow,
    # so this ends after a few refits
    for _ in range(int(_config.DETECT_MAX_REFITS)):
        if not guarded.locations:  # nothing confirmed that a refit could fail
            break
        refit = _refitted_inflation(data, steps, guarded, inflation, options)
        if refit is None:
            break
        inflation = refit
        again = _guard(_rank_scanner(data, options, inflation, memo), candidates, n,
                       options.threshold)
        guarded = _Guarded(
            again.locations, again.p_values, again.statistics, again.kinds,
            guarded.passes + again.passes,
        )
    return guarded, inflation


def _refitted_inflation(
    data: Float64Array1D,
    steps: Float64Array1D | None,
    guarded: _Guarded,
    inflation: _Inflation,
    options: DetectOptions,
) -> _Inflation | None:
    """The grown inflations under the fitted segmentation, or None when no confirmed
    change point would fail with them (no refit needed)."""
    fitted = _segment_residual_autocorrelation(data, guarded.locations)
    fitted_steps = (
        inflation.steps if steps is None
        else _variance_inflation(_segment_residual_autocorrelation(steps, guarded.locations))
    )
    if not _refit_needed(
        guarded, (inflation.level, inflation.steps),
        (_variance_inflation(fitted), fitted_steps), int(data.shape[0]), options.delta,
        options.threshold, 2 if options.variance_changes else 1,
    ):
        return None
    rho, level = inflation.rho, inflation.level
    if _variance_inflation(fitted) > level:
        rho, level = fitted, _variance_inflation(fitted)
    return _Inflation(rho, level, max(inflation.steps, fitted_steps))


def _parameters(options: DetectOptions, block: int) -> dict[str, Any]:
    """The ``parameters`` of a :class:`DetectedChangePoints`: every setting."""
    parameters: dict[str, Any] = {
        "min_size": options.delta,
        "significance_level": options.level,
        "per_test_threshold": options.threshold,
        "test": options.test,
        "location_tolerance": options.tolerance,
        "variance_changes": options.variance_changes,
        "candidate_method": "edm-percent",
        "candidate_percent": float(_config.DETECT_CANDIDATE_PERCENT),
        "candidate_degree": int(_config.DETECT_CANDIDATE_DEGREE),
        "candidate_scale": "range",
        "candidate_block_size": block,
    }
    if options.test == "permutation":
        parameters["n_permutations"] = options.permutations
    return parameters
