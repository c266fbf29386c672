"""Brute-force restatements of ``specs/autocorrelation.md`` §2–§6 in plain Python loops."""

from __future__ import annotations

import math

from scipy import stats


def overall_mean(x: list[float], harmonic: bool) -> float:
    if harmonic:
        return len(x) / sum(1.0 / v for v in x)
    return sum(x) / len(x)


def block_means(x: list[float], q: int, harmonic: bool) -> list[float]:
    means = []
    for j in range(len(x) // q):
        block = x[j * q : (j + 1) * q]
        means.append(overall_mean(block, harmonic))
    return means


def moments(x: list[float], q: int, harmonic: bool) -> tuple[float, float]:
    m = overall_mean(x, harmonic)
    u = block_means(x, q, harmonic)
    h = len(u)
    s2 = sum((u[j] - m) ** 2 for j in range(h)) / (h - 1)
    g = sum((u[j] - m) * (u[j + 1] - m) for j in range(h - 1)) / (h - 1)
    return s2, g


def r1(x: list[float], q: int, harmonic: bool = False) -> float:
    if len(x) // q < 2:
        return 1.0
    s2, g = moments(x, q, harmonic)
    if s2 == 0:
        return 1.0
    return g / s2


def optimal_q(x: list[float], limit: float, harmonic: bool = False) -> int | None:
    if len(x) <= 1:
        return None
    for q in range(1, len(x) // 3 + 1):
        if abs(r1(x, q, harmonic)) <= limit:
            return q
    return None


def ci(x: list[float], q: int, level: float, harmonic: bool = False) -> tuple[float, float]:
    m = overall_mean(x, harmonic)
    s2, _ = moments(x, q, harmonic)
    h = len(x) // q
    half = stats.t.ppf((1 + level) / 2, h - 1) * math.sqrt(s2 / h)
    return m - half, m + half


def blocks_required_iterated(s2: float, e: float, level: float) -> int:
    """Linear scan for the smallest self-consistent h (spec §6.3)."""
    h = 2
    while True:
        need = math.ceil(s2 * (stats.t.ppf((1 + level) / 2, h - 1) / e) ** 2 - 1e-9 * max(
            1.0, s2 * (stats.t.ppf((1 + level) / 2, h - 1) / e) ** 2))
        if need <= h:
            return h
        h += 1
