"""CI-driven benchmark sessions: run rounds until every requested interval is narrow enough.

:class:`BenchmarkSession` is a pure, embeddable controller answering Pilot's question "how long
shall I run this benchmark to get a precise result?". A harness asks :meth:`~BenchmarkSession.
next_round` for a work amount, runs the round, and hands back its duration and optional
per-round readings and per-unit readings with :meth:`~BenchmarkSession.record`;
:attr:`~BenchmarkSession.done` turns True once every requested confidence-interval target
(and baseline comparison) is met. :func:`run_session` drives a Python callable this way; the
command ``pilotstats run`` drives any program.

Analyses (``docs/algorithms/wps.md`` and ``docs/algorithms/subsession.md``):

- **WPS throughput** from whole rounds, ``t = alpha + w / v``
  (:func:`pilotstats.regression.wps`), paced by :class:`pilotstats.regression.WorkPlanner`;
  isolated outlier rounds are excluded from the fit and reported;
- **readings** (one value per round and performance index): subsession analysis and
  required sample size;
- **unit readings** (many values per round, e.g. per-operation latencies): warm-up and
  cool-down removal per round, then subsession analysis and required sample size; the work
  amount is paced to deliver the missing readings (wps spec §6.7);
- each performance index is *ordinary* (arithmetic mean), *ratio* (harmonic mean, for
  rates) or *binary* (a 0/1 proportion with the Wilson interval), and may be recorded
  without having to meet its target (``must_satisfy=False``);
- optional **baseline comparison** (Welch's test on subsession statistics) with the sample
  size needed to separate the result from the baseline.

Rounds shorter than ``min_round_duration`` (and rounds a coarse timer measured as 0 s) are
*stored but not used*, as in Pilot: no analysis sees them, and the result lists them.
A session's complete state (options and raw rounds) is JSON; :meth:`BenchmarkSession.save`
and :meth:`BenchmarkSession.load` persist and resume it.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pilotstats._typing import (
    ArrayLike1D,
    Float64Array1D,
    IndexType,
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
    ProportionResult,
    SampleSizeResult,
    SubsessionResult,
    WelchResult,
    proportion_interval,
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
    SessionFinishedError,
    UnreachableTargetError,
    WorkloadError,
)
from pilotstats.regression._outliers import OUTLIER_THRESHOLD
from pilotstats.regression.planner import WorkPlanner, unit_reading_work
from pilotstats.regression.wps import WpsResult
from pilotstats.results import Result, format_number, format_quantity, json_safe

__all__ = [
    "Baseline",
    "BenchmarkSession",
    "IndexAnalysis",
    "PerformanceIndex",
    "SessionProgress",
    "SessionResult",
    "run_session",
    "trim_warmup",
]

_WARMUP_METHODS: tuple[WarmupRemoval, ...] = ("stable_phase", "trim", "none")
_INDEX_TYPES: tuple[IndexType, ...] = ("ordinary", "ratio", "binary")
#: Version of the JSON state written by :meth:`BenchmarkSession.save`.
STATE_VERSION = 1
#: Default target of every interval: a half width of 5 % of the estimate (Pilot's default
#: full width of 10 %).
_DEFAULT_HALF_WIDTH_PERCENT = 5.0


class Baseline(NamedTuple):
    """Summary of a baseline result to compare against (Welch, autocorrelation spec §7).

    For autocorrelated data give subsession statistics: the mean, the subsession variance
    ``s2_q`` and the number of subsessions ``h`` (a
    :class:`~pilotstats.autocorrelation.SubsessionResult` is accepted wherever a
    ``Baseline`` is). For a binary index give the proportion, ``p (1 - p) n / (n - 1)`` and
    the number of outcomes ``n`` (subsessions of one outcome).

    Examples
    --------
    Compare a session's readings with an earlier result (mean, subsession variance,
    number of subsessions):

    >>> import numpy as np
    >>> from pilotstats.session import Baseline, BenchmarkSession
    >>> rng = np.random.default_rng(0)
    >>> session = BenchmarkSession(max_work=10_000, min_round_duration=0.0, min_rounds=5,
    ...                            baseline_readings=Baseline(mean=0.52, subsession_variance=1e-4,
    ...                                                       n_subsessions=10))
    >>> while not session.done:
    ...     work = session.next_round()
    ...     session.record(work, 0.01 + work / 1e4, readings=[0.5 + 0.01 * rng.normal()])
    >>> comparison = session.result().readings[0].comparison
    >>> round(comparison.difference, 3), comparison.p_value < 0.001
    (-0.022, True)
    """

    mean: float
    subsession_variance: float
    n_subsessions: int


class PerformanceIndex(NamedTuple):
    """Declaration of one performance index of a session (Pilot's ``--pi``).

    Attributes
    ----------
    name : str
        Label used in reports (may be empty: the index number is shown instead).
    unit : str
        Unit of the values, for display.
    index_type : {"ordinary", "ratio", "binary"}
        ``"ordinary"``: arithmetic mean (times, sizes); ``"ratio"``: harmonic mean, for
        rates such as throughput (Pilot's type 1); ``"binary"``: 0/1 outcomes, a
        proportion with the Wilson interval (no warm-up removal).
    must_satisfy : bool
        The index must meet its interval target before the session stops; False records
        and reports it only.

    Examples
    --------
    A latency that must reach the target and a hit/miss flag that is only reported:

    >>> from pilotstats.session import BenchmarkSession, PerformanceIndex
    >>> session = BenchmarkSession(
    ...     min_rounds=3,
    ...     readings_indices=[PerformanceIndex("latency", "ms"),
    ...                       PerformanceIndex("hit", "", "binary", must_satisfy=False)])
    >>> for value, hit in [(10.1, 1), (9.9, 0), (10.0, 1), (10.05, 1), (9.95, 1)]:
    ...     session.record(None, 1.0, readings=[value, hit])
    >>> print(session.result().readings[1])  # doctest: +ELLIPSIS
    readings[hit]: proportion 0.8 (95 % CI [0.3755, 0.9638] wilson, n = 5) (not required...)
    """

    name: str = ""
    unit: str = ""
    index_type: IndexType = "ordinary"
    must_satisfy: bool = True


def _as_index(value: Any, name: str) -> PerformanceIndex:
    if isinstance(value, str):
        return PerformanceIndex(value)
    if isinstance(value, dict):
        value = PerformanceIndex(**value)
    if isinstance(value, (tuple, list)) and not isinstance(value, PerformanceIndex):
        value = PerformanceIndex(*value)
    if not isinstance(value, PerformanceIndex):
        raise InvalidInputError(
            f"{name} must be a PerformanceIndex(name, unit, index_type, must_satisfy) or a "
            f"name, got {type(value).__name__}"
        )
    index_type = check_choice(value.index_type, f"{name}.index_type", _INDEX_TYPES)
    if not isinstance(value.must_satisfy, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name}.must_satisfy must be True or False, got {value.must_satisfy!r}"
        )
    return PerformanceIndex(
        str(value.name), str(value.unit), index_type, bool(value.must_satisfy)
    )


def _as_indices(value: Any, name: str) -> tuple[PerformanceIndex, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, PerformanceIndex, dict)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(
            f"{name} must be a list of PerformanceIndex (one per index), got "
            f"{type(value).__name__}"
        )
    return tuple(_as_index(item, f"{name}[{i}]") for i, item in enumerate(value))


def _as_baseline(value: Any, name: str) -> Baseline | None:
    if value is None:
        return None
    if isinstance(value, SubsessionResult):
        return Baseline(value.mean, value.subsession_variance, value.n_subsessions)
    if isinstance(value, (tuple, list)) and len(value) == 3:
        mean = check_real(value[0], f"{name} mean")
        variance = check_real(value[1], f"{name} subsession_variance", low=0.0)
        n = check_int(value[2], f"{name} n_subsessions", low=2)
        return Baseline(mean, variance, n)
    raise InvalidInputError(
        f"{name} must be a Baseline(mean, subsession_variance, n_subsessions), a "
        "SubsessionResult or None, "
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


def trim_warmup(values: ArrayLike1D, trim_fraction: float = 0.1) -> tuple[int, int]:
    """Pilot's fixed-percentage warm-up trimming of one round's unit readings.

    Drops the first ``round_half_away_from_zero(trim_fraction * n)`` readings, but a non-empty
    round always keeps at least its last reading; an empty round contributes nothing
    (autocorrelation spec V4; Pilot ``lib/test/unit_test_unit_readings_iter.cc``).

    Parameters
    ----------
    values : array_like, shape (n,)
        The round's unit readings (numbers; may be empty).
    trim_fraction : float, default 0.1
        Fraction of the round treated as warm-up, in [0, 1).

    Returns
    -------
    (start, end) : tuple of int
        Half-open range of the readings kept.

    Raises
    ------
    InvalidInputError
        ``values`` is not a 1-D array of finite numbers, or ``trim_fraction`` is outside
        [0, 1).

    Examples
    --------
    >>> trim_warmup([1, 5, 10, 20, 30, 40, 42, 43, 41])
    (1, 9)
    """
    n = int(as_float_array(values, "values", min_length=0).shape[0])
    p = check_real(trim_fraction, "trim_fraction", low=0.0, high=1.0, high_inclusive=False)
    if n == 0:
        return 0, 0
    drop = min(math.floor(p * n + 0.5), n - 1)
    return drop, n


#: Outcome of warm-up removal in one round: removed (or nothing to remove), too short to
#: search (fewer than 2 * min_size readings), or change points without a dominant segment.
_REMOVED, _TOO_SHORT, _UNRESOLVED = "removed", "too_short", "unresolved"


def _stable_range(
    values: Float64Array1D, method: WarmupRemoval, fraction: float, min_size: int
) -> tuple[int, int, str]:
    """The one switch for warm-up/cool-down removal of a round's unit readings."""
    n = int(values.shape[0])
    if method == "none" or n == 0:
        return 0, n, _REMOVED
    if method == "trim":
        return (*trim_warmup(values, fraction), _REMOVED)
    if n < 2 * min_size:
        return 0, n, _TOO_SHORT  # cannot be searched: kept whole and reported
    phase = stable_phase(values, min_size=min_size)
    if not phase.found:
        return 0, n, _UNRESOLVED  # no dominant segment: keep the round (reported)
    return int(phase.start), int(phase.end), _REMOVED


@dataclass(frozen=True, slots=True)
class IndexAnalysis(Result):
    """Analysis of one performance index (readings or unit readings) in a session.

    Attributes
    ----------
    kind : str
        ``"readings"`` or ``"unit_readings"``.
    index : int
        Performance index.
    name : str
        Declared name of the index (``""`` when undeclared).
    unit : str
        Unit of its values.
    index_type : str
        ``"ordinary"`` (arithmetic mean), ``"ratio"`` (harmonic mean) or ``"binary"``
        (proportion with the Wilson interval).
    must_satisfy : bool
        The index must meet its target for the session to stop.
    n : int
        Samples analysed (unit readings: after warm-up removal; short rounds excluded).
    n_removed : int
        Unit readings removed as warm-up/cool-down (0 for readings).
    warmup_kept_rounds : int
        Rounds whose unit readings kept their warm-up because it could not be searched
        (fewer than ``2 * min_size`` readings) or located (no dominant stable segment).
    analysis : SubsessionResult, ProportionResult or None
        Mean (binary: proportion) with its confidence interval (None while undetermined).
    required : SampleSizeResult or None
        Samples needed for the target half width.
    comparison : WelchResult or None
        Welch test of this result against the baseline (difference = result - baseline).
    comparison_required : ComparisonSampleSizeResult or None
        Samples needed to reach ``p <= significance_level`` against the baseline.
    comparison_note : str or None
        Why no comparison requirement applies (e.g. the difference is unreachable).
    note : str or None
        Why the interval may mislead (warm-up kept in some rounds), if it may.
    done : bool
        The half-width target is met and, with a baseline, the comparison size too.
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
    name: str
    unit: str
    index_type: str
    must_satisfy: bool
    n: int
    n_removed: int
    warmup_kept_rounds: int
    analysis: SubsessionResult | ProportionResult | None
    required: SampleSizeResult | None
    comparison: WelchResult | None
    comparison_required: ComparisonSampleSizeResult | None
    comparison_note: str | None
    note: str | None
    done: bool
    progress: float

    @property
    def label(self) -> str:
        """``kind[name]`` (``kind[index]`` for an unnamed index)."""
        return f"{self.kind}[{self.name or self.index}]"

    @property
    def estimate(self) -> float | None:
        """The mean (binary: the proportion), or None while undetermined."""
        if self.analysis is None:
            return None
        if isinstance(self.analysis, ProportionResult):
            return self.analysis.proportion
        return self.analysis.mean

    def __str__(self) -> str:
        if self.analysis is None:
            return f"{self.label}: n = {self.n}, interval undetermined (collect more data)"
        if self.done:
            state = "done"
        elif not self.must_satisfy:
            state = "not required"
        else:
            state = f"{self.progress:.0%} of target"
        flag = "; warm-up kept, see note" if self.warmup_kept_rounds else ""
        return f"{self.label}: {self.analysis} ({state}{flag})"


@dataclass(frozen=True, slots=True)
class SessionProgress(Result):
    """How far a session is from its targets (for progress bars).

    Attributes
    ----------
    fraction : float
        Overall progress in [0, 1]: the least advanced of the rounds floor and every
        required analysis (1.0 when done).
    n_rounds, min_rounds : int
        Rounds recorded, and the minimum number of rounds of a session.
    done : bool
        The session is finished.
    analyses : dict
        Progress of each required analysis by name (``"wps"``, ``"readings[0]"``, ...).
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


def _round_list(rounds: Sequence[int]) -> str:
    shown = ", ".join(str(r) for r in rounds[:10])
    return shown + (", ..." if len(rounds) > 10 else "")


@dataclass(frozen=True, slots=True)
class SessionResult(Result):
    """Current estimates of a :class:`BenchmarkSession`.

    Attributes
    ----------
    n_rounds : int
        Rounds recorded (short ones included).
    total_work : float
        Sum of the work amounts.
    total_duration : float
        Sum of the round durations (s).
    done : bool
        The session is finished (targets met, or a limit reached).
    targets_met : bool
        Every required target is met (and at least ``min_rounds`` were run).
    stop_reason : str or None
        ``"targets_met"``, ``"max_rounds"``, ``"max_duration"`` or None while running.
    wps : WpsResult or None
        Latest work-per-second fit (None before it succeeds or when disabled).
    wps_target_half_width : float or None
        Required half width of the throughput interval at the current estimate (units/s).
    wps_done : bool or None
        The WPS stop rule holds (None when WPS is disabled).
    wps_error : str or None
        Why the latest WPS fit failed (too few rounds, no subsession size, ...), if it did.
    readings, unit_readings : tuple of IndexAnalysis
        One analysis per performance index.
    short_rounds : tuple of int
        0-based numbers of the rounds shorter than ``min_round_duration`` (or measured as
        0 s): stored but not used by any analysis.
    outlier_rounds : tuple of int
        0-based numbers of the isolated outlier rounds excluded from the WPS fit.
    warmup_kept : bool
        Some round kept its warm-up (unit readings), so an interval may be biased; see
        ``notes``.
    notes : tuple of str
        Everything excluded or not removed, in words.
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
    wps_target_half_width: float | None
    wps_done: bool | None
    wps_error: str | None
    readings: tuple[IndexAnalysis, ...]
    unit_readings: tuple[IndexAnalysis, ...]
    short_rounds: tuple[int, ...]
    outlier_rounds: tuple[int, ...]
    warmup_kept: bool
    notes: tuple[str, ...]
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
        if self.short_rounds or self.outlier_rounds or self.warmup_kept:
            parts.append(f"{len(self.notes)} note(s)")
        return "; ".join(parts)

    def summary(self) -> str:
        """A multi-line report of every analysis, with notes on what was excluded."""
        reason = "" if self.stop_reason is None else f", stop reason: {self.stop_reason}"
        work = (
            f", total work {format_number(self.total_work)} {self.unit}"
            if self.total_work > 0
            else ""
        )
        lines = [
            f"Benchmark session: {self.n_rounds} rounds{work}, total time "
            f"{format_quantity(self.total_duration, 's')}, "
            f"{'done' if self.done else 'running'}{reason}"
        ]
        if self.wps is not None:
            target = (
                ""
                if self.wps_target_half_width is None
                else f" (target ±{format_number(self.wps_target_half_width)} {self.unit}/s)"
            )
            lines.append(f"  WPS throughput: {self.wps}{target}")
            lines.append(
                f"  prediction error relative to total time: WPS "
                f"{self.wps.relative_error:.2%}, naive sum(w)/sum(t) "
                f"{self.wps.naive_relative_error:.2%} "
                f"(naive v = {format_number(self.wps.naive_throughput)} {self.unit}/s)"
            )
        elif self.wps_error is not None:
            lines.append(f"  WPS throughput: undetermined ({self.wps_error})")
        for item in (*self.readings, *self.unit_readings):
            lines.append(f"  {item}")
            if item.comparison is not None:
                lines.append(f"    vs baseline: {item.comparison}")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


def _positive_or_none(value: float | None, name: str) -> float | None:
    if value is None:
        return None
    return check_real(value, name, low=0.0, low_inclusive=False)


def _state_baselines(value: Any) -> Any:
    """Baselines as JSON (lists) for the saved state."""
    if value is None:
        return None
    baselines = _as_baselines(value, "baseline")
    return [
        None if b is None else [b.mean, b.subsession_variance, b.n_subsessions]
        for b in baselines
    ]


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
    half_width_percent, half_width : float, optional
        Target half width of the WPS throughput interval, in percent of ``v`` and/or
        units/s (the smaller enabled one applies; both None: 5 %, Pilot's default full
        width of 10 %).
    readings_half_width_percent, readings_half_width : float, optional
        Target half width of the interval of each readings index, in percent of its mean
        and/or in its unit (both None: 5 %).
    unit_readings_half_width_percent, unit_readings_half_width : float, optional
        Target half width of the interval of each unit-readings index (both None: 5 %).
    confidence_level : float, default 0.95
        Level of every interval.
    autocorrelation_limit : float, default 0.1
        Limit of the lag-1 autocorrelation of subsession means.
    min_rounds : int, default 10
        Minimum number of rounds of a session: it never finishes before this many.
    max_rounds : int or None, default 1000
        Stop (``stop_reason="max_rounds"``) after this many rounds.
    max_duration : float, optional
        Stop once the recorded rounds add up to this many seconds.
    min_round_duration : float, optional
        Rounds shorter than this (s) are *short*: stored but not used by any analysis
        (Pilot's rule), listed in :attr:`SessionResult.short_rounds`, and the planner
        doubles the work. None: 1 s when the session sets the work amount (``max_work``),
        0 s otherwise. A round measured as 0 s (a coarse timer) is always short.
    target_initial_time : float, default 60.0
        Time budget of the planner's initial ramp (s).
    wps_analysis : bool, default True
        Estimate the stable throughput by WPS regression (needs ``max_work``).
    min_subsessions : int, default 21
        Minimum number of subsessions of the WPS fit before the WPS analysis can finish
        (Pilot: more than 20).
    readings_min_subsessions, unit_readings_min_subsessions : int, default 10
        Minimum number of subsessions before a readings / unit-readings target can be met.
    warmup_removal : {"stable_phase", "trim", "none"}, default "stable_phase"
        How each round's unit readings lose their warm-up and cool-down:
        :func:`pilotstats.changepoints.stable_phase` (a round without a dominant stable
        segment, or with fewer than ``2 * min_size`` readings, is kept whole and
        reported), Pilot's fixed-percentage trimming (:func:`trim_warmup`) or nothing.
    min_size : int, default 30
        Minimum segment length for warm-up detection (``stable_phase(min_size=)``).
        Rounds need at least ``2 * min_size`` unit readings to be searched; for short
        rounds set it to about a sixth of the round length (at least 5).
    trim_fraction : float, default 0.1
        Fraction trimmed by ``warmup_removal="trim"``.
    readings_mean_method, unit_readings_mean_method : str, default "arithmetic"
        Mean of undeclared readings / unit-readings indices, ``"arithmetic"`` or
        ``"harmonic"`` (for rates); declared indices follow their ``index_type``.
    readings_indices, unit_readings_indices : sequence of PerformanceIndex, optional
        Declarations of the indices (name, unit, type, must_satisfy), one per index in
        the order of the values passed to :meth:`record`.
    baseline_readings, baseline_unit_readings : Baseline or sequence, optional
        Baselines per index (a single one applies to index 0); each index with a baseline
        is compared by Welch's test and must also reach ``significance_level`` where
        reachable.
    significance_level : float, default 0.05
        p-value the comparison with a baseline aims for (``p <= significance_level``).
    subsession_basis : {"residuals", "rates"}, default "residuals"
        Passed to the WPS regression (see :func:`pilotstats.regression.wps`).
    outlier_threshold : float or None, default 10.0
        Rounds whose duration lies further than this many robust standard deviations from
        the WPS line are excluded from the fit (isolated outliers, at most 10 % of the
        rounds) and listed in :attr:`SessionResult.outlier_rounds`; None keeps all.
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

    A session never reports an interval built on a silent rule: short rounds, outlier
    rounds and rounds whose warm-up could not be removed are listed in
    :attr:`SessionResult.notes` (and ``warmup_kept`` flags the last case).

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
        half_width_percent: float | None = None,
        half_width: float | None = None,
        readings_half_width_percent: float | None = None,
        readings_half_width: float | None = None,
        unit_readings_half_width_percent: float | None = None,
        unit_readings_half_width: float | None = None,
        confidence_level: float = 0.95,
        autocorrelation_limit: float = 0.1,
        min_rounds: int = 10,
        max_rounds: int | None = 1000,
        max_duration: float | None = None,
        min_round_duration: float | None = None,
        target_initial_time: float = 60.0,
        wps_analysis: bool = True,
        min_subsessions: int = 21,
        readings_min_subsessions: int = 10,
        unit_readings_min_subsessions: int = 10,
        warmup_removal: WarmupRemoval = "stable_phase",
        min_size: int = 30,
        trim_fraction: float = 0.1,
        readings_mean_method: MeanMethod = "arithmetic",
        unit_readings_mean_method: MeanMethod = "arithmetic",
        readings_indices: Sequence[PerformanceIndex] | None = None,
        unit_readings_indices: Sequence[PerformanceIndex] | None = None,
        baseline_readings: Any = None,
        baseline_unit_readings: Any = None,
        significance_level: float = 0.05,
        subsession_basis: SubsessionBasis = "residuals",
        outlier_threshold: float | None = OUTLIER_THRESHOLD,
        unit: str = "units",
    ) -> None:
        options = {key: value for key, value in locals().items() if key != "self"}
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
            readings_half_width_percent, readings_half_width, "readings_"
        )
        self._unit_target = self._target(
            unit_readings_half_width_percent, unit_readings_half_width, "unit_readings_"
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
        self.min_size = check_int(min_size, "min_size", low=2)
        self.trim_fraction = check_real(
            trim_fraction, "trim_fraction", low=0.0, high=1.0, high_inclusive=False
        )
        self.readings_mean_method: MeanMethod = check_choice(
            readings_mean_method, "readings_mean_method", ("arithmetic", "harmonic")
        )
        self.unit_readings_mean_method: MeanMethod = check_choice(
            unit_readings_mean_method, "unit_readings_mean_method", ("arithmetic", "harmonic")
        )
        self.readings_indices = _as_indices(readings_indices, "readings_indices")
        self.unit_readings_indices = _as_indices(unit_readings_indices, "unit_readings_indices")
        self._baseline_readings = _as_baselines(baseline_readings, "baseline_readings")
        self._baseline_units = _as_baselines(baseline_unit_readings, "baseline_unit_readings")
        self.significance_level = check_probability(significance_level, "significance_level")
        self.unit = str(unit)
        self.max_work = (
            None
            if max_work is None
            else check_real(max_work, "max_work", low=0.0, low_inclusive=False)
        )
        if min_round_duration is None:
            min_round_duration = 1.0 if self.max_work is not None else 0.0
        self.min_round_duration = check_real(min_round_duration, "min_round_duration", low=0.0)
        if not isinstance(wps_analysis, (bool, np.bool_)):
            raise InvalidInputError(f"wps_analysis must be True or False, got {wps_analysis!r}")
        self.wps_analysis = bool(wps_analysis) and self.max_work is not None
        self.planner: WorkPlanner | None = None
        if self.max_work is not None:
            self.planner = WorkPlanner(
                min_work,
                self.max_work,
                min_round_duration=self.min_round_duration,
                target_initial_time=target_initial_time,
                initial_work=initial_work,
                half_width_percent=half_width_percent,
                half_width=half_width,
                confidence_level=self.confidence_level,
                autocorrelation_limit=self.autocorrelation_limit,
                min_subsessions=min_subsessions,
                wps_analysis=self.wps_analysis,
                subsession_basis=subsession_basis,
                unit=self.unit,
                outlier_threshold=outlier_threshold,
            )
        options["readings_indices"] = [list(i) for i in self.readings_indices] or None
        options["unit_readings_indices"] = [list(i) for i in self.unit_readings_indices] or None
        options["baseline_readings"] = _state_baselines(baseline_readings)
        options["baseline_unit_readings"] = _state_baselines(baseline_unit_readings)
        self._options = {key: json_safe(value) for key, value in options.items()}
        # Raw rounds (for saving): work, duration, readings row, unit-reading rows.
        self._raw: list[tuple[float | None, float, list[float] | None, list[list[float]] | None]]
        self._raw = []
        self._work: list[float] = []
        self._durations: list[float] = []
        self._short: list[int] = []
        self._n_readings: int | None = None  # number of readings indices
        self._reading_values: list[list[float]] = []  # per index, used rounds only
        self._unit_kept: list[list[Float64Array1D]] = []  # per index, per used round
        self._unit_removed: list[int] = []
        self._unit_too_short: list[int] = []
        self._unit_unresolved: list[int] = []
        self._readings_analyses: tuple[IndexAnalysis, ...] = ()
        self._unit_analyses: tuple[IndexAnalysis, ...] = ()
        self._stop_reason: str | None = None

    @staticmethod
    def _target(
        percent: float | None, width: float | None, prefix: str
    ) -> tuple[float | None, float | None]:
        percent = _positive_or_none(percent, f"{prefix}half_width_percent")
        width = _positive_or_none(width, f"{prefix}half_width")
        if percent is None and width is None:
            percent = _DEFAULT_HALF_WIDTH_PERCENT
        return percent, width

    # -- state ---------------------------------------------------------------------------

    @property
    def n_rounds(self) -> int:
        """Rounds recorded so far (short rounds included)."""
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
        """Every required analysis meets its target and at least ``min_rounds`` were run."""
        if self.n_rounds < self.min_rounds:
            return False
        states = [
            item.done
            for item in (*self._readings_analyses, *self._unit_analyses)
            if item.must_satisfy
        ]
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
        """Work of the next round (None when the workload's work cannot vary)."""
        if self.planner is None:
            return None
        extra = self._unit_reading_proposals()
        return self.planner.combine_proposals(*extra)

    def record(
        self,
        work: float | None,
        duration: float,
        readings: ArrayLike1D | float | None = None,
        unit_readings: Any = None,
    ) -> None:
        """Record a finished round and update every analysis.

        Parameters
        ----------
        work : float or None
            Work done by the round (> 0); None only when the session has no ``max_work``.
        duration : float
            Round duration in seconds (>= 0). A round shorter than ``min_round_duration``,
            or measured as 0 s by a coarse timer, is stored but not used.
        readings : float or array_like, optional
            One reading per performance index for this round.
        unit_readings : array_like or sequence of array_like, optional
            The round's unit readings: a 1-D array for a single index, or one 1-D array
            per index. The first round with unit readings must not be empty (an empty
            index could never meet its target); later rounds may be.

        Raises
        ------
        SessionFinishedError
            The session is already done.
        InvalidInputError
            Negative or non-finite values, a different number of indices than in earlier
            rounds or than declared, non-0/1 values of a binary index, or empty unit
            readings in the first round that has any.
        """
        if self.done:
            raise SessionFinishedError(
                f"the session is finished (stop reason: {self._stop_reason}) after "
                f"{self.n_rounds} rounds; check BenchmarkSession.done before running "
                "another round"
            )
        self._record(work, duration, readings, unit_readings)
        self._analyse_all()
        self._update_stop()

    def _record(
        self, work: float | None, duration: float, readings: Any, unit_readings: Any
    ) -> None:
        """Validate and store one round (no analysis)."""
        d = check_real(duration, "duration", low=0.0)
        if self.planner is not None:
            if work is None:
                raise InvalidInputError("work is required when the session has max_work")
            w = check_real(work, "work", low=0.0, low_inclusive=False)
        else:
            w = 0.0 if work is None else check_real(work, "work", low=0.0)
        reading_row = self._check_readings(readings)
        unit_rows = self._check_unit_readings(unit_readings)

        round_index = self.n_rounds
        self._raw.append(
            (
                None if work is None else w,
                d,
                None if reading_row is None else reading_row.tolist(),
                None if unit_rows is None else [row.tolist() for row in unit_rows],
            )
        )
        self._work.append(w)
        self._durations.append(d)
        short = d <= 0.0 or d < self.min_round_duration
        if reading_row is not None:
            if self._n_readings is None:
                self._n_readings = int(reading_row.shape[0])
                self._reading_values = [[] for _ in range(self._n_readings)]
            if not short:
                for index, value in enumerate(reading_row):
                    self._reading_values[index].append(float(value))
        if unit_rows is not None:
            if not self._unit_kept:
                count = len(unit_rows)
                self._unit_kept = [[] for _ in range(count)]
                self._unit_removed = [0] * count
                self._unit_too_short = [0] * count
                self._unit_unresolved = [0] * count
            if not short:
                for index, values in enumerate(unit_rows):
                    self._keep_unit_readings(index, values)
        if short:
            self._short.append(round_index)
        if self.planner is not None:
            self.planner.record(w, d)

    def _keep_unit_readings(self, index: int, values: Float64Array1D) -> None:
        binary = self._index_type("unit_readings", index) == "binary"
        method: WarmupRemoval = "none" if binary else self.warmup_removal
        start, end, outcome = _stable_range(values, method, self.trim_fraction, self.min_size)
        self._unit_kept[index].append(values[start:end])
        self._unit_removed[index] += int(values.shape[0]) - (end - start)
        if outcome == _TOO_SHORT:
            self._unit_too_short[index] += 1
        elif outcome == _UNRESOLVED:
            self._unit_unresolved[index] += 1

    def _declared(self, kind: str) -> tuple[PerformanceIndex, ...]:
        return self.readings_indices if kind == "readings" else self.unit_readings_indices

    def _index_type(self, kind: str, index: int) -> IndexType:
        declared = self._declared(kind)
        if index < len(declared):
            return declared[index].index_type
        mean_method = (
            self.readings_mean_method if kind == "readings" else self.unit_readings_mean_method
        )
        return "ratio" if mean_method == "harmonic" else "ordinary"

    def _check_values(self, kind: str, index: int, values: Float64Array1D, name: str) -> None:
        index_type = self._index_type(kind, index)
        if index_type == "binary" and not np.all((values == 0.0) | (values == 1.0)):
            raise InvalidInputError(
                f"{name} belongs to a binary index and must hold only 0 and 1, got "
                f"{values[(values != 0.0) & (values != 1.0)][0]!r}"
            )
        if index_type == "ratio" and np.any(values <= 0.0):
            raise InvalidInputError(
                f"{name} belongs to a ratio index (harmonic mean) and must be > 0"
            )

    def _check_readings(self, readings: Any) -> Float64Array1D | None:
        if readings is None:
            return None
        row = as_float_array(np.atleast_1d(readings), "readings")
        expected = self._n_readings
        if expected is None and self.readings_indices:
            expected = len(self.readings_indices)
        if expected is not None and row.shape[0] != expected:
            raise InvalidInputError(
                f"readings must have one value per performance index ({expected} as "
                f"{'declared' if self._n_readings is None else 'in earlier rounds'}), "
                f"got {row.shape[0]}"
            )
        if self._n_readings is None and self.n_rounds > 0:
            raise InvalidInputError(
                "readings must be given for every round (earlier rounds had none)"
            )
        for index in range(row.shape[0]):
            self._check_values("readings", index, row[index : index + 1], f"readings[{index}]")
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
        expected = len(self._unit_kept) or len(self.unit_readings_indices) or None
        if expected is not None and len(rows) != expected:
            raise InvalidInputError(
                f"unit_readings must have one array per performance index ({expected} as "
                f"{'in earlier rounds' if self._unit_kept else 'declared'}), got {len(rows)}"
            )
        if not self._unit_kept:
            empty = [i for i, row in enumerate(rows) if row.shape[0] == 0]
            if empty:
                raise InvalidInputError(
                    f"unit_readings[{empty[0]}] is empty in the first round with unit "
                    "readings: an index without readings can never meet its target; pass "
                    "None for a round without unit readings"
                )
        for index, row in enumerate(rows):
            self._check_values("unit_readings", index, row, f"unit_readings[{index}]")
        return rows

    # -- analyses ------------------------------------------------------------------------

    def _analyse_all(self) -> None:
        self._readings_analyses = tuple(
            self._analyse(
                "readings",
                i,
                np.array(values, dtype=np.float64),
                0,
                0,
                self._readings_target,
                self.readings_min_subsessions,
                self._baseline_readings,
            )
            for i, values in enumerate(self._reading_values)
        )
        self._unit_analyses = tuple(
            self._analyse(
                "unit_readings",
                i,
                np.concatenate(kept) if kept else np.empty(0),
                self._unit_removed[i],
                self._unit_too_short[i] + self._unit_unresolved[i],
                self._unit_target,
                self.unit_readings_min_subsessions,
                self._baseline_units,
            )
            for i, kept in enumerate(self._unit_kept)
        )

    def _warmup_note(self, label: str, index: int) -> str | None:
        too_short, unresolved = self._unit_too_short[index], self._unit_unresolved[index]
        if not too_short and not unresolved:
            return None
        used = len(self._unit_kept[index])
        parts = []
        if too_short:
            parts.append(
                f"{too_short} had fewer than 2 * min_size = {2 * self.min_size} unit "
                "readings to search (lower min_size, or run longer rounds)"
            )
        if unresolved:
            parts.append(f"{unresolved} had change points but no dominant stable segment")
        return (
            f"{label}: warm-up could not be removed in {too_short + unresolved} of {used} "
            f"rounds ({'; '.join(parts)}); the interval may be biased by warm-up"
        )

    def _analyse(
        self,
        kind: str,
        index: int,
        data: Float64Array1D,
        removed: int,
        warmup_kept: int,
        target: tuple[float | None, float | None],
        min_subsessions: int,
        baselines: tuple[Baseline | None, ...],
    ) -> IndexAnalysis:
        """Interval, required size and baseline comparison of one index."""
        declared = self._declared(kind)
        spec = declared[index] if index < len(declared) else PerformanceIndex()
        index_type = self._index_type(kind, index)
        n = int(data.shape[0])
        analysis: SubsessionResult | ProportionResult | None = None
        required: SampleSizeResult | None = None
        mean_method: MeanMethod = "harmonic" if index_type == "ratio" else "arithmetic"
        variance_and_count: tuple[float, float, int, int] | None = None
        if n >= 3:
            try:
                if index_type == "binary":
                    proportion = proportion_interval(data, confidence_level=self.confidence_level)
                    analysis = proportion
                    p = proportion.proportion
                    variance_and_count = (p, p * (1.0 - p) * n / (n - 1), n, 1)
                else:
                    sub = subsession_analysis(
                        data,
                        confidence_level=self.confidence_level,
                        autocorrelation_limit=self.autocorrelation_limit,
                        mean_method=mean_method,
                    )
                    analysis = sub
                    variance_and_count = (
                        sub.mean,
                        sub.subsession_variance,
                        sub.n_subsessions,
                        sub.subsession_size,
                    )
            except NotEnoughDataError:
                analysis = None
            try:
                required = required_sample_size(
                    data,
                    half_width_percent=target[0],
                    half_width=target[1],
                    confidence_level=self.confidence_level,
                    autocorrelation_limit=self.autocorrelation_limit,
                    min_subsessions=min_subsessions,
                    mean_method=mean_method,
                    kind="proportion" if index_type == "binary" else "mean",
                )
            except PilotStatsError:
                required = None
        baseline = baselines[index] if index < len(baselines) else None
        comparison = comparison_required = None
        comparison_note = None
        if baseline is not None and variance_and_count is not None and variance_and_count[2] >= 2:
            estimate, variance, count, size = variance_and_count
            try:
                comparison = welch_test(
                    estimate,
                    variance,
                    count,
                    baseline.mean,
                    baseline.subsession_variance,
                    baseline.n_subsessions,
                    confidence_level=self.confidence_level,
                )
                comparison_required = required_sample_size_for_comparison(
                    baseline.mean,
                    baseline.subsession_variance,
                    baseline.n_subsessions,
                    estimate,
                    variance,
                    count,
                    significance_level=self.significance_level,
                    subsession_size=size,
                    min_subsessions=min_subsessions,
                )
            except UnreachableTargetError as exc:
                comparison_note = str(exc)
            except PilotStatsError as exc:  # e.g. both variances 0: no test is possible
                comparison_note = f"no Welch comparison: {exc}"
        enough = required is not None and required.enough
        comparison_ok = (
            baseline is None
            or comparison_note is not None
            or (comparison_required is not None and n >= comparison_required.samples)
        )
        progress = 0.0
        if required is not None and required.samples:
            progress = min(1.0, n / required.samples)
        if baseline is not None and comparison_required is not None:
            progress = min(progress, n / comparison_required.samples)
        done = enough and comparison_ok
        label = f"{kind}[{spec.name or index}]"
        return IndexAnalysis(
            kind=kind,
            index=index,
            name=spec.name,
            unit=spec.unit,
            index_type=index_type,
            must_satisfy=spec.must_satisfy,
            n=n,
            n_removed=removed,
            warmup_kept_rounds=warmup_kept,
            analysis=analysis,
            required=required,
            comparison=comparison,
            comparison_required=comparison_required,
            comparison_note=comparison_note,
            note=self._warmup_note(label, index) if kind == "unit_readings" else None,
            done=done,
            progress=1.0 if done else min(progress, 0.999),
        )

    def _unit_reading_proposals(self) -> list[float]:
        """Work expected to deliver the missing unit readings, per unfinished index."""
        proposals = []
        total_work = math.fsum(self._work)
        for item in self._unit_analyses:
            if item.done or not item.must_satisfy or not self._work:
                continue
            required = None if item.required is None else item.required.samples
            if item.comparison_required is not None and item.comparison_note is None:
                required = max(required or 0, item.comparison_required.samples)
            proposals.append(unit_reading_work(required, item.n, total_work, self._work[-1]))
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
        required = planner.target_half_width
        width = result.throughput_half_width
        if required is None or not math.isfinite(width) or not result.valid:
            by_width = 0.0
        elif width <= required:
            by_width = 1.0
        else:
            by_width = (required / width) ** 2  # width shrinks like 1/sqrt(rounds)
        return min(by_h, by_width, 0.999)

    @property
    def progress(self) -> SessionProgress:
        """Progress towards the targets (the least advanced required analysis sets it)."""
        analyses: dict[str, float] = {"rounds": min(1.0, self.n_rounds / self.min_rounds)}
        if self.wps_analysis:
            analyses["wps"] = self._wps_progress()
        for item in (*self._readings_analyses, *self._unit_analyses):
            if item.must_satisfy:
                analyses[item.label] = item.progress
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

    def _notes(self, outliers: tuple[int, ...]) -> list[str]:
        notes = []
        if self._short:
            notes.append(
                f"{len(self._short)} of {self.n_rounds} rounds were shorter than "
                f"min_round_duration = {format_quantity(self.min_round_duration, 's')} (or "
                f"measured as 0 s) and were stored but not used: rounds "
                f"{_round_list(self._short)} (0-based)"
            )
        if outliers:
            notes.append(
                f"{len(outliers)} isolated outlier round(s) excluded from the WPS fit "
                f"(duration further than the outlier threshold from the line): rounds "
                f"{_round_list(outliers)} (0-based)"
            )
        notes.extend(item.note for item in self._unit_analyses if item.note is not None)
        return notes

    def result(self) -> SessionResult:
        """All current estimates, with notes on everything excluded."""
        planner = self.planner
        outliers = () if planner is None or not self.wps_analysis else planner.outlier_rounds
        wps_error = None
        if planner is not None and self.wps_analysis and planner.wps_result is None:
            wps_error = planner.wps_error or "fewer than 4 rounds recorded"
        return SessionResult(
            n_rounds=self.n_rounds,
            total_work=math.fsum(self._work),
            total_duration=self.total_duration,
            done=self.done,
            targets_met=self.targets_met,
            stop_reason=self._stop_reason,
            wps=None if planner is None or not self.wps_analysis else planner.wps_result,
            wps_target_half_width=None if planner is None else planner.target_half_width,
            wps_done=self._wps_done(),
            wps_error=wps_error,
            readings=self._readings_analyses,
            unit_readings=self._unit_analyses,
            short_rounds=tuple(self._short),
            outlier_rounds=tuple(outliers),
            warmup_kept=any(item.warmup_kept_rounds for item in self._unit_analyses),
            notes=tuple(self._notes(tuple(outliers))),
            confidence_level=self.confidence_level,
            unit=self.unit,
        )

    # -- persistence ---------------------------------------------------------------------

    def state(self, *, first_round: int = 0) -> dict[str, Any]:
        """The complete session as JSON-safe data: its options and every recorded round.

        :meth:`from_state` rebuilds an identical session from it (the planner and every
        analysis are replayed from the raw rounds).

        Parameters
        ----------
        first_round : int, default 0
            Include only the rounds from this one on (0-based), e.g. to append each new
            round to a log instead of rewriting the whole state.

        Returns
        -------
        dict
            ``{"version", "options", "rounds"}``; each round is ``{"work", "duration",
            "readings", "unit_readings"}`` as recorded (short rounds included).
        """
        start = check_int(first_round, "first_round", low=0)
        rounds = [
            {"work": work, "duration": duration, "readings": readings, "unit_readings": units}
            for work, duration, readings, units in self._raw[start:]
        ]
        return {"version": STATE_VERSION, "options": dict(self._options), "rounds": rounds}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> BenchmarkSession:
        """Rebuild a session from :meth:`state` (to resume it after an interruption).

        Parameters
        ----------
        state : dict
            Output of :meth:`state` (or the parsed JSON written by :meth:`save`).

        Returns
        -------
        BenchmarkSession
            The session with every recorded round replayed.

        Raises
        ------
        InvalidInputError
            ``state`` is not a session state of a supported version.

        Examples
        --------
        >>> session = BenchmarkSession(min_rounds=5, readings_half_width_percent=2.5)
        >>> for value in (1.0, 1.1, 0.9):
        ...     session.record(None, 1.0, readings=[value])
        >>> copy = BenchmarkSession.from_state(session.state())
        >>> copy.n_rounds, copy.result().readings[0].n
        (3, 3)
        """
        if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
            raise InvalidInputError(
                f"state must be a dict written by BenchmarkSession.state() (version "
                f"{STATE_VERSION}), got {type(state).__name__}"
                + (f" version {state.get('version')!r}" if isinstance(state, dict) else "")
            )
        try:
            options = dict(state.get("options", {}))
            for key in ("baseline_readings", "baseline_unit_readings"):
                if options.get(key) is not None:
                    options[key] = [None if b is None else tuple(b) for b in options[key]]
            session = cls(**options)
            for item in state.get("rounds", []):
                session._record(
                    item["work"], item["duration"], item["readings"], item["unit_readings"]
                )
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidInputError(
                f"state is not a valid session state ({type(exc).__name__}: {exc}); it must "
                "come from BenchmarkSession.state()"
            ) from None
        session._analyse_all()
        session._update_stop()
        return session

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`state` as JSON to ``path`` (atomically: a crash leaves the old file).

        Parameters
        ----------
        path : str or path-like
            File to write.
        """
        target = os.fspath(path)
        temporary = f"{target}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(self.state(), handle, allow_nan=False)
        os.replace(temporary, target)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BenchmarkSession:
        """Resume a session saved with :meth:`save`.

        Parameters
        ----------
        path : str or path-like
            File written by :meth:`save`.

        Returns
        -------
        BenchmarkSession
            The session, ready for its next round.

        Examples
        --------
        >>> import os, tempfile
        >>> session = BenchmarkSession(min_rounds=5)
        >>> session.record(None, 1.0, readings=[2.0])
        >>> path = os.path.join(tempfile.mkdtemp(), "session.json")
        >>> session.save(path)
        >>> BenchmarkSession.load(path).n_rounds
        1
        """
        with open(os.fspath(path), encoding="utf-8") as handle:
            return cls.from_state(json.load(handle))


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
    checkpoint: str | os.PathLike[str] | None = None,
    **options: Any,
) -> SessionResult:
    """Run ``workload`` round after round until the session's targets are met.

    Parameters
    ----------
    workload : callable
        ``workload(work)`` runs one round (``work`` is None when ``max_work`` is None) and
        returns None (the round is timed with ``timer``), its duration in
        seconds, or ``(duration, unit_readings)`` where ``duration`` may be None to use the
        measured time.
    max_work : float, optional
        Largest work of a round (see :class:`BenchmarkSession`).
    progress : tqdm-like object or callable, optional
        A ``tqdm`` bar (its ``update`` receives percentage points of progress, its postfix
        a status message) or a function called with a :class:`SessionProgress` after
        every round.
    timer : callable, default time.perf_counter
        Clock used to time rounds. A round it measures as 0 s (a coarse clock) is stored
        as short and not used; the session continues.
    session : BenchmarkSession, optional
        Continue an existing session instead of creating one (``max_work`` and
        ``options`` must then be omitted), e.g. ``WorkloadError.session`` or
        ``BenchmarkSession.load(path)``.
    checkpoint : str or path-like, optional
        Save the session (:meth:`BenchmarkSession.save`) to this file after every round,
        so an interrupted session can be resumed with ``BenchmarkSession.load``.
    **options
        Keyword arguments of :class:`BenchmarkSession`.

    Returns
    -------
    SessionResult
        The final estimates (``stop_reason`` says why the session ended).

    Raises
    ------
    WorkloadError
        The workload raised; the error carries the session with every round recorded
        before (``error.session``, ``error.result``), and the original exception as its
        cause.

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
        try:
            outcome = workload(work)
        except Exception as exc:
            raise WorkloadError(
                f"the workload raised {type(exc).__name__} in round {session.n_rounds} "
                f"(0-based; work amount {work}): {exc}; the {session.n_rounds} rounds "
                "recorded before are kept in error.session",
                session=session,
                result=session.result(),
                round_index=session.n_rounds,
            ) from exc
        measured = max(timer() - start, 0.0)
        duration, unit_readings = _parse_outcome(outcome, measured)
        session.record(work, duration, unit_readings=unit_readings)
        if checkpoint is not None:
            session.save(checkpoint)
        _report(progress, session.progress, shown)
    return session.result()
