"""Write the JMH and criterion.rs fixtures, whose tools cannot be installed here.

JMH needs Maven Central and criterion.rs needs crates.io; neither registry is reachable on the
machines this project runs on. These two files are therefore written by this script, strictly
following the formats documented and implemented by the tools (see PROVENANCE.md), with
synthetic numbers from a seeded generator and every derived summary field computed the way the
tool computes it. They are NOT tool output; the loaders' tests say so.

Run: ``python tests/data/harnesses/handwritten.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent


def _jmh_metric(raw: list[list[float]], unit: str) -> dict[str, object]:
    """primaryMetric as JMH's JSONResultFormat writes it (99.9 % Student-t half-width)."""
    pooled = np.concatenate([np.asarray(fork) for fork in raw])
    n = pooled.size
    mean = float(pooled.mean())
    error = float(stats.t.ppf(0.9995, n - 1) * pooled.std(ddof=1) / math.sqrt(n))
    levels = ["0.0", "50.0", "90.0", "95.0", "99.0", "99.9", "99.99", "99.999", "99.9999", "100.0"]
    return {
        "score": mean,
        "scoreError": error,
        "scoreConfidence": [mean - error, mean + error],
        "scorePercentiles": {k: float(np.percentile(pooled, float(k))) for k in levels},
        "scoreUnit": unit,
        "rawData": raw,
    }


def write_jmh(rng: np.random.Generator) -> None:
    common = {
        "jmhVersion": "1.37", "threads": 1, "forks": 3, "jvm": "/usr/lib/jvm/java-17/bin/java",
        "jvmArgs": [], "jdkVersion": "17.0.15", "vmName": "OpenJDK 64-Bit Server VM",
        "vmVersion": "17.0.15+6-Debian-1deb12u1", "warmupIterations": 5, "warmupTime": "10 s",
        "warmupBatchSize": 1, "measurementIterations": 5, "measurementTime": "10 s",
        "measurementBatchSize": 1,
    }
    avgt = [list(np.round(rng.normal(loc, 0.8, 5) + 120.0, 4)) for loc in (0.0, 1.5, -0.7)]
    thrpt = [list(np.round(rng.normal(loc, 2e4, 5) + 3.4e6, 1)) for loc in (0.0, -5e4, 3e4)]
    doc = [
        {**common, "benchmark": "org.example.ListBench.arrayList", "mode": "avgt",
         "params": {"size": "100"}, "primaryMetric": _jmh_metric(avgt, "ns/op"),
         "secondaryMetrics": {}},
        {**common, "benchmark": "org.example.ListBench.linkedList", "mode": "thrpt",
         "params": {"size": "100"}, "primaryMetric": _jmh_metric(thrpt, "ops/s"),
         "secondaryMetrics": {}},
    ]
    text = json.dumps(doc, indent=4)
    (HERE / "jmh.json").write_text(text + "\n")


def write_criterion(rng: np.random.Generator) -> None:
    # Linear sampling: sample i runs i*d iterations (i = 1..N), time = total ns of the sample.
    n, d, per_iter, overhead = 20, 37, 612.5, 90.0
    iters = [float(i * d) for i in range(1, n + 1)]
    times = [round(overhead + x * per_iter * (1 + rng.normal(0, 0.01)), 1) for x in iters]
    folder = HERE / "criterion" / "tiny" / "sum_squares_1000" / "new"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sample.json").write_text(
        json.dumps({"sampling_mode": "Linear", "iters": iters, "times": times}))
    (folder / "benchmark.json").write_text(json.dumps({
        "group_id": "tiny", "function_id": "sum_squares_1000", "value_str": None,
        "throughput": None, "full_id": "tiny/sum_squares_1000",
        "directory_name": "tiny/sum_squares_1000", "title": "tiny/sum_squares_1000"}))


if __name__ == "__main__":
    generator = np.random.default_rng(20261121)
    write_jmh(generator)
    write_criterion(generator)
