"""Parts shared by the HTML pages of the analysis reports.

The pages themselves live next to their reports (``analysis_page`` in ``_analysis_report``,
``comparison_page`` in ``_compare``, ``trend_page`` in ``_trend``).

Each page leads with the answer (a summary line and the verdict table), then the run
structure (runs per side, between- and within-run standard deviations, Kalibera & Jones
2013), then one section per benchmark with its plots and notes, and ends with the exact
command line and the versions (:func:`pilotstats.analysis._html.page`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from pilotstats.analysis._html import plot_or_note
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import draw, format_quantity

if TYPE_CHECKING:  # pragma: no cover
    from pilotstats.io import Measurements

__all__ = ["esc", "notes_list", "one_measurement", "quantity", "samples_plot", "std_text"]

esc = html.escape


def std_text(variance: float | None, unit: str) -> str:
    """``sqrt(variance)`` as a quantity, ``"-"`` when unknown."""
    if variance is None or not math.isfinite(variance) or variance < 0:
        return "-"
    return format_quantity(math.sqrt(variance), unit)


def quantity(value: float | None, unit: str) -> str:
    """``value`` as a quantity, ``"-"`` when unknown."""
    return "-" if value is None else format_quantity(value, unit)


def notes_list(notes: Sequence[str]) -> str:
    """The notes as an HTML list (empty text when there are none)."""
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"


def one_measurement(given: Any, side: str) -> Measurements | None:
    """A :class:`Measurements` (a list of files merged as their runs), or None."""
    if given is None:
        return None
    from pilotstats.analysis._runs import combine_runs
    from pilotstats.io import Measurements

    value = combine_runs(given, side)
    if not isinstance(value, Measurements):
        raise InvalidInputError(f"{side} must be Measurements or a list of them (one per "
                                f"file), got {type(value).__name__}")
    return value


def samples_plot(measurements: Measurements | None, name: str, heading: str) -> str:
    """The samples plot of benchmark ``name`` (empty text when it has no measurements)."""
    if measurements is None or name not in measurements.names:
        return ""
    return plot_or_note(partial(draw, measurements, benchmark=name, heading=heading),
                        (7.0, 3.0))
