"""The benchmark session controller, :class:`BenchmarkSession`.

It validates its options, records rounds (short rounds stored but not used, unit readings
stripped of warm-up per round), decides after each round whether the session stops and
reports progress and results. The per-index analysis lives in
:mod:`pilotstats.session._indices`, the incremental per-round decisions in
:mod:`pilotstats.session._incremental`, warm-up removal in :mod:`pilotstats.session._warmup`,
the result classes in :mod:`pilotstats.session._results` and the JSON state in
:mod:`pilotstats.session._persistence`.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from pilotstats._typing import (
    ArrayLike1D,
    Float64Array1D,
    IndexType,
    MeanMethod,
    WarmupRemoval,
)
from pilotstats._validation import (
    check_autocorrelation_limit,
    check_choice,
    check_confidence_level,
    check_int,
    check_option,
    check_probability,
    check_readings,
    check_real,
    check_unit_readings,
)
from pilotstats.exceptions import InvalidInputError, SessionFinishedError
from pilotstats.results import json_safe
from pilotstats.session._incremental import (
    IndexStream,
    IndexVerdict,
    RunningSum,
    verdict_of,
)
from pilotstats.session._indices import (
    Baseline,
    IndexRequest,
    PerformanceIndex,
    _as_baselines,
    _as_indices,
    analyse_index,
    index_progress,
)
from pilotstats.session._options import (
    IndexOptions,
    IntervalTarget,
    RampOptions,
    RoundLimits,
    WarmupOptions,
    WpsOptions,
    flat_options,
    options_from_flat,
)
from pilotstats.session._persistence import (
    RawRound,
    check_state,
    read_state,
    session_state,
    state_baselines,
    state_options,
    write_state,
)
from pilotstats.session._planner import WorkPlanner, unit_reading_work
from pilotstats.session._results import (
    IndexAnalysis,
    SessionProgress,
    SessionResult,
    index_label,
    session_notes,
    wps_progress,
)
from pilotstats.session._rounds import (
    RoundsDecision,
    RoundSeries,
    analyse_rounds,
    rounds_requirement,
)
from pilotstats.session._warmup import WARMUP_METHODS, UnitReadings

__all__ = ["BenchmarkSession"]

#: Default target of every interval: a half width of 5 % of the estimate (Pilot's default
#: full width of 10 %).
_DEFAULT_HALF_WIDTH_PERCENT = 5.0


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
        amount: the WPS analysis is then off and :meth:`next_work` returns None.
    min_work : float, default 1
        Smallest work amount.
    ramp : RampOptions, optional
        The planner's start: ``initial_work`` (first round, ``max(1, min_work)`` when None),
        ``target_initial_time`` (time budget of the initial ramp, 60 s), ``initial_rounds``
        and ``soft_limit_factor`` (see :class:`WorkPlanner`).
    wps : WpsOptions, optional
        The WPS throughput analysis (needs ``max_work``): its ``interval`` target (an
        :class:`IntervalTarget`: half width in percent of ``v`` and/or units/s, the smaller
        enabled one applying, both None: 5 %, Pilot's default full width of 10 %;
        ``min_subsessions`` of the fit, None: 21, Pilot: more than 20), ``enabled`` (False:
        no WPS estimate), ``subsession_basis`` (see :func:`pilotstats.regression.wps`) and
        ``outlier_threshold``: rounds further than this many robust standard deviations from
        the WPS line are excluded from the fit (isolated outliers, at most 10 % of the
        rounds) and listed in :attr:`SessionResult.outlier_rounds`; None keeps all.
    readings, unit_readings : IndexOptions, optional
        The readings / unit-readings indices: ``interval``, the target of each index's
        interval (half width in percent of its mean and/or in its unit, both None: 5 %;
        ``min_subsessions`` before it can be met, None: 10), ``mean_method`` of undeclared
        indices (``"arithmetic"`` or ``"harmonic"`` for rates; declared indices follow their
        ``index_type``), ``declarations`` (:class:`PerformanceIndex`, one per index
        in the order of the values passed to :meth:`record`) and ``baseline`` (per index, a
        single one applying to index 0; each index with a baseline is compared by Welch's
        test and must also reach ``significance_level`` where reachable).
    limits : RoundLimits, optional
        ``min_rounds`` (10: the session never finishes before), ``max_rounds`` (1000, None:
        no limit; ``stop_reason="max_rounds"``), ``max_duration`` (stop once the recorded
        rounds add up to this many seconds) and ``min_round_duration``: rounds shorter than
        this (s) are *short*: stored but not used by any analysis (Pilot's rule), listed in
        :attr:`SessionResult.short_rounds`, and the planner doubles the work. None: 1 s when
        the session sets the work amount (``max_work``), 0 s otherwise. A round measured as
        0 s (a coarse timer) is always short.
    warmup : WarmupOptions, optional
        How each round's unit readings lose their warm-up (``removal``, default
        ``"pooled"``). ``"pooled"``: warm-up recurs at the same positions in every round, so
        each window of leading positions is compared with the second half of the same round
        across all rounds (a paired t test), and every round drops the same number of
        leading readings (:attr:`IndexAnalysis.warmup_cut`); after a removal the interval is
        widened to also cover the second halves (see Notes). A warm-up still visible at the
        half of the rounds, or fewer than 3 rounds, is kept and flagged. The per-round
        methods: ``"stable_phase"`` (:func:`pilotstats.changepoints.stable_phase`, warm-up
        and cool-down; rounds need at least ``2 * min_size`` readings, ``min_size`` 30 by
        default, about a sixth of the round length for short rounds; a round without a
        dominant stable segment is kept whole and reported), ``"trim"`` (Pilot's
        fixed-percentage trimming of ``trim_fraction``, 0.1, :func:`trim_warmup`) or
        ``"none"``.
    confidence_level : float, default 0.95
        Level of every interval.
    autocorrelation_limit : float, default 0.1
        Limit of the lag-1 autocorrelation of subsession means.
    significance_level : float, default 0.05
        p-value the comparison with a baseline aims for (``p <= significance_level``).
    unit : str, default "units"
        Work unit label.

    See Also
    --------
    run_session : drive a Python workload function with a session.
    pilotstats.session.WorkPlanner : the work-amount planner used inside.

    Notes
    -----
    Differences from Pilot (the *Defects not copied* sections of ``docs/algorithms/wps.md``
    and ``docs/algorithms/subsession.md``): the configured confidence level and
    autocorrelation limit are honoured everywhere; the throughput interval is the t-based
    inverted slope interval; unit-reading warm-up is removed with an explicit outcome
    instead of discarding rounds; sample sizes are rounded up.

    Rounds as replicates: an ordinary or ratio unit-readings index takes the
    rounds as the units of its interval (Kalibera & Jones, ISMM 2013): each round
    contributes the mean of its kept readings (a ratio index: of their reciprocals, and
    the interval is inverted into one of the harmonic mean) and the interval is
    ``t_{R-1} s / sqrt(R)`` over the ``R`` rounds (a
    :class:`~pilotstats.autocorrelation.TwoLevelResult` with its between- and within-round
    variance components), so it includes round-to-round variation and
    cannot be made too narrow by autocorrelation inside a round; its target needs at
    least ``max(2, unit_readings.interval.min_subsessions)`` rounds. After a pooled warm-up
    removal the interval is the union with the interval of the second half of every
    round at level ``1 - (1 - c) / 10``, which a gradual warm-up's residual bias cannot move
    if the warm-up ends within the first half of the rounds. Readings keep the
    subsession analysis; an interval whose subsession means are clearly
    autocorrelated (a limit looser than 0.1 accepted them) carries a note.

    A session never reports an interval built on a silent rule: short rounds, outlier
    rounds and rounds whose warm-up could not be removed are listed in
    :attr:`SessionResult.notes` (and ``warmup_kept`` flags the last case).

    Cost per round: :meth:`record` decides each readings index (ordinary or binary) and
    each binary unit-readings index without a baseline incrementally, in O(new values +
    q) for subsession size ``q``: the overall mean continues the full analysis's
    compensated sum, and running block sums with bounds on every rounding error of the
    full analysis settle its subsession size and required sample size (a binary index:
    its count of ones). An ordinary or ratio unit-readings index keeps each round's
    cumulative sums (O(new values)) and decides from them in O(rounds x windows), the
    windows of the warm-up search being O(log round length); its full analysis adds
    only the variance components. A round whose bounds leave a decision open (a value
    within about 1e-10 of a threshold), a ratio readings index and an index with a
    baseline run the full analysis, O(n). Every decision (when the session stops,
    :attr:`progress`, :meth:`next_work`) is the full analysis's. :meth:`result` analyses
    each index in full, O(n), at most once per round. With ``max_work`` the WPS planner
    still refits every round, O(rounds log rounds) per round.

    Examples
    --------
    >>> from pilotstats.session import RoundLimits
    >>> limits = RoundLimits(min_rounds=5, min_round_duration=0.0)
    >>> session = BenchmarkSession(max_work=10_000, limits=limits)
    >>> while not session.done:
    ...     work = session.next_work()
    ...     session.record(work, 0.01 + work / 1e4)
    >>> round(session.result().wps.throughput)
    10000
    """

    def __init__(
        self,
        max_work: float | None = None,
        *,
        min_work: float = 1.0,
        ramp: RampOptions | None = None,
        wps: WpsOptions | None = None,
        readings: IndexOptions | None = None,
        unit_readings: IndexOptions | None = None,
        limits: RoundLimits | None = None,
        warmup: WarmupOptions | None = None,
        confidence_level: float = 0.95,
        autocorrelation_limit: float = 0.1,
        significance_level: float = 0.05,
        unit: str = "units",
    ) -> None:
        groups: dict[str, Any] = {
            "ramp": check_option(RampOptions() if ramp is None else ramp, "ramp", RampOptions),
            "wps": check_option(WpsOptions() if wps is None else wps, "wps", WpsOptions),
            "readings": check_option(
                IndexOptions() if readings is None else readings, "readings", IndexOptions
            ),
            "unit_readings": check_option(
                IndexOptions() if unit_readings is None else unit_readings,
                "unit_readings", IndexOptions,
            ),
            "limits": check_option(
                RoundLimits() if limits is None else limits, "limits", RoundLimits
            ),
            "warmup": check_option(
                WarmupOptions() if warmup is None else warmup, "warmup", WarmupOptions
            ),
        }
        for name in ("wps", "readings", "unit_readings"):
            check_option(groups[name].interval, f"{name}.interval", IntervalTarget)
        options = flat_options(
            groups, max_work=max_work, min_work=min_work, confidence_level=confidence_level,
            autocorrelation_limit=autocorrelation_limit,
            significance_level=significance_level, unit=unit,
        )
        self._configure(options)
        self.planner: WorkPlanner | None = None
        if self.max_work is not None:
            self.planner = WorkPlanner(
                min_work,
                self.max_work,
                min_round_duration=self.min_round_duration,
                ramp=groups["ramp"],
                wps=dataclasses.replace(
                    groups["wps"],
                    interval=IntervalTarget(
                        options["half_width_percent"], options["half_width"],
                        options["min_subsessions"],
                    ),
                    enabled=self.wps_analysis,
                ),
                confidence_level=self.confidence_level,
                autocorrelation_limit=self.autocorrelation_limit,
                unit=self.unit,
            )
        options["readings_indices"] = [list(i) for i in self.readings_indices] or None
        options["unit_readings_indices"] = [list(i) for i in self.unit_readings_indices] or None
        options["baseline_readings"] = state_baselines(options["baseline_readings"])
        options["baseline_unit_readings"] = state_baselines(options["baseline_unit_readings"])
        self._options = {key: json_safe(value) for key, value in options.items()}
        self._init_rounds()

    def _configure(self, options: dict[str, Any]) -> None:
        """Validate the flat options and set the session's settings from them."""
        self.confidence_level = check_confidence_level(options["confidence_level"])
        self.autocorrelation_limit = check_autocorrelation_limit(options["autocorrelation_limit"])
        self.min_rounds = check_int(options["min_rounds"], "min_rounds", low=1)
        max_rounds = options["max_rounds"]
        self.max_rounds = None if max_rounds is None else check_int(max_rounds, "max_rounds", low=1)
        if self.max_rounds is not None and self.max_rounds < self.min_rounds:
            raise InvalidInputError(
                f"max_rounds ({self.max_rounds}) must be at least min_rounds ({self.min_rounds})"
            )
        self.max_duration = _positive_or_none(options["max_duration"], "max_duration")
        self._readings_target = self._target(
            options["readings_half_width_percent"], options["readings_half_width"], "readings_"
        )
        self._unit_target = self._target(
            options["unit_readings_half_width_percent"], options["unit_readings_half_width"],
            "unit_readings_",
        )
        self.readings_min_subsessions = check_int(
            options["readings_min_subsessions"], "readings_min_subsessions", low=0
        )
        self.unit_readings_min_subsessions = check_int(
            options["unit_readings_min_subsessions"], "unit_readings_min_subsessions", low=0
        )
        self.warmup_removal: WarmupRemoval = check_choice(
            options["warmup_removal"], "warmup_removal", WARMUP_METHODS
        )
        self.min_size = check_int(options["min_size"], "min_size", low=2)
        self.trim_fraction = check_real(
            options["trim_fraction"], "trim_fraction", low=0.0, high=1.0, high_inclusive=False
        )
        self.readings_mean_method: MeanMethod = check_choice(
            options["readings_mean_method"], "readings_mean_method", ("arithmetic", "harmonic")
        )
        self.unit_readings_mean_method: MeanMethod = check_choice(
            options["unit_readings_mean_method"], "unit_readings_mean_method",
            ("arithmetic", "harmonic"),
        )
        self._configure_indices(options)

    def _configure_indices(self, options: dict[str, Any]) -> None:
        """Set the declarations, baselines, work range and analyses (second half of checks)."""
        self.readings_indices = _as_indices(options["readings_indices"], "readings_indices")
        self.unit_readings_indices = _as_indices(
            options["unit_readings_indices"], "unit_readings_indices"
        )
        self._baseline_readings = _as_baselines(options["baseline_readings"], "baseline_readings")
        self._baseline_units = _as_baselines(
            options["baseline_unit_readings"], "baseline_unit_readings"
        )
        self.significance_level = check_probability(
            options["significance_level"], "significance_level"
        )
        self.unit = str(options["unit"])
        max_work = options["max_work"]
        self.max_work = (
            None
            if max_work is None
            else check_real(max_work, "max_work", low=0.0, low_inclusive=False)
        )
        min_round_duration = options["min_round_duration"]
        if min_round_duration is None:
            min_round_duration = 1.0 if self.max_work is not None else 0.0
        self.min_round_duration = check_real(min_round_duration, "min_round_duration", low=0.0)
        wps_analysis = options["wps_analysis"]
        if not isinstance(wps_analysis, (bool, np.bool_)):
            raise InvalidInputError(f"wps_analysis must be True or False, got {wps_analysis!r}")
        self.wps_analysis = bool(wps_analysis) and self.max_work is not None

    def _init_rounds(self) -> None:
        """Start with no recorded round."""
        # Raw rounds (for saving): work, duration, readings row, unit-reading rows.
        self._raw: list[RawRound] = []
        self._last_work = 0.0
        self._total_work = RunningSum()
        self._total_duration = RunningSum()
        self._n_rounds = 0
        self._short: list[int] = []
        self._n_readings: int | None = None  # number of readings indices
        self._units = UnitReadings()  # per index, used rounds only
        # Values of each index (used rounds only; unit readings after warm-up removal).
        self._streams: dict[str, list[IndexStream]] = {"readings": [], "unit_readings": []}
        self._verdicts: dict[str, tuple[IndexVerdict, ...]] = {
            "readings": (), "unit_readings": ()
        }
        # Ordinary and ratio unit-readings indices: their rounds (None for binary ones), and
        # each one's latest decision with the number of rounds it was made at.
        self._rounds: list[RoundSeries | None] = []
        self._decisions: dict[int, tuple[int, RoundsDecision]] = {}
        # Full analyses, each with the number of rounds it was made at.
        self._analyses: dict[tuple[str, int], tuple[int, IndexAnalysis]] = {}
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
        return self._n_rounds

    @property
    def total_duration(self) -> float:
        """Sum of the recorded round durations (s)."""
        return self._total_duration.value()

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
            verdict.done
            for kind, index, verdict in self._all_verdicts()
            if self._spec(kind, index).must_satisfy
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

    def next_work(self) -> float | None:
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
        """Record a finished round and decide whether the session is done.

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
        self._update_verdicts()
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
        reading_row = check_readings(
            readings,
            n_earlier=self._n_readings,
            n_declared=len(self.readings_indices),
            n_rounds=self.n_rounds,
            index_type=lambda index: self._index_type("readings", index),
        )
        unit_rows = check_unit_readings(
            unit_readings,
            n_earlier=len(self._units),
            n_declared=len(self.unit_readings_indices),
            index_type=lambda index: self._index_type("unit_readings", index),
        )

        round_index = self.n_rounds
        self._raw.append(
            (
                None if work is None else w,
                d,
                None if reading_row is None else reading_row.tolist(),
                None if unit_rows is None else [row.tolist() for row in unit_rows],
            )
        )
        self._n_rounds += 1
        self._last_work = w
        self._total_work.add(w)
        self._total_duration.add(d)
        short = (  # with a planner: decided by the planned work (WorkPlanner.is_short)
            self.planner.is_short(w, d) if self.planner is not None
            else d <= 0.0 or d < self.min_round_duration
        )
        if reading_row is not None:
            if self._n_readings is None:
                self._n_readings = int(reading_row.shape[0])
                self._start_streams("readings", self._n_readings)
            if not short:
                for index, stream in enumerate(self._streams["readings"]):
                    stream.extend(reading_row[index : index + 1])
        if unit_rows is not None:
            if not self._units:
                self._units.start(len(unit_rows))
                self._start_streams("unit_readings", len(unit_rows))
            if not short:
                for index, values in enumerate(unit_rows):
                    self._record_units(index, values)
        if short:
            self._short.append(round_index)
        if self.planner is not None:
            self.planner.record(w, d)

    def _record_units(self, index: int, values: Float64Array1D) -> None:
        """Store one used round's unit readings of an index (after per-round removal)."""
        index_type = self._index_type("unit_readings", index)
        method: WarmupRemoval = self.warmup_removal
        if index_type == "binary":
            method = "none"
        start, end = self._units.keep_range(
            index, values, method, self.trim_fraction, self.min_size
        )
        series = self._rounds[index]
        if series is not None:
            series.add(values, start, end)
        else:
            self._streams["unit_readings"][index].extend(values[start:end])

    def _start_streams(self, kind: str, count: int) -> None:
        """One value stream per index; ordinary and binary ones keep incremental state."""
        modes = {"ordinary": "mean", "binary": "proportion"}
        self._streams[kind] = [
            IndexStream(modes.get(self._index_type(kind, index))) for index in range(count)
        ]
        if kind == "unit_readings":
            pooled = self.warmup_removal == "pooled"
            types = [self._index_type(kind, index) for index in range(count)]
            self._rounds = [
                None if t == "binary" else RoundSeries(pooled, reciprocal=t == "ratio")
                for t in types
            ]

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

    # -- analyses ------------------------------------------------------------------------

    def _spec(self, kind: str, index: int) -> PerformanceIndex:
        declared = self._declared(kind)
        return declared[index] if index < len(declared) else PerformanceIndex()

    def _settings(self, kind: str) -> tuple[tuple[float | None, float | None], int,
                                            tuple[Baseline | None, ...]]:
        """Target, minimum number of subsessions and baselines of a kind of index."""
        if kind == "readings":
            return self._readings_target, self.readings_min_subsessions, self._baseline_readings
        return self._unit_target, self.unit_readings_min_subsessions, self._baseline_units

    def _all_verdicts(self) -> list[tuple[str, int, IndexVerdict]]:
        return [
            (kind, index, verdict)
            for kind in ("readings", "unit_readings")
            for index, verdict in enumerate(self._verdicts[kind])
        ]

    def _update_verdicts(self) -> None:
        """Decide, for every index, whether it meets its targets (after each round).

        An ordinary or binary index without a baseline is decided from its incremental
        state when that settles the decision (:meth:`IndexStream.requirement`); every other
        case (ratio indices, baselines, fewer than 3 values, unsettled bounds) runs the full
        analysis. Either way the verdict is the full analysis's.
        """
        for kind in ("readings", "unit_readings"):
            self._verdicts[kind] = tuple(
                self._verdict(kind, index) for index in range(len(self._streams[kind]))
            )

    def _decision(self, index: int) -> RoundsDecision:
        """The rounds decision of an ordinary or ratio unit-readings index (once per round)."""
        cached = self._decisions.get(index)
        if cached is not None and cached[0] == self.n_rounds:
            return cached[1]
        series = self._rounds[index]
        assert series is not None
        decision = series.decide(self.confidence_level)
        self._decisions[index] = (self.n_rounds, decision)
        return decision

    def _rounds_verdict(self, index: int) -> IndexVerdict:
        """Verdict of an index with rounds as replicates, from its decision alone.

        O(rounds x windows): the decision and the rounds requirement are exactly what
        the full analysis (:func:`analyse_rounds`) uses, without its variance components.
        """
        target, min_subsessions, _ = self._settings("unit_readings")
        decision = self._decision(index)
        required = rounds_requirement(
            decision, target=target, min_subsessions=min_subsessions,
            confidence_level=self.confidence_level,
        )
        n = int(decision.sizes.sum())
        done, fraction = index_progress(
            n, None if required is None else required.samples,
            required is not None and required.enough, False, None, None,
        )
        needed = None if required is None or done else required.samples
        return IndexVerdict(n, done, fraction, needed)

    def _verdict(self, kind: str, index: int) -> IndexVerdict:
        stream = self._streams[kind][index]
        target, min_subsessions, baselines = self._settings(kind)
        has_baseline = index < len(baselines) and baselines[index] is not None
        if kind == "unit_readings" and self._rounds[index] is not None:
            if has_baseline:
                return verdict_of(self._analysis(kind, index))
            return self._rounds_verdict(index)
        settled = None
        if index >= len(baselines) or baselines[index] is None:
            settled = stream.requirement(
                target=target,
                min_subsessions=min_subsessions,
                confidence_level=self.confidence_level,
                autocorrelation_limit=self.autocorrelation_limit,
            )
        if settled is None:
            return verdict_of(self._analysis(kind, index))
        low, high = settled
        n = stream.n
        if low == high:
            done, fraction = index_progress(n, low, low is not None and n >= low, False, None,
                                            None)
            return IndexVerdict(n, done, fraction, low)
        assert low is not None and high is not None
        if n >= high:  # done, whatever the exact required size
            return IndexVerdict(n, True, 1.0, None)
        if n < low:  # not done; the full analysis tells the required size on request
            return IndexVerdict(n, False, None, None)
        return verdict_of(self._analysis(kind, index))

    def _progress_of(self, kind: str, index: int) -> tuple[float, int | None]:
        """Progress and required size of an index (the full analysis's).

        A verdict the incremental state settled only as "not done" takes them from the
        full analysis.
        """
        verdict = self._verdicts[kind][index]
        if verdict.fraction is None:
            verdict = verdict_of(self._analysis(kind, index))
        assert verdict.fraction is not None  # a full analysis always has one
        return verdict.fraction, verdict.needed

    def _analysis(self, kind: str, index: int) -> IndexAnalysis:
        """The full analysis of an index at the current round (computed once per round)."""
        cached = self._analyses.get((kind, index))
        if cached is not None and cached[0] == self.n_rounds:
            return cached[1]
        if kind == "readings":
            removed = warmup_kept = 0
        else:
            removed = self._units.removed[index]
            warmup_kept = self._units.warmup_kept(index)
        target, min_subsessions, baselines = self._settings(kind)
        item = self._analyse(
            kind,
            index,
            self._streams[kind][index].values(),
            removed,
            warmup_kept,
            target,
            min_subsessions,
            baselines,
        )
        self._analyses[(kind, index)] = (self.n_rounds, item)
        return item

    def _index_analyses(self, kind: str) -> tuple[IndexAnalysis, ...]:
        return tuple(self._analysis(kind, index) for index in range(len(self._streams[kind])))

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
        spec = self._spec(kind, index)
        request = IndexRequest(
            kind, index, spec, target, min_subsessions,
            baselines[index] if index < len(baselines) else None,
            self.confidence_level, self.autocorrelation_limit, self.significance_level,
        )
        note = None
        if kind == "unit_readings":
            note = self._units.note(index, index_label(kind, spec.name, index), self.min_size)
            series = self._rounds[index]
            if series is not None:
                return analyse_rounds(
                    series, self._decision(index), request, note=note,
                    warmup_kept=warmup_kept,
                )
        return analyse_index(
            data,
            request,
            index_type=self._index_type(kind, index),
            removed=removed,
            warmup_kept=warmup_kept,
            note=note,
        )

    def _unit_reading_proposals(self) -> list[float]:
        """Work expected to deliver the missing unit readings, per unfinished index."""
        proposals = []
        total_work = self._total_work.value()
        for index, verdict in enumerate(self._verdicts["unit_readings"]):
            if verdict.done or not self._spec("unit_readings", index).must_satisfy:
                continue
            _, needed = self._progress_of("unit_readings", index)
            proposals.append(unit_reading_work(needed, verdict.n, total_work, self._last_work))
        return proposals

    def _update_stop(self) -> None:
        if self.targets_met:
            self._stop_reason = "targets_met"
        elif self.max_rounds is not None and self.n_rounds >= self.max_rounds:
            self._stop_reason = "max_rounds"
        elif self.max_duration is not None and self.total_duration >= self.max_duration:
            self._stop_reason = "max_duration"

    # -- reporting -----------------------------------------------------------------------

    @property
    def progress(self) -> SessionProgress:
        """Progress towards the targets (the least advanced required analysis sets it)."""
        analyses: dict[str, float] = {"rounds": min(1.0, self.n_rounds / self.min_rounds)}
        if self.wps_analysis:
            analyses["wps"] = wps_progress(self.planner)
        for kind, index, _ in self._all_verdicts():
            spec = self._spec(kind, index)
            if spec.must_satisfy:
                analyses[index_label(kind, spec.name, index)] = self._progress_of(kind, index)[0]
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
        """All current estimates, with notes on everything excluded."""
        planner = self.planner
        outliers = () if planner is None or not self.wps_analysis else planner.outlier_rounds
        readings = self._index_analyses("readings")
        unit_readings = self._index_analyses("unit_readings")
        wps_error = None
        if planner is not None and self.wps_analysis and planner.wps_result is None:
            wps_error = planner.wps_error or "fewer than 4 rounds recorded"
        return SessionResult(
            n_rounds=self.n_rounds,
            total_work=self._total_work.value(),
            total_duration=self.total_duration,
            done=self.done,
            targets_met=self.targets_met,
            stop_reason=self._stop_reason,
            wps=None if planner is None or not self.wps_analysis else planner.wps_result,
            wps_target_half_width=None if planner is None else planner.target_half_width,
            wps_done=self._wps_done(),
            wps_error=wps_error,
            readings=readings,
            unit_readings=unit_readings,
            short_rounds=tuple(self._short),
            outlier_rounds=tuple(outliers),
            warmup_kept=any(item.warmup_kept_rounds for item in unit_readings),
            notes=tuple(
                session_notes(
                    self._short,
                    self.n_rounds,
                    self.min_round_duration,
                    tuple(outliers),
                    (*readings, *unit_readings),
                )
            ),
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
        return session_state(self._options, self._raw, first_round)

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
        >>> from pilotstats.session import IndexOptions, IntervalTarget, RoundLimits
        >>> session = BenchmarkSession(
        ...     limits=RoundLimits(min_rounds=5),
        ...     readings=IndexOptions(interval=IntervalTarget(half_width_percent=2.5)))
        >>> for value in (1.0, 1.1, 0.9):
        ...     session.record(None, 1.0, readings=[value])
        >>> copy = BenchmarkSession.from_state(session.state())
        >>> copy.n_rounds, copy.result().readings[0].n
        (3, 3)
        """
        check_state(state)
        try:
            session = cls(**options_from_flat(state_options(state)))
            for item in state.get("rounds", []):
                session._record(
                    item["work"], item["duration"], item["readings"], item["unit_readings"]
                )
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidInputError(
                f"state is not a valid session state ({type(exc).__name__}: {exc}); it must "
                "come from BenchmarkSession.state()"
            ) from None
        session._update_verdicts()
        session._update_stop()
        return session

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`state` as JSON to ``path`` (atomically: a crash leaves the old file).

        Parameters
        ----------
        path : str or path-like
            File to write.
        """
        write_state(path, self.state())

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
        >>> from pilotstats.session import RoundLimits
        >>> session = BenchmarkSession(limits=RoundLimits(min_rounds=5))
        >>> session.record(None, 1.0, readings=[2.0])
        >>> path = os.path.join(tempfile.mkdtemp(), "session.json")
        >>> session.save(path)
        >>> BenchmarkSession.load(path).n_rounds
        1
        """
        return cls.from_state(read_state(path))
