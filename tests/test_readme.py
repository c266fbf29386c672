"""Every ```python block of README.md runs (each in a fresh namespace); the WPS example
estimates the throughput."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # Files the examples write (figures) go to a temporary folder, not the repository;
    # the examples' relative paths into tests/data still resolve.
    (tmp_path / "tests").symlink_to(README.parent / "tests", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    code = compile(BLOCKS[index], f"README.md block {index}", "exec")
    exec(code, {"__name__": "__readme__"})


def test_readme_wps_example_estimates_throughput() -> None:
    blocks = [
        block
        for block in re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
        if "from pilotstats.regression import wps" in block and "result = wps(" in block
    ]
    assert blocks, "README lost its WPS example"
    namespace: dict[str, object] = {}
    exec(blocks[0], namespace)
    result = namespace["result"]
    assert abs(result.throughput / 2.5e8 - 1) < 0.05  # type: ignore[attr-defined]
    assert result.naive_throughput < 0.1 * result.throughput  # type: ignore[attr-defined]
