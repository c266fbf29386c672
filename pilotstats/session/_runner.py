"""Run a benchmark program for one session round and parse what it prints (``pilotstats run``).

The program's standard output is CSV: every non-empty line that does not start with ``#``
is one sample, and each declared performance index reads one (0-based) column. One line
per round gives *readings*, several lines give *unit readings* (per-operation values). The
round's duration is the program's wall-clock time, or the sum of a duration column; a
program measured by its duration alone (``--wps`` without ``--pi``) need not print
anything. The program runs in its own process group with an empty standard input; a
timeout or a signal that stops the session stops the whole group.
"""

from __future__ import annotations

import csv
import math
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

from pilotstats._typing import IndexType
from pilotstats.exceptions import InvalidInputError, PilotStatsError

__all__: list[str] = []

WORK_AMOUNT = "%WORK_AMOUNT%"
RESULT_DIR = "%RESULT_DIR%"
#: Pilot's type numbers in ``--pi`` (0 ordinary, 1 ratio) plus the project's binary type.
_TYPE_NUMBERS: dict[str, IndexType] = {"0": "ordinary", "1": "ratio", "2": "binary"}


class ProgramFailedError(PilotStatsError, RuntimeError):
    """The benchmark program failed in a round (exit status, output or timeout)."""


@dataclass(frozen=True)
class IndexColumn:
    """One ``--pi name,unit,column,type,must_satisfy`` declaration."""

    name: str
    unit: str
    column: int
    index_type: IndexType
    must_satisfy: bool


def parse_pi(text: str) -> list[IndexColumn]:
    """Parse ``--pi`` (several declarations may be separated by ``:``, as in Pilot)."""
    declarations: list[IndexColumn] = []
    for part in text.split(":"):
        fields = [item.strip() for item in part.split(",")]
        if len(fields) < 3 or len(fields) > 5:
            raise InvalidInputError(
                f"--pi {part!r}: expected name,unit,column,type,must_satisfy (type and "
                "must_satisfy optional)"
            )
        fields += [""] * (5 - len(fields))
        name, unit, column_text, type_text, must_text = fields
        try:
            column = int(column_text)
        except ValueError:
            raise InvalidInputError(
                f"--pi {part!r}: column must be a 0-based integer, got {column_text!r}"
            ) from None
        if column < 0:
            raise InvalidInputError(f"--pi {part!r}: column must be >= 0, got {column}")
        kind = _TYPE_NUMBERS.get(type_text, type_text.lower() or "ordinary")
        if kind not in ("ordinary", "ratio", "binary"):
            raise InvalidInputError(
                f"--pi {part!r}: type must be ordinary, ratio or binary (or Pilot's 0, 1), "
                f"got {type_text!r}"
            )
        must = must_text.lower()
        if must not in ("", "0", "1", "true", "false", "yes", "no"):
            raise InvalidInputError(
                f"--pi {part!r}: must_satisfy must be 1 or 0 (true/false), got {must_text!r}"
            )
        declarations.append(
            IndexColumn(
                name or f"pi{len(declarations)}",
                unit,
                column,
                kind,  # type: ignore[arg-type]
                must in ("", "1", "true", "yes"),
            )
        )
    return declarations


@dataclass
class RoundOutput:
    """What one round of the program produced."""

    duration: float
    rows: list[list[float]]  # one row per data line, one value per index
    stdout: str = ""
    lines: list[int] = field(default_factory=list)  # 1-based output line of each row


def substitute(arguments: list[str], work: float | None, result_dir: str) -> list[str]:
    """Replace ``%WORK_AMOUNT%`` and ``%RESULT_DIR%`` in the program's arguments."""
    amount = "" if work is None else str(int(work)) if float(work).is_integer() else repr(work)
    return [arg.replace(WORK_AMOUNT, amount).replace(RESULT_DIR, result_dir) for arg in arguments]


def parse_output(
    stdout: str,
    indices: list[IndexColumn],
    duration_column: int | None,
    round_label: str,
) -> tuple[list[list[float]], list[int], float | None]:
    """Rows of index values (and the summed duration column) from the program's output."""
    rows: list[list[float]] = []
    numbers: list[int] = []
    total = 0.0
    columns = [item.column for item in indices]
    if duration_column is not None:
        columns.append(duration_column)
    for number, line in enumerate(stdout.splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            fields = next(csv.reader([text]))
        except csv.Error as exc:
            raise ProgramFailedError(
                f"{round_label}: cannot parse output line {number} as CSV ({exc}): "
                f"{text[:200]!r}"
            ) from None
        values = []
        for column in columns:
            if column >= len(fields):
                raise ProgramFailedError(
                    f"{round_label}: output line {number} has {len(fields)} column(s), "
                    f"column {column} is missing: {text[:200]!r}"
                )
            try:
                value = float(fields[column])
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise ProgramFailedError(
                    f"{round_label}: cannot parse output line {number}, column {column} "
                    f"({fields[column][:50]!r} is not a finite number): {text[:200]!r}"
                )
            values.append(value)
        if duration_column is not None:
            total += values.pop()
        rows.append(values)
        numbers.append(number)
    if not rows and (indices or duration_column is not None):
        raise ProgramFailedError(
            f"{round_label}: the program printed no data line (CSV with the --pi columns)"
            + (f"; its output was {stdout.strip()[:200]!r}" if stdout.strip() else "")
        )
    return rows, numbers, (total if duration_column is not None else None)


def stop_program(process: subprocess.Popen[str], grace: float = 2.0) -> None:
    """Stop the program's whole process group: SIGTERM, then SIGKILL after ``grace`` s."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.communicate(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue
        except (OSError, ValueError):
            break
    try:
        process.kill()
        process.wait(timeout=grace)
    except (OSError, subprocess.TimeoutExpired):
        pass


def run_round(
    command: list[str],
    *,
    indices: list[IndexColumn],
    duration_column: int | None,
    valid_rc: set[int],
    env: dict[str, str],
    timeout: float | None,
    round_label: str,
) -> RoundOutput:
    """Run the program once; raise :class:`ProgramFailedError` with a clear message."""
    environment = {**os.environ, **env}
    start = time.perf_counter()
    try:
        # Its own process group: a signal that stops the session stops the program and
        # every process it started (stop_program), not only the direct child.
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",
            env=environment,
            process_group=0,
        )
    except (OSError, ValueError) as exc:
        raise ProgramFailedError(f"{round_label}: cannot run {command[0]!r}: {exc}") from None
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_program(process)
        raise ProgramFailedError(
            f"{round_label}: the program did not finish within --timeout {timeout:g} s "
            "and was killed"
        ) from None
    except BaseException:  # Ctrl-C, SIGTERM, SIGHUP: stop the program before leaving
        stop_program(process)
        raise
    completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    elapsed = time.perf_counter() - start
    if completed.returncode not in valid_rc:
        tail = completed.stderr.strip().splitlines()[-3:]
        detail = f"; its last error output: {' | '.join(tail)}" if tail else ""
        raise ProgramFailedError(
            f"{round_label}: the program exited with status {completed.returncode} (valid: "
            f"{', '.join(str(rc) for rc in sorted(valid_rc))}; see --valid-rc){detail}"
        )
    rows, lines, duration = parse_output(
        completed.stdout, indices, duration_column, round_label
    )
    if duration is None:
        duration = elapsed
    elif duration < 0:
        raise ProgramFailedError(
            f"{round_label}: the duration column sums to {duration:g} s, a negative duration"
        )
    return RoundOutput(duration=duration, rows=rows, stdout=completed.stdout, lines=lines)
