"""Ordered result files of a results folder, for the command line's ``trend``/``analyze``.

Two layouts are recognised:

* an asv results folder (the project folder with ``asv.conf.json``, ``results/`` or one
  machine's ``results/<machine>/``; :func:`~pilotstats.io._asv_order.asv_layout`): every
  ``<commit>-<environment>.json`` of the machine holding ``commit_hash`` and ``results``,
  ordered by the commit ``date`` asv records, equal dates in git order where the
  repository is available, else in asv's revision order, else by hash
  (:func:`~pilotstats.io._asv_order.commit_order`; each entry's ``order`` says which);
  ``machine.json`` and ``benchmarks.json`` are skipped, and a results root holding
  several machines is an error naming them (one machine's history is one trend);
* a pytest-benchmark storage folder (``.benchmarks/`` or ``.benchmarks/<machine-id>/``):
  every ``NNNN_*.json`` saved by ``--benchmark-autosave``/``--benchmark-save``, ordered by
  the commit time, then the run's ``datetime``, then the file's counter.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pilotstats.exceptions import FormatError
from pilotstats.io._asv_order import AsvLayout, asv_layout, commit_order
from pilotstats.io._source import folder_files, read_json

__all__ = ["HistoryEntry", "result_history"]


@dataclass(frozen=True)
class HistoryEntry:
    """One result file of a history folder, its label (commit or save name), its sort key
    and how the folder's results were ordered (asv: how equal commit dates were)."""

    path: Path
    label: str
    key: tuple[Any, ...]
    order: str = ""


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
        return HistoryEntry(path, commit[:8], (0, float(data.get("date") or 0), commit,
                                               path.name))
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
    layout = asv_layout(root) if root.is_dir() else None
    if layout is not None and _is_asv(layout, root):
        if len(layout.machines) > 1:
            names = ", ".join(p.name for p in layout.machines)
            raise FormatError(f"{root}: asv results of {len(layout.machines)} machines "
                              f"({names}); a trend follows one machine: pass its folder, "
                              f"e.g. {layout.machines[0]}", source=str(root))
        files = [p for machine in layout.machines
                 for p in folder_files(machine, "*.json", recursive=False)]
    else:
        files = folder_files(root, "*.json")
    entries = [e for e in (_entry(p) for p in files) if e is not None]
    if not entries:
        raise FormatError(
            f"{root}: no asv result files (<commit>-<env>.json with commit_hash) nor "
            f"pytest-benchmark saved runs (NNNN_*.json) found in this folder",
            source=str(root),
        )
    if len({e.key[0] for e in entries}) > 1:
        raise FormatError(f"{root}: holds both asv and pytest-benchmark results; pass one "
                          f"of its subfolders", source=str(root))
    if entries[0].key[0] == 0:  # asv: equal commit dates in git / asv revision order
        order = commit_order(layout or asv_layout(root), [e.key[2] for e in entries])
        entries = [replace(e, key=(0, e.key[1], order.key(e.key[2]), e.key[3]),
                           order=order.description) for e in entries]
    return sorted(entries, key=lambda e: e.key)


def _is_asv(layout: AsvLayout, root: Path) -> bool:
    """An asv tree: asv's configuration in ``root``, ``benchmarks.json`` or ``machine.json``
    files."""
    return ((root / "asv.conf.json").is_file() or (layout.results / "benchmarks.json").is_file()
            or any((machine / "machine.json").is_file() for machine in layout.machines))
