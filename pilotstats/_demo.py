"""The main demonstration printed by ``python -m pilotstats demo``.

Each section analyses an embedded sample and returns readable text; sections are added as
pillars land.
"""

from __future__ import annotations

from collections.abc import Callable

from pilotstats.autocorrelation import (
    lag1_autocorrelation,
    required_sample_size,
    subsession_analysis,
)
from pilotstats.datasets import ferrari_response_times

__all__ = ["demo_autocorrelation", "run_demo"]


def demo_autocorrelation() -> str:
    """Subsession analysis of Ferrari's 48 response times, with the required sample size."""
    x = ferrari_response_times()
    naive = subsession_analysis(x, subsession_size=1, unit="s")
    result = subsession_analysis(x, unit="s")
    needed = required_sample_size(x, half_width_percent=5)
    needed_2 = required_sample_size(x, half_width_percent=2)
    lines = [
        "Autocorrelation: 48 response times (Ferrari 1978, p. 79)",
        f"  lag-1 autocorrelation of raw samples: {lag1_autocorrelation(x):.3f} "
        "(samples are not independent)",
        f"  naive i.i.d. interval (q = 1):  {naive}",
        f"  subsession analysis:            {result}",
        f"    lag-1 autocorrelation of subsession means: {result.autocorrelation:.3f}",
        f"  for a CI of +/-5 % of the mean: {needed}",
        f"  for a CI of +/-2 % of the mean: {needed_2}",
    ]
    return "\n".join(lines)


def _sections() -> list[Callable[[], str]]:
    from pilotstats.changepoints._demo import demo_stable_phase
    from pilotstats.changepoints._demo_edm import demo_edm
    from pilotstats.changepoints._demo_mdl import demo_mdl
    from pilotstats.io import demo_io
    from pilotstats.regression import demo_calibration, demo_wps
    from pilotstats.smoothing import demo_smoothing

    return [
        demo_autocorrelation,
        demo_edm,
        demo_stable_phase,
        demo_mdl,
        demo_wps,
        demo_calibration,
        demo_smoothing,
        demo_io,
    ]


def run_demo() -> str:
    """Return the whole demonstration report."""
    header = "pilotstats demonstration: statistically honest performance measurements"
    parts = [f"{header}\n{'=' * len(header)}"]
    parts.extend(section() for section in _sections())
    return "\n\n".join(parts)
