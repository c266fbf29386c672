"""Driving a Python workload with a benchmark session (:func:`run_session`).

:func:`run_session` runs a callable round after round, timing it, until the
:class:`~pilotstats.session.BenchmarkSession` is done, reporting progress to a tqdm-like bar
or a callable and optionally checkpointing the session after every round.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from pilotstats.exceptions import InvalidInputError, WorkloadError
from pilotstats.session._controller import BenchmarkSession
from pilotstats.session._results import SessionProgress, SessionResult

__all__ = ["run_session"]


def _parse_outcome(outcome: Any, measured: float) -> tuple[float, Any]:
    """``workload`` returns None, a duration, or ``(duration or None, unit_readings)``."""
    if outcome is None:
        return measured, None
    if isinstance(outcome, tuple):
        if len(outcome) != 2:
            raise InvalidInputError(
                "workload must return None, a duration, or (duration, unit_readings); "
                f"got a tuple of length {len(outcome)}"
            )
        duration, unit_readings = outcome
        return (measured if duration is None else duration), unit_readings
    return outcome, None


def _report(progress: Any, state: SessionProgress, shown: list[int]) -> None:
    """Send progress to a tqdm-like bar (``update``) or a plain callable."""
    if progress is None:
        return
    if hasattr(progress, "update"):
        percent = int(state.fraction * 100)
        if getattr(progress, "total", None) is None:
            progress.total = 100
        progress.update(percent - shown[0])
        shown[0] = percent
        if hasattr(progress, "set_postfix_str"):
            progress.set_postfix_str(state.message, refresh=False)
        return
    progress(state)


def run_session(
    workload: Callable[[float | None], Any],
    max_work: float | None = None,
    *,
    progress: Any = None,
    timer: Callable[[], float] = time.perf_counter,
    session: BenchmarkSession | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    **options: Any,
) -> SessionResult:
    """Run ``workload`` round after round until the session's targets are met.

    Parameters
    ----------
    workload : callable
        ``workload(work)`` runs one round (``work`` is None when ``max_work`` is None) and
        returns None (timed with ``timer``), its duration in seconds, or
        ``(duration, unit_readings)`` (``duration`` None: the measured time).
    max_work : float, optional
        Largest work of a round (see :class:`BenchmarkSession`).
    progress : tqdm-like object or callable, optional
        A ``tqdm`` bar (``update`` gets percentage points, the postfix a status message) or
        a function called with a :class:`SessionProgress` after every round.
    timer : callable, default time.perf_counter
        Clock used to time rounds. A round it measures as 0 s (a coarse clock) is stored
        as short and not used; the session continues.
    session : BenchmarkSession, optional
        Continue an existing session (e.g. ``WorkloadError.session``, ``BenchmarkSession.
        load(path)``) instead of creating one; ``max_work`` and ``options`` are then omitted.
    checkpoint : str or path-like, optional
        Save the session (:meth:`BenchmarkSession.save`) to this file after every round,
        so an interrupted session can be resumed with ``BenchmarkSession.load``.
    **options
        Keyword arguments of :class:`BenchmarkSession`.

    Returns
    -------
    SessionResult
        The final estimates (``stop_reason`` says why the session ended).

    Raises
    ------
    WorkloadError
        The workload raised; the error carries the session with every round recorded
        before (``error.session``, ``error.result``) and the original exception as cause.

    Examples
    --------
    >>> from pilotstats.session import RoundLimits
    >>> result = run_session(lambda work: 0.01 + work / 1e4, 10_000,
    ...                      limits=RoundLimits(min_rounds=5, min_round_duration=0.0))
    >>> result.done, round(result.wps.throughput)
    (True, 10000)
    """
    if session is None:
        session = BenchmarkSession(max_work, **options)
    elif options or max_work is not None:
        raise InvalidInputError("pass either session or max_work/options, not both")
    shown = [0]
    while not session.done:
        work = session.next_work()
        start = timer()
        try:
            outcome = workload(work)
        except Exception as exc:
            raise WorkloadError(
                f"the workload raised {type(exc).__name__} in round {session.n_rounds} "
                f"(0-based; work amount {work}): {exc}; the {session.n_rounds} rounds "
                "recorded before are kept in error.session",
                session=session, result=session.result(), round_index=session.n_rounds,
            ) from exc
        measured = max(timer() - start, 0.0)
        duration, unit_readings = _parse_outcome(outcome, measured)
        session.record(work, duration, unit_readings=unit_readings)
        if checkpoint is not None:
            session.save(checkpoint)
        _report(progress, session.progress, shown)
    return session.result()
