"""Comparison of two sets of harness measurements: :func:`compare`."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, SupportsIndex, overload

from pilotstats import _config
from pilotstats._protocols import select_items
from pilotstats._validation import check_bool, check_confidence_level, check_real
from pilotstats.analysis._analyze import AnalysisReport, BenchmarkAnalysis, analyze
from pilotstats.autocorrelation import welch_test
from pilotstats.exceptions import InvalidInputError, PilotStatsError
from pilotstats.io import Measurements
from pilotstats.results import (
    Result,
    decode_float,
    decode_float_fields,
    format_number,
    format_quantity,
)

__all__ = ["BenchmarkComparison", "ComparisonReport", "compare"]

VERDICTS = ("regression", "improvement", "no significant change", "not analysable")


@dataclass(frozen=True, slots=True)
class BenchmarkComparison(Result):
    """Welch comparison of one benchmark between a baseline and a new measurement.

    Attributes
    ----------
    name, unit, summary_statistic : str
        Benchmark, unit of the time per work, summary statistic compared (see
        :attr:`BenchmarkAnalysis.summary_statistic`).
    base_mean, new_mean : float or None
        Estimates of each side.
    base_n, new_n : int
        Samples analysed per side.
    base_n_subsessions, new_n_subsessions : int or None
        Subsession counts ``h`` entering the test (the test's sample sizes).
    difference : float or None
        ``new_mean - base_mean`` (positive: slower).
    ci_low, ci_high : float or None
        Welch interval of the difference at ``confidence_level``.
    relative_change, relative_ci_low, relative_ci_high : float or None
        Difference and interval divided by ``base_mean`` (the baseline's own uncertainty
        is in the interval of the difference, not in this scaling).
    p_value, dof : float or None
        Two-sided Welch p-value and Welch–Satterthwaite degrees of freedom.
    verdict : str
        ``"regression"`` (significantly slower and by at least ``min_change_percent``),
        ``"improvement"``, ``"no significant change"`` or ``"not analysable"``.
    confidence_level : float
        Level of the interval; significance means ``p_value < 1 - confidence_level``.
    note : str
        Why a benchmark is not analysable.

    Examples
    --------
    One entry of a :class:`ComparisonReport`:

    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> from pilotstats.analysis import compare
    >>> rng = np.random.default_rng(3)
    >>> base = Measurements(rng.normal(1.00, 0.01, 200), benchmark="b")
    >>> new = Measurements(rng.normal(1.05, 0.01, 200), benchmark="b")  # 5 % slower
    >>> report = compare(base, new)
    >>> item = report["b"]
    >>> print(item)
    b: regression, +4.97 % (95 % CI [+4.77 %, +5.17 %], Welch p = 4.31e-171)
    >>> item.verdict, round(100 * item.relative_change, 1)  # relative change as a fraction
    ('regression', 5.0)
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
    verdict: str
    confidence_level: float
    note: str = ""

    def __str__(self) -> str:
        if self.relative_change is None:
            return f"{self.name}: {self.verdict} ({self.note})"
        return (f"{self.name}: {self.verdict}, {_percent(self.relative_change)} "
                f"({format_number(self.confidence_level * 100, 6)} % CI "
                f"[{_percent(self.relative_ci_low)}, {_percent(self.relative_ci_high)}], "
                f"Welch p = {format_number(self.p_value, 3)})")

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

    Benchmarks are matched by name only; samples are never paired. :attr:`has_regression`
    drives the exit status of ``pilotstats compare``. Follows the
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
    >>> base = Measurements(rng.normal(1.00, 0.01, 200), benchmark="b")
    >>> new = Measurements(rng.normal(1.05, 0.01, 200), benchmark="b")  # 5 % slower
    >>> report = compare(base, new)
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    benchmark  base  new     change   95 % CI             Welch p    verdict
    ---------  ----  ------  -------  ------------------  ---------  ----------
    b          1 s   1.05 s  +4.97 %  [+4.77 %, +5.17 %]  4.31e-171  regression
    1 significant regression(s), 0 improvement(s) (two-sided Welch test on subsession
    means, p < 0.05)
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
    def improvements(self) -> tuple[str, ...]:
        """Names of benchmarks with a significant improvement."""
        return tuple(c.name for c in self.comparisons if c.verdict == "improvement")

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
        from pilotstats.analysis._frames import report_html

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
        >>> base = Measurements(rng.normal(1.00, 0.01, 200), benchmark="b")
        >>> new = Measurements(rng.normal(1.05, 0.01, 200), benchmark="b")
        >>> compare(base, new).to_frame().loc["b", "verdict"]
        'regression'
        """
        from pilotstats.analysis._frames import records_frame

        extra: list[Any] = []
        if check_bool(one_sided, "one_sided"):
            extra = [{"name": name, "verdict": "only in baseline"} for name in self.only_in_base]
            extra += [{"name": name, "verdict": "only in new"} for name in self.only_in_new]
        return records_frame([*self.comparisons, *extra], "name")

    def _tested(self) -> str:
        kinds = {c.summary_statistic for c in self.comparisons}
        return {frozenset({"median"}): "medians",
                frozenset({"subsession min"}): "minima"}.get(frozenset(kinds), "means")

    def _table_parts(self) -> tuple[list[str], list[list[str]], list[str]]:
        level = f"{format_number(self.confidence_level * 100, 6)} % CI"
        rows = []
        for c in self.comparisons:
            rows.append([
                c.name,
                "-" if c.base_mean is None else format_quantity(c.base_mean, c.unit),
                "-" if c.new_mean is None else format_quantity(c.new_mean, c.unit),
                _percent(c.relative_change),
                "-" if c.relative_ci_low is None else
                f"[{_percent(c.relative_ci_low)}, {_percent(c.relative_ci_high)}]",
                "-" if c.p_value is None else format_number(c.p_value, 3),
                c.verdict,
            ])
        header = ["benchmark", "base", "new", "change", level, "Welch p", "verdict"]
        lines: list[str] = []
        for c in self.comparisons:
            if c.note:
                lines.append(f"  {c.name}: {c.note}")
        if self.only_in_base:
            lines.append(f"only in the baseline: {', '.join(self.only_in_base)}")
        if self.only_in_new:
            lines.append(f"only in the new results: {', '.join(self.only_in_new)}")
        lines.append(f"{len(self.regressions)} significant regression(s), "
                     f"{len(self.improvements)} improvement(s) (two-sided Welch test on "
                     f"subsession {self._tested()}, p < "
                     f"{format_number(1 - self.confidence_level)}"
                     + (f", change >= {format_number(self.min_change_percent)} %"
                        if self.min_change_percent > 0 else "") + ")")
        return header, rows, lines

    def plot(self, *, ax: Any = None) -> Any:
        """Forest plot of the relative changes with their intervals (needs matplotlib).

        See :func:`pilotstats.analysis.plot_comparison`.
        """
        from pilotstats.analysis._plot import plot_comparison

        return plot_comparison(self, ax=ax)

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


def _compare_one(base: BenchmarkAnalysis, new: BenchmarkAnalysis, level: float,
                 min_change: float) -> BenchmarkComparison:
    common: dict[str, Any] = {
        "name": base.name, "unit": base.unit, "summary_statistic": base.summary_statistic,
        "base_mean": base.mean, "new_mean": new.mean, "base_n": base.n, "new_n": new.n,
        "base_n_subsessions": base.n_subsessions, "new_n_subsessions": new.n_subsessions,
        "confidence_level": level,
    }
    empty: dict[str, Any] = {
        "difference": None, "ci_low": None, "ci_high": None, "relative_change": None,
        "relative_ci_low": None, "relative_ci_high": None, "p_value": None, "dof": None}
    if base.unit != new.unit or base.summary_statistic != new.summary_statistic:
        return BenchmarkComparison(**common, **empty, verdict="not analysable",
                                   note=f"units or summary statistics differ ({base.unit}/"
                                   f"{base.summary_statistic} vs {new.unit}/"
                                   f"{new.summary_statistic})")
    for side, item in (("baseline", base), ("new", new)):
        if item.mean is None or item.subsession_variance is None or not item.n_subsessions:
            return BenchmarkComparison(**common, **empty, verdict="not analysable",
                                       note=f"{side}: {item.status}; "
                                       + "; ".join(item.notes[-1:]))
    base_mean = float(base.mean or 0.0)  # not None: checked in the loop above
    try:
        test = welch_test(float(new.mean or 0.0), float(new.subsession_variance or 0.0),
                          int(new.n_subsessions or 0), base_mean,
                          float(base.subsession_variance or 0.0), int(base.n_subsessions or 0),
                          confidence_level=level)
    except PilotStatsError as exc:
        return BenchmarkComparison(**common, **empty, verdict="not analysable", note=str(exc))
    scale = abs(base_mean)
    relative = test.difference / scale if scale > 0 else math.nan
    significant = test.p_value < 1.0 - level and abs(relative) * 100.0 >= min_change
    if significant:
        verdict = "regression" if test.difference > 0 else "improvement"
    else:
        verdict = "no significant change"

    def finite(value: float) -> float | None:
        return value if math.isfinite(value) else None

    return BenchmarkComparison(
        **common, difference=test.difference, ci_low=finite(test.ci_low),
        ci_high=finite(test.ci_high), relative_change=finite(relative),
        relative_ci_low=finite(test.ci_low / scale) if scale > 0 else None,
        relative_ci_high=finite(test.ci_high / scale) if scale > 0 else None,
        p_value=test.p_value, dof=finite(test.dof), verdict=verdict,
    )


def compare(
    base: Measurements | AnalysisReport,
    new: Measurements | AnalysisReport,
    *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    min_change_percent: float = 0.0,
    detect_warmup: bool = True,
    progress: bool = False,
    summary_statistic: str = "mean",
) -> ComparisonReport:
    """Compare every benchmark present in both a baseline and new measurements.

    Each side is analysed as in :func:`analyze` (warm-up removal, subsession means); the
    difference of the means gets a two-sided Welch test on the subsession statistics
    ``(mean, s2_q, h)`` of each side. Benchmarks are matched by name; runs and samples are
    never paired, and unequal sample sizes are fine.

    Parameters
    ----------
    base, new : Measurements or AnalysisReport
        Baseline and new results (already computed analyses are reused as they are).
    confidence_level : float in (0, 1), default 0.95
        Level of the intervals; a change is significant when ``p < 1 - confidence_level``.
    autocorrelation_limit : float in (0, 1], default 0.1
        Used when analysing :class:`Measurements`.
    min_change_percent : float, default 0
        Practical-significance floor: smaller relative changes are never flagged.
    detect_warmup : bool, default True
        Stable-phase warm-up detection when analysing :class:`Measurements`.
    progress : bool, default False
        Progress bar while analysing (needs ``tqdm``).
    summary_statistic : {"mean", "median", "min"}, default "mean"
        Headline statistic when analysing :class:`Measurements` (see :func:`analyze`); the
        Welch test then runs on the subsession medians or minima.

    Returns
    -------
    ComparisonReport
        ``has_regression`` is True when some benchmark is significantly slower (higher time
        per unit of work) by at least ``min_change_percent``.

    Notes
    -----
    Welch test and degrees of freedom: ``docs/algorithms/subsession.md`` (Pilot
    ``lib/libpilot.cc``); subsession statistics instead of raw samples keep the test honest for
    autocorrelated samples, whose raw mean, variance and count would overstate the evidence.

    Complexity: That of :func:`analyze` on both inputs (O(n log n) per benchmark), plus
    O(B) for B benchmarks.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.io import Measurements
    >>> rng = np.random.default_rng(3)
    >>> old = Measurements(rng.normal(1.00, 0.01, 200), benchmark="b")
    >>> slow = Measurements(rng.normal(1.05, 0.01, 200), benchmark="b")
    >>> report = compare(old, slow)
    >>> report["b"].verdict, report.has_regression
    ('regression', True)
    """
    level = check_confidence_level(confidence_level)
    min_change = check_real(min_change_percent, "min_change_percent", low=0.0)
    detect_warmup = check_bool(detect_warmup, "detect_warmup")
    progress = check_bool(progress, "progress")
    reports = []
    for side, value in (("base", base), ("new", new)):
        if isinstance(value, AnalysisReport):
            reports.append(value)
        elif isinstance(value, Measurements):
            reports.append(analyze(value, confidence_level=level,
                                   autocorrelation_limit=autocorrelation_limit,
                                   detect_warmup=detect_warmup, wps_analysis=False,
                                   progress=progress,
                                   summary_statistic=summary_statistic))
        else:
            raise InvalidInputError(f"{side} must be Measurements or AnalysisReport, got "
                                    f"{type(value).__name__}")
    base_report, new_report = reports
    new_names = set(new_report.names)
    base_names = set(base_report.names)
    comparisons = tuple(_compare_one(b, new_report[b.name], level, min_change)
                        for b in base_report if b.name in new_names)
    return ComparisonReport(
        comparisons,
        tuple(n for n in base_report.names if n not in new_names),
        tuple(n for n in new_report.names if n not in base_names),
        level, min_change,
    )

