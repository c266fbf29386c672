"""A closed reader (``pilotstats ... | head -1``) ends every subcommand quietly.

Real subprocesses: a reader that has already gone (the deterministic case) for every
subcommand, and real ``| head -1`` pipelines whose output outlives the reader. The
command exits with its own status; nothing says "Broken pipe".
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pilotstats.cli._pipes import QuietPipe
from tests.test_cli import ROOT, write_pyperf

pytestmark = pytest.mark.skipif(shutil.which("head") is None or shutil.which("bash") is None,
                                reason="needs head and bash")

# One line per round on stdout: a reading near 5 (ms).
PROGRAM = "import random; print(f'{5 + random.gauss(0, 0.05):.4f}')\n"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]), "PYTHONWARNINGS": "ignore"}


def _closed_reader(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``pilotstats ARGV`` with its stdout a pipe whose read end is already closed."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "pilotstats", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=_env(), cwd=cwd,
                              timeout=600, check=False)
    finally:
        os.close(write)


def _quiet(stderr: str) -> None:
    assert "Broken pipe" not in stderr and "BrokenPipe" not in stderr, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


def _fleet_csv(path: Path, n_series: int) -> Path:
    rng = np.random.default_rng(0)
    lines = ["test,build,mpps"]
    for series in range(n_series):
        lines += [f"t{series},{build},{10 + rng.normal(0, 0.1):.4f}" for build in range(12)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pipes")
    program = folder / "bench.py"
    program.write_text(PROGRAM)
    series = folder / "s.csv"
    values = np.random.default_rng(1).normal(10, 0.2, 200)
    series.write_text("\n".join(["latency", *(f"{v:.5f}" for v in values)]) + "\n")
    return {"base": write_pyperf(folder / "base.json", 1e-3, seed=1),
            "new": write_pyperf(folder / "new.json", 1.05e-3, seed=2),
            "program": program, "series": series, "fleet": _fleet_csv(folder / "f.csv", 5),
            "big_fleet": _fleet_csv(folder / "big.csv", 400), "folder": folder}


def _commands(inputs: dict[str, Path]) -> dict[str, tuple[list[str], int]]:
    """Every subcommand (warmup and bisect only their help: they compile / need git)."""
    run = ["run", "-o", str(inputs["folder"] / "session"), "--pi", "latency,ms,0",
           "--min-rounds", "5", "--max-rounds", "5", "--min-subsessions", "5", "--",
           sys.executable, str(inputs["program"])]
    return {
        "analyze": (["analyze", str(inputs["base"])], 0),
        "analyze --json": (["analyze", str(inputs["base"]), "--json"], 0),
        "compare": (["compare", str(inputs["base"]), str(inputs["new"])], 1),
        "trend": (["trend", str(inputs["base"]), str(inputs["new"]), "--fail-on-regression"],
                  1),
        "changepoints": (["changepoints", str(inputs["series"]), "--column", "latency"], 0),
        "fleet": (["fleet", str(inputs["fleet"]), "--by", "test", "--order", "build",
                   "--value", "mpps", "--higher-is-better", "--no-progress"], 0),
        "demo": (["demo"], 0),
        "run": (run, 0),
        "compile --help": (["compile", "--help"], 0),
        "bisect --help": (["bisect", "--help"], 0),
        "--help": (["--help"], 0),
    }


@pytest.mark.parametrize("name", ["analyze", "analyze --json", "compare", "trend",
                                  "changepoints", "fleet", "demo", "run", "compile --help",
                                  "bisect --help", "--help"])
def test_reader_gone_every_subcommand(name: str, inputs: dict[str, Path]) -> None:
    argv, status = _commands(inputs)[name]
    if name == "run":
        shutil.rmtree(inputs["folder"] / "session", ignore_errors=True)
    done = _closed_reader(argv, inputs["folder"])
    _quiet(done.stderr)
    assert done.returncode == status, done.stderr
    if name == "run":  # the session still wrote its summary files
        assert (inputs["folder"] / "session" / "summary.json").is_file()


def test_head_1_on_output_larger_than_the_pipe(inputs: dict[str, Path]) -> None:
    """``pilotstats fleet big.csv --json | head -1``: 400 series, far more than the pipe
    holds, so the writer outlives its reader."""
    argv = [sys.executable, "-m", "pilotstats", "fleet", str(inputs["big_fleet"]), "--by",
            "test", "--order", "build", "--value", "mpps", "--higher-is-better",
            "--no-progress", "--json"]
    script = f"{shlex.join(argv)} 2>err.txt | head -1; echo \"${{PIPESTATUS[0]}}\" > status.txt"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=_env(),
                          cwd=inputs["folder"], timeout=600, check=False)
    assert done.stdout == "{\n"
    _quiet((inputs["folder"] / "err.txt").read_text())
    assert (inputs["folder"] / "status.txt").read_text().strip() == "0"


def test_run_progress_into_head_1(inputs: dict[str, Path]) -> None:
    """``pilotstats run ... 2>&1 >summary | head -1``: the progress lines go into ``head``,
    which leaves after the first; the session goes on, writes its files and exits with
    its own status (5: the round limit was reached before the target)."""
    out = inputs["folder"] / "piped"
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, "-m", "pilotstats", "run", "-o", str(out), "--pi", "latency,ms,0",
            "--min-rounds", "12", "--max-rounds", "12", "--min-subsessions", "12",
            "--half-width-percent", "0.001", "--", sys.executable, str(inputs["program"])]
    script = (f"{shlex.join(argv)} 2>&1 >summary.txt | head -1; "
              "echo \"${PIPESTATUS[0]}\" > status.txt")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=_env(),
                          cwd=inputs["folder"], timeout=600, check=False)
    assert done.stdout.startswith("round 1 "), done.stdout
    assert (inputs["folder"] / "status.txt").read_text().strip() == "5"
    assert "Benchmark session: 12 rounds" in (inputs["folder"] / "summary.txt").read_text()
    assert len((out / "rounds.jsonl").read_text().splitlines()) == 12


def test_quiet_pipe_drops_everything_after_the_break() -> None:
    written: list[str] = []

    class Reader:
        gone = False

        def write(self, text: str) -> int:
            if self.gone:
                raise BrokenPipeError(32, "Broken pipe")
            written.append(text)
            return len(text)

        def flush(self) -> None:
            if self.gone:
                raise BrokenPipeError(32, "Broken pipe")

        def isatty(self) -> bool:
            return False

    reader = Reader()
    stream = QuietPipe(reader)
    assert stream.write("one\n") == 4 and not stream.broken
    reader.gone = True
    assert stream.write("two\n") == 4 and stream.broken
    stream.flush()
    reader.gone = False  # nothing is written once the reader was seen gone
    stream.write("three\n")
    assert written == ["one\n"] and stream.isatty() is False
