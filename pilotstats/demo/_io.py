"""Harness section of the demonstration: a real pyperf result, loaded and analysed."""

from __future__ import annotations

from typing import Any

import numpy as np

from pilotstats.analysis import analyze
from pilotstats.io import load_pyperf

__all__ = ["demo_io"]

# pyperf 2.10.0, ``python -m pyperf timeit --processes 4 --values 5 --warmups 3
# --min-time 0.002 -s "x = list(range(30))" "sorted(x)"`` on the project's 2-core CI machine
# (tests/data/harnesses/pyperf_timeit.json, calibration run left out): per-loop times in ns,
# 16384 loops per value. The machine was shared, so values vary by a factor of 4.
_RUNS_NS = (
    ((473.9, 474.9, 230.6), (218.7, 467.0, 385.8, 464.1, 452.3)),
    ((379.9, 682.6, 602.1), (312.5, 506.7, 449.9, 447.2, 478.4)),
    ((421.2, 444.1, 441.5), (502.4, 194.1, 429.6, 430.8, 436.6)),
    ((695.5, 254.6, 290.9), (440.0, 519.1, 889.6, 903.6, 751.7)),
)
_LOOPS = 16384


def _document() -> dict[str, Any]:
    runs = [
        {"metadata": {}, "warmups": [[_LOOPS, w * 1e-9] for w in warmups],
         "values": [v * 1e-9 for v in values]}
        for warmups, values in _RUNS_NS
    ]
    return {"version": "1.0", "metadata": {"name": "sorted(x)", "loops": _LOOPS,
                                           "unit": "second"},
            "benchmarks": [{"metadata": {}, "runs": runs}]}


def demo_io() -> str:
    """Load a real pyperf result (embedded) and analyse it; returns a readable report.

    Notes
    -----
    Complexity: A fixed small example: well under a second once compiled.

    Examples
    --------
    >>> print(demo_io().splitlines()[0])
    Benchmark harnesses: a real pyperf result (4 processes x 5 values, 3 warm-ups each)
    """
    measurements = load_pyperf(_document())
    report = analyze(measurements)
    kept = measurements.without_warmups().time_per_work
    mean, std = float(np.mean(kept)), float(np.std(kept, ddof=1))
    lines = [
        "Benchmark harnesses: a real pyperf result (4 processes x 5 values, 3 warm-ups each)",
        f"  pyperf prints 'Mean +- std dev: {mean * 1e9:.0f} ns +- {std * 1e9:.0f} ns' "
        "(the +- is one standard deviation, not an interval)",
        "  pilotstats analyze:",
        *("    " + line for line in str(report).splitlines()),
        "  the same from a shell: pilotstats analyze result.json "
        "(also pytest-benchmark, asv, Google Benchmark, hyperfine, JMH, criterion)",
    ]
    return "\n".join(lines)
