"""Change points: E-Divisive with Medians, stable-phase (warm-up/cool-down) detection and
MDL partitioning of trend data."""

from pilotstats.changepoints.compliance import TrendCompliance, trend_compliance
from pilotstats.changepoints.mdl import MdlStream, TrendGroup, TrendGroups, mdl_partition

__all__: list[str] = []

__all__ += [
    "MdlStream",
    "TrendCompliance",
    "TrendGroup",
    "TrendGroups",
    "mdl_partition",
    "trend_compliance",
]
