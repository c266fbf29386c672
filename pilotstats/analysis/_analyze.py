"""Per-benchmark analysis of harness measurements: :func:`analyze`."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, SupportsIndex, TypeVar, overload

import numpy as np

from pilotstats import _config
from pilotstats._protocols import select_items
from pilotstats._validation import check_bool, check_confidence_level, check_real
from pilotstats.analysis._forks import joint_stable_phases
from pilotstats.autocorrelation import required_sample_size, subsession_analysis
from pilotstats.changepoints import stable_phase
from pilotstats.exceptions import InvalidInputError, PilotStatsError
from pilotstats.io import Measurements
from pilotstats.regression import wps
from pilotstats.results import (
    Result,
    decode_float,
    decode_float_fields,
    format_interval,
    format_number,
    format_quantity,
)

__all__ = ["AnalysisReport", "BenchmarkAnalysis", "analyze"]


@dataclass(frozen=True, slots=True)
class BenchmarkAnalysis(Result):
    """Analysis of one benchmark: warm-up, mean with subsession CI, required samples, WPS.

    The analysed quantity is the time per unit of work (``elapsed / work``: seconds per loop,
    iteration, call or op), after removing the harness's warm-ups and the detected warm-up
    and cool-down of each run, with the runs concatenated in time order.

    Attributes
    ----------
    name : str
        Benchmark name.
    unit : str
        Unit of the analysed quantity (``"s"`` per unit of work).
    summary_statistic : str
        Summary statistic of the headline estimate: ``"mean"``, ``"harmonic mean"`` (JMH
        throughput), ``"median"`` or ``"subsession min"`` (see :func:`analyze`).
    n : int
        Samples analysed.
    n_total : int
        Samples in the input for this benchmark (warm-ups included).
    n_runs : int
        Replicates (processes, forks, repetitions).
    harness_warmups : int
        Samples the harness itself marked as warm-ups (removed).
    detected_warmup, detected_cooldown : int or None
        Further samples removed at the start / end of runs by stable-phase detection;
        ``None`` when detection did not run (see ``warmup_removal``).
    warmup_removal : str
        ``"stable_phase"`` or ``"none"`` (the names :class:`~pilotstats.session.BenchmarkSession`
        uses for the same choice).
    mean, ci_low, ci_high : float or None
        Estimate and its subsession confidence interval (None when not determinable).
    confidence_level : float
        Level of the interval.
    subsession_size, n_subsessions : int or None
        Block size ``q`` and number of blocks ``h``.
    subsession_variance : float or None
        ``s2_q`` (what a Welch comparison needs, with ``h``).
    autocorrelation : float or None
        Lag-1 autocorrelation of the block means.
    half_width_percent : float
        Target half width of the interval, percent of the mean.
    samples : int or None
        Samples needed for ``±half_width_percent`` at ``confidence_level``.
    between_run_std, within_run_std : float or None
        Standard deviation of the run means, and pooled standard deviation within runs.
    wps_throughput, wps_throughput_ci_low, wps_throughput_ci_high, wps_alpha : float or None
        Work-per-second regression ``t = α + w/v`` (work units per second, overhead in s),
        when the work varies between samples.
    status : str
        ``"ok"``, ``"no_subsession_size"`` (collect more data), ``"not_enough_data"``.
    notes : tuple of str
        What was skipped and why; warnings raised by the underlying methods.

    Examples
    --------
    One entry of an :class:`AnalysisReport`:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> report = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench"))
    >>> item = report["bench"]
    >>> print(item)
    bench: mean 2 ms (95 % CI [1.998, 2.003] ms, n = 200, q = 1, warm-up 0, need 4 for ±1 %)
    >>> item.n, item.subsession_size, item.samples
    (200, 1, 4)
    """

    name: str
    unit: str
    summary_statistic: str
    n: int
    n_total: int
    n_runs: int
    harness_warmups: int
    detected_warmup: int | None
    detected_cooldown: int | None
    warmup_removal: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    confidence_level: float
    subsession_size: int | None
    n_subsessions: int | None
    subsession_variance: float | None
    autocorrelation: float | None
    half_width_percent: float
    samples: int | None
    between_run_std: float | None
    within_run_std: float | None
    wps_throughput: float | None
    wps_throughput_ci_low: float | None
    wps_throughput_ci_high: float | None
    wps_alpha: float | None
    status: str
    notes: tuple[str, ...] = ()

    def confidence_interval(self, confidence_level: float | None = None) -> Any:
        """Interval of the mean at ``confidence_level`` (None: the stored level)."""
        from pilotstats._stats import two_sided_t
        from pilotstats.results import ConfidenceInterval

        if self.mean is None or self.subsession_variance is None or not self.n_subsessions:
            return ConfidenceInterval(math.nan, math.nan)
        level = self.confidence_level if confidence_level is None else check_confidence_level(
            confidence_level)
        if self.summary_statistic != "mean":
            if confidence_level is None and self.ci_low is not None and self.ci_high is not None:
                return ConfidenceInterval(self.ci_low, self.ci_high)
            raise InvalidInputError("intervals at another level are available for the "
                                    "arithmetic mean only; rerun analyze(confidence_level=...)")
        half = two_sided_t(level, self.n_subsessions - 1) * math.sqrt(
            self.subsession_variance / self.n_subsessions)
        return ConfidenceInterval(self.mean - half, self.mean + half)

    @property
    def warmup_text(self) -> str:
        """Human-readable warm-up summary."""
        if self.warmup_removal == "stable_phase":
            text = f"{self.detected_warmup}"
            if self.detected_cooldown:
                text += f" (+{self.detected_cooldown} cool-down)"
        else:
            text = "off"
        if self.harness_warmups:
            text += f" + {self.harness_warmups} harness"
        return text

    def __str__(self) -> str:
        if self.mean is None:
            return f"{self.name}: n = {self.n}, {self.status}"
        interval = format_interval(self.ci_low, self.ci_high, self.confidence_level, self.unit)
        return (f"{self.name}: {self.summary_statistic} "
                f"{format_quantity(self.mean, self.unit)} "
                f"({interval}, n = {self.n}, q = {self.subsession_size}, warm-up "
                f"{self.warmup_text}, need {self.samples} for "
                f"±{format_number(self.half_width_percent)} %)")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BenchmarkAnalysis:
        """Rebuild from :meth:`to_dict` output (e.g. ``pilotstats analyze --json``)."""
        values = decode_float_fields(cls, data)
        values["notes"] = tuple(values.get("notes", ()))
        return cls(**values)


@dataclass(frozen=True, slots=True)
class AnalysisReport(Result):
    """Analyses of all benchmarks of a :class:`~pilotstats.io.Measurements`.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`BenchmarkAnalysis` (``report[0]``; ``report["name"]`` selects one by name).
    ``str(report)`` is a table; ``to_dict()`` / :meth:`from_dict` round-trip through JSON.

    Examples
    --------
    Returned by :func:`analyze`; ``str()`` is the table the command line prints:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import analyze
    >>> rng = np.random.default_rng(0)
    >>> report = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench"))
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    benchmark  n    warm-up removed  estimate [95 % CI]           q  n for ±1 %
    ---------  ---  ---------------  ---------------------------  -  ----------
    bench      200  0                mean 2 ms [1.998, 2.003 ms]  1  4
    >>> [item.name for item in report.benchmarks]
    ['bench']
    """

    benchmarks: tuple[BenchmarkAnalysis, ...]
    confidence_level: float
    half_width_percent: float
    source: str | None = None

    def __iter__(self) -> Iterator[BenchmarkAnalysis]:
        return iter(self.benchmarks)

    def __len__(self) -> int:
        return len(self.benchmarks)

    @overload
    def __getitem__(self, key: str | SupportsIndex) -> BenchmarkAnalysis: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[BenchmarkAnalysis, ...]: ...

    def __getitem__(self, key: Any) -> Any:
        """The benchmark ``key`` (a name), or the item(s) at an index or slice."""
        if not isinstance(key, str):
            return select_items(key, len(self.benchmarks), self.benchmarks.__getitem__,
                                "AnalysisReport")
        for item in self.benchmarks:
            if item.name == key:
                return item
        raise KeyError(f"no benchmark named {key!r}; available: "
                       f"{[b.name for b in self.benchmarks]}")

    @property
    def names(self) -> tuple[str, ...]:
        """Benchmark names."""
        return tuple(b.name for b in self.benchmarks)

    def __str__(self) -> str:
        from pilotstats.analysis._table import render_table

        header, rows, notes = self._table_parts()
        return "\n".join([render_table(header, rows), *notes])

    def _repr_html_(self) -> str:
        from pilotstats.analysis._frames import report_html

        header, rows, notes = self._table_parts()
        title = f"Analysis of {len(self)} benchmark(s)" + (f" ({self.source})" if self.source
                                                           else "")
        return report_html(title, header, rows, (note.strip() for note in notes))

    def to_frame(self) -> Any:
        """One row per benchmark (index ``name``), the columns of
        :meth:`BenchmarkAnalysis.to_dict`.

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import analyze
        >>> rng = np.random.default_rng(0)
        >>> frame = analyze(Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="b")).to_frame()
        >>> int(frame.loc["b", "n"]), float(frame.loc["b", "mean"].round(4))
        (200, 0.002)
        """
        from pilotstats.analysis._frames import records_frame

        return records_frame(self.benchmarks, "name")

    def _table_parts(self) -> tuple[list[str], list[list[str]], list[str]]:
        level = f"{format_number(self.confidence_level * 100, 6)} % CI"
        rows = []
        for b in self.benchmarks:
            if b.mean is None:
                mean_text = f"({b.status})"
            elif b.ci_low is None or b.ci_high is None:
                mean_text = (f"{b.summary_statistic} {format_quantity(b.mean, b.unit)} "
                             f"(no CI: {b.status})")
            else:
                mean_text = (f"{b.summary_statistic} {format_quantity(b.mean, b.unit)} "
                             f"[{_bounds(b.ci_low, b.ci_high, b.unit)}]")
            rows.append([b.name, str(b.n), b.warmup_text, mean_text,
                         "-" if b.subsession_size is None else str(b.subsession_size),
                         "-" if b.samples is None else str(b.samples)])
        header = ["benchmark", "n", "warm-up removed", f"estimate [{level}]", "q",
                  f"n for ±{format_number(self.half_width_percent)} %"]
        lines: list[str] = []
        shared = set.intersection(*(set(b.notes) for b in self.benchmarks)) if len(
            self.benchmarks) > 1 else set()
        for note in sorted(shared):
            lines.append(f"  all benchmarks: {note}")
        for b in self.benchmarks:
            if b.wps_throughput is not None:
                lines.append(f"  {b.name}: work-per-second regression v = "
                             f"{format_number(b.wps_throughput)} work/s "
                             f"[{format_number(b.wps_throughput_ci_low)}, "
                             f"{format_number(b.wps_throughput_ci_high)}]"
                             f" ({level}), overhead α = {format_quantity(b.wps_alpha, 's')}")
            for note in b.notes:
                if note not in shared:
                    lines.append(f"  {b.name}: {note}")
        return header, rows, lines

    def plot(self, *, ax: Any = None) -> Any:
        """Forest plot of the intervals relative to each estimate (needs matplotlib).

        See :func:`pilotstats.analysis.plot_analysis`.
        """
        from pilotstats.analysis._plot import plot_analysis

        return plot_analysis(self, ax=ax)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnalysisReport:
        """Rebuild from :meth:`to_dict` output.

        Examples
        --------
        >>> import json
        >>> from pilotstats.io import Measurements
        >>> rng = np.random.default_rng(1)
        >>> report = analyze(Measurements(rng.normal(1.0, 0.01, 60), benchmark="x"))
        >>> again = AnalysisReport.from_dict(json.loads(json.dumps(report.to_dict())))
        >>> again.to_dict() == report.to_dict()
        True
        """
        return cls(
            tuple(BenchmarkAnalysis.from_dict(b) for b in data["benchmarks"]),
            float(data["confidence_level"]),
            float(decode_float(data["half_width_percent"])),
            data.get("source"),
        )


def _bounds(low: float | None, high: float | None, unit: str) -> str:
    text = format_interval(low, high, 0.5, unit)
    return text.split("[", 1)[1].replace("]", "")


def _mean_method(meta: Mapping[str, Any]) -> str:
    return "harmonic" if meta.get("mean_method") == "harmonic" else "arithmetic"


def _run_statistics(values: list[np.ndarray]) -> tuple[float | None, float | None]:
    means = [float(np.mean(v)) for v in values if v.size]
    between = float(np.std(means, ddof=1)) if len(means) >= 2 else None
    within_parts = [(v.size - 1, float(np.var(v, ddof=1))) for v in values if v.size >= 2]
    dof = sum(d for d, _ in within_parts)
    within = math.sqrt(sum(d * s for d, s in within_parts) / dof) if dof > 0 else None
    return between, within


def _analyze_one(
    name: str,
    part: Measurements,
    *,
    confidence_level: float,
    autocorrelation_limit: float,
    half_width_percent: float,
    detect_warmup: bool,
    wps_analysis: bool,
    method: str,
    summary_statistic: str = "mean",
    tick: Callable[[str], None] | None = None,
) -> BenchmarkAnalysis:
    meta = part.metadata.get(name, {})
    unit = "s" if str(meta.get("unit", "s")) in ("s", "second") else str(meta.get("unit"))
    mean_method = _mean_method(meta)
    notes: list[str] = []
    warmup_removal = "stable_phase" if detect_warmup else "none"
    kept_values: list[np.ndarray] = []
    kept_elapsed: list[np.ndarray] = []
    kept_work: list[np.ndarray] = []
    detected_warmup = 0
    detected_cooldown = 0
    runs = list(part.by_run())
    joint = (joint_stable_phases(meta, [run.time_per_work for _, run in runs])
             if detect_warmup else None)
    if joint is not None:
        notes.append(joint[1])
    for position, (run_id, run) in enumerate(runs):
        if tick is not None:
            tick(f"{name}, run {run_id}")
        series = run.time_per_work
        harness = int(np.sum(run.warmup))
        start, end = 0, series.size
        if joint is not None:
            decision = joint[0][position]
            if isinstance(decision, str):
                notes.append(f"run {run_id}: {decision}; run kept whole")
            else:
                start, end = decision
        elif detect_warmup:
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
        keep = ~run.warmup.copy()
        first_measured = int(np.argmax(keep)) if keep.any() else series.size
        detected_warmup += max(0, start - first_measured)
        detected_cooldown += max(0, series.size - end) if start < end else 0
        index = np.arange(series.size)
        keep &= (index >= start) & (index < end)
        del harness
        kept_values.append(series[keep])
        kept_elapsed.append(run.elapsed[keep])
        kept_work.append(run.work[keep])
    values = np.concatenate(kept_values) if kept_values else np.empty(0)
    between, within = _run_statistics(kept_values)
    base: dict[str, Any] = {
        "name": name, "unit": unit,
        "summary_statistic": "harmonic mean" if mean_method == "harmonic" else "mean",
        "n": int(values.size), "n_total": part.n_samples, "n_runs": len(part.runs),
        "harness_warmups": int(np.sum(part.warmup)),
        "detected_warmup": detected_warmup if warmup_removal == "stable_phase" else None,
        "detected_cooldown": detected_cooldown if warmup_removal == "stable_phase" else None,
        "warmup_removal": warmup_removal, "confidence_level": confidence_level,
        "half_width_percent": half_width_percent, "between_run_std": between,
        "within_run_std": within,
        "wps_throughput": None, "wps_throughput_ci_low": None, "wps_throughput_ci_high": None,
        "wps_alpha": None,
    }
    empty: dict[str, Any] = {"mean": None, "ci_low": None, "ci_high": None, "subsession_size": None,
             "n_subsessions": None, "subsession_variance": None, "autocorrelation": None,
             "samples": None}
    if values.size < 3:
        notes.append(f"need at least 3 samples after warm-up removal, have {values.size}")
        return BenchmarkAnalysis(**base, **empty, status="not_enough_data", notes=tuple(notes))
    status = "ok"
    if tick is not None:
        tick(f"{name}, intervals")
    try:
        result = subsession_analysis(values, confidence_level=confidence_level,
                                     autocorrelation_limit=autocorrelation_limit,
                                     mean_method=mean_method,  # type: ignore[arg-type]
                                     unit=unit)
        stats: dict[str, Any] = {
            "mean": result.mean, "ci_low": result.ci_low, "ci_high": result.ci_high,
            "subsession_size": result.subsession_size, "n_subsessions": result.n_subsessions,
            "subsession_variance": result.subsession_variance,
            "autocorrelation": None if math.isnan(result.autocorrelation)
            else result.autocorrelation,
        }
    except PilotStatsError as exc:
        status = "no_subsession_size" if "subsession" in type(exc).__name__.lower() else (
            "not_enough_data")
        notes.append(str(exc))
        stats = {k: v for k, v in empty.items() if k != "samples"}
        if mean_method == "arithmetic":
            stats["mean"] = float(np.mean(values))
    if status == "ok" and summary_statistic != "mean":
        if mean_method != "arithmetic":
            notes.append(f"summary statistic {summary_statistic!r} not applied: JMH "
                         f"throughput uses the harmonic mean")
        else:
            from pilotstats.analysis._robust import STATISTICS, block_statistic

            robust = block_statistic(values, int(stats["subsession_size"]), summary_statistic,
                                     confidence_level)
            notes.extend(robust.pop("notes"))
            stats.update(robust)
            base["summary_statistic"] = STATISTICS[summary_statistic]
    needed = None
    if status == "ok":
        try:
            size = required_sample_size(values, half_width_percent=half_width_percent,
                                        confidence_level=confidence_level,
                                        autocorrelation_limit=autocorrelation_limit,
                                        mean_method=mean_method,  # type: ignore[arg-type]
                                        method=method)  # type: ignore[arg-type]
            needed = size.samples
        except PilotStatsError as exc:
            notes.append(f"required sample size: {exc}")
    if wps_analysis:
        _add_wps(base, notes, kept_work, kept_elapsed, meta, confidence_level,
                 autocorrelation_limit)
    return BenchmarkAnalysis(**base, **stats, samples=needed, status=status,
                             notes=tuple(notes))


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
    measurements: Measurements,
    *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    half_width_percent: float = 1.0,
    detect_warmup: bool = True,
    wps_analysis: bool = True,
    method: str = "pilot",
    benchmarks: Iterable[str] | None = None,
    progress: bool = False,
    summary_statistic: str = "mean",
) -> AnalysisReport:
    """Analyse every benchmark of harness measurements.

    Per benchmark: remove the harness's warm-ups and detect each run's stable phase (warm-up
    and cool-down), concatenate the runs' remaining samples in time order, compute the mean
    time per unit of work with a subsession confidence interval, the number of samples needed
    for a ±``half_width_percent`` interval, the between- and within-run spread, and the
    work-per-second regression when the work varies between samples.

    Parameters
    ----------
    measurements : Measurements
        From any loader of :mod:`pilotstats.io`.
    confidence_level : float in (0, 1), default 0.95
        Level of every interval.
    autocorrelation_limit : float in (0, 1], default 0.1
        Limit on the lag-1 autocorrelation of subsession means (choice of ``q``).
    half_width_percent : float, default 1.0
        Target half width of the interval as a percentage of the mean (1.0 means ±1 %).
    detect_warmup : bool, default True
        Run stable-phase detection on each run (when this build has it). The forks of a
        JMH or pyperf benchmark (two or more runs of at least 1,000 iterations each) are
        judged together by :func:`~pilotstats.changepoints.steady_state`; each keeps
        ``x[mean_start:]``, and a fork without a steady state is kept whole with a note.
    wps_analysis : bool, default True
        Fit the work-per-second regression when the work varies.
    method : {"pilot", "iterate"}, default "pilot"
        Degrees-of-freedom rule of the required sample size.
    benchmarks : iterable of str, optional
        Names to analyse (default all).
    progress : bool, default False
        Show a progress bar (needs ``tqdm``; silently off without it) that moves inside
        each benchmark: one step per run (stable-phase detection) and one for its intervals,
        naming the current step.
    summary_statistic : {"mean", "median", "min"}, default "mean"
        Headline statistic. ``"median"``: the samples' median with an order-statistic
        interval on the subsession medians; ``"min"``: the mean of the subsession minima
        with a t interval (for heavy-tailed timings). Both use the subsession size chosen
        for the mean; ``samples`` always refers to the mean.

    Returns
    -------
    AnalysisReport

    Notes
    -----
    The interval is the subsession (batch-means) interval of Pilot/Ferrari
    (:func:`pilotstats.autocorrelation.subsession_analysis`) on the
    concatenated runs: blocks of ``q`` consecutive samples whose means have lag-1
    autocorrelation within the limit. Run-to-run differences (pyperf processes, JMH forks)
    make adjacent samples correlated, and the scan then picks blocks long enough to absorb
    them. JMH throughput benchmarks use the harmonic mean of times per op, i.e. the reciprocal
    of the mean throughput.

    Complexity: O(n log n) time and O(n) memory per benchmark of n samples (subsession-
    size scan and WPS fit), plus the warm-up detection of
    :func:`~pilotstats.changepoints.stable_phase` when ``detect_warmup``.

    Examples
    --------
    >>> from pilotstats.io import Measurements
    >>> rng = np.random.default_rng(0)
    >>> m = Measurements(rng.normal(2e-3, 2e-5, 200), benchmark="bench")
    >>> report = analyze(m)
    >>> item = report["bench"]
    >>> item.n, item.subsession_size, item.ci_low < 2e-3 < item.ci_high
    (200, 1, True)
    """
    if not isinstance(measurements, Measurements):
        raise InvalidInputError(
            f"measurements must be a pilotstats.io.Measurements, got "
            f"{type(measurements).__name__}; load files with pilotstats.io.load")
    confidence_level = check_confidence_level(confidence_level)
    autocorrelation_limit = check_real(autocorrelation_limit, "autocorrelation_limit",
                                       low=0.0, high=1.0, low_inclusive=False)
    detect_warmup = check_bool(detect_warmup, "detect_warmup")
    wps_analysis = check_bool(wps_analysis, "wps_analysis")
    progress = check_bool(progress, "progress")
    half_width_percent = check_real(half_width_percent, "half_width_percent", low=0.0,
                                    low_inclusive=False)
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
    steps = sum(len(measurements[name].runs) + 1 for name in names)
    with _StepBar(steps if progress else 0, "analyze") as bar:
        items = tuple(
            _analyze_one(name, measurements[name], confidence_level=confidence_level,
                         autocorrelation_limit=autocorrelation_limit,
                         half_width_percent=half_width_percent, detect_warmup=detect_warmup,
                         wps_analysis=wps_analysis, method=method,
                         summary_statistic=summary_statistic,
                         tick=bar.step)
            for name in names
        )
    sources = {str(m.get("source")) for m in measurements.metadata.values() if m.get("source")}
    return AnalysisReport(items, confidence_level, half_width_percent,
                          sources.pop() if len(sources) == 1 else None)


class _StepBar:
    """A tqdm bar over the steps of a long analysis (each run's stable-phase detection, each
    benchmark's intervals), showing the current step; silent without tqdm or steps."""

    def __init__(self, total: int, label: str) -> None:
        self._bar: Any = None
        if total >= 2:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped]
            except ImportError:
                return
            self._bar = tqdm(total=total, desc=label, unit="step", leave=False)

    def step(self, what: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(1)

    def __enter__(self) -> _StepBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()


def _progress(items: list[str], enabled: bool, label: str) -> Iterable[str]:
    if not enabled or len(items) < 2:
        return items
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:
        return items
    return tqdm(items, desc=label, unit="benchmark", leave=False)  # type: ignore[no-any-return]


T = TypeVar("T")


def call_collecting_warnings(function: Callable[..., T], *args: Any, **kwargs: Any
                             ) -> tuple[T, list[str]]:
    """Call ``function`` and return its result with the texts of the warnings it emitted.

    Analyses of many benchmarks report such warnings per benchmark (in ``notes``) instead of
    letting them scroll past.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]
