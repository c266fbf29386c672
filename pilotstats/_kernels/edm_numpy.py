"""EDM kernels, vectorised tier: the EDM-multi / EDM-percent programme in numpy.

The compiled programme (:func:`pilotstats._kernels.edm_dp.edm_dp`) costs about 1.8 s CPU
to compile, 0.1 s of it to import numba (plus about 110 MB of resident LLVM), and its pure-Python
twin takes 0.6-0.7 s on 1,000 points. A process that analyses one short series (a CLI
invocation, a CI job) pays either price for a few milliseconds of work. :func:`edm_dp_numpy`
computes the same programme with numpy array operations only, without numba: 0.05 s CPU
at 1,000 points, 0.13 s at 2,000, 0.49 s at 5,000 (O(n²) time and memory: 4n² bytes of
links). Its results are identical bit for bit (``tests/test_jit_vectorised.py``): the
medians are the same order statistics, and the recurrence performs the same floating-point
operations in the same order, only for all t of a column at once.

**Medians of all windows.** The programme needs ``med(z[t:s])`` for every column s and
every admissible t (and ``t = 0``). One row per t holds the sorted list of ``z[t:n]``
(global ranks as nodes); the samples ``n - 1, n - 2, ...`` are deleted from every row at
once down to ``z[t:t + delta]`` and then re-inserted in the opposite order ("dancing
links": a deleted node keeps its neighbours), the lower-median pointer of each row moving
by at most one node per step, so column s finds every ``med(z[t:s])`` in O(1) vector
operations (O(n²) work and O(n²) memory: ``_config.EDM_VECTORISED_MAX_POINTS`` bounds n).

**Recurrence.** Column by column as in :func:`pilotstats._kernels.edm_dp.dp_finish`, with
the candidates ``cand(t)`` of one column computed as one array: same operations, same
order, and ``argmax`` returns the smallest t among equal maxima, as the kernel's strict
``>`` in ascending t does.
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._kernels import edm_dp as _dp
from pilotstats._kernels.edm_list import insertion_predecessors
from pilotstats._kernels.edm_prune import edm_dp_pruned

__all__ = ["edm_dp_numpy", "edm_dp_tiered"]


def edm_dp_tiered(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool, lanes: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pilotstats._kernels.edm_dp.edm_dp`, run by :func:`edm_dp_numpy` while the
    compiled programme is not needed, and by
    :func:`~pilotstats._kernels.edm_prune.edm_dp_pruned` from
    ``_config.EDM_PRUNE_MIN_POINTS`` values on (serial runs).

    The vectorised tier answers while the DP kernel is not compiled and the series holds at
    most ``_config.EDM_VECTORISED_MAX_POINTS`` values
    (:meth:`pilotstats._kernels._jit.LazyKernel.rents`). Its CPU time is charged to the
    interpreted tier's budgets; once they are spent the kernel compiles in a background
    thread (with :func:`~pilotstats._kernels.edm_list.insertion_predecessors`, which the
    compiled path calls first) and is used when ready. Results are identical either way.
    """
    columns = _dp.edm_columns
    limit = int(_config.EDM_VECTORISED_MAX_POINTS)
    if lanes == 1 and columns.rents(int(z.shape[0]), limit, _columns_example, _companions):
        with np.errstate(all="ignore"):  # IEEE results without warnings, as compiled
            result: tuple[np.ndarray, np.ndarray, np.ndarray] = columns.rented(
                edm_dp_numpy, z, delta, penalty, degree, percent_mode
            )
        return result
    if lanes == 1 and int(z.shape[0]) >= int(_config.EDM_PRUNE_MIN_POINTS):
        return edm_dp_pruned(z, delta, penalty, degree, percent_mode)
    return _dp.edm_dp(z, delta, penalty, degree, percent_mode, lanes)


class _WindowLists:
    """The sorted lists of ``z[t:s]`` for the rows ``t`` of ``rows`` (ascending), all at
    once: ``nxt[j, r]``/``prv[j, r]`` link node j (the j-th smallest sample; n is the tail,
    n + 1 the head) in row r, and ``median[r]`` is row r's lower-median node.

    Built holding ``z[t:n]``; :meth:`rewind` deletes the samples n − 1, n − 2, ... from
    every row down to ``z[t:t + delta]``; :meth:`advance` re-inserts them in the reverse
    order (O(1) each: a deleted node keeps its neighbours, "dancing links"), so that the
    rows hold ``z[t:s]`` for the columns ``s = delta, delta + 1, ...`` of the programme.
    Each deletion or insertion moves a row's lower median by at most one node.
    """

    def __init__(self, z: np.ndarray, rows: np.ndarray, delta: int) -> None:
        n = int(z.shape[0])
        k = int(rows.shape[0])
        order = np.argsort(z, kind="stable")
        self.values = np.zeros(n + 1)
        self.values[:n] = z[order]
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[order] = np.arange(n)
        self.rows = rows
        index_type = np.int16 if n + 2 < 2**15 else np.int32
        self.nxt = np.empty((n + 2, k), dtype=index_type)
        self.prv = np.empty((n + 2, k), dtype=index_type)
        # node j lies in row r when order[j] >= rows[r]; its neighbours are the nearest
        # such nodes (entries of absent nodes are never read)
        self.nxt[n - 1] = n
        for j in range(n - 2, -1, -1):
            np.copyto(self.nxt[j], self.nxt[j + 1])
            self.nxt[j][order[j + 1] >= rows] = j + 1
        self.prv[0] = n + 1
        for j in range(1, n):
            np.copyto(self.prv[j], self.prv[j - 1])
            self.prv[j][order[j - 1] >= rows] = j - 1
        # lower median node of z[t:n] for every row: the sorted ranks of z[t:n], t falling
        self.median = np.empty(k, dtype=np.int64)
        ranks: list[int] = []
        row = k - 1
        for t in range(n - 1, -1, -1):
            bisect.insort(ranks, int(self.rank[t]))
            while row >= 0 and rows[row] == t:
                self.median[row] = ranks[(len(ranks) - 1) // 2]
                row -= 1
        self.k = k
        self.next_flat = self.nxt.reshape(-1)  # node j, row r: entry j * k + r
        self.prev_flat = self.prv.reshape(-1)
        self.lines = np.arange(k, dtype=np.int64)
        # rows[r] + delta <= s: row r takes part in column s
        self.active = np.searchsorted(rows, np.arange(n + 1) - delta, side="right")
        self.n = n
        self.delta = delta

    def rewind(self) -> None:
        """Delete the samples ``n − 1`` down to ``delta`` (row t keeps ``z[t:t + delta]``)."""
        initial = np.empty_like(self.median)
        active = self.active
        k = self.k
        for e in range(self.n - 1, self.delta - 1, -1):
            done = slice(int(active[e]), int(active[e + 1]))  # rows now at z[t:t + delta]
            initial[done] = self.median[done]
            keep = int(active[e])
            lines = self.lines[:keep]
            m = self.median[:keep]
            odd = ((e + 1 - self.rows[:keep]) & 1).astype(bool)  # counts before deleting
            x = int(self.rank[e])
            # lower median of c - 1 values: c odd -> previous node unless x < m;
            # c even -> next node if x <= m
            at_m = m * k + lines
            self.median[:keep] = np.where(
                odd, np.where(x < m, m, self.prev_flat[at_m]),
                np.where(x <= m, self.next_flat[at_m], m),
            )
            after = self.nxt[x, :keep].astype(np.int64)
            before = self.prv[x, :keep].astype(np.int64)
            self.next_flat[before * k + lines] = after
            self.prev_flat[after * k + lines] = before
        first = int(active[self.delta])
        initial[:first] = self.median[:first]
        self.median = initial

    def medians(self, s: int) -> np.ndarray:
        """Medians of ``z[t:s]`` for the rows taking part in column ``s``."""
        keep = int(self.active[s])
        m = self.median[:keep]
        odd = ((s - self.rows[:keep]) & 1).astype(bool)
        lower = self.values[m]
        upper = self.values[self.next_flat[m * self.k + self.lines[:keep]]]
        result: np.ndarray = np.where(odd, lower, (lower + upper) / 2.0)
        return result

    def advance(self, s: int) -> None:
        """Insert sample ``s`` into the rows of column ``s`` (they then hold ``z[t:s + 1]``)."""
        keep = int(self.active[s])
        k = self.k
        lines = self.lines[:keep]
        x = int(self.rank[s])
        before = self.prv[x, :keep].astype(np.int64)
        after = self.nxt[x, :keep].astype(np.int64)
        self.next_flat[before * k + lines] = x
        self.prev_flat[after * k + lines] = x
        m = self.median[:keep]
        odd = ((s - self.rows[:keep]) & 1).astype(bool)  # counts before inserting
        # lower median of c + 1 values: c odd -> previous node if x < m; c even -> next
        # node if x > m (x itself when it lands there)
        at_m = m * k + lines
        self.median[:keep] = np.where(
            odd, np.where(x < m, self.prev_flat[at_m], m),
            np.where(x < m, m, self.next_flat[at_m]),
        )


def _companions() -> tuple[tuple[Any, tuple[Any, ...]], ...]:
    """:func:`pilotstats._kernels.edm_list.insertion_predecessors`, which the compiled
    programme calls from Python before :func:`~pilotstats._kernels.edm_dp.edm_columns`:
    compiled in the same background thread, so that the first compiled call does not
    compile it in the foreground."""
    zz = np.zeros(4)
    return ((insertion_predecessors, (zz, np.zeros(2, dtype=np.int64), 2)),)


def _columns_example() -> tuple[object, ...]:
    """Arguments of :func:`pilotstats._kernels.edm_dp.edm_columns` with the types that
    :func:`pilotstats._kernels.edm_dp.edm_dp` passes (for its background compilation)."""
    floats, ints = np.zeros(3), np.zeros(3, dtype=np.int64)
    links = (np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64))
    return (np.zeros(4), (2, 0.25, 1, True), (floats, ints, ints, floats), floats, links,
            np.zeros(2, dtype=np.int64), np.zeros(4, dtype=np.int64), 1, 3)


def edm_dp_numpy(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pilotstats._kernels.edm_dp.edm_dp` (serial, batch) in numpy: same results.

    Parameters and returns as there; O(n²) time and memory (``n + 1`` rows of medians).
    """
    n = int(z.shape[0])
    baseline = 0.0 if percent_mode else -3.0
    F = np.full(n + 1, baseline)
    prev = np.zeros(n + 1, dtype=np.int64)
    number = np.zeros(n + 1, dtype=np.int64)
    if n == 0 or n < delta:
        return F, prev, number
    rows = np.concatenate([[0], np.arange(delta, max(delta, n - delta + 1))]).astype(np.int64)
    lists = _WindowLists(z, rows, delta)
    lists.rewind()
    LM = np.zeros(n + 1)
    for s in range(delta, n + 1):
        medians = lists.medians(s)  # row 0: med(z[0:s]); row t - delta + 1: med(z[t:s])
        if s < 2 * delta:
            LM[s] = medians[0]
            if s < n:
                lists.advance(s)
            continue
        last = s - delta
        right = medians[1:]
        sf = float(s)
        af = prev[delta:last + 1].astype(np.float64)
        tf = rows[1:].astype(np.float64)[:last - delta + 1]
        w = ((tf - af) * (sf - tf)) / ((sf - af) * (sf - af))
        d = LM[delta:last + 1] - right
        cand = F[delta:last + 1] + w * (d * d)
        if not percent_mode:
            cand = cand - penalty * _penalty_factors(degree, number[delta:last + 1])
        j = int(np.argmax(cand))
        best = float(cand[j])
        if best > baseline:
            best_t = delta + j
            F[s] = best
            prev[s] = best_t
            number[s] = number[best_t] + 1
            if percent_mode:
                factor = _penalty_factors(degree, number[best_t:best_t + 1])[0]
                if F[s] - F[best_t] < (penalty * factor) * F[best_t]:
                    F[s] = F[best_t]
                    number[s] = number[best_t]
                    prev[s] = prev[best_t]
        a = int(prev[s])
        LM[s] = medians[0] if a == 0 else medians[a - delta + 1]
        if s < n:
            lists.advance(s)
    return F, prev, number


def _penalty_factors(degree: int, counts: np.ndarray) -> np.ndarray:
    """:func:`pilotstats._kernels.edm_dp.penalty_factor` of every entry of ``counts``."""
    if degree == 0:
        return np.zeros(counts.shape[0])
    if degree == 1:
        return np.ones(counts.shape[0])
    return 2.0 * counts + 1.0
