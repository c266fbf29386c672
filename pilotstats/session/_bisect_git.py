"""Git plumbing of :func:`pilotstats.session.bisect`: commits of a range and detached worktrees.

Every commit is measured in a temporary worktree (``git worktree add --detach``) outside the
user's checkout, whose files, index and ``HEAD`` are never touched; the worktree is removed
(and pruned) afterwards, also after a failure or an interruption.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pilotstats.exceptions import InvalidInputError, PilotStatsError

__all__: list[str] = []


class BisectError(PilotStatsError, RuntimeError):
    """Bisection cannot go on: git failed, or a reference commit cannot be built or run.

    Examples
    --------
    >>> import sys, tempfile
    >>> from pilotstats.session import BisectError, bisect
    >>> from pilotstats.demo import demo_repository
    >>> folder = tempfile.mkdtemp() + "/repo"
    >>> commits = demo_repository(folder, commits=3)
    >>> try:
    ...     bisect(commits[0], commits[-1], [sys.executable, "missing.py"], repo=folder)
    ... except BisectError as error:
    ...     print("reference" in str(error), "failed" in str(error))
    True True
    """


def git(repo: str, *arguments: str, check: bool = True) -> str:
    """Run ``git -C repo ARGS`` and return its standard output (stripped)."""
    try:
        completed = subprocess.run(["git", "-C", repo, *arguments], capture_output=True,
                                   text=True, check=False)
    except OSError as exc:
        raise BisectError(f"cannot run git: {exc}") from None
    if check and completed.returncode != 0:
        detail = completed.stderr.strip().splitlines()[-1:] or ["(no message)"]
        raise BisectError(f"git {' '.join(arguments[:3])} failed in {repo}: {detail[0]}")
    return completed.stdout.strip()


def resolve(repo: str, revision: str, name: str) -> str:
    """Full hash of ``revision`` (a named error when it is not a commit of ``repo``)."""
    if not isinstance(revision, str) or not revision or revision.startswith("-"):
        raise InvalidInputError(f"{name} must be a git revision, got {revision!r}")
    completed = subprocess.run(
        ["git", "-C", repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise InvalidInputError(f"{name} {revision!r} is not a commit of the repository "
                                f"{repo}")
    return completed.stdout.strip()


def commit_range(repo: str, good: str, bad: str) -> list[str]:
    """Commits after ``good`` up to and including ``bad``, oldest first (ancestry path).

    Raises
    ------
    InvalidInputError
        ``good`` is not an ancestor of ``bad``.
    """
    if subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", good, bad],
                      capture_output=True, check=False).returncode != 0:
        raise InvalidInputError(f"the good commit {good[:12]} is not an ancestor of the bad "
                                f"commit {bad[:12]}")
    listed = git(repo, "rev-list", "--reverse", "--ancestry-path", "--first-parent",
                 f"{good}..{bad}")
    commits = listed.split()
    if not commits or commits[-1] != bad:
        listed = git(repo, "rev-list", "--reverse", "--ancestry-path", f"{good}..{bad}")
        commits = listed.split()
    return commits


def subject(repo: str, commit: str) -> str:
    """First line of a commit's message."""
    return git(repo, "log", "-1", "--format=%s", commit)


def repository_root(path: str) -> str:
    """Top directory of the git work tree containing ``path`` (named error otherwise)."""
    if not os.path.isdir(path):
        raise InvalidInputError(f"repository {path!r} is not a directory")
    completed = subprocess.run(["git", "-C", path, "rev-parse", "--show-toplevel"],
                               capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise InvalidInputError(f"{path!r} is not inside a git repository")
    return completed.stdout.strip()


@contextmanager
def worktree(repo: str, commit: str) -> Iterator[Path]:
    """A detached temporary worktree of ``commit``, removed on exit."""
    parent = tempfile.mkdtemp(prefix="pilotstats-bisect-")
    path = Path(parent) / commit[:12]
    try:
        git(repo, "worktree", "add", "--detach", "--force", str(path), commit)
        yield path
    finally:
        git(repo, "worktree", "remove", "--force", str(path), check=False)
        shutil.rmtree(parent, ignore_errors=True)
        git(repo, "worktree", "prune", check=False)
