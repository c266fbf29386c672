"""Execute notebooks/calibration_tutorial.ipynb with nbclient (issue 6 acceptance)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "calibration_tutorial.ipynb"


def test_calibration_tutorial_notebook_runs() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    text = "\n".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )
    assert "covers the true" in text or "MISSES the true" in text
    assert "F = " in text and "a third queue is needed" in text
    assert "NOT identifiable" in text
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors


def test_notebook_is_up_to_date_with_its_builder(tmp_path: Path) -> None:
    """The committed notebook equals what notebooks/build_calibration_tutorial.py writes."""
    nbformat = pytest.importorskip("nbformat")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_calibration_tutorial", ROOT / "notebooks" / "build_calibration_tutorial.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = nbformat.read(module.build(tmp_path / "nb.ipynb"), as_version=4)
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert [c.source for c in built.cells] == [c.source for c in committed.cells]
