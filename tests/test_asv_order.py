"""asv folders for ``trend`` and ``fleet``: both take the project folder, the
results root or a machine folder; commits of equal date come in git order where the
repository is available, else in asv's revision order, else by hash, and the output
says which; ``--fail-on-regression`` judges the truly newest result."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pilotstats.exceptions import FormatError
from pilotstats.io import load_asv_history
from pilotstats.io._asv_order import asv_layout, commit_order
from pilotstats.io._result_history import result_history
from tests.test_cli import DATA, run

BENCH = "bench_tiny.time_sum_range"
# Ten commits at one level, then two commits with the same commit date: the first of them
# 30 % slower, the second (the newest in git) back at the old level.
LEVELS = [1e-6] * 10 + [1.3e-6, 1e-6]


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c",
                           "user.email=t@example.org", *args], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def _result(commit: str, date: int, level: float, rng: np.random.Generator) -> dict[str, object]:
    """The fixture's asv result file (real asv 0.6.6 output) reduced to one benchmark with
    10 recorded samples at ``level``."""
    doc = json.loads((DATA / "asv_result.json").read_text())
    columns = doc["result_columns"]
    row = doc["results"][BENCH]
    samples = rng.normal(level, level * 0.01, 10)
    row[columns.index("result")] = [float(np.median(samples))]
    row[columns.index("samples")] = [samples.tolist()]
    return {**doc, "results": {BENCH: row}, "commit_hash": commit, "date": date}


def _project(root: Path, *, git: bool = True) -> tuple[Path, list[str]]:
    """An asv project in a git repository: 12 commits, results for each (the last two with
    one commit date, their hashes in the opposite order to git's)."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    project = root / "project"
    project.mkdir()
    _git(project, "init", "-q")
    commits = []
    for i in range(len(LEVELS)):
        attempt = 0
        while True:
            _git(project, "commit", "-q", "--allow-empty", "-m", f"commit {i} {attempt}")
            commit = _git(project, "rev-parse", "HEAD")
            if i < len(LEVELS) - 1 or commit < commits[-1]:
                break
            _git(project, "reset", "-q", "--hard", "HEAD~1")  # hash order = git order
            attempt += 1
        commits.append(commit)
    (project / "asv.conf.json").write_text(
        '// asv allows comments\n{"version": 1, "repo": ".", "results_dir": "results"}')
    machine = project / "results" / "box"
    machine.mkdir(parents=True)
    (machine / "machine.json").write_text('{"machine": "box", "version": 1}')
    rng = np.random.default_rng(0)
    for i, (commit, level) in enumerate(zip(commits, LEVELS, strict=True)):
        date = 1_700_000_000_000 + 3_600_000 * min(i, len(LEVELS) - 2)
        (machine / f"{commit[:8]}-py.json").write_text(json.dumps(_result(commit, date, level,
                                                                          rng)))
    if not git:
        shutil.rmtree(project / ".git")
    return project, commits


def _trend(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    status, out, err = run(["trend", str(folder), "--json", "--fail-on-regression"], capsys)
    assert status in (0, 1), err
    return status, json.loads(out)


def test_git_order_for_equal_dates_from_any_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, commits = _project(tmp_path)
    assert commits[-1] < commits[-2]  # by hash the git-newest would come first
    for folder in (project, project / "results", project / "results" / "box"):
        status, data = _trend(folder, capsys)
        assert data["labels"] == [c[:8] for c in commits], folder
        assert status == 0  # the newest result is back at the old level: no regression
        assert len(data["order"]) == 1 and "ordered by git" in data["order"][0]
    status, out, _ = run(["trend", str(project / "results")], capsys)
    assert "order: " in out and "git rev-list --topo-order" in out
    # fleet: the same folders, the same series in the same order
    tables = [load_asv_history(f) for f in (project, project / "results",
                                            project / "results" / "box")]
    for table in tables:
        assert table["commit"].tolist() == commits
        assert "ordered by git" in table.attrs["commit_order"]
    outputs = []
    for folder in (project / "results", project / "results" / "box"):
        status, out, _ = run(["fleet", str(folder), "--json", "--no-progress"], capsys)
        data = json.loads(out)
        assert "ordered by git" in data.pop("commit_order")
        assert data.pop("source") == str(folder)
        outputs.append((status, data))
    assert outputs[0] == outputs[1]


def test_hash_order_is_said_and_judges_another_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the repository or asv's revision data the order of equal dates is the
    hash's, and the output says it is arbitrary: here the slow result comes last."""
    project, commits = _project(tmp_path, git=False)
    status, data = _trend(project / "results" / "box", capsys)
    assert data["labels"][-2:] == [commits[-1][:8], commits[-2][:8]]
    assert "by commit hash, which is arbitrary" in data["order"][0]
    assert "no git repository at" in data["order"][0]
    assert status == 1  # the slow result is last: a false alarm the git order avoids


def test_asv_revision_numbers_without_git(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, commits = _project(tmp_path, git=False)
    (project / "html").mkdir()
    (project / "html" / "index.json").write_text(json.dumps(
        {"revision_to_hash": {str(100 + i): c for i, c in enumerate(commits)}}))
    status, data = _trend(project, capsys)
    assert data["labels"] == [c[:8] for c in commits] and status == 0
    assert "asv's revision numbers" in data["order"][0]
    order = commit_order(asv_layout(project), commits)
    assert order.source == "asv" and sorted(commits, key=order.key) == commits


def test_several_machines_need_a_choice_for_trend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = _project(tmp_path, git=False)
    shutil.copytree(project / "results" / "box", project / "results" / "other")
    with pytest.raises(FormatError, match=r"2 machines \(box, other\); a trend follows one"):
        result_history(project / "results")
    status, _, err = run(["trend", str(project / "results")], capsys)
    assert status == 2 and "pass its folder" in err
    assert len(load_asv_history(project / "results")) == 2 * len(LEVELS)  # fleet: all


def test_layouts_are_recognised(tmp_path: Path) -> None:
    results = tmp_path / "results"
    (results / "m1").mkdir(parents=True)
    (results / "m2").mkdir()
    (results / "benchmarks.json").write_text("{}")
    layout = asv_layout(results)
    assert layout.results == results and [p.name for p in layout.machines] == ["m1", "m2"]
    assert layout.config is None and asv_layout(tmp_path).results == results
    (results / "m1" / "abc-py.json").write_text("{}")  # a machine folder without machine.json
    assert asv_layout(results / "m1").machines == (results / "m1",)
    with pytest.raises(FormatError, match="expected an asv results folder"):
        asv_layout(tmp_path / "missing")
    # a remote repository: not usable, said so
    (tmp_path / "asv.conf.json").write_text('{"repo": "https://example.org/x.git"}')
    order = commit_order(asv_layout(tmp_path), ["b", "a"])
    assert order.source == "hash" and "is not a local folder" in order.description
