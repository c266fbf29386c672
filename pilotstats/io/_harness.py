"""Loaders for the JSON result files of benchmark harnesses.

Each loader parses the file itself (no harness is imported), converts times to seconds and
returns a :class:`~pilotstats.io.Measurements`. Formats and their meaning are documented in
each loader's docstring, read from the harnesses' own sources.
"""

from __future__ import annotations

import itertools
import os
import re
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pilotstats.exceptions import FormatError, FormatWarning, InvalidInputError
from pilotstats.io._measurements import Measurements
from pilotstats.io._source import (
    Source,
    as_number,
    fail,
    field,
    field_float,
    field_int,
    field_list,
    field_mapping,
    field_str,
    number_list,
    read_json,
)

__all__ = [
    "load_asv",
    "load_criterion",
    "load_google_benchmark",
    "load_hyperfine",
    "load_jmh",
    "load_pyperf",
    "load_pytest_benchmark",
]

#: Seconds per time unit label used by the harnesses.
TIME_UNITS: dict[str, float] = {
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0,
    "min": 60.0, "hr": 3600.0, "day": 86400.0,
}


class _Builder:
    """Accumulates samples, then builds one :class:`Measurements`."""

    def __init__(self) -> None:
        self.elapsed: list[float] = []
        self.work: list[float] = []
        self.run: list[int] = []
        self.order: list[int] = []
        self.warmup: list[bool] = []
        self.name: list[str] = []
        self.metadata: dict[str, dict[str, Any]] = {}

    def add(self, name: str, elapsed: float, work: float, run: int, order: int,
            warmup: bool = False) -> None:
        self.elapsed.append(elapsed)
        self.work.append(work)
        self.run.append(run)
        self.order.append(order)
        self.warmup.append(warmup)
        self.name.append(name)

    def add_many(self, name: str, elapsed: list[float], work: float | list[float], run: int,
                 order_start: int, warmup: bool = False) -> None:
        count = len(elapsed)
        self.elapsed.extend(elapsed)
        self.work.extend(work if isinstance(work, list) else [work] * count)
        self.run.extend([run] * count)
        self.order.extend(range(order_start, order_start + count))
        self.warmup.extend([warmup] * count)
        self.name.extend([name] * count)

    def build(self, label: str, what: str) -> Measurements:
        if not self.elapsed:
            raise FormatError(f"{label}: no samples found ({what})", source=label)
        return Measurements(self.elapsed, work=self.work, run=self.run, order=self.order,
                            warmup=self.warmup, benchmark=self.name, metadata=self.metadata)


def _select(name: str, wanted: str | Iterable[str] | None) -> bool:
    if wanted is None:
        return True
    if isinstance(wanted, str):
        return name == wanted
    return name in set(wanted)


def _check_found(builder: _Builder, wanted: str | Iterable[str] | None, label: str,
                 available: list[str]) -> None:
    if wanted is None:
        return
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    missing = [n for n in names if n not in builder.metadata]
    if missing:
        raise FormatError(
            f"{label}: benchmark(s) {missing} not found; available: {available}", source=label
        )


# --------------------------------------------------------------------------------------------
# pyperf


_CALIBRATION_KEYS = ("calibrate_loops", "recalibrate_loops", "calibrate_warmups",
                     "recalibrate_warmups")


def load_pyperf(
    source: Source,
    *,
    benchmark: str | Iterable[str] | None = None,
    include_warmups: bool = True,
    include_calibration: bool = False,
) -> Measurements:
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
    ``Run._json_load`` does. Harness spec §1.1.

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
        path = f"benchmarks[{b_index}]"
        bench_meta = {**suite_meta, **field_mapping(bench, "metadata", label, path, default={})}
        runs = field_list(bench, "runs", label, path)
        run_metas = []
        for r_index, run in enumerate(runs):
            run_meta = field_mapping(run, "metadata", label, f"{path}.runs[{r_index}]",
                                     default={})
            run_metas.append({**bench_meta, **run_meta})
        names = {str(m.get("name")) for m in run_metas if "name" in m}
        if "name" in bench_meta:
            name = str(bench_meta["name"])
        elif len(names) == 1:
            name = names.pop()
        else:
            fail(label, f"{path}.metadata.name", "missing benchmark name")
        available.append(name)
        if not _select(name, benchmark):
            continue
        unit = str(bench_meta.get("unit", "second"))
        if unit not in ("second", "byte", "integer"):
            fail(label, f"{path}.metadata.unit", f"unknown unit {unit!r}")
        per_run: dict[int, dict[str, Any]] = {}
        for r_index, (run, merged) in enumerate(zip(runs, run_metas, strict=True)):
            rpath = f"{path}.runs[{r_index}]"
            value_key = "samples" if version == 5 else "values"
            values = number_list(field(run, value_key, label, rpath, default=[]), label,
                                 f"{rpath}.{value_key}", positive=True)
            calibration = any(key in merged for key in _CALIBRATION_KEYS)
            if calibration and values:
                fail(label, rpath, "a calibration run must not have values")
            if calibration and not include_calibration:
                continue
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
            per_run[r_index] = {k: v for k, v in merged.items() if k not in bench_meta
                                or bench_meta[k] != v}
        builder.metadata[name] = {
            **bench_meta,
            "unit": "s" if unit == "second" else unit,
            "format": "pyperf",
            "source": label,
            "run_metadata": per_run,
        }
    _check_found(builder, benchmark, label, available)
    return builder.build(label, "pyperf benchmarks with values")


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
        One benchmark per ``fullname``, one run, one sample per round in recorded order:
        ``elapsed`` = data × iterations seconds, ``work`` = iterations.

    Raises
    ------
    FormatError
        Malformed file, or a file saved without raw data (the message names
        ``--benchmark-save-data``).

    Notes
    -----
    Format: ``src/pytest_benchmark/plugin.py`` (``pytest_benchmark_generate_json``) and
    ``stats.py``; harness spec §2.

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
        path = f"benchmarks[{index}]"
        short = field_str(bench, "name", label, path)
        full = field_str(bench, "fullname", label, path, default=short)
        available.append(full)
        if name is not None and not (_select(full, name) or _select(short, name)):
            continue
        bench_group = field(bench, "group", label, path, default=None)
        if group is not None and bench_group != group:
            continue
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
    if name is not None:
        _check_found_any(builder, name, label, available)
    return builder.build(label, "pytest-benchmark benchmarks")


def _check_found_any(builder: _Builder, wanted: str | Iterable[str], label: str,
                     available: list[str]) -> None:
    if not builder.metadata:
        raise FormatError(f"{label}: benchmark(s) {wanted!r} not found; available: "
                          f"{available}", source=label)


def _pytest_benchmark_object(source: Any) -> dict[str, Any] | None:
    """Turn a pytest-benchmark fixture / Metadata object into a JSON-like dict, else None."""
    if isinstance(source, (str, bytes, os.PathLike, Mapping, list)) or hasattr(source, "read"):
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
        asv's ``params``; one run (asv does not record which round a sample came from);
        ``elapsed`` = sample × ``stats_number`` seconds, ``work`` = ``stats_number``.

    Raises
    ------
    FormatError
        Malformed file, unsupported API version, or no samples (run with
        ``--record-samples``).

    Notes
    -----
    Format: ``asv/results.py`` (API version 2: ``result_columns`` and one row per benchmark,
    trailing ``None`` columns trimmed). Harness spec §3.1 and §3.3.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"version": 2, "result_columns": ["result", "params", "stats_number", "samples"],
    ...        "results": {"b.time_x": [[1e-6], [], [100], [[1e-6, 2e-6]]]}}
    >>> load_asv(doc).work.tolist()
    [100.0, 100.0]
    """
    document, label = read_json(source)
    version = field(document, "version", label, "")
    if version != 2:
        fail(label, "version", f"unsupported asv results API version {version!r} (need 2)")
    columns = field_list(document, "result_columns", label, "")
    results = field_mapping(document, "results", label, "")
    described: Mapping[str, Any] = {}
    if benchmarks_json is not None:
        described, _ = read_json(benchmarks_json)
    elif isinstance(source, (str, os.PathLike)) and os.path.exists(os.fspath(source)):
        candidate = Path(os.fspath(source)).resolve().parent.parent / "benchmarks.json"
        if candidate.is_file():
            described, _ = read_json(candidate)
    builder = _Builder()
    available: list[str] = []
    skipped: list[str] = []
    common = {key: document.get(key) for key in ("commit_hash", "env_name", "date", "params",
                                                 "python")}
    for bench_name, row in results.items():
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
            available.append(full)
            if benchmark is not None and not (_select(full, benchmark)
                                              or _select(bench_name, benchmark)):
                continue
            cpath = f"{path}.samples[{k}]"
            sample = _asv_cell(samples, k, len(combos), label, f"{path}.samples")
            if sample is None:
                skipped.append(full)
                continue
            values = number_list(sample, label, cpath, nonnegative=True)
            number = _asv_cell(numbers, k, len(combos), label, f"{path}.stats_number")
            work = 1.0 if number is None else as_number(
                number, label, f"{path}.stats_number[{k}]", positive=True)
            builder.add_many(full, [value * work for value in values], work, 0, 0)
            unit = info.get("unit", "seconds") if isinstance(info, Mapping) else "seconds"
            builder.metadata[full] = {
                **common,
                "benchmark": bench_name,
                "params": dict(zip(param_names, combo, strict=False)) if param_names
                else list(combo),
                "number": work,
                "result": _asv_cell(cells.get("result"), k, len(combos), label,
                                    f"{path}.result"),
                "ci_99": [_asv_cell(cells.get("stats_ci_99_a"), k, len(combos), label, path),
                          _asv_cell(cells.get("stats_ci_99_b"), k, len(combos), label, path)],
                "unit": "s" if unit == "seconds" else str(unit),
                "format": "asv",
                "source": label,
            }
    if skipped and builder.metadata:
        warnings.warn(f"{label}: no recorded samples for {skipped}; skipped (failed or not "
                      "run with --record-samples)", FormatWarning, stacklevel=2)
    if not builder.metadata and not skipped:
        _check_found(builder, benchmark, label, available)
    return builder.build(label, "no benchmark has recorded samples; run asv with "
                         "--record-samples")


def _asv_cell(column: Any, index: int, count: int, label: str, path: str) -> Any:
    if column is None:
        return None
    if not isinstance(column, list) or len(column) != count:
        fail(label, path, f"expected a list with one entry per parameter combination ({count})")
    return column[index]


# --------------------------------------------------------------------------------------------
# Google Benchmark


def load_google_benchmark(
    source: Source,
    *,
    name: str | Iterable[str] | None = None,
    clock: Literal["real", "cpu"] = "real",
) -> Measurements:
    """Load Google Benchmark JSON (``--benchmark_out=FILE --benchmark_out_format=json``).

    Parameters
    ----------
    source : path, file, str, bytes or dict
        The output file.
    name : str or iterable of str, optional
        ``run_name`` of the benchmarks to keep.
    clock : {"real", "cpu"}, default "real"
        Use ``real_time`` (wall clock) or ``cpu_time``.

    Returns
    -------
    Measurements
        One benchmark per ``run_name``; one run per repetition (``repetition_index``), holding
        one sample: ``elapsed`` = time × iterations converted from ``time_unit`` to seconds,
        ``work`` = iterations. Aggregate rows (mean, median, stddev, cv) are skipped; errored
        and skipped rows are dropped with a :class:`~pilotstats.exceptions.FormatWarning`.

    Raises
    ------
    FormatError
        Malformed file, or a file holding only aggregates (written with
        ``--benchmark_report_aggregates_only``).

    Notes
    -----
    Format: ``src/json_reporter.cc``; ``real_time``/``cpu_time`` are per-iteration averages.
    Harness spec §4.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"context": {}, "benchmarks": [
    ...     {"name": "BM/8", "run_name": "BM/8", "run_type": "iteration", "repetition_index": 0,
    ...      "iterations": 1000, "real_time": 2.0, "cpu_time": 1.9, "time_unit": "us"}]}
    >>> load_google_benchmark(doc).elapsed.tolist()
    [0.002]
    """
    if clock not in ("real", "cpu"):
        raise InvalidInputError(f"clock must be 'real' or 'cpu', got {clock!r}")
    document, label = read_json(source)
    context = field_mapping(document, "context", label, "", default={})
    rows = field_list(document, "benchmarks", label, "")
    builder = _Builder()
    aggregates = 0
    dropped: list[str] = []
    counters: dict[str, int] = {}
    key = f"{clock}_time"
    for index, row in enumerate(rows):
        path = f"benchmarks[{index}]"
        row_name = field_str(row, "name", label, path)
        run_name = field_str(row, "run_name", label, path, default=row_name)
        run_type = field_str(row, "run_type", label, path,
                             default="aggregate" if "aggregate_name" in row else "iteration")
        if run_type == "aggregate":
            aggregates += 1
            continue
        if run_type != "iteration":
            fail(label, f"{path}.run_type", f"unknown run type {run_type!r}")
        if not _select(run_name, name):
            continue
        if row.get("error_occurred") or row.get("skipped"):
            dropped.append(run_name)
            continue
        unit = field_str(row, "time_unit", label, path, default="ns")
        if unit not in TIME_UNITS:
            fail(label, f"{path}.time_unit", f"unknown time unit {unit!r}")
        iterations = field_int(row, "iterations", label, path, minimum=1)
        per_iteration = field_float(row, key, label, path, nonnegative=True)
        repetition = field_int(row, "repetition_index", label, path,
                               default=counters.get(run_name, 0), minimum=0)
        counters[run_name] = repetition + 1
        builder.add(run_name, per_iteration * TIME_UNITS[unit] * iterations, float(iterations),
                    repetition, 0)
        if run_name not in builder.metadata:
            extras = {k: v for k, v in row.items() if k not in {
                "name", "run_name", "run_type", "repetition_index", "iterations", "real_time",
                "cpu_time", "time_unit"}}
            builder.metadata[run_name] = {**extras, "context": dict(context), "clock": clock,
                                          "time_unit": unit, "unit": "s",
                                          "format": "google-benchmark", "source": label}
    if dropped:
        warnings.warn(f"{label}: dropped errored or skipped rows of {sorted(set(dropped))}",
                      FormatWarning, stacklevel=2)
    if not builder.elapsed and aggregates:
        fail(label, "benchmarks", "only aggregate rows (mean/median/stddev): the file was "
             "written with --benchmark_report_aggregates_only; rerun without it (use "
             "--benchmark_display_aggregates_only to shorten only the console output)")
    if name is not None and not builder.metadata:
        fail(label, "benchmarks", f"no benchmark with run_name {name!r}")
    return builder.build(label, "Google Benchmark iteration rows")


# --------------------------------------------------------------------------------------------
# hyperfine


def load_hyperfine(source: Source, *, command: str | Iterable[str] | None = None
                   ) -> Measurements:
    """Load a hyperfine JSON export (``hyperfine --export-json FILE ...``).

    Parameters
    ----------
    source : path, file, str, bytes or dict
        The export.
    command : str or iterable of str, optional
        Commands to keep (as written in the export, parameters substituted).

    Returns
    -------
    Measurements
        One benchmark per command, one run, ``elapsed`` = ``times`` (seconds), ``work`` = 1.
        ``exit_codes`` and ``parameters`` are kept in the metadata; a non-zero exit code gives
        a :class:`~pilotstats.exceptions.FormatWarning`.

    Notes
    -----
    Format: ``src/export/json.rs`` and ``src/benchmark/benchmark_result.rs``; warm-up runs
    (``--warmup``) are not exported. Harness spec §5.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"results": [{"command": "sleep 0.1", "times": [0.101, 0.102],
    ...                     "exit_codes": [0, 0]}]}
    >>> load_hyperfine(doc).names
    ('sleep 0.1',)
    """
    document, label = read_json(source)
    results = field_list(document, "results", label, "")
    builder = _Builder()
    available = []
    for index, result in enumerate(results):
        path = f"results[{index}]"
        cmd = field_str(result, "command", label, path)
        parameters = field_mapping(result, "parameters", label, path, default={})
        name = cmd
        if name in available and parameters:
            name = f"{cmd} [{', '.join(f'{k}={v}' for k, v in parameters.items())}]"
        copy = 2
        while name in available:  # the same command benchmarked twice: keep both
            name = f"{cmd} (#{copy})"
            copy += 1
        available.append(name)
        if not (_select(cmd, command) or _select(name, command)):
            continue
        times = number_list(field(result, "times", label, path), label, f"{path}.times",
                            nonnegative=True)
        exit_codes = field(result, "exit_codes", label, path, default=None)
        if exit_codes is not None:
            if not isinstance(exit_codes, list) or len(exit_codes) != len(times):
                fail(label, f"{path}.exit_codes", "expected one exit code per time")
            if any(code not in (0, None) for code in exit_codes):
                warnings.warn(f"{label}: command {cmd!r} had non-zero exit codes; see "
                              "metadata['exit_codes'] to filter", FormatWarning, stacklevel=2)
        builder.add_many(name, times, 1.0, 0, 0)
        builder.metadata[name] = {
            "command": cmd, "parameters": dict(parameters), "exit_codes": exit_codes,
            "memory_usage_byte": result.get("memory_usage_byte"),
            "unit": "s", "format": "hyperfine", "source": label,
        }
    _check_found(builder, command, label, available)
    return builder.build(label, "hyperfine results")


# --------------------------------------------------------------------------------------------
# JMH

_DURATION = re.compile(r"^\s*([0-9.]+)\s*(ns|us|µs|ms|s|min|hr|day)\s*$")


def _jmh_unit(unit: str, label: str, path: str) -> tuple[str, float]:
    """Split ``ops/s`` or ``ns/op`` into (kind, seconds factor)."""
    parts = unit.split("/")
    if len(parts) == 2 and parts[0] == "ops" and parts[1] in TIME_UNITS:
        return "throughput", TIME_UNITS[parts[1]]
    if len(parts) == 2 and parts[1] == "op" and parts[0] in TIME_UNITS:
        return "time", TIME_UNITS[parts[0]]
    fail(label, path, f"unsupported score unit {unit!r} (need ops/<time> or <time>/op)")


def load_jmh(
    source: Source,
    *,
    benchmark: str | Iterable[str] | None = None,
    metric: str = "primary",
) -> Measurements:
    """Load JMH JSON results (``java -jar benchmarks.jar -rf json -rff FILE``).

    Parameters
    ----------
    source : path, file, str, bytes or list
        The result file (a JSON array, one element per benchmark and parameter set).
    benchmark : str or iterable of str, optional
        Benchmarks to keep, by full name (with parameters, ``pkg.Class.method(size=100)``) or
        by method name without parameters.
    metric : str, default "primary"
        ``"primary"`` or the name of a secondary metric with a time unit.

    Returns
    -------
    Measurements
        One run per fork, one sample per measurement iteration (warm-up iterations are not in
        JMH's JSON). Time modes (``avgt``, ``ss``; unit ``<time>/op``): ``elapsed`` = score in
        seconds, ``work`` = 1 (op counts are not stored). Throughput mode (``ops/<time>``):
        ``elapsed`` = the iteration time (``measurementTime``), ``work`` = score × that time,
        so ``time_per_work`` is seconds per op and the metadata key ``"mean"`` is
        ``"harmonic"``: the mean time per op is the reciprocal of the mean throughput. Sample
        mode (``rawDataHistogram``) is expanded to one sample per recorded op.

    Raises
    ------
    FormatError
        Malformed file, non-numeric scores (``"NaN"``), or ``rawData`` switched off
        (``-Djmh.json.rawData=false``).

    Notes
    -----
    Format: ``jmh-core/.../results/format/JSONResultFormat.java``. Harness spec §7.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = [{"benchmark": "p.C.m", "mode": "avgt", "primaryMetric": {
    ...     "score": 2.0, "scoreUnit": "us/op", "rawData": [[2.0, 2.1], [1.9, 2.0]]}}]
    >>> m = load_jmh(doc)
    >>> m.runs, [round(t * 1e6, 9) for t in m.elapsed.tolist()]
    ((0, 1), [2.0, 2.1, 1.9, 2.0])
    """
    document, label = read_json(source)
    if not isinstance(document, list):
        fail(label, None, f"expected a JSON array of benchmark results, got "
             f"{type(document).__name__}")
    builder = _Builder()
    available: list[str] = []
    for index, entry in enumerate(document):
        path = f"[{index}]"
        method = field_str(entry, "benchmark", label, path)
        params = field_mapping(entry, "params", label, path, default={})
        full = method + (f"({', '.join(f'{k}={v}' for k, v in params.items())})"
                         if params else "")
        available.append(full)
        if benchmark is not None and not (_select(full, benchmark)
                                          or _select(method, benchmark)):
            continue
        field_str(entry, "mode", label, path)  # validated; kept in the metadata
        if metric == "primary":
            mpath = f"{path}.primaryMetric"
            block = field_mapping(entry, "primaryMetric", label, path)
        else:
            secondary = field_mapping(entry, "secondaryMetrics", label, path, default={})
            mpath = f"{path}.secondaryMetrics"
            block = field_mapping(secondary, metric, label, mpath)
            mpath = f"{mpath}.{metric}"
        unit = field_str(block, "scoreUnit", label, mpath)
        kind, factor = _jmh_unit(unit, label, f"{mpath}.scoreUnit")
        meta = {k: v for k, v in entry.items() if k not in ("primaryMetric",
                                                            "secondaryMetrics")}
        meta.update({"score": block.get("score"), "scoreError": block.get("scoreError"),
                     "scoreUnit": unit, "metric": metric, "unit": "s", "format": "jmh",
                     "source": label, "mean": "harmonic" if kind == "throughput"
                     else "arithmetic", "work_known": False})
        if "rawData" in block:
            forks = field_list(block, "rawData", label, mpath)
            iteration_time = None
            if kind == "throughput":
                iteration_time = _jmh_duration(entry, label, path)
            for fork, scores in enumerate(forks):
                values = number_list(scores, label, f"{mpath}.rawData[{fork}]", positive=True)
                for order, score in enumerate(values):
                    if iteration_time is None:
                        builder.add(full, score * factor, 1.0, fork, order)
                    else:
                        ops = score / factor * iteration_time
                        builder.add(full, iteration_time, ops, fork, order)
        elif "rawDataHistogram" in block:
            forks = field_list(block, "rawDataHistogram", label, mpath)
            for fork, iterations in enumerate(forks):
                fpath = f"{mpath}.rawDataHistogram[{fork}]"
                if not isinstance(iterations, list):
                    fail(label, fpath, "expected a list of iterations")
                order = 0
                for it_index, histogram in enumerate(iterations):
                    if not isinstance(histogram, list):
                        fail(label, f"{fpath}[{it_index}]", "expected [value, count] pairs")
                    for pair in histogram:
                        if not isinstance(pair, list) or len(pair) != 2:
                            fail(label, f"{fpath}[{it_index}]",
                                 f"expected a [value, count] pair, got {pair!r}")
                        value = as_number(pair[0], label, f"{fpath}[{it_index}]", positive=True)
                        count = as_number(pair[1], label, f"{fpath}[{it_index}]",
                                          positive=True)
                        for _ in range(int(count)):
                            builder.add(full, value * factor if kind == "time" else 1.0 / (
                                value / factor), 1.0, fork, order)
                            order += 1
        else:
            fail(label, f"{mpath}.rawData", "missing: per-iteration scores were switched off "
                 "(-Djmh.json.rawData=false); rerun without it")
        builder.metadata[full] = meta
    if benchmark is not None:
        _check_found_any(builder, benchmark, label, available)
    return builder.build(label, "JMH results")


def _jmh_duration(entry: Mapping[str, Any], label: str, path: str) -> float:
    text = field_str(entry, "measurementTime", label, path)
    match = _DURATION.match(text)
    if not match:
        fail(label, f"{path}.measurementTime", f"cannot parse duration {text!r}")
    batch = field_int(entry, "measurementBatchSize", label, path, default=1, minimum=1)
    del batch  # batch size scales ops, not the iteration time
    return float(match.group(1)) * TIME_UNITS[match.group(2)]


# --------------------------------------------------------------------------------------------
# criterion.rs


def load_criterion(
    source: Source,
    *,
    name: str | None = None,
    baseline: str = "new",
) -> Measurements:
    """Load criterion.rs ``sample.json`` files.

    Parameters
    ----------
    source : path, file, str, bytes or dict
        A ``sample.json`` file (or its content), a benchmark folder
        ``target/criterion/<id>`` (reads ``<baseline>/sample.json``), or a whole
        ``target/criterion`` folder (every benchmark below it).
    name : str, optional
        Benchmark name for in-memory input, or to override the name read from
        ``benchmark.json`` (``full_id``) / the folder path.
    baseline : str, default "new"
        Sub-folder to read: ``new``, ``base`` or a named baseline.

    Returns
    -------
    Measurements
        One run per benchmark, samples in recorded (increasing-iterations) order:
        ``elapsed`` = ``times`` × 1e-9 s (criterion stores total nanoseconds per sample),
        ``work`` = ``iters``. The ``sampling_mode`` (Linear/Flat) is in the metadata.

    Notes
    -----
    Format: criterion.rs 0.7 ``SavedSample`` (``sampling_mode``, ``iters``, ``times``) in
    ``target/criterion/<id>/<baseline>/sample.json``. Harness spec §6.1, §6.4.

    Complexity: O(size of the files).

    Examples
    --------
    >>> doc = {"sampling_mode": "Linear", "iters": [10.0, 20.0], "times": [1000.0, 2100.0]}
    >>> m = load_criterion(doc, name="bench")
    >>> m.work.tolist(), [round(t * 1e9, 9) for t in m.elapsed.tolist()]
    ([10.0, 20.0], [1000.0, 2100.0])
    """
    if isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source)):
        root = Path(os.fspath(source))
        direct = root / baseline / "sample.json"
        files = [direct] if direct.is_file() else sorted(
            p for p in root.rglob("sample.json") if p.parent.name == baseline)
        if not files:
            raise FormatError(f"{root}: no {baseline}/sample.json below this folder",
                              source=str(root))
        parts = []
        for file in files:
            bench_dir = file.parent.parent
            bench_name = name if (name and len(files) == 1) else _criterion_name(
                bench_dir, root if len(files) > 1 else bench_dir.parent)
            parts.append(_criterion_one(file, bench_name, baseline))
        return Measurements.concat(parts)
    fallback = name
    if fallback is None and isinstance(source, (str, os.PathLike)) and os.path.exists(
            os.fspath(source)):
        file = Path(os.fspath(source))
        fallback = _criterion_name(file.parent.parent, file.parent.parent.parent)
    return _criterion_one(source, fallback or "criterion", baseline)


def _criterion_name(bench_dir: Path, root: Path) -> str:
    meta = bench_dir / "new" / "benchmark.json"
    if meta.is_file():
        try:
            document, _ = read_json(meta)
            if isinstance(document, Mapping) and isinstance(document.get("full_id"), str):
                return str(document["full_id"])
        except FormatError:
            pass
    try:
        return bench_dir.relative_to(root).as_posix()
    except ValueError:
        return bench_dir.name


def _criterion_one(source: Source, bench_name: str, baseline: str) -> Measurements:
    document, label = read_json(source)
    mode = field_str(document, "sampling_mode", label, "", default="Linear")
    if mode not in ("Linear", "Flat"):
        fail(label, "sampling_mode", f"expected 'Linear' or 'Flat', got {mode!r}")
    iters = number_list(field(document, "iters", label, ""), label, "iters", positive=True)
    times = number_list(field(document, "times", label, ""), label, "times", nonnegative=True)
    if len(iters) != len(times):
        fail(label, "times", f"has {len(times)} entries but iters has {len(iters)}")
    builder = _Builder()
    builder.add_many(bench_name, [total * 1e-9 for total in times], iters, 0, 0)
    builder.metadata[bench_name] = {"sampling_mode": mode, "baseline": baseline, "unit": "s",
                                    "format": "criterion", "source": label}
    return builder.build(label, "criterion samples")

