"""Crash-safe files of a ``pilotstats run`` session: lock, round log, state and outputs.

A session directory holds ``session.json`` (the run configuration and the session options,
rewritten atomically), ``rounds.jsonl`` (one JSON line per recorded round, appended and
flushed to disk before the next round starts) and, while a run is active, ``session.lock``
(its process id and host). Every file is opened without following symbolic links; a link
planted where the session writes is refused.

Guarantees: a round line is written in one append, flushed and ``fsync``-ed; a
failed append is cut back so the log never ends in a torn line it wrote itself; a torn last
line left by a crash is reported and cut before anything is appended (a last line that is a
complete round without its newline is kept and completed); a damaged line before the last
is an error naming the line, so resuming never drops a round that is intact on disk. A
second run on the same directory fails while the first holds the lock; a lock whose
process is gone (same host) is stale and taken over.
"""

from __future__ import annotations

import errno
import json
import math
import os
import socket
import stat
import time
from dataclasses import dataclass
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from pilotstats.exceptions import SessionStateError

__all__ = [
    "LOCK_FILE",
    "MAX_STATE_BYTES",
    "ROUNDS_LOG",
    "STATE_FILE",
    "RoundLog",
    "SessionLock",
    "TailRepair",
    "is_out_of_space",
    "read_json",
    "read_rounds",
    "read_saved",
    "refuse_planted_links",
    "repair_tail",
    "write_file",
]

STATE_FILE = "session.json"
ROUNDS_LOG = "rounds.jsonl"
LOCK_FILE = "session.lock"
#: Largest ``session.json`` read (bytes); a larger one is not a file pilotstats wrote.
MAX_STATE_BYTES = 16 * 2**20
#: A lock file left empty (a crash between its creation and its first write) is stale
#: after this many seconds.
EMPTY_LOCK_GRACE = 10.0
_INDEX_TYPES = ("ordinary", "ratio", "binary")
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def is_out_of_space(exc: BaseException) -> bool:
    """The error is a full disk or an exhausted quota (``ENOSPC``, ``EDQUOT``, ``EFBIG``)."""
    return isinstance(exc, OSError) and exc.errno in (
        errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG
    )


def _refuse_link(path: str) -> None:
    """Raise when ``path`` exists and is not a regular file (a planted link, FIFO, device)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise SessionStateError(
            f"{path} is a symbolic link; pilotstats run never writes or reads session files "
            "through links (someone may have planted it): remove it or choose another "
            "output directory"
        )
    if not stat.S_ISREG(info.st_mode):
        raise SessionStateError(f"{path} exists and is not a regular file; remove it")


#: Every name ``pilotstats run`` writes in its output directory.
OUTPUT_NAMES = (STATE_FILE, ROUNDS_LOG, LOCK_FILE, "rounds.csv", "readings.csv",
                "unit_readings.csv", "summary.csv", "summary.json", "round_results")


def refuse_planted_links(directory: str) -> None:
    """Raise before anything runs when a name the session writes is a symbolic link."""
    for name in OUTPUT_NAMES:
        path = os.path.join(directory, name)
        if os.path.islink(path):
            _refuse_link(path)


def _open(path: str, flags: int) -> int:
    """``os.open`` that never follows a symbolic link in the last component."""
    _refuse_link(path)
    try:
        return os.open(path, flags | _NO_FOLLOW, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _refuse_link(path)  # a link planted between the check and the open
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_file(directory: str, name: str, data: bytes) -> None:
    """Replace ``directory/name`` atomically by ``data`` (a crash leaves the old file).

    The bytes go to a new temporary file (``O_EXCL``, no links followed), are flushed to
    disk and renamed over the target; a symbolic link at the target is refused, never
    followed. On any error the temporary file is removed and the target is unchanged.
    """
    target = os.path.join(directory, name)
    _refuse_link(target)
    temporary = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    try:
        os.unlink(temporary)  # a leftover of this pid's crashed run
    except FileNotFoundError:
        pass
    fd = _open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        _refuse_link(target)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _sync_directory(directory)


def _read_regular(path: str, limit: int | None, *, follow_links: bool = False) -> bytes:
    """The bytes of a regular file (no links, FIFOs or devices; at most ``limit`` bytes)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if follow_links:  # a file the user named (its regular-file check is below)
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    else:
        fd = _open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SessionStateError(f"{path} is not a regular file")
        if limit is not None and info.st_size > limit:
            raise SessionStateError(
                f"{path} holds {info.st_size} bytes, more than the {limit} a file of "
                "pilotstats run can have; it was not written by pilotstats run"
            )
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number pilotstats writes")


def _loads(data: bytes) -> Any:
    return json.loads(data.decode("utf-8"), parse_constant=_no_constant)


def read_json(path: str, limit: int | None = None, *, follow_links: bool = False) -> Any:
    """The JSON of a regular file (at most ``limit`` bytes; links followed only if asked).

    Raises
    ------
    SessionStateError
        ``path`` is a link (unless ``follow_links``) or not a regular file, too large, or
        not JSON.
    """
    data = _read_regular(path, limit, follow_links=follow_links)
    try:
        return _loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise SessionStateError(f"{path} is not valid JSON ({exc})") from None


# -- schema ---------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and all(_is_number(item) for item in value)


def _check(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise SessionStateError(f"{where} must be {what}")


def _check_run(run: Any, where: str) -> None:
    """The run configuration of ``session.json``, field by field."""
    _check(isinstance(run, dict), where, "an object")
    fields = {
        "program": "a non-empty list of strings",
        "work_range": "null or [MIN, MAX] with 0 < MIN <= MAX",
        "pis": "a list of index declarations",
        "unit_readings": "true or false",
        "duration_column": "null or a column number >= 0",
        "valid_rc": "a list of integers",
        "env": "an object of strings",
        "timeout": "null or a positive number",
        "higher_is_better": "a list of strings",
        "baseline_file": "null or a string",
        "elapsed": "a number >= 0",
        "session_options": "an object",
    }
    unknown = sorted(set(run) - set(fields))
    if unknown:
        raise SessionStateError(f"{where} has unknown field(s) {', '.join(unknown)}")
    for key in fields:
        if key not in run:
            raise SessionStateError(f"{where} lacks the field {key}")
    program, work, pis = run["program"], run["work_range"], run["pis"]
    checks = {
        "program": isinstance(program, list) and bool(program)
        and all(isinstance(item, str) and "\x00" not in item for item in program),
        "work_range": work is None or (
            _numbers(work) and len(work) == 2 and 0 < work[0] <= work[1]
        ),
        "pis": isinstance(pis, list),
        "unit_readings": isinstance(run["unit_readings"], bool),
        "duration_column": run["duration_column"] is None or (
            _is_int(run["duration_column"]) and run["duration_column"] >= 0
        ),
        "valid_rc": isinstance(run["valid_rc"], list)
        and all(_is_int(rc) for rc in run["valid_rc"]),
        "env": isinstance(run["env"], dict) and all(
            isinstance(k, str) and k and "=" not in k and isinstance(v, str)
            and "\x00" not in k + v
            for k, v in run["env"].items()
        ),
        "timeout": run["timeout"] is None or (_is_number(run["timeout"]) and run["timeout"] > 0),
        "higher_is_better": isinstance(run["higher_is_better"], list)
        and all(isinstance(item, str) for item in run["higher_is_better"]),
        "baseline_file": run["baseline_file"] is None or isinstance(run["baseline_file"], str),
        "elapsed": _is_number(run["elapsed"]) and run["elapsed"] >= 0,
        "session_options": isinstance(run["session_options"], dict),
    }
    for key, passed in checks.items():
        _check(passed, f"{where}.{key}", fields[key])
    for position, pi in enumerate(pis):
        _check_pi(pi, f"{where}.pis[{position}]")


def _check_pi(pi: Any, where: str) -> None:
    keys = {"name", "unit", "column", "index_type", "must_satisfy"}
    _check(isinstance(pi, dict) and set(pi) == keys, where,
           "an object with name, unit, column, index_type and must_satisfy")
    _check(isinstance(pi["name"], str) and isinstance(pi["unit"], str), where,
           "named by strings")
    _check(_is_int(pi["column"]) and pi["column"] >= 0, f"{where}.column",
           "a column number >= 0")
    _check(pi["index_type"] in _INDEX_TYPES, f"{where}.index_type",
           "ordinary, ratio or binary")
    _check(isinstance(pi["must_satisfy"], bool), f"{where}.must_satisfy", "true or false")


def check_round(record: Any, where: str) -> None:
    """One line of ``rounds.jsonl``: ``{"work", "duration", "readings", "unit_readings"}``."""
    _check(
        isinstance(record, dict) and set(record) == {"work", "duration", "readings",
                                                     "unit_readings"},
        where, "a round object with work, duration, readings and unit_readings",
    )
    work, duration = record["work"], record["duration"]
    _check(work is None or (_is_number(work) and work >= 0), f"{where}.work",
           "null or a number >= 0")
    _check(_is_number(duration) and duration >= 0, f"{where}.duration", "a number >= 0")
    _check(record["readings"] is None or _numbers(record["readings"]), f"{where}.readings",
           "null or a list of numbers")
    units = record["unit_readings"]
    _check(units is None or (isinstance(units, list) and all(_numbers(row) for row in units)),
           f"{where}.unit_readings", "null or a list of lists of numbers")


def read_saved(directory: str) -> dict[str, Any]:
    """``session.json`` of ``directory``, checked against its schema.

    Returns
    -------
    dict
        ``{"version": 1, "run": <run configuration>, "session": <session options>}``.

    Raises
    ------
    FileNotFoundError
        There is no ``session.json``.
    SessionStateError
        The file is a link, not a regular file, too large, not JSON or not valid; the
        message names the field.
    """
    path = os.path.join(directory, STATE_FILE)
    saved = read_json(path, MAX_STATE_BYTES)
    _check(isinstance(saved, dict) and saved.get("version") == 1, path,
           'an object with "version": 1')
    unknown = sorted(set(saved) - {"version", "run", "session"})
    if unknown:
        raise SessionStateError(f"{path} has unknown field(s) {', '.join(unknown)}")
    _check_run(saved.get("run"), f"{path}: run")
    session = saved.get("session")
    _check(
        isinstance(session, dict) and session.get("version") == 1
        and isinstance(session.get("options"), dict) and set(session) == {"version", "options"},
        f"{path}: session", 'an object with "version": 1 and the session "options"',
    )
    checked: dict[str, Any] = saved
    return checked


# -- the round log --------------------------------------------------------------------------


@dataclass(frozen=True)
class TailRepair:
    """What :func:`read_rounds` found after the last complete line of ``rounds.jsonl``."""

    line: int  # 1-based number of the incomplete last line
    offset: int  # byte offset where it starts
    size: int  # its length in bytes
    complete: bool  # a whole round without its newline (kept and completed)

    def message(self, path: str) -> str:
        if self.complete:
            return (f"{path}: line {self.line} is a complete round without its final newline "
                    "(a crash after writing it); kept, and the newline added")
        return (f"{path}: line {self.line} was cut short by a crash ({self.size} byte(s) of "
                "an unfinished round); removed before continuing (the rounds before it are "
                "intact)")


def read_rounds(directory: str) -> tuple[list[dict[str, Any]], TailRepair | None]:
    """Every round in ``rounds.jsonl`` and the state of its last line.

    Returns
    -------
    rounds : list of dict
        The complete rounds, in order (a complete last line without its newline included).
    tail : TailRepair or None
        The incomplete last line, if any (:func:`repair_tail` applies it).

    Raises
    ------
    SessionStateError
        A line before the last is not a valid round (the file was changed after it was
        written); the message names the line. Nothing is truncated.
    """
    path = os.path.join(directory, ROUNDS_LOG)
    try:
        data = _read_regular(path, None)
    except FileNotFoundError:
        return [], None
    lines = data.split(b"\n")
    rounds = []
    for number, line in enumerate(lines[:-1], start=1):
        try:
            record = _loads(line)
            check_round(record, "the round")
        except (ValueError, UnicodeDecodeError, RecursionError, SessionStateError) as exc:
            raise SessionStateError(
                f"{path}: line {number} of {len(lines) - 1} complete lines is not a valid round "
                f"({exc}); the file was changed after pilotstats wrote it. Nothing was cut or "
                "appended: repair or remove that line to continue"
            ) from None
        rounds.append(record)
    tail = lines[-1]
    if not tail:
        return rounds, None
    offset = len(data) - len(tail)
    try:
        record = _loads(tail)
        check_round(record, "the round")
    except (ValueError, UnicodeDecodeError, RecursionError, SessionStateError):
        return rounds, TailRepair(len(lines), offset, len(tail), complete=False)
    rounds.append(record)
    return rounds, TailRepair(len(lines), offset, len(tail), complete=True)


def repair_tail(directory: str, tail: TailRepair) -> None:
    """Cut a torn last line of ``rounds.jsonl`` (or complete one that lacks its newline)."""
    fd = _open(os.path.join(directory, ROUNDS_LOG), os.O_WRONLY | os.O_APPEND)
    try:
        if tail.complete:
            _write_all(fd, b"\n")
        else:
            os.ftruncate(fd, tail.offset)
        os.fsync(fd)
    finally:
        os.close(fd)


class RoundLog:
    """``rounds.jsonl`` opened for appending (no links followed, created if absent)."""

    def __init__(self, directory: str) -> None:
        self.path = os.path.join(directory, ROUNDS_LOG)
        self._fd = _open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    def append(self, record: dict[str, Any]) -> None:
        """Write one round as a line, flush it to disk; on failure cut the log back.

        Raises
        ------
        OSError
            The write or the flush failed (e.g. the disk is full); the log is as before.
        """
        data = (json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n").encode()
        before = os.fstat(self._fd).st_size
        try:
            _write_all(self._fd, data)
            os.fsync(self._fd)
        except BaseException:
            try:
                os.ftruncate(self._fd, before)
                os.fsync(self._fd)
            except OSError:
                pass
            raise

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


# -- the lock -------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError):
        return False
    return True


class SessionLock:
    """``session.lock``: one run per session directory, with stale-lock detection.

    The lock file holds ``{"pid", "host", "started"}`` of the run that holds it, which also
    keeps an exclusive ``flock`` on it while it runs (released by the kernel when the
    process dies). A lock of this host whose process no longer exists is stale: it is
    reported and taken over. A lock of a live process, or of another host (whose
    processes cannot be checked), is refused with a message naming its holder.
    """

    def __init__(self, directory: str) -> None:
        self.path = os.path.join(directory, LOCK_FILE)
        self.note: str | None = None  # set when a stale lock was taken over
        self._token = {"pid": os.getpid(), "host": socket.gethostname(),
                       "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self._fd = -1

    def _refused(self, holder: Any, detail: str = "") -> SessionStateError:
        directory = os.path.dirname(self.path) or "."
        if isinstance(holder, dict) and _is_int(holder.get("pid")):
            host = str(holder.get("host"))
            where = "on this host" if host == self._token["host"] else f"on host {host!r}"
            who = f" (pid {holder['pid']} {where}, since {holder.get('started')})"
        else:
            who = ""
        return SessionStateError(
            f"{directory} is in use by another pilotstats run{who}{detail}; two runs must "
            f"not share a session directory. Wait for it to end, or, if that run is gone, "
            f"remove {self.path}"
        )

    def acquire(self) -> None:
        """Take the lock or raise :class:`SessionStateError` naming its holder."""
        for _ in range(5):
            fd = _open(self.path, os.O_RDWR | os.O_CREAT)
            try:
                if self._try_lock(fd):
                    self._fd = fd
                    return
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # the file was replaced meanwhile: lock the new one
        raise self._refused(None, " (its lock file keeps changing)")

    def _try_lock(self, fd: int) -> bool:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._refused(_holder(fd)) from None
        try:
            if os.fstat(fd).st_ino != os.lstat(self.path).st_ino:
                return False
        except FileNotFoundError:
            return False
        data = _holder_bytes(fd)
        holder = _holder(fd)
        if isinstance(holder, dict) and _is_int(holder.get("pid")):
            if holder.get("host") != self._token["host"]:
                raise self._refused(holder, ": its host cannot be checked from here")
            if holder["pid"] != os.getpid() and _alive(holder["pid"]):
                raise self._refused(holder)
            self.note = (f"{self.path}: stale lock of pid {holder['pid']} (no longer "
                         "running) taken over")
        elif data:
            self.note = f"{self.path}: unreadable stale lock taken over"
        elif fcntl is None and time.time() - os.fstat(fd).st_mtime < EMPTY_LOCK_GRACE:
            raise self._refused(None, " (it is creating its lock right now)")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        _write_all(fd, json.dumps(self._token).encode())
        os.fsync(fd)
        return True

    def release(self) -> None:
        """Remove the lock file (still holding the lock) if it is still this run's."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            if _holder(fd) == self._token and os.fstat(fd).st_ino == os.lstat(self.path).st_ino:
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            os.close(fd)


def _holder_bytes(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 4096)


def _holder(fd: int) -> Any:
    try:
        return _loads(_holder_bytes(fd))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
