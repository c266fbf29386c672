"""Sequential probability ratio tests deciding each step of :func:`~pilotstats.session.bisect`.

Wald's SPRT (A. Wald, "Sequential Tests of Statistical Hypotheses", Ann. Math. Statist. 16,
1945) stops as soon as the log-likelihood ratio of two simple hypotheses leaves
``(log(β / (1 - α)), log((1 - β) / α))``; its error probabilities are then at most about
``α`` and ``β``, and it needs far fewer runs on average than a fixed-size test.

Benchmark noise is heavy-tailed (a preempted run takes twice as long) and drifts with the
machine's load, so both tests here are *sign* tests on drift-free comparisons of runs
measured side by side, in log scale (a change is a ratio):

- :func:`range_test` -- is ``bad`` slower than ``good`` by at least the threshold ``P``?
  Each interleaved pair votes ``d = log b - log g`` above or below ``δ/2``, ``δ = log(1+P)``.
- :func:`probe_test` -- is a probed commit like ``good`` or like ``bad``? Each batch (probe,
  good, bad in random order) votes ``w = log p - (log g + log b) / 2`` above or below 0.

A vote is wrong with probability ``q`` under either hypothesis. For normal noise
``q = Φ(-gap / (2 σ))`` with the gap and the scale estimated robustly (median, ``1.4826 *
MAD``) from the reference pairs; ``q`` is floored at :data:`VOTE_ERROR_FLOOR`, the
assumption that keeps the error probabilities when the noise has heavy tails or the plug-in
estimates are off. The vote SPRT's log-likelihood ratio is then ``(right - wrong) *
log((1 - q) / q)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special

__all__: list[str] = []

#: Smallest probability of a wrong vote assumed (robustness against heavy tails).
VOTE_ERROR_FLOOR = 0.2


def wald_bounds(error: float) -> tuple[float, float]:
    """``(lower, upper)`` log-likelihood-ratio bounds with ``α = β = error``."""
    return math.log(error / (1.0 - error)), math.log((1.0 - error) / error)


def robust_scale(values: np.ndarray) -> float:
    """``1.4826 * MAD``: the normal-consistent median absolute deviation."""
    return 1.4826 * float(np.median(np.abs(values - np.median(values))))


def vote_error(gap: float, scale: float, pairs: int) -> float:
    """Probability ``q`` that one vote is wrong, floored (see the module docstring).

    The scale is a MAD estimate from ``pairs`` values; its one-sided 95 % upper bound
    (chi-square with the MAD's effective degrees of freedom, 37 % of ``pairs - 1``) is
    used, so that an early, lucky small spread does not make the votes overconfident.
    """
    dof = max(1.0, 0.37 * (pairs - 1))
    upper = scale * math.sqrt(dof / float(special.chdtri(dof, 0.95)))
    q = float(special.ndtr(-abs(gap) / (2.0 * upper))) if upper > 0 else 0.0
    return min(max(q, VOTE_ERROR_FLOOR), 0.45)


def vote_sprt(votes: float, q: float, error: float) -> tuple[str | None, float]:
    """``("upper" | "lower" | None, LLR)`` for a net vote count (right minus wrong)."""
    llr = votes * math.log((1.0 - q) / q)
    lower, upper = wald_bounds(error)
    if llr >= upper:
        return "upper", llr
    if llr <= lower:
        return "lower", llr
    return None, llr


def _log_differences(good: Sequence[float], bad: Sequence[float]) -> np.ndarray:
    pairs = min(len(good), len(bad))
    bad_log = np.log(np.asarray(bad[:pairs], dtype=np.float64))
    good_log = np.log(np.asarray(good[:pairs], dtype=np.float64))
    return np.asarray(bad_log - good_log, dtype=np.float64)


def range_test(
    good: Sequence[float], bad: Sequence[float], threshold: float, error: float,
    *, higher_is_better: bool, min_runs: int = 5,
) -> tuple[str | None, float]:
    """``("regression" | "no regression" | None, LLR)`` from interleaved run pairs.

    ``threshold`` is the smallest slowdown that counts, as a fraction (0.05 = 5 %):
    ``H0: δ = 0`` against ``H1: δ = log(1 + threshold)`` for the pairs' log ratio.
    """
    difference = _log_differences(good, bad)
    if difference.size < min_runs:
        return None, 0.0
    if higher_is_better:
        difference = -difference
    effect = math.log1p(threshold)
    q = vote_error(effect, robust_scale(difference), difference.size)
    votes = float(np.sum(np.sign(difference - effect / 2.0)))
    decision, llr = vote_sprt(votes, q, error)
    if decision is None:
        return None, llr
    return ("regression" if decision == "upper" else "no regression"), llr


def probe_test(
    probe: Sequence[float], good: Sequence[float], bad: Sequence[float],
    all_good: Sequence[float], all_bad: Sequence[float], error: float, *, min_runs: int = 2,
) -> tuple[str | None, float]:
    """``("bad" | "good" | None, LLR)``: is the probe like the bad or the good reference?

    ``probe``, ``good`` and ``bad`` are this step's batches, one run of each per batch, so
    that ``w`` is free of machine drift: ``E[w] = -gap/2`` if the probe is like good and
    ``+gap/2`` if like bad, with ``Var(w) = 3/4 Var(log b - log g)``. The gap and the scale
    come from every aligned pair of reference runs so far (``all_good``, ``all_bad``).
    """
    batches = min(len(probe), len(good), len(bad))
    difference = _log_differences(all_good, all_bad)
    if batches < min_runs or difference.size < 3:
        return None, 0.0
    gap = float(np.median(difference))
    if gap == 0.0:
        return None, 0.0
    q = vote_error(gap, math.sqrt(0.75) * robust_scale(difference), difference.size)
    w = (np.log(np.asarray(probe[:batches], dtype=float))
         - (np.log(np.asarray(good[:batches], dtype=float))
            + np.log(np.asarray(bad[:batches], dtype=float))) / 2.0)
    votes = float(np.sum(np.sign(w))) * math.copysign(1.0, gap)
    decision, llr = vote_sprt(votes, q, error)
    if decision is None:
        return None, llr
    return ("bad" if decision == "upper" else "good"), llr
