"""Comparison of two sets of runs as a ratio of run-level estimates (Fieller interval).

Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013, §5) report a
performance change as the ratio of the two means with a confidence interval built at the
run level by Fieller's theorem. With ``k_x`` base units of mean ``x̄`` and variance
``s_x^2`` and ``k_y`` new units (``ȳ``, ``s_y^2``), the ratio ``ρ = E[y] / E[x]`` has the
pivot ``T(ρ) = (ȳ - ρ x̄) / sqrt(v_y + ρ^2 v_x)``, ``v = s^2 / k``, with Welch–Satterthwaite
degrees of freedom ``ν(ρ)``. The interval is every ``ρ >= 0`` with ``|T(ρ)| <= t_{ν(ρ)}``
and the p-value is the same test at ``ρ = 1``, so the interval excludes 1 exactly when
``p < 1 - c``: the verdict can be read from either. :func:`compare_runs` finds it by
bracketing root search (``T(ρ)`` decreases in ``ρ`` for positive means); the ratio is the
natural effect size of a performance change ("1.30: 30 % slower").

:func:`compare_runs`, references:

.. [1] T. Kalibera and R. Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013.
.. [2] E. C. Fieller, "Some problems in interval estimation", J. R. Stat. Soc. B 16
   (1954) 175-185.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from pilotstats import _config
from pilotstats._stats import t_cdf, two_sided_t
from pilotstats._validation import (
    check_autocorrelation_limit,
    check_bool,
    check_choice,
    check_confidence_level,
    check_text,
)
from pilotstats.autocorrelation._blocks import (
    first_qualifying_size,
    prepare,
)
from pilotstats.autocorrelation._two_level import (
    SUMMARY_STATISTICS,
    TwoLevelResult,
    split_runs,
    two_level_analysis,
)
from pilotstats.results import Result, format_number

__all__ = ["RunComparison", "compare_runs", "ratio_interval", "ratio_interval_from_moments"]


@dataclass(frozen=True, slots=True)
class RunComparison(Result):
    """Ratio of a new to a base run-level estimate, with its Fieller interval.

    Attributes
    ----------
    ratio : float
        ``new.mean / base.mean`` (above 1: the new estimate is larger).
    ci_low, ci_high : float
        Fieller interval of the ratio at ``confidence_level`` (``ci_high`` is ``inf`` when
        the base estimate is not distinguishable from 0); NaN when inconclusive.
    p_value : float
        Two-sided test of ``ratio = 1`` (Welch test of the unit statistics); NaN when
        inconclusive.
    dof : float
        Welch–Satterthwaite degrees of freedom of that test.
    confidence_level : float
        Level of the interval.
    summary_statistic : str
        ``"mean"``, ``"median"`` or ``"min"`` (both sides estimate the same quantity).
    conclusive : bool
        False when a side has a single unit (one run and runs not assumed equivalent): the
        run-to-run variance is unknown and there is no interval and no p-value.
    base, new : TwoLevelResult
        The two sides.
    note : str
        Why the comparison is inconclusive, and caveats (intervals that exclude run-to-run
        variation).

    Examples
    --------
    Returned by :func:`compare_runs`:

    >>> import numpy as np
    >>> from pilotstats.autocorrelation import compare_runs
    >>> rng = np.random.default_rng(2)
    >>> base = [rng.normal(1.0 + rng.normal(0, 0.02), 0.05, 50) for _ in range(6)]
    >>> new = [rng.normal(1.3 + rng.normal(0, 0.02), 0.05, 50) for _ in range(6)]
    >>> c = compare_runs(base, new)
    >>> print(c)
    ratio 1.298 (95 % CI [1.268, 1.329], p = 2.7e-07; 6 vs 6 runs, mean)
    >>> c.ci_low > 1
    True
    """

    ratio: float
    ci_low: float
    ci_high: float
    p_value: float
    dof: float
    confidence_level: float
    summary_statistic: str
    conclusive: bool
    base: TwoLevelResult
    new: TwoLevelResult
    note: str = ""

    @property
    def relative_change(self) -> float:
        """``ratio - 1`` (a fraction; positive: the new estimate is larger)."""
        return self.ratio - 1.0

    def __str__(self) -> str:
        sides = (f"{self.base.n_units} vs {self.new.n_units} "
                 f"{'runs' if self.base.units == self.new.units == 'runs' else 'units'}")
        level = format_number(self.confidence_level * 100, 6)
        if not self.conclusive:
            return (f"ratio {format_number(self.ratio)} (inconclusive; {sides}, "
                    f"{self.summary_statistic}): {self.note}")
        text = (f"ratio {format_number(self.ratio)} ({level} % CI [{format_number(self.ci_low)}"
                f", {format_number(self.ci_high)}], p = {format_number(self.p_value, 3)}; "
                f"{sides}, {self.summary_statistic})")
        return f"{text}: {self.note}" if self.note else text


def _welch_dof(vy: float, vx: float, ky: int, kx: int, rho: float) -> float:
    """Welch–Satterthwaite degrees of freedom of ``v_y + ρ^2 v_x``."""
    a, b = vy, rho * rho * vx
    denominator = a * a / (ky - 1) + b * b / (kx - 1)
    if denominator <= 0.0:
        return float(min(ky, kx) - 1)
    return (a + b) ** 2 / denominator


def ratio_interval(
    base_values: np.ndarray, new_values: np.ndarray, confidence_level: float
) -> tuple[float, float, float, float, float]:
    """``(ratio, low, high, p_value, dof)`` of unit statistics (Fieller, Welch dof).

    Needs at least 2 values a side and a positive base mean; the lower bound is clamped
    at 0 (performance quantities are positive) and the upper bound is ``inf`` when the
    base mean is not significantly above 0.
    """
    kx, ky = int(base_values.size), int(new_values.size)
    return ratio_interval_from_moments(
        float(np.mean(base_values)), float(np.var(base_values, ddof=1)), kx,
        float(np.mean(new_values)), float(np.var(new_values, ddof=1)), ky, confidence_level)


def ratio_interval_from_moments(
    base_mean: float, base_variance: float, base_count: int,
    new_mean: float, new_variance: float, new_count: int, confidence_level: float,
) -> tuple[float, float, float, float, float]:
    """:func:`ratio_interval` from each side's unit mean, unit variance (ddof 1) and count.

    For callers that kept only the moments (e.g. a stored analysis report).
    """
    kx, ky = int(base_count), int(new_count)
    x, y = float(base_mean), float(new_mean)
    vx = float(base_variance) / kx
    vy = float(new_variance) / ky
    ratio = y / x
    if vx == 0.0 and vy == 0.0:
        # constant units: equal up to rounding (block means of equal constants may differ
        # in the last bit) is no change
        if math.isclose(y, x, rel_tol=1e-12):
            return 1.0, 1.0, 1.0, 1.0, math.inf
        return ratio, ratio, ratio, 0.0, math.inf

    def pivot(rho: float) -> float:
        scale = math.sqrt(vy + rho * rho * vx)
        if scale == 0.0:  # rho = 0 with constant new units: the pivot is +-infinite
            return math.copysign(1e300, y - rho * x) if y != rho * x else 0.0
        return (y - rho * x) / scale

    def excess(rho: float, sign: float) -> float:
        return sign * pivot(rho) - two_sided_t(confidence_level,
                                               _welch_dof(vy, vx, ky, kx, rho))

    dof1 = _welch_dof(vy, vx, ky, kx, 1.0)
    p_value = 2.0 * t_cdf(-abs(pivot(1.0)), dof1)
    if excess(0.0, 1.0) <= 0.0:
        low = 0.0
    else:
        low = float(optimize.brentq(excess, 0.0, ratio, args=(1.0,), xtol=1e-14 * ratio,
                                    rtol=1e-12))
    limit = x / math.sqrt(vx) if vx > 0 else math.inf
    if limit <= two_sided_t(confidence_level, kx - 1):
        high = math.inf
    else:
        upper = 2.0 * ratio
        while excess(upper, -1.0) < 0.0:
            upper *= 2.0
            if upper > 1e300:
                return ratio, low, math.inf, p_value, dof1
        high = float(optimize.brentq(excess, ratio, upper, args=(-1.0,), xtol=1e-14 * ratio,
                                     rtol=1e-12))
    return ratio, low, high, p_value, dof1


def _common_block_size(
    base: list[np.ndarray], new: list[np.ndarray], statistic: str, equivalent: bool,
    limit: float,
) -> int | None:
    """One block size for both sides, so that medians and minima estimate one quantity."""
    if statistic == "mean":
        return None
    shortest = min(min(r.size for r in base), min(r.size for r in new))
    single = [side[0] for side in (base, new) if len(side) < 2]
    if not (equivalent and single):
        return shortest
    sizes = [first_qualifying_size(prepare(r, "arithmetic"), limit) if r.size >= 3 else None
             for r in single]
    block = max([s for s in sizes if s is not None], default=1)
    cap = min([shortest] + [r.size // 2 for r in single])
    return max(1, min(block, cap))


def compare_runs(
    base_runs: object,
    new_runs: object,
    *,
    summary_statistic: str = "mean",
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    assume_runs_equivalent: bool = False,
    unit: str | None = None,
) -> RunComparison:
    """Ratio of two run-level estimates with a Fieller interval (runs as the units).

    Parameters
    ----------
    base_runs, new_runs : 2-D array_like or sequence of 1-D array_like
        The runs of each side (see :func:`two_level_analysis`), warm-up removed.
    summary_statistic : {"mean", "median", "min"}, default "mean"
        Run summary (``"median"``, ``"min"``: one block size, the shortest run, for both).
    confidence_level : float in (0, 1), default 0.95
        Level of the ratio interval; the test of ``ratio = 1`` is at ``1 - c``.
    autocorrelation_limit : float in (0, 1], default 0.1
        For the within-run variance components (and the blocks of a single run).
    assume_runs_equivalent : bool, default False
        A side with one run is then analysed in blocks (the note says the interval excludes
        run-to-run variation); otherwise it makes the comparison inconclusive.
    unit : str, optional
        Label of the measured quantity (for the two sides' results).

    Returns
    -------
    RunComparison
        The ratio ``new / base``, its interval and the two sides' results.

    Raises
    ------
    InvalidInputError
        Invalid runs or options.
    NotEnoughDataError
        A side with no run, or a single run too short for blocks.

    Notes
    -----
    Fieller's interval, see the module notes. Complexity O(N log N) for N samples.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(5)
    >>> base = [rng.normal(2.0, 0.1, 30) for _ in range(4)]
    >>> same = [rng.normal(2.0, 0.1, 30) for _ in range(4)]
    >>> result = compare_runs(base, same)
    >>> bool(result.ci_low <= 1.0 <= result.ci_high)
    True
    >>> compare_runs(base[:1], same[:1]).conclusive
    False
    """
    statistic = check_choice(summary_statistic, "summary_statistic", SUMMARY_STATISTICS)
    level = check_confidence_level(confidence_level)
    base_result, new_result = _analyse_sides(base_runs, new_runs, statistic, level,
                                             autocorrelation_limit, assume_runs_equivalent, unit)
    x, y = np.asarray(base_result.unit_values), np.asarray(new_result.unit_values)
    ratio = float(np.mean(y) / np.mean(x)) if float(np.mean(x)) != 0.0 else math.nan
    notes = []
    if "blocks" in (base_result.units, new_result.units):
        notes.append("runs assumed equivalent: the interval excludes run-to-run variation")
    if x.size < 2 or y.size < 2:
        return _without_interval(ratio, level, statistic, base_result, new_result,
                                 _single_run_note(x, y))
    if not float(np.mean(x)) > 0.0 or float(np.mean(y)) < 0.0:
        notes.append("the ratio needs a positive base estimate; no interval")
        return _without_interval(ratio, level, statistic, base_result, new_result,
                                 "; ".join(notes))
    ratio, low, high, p_value, dof = ratio_interval(x, y, level)
    if math.isinf(high):
        notes.append("the base estimate is not distinguishable from 0: unbounded interval")
    return RunComparison(
        ratio=ratio, ci_low=low, ci_high=high, p_value=p_value, dof=dof,
        confidence_level=level, summary_statistic=statistic, conclusive=True,
        base=base_result, new=new_result, note="; ".join(notes))


def _analyse_sides(
    base_runs: object, new_runs: object, statistic: str, level: float,
    autocorrelation_limit: float, assume_runs_equivalent: bool, unit: str | None,
) -> tuple[TwoLevelResult, TwoLevelResult]:
    """Validate the remaining options and analyse both sides with a common block size."""
    limit = check_autocorrelation_limit(autocorrelation_limit)
    equivalent = check_bool(assume_runs_equivalent, "assume_runs_equivalent")
    label = check_text(unit, "unit", allow_none=True)
    base = split_runs(base_runs, "base_runs")
    new = split_runs(new_runs, "new_runs")
    block = _common_block_size(base, new, statistic, equivalent, limit)
    options = {"summary_statistic": statistic, "confidence_level": level,
               "autocorrelation_limit": limit, "assume_runs_equivalent": equivalent,
               "unit": label}
    base_result = two_level_analysis(base, block_size=block, **options)
    new_result = two_level_analysis(new, block_size=block, **options)
    return base_result, new_result


def _single_run_note(x: np.ndarray, y: np.ndarray) -> str:
    """Why a comparison with a single run on a side is inconclusive."""
    sides = [name for name, v in (("base", x), ("new", y)) if v.size < 2]
    return (("inconclusive: 1 run per side" if len(sides) > 1
             else f"inconclusive: 1 run on the {sides[0]} side")
            + ", so the run-to-run variance is unknown "
            "(measure more runs, or assume the runs equivalent)")


def _without_interval(
    ratio: float, level: float, statistic: str, base_result: TwoLevelResult,
    new_result: TwoLevelResult, note: str,
) -> RunComparison:
    """An inconclusive comparison: the ratio, no interval, and why."""
    return RunComparison(
        ratio=ratio, ci_low=math.nan, ci_high=math.nan, p_value=math.nan, dof=math.nan,
        confidence_level=level, summary_statistic=statistic, conclusive=False,
        base=base_result, new=new_result, note=note)
