"""The run level of :func:`analyze`, :func:`compare` and :func:`trend` (Kalibera & Jones 2013).

Benchmark data are hierarchical: a pyperf file holds 20 processes, a Google Benchmark file
20 repetitions, a CI job one pytest-benchmark file. Most of the variance is usually
*between* runs, so the intervals here use the runs as their units
(:func:`~pilotstats.autocorrelation.two_level_analysis`) and a change is the ratio of two
run-level estimates with a Fieller interval
(:func:`~pilotstats.autocorrelation.compare_runs`). This module holds the glue: several
files per side become one :class:`~pilotstats.io.Measurements` whose runs stay distinct,
and the run-level fields of the per-benchmark results are filled from those functions.

Three levels: the runs of one file (pyperf's processes, Google Benchmark's repetitions)
share that invocation's machine state (load, build, layout), so with several files per
side the *files* are the units (each summarised by the mean over its runs of each run's
statistic), and the interval includes the file-to-file variation; with one file per side
the runs are the units (the file-to-file variation cannot be estimated, and the result
says so). ``assume_runs_equivalent`` treats all runs as exchangeable instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats.autocorrelation import compare_runs, required_runs, two_level_analysis
from pilotstats.autocorrelation._run_comparison import (
    ratio_interval,
    ratio_interval_from_moments,
)
from pilotstats.autocorrelation._sample_size import smallest_passing
from pilotstats.autocorrelation._two_level import block_statistics
from pilotstats.exceptions import InvalidInputError, PilotStatsError
from pilotstats.io import Measurements

__all__ = [
    "RUN_LABELS",
    "RunChange",
    "combine_runs",
    "compare_kept",
    "compare_run_values",
    "file_groups",
    "run_level_fields",
    "units_to_resolve",
]

def _one_sample_note(statistic: str, block: int | None) -> str:
    """Why a run median / minimum is the mean when the runs hold one sample each."""
    if statistic == "mean" or block != 1:
        return ""
    return (f"the shortest run holds 1 sample (hyperfine: one process per timing), so each "
            f"run's {statistic} is its value and the estimate is the mean over runs")


#: Note of a comparison whose runs come from one file per side.
ONE_FILE_NOTE = ("one file per side: variation between invocations (machine load) is not "
                 "in the interval")

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
    for i, part in enumerate(parts):
        codes = {old: offset + k for k, old in enumerate(part.runs)}
        offset += len(codes)
        runs = np.array([codes[int(r)] for r in part.run], dtype=np.int64)
        renumbered.append(Measurements(part.elapsed, work=part.work, run=runs,
                                       order=part.order, warmup=part.warmup,
                                       benchmark=part.benchmark))
        for bench, meta in part.metadata.items():
            entry = metadata.setdefault(bench, {})
            label = f"{i}: {meta.get('source', 'Measurements')}"
            sources = [*entry.get("sources", []), label]
            own = {codes[int(r)]: label for r in part.run[part.benchmark == bench]}
            run_sources = {**entry.get("run_sources", {}), **own}
            entry.update(meta)
            entry["sources"] = sources
            entry["run_sources"] = run_sources
    merged = Measurements.concat(renumbered)
    return Measurements(merged.elapsed, work=merged.work, run=merged.run, order=merged.order,
                        warmup=merged.warmup, benchmark=merged.benchmark, metadata=metadata)


def file_groups(runs: list[tuple[int, np.ndarray]], run_sources: Any, *,
                share_process: bool = False) -> list[list[np.ndarray]] | None:
    """The runs grouped by the file they came from, or None with fewer than 2 files.

    ``run_sources`` maps run ids to file labels (``load_many``, :func:`combine_runs`).
    With ``share_process`` (the runs of a file ran in one process: Google Benchmark's
    repetitions) a single file is one group too, so that its runs are never taken for
    independent replicates of the process.
    """
    if not runs:
        return None
    if not isinstance(run_sources, Mapping):
        return [[values for _, values in runs]] if share_process and len(runs) >= 2 else None
    groups: dict[Any, list[np.ndarray]] = {}
    for run_id, values in runs:
        key = run_sources.get(run_id, run_sources.get(str(run_id), ("run", run_id)))
        groups.setdefault(key, []).append(values)
    if len(groups) >= 2 or (share_process and len(runs) >= 2):
        return list(groups.values())
    return None


#: Note of an analysis whose runs ran in one process (a single Google Benchmark file).
ONE_PROCESS_NOTE = ("the runs ran in one process (Google Benchmark repetitions): the "
                    "interval excludes process-to-process variation (run the binary 2 "
                    "times or more and pass every file)")


def _several_runs_per_file(files: list[list[np.ndarray]] | None) -> bool:
    """Files whose runs are not the files themselves (one run per file: files are runs)."""
    return files is not None and any(len(group) > 1 for group in files)


def _one_file(files: list[list[np.ndarray]] | None) -> bool:
    """A single file (of runs that share one process): no file-to-file variance."""
    return files is not None and len(files) == 1


def file_values(files: list[list[np.ndarray]], statistic: str, block: int | None
                ) -> list[np.ndarray]:
    """Each file's statistic (mean over its runs of each run's statistic), as 1-sample runs.

    Median / minimum use blocks of ``block`` samples in every run (one size for all, so
    that every file estimates the same quantity).
    """
    out = []
    for runs in files:
        if statistic == "mean":
            stats = [float(np.mean(r)) for r in runs]
        else:
            assert block is not None
            stats = [float(np.mean(block_statistics(r, block, statistic))) for r in runs]
        out.append(np.array([float(np.mean(stats))]))
    return out


def _none_if_nan(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def run_level_fields(
    runs: list[np.ndarray], *, harmonic: bool, summary_statistic: str,
    confidence_level: float, autocorrelation_limit: float, unit: str,
    half_width_percent: float, run_cost: float | None,
    files: list[list[np.ndarray]] | None = None, assume_runs_equivalent: bool = False,
) -> tuple[dict[str, Any], list[str]]:
    """Fields of a :class:`BenchmarkAnalysis` whose interval has the runs (or files) as units.

    ``runs`` (at least 2, each non-empty) are the kept samples of each run; ``files``, the
    same runs grouped by file when they came from 2 files or more (then the files are the
    units, unless ``assume_runs_equivalent``). The JMH throughput case (``harmonic``)
    works on the reciprocals (operations per second), whose mean is the reciprocal of the
    harmonic mean, and maps the interval back.
    """
    notes: list[str] = []
    statistic = summary_statistic
    if harmonic and statistic != "mean":
        notes.append(f"summary statistic {statistic!r} not applied: JMH throughput uses the "
                     "harmonic mean")
        statistic = "mean"
    series = [1.0 / r for r in runs] if harmonic else runs
    options: dict[str, Any] = {"confidence_level": confidence_level,
                               "autocorrelation_limit": autocorrelation_limit,
                               "unit": None if harmonic else unit}
    per_run = two_level_analysis(series, summary_statistic=statistic, **options)
    result, kind, per_unit = per_run, "runs", None
    label, caveat = "runs", ""
    if _one_file(files) and not assume_runs_equivalent:
        notes.append(ONE_PROCESS_NOTE)
        # more repetitions of the same process cannot add the process-to-process variation
        label, caveat = "repetitions", " (of one process: several files add the variation " \
            "between processes)"
    elif _several_runs_per_file(files) and not assume_runs_equivalent:
        assert files is not None
        groups = [[1.0 / r for r in group] for group in files] if harmonic else files
        result = two_level_analysis(file_values(groups, statistic, per_run.block_size),
                                    summary_statistic="mean", **options)
        kind = label = "files"
        per_unit = max(1, round(per_run.n / len(files)))
        notes.append(f"files as units: {len(files)} files of {per_run.n_runs} runs in all "
                     "(the interval includes the variation between files)")
    elif per_run.note:
        notes.append(per_run.note)
    if one_sample := _one_sample_note(statistic, per_run.block_size):
        notes.append(one_sample)
    plan = required_runs(result, half_width_percent=half_width_percent,
                         run_cost=run_cost if kind == "runs" else None)
    samples_per_unit = plan.samples_per_run if per_unit is None else per_unit
    if plan.planned_runs is not None and plan.additional_runs:
        notes.append(f"±{half_width_percent:g} % needs {plan.planned_runs} {label} x "
                     f"{samples_per_unit} samples: {plan.additional_runs} more {label[:-1]}(s) "
                     f"than the {result.n_runs} measured{caveat}")
    elif plan.planned_runs is None:
        notes.append(f"no plan: {plan.note}")
    if harmonic:
        mean = 1.0 / result.mean
        low = 1.0 / result.ci_high if result.ci_high > 0 else math.inf
        high = 1.0 / result.ci_low if result.ci_low > 0 else math.inf
        unit_values = tuple(1.0 / v for v in result.unit_values)
        between = within = None
    else:
        mean, low, high = result.mean, result.ci_low, result.ci_high
        unit_values = result.unit_values
        between = _none_if_nan(per_run.between_variance)
        within = _none_if_nan(per_run.within_variance)
    fields = {
        "mean": mean, "ci_low": _none_if_nan(low), "ci_high": _none_if_nan(high),
        "subsession_size": None, "n_subsessions": None, "subsession_variance": None,
        "autocorrelation": None, "samples": None,
        "summary_statistic": "harmonic mean" if harmonic else RUN_LABELS[statistic],
        "interval_units": kind, "run_values": tuple(float(v) for v in unit_values),
        "block_size": per_run.block_size, "between_variance": between,
        "within_variance": within, "plan_runs": plan.planned_runs,
        "plan_samples_per_run": samples_per_unit, "additional_runs": plan.additional_runs,
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
    by_file: bool = False
    #: ``((mean, variance, count), (mean, variance, count))`` of each side's units and the
    #: runs in one unit (batches of drifting runs), for :func:`units_to_resolve`.
    unit_moments: tuple[tuple[float, float, int], tuple[float, float, int]] | None = None
    runs_per_unit: int = 1


def _welch_difference(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float]:
    """Welch interval of ``mean(y) - mean(x)`` (the Fieller test at ratio 1 is this test)."""
    from pilotstats.autocorrelation import welch_test

    test = welch_test(float(np.mean(y)), float(np.var(y, ddof=1)), int(y.size),
                      float(np.mean(x)), float(np.var(x, ddof=1)), int(x.size),
                      confidence_level=level)
    return float(test.ci_low), float(test.ci_high)


def _files_note(result: Any, base_files: list[list[np.ndarray]] | None,
                new_files: list[list[np.ndarray]] | None) -> str:
    """The note of a comparison with the files as units (inconclusive with one file)."""
    single = [side for side, files in (("base", base_files), ("new", new_files))
              if files is None or len(files) == 1]
    note = (f"files as units ({result.base.n_units} vs {result.new.n_units} files; the "
            "interval includes the variation between files)")
    if single:
        where = "per side" if len(single) == 2 else f"on the {single[0]} side"
        shared = (" whose runs share one process (Google Benchmark repetitions)"
                  if _one_file(base_files) or _one_file(new_files) else "")
        note = (f"inconclusive: 1 file {where}{shared}, so the "
                f"{'process' if shared else 'file'}-to-{'process' if shared else 'file'} "
                "variance is unknown (several files per side, or assume the runs "
                "equivalent)")
    return note


def compare_kept(
    base_runs: list[np.ndarray], new_runs: list[np.ndarray], *, harmonic: bool,
    summary_statistic: str, confidence_level: float, autocorrelation_limit: float,
    assume_runs_equivalent: bool, unit: str,
    base_files: list[list[np.ndarray]] | None = None,
    new_files: list[list[np.ndarray]] | None = None,
) -> RunChange:
    """:func:`compare_runs` on the kept samples of each side's runs (time per work).

    With 2 files or more on a side (``base_files``/``new_files``: the runs grouped by file)
    the files are the units of both sides, unless ``assume_runs_equivalent``.
    """
    statistic = "mean" if harmonic else summary_statistic
    if harmonic:
        base_runs = [1.0 / r for r in base_runs]
        new_runs = [1.0 / r for r in new_runs]
        base_files = None if base_files is None else [[1.0 / r for r in g] for g in base_files]
        new_files = None if new_files is None else [[1.0 / r for r in g] for g in new_files]
    options: dict[str, Any] = {"confidence_level": confidence_level,
                               "autocorrelation_limit": autocorrelation_limit,
                               "assume_runs_equivalent": assume_runs_equivalent,
                               "unit": None if harmonic else unit}
    by_file = not assume_runs_equivalent and (_several_runs_per_file(base_files)
                                               or _several_runs_per_file(new_files))
    if by_file:
        block = (None if statistic == "mean"
                 else min(r.size for r in [*base_runs, *new_runs]))
        result = compare_runs(file_values(base_files or [base_runs], statistic, block),
                              file_values(new_files or [new_runs], statistic, block),
                              summary_statistic="mean", **options)
        runs_result = compare_runs(base_runs, new_runs, summary_statistic=statistic,
                                   **options) if min(len(base_runs), len(new_runs)) >= 2 \
            else None
        note = _files_note(result, base_files, new_files)
    else:
        result = runs_result = compare_runs(base_runs, new_runs, summary_statistic=statistic,
                                            **options)
        note = result.note
        if (result.conclusive and not assume_runs_equivalent and base_files is None
                and new_files is None and min(len(base_runs), len(new_runs)) >= 2):
            note = "; ".join(part for part in (note, ONE_FILE_NOTE) if part)
    blocks = "blocks" in (result.base.units, result.new.units)
    block = min(r.size for r in [*base_runs, *new_runs])
    if not blocks and (one_sample := _one_sample_note(statistic, block)):
        note = "; ".join(part for part in (note, one_sample) if part)
    common: dict[str, Any] = {"base_units": result.base.n_units,
                              "new_units": result.new.n_units, "blocks": blocks,
                              "note": note, "by_file": by_file}
    if result.conclusive and not blocks:
        common["unit_moments"] = tuple(
            (float(np.mean(v)), float(np.var(v, ddof=1)), int(v.size))
            for v in (np.asarray(result.base.unit_values), np.asarray(result.new.unit_values)))
        common["runs_per_unit"] = max(result.base.runs_per_unit, result.new.runs_per_unit)
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
    parts = runs_result if runs_result is not None else result
    return RunChange(
        result.ratio, result.ci_low, result.ci_high, result.p_value, result.dof,
        result.conclusive, difference_ci=difference,
        base_components=(_none_if_nan(parts.base.between_variance),
                         _none_if_nan(parts.base.within_variance)),
        new_components=(_none_if_nan(parts.new.between_variance),
                        _none_if_nan(parts.new.within_variance)),
        base_mean=result.base.mean, new_mean=result.new.mean, **common)


def _side_moments(item: Any, equivalent: bool, harmonic: bool
                  ) -> tuple[np.ndarray | None, tuple[float, float, int] | None, str]:
    """Unit values (or moments) of a stored analysis, or why it cannot be compared."""
    if item.interval_units in ("runs", "files") and len(item.run_values) >= 2:
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


def units_to_resolve(moments: tuple[tuple[float, float, int], tuple[float, float, int]],
                     half_width: float, confidence_level: float,
                     limit: int = 1_000_000) -> int | None:
    """Units per side whose ratio interval would be at most ``half_width`` wide each way.

    The units' means and variances are taken as measured and the count of both sides set
    to ``k``; the Fieller interval of the ratio (:func:`ratio_interval_from_moments`)
    narrows as ``k`` grows, so the smallest ``k`` with ``(high - low) / 2 <= half_width``
    (a fraction of the ratio, e.g. 0.05) is found by galloping and bisection
    (``pilotstats.autocorrelation._sample_size.smallest_passing``). This is Kalibera &
    Jones's planning of the number of repetitions at the level that dominates the variance
    (ISMM 2013, §4), applied to a comparison. None when no ``k <= limit`` reaches it.

    Parameters
    ----------
    moments : ((mean, variance, count), (mean, variance, count))
        Base and new unit means, unit variances (ddof 1) and counts.
    half_width : float
        Target half-width of the ratio interval, > 0.
    confidence_level : float
        Level of the interval.
    limit : int, default 1_000_000
        Largest count tried.
    """
    (mx, vx, _), (my, vy, _) = moments
    if not (half_width > 0 and mx > 0 and math.isfinite(vx) and math.isfinite(vy)):
        return None

    def narrow(k: int) -> bool:
        _, low, high, _, _ = ratio_interval_from_moments(mx, vx, k, my, vy, k,
                                                         confidence_level)
        return bool(math.isfinite(high) and (high - low) / 2.0 <= half_width)

    if not narrow(limit):
        return None
    return smallest_passing(narrow, 2)  # narrowing is upward-closed in k


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
    moments_kept = None if blocks else ((mx, vx, kx), (my, vy, ky))
    if harmonic:
        ratio, low, high = (1.0 / ratio, 1.0 / high if high > 0 else math.inf,
                            1.0 / low if low > 0 else math.inf)
        return RunChange(ratio, low, high, p_value, dof, True, kx, ky, blocks, note,
                         base_mean=1.0 / mx, new_mean=1.0 / my, unit_moments=moments_kept)
    return RunChange(ratio, low, high, p_value, dof, True, kx, ky, blocks, note,
                     base_mean=mx, new_mean=my, unit_moments=moments_kept,
                     base_components=(base.between_variance, base.within_variance),
                     new_components=(new.between_variance, new.within_variance))
