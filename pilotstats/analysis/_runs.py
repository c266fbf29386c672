"""The run level of :func:`analyze`, :func:`compare` and :func:`trend` (Kalibera & Jones 2013).

Benchmark data are hierarchical: a pyperf file holds 20 processes, a Google Benchmark file
20 repetitions, a CI job one pytest-benchmark file. Most of the variance is usually
*between* runs, so the intervals here use the runs as their units
(:func:`~pilotstats.autocorrelation.two_level_analysis`) and a change is the ratio of two
run-level estimates with a Fieller interval
(:func:`~pilotstats.autocorrelation.compare_runs`). This module holds the glue: several
files per side become one :class:`~pilotstats.io.Measurements` whose runs stay distinct,
and the run-level fields of the per-benchmark results are filled from those functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats.autocorrelation import compare_runs, required_runs, two_level_analysis
from pilotstats.autocorrelation.run_comparison import (
    ratio_interval,
    ratio_interval_from_moments,
)
from pilotstats.exceptions import InvalidInputError, PilotStatsError
from pilotstats.io import Measurements

__all__ = [
    "RUN_LABELS",
    "RunChange",
    "combine_runs",
    "compare_kept",
    "compare_run_values",
    "run_level_fields",
]

#: Label of the headline statistic when the runs are the units.
RUN_LABELS = {"mean": "mean", "median": "run median", "min": "run min"}


def combine_runs(value: Any, name: str) -> Any:
    """A :class:`Measurements` as it is, or several (one per file) as one with distinct runs.

    Every part keeps its own replicate structure (pyperf processes, Google Benchmark
    repetitions); a part without one (a pytest-benchmark file) is one run. Run ids are
    renumbered 0, 1, 2, ... in part order, so that runs of different files never merge.
    Anything else is returned unchanged (the caller checks its type).

    Raises
    ------
    InvalidInputError
        An empty sequence, or one holding something other than :class:`Measurements`.
    """
    if isinstance(value, Measurements) or isinstance(value, (str, bytes)) or not isinstance(
            value, Sequence):
        return value
    parts = list(value)
    if not parts:
        raise InvalidInputError(f"{name} is an empty sequence; pass at least one Measurements")
    for i, part in enumerate(parts):
        if not isinstance(part, Measurements):
            raise InvalidInputError(f"{name}[{i}] must be a pilotstats.io.Measurements, got "
                                    f"{type(part).__name__}")
    if len(parts) == 1:
        return parts[0]
    renumbered = []
    offset = 0
    metadata: dict[str, dict[str, Any]] = {}
    for part in parts:
        codes = {old: offset + k for k, old in enumerate(part.runs)}
        offset += len(codes)
        runs = np.array([codes[int(r)] for r in part.run], dtype=np.int64)
        renumbered.append(Measurements(part.elapsed, work=part.work, run=runs,
                                       order=part.order, warmup=part.warmup,
                                       benchmark=part.benchmark))
        for bench, meta in part.metadata.items():
            entry = metadata.setdefault(bench, {})
            sources = [*entry.get("sources", [])]
            if meta.get("source") is not None:
                sources.append(str(meta["source"]))
            entry.update(meta)
            entry["sources"] = sources
    merged = Measurements.concat(renumbered)
    return Measurements(merged.elapsed, work=merged.work, run=merged.run, order=merged.order,
                        warmup=merged.warmup, benchmark=merged.benchmark, metadata=metadata)


def _none_if_nan(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def run_level_fields(
    runs: list[np.ndarray], *, harmonic: bool, summary_statistic: str,
    confidence_level: float, autocorrelation_limit: float, unit: str,
    half_width_percent: float, run_cost: float | None,
) -> tuple[dict[str, Any], list[str]]:
    """Fields of a :class:`BenchmarkAnalysis` whose interval has the runs as units.

    ``runs`` (at least 2, each non-empty) are the kept samples of each run. The JMH
    throughput case (``harmonic``) works on the reciprocals (operations per second), whose
    mean is the reciprocal of the harmonic mean, and maps the interval back.
    """
    notes: list[str] = []
    statistic = summary_statistic
    if harmonic and statistic != "mean":
        notes.append(f"summary statistic {statistic!r} not applied: JMH throughput uses the "
                     "harmonic mean")
        statistic = "mean"
    series = [1.0 / r for r in runs] if harmonic else runs
    result = two_level_analysis(series, summary_statistic=statistic,
                                confidence_level=confidence_level,
                                autocorrelation_limit=autocorrelation_limit,
                                unit=None if harmonic else unit)
    if result.note:
        notes.append(result.note)
    plan = required_runs(result, half_width_percent=half_width_percent, run_cost=run_cost)
    if plan.runs is not None and plan.additional_runs:
        notes.append(f"±{half_width_percent:g} % needs {plan.runs} runs x "
                     f"{plan.samples_per_run} samples: {plan.additional_runs} more run(s) "
                     f"than the {result.n_runs} measured")
    elif plan.runs is None:
        notes.append(f"no run plan: {plan.note}")
    if harmonic:
        mean = 1.0 / result.mean
        low = 1.0 / result.ci_high if result.ci_high > 0 else math.inf
        high = 1.0 / result.ci_low if result.ci_low > 0 else math.inf
        run_values = tuple(1.0 / v for v in result.unit_values)
        between = within = None
    else:
        mean, low, high = result.mean, result.ci_low, result.ci_high
        run_values = result.unit_values
        between = _none_if_nan(result.between_variance)
        within = _none_if_nan(result.within_variance)
    fields = {
        "mean": mean, "ci_low": _none_if_nan(low), "ci_high": _none_if_nan(high),
        "subsession_size": None, "n_subsessions": None, "subsession_variance": None,
        "autocorrelation": None, "samples": None,
        "summary_statistic": "harmonic mean" if harmonic else RUN_LABELS[statistic],
        "interval_units": "runs", "run_values": tuple(float(v) for v in run_values),
        "block_size": result.block_size, "between_variance": between,
        "within_variance": within, "plan_runs": plan.runs,
        "plan_samples_per_run": plan.samples_per_run, "additional_runs": plan.additional_runs,
    }
    return fields, notes


@dataclass(frozen=True)
class RunChange:
    """A run-level change: ratio new/base with its Fieller interval, or why there is none."""

    ratio: float
    ci_low: float
    ci_high: float
    p_value: float
    dof: float
    conclusive: bool
    base_units: int
    new_units: int
    blocks: bool
    note: str
    difference_ci: tuple[float, float] | None = None
    base_components: tuple[float | None, float | None] = (None, None)
    new_components: tuple[float | None, float | None] = (None, None)
    base_mean: float | None = None
    new_mean: float | None = None


def _welch_difference(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float]:
    """Welch interval of ``mean(y) - mean(x)`` (the Fieller test at ratio 1 is this test)."""
    from pilotstats.autocorrelation import welch_test

    test = welch_test(float(np.mean(y)), float(np.var(y, ddof=1)), int(y.size),
                      float(np.mean(x)), float(np.var(x, ddof=1)), int(x.size),
                      confidence_level=level)
    return float(test.ci_low), float(test.ci_high)


def compare_kept(
    base_runs: list[np.ndarray], new_runs: list[np.ndarray], *, harmonic: bool,
    summary_statistic: str, confidence_level: float, autocorrelation_limit: float,
    assume_runs_equivalent: bool, unit: str,
) -> RunChange:
    """:func:`compare_runs` on the kept samples of each side's runs (time per work)."""
    statistic = "mean" if harmonic else summary_statistic
    if harmonic:
        base_runs = [1.0 / r for r in base_runs]
        new_runs = [1.0 / r for r in new_runs]
    result = compare_runs(base_runs, new_runs, summary_statistic=statistic,
                          confidence_level=confidence_level,
                          autocorrelation_limit=autocorrelation_limit,
                          assume_runs_equivalent=assume_runs_equivalent,
                          unit=None if harmonic else unit)
    blocks = "blocks" in (result.base.units, result.new.units)
    common: dict[str, Any] = {"base_units": result.base.n_units,
                              "new_units": result.new.n_units, "blocks": blocks,
                              "note": result.note}
    if harmonic:
        ratio = 1.0 / result.ratio if result.ratio else math.nan
        low = 1.0 / result.ci_high if result.ci_high > 0 else math.inf
        high = 1.0 / result.ci_low if result.ci_low > 0 else math.inf
        if not result.conclusive:
            low = high = math.nan
        return RunChange(ratio, low, high, result.p_value, result.dof, result.conclusive,
                         base_mean=1.0 / result.base.mean, new_mean=1.0 / result.new.mean,
                         **common)
    difference = None
    if result.conclusive:
        difference = _welch_difference(np.asarray(result.base.unit_values),
                                       np.asarray(result.new.unit_values), confidence_level)
    return RunChange(
        result.ratio, result.ci_low, result.ci_high, result.p_value, result.dof,
        result.conclusive, difference_ci=difference,
        base_components=(_none_if_nan(result.base.between_variance),
                         _none_if_nan(result.base.within_variance)),
        new_components=(_none_if_nan(result.new.between_variance),
                        _none_if_nan(result.new.within_variance)),
        base_mean=result.base.mean, new_mean=result.new.mean, **common)


def _side_moments(item: Any, equivalent: bool, harmonic: bool
                  ) -> tuple[np.ndarray | None, tuple[float, float, int] | None, str]:
    """Unit values (or moments) of a stored analysis, or why it cannot be compared."""
    if item.interval_units == "runs" and len(item.run_values) >= 2:
        values = np.asarray(item.run_values, dtype=np.float64)
        return (1.0 / values if harmonic else values), None, ""
    if item.interval_units == "subsessions":
        if not equivalent:
            return None, None, "1 run"
        if harmonic or item.summary_statistic != "mean":
            return None, None, ("a single-run analysis of a "
                                f"{item.summary_statistic} (pass Measurements)")
        if item.subsession_variance is None or not item.n_subsessions or item.mean is None:
            return None, None, item.status
        return None, (float(item.mean), float(item.subsession_variance),
                      int(item.n_subsessions)), ""
    return None, None, item.status


def compare_run_values(base: Any, new: Any, *, confidence_level: float,
                       assume_runs_equivalent: bool) -> RunChange | str:
    """A :class:`RunChange` from two stored :class:`BenchmarkAnalysis` items, or why not.

    Used when :func:`compare` receives :class:`AnalysisReport` objects: the run values (or,
    for one run assumed equivalent, the subsession moments) are all that is kept.
    """
    harmonic = base.summary_statistic == "harmonic mean"
    if base.summary_statistic not in ("mean", "harmonic mean") and (
            base.block_size != new.block_size):
        return (f"the analyses summarised runs in blocks of {base.block_size} and "
                f"{new.block_size} samples, so their {base.summary_statistic}s estimate "
                "different quantities; compare the Measurements instead")
    x, x_moments, x_why = _side_moments(base, assume_runs_equivalent, harmonic)
    y, y_moments, y_why = _side_moments(new, assume_runs_equivalent, harmonic)
    single = [side for side, why in (("base", x_why), ("new", y_why)) if why == "1 run"]
    if single:
        return RunChange(math.nan, math.nan, math.nan, math.nan, math.nan, False,
                         base_units=len(base.run_values) or 1,
                         new_units=len(new.run_values) or 1, blocks=False,
                         note=("inconclusive: 1 run per side" if len(single) == 2 else
                               f"inconclusive: 1 run on the {single[0]} side")
                         + ", so the run-to-run variance is unknown (measure more runs, "
                         "or assume the runs equivalent)")
    for side, why in (("baseline", x_why), ("new", y_why)):
        if why:
            return f"{side}: {why}"
    moments = []
    for values, stored in ((x, x_moments), (y, y_moments)):
        if values is not None:
            moments.append((float(np.mean(values)), float(np.var(values, ddof=1)),
                            int(values.size)))
        else:
            assert stored is not None
            moments.append(stored)
    (mx, vx, kx), (my, vy, ky) = moments
    if not mx > 0:
        return "the ratio needs a positive base estimate"
    try:
        if x is not None and y is not None:
            ratio, low, high, p_value, dof = ratio_interval(x, y, confidence_level)
        else:
            ratio, low, high, p_value, dof = ratio_interval_from_moments(
                mx, vx, kx, my, vy, ky, confidence_level)
    except (PilotStatsError, ValueError, ZeroDivisionError) as exc:
        return str(exc)
    blocks = x is None or y is None
    note = "runs assumed equivalent: the interval excludes run-to-run variation" if blocks \
        else ""
    if harmonic:
        ratio, low, high = (1.0 / ratio, 1.0 / high if high > 0 else math.inf,
                            1.0 / low if low > 0 else math.inf)
        return RunChange(ratio, low, high, p_value, dof, True, kx, ky, blocks, note,
                         base_mean=1.0 / mx, new_mean=1.0 / my)
    return RunChange(ratio, low, high, p_value, dof, True, kx, ky, blocks, note,
                     base_mean=mx, new_mean=my,
                     base_components=(base.between_variance, base.within_variance),
                     new_components=(new.between_variance, new.within_variance))
