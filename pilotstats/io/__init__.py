"""Readers for benchmark-harness results and the common :class:`Measurements` container.

Loaders parse the files directly (no harness is imported) and accept a path (``.gz``
recognised), an open file, the file's text or bytes, or an already-parsed object:

=============================  ============================================================
:func:`load_pyperf`            pyperf JSON suites (warm-ups, calibration runs, per-process runs)
:func:`load_pytest_benchmark`  pytest-benchmark JSON (``--benchmark-json``)
:func:`load_asv`               asv result files with recorded samples
:func:`load_asv_history`       a whole asv results folder as one long table (every commit)
:func:`load_google_benchmark`  Google Benchmark JSON (repetitions; aggregates skipped)
:func:`load_hyperfine`         hyperfine ``--export-json``
:func:`load_jmh`               JMH ``-rf json`` (forks, ``rawData``)
:func:`load_criterion`         criterion.rs ``sample.json`` (file, benchmark or root folder)
:func:`load_csv`               plain CSV with columns you name
:func:`load_pilot_baseline`    Pilot's baseline CSV (summary records)
:func:`load`                   any of the JSON formats above, detected from the content
:func:`load_many`              several result files of one side, each file its own run(s)
=============================  ============================================================

The replicate level is part of the data: ``Measurements.run`` is the harness's real
replicate, a pyperf worker process, a JMH fork, a Google Benchmark repetition, a hyperfine
timing (each one a separate process), an asv process (see :func:`load_asv`), or the whole
file for pytest-benchmark and criterion.rs. :func:`load_many` keeps the run ids of different
files apart.
"""

from pilotstats.io._asv_history import load_asv_history
from pilotstats.io._harness import (
    load_asv,
    load_criterion,
    load_google_benchmark,
    load_hyperfine,
    load_jmh,
    load_pyperf,
    load_pytest_benchmark,
)
from pilotstats.io._load import HarnessFormat, detect_format, load, load_many
from pilotstats.io._measurements import Measurements
from pilotstats.io._tables import (
    BaselineStatistics,
    PilotBaseline,
    PilotBaselineRecord,
    load_csv,
    load_pilot_baseline,
)

__all__ = [
    "BaselineStatistics",
    "HarnessFormat",
    "Measurements",
    "PilotBaseline",
    "PilotBaselineRecord",
    "detect_format",
    "load",
    "load_asv",
    "load_asv_history",
    "load_criterion",
    "load_csv",
    "load_google_benchmark",
    "load_hyperfine",
    "load_jmh",
    "load_many",
    "load_pilot_baseline",
    "load_pyperf",
    "load_pytest_benchmark",
]
