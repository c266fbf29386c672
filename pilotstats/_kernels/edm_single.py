"""EDM kernels, part 3: single change-point searches, EDM-X and EDM-tail.

Method: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); behaviour of the reference code
``twitter/BreakoutDetection`` as described in ``docs/algorithms/edm.md``. Implemented from the
paper and that description, not from the (GPL) reference sources.

EDM-X searches with the linked list of :mod:`pilotstats._kernels.edm_list`. EDM-tail counts
distances in an **interval tree**: a complete binary tree of counters over ``[0, 1]`` with
``2**depth`` leaves, stored as a 1-based heap in an int64 array; a second variant
reproduces the reference's tree depth and bookkeeping. Inputs are
validated, C-contiguous float64 arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats._kernels._jit import kernel
from pilotstats._kernels.edm_list import (
    HEAD,
    TAIL,
    list_median,
    unlink_track,
)

# ----------------------------------------------------------------------------------------
# EDM-X
# ----------------------------------------------------------------------------------------


@kernel(interpret="quadratic")
def edmx_search(zz: np.ndarray, order: np.ndarray, n: int, delta: int) -> tuple[int, float]:
    """EDM-X arg-max over τ ∈ [δ, n − δ], κ ∈ [τ + δ, n].

    Parameters
    ----------
    zz : ndarray of float64, shape (n + 2,)
        Padded scaled values.
    order : ndarray of int64, shape (n,)
        Stable argsort of the values.
    n, delta : int
        Length (``n >= 2·delta``) and minimum segment length.

    Returns
    -------
    tau : int
        Smallest τ attaining the maximum (0 when the maximum is not > 0).
    statistic : float
        ``max S(τ, κ)``, ``S = (τ(κ − τ)/κ)·(med(z[0:τ]) − med(z[τ:κ]))²``.

    Notes
    -----
    Prefix medians come from deleting samples from the end of the full sorted list; for each
    τ the right medians ``med(z[τ:κ])`` from deleting samples n − 1, n − 2, … from the list of
    ``z[τ:n]`` (then undone). O(n²) time, O(n) memory.
    """
    size = n + 2
    nxt = np.empty(size, dtype=np.int64)
    prv = np.empty(size, dtype=np.int64)
    previous = HEAD
    for r in range(n):
        node = order[r] + 2
        nxt[previous] = node
        prv[node] = previous
        previous = node
    nxt[previous] = TAIL
    prv[TAIL] = previous
    m = nxt[HEAD]
    for _ in range((n - 1) // 2):
        m = nxt[m]
    c = n
    # prefix medians med(z[0:k]) for k = n .. delta
    PM = np.zeros(n + 1)
    mm = m
    cc = c
    for k in range(n, delta - 1, -1):
        PM[k] = list_median(zz, nxt, mm, cc)
        if k > delta:
            mm = unlink_track(zz, nxt, prv, k + 1, mm, cc)
            cc -= 1
    for i in range(delta, n):
        node = i + 2
        nxt[prv[node]] = node
        prv[nxt[node]] = node
    # master list holds z[tau:n]
    for i in range(delta):
        m = unlink_track(zz, nxt, prv, i + 2, m, c)
        c -= 1
    best = -3.0
    best_tau = 0
    for tau in range(delta, n - delta + 1):
        left = PM[tau]
        mm = m
        cc = c
        tau_best = -3.0
        for kappa in range(n, tau + delta - 1, -1):
            rm = list_median(zz, nxt, mm, cc)
            d = left - rm
            w = float(tau * (kappa - tau)) / float(kappa)
            stat = w * (d * d)
            if stat > tau_best:
                tau_best = stat
            if kappa > tau + delta:
                mm = unlink_track(zz, nxt, prv, kappa + 1, mm, cc)
                cc -= 1
        for i in range(tau + delta, n):
            node = i + 2
            nxt[prv[node]] = node
            prv[nxt[node]] = node
        if tau_best > best:
            best = tau_best
            best_tau = tau
        if tau < n - delta:
            m = unlink_track(zz, nxt, prv, tau + 2, m, c)
            c -= 1
    if best > 0.0:
        return best_tau, best
    return 0, 0.0


# ----------------------------------------------------------------------------------------
# Interval tree and EDM-tail
# ----------------------------------------------------------------------------------------


def tree_depth(n: int) -> int:
    """Depth ``B = max(ceil(log2 n), 10)`` of the interval tree."""
    return max((max(n, 1) - 1).bit_length(), 10)


@kernel
def tree_update(tree: np.ndarray, depth: int, value: float, amount: int) -> None:
    """Add ``amount`` (±1) for ``value`` in [0, 1] on the root-to-leaf path.

    Leaf 0 covers ``[0, h]``, leaf k >= 1 covers ``(k·h, (k + 1)·h]`` with ``h = 2**-depth``;
    nodes form a 1-based heap (root 1, leaves ``2**depth .. 2**(depth + 1) - 1``).
    """
    leaves = 1 << depth
    k = math.ceil(value * leaves) - 1
    if k < 0:
        k = 0
    if k > leaves - 1:
        k = leaves - 1
    node = leaves + k
    while node >= 1:
        tree[node] += amount
        node >>= 1


@kernel
def tree_quantile(tree: np.ndarray, depth: int, q: float) -> float:
    """Approximate ``q``-quantile of the values in the tree.

    ``N = 0`` gives 0. Otherwise ``k = ceil(q·N)``; descend from the root; at an internal
    node whose count equals k return the count-weighted mean of its children's q-points
    ``l + q(m − l)`` and ``m + q(u − m)``; else go left if the left count >= k, otherwise
    subtract it and go right; at a leaf return ``l + q(u − l)``. O(depth).
    """
    total = tree[1]
    if total == 0:
        return 0.0
    k = math.ceil(q * total)
    node = 1
    lo = 0.0
    hi = 1.0
    for _ in range(depth):
        mid = 0.5 * (lo + hi)
        count = tree[node]
        left_count = tree[2 * node]
        if count == k:
            right_count = tree[2 * node + 1]
            left_point = lo + q * (mid - lo)
            right_point = mid + q * (hi - mid)
            return float((left_count * left_point + right_count * right_point) / count)
        if left_count >= k:
            node = 2 * node
            hi = mid
        else:
            k -= left_count
            node = 2 * node + 1
            lo = mid
    return lo + q * (hi - lo)


@kernel
def edm_tail_window_terms(
    z: np.ndarray, delta: int, depth: int, quantile: float, alpha: float
) -> np.ndarray:
    """``X(τ) = 2·q(AB(τ)) − q(A(τ))`` for every τ in ``[δ, n − δ]`` (entry τ; others 0).

    The two window trees slide with τ: O(δ·depth) per step, O(n·δ·depth) in all. The
    quantities are those the κ sweep of :func:`edm_tail_search` combines with q(B): the
    tree quantile depends only on the counts, so the order of the updates does not matter.
    """
    n = z.shape[0]
    size = 1 << (depth + 1)
    tree_a = np.zeros(size, dtype=np.int64)
    tree_ab = np.zeros(size, dtype=np.int64)
    out = np.zeros(n + 1)
    for i in range(0, delta):
        for j in range(i + 1, delta):
            tree_update(tree_a, depth, abs(z[i] - z[j]), 1)
        for j in range(delta, 2 * delta):
            tree_update(tree_ab, depth, abs(z[i] - z[j]), 1)
    tau = delta
    while True:
        qa = tree_quantile(tree_a, depth, quantile) ** alpha
        qab = tree_quantile(tree_ab, depth, quantile) ** alpha
        out[tau] = 2.0 * qab - qa
        if tau >= n - delta:
            break
        old = z[tau - delta]
        mover = z[tau]
        arriving = z[tau + delta]
        # A: drop the departing point's pairs, add the mover's pairs with the common part
        for j in range(tau - delta + 1, tau):
            tree_update(tree_a, depth, abs(old - z[j]), -1)
            tree_update(tree_a, depth, abs(mover - z[j]), 1)
        # AB: remove (old, R) and (common L, mover); add (mover, R') and (common L, arriving)
        for j in range(tau, tau + delta):
            tree_update(tree_ab, depth, abs(old - z[j]), -1)
        for j in range(tau + 1, tau + delta + 1):
            tree_update(tree_ab, depth, abs(mover - z[j]), 1)
        for j in range(tau - delta + 1, tau):
            tree_update(tree_ab, depth, abs(z[j] - mover), -1)
            tree_update(tree_ab, depth, abs(z[j] - arriving), 1)
        tau += 1
    return out


@kernel
def edm_tail_kappa_sweep(
    z: np.ndarray,
    delta: int,
    depth: int,
    quantile: float,
    alpha: float,
    tau: int,
    x_tau: float,
    tree_b: np.ndarray,
) -> float:
    """``max over κ in [τ + δ, n]`` of ``(X(τ) − q(B(τ, κ)))·((κ − τ)·τ/κ)`` (or −3.0).

    ``tree_b`` must be all zeros on entry and is all zeros again on return. O(n·depth).
    """
    n = z.shape[0]
    for i in range(tau, tau + delta):
        for j in range(i + 1, tau + delta):
            tree_update(tree_b, depth, abs(z[i] - z[j]), 1)
    tau_best = -3.0
    for kappa in range(tau + delta, n + 1):
        if kappa > tau + delta:
            tree_update(tree_b, depth, abs(z[kappa - 1] - z[kappa - 2]), 1)
        qb = tree_quantile(tree_b, depth, quantile) ** alpha
        stat = (x_tau - qb) * (float(kappa - tau) * tau / kappa)
        if stat > tau_best:
            tau_best = stat
    for i in range(tau, tau + delta):
        for j in range(i + 1, tau + delta):
            tree_update(tree_b, depth, abs(z[i] - z[j]), -1)
    for kappa in range(tau + delta + 1, n + 1):
        tree_update(tree_b, depth, abs(z[kappa - 1] - z[kappa - 2]), -1)
    return tau_best


@kernel(interpret="quadratic_heavy")
def edm_tail_search(
    z: np.ndarray, delta: int, depth: int, quantile: float, alpha: float
) -> tuple[int, float]:
    """EDM-tail arg-max with exact window sets and the paper-faithful tree.

    Parameters
    ----------
    z : ndarray of float64, shape (n,)
        Range-scaled values in [0, 1], ``n >= 2·delta``.
    delta : int
        Window length δ (minimum segment length).
    depth : int
        Tree depth (:func:`tree_depth`).
    quantile, alpha : float
        Tree quantile level and exponent (defaults 0.5 and 2).

    Returns
    -------
    tau : int
        Smallest τ attaining the maximum (0 when the maximum is not > 0).
    statistic : float
        ``max (2·q(AB) − q(A) − q(B(τ, κ)))·((κ − τ)·τ/κ)`` with ``q(M) = quantile**alpha``.

    Notes
    -----
    A(τ): pairwise distances inside ``z[τ−δ:τ]``; AB(τ): distances between ``z[τ−δ:τ]`` and
    ``z[τ:τ+δ]``; B(τ, κ): pairs inside ``z[τ:τ+δ]`` plus the consecutive differences
    ``|z_k − z_{k−1}|`` for ``τ + δ <= k < κ``.

    Exact pruning (an addition of pilotstats; same output). Pass 1 computes
    ``X(τ) = 2·q(AB) − q(A)`` for every τ with sliding window trees, O(n·δ·depth)
    (:func:`edm_tail_window_terms`). Since ``q(B) >= 0`` and the weight
    ``(κ − τ)·τ/κ`` grows with κ (also after rounding: the product is exact and the
    division correctly rounded), every statistic of τ is at most
    ``U(τ) = X(τ)·(n − τ)·τ/n`` when ``X(τ) > 0`` and at most 0 otherwise, as computed in
    floating point (IEEE operations are monotone). Pass 2 runs the full κ sweep
    (:func:`edm_tail_kappa_sweep`) for the τ of the largest U, then, in increasing τ, for
    every other τ whose U reaches the best statistic so far (ties included, so the
    smallest τ attaining the maximum wins). Those sweeps share one tree of the
    consecutive differences and run downwards from κ = n
    (:func:`edm_tail_kappa_descent`), stopping as soon as ``X(τ)·w(κ)`` falls below the
    best. The cost is O(n·δ·depth) plus O(n·depth) for the shared tree plus the κ steps
    visited; every (τ, κ) is visited in the worst case, i.e. O(n²·depth) as without
    pruning. Memory O(n + 2**depth).
    """
    n = z.shape[0]
    x = edm_tail_window_terms(z, delta, depth, quantile, alpha)
    count = n - 2 * delta + 1
    bound = np.empty(count)
    for r in range(count):
        tau = delta + r
        xt = x[tau]
        bound[r] = xt * (float(n - tau) * tau / n) if xt > 0.0 else 0.0
    top = int(np.argmax(bound))  # first τ of the largest bound
    if bound[top] <= 0.0:
        return 0, 0.0
    tree_b = np.zeros(1 << (depth + 1), dtype=np.int64)
    best_tau = delta + top
    best = edm_tail_kappa_sweep(z, delta, depth, quantile, alpha, best_tau, x[best_tau], tree_b)
    # The other τ whose bound reaches the best, in increasing order, on one shared tree of
    # the consecutive differences D_j = |z[j-1] - z[j-2]|, j in [lo, n] (lo = τ + δ + 1).
    lo = n + 1
    for r in range(count):
        tau = delta + r
        if r == top or bound[r] <= 0.0 or bound[r] < best:
            continue
        if lo == n + 1:  # first candidate: fill the shared tree
            for j in range(tau + delta + 1, n + 1):
                tree_update(tree_b, depth, abs(z[j - 1] - z[j - 2]), 1)
        else:
            for j in range(lo, tau + delta + 1):
                tree_update(tree_b, depth, abs(z[j - 1] - z[j - 2]), -1)
        lo = tau + delta + 1
        stat = edm_tail_kappa_descent(z, delta, depth, quantile, alpha, tau, x[tau], best, tree_b)
        if stat > best or (stat == best and tau < best_tau):
            best = stat
            best_tau = tau
    if best > 0.0:
        return best_tau, best
    return 0, 0.0


@kernel
def edm_tail_kappa_descent(
    z: np.ndarray,
    delta: int,
    depth: int,
    quantile: float,
    alpha: float,
    tau: int,
    x_tau: float,
    best: float,
    tree_b: np.ndarray,
) -> float:
    """The κ sweep of one τ, downwards from κ = n, stopped when it cannot matter.

    ``tree_b`` holds the consecutive differences ``D_j``, ``τ + δ < j <= n`` (restored on
    return). With ``X(τ) = x_tau > 0``, every statistic at ``κ`` is at most
    ``X(τ)·w(κ)`` (``q(B) >= 0``), and ``w`` decreases with κ: the sweep stops at the first
    κ whose bound is below ``max(best, best of this τ so far)``. Returns the maximum over
    κ when it is at least ``best``; otherwise some value below ``best``.
    """
    n = z.shape[0]
    for i in range(tau, tau + delta):
        for j in range(i + 1, tau + delta):
            tree_update(tree_b, depth, abs(z[i] - z[j]), 1)
    tau_best = -3.0
    kappa = n
    while kappa >= tau + delta:
        weight = float(kappa - tau) * tau / kappa
        if x_tau * weight < max(best, tau_best):
            break
        qb = tree_quantile(tree_b, depth, quantile) ** alpha
        stat = (x_tau - qb) * weight
        if stat > tau_best:
            tau_best = stat
        if kappa > tau + delta:
            tree_update(tree_b, depth, abs(z[kappa - 1] - z[kappa - 2]), -1)
        kappa -= 1
    # restore: the differences removed, then drop the window pairs
    for j in range(max(kappa, tau + delta) + 1, n + 1):
        tree_update(tree_b, depth, abs(z[j - 1] - z[j - 2]), 1)
    for i in range(tau, tau + delta):
        for j in range(i + 1, tau + delta):
            tree_update(tree_b, depth, abs(z[i] - z[j]), -1)
    return tau_best


# ----------------------------------------------------------------------------------------
# EDM-tail with the reference's tree and bookkeeping (``tree="reference"``)
# ----------------------------------------------------------------------------------------


def reference_tree_depth(n: int) -> int:
    """Depth ``max(ceil(ln n), 10)`` used by ``src/edmTail.cpp`` (natural logarithm)."""
    return max(math.ceil(math.log(max(n, 1))), 10)


@kernel
def reference_tree_update(tree: np.ndarray, depth: int, distance: float, amount: int) -> None:
    """Add ``amount`` at heap node ``ceil(|d|·2**depth) + 2**depth − 1`` and its ancestors.

    For ``d > 0`` this is the leaf of :func:`tree_update`; ``d = 0`` lands on the last
    internal node of depth ``depth − 1`` (the reference's misfiled zero distances).
    """
    leaves = 1 << depth
    node = math.ceil(abs(distance) * leaves) + leaves - 1
    while node >= 1:
        tree[node] += amount
        node >>= 1


@kernel
def reference_tree_quantile(tree: np.ndarray, depth: int, q: float) -> float:
    """Tree quantile as ``src/edmTail.cpp`` computes it (its early-exit interpolation).

    Same descent as :func:`tree_quantile`, but the early exit weights the children by
    ``count / (left + right)`` and takes the right child's q-point on the upper quarter
    ``[l + 3(u − l)/4, u]`` of the node; no special case for an empty tree. The early exit
    never divides by zero on a non-empty tree: k >= 1 throughout the descent, and the only
    node whose count differs from its children's sum (the one holding misfiled zeros) is
    reached only by a right move, which requires its parent to exit first.
    """
    k = math.ceil(tree[1] * q)
    lo = 0.0
    hi = 1.0
    node = 1
    for _ in range(depth):
        left = tree[2 * node]
        if tree[node] == k:
            right = tree[2 * node + 1]
            weight_left = left / (left + right)
            weight_right = 1.0 - weight_left
            mid = (hi + lo) / 2.0
            quarter = (hi + mid) / 2.0
            return float(
                weight_left * (q * (mid - lo) + lo) + weight_right * (q * (hi - quarter) + quarter)
            )
        if left >= k:
            node = 2 * node
            hi = (lo + hi) / 2.0
        else:
            k -= left
            node = 2 * node + 1
            lo = (lo + hi) / 2.0
    return float(q * (hi - lo) + lo)


@kernel(interpret="quadratic_heavy")
def edm_tail_search_reference(
    z: np.ndarray, delta: int, depth: int, quantile: float, alpha: float
) -> tuple[int, float]:
    """EDM-tail as ``twitter/BreakoutDetection`` computes it (``tree="reference"``).

    Reproduces the reference's three quirks (misfiled zero distances, 7/8 interpolation,
    drifting A tree and consecutive-difference bookkeeping) and its natural-log depth by
    replaying its update order: τ = δ with κ = 2δ as the initial best, a forward κ sweep,
    then for each τ + 1 the window updates followed by κ sweeps alternating direction
    (backward first). Returns ``(τ, best)`` with τ = 0 when the best is not > 0.

    Parameters
    ----------
    z : ndarray of float64, shape (n,)
        Range-scaled values, ``n >= 2·delta``.
    delta : int
        Window length δ.
    depth : int
        Tree depth (:func:`reference_tree_depth`).
    quantile, alpha : float
        Quantile level and exponent.

    Returns
    -------
    tau : int
    statistic : float
    """
    n = z.shape[0]
    size = 1 << (depth + 1)
    tree_a = np.zeros(size, dtype=np.int64)
    tree_b = np.zeros(size, dtype=np.int64)
    tree_ab = np.zeros(size, dtype=np.int64)
    for i in range(delta):
        for j in range(i + 1, delta):
            reference_tree_update(tree_a, depth, z[i] - z[j], 1)
            reference_tree_update(tree_b, depth, z[delta + i] - z[delta + j], 1)
        for j in range(delta, 2 * delta):
            reference_tree_update(tree_ab, depth, z[i] - z[j], 1)
    tau = delta
    qa = reference_tree_quantile(tree_a, depth, quantile) ** alpha
    qb = reference_tree_quantile(tree_b, depth, quantile) ** alpha
    qab = reference_tree_quantile(tree_ab, depth, quantile) ** alpha
    kappa = 2 * delta
    best = (2.0 * qab - qa - qb) * (float(tau) * (kappa - tau) / kappa)
    best_tau = tau
    for kappa in range(2 * delta + 1, n + 1):
        reference_tree_update(tree_b, depth, z[kappa - 1] - z[kappa - 2], 1)
        qb = reference_tree_quantile(tree_b, depth, quantile) ** alpha
        stat = (2.0 * qab - qa - qb) * (float(kappa - tau) * tau / kappa)
        if stat > best:
            best = stat
            best_tau = tau
    backward = True
    while tau < n - delta:
        tau += 1
        arriving = z[tau - 1]
        departing = z[tau - delta - 1]
        # A (quirk 3): arriving point's distances to the delta - 1 points before it in,
        # departing point's distances to all of z[tau - delta .. tau - 1] out, one back in
        for j in range(tau - delta, tau - 1):
            reference_tree_update(tree_a, depth, arriving - z[j], 1)
        for j in range(tau - delta, tau):
            reference_tree_update(tree_a, depth, departing - z[j], -1)
        reference_tree_update(tree_a, depth, departing - z[tau - delta], 1)
        # AB exactly: old windows L = z[tau-1-delta : tau-1], R = z[tau-1 : tau-1+delta]
        for j in range(tau - 1, tau - 1 + delta):
            reference_tree_update(tree_ab, depth, departing - z[j], -1)
        for j in range(tau - delta, tau - 1):
            reference_tree_update(tree_ab, depth, z[j] - arriving, -1)
        for j in range(tau, tau + delta):
            reference_tree_update(tree_ab, depth, arriving - z[j], 1)
        for j in range(tau - delta, tau - 1):
            reference_tree_update(tree_ab, depth, z[j] - z[tau + delta - 1], 1)
        # B pairs inside the right window: z[tau-1] leaves, z[tau+delta-1] enters
        for j in range(tau, tau + delta - 1):
            reference_tree_update(tree_b, depth, arriving - z[j], -1)
            reference_tree_update(tree_b, depth, z[tau + delta - 1] - z[j], 1)
        qa = reference_tree_quantile(tree_a, depth, quantile) ** alpha
        qab = reference_tree_quantile(tree_ab, depth, quantile) ** alpha
        if backward:
            for kappa in range(n, tau + delta - 1, -1):
                reference_tree_update(tree_b, depth, z[kappa - 1] - z[kappa - 2], -1)
                qb = reference_tree_quantile(tree_b, depth, quantile) ** alpha
                stat = (2.0 * qab - qa - qb) * (float(kappa - tau) * tau / kappa)
                if stat > best:
                    best = stat
                    best_tau = tau
        else:
            for kappa in range(tau + delta, n + 1):
                reference_tree_update(tree_b, depth, z[kappa - 1] - z[kappa - 2], 1)
                qb = reference_tree_quantile(tree_b, depth, quantile) ** alpha
                stat = (2.0 * qab - qa - qb) * (float(kappa - tau) * tau / kappa)
                if stat > best:
                    best = stat
                    best_tau = tau
        backward = not backward
    if best > 0.0:
        return best_tau, best
    return 0, 0.0
