"""Faults of ``pilotstats run`` sessions, each with real subprocesses.

Torn tail, damaged middle line, full disk, SIGTERM/SIGHUP, concurrent runs, planted
symbolic links and a tampered ``session.json``; and a property test that kills sessions at
random points and resumes them: no round that was complete on disk is ever lost.

The benchmark programs print simulated values seeded by a per-directory call counter, so
no assertion depends on live timings.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# One reading per round (simulated latency around 5); optional sleep, failure and a
# grandchild process that would outlive a careless parent.
PROGRAM = """
import os, random, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
counter = os.path.join(here, "calls")
calls = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(calls + 1))
rng = random.Random(calls)
if calls == int(os.environ.get("FAIL_AT", "-1")):
    sys.exit(3)
hang = calls >= int(os.environ.get("HANG_FROM", "1000000"))
if hang and not os.path.exists(os.path.join(here, "release")):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    open(os.path.join(here, "pids"), "w").write(f"{os.getpid()} {child.pid}")
    time.sleep(60)
time.sleep(float(os.environ.get("SLEEP", "0")))
units = int(os.environ.get("UNITS", "0"))
if units:
    for i in range(units):
        print(f"{5.0 + rng.gauss(0, 1):.6f}")
else:
    print(f"{5.0 + rng.gauss(0, 1):.6f}")
"""


def program(tmp_path: Path, name: str = "bench") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "bench.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def command(out: Path, bench: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "pilotstats", "run", "-o", str(out), "--pi", "latency,ms,0",
            "--min-subsessions", "3", "--half-width-percent", "50", "-q", *options,
            "--", sys.executable, str(bench)]


def run(argv: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env(**extra), capture_output=True, text=True, timeout=180)


def resume(out: Path, *options: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "pilotstats", "run", "--resume", str(out), "-q",
                *options], **extra)


def log_lines(out: Path) -> list[bytes]:
    """The complete lines of ``rounds.jsonl`` (each with its newline)."""
    data = (out / "rounds.jsonl").read_bytes()
    return data.splitlines(keepends=True)[: data.count(b"\n")]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A session that stopped after 4 rounds (its program failed on its fifth call)."""
    base = tmp_path_factory.mktemp("template")
    bench = program(base)
    out = base / "out"
    done = run(command(out, bench, "--min-rounds", "8", "--max-rounds", "8",
                       "--env", "FAIL_AT=4"))
    assert done.returncode == 4, done.stderr
    assert len(log_lines(out)) == 4
    return out, bench


@pytest.fixture
def partial(tmp_path: Path, template: tuple[Path, Path]) -> tuple[Path, Path]:
    """A copy of the template session; its program (shared) no longer fails."""
    out = tmp_path / "out"
    shutil.copytree(template[0], out)
    return out, template[1]


def test_torn_tail_is_reported_and_cut_and_no_round_is_lost(partial: tuple[Path, Path]) -> None:
    out, _ = partial
    before = log_lines(out)
    with open(out / "rounds.jsonl", "ab") as handle:  # a crash in the middle of a write
        handle.write(before[0][:17])
    done = resume(out, "--yes")
    assert done.returncode == 0, done.stderr
    assert "line 5 was cut short by a crash (17 byte(s)" in done.stderr
    after = log_lines(out)
    assert after[:4] == before and len(after) == 8
    assert all(json.loads(line) for line in after)  # every line is a whole round again


def test_complete_last_round_without_newline_is_kept(partial: tuple[Path, Path]) -> None:
    out, _ = partial
    before = log_lines(out)
    data = (out / "rounds.jsonl").read_bytes()
    (out / "rounds.jsonl").write_bytes(data[:-1])  # the crash hit before the newline
    done = resume(out, "--yes")
    assert done.returncode == 0, done.stderr
    assert "line 4 is a complete round without its final newline" in done.stderr
    assert log_lines(out)[:4] == before


def test_damaged_middle_line_is_an_error_naming_it(partial: tuple[Path, Path]) -> None:
    out, _ = partial
    lines = log_lines(out)
    lines[1] = lines[1].replace(b'"duration":', b'"duration":"x",')
    damaged = b"".join(lines)
    (out / "rounds.jsonl").write_bytes(damaged)
    done = resume(out, "--yes")
    assert done.returncode == 2, done.stderr
    assert "rounds.jsonl: line 2 of 4 complete lines is not a valid round" in done.stderr
    assert "Traceback" not in done.stderr
    assert (out / "rounds.jsonl").read_bytes() == damaged  # nothing cut, nothing appended


ENOSPC_AFTER = """
import errno, os, sys
import pilotstats.session._statefiles as files
calls = [0]
original = files._write_all
def full_disk(fd, data):
    if bytes(data).startswith(b'{"work"'):  # an append to rounds.jsonl
        calls[0] += 1
        if calls[0] > int(sys.argv[1]):
            original(fd, bytes(data)[: len(data) // 2])  # a torn write, then the error
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    original(fd, data)
files._write_all = full_disk
from pilotstats.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_full_disk_injected_keeps_rounds_and_exits_6(tmp_path: Path) -> None:
    """ENOSPC injected into the append of the fourth round (a half-written line first)."""
    bench = program(tmp_path)
    out = tmp_path / "out"
    argv = command(out, bench, "--min-rounds", "8", "--max-rounds", "8")[3:]
    done = run([sys.executable, "-c", ENOSPC_AFTER, "3", *argv])
    assert done.returncode == 6, done.stderr
    assert "no space left to save round 3 (0-based)" in done.stderr
    lines = log_lines(out)
    assert len(lines) == 3 and (out / "rounds.jsonl").read_bytes() == b"".join(lines)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exit_status"] == 6 and summary["ending"] == "out_of_space"
    assert summary["result"]["n_rounds"] == 3  # the summary describes what is on disk
    done = resume(out, "--yes")
    assert done.returncode == 0, done.stderr
    assert log_lines(out)[:3] == lines and len(log_lines(out)) == 8


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (needs root and mount); skipped where it cannot be mounted."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the injected ENOSPC test covers the rest)")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_real_full_disk_keeps_rounds_and_exits_6(tmp_path: Path, tiny_tmpfs: Path) -> None:
    bench = program(tmp_path)
    out = tiny_tmpfs / "out"
    done = run(command(out, bench, "--min-rounds", "200", "--max-rounds", "200"), UNITS="400")
    assert done.returncode == 6, done.stderr
    assert "no space left" in done.stderr and "Traceback" not in done.stderr
    data = (out / "rounds.jsonl").read_bytes()
    assert data.endswith(b"\n")  # no torn tail left behind
    kept = [json.loads(line) for line in data.splitlines()]
    assert 1 <= len(kept) < 200
    assert "Benchmark session:" in done.stdout  # the partial summary, printed at least


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return "State:\tZ" in state  # a zombie waiting for its reaper has stopped


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_stops_program_group_and_writes_summary(
    tmp_path: Path, signum: int, status: int
) -> None:
    bench = program(tmp_path)
    out = tmp_path / "out"
    process = subprocess.Popen(
        command(out, bench, "--min-rounds", "20", "--env", "HANG_FROM=3"),
        env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    pids = bench.parent / "pids"
    deadline = time.monotonic() + 120
    while not pids.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == status, stderr
    assert "interrupted after 3 rounds" in stderr and "Benchmark session:" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["exit_status"] == status
    child, grandchild = (int(pid) for pid in pids.read_text().split())
    deadline = time.monotonic() + 30
    while not (_gone(child) and _gone(grandchild)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child) and _gone(grandchild)  # the whole process group was stopped
    assert len(log_lines(out)) == 3 and not (out / "session.lock").exists()


def test_concurrent_runs_fail_and_a_stale_lock_is_taken_over(tmp_path: Path) -> None:
    bench = program(tmp_path)
    out = tmp_path / "out"
    first = subprocess.Popen(
        command(out, bench, "--min-rounds", "20", "--env", "HANG_FROM=2"),
        env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 120
    while not (bench.parent / "pids").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        second = resume(out, "--yes")
        assert second.returncode == 2
        assert "is in use by another pilotstats run (pid" in second.stderr
        assert f"pid {first.pid} on this host" in second.stderr
        fresh = run(command(out, bench))
        assert fresh.returncode == 2 and "in use by another pilotstats run" in fresh.stderr
    finally:
        first.kill()  # SIGKILL: no cleanup, the lock stays behind
        first.communicate(timeout=60)
        child, grandchild = (int(pid) for pid in (bench.parent / "pids").read_text().split())
        for pid in (child, grandchild):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert (out / "session.lock").exists() and len(log_lines(out)) == 2
    (bench.parent / "release").touch()  # the program no longer hangs
    done = resume(out, "--yes")
    assert done.returncode == 0, done.stderr
    assert f"stale lock of pid {first.pid} (no longer running) taken over" in done.stderr
    assert len(log_lines(out)) == 20


@pytest.mark.parametrize("name", ["summary.csv", "rounds.jsonl", "session.json",
                                  "round_results"])
def test_planted_symlinks_are_refused(
    tmp_path: Path, partial: tuple[Path, Path], name: str
) -> None:
    out, _ = partial
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    target = out / name
    if target.is_dir():
        target.rmdir()
    elif target.exists():
        target.unlink()
    target.symlink_to(victim)
    done = resume(out, "--yes")
    assert done.returncode == 2, done.stderr
    assert "is a symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert victim.read_text() == "precious\n"


def test_result_dir_link_is_refused(tmp_path: Path) -> None:
    bench = program(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "round_results").symlink_to(elsewhere)
    done = run([*command(out, bench), "%RESULT_DIR%"])
    assert done.returncode == 2 and "is a symbolic link" in done.stderr
    assert list(elsewhere.iterdir()) == []


def _tamper(out: Path, change: object) -> None:
    saved = json.loads((out / "session.json").read_text())
    if callable(change):
        change(saved)
        (out / "session.json").write_text(json.dumps(saved))
    else:
        (out / "session.json").write_text(str(change))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["run"].__setitem__("program", "touch pwned"),
         "run.program must be a non-empty list of strings"),
        (lambda s: s["run"].__setitem__("env", {"LD_PRELOAD": 1}), "run.env must be"),
        (lambda s: s["run"].__setitem__("extra", 1), "run has unknown field(s) extra"),
        (lambda s: s["session"]["options"].__setitem__("confidence_level", 5),
         "do not form a valid session"),
        (lambda s: s["session"]["options"].__setitem__("min_rounds", "many"),
         "do not form a valid session"),
        (lambda s: s.__setitem__("version", 99), '"version": 1'),
        ("{not json", "is not valid JSON"),
        ("[]", '"version": 1'),
    ],
)
def test_tampered_session_json_is_rejected(
    partial: tuple[Path, Path], change: object, message: str
) -> None:
    out, _ = partial
    _tamper(out, change)
    done = resume(out, "--yes")
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "internal error" not in done.stderr


def test_resume_shows_the_stored_command_and_runs_it_only_when_confirmed(
    tmp_path: Path, partial: tuple[Path, Path]
) -> None:
    out, bench = partial
    pwned = tmp_path / "pwned"
    _tamper(out, lambda s: s["run"].__setitem__("program", ["touch", str(pwned)]))
    done = resume(out)  # no confirmation: shown, not run
    assert done.returncode == 2 and f"command:     touch {pwned}" in done.stderr
    assert "not resumed" in done.stderr and not pwned.exists()
    done = resume(out, "--", sys.executable, str(bench))  # the user's command differs
    assert done.returncode == 2 and "differs from the stored one" in done.stderr
    assert not pwned.exists()
    done = resume(out, "--env", "FAIL_AT=4", "--", "touch", str(pwned), "x")
    assert done.returncode == 2 and not pwned.exists()


def test_resume_env_must_match(partial: tuple[Path, Path]) -> None:
    out, bench = partial
    done = resume(out, "--env", "FAIL_AT=5", "--", sys.executable, str(bench))
    assert done.returncode == 2 and "--env settings given differ" in done.stderr
    done = resume(out, "--", sys.executable, str(bench))  # the stored --env not repeated
    assert done.returncode == 2 and "--env settings given differ" in done.stderr
    done = resume(out, "--env", "FAIL_AT=4", "--", sys.executable, str(bench))
    assert done.returncode == 0, done.stderr


def _holds_lock(out: Path, pid: int) -> bool:
    try:
        return bool(json.loads((out / "session.lock").read_text())["pid"] == pid)
    except (OSError, ValueError, KeyError, TypeError):
        return False


@pytest.mark.slow
def test_no_complete_round_is_lost_across_random_crashes_and_resumes(tmp_path: Path) -> None:
    """Property: kill at random points (SIGKILL, SIGTERM, SIGINT, torn writes), resume;
    every round complete on disk after a crash is still there, in order, at the end."""
    rng = random.Random(2024)
    bench = program(tmp_path)
    out = tmp_path / "out"
    total = 20
    argv = command(out, bench, "--min-rounds", str(total), "--max-rounds", str(total))
    kept: list[bytes] = []
    crashes = torn = 0
    for attempt in range(13):  # 12 runs killed at random points, then one left to finish
        if (out / "session.json").exists():
            argv_now = [sys.executable, "-m", "pilotstats", "run", "--resume", str(out), "-q",
                        "--yes"]
        else:  # killed before its state was written: start afresh
            argv_now = argv
        process = subprocess.Popen(argv_now, env=env(SLEEP="0.4"), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120  # wait until it runs (it holds the lock)
        while process.poll() is None and not _holds_lock(out, process.pid):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        try:
            _, stderr = process.communicate(timeout=rng.uniform(0.0, 2.0) if attempt < 12
                                            else 300)
        except subprocess.TimeoutExpired:
            process.send_signal(rng.choice([signal.SIGKILL, signal.SIGTERM, signal.SIGINT]))
            _, stderr = process.communicate(timeout=120)
            crashes += 1
        # a signal before the handlers are installed (during imports) ends it as usual
        assert process.returncode in (0, 5, 130, 143, -2, -9, -15), stderr
        if not (out / "rounds.jsonl").exists():
            continue
        lines = log_lines(out)
        assert lines[: len(kept)] == kept  # nothing complete on disk was ever dropped
        kept = lines
        if process.returncode in (0, 5):
            break
        if kept and rng.random() < 0.4:  # a crash in the middle of the next append
            with open(out / "rounds.jsonl", "ab") as handle:
                handle.write(kept[-1][: rng.randrange(1, len(kept[-1]) - 1)])
            torn += 1
    assert process.returncode in (0, 5) and crashes >= 6, crashes
    assert len(kept) == total
    assert json.loads((out / "summary.json").read_text())["result"]["n_rounds"] == total
    print(f"{crashes} kills, {torn} torn tails, {len(kept)} rounds, none lost")
