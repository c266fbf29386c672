"""Block (subsession) statistics: lag-1 autocorrelation and the choice of subsession size.

Documentation: ``docs/algorithms/subsession.md``, reproducing Pilot
(``ascar-io/pilot-bench``, ``lib/priv_include/libpilotcpp.h``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._kernels import autocorrelation as _kernels
from pilotstats._stats import arithmetic_scale
from pilotstats._typing import Float64Array1D, MeanMethod
from pilotstats._validation import (
    as_float_array,
    check_autocorrelation_limit,
    check_choice,
    check_int,
)
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
    SubsessionSizeNotFoundError,
)

__all__ = ["lag1_autocorrelation", "optimal_subsession_size"]

MEAN_METHODS: tuple[MeanMethod, ...] = ("arithmetic", "harmonic")


@dataclass(frozen=True, slots=True)
class Samples:
    """Validated samples with their mean method and overall mean ``m``."""

    values: Float64Array1D
    harmonic: bool
    mean: float

    @property
    def n(self) -> int:
        return int(self.values.shape[0])

    @property
    def scale(self) -> float:
        """Power of two that brings the data below 2**500 in magnitude (1.0 usually).

        Squares of deviations of data near the float64 limit overflow; scaling by an exact
        power of two leaves every ratio (r1) unchanged and variances exactly rescalable.
        """
        return arithmetic_scale(self.values)

    def scaled(self) -> Samples:
        """These samples times :attr:`scale` (the same object when the scale is 1)."""
        factor = self.scale
        if factor == 1.0:
            return self
        return Samples(np.ascontiguousarray(self.values * factor), self.harmonic,
                       self.mean * factor)


def prepare(
    x: Any, mean_method: MeanMethod = "arithmetic", *, min_length: int = 1
) -> Samples:
    """Validate ``x`` and compute the overall mean with the chosen mean method."""
    method = check_choice(mean_method, "mean_method", MEAN_METHODS)
    harmonic = method == "harmonic"
    values = as_float_array(x, "x", min_length=min_length, positive=harmonic)
    return Samples(values, harmonic, float(_kernels.overall_mean(values, harmonic)))


def block_moments(samples: Samples, q: int) -> tuple[float, float]:
    """``(s2_q, g_q)`` about the overall mean; needs ``h = n // q >= 2``."""
    blocks = samples.n // q
    if blocks < 2:
        raise NotEnoughDataError(
            f"subsession size {q} leaves {blocks} complete subsession(s) of {samples.n} "
            "samples; need at least 2 (use a smaller subsession_size or more data)"
        )
    small = samples.scaled()
    s2, g = _kernels.block_moments(small.values, q, small.harmonic, small.mean)
    if small is not samples:
        factor = samples.scale
        with np.errstate(over="ignore"):
            s2 = float(np.float64(s2) / factor / factor)
            g = float(np.float64(g) / factor / factor)
        if not math.isfinite(s2):
            raise InvalidInputError(
                "the subsession variance of these data overflows float64 (values near "
                "1e308 with a spread of the same order); rescale the data (change the unit)"
            )
    return float(s2), float(g)


def first_qualifying_size(samples: Samples, limit: float) -> int | None:
    """First ``q`` in ``1..n//3`` with ``|r1(q)| <= limit``, or None."""
    if samples.n <= 1:
        return None
    small = samples.scaled()  # r1 is scale-invariant; this keeps its sums finite
    q = int(_kernels.first_subsession_size(small.values, limit, small.harmonic, small.mean))
    return None if q < 0 else q


def resolve_subsession_size(
    samples: Samples, limit: float, subsession_size: Any
) -> int:
    """The explicit ``subsession_size`` (checked) or the first qualifying one.

    Raises
    ------
    SubsessionSizeNotFoundError
        When no size qualifies; the message says how much data was scanned.
    """
    if subsession_size is not None:
        q = check_int(subsession_size, "subsession_size", low=1)
        if samples.n // q < 2:
            raise NotEnoughDataError(
                f"subsession_size={q} leaves {samples.n // q} complete subsession(s) of "
                f"{samples.n} samples; need at least 2"
            )
        return q
    q_found = first_qualifying_size(samples, limit)
    if q_found is None:
        largest = samples.n // 3
        raise SubsessionSizeNotFoundError(
            f"no subsession size in 1..{largest} brings |lag-1 autocorrelation| of the "
            f"{samples.n} samples to <= {limit:g}; collect more data, raise "
            "autocorrelation_limit, or pass subsession_size explicitly"
        )
    return q_found


def lag1_autocorrelation(
    x: Any, subsession_size: int = 1, *, mean_method: MeanMethod = "arithmetic"
) -> float:
    """Lag-1 autocorrelation of subsession means about the overall mean (Pilot's r1).

    Parameters
    ----------
    x : array_like, shape (n,)
        Samples in time order (finite; strictly positive for ``mean_method="harmonic"``).
    subsession_size : int, default 1
        Block size ``q``; block ``j`` holds ``x[(j-1)q : jq]``; trailing samples are unused
        by the blocks but count in the overall mean.
    mean_method : {"arithmetic", "harmonic"}, default "arithmetic"
        Mean used for block means and for the overall mean ``m``.

    Returns
    -------
    float
        ``r1(q) = sum_j (u_j - m)(u_{j+1} - m) / sum_j (u_j - m)^2``, in [-1, 1]. As in Pilot,
        1.0 when fewer than two blocks exist or the ratio is undefined (constant data).

    Raises
    ------
    InvalidInputError
        ``x`` not a finite 1-D numeric array, ``subsession_size`` not a positive integer,
        unknown ``mean_method``, or non-positive data with ``mean_method="harmonic"``.
    NotEnoughDataError
        ``x`` is empty.

    Notes
    -----
    ``docs/algorithms/subsession.md`` (*Block statistics*); Pilot
    ``pilot_subsession_autocorrelation_coefficient`` in ``lib/priv_include/libpilotcpp.h``.
    Both sums are taken about the mean of *all* samples, not the mean of block means.
    Cost O(n).

    Examples
    --------
    >>> from pilotstats.datasets import ferrari_response_times
    >>> round(lag1_autocorrelation(ferrari_response_times()), 6)
    0.636556
    >>> round(lag1_autocorrelation(ferrari_response_times(), 4), 6)
    0.08231
    """
    samples = prepare(x, mean_method).scaled()  # r1 is scale-invariant; keeps its sums finite
    q = check_int(subsession_size, "subsession_size", low=1)
    return float(_kernels.lag1_coefficient(samples.values, q, samples.harmonic, samples.mean))


def optimal_subsession_size(
    x: Any,
    *,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    mean_method: MeanMethod = "arithmetic",
) -> int | None:
    """Smallest subsession size whose block means are nearly uncorrelated.

    Parameters
    ----------
    x : array_like, shape (n,)
        Samples in time order.
    autocorrelation_limit : float in (0, 1], default 0.1
        Accept ``q`` when ``|r1(q)| <= autocorrelation_limit``.
    mean_method : {"arithmetic", "harmonic"}, default "arithmetic"
        Mean used for block means.

    Returns
    -------
    int or None
        The first ``q`` in ``1, 2, ..., floor(n/3)`` that qualifies (so at least three
        blocks remain), or None when none does or ``n <= 1``.

    Raises
    ------
    InvalidInputError
        Invalid data or a limit outside (0, 1].
    NotEnoughDataError
        ``x`` is empty.

    Notes
    -----
    ``docs/algorithms/subsession.md``; Pilot ``pilot_optimal_subsession_size``.
    Strong negative autocorrelation is rejected too (absolute value). Complexity: O(n)
    when q = 1 qualifies; otherwise the candidates are evaluated from double-double prefix
    sums at O(n/q) each, O(n log n) in total even when nothing qualifies (a level shift).

    Examples
    --------
    >>> from pilotstats.datasets import ferrari_response_times
    >>> optimal_subsession_size(ferrari_response_times())
    4
    """
    limit = check_autocorrelation_limit(autocorrelation_limit)
    return first_qualifying_size(prepare(x, mean_method), limit)
