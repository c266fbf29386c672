"""Execute the notebooks in notebooks/ (nbclient, Agg backend); real data from shared/datasets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def execute(name: str, datasets: Path | None) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    env = {"MPLBACKEND": "Agg"}
    if datasets is not None:
        env["PILOTSTATS_DATASETS"] = str(datasets)
    previous = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                         resources={"metadata": {"path": str(ROOT)}})
        client.execute()
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert not errors


@pytest.mark.slow
def test_tour_notebook(datasets_dir: Path) -> None:
    if not (datasets_dir / "tokio").is_dir() or not (datasets_dir / "mongodb_spa").is_dir():
        pytest.skip("tour needs shared/datasets/tokio and shared/datasets/mongodb_spa")
    execute("tour.ipynb", datasets_dir)


def test_tour_notebook_is_current() -> None:
    """The committed notebook equals what notebooks/make_tour.py writes."""
    nbformat = pytest.importorskip("nbformat")
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_tour", NOTEBOOKS / "make_tour.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = nbformat.read(NOTEBOOKS / "tour.ipynb", as_version=4)
    assert [c.source for c in committed.cells] == [c.source for c in module.build().cells]
