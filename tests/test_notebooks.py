"""Execute the tour notebook (nbclient, Agg backend) on real data from shared/datasets."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.notebook_runner import (
    assert_notebook_current,
    error_outputs,
    execute_notebook,
    require_datasets,
)


@pytest.mark.slow
def test_tour_notebook(datasets_dir: Path) -> None:
    require_datasets(datasets_dir, "tokio", "mongodb_spa")
    notebook = execute_notebook("tour.ipynb", env={"PILOTSTATS_DATASETS": str(datasets_dir)})
    assert not error_outputs(notebook)


def test_tour_notebook_is_current() -> None:
    """The committed notebook equals what notebooks/make_tour.py writes."""
    assert_notebook_current("tour.ipynb", "make_tour.py")
