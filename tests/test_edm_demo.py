"""The EDM demo runs and is deterministic."""

from __future__ import annotations

from pilotstats.demo._changepoints import demo_edm


def test_demo_edm() -> None:
    text = demo_edm()
    assert text == demo_edm()
    assert "edm-multi: 3 change points at [30, 93, 339]" in text
    assert "equal to edm: True" in text
