"""The command line (pilotstats.cli.main): analyze, compare, trend, changepoints, demo; its
exit statuses and its use as a CI gate."""

from __future__ import annotations

import contextlib
import gzip
import io
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
from pilotstats.analysis import AnalysisReport, ComparisonReport, analyze
from pilotstats.cli import main
from pilotstats.io import load

DATA = Path(__file__).parent / "data" / "harnesses"
ROOT = Path(__file__).resolve().parents[1]


def write_pyperf(path: Path, mean: float, seed: int, *, n_runs: int = 20, per_run: int = 10,
                 rel_noise: float = 0.01) -> Path:
    """A synthetic suite in pyperf's JSON format 1.0 (20 processes x 10 values, 1 warm-up)."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        level = mean * (1 + rng.normal(0, rel_noise / 2))
        values = (level * (1 + rng.normal(0, rel_noise, per_run))).tolist()
        runs.append({"metadata": {"date": "2026-11-21 06:00:00"},
                     "warmups": [[1024, level * 1.3]], "values": values})
    document = {"version": "1.0", "metadata": {"unit": "second", "loops": 1024},
                "benchmarks": [{"metadata": {"name": "synthetic"}, "runs": runs}]}
    path.write_text(json.dumps(document))
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


class TestAnalyzeCommand:
    def test_pyperf_table(self, capsys: pytest.CaptureFixture[str]) -> None:
        path = DATA / "pyperf_timeit.json"
        status, out, _ = run(["analyze", str(path)], capsys)
        assert status == 0
        header, _rule, row = out.splitlines()[:3]
        for column in ("benchmark", "n", "runs", "warm-up removed", "estimate [95 % CI]", "q",
                       "need for ±1 %"):
            assert column in header
        item = analyze(load(path))["timeit"]
        cells = row.split()
        assert cells[0] == "timeit" and cells[1] == str(item.n) == "20"
        assert cells[2] == str(item.n_runs) and item.n_runs > 1  # pyperf processes
        assert f"+ {item.harness_warmups} harness" in row
        assert item.interval_units == "runs"
        assert row.rstrip().endswith(f"-  {item.plan_text}")
        assert "mean" in row and "[" in row and "ns]" in row

    def test_json_round_trips(self, capsys: pytest.CaptureFixture[str]) -> None:
        path = DATA / "pyperf_suite.json"
        status, out, _ = run(["analyze", str(path), "--json"], capsys)
        assert status == 0
        data = json.loads(out)
        assert data["command"] == "analyze" and data["results"][0]["file"] == str(path)
        rebuilt = AnalysisReport.from_dict(data["results"][0])
        expected = analyze(load(path)).to_dict()
        assert rebuilt.to_dict() == expected
        assert json.loads(json.dumps(rebuilt.to_dict())) == {
            k: v for k, v in data["results"][0].items() if k != "file"}

    def test_several_files_and_options(self, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["analyze", str(DATA / "hyperfine.json"), str(DATA / "jmh.json"),
                              "--confidence-level", "0.99", "--half-width-percent", "2"], capsys)
        assert status == 0
        assert "99 % CI" in out and "need for ±2 %" in out
        assert str(DATA / "jmh.json") in out

    def test_csv_needs_column(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        csv = tmp_path / "t.csv"
        rng = np.random.default_rng(0)
        csv.write_text("ms\n" + "\n".join(f"{v:.5f}" for v in rng.normal(5, 0.05, 60)) + "\n")
        status, _, err = run(["analyze", str(csv)], capsys)
        assert status == 2 and "--column" in err
        status, out, _ = run(["analyze", str(csv), "--column", "ms", "--time-unit", "ms"],
                             capsys)
        assert status == 0 and "ms" in out

    def test_bad_file_exit_2(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, _, err = run(["analyze", str(tmp_path / "missing.json")], capsys)
        assert status == 2 and "no such JSON file" in err
        bad = tmp_path / "bad.json"
        bad.write_text('{"results": [{"command": "x", "times": ["a"]}]}')
        status, _, err = run(["analyze", str(bad)], capsys)
        assert status == 2 and "results[0].times[0]" in err


class TestCompareCommand:
    def test_five_percent_regression_exits_1(self, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
        base = write_pyperf(tmp_path / "base.json", 1e-6, seed=1)
        new = write_pyperf(tmp_path / "new.json", 1.05e-6, seed=2)
        status, out, _ = run(["compare", str(base), str(new)], capsys)
        assert status == 1
        assert "regression" in out and "1 significant regression(s)" in out

    def test_noise_exits_0(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        base = write_pyperf(tmp_path / "base.json", 1e-6, seed=3)
        same = write_pyperf(tmp_path / "same.json", 1e-6, seed=4)
        status, out, _ = run(["compare", str(base), str(same)], capsys)
        assert status == 0
        assert "no significant change" in out

    def test_progression_exits_0_and_json(self, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
        base = write_pyperf(tmp_path / "base.json", 1e-6, seed=5)
        fast = write_pyperf(tmp_path / "fast.json", 0.95e-6, seed=6)
        status, out, _ = run(["compare", str(base), str(fast), "--json"], capsys)
        assert status == 0
        data = json.loads(out)
        report = ComparisonReport.from_dict(data)
        assert report["synthetic"].verdict == "progression"
        assert data["has_regression"] is False

    def test_min_change_floor(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        base = write_pyperf(tmp_path / "base.json", 1e-6, seed=1)
        new = write_pyperf(tmp_path / "new.json", 1.05e-6, seed=2)
        status, _, _ = run(["compare", str(base), str(new), "--min-change-percent", "20"],
                           capsys)
        assert status == 0


def test_trend_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(write_pyperf(tmp_path / f"r{i}.json", 1e-6 if i < 5 else 1.3e-6, seed=i))
             for i in range(10)]
    status, out, _ = run(["trend", *files, "--fail-on-regression"], capsys)
    assert status == 1 and "regression" in out and "r0.json .. r4.json" in out
    status, out, _ = run(["trend", *files, "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert [s["classification"] for s in data["benchmarks"][0]["segments"]] == [
        "normal", "regression"]


def test_changepoints_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(9)
    values = np.concatenate([rng.normal(10, 0.2, 80), rng.normal(12, 0.2, 80)])
    lines = ["time,latency"] + [f"t{i},{v:.4f}" for i, v in enumerate(values)]
    csv = tmp_path / "series.csv"
    csv.write_text("\n".join(lines) + "\n")
    status, out, _ = run(["changepoints", str(csv), "--column", "latency", "--time-column",
                          "time", "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert len(data["records"]) == 1
    record = data["records"][0]
    assert abs(record["index"] - 80) <= 3  # EDM localises by medians, not exactly
    assert data["result"]["locations"] == [record["index"]]
    assert record["time"] == f"t{record['index']}" and record["metric"] == "latency"
    assert "pvalue" in record
    assert record["forward_change_percent"] == pytest.approx(20, abs=3)
    status, out, _ = run(["changepoints", str(csv), "--column", "latency"], capsys)
    assert status == 0 and f"[{record['index']}]" in out
    status, _, err = run(["changepoints", str(csv), "--column", "nope"], capsys)
    assert status == 2 and "not found" in err


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["demo"], capsys)
    assert status == 0 and "pilotstats" in out


def test_module_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "pilotstats.cli", "analyze",
                           str(DATA / "hyperfine.json")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "sleep 0.003" in done.stdout


class TestSeveralFilesPerSide:
    """'--' separates groups of files; each group is one measurement (its runs)."""

    @staticmethod
    def _job(path: Path, level: float, seed: int) -> Path:
        rng = np.random.default_rng(seed)
        times = (level * (1 + 0.01 * rng.standard_normal(10))).tolist()
        path.write_text(json.dumps({"results": [{"command": "job", "times": times}]}))
        return path

    def test_trend_groups_and_options_after_the_separator(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        groups = [[str(self._job(tmp_path / f"c{c}_{i}.json", 1.0 if c < 2 else 1.5, 10 * c + i))
                   for i in range(2)] for c in range(4)]
        argv = ["trend", *groups[0]]
        for group in groups[1:]:
            argv += ["--", *group]
        status, out, _ = run([*argv, "--json", "--no-warmup-detection"], capsys)
        data = json.loads(out)
        assert status == 0 and data["labels"] == [f"c{c}_0.json +1 files" for c in range(4)]
        item = data["benchmarks"][0]
        assert item["runs_per_result"] == [20, 20, 20, 20]  # 2 files x 10 hyperfine runs
        assert [s["classification"] for s in item["segments"]] == ["normal", "regression"]

    def test_analyze_group_is_one_measurement(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        files = [str(self._job(tmp_path / f"j{i}.json", 1.0, i)) for i in range(3)]
        status, out, _ = run(["analyze", *files, "--", "--json"], capsys)
        results = json.loads(out)["results"]
        assert status == 0 and len(results) == 1
        item = results[0]["benchmarks"][0]
        assert item["n_runs"] == 30 and item["interval_units"] == "files"
        status, out, _ = run(["analyze", *files, "--json"], capsys)  # no '--': one per file
        assert len(json.loads(out)["results"]) == 3

    @pytest.mark.parametrize("argv", [["compare", "a.json"], ["compare", "a", "b", "c"],
                                      ["compare", "a", "--", "b", "--", "c"], ["trend", "--"]])
    def test_file_list_usage_errors_exit_2(self, argv: list[str]) -> None:
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2


def test_cli_header_only_csv_says_no_rows() -> None:
    import contextlib
    import io

    from pilotstats.cli import main

    path = ROOT / "tests" / "_header_only_tmp.csv"
    try:
        path.write_text("t\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(["changepoints", str(path), "--column", "t"]) == 2
        assert "no data rows" in err.getvalue() and "header []" not in err.getvalue()
    finally:
        path.unlink(missing_ok=True)


def _hyperfine(path: Path, times: list[float]) -> Path:
    path.write_text(json.dumps({"results": [{"command": "job", "times": times}]}))
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    out = {
        "base": _hyperfine(tmp_path / "base.json", (0.1 + rng.normal(0, 1e-3, 60)).tolist()),
        "slow": _hyperfine(tmp_path / "slow.json", (0.105 + rng.normal(0, 1e-3, 60)).tolist()),
    }
    corrupt = tmp_path / "corrupt.json.gz"
    corrupt.write_bytes(gzip.compress(b'{"results": []}')[:12] + b"garbage-not-deflate")
    out["corrupt_gz"] = corrupt
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    out["nested"] = nested
    bigint = tmp_path / "bigint.json"
    bigint.write_text('{"results": [{"command": "a", "times": [%s, 0.1, 0.1]}]}' % ("9" * 400))
    out["bigint"] = bigint
    hugeint = tmp_path / "hugeint.json"
    hugeint.write_text('{"results": [{"command": "a", "times": [%s, 0.1]}]}' % ("9" * 5000))
    out["hugeint"] = hugeint
    field = tmp_path / "field.csv"
    field.write_text("t\n" + "1" * 200_000 + "\n2\n")
    out["field"] = field
    header = tmp_path / "header.csv"
    header.write_text("t\n")
    out["header"] = header
    good = tmp_path / "good.csv"
    good.write_text("t\n" + "\n".join(str(1 + 0.01 * v) for v in rng.normal(size=80)) + "\n")
    out["good"] = good
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)))
    out["binary"] = binary
    empty = tmp_path / "empty.json"
    empty.write_text("")
    out["empty"] = empty
    return out


CLI_CASES = [
    # (arguments with {name} placeholders, exit status, text expected on stderr)
    (["compare", "{base}", "{slow}", "--no-warmup-detection"], 1, ""),
    (["compare", "{base}", "{base}", "--no-warmup-detection"], 0, ""),
    (["analyze", "{base}", "--no-warmup-detection"], 0, ""),
    (["analyze", "{corrupt_gz}"], 2, "corrupt gzip"),
    (["analyze", "{nested}"], 2, "nested too deeply"),
    (["analyze", "{bigint}"], 2, "beyond the float64 range"),
    (["analyze", "{hugeint}"], 2, "digits"),
    (["analyze", "{field}", "--column", "t"], 2, "field larger than field limit"),
    (["changepoints", "{field}", "--column", "t"], 2, "field larger than field limit"),
    (["changepoints", "{good}", "--column", "t", "--delimiter", ""], 2, "single character"),
    (["changepoints", "{header}", "--column", "t"], 2, "no data rows"),
    (["changepoints", "{good}", "--column", "x"], 2, "not found"),
    (["changepoints", "{good}", "--column", "t", "--min-size", "99999999999999999999"], 2,
     "min_size must be at most"),
    (["analyze", "{header}", "--column", "t"], 2, "no data rows"),
    (["analyze", "{binary}"], 2, "UTF-8"),
    (["analyze", "{empty}"], 2, "not valid JSON"),
    (["analyze", "{base}", "--confidence-level", "1.5"], 2, "confidence_level"),
    (["analyze", "/nonexistent/file.json"], 2, "no such"),
]


@pytest.mark.parametrize(("arguments", "status", "message"), CLI_CASES,
                         ids=[" ".join(c[0])[:60] for c in CLI_CASES])
def test_cli_exit_status(files: dict[str, Path], arguments: list[str], status: int,
                         message: str) -> None:
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in arguments]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == status, err.getvalue()
    assert message in err.getvalue()
    assert "Traceback" not in err.getvalue()


@pytest.mark.parametrize("arguments", [[], ["bogus"], ["analyze"], ["compare", "a"]])
def test_cli_usage_errors_exit_2(arguments: list[str]) -> None:
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as info:
        main(arguments)
    assert info.value.code == 2


def test_cli_internal_error_exits_3_and_debug_prints_traceback(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pilotstats.analysis

    def broken(*args: object, **kwargs: object) -> object:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(pilotstats.analysis, "analyze", broken)
    for argv, traceback_expected in ((["analyze", str(files["base"])], False),
                                     (["analyze", str(files["base"]), "--debug"], True),
                                     (["--debug", "analyze", str(files["base"])], True)):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
        assert code == 3
        assert "internal error" in err.getvalue() and "simulated bug" in err.getvalue()
        assert ("Traceback" in err.getvalue()) is traceback_expected


def test_cli_debug_traceback_on_bad_input(files: dict[str, Path]) -> None:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["analyze", str(files["corrupt_gz"]), "--debug"])
    assert code == 2 and "Traceback" in err.getvalue() and "FormatError" in err.getvalue()


def test_cli_process_exit_status(files: dict[str, Path]) -> None:
    """The real entry point (a subprocess): statuses reach the shell unchanged."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv, status in (([str(files["nested"])], 2), ([str(files["base"])], 0)):
        process = subprocess.run(
            [sys.executable, "-m", "pilotstats", "analyze", *argv, "--no-warmup-detection"],
            capture_output=True, text=True, env=env, timeout=300,
        )
        assert process.returncode == status, process.stderr
        assert "Traceback" not in process.stderr


# The command line as a CI gate: changepoints defaults to the significance-tested detector,
# every option reaches its command, compare fails on incomplete comparisons, result folders are
# read in commit/time order, and a closed pipe ends quietly.
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
