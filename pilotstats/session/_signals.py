"""Signals that end a ``pilotstats run`` session: Ctrl-C, SIGTERM and SIGHUP alike.

While the session runs, SIGINT, SIGTERM and SIGHUP raise :class:`SessionInterrupted` (a
``KeyboardInterrupt``) in the main thread; the round's program is then stopped (its
process group, see :func:`pilotstats.session._runner.stop_program`) and the partial
summary is written. Inside :meth:`StopSignals.deferred` (recording a round and appending
it to the log, writing the summary) a signal is held back and raised when the block ends,
so a signal never tears a file.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any

__all__ = ["SessionInterrupted", "StopSignals"]

_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class SessionInterrupted(KeyboardInterrupt):
    """A signal (``signum``) asked the session to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """Context manager turning SIGINT, SIGTERM and SIGHUP into :class:`SessionInterrupted`.

    Outside the main thread (where handlers cannot be installed) it does nothing; Ctrl-C
    then still raises ``KeyboardInterrupt``.
    """

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}
        self._depth = 0
        self._pending: int | None = None

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in _SIGNALS:
                try:
                    self._previous[signum] = signal.signal(signum, self._handle)
                except (OSError, ValueError):
                    continue
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._depth:
            if self._pending is None:
                self._pending = signum
            return
        raise SessionInterrupted(signum)

    @contextmanager
    def deferred(self, *, deliver: bool = True) -> Iterator[None]:
        """Hold signals back during the block; raise the first one when it ends.

        With ``deliver=False`` the signal is kept for :meth:`take_pending` instead.
        """
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        if deliver and not self._depth and self._pending is not None:
            signum, self._pending = self._pending, None
            raise SessionInterrupted(signum)

    def take_pending(self) -> int | None:
        """The signal held back and not raised (e.g. during the final summary), if any."""
        signum, self._pending = self._pending, None
        return signum
