"""Rounds as replicates: the two-level interval of a unit-readings index of a session.

A session is hierarchical: rounds (separate program runs) x unit readings inside each
round. The readings of one round share its state (memory layout, JIT decisions, the
machine's mood), so the interval of an ordinary unit-readings index takes the *rounds* as
its units (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013, §3):
each round contributes the mean of its kept readings, and the interval is
``ȳ -/+ t_{R-1} s_y / sqrt(R)`` over the ``R`` rounds. It needs no model of the dependence
inside a round, so an autocorrelated round cannot make it too narrow.

Warm-up recurs at the same positions in every round, so :class:`RoundSeries` finds it with
the power of all rounds (``warmup_removal="pooled"``): each window of leading positions
(the grid of :func:`grid_points`) is compared, round by round, with the second half of the
same round, and the paired differences are tested across rounds (a t test with ``R - 1``
degrees of freedom, so within-round autocorrelation and round-to-round variation are
accounted for). Every round then drops the readings up to the last significant window (the
search stops after three consecutive windows without one, and the cut is refined inside
that window to the first position from which its rest no longer differs). A gradual
warm-up leaves a residual bias below what the test sees; whenever a warm-up was removed
the interval is therefore widened to also cover the interval of the second half of every
round (which a warm-up shorter than half a round cannot bias) at level
``1 - (1 - c) / 10``: the union misses only when that interval misses, so it covers the
stable mean with probability at least ``1 - (1 - c) / 10`` whatever the residual bias of
the removal, if the warm-up ends within the first half of the rounds (the margin over
``c`` absorbs a second half that is not quite stable, as in a slow exponential warm-up).
A warm-up that still shows in the last window before the half of the rounds cannot be
removed this way and is flagged.

Per-round methods (``"stable_phase"``, ``"trim"``, ``"none"``) choose each round's kept
range when it is recorded; the interval is the same two-level one, without widening.
A ratio index (harmonic mean) works on the reciprocals of its readings and inverts the
interval. :func:`rounds_requirement` turns a decision into the rounds still needed and
:func:`analyse_rounds` into the index's :class:`~pilotstats.session.IndexAnalysis`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, NamedTuple

import numpy as np

from pilotstats._stats import ceil_tol, t_quantile, two_sided_t
from pilotstats._typing import Float64Array1D
from pilotstats.autocorrelation import SampleSizeResult
from pilotstats.autocorrelation._sample_size import _blocks_required, target_half_width
from pilotstats.autocorrelation._two_level import TwoLevelResult, two_level_analysis
from pilotstats.exceptions import PilotStatsError
from pilotstats.session._indices import IndexRequest, finish_analysis
from pilotstats.session._results import IndexAnalysis

__all__ = [
    "WINDOW_SIGNIFICANCE",
    "RoundSeries",
    "RoundsDecision",
    "analyse_rounds",
    "grid_points",
    "rounds_requirement",
]

#: Two-sided level of each window's test of the pooled warm-up search (z = 2.5 with many
#: rounds): a smaller one removes warm-up-free readings more often, a larger one misses
#: more warm-up (the widening then keeps the interval valid).
WINDOW_SIGNIFICANCE = 0.0124
#: Level at which the window ending at the half of the rounds must differ for the warm-up
#: to be flagged as reaching the half (stricter than :data:`WINDOW_SIGNIFICANCE`: a chance
#: difference there would flag about 1 % of warm-up-free sessions).
FLAG_SIGNIFICANCE = WINDOW_SIGNIFICANCE / 10.0
#: Differences smaller than this, relative to the readings' magnitude, are rounding.
_RELATIVE_TOLERANCE = 1e-9
#: Miss rate of the second-half interval joined after a warm-up removal, as a fraction of
#: the session's ``1 - c`` (measured over 1,000 sessions: 0.25 left 0.8-1.3 % of the
#: sessions with a gradual or short warm-up uncovered, too close to the 2 % a session
#: promises to stay within, covered or flagged; 0.1 leaves 0.2-0.9 % at 9-14 % more width
#: of the widened intervals; see benchmarks/RESULTS_session.md).
SECOND_HALF_MISS = 0.1
#: Consecutive windows without a significant difference that end the search.
CLEAN_WINDOWS = 3
#: Fewer replicate rounds than this leave the pooled warm-up search too weak to rely on.
FEW_ROUNDS = 3


def grid_points(limit: int) -> list[int]:
    """Window boundaries of the pooled warm-up search, up to ``limit``.

    The search adds the half of a typical round as its last boundary.

    Every position up to 8, then steps of a quarter of the position (about 3 windows per
    doubling): fine where warm-up usually ends, coarse later, O(log n) windows.

    Parameters
    ----------
    limit : int
        Largest boundary.

    Returns
    -------
    list of int
        ``0, 1, ..., 8, 10, 12, 15, 18, 22, ...`` up to ``limit``.

    Examples
    --------
    >>> grid_points(30)
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18, 22, 27]
    """
    points = [0]
    while True:
        step = max(1, points[-1] // 4)
        if points[-1] + step > limit:
            return points
        points.append(points[-1] + step)


class RoundsDecision(NamedTuple):
    """Which readings of each round are kept, and the resulting interval over rounds.

    Attributes
    ----------
    cut : int or None
        Readings dropped at the start of every round by the pooled search (None for the
        per-round methods).
    means : ndarray
        Mean of the kept readings of each replicate round (rounds left with none excluded;
        the harmonic mean for a ratio index).
    sizes : ndarray of int
        Kept readings of each replicate round.
    mean, ci_low, ci_high, half_width : float
        Mean of the round means and its interval (widened when a warm-up was removed;
        ``half_width`` is the larger side). NaN with fewer than 2 replicate rounds.
    dof : int
        ``R - 1`` over the ``R`` replicate rounds.
    widened : bool
        The interval was widened to cover the second-half interval.
    warmup_unresolved : bool
        The warm-up still shows in the last window before the half of the rounds, the
        rounds are too few to search, or fewer than 2 rounds are long enough (twice the
        cut) to bound its residual: it could not be removed with a valid interval.
    n_removed : int
        Readings dropped from used rounds.
    empty_rounds : int
        Used rounds left without any reading.
    """

    cut: int | None
    means: Float64Array1D
    sizes: np.ndarray
    mean: float
    ci_low: float
    ci_high: float
    half_width: float
    dof: int
    widened: bool
    warmup_unresolved: bool
    n_removed: int
    empty_rounds: int

    @property
    def rounds(self) -> int:
        """Replicate rounds behind the interval."""
        return int(self.means.shape[0])


def _interval(values: Float64Array1D, level: float) -> tuple[float, float]:
    """Mean and t half width over independent values (NaN half width with fewer than 2)."""
    k = int(values.shape[0])
    if k == 0:
        return math.nan, math.nan
    mean = float(np.mean(values))
    if k < 2:
        return mean, math.nan
    return mean, two_sided_t(level, k - 1) * float(np.std(values, ddof=1)) / math.sqrt(k)


class RoundSeries:
    """The unit readings of one index, round by round, and their two-level decision.

    Parameters
    ----------
    pooled : bool
        Search the warm-up across rounds (``warmup_removal="pooled"``); otherwise each
        round's kept range is given to :meth:`add`.
    reciprocal : bool, default False
        A ratio index (harmonic mean): the rounds' means are of the reciprocals ``1 / x``
        and :meth:`decide` inverts them, so that the estimate is the harmonic mean and its
        interval the inverted interval of the mean reciprocal (a monotone map keeps the
        level).

    Notes
    -----
    :meth:`add` costs O(readings of the round) (a cumulative sum); :meth:`decide` costs
    O(rounds x windows), windows O(log round length), independent of the readings held.
    """

    __slots__ = ("_cums", "_ranges", "_rounds", "_scale", "_tail", "pooled", "reciprocal")

    def __init__(self, pooled: bool, reciprocal: bool = False) -> None:
        self.pooled = pooled
        self.reciprocal = reciprocal
        self._rounds: list[Float64Array1D] = []
        self._cums: list[Float64Array1D] = []  # cumulative sums about the first reading
        self._ranges: list[tuple[int, int]] = []
        self._tail: list[float] = []  # second-half mean about the first reading
        self._scale = 0.0

    @property
    def n_rounds(self) -> int:
        """Used rounds recorded."""
        return len(self._rounds)

    def add(self, values: Float64Array1D, start: int = 0, end: int | None = None) -> None:
        """Record one used round's readings and the range a per-round method keeps.

        Parameters
        ----------
        values : ndarray, shape (n,)
            The round's readings (finite), in time order.
        start, end : int
            Half-open range kept by a per-round method (ignored when pooled).
        """
        n = int(values.shape[0])
        copy = np.array(values, dtype=np.float64)
        if self.reciprocal:
            copy = 1.0 / copy  # values of a ratio index are > 0
        copy.flags.writeable = False
        self._rounds.append(copy)
        shift = float(copy[0]) if n else 0.0
        cums = np.empty(n + 1)
        cums[0] = 0.0
        np.cumsum(copy - shift, out=cums[1:])
        self._cums.append(cums)
        self._tail.append(
            float(cums[n] - cums[n // 2]) / (n - n // 2) if n >= 2 else math.nan
        )
        self._ranges.append((0, n) if end is None or self.pooled else (int(start), int(end)))
        if n:
            self._scale = max(self._scale, float(np.max(np.abs(copy))))

    def _segment_mean(self, r: int, start: int, end: int) -> float:
        cums = self._cums[r]
        shift = float(self._rounds[r][0])
        return shift + float(cums[end] - cums[start]) / (end - start)

    def _pooled_cut(self) -> tuple[int, bool]:
        """Readings to drop from every round, and whether the warm-up reaches the half.

        Windows are tested in order; the search stops after :data:`CLEAN_WINDOWS`
        consecutive windows without a significant difference (later chance firings are
        not warm-up), and the cut is refined inside the last significant window to the
        first position from which the rest of that window no longer differs.
        """
        lengths = np.array([r.shape[0] for r in self._rounds], dtype=np.int64)
        usable = np.flatnonzero(lengths >= 2)
        if usable.shape[0] < FEW_ROUNDS:
            return 0, True
        halves = lengths[usable] // 2
        tails = np.array([self._tail[r] for r in usable])
        half = int(np.median(halves))
        points = grid_points(half)
        if points[-1] < half:
            points.append(half)  # the last window ends at the half of a typical round
        # Cumulative sums at every boundary (NaN beyond a round's first half).
        table = np.full((usable.shape[0], len(points)), np.nan)
        bounds = np.array(points)
        for row, r in enumerate(usable):
            inside = bounds <= halves[row]
            table[row, inside] = self._cums[r][bounds[inside]]
        differences = np.diff(table, axis=1) / np.diff(bounds) - tails[:, None]
        fired: tuple[int, int] | None = None
        clean = 0
        last_tested = last_fired = -1
        for j in range(len(points) - 1):
            outcome = self._significant(differences[:, j])
            if outcome is None:
                break
            last_tested = j
            if outcome:
                fired, last_fired, clean = (points[j], points[j + 1]), j, 0
            else:
                clean += 1
                if clean >= CLEAN_WINDOWS:
                    break
        if fired is None:
            return 0, False
        a, b = fired
        members = usable[halves >= b]
        ends = np.array([self._cums[r][b] for r in members])
        starts = np.array([self._cums[r][a + 1 : b] for r in members]).reshape(
            members.shape[0], b - a - 1)
        rest = (ends[:, None] - starts) / (b - np.arange(a + 1, b)) - tails[halves >= b, None]
        cut = b
        for column in range(b - a - 1):
            if not self._significant(rest[:, column]):
                cut = a + 1 + column
                break
        reaches = last_fired == last_tested and points[last_tested + 1] == half and bool(
            self._significant(differences[:, last_fired], FLAG_SIGNIFICANCE))
        return cut, reaches

    def _significant(
        self, d: Float64Array1D, significance: float = WINDOW_SIGNIFICANCE
    ) -> bool | None:
        """Whether paired differences (NaN: round not reaching the window) differ from 0.

        None when fewer than :data:`FEW_ROUNDS` rounds reach the window.
        """
        d = d[~np.isnan(d)]
        if d.shape[0] < FEW_ROUNDS:
            return None
        centre = float(np.mean(d))
        spread = float(np.std(d, ddof=1)) / math.sqrt(d.shape[0])
        critical = t_quantile(1.0 - significance / 2.0, d.shape[0] - 1)
        return abs(centre) > max(critical * spread, _RELATIVE_TOLERANCE * self._scale)

    def decide(self, confidence_level: float) -> RoundsDecision:
        """Kept readings of every round and the interval over the rounds.

        Parameters
        ----------
        confidence_level : float
            Level of the interval.

        Returns
        -------
        RoundsDecision
            The decision (O(rounds x windows)).
        """
        cut: int | None = None
        unresolved = False
        if self.pooled:
            cut, unresolved = self._pooled_cut()
        means, sizes = [], []
        removed = empty = 0
        for r, values in enumerate(self._rounds):
            n = int(values.shape[0])
            start, end = (min(cut, n), n) if cut is not None else self._ranges[r]
            removed += n - (end - start)
            if end > start:
                means.append(self._segment_mean(r, start, end))
                sizes.append(end - start)
            else:
                empty += 1
        kept = np.array(means)
        mean, half = _interval(kept, confidence_level)
        low, high = mean - half, mean + half
        widened = False
        if cut and math.isfinite(half):
            # Second halves that start after the cut (a shorter round's is in the warm-up).
            halves = np.array([
                self._segment_mean(r, int(v.shape[0]) // 2, int(v.shape[0]))
                for r, v in enumerate(self._rounds) if v.shape[0] >= max(2, 2 * cut)
            ])
            tail_level = 1.0 - (1.0 - confidence_level) * SECOND_HALF_MISS
            tail_mean, tail_half = _interval(halves, tail_level)
            if not math.isfinite(tail_half):
                unresolved = True  # the residual warm-up cannot be bounded
            else:
                widened = tail_mean - tail_half < low or tail_mean + tail_half > high
                low = min(low, tail_mean - tail_half)
                high = max(high, tail_mean + tail_half)
        if self.reciprocal:  # back from the mean reciprocal to the harmonic mean
            kept, mean = 1.0 / kept, 1.0 / mean
            if math.isfinite(half):
                low, high = 1.0 / high, (1.0 / low if low > 0 else math.inf)
        width = max(mean - low, high - mean) if math.isfinite(half) else math.nan
        return RoundsDecision(
            cut=cut, means=kept, sizes=np.array(sizes, dtype=np.int64), mean=mean,
            ci_low=low, ci_high=high, half_width=width, dof=max(kept.shape[0] - 1, 0),
            widened=widened, warmup_unresolved=unresolved, n_removed=removed,
            empty_rounds=empty,
        )

    def kept(self, decision: RoundsDecision) -> list[Float64Array1D]:
        """The kept readings of each replicate round (for the variance components).

        Reciprocals for a ratio index.
        """
        segments = []
        for r, values in enumerate(self._rounds):
            n = int(values.shape[0])
            cut = decision.cut
            start, end = (min(cut, n), n) if cut is not None else self._ranges[r]
            if end > start:
                segments.append(values[start:end])
        return segments


_WIDENED = "interval widened to cover the second half of each round"
_RECIPROCAL = ("harmonic mean: the interval inverts the rounds' mean reciprocals' interval; "
               "the variance components are of the reciprocals")



def rounds_requirement(
    decision: RoundsDecision,
    *,
    target: tuple[float | None, float | None],
    min_subsessions: int,
    confidence_level: float,
) -> SampleSizeResult | None:
    """Rounds (as unit readings) an index with rounds as replicates needs for its target.

    The (widened) half width shrinks like ``1 / sqrt(R)``: the rounds needed are Pilot's
    ``ceil(s^2 (t_{R-1} / e)^2)`` with the effective ``s^2 = R (W / t_{R-1})^2`` of the
    current half width ``W``, at least ``max(2, min_subsessions)``. The result counts
    readings: ``subsession_size`` is the mean number of kept readings of a round and
    ``samples`` the rounds needed times that, so that ``enough`` means enough rounds.

    Parameters
    ----------
    decision : RoundsDecision
        The rounds and their interval.
    target : (float or None, float or None)
        Target half width in percent of the mean and in the index's unit.
    min_subsessions : int
        Minimum number of rounds behind the interval.
    confidence_level : float
        The session's level.

    Returns
    -------
    SampleSizeResult or None
        None while undetermined (fewer than 2 rounds, or an unreachable target).
    """
    rounds = decision.rounds
    if rounds < 2 or not math.isfinite(decision.half_width):
        return None
    n = int(decision.sizes.sum())
    try:
        half = target_half_width(decision.mean, target[1], target[0])
        variance = rounds * (decision.half_width / two_sided_t(confidence_level, rounds - 1)) ** 2
        required = _blocks_required("pilot", variance, half, confidence_level, rounds)
    except PilotStatsError:
        return None
    needed = max(required, min_subsessions, 2)
    samples = ceil_tol(needed * n / rounds)
    return SampleSizeResult(
        subsession_size=max(1, round(n / rounds)), subsessions=needed, samples=samples,
        n=n, n_subsessions=rounds, required_subsessions=required, enough=rounds >= needed,
        target_half_width=half, confidence_level=confidence_level, method="pilot",
        min_subsessions=min_subsessions,
    )


def _rounds_note(label: str, decision: RoundsDecision, used: int) -> str | None:
    """What the reader of a rounds-as-replicates interval must know, or None."""
    parts = []
    if decision.cut:
        parts.append(
            f"warm-up: the first {decision.cut} readings of every round were removed "
            f"(positions compared with the second half of each round across {used} rounds)"
        )
        if decision.widened:
            parts.append("the interval was widened to also cover the interval of the "
                         "second half of each round (a residual warm-up cannot make it miss)")
    if decision.warmup_unresolved:
        if used < 3:
            parts.append(f"only {used} round(s): warm-up cannot be judged across rounds and "
                         "was kept; the interval may be biased by warm-up")
        else:
            parts.append("the warm-up still shows just before the half of the rounds, or "
                         "fewer than 2 rounds are twice as long as the cut: it could not be "
                         "removed with a valid interval, which may be biased by warm-up "
                         "(run longer rounds)")
    if 0 < decision.rounds < 2:
        parts.append("one round: the run-to-run variance is unknown, so there is no interval "
                     "(run more rounds)")
    if decision.empty_rounds:
        parts.append(f"{decision.empty_rounds} of {used} rounds kept no reading")
    return f"{label}: {'; '.join(parts)}" if parts else None


def analyse_rounds(
    series: RoundSeries,
    decision: RoundsDecision,
    request: IndexRequest,
    *,
    note: str | None,
    warmup_kept: int,
) -> IndexAnalysis:
    """Analysis of an ordinary or ratio unit-readings index with rounds as replicates.

    The interval is :func:`~pilotstats.autocorrelation.two_level_analysis` over the kept
    readings of each round (each round one unit; its between/within variance components
    are reported), with the bounds of ``decision`` (widened after a warm-up removal);
    a baseline is compared by Welch's test on the round means.

    Parameters
    ----------
    series : RoundSeries
        The index's rounds.
    decision : RoundsDecision
        Their decision at this round (:meth:`RoundSeries.decide`).
    request : IndexRequest
        The index, its target and the session's settings (as for
        :func:`~pilotstats.session._indices.analyse_index`).
    note : str or None
        A per-round method's warm-up note.
    warmup_kept : int
        Rounds that kept their warm-up (per-round methods).

    Returns
    -------
    IndexAnalysis
        The analysis.
    """
    analysis: TwoLevelResult | None = None
    spec = request.spec
    segments = series.kept(decision)
    label = f"{request.kind}[{spec.name or request.index}]"
    pooled_note = _rounds_note(label, decision, series.n_rounds)
    if decision.rounds >= 2:  # one round: no interval (the note says why)
        result = two_level_analysis(
            segments, confidence_level=request.confidence_level,
            autocorrelation_limit=request.autocorrelation_limit, unit=spec.unit or None,
        )
        notes = [result.note, _WIDENED if decision.widened else ""]
        values: dict[str, Any] = {}
        if series.reciprocal:  # the rounds' harmonic means; components of the reciprocals
            harmonic = tuple(float(v) for v in decision.means)
            values = {"unit_values": harmonic, "run_means": harmonic}
            notes.append(_RECIPROCAL)
        analysis = dataclasses.replace(
            result, mean=decision.mean, ci_low=decision.ci_low, ci_high=decision.ci_high,
            half_width=decision.half_width, note="; ".join(x for x in notes if x), **values,
        )
    if decision.cut is not None:
        note = pooled_note
        warmup_kept = series.n_rounds if decision.warmup_unresolved else 0
    elif pooled_note is not None:
        note = pooled_note if note is None else f"{note}; {pooled_note}"
    required = rounds_requirement(
        decision, target=request.target, min_subsessions=request.min_subsessions,
        confidence_level=request.confidence_level,
    )
    rounds = decision.rounds
    variance_and_count = None
    if rounds >= 2:
        variance = float(np.var(decision.means, ddof=1))
        variance_and_count = (decision.mean, variance, rounds, max(1, round(
            int(decision.sizes.sum()) / rounds)))
    return finish_analysis(
        int(decision.sizes.sum()), request,
        index_type="ratio" if series.reciprocal else "ordinary",
        removed=decision.n_removed, warmup_kept=warmup_kept,
        analysis=analysis, required=required, variance_and_count=variance_and_count,
        note=note, warmup_cut=decision.cut, widened=decision.widened,
    )
