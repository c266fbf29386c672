"""Execute ``notebooks/wps_throughput.ipynb`` with nbclient (a few seconds plus kernel start)."""

from __future__ import annotations

import pytest

from tests.notebook_runner import (
    assert_notebook_current,
    execute_notebook,
    image_count,
    stream_text,
)


def test_notebook_is_current() -> None:
    assert_notebook_current("wps_throughput.ipynb", "build_wps_throughput.py")


@pytest.mark.slow
def test_notebook_executes() -> None:
    notebook = execute_notebook("wps_throughput.ipynb", timeout=300)
    text = stream_text(notebook)
    assert "Benchmark session" in text and "WPS throughput" in text
    assert "pilot:" in text and "default:" in text
    assert image_count(notebook) > 0, "the fit plot was not produced"
