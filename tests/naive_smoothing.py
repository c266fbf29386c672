"""Brute-force references of the smoothing pillar (plain loops, restating spec formulas)."""

from __future__ import annotations

import math

import numpy as np


def naive_sma(times: np.ndarray, values: np.ndarray, width: float | None,
              closed: str = "left") -> np.ndarray:
    """SMA_w(t_i) = mean of non-NaN y_j with t_j in the centred window (spec §3), O(n^2)."""
    n = len(times)
    out = np.empty(n)
    for i in range(n):
        total = 0.0
        count = 0
        for j in range(n):
            if width is None:
                inside = True
            else:
                low = times[i] - width / 2
                high = times[i] + width / 2
                left = times[j] >= low if closed in ("left", "both") else times[j] > low
                right = times[j] <= high if closed in ("right", "both") else times[j] < high
                inside = left and right
            if inside and not math.isnan(values[j]):
                total += values[j]
                count += 1
        out[i] = total / count if count else math.nan
    return out


def naive_contributors(values: dict[str, np.ndarray], target: np.ndarray,
                       bounds: list[tuple[int, int]], higher_is_better: dict[str, bool],
                       classifier: str, quantile: float) -> list[dict[str, object]]:
    """Per (region, metric) records of spec §7 with a loop per region and metric."""
    records = []
    for region_id, (start, stop) in enumerate(bounds):
        segment = target[start:stop]
        job = start + min(range(len(segment)), key=lambda k: (segment[k], k))
        for metric, column in values.items():
            x = column[start:stop]
            good = x[~np.isnan(x)]
            if good.size == 0:
                continue
            better_high = higher_is_better.get(metric, True)
            if classifier == "minmax":
                cutoff = good.min() if better_high else good.max()

                def test(v: float, c: float = cutoff) -> bool:
                    return v == c
            else:
                level = quantile if better_high else 1 - quantile
                cutoff = float(np.percentile(good, 100 * level))

                def test(v: float, c: float = cutoff, h: bool = better_high) -> bool:
                    return v < c if h else v > c
            n_match = sum(1 for v in good if test(v))
            records.append({
                "region_id": region_id,
                "metric": metric,
                "threshold": float(cutoff),
                "flagged": bool(test(column[job])) if not math.isnan(column[job]) else False,
                "n_match": n_match,
                "n_obs": int(good.size),
                "p_value": n_match / good.size,
                "job_position": job,
            })
    return records
