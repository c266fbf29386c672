"""Configuration of ``pilotstats run`` from its command line: presets, options, baseline.

The run configuration is a JSON-safe dict saved in ``session.json`` (its schema is checked
by :func:`pilotstats.session._statefiles.read_saved` when a session is resumed).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from pilotstats.session import Baseline, BenchmarkSession, PerformanceIndex
from pilotstats.session._options import options_from_flat
from pilotstats.session._runner import WORK_AMOUNT, IndexColumn, parse_pi
from pilotstats.session._statefiles import MAX_STATE_BYTES, read_json

__all__ = ["PRESETS", "UsageError", "baseline_items", "config_from_args", "new_session"]

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


class UsageError(Exception):
    """Bad command-line usage (exit status 2)."""


# -- configuration ------------------------------------------------------------------------


def _work_range(text: str | None) -> list[float] | None:
    if text is None:
        return None
    parts = text.split(",")
    try:
        low, high = (float(parts[0]), float(parts[1])) if len(parts) == 2 else (1.0, float(text))
    except ValueError:
        raise UsageError(f"-w expects MIN,MAX (numbers), got {text!r}") from None
    if not 0 < low <= high or not np.isfinite(high):
        raise UsageError(f"-w MIN,MAX needs 0 < MIN <= MAX (finite), got {text!r}")
    return [low, high]


def _env(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or "\x00" in item:
            raise UsageError(f"--env expects NAME=VALUE (no NUL character), got {item!r}")
        env[name] = value
    return env


def _valid_rc(text: str) -> list[int]:
    try:
        return sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise UsageError(
            f"--valid-rc expects integers separated by commas, got {text!r}"
        ) from None


def baseline_items(path: str, pis: list[IndexColumn]) -> tuple[dict[str, Any],
                                                                 list[dict[str, Any] | None]]:
    """An earlier run's summary and, per index of ``pis``, its item there (None if absent).

    Indices are matched by name, or by position when neither side names them.
    """
    try:
        data = read_json(path, MAX_STATE_BYTES, follow_links=True)
        result = data["result"]
        items = [*result.get("readings", []), *result.get("unit_readings", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(
            f"--baseline {path}: not the summary.json or --json output of pilotstats run "
            f"({type(exc).__name__}: {exc})"
        ) from None
    matched: list[dict[str, Any] | None] = []
    for position, pi in enumerate(pis):
        match = [i for i in items if isinstance(i, dict) and i.get("name") == pi.name]
        if not match and len(items) > position and isinstance(items[position], dict):
            match = [items[position]] if not items[position].get("name") else []
        matched.append(match[0] if match else None)
    return data, matched


def _read_baseline(path: str, pis: list[IndexColumn]) -> list[Baseline | None]:
    """Subsession statistics of each index from an earlier run's summary."""
    baselines: list[Baseline | None] = []
    for item in baseline_items(path, pis)[1]:
        analysis = item.get("analysis") if item else None
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


def _program(args: argparse.Namespace) -> list[str]:
    """The benchmark command given after ``--``."""
    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if any("\x00" in arg for arg in program):
        raise UsageError("the command after -- contains a NUL character")
    if not program:
        raise UsageError("give the benchmark command after --, e.g. pilotstats run --pi "
                          "latency,ms,0 -- ./bench %WORK_AMOUNT%")
    return program


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The run configuration (JSON-safe) of a new ``pilotstats run``; UsageError if bad."""
    program = _program(args)
    work = _work_range(args.work)
    if work is None and any(WORK_AMOUNT in arg for arg in program):
        raise UsageError(f"{WORK_AMOUNT} appears in the command but -w MIN,MAX is not given")
    if args.wps and work is None:
        raise UsageError("--wps needs -w MIN,MAX (the work amount must vary)")
    if args.wps and work is not None and work[0] >= work[1]:
        raise UsageError(f"--wps needs MIN < MAX in -w (the work amount must vary), got "
                          f"{args.work!r}")
    if args.timeout is not None and not (np.isfinite(args.timeout) and args.timeout > 0):
        raise UsageError(f"--timeout needs a positive number of seconds, got {args.timeout!r}")
    if args.duration_column is not None and args.duration_column < 0:
        raise UsageError(f"--duration-column must be >= 0 (0-based), got {args.duration_column}")
    pis: list[IndexColumn] = []
    for text in args.pi:
        pis.extend(parse_pi(text))
    if not pis and not args.wps:
        raise UsageError("nothing to measure: declare --pi NAME,UNIT,COLUMN,TYPE,MUST, or "
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
        "session_options": _session_options(args, work, percent, min_round),
    }


def _session_options(args: argparse.Namespace, work: list[float] | None,
                     percent: float | None, min_round: float | None) -> dict[str, Any]:
    """The keyword arguments of :class:`BenchmarkSession` set by the options and preset."""
    preset = PRESETS[args.preset]
    return {
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
    }


def new_session(config: dict[str, Any], pis: list[IndexColumn]) -> BenchmarkSession:
    indices = [PerformanceIndex(p.name, p.unit, p.index_type, p.must_satisfy) for p in pis]
    baselines = None
    if config["baseline_file"] is not None:
        baselines = _read_baseline(config["baseline_file"], pis)
    return BenchmarkSession(**options_from_flat({
        **config["session_options"],
        "readings_indices": indices or None,
        "unit_readings_indices": indices or None,
        "baseline_readings": baselines,
        "baseline_unit_readings": baselines,
    }))
