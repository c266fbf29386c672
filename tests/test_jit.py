"""The lazy JIT dispatcher of the kernels (``pilotstats/_kernels/_jit.py``): lazy
compilation, nested calls, the switches."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from pilotstats import _config
from pilotstats._kernels._jit import LazyKernel, kernel, numba_available


def run_python(code: str, env: dict[str, str] | None = None) -> str:
    import os

    environment = dict(os.environ)
    environment.update(env or {})
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env=environment,
    )
    return completed.stdout.strip()


def _triple(x: float) -> float:
    return 3.0 * x


def _uses_triple(values: np.ndarray) -> float:
    total = 0.0
    for value in values:
        total += lazy_triple(value)
    return total


lazy_triple = kernel(_triple)
lazy_uses_triple = kernel(_uses_triple)


def test_kernel_is_lazy_and_nested_calls_compile() -> None:
    fresh = LazyKernel(_triple)
    assert "not compiled" in repr(fresh)
    assert fresh(2.0) == 6.0
    assert "(compiled)" in repr(fresh)
    assert lazy_uses_triple(np.arange(4.0)) == 18.0
    assert lazy_uses_triple.py_func(np.arange(4.0)) == 18.0


def test_nested_calls_use_a_dispatcher_without_python_wrapper() -> None:
    assert lazy_uses_triple(np.arange(3.0)) == 9.0
    inner = lazy_triple.nested()
    if not numba_available():
        assert inner is lazy_triple.py_func
        return
    assert inner is not lazy_triple.compiled()
    assert inner.targetoptions["no_cpython_wrapper"] is True  # type: ignore[attr-defined]
    assert lazy_triple.compiled().targetoptions["no_cpython_wrapper"] is False  # type: ignore[attr-defined]
    # its own qualified name keeps the wrapper-less machine code out of the cache entry
    # of the Python-callable dispatcher
    assert inner.py_func.__qualname__ == "_triple.nested"  # type: ignore[attr-defined]
    assert lazy_triple(2.0) == 6.0


def test_python_entry_kernel_compiles_once_for_both_callers() -> None:
    shared = kernel(python_entry=True)(_triple)
    assert shared.nested() is shared.compiled()
    assert shared(2.0) == 6.0


def test_disable_jit_switch_returns_plain_function() -> None:
    code = (
        "import sys, numpy as np\n"
        "from pilotstats._kernels import autocorrelation as k\n"
        "x = np.arange(1.0, 10.0)\n"
        "k.overall_mean(x, False)\n"
        "print(k.overall_mean.compiled() is k.overall_mean.py_func, 'numba' in sys.modules)"
    )
    assert run_python(code, {_config.DISABLE_JIT_ENV: "1"}) == "True False"


def test_missing_numba_falls_back_with_one_warning() -> None:
    code = (
        "import sys, warnings\n"
        "sys.modules['numba'] = None\n"
        "import numpy as np\n"
        "from pilotstats._kernels import autocorrelation as k\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    a = k.overall_mean(np.arange(1.0, 4.0), False)\n"
        "    b = k.block_moments(np.arange(1.0, 9.0), 2, False, 4.5)\n"
        "print(a, len(caught), caught[0].category.__name__)"
    )
    assert run_python(code, {_config.DISABLE_JIT_ENV: ""}) == "2.0 1 PerformanceWarning"
