"""Package-wide conventions: import hygiene, the lazy JIT dispatcher, validation, results."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import pilotstats
from pilotstats import _config
from pilotstats._kernels._jit import LazyKernel, kernel, numba_available
from pilotstats._stats import ceil_tol
from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_confidence_level,
    check_int,
    check_real,
    coerce_rng,
)
from pilotstats.exceptions import (
    DegenerateDesignError,
    InvalidInputError,
    NotEnoughDataError,
    PilotStatsError,
    PilotStatsWarning,
    SubsessionSizeNotFoundError,
    UnreachableTargetError,
)
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    format_interval,
    format_quantity,
    json_safe,
)


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


def test_exception_hierarchy() -> None:
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(NotEnoughDataError, ValueError)
    assert issubclass(SubsessionSizeNotFoundError, NotEnoughDataError)
    assert issubclass(DegenerateDesignError, InvalidInputError)
    assert issubclass(UnreachableTargetError, ValueError)
    for error in (InvalidInputError, NotEnoughDataError, UnreachableTargetError):
        assert issubclass(error, PilotStatsError)
    assert issubclass(PilotStatsWarning, UserWarning)


# --- lazy JIT dispatcher -----------------------------------------------------------------


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


def test_config_reset() -> None:
    _config.PARALLEL = False
    _config.reset()
    assert _config.PARALLEL is True


# --- validation --------------------------------------------------------------------------


def test_as_float_array_copies_and_coerces() -> None:
    source = np.array([1, 2, 3], dtype=np.int32)
    out = as_float_array(source)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    out[0] = 99
    assert source[0] == 1
    assert as_float_array([True, False]).tolist() == [1.0, 0.0]
    assert as_float_array(np.array([1.5, 2.5], dtype=object)).tolist() == [1.5, 2.5]


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("text", InvalidInputError, "array of numbers"),
        (3.0, InvalidInputError, "scalar"),
        ([[1, 2], [3]], InvalidInputError, "could not be converted"),
        (np.array(["a"]), InvalidInputError, "real numbers"),
        (np.array([1 + 2j]), InvalidInputError, "real numbers"),
        (np.array([object()], dtype=object), InvalidInputError, "non-numeric"),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), InvalidInputError, "real numbers"),
        ([], NotEnoughDataError, "empty"),
        ([1.0, math.nan], InvalidInputError, "NaN"),
    ],
)
def test_as_float_array_rejects(value: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        as_float_array(value, "data")


def test_as_float_array_ranges() -> None:
    with pytest.raises(InvalidInputError, match="strictly positive"):
        as_float_array([1.0, 0.0], positive=True)
    with pytest.raises(InvalidInputError, match="non-negative"):
        as_float_array([1.0, -1.0], nonnegative=True)
    with pytest.raises(NotEnoughDataError, match="need at least 3"):
        as_float_array([1.0, 2.0], min_length=3)
    assert as_float_array([[1.0, 2.0]], ndim=2).shape == (1, 2)


def test_scalar_checks() -> None:
    assert check_real(2, "a", low=0) == 2.0
    with pytest.raises(InvalidInputError, match=r"a must lie in \(0, 1\]"):
        check_real(0.0, "a", low=0.0, high=1.0, low_inclusive=False)
    with pytest.raises(InvalidInputError, match="finite"):
        check_real(math.inf, "a")
    with pytest.raises(InvalidInputError, match="real number"):
        check_real(True, "a")
    with pytest.raises(InvalidInputError, match=r"did you mean 0\.95"):
        check_confidence_level(95)
    assert check_int(3.0, "k") == 3
    with pytest.raises(InvalidInputError, match="integer"):
        check_int(2.5, "k")
    with pytest.raises(InvalidInputError, match="one of"):
        check_choice("c", "opt", ("a", "b"))
    assert isinstance(coerce_rng(1), np.random.Generator)
    with pytest.raises(InvalidInputError, match="rng"):
        coerce_rng("seed")


def test_ceil_tol() -> None:
    assert ceil_tol(65.0000000001) == 65
    assert ceil_tol(65.001) == 66
    assert ceil_tol(4.0) == 4
    assert ceil_tol(0.0) == 0


# --- results -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _Example(Result):
    value: float
    values: np.ndarray
    nested: dict[str, object]


def test_result_to_dict_is_json_safe() -> None:
    example = _Example(math.inf, np.array([1.0, math.nan]), {"a": np.float64(2.0), 3: (1, 2)})
    data = example.to_dict()
    # issue 13: infinities are encoded losslessly as "inf"/"-inf"; NaN becomes None.
    assert data == {"value": "inf", "values": [1.0, None], "nested": {"a": 2.0, "3": [1, 2]}}
    json.dumps(data, allow_nan=False)
    assert "<table>" in example._repr_html_()
    with pytest.raises(dataclasses.FrozenInstanceError):
        example.value = 1.0  # type: ignore[misc]


def test_formatting() -> None:
    assert format_quantity(0.00123, "s") == "1.23 ms"
    assert format_quantity(12.5, "MB/s") == "12.5 MB/s"
    assert format_interval(0.001, 0.002, 0.95, "s") == "95 % CI [1, 2] ms"
    assert format_interval(1.0, 2.0, 0.99) == "99 % CI [1, 2]"
    assert json_safe(np.int64(3)) == 3 and json_safe(np.bool_(True)) is True
    assert ConfidenceInterval(1.0, 2.0).low == 1.0


def test_demo_runs() -> None:
    from pilotstats.demo import run_demo

    report = run_demo()
    assert "subsession analysis" in report and "95 % CI" in report


def test_cli_demo() -> None:
    from pilotstats.__main__ import main

    assert main(["demo"]) == 0
