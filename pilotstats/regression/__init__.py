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
    PolynomialComparison,
    PolynomialModel,
    compare_polynomials,
    f_test,
    polynomial_model,
)
from pilotstats.regression.network_model import ClosedNetworkModel
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
    "PolynomialComparison",
    "PolynomialModel",
    "Prediction",
    "ThreadPoolResult",
    "amva",
    "calibrate",
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
