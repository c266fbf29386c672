"""Change points: E-Divisive with Medians, stable-phase (warm-up/cool-down) detection and
MDL partitioning of trend data."""

from pilotstats.changepoints._edm import EdmStream, edm, edm_single
from pilotstats.changepoints._results import ChangePoints, Segment, SingleChangePoint

__all__: list[str] = [
    "ChangePoints",
    "EdmStream",
    "Segment",
    "SingleChangePoint",
    "edm",
    "edm_single",
]

# Guarded detection and stable phase (branch ``detect``).
from pilotstats.changepoints.detect import DetectedChangePoints, detect_changes
from pilotstats.changepoints.stable import (
    StablePhase,
    dominant_segment,
    stable_phase,
)

__all__ += [
    "DetectedChangePoints",
    "StablePhase",
    "detect_changes",
    "dominant_segment",
    "stable_phase",
]
