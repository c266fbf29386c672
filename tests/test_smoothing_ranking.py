"""Contributor ranking (``pilotstats.smoothing._ranking``): by significance then effect,
and the target's aliases.

Sorting ``Contributors.summary()`` by the flagged fraction would rank first, and mark
significant, a metric flagged once in a single significant record (binomial
p = p0 = 1/11 < 0.10); and without an explicit metric list the target's own copies (the
performance before normalisation) would top the ranking, flagged at every anomaly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pilotstats.smoothing import (
    Contributors,
    RegionOptions,
    analyze_regions,
    contributors,
    divergence_regions,
)
from pilotstats.smoothing._ranking import holm_adjust, target_aliases

DAY = 86400.0


def _records() -> pd.DataFrame:
    """Metric ``once``: flagged in its only significant record (p = 1/11); ``often``: 6 of 8."""
    rows = []
    for i in range(8):
        rows.append(("often", i, i < 6, 1 / 20))
    rows.append(("once", 8, True, 1 / 11))
    rows.append(("never", 9, False, 1 / 20))
    frame = pd.DataFrame(rows, columns=["metric", "region_id", "flagged", "p_value"])
    n = len(frame)
    frame = frame.assign(
        group="g", platform="p", job_position=0, job_t=0.0, higher_is_better=True,
        threshold=0.0, target_value=0.0, n_match=1, n_obs=20, n_rows=20, random_p=0.05,
    )
    frame["significant"] = frame["p_value"] < 0.1
    assert len(frame) == n
    return frame


def _result() -> Contributors:
    return Contributors(records=_records(), target="y", classifier="minmax", quantile=0.25,
                        significance_level=0.1, metrics=("often", "once", "never"))


def test_a_single_flag_neither_leads_nor_is_significant() -> None:
    table = _result().summary()
    assert list(table["metric"]) == ["often", "once", "never"]
    once = table.set_index("metric").loc["once"]
    assert (once["k"], once["n"], once["total"]) == (1, 1, 1.0)
    assert once["p_value"] == pytest.approx(1 / 11)  # binomial p = p0 for k = n = 1
    assert once["p_value_adjusted"] == pytest.approx(min(1.0, 2 * 1 / 11))  # Holm, 3 tests
    assert not once["significant"]
    often = table.set_index("metric").loc["often"]
    assert often["significant"] and often["total"] == pytest.approx(6 / 8)


def test_reference_behaviour_without_correction() -> None:
    table = _result().summary(multiple_testing="none")
    assert table.set_index("metric").loc["once", "significant"]  # the reference code's mark
    assert table.iloc[0]["metric"] == "once"  # significant, and the largest fraction
    assert (table["p_value_adjusted"] == table["p_value"]).all()


def test_order_is_significance_then_effect() -> None:
    table = _result().summary()
    keys = list(zip(~table["significant"], -table["total"], table["p_value"], strict=True))
    assert keys == sorted(keys)


def test_holm_equals_brute_force_and_statsmodels() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.2, np.nan, 0.001])
    finite = p[~np.isnan(p)]
    m = finite.size
    order = np.argsort(finite)
    brute = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * finite[index]))
        brute[index] = running
    adjusted = holm_adjust(p)
    np.testing.assert_allclose(adjusted[~np.isnan(p)], brute, rtol=1e-15)
    assert np.isnan(adjusted[4])
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    reference = multitest.multipletests(finite, method="holm")[1]
    np.testing.assert_allclose(adjusted[~np.isnan(p)], reference, rtol=1e-12)


def _slow_region_frame() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    n = 120
    t = np.arange(n) * DAY
    load = rng.uniform(0, 1, n)
    perf = 1.0 - 0.5 * load + 0.3 * np.sin(np.arange(n) / 9) + rng.normal(0, 0.02, n)
    perf = perf - perf.min() + 0.1
    return pd.DataFrame({
        "t": t, "perf": perf, "perf_gibs": perf / 1024.0, "perf_copy": perf.copy(),
        "seconds_per_op": 1.0 / perf, "load": load, "noise": rng.normal(size=n),
    })


def test_contributors_exclude_the_targets_aliases() -> None:
    frame = _slow_region_frame()
    regions = divergence_regions(frame["t"], frame["perf"].to_numpy(), short="7D", long="28D")
    result = contributors(frame, regions, target="perf",
                          metrics_higher_is_better={"load": False, "seconds_per_op": False})
    assert result.excluded_aliases == ("perf_gibs", "perf_copy", "seconds_per_op")
    assert set(result.metrics) == {"t", "load", "noise"}
    assert set(result.records["metric"]) == {"t", "load", "noise"}
    # an explicit list is taken as given (the alias is then flagged at every job)
    explicit = contributors(frame, regions, target="perf", metrics=["perf_copy", "load"])
    copies = explicit.records[explicit.records["metric"] == "perf_copy"]
    assert copies["flagged"].all() and explicit.excluded_aliases == ()


def test_analyze_regions_excludes_per_group_aliases() -> None:
    # "normalised" is perf divided by each group's maximum: an alias within every group,
    # not a global copy
    parts = []
    for scale, name in ((1.0, "a"), (3.0, "b")):
        frame = _slow_region_frame()
        frame["perf"] = frame["perf"] * scale
        frame["normalised"] = frame["perf"] / frame["perf"].max()
        frame["g"] = name
        parts.append(frame.drop(columns=["perf_gibs", "perf_copy", "seconds_per_op"]))
    data = pd.concat(parts, ignore_index=True)
    result = analyze_regions(data, time="t", target="perf", group_by="g",
                             options=RegionOptions(short="7D", long="28D"),
                             metrics_higher_is_better={"load": False})
    assert result.settings["excluded_aliases"] == ["normalised"]
    assert "normalised" not in set(result.summary["metric"])
    assert result.summary.iloc[0]["metric"] == "load"
    assert result.contributor_result().excluded_aliases == ("normalised",)
    json.dumps(result.to_dict(), allow_nan=False)


def test_alias_needs_enough_pairs_and_strict_order() -> None:
    frame = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "m": [2.0, 4.0, 6.0, 8.0]})
    assert target_aliases(frame, "y", ["m"]) == []  # 4 pairs: could be chance
    frame = pd.DataFrame({"y": np.arange(12.0), "step": np.repeat([0.0, 1.0], 6),
                          "flat": np.ones(12), "copy": np.arange(12.0) + 5})
    assert target_aliases(frame, "y", ["step", "flat", "copy"]) == ["copy"]


def test_tokio_auto_metrics_rank_real_contributors(datasets_dir: Path) -> None:
    """The TOKIO year without the preset's metric list (the reproduction of the SC'18 ranking)."""
    import warnings

    from pilotstats.datasets import read_tokio_summaries

    frame = read_tokio_summaries(datasets_dir / "tokio")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze_regions(frame, time="_datetime_start",
                                 target="darshan_normalized_perf_by_max",
                                 group_by=["_test_platform", "_benchmark_id"],
                                 options=RegionOptions.from_preset("sc18-final", metrics=None),
                                 metrics_higher_is_better="tokio",
                                 wallclock_tz="America/Los_Angeles")
    aliases = result.settings["excluded_aliases"]
    assert aliases == ["darshan_agg_perf_by_slowest_posix",
                       "darshan_agg_perf_by_slowest_posix_gibs"]
    summary = result.summary
    assert not set(aliases) & set(summary["metric"])
    significant = summary[summary["significant"]]
    assert (significant["k"] >= 2).all()  # no single flag is significant after Holm
    assert list(summary["significant"]) == sorted(summary["significant"], reverse=True)
    old = result.ranking(multiple_testing="none")
    single = old[(old["k"] == 1) & (old["n"] == 1)]
    assert single["significant"].all() and len(single) > 0  # what the reference code marks
