"""Shared helpers of every renderer of :mod:`pilotstats.plotting` (matplotlib imported lazily).

Nothing here imports matplotlib at module import time: :func:`pyplot` does it on the
first call and turns a missing installation into :class:`MissingDependencyError` with the
command that installs it. The other helpers draw the building blocks the result plots share
(unit-aware axis labels, confidence bands, segment levels, change-point markers), so every
figure of the library labels its axes, units and confidence levels the same way.

Conventions: a sample ``i`` of a series is drawn at ``x = i``; a change point ``c`` (index
of the first sample of the new segment, ``docs/algorithms/index.md``) is drawn between samples, at
``c - 0.5``; a segment ``[start, end)`` spans ``[start - 0.5, end - 0.5]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from pilotstats._validation import as_float_array
from pilotstats.exceptions import InvalidInputError, MissingDependencyError
from pilotstats.results import format_number, level_text, time_scale, value_scale

__all__ = [
    "INSTALL_HINT",
    "axis_label",
    "change_point_lines",
    "check_series",
    "fit_title",
    "interval_band",
    "level_text",
    "new_axes",
    "outside_legend",
    "pyplot",
    "segment_levels",
    "time_scale",
    "value_scale",
]

#: How to install the plotting extra (quoted so that shells do not expand the brackets).
INSTALL_HINT = 'pip install "pilotstats[plot]"'

#: Default size (inches) of a figure created by a plot method.
DEFAULT_FIGSIZE = (8.0, 3.5)

#: Colours shared by the result plots (matplotlib's default cycle names).
DATA_COLOUR = "0.45"
LEVEL_COLOUR = "C0"
CHANGE_COLOUR = "C3"
BAND_ALPHA = 0.2


def pyplot() -> Any:
    """Return ``matplotlib.pyplot``, importing it now.

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (or fails to import); the message says how to install
        it (``pip install "pilotstats[plot]"``).
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingDependencyError(
            "plotting needs matplotlib, which is not installed (or failed to import: "
            f"{exc}); install it with {INSTALL_HINT} or pip install matplotlib",
            package="matplotlib",
        ) from exc
    return plt


def new_axes(ax: Any = None, *, figsize: tuple[float, float] = DEFAULT_FIGSIZE) -> Any:
    """Return ``ax``, or the axes of a new figure of size ``figsize`` when ``ax`` is None.

    A new figure uses matplotlib's constrained layout, so labels and legends do not
    overlap when it is saved.
    """
    if ax is not None:
        return ax
    plt = pyplot()
    _, created = plt.subplots(figsize=figsize, layout="constrained")
    return created


def axis_label(quantity: str, unit: str | None = None) -> str:
    """``"quantity (unit)"``, or just ``quantity`` when there is no unit."""
    return f"{quantity} ({unit})" if unit else quantity


def check_series(x: Any, n: int, *, name: str = "x", what: str = "the result") -> np.ndarray:
    """Validate the raw series given to a ``plot`` method (a fresh float64 copy).

    Raises
    ------
    InvalidInputError
        ``x`` is not a finite 1-D numeric array or its length is not ``n``.
    """
    data = as_float_array(x, name)
    if data.shape[0] != n:
        raise InvalidInputError(
            f"{name} must be the series {what} was computed from, of length n = {n}; "
            f"got length {data.shape[0]}"
        )
    return data


def interval_band(
    ax: Any,
    x: Any,
    low: Any,
    high: Any,
    *,
    color: str = LEVEL_COLOUR,
    alpha: float = BAND_ALPHA,
    label: str | None = None,
) -> Any:
    """Shade ``[low, high]`` over ``x`` (arrays, or scalars broadcast over ``x``).

    Non-finite ends are not drawn (matplotlib leaves a gap). Returns the
    ``PolyCollection`` of :meth:`~matplotlib.axes.Axes.fill_between`.
    """
    xs = np.asarray(x, dtype=float)
    lows = np.broadcast_to(np.asarray(low, dtype=float), xs.shape)
    highs = np.broadcast_to(np.asarray(high, dtype=float), xs.shape)
    return ax.fill_between(xs, lows, highs, color=color, alpha=alpha, linewidth=0, label=label)


def segment_levels(
    ax: Any,
    bounds: Iterable[tuple[int, int, float]],
    *,
    color: str = LEVEL_COLOUR,
    label: str | None = None,
    linewidth: float = 2.0,
) -> list[Any]:
    """Draw each segment's level as a horizontal line over ``[start - 0.5, end - 0.5]``.

    Parameters
    ----------
    bounds : iterable of (start, end, level)
        Half-open sample ranges and the level (already in display units) to draw.

    Returns
    -------
    list of Line2D
        One line per segment; only the first carries ``label``.
    """
    lines: list[Any] = []
    for start, end, level in bounds:
        if not math.isfinite(level):
            continue
        (line,) = ax.plot(
            [start - 0.5, end - 0.5],
            [level, level],
            color=color,
            linewidth=linewidth,
            solid_capstyle="butt",
            label=label if not lines else None,
        )
        lines.append(line)
    return lines


def change_point_lines(
    ax: Any,
    locations: Sequence[int],
    *,
    p_values: Sequence[float] | None = None,
    color: str = CHANGE_COLOUR,
    label: str | None = "change point",
) -> list[Any]:
    """Vertical dashed lines between samples ``c - 1`` and ``c`` for each change point ``c``.

    With ``p_values`` each line is annotated with ``p = ...`` near the top of the axes.

    Returns
    -------
    list of Line2D
        One line per change point; only the first carries ``label`` (legend entry).
    """
    lines: list[Any] = []
    low, high = ax.get_xlim()
    width = high - low if high > low else 1.0
    for j, c in enumerate(locations):
        line = ax.axvline(
            c - 0.5,
            color=color,
            linestyle="--",
            linewidth=1.2,
            label=label if j == 0 else None,
        )
        lines.append(line)
        if p_values is not None:
            right = (c - 0.5 - low) / width > 0.8  # near the right edge: write leftwards
            ax.annotate(
                f"p {_format_p(p_values[j])}",
                xy=(c - 0.5, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(-3 if right else 3, -3),
                textcoords="offset points",
                ha="right" if right else "left",
                va="top",
                fontsize="small",
                color=color,
            )
    return lines


def fit_title(ax: Any, text: str, **options: Any) -> Any:
    """Set ``text`` as the title, wrapped at spaces to the figure's width (about 9.5
    characters an inch at the default size), so that a long benchmark name is never cut
    off; returns the title's Text."""
    import textwrap

    width = max(20, int(ax.figure.get_figwidth() * 9.5))
    return ax.set_title(textwrap.fill(text, width, break_long_words=False), **options)


def outside_legend(ax: Any) -> Any:
    """Put the legend to the right of the axes, where it cannot hide data.

    Returns the Legend, or None when nothing is labelled.
    """
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        frameon=False,
    )


def _format_p(p: float) -> str:
    """``"= 0.012"``, ``"< 0.0001"`` or ``"n/a"`` (the relation included)."""
    if not math.isfinite(p):
        return "n/a"
    if p < 1e-4:
        return "< 0.0001"
    return f"= {format_number(p, 2)}"
