"""Kernels of E-Divisive with Medians (EDM): EDM-multi, EDM-percent, EDM-X and EDM-tail.

Method: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); behaviour of the reference code
``twitter/BreakoutDetection`` as described in ``docs/algorithms/edm.md``. Implemented from the
specification, not from the (GPL) reference sources.

Data structures
---------------
**Sorted doubly linked list with a median pointer** (EDM-multi/-percent, EDM-X). The samples
present in the list are linked in the total order "value, then index" (ties broken by index,
so every key is unique). Nodes are ``index + 2``; node 0 is the head sentinel, node 1 the tail
sentinel, and the padded value array ``zz`` holds ``-inf`` and ``+inf`` for them. A pointer
``m`` to the lower median node (position ``(c - 1) // 2`` of ``c`` nodes) is moved by at most
one step per insertion or deletion, so the exact median (middle value, or the halved sum of
the two middle values) costs O(1) after each update. Deleted nodes keep their links, so a
sequence of deletions can be undone in reverse order in O(1) each ("dancing links"). This
makes every median ``med(z[t:s])`` of a DP column cost O(1) amortised: O(n²) time in total
and O(n) memory, instead of the reference's O(n² log n) with paired multisets. One sweep
serves two columns: the medians of ``z[t:s + 1]`` follow in O(1) from the neighbours of the
median of ``z[t:s]`` and the value ``z[s]``.

**Interval tree** (EDM-tail, spec §5.3): a complete binary tree of counters over ``[0, 1]``
with ``2**depth`` leaves, stored as a 1-based heap in an int64 array.

Inputs are validated, C-contiguous float64 arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats._kernels._jit import kernel, prange

HEAD = 0
TAIL = 1


# ----------------------------------------------------------------------------------------
# Sorted linked list with median pointer
# ----------------------------------------------------------------------------------------


@kernel
def padded_values(z: np.ndarray, capacity: int) -> np.ndarray:
    """Return ``zz`` of length ``capacity + 2``: ``zz[0] = -inf``, ``zz[1] = +inf``,
    ``zz[i + 2] = z[i]`` (remaining entries 0).

    Parameters
    ----------
    z : ndarray of float64, shape (n,)
    capacity : int
        Number of sample slots, ``capacity >= n``.
    """
    zz = np.zeros(capacity + 2)
    zz[0] = -np.inf
    zz[1] = np.inf
    for i in range(z.shape[0]):
        zz[i + 2] = z[i]
    return zz


@kernel
def key_less(zz: np.ndarray, a: int, b: int) -> bool:
    """True when node ``a`` precedes node ``b`` in the order (value, then index)."""
    va = zz[a]
    vb = zz[b]
    # bitwise (not short-circuit) logic: branch-free in the compiled kernel
    return bool((va < vb) | ((va == vb) & (a < b)))


@kernel
def list_median(zz: np.ndarray, nxt: np.ndarray, m: int, c: int) -> float:
    """Exact median of the ``c >= 1`` listed values given the lower-median node ``m``.

    Odd ``c``: the middle value; even ``c``: ``(lower + upper) / 2`` (spec §3.5).
    """
    if c & 1:
        return float(zz[m])
    return float((zz[m] + zz[nxt[m]]) / 2.0)


@kernel
def unlink_track(zz: np.ndarray, nxt: np.ndarray, prv: np.ndarray, x: int, m: int, c: int) -> int:
    """Unlink node ``x`` from a list of ``c >= 2`` nodes; return the new lower-median node.

    ``x`` keeps its own links so the deletion can be undone by :func:`relink_track`.
    """
    p = prv[x]
    q = nxt[x]
    less = key_less(zz, x, m)
    if c & 1:
        # c odd: the lower median moves from position k to k - 1
        step = m if less else prv[m]
        m = p if x == m else step
    else:
        # c even: the lower median keeps position k
        step = nxt[m] if less else m
        m = q if x == m else step
    nxt[p] = q
    prv[q] = p
    return int(m)


@kernel
def relink_track(zz: np.ndarray, nxt: np.ndarray, prv: np.ndarray, x: int, m: int, c: int) -> int:
    """Link node ``x`` between its stored neighbours (list of ``c`` nodes before the
    insertion); return the new lower-median node."""
    nxt[prv[x]] = x
    prv[nxt[x]] = x
    if c == 0:
        return x
    if c & 1:
        # c odd: the lower median keeps position k
        if key_less(zz, x, m):
            m = prv[m]
    else:
        # c even: the lower median moves from position k to k + 1
        if not key_less(zz, x, m):
            m = nxt[m]
    return m


@kernel
def find_predecessor(
    zz: np.ndarray, nxt: np.ndarray, prv: np.ndarray, x: int, m: int, c: int
) -> int:
    """Node after which ``x`` belongs in the list (walk from the median node ``m``).

    O(c) worst case; used when values arrive one at a time (:class:`EdmStream`).
    """
    if c == 0:
        return HEAD
    j = m
    if key_less(zz, j, x):
        while nxt[j] != TAIL and key_less(zz, nxt[j], x):
            j = nxt[j]
        return int(j)
    j = prv[j]
    while j != HEAD and key_less(zz, x, j):
        j = prv[j]
    return int(j)


@kernel
def insertion_predecessors(zz: np.ndarray, order: np.ndarray, n: int) -> np.ndarray:
    """Predecessor of every node at the moment it is inserted in index order.

    Parameters
    ----------
    zz : ndarray of float64
        Padded values (:func:`padded_values`).
    order : ndarray of int64, shape (n,)
        Indices sorting the samples by (value, index) (a stable argsort).
    n : int
        Number of samples.

    Returns
    -------
    ndarray of int64, shape (n + 2,)
        ``pred[i + 2]``: the node preceding sample ``i`` in the sorted list of
        ``z[0:i + 1]``. Obtained in O(n) by linking all samples and deleting them in reverse
        index order: at its deletion a node's left neighbour is exactly its predecessor.
    """
    size = zz.shape[0]
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
    pred = np.full(size, -1, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        node = i + 2
        p = prv[node]
        q = nxt[node]
        pred[node] = p
        nxt[p] = q
        prv[q] = p
    return pred


# ----------------------------------------------------------------------------------------
# EDM-multi / EDM-percent dynamic programme (spec §3, §4)
# ----------------------------------------------------------------------------------------


@kernel
def penalty_factor(degree: int, k: int) -> float:
    """G(k) of spec §3.3: 0 (degree 0), 1 (degree 1) or 2k + 1 (degree 2)."""
    if degree == 0:
        return 0.0
    if degree == 1:
        return 1.0
    return 2.0 * k + 1.0


@kernel
def edm_columns(
    zz: np.ndarray,
    delta: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
    F: np.ndarray,
    prev: np.ndarray,
    number: np.ndarray,
    LM: np.ndarray,
    tmp: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
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
    delta : int
        Minimum segment length, ``delta >= 2``.
    penalty : float
        β (EDM-multi) or ``percent`` (EDM-percent), ``>= 0``.
    degree : int
        Penalty degree 0, 1 or 2 (G of spec §3.3).
    percent_mode : bool
        False: EDM-multi (baseline −3, additive penalty β·G). True: EDM-percent (baseline 0,
        relative-gain test of spec §4.1).
    F, prev, number : ndarray, shape (capacity + 1,)
        DP state (float64, int64, int64); entries ``< s_begin`` must be final, entries
        ``>= s_begin`` must hold the initial values (baseline, 0, 0).
    LM : ndarray of float64, shape (capacity + 1,)
        ``LM[t] = med(z[prev[t]:t])`` for final columns ``t >= delta`` (filled here).
    tmp : ndarray of float64, shape (capacity + 1,)
        Scratch space for the right medians of one column.
    nxt, prv : ndarray of int64, shape (capacity + 2,)
        Linked list holding samples ``0 .. s_begin - 2`` in sorted order.
    state : ndarray of int64, shape (2,)
        ``[median node, count]`` of the list; updated.
    pred : ndarray of int64, shape (capacity + 2,)
        Insertion predecessors (:func:`insertion_predecessors`); a negative entry means
        "find it by walking the list" (appends).
    s_begin, s_end : int
        Columns to compute; ``1 <= s_begin``. Column ``s`` inserts sample ``s - 1``.

    Notes
    -----
    Column s (spec §3.2): for t in [δ, s − δ], with a = prev[t],
    ``w = (t − a)(s − t) / (s − a)²`` and
    ``cand(t) = (F[t] + w·(LM[t] − med(z[t:s]))²) − β·G(number[t])`` (EDM-multi; EDM-percent
    drops the β term). The smallest t with the largest cand wins if cand exceeds the
    baseline (strict ">", ascending t). EDM-percent then applies the relative-gain test
    ``F[s] − F[t*] >= (percent·G(number[t*]))·F[t*]`` or inherits column t* (spec §4.1).
    The right medians come from deleting samples 0, 1, … from the sorted list of ``z[0:s]``
    (O(1) each), after which the deletions are undone. When two consecutive columns are
    requested, one sweep serves both (:func:`dp_column_pair`). Cost O(s) per column.
    """
    m = state[0]
    c = state[1]
    tmp2 = np.empty(tmp.shape[0])
    s = s_begin
    while s < s_end:
        m = list_insert(zz, nxt, prv, pred, s + 1, m, c)
        c += 1
        if s >= 2 * delta and s + 1 < s_end:
            dp_column_pair(
                zz,
                delta,
                penalty,
                degree,
                percent_mode,
                F,
                prev,
                number,
                LM,
                tmp,
                tmp2,
                nxt,
                prv,
                m,
                c,
                s,
            )
            m = list_insert(zz, nxt, prv, pred, s + 2, m, c)
            c += 1
            s += 2
        else:
            dp_column(
                zz,
                delta,
                penalty,
                degree,
                percent_mode,
                F,
                prev,
                number,
                LM,
                tmp,
                nxt,
                prv,
                m,
                c,
                s,
            )
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
    delta: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
    F: np.ndarray,
    prev: np.ndarray,
    number: np.ndarray,
    LM: np.ndarray,
    tmp: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
    m: int,
    c: int,
    s: int,
) -> None:
    """Compute DP column ``s`` (the list holds ``z[0:s]``, ``c = s`` nodes, median ``m``).

    Reads only columns ``t <= s - delta`` and writes ``F[s]``, ``prev[s]``, ``number[s]``,
    ``LM[s]``; the list is restored on return. See :func:`edm_columns`.
    """
    if s < 2 * delta:
        if s >= delta:
            LM[s] = list_median(zz, nxt, m, c)
        return
    full_median = list_median(zz, nxt, m, c)
    mm = m
    cc = c
    for i in range(delta):
        mm = unlink_track(zz, nxt, prv, i + 2, mm, cc)
        cc -= 1
    last = s - delta
    for t in range(delta, last + 1):
        tmp[t] = list_median(zz, nxt, mm, cc)
        if t < last:
            mm = unlink_track(zz, nxt, prv, t + 2, mm, cc)
            cc -= 1
    for i in range(last - 1, -1, -1):
        node = i + 2
        nxt[prv[node]] = node
        prv[nxt[node]] = node
    dp_finish(penalty, degree, percent_mode, F, prev, number, LM, tmp, delta, s, full_median)


@kernel
def dp_finish(
    penalty: float,
    degree: int,
    percent_mode: bool,
    F: np.ndarray,
    prev: np.ndarray,
    number: np.ndarray,
    LM: np.ndarray,
    tmp: np.ndarray,
    delta: int,
    s: int,
    full_median: float,
) -> None:
    """DP recurrence of column ``s`` given its right medians ``tmp[t] = med(z[t:s])`` for
    ``t`` in ``[delta, s - delta]`` and ``full_median = med(z[0:s])`` (spec §3.2, §4.1)."""
    baseline = 0.0 if percent_mode else -3.0
    last = s - delta
    best = baseline
    best_t = 0
    sf = float(s)
    for t in range(delta, last + 1):
        a = prev[t]
        af = float(a)
        tf = float(t)
        w = ((tf - af) * (sf - tf)) / ((sf - af) * (sf - af))
        d = LM[t] - tmp[t]
        cand = F[t] + w * (d * d)
        if not percent_mode:
            cand = cand - penalty * penalty_factor(degree, number[t])
        if cand > best:
            best = cand
            best_t = t
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
        F[s] = baseline
        prev[s] = 0
        number[s] = 0
    a = prev[s]
    LM[s] = full_median if a == 0 else tmp[a]


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
    delta: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
    F: np.ndarray,
    prev: np.ndarray,
    number: np.ndarray,
    LM: np.ndarray,
    tmp: np.ndarray,
    tmp2: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
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
    dp_finish(penalty, degree, percent_mode, F, prev, number, LM, tmp, delta, s, full_a)
    dp_finish(penalty, degree, percent_mode, F, prev, number, LM, tmp2, delta, s + 1, full_b)


@kernel(parallel=True)  # type: ignore[untyped-decorator]
def edm_columns_parallel(
    zz: np.ndarray,
    delta: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
    F: np.ndarray,
    prev: np.ndarray,
    number: np.ndarray,
    LM: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
    state: np.ndarray,
    pred: np.ndarray,
    s_begin: int,
    s_end: int,
    lanes: int,
) -> None:
    """Parallel twin of :func:`edm_columns` with identical results (spec §6.3).

    Column s reads only columns ``t <= s - delta``, so the ``delta`` columns of a block
    ``[b, b + delta)`` are independent. Each of ``lanes`` workers keeps its own copy of the
    sorted list and computes every ``lanes``-th column of each block; the arithmetic per
    column is that of :func:`dp_column`, so the output equals the serial kernel bit for bit.
    On return the shared list ``nxt``/``prv``/``state`` holds samples ``0 .. s_end - 2``,
    as after :func:`edm_columns`.

    Parameters
    ----------
    zz, delta, penalty, degree, percent_mode, F, prev, number, LM, nxt, prv, state, pred
        As in :func:`edm_columns`.
    s_begin, s_end : int
        Columns to compute.
    lanes : int
        Number of workers (list copies), >= 1.
    """
    size = nxt.shape[0]
    lane_nxt = np.empty((lanes, size), dtype=nxt.dtype)
    lane_prv = np.empty((lanes, size), dtype=prv.dtype)
    lane_tmp = np.zeros((lanes, F.shape[0]))
    lane_m = np.empty(lanes, dtype=np.int64)
    lane_c = np.empty(lanes, dtype=np.int64)
    for j in range(lanes):
        lane_nxt[j, :] = nxt
        lane_prv[j, :] = prv
        lane_m[j] = state[0]
        lane_c[j] = state[1]
    block = s_begin
    while block < s_end:
        stop = min(block + delta, s_end)
        for j in prange(lanes):
            lnxt = lane_nxt[j]
            lprv = lane_prv[j]
            m = lane_m[j]
            c = lane_c[j]
            for s in range(block + j, stop, lanes):
                while c < s:  # insert samples up to s - 1
                    m = list_insert(zz, lnxt, lprv, pred, c + 2, m, c)
                    c += 1
                dp_column(
                    zz,
                    delta,
                    penalty,
                    degree,
                    percent_mode,
                    F,
                    prev,
                    number,
                    LM,
                    lane_tmp[j],
                    lnxt,
                    lprv,
                    m,
                    c,
                    s,
                )
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
    nxt[:] = lnxt
    prv[:] = lprv
    state[0] = m
    state[1] = c


@kernel
def backtrack(prev: np.ndarray, n: int) -> np.ndarray:
    """Change points from the ``prev`` array (spec §3.4), ascending."""
    count = 0
    at = n
    while at != 0:
        if prev[at] != 0:
            count += 1
        at = prev[at]
    out = np.empty(count, dtype=np.int64)
    at = n
    j = count - 1
    while at != 0:
        if prev[at] != 0:
            out[j] = prev[at]
            j -= 1
        at = prev[at]
    return out


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
    if lanes > 1:
        edm_columns_parallel(
            zz,
            delta,
            penalty,
            degree,
            percent_mode,
            F,
            prev,
            number,
            LM,
            nxt,
            prv,
            state,
            pred,
            1,
            n + 1,
            lanes,
        )
    else:
        edm_columns(
            zz,
            delta,
            penalty,
            degree,
            percent_mode,
            F,
            prev,
            number,
            LM,
            tmp,
            nxt,
            prv,
            state,
            pred,
            1,
            n + 1,
        )
    return F, prev, number


# ----------------------------------------------------------------------------------------
# EDM-X (spec §5.1)
# ----------------------------------------------------------------------------------------


@kernel
def edmx_search(zz: np.ndarray, order: np.ndarray, n: int, delta: int) -> tuple[int, float]:
    """EDM-X arg-max over τ ∈ [δ, n − δ], κ ∈ [τ + δ, n] (spec §5.1).

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
# Interval tree and EDM-tail (spec §5.2, §5.3, §5.5)
# ----------------------------------------------------------------------------------------


def tree_depth(n: int) -> int:
    """Depth ``B = max(ceil(log2 n), 10)`` of the interval tree (spec §5.3)."""
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
    """Approximate ``q``-quantile of the values in the tree (spec §5.3).

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
def edm_tail_search(
    z: np.ndarray, delta: int, depth: int, quantile: float, alpha: float
) -> tuple[int, float]:
    """EDM-tail arg-max with exact window sets and the paper-faithful tree (spec §5.5).

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
    ``|z_k − z_{k−1}|`` for ``τ + δ <= k < κ``. Window moves cost O(δ·depth); the κ sweep
    alternates direction so that B changes by one difference per step: O(n²·depth) time,
    O(2**depth) memory.
    """
    n = z.shape[0]
    size = 1 << (depth + 1)
    tree_a = np.zeros(size, dtype=np.int64)
    tree_ab = np.zeros(size, dtype=np.int64)
    tree_b = np.zeros(size, dtype=np.int64)
    tau = delta
    for i in range(0, delta):
        for j in range(i + 1, delta):
            tree_update(tree_a, depth, abs(z[i] - z[j]), 1)
            tree_update(tree_b, depth, abs(z[delta + i] - z[delta + j]), 1)
        for j in range(delta, 2 * delta):
            tree_update(tree_ab, depth, abs(z[i] - z[j]), 1)
    best = -3.0
    best_tau = 0
    forward = True
    while True:
        qa = tree_quantile(tree_a, depth, quantile) ** alpha
        qab = tree_quantile(tree_ab, depth, quantile) ** alpha
        tau_best = -3.0
        if forward:
            for kappa in range(tau + delta, n + 1):
                if kappa > tau + delta:
                    tree_update(tree_b, depth, abs(z[kappa - 1] - z[kappa - 2]), 1)
                qb = tree_quantile(tree_b, depth, quantile) ** alpha
                stat = (2.0 * qab - qa - qb) * (float(kappa - tau) * tau / kappa)
                if stat > tau_best:
                    tau_best = stat
        else:
            for kappa in range(n, tau + delta - 1, -1):
                qb = tree_quantile(tree_b, depth, quantile) ** alpha
                stat = (2.0 * qab - qa - qb) * (float(kappa - tau) * tau / kappa)
                if stat > tau_best:
                    tau_best = stat
                if kappa > tau + delta:
                    tree_update(tree_b, depth, abs(z[kappa - 1] - z[kappa - 2]), -1)
        if tau_best > best:
            best = tau_best
            best_tau = tau
        if tau >= n - delta:
            break
        # after a forward sweep B holds the differences k in [tau + delta, n);
        # the next window excludes k = tau + delta (now inside the right window)
        if forward:
            tree_update(tree_b, depth, abs(z[tau + delta] - z[tau + delta - 1]), -1)
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
        # B pairs inside the right window: mover leaves, arriving enters
        for j in range(tau + 1, tau + delta):
            tree_update(tree_b, depth, abs(mover - z[j]), -1)
            tree_update(tree_b, depth, abs(arriving - z[j]), 1)
        tau += 1
        forward = not forward
    if best > 0.0:
        return best_tau, best
    return 0, 0.0


# ----------------------------------------------------------------------------------------
# EDM-tail with the reference's tree and bookkeeping (spec §5.4, §5.5 [R] switch)
# ----------------------------------------------------------------------------------------


def reference_tree_depth(n: int) -> int:
    """Depth ``max(ceil(ln n), 10)`` used by ``src/edmTail.cpp`` (natural log, spec §5.4)."""
    return max(math.ceil(math.log(max(n, 1))), 10)


@kernel
def reference_tree_update(tree: np.ndarray, depth: int, distance: float, amount: int) -> None:
    """Add ``amount`` at heap node ``ceil(|d|·2**depth) + 2**depth − 1`` and its ancestors.

    For ``d > 0`` this is the leaf of :func:`tree_update`; ``d = 0`` lands on the last
    internal node of depth ``depth − 1`` (quirk 1 of spec §5.4).
    """
    leaves = 1 << depth
    node = math.ceil(abs(distance) * leaves) + leaves - 1
    while node >= 1:
        tree[node] += amount
        node >>= 1


@kernel
def reference_tree_quantile(tree: np.ndarray, depth: int, q: float) -> float:
    """Tree quantile as ``src/edmTail.cpp`` computes it (quirk 2 of spec §5.4).

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


@kernel
def edm_tail_search_reference(
    z: np.ndarray, delta: int, depth: int, quantile: float, alpha: float
) -> tuple[int, float]:
    """EDM-tail as ``twitter/BreakoutDetection`` computes it (spec §5.4–§5.5 [R] switch).

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
