"""Loaders for the JSON result files of benchmark harnesses.

Each loader parses the file itself (no harness is imported), converts times to seconds and
returns a :class:`~pilotstats.io.Measurements`. Formats and their meaning are documented in
each loader's docstring, read from the harnesses' own sources.

The loaders live in per-family private modules and are gathered here:
:mod:`pilotstats.io._harness_python` (pyperf, pytest-benchmark, asv),
:mod:`pilotstats.io._harness_native` (Google Benchmark, hyperfine, JMH, Criterion.rs) and
:mod:`pilotstats.io._harness_common` (time units, the sample builder, name selection).
"""

from __future__ import annotations

from pilotstats.io._harness_common import TIME_UNITS
from pilotstats.io._harness_native import (
    load_criterion,
    load_google_benchmark,
    load_hyperfine,
    load_jmh,
)
from pilotstats.io._harness_python import load_asv, load_pyperf, load_pytest_benchmark

__all__ = [
    "TIME_UNITS",
    "load_asv",
    "load_criterion",
    "load_google_benchmark",
    "load_hyperfine",
    "load_jmh",
    "load_pyperf",
    "load_pytest_benchmark",
]
