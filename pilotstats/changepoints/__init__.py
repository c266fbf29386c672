"""Change points: E-Divisive with Medians, stable-phase (warm-up/cool-down) detection and
MDL partitioning of trend data."""

from pilotstats.changepoints._edm import EdmStream, edm, edm_single
from pilotstats.changepoints._results import ChangePoints, Segment, SingleChangePoint
from pilotstats.changepoints.compliance import TrendCompliance, trend_compliance
from pilotstats.changepoints.mdl import MdlStream, TrendGroup, TrendGroups, mdl_partition

__all__: list[str] = [
    "ChangePoints",
    "EdmStream",
    "MdlStream",
    "Segment",
    "SingleChangePoint",
    "TrendCompliance",
    "TrendGroup",
    "TrendGroups",
    "edm",
    "edm_single",
    "mdl_partition",
    "trend_compliance",
]

# Guarded detection and stable phase (branch ``detect``); their streams (issue 26).
from pilotstats.changepoints._streams import DetectStream, StablePhaseStream
from pilotstats.changepoints.detect import DetectedChangePoints, detect_changes
from pilotstats.changepoints.forks import ForkSteadyState, SteadyState, steady_state
from pilotstats.changepoints.stable import (
    StablePhase,
    dominant_segment,
    stable_phase,
)

__all__ += [
    "DetectStream",
    "DetectedChangePoints",
    "ForkSteadyState",
    "StablePhase",
    "StablePhaseStream",
    "SteadyState",
    "detect_changes",
    "dominant_segment",
    "stable_phase",
    "steady_state",
]
