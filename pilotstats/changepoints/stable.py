"""Stable-phase (warm-up / cool-down) detection of a benchmark round.

Public: :func:`stable_phase`, :class:`StablePhase`, :func:`dominant_segment`.
Specification ``specs/edm.md`` §4.3–§4.5 (Pilot's configuration, dominant-segment rule and
what the project returns) and §8.3 (the guarded detector behind the default method).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats import _config
from pilotstats._typing import ArrayLike1D, RandomState, StablePhaseMethod
from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_confidence_level,
    check_int,
    check_probability,
)
from pilotstats.changepoints._edm import _edm_percent_locations
from pilotstats.changepoints._results import ChangePoints, make_segments
from pilotstats.changepoints.detect import detect_changes
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    format_interval,
    format_quantity,
)

if TYPE_CHECKING:  # the autocorrelation pillar (scipy.stats) is imported on first use
    from pilotstats.autocorrelation import SubsessionResult

__all__ = ["StablePhase", "dominant_segment", "stable_phase"]

#: Pilot's EDM-percent configuration (``lib/libpilot.cc``, spec §4.3): percent 0.25 and
#: degree 1 on the raw values; the minimum segment length is ``min_size`` (Pilot's
#: ``MIN_CHANGEPOINT_DETECTION_SAMPLE_SIZE`` = 30, ``lib/libpilot.h``).
PILOT_PERCENT = 0.25
PILOT_DEGREE = 1

#: Outcome labels of :class:`StablePhase`.
OUTCOMES = ("trimmed", "no_change", "not_enough_data", "no_dominant_segment")


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
    Reproduces ``pilot_find_dominant_segment`` (``ascar-io/pilot-bench`` ``lib/libpilot.cc``,
    spec §4.4): append n to the change points, walk the segments ``[0, c_1), [c_1, c_2), …,
    [c_K, n)`` in order keeping the longest so far (replaced only by a strictly longer one)
    and return it as soon as its length exceeds ``floor(n / 2)``; if the walk ends first
    there is no dominant segment. At most one segment can exceed ``floor(n / 2)``, so the
    rule is "the segment with 2·length > n". O(K).

    Examples
    --------
    >>> dominant_segment([30, 160], 190)
    (30, 160)
    >>> dominant_segment([30, 60], 90) is None
    True
    """
    length = check_int(n, "n", low=1)
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
        True when a stable phase was identified (a dominant segment, no change at all, or a
        series too short to search, which is kept whole as Pilot does).
    outcome : str
        ``"trimmed"`` (the dominant segment between change points), ``"no_change"`` (no
        change point: the whole series is stable), ``"not_enough_data"`` (too short to
        search: everything kept) or ``"no_dominant_segment"`` (change points but no segment
        longer than half the series; Pilot discarded such rounds).
    n : int
        Length of the series.
    warmup, cooldown : int
        Samples before ``start`` and from ``end`` on (``start`` and ``n - end``).
    change_points : ChangePoints
        The change points behind the decision (a :class:`DetectedChangePoints` with
        p-values for ``method="robust"``; EDM-percent on raw values for ``"pilot"``).
    method : str
        ``"robust"`` or ``"pilot"``.
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
        Minimum segment length used.
    significance_level : float or None
        False-alarm level of the guard (None for ``method="pilot"``, which has none).
    unit : str or None
        Label of the measured quantity.

    Examples
    --------
    Returned by :func:`stable_phase`:

    >>> import numpy as np
    >>> from pilotstats.changepoints import stable_phase
    >>> rng = np.random.default_rng(3)
    >>> x = np.concatenate([rng.normal(14.0, 1.0, 50), rng.normal(10.0, 1.0, 450)])
    >>> phase = stable_phase(x)
    >>> phase.start, phase.end, phase.warmup, phase.cooldown
    (50, 500, 50, 0)
    >>> print(phase)  # doctest: +ELLIPSIS
    stable phase [50, 500) of 500: warm-up 50, cool-down 0, mean ...
    """

    start: int
    end: int
    found: bool
    outcome: str
    n: int
    warmup: int
    cooldown: int
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
        if self.mean_ci is not None:
            interval = format_interval(
                self.mean_ci.ci_low, self.mean_ci.ci_high, self.confidence_level, self.unit
            )
        else:
            interval = "no CI"
        return (
            f"stable phase [{self.start}, {self.end}) of {self.n}: warm-up {self.warmup}, "
            f"cool-down {self.cooldown}, mean {format_quantity(self.mean, self.unit)} "
            f"({interval}, n = {self.stable_n}); {self.outcome}, {count} {noun}, "
            f"{self.method}"
        )

    def _extra_dict(self) -> dict[str, Any]:
        return {"locations": list(self.locations), "kept_fraction": self.kept_fraction}

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
        x : array_like, shape (n,)
            The series the result was computed from (results do not keep it).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure). ``plt.show`` is never called.
        unit : str, optional
            Unit of ``x`` (default: :attr:`unit`); seconds are auto-scaled to ms/µs/ns.
        ylabel : str, optional
            Name of the measured quantity on the y axis (default ``"value"``).
        title : str, optional
            Title (default: the stable phase, its mean and confidence interval).
        show_change_points : bool, default True
            Draw the change points behind the decision.

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        InvalidInputError
            ``len(x) != n`` or ``x`` not finite and 1-D.
        MissingDependencyError
            matplotlib is not installed (``pip install "pilotstats[plot]"``).

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
        from pilotstats.changepoints._plots import plot_stable_phase

        return plot_stable_phase(
            self,
            x,
            ax=ax,
            unit=unit,
            ylabel=ylabel,
            title=title,
            show_change_points=show_change_points,
        )


def _pilot_change_points(data: np.ndarray, min_size: int, unit: str | None) -> ChangePoints:
    """EDM-percent (δ = min_size, percent 0.25, degree 1) on the raw values (spec §4.3)."""
    n = int(data.shape[0])
    locations = _edm_percent_locations(data, min_size, PILOT_PERCENT, PILOT_DEGREE, scale=False)
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


def stable_phase(
    x: ArrayLike1D,
    *,
    method: StablePhaseMethod = "robust",
    min_size: int = 30,
    significance_level: float = 0.05,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    rng: RandomState = None,
    location_tolerance: int = _config.DETECT_LOCATION_TOLERANCE,
    unit: str | None = None,
) -> StablePhase:
    """Find the stable phase of a round: trim warm-up and cool-down.

    Detects change points, then keeps the *dominant segment*, the one longer than half the
    series (Pilot's rule). A series without change points is stable as a whole; a series too
    short to search is kept whole; when change points exist but no segment dominates,
    ``found`` is False and nothing is trimmed, so the caller decides (Pilot discarded such
    rounds).

    Parameters
    ----------
    x : array_like, shape (n,)
        Unit readings of one round in time order (finite).
    method : {"robust", "pilot"}, default "robust"
        ``"robust"``: change points of :func:`detect_changes` (EDM candidates confirmed by
        a significance test), so stationary noise yields no phases. ``"pilot"``: Pilot's
        procedure exactly (see Notes), including its false change points on noise.
    min_size : int, default 30
        Minimum segment length δ >= 2. Under ``"pilot"`` it is also the length below which
        detection is skipped (Pilot's ``MIN_CHANGEPOINT_DETECTION_SAMPLE_SIZE`` = 30).
    significance_level : float in (0, 1), default 0.05
        False-alarm level of the guard (``"robust"`` only; ignored by ``"pilot"``).
    confidence_level : float in (0, 1), default 0.95
        Level of the confidence interval of the stable-phase mean.
    rng : None, int or numpy.random.Generator, optional
        Passed to :func:`detect_changes` (its default test uses no randomness).
    location_tolerance : int, default 10
        Passed to :func:`detect_changes` (``method="robust"``): the warm-up end and
        cool-down start are placed where the posterior probability of lying within
        ``± location_tolerance`` samples of the true change is largest.
    unit : str, optional
        Label of the measured quantity.

    Returns
    -------
    StablePhase
        ``start``, ``end`` (half-open), ``found``, ``outcome``, ``warmup``, ``cooldown``,
        the change points, and the statistics of the stable phase with the
        autocorrelation-aware confidence interval of its mean.

    Raises
    ------
    InvalidInputError
        Non-numeric, non-1-D or non-finite ``x``; unknown ``method``; ``min_size`` not an
        integer >= 2; ``significance_level`` or ``confidence_level`` outside (0, 1).
    NotEnoughDataError
        ``x`` is empty.

    See Also
    --------
    detect_changes : the guarded detector behind ``method="robust"``.
    dominant_segment : Pilot's dominant-segment rule.

    Notes
    -----
    ``method="pilot"`` (spec §4.3–§4.5, ``ascar-io/pilot-bench`` ``lib/libpilot.cc``): for
    n < ``min_size`` nothing is searched and the whole round is kept
    (``not_enough_data``); otherwise EDM-percent (N. A. James, A. Kejariwal, D. S. Matteson,
    arXiv:1411.7955, 2014) with δ = ``min_size``, percent 0.25, degree 1 runs on the **raw**
    values, with no significance test, and :func:`dominant_segment` picks the stable phase.
    EDM-percent accepts its first split whatever the data (spec §4.2), so on pure noise
    Pilot nearly always finds change points and often no dominant segment (spec §8.1: at
    n = 300, 68 % of N(0, 1) rounds).

    ``method="robust"`` (spec §4.5, §8.3): the change points of :func:`detect_changes` on
    the whole series, then the same dominant-segment rule; for n < 2·``min_size`` the round
    is kept whole (``not_enough_data``).

    The confidence interval is
    :func:`~pilotstats.autocorrelation.subsession_analysis` of ``x[start:end]`` (Pilot's
    subsession method, default autocorrelation limit 0.1); when no subsession size
    qualifies, ``mean_ci`` is None and ``ci_note`` carries the reason.

    Cost: that of :func:`detect_changes` (``"robust"``) or of EDM-percent, O(n²)
    (``"pilot"``).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import stable_phase
    >>> rng = np.random.default_rng(3)
    >>> x = np.concatenate([rng.normal(14.0, 1.0, 50), rng.normal(10.0, 1.0, 450)])
    >>> phase = stable_phase(x)
    >>> phase.start, phase.end, phase.warmup, phase.outcome
    (50, 500, 50, 'trimmed')
    >>> stable_phase(rng.normal(10.0, 1.0, 300)).outcome
    'no_change'
    """
    data = as_float_array(x, "x")
    chosen: StablePhaseMethod = check_choice(method, "method", ("robust", "pilot"))
    delta = check_int(min_size, "min_size", low=2)
    level = check_probability(significance_level, "significance_level")
    ci_level = check_confidence_level(confidence_level)
    n = int(data.shape[0])

    if chosen == "pilot":
        too_short = n < delta
        change_points = (
            ChangePoints(
                locations=(),
                segments=make_segments(data, ()),
                n=n,
                method="edm-percent",
                parameters={
                    "min_size": delta,
                    "percent": PILOT_PERCENT,
                    "degree": PILOT_DEGREE,
                    "scale": "none",
                },
                too_short=True,
                unit=unit,
            )
            if too_short
            else _pilot_change_points(data, delta, unit)
        )
    else:
        change_points = detect_changes(
            data, min_size=delta, significance_level=level, rng=rng,
            location_tolerance=location_tolerance, unit=unit,
        )
        too_short = change_points.too_short

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

    part = data[start:end]
    mean_ci, ci_note = _mean_interval(part, ci_level, unit)
    return StablePhase(
        start=start,
        end=end,
        found=found,
        outcome=outcome,
        n=n,
        warmup=start,
        cooldown=n - end,
        change_points=change_points,
        method=chosen,
        stable_n=end - start,
        mean=float(np.mean(part)),
        median=float(np.median(part)),
        std=float(np.std(part, ddof=1)) if part.shape[0] >= 2 else math.nan,
        mean_ci=mean_ci,
        ci_note=ci_note,
        confidence_level=ci_level,
        min_size=delta,
        significance_level=None if chosen == "pilot" else level,
        unit=unit,
    )
