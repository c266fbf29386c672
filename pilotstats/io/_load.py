"""Format detection, :func:`load` (any harness) and :func:`load_many` (several files)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np

from pilotstats.exceptions import FormatError, InvalidInputError
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

__all__ = ["HarnessFormat", "detect_format", "load", "load_many"]

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


def load(source: Source, *, format: HarnessFormat | None = None,
         clock: Literal["real", "cpu"] | None = None,
         time: Literal["wall", "user", "user+system"] | None = None,
         **options: Any) -> Measurements:
    """Load any supported harness result, detecting the format from its content.

    Parameters
    ----------
    source : path, file, str, bytes or parsed object
        A result file of pyperf, pytest-benchmark, asv, Google Benchmark, hyperfine, JMH or
        criterion.rs (a criterion folder works too).
    format : str, optional
        Skip detection: one of ``"pyperf"``, ``"pytest-benchmark"``, ``"asv"``,
        ``"google-benchmark"``, ``"hyperfine"``, ``"jmh"``, ``"criterion"``.
    clock : {"real", "cpu"}, optional
        Google Benchmark's clock (see :func:`load_google_benchmark`); default its
        ``"real"``. Given for another format, it raises :class:`InvalidInputError`.
    time : {"wall", "user", "user+system"}, optional
        hyperfine's time (see :func:`load_hyperfine`); default its ``"wall"``. Given for
        another format, it raises :class:`InvalidInputError`.
    **options
        Passed to the format's loader (e.g. ``benchmark=`` for pyperf).

    Returns
    -------
    Measurements
        With the format's replicate structure in ``run`` (see the module overview).

    Raises
    ------
    FormatError
        Unknown or malformed format.
    InvalidInputError
        ``clock``/``time``/an option the detected format's loader does not take, or a bad
        value of one.

    Notes
    -----
    Complexity: O(size of the file).

    Examples
    --------
    >>> load({"results": [{"command": "true", "times": [0.002, 0.003]}]}).n_samples
    2
    >>> load({"results": [{"command": "true", "times": [0.002]}]}, clock="cpu")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pilotstats.exceptions.InvalidInputError: clock= applies to Google Benchmark results, ...
    """
    if format is not None:
        if not isinstance(format, str) or format not in _LOADERS:
            raise FormatError(f"unknown format {format!r}; choose one of {sorted(_LOADERS)}")
        return _call_loader(format, source, clock, time, options)
    if isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source)):
        return _call_loader("criterion", source, clock, time, options)
    document, label = read_json(source)
    detected = detect_format(document)
    if detected is None:
        raise FormatError(f"{label}: not a recognised benchmark result (pyperf, "
                          "pytest-benchmark, asv, Google Benchmark, hyperfine, JMH, criterion); "
                          "pass format= or use load_csv for CSV", source=label)
    return _call_loader(detected, document if label == "<object>" else source, clock, time,
                        options)


_KEYWORD_FORMAT = {"clock": ("google-benchmark", "Google Benchmark"),
                   "time": ("hyperfine", "hyperfine")}


def _call_loader(format: str, source: Source, clock: str | None, time: str | None,
                 options: Mapping[str, Any]) -> Measurements:
    """Run one format's loader, refusing keywords it does not take with a named error."""
    chosen = dict(options)
    for key, value in (("clock", clock), ("time", time)):
        if value is None:
            continue
        owner, title = _KEYWORD_FORMAT[key]
        if format != owner:
            raise InvalidInputError(f"{key}= applies to {title} results, not {format}")
        chosen[key] = value
    loader = _LOADERS[format]
    accepted = [name for name, parameter in inspect.signature(loader).parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = sorted(set(chosen) - set(accepted))
    if unknown:
        raise InvalidInputError(f"{format} results take no option {unknown}; options of "
                                f"{loader.__name__}: {accepted}")
    return loader(source, **chosen)  # type: ignore[no-any-return]


def load_many(sources: Iterable[Source], *, format: HarnessFormat | None = None,
              clock: Literal["real", "cpu"] | None = None,
              time: Literal["wall", "user", "user+system"] | None = None,
              **options: Any) -> Measurements:
    """Load several result files of one side (e.g. one per CI job) as separate runs.

    Each file is read with :func:`load` (same keywords); the runs of every file keep their
    own ids, renumbered 0, 1, 2, ... in file order so that no two files share one: three
    pytest-benchmark files give runs 0, 1, 2; two pyperf files of 20 processes give runs
    0-19 and 20-39. Benchmarks are matched by name across files.

    Parameters
    ----------
    sources : iterable of path, file, str, bytes or parsed object
        The result files, at least one, all of one harness format.
    format, clock, time, **options
        As for :func:`load`, applied to every file.

    Returns
    -------
    Measurements
        The files' samples in file order. Per benchmark, the metadata of the last file that
        holds it, plus ``"sources"`` (the labels of the files holding it, in order) and
        ``"run_sources"`` ({run id: file label}); pyperf's ``"run_metadata"`` is re-keyed to
        the new run ids.

    Raises
    ------
    InvalidInputError
        ``sources`` is a single source (pass a list), empty, or names one file twice (its
        runs would count twice as independent replicates); bad keywords as for :func:`load`.
    FormatError
        A malformed file (the message names it), or files of different harness formats.

    Notes
    -----
    Complexity: O(total size of the files).

    Examples
    --------
    >>> one = {"results": [{"command": "true", "times": [0.002, 0.003]}]}
    >>> two = {"results": [{"command": "true", "times": [0.004]}]}
    >>> m = load_many([one, two])
    >>> m.runs, m.run.tolist()
    ((0, 1, 2), [0, 1, 2])
    """
    items = _source_list(sources)
    parts: list[Measurements] = []
    metadata: dict[str, dict[str, Any]] = {}
    formats: dict[str, str] = {}
    offset = 0
    for item in items:
        part = load(item, format=format, clock=clock, time=time, **options)
        parts.append(_renumbered(part, offset, metadata, formats))
        offset += len(part.runs)
    if len(formats) > 1:
        raise FormatError("the files are of different harness formats: "
                          + ", ".join(f"{label} is {kind}" for kind, label in formats.items()))
    merged = Measurements.concat(parts)
    return Measurements(merged.elapsed, work=merged.work, run=merged.run, order=merged.order,
                        warmup=merged.warmup, benchmark=merged.benchmark, metadata=metadata)


def _source_list(sources: Iterable[Source]) -> list[Source]:
    """The sources as a list; refuse a single source, an empty list and a file given twice."""
    if isinstance(sources, (str, bytes, bytearray, os.PathLike, Mapping)) or not isinstance(
            sources, Iterable):
        raise InvalidInputError(
            f"sources must be a list of result files, got a single {type(sources).__name__}; "
            "pass [source] for one file")
    items = list(sources)
    if not items:
        raise InvalidInputError("sources is empty: pass at least one result file")
    seen: set[str] = set()
    for item in items:
        if isinstance(item, (str, os.PathLike)) and (
                isinstance(item, os.PathLike) or os.path.exists(item)):
            key = os.path.realpath(os.fspath(item))
            if key in seen:
                raise InvalidInputError(f"{os.fspath(item)} is given twice: its runs would "
                                        "count twice as independent replicates")
            seen.add(key)
    return items


def _renumbered(part: Measurements, offset: int, metadata: dict[str, dict[str, Any]],
                formats: dict[str, str]) -> Measurements:
    """One file's samples with run ids from ``offset`` on; merges its metadata in place."""
    mapping = {old: offset + k for k, old in enumerate(part.runs)}
    runs = np.array([mapping[int(r)] for r in part.run], dtype=np.int64)
    for name, meta in part.metadata.items():
        label = str(meta.get("source", "<object>"))
        kind = str(meta.get("format", "?"))
        formats.setdefault(kind, label)
        entry = dict(meta)
        previous = metadata.get(name, {})
        if isinstance(meta.get("run_metadata"), Mapping):
            entry["run_metadata"] = {**previous.get("run_metadata", {}), **{
                mapping[k]: v for k, v in meta["run_metadata"].items()
                if isinstance(k, int) and k in mapping}}
        entry["sources"] = [*previous.get("sources", []), label]
        own = {int(r) for r in runs[part.benchmark == name]}
        entry["run_sources"] = {**previous.get("run_sources", {}),
                                **{r: label for r in sorted(own)}}
        metadata[name] = entry
    return Measurements(part.elapsed, work=part.work, run=runs, order=part.order,
                        warmup=part.warmup, benchmark=part.benchmark)
