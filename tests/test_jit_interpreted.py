"""Interpreted first calls (``pilotstats/_kernels/_jit.py``).

Small first calls of a kernel declared ``interpret=...`` run its pure-Python twin instead
of compiling it; results must be identical bit for bit to the compiled kernel's, so that
the tier a call happens to take never shows in an output (``detect_many`` results equal a
loop whatever the timing of the switch).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pilotstats import _config
from pilotstats._kernels import _jit
from pilotstats._kernels import queueing as kq
from pilotstats._kernels._jit import LazyKernel, numba_available
from pilotstats.session import IndexOptions, IntervalTarget, RoundLimits

ROOT = Path(__file__).resolve().parents[1]
needs_jit = pytest.mark.skipif(
    not numba_available(), reason="the compiled kernels are what the twins are compared with"
)


def _total(x: np.ndarray) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def _inner_py(x: np.ndarray) -> float:
    return float(x[0])


def _outer_py(x: np.ndarray) -> float:
    return _inner(x) + 1.0


_inner = LazyKernel(_inner_py)


@pytest.fixture
def tier_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The interpreted tier with its default budget and limits, nothing spent yet (the test
    suite turns the tier off by default, ``tests/conftest.py``). With the JIT disabled
    every call runs the plain function and there is no tier to test."""
    if not numba_available():
        pytest.skip("the JIT is disabled: every kernel runs as plain Python")
    monkeypatch.setattr(_config, "INTERPRETED_TIER", True)
    monkeypatch.setattr(_jit, "_interpreted_total", 0.0)
    monkeypatch.setattr(_config, "INTERPRETED_KERNEL_BUDGET", 0.5)
    monkeypatch.setattr(_config, "INTERPRETED_TIER_BUDGET", 2.0)
    monkeypatch.setattr(_config, "INTERPRETED_MAX_SIZE",
                        {"linear": 20_000, "quadratic": 1_100, "quadratic_heavy": 500})
    yield


# --- the dispatcher's rules ------------------------------------------------------------


def test_small_first_call_runs_the_twin_and_compiles_nothing(tier_on: None) -> None:
    total = LazyKernel(_total, interpret="linear")
    assert total(np.arange(2000.0)) == 1999000.0
    assert total._compiled is None and total._nested is None
    assert total.interpreted_seconds > 0.0  # charged to its budget


def test_call_above_the_size_limit_compiles(
    tier_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(_config.INTERPRETED_MAX_SIZE, "linear", 8)
    total = LazyKernel(_total, interpret="linear")
    assert total(np.arange(8.0)) == 28.0
    assert total._compiled is None
    spent = total.interpreted_seconds
    assert total(np.arange(9.0)) == 36.0
    assert total._compiled is not None
    assert total.interpreted_seconds == spent  # the compiled call is not charged


@pytest.mark.parametrize("spent", ["kernel", "process"])
def test_spent_budget_compiles(tier_on: None, monkeypatch: pytest.MonkeyPatch, spent: str) -> None:
    total = LazyKernel(_total, interpret="quadratic")
    other = LazyKernel(_total, interpret="linear")
    assert total(np.ones(300)) == 300.0
    assert total._compiled is None
    assert _jit._interpreted_total == total.interpreted_seconds > 0.0
    budget = "INTERPRETED_KERNEL_BUDGET" if spent == "kernel" else "INTERPRETED_TIER_BUDGET"
    monkeypatch.setattr(_config, budget, 1.000001 * total.interpreted_seconds)
    assert total(np.ones(4)) == 4.0  # budget not yet spent: still interpreted
    assert total._compiled is None
    monkeypatch.setattr(_config, budget, total.interpreted_seconds)
    assert total(np.ones(4)) == 4.0
    assert total._compiled is not None
    assert other(np.ones(4)) == 4.0
    # a kernel's budget is its own; the process budget is every kernel's
    assert (other._compiled is None) == (spent == "kernel")
    assert other.interpreted_seconds == 0.0 or spent == "kernel"


@pytest.mark.parametrize("tier", [False, True])
def test_undeclared_kernels_and_tier_off_compile_at_once(
    tier_on: None, monkeypatch: pytest.MonkeyPatch, tier: bool
) -> None:
    monkeypatch.setattr(_config, "INTERPRETED_TIER", tier)
    total = LazyKernel(_total, interpret=None if tier else "linear")
    assert total(np.ones(2)) == 2.0
    assert total._compiled is not None


def test_kernels_called_by_an_interpreted_kernel_run_as_twins(
    tier_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = LazyKernel(_inner_py)  # not interpretable on its own
    monkeypatch.setitem(globals(), "_inner", inner)
    outer = LazyKernel(_outer_py, interpret="linear")
    assert outer(np.array([2.0])) == 3.0
    assert inner._compiled is None and inner._nested is None
    assert not _jit._interpreting.active
    # the twin calls the nested twin directly, without the dispatcher
    assert outer.twin().__globals__["_inner"] is inner.twin() is _inner_py
    assert outer.twin().__code__ is _outer_py.__code__


def test_kernels_whose_cost_is_not_set_by_their_arrays_always_compile(tier_on: None) -> None:
    """The population lattice and the convergence sweeps set the cost of these MVA kernels,
    not their (small) arrays: interpreted, one call could take minutes."""
    assert kq.lattice_mva.interpret is None and kq.schweitzer_mva.interpret is None
    # single-class MVA's arrays hold K (N + 1) elements: a large population compiles
    from pilotstats.regression import mva

    kernel = kq.single_class_mva
    saved = kernel._compiled
    try:
        kernel._compiled = None
        mva(np.array([0.05, 0.01]), 2000, servers=[8, 1], think_time=1.0)
        assert kernel._compiled is not None and kernel.interpreted_seconds == 0.0
    finally:
        kernel._compiled = saved if saved is not None else kernel._compiled


def test_reset_restores_the_size_limits() -> None:
    defaults = dict(_config.INTERPRETED_MAX_SIZE)
    try:
        _config.INTERPRETED_MAX_SIZE["linear"] = 5
        _config.reset()
        assert defaults == _config.INTERPRETED_MAX_SIZE
        _config.INTERPRETED_MAX_SIZE["linear"] = 7  # the default itself is untouched
        _config.reset()
        assert defaults == _config.INTERPRETED_MAX_SIZE
    finally:
        _config.reset()


def test_unknown_cost_class_is_refused() -> None:
    with pytest.raises(ValueError, match="interpret must be one of"):
        LazyKernel(_total, interpret="cubic")  # type: ignore[arg-type]


def test_compile_kernels_compiles_even_with_the_tier_on(
    tier_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pilotstats._compile import compile_kernels

    monkeypatch.setattr(kq.single_class_mva, "_compiled", None)
    report = compile_kernels(["mva"])
    assert report.errors == {}
    assert kq.single_class_mva._compiled is not None
    assert _config.INTERPRETED_TIER is True


# --- the twins equal the compiled kernels, bit for bit ----------------------------------


def _same(a: Any, b: Any) -> bool:
    """Equal bit for bit (arrays by dtype, shape and bytes; floats with their sign)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | np.floating) or isinstance(b, float | np.floating):
        return bool(np.float64(a).tobytes() == np.float64(b).tobytes())
    return bool(a == b)


def _interpretable_kernels() -> set[str]:
    import importlib
    import pkgutil

    import pilotstats._kernels as package

    names = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"pilotstats._kernels.{info.name}")
        for value in vars(module).values():
            if isinstance(value, LazyKernel) and value.interpret is not None:
                names.add(value.__name__)
    return names


def _workload() -> None:
    """Every entry point, random series of several shapes, and the options that reach the
    remaining interpretable kernels (permutation test, EDM-tail, sessions, multi-class MVA)."""
    import pilotstats._compile as compile_module
    from pilotstats.autocorrelation import lag1_autocorrelation
    from pilotstats.changepoints import (
        detect_changes,
        edm,
        edm_single,
        mdl_partition,
        stable_phase,
    )
    from pilotstats.regression import mva
    from pilotstats.session import BenchmarkSession

    for entry in compile_module.ENTRY_POINTS.values():
        entry()
    rng = np.random.default_rng(1)
    for trial in range(12):
        n = int(rng.integers(40, 400))
        shape = trial % 6
        if shape == 0:
            x = rng.normal(size=n)
        elif shape == 1:
            x = np.round(rng.normal(10.0, 1.0, n), 1)  # ties
        elif shape == 2:
            x = rng.standard_t(2, n) + np.where(np.arange(n) > n // 3, 3.0, 0.0)
        elif shape == 3:
            x = np.concatenate([np.full(n // 2, 5.0), rng.normal(5.0, 1.0, n - n // 2)])
        elif shape == 4:
            x = 50.0 + np.cumsum(rng.normal(size=n))
        else:
            x = rng.lognormal(size=n) * 1e6
        detect_changes(x)
        stable_phase(x)
        mdl_partition(np.abs(x))
        edm(x)
        edm_single(x)
        edm_single(x, exact=False, tree="paper" if trial % 2 else "reference")
        lag1_autocorrelation(np.abs(x) + 1.0, 1 + trial % 3)
    x = np.concatenate([rng.normal(0.0, 1.0, 80), rng.normal(3.0, 1.0, 80)])
    detect_changes(x, test="permutation", rng=np.random.default_rng(0), n_permutations=199)
    mva(np.array([[0.2, 0.1], [0.3, 0.05]]), [4, 3])
    sessions = (
        (BenchmarkSession(
            readings=IndexOptions(interval=IntervalTarget(half_width_percent=0.2)),
            limits=RoundLimits(min_rounds=3, max_rounds=60),
        ),
         lambda: {"readings": [float(rng.normal(10.0, 0.5))]}),
        (BenchmarkSession(limits=RoundLimits(min_rounds=3, max_rounds=20)),
         lambda: {"unit_readings": rng.normal(5.0, 0.2, 50)}),
    )
    for session, round_data in sessions:
        while not session.done:
            session.record(None, 1.0, **round_data())
        session.result()


@needs_jit
def test_every_interpretable_kernel_equals_its_twin_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Record each top-level call of an interpretable kernel (compiled), replay it on the
    twin (the nested kernels' twins bound in, as in the interpreted tier), and compare the
    return value and every array argument afterwards."""
    monkeypatch.setattr(_config, "INTERPRETED_TIER", False)
    records: list[tuple[LazyKernel[Any, Any], Any, Any, Any]] = []
    call = LazyKernel.__call__

    def recording(self: LazyKernel[Any, Any], *args: Any, **kwargs: Any) -> Any:
        if self.interpret is None or len(records) > 20_000:
            return call(self, *args, **kwargs)
        before = copy.deepcopy((args, kwargs))
        out = call(self, *args, **kwargs)
        records.append((self, before, copy.deepcopy(out), copy.deepcopy(args)))
        return out

    monkeypatch.setattr(LazyKernel, "__call__", recording)
    _workload()
    monkeypatch.undo()
    covered = {k.__name__ for k, *_ in records}
    assert covered == _interpretable_kernels()
    mismatches = []
    for k, (args, kwargs), out, after in records:
        replay = copy.deepcopy(args)
        got = k.twin()(*replay, **copy.deepcopy(kwargs))  # nested kernels as twins too
        arrays_equal = all(
            _same(a, b) for a, b in zip(after, replay, strict=True) if isinstance(a, np.ndarray)
        )
        if not (_same(out, got) and arrays_equal):
            mismatches.append(k.__name__)
    assert mismatches == []


# --- fresh processes ---------------------------------------------------------------------


def _python(code: str, **env: str) -> str:
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    environment.pop("PILOTSTATS_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=environment,
                          capture_output=True, text=True, check=True, timeout=600)
    return done.stdout.strip().splitlines()[-1]


ENTRY_RESULTS = """
    import json, sys, warnings
    warnings.simplefilter("ignore")
    from pilotstats import _config
    _config.INTERPRETED_KERNEL_BUDGET = _config.INTERPRETED_TIER_BUDGET = 60.0  # all of them
    from pilotstats._compile import ENTRY_POINTS
    def plain(result):
        return result.to_dict() if hasattr(result, "to_dict") else result.tolist()
    # amva last: its Schweitzer kernel always compiles
    names = sorted(ENTRY_POINTS, key=lambda name: name == "amva")
    out, imported = {}, False
    for name in names:
        imported = imported or (name == "amva" and "numba" in sys.modules)
        out[name] = plain(ENTRY_POINTS[name]())
    print(json.dumps({"numba": imported, "results": out}, sort_keys=True))
"""


@needs_jit
def test_first_calls_of_a_fresh_process_compile_nothing_and_equal_compiled_results() -> None:
    tiered = json.loads(_python(ENTRY_RESULTS, PILOTSTATS_INTERPRETED_TIER="1"))
    compiled = json.loads(_python(ENTRY_RESULTS, PILOTSTATS_INTERPRETED_TIER="0"))
    assert tiered["numba"] is False  # not even imported (before amva)
    assert compiled["numba"] is True
    assert json.dumps(tiered["results"]) == json.dumps(compiled["results"])


MIXED_BATCH = """
    import json, warnings
    import numpy as np, pandas as pd
    from pandas.testing import assert_frame_equal
    warnings.simplefilter("ignore")
    from pilotstats import _config
    from pilotstats._kernels import edm_dp, mdl
    from pilotstats.analysis import detect_many, trend_many
    _config.INTERPRETED_TIER = True
    _config.INTERPRETED_KERNEL_BUDGET = 0.05  # the switch falls inside the batch
    rng = np.random.default_rng(4)
    frames = []
    for i in range(24):
        x = rng.normal(10.0, 0.2, 300)
        x[150 + i:] += 0.8 * (i % 3 - 1)
        frames.append(pd.DataFrame({"test": f"t{i:02d}", "run": np.arange(300), "v": x}))
    table = pd.concat(frames, ignore_index=True)
    options = dict(by="test", order="run", value="v", workers=2)
    detected, trends = detect_many(table, **options), trend_many(table, **options)
    switched = [k.interpreted_seconds > 0 and k._compiled is not None
                for k in (edm_dp.edm_columns, mdl.mdl_advance)]
    _config.INTERPRETED_TIER = False
    assert_frame_equal(detected, detect_many(table, **options))
    assert_frame_equal(trends, trend_many(table, **options))
    print(json.dumps({"switched": switched, "changes": int(detected["locations"].map(len).sum())}))
"""


@needs_jit
def test_batch_whose_kernels_switch_tier_midway_equals_the_compiled_batch() -> None:
    report = json.loads(_python(MIXED_BATCH))
    assert report["switched"] == [True, True]
    assert report["changes"] >= 10


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", True), ("0", False), ("off", False), ("No", False), (" false ", False), ("1", True),
     ("on", True)],
)
def test_environment_switches_read_on_and_off(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: bool
) -> None:
    monkeypatch.setenv("PILOTSTATS_SOME_SWITCH", value)
    assert _config.env_flag("PILOTSTATS_SOME_SWITCH", default=True) is expected
    monkeypatch.setenv(_config.DISABLE_JIT_ENV, value)
    assert _config.jit_disabled() is (expected and value != "")
