"""The demos: ``pilotstats demo`` and the package demo run; the EDM and WPS demos are
deterministic."""

from __future__ import annotations

from pilotstats.demo._changepoints import demo_edm
from pilotstats.demo._regression import demo_wps


def test_demo_edm() -> None:
    text = demo_edm()
    assert text == demo_edm()
    assert "edm-multi: 3 change points at [30, 93, 339]" in text
    assert "equal to edm: True" in text


def test_demo_runs() -> None:
    from pilotstats.demo import run_demo

    report = run_demo()
    assert "subsession analysis" in report and "95 % CI" in report


def test_cli_demo() -> None:
    from pilotstats.__main__ import main

    assert main(["demo"]) == 0


def test_demo_wps_report() -> None:
    text = demo_wps()
    lines = text.splitlines()
    assert lines[0].startswith("WPS demo: simulated workload")
    assert "stop reason targets_met" in lines[1]
    assert lines[2].startswith("fit: v = ")
    assert "naive" in lines[3]
    assert demo_wps() == text  # deterministic
