"""EDM-tail with exact τ pruning (issue 26): the pruned search returns exactly the
statistic and location of the full sweep over every (τ, κ), and its pieces match the naive
window sets. The full sweep is rebuilt here from the kernel's two pieces, evaluated for
every τ in increasing order with the reference's strict ">" (smallest τ wins)."""

from __future__ import annotations

import numpy as np
import pytest

from pilotstats._kernels import edm as K
from tests.naive_edm import edm_tail_naive


def full_sweep(
    z: np.ndarray, delta: int, depth: int, quantile: float = 0.5, alpha: float = 2.0
) -> tuple[int, float]:
    """Every τ evaluated, ascending, no pruning (the search before the pruning)."""
    n = z.shape[0]
    x = K.edm_tail_window_terms(z, delta, depth, quantile, alpha)
    tree_b = np.zeros(1 << (depth + 1), dtype=np.int64)
    best, best_tau = -3.0, 0
    for tau in range(delta, n - delta + 1):
        stat = K.edm_tail_kappa_sweep(z, delta, depth, quantile, alpha, tau, x[tau], tree_b)
        assert not tree_b.any()  # the sweep leaves the tree empty
        if stat > best:
            best, best_tau = stat, tau
    return (best_tau, best) if best > 0.0 else (0, 0.0)


def series(rng: np.random.Generator, n: int, kind: int) -> np.ndarray:
    """Shifts, heavy tails, ties, constant runs and plain noise, range-scaled to [0, 1]."""
    if kind == 0:
        x = rng.normal(0.0, 1.0, n)
    elif kind == 1:
        x = rng.standard_t(2, n)
    elif kind == 2:
        x = rng.integers(0, 4, n).astype(float)
    elif kind == 3:
        x = np.repeat(rng.normal(0.0, 3.0, 4), -(-n // 4))[:n] + 0.2 * rng.normal(size=n)
    else:
        x = np.full(n, 2.0)
        x[int(rng.integers(0, n)) :] += 1.0
        x[rng.integers(0, n, 3)] += 5.0
    for _ in range(int(rng.integers(0, 3))):
        x[int(rng.integers(0, n)) :] += rng.normal(0.0, 2.0)
    span = x.max() - x.min()
    return (x - x.min()) / span if span > 0 else np.zeros(n)


def test_pruned_equals_full_sweep_on_many_series() -> None:
    rng = np.random.default_rng(2026)
    for trial in range(60):
        delta = int(rng.integers(2, 12))
        n = int(rng.integers(2 * delta, 260))
        z = series(rng, n, trial % 5)
        depth = K.tree_depth(n)
        for quantile, alpha in ((0.5, 2.0), (0.3, 1.0)):
            got = K.edm_tail_search(z, delta, depth, quantile, alpha)
            assert got == full_sweep(z, delta, depth, quantile, alpha), (trial, quantile)


@pytest.mark.parametrize("kind", range(5))
def test_pruned_matches_naive_and_twin(kind: int) -> None:
    rng = np.random.default_rng(kind)
    z = series(rng, 36, kind)
    depth = K.tree_depth(36)
    got = K.edm_tail_search(z, 5, depth, 0.5, 2.0)
    assert got == edm_tail_naive(z, 5, depth)
    assert K.edm_tail_search.py_func(z, 5, depth, 0.5, 2.0) == got
    x = K.edm_tail_window_terms(z, 5, depth, 0.5, 2.0)
    assert np.array_equal(x, K.edm_tail_window_terms.py_func(z, 5, depth, 0.5, 2.0))


def test_window_terms_match_rebuilt_trees() -> None:
    rng = np.random.default_rng(7)
    z = series(rng, 50, 3)
    depth, delta = 10, 6
    x = K.edm_tail_window_terms(z, delta, depth, 0.5, 2.0)
    for tau in range(delta, 50 - delta + 1):
        tree_a = np.zeros(1 << (depth + 1), dtype=np.int64)
        tree_ab = np.zeros(1 << (depth + 1), dtype=np.int64)
        left, right = z[tau - delta : tau], z[tau : tau + delta]
        for i in range(delta):
            for j in range(i + 1, delta):
                K.tree_update(tree_a, depth, abs(left[i] - left[j]), 1)
            for b in right:
                K.tree_update(tree_ab, depth, abs(left[i] - b), 1)
        qa = K.tree_quantile(tree_a, depth, 0.5) ** 2.0
        qab = K.tree_quantile(tree_ab, depth, 0.5) ** 2.0
        assert x[tau] == 2.0 * qab - qa
