"""CI-driven benchmark sessions: run rounds until every requested interval is narrow enough.

:class:`BenchmarkSession` is a pure, embeddable controller answering Pilot's question "how long
shall I run this benchmark to get a precise result?". A harness asks :meth:`~BenchmarkSession.
next_round` for a work amount, runs the round, and hands back its duration and optional
per-round readings and per-unit readings with :meth:`~BenchmarkSession.record`;
:attr:`~BenchmarkSession.done` turns True once every requested confidence-interval target
(and baseline comparison) is met. :func:`run_session` drives a Python callable this way.

Analyses (specifications ``specs/wps.md`` and ``specs/autocorrelation.md`` §3–§7):

- **WPS throughput** from whole rounds, ``t = alpha + w / v``
  (:func:`pilotstats.regression.wps`), paced by :class:`pilotstats.regression.WorkPlanner`;
- **readings** (one value per round and performance index): subsession analysis and
  required sample size;
- **unit readings** (many values per round, e.g. per-operation latencies): warm-up and
  cool-down removal per round, then subsession analysis and required sample size; the work
  amount is paced to deliver the missing readings (wps spec §6.7);
- optional **baseline comparison** (Welch's test on subsession statistics) with the sample
  size needed to separate the result from the baseline.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pilotstats._typing import (
    ArrayLike1D,
    Float64Array1D,
    MeanMethod,
    SubsessionBasis,
    WarmupRemoval,
)
from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_confidence_level,
    check_int,
    check_probability,
    check_real,
)
from pilotstats.autocorrelation import (
    ComparisonSampleSizeResult,
    SampleSizeResult,
    SubsessionResult,
    WelchResult,
    required_sample_size,
    required_sample_size_for_comparison,
    subsession_analysis,
    welch_test,
)
from pilotstats.autocorrelation._blocks import check_autocorrelation_limit
from pilotstats.changepoints import stable_phase
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
    PilotStatsError,
    UnreachableTargetError,
)
from pilotstats.regression.planner import WorkPlanner, unit_reading_work_amount
from pilotstats.regression.wps import WpsResult
from pilotstats.results import Result, format_number, format_quantity

__all__ = [
    "Baseline",
    "BenchmarkSession",
    "IndexAnalysis",
    "SessionProgress",
    "SessionResult",
    "run_session",
    "trim_warmup",
]

_WARMUP_METHODS: tuple[WarmupRemoval, ...] = ("stable_phase", "trim", "none")


class Baseline(NamedTuple):
    """Summary of a baseline result to compare against (Welch, autocorrelation spec §7).

    For autocorrelated data give subsession statistics: the mean, the subsession variance
    ``s2_q`` and the number of subsessions ``h`` (a
    :class:`~pilotstats.autocorrelation.SubsessionResult` is accepted wherever a
    ``Baseline`` is).

    Examples
    --------
    Compare a session's readings with an earlier result (mean, subsession variance,
    number of subsessions):

    >>> import numpy as np
    >>> from pilotstats.session import Baseline, BenchmarkSession
    >>> rng = np.random.default_rng(0)
    >>> session = BenchmarkSession(max_work=10_000, min_round_duration=0.0, min_rounds=5,
    ...                            baseline_readings=Baseline(mean=0.52, variance=1e-4, n=10))
    >>> while not session.done:
    ...     work = session.next_round()
    ...     session.record(work, 0.01 + work / 1e4, readings=[0.5 + 0.01 * rng.normal()])
    >>> comparison = session.result().readings[0].comparison
    >>> round(comparison.difference, 3), comparison.p_value < 0.001
    (-0.022, True)
    """

    mean: float
    variance: float
    n: int


def _as_baseline(value: Any, name: str) -> Baseline | None:
    if value is None:
        return None
    if isinstance(value, SubsessionResult):
        return Baseline(value.mean, value.subsession_variance, value.n_subsessions)
    if isinstance(value, tuple) and len(value) == 3:
        mean = check_real(value[0], f"{name} mean")
        variance = check_real(value[1], f"{name} variance", low=0.0)
        n = check_int(value[2], f"{name} n", low=2)
        return Baseline(mean, variance, n)
    raise InvalidInputError(
        f"{name} must be a Baseline(mean, variance, n), a SubsessionResult or None, "
        f"got {type(value).__name__}"
    )


def _as_baselines(value: Any, name: str) -> tuple[Baseline | None, ...]:
    """One baseline per performance index; a single baseline applies to index 0."""
    if value is None:
        return ()
    single = isinstance(value, (Baseline, SubsessionResult)) or (
        isinstance(value, tuple)
        and len(value) == 3
        and all(np.ndim(v) == 0 for v in value)
        and not any(v is None or isinstance(v, tuple) for v in value)
    )
    if single:
        return (_as_baseline(value, name),)
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(
            f"{name} must be a Baseline, a SubsessionResult, or a list of them (one per "
            f"index, None for none), got {type(value).__name__}"
        )
    return tuple(_as_baseline(item, f"{name}[{i}]") for i, item in enumerate(value))


def trim_warmup(values: ArrayLike1D, fraction: float = 0.1) -> tuple[int, int]:
    """Pilot's fixed-percentage warm-up trimming of one round's unit readings.

    Drops the first ``round_half_away_from_zero(fraction * n)`` readings, but a non-empty
    round always keeps at least its last reading; an empty round contributes nothing
    (autocorrelation spec V4; Pilot ``lib/test/unit_test_unit_readings_iter.cc``).

    Parameters
    ----------
    values : array_like, shape (n,)
        The round's unit readings (numbers; may be empty).
    fraction : float, default 0.1
        Fraction of the round treated as warm-up, in [0, 1).

    Returns
    -------
    (start, end) : tuple of int
        Half-open range of the readings kept.

    Raises
    ------
    InvalidInputError
        ``values`` is not a 1-D array of finite numbers, or ``fraction`` is outside [0, 1).

    Examples
    --------
    >>> trim_warmup([1, 5, 10, 20, 30, 40, 42, 43, 41])
    (1, 9)
    """
    n = int(as_float_array(values, "values", min_length=0).shape[0])
    p = check_real(fraction, "trim_fraction", low=0.0, high=1.0, high_inclusive=False)
    if n == 0:
        return 0, 0
    drop = min(math.floor(p * n + 0.5), n - 1)
    return drop, n


def _stable_range(
    values: Float64Array1D, method: WarmupRemoval, fraction: float
) -> tuple[int, int]:
    """The one switch for warm-up/cool-down removal of a round's unit readings."""
    if method == "none" or values.shape[0] == 0:
        return 0, int(values.shape[0])
    if method == "trim":
        return trim_warmup(values, fraction)
    phase = stable_phase(values)
    if not phase.found:
        return 0, int(values.shape[0])  # no dominant segment: keep the round (documented)
    return int(phase.start), int(phase.end)


@dataclass(frozen=True, slots=True)
class IndexAnalysis(Result):
    """Analysis of one performance index (readings or unit readings) in a session.

    Attributes
    ----------
    kind : str
        ``"readings"`` or ``"unit_readings"``.
    index : int
        Performance index.
    n : int
        Samples analysed (unit readings: after warm-up removal).
    n_removed : int
        Unit readings removed as warm-up/cool-down (0 for readings).
    analysis : SubsessionResult or None
        Mean with its confidence interval (None while no subsession size qualifies).
    required : SampleSizeResult or None
        Samples needed for the target width.
    comparison : WelchResult or None
        Welch test of this result against the baseline (difference = result - baseline).
    comparison_required : ComparisonSampleSizeResult or None
        Samples needed to reach the target p-value against the baseline.
    comparison_note : str or None
        Why no comparison requirement applies (e.g. the difference is unreachable).
    done : bool
        The width target is met and, with a baseline, the comparison size too.
    progress : float
        Fraction of the requirement reached, in [0, 1].

    Examples
    --------
    The ``readings`` and ``unit_readings`` of a :class:`SessionResult`:

    >>> import numpy as np
    >>> from pilotstats.session import BenchmarkSession
    >>> rng = np.random.default_rng(0)
    >>> session = BenchmarkSession(max_work=10_000, min_round_duration=0.0, min_rounds=5)
    >>> while not session.done:  # rounds take 10 ms + work / (1e4 units/s); one reading each
    ...     work = session.next_round()
    ...     session.record(work, 0.01 + work / 1e4, readings=[0.5 + 0.01 * rng.normal()])
    >>> analysis = session.result().readings[0]
    >>> print(analysis)
    readings[0]: mean 0.4982 (95 % CI [0.4926, 0.5038], n = 21, q = 2, h = 10) (done)
    >>> analysis.kind, analysis.n, analysis.done
    ('readings', 21, True)
    """

    kind: str
    index: int
    n: int
    n_removed: int
    analysis: SubsessionResult | None
    required: SampleSizeResult | None
    comparison: WelchResult | None
    comparison_required: ComparisonSampleSizeResult | None
    comparison_note: str | None
    done: bool
    progress: float

    def __str__(self) -> str:
        head = f"{self.kind}[{self.index}]"
        if self.analysis is None:
            return f"{head}: n = {self.n}, interval undetermined (collect more data)"
        state = "done" if self.done else f"{self.progress:.0%} of target"
        return f"{head}: {self.analysis} ({state})"


@dataclass(frozen=True, slots=True)
class SessionProgress(Result):
    """How far a session is from its targets (for progress bars).

    Attributes
    ----------
    fraction : float
        Overall progress in [0, 1]: the least advanced of the rounds floor and every
        analysis (1.0 when done).
    n_rounds, min_rounds : int
        Rounds recorded and the minimum.
    done : bool
        The session is finished.
    analyses : dict
        Progress of each analysis by name (``"wps"``, ``"readings[0]"``, ...).
    message : str
        Short human-readable status.

    Examples
    --------
    :attr:`BenchmarkSession.progress` after each recorded round:

    >>> from pilotstats.session import BenchmarkSession
    >>> session = BenchmarkSession(max_work=10_000, min_round_duration=0.0, min_rounds=5)
    >>> session.record(session.next_round(), 0.02)
    >>> print(session.progress)
    0% (round 1, waiting for wps)
    >>> session.progress.analyses  # one of the 5 required rounds; no WPS fit yet
    {'rounds': 0.2, 'wps': 0.0}
    """

    fraction: float
    n_rounds: int
    min_rounds: int
    done: bool
    analyses: dict[str, float]
    message: str

    def __str__(self) -> str:
        return f"{self.fraction:.0%} ({self.message})"


@dataclass(frozen=True, slots=True)
class SessionResult(Result):
    """Current estimates of a :class:`BenchmarkSession`.

    Attributes
    ----------
    n_rounds : int
        Rounds recorded.
    total_work : float
        Sum of the work amounts.
    total_duration : float
        Sum of the round durations (s).
    done : bool
        The session is finished (targets met, or a limit reached).
    targets_met : bool
        Every requested target is met (and at least ``min_rounds`` rounds were run).
    stop_reason : str or None
        ``"targets_met"``, ``"max_rounds"``, ``"max_duration"`` or None while running.
    wps : WpsResult or None
        Latest work-per-second fit (None before it succeeds or when disabled).
    wps_target_width : float or None
        Required full width of the throughput interval at the current estimate.
    wps_done : bool or None
        The WPS stop rule holds (None when WPS is disabled).
    readings, unit_readings : tuple of IndexAnalysis
        One analysis per performance index.
    confidence_level : float
        Level of every interval.
    unit : str
        Work unit label.

    Examples
    --------
    Returned by :meth:`BenchmarkSession.result` and :func:`run_session`:

    >>> import numpy as np
    >>> from pilotstats.session import BenchmarkSession
    >>> rng = np.random.default_rng(0)
    >>> session = BenchmarkSession(max_work=10_000, min_round_duration=0.0, min_rounds=5)
    >>> while not session.done:  # rounds take 10 ms + work / (1e4 units/s); one reading each
    ...     work = session.next_round()
    ...     session.record(work, 0.01 + work / 1e4, readings=[0.5 + 0.01 * rng.normal()])
    >>> result = session.result()
    >>> result.done, result.n_rounds, round(result.wps.throughput)
    (True, 21, 10000)
    >>> print(result.readings[0])
    readings[0]: mean 0.4982 (95 % CI [0.4926, 0.5038], n = 21, q = 2, h = 10) (done)
    """

    n_rounds: int
    total_work: float
    total_duration: float
    done: bool
    targets_met: bool
    stop_reason: str | None
    wps: WpsResult | None
    wps_target_width: float | None
    wps_done: bool | None
    readings: tuple[IndexAnalysis, ...]
    unit_readings: tuple[IndexAnalysis, ...]
    confidence_level: float
    unit: str

    def __str__(self) -> str:
        state = "done" if self.done else "running"
        parts = [
            f"session {state} after {self.n_rounds} rounds "
            f"({format_quantity(self.total_duration, 's')})"
        ]
        if self.wps is not None:
            parts.append(str(self.wps))
        parts.extend(str(item) for item in (*self.readings, *self.unit_readings))
        return "; ".join(parts)

    def summary(self) -> str:
        """A multi-line report of every analysis."""
        reason = "" if self.stop_reason is None else f", stop reason: {self.stop_reason}"
        lines = [
            f"Benchmark session: {self.n_rounds} rounds, total work "
            f"{format_number(self.total_work)} {self.unit}, total time "
            f"{format_quantity(self.total_duration, 's')}, "
            f"{'done' if self.done else 'running'}{reason}"
        ]
        if self.wps is not None:
            target = (
                ""
                if self.wps_target_width is None
                else f" (target width {format_number(self.wps_target_width)} {self.unit}/s)"
            )
            lines.append(f"  WPS throughput: {self.wps}{target}")
            lines.append(
                f"  prediction error relative to total time: WPS "
                f"{self.wps.relative_error:.2%}, naive sum(w)/sum(t) "
                f"{self.wps.naive_relative_error:.2%} "
                f"(naive v = {format_number(self.wps.naive_throughput)} {self.unit}/s)"
            )
        for item in (*self.readings, *self.unit_readings):
            lines.append(f"  {item}")
            if item.comparison is not None:
                lines.append(f"    vs baseline: {item.comparison}")
        return "\n".join(lines)


def _positive_or_none(value: float | None, name: str) -> float | None:
    if value is None:
        return None
    return check_real(value, name, low=0.0, low_inclusive=False)


class BenchmarkSession:
    """CI-driven benchmark session controller (Pilot's session logic, corrected).

    Parameters
    ----------
    max_work : float, optional
        Largest work amount of a round. None when the workload cannot vary its work
        amount: the WPS analysis is then off and :meth:`next_round` returns None.
    min_work : float, default 1
        Smallest work amount.
    initial_work : float, optional
        Work amount of the first round (``max(1, min_work)`` when None).
    ci_percent_of_mean, ci_width : float, optional
        Target full width of the WPS throughput interval, in percent of ``v`` and/or
        units/s (the smaller enabled one applies; both None: 10 %).
    readings_ci_percent_of_mean, readings_ci_width : float, optional
        Target full width of the mean of each readings index (both None: 10 %).
    unit_readings_ci_percent_of_mean, unit_readings_ci_width : float, optional
        Target full width of the mean of each unit-readings index (both None: 10 %).
    confidence_level : float, default 0.95
        Level of every interval.
    autocorrelation_limit : float, default 0.1
        Limit of the lag-1 autocorrelation of subsession means.
    min_rounds : int, default 10
        The session never finishes before this many rounds.
    max_rounds : int or None, default 1000
        Stop (``stop_reason="max_rounds"``) after this many rounds.
    max_duration : float, optional
        Stop once the recorded rounds add up to this many seconds.
    min_round_duration : float, default 1.0
        Shorter rounds are doubled and not analysed by WPS (s).
    target_initial_time : float, default 60.0
        Time budget of the planner's initial ramp (s).
    wps_analysis : bool, default True
        Estimate the stable throughput by WPS regression (needs ``max_work``).
    min_subsessions : int, default 21
        Fewest WPS subsessions before the WPS analysis can finish (Pilot: more than 20).
    readings_min_subsessions, unit_readings_min_subsessions : int, default 10
        Fewest subsessions before a readings / unit-readings target can be met.
    warmup_removal : {"stable_phase", "trim", "none"}, default "stable_phase"
        How each round's unit readings lose their warm-up and cool-down:
        :func:`pilotstats.changepoints.stable_phase` (a round without a dominant stable
        segment is kept whole), Pilot's fixed-percentage trimming (:func:`trim_warmup`) or
        nothing.
    trim_fraction : float, default 0.1
        Fraction trimmed by ``warmup_removal="trim"``.
    readings_mean, unit_readings_mean : {"arithmetic", "harmonic"}, default "arithmetic"
        Mean of the readings / unit readings (harmonic for rates).
    baseline_readings, baseline_unit_readings : Baseline or sequence, optional
        Baselines per index (a single one applies to index 0); each index with a baseline
        is compared by Welch's test and must also reach ``target_p_value`` where reachable.
    target_p_value : float, default 0.05
        p-value the comparison with a baseline aims for.
    subsession_basis : {"residuals", "rates"}, default "residuals"
        Passed to the WPS regression (see :func:`pilotstats.regression.wps`).
    unit : str, default "units"
        Work unit label.

    See Also
    --------
    run_session : drive a Python workload function with a session.
    pilotstats.regression.WorkPlanner : the work-amount planner used inside.

    Notes
    -----
    Differences from Pilot (wps spec §7, autocorrelation spec §8): the configured confidence
    level and autocorrelation limit are honoured everywhere; the throughput interval is the
    t-based inverted slope interval; unit-reading warm-up is removed per round with an
    explicit outcome instead of discarding rounds; sample sizes are rounded up.

    Examples
    --------
    >>> session = BenchmarkSession(max_work=10_000, min_round_duration=0.0, min_rounds=5)
    >>> while not session.done:
    ...     work = session.next_round()
    ...     session.record(work, 0.01 + work / 1e4)
    >>> round(session.result().wps.throughput)
    10000
    """

    def __init__(
        self,
        max_work: float | None = None,
        *,
        min_work: float = 1.0,
        initial_work: float | None = None,
        ci_percent_of_mean: float | None = None,
        ci_width: float | None = None,
        readings_ci_percent_of_mean: float | None = None,
        readings_ci_width: float | None = None,
        unit_readings_ci_percent_of_mean: float | None = None,
        unit_readings_ci_width: float | None = None,
        confidence_level: float = 0.95,
        autocorrelation_limit: float = 0.1,
        min_rounds: int = 10,
        max_rounds: int | None = 1000,
        max_duration: float | None = None,
        min_round_duration: float = 1.0,
        target_initial_time: float = 60.0,
        wps_analysis: bool = True,
        min_subsessions: int = 21,
        readings_min_subsessions: int = 10,
        unit_readings_min_subsessions: int = 10,
        warmup_removal: WarmupRemoval = "stable_phase",
        trim_fraction: float = 0.1,
        readings_mean: MeanMethod = "arithmetic",
        unit_readings_mean: MeanMethod = "arithmetic",
        baseline_readings: Any = None,
        baseline_unit_readings: Any = None,
        target_p_value: float = 0.05,
        subsession_basis: SubsessionBasis = "residuals",
        unit: str = "units",
    ) -> None:
        self.confidence_level = check_confidence_level(confidence_level)
        self.autocorrelation_limit = check_autocorrelation_limit(autocorrelation_limit)
        self.min_rounds = check_int(min_rounds, "min_rounds", low=1)
        self.max_rounds = None if max_rounds is None else check_int(max_rounds, "max_rounds", low=1)
        if self.max_rounds is not None and self.max_rounds < self.min_rounds:
            raise InvalidInputError(
                f"max_rounds ({self.max_rounds}) must be at least min_rounds ({self.min_rounds})"
            )
        self.max_duration = _positive_or_none(max_duration, "max_duration")
        self._readings_target = self._target(
            readings_ci_percent_of_mean, readings_ci_width, "readings_"
        )
        self._unit_target = self._target(
            unit_readings_ci_percent_of_mean, unit_readings_ci_width, "unit_readings_"
        )
        self.readings_min_subsessions = check_int(
            readings_min_subsessions, "readings_min_subsessions", low=0
        )
        self.unit_readings_min_subsessions = check_int(
            unit_readings_min_subsessions, "unit_readings_min_subsessions", low=0
        )
        self.warmup_removal: WarmupRemoval = check_choice(
            warmup_removal, "warmup_removal", _WARMUP_METHODS
        )
        self.trim_fraction = check_real(
            trim_fraction, "trim_fraction", low=0.0, high=1.0, high_inclusive=False
        )
        self.readings_mean: MeanMethod = check_choice(
            readings_mean, "readings_mean", ("arithmetic", "harmonic")
        )
        self.unit_readings_mean: MeanMethod = check_choice(
            unit_readings_mean, "unit_readings_mean", ("arithmetic", "harmonic")
        )
        self._baseline_readings = _as_baselines(baseline_readings, "baseline_readings")
        self._baseline_units = _as_baselines(baseline_unit_readings, "baseline_unit_readings")
        self.target_p_value = check_probability(target_p_value, "target_p_value")
        self.unit = str(unit)
        self.max_work = (
            None
            if max_work is None
            else check_real(max_work, "max_work", low=0.0, low_inclusive=False)
        )
        self.wps_analysis = bool(wps_analysis) and self.max_work is not None
        self.planner: WorkPlanner | None = None
        if self.max_work is not None:
            self.planner = WorkPlanner(
                min_work,
                self.max_work,
                min_round_duration=min_round_duration,
                target_initial_time=target_initial_time,
                initial_work=initial_work,
                ci_percent_of_mean=ci_percent_of_mean,
                ci_width=ci_width,
                confidence_level=self.confidence_level,
                autocorrelation_limit=self.autocorrelation_limit,
                min_subsessions=min_subsessions,
                wps_analysis=self.wps_analysis,
                subsession_basis=subsession_basis,
                unit=self.unit,
            )
        self._work: list[float] = []
        self._durations: list[float] = []
        self._readings: list[Float64Array1D] = []
        self._unit_kept: list[list[Float64Array1D]] = []  # per index, per round
        self._unit_removed: list[int] = []
        self._readings_analyses: tuple[IndexAnalysis, ...] = ()
        self._unit_analyses: tuple[IndexAnalysis, ...] = ()
        self._stop_reason: str | None = None

    @staticmethod
    def _target(
        percent: float | None, width: float | None, prefix: str
    ) -> tuple[float | None, float | None]:
        percent = _positive_or_none(percent, f"{prefix}ci_percent_of_mean")
        width = _positive_or_none(width, f"{prefix}ci_width")
        if percent is None and width is None:
            percent = 10.0
        return percent, width

    # -- state ---------------------------------------------------------------------------

    @property
    def n_rounds(self) -> int:
        """Rounds recorded so far."""
        return len(self._durations)

    @property
    def total_duration(self) -> float:
        """Sum of the recorded round durations (s)."""
        return math.fsum(self._durations)

    def _wps_done(self) -> bool | None:
        if not self.wps_analysis or self.planner is None:
            return None
        return self.planner.wps_finished

    @property
    def targets_met(self) -> bool:
        """Every active analysis meets its target and at least ``min_rounds`` were run."""
        if self.n_rounds < self.min_rounds:
            return False
        states = [item.done for item in (*self._readings_analyses, *self._unit_analyses)]
        wps_done = self._wps_done()
        if wps_done is not None:
            states.append(wps_done)
        return all(states)

    @property
    def done(self) -> bool:
        """The session is finished: targets met, or ``max_rounds`` / ``max_duration`` hit."""
        return self._stop_reason is not None

    # -- protocol ------------------------------------------------------------------------

    def next_round(self) -> float | None:
        """Work amount for the next round (None when the workload has no work amount)."""
        if self.planner is None:
            return None
        extra = self._unit_reading_proposals()
        return self.planner.combine_proposals(*extra)

    def record(
        self,
        work_amount: float | None,
        duration: float,
        readings: ArrayLike1D | float | None = None,
        unit_readings: Any = None,
    ) -> None:
        """Record a finished round and update every analysis.

        Parameters
        ----------
        work_amount : float or None
            Work done by the round (> 0); None only when the session has no ``max_work``.
        duration : float
            Round duration in seconds (> 0).
        readings : float or array_like, optional
            One reading per performance index for this round.
        unit_readings : array_like or sequence of array_like, optional
            The round's unit readings: a 1-D array for a single index, or one 1-D array
            per index.

        Raises
        ------
        InvalidInputError
            Non-positive or non-finite values, or a different number of indices than in
            earlier rounds.
        """
        d = check_real(duration, "duration", low=0.0, low_inclusive=False)
        if self.planner is not None:
            if work_amount is None:
                raise InvalidInputError("work_amount is required when the session has max_work")
            w = check_real(work_amount, "work_amount", low=0.0, low_inclusive=False)
        else:
            w = 0.0 if work_amount is None else check_real(work_amount, "work_amount", low=0.0)
        reading_row = self._check_readings(readings)
        unit_rows = self._check_unit_readings(unit_readings)

        self._work.append(w)
        self._durations.append(d)
        if reading_row is not None:
            self._readings.append(reading_row)
        if unit_rows is not None:
            if not self._unit_kept:
                self._unit_kept = [[] for _ in unit_rows]
                self._unit_removed = [0 for _ in unit_rows]
            for index, values in enumerate(unit_rows):
                start, end = _stable_range(values, self.warmup_removal, self.trim_fraction)
                self._unit_kept[index].append(values[start:end])
                self._unit_removed[index] += int(values.shape[0]) - (end - start)
        if self.planner is not None:
            self.planner.record(w, d)
        self._readings_analyses = tuple(
            self._analyse(
                "readings",
                i,
                np.array([row[i] for row in self._readings]),
                0,
                self._readings_target,
                self.readings_min_subsessions,
                self.readings_mean,
                self._baseline_readings,
            )
            for i in range(len(self._readings[0]) if self._readings else 0)
        )
        self._unit_analyses = tuple(
            self._analyse(
                "unit_readings",
                i,
                np.concatenate(kept),
                self._unit_removed[i],
                self._unit_target,
                self.unit_readings_min_subsessions,
                self.unit_readings_mean,
                self._baseline_units,
            )
            for i, kept in enumerate(self._unit_kept)
        )
        self._update_stop()

    def _check_readings(self, readings: Any) -> Float64Array1D | None:
        if readings is None:
            return None
        row = as_float_array(np.atleast_1d(readings), "readings")
        if self._readings and row.shape[0] != self._readings[0].shape[0]:
            raise InvalidInputError(
                f"readings must have one value per performance index "
                f"({self._readings[0].shape[0]} as in earlier rounds), got {row.shape[0]}"
            )
        if not self._readings and self.n_rounds > 0:
            raise InvalidInputError(
                "readings must be given for every round (earlier rounds had none)"
            )
        return row

    def _check_unit_readings(self, unit_readings: Any) -> list[Float64Array1D] | None:
        if unit_readings is None:
            return None
        items: list[Any]
        if (
            isinstance(unit_readings, (list, tuple))
            and unit_readings
            and all(np.ndim(item) == 1 for item in unit_readings)
        ):
            items = list(unit_readings)
        else:
            items = [unit_readings]
        rows = [
            as_float_array(item, f"unit_readings[{i}]", min_length=0)
            for i, item in enumerate(items)
        ]
        if self._unit_kept and len(rows) != len(self._unit_kept):
            raise InvalidInputError(
                f"unit_readings must have one array per performance index "
                f"({len(self._unit_kept)} as in earlier rounds), got {len(rows)}"
            )
        return rows

    def _analyse(
        self,
        kind: str,
        index: int,
        data: Float64Array1D,
        removed: int,
        target: tuple[float | None, float | None],
        min_subsessions: int,
        mean: MeanMethod,
        baselines: tuple[Baseline | None, ...],
    ) -> IndexAnalysis:
        """Subsession analysis, required size and baseline comparison of one index."""
        n = int(data.shape[0])
        analysis: SubsessionResult | None = None
        required: SampleSizeResult | None = None
        if n >= 3:
            try:
                analysis = subsession_analysis(
                    data,
                    confidence_level=self.confidence_level,
                    autocorrelation_limit=self.autocorrelation_limit,
                    mean=mean,
                )
            except NotEnoughDataError:
                analysis = None
            try:
                required = required_sample_size(
                    data,
                    ci_percent_of_mean=target[0],
                    ci_width=target[1],
                    confidence_level=self.confidence_level,
                    autocorrelation_limit=self.autocorrelation_limit,
                    min_subsessions=min_subsessions,
                    mean=mean,
                )
            except PilotStatsError:
                required = None
        baseline = baselines[index] if index < len(baselines) else None
        comparison = comparison_required = None
        note = None
        if baseline is not None and analysis is not None and analysis.n_subsessions >= 2:
            comparison = welch_test(
                analysis.mean,
                analysis.subsession_variance,
                analysis.n_subsessions,
                baseline.mean,
                baseline.variance,
                baseline.n,
                confidence_level=self.confidence_level,
            )
            try:
                comparison_required = required_sample_size_for_comparison(
                    baseline.mean,
                    baseline.variance,
                    baseline.n,
                    analysis.mean,
                    analysis.subsession_variance,
                    analysis.n_subsessions,
                    target_p_value=self.target_p_value,
                    subsession_size=analysis.subsession_size,
                    min_subsessions=min_subsessions,
                )
            except UnreachableTargetError as exc:
                note = str(exc)
        enough = required is not None and required.enough
        comparison_ok = (
            baseline is None
            or note is not None
            or (comparison_required is not None and n >= comparison_required.samples)
        )
        progress = 0.0
        if required is not None and required.samples:
            progress = min(1.0, n / required.samples)
        if baseline is not None and comparison_required is not None:
            progress = min(progress, n / comparison_required.samples)
        done = enough and comparison_ok
        return IndexAnalysis(
            kind=kind,
            index=index,
            n=n,
            n_removed=removed,
            analysis=analysis,
            required=required,
            comparison=comparison,
            comparison_required=comparison_required,
            comparison_note=note,
            done=done,
            progress=1.0 if done else min(progress, 0.999),
        )

    def _unit_reading_proposals(self) -> list[float]:
        """Work amounts expected to deliver the missing unit readings, per unfinished index."""
        proposals = []
        total_work = math.fsum(self._work)
        for item in self._unit_analyses:
            if item.done or not self._work:
                continue
            required = None if item.required is None else item.required.samples
            if item.comparison_required is not None and item.comparison_note is None:
                required = max(required or 0, item.comparison_required.samples)
            proposals.append(unit_reading_work_amount(required, item.n, total_work, self._work[-1]))
        return proposals

    def _update_stop(self) -> None:
        if self.targets_met:
            self._stop_reason = "targets_met"
        elif self.max_rounds is not None and self.n_rounds >= self.max_rounds:
            self._stop_reason = "max_rounds"
        elif self.max_duration is not None and self.total_duration >= self.max_duration:
            self._stop_reason = "max_duration"

    # -- reporting -----------------------------------------------------------------------

    def _wps_progress(self) -> float:
        planner = self.planner
        if planner is None or planner.wps_result is None:
            return 0.0
        if planner.wps_finished:
            return 1.0
        result = planner.wps_result
        by_h = min(1.0, result.n_subsessions / planner.min_subsessions)
        required = planner.required_ci_width
        width = result.throughput_ci_width
        if required is None or not math.isfinite(width) or not result.valid:
            by_width = 0.0
        elif width <= required:
            by_width = 1.0
        else:
            by_width = (required / width) ** 2  # width shrinks like 1/sqrt(rounds)
        return min(by_h, by_width, 0.999)

    @property
    def progress(self) -> SessionProgress:
        """Progress towards the targets (the least advanced analysis sets the fraction)."""
        analyses: dict[str, float] = {"rounds": min(1.0, self.n_rounds / self.min_rounds)}
        if self.wps_analysis:
            analyses["wps"] = self._wps_progress()
        for item in (*self._readings_analyses, *self._unit_analyses):
            analyses[f"{item.kind}[{item.index}]"] = item.progress
        fraction = 1.0 if self.done else min(analyses.values())
        lagging = min(analyses, key=lambda key: analyses[key])
        if self.done:
            message = f"done after {self.n_rounds} rounds ({self._stop_reason})"
        else:
            message = f"round {self.n_rounds}, waiting for {lagging}"
        return SessionProgress(
            fraction=float(fraction),
            n_rounds=self.n_rounds,
            min_rounds=self.min_rounds,
            done=self.done,
            analyses=analyses,
            message=message,
        )

    def result(self) -> SessionResult:
        """All current estimates."""
        planner = self.planner
        return SessionResult(
            n_rounds=self.n_rounds,
            total_work=math.fsum(self._work),
            total_duration=self.total_duration,
            done=self.done,
            targets_met=self.targets_met,
            stop_reason=self._stop_reason,
            wps=None if planner is None or not self.wps_analysis else planner.wps_result,
            wps_target_width=None if planner is None else planner.required_ci_width,
            wps_done=self._wps_done(),
            readings=self._readings_analyses,
            unit_readings=self._unit_analyses,
            confidence_level=self.confidence_level,
            unit=self.unit,
        )


def _parse_outcome(outcome: Any, measured: float) -> tuple[float, Any]:
    """``workload`` returns None, a duration, or ``(duration or None, unit_readings)``."""
    if outcome is None:
        return measured, None
    if isinstance(outcome, tuple):
        if len(outcome) != 2:
            raise InvalidInputError(
                "workload must return None, a duration, or (duration, unit_readings); "
                f"got a tuple of length {len(outcome)}"
            )
        duration, unit_readings = outcome
        return (measured if duration is None else duration), unit_readings
    return outcome, None


def _report(progress: Any, state: SessionProgress, shown: list[int]) -> None:
    """Send progress to a tqdm-like bar (``update``) or a plain callable."""
    if progress is None:
        return
    if hasattr(progress, "update"):
        percent = int(state.fraction * 100)
        if getattr(progress, "total", None) is None:
            progress.total = 100
        progress.update(percent - shown[0])
        shown[0] = percent
        if hasattr(progress, "set_postfix_str"):
            progress.set_postfix_str(state.message, refresh=False)
        return
    progress(state)


def run_session(
    workload: Callable[[float | None], Any],
    max_work: float | None = None,
    *,
    progress: Any = None,
    timer: Callable[[], float] = time.perf_counter,
    session: BenchmarkSession | None = None,
    **options: Any,
) -> SessionResult:
    """Run ``workload`` round after round until the session's targets are met.

    Parameters
    ----------
    workload : callable
        ``workload(work_amount)`` runs one round (``work_amount`` is None when ``max_work``
        is None) and returns None (the round is timed with ``timer``), its duration in
        seconds, or ``(duration, unit_readings)`` where ``duration`` may be None to use the
        measured time.
    max_work : float, optional
        Largest work amount (see :class:`BenchmarkSession`).
    progress : tqdm-like object or callable, optional
        A ``tqdm`` bar (its ``update`` receives percentage points of progress, its postfix
        a status message) or a function called with a :class:`SessionProgress` after
        every round.
    timer : callable, default time.perf_counter
        Clock used to time rounds.
    session : BenchmarkSession, optional
        Continue an existing session instead of creating one (``max_work`` and
        ``options`` must then be omitted).
    **options
        Keyword arguments of :class:`BenchmarkSession`.

    Returns
    -------
    SessionResult
        The final estimates (``stop_reason`` says why the session ended).

    Examples
    --------
    >>> result = run_session(
    ...     lambda work: 0.01 + work / 1e4, 10_000, min_round_duration=0.0, min_rounds=5
    ... )
    >>> result.done, round(result.wps.throughput)
    (True, 10000)
    """
    if session is None:
        session = BenchmarkSession(max_work, **options)
    elif options or max_work is not None:
        raise InvalidInputError("pass either session or max_work/options, not both")
    shown = [0]
    while not session.done:
        work = session.next_round()
        start = timer()
        outcome = workload(work)
        measured = timer() - start
        duration, unit_readings = _parse_outcome(outcome, measured)
        session.record(work, duration, unit_readings=unit_readings)
        _report(progress, session.progress, shown)
    return session.result()
