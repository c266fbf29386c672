"""Analyses of harness measurements: :func:`analyze`, :func:`compare`, :func:`trend`.

They take the :class:`~pilotstats.io.Measurements` returned by :mod:`pilotstats.io` and
combine the pillars: stable-phase warm-up detection, subsession confidence intervals and
required sample sizes, Welch comparisons on subsession statistics, the work-per-second
regression and MDL trend partitioning.

Fleets of series: :func:`detect_many` and :func:`trend_many` run the change-point detector
or the MDL trend analysis on every series of a long table (threads or a Dask cluster), and
:func:`fleet_report` turns the result into FD.io CSIT's trending dashboard (DataFrame, text,
static HTML page); :func:`write_parquet` stores a batch result.
"""

from pilotstats.analysis._analyze import AnalysisReport, BenchmarkAnalysis, analyze
from pilotstats.analysis._compare import BenchmarkComparison, ComparisonReport, compare
from pilotstats.analysis._export import to_otava_csv
from pilotstats.analysis._fleet_report import FleetReport, fleet_report
from pilotstats.analysis._many import detect_many, trend_many, write_parquet
from pilotstats.analysis._trend import BenchmarkTrend, TrendReport, trend

__all__ = [
    "AnalysisReport",
    "BenchmarkAnalysis",
    "BenchmarkComparison",
    "BenchmarkTrend",
    "ComparisonReport",
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
