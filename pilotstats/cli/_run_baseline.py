"""``pilotstats run --baseline``: the verdict against an earlier run, with rounds as runs.

Every round is a separate run of the program, so the variation between rounds is the
variation a rerun sees; the verdict compares the two sessions at that level with
:func:`pilotstats.autocorrelation.compare_runs` (Kalibera & Jones, "Rigorous Benchmarking
in Reasonable Time", ISMM 2013, §5: the ratio of the two means with Fieller's interval and
Welch–Satterthwaite degrees of freedom, runs as the units). A round's run value is its
reading (readings) or its unit readings after the warm-up removal summarised by their mean
(harmonic mean for a ratio index, proportion for a binary one; with the pooled warm-up
removal these are the units of the session's rounds-as-replicates interval,
``unit_values``). The run values of a session are written to ``summary.json``
(``run_values``) so that a later session can compare with them. An index without run values
on either side (a baseline written before run values were stored and without a two-level
analysis, or fewer than two rounds) keeps the session's Welch test on its subsession
statistics, and the output says so.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pilotstats._typing import WarmupRemoval
from pilotstats.autocorrelation import compare_runs
from pilotstats.autocorrelation._two_level import TwoLevelResult
from pilotstats.cli._run_config import baseline_items
from pilotstats.results import format_number
from pilotstats.session import BenchmarkSession, IndexAnalysis, SessionResult
from pilotstats.session._runner import IndexColumn
from pilotstats.session._warmup import stable_range

__all__ = ["regressions", "run_values"]


def _round_value(values: np.ndarray, item: IndexAnalysis, session: BenchmarkSession) -> float:
    """A round's unit readings summarised after its per-round warm-up removal (NaN if none
    remain): the mean, the harmonic mean of a ratio index, the proportion of a binary one."""
    method: WarmupRemoval = "none" if item.index_type == "binary" else session.warmup_removal
    start, end, _ = stable_range(values, method, session.trim_fraction, session.min_size)
    kept = values[start:end]
    if kept.size == 0:
        return math.nan
    if item.index_type == "ratio":
        return float(kept.size / np.sum(1.0 / kept))
    return float(np.mean(kept))


def _index_run_values(item: IndexAnalysis, rounds: list[dict[str, Any]], short: set[int],
                      session: BenchmarkSession) -> list[float] | None:
    """The run value of every used round of an index (None when there is none)."""
    used = [r for i, r in enumerate(rounds) if i not in short]
    if item.kind == "readings":
        values = [float(r["readings"][item.index]) for r in used if r["readings"] is not None]
    elif isinstance(item.analysis, TwoLevelResult) and item.analysis.units == "runs":
        values = [float(v) for v in item.analysis.unit_values]  # rounds after the pooled cut
    else:
        values = [_round_value(np.asarray(r["unit_readings"][item.index], dtype=float), item,
                               session)
                  for r in used if r["unit_readings"] is not None]
    values = [v for v in values if math.isfinite(v)]
    return values or None


def run_values(session: BenchmarkSession, result: SessionResult) -> dict[str, list[Any]]:
    """Run values of every index, ``{"readings": [...], "unit_readings": [...]}``: one list
    per index (or None), in the order of the indices."""
    rounds = session.state()["rounds"]
    short = set(result.short_rounds)
    return {
        "readings": [_index_run_values(item, rounds, short, session)
                     for item in result.readings],
        "unit_readings": [_index_run_values(item, rounds, short, session)
                          for item in result.unit_readings],
    }


def _baseline_run_values(data: dict[str, Any], item: dict[str, Any] | None) -> list[float] | None:
    """The baseline's run values of one matched index (None when it stored none)."""
    if item is None:
        return None
    stored = data.get("run_values")
    kind, index = item.get("kind"), item.get("index")
    if isinstance(stored, dict) and isinstance(index, int) and kind in stored:
        lists = stored[kind]
        if isinstance(lists, list) and 0 <= index < len(lists) and isinstance(lists[index], list):
            return [float(v) for v in lists[index]]
    analysis = item.get("analysis")  # a two-level analysis holds its round means
    if isinstance(analysis, dict) and analysis.get("units") == "runs":
        values = analysis.get("unit_values")
        if isinstance(values, list):
            return [float(v) for v in values]
    return None


def _worse(increase: bool, higher_is_better: bool) -> bool:
    return not increase if higher_is_better else increase


def regressions(config: dict[str, Any], pis: list[IndexColumn], session: BenchmarkSession,
                result: SessionResult) -> tuple[list[dict[str, Any]], list[str]]:
    """Indices significantly worse than the baseline, and one line per compared index.

    A regression is a change for the worse (an increase; a decrease for indices where
    higher is better) whose two-sided test rejects "no change" at ``1 - confidence_level``:
    the run comparison's ratio interval excludes 1 (or, without run values, Welch's test
    on the subsession statistics).
    """
    if config["baseline_file"] is None:
        return [], []
    data, matched = baseline_items(config["baseline_file"], pis)
    new_values = run_values(session, result)
    higher = set(config["higher_is_better"])
    level = result.confidence_level
    found: list[dict[str, Any]] = []
    lines: list[str] = []
    for item in (*result.readings, *result.unit_readings):
        position = item.index
        base_item = matched[position] if position < len(matched) else None
        if base_item is None:
            continue
        base = _baseline_run_values(data, base_item)
        new = new_values[item.kind][position]
        up = item.name in higher
        label = item.name or item.label
        if base is not None and new is not None and len(base) >= 2 and len(new) >= 2:
            comparison = compare_runs([[v] for v in base], [[v] for v in new],
                                      confidence_level=level, unit=item.unit or None)
            lines.append(f"vs baseline, rounds as runs: {label} {comparison}")
            if (comparison.conclusive and comparison.p_value < 1.0 - level
                    and _worse(comparison.ratio > 1.0, up)):
                found.append({
                    "name": item.name, "test": "runs", "ratio": comparison.ratio,
                    "ci_low": comparison.ci_low, "ci_high": comparison.ci_high,
                    "difference": comparison.new.mean - comparison.base.mean,
                    "p_value": comparison.p_value, "higher_is_better": up,
                })
            continue
        welch = item.comparison
        if welch is None:
            continue
        lines.append(f"vs baseline, Welch on subsession statistics (no run values): {label} "
                     f"difference {format_number(welch.difference)} "
                     f"(p = {format_number(welch.p_value, 3)})")
        if welch.p_value < 1.0 - level and _worse(welch.difference > 0, up):
            found.append({
                "name": item.name, "test": "welch", "ratio": None, "ci_low": None,
                "ci_high": None, "difference": welch.difference,
                "p_value": welch.p_value, "higher_is_better": up,
            })
    return found, lines
