"""``pilotstats run --resume DIR``: resume only what the user confirms now.

A session directory may come from anywhere (a shared CI cache, a downloaded artifact), so
the command and environment stored in its ``session.json`` are shown and run only when the
user confirms them: with ``--yes``, by giving the same command again after ``--`` (and the
same ``--env`` settings), or by answering ``y`` on a terminal. The state is checked against
its schema first and every round of the log is validated (a torn last line is cut only
after the confirmation); anything malformed is a :class:`SessionStateError`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, TextIO

from pilotstats.exceptions import PilotStatsError, SessionStateError
from pilotstats.session._controller import BenchmarkSession
from pilotstats.session._statefiles import (
    ROUNDS_LOG,
    STATE_FILE,
    TailRepair,
    read_rounds,
    read_saved,
)

__all__ = ["ResumeRefused", "check_resume_options", "confirm", "load_session"]

#: Options that define a session; they come from the saved state and cannot be repeated.
_FIXED_OPTIONS = {
    "pi": "--pi", "work": "-w", "wps": "--wps", "baseline": "--baseline",
    "duration_column": "--duration-column", "timeout": "--timeout",
    "output_dir": "-o", "unit_readings": "--unit-readings", "max_duration": "--max-duration",
    "half_width": "--half-width", "half_width_percent": "--half-width-percent",
}


class ResumeRefused(Exception):
    """The stored command was not confirmed (a usage error: exit status 2)."""


def check_resume_options(args: argparse.Namespace) -> None:
    """Reject options that would redefine the saved session."""
    given = [flag for name, flag in _FIXED_OPTIONS.items()
             if getattr(args, name, None) not in (None, False, [], "")]
    if given:
        raise ResumeRefused(
            f"--resume DIR continues the saved session with its own options; do not repeat "
            f"them ({', '.join(given)}); only the command after -- and --env may be given, "
            "to confirm what runs"
        )


def load_session(directory: str) -> tuple[dict[str, Any], BenchmarkSession, TailRepair | None]:
    """The saved configuration, the session replayed from the log, and a torn tail.

    Raises
    ------
    FileNotFoundError
        ``session.json`` is missing.
    SessionStateError
        The state or a round does not validate, or the session cannot be rebuilt from them.
    """
    saved = read_saved(directory)
    rounds, tail = read_rounds(directory)
    try:
        session = BenchmarkSession.from_state({**saved["session"], "rounds": rounds})
    except (PilotStatsError, ValueError, TypeError, KeyError, AttributeError,
            OverflowError) as exc:
        raise SessionStateError(
            f"{directory}/{STATE_FILE} and {ROUNDS_LOG} do not form a valid session "
            f"({type(exc).__name__}: {exc})"
        ) from None
    return saved["run"], session, tail


def _describe(directory: str, config: dict[str, Any], session: BenchmarkSession) -> str:
    env = config["env"]
    settings = " ".join(shlex.quote(f"{name}={value}") for name, value in env.items())
    work = config["work_range"]
    timeout = "none" if config["timeout"] is None else f"{config['timeout']:g} s"
    lines = [
        f"pilotstats run: {directory}/{STATE_FILE} holds a session of {session.n_rounds} "
        "round(s); resuming runs, each round:",
        f"  command:     {shlex.join(config['program'])}",
        f"  environment: {settings or '(nothing added to the current environment)'}",
        f"  work range:  {'none' if work is None else f'{work[0]:g} to {work[1]:g}'}; "
        f"valid exit statuses {', '.join(map(str, config['valid_rc'])) or 'none'}; "
        f"timeout {timeout}",
    ]
    return "\n".join(lines)


def confirm(args: argparse.Namespace, directory: str, config: dict[str, Any],
            session: BenchmarkSession, err: TextIO) -> None:
    """Show the stored command and environment; return only if the user confirms them.

    Raises
    ------
    ResumeRefused
        Not confirmed, or a command or environment given now differs from the stored one.
    """
    program = [arg for arg in args.program]
    if program and program[0] == "--":
        program = program[1:]
    env = dict(item.partition("=")[::2] for item in args.env)
    print(_describe(directory, config, session), file=err)
    if program:
        if program != config["program"]:
            raise ResumeRefused(
                f"the command after -- ({shlex.join(program)}) differs from the stored one "
                f"({shlex.join(config['program'])}); --resume runs the stored command only: "
                "repeat it exactly, or start a new session in another -o DIR"
            )
        if env != config["env"]:
            raise ResumeRefused(
                "the --env settings given differ from the stored environment shown above; "
                "repeat them exactly (--env NAME=VALUE for each), or use --yes"
            )
        return
    if env and env != config["env"]:
        raise ResumeRefused("the --env settings given differ from the stored environment "
                            "shown above; repeat them exactly, or use --yes")
    if args.yes:
        return
    stdin = sys.stdin
    if stdin is not None and stdin.isatty() and err.isatty():
        print("Run this command? [y/N] ", end="", file=err, flush=True)
        if stdin.readline().strip().lower() in ("y", "yes"):
            return
    raise ResumeRefused(
        f"not resumed: the command and environment above come from {directory}/{STATE_FILE}, "
        "which anyone able to write that folder can change; if you trust them, add --yes "
        "or give the same command again after -- (with the same --env settings)"
    )
