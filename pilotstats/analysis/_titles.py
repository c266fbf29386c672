"""Titles that state the answer of a comparison or a trend, shared by the figures of
:mod:`pilotstats.plotting` and the HTML reports."""

from __future__ import annotations

from typing import Any

from pilotstats.results import format_quantity, level_text

__all__ = ["change_title", "trend_title"]


def change_title(item: Any) -> str:
    """``"b: +29.8 % [+25.1, +34.6 %] regression (95 % CI, 4 vs 4 files)"``: the answer
    of a :class:`~pilotstats.analysis.BenchmarkComparison`."""
    level = level_text(item.confidence_level)
    units = item.interval_units or "runs"
    count = (f"{item.base_n_subsessions} vs {item.new_n_subsessions} {units}"
             if item.base_n_subsessions is not None else item.runs_text)
    if item.relative_change is None:
        return f"{item.name}: {item.verdict} ({item.runs_text})"
    change = f"{100.0 * item.relative_change:+.2f} %"
    if item.relative_ci_low is None or item.relative_ci_high is None:
        return f"{item.name}: {change}, {item.verdict} (no interval, {item.runs_text})"
    return (f"{item.name}: {change} [{100.0 * item.relative_ci_low:+.2f}, "
            f"{100.0 * item.relative_ci_high:+.2f} %] {item.verdict} ({level}, {count})")


def trend_title(item: Any, n_results: int) -> str:
    """The newest MDL level of a :class:`BenchmarkTrend` and how it moved: the answer."""
    if not item.segments:
        return f"{item.name}: no trend ({item.note or 'no segments'})"
    last = item.segments[-1]
    text = (f"{item.name}: newest level {format_quantity(last.mean, item.unit)}, "
            f"{last.classification}")
    if len(item.segments) >= 2:
        before = item.segments[-2].mean
        if before:
            text += (f" ({100.0 * (last.mean / before - 1.0):+.3g} % vs "
                     f"{format_quantity(before, item.unit)})")
    return text + (f"; {len(item.segments)} level{'s' if len(item.segments) != 1 else ''} "
                   f"over {n_results} results")
