"""Brute-force EDM references (``specs/edm.md`` §3–§5), restating the formulas directly.

Medians are computed by sorting, every window set is rebuilt from scratch, and every
(t, s) or (τ, κ) pair is evaluated in the reference's scan order with strict ">".
Deliberately slow: use only small n.
"""

from __future__ import annotations

import math

import numpy as np


def median_sorted(values: list[float]) -> float:
    """Exact median: middle value, or (lower middle + upper middle) / 2."""
    ordered = sorted(values)
    count = len(ordered)
    half = count // 2
    if count % 2:
        return ordered[half]
    return (ordered[half - 1] + ordered[half]) / 2.0


def g_factor(degree: int, k: int) -> float:
    """Penalty factor G of spec §3.3."""
    if degree == 0:
        return 0.0
    if degree == 1:
        return 1.0
    return 2.0 * k + 1.0


def edm_dp_naive(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EDM-multi (``percent_mode=False``, penalty = β) or EDM-percent (penalty = percent).

    Returns F, prev, number of length n + 1 (spec §3.1, §3.2, §4.1).
    """
    values = [float(v) for v in z]
    n = len(values)
    baseline = 0.0 if percent_mode else -3.0
    F = [baseline] * (n + 1)
    prev = [0] * (n + 1)
    number = [0] * (n + 1)
    for s in range(2 * delta, n + 1):
        for t in range(delta, s - delta + 1):
            a = prev[t]
            left = median_sorted(values[a:t])
            right = median_sorted(values[t:s])
            w = ((t - a) * (s - t)) / float((s - a) ** 2)
            d = left - right
            cand = F[t] + w * (d * d)
            if not percent_mode:
                cand = cand - penalty * g_factor(degree, number[t])
            if cand > F[s]:
                F[s] = cand
                prev[s] = t
                number[s] = number[t] + 1
        if percent_mode and prev[s] != 0:
            ts = prev[s]
            if F[s] - F[ts] < (penalty * g_factor(degree, number[ts])) * F[ts]:
                F[s] = F[ts]
                number[s] = number[ts]
                prev[s] = prev[ts]
    return (
        np.array(F, dtype=np.float64),
        np.array(prev, dtype=np.int64),
        np.array(number, dtype=np.int64),
    )


def backtrack_naive(prev: np.ndarray, n: int) -> list[int]:
    """Spec §3.4."""
    out = []
    at = n
    while at != 0:
        if prev[at] != 0:
            out.append(int(prev[at]))
        at = int(prev[at])
    return sorted(out)


def edmx_naive(z: np.ndarray, delta: int) -> tuple[int, float]:
    """EDM-X over all (τ, κ), τ then κ ascending, strict ">", initial best −3 (spec §5.1).

    Returns (τ, best) with τ = 0 when the best statistic is not > 0.
    """
    values = [float(v) for v in z]
    n = len(values)
    best = -3.0
    best_tau = 0
    for tau in range(delta, n - delta + 1):
        left = median_sorted(values[:tau])
        for kappa in range(tau + delta, n + 1):
            right = median_sorted(values[tau:kappa])
            w = float(tau * (kappa - tau)) / kappa
            d = left - right
            stat = w * (d * d)
            if stat > best:
                best = stat
                best_tau = tau
    if best > 0.0:
        return best_tau, best
    return 0, 0.0


def leaf_of(value: float, depth: int) -> int:
    """Leaf holding ``value``: leaf 0 = [0, h], leaf k = (k·h, (k + 1)·h] (spec §5.3)."""
    leaves = 2**depth
    return min(max(math.ceil(value * leaves) - 1, 0), leaves - 1)


def tree_counts(values: list[float], depth: int) -> list[int]:
    """Node counts of a freshly built tree as a 1-based heap (index 0 unused)."""
    size = 2 ** (depth + 1)
    counts = [0] * size
    for value in values:
        counts[2**depth + leaf_of(value, depth)] += 1
    for node in range(2**depth - 1, 0, -1):
        counts[node] = counts[2 * node] + counts[2 * node + 1]
    return counts


def tree_quantile_naive(values: list[float], depth: int, q: float) -> float:
    """Tree quantile of spec §5.3 on a freshly built tree."""
    counts = tree_counts(values, depth)
    total = counts[1]
    if total == 0:
        return 0.0
    k = math.ceil(q * total)
    node, lo, hi = 1, 0.0, 1.0
    for _ in range(depth):
        mid = 0.5 * (lo + hi)
        if counts[node] == k:
            left_point = lo + q * (mid - lo)
            right_point = mid + q * (hi - mid)
            return (counts[2 * node] * left_point + counts[2 * node + 1] * right_point) / counts[
                node
            ]
        if counts[2 * node] >= k:
            node, hi = 2 * node, mid
        else:
            k -= counts[2 * node]
            node, lo = 2 * node + 1, mid
    return lo + q * (hi - lo)


def edm_tail_naive(
    z: np.ndarray, delta: int, depth: int, quantile: float = 0.5, alpha: float = 2.0
) -> tuple[int, float]:
    """EDM-tail with window sets rebuilt for every (τ, κ) (spec §5.2, §5.5)."""
    values = [float(v) for v in z]
    n = len(values)
    best = -3.0
    best_tau = 0
    for tau in range(delta, n - delta + 1):
        left = values[tau - delta : tau]
        right = values[tau : tau + delta]
        set_a = [abs(left[i] - left[j]) for i in range(delta) for j in range(i + 1, delta)]
        set_ab = [abs(a - b) for a in left for b in right]
        inner_b = [abs(right[i] - right[j]) for i in range(delta) for j in range(i + 1, delta)]
        qa = tree_quantile_naive(set_a, depth, quantile) ** alpha
        qab = tree_quantile_naive(set_ab, depth, quantile) ** alpha
        for kappa in range(tau + delta, n + 1):
            diffs = [abs(values[k] - values[k - 1]) for k in range(tau + delta, kappa)]
            qb = tree_quantile_naive(inner_b + diffs, depth, quantile) ** alpha
            stat = (2.0 * qab - qa - qb) * (float(kappa - tau) * tau / kappa)
            if stat > best:
                best = stat
                best_tau = tau
    if best > 0.0:
        return best_tau, best
    return 0, 0.0
