"""Kernels of the permutation guard of ``detect_changes`` (``test="permutation"``).

Documentation: ``docs/algorithms/detect-changes.md`` (*Permutation variant*). The
statistic is the EDM contrast for a single split of one window,
``T = max_t w(t)·(med(v[:t]) − med(v[t:]))²`` with ``w(t) = t(L − t)/L²`` over the admissible
splits ``t ∈ [δ, L − δ]``; prefix and suffix medians come from a Fenwick (binary indexed)
tree over the sorted positions of the window's values, O(L log L) per evaluation.

Inputs are validated, C-contiguous arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel

__all__ = ["fenwick_add", "fenwick_kth", "median_contrast_scan", "window_medians"]


@kernel
def fenwick_add(tree: np.ndarray, position: int, value: int) -> None:
    """Add ``value`` at 0-based ``position`` of the Fenwick tree ``tree`` (length size + 1)."""
    size = tree.shape[0] - 1
    i = position + 1
    while i <= size:
        tree[i] += value
        i += i & (-i)


@kernel
def fenwick_kth(tree: np.ndarray, k: int, top: int) -> int:
    """0-based position of the ``k``-th (1-based) present element; ``top`` is the largest
    power of two not above the tree size. Binary descent, O(log size)."""
    size = tree.shape[0] - 1
    position = 0
    step = top
    while step > 0:
        nxt = position + step
        if nxt <= size and tree[nxt] < k:
            position = nxt
            k -= tree[nxt]
        step >>= 1
    return position


@kernel
def window_medians(
    keys: np.ndarray, sorted_values: np.ndarray, delta: int
) -> tuple[np.ndarray, np.ndarray]:
    """Prefix and suffix medians of a window given by the sorted positions of its values.

    Parameters
    ----------
    keys : ndarray of int64, shape (L,)
        ``keys[i]`` is the position of sample i in the sorted window (a permutation of
        ``0..L-1``; ties broken arbitrarily but consistently).
    sorted_values : ndarray of float64, shape (L,)
        The window's values in ascending order.
    delta : int
        Minimum segment length; medians are filled for ``t ∈ [delta, L − delta]``.

    Returns
    -------
    prefix, suffix : ndarray of float64, shape (L + 1,)
        ``prefix[t] = med(v[:t])`` and ``suffix[t] = med(v[t:])`` for admissible t
        (exact: middle value, or the halved sum of the two middle values); 0 elsewhere.
    """
    length = keys.shape[0]
    prefix = np.zeros(length + 1)
    suffix = np.zeros(length + 1)
    top = 1
    while top * 2 <= length:
        top *= 2
    tree = np.zeros(length + 1, dtype=np.int64)
    for t in range(1, length - delta + 1):
        fenwick_add(tree, keys[t - 1], 1)
        if t >= delta:
            if t % 2 == 1:
                prefix[t] = sorted_values[fenwick_kth(tree, (t + 1) // 2, top)]
            else:
                low = sorted_values[fenwick_kth(tree, t // 2, top)]
                high = sorted_values[fenwick_kth(tree, t // 2 + 1, top)]
                prefix[t] = (low + high) / 2.0
    tree[:] = 0
    for t in range(length - 1, delta - 1, -1):
        fenwick_add(tree, keys[t], 1)
        count = length - t
        if count >= delta:
            if count % 2 == 1:
                suffix[t] = sorted_values[fenwick_kth(tree, (count + 1) // 2, top)]
            else:
                low = sorted_values[fenwick_kth(tree, count // 2, top)]
                high = sorted_values[fenwick_kth(tree, count // 2 + 1, top)]
                suffix[t] = (low + high) / 2.0
    return prefix, suffix


@kernel
def median_contrast_scan(
    keys: np.ndarray, sorted_values: np.ndarray, delta: int
) -> tuple[float, int]:
    """Maximum over splits of ``t(L − t)/L² · (med(v[:t]) − med(v[t:]))²`` and its first
    arg-max (the EDM weight with a = 0, s = L; the statistic of the permutation test).

    Returns ``(statistic, split)``; ``split`` is the smallest maximising t in
    ``[delta, L − delta]`` (the caller guarantees ``L >= 2·delta``).
    """
    length = keys.shape[0]
    prefix, suffix = window_medians(keys, sorted_values, delta)
    best = -1.0
    best_t = delta
    denominator = float(length) * float(length)
    for t in range(delta, length - delta + 1):
        d = prefix[t] - suffix[t]
        value = (float(t) * float(length - t)) / denominator * (d * d)
        if value > best:
            best = value
            best_t = t
    return best, best_t
