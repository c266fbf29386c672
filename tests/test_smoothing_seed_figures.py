"""Issue 25, TOKIO: the region counts and crossover dates of the SC'18 analysis on the data
it used, pinned (``docs/algorithms/smoothing.md``, *Region counts and dates*).

The bundled sample (162 daily Cori-KNL HACC-write jobs, NERSC/pytokio) spans 16-27 divergence
regions across the paper's window choices: 16 with a 7-day SMA against the global mean,
21 with the final 14/49-day pair (19 in wall-clock windows), 27 with the draft's 7/28-day
pair. On the full year, the 14-day SMA of Cori HACC write crosses the global mean on March 24
and August 10 (the paper), never on the draft's "March 23": there is no job between March 20
and March 24; linear interpolation of the 28-day SMA difference between the bracketing jobs
crosses zero on March 24 and on August 8 (the draft's second date).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pilotstats.datasets import read_tokio_summaries, tokio_sample
from pilotstats.smoothing import crossovers, divergence_regions, sma

LA = "America/Los_Angeles"
PERF = "darshan_agg_perf_by_slowest_posix"


def _la_dates(seconds: np.ndarray) -> list[str]:
    stamps = pd.to_datetime(np.asarray(seconds, dtype=float), unit="s", utc=True)
    return [str(d) for d in stamps.tz_convert(LA).strftime("%Y-%m-%d")]


@pytest.mark.parametrize(
    ("short", "long", "wallclock", "expected"),
    [
        ("7D", None, False, 16),
        ("14D", "49D", False, 21),
        ("14D", "49D", True, 19),
        ("7D", "28D", False, 27),
        ("14D", None, False, 8),
    ],
)
def test_bundled_sample_region_counts(
    short: str, long: str | None, wallclock: bool, expected: int
) -> None:
    rows = tokio_sample().sort_values("_datetime_start", kind="stable")
    t = rows["_datetime_start"].to_numpy(float)
    y = rows[PERF].to_numpy(float)  # one group: the fraction of peak is y / max(y)
    regions = divergence_regions(t, y, short=short, long=long,
                                 wallclock_tz=LA if wallclock else None)
    assert len(regions) == expected
    normalised = divergence_regions(t, y / y.max(), short=short, long=long,
                                    wallclock_tz=LA if wallclock else None)
    assert len(normalised) == expected


def test_cori_hacc_write_crossover_dates(datasets_dir: Path) -> None:
    frame = read_tokio_summaries(datasets_dir / "tokio")
    hacc = frame[(frame["_test_platform"] == "cscratch@cori-knl")
                 & (frame["_benchmark_id"] == "hacc_io_write_fpp_write")]
    t = hacc["_datetime_start"].to_numpy(float)
    y = hacc["darshan_normalized_perf_by_max"].to_numpy(float)
    short, mean = np.asarray(sma(t, y, "28D")), np.asarray(sma(t, y, None))
    found = crossovers(short, mean, times=t)
    positions = np.asarray(found.positions)
    assert _la_dates(t[positions]) == ["2017-03-24", "2017-08-10"]
    assert _la_dates(t[positions - 1]) == ["2017-03-20", "2017-08-07"]  # no job in between
    gap = short - mean
    before, after = gap[positions - 1], gap[positions]
    crossing = t[positions - 1] + (t[positions] - t[positions - 1]) * before / (before - after)
    assert _la_dates(crossing) == ["2017-03-24", "2017-08-08"]
