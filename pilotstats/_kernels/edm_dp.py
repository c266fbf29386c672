"""EDM kernels, part 2: the EDM-multi / EDM-percent dynamic programme.

Method: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); behaviour of the reference code
``twitter/BreakoutDetection`` as described in ``docs/algorithms/edm.md``. Implemented from the
paper and that description, not from the (GPL) reference sources.

Each DP column takes its medians from the linked list of :mod:`pilotstats._kernels.edm_list`
(O(1) amortised per (t, s) pair); :func:`edm_dp` runs the whole batch DP, serially or over
parallel lanes with identical results. Inputs are validated, C-contiguous float64 arrays;
nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel, prange
from pilotstats._kernels.edm_list import (
    HEAD,
    TAIL,
    find_predecessor,
    insertion_predecessors,
    list_median,
    padded_values,
    relink_track,
    unlink_track,
)

# ----------------------------------------------------------------------------------------
# EDM-multi / EDM-percent dynamic programme
# ----------------------------------------------------------------------------------------

# State bundles: plain tuples (numba types them on its fast dispatch path), unpacked once on
# entry to a kernel, so the loops index plain arrays.

#: ``(delta, penalty, degree, percent_mode)``: minimum segment length (``>= 2``), β
#: (EDM-multi) or ``percent`` (EDM-percent) (``>= 0``), penalty degree 0, 1 or 2 (the shape
#: G), and False for EDM-multi (baseline −3, additive penalty β·G) or True for EDM-percent
#: (baseline 0, relative-gain test).
EdmParams = tuple[int, float, int, bool]

#: ``(F, prev, number, LM)``: the DP state per column (float64, int64, int64, float64; shape
#: (capacity + 1,)), with ``LM[t] = med(z[prev[t]:t])`` for final columns ``t >= delta``.
DpState = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

#: ``(nxt, prv)``: the doubly linked sorted list (int64, shape (capacity + 2,)) of
#: :mod:`pilotstats._kernels.edm_list`.
Links = tuple[np.ndarray, np.ndarray]


@kernel
def penalty_factor(degree: int, k: int) -> float:
    """Penalty shape G(k): 0 (degree 0), 1 (degree 1) or 2k + 1 (degree 2)."""
    if degree == 0:
        return 0.0
    if degree == 1:
        return 1.0
    return 2.0 * k + 1.0


@kernel(interpret="quadratic")
def edm_columns(
    zz: np.ndarray,
    params: EdmParams,
    dp_state: DpState,
    tmp: np.ndarray,
    links: Links,
    state: np.ndarray,
    pred: np.ndarray,
    s_begin: int,
    s_end: int,
) -> None:
    """Compute DP columns ``s = s_begin .. s_end - 1`` of EDM-multi or EDM-percent in place.

    Parameters
    ----------
    zz : ndarray of float64, shape (capacity + 2,)
        Padded (scaled) values; sample ``i`` is node ``i + 2``.
    params : EdmParams
        ``(delta, penalty, degree, percent_mode)``.
    dp_state : DpState
        ``(F, prev, number, LM)``: entries ``< s_begin`` must be final, entries
        ``>= s_begin`` must hold the initial values (baseline, 0, 0); ``LM`` is filled here.
    tmp : ndarray of float64, shape (capacity + 1,)
        Scratch space for the right medians of one column.
    links : Links
        ``(nxt, prv)``: linked list holding samples ``0 .. s_begin - 2`` in sorted order.
    state : ndarray of int64, shape (2,)
        ``[median node, count]`` of the list; updated.
    pred : ndarray of int64, shape (capacity + 2,)
        Insertion predecessors (:func:`insertion_predecessors`); a negative entry means
        "find it by walking the list" (appends).
    s_begin, s_end : int
        Columns to compute; ``1 <= s_begin``. Column ``s`` inserts sample ``s - 1``.

    Notes
    -----
    Column s: for t in [δ, s − δ], with a = prev[t],
    ``w = (t − a)(s − t) / (s − a)²`` and
    ``cand(t) = (F[t] + w·(LM[t] − med(z[t:s]))²) − β·G(number[t])`` (EDM-multi; EDM-percent
    drops the β term). The smallest t with the largest cand wins if cand exceeds the
    baseline (strict ">", ascending t). EDM-percent then applies the relative-gain test
    ``F[s] − F[t*] >= (percent·G(number[t*]))·F[t*]`` or inherits column t*.
    The right medians come from deleting samples 0, 1, … from the sorted list of ``z[0:s]``
    (O(1) each), after which the deletions are undone. When two consecutive columns are
    requested, one sweep serves both (:func:`dp_column_pair`). Cost O(s) per column.
    """
    delta = params[0]
    nxt, prv = links
    m = state[0]
    c = state[1]
    tmp2 = np.empty(tmp.shape[0])
    s = s_begin
    while s < s_end:
        m = list_insert(zz, nxt, prv, pred, s + 1, m, c)
        c += 1
        if s >= 2 * delta and s + 1 < s_end:
            dp_column_pair(zz, params, dp_state, tmp, tmp2, links, m, c, s)
            m = list_insert(zz, nxt, prv, pred, s + 2, m, c)
            c += 1
            s += 2
        else:
            dp_column(zz, params, dp_state, tmp, links, m, c, s)
            s += 1
    state[0] = m
    state[1] = c


@kernel
def list_insert(
    zz: np.ndarray, nxt: np.ndarray, prv: np.ndarray, pred: np.ndarray, x: int, m: int, c: int
) -> int:
    """Insert node ``x`` after ``pred[x]`` (or after the node found by walking when
    ``pred[x] < 0``) into a list of ``c`` nodes; return the new lower-median node."""
    p = pred[x]
    if p < 0:
        p = find_predecessor(zz, nxt, prv, x, m, c)
    prv[x] = p
    nxt[x] = nxt[p]
    return int(relink_track(zz, nxt, prv, x, m, c))


@kernel
def dp_column(
    zz: np.ndarray,
    params: EdmParams,
    dp_state: DpState,
    tmp: np.ndarray,
    links: Links,
    m: int,
    c: int,
    s: int,
) -> None:
    """Compute DP column ``s`` (the list holds ``z[0:s]``, ``c = s`` nodes, median ``m``).

    Reads only columns ``t <= s - delta`` and writes ``F[s]``, ``prev[s]``, ``number[s]``,
    ``LM[s]``; the list is restored on return. See :func:`edm_columns`.
    """
    delta = params[0]
    LM = dp_state[3]
    nxt, prv = links
    if s < 2 * delta:
        if s >= delta:
            LM[s] = list_median(zz, nxt, m, c)
        return
    full_median = list_median(zz, nxt, m, c)
    right_medians(zz, nxt, prv, m, c, 0, delta, s - delta, tmp)
    dp_finish(params, dp_state, tmp, s, full_median)


@kernel
def dp_finish(
    params: EdmParams, dp_state: DpState, tmp: np.ndarray, s: int, full_median: float
) -> None:
    """DP recurrence of column ``s`` given its right medians ``tmp[t] = med(z[t:s])`` for
    ``t`` in ``[delta, s - delta]`` and ``full_median = med(z[0:s])``."""
    delta, penalty, degree, percent_mode = params
    F, prev, number, LM = dp_state
    baseline = 0.0 if percent_mode else -3.0
    best = baseline
    best_t = 0
    sf = float(s)
    for t in range(delta, s - delta + 1):
        cand = candidate(
            penalty, degree, percent_mode, F[t], prev[t], number[t], LM[t], t, sf, tmp[t]
        )
        if cand > best:
            best = cand
            best_t = t
    dp_commit(params, dp_state, best, best_t, s)
    a = prev[s]
    LM[s] = full_median if a == 0 else tmp[a]


@kernel
def right_medians(
    zz: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
    m: int,
    c: int,
    lo: int,
    first: int,
    last: int,
    tmp: np.ndarray,
) -> None:
    """``tmp[t] = med(z[t:s])`` for ``t`` in ``[first, last]`` by one deletion sweep.

    The list holds ``z[lo:s]`` (``c`` nodes, lower median ``m``) with ``lo <= first <= last
    < s``; samples ``lo, lo + 1, ...`` are unlinked in turn (O(1) each) and relinked in
    reverse order before returning, so the list is unchanged.
    """
    mm = m
    cc = c
    for i in range(lo, first):
        mm = unlink_track(zz, nxt, prv, i + 2, mm, cc)
        cc -= 1
    for t in range(first, last + 1):
        tmp[t] = list_median(zz, nxt, mm, cc)
        if t < last:
            mm = unlink_track(zz, nxt, prv, t + 2, mm, cc)
            cc -= 1
    for i in range(last - 1, lo - 1, -1):
        node = i + 2
        nxt[prv[node]] = node
        prv[nxt[node]] = node


@kernel
def candidate(
    penalty: float,
    degree: int,
    percent_mode: bool,
    f: float,
    a: int,
    count: int,
    left: float,
    t: int,
    sf: float,
    right: float,
) -> float:
    """``cand(t)`` of column ``sf`` from ``f = F[t]``, ``a = prev[t]``,
    ``count = number[t]``, ``left = LM[t]`` and ``right = med(z[t:s])``:
    ``(F[t] + w·(LM[t] − right)²) − β·G(number[t])`` (no β term in EDM-percent), in the
    reference's order of operations. Scalars only: array arguments would cost reference
    counting on every call in the hot loops."""
    af = float(a)
    tf = float(t)
    w = ((tf - af) * (sf - tf)) / ((sf - af) * (sf - af))
    d = left - right
    cand = f + w * (d * d)
    return float(cand - penalty_term(penalty, degree, percent_mode, count))


@kernel
def penalty_term(penalty: float, degree: int, percent_mode: bool, k: int) -> float:
    """``β·G(k)``, what a candidate of EDM-multi loses per change (0 in EDM-percent)."""
    if percent_mode:
        return 0.0
    return float(penalty * penalty_factor(degree, k))


@kernel
def dp_commit(params: EdmParams, dp_state: DpState, best: float, best_t: int, s: int) -> None:
    """Write column ``s`` from its best candidate (``best_t = 0``: none beat the baseline),
    with EDM-percent's relative-gain test (``LM`` is not written)."""
    _, penalty, degree, percent_mode = params
    F, prev, number, _ = dp_state
    if best_t != 0:
        F[s] = best
        prev[s] = best_t
        number[s] = number[best_t] + 1
        if percent_mode:
            ts = best_t
            if F[s] - F[ts] < (penalty * penalty_factor(degree, number[ts])) * F[ts]:
                F[s] = F[ts]
                number[s] = number[ts]
                prev[s] = prev[ts]
    else:
        F[s] = 0.0 if percent_mode else -3.0
        prev[s] = 0
        number[s] = 0


@kernel
def virtual_median(
    zz: np.ndarray, nxt: np.ndarray, prv: np.ndarray, m: int, c: int, v: float
) -> float:
    """Exact median of the ``c >= 1`` listed values together with one extra value ``v``.

    With L the sorted list and k the position of its lower median ``m``, the union's order
    statistic at position p is ``min(max(L[p - 1], v), L[p])`` (sentinels ±inf), so only the
    neighbours of ``m`` are needed: O(1).
    """
    hi = zz[nxt[m]]
    mid = zz[m]
    if c & 1:
        low = zz[prv[m]]
        first = min(max(low, v), mid)
        second = min(max(mid, v), hi)
        return float((first + second) / 2.0)
    return float(min(max(mid, v), hi))


@kernel
def dp_column_pair(
    zz: np.ndarray,
    params: EdmParams,
    dp_state: DpState,
    tmp: np.ndarray,
    tmp2: np.ndarray,
    links: Links,
    m: int,
    c: int,
    s: int,
) -> None:
    """Compute DP columns ``s`` and ``s + 1`` with one deletion sweep (``s >= 2·delta``).

    The list holds ``z[0:s]``; the medians of ``z[t:s + 1]`` come from those of ``z[t:s]``
    and the not yet listed value ``z[s]`` (:func:`virtual_median`). Column ``s + 1`` reads
    only columns ``<= s + 1 - delta < s``, so it does not depend on column ``s``. Results are
    those of two calls of :func:`dp_column`; the list is restored on return.
    """
    delta = params[0]
    nxt, prv = links
    v = zz[s + 2]
    full_a = list_median(zz, nxt, m, c)
    full_b = virtual_median(zz, nxt, prv, m, c, v)
    mm = m
    cc = c
    for i in range(delta):
        mm = unlink_track(zz, nxt, prv, i + 2, mm, cc)
        cc -= 1
    last = s - delta
    for t in range(delta, last + 1):
        tmp[t] = list_median(zz, nxt, mm, cc)
        tmp2[t] = virtual_median(zz, nxt, prv, mm, cc, v)
        mm = unlink_track(zz, nxt, prv, t + 2, mm, cc)
        cc -= 1
    tmp2[last + 1] = virtual_median(zz, nxt, prv, mm, cc, v)
    for i in range(last, -1, -1):
        node = i + 2
        nxt[prv[node]] = node
        prv[nxt[node]] = node
    dp_finish(params, dp_state, tmp, s, full_a)
    dp_finish(params, dp_state, tmp2, s + 1, full_b)


@kernel(parallel=True)
def edm_columns_parallel(
    zz: np.ndarray,
    params: EdmParams,
    dp_state: DpState,
    links: Links,
    state: np.ndarray,
    pred: np.ndarray,
    s_begin: int,
    s_end: int,
    lanes: int,
) -> None:
    """Parallel twin of :func:`edm_columns` with identical results.

    Column s reads only columns ``t <= s - delta``, so the ``delta`` columns of a block
    ``[b, b + delta)`` are independent. The block is cut into work units as the serial
    kernel cuts it: a pair of columns ``(s, s + 1)`` served by one deletion sweep
    (:func:`dp_column_pair`, when ``s >= 2·delta``) or a single column
    (:func:`dp_column`). Each of ``lanes`` workers keeps its own copy of the sorted list
    and takes every ``lanes``-th unit; the arithmetic per column is that of the serial
    kernel, so the output equals it bit for bit. On return the shared list
    ``nxt``/``prv``/``state`` holds samples ``0 .. s_end - 2``, as after
    :func:`edm_columns`.

    Parameters
    ----------
    zz, params, dp_state, links, state, pred
        As in :func:`edm_columns`.
    s_begin, s_end : int
        Columns to compute.
    lanes : int
        Number of workers (list copies), >= 1.
    """
    delta = params[0]
    F = dp_state[0]
    nxt, prv = links
    size = nxt.shape[0]
    lane_nxt = np.empty((lanes, size), dtype=nxt.dtype)
    lane_prv = np.empty((lanes, size), dtype=prv.dtype)
    lane_tmp = np.zeros((lanes, F.shape[0]))
    lane_tmp2 = np.zeros((lanes, F.shape[0]))
    lane_m = np.empty(lanes, dtype=np.int64)
    lane_c = np.empty(lanes, dtype=np.int64)
    unit_s = np.empty(delta + 1, dtype=np.int64)
    unit_two = np.zeros(delta + 1, dtype=np.bool_)
    for j in range(lanes):
        lane_nxt[j, :] = nxt
        lane_prv[j, :] = prv
        lane_m[j] = state[0]
        lane_c[j] = state[1]
    block = s_begin
    while block < s_end:
        stop = min(block + delta, s_end)
        units = 0
        s = block
        while s < stop:
            two = s >= 2 * delta and s + 1 < stop
            unit_s[units] = s
            unit_two[units] = two
            s += 2 if two else 1
            units += 1
        for j in prange(lanes):
            lnxt = lane_nxt[j]
            lprv = lane_prv[j]
            m = lane_m[j]
            c = lane_c[j]
            for u in range(j, units, lanes):
                col = unit_s[u]
                while c < col:  # insert samples up to col - 1
                    m = list_insert(zz, lnxt, lprv, pred, c + 2, m, c)
                    c += 1
                if unit_two[u]:
                    dp_column_pair(
                        zz, params, dp_state, lane_tmp[j], lane_tmp2[j], (lnxt, lprv), m, c,
                        col,
                    )
                else:
                    dp_column(zz, params, dp_state, lane_tmp[j], (lnxt, lprv), m, c, col)
            lane_m[j] = m
            lane_c[j] = c
        block = stop
    m = lane_m[0]
    c = lane_c[0]
    lnxt = lane_nxt[0]
    lprv = lane_prv[0]
    while c < s_end - 1:
        m = list_insert(zz, lnxt, lprv, pred, c + 2, m, c)
        c += 1
    # an element loop, not ``nxt[:] = lnxt``: with parallel=True, numba 0.68 loses a slice
    # store into an array unpacked from a tuple argument
    for k in range(size):
        nxt[k] = lnxt[k]
        prv[k] = lprv[k]
    state[0] = m
    state[1] = c


def backtrack(prev: np.ndarray, n: int) -> np.ndarray:
    """Change points from the ``prev`` array, ascending (int64).

    Plain Python, not a kernel: the walk visits one entry per segment.
    """
    points: list[int] = []
    at = int(n)
    while at != 0:
        at = int(prev[at])
        if at != 0:
            points.append(at)
    return np.array(points[::-1], dtype=np.int64)


def edm_dp(
    z: np.ndarray,
    delta: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
    lanes: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run the whole EDM-multi/-percent DP on ``z`` (batch).

    Parameters
    ----------
    z : ndarray of float64, shape (n,)
        Preprocessed (scaled or raw) values.
    delta, penalty, degree, percent_mode
        As in :func:`edm_columns`.
    lanes : int, default 1
        1: serial kernel; more: :func:`edm_columns_parallel` with that many workers
        (identical results).

    Returns
    -------
    F : ndarray of float64, shape (n + 1,)
    prev, number : ndarray of int64, shape (n + 1,)

    Notes
    -----
    O(n²) time (O(1) amortised per (t, s) pair), O(n) memory.
    """
    n = z.shape[0]
    F = np.full(n + 1, 0.0 if percent_mode else -3.0)
    prev = np.zeros(n + 1, dtype=np.int64)
    number = np.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return F, prev, number
    zz = padded_values(z, n)
    order = np.argsort(z, kind="stable").astype(np.int64)
    pred = insertion_predecessors(zz, order, n)
    LM = np.zeros(n + 1)
    tmp = np.zeros(n + 1)
    nxt = np.zeros(n + 2, dtype=np.int64)
    prv = np.zeros(n + 2, dtype=np.int64)
    nxt[HEAD] = TAIL
    prv[TAIL] = HEAD
    state = np.zeros(2, dtype=np.int64)
    params = (int(delta), float(penalty), int(degree), bool(percent_mode))
    if lanes > 1:
        edm_columns_parallel(zz, params, (F, prev, number, LM), (nxt, prv), state, pred, 1,
                             n + 1, lanes)
    else:
        edm_columns(zz, params, (F, prev, number, LM), tmp, (nxt, prv), state, pred, 1, n + 1)
    return F, prev, number
