"""Comparison of two sets of harness measurements: :func:`compare`."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, SupportsIndex, overload

import pilotstats._config as _config
from pilotstats._protocols import select_items
from pilotstats._typing import ComparisonVerdict
from pilotstats._validation import check_bool, check_choice, check_confidence_level, check_real
from pilotstats.analysis._analyze import (
    AnalysisReport,
    BenchmarkAnalysis,
    KeptRuns,
    analyze_runs,
)
from pilotstats.analysis._pairing import pair_benchmarks
from pilotstats.analysis._robust import STATISTICS
from pilotstats.analysis._runs import (
    RUN_LABELS,
    RunChange,
    combine_runs,
    compare_kept,
    compare_run_values,
    units_to_resolve,
)
from pilotstats.autocorrelation._two_level import SUMMARY_STATISTICS
from pilotstats.exceptions import InvalidInputError, PilotStatsError
from pilotstats.io import Measurements
from pilotstats.results import (
    Result,
    decode_float,
    decode_float_fields,
    draw,
    format_number,
    format_quantity,
)

__all__ = ["BenchmarkComparison", "ComparisonReport", "compare"]

@dataclass(frozen=True, slots=True)
class BenchmarkComparison(Result):
    """Comparison of one benchmark between a baseline and new measurements (runs as units).

    The change is the ratio of the two run-level estimates with a Fieller interval whose
    units are the runs (Kalibera & Jones 2013, §5); the verdict comes from that interval.

    Attributes
    ----------
    name, unit, summary_statistic : str
        Benchmark, unit of the time per work, summary statistic compared (see
        :attr:`BenchmarkAnalysis.summary_statistic`; both sides estimate the same quantity).
    base_mean, new_mean : float or None
        Run-level estimates of each side.
    base_n, new_n : int
        Samples analysed per side.
    base_n_subsessions, new_n_subsessions : int or None
        Units of each side entering the interval: its runs, or the blocks of a single run
        when the runs are assumed equivalent.
    difference : float or None
        ``new_mean - base_mean`` (positive: slower).
    ci_low, ci_high : float or None
        Welch interval of the difference on the same units (it excludes 0 exactly when the
        ratio interval excludes 1).
    relative_change, relative_ci_low, relative_ci_high : float or None
        ``ratio - 1`` and the Fieller interval of the ratio minus 1 (fractions; positive:
        slower).
    p_value, dof : float or None
        Two-sided test of ``ratio = 1`` (Welch test on the units) and its degrees of freedom.
    verdict : str
        A :data:`~pilotstats._typing.ComparisonVerdict`: ``"regression"`` (the ratio
        interval lies above 1 and the change is at least ``min_change_percent``),
        ``"progression"`` (below 1, symmetric; the direction labels of
        :data:`~pilotstats._typing.ChangeLabel`), ``"no significant change"``,
        ``"inconclusive"`` (one run, or one file whose runs share a process, on a side: the
        run-to-run variance is unknown) or ``"not analysable"``.
    confidence_level : float
        Level of the intervals; significance means ``p_value < 1 - confidence_level``.
    note : str
        Why a benchmark is inconclusive or not analysable; caveats.
    ratio : float or None
        ``new_mean / base_mean`` (above 1: slower).
    base_n_runs, new_n_runs : int or None
        Runs of each side (processes, repetitions, files).
    base_between_variance, base_within_variance : float or None
        The baseline's variance components (``T_1^2`` of a run mean, ``T_2^2`` per sample;
        see :class:`~pilotstats.autocorrelation.TwoLevelResult`).
    new_between_variance, new_within_variance : float or None
        Each side's variance components (``T_1^2`` of a run mean, ``T_2^2`` per sample; see
        :class:`~pilotstats.autocorrelation.TwoLevelResult`).
    runs_assumed_equivalent : bool
        A side had one run and ``assume_runs_equivalent`` made its blocks the units: the
        interval excludes run-to-run variation.
    interval_units : str or None
        Units of the interval: ``"files"`` (2 files or more on a side: each file's mean
        over its runs; the interval includes the variation between invocations),
        ``"runs"`` (one file per side: its runs), ``"blocks"`` (one run assumed
        equivalent); None without an interval.
    new_name : str or None
        The new benchmark compared with the baseline's ``name`` when its name differs
        (paired by :func:`compare`'s ``pairs`` or ``match``); None for the same name.
    units_needed : int or None
        For a ``"no significant change"`` whose interval is wider than the change to
        resolve (``min_change_percent``, else the larger of the observed change and 1 %):
        about how many runs (files, when ``interval_units == "files"``) per side would
        narrow the interval that far with the measured spread (Kalibera & Jones 2013, §4);
        the note says so. None otherwise.

    Examples
    --------
    One entry of a :class:`ComparisonReport`:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import compare
    >>> rng = np.random.default_rng(3)
    >>> def runs(level):  # 10 processes of 20 samples, each process at its own level
    ...     means = rng.normal(level, 0.01, 10)
    ...     return Measurements(np.concatenate([rng.normal(m, 0.01, 20) for m in means]),
    ...                         run=np.repeat(np.arange(10), 20), benchmark="b")
    >>> report = compare(runs(1.00), runs(1.05))  # 5 % slower
    >>> item = report["b"]
    >>> print(item)  # doctest: +NORMALIZE_WHITESPACE
    b: regression, +4.87 % (95 % CI [+3.57 %, +6.20 %], p = 5.36e-06; 10 vs 10 runs): one
    file per side: variation between invocations (machine load) is not in the interval
    >>> item.verdict, round(100 * item.relative_change, 1)  # relative change as a fraction
    ('regression', 4.9)

    One run per side: the run-to-run variance is unknown, so there is no verdict:

    >>> one = compare(Measurements(rng.normal(1.00, 0.01, 200), benchmark="b"),
    ...               Measurements(rng.normal(1.05, 0.01, 200), benchmark="b"))["b"]
    >>> one.verdict, one.note.split(",")[0]
    ('inconclusive', 'inconclusive: 1 run per side')
    """

    name: str
    unit: str
    summary_statistic: str
    base_mean: float | None
    new_mean: float | None
    base_n: int
    new_n: int
    base_n_subsessions: int | None
    new_n_subsessions: int | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    relative_change: float | None
    relative_ci_low: float | None
    relative_ci_high: float | None
    p_value: float | None
    dof: float | None
    verdict: ComparisonVerdict
    confidence_level: float
    note: str = ""
    ratio: float | None = None
    base_n_runs: int | None = None
    new_n_runs: int | None = None
    base_between_variance: float | None = None
    base_within_variance: float | None = None
    new_between_variance: float | None = None
    new_within_variance: float | None = None
    runs_assumed_equivalent: bool = False
    interval_units: str | None = None
    new_name: str | None = None
    units_needed: int | None = None

    @property
    def label(self) -> str:
        """``name``, or ``"name -> new_name"`` for differently named benchmarks."""
        return self.name if self.new_name is None else f"{self.name} -> {self.new_name}"

    @property
    def runs_text(self) -> str:
        """``"base vs new runs"``, e.g. ``"20 vs 20 runs"``."""
        return f"{self.base_n_runs} vs {self.new_n_runs} runs"

    def __str__(self) -> str:
        if self.verdict == "inconclusive" and self.note.startswith("inconclusive"):
            point = ("" if self.relative_change is None
                     else f"; point change {_percent(self.relative_change)}")
            return f"{self.label}: {self.note}{point}"
        if self.relative_change is None or self.p_value is None:
            return f"{self.label}: {self.verdict} ({self.note})"
        text = (f"{self.label}: {self.verdict}, {_percent(self.relative_change)} "
                f"({format_number(self.confidence_level * 100, 6)} % CI "
                f"[{_percent(self.relative_ci_low)}, {_percent(self.relative_ci_high)}], "
                f"p = {format_number(self.p_value, 3)}; {self.runs_text})")
        return f"{text}: {self.note}" if self.note else text

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BenchmarkComparison:
        """Rebuild from :meth:`to_dict` output (``"inf"``/``"-inf"`` decoded)."""
        return cls(**decode_float_fields(cls, data))


def _percent(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value * 100:+.2f} %"


@dataclass(frozen=True, slots=True)
class ComparisonReport(Result):
    """Per-benchmark comparisons of a baseline with new measurements.

    Benchmarks are matched by name only; runs and samples are never paired.
    :attr:`has_regression` and :attr:`inconclusive` drive the exit status of
    ``pilotstats compare``. Follows the
    :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`BenchmarkComparison` (``report[0]``; ``report["name"]`` selects one by name);
    benchmarks present on one side only are not items (see :attr:`only_in_base`,
    :attr:`only_in_new`).

    Examples
    --------
    Returned by :func:`compare`; ``has_regression`` drives the command line's exit status:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import compare
    >>> rng = np.random.default_rng(3)
    >>> def runs(level):  # 10 processes of 20 samples, each process at its own level
    ...     means = rng.normal(level, 0.01, 10)
    ...     return Measurements(np.concatenate([rng.normal(m, 0.01, 20) for m in means]),
    ...                         run=np.repeat(np.arange(10), 20), benchmark="b")
    >>> report = compare(runs(1.00), runs(1.05))  # 5 % slower
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    benchmark  runs     base      new      change   95 % CI             p         verdict
    ---------  -------  --------  -------  -------  ------------------  --------  ----------
    b          10 / 10  999.5 ms  1.048 s  +4.87 %  [+3.57 %, +6.20 %]  5.36e-06  regression
      b: one file per side: variation between invocations (machine load) is not in the
      interval
    1 significant regression(s), 0 progression(s) (Fieller interval of the ratio new/base
    of means, runs as units, p < 0.05)
    >>> report.has_regression
    True
    """

    comparisons: tuple[BenchmarkComparison, ...]
    only_in_base: tuple[str, ...]
    only_in_new: tuple[str, ...]
    confidence_level: float
    min_change_percent: float

    def __iter__(self) -> Iterator[BenchmarkComparison]:
        return iter(self.comparisons)

    def __len__(self) -> int:
        return len(self.comparisons)

    @overload
    def __getitem__(self, key: str | SupportsIndex) -> BenchmarkComparison: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[BenchmarkComparison, ...]: ...

    def __getitem__(self, key: Any) -> Any:
        """The benchmark ``key`` (a name), or the item(s) at an index or slice."""
        if not isinstance(key, str):
            return select_items(key, len(self.comparisons), self.comparisons.__getitem__,
                                "ComparisonReport")
        for item in self.comparisons:
            if item.name == key:
                return item
        raise KeyError(f"no benchmark named {key!r}")

    @property
    def regressions(self) -> tuple[str, ...]:
        """Names of benchmarks with a significant regression."""
        return tuple(c.name for c in self.comparisons if c.verdict == "regression")

    @property
    def progressions(self) -> tuple[str, ...]:
        """Names of benchmarks with a significant progression (faster)."""
        return tuple(c.name for c in self.comparisons if c.verdict == "progression")

    @property
    def inconclusive(self) -> tuple[str, ...]:
        """Names of benchmarks with one run on a side (no verdict: run-to-run variance
        unknown)."""
        return tuple(c.name for c in self.comparisons if c.verdict == "inconclusive")

    @property
    def has_regression(self) -> bool:
        """True when at least one benchmark regressed significantly."""
        return bool(self.regressions)

    def _extra_dict(self) -> dict[str, Any]:
        return {"has_regression": self.has_regression}

    def __str__(self) -> str:
        from pilotstats.analysis._table import render_table

        header, rows, notes = self._table_parts()
        return "\n".join([render_table(header, rows), *notes])

    def _repr_html_(self) -> str:
        from pilotstats._html import report_html

        header, rows, notes = self._table_parts()
        return report_html(f"Comparison of {len(self)} benchmark(s): baseline vs new",
                           header, rows, (note.strip() for note in notes))

    def to_frame(self, *, one_sided: bool = False) -> Any:
        """One row per compared benchmark (index ``name``), the columns of
        :meth:`BenchmarkComparison.to_dict`.

        Parameters
        ----------
        one_sided : bool, default False
            Also add a row for every benchmark present on one side only, with the verdict
            ``"only in baseline"`` / ``"only in new"`` (then the frame has more rows than
            the report has items).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import compare
        >>> rng = np.random.default_rng(3)
        >>> runs = np.repeat(np.arange(5), 40)  # 5 processes of 40 samples
        >>> base = Measurements(rng.normal(1.00, 0.01, 200), run=runs, benchmark="b")
        >>> new = Measurements(rng.normal(1.05, 0.01, 200), run=runs, benchmark="b")
        >>> row = compare(base, new).to_frame().loc["b"]
        >>> row["verdict"], int(row["base_n_runs"])
        ('regression', 5)
        """
        from pilotstats.analysis._frames import records_frame

        extra: list[Any] = []
        if check_bool(one_sided, "one_sided"):
            extra = [{"name": name, "verdict": "only in baseline"} for name in self.only_in_base]
            extra += [{"name": name, "verdict": "only in new"} for name in self.only_in_new]
        return records_frame([*self.comparisons, *extra], "name")

    def _units(self) -> str:
        kinds = {c.interval_units for c in self.comparisons if c.interval_units}
        return "/".join(sorted(kinds, key=("files", "runs", "blocks").index))

    def _tested(self) -> str:
        kinds = {c.summary_statistic for c in self.comparisons}
        return {frozenset({"run median"}): "run medians", frozenset({"median"}): "medians",
                frozenset({"run min"}): "run minima",
                frozenset({"subsession min"}): "minima"}.get(frozenset(kinds), "means")

    def _table_parts(self) -> tuple[list[str], list[list[str]], list[str]]:
        level = f"{format_number(self.confidence_level * 100, 6)} % CI"
        rows = []
        for c in self.comparisons:
            rows.append([
                c.label,
                f"{c.base_n_runs} / {c.new_n_runs}",
                "-" if c.base_mean is None else format_quantity(c.base_mean, c.unit),
                "-" if c.new_mean is None else format_quantity(c.new_mean, c.unit),
                _percent(c.relative_change),
                "-" if c.relative_ci_low is None else
                f"[{_percent(c.relative_ci_low)}, {_percent(c.relative_ci_high)}]",
                "-" if c.p_value is None else format_number(c.p_value, 3),
                c.verdict,
            ])
        header = ["benchmark", "runs", "base", "new", "change", level, "p", "verdict"]
        lines: list[str] = []
        for c in self.comparisons:
            if c.note:
                lines.append(f"  {c.label}: {c.note}")
        if self.only_in_base:
            lines.append(f"only in the baseline: {', '.join(self.only_in_base)}")
        if self.only_in_new:
            lines.append(f"only in the new results: {', '.join(self.only_in_new)}")
        undecided = (f", {len(self.inconclusive)} inconclusive (1 run or file on a side)"
                     if self.inconclusive else "")
        units = self._units()
        method = (f"Fieller interval of the ratio new/base of {self._tested()}, {units} as "
                  f"units, p < {format_number(1 - self.confidence_level)}"
                  + (f", change >= {format_number(self.min_change_percent)} %"
                     if self.min_change_percent > 0 else "")) if units else \
            "no benchmark had an interval"
        lines.append(f"{len(self.regressions)} significant regression(s), "
                     f"{len(self.progressions)} progression(s){undecided} ({method})")
        return header, rows, lines

    def plot(self, *, benchmark: str | None = None, ax: Any = None) -> Any:
        """Forest plot of the relative changes with their intervals (needs matplotlib).

        See :func:`pilotstats.plotting.plot_comparison`.
        """
        return draw(self, benchmark=benchmark, ax=ax)

    def to_html(self, *, title: str | None = None,
                command_line: str | Sequence[str] | None = None,
                base: Measurements | Sequence[Measurements] | None = None,
                new: Measurements | Sequence[Measurements] | None = None) -> str:
        """A self-contained HTML page of the comparison (needs matplotlib for the plots).

        The verdict table, the run structure (runs, between- and within-run standard
        deviations), one section per benchmark with its plots (each side's samples too when
        ``base`` and ``new`` are given), and the command line and versions; inline CSS and
        SVG only (no script, no network).

        Parameters
        ----------
        title : str, optional
            Page title (default: what the page answers).
        command_line : str or sequence of str, optional
            The command line that made the report, shown on the page.
        base, new : Measurements or sequence of Measurements, optional
            The compared measurements (a list: one per file), as given to
            :func:`compare`: adds each side's samples plot.

        Returns
        -------
        str
            The page; :meth:`write_html` writes it to a file.

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.io import Measurements
        >>> from pilotstats.analysis import compare
        >>> rng = np.random.default_rng(3)
        >>> runs = np.repeat(np.arange(5), 40)  # 5 processes of 40 samples
        >>> base = Measurements(rng.normal(1.00, 0.01, 200), run=runs, benchmark="b")
        >>> new = Measurements(rng.normal(1.05, 0.01, 200), run=runs, benchmark="b")
        >>> page = compare(base, new).to_html(base=base, new=new)
        >>> "1 significant regression(s)" in page, page.count("<svg")
        (True, 3)
        """
        return comparison_page(self, title=title, command_line=command_line,
                               measurements=None if base is None and new is None
                               else (base, new))

    def write_html(self, path: str | os.PathLike[str], *, title: str | None = None,
                   command_line: str | Sequence[str] | None = None,
                   base: Measurements | Sequence[Measurements] | None = None,
                   new: Measurements | Sequence[Measurements] | None = None) -> Path:
        """Write :meth:`to_html` to ``path`` (UTF-8) and return the path.

        Parameters
        ----------
        path : str or path-like
            Destination ``.html`` file.
        title, command_line, base, new
            As for :meth:`to_html`.

        Returns
        -------
        pathlib.Path
        """
        from pilotstats.analysis._html import write_page

        return write_page(self.to_html(title=title, command_line=command_line, base=base,
                                       new=new), path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ComparisonReport:
        """Rebuild from :meth:`to_dict` output (``pilotstats compare --json``)."""
        return cls(
            tuple(BenchmarkComparison.from_dict(c) for c in data["comparisons"]),
            tuple(data["only_in_base"]),
            tuple(data["only_in_new"]),
            float(data["confidence_level"]),
            float(decode_float(data["min_change_percent"])),
        )


def _verdict(change: RunChange, min_change: float) -> ComparisonVerdict:
    """Regression / progression from the ratio interval, at least ``min_change`` percent."""
    if not change.conclusive:
        return "inconclusive"
    if change.ci_low > 1.0 and (change.ratio - 1.0) * 100.0 >= min_change:
        return "regression"
    if change.ci_high < 1.0 and (1.0 - change.ratio) * 100.0 >= min_change:
        return "progression"
    return "no significant change"


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _units_needed(change: RunChange, verdict: ComparisonVerdict, min_change: float,
                  level: float) -> tuple[int | None, str]:
    """Runs (or files) per side that would resolve an undecided change, and the note.

    For a "no significant change" whose interval is wider than the change it should
    resolve, the number of units per side at which the interval would be that narrow with
    the same unit means and variances (:func:`~pilotstats.analysis._runs.units_to_resolve`;
    in runs when drifting runs were batched); the note says so. The change to resolve is
    ``min_change`` percent when given, else the larger of the observed change and
    ``_config.DEFAULT_HALF_WIDTH_PERCENT`` (1 %, the precision :func:`analyze` plans for),
    so that an observed change within the noise does not ask for ever more runs.
    """
    if verdict != "no significant change" or change.unit_moments is None:
        return None, change.note
    target = (min_change / 100.0 if min_change > 0 else
              max(abs(change.ratio - 1.0), _config.DEFAULT_HALF_WIDTH_PERCENT / 100.0))
    half = (change.ci_high - change.ci_low) / 2.0
    if not (target >= 1e-4 and (half > target or not math.isfinite(half))):
        return None, change.note
    units = units_to_resolve(change.unit_moments, target, level)
    if units is None:
        return None, change.note
    units *= change.runs_per_unit
    have = max(change.base_units, change.new_units) * change.runs_per_unit
    if units <= have:
        return None, change.note
    what = "files" if change.by_file else "runs"
    now = f" (now ±{format_number(half * 100.0, 3)} %)" if math.isfinite(half) else ""
    extra = (f"about {units} {what} a side would narrow the interval to "
             f"±{format_number(target * 100.0, 3)} % with this spread{now}")
    return units, "; ".join(part for part in (change.note, extra) if part)


def _compare_one(base: BenchmarkAnalysis, new: BenchmarkAnalysis,
                 runs: tuple[KeptRuns, KeptRuns] | None, *, level: float,
                 limit: float, min_change: float, statistic: str,
                 equivalent: bool) -> BenchmarkComparison:
    common: dict[str, Any] = {
        "name": base.name, "unit": base.unit, "summary_statistic": base.summary_statistic,
        "base_mean": base.mean, "new_mean": new.mean, "base_n": base.n, "new_n": new.n,
        "base_n_subsessions": None, "new_n_subsessions": None, "confidence_level": level,
        "base_n_runs": base.n_runs, "new_n_runs": new.n_runs,
    }
    empty: dict[str, Any] = {
        "difference": None, "ci_low": None, "ci_high": None, "relative_change": None,
        "relative_ci_low": None, "relative_ci_high": None, "p_value": None, "dof": None}
    harmonic = {base.summary_statistic, new.summary_statistic} == {"harmonic mean"}
    same_statistic = base.summary_statistic == new.summary_statistic
    if base.unit != new.unit or (runs is None and not same_statistic):
        return BenchmarkComparison(**common, **empty, verdict="not analysable",
                                   note=f"units or summary statistics differ ({base.unit}/"
                                   f"{base.summary_statistic} vs {new.unit}/"
                                   f"{new.summary_statistic})")
    if "harmonic mean" in (base.summary_statistic, new.summary_statistic) and not harmonic:
        return BenchmarkComparison(**common, **empty, verdict="not analysable",
                                   note="one side is a JMH throughput (harmonic mean), the "
                                   "other is not")
    change: RunChange | str
    if runs is not None and runs[0][0] and runs[1][0]:
        try:
            change = compare_kept(runs[0][0], runs[1][0], harmonic=harmonic,
                                  summary_statistic=statistic, confidence_level=level,
                                  autocorrelation_limit=limit,
                                  assume_runs_equivalent=equivalent, unit=base.unit,
                                  base_files=runs[0][1], new_files=runs[1][1])
        except PilotStatsError as exc:
            change = str(exc)
    elif runs is not None:
        change = "; ".join(f"{side}: {item.status}" for side, item, kept in
                           (("baseline", base, runs[0]), ("new", new, runs[1])) if not kept[0])
    else:
        change = compare_run_values(base, new, confidence_level=level,
                                    assume_runs_equivalent=equivalent)
    if isinstance(change, str):
        return BenchmarkComparison(**common, **empty, verdict="not analysable", note=change)
    common.update({
        "base_n_subsessions": change.base_units, "new_n_subsessions": change.new_units,
        "base_between_variance": change.base_components[0],
        "base_within_variance": change.base_components[1],
        "new_between_variance": change.new_components[0],
        "new_within_variance": change.new_components[1],
        "runs_assumed_equivalent": change.blocks, "interval_units": (
            "files" if change.by_file else "blocks" if change.blocks else "runs"),
        "base_mean": change.base_mean, "new_mean": change.new_mean,
    })
    if runs is not None and statistic != "mean" and not harmonic:
        common["summary_statistic"] = RUN_LABELS[statistic] if min(
            base.n_runs, new.n_runs) >= 2 or not change.blocks else STATISTICS[statistic]
    verdict = _verdict(change, min_change)
    ratio = _finite(change.ratio)
    if not change.conclusive:
        common["interval_units"] = None
        return BenchmarkComparison(
            **common, **{**empty, "relative_change": None if ratio is None else ratio - 1.0},
            ratio=ratio, verdict=verdict, note=change.note)
    difference = (None if change.base_mean is None or change.new_mean is None
                  else change.new_mean - change.base_mean)
    low, high = change.difference_ci or (None, None)
    needed, note = _units_needed(change, verdict, min_change, level)
    return BenchmarkComparison(
        **common, difference=difference, ci_low=_finite(low), ci_high=_finite(high),
        relative_change=None if ratio is None else ratio - 1.0,
        relative_ci_low=_finite(change.ci_low - 1.0),
        relative_ci_high=_finite(change.ci_high - 1.0),
        p_value=_finite(change.p_value), dof=_finite(change.dof), verdict=verdict,
        note=note, ratio=ratio, units_needed=needed,
    )


def compare(
    base: Measurements | AnalysisReport | Sequence[Measurements],
    new: Measurements | AnalysisReport | Sequence[Measurements], *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    min_change_percent: float = 0.0, detect_warmup: bool = True, progress: bool = False,
    summary_statistic: str = "mean", assume_runs_equivalent: bool = False,
    pairs: Mapping[str, str] | Sequence[tuple[str, str] | str] | None = None,
    match: str | re.Pattern[str] | None = None,
) -> ComparisonReport:
    """Compare every benchmark present in both a baseline and new measurements.

    Each side is analysed as in :func:`analyze`; the verdict comes from the Fieller interval
    of the ratio new / base over the runs (see the overview of :mod:`pilotstats.analysis`).
    Complexity: that of :func:`analyze` on both inputs.

    Parameters
    ----------
    base, new : Measurements, sequence of Measurements, or AnalysisReport
        Baseline and new results; a sequence (one per result file) is one side whose files
        keep their own runs. Analyses are reused as they are.
    confidence_level : float in (0, 1), default 0.95
        Level of the intervals; a change is significant when the ratio interval excludes 1.
    autocorrelation_limit : float in (0, 1], default 0.1
        Used when analysing :class:`Measurements`.
    min_change_percent : float, default 0
        Practical-significance floor: smaller relative changes are never flagged.
    detect_warmup : bool, default True
        Stable-phase warm-up detection when analysing :class:`Measurements`.
    progress : bool, default False
        Progress bar while analysing (needs ``tqdm``).
    summary_statistic : {"mean", "median", "min"}, default "mean"
        What each run is summarised by (``"median"``/``"min"``: blocks of one size).
    assume_runs_equivalent : bool, default False
        With one run on a side, use blocks of that run as its units (else "inconclusive").
    pairs : mapping or sequence, optional
        Baseline benchmarks compared with differently named new ones: ``(old, new)``
        pairs, ``"OLD=NEW"`` texts or a mapping ``{old: new}`` (before ``match``).
    match : str or re.Pattern, optional
        Pair the other benchmarks by the name with the expression's first match (its first
        group, if any) removed: ``match=r"f\\d+"`` pairs ``sha256sum f100`` with
        ``sha256sum f130``. Unpaired names are in :attr:`ComparisonReport.only_in_base` /
        :attr:`~ComparisonReport.only_in_new`.

    Returns
    -------
    ComparisonReport
        ``has_regression``: a benchmark is significantly slower by at least ``min_change_percent``.

    Raises
    ------
    InvalidInputError
        Bad inputs or options, an unknown or repeated pair, an invalid ``match``.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> rng = np.random.default_rng(3)
    >>> def job(level, name="b"):  # one CI job's file: one run of 30 samples
    ...     return Measurements(rng.normal(rng.normal(level, 0.01), 0.01, 30), benchmark=name)
    >>> report = compare([job(1.00) for _ in range(4)], [job(1.05) for _ in range(4)])
    >>> report["b"].verdict, report["b"].base_n_runs, report.has_regression
    ('regression', 4, True)
    """
    level = check_confidence_level(confidence_level)
    limit = check_real(autocorrelation_limit, "autocorrelation_limit", low=0.0, high=1.0,
                       low_inclusive=False)
    min_change = check_real(min_change_percent, "min_change_percent", low=0.0)
    detect_warmup = check_bool(detect_warmup, "detect_warmup")
    progress = check_bool(progress, "progress")
    equivalent = check_bool(assume_runs_equivalent, "assume_runs_equivalent")
    statistic = check_choice(summary_statistic, "summary_statistic", SUMMARY_STATISTICS)
    reports, kept = _side_reports(base, new, level, limit, detect_warmup, progress, statistic,
                                  equivalent)
    pairing = pair_benchmarks(reports[0].names, reports[1].names, pairs=pairs, match=match)
    comparisons = _paired_comparisons(reports, kept, pairing.pairs, level, limit, min_change,
                                      statistic, equivalent)
    return ComparisonReport(comparisons, pairing.only_in_base, pairing.only_in_new,
                            level, min_change)


def _paired_comparisons(reports: list[AnalysisReport], kept: list[dict[str, KeptRuns] | None],
                        pairs: Sequence[tuple[str, str]], level: float, limit: float,
                        min_change: float, statistic: str,
                        equivalent: bool) -> tuple[BenchmarkComparison, ...]:
    """One comparison per (baseline, new) name pair, with the kept runs when both have them."""
    base_report, new_report = reports
    comparisons = []
    base_kept, new_kept = kept
    for old, young in pairs:
        runs = (None if base_kept is None or new_kept is None
                else (base_kept.get(old, ([], None)), new_kept.get(young, ([], None))))
        item = _compare_one(base_report[old], new_report[young], runs, level=level,
                            limit=limit, min_change=min_change, statistic=statistic,
                            equivalent=equivalent)
        comparisons.append(item if old == young else replace(item, new_name=young))
    return tuple(comparisons)


def _side_reports(base: Any, new: Any, level: float, limit: float, detect_warmup: bool,
                  progress: bool, statistic: str, equivalent: bool,
                  ) -> tuple[list[AnalysisReport], list[dict[str, KeptRuns] | None]]:
    """Each side's analysis (given, or computed with its kept runs)."""
    reports: list[AnalysisReport] = []
    kept: list[dict[str, KeptRuns] | None] = []
    for side, given in (("base", base), ("new", new)):
        value = combine_runs(given, side)
        if isinstance(value, AnalysisReport):
            reports.append(value)
            kept.append(None)
        elif isinstance(value, Measurements):
            report, side_runs = analyze_runs(
                value, confidence_level=level, autocorrelation_limit=limit,
                half_width_percent=1.0, detect_warmup=detect_warmup, wps_analysis=False,
                method="pilot", benchmarks=None, progress=progress,
                summary_statistic=statistic, assume_runs_equivalent=equivalent,
                run_cost=None)
            reports.append(report)
            kept.append(side_runs)
        else:
            raise InvalidInputError(f"{side} must be Measurements (or a list of them, one per "
                                    f"file) or an AnalysisReport, got {type(value).__name__}")
    return reports, kept


def comparison_page(report: ComparisonReport, *, title: str | None = None,
                    command_line: str | Sequence[str] | None = None,
                    measurements: tuple[Any, Any] | None = None,
                    sides: tuple[str, str] | None = None) -> str:
    """The page of a comparison; ``measurements`` = (base, new) adds the samples plots."""
    from functools import partial

    from pilotstats.analysis._html import page, plot_or_note, table
    from pilotstats.analysis._html_reports import (
        esc,
        notes_list,
        one_measurement,
        samples_plot,
        std_text,
    )
    from pilotstats.analysis._titles import change_title

    base = one_measurement(measurements[0], "base") if measurements else None
    new = one_measurement(measurements[1], "new") if measurements else None
    header, rows, notes = report._table_parts()
    bad = report.has_regression
    summary = (f"{len(report.regressions)} significant regression(s), "
               f"{len(report.progressions)} progression(s), "
               f"{len(report.inconclusive)} inconclusive of {len(report)} compared "
               f"benchmark(s)")
    body = []
    if sides is not None:
        body.append(f"<p>baseline: <code>{esc(sides[0])}</code><br>new: "
                    f"<code>{esc(sides[1])}</code></p>")
    body.append(f'<p class="summary{" bad" if bad else ""}">{esc(summary)}.</p>')
    body.append(table(header, rows, [c.verdict.replace(" ", "-") if c.verdict in (
        "regression", "progression", "inconclusive") else "" for c in report]))
    body.append(notes_list([n.strip() for n in notes]))
    structure = [[c.name, f"{c.base_n_runs} / {c.new_n_runs}", c.interval_units or "-",
                  "-" if c.base_n_subsessions is None
                  else f"{c.base_n_subsessions} / {c.new_n_subsessions}",
                  std_text(c.base_between_variance, c.unit),
                  std_text(c.base_within_variance, c.unit),
                  std_text(c.new_between_variance, c.unit),
                  std_text(c.new_within_variance, c.unit)]
                 for c in report]
    body.append("<h2>Run structure</h2><p>The interval's units are the runs (processes, "
                "repetitions) or, with several files a side, the files; T1 is the standard "
                "deviation of a run mean, T2 that of a sample within a run (Kalibera &amp; "
                "Jones 2013).</p>" + table(
                    ["benchmark", "runs (base / new)", "interval units", "units (base / new)",
                     "base T1", "base T2", "new T1", "new T2"], structure)
                + ("<p>-: not estimated (files as units: each file's mean over its runs is "
                   "one unit; one run on a side; or runs too short).</p>"
                   if any(c.base_between_variance is None for c in report) else ""))
    if len(report) > 1:
        body.append("<h2>All changes</h2>" + plot_or_note(
            report.plot, (8.0, 1.2 + 0.35 * len(report))))
    for item in report:
        name = item.name
        change = plot_or_note(partial(report.plot, benchmark=name), (8.0, 1.9))
        samples = samples_plot(base, name, "baseline") + samples_plot(new, name, "new")
        body.append(f'<h2 class="verdict-{esc(item.verdict.split()[0])}">'
                    f"{esc(change_title(item))}</h2>{change}"
                    + (f'<div class="plots">{samples}</div>' if samples else "")
                    + notes_list([item.note] if item.note else []))
    return page(title or "pilotstats comparison: new vs baseline", body, command_line=command_line)
