"""Kernels of the work-per-second (WPS) regression.

Reference: ``docs/algorithms/wps.md`` (block means and ordinary least squares; Pilot's
block sums for ``method="pilot"``); Pilot, ``lib/priv_include/libpilotcpp.h``
(``pilot_wps_warmup_removal_lr_method``). Inputs are validated, C-contiguous float64 arrays;
nothing here raises user-facing errors.
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel


@kernel(interpret="linear")
def block_line_fit(
    work: np.ndarray, durations: np.ndarray, q: int, sums: bool
) -> tuple[float, float, float, float, float, float, float]:
    """Ordinary least squares of block durations on block work amounts.

    Parameters
    ----------
    work : ndarray of float64, shape (n,)
        Work amounts of the kept rounds, in execution order.
    durations : ndarray of float64, shape (n,)
        Durations (s) of the same rounds.
    q : int
        Block (subsession) size, ``h = n // q >= 3``; the trailing ``n - h q`` rounds are
        left out.
    sums : bool
        Aggregate each block by its sum (Pilot) instead of its mean.

    Returns
    -------
    alpha : float
        Intercept ``Ybar - beta Xbar`` (s).
    beta : float
        Slope ``S_xy / S_xx`` (s per unit of work); NaN when ``S_xx == 0``.
    ssr : float
        Sum of squared residuals of the ``h`` block points (s²).
    s_xx : float
        Centred sum of squares of the block work amounts.
    s_yy : float
        Centred sum of squares of the block durations.
    x_mean : float
        Mean of the block work amounts ``Xbar``.
    y_mean : float
        Mean of the block durations ``Ybar``.

    Notes
    -----
    Two passes in float64 (means first, then centred sums), because the
    noise-free reference case of the tests needs about 1e-12 relative accuracy of the slope.
    Cost O(n).
    """
    h = work.shape[0] // q
    xs = np.empty(h)
    ys = np.empty(h)
    for j in range(h):
        total_x = 0.0
        total_y = 0.0
        for i in range(j * q, (j + 1) * q):
            total_x += work[i]
            total_y += durations[i]
        if sums:
            xs[j] = total_x
            ys[j] = total_y
        else:
            xs[j] = total_x / q
            ys[j] = total_y / q
    x_mean = 0.0
    y_mean = 0.0
    for j in range(h):
        x_mean += xs[j]
        y_mean += ys[j]
    x_mean /= h
    y_mean /= h
    s_xx = 0.0
    s_xy = 0.0
    s_yy = 0.0
    for j in range(h):
        dx = xs[j] - x_mean
        dy = ys[j] - y_mean
        s_xx += dx * dx
        s_xy += dx * dy
        s_yy += dy * dy
    if s_xx == 0.0:
        return np.nan, np.nan, np.nan, s_xx, s_yy, x_mean, y_mean
    beta = s_xy / s_xx
    alpha = y_mean - beta * x_mean
    ssr = 0.0
    for j in range(h):
        residual = ys[j] - alpha - beta * xs[j]
        ssr += residual * residual
    return alpha, beta, ssr, s_xx, s_yy, x_mean, y_mean
