"""Kernels of the subsession (block-mean) analysis.

Reference: Pilot, ``lib/priv_include/libpilotcpp.h`` (``pilot_subsession_var``,
``pilot_subsession_cov``, ``pilot_subsession_autocorrelation_coefficient``,
``pilot_optimal_subsession_size``); specification ``specs/autocorrelation.md`` §2–§3.
Inputs are validated, C-contiguous float64 arrays; nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel


@kernel
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
    """
    n = x.shape[0]
    total = 0.0
    if harmonic:
        for i in range(n):
            total += 1.0 / x[i]
        return float(n / total)
    for i in range(n):
        total += x[i]
    return float(total / n)


@kernel
def block_moments(x: np.ndarray, q: int, harmonic: bool, m: float) -> tuple[float, float]:
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
        ``sum_j (u_j - m)^2 / (h - 1)`` (spec §2.2).
    g : float
        ``sum_j (u_j - m)(u_{j+1} - m) / (h - 1)``.

    Notes
    -----
    Two passes in float64: the overall mean is computed first (by the caller), then the
    centred sums. Cost O(h q) = O(n).
    """
    h = x.shape[0] // q
    sum_squares = 0.0
    sum_lagged = 0.0
    previous = 0.0
    for j in range(h):
        block_total = 0.0
        start = j * q
        if harmonic:
            for i in range(start, start + q):
                block_total += 1.0 / x[i]
            deviation = q / block_total - m
        else:
            for i in range(start, start + q):
                block_total += x[i]
            deviation = block_total / q - m
        sum_squares += deviation * deviation
        if j > 0:
            sum_lagged += previous * deviation
        previous = deviation
    return sum_squares / (h - 1), sum_lagged / (h - 1)


@kernel
def lag1_coefficient(x: np.ndarray, q: int, harmonic: bool, m: float) -> float:
    """Pilot's lag-1 autocorrelation ``g_q / s2_q`` of block means; 1.0 when undefined.

    Returns 1.0 when fewer than two blocks exist or the ratio is not a number (zero
    variance), exactly as Pilot does (spec §2.2).
    """
    if x.shape[0] // q < 2:
        return 1.0
    s2, g = block_moments(x, q, harmonic, m)
    ratio = g / s2 if s2 != 0.0 else np.nan
    if np.isnan(ratio):
        return 1.0
    return ratio


@kernel
def first_subsession_size(x: np.ndarray, limit: float, harmonic: bool, m: float) -> int:
    """First ``q`` in ``1..n//3`` with ``|r1(q)| <= limit``; -1 when none (spec §3).

    Cost: O(n) per candidate ``q``; the scan stops at the first qualifying size.
    """
    n = x.shape[0]
    for q in range(1, n // 3 + 1):
        if abs(lag1_coefficient(x, q, harmonic, m)) <= limit:
            return q
    return -1
