"""Regression: work-per-second regression; queueing models and
calibration of performance models by generalised least squares."""

from pilotstats.regression._calibration import (
    CalibrationResult,
    DesignDiagnostics,
    Prediction,
    SolverOptions,
    calibrate,
    design_diagnostics,
)
from pilotstats.regression._confidence_region import ConfidenceRegion
from pilotstats.regression._model_comparison import (
    FTestResult,
    NonNestedComparison,
    PolynomialComparison,
    PolynomialModel,
    compare_non_nested,
    compare_polynomials,
    f_test,
    polynomial_model,
)
from pilotstats.regression._network_model import ClosedNetworkModel, ThreadPoolModel
from pilotstats.regression._queueing import (
    MvaResult,
    ThreadPoolResult,
    amva,
    mva,
    open_as_closed,
    seidmann,
    thread_pool,
)
from pilotstats.regression._residual_diagnostics import ResidualDiagnostics
from pilotstats.regression._trial_design import (
    SampleSizeWeights,
    open_system_conditions,
    weights_from_sample_sizes,
)
from pilotstats.regression._utilization_law import UtilizationLawResult, utilization_law_demands
from pilotstats.regression._wps import WpsPrediction, WpsResult, wps

__all__: list[str] = [
    "CalibrationResult",
    "ClosedNetworkModel",
    "ConfidenceRegion",
    "DesignDiagnostics",
    "FTestResult",
    "MvaResult",
    "NonNestedComparison",
    "PolynomialComparison",
    "PolynomialModel",
    "Prediction",
    "ResidualDiagnostics",
    "SampleSizeWeights",
    "SolverOptions",
    "ThreadPoolModel",
    "ThreadPoolResult",
    "UtilizationLawResult",
    "WpsPrediction",
    "WpsResult",
    "amva",
    "calibrate",
    "compare_non_nested",
    "compare_polynomials",
    "design_diagnostics",
    "f_test",
    "mva",
    "open_as_closed",
    "open_system_conditions",
    "polynomial_model",
    "seidmann",
    "thread_pool",
    "utilization_law_demands",
    "weights_from_sample_sizes",
    "wps",
]
