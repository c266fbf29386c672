"""The package ``pilotstats``: import hygiene, lazy subpackages, public names."""

from __future__ import annotations

import subprocess
import sys

import pytest

import pilotstats


def run_python(code: str, env: dict[str, str] | None = None) -> str:
    import os

    environment = dict(os.environ)
    environment.update(env or {})
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env=environment,
    )
    return completed.stdout.strip()


def test_import_is_light() -> None:
    """``import pilotstats`` loads neither numba nor the heavy optional stacks."""
    heavy = ("numba", "pandas", "matplotlib", "statsmodels", "scipy.stats")
    code = f"import sys, pilotstats; print([m for m in {heavy!r} if m in sys.modules])"
    assert run_python(code) == "[]"


def test_lazy_subpackages_resolve() -> None:
    code = (
        "import pilotstats\n"
        "print(pilotstats.smoothing.__name__, pilotstats.analyze.__name__,"
        " pilotstats.BenchmarkSession.__name__, 'io' in dir(pilotstats))"
    )
    assert run_python(code) == "pilotstats.smoothing analyze BenchmarkSession True"
    with pytest.raises(AttributeError, match="no attribute"):
        _ = pilotstats.not_a_name


def test_public_names_resolve() -> None:
    for name in pilotstats.__all__:
        assert getattr(pilotstats, name) is not None
    for module in (pilotstats.autocorrelation, pilotstats.changepoints,
                   pilotstats.regression, pilotstats.smoothing, pilotstats.io,
                   pilotstats.analysis):
        for name in module.__all__:
            assert getattr(module, name) is not None, (module.__name__, name)
