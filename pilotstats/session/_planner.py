"""Work-amount planning for work-per-second benchmarks.

Documentation: ``docs/algorithms/wps.md`` (*Planning the work of the next round*).

:class:`WorkPlanner` is a pure controller: it proposes the work amount of the next round and
learns from every recorded round. It grows too-short rounds by doubling, runs a quick ramp
within a time budget (the k heuristic of Pilot's documentation), then bisects the work range
so that the rounds spread evenly over it, and raises the lower end of the range above the
alpha-implied minimum once a fit is available.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import ceil_tol
from pilotstats._typing import ArrayLike1D, PlannerPhase, SubsessionBasis, WpsMethod
from pilotstats._validation import (
    as_float_array,
    check_autocorrelation_limit,
    check_bool,
    check_choice,
    check_confidence_level,
    check_int,
    check_option,
    check_real,
    check_text,
)
from pilotstats.autocorrelation import required_sample_size
from pilotstats.exceptions import (
    ConvergenceWarning,
    DataRangeWarning,
    InvalidInputError,
    LackOfFitWarning,
    PilotStatsError,
    ShortRoundWarning,
)
from pilotstats.regression._outliers import isolated_outliers
from pilotstats.regression._wps import WpsResult, wps
from pilotstats.session._options import IntervalTarget, RampOptions, WpsOptions

__all__ = ["WorkPlanner", "work_sequence"]


def _bisection_fraction(r: int) -> float:
    """Fraction ``f_r`` of round ``r >= 1`` of the bisection order.

    Level ``l = floor(log2 r) + 1``, index ``j = r - 2^(l-1) + 1``, ``f_r = (2j - 1) / 2^l``:
    1/2; 1/4, 3/4; 1/8, 3/8, 5/8, 7/8; 1/16, ...
    """
    level = r.bit_length()
    j = r - (1 << (level - 1)) + 1
    return (2 * j - 1) / float(1 << level)


def _ramp_increment(
    target_initial_time: float, first_duration: float, n_rounds: int
) -> tuple[float, int] | None:
    """Per-round duration increment ``k`` and ramp length of the k heuristic.

    ``n`` rounds whose durations grow by ``k`` from ``s`` take ``n s + k n (n - 1) / 2``;
    equating with ``T`` gives ``k = (2T - 2 s n) / (n^2 - n)``. When ``s n >= T`` the ramp is
    shortened to ``n_eff = ceil(T/s) - 1`` rounds; with fewer than 2 it is skipped (None).
    """
    n = n_rounds
    if first_duration * n >= target_initial_time:
        n = math.ceil(target_initial_time / first_duration) - 1
    if n < 2:
        return None
    k = (2 * target_initial_time - 2 * first_duration * n) / (n * n - n)
    if k <= 0:
        return None
    return k, n


#: Default required half width of the throughput interval: 5 % of ``v`` (Pilot's default
#: full width of 10 %).
_DEFAULT_HALF_WIDTH_PERCENT = 5.0


def _optional_positive(value: float | None, name: str) -> float | None:
    """None, or ``value`` checked to be a finite number > 0."""
    if value is None:
        return None
    return check_real(value, name, low=0.0, low_inclusive=False)


def work_sequence(a: float, b: float, *, integer_work: bool = True) -> Iterator[float]:
    """Yield the bisection order of work amounts in ``[a, b]``.

    Round ``r = 1, 2, ...`` uses ``w_r = a + f_r (b - a)`` with ``f_r`` = 1/2; 1/4, 3/4;
    1/8, 3/8, 5/8, 7/8; 1/16, ...: the midpoint of ``(a, b)``, then the midpoints of the two
    halves, each level left to right (Pilot's documentation, figure of the WPS method).

    Parameters
    ----------
    a, b : float
        Lower and upper work amount, ``0 <= a <= b``.
    integer_work : bool, default True
        Round every amount down to an integer (``floor``); repeated amounts may then occur
        and act as replicates.

    Yields
    ------
    float
        The work amounts, without end (take what you need, e.g. ``itertools.islice``).

    Raises
    ------
    InvalidInputError
        ``a`` or ``b`` not finite, negative, or ``a > b``; ``integer_work`` not a bool.
        Raised by the call itself, before the first amount is taken.

    Notes
    -----
    Complexity O(1) per amount.

    Examples
    --------
    >>> from itertools import islice
    >>> list(islice(work_sequence(0, 16), 8))
    [8.0, 4.0, 12.0, 2.0, 6.0, 10.0, 14.0, 1.0]
    """
    low = check_real(a, "a", low=0.0)
    high = check_real(b, "b", low=0.0)
    if low > high:
        raise InvalidInputError(f"a must not exceed b, got a={low:g} > b={high:g}")
    return _bisection_amounts(low, high, check_bool(integer_work, "integer_work"))


def _bisection_amounts(low: float, high: float, integer_work: bool) -> Iterator[float]:
    r = 1
    while True:
        value = low + _bisection_fraction(r) * (high - low)
        yield float(math.floor(value)) if integer_work else value
        r += 1


def unit_reading_work(
    required: int | None, total_readings: int, total_work: float, last_work: float
) -> float:
    """Work expected to deliver the missing unit readings (Pilot's rule).

    ``needed = required - total`` (``total`` when ``required`` is unknown, i.e. double the
    data); the proposal is ``floor(1.2 * needed * total_work / total)``; without any unit
    reading yet it is ``2 * last_work``.
    """
    if total_readings == 0:
        return 2.0 * last_work
    needed = total_readings if required is None else required - total_readings
    return float(math.floor(1.2 * needed * (total_work / total_readings)))


class WorkPlanner:
    """Choose the work amount of each benchmark round.

    Parameters
    ----------
    min_work : float
        Smallest work amount allowed (units), ``>= 0``.
    max_work : float
        Largest work amount allowed (``b``), ``> 0`` and ``>= min_work``.
    min_round_duration : float, default 1.0
        Rounds shorter than this (s) are *short*: recorded but not analysed, and the work is
        doubled until a round lasts at least this long (Pilot: short-round detection).
    ramp : RampOptions, optional
        The start: ``initial_work`` (first round; ``max(1, min_work)`` when None),
        ``target_initial_time`` (time budget ``T`` of the initial ramp, 60 s),
        ``initial_rounds`` (rounds ``n`` of the ramp, 51: the documentation says more than
        50 in most cases) and ``soft_limit_factor`` (no proposal exceeds this factor times
        the mean of all previous work amounts, 5).
    integer_work : bool, default True
        Propose integer work amounts (rounded down).
    wps : WpsOptions, optional
        The WPS analysis: ``interval`` (target half width of the throughput interval, which is
        asymmetric about ``v``, in percent of ``v`` and/or units/s, the smaller enabled one
        applying, both None: 5 %; ``min_subsessions`` ``h`` before it can finish, None: 21,
        Pilot's ``h > 20``), ``enabled`` (False: only short-round doubling and unit-reading
        pacing propose work amounts), ``subsession_basis`` (the residual basis measures only
        the correlation of the errors; the planner makes per-round rates autocorrelated
        whenever ``alpha != 0``) and ``outlier_threshold``: rounds whose residual from the
        least-squares line exceeds this many robust standard deviations (normal-consistent
        median absolute deviation) are excluded from the fit, one at a time and at most
        10 % of the rounds (isolated outliers only), and listed in :attr:`outlier_rounds`;
        None keeps every round.
    confidence_level : float, default 0.95
        Level of the throughput interval.
    autocorrelation_limit : float, default 0.1
        Passed to :func:`~pilotstats.regression.wps`.
    unit_readings_min_subsessions : int, default 0
        Minimum number of subsessions of the unit-reading requirement computed by
        :meth:`record` when ``required_unit_readings`` is not supplied.
    unit : str, default "units"
        Work unit label passed to the fits.
    method : {None, "default", "pilot"}, optional
        ``"pilot"`` reproduces Pilot v0.14's pacing instead of the documented one: after the
        doubling phase, an ascending slice grid (``n = 10`` in the k formula, ``k >= 1 s``, at
        least 5 slices, slice halved at the top), no alpha-based raise of the lower bound,
        ``wps(method="pilot")`` fits and Pilot's stop rule ``0 < v_ci < W_req`` on full
        widths, here on half widths. For comparison with Pilot only.

    Attributes
    ----------
    phase : {"doubling", "ramp", "bisection", "slices"}
        Current pacing phase (``"slices"`` only under ``method="pilot"``).
    lower_bound : float
        Current lower end ``a`` of the work range (``min_work`` until established).
    wps_result : WpsResult or None
        Latest successful fit (from the fourth recorded round on). A fit with ``notes``
        (no subsession size met the autocorrelation limit) is provisional: it neither
        raises the lower work bound nor finishes the WPS analysis.
    wps_error : str or None
        Why the latest fit failed (too few rounds, no subsession size, ...), if it did.
    wps_warning : str or None
        Warning of the latest fit, if any: its alpha filter did not settle, or its
        lack-of-fit test rejected the line (``wps_result.lack_of_fit``). Recorded here, not
        re-emitted on every round.
    outlier_rounds : tuple of int
        Positions (0-based, among the recorded rounds) of the isolated outlier rounds
        excluded from the latest fit.

    Notes
    -----
    Phases:

    1. **Doubling** [Pilot]: a round shorter than ``min_round_duration`` leads to ``b`` when
       its work exceeds ``b/2``, else to twice its work. The first long enough round sets
       ``a = max(min_work, w)`` and its duration ``s``.
    2. **Ramp** [documentation]: rounds ``i = 2..n`` use ``a + (i - 1) k rho`` with
       ``k = (2T - 2 s n)/(n^2 - n)`` and ``rho`` the rate observed in the first long round,
       so the ramp takes about ``T`` seconds; it ends early once it reaches ``b``.
    3. **Bisection** [documentation]: ``a + f_r (b - a)`` with the fractions of
       :func:`work_sequence`. The index ``r`` is not reset when ``a`` rises.

    From the fourth round on every record refits :func:`~pilotstats.regression.wps` with
    ``min_round_duration``; when ``alpha < 0`` the lower end rises to
    ``ceil(-alpha v)``, the alpha-implied minimum work (rounds below it end before the
    non-stable phases are over). Every proposal is capped by ``b`` and the soft limit; with
    unit-reading pacing active the larger of the proposals is taken (Pilot's rule). Pilot's
    own slice grid is not reproduced.

    Complexity: Each :meth:`record` refits the WPS regression on all n rounds so far,
    O(n log n); a session of n rounds costs O(n² log n) in total.

    Examples
    --------
    >>> planner = WorkPlanner(1, 1000, min_round_duration=1.0)
    >>> planner.next_work()
    1.0
    >>> planner.record(1, 0.01)  # too short: double
    >>> planner.next_work()
    2.0
    """

    def __init__(
        self,
        min_work: float,
        max_work: float,
        *,
        min_round_duration: float = 1.0,
        ramp: RampOptions | None = None,
        integer_work: bool = True,
        wps: WpsOptions | None = None,
        confidence_level: float = 0.95,
        autocorrelation_limit: float = 0.1,
        unit_readings_min_subsessions: int = 0,
        unit: str = "units",
        method: WpsMethod | None = None,
    ) -> None:
        ramp = check_option(RampOptions() if ramp is None else ramp, "ramp", RampOptions)
        wps = check_option(WpsOptions() if wps is None else wps, "wps", WpsOptions)
        target = check_option(wps.interval, "wps.interval", IntervalTarget)
        self.min_work = check_real(min_work, "min_work", low=0.0)
        self.max_work = check_real(max_work, "max_work", low=0.0, low_inclusive=False)
        if self.min_work > self.max_work:
            raise InvalidInputError(
                f"min_work must not exceed max_work, got {self.min_work:g} > {self.max_work:g}"
            )
        self.min_round_duration = check_real(min_round_duration, "min_round_duration", low=0.0)
        self.target_initial_time = check_real(
            ramp.target_initial_time, "target_initial_time", low=0.0, low_inclusive=False
        )
        self.initial_rounds = check_int(ramp.initial_rounds, "initial_rounds", low=2)
        self.soft_limit_factor = check_real(
            ramp.soft_limit_factor, "soft_limit_factor", low=1.0, allow_inf=True
        )
        self.integer_work = check_bool(integer_work, "integer_work")
        half_width_percent = target.half_width_percent
        if half_width_percent is None and target.half_width is None:
            half_width_percent = _DEFAULT_HALF_WIDTH_PERCENT
        self.half_width_percent = _optional_positive(half_width_percent, "half_width_percent")
        self.half_width = _optional_positive(target.half_width, "half_width")
        self.confidence_level = check_confidence_level(confidence_level)
        self.autocorrelation_limit = check_autocorrelation_limit(autocorrelation_limit)
        self.min_subsessions = check_int(
            _config.WPS_MIN_SUBSESSIONS if target.min_subsessions is None
            else target.min_subsessions, "min_subsessions", low=3)
        self.wps_analysis = check_bool(wps.enabled, "wps_analysis")
        self.unit = check_text(unit, "unit")
        self.method: WpsMethod = (
            "default" if method is None else check_choice(method, "method", ("default", "pilot"))
        )
        self.subsession_basis: SubsessionBasis = check_choice(
            wps.subsession_basis, "subsession_basis", ("rates", "residuals")
        )
        if self.method == "pilot":
            self.subsession_basis = "rates"  # Pilot chooses q from the per-round rates
        self.unit_readings_min_subsessions = check_int(
            unit_readings_min_subsessions, "unit_readings_min_subsessions", low=0
        )
        self.outlier_threshold = (
            None
            if wps.outlier_threshold is None
            else check_real(
                wps.outlier_threshold, "outlier_threshold", low=0.0, low_inclusive=False
            )
        )
        initial_work = ramp.initial_work
        if initial_work is None:
            first = max(1.0, self.min_work)
        else:
            first = check_real(initial_work, "initial_work", low=0.0, low_inclusive=False)
            if first > self.max_work:
                raise InvalidInputError(
                    f"initial_work must not exceed max_work, got {first:g} > {self.max_work:g}"
                )
        self.initial_work = self._round(first, up=True)
        self._init_state()

    def _init_state(self) -> None:
        """Start with no recorded round, in the doubling phase."""
        self.phase: PlannerPhase = "doubling"
        self.lower_bound = self.min_work
        self.wps_result: WpsResult | None = None
        self.wps_error: str | None = None
        self.wps_warning: str | None = None
        self.outlier_rounds: tuple[int, ...] = ()
        self._work: list[float] = []
        self._durations: list[float] = []
        self._ramp: tuple[float, int, float] | None = None  # k, n_eff, rate
        self._ramp_index = 2
        self._bisection_index = 1
        self._unit_readings: list[np.ndarray] = []
        self._unit_total = 0
        self._unit_required: int | None = None
        self._unit_active = False
        self._range_warned = False
        self._short: list[int] = []  # rounds not analysed (see is_short)
        self._long_work: float | None = None  # work of the first long enough round
        self._slices: int | None = None  # method="pilot": Pilot's WPS slice count
        self._pilot_next: float | None = None
        self._next = self.initial_work

    # -- helpers -------------------------------------------------------------------------

    def _round(self, value: float, *, up: bool = False) -> float:
        if not self.integer_work:
            return float(value)
        # ceil within a relative tolerance: an alpha-implied minimum of 50 computed as
        # 50.000000000000007 must not become 51
        return float(ceil_tol(value) if up else math.floor(value))

    @property
    def n_rounds(self) -> int:
        """Number of recorded rounds."""
        return len(self._work)

    @property
    def work(self) -> np.ndarray:
        """Recorded work of each round (a read-only copy)."""
        values = np.array(self._work, dtype=np.float64)
        values.setflags(write=False)
        return values

    @property
    def durations(self) -> np.ndarray:
        """Recorded durations in s (a read-only copy)."""
        values = np.array(self._durations, dtype=np.float64)
        values.setflags(write=False)
        return values

    @property
    def target_half_width(self) -> float | None:
        """Target half width of the throughput interval at the current ``v`` (units/s)."""
        result = self.wps_result
        candidates = []
        if self.half_width is not None:
            candidates.append(self.half_width)
        if self.half_width_percent is not None:
            if result is None or not result.valid:
                return None if self.half_width is None else self.half_width
            candidates.append(self.half_width_percent / 100.0 * result.throughput)
        return min(candidates)

    @property
    def wps_finished(self) -> bool:
        """The WPS stop rule holds (False when the analysis is off)."""
        result = self.wps_result
        if not self.wps_analysis or result is None or self.n_rounds < 4 or result.notes:
            # a fit with notes fell back to correlated subsessions: never stop on it
            return False
        required = self.target_half_width
        if self.method == "pilot":  # rounds > 3, h > 20, v > 0 and 0 < v_ci < W_req (halved)
            return (
                result.n_subsessions >= self.min_subsessions
                and result.valid
                and required is not None
                and 0 < result.throughput_half_width < required
            )
        return (
            result.n_subsessions >= self.min_subsessions
            and result.valid
            and result.bounded
            and required is not None
            and result.throughput_half_width <= required
        )

    @property
    def unit_readings_finished(self) -> bool:
        """Enough unit readings: ``required < total`` (strict, as Pilot)."""
        return (
            self._unit_active
            and self._unit_required is not None
            and self._unit_required < self._unit_total
        )

    @property
    def finished(self) -> bool:
        """Every active analysis (WPS, unit-reading pacing) is finished."""
        active = []
        if self.wps_analysis:
            active.append(self.wps_finished)
        if self._unit_active:
            active.append(self.unit_readings_finished)
        return bool(active) and all(active)

    # -- public protocol -----------------------------------------------------------------

    def next_work(self) -> float:
        """Work proposed for the next round (does not change the planner)."""
        return self._next

    @property
    def short_rounds(self) -> tuple[int, ...]:
        """Positions (0-based) of the recorded rounds that are short (see :meth:`is_short`)."""
        return tuple(self._short)

    def is_short(self, work: float, duration: float) -> bool:
        """Whether a round of this work and duration, recorded next, would be short.

        Short rounds are stored but never enter a fit. A round timed as 0 s is short. Until
        a round lasts ``min_round_duration``, rounds shorter than that are short (the
        doubling phase). From then on a round is decided by its *planned work*: every round
        of at least the work of that first long enough round is used whatever its measured
        duration, so rounds of equal work that happened to run fast are not censored (a
        duration filter would drop the fast tail and bias the slope); only rounds of less
        work still need the duration. ``method="pilot"`` keeps Pilot's duration rule.
        """
        if duration <= 0:
            return True
        if self.method == "pilot" or self._long_work is None or work < self._long_work:
            return duration < self.min_round_duration
        return False

    def record(
        self,
        work: float,
        duration: float,
        *,
        unit_readings: ArrayLike1D | int | None = None,
        required_unit_readings: int | None = None,
    ) -> None:
        """Record a finished round and plan the next one.

        Parameters
        ----------
        work : float
            Work amount of the round (> 0).
        duration : float
            Its duration in seconds (>= 0; a round a coarse timer measured as 0 s is short
            whatever ``min_round_duration``, and never enters a fit).
        unit_readings : array_like or int, optional
            The round's unit readings (kept after any warm-up removal), or just their count.
            Recording any activates unit-reading pacing.
        required_unit_readings : int, optional
            Required total number of unit readings, overriding the planner's own computation
            (:func:`pilotstats.autocorrelation.required_sample_size` on the readings given).

        Raises
        ------
        InvalidInputError
            Non-positive or non-finite work or duration, negative counts.

        Warns
        -----
        ShortRoundWarning
            A round at ``max_work`` is still shorter than ``min_round_duration``.
        DataRangeWarning
            The alpha-implied minimum work reaches ``max_work`` (the range cannot contain
            the non-stable phases); the lower bound is left unchanged.
        """
        w = check_real(work, "work", low=0.0, low_inclusive=False)
        d = check_real(duration, "duration", low=0.0)
        self._record_unit_readings(unit_readings, required_unit_readings)
        if self.is_short(w, d):
            self._short.append(len(self._work))
        elif self._long_work is None and d >= self.min_round_duration:
            self._long_work = w
        self._work.append(w)
        self._durations.append(d)
        self._advance(w, d)
        if self.phase == "doubling" and w >= self.max_work and d > 0:
            warnings.warn(
                f"a round at max_work ({self.max_work:g}) took {d:g} s, still shorter than "
                f"min_round_duration={self.min_round_duration:g} s; increase max_work or "
                "lower min_round_duration",
                ShortRoundWarning,
                stacklevel=2,
            )
        if self.wps_analysis and self.n_rounds >= 4:
            self._refit()
        self._next = self._propose()

    # -- internals -----------------------------------------------------------------------

    def _record_unit_readings(self, readings: ArrayLike1D | int | None, required: Any) -> None:
        count: int | None = None
        values: np.ndarray | None = None
        if isinstance(readings, (int, np.integer)) and not isinstance(readings, bool):
            count = check_int(readings, "unit_readings", low=0)
        elif readings is not None:
            values = as_float_array(readings, "unit_readings", min_length=0)
            count = int(values.shape[0])
        needed = None if required is None else check_int(required, "required_unit_readings", low=0)
        if count is None and needed is None:
            return
        self._unit_active = True
        if values is not None:
            self._unit_readings.append(values)
        self._unit_total += 0 if count is None else count
        if needed is not None:
            self._unit_required = needed
        elif values is not None:
            self._unit_required = self._computed_unit_requirement()

    def _computed_unit_requirement(self) -> int | None:
        data = np.concatenate(self._unit_readings)
        if data.shape[0] < 3:
            return None
        try:
            result = required_sample_size(
                data,
                half_width_percent=self.half_width_percent,
                half_width=self.half_width,
                confidence_level=self.confidence_level,
                autocorrelation_limit=self.autocorrelation_limit,
                min_subsessions=self.unit_readings_min_subsessions,
            )
        except PilotStatsError:
            return None
        return None if result.samples is None else int(result.samples)

    def _advance(self, w: float, d: float) -> None:
        """Move the phase machine after a recorded round."""
        if self.method == "pilot":
            if self.phase == "doubling" and d >= self.min_round_duration and d > 0:
                self.lower_bound = max(self.min_work, w)
                self.phase = "slices"
            if self.phase == "slices" and self.wps_analysis and d > 0:
                self._pilot_next = self._pilot_slice_proposal(w, d)
            return
        if self.phase == "doubling":
            if d >= self.min_round_duration and d > 0:
                self.lower_bound = max(self.min_work, w)
                ramp = _ramp_increment(self.target_initial_time, d, self.initial_rounds)
                if ramp is None or not self.wps_analysis:
                    self.phase = "bisection"
                else:
                    k, n_eff = ramp
                    self._ramp = (k, n_eff, w / d)
                    self._ramp_index = 2
                    self.phase = "ramp"
        elif self.phase == "ramp":
            assert self._ramp is not None
            self._ramp_index += 1
            if self._ramp_index > self._ramp[1] or w >= self.max_work:
                self.phase = "bisection"
        else:
            self._bisection_index += 1

    def _pilot_slice_proposal(self, w_last: float, d_last: float) -> float | None:
        """Pilot's WPS slice grid (``calc_next_round_work_amount_from_wps``).

        Reproduced for ``method="pilot"`` only: an ascending uniform grid from the lower bound
        that, at the top, halves the slice and restarts from the bottom.
        """
        low = max(self.lower_bound, self.min_work)
        high = self.max_work
        if low >= high:
            return None  # Pilot: min_work_amount == max_work_amount, WPS impossible
        if self._slices is None:
            if high - low <= 10:
                self._slices = int(high - low)
            else:
                n = 10
                t = self.target_initial_time
                k = max(1.0, (2 * t - 2 * d_last * n) / (n * n - n))
                slice_float = k * w_last / d_last
                self._slices = max(5, int((high - low) / slice_float))
        size = int((high - low) // self._slices)
        if w_last < low:
            return low + size
        if w_last > high - size:
            if size != 1:
                self._slices *= 2
                size //= 2
            return low + size
        return low + (math.floor((w_last - low) / size) + 1) * size

    def _fit_rounds(self) -> np.ndarray:
        """Positions of the rounds the fit may use: not short, isolated outliers out.

        ``method="pilot"`` passes every timed round (> 0 s) and lets :func:`wps` apply
        Pilot's duration filter.
        """
        work = np.array(self._work, dtype=np.float64)
        durations = np.array(self._durations, dtype=np.float64)
        timed = np.flatnonzero(durations > 0)
        if self.method == "pilot":
            eligible = timed[durations[timed] >= self.min_round_duration]
        else:
            eligible = np.setdiff1d(timed, np.array(self._short, dtype=np.int64))
            timed = eligible
        outliers: list[int] = []
        if self.outlier_threshold is not None and self.method == "default":
            found = isolated_outliers(
                work[eligible], durations[eligible], threshold=self.outlier_threshold
            )
            outliers = sorted(int(eligible[i]) for i in found)
        self.outlier_rounds = tuple(outliers)
        return np.setdiff1d(timed, np.array(outliers, dtype=np.int64))

    def _refit(self) -> None:
        used = self._fit_rounds()
        if self.method == "default" and used.shape[0] < 3:
            self.wps_result = None
            self.wps_error = (
                f"{used.shape[0]} of {self.n_rounds} rounds can be used (short rounds are "
                "not), a fit needs 3"
            )
            return
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                warnings.simplefilter("always", LackOfFitWarning)
                result = wps(
                    np.array(self._work, dtype=np.float64)[used],
                    np.array(self._durations, dtype=np.float64)[used],
                    confidence_level=self.confidence_level,
                    autocorrelation_limit=self.autocorrelation_limit,
                    # the default method's rounds are already chosen by is_short
                    min_round_duration=(
                        self.min_round_duration if self.method == "pilot" else 0.0
                    ),
                    subsession_basis=self.subsession_basis,
                    unit=self.unit,
                    method=self.method,
                )
        except PilotStatsError as exc:
            self.wps_result = None
            self.wps_error = str(exc)
            return
        self.wps_result = result
        self.wps_error = None
        # A fit whose alpha filter oscillates is still usable; keep the note, do not warn on
        # every round (the planner refits after each one).
        self.wps_warning = next(
            (
                str(w.message)
                for w in caught
                if issubclass(w.category, (ConvergenceWarning, LackOfFitWarning))
            ),
            None,
        )
        if (
            self.method == "default"
            and self.phase != "doubling"
            and result.valid
            and not result.notes  # a fallback fit (correlated subsessions) is provisional
            and result.alpha < 0
        ):
            raised = self._round(-result.alpha * result.throughput, up=True)
            if raised >= self.max_work:
                if not self._range_warned:
                    self._range_warned = True
                    warnings.warn(
                        f"the alpha-implied minimum work amount ({raised:g}) reaches "
                        f"max_work ({self.max_work:g}); the work range cannot contain the "
                        "non-stable phases, increase max_work",
                        DataRangeWarning,
                        stacklevel=3,
                    )
            else:
                self.lower_bound = max(self.lower_bound, raised)

    def _wps_proposal(self) -> float | None:
        if not self.wps_analysis or self.wps_finished or self.phase == "doubling":
            return None
        if self.method == "pilot":
            return self._pilot_next
        a, b = self.lower_bound, self.max_work
        if self.phase == "ramp":
            assert self._ramp is not None
            k, _, rate = self._ramp
            return min(b, a + (self._ramp_index - 1) * k * rate)
        return a + _bisection_fraction(self._bisection_index) * (b - a)

    def _doubling_proposal(self) -> float | None:
        if self.phase != "doubling":
            return None
        last, b = self._work[-1], self.max_work
        if last >= b:
            return b
        return b if last > b / 2 else min(2 * last, b)

    def _unit_proposal(self) -> float | None:
        if not self._unit_active or self.unit_readings_finished:
            return None
        return unit_reading_work(
            self._unit_required, self._unit_total, math.fsum(self._work), self._work[-1]
        )

    def _propose(self) -> float:
        return self.combine_proposals()

    def combine_proposals(self, *extra: float) -> float:
        """The next work amount, combining the planner's proposals with ``extra`` ones.

        The largest of the lower bound, the planner's unfinished proposals (doubling, WPS,
        unit-reading pacing) and ``extra`` (e.g. a session's own per-index unit-reading
        proposals), capped by ``max_work`` and the soft limit, rounded down to an integer
        when ``integer_work`` (Pilot's rule).
        """
        if not self._work:
            return self.initial_work  # the first round
        proposals = [
            p
            for p in (self._doubling_proposal(), self._wps_proposal(), self._unit_proposal())
            if p is not None
        ]
        value = max([self.lower_bound, *proposals, *extra])
        soft_limit = self.soft_limit_factor * (math.fsum(self._work) / len(self._work))
        value = min(value, soft_limit, self.max_work)
        value = self._round(value)
        return max(value, 1.0) if self.integer_work else value
