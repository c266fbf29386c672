"""Change points: E-Divisive with Medians, stable-phase (warm-up/cool-down) detection and
MDL partitioning of trend data."""

__all__: list[str] = []

from pilotstats.changepoints.mdl import MdlStream, TrendGroup, TrendGroups, mdl_partition

__all__ += ["MdlStream", "TrendGroup", "TrendGroups", "mdl_partition"]

from pilotstats.changepoints.compliance import TrendCompliance, trend_compliance

__all__ += ["TrendCompliance", "trend_compliance"]
