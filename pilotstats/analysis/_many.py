"""Many series at once: :func:`detect_many`, :func:`trend_many` and :func:`write_parquet`.

Each series of a long table is analysed by the single-series function
(:func:`~pilotstats.changepoints.detect_changes`, or
:func:`~pilotstats.changepoints.mdl_partition` with
:func:`~pilotstats.changepoints.trend_compliance`) on a thread pool (the numba kernels
release the GIL) or on a Dask cluster; one output row per series, in a deterministic order,
identical whatever the engine and the number of workers.
"""

from __future__ import annotations

import datetime
import itertools
import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import pilotstats._config as _config
from pilotstats._typing import FleetEngine
from pilotstats._validation import (
    check_bool,
    check_choice,
    check_int,
    check_regular_file,
    check_trend_windows,
    require_module,
)
from pilotstats.changepoints._csit import (
    classify_change,
    long_term_reference,
    relative_change,
    run_window,
)
from pilotstats.exceptions import ClusterError, InvalidInputError
from pilotstats.io._source import gunzip, read_file

__all__ = ["DETECT_COLUMNS", "TREND_COLUMNS", "detect_many", "trend_many", "write_parquet"]

#: Columns of :func:`detect_many`'s output, in order.
DETECT_COLUMNS = (
    "series", "n", "n_changes", "locations", "p_values", "segment_means", "last_trend",
    "last_change", "last_classification", "short_term_change_percent",
    "long_term_change_percent", "regressions", "progressions", "new_regression", "error",
)

#: Columns of :func:`trend_many`'s output, in order.
TREND_COLUMNS = (
    "series", "n", "n_groups", "boundaries", "classifications", "group_means", "last_trend",
    "runs_in_last_trend", "last_classification", "reference", "short_term_change_percent",
    "long_term_change_percent", "regressions", "progressions", "new_regression",
    "total_bits", "error",
)

_INT_COLUMNS = ("n", "n_changes", "n_groups", "last_change", "runs_in_last_trend",
                "regressions", "progressions")
_FLOAT_COLUMNS = ("last_trend", "reference", "short_term_change_percent",
                  "long_term_change_percent", "total_bits")

#: Batches with at least this many series show a progress bar when ``progress`` is None.
PROGRESS_MIN_SERIES = 200

#: At most this many series per task of the thread pool (fewer when there are few series).
THREAD_CHUNK = 8

Task = tuple[str, Any, np.ndarray]  # (series name, sort key, values)
RowFunction = Callable[..., dict[str, Any]]


# ----------------------------------------------------------------------------------------
# input: a long table (pandas, Arrow, Dask, CSV/Parquet file), a dict, an asv folder
# ----------------------------------------------------------------------------------------


def _is_dask_collection(table: Any) -> bool:
    return type(table).__module__.startswith("dask") and hasattr(table, "to_delayed")


def _as_columns(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        raise InvalidInputError("a table needs by= naming its series-key column(s)")
    if isinstance(by, str):
        return [by]
    columns = [str(c) for c in by]
    if not columns:
        raise InvalidInputError("by must name at least one series-key column, got []")
    return columns


def _read_path(path: Path) -> tuple[Any, dict[str, Any]]:
    """A file or folder as a pandas table plus the by/order/value defaults it implies."""
    import pandas as pd

    if path.is_dir():
        from pilotstats.io import load_asv_history

        return load_asv_history(path), {"by": ["machine", "env", "benchmark"],
                                        "order": "date", "value": "value"}
    name = path.name.lower()
    if not path.exists():
        raise InvalidInputError(f"{path}: no such file or folder")
    check_regular_file(path, kind="table")  # no FIFO or device; MAX_INPUT_BYTES
    if name.endswith(".parquet"):
        require_module("pyarrow", "parquet")
        return pd.read_parquet(path), {}
    if name.endswith((".csv.gz", ".tsv.gz")):  # decompressed within MAX_DECOMPRESSED_BYTES
        import io

        data = gunzip(read_file(path, kind="table"), str(path))
        return pd.read_csv(io.BytesIO(data), sep="\t" if ".tsv" in name else ","), {}
    if name.endswith((".csv", ".tsv")):
        return pd.read_csv(path, sep="\t" if ".tsv" in name else ","), {}
    raise InvalidInputError(f"{path}: expected an asv results folder, a .csv, .tsv or "
                            ".parquet file")


def _as_pandas(table: Any) -> Any:
    """pandas DataFrame of any Arrow-compatible or interchange-protocol table."""
    import pandas as pd

    if isinstance(table, pd.DataFrame):
        return table
    if _is_dask_collection(table):
        return table.compute()
    if hasattr(table, "to_pandas"):  # pyarrow Table/RecordBatch, polars DataFrame
        return table.to_pandas()
    if hasattr(table, "__arrow_c_stream__"):
        require_module("pyarrow", "parquet")
        import pyarrow as pa

        return pa.table(table).to_pandas()
    if hasattr(table, "__dataframe__"):
        return pd.api.interchange.from_dataframe(table)
    raise InvalidInputError(
        f"table must be a pandas DataFrame, an Arrow-compatible table, a Dask DataFrame, a "
        f"dict of arrays, an asv results folder or a CSV/Parquet file; got "
        f"{type(table).__name__}"
    )


def _frame_tasks(frame: Any, by: list[str], order: str | None, value: str) -> list[Task]:
    """One task per series of a long pandas table, sorted by key, values in ``order``.

    The table is split once, vectorised, into the series of
    ``frame.sort_values(order, kind="stable").groupby(by, sort=False, dropna=False)``
    (missing keys form their own series): the keys are factorised, one stable sort by series
    gathers the rows of each series in table order, and only when some series is not
    already in ``order`` (or ``order`` is not a plain numeric or datetime column without
    missing values, or a key is missing) is the table stably sorted by ``order`` first.
    Each task's values are a contiguous slice of one array.
    """
    import pandas as pd

    missing = [c for c in [*by, value, *([order] if order else [])] if c not in frame.columns]
    if missing:
        raise InvalidInputError(f"column(s) {missing} not in the table; its columns are "
                                f"{[str(c) for c in frame.columns]}")
    values, bad_cells = _value_column(frame[value])
    codes = np.zeros(0, dtype=np.int64)
    columns = []
    any_missing = False
    for position, column in enumerate(by):
        column_codes, uniques = pd.factorize(frame[column], use_na_sentinel=False)
        any_missing = any_missing or bool(np.asarray(pd.isna(uniques)).any())
        codes = column_codes if position == 0 else pd.factorize(
            codes * len(uniques) + column_codes)[0]
        columns.append((column_codes, uniques))
    counts = np.bincount(codes)
    if counts.shape[0] <= 1 << 16:  # a radix sort: several times faster than a merge sort
        codes = codes.astype(np.uint16)
    rows = np.argsort(codes, kind="stable")  # the rows of each series, in table order
    ends = np.cumsum(counts).tolist()
    starts = [0, *ends[:-1]] if ends else []
    # the rank of each series' first row in the sorted table: groupby's order of series,
    # which the sort by key below keeps among equal sort keys
    appearance = rows[starts]
    if order is not None and not _in_order(frame[order], rows, starts, any_missing):
        positions = (frame[[order]].reset_index(drop=True)
                     .sort_values(order, kind="stable").index.to_numpy())
        rank = np.empty_like(positions)
        rank[positions] = np.arange(positions.shape[0])
        rows = positions[np.argsort(codes[positions], kind="stable")]
        appearance = rank[rows[starts]]
    values = values[rows]
    first = rows[starts]
    parts_of = list(zip(*(_key_parts(uniques.take(column_codes[first]),
                                     getattr(frame[column].dtype, "kind", "O") == "f")
                          for column, (column_codes, uniques) in zip(by, columns, strict=True)),
                        strict=True))
    missing_order = (np.asarray(frame[order].isna(), dtype=bool)[rows]
                     if order is not None else None)
    bad = bad_cells[rows] if bad_cells is not None else None
    keyed = []
    for group in np.argsort(appearance, kind="stable").tolist():
        parts = tuple(p.item() if isinstance(p, np.generic) else p for p in parts_of[group])
        series: Any = values[starts[group]:ends[group]]
        within = slice(starts[group], ends[group])
        if missing_order is not None and missing_order[within].any():
            row = frame.index[rows[within][int(np.argmax(missing_order[within]))]]
            series = InvalidSeries(InvalidInputError(
                f"order column {order!r} has a missing value (row {row!r}); the order of "
                "the series is undefined: fill or drop the row first"))
        elif bad is not None and bad[within].any():
            index = rows[within][int(np.argmax(bad[within]))]
            cell = frame[value].iloc[index]
            series = InvalidSeries(InvalidInputError(
                f"value column {value!r} holds the non-numeric cell {cell!r:.60} (row "
                f"{frame.index[index]!r}); convert the column to numbers first"))
        keyed.append((_series_name(parts), parts, series))
    keyed.sort(key=lambda task: _key_order(task[1]))
    return keyed


class InvalidSeries:
    """Stands for the values of a series that cannot be analysed: its row reports
    :attr:`error` (a named exception) instead of aborting the batch."""

    __slots__ = ("error",)

    def __init__(self, error: InvalidInputError) -> None:
        self.error = error

    def __len__(self) -> int:
        return 0


def _value_column(column: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """The value column as float64 (missing cells NaN) and, when some cells are not real
    numbers (strings, including numeric strings, dates, complex numbers, objects), a mask of
    those cells (their series become error rows; no coercion of text to numbers)."""
    import pandas as pd

    kind = getattr(column.dtype, "kind", "O")
    if kind in "biuf" or (isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and (
            pd.api.types.is_numeric_dtype(column.dtype)
            and not pd.api.types.is_complex_dtype(column.dtype))):
        return column.to_numpy(dtype=np.float64, na_value=np.nan), None
    cells = column.to_numpy(dtype=object)
    missing = np.asarray(pd.isna(column), dtype=bool)
    bad = np.array([not (gone or (isinstance(cell, numbers.Real)
                                  and not isinstance(cell, (bool, np.bool_))))
                    for cell, gone in zip(cells, missing, strict=True)], dtype=bool)
    values = np.full(cells.shape[0], np.nan)
    good = ~bad & ~missing
    values[good] = cells[good].astype(np.float64)
    return values, bad if bad.any() else None


def _key_order(parts: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    """Sort key of a series key, part by part: numbers, then strings, then dates and times,
    then durations, then other values by ``repr``, and missing parts (NaN) last, as in
    ``groupby``; so a missing key beside string or datetime keys, or keys of mixed types in
    an object column, never compare values that do not order."""
    kinds = ((numbers.Real, 0), (str, 1), (bytes, 2), (datetime.datetime, 3),
             (datetime.date, 4), (datetime.timedelta, 5))
    order = []
    for part in parts:
        if part is None or (isinstance(part, float) and math.isnan(part)):
            order.append((7, "") if part is None else (8, ""))
            continue
        kind = next((k for cls, k in kinds if isinstance(part, cls)), 6)
        order.append((kind, repr(part) if kind == 6 else part))
    return tuple(order)


def _in_order(order: Any, rows: np.ndarray, starts: list[int], any_missing: bool) -> bool:
    """Whether every series (``rows`` grouped, series starting at ``starts``) is already in
    non-decreasing ``order`` (a stable sort by ``order`` then changes nothing), for a plain
    numeric or datetime column without missing values and keys without missing values."""
    dtype = order.dtype
    if any_missing or not isinstance(dtype, np.dtype) or dtype.kind not in "biufM":
        return False
    column = order.to_numpy()
    if (dtype.kind == "f" and np.isnan(column).any()) or (
            dtype.kind == "M" and np.isnat(column).any()):
        return False
    ordered = column[rows]
    steps = ordered[1:] >= ordered[:-1]
    steps[np.asarray(starts[1:], dtype=np.int64) - 1] = True  # a new series may start lower
    return bool(steps.all())


def _key_parts(keys: Any, numeric: bool) -> list[Any]:
    """Python scalars of one key column (its first row of each series). A missing key is
    NaN in a float column (as ``groupby`` names it) and None in any other column (a missing
    string, category, integer or date), whose series is named ``<NA>``, never ``"nan"``,
    which would collide with a real ``"nan"`` key."""
    import pandas as pd

    parts: list[Any] = keys.tolist()
    missing = np.asarray(pd.isna(keys), dtype=bool)
    if missing.any():
        gap = math.nan if numeric else None
        parts = [gap if gone else p for p, gone in zip(parts, missing.tolist(), strict=True)]
    return parts


def _series_name(parts: tuple[Any, ...]) -> str:
    return "/".join("<NA>" if p is None else str(p) for p in parts)


def _mapping_tasks(table: Mapping[Any, Any]) -> list[Task]:
    tasks = []
    for position, (name, series) in enumerate(table.items()):
        tasks.append((str(name), position, series))
    return tasks


def _tasks(table: Any, by: str | Sequence[str] | None, order: str | None,
           value: str | None) -> list[Task]:
    """Split the input into series (see :func:`detect_many`, parameter ``table``)."""
    if isinstance(table, (str, os.PathLike)):
        table, defaults = _read_path(Path(os.fspath(table)))
        by = defaults.get("by", by) if by is None else by
        order = defaults.get("order") if order is None else order
        value = defaults.get("value") if value is None else value
    if isinstance(table, Mapping):
        if by is None and value is None:
            return _mapping_tasks(table)
        import pandas as pd

        table = pd.DataFrame(dict(table))
    if value is None:
        raise InvalidInputError("a table needs value= naming its value column")
    return _frame_tasks(_as_pandas(table), _as_columns(by), order, str(value))


# ----------------------------------------------------------------------------------------
# per-series rows
# ----------------------------------------------------------------------------------------


def _relative_percent(value: float, reference: float) -> float:
    return 100.0 * relative_change(value, reference)


def csit_changes(trend: np.ndarray, short_window: int, long_window: int,
                 higher_is_better: bool) -> tuple[float, float, float]:
    """CSIT's short- and long-term change (percent) and the long-term reference of a trend.

    ``trend[r]`` is the trend (segment or group mean) at run r, NaN where missing; ``last``
    is the last run with a trend and ``n = last + 1``. Short-term change: trend[last]
    against trend[n − min(n, S)] (CSIT's "a week ago", ``avgs[max(-S, -len)]``); long-term
    change: against the best trend of runs ``n − min(n, L) .. n − 1 − S`` (max when higher
    is better), the reference of :func:`~pilotstats.changepoints.trend_compliance`; with
    ``n <= S`` runs the earliest available trend ("if the history is too short, the
    earliest available trend is used", CSIT).
    """
    present = np.flatnonzero(~np.isnan(trend))
    if present.size == 0:
        return math.nan, math.nan, math.nan
    last = int(present[-1])
    n = last + 1
    reference = long_term_reference(
        trend, n, run_window(n, short_window, long_window), higher_is_better
    ).value
    return (_short_term_change(trend, last, short_window),
            _relative_percent(float(trend[last]), reference), reference)


def _short_term_change(trend: np.ndarray, last: int, short_window: int) -> float:
    """CSIT's short-term change (percent) of a trend whose last run with a trend is ``last``:
    trend[last] against trend[n − min(n, S)], ``n = last + 1``; NaN when S is 0."""
    if short_window <= 0:
        return math.nan
    n = last + 1
    return _relative_percent(float(trend[last]), float(trend[n - min(n, short_window)]))


def _error_row(columns: Sequence[str], series: str, n: int, exc: BaseException
               ) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(columns)
    row.update(series=series, n=n, error=f"{type(exc).__name__}: {exc}")
    return row


def _detect_row(series: str, values: np.ndarray, options: Mapping[str, Any],
                higher_is_better: bool, short_window: int, long_window: int
                ) -> dict[str, Any]:
    """One output row of :func:`detect_many` (errors caught into ``error``)."""
    from pilotstats.changepoints import detect_changes

    try:
        _check_series(values)
        result = detect_changes(values, **options)
        means = tuple(float(s.mean) for s in result.segments)
        lengths = [s.end - s.start for s in result.segments]
        trend = np.repeat(np.asarray(means, dtype=np.float64), lengths)
        labels = [classify_change(b, a, higher_is_better) for a, b in itertools.pairwise(means)]
        short, long, _ = csit_changes(trend, short_window, long_window, higher_is_better)
        last_label = labels[-1] if labels else "normal"
        return {
            "series": series, "n": result.n, "n_changes": len(result.locations),
            "locations": tuple(result.locations),
            "p_values": tuple(result.p_values or ()),
            "segment_means": means, "last_trend": means[-1],
            "last_change": result.locations[-1] if result.locations else None,
            "last_classification": last_label,
            "short_term_change_percent": short, "long_term_change_percent": long,
            "regressions": labels.count("regression"),
            "progressions": labels.count("progression"),
            "new_regression": last_label == "regression", "error": None,
        }
    except Exception as exc:  # a failing series never aborts the batch
        return _error_row(DETECT_COLUMNS, series, _length(values), exc)


def _trend_row(series: str, values: Any, options: Mapping[str, Any], higher_is_better: bool,
               short_window: int, long_window: int) -> dict[str, Any]:
    """One output row of :func:`trend_many` (errors caught into ``error``)."""
    from pilotstats.changepoints import mdl_partition, trend_compliance

    try:
        _check_series(values)
        groups = mdl_partition(values, higher_is_better=higher_is_better, **options)
        compliance = trend_compliance(groups, short_window=short_window,
                                      long_window=long_window)
        # the long-term change and its reference are the compliance result's; the
        # short-term change needs only the trend at the last run and S runs before it
        short = _short_term_change(groups.trend_mean, compliance.last_run, short_window)
        found = groups.groups
        return {
            "series": series, "n": groups.n_runs, "n_groups": len(found),
            "boundaries": tuple(groups.boundaries.tolist()),
            "classifications": tuple([str(g.classification) for g in found]),
            "group_means": tuple([float(g.mean) for g in found]),
            "last_trend": compliance.last_trend,
            "runs_in_last_trend": compliance.runs_in_last_trend,
            "last_classification": str(found[-1].classification),
            "reference": compliance.reference,
            "short_term_change_percent": short,
            "long_term_change_percent": compliance.long_term_change_percent,
            "regressions": compliance.n_regressions,
            "progressions": compliance.n_progressions,
            "new_regression": compliance.n_regressions > 0,
            "total_bits": float(groups.total_bits), "error": None,
        }
    except Exception as exc:  # a failing series never aborts the batch
        return _error_row(TREND_COLUMNS, series, _length(values), exc)


def _check_series(values: Any) -> None:
    if isinstance(values, InvalidSeries):
        raise values.error


def _length(values: Any) -> int:
    try:
        return len(values)
    except TypeError:
        return 0


def _run_batch(batch: Sequence[Task], function: RowFunction, arguments: tuple[Any, ...]
               ) -> list[dict[str, Any]]:
    """Rows of a batch of tasks, in order (the unit of work sent to a Dask worker)."""
    return [function(name, values, *arguments) for name, _, values in batch]


# ----------------------------------------------------------------------------------------
# engines
# ----------------------------------------------------------------------------------------


def _progress_bar(total: int, progress: bool | None, label: str) -> Any:
    enabled = total >= PROGRESS_MIN_SERIES if progress is None else bool(progress)
    if not enabled or total < 2:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:
        return None
    return tqdm(total=total, desc=label, unit="series", leave=False)


def _default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _run_threads(tasks: list[Task], function: RowFunction, arguments: tuple[Any, ...],
                 workers: int, bar: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if workers == 1 or len(tasks) < 2:
        for name, _, values in tasks:
            rows.append(function(name, values, *arguments))
            if bar is not None:
                bar.update(1)
        return rows
    # a few series per future: fewer futures and thread wake-ups, each of which takes the
    # GIL; small enough chunks that the threads still finish together
    size = max(1, min(THREAD_CHUNK, len(tasks) // (16 * workers)))
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pilotstats") as pool:
        futures = [pool.submit(_run_batch, chunk, function, arguments) for chunk in chunks]
        for chunk, future in zip(chunks, futures, strict=True):
            rows.extend(future.result())
            if bar is not None:
                bar.update(len(chunk))
    return rows


def _dask_client(client: Any) -> Any:
    require_module("distributed", "dask")
    if client is not None:
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise InvalidInputError(
            "engine='dask' needs a dask.distributed Client: pass client=Client(...) (for "
            "example Client(LocalCluster()) or Client('tcp://scheduler:8786')) or create "
            "one before the call"
        ) from None


def _split(tasks: list[Task], parts: int) -> list[list[Task]]:
    size = max(1, math.ceil(len(tasks) / max(1, parts)))
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


def _client_threads(client: Any) -> int:
    try:
        return max(1, int(sum(client.nthreads().values())))
    except Exception:  # a client that cannot report its workers
        return 1


def _run_dask(tasks: list[Task], function: RowFunction, arguments: tuple[Any, ...],
              client: Any, workers: int | None, bar: Any, columns: Sequence[str]
              ) -> list[dict[str, Any]]:
    """Batches of series as Dask tasks that carry their data.

    No ``client.scatter``: scattered data live on one worker only, so a lost worker lost
    the batch (the scheduler cannot recompute them), and scattering with ``hash=True``
    let equal batches share keys ("lost dependencies"). Each task is submitted with its
    series and a random key (``pure=False``) and ``retries=DASK_RETRIES``; the scheduler
    reruns a task whose worker died on another worker. A batch that still fails gives error
    rows (:class:`~pilotstats.exceptions.ClusterError`) for its series, not an exception
    for the whole call.
    """
    from distributed import as_completed

    client = _dask_client(client)
    parts = 4 * (workers if workers is not None else _client_threads(client))
    batches = _split(tasks, parts)
    futures = [client.submit(_run_batch, batch, function, arguments, pure=False,
                             retries=_config.DASK_RETRIES) for batch in batches]
    position = {future.key: i for i, future in enumerate(futures)}
    results: list[list[dict[str, Any]]] = [[] for _ in batches]
    for future in as_completed(futures):  # type: ignore[no-untyped-call]
        i = position[future.key]
        try:
            results[i] = future.result()
        except Exception as exc:  # infrastructure only: rows catch the series' own errors
            lost = ClusterError(
                f"the Dask task of this series failed after {_config.DASK_RETRIES} retries "
                f"({type(exc).__name__}: {exc}); rerun the batch or raise "
                "pilotstats._config.DASK_RETRIES")
            results[i] = [_error_row(columns, name, _length(values), lost)
                          for name, _, values in batches[i]]
        if bar is not None:
            bar.update(len(batches[i]))
    return [row for batch in results for row in batch]


def _dask_frame_rows(part: Any, by: list[str], order: str | None, value: str,
                     function: RowFunction, arguments: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Rows of the series of one Dask partition, each with its sort key."""
    tasks = _frame_tasks(part, by, order, value)
    rows = _run_batch(tasks, function, arguments)
    for row, task in zip(rows, tasks, strict=True):
        row["_key"] = task[1]
    return rows


def _run_dask_frame(table: Any, by: list[str], order: str | None, value: str,
                    function: RowFunction, arguments: tuple[Any, ...], client: Any
                    ) -> list[dict[str, Any]]:
    """Each partition of a Dask DataFrame analysed where it lies (partitioned by series)."""
    from dask.delayed import delayed

    client = _dask_client(client)
    parts = [delayed(_dask_frame_rows)(part, by, order, value, function, arguments)
             for part in table.to_delayed()]
    try:  # the partitions are recomputable from the graph: a lost worker costs a rerun
        computed = client.compute(parts, sync=True, retries=_config.DASK_RETRIES)
    except Exception as exc:  # a partition failed after its retries: no row is trustworthy
        raise ClusterError(
            f"a partition of the Dask DataFrame failed after {_config.DASK_RETRIES} retries "
            f"({type(exc).__name__}: {exc})") from exc
    rows = [row for part in computed for row in part]
    seen: set[str] = set()
    for row in rows:
        if row["series"] in seen:
            raise InvalidInputError(
                f"series {row['series']!r} spans several partitions of the Dask DataFrame; "
                f"partition it by series first, e.g. table.shuffle(on={by!r})"
            )
        seen.add(row["series"])
    rows.sort(key=lambda row: _key_order(row["_key"]))
    for row in rows:
        del row["_key"]
    return rows


# ----------------------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------------------


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> Any:
    import pandas as pd

    data: dict[str, Any] = {}
    for column in columns:
        cells = [row[column] for row in rows]
        if column == "series":
            data[column] = pd.Series(cells, dtype=object).astype(str)
        elif column in _INT_COLUMNS:
            data[column] = pd.Series(cells, dtype="Int64")
        elif column in _FLOAT_COLUMNS:
            data[column] = pd.Series([math.nan if c is None else c for c in cells],
                                     dtype="float64")
        elif column == "new_regression":
            data[column] = pd.Series(cells, dtype="boolean")
        else:  # tuples, labels and error texts stay Python objects (None when missing)
            data[column] = pd.Series(cells, dtype=object)
    return pd.DataFrame(data, columns=list(columns))


def _many(kind: str, table: Any, by: str | Sequence[str] | None, order: str | None,
          value: str | None, workers: int | None, engine: str, client: Any,
          progress: bool | None, function: RowFunction, arguments: tuple[Any, ...],
          columns: Sequence[str]) -> Any:
    chosen = check_choice(engine, "engine", ("threads", "dask"))
    count = None if workers is None else check_int(workers, "workers", low=1)
    if progress is not None:
        check_bool(progress, "progress")
    if _is_dask_collection(table) and chosen == "dask":
        if value is None:
            raise InvalidInputError("a Dask DataFrame needs value= naming its value column")
        rows = _run_dask_frame(table, _as_columns(by), order, str(value), function, arguments,
                               client)
        return _frame(rows, columns)
    tasks = _tasks(table, by, order, value)
    bar = _progress_bar(len(tasks), progress, kind)
    try:
        if chosen == "dask":
            rows = _run_dask(tasks, function, arguments, client, count, bar, columns)
        else:
            rows = _run_threads(tasks, function, arguments,
                                _default_workers() if count is None else count, bar)
    finally:
        if bar is not None:
            bar.close()
    return _frame(rows, columns)


def detect_many(
    table: Any, *, by: str | Sequence[str] | None = None, order: str | None = None,
    value: str | None = None, workers: int | None = None, engine: FleetEngine = "threads",
    client: Any = None, higher_is_better: bool = True, short_window: int = 10,
    long_window: int = 180, progress: bool | None = None, **options: Any,
) -> Any:
    """Run :func:`~pilotstats.changepoints.detect_changes` on every series of a table.

    Parameters
    ----------
    table : DataFrame, Arrow table, Dask DataFrame, dict, or path
        A long table with one row per measurement, a dict ``{series: values}``, an asv
        results folder or a ``.csv``/``.parquet`` file (see the overview of
        :mod:`pilotstats.analysis`).
    by : str or sequence of str
        Series-key column(s); the ``series`` name joins their values with ``"/"``.
    order : str, optional
        Column giving the order of a series' measurements (stable sort; default: row order).
    value : str
        Column of the measured values.
    workers : int, optional
        Threads or Dask workers to split the series over; ``workers=1`` runs serially.
    engine : {"threads", "dask"}, default "threads"
        A thread pool in this process, or batches on a ``dask.distributed`` cluster.
    client : distributed.Client, optional
        Dask client for ``engine="dask"`` (default: the current client).
    higher_is_better : bool, default True
        Direction of the labels: set False for times and latencies.
    short_window, long_window : int, default 10, 180
        CSIT's windows in samples for the short- and long-term change.
    progress : bool, optional
        Progress bar (needs tqdm); default: shown for batches of 200 series or more.
    **options
        Passed to :func:`~pilotstats.changepoints.detect_changes` for every series.

    Returns
    -------
    pandas.DataFrame
        One row per series (columns in the overview of :mod:`pilotstats.analysis`); a
        failing series has its exception in ``error`` and never aborts the batch.

    Raises
    ------
    InvalidInputError
        Bad ``engine``, ``workers``, columns or ``table``; dask without a client.
    MissingDependencyError
        ``engine="dask"`` without dask.distributed installed.

    Notes
    -----
    Each row is exactly what ``detect_changes(values, **options)`` returns for the series,
    whatever the engine. Complexity: the sum over the series of
    :func:`~pilotstats.changepoints.detect_changes`, shared among the workers.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from pilotstats.analysis import detect_many
    >>> rng = np.random.default_rng(1)
    >>> table = pd.DataFrame({
    ...     "test": np.repeat(["a", "b"], 200),
    ...     "run": np.tile(np.arange(200), 2),
    ...     "mpps": np.r_[rng.normal(10, 0.1, 200),
    ...                   rng.normal(10, 0.1, 100), rng.normal(9, 0.1, 100)]})
    >>> out = detect_many(table, by="test", order="run", value="mpps", workers=2)
    >>> out[["series", "locations", "last_classification"]].values.tolist()
    [['a', (), 'normal'], ['b', (100,), 'regression']]
    """
    windows = check_trend_windows(short_window, long_window)
    return _many("detect_many", table, by, order, value, workers, engine, client, progress,
                 _detect_row, (options, check_bool(higher_is_better, "higher_is_better"),
                               *windows), DETECT_COLUMNS)


def trend_many(
    table: Any, *, by: str | Sequence[str] | None = None, order: str | None = None,
    value: str | None = None, workers: int | None = None, engine: FleetEngine = "threads",
    client: Any = None, higher_is_better: bool = True, short_window: int = 10,
    long_window: int = 180, progress: bool | None = None, **options: Any,
) -> Any:
    """MDL trend groups and CSIT compliance of every series of a table.

    Runs :func:`~pilotstats.changepoints.mdl_partition` and
    :func:`~pilotstats.changepoints.trend_compliance` per series, with the inputs, engines
    and keywords of :func:`detect_many`.

    Parameters
    ----------
    table : DataFrame, Arrow table, Dask DataFrame, dict, or path
        As in :func:`detect_many`; each value is one run of the trend.
    by : str or sequence of str
        Series-key column(s).
    order : str, optional
        Order column (time, commit index or run number).
    value : str
        Column of the measured values.
    workers : int, optional
        Threads or Dask batches, as in :func:`detect_many`; ``workers=1`` is serial.
    engine : {"threads", "dask"}, default "threads"
        Where the series run.
    client : distributed.Client, optional
        Dask client for ``engine="dask"``.
    higher_is_better : bool, default True
        Passed to ``mdl_partition`` (CSIT throughput); set False for times.
    short_window, long_window : int, default 10, 180
        Passed to ``trend_compliance`` (S and L, runs standing in for a week and three
        months).
    progress : bool, optional
        Progress bar (needs tqdm); default: shown for batches of 200 series or more.
    **options
        Passed to ``mdl_partition`` (``resolution``, ``sbps``, ``nan_policy``).

    Returns
    -------
    pandas.DataFrame
        One row per series (columns in the overview of :mod:`pilotstats.analysis`).

    Raises
    ------
    InvalidInputError
        As :func:`detect_many`.
    MissingDependencyError
        ``engine="dask"`` without dask.distributed installed.

    Notes
    -----
    Rows are identical to a loop over ``mdl_partition`` and ``trend_compliance`` (the
    minimum description length grouping of FD.io CSIT's jumpavg). Complexity: O(n) to
    O(n²) per series of n runs, shared among the workers.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.analysis import trend_many
    >>> rng = np.random.default_rng(2)
    >>> series = {"l2/64B": rng.normal(10, 0.05, 60),
    ...           "ip4/64B": np.r_[rng.normal(10, 0.05, 55), rng.normal(8, 0.05, 5)]}
    >>> out = trend_many(series)
    >>> out[["series", "boundaries", "new_regression"]].values.tolist()
    [['l2/64B', (), False], ['ip4/64B', (55,), True]]
    """
    windows = check_trend_windows(short_window, long_window)
    return _many("trend_many", table, by, order, value, workers, engine, client, progress,
                 _trend_row, (options, check_bool(higher_is_better, "higher_is_better"),
                              *windows), TREND_COLUMNS)


def write_parquet(frame: Any, path: str | os.PathLike[str]) -> Path:
    """Write the output of :func:`detect_many` or :func:`trend_many` to a Parquet file.

    Parameters
    ----------
    frame : pandas.DataFrame
        A batch result; tuple columns (``locations``, ``p_values``, ...) become Parquet
        lists.
    path : str or path-like
        Destination file.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    MissingDependencyError
        pyarrow is not installed (``pip install "pilotstats[parquet]"``).

    Notes
    -----
    Complexity: O(rows).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from pilotstats.analysis import trend_many, write_parquet
    >>> out = trend_many({"a": [1.0, 1.0, 2.0, 2.0, 2.0]})
    >>> path = write_parquet(out, os.path.join(tempfile.mkdtemp(), "trend.parquet"))
    >>> pd.read_parquet(path)["series"].tolist()
    ['a']
    """
    require_module("pyarrow", "parquet")
    target = Path(os.fspath(path))
    copy = frame.copy()
    for column in copy.columns:
        if copy[column].dtype == object and column != "series":
            copy[column] = [list(v) if isinstance(v, tuple) else v for v in copy[column]]
    copy.to_parquet(target, engine="pyarrow", index=False)
    return target
