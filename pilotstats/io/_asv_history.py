"""A whole asv results directory as one long table: :func:`load_asv_history`."""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pilotstats.exceptions import FormatError
from pilotstats.io._asv_order import asv_layout, commit_order
from pilotstats.io._source import fail, field_list, field_mapping, folder_files, read_json

__all__ = ["ASV_HISTORY_COLUMNS", "load_asv_history"]

#: Columns of the table returned by :func:`load_asv_history`, in order.
ASV_HISTORY_COLUMNS = ("machine", "env", "benchmark", "commit", "date", "value", "unit")


def _expanded_rows(document: Mapping[str, Any], label: str, described: Mapping[str, Any],
                   machine: str) -> list[tuple[Any, ...]]:
    columns = field_list(document, "result_columns", label, "")
    results = field_mapping(document, "results", label, "")
    commit = str(document.get("commit_hash", ""))
    env = str(document.get("env_name", ""))
    date = document.get("date")
    if not isinstance(date, (int, float)) or isinstance(date, bool):
        fail(label, "date", f"expected the commit date in milliseconds, got {date!r}")
    rows = []
    for name, row in results.items():
        if not isinstance(row, list) or len(row) > len(columns):
            fail(label, f"results[{name!r}]", "expected a row list matching result_columns")
        cells = dict(zip(columns, list(row) + [None] * (len(columns) - len(row)), strict=True))
        params = cells.get("params") or []
        combos = list(itertools.product(*params)) if params else [()]
        values = cells.get("result")
        if values is None:  # the benchmark failed at this commit
            continue
        if not isinstance(values, list):
            values = [values]
        if len(values) != len(combos):
            fail(label, f"results[{name!r}].result",
                 f"expected one entry per parameter combination ({len(combos)})")
        info = described.get(name, {})
        unit = info.get("unit", "seconds") if isinstance(info, Mapping) else "seconds"
        unit = "s" if unit == "seconds" else str(unit)
        for combo, value in zip(combos, values, strict=True):
            if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not math.isfinite(value):
                continue
            full = f"{name}({', '.join(str(v) for v in combo)})" if combo else name
            rows.append((machine, env, full, commit, int(date), float(value), unit))
    return rows


def load_asv_history(path: str | os.PathLike[str]) -> Any:
    """Read a whole asv results directory into one long table (every benchmark × commit).

    Parameters
    ----------
    path : str or path-like
        asv's ``results`` folder (holding ``benchmarks.json`` and one folder per machine
        with ``machine.json`` and one ``<commit>-<env>.json`` per run), the asv project
        folder that contains it (``asv.conf.json``'s ``results_dir``), or one machine's
        folder.

    Returns
    -------
    pandas.DataFrame
        One row per (machine, environment, benchmark, parameter combination, commit) with a
        finite result, columns ``machine``, ``env``, ``benchmark`` (parameterised
        benchmarks expanded as ``name(p1, p2)``, the names of
        :func:`~pilotstats.io.load_asv`), ``commit``, ``date`` (the commit date, a UTC
        timestamp), ``value`` (asv's headline result, the median, in ``unit``) and
        ``unit`` (``"s"`` for timings). Rows are sorted by machine, env, benchmark and
        date; commits of equal date in git order where the repository named in
        ``asv.conf.json`` is available, else in asv's revision order (``asv publish``'s
        ``index.json``), else by hash; ``table.attrs["commit_order"]`` says which
        (:func:`pilotstats.io._asv_order.commit_order`). Failed or skipped benchmarks
        (result ``None`` or NaN) give no row.

    Raises
    ------
    FormatError
        ``path`` is not a folder, holds no result file, or a result file is malformed
        (unsupported API version, rows that do not match ``result_columns``).

    Notes
    -----
    Format: asv's ``asv/results.py`` (results API version 2: ``result_columns``, one row per
    benchmark, trailing ``None`` columns trimmed; ``date`` is the commit date in
    milliseconds). The table is the input of :func:`pilotstats.analysis.detect_many` and
    :func:`pilotstats.analysis.trend_many` with ``by=["machine", "env", "benchmark"]``,
    ``order="date"`` and ``value="value"`` (their defaults for an asv folder).

    Complexity: O(total size of the result files).

    Examples
    --------
    >>> import json, os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(root, "box"))
    >>> for i, (commit, value) in enumerate([("a1", 1.0), ("b2", 1.5)]):
    ...     doc = {"version": 2, "commit_hash": commit, "env_name": "py", "date": 1000 * i,
    ...            "result_columns": ["result", "params"],
    ...            "results": {"bench.time_x": [[value], []]}}
    ...     with open(os.path.join(root, "box", f"{commit}-py.json"), "w") as f:
    ...         json.dump(doc, f)
    >>> table = load_asv_history(root)
    >>> table[["benchmark", "commit", "value"]].values.tolist()
    [['bench.time_x', 'a1', 1.0], ['bench.time_x', 'b2', 1.5]]
    """
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)):
        raise FormatError(f"load_asv_history needs the path of an asv results folder, got "
                          f"{type(path).__name__}", source="<object>")
    given = Path(os.fspath(path))
    if not given.is_dir():
        fail(str(given), None, "expected an asv results folder (holding one folder per "
             "machine)")
    layout = asv_layout(given)
    root = layout.results
    label = str(given)
    rows = _history_rows(layout.machines, root, label)
    frame = pd.DataFrame.from_records(rows, columns=list(ASV_HISTORY_COLUMNS))
    order = commit_order(layout, frame["commit"].unique().tolist())
    frame["_rank"] = [order.key(commit)[0] for commit in frame["commit"]]
    frame["date"] = pd.to_datetime(frame["date"], unit="ms", utc=True)
    frame = frame.sort_values(["machine", "env", "benchmark", "date", "_rank", "commit"],
                              kind="stable").drop(columns="_rank").reset_index(drop=True)
    frame.attrs["commit_order"] = order.description
    return frame


def _history_rows(machines: Any, root: Path, label: str) -> list[tuple[Any, ...]]:
    """The rows of every result file of every machine folder."""
    described: Mapping[str, Any] = {}
    if (root / "benchmarks.json").is_file():
        loaded, _ = read_json(root / "benchmarks.json")
        if isinstance(loaded, Mapping):
            described = loaded
    rows: list[tuple[Any, ...]] = []
    files = 0
    for machine_dir in machines:
        for result_file in folder_files(machine_dir, "*.json", recursive=False):
            if result_file.name == "machine.json":
                continue
            document, file_label = read_json(result_file)
            if not isinstance(document, Mapping) or "results" not in document:
                continue
            version = document.get("version")
            if version != 2:
                fail(file_label, "version",
                     f"unsupported asv results API version {version!r} (need 2)")
            files += 1
            machine = str(document.get("params", {}).get("machine", machine_dir.name))
            rows.extend(_expanded_rows(document, file_label, described, machine))
    if files == 0:
        fail(label, None, "no asv result file found (expected <machine>/<commit>-<env>.json; "
             "run `asv run` first)")
    return rows
