"""The demos: ``pilotstats demo`` and the package demo run; the EDM demo is deterministic."""

from __future__ import annotations

from pilotstats.changepoints._demo_edm import demo_edm


def test_demo_edm() -> None:
    text = demo_edm()
    assert text == demo_edm()
    assert "edm-multi: 3 change points at [30, 93, 339]" in text
    assert "equal to edm: True" in text


def test_demo_runs() -> None:
    from pilotstats._demo import run_demo

    report = run_demo()
    assert "subsession analysis" in report and "95 % CI" in report


def test_cli_demo() -> None:
    from pilotstats.__main__ import main

    assert main(["demo"]) == 0
