"""Confidence interval of a mean from autocorrelated samples by subsession (block) means.

Documentation ``docs/algorithms/subsession.md``; Pilot ``lib/priv_include/libpilotcpp.h``
(``pilot_subsession_confidence_interval``).

:func:`subsession_analysis`, notes:

The ``DataRangeWarning`` fires when ``q`` was scanned, the lag-1 autocorrelation of the
samples is ``r1 >= _config.SUBSESSION_STRONG_AUTOCORRELATION`` and the block means an AR(1)
fit predicts for ``q`` are correlated above
``_config.SUBSESSION_MAX_IMPLIED_AUTOCORRELATION`` (README, "Small samples say so"). Direct
calls only: the analyses built on this function (``analyze``, ``stable_phase``, sessions)
apply it to parts of a series and report their own diagnostics.

See ``docs/algorithms/subsession.md`` (Pilot, ``libpilotcpp.h``). With ``h = n // q``
blocks and ``s2_q = sum_j (u_j - m)^2 / (h - 1)`` about the overall mean ``m``, the
interval is ``m -/+ t_{h-1}((1 + c)/2) sqrt(s2_q / h)``. Unlike Pilot's session code,
``confidence_level`` and ``autocorrelation_limit`` are honoured as passed.

:func:`subsession_analysis`, references:

.. [1] D. Ferrari, *Computer Systems Performance Evaluation*, Prentice-Hall, 1978, §3.
.. [2] Y. Li, Y. Gupta, E. L. Miller, D. D. E. Long, "Pilot: A Framework that
   Understands How to Do Performance Benchmarks the Right Way", MASCOTS 2016
   (``ascar-io/pilot-bench``).
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import two_sided_t
from pilotstats._typing import MeanMethod
from pilotstats._validation import check_autocorrelation_limit, check_confidence_level, check_text
from pilotstats.autocorrelation._blocks import (
    Samples,
    block_moments,
    prepare,
    resolve_subsession_size,
)
from pilotstats.exceptions import DataRangeWarning
from pilotstats.results import ConfidenceInterval, Result, format_interval, format_quantity

__all__ = ["SubsessionResult", "subsession_analysis"]


@dataclass(frozen=True, slots=True)
class SubsessionResult(Result):
    """Mean of autocorrelated samples with its subsession-based confidence interval.

    Attributes
    ----------
    mean : float
        Overall mean ``m`` of all n samples (harmonic in harmonic mode).
    n : int
        Number of samples.
    subsession_size : int
        Block size ``q``.
    n_subsessions : int
        Number of complete blocks ``h = floor(n / q)``.
    subsession_variance : float
        ``s2_q``, the variance of block means about ``m`` (divisor ``h - 1``).
    autocorrelation : float
        Lag-1 autocorrelation ``r1(q)`` of the block means; NaN for constant data.
    ci_low, ci_high : float
        Interval ``m -/+ t_{h-1}((1+c)/2) sqrt(s2_q / h)``.
    half_width : float
        Its half width ``t_{h-1}((1+c)/2) sqrt(s2_q / h)`` (the ``±`` of the interval).
    confidence_level : float
        Two-sided level ``c`` of the interval.
    autocorrelation_limit : float
        Limit on ``|r1(q)|`` that was passed (used to choose ``q`` unless it was given).
    mean_method : str
        ``"arithmetic"`` or ``"harmonic"``.
    constant : bool
        True when all samples are equal (documented special case: zero-width interval).
    unit : str or None
        Label of the measured quantity (``"s"`` values are displayed auto-scaled).

    Examples
    --------
    Returned by :func:`subsession_analysis`:

    >>> from pilotstats.autocorrelation import subsession_analysis
    >>> from pilotstats.datasets import ferrari_response_times
    >>> r = subsession_analysis(ferrari_response_times(), unit="s")
    >>> print(r)
    mean 1.756 s (95 % CI [1.611, 1.902] s, n = 48, q = 4, h = 12)
    >>> r.subsession_size, r.n_subsessions
    (4, 12)
    """

    mean: float
    n: int
    subsession_size: int
    n_subsessions: int
    subsession_variance: float
    autocorrelation: float
    ci_low: float
    ci_high: float
    half_width: float
    confidence_level: float
    autocorrelation_limit: float
    mean_method: str
    constant: bool = False
    unit: str | None = None

    @property
    def standard_error(self) -> float:
        """Standard error of the mean, ``sqrt(s2_q / h)``."""
        return math.sqrt(self.subsession_variance / self.n_subsessions)

    @property
    def dof(self) -> int:
        """Degrees of freedom of the t quantile, ``h - 1``."""
        return self.n_subsessions - 1

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval at ``confidence_level`` (None: the stored level)."""
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        half_width = two_sided_t(level, self.dof) * self.standard_error
        return ConfidenceInterval(self.mean - half_width, self.mean + half_width)

    def __str__(self) -> str:
        interval = format_interval(self.ci_low, self.ci_high, self.confidence_level, self.unit,
                                   estimate=self.mean)
        return (
            f"mean {format_quantity(self.mean, self.unit)} "
            f"({interval}, "
            f"n = {self.n}, q = {self.subsession_size}, h = {self.n_subsessions})"
        )


def build_result(
    samples: Samples,
    q: int,
    confidence_level: float,
    limit: float,
    unit: str | None,
) -> SubsessionResult:
    """Assemble a :class:`SubsessionResult` for validated samples and a block size."""
    method = "harmonic" if samples.harmonic else "arithmetic"
    values = samples.values
    if samples.n >= 2 and bool(np.all(values == values[0])):
        common = float(values[0])
        return SubsessionResult(
            mean=common, n=samples.n, subsession_size=1, n_subsessions=samples.n,
            subsession_variance=0.0, autocorrelation=math.nan, ci_low=common,
            ci_high=common, half_width=0.0, confidence_level=confidence_level,
            autocorrelation_limit=limit, mean_method=method, constant=True, unit=unit,
        )
    s2, g = block_moments(samples, q)
    h = samples.n // q
    half_width = two_sided_t(confidence_level, h - 1) * math.sqrt(s2 / h)
    return SubsessionResult(
        mean=samples.mean, n=samples.n, subsession_size=q, n_subsessions=h,
        subsession_variance=s2, autocorrelation=g / s2 if s2 > 0 else math.nan,
        ci_low=samples.mean - half_width, ci_high=samples.mean + half_width,
        half_width=half_width, confidence_level=confidence_level,
        autocorrelation_limit=limit, mean_method=method, unit=unit,
    )


def subsession_analysis(
    x: Any,
    *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    mean_method: MeanMethod = "arithmetic",
    subsession_size: int | None = None,
    unit: str | None = None,
) -> SubsessionResult:
    """Mean and confidence interval of autocorrelated samples via subsession means.

    Samples are grouped into consecutive blocks of ``q`` (the smallest size whose block
    means have ``|lag-1 autocorrelation| <= autocorrelation_limit``); the block means are
    then treated as independent, which keeps the interval honest for autocorrelated series
    where the naive ``q = 1`` interval is far too narrow.

    Parameters
    ----------
    x : array_like, shape (n,)
        Samples in time order, finite (strictly positive for ``mean_method="harmonic"``).
    confidence_level : float in (0, 1), default 0.95
        Two-sided level of the interval.
    autocorrelation_limit : float in (0, 1], default 0.1
        Limit on ``|r1(q)|`` for choosing ``q``.
    mean_method : {"arithmetic", "harmonic"}, default "arithmetic"
        Mean of blocks and overall (harmonic suits rates such as throughput).
    subsession_size : int, optional
        Use this ``q`` instead of scanning (needs ``n // q >= 2``).
    unit : str, optional
        Label of the measured quantity, carried into ``__str__`` and ``to_dict()``.

    Returns
    -------
    SubsessionResult
        Exactly constant data (n >= 2) give ``q = 1``, ``subsession_variance = 0``,
        ``autocorrelation = nan``, ``constant = True`` and a zero-width interval at the
        common value.

    Raises
    ------
    InvalidInputError
        Invalid data or parameters.
    NotEnoughDataError
        Fewer than 2 samples, or an explicit ``subsession_size`` leaving < 2 blocks.
    SubsessionSizeNotFoundError
        No ``q`` in ``1..floor(n/3)`` qualifies (more data allows larger blocks).

    Warns
    -----
    DataRangeWarning
        Too few subsessions for the autocorrelation (direct calls with ``q`` scanned; see
        the module notes): the interval then covers less than its level.

    Notes
    -----
    Complexity: O(n log n) time and O(n) memory: the subsession-size scan evaluates q =
    1..n/3 from double-double prefix sums at O(n/q) each.

    Examples
    --------
    >>> from pilotstats.datasets import ferrari_response_times
    >>> result = subsession_analysis(ferrari_response_times(), unit="s")
    >>> print(result)
    mean 1.756 s (95 % CI [1.611, 1.902] s, n = 48, q = 4, h = 12)
    >>> round(result.half_width, 6)
    0.145785
    """
    level = check_confidence_level(confidence_level)
    limit = check_autocorrelation_limit(autocorrelation_limit)
    unit = check_text(unit, "unit", allow_none=True)
    samples = prepare(x, mean_method, min_length=2)
    if bool(np.all(samples.values == samples.values[0])):
        return build_result(samples, 1, level, limit, unit)
    q = resolve_subsession_size(samples, limit, subsession_size)
    result = build_result(samples, q, level, limit, unit)
    if subsession_size is None and not _called_from_pilotstats():
        _warn_if_too_few_effective_samples(samples, result)
    return result


def _called_from_pilotstats() -> bool:
    """Whether the caller of :func:`subsession_analysis` is pilotstats itself (analyze,
    stable_phase, sessions): those apply it to parts of a series (after a warm-up cut, a
    residual level step) and report their own diagnostics; the warning is for direct calls."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return isinstance(caller, str) and caller.startswith("pilotstats.")


def _ar1_block_autocorrelation(phi: float, q: int) -> float:
    """Lag-1 autocorrelation of the means of consecutive blocks of ``q`` samples of an AR(1)
    series with coefficient ``phi`` (0 <= phi < 1): ``phi (1 - phi^q)^2 /
    (q (1 - phi^2) - 2 phi (1 - phi^q))`` (batch means of AR(1), e.g. Law & Kelton,
    *Simulation Modeling and Analysis*, §9.5)."""
    tail = 1.0 - phi**q
    return phi * tail * tail / (q * (1.0 - phi * phi) - 2.0 * phi * tail)


def _warn_if_too_few_effective_samples(samples: Samples, result: SubsessionResult) -> None:
    """Small samples say so. Under strong autocorrelation the scanned ``q`` is
    the first whose ``|r1(q)|``, estimated from only ``h`` block means, passed the limit by
    chance; the blocks are then too short and the interval covers less than its level. Warn
    when the lag-1 autocorrelation ``r1`` of the samples is at least
    ``_config.SUBSESSION_STRONG_AUTOCORRELATION`` and an AR(1) with coefficient ``r1``
    predicts block means of size ``q`` correlated above
    ``_config.SUBSESSION_MAX_IMPLIED_AUTOCORRELATION`` (coverage table: README, "Small
    samples say so"; ``benchmarks/bench_subsession_coverage.py``)."""
    if samples.n < 3:
        return
    s2, g = block_moments(samples, 1)
    if not s2 > 0:
        return
    r1 = min(g / s2, 0.999)
    if r1 < _config.SUBSESSION_STRONG_AUTOCORRELATION:
        return
    implied = _ar1_block_autocorrelation(r1, result.subsession_size)
    if implied <= _config.SUBSESSION_MAX_IMPLIED_AUTOCORRELATION:
        return
    warnings.warn(
        f"strong autocorrelation (lag-1 r = {r1:.2f}) and only h = {result.n_subsessions} "
        f"subsessions of q = {result.subsession_size} samples: their check of the "
        f"autocorrelation limit is noisy, and an AR(1) fit predicts block means still "
        f"correlated at {implied:.2f}, so the interval likely covers less than its nominal "
        f"{result.confidence_level:.0%} (78-91 % measured in such cases for AR(1) phi = "
        "0.8-0.95, n = 100-2000); collect more samples, or pass a larger subsession_size",
        DataRangeWarning, stacklevel=3)
