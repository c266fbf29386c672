"""Vectorised twins (fresh processes): numpy functions with the kernels' results
bit for bit, run while a kernel is not compiled, and the background compilation that
replaces them in long runs (``pilotstats/_kernels/_jit.py``, ``detect_numpy.py``,
``edm_numpy.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pilotstats import _config
from pilotstats._kernels import _jit
from pilotstats._kernels import detect as kd
from pilotstats._kernels import detect_numpy as vd
from pilotstats._kernels import edm_dp as kdp
from pilotstats._kernels._jit import LazyKernel, numba_available
from pilotstats._kernels.edm_numpy import edm_dp_numpy, edm_dp_tiered
from pilotstats.changepoints import detect_changes, edm

ROOT = Path(__file__).resolve().parents[1]


def _series(rng: np.random.Generator, n: int, kind: int) -> np.ndarray:
    if kind == 0:
        return rng.standard_normal(n)
    if kind == 1:  # heavy ties
        return rng.integers(0, 4, n).astype(np.float64)
    if kind == 2:
        return np.concatenate([rng.normal(0.0, 1.0, n // 3), rng.normal(2.0, 1.0, n - n // 3)])
    if kind == 3:
        return np.round(rng.standard_cauchy(n), 1)
    x = np.zeros(n)
    x[n // 2:] = 1.0
    return x


def test_edm_programme_in_numpy_equals_the_kernel() -> None:
    rng = np.random.default_rng(26)
    settings = ((True, 0.25, 1), (False, 0.008, 1), (False, 0.5, 2), (True, 0.1, 0),
                (False, 0.0, 0), (True, 0.05, 2))
    for trial in range(60):
        n = int(rng.integers(4, 260))
        delta = int(rng.integers(2, max(3, n // 3)))
        z = _series(rng, n, trial % 5)
        for percent_mode, penalty, degree in settings:
            expected = kdp.edm_dp(z, delta, penalty, degree, percent_mode)
            got = edm_dp_numpy(z, delta, penalty, degree, percent_mode)
            for a, b in zip(expected, got, strict=True):
                assert a.dtype == b.dtype and np.array_equal(a, b), (n, delta, percent_mode)


def _same(a: object, b: object) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
                and np.array_equal(np.signbit(a), np.signbit(b)))
    return bool(a == b)


def test_detect_kernels_in_numpy_equal_the_kernels() -> None:
    rng = np.random.default_rng(11)
    no_bounds = np.zeros(0, dtype=np.int64)
    for trial in range(120):
        n = int(rng.integers(4, 500))
        x = _series(rng, n, trial % 5)
        d = int(rng.integers(2, max(3, n // 2)))
        assert _same(kd.midranks.compiled()(x), vd.midranks(x))
        assert _same(kd.absolute_steps.compiled()(x), vd.absolute_steps(x))
        for width in (1, 3, 31):
            assert (kd.residual_rank_lag1.compiled()(x, width, no_bounds)
                    == vd.residual_rank_lag1(x, width, no_bounds))
        bounds = np.array(sorted({0, n, *rng.integers(1, n, 3).tolist()}), dtype=np.int64)
        assert kd.residual_rank_lag1.compiled()(x, 1, bounds) == vd.residual_rank_lag1(
            x, 1, bounds)
        if n < 2 * d:
            continue
        for steps in (False, True):
            assert _same(kd.window_scans.compiled()(x, 0, n, d, 1.3, 1.7, steps),
                         vd.window_scans(x, 0, n, d, 1.3, 1.7, steps))
        split = int(rng.integers(d, n - d + 1))
        clipped = kd.clipped_sides.compiled()(x, split, 4.0)
        assert _same(clipped, vd.clipped_sides(x, split, 4.0))
        for tolerance in (0, 5, 10):
            assert (kd.posterior_location.compiled()(clipped, clipped.mean(), d, tolerance)
                    == vd.posterior_location(clipped, clipped.mean(), d, tolerance))


# --- the dispatcher ---------------------------------------------------------------------


@pytest.fixture
def tier_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not numba_available():
        pytest.skip("the JIT is disabled: every kernel runs as plain Python")
    monkeypatch.setattr(_config, "INTERPRETED_TIER", True)
    monkeypatch.setattr(_jit, "_interpreted_total", 0.0)
    monkeypatch.setattr(_config, "INTERPRETED_KERNEL_BUDGET", 0.5)
    monkeypatch.setattr(_config, "INTERPRETED_TIER_BUDGET", 2.0)
    yield


def _total(x: np.ndarray) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def _total_numpy(x: np.ndarray) -> float:
    return float(np.cumsum(x)[-1])  # sequential, as the loop


def test_vectorised_twin_answers_until_the_budget_then_compiles_in_background(
    tier_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    total = LazyKernel(_total, interpret="linear", vectorised=_total_numpy)
    x = np.arange(50_000.0)  # above the interpreted limit: the twin still answers
    assert total(x) == _total(x)
    assert total._compiled is None and total._background is None
    assert total.interpreted_seconds > 0.0
    # budget spent, but the rent since is below the budget again: no waiting
    monkeypatch.setattr(_config, "INTERPRETED_KERNEL_BUDGET", 0.75 * total.interpreted_seconds)
    monkeypatch.setattr(_config, "INTERPRETED_TIER_BUDGET", 1e9)
    assert total(x) == _total(x)  # answered by the twin while the compiler runs
    thread = total._background
    assert thread is not None
    # the rent reaches twice the budget: the next call waits for the compiler
    monkeypatch.setattr(_config, "INTERPRETED_KERNEL_BUDGET", 0.0)
    assert total(x) == _total(x)
    assert not thread.is_alive() and total._ready and total._compiled is not None
    assert total(x) == _total(x)


def test_vectorised_twin_is_not_used_with_the_tier_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_config, "INTERPRETED_TIER", False)
    total = LazyKernel(_total, vectorised=_total_numpy)
    assert total(np.arange(10.0)) == 45.0
    assert total._compiled is not None and total.interpreted_seconds == 0.0


def test_edm_tier_answers_short_series_only(tier_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    z = np.random.default_rng(3).standard_normal(120)
    expected = kdp.edm_dp(z, 10, 0.25, 1, True)
    monkeypatch.setattr(_config, "EDM_VECTORISED_MAX_POINTS", 100)
    assert not kdp.edm_columns.rents(120, 100, lambda: ())
    monkeypatch.setattr(_config, "EDM_VECTORISED_MAX_POINTS", 200)
    for a, b in zip(expected, edm_dp_tiered(z, 10, 0.25, 1, True), strict=True):
        assert np.array_equal(a, b)


# --- fresh processes --------------------------------------------------------------------

_FRESH = """
import json, sys
import numpy as np
from pilotstats.changepoints import detect_changes, edm
out = []
for n in (1000, 3000, 1000):
    x = np.random.default_rng(n).standard_normal(n)
    x[n // 2:] += 0.5
    out.append(detect_changes(x).to_dict())
out.append(edm(np.random.default_rng(5).standard_normal(1000)).to_dict())
print(json.dumps({"results": out, "modules": sorted(
    m for m in sys.modules if m.split(".")[0] in ("numba", "scipy", "llvmlite"))}))
"""


def test_fresh_process_needs_no_numba_and_gives_the_compiled_results() -> None:
    """A fresh process with an empty numba cache runs detect_changes (1,000 and 3,000
    points) and edm (1,000) without importing numba or scipy, with the results of the
    compiled kernels."""
    env = dict(os.environ, PILOTSTATS_INTERPRETED_TIER="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PILOTSTATS_DISABLE_JIT", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        out = subprocess.run([sys.executable, "-c", _FRESH], env=env, check=True,
                             capture_output=True, text=True).stdout
    fresh = json.loads(out)
    assert fresh["modules"] == []
    expected = []
    for n in (1000, 3000, 1000):
        x = np.random.default_rng(n).standard_normal(n)
        x[n // 2:] += 0.5
        expected.append(detect_changes(x).to_dict())
    expected.append(edm(np.random.default_rng(5).standard_normal(1000)).to_dict())
    assert fresh["results"] == json.loads(json.dumps(expected))


def _double_py(x: np.ndarray) -> np.ndarray:
    return x * 2.0


def _double_numpy(x: np.ndarray) -> np.ndarray:
    return np.multiply(x, 2.0)


_double = LazyKernel(_double_py, python_entry=True, vectorised=_double_numpy)


def _sum_doubled_py(x: np.ndarray) -> float:
    return float(_double(x[1:]).sum())


def test_dispatcher_published_by_a_caller_is_not_used_before_it_is_ready(
    tier_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building a kernel that calls a python_entry kernel publishes the latter's
    dispatcher before it has code for Python's calls; until then calls run the twin, so
    they never stop to compile."""
    outer = LazyKernel(_sum_doubled_py)
    assert outer.compiled()(np.arange(4.0)) == 12.0  # builds and compiles _double nested
    assert _double._compiled is not None and not _double._ready
    spent = _double.interpreted_seconds
    assert np.array_equal(_double(np.arange(3.0)), [0.0, 2.0, 4.0])
    assert _double.interpreted_seconds > spent  # the vectorised twin answered
    monkeypatch.setattr(_config, "INTERPRETED_KERNEL_BUDGET", 0.0)
    _double(np.arange(3.0))
    thread = _double._background
    assert thread is not None
    thread.join(120)
    assert _double._ready
    assert np.array_equal(_double(np.arange(3.0)), [0.0, 2.0, 4.0])


def test_extreme_inputs_give_the_compiled_results_without_warnings(
    tier_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values near the float64 limits, tiny values, ties and spikes: the vectorised twins
    give the compiled results and, like them, no RuntimeWarning (warnings are errors in the
    test suite)."""
    rng = np.random.default_rng(0)
    cases = [
        np.full(100, 1e308),
        np.concatenate([np.full(60, -8e307), np.full(60, 8e307)]),
        rng.standard_normal(200) * 1e-308,
        np.r_[np.zeros(100), np.ones(100)],
        rng.standard_normal(200) * 1e300,
        np.arange(500.0) ** 3,
        rng.integers(0, 2, 400).astype(np.float64),
        np.r_[rng.standard_normal(100), 1e307, rng.standard_normal(100)],
    ]

    def results() -> list[object]:
        return [
            (detect_changes(x).to_dict(), edm(x).to_dict(), edm(x, percent=0.1).to_dict())
            for x in cases
        ]

    vectorised = results()
    monkeypatch.setattr(_config, "INTERPRETED_TIER", False)
    assert json.dumps(vectorised, sort_keys=True) == json.dumps(results(), sort_keys=True)
