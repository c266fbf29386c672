"""The command line as a CI gate: changepoints defaults to the significance-tested detector,
every option reaches its command, compare fails on incomplete comparisons, result folders
are read in commit/time order, and a closed pipe ends quietly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pilotstats.analysis
from tests.test_cli import DATA, ROOT, run, write_pyperf


def _csv(path: Path, values: np.ndarray, column: str = "latency") -> Path:
    path.write_text("\n".join([column, *(f"{v:.6f}" for v in values)]) + "\n")
    return path


class TestChangepoints:
    def test_default_is_detect_changes_with_p_values(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        rng = np.random.default_rng(9)
        values = np.concatenate([rng.normal(10, 0.2, 80), rng.normal(12, 0.2, 80)])
        path = _csv(tmp_path / "s.csv", values)
        status, out, _ = run(["changepoints", str(path), "--column", "latency"], capsys)
        assert status == 0
        assert out.startswith("detect_changes: 1 change point at [") and "(p = [" in out
        status, out, _ = run(["changepoints", str(path), "--column", "latency", "--json"],
                             capsys)
        data = json.loads(out)
        assert data["method"] == "detect" and data["result"]["method"] == "detect_changes"
        assert len(data["result"]["p_values"]) == 1 and data["result"]["p_values"][0] < 1e-6

    def test_edm_is_explicit_and_pure_noise_shows_why(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = _csv(tmp_path / "noise.csv", np.random.default_rng(3).normal(size=300))
        status, out, _ = run(["changepoints", str(path), "--column", "latency"], capsys)
        assert status == 0 and "detect_changes: no change points" in out
        status, out, _ = run(["changepoints", str(path), "--column", "latency", "--method",
                              "edm", "--percent", "0.25"], capsys)
        assert status == 0 and out.startswith("edm-percent") and "not significance-tested" in out
        status, _, err = run(["changepoints", str(path), "--column", "latency", "--percent",
                              "0.25"], capsys)
        assert status == 2 and "--method edm" in err

    def test_reads_harness_files(self, capsys: pytest.CaptureFixture[str]) -> None:
        path = DATA / "pytest_benchmark.json"
        status, _, err = run(["changepoints", str(path)], capsys)
        assert status == 2 and "--benchmark" in err and "test_fib_10" in err
        status, out, _ = run(["changepoints", str(path), "--benchmark",
                              "test_tiny_bench.py::test_fib_10", "--json"], capsys)
        data = json.loads(out)
        assert status == 0 and data["column"] == "test_tiny_bench.py::test_fib_10"
        assert data["result"]["n"] > 200

    @pytest.mark.slow
    @pytest.mark.parametrize("phi", [0.0, 0.5])
    def test_defaults_quiet_on_noise(
        self, phi: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Acceptance: no change point in >= 95 % of 200 seeded noise series."""
        quiet = 0
        for seed in range(200):
            e = np.random.default_rng(seed).normal(size=300)
            x = np.empty_like(e)
            x[0] = e[0]
            for i in range(1, e.size):
                x[i] = phi * x[i - 1] + e[i]
            path = _csv(tmp_path / "noise.csv", x, column="C")
            status, out, _ = run(["changepoints", str(path), "--column", "C"], capsys)
            assert status == 0
            quiet += "no change points" in out
        assert quiet >= 190


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    original = getattr(pilotstats.analysis, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(pilotstats.analysis, name, spy)
    return calls


OPTIONS = ["--confidence-level", "0.9", "--autocorrelation-limit", "0.3",
           "--no-warmup-detection", "--no-progress", "--summary-statistic", "median"]
EXPECTED = {"confidence_level": 0.9, "autocorrelation_limit": 0.3, "detect_warmup": False,
            "summary_statistic": "median"}


@pytest.mark.parametrize("command", ["analyze", "trend", "compare"])
def test_every_option_reaches_its_command(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [str(write_pyperf(tmp_path / f"r{i}.json", 1e-3, seed=i)) for i in range(2)]
    calls = _spy(monkeypatch, "compare" if command == "compare" else "analyze")
    status, _, _ = run([command, *files, *OPTIONS], capsys)
    assert status in (0, 1) and calls
    for kwargs in calls:
        assert {k: kwargs.get(k) for k in EXPECTED} == EXPECTED


class TestCompareGate:
    def test_nothing_in_common_exits_2_unless_allowed(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        base = DATA / "hyperfine.json"
        new = DATA / "pyperf_timeit.json"
        status, out, _ = run(["compare", str(base), str(new)], capsys)
        assert status == 2
        assert "compared 0 of 2 baseline benchmark(s)" in out and "exit status 2" in out
        status, out, _ = run(["compare", str(base), str(new), "--allow-missing"], capsys)
        assert status == 0 and "allowed by --allow-missing" in out

    def test_not_analysable_exits_2(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        # 4 repetitions per benchmark are 4 runs, so the comparison is made
        # (it was "not analysable": no subsession size on the flattened 4 samples); they
        # ran in one process, so one file a side is inconclusive unless stated equivalent.
        path = DATA / "gbench.json"
        status, out, _ = run(["compare", str(path), str(path)], capsys)
        assert status == 5 and "0 not analysable" in out and "(4 vs 4 runs)" in out
        status, out, _ = run(["compare", str(path), str(path), "--assume-runs-equivalent"],
                             capsys)
        assert status == 0 and "0 not analysable" in out and "(4 vs 4 runs)" in out
        # One sample per side, even with the runs assumed equivalent, is not analysable.
        one = tmp_path / "one.json"
        one.write_text(json.dumps({"results": [{"command": "job", "times": [0.1]}]}))
        status, out, _ = run(["compare", str(one), str(one), "--assume-runs-equivalent"],
                             capsys)
        assert status == 2 and "1 not analysable" in out
        status, out, _ = run(["compare", str(one), str(one), "--json", "--allow-missing",
                              "--assume-runs-equivalent"], capsys)
        data = json.loads(out)
        assert status == 0 and data["incomplete"] and len(data["not_analysable"]) == 1

    def test_regression_still_exits_1(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        base = write_pyperf(tmp_path / "base.json", 1e-3, seed=1)
        new = write_pyperf(tmp_path / "new.json", 1.05e-3, seed=2)
        status, out, _ = run(["compare", str(base), str(new)], capsys)
        assert status == 1 and "compared 1 of 1 baseline benchmark(s) (20 vs 20 runs): " \
            "1 regression(s)" in out


def _asv_folder(root: Path) -> Path:
    template = json.loads((DATA / "asv_result.json").read_text())
    folder = root / "results" / "machine"
    folder.mkdir(parents=True)
    (folder / "machine.json").write_text('{"machine": "machine", "version": 1}')
    # written in reverse: the reader must order by the commit date, not by file name
    for i, commit in enumerate(["cccc", "bbbb", "aaaa"]):
        document = dict(template, commit_hash=commit * 10, date=3_000_000 - i * 1_000_000)
        (folder / f"{commit * 2}-env.json").write_text(json.dumps(document))
    return root / "results"


def test_trend_reads_an_asv_results_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["trend", str(_asv_folder(tmp_path)), "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert data["labels"] == ["aaaaaaaa", "bbbbbbbb", "cccccccc"]
    assert [Path(p).name for p in data["files"]] == ["aaaaaaaa-env.json", "bbbbbbbb-env.json",
                                                   "cccccccc-env.json"]


def test_trend_reads_pytest_benchmark_autosaves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = json.loads((DATA / "pytest_benchmark.json").read_text())
    folder = tmp_path / ".benchmarks" / "Linux-CPython-3.11-64bit"
    folder.mkdir(parents=True)
    for counter, day in ((1, 3), (2, 1), (3, 2)):  # counters out of time order
        document = dict(template, datetime=f"2026-11-0{day}T00:00:00+00:00",
                        commit_info=dict(template["commit_info"], time=f"2026-11-0{day}"))
        (folder / f"000{counter}_c{day}_uncommitted.json").write_text(json.dumps(document))
    status, out, _ = run(["trend", str(tmp_path / ".benchmarks"), "--json"], capsys)
    assert status == 0
    assert json.loads(out)["labels"] == ["0002_c1_uncommitted", "0003_c2_uncommitted",
                                         "0001_c3_uncommitted"]


def test_folder_without_results_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(["trend", str(tmp_path)], capsys)
    assert status == 2 and "no asv result files" in err


def test_broken_pipe_ends_quietly(tmp_path: Path) -> None:
    """Output into a reader that has already gone (as ``| head`` does): no traceback, and
    the exit status is the command's own (1: the regression is still reported)."""
    base = write_pyperf(tmp_path / "base.json", 1e-3, seed=1)
    new = write_pyperf(tmp_path / "new.json", 1.05e-3, seed=2)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    assert shutil.which("true") is not None
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader.wait()  # the read end of the pipe is closed now
    assert reader.stdin is not None
    done = subprocess.run([sys.executable, "-m", "pilotstats", "compare", str(base), str(new)],
                          stdout=reader.stdin, stderr=subprocess.PIPE, text=True, env=env,
                          timeout=600, check=False)
    reader.stdin.close()
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 1


def test_median_and_min_statistics_on_heavy_tails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyperf-like timings (20 processes x 20 values) with rare 100x outliers: the run
    medians' interval is narrow and stays near the typical value; the mean's is pulled by
    the outliers. (One run per side is inconclusive, so several runs here.)"""
    rng = np.random.default_rng(4)

    def write(name: str, level: float) -> Path:
        runs = []
        for _ in range(20):
            times = level * (1 + 0.01 * rng.standard_normal(20))
            times[rng.random(20) < 0.04] *= 100.0
            runs.append({"values": times.tolist()})
        path = tmp_path / name
        path.write_text(json.dumps({"version": "1.0", "metadata": {"unit": "second",
                                                                   "name": "job", "loops": 1},
                                    "benchmarks": [{"runs": runs}]}))
        return path

    base, new = write("base.json", 1e-3), write("new.json", 1.03e-3)
    status, out, _ = run(["compare", str(base), str(new), "--summary-statistic", "median",
                          "--json", "--no-warmup-detection"], capsys)
    item = json.loads(out)["comparisons"][0]
    assert status == 1 and item["summary_statistic"] == "run median"
    assert item["relative_change"] == pytest.approx(0.03, abs=0.01)
    status, out, _ = run(["compare", str(base), str(new), "--json", "--no-warmup-detection"],
                         capsys)
    assert json.loads(out)["comparisons"][0]["verdict"] != "regression"  # the mean misses it
    status, out, _ = run(["analyze", str(base), "--summary-statistic", "min", "--json",
                          "--no-warmup-detection"], capsys)
    item = json.loads(out)["results"][0]["benchmarks"][0]
    assert item["summary_statistic"] == "run min" and item["block_size"] == 20
    assert item["ci_low"] < item["mean"] < item["ci_high"] < 1e-3
