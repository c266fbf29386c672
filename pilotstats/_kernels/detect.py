"""Kernels of the significance guard of ``detect_changes``.

Documentation: ``docs/algorithms/detect-changes.md``. The rank test: the Mann–Whitney scan
of a window (:func:`window_scans`), the posterior window location
(:func:`posterior_location`) and the rank autocorrelation of residuals
(:func:`residual_rank_lag1`), with the helpers :func:`sort_order` (a stable merge sort),
:func:`median`, :func:`midranks`, :func:`absolute_steps` and :func:`clipped_sides`.
They release the GIL, so the threads of ``detect_many`` run them on several cores. Their
floating-point operations are NumPy's, in NumPy's order (BLAS ``np.dot``, libm ``exp``; the
one pairwise mean, ``values.mean()``, is taken by the caller), so they give bit for bit
what the NumPy statement of the method gives (``tests/test_detect_kernels.py``). NumPy's
own ``argsort`` and ``median`` are not used: they take seconds to compile. The kernels
called from Python have numpy twins with the same results in
:mod:`pilotstats._kernels.detect_numpy` (``vectorised=``), which answer until they are
compiled, so a process that analyses a few series never imports numba.

The permutation test (*Permutation variant*): the
statistic is the EDM contrast for a single split of one window,
``T = max_t w(t)·(med(v[:t]) − med(v[t:]))²`` with ``w(t) = t(L − t)/L²`` over the admissible
splits ``t ∈ [δ, L − δ]``; prefix and suffix medians come from a Fenwick (binary indexed)
tree over the sorted positions of the window's values, O(L log L) per evaluation.

Inputs are validated, C-contiguous arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats._kernels import detect_numpy as _vec
from pilotstats._kernels._jit import kernel

__all__ = [
    "absolute_steps",
    "clipped_sides",
    "fenwick_add",
    "fenwick_kth",
    "median",
    "median_contrast_scan",
    "midranks",
    "posterior_location",
    "residual_rank_lag1",
    "sort_order",
    "window_medians",
    "window_scans",
]


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


@kernel(interpret="linear")
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


# ----------------------------------------------------------------------------------------
# rank scan, location estimate and residual autocorrelation of the "rank" test
# ----------------------------------------------------------------------------------------


@kernel
def sort_order(values: np.ndarray) -> np.ndarray:
    """Stable sorting permutation of ``values`` (``np.argsort(values, kind="stable")``).

    Bottom-up merge sort, O(n log n); hand-written because NumPy's sorts take seconds to
    compile in numba.
    """
    n = values.shape[0]
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        order[k] = k
    spare = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        lo = 0
        while lo < n:  # merge order[lo:mid] and order[mid:hi] into spare[lo:hi]
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            i = lo
            j = mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and not values[order[j]] < values[order[i]]):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
            lo += 2 * width
        for k in range(n):
            order[k] = spare[k]
        width *= 2
    return order


@kernel
def median(values: np.ndarray) -> float:
    """``np.median`` of a non-empty vector: the middle value, or ``(0.0 + (a + b)) / 2`` of
    the two middle values a <= b (NumPy's mean of two values)."""
    n = values.shape[0]
    order = sort_order(values)
    if n % 2 == 1:
        return float(values[order[n // 2]])
    return (0.0 + float(values[order[n // 2 - 1]] + values[order[n // 2]])) / 2.0


@kernel(interpret="linear", vectorised=_vec.midranks)
def midranks(values: np.ndarray) -> tuple[np.ndarray, float]:
    """Mid-ranks of ``values`` (1-based, ties get their average rank) and ``Σ(τ³ − τ)``.

    τ runs over the sizes of the tie groups; the sum is exact (so equal to NumPy's pairwise
    ``np.sum``) below 2**53, i.e. unless a series holds about 200,000 equal values. The
    ranks equal :func:`scipy.stats.rankdata` (``method="average"``). O(n log n).
    """
    n = values.shape[0]
    order = sort_order(values)
    ranks = np.empty(n)
    ties = 0.0
    start = 0
    while start < n:
        stop = start + 1
        value = values[order[start]]
        while stop < n and values[order[stop]] == value:
            stop += 1
        size = float(stop - start)
        rank = start + (size + 1.0) / 2.0
        for k in range(start, stop):
            ranks[order[k]] = rank
        ties += size**3.0 - size
        start = stop
    return ranks, ties


# also called from Python
@kernel(python_entry=True, interpret="linear", vectorised=_vec.absolute_steps)
def absolute_steps(window: np.ndarray) -> np.ndarray:
    """``|v_i − v_{i−1}|`` of a window v, the first step repeated so that the length is kept
    (empty for fewer than two values)."""
    length = window.shape[0]
    steps = np.empty(length if length >= 2 else 0)
    for i in range(1, length):
        steps[i] = abs(window[i] - window[i - 1])
    if length >= 2:
        steps[0] = steps[1]
    return steps


@kernel(interpret="linear", vectorised=_vec.window_scans)
def window_scans(
    x: np.ndarray,
    start: int,
    end: int,
    min_size: int,
    inflation: float,
    step_inflation: float,
    steps: bool,
) -> tuple[int, float, int, float]:
    """Maximum of the standardized Mann–Whitney scan of ``x[start:end]`` and, when
    ``steps``, of its :func:`absolute_steps`.

    For every split t ∈ [δ, L − δ] (δ = ``min_size``, L = end − start), with the mid-ranks
    r of the scanned values and their partial sums S(t),
    ``Z(t) = max(|S(t) − t(L + 1)/2| − 1/2, 0) / sqrt(c · t(L − t)/12 ·
    (L + 1 − Σ(τ³ − τ)/(L(L − 1))))`` with c = ``inflation`` (values) or
    ``step_inflation`` (steps). Returns ``(split, statistic, step_split, step_statistic)``:
    the first arg-max t (relative to ``start``) and Z there, ``(δ, 0.0)`` when every
    value is tied or (steps) when ``steps`` is False. The caller guarantees L >= 2δ.
    """
    window = x[start:end]
    length = window.shape[0]
    level_split = step_split = min_size
    level_z = step_z = 0.0
    for scan in range(2 if steps else 1):
        values = window if scan == 0 else absolute_steps(window)
        factor = inflation if scan == 0 else step_inflation
        ranks, ties = midranks(values)
        spread = (length + 1) - ties / (length * (length - 1.0))
        if not spread > 0.0:  # all values tied: no evidence of any change
            continue
        partial = 0.0
        for i in range(min_size - 1):
            partial += ranks[i]
        best = min_size
        best_z = -1.0
        for t in range(min_size, length - min_size + 1):
            partial += ranks[t - 1]
            split = float(t)
            variance = split * (length - split) / 12.0 * spread * factor
            deviation = abs(partial - split * (length + 1) / 2.0) - 0.5
            if 0.0 > deviation:  # max(deviation, 0.0)
                deviation = 0.0
            z = deviation / math.sqrt(variance)
            if z > best_z:
                best = t
                best_z = z
        if scan == 0:
            level_split, level_z = best, best_z
        else:
            step_split, step_z = best, best_z
    return level_split, level_z, step_split, step_z


@kernel(interpret="linear", vectorised=_vec.clipped_sides)
def clipped_sides(window: np.ndarray, provisional: int, clip: float) -> np.ndarray:
    """Copy of ``window`` with each side of the split ``provisional`` clipped to its median
    ± ``clip``·1.4826·MAD (a side with MAD 0 is left as it is): the spike-robust values of
    :func:`posterior_location`. ``np.clip`` with ``np.median`` bounds, bit for bit.
    """
    length = window.shape[0]
    values = window.copy()
    for side in range(2):
        lo = 0 if side == 0 else provisional
        hi = provisional if side == 0 else length
        part = window[lo:hi]
        centre = median(part)
        deviations = np.empty(hi - lo)
        for i in range(hi - lo):
            deviations[i] = abs(part[i] - centre)
        spread = 1.4826 * median(deviations)
        if spread > 0.0:
            low = centre - clip * spread
            high = centre + clip * spread
            for i in range(lo, hi):
                value = window[i]  # min(max(window[i], low), high)
                if low > value:
                    value = low
                if high < value:
                    value = high
                values[i] = value
    return values


@kernel(interpret="linear", vectorised=_vec.posterior_location)
def posterior_location(values: np.ndarray, mean: float, min_size: int, tolerance: int) -> int:
    """Posterior window estimate of one change in the window ``values`` (0-based split).

    ``values`` are the window's :func:`clipped_sides` (clipped around the split of the rank
    scan, :func:`window_scans` with inflation 1) and ``mean`` their mean (``values.mean()``,
    taken by the caller: NumPy's pairwise summation); on the centred window w the two-level
    ``RSS(t) = Σw² − S(t)² L/(t(L − t))`` over t ∈ [δ, L − δ]; if the minimum is an end of
    that range it is returned, else the posterior ``exp(−(RSS(t) − min RSS)/(2 s²))`` with
    ``s² = min(min RSS/(L − 2), Σ(Δw)²/(2(L − 1)))`` and the split whose ``±tolerance``
    neighbourhood holds the most mass (ties within a relative 1e-9: the one nearest the
    mode). The floating-point operations are NumPy's, in NumPy's order (BLAS dot
    products), so the result equals that of the NumPy statement of the method.
    """
    length = values.shape[0]
    centred = np.empty(length)
    for i in range(length):
        centred[i] = values[i] - mean
    count = length - 2 * min_size + 1
    rss = np.empty(count)
    total = np.dot(centred, centred)
    partial = 0.0
    for i in range(min_size - 1):
        partial += centred[i]
    best = 0
    for j in range(count):
        t = min_size + j
        partial += centred[t - 1]
        rss[j] = total - partial * partial * length / (t * float(length - t))
        if rss[j] < rss[best]:
            best = j
    if best == 0 or best == count - 1:
        return min_size + best
    differences = np.empty(length - 1)
    for i in range(length - 1):
        differences[i] = centred[i + 1] - centred[i]
    successive = np.dot(differences, differences)
    # min(rss[best] / max(length - 2, 1), successive / (2.0 * max(length - 1, 1)))
    noise = rss[best] / (length - 2 if length - 2 > 1 else 1)
    smooth = successive / (2.0 * (length - 1 if length - 1 > 1 else 1))
    if smooth < noise:
        noise = smooth
    if not noise > 0.0:
        return min_size + best
    cumulative = np.empty(count + 1)
    cumulative[0] = 0.0
    running = 0.0
    for j in range(count):
        running += math.exp(-(rss[j] - rss[best]) / (2.0 * noise))
        cumulative[j + 1] = running
    mass = np.empty(count)
    top = -math.inf
    for j in range(count):
        upper = j + tolerance + 1 if j + tolerance + 1 < count else count
        lower = j - tolerance if j - tolerance > 0 else 0
        mass[j] = cumulative[upper] - cumulative[lower]
        if mass[j] > top:
            top = mass[j]
    floor = top * (1.0 - 1e-9)
    chosen = -1
    for j in range(count):
        if mass[j] >= floor and (chosen < 0 or abs(j - best) < abs(chosen - best)):
            chosen = j
    return min_size + chosen


# O(n · width)
@kernel(interpret="quadratic", vectorised=_vec.residual_rank_lag1)
def residual_rank_lag1(x: np.ndarray, width: int, bounds: np.ndarray) -> float:
    """Lag-1 autocorrelation of the mid-ranks of the residuals of ``x`` (0.0 when all are
    tied or there are fewer than three values).

    The residuals are ``x`` minus the median of its segment ``x[bounds[j]:bounds[j + 1]]``
    when ``bounds`` is given (at least two entries), otherwise ``x`` minus its centred
    running median of odd ``width``, edges continued with the nearest value
    (``scipy.ndimage.median_filter(x, size=width, mode="nearest")``). The running median
    keeps the window sorted: each step overwrites the leaving value (binary search) with the
    entering one and moves that to its place (O(n·width) moves at worst).
    """
    n = x.shape[0]
    if n < 3:
        return 0.0
    residual = np.empty(n)
    if bounds.shape[0] >= 2:
        for j in range(bounds.shape[0] - 1):
            left = bounds[j]
            right = bounds[j + 1]
            centre = median(x[left:right])
            for i in range(left, right):
                residual[i] = x[i] - centre
    else:
        half = width // 2
        padded = np.empty(n + 2 * half)  # x continued with its edge values
        for k in range(n + 2 * half):
            padded[k] = x[0] if k < half else (x[n - 1] if k - half >= n else x[k - half])
        window = np.empty(width)  # the sorted values of the window ending at padded[k]
        for k in range(n + 2 * half):
            entering = padded[k]
            slot = k  # while the first window fills: the next free slot
            if k >= width:  # the slot of the value leaving the window (it is there)
                leaving = padded[k - width]
                slot = 0
                hi = width - 1
                while slot < hi:
                    mid = (slot + hi) // 2
                    if window[mid] < leaving:
                        slot = mid + 1
                    else:
                        hi = mid
            while slot > 0 and window[slot - 1] > entering:  # move entering to its place
                window[slot] = window[slot - 1]
                slot -= 1
            while slot < width - 1 and slot < k and window[slot + 1] < entering:
                window[slot] = window[slot + 1]
                slot += 1
            window[slot] = entering
            if k >= width - 1:
                residual[k - 2 * half] = x[k - 2 * half] - window[half]
    ranks, _ = midranks(residual)
    centred = np.empty(n)
    for i in range(n):
        centred[i] = ranks[i] - (n + 1) / 2.0
    denominator = np.dot(centred, centred)
    if denominator == 0.0:
        return 0.0
    return float(np.dot(centred[:-1], centred[1:]) / denominator)
