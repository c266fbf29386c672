"""Statistically decided bisection (``pilotstats bisect``, :func:`pilotstats.session.bisect`)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pilotstats.cli import main
from pilotstats.demo import demo_repository as make_repository
from pilotstats.exceptions import InvalidInputError
from pilotstats.session import BisectError, BisectOptions, BisectResult, bisect
from pilotstats.session import _bisect as driver
from pilotstats.session._bisect_git import worktree
from pilotstats.session._bisect_sprt import (
    VOTE_ERROR_FLOOR,
    probe_test,
    range_test,
    vote_error,
    vote_sprt,
    wald_bounds,
)

PROGRAM = [sys.executable, "bench.py"]


def _tree_state(repo: Path) -> tuple[str, str, dict[str, str]]:
    """HEAD, status and file contents of a work tree (to check it is never touched)."""
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"],
                            capture_output=True, text=True, check=True).stdout
    files = {p.name: p.read_text() for p in sorted(repo.iterdir()) if p.is_file()}
    return head, status, files


# --------------------------------------------------------------------------- the tests


def test_wald_bounds_and_vote_errors() -> None:
    lower, upper = wald_bounds(0.01)
    assert upper == pytest.approx(math.log(99)) and lower == pytest.approx(-math.log(99))
    assert vote_error(10.0, 1.0, 50) == VOTE_ERROR_FLOOR  # clean separation: the floor
    assert vote_error(0.1, 1.0, 50) == pytest.approx(0.45)  # no separation: below 1/2
    # fewer pairs: a larger upper bound on the scale, so a vote is trusted less
    assert vote_error(1.0, 1.0, 5) > vote_error(1.0, 1.0, 500) > 0.3
    q = 0.3
    assert vote_sprt(3, q, 0.05) == (None, pytest.approx(3 * math.log(7 / 3)))
    assert vote_sprt(4, q, 0.05)[0] == "upper" and vote_sprt(-4, q, 0.05)[0] == "lower"


def test_range_test_decides_each_way_and_honours_the_direction() -> None:
    rng = np.random.default_rng(0)
    good = np.exp(rng.normal(0, 0.03, 40))
    slower = 1.2 * np.exp(rng.normal(0, 0.03, 40))
    assert range_test(good, slower, 0.05, 0.01, higher_is_better=False)[0] == "regression"
    assert range_test(good, good[::-1], 0.05, 0.01,
                      higher_is_better=False)[0] == "no regression"
    # A throughput that rose is not a regression of a higher-is-better metric.
    assert range_test(good, slower, 0.05, 0.01, higher_is_better=True)[0] == "no regression"
    assert range_test(good[:3], slower[:3], 0.05, 0.01, higher_is_better=False) == (None, 0.0)


def test_probe_test_uses_batches_against_the_local_references() -> None:
    rng = np.random.default_rng(1)
    good = np.exp(rng.normal(0, 0.03, 30))
    bad = 1.15 * np.exp(rng.normal(0, 0.03, 30))
    drift = 3.0  # the machine got 3x slower during this step: drift-free votes still decide
    like_bad = drift * 1.15 * np.exp(rng.normal(0, 0.03, 8))
    like_good = drift * np.exp(rng.normal(0, 0.03, 8))
    local_good, local_bad = drift * good[:8], drift * bad[:8]
    assert probe_test(like_bad, local_good, local_bad, good, bad, 0.01)[0] == "bad"
    assert probe_test(like_good, local_good, local_bad, good, bad, 0.01)[0] == "good"
    assert probe_test(like_bad[:1], local_good, local_bad, good, bad, 0.01)[0] is None


# --------------------------------------------------------------------------- simulation


class _Simulated:
    """Replace the runs of a bisection by draws from a model (no worktrees, no programs)."""

    def __init__(self, commits: list[str], culprit: int | None, growth: float, noise: float,
                 heavy: float, drift: float, rng: np.random.Generator) -> None:
        self.position = {sha: i for i, sha in enumerate(commits)}
        self.culprit, self.growth, self.noise = culprit, growth, noise
        self.heavy, self.drift, self.rng, self.clock = heavy, drift, rng, 0

    def open(self, item: Any, stack: Any) -> None:
        item.path = Path("/nonexistent")

    def run(self, item: Any) -> float:
        self.clock += 1
        slow = self.culprit is not None and self.position[item.sha] >= self.culprit
        value = 0.01 * (self.growth if slow else 1.0) * math.exp(self.noise * self.rng.normal())
        value *= 1.0 + self.drift * math.sin(self.clock / 50.0)  # the machine's load drifts
        if self.rng.random() < self.heavy:  # a preempted run
            value *= 1.0 + self.rng.exponential(1.0)
        return value


@pytest.fixture(scope="module")
def long_repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("bisect") / "repo"
    return path, make_repository(path, commits=64)


@contextlib.contextmanager
def _simulated(monkeypatch: pytest.MonkeyPatch, model: _Simulated) -> Iterator[None]:
    with monkeypatch.context() as patch:
        patch.setattr(driver._Bisection, "_open", model.open)
        patch.setattr(driver._Bisection, "_run_once", model.run)
        yield


@pytest.mark.parametrize(("heavy", "drift"), [(0.0, 0.0), (0.1, 0.1)])
def test_simulated_bisections_name_the_culprit(
    monkeypatch: pytest.MonkeyPatch, long_repository: tuple[Path, list[str]], heavy: float,
    drift: float,
) -> None:
    """64 commits, +15 % at a random commit, 5 % noise (and heavy tails plus a drifting
    machine): the culprit is named in >= 95 % of 60 bisections; identical code gives "no
    regression in range" in >= 95 % of 40."""
    path, commits = long_repository
    rng = np.random.default_rng(int(heavy * 10))
    found = quiet = 0
    for _ in range(60):
        culprit = int(rng.integers(1, 64))
        model = _Simulated(commits, culprit, 1.15, 0.05, heavy, drift, rng)
        with _simulated(monkeypatch, model):
            result = bisect(commits[0], commits[-1], PROGRAM, repo=str(path),
                            options=BisectOptions(seed=int(rng.integers(2**31))))
        found += result.verdict == "found" and result.first_bad == commits[culprit]
        assert result.verdict != "no regression in range"
    for _ in range(40):
        model = _Simulated(commits, None, 1.0, 0.05, heavy, drift, rng)
        with _simulated(monkeypatch, model):
            result = bisect(commits[0], commits[-1], PROGRAM, repo=str(path),
                            options=BisectOptions(seed=int(rng.integers(2**31))))
        quiet += result.verdict == "no regression in range"
    assert found >= 57 and quiet >= 38


# --------------------------------------------------------------------------- real runs


@pytest.fixture()
def small_repository(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "repo"
    commits = make_repository(path, commits=9, culprit=6, growth=2.0, noise=0.02,
                              broken=(4,))
    (path / "untracked.txt").write_text("the user's own file")
    return path, commits


def test_real_bisection_skips_broken_builds_and_never_touches_the_checkout(
    small_repository: tuple[Path, list[str]], tmp_path: Path,
) -> None:
    path, commits = small_repository
    (path / "work.txt").write_text("1")  # an uncommitted edit of the user's
    before = _tree_state(path)
    result = bisect(commits[0], commits[-1], PROGRAM, repo=str(path), column=0,
                    build="test ! -f BROKEN", output_dir=str(tmp_path / "out"),
                    options=BisectOptions(seed=3))
    assert _tree_state(path) == before
    worktrees = subprocess.run(["git", "-C", str(path), "worktree", "list"],
                               capture_output=True, text=True, check=True).stdout
    assert len(worktrees.strip().splitlines()) == 1  # every temporary worktree removed
    assert result.verdict == "found" and result.first_bad == commits[6]
    assert result.last_good == commits[5]
    assert result.ratio > 1.5 and result.ci_low > 1.3
    if any(probe.commit == commits[4] for probe in result.probes):  # broken: skipped
        assert result[commits[4]].decision == "skipped" and commits[4] in result.skipped
    assert isinstance(result, BisectResult) and len(result) == len(result.probes) >= 4
    assert result.probes[0].role == "good" and result.probes[1].role == "bad"
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["first_bad"] == commits[6]
    assert "First bad commit" in result.to_markdown()
    assert result.to_csv().splitlines()[0].startswith("commit,subject,position")
    assert "first bad commit" in str(result)


def test_broken_commits_are_skipped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "repo"
    commits = make_repository(path, commits=5, culprit=3, growth=2.0, noise=0.02,
                              broken=(1, 2, 3))
    result = bisect(commits[0], commits[-1], PROGRAM, repo=str(path), column=0,
                    build="test ! -f BROKEN", options=BisectOptions(seed=1))
    assert set(result.skipped) <= {commits[1], commits[2], commits[3]}
    assert result.skipped
    assert all(result[c].decision == "skipped" for c in result.skipped)
    assert "build exited with status 1" in result[result.skipped[0]].note
    if result.verdict == "inconclusive":  # every commit between the last good and bad broke
        assert commits[4] in result.range_left


def test_a_broken_reference_is_an_error(small_repository: tuple[Path, list[str]]) -> None:
    path, commits = small_repository
    with pytest.raises(BisectError, match="good reference"):
        bisect(commits[4], commits[-1], PROGRAM, repo=str(path), build="test ! -f BROKEN")


def test_budget_interruption_and_resume_repeat_no_run(
    small_repository: tuple[Path, list[str]], tmp_path: Path,
) -> None:
    path, commits = small_repository
    out = str(tmp_path / "out")
    partial = bisect(commits[0], commits[-1], PROGRAM, repo=str(path), column=0,
                     max_runs=14, output_dir=out, options=BisectOptions(seed=5))
    assert partial.verdict == "inconclusive" and partial.n_runs == 14
    stored = json.loads((tmp_path / "out" / "bisect.json").read_text())
    assert len(stored["log"]) == 14
    full = bisect(commits[0], commits[-1], PROGRAM, repo=str(path), column=0,
                  max_runs=2000, output_dir=out, resume=True,
                  options=BisectOptions(seed=5))
    assert full.verdict == "found" and full.first_bad == commits[6]
    assert json.loads((tmp_path / "out" / "bisect.json").read_text())["log"][:14] == \
        stored["log"]
    # The stored program is never taken from disk: another command is refused.
    with pytest.raises(InvalidInputError, match="another bisection"):
        bisect(commits[0], commits[-1], [sys.executable, "other.py"], repo=str(path),
               column=0, output_dir=out, resume=True, options=BisectOptions(seed=5))


def test_cli_exit_statuses_and_files(tmp_path: Path) -> None:
    path = tmp_path / "repo"
    commits = make_repository(path, commits=6, culprit=3, growth=2.0, noise=0.02)
    out = tmp_path / "out"
    arguments = ["bisect", "--good", commits[0], "--bad", commits[-1], "--repo", str(path),
                 "--column", "0", "-o", str(out), "--", *PROGRAM]
    with contextlib.redirect_stdout(io.StringIO()) as text:
        assert main(arguments) == 1  # a regression, located
    assert f"first bad commit {commits[3][:12]}" in text.getvalue()
    assert {p.name for p in out.iterdir()} >= {"bisect.json", "result.json", "result.csv",
                                                "summary.md"}
    flat = tmp_path / "flat"
    same = make_repository(flat, commits=4, culprit=None, noise=0.02)
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["bisect", "--good", same[0], "--bad", same[-1], "--repo", str(flat),
                       "--column", "0", "-o", str(tmp_path / "o2"), "--", *PROGRAM])
    assert status == 0  # no regression in range
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["bisect", "--good", commits[0], "--bad", commits[-1], "--repo",
                       str(path), "--column", "0", "--max-runs", "6", "-o",
                       str(tmp_path / "o3"), "--", *PROGRAM])
    assert status == 5  # inconclusive: no answer within the budget
    with contextlib.redirect_stderr(io.StringIO()) as error:
        assert main(["bisect", "--good", "nope", "--bad", commits[-1], "--repo", str(path),
                     "--", *PROGRAM]) == 2
    assert "not a commit" in error.getvalue()
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["bisect", "--good", commits[-1], "--bad", commits[0], "--repo",
                     str(path), "--", *PROGRAM]) == 2
        assert main(["bisect", "--good", commits[0], "--bad", commits[-1], "--repo",
                     str(path)]) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [({"min_change_percent": 0}, "min_change_percent"),
     ({"options": BisectOptions(error_probability=0.7)}, "error_probability"),
     ({"higher_is_better": "no"}, "higher_is_better"),
     ({"max_runs": 2}, "max_runs"),
     ({"resume": True}, "needs output_dir"),
     ({"repo": "/nonexistent/path"}, "not a directory")],
)
def test_bad_options_raise_named_errors(small_repository: tuple[Path, list[str]],
                                        options: dict[str, Any], message: str) -> None:
    path, commits = small_repository
    arguments: dict[str, Any] = {"repo": str(path), **options}
    with pytest.raises(InvalidInputError, match=message):
        bisect(commits[0], commits[-1], PROGRAM, **arguments)
    with pytest.raises(InvalidInputError, match="program"):
        bisect(commits[0], commits[-1], [], repo=str(path))


# --------------------------------------------------------------------------- acceptance


def _naive(path: Path, commits: list[str]) -> str:
    """Bisection trusting one run per commit: closer to good's run or to bad's run?"""

    def once(sha: str) -> float:
        with worktree(str(path), sha) as tree:
            output = subprocess.run(PROGRAM, cwd=tree, capture_output=True, text=True,
                                    check=True).stdout
        return math.log(float(output.split()[-1]))

    good, bad = once(commits[0]), once(commits[-1])
    lo, hi = 0, len(commits) - 1
    while hi - lo > 1:
        middle = (lo + hi) // 2
        value = once(commits[middle])
        if abs(value - bad) < abs(value - good):
            hi = middle
        else:
            lo = middle
    return commits[hi]


@pytest.mark.slow
def test_forty_real_repositories(tmp_path: Path) -> None:
    """64 commits, the work grows by 15 % at a random commit k, 5 % run-to-run
    noise added by the program: ``bisect`` names k in >= 95 % of 40 seeded repositories,
    naive one-run-per-commit bisection in a lower share; with no change, "no regression
    in range" in >= 95 % of 40. Two repositories are bisected at a time (about 9,000
    program runs in all; each bisection's batches interleave its own references, so the
    other one's load falls on both sides alike)."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(27)
    culprits = [int(rng.integers(1, 64)) for _ in range(40)]

    def one(index: int) -> tuple[bool, bool, bool]:
        path, flat = tmp_path / f"repo{index}", tmp_path / f"flat{index}"
        commits = make_repository(path, culprit=culprits[index])
        result = bisect(commits[0], commits[-1], PROGRAM, repo=str(path), column=0,
                        options=BisectOptions(seed=index))
        naive = _naive(path, commits) == commits[culprits[index]]
        same = make_repository(flat, culprit=None)
        quiet = bisect(same[0], same[-1], PROGRAM, repo=str(flat), column=0,
                       options=BisectOptions(seed=index))
        return (result.first_bad == commits[culprits[index]], naive,
                quiet.verdict == "no regression in range")

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(one, range(40)))
    found, naive, quiet = (sum(column) for column in zip(*outcomes, strict=True))
    print(f"bisect named k in {found}/40, naive bisection in {naive}/40; "
          f"no regression in range {quiet}/40")
    assert found >= 38 and quiet >= 38 and naive < found
