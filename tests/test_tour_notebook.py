"""Execute the tour notebook (nbclient, Agg backend) on the real data bundled in the package."""

from __future__ import annotations

import pytest

from tests.notebook_runner import (
    assert_notebook_current,
    error_outputs,
    execute_notebook,
    stream_text,
)


@pytest.mark.slow
def test_tour_notebook(offline_data: dict[str, str]) -> None:
    """Offline, with nothing beside the repository: the tour needs only bundled data."""
    notebook = execute_notebook("tour.ipynb", env=offline_data)
    assert not error_outputs(notebook)
    text = stream_text(notebook)
    assert "hacc_io_write np=4096" in text and "edm-percent: 7 change points" in text


def test_tour_notebook_is_current() -> None:
    """The committed notebook equals what notebooks/make_tour.py writes."""
    assert_notebook_current("tour.ipynb", "make_tour.py")
