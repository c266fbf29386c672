"""Every ```python block of the README fragment docs_fragments/io_cli.md runs.

Same rule as tests/test_readme.py (each block in a fresh namespace), so the section keeps
working once the lead merges it into README.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

FRAGMENT = Path(__file__).resolve().parents[1] / "docs_fragments" / "io_cli.md"
BLOCKS = re.findall(r"```python\n(.*?)```", FRAGMENT.read_text(encoding="utf-8"), re.S)


def test_fragment_has_examples() -> None:
    assert BLOCKS


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_fragment_block_runs(index: int, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    exec(compile(BLOCKS[index], f"io_cli.md block {index}", "exec"), {"__name__": "__doc__"})
    assert "95 % CI" in capsys.readouterr().out
