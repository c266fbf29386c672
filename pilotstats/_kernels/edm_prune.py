"""EDM kernels, part 3: the EDM-multi / EDM-percent programme with exact bound pruning.

Method: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); recurrence of
``docs/algorithms/edm.md`` §3.2. The plain programme (:mod:`pilotstats._kernels.edm_dp`)
finds every right median ``med(z[t:s])`` of a column by one deletion sweep: O(s) per column
and O(n²) in all, about 5·10^9 (t, s) pairs at n = 10^5. Most of them cannot win: this
module skips them with an upper bound and computes the same ``F``, ``prev`` and ``number``
bit for bit.

**Bound.** For a tile of candidates ``t`` in ``[t0, t1)`` and columns ``s`` in
``[s0, s1)``, every window ``z[t:s]`` contains ``A = z[t1:s0]`` (N values) and at most
``E = (t1 - t0) + (s1 - 1 - s0)`` more, so its median lies between the order statistics
``A_(ceil((N - E) / 2))`` and ``A_(floor((N + E) / 2) + 1)`` (the global minimum and
maximum outside ``1..N``). With ``x = (t - a) / (s - a) <= U / (U + s0 - t1 + 1)`` for
``U = max(t - prev[t])``, the weight ``w = x (1 - x)`` is at most ``x (1 - x)`` at that
``x`` (or 1/4), and ``cand(t) <= max(F[t] - penalty·G(number[t])) + w_max·D²`` with ``D``
the largest distance between a left median ``LM[t]`` of the tile and the median interval.
Maxima and minima over ``t`` come from aligned dyadic blocks updated as columns become final
(O(log n) per column); the order statistics from a wavelet matrix over the value ranks
(O(log n) per query, built once in O(n log n)).

**Column order.** Columns are processed in strips of ``delta`` (a column reads only columns
``<= s - delta``, so every candidate of a strip is final when it starts). Column s first
evaluates the band ``t`` in ``[T, s - delta]`` next to the diagonal (``T = s0 - band``)
exactly, by a deletion sweep over a list holding only ``z[T:s]``, then the winners of the
last columns. The tiles of ``[delta, T)`` (about distance / ``spread`` candidates each,
bounded once per strip) whose bound (with a relative margin of 1e-10 against rounding)
reaches the best candidate so far are halved, with bounds for the column alone, down to
blocks of :data:`LEAF_SIZE` candidates evaluated exactly; outside the band ties keep the
smallest ``t``, as the reference's ascending scan does. A column whose surviving tiles
would need more than ``s / fallback`` exact queries (one query costs about ``fallback``
swept pairs) is swept instead, with the next column by the same sweep
(:func:`pilotstats._kernels.edm_dp.dp_column_pair`); after a strip where most columns were
swept, the next 1, 2, 4, ... (at most :data:`MAX_BACKOFF`) strips are swept without bounds.
So the cost stays near the plain programme's when the bounds cannot help.

Measured (``benchmarks/RESULTS_edm.md``): on noise and on the warm-up-like benchmark series
almost every tile is skipped (n = 10^5: a third of a second instead of half a minute); on
series whose objective keeps rising through many large shifts fewer tiles are skipped, and
EDM-percent (no penalty) mostly sweeps. The worst case stays O(n²): no exact sub-quadratic
algorithm for this greedy programme is known. Inputs are validated, C-contiguous float64
arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel
from pilotstats._kernels.edm_dp import (
    candidate,
    dp_column,
    dp_column_pair,
    dp_commit,
    list_insert,
    penalty_term,
    right_medians,
)
from pilotstats._kernels.edm_list import (
    HEAD,
    TAIL,
    insertion_predecessors,
    list_median,
    padded_values,
    unlink_track,
)
from pilotstats._kernels.order_statistics import (
    wavelet_kth,
    window_median,
    window_order,
)

#: Relative margin added to every bound before it may skip a tile (rounding of ``cand``).
BOUND_MARGIN = 1e-10

#: Largest dyadic block :func:`tile_search` evaluates candidate by candidate.
LEAF_SIZE = 8

#: A column gives up at once (and is swept) when its surviving tiles hold more than this
#: many times the candidates its query budget allows.
HOPELESS = 8

#: Most strips swept in a row before pruning is tried again (after strips where every
#: column needed the sweep).
MAX_BACKOFF = 32


# ----------------------------------------------------------------------------------------
# Dyadic block aggregates of the final columns, and the bound of a block
# ----------------------------------------------------------------------------------------


def new_blocks(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Empty aggregates ``(offsets, gain, low, high, reach)`` for columns ``0..n``.

    Level ``k`` holds the blocks ``[j·2^k, (j + 1)·2^k)`` from ``offsets[k]`` on: the maximum
    of ``F[t] − penalty·G(number[t])`` (``gain``), the minimum and maximum of ``LM[t]``
    (``low``, ``high``) and the maximum of ``t − prev[t]`` (``reach``) over final columns
    ``t >= delta``. Plain NumPy: allocation only.
    """
    levels = max(1, int(n).bit_length()) + 1
    offsets = np.zeros(levels + 1, dtype=np.int64)
    for k in range(levels):
        offsets[k + 1] = offsets[k] + (n >> k) + 1
    total = int(offsets[-1])
    return (
        offsets,
        np.full(total, -np.inf),
        np.full(total, np.inf),
        np.full(total, -np.inf),
        np.zeros(total, dtype=np.int64),
    )


@kernel
def block_update(
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    t: int,
    g: float,
    lm: float,
    u: int,
) -> None:
    """Fold final column ``t`` (``g = F[t] − penalty·G(number[t])``, ``lm = LM[t]``,
    ``u = t − prev[t]``) into every dyadic block containing it: O(log n)."""
    offsets, gain, low, high, reach = blocks
    for k in range(offsets.shape[0] - 1):
        j = offsets[k] + (t >> k)
        gain[j] = max(gain[j], g)
        low[j] = min(low[j], lm)
        high[j] = max(high[j], lm)
        reach[j] = max(reach[j], u)


@kernel
def block_bound(
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    wavelet: tuple[np.ndarray, np.ndarray, np.ndarray],
    delta: int,
    k: int,
    start: int,
    s0: int,
    s1: int,
) -> float:
    """Upper bound (margin included) of ``cand(t)`` over the candidates of dyadic block
    ``[start, start + 2^k)`` (those ``>= delta``) in every column of ``[s0, s1)``.

    The block ends at ``end <= s0 - delta``. Module notes: the median of ``z[t:s]`` lies
    between two order statistics of ``z[end:s0]``, ``w`` is bounded through ``t − prev[t]``.
    """
    offsets, gain, low, high, reach = blocks
    zeros_before, zeros, values = wavelet
    end = start + (1 << k)
    j = offsets[k] + (start >> k)
    size = s0 - end
    extra = (end - max(delta, start)) + (s1 - 1 - s0)
    rank_lo = (size - extra + 1) // 2
    rank_hi = (size + extra) // 2 + 1
    med_lo = values[0]
    if rank_lo >= 1:
        med_lo = values[wavelet_kth(zeros_before, zeros, end, s0, rank_lo - 1)]
    med_hi = values[values.shape[0] - 1]
    if rank_hi <= size:
        med_hi = values[wavelet_kth(zeros_before, zeros, end, s0, rank_hi - 1)]
    dist = max(high[j] - med_lo, med_hi - low[j])
    u = float(reach[j])
    x = u / (u + float(size + 1))
    w = 0.25 if x >= 0.5 else x * (1.0 - x)
    bound = gain[j] + w * (dist * dist)
    return float(bound + BOUND_MARGIN * (1.0 + abs(bound)))


@kernel
def strip_tiles(
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    wavelet: tuple[np.ndarray, np.ndarray, np.ndarray],
    delta: int,
    first: int,
    s0: int,
    s1: int,
    spread: int,
    tiles: np.ndarray,
    tile_bound: np.ndarray,
) -> int:
    """Cut the candidates ``[delta, first)`` of the columns ``[s0, s1)`` into aligned
    dyadic tiles of at most ``max(1, distance // spread)`` candidates, nearest first; store
    ``(level, start)`` in ``tiles`` and the bound in ``tile_bound``; return the count."""
    count = 0
    end = first
    while end > delta:
        target = max(1, (s0 - end) // spread)
        k = 0
        while (2 << k) <= target and end % (2 << k) == 0:
            k += 1
        start = end - (1 << k)
        tiles[count, 0] = k
        tiles[count, 1] = start
        tile_bound[count] = block_bound(blocks, wavelet, delta, k, start, s0, s1)
        count += 1
        end = start
    return count


# ----------------------------------------------------------------------------------------
# The pruned programme
# ----------------------------------------------------------------------------------------


@kernel
def tile_search(
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    wavelet: tuple[np.ndarray, np.ndarray, np.ndarray],
    dp: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    params: tuple[int, float, int, bool],
    k: int,
    start: int,
    s: int,
    best: float,
    best_t: int,
    budget: int,
    stack: np.ndarray,
) -> tuple[float, int, int]:
    """Best candidate of column ``s`` in the dyadic tile ``(k, start)``, halving the blocks
    whose bound for this column alone reaches ``best``; blocks of at most
    :data:`LEAF_SIZE` candidates are evaluated exactly (ties: the smallest ``t``).

    ``dp`` is ``(F, prev, number, LM)``, ``params`` ``(delta, penalty, degree,
    percent_mode)``. Returns ``(best, best_t, work)``, with ``work = -1`` when more than
    ``budget`` medians and bounds would be needed (the caller then sweeps the column).
    """
    F, prev, number, LM = dp
    delta, penalty, degree, percent_mode = params
    sf = float(s)
    stack[0, 0] = k
    stack[0, 1] = start
    top = 1
    work = 0
    while top > 0:
        top -= 1
        kk = stack[top, 0]
        st = stack[top, 1]
        if (1 << kk) <= LEAF_SIZE:
            for t in range(max(delta, st), st + (1 << kk)):
                rm = window_median(wavelet, t, s)
                cand = candidate(
                    penalty, degree, percent_mode, F[t], prev[t], number[t], LM[t], t, sf, rm
                )
                if cand > best or (cand == best and t < best_t):
                    best = cand
                    best_t = t
                work += 1
        else:
            size = 1 << (kk - 1)
            for i in range(2):  # the far half is pushed first, so the near one is searched first
                child = st + i * size
                if child + size > delta:
                    work += 1
                    if block_bound(blocks, wavelet, delta, kk - 1, child, s, s + 1) >= best:
                        stack[top, 0] = kk - 1
                        stack[top, 1] = child
                        top += 1
        if work > budget:
            return best, best_t, -1
    return best, best_t, work


@kernel
def column_pruned(
    zz: np.ndarray,
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    wavelet: tuple[np.ndarray, np.ndarray, np.ndarray],
    dp: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    params: tuple[int, float, int, bool],
    window: tuple[np.ndarray, np.ndarray, int, int, int],
    tiles: np.ndarray,
    tile_bound: np.ndarray,
    count: int,
    budget: int,
    scratch: tuple[np.ndarray, np.ndarray],
    s: int,
) -> tuple[float, int, bool]:
    """Search column ``s`` of :func:`edm_columns_pruned` without a full sweep.

    ``window`` is ``(nxt, prv, median node, count, first sample)`` of the list holding
    ``z[first:s]``; ``scratch`` is ``(right medians, search stack)``. The band
    ``[first, s − delta]`` is swept exactly (ascending, strict ">"), then the winners of
    the last columns are evaluated, then the tiles whose bound reaches the best so far are
    searched (:func:`tile_search`); every evaluation outside the band keeps the smallest
    ``t`` on ties. Returns ``(best, best_t, done)``; ``done`` is False when the tiles
    needed more than ``budget`` medians and bounds.
    """
    F, prev, number, LM = dp
    delta, penalty, degree, percent_mode = params
    wnxt, wprv, wm, wc, first = window
    tmp, stack = scratch
    last = s - delta
    sf = float(s)
    right_medians(zz, wnxt, wprv, wm, wc, first, first, last, tmp)
    best = 0.0 if percent_mode else -3.0
    best_t = 0
    for t in range(first, last + 1):
        cand = candidate(
            penalty, degree, percent_mode, F[t], prev[t], number[t], LM[t], t, sf, tmp[t]
        )
        if cand > best:
            best = cand
            best_t = t
    # the winners of the previous columns are likely candidates: they raise the bar early
    seen = 0
    for j in range(s - 1, max(2 * delta, s - 8) - 1, -1):
        t = prev[j]
        if t == 0 or t >= first or t == seen:  # consecutive columns often share a winner
            continue
        seen = t
        rm = window_median(wavelet, t, s)
        cand = candidate(penalty, degree, percent_mode, F[t], prev[t], number[t], LM[t], t, sf, rm)
        if cand > best or (cand == best and t < best_t):
            best = cand
            best_t = t
    surviving = 0
    for i in range(count):
        if tile_bound[i] >= best:
            start = tiles[i, 1]
            surviving += start + (1 << tiles[i, 0]) - max(delta, start)
    if surviving > HOPELESS * budget:
        return best, best_t, False
    for i in range(count):
        if tile_bound[i] < best:
            continue
        best, best_t, work = tile_search(
            blocks, wavelet, dp, params, tiles[i, 0], tiles[i, 1], s, best, best_t, budget,
            stack,
        )
        if work < 0:
            return best, best_t, False
        budget -= work
    return best, best_t, True


@kernel
def edm_columns_pruned(
    zz: np.ndarray,
    params: tuple[int, float, int, bool],
    dp: tuple[np.ndarray, np.ndarray, np.ndarray],
    pred: np.ndarray,
    wavelet: tuple[np.ndarray, np.ndarray, np.ndarray],
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    tuning: tuple[int, int, int],
) -> int:
    """The whole programme (columns ``1..n``) with exact pruning; see the module notes.

    Parameters
    ----------
    zz : ndarray of float64, shape (n + 2,)
        Padded values (:func:`~pilotstats._kernels.edm_list.padded_values`).
    params : tuple
        ``(delta, penalty, degree, percent_mode)`` as in
        :func:`pilotstats._kernels.edm_dp.edm_columns`.
    dp : tuple of ndarray, shape (n + 1,)
        ``(F, prev, number)`` initialised to (baseline, 0, 0); filled here.
    pred : ndarray of int64, shape (n + 2,)
        Insertion predecessors (:func:`~pilotstats._kernels.edm_list.insertion_predecessors`).
    wavelet : tuple
        ``(zeros_before, zeros, sorted_values)``: :func:`wavelet_build` of the value ranks
        and the sorted values.
    blocks : tuple
        Empty aggregates (:func:`new_blocks`).
    tuning : tuple of int
        ``(band, spread, fallback)``: candidates within ``band`` (``>= delta``) of a strip are
        swept exactly; tiles at distance d hold about ``d / spread`` candidates; one median
        query costs about ``fallback`` swept pairs, so a column whose tiles need more than
        ``s / fallback`` queries is swept.

    Returns
    -------
    int
        Number of columns computed by a full sweep.
    """
    delta, penalty, degree, percent_mode = params
    F, prev, number = dp
    band, spread, fallback = tuning
    n = F.shape[0] - 1
    size = n + 2
    LM = np.zeros(n + 1)
    tmp = np.zeros(n + 1)
    tmp2 = np.zeros(n + 1)
    state = (F, prev, number, LM)
    nxt = np.zeros(size, dtype=np.int64)
    prv = np.zeros(size, dtype=np.int64)
    nxt[HEAD] = TAIL
    prv[TAIL] = HEAD
    wnxt = np.zeros(size, dtype=np.int64)
    wprv = np.zeros(size, dtype=np.int64)
    wnxt[HEAD] = TAIL
    wprv[TAIL] = HEAD
    walk = np.full(size, -1, dtype=np.int64)
    tiles = np.empty((n + 64, 2), dtype=np.int64)
    tile_bound = np.empty(n + 64)
    depth = 2
    while (1 << depth) <= n:
        depth += 1
    scratch = (tmp, np.empty((2 * depth + 2, 2), dtype=np.int64))
    m = HEAD
    c = 0
    wm = HEAD
    wc = 0
    first = delta  # the window list holds z[first:s]
    swept = 0
    skip = 0  # strips left to sweep after a strip that found nothing to prune
    backoff = 1
    s = 1
    while s <= n:
        s0 = s
        stop = s0 + 1 if s0 < 2 * delta else min(s0 + delta, n + 1)
        count = 0
        while s0 >= 2 * delta and first < max(delta, s0 - band):
            wm = unlink_track(zz, wnxt, wprv, first + 2, wm, wc)
            wc -= 1
            first += 1
        if s0 >= 2 * delta and skip == 0:
            count = strip_tiles(blocks, wavelet, delta, first, s0, stop, spread, tiles, tile_bound)
        pruned = 0
        while s < stop:
            m = list_insert(zz, nxt, prv, pred, s + 1, m, c)
            c += 1
            if s - 1 >= first:  # the window list finds its predecessors by walking
                wm = list_insert(zz, wnxt, wprv, walk, s + 1, wm, wc)
                wc += 1
            done = False
            if s0 >= 2 * delta and skip == 0:
                best, best_t, done = column_pruned(
                    zz, blocks, wavelet, state, params, (wnxt, wprv, wm, wc, first), tiles,
                    tile_bound, count, s // fallback, scratch, s,
                )
            width = 1
            if done:
                pruned += 1
                dp_commit(params, state, best, best_t, s)
                a = prev[s]
                LM[s] = list_median(zz, nxt, m, c) if a == 0 else window_median(wavelet, a, s)
            elif s >= 2 * delta and s + 1 < stop:
                # one deletion sweep serves this column and the next, as in edm_columns
                dp_column_pair(zz, params, state, tmp, tmp2, (nxt, prv), m, c, s)
                width = 2
                swept += 2
            else:
                dp_column(zz, params, state, tmp, (nxt, prv), m, c, s)
                swept += 1 if s >= 2 * delta else 0
            for col in range(s, s + width):
                if col > s:  # the second column of a pair admits its sample now
                    m = list_insert(zz, nxt, prv, pred, col + 1, m, c)
                    c += 1
                    if col - 1 >= first:
                        wm = list_insert(zz, wnxt, wprv, walk, col + 1, wm, wc)
                        wc += 1
                if col >= delta:
                    gain = F[col] - penalty_term(penalty, degree, percent_mode, number[col])
                    block_update(blocks, col, gain, LM[col], col - prev[col])
            s += width
        if s0 >= 2 * delta:
            if skip > 0:
                skip -= 1
            elif 2 * pruned < stop - s0:
                skip = backoff
                backoff = min(2 * backoff, MAX_BACKOFF)
            else:
                backoff = 1
    return swept


def prepared(
    z: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Padded values, insertion predecessors and wavelet matrix (:func:`window_order`) of
    ``z`` (n >= 1) for :func:`edm_columns_pruned`: O(n log n)."""
    n = int(z.shape[0])
    zz = padded_values(z, n)
    order = np.argsort(z, kind="stable").astype(np.int64)
    return zz, insertion_predecessors(zz, order, n), window_order(z, order)


def edm_dp_pruned(
    z: np.ndarray,
    delta: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
    tuning: tuple[int, int, int] = (8, 16, 16),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pilotstats._kernels.edm_dp.edm_dp` (serial, batch) with exact pruning.

    Parameters
    ----------
    z, delta, penalty, degree, percent_mode
        As in :func:`pilotstats._kernels.edm_dp.edm_dp`.
    tuning : tuple of int, default (8, 16, 16)
        ``(band in multiples of delta, spread, fallback)`` (:func:`edm_columns_pruned`).

    Returns
    -------
    F : ndarray of float64, shape (n + 1,)
    prev, number : ndarray of int64, shape (n + 1,)
        Identical to :func:`pilotstats._kernels.edm_dp.edm_dp`'s.
    """
    n = int(z.shape[0])
    F = np.full(n + 1, 0.0 if percent_mode else -3.0)
    prev = np.zeros(n + 1, dtype=np.int64)
    number = np.zeros(n + 1, dtype=np.int64)
    if n == 0:
        return F, prev, number
    zz, pred, wavelet = prepared(z)
    band, spread, fallback = tuning
    edm_columns_pruned(
        zz,
        (int(delta), float(penalty), int(degree), bool(percent_mode)),
        (F, prev, number),
        pred,
        wavelet,
        new_blocks(n),
        (max(int(delta), band * int(delta)), int(spread), int(fallback)),
    )
    return F, prev, number
