"""Smoothing section of the demonstration: divergence regions of a synthetic year of probes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pilotstats.results import format_number
from pilotstats.smoothing import analyze_regions, crossovers, sma

__all__ = ["demo_smoothing", "synthetic_probes"]


def synthetic_probes(seed: int = 2018) -> pd.DataFrame:
    """A year of daily I/O probes on two platforms, with a drift and transient contention.

    Each platform runs one probe per day at 02:00 UTC from 2017-02-14 for 365 days.
    Performance (fraction of peak) drops by 20 % between 2017-05-01 and 2017-08-01 on
    ``fs-a`` (a long-term divergence); on about 8 % of the days a burst of bandwidth
    contention lowers the day's performance (transients). ``server_load`` is pure noise and
    ``fullness`` a slow ramp, so neither should rank as a contributor.

    Parameters
    ----------
    seed : int, default 2018
        Seed of the numpy generator.

    Returns
    -------
    pandas.DataFrame
        Columns ``time`` (tz-aware UTC), ``platform``, ``perf``, ``contention_bw``,
        ``server_load`` and ``fullness``.
    """
    rng = np.random.default_rng(seed)
    days = pd.date_range("2017-02-14 02:00", periods=365, freq="D", tz="UTC")
    parts = []
    for platform, drift in (("fs-a", 0.20), ("fs-b", 0.0)):
        base = np.full(days.size, 0.8)
        slow = (days >= "2017-05-01") & (days < "2017-08-01")
        base[slow] -= drift
        contention = rng.uniform(0.0, 0.3, days.size)
        burst = rng.random(days.size) < 0.08
        contention[burst] = rng.uniform(0.6, 0.9, int(burst.sum()))
        perf = base - 0.5 * np.maximum(contention - 0.3, 0.0) + rng.normal(0, 0.03, days.size)
        parts.append(
            pd.DataFrame(
                {
                    "time": days,
                    "platform": platform,
                    "perf": np.clip(perf, 0.01, None),
                    "contention_bw": contention,
                    "server_load": rng.uniform(0, 1, days.size),
                    "fullness": np.linspace(0.4, 0.8, days.size) + rng.normal(0, 0.01, days.size),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def demo_smoothing() -> str:
    """Return a short report of the divergence analysis on :func:`synthetic_probes`.

    Notes
    -----
    Complexity: A fixed small example: well under a second once compiled.

    Examples
    --------
    >>> from pilotstats.demo._smoothing import demo_smoothing
    >>> print(demo_smoothing())  # doctest: +ELLIPSIS
    Smoothing (SC'18 divergence regions) on a synthetic year of daily probes
    ...
    """
    frame = synthetic_probes()
    fs_a = frame[frame["platform"] == "fs-a"]
    short = sma(fs_a["time"], fs_a["perf"].to_numpy(), "14D")
    mean = sma(fs_a["time"], fs_a["perf"].to_numpy(), None)
    cross = crossovers(short, mean, times=fs_a["time"], min_width="7D")
    dates = pd.to_datetime(np.asarray(cross.times), unit="s", utc=True).strftime("%Y-%m-%d")
    result = analyze_regions(
        frame,
        time="time",
        target="perf",
        group_by="platform",
        metrics_higher_is_better={"contention_bw": False, "server_load": False,
                                  "fullness": False},
    )
    c = result.counts
    lines = [
        "Smoothing (SC'18 divergence regions) on a synthetic year of daily probes",
        f"  fs-a: 14-day SMA vs global mean crosses {len(cross)} times (>= 7 days apart): "
        + ", ".join(f"{d} {dirn}" for d, dirn in zip(dates, cross.directions, strict=True)),
        f"  {c['regions']} divergence regions in {c['groups']} groups (14D vs 49D), "
        f"{c['anomalous_observations']} anomalous observations with p < 0.1, "
        f"{c['flagged_significant']} with a flagged metric",
        "  contributor ranking (fraction flagged, binomial p):",
    ]
    for _, row in result.summary.iterrows():
        mark = "significant" if row["significant"] else "not significant"
        lines.append(
            f"    {row['metric']:<14} {100 * row['total']:5.1f} %  "
            f"(k = {row['k']}, n = {row['n']}, p = {format_number(row['p_value'], 2)}, {mark})"
        )
    return "\n".join(lines)
