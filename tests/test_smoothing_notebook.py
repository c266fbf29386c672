"""Execute ``notebooks/tokio_sc18.ipynb`` (SC'18 reproduction) when the TOKIO data exist."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "tokio_sc18.ipynb"


def test_notebook_is_built_from_its_script() -> None:
    nbformat = pytest.importorskip("nbformat")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_tokio_sc18", ROOT / "notebooks" / "build_tokio_sc18.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    saved = nbformat.read(NOTEBOOK, as_version=4)
    built = module.build()
    assert [c.source for c in saved.cells] == [c.source for c in built.cells]


@pytest.mark.slow
def test_notebook_executes(datasets_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    tokio = datasets_dir / "tokio"
    if not tokio.is_dir():
        pytest.skip(f"TOKIO data not found at {tokio}")
    monkeypatch.setenv("PILOTSTATS_TOKIO_DIR", str(tokio))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    closing = notebook.cells[-2]
    text = "".join(
        output.get("text", "") for output in closing.get("outputs", [])
    )
    assert "divergence regions" in text and "False" not in text
