"""Two-level (between-run / within-run) estimation: a mean whose units are the runs.

Benchmark data are hierarchical: processes, forks, repetitions or rounds (*runs*) each
hold a series of iterations. Most of the variance is usually *between* runs (memory
layout, JIT decisions, the machine's state), which no amount of iterations inside one run
averages away. Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013,
§3-4) therefore build the interval of a mean with the runs as its units and estimate the
two variance components to plan how many runs and iterations a target precision needs.

The interval uses the runs' own statistics: with ``R`` runs whose statistics are
``y_1..y_R``, the estimate is their mean ``ȳ`` and the interval ``ȳ -/+ t_{R-1} s_y /
sqrt(R)``. It needs no model of the dependence inside a run (run statistics of
independent runs are independent). Runs made one after the other on a machine whose load
drifts are *not* independent: on the real harness files of ``tests/data/real_harness``
the median lag-1 autocorrelation of consecutive run means is 0.3-0.6 for pyperf processes,
Google Benchmark repetitions and hyperfine timings made on the loaded machine (about 0
for asv's processes). So when the run statistics show serial dependence
(the von Neumann ratio test, one-sided at 5 %, from 8 runs on), consecutive runs are
batched, as the subsession analysis batches samples (``max(4, floor(sqrt(R)))`` batches);
the batches are then the units. The variance components are diagnostics and feed
:func:`required_runs`: the within-run variance of each run mean comes from the subsession
analysis of that run (autocorrelation-aware), and the between-run component is the excess
of the run means' spread over it (Kalibera & Jones eq. (3)-(4), with the subsession
variance of a run mean in place of ``S_2^2 / n``).

:func:`two_level_analysis`, references:

.. [1] T. Kalibera and R. Jones, "Rigorous Benchmarking in Reasonable Time", ISMM
   2013, §3-4.
.. [2] A. Georges, D. Buytaert and L. Eeckhout, "Statistically Rigorous Java
   Performance Evaluation", OOPSLA 2007.

:func:`two_level_analysis`, notes:

Kalibera & Jones (2013) §3: with ``R`` runs of ``n`` iterations, ``S_1^2`` the
variance of the run means and ``S_2^2`` the mean within-run variance,
``T_1^2 = S_1^2 - S_2^2 / n`` estimates the between-run variance and the interval of
the grand mean is ``ȳ -/+ t_{R-1} S_1 / sqrt(R)`` (their eq. (5)). Within-run
autocorrelation makes ``S_2^2 / n`` too small; here each run's ``Var(mean)`` comes
from its subsession analysis (``s2_q / h``), so ``T_1^2`` is not inflated by it.
The interval itself needs no such model: it is exact for normal run statistics and
holds approximately otherwise, provided the runs are independent. Runs made one after
another share the machine's slowly changing state, so from
:data:`MIN_RUNS_FOR_DRIFT_TEST` runs on the run statistics (in the order given, which
should be the order the runs were made) are tested for serial dependence with the von
Neumann ratio (one-sided, 5 %); when it is found, consecutive runs are batched (the
run-level analogue of the subsession analysis) into the fewest-runs batches whose
means show none, at least :data:`MIN_DRIFT_BATCHES` of them, and the batches are the
units (``runs_per_unit``, and the note says so). For independent runs this happens in
5 % of analyses and only costs degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import normal_quantile, two_sided_t
from pilotstats._validation import (
    as_float_array,
    check_autocorrelation_limit,
    check_bool,
    check_choice,
    check_confidence_level,
    check_int,
    check_text,
)
from pilotstats.autocorrelation._blocks import (
    block_moments,
    first_qualifying_size,
    prepare,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from pilotstats.results import ConfidenceInterval, Result, format_interval, format_quantity

__all__ = ["SUMMARY_STATISTICS", "TwoLevelResult", "two_level_analysis"]

#: Statistics a run can be summarised by (the estimand is their mean over runs).
SUMMARY_STATISTICS = ("mean", "median", "min")


@dataclass(frozen=True, slots=True)
class TwoLevelResult(Result):
    """Estimate with an interval whose units are runs, and its two variance components.

    Attributes
    ----------
    mean : float
        Mean over the units of each unit's statistic (``summary_statistic``): the grand
        mean of the run means for ``"mean"``; the mean of the run medians / minima for
        ``"median"`` / ``"min"`` (each a mean over the run's blocks of ``block_size``
        samples, so that every run, and both sides of a comparison, estimate the same
        quantity).
    ci_low, ci_high, half_width : float
        ``mean -/+ t_{k-1}((1+c)/2) s / sqrt(k)`` over the ``k`` units; NaN when there is
        only one unit (the run-to-run variance is unknown, see :attr:`note`).
    confidence_level : float
        Two-sided level ``c``.
    summary_statistic : str
        ``"mean"``, ``"median"`` or ``"min"``.
    units : str
        ``"runs"`` (each run one unit: the interval includes run-to-run variation) or
        ``"blocks"`` (``assume_runs_equivalent``: consecutive blocks of ``block_size``
        samples are the units, and the interval *excludes* run-to-run variation).
    n_runs : int
        Runs in the input.
    n : int
        Samples in all runs.
    n_units : int
        Units behind the interval (``n_runs``, or the number of blocks).
    block_size : int or None
        Samples per block for ``"median"``/``"min"`` and for ``units="blocks"``; None when
        each run is summarised whole (``"mean"`` over runs).
    unit_values : tuple of float
        Each unit's statistic (length ``n_units``).
    run_sizes : tuple of int
        Samples per run.
    run_means : tuple of float
        Each run's mean (the variance components are about these).
    run_variance : float
        ``S_1^2``: sample variance (ddof 1) of the run means; NaN with one run.
    within_variance : float
        ``T_2^2``: the within-run variance per sample, inflated for autocorrelation (the
        mean over runs of ``n_j`` times the subsession variance of run ``j``'s mean), so
        that ``within_variance / n`` is the within-run variance of a run mean of ``n``
        samples. NaN when no run is long enough to estimate it.
    between_variance : float
        ``T_1^2 = max(0, S_1^2 - mean_j Var(run mean j | run))``: the run-to-run variance
        component of a run mean. NaN with one run.
    dof : int
        Degrees of freedom ``k - 1`` of the interval (0 with one unit).
    unit : str or None
        Label of the measured quantity.
    note : str
        Caveats (one run, runs too short for a within-run variance, ...).
    runs_per_unit : int
        Consecutive runs per unit: 1 normally; more when the run statistics drift (serial
        dependence between consecutive runs), and then each unit is the mean of the
        statistics of a batch of about this many consecutive runs (see
        :func:`two_level_analysis`).

    Examples
    --------
    Returned by :func:`two_level_analysis`:

    >>> import numpy as np
    >>> from pilotstats.autocorrelation import two_level_analysis
    >>> rng = np.random.default_rng(1)
    >>> runs = [rng.normal(10 + rng.normal(0, 0.5), 1.0, 200) for _ in range(8)]
    >>> r = two_level_analysis(runs, unit="ms")
    >>> print(r)  # doctest: +NORMALIZE_WHITESPACE
    mean 10.07 ms (95 % CI [9.694, 10.44] ms, 8 runs, n = 1600; between-run sd 0.4402 ms,
    within-run sd 0.9953 ms)
    >>> r.n_units, r.dof
    (8, 7)
    """

    mean: float
    ci_low: float
    ci_high: float
    half_width: float
    confidence_level: float
    summary_statistic: str
    units: str
    n_runs: int
    n: int
    n_units: int
    block_size: int | None
    unit_values: tuple[float, ...]
    run_sizes: tuple[int, ...]
    run_means: tuple[float, ...]
    run_variance: float
    within_variance: float
    between_variance: float
    dof: int
    unit: str | None = None
    note: str = ""
    runs_per_unit: int = 1

    @property
    def standard_error(self) -> float:
        """Standard error of :attr:`mean` over the units (NaN with one unit)."""
        if self.n_units < 2:
            return math.nan
        return float(np.std(self.unit_values, ddof=1)) / math.sqrt(self.n_units)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Interval at ``confidence_level`` (None: the stored level)."""
        level = (self.confidence_level if confidence_level is None
                 else check_confidence_level(confidence_level))
        if self.n_units < 2:
            return ConfidenceInterval(math.nan, math.nan)
        half = two_sided_t(level, self.dof) * self.standard_error
        return ConfidenceInterval(self.mean - half, self.mean + half)

    def __str__(self) -> str:
        what = "mean" if self.summary_statistic == "mean" else f"mean run {self.summary_statistic}"
        units = (f"{self.n_runs} run{'s' if self.n_runs != 1 else ''}" if self.units == "runs"
                 else f"{self.n_units} blocks of {self.block_size} in {self.n_runs} run(s), "
                      "run-to-run variation excluded")
        interval = format_interval(self.ci_low, self.ci_high, self.confidence_level, self.unit,
                                   estimate=self.mean)
        parts = [f"{what} {format_quantity(self.mean, self.unit)} "
                 f"({interval}"
                 f", {units}, n = {self.n}"]
        if math.isfinite(self.between_variance) and math.isfinite(self.within_variance):
            parts.append(
                f"; between-run sd {format_quantity(math.sqrt(self.between_variance), self.unit)}"
                f", within-run sd {format_quantity(math.sqrt(self.within_variance), self.unit)}")
        text = "".join(parts) + ")"
        return f"{text}: {self.note}" if self.note else text


def split_runs(runs: Any, name: str = "runs") -> list[np.ndarray]:
    """Validate runs given as a 2-D array (one row per run) or a sequence of 1-D series.

    Raises
    ------
    InvalidInputError
        Not a sequence of 1-D finite numeric series, or no run at all.
    """
    if isinstance(runs, (str, bytes, dict)) or not hasattr(runs, "__len__"):
        raise InvalidInputError(
            f"{name} must be a 2-D array (one row per run) or a sequence of 1-D series, "
            f"got {type(runs).__name__}")
    if isinstance(runs, np.ndarray):
        if runs.ndim != 2:
            raise InvalidInputError(
                f"{name} as an array must be 2-D (one row per run), got {runs.ndim}-D")
        rows: Sequence[Any] = list(runs)
    else:
        rows = list(runs)
    if not rows:
        raise NotEnoughDataError(f"{name} holds no run; need at least one")
    return [as_float_array(row, f"{name}[{i}]", min_length=1) for i, row in enumerate(rows)]


def _run_mean_variance(values: np.ndarray, limit: float) -> float | None:
    """Within-run variance of a run's mean by its subsession analysis (None: too short)."""
    if values.size < 3:
        return None
    if bool(np.all(values == values[0])):
        return 0.0
    samples = prepare(values, "arithmetic", min_length=1)
    q = first_qualifying_size(samples, limit)
    if q is None:
        return None
    s2, _ = block_moments(samples, q)
    return s2 / (samples.n // q)


def block_statistics(values: np.ndarray, block: int, statistic: str) -> np.ndarray:
    """The statistic of each complete consecutive block of ``block`` samples."""
    blocks = values[: (values.size // block) * block].reshape(-1, block)
    if statistic == "median":
        return np.asarray(np.median(blocks, axis=1), dtype=np.float64)
    if statistic == "min":
        return np.asarray(blocks.min(axis=1), dtype=np.float64)
    return np.asarray(blocks.mean(axis=1), dtype=np.float64)


def variance_components(
    runs: list[np.ndarray], limit: float
) -> tuple[float, float, float, int]:
    """``(S_1^2, T_2^2, T_1^2, runs with a within-run variance)`` of validated runs."""
    means = np.array([float(np.mean(r)) for r in runs])
    run_variance = float(np.var(means, ddof=1)) if means.size >= 2 else math.nan
    within = [(v, r.size) for r in runs
              if (v := _run_mean_variance(r, limit)) is not None]
    if not within:
        return run_variance, math.nan, math.nan, 0
    within_variance = float(np.mean([v * n for v, n in within]))
    mean_of_run_variance = float(np.mean([v for v, _ in within]))
    between = (max(0.0, run_variance - mean_of_run_variance)
               if math.isfinite(run_variance) else math.nan)
    return run_variance, within_variance, between, len(within)


def _units(
    runs: list[np.ndarray], statistic: str, block_size: int | None, equivalent: bool,
    limit: float,
) -> tuple[np.ndarray, str, int | None]:
    """The unit statistics, the kind of units, and the block size used."""
    if equivalent and len(runs) < 2:
        values = runs[0]
        if block_size is None:
            samples = prepare(values, "arithmetic", min_length=1)
            q = first_qualifying_size(samples, limit) if values.size >= 3 else None
            block_size = q if q is not None else max(1, values.size // 2)
        if values.size // block_size < 2:
            raise NotEnoughDataError(
                f"blocks of {block_size} leave {values.size // block_size} block(s) of the "
                f"{values.size} samples; need at least 2 (more samples or a smaller block_size)")
        return block_statistics(values, block_size, statistic), "blocks", block_size
    if statistic == "mean":
        return np.array([float(np.mean(r)) for r in runs]), "runs", None
    shortest = min(r.size for r in runs)
    if block_size is None:
        block_size = shortest
    elif block_size > shortest:
        raise NotEnoughDataError(
            f"block_size={block_size} is longer than the shortest run ({shortest} samples)")
    unit_values = np.array([float(np.mean(block_statistics(r, block_size, statistic)))
                            for r in runs])
    return unit_values, "runs", block_size


#: Fewest runs on which serial dependence between consecutive runs is tested.
MIN_RUNS_FOR_DRIFT_TEST = 8
#: Fewest batches consecutive runs are grouped into when they drift.
MIN_DRIFT_BATCHES = 4
#: One-sided level of the von Neumann ratio test for serial dependence of run statistics.
DRIFT_TEST_LEVEL = 0.05


def von_neumann_z(values: np.ndarray) -> float:
    """Standardised von Neumann ratio of a series (negative: positive serial dependence).

    ``eta = sum (y_{i+1} - y_i)^2 / sum (y_i - ybar)^2`` is 2 in expectation for
    independent values and smaller when consecutive values are alike; under independence
    ``(eta - 2) / sqrt(4 (k - 2) / (k^2 - 1))`` is approximately standard normal (von
    Neumann, Ann. Math. Statist. 12, 1941). 0 for a constant series.
    """
    k = values.size
    centred = values - float(np.mean(values))
    spread = float(centred @ centred)
    if k < 3 or spread <= 0.0:
        return 0.0
    steps = np.diff(values)
    eta = float(steps @ steps) / spread
    return (eta - 2.0) / math.sqrt(4.0 * (k - 2) / (k * k - 1.0))


def _drifts(values: np.ndarray) -> bool:
    """Whether consecutive values are serially dependent (one-sided test at 5 %)."""
    return (values.size >= MIN_RUNS_FOR_DRIFT_TEST
            and von_neumann_z(values) < normal_quantile(DRIFT_TEST_LEVEL))


def drift_batches(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Unit values of runs in time order, batched when consecutive runs drift.

    Returns ``(units, g)``: the values themselves and 1 when they show no serial
    dependence; otherwise the means of ``h = max(MIN_DRIFT_BATCHES, floor(sqrt(k)))``
    consecutive batches of ``g = k // h`` or ``g + 1`` of the ``k`` values
    (``numpy.array_split``, nothing dropped): the square-root rule of batch means, whose
    batches grow with the series so that their means decorrelate (a test on the batch
    means themselves has too little power with a handful of batches to stop earlier).
    """
    if not _drifts(values):
        return values, 1
    h = max(MIN_DRIFT_BATCHES, math.isqrt(values.size))
    batches = np.array([float(np.mean(b)) for b in np.array_split(values, h)])
    return batches, values.size // h


def _unit_values(
    series: list[np.ndarray], statistic: str, block: int | None, equivalent: bool,
    limit: float, notes: list[str],
) -> tuple[np.ndarray, str, int | None, int]:
    """The units of the interval (run statistics, batches of drifting runs, or blocks of a
    single run), their kind, the block size and the runs per unit."""
    unit_values, kind, block = _units(series, statistic, block, equivalent, limit)
    if kind != "runs":
        return unit_values, kind, block, 1
    unit_values, per_unit = _drift_units(unit_values, notes)
    return unit_values, kind, block, per_unit


def _drift_units(unit_values: np.ndarray, notes: list[str]) -> tuple[np.ndarray, int]:
    """Batches of consecutive runs as the units when the runs drift (a note says so)."""
    batched, per_unit = drift_batches(unit_values)
    if per_unit <= 1:
        return unit_values, per_unit
    size = (f"{per_unit}" if unit_values.size % batched.size == 0
            else f"{per_unit}-{per_unit + 1}")
    notes.append(f"consecutive runs drift (von Neumann ratio z = "
                 f"{von_neumann_z(unit_values):.2f}): {batched.size} batches of "
                 f"{size} consecutive runs are the units")
    return batched, per_unit


def _half_width(unit_values: np.ndarray, level: float, notes: list[str]) -> float:
    """``t_{k-1} s / sqrt(k)`` over the ``k`` units; NaN (and a note) for one unit."""
    k = int(unit_values.size)
    if k >= 2:
        return two_sided_t(level, k - 1) * float(np.std(unit_values, ddof=1)) / math.sqrt(k)
    notes.append("one run: the run-to-run variance is unknown, so there is no interval "
                 "(more runs, or assume_runs_equivalent=True)")
    return math.nan


def _coverage_notes(kind: str, estimated: int, n_runs: int, notes: list[str]) -> None:
    """Notes on what the interval leaves out: run-to-run variation, or runs' own variance."""
    if kind == "blocks":
        notes.append("runs assumed equivalent: the interval excludes run-to-run variation")
    if estimated < n_runs:
        notes.append(f"{n_runs - estimated} of {n_runs} runs too short or too "
                     "autocorrelated for a within-run variance")


def two_level_analysis(
    runs: Any,
    *,
    summary_statistic: str = "mean",
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    assume_runs_equivalent: bool = False,
    block_size: int | None = None,
    unit: str | None = None,
) -> TwoLevelResult:
    """Estimate and interval with runs as the units, with between/within variance components.

    Parameters
    ----------
    runs : 2-D array_like or sequence of 1-D array_like
        One series per run (process, fork, repetition, round), in time order, warm-up
        removed; runs may differ in length.
    summary_statistic : {"mean", "median", "min"}, default "mean"
        What summarises a run; ``"median"``/``"min"``: the mean of its ``block_size``-long
        blocks' medians / minima, so the estimand does not depend on the run length.
    confidence_level : float in (0, 1), default 0.95
        Two-sided level of the interval.
    autocorrelation_limit : float in (0, 1], default 0.1
        Limit of the subsession analysis of each run's within-run variance.
    assume_runs_equivalent : bool, default False
        With a single run, an interval of its blocks (excluding run-to-run variation).
    block_size : int, optional
        Samples per block (default: the shortest run, or the subsession size of one run).
    unit : str, optional
        Label of the measured quantity.

    Returns
    -------
    TwoLevelResult

    Raises
    ------
    InvalidInputError
        Runs not a 2-D array / sequence of finite 1-D series; bad options.
    NotEnoughDataError
        No run, or a ``block_size`` that leaves fewer than 2 blocks.

    Notes
    -----
    Kalibera & Jones (2013) §3 (module notes). Complexity O(N log N) for N samples.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(4)
    >>> runs = [rng.normal(5.0 + rng.normal(0, 0.2), 0.3, 100) for _ in range(5)]
    >>> r = two_level_analysis(runs)
    >>> r.n_runs, r.units, round(r.mean, 3)
    (5, 'runs', 5.118)
    >>> two_level_analysis(runs[:1]).note.startswith("one run: the run-to-run variance")
    True
    """
    statistic = check_choice(summary_statistic, "summary_statistic", SUMMARY_STATISTICS)
    level, limit = check_confidence_level(confidence_level), check_autocorrelation_limit(
        autocorrelation_limit)
    equivalent = check_bool(assume_runs_equivalent, "assume_runs_equivalent")
    block = None if block_size is None else check_int(block_size, "block_size", low=1)
    label, series = check_text(unit, "unit", allow_none=True), split_runs(runs)
    notes: list[str] = []
    unit_values, kind, block, per_unit = _unit_values(series, statistic, block, equivalent,
                                                      limit, notes)
    run_variance, within_variance, between, estimated = variance_components(series, limit)
    estimate, k = float(np.mean(unit_values)), int(unit_values.size)
    half = _half_width(unit_values, level, notes)
    _coverage_notes(kind, estimated, len(series), notes)
    return TwoLevelResult(
        mean=estimate, ci_low=estimate - half, ci_high=estimate + half, half_width=half,
        confidence_level=level, summary_statistic=statistic, units=kind,
        n_runs=len(series), n=int(sum(r.size for r in series)), n_units=k,
        block_size=block, unit_values=tuple(float(v) for v in unit_values),
        run_sizes=tuple(int(r.size) for r in series),
        run_means=tuple(float(np.mean(r)) for r in series), run_variance=run_variance,
        within_variance=within_variance, between_variance=between,
        dof=max(k - 1, 0), unit=label, note="; ".join(notes), runs_per_unit=per_unit,
    )
