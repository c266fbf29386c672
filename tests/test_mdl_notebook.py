"""Execute ``notebooks/mdl_trend.ipynb`` (MDL trend groups and compliance) with nbclient."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "mdl_trend.ipynb"


def test_mdl_notebook_executes() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    env_backup = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    try:
        client = nbclient.NotebookClient(
            notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": ROOT}}
        )
        client.execute()
    finally:
        if env_backup is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_backup
    outputs = "".join(
        out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )  # fmt: skip
    assert "group(s)" in outputs and "trend change" in outputs
    assert "figure: 4 line sets drawn" in outputs


def test_notebook_is_built_from_script() -> None:
    nbformat = pytest.importorskip("nbformat")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_build_mdl_notebook", ROOT / "notebooks" / "_build_mdl_notebook.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build()
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert [c.source for c in built.cells] == [c.source for c in stored.cells]
