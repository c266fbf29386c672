"""The package's layers, read from the source (docs: *Architecture*).

The import graph is built from every ``import`` statement of every module of
``pilotstats``, the deferred ones inside functions and the ``TYPE_CHECKING`` ones
included. It must have no cycle between modules and no edge from a lower layer to a higher
one. The same walk checks the size limits of the architecture page: no function outside
the kernels longer than 80 lines, no public function with more than 12 parameters.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pilotstats"

#: Layers from the bottom up; a module may import its own layer's modules and lower ones.
#: A prefix names a module or a package with all its modules; the longest prefix wins.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("pilotstats.exceptions", "pilotstats._typing", "pilotstats._config", "pilotstats._version"),
    (
        "pilotstats._validation",
        "pilotstats._stats",
        "pilotstats._protocols",
        "pilotstats._kernels",
        "pilotstats.results",
        "pilotstats._html",
    ),
    ("pilotstats.autocorrelation",),
    ("pilotstats.changepoints", "pilotstats.regression", "pilotstats.smoothing"),
    ("pilotstats.datasets", "pilotstats.io"),
    ("pilotstats.analysis",),
    ("pilotstats.session",),
    ("pilotstats.plotting",),
    (
        "pilotstats.cli",
        "pilotstats.demo",
        "pilotstats._compile",
        "pilotstats.__main__",
        "pilotstats",
    ),
)

#: Packages of one layer that must not import each other (siblings, not a stack).
INDEPENDENT = ("pilotstats.changepoints", "pilotstats.regression", "pilotstats.smoothing")

MAX_FUNCTION_LINES = 80
MAX_PUBLIC_PARAMETERS = 12


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _target(name: str) -> str:
    """The module ``name`` denotes: itself, or the module that defines the attribute."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """(imported module, line) of every import in ``path``, nested ones included."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names = [f"{prefix}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "pilotstats":
                yield _target(name), node.lineno


EDGES = {
    (module, target, line)
    for module, path in MODULES.items()
    for target, line in _imports(module, path)
    if target != module
}


def _layer(module: str) -> tuple[int, str]:
    best = (-1, "")
    for level, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or (
                prefix != "pilotstats" and module.startswith(prefix + ".")
            )  # the top package is a layer of its own, not every module's fallback
            if inside and len(prefix) > len(best[1]):
                best = (level, prefix)
    return best


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if _layer(m)[0] < 0] == []


def test_no_upward_edges() -> None:
    upward = []
    for module, target, line in sorted(EDGES):
        (low, low_prefix), (high, high_prefix) = _layer(module), _layer(target)
        if high > low:
            upward.append(f"{module}:{line} imports {target} (layer {low} -> {high})")
        elif (
            high == low
            and low_prefix != high_prefix
            and {low_prefix, high_prefix} <= set(INDEPENDENT)
        ):
            upward.append(f"{module}:{line} imports sibling {target}")
    assert upward == []


def test_no_submodule_imports_its_own_package() -> None:
    inward = [
        f"{module}:{line} imports {target}"
        for module, target, line in sorted(EDGES)
        if module.startswith(target + ".")
        and target != "pilotstats"
        and not module.endswith(".__main__")  # `python -m package` runs the package
    ]
    assert inward == []


def _cycles() -> list[list[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, target, _ in EDGES:
        if not module.startswith(target + "."):  # a parent package is imported first anyway
            graph[module].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in graph[node]:
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_import_cycles() -> None:
    assert _cycles() == []


def _functions() -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield module, node


def test_functions_fit_on_a_screen() -> None:
    long = [
        f"{module}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for module, node in _functions()
        if not module.startswith("pilotstats._kernels")
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg:
        names.append(args.vararg.arg)
    return len([n for n in names if n not in ("self", "cls")])


def test_public_functions_take_at_most_twelve_parameters() -> None:
    wide = [
        f"{module}.{node.name}: {_parameters(node)} parameters"
        for module, node in _functions()
        if (not node.name.startswith("_") or node.name == "__init__")
        and _parameters(node) > MAX_PUBLIC_PARAMETERS
        and not module.startswith("pilotstats._kernels")
    ]
    assert wide == []


def test_no_test_file_is_named_after_an_issue() -> None:
    named = [p.name for p in Path(__file__).parent.glob("test_*issue*.py")]
    assert named == []


def test_the_walk_reads_deferred_and_relative_imports(tmp_path: Path) -> None:
    """Imports inside functions and relative imports are edges too (else the check is hollow)."""
    source = tmp_path / "mod.py"
    source.write_text(
        "from . import _stats\n"
        "def f():\n"
        "    from pilotstats.analysis._analyze import analyze\n"
        "    import pilotstats.exceptions\n",
        encoding="utf-8",
    )
    found = {target for target, _ in _imports("pilotstats.mod", source)}
    assert found == {"pilotstats._stats", "pilotstats.analysis._analyze", "pilotstats.exceptions"}
