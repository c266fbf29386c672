"""Kernels of the centred, time-based simple moving average (SMA).

Documentation ``docs/algorithms/smoothing.md``; method of G. K. Lockwood et al., *A Year in the Life
of a Parallel File System*, SC'18, §4 (feature detection with simple moving averages).
Inputs are validated, sorted, C-contiguous float64 arrays; nothing here raises user-facing
errors.

The window mean is computed from compensated (double-double) prefix sums, so the mean of a
window is a pure function of the window's first and last row. Two windows that hold the same
rows (for example a short and a long window truncated by a gap in the data) therefore give
bit-identical means, as the reference's per-window ``mean()`` did; a running sum that adds and
removes values would make the result depend on the path and could create spurious crossovers.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel


@kernel(interpret="linear")
def compensated_prefix_sums(
    values: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Double-double prefix sums and prefix counts of the non-NaN values.

    Parameters
    ----------
    values : ndarray of float64, shape (n,)
        Values; NaN entries are skipped (count as zero and are not counted).

    Returns
    -------
    high, low : ndarray of float64, shape (n + 1,)
        ``high[k] + low[k]`` is the sum of the non-NaN ``values[:k]`` to about twice the
        working precision (Knuth's TwoSum accumulates the rounding errors in ``low``).
    count : ndarray of float64, shape (n + 1,)
        Number of non-NaN values in ``values[:k]``.
    """
    n = values.shape[0]
    high = np.zeros(n + 1)
    low = np.zeros(n + 1)
    count = np.zeros(n + 1)
    s = 0.0
    e = 0.0
    c = 0.0
    for k in range(n):
        v = values[k]
        if v == v:
            t = s + v
            bv = t - s
            err = (s - (t - bv)) + (v - bv)
            s = t
            e += err
            c += 1.0
        high[k + 1] = s
        low[k + 1] = e
        count[k + 1] = c
    return high, low, count


@kernel(interpret="linear")
def window_bounds(
    times: np.ndarray, half_width: float, left_closed: bool, right_closed: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Row ranges ``[first, stop)`` of the centred windows around every observation.

    Two-pointer scan over sorted times, O(n).

    Parameters
    ----------
    times : ndarray of float64, shape (n,)
        Observation times in seconds, sorted ascending (duplicates allowed).
    half_width : float
        Half the window width w/2 in seconds, > 0.
    left_closed, right_closed : bool
        Whether the edges ``t - w/2`` and ``t + w/2`` belong to the window; the SMA of the
        paper is ``[t - w/2, t + w/2)`` (left closed, right open).

    Returns
    -------
    first, stop : ndarray of int64, shape (n,)
        Row i's window holds rows ``first[i] <= j < stop[i]``.
    """
    n = times.shape[0]
    first = np.empty(n, dtype=np.int64)
    stop = np.empty(n, dtype=np.int64)
    lo = 0
    hi = 0
    for i in range(n):
        lower = times[i] - half_width
        upper = times[i] + half_width
        if hi < i + 1:
            hi = i + 1
        while hi < n and (times[hi] < upper or (right_closed and times[hi] == upper)):
            hi += 1
        while lo < i and (times[lo] < lower or ((not left_closed) and times[lo] == lower)):
            lo += 1
        first[i] = lo
        stop[i] = hi
    return first, stop


#: A window sum from prefix sums is trusted when it is at least this fraction of the
#: prefix sums it is the difference of: double-double keeps about 2**-104 of them, so the
#: relative error of a trusted window sum stays below about 2**-54.
PREFIX_TRUST = 2.0**-50


@kernel(interpret="linear")
def range_means(
    high: np.ndarray,
    low: np.ndarray,
    count: np.ndarray,
    first: np.ndarray,
    stop: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """Means of the non-NaN values in row ranges, from compensated prefix sums.

    Parameters
    ----------
    high, low, count : ndarray of float64, shape (n + 1,)
        Output of :func:`compensated_prefix_sums`.
    first, stop : ndarray of int64, shape (m,)
        Row ranges ``[first, stop)``.
    values : ndarray of float64, shape (n,)
        The values the prefix sums were built from (for the cancellation fallback).

    Returns
    -------
    ndarray of float64, shape (m,)
        Mean of each range; NaN where the range holds no non-NaN value. The value depends
        only on ``(first, stop)``, so equal ranges give bit-identical means.

    Notes
    -----
    O(1) per range from the double-double prefix sums. When the window's sum is tiny
    against the prefix sums it is the difference of (values spanning more magnitudes than
    double-double holds, e.g. 1e-300..1e300), the prefix difference cancels to noise; such
    a range is summed directly (Neumaier's compensated sum over its rows, O(width)). The
    test depends only on ``(first, stop)``, so equal ranges still give identical means.
    """
    m = first.shape[0]
    out = np.empty(m)
    for i in range(m):
        a = first[i]
        b = stop[i]
        c = count[b] - count[a]
        if c <= 0.0:
            out[i] = np.nan
            continue
        x = high[b]
        y = -high[a]
        d = x + y
        bv = d - x
        err = (x - (d - bv)) + (y - bv)
        total = d + (err + (low[b] - low[a]))
        scale = max(abs(high[a]), abs(high[b]))
        if abs(total) < PREFIX_TRUST * scale:
            s = 0.0
            e = 0.0
            for j in range(a, b):
                v = values[j]
                if v == v:
                    t = s + v
                    if abs(s) >= abs(v):
                        e += (s - t) + v
                    else:
                        e += (v - t) + s
                    s = t
            total = s + e
        out[i] = total / c
    return out
