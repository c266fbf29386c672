"""``pilotstats run [options] -- PROGRAM ARGS...``: a CI-driven session for any program.

The command line counterpart of :func:`pilotstats.session.run_session` (Pilot's
``bench run_program``, corrected). Each round runs the program once, with ``%WORK_AMOUNT%``
and ``%RESULT_DIR%`` substituted in its arguments, parses its standard output as CSV
(``--pi name,unit,column,type,must_satisfy`` per performance index), and stops as soon as
every required confidence interval is narrow enough.

Exit status: 0 the session ended (see its stop reason), 1 a significant regression against
``--baseline``, 2 bad usage or input, 4 the benchmark program failed (exit status outside
``--valid-rc``, unparsable output or ``--timeout``; every round measured before is kept in
the output directory and ``--resume DIR`` continues), 130 interrupted by Ctrl-C (partial
results written).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from datetime import UTC, datetime
from typing import Any, TextIO

import numpy as np

from pilotstats.exceptions import InvalidInputError
from pilotstats.results import format_number
from pilotstats.session import (
    Baseline,
    BenchmarkSession,
    IndexAnalysis,
    PerformanceIndex,
    SessionResult,
)
from pilotstats.session._runner import (
    RESULT_DIR,
    WORK_AMOUNT,
    IndexColumn,
    ProgramFailedError,
    parse_pi,
    run_round,
    substitute,
)

__all__ = ["PRESETS", "add_run_parser", "run_command"]

#: Pilot's ``run_program`` presets (``cli/run_program.cc``): autocorrelation limit, CI
#: half width in percent of the mean (Pilot states full widths: 20 %, 10 %, 10 %), minimum
#: number of subsessions, and the short-round threshold in seconds (used only with ``-w``).
PRESETS: dict[str, dict[str, float]] = {
    "quick": {"autocorrelation_limit": 0.8, "half_width_percent": 10.0,
              "min_subsessions": 30, "min_round_duration": 3.0},
    "normal": {"autocorrelation_limit": 0.2, "half_width_percent": 5.0,
               "min_subsessions": 50, "min_round_duration": 10.0},
    "strict": {"autocorrelation_limit": 0.1, "half_width_percent": 5.0,
               "min_subsessions": 200, "min_round_duration": 20.0},
}
EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_PROGRAM_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 4, 130
STATE_FILE = "session.json"
ROUNDS_LOG = "rounds.jsonl"


class _UsageError(Exception):
    """Bad command-line usage (exit status 2)."""


def add_run_parser(commands: Any) -> None:
    """Register the ``run`` subcommand on the ``pilotstats`` subparsers."""
    run = commands.add_parser(
        "run",
        help="run a benchmark program round after round until every CI is narrow enough",
        usage="pilotstats run [options] -- PROGRAM ARGS...",
        description="Run PROGRAM ARGS... round after round (a CI-driven benchmark session). "
        "%WORK_AMOUNT% and %RESULT_DIR% in the arguments are substituted each round. "
        "Presets (Pilot's values): quick = autocorrelation limit 0.8, CI ±10 % of the mean, "
        "30 subsessions, 3 s rounds; normal = 0.2, ±5 %, 50, 10 s; strict = 0.1, ±5 %, "
        "200, 20 s (the round threshold only with -w). Exit status: 0 done, 1 regression "
        "against --baseline, 2 bad usage, 4 program failed (rounds kept, --resume "
        "continues), 130 interrupted.",
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
    run.add_argument("--valid-rc", default="0", metavar="RC[,RC...]",
                     help="exit statuses of the program that count as success (default 0)")
    run.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                     help="environment variable for the program (repeatable)")
    run.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                     help="kill a round that runs longer and stop with an error")
    run.add_argument("--baseline", default=None, metavar="FILE",
                     help="summary.json (or --json output) of an earlier run: Welch test on "
                     "subsession statistics per index; exit 1 on a significant regression")
    run.add_argument("--higher-is-better", default="", metavar="NAME[,NAME...]",
                     help="indices where larger is better (default: ratio indices); for "
                     "the others a significant increase is a regression")
    run.add_argument("-o", "--output-dir", default=None, metavar="DIR",
                     help="write rounds, readings, unit readings and the summary as CSV plus "
                     "the session state, session.json and rounds.jsonl (default: "
                     "pilotstats_run_<UTC time>)")
    run.add_argument("--resume", default=None, metavar="DIR",
                     help="continue the interrupted session saved in DIR")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress display")


# -- configuration ------------------------------------------------------------------------


def _work_range(text: str | None) -> list[float] | None:
    if text is None:
        return None
    parts = text.split(",")
    try:
        low, high = (float(parts[0]), float(parts[1])) if len(parts) == 2 else (1.0, float(text))
    except ValueError:
        raise _UsageError(f"-w expects MIN,MAX (numbers), got {text!r}") from None
    if not 0 < low <= high or not np.isfinite(high):
        raise _UsageError(f"-w MIN,MAX needs 0 < MIN <= MAX (finite), got {text!r}")
    return [low, high]


def _env(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise _UsageError(f"--env expects NAME=VALUE, got {item!r}")
        env[name] = value
    return env


def _valid_rc(text: str) -> list[int]:
    try:
        return sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise _UsageError(
            f"--valid-rc expects integers separated by commas, got {text!r}"
        ) from None


def _read_baseline(path: str, pis: list[IndexColumn]) -> list[Baseline | None]:
    """Subsession statistics of each index from an earlier run's summary."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        result = data["result"]
        items = [*result.get("readings", []), *result.get("unit_readings", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _UsageError(
            f"--baseline {path}: not the summary.json or --json output of pilotstats run "
            f"({type(exc).__name__}: {exc})"
        ) from None
    baselines: list[Baseline | None] = []
    for position, pi in enumerate(pis):
        match = [i for i in items if isinstance(i, dict) and i.get("name") == pi.name]
        if not match and len(items) > position and isinstance(items[position], dict):
            match = [items[position]] if not items[position].get("name") else []
        analysis = match[0].get("analysis") if match else None
        if not analysis:
            baselines.append(None)
            continue
        if "proportion" in analysis:
            p, n = float(analysis["proportion"]), int(analysis["n"])
            baselines.append(Baseline(p, p * (1.0 - p) * n / max(n - 1, 1), n))
        else:
            # A rounds-as-replicates interval (two-level) holds the round means' variance.
            two_level = "run_variance" in analysis
            baselines.append(
                Baseline(
                    float(analysis["mean"]),
                    float(analysis["run_variance" if two_level else "subsession_variance"]),
                    int(analysis["n_units" if two_level else "n_subsessions"]),
                )
            )
    return baselines


def _config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if not program:
        raise _UsageError("give the benchmark command after --, e.g. pilotstats run --pi "
                          "latency,ms,0 -- ./bench %WORK_AMOUNT%")
    work = _work_range(args.work)
    if work is None and any(WORK_AMOUNT in arg for arg in program):
        raise _UsageError(f"{WORK_AMOUNT} appears in the command but -w MIN,MAX is not given")
    if args.wps and work is None:
        raise _UsageError("--wps needs -w MIN,MAX (the work amount must vary)")
    pis: list[IndexColumn] = []
    for text in args.pi:
        pis.extend(parse_pi(text))
    if not pis and not args.wps:
        raise _UsageError("nothing to measure: declare --pi NAME,UNIT,COLUMN,TYPE,MUST, or "
                          "use -w MIN,MAX with --wps")
    preset = PRESETS[args.preset]
    percent = args.half_width_percent
    if percent is None and args.half_width is None:
        percent = preset["half_width_percent"]
    min_round = args.min_round_duration
    if min_round is None and work is not None:
        min_round = preset["min_round_duration"]
    higher = {name.strip() for name in args.higher_is_better.split(",") if name.strip()}
    return {
        "program": program,
        "work_range": work,
        "pis": [pi.__dict__ for pi in pis],
        "unit_readings": bool(args.unit_readings),
        "duration_column": args.duration_column,
        "valid_rc": _valid_rc(args.valid_rc),
        "env": _env(args.env),
        "timeout": args.timeout,
        "higher_is_better": sorted(higher | {p.name for p in pis if p.index_type == "ratio"}),
        "baseline_file": args.baseline,
        "elapsed": 0.0,
        "session_options": {
            "max_work": None if work is None else work[1],
            "min_work": 1.0 if work is None else work[0],
            "initial_work": None if work is None else work[0],
            "half_width_percent": (
                percent if percent is not None else preset["half_width_percent"]
            ),
            "readings_half_width_percent": percent,
            "readings_half_width": args.half_width,
            "unit_readings_half_width_percent": percent,
            "unit_readings_half_width": args.half_width,
            "confidence_level": args.confidence_level,
            "autocorrelation_limit": (
                args.autocorrelation_limit if args.autocorrelation_limit is not None
                else preset["autocorrelation_limit"]
            ),
            "min_rounds": args.min_rounds,
            "max_rounds": args.max_rounds,
            "max_duration": args.max_duration,
            "min_round_duration": min_round,
            "wps_analysis": bool(args.wps),
            "readings_min_subsessions": int(
                args.min_subsessions if args.min_subsessions is not None
                else preset["min_subsessions"]
            ),
            "unit_readings_min_subsessions": int(
                args.min_subsessions if args.min_subsessions is not None
                else preset["min_subsessions"]
            ),
            "min_size": args.min_size,
            "warmup_removal": args.warmup_removal,
            "unit": args.work_unit,
        },
    }


def _new_session(config: dict[str, Any], pis: list[IndexColumn]) -> BenchmarkSession:
    indices = [PerformanceIndex(p.name, p.unit, p.index_type, p.must_satisfy) for p in pis]
    baselines = None
    if config["baseline_file"] is not None:
        baselines = _read_baseline(config["baseline_file"], pis)
    return BenchmarkSession(
        **config["session_options"],
        readings_indices=indices or None,
        unit_readings_indices=indices or None,
        baseline_readings=baselines,
        baseline_unit_readings=baselines,
    )


# -- output -------------------------------------------------------------------------------


def _percent(fraction: float, digits: int = 1) -> str:
    return f"{100.0 * fraction:.{digits}f} %"


def _width_text(item: IndexAnalysis) -> str:
    estimate = item.estimate
    label = item.name or item.label
    if item.analysis is None or estimate is None:
        return f"{label}: n = {item.n}, CI undetermined"
    unit = f" {item.unit}" if item.unit else ""
    level = _percent(item.analysis.confidence_level, 0)
    half = item.analysis.half_width
    target = None if item.required is None else item.required.target_half_width
    if estimate != 0:
        shown = _percent(abs(half / estimate))
        goal = "" if target is None else f" (target ±{_percent(abs(target / estimate))})"
    else:
        shown = format_number(half)
        goal = "" if target is None else f" (target ±{format_number(target)})"
    mark = "" if item.must_satisfy else ", not required"
    return f"{label} {format_number(estimate)}{unit}, {level} CI ±{shown}{goal}{mark}"


def _progress_line(session: BenchmarkSession, result: SessionResult, elapsed: float) -> str:
    parts = [f"round {session.n_rounds}", f"{elapsed:.1f} s elapsed"]
    fit = result.wps
    if session.wps_analysis:
        if fit is not None and fit.valid:
            target = result.wps_target_half_width
            goal = "" if target is None else f" (target ±{_percent(target / fit.throughput)})"
            half = fit.throughput_half_width / fit.throughput
            level = _percent(result.confidence_level, 0)
            parts.append(f"wps v {format_number(fit.throughput)} {result.unit}/s, {level} CI "
                         f"±{_percent(half)}{goal}")
        else:
            parts.append("wps undetermined")
    parts.extend(_width_text(item) for item in (*result.readings, *result.unit_readings))
    return " | ".join(parts)


def _write_csv(path: str, header: list[str], rows: list[list[Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _save_config(directory: str, config: dict[str, Any], session: BenchmarkSession) -> None:
    """``session.json``: the run configuration and the session options (atomic rewrite)."""
    target = os.path.join(directory, STATE_FILE)
    temporary = target + ".tmp"
    options = session.state(first_round=session.n_rounds)
    del options["rounds"]
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "run": config, "session": options}, handle, allow_nan=False)
    os.replace(temporary, target)


def _append_round(directory: str, session: BenchmarkSession) -> None:
    """Append the newest round to ``rounds.jsonl`` (O(1) per round; kept on any failure)."""
    record = session.state(first_round=session.n_rounds - 1)["rounds"][0]
    with open(os.path.join(directory, ROUNDS_LOG), "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, allow_nan=False) + "\n")
        handle.flush()


def _load_saved(directory: str) -> tuple[dict[str, Any], BenchmarkSession]:
    """The run configuration and the session replayed from ``session.json`` and the log."""
    with open(os.path.join(directory, STATE_FILE), encoding="utf-8") as handle:
        saved = json.load(handle)
    rounds = []
    log = os.path.join(directory, ROUNDS_LOG)
    if os.path.exists(log):
        with open(log, encoding="utf-8") as handle:
            for line in handle:
                try:
                    rounds.append(json.loads(line))
                except ValueError:
                    break  # a line cut short by a crash: the rounds before it are complete
    state = {**saved["session"], "rounds": rounds}
    return saved["run"], BenchmarkSession.from_state(state)


def _export(directory: str, config: dict[str, Any], session: BenchmarkSession,
            result: SessionResult, summary: dict[str, Any]) -> None:
    """rounds.csv, readings.csv, unit_readings.csv, summary.csv, summary.json."""
    names = [pi["name"] for pi in config["pis"]]
    rounds = session.state()["rounds"]
    short, outliers = set(result.short_rounds), set(result.outlier_rounds)
    _write_csv(os.path.join(directory, "rounds.csv"),
               ["round", "work", "duration_s", "short", "wps_outlier"],
               [[i, r["work"], r["duration"], int(i in short), int(i in outliers)]
                for i, r in enumerate(rounds)])
    if any(r["readings"] is not None for r in rounds):
        _write_csv(os.path.join(directory, "readings.csv"), ["round", *names],
                   [[i, *r["readings"]] for i, r in enumerate(rounds) if r["readings"]])
    if any(r["unit_readings"] is not None for r in rounds):
        rows = []
        for i, r in enumerate(rounds):
            for position, values in enumerate(zip(*(r["unit_readings"] or []), strict=True)):
                rows.append([i, position, *values])
        _write_csv(os.path.join(directory, "unit_readings.csv"), ["round", "position", *names],
                   rows)
    table = []
    if result.wps is not None:
        fit = result.wps
        table.append(["wps", "throughput", f"{result.unit}/s", "ratio", int(session.wps_analysis),
                      fit.n_rounds_used, 0, fit.throughput, fit.throughput_ci_low,
                      fit.throughput_ci_high, result.confidence_level, int(bool(result.wps_done))])
    for item in (*result.readings, *result.unit_readings):
        low = high = None
        if item.analysis is not None:
            low, high = item.analysis.ci_low, item.analysis.ci_high
        table.append([item.kind, item.name, item.unit, item.index_type, int(item.must_satisfy),
                      item.n, item.n_removed, item.estimate, low, high,
                      result.confidence_level, int(item.done)])
    _write_csv(os.path.join(directory, "summary.csv"),
               ["analysis", "name", "unit", "index_type", "must_satisfy", "n", "n_removed",
                "estimate", "ci_low", "ci_high", "confidence_level", "done"], table)
    with open(os.path.join(directory, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2, allow_nan=False)


def _regressions(config: dict[str, Any], result: SessionResult) -> list[dict[str, Any]]:
    """Indices significantly worse than the baseline (two-sided Welch at the level)."""
    higher = set(config["higher_is_better"])
    found = []
    for item in (*result.readings, *result.unit_readings):
        comparison = item.comparison
        if comparison is None or not comparison.p_value < 1.0 - result.confidence_level:
            continue
        worse = comparison.difference < 0 if item.name in higher else comparison.difference > 0
        if worse:
            found.append({"name": item.name, "difference": comparison.difference,
                          "p_value": comparison.p_value,
                          "higher_is_better": item.name in higher})
    return found


# -- the session loop ---------------------------------------------------------------------


def _record_round(session: BenchmarkSession, config: dict[str, Any],
                  pis: list[IndexColumn], directory: str) -> None:
    index = session.n_rounds
    label = f"round {index} (0-based)"
    work = session.next_work()
    result_dir = os.path.join(directory, "round_results", str(index))
    if any(RESULT_DIR in arg for arg in config["program"]):
        os.makedirs(result_dir, exist_ok=True)
    command = substitute(config["program"], work, result_dir)
    if not pis and config["duration_column"] is None:
        output_pis: list[IndexColumn] = []
    else:
        output_pis = pis
    output = run_round(command, indices=output_pis, duration_column=config["duration_column"],
                       valid_rc=set(config["valid_rc"]), env=config["env"],
                       timeout=config["timeout"], round_label=label)
    readings = unit_readings = None
    if pis:
        unit_mode = (
            config["unit_readings"]
            or (session.n_rounds == 0 and len(output.rows) > 1)
            or bool(session.result().unit_readings)
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
    try:
        session.record(work, output.duration, readings=readings, unit_readings=unit_readings)
    except InvalidInputError as exc:
        raise ProgramFailedError(f"{label}: {exc}") from None


def _finish(args: argparse.Namespace, directory: str, config: dict[str, Any],
            session: BenchmarkSession, *, error: str | None, interrupted: bool,
            out: TextIO) -> int:
    result = session.result()
    regressions = _regressions(config, result) if error is None and not interrupted else []
    if interrupted:
        status = EXIT_INTERRUPTED
    elif error is not None:
        status = EXIT_PROGRAM_FAILED
    else:
        status = EXIT_REGRESSION if regressions else EXIT_OK
    summary = {"command": "run", "program": config["program"], "output_dir": directory,
               "exit_status": status, "interrupted": interrupted, "error": error,
               "regressions": regressions, "result": result.to_dict()}
    config["elapsed"] = config.get("elapsed", 0.0)
    _save_config(directory, config, session)
    _export(directory, config, session, result, summary)
    if args.json:
        print(json.dumps(summary, indent=2, allow_nan=False), file=out)
        return status
    lines = [result.summary()]
    for item in regressions:
        lines.append(f"REGRESSION: {item['name']} changed by {format_number(item['difference'])}"
                     f" vs baseline (p = {item['p_value']:.3g})")
    lines.append(f"results: {directory} (rounds.csv, summary.csv, summary.json; session state "
                 f"{STATE_FILE} and {ROUNDS_LOG})")
    print("\n".join(lines), file=out)
    return status


def run_command(args: argparse.Namespace) -> int:
    """Run the ``run`` subcommand; return its exit status."""
    out, err = sys.stdout, sys.stderr
    try:
        if args.resume is not None:
            directory = args.resume
            if [arg for arg in args.program if arg != "--"] or args.pi or args.work:
                raise _UsageError("--resume DIR continues the saved session with its own "
                                  "program and options; do not repeat them")
            try:
                config, session = _load_saved(directory)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise _UsageError(f"--resume {directory}: no session state to resume "
                                  f"({type(exc).__name__}: {exc})") from None
        else:
            config = _config_from_args(args)
            pis_new = [IndexColumn(**pi) for pi in config["pis"]]
            session = _new_session(config, pis_new)
            stamp = datetime.now(UTC).strftime("%Y%m%d_%H%M%S")
            directory = args.output_dir or f"pilotstats_run_{stamp}"
        os.makedirs(directory, exist_ok=True)
        if args.resume is None:
            if os.path.exists(os.path.join(directory, ROUNDS_LOG)):
                raise _UsageError(f"{directory} already holds a session; continue it with "
                                  f"--resume {directory} or choose another -o DIR")
            _save_config(directory, config, session)
    except (_UsageError, InvalidInputError) as exc:
        print(f"pilotstats run: error: {exc}", file=err)
        return EXIT_USAGE
    pis = [IndexColumn(**pi) for pi in config["pis"]]
    show = not args.quiet
    tty = show and err.isatty()
    start = time.monotonic() - float(config.get("elapsed", 0.0))
    error: str | None = None
    interrupted = False
    try:
        while not session.done:
            _record_round(session, config, pis, directory)
            _append_round(directory, session)
            config["elapsed"] = time.monotonic() - start
            if show:
                line = _progress_line(session, session.result(), config["elapsed"])
                print(("\r\x1b[2K" if tty else "") + line, end="" if tty else "\n", file=err,
                      flush=True)
    except ProgramFailedError as exc:
        error = str(exc)
    except KeyboardInterrupt:
        interrupted = True
    if tty:
        print(file=err)
    if error is not None:
        print(f"pilotstats run: error: {error}", file=err)
    if error is not None or interrupted:
        what = "interrupted" if interrupted else "stopped"
        print(f"pilotstats run: {what} after {session.n_rounds} rounds; every round is kept in "
              f"{directory}; continue with: pilotstats run --resume {directory}", file=err)
    return _finish(args, directory, config, session, error=error, interrupted=interrupted,
                   out=out)
