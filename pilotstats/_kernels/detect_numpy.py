"""Kernels of ``detect_changes``, vectorised tier: numpy twins with identical results.

Each function here is the ``vectorised`` twin of the kernel of the same name in
:mod:`pilotstats._kernels.detect` (see :func:`pilotstats._kernels._jit.kernel`): it runs
while that kernel is not compiled, so that a process which analyses a few series never
imports numba (0.1 s CPU and about 110 MB of LLVM) nor compiles the kernels of
``detect_changes`` (about 2 s CPU). The twins perform the kernels' floating-point
operations in the same order (sequential partial sums as ``np.cumsum``, the same
``np.dot`` and ``math.exp`` calls, sums of exact integers), so their results are identical
bit for bit (``tests/test_detect_numpy.py``); their cost is O(n log n) like the kernels'
(the running median O(n·width)), with numpy's per-call overhead instead of the compile.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "absolute_steps",
    "clipped_sides",
    "midranks",
    "posterior_location",
    "residual_rank_lag1",
    "window_scans",
]

#: Rows of the running-median window matrix built at once (bounds its memory).
_RUNNING_CHUNK = 1 << 15


def _median(values: np.ndarray) -> float:
    """:func:`pilotstats._kernels.detect.median`: middle value, or ``(0.0 + (a + b)) / 2``."""
    n = values.shape[0]
    ordered = np.sort(values, kind="stable")
    if n % 2 == 1:
        return float(ordered[n // 2])
    return (0.0 + float(ordered[n // 2 - 1] + ordered[n // 2])) / 2.0


def midranks(values: np.ndarray) -> tuple[np.ndarray, float]:
    """Mid-ranks (1-based, ties averaged) and ``Σ(τ³ − τ)`` over the tie groups."""
    n = values.shape[0]
    ranks = np.empty(n)
    if n == 0:
        return ranks, 0.0
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, n)).astype(np.float64)
    group_rank = starts + (sizes + 1.0) / 2.0
    ranks[order] = np.repeat(group_rank, np.diff(np.append(starts, n)))
    # exact integers below 2**53: any summation order gives the kernel's sum
    ties = float(np.sum(sizes * sizes * sizes - sizes))
    return ranks, ties


def absolute_steps(window: np.ndarray) -> np.ndarray:
    """``|v_i − v_{i−1}|``, the first step repeated (empty for fewer than two values)."""
    length = window.shape[0]
    if length < 2:
        return np.empty(0)
    steps = np.empty(length)
    np.abs(window[1:] - window[:-1], out=steps[1:])
    steps[0] = steps[1]
    return steps


def window_scans(
    x: np.ndarray,
    start: int,
    end: int,
    min_size: int,
    inflation: float,
    step_inflation: float,
    steps: bool,
) -> tuple[int, float, int, float]:
    """Standardized Mann–Whitney scans of ``x[start:end]`` (and of its absolute steps)."""
    window = x[start:end]
    length = window.shape[0]
    found = [(min_size, 0.0), (min_size, 0.0)]
    split = np.arange(min_size, length - min_size + 1, dtype=np.float64)
    for scan in range(2 if steps else 1):
        values = window if scan == 0 else absolute_steps(window)
        factor = inflation if scan == 0 else step_inflation
        ranks, ties = midranks(values)
        spread = (length + 1) - ties / (length * (length - 1.0))
        if not spread > 0.0:
            continue
        partial = np.cumsum(ranks)[min_size - 1:length - min_size]
        variance = split * (length - split) / 12.0 * spread * factor
        deviation = np.maximum(np.abs(partial - split * (length + 1) / 2.0) - 0.5, 0.0)
        z = deviation / np.sqrt(variance)
        best = int(np.argmax(z))
        found[scan] = (min_size + best, float(z[best]))
    return found[0][0], found[0][1], found[1][0], found[1][1]


def clipped_sides(window: np.ndarray, provisional: int, clip: float) -> np.ndarray:
    """Each side of ``provisional`` clipped to its median ± ``clip``·1.4826·MAD."""
    values = window.copy()
    for lo, hi in ((0, provisional), (provisional, window.shape[0])):
        part = window[lo:hi]
        centre = _median(part)
        spread = 1.4826 * _median(np.abs(part - centre))
        if spread > 0.0:
            low = centre - clip * spread
            high = centre + clip * spread
            values[lo:hi] = np.minimum(np.maximum(part, low), high)
    return values


def posterior_location(values: np.ndarray, mean: float, min_size: int, tolerance: int) -> int:
    """Posterior window estimate of one change (0-based split); see the kernel."""
    length = values.shape[0]
    centred = values - mean
    count = length - 2 * min_size + 1
    total = np.dot(centred, centred)
    partial = np.cumsum(centred)[min_size - 1:min_size - 1 + count]
    t = np.arange(min_size, min_size + count)
    rss = total - partial * partial * length / (t * (length - t).astype(np.float64))
    best = int(np.argmin(rss))
    if best == 0 or best == count - 1:
        return min_size + best
    differences = centred[1:] - centred[:-1]
    successive = np.dot(differences, differences)
    noise = rss[best] / (length - 2 if length - 2 > 1 else 1)
    smooth = successive / (2.0 * (length - 1 if length - 1 > 1 else 1))
    if smooth < noise:
        noise = smooth
    if not noise > 0.0:
        return min_size + best
    lowest = float(rss[best])
    scale = 2.0 * float(noise)
    weights = [math.exp(-(r - lowest) / scale) for r in rss.tolist()]
    cumulative = np.zeros(count + 1)
    np.cumsum(weights, out=cumulative[1:])
    j = np.arange(count)
    upper = np.minimum(j + tolerance + 1, count)
    lower = np.maximum(j - tolerance, 0)
    mass = cumulative[upper] - cumulative[lower]
    floor = mass.max() * (1.0 - 1e-9)
    near = np.flatnonzero(mass >= floor)
    chosen = int(near[np.argmin(np.abs(near - best))])
    return min_size + chosen


def residual_rank_lag1(x: np.ndarray, width: int, bounds: np.ndarray) -> float:
    """Lag-1 autocorrelation of the mid-ranks of the residuals of ``x``; see the kernel."""
    n = x.shape[0]
    if n < 3:
        return 0.0
    residual = np.empty(n)
    if bounds.shape[0] >= 2:
        for j in range(bounds.shape[0] - 1):
            left, right = int(bounds[j]), int(bounds[j + 1])
            residual[left:right] = x[left:right] - _median(x[left:right])
    else:
        half = width // 2
        padded = np.concatenate([np.full(half, x[0]), x, np.full(half, x[n - 1])])
        windows = np.lib.stride_tricks.sliding_window_view(padded, width)
        for lo in range(0, n, _RUNNING_CHUNK):
            hi = min(n, lo + _RUNNING_CHUNK)
            middle = np.partition(windows[lo:hi], half, axis=1)[:, half]
            residual[lo:hi] = x[lo:hi] - middle
    ranks, _ = midranks(residual)
    centred = ranks - (n + 1) / 2.0
    denominator = np.dot(centred, centred)
    if denominator == 0.0:
        return 0.0
    return float(np.dot(centred[:-1], centred[1:]) / denominator)
