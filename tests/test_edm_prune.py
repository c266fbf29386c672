"""EDM-multi / EDM-percent with exact pruning (``pilotstats._kernels.edm_prune``): the same
F, prev and number as the plain sweep bit for bit, valid bounds (brute force), the wavelet
matrix's order statistics (``pilotstats._kernels.order_statistics``), and the public
``edm`` across the size threshold."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pilotstats import _config
from pilotstats._kernels import edm_prune as P
from pilotstats._kernels import order_statistics as O
from pilotstats._kernels.edm_dp import edm_dp, penalty_factor
from pilotstats.changepoints import edm


def series(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """Scaled test series: noise, ties, many or few large shifts, a trend, spikes."""
    if kind == "noise":
        x = rng.random(n)
    elif kind == "ties":
        x = rng.integers(0, 4, n).astype(float)
    elif kind == "shifts":
        x = np.repeat(rng.normal(0.0, 3.0, 12), -(-n // 12))[:n] + rng.normal(size=n)
    elif kind == "few_shifts":
        x = np.repeat(rng.normal(0.0, 3.0, 3), -(-n // 3))[:n] + rng.normal(size=n)
    elif kind == "trend":
        x = np.arange(n) / n + rng.normal(0.0, 0.3, n)
    else:
        x = rng.normal(size=n)
        x[rng.integers(0, n, max(2, n // 100))] += 10.0
    scaled: np.ndarray = (x - x.min()) / (x.max() - x.min())
    return scaled


KINDS = ("noise", "ties", "shifts", "few_shifts", "trend", "spikes")
#: (band in multiples of delta, spread, fallback): every path of the search is taken
#: (tiles skipped whole, halved down to single candidates, columns that give up and sweep,
#: strips swept after a strip where nothing could be skipped).
TUNINGS = ((1, 1, 1), (1, 2, 1000), (2, 4, 16), (8, 16, 16), (1, 16, 4))


def cases(count: int, seed: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        delta = int(rng.choice([2, 3, 5, 8, 30]))
        n = int(rng.integers(4 * delta, 8 * delta + 100))
        percent_mode = bool(i % 3 == 2)
        penalty = float(
            rng.choice([0.0, 0.1, 0.25]) if percent_mode else rng.choice([0.0, 0.001, 0.008])
        )
        out.append(
            (series(rng, n, KINDS[i % len(KINDS)]), delta, penalty, int(rng.integers(0, 3)),
             percent_mode, TUNINGS[i % len(TUNINGS)])
        )
    return out


@pytest.mark.parametrize(("z", "delta", "penalty", "degree", "percent_mode", "tuning"),
                         cases(30, 11))
def test_pruned_equals_sweep(
    z: np.ndarray, delta: int, penalty: float, degree: int, percent_mode: bool,
    tuning: tuple[int, int, int],
) -> None:
    """F, prev and number equal the plain programme's bit for bit (spec §3.2)."""
    got = P.edm_dp_pruned(z, delta, penalty, degree, percent_mode, tuning)
    ref = edm_dp(z, delta, penalty, degree, percent_mode)
    for a, b in zip(got, ref, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_pruned_equals_sweep_long(kind: str) -> None:
    """The same on 6,000 points with the default tuning (the public path's sizes)."""
    z = series(np.random.default_rng(3), 6000, kind)
    for a, b in zip(P.edm_dp_pruned(z, 30, 0.008, 1, False), edm_dp(z, 30, 0.008, 1, False),
                    strict=True):
        assert np.array_equal(a, b)


def test_kernel_twin_and_sweep_count() -> None:
    """The compiled kernel and its pure-Python twin agree, also on the columns swept."""
    rng = np.random.default_rng(5)
    for kind in ("noise", "shifts"):
        z = series(rng, 260, kind)
        results = []
        for run in (P.edm_columns_pruned, P.edm_columns_pruned.py_func):
            n = z.shape[0]
            dp = (np.full(n + 1, -3.0), np.zeros(n + 1, dtype=np.int64),
                  np.zeros(n + 1, dtype=np.int64))
            zz, pred, wavelet = P.prepared(z)
            swept = run(zz, (5, 0.008, 1, False), dp, pred, wavelet, P.new_blocks(n), (5, 4, 16))
            results.append((swept, *dp))
        assert results[0][0] == results[1][0]
        for a, b in zip(results[0][1:], results[1][1:], strict=True):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", range(4))
def test_wavelet_order_statistics(seed: int) -> None:
    """Every k-th smallest of random windows equals sorting (ties included)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    z = rng.integers(0, 7, n).astype(float) if seed % 2 else rng.random(n)
    wavelet = P.prepared(z)[2]
    zeros_before, zeros, values = wavelet
    for _ in range(200):
        lo, hi = sorted(int(v) for v in rng.integers(0, n + 1, 2))
        if lo == hi:
            continue
        window = np.sort(z[lo:hi])
        k = int(rng.integers(0, hi - lo))
        assert values[O.wavelet_kth(zeros_before, zeros, lo, hi, k)] == window[k]
        c = hi - lo
        expected = window[c // 2] if c % 2 else (window[c // 2 - 1] + window[c // 2]) / 2.0
        assert O.window_median(wavelet, lo, hi) == expected


@pytest.mark.parametrize("kind", KINDS)
def test_block_bound_holds(kind: str) -> None:
    """No candidate of a block exceeds its bound in any column of the strip (brute force
    medians and weights over the final DP state)."""
    rng = np.random.default_rng(len(kind))
    z = series(rng, 400, kind)
    delta, penalty, degree = 5, 0.004, 2
    F, prev, number = edm_dp(z, delta, penalty, degree, False)
    n = z.shape[0]
    LM = np.array([np.median(z[prev[t]:t]) if t >= delta else 0.0 for t in range(n + 1)])
    blocks = P.new_blocks(n)
    for t in range(delta, n + 1):
        gain = F[t] - penalty * penalty_factor(degree, int(number[t]))
        P.block_update(blocks, t, gain, LM[t], t - prev[t])
    _, _, wavelet = P.prepared(z)
    for _ in range(150):
        k = int(rng.integers(0, 6))
        start = int(rng.integers(0, n - (1 << k) - 2 * delta)) >> k << k
        end = start + (1 << k)
        if end <= delta:
            continue
        s0 = int(rng.integers(end + delta, n + 1))
        s1 = min(n + 1, s0 + int(rng.integers(1, delta + 1)))
        bound = P.block_bound(blocks, wavelet, delta, k, start, s0, s1)
        for s in range(s0, s1):
            for t in range(max(delta, start), end):
                a = prev[t]
                w = (t - a) * (s - t) / (s - a) ** 2
                d = LM[t] - np.median(z[t:s])
                cand = F[t] + w * d * d - penalty * penalty_factor(degree, int(number[t]))
                assert cand <= bound


def test_public_edm_across_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """``edm`` gives the same locations through the pruned programme as through the sweep."""
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.normal(0, 1, 700), rng.normal(4, 1, 500), rng.normal(1, 1, 400)])
    monkeypatch.setattr(_config, "EDM_VECTORISED_MAX_POINTS", 0)
    monkeypatch.setattr(_config, "EDM_PRUNE_MIN_POINTS", 10**9)
    swept = edm(x, beta=0.002)
    monkeypatch.setattr(_config, "EDM_PRUNE_MIN_POINTS", 100)
    pruned = edm(x, beta=0.002)
    assert pruned.locations == swept.locations
    assert len(pruned.locations) >= 2
