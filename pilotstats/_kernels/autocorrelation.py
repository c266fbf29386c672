"""Kernels of the subsession (block-mean) analysis.

Reference: Pilot, ``lib/priv_include/libpilotcpp.h`` (``pilot_subsession_var``,
``pilot_subsession_cov``, ``pilot_subsession_autocorrelation_coefficient``,
``pilot_optimal_subsession_size``); documentation ``docs/algorithms/subsession.md``.
Inputs are validated, C-contiguous float64 arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel


@kernel
def compensated_add(total: float, compensation: float, value: float) -> tuple[float, float]:
    """One step of Neumaier's compensated summation: ``(total + value, compensation')``.

    The rounding error of ``total + value`` is added to ``compensation``, so that
    ``total + compensation`` carries the sum to about twice the working precision
    (A. Neumaier, ZAMM 54 (1974) 39–51).
    """
    t = total + value
    if abs(total) >= abs(value):
        compensation += (total - t) + value
    else:
        compensation += (value - t) + total
    return t, compensation


@kernel(interpret="linear")
def overall_mean(x: np.ndarray, harmonic: bool) -> float:
    """Mean of all samples: arithmetic ``sum(x)/n`` or harmonic ``n/sum(1/x)``.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        Samples, n >= 1 (strictly positive in harmonic mode).
    harmonic : bool
        Use the harmonic mean.

    Returns
    -------
    float

    Notes
    -----
    The sum runs over ``y_i - y_0`` (``y = x`` or ``1/x``) with Neumaier's compensated
    summation, so a large common offset (samples near 1e9 differing in the last digits)
    neither loses the differences nor accumulates rounding error with n: the error is
    O(eps) relative to the spread, not O(n·eps) relative to the offset as with a naive sum.
    Values within a factor 2**960 of the float64 limit are scaled by an exact power of two
    so that the sum cannot overflow. O(n).
    """
    n = x.shape[0]
    scale = 1.0
    for i in range(n):
        if not harmonic and abs(x[i]) > 2.0**960:
            scale = 2.0**-32
            break
    shift = (1.0 / x[0] if harmonic else x[0]) * scale
    total = 0.0
    compensation = 0.0
    for i in range(n):
        value = (1.0 / x[i] if harmonic else x[i]) * scale - shift
        total, compensation = compensated_add(total, compensation, value)
    mean_y = shift + (total + compensation) / n
    if harmonic:
        return float(1.0 / mean_y)
    return float(mean_y / scale)


@kernel(python_entry=True, interpret="linear")  # also called from Python
def block_moments(
    x: np.ndarray, q: int | np.int64, harmonic: bool, m: float
) -> tuple[float, float]:
    """Subsession variance and lag-1 autocovariance of block means about ``m``.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        Samples in time order.
    q : int
        Block (subsession) size, ``1 <= q`` and ``h = n // q >= 2``.
    harmonic : bool
        Block means are harmonic means ``q / sum(1/x)`` instead of arithmetic ones.
    m : float
        Overall mean of all n samples (same mean method).

    Returns
    -------
    s2 : float
        ``sum_j (u_j - m)^2 / (h - 1)``.
    g : float
        ``sum_j (u_j - m)(u_{j+1} - m) / (h - 1)``.

    Notes
    -----
    Two passes in float64: the overall mean is computed first (by the caller), then the
    centred sums. Block sums run over ``y_i - y_0`` (``y = x``, or ``1/x`` for harmonic
    means) with Neumaier compensation, and the deviation of an arithmetic block mean is
    formed as ``mean(x - x_0) - (m - x_0)``, so a large common offset does not cancel the
    deviations and constant data give deviations of exactly 0. Cost O(h q) = O(n).
    """
    h = x.shape[0] // q
    shift = 1.0 / x[0] if harmonic else x[0]
    if not harmonic and abs(shift) > 2.0**960:
        shift = 0.0  # differences of values this large could overflow
    centre = m - shift
    sum_squares = 0.0
    sum_lagged = 0.0
    previous = 0.0
    block_total = 0.0
    compensation = 0.0
    filled = 0  # samples in the current block
    for i in range(h * q):  # one flat loop: as fast for q = 1 as for long blocks
        value = (1.0 / x[i] if harmonic else x[i]) - shift
        block_total, compensation = compensated_add(block_total, compensation, value)
        filled += 1
        if filled == q:
            block_total += compensation
            # x / 1 == x exactly: skipping the division keeps q = 1 (the common case) fast
            block_mean = block_total if q == 1 else block_total / q
            if harmonic:
                deviation = 1.0 / (shift + block_mean) - m
            else:
                deviation = block_mean - centre
            sum_squares += deviation * deviation
            if i >= q:  # not the first block
                sum_lagged += previous * deviation
            previous = deviation
            block_total = 0.0
            compensation = 0.0
            filled = 0
    return sum_squares / (h - 1), sum_lagged / (h - 1)


@kernel(interpret="linear")
def lag1_coefficient(x: np.ndarray, q: int | np.int64, harmonic: bool, m: float) -> float:
    """Pilot's lag-1 autocorrelation ``g_q / s2_q`` of block means; 1.0 when undefined.

    Returns 1.0 when fewer than two blocks exist or the ratio is not a number (zero
    variance), exactly as Pilot does. O(n).
    """
    if x.shape[0] // q < 2:
        return 1.0
    s2, g = block_moments(x, q, harmonic, m)
    ratio = g / s2 if s2 != 0.0 else np.nan
    if np.isnan(ratio):
        return 1.0
    return ratio


@kernel(python_entry=True, interpret="linear")  # also called from Python
def extend_prefix_sums(
    x: np.ndarray, start: int | np.int64, stop: int | np.int64, harmonic: bool,
    high: np.ndarray, low: np.ndarray,
) -> None:
    """Continue the double-double prefix sums of ``y_i - s`` over ``x[start:stop]`` in place.

    ``y = x`` (or ``1/x`` when ``harmonic``) and the shift ``s = y_0``; ``high[k] + low[k]``
    is ``sum(y[:k] - s)`` to about twice the working precision (Neumaier's compensated
    summation, the rounding errors accumulated in ``low``). Entries ``start + 1 .. stop``
    are written from ``high[start]``, ``low[start]``, so extending in chunks gives the same
    bits as one pass from ``start = 0`` over zeroed arrays.

    Parameters
    ----------
    x : ndarray of float64, shape (>= stop,)
        Samples (strictly positive in harmonic mode).
    start, stop : int
        Samples already summed, and the number to sum up to.
    harmonic : bool
        Sum reciprocals.
    high, low : ndarray of float64, shape (>= stop + 1,)
        The prefix sums up to ``start`` (zeros for a fresh pass); updated.

    Notes
    -----
    A block sum is the difference of two prefix sums, so every block mean of every
    subsession size costs O(1) after this O(n) pass.
    """
    shift = 1.0 / x[0] if harmonic else x[0]
    total = high[start]
    compensation = low[start]
    for i in range(start, stop):
        value = (1.0 / x[i] if harmonic else x[i]) - shift
        total, compensation = compensated_add(total, compensation, value)
        high[i + 1] = total
        low[i + 1] = compensation


@kernel
def lag1_from_prefix(
    high: np.ndarray, low: np.ndarray, shift: float, n: int, q: int, harmonic: bool,
    m: float,
) -> float:
    """:func:`lag1_coefficient` from the prefix sums of :func:`extend_prefix_sums`, O(n / q).

    Returns 1.0 when fewer than two blocks exist, the variance of the block means is zero
    or the ratio is not a number (as Pilot).
    """
    h = n // q
    if h < 2:
        return 1.0
    centre = m - shift
    sum_squares = 0.0
    sum_lagged = 0.0
    previous = 0.0
    for j in range(h):
        a = j * q
        b = a + q
        block = (high[b] - high[a]) + (low[b] - low[a])
        if harmonic:
            deviation = 1.0 / (shift + block / q) - m
        else:
            deviation = block / q - centre
        sum_squares += deviation * deviation
        if j > 0:
            sum_lagged += previous * deviation
        previous = deviation
    if sum_squares == 0.0:
        return 1.0
    ratio = sum_lagged / sum_squares
    if np.isnan(ratio):
        return 1.0
    return ratio


@kernel(interpret="linear")
def first_subsession_size(x: np.ndarray, limit: float, harmonic: bool, m: float) -> int:
    """First ``q`` in ``1..n//3`` with ``|r1(q)| <= limit``; -1 when none.

    Notes
    -----
    ``q = 1`` is tested first with :func:`lag1_coefficient` (one O(n) pass, the common
    case). Otherwise the scan uses double-double prefix sums of ``y_i - s`` (``y = x`` or
    ``1/x``, ``s = y_0``; Neumaier's compensation accumulates the rounding errors in a
    second array): a block sum is the difference of two prefix sums, so ``r1(q)`` costs
    O(n / q) and the scan O(n log n) even when no size qualifies (a level shift keeps every
    r1(q) near 1); the former direct scan was O(n) per candidate, O(n²) in that case.
    ``r1(q)`` is 1.0 when the variance of the block means is zero or the ratio is not a
    number, as in Pilot. Values beyond 2**960 (whose differences could overflow) are
    scanned directly with :func:`lag1_coefficient`. The prefix sums are those of
    :func:`extend_prefix_sums`, which a benchmark session continues reading by reading
    (:mod:`pilotstats._kernels.session`).
    """
    n = x.shape[0]
    # np.int64(1), not the literal 1: a literal argument would make numba compile
    # lag1_coefficient and block_moments once more, specialised to q = 1
    if n // 3 >= 1 and abs(lag1_coefficient(x, np.int64(1), harmonic, m)) <= limit:
        return 1  # the common case: one O(n) pass, no prefix arrays
    if not harmonic and abs(x[0]) > 2.0**960:
        for q in range(1, n // 3 + 1):
            if abs(lag1_coefficient(x, q, harmonic, m)) <= limit:
                return q
        return -1
    high = np.zeros(n + 1)
    low = np.zeros(n + 1)
    extend_prefix_sums(x, np.int64(0), np.int64(n), harmonic, high, low)
    shift = 1.0 / x[0] if harmonic else x[0]
    for q in range(1, n // 3 + 1):
        if abs(lag1_from_prefix(high, low, shift, n, q, harmonic, m)) <= limit:
            return q
    return -1
