"""Planning the runs of an undecided comparison: ``units_to_resolve`` and ``units_needed``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pilotstats.analysis import compare
from pilotstats.analysis._compare import BenchmarkComparison
from pilotstats.analysis._runs import units_to_resolve
from pilotstats.autocorrelation._run_comparison import ratio_interval_from_moments
from pilotstats.io import Measurements


def _brute_force(moments: tuple[tuple[float, float, int], tuple[float, float, int]],
                 half_width: float, level: float, limit: int) -> int | None:
    (mx, vx, _), (my, vy, _) = moments
    for k in range(2, limit + 1):
        _, low, high, _, _ = ratio_interval_from_moments(mx, vx, k, my, vy, k, level)
        if math.isfinite(high) and (high - low) / 2.0 <= half_width:
            return k
    return None


@pytest.mark.parametrize("seed", range(6))
def test_units_to_resolve_is_the_smallest_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20):
        mx = float(rng.uniform(1.0, 2.0))
        my = mx * float(rng.uniform(0.7, 1.4))
        vx = float(rng.uniform(0.0, 0.3)) ** 2
        vy = float(rng.uniform(0.0, 0.3)) ** 2
        target = float(rng.uniform(0.01, 0.3))
        level = float(rng.choice([0.9, 0.95, 0.99]))
        moments = ((mx, vx, 2), (my, vy, 2))
        expected = _brute_force(moments, target, level, 3000)
        assert units_to_resolve(moments, target, level, limit=3000) == expected


def test_units_to_resolve_without_an_answer() -> None:
    moments = ((1.0, 1.0, 2), (1.1, 1.0, 2))
    assert units_to_resolve(moments, 1e-4, 0.95, limit=100) is None
    assert units_to_resolve(((0.0, 1.0, 2), (1.0, 1.0, 2)), 0.1, 0.95) is None
    assert units_to_resolve(((1.0, math.nan, 2), (1.0, 1.0, 2)), 0.1, 0.95) is None
    assert units_to_resolve(moments, 0.0, 0.95) is None


def _runs(levels: list[float], rng: np.random.Generator, n: int = 30) -> Measurements:
    """One run per level: ``n`` samples of that level with small within-run noise."""
    return Measurements(np.concatenate([rng.normal(level, 0.002, n) for level in levels]),
                        run=np.repeat(np.arange(len(levels)), n), benchmark="b")


def test_an_undecided_comparison_says_how_many_runs_would_resolve_it() -> None:
    rng = np.random.default_rng(4)
    base = _runs([1.00, 1.12], rng)  # 2 processes a side, 12 % apart
    new = _runs([1.15, 1.35], rng)   # +20 % on average
    item = compare(base, new, detect_warmup=False)[0]
    assert item.verdict == "no significant change"
    assert item.units_needed is not None and item.units_needed > 2
    assert f"about {item.units_needed} runs a side would narrow the interval" in item.note
    half = (item.relative_ci_high - item.relative_ci_low) / 2.0
    assert half > abs(item.relative_change)
    assert BenchmarkComparison.from_dict(item.to_dict()) == item
    # with a practical threshold the plan resolves that threshold instead
    planned = compare(base, new, detect_warmup=False, min_change_percent=50.0)[0]
    assert planned.units_needed is not None and planned.units_needed < item.units_needed
    assert "±50 %" in planned.note


def test_decided_comparisons_plan_nothing() -> None:
    rng = np.random.default_rng(5)
    base = _runs([1.00, 1.01, 0.99, 1.00], rng)
    slow = _runs([1.30, 1.31, 1.29, 1.30], rng)
    item = compare(base, slow, detect_warmup=False)[0]
    assert item.verdict == "regression" and item.units_needed is None
    assert "would narrow" not in item.note
    # an observed change within the noise plans for the default 1 % resolution
    same = compare(base, _runs([1.00, 1.02, 0.98, 1.01], rng), detect_warmup=False)[0]
    assert same.verdict == "no significant change"
    assert same.units_needed is None or "±1 %" in same.note
