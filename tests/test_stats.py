"""``pilotstats._stats``: normal_cdf equals scipy.special.ndtr bit for bit (detect_changes
and edm do not import scipy; their p-values must not move), and ceil_tol."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
from scipy import special

from pilotstats._stats import ceil_tol, normal_cdf


def test_normal_cdf_equals_scipy_bit_for_bit() -> None:
    rng = np.random.default_rng(2026)
    edges = [0.0, -0.0, 1.0, -1.0, math.sqrt(2.0), -math.sqrt(2.0), 8.0 * math.sqrt(2.0),
             -8.0 * math.sqrt(2.0), 37.5, -37.5, 38.5, -38.5, 1e-300, -1e-300, 5e-324,
             math.inf, -math.inf, np.nextafter(math.sqrt(2.0), 0.0),
             np.nextafter(-math.sqrt(2.0), 0.0)]
    xs = np.concatenate([
        rng.uniform(-40.0, 40.0, 100_000), rng.uniform(-10.0, 10.0, 100_000),
        rng.normal(0.0, 2.0, 100_000), rng.uniform(-1.5, 1.5, 50_000), np.array(edges),
    ])
    expected = special.ndtr(xs)
    got = np.array([normal_cdf(v) for v in xs])
    assert np.array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    assert math.isnan(normal_cdf(math.nan))


def test_detectors_import_no_scipy() -> None:
    code = (
        "import sys, numpy as np\n"
        "from pilotstats.changepoints import detect_changes, edm\n"
        "x = np.random.default_rng(1).standard_normal(300)\n"
        "x[150:] += 3.0\n"
        "assert detect_changes(x).locations\n"
        "edm(x)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'numba')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=_env()).stdout
    assert out.strip() == "[]"


def _env() -> dict[str, str]:
    import os
    from pathlib import Path

    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["PILOTSTATS_INTERPRETED_TIER"] = "1"
    env.pop("PILOTSTATS_DISABLE_JIT", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def test_ceil_tol() -> None:
    assert ceil_tol(65.0000000001) == 65
    assert ceil_tol(65.001) == 66
    assert ceil_tol(4.0) == 4
    assert ceil_tol(0.0) == 0
