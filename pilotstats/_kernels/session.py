"""Kernels of the incremental benchmark session (:mod:`pilotstats.session._incremental`).

A session's index holds a growing series. These kernels extend, reading by reading, the
double-double prefix sums of :func:`pilotstats._kernels.autocorrelation.extend_prefix_sums`
(bit for bit: the same loop, continued) and, for every subsession size ``q`` scanned so
far, running sums of the block means about a reference; from them they bound the centred
sums that :func:`~pilotstats._kernels.autocorrelation.block_moments` and
:func:`~pilotstats._kernels.autocorrelation.lag1_from_prefix` would compute, with the
rounding errors of both paths, so that the session can decide in O(1) per size what the
full scan decides in O(n / q). Arithmetic means only; inputs are validated, C-contiguous
float64 arrays with ``max |x| <= 2**500``.

Row ``q`` of the block table holds ``[h, rho, s1, s2, sp, sa, first, last]``: the ``h``
complete blocks summed so far, the reference ``rho`` and, with ``d_j = b_j - rho`` (``b_j``
the block mean of the prefix path), ``sum d_j``, ``sum d_j^2``, ``sum d_{j-1} d_j``,
``sum |d_j|``, ``b_0`` and ``b_{h-1}``. Row 0 is unused.
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats._kernels._jit import kernel

#: Unit roundoff of float64.
_U = 2.0**-53


@kernel(interpret="linear")
def extend_blocks(
    high: np.ndarray, low: np.ndarray, n: int, table: np.ndarray, centre: float
) -> None:
    """Add the blocks completed by the first ``n`` samples to every row of ``table``.

    A row whose reference has drifted from ``centre`` by more than twice the spread of its
    block means (``h (centre - rho)^2 > 4 s2``) is rebuilt about ``centre``, as is a new row
    (``h = 0``), so the centred sums need no cancellation. Cost O(rows + new blocks), plus
    O(n / q) for a rebuilt row.
    """
    for q in range(1, table.shape[0]):
        h = int(table[q, 0])
        rho = table[q, 1]
        if h > 0:
            delta = centre - rho
            if h * delta * delta > 4.0 * table[q, 3]:
                h = 0
        if h == 0:
            rho = centre
            for k in range(8):
                table[q, k] = 0.0
            table[q, 1] = rho
        s1 = table[q, 2]
        s2 = table[q, 3]
        sp = table[q, 4]
        sa = table[q, 5]
        last = table[q, 7]
        for j in range(h, n // q):
            a = j * q
            b = a + q
            block = (high[b] - high[a]) + (low[b] - low[a])
            value = block / q
            d = value - rho
            s1 += d
            s2 += d * d
            sa += abs(d)
            if j > 0:
                sp += (last - rho) * d
            else:
                table[q, 6] = value
            last = value
        table[q, 0] = float(max(h, n // q))
        table[q, 2] = s1
        table[q, 3] = s2
        table[q, 4] = sp
        table[q, 5] = sa
        table[q, 7] = last


@kernel(interpret="linear")
def moment_bounds(
    table: np.ndarray, q: int, centre: float, n: int, spread: float, peak_low: float
) -> tuple[float, float, float, float]:
    """Bounds on the centred block sums the full analysis computes at size ``q``.

    Parameters
    ----------
    table : ndarray of float64, shape (rows, 8)
        The block table, up to date for ``n`` samples.
    q : int
        Subsession size (a row of ``table``).
    centre : float
        ``m - x_0``, the overall mean minus the shift (as the full analysis forms it).
    n : int
        Number of samples.
    spread : float
        An upper bound on ``sum |x_i - x_0|``.
    peak_low : float
        ``max |low|`` of the prefix sums.

    Returns
    -------
    ss_low, ss_high : float
        Bounds on ``sum_j (b_j - centre)^2`` as either path (block sums of
        ``block_moments``, prefix differences of ``lag1_from_prefix``) computes it.
    sl_low, sl_high : float
        Bounds on ``sum_j (b_{j-1} - centre)(b_j - centre)`` likewise.

    Notes
    -----
    With ``a_j = b_j - rho`` and ``D = centre - rho``, ``T = sum a^2 - 2 D sum a + h D^2``
    and ``L = sum a_{j-1} a_j - D (2 sum a - a_0 - a_{h-1}) + (h - 1) D^2``; the running
    float sums err by at most ``gamma_{h+3}`` times ``M = s2 + 2 |D| sa + h D^2``. The block
    means of the two paths differ from the exact ones by at most ``E`` in the 2-norm
    (relative ``4u`` per mean, plus the compensation terms), which moves ``sqrt(T)`` by at
    most ``E`` and ``L`` by at most ``E (2 sqrt(T) + E)``; the recursive sums of the full
    analysis add ``gamma_{h+3} T`` to each. Every bound is doubled for safety. O(1).
    """
    h = table[q, 0]
    rho = table[q, 1]
    s1 = table[q, 2]
    s2 = table[q, 3]
    sp = table[q, 4]
    sa = table[q, 5]
    delta = centre - rho
    gamma = 2.0 * (h + 16.0) * _U
    mass = s2 + 2.0 * abs(delta) * sa + h * delta * delta
    total = s2 - 2.0 * delta * s1 + h * delta * delta
    lagged = (
        sp
        - delta * (2.0 * s1 - (table[q, 6] - rho) - (table[q, 7] - rho))
        + (h - 1.0) * delta * delta
    )
    error = 8.0 * gamma * mass
    t_low = max(0.0, total - error)
    t_high = total + error
    root_h = math.sqrt(h)
    norm = math.sqrt(s2 * (1.0 + gamma)) + root_h * (abs(rho) + abs(delta))
    shift_error = (
        16.0 * _U * (norm + 2.0 * root_h * peak_low / q)
        + 16.0 * n * n * _U * _U * spread * root_h / q
    )
    root_low = max(0.0, math.sqrt(t_low) * (1.0 - 4.0 * _U) - shift_error)
    root_high = math.sqrt(t_high) * (1.0 + 4.0 * _U) + shift_error
    ss_low = root_low * root_low * (1.0 - 2.0 * gamma)
    ss_high = root_high * root_high * (1.0 + 2.0 * gamma)
    width = error + shift_error * (2.0 * root_high + shift_error) + 2.0 * gamma * ss_high
    return ss_low, ss_high, lagged - width, lagged + width


@kernel(interpret="linear")
def certified_subsession_size(
    table: np.ndarray, centre: float, n: int, spread: float, peak_low: float, limit: float
) -> int:
    """The subsession size the full scan chooses, when the bounds settle it.

    Returns
    -------
    int
        The first ``q`` in ``1..n//3`` whose ``|r1(q)| <= limit`` holds for certain, every
        smaller size failing for certain; -1 when every size fails for certain; -2 when
        a size is too close to the limit to decide (or its sums are degenerate); -3 when
        the scan needs rows beyond ``table``.
    """
    margin = 16.0 * _U
    for q in range(1, n // 3 + 1):
        if q >= table.shape[0]:
            return -3
        ss_low, ss_high, sl_low, sl_high = moment_bounds(table, q, centre, n, spread, peak_low)
        if not (math.isfinite(ss_high) and math.isfinite(sl_low) and math.isfinite(sl_high)):
            return -2
        if ss_low > 1e-250:
            largest = max(abs(sl_low), abs(sl_high)) / ss_low * (1.0 + margin)
            if largest <= limit:
                return q
            smallest = 0.0 if sl_low <= 0.0 <= sl_high else min(abs(sl_low), abs(sl_high))
            if smallest / ss_high * (1.0 - margin) > limit:
                continue
        return -2
    return -1
