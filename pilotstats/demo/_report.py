"""The whole report of ``python -m pilotstats demo`` and its autocorrelation section."""

from __future__ import annotations

from collections.abc import Callable

from pilotstats.autocorrelation import (
    lag1_autocorrelation,
    required_sample_size,
    subsession_analysis,
)
from pilotstats.datasets import ferrari_response_times
from pilotstats.demo._changepoints import demo_edm, demo_mdl, demo_stable_phase
from pilotstats.demo._io import demo_io
from pilotstats.demo._regression import demo_calibration, demo_wps
from pilotstats.demo._smoothing import demo_smoothing

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


#: The sections of the report, in order.
SECTIONS: tuple[Callable[[], str], ...] = (
    demo_autocorrelation,
    demo_edm,
    demo_stable_phase,
    demo_mdl,
    demo_wps,
    demo_calibration,
    demo_smoothing,
    demo_io,
)


def run_demo() -> str:
    """Return the whole demonstration report.

    Returns
    -------
    str
        A title, then one section per pillar, separated by blank lines.
    """
    header = "pilotstats demonstration: statistically honest performance measurements"
    parts = [f"{header}\n{'=' * len(header)}"]
    parts.extend(section() for section in SECTIONS)
    return "\n\n".join(parts)
