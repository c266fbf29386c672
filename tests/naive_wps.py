"""Brute-force references for the work-per-second regression (wps spec §3.3–§3.4).

Plain Python loops restating the formulas; the kernel ``block_line_fit`` must match them.
"""

from __future__ import annotations

import math


def block_points(
    work: list[float], durations: list[float], q: int, sums: bool = False
) -> tuple[list[float], list[float]]:
    """Block means (or sums) of consecutive rounds; trailing rounds left out."""
    h = len(work) // q
    xs, ys = [], []
    for j in range(h):
        block_w = work[j * q : (j + 1) * q]
        block_d = durations[j * q : (j + 1) * q]
        divisor = 1 if sums else q
        xs.append(math.fsum(block_w) / divisor)
        ys.append(math.fsum(block_d) / divisor)
    return xs, ys


def line_fit(xs: list[float], ys: list[float]) -> dict[str, float]:
    """Textbook simple linear regression with exact (fsum) sums."""
    h = len(xs)
    x_mean = math.fsum(xs) / h
    y_mean = math.fsum(ys) / h
    s_xx = math.fsum((x - x_mean) ** 2 for x in xs)
    s_xy = math.fsum((x - x_mean) * (y - y_mean) for x, y in zip(xs, ys, strict=True))
    s_yy = math.fsum((y - y_mean) ** 2 for y in ys)
    beta = s_xy / s_xx
    alpha = y_mean - beta * x_mean
    ssr = math.fsum((y - alpha - beta * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return {
        "alpha": alpha,
        "beta": beta,
        "ssr": ssr,
        "s_xx": s_xx,
        "s_yy": s_yy,
        "x_mean": x_mean,
        "y_mean": y_mean,
    }
