"""How many runs x samples per run reach a target half width at least cost (two levels).

Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013, §4) choose the
repetition counts of a two-level experiment from the variance components: with ``r``
runs of ``n`` samples the grand mean has variance ``(T_1^2 + T_2^2 / n) / r``, and a run
costs ``c_1 + c_2 n``. Their closed form ``n* = sqrt(c_1 T_2^2 / (c_2 T_1^2))`` ignores
the t quantile's dependence on ``r``; :func:`required_runs` instead searches every run
count for the cheapest ``(r, n)`` whose ``t_{r-1}`` interval meets the target.

:func:`required_runs`, references:

.. [1] T. Kalibera and R. Jones, "Rigorous Benchmarking in Reasonable Time", ISMM
   2013, §4 (optimal repetition counts).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from pilotstats._validation import check_int, check_real
from pilotstats.autocorrelation._sample_size import target_half_width
from pilotstats.autocorrelation._two_level import TwoLevelResult
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import Result, format_quantity

__all__ = ["TwoLevelPlan", "required_runs"]

#: Largest run count searched (a plan beyond it is reported as not reachable).
MAX_RUNS = 100_000


@dataclass(frozen=True, slots=True)
class TwoLevelPlan(Result):
    """Runs and samples per run that reach a target half width (Kalibera & Jones §4).

    Attributes
    ----------
    planned_runs : int or None
        Runs needed in all (None: not reachable within ``MAX_RUNS`` runs, or unknown).
    samples_per_run : int or None
        Samples per run of the plan (the current mean run length when the run cost is
        not given or the statistic is a median/minimum).
    additional_runs : int or None
        ``max(0, planned_runs - n_runs)``: runs to add to the ones analysed.
    n_runs : int
        Runs analysed.
    half_width : float
        Target half width, in the measurement's unit.
    predicted_half_width : float
        Half width the plan is expected to give (NaN when unknown).
    cost : float
        ``planned_runs * (run_cost + samples_per_run)`` in units of one sample's cost (NaN when
        the run cost is not given).
    between_variance, within_variance : float
        The components the plan rests on (see :class:`TwoLevelResult`).
    confidence_level : float
        Level of the planned interval.
    unit : str or None
        Label of the measured quantity.
    note : str
        Why there is no plan, or what it assumed.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.autocorrelation import required_runs, two_level_analysis
    >>> rng = np.random.default_rng(3)
    >>> runs = [rng.normal(10 + rng.normal(0, 0.3), 1.0, 100) for _ in range(5)]
    >>> plan = required_runs(two_level_analysis(runs), half_width_percent=1)
    >>> plan.planned_runs, plan.samples_per_run, plan.additional_runs
    (21, 100, 16)
    """

    planned_runs: int | None
    samples_per_run: int | None
    additional_runs: int | None
    n_runs: int
    half_width: float
    predicted_half_width: float
    cost: float
    between_variance: float
    within_variance: float
    confidence_level: float
    unit: str | None = None
    note: str = ""

    def __str__(self) -> str:
        target = f"a {format_quantity(self.half_width, self.unit)} half width"
        if self.planned_runs is None:
            return f"no plan for {target}: {self.note}"
        more = ("enough runs" if not self.additional_runs
                else f"{self.additional_runs} more run{'s' if self.additional_runs != 1 else ''}")
        text = (f"need {self.planned_runs} runs x {self.samples_per_run} samples for {target} "
                f"(have {self.n_runs}: {more})")
        return f"{text}; {self.note}" if self.note else text


@functools.lru_cache(maxsize=16)
def _quantiles(level: float) -> np.ndarray:
    """``t_{r-1}((1+c)/2)`` for r = 2..MAX_RUNS (cached: 0.15 s per level otherwise)."""
    counts = np.arange(2, MAX_RUNS + 1, dtype=np.float64)
    values = np.asarray(special.stdtrit(counts - 1, (1.0 + level) / 2.0), dtype=np.float64)
    values.setflags(write=False)
    return values


def required_runs(
    result: TwoLevelResult,
    *,
    half_width: float | None = None,
    half_width_percent: float | None = None,
    run_cost: float | None = None,
    max_samples_per_run: int | None = None,
) -> TwoLevelPlan:
    """Cheapest runs x samples per run whose interval reaches a target half width.

    Parameters
    ----------
    result : TwoLevelResult
        A two-level analysis with at least 2 runs (see :func:`two_level_analysis`).
    half_width, half_width_percent : float, optional
        Target half width in the measurement's unit and/or in percent of the estimate;
        the smaller applies (default: 5 % of the estimate, as
        :func:`required_sample_size`).
    run_cost : float, optional
        Cost of starting one run (process start, warm-up), in units of the cost of one
        sample. Given, the plan also chooses the samples per run (Kalibera & Jones §4);
        not given, it keeps the current mean run length and plans the run count only.
    max_samples_per_run : int, optional
        Upper bound on the samples per run of the plan.

    Returns
    -------
    TwoLevelPlan

    Raises
    ------
    InvalidInputError
        Bad targets or costs, or ``result`` not a :class:`TwoLevelResult`.

    Notes
    -----
    For the mean, ``Var(grand mean) = (T_1^2 + T_2^2 / n) / r``; for each ``r`` from 2 to
    ``MAX_RUNS`` the smallest ``n`` with ``t_{r-1} sqrt(Var) <= e`` is found in closed
    form and the plan with least ``r (run_cost + n)`` is chosen. For a median or a
    minimum (whose estimand depends on the block size) and without a run cost, ``n``
    stays the current one and ``r`` is the smallest count with ``t_{r-1} s / sqrt(r) <= e``
    for the unit statistics' standard deviation ``s``. Complexity O(MAX_RUNS).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.autocorrelation import two_level_analysis
    >>> rng = np.random.default_rng(3)
    >>> runs = [rng.normal(10 + rng.normal(0, 0.3), 1.0, 100) for _ in range(5)]
    >>> plan = required_runs(two_level_analysis(runs), half_width_percent=1, run_cost=50)
    >>> plan.planned_runs, plan.samples_per_run
    (29, 30)
    """
    if not isinstance(result, TwoLevelResult):
        raise InvalidInputError(
            f"result must be a TwoLevelResult (from two_level_analysis), got "
            f"{type(result).__name__}")
    target = target_half_width(result.mean, half_width, half_width_percent)
    cost_per_run = None if run_cost is None else check_real(run_cost, "run_cost", low=0.0)
    cap = (None if max_samples_per_run is None
           else check_int(max_samples_per_run, "max_samples_per_run", low=1))
    current = max(1, round(result.n / max(result.n_runs, 1)))
    common: dict[str, Any] = {
        "n_runs": result.n_runs, "half_width": target,
        "between_variance": result.between_variance,
        "within_variance": result.within_variance,
        "confidence_level": result.confidence_level, "unit": result.unit}
    if result.n_units < 2 or result.units != "runs":
        return TwoLevelPlan(planned_runs=None, samples_per_run=None, additional_runs=None,
                            predicted_half_width=math.nan, cost=math.nan, **common,
                            note="the run-to-run variance is unknown: measure at least 2 runs")
    counts = np.arange(2, MAX_RUNS + 1, dtype=np.float64)
    quantile = _quantiles(result.confidence_level)
    chooses_length = (cost_per_run is not None and result.summary_statistic == "mean"
                      and math.isfinite(result.within_variance))
    if not chooses_length:
        return _plan_kept_length(result, counts, quantile, target, cost_per_run, current,
                                 common)
    assert cost_per_run is not None
    return _plan_cheapest(result, counts, quantile, target, cost_per_run, cap, common)


def _plan_kept_length(
    result: TwoLevelResult, counts: np.ndarray, quantile: np.ndarray, target: float,
    cost_per_run: float | None, current: int, common: dict[str, Any],
) -> TwoLevelPlan:
    """Fewest runs of the current length that reach the target."""
    # variance of one run's statistic; with drifting runs (batches of about
    # runs_per_unit runs as units) the batch variance scaled to one run, which
    # carries the serial dependence into the plan
    variance = float(np.var(result.unit_values, ddof=1)) * result.runs_per_unit
    ok = np.flatnonzero(quantile * np.sqrt(variance / counts) <= target)
    note = ("samples per run kept at the current run length"
            if cost_per_run is None or result.summary_statistic == "mean"
            else f"a run {result.summary_statistic} depends on the run length: "
                 "samples per run kept")
    if not math.isfinite(result.within_variance) and cost_per_run is not None:
        note = "no within-run variance (runs too short): samples per run kept"
    if ok.size == 0:
        return TwoLevelPlan(planned_runs=None, samples_per_run=current, additional_runs=None,
                            predicted_half_width=math.nan, cost=math.nan, **common,
                            note=f"more than {MAX_RUNS} runs needed")
    runs = int(counts[ok[0]])
    predicted = float(quantile[ok[0]] * math.sqrt(variance / runs))
    cost = math.nan if cost_per_run is None else runs * (cost_per_run + current)
    return TwoLevelPlan(planned_runs=runs, samples_per_run=current,
                        additional_runs=max(0, runs - result.n_runs),
                        predicted_half_width=predicted, cost=cost, **common, note=note)


def _plan_cheapest(
    result: TwoLevelResult, counts: np.ndarray, quantile: np.ndarray, target: float,
    cost_per_run: float, cap: int | None, common: dict[str, Any],
) -> TwoLevelPlan:
    """Runs and run length of least cost ``runs * (run_cost + length)`` reaching the target."""
    between, within = result.between_variance, result.within_variance
    room = counts * (target / quantile) ** 2 - between
    with np.errstate(divide="ignore", invalid="ignore"):
        length = np.where(room > 0, np.ceil(within / np.where(room > 0, room, 1.0)), np.inf)
    length = np.maximum(length, 1.0)
    if cap is not None:
        length = np.where(length <= cap, length, np.inf)
    costs = counts * (cost_per_run + length)
    if not np.isfinite(costs).any():
        return TwoLevelPlan(planned_runs=None, samples_per_run=None, additional_runs=None,
                            predicted_half_width=math.nan, cost=math.nan, **common,
                            note=f"more than {MAX_RUNS} runs needed")
    best = int(np.argmin(costs))
    runs, per_run = int(counts[best]), int(length[best])
    predicted = float(quantile[best] * math.sqrt((between + within / per_run) / runs))
    return TwoLevelPlan(planned_runs=runs, samples_per_run=per_run,
                        additional_runs=max(0, runs - result.n_runs),
                        predicted_half_width=predicted, cost=float(costs[best]), **common)
