"""Execute ``notebooks/tokio_sc18.ipynb`` (SC'18 reproduction) against a local mirror of the
TOKIO data (when the shared copies exist)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.notebook_runner import (
    NOTEBOOKS,
    assert_notebook_current,
    cell_text,
    execute_notebook,
    require_datasets,
)


def test_notebook_is_built_from_its_script() -> None:
    assert_notebook_current("tokio_sc18.ipynb", "build_tokio_sc18.py")


@pytest.mark.slow
def test_notebook_executes(datasets_dir: Path, data_mirror: dict[str, str]) -> None:
    """Downloads the TOKIO files from a 127.0.0.1 mirror of the shared copies."""
    require_datasets(datasets_dir, "tokio")
    notebook = execute_notebook(
        "tokio_sc18.ipynb", env=data_mirror,
        timeout=300, cwd=NOTEBOOKS,
    )
    text = cell_text(notebook.cells[-2])  # the closing check of the reproduction
    assert "divergence regions" in text and "False" not in text


@pytest.mark.slow
def test_notebook_runs_offline_on_the_bundled_sample(offline_data: dict[str, str]) -> None:
    """With every download failing (nothing listens at the data URL), the notebook
    runs to its end on the bundled 162-job sample and does not claim the paper's numbers."""
    notebook = execute_notebook("tokio_sc18.ipynb", env=offline_data, timeout=300,
                                cwd=NOTEBOOKS)
    texts = [cell_text(cell) for cell in notebook.cells if cell.cell_type == "code"]
    assert "using the bundled sample" in texts[0]
    assert "bundled sample only" in cell_text(notebook.cells[-2])
