"""Shared helpers to build and execute the notebooks in ``notebooks/`` with nbclient."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: Every notebook test executes its notebook this many times (fresh kernel each time) so that
#: a flaky cell fails CI; ``PILOTSTATS_NOTEBOOK_RUNS=1`` for a quick local run.
NOTEBOOK_RUNS = int(os.environ.get("PILOTSTATS_NOTEBOOK_RUNS", "3"))


def build_from_script(script: str) -> Any:
    """Import ``notebooks/<script>`` and return its ``build()`` notebook."""
    sys.path.insert(0, str(NOTEBOOKS))  # build scripts import their sibling ``_cells``
    try:
        module = load_script(NOTEBOOKS / script)
    finally:
        sys.path.remove(str(NOTEBOOKS))
    return module.build()


def assert_notebook_current(notebook_name: str, script: str) -> None:
    """The committed notebook has exactly the cells its build script produces."""
    nbformat = pytest.importorskip("nbformat")
    stored = nbformat.read(NOTEBOOKS / notebook_name, as_version=4)
    built = build_from_script(script)
    assert [c.source for c in stored.cells] == [c.source for c in built.cells]


def execute_notebook(
    notebook_name: str,
    env: dict[str, str] | None = None,
    timeout: int = 600,
    cwd: Path = ROOT,
) -> Any:
    """Execute a notebook ``NOTEBOOK_RUNS`` times, each in a fresh kernel that imports this
    checkout's pilotstats, and return the last run.

    The kernel runs in ``cwd`` with ``MPLBACKEND=Agg``, this checkout first on
    ``PYTHONPATH`` and the extra ``env`` variables; the test process's environment is
    restored afterwards. A cell that raises in any run fails the test (nbclient's
    ``CellExecutionError``).
    """
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    saved = dict(os.environ)
    python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    os.environ.update({"MPLBACKEND": "Agg", "PYTHONPATH": python_path, **(env or {})})
    try:
        for _ in range(max(NOTEBOOK_RUNS, 1)):
            notebook = nbformat.read(NOTEBOOKS / notebook_name, as_version=4)
            client = nbclient.NotebookClient(
                notebook, timeout=timeout, kernel_name="python3",
                resources={"metadata": {"path": str(cwd)}},
            )
            client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return notebook


def require_datasets(datasets_dir: Path, *names: str) -> None:
    """Skip the calling test unless every ``datasets_dir / name`` folder exists."""
    missing = [name for name in names if not (datasets_dir / name).is_dir()]
    if missing:
        pytest.skip(f"notebook needs {', '.join(missing)} in {datasets_dir}")


def cell_text(cell: Any) -> str:
    """Everything one code cell printed (its stream outputs)."""
    return "".join(
        output.get("text", "")
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )


def stream_text(notebook: Any) -> str:
    """Everything the notebook's code cells printed."""
    return "".join(cell_text(cell) for cell in notebook.cells if cell.cell_type == "code")


def error_outputs(notebook: Any) -> list[Any]:
    """The error outputs of the code cells (empty after a clean run)."""
    return [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


def image_count(notebook: Any) -> int:
    """Number of PNG images among the outputs."""
    return sum(
        "image/png" in output.get("data", {})
        for cell in notebook.cells
        for output in cell.get("outputs", [])
    )
