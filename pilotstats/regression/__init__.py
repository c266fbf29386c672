"""Regression: work-per-second regression and work planning; queueing models and
calibration by generalised least squares."""

from pilotstats.regression.wps import WpsPrediction, WpsResult, wps

__all__: list[str] = ["WpsPrediction", "WpsResult", "wps"]
