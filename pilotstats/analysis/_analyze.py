"""Per-benchmark analysis of harness measurements: :func:`analyze`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

import pilotstats._config as _config
from pilotstats._validation import check_bool, check_confidence_level, check_real
from pilotstats.analysis._analysis_report import AnalysisReport, BenchmarkAnalysis
from pilotstats.analysis._forks import joint_stable_phases
from pilotstats.analysis._progress import StepBar, call_collecting_warnings, progress_items
from pilotstats.analysis._runs import combine_runs, file_groups, run_level_fields
from pilotstats.autocorrelation import required_sample_size, subsession_analysis
from pilotstats.changepoints import stable_phase
from pilotstats.exceptions import InvalidInputError, PilotStatsError
from pilotstats.io import Measurements
from pilotstats.regression import wps

__all__ = ["AnalysisReport", "BenchmarkAnalysis", "KeptRuns", "analyze",
           "call_collecting_warnings", "progress_items"]

#: A benchmark's kept samples per run, and the same runs grouped by file (None: one file).
KeptRuns = tuple[list[np.ndarray], list[list[np.ndarray]] | None]


def _mean_method(meta: Mapping[str, Any]) -> str:
    return "harmonic" if meta.get("mean_method") == "harmonic" else "arithmetic"


def _run_statistics(values: list[np.ndarray]) -> tuple[float | None, float | None]:
    means = [float(np.mean(v)) for v in values if v.size]
    between = float(np.std(means, ddof=1)) if len(means) >= 2 else None
    within_parts = [(v.size - 1, float(np.var(v, ddof=1))) for v in values if v.size >= 2]
    dof = sum(d for d, _ in within_parts)
    within = math.sqrt(sum(d * s for d, s in within_parts) / dof) if dof > 0 else None
    return between, within


@dataclasses.dataclass(frozen=True, slots=True)
class _Settings:
    """The checked options of one :func:`analyze` call, shared by every benchmark."""

    confidence_level: float
    autocorrelation_limit: float
    half_width_percent: float
    detect_warmup: bool
    wps_analysis: bool
    method: str
    summary_statistic: str = "mean"
    assume_runs_equivalent: bool = False
    run_cost: float | None = None


@dataclasses.dataclass(slots=True)
class _Kept:
    """A benchmark's samples kept after warm-up removal, per run, and the removal counts."""

    values: list[np.ndarray] = dataclasses.field(default_factory=list)
    elapsed: list[np.ndarray] = dataclasses.field(default_factory=list)
    work: list[np.ndarray] = dataclasses.field(default_factory=list)
    run_ids: list[int] = dataclasses.field(default_factory=list)
    warmup: int = 0
    cooldown: int = 0


def _analyze_one(name: str, part: Measurements, settings: _Settings,
                 tick: Callable[[str], None] | None = None,
                 kept: dict[str, KeptRuns] | None = None) -> BenchmarkAnalysis:
    """Analyse one benchmark: warm-up removal, then the run-level or single-run interval."""
    meta = part.metadata.get(name, {})
    unit = "s" if str(meta.get("unit", "s")) in ("s", "second") else str(meta.get("unit"))
    mean_method = _mean_method(meta)
    notes: list[str] = []
    runs = _kept_samples(name, part, meta, settings.detect_warmup, tick, notes)
    values = np.concatenate(runs.values) if runs.values else np.empty(0)
    between, within = _run_statistics(runs.values)
    measured = [v for v in runs.values if v.size]
    files = file_groups([(r, v) for r, v in zip(runs.run_ids, runs.values, strict=True)
                         if v.size], meta.get("run_sources"),
                        share_process=bool(meta.get("runs_share_process", False)))
    if kept is not None:
        kept[name] = (measured, files)
    detected = settings.detect_warmup
    base: dict[str, Any] = {
        "name": name, "unit": unit,
        "summary_statistic": "harmonic mean" if mean_method == "harmonic" else "mean",
        "n": int(values.size), "n_total": part.n_samples, "n_runs": len(part.runs),
        "harness_warmups": int(np.sum(part.warmup)),
        "detected_warmup": runs.warmup if detected else None,
        "detected_cooldown": runs.cooldown if detected else None,
        "warmup_removal": "stable_phase" if detected else "none",
        "confidence_level": settings.confidence_level,
        "half_width_percent": settings.half_width_percent, "between_run_std": between,
        "within_run_std": within,
        "wps_throughput": None, "wps_throughput_ci_low": None, "wps_throughput_ci_high": None,
        "wps_alpha": None,
    }
    if len(measured) >= 2:
        return _several_runs(name, measured, files, runs, meta, base, notes, settings, tick)
    return _one_run(name, values, runs, meta, base, notes, settings, tick)


_EMPTY: dict[str, Any] = {"mean": None, "ci_low": None, "ci_high": None,
                          "subsession_size": None, "n_subsessions": None,
                          "subsession_variance": None, "autocorrelation": None,
                          "samples": None}


def _kept_samples(name: str, part: Measurements, meta: Mapping[str, Any], detect_warmup: bool,
                  tick: Callable[[str], None] | None, notes: list[str]) -> _Kept:
    """Drop harness warm-ups and each run's detected warm-up and cool-down."""
    kept = _Kept()
    runs = list(part.by_run())
    joint = (joint_stable_phases(meta, [run.time_per_work for _, run in runs])
             if detect_warmup else None)
    if joint is not None:
        notes.append(joint[1])
    for position, (run_id, run) in enumerate(runs):
        kept.run_ids.append(run_id)
        if tick is not None:
            tick(f"{name}, run {run_id}")
        series = run.time_per_work
        start, end = 0, series.size
        if joint is not None:
            decision = joint[0][position]
            if isinstance(decision, str):
                notes.append(f"run {run_id}: {decision}; run kept whole")
            else:
                start, end = decision
        elif detect_warmup:
            start, end = _stable_bounds(series, run_id, notes)
        keep = ~run.warmup.copy()
        first_measured = int(np.argmax(keep)) if keep.any() else series.size
        kept.warmup += max(0, start - first_measured)
        kept.cooldown += max(0, series.size - end) if start < end else 0
        index = np.arange(series.size)
        keep &= (index >= start) & (index < end)
        kept.values.append(series[keep])
        kept.elapsed.append(run.elapsed[keep])
        kept.work.append(run.work[keep])
    return kept


def _stable_bounds(series: np.ndarray, run_id: int, notes: list[str]) -> tuple[int, int]:
    """The stable phase ``[start, end)`` of one run (the whole run when none is found)."""
    start, end = 0, series.size
    try:
        phase, caught = call_collecting_warnings(stable_phase, series)
        notes.extend(caught)
        if bool(getattr(phase, "found", True)):
            start, end = int(phase.start), int(phase.end)
        else:
            notes.append(f"run {run_id}: no dominant stable segment "
                         f"({getattr(phase, 'outcome', 'not found')}); run kept whole")
    except PilotStatsError as exc:
        notes.append(f"stable-phase detection skipped for a run: {exc}")
    return start, end


def _several_runs(name: str, measured: list[np.ndarray], files: Any, runs: _Kept,
                  meta: Mapping[str, Any], base: dict[str, Any], notes: list[str],
                  settings: _Settings, tick: Callable[[str], None] | None) -> BenchmarkAnalysis:
    """The two-level (runs as units) interval and plan of a benchmark with two runs or more."""
    if tick is not None:
        tick(f"{name}, intervals")
    try:
        fields, caught = run_level_fields(
            measured, harmonic=_mean_method(meta) == "harmonic",
            summary_statistic=settings.summary_statistic,
            confidence_level=settings.confidence_level,
            autocorrelation_limit=settings.autocorrelation_limit, unit=base["unit"],
            half_width_percent=settings.half_width_percent, run_cost=settings.run_cost,
            files=files, assume_runs_equivalent=settings.assume_runs_equivalent)
    except PilotStatsError as exc:
        notes.append(str(exc))
        return BenchmarkAnalysis(**base, **_EMPTY, status="not_enough_data",
                                 notes=tuple(notes))
    notes.extend(caught)
    base["summary_statistic"] = fields.pop("summary_statistic")
    if settings.wps_analysis:
        _add_wps(base, notes, runs.work, runs.elapsed, meta, settings.confidence_level,
                 settings.autocorrelation_limit)
    return BenchmarkAnalysis(**base, **fields, status="ok", notes=tuple(notes))


def _one_run(name: str, values: np.ndarray, runs: _Kept, meta: Mapping[str, Any],
             base: dict[str, Any], notes: list[str], settings: _Settings,
             tick: Callable[[str], None] | None) -> BenchmarkAnalysis:
    """The subsession interval and required sample size of a single-run benchmark."""
    if values.size < 3:
        notes.append(f"need at least 3 samples after warm-up removal, have {values.size}")
        return BenchmarkAnalysis(**base, **_EMPTY, status="not_enough_data", notes=tuple(notes))
    if tick is not None:
        tick(f"{name}, intervals")
    notes.append("runs assumed equivalent: the interval excludes run-to-run variation"
                 if settings.assume_runs_equivalent else
                 "one run: the run-to-run variance is unknown, so the interval covers this "
                 "run only (measure more runs: processes, repetitions or files)")
    mean_method = _mean_method(meta)
    status, stats = _subsession_fields(values, mean_method, base["unit"], notes, settings)
    if status == "ok" and settings.summary_statistic != "mean":
        if mean_method != "arithmetic":
            notes.append(f"summary statistic {settings.summary_statistic!r} not applied: JMH "
                         f"throughput uses the harmonic mean")
        else:
            from pilotstats.analysis._robust import STATISTICS, block_statistic

            robust = block_statistic(values, int(stats["subsession_size"]),
                                     settings.summary_statistic, settings.confidence_level)
            notes.extend(robust.pop("notes"))
            stats.update(robust)
            base["summary_statistic"] = STATISTICS[settings.summary_statistic]
    needed = None
    if status == "ok":
        try:
            size = required_sample_size(
                values, half_width_percent=settings.half_width_percent,
                confidence_level=settings.confidence_level,
                autocorrelation_limit=settings.autocorrelation_limit,
                mean_method=mean_method,  # type: ignore[arg-type]
                method=settings.method)  # type: ignore[arg-type]
            needed = size.samples
        except PilotStatsError as exc:
            notes.append(f"required sample size: {exc}")
    if settings.wps_analysis:
        _add_wps(base, notes, runs.work, runs.elapsed, meta, settings.confidence_level,
                 settings.autocorrelation_limit)
    return BenchmarkAnalysis(**base, **stats, samples=needed, status=status,
                             notes=tuple(notes),
                             interval_units=None if stats.get("ci_low") is None
                             else "subsessions")


def _subsession_fields(values: np.ndarray, mean_method: str, unit: str, notes: list[str],
                       settings: _Settings) -> tuple[str, dict[str, Any]]:
    """Status and interval fields of the subsession analysis of one run's samples."""
    try:
        result = subsession_analysis(values, confidence_level=settings.confidence_level,
                                     autocorrelation_limit=settings.autocorrelation_limit,
                                     mean_method=mean_method,  # type: ignore[arg-type]
                                     unit=unit)
    except PilotStatsError as exc:
        status = "no_subsession_size" if "subsession" in type(exc).__name__.lower() else (
            "not_enough_data")
        notes.append(str(exc))
        stats = {k: v for k, v in _EMPTY.items() if k != "samples"}
        if mean_method == "arithmetic":
            stats["mean"] = float(np.mean(values))
        return status, stats
    return "ok", {
        "mean": result.mean, "ci_low": result.ci_low, "ci_high": result.ci_high,
        "subsession_size": result.subsession_size, "n_subsessions": result.n_subsessions,
        "subsession_variance": result.subsession_variance,
        "autocorrelation": None if math.isnan(result.autocorrelation)
        else result.autocorrelation,
    }


def _add_wps(base: dict[str, Any], notes: list[str], work_parts: list[np.ndarray],
             elapsed_parts: list[np.ndarray], meta: Mapping[str, Any], confidence_level: float,
             autocorrelation_limit: float) -> None:
    work = np.concatenate(work_parts) if work_parts else np.empty(0)
    elapsed = np.concatenate(elapsed_parts) if elapsed_parts else np.empty(0)
    if work.size < 3 or np.unique(work).size < 2:
        return
    if meta.get("work_known") is False or base["unit"] != "s":
        notes.append("work varies but is not a measured amount here; no WPS regression")
        return
    try:
        result, caught = call_collecting_warnings(
            wps, work, elapsed, confidence_level=confidence_level,
            autocorrelation_limit=autocorrelation_limit, unit="work")
    except PilotStatsError as exc:
        notes.append(f"WPS regression skipped: {exc}")
        return
    notes.extend(caught)
    base.update({
        "wps_throughput": _finite_or_none(result.throughput),
        "wps_throughput_ci_low": _finite_or_none(result.throughput_ci_low),
        "wps_throughput_ci_high": _finite_or_none(result.throughput_ci_high),
        "wps_alpha": _finite_or_none(result.alpha),
    })


def _finite_or_none(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


def analyze(
    measurements: Measurements | Sequence[Measurements], *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    half_width_percent: float = _config.DEFAULT_HALF_WIDTH_PERCENT,
    detect_warmup: bool = True, wps_analysis: bool = True, method: str = "pilot",
    benchmarks: Iterable[str] | None = None, progress: bool = False,
    summary_statistic: str = "mean", assume_runs_equivalent: bool = False,
    run_cost: float | None = None,
) -> AnalysisReport:
    """Analyse every benchmark of harness measurements.

    Per benchmark: warm-up removal, then an interval with the runs as the units (or the
    subsession interval of a single run), the plan for ±``half_width_percent`` and the
    work-per-second regression; see the overview of :mod:`pilotstats.analysis`. Complexity:
    O(n log n) time and O(n) memory per benchmark of n samples.

    Parameters
    ----------
    measurements : Measurements or sequence of Measurements
        From any loader of :mod:`pilotstats.io`; a sequence (one per result file) is one
        measurement whose files keep their own runs (a file without runs is one run).
    confidence_level : float in (0, 1), default 0.95
        Level of every interval.
    autocorrelation_limit : float in (0, 1], default 0.1
        Limit on the lag-1 autocorrelation of subsession means.
    half_width_percent : float, default 1.0
        Target half width of the interval as a percentage of the mean (1.0 means ±1 %).
    detect_warmup : bool, default True
        Run stable-phase detection on each run (forks of JMH or pyperf: jointly).
    wps_analysis : bool, default True
        Fit the work-per-second regression when the work varies.
    method : {"pilot", "iterate"}, default "pilot"
        Degrees-of-freedom rule of the required sample size (single run).
    benchmarks : iterable of str, optional
        Names to analyse (default all).
    progress : bool, default False
        Show a progress bar (needs ``tqdm``; silently off without it).
    summary_statistic : {"mean", "median", "min"}, default "mean"
        Headline statistic (see the overview for the median and minimum intervals).
    assume_runs_equivalent : bool, default False
        One run only: take its interval as it is, excluding run-to-run variation.
    run_cost : float, optional
        Cost of starting a run in units of one sample's cost (the plan then also chooses
        the samples per run).

    Returns
    -------
    AnalysisReport

    Raises
    ------
    InvalidInputError
        Not Measurements, or bad options.

    Examples
    --------
    >>> from pilotstats.io import Measurements
    >>> rng = np.random.default_rng(0)
    >>> m = Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench")
    >>> item = analyze(m)["bench"]
    >>> item.n, item.subsession_size, item.ci_low < 2e-3 < item.ci_high
    (200, 1, True)

    Three result files (one run each, as pytest-benchmark writes) are three runs:

    >>> files = [Measurements(rng.normal(2e-3 + d, 2e-5, 50), benchmark="bench") for d in (
    ...     0.0, 3e-5, -2e-5)]
    >>> item = analyze(files, detect_warmup=False)["bench"]
    >>> item.n_runs, item.interval_units, item.plan_runs
    (3, 'runs', 8)
    """
    return analyze_runs(
        measurements, confidence_level=confidence_level, half_width_percent=half_width_percent,
        autocorrelation_limit=autocorrelation_limit,
        detect_warmup=detect_warmup, wps_analysis=wps_analysis, method=method,
        benchmarks=benchmarks, progress=progress, summary_statistic=summary_statistic,
        assume_runs_equivalent=assume_runs_equivalent, run_cost=run_cost)[0]


def analyze_runs(
    measurements: Any, *, confidence_level: float, autocorrelation_limit: float,
    half_width_percent: float, detect_warmup: bool, wps_analysis: bool, method: str,
    benchmarks: Iterable[str] | None, progress: bool, summary_statistic: str,
    assume_runs_equivalent: bool, run_cost: float | None,
) -> tuple[AnalysisReport, dict[str, KeptRuns]]:
    """:func:`analyze`, also returning each benchmark's kept samples per run.

    :func:`~pilotstats.analysis.compare` compares those runs (one block size for both
    sides), which a stored report does not hold.
    """
    measurements = combine_runs(measurements, "measurements")
    if not isinstance(measurements, Measurements):
        raise InvalidInputError(
            f"measurements must be a pilotstats.io.Measurements (or a list of them, one per "
            f"file), got {type(measurements).__name__}; load files with pilotstats.io.load")
    confidence_level = check_confidence_level(confidence_level)
    autocorrelation_limit = check_real(autocorrelation_limit, "autocorrelation_limit",
                                       low=0.0, high=1.0, low_inclusive=False)
    detect_warmup = check_bool(detect_warmup, "detect_warmup")
    wps_analysis = check_bool(wps_analysis, "wps_analysis")
    progress = check_bool(progress, "progress")
    equivalent = check_bool(assume_runs_equivalent, "assume_runs_equivalent")
    half_width_percent = check_real(half_width_percent, "half_width_percent", low=0.0,
                                    low_inclusive=False)
    cost = None if run_cost is None else check_real(run_cost, "run_cost", low=0.0)
    if method not in ("pilot", "iterate"):
        raise InvalidInputError(f"method must be 'pilot' or 'iterate', got {method!r}")
    if summary_statistic not in ("mean", "median", "min"):
        raise InvalidInputError(
            f"summary_statistic must be 'mean', 'median' or 'min', got {summary_statistic!r}")
    wanted = None if benchmarks is None else list(benchmarks)
    names = [n for n in measurements.names if wanted is None or n in wanted]
    if wanted is not None:
        missing = [n for n in wanted if n not in measurements.names]
        if missing:
            raise InvalidInputError(f"benchmarks {missing} not in the measurements; "
                                    f"available: {list(measurements.names)}")
    kept: dict[str, KeptRuns] = {}
    steps = sum(len(measurements[name].runs) + 1 for name in names)
    with StepBar(steps if progress else 0, "analyze") as bar:
        settings = _Settings(confidence_level, autocorrelation_limit, half_width_percent,
                             detect_warmup, wps_analysis, method, summary_statistic, equivalent,
                             cost)
        items = tuple(_analyze_one(name, measurements[name], settings, bar.step, kept)
                      for name in names)
    sources = {str(m.get("source")) for m in measurements.metadata.values() if m.get("source")}
    return AnalysisReport(items, confidence_level, half_width_percent,
                          sources.pop() if len(sources) == 1 else None), kept
