"""Change points: E-Divisive with Medians, guarded detection, stable-phase (warm-up/cool-down)
and steady-state detection, and MDL partitioning of trend data with CSIT compliance."""

from pilotstats.changepoints._compliance import trend_compliance
from pilotstats.changepoints._detect import DetectedChangePoints, detect_changes
from pilotstats.changepoints._edm import EdmStream, edm, edm_single
from pilotstats.changepoints._forks import ForkSteadyState, SteadyState, steady_state
from pilotstats.changepoints._mdl import MdlStream, mdl_partition
from pilotstats.changepoints._mdl_results import TrendCompliance, TrendGroup, TrendGroups
from pilotstats.changepoints._results import ChangePoints, Segment, SingleChangePoint
from pilotstats.changepoints._stable import StablePhase, dominant_segment, stable_phase
from pilotstats.changepoints._streams import DetectStream, StablePhaseStream

__all__: list[str] = [
    "ChangePoints",
    "DetectStream",
    "DetectedChangePoints",
    "EdmStream",
    "ForkSteadyState",
    "MdlStream",
    "Segment",
    "SingleChangePoint",
    "StablePhase",
    "StablePhaseStream",
    "SteadyState",
    "TrendCompliance",
    "TrendGroup",
    "TrendGroups",
    "detect_changes",
    "dominant_segment",
    "edm",
    "edm_single",
    "mdl_partition",
    "stable_phase",
    "steady_state",
    "trend_compliance",
]
