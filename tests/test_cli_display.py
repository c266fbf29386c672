"""The live display of ``pilotstats run``: it fits the terminal, shows the
fraction done and an ETA, and falls back to plain lines when not on a terminal."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from pilotstats.cli import main
from pilotstats.cli._run_progress import (
    LiveDisplay,
    duration_text,
    progress_line,
    session_eta,
    status_line,
)
from pilotstats.session import BenchmarkSession, RoundLimits
from pilotstats.session._options import options_from_flat
from tests.test_cli_run import LATENCY, saved_session, script

ERASE = "\r\x1b[2K"


class FakeTerminal(io.StringIO):
    """A text stream that says it is a terminal (as a real one does)."""

    def isatty(self) -> bool:
        return True


def _two_index_session(rounds: int, *, seed: int = 0, **options: float) -> BenchmarkSession:
    """Unit readings of a latency (ms) and a 0/1 success flag per round, like the README's
    ``pilotstats run --pi latency,ms,0 --pi ok,,1,binary,0`` example."""
    from pilotstats.session import PerformanceIndex

    rng = np.random.default_rng(seed)
    session = BenchmarkSession(**options_from_flat({
        "max_work": None, "unit_readings_half_width_percent": 0.5, "min_rounds": 10,
        "unit_readings_indices": [PerformanceIndex("latency", unit="ms"),
                                  PerformanceIndex("ok", index_type="binary",
                                                   must_satisfy=False)],
        **options}))
    for _ in range(rounds):
        latency = 5.0 + rng.normal(0, 1.0, 50)
        ok = (rng.random(50) < 0.9).astype(float)
        session.record(None, 0.2, unit_readings=[latency.tolist(), ok.tolist()])
    return session


def _drawn(text: str) -> list[str]:
    """The status lines a terminal shows, one per redraw."""
    assert text.startswith(ERASE) and text.endswith("\n")
    return [part for part in text[:-1].split(ERASE) if part]


@pytest.mark.parametrize("width", [40, 80, 200])
def test_status_line_fits_the_terminal(width: int) -> None:
    session = _two_index_session(12)
    for elapsed in (0.5, 12.0, 3_700.0):
        line = status_line(session, session.result(), elapsed, width)
        assert len(line) <= width - 1, line
        assert re.search(r"\b\d+% ", line) and "ETA " in line, line
    line = status_line(session, session.result(), 2.4, width)
    if width == 200:  # room for everything, in full
        assert re.search(r"latency [45]\.\d+ ms, 95 % CI ±\d\.\d % \(target ±0\.5 %\)", line)
        assert "ok 0.9" in line and "not required" in line
    if width == 80:  # the reported case: two indices in an 80-column terminal
        assert line.startswith("round 12 · 2.4 s · ") and "latency ±" in line
        assert "ok ±" in line
    if width == 40:  # the lagging required index first, the rest counted
        assert line.startswith("r12 ") and ("latency ±" in line or line.endswith(" | +2"))


def test_display_redraws_one_line_in_place() -> None:
    session = _two_index_session(0)
    terminal = FakeTerminal()
    display = LiveDisplay(terminal, width=60)
    rng = np.random.default_rng(3)
    for n in range(1, 16):
        session.record(None, 0.2, unit_readings=[(5 + rng.normal(0, 1, 50)).tolist(),
                                                 [1.0] * 50])
        display.show(session, session.result(), 0.25 * n)
    display.close()
    lines = _drawn(terminal.getvalue())
    assert len(lines) == 15 and all("\n" not in line and len(line) <= 59 for line in lines)
    assert lines[0].startswith(("round 1 ", "r1 ")) and lines[-1].startswith(("round 15", "r15"))


def test_plain_lines_when_not_a_terminal() -> None:
    session = _two_index_session(12)
    log = io.StringIO()
    display = LiveDisplay(log)
    assert not display.tty
    display.show(session, session.result(), 2.4)
    display.close()
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text and text.count("\n") == 1
    assert text == progress_line(session, session.result(), 2.4) + "\n"
    assert "% done, ETA " in text and re.search(r"latency [45]\.\d+ ms", text)


def test_fraction_and_eta_from_targets_and_limits() -> None:
    # targets: the least advanced requirement's fraction of its samples, projected
    session = _two_index_session(12)
    eta = session_eta(session, 6.0)
    assert eta.ended_by == "targets" and eta.fraction == pytest.approx(
        session.progress.fraction)
    assert 0 < eta.fraction < 1 and eta.eta == pytest.approx(6.0 * (1 / eta.fraction - 1))
    # a round limit reached first: 12 of 15 rounds
    limited = _two_index_session(12, max_rounds=15)
    eta = session_eta(limited, 6.0)
    assert eta.ended_by == "max_rounds" and eta.fraction == pytest.approx(0.8)
    assert eta.eta == pytest.approx(1.5)
    assert "(max rounds)" in progress_line(limited, limited.result(), 6.0)
    # a duration limit: 12 rounds of 0.2 s recorded of at most 3 s
    timed = _two_index_session(12, max_duration=3.0)
    eta = session_eta(timed, 6.0)
    assert eta.ended_by == "max_duration" and eta.fraction == pytest.approx(0.8)
    # done: 100 %, nothing left
    finished = _two_index_session(15, max_rounds=15)
    assert finished.done and session_eta(finished, 7.5).fraction == 1.0
    assert session_eta(finished, 7.5).eta == 0.0
    # nothing to project from yet: no interval and no limit
    fresh = BenchmarkSession(max_work=None, limits=RoundLimits(max_rounds=None))
    fresh.record(None, 0.1, readings=[1.0])
    assert session_eta(fresh, 0.1).eta is None and duration_text(None) == "?"


def test_run_on_a_terminal_never_wraps_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pilotstats run`` with two indices, stderr an 80-column terminal."""
    program = script(tmp_path, "latency", LATENCY)
    out = tmp_path / "out"
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "80")
    status = main(["run", "-o", str(out), "--pi", "latency,ms,0,ordinary,1", "--pi",
                   "ok,,1,binary,0", "--min-subsessions", "10", "--min-size", "8",
                   "--max-rounds", "40", "--", sys.executable, str(program), "50"])
    assert status == 0, terminal.getvalue()
    session = saved_session(out)
    text = terminal.getvalue()
    lines = _drawn(text[:text.index("\n") + 1])
    assert len(lines) == session.n_rounds
    assert all(len(line) <= 79 for line in lines), max(lines, key=len)
    assert all("ETA " in line and "% done" in line for line in lines)
    assert "latency ±" in lines[-1] and "100% done" in lines[-1]
    assert "Benchmark session:" in capsys.readouterr().out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pseudo-terminal")
def test_run_in_a_real_pseudo_terminal_of_80_columns(tmp_path: Path) -> None:
    """The same in a real pseudo-terminal (its size set with TIOCSWINSZ, no COLUMNS)."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    program = script(tmp_path, "latency", LATENCY)
    root = str(Path(__file__).resolve().parents[1])
    argv = [sys.executable, "-m", "pilotstats", "run", "-o", str(tmp_path / "out"), "--pi",
            "latency,ms,0,ordinary,1", "--pi", "ok,,1,binary,0", "--min-subsessions", "10",
            "--min-size", "8", "--max-rounds", "40", "--", sys.executable, str(program), "50"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: pilotstats on the terminal
        os.environ.pop("COLUMNS", None)
        os.environ["PYTHONPATH"] = root
        os.execv(sys.executable, argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, wait_status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(wait_status) == 0
    text = b"".join(chunks).decode("utf-8", "replace")
    draws = [part.split("\r\n")[0] for part in text.split(ERASE) if part]
    session = saved_session(tmp_path / "out")
    assert len(draws) == session.n_rounds
    assert all(len(line) <= 79 for line in draws), max(draws, key=len)
    assert "100% done" in draws[-1] and "Benchmark session:" in text
