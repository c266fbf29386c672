"""Confidence interval of a binomial proportion from 0/1 outcomes.

Documentation ``docs/algorithms/subsession.md``: Pilot's Wald interval with a t quantile
(``method="pilot"``) and the Wilson score interval (default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pilotstats import _config
from pilotstats._stats import normal_quantile, two_sided_t
from pilotstats._typing import ProportionMethod
from pilotstats._validation import (
    as_outcomes,
    check_choice,
    check_confidence_level,
    check_real,
)
from pilotstats.results import ConfidenceInterval, Result, format_interval, format_number

__all__ = ["ProportionResult", "proportion_interval", "wilson_interval"]

PROPORTION_METHODS: tuple[ProportionMethod, ...] = ("wilson", "pilot")


def wilson_interval(p_hat: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for ``p_hat`` of ``n`` trials.

    Parameters
    ----------
    p_hat : float in [0, 1]
        Observed proportion of successes.
    n : float >= 1
        Number of trials (a real number, so effective sample sizes are allowed).
    z : float > 0
        Standard normal quantile of the two-sided level, ``Phi^-1((1 + c) / 2)``.

    Returns
    -------
    tuple of float
        ``(low, high)``, always inside [0, 1] and containing ``p_hat``.

    Raises
    ------
    InvalidInputError
        ``p_hat`` outside [0, 1], ``n`` below 1, ``z`` not positive, or any of them
        not a finite real number.

    Notes
    -----
    Wilson (1927); centre ``(p + z^2/2n) / (1 + z^2/n)``, half-width
    ``z/(1 + z^2/n) sqrt(p(1-p)/n + z^2/4n^2)``. Complexity O(1).

    Examples
    --------
    >>> low, high = wilson_interval(0.55, 20, 1.959963984540054)
    >>> round(low, 4), round(high, 4)
    (0.3421, 0.7418)
    """
    p_hat = check_real(p_hat, "p_hat", low=0.0, high=1.0)
    n = check_real(n, "n", low=1.0)
    z = check_real(z, "z", low=0.0, low_inclusive=False)
    shrink = 1.0 + z * z / n
    centre = (p_hat + z * z / (2.0 * n)) / shrink
    half_width = (z / shrink) * math.sqrt(p_hat * (1.0 - p_hat) / n + z * z / (4.0 * n * n))
    # At p_hat = 0 (1) the exact lower (upper) bound is 0 (1); rounding must not move it.
    low = 0.0 if p_hat == 0.0 else max(0.0, centre - half_width)
    high = 1.0 if p_hat == 1.0 else min(1.0, centre + half_width)
    return min(low, p_hat), max(high, p_hat)


def pilot_interval(p_hat: float, n: int, confidence_level: float) -> tuple[float, float]:
    """Pilot's Wald interval with a t quantile, clipped to [0, 1].

    Pilot reports ``p_hat -/+ half_width`` unclipped, which can leave the parameter's
    domain (e.g. [-3.99, 4.99] for two outcomes at a high level); a proportion outside
    [0, 1] is impossible, so the ends are clipped.
    """
    half_width = two_sided_t(confidence_level, n - 1) * math.sqrt(p_hat * (1.0 - p_hat) / n)
    return max(0.0, p_hat - half_width), min(1.0, p_hat + half_width)


@dataclass(frozen=True, slots=True)
class ProportionResult(Result):
    """Estimated proportion of successes with its confidence interval.

    Attributes
    ----------
    proportion : float
        ``p_hat``, the fraction of ones.
    n : int
        Number of outcomes.
    ci_low, ci_high : float
        Interval (asymmetric about ``p_hat`` for Wilson).
    half_width : float
        Half its width, ``(ci_high - ci_low) / 2``.
    confidence_level : float
        Two-sided level.
    method : str
        ``"wilson"`` or ``"pilot"``.

    Examples
    --------
    Returned by :func:`proportion_interval`:

    >>> from pilotstats.autocorrelation import proportion_interval
    >>> from pilotstats.datasets import binary_outcomes
    >>> r = proportion_interval(binary_outcomes())
    >>> print(r)
    proportion 0.55 (95 % CI [0.3421, 0.7418] wilson, n = 20)
    >>> round(r.proportion, 2)
    0.55
    """

    proportion: float
    n: int
    ci_low: float
    ci_high: float
    half_width: float
    confidence_level: float
    method: str

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval at ``confidence_level`` (None: the stored level)."""
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        if self.method == "pilot":
            return ConfidenceInterval(*pilot_interval(self.proportion, self.n, level))
        z = normal_quantile((1.0 + level) / 2.0)
        return ConfidenceInterval(*wilson_interval(self.proportion, self.n, z))

    def __str__(self) -> str:
        return (
            f"proportion {format_number(self.proportion)} "
            f"({format_interval(self.ci_low, self.ci_high, self.confidence_level)} "
            f"{self.method}, n = {self.n})"
        )


def proportion_interval(
    x: Any,
    *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    method: ProportionMethod = "wilson",
) -> ProportionResult:
    """Confidence interval of the proportion of ones in 0/1 outcomes.

    Parameters
    ----------
    x : array_like of {0, 1}, shape (n,)
        Outcomes, n >= 2.
    confidence_level : float in (0, 1), default 0.95
        Two-sided level.
    method : {"wilson", "pilot"}, default "wilson"
        ``"wilson"``: Wilson score interval, always inside [0, 1] and of positive width.
        ``"pilot"``: Pilot's Wald interval with a t quantile,
        ``p_hat -/+ t_{n-1}((1+c)/2) sqrt(p_hat (1 - p_hat) / n)``, clipped to [0, 1]
        (Pilot does not clip, and its interval can leave the parameter's domain; the
        clipped ``half_width`` is then smaller than Pilot's). It has zero width when all
        outcomes agree (kept for compatibility).

    Returns
    -------
    ProportionResult

    Raises
    ------
    InvalidInputError
        Values other than 0 and 1, invalid level or method.
    NotEnoughDataError
        Fewer than 2 outcomes.

    Notes
    -----
    See ``docs/algorithms/subsession.md`` (*Proportions*). Wilson centre
    ``(p + z^2/2n) / (1 + z^2/n)``, half-width
    ``z/(1 + z^2/n) sqrt(p(1-p)/n + z^2/4n^2)`` with ``z = Phi^-1((1+c)/2)``.
    Complexity O(n).

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and statistical
       inference", JASA 22 (1927) 209-212.

    Examples
    --------
    >>> from pilotstats.datasets import binary_outcomes
    >>> round(proportion_interval(binary_outcomes(), method="pilot").half_width, 6)
    0.232834
    >>> print(proportion_interval(binary_outcomes()))
    proportion 0.55 (95 % CI [0.3421, 0.7418] wilson, n = 20)
    """
    level = check_confidence_level(confidence_level)
    chosen = check_choice(method, "method", PROPORTION_METHODS)
    outcomes = as_outcomes(x)
    n = int(outcomes.shape[0])
    p_hat = float(outcomes.mean())
    if chosen == "pilot":
        low, high = pilot_interval(p_hat, n, level)
    else:
        low, high = wilson_interval(p_hat, n, normal_quantile((1.0 + level) / 2.0))
    return ProportionResult(
        proportion=p_hat, n=n, ci_low=low, ci_high=high, half_width=(high - low) / 2.0,
        confidence_level=level, method=chosen,
    )
