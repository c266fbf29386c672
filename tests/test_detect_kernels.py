"""Kernels of the rank test of ``detect_changes`` (``pilotstats/_kernels/detect.py``).

Each kernel is compared with its pure-Python twin (``kernel.py_func``) and with the NumPy /
SciPy statement it replaces, bit for bit: the kernels repeat NumPy's floating-point
operations in NumPy's order, so ``detect_changes`` gives the same locations, statistics and
p-values with and without them.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import ndimage, stats

from pilotstats import _config
from pilotstats._kernels import detect as kd
from pilotstats.changepoints import _detect_scan as scan_module


def _series(seed: int, n: int) -> np.ndarray:
    """Assorted shapes: noise, a step, heavy ties, spikes, a change of scale."""
    rng = np.random.default_rng(seed)
    kind = seed % 5
    x = rng.standard_normal(n)
    if kind == 1:
        x[n // 3 :] += 1.5
    elif kind == 2:
        x = np.round(x + (np.arange(n) > n // 2))
    elif kind == 3:
        x[rng.integers(0, n, 3)] += 40.0
    elif kind == 4:
        x[n // 2 :] *= 3.0
    return x * 10.0 ** rng.uniform(-3.0, 3.0)


# ------------------------------------------------------------------------------------------
# NumPy statements of the kernels (the implementation they replaced), as references
# ------------------------------------------------------------------------------------------


def numpy_rank_scan(window: np.ndarray, min_size: int, inflation: float) -> tuple[int, float]:
    length = window.shape[0]
    ranks = stats.rankdata(window)
    sizes = np.unique(window, return_counts=True)[1].astype(np.float64)
    ties = float(np.sum(sizes**3 - sizes))
    splits = np.arange(min_size, length - min_size + 1, dtype=np.float64)
    partial = np.cumsum(ranks)[splits.astype(np.int64) - 1]
    spread = (length + 1) - ties / (length * (length - 1.0))
    variance = splits * (length - splits) / 12.0 * spread * inflation
    if not spread > 0.0:
        return min_size, 0.0
    deviation = np.maximum(np.abs(partial - splits * (length + 1) / 2.0) - 0.5, 0.0)
    z = deviation / np.sqrt(variance)
    best = int(np.argmax(z))
    return int(splits[best]), float(z[best])


def numpy_clipped_sides(window: np.ndarray, provisional: int) -> np.ndarray:
    values = window.copy()
    for lo, hi in ((0, provisional), (provisional, window.shape[0])):
        side = window[lo:hi]
        centre = float(np.median(side))
        spread = 1.4826 * float(np.median(np.abs(side - centre)))
        if spread > 0.0:
            values[lo:hi] = np.clip(side, centre - 4.0 * spread, centre + 4.0 * spread)
    return values


def numpy_posterior_location(window: np.ndarray, min_size: int, tolerance: int) -> int:
    length = window.shape[0]
    provisional = numpy_rank_scan(window, min_size, 1.0)[0]
    values = numpy_clipped_sides(window, provisional)
    centred = values - values.mean()
    splits = np.arange(min_size, length - min_size + 1)
    partial = np.cumsum(centred)[splits - 1]
    total = float(np.dot(centred, centred))
    rss = total - partial**2 * length / (splits * (length - splits).astype(np.float64))
    best = int(np.argmin(rss))
    if best in (0, splits.shape[0] - 1):
        return int(splits[best])
    steps = np.diff(centred)
    noise = min(
        float(rss[best]) / max(length - 2, 1),
        float(np.dot(steps, steps)) / (2.0 * max(steps.shape[0], 1)),
    )
    if not noise > 0.0:
        return int(splits[best])
    weights = np.exp(-(rss - rss[best]) / (2.0 * noise))
    cumulative = np.concatenate(([0.0], np.cumsum(weights)))
    index = np.arange(splits.shape[0])
    mass = (
        cumulative[np.minimum(index + tolerance + 1, splits.shape[0])]
        - cumulative[np.maximum(index - tolerance, 0)]
    )
    tied = np.flatnonzero(mass >= mass.max() * (1.0 - 1e-9))
    return int(splits[int(tied[int(np.argmin(np.abs(tied - best)))])])


def numpy_rank_lag1(residual: np.ndarray) -> float:
    n = residual.shape[0]
    if n < 3:
        return 0.0
    centred = stats.rankdata(residual) - (n + 1) / 2.0
    denominator = float(np.dot(centred, centred))
    if denominator == 0.0:
        return 0.0
    return float(np.dot(centred[:-1], centred[1:]) / denominator)


# ------------------------------------------------------------------------------------------
# tests
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("twin", [False, True])
def test_sort_order_and_median(twin: bool) -> None:
    order = kd.sort_order.py_func if twin else kd.sort_order
    median = kd.median.py_func if twin else kd.median
    rng = np.random.default_rng(4)
    for digits, n in itertools.product((0, 6), (1, 2, 3, 8, 77, 256)):
        v = np.round(rng.standard_normal(n), digits)
        np.testing.assert_array_equal(order(v), np.argsort(v, kind="stable"))
        assert median(v) == np.median(v)
    assert str(median(np.array([-0.0, -0.0]))) == str(np.median(np.array([-0.0, -0.0])))


@pytest.mark.parametrize("twin", [False, True])
def test_midranks_and_tie_sum(twin: bool) -> None:
    function = kd.midranks.py_func if twin else kd.midranks
    rng = np.random.default_rng(2)
    for digits, n in itertools.product((0, 1, 5), (1, 2, 7, 60, 301)):
        v = np.round(rng.standard_normal(n) * 3.0, digits)
        ranks, ties = function(v)
        np.testing.assert_array_equal(ranks, stats.rankdata(v))
        sizes = np.unique(v, return_counts=True)[1].astype(np.float64)
        assert ties == float(np.sum(sizes**3 - sizes))


@pytest.mark.parametrize("seed", range(10))
def test_rank_scan_twin_and_numpy(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    x = _series(seed, int(rng.integers(8, 400)))
    delta = int(rng.integers(2, x.size // 2 + 1))
    inflation = float(rng.choice([1.0, 2.7]))
    args = (x, 0, x.size, delta, inflation, 1.0, False)
    compiled = kd.window_scans(*args)
    assert compiled == kd.window_scans.py_func(*args)
    assert compiled == (*numpy_rank_scan(x, delta, inflation), delta, 0.0)
    assert kd.window_scans(np.full(12, 3.0), 0, 12, 3, 1.0, 1.0, True) == (3, 0.0, 3, 0.0)


@pytest.mark.parametrize("seed", range(6))
def test_window_scans_are_the_scans_of_the_window_and_its_steps(seed: int) -> None:
    x = _series(seed, 300)
    start, end, delta = 17, 260, 30
    window = x[start:end]
    steps = np.abs(np.diff(window))
    steps = np.concatenate((steps[:1], steps))
    expected = (*numpy_rank_scan(window, delta, 1.5), *numpy_rank_scan(steps, delta, 2.0))
    assert kd.window_scans(x, start, end, delta, 1.5, 2.0, True) == expected
    assert kd.window_scans.py_func(x, start, end, delta, 1.5, 2.0, True) == expected
    assert kd.window_scans(x, start, end, delta, 1.5, 2.0, False) == (*expected[:2], delta, 0.0)
    np.testing.assert_array_equal(kd.absolute_steps(window), steps)
    np.testing.assert_array_equal(kd.absolute_steps.py_func(window), steps)
    assert kd.absolute_steps(window[:1]).shape == (0,)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("tolerance", [0, 10])
def test_posterior_location_twin_and_numpy(seed: int, tolerance: int) -> None:
    assert _config.DETECT_LOCATION_CLIP == 4.0  # the clip of numpy_posterior_location
    rng = np.random.default_rng(200 + seed)
    x = _series(seed, int(rng.integers(60, 700)))
    delta = int(rng.choice([5, 10, 30]))
    start = int(rng.integers(0, 10))
    end = x.size - int(rng.integers(0, 10))
    steps = bool(seed % 2)
    window = x[start:end]
    if steps:
        window = kd.absolute_steps(window)
    expected = numpy_posterior_location(window, delta, tolerance)
    provisional = numpy_rank_scan(window, delta, 1.0)[0]
    window = np.ascontiguousarray(window)
    values = kd.clipped_sides(window, provisional, 4.0)
    np.testing.assert_array_equal(values, kd.clipped_sides.py_func(window, provisional, 4.0))
    np.testing.assert_array_equal(values, numpy_clipped_sides(window, provisional))
    args = (values, values.mean(), delta, tolerance)
    assert kd.posterior_location(*args) == expected
    assert kd.posterior_location.py_func(*args) == expected
    assert scan_module._posterior_location(x, start, end, delta, tolerance, steps) == (
        start + expected
    )


@pytest.mark.parametrize("twin", [False, True])
def test_running_median_residuals(twin: bool) -> None:
    function = kd.residual_rank_lag1.py_func if twin else kd.residual_rank_lag1
    rng = np.random.default_rng(3)
    empty = np.zeros(0, dtype=np.int64)
    for n, width in [(1, 3), (2, 31), (5, 3), (40, 7), (200, 31), (257, 61), (30, 101)]:
        for digits in (0, 8):
            x = np.round(rng.standard_normal(n), digits)
            residual = x - ndimage.median_filter(x, size=width, mode="nearest")
            assert function(x, width, empty) == numpy_rank_lag1(residual)
    assert function(np.zeros(9), 3, empty) == 0.0  # all tied


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("twin", [False, True])
def test_segment_residuals(seed: int, twin: bool) -> None:
    function = kd.residual_rank_lag1.py_func if twin else kd.residual_rank_lag1
    x = _series(seed, 500)
    bounds = np.array([0, 120, 121 + seed, 500], dtype=np.int64)
    residual = x.copy()
    for left, right in itertools.pairwise(bounds):
        residual[left:right] -= np.median(x[left:right])
    assert function(x, 1, bounds) == numpy_rank_lag1(residual)
    whole = np.array([0, 500], dtype=np.int64)
    assert function(x, 1, whole) == numpy_rank_lag1(x - np.median(x))
