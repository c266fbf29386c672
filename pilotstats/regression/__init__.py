"""Regression: work-per-second regression and work planning; queueing models and
calibration by generalised least squares."""

from pilotstats.regression._demo import demo_wps
from pilotstats.regression.planner import WorkPlanner, work_amount_sequence
from pilotstats.regression.wps import WpsPrediction, WpsResult, wps

__all__: list[str] = [
    "WorkPlanner",
    "WpsPrediction",
    "WpsResult",
    "demo_wps",
    "work_amount_sequence",
    "wps",
]
