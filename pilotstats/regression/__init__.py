"""Regression: work-per-second regression and work planning; queueing models and
calibration by generalised least squares."""

__all__: list[str] = []

# --- calibration of performance models (issue 6) ---
from pilotstats.regression._demo_calibration import demo_calibration
from pilotstats.regression.calibration import (
    CalibrationResult,
    DesignDiagnostics,
    Prediction,
    calibrate,
    design_diagnostics,
)
from pilotstats.regression.model_comparison import (
    FTestResult,
    NonNestedComparison,
    PolynomialComparison,
    PolynomialModel,
    compare_non_nested,
    compare_polynomials,
    f_test,
    polynomial_model,
)
from pilotstats.regression.network_model import ClosedNetworkModel, ThreadPoolModel
from pilotstats.regression.queueing import (
    MvaResult,
    ThreadPoolResult,
    amva,
    mva,
    open_as_closed,
    seidmann,
    thread_pool,
)

__all__ += [
    "CalibrationResult",
    "ClosedNetworkModel",
    "DesignDiagnostics",
    "FTestResult",
    "MvaResult",
    "NonNestedComparison",
    "PolynomialComparison",
    "PolynomialModel",
    "Prediction",
    "ThreadPoolModel",
    "ThreadPoolResult",
    "amva",
    "calibrate",
    "compare_non_nested",
    "compare_polynomials",
    "demo_calibration",
    "design_diagnostics",
    "f_test",
    "mva",
    "open_as_closed",
    "polynomial_model",
    "seidmann",
    "thread_pool",
]
