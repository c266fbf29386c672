"""Regression: work-per-second regression and work planning; queueing models and
calibration by generalised least squares."""

__all__: list[str] = []
