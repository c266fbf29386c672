"""Loaders for the JSON result files of the Python harnesses: pyperf, pytest-benchmark and
asv (airspeed velocity).

Each loader parses the file itself (no harness is imported), converts times to seconds and
returns a :class:`~pilotstats.io.Measurements`; each format is documented in its
loader's docstring, read from the harness's own sources.

asv processes (:func:`load_asv`): asv runs each benchmark in ``rounds`` separate processes
(default 2) and appends each process's samples to the list in order, without recording
where one ends. The split is known, and ``run`` = 0, 1, ... per process, when
``benchmarks.json`` is found and either the benchmark's ``repeat`` is fixed (an integer, or
``(n, n, max_time)``: every process records exactly that many samples; ``--append-samples``
adds whole processes) or, with a variable ``repeat`` (asv's default: at most 5 samples per
process when ``rounds`` > 1, at most 10 with one round), every one of the ``rounds``
processes reached the maximum. Otherwise every sample is in run 0 and
``metadata["processes"]`` is None; when ``benchmarks.json`` was found this also gives a
:class:`~pilotstats.exceptions.FormatWarning`.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pilotstats.exceptions import FormatWarning
from pilotstats.io._harness_common import (
    _Builder,
    _check_found,
    _check_found_any,
    _select,
)
from pilotstats.io._measurements import Measurements
from pilotstats.io._source import (
    Source,
    as_number,
    fail,
    field,
    field_int,
    field_list,
    field_mapping,
    field_str,
    number_list,
    read_json,
)

# --------------------------------------------------------------------------------------------
# pyperf


_CALIBRATION_KEYS = ("calibrate_loops", "recalibrate_loops", "calibrate_warmups",
                     "recalibrate_warmups")


def load_pyperf(source: Source, *, benchmark: str | Iterable[str] | None = None,
                include_warmups: bool = True, include_calibration: bool = False) -> Measurements:
    """Load a pyperf JSON suite (``pyperf ... -o FILE``, optionally ``.json.gz``).

    Parameters
    ----------
    source : path, file, str, bytes or dict
        The file (gzip recognised), its content, or the parsed object.
    benchmark : str or iterable of str, optional
        Names of the benchmarks to keep (default all).
    include_warmups : bool, default True
        Keep each run's warm-up values (flagged ``warmup=True``).
    include_calibration : bool, default False
        Keep calibration runs (runs with only warm-ups, whose loop count doubles).

    Returns
    -------
    Measurements
        One run per pyperf worker process (``run`` = index of the run in the file), values
        and warm-ups in recorded order. ``elapsed`` = value × loops × inner_loops seconds,
        ``work`` = loops × inner_loops. Per-benchmark metadata is the suite metadata merged
        with the benchmark's (``unit``, ``loops``, ``python_version``, ...); per-run metadata
        is under ``"run_metadata"``.

    Raises
    ------
    FormatError
        Malformed file: the message names the file and the field (e.g.
        ``benchmarks[0].runs[3].values[1]``).

    Notes
    -----
    Format: pyperf ``doc/api.rst`` ("pyperf JSON format") and ``pyperf/_bench.py``; versions
    ``"1.0"`` (warm-up values per loop) and the older 5/6 (raw warm-up times; version 5 calls
    the values ``samples``) are read. Metadata is merged suite → benchmark → run, as pyperf's
    ``Run._json_load`` does.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"version": "1.0", "metadata": {"loops": 8, "unit": "second"},
    ...        "benchmarks": [{"metadata": {"name": "demo"}, "runs": [
    ...            {"metadata": {}, "warmups": [[8, 2e-6]], "values": [1e-6, 1.1e-6]}]}]}
    >>> m = load_pyperf(doc)
    >>> m.n_samples, int(m.warmup.sum()), m.work.tolist()
    (3, 1, [8.0, 8.0, 8.0])
    """
    document, label = read_json(source)
    version = field(document, "version", label, "")
    if version not in ("1.0", 5, 6):
        fail(label, "version", f"unsupported pyperf format version {version!r} "
             "(supported: '1.0', 5, 6)")
    suite_meta = dict(field_mapping(document, "metadata", label, "", default={}))
    benchmarks = field_list(document, "benchmarks", label, "")
    builder = _Builder()
    available: list[str] = []
    for b_index, bench in enumerate(benchmarks):
        _pyperf_benchmark(builder, available, bench, f"benchmarks[{b_index}]", suite_meta,
                          version, label, benchmark, (include_warmups, include_calibration))
    _check_found(builder, benchmark, label, available)
    return builder.build(label, "pyperf benchmarks with values")


def _pyperf_benchmark(builder: _Builder, available: list[str], bench: Any, path: str,
                      suite_meta: Mapping[str, Any], version: Any, label: str,
                      benchmark: str | Iterable[str] | None,
                      include: tuple[bool, bool]) -> None:
    """Add one benchmark of a pyperf suite (``include`` = warm-ups, calibration runs)."""
    include_warmups, include_calibration = include
    bench_meta = {**suite_meta, **field_mapping(bench, "metadata", label, path, default={})}
    runs = field_list(bench, "runs", label, path)
    run_metas = []
    for r_index, run in enumerate(runs):
        run_meta = field_mapping(run, "metadata", label, f"{path}.runs[{r_index}]",
                                 default={})
        run_metas.append({**bench_meta, **run_meta})
    name = _pyperf_name(bench_meta, run_metas, label, path)
    available.append(name)
    if not _select(name, benchmark):
        return
    unit = str(bench_meta.get("unit", "second"))
    if unit not in ("second", "byte", "integer"):
        fail(label, f"{path}.metadata.unit", f"unknown unit {unit!r}")
    per_run: dict[int, dict[str, Any]] = {}
    for r_index, (run, merged) in enumerate(zip(runs, run_metas, strict=True)):
        rpath = f"{path}.runs[{r_index}]"
        calibration = _pyperf_run(builder, name, run, merged, r_index, rpath, version, label,
                                  include_warmups, include_calibration)
        if calibration and not include_calibration:
            continue
        per_run[r_index] = {k: v for k, v in merged.items() if k not in bench_meta
                            or bench_meta[k] != v}
    builder.metadata[name] = {
        **bench_meta,
        "unit": "s" if unit == "second" else unit,
        "format": "pyperf",
        "source": label,
        "run_metadata": per_run,
    }


def _pyperf_name(bench_meta: Mapping[str, Any], run_metas: list[dict[str, Any]], label: str,
                 path: str) -> str:
    """The benchmark's name: its metadata's, else the one name all its runs carry."""
    names = {str(m.get("name")) for m in run_metas if "name" in m}
    if "name" in bench_meta:
        return str(bench_meta["name"])
    if len(names) == 1:
        return names.pop()
    fail(label, f"{path}.metadata.name", "missing benchmark name")


def _pyperf_run(builder: _Builder, name: str, run: Any, merged: Mapping[str, Any], r_index: int,
                rpath: str, version: Any, label: str, include_warmups: bool,
                include_calibration: bool) -> bool:
    """Add one pyperf run's warm-ups and values; return whether it is a calibration run.

    A calibration run is skipped (nothing added) unless ``include_calibration``.
    """
    value_key = "samples" if version == 5 else "values"
    values = number_list(field(run, value_key, label, rpath, default=[]), label,
                         f"{rpath}.{value_key}", positive=True)
    calibration = any(key in merged for key in _CALIBRATION_KEYS)
    if calibration and values:
        fail(label, rpath, "a calibration run must not have values")
    if calibration and not include_calibration:
        return True
    loops = _pyperf_int(merged, "loops", label, rpath, default=1 if calibration else None)
    inner = _pyperf_int(merged, "inner_loops", label, rpath, default=1) or 1
    order = 0
    if include_warmups or calibration:
        warmups = field(run, "warmups", label, rpath, default=[])
        if not isinstance(warmups, list):
            fail(label, f"{rpath}.warmups", "expected a list of [loops, value] pairs")
        for w_index, pair in enumerate(warmups):
            wpath = f"{rpath}.warmups[{w_index}]"
            if not isinstance(pair, list) or len(pair) != 2:
                fail(label, wpath, f"expected a [loops, value] pair, got {pair!r}")
            w_loops = as_number(pair[0], label, wpath + "[0]", positive=True)
            w_value = as_number(pair[1], label, wpath + "[1]", positive=True)
            work = w_loops * inner
            # format 1.0 stores per-loop warm-up values, 5 and 6 raw totals
            elapsed = w_value * work if version == "1.0" else w_value
            builder.add(name, elapsed, work, r_index, order, True)
            order += 1
    if loops is None:
        fail(label, f"{rpath}.metadata.loops", "missing (needed to rebuild raw times)")
    work = float(loops * inner)
    builder.add_many(name, [value * work for value in values], work, r_index, order,
                     calibration)
    return calibration


def _pyperf_int(meta: Mapping[str, Any], key: str, label: str, path: str,
                default: int | None) -> int | None:
    if key not in meta:
        return default
    value = meta[key]
    number = as_number(value, label, f"{path}.metadata.{key}", positive=True)
    if number != int(number):
        fail(label, f"{path}.metadata.{key}", f"expected an integer, got {value!r}")
    return int(number)


# --------------------------------------------------------------------------------------------
# pytest-benchmark


def load_pytest_benchmark(
    source: Source,
    *,
    name: str | Iterable[str] | None = None,
    group: str | None = None,
) -> Measurements:
    """Load pytest-benchmark JSON (``--benchmark-json``, or saved with ``--benchmark-save-data``).

    Also accepts the in-process ``benchmark`` fixture (or its ``stats`` object) by duck typing:
    anything with ``.stats.data`` (or ``.data``), ``.iterations`` (or ``.stats.iterations``)
    and a ``.fullname``/``.name``.

    Parameters
    ----------
    source : path, file, str, bytes, dict or fixture object
        The result.
    name : str or iterable of str, optional
        Keep only these benchmarks, matched on ``fullname`` or ``name``.
    group : str, optional
        Keep only benchmarks of this group.

    Returns
    -------
    Measurements
        One benchmark per ``fullname``, one sample per round in recorded order:
        ``elapsed`` = data × iterations seconds, ``work`` = iterations. The file is one run
        (``run`` = 0): pytest-benchmark times every round in the same process, so the
        replicates of a benchmark are separate files (one per pytest process, e.g. one per
        CI job); :func:`pilotstats.io.load_many` gives each file its own run.

    Raises
    ------
    FormatError
        Malformed file, or a file saved without raw data (the message names
        ``--benchmark-save-data``).

    Notes
    -----
    Format: ``src/pytest_benchmark/plugin.py`` (``pytest_benchmark_generate_json``) and
    ``stats.py``.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"benchmarks": [{"name": "t", "fullname": "f.py::t", "group": None,
    ...        "stats": {"iterations": 10, "data": [1e-5, 2e-5]}}]}
    >>> load_pytest_benchmark(doc).elapsed.tolist()
    [0.0001, 0.0002]
    """
    stats_object = _pytest_benchmark_object(source)
    if stats_object is not None:
        document, label = {"benchmarks": [stats_object]}, "<pytest-benchmark fixture>"
    else:
        document, label = read_json(source)
    benchmarks = field_list(document, "benchmarks", label, "")
    builder = _Builder()
    available: list[str] = []
    for index, bench in enumerate(benchmarks):
        _pytest_benchmark_one(builder, available, document, bench, f"benchmarks[{index}]", label,
                              name, group)
    if name is not None:
        _check_found_any(builder, name, label, available)
    return builder.build(label, "pytest-benchmark benchmarks")


def _pytest_benchmark_one(builder: _Builder, available: list[str], document: Any, bench: Any,
                          path: str, label: str, name: str | Iterable[str] | None,
                          group: str | None) -> None:
    """Add one benchmark of a pytest-benchmark file, unless ``name``/``group`` leave it out."""
    short = field_str(bench, "name", label, path)
    full = field_str(bench, "fullname", label, path, default=short)
    available.append(full)
    if name is not None and not (_select(full, name) or _select(short, name)):
        return
    bench_group = field(bench, "group", label, path, default=None)
    if group is not None and bench_group != group:
        return
    stats = field_mapping(bench, "stats", label, path)
    if "data" not in stats:
        fail(label, f"{path}.stats.data",
             "missing: the file holds only summary statistics; rerun pytest with "
             "--benchmark-json=FILE, or save with --benchmark-save-data")
    data = number_list(stats["data"], label, f"{path}.stats.data", nonnegative=True)
    iterations = field_int(stats, "iterations", label, f"{path}.stats", minimum=1)
    if full in builder.metadata:
        fail(label, f"{path}.fullname", f"duplicate benchmark {full!r}")
    builder.add_many(full, [value * iterations for value in data], float(iterations), 0, 0)
    builder.metadata[full] = {
        "name": short,
        "group": bench_group,
        "params": field(bench, "params", label, path, default=None),
        "extra_info": field(bench, "extra_info", label, path, default={}),
        "options": field(bench, "options", label, path, default={}),
        "iterations": iterations,
        "machine_info": document.get("machine_info", {}) if isinstance(document, Mapping)
        else {},
        "commit_info": document.get("commit_info", {}) if isinstance(document, Mapping)
        else {},
        "datetime": document.get("datetime") if isinstance(document, Mapping) else None,
        "version": document.get("version") if isinstance(document, Mapping) else None,
        "unit": "s",
        "format": "pytest-benchmark",
        "source": label,
    }


def _pytest_benchmark_object(source: Any) -> dict[str, Any] | None:
    """Turn a pytest-benchmark fixture / Metadata object into a JSON-like dict, else None."""
    import numpy as np

    if isinstance(source, (str, bytes, os.PathLike, Mapping, list, np.ndarray)) or hasattr(
            source, "read"):  # an ndarray's .data is its buffer, not a fixture's timings
        return None
    stats = getattr(source, "stats", None)
    inner = getattr(stats, "stats", None)
    holder = inner if inner is not None and hasattr(inner, "data") else stats
    if holder is None or not hasattr(holder, "data"):
        holder = source if hasattr(source, "data") else None
    if holder is None:
        return None
    iterations = getattr(stats, "iterations", None) or getattr(source, "iterations", None) or 1
    name = getattr(source, "name", None) or getattr(stats, "name", "benchmark")
    full = getattr(source, "fullname", None) or getattr(stats, "fullname", None) or name
    return {"name": str(name), "fullname": str(full),
            "group": getattr(source, "group", None) or getattr(stats, "group", None),
            "stats": {"data": list(holder.data), "iterations": iterations}}


# --------------------------------------------------------------------------------------------
# asv


def load_asv(
    source: Source,
    *,
    benchmark: str | Iterable[str] | None = None,
    benchmarks_json: Source | None = None,
) -> Measurements:
    """Load the recorded samples of an asv result file (``asv run --record-samples``).

    Parameters
    ----------
    source : path, file, str, bytes or dict
        ``results/<machine>/<commit>-<env>.json``.
    benchmark : str or iterable of str, optional
        Benchmarks to keep, by asv name (``module.Class.time_x``) or by the expanded name of
        one parameter combination (``module.Class.time_x(10)``).
    benchmarks_json : path or dict, optional
        asv's ``results/benchmarks.json``, for parameter names and units. When ``source`` is a
        path, ``../benchmarks.json`` beside the machine folder is used if it exists.

    Returns
    -------
    Measurements
        One benchmark per (benchmark, parameter combination) in the cartesian-product order of
        asv's ``params``; ``elapsed`` = sample × ``stats_number`` seconds, ``work`` =
        ``stats_number``. Runs are asv's processes when the split is known (see the module
        overview); otherwise every sample is in run 0 and ``metadata["processes"]`` is None.

    Raises
    ------
    FormatError
        Malformed file, unsupported API version, or no samples (run with
        ``--record-samples``).

    Notes
    -----
    Format: ``asv/results.py`` (API version 2: ``result_columns`` and one row per benchmark,
    trailing ``None`` columns trimmed); rounds and samples per process:
    ``asv/runner.py`` (``run_benchmarks``, rounds appended with ``append_samples``) and
    ``asv_runner/benchmarks/time.py`` (``repeat`` → ``min_repeat``, ``max_repeat``).

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"version": 2, "result_columns": ["result", "params", "stats_number", "samples"],
    ...        "results": {"b.time_x": [[1e-6], [], [100], [[1e-6, 2e-6]]]}}
    >>> load_asv(doc).work.tolist()
    [100.0, 100.0]
    >>> described = {"b.time_x": {"rounds": 2, "repeat": 1, "unit": "seconds"}}
    >>> load_asv(doc, benchmarks_json=described).runs
    (0, 1)
    """
    document, label = read_json(source)
    version = field(document, "version", label, "")
    if version != 2:
        fail(label, "version", f"unsupported asv results API version {version!r} (need 2)")
    columns = field_list(document, "result_columns", label, "")
    results = field_mapping(document, "results", label, "")
    described = _asv_described(source, benchmarks_json)
    builder = _Builder()
    found = _AsvFound()
    common = {key: document.get(key) for key in ("commit_hash", "env_name", "date", "params",
                                                 "python")}
    for bench_name, row in results.items():
        _asv_row(builder, found, bench_name, row, columns, described, common, benchmark, label)
    available, skipped, unknown = found.available, found.skipped, found.unknown
    if unknown:
        warnings.warn(f"{label}: cannot tell which asv process recorded each sample of "
                      f"{unknown} (a variable repeat whose processes stopped early); all "
                      "their samples are one run: set a fixed `repeat` in the benchmark to "
                      "keep the processes apart", FormatWarning, stacklevel=2)
    if skipped and builder.metadata:
        warnings.warn(f"{label}: no recorded samples for {skipped}; skipped (failed or not "
                      "run with --record-samples)", FormatWarning, stacklevel=2)
    if not builder.metadata and not skipped:
        _check_found(builder, benchmark, label, available)
    return builder.build(label, "no benchmark has recorded samples; run asv with "
                         "--record-samples")


def _asv_described(source: Source, benchmarks_json: Source | None) -> Mapping[str, Any]:
    """asv's ``benchmarks.json``: given, or found beside the machine folder, else empty."""
    described: Mapping[str, Any] = {}
    if benchmarks_json is not None:
        described, _ = read_json(benchmarks_json)
    elif isinstance(source, (str, os.PathLike)) and os.path.exists(os.fspath(source)):
        folder = Path(os.fspath(source)).resolve().parent
        for candidate in (folder.parent / "benchmarks.json", folder / "benchmarks.json"):
            if candidate.is_file():
                described, _ = read_json(candidate)
                break
    return described


@dataclasses.dataclass(slots=True)
class _AsvFound:
    """Names seen while reading an asv file: every one, those without samples, those whose
    processes cannot be told apart."""

    available: list[str] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)
    unknown: list[str] = dataclasses.field(default_factory=list)


def _asv_row(builder: _Builder, found: _AsvFound, bench_name: str, row: Any,
             columns: list[Any], described: Mapping[str, Any], common: Mapping[str, Any],
             benchmark: str | Iterable[str] | None, label: str) -> None:
    """Add every kept parameter combination of one asv result row to ``builder``."""
    path = f"results[{bench_name!r}]"
    if not isinstance(row, list):
        fail(label, path, f"expected a row list, got {type(row).__name__}")
    if len(row) > len(columns):
        fail(label, path, f"row has {len(row)} entries but result_columns has {len(columns)}")
    cells = dict(zip(columns, list(row) + [None] * (len(columns) - len(row)), strict=True))
    params = cells.get("params") or []
    if not isinstance(params, list) or not all(isinstance(p, list) for p in params):
        fail(label, f"{path}.params", "expected a list of parameter value lists")
    combos = list(itertools.product(*params)) if params else [()]
    info = described.get(bench_name, {}) if isinstance(described, Mapping) else {}
    param_names = info.get("param_names", []) if isinstance(info, Mapping) else []
    samples = cells.get("samples")
    numbers = cells.get("stats_number")
    for k, combo in enumerate(combos):
        full = f"{bench_name}({', '.join(str(v) for v in combo)})" if combo else bench_name
        found.available.append(full)
        if benchmark is not None and not (_select(full, benchmark)
                                          or _select(bench_name, benchmark)):
            continue
        sample = _asv_cell(samples, k, len(combos), label, f"{path}.samples")
        if sample is None:
            found.skipped.append(full)
            continue
        values = number_list(sample, label, f"{path}.samples[{k}]", nonnegative=True)
        number = _asv_cell(numbers, k, len(combos), label, f"{path}.stats_number")
        work = 1.0 if number is None else as_number(
            number, label, f"{path}.stats_number[{k}]", positive=True)
        per_process = _asv_samples_per_process(info, len(values))
        if per_process is None:
            builder.add_many(full, [value * work for value in values], work, 0, 0)
            if info:
                found.unknown.append(full)
        else:
            for start in range(0, len(values), per_process):
                builder.add_many(full, [value * work for value in
                                        values[start:start + per_process]],
                                 work, start // per_process, 0)
        unit = info.get("unit", "seconds") if isinstance(info, Mapping) else "seconds"
        builder.metadata[full] = {
            **common,
            "benchmark": bench_name,
            "params": dict(zip(param_names, combo, strict=False)) if param_names
            else list(combo),
            "number": work,
            "result": _asv_cell(cells.get("result"), k, len(combos), label, f"{path}.result"),
            "ci_99": [_asv_cell(cells.get("stats_ci_99_a"), k, len(combos), label, path),
                      _asv_cell(cells.get("stats_ci_99_b"), k, len(combos), label, path)],
            "unit": "s" if unit == "seconds" else str(unit),
            "processes": None if per_process is None else len(values) // per_process,
            "format": "asv",
            "source": label,
        }


def _asv_samples_per_process(info: Any, count: int) -> int | None:
    """Samples each asv process recorded, when ``benchmarks.json`` pins it down, else None.

    Mirrors ``asv_runner/benchmarks/time.py``: ``repeat`` 0 means 1..10 samples per process
    (1..5 when ``rounds`` > 1); an integer n means exactly n; a triple gives (min, max, time).
    """
    if not isinstance(info, Mapping) or not info or count == 0:
        return None
    rounds, repeat = info.get("rounds", 2), info.get("repeat", 0)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        return None
    if isinstance(repeat, list) and len(repeat) == 3 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in repeat):
        low, high = int(repeat[0]), int(repeat[1])
        fixed = low == high
    elif isinstance(repeat, int) and not isinstance(repeat, bool) and repeat >= 0:
        fixed = repeat > 0
        high = repeat if fixed else (5 if rounds > 1 else 10)
    else:
        return None
    if high < 1 or count % high:
        return None
    if fixed or count == rounds * high:
        return high
    return None


def _asv_cell(column: Any, index: int, count: int, label: str, path: str) -> Any:
    if column is None:
        return None
    if not isinstance(column, list) or len(column) != count:
        fail(label, path, f"expected a list with one entry per parameter combination ({count})")
    return column[index]
