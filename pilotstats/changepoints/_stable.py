"""Stable-phase (warm-up / cool-down) detection of a benchmark round.

Public: :func:`stable_phase`, :class:`StablePhase`, :func:`dominant_segment`.
Documentation ``docs/algorithms/stable-phase.md`` (Pilot's configuration, dominant-segment
rule, the equivalence model) and ``docs/algorithms/detect-changes.md`` (the guarded detector).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import arithmetic_scale
from pilotstats._typing import ArrayLike1D, RandomState, StablePhaseMethod
from pilotstats._validation import (
    StableOptions,
    as_float_array,
    check_int,
    check_stable_options,
    reject_container_misuse,
)
from pilotstats.changepoints._detect import detect_changes
from pilotstats.changepoints._edm import _edm_percent_locations
from pilotstats.changepoints._results import (
    ChangePoints,
    _mean_std,
    make_segments,
    safe_median,
)
from pilotstats.changepoints._steady import equivalence_phase
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    draw,
    format_interval,
    format_quantity,
    plot_doc,
)

if TYPE_CHECKING:  # the autocorrelation pillar (scipy.stats) is imported on first use
    from pilotstats.autocorrelation import SubsessionResult

__all__ = ["StablePhase", "dominant_segment", "stable_phase"]

#: Pilot's EDM-percent configuration (``lib/libpilot.cc``): percent 0.25 and
#: degree 1 on the raw values; the minimum segment length is ``min_size`` (Pilot's
#: ``MIN_CHANGEPOINT_DETECTION_SAMPLE_SIZE`` = 30, ``lib/libpilot.h``).
PILOT_PERCENT = 0.25
PILOT_DEGREE = 1

#: Outcome labels of :class:`StablePhase`.
OUTCOMES = ("trimmed", "no_change", "not_enough_data", "no_dominant_segment", "no_steady_state")


def dominant_segment(change_points: Sequence[int], n: int) -> tuple[int, int] | None:
    """Pilot's dominant segment: the segment longer than half the series, if any.

    Parameters
    ----------
    change_points : sequence of int
        Strictly increasing change points in ``(0, n)`` (0-based first index of each new
        segment).
    n : int
        Length of the series, ``n >= 1``.

    Returns
    -------
    tuple of (int, int) or None
        ``(begin, end)`` of the half-open dominant segment, or None when no segment is
        longer than ``floor(n / 2)``.

    Raises
    ------
    InvalidInputError
        ``n < 1`` or change points not strictly increasing inside ``(0, n)``.

    Notes
    -----
    Reproduces ``pilot_find_dominant_segment`` (``ascar-io/pilot-bench`` ``lib/libpilot.cc``;
    ``docs/algorithms/stable-phase.md``): append n to the change points, walk the segments
    ``[0, c_1), [c_1, c_2), …, [c_K, n)`` in order keeping the longest so far (replaced only
    by a strictly longer one) and return it as soon as its length exceeds ``floor(n / 2)``;
    if the walk ends first there is no dominant segment. At most one segment can exceed
    ``floor(n / 2)``, so the rule is "the segment with 2·length > n". O(K).

    Examples
    --------
    >>> dominant_segment([30, 160], 190)
    (30, 160)
    >>> dominant_segment([30, 60], 90) is None
    True
    """
    length = check_int(n, "n", low=1)
    if isinstance(change_points, (str, bytes)) or not isinstance(change_points, Sequence):
        if not isinstance(change_points, np.ndarray):
            raise InvalidInputError(
                "change_points must be a sequence of integers (a list, tuple or 1-D array), "
                f"got {type(change_points).__name__}"
            )
    reject_container_misuse(change_points, "change_points")
    bounds = [0]
    for value in change_points:
        c = check_int(value, "change_points")
        if not bounds[-1] < c < length:
            raise InvalidInputError(
                "change_points must be strictly increasing and lie strictly between 0 and "
                f"n = {length}; got {list(change_points)}"
            )
        bounds.append(c)
    bounds.append(length)
    half = length // 2
    best_begin, best_end = 0, 0
    for begin, end in itertools.pairwise(bounds):
        if end - begin > best_end - best_begin:
            best_begin, best_end = begin, end
        if best_end - best_begin > half:
            return best_begin, best_end
    return None


@dataclass(frozen=True, slots=True)
class StablePhase(Result):
    """Stable phase of a round: the samples between warm-up and cool-down.

    Attributes
    ----------
    start, end : int
        The stable phase is ``x[start:end]`` (half-open). With ``found=False`` they are
        ``0`` and ``n`` (nothing trimmed; the caller decides).
    found : bool
        True when a stable phase was identified (a steady state, a dominant segment, no
        change at all, or a series too short to search, which is kept whole as Pilot does).
    outcome : str
        ``"trimmed"`` (warm-up and/or cool-down removed), ``"no_change"`` (nothing to
        trim: the whole series is stable), ``"not_enough_data"`` (too short to search:
        everything kept), ``"no_dominant_segment"`` (change points but no segment longer
        than half the series; Pilot discarded such rounds) or ``"no_steady_state"`` (the
        equivalence model found that the fork never settles; ``note`` says why).
    n : int
        Length of the series.
    warmup_length, cooldown_length : int
        Samples before ``start`` and from ``end`` on (``start`` and ``n - end``).
    change_points : ChangePoints
        The change points behind the decision (a :class:`DetectedChangePoints` with
        p-values for ``method="robust"``; EDM-percent on raw values for ``"pilot"``).
    method : str
        The method that decided: ``"equivalence"``, ``"robust"`` or ``"pilot"``
        (``method="auto"`` resolves to one of the first two).
    stable_n : int
        Number of samples in the stable phase, ``end - start``.
    mean, median, std : float
        Statistics of ``x[start:end]`` (std with ddof 1; NaN for one sample).
    mean_ci : SubsessionResult or None
        Mean with its autocorrelation-aware confidence interval
        (:func:`~pilotstats.autocorrelation.subsession_analysis` of the stable phase);
        None when it cannot be computed (see ``ci_note``).
    ci_note : str or None
        Why ``mean_ci`` is None (for example no subsession size with small enough
        autocorrelation); None otherwise.
    confidence_level : float
        Level of ``mean_ci``.
    min_size : int
        Minimum segment length in observations used by the change-point search.
    significance_level : float or None
        False-alarm level of the guard (None for ``method="pilot"``, which has none).
    unit : str or None
        Label of the measured quantity.
    classification : str
        Barrett et al.'s class of the series: ``"flat"`` (stable from the start),
        ``"warmup"`` (it settles at a better level than it started: lower values, or higher
        with ``higher_is_better``), ``"slowdown"`` (it settles at a worse level) or
        ``"no_steady_state"``.
    note : str or None
        How the equivalence model decided (its rule and tolerance band); None for the other
        methods.

    Examples
    --------
    Returned by :func:`stable_phase`:

    >>> import numpy as np
    >>> from pilotstats.changepoints import stable_phase
    >>> rng = np.random.default_rng(3)
    >>> x = np.concatenate([rng.normal(14.0, 1.0, 50), rng.normal(10.0, 1.0, 450)])
    >>> phase = stable_phase(x)
    >>> phase.start, phase.end, phase.warmup_length, phase.cooldown_length
    (50, 500, 50, 0)
    >>> print(phase)  # doctest: +ELLIPSIS
    stable phase [50, 500) of 500: warm-up 50, cool-down 0, mean ...
    """

    start: int
    end: int
    found: bool
    outcome: str
    n: int
    warmup_length: int
    cooldown_length: int
    change_points: ChangePoints
    method: str
    stable_n: int
    mean: float
    median: float
    std: float
    mean_ci: SubsessionResult | None
    ci_note: str | None
    confidence_level: float
    min_size: int
    significance_level: float | None
    unit: str | None = None
    classification: str = "flat"
    note: str | None = None

    @property
    def locations(self) -> tuple[int, ...]:
        """The change points (``change_points.locations``)."""
        return self.change_points.locations

    @property
    def kept_fraction(self) -> float:
        """Fraction of the samples in the stable phase, ``stable_n / n``."""
        return self.stable_n / self.n

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Confidence interval of the stable-phase mean (None: the stored level).

        Raises
        ------
        NotEnoughDataError
            No interval could be computed (``ci_note`` says why).
        """
        if self.mean_ci is None:
            raise NotEnoughDataError(f"no confidence interval for the stable phase: {self.ci_note}")
        return self.mean_ci.confidence_interval(confidence_level)

    def __str__(self) -> str:
        count = len(self.change_points.locations)
        noun = "change point" if count == 1 else "change points"
        if self.outcome == "no_dominant_segment":
            head = (
                f"no stable phase found: no segment longer than half of the {self.n} samples "
                f"({count} {noun}, {self.method})"
            )
            return head
        if self.outcome == "no_steady_state":
            return f"no steady state in {self.n} samples ({self.method}): {self.note}"
        if self.mean_ci is not None:
            interval = format_interval(
                self.mean_ci.ci_low, self.mean_ci.ci_high, self.confidence_level, self.unit,
                estimate=self.mean,
            )
        else:
            interval = "no CI"
        return (
            f"stable phase [{self.start}, {self.end}) of {self.n}: warm-up {self.warmup_length}, "
            f"cool-down {self.cooldown_length}, mean {format_quantity(self.mean, self.unit)} "
            f"({interval}, n = {self.stable_n}); {self.outcome}, {self.classification}, "
            f"{count} {noun}, {self.method}"
        )

    def _extra_dict(self) -> dict[str, Any]:
        return {"locations": list(self.locations), "kept_fraction": self.kept_fraction}

    @plot_doc
    def plot(
        self,
        x: ArrayLike1D,
        *,
        ax: Any = None,
        unit: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
        show_change_points: bool = True,
    ) -> Any:
        """Draw the round with shaded warm-up/cool-down and the stable mean with its CI.

        Needs matplotlib. The stable-phase mean is a horizontal line over ``[start, end)``
        inside the band of its autocorrelation-aware confidence interval (when one could
        be computed); change points are dashed lines, with p-values for
        ``method="robust"``.

        Parameters
        ----------
        {series}
        {ax}
        {unit}
        {ylabel}
        title : str, optional
            Title (default: the stable phase, its mean and confidence interval).
        show_change_points : bool, default True
            Draw the change points behind the decision.

        {returns}

        Raises
        ------
        InvalidInputError
            ``len(x) != n`` or ``x`` not finite and 1-D.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.changepoints import stable_phase
        >>> rng = np.random.default_rng(3)
        >>> x = np.concatenate([rng.normal(14.0, 1.0, 50), rng.normal(10.0, 1.0, 250)])
        >>> ax = stable_phase(x, unit="ms").plot(x)
        >>> ax.get_ylabel(), ax.get_title()[:25]
        ('value (ms)', 'stable phase [50, 300) of')
        """
        return draw(
            self, x, ax=ax, unit=unit, ylabel=ylabel, title=title,
            show_change_points=show_change_points
        )


def _pilot_change_points(
    data: np.ndarray,
    min_size: int,
    unit: str | None,
    pilot_locations: Callable[[np.ndarray, int], tuple[int, ...]] | None = None,
) -> ChangePoints:
    """EDM-percent (δ = min_size, percent 0.25, degree 1) on the raw values."""
    n = int(data.shape[0])
    locations = (
        _edm_percent_locations(data, min_size, PILOT_PERCENT, PILOT_DEGREE, scale=False)
        if pilot_locations is None
        else pilot_locations(data, min_size)
    )
    return ChangePoints(
        locations=locations,
        segments=make_segments(data, locations),
        n=n,
        method="edm-percent",
        parameters={
            "min_size": min_size,
            "percent": PILOT_PERCENT,
            "degree": PILOT_DEGREE,
            "scale": "none",
        },
        too_short=n < 2 * min_size,
        unit=unit,
    )


def _mean_interval(
    part: np.ndarray, confidence_level: float, unit: str | None
) -> tuple[SubsessionResult | None, str | None]:
    if part.shape[0] < 2:
        return None, f"the stable phase has {part.shape[0]} sample(s); an interval needs 2"
    from pilotstats.autocorrelation import subsession_analysis

    try:
        return subsession_analysis(part, confidence_level=confidence_level, unit=unit), None
    except NotEnoughDataError as exc:  # includes SubsessionSizeNotFoundError
        return None, str(exc)
    except InvalidInputError as exc:  # validated data: only a variance beyond float64
        return None, str(exc)


def stable_phase(
    x: ArrayLike1D,
    *,
    method: StablePhaseMethod = "auto",
    min_size: int = 30,
    significance_level: float = 0.05,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    rng: RandomState = None,
    location_tolerance: int = _config.STABLE_LOCATION_TOLERANCE,
    tolerance: float = 0.05,
    min_steady_fraction: float = 0.2,
    min_warmup_fraction: float = 0.05,
    higher_is_better: bool = False,
    unit: str | None = None,
) -> StablePhase:
    """Find the stable phase of a round or fork: trim warm-up and cool-down.

    Long forks (n >= 1000) use *practical equivalence*: the steady state begins where the
    fork settles within a band around its final level. Short rounds use the change points
    of :func:`detect_changes` and Pilot's *dominant segment* (longer than half the series).
    Every result carries Barrett et al.'s class (``"flat"``, ``"warmup"``, ``"slowdown"``
    or ``"no_steady_state"``). Cost O(n) (``"equivalence"``) or that of :func:`detect_changes`;
    details: ``docs/algorithms/stable-phase.md``.

    Parameters
    ----------
    x : array_like, shape (n,)
        Unit readings of one round in time order (finite).
    method : {"auto", "equivalence", "robust", "pilot"}, default "auto"
        ``"auto"``: ``"equivalence"`` from n = 1000 on, ``"robust"`` (tested change points)
        below; ``"pilot"``: Pilot's untested EDM-percent on the raw values.
    min_size : int, default 30
        Minimum segment length δ >= 2 (``"robust"``, ``"pilot"``; below it ``"pilot"``
        searches nothing).
    significance_level, confidence_level : float in (0, 1), default 0.05, 0.95
        False-alarm level of the tests (not ``"pilot"``); level of the interval of the mean.
    rng, location_tolerance : optional, default None, 10
        Passed to :func:`detect_changes` (``"robust"``).
    tolerance, min_steady_fraction, min_warmup_fraction : float, default 0.05, 0.2, 0.05
        ``"equivalence"``: band around the final level as a fraction of ``max(x) - min(x)``;
        shortest steady state; share of the fork always discarded.
    higher_is_better : bool, default False
        Direction for the classification (True for rates such as throughput).
    unit : str, optional
        Label of the measured quantity.

    Returns
    -------
    StablePhase
        ``start``, ``end`` (half-open), ``found``, ``outcome``, ``classification``, the
        change points and the stable phase's mean with its autocorrelation-aware interval.

    Raises
    ------
    InvalidInputError
        Invalid ``x`` or option (``min_warmup_fraction >= 1 - min_steady_fraction``).
    NotEnoughDataError
        ``x`` is empty.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import stable_phase
    >>> rng = np.random.default_rng(3)
    >>> x = np.concatenate([rng.normal(14.0, 1.0, 50), rng.normal(10.0, 1.0, 450)])
    >>> phase = stable_phase(x)
    >>> phase.start, phase.end, phase.outcome, phase.classification
    (50, 500, 'trimmed', 'warmup')
    >>> fork = 1.0 + 0.3 * np.exp(-np.arange(3000) / 100.0) + rng.normal(0.0, 0.01, 3000)
    >>> long = stable_phase(fork)
    >>> long.method, long.start, long.classification
    ('equivalence', 300, 'warmup')
    """
    data = as_float_array(x, "x")
    options = check_stable_options(
        method=method, min_size=min_size, significance_level=significance_level,
        confidence_level=confidence_level, rng=rng, location_tolerance=location_tolerance,
        tolerance=tolerance, min_steady_fraction=min_steady_fraction,
        min_warmup_fraction=min_warmup_fraction, higher_is_better=higher_is_better, unit=unit)
    return stable_validated(data, options)


@dataclass(frozen=True, slots=True)
class _Trim:
    """Where a stable phase was found: ``[start, end)``, whether, the outcome, Barrett's
    class and a note."""

    start: int
    end: int
    found: bool
    outcome: str
    classification: str
    note: str | None = None


def stable_validated(
    data: np.ndarray,
    options: StableOptions,
    *,
    detector: Callable[..., ChangePoints] = detect_changes,
    pilot_locations: Callable[[np.ndarray, int], tuple[int, ...]] | None = None,
) -> StablePhase:
    """:func:`stable_phase` on validated data and options; ``StablePhaseStream`` passes its
    incremental ``detector`` (the change points of ``method="robust"``) and
    ``pilot_locations`` (EDM-percent on the raw values for ``method="pilot"``)."""
    n = int(data.shape[0])
    chosen: StablePhaseMethod = options.method
    if chosen == "auto":
        chosen = "equivalence" if n >= _config.EQUIVALENCE_LONG_SERIES else "robust"
    if chosen == "equivalence":
        return _equivalence_stable_phase(data, options)
    if chosen == "pilot":
        too_short = n < options.delta
        change_points = (
            _no_pilot_change_points(data, options.delta, options.unit)
            if too_short
            else _pilot_change_points(data, options.delta, options.unit, pilot_locations)
        )
    else:
        change_points = detector(
            data, min_size=options.delta, significance_level=options.level, rng=options.rng,
            location_tolerance=options.location_tolerance, unit=options.unit,
        )
        too_short = change_points.too_short
    trim = _dominant_trim(data, change_points, too_short, options.higher_is_better)
    return _make_phase(
        data, trim, change_points, chosen, options, None if chosen == "pilot" else options.level
    )


def _no_pilot_change_points(data: np.ndarray, min_size: int, unit: str | None) -> ChangePoints:
    """The empty result of Pilot's procedure on a round shorter than ``min_size``."""
    return ChangePoints(
        locations=(),
        segments=make_segments(data, ()),
        n=int(data.shape[0]),
        method="edm-percent",
        parameters={
            "min_size": min_size,
            "percent": PILOT_PERCENT,
            "degree": PILOT_DEGREE,
            "scale": "none",
        },
        too_short=True,
        unit=unit,
    )


def _dominant_trim(
    data: np.ndarray, change_points: ChangePoints, too_short: bool, higher_is_better: bool
) -> _Trim:
    """The stable phase of the change points by Pilot's dominant-segment rule."""
    n = int(data.shape[0])
    if too_short:
        outcome, found, start, end = "not_enough_data", True, 0, n
    elif not change_points.locations:
        outcome, found, start, end = "no_change", True, 0, n
    else:
        segment = dominant_segment(change_points.locations, n)
        if segment is None:
            outcome, found, start, end = "no_dominant_segment", False, 0, n
        else:
            outcome, found = "trimmed", True
            start, end = segment
    classification = _classify(data, found, start, end, higher_is_better)
    return _Trim(start, end, found, outcome, classification)


def _classify(data: np.ndarray, found: bool, start: int, end: int, higher_is_better: bool) -> str:
    """Barrett's class from a stable phase: compare what came before it with its median."""
    if not found:
        return "no_steady_state"
    if start == 0:
        return "flat"
    before = safe_median(data[:start])
    level = safe_median(data[start:end])
    worse_before = before < level if higher_is_better else before > level
    return "warmup" if worse_before else "slowdown"


def _equivalence_stable_phase(data: np.ndarray, options: StableOptions) -> StablePhase:
    """``method="equivalence"``: the steady state of a long fork."""
    n = int(data.shape[0])
    parameters = {
        "tolerance": options.tolerance,
        "min_steady_fraction": options.steady_share,
        "min_warmup_fraction": options.warmup_share,
    }
    if n < _config.EQUIVALENCE_MIN_LENGTH:
        change_points = ChangePoints(
            locations=(), segments=make_segments(data, ()), n=n, method="equivalence",
            parameters=parameters, too_short=True, unit=options.unit,
        )
        trim = _Trim(
            0, n, True, "not_enough_data", "flat",
            f"{n} samples: the equivalence model needs {_config.EQUIVALENCE_MIN_LENGTH}",
        )
        return _make_phase(data, trim, change_points, "equivalence", options, options.level)
    scale = arithmetic_scale(data)  # exact power of two: the decision is scale-free
    decision = equivalence_phase(
        data * scale if scale != 1.0 else data,
        tolerance=options.tolerance,
        min_steady_fraction=options.steady_share,
        min_warmup_fraction=options.warmup_share,
        higher_is_better=options.higher_is_better,
        significance_level=options.level,
    )
    if decision.steady:
        # The settling index is the change point; a start that only reflects the
        # conservative min_warmup_fraction discard is not one.
        locations: tuple[int, ...] = (
            (decision.start,) if decision.settled > 0 and decision.start < n else ()
        )
        start, found = decision.start, True
        outcome = "trimmed" if decision.start > 0 else "no_change"
    else:
        locations = decision.confirmed_changes
        start, found, outcome = 0, False, "no_steady_state"
    note = (
        f"{decision.reason}; final level {format_quantity(decision.level / scale, options.unit)}, "
        f"band ± {format_quantity(decision.tolerance / scale, options.unit)}, windows of "
        f"{decision.window}"
    )
    change_points = ChangePoints(
        locations=locations, segments=make_segments(data, locations), n=n,
        method="equivalence", parameters=parameters, too_short=False, unit=options.unit,
    )
    trim = _Trim(start, n, found, outcome, decision.classification, note)
    return _make_phase(data, trim, change_points, "equivalence", options, options.level)


def _make_phase(
    data: np.ndarray,
    trim: _Trim,
    change_points: ChangePoints,
    method: str,
    options: StableOptions,
    significance_level: float | None,
) -> StablePhase:
    """The :class:`StablePhase` of ``data`` trimmed to ``trim`` (with the interval of the
    mean at ``options.ci_level``; ``significance_level`` is None for Pilot's procedure)."""
    n = int(data.shape[0])
    start, end = trim.start, trim.end
    part = data[start:end]
    mean_ci, ci_note = _mean_interval(part, options.ci_level, options.unit)
    mean, std = _mean_std(part)  # finite for any finite data (scaled near 1e308)
    return StablePhase(
        start=start,
        end=end,
        found=trim.found,
        outcome=trim.outcome,
        n=n,
        warmup_length=start,
        cooldown_length=n - end,
        change_points=change_points,
        method=method,
        stable_n=end - start,
        mean=mean,
        median=safe_median(part),
        std=std,
        mean_ci=mean_ci,
        ci_note=ci_note,
        confidence_level=options.ci_level,
        min_size=options.delta,
        significance_level=significance_level,
        unit=options.unit,
        classification=trim.classification,
        note=trim.note,
    )
