"""Run the doctests of every pilotstats module (numpydoc ``Examples`` sections).

Each module is one test, so a failure names the module; ``python -m pytest`` runs them all.
Equivalent to ``pytest --doctest-modules pilotstats`` but collected from ``tests/`` so that
the project's ``testpaths`` and CI pick it up.
"""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
import sys

import numpy as np
import pytest

import pilotstats

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(pilotstats.__path__, prefix="pilotstats.")
    if not info.name.endswith("__main__")
)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(str(tmp_path))  # examples that write files write them here
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = finder.find(module, name, globs={"np": np, **vars(module)})
    try:
        for test in tests:
            runner.run(test)
    finally:
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close("all")  # plotting examples must not pile up open figures
    result = runner.summarize(verbose=False)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:  # examples of plot methods open figures; free them per module
        pyplot.close("all")
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"


# That every public name has an Examples section is checked in tests/test_docstrings.py.


def test_every_module_found() -> None:
    assert "pilotstats.io" in MODULES and "pilotstats.cli" in MODULES
    assert os.path.basename(pilotstats.__file__) == "__init__.py"
