"""Cross-check against the PyPI port ``breakout-detection`` (module ``breakout``), which runs
the reference C++ of ``twitter/BreakoutDetection``: 200 random series with random min_size,
beta or percent and degree must give identical locations (spec §10).

Skipped with a reason when the port is not installed (it is in the ``test``/``bench``
extras) or when the kernels run as plain Python (``PILOTSTATS_DISABLE_JIT=1``), where the
same code paths are covered by the naive-reference tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pilotstats._kernels._jit import numba_available
from pilotstats.changepoints import edm, edm_single

breakout = pytest.importorskip(
    "breakout", reason="the PyPI port breakout-detection is not installed"
)
pytestmark = pytest.mark.skipif(
    not numba_available(), reason="pure-Python kernels: covered by the naive-reference tests"
)


def random_case(rng: np.random.Generator) -> tuple[np.ndarray, dict[str, Any]]:
    n = int(rng.integers(8, 260))
    min_size = int(rng.integers(2, max(3, n // 3)))
    kind = rng.integers(0, 4)
    x = rng.normal(size=n)
    if kind == 1:  # level shifts
        x += np.repeat(rng.normal(0, 2, 4), -(-n // 4))[:n]
    elif kind == 2:  # ties (quantised data)
        x = np.round(x * 2.0)
    elif kind == 3:  # warm-up with outliers
        x += 3.0 * np.exp(-np.arange(n) / 20.0)
        x[rng.integers(0, n, 3)] += 10.0
    params: dict[str, Any] = {"min_size": min_size, "degree": int(rng.integers(0, 3))}
    if rng.random() < 0.5:
        params["beta"] = float(rng.choice([0.0, 0.001, 0.002, 0.008, 0.02, 0.1]))
    else:
        params["percent"] = float(rng.choice([0.0, 0.05, 0.25, 0.5, 1.0]))
    return x, params


CASES = [random_case(np.random.default_rng([2026, i])) for i in range(200)]


@pytest.mark.parametrize(("x", "params"), CASES)
def test_edm_equals_port(x: np.ndarray, params: dict[str, Any]) -> None:
    expected = breakout.breakout(x.tolist(), method="multi", **params)
    assert list(edm(x, **params).locations) == expected


@pytest.mark.parametrize(("x", "params"), CASES[:60])
def test_edm_x_equals_port(x: np.ndarray, params: dict[str, Any]) -> None:
    min_size = params["min_size"]
    expected = breakout.breakout(x.tolist(), method="amoc", min_size=min_size)
    result = edm_single(x, min_size=min_size)
    assert list(result.locations) == expected


@pytest.mark.parametrize(("x", "params"), CASES[60:160])
def test_edm_tail_reference_tree_equals_port(x: np.ndarray, params: dict[str, Any]) -> None:
    """``tree="reference"`` reproduces the port's EDM-tail locations (spec §5.5 [R])."""
    min_size = params["min_size"]
    expected = breakout.breakout(x.tolist(), method="amoc", exact=False, min_size=min_size)
    result = edm_single(x, min_size=min_size, exact=False, tree="reference")
    assert list(result.locations) == expected
