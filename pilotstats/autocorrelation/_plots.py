"""Figure of the subsession interval as a session grows: :func:`plot_half_width`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._plotting import (
    LEVEL_COLOUR,
    axis_label,
    fit_title,
    level_text,
    new_axes,
    outside_legend,
    value_scale,
)
from pilotstats._validation import as_float_array, check_int, check_text
from pilotstats.autocorrelation._subsession import subsession_analysis
from pilotstats.exceptions import NotEnoughDataError, SubsessionSizeNotFoundError
from pilotstats.results import format_number, format_quantity

__all__ = ["plot_half_width"]

#: Most prefixes analysed by :func:`plot_half_width` (evenly spaced beyond that).
_MAX_PREFIXES = 200

_REASONS = {
    "size": "no interval: no subsession size brings |r1| <= {limit}",
    "few": "no interval: fewer than 2 subsessions",
}


def plot_half_width(
    x: Any,
    *,
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
    autocorrelation_limit: float = _config.DEFAULT_AUTOCORRELATION_LIMIT,
    min_samples: int = 3,
    unit: str | None = None,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Half width of the subsession interval of the first ``k`` samples, as ``k`` grows.

    Each prefix ``x[:k]`` gets :func:`subsession_analysis`; where it has no interval (no
    subsession size reaches ``|r1| <= autocorrelation_limit`` yet, or fewer than two
    subsessions) the curve has a gap, shaded and named in the legend, so that a missing
    point is never mistaken for a missing measurement. The title states the answer: the
    half width at the full length, also as a percentage of the mean.

    Parameters
    ----------
    x : array_like, shape (n,)
        Samples in time order.
    confidence_level : float in (0, 1), default 0.95
        Level of the intervals.
    autocorrelation_limit : float in (0, 1], default 0.1
        Limit on the lag-1 autocorrelation of the subsession means.
    min_samples : int, default 3
        First prefix length drawn.
    unit : str, optional
        Unit of ``x``; seconds are auto-scaled.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    title : str, optional
        Title (default: the half width at ``k = n``).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InvalidInputError
        ``x`` is not a finite 1-D series; ``min_samples`` not an integer in [2, n].
    MissingDependencyError
        matplotlib is not installed.

    Notes
    -----
    Complexity: O(P n log n) for P <= 200 prefixes (every length up to 200 samples past
    ``min_samples``, evenly spaced lengths beyond).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pilotstats.datasets import ferrari_response_times
    >>> ax = plot_half_width(ferrari_response_times(), unit="s")
    >>> ax.get_title()
    'half width at n = 48: ±145.8 ms (8.3 % of the mean, 95 % CI)'
    >>> [t.get_text() for t in ax.get_legend().get_texts()]  # doctest: +NORMALIZE_WHITESPACE
    ['95 % CI half width', 'no interval: no subsession size brings |r1| <= 0.1']
    """
    data = as_float_array(x, "x")
    n = int(data.shape[0])
    first = check_int(min_samples, "min_samples", low=2, high=max(n, 2))
    unit = check_text(unit, "unit", allow_none=True)
    if n - first + 1 > _MAX_PREFIXES:
        sizes = np.unique(np.linspace(first, n, _MAX_PREFIXES).round().astype(int))
    else:
        sizes = np.arange(first, n + 1)
    widths = np.full(sizes.size, np.nan)
    reasons: list[str | None] = []
    last = None
    for i, k in enumerate(sizes):
        try:
            last = subsession_analysis(data[:k], confidence_level=confidence_level,
                                       autocorrelation_limit=autocorrelation_limit)
        except SubsessionSizeNotFoundError:
            reasons.append("size")
            last = None
            continue
        except NotEnoughDataError:
            reasons.append("few")
            last = None
            continue
        widths[i] = last.half_width
        reasons.append(None)
    shown, factor = value_scale(widths[np.isfinite(widths)], unit)
    ax = new_axes(ax)
    level = level_text(confidence_level)
    ax.plot(sizes, widths / factor, "o-", markersize=3, color=LEVEL_COLOUR,
            label=f"{level} half width")
    labelled: set[str] = set()
    step = float(np.min(np.diff(sizes))) if sizes.size > 1 else 1.0
    for i, reason in enumerate(reasons):
        if reason is None:
            continue
        text = _REASONS[reason].format(limit=format_number(autocorrelation_limit))
        ax.axvspan(sizes[i] - step / 2, sizes[i] + step / 2, color="0.85", linewidth=0,
                   label=None if text in labelled else text)
        labelled.add(text)
    ax.set_xlabel("samples collected (k)")
    ax.set_ylabel(axis_label("half width of the interval of x[:k]", shown))
    if title is None:
        if last is not None and math.isfinite(last.half_width):
            share = (f"{format_number(100 * last.half_width / abs(last.mean), 2)} % of the "
                     "mean, " if last.mean else "")
            title = (f"half width at n = {n}: ±{format_quantity(last.half_width, unit)} "
                     f"({share}{level})")
        else:
            title = f"no interval at n = {n}: collect more samples"
    fit_title(ax, title, fontsize="medium")
    outside_legend(ax)
    return ax
