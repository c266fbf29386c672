"""How a ``pilotstats run`` session ends: exit statuses and the early stops.

Exit statuses of ``pilotstats run`` (the table of the README and ``pilotstats run
--help``):

====  ==========================================================================
0     targets met: every required interval is narrow enough
1     a significant regression against ``--baseline``
2     bad usage or input, including a session directory that cannot be used (malformed or
      tampered state, a damaged round log, another run holding its lock, a planted link)
3     internal error (a bug in pilotstats; from ``pilotstats`` itself)
4     the benchmark program failed (exit status outside ``--valid-rc``, unparsable output,
      ``--timeout``); the rounds before are kept, ``--resume DIR`` continues
5     targets not met: the session reached ``--max-rounds`` or ``--max-duration``, or
      stopped early because its targets cannot be reached (rounds too short at the
      largest work amount, a work range that cannot determine the WPS slope); the
      summary says which and what to change
6     out of space (a full disk or quota): every round written before is kept intact,
      ``--resume DIR`` continues once there is room
128+N stopped by signal N: 130 Ctrl-C (SIGINT), 143 SIGTERM, 129 SIGHUP; the program's
      process group is stopped and the partial summary written
====  ==========================================================================

When several apply, the first in this order wins: signal, 4, 6, 1, 5, 0.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats._stats import two_sided_t
from pilotstats.exceptions import DataRangeWarning, ShortRoundWarning
from pilotstats.session._controller import BenchmarkSession

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_OUT_OF_SPACE",
    "EXIT_PROGRAM_FAILED",
    "EXIT_REGRESSION",
    "EXIT_TARGETS_NOT_MET",
    "EXIT_USAGE",
    "EarlyStop",
    "Futility",
    "exit_status",
    "limit_message",
]

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2
EXIT_PROGRAM_FAILED = 4
EXIT_TARGETS_NOT_MET = 5
EXIT_OUT_OF_SPACE = 6
EXIT_INTERRUPTED = 130  # Ctrl-C; any signal N exits with 128 + N
#: Rounds at the largest work amount, all short and under half the minimum round duration,
#: before the session stops as hopeless ...
SHORT_ROUNDS_AT_MAX = 3
#: ... or all short, however close to it.
SHORT_ROUNDS_AT_MAX_NEAR = 10
#: One-sided level at which a WPS slope at or below 0 stops a session early.
SLOPE_STOP_LEVEL = 0.999


@dataclass(frozen=True)
class EarlyStop:
    """A session stopped before its limits because its targets cannot be reached."""

    reason: str  # "rounds_too_short", "work_range_degenerate", "slope_not_positive",
    #              "work_range_too_narrow"
    message: str


def exit_status(*, signum: int | None, error: str | None, out_of_space: bool,
                regressions: bool, targets_met: bool) -> int:
    """The exit status of a finished session (see the module's table)."""
    if signum is not None:
        return 128 + signum
    if error is not None:
        return EXIT_PROGRAM_FAILED
    if out_of_space:
        return EXIT_OUT_OF_SPACE
    if regressions:
        return EXIT_REGRESSION
    return EXIT_OK if targets_met else EXIT_TARGETS_NOT_MET


def limit_message(session: BenchmarkSession, reason: str | None) -> str:
    """Why a session that stopped at a limit did not meet its targets, and what to do."""
    result = session.result()
    waiting = [
        item.name or item.label
        for item in (*result.readings, *result.unit_readings)
        if item.must_satisfy and not item.done
    ]
    if session.wps_analysis and not result.wps_done:
        fit = result.wps
        waiting.insert(0, "wps (throughput undetermined)" if fit is None or not fit.valid
                       else "wps")
    pending = ", ".join(waiting) or "the minimum number of rounds"
    if reason == "max_rounds":
        limit = f"--max-rounds {session.max_rounds}"
    else:
        limit = f"--max-duration {session.max_duration:g} s"
    return (f"targets not met: the session reached {limit} while {pending} had not met its "
            "target (exit status 5); raise the limit, relax the targets or use longer rounds")


class Futility:
    """Detect, round by round, a session whose targets cannot be reached.

    * **Rounds too short**: the rounds at the largest work amount (``-w MAX``; every round
      without ``-w``) are all shorter than the minimum round duration, 3 of them under
      half of it or 10 however close: no round can ever be used.
    * **Degenerate work range** (``--wps``): the first long enough round was at ``-w MAX``,
      so every later round has the same work and the slope is not identifiable; or the
      alpha-implied minimum work reaches ``-w MAX`` (the range cannot hold the non-stable
      phases), as the planner warned and the current fit (after ``min_rounds``) confirms.
    * **Slope not positive** (``--wps``): the one-sided :data:`SLOPE_STOP_LEVEL` upper
      bound of the WPS slope is at or below 0 with at least the required number of
      subsessions: durations do not grow with the work amount (does the program use
      ``%WORK_AMOUNT%``?). The level is stricter than the session's because the check is
      repeated every round.
    """

    def __init__(self, session: BenchmarkSession) -> None:
        self.session = session
        self._short_at_max = 0
        self._long_at_max = False
        self._range_warning: str | None = None
        self._durations_at_max: list[float] = []

    def record(self, work: float | None, duration: float, **values: Any) -> None:
        """``session.record`` with the planner's per-round warnings turned into state."""
        session = self.session
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            session.record(work, duration, **values)
        for item in caught:
            if issubclass(item.category, DataRangeWarning):
                self._range_warning = str(item.message)
            elif not issubclass(item.category, ShortRoundWarning):
                warnings.warn_explicit(item.message, item.category, item.filename,
                                       item.lineno)
        at_max = session.max_work is None or (work is not None and work >= session.max_work)
        if at_max:
            planner = session.planner
            if planner is not None:
                short = session.n_rounds - 1 in planner.short_rounds[-1:]
            else:
                short = duration <= 0 or duration < session.min_round_duration
            self._durations_at_max.append(duration)
            if short:
                self._short_at_max += 1
            else:
                self._long_at_max = True

    def check(self) -> EarlyStop | None:
        """The reason to stop now, or None to continue."""
        session = self.session
        if session.done:
            return None
        far = max(self._durations_at_max, default=0.0) < 0.5 * session.min_round_duration
        if not self._long_at_max and (
            (far and self._short_at_max >= SHORT_ROUNDS_AT_MAX)
            or self._short_at_max >= SHORT_ROUNDS_AT_MAX_NEAR
        ):
            typical = float(np.median(self._durations_at_max))
            where = (f"at the largest work amount (-w MAX = {session.max_work:g})"
                     if session.max_work is not None else "")
            fix = ("raise -w MAX" if session.max_work is not None
                   else "make each round do more work")
            return EarlyStop(
                "rounds_too_short",
                f"stopped early: {self._short_at_max} rounds {where} took {typical:.3g} s "
                f"(median), shorter than the minimum round duration "
                f"{session.min_round_duration:g} s, so no round can be used; {fix} or lower "
                "--min-round-duration",
            )
        planner = session.planner
        if planner is None or not session.wps_analysis:
            return None
        if planner.phase != "doubling" and planner.lower_bound >= planner.max_work:
            return EarlyStop(
                "work_range_degenerate",
                f"stopped early: only rounds at the largest work amount ({planner.max_work:g})"
                f" last the minimum round duration {session.min_round_duration:g} s, so every "
                "round has the same work and the WPS slope cannot be determined; raise -w MAX "
                "(or lower --min-round-duration)",
            )
        fit = planner.wps_result
        if (  # the warning of one fit, confirmed by the current one
            self._range_warning is not None
            and session.n_rounds >= session.min_rounds
            and fit is not None
            and fit.valid
            and fit.alpha < 0
            and -fit.alpha * fit.throughput >= planner.max_work
        ):
            return EarlyStop("work_range_too_narrow",
                             f"stopped early: {self._range_warning}")
        if (
            fit is not None
            and session.n_rounds >= session.min_rounds
            and fit.n_subsessions >= planner.min_subsessions
            and fit.dof > 0
        ):
            # One-sided at SLOPE_STOP_LEVEL, stricter than the session's level: the check is
            # repeated every round, and a stop must not end a session that could succeed.
            upper = fit.slope + two_sided_t(2 * SLOPE_STOP_LEVEL - 1, fit.dof) * fit.slope_stderr
            if math.isfinite(upper) and upper <= 0:
                return EarlyStop(
                    "slope_not_positive",
                    f"stopped early: the round durations do not grow with the work amount "
                    f"(WPS slope {fit.slope:.3g} s/{session.unit}, its one-sided "
                    f"{100 * SLOPE_STOP_LEVEL:g} % upper bound {upper:.3g} is at or below 0 "
                    f"with {fit.n_subsessions} subsessions), so the throughput cannot be "
                    "determined; does the program use %WORK_AMOUNT%, and is -w wide enough?",
                )
        return None
