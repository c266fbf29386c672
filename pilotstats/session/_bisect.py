"""Statistically decided bisection: from "it regressed" to the commit that did it.

``git bisect run`` needs a script that answers good or bad with certainty, and asv's
``find`` trusts one measurement per commit, so noise sends both to the wrong commit.
:func:`bisect` decides every step with a sequential probability ratio test on runs of the
program (:mod:`pilotstats.session._bisect_sprt`), interleaved with runs of the two
references so that machine drift affects both sides, and measures only until the answer is
clear. Each commit runs in a temporary worktree (:mod:`pilotstats.session._bisect_git`).

:func:`bisect`, notes:

1. **Range test.** Runs of ``good`` and ``bad`` alternate (in random order within each
   pair); each pair's log ratio votes above or below half the threshold, and a sign
   SPRT of "no change" against "slower by ``min_change_percent``" decides. "No
   regression" ends the bisection.
2. **Steps.** The untried commit nearest the middle of the suspected range runs in
   batches with both references (probe, good, bad in random order); each batch votes
   whether the probe's log value lies above or below the midpoint of the two
   references' in the same batch (free of machine drift), and a sign SPRT of "like
   good" against "like bad" decides which half keeps the culprit. A step whose budget
   runs out makes the result inconclusive with the range left.

A vote is wrong with probability ``q = Φ(-gap / 2σ)`` for normal noise, with the gap
and the scale estimated robustly (median, MAD with an upper confidence bound) from
the reference pairs; ``q`` is floored at 0.2 so that heavy-tailed noise keeps each
test's error near its share of ``error_probability``
(:mod:`pilotstats.session._bisect_sprt`). Every commit's effect against ``good`` is
reported with a Fieller interval over runs (Kalibera & Jones 2013).
``docs/guide/bisect.md`` and the README ("Which commit did it?") show the command line on
64 commits.

:func:`bisect`, references:

.. [1] A. Wald, "Sequential Tests of Statistical Hypotheses", Ann. Math. Statist. 16
   (1945) 117-186.
.. [2] T. Kalibera and R. Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._validation import (
    check_bool,
    check_confidence_level,
    check_int,
    check_real,
    check_text_path,
)
from pilotstats.autocorrelation._run_comparison import ratio_interval
from pilotstats.exceptions import InvalidInputError
from pilotstats.session._bisect_git import (
    BisectError,
    commit_range,
    repository_root,
    resolve,
    subject,
    worktree,
)
from pilotstats.session._bisect_results import BisectProbe, BisectResult
from pilotstats.session._bisect_sprt import probe_test, range_test
from pilotstats.session._runner import IndexColumn, ProgramFailedError, parse_output

__all__ = ["BisectOptions", "bisect"]

STATE_FILE = "bisect.json"
STATE_VERSION = 1


@dataclass
class _Commit:
    """Runs of one commit and its worktree (opened on the first live run)."""

    sha: str
    values: list[float] = field(default_factory=list)
    path: Path | None = None
    failed: str = ""


class _Bisection:
    """Measurement bookkeeping, replay of a resumed log, budgets and the state file."""

    def __init__(self, repo: str, command: list[str], build: str | None, column: int | None,
                 timeout: float | None, state: dict[str, Any], directory: str | None,
                 max_runs: int, max_duration: float | None) -> None:
        self.repo, self.command, self.build = repo, command, build
        self.column, self.timeout = column, timeout
        self.state, self.directory = state, directory
        self.replay: deque[dict[str, Any]] = deque(state["log"])
        state["log"] = []
        self.max_runs, self.max_duration = max_runs, max_duration
        self.started = time.monotonic()
        self.spent = float(state.get("duration", 0.0))
        self.commits: dict[str, _Commit] = {}
        self.stack = contextlib.ExitStack()
        self.rng = np.random.default_rng(int(state["seed"]))

    def commit(self, sha: str) -> _Commit:
        return self.commits.setdefault(sha, _Commit(sha))

    def elapsed(self) -> float:
        return self.spent + time.monotonic() - self.started

    def budget_left(self) -> bool:
        runs = len(self.state["log"])
        if runs >= self.max_runs:
            return False
        return self.max_duration is None or self.elapsed() < self.max_duration

    def _open(self, item: _Commit, stack: contextlib.ExitStack) -> None:
        item.path = stack.enter_context(worktree(self.repo, item.sha))
        if self.build is None:
            return
        completed = subprocess.run(self.build, shell=True, cwd=item.path, capture_output=True,
                                   text=True, timeout=self.timeout, check=False)
        if completed.returncode != 0:
            tail = " | ".join(completed.stderr.strip().splitlines()[-2:])
            item.failed = f"build exited with status {completed.returncode}" + (
                f": {tail}" if tail else "")

    def _run_once(self, item: _Commit) -> float:
        assert item.path is not None
        start = time.perf_counter()
        try:
            completed = subprocess.run(self.command, cwd=item.path, capture_output=True,
                                       text=True, timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            raise ProgramFailedError(f"timed out after {self.timeout:g} s") from None
        except OSError as exc:
            raise ProgramFailedError(f"cannot run {self.command[0]!r}: {exc}") from None
        elapsed = time.perf_counter() - start
        if completed.returncode != 0:
            raise ProgramFailedError(f"the program exited with status {completed.returncode}")
        if self.column is None:
            return elapsed
        metric = IndexColumn("metric", "", self.column, "ordinary", True)
        rows, _, _ = parse_output(completed.stdout, [metric], None, f"commit {item.sha[:12]}")
        value = rows[-1][0]
        if not value > 0:
            raise ProgramFailedError(f"column {self.column} printed {value:g}; a positive "
                                     "metric is needed")
        return value

    def measure(self, item: _Commit, stack: contextlib.ExitStack) -> float | None:
        """One run of ``item`` (replayed from a resumed log when it holds the next one)."""
        if self.replay and self.replay[0]["commit"] == item.sha:
            record = self.replay.popleft()
        else:
            self.replay.clear()
            if item.path is None and not item.failed:
                self._open(item, stack)
            record = {"commit": item.sha, "value": None, "failed": item.failed or None}
            if not item.failed:
                try:
                    record["value"] = self._run_once(item)
                except ProgramFailedError as exc:
                    record["failed"] = str(exc)
        self.state["log"].append(record)
        self.save()
        if record["failed"]:
            item.failed = str(record["failed"])
            return None
        item.values.append(float(record["value"]))
        return float(record["value"])

    def save(self) -> None:
        if self.directory is None:
            return
        self.state["duration"] = self.elapsed()
        write_json(os.path.join(self.directory, STATE_FILE), self.state)


def write_json(path: str, data: Any) -> None:
    """Write JSON atomically (temporary file, fsync, rename)."""
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, allow_nan=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _load_state(directory: str, fresh: dict[str, Any]) -> dict[str, Any]:
    """The stored state when it belongs to the same bisection (named error otherwise)."""
    path = os.path.join(directory, STATE_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            stored = json.load(handle)
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot resume from {path}: {exc}") from None
    keys = ("version", "repo", "good", "bad", "command", "build", "options")
    if not isinstance(stored, dict) or not isinstance(stored.get("log"), list):
        raise InvalidInputError(f"{path} is not a pilotstats bisect state file")
    different = [key for key in keys if stored.get(key) != fresh[key]]
    if different:
        raise InvalidInputError(
            f"{path} belongs to another bisection ({', '.join(different)} differ); the "
            "program, build command, references and options must be given again, the same")
    for record in stored["log"]:
        if (not isinstance(record, dict) or not isinstance(record.get("commit"), str)
                or not (record.get("value") is None or isinstance(record["value"], float))):
            raise InvalidInputError(f"{path}: malformed run record {str(record)[:80]}")
    return {**fresh, "seed": stored.get("seed", fresh["seed"]), "log": stored["log"],
            "duration": float(stored.get("duration", 0.0))}


def _ratio(good: list[float], other: list[float], level: float) -> tuple[float, float, float]:
    if len(good) < 2 or len(other) < 2:
        return math.nan, math.nan, math.nan
    ratio, low, high, _, _ = ratio_interval(np.asarray(good), np.asarray(other), level)
    return ratio, low, high


def _pick(lo: int, hi: int, skipped: set[int]) -> int | None:
    """The untried position nearest the middle of ``(lo, hi)``, or None."""
    middle = (lo + hi) // 2
    for offset in range(hi - lo):
        for position in (middle - offset, middle + offset):
            if lo < position < hi and position not in skipped:
                return position
    return None


@dataclass(frozen=True, slots=True)
class BisectOptions:
    """Statistical and budget settings of :func:`bisect` beyond its common keywords.

    Parameters
    ----------
    error_probability : float, default 0.05
        Bound on the probability of naming a wrong commit (or a wrong "no regression"),
        split evenly over the range test and the ``ceil(log2(commits))`` bisection steps,
        each a Wald SPRT with ``α = β`` equal to its share.
    confidence_level : float, default 0.95
        Level of the reported effect intervals.
    max_step_runs : int, default 60
        Runs of one probed commit before its step is declared inconclusive.
    max_duration : float, optional
        Wall-clock budget in seconds.
    timeout : float, optional
        Seconds one build or run may take.
    seed : int, default 0
        Seed of the random order of interleaved runs.

    Notes
    -----
    Complexity: O(1); the values are checked by :func:`bisect`.

    Examples
    --------
    >>> from pilotstats.session import BisectOptions
    >>> BisectOptions(error_probability=0.01, seed=3).seed
    3
    """

    error_probability: float = 0.05
    confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL
    max_step_runs: int = 60
    max_duration: float | None = None
    timeout: float | None = None
    seed: int = 0


def _checked_options(options: BisectOptions | None) -> BisectOptions:
    """``options`` (default ``BisectOptions()``) with every value checked."""
    if options is None:
        options = BisectOptions()
    if not isinstance(options, BisectOptions):
        raise InvalidInputError(f"options must be a BisectOptions, got {type(options).__name__}")
    return BisectOptions(
        error_probability=check_real(options.error_probability, "error_probability", low=0.0,
                                     high=0.5, low_inclusive=False, high_inclusive=False),
        confidence_level=check_confidence_level(options.confidence_level),
        max_step_runs=check_int(options.max_step_runs, "max_step_runs", low=3),
        max_duration=(None if options.max_duration is None else check_real(
            options.max_duration, "max_duration", low=0.0, low_inclusive=False)),
        timeout=(None if options.timeout is None else check_real(
            options.timeout, "timeout", low=0.0, low_inclusive=False)),
        seed=check_int(options.seed, "seed", low=0),
    )


def bisect(
    good: str, bad: str, program: list[str], *, repo: str = ".", build: str | None = None,
    min_change_percent: float = 5.0, higher_is_better: bool = False, column: int | None = None,
    max_runs: int = 2000, output_dir: str | None = None, resume: bool = False,
    options: BisectOptions | None = None,
) -> BisectResult:
    """Find the first commit that made a program slower, deciding each step statistically.

    Method: module docstring. Complexity: ``log2(commits)`` tests, ``<= max_runs`` runs.

    Parameters
    ----------
    good, bad : str
        Git revisions: ``good`` is an ancestor of ``bad``, which is suspected slower.
    program : list of str
        The benchmark program and its arguments, run in the worktree of each commit.
    repo : str, default "."
        A directory inside the git repository.
    build : str, optional
        Shell command run once in each commit's worktree before its runs; a commit whose
        build or first run fails is skipped (as ``git bisect skip``).
    min_change_percent : float, default 5
        A regression is a slowdown of at least this many percent.
    higher_is_better : bool, default False
        The metric is a throughput (a regression lowers it).
    column : int, optional
        Read the metric from this 0-based CSV column of the program's last data line;
        default: the run's wall-clock seconds.
    max_runs : int, default 2000
        Budget: program runs in all.
    output_dir : str, optional
        Folder of ``bisect.json``, the state (rewritten atomically after every run).
    resume : bool, default False
        Continue the bisection stored in ``output_dir``, replaying its runs; the command,
        build, references and options must equal the stored ones.
    options : BisectOptions, optional
        Error probability, confidence level, budgets, timeout and seed.

    Returns
    -------
    BisectResult

    Raises
    ------
    InvalidInputError
        Bad revisions, options, or a state file of another bisection.
    BisectError
        Git failed, or a reference commit could not be built or run.

    Examples
    --------
    A repository whose ``bench.py`` does three times the work from its fourth commit on:

    >>> import sys, tempfile
    >>> from pilotstats.demo import demo_repository
    >>> folder = tempfile.mkdtemp() + "/repo"
    >>> commits = demo_repository(folder, commits=6, culprit=3, growth=3.0)
    >>> result = bisect(commits[0], commits[-1], [sys.executable, "bench.py"],
    ...                 repo=folder, column=0)
    >>> result.verdict, result.first_bad == commits[3], result.last_good == commits[2]
    ('found', True, True)
    """
    root = repository_root(check_text_path(repo))
    good_sha, bad_sha = resolve(root, good, "good"), resolve(root, bad, "bad")
    _check_program(program, build)
    threshold = check_real(min_change_percent, "min_change_percent", low=0.0,
                           low_inclusive=False) / 100.0
    higher = check_bool(higher_is_better, "higher_is_better")
    knobs = _checked_options(options)
    metric_column = None if column is None else check_int(column, "column", low=0)
    runs_cap = check_int(max_runs, "max_runs", low=4)
    resuming = check_bool(resume, "resume")
    candidates = commit_range(root, good_sha, bad_sha)
    directory, state = _state(_fresh_state(root, good_sha, bad_sha, program, build, threshold,
                                           higher, knobs, metric_column), output_dir, resuming)
    session = _Bisection(root, list(program), build, metric_column, knobs.timeout, state,
                         directory, runs_cap, knobs.max_duration)
    with session.stack:
        return _drive(session, candidates, threshold, higher, _share(knobs, len(candidates)),
                      knobs.error_probability, knobs.confidence_level, knobs.max_step_runs)


def _share(knobs: BisectOptions, commits: int) -> float:
    """The error probability of each test: the range test and ``ceil(log2(commits))`` steps."""
    steps = max(1, math.ceil(math.log2(commits))) if commits > 1 else 0
    return knobs.error_probability / (steps + 1)


def _check_program(program: list[str], build: str | None) -> None:
    """Raise a named error unless ``program`` is a list of strings and ``build`` a string."""
    if not isinstance(program, (list, tuple)) or not program or not all(
            isinstance(a, str) for a in program):
        raise InvalidInputError("program must be a non-empty list of strings (the program "
                                "and its arguments)")
    if build is not None and not isinstance(build, str):
        raise InvalidInputError(f"build must be a shell command string, got {build!r}")


def _fresh_state(root: str, good_sha: str, bad_sha: str, program: list[str],
                 build: str | None, threshold: float, higher: bool, knobs: BisectOptions,
                 metric_column: int | None) -> dict[str, Any]:
    """The state of a new bisection (no runs yet)."""
    return {
        "version": STATE_VERSION, "repo": root, "good": good_sha, "bad": bad_sha,
        "command": list(program), "build": build,
        "options": {"min_change_percent": threshold * 100, "higher_is_better": higher,
                    "error_probability": knobs.error_probability, "column": metric_column},
        "seed": knobs.seed, "log": [], "duration": 0.0}


def _state(fresh: dict[str, Any], output_dir: str | None,
           resuming: bool) -> tuple[str | None, dict[str, Any]]:
    """The state folder (created) and the fresh or resumed state."""
    directory = None if output_dir is None else os.fspath(output_dir)
    if resuming and directory is None:
        raise InvalidInputError("resume=True needs output_dir (the folder of bisect.json)")
    if directory is not None:
        os.makedirs(directory, exist_ok=True)
    state = _load_state(directory, fresh) if resuming and directory else fresh
    return directory, state


def _drive(session: _Bisection, candidates: list[str], threshold: float, higher: bool,
           share: float, error: float, level: float, step_cap: int) -> BisectResult:
    good = session.commit(session.state["good"])
    bad = session.commit(session.state["bad"])
    stack = session.stack
    decision, range_llr = None, 0.0
    while decision is None and session.budget_left():
        order = [good, bad] if session.rng.random() < 0.5 else [bad, good]
        for item in order:
            _reference(session, item, stack, "good" if item is good else "bad")
        decision, range_llr = range_test(good.values, bad.values, threshold, share,
                                         higher_is_better=higher)
    probes: list[BisectProbe] = []
    skipped: set[int] = set()
    lo, hi = -1, len(candidates) - 1
    verdict, note = "inconclusive", ""
    if decision == "no regression":
        verdict, hi = "no regression in range", -2
    elif decision is None:
        note = "the budget ran out before good and bad could be told apart"
    else:
        while hi - lo > 1:
            position = _pick(lo, hi, skipped)
            if position is None:
                note = "every commit left in the range was skipped"
                break
            outcome, probe = _step(session, candidates[position], position, good, bad,
                                   share, level, higher, step_cap)
            probes.append(probe)
            if outcome == "skipped":
                skipped.add(position)
            elif outcome == "good":
                lo = position
            elif outcome == "bad":
                hi = position
            else:
                note = ("the budget ran out at a step" if outcome == "budget" else
                        f"commit {candidates[position][:12]} is neither like good nor like "
                        "bad within its run budget (a partial change, or too noisy)")
                break
        else:
            verdict = "found"
    left = tuple(candidates[lo + 1: hi + 1]) if verdict != "no regression in range" else ()
    ratio, low, high = _ratio(good.values, bad.values, level)
    references = [
        _probe(session, good, 0, "good", "good", level, math.nan, higher, good.values),
        _probe(session, bad, len(candidates), "bad", decision or "inconclusive", level,
               range_llr, higher, good.values)]
    return BisectResult(
        verdict=verdict, first_bad=left[0] if verdict == "found" else None,
        last_good=(None if verdict != "found" else
                   (candidates[lo] if lo >= 0 else session.state["good"])),
        range_left=left, good=good.sha, bad=bad.sha, commits_in_range=len(candidates),
        ratio=ratio, ci_low=low, ci_high=high, min_change_percent=threshold * 100,
        higher_is_better=higher, error_probability=error, confidence_level=level,
        probes=tuple(references + probes),
        skipped=tuple(candidates[p] for p in sorted(skipped)), n_runs=len(session.state["log"]),
        duration=session.elapsed(),
        metric=("wall-clock seconds" if session.column is None
                else f"output column {session.column}"),
        note=note)


def _reference(session: _Bisection, item: _Commit, stack: contextlib.ExitStack,
               role: str) -> float:
    value = session.measure(item, stack)
    if value is None:
        raise BisectError(f"the {role} reference {item.sha[:12]} failed: {item.failed}")
    return value


def _step(session: _Bisection, sha: str, position: int, good: _Commit, bad: _Commit,
          share: float, level: float, higher: bool, step_cap: int
          ) -> tuple[str, BisectProbe]:
    """Measure one commit in batches (probe, good, bad in random order) until its SPRT
    decides, it fails, or a budget runs out."""
    item = session.commit(sha)
    local: dict[str, list[float]] = {"probe": [], "good": [], "bad": []}
    llr, decision = 0.0, None

    def probe(outcome: str, note: str = "") -> BisectProbe:
        return _probe(session, item, position + 1, "probe", outcome, level, llr, higher,
                      good.values, note=note)

    with contextlib.ExitStack() as stack:
        while decision is None:
            if len(item.values) >= step_cap:
                return "inconclusive", probe("inconclusive")
            if not session.budget_left():
                return "budget", probe("inconclusive")
            order = [("probe", item), ("good", good), ("bad", bad)]
            session.rng.shuffle(order)  # type: ignore[arg-type]
            for role, current in order:
                if current is item:
                    value = session.measure(item, stack)
                    if value is None:
                        return "skipped", probe("skipped", item.failed)
                else:
                    value = _reference(session, current, session.stack, role)
                local[role].append(value)
            decision, llr = probe_test(local["probe"], local["good"], local["bad"],
                                       _aligned(good, bad)[0], _aligned(good, bad)[1], share)
    return decision, probe(decision)


def _aligned(good: _Commit, bad: _Commit) -> tuple[list[float], list[float]]:
    """The references' runs, paired in measurement order."""
    pairs = min(len(good.values), len(bad.values))
    return good.values[:pairs], bad.values[:pairs]


def _probe(session: _Bisection, item: _Commit, position: int, role: str, decision: str,
           level: float, llr: float, higher: bool, good_values: list[float],
           note: str = "") -> BisectProbe:
    ratio, low, high = (_ratio(good_values, item.values, level) if role != "good"
                        else (1.0, math.nan, math.nan))
    return BisectProbe(
        commit=item.sha, subject=subject(session.repo, item.sha), position=position, role=role,
        decision=decision, n_runs=len(item.values),
        mean=float(np.mean(item.values)) if item.values else math.nan, ratio=ratio,
        ci_low=low, ci_high=high, confidence_level=level, log_likelihood_ratio=llr, note=note)

