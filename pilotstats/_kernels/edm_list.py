"""EDM kernels, part 1: the sorted doubly linked list with a median pointer.

Method: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); behaviour of the reference code
``twitter/BreakoutDetection`` as described in ``docs/algorithms/edm.md``. Implemented from the
paper and that description, not from the (GPL) reference sources.

The samples present in the list are linked in the total order "value, then index" (ties
broken by index, so every key is unique). Nodes are ``index + 2``; node 0 is the head
sentinel, node 1 the tail sentinel, and the padded value array ``zz`` holds ``-inf`` and
``+inf`` for them. A pointer ``m`` to the lower median node (position ``(c - 1) // 2`` of
``c`` nodes) is moved by at most one step per insertion or deletion, so the exact median
(middle value, or the halved sum of the two middle values) costs O(1) after each update.
Deleted nodes keep their links, so a sequence of deletions can be undone in reverse order in
O(1) each ("dancing links"). This makes every median ``med(z[t:s])`` of a DP column cost O(1)
amortised: O(n²) time in total and O(n) memory, instead of the reference's O(n² log n) with
paired multisets. One sweep serves two columns: the medians of ``z[t:s + 1]`` follow in O(1)
from the neighbours of the median of ``z[t:s]`` and the value ``z[s]``.

Used by the EDM-multi/-percent dynamic programme (:mod:`pilotstats._kernels.edm_dp`) and
EDM-X (:mod:`pilotstats._kernels.edm_single`). Inputs are validated, C-contiguous float64
arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel

HEAD = 0
TAIL = 1


# ----------------------------------------------------------------------------------------
# Sorted linked list with median pointer
# ----------------------------------------------------------------------------------------


def padded_values(z: np.ndarray, capacity: int) -> np.ndarray:
    """Return ``zz`` of length ``capacity + 2``: ``zz[0] = -inf``, ``zz[1] = +inf``,
    ``zz[i + 2] = z[i]`` (remaining entries 0).

    Plain NumPy, not a kernel: one vectorised copy needs no compilation.

    Parameters
    ----------
    z : ndarray of float64, shape (n,)
    capacity : int
        Number of sample slots, ``capacity >= n``.
    """
    zz = np.zeros(capacity + 2)
    zz[0] = -np.inf
    zz[1] = np.inf
    zz[2 : 2 + z.shape[0]] = z
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

    Odd ``c``: the middle value; even ``c``: ``(lower + upper) / 2``.
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


@kernel(interpret="linear")
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


