"""Bounded-history MDL search (``mdl_partition(max_history=H)``, issue 26): an
approximation, so these tests pin what it guarantees: identical to the exact programme
whenever nothing is forgotten, deterministic, the same in batch and stream, and close to
the exact partition on CSIT-like series (measured, not timed)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from pilotstats.changepoints import MdlStream, mdl_partition

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _csit_like import csit_like


def _series(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random series: shifts, heavy tails, exact ties and constant stretches."""
    kind = int(rng.integers(0, 4))
    if kind == 0:
        x = rng.normal(100.0, 2.0, n)
    elif kind == 1:
        x = 100.0 + rng.standard_t(2, n)
    elif kind == 2:
        x = np.round(rng.normal(50.0, 1.5, n))
    else:
        x = np.full(n, 7.0)
        x[int(rng.integers(0, n)) :] += 1.0
    for _ in range(int(rng.integers(0, 4))):
        x[int(rng.integers(0, n)) :] += rng.normal(0.0, 8.0)
    return np.abs(x) + 1.0


def test_identical_to_exact_when_history_covers_the_series() -> None:
    rng = np.random.default_rng(26)
    for _ in range(60):
        n = int(rng.integers(1, 300))
        x = _series(rng, n)
        exact = mdl_partition(x)
        bounded = mdl_partition(x, max_history=n)
        assert bounded.boundaries.tolist() == exact.boundaries.tolist()
        assert bounded.total_bits == exact.total_bits
        # pruning and bounded history combine
        plain = mdl_partition(x, max_history=n, pruning=False)
        assert plain.boundaries.tolist() == exact.boundaries.tolist()


def test_small_history_is_deterministic_and_mode_independent() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = _series(rng, int(rng.integers(50, 400)))
        a = mdl_partition(x, max_history=16)
        b = mdl_partition(x, max_history=16)
        c = mdl_partition(x, max_history=16, pruning=False)
        assert a.boundaries.tolist() == b.boundaries.tolist() == c.boundaries.tolist()
        assert a.total_bits == c.total_bits


def test_long_flat_series_stays_one_group() -> None:
    # the first group's start is an anchor: a long change-free series is never cut
    x = np.random.default_rng(0).normal(100.0, 1.0, 5000)
    assert mdl_partition(x, max_history=50).boundaries.tolist() == []


@pytest.mark.parametrize("pruning", [True, False])
def test_stream_equals_batch(pruning: bool) -> None:
    x = csit_like(700, 4)
    stream = MdlStream(max_history=40, pruning=pruning)
    for start in range(0, 700, 97):  # uneven chunks: forgetting depends on the run index
        stream.extend(x[start : start + 97].tolist())
        batch = mdl_partition(x[: start + 97], max_history=40, pruning=pruning)
        result = stream.result()
        assert result.boundaries.tolist() == batch.boundaries.tolist()
        assert result.total_bits == batch.total_bits


def test_agreement_on_csit_like_series() -> None:
    """Pooled boundary agreement |exact ∩ bounded| / |exact ∪ bounded| at H = 1000
    (the benchmark measures more series and longer ones)."""
    inter = union = 0
    for seed in range(6):
        x = csit_like(3000, seed)
        exact = set(mdl_partition(x).boundaries.tolist())
        bounded = set(mdl_partition(x, max_history=1000).boundaries.tolist())
        inter += len(exact & bounded)
        union += len(exact | bounded)
    assert union > 50
    assert inter / union >= 0.999
