"""How many samples are needed for a confidence interval of a target width.

Documentation ``docs/algorithms/subsession.md``; Pilot ``lib/priv_include/libpilotcpp.h``
(``pilot_optimal_sample_size``) and the session rule of ``lib/workload.cc``.

:func:`required_sample_size`, notes:

See ``docs/algorithms/subsession.md``. The half width ``e`` from the targets (Pilot's full width
``W_req = 2 e``), ``h_req = ceil_tol(s2_q (t_{h-1}((1+c)/2) / e)^2)``,
``samples = q * max(h_req, min_subsessions)``; ``ceil_tol`` rounds up but ignores a
relative excess below 1e-9.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pilotstats import _config
from pilotstats._stats import ceil_tol, normal_quantile, two_sided_t
from pilotstats._typing import MeanMethod, ProportionMethod, SampleKind, SampleSizeMethod
from pilotstats._validation import (
    as_outcomes,
    check_autocorrelation_limit,
    check_choice,
    check_confidence_level,
    check_int,
    check_real,
)
from pilotstats.autocorrelation._blocks import (
    Samples,
    block_moments,
    first_qualifying_size,
    prepare,
    resolve_subsession_size,
)
from pilotstats.autocorrelation._proportion import (
    PROPORTION_METHODS,
    wilson_interval,
)
from pilotstats.exceptions import InvalidInputError, UnreachableTargetError
from pilotstats.results import Result, format_number

__all__ = ["SampleSizeResult", "required_sample_size"]

SAMPLE_SIZE_METHODS: tuple[SampleSizeMethod, ...] = ("pilot", "iterate")
SAMPLE_KINDS: tuple[SampleKind, ...] = ("mean", "proportion")
#: Default target: ±5 % of the mean (Pilot's default full width of 10 %).
_DEFAULT_HALF_WIDTH_PERCENT = 5.0


@dataclass(frozen=True, slots=True)
class SampleSizeResult(Result):
    """Samples required for a confidence interval of the target half width.

    Attributes
    ----------
    subsession_size : int or None
        Block size ``q`` (None when no size qualifies yet: collect more data).
    subsessions : int or None
        ``max(required_subsessions, min_subsessions)``, the number of subsessions needed.
    samples : int or None
        ``subsession_size * subsessions``, the total number of samples needed.
    n : int
        Samples available now.
    n_subsessions : int or None
        Current number of complete blocks ``h = n // q``.
    required_subsessions : int or None
        Blocks required before the ``min_subsessions`` floor.
    enough : bool
        ``n >= samples``.
    target_half_width : float
        Half width ``e`` aimed for (the ``±`` of the interval), in the unit of the data.
    confidence_level : float
        Two-sided level.
    method : str
        ``"pilot"`` (t quantile at the current dof) or ``"iterate"`` (self-consistent dof);
        ``"wilson"`` for proportions with the Wilson interval.
    min_subsessions : int
        Minimum number of subsessions (a floor on ``subsessions``).
    kind : str
        ``"mean"`` or ``"proportion"``.

    Examples
    --------
    Returned by :func:`required_sample_size`:

    >>> from pilotstats.autocorrelation import required_sample_size
    >>> from pilotstats.datasets import ferrari_response_times
    >>> r = required_sample_size(ferrari_response_times(), half_width_percent=5)
    >>> print(r)
    need 136 samples (q = 4 x 34 subsessions) for a 95 % CI of ±0.08782; ...
    >>> r.subsession_size, r.samples, r.n, r.enough
    (4, 136, 48, False)
    """

    subsession_size: int | None
    subsessions: int | None
    samples: int | None
    n: int
    n_subsessions: int | None
    required_subsessions: int | None
    enough: bool
    target_half_width: float
    confidence_level: float
    method: str
    min_subsessions: int
    kind: str = "mean"

    @property
    def additional_samples(self) -> int | None:
        """Samples still missing (0 when enough; None when undetermined)."""
        return None if self.samples is None else max(0, self.samples - self.n)

    def __str__(self) -> str:
        level = f"{format_number(self.confidence_level * 100, 6)} % CI"
        target = f"for a {level} of ±{format_number(self.target_half_width)}"
        if self.samples is None:
            return (
                f"required samples undetermined {target}: no subsession size qualifies "
                f"with n = {self.n}; collect more data"
            )
        verdict = "enough" if self.enough else f"{self.samples - self.n} more needed"
        return (
            f"need {self.samples} samples (q = {self.subsession_size} x "
            f"{self.subsessions} subsessions) {target}; have {self.n} ({verdict})"
        )


def target_half_width(
    centre: float, half_width: float | None, half_width_percent: float | None
) -> float:
    """``e = W_req / 2``: the smaller of the enabled criteria, default 5 % of ``|m|``.

    Pilot states the targets as full widths ``W_req`` (default 10 %
    of ``|m|``); pilotstats takes half widths, so the default is the same interval.
    """
    candidates = []
    if half_width is not None:
        candidates.append(check_real(half_width, "half_width", low=0.0, low_inclusive=False))
    if half_width_percent is not None:
        percent = check_real(
            half_width_percent, "half_width_percent", low=0.0, low_inclusive=False
        )
        candidates.append(percent / 100.0 * abs(centre))
    if not candidates:
        candidates.append(_DEFAULT_HALF_WIDTH_PERCENT / 100.0 * abs(centre))
    width = min(candidates)
    if not width > 0:
        raise InvalidInputError(
            f"the target CI half width is {width!r} because the mean is {centre!r}; a "
            "percentage of a zero mean cannot be reached, pass an absolute half_width instead"
        )
    return width


def blocks_required_at(variance: float, half_width: float, level: float, h: int) -> int:
    """``ceil_tol(s2 * (t_{h-1}((1+c)/2) / e)^2)``: blocks needed at ``h - 1`` dof."""
    return ceil_tol(variance * (two_sided_t(level, h - 1) / half_width) ** 2)


def smallest_passing(passes: Callable[[int], bool], low: int) -> int:
    """Smallest integer ``k >= low`` with ``passes(k)``, for an upward-closed predicate."""
    if passes(low):
        return low
    failing, passing = low, low * 2
    while not passes(passing):
        if passing > _config.MAX_REPORTED_COUNT:
            raise UnreachableTargetError(
                f"the target cannot be reached with fewer than {_config.MAX_REPORTED_COUNT} "
                "samples; choose a wider target"
            )
        failing, passing = passing, passing * 2
    while passing - failing > 1:
        middle = (failing + passing) // 2
        if passes(middle):
            passing = middle
        else:
            failing = middle
    return passing


def blocks_required_iterated(variance: float, half_width: float, level: float) -> int:
    """Self-consistent ``h* = min{h >= 2 : f(h) <= h}``."""
    z = normal_quantile((1.0 + level) / 2.0)
    lower = max(2, ceil_tol(variance * (z / half_width) ** 2))
    return smallest_passing(
        lambda h: blocks_required_at(variance, half_width, level, h) <= h, lower
    )


def wilson_size(p_hat: float, half_width: float, level: float) -> int:
    """Smallest ``n >= 2`` whose Wilson half width at ``p_hat`` is ``<= half_width``."""
    z = normal_quantile((1.0 + level) / 2.0)

    def narrow_enough(trials: int) -> bool:
        low, high = wilson_interval(p_hat, trials, z)
        return (high - low) / 2.0 <= half_width

    return smallest_passing(narrow_enough, 2)


def required_sample_size(
    x: Any,
    *,
    half_width: float | None = None,
    half_width_percent: float | None = None,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    min_subsessions: int = 0,
    method: SampleSizeMethod = "pilot",
    subsession_size: int | None = None,
    mean_method: MeanMethod = "arithmetic",
    kind: SampleKind = "mean",
    proportion_method: ProportionMethod = "wilson",
) -> SampleSizeResult:
    """Number of samples needed for a confidence interval of the target half width.

    Complexity: O(n log n) time (the subsession-size scan) and O(n) memory.

    Parameters
    ----------
    x : array_like, shape (n,)
        Samples collected so far (n >= 3); 0/1 outcomes for ``kind="proportion"``.
    half_width : float, optional
        Target half width of the interval (``mean ± half_width``), in the unit of ``x``.
    half_width_percent : float, optional
        Target half width in percent of ``|mean|``; with both targets the smaller one wins,
        with neither ±5 % (Pilot's default full width of 10 %).
    confidence_level : float in (0, 1), default 0.95
        Two-sided level.
    autocorrelation_limit : float in (0, 1], default 0.1
        Limit for the subsession size (ignored for proportions, where ``q = 1``).
    min_subsessions : int, default 0
        Floor on the number of subsessions required (Pilot: 200, its CLI 30-200).
    method : {"pilot", "iterate"}, default "pilot"
        t quantile at the current ``h - 1`` dof (Pilot), or the smallest self-consistent
        ``h*``; same ``enough`` verdict.
    subsession_size : int, optional
        Explicit ``q`` instead of the scan.
    mean_method : {"arithmetic", "harmonic"}, default "arithmetic"
        Mean method of the blocks.
    kind : {"mean", "proportion"}, default "mean"
        What the interval is about.
    proportion_method : {"wilson", "pilot"}, default "wilson"
        For proportions: Wilson width search, or Pilot's rule with the sample variance.

    Returns
    -------
    SampleSizeResult
        Without a qualifying subsession size the counts are None and ``enough`` is False
        (Pilot: -1); exactly constant data need 1 sample (and ``min_subsessions``).

    Raises
    ------
    InvalidInputError
        Invalid data or parameters, or a zero target half width.
    NotEnoughDataError
        Fewer than 3 samples.
    UnreachableTargetError
        The target half width would need more than 2**62 subsessions.

    Examples
    --------
    >>> from pilotstats.datasets import ferrari_response_times
    >>> result = required_sample_size(ferrari_response_times(), half_width_percent=5)
    >>> result.subsession_size, result.subsessions, result.samples
    (4, 34, 136)
    """
    level = check_confidence_level(confidence_level)
    limit = check_autocorrelation_limit(autocorrelation_limit)
    floor = check_int(min_subsessions, "min_subsessions", low=0)
    chosen = check_choice(method, "method", SAMPLE_SIZE_METHODS)
    what = check_choice(kind, "kind", SAMPLE_KINDS)
    check_choice(proportion_method, "proportion_method", PROPORTION_METHODS)
    size = _SizeRequest(0, 0.0, level, floor, what)
    if what == "proportion":
        return _proportion_size(x, half_width, half_width_percent, size, chosen,
                                proportion_method)
    return _mean_size(x, half_width, half_width_percent, size, chosen, limit,
                      subsession_size, mean_method)


def _proportion_size(
    x: Any, half_width: float | None, half_width_percent: float | None, size: _SizeRequest,
    chosen: SampleSizeMethod, proportion_method: ProportionMethod,
) -> SampleSizeResult:
    """:func:`required_sample_size` of 0/1 outcomes (``q = 1``)."""
    outcomes = as_outcomes(x)
    n = int(outcomes.shape[0])
    if n < 3:
        prepare(outcomes, min_length=3)  # raises NotEnoughDataError
    p_hat = float(outcomes.mean())
    half = target_half_width(p_hat, half_width, half_width_percent)
    size = size._replace(n=n, half=half)
    if proportion_method == "wilson":
        return size.result(1, n, wilson_size(p_hat, half, size.level), "wilson")
    variance = float(np.var(outcomes, ddof=1))
    return size.result(1, n, _blocks_required(chosen, variance, half, size.level, n), chosen)


def _mean_size(
    x: Any, half_width: float | None, half_width_percent: float | None, size: _SizeRequest,
    chosen: SampleSizeMethod, limit: float, subsession_size: int | None,
    mean_method: MeanMethod,
) -> SampleSizeResult:
    """:func:`required_sample_size` of a mean, from the subsession variance."""
    samples = prepare(x, mean_method, min_length=3)
    n = samples.n
    half = target_half_width(samples.mean, half_width, half_width_percent)
    size = size._replace(n=n, half=half)
    if bool(np.all(samples.values == samples.values[0])):
        return size.result(1, n, 1, chosen)
    q = _subsession_size_or_none(samples, limit, subsession_size)
    if q is None:
        return SampleSizeResult(
            subsession_size=None, subsessions=None, samples=None, n=n, n_subsessions=None,
            required_subsessions=None, enough=False, target_half_width=half,
            confidence_level=size.level, method=chosen, min_subsessions=size.floor,
            kind=size.kind,
        )
    variance, _ = block_moments(samples, q)
    h = n // q
    return size.result(q, h, _blocks_required(chosen, variance, half, size.level, h), chosen)


class _SizeRequest(NamedTuple):
    """What every :class:`SampleSizeResult` of one call shares."""

    n: int
    half: float
    level: float
    floor: int
    kind: SampleKind

    def result(
        self, q: int, h: int, required_subsessions: int, method_name: str
    ) -> SampleSizeResult:
        subsessions = max(required_subsessions, self.floor)
        needed = q * subsessions
        return SampleSizeResult(
            subsession_size=q, subsessions=subsessions, samples=needed, n=self.n,
            n_subsessions=h, required_subsessions=required_subsessions,
            enough=self.n >= needed, target_half_width=self.half,
            confidence_level=self.level, method=method_name, min_subsessions=self.floor,
            kind=self.kind,
        )


def _subsession_size_or_none(samples: Samples, limit: float, explicit: Any) -> int | None:
    if explicit is not None:
        return resolve_subsession_size(samples, limit, explicit)
    return first_qualifying_size(samples, limit)


def _blocks_required(
    method: SampleSizeMethod, variance: float, half_width: float, level: float, h: int
) -> int:
    if variance == 0.0 and method != "iterate":
        return 0
    if not math.isfinite(variance):
        raise InvalidInputError("the subsession variance is not finite; check the data scale")
    # Guard against a half-width that underflows (subnormal target widths) and against
    # counts beyond any feasible session, which would overflow to inf in the formula.
    if half_width > 0:
        ratio = math.sqrt(variance) / half_width  # float * and / give inf, never raise
        rough = ratio * ratio
    else:
        rough = math.inf if variance > 0 else 0.0
    if not rough < _config.MAX_REPORTED_COUNT:
        raise UnreachableTargetError(
            f"the target CI half-width {half_width!r} is too small for the subsession "
            f"variance {variance!r}: it would need more than {_config.MAX_REPORTED_COUNT} "
            "subsessions; choose a wider target"
        )
    if method == "iterate":
        return blocks_required_iterated(variance, half_width, level)
    return blocks_required_at(variance, half_width, level, h)
