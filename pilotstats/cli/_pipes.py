"""Output into a closed reader (``pilotstats ... | head -1``) ends quietly.

Python ignores SIGPIPE, so a write into a pipe whose reader has gone raises
:class:`BrokenPipeError`. The command line wraps ``sys.stdout`` and ``sys.stderr`` in
:class:`QuietPipe` for the whole command: the first failed write points the stream's file
descriptor at ``os.devnull`` (Python's recommendation, so that the interpreter's final
flush cannot fail either) and every later write is dropped. The command itself goes on
and exits with its own status, as if the reader had read everything: a ``compare`` that
finds a regression still exits 1 (visible with ``set -o pipefail``), a ``run`` session
still writes its summary files.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO, cast

__all__ = ["QuietPipe", "quiet_pipes"]


class QuietPipe:
    """A text stream whose writes into a closed pipe are dropped without an error.

    Parameters
    ----------
    stream : text stream
        The wrapped stream (``sys.stdout``, ``sys.stderr``, or any file-like object).

    Examples
    --------
    >>> class Closed:
    ...     def write(self, text):
    ...         raise BrokenPipeError(32, "Broken pipe")
    ...     def flush(self):
    ...         pass
    >>> stream = QuietPipe(Closed())
    >>> print("first line", file=stream)
    >>> stream.broken
    True
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        """Write ``text``; a closed reader drops it (and everything after it)."""
        if not self.broken:
            try:
                return int(self._stream.write(text))
            except BrokenPipeError:
                self._close()
        return len(text)

    def flush(self) -> None:
        """Flush the stream; a closed reader drops the buffered text."""
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._close()

    def _close(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            descriptor = self._stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, descriptor)
            os.close(devnull)
            with contextlib.suppress(BrokenPipeError):
                self._stream.flush()  # the text left in the buffer goes to devnull

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def quiet_pipes() -> Iterator[None]:
    """Within the block, writes to ``sys.stdout``/``sys.stderr`` never raise a broken pipe.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()) as out, quiet_pipes():
    ...     print("hello")
    >>> out.getvalue()
    'hello\\n'
    """
    saved = sys.stdout, sys.stderr
    guards = QuietPipe(sys.stdout), QuietPipe(sys.stderr)
    sys.stdout, sys.stderr = (cast(TextIO, guard) for guard in guards)
    try:
        yield
    finally:
        for guard in guards:
            guard.flush()
        sys.stdout, sys.stderr = saved
