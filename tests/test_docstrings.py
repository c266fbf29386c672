"""House style §5: every public callable has a numpydoc docstring whose documented
parameters match its signature."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

import pilotstats

SUBPACKAGES = ("autocorrelation", "changepoints", "regression", "smoothing")
HEADER = re.compile(r"^(\s*)Parameters\s*\n\s*-{3,}\s*$", re.MULTILINE)
NAME_LINE = re.compile(r"^([*\w][\w, *]*?)\s*(?::.*)?$")


def public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    seen: set[int] = set()
    modules: list[ModuleType] = [pilotstats]
    modules += [getattr(pilotstats, name) for name in SUBPACKAGES]
    for extra in ("io", "session", "analysis", "plotting"):
        module = getattr(pilotstats, extra, None)
        if isinstance(module, ModuleType):
            modules.append(module)
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if isinstance(obj, ModuleType) or id(obj) in seen:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                seen.add(id(obj))
                yield f"{module.__name__}.{name}", obj


def documented_parameters(doc: str) -> list[str] | None:
    doc = inspect.cleandoc(doc)
    match = HEADER.search(doc)
    if match is None:
        return None
    names: list[str] = []
    for line in doc[match.end():].splitlines()[1:]:
        if not line.strip():
            continue
        if not line.startswith(" "):
            if re.match(r"^-{3,}$", line.strip()):
                names.pop()  # the previous line was the next section's title
                break
            parsed = NAME_LINE.match(line)
            if parsed:
                for part in parsed.group(1).split(","):
                    names.append(part.strip().lstrip("*"))
    return names


def signature_parameters(obj: Callable[..., Any]) -> list[str]:
    target = obj.__init__ if inspect.isclass(obj) else obj  # type: ignore[misc]
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters if p not in ("self", "cls")]


CALLABLES = sorted(public_callables())


@pytest.mark.parametrize(("qualified", "obj"), CALLABLES, ids=[q for q, _ in CALLABLES])
def test_public_callable_documented(qualified: str, obj: Callable[..., Any]) -> None:
    doc = inspect.getdoc(obj)
    assert doc and len(doc.strip()) > 20, f"{qualified} has no real docstring"
    if inspect.isclass(obj):
        return
    documented = documented_parameters(doc)
    expected = signature_parameters(obj)
    if not expected:
        return
    assert documented is not None, f"{qualified}: no Parameters section"
    assert documented == expected, f"{qualified}: documented {documented} != signature {expected}"


@pytest.mark.parametrize(
    ("qualified", "obj"),
    [(q, o) for q, o in CALLABLES if inspect.isclass(o)],
    ids=[q for q, o in CALLABLES if inspect.isclass(o)],
)
def test_class_parameters_match_when_documented(qualified: str, obj: type) -> None:
    documented = documented_parameters(inspect.getdoc(obj) or "")
    init_doc = documented_parameters(inspect.getdoc(obj.__init__) or "")  # type: ignore[misc]
    listed = documented if documented is not None else init_doc
    if listed is None:
        return  # dataclass results document Attributes instead
    assert listed == signature_parameters(obj), qualified


EXAMPLES = re.compile(r"^Examples\s*\n-{3,}\s*\n(?P<body>.*?)(?=^\S[^\n]*\n-{3,}\s*$|\Z)",
                      re.MULTILINE | re.DOTALL)


def example_lines(doc: str) -> list[str]:
    """The ``>>>`` lines of the numpydoc ``Examples`` section of ``doc`` (empty if none)."""
    match = EXAMPLES.search(inspect.cleandoc(doc))
    if match is None:
        return []
    return [line for line in match.group("body").splitlines() if line.lstrip().startswith(">>>")]


def test_example_lines_parser() -> None:
    doc = """Summary.

    Examples
    --------
    >>> 1 + 1
    2

    See Also
    --------
    >>> not_an_example
    """
    assert example_lines(doc) == [">>> 1 + 1"]
    assert example_lines("Summary.\n\n>>> 1 + 1\n2\n") == []  # no Examples section


@pytest.mark.parametrize(("qualified", "obj"), CALLABLES, ids=[q for q, _ in CALLABLES])
def test_public_name_has_example(qualified: str, obj: Callable[..., Any]) -> None:
    """Every public function and class (result classes too) shows a runnable example
    in its numpydoc ``Examples`` section; ``tests/test_doctests.py`` runs them."""
    assert example_lines(inspect.getdoc(obj) or ""), f"{qualified}: no Examples section with >>>"


def test_every_public_function_documents_its_complexity() -> None:
    """Every function states its cost (a "Complexity" note or an O(...) bound)."""
    import inspect

    from tests import fuzz_harness as harness

    skipped = {name for name, reason in harness.EXCLUDED.items()
               if reason == "result container" or "pilotstats.session" in reason
               or reason.startswith("a typing.Protocol")}
    skipped |= {"HarnessFormat", "main"} | harness.owned_elsewhere()  # pilotstats.session
    missing = [name for name, obj in harness.public_callables().items()
               if name not in skipped
               and not any(mark in (inspect.getdoc(obj) or "") for mark in ("O(", "Complexity"))]
    assert not missing, f"no complexity documented for {sorted(missing)}"
