"""A demonstration repository for :func:`pilotstats.session.bisect` (docs, tests, README).

:func:`demo_repository` writes ``commits`` commits with ``git fast-import`` (one process per
repository): each holds ``bench.py``, a CPU-bound Python loop whose iteration count is read
from ``work.txt``, and the work grows by ``growth`` from commit ``culprit`` on (0-based;
``None``: no change). The program adds its own run-to-run noise (``noise``, relative, from
``os.urandom``) and prints the seconds its loop took, so a bisection reads column 0.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["demo_repository"]

BENCH = """import os, random, time
work = int(open("work.txt").read())
noise = float(open("noise.txt").read())
rng = random.Random(int.from_bytes(os.urandom(8), "little"))
n = max(1, int(work * (1.0 + noise * rng.gauss(0.0, 1.0))))
start = time.perf_counter()
total = 0
for i in range(n):
    total += i
print(time.perf_counter() - start)
"""

ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}


def _blob(text: str) -> bytes:
    data = text.encode()
    return b"data %d\n%s\n" % (len(data), data)


def demo_repository(path: str | os.PathLike[str], *, commits: int = 64,
                    culprit: int | None = None, iterations: int = 30_000, growth: float = 1.15,
                    noise: float = 0.05, broken: tuple[int, ...] = ()) -> list[str]:
    """Create the repository at ``path`` (a new folder); return its commits, oldest first.

    Parameters
    ----------
    path : str or os.PathLike
        Folder to create (it must not exist).
    commits : int, default 64
        Number of commits.
    culprit : int, optional
        0-based index of the first commit whose benchmark does more work (None: none).
    iterations : int, default 30,000
        Loop iterations of the benchmark before the culprit.
    growth : float, default 1.15
        Factor of the work from the culprit on.
    noise : float, default 0.05
        Relative run-to-run noise the program adds to its own work (from ``os.urandom``).
    broken : tuple of int
        Commits holding a file ``BROKEN``, on which a build command can fail.

    Returns
    -------
    list of str
        The commit hashes, oldest first.

    Examples
    --------
    >>> import tempfile
    >>> commits = demo_repository(tempfile.mkdtemp() + "/repo", commits=4, culprit=2)
    >>> len(commits)
    4
    """
    path = Path(path)
    path.mkdir(parents=True)
    environment = {**os.environ, **ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True,
                   env=environment, capture_output=True)
    stream = bytearray()
    for index in range(commits):
        amount = (int(iterations * growth) if culprit is not None and index >= culprit
                  else iterations)
        message = f"commit {index}"
        stream += b"commit refs/heads/main\nmark :%d\n" % (index + 1)
        stream += b"committer bench <bench@example.org> %d +0000\n" % (1_700_000_000 + index)
        stream += _blob(message)
        if index:
            stream += b"from :%d\n" % index
        stream += b"M 644 inline bench.py\n" + _blob(BENCH)
        stream += b"M 644 inline work.txt\n" + _blob(str(amount))
        stream += b"M 644 inline noise.txt\n" + _blob(repr(noise))
        stream += b"M 644 inline notes.txt\n" + _blob(message)
        if index in broken:
            stream += b"M 644 inline BROKEN\n" + _blob("x")
        elif index - 1 in broken:
            stream += b"D BROKEN\n"
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"], input=bytes(stream),
                   check=True, env=environment, capture_output=True)
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "main"], check=True,
                   env=environment, capture_output=True)
    listed = subprocess.run(["git", "-C", str(path), "rev-list", "--reverse", "main"],
                            check=True, capture_output=True, text=True).stdout
    return listed.split()
