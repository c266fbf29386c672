"""Isolated outlier rounds of a work-per-second design (used by the work planner).

A single round that took 1000 times its normal duration (a descheduled process, a page-cache
flush, a stray ``sleep``) dominates the least-squares fit of ``t = alpha + w / v``: the
throughput interval explodes and a CI-driven session never meets its target. The planner
excludes such rounds from its fit and reports them.
"""

from __future__ import annotations

import numpy as np

from pilotstats._typing import Float64Array1D

__all__: list[str] = []

#: Robust z-score above which a round is an outlier (10 robust standard deviations: a
#: Gaussian round exceeds it with probability about 2e-23, so clean sessions lose nothing).
OUTLIER_THRESHOLD = 10.0
#: Largest fraction of the rounds that may be excluded: outliers must be isolated.
MAX_OUTLIER_FRACTION = 0.1
#: Fewest rounds before outliers are looked for.
MIN_ROUNDS = 5


def isolated_outliers(
    work: Float64Array1D,
    durations: Float64Array1D,
    *,
    threshold: float = OUTLIER_THRESHOLD,
    max_fraction: float = MAX_OUTLIER_FRACTION,
) -> list[int]:
    """Positions of isolated outlier rounds, by iterated robust residual screening.

    Parameters
    ----------
    work, durations : ndarray, shape (n,)
        Work amounts and durations (s) of the rounds eligible for the fit, in order.
    threshold : float, default 10
        A round is an outlier when ``|e_i| > threshold * s``, where ``e_i`` is its residual
        from the least-squares line through the rounds still kept and
        ``s = 1.4826 * median(|e_j - median(e)|)`` (the normal-consistent median absolute
        deviation of the kept residuals).
    max_fraction : float, default 0.1
        At most ``max(1, floor(max_fraction * n))`` rounds are excluded.

    Returns
    -------
    list of int
        Positions (into ``work``) of the excluded rounds, in the order found.

    Notes
    -----
    One round is removed per step, the one with the largest residual, and the line is
    refitted, so a gross outlier cannot hide a smaller one by pulling the line (masking).
    The scale is robust (Hampel's median absolute deviation), so the outlier does not
    inflate it. Cost: ``O(k n)`` for ``k`` removed rounds, plus one median per step.

    Examples
    --------
    >>> import numpy as np
    >>> work = np.arange(1.0, 21.0) * 1e3
    >>> durations = 0.05 + work / 1e4 + 0.001 * np.sin(np.arange(20))
    >>> durations[7] *= 1000.0
    >>> isolated_outliers(work, durations)
    [7]
    """
    n = int(work.shape[0])
    if n < MIN_ROUNDS:
        return []
    keep = np.ones(n, dtype=bool)
    removed: list[int] = []
    budget = max(1, int(max_fraction * n))
    floor = 1e-12 * float(np.median(np.abs(durations)))
    while len(removed) < budget and int(keep.sum()) > MIN_ROUNDS:
        x, y = work[keep], durations[keep]
        x_bar, y_bar = float(x.mean()), float(y.mean())
        sxx = float(np.sum((x - x_bar) ** 2))
        slope = 0.0 if sxx == 0.0 else float(np.sum((x - x_bar) * (y - y_bar))) / sxx
        residuals = durations - (y_bar + slope * (work - x_bar))
        kept = residuals[keep]
        scale = 1.4826 * float(np.median(np.abs(kept - np.median(kept))))
        scale = max(scale, floor)
        magnitude = np.where(keep, np.abs(residuals), -1.0)
        worst = int(np.argmax(magnitude))
        if magnitude[worst] <= threshold * scale:
            break
        keep[worst] = False
        removed.append(worst)
    return removed
