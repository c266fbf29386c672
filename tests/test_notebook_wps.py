"""Execute ``notebooks/wps_throughput.ipynb`` with nbclient (a few seconds plus kernel start)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "wps_throughput.ipynb"


def test_notebook_is_current() -> None:
    nbformat = pytest.importorskip("nbformat")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_wps_throughput", ROOT / "notebooks" / "build_wps_throughput.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stored = nbformat.read(NOTEBOOK, as_version=4)
    built = module.build()
    assert [c.source for c in stored.cells] == [c.source for c in built.cells]


@pytest.mark.slow
def test_notebook_executes(monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    outputs = [
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    ]
    text = "".join(outputs)
    assert "Benchmark session" in text and "WPS throughput" in text
    assert "pilot:" in text and "default:" in text
    images = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert images, "the fit plot was not produced"
