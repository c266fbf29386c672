"""Results of a benchmark session: per-index analyses, progress and the session result.

:class:`IndexAnalysis` (one performance index), :class:`SessionProgress` (for progress
bars) and :class:`SessionResult` (every estimate with notes on what was excluded), plus the
helpers that word those notes and measure the progress of the WPS analysis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pilotstats.autocorrelation import (
    ComparisonSampleSizeResult,
    ProportionResult,
    SampleSizeResult,
    SubsessionResult,
    TwoLevelResult,
    WelchResult,
)
from pilotstats.regression._wps import WpsResult
from pilotstats.results import Result, format_number, format_quantity

if TYPE_CHECKING:
    from pilotstats.session._planner import WorkPlanner

__all__ = [
    "IndexAnalysis",
    "SessionProgress",
    "SessionResult",
    "index_label",
    "session_notes",
    "wps_progress",
]


def index_label(kind: str, name: str, index: int) -> str:
    """``kind[name]`` (``kind[index]`` for an unnamed index)."""
    return f"{kind}[{name or index}]"


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
    analysis : SubsessionResult, ProportionResult, TwoLevelResult or None
        Mean (binary: proportion) with its confidence interval (None while undetermined).
        An ordinary or ratio unit-readings index has a
        :class:`~pilotstats.autocorrelation.TwoLevelResult`: the rounds are its units
        (each round's mean of its kept readings; a ratio index's interval is the inverted
        interval of the rounds' mean reciprocals), and its bounds are widened when a
        warm-up was removed (see ``widened``).
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
    fraction : float
        Fraction of the requirement reached, in [0, 1] (as :attr:`SessionProgress.fraction`).
    warmup_cut : int or None
        Readings dropped at the start of every round by the pooled warm-up search
        (``warmup_removal="pooled"``); None for other methods and indices.
    widened : bool
        The interval was widened to also cover the interval (at level ``1 - (1 - c) / 10``)
        of the second half of every round, because a warm-up was removed (its residual
        bias is below what the search can see).

    Examples
    --------
    The ``readings`` and ``unit_readings`` of a :class:`SessionResult`:

    >>> import numpy as np
    >>> from pilotstats.session import BenchmarkSession, RoundLimits
    >>> rng = np.random.default_rng(0)
    >>> limits = RoundLimits(min_rounds=5, min_round_duration=0.0)
    >>> session = BenchmarkSession(max_work=10_000, limits=limits)
    >>> while not session.done:  # rounds take 10 ms + work / (1e4 units/s); one reading each
    ...     work = session.next_work()
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
    analysis: SubsessionResult | ProportionResult | TwoLevelResult | None
    required: SampleSizeResult | None
    comparison: WelchResult | None
    comparison_required: ComparisonSampleSizeResult | None
    comparison_note: str | None
    note: str | None
    done: bool
    fraction: float
    warmup_cut: int | None = None
    widened: bool = False

    @property
    def label(self) -> str:
        """``kind[name]`` (``kind[index]`` for an unnamed index)."""
        return index_label(self.kind, self.name, self.index)

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
            state = f"{self.fraction:.0%} of target"
        flag = "; warm-up kept, see note" if self.warmup_kept_rounds else ""
        if not flag and self.note:
            flag = "; see note"
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

    >>> from pilotstats.session import BenchmarkSession, RoundLimits
    >>> limits = RoundLimits(min_rounds=5, min_round_duration=0.0)
    >>> session = BenchmarkSession(max_work=10_000, limits=limits)
    >>> session.record(session.next_work(), 0.02)
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
    >>> from pilotstats.session import BenchmarkSession, RoundLimits
    >>> rng = np.random.default_rng(0)
    >>> limits = RoundLimits(min_rounds=5, min_round_duration=0.0)
    >>> session = BenchmarkSession(max_work=10_000, limits=limits)
    >>> while not session.done:  # rounds take 10 ms + work / (1e4 units/s); one reading each
    ...     work = session.next_work()
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
        if self.notes:
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


def session_notes(
    short_rounds: Sequence[int],
    n_rounds: int,
    min_round_duration: float,
    outlier_rounds: Sequence[int],
    unit_readings: Sequence[IndexAnalysis],
) -> list[str]:
    """Everything a session excluded or could not remove, in words.

    Parameters
    ----------
    short_rounds : sequence of int
        Rounds stored but not used (shorter than ``min_round_duration``).
    n_rounds : int
        Rounds recorded.
    min_round_duration : float
        The session's short-round threshold (s).
    outlier_rounds : sequence of int
        Rounds excluded from the WPS fit as isolated outliers.
    unit_readings : sequence of IndexAnalysis
        Analyses of the indices whose notes to carry over (warm-up, autocorrelation).

    Returns
    -------
    list of str
        The notes of :attr:`SessionResult.notes`.
    """
    notes = []
    if short_rounds:
        notes.append(
            f"{len(short_rounds)} of {n_rounds} rounds were shorter than "
            f"min_round_duration = {format_quantity(min_round_duration, 's')} (or "
            f"measured as 0 s) and were stored but not used: rounds "
            f"{_round_list(short_rounds)} (0-based)"
        )
    if outlier_rounds:
        notes.append(
            f"{len(outlier_rounds)} isolated outlier round(s) excluded from the WPS fit "
            f"(duration further than the outlier threshold from the line): rounds "
            f"{_round_list(outlier_rounds)} (0-based)"
        )
    notes.extend(item.note for item in unit_readings if item.note is not None)
    return notes


def wps_progress(planner: WorkPlanner | None) -> float:
    """Fraction of the WPS stop rule reached by a session's planner, in [0, 1].

    Parameters
    ----------
    planner : WorkPlanner or None
        The session's planner (None: no WPS analysis).

    Returns
    -------
    float
        1.0 once the WPS analysis is finished, else below 1: the lesser of the fraction of
        the required subsessions and of the required width (the width shrinks like
        ``1 / sqrt(rounds)``).
    """
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
