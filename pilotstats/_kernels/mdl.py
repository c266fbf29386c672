"""Kernels of the MDL (minimum description length) trend partitioning.

Reference behaviour: jumpavg 0.4.2 (``jumpavg/avg_stdev_stats.py``,
``jumpavg/bit_counting_stats.py``, ``jumpavg/classify.py``); documentation
``docs/algorithms/mdl.md`` (code length of one group, the dynamic programme); the
arithmetic follows jumpavg's so that the floats are bit-identical.

Every quantity is a float64 scalar or a C-contiguous 1-D array. Nothing here validates user
input or raises user-facing errors; :mod:`pilotstats.changepoints._mdl` does that.

Memory is O(N): per prefix length the best code length ``F``, the mean of its last group
``P`` ("last average") and the start of its last group; per still-open candidate start the
running statistics ``(n, mean, stdev)`` of the candidate group, the frozen ``F`` and ``P``
of the prefix before it and a few per-start constants.
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats._kernels._jit import kernel

#: ``math.log(x, 2)`` in CPython is ``log(x) / log(2)``; keep exactly that divisor.
LN2 = math.log(2.0)
#: Used only inside the (rounding-tolerant) pruning bounds, never in code lengths.
INV_LN2 = 1.0 / LN2
#: ½·ln(2πe): per-sample growth of the sphere term's size part g(k).
C0 = 0.5 * math.log(2.0 * math.pi * math.e)


# State bundles: plain tuples of arrays (or scalars), unpacked once on entry to a kernel, so
# the loops index plain arrays. Plain tuples, not NamedTuples: numba types a plain tuple of
# arrays on its fast dispatch path, a NamedTuple on the slow one (+2 µs per bundle and call,
# 12 % of an MdlStream append).

#: Per-run sample count (int64), mean and population stdev, shape (n_runs,):
#: ``(run_n, run_avg, run_sd)``.
RunStats = tuple[np.ndarray, np.ndarray, np.ndarray]

#: Per-size tables of the code length (float64): ``(tab_l, tab_c, tab_d, tab_gb)``
#: (``tab_gb``: the pruning bound's size term).
CodeTables = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

#: ``(best_bits, last_avg, best_start)``: ``F`` and ``P`` per prefix length (float64, shape
#: (n_runs + 1,), index 0 the empty prefix) and the start run of the last group of the best
#: partition of runs ``0..i`` (int64, shape (n_runs,)).
Prefix = tuple[np.ndarray, np.ndarray, np.ndarray]

#: ``(unit, max_u, low_u)``: resolution unit, ``M = max_value / unit`` and
#: ``min(0, smallest sample) / unit`` (bounds every future group mean from below).
Scale = tuple[float, float, float]

#: ``(prune, margin, max_history, anchors)``: drop candidates that provably can never win
#: again; the relative safety margin of that test (bits per bit of ``F``); 0 for the exact
#: programme or ``H > 0`` for bounded history (an approximation); with ``H > 0``, the group
#: starts of the current best partition kept however old they are.
Search = tuple[bool, float, int, int]

#: The open candidates of :func:`mdl_advance` in increasing start order, 16 arrays of shape
#: (n_runs,): ``(start, n, avg, sd, base, prev, norm, log2norm, far, mean_y, mean_ln,
#: mean_inv, sd_y, sd_ln, size_l, size_h)``: start run, running statistics, frozen ``F(j)``,
#: ``P(j)/unit`` (NaN for the first group), ``Z``, ``log2 Z``,
#: ``log2(max(|low − p|, |M − p|) + 1)``, the anchors ``y0``, ``ln y0``, ``1/y0`` of the last
#: exact evaluation for ``y = |a − p| + 1`` and ``y0``, ``ln y0`` for ``y = s + 1`` (pruned
#: mode only), and ``L(k0)``, ``h(k0)`` at the size ``k0`` of that evaluation.
Candidates = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
    np.ndarray, np.ndarray,
]

#: Memo of the merge chains of :func:`describe_groups` per start run, shape (n_runs,):
#: ``(end, n, avg, sd)``: end of the runs merged so far (0: nothing held) and their statistics.
MergeMemo = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

#: Outputs of :func:`describe_groups`, one entry per group, shape (n_runs,):
#: ``(start, end, n, avg, sd, bits)``: half-open run range, size, live mean and population
#: stdev (not re-merged) and bits.
GroupsOut = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@kernel
def remerge(n: int, avg: float, sd: float) -> tuple[float, float]:
    """Statistics of a single stats record passed once more through the merge.

    ``AvgStdevStats.for_runs([stats])`` rounds the mean and stdev once more:
    ``avg' = 0 + (avg·n)/n`` and ``sd' = sqrt((0 + (sd·sd)·n)/n)``. The term
    ``(((d·d)·0)·n)/n`` of the merge is ``+0.0`` for every finite input and is omitted.

    Parameters
    ----------
    n : int
        Number of samples, ``n >= 1``.
    avg, sd : float
        Mean and population stdev.

    Returns
    -------
    avg, sd : float
    """
    nf = float(n)
    return 0.0 + (avg * nf) / nf, math.sqrt((0.0 + (sd * sd) * nf) / nf)


@kernel
def merge_pair(
    n1: int, avg1: float, sd1: float, n2: int, avg2: float, sd2: float
) -> tuple[int, float, float]:
    """Merge the statistics of two consecutive runs in jumpavg's order.

    Welford/Chan pairwise update: no raw sums of squares, so values of order 1e7 with a
    tiny spread keep their stdev and a constant group has stdev exactly 0.

    Parameters
    ----------
    n1, avg1, sd1 : int, float, float
        First run (``n1 >= 1``).
    n2, avg2, sd2 : int, float, float
        Second run (``n2 >= 1``).

    Returns
    -------
    n, avg, sd : int, float, float
        Size, mean and population stdev of the union.
    """
    n1f = float(n1)
    total_avg = 0.0 + (avg1 * n1f) / n1f
    moment = 0.0 + (sd1 * sd1) * n1f
    delta = avg2 - total_avg
    n = n1 + n2
    nf = float(n)
    n2f = float(n2)
    total_avg = total_avg + (delta * n2f) / nf
    moment = moment + (sd2 * sd2) * n2f
    moment = moment + (((delta * delta) * n1f) * n2f) / nf
    return n, total_avg, math.sqrt(moment / nf)


@kernel
def group_bits(
    n: int,
    avg: float,
    sd: float,
    has_prev: bool,
    prev_u: float,
    norm: float,
    unit: float,
    log2_m1: float,
    c_term: float,
    tab_l: np.ndarray,
    tab_c: np.ndarray,
    tab_d: np.ndarray,
) -> tuple[float, float, float, float]:
    """Code length in bits of one group, with jumpavg's order of operations.

    Parameters
    ----------
    n : int
        Samples in the group, ``n >= 1``.
    avg, sd : float
        The group's statistics as stored (they are re-merged once, as jumpavg does).
    has_prev : bool
        Whether a previous group exists.
    prev_u : float
        Previous mean in units (ignored without a previous group).
    norm : float
        ``Z = p·p − (p − 1)·M + M·M/2`` for ``p = prev_u`` (ignored without one).
    unit : float
        Resolution unit.
    log2_m1 : float
        ``log2(M + 1)``, the first group's mean cost.
    c_term : float
        ``log2(1 − 1/(M + 2))``.
    tab_l, tab_c, tab_d : ndarray of float64
        Per-size tables: ``log2(k(k+1))``, ``ln 2 + ((k−1)/2)·ln π − lnΓ((k−1)/2)`` and
        ``((k−2)/2)·ln k``.

    Returns
    -------
    bits : float
        The group's code length.
    ln_mean : float
        ``ln((|a − p| + 1)/Z)`` (0.0 without a previous group).
    ln_s1 : float
        ``ln(s + 1)`` (0.0 when n = 1).
    ln_s12 : float
        ``ln((s + 1)(s + 2))`` (0.0 when n = 1).
    """
    a_raw, s_raw = remerge(n, avg, sd)
    bits = 0.0 + tab_l[n]
    ln_mean = 0.0
    if has_prev:
        a_u = a_raw / unit
        ln_mean = math.log((abs(a_u - prev_u) + 1.0) / norm)
        bits -= ln_mean / LN2
    else:
        bits += log2_m1
    if n < 2:
        return bits, ln_mean, 0.0, 0.0
    s_u = s_raw / unit
    ln_s12 = math.log((s_u + 1.0) * (s_u + 2.0))
    bits += ln_s12 / LN2
    bits += c_term
    ln_s1 = math.log(s_u + 1.0)
    sphere = tab_c[n] + ln_s1 * float(n - 2)
    sphere = sphere + tab_d[n]
    bits += sphere / LN2
    return bits, ln_mean, ln_s1, ln_s12


@kernel
def mean_norm(prev_u: float, max_u: float) -> float:
    """``Z = p·p − (p − 1)·M + M·M/2``, built in jumpavg's order."""
    norm = prev_u * prev_u
    norm -= (prev_u - 1.0) * max_u
    norm += max_u * max_u / 2.0
    return norm


# No division by zero here (n >= 1, unit > 0, Z > 0, y >= 1), so numba may vectorise.
@kernel(error_model="numpy", interpret="quadratic_heavy")
def mdl_advance(
    runs: RunStats,
    start: int,
    stop: int,
    scale: Scale,
    search: Search,
    tables: CodeTables,
    prefix: Prefix,
    candidates: Candidates,
    scratch: np.ndarray,
    keep: np.ndarray,
    n_open: int,
) -> int:
    """Advance the optimal-partitioning programme over runs ``start .. stop − 1``.

    For run i, a new candidate group ``[i..i]`` is opened with the frozen prefix values
    ``F(i)`` and ``P(i)``, every open candidate is extended by run i, and the best one is
    chosen with jumpavg's tie rule: the new group is the initial record and an older
    candidate (scanned by increasing start) replaces it only when strictly smaller.

    Parameters
    ----------
    runs : RunStats
        Per-run statistics.
    start, stop : int
        Runs to process; the state must already hold runs ``0 .. start − 1``.
    scale : Scale
        Resolution unit, ``M`` and the lower bound of every future group mean.
    search : Search
        Pruning (see Notes), its margin, bounded history and its anchors.
    tables : CodeTables
        Per-size tables.
    prefix : Prefix
        ``F`` and ``P`` per prefix length (index 0 is the empty prefix) and the start of
        the last group of each best partition (updated).
    candidates : Candidates
        Open candidates (updated). The anchors ``y0``, ``ln y0`` (and ``1/y0``) of the
        last exact evaluation for ``y = |a − p| + 1`` and ``y = s + 1`` are used in pruned
        mode only; ``L(k0)`` and ``h(k0)`` are non-decreasing in k, so they bound the
        current size terms from below (see Notes).
    scratch : ndarray of float64, shape (n_runs,)
        Work space for the pruning bounds.
    keep : ndarray of bool, shape (n_runs,)
        Work space (which candidates survive a pruning or forgetting pass).
    n_open : int
        Number of open candidates on entry.

    Returns
    -------
    int
        Number of open candidates on exit.

    Notes
    -----
    Pruning rule (an addition of pilotstats; outputs stay identical). For the candidate
    group ``G1`` = runs ``j..i`` (k1 samples, mean a1, stdev s1, previous mean p) and any
    continuation ``G2`` = runs ``i+1..i'`` coded after the best prefix ``i`` (previous mean
    q = P(i)), the code length of the union U satisfies
    ``bits(U|p) ≥ bits(G1|p) + bits(G2|q) − K`` with
    ``K = L(k1) + W(p) − log2(|a1 − p| + 1) + log2 Z(q) − c + [k1≥2](c + φ(s1)) − gb(k1)``:
    ``L(k) ≥ L(k2)``; the union mean lies in ``[low, M]`` so ``log2(|a − p| + 1) ≤ W(p)``;
    the mean term of G2 is at most ``log2 Z(q)``; ``k·log2(s+1)`` is superadditive
    because ``v ↦ log(√v + 1)`` is concave and the union variance is at least the pooled
    within-group variance; ``φ(s) = log2((s+2)/(s+1)) ∈ (0, 1]``; and
    ``h(k) = g(k) − (k/2)·ln(2πe)`` (g the size part of the sphere term) lies in
    ``[h(2), −½ ln(2π²)]``. Hence, if ``cand(j, i) − K > F(i)``, then
    ``cand(j, i') > cand(i+1, i')`` for every later ``i'`` and j can never be chosen; it
    is dropped. ``margin·(1 + |F(i)|)`` bits absorb floating-point rounding.

    Skipping (pruned mode only, also output-preserving). Before the exact code length of an
    old candidate is evaluated, a lower bound is formed without logarithms from the
    anchors of its last exact evaluation, by concavity of ln:
    ``ln y ≥ ln y0 + 1 − y0/y`` and ``ln y ≤ ln y0 + (y − y0)/y0``, with
    ``ln((s+1)(s+2)) ≥ 2 ln(s+1)``; the size terms use ``L(k) ≥ L(k0)`` and
    ``g(k) ≥ k·c0 + h(k0)`` for the size ``k0`` of that evaluation. If the bound exceeds
    the current record by more than the margin, the candidate cannot be strictly smaller,
    so its exact value is not needed; its statistics are still updated exactly, and its
    pruning bound uses the lower bound.

    Why i.i.d. noise stays O(N²). The rule compares candidate j with "best prefix i, then a
    new group", for every possible future. On a series without level changes the best
    partition is one group, and every old candidate j is a split whose code length exceeds
    ``F(i)`` by one group header (mean, length and stdev codes, ≈ ``log2 Z`` + ``L(k)``
    bits) minus its better fit. A future union of j's group with later runs saves exactly
    such a header, so ``K`` must contain one (``log2 Z(q)``, ``L(k1)``); the headers cancel
    and what is left is the fit gain of a split, which is never negative (more parameters
    never fit worse; the bound itself uses this superadditivity). So no candidate can be
    dropped: measured on N(100, 1) noise of 500 to 2,000 runs, ``cand − K − F(i)`` is about
    −20 bits (median) and never positive; bounding the union's mean term jointly with the
    future group's (``|a_U − p| ≤ |a1 − p| + |q − a1| + |a2 − q|``) only moves it to −10
    (maximum −4 to −6). This is the known worst case of PELT-type exact pruning (no change
    points: quadratic); only a level change makes candidates before it prunable.

    Bounded history (``max_history = H > 0``; not exact). At every run index ``i`` that is
    a multiple of ``max(1, H // 16)``, the candidates whose start lies more than H runs
    back are closed, except the starts of the last ``anchors`` groups of the best
    partition of runs ``0..i``. At most ``H + H // 16 + anchors`` candidates stay open, so
    the cost is O(N·H). The answer differs from the exact programme only when a closed
    start (an old start that is not a recent group start of the best partition) would
    have become the best last group later; ``docs/algorithms/mdl.md`` states how often
    that happens on CSIT-like series.
    """
    run_n, run_avg, run_sd = runs
    unit, max_u, low_u = scale
    prune, margin, max_history, anchors = search
    tab_l, tab_c, tab_d, tab_gb = tables
    best_bits, last_avg, best_start = prefix
    (open_start, open_n, open_avg, open_sd, open_base, open_prev, open_norm, open_log2norm,
     open_far, open_mean_y, open_mean_ln, open_mean_inv, open_sd_y, open_sd_ln, open_size_l,
     open_size_h) = candidates
    inv_unit = 1.0 / unit
    period = max(1, max_history // 16)
    log2_m1 = math.log(max_u + 1.0) / LN2
    c_term = math.log(1.0 - 1.0 / (max_u + 2.0)) / LN2
    for i in range(start, stop):
        n_old = n_open
        run_size = run_n[i]
        run_mean = run_avg[i]
        run_size_f = float(run_size)
        run_moment = (run_sd[i] * run_sd[i]) * run_size_f
        # (1) Extend every open candidate by run i: merge_pair written out so that the
        # loop has no calls or branches and vectorises (IEEE division and square root are
        # exact per lane, so the values are those of the scalar merge).
        for u in range(n_old):
            n1f = float(open_n[u])
            total_avg = 0.0 + (open_avg[u] * n1f) / n1f
            moment = 0.0 + (open_sd[u] * open_sd[u]) * n1f
            delta = run_mean - total_avg
            n_new = open_n[u] + run_size
            nf = float(n_new)
            total_avg = total_avg + (delta * run_size_f) / nf
            moment = moment + run_moment
            moment = moment + (((delta * delta) * n1f) * run_size_f) / nf
            open_n[u] = n_new
            open_avg[u] = total_avg
            open_sd[u] = math.sqrt(moment / nf)
        # (2) Pruned mode: log-free lower bounds of every old candidate (see Notes). Old
        # candidates hold at least two samples; the first group's anchors make its mean
        # term the constant log2(M + 1).
        if prune:
            for u in range(n_old):
                kf = float(open_n[u])
                y = abs(open_avg[u] * inv_unit - open_prev[u]) + 1.0
                lower = open_base[u] + open_size_l[u] + open_log2norm[u]
                lower -= (open_mean_ln[u] + (y - open_mean_y[u]) * open_mean_inv[u]) * INV_LN2
                z = open_sd[u] * inv_unit + 1.0
                ln_low = max(open_sd_ln[u] + 1.0 - open_sd_y[u] / z, 0.0)
                lower += (2.0 * ln_low) * INV_LN2 + c_term
                lower += (kf * C0 + open_size_h[u] + ln_low * (kf - 2.0)) * INV_LN2
                scratch[u] = lower
        # (3) The new one-run group [i..i], coded after the best prefix of runs 0..i-1.
        slot = n_old
        base = best_bits[i]
        new_avg, new_sd = remerge(run_size, run_mean, run_sd[i])
        open_start[slot] = i
        open_n[slot] = run_size
        open_avg[slot] = new_avg
        open_sd[slot] = new_sd
        open_base[slot] = base
        if i > 0:
            prev_u = last_avg[i] / unit
            norm = mean_norm(prev_u, max_u)
            open_prev[slot] = prev_u
            open_norm[slot] = norm
            open_log2norm[slot] = math.log(norm) / LN2
            far = max(abs(low_u - prev_u), abs(max_u - prev_u))
            open_far[slot] = math.log(far + 1.0) / LN2
        else:
            open_prev[slot] = 0.0
            open_norm[slot] = 1.0
            open_log2norm[slot] = log2_m1
            open_far[slot] = 0.0
            open_mean_y[slot] = 1.0
            open_mean_ln[slot] = 0.0
            open_mean_inv[slot] = 0.0
        n_open = n_old + 1
        # (4) Scan: the new group is the initial record, then the old candidates in
        # increasing start order replace it only when strictly smaller (jumpavg's rule).
        record = np.inf
        record_slot = slot
        for t in range(n_open):
            u = slot if t == 0 else t - 1
            k = open_n[u]
            has_prev = open_start[u] > 0
            if prune and u != slot:
                lower = scratch[u]
                if lower > record + margin * (1.0 + abs(record)):
                    bound = lower - tab_l[k] + tab_gb[k] + c_term - open_far[u]
                    scratch[u] = bound - (c_term + 1.0)
                    continue
            bits, ln_mean, ln_s1, ln_s12 = group_bits(
                k,
                open_avg[u],
                open_sd[u],
                has_prev,
                open_prev[u],
                open_norm[u],
                unit,
                log2_m1,
                c_term,
                tab_l,
                tab_c,
                tab_d,
            )
            cand = open_base[u] + bits
            if u == slot:
                record = cand
            elif cand < record:
                record = cand
                record_slot = u
            if prune:
                a_re, s_re = remerge(k, open_avg[u], open_sd[u])
                if has_prev:
                    open_mean_y[u] = abs(a_re / unit - open_prev[u]) + 1.0
                    open_mean_inv[u] = 1.0 / open_mean_y[u]
                    open_mean_ln[u] = ln_mean + open_log2norm[u] * LN2
                if k >= 2:
                    open_sd_y[u] = s_re / unit + 1.0
                    open_sd_ln[u] = ln_s1
                else:  # s = 0: the exact anchor y0 = 1, ln y0 = 0
                    open_sd_y[u] = 1.0
                    open_sd_ln[u] = 0.0
                # size anchors: L(k) and h(k) = g(k) − k·c0 only grow with k
                open_size_l[u] = tab_l[k]
                open_size_h[u] = tab_c[k] + tab_d[k] - float(k) * C0 - 1e-9 - 1e-15 * float(k)
                bound = cand - tab_l[k] + tab_gb[k] + c_term
                if has_prev:
                    bound += (ln_mean / LN2 + open_log2norm[u]) - open_far[u]
                if k >= 2:
                    bound -= c_term + (ln_s12 - 2.0 * ln_s1) / LN2
                scratch[u] = bound
        best_bits[i + 1] = record
        best_start[i] = open_start[record_slot]
        winner_avg, _ = remerge(open_n[record_slot], open_avg[record_slot], 0.0)
        last_avg[i + 1] = winner_avg
        if prune:
            q_u = winner_avg / unit
            log2_zq = math.log(mean_norm(q_u, max_u)) / LN2
            limit = record + margin * (1.0 + abs(record)) + log2_zq
            for u in range(n_open):
                keep[u] = not scratch[u] > limit  # (a NaN score is kept)
            n_open = compact(keep, n_open, candidates)
        # (5) Bounded history (approximate mode): forget old starts, keeping the starts of
        # the last groups of the best partition of runs 0..i.
        if max_history > 0 and i % period == 0 and n_open > max_history:
            n_open = forget(i, max_history, anchors, best_start, keep, n_open, candidates)
    return n_open


@kernel
def compact(keep: np.ndarray, n_open: int, candidates: Candidates) -> int:
    """Keep the open candidates ``u`` with ``keep[u]`` (order preserved); return their count.

    Parameters are the candidates of :func:`mdl_advance` and a boolean mask ``keep`` over
    its first ``n_open`` entries.
    """
    (open_start, open_n, open_avg, open_sd, open_base, open_prev, open_norm, open_log2norm,
     open_far, open_mean_y, open_mean_ln, open_mean_inv, open_sd_y, open_sd_ln, open_size_l,
     open_size_h) = candidates
    kept = 0
    for u in range(n_open):
        if not keep[u]:
            continue
        if kept != u:
            open_start[kept] = open_start[u]
            open_n[kept] = open_n[u]
            open_avg[kept] = open_avg[u]
            open_sd[kept] = open_sd[u]
            open_base[kept] = open_base[u]
            open_prev[kept] = open_prev[u]
            open_norm[kept] = open_norm[u]
            open_log2norm[kept] = open_log2norm[u]
            open_far[kept] = open_far[u]
            open_mean_y[kept] = open_mean_y[u]
            open_mean_ln[kept] = open_mean_ln[u]
            open_mean_inv[kept] = open_mean_inv[u]
            open_sd_y[kept] = open_sd_y[u]
            open_sd_ln[kept] = open_sd_ln[u]
            open_size_l[kept] = open_size_l[u]
            open_size_h[kept] = open_size_h[u]
        kept += 1
    return kept


@kernel
def forget(
    i: int,
    max_history: int,
    anchors: int,
    best_start: np.ndarray,
    keep: np.ndarray,
    n_open: int,
    candidates: Candidates,
) -> int:
    """Bounded history: drop the candidates that start more than ``max_history`` runs
    before run ``i + 1``, except the starts of the last ``anchors`` groups of the best
    partition of runs ``0..i`` (its backtrack chain through ``best_start``).

    Returns the number of candidates kept (order preserved).
    """
    oldest = i + 1 - max_history
    # the chain of group starts, newest first (decreasing)
    chain = np.empty(max(anchors, 1), dtype=np.int64)
    n_chain = 0
    end = i + 1
    while end > 0 and n_chain < anchors:
        first = best_start[end - 1]
        chain[n_chain] = first
        n_chain += 1
        end = first
    pos = n_chain - 1  # smallest chain start first, as open_start increases
    open_start = candidates[0]
    for u in range(n_open):
        start = open_start[u]
        while pos >= 0 and chain[pos] < start:
            pos -= 1
        keep[u] = start >= oldest or (pos >= 0 and chain[pos] == start)
    return int(compact(keep, n_open, candidates))


@kernel(interpret="linear")
def describe_groups(
    runs: RunStats,
    prefix: Prefix,
    n_runs: int,
    unit: float,
    max_u: float,
    tables: CodeTables,
    memo: MergeMemo,
    out: GroupsOut,
) -> int:
    """Backtrack the best partition of runs ``0 .. n_runs − 1`` and describe its groups.

    A group's statistics are the new-group statistics of its first run followed by the
    pairwise merges of its other runs, in order (as the programme built them); its bits
    are coded after the previous mean ``P(start)`` of the best prefix before it.

    The merge chain of a group depends only on its runs, so it is memoised per start run:
    ``memo_end[j]`` (0: nothing held) is the end of the runs merged so far from run j and
    ``memo_n/avg/sd[j]`` their statistics. A group ``[j, end)`` with
    ``j < memo_end[j] <= end`` continues the chain from there instead of from run j; the
    floats are those of the full chain because it is the same sequence of merges.

    Parameters
    ----------
    runs : RunStats
        Per-run statistics.
    prefix : Prefix
        Its ``best_start`` (start run of the last group of the best partition of runs
        ``0..i``) and ``last_avg`` (``P`` per prefix length) are read.
    n_runs : int
        Runs to describe (``>= 1``).
    unit, max_u : float
        Resolution unit and ``M``.
    tables : CodeTables
        Per-size tables (``tab_gb`` unused).
    memo : MergeMemo
        Memo of the merge chains per start run (read and updated).
    out : GroupsOut
        Outputs in entries ``first_slot .. n_runs − 1`` (one per group, in time order):
        half-open run range, size, live mean and population stdev (not re-merged) and
        bits.

    Returns
    -------
    int
        ``first_slot``: the number of groups is ``n_runs − first_slot``.
    """
    run_n, run_avg, run_sd = runs
    _, last_avg, best_start = prefix
    tab_l, tab_c, tab_d, _ = tables
    memo_end, memo_n, memo_avg, memo_sd = memo
    out_start, out_end, out_n, out_avg, out_sd, out_bits = out
    # backtrack: the groups fill the last slots, ending at slot n_runs - 1
    first_slot = n_runs
    end = n_runs
    while end > 0:
        first_slot -= 1
        out_end[first_slot] = end
        end = best_start[end - 1]
        out_start[first_slot] = end
    log2_m1 = math.log(max_u + 1.0) / LN2
    c_term = math.log(1.0 - 1.0 / (max_u + 2.0)) / LN2
    for g in range(first_slot, n_runs):
        first = out_start[g]
        stop = out_end[g]
        if first < memo_end[first] <= stop:
            n = memo_n[first]
            avg = memo_avg[first]
            sd = memo_sd[first]
            r0 = memo_end[first]
        else:
            n = run_n[first]
            avg, sd = remerge(n, run_avg[first], run_sd[first])
            r0 = first + 1
        for r in range(r0, stop):
            n, avg, sd = merge_pair(n, avg, sd, run_n[r], run_avg[r], run_sd[r])
        memo_end[first] = stop
        memo_n[first] = n
        memo_avg[first] = avg
        memo_sd[first] = sd
        has_prev = first > 0
        prev_u = 0.0
        norm = 1.0
        if has_prev:
            prev_u = last_avg[first] / unit
            norm = mean_norm(prev_u, max_u)
        bits, _, _, _ = group_bits(
            n, avg, sd, has_prev, prev_u, norm, unit, log2_m1, c_term, tab_l, tab_c, tab_d
        )
        out_n[g] = n
        out_avg[g] = avg
        out_sd[g] = sd
        out_bits[g] = bits
    return first_slot


@kernel(interpret="linear")
def run_statistics(
    values: np.ndarray, offsets: np.ndarray, out_avg: np.ndarray, out_sd: np.ndarray
) -> None:
    """Mean and population stdev of each run by jumpavg's sequential merge.

    Parameters
    ----------
    values : ndarray of float64, shape (n_samples,)
        All samples, run after run.
    offsets : ndarray of int64, shape (n_runs + 1,)
        Run r holds ``values[offsets[r]:offsets[r+1]]`` (non-empty).
    out_avg, out_sd : ndarray of float64, shape (n_runs,)
        Outputs.
    """
    for r in range(offsets.shape[0] - 1):
        lo = offsets[r]
        hi = offsets[r + 1]
        total = 0
        total_avg = 0.0
        moment = 0.0
        for t in range(lo, hi):
            delta = values[t] - total_avg
            old = float(total)
            total += 1
            tf = float(total)
            total_avg = total_avg + delta / tf
            moment = moment + (((delta * delta) * old) * 1.0) / tf
        out_avg[r] = total_avg
        out_sd[r] = math.sqrt(moment / float(total))
