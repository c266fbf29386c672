"""End-to-end tests of ``pilotstats run`` with real subprocesses.

The benchmark programs are small Python scripts written into temporary directories. They
print *simulated* readings (seeded by a per-directory call counter), so every assertion is
deterministic: nothing here depends on live timings.
"""

from __future__ import annotations

import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pilotstats.autocorrelation import proportion_interval
from pilotstats.cli import main
from pilotstats.session import BenchmarkSession

# Unit readings of a latency (ms): the first 40 % of each round are a warm-up 3 sigma slower
# (true stable mean 5 + SHIFT, sigma 1); second column a 0/1 success flag (p = 0.9).
LATENCY = """
import os, random, sys, time
work = int(sys.argv[1]) if len(sys.argv) > 1 else 50
here = os.path.dirname(os.path.abspath(__file__))
counter = os.path.join(here, "calls")
calls = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(calls + 1))
rng = random.Random(calls + 1000 * int(os.environ.get("SEED", "0")))
shift = float(os.environ.get("SHIFT", "0"))
time.sleep(float(os.environ.get("SLEEP", "0")))
for i in range(work):
    value = 5.0 + shift + rng.gauss(0, 1) + (3.0 if i < 0.4 * work else 0.0)
    print(f"{value:.6f},{int(rng.random() < 0.9)}")
"""

# One line per round: simulated duration 0.05 s + w / 1e5 (+ noise), a throughput reading
# and a binary flag; fails, prints garbage or hangs on the call named by the environment.
WPS = """
import os, random, sys, time
work = int(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
counter = os.path.join(here, "calls")
calls = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(calls + 1))
rng = random.Random(calls)
if calls == int(os.environ.get("FAIL_AT", "-1")):
    print("disk full", file=sys.stderr)
    sys.exit(3)
if calls == int(os.environ.get("GARBAGE_AT", "-1")):
    print("0.1,2.0,1")
    print("n/a,n/a,1")
    sys.exit(0)
if calls == int(os.environ.get("HANG_AT", "-1")):
    time.sleep(30)
duration = 0.05 + work / 1e5 + rng.gauss(0, 0.001)
print(f"{duration:.6f},{1e5 + rng.gauss(0, 2e3):.3f},{int(rng.random() < 0.8)}")
"""


def script(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


def saved_session(out: Path) -> BenchmarkSession:
    """The session replayed from the state files (``session.json`` + ``rounds.jsonl``)."""
    saved = json.loads((out / "session.json").read_text())
    rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    return BenchmarkSession.from_state({**saved["session"], "rounds": rounds})


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["run", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_unit_readings_session_covers_the_truth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = script(tmp_path, "latency", LATENCY)
    out = tmp_path / "out"
    status, stdout, stderr = run_cli(
        capsys, "-o", str(out), "--pi", "latency,ms,0,ordinary,1", "--pi", "ok,,1,binary,0",
        "--min-subsessions", "10", "--min-size", "8", "--json",
        "--", sys.executable, str(program), "50",
    )
    assert status == 0, stderr
    summary = json.loads(stdout)
    result = summary["result"]
    assert result["stop_reason"] == "targets_met" and result["n_rounds"] >= 10
    latency, ok = result["unit_readings"]
    assert latency["name"] == "latency" and ok["index_type"] == "binary"
    # The warm-up (20 of 50 readings per round) is removed and the CI covers the truth.
    assert latency["analysis"]["ci_low"] <= 5.0 <= latency["analysis"]["ci_high"]
    assert latency["n_removed"] >= 15 * result["n_rounds"] and not result["warmup_kept"]
    # Live progress: one line per round on stderr, with the CI against its target.
    progress = [line for line in stderr.splitlines() if line.startswith("round ")]
    assert len(progress) == result["n_rounds"]
    assert "95 % CI ±" in progress[-1] and "target ±10.0 %" in progress[-1]
    for name in ("rounds.csv", "unit_readings.csv", "summary.csv", "summary.json",
                 "session.json", "rounds.jsonl"):
        assert (out / name).exists(), name
    units = read_csv(out / "unit_readings.csv")
    assert len(units) == 50 * result["n_rounds"] and set(units[0]) == {
        "round", "position", "latency", "ok"}
    # The binary index: the Wilson interval of the exported 0/1 outcomes (independent check).
    wilson = proportion_interval([float(row["ok"]) for row in units])
    assert ok["analysis"]["ci_low"] == pytest.approx(wilson.ci_low, rel=1e-12)
    assert ok["analysis"]["proportion"] == pytest.approx(wilson.proportion, rel=1e-12)
    table = {row["name"]: row for row in read_csv(out / "summary.csv")}
    assert float(table["latency"]["ci_low"]) == pytest.approx(latency["analysis"]["ci_low"])
    assert json.loads((out / "summary.json").read_text())["result"] == result


def test_wps_session_short_rounds_and_text_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = script(tmp_path, "wps", WPS)
    out = tmp_path / "out"
    status, stdout, stderr = run_cli(
        capsys, "-o", str(out), "-w", "100,200000", "--wps", "--duration-column", "0",
        "--pi", "throughput,op/s,1,ratio,1", "--pi", "ok,,2,binary,0",
        "--min-round-duration", "0.2", "--min-subsessions", "5", "--half-width-percent", "5",
        "--work-unit", "op", "-q", "--", sys.executable, str(program), "%WORK_AMOUNT%",
    )
    assert status == 0, stderr
    assert "WPS throughput: v = " in stdout and "stored but not used" in stdout
    assert stderr == ""  # --quiet
    session = saved_session(out)
    result = session.result()
    assert result.wps is not None and result.wps_done
    # Simulated t = 0.05 + w / 1e5: the interval of v holds the truth.
    assert result.wps.throughput_ci_low <= 1e5 <= result.wps.throughput_ci_high
    rounds = read_csv(out / "rounds.csv")
    short = [int(row["round"]) for row in rounds if row["short"] == "1"]
    assert short and tuple(short) == result.short_rounds
    assert all(float(rounds[i]["duration_s"]) < 0.2 for i in short)
    throughput = result.readings[0]
    assert throughput.index_type == "ratio" and throughput.n == len(rounds) - len(short)
    assert len(read_csv(out / "readings.csv")) == len(rounds)


def test_failing_program_keeps_rounds_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    program = script(tmp_path, "wps", WPS)
    out = tmp_path / "out"
    args = ["-o", str(out), "-w", "100,200000", "--duration-column", "0",
            "--pi", "throughput,op/s,1,ratio,1", "--min-round-duration", "0",
            "--min-subsessions", "5", "--env", "FAIL_AT=4", "-q",
            "--", sys.executable, str(program), "%WORK_AMOUNT%"]
    status, stdout, stderr = run_cli(capsys, *args)
    assert status == 4
    assert "round 4 (0-based): the program exited with status 3" in stderr
    assert "disk full" in stderr and f"--resume {out}" in stderr
    assert len(read_csv(out / "rounds.csv")) == 4 and saved_session(out).n_rounds == 4
    status, _, stderr = run_cli(capsys, *args)  # the same -o again: refused, nothing lost
    assert status == 2 and "already holds a session" in stderr
    assert json.loads((out / "summary.json").read_text())["error"].startswith("round 4")
    # --resume shows the stored command and runs nothing until the user confirms it.
    status, _, stderr = run_cli(capsys, "--resume", str(out), "-q")
    assert status == 2 and "not resumed" in stderr and "FAIL_AT=4" in stderr
    assert saved_session(out).n_rounds == 4
    # The program fails only on its fifth call: resuming, confirmed by giving the same
    # command and environment again, continues the same session.
    status, stdout, stderr = run_cli(capsys, "--resume", str(out), "-q", "--env", "FAIL_AT=4",
                                     "--", sys.executable, str(program), "%WORK_AMOUNT%")
    assert status == 0, stderr
    rounds = read_csv(out / "rounds.csv")
    assert len(rounds) >= 10 and "targets_met" in stdout


def test_unparsable_output_names_round_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = script(tmp_path, "wps", WPS)
    out = tmp_path / "out"
    status, _, stderr = run_cli(
        capsys, "-o", str(out), "--pi", "throughput,op/s,1,ratio,1", "--env", "GARBAGE_AT=2",
        "-q", "--", sys.executable, str(program), "1000",
    )
    assert status == 4
    assert "round 2 (0-based): cannot parse output line 2, column 1 ('n/a'" in stderr
    assert len(read_csv(out / "rounds.csv")) == 2


def test_timeout_stops_with_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = script(tmp_path, "wps", WPS)
    out = tmp_path / "out"
    status, _, stderr = run_cli(
        capsys, "-o", str(out), "--pi", "throughput,op/s,1,ratio,1", "--env", "HANG_AT=1",
        "--timeout", "2", "-q", "--", sys.executable, str(program), "1000",
    )
    assert status == 4 and "round 1 (0-based): the program did not finish within" in stderr
    assert len(read_csv(out / "rounds.csv")) == 1


def test_ctrl_c_writes_partial_results_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = script(tmp_path, "latency", LATENCY)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = subprocess.Popen(
        [sys.executable, "-m", "pilotstats", "run", "-o", str(out), "--pi", "latency,ms,0",
         "--min-rounds", "15", "--min-subsessions", "10", "--env", "SLEEP=0.1", "-q",
         "--", sys.executable, str(program), "50"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    log = out / "rounds.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "interrupted after" in stderr and "Benchmark session:" in stdout
    session = saved_session(out)
    assert session.n_rounds >= 3 and not session.done
    assert len(read_csv(out / "rounds.csv")) == session.n_rounds
    assert json.loads((out / "summary.json").read_text())["interrupted"] is True
    # Resume the interrupted session: it continues from the saved rounds to the end.
    status, stdout, stderr = run_cli(capsys, "--resume", str(out), "-q", "--yes")
    assert status == 0, stderr
    resumed = saved_session(out)
    assert resumed.done and resumed.n_rounds == 15 and "targets_met" in stdout
    assert resumed.state()["rounds"][:3] == session.state()["rounds"][:3]


def test_baseline_regression_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--pi", "latency,ms,0,ordinary,1", "--min-subsessions", "10", "--min-size", "8",
              "--half-width-percent", "2.5", "-q"]
    base_program = script(tmp_path, "base", LATENCY)
    status, _, stderr = run_cli(capsys, "-o", str(tmp_path / "base_out"), *common,
                                "--", sys.executable, str(base_program), "50")
    assert status == 0, stderr
    baseline = str(tmp_path / "base_out" / "summary.json")
    slower = script(tmp_path, "slower", LATENCY)
    status, stdout, _ = run_cli(capsys, "-o", str(tmp_path / "slow_out"), *common,
                                "--baseline", baseline, "--env", "SHIFT=0.5", "--env", "SEED=1",
                                "--", sys.executable, str(slower), "50")
    assert status == 1 and "REGRESSION: latency ratio" in stdout
    regression = json.loads((tmp_path / "slow_out" / "summary.json").read_text())[
        "regressions"][0]
    assert regression["test"] == "runs" and 1.0 < regression["ci_low"] < regression["ratio"]
    faster = script(tmp_path, "faster", LATENCY)
    status, stdout, _ = run_cli(capsys, "-o", str(tmp_path / "fast_out"), *common,
                                "--baseline", baseline, "--env", "SHIFT=-0.5", "--env", "SEED=2",
                                "--", sys.executable, str(faster), "50")
    assert status == 0 and "vs baseline" in stdout and "REGRESSION" not in stdout


# Each round's success rate varies (run-to-run variation); nothing changes between sessions.
FLAKY = """
import os, random, sys
work = int(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
counter = os.path.join(here, "calls")
calls = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(calls + 1))
rng = random.Random(calls + 1000 * int(os.environ.get("SEED", "0")))
p = min(1.0, max(0.0, rng.gauss(0.8, 0.1)))
for i in range(work):
    print(f"{5.0 + rng.gauss(0, 1):.6f},{int(rng.random() < p)}")
"""


def test_baseline_verdict_uses_run_to_run_variation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The verdict compares the sessions with rounds as runs (compare_runs). The
    # success rate of this program varies from round to round; pooled over 1,500 readings
    # per session, Welch's test calls a chance difference significant (a regression under
    # the previous verdict), the run comparison does not.
    common = ["--pi", "latency,ms,0,ordinary,1", "--pi", "success,,1,binary,0",
              "--higher-is-better", "success", "-q"]
    base = script(tmp_path, "base", FLAKY)
    status, _, stderr = run_cli(capsys, "-o", str(tmp_path / "base_out"), *common,
                                "--", sys.executable, str(base), "50")
    assert status == 0, stderr
    stored = json.loads((tmp_path / "base_out" / "summary.json").read_text())
    assert [len(v) for v in stored["run_values"]["unit_readings"]] == [30, 30]
    new = script(tmp_path, "new", FLAKY)
    status, stdout, stderr = run_cli(
        capsys, "-o", str(tmp_path / "new_out"), *common, "--env", "SEED=10",
        "--baseline", str(tmp_path / "base_out" / "summary.json"),
        "--", sys.executable, str(new), "50")
    summary = json.loads((tmp_path / "new_out" / "summary.json").read_text())
    welch = summary["result"]["unit_readings"][1]["comparison"]
    assert welch["p_value"] < 0.05 and welch["difference"] < 0  # pooled readings: "worse"
    assert status == 0, stderr
    assert "REGRESSION" not in stdout and summary["regressions"] == []
    line = next(x for x in stdout.splitlines() if "rounds as runs: success" in x)
    ratio = float(line.split("ratio ")[1].split(" ")[0])
    low, high = (float(v) for v in line.split("CI [")[1].split("]")[0].split(", "))
    assert low < 1.0 < high and ratio < 1.0
    # the Fieller interval of the two sessions' round-level success rates
    from pilotstats.autocorrelation import compare_runs
    runs = compare_runs([[v] for v in stored["run_values"]["unit_readings"][1]],
                        [[v] for v in summary["run_values"]["unit_readings"][1]])
    assert runs.ratio == pytest.approx(ratio, rel=1e-3) and runs.p_value > 0.05


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--pi", "x,,0"], "give the benchmark command after --"),
        (["--pi", "x,,0", "--", "prog", "%WORK_AMOUNT%"], "-w MIN,MAX is not given"),
        (["--wps", "--", "prog"], "--wps needs -w"),
        (["--", "prog"], "nothing to measure"),
        (["--pi", "x,,zero", "--", "prog"], "column must be a 0-based integer"),
        (["--pi", "x,,0,median", "--", "prog"], "type must be ordinary, ratio or binary"),
        (["-w", "5,1", "--wps", "--", "prog"], "0 < MIN <= MAX"),
        (["--pi", "x,,0", "--env", "NOVALUE", "--", "prog"], "NAME=VALUE"),
        (["--pi", "x,,0", "--baseline", "/nonexistent.json", "--", "prog"], "--baseline"),
        (["--pi", "x,,0", "--baseline", "/dev/zero", "--", "prog"], "not a regular file"),
        (["--pi", "x,,0", "--timeout", "nan", "--", "prog"], "--timeout needs a positive"),
        (["--pi", "x,,0", "--duration-column", "-1", "--", "prog"], "must be >= 0"),
        (["--pi", "x,,0", "--max-duration", "-1", "--", "prog"], "max_duration"),
    ],
)
def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, _, stderr = run_cli(capsys, "-o", str(tmp_path / "out"), *argv)
    assert status == 2 and message in stderr


def test_resume_without_state_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, stderr = run_cli(capsys, "--resume", str(tmp_path))
    assert status == 2 and "no session state to resume" in stderr
    status, _, stderr = run_cli(capsys, "--resume", str(tmp_path), "--", "prog")
    assert status == 2 and "no session state to resume" in stderr
    status, _, stderr = run_cli(capsys, "--resume", str(tmp_path), "--pi", "x,,0")
    assert status == 2 and "do not repeat them (--pi)" in stderr


def test_presets_hold_pilots_values() -> None:
    """Pilot's presets (cli/run_program.cc): autocorrelation limit, CI width in % of the
    mean, subsessions, round threshold. Pilot's widths are full widths; the presets hold
    half widths, so they are compared with half of Pilot's numbers."""
    from pilotstats.cli._run import PRESETS

    expected: dict[str, Any] = {
        "quick": (0.8, 20.0 / 2, 30, 3.0),
        "normal": (0.2, 10.0 / 2, 50, 10.0),
        "strict": (0.1, 10.0 / 2, 200, 20.0),
    }
    for name, values in expected.items():
        preset = PRESETS[name]
        assert (preset["autocorrelation_limit"], preset["half_width_percent"],
                preset["min_subsessions"], preset["min_round_duration"]) == values


def test_readme_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The README's `pilotstats run` example: its bench.py and command, run as written.
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### `pilotstats run`"):]
    program = section[section.index("cat > bench.py <<'EOF'\n") + 23: section.index("\nEOF\n")]
    command = section[section.index("pilotstats run -o results"): section.index(
        "python bench.py 50") + len("python bench.py 50")]
    (tmp_path / "bench.py").write_text(program, encoding="utf-8")
    argv = shlex.split(command.replace("\\\n", " "))[2:]
    argv = [str(tmp_path / "results") if a == "results" else a for a in argv]
    assert argv[-3:] == ["python", "bench.py", "50"]
    argv[-3:-1] = [sys.executable, str(tmp_path / "bench.py")]
    status, stdout, stderr = run_cli(capsys, *argv)
    assert status == 0, stderr
    shown = section[section.index("Benchmark session: "):]
    for line in stdout.splitlines()[:3]:  # the same lines as the README shows
        head = line.split(":")[0]
        assert head in shown, line
    assert "unit_readings[latency]: mean" in stdout  # (its program is unseeded: no values)
