"""Warm-up of multi-fork JMH / pyperf benchmarks judged across the forks for ``analyze``.

A JMH fork or a pyperf process is a run of ``Measurements``. When every run of a benchmark
is long enough for the equivalence model (``_config.EQUIVALENCE_LONG_SERIES`` iterations,
where :func:`~pilotstats.changepoints.stable_phase` switches to it), the runs are judged
together by :func:`~pilotstats.changepoints.steady_state` instead of one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import pilotstats._config as _config
from pilotstats.changepoints import steady_state
from pilotstats.exceptions import PilotStatsError

__all__ = ["FORK_FORMATS", "joint_stable_phases"]

#: Formats whose runs are forks or processes of one benchmark.
FORK_FORMATS = ("jmh", "pyperf")


def joint_stable_phases(
    meta: Mapping[str, Any], series: Sequence[np.ndarray]
) -> tuple[list[tuple[int, int] | str], str] | None:
    """Per run ``(start, end)`` of the part to keep, or the reason to keep it whole.

    Returns None when the runs are not forks of a JMH / pyperf benchmark, fewer than two,
    shorter than ``_config.EQUIVALENCE_LONG_SERIES``, or cannot be judged together (then
    ``analyze`` judges each run alone); otherwise the decisions (start at
    the fork's ``mean_start``) and a note with the benchmark's verdict.
    """
    if meta.get("format") not in FORK_FORMATS or len(series) < 2:
        return None
    if min(int(values.size) for values in series) < _config.EQUIVALENCE_LONG_SERIES:
        return None
    try:
        result = steady_state(list(series))
    except PilotStatsError:  # e.g. values near the float64 limit: judge runs one by one
        return None
    decisions: list[tuple[int, int] | str] = []
    for fork, values in zip(result, series, strict=True):
        if fork.steady and fork.mean_start is not None:
            decisions.append((fork.mean_start, int(values.size)))
        else:
            decisions.append(f"no steady state across forks ({fork.note})")
    note = (f"warm-up judged across {len(result)} forks (steady_state): {result.verdict}, "
            f"{result.n_steady} steady")
    return decisions, note
