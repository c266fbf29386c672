"""``notebooks/changepoints.ipynb`` is current and executes (TCPD section when the data exist)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.notebook_runner import (
    assert_notebook_current,
    execute_notebook,
    image_count,
    stream_text,
)


def test_notebook_is_current() -> None:
    assert_notebook_current("changepoints.ipynb", "build_changepoints.py")


@pytest.mark.slow
def test_notebook_executes(data_mirror: dict[str, str]) -> None:
    notebook = execute_notebook("changepoints.ipynb", env=data_mirror)
    text = stream_text(notebook)
    assert "same as batch edm: True" in text
    assert "detect_changes       : ()" in text  # no change on pure noise
    spurious = re.search(r"edm \(percent = 0\.25\) : \(([\d, ]+)\)", text)
    assert spurious is not None  # faithful EDM with percent splits the noise
    # the robust stable phase keeps all of the noise, Pilot's trims a spurious warm-up
    assert re.search(r"noise +robust: keep \[0, 600\) warm-up +0, outcome no_change", text)
    assert re.search(r"noise +pilot : keep \[[1-9]\d*, 600\)", text)
    warmup = re.search(r"warm-up +robust: keep \[(\d+), 600\)", text)
    assert warmup is not None and 20 <= int(warmup.group(1)) <= 100
    if "TCPD nile not available" in text:
        assert image_count(notebook) == 1
    else:
        match = re.search(r"detect_changes +\((\d+),\) +years \[(\d+)\] +F1 = ([\d.]+)", text)
        assert match is not None, text
        assert abs(int(match.group(1)) - 28) <= 2 and float(match.group(3)) >= 0.9
        assert image_count(notebook) == 2


@pytest.mark.slow
def test_notebook_skips_tcpd_cleanly_when_offline(
    tmp_path: Path, offline_data: dict[str, str]
) -> None:
    env = {**offline_data, "PILOTSTATS_DATA_DIR": str(tmp_path)}
    notebook = execute_notebook("changepoints.ipynb", env=env)
    text = stream_text(notebook)
    assert "TCPD nile not available (DatasetDownloadError)" in text and "F1 =" not in text
    assert image_count(notebook) == 1
