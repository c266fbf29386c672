"""Honest endings of ``pilotstats run`` and its exit-status table.

Every ending has its exit status: targets met (0), limits reached (5, also with ``--wps``),
early stops when the targets cannot be reached (5: rounds too short at the largest work,
a degenerate work range, durations that do not grow with the work). An undetermined
throughput never has a finite bound in ``summary.csv`` or ``summary.json``. Short rounds are
decided by their planned work, and a program that prints nothing can be timed with
``--wps``. The benchmark programs simulate their durations (``--duration-column``), so
nothing depends on live timings except the timing-only session, whose assertions do not.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

import pytest

from pilotstats.cli import main
from pilotstats.session import RoundLimits, WorkPlanner, _endings

ROOT = Path(__file__).resolve().parents[1]

# One line per round: a simulated duration (s) chosen by MODE, then a reading.
PROGRAM = """
import os, random, sys
work = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
here = os.path.dirname(os.path.abspath(__file__))
counter = os.path.join(here, "calls")
calls = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(calls + 1))
rng = random.Random(calls)
mode = os.environ["MODE"]
if mode == "linear":            # t = 0.05 + w / 1e5
    duration = 0.05 + work / 1e5 + rng.gauss(0, 0.002)
elif mode == "uneven":          # every third round runs at twice the speed
    duration = (work / 1e5) * (0.6 if calls % 3 == 0 else 1.2)
elif mode == "short":           # every round 0.1 s whatever the work
    duration = 0.1
elif mode == "decreasing":      # longer work, shorter rounds: no positive slope
    duration = 1.0 - work * 1e-6 + rng.gauss(0, 0.001)
elif mode == "steep":           # only the largest work lasts 3 s
    duration = work / 30
else:                           # fixed rounds of 0.2 s
    duration = 0.2
print(f"{max(duration, 1e-6):.6f},{5.0 + rng.gauss(0, 1):.6f}")
"""


def bench(tmp_path: Path) -> Path:
    folder = tmp_path / "bench"
    folder.mkdir()
    path = folder / "bench.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["run", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def session(capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: str,
            *options: str) -> tuple[int, str, str, Path]:
    out = tmp_path / "out"
    program = bench(tmp_path)
    wps = "-w" in options
    status, stdout, stderr = run_cli(
        capsys, "-o", str(out), "--duration-column", "0", "-q", "--env", f"MODE={mode}",
        *options, "--", sys.executable, str(program), *(["%WORK_AMOUNT%"] if wps else []),
    )
    return status, stdout, stderr, out


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def wps_row(out: Path) -> dict[str, str]:
    return next(row for row in rows(out / "summary.csv") if row["analysis"] == "wps")


def test_targets_met_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, stderr, out = session(
        capsys, tmp_path, "linear", "-w", "100,200000", "--wps", "--min-round-duration", "0.2",
        "--half-width-percent", "5")
    assert status == 0, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ending"] == "targets_met" and summary["exit_status"] == 0
    row = wps_row(out)
    assert float(row["ci_low"]) <= 1e5 <= float(row["ci_high"])


def test_max_rounds_without_targets_exits_5(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, stdout, stderr, out = session(
        capsys, tmp_path, "fixed", "--pi", "latency,ms,1", "--half-width-percent", "0.1",
        "--min-rounds", "5", "--max-rounds", "6")
    assert status == 5, stderr
    assert "targets not met: the session reached --max-rounds 6 while latency" in stderr
    assert "TARGETS NOT MET" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ending"] == "max_rounds" and summary["exit_status"] == 5
    assert len(rows(out / "rounds.csv")) == 6


def test_max_duration_without_targets_exits_5(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, stderr, out = session(
        capsys, tmp_path, "fixed", "--pi", "latency,ms,1", "--max-duration", "0.5")
    assert status == 5 and "--max-duration 0.5 s" in stderr
    assert json.loads((out / "summary.json").read_text())["ending"] == "max_duration"
    assert len(rows(out / "rounds.csv")) == 3  # 3 x 0.2 s reach 0.5 s


def test_wps_limit_reached_exits_5(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, stderr, out = session(
        capsys, tmp_path, "linear", "-w", "100,200000", "--wps", "--min-round-duration", "0.2",
        "--half-width-percent", "0.01", "--max-rounds", "12")
    assert status == 5 and "wps" in stderr
    assert json.loads((out / "summary.json").read_text())["ending"] == "max_rounds"


def test_rounds_too_short_at_max_work_stop_early(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # -w 1,4 and rounds of 0.1 s against the quick preset's 3 s: nothing can ever be used.
    status, _, stderr, out = session(capsys, tmp_path, "short", "-w", "1,4", "--wps")
    assert status == 5, stderr
    assert "stopped early: 3 rounds at the largest work amount (-w MAX = 4)" in stderr
    assert "raise -w MAX or lower --min-round-duration" in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ending"] == "rounds_too_short" and summary["exit_status"] == 5
    assert len(rows(out / "rounds.csv")) == 5  # work 1, 2, 4, 4, 4: not 1,000 rounds
    assert "ShortRoundWarning" not in stderr  # one message, not a warning per round


def test_rounds_too_short_without_work_range_stop_early(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, stderr, out = session(
        capsys, tmp_path, "fixed", "--pi", "latency,ms,1", "--min-round-duration", "1")
    assert status == 5 and "make each round do more work" in stderr
    assert len(rows(out / "rounds.csv")) == 3


def test_degenerate_work_range_stops_early(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Only rounds at -w MAX = 100 last 3 s: every used round has the same work.
    status, _, stderr, out = session(capsys, tmp_path, "steep", "-w", "1,100", "--wps")
    assert status == 5, stderr
    assert "only rounds at the largest work amount (100)" in stderr
    assert json.loads((out / "summary.json").read_text())["ending"] == "work_range_degenerate"
    assert len(rows(out / "rounds.csv")) < 12
    row = wps_row(out)
    assert row["estimate"] == row["ci_low"] == row["ci_high"] == ""


def test_undetermined_throughput_has_no_finite_bound(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, stderr, out = session(
        capsys, tmp_path, "decreasing", "-w", "100,200000", "--wps",
        "--min-round-duration", "0")
    assert status == 5, stderr
    assert "stopped early: the round durations do not grow with the work amount" in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ending"] == "slope_not_positive"
    n_rounds = len(rows(out / "rounds.csv"))
    assert 21 <= n_rounds < 100  # stopped once the slope is known to be <= 0
    row = wps_row(out)
    assert row["estimate"] == row["ci_low"] == row["ci_high"] == ""
    fit = summary["result"]["wps"]
    assert fit["valid"] is False
    assert fit["throughput"] is None and fit["throughput_ci_low"] is None
    assert fit["throughput_ci_high"] is None


def test_short_rounds_are_decided_by_planned_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Every third round runs twice as fast: after the first round that lasts 0.2 s, rounds
    # of at least its work are used even when they ran faster than 0.2 s (a duration rule
    # would drop the fast ones only: a censored sample).
    status, _, stderr, out = session(
        capsys, tmp_path, "uneven", "-w", "100,50000", "--wps", "--min-round-duration", "0.2",
        "--max-rounds", "40", "--half-width-percent", "1")
    assert status in (0, 5), stderr
    table = rows(out / "rounds.csv")
    first_long = next(r for r in table if float(r["duration_s"]) >= 0.2)
    threshold = float(first_long["work"])
    used_fast = [r for r in table if float(r["work"]) >= threshold
                 and float(r["duration_s"]) < 0.2]
    assert used_fast and all(r["short"] == "0" for r in used_fast)
    assert all(r["short"] == "1" for r in table if float(r["work"]) < threshold
               and float(r["duration_s"]) < 0.2)


def test_planner_is_short_uses_planned_work() -> None:
    planner = WorkPlanner(1, 1000, min_round_duration=1.0)
    assert planner.is_short(1, 0.5)
    planner.record(1, 0.5)
    planner.record(2, 1.2)  # the first long enough round: work 2
    assert not planner.is_short(2, 0.8) and not planner.is_short(500, 0.9)
    assert planner.is_short(1, 0.9) and not planner.is_short(1, 1.1)
    assert planner.is_short(500, 0.0)  # a round timed as 0 s is never used
    assert planner.short_rounds == (0,)
    pilot = WorkPlanner(1, 1000, min_round_duration=1.0, method="pilot")
    pilot.record(2, 1.2)
    assert pilot.is_short(500, 0.9)  # Pilot's duration rule, kept for comparison


def test_timing_only_wps_session(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The program prints nothing: the round is timed by its wall-clock duration.
    program = tmp_path / "sleep.py"
    program.write_text("import sys, time\ntime.sleep(float(sys.argv[1]) / 1e4)\n")
    out = tmp_path / "out"
    status, _, stderr = run_cli(
        capsys, "-o", str(out), "-w", "50,1000", "--wps", "--min-round-duration", "0.005",
        "--min-rounds", "10", "--max-rounds", "14", "--half-width-percent", "50", "-q",
        "--", sys.executable, str(program), "%WORK_AMOUNT%")
    assert status in (0, 5), stderr
    assert "printed no data line" not in stderr
    assert len(rows(out / "rounds.csv")) >= 10


def test_wps_needs_a_varying_work_range(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    status, _, stderr = run_cli(capsys, "-o", str(tmp_path / "out"), "-w", "4,4", "--wps",
                                "--", "prog", "%WORK_AMOUNT%")
    assert status == 2 and "--wps needs MIN < MAX" in stderr


def _readme_table() -> dict[str, tuple[str, str]]:
    """Exit status -> (commands, meaning) from the README's table."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### `pilotstats run`"):]
    section = section[section.index("| Exit status |"):]
    table = section[: section.index("\n\n")]
    found = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        found[cells[0]] = (cells[1], cells[2])
    return found


def test_exit_status_table_is_documented_and_used() -> None:
    """The README's table lists exactly the statuses the code returns (checked here
    against the constants; the tests above and test_cli_run_faults.py produce each)."""
    table = _readme_table()
    assert set(table) == {"0", "1", "2", "3", "4", "5", "6", "128 + N"}
    from pilotstats.cli import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR

    codes = {
        "0": _endings.EXIT_OK, "1": _endings.EXIT_REGRESSION, "2": _endings.EXIT_USAGE,
        "3": EXIT_INTERNAL_ERROR, "4": _endings.EXIT_PROGRAM_FAILED,
        "5": _endings.EXIT_TARGETS_NOT_MET, "6": _endings.EXIT_OUT_OF_SPACE,
    }
    assert all(int(key) == value for key, value in codes.items())
    assert EXIT_BAD_INPUT == _endings.EXIT_USAGE
    signals = table["128 + N"][1]
    assert "130" in signals and "143" in signals and "129" in signals
    # Every command uses 0, 2 and 3; 1 only the gating commands; the rest only run.
    assert [status for status, (commands, _) in table.items() if commands == "all"] == [
        "0", "2", "3"]
    assert all(table[status][0] == "`run`" for status in ("4", "5", "6", "128 + N"))
    from pilotstats.cli import _parser

    epilog = str(_parser().epilog)
    assert "0 ok, 1 regression found, 2 bad input or usage, 3 internal error" in epilog
    # The module docstring and --help say the same.
    for text in (_endings.__doc__ or "", _help()):
        for code in ("0", "1", "2", "3", "4", "5", "6", "130", "143", "129"):
            assert re.search(rf"\b{code}\b", text), (code, text[:80])


def _help() -> str:
    from pilotstats.cli import _parser

    parser = _parser()
    action = next(a for a in parser._actions if a.dest == "command")
    choices: dict[str, argparse.ArgumentParser] = action.choices  # type: ignore[assignment]
    return str(choices["run"].description)


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ({"signum": 15, "error": "x", "out_of_space": True, "regressions": True,
          "targets_met": False}, 143),
        ({"signum": None, "error": "x", "out_of_space": True, "regressions": True,
          "targets_met": False}, 4),
        ({"signum": None, "error": None, "out_of_space": True, "regressions": True,
          "targets_met": True}, 6),
        ({"signum": None, "error": None, "out_of_space": False, "regressions": True,
          "targets_met": False}, 1),
        ({"signum": None, "error": None, "out_of_space": False, "regressions": False,
          "targets_met": False}, 5),
        ({"signum": None, "error": None, "out_of_space": False, "regressions": False,
          "targets_met": True}, 0),
    ],
)
def test_exit_status_precedence(statuses: dict[str, object], expected: int) -> None:
    assert _endings.exit_status(**statuses) == expected  # type: ignore[arg-type]


def test_fast_rounds_are_not_censored() -> None:
    """Rounds near the 3 s threshold (t = (0.5 + w / 3e8) x lognormal(0, 0.25), -w up to
    1.2e9, i.e. 4.5 s): a duration rule drops the fast ones (about a quarter of the rounds)
    and overestimates v by about 60 %; deciding by planned work keeps the estimate honest."""
    import numpy as np

    from pilotstats.session import BenchmarkSession

    v_true = 3e8 / np.exp(0.25**2 / 2)  # the slope of the mean duration
    estimates = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        session = BenchmarkSession(
            max_work=1.2e9,
            min_work=1e6,
            autocorrelation_limit=0.8,
            limits=RoundLimits(min_round_duration=3.0, max_rounds=150),
        )
        while not session.done:
            work = session.next_work()
            assert work is not None
            session.record(work, (0.5 + work / 3e8) * np.exp(rng.normal(0, 0.25)))
        result = session.result()
        assert len(result.short_rounds) < 0.15 * result.n_rounds
        assert result.wps is not None and result.wps.valid
        estimates.append(result.wps.throughput)
    assert abs(np.median(estimates) / v_true - 1) < 0.15
