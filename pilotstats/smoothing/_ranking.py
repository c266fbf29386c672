"""Contributor ranking (significance, then effect) and the target's aliases.

Documentation: *Algorithms › Smoothing* (``docs/algorithms/smoothing.md``, *Ranking*).
Method of Lockwood et al., SC'18, §5 and Fig. 10 (per-metric binomial tests over the
significant anomalous observations); the multiple-testing correction and the order are
pilotstats': sorting by the flagged fraction alone would put a metric flagged once, in
one region, first and mark it significant (p = 0.091 at level 0.10).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pilotstats._validation import check_choice, check_probability

__all__: list[str] = []

#: Fewest paired observations before a metric can be recognised as an alias of the target:
#: a chance strictly monotone ordering of n independent values has probability 2/n!
#: (7e-7 at n = 10).
ALIAS_MIN_PAIRS = 10


def holm_adjust(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), as statsmodels' ``multipletests``.

    ``p_(i)`` sorted ascending becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``. NaN stays NaN
    and does not count in ``m``.
    """
    p = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    m = present.size
    if m == 0:
        return adjusted
    order = present[np.argsort(p[present], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def ranking(
    records: pd.DataFrame,
    significance_level: float,
    binomial_p0: Any = "max_flagged",
    multiple_testing: str = "holm",
) -> pd.DataFrame:
    """Significance filter, per-platform fractions, binomial tests and the ranking.

    Order (documented): significant metrics first; then by effect, the ``total`` fraction
    of significant anomalies at which the metric was flagged, descending; then by binomial
    ``p_value`` ascending, by ``k`` descending and by name. ``significant`` is
    ``p_value_adjusted <= significance_level`` with Holm's correction over the metrics
    with at least one significant record (``multiple_testing="holm"``), or the raw
    ``p_value`` (``"none"``, the reference code).
    """
    from scipy import stats

    if isinstance(binomial_p0, str):
        check_choice(binomial_p0, "binomial_p0", ("max_flagged",))
        fixed_p0: float | None = None
    else:
        fixed_p0 = check_probability(binomial_p0, "binomial_p0")
    correction = check_choice(multiple_testing, "multiple_testing", ("holm", "none"))
    significant = records[records["p_value"] < significance_level]
    platforms = sorted({str(p) for p in records["platform"]})
    metrics = list(dict.fromkeys(records["metric"]))
    rows = []
    for metric in metrics:
        chosen = significant[significant["metric"] == metric]
        observed = chosen.groupby("platform").size()
        tagged = chosen[chosen["flagged"]].groupby("platform").size()
        n = int(observed.sum())
        k = int(tagged.sum())
        row: dict[str, Any] = {"metric": metric}
        for platform in platforms:
            row[f"fraction:{platform}"] = (
                float(tagged.get(platform, 0)) / n if n > 0 else 0.0
            )
        row["total"] = k / n if n > 0 else 0.0
        row["k"] = k
        row["n"] = n
        if fixed_p0 is not None:
            p0 = fixed_p0
        elif k > 0:
            p0 = float(chosen.loc[chosen["flagged"], "p_value"].max())
        else:
            p0 = math.nan
        row["p0"] = p0
        if k == 0 or n == 0:
            row["p_value"] = 1.0
        else:
            row["p_value"] = float(stats.binomtest(k, n, p0, alternative="greater").pvalue)
        rows.append(row)
    columns = ["metric", *[f"fraction:{p}" for p in platforms], "total", "k", "n", "p0",
               "p_value", "p_value_adjusted", "significant"]
    table = pd.DataFrame(rows, columns=columns[:-2])
    tested = table["n"].to_numpy() > 0 if len(table) else np.zeros(0, dtype=bool)
    raw = table["p_value"].to_numpy(dtype=np.float64)
    if correction == "holm":
        adjusted = np.ones(len(table))
        adjusted[tested] = holm_adjust(raw[tested])
    else:
        adjusted = raw.copy()
    table["p_value_adjusted"] = adjusted
    table["significant"] = adjusted <= significance_level
    table["_neg_k"] = -table["k"]
    table = table.sort_values(
        ["significant", "total", "p_value", "_neg_k", "metric"],
        ascending=[False, False, True, True, True],
        kind="stable",
    )
    return table.drop(columns="_neg_k").reset_index(drop=True)[columns]


def target_aliases(
    frame: pd.DataFrame,
    target: str,
    metrics: Sequence[str],
    groups: Sequence[str] = (),
) -> list[str]:
    """Metrics that are strictly monotone functions of the target within every group.

    Such a metric (an identical copy, a unit conversion, the target before a per-group
    normalisation such as ``darshan_agg_perf_by_slowest_posix`` for
    ``darshan_normalized_perf_by_max``) is at its extreme exactly where the target is, so
    it is flagged at every job of interest and says nothing about a cause. A metric is an
    alias when, over the rows where it and the target are finite and within each group,
    sorting by the target sorts it strictly increasing or strictly decreasing (ties of the
    target with equal metric values allowed), with at least :data:`ALIAS_MIN_PAIRS` pairs.
    O(n log n) per metric.
    """
    t = frame[target].to_numpy(dtype=np.float64, na_value=np.nan)
    if groups:
        codes = frame.groupby(list(groups), sort=False, dropna=False).ngroup().to_numpy()
    else:
        codes = np.zeros(len(frame), dtype=np.int64)
    aliases = []
    for metric in metrics:
        x = frame[metric].to_numpy(dtype=np.float64, na_value=np.nan)
        keep = np.isfinite(x) & np.isfinite(t)
        if int(keep.sum()) < ALIAS_MIN_PAIRS:
            continue
        xs, ts, gs = x[keep], t[keep], codes[keep]
        if any(_strictly_monotone(xs * sign, ts, gs) for sign in (1.0, -1.0)):
            aliases.append(metric)
    return aliases


def _strictly_monotone(x: np.ndarray, t: np.ndarray, g: np.ndarray) -> bool:
    """Within each group, ``x`` increases strictly whenever ``t`` does, equal on ties."""
    order = np.lexsort((x, t, g))
    xs, ts, gs = x[order], t[order], g[order]
    same = gs[1:] == gs[:-1]
    dx, dt = np.diff(xs)[same], np.diff(ts)[same]
    if not np.any(dt > 0):
        return False
    return bool(np.all(dx[dt > 0] > 0) and np.all(dx[dt == 0] == 0))
