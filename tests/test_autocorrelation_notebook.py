"""``notebooks/autocorrelation.ipynb`` is current and executes."""

from __future__ import annotations

import re

import pytest

from tests.notebook_runner import (
    assert_notebook_current,
    execute_notebook,
    image_count,
    stream_text,
)


def test_notebook_is_current() -> None:
    assert_notebook_current("autocorrelation.ipynb", "build_autocorrelation.py")


@pytest.mark.slow
def test_notebook_executes() -> None:
    notebook = execute_notebook("autocorrelation.ipynb")
    text = stream_text(notebook)
    assert "optimal subsession size: 4" in text
    match = re.search(r"naive (\d+\.\d)%, subsession (\d+\.\d)%", text)
    assert match is not None
    assert float(match.group(1)) < 75.0 < 88.0 < float(match.group(2))
    assert image_count(notebook) == 1
