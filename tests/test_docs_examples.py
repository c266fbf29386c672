"""Every ```python block of the documentation pages (docs/**/*.md) runs, each in a fresh
namespace, so the user guides stay in step with the API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(
    p for p in DOCS.rglob("*.md") if "_build" not in p.parts and not p.is_symlink()
)
BLOCKS = [
    (page, index, code)
    for page in PAGES
    for index, code in enumerate(
        re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    )
]


def test_docs_have_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize(
    ("page", "index", "code"),
    BLOCKS,
    ids=[f"{page.relative_to(DOCS)}#{index}" for page, index, _ in BLOCKS],
)
def test_docs_block_runs(
    page: Path, index: int, code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    exec(compile(code, f"{page.name} block {index}", "exec"), {"__name__": "__docs__"})
