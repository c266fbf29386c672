"""Where an asv results folder is, and in which order its commits come.

Both ``pilotstats trend`` and ``pilotstats fleet`` (through
:func:`~pilotstats.io.load_asv_history`) accept any of three folders and find the others
(:func:`asv_layout`):

* the asv project folder (holding ``asv.conf.json``; its ``results_dir``, default
  ``results``);
* the results root (``results/``: ``benchmarks.json`` and one folder per machine);
* one machine's folder (``results/<machine>/``: ``machine.json`` and one
  ``<commit>-<env>.json`` per run).

Results are ordered by the commit date asv records. Commits with equal dates (a merge and
its parents, a rebase, several commits in one second) are ordered (:func:`commit_order`):

1. by git: ``git rev-list --topo-order --all`` in the repository named by ``repo`` in
   ``asv.conf.json`` (relative to that file), when it is a local git repository;
2. else by asv's own revision numbers: ``revision_to_hash`` in ``<html_dir>/index.json``
   written by ``asv publish`` (the commit's position in the repository's history);
3. else by commit hash, which is arbitrary; the description says so.

``asv.conf.json`` may hold ``//`` comments, as asv allows.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pilotstats.exceptions import FormatError

__all__ = ["AsvLayout", "CommitOrder", "asv_layout", "commit_order"]

#: Seconds ``git rev-list`` may take before the order falls back to asv's metadata.
GIT_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class AsvLayout:
    """The folders of an asv results tree.

    Attributes
    ----------
    results : Path
        The results root (``benchmarks.json``, one folder per machine).
    machines : tuple of Path
        The machine folders to read (one when a machine folder was given).
    config : Path or None
        ``asv.conf.json`` of the project, when found (in the given folder or above the
        results root).
    """

    results: Path
    machines: tuple[Path, ...]
    config: Path | None


@dataclass(frozen=True, slots=True)
class CommitOrder:
    """Ranks of commit hashes (older lower) and how they were found.

    Attributes
    ----------
    rank : dict
        Commit hash -> position (0 the oldest) for the commits the source knows.
    source : str
        ``"git"``, ``"asv"`` (``revision_to_hash`` of asv's published index) or
        ``"hash"`` (no order known: equal dates fall back to the commit hash).
    description : str
        A sentence for the output: how equal commit dates are ordered.
    """

    rank: dict[str, int]
    source: str
    description: str

    def key(self, commit: str) -> tuple[int, str]:
        """Sort key of ``commit`` among commits of equal date."""
        return (self.rank.get(commit, len(self.rank)), commit)


def _is_machine(folder: Path) -> bool:
    if (folder / "machine.json").is_file():
        return True
    return not any(p.is_dir() for p in folder.iterdir()) and any(
        p.suffix == ".json" and p.name != "benchmarks.json" for p in folder.iterdir())


def _read_config(path: Path) -> dict[str, Any] | None:
    """``asv.conf.json`` (``//`` comments allowed, as asv does), or None if unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _find_config(start: Path) -> Path | None:
    for folder in (start, *list(start.parents)[:2]):
        candidate = folder / "asv.conf.json"
        if candidate.is_file():
            return candidate
    return None


def asv_layout(path: str | os.PathLike[str]) -> AsvLayout:
    """The results root, machine folders and ``asv.conf.json`` of ``path``.

    Parameters
    ----------
    path : str or path-like
        An asv project folder, results root or machine folder.

    Returns
    -------
    AsvLayout

    Raises
    ------
    FormatError
        ``path`` is not a folder.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "results" / "box").mkdir(parents=True)
    >>> _ = (root / "results" / "box" / "machine.json").write_text("{}")
    >>> _ = (root / "asv.conf.json").write_text('// comment\\n{"repo": "."}')
    >>> for given in (root, root / "results", root / "results" / "box"):
    ...     layout = asv_layout(given)
    ...     print([p.name for p in layout.machines], layout.config.name)
    ['box'] asv.conf.json
    ['box'] asv.conf.json
    ['box'] asv.conf.json
    """
    folder = Path(os.fspath(path))
    if not folder.is_dir():
        raise FormatError(f"{folder}: expected an asv results folder", source=str(folder))
    config = folder / "asv.conf.json"
    if config.is_file():
        data = _read_config(config) or {}
        folder = folder / str(data.get("results_dir") or "results")
    elif not (folder / "benchmarks.json").is_file() and (folder / "results").is_dir():
        folder = folder / "results"
    machines: tuple[Path, ...]
    if folder.is_dir() and _is_machine(folder):
        results, machines = folder.parent, (folder,)
    else:
        results = folder
        machines = tuple(sorted(p for p in folder.iterdir() if p.is_dir())) if folder.is_dir(
            ) else ()
    return AsvLayout(results, machines, _find_config(results.parent)
                     or _find_config(results))


def _git_order(repo: Path, timeout: float) -> list[str] | None:
    try:
        done = subprocess.run(["git", "-C", str(repo), "rev-list", "--topo-order", "--all"],
                              capture_output=True, text=True, timeout=timeout, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    hashes = done.stdout.split()
    return hashes[::-1] if hashes else None  # oldest first


def _asv_revisions(index: Path) -> list[str] | None:
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        mapping = data["revision_to_hash"]
        return [str(mapping[k]) for k in sorted(mapping, key=int)]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _ranks(order: list[str], commits: Iterable[str]) -> dict[str, int]:
    """Ranks of ``commits`` (full or abbreviated hashes) in ``order`` (oldest first)."""
    position = {commit: i for i, commit in enumerate(order)}
    ranks: dict[str, int] = {}
    for commit in commits:
        if commit in position:
            ranks[commit] = position[commit]
        elif len(commit) >= 7:
            found = [i for c, i in position.items() if c.startswith(commit)]
            if len(found) == 1:
                ranks[commit] = found[0]
    return ranks


def commit_order(layout: AsvLayout, commits: Iterable[str], *,
                 timeout: float = GIT_TIMEOUT) -> CommitOrder:
    """How to order ``commits`` of equal date (see the module docstring).

    Parameters
    ----------
    layout : AsvLayout
        From :func:`asv_layout`.
    commits : iterable of str
        The commit hashes of the results.
    timeout : float
        Seconds ``git rev-list`` may take.

    Returns
    -------
    CommitOrder
        The source that knows every one of ``commits`` first (git, then asv's revision
        numbers), else the hash fallback.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "results" / "box").mkdir(parents=True)
    >>> _ = (root / "results" / "box" / "machine.json").write_text("{}")
    >>> order = commit_order(asv_layout(root / "results"), ["b2", "a1"])
    >>> order.source, sorted(["b2", "a1"], key=order.key)
    ('hash', ['a1', 'b2'])
    """
    wanted = sorted(set(commits))
    config = _read_config(layout.config) if layout.config is not None else None
    tried: list[str] = []
    if config is not None and layout.config is not None:
        home = layout.config.parent
        repo = config.get("repo")
        if isinstance(repo, str) and "://" not in repo and not repo.startswith("git@"):
            path = (home / repo).resolve()
            order = _git_order(path, timeout) if path.is_dir() else None
            if order is not None:
                ranks = _ranks(order, wanted)
                if len(ranks) == len(wanted):
                    return CommitOrder(ranks, "git", "equal commit dates ordered by git "
                                       f"(git rev-list --topo-order in {path})")
                tried.append(f"the git repository {path} lacks some commits")
            else:
                tried.append(f"no git repository at {path}")
        else:
            tried.append(f"the repository {repo!r} is not a local folder")
        index = home / str(config.get("html_dir") or "html") / "index.json"
        revisions = _asv_revisions(index)
        if revisions is not None:
            ranks = _ranks(revisions, wanted)
            if len(ranks) == len(wanted):
                return CommitOrder(ranks, "asv", "equal commit dates ordered by asv's "
                                   f"revision numbers ({index}; no usable git repository: "
                                   f"{tried[0]})")
            tried.append(f"{index} lacks some commits")
        else:
            tried.append(f"no asv revision data ({index}; run asv publish)")
    else:
        tried.append("no asv.conf.json found")
    return CommitOrder({}, "hash", "equal commit dates ordered by commit hash, which is "
                       f"arbitrary ({'; '.join(tried)})")
