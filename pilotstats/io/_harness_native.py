"""Loaders for the result files of the native and JVM harnesses: Google Benchmark,
hyperfine, JMH and Criterion.rs.

Each loader parses the file itself (no harness is imported), converts times to seconds and
returns a :class:`~pilotstats.io.Measurements`; each format is documented in its
loader's docstring, read from the harness's own sources.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pilotstats.exceptions import FormatError, FormatWarning, InvalidInputError
from pilotstats.io._harness_common import (
    TIME_UNITS,
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
    field_float,
    field_int,
    field_list,
    field_mapping,
    field_str,
    number_list,
    read_json,
)

# --------------------------------------------------------------------------------------------
# Google Benchmark


def load_google_benchmark(source: Source, *, name: str | Iterable[str] | None = None,
                          clock: Literal["real", "cpu"] = "real") -> Measurements:
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
        _google_row(builder, row, path, label, run_name, clock, context, counters)
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


def _google_row(builder: _Builder, row: Any, path: str, label: str, run_name: str, clock: str,
                context: Mapping[str, Any], counters: dict[str, int]) -> None:
    """Add one iteration row (one repetition) of a Google Benchmark file."""
    unit = field_str(row, "time_unit", label, path, default="ns")
    if unit not in TIME_UNITS:
        fail(label, f"{path}.time_unit", f"unknown time unit {unit!r}")
    iterations = field_int(row, "iterations", label, path, minimum=1)
    per_iteration = field_float(row, f"{clock}_time", label, path, nonnegative=True)
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
                                      "format": "google-benchmark", "source": label,
                                      "runs_share_process": True}


# --------------------------------------------------------------------------------------------
# hyperfine


_HYPERFINE_TIMES = ("wall", "user", "user+system")


def load_hyperfine(source: Source, *, command: str | Iterable[str] | None = None,
                   time: Literal["wall", "user", "user+system"] = "wall") -> Measurements:
    """Load a hyperfine JSON export (``hyperfine --export-json FILE ...``).

    Parameters
    ----------
    source : path, file, str, bytes or dict
        The export.
    command : str or iterable of str, optional
        Commands to keep (as written in the export, parameters substituted).
    time : {"wall", "user", "user+system"}, default "wall"
        Which time of each run: the wall-clock ``times``, the user CPU time, or user plus
        system CPU time. hyperfine (up to 1.19 at least) exports ``user`` and ``system`` only
        as the *mean* over the runs (sharkdp/hyperfine#660), so ``"user"`` and
        ``"user+system"`` need an export whose ``user``/``system`` fields are lists with one
        value per run (as ``times``); a mean-only export raises :class:`FormatError`.

    Returns
    -------
    Measurements
        One benchmark per command; every timing is its own run (hyperfine starts a new
        process for each), ``run`` = 0, 1, ... in recorded order, one sample per run:
        ``elapsed`` = the chosen time (seconds), ``work`` = 1. ``exit_codes``,
        ``parameters`` and ``time`` are kept in the metadata; a non-zero exit code gives a
        :class:`~pilotstats.exceptions.FormatWarning`.

    Raises
    ------
    InvalidInputError
        ``time`` is not one of ``"wall"``, ``"user"``, ``"user+system"``.
    FormatError
        Malformed export, or ``time="user"``/``"user+system"`` on an export without per-run
        user/system times.

    Notes
    -----
    Format: ``src/export/json.rs`` and ``src/benchmark/benchmark_result.rs``; warm-up runs
    (``--warmup``) are not exported.

    Complexity: O(size of the file).

    Examples
    --------
    >>> doc = {"results": [{"command": "sleep 0.1", "times": [0.101, 0.102],
    ...                     "user": 0.001, "system": 0.002, "exit_codes": [0, 0]}]}
    >>> m = load_hyperfine(doc)
    >>> m.names, m.runs
    (('sleep 0.1',), (0, 1))
    >>> load_hyperfine(doc, time="user")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pilotstats.exceptions.FormatError: <object>: field 'results[0].user': holds one number ...
    """
    if time not in _HYPERFINE_TIMES:
        raise InvalidInputError(f"time must be one of {list(_HYPERFINE_TIMES)}, got {time!r}")
    document, label = read_json(source)
    results = field_list(document, "results", label, "")
    builder = _Builder()
    available: list[str] = []
    for index, result in enumerate(results):
        path = f"results[{index}]"
        cmd = field_str(result, "command", label, path)
        parameters = field_mapping(result, "parameters", label, path, default={})
        name = _hyperfine_name(cmd, parameters, available)
        available.append(name)
        if not (_select(cmd, command) or _select(name, command)):
            continue
        times = _hyperfine_times(result, time, label, path)
        exit_codes = _hyperfine_exit_codes(result, len(times), cmd, label, path)
        for run, value in enumerate(times):  # one process per timing
            builder.add(name, value, 1.0, run, 0)
        builder.metadata[name] = {
            "command": cmd, "parameters": dict(parameters), "exit_codes": exit_codes,
            "memory_usage_byte": result.get("memory_usage_byte"), "time": time,
            "unit": "s", "format": "hyperfine", "source": label,
        }
    _check_found(builder, command, label, available)
    return builder.build(label, "hyperfine results")


def _hyperfine_name(cmd: str, parameters: Mapping[str, Any], available: list[str]) -> str:
    """A unique benchmark name for a command (parameters or ``#2``... on repeats)."""
    name = cmd
    if name in available and parameters:
        name = f"{cmd} [{', '.join(f'{k}={v}' for k, v in parameters.items())}]"
    copy = 2
    while name in available:  # the same command benchmarked twice: keep both
        name = f"{cmd} (#{copy})"
        copy += 1
    return name


def _hyperfine_times(result: Any, time: str, label: str, path: str) -> list[float]:
    """The chosen time of every run of one hyperfine result."""
    times = number_list(field(result, "times", label, path), label, f"{path}.times",
                        nonnegative=True)
    if time != "wall":
        chosen = _hyperfine_cpu(result, "user", len(times), label, path)
        if time == "user+system":
            system = _hyperfine_cpu(result, "system", len(times), label, path)
            chosen = [u + s for u, s in zip(chosen, system, strict=True)]
        times = chosen
    return times


def _hyperfine_exit_codes(result: Any, count: int, cmd: str, label: str, path: str) -> Any:
    """The exit codes (one per time, or None); warns on a non-zero one."""
    exit_codes = field(result, "exit_codes", label, path, default=None)
    if exit_codes is not None:
        if not isinstance(exit_codes, list) or len(exit_codes) != count:
            fail(label, f"{path}.exit_codes", "expected one exit code per time")
        if any(code not in (0, None) for code in exit_codes):
            warnings.warn(f"{label}: command {cmd!r} had non-zero exit codes; see "
                          "metadata['exit_codes'] to filter", FormatWarning, stacklevel=3)
    return exit_codes


def _hyperfine_cpu(result: Any, key: str, count: int, label: str, path: str) -> list[float]:
    """Per-run ``user`` or ``system`` times; hyperfine's own exports hold only their mean."""
    value = field(result, key, label, path, default=None)
    where = f"{path}.{key}"
    if value is None:
        fail(label, where, f"missing: the export has no {key} CPU time; use time='wall'")
    if not isinstance(value, list):
        as_number(value, label, where, nonnegative=True)
        fail(label, where, f"holds one number (the mean over the runs), not one {key} time "
             "per run: hyperfine exports per-run times only for the wall clock; use "
             "time='wall'")
    values = number_list(value, label, where, nonnegative=True)
    if len(values) != count:
        fail(label, where, f"has {len(values)} entries but times has {count}")
    return values


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


def load_jmh(source: Source, *, benchmark: str | Iterable[str] | None = None,
             metric: str = "primary") -> Measurements:
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
    Format: ``jmh-core/.../results/format/JSONResultFormat.java``.

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
        block, mpath = _jmh_block(entry, metric, label, path)
        unit = field_str(block, "scoreUnit", label, mpath)
        kind, factor = _jmh_unit(unit, label, f"{mpath}.scoreUnit")
        meta = {k: v for k, v in entry.items() if k not in ("primaryMetric",
                                                            "secondaryMetrics")}
        meta.update({"score": block.get("score"), "scoreError": block.get("scoreError"),
                     "scoreUnit": unit, "metric": metric, "unit": "s", "format": "jmh",
                     "source": label, "mean_method": "harmonic" if kind == "throughput"
                     else "arithmetic", "work_known": False})
        _jmh_samples(builder, full, entry, block, kind, factor, label, path, mpath)
        builder.metadata[full] = meta
    if benchmark is not None:
        _check_found_any(builder, benchmark, label, available)
    return builder.build(label, "JMH results")


def _jmh_block(entry: Any, metric: str, label: str, path: str) -> tuple[Mapping[str, Any], str]:
    """The chosen metric's block of one JMH result, and its field path."""
    if metric == "primary":
        return field_mapping(entry, "primaryMetric", label, path), f"{path}.primaryMetric"
    secondary = field_mapping(entry, "secondaryMetrics", label, path, default={})
    mpath = f"{path}.secondaryMetrics"
    return field_mapping(secondary, metric, label, mpath), f"{mpath}.{metric}"


def _jmh_samples(builder: _Builder, full: str, entry: Any, block: Mapping[str, Any],
                 kind: str, factor: float, label: str, path: str, mpath: str) -> None:
    """Add the per-iteration scores (``rawData``) or sampled ops (``rawDataHistogram``)."""
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
    ``target/criterion/<id>/<baseline>/sample.json``.

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

