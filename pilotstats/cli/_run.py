"""``pilotstats run [options] -- PROGRAM ARGS...``: a CI-driven session for any program.

The command line counterpart of :func:`pilotstats.session.run_session` (Pilot's
``bench run_program``, corrected). Each round runs the program once, with ``%WORK_AMOUNT%``
and ``%RESULT_DIR%`` substituted in its arguments, parses its standard output as CSV
(``--pi name,unit,column,type,must_satisfy`` per performance index), and stops as soon as
every required confidence interval is narrow enough.

The session directory (``-o DIR``) is crash-safe and locked while a run uses it
(:mod:`pilotstats.session._statefiles`); ``--resume DIR`` runs the stored command only once
the user confirms it (:mod:`pilotstats.session._resume`); SIGINT, SIGTERM and SIGHUP stop
the program's process group and write the partial summary (:mod:`pilotstats.session.
_signals`). Exit statuses (:mod:`pilotstats.session._endings`): 0 targets met, 1 a
significant regression against ``--baseline``, 2 bad usage or input (also unusable session
state), 3 internal error, 4 the program failed (rounds kept, ``--resume`` continues), 5
targets not met (a limit reached, or stopped early because they cannot be reached), 6 out
of space (rounds kept), 128 + N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

import numpy as np

from pilotstats.cli._run_baseline import regressions as baseline_verdict
from pilotstats.cli._run_baseline import run_values
from pilotstats.cli._run_config import PRESETS, UsageError, config_from_args, new_session
from pilotstats.cli._run_output import export, summary_result
from pilotstats.cli._run_progress import LiveDisplay
from pilotstats.exceptions import InvalidInputError, PilotStatsError, SessionStateError
from pilotstats.results import format_number
from pilotstats.session import (
    BenchmarkSession,
)
from pilotstats.session._endings import (
    EXIT_OUT_OF_SPACE,
    EXIT_PROGRAM_FAILED,
    EXIT_TARGETS_NOT_MET,
    EXIT_USAGE,
    EarlyStop,
    Futility,
    exit_status,
    limit_message,
)
from pilotstats.session._resume import (
    ResumeRefused,
    check_resume_options,
    confirm,
    load_session,
)
from pilotstats.session._runner import (
    RESULT_DIR,
    IndexColumn,
    ProgramFailedError,
    run_round,
    substitute,
)
from pilotstats.session._signals import SessionInterrupted, StopSignals
from pilotstats.session._statefiles import (
    ROUNDS_LOG,
    STATE_FILE,
    RoundLog,
    SessionLock,
    is_out_of_space,
    refuse_planted_links,
    repair_tail,
    write_file,
)

__all__ = ["PRESETS", "add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Register the ``run`` subcommand on the ``pilotstats`` subparsers."""
    run = commands.add_parser(
        "run",
        help="run a benchmark program round after round until every CI is narrow enough",
        usage="pilotstats run [options] -- PROGRAM ARGS...",
        description="Run PROGRAM ARGS... round after round (a CI-driven benchmark session). "
        "%WORK_AMOUNT% and %RESULT_DIR% in the arguments are substituted each round. "
        "Presets (Pilot's values): quick = autocorrelation limit 0.8, CI ±10 % of the mean, "
        "30 subsessions, 3 s rounds; normal = 0.2, ±5 %, 50, 10 s; strict = 0.1, ±5 %, "
        "200, 20 s (the round threshold only with -w). Exit status: 0 targets met, 1 "
        "regression against --baseline, 2 bad usage or unusable session state, 3 internal "
        "error, 4 program failed (rounds kept, --resume continues), 5 targets not met "
        "(--max-rounds/--max-duration reached, or stopped early because they cannot be "
        "reached), 6 out of space (rounds kept), 128+N stopped by signal N (130 Ctrl-C, "
        "143 SIGTERM, 129 SIGHUP; partial summary written).",
    )
    run.add_argument("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM ARGS",
                     help="the benchmark command, after --")
    run.add_argument("-w", "--work", default=None, metavar="MIN,MAX",
                     help="range of the work of a round, substituted for %%WORK_AMOUNT%% "
                     "(without it every round does the same work)")
    run.add_argument("--pi", action="append", default=[], metavar="NAME,UNIT,COL,TYPE,MUST",
                     help="performance index in CSV column COL (0-based) of the output; "
                     "TYPE ordinary|ratio|binary (or Pilot's 0|1); MUST 1 if its CI must "
                     "meet the target, 0 to record only (repeatable, or ':'-separated)")
    run.add_argument("--unit-readings", action="store_true",
                     help="every output line is a unit reading, even when a round prints "
                     "one line (default: decided by the first round: one line = readings)")
    run.add_argument("--duration-column", type=int, default=None, metavar="COL",
                     help="column (0-based) holding the round duration in seconds, summed "
                     "over the round's lines (default: the program's wall-clock time)")
    _add_target_options(run)
    _add_program_options(run)


def _add_target_options(run: argparse.ArgumentParser) -> None:
    """The statistical requirements and limits of ``run``."""
    run.add_argument("--preset", choices=tuple(PRESETS), default="quick",
                     help="statistical requirements (default quick; see above)")
    run.add_argument("--half-width", type=float, default=None, metavar="E",
                     help="required CI half width of each index, in its unit (mean ± E)")
    run.add_argument("--half-width-percent", type=float, default=None, metavar="P",
                     help="required CI half width in %% of the mean, indices and WPS "
                     "(mean ± P %%; Pilot's --ci-perc is twice this)")
    run.add_argument("--autocorrelation-limit", type=float, default=None, metavar="R",
                     help="limit on the lag-1 autocorrelation of subsession means, in (0, 1]")
    run.add_argument("--min-subsessions", type=int, default=None, metavar="H",
                     help="minimum number of subsessions before an index can meet its "
                     "target (Pilot's --min-sample-size)")
    run.add_argument("--confidence-level", type=float, default=0.95, metavar="C",
                     help="level of every interval (default 0.95)")
    run.add_argument("--max-duration", type=float, default=None, metavar="SECONDS",
                     help="stop once the rounds add up to this many seconds")
    run.add_argument("--min-round-duration", type=float, default=None, metavar="SECONDS",
                     help="shorter rounds are stored but not used (default: the preset's "
                     "threshold with -w, 0 without)")
    run.add_argument("--min-rounds", type=int, default=10, metavar="N",
                     help="minimum number of rounds of a session: never stop before N "
                     "(default 10)")
    run.add_argument("--max-rounds", type=int, default=1000, metavar="N",
                     help="stop after N rounds (default 1000)")
    run.add_argument("--min-size", type=int, default=30, metavar="N",
                     help="minimum segment length of --warmup-removal stable_phase (rounds "
                     "need 2N readings; about a sixth of the round for short rounds)")
    run.add_argument("--warmup-removal", choices=("pooled", "stable_phase", "trim", "none"),
                     default="pooled",
                     help="unit readings: pooled = warm-up found across rounds (default); "
                     "stable_phase = per round (warm-up and cool-down); trim = Pilot's 10 %%")
    run.add_argument("--wps", action="store_true",
                     help="the work-per-second throughput interval must be met (needs -w)")
    run.add_argument("--work-unit", default="units", metavar="U",
                     help="label of the unit of work (default units)")


def _add_program_options(run: argparse.ArgumentParser) -> None:
    """How ``run`` starts the program, compares with a baseline and stores its results."""
    run.add_argument("--valid-rc", default="0", metavar="RC[,RC...]",
                     help="exit statuses of the program that count as success (default 0)")
    run.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                     help="environment variable for the program (repeatable)")
    run.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                     help="kill a round that runs longer and stop with an error")
    run.add_argument("--baseline", default=None, metavar="FILE",
                     help="summary.json (or --json output) of an earlier run: each index compared "
                     "with rounds as runs (ratio of means, Fieller interval); exit 1 on a "
                     "significant regression")
    run.add_argument("--higher-is-better", default="", metavar="NAME[,NAME...]",
                     help="indices where larger is better (default: ratio indices); for "
                     "the others a significant increase is a regression")
    run.add_argument("-o", "--output-dir", default=None, metavar="DIR",
                     help="write rounds, readings, unit readings and the summary as CSV plus "
                     "the session state, session.json and rounds.jsonl (default: "
                     "pilotstats_run_<UTC time>)")
    run.add_argument("--resume", default=None, metavar="DIR",
                     help="continue the interrupted session saved in DIR: shows its stored "
                     "command and environment and runs them only when confirmed (--yes, or "
                     "the same command again after --, with the same --env settings)")
    run.add_argument("-y", "--yes", action="store_true",
                     help="with --resume: run the stored command and environment shown")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress display")


# -- state and output -----------------------------------------------------------------


def _save_config(directory: str, config: dict[str, Any], session: BenchmarkSession) -> None:
    """``session.json``: the run configuration and the session options (atomic rewrite)."""
    options = session.state(first_round=session.n_rounds)
    del options["rounds"]
    data = json.dumps({"version": 1, "run": config, "session": options}, allow_nan=False)
    write_file(directory, STATE_FILE, data.encode("utf-8"))


def _result_dir(directory: str, index: int) -> str:
    """``DIR/round_results/<index>``, created without following planted links."""
    path = directory
    for part in ("round_results", str(index)):
        path = os.path.join(path, part)
        if os.path.islink(path):
            raise SessionStateError(
                f"{path} is a symbolic link; pilotstats run does not let the program write "
                "through links planted in its output directory: remove it"
            )
        os.makedirs(path, exist_ok=True)
    return path


# -- the session loop ---------------------------------------------------------------------


Measured = tuple[float | None, float, list[float] | None, list[Any] | None]


def _measure_round(session: BenchmarkSession, config: dict[str, Any],
                   pis: list[IndexColumn], directory: str) -> Measured:
    """Run the program for the next round: its work, duration, readings and unit readings."""
    index = session.n_rounds
    label = f"round {index} (0-based)"
    work = session.next_work()
    result_dir = os.path.join(directory, "round_results", str(index))
    if any(RESULT_DIR in arg for arg in config["program"]):
        result_dir = _result_dir(directory, index)
    command = substitute(config["program"], work, result_dir)
    output = run_round(command, indices=pis, duration_column=config["duration_column"],
                       valid_rc=set(config["valid_rc"]), env=config["env"],
                       timeout=config["timeout"], round_label=label)
    readings = unit_readings = None
    if pis:
        last = session.state(first_round=max(index - 1, 0))["rounds"]
        unit_mode = (
            config["unit_readings"]
            or (index == 0 and len(output.rows) > 1)
            or bool(last and last[0]["unit_readings"] is not None)
        )
        if unit_mode:
            config["unit_readings"] = True
            unit_readings = [np.array(column) for column in zip(*output.rows, strict=True)]
        elif len(output.rows) != 1:
            raise ProgramFailedError(
                f"{label}: the program printed {len(output.rows)} data lines (first at output "
                f"line {output.lines[0]}), but earlier rounds printed one (readings); use "
                "--unit-readings when every line is a unit reading")
        else:
            readings = output.rows[0]
    return work, output.duration, readings, unit_readings


@dataclass
class _Outcome:
    """How the session loop ended."""

    error: str | None = None  # the program failed (exit status 4)
    signum: int | None = None  # a signal stopped the session (128 + signum)
    out_of_space: str | None = None  # a file could not be written (exit status 6)
    early: EarlyStop | None = None  # stopped early: targets unreachable (exit status 5)


def _loop(session: BenchmarkSession, config: dict[str, Any], pis: list[IndexColumn],
          directory: str, log: RoundLog, signals: StopSignals, show: bool,
          err: TextIO) -> tuple[BenchmarkSession, _Outcome]:
    """Run rounds until the session is done, fails, is stopped or cannot go on."""
    display = LiveDisplay(err) if show else None
    start = time.monotonic() - float(config.get("elapsed", 0.0))
    outcome = _Outcome()
    futility = Futility(session)
    try:
        while not session.done:
            work, duration, readings, units = _measure_round(session, config, pis, directory)
            with signals.deferred():  # recorded and on disk, or neither
                try:
                    futility.record(work, duration, readings=readings, unit_readings=units)
                except InvalidInputError as exc:
                    raise ProgramFailedError(
                        f"round {session.n_rounds} (0-based): {exc}") from None
                try:
                    log.append(session.state(first_round=session.n_rounds - 1)["rounds"][0])
                except OSError as exc:
                    if not is_out_of_space(exc):
                        raise
                    # The round is not on disk: the session continues from what is.
                    state = session.state()
                    session = BenchmarkSession.from_state(
                        {**state, "rounds": state["rounds"][:-1]})
                    outcome.out_of_space = (
                        f"no space left to save round {session.n_rounds} (0-based) in "
                        f"{log.path} ({exc.strerror}); the {session.n_rounds} rounds saved "
                        "before are intact")
                    break
            config["elapsed"] = time.monotonic() - start
            if display is not None:
                display.show(session, session.result(), config["elapsed"])
            outcome.early = futility.check()
            if outcome.early is not None:
                break
    except ProgramFailedError as exc:
        outcome.error = str(exc)
    except OSError as exc:  # e.g. DIR/round_results/<round> could not be created
        if not is_out_of_space(exc):
            raise
        outcome.out_of_space = (f"no space left before round {session.n_rounds} (0-based) "
                                f"({exc}); the {session.n_rounds} rounds saved are intact")
    except SessionInterrupted as exc:
        outcome.signum = exc.signum
    except KeyboardInterrupt:
        outcome.signum = signal.SIGINT
    if display is not None:
        display.close()
    return session, outcome


def _finish(args: argparse.Namespace, directory: str, config: dict[str, Any],
            session: BenchmarkSession, outcome: _Outcome, out: TextIO, err: TextIO) -> int:
    """Write the state and the summary files, print the summary; the exit status."""
    result = session.result()
    stopped = outcome.signum is not None or outcome.error is not None
    pis = [IndexColumn(**pi) for pi in config["pis"]]
    regressions, comparisons = ([], []) if stopped else baseline_verdict(
        config, pis, session, result)
    ending, message = _ending(session, outcome)
    status = exit_status(signum=outcome.signum, error=outcome.error,
                         out_of_space=outcome.out_of_space is not None,
                         regressions=bool(regressions), targets_met=result.targets_met)
    summary = {"command": "run", "program": config["program"], "output_dir": directory,
               "exit_status": status, "ending": ending, "message": message,
               "interrupted": outcome.signum is not None, "error": outcome.error,
               "regressions": regressions, "result": summary_result(result),
               "run_values": run_values(session, result)}
    unsaved = None
    try:
        _save_config(directory, config, session)
        export(directory, config, session, result, summary)
    except OSError as exc:
        if not is_out_of_space(exc):
            raise
        unsaved = (f"no space left to write the summary files in {directory} "
                   f"({exc.strerror}); the summary is printed below only")
        if status not in (EXIT_PROGRAM_FAILED,) and outcome.signum is None:
            status = EXIT_OUT_OF_SPACE
            summary["exit_status"] = status
    for note in (outcome.error, outcome.out_of_space, unsaved):
        if note is not None:
            print(f"pilotstats run: error: {note}", file=err)
    if message is not None and ending not in ("targets_met",):
        print(f"pilotstats run: {message}", file=err)
    if status in (EXIT_PROGRAM_FAILED, EXIT_OUT_OF_SPACE) or outcome.signum is not None:
        print(f"pilotstats run: every round recorded is kept in {directory}; continue with: "
              f"pilotstats run --resume {directory} --yes", file=err)
    if args.json:
        print(json.dumps(summary, indent=2, allow_nan=False), file=out)
        return status
    lines = [result.summary(), *comparisons]
    for item in regressions:
        change = (f"ratio {format_number(item['ratio'])}" if item["test"] == "runs"
                  else f"changed by {format_number(item['difference'])}")
        lines.append(f"REGRESSION: {item['name']} {change} vs baseline "
                     f"(p = {item['p_value']:.3g})")
    if status == EXIT_TARGETS_NOT_MET and message is not None:
        lines.append(f"TARGETS NOT MET: {message}")
    lines.append(f"results: {directory} (rounds.csv, summary.csv, summary.json; session state "
                 f"{STATE_FILE} and {ROUNDS_LOG})")
    print("\n".join(lines), file=out)
    return status


def _ending(session: BenchmarkSession, outcome: _Outcome) -> tuple[str, str | None]:
    """A name for how the session ended and a sentence about it."""
    if outcome.signum is not None:
        name = signal.Signals(outcome.signum).name
        return "interrupted", f"interrupted after {session.n_rounds} rounds ({name})"
    if outcome.error is not None:
        return "program_failed", outcome.error
    if outcome.out_of_space is not None:
        return "out_of_space", outcome.out_of_space
    if outcome.early is not None:
        return outcome.early.reason, outcome.early.message
    reason = session.result().stop_reason
    if reason == "targets_met":
        return "targets_met", None
    return str(reason), limit_message(session, reason)


def _prepare(args: argparse.Namespace, err: TextIO) -> tuple[
        str, dict[str, Any], BenchmarkSession, SessionLock]:
    """Directory, configuration, session and the held lock of a new or resumed run."""
    if args.resume is not None:
        directory = args.resume
        check_resume_options(args)
        if not os.path.isdir(directory):
            raise UsageError(f"--resume {directory}: no session state to resume (not a "
                              "directory)")
    else:
        config = config_from_args(args)
        session = new_session(config, [IndexColumn(**pi) for pi in config["pis"]])
        stamp = datetime.now(UTC).strftime("%Y%m%d_%H%M%S")
        directory = args.output_dir or f"pilotstats_run_{stamp}"
        os.makedirs(directory, exist_ok=True)
    refuse_planted_links(directory)
    lock = SessionLock(directory)
    lock.acquire()
    try:
        if lock.note is not None:
            print(f"pilotstats run: note: {lock.note}", file=err)
        if args.resume is not None:
            try:
                config, session, tail = load_session(directory)
            except FileNotFoundError:
                raise UsageError(f"--resume {directory}: no session state to resume (no "
                                  f"{STATE_FILE})") from None
            confirm(args, directory, config, session, err)
            if tail is not None:
                repair_tail(directory, tail)
                print(f"pilotstats run: note: {tail.message(os.path.join(directory, ROUNDS_LOG))}",
                      file=err)
        else:
            if any(os.path.lexists(os.path.join(directory, name))
                   for name in (ROUNDS_LOG, STATE_FILE)):
                raise UsageError(f"{directory} already holds a session; continue it with "
                                  f"--resume {directory} or choose another -o DIR")
            _save_config(directory, config, session)
    except BaseException:
        lock.release()
        raise
    return directory, config, session, lock


def run(args: argparse.Namespace) -> int:
    """Run the ``run`` subcommand; return its exit status (see the module docstring)."""
    out, err = sys.stdout, sys.stderr
    with StopSignals() as signals:
        try:
            directory, config, session, lock = _prepare(args, err)
        except (UsageError, ResumeRefused, PilotStatsError) as exc:
            print(f"pilotstats run: error: {exc}", file=err)
            return EXIT_USAGE
        except SessionInterrupted as exc:
            return 128 + exc.signum
        except OSError as exc:
            print(f"pilotstats run: error: {exc}", file=err)
            return EXIT_OUT_OF_SPACE if is_out_of_space(exc) else EXIT_USAGE
        try:
            try:
                log = RoundLog(directory)
            except OSError as exc:
                print(f"pilotstats run: error: {exc}", file=err)
                return EXIT_OUT_OF_SPACE if is_out_of_space(exc) else EXIT_USAGE
            try:
                session, outcome = _loop(session, config, [IndexColumn(**pi) for pi in
                                                           config["pis"]],
                                         directory, log, signals, not args.quiet, err)
            finally:
                log.close()
            with signals.deferred(deliver=False):  # the summary is written whole
                status = _finish(args, directory, config, session, outcome, out, err)
            signals.take_pending()
            return status
        finally:
            lock.release()
