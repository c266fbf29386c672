"""EDM kernels: compiled vs pure-Python twins, brute-force references (tests/naive_edm.py),
the sorted-list median structure and the interval tree (spec §5.3, CV-7)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pilotstats._kernels import edm as K
from tests.naive_edm import (
    backtrack_naive,
    edm_dp_naive,
    edm_tail_naive,
    edmx_naive,
    tree_counts,
    tree_quantile_naive,
)


def random_series(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """Continuous, tie-heavy (few levels) or step data, already in [0, 1]."""
    if kind == "continuous":
        return rng.random(n)
    if kind == "ties":
        levels = int(rng.integers(2, 5))
        return rng.integers(0, levels, n).astype(float) / (levels - 1)
    step = np.repeat(rng.random(3), -(-n // 3))[:n] + 0.1 * rng.random(n)
    return (step - step.min()) / (step.max() - step.min())


def dp_cases(count: int, seed: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        delta = int(rng.integers(2, 7))
        # n around 2δ and beyond
        n = int(rng.choice([2 * delta - 1, 2 * delta, 2 * delta + 1, rng.integers(4, 61)]))
        kind = ("continuous", "ties", "step")[i % 3]
        z = random_series(rng, n, kind)
        percent_mode = bool(i % 2)
        penalty = float(
            rng.choice([0.0, 0.1, 0.25, 1.0] if percent_mode else [0.0, 0.001, 0.008, 0.05])
        )
        degree = int(rng.integers(0, 3))
        cases.append((z, delta, penalty, degree, percent_mode))
    return cases


@pytest.mark.parametrize(("z", "delta", "penalty", "degree", "percent_mode"), dp_cases(48, 1))
def test_dp_matches_naive(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool
) -> None:
    """F, prev and number equal the brute-force DP bit for bit (spec §10)."""
    got = K.edm_dp(z, delta, penalty, degree, percent_mode)
    ref = edm_dp_naive(z, delta, penalty, degree, percent_mode)
    for a, b in zip(got, ref, strict=True):
        assert np.array_equal(a, b)
    n = z.shape[0]
    assert list(K.backtrack(got[1], n)) == backtrack_naive(ref[1], n)


def run_columns(
    kernel: Any, z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool
) -> tuple[np.ndarray, ...]:
    n = z.shape[0]
    zz = K.padded_values(z, n)
    order = np.argsort(z, kind="stable").astype(np.int64)
    pred = K.insertion_predecessors(zz, order, n)
    F = np.full(n + 1, 0.0 if percent_mode else -3.0)
    prev = np.zeros(n + 1, dtype=np.int64)
    number = np.zeros(n + 1, dtype=np.int64)
    LM = np.zeros(n + 1)
    tmp = np.zeros(n + 1)
    nxt = np.zeros(n + 2, dtype=np.int64)
    prv = np.zeros(n + 2, dtype=np.int64)
    nxt[K.HEAD] = K.TAIL
    prv[K.TAIL] = K.HEAD
    state = np.zeros(2, dtype=np.int64)
    kernel(
        zz,
        (delta, penalty, degree, percent_mode),
        (F, prev, number, LM),
        tmp,
        (nxt, prv),
        state,
        pred,
        1,
        n + 1,
    )
    return F, prev, number, LM, nxt, prv, state


@pytest.mark.parametrize(("z", "delta", "penalty", "degree", "percent_mode"), dp_cases(12, 2))
def test_dp_kernel_twin(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool
) -> None:
    compiled = run_columns(K.edm_columns, z, delta, penalty, degree, percent_mode)
    python = run_columns(K.edm_columns.py_func, z, delta, penalty, degree, percent_mode)
    for a, b in zip(compiled, python, strict=True):
        assert np.array_equal(a, b)


def test_dp_walk_insertion_equals_batch() -> None:
    """Columns computed with walk-found predecessors (appends) equal the batch run."""
    rng = np.random.default_rng(5)
    for kind in ("continuous", "ties"):
        z = random_series(rng, 45, kind)
        batch = run_columns(K.edm_columns, z, 4, 0.01, 1, False)
        n = z.shape[0]
        zz = K.padded_values(z, n)
        pred = np.full(n + 2, -1, dtype=np.int64)
        F = np.full(n + 1, -3.0)
        prev = np.zeros(n + 1, dtype=np.int64)
        number = np.zeros(n + 1, dtype=np.int64)
        LM = np.zeros(n + 1)
        tmp = np.zeros(n + 1)
        nxt = np.zeros(n + 2, dtype=np.int64)
        prv = np.zeros(n + 2, dtype=np.int64)
        nxt[K.HEAD] = K.TAIL
        prv[K.TAIL] = K.HEAD
        state = np.zeros(2, dtype=np.int64)
        for s in range(1, n + 1):  # one column per call
            K.edm_columns(
                zz, (4, 0.01, 1, False), (F, prev, number, LM), tmp, (nxt, prv), state, pred,
                s, s + 1,
            )
        for a, b in zip(batch, (F, prev, number, LM, nxt, prv, state), strict=True):
            assert np.array_equal(a, b)


def edmx_cases(count: int, seed: int) -> list[tuple[np.ndarray, int]]:
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        delta = int(rng.integers(2, 7))
        n = int(rng.integers(2 * delta, 50))
        cases.append((random_series(rng, n, ("continuous", "ties", "step")[i % 3]), delta))
    return cases


@pytest.mark.parametrize(("z", "delta"), edmx_cases(24, 3))
def test_edmx_matches_naive_and_twin(z: np.ndarray, delta: int) -> None:
    n = z.shape[0]
    zz = K.padded_values(z, n)
    order = np.argsort(z, kind="stable").astype(np.int64)
    got = K.edmx_search(zz, order, n, delta)
    assert got == edmx_naive(z, delta)
    assert K.edmx_search.py_func(zz, order, n, delta) == got


@pytest.mark.parametrize(("z", "delta"), edmx_cases(12, 4))
def test_edm_tail_matches_naive_and_twin(z: np.ndarray, delta: int) -> None:
    z = z[: min(z.shape[0], 30)]
    if z.shape[0] < 2 * delta:
        z = np.r_[z, z][: 2 * delta]
    depth = K.tree_depth(z.shape[0])
    got = K.edm_tail_search(z, delta, depth, 0.5, 2.0)
    assert got == edm_tail_naive(z, delta, depth)
    assert K.edm_tail_search.py_func(z, delta, depth, 0.5, 2.0) == got


def test_edm_tail_other_quantile_and_alpha() -> None:
    rng = np.random.default_rng(9)
    z = random_series(rng, 24, "step")
    got = K.edm_tail_search(z, 4, 10, 0.3, 1.0)
    assert got == edm_tail_naive(z, 4, 10, 0.3, 1.0)


# ----------------------------------------------------------------------------------------
# Sorted linked list with median pointer (the order-statistic structure, spec §6.3)
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("twin", [False, True])
def test_list_median_random_insert_delete(seed: int, twin: bool) -> None:
    """Medians after random insert/delete sequences (with ties) equal numpy.median."""
    rng = np.random.default_rng(seed)
    n = 60
    values = rng.integers(0, 6, n).astype(float) if seed % 2 else rng.normal(size=n)
    zz = K.padded_values(values, n)
    unlink = K.unlink_track.py_func if twin else K.unlink_track
    relink = K.relink_track.py_func if twin else K.relink_track
    find = K.find_predecessor.py_func if twin else K.find_predecessor
    nxt = np.zeros(n + 2, dtype=np.int64)
    prv = np.zeros(n + 2, dtype=np.int64)
    nxt[K.HEAD] = K.TAIL
    prv[K.TAIL] = K.HEAD
    m, c = 0, 0
    present: list[int] = []
    for i in range(n):  # insert in index order, with random deletions in between
        node = i + 2
        p = find(zz, nxt, prv, node, m, c)
        prv[node] = p
        nxt[node] = nxt[p]
        m = relink(zz, nxt, prv, node, m, c)
        c += 1
        present.append(i)
        assert K.list_median(zz, nxt, m, c) == np.median(values[present])
        if c > 2 and rng.random() < 0.4:
            victim = present.pop(int(rng.integers(0, len(present))))
            m = unlink(zz, nxt, prv, victim + 2, m, c)
            c -= 1
            assert K.list_median(zz, nxt, m, c) == np.median(values[present])
    # list order is (value, index)
    order, node = [], nxt[K.HEAD]
    while node != K.TAIL:
        order.append(node - 2)
        node = nxt[node]
    assert order == sorted(present, key=lambda i: (values[i], i))


def test_deletions_undo_in_reverse_order() -> None:
    rng = np.random.default_rng(1)
    n = 40
    values = rng.integers(0, 5, n).astype(float)
    zz = K.padded_values(values, n)
    order = np.argsort(values, kind="stable").astype(np.int64)
    pred = K.insertion_predecessors(zz, order, n)
    nxt = np.zeros(n + 2, dtype=np.int64)
    prv = np.zeros(n + 2, dtype=np.int64)
    nxt[K.HEAD] = K.TAIL
    prv[K.TAIL] = K.HEAD
    m, c = 0, 0
    for i in range(n):
        node = i + 2
        prv[node] = pred[node]
        nxt[node] = nxt[pred[node]]
        m = K.relink_track(zz, nxt, prv, node, m, c)
        c += 1
    saved = (nxt.copy(), prv.copy(), m)
    mm, cc = m, c
    for i in range(30):
        mm = K.unlink_track(zz, nxt, prv, i + 2, mm, cc)
        cc -= 1
        assert K.list_median(zz, nxt, mm, cc) == np.median(values[i + 1 :])
    for i in range(29, -1, -1):
        mm = K.relink_track(zz, nxt, prv, i + 2, mm, cc)
        cc += 1
    assert np.array_equal(nxt, saved[0]) and np.array_equal(prv, saved[1]) and mm == saved[2]
    assert np.array_equal(
        K.insertion_predecessors.py_func(zz, order, n), K.insertion_predecessors(zz, order, n)
    )


# ----------------------------------------------------------------------------------------
# Interval tree (spec §5.3, CV-7)
# ----------------------------------------------------------------------------------------


class TestIntervalTreeAppendix:
    """CV-7: the paper's appendix example (golang/benchmarks stats/itree_test.go)."""

    inserts = (0.09, 0.42, 0.99, 0.36)
    ref_counts = (
        [1, 1, 0, 1, 0, 0, 0],
        [2, 2, 0, 1, 1, 0, 0],
        [3, 2, 1, 1, 1, 0, 1],
        [4, 3, 1, 1, 2, 0, 1],
    )
    ref_medians = (0.25, 0.125, 0.25, 0.375)

    @pytest.mark.parametrize("twin", [False, True])
    def test_counts_and_medians(self, twin: bool) -> None:
        update = K.tree_update.py_func if twin else K.tree_update
        quantile = K.tree_quantile.py_func if twin else K.tree_quantile
        tree = np.zeros(8, dtype=np.int64)
        assert quantile(tree, 2, 0.5) == 0.0  # empty tree: median 0
        for value, counts, median in zip(
            self.inserts, self.ref_counts, self.ref_medians, strict=True
        ):
            update(tree, 2, value, 1)
            assert list(tree[1:]) == counts
            assert quantile(tree, 2, 0.5) == median
        for value in self.inserts:  # deleting the same values returns every counter to 0
            update(tree, 2, value, -1)
        assert not tree.any()

    def test_single_zero(self) -> None:
        tree = np.zeros(8, dtype=np.int64)
        K.tree_update(tree, 2, 0.0, 1)
        assert K.tree_quantile(tree, 2, 0.5) == 0.25
        assert tree_quantile_naive([0.0], 2, 0.5) == 0.25


def test_tree_random_matches_naive_and_returns_to_zero() -> None:
    rng = np.random.default_rng(2)
    depth = 10
    tree = np.zeros(2 ** (depth + 1), dtype=np.int64)
    values = [*list(np.round(rng.random(300), 3)), 0.0, 1.0, 0.5]
    for v in values:
        K.tree_update(tree, depth, v, 1)
    assert list(tree[1:]) == tree_counts(values, depth)[1:]
    for q in (0.1, 0.25, 0.5, 0.9):
        assert K.tree_quantile(tree, depth, q) == tree_quantile_naive(values, depth, q)
    for v in values:
        K.tree_update(tree, depth, v, -1)
    assert not tree.any()


def test_tree_depth() -> None:
    assert K.tree_depth(1) == 10
    assert K.tree_depth(1024) == 10
    assert K.tree_depth(1025) == 11
    assert K.tree_depth(100_000) == 17


@pytest.mark.parametrize(("z", "delta", "penalty", "degree", "percent_mode"), dp_cases(16, 6))
@pytest.mark.parametrize("lanes", [2, 3])
def test_parallel_columns_identical_to_serial(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool, lanes: int
) -> None:
    """The parallel DP (column blocks of δ, one list copy per worker) equals the serial one."""
    serial = K.edm_dp(z, delta, penalty, degree, percent_mode)
    parallel = K.edm_dp(z, delta, penalty, degree, percent_mode, lanes)
    for a, b in zip(serial, parallel, strict=True):
        assert np.array_equal(a, b)


def test_parallel_kernel_twin_and_final_list() -> None:
    rng = np.random.default_rng(8)
    z = random_series(rng, 50, "ties")
    n = z.shape[0]
    serial = run_columns(K.edm_columns, z, 4, 0.1, 1, True)

    def run(kernel: Any) -> tuple[np.ndarray, ...]:
        zz = K.padded_values(z, n)
        order = np.argsort(z, kind="stable").astype(np.int64)
        pred = K.insertion_predecessors(zz, order, n)
        F = np.zeros(n + 1)
        prev = np.zeros(n + 1, dtype=np.int64)
        number = np.zeros(n + 1, dtype=np.int64)
        LM = np.zeros(n + 1)
        nxt = np.zeros(n + 2, dtype=np.int64)
        prv = np.zeros(n + 2, dtype=np.int64)
        nxt[K.HEAD] = K.TAIL
        prv[K.TAIL] = K.HEAD
        state = np.zeros(2, dtype=np.int64)
        kernel(zz, (4, 0.1, 1, True), (F, prev, number, LM), (nxt, prv), state, pred, 1, n + 1,
               2)
        return F, prev, number, LM, nxt, prv, state

    compiled = run(K.edm_columns_parallel)
    python = run(K.edm_columns_parallel.py_func)
    for a, b, c in zip(serial, compiled, python, strict=True):
        assert np.array_equal(a, b) and np.array_equal(b, c)


def test_parallel_switch_in_config() -> None:
    from pilotstats import _config
    from pilotstats.changepoints import edm

    rng = np.random.default_rng(12)
    x = rng.normal(size=120) + np.repeat([0.0, 2.0, 0.5], 40)
    serial = edm(x, min_size=10, beta=0.002)
    try:
        _config.EDM_PARALLEL = True
        parallel = edm(x, min_size=10, beta=0.002)
    finally:
        _config.reset()
    assert parallel == serial
    assert _config.EDM_PARALLEL is False


@pytest.mark.parametrize("seed", range(4))
def test_virtual_median(seed: int) -> None:
    """Median of the listed values plus one unlisted value equals numpy.median."""
    rng = np.random.default_rng(seed)
    n = 30
    values = rng.integers(0, 5, n).astype(float) if seed % 2 else rng.normal(size=n)
    zz = K.padded_values(values, n)
    nxt = np.zeros(n + 2, dtype=np.int64)
    prv = np.zeros(n + 2, dtype=np.int64)
    nxt[K.HEAD] = K.TAIL
    prv[K.TAIL] = K.HEAD
    m, c = 0, 0
    for i in range(n - 1):
        node = i + 2
        p = K.find_predecessor(zz, nxt, prv, node, m, c)
        prv[node], nxt[node] = p, nxt[p]
        m = K.relink_track(zz, nxt, prv, node, m, c)
        c += 1
        for v in (values[i + 1], -10.0, 10.0, values[0]):
            expected = np.median(np.r_[values[: i + 1], v])
            assert K.virtual_median(zz, nxt, prv, m, c, v) == expected
            assert K.virtual_median.py_func(zz, nxt, prv, m, c, v) == expected


class TestReferenceTreeAppendix:
    """CV-7 with the reference code's tree (spec §9: medians 0.25, 0.125, 0.28125, 0.375;
    one 0.0 gives 0.875)."""

    @pytest.mark.parametrize("twin", [False, True])
    def test_medians(self, twin: bool) -> None:
        update = K.reference_tree_update.py_func if twin else K.reference_tree_update
        quantile = K.reference_tree_quantile.py_func if twin else K.reference_tree_quantile
        tree = np.zeros(8, dtype=np.int64)
        medians = []
        for value in (0.09, 0.42, 0.99, 0.36):
            update(tree, 2, value, 1)
            medians.append(quantile(tree, 2, 0.5))
        assert medians == [0.25, 0.125, 0.28125, 0.375]
        zero = np.zeros(8, dtype=np.int64)
        update(zero, 2, 0.0, 1)
        assert quantile(zero, 2, 0.5) == 0.875
        assert list(zero[1:]) == [1, 0, 1, 0, 0, 0, 0]  # filed on the all-right path


def test_reference_tree_depth() -> None:
    assert K.reference_tree_depth(160) == 10
    assert K.reference_tree_depth(22026) == 10  # e^10 = 22026.47
    assert K.reference_tree_depth(22027) == 11


@pytest.mark.parametrize(("z", "delta"), edmx_cases(8, 7))
def test_reference_tail_twin(z: np.ndarray, delta: int) -> None:
    depth = K.reference_tree_depth(z.shape[0])
    compiled = K.edm_tail_search_reference(z, delta, depth, 0.5, 2.0)
    python = K.edm_tail_search_reference.py_func(z, delta, depth, 0.5, 2.0)
    assert compiled == python


# EDM-tail with exact τ pruning: the pruned search returns exactly the statistic and location of
# the full sweep over every (τ, κ), and its pieces match the naive window sets. The full sweep
# is rebuilt here from the kernel's two pieces, evaluated for every τ in increasing order with
# the reference's strict ">" (smallest τ wins).
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
