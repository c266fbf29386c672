"""Shared helper of the notebook build scripts: a notebook from ``(kind, source)`` cells.

``kind`` is ``"markdown"`` or ``"code"``. The build scripts import this module as a sibling
(``notebooks/`` is on ``sys.path`` when a script runs, and ``tests/notebook_runner.py`` adds
it when it imports a script).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any


def notebook_from_cells(cells: Iterable[tuple[str, str]]) -> Any:
    """Return a Python 3 notebook (without outputs) holding ``cells`` in order."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3", "language": "python"
    }
    for kind, source in cells:
        maker = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        notebook.cells.append(maker(source))
    return notebook


def write_notebook(notebook: Any, name: str) -> Path:
    """Write ``notebook`` as ``notebooks/<name>`` and return the path."""
    import nbformat

    path = Path(__file__).with_name(name)
    nbformat.write(notebook, path)
    return path
