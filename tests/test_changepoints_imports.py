"""Import structure of ``pilotstats.changepoints``: its modules form a DAG (deferred imports
included) and none imports the package ``__init__``."""

from __future__ import annotations

import ast
from pathlib import Path

import pilotstats.changepoints

PACKAGE = Path(pilotstats.changepoints.__file__).parent
PREFIX = "pilotstats.changepoints"
#: Plot code is owned by the plotting layer, which may import every result module.
EXEMPT = {"_plots"}


def _edges() -> dict[str, set[str]]:
    """Module -> sibling modules (or ``__init__``) it imports, at any depth of the code."""
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                if node.level:
                    names = [node.module]
                elif node.module == PREFIX:
                    names = ["__init__"]
                elif node.module.startswith(PREFIX + "."):
                    names = [node.module[len(PREFIX) + 1:]]
            elif isinstance(node, ast.Import):
                names = [a.name[len(PREFIX) + 1:] or "__init__" for a in node.names
                         if a.name == PREFIX or a.name.startswith(PREFIX + ".")]
            targets.update(name.split(".")[0] for name in names)
        targets.discard(path.stem)
        edges[path.stem] = targets
    return edges


def test_no_submodule_imports_the_package_init() -> None:
    offenders = sorted(m for m, targets in _edges().items()
                       if m != "__init__" and "__init__" in targets)
    assert not offenders


def test_changepoint_modules_form_a_dag() -> None:
    edges = {m: {t for t in targets if t not in EXEMPT}
             for m, targets in _edges().items() if m not in EXEMPT}
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> None:
        if module in done:
            return
        assert module not in path, f"import cycle: {' -> '.join([*path, module])}"
        path.append(module)
        for target in sorted(edges.get(module, ())):
            visit(target)
        path.pop()
        done.add(module)

    for module in sorted(edges):
        visit(module)
