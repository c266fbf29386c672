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
=============================  ============================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pilotstats.exceptions import FormatError
from pilotstats.io._asv_history import load_asv_history
from pilotstats.io._demo import demo_io
from pilotstats.io._harness import (
    load_asv,
    load_criterion,
    load_google_benchmark,
    load_hyperfine,
    load_jmh,
    load_pyperf,
    load_pytest_benchmark,
)
from pilotstats.io._measurements import Measurements
from pilotstats.io._source import Source, read_json
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
    "demo_io",
    "detect_format",
    "load",
    "load_asv",
    "load_asv_history",
    "load_criterion",
    "load_csv",
    "load_google_benchmark",
    "load_hyperfine",
    "load_jmh",
    "load_pilot_baseline",
    "load_pyperf",
    "load_pytest_benchmark",
]

HarnessFormat = Literal["pyperf", "pytest-benchmark", "asv", "google-benchmark", "hyperfine",
                        "jmh", "criterion"]

_LOADERS: dict[str, Any] = {
    "pyperf": load_pyperf,
    "pytest-benchmark": load_pytest_benchmark,
    "asv": load_asv,
    "google-benchmark": load_google_benchmark,
    "hyperfine": load_hyperfine,
    "jmh": load_jmh,
    "criterion": load_criterion,
}


def detect_format(document: Any) -> str | None:
    """Name the harness that wrote a parsed JSON document, or ``None``.

    Parameters
    ----------
    document : dict or list
        A parsed JSON result.

    Returns
    -------
    str or None
        ``"pyperf"``, ``"pytest-benchmark"``, ``"asv"``, ``"google-benchmark"``,
        ``"hyperfine"``, ``"jmh"``, ``"criterion"`` or None when unrecognised.

    Notes
    -----
    Complexity: O(size of the document).

    Examples
    --------
    >>> detect_format({"results": [{"command": "ls", "times": [0.1]}]})
    'hyperfine'
    >>> detect_format({"something": "else"}) is None
    True
    """
    if isinstance(document, list):
        if document and isinstance(document[0], Mapping) and "primaryMetric" in document[0]:
            return "jmh"
        return None
    if not isinstance(document, Mapping):
        return None
    if "result_columns" in document and "results" in document:
        return "asv"
    if "iters" in document and "times" in document:
        return "criterion"
    if "context" in document and "benchmarks" in document:
        return "google-benchmark"
    if "machine_info" in document and "benchmarks" in document:
        return "pytest-benchmark"
    benchmarks = document.get("benchmarks")
    if isinstance(benchmarks, list) and "version" in document:
        if all(isinstance(b, Mapping) and "runs" in b for b in benchmarks):
            return "pyperf"
        if all(isinstance(b, Mapping) and "stats" in b for b in benchmarks):
            return "pytest-benchmark"
    results = document.get("results")
    if isinstance(results, list) and all(isinstance(r, Mapping) and "command" in r
                                         for r in results):
        return "hyperfine"
    return None


def load(source: Source, *, format: HarnessFormat | None = None, **options: Any
         ) -> Measurements:
    """Load any supported harness result, detecting the format from its content.

    Parameters
    ----------
    source : path, file, str, bytes or parsed object
        A result file of pyperf, pytest-benchmark, asv, Google Benchmark, hyperfine, JMH or
        criterion.rs (a criterion folder works too).
    format : str, optional
        Skip detection: one of ``"pyperf"``, ``"pytest-benchmark"``, ``"asv"``,
        ``"google-benchmark"``, ``"hyperfine"``, ``"jmh"``, ``"criterion"``.
    **options
        Passed to the format's loader (e.g. ``benchmark=`` for pyperf).

    Returns
    -------
    Measurements

    Raises
    ------
    FormatError
        Unknown or malformed format.

    Notes
    -----
    Complexity: O(size of the file).

    Examples
    --------
    >>> load({"results": [{"command": "true", "times": [0.002, 0.003]}]}).n_samples
    2
    """
    if format is not None:
        if not isinstance(format, str) or format not in _LOADERS:
            raise FormatError(f"unknown format {format!r}; choose one of {sorted(_LOADERS)}")
        return _LOADERS[format](source, **options)  # type: ignore[no-any-return]
    if isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source)):
        return load_criterion(source, **options)
    document, label = read_json(source)
    detected = detect_format(document)
    if detected is None:
        raise FormatError(f"{label}: not a recognised benchmark result (pyperf, "
                          "pytest-benchmark, asv, Google Benchmark, hyperfine, JMH, criterion); "
                          "pass format= or use load_csv for CSV", source=label)
    if label == "<object>":
        return _LOADERS[detected](document, **options)  # type: ignore[no-any-return]
    return _LOADERS[detected](source, **options)  # type: ignore[no-any-return]
