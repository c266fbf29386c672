"""Execute notebooks/calibration_tutorial.ipynb with nbclient."""

from __future__ import annotations

import pytest

from tests.notebook_runner import (
    assert_notebook_current,
    error_outputs,
    execute_notebook,
    stream_text,
)


def test_calibration_tutorial_notebook_runs() -> None:
    pytest.importorskip("matplotlib")
    notebook = execute_notebook("calibration_tutorial.ipynb", timeout=300)
    text = stream_text(notebook)
    assert "covers the true" in text or "MISSES the true" in text
    assert "F = " in text and "a third queue is needed" in text
    assert "NOT identifiable" in text
    # The rest of Woodside's workflow
    assert "contours of E are" in text and "agree on" in text
    assert "residuals: trend p" in text and "(TREND)" in text
    assert "label switching" in text and "(fixed)" in text
    assert "on R)" in text and "tutorial form" in text
    assert "utilization law (relative)" in text
    assert "m3" in text and "open system:" in text and "weighted by trial length" in text
    assert not error_outputs(notebook)


def test_notebook_is_up_to_date_with_its_builder() -> None:
    """The committed notebook equals what notebooks/build_calibration_tutorial.py builds."""
    assert_notebook_current("calibration_tutorial.ipynb", "build_calibration_tutorial.py")
