"""CSIT-like trend series for the MDL benchmarks (bounded-history agreement).

FD.io CSIT trending series: one throughput value per test run (Mpps), a stable level
for long stretches with 0.5–5 % run-to-run noise (sometimes heavy-tailed), occasional
regressions and progressions of a few per cent (some reverted after a few runs), failed
runs (0) and dips, and now and then a slow drift. The recipe is deterministic per seed.
"""

from __future__ import annotations

import numpy as np

__all__ = ["csit_like"]


def csit_like(n: int, seed: int) -> np.ndarray:
    """One CSIT-like series of ``n`` runs (positive values, failed runs at 0)."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(5.0, 30.0)
    cv = rng.uniform(0.005, 0.05)
    heavy = rng.random() < 0.3
    noise = rng.standard_t(3, n) / np.sqrt(3.0) if heavy else rng.standard_normal(n)
    levels = np.empty(n)
    at = 0
    current = level
    while at < n:  # stable stretches of mean length 400 runs between changes
        length = int(rng.geometric(1.0 / 400.0))
        levels[at : at + length] = current
        at += length
        step = rng.choice([-1.0, 1.0]) * rng.uniform(0.02, 0.15)
        current = max(0.2 * level, current * (1.0 + step))
    for _ in range(rng.poisson(n / 2000.0)):  # transient regressions, reverted
        start = int(rng.integers(0, n))
        levels[start : start + int(rng.integers(1, 20))] *= 1.0 - rng.uniform(0.03, 0.2)
    if rng.random() < 0.2:  # a slow drift of a few per cent
        start = int(rng.integers(0, n))
        stop = min(n, start + int(rng.integers(200, 2000)))
        levels[start:stop] *= 1.0 + np.linspace(0.0, rng.uniform(-0.05, 0.05), stop - start)
        levels[stop:] *= 1.0 + (levels[stop - 1] / levels[stop - 1] - 1.0)
    x = levels * (1.0 + cv * noise)
    failed = rng.random(n) < 0.002
    x[failed] = 0.0
    dips = rng.random(n) < 0.003
    x[dips] *= rng.uniform(0.5, 0.9, int(dips.sum()))
    return np.maximum(x, 0.0)
