"""A small hand-written SVG trend plot with axes and values, for pages of many series.

The fleet page (:meth:`~pilotstats.analysis.FleetReport.to_html`) may hold thousands of
series, too many for one matplotlib figure each; this draws one in microseconds: the
series as a grey line, each trend level as a coloured segment, a frame with "nice" value
ticks labelled in the series' unit and run ticks, as plain SVG (no script).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

import numpy as np

from pilotstats.results import format_number, value_scale

__all__ = ["COLOURS", "nice_ticks", "series_svg"]

#: Colour of a trend level by classification.
COLOURS = {"regression": "#c0392b", "progression": "#1e8449", "normal": "#2e5c8a"}

_WIDTH, _HEIGHT = 380, 130
_LEFT, _RIGHT, _TOP, _BOTTOM = 58, 8, 8, 30
_MAX_POINTS = 400
#: Series up to this length also get a dot per run.
_MARKED = 60


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values (1, 2 or 5 times a power of ten apart) in [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    if high <= low:
        return [low]
    raw = (high - low) / max(count - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + 1e-9 * step:
        ticks.append(0.0 if abs(value) < 1e-12 * step else value)
        value += step
    return ticks


def _label(value: float, unit: str | None) -> str:
    text = format_number(value, 3)
    return f"{text} {unit}" if unit else text


def series_svg(values: np.ndarray, levels: Sequence[tuple[int, int, float, str]], *,
               unit: str | None = None, name: str = "series") -> str:
    """Inline SVG of ``values`` (one per run) and its trend ``levels``.

    Parameters
    ----------
    values : ndarray
        One value per run (NaN: missing, not drawn).
    levels : sequence of (start, end, level, classification)
        Half-open run ranges and the level of each trend segment.
    unit : str, optional
        Label written after the value ticks.
    name : str
        Series name, for the plot's ``<title>``.

    Returns
    -------
    str
        An ``<svg>`` element with a frame, value and run ticks, the series as a
        ``<polyline>`` and one ``<line>`` per level.
    """
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    finite = x[np.isfinite(x)]
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
            f'viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" font-family="sans-serif" '
            f'font-size="10">')
    if n == 0 or finite.size == 0:
        return head + f"<title>{html.escape(name)}: no data</title></svg>"
    unit, factor = value_scale(finite, unit)  # seconds shown in s, ms, µs or ns
    x = x / factor
    finite = finite / factor
    levels = [(start, end, level / factor, label) for start, end, level, label in levels]
    marks = [m for _, _, m, _ in levels if math.isfinite(m)]
    low = float(min(finite.min(), *marks)) if marks else float(finite.min())
    high = float(max(finite.max(), *marks)) if marks else float(finite.max())
    pad = (high - low) * 0.06 if high > low else max(abs(high) * 0.05, 1e-12)
    low, high = low - pad, high + pad
    right, bottom = _WIDTH - _RIGHT, _HEIGHT - _BOTTOM

    def px(i: float) -> float:
        return _LEFT + (right - _LEFT) * (i / max(n - 1, 1))

    def py(v: float) -> float:
        return bottom - (bottom - _TOP) * (v - low) / (high - low)

    last = f"; last level {_label(levels[-1][2], unit)}, {levels[-1][3]}" if levels else ""
    parts = [head, f"<title>{html.escape(name)}: {n} runs, {len(levels)} trend segment(s)"
             f"{html.escape(last)}</title>",
             f'<rect x="{_LEFT}" y="{_TOP}" width="{right - _LEFT}" height="{bottom - _TOP}" '
             'fill="none" stroke="#888" stroke-width="0.8"/>']
    parts += _ticks_svg(low, high, n, unit, px, py)
    step = max(1, math.ceil(n / _MAX_POINTS))
    points = " ".join(f"{px(i):.1f},{py(float(x[i])):.1f}" for i in range(0, n, step)
                      if math.isfinite(x[i]))
    parts.append(f'<polyline fill="none" stroke="#9aa0a6" stroke-width="0.9" '
                 f'points="{points}"/>')
    if n <= _MARKED:
        parts.append('<path fill="#9aa0a6" d="' + "".join(
            f"M{px(i) - 1.6:.1f},{py(float(x[i])):.1f}a1.6,1.6 0 1,0 3.2,0a1.6,1.6 0 1,0 -3.2,0"
            for i in range(n) if math.isfinite(x[i])) + '"/>')
    half = 0.5 * (right - _LEFT) / max(n - 1, 1)
    for start, end, level, label in levels:
        if not math.isfinite(level):
            continue
        x1, x2 = max(_LEFT, px(start) - half), min(right, px(end - 1) + half)
        parts.append(f'<line x1="{x1:.1f}" x2="{x2:.1f}" '
                     f'y1="{py(level):.1f}" y2="{py(level):.1f}" '
                     f'stroke="{COLOURS.get(label, COLOURS["normal"])}" stroke-width="2.2">'
                     f"<title>runs [{start}, {end}): {html.escape(_label(level, unit))}, "
                     f"{html.escape(label)}</title></line>")
    parts.append("</svg>")
    return "".join(parts)


def _ticks_svg(low: float, high: float, n: int, unit: str | None,
               px: Callable[[float], float], py: Callable[[float], float]) -> list[str]:
    """Grid lines and labels of the value ticks and run ticks, and the x axis title."""
    right, bottom = _WIDTH - _RIGHT, _HEIGHT - _BOTTOM
    grid, labels = [], []
    for tick in nice_ticks(low, high):
        y = py(tick)
        grid.append(f"M{_LEFT - 3},{y:.1f}H{right}")
        labels.append(f'<text x="{_LEFT - 5}" y="{y + 3:.1f}" text-anchor="end">'
                      f"{html.escape(_label(tick, unit))}</text>")
    run_ticks = sorted({int(t) for t in nice_ticks(0.0, float(n - 1)) if float(t).is_integer()}
                       | {0, n - 1})
    for tick in run_ticks:
        grid.append(f"M{px(tick):.1f},{bottom}v3")
        labels.append(f'<text x="{px(tick):.1f}" y="{bottom + 13}" text-anchor="middle">'
                      f"{tick}</text>")
    return [f'<path d="{"".join(grid)}" stroke="#ddd" stroke-width="0.7" fill="none"/>',
            *labels,
            f'<text x="{(_LEFT + right) / 2:.0f}" y="{_HEIGHT - 3}" '
            'text-anchor="middle" fill="#555">run (oldest first)</text>']
