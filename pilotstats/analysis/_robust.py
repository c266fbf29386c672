"""Headline statistics other than the mean, on the subsessions the mean's analysis chose.

With the subsession size ``q`` of :func:`~pilotstats.autocorrelation.subsession_analysis`
(blocks whose statistics are nearly uncorrelated), ``h = n // q`` blocks from the start:

* ``"median"``: the median of the samples, with a distribution-free order-statistic
  interval for the median of the block medians (binomial ranks, coverage >= the level).
  For Welch tests the interval is turned into a standard error (its half-width over the t
  quantile), so a few extreme samples do not inflate the variance.
* ``"min"``: the mean of the block minima (the typical best case of a block of ``q``
  samples, robust to the rare slow outlier), with a t interval on the ``h`` block minima.
  The sample minimum itself has no distribution-free interval and is never reported as one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

__all__ = ["STATISTICS", "block_statistic"]

#: The ``summary_statistic`` choices and the label each puts in a report.
STATISTICS = {"mean": "mean", "median": "median", "min": "subsession min"}


def block_statistic(values: np.ndarray, q: int, summary_statistic: str,
                    confidence_level: float) -> dict[str, Any]:
    """Estimate, interval and block variance of a summary statistic ("median" or "min").

    Returns the ``mean``/``ci_low``/``ci_high``/``subsession_variance``/``n_subsessions``
    entries of a :class:`~pilotstats.analysis.BenchmarkAnalysis` (``ci_low``/``ci_high``
    None when ``h`` is too small for the interval) and a list of notes.
    """
    h = values.size // q
    blocks = values[: h * q].reshape(h, q)
    notes: list[str] = []
    alpha = 1.0 - confidence_level
    if summary_statistic == "median":
        per_block = np.median(blocks, axis=1)
        estimate = float(np.median(values))
        ordered = np.sort(per_block)
        rank = int(stats.binom.ppf(alpha / 2.0, h, 0.5))  # 1-based rank of the lower bound
        quantile = float(stats.t.ppf(1.0 - alpha / 2.0, h - 1)) if h > 1 else math.nan
        variance: float | None = None
        if rank >= 1:
            lower, upper = float(ordered[rank - 1]), float(ordered[h - rank])
            low: float | None = lower
            high: float | None = upper
            if math.isfinite(quantile):
                variance = h * ((upper - lower) / (2.0 * quantile)) ** 2
        else:
            low = high = None
            notes.append(f"{h} subsessions are too few for an order-statistic interval of the "
                         f"median at {confidence_level:g}")
        return {"mean": estimate, "ci_low": low, "ci_high": high,
                "subsession_variance": variance, "n_subsessions": h, "notes": notes}
    per_block = blocks.min(axis=1)
    estimate = float(per_block.mean())
    spread = float(per_block.std(ddof=1)) if h > 1 else math.nan
    half = float(stats.t.ppf(1.0 - alpha / 2.0, h - 1)) * spread / math.sqrt(h) if h > 1 \
        else math.nan
    low, high = (estimate - half, estimate + half) if math.isfinite(half) else (None, None)
    variance = float(per_block.var(ddof=1)) if h > 1 else None
    return {"mean": estimate, "ci_low": low, "ci_high": high, "subsession_variance": variance,
            "n_subsessions": h, "notes": notes}
