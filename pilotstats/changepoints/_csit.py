"""The trend vocabulary shared by every pillar, as jumpavg and FD.io CSIT use it.

Direction labels (:data:`~pilotstats._typing.ChangeLabel`): a new level is a
``"regression"`` when it is worse than the previous one, a ``"progression"`` when it is
better, ``"normal"`` when equal (:func:`classify_change`). Relative changes are fractions
(:func:`relative_change`; multiply by 100 for percent). CSIT's long-term reference is the
best trend of a window of older runs (:func:`long_term_reference`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from pilotstats._typing import ChangeLabel

__all__ = [
    "LongTermReference",
    "classify_change",
    "long_term_reference",
    "relative_change",
    "run_window",
]


def classify_change(after: float, before: float, higher_is_better: bool) -> ChangeLabel:
    """Label a level ``after`` against the previous level ``before``.

    Parameters
    ----------
    after : float
        The new level (a segment or group mean).
    before : float
        The previous level.
    higher_is_better : bool
        Direction: True for throughput-like values, False for durations.

    Returns
    -------
    {"normal", "regression", "progression"}
        ``"regression"`` when ``after`` is worse than ``before``, ``"progression"`` when it
        is better, ``"normal"`` when neither is the case (equal levels, or a NaN).

    Examples
    --------
    >>> from pilotstats.changepoints._csit import classify_change
    >>> classify_change(9.0, 10.0, higher_is_better=True)
    'regression'
    >>> classify_change(9.0, 10.0, higher_is_better=False)
    'progression'
    """
    if after < before:
        return "regression" if higher_is_better else "progression"
    if after > before:
        return "progression" if higher_is_better else "regression"
    return "normal"


def relative_change(value: float, reference: float) -> float:
    """``(value − reference) / reference`` as a fraction; NaN when either is not finite or
    the reference is 0."""
    if not math.isfinite(reference) or reference == 0.0 or not math.isfinite(value):
        return math.nan
    return (value - reference) / reference


@dataclasses.dataclass(frozen=True, slots=True)
class LongTermReference:
    """CSIT's long-term reference of a trend.

    Attributes
    ----------
    value : float
        Best trend of the window (max when higher is better); NaN when it has none.
    start, end : int or None
        First and last run (inclusive) of the window; None when it is empty.
    earliest : bool
        The history was shorter than the short window and the earliest available trend
        was taken.
    """

    value: float
    start: int | None
    end: int | None
    earliest: bool


def run_window(n: int, short_window: int, long_window: int) -> tuple[np.ndarray, bool, int]:
    """The runs-as-time reference window of a trend whose last run with a trend is n − 1.

    Returns the candidate runs ``max(0, n − L) .. n − 1 − S`` (CSIT's slice
    ``trend[n − min(n, L) : n − min(n, S)]``), whether the history is short (``n <= S``)
    and the oldest run the window may reach.
    """
    lo = n - min(n, long_window)
    hi = n - min(n, short_window)  # exclusive
    return np.arange(lo, hi), n <= short_window, max(0, n - long_window)


def long_term_reference(
    trend: np.ndarray,
    n: int,
    window: tuple[np.ndarray, bool, int],
    higher_is_better: bool,
) -> LongTermReference:
    """CSIT's long-term reference: the best trend over the candidate runs of ``window``.

    Parameters
    ----------
    trend : ndarray of float64
        Trend (group or segment mean) of every run, NaN where missing.
    n : int
        One past the last run with a trend.
    window : tuple
        ``(candidates, short_history, oldest)`` as :func:`run_window` returns them (or the
        real-time window of :func:`~pilotstats.changepoints.trend_compliance`).
    higher_is_better : bool
        Max (True) or min (False) of the window.

    Returns
    -------
    LongTermReference
        "If the history is too short, the earliest available trend is used" (CSIT): with a
        short history the reference is the first run from ``oldest`` that has a trend.
    """
    candidates, short_history, oldest = window
    earliest = False
    if short_history:
        present = np.flatnonzero(~np.isnan(trend[oldest:n]))
        candidates = present[:1] + oldest
        earliest = bool(candidates.size)
    values = trend[candidates]
    finite = values[~np.isnan(values)]
    if not finite.size:
        return LongTermReference(math.nan, None, None, earliest)
    best = float(finite.max() if higher_is_better else finite.min())
    return LongTermReference(best, int(candidates[0]), int(candidates[-1]), earliest)
