"""Every ```python block of README.md runs (each in a fresh namespace)."""

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
