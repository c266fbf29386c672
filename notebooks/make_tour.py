"""Write ``notebooks/tour.ipynb`` (without outputs) with nbformat.

Run ``python notebooks/make_tour.py`` after editing the cells below;
``tests/test_tour_notebook.py`` executes the notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS: list[tuple[str, str]] = [
    ("md", """# A tour of pilotstats on real data

pilotstats makes performance measurements statistically honest: it finds the warm-up,
computes confidence intervals that survive autocorrelation (subsession analysis), says how
many samples a target precision needs, compares results with Welch's test on subsession
statistics, separates per-sample overhead from throughput (work-per-second regression) and
tracks levels over many results (MDL partitioning, EDM change points).

Data used here:

* benchmark-harness output shipped with the tests (`tests/data/harnesses/`: real pyperf,
  pytest-benchmark, asv, Google Benchmark and hyperfine files);
* TOKIO, *A Year in the Life of a Parallel File System* (Lockwood et al., SC'18): half a
  year of daily I/O benchmark jobs on NERSC's Cori (`pilotstats.datasets.tokio_sample()`,
  bundled with its modified BSD licence);
* a real MongoDB performance series from MongoDB's change-point library
  (`pilotstats.datasets.mongodb_series()`, Apache-2.0).

Both data sets ship inside the package (`pilotstats.datasets.dataset_licence` prints their
licences and citations); the harness files come from the repository's test data, so run the
notebook from the repository root."""),
    ("code", """import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

import pilotstats
from pilotstats import datasets, io
from pilotstats.analysis import analyze, compare, trend

ROOT = Path.cwd() if (Path.cwd() / "tests").is_dir() else Path.cwd().parent  # repo root
HARNESSES = ROOT / "tests" / "data" / "harnesses"
print("pilotstats", pilotstats.__version__)"""),
    ("md", """## 1. Harness output in, honest statistics out

Every loader returns the same container, `Measurements`: samples in time order with their
elapsed time (s), work (loops, iterations), run (process, fork, repetition) and warm-up flag.
Here a real `pyperf timeit` file: 4 worker processes, each with 3 warm-ups and 5 values."""),
    ("code", """m = io.load(HARNESSES / "pyperf_timeit.json")
print(m)
m.to_frame().head(10)"""),
    ("md", """`analyze` removes the harness's warm-ups (and the detected warm-up of each run when
stable-phase detection is available), then reports the mean time per loop with a subsession
confidence interval and the number of samples needed for ±1 %. The printed interval always
names its level; the `±` of pyperf's own output is one standard deviation."""),
    ("code", """report = analyze(m)
print(report)"""),
    ("code", """for name in ["pytest_benchmark.json", "gbench.json", "hyperfine.json",
             "asv_result.json"]:
    print(f"--- {name}")
    print(analyze(io.load(HARNESSES / name)))"""),
    ("md", """## 2. Half a year of parallel-file-system benchmarks (TOKIO, Cori)

Each row is one benchmark job: here the HACC write kernel, run daily on a fixed number of
processes with a data volume. `darshan_agg_perf_by_slowest_posix` is the job's I/O rate in
MiB/s, so the job's I/O time is volume / rate. One benchmark = one application at one
process count; the volume is the work of each sample."""),
    ("code", """columns = ["_datetime_start", "darshan_app", "darshan_nprocs",
           "darshan_total_gibs_posix", "darshan_agg_perf_by_slowest_posix"]
jobs = datasets.tokio_sample()[columns].sort_values("_datetime_start")
jobs = jobs[jobs["darshan_agg_perf_by_slowest_posix"] > 0]
jobs["benchmark"] = (jobs["darshan_app"].map(os.path.basename) + " np="
                     + jobs["darshan_nprocs"].astype(str))
jobs = jobs[jobs.groupby("benchmark")["benchmark"].transform("size") >= 100]
jobs["mib"] = jobs["darshan_total_gibs_posix"] * 1024.0
jobs["seconds"] = jobs["mib"] / jobs["darshan_agg_perf_by_slowest_posix"]

def to_measurements(frame):
    return io.Measurements(frame["seconds"].to_numpy(), work=frame["mib"].to_numpy(),
                           benchmark=frame["benchmark"].to_numpy(),
                           metadata={b: {"unit": "s", "source": "TOKIO Cori"}
                                     for b in frame["benchmark"].unique()})

year = to_measurements(jobs)
print(year)"""),
    ("md", """Seconds per MiB, with 95 % intervals. Months of daily jobs have no warm-up, so
stable-phase detection is switched off here (it would keep only the dominant level of the
period). Daily jobs on a shared file system can be autocorrelated (the file system's load and
fullness drift); the subsession size `q` is chosen so that the subsession means are nearly
uncorrelated. The next cell compares that interval with the naive one (`q = 1`): on this
sample the lag-1 autocorrelation is small and the two agree, on the full year's data of
`pilotstats.datasets.tokio_summaries()` (a 6 MB download) several benchmarks need a large
`q`."""),
    ("code", """cori = analyze(year, half_width_percent=2.0, detect_warmup=False)
print(cori)"""),
    ("code", """from pilotstats.autocorrelation import lag1_autocorrelation, subsession_analysis

name = max(cori, key=lambda item: item.subsession_size or 0).name  # most autocorrelated
series = year[name].time_per_work
naive = subsession_analysis(series, subsession_size=1, unit="s")
honest = subsession_analysis(series, unit="s")
print("lag-1 autocorrelation of the daily values:", round(lag1_autocorrelation(series), 3))
print("naive (q = 1):   ", naive)
print("subsession:      ", honest)
print("width ratio: %.1f" % (honest.half_width / naive.half_width))"""),
    ("md", """### Did the second half get slower?

`compare` matches benchmarks by name (it never pairs jobs) and runs Welch's test on the
subsession statistics of each half."""),
    ("code", """middle = jobs["_datetime_start"].median()
first = to_measurements(jobs[jobs["_datetime_start"] < middle])
second = to_measurements(jobs[jobs["_datetime_start"] >= middle])
halves = compare(first, second, detect_warmup=False)
print(halves)"""),
    ("md", """### Monthly levels (MDL trend partition)

One value per month and benchmark (its mean), partitioned into levels by minimum
description length; a later level that is slower is labelled *regression*."""),
    ("code", """months = pd.to_datetime(jobs["_datetime_start"], unit="s").dt.to_period("M")
monthly = [to_measurements(group) for _, group in jobs.groupby(months)]
labels = [str(period) for period in sorted(months.unique())]
levels = trend(monthly, labels=labels, detect_warmup=False)
print(levels)"""),
    ("code", """import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 3))
for item in levels:
    means = np.array([np.nan if v is None else v for v in item.means]) * 1e3
    ax.plot(labels, means, marker="o", label=item.name)
ax.set_ylabel("ms per MiB (monthly mean)")
ax.tick_params(axis="x", rotation=60)
ax.legend(fontsize=7)
fig.tight_layout()"""),
    ("md", """### Overhead and throughput (work-per-second regression)

Within one benchmark, jobs may move different volumes. Fitting `t = α + w / v` separates a fixed
per-job overhead `α` from the sustained rate `v` (shown by `analyze` when the work varies;
this sample's HACC jobs all write the same volume, so the fit is refused and says why)."""),
    ("code", """from pilotstats.results import format_number

for item in cori:
    if item.wps_throughput is not None:  # an interval end is None when it is unbounded
        print(f"{item.name}: v = {format_number(item.wps_throughput)} MiB/s "
              f"[{format_number(item.wps_throughput_ci_low)}, {format_number(item.wps_throughput_ci_high)}], "
              f"alpha = {format_number(item.wps_alpha)} s")
    else:
        why = [note for note in item.notes if "WPS" in note] or ["the work does not vary"]
        print(f"{item.name}: no WPS ({'; '.join(why)})")"""),
    ("md", """## 3. Change points in a real CI performance series (MongoDB)

E-Divisive with medians (`pilotstats.changepoints.edm`) on one of MongoDB's performance
series. With its default penalty EDM-multi finds no change; EDM-percent (a relative-gain
threshold) proposes candidates, which are *not* significance-tested; they are listed as
Otava-like records (index = first sample of the new regime). MDL partitioning of the same
series gives a second opinion."""),
    ("code", """from pilotstats.changepoints import edm, mdl_partition

values = datasets.mongodb_series()
print(edm(values, min_size=10))
candidates = edm(values, min_size=10, percent=0.05)
print(candidates)
print(mdl_partition(values, higher_is_better=True))
pd.DataFrame(candidates.to_records("throughput"))"""),
    ("md", """## 4. The same from the command line

```
pilotstats analyze result.json            # any supported harness file
pilotstats compare base.json new.json     # exit status 1 on a significant regression
pilotstats trend r1.json r2.json ...      # MDL levels over many results
pilotstats changepoints data.csv --column latency
```"""),
    ("code", """import contextlib, io as _io
from pilotstats.cli import main

buffer = _io.StringIO()
with contextlib.redirect_stdout(buffer):
    status = main(["analyze", str(HARNESSES / "hyperfine.json")])
print("exit status", status)
print(buffer.getvalue())"""),
]


def build() -> nbformat.NotebookNode:
    notebook = new_notebook()
    notebook.cells = [new_markdown_cell(text) if kind == "md" else new_code_cell(text)
                      for kind, text in CELLS]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    return notebook


if __name__ == "__main__":
    target = Path(__file__).with_name("tour.ipynb")
    nbformat.write(build(), target)
    print(f"wrote {target}")
