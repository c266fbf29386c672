"""Execute ``notebooks/mdl_trend.ipynb`` (MDL trend groups and compliance) with nbclient."""

from __future__ import annotations

import pytest

from tests.notebook_runner import assert_notebook_current, execute_notebook, stream_text


def test_mdl_notebook_executes() -> None:
    pytest.importorskip("matplotlib")
    notebook = execute_notebook("mdl_trend.ipynb", timeout=300)
    outputs = stream_text(notebook)
    assert "group(s)" in outputs and "long-term change" in outputs
    assert "group means with intervals; MDL trend: newest level" in outputs


def test_notebook_is_built_from_script() -> None:
    assert_notebook_current("mdl_trend.ipynb", "_build_mdl_notebook.py")
