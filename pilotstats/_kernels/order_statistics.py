"""Order statistics of any window of a fixed series: a wavelet matrix over the value ranks.

Method: range quantile queries on wavelet trees (T. Gagie, S. J. Puglisi, A. Turpin, "Range
quantile queries: another virtue of wavelet trees", SPIRE 2009; G. Navarro, "Wavelet trees
for all", Journal of Discrete Algorithms 25 (2014)), in the wavelet-matrix layout of
F. Claude, G. Navarro, A. Ordóñez, "The wavelet matrix: an efficient wavelet tree for large
alphabets", Information Systems 47 (2015). The series is replaced by its ranks under the order
"value, then index" (a permutation of ``0..n-1``); level ``l`` of the matrix holds bit
``L - 1 - l`` of every rank, the values of the previous level stably partitioned by that
bit, with the count of zero bits before each position. The ``k``-th smallest value of
``z[lo:hi]`` then costs one step per level (``L = ceil(log2 n)``): O(log n) per query,
O(n log n) time and 4·n·L bytes to build. Used by the pruned EDM programme
(:mod:`pilotstats._kernels.edm_prune`) to bound and evaluate the medians of windows the
programme's linked lists do not hold. Inputs are validated, C-contiguous arrays; nothing
here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel


def window_order(
    z: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wavelet matrix of ``z`` (n >= 1) given ``order``, its stable argsort (int64):
    ``(zeros_before, zeros, sorted_values)`` for :func:`wavelet_kth` and
    :func:`window_median`. Plain NumPy around :func:`wavelet_build`."""
    n = int(z.shape[0])
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.arange(n, dtype=np.int64)
    zeros_before, zeros = wavelet_build(ranks, max(1, (n - 1).bit_length()))
    return zeros_before, zeros, np.ascontiguousarray(z[order])


@kernel
def wavelet_build(ranks: np.ndarray, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Wavelet matrix of ``ranks`` (a permutation of ``0..n-1``) with ``levels`` bit levels.

    Returns ``zeros_before`` (int32, shape (levels, n + 1): zero bits before each position
    on each level) and ``zeros`` (int64, shape (levels,): zero bits per level).
    """
    n = ranks.shape[0]
    zeros_before = np.zeros((levels, n + 1), dtype=np.int32)
    zeros = np.zeros(levels, dtype=np.int64)
    cur = ranks.copy()
    out = np.empty_like(cur)
    for level in range(levels):
        shift = levels - 1 - level
        count = 0
        for i in range(n):
            zeros_before[level, i] = count
            if ((cur[i] >> shift) & 1) == 0:
                count += 1
        zeros_before[level, n] = count
        zeros[level] = count
        low = 0
        high = count
        for i in range(n):
            if ((cur[i] >> shift) & 1) == 0:
                out[low] = cur[i]
                low += 1
            else:
                out[high] = cur[i]
                high += 1
        cur, out = out, cur
    return zeros_before, zeros


@kernel
def wavelet_kth(zeros_before: np.ndarray, zeros: np.ndarray, lo: int, hi: int, k: int) -> int:
    """Rank of the ``k``-th smallest (0-based) of the ranks at positions ``[lo, hi)``."""
    levels = zeros.shape[0]
    result = 0
    for level in range(levels):
        zl = zeros_before[level, lo]
        zh = zeros_before[level, hi]
        below = zh - zl
        if k < below:
            lo = zl
            hi = zh
        else:
            k -= below
            lo = zeros[level] + lo - zl
            hi = zeros[level] + hi - zh
            result |= 1 << (levels - 1 - level)
    return result


@kernel
def window_median(wavelet: tuple[np.ndarray, np.ndarray, np.ndarray], lo: int, hi: int) -> float:
    """Exact median of ``z[lo:hi]`` (``hi > lo``) with :func:`list_median`'s arithmetic;
    ``wavelet`` is ``(zeros_before, zeros, sorted_values)``."""
    zeros_before, zeros, values = wavelet
    c = hi - lo
    if c & 1:
        return float(values[wavelet_kth(zeros_before, zeros, lo, hi, (c - 1) // 2)])
    first = values[wavelet_kth(zeros_before, zeros, lo, hi, c // 2 - 1)]
    second = values[wavelet_kth(zeros_before, zeros, lo, hi, c // 2)]
    return float((first + second) / 2.0)
