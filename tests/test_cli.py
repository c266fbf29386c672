"""The command line (pilotstats.cli.main): analyze, compare, trend, changepoints, demo."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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

    def test_improvement_exits_0_and_json(self, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
        base = write_pyperf(tmp_path / "base.json", 1e-6, seed=5)
        fast = write_pyperf(tmp_path / "fast.json", 0.95e-6, seed=6)
        status, out, _ = run(["compare", str(base), str(fast), "--json"], capsys)
        assert status == 0
        data = json.loads(out)
        report = ComparisonReport.from_dict(data)
        assert report["synthetic"].verdict == "improvement"
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
