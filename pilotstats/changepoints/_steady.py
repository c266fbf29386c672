"""Steady state of a long benchmark fork by practical equivalence (``method="equivalence"``).

The model follows the literature on warm-up of virtual machines and JIT-compiled code:
Barrett, Bolz-Tereick, Killick, Mount & Tratt, "Virtual Machine Warmup Blows Hot and Cold",
OOPSLA 2017 (segments, equivalence of segments, and the flat / warm-up / slowdown /
no-steady-state taxonomy); Traini et al., "Towards effective assessment of steady state
performance in Java software: Are we there yet?", EMSE 28:13, 2023 (CP-SSD: the steady
state begins where the final run of equivalent segments begins); Kalibera & Jones,
"Rigorous Benchmarking in Reasonable Time", ISMM 2013 (equivalence rather than
significance). The steady-state *onset* is the control-engineering settling time: the
first moment after which the response stays inside a tolerance band around its final value
(K. Ogata, "Modern Control Engineering", 5th ed., §5-3).

The private entry point :func:`equivalence_phase` is called by
:func:`~pilotstats.changepoints.stable_phase`; the algorithm is described there and in the
README ("Steady state of long forks").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pilotstats import _config
from pilotstats.changepoints._detect import detect_changes

__all__ = [
    "CLASSIFICATIONS",
    "EquivalenceOutcome",
    "equivalence_phase",
    "equivalence_window",
    "window_medians",
    "window_noise",
]

#: Barrett et al.'s classes of a fork, plus "no_steady_state".
CLASSIFICATIONS = ("flat", "warmup", "slowdown", "no_steady_state")


@dataclass(frozen=True, slots=True)
class EquivalenceOutcome:
    """What :func:`equivalence_phase` decided (internal; wrapped in a ``StablePhase``).

    ``settled`` is the settling index (end of the last window outside the band, 0 when the
    fork never leaves it); ``start`` is ``max(settled, min_warmup)``; ``steady`` is False
    for "no steady state"; ``reason`` says which rule decided; ``confirmed_changes`` are the
    change points (absolute indices) of the significance check when it ran.
    """

    steady: bool
    start: int
    settled: int
    window: int
    level: float
    tolerance: float
    classification: str
    reason: str
    confirmed_changes: tuple[int, ...]


def window_medians(x: np.ndarray, window: int) -> np.ndarray:
    """Medians of consecutive windows of ``window`` samples (a short last window included).

    O(n) on average (``numpy.median`` uses introselect).
    """
    n = int(x.shape[0])
    full = n // window
    medians = np.median(x[: full * window].reshape(full, window), axis=1) if full else np.empty(0)
    if full * window < n:
        medians = np.append(medians, np.median(x[full * window :]))
    return medians


def _robust_spread(values: np.ndarray) -> float:
    """Normal-consistent MAD (1.4826 · median absolute deviation)."""
    return float(1.4826 * np.median(np.abs(values - np.median(values))))


def equivalence_window(n: int) -> int:
    """Window length of the equivalence model for a fork of ``n`` samples."""
    return max(_config.EQUIVALENCE_MIN_WINDOW, n // _config.EQUIVALENCE_WINDOWS)


def window_noise(medians: np.ndarray) -> float:
    """Sampling noise of a window median: robust spread of the window medians of the second
    half of the fork."""
    return _robust_spread(medians[int(medians.shape[0]) // 2 :])


@dataclass(frozen=True, slots=True)
class _Settling:
    """Where a fork settles: windows of ``window`` samples, its final ``level`` and band
    half-width ``band``, the settling index ``settled``, the onset ``start`` (never before
    the minimal warm-up), and the fork's ``excursion`` ``max(x) − min(x)``."""

    window: int
    level: float
    band: float
    settled: int
    start: int
    excursion: float


def _settling(
    x: np.ndarray, tolerance: float, min_warmup_fraction: float, noise: float | None
) -> _Settling:
    """The band of practical equivalence around the final level and where x settles in it."""
    n = int(x.shape[0])
    window = equivalence_window(n)
    medians = window_medians(x, window)
    final_level = float(np.median(x[n - max(1, int(n * _config.EQUIVALENCE_FINAL_SHARE)) :]))
    excursion = float(np.max(x) - np.min(x))
    # Practical equivalence: a window is "at the final level" when its median lies within
    # the largest of (a) a share of the fork's total excursion, (b) a share of the level,
    # (c) the sampling noise of a window median (robust spread over the second half).
    if noise is None:
        noise = window_noise(medians)
    band = max(
        tolerance * excursion,
        _config.EQUIVALENCE_LEVEL_TOLERANCE * abs(final_level),
        _config.EQUIVALENCE_NOISE_MULTIPLIER * noise,
    )
    outside = np.flatnonzero(np.abs(medians - final_level) > band)
    settled = 0 if outside.size == 0 else min(n, int(outside[-1] + 1) * window)
    start = max(settled, int(np.ceil(min_warmup_fraction * n)))
    return _Settling(window, final_level, band, settled, start, excursion)


@dataclass(frozen=True, slots=True)
class _Verdict:
    """A decision of the equivalence model: steady or not, why, the confirmed change
    points, and the end of the transient when a change point placed it (−1: the
    settling index)."""

    steady: bool
    reason: str
    changes: tuple[int, ...] = ()
    end_of_transient: int = -1


def _outcome(
    x: np.ndarray, fork: _Settling, verdict: _Verdict, higher_is_better: bool
) -> EquivalenceOutcome:
    """The :class:`EquivalenceOutcome` of a verdict, with Barrett et al.'s class."""
    transient = fork.settled if verdict.end_of_transient < 0 else verdict.end_of_transient
    if not verdict.steady:
        label = "no_steady_state"
    elif transient == 0:
        label = "flat"
    else:
        before = float(np.median(x[:transient]))
        slower_before = before < fork.level if higher_is_better else before > fork.level
        label = "warmup" if slower_before else "slowdown"
    return EquivalenceOutcome(
        steady=verdict.steady,
        start=max(fork.start, transient) if verdict.steady else 0,
        settled=transient,
        window=fork.window,
        level=fork.level,
        tolerance=fork.band,
        classification=label,
        reason=verdict.reason,
        confirmed_changes=verdict.changes,
    )


def _confirm_steady(x: np.ndarray, fork: _Settling, significance_level: float) -> _Verdict:
    """The settled part scatters widely compared with the fork's excursion: steady only if
    no significant change remains in it (stationary noise is steady, a wandering level is
    not)."""
    part = x[fork.start:]
    if part.shape[0] < 2 * _config.EQUIVALENCE_CONFIRM_MIN_SIZE:
        return _Verdict(True, "settled inside the band; too short to test further")
    found = detect_changes(
        part, min_size=_config.EQUIVALENCE_CONFIRM_MIN_SIZE,
        significance_level=significance_level, variance_changes=True,
        location_tolerance=_config.STABLE_LOCATION_TOLERANCE,
    ).locations
    # A change inside the first window of the settled part is the end of the transient,
    # located more precisely than the window grid allows: the steady state starts there.
    late = tuple(fork.start + c for c in found if c >= fork.window)
    if late:
        return _Verdict(
            False, f"significant changes keep occurring after the onset at {late}", late
        )
    if found:
        end = fork.start + found[-1]
        return _Verdict(True, "settled inside the band; the transient ends at a significant "
                        f"change at {end}; no significant change after it",
                        end_of_transient=end)
    return _Verdict(True, "settled inside the band; no significant change after the onset")


def equivalence_phase(
    x: np.ndarray,
    *,
    tolerance: float,
    min_steady_fraction: float,
    min_warmup_fraction: float,
    higher_is_better: bool,
    significance_level: float,
    noise: float | None = None,
) -> EquivalenceOutcome:
    """Steady-state onset and class of a long fork (``docs/algorithms/stable-phase.md``).

    ``x`` is a validated finite float64 array with at least
    ``_config.EQUIVALENCE_MIN_LENGTH`` samples. ``noise`` replaces the fork's own sampling
    noise of a window median (:func:`window_noise`) when given: ``steady_state`` passes the
    noise pooled over all forks of a benchmark. Cost: O(n), plus one
    :func:`~pilotstats.changepoints.detect_changes` of the settled part when the spread
    rule alone cannot confirm the steady state.
    """
    n = int(x.shape[0])
    fork = _settling(x, tolerance, min_warmup_fraction, noise)
    if n - fork.settled < min_steady_fraction * n:
        verdict = _Verdict(False, "the fork settles only in its last "
                           f"{n - fork.settled} of {n} samples (< {min_steady_fraction:g} "
                           "of the fork)")
        return _outcome(x, fork, verdict, higher_is_better)
    low, high = np.percentile(x[fork.settled:], [10.0, 90.0])
    spread_limit = max(
        _config.EQUIVALENCE_SPREAD_EXCURSION * fork.excursion,
        _config.EQUIVALENCE_SPREAD_LEVEL * abs(fork.level),
    )
    if high - low <= spread_limit:
        verdict = _Verdict(True, "settled inside the band; spread small")
    else:
        verdict = _confirm_steady(x, fork, significance_level)
    return _outcome(x, fork, verdict, higher_is_better)
