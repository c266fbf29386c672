"""EDM kernels, vectorised tier: the EDM-multi / EDM-percent programme in numpy.

The compiled programme (:func:`pilotstats._kernels.edm_dp.edm_dp`) costs about 3 s CPU to
compile and 0.1 s to import numba (plus about 110 MB of resident LLVM), and its pure-Python
twin takes 0.6-0.7 s on 1,000 points. A process that analyses one short series (a CLI
invocation, a CI job) pays either price for a few milliseconds of work. :func:`edm_dp_numpy`
computes the same programme with numpy array operations only: 30-60 ms at 1,000 points,
no numba import. Its results are identical bit for bit (``tests/test_edm_numpy.py``): the
medians are the same order statistics, and the recurrence performs the same floating-point
operations in the same order, only for all t of a column at once.

**Medians of all windows.** The programme needs ``med(z[t:s])`` for every column s and
every admissible t (and ``t = 0``). One row per t holds the sorted list of ``z[t:n]``
(global ranks as nodes, "dancing links"); deleting the samples ``n - 1, n - 2, ...`` from
every active row at once, with the lower-median pointer of each row moved by at most one
node per deletion, yields the medians of all windows in ``n`` vector steps
(O(n²) work and O(n²) memory: ``_config.EDM_VECTORISED_MAX_POINTS`` bounds n).

**Recurrence.** Column by column as in :func:`pilotstats._kernels.edm_dp.dp_finish`, with
the candidates ``cand(t)`` of one column computed as one array: same operations, same
order, and ``argmax`` returns the smallest t among equal maxima, as the kernel's strict
``>`` in ascending t does.
"""

from __future__ import annotations

import numpy as np

from pilotstats import _config
from pilotstats._kernels import edm_dp as _dp

__all__ = ["edm_dp_numpy", "edm_dp_tiered", "window_medians"]


def edm_dp_tiered(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool, lanes: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pilotstats._kernels.edm_dp.edm_dp`, run by :func:`edm_dp_numpy` while the
    compiled programme is not needed.

    The vectorised tier answers when the DP kernel is not compiled yet, the series holds at
    most ``_config.EDM_VECTORISED_MAX_POINTS`` values and the interpreted tier's budgets are
    not spent (:meth:`pilotstats._kernels._jit.LazyKernel.rents`; its CPU time is charged to
    them, so a process that keeps calling compiles the kernel once the rent reaches the
    price of compiling). Results are identical either way.
    """
    columns = _dp.edm_columns
    limit = int(_config.EDM_VECTORISED_MAX_POINTS)
    if lanes == 1 and columns.rents(int(z.shape[0]), limit, _columns_example):
        result: tuple[np.ndarray, np.ndarray, np.ndarray] = columns.rented(
            edm_dp_numpy, z, delta, penalty, degree, percent_mode
        )
        return result
    return _dp.edm_dp(z, delta, penalty, degree, percent_mode, lanes)


def window_medians(z: np.ndarray, rows: np.ndarray, delta: int) -> np.ndarray:
    """Medians ``M[r, s] = med(z[rows[r]:s])`` for ``s >= rows[r] + delta``.

    ``rows`` is ascending; entries with ``s < rows[r] + delta`` are left 0. Odd window
    length: the middle value; even: ``(lower + upper) / 2.0`` (as
    :func:`pilotstats._kernels.edm_list.list_median`).
    """
    n = int(z.shape[0])
    order = np.argsort(z, kind="stable")
    values = np.zeros(n + 1)
    values[:n] = z[order]  # node j is the j-th smallest sample; node n is the tail
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    k = int(rows.shape[0])
    width = n + 2  # nodes 0..n-1, tail n, head n + 1
    index_type = np.int16 if width < 2**15 else np.int32
    # present[r, j]: node j (sample order[j]) lies in z[rows[r]:n]
    present = order[None, :] >= rows[:, None]
    row_of, node_of = np.nonzero(present)  # row-major: each row's nodes ascending
    counts = n - rows
    starts = np.zeros(k, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    following = np.empty_like(node_of)
    following[:-1] = node_of[1:]
    ends = starts + counts - 1
    following[ends] = n
    preceding = np.empty_like(node_of)
    preceding[1:] = node_of[:-1]
    preceding[starts] = n + 1
    nxt = np.zeros((k, width), dtype=index_type)
    prv = np.zeros((k, width), dtype=index_type)
    nxt[row_of, node_of] = following
    prv[row_of, node_of] = preceding
    del present, row_of, following, preceding
    median = node_of[starts + (counts - 1) // 2].astype(np.int64)
    del node_of
    out = np.zeros((k, n + 1))
    # rows[r] + delta <= s: rows are active while s >= rows[r] + delta
    active_until = np.searchsorted(rows, np.arange(n + 1) - delta, side="right")
    lines = np.arange(k)
    s = n
    while True:
        active = int(active_until[s])
        if active == 0:
            break
        r = lines[:active]
        m = median[:active]
        odd = ((s - rows[:active]) & 1).astype(bool)
        upper = values[nxt[r, m]]
        out[:active, s] = np.where(odd, values[m], (values[m] + upper) / 2.0)
        # delete sample s - 1 from the rows that stay active at s - 1
        keep = int(active_until[s - 1])
        if keep == 0:
            break
        r = lines[:keep]
        m = median[:keep]
        odd = odd[:keep]
        x = rank[s - 1]
        after = nxt[r, x]
        before = prv[r, x]
        # lower median of c - 1 values: c even -> next node if x <= m; c odd -> previous
        # node unless x < m
        median[:keep] = np.where(
            odd,
            np.where(x < m, m, prv[r, m]),
            np.where(x <= m, nxt[r, m], m),
        )
        nxt[r, before] = after
        prv[r, after] = before
        s -= 1
    return out


def _columns_example() -> tuple[object, ...]:
    """Arguments of :func:`pilotstats._kernels.edm_dp.edm_columns` with the types that
    :func:`pilotstats._kernels.edm_dp.edm_dp` passes (for its background compilation)."""
    floats, ints = np.zeros(3), np.zeros(3, dtype=np.int64)
    return (np.zeros(4), 2, 0.25, 1, True, floats, ints, ints, floats, floats,
            np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
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
    medians = window_medians(z, rows, delta)
    LM = np.zeros(n + 1)
    LM[delta:2 * delta] = medians[0, delta:2 * delta]
    for s in range(2 * delta, n + 1):
        last = s - delta
        ts = rows[1:last - delta + 2]
        right = medians[1:last - delta + 2, s]
        sf = float(s)
        af = prev[delta:last + 1].astype(np.float64)
        tf = ts.astype(np.float64)
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
                ts_ = best_t
                factor = _penalty_factors(degree, number[ts_:ts_ + 1])[0]
                if F[s] - F[ts_] < (penalty * factor) * F[ts_]:
                    F[s] = F[ts_]
                    number[s] = number[ts_]
                    prev[s] = prev[ts_]
        a = int(prev[s])
        LM[s] = medians[0, s] if a == 0 else medians[a - delta + 1, s]
    return F, prev, number


def _penalty_factors(degree: int, counts: np.ndarray) -> np.ndarray:
    """:func:`pilotstats._kernels.edm_dp.penalty_factor` of every entry of ``counts``."""
    if degree == 0:
        return np.zeros(counts.shape[0])
    if degree == 1:
        return np.ones(counts.shape[0])
    return 2.0 * counts + 1.0
