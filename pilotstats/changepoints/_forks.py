"""Steady state of a benchmark judged across its forks: :func:`steady_state`.

A JMH benchmark runs several forks (separate JVMs); pyperf runs several processes. Each fork
warms up on its own, but they share the benchmark: its noise, its steady level and whether
it settles at all. :func:`steady_state` judges every fork with the equivalence model of
:func:`~pilotstats.changepoints.stable_phase` (``method="equivalence"``), feeding it what the
other forks know, and gives the benchmark a verdict in the manner of Barrett et al.
("Virtual Machine Warmup Blows Hot and Cold", OOPSLA 2017) with a between-fork confidence
interval of the steady mean (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time",
ISMM 2013: forks are the replicates).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import arithmetic_scale, two_sided_t
from pilotstats._validation import SteadyOptions, check_forks, check_steady_options
from pilotstats.changepoints._forks_results import ForkSteadyState, SteadyState
from pilotstats.changepoints._steady import (
    EquivalenceOutcome,
    equivalence_phase,
    equivalence_window,
    window_medians,
    window_noise,
)

__all__ = ["ForkSteadyState", "SteadyState", "steady_state"]

#: Benchmark verdicts (Barrett et al. 2017).
VERDICTS = ("consistent", "inconsistent", "no_steady_state")

#: Residual warm-up: the pooled profile must stay within this many standard errors of its
#: own noise ...
BIAS_NOISE_MULTIPLIER = 3.0
#: ... or within this share of the interval's half-width, whichever is larger.
BIAS_INTERVAL_SHARE = 0.1


def _half_width(means: np.ndarray, confidence_level: float) -> float:
    """Half-width of the Student t interval of the mean of ``means`` (two or more)."""
    count = int(means.shape[0])
    error = float(np.std(means, ddof=1)) / math.sqrt(count)
    return two_sided_t(confidence_level, count - 1) * error


def _bias_free_start(
    rows: list[np.ndarray], onsets: list[int], levels: list[float], noise: float,
    confidence_level: float,
) -> int:
    """Start of the part of the steady forks free of a warm-up they share (Notes, step 3).

    ``rows`` are the steady forks (scaled), ``levels`` their final levels, ``noise`` the
    pooled noise of a window median times ``sqrt(window)``. 0 for fewer than two forks.
    """
    count = len(rows)
    if count < 2:
        return 0
    means = np.array([np.mean(row[onset:]) for row, onset in zip(rows, onsets, strict=True)])
    half_width = _half_width(means, confidence_level)
    length = min(int(row.shape[0]) for row in rows)
    window = equivalence_window(length)
    windows = length // window
    deviations = np.array([
        window_medians(row[: windows * window], window) - level
        for row, level in zip(rows, levels, strict=True)
    ])
    profile = np.median(deviations, axis=0)[: windows // 2]
    # a median of k window medians: efficiency 2/pi of a mean, sqrt(pi/2) = 1.2533
    profile_noise = 1.2533 * noise / math.sqrt(window) / math.sqrt(count)
    bound = max(BIAS_NOISE_MULTIPLIER * profile_noise,
                BIAS_INTERVAL_SHARE * half_width)
    outside = np.flatnonzero(np.abs(profile) > bound)
    return 0 if outside.size == 0 else int(outside[-1] + 1) * window


def steady_state(
    forks: Any,
    *,
    tolerance: float = 0.05,
    min_steady_fraction: float = 0.2,
    min_warmup_fraction: float = 0.05,
    max_unsteady_fraction: float = 0.1,
    higher_is_better: bool = False,
    significance_level: float = 0.05,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    unit: str | None = None,
) -> SteadyState:
    """Steady state of a benchmark judged across its forks (JMH forks, pyperf processes).

    Parameters
    ----------
    forks : array_like, shape (k, n), or sequence of 1-D array_like
        The iterations of each fork in time order (lengths may differ; at least 120 each).
    tolerance, min_steady_fraction, min_warmup_fraction : float, default 0.05, 0.2, 0.05
        The equivalence model of :func:`stable_phase`, applied to every fork.
    max_unsteady_fraction : float in [0, 1), default 0.1
        Largest share of forks that may fail to settle (``floor(fraction · k)``); beyond
        it the verdict is ``"no_steady_state"`` (0: Barrett et al.'s rule).
    higher_is_better : bool, default False
        True for rates such as throughput: decides ``"warmup"`` against ``"slowdown"``.
    significance_level, confidence_level : float in (0, 1), default 0.05, 0.95
        Level of the change test of a wide settled part; level of the between-fork interval.
    unit : str, optional
        Label of the measured quantity.

    Returns
    -------
    SteadyState
        One :class:`ForkSteadyState` per fork, the ``verdict`` and the steady ``mean`` with
        ``ci_low``, ``ci_high``.

    Raises
    ------
    InvalidInputError
        ``forks`` not 2-D nor a sequence of series; non-finite values; an option out of range.
    NotEnoughDataError
        No fork, or a fork shorter than 120 iterations.

    Notes
    -----
    Complexity: O(N) for N iterations in all. Pooled noise, reproducibility over the
    forks, a shared residual warm-up left out of the means, Student's t over the forks:
    ``docs/algorithms/stable-phase.md`` (*Across forks*).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import steady_state
    >>> rng, t = np.random.default_rng(0), np.arange(3000)
    >>> forks = [1.0 + rng.normal(0.0, 0.01) + 0.3 * np.exp(-t / 100.0)
    ...          + rng.normal(0.0, 0.01, 3000) for _ in range(4)]
    >>> result = steady_state(forks, unit="ms")
    >>> result.verdict, result.classifications, result.onsets
    ('consistent', ('warmup', 'warmup', 'warmup', 'warmup'), (300, 300, 300, 300))
    """
    rows = check_forks(forks)
    model = check_steady_options(
        tolerance=tolerance, min_steady_fraction=min_steady_fraction,
        min_warmup_fraction=min_warmup_fraction, max_unsteady_fraction=max_unsteady_fraction,
        higher_is_better=higher_is_better, significance_level=significance_level,
        confidence_level=confidence_level, unit=unit,
    )
    scale = arithmetic_scale(np.concatenate(rows))  # power of two: decisions scale-free
    scaled = [row * scale if scale != 1.0 else row for row in rows]
    decisions, pooled = _fork_decisions(scaled, model)
    count, unsteady = len(rows), sum(not decision.steady for decision in decisions)
    tolerated = math.floor(model.unsteady_share * count + 1e-9)
    steady = [i for i, d in enumerate(decisions) if d.steady and unsteady <= tolerated]
    bias_free = _bias_free_start(
        [scaled[i] for i in steady], [decisions[i].start for i in steady],
        [decisions[i].level for i in steady], pooled, model.ci_level,
    )
    entries = _fork_entries(rows, decisions, steady, bias_free, scale, model.unit,
                            _unreproducible_note(unsteady, count, tolerated))
    return _benchmark_verdict(rows, entries, model, (unsteady, count, tolerated), bias_free)


def _fork_decisions(
    scaled: list[np.ndarray], model: SteadyOptions
) -> tuple[list[EquivalenceOutcome], float]:
    """Every fork judged by the equivalence model with the pooled noise, and that noise
    (a window median's spread times ``sqrt(window)``, the median over the forks)."""
    windows = [equivalence_window(int(row.shape[0])) for row in scaled]
    spreads = [
        window_noise(window_medians(row, window)) * math.sqrt(window)
        for row, window in zip(scaled, windows, strict=True)
    ]
    pooled = float(np.median(spreads))
    decisions = [
        equivalence_phase(
            row, tolerance=model.tolerance, min_steady_fraction=model.steady_share,
            min_warmup_fraction=model.warmup_share, higher_is_better=model.higher_is_better,
            significance_level=model.level, noise=pooled / math.sqrt(window),
        )
        for row, window in zip(scaled, windows, strict=True)
    ]
    return decisions, pooled


def _unreproducible_note(unsteady: int, count: int, tolerated: int) -> str | None:
    """The note of a fork that settles while too many others do not (None otherwise)."""
    if unsteady <= tolerated:
        return None
    return (f"settles on its own, but {unsteady} of {count} forks never settle "
            f"(more than {tolerated}): no reproducible steady state")


def _fork_entries(
    rows: list[np.ndarray],
    decisions: list[EquivalenceOutcome],
    steady: list[int],
    bias_free: int,
    scale: float,
    unit: str | None,
    unreproducible: str | None,
) -> list[ForkSteadyState]:
    """One :class:`ForkSteadyState` per fork."""
    entries = []
    for i, (row, decision) in enumerate(zip(rows, decisions, strict=True)):
        if decision.steady and unreproducible is not None:
            note = unreproducible
        else:
            note = decision.reason
        begin = max(decision.start, bias_free) if i in steady else None
        entries.append(ForkSteadyState(
            fork=i, n=int(row.shape[0]), steady=i in steady,
            onset=decision.start if i in steady else None,
            classification=decision.classification if i in steady else "no_steady_state",
            own_classification=decision.classification, mean_start=begin,
            mean=math.nan if begin is None else float(np.mean(row[begin:])),
            final_level=decision.level / scale, band=decision.tolerance / scale,
            note=note, unit=unit,
        ))
    return entries


def _verdict_note(
    steady_forks: list[ForkSteadyState], counts: tuple[int, int, int], bias_free: int
) -> tuple[str, str]:
    """Barrett et al.'s verdict of the benchmark and its note."""
    unsteady, count, tolerated = counts
    classes = sorted({entry.classification for entry in steady_forks})
    if not steady_forks:
        verdict = "no_steady_state"
        note = f"{unsteady} of {count} forks never settle (at most {tolerated} may)"
    elif unsteady == 0 and len(classes) == 1:
        verdict, note = "consistent", f"every fork is {classes[0]}"
    else:
        verdict = "inconsistent"
        note = (f"steady forks are {', '.join(classes)}; {unsteady} of {count} forks "
                "never settle")
    if bias_free > 0:
        note += (f"; the forks share a residual warm-up: means from iteration {bias_free} "
                 "on")
    if len(steady_forks) == 1:
        note += "; one steady fork: no between-fork interval"
    return verdict, note


def _benchmark_verdict(
    rows: list[np.ndarray],
    entries: list[ForkSteadyState],
    model: SteadyOptions,
    counts: tuple[int, int, int],
    bias_free: int,
) -> SteadyState:
    """The :class:`SteadyState`: verdict and the between-fork interval of the steady mean."""
    steady_forks = [entry for entry in entries if entry.steady]
    verdict, note = _verdict_note(steady_forks, counts, bias_free)
    mean, low, high, two_level = math.nan, math.nan, math.nan, None
    if steady_forks:
        from pilotstats.autocorrelation._two_level import two_level_analysis

        with np.errstate(over="ignore", invalid="ignore"):  # overflow: a named error
            two_level = two_level_analysis(
                [rows[entry.fork][entry.mean_start:] for entry in steady_forks],
                confidence_level=model.ci_level, unit=model.unit,
            )
        mean, low, high = two_level.mean, two_level.ci_low, two_level.ci_high
    return SteadyState(
        forks=tuple(entries), verdict=verdict, mean=mean, ci_low=low, ci_high=high,
        confidence_level=model.ci_level, n_steady=len(steady_forks),
        tolerance=model.tolerance, min_steady_fraction=model.steady_share,
        min_warmup_fraction=model.warmup_share, max_unsteady_fraction=model.unsteady_share,
        higher_is_better=model.higher_is_better, two_level=two_level, note=note,
        unit=model.unit,
    )
