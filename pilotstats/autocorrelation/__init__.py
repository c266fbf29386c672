"""Subsession (block-mean) analysis: confidence intervals of means from autocorrelated
samples, required sample sizes, proportions and Welch comparisons.

Documentation ``docs/algorithms/subsession.md`` (reproducing Pilot, ``ascar-io/pilot-bench``).
"""

from pilotstats.autocorrelation._blocks import lag1_autocorrelation, optimal_subsession_size
from pilotstats.autocorrelation._comparison import (
    ComparisonSampleSizeResult,
    WelchResult,
    compare_subsession_means,
    required_sample_size_for_comparison,
    welch_degrees_of_freedom,
    welch_test,
)
from pilotstats.autocorrelation._proportion import (
    ProportionResult,
    proportion_interval,
    wilson_interval,
)
from pilotstats.autocorrelation._run_comparison import RunComparison, compare_runs
from pilotstats.autocorrelation._sample_size import SampleSizeResult, required_sample_size
from pilotstats.autocorrelation._subsession import SubsessionResult, subsession_analysis
from pilotstats.autocorrelation._two_level import TwoLevelResult, two_level_analysis
from pilotstats.autocorrelation._two_level_plan import TwoLevelPlan, required_runs

__all__ = [
    "ComparisonSampleSizeResult",
    "ProportionResult",
    "RunComparison",
    "SampleSizeResult",
    "SubsessionResult",
    "TwoLevelPlan",
    "TwoLevelResult",
    "WelchResult",
    "compare_runs",
    "compare_subsession_means",
    "lag1_autocorrelation",
    "optimal_subsession_size",
    "proportion_interval",
    "required_runs",
    "required_sample_size",
    "required_sample_size_for_comparison",
    "subsession_analysis",
    "two_level_analysis",
    "welch_degrees_of_freedom",
    "welch_test",
    "wilson_interval",
]
