"""Ordered result files of a results folder, for the command line's ``trend``/``analyze``.

Two layouts are recognised:

* an asv results folder (``results/`` or one machine's ``results/<machine>/``): every
  ``<commit>-<environment>.json`` holding ``commit_hash`` and ``results``, ordered by the
  commit ``date`` asv records (``machine.json`` and ``benchmarks.json`` are skipped);
* a pytest-benchmark storage folder (``.benchmarks/`` or ``.benchmarks/<machine-id>/``):
  every ``NNNN_*.json`` saved by ``--benchmark-autosave``/``--benchmark-save``, ordered by
  the commit time, then the run's ``datetime``, then the file's counter.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pilotstats.exceptions import FormatError
from pilotstats.io._source import folder_files, read_json

__all__ = ["HistoryEntry", "result_history"]


@dataclass(frozen=True)
class HistoryEntry:
    """One result file of a history folder and its label (commit or save name)."""

    path: Path
    label: str
    key: tuple[Any, ...]


def _read(path: Path) -> Any:
    document, _ = read_json(path)  # bounded: regular files of at most MAX_INPUT_BYTES
    return document


def _entry(path: Path) -> HistoryEntry | None:
    if path.name in ("machine.json", "benchmarks.json"):
        return None
    data = _read(path)
    if not isinstance(data, dict):
        return None
    if "commit_hash" in data and "results" in data:  # asv
        commit = str(data["commit_hash"])
        return HistoryEntry(path, commit[:8], (0, float(data.get("date") or 0), path.name))
    if "benchmarks" in data and "machine_info" in data:  # pytest-benchmark
        info = data.get("commit_info") or {}
        when = str(info.get("time") or "")
        label = path.stem
        return HistoryEntry(path, label, (1, when, str(data.get("datetime") or ""), path.name))
    return None


def result_history(folder: str | os.PathLike[str]) -> list[HistoryEntry]:
    """The result files under ``folder`` (asv results or pytest-benchmark storage), oldest
    first.

    Parameters
    ----------
    folder : str or path-like
        An asv ``results`` folder (or one machine's subfolder) or a pytest-benchmark
        ``.benchmarks`` folder (or one machine's subfolder).

    Returns
    -------
    list of HistoryEntry
        In commit (asv) or commit-time/run-time (pytest-benchmark) order.

    Raises
    ------
    FormatError
        No result file of either layout under ``folder``, or both layouts mixed, or a file
        that is not JSON.
    InputLimitError
        A ``*.json`` entry is not a regular file (a FIFO, a device, a link to one), or is
        larger than ``_config.MAX_INPUT_BYTES``, or the folder holds more than
        ``_config.MAX_FOLDER_FILES`` of them.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> root = Path(tempfile.mkdtemp())
    >>> for commit, date in (("bbbb2222", 2000), ("aaaa1111", 1000)):
    ...     text = json.dumps({"commit_hash": commit, "date": date, "results": {}})
    ...     _ = (root / f"{commit}-py.json").write_text(text)
    >>> [entry.label for entry in result_history(root)]
    ['aaaa1111', 'bbbb2222']
    """
    root = Path(folder)
    entries = [e for e in (_entry(p) for p in folder_files(root, "*.json")) if e is not None]
    if not entries:
        raise FormatError(
            f"{root}: no asv result files (<commit>-<env>.json with commit_hash) nor "
            f"pytest-benchmark saved runs (NNNN_*.json) found in this folder",
            source=str(root),
        )
    if len({e.key[0] for e in entries}) > 1:
        raise FormatError(f"{root}: holds both asv and pytest-benchmark results; pass one "
                          f"of its subfolders", source=str(root))
    return sorted(entries, key=lambda e: e.key)
