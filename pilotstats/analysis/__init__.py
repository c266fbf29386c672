"""Analyses of harness measurements: :func:`analyze`, :func:`compare`, :func:`trend`.

They take the :class:`~pilotstats.io.Measurements` returned by :mod:`pilotstats.io` and
combine the pillars: stable-phase warm-up detection, subsession confidence intervals and
required sample sizes, Welch comparisons on subsession statistics, the work-per-second
regression and MDL trend partitioning.

Fleets of series: :func:`detect_many` and :func:`trend_many` run the change-point detector
or the MDL trend analysis on every series of a long table (threads or a Dask cluster), and
:func:`fleet_report` turns the result into FD.io CSIT's trending dashboard (DataFrame, text,
static HTML page); :func:`write_parquet` stores a batch result.

**Inputs of the fleet functions.** ``table`` is a long table with one row per measurement:
a pandas DataFrame, any Arrow-compatible table (pyarrow, polars, or an object with
``__arrow_c_stream__`` or ``__dataframe__``), a Dask DataFrame partitioned by series, or a
dict of columns. Also a dict ``{series name: 1-D values in order}`` (then ``by``, ``order``
and ``value`` are left out), an asv results folder read whole (see
:func:`pilotstats.io.load_asv_history`; defaults ``by=["machine", "env", "benchmark"]``,
``order="date"``, ``value="value"``) or a ``.csv``/``.parquet`` file holding a long table.
``order`` is a stable sort (ties keep the table's order); without it, the row order.
``engine="threads"`` runs a thread pool in this process (the numba kernels release the GIL;
``workers`` defaults to the cores available to this process); ``engine="dask"`` runs
batches of series on a ``dask.distributed`` cluster (``pip install "pilotstats[dask]"``;
``workers`` defaults to the cluster's threads), a Dask DataFrame partition by partition
where it lies. With ``higher_is_better=True`` (throughput, CSIT) a lower level after a
change is a ``"regression"``.

**Columns of** :func:`detect_many`: one row per series, sorted by series key (dict inputs:
in the dict's order): ``series``, ``n``, ``n_changes``, ``locations`` (tuple of int, the
first sample of each new segment), ``p_values`` (tuple of float), ``segment_means``
(tuple), ``last_trend`` (mean of the last segment), ``last_change`` (location of the last
change), ``last_classification`` (``"normal"``, ``"regression"`` or ``"progression"``: the
last segment against the one before), ``short_term_change_percent``,
``long_term_change_percent``, ``regressions`` and ``progressions`` (counts over all change
points), ``new_regression`` (the last segment is a regression) and ``error`` (None, or the
exception of a series that failed; its other columns are then missing). The per-sample
trend is the mean of the segment holding each sample; with ``last`` its newest sample and
``n = last + 1``, the short-term change is trend[last] against trend[n − min(n, S)] and the
long-term change is trend[last] against the best trend of samples
``n − min(n, L) .. n − 1 − S`` (FD.io CSIT trending dashboard; see
:func:`~pilotstats.changepoints.trend_compliance`), both in percent.

**Columns of** :func:`trend_many`: ``series``, ``n`` (runs), ``n_groups``, ``boundaries``
(tuple of int), ``classifications`` and ``group_means`` (one per group), ``last_trend``,
``runs_in_last_trend``, ``last_classification``, ``reference``,
``short_term_change_percent``, ``long_term_change_percent`` (CSIT's trend change),
``regressions`` and ``progressions`` (groups starting in the last ``short_window`` runs,
CSIT's recent anomalies), ``new_regression`` (``regressions > 0``), ``total_bits`` and
``error``; the compliance metrics are CSIT's trending-dashboard columns
(``docs/algorithms/mdl.md``).

**The method of** :func:`analyze`. Per benchmark it removes the harness's warm-ups and
detects each run's stable phase (warm-up and cool-down); the forks of a JMH or pyperf
benchmark (two or more runs of at least 1,000 iterations each) are judged together by
:func:`~pilotstats.changepoints.steady_state`, each keeps ``x[mean_start:]``, and a fork
without a steady state is kept whole with a note. With two runs or more (processes, forks,
repetitions, files) the runs are the units (two levels, Kalibera & Jones 2013):
:func:`~pilotstats.autocorrelation.two_level_analysis` gives the interval
``ȳ -/+ t_{R-1} s / sqrt(R)`` over the ``R`` run statistics (their eq. (5)), which includes
the run-to-run variation, with the between- and within-run variance components, and
:func:`~pilotstats.autocorrelation.required_runs` the plan of runs x samples per run for
±``half_width_percent`` (their §4; with ``run_cost`` it also chooses the samples per run).
With one run, the subsession (batch-means) interval of Pilot/Ferrari
(:func:`~pilotstats.autocorrelation.subsession_analysis`: blocks of ``q`` consecutive
samples whose means have lag-1 autocorrelation within the limit) cannot include the
run-to-run variation (the result says so), and the plan is the samples needed. JMH
throughput benchmarks use the harmonic mean of times per op, i.e. the reciprocal of the
mean throughput (with several runs: of the mean over runs of each run's mean throughput).

``summary_statistic``: with several runs, ``"median"`` / ``"min"`` estimate the mean over
runs of each run's median / minimum, every run summarised in blocks of one size (the
shortest run), with a t interval over the runs. With one run, ``"median"`` is the samples'
median with an order-statistic interval on the subsession medians, ``"min"`` the mean of
the subsession minima with a t interval (both on the subsession size chosen for the mean;
``samples`` always refers to the mean).

**The method of** :func:`compare`. Benchmarks are matched by name (or as ``pairs`` and
``match`` say); runs and samples are never paired, and unequal run counts and lengths are
fine. The change is the ratio of the two run-level estimates, new / base, with a Fieller
interval whose units are the runs (Kalibera & Jones 2013, §5; Welch–Satterthwaite degrees
of freedom), computed by :func:`~pilotstats.autocorrelation.compare_runs`: every ratio
``ρ`` with ``|ȳ - ρ x̄| / sqrt(v_y + ρ² v_x) <= t_ν(ρ)`` (Fieller 1954). It excludes 1
exactly when the Welch test of the run statistics has ``p < 1 - confidence_level``, so a
verdict never contradicts its p-value, and a slowdown (ratio interval above 1) can never be
reported as a ``"progression"``. With a single run the between-run variance, usually the largest
part of the variance of a mean (Kalibera & Jones 2013; Georges et al. 2007), cannot be
estimated, hence ``"inconclusive"`` (unless ``assume_runs_equivalent``: the note then says
the interval excludes run-to-run variation). ``summary_statistic="median"`` / ``"min"``
compare the mean over runs of each run's median / minimum, every run of both sides in
blocks of one size (the shortest run), so that both sides estimate the same quantity;
reused analyses need equal block sizes. JMH throughput benchmarks compare the mean
throughputs and report the time ratio (their reciprocal). A ``pairs`` text ``"OLD=NEW"`` is
split at the ``=`` that leaves an existing baseline and an existing new name; a ``match``
giving two benchmarks of a side the same key is an error.
"""

from pilotstats.analysis._analyze import AnalysisReport, BenchmarkAnalysis, analyze
from pilotstats.analysis._compare import BenchmarkComparison, ComparisonReport, compare
from pilotstats.analysis._export import to_otava_csv
from pilotstats.analysis._fleet_report import FleetExecution, FleetReport, fleet_report
from pilotstats.analysis._many import detect_many, trend_many, write_parquet
from pilotstats.analysis._trend import BenchmarkTrend, TrendReport, trend

__all__ = [
    "AnalysisReport",
    "BenchmarkAnalysis",
    "BenchmarkComparison",
    "BenchmarkTrend",
    "ComparisonReport",
    "FleetExecution",
    "FleetReport",
    "TrendReport",
    "analyze",
    "compare",
    "detect_many",
    "fleet_report",
    "to_otava_csv",
    "trend",
    "trend_many",
    "write_parquet",
]
