"""Bad-value matrix over the public API, run in a watched worker process.

Every public callable named in a module's ``__all__`` is either a :class:`Target` below or
listed in :data:`EXCLUDED` with the reason. Each target has a valid baseline call; the
matrix replaces one argument at a time with a value from :func:`data_values` (array-like
data) or :func:`scalar_values` (keywords), and classifies the outcome:

``named``
    a :class:`~pilotstats.exceptions.PilotStatsError` (the documented answer to bad input);
``answer``
    a result, for a value that may be valid (empty, constant, subnormal, 1e308, ...): the
    result must be JSON-safe (``to_dict`` with ``allow_nan=False``);
``other``
    any other exception type (a defect);
``accepted``
    a result for a value that is invalid by construction (strings, NaN, dicts, complex, ...);
``bad-result``
    a result whose ``to_dict()`` is not JSON-safe;
``non-finite``
    a result holding NaN or an infinity for finite input, in a field the target does not
    document as possibly non-finite;
``mutated``
    the call modified one of its inputs;
``crash`` / ``hang``
    the worker process died, or a call did not finish within the time limit.

Run ``python tests/fuzz_harness.py [--quick]`` for a summary table. The worker protocol
(``--worker``) prints ``BEGIN i`` before and ``END i outcome detail`` after each call, so
the parent can attribute a crash or hang to the call that caused it and resume after it.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import io as _stdio
import json
import math
import os
import queue
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HARNESSES = ROOT / "tests" / "data" / "harnesses"
N = 64
CALL_TIMEOUT = 90.0


class Opaque:
    """An object that is not a number, string or array."""

    def __repr__(self) -> str:
        return "Opaque()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque)

    def __hash__(self) -> int:
        return 0


def _generator(values: list[float]) -> Iterator[float]:
    yield from values


def _base_series(n: int = N, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 1.0 + 0.05 * rng.standard_normal(n)


# ------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------
# Each value is (label, factory, invalid) where ``invalid`` means every public function
# must reject it with a named exception.


def data_values(n: int = N) -> list[tuple[str, Callable[[], Any], bool]]:
    """Bad and edge values for array-like data arguments of length ``n``."""
    base = _base_series(n)
    return [
        ("string", lambda: "abc", True),
        ("None", lambda: None, True),
        ("dict", lambda: {i: float(v) for i, v in enumerate(base)}, True),
        ("generator", lambda: _generator(base.tolist()), True),
        ("set", lambda: set(base.tolist()), True),
        ("complex", lambda: base.astype(complex) + 1j, True),
        ("objects", lambda: [Opaque()] * n, True),
        ("ragged", lambda: [[1.0], [1.0, 2.0]] * (n // 2), True),
        ("2-D", lambda: np.tile(base, (2, 1)), True),
        ("3-D", lambda: np.ones((2, 2, n)), True),
        ("400-digit int", lambda: [10**400] * n, True),
        ("NaN", lambda: np.where(np.arange(n) == n // 2, np.nan, base), True),
        ("+inf", lambda: np.where(np.arange(n) == 3, np.inf, base), True),
        ("-inf", lambda: np.where(np.arange(n) == 3, -np.inf, base), True),
        ("numeric strings", lambda: [str(v) for v in base], True),
        ("datetime64", lambda: np.arange(n).astype("datetime64[s]"), True),
        # Coercions that numpy performs silently
        ("dates", lambda: [datetime.date(2024, 1, 1 + i % 28) for i in range(n)], True),
        ("complex 0j", lambda: base.astype(complex), True),
        ("complex list", lambda: [complex(v, 0.0) for v in base], True),
        ("str array", lambda: base.astype(str), True),
        ("None inside", lambda: [None, *base.tolist()[1:]], True),
        ("bool+str", lambda: [True, "1.0", *base.tolist()[2:]], True),
        ("empty", lambda: np.array([]), False),
        ("one value", lambda: np.array([1.0]), False),
        ("two values", lambda: np.array([1.0, 2.0]), False),
        ("constant", lambda: np.full(n, 0.25), False),
        ("1e308", lambda: base * 1e308 / 1.2, False),
        ("-1e308", lambda: -base * 1e308 / 1.2, False),
        ("subnormal", lambda: base * 5e-320, False),
        ("1e-300..1e300", lambda: np.logspace(-300, 300, n), False),
        ("offset 1e9", lambda: 1e9 + base, False),
        ("negative", lambda: -base, False),
        ("zeros", lambda: np.zeros(n), False),
        ("huge ints", lambda: [2**62 + i for i in range(n)], False),
        ("booleans", lambda: (np.arange(n) % 2).astype(bool), False),
        ("tuple", lambda: tuple(base.tolist()), False),
        ("short", lambda: base[: n // 2], False),
        ("1e-308", lambda: base * 1e-308, False),
        ("object floats", lambda: np.array(base.tolist(), dtype=object), False),
    ]


def scalar_values() -> list[tuple[str, Callable[[], Any], bool]]:
    """Bad and edge values for keyword (scalar) arguments."""
    return [
        ("string", lambda: "abc", True),
        ("'False'", lambda: "False", True),
        ("object", lambda: Opaque(), True),
        ("list", lambda: [1, 2], True),
        ("dict", lambda: {"a": 1}, True),
        ("complex", lambda: 1 + 1j, True),
        ("NaN", lambda: math.nan, True),
        ("400-digit int", lambda: 10**400, True),
        # Numeric strings, dates, complex numbers with no imaginary part and dicts
        # of numbers (whose keys look like data) are not numbers either
        ("'1.5'", lambda: "1.5", True),
        ("date", lambda: datetime.date(2024, 1, 1), True),
        ("complex 0j", lambda: complex(2.0, 0.0), True),
        ("int dict", lambda: {1: "a", 2: "b"}, True),
        ("None", lambda: None, False),
        ("True", lambda: True, False),
        ("+inf", lambda: math.inf, False),
        ("-inf", lambda: -math.inf, False),
        ("-1", lambda: -1, False),
        ("0", lambda: 0, False),
        ("0.5", lambda: 0.5, False),
        ("2**62", lambda: 2**62, False),
        ("2**64", lambda: 2**64, False),
        ("1e308", lambda: 1e308, False),
        ("subnormal", lambda: 5e-324, False),
        ("1e-308", lambda: 1e-308, False),
        ("-1e308", lambda: -1e308, False),
    ]


# ------------------------------------------------------------------------------------
# Targets
# ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Target:
    """One public callable with a valid baseline call.

    ``data`` are positional arguments fuzzed with :func:`data_values`; ``scalars`` are
    positional or keyword arguments fuzzed with :func:`scalar_values` (by name; an int
    names a positional index). ``valid_none``/``free_strings`` list arguments for which
    None, or any string, is a documented valid value. ``quick`` selects the target for the
    fast matrix.
    """

    name: str
    call: Callable[..., Any]
    args: Callable[[], list[Any]]
    kwargs: Callable[[], dict[str, Any]] = dict
    data: tuple[int, ...] = (0,)
    scalars: tuple[str | int, ...] = ()
    valid_none: frozenset[str | int] = frozenset()
    free_strings: frozenset[str | int] = frozenset()
    flags: frozenset[str | int] = frozenset()
    slow: bool = False
    skip_values: frozenset[str] = frozenset()
    valid: frozenset[tuple[str | int, str]] = frozenset()
    nonfinite: frozenset[str] = frozenset()
    note: str = ""


def _measurements() -> Any:
    from pilotstats.io import Measurements

    rng = np.random.default_rng(1)
    return Measurements(0.01 * (1 + 0.05 * rng.standard_normal(120)), benchmark="job")


def _targets() -> list[Target]:
    # Imports inside: the module is imported by pytest collection and must stay cheap.
    import pilotstats as ps
    from pilotstats import (
        analysis,
        autocorrelation,
        changepoints,
        datasets,
        io,
        regression,
        session,
        smoothing,
    )

    def stream(cls: Any, method: str) -> Callable[..., Any]:
        def call(x: Any, **kw: Any) -> Any:
            s = cls(**kw)
            getattr(s, method)(x)
            return s.result()

        call.__name__ = f"{cls.__name__}.{method}"
        return call

    def sub(x: Any) -> Any:
        return autocorrelation.subsession_analysis(x)

    def work() -> np.ndarray:
        return np.tile([1e5, 2e5, 4e5, 8e5], 10).astype(float)

    def durations() -> np.ndarray:
        rng = np.random.default_rng(3)
        w = work()
        return 0.01 + w * 1e-7 * (1 + 0.02 * rng.standard_normal(w.size))

    def times(n: int = N) -> np.ndarray:
        return 1.5e9 + 86400.0 * np.arange(n, dtype=float)

    x = _base_series
    def outcomes() -> np.ndarray:
        return (np.arange(40) % 3 == 0).astype(float)

    # A run of MDL is a number or a sequence of samples; iterators of runs are documented.
    mdl_runs = frozenset({(0, "ragged"), (0, "2-D"), (0, "generator")})
    model = regression.polynomial_model(1)
    cal_u = np.arange(1.0, 9.0)
    cal_y = 2.0 + 3.0 * cal_u + np.random.default_rng(5).normal(0, 0.1, 8)

    targets = [
        # autocorrelation
        Target("subsession_analysis", autocorrelation.subsession_analysis, lambda: [x()],
               scalars=("confidence_level", "autocorrelation_limit", "mean_method",
                        "subsession_size", "unit"),
               valid_none=frozenset({"subsession_size", "unit"}),
               free_strings=frozenset({"unit"})),
        Target("optimal_subsession_size", autocorrelation.optimal_subsession_size,
               lambda: [x()], scalars=("autocorrelation_limit", "mean_method")),
        Target("required_sample_size", autocorrelation.required_sample_size, lambda: [x()],
               kwargs=lambda: {"half_width_percent": 0.5},
               scalars=("half_width_percent", "half_width", "confidence_level",
                        "autocorrelation_limit", "min_subsessions", "method"),
               valid_none=frozenset({"half_width", "half_width_percent"})),
        Target("two_level_analysis", autocorrelation.two_level_analysis,
               lambda: [x().reshape(4, -1)],
               scalars=("summary_statistic", "confidence_level", "autocorrelation_limit",
                        "assume_runs_equivalent", "block_size", "unit"),
               valid_none=frozenset({"block_size", "unit"}), free_strings=frozenset({"unit"}),
               flags=frozenset({"assume_runs_equivalent"}), valid=mdl_runs),
        Target("compare_runs", autocorrelation.compare_runs,
               lambda: [x().reshape(4, -1), 1.1 * x().reshape(4, -1)], data=(0, 1),
               scalars=("summary_statistic", "confidence_level", "autocorrelation_limit",
                        "assume_runs_equivalent", "unit"),
               valid_none=frozenset({"unit"}), free_strings=frozenset({"unit"}),
               flags=frozenset({"assume_runs_equivalent"}),
               valid=mdl_runs | {(1, "ragged"), (1, "2-D"), (1, "generator")}),
        Target("lag1_autocorrelation", autocorrelation.lag1_autocorrelation,
               lambda: [x(), 1],
               scalars=(1, "mean_method")),
        Target("proportion_interval", autocorrelation.proportion_interval,
               lambda: [outcomes()], scalars=("confidence_level", "method")),
        Target("welch_test", autocorrelation.welch_test,
               lambda: [1.0, 0.04, 30, 1.1, 0.05, 25], data=(),
               scalars=(0, 1, 2, 3, 4, 5, "confidence_level", "alternative")),
        Target("welch_degrees_of_freedom", autocorrelation.welch_degrees_of_freedom,
               lambda: [0.04, 30, 0.05, 25], data=(), scalars=(0, 1, 2, 3)),
        Target("required_sample_size_for_comparison",
               autocorrelation.required_sample_size_for_comparison,
               lambda: [98.1, 0.49, 65, 98.4, 0.55, 65], data=(),
               scalars=(0, 1, 2, 3, 4, 5, "significance_level", "subsession_size",
                        "min_subsessions")),
        Target("compare_subsession_means", autocorrelation.compare_subsession_means,
               lambda: [sub(x()), sub(x(N, 1))], data=(),
               scalars=(0, 1, "confidence_level", "alternative"),
               valid_none=frozenset({"confidence_level"})),
        Target("wilson_interval", autocorrelation.wilson_interval,
               lambda: [0.3, 20, 1.96], data=(), scalars=(0, 1, 2)),
        # changepoints
        Target("edm", changepoints.edm, lambda: [x()], kwargs=lambda: {"min_size": 8},
               scalars=("min_size", "beta", "percent", "degree", "scale"),
               valid_none=frozenset({"beta", "percent"})),
        Target("edm_single", changepoints.edm_single, lambda: [x()],
               kwargs=lambda: {"min_size": 8},
               scalars=("min_size", "exact", "alpha", "quantile", "tree"),
               flags=frozenset({"exact"})),
        Target("EdmStream.extend", stream(changepoints.EdmStream, "extend"), lambda: [x()],
               kwargs=lambda: {"min_size": 8},
               scalars=("min_size", "beta", "percent", "degree", "scale"),
               valid_none=frozenset({"beta", "percent"})),
        Target("mdl_partition", changepoints.mdl_partition, lambda: [x()],
               valid=mdl_runs,
               scalars=("resolution", "sbps", "higher_is_better", "nan_policy", "pruning"),
               valid_none=frozenset({"resolution", "sbps"}),
               flags=frozenset({"higher_is_better", "pruning"})),
        Target("MdlStream.extend", stream(changepoints.MdlStream, "extend"), lambda: [x()],
               valid=mdl_runs,
               scalars=("resolution", "sbps", "higher_is_better", "nan_policy", "pruning"),
               valid_none=frozenset({"resolution", "sbps"}),
               flags=frozenset({"higher_is_better", "pruning"})),
        Target("trend_compliance", changepoints.trend_compliance, lambda: [x()],
               valid=mdl_runs,
               scalars=("short_window", "long_window", "higher_is_better", "resolution",
                        "sbps"),
               valid_none=frozenset({"higher_is_better", "resolution", "sbps"}),
               flags=frozenset({"higher_is_better"})),
        Target("dominant_segment", changepoints.dominant_segment, lambda: [[10, 40], 64],
               data=(0,), scalars=(1,)),
        Target("detect_changes", changepoints.detect_changes, lambda: [x()],
               kwargs=lambda: {"min_size": 8, "n_permutations": 19, "rng": 0},
               scalars=("min_size", "significance_level", "test", "n_permutations",
                        "location_tolerance", "variance_changes", "unit", "rng"),
               valid_none=frozenset({"unit", "rng", "variance_changes"}),
               free_strings=frozenset({"unit"}), flags=frozenset({"variance_changes"}),
               valid=frozenset({("rng", "400-digit int"), ("rng", "2**62"), ("rng", "2**64")}),
               slow=True),
        Target("DetectStream.extend", stream(changepoints.DetectStream, "extend"),
               lambda: [x()],
               kwargs=lambda: {"min_size": 8, "n_permutations": 19, "rng": 0},
               scalars=("min_size", "significance_level", "test", "n_permutations",
                        "location_tolerance", "variance_changes", "unit", "rng"),
               valid_none=frozenset({"unit", "rng", "variance_changes"}),
               free_strings=frozenset({"unit"}), flags=frozenset({"variance_changes"}),
               valid=frozenset({("rng", "400-digit int"), ("rng", "2**62"), ("rng", "2**64")}),
               slow=True),
        Target("StablePhaseStream.extend", stream(changepoints.StablePhaseStream, "extend"),
               lambda: [x()],
               kwargs=lambda: {"min_size": 8, "rng": 0},
               scalars=("method", "min_size", "significance_level", "confidence_level",
                        "location_tolerance", "tolerance", "min_steady_fraction",
                        "min_warmup_fraction", "higher_is_better", "unit", "rng"),
               valid_none=frozenset({"unit", "rng"}), free_strings=frozenset({"unit"}),
               flags=frozenset({"higher_is_better"}),
               valid=frozenset({("rng", "400-digit int"), ("rng", "2**62"), ("rng", "2**64")}),
               slow=True),
        Target("stable_phase", changepoints.stable_phase, lambda: [x()],
               kwargs=lambda: {"min_size": 8, "rng": 0},
               scalars=("method", "min_size", "significance_level", "confidence_level",
                        "location_tolerance", "tolerance", "min_steady_fraction",
                        "min_warmup_fraction", "higher_is_better", "unit", "rng"),
               valid_none=frozenset({"unit", "rng"}), free_strings=frozenset({"unit"}),
               flags=frozenset({"higher_is_better"}),
               valid=frozenset({("rng", "400-digit int"), ("rng", "2**62"), ("rng", "2**64")}),
               slow=True),
        Target("stable_phase(equivalence)",
               lambda x, **kw: changepoints.stable_phase(x, method="equivalence", **kw),
               lambda: [x(200)], scalars=("tolerance", "min_steady_fraction",
                                          "min_warmup_fraction", "higher_is_better"),
               flags=frozenset({"higher_is_better"}), slow=True),
        Target("steady_state", changepoints.steady_state,
               lambda: [np.vstack([x(200), x(200)[::-1]])],
               scalars=("tolerance", "min_steady_fraction", "min_warmup_fraction",
                        "max_unsteady_fraction", "higher_is_better", "significance_level",
                        "confidence_level", "unit"),
               valid_none=frozenset({"unit"}), free_strings=frozenset({"unit"}),
               flags=frozenset({"higher_is_better"}), valid=mdl_runs, slow=True),
        # regression
        Target("wps", regression.wps, lambda: [work(), durations()], data=(0, 1),
               scalars=("confidence_level", "autocorrelation_limit", "min_round_duration",
                        "subsession_size", "alpha_filter", "method", "subsession_basis",
                        "unit"),
               valid_none=frozenset({"subsession_size", "method"}),
               free_strings=frozenset({"unit"}), flags=frozenset({"alpha_filter"})),
        Target("WorkPlanner", session.WorkPlanner, lambda: [1.0, 1e6], data=(),
               scalars=(0, 1, "min_round_duration", "integer_work", "confidence_level",
                        "autocorrelation_limit", "unit_readings_min_subsessions", "method",
                        "unit"),
               valid_none=frozenset({"min_round_duration", "method"}),
               free_strings=frozenset({"unit"}),
               flags=frozenset({"integer_work"})),
        Target("RampOptions",
               lambda **kw: session.WorkPlanner(1.0, 1e6, ramp=session.RampOptions(**kw)),
               lambda: [], data=(),
               scalars=("initial_work", "target_initial_time", "initial_rounds",
                        "soft_limit_factor"),
               valid_none=frozenset({"initial_work"})),
        Target("WpsOptions",
               lambda **kw: session.WorkPlanner(1.0, 1e6, wps=session.WpsOptions(**kw)),
               lambda: [], data=(),
               scalars=("enabled", "subsession_basis", "outlier_threshold"),
               valid_none=frozenset({"outlier_threshold"}),
               flags=frozenset({"enabled"})),
        Target("IntervalTarget",
               lambda **kw: session.WorkPlanner(
                   1.0, 1e6, wps=session.WpsOptions(interval=session.IntervalTarget(**kw))),
               lambda: [], data=(),
               scalars=("half_width_percent", "half_width", "min_subsessions"),
               valid_none=frozenset({"half_width_percent", "half_width", "min_subsessions"})),
        Target("work_sequence",
               lambda a, b, **kw: list(__import__("itertools").islice(
                   session.work_sequence(a, b, **kw), 50)),
               lambda: [1.0, 100.0], data=(), scalars=(0, 1, "integer_work"),
               flags=frozenset({"integer_work"})),
        Target("mva", regression.mva, lambda: [[2.0, 3.0, 4.0], 10],
               kwargs=lambda: {"think_time": 10.0},
               scalars=(1, "think_time", "multiserver", "all_populations"),
               flags=frozenset({"all_populations"})),
        Target("amva", regression.amva, lambda: [[2.0, 3.0, 4.0], 10],
               kwargs=lambda: {"think_time": 10.0},
               scalars=(1, "think_time", "tol", "max_iter")),
        Target("seidmann", regression.seidmann, lambda: [[2.0, 3.0, 4.0], 5],
               kwargs=lambda: {"think_time": 10.0, "servers": [1, 2, 4]},
               scalars=(1, "think_time", "all_populations"),
               flags=frozenset({"all_populations"})),
        Target("open_as_closed", regression.open_as_closed, lambda: [[2.0, 3.0, 4.0], 0.2],
               kwargs=lambda: {"population": 1000},
               scalars=(1, "population", "method")),
        Target("thread_pool", regression.thread_pool, lambda: [[2.0, 3.0], 10],
               kwargs=lambda: {"pool_size": 2, "think_time": 10.0},
               scalars=(1, "pool_size", "think_time")),
        Target("ThreadPoolModel", regression.ThreadPoolModel, lambda: [2],
               kwargs=lambda: {"think_time": 10.0}, data=(), scalars=(0, "think_time")),
        Target("ClosedNetworkModel", regression.ClosedNetworkModel, lambda: [3],
               kwargs=lambda: {"think_time": 10.0}, data=(),
               scalars=(0, "classes", "think_time", "multiserver", "solver"),
               valid_none=frozenset({"think_time"})),
        Target("polynomial_model", regression.polynomial_model, lambda: [2], data=(),
               scalars=(0,)),
        Target("PolynomialModel", regression.PolynomialModel, lambda: [2], data=(),
               scalars=(0,)),
        Target("compare_polynomials", regression.compare_polynomials,
               lambda: [cal_u, cal_y], data=(0, 1),
               kwargs=lambda: {"degrees": [1, 2]},
               scalars=("significance_level", "denominator", "weights", "degrees"),
               valid_none=frozenset({"weights"}),
               valid=frozenset({("degrees", "list")})),
        Target("calibrate", regression.calibrate,
               lambda: [model, cal_u, cal_y, [1.0, 1.0]], data=(1, 2, 3),
               scalars=("weights", "confidence_level"),
               valid_none=frozenset({"weights"}), slow=True),
        Target("SolverOptions",
               lambda **kw: regression.calibrate(model, cal_u, cal_y, [1.0, 1.0],
                                                 solver_options=regression.SolverOptions(**kw)),
               lambda: [], data=(), scalars=("max_iter", "fd", "fd_step"),
               valid_none=frozenset({"fd_step"}), slow=True),
        Target("utilization_law_demands", regression.utilization_law_demands,
               lambda: [[0.05, 0.1, 0.15, 0.2], [[0.11, 0.3], [0.19, 0.61], [0.31, 0.9],
                                                 [0.4, 1.19]]],
               data=(0, 1), scalars=("weights", "confidence_level"),
               valid_none=frozenset({"weights", "servers"})),
        Target("open_system_conditions", regression.open_system_conditions,
               lambda: [[0.1, 0.2]], kwargs=lambda: {"population": 100},
               scalars=("population",),
               valid=frozenset({(0, "2-D")}),
               note="a 2-D array is documented valid: one column per class"),
        Target("weights_from_sample_sizes", regression.weights_from_sample_sizes,
               lambda: [[10, 20, 30]], scalars=("relative",),
               flags=frozenset({"relative"})),
        Target("design_diagnostics", regression.design_diagnostics,
               lambda: [model, cal_u, [1.0, 1.0]], data=(1, 2),
               scalars=("fd_step", "max_scaled_condition"),
               valid_none=frozenset({"fd_step", "max_scaled_condition"})),
        # smoothing
        # NaN values are documented as missing observations (ignored by the SMAs, compare
        # as False in crossovers); datetime64 times are documented; a window of None is
        # the documented infinite window (SMA_inf).
        Target("sma", smoothing.sma, lambda: [times(), x(), "7D"], data=(0, 1),
               scalars=(2, "closed"), valid_none=frozenset({2}),
               valid=frozenset({(0, "datetime64"), (1, "NaN")})),
        Target("crossovers", smoothing.crossovers, lambda: [x(), x(N, 2)], data=(0, 1),
               scalars=("min_width",), valid_none=frozenset({"min_width"}),
               valid=frozenset({(0, "NaN"), (1, "NaN"), (0, "+inf"), (1, "+inf"),
                                (0, "-inf"), (1, "-inf")})),
        Target("divergence_regions", smoothing.divergence_regions,
               lambda: [times(), x()], data=(0, 1),
               scalars=("short", "long", "min_observations", "higher_is_better"),
               valid_none=frozenset({"short", "long"}),
               valid=frozenset({(0, "datetime64"), (1, "NaN")}),
               flags=frozenset({"higher_is_better"})),
        # io
        # None is not a value of the per-sample columns (warmup=None was False);
        # omitting the argument gives the default.
        Target("Measurements", io.Measurements, lambda: [x()],
               kwargs=lambda: {"run": np.repeat([0, 1], N // 2),
                               "warmup": np.arange(N) < 4},
               scalars=("work", "run", "warmup", "benchmark"),
               flags=frozenset({"warmup"}), free_strings=frozenset({"benchmark"})),
        Target("Measurements(run=)", lambda r, **kw: io.Measurements(x(), run=r, **kw),
               lambda: [np.repeat([0, 1], N // 2)],
               skip_values=frozenset({"negative", "1e308", "-1e308", "subnormal",
                                      "1e-300..1e300", "offset 1e9", "constant"}),
               note="run ids: integral values only"),
        Target("Measurements(warmup=)", lambda w, **kw: io.Measurements(x(), warmup=w, **kw),
               lambda: [np.arange(N) < 4],
               skip_values=frozenset({"negative", "1e308", "-1e308", "subnormal",
                                      "1e-300..1e300", "offset 1e9", "constant",
                                      "huge ints"}),
               note="warm-up flags: booleans or 0/1 only"),
        Target("Measurements(work=)", lambda w, **kw: io.Measurements(x(), work=w, **kw),
               lambda: [np.full(N, 2.0)]),
        Target("detect_format", io.detect_format, lambda: [{"benchmarks": []}], data=()),
        Target("load", io.load, lambda: ['{"results": [{"command": "a", "times": [1, 2]}]}'],
               data=(0,), scalars=("format", "clock", "time"),
               valid_none=frozenset({"format", "clock", "time"}),
               skip_values=frozenset({"string"}), note="strings are JSON documents/paths"),
        Target("load_many", io.load_many,
               lambda: [['{"results": [{"command": "a", "times": [1, 2]}]}',
                         '{"results": [{"command": "a", "times": [3]}]}']],
               data=(0,), scalars=("format", "clock", "time"),
               valid_none=frozenset({"format", "clock", "time"}),
               skip_values=frozenset({"string"}),
               note="a list of JSON documents/paths; strings are refused as a single source"),
        Target("load_csv", io.load_csv, lambda: ["t\n1\n2\n3\n"], data=(0,),
               kwargs=lambda: {"value_column": "t"},
               scalars=("time_unit", "delimiter"), skip_values=frozenset({"string"})),
        Target("trim_warmup", session.trim_warmup, lambda: [x(), 0.1], scalars=(1,)),
        # analysis
        Target("analyze", analysis.analyze, lambda: [_measurements()], data=(),
               kwargs=lambda: {"detect_warmup": False},
               scalars=(0, "confidence_level", "autocorrelation_limit", "half_width_percent",
                        "detect_warmup", "wps_analysis"),
               flags=frozenset({"detect_warmup", "wps_analysis"})),
        Target("compare", analysis.compare, lambda: [_measurements(), _measurements()],
               data=(), kwargs=lambda: {"detect_warmup": False},
               scalars=(0, 1, "confidence_level", "min_change_percent", "detect_warmup"),
               flags=frozenset({"detect_warmup"})),
        Target("trend", analysis.trend, lambda: [[_measurements(), _measurements()]],
               data=(0,), kwargs=lambda: {"detect_warmup": False},
               scalars=("confidence_level", "detect_warmup"),
               flags=frozenset({"detect_warmup"}),
               skip_values=frozenset({"empty", "one value", "two values", "constant",
                                      "1e308", "-1e308", "subnormal", "1e-300..1e300",
                                      "offset 1e9", "negative", "zeros", "huge ints",
                                      "booleans", "tuple", "short"}),
               note="a sequence of Measurements: numeric data are wrong-typed"),
        # calibration models as functions of (params, conditions) (NaN parameters,
        # numeric strings, dates and complex numbers as conditions)
        Target("PolynomialModel.evaluate_all", model.evaluate_all,
               lambda: [[2.0, 3.0], cal_u], data=(0, 1)),
        Target("ClosedNetworkModel.evaluate_all",
               regression.ClosedNetworkModel(3, think_time=10.0).evaluate_all,
               lambda: [[2.0, 3.0, 4.0], [1, 5, 10]], data=(0, 1),
               skip_values=frozenset({"1e308", "-1e308", "1e-300..1e300", "offset 1e9",
                                      "huge ints", "400-digit int"}),
               note="populations: whole numbers; demands: huge values overflow by design"),
        Target("ThreadPoolModel.evaluate_all",
               regression.ThreadPoolModel(2, think_time=10.0).evaluate_all,
               lambda: [[2.0, 3.0], [1, 5, 10]], data=(0, 1),
               skip_values=frozenset({"1e308", "-1e308", "1e-300..1e300", "offset 1e9",
                                      "huge ints", "400-digit int"})),
        Target("calibrate(ClosedNetworkModel)",
               lambda u, **kw: regression.calibrate(
                   regression.ClosedNetworkModel(1, think_time=1.0), u,
                   [0.5, 0.9, 1.2, 1.4], [1.0], **kw),
               lambda: [[1, 2, 4, 8]], data=(0,),
               skip_values=frozenset({"1e308", "-1e308", "1e-300..1e300", "offset 1e9",
                                      "huge ints", "subnormal", "1e-308", "negative",
                                      "constant", "zeros", "booleans", "short", "empty",
                                      "one value", "two values"}),
               note="conditions: 4 populations (one per measurement)"),
        # batch front-ends: one series through detect_many/trend_many; an error row is
        # raised again as its exception (a raw exception in an error row is a failure)
        Target("detect_many", lambda x, **kw: _single_row(analysis.detect_many, x, **kw),
               lambda: [x(80)], kwargs=lambda: {"min_size": 8, "n_permutations": 19,
                                                "rng": 0, "workers": 1},
               scalars=("higher_is_better", "short_window", "long_window", "workers",
                        "engine", "progress"),
               valid_none=frozenset({"workers", "progress"}),
               flags=frozenset({"higher_is_better", "progress"}), slow=True),
        Target("trend_many", lambda x, **kw: _single_row(analysis.trend_many, x, **kw),
               lambda: [x()], kwargs=lambda: {"workers": 1},
               valid=mdl_runs,
               scalars=("higher_is_better", "short_window", "long_window", "workers",
                        "engine", "progress"),
               valid_none=frozenset({"workers", "progress"}),
               flags=frozenset({"higher_is_better", "progress"})),
        Target("fleet_report",
               lambda **kw: analysis.fleet_report({"a": x(), "b": x(N, 1)}, **kw),
               lambda: [], data=(),
               kwargs=lambda: {"execution": analysis.FleetExecution(workers=1)},
               scalars=("higher_is_better", "short_window", "long_window", "method",
                        "unit"),
               valid_none=frozenset({"unit"}), free_strings=frozenset({"unit"}),
               flags=frozenset({"higher_is_better"})),
        # loaders: a fixture as the baseline; any value in place of the source
        # is read as a path, text, bytes, open file or parsed document, and must give a
        # FormatError (never a raw exception) when it is none of them
        *[Target(name, getattr(io, name), lambda fixture=fixture: [str(HARNESSES / fixture)],
                 note="strings are paths or documents")
          for name, fixture in (("load_hyperfine", "hyperfine.json"),
                                ("load_pyperf", "pyperf_suite.json.gz"),
                                ("load_google_benchmark", "gbench.json"),
                                ("load_jmh", "jmh.json"),
                                ("load_pytest_benchmark", "pytest_benchmark.json"),
                                ("load_asv", "asv_result.json"),
                                ("load_pilot_baseline", "pilot_baseline.csv"))],
        Target("load_asv_history", io.load_asv_history,
               lambda: [str(HARNESSES)], note="a folder without asv results: FormatError"),
        # data sets (bundled files; the downloads are tested against a local server)
        Target("dataset_licence", datasets.dataset_licence, lambda: ["tcpd"], data=(),
               scalars=(0,)),
        Target("tcpd_series", datasets.tcpd_series, lambda: ["jfk_passengers"], data=(),
               scalars=(0,)),
        Target("json_safe", ps.results.json_safe, lambda: [1.0], data=(),
               note="documented to accept anything"),
        Target("decode_float", ps.results.decode_float, lambda: ["inf"], data=(),
               note="documented to return anything but 'inf'/'-inf' unchanged"),
    ]
    del ps
    if os.environ.get("PILOTSTATS_FUZZ_PROBE"):  # self-test of the watchdog
        targets.append(Target("probe", _probe, lambda: [0.5], data=(), scalars=(0,)))
    return targets


def _single_row(function: Callable[..., Any], series: Any, **kwargs: Any) -> Any:
    """The one row of a batch over ``{"s": series}``; its error (if any) raised again as the
    named exception it records, or as RuntimeError when it records a raw exception."""
    import pilotstats.exceptions as named

    frame = function({"s": series}, **kwargs)
    row = frame.iloc[0].to_dict()
    error = row.get("error")
    if error is not None:
        kind, _, message = str(error).partition(": ")
        cls = getattr(named, kind, None)
        if isinstance(cls, type) and issubclass(cls, named.PilotStatsError):
            raise cls(message)
        raise RuntimeError(f"raw exception recorded in the error column: {error}")
    return row


def _probe(value: Any) -> Any:
    """Crashes the interpreter on "abc", hangs on None, returns anything else."""
    if value == "abc":
        import ctypes

        ctypes.string_at(0)  # segmentation fault
    if value is None:
        import time

        time.sleep(3600)
    return value


#: Public callables that are not fuzz targets, with the reason.
EXCLUDED: dict[str, str] = {
    # Result containers: built by pilotstats itself from validated data; their
    # constructors are not input entry points.
    **{name: "result container" for name in (
        "ConfidenceInterval", "SubsessionResult", "WelchResult", "ProportionResult",
        "SampleSizeResult", "ComparisonSampleSizeResult", "ChangePoints", "Segment",
        "SingleChangePoint", "TrendCompliance", "TrendGroup", "TrendGroups",
        "DetectedChangePoints", "StablePhase", "SteadyState", "ForkSteadyState",
        "CalibrationResult", "DesignDiagnostics",
        "ConfidenceRegion", "ResidualDiagnostics", "UtilizationLawResult",
        "SampleSizeWeights",
        "FTestResult", "MvaResult", "NonNestedComparison", "PolynomialComparison",
        "Prediction", "ThreadPoolResult", "WpsPrediction", "WpsResult", "Contributors",
        "Crossovers", "DivergenceAnalysis", "Regions", "BaselineStatistics",
        "PilotBaseline", "PilotBaselineRecord", "AnalysisReport", "BenchmarkAnalysis",
        "BenchmarkComparison", "BenchmarkTrend", "ComparisonReport", "TrendReport",
        "IndexAnalysis", "SessionProgress", "SessionResult", "Baseline",
        "Result", "RunComparison", "TwoLevelPlan", "TwoLevelResult", "PValueResult",
    )},
    # Functions of result objects: they accept only results (type-checked).
    "required_runs": "takes a TwoLevelResult (type-checked); its targets are fuzzed through "
                     "two_level_analysis",
    "f_test": "takes two CalibrationResult objects (type-checked)",
    "compare_non_nested": "takes two CalibrationResult objects (type-checked)",
    # No arguments.
    "binary_outcomes": "no arguments", "ferrari_response_times": "no arguments",
    "speed_of_light": "no arguments",
    # Formatting helpers of results (documented to format any number or None).
    "format_interval": "formatting helper", "format_number": "formatting helper",
    "format_quantity": "formatting helper", "level_text": "formatting helper",
    "time_scale": "formatting helper", "value_scale": "formatting helper",
    # The plot-renderer registry (tests/test_plots.py).
    "draw": "plot-renderer registry", "renders": "plot-renderer registry",
    "registered_renderers": "plot-renderer registry", "plot_doc": "docstring decorator",
    "decode_float_fields": "from_dict helper taking a result class (not user input)",
    # Data sets: no arguments, or downloads (tests/test_datasets.py serves them from a
    # local HTTP server); records of bundled data.
    "tcpd_names": "no arguments", "tokio_sample": "no arguments",
    "mongodb_series": "no arguments",
    "fetch": "download (tests/test_datasets.py, local HTTP server)",
    "tokio_summaries": "download (tests/test_datasets.py, local HTTP server)",
    "TCPDSeries": "result container", "RemoteFile": "result container",
    "FleetReport": "result container",
    # Option objects: checked by the function that takes them (analyze_regions,
    # contributors, fleet_report).
    **{name: "option object" for name in ("RegionOptions", "CorrelationOptions",
                                          "FleetExecution")},
    # Typing protocols.
    "HarnessFormat": "a Literal type alias, not a function",
    "Stream": "a typing.Protocol (tests/test_protocols.py), not a function",
    "ResultCollection": "a typing.Protocol (tests/test_protocols.py), not a function",
    # Loaders over folders of files: tests/test_io.py, tests/test_io_limits.py.
    "load_criterion": "folder loader (test_io: criterion folders)",
    "read_tokio_summaries": "TOKIO CSV loader (test_smoothing_tokio, test_io_limits)",
    # DataFrame pipelines and plots: pandas/matplotlib front-ends, validated by their
    # own test modules (tests/test_smoothing*.py, tests/test_plots.py).
    **{name: "DataFrame pipeline or plot" for name in (
        "analyze_regions", "contributors", "plot_contributor_ranking", "plot_flag_heatmap",
        "plot_sma_difference", "plot_timeline", "plot_umami", "plot_analysis",
        "plot_comparison", "plot_measurements", "plot_trend", "plot_half_width", "to_otava_csv",
        "write_parquet",
    )},
    # Sessions run workloads: their bad rounds are tested in tests/test_session.py.
    "BenchmarkSession": "pilotstats.session: bad rounds in tests/test_session.py",
    "run_session": "pilotstats.session: bad rounds in tests/test_session.py",
    "main": "the CLI: see the CLI matrix in tests/test_cli.py",
}

PUBLIC_MODULES = (
    "pilotstats", "pilotstats.autocorrelation",
    "pilotstats.changepoints", "pilotstats.regression", "pilotstats.smoothing",
    "pilotstats.io", "pilotstats.analysis", "pilotstats.session", "pilotstats.datasets",
    "pilotstats.results", "pilotstats.cli", "pilotstats.plotting",
)


def public_callables() -> dict[str, Any]:
    """Every callable (not a module, exception or constant) in the public ``__all__``s."""
    import importlib
    import inspect

    found: dict[str, Any] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            if isinstance(obj, type) and issubclass(obj, (BaseException, Warning)):
                continue
            found.setdefault(name, obj)
    return found


def owned_elsewhere() -> set[str]:
    """Public callables defined in ``pilotstats.session`` and its private modules (owned by
    the session change)."""
    return {name for name, obj in public_callables().items()
            if f"{getattr(obj, '__module__', '')}.".startswith("pilotstats.session.")}


def target_names() -> set[str]:
    return {t.name.split("(")[0].split(".")[0] for t in _targets()}


# ------------------------------------------------------------------------------------
# Calls
# ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Call:
    target: str
    where: str | int
    value: str
    invalid: bool


def calls(quick: bool = False, only: set[str] | None = None) -> list[Call]:
    """The matrix: one call per (target, argument, value)."""
    out: list[Call] = []
    for t in _targets():
        if only is not None and t.name not in only:
            continue
        if quick and t.slow:
            continue
        out.append(Call(t.name, "baseline", "baseline", False))
        for index in t.data:
            for label, _, invalid in data_values():
                if label in t.skip_values or (quick and not invalid and label not in (
                        "empty", "constant", "1e308")):
                    continue
                if quick and label in ("dates", "complex list", "str array", "bool+str"):
                    continue
                if (label == "None" and index in t.valid_none) or (index, label) in t.valid:
                    invalid = False
                out.append(Call(t.name, index, label, invalid))
        for key in t.scalars:
            for label, _, invalid in scalar_values():
                if quick and label not in ("string", "NaN", "None", "2**62", "'False'",
                                           "'1.5'", "int dict"):
                    continue
                if label in ("string", "'False'", "'1.5'") and key in t.free_strings:
                    continue
                if label == "None":
                    invalid = key not in t.valid_none
                if label == "True":
                    invalid = key not in t.flags
                if label == "'False'" and key not in t.flags:
                    continue
                if (key, label) in t.valid:
                    invalid = False
                out.append(Call(t.name, key, label, invalid))
    return out


def _copy(value: Any) -> Any:
    if isinstance(value, Iterator):
        return None
    try:
        return copy.deepcopy(value)
    except Exception:
        return None


def _equal(a: Any, b: Any) -> bool:
    if a is None:
        return True
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and (np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_equal(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(_equal(a[k], b[k]) for k in a))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(_equal(getattr(a, f.name), getattr(b, f.name))
                   for f in dataclasses.fields(a))
    if type(a).__eq__ is object.__eq__:
        state = getattr(a, "__dict__", None)
        return state is None or _equal(state, b.__dict__)
    try:
        return bool(a == b)
    except Exception:
        return True


def _check_result(result: Any) -> str | None:
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict) and not isinstance(result, type):
        try:
            json.dumps(to_dict(), allow_nan=False)
        except Exception as exc:
            return f"to_dict not JSON-safe: {type(exc).__name__}: {exc}"
    return None


def _nonfinite_fields(value: Any, path: str = "", depth: int = 0) -> list[str]:
    """Paths of the NaN or infinite numbers in a result (fields, tuples, arrays)."""
    if depth > 5:
        return []
    if isinstance(value, (float, np.floating)):
        return [] if math.isfinite(float(value)) else [path or "result"]
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        return [] if bool(np.isfinite(value).all()) else [path or "result"]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found: list[str] = []
        for f in dataclasses.fields(value):
            if not f.name.startswith("_"):  # private state (bounds of options: +/-inf)
                found += _nonfinite_fields(getattr(value, f.name), f.name, depth + 1)
        return found
    if isinstance(value, (tuple, list)):
        found = []
        for item in value[:50]:
            found += _nonfinite_fields(item, path, depth + 1)
        return found
    return []


#: Values for which a non-finite result may be the honest answer.
NONFINITE_INPUTS = frozenset({"+inf", "-inf", "NaN"})

#: Result fields documented to be NaN or infinite for some finite input, by target, with
#: the documentation that says so (``field@value``: only for that fuzz value).
DOCUMENTED_NONFINITE: dict[str, frozenset[str]] = {
    # TwoLevelResult.between_variance / within_variance: "NaN with one run" / "NaN when no
    # run is long enough to estimate it" (runs of fewer than 3 samples)
    **{name: frozenset({"between_variance", "within_variance"})
       for name in ("two_level_analysis", "compare_runs")},
    # SubsessionResult.autocorrelation: "NaN for constant data"
    "subsession_analysis": frozenset({"autocorrelation"}),
    # Segment.std / TrendGroup.std: "NaN when n == 1" / "NaN for a group of one"
    **{name: frozenset({"std"}) for name in ("edm", "EdmStream.extend", "detect_changes",
                                              "DetectStream.extend")},
    **{name: frozenset({"std", "trend_std"}) for name in ("mdl_partition", "MdlStream.extend")},
    **{name: frozenset({"std", "autocorrelation"})
       for name in ("stable_phase", "stable_phase(equivalence)", "StablePhaseStream.extend")},
    # TrendCompliance: reference "NaN when the window is empty", long-term change "NaN when
    # the reference is NaN or 0"
    "trend_compliance": frozenset({"reference", "long_term_change"}),
    # PolynomialComparison.statistic/p_value: "NaN in the last row"
    "compare_polynomials": frozenset({"statistic", "p_value"}),
    # DesignDiagnostics condition numbers: "inf if singular"
    "design_diagnostics": frozenset({"condition_number", "scaled_condition_number"}),
    "calibrate": frozenset({"condition_number", "scaled_condition_number"}),
    # Crossovers.times: "NaN when no times were given"
    "crossovers": frozenset({"times"}),
    # WelchResult: "dof NaN" and t = +/-inf "with zero standard error" (variance 0)
    "welch_test": frozenset({"dof@0", "statistic@0"}),
    # decode_float: "inf" decodes to inf by definition
    "decode_float": frozenset({"result"}),
}


def run_call(call: Call) -> tuple[str, str]:
    """Run one call in this process; return (outcome, detail)."""
    from pilotstats.exceptions import PilotStatsError

    target = {t.name: t for t in _targets()}[call.target]
    args = list(target.args())
    kwargs = dict(target.kwargs())
    if call.where != "baseline":
        pool = data_values() if (isinstance(call.where, int) and call.where in target.data
                                 and call.where not in target.scalars) else scalar_values()
        factory = dict((label, f) for label, f, _ in pool)[call.value]
        if isinstance(call.where, int):
            args[call.where] = factory()
        else:
            kwargs[call.where] = factory()
    before = [_copy(a) for a in args] + [_copy(v) for v in kwargs.values()]
    sink = _stdio.StringIO()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            stdout, sys.stdout = sys.stdout, sink
            try:
                result = target.call(*args, **kwargs)
            finally:
                sys.stdout = stdout
            numpy_noise = [str(w.message) for w in caught
                           if issubclass(w.category, RuntimeWarning)]
    except PilotStatsError as exc:
        outcome, detail = "named", f"{type(exc).__name__}: {exc}"
    except Exception as exc:
        outcome, detail = "other", f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    else:
        problem = _check_result(result)
        documented = target.nonfinite | DOCUMENTED_NONFINITE.get(target.name, frozenset())
        nonfinite = ([] if call.value in NONFINITE_INPUTS or call.invalid else
                     sorted({f for f in _nonfinite_fields(result)
                             if f not in documented and f"{f}@{call.value}" not in documented}))
        if problem:
            outcome, detail = "bad-result", problem
        elif nonfinite:
            outcome, detail = "non-finite", f"undocumented NaN/inf in {', '.join(nonfinite)}"
        elif call.invalid:
            outcome, detail = "accepted", repr(result)[:200]
        else:
            outcome, detail = "answer", ""
    if outcome in ("named", "answer") and locals().get("numpy_noise"):
        outcome, detail = "runtime-warning", "; ".join(locals()["numpy_noise"])[:300]
    after = list(args) + list(kwargs.values())
    if not all(_equal(b, a) for b, a in zip(before, after, strict=True)):
        outcome, detail = "mutated", detail
    return outcome, detail.replace("\n", " ")[:300]


# ------------------------------------------------------------------------------------
# Worker protocol and watchdog
# ------------------------------------------------------------------------------------


def _worker(quick: bool, only: set[str] | None, start: int) -> None:
    matrix = calls(quick, only)
    for i in range(start, len(matrix)):
        print(f"BEGIN {i}", flush=True)
        outcome, detail = run_call(matrix[i])
        print(f"END {i} {outcome} {detail}", flush=True)
    print("DONE", flush=True)


def run_matrix(
    quick: bool = False, only: set[str] | None = None, timeout: float = CALL_TIMEOUT
) -> list[tuple[Call, str, str]]:
    """Run the matrix in watched worker processes; crashes and hangs are outcomes."""
    matrix = calls(quick, only)
    results: list[tuple[Call, str, str]] = []
    start = 0
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MPLBACKEND="Agg")
    while start < len(matrix):
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(start)]
        if quick:
            command.append("--quick")
        if only:
            command += ["--only", ",".join(sorted(only))]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True, env=env, cwd=str(ROOT))
        lines: queue.Queue[str | None] = queue.Queue()

        def pump(stream: Any = process.stdout, sink: queue.Queue[str | None] = lines) -> None:
            for line in stream:
                sink.put(line.rstrip("\n"))
            sink.put(None)

        threading.Thread(target=pump, daemon=True).start()
        current: int | None = None
        while True:
            try:
                line = lines.get(timeout=timeout if current is not None else 600.0)
            except queue.Empty:
                process.kill()
                process.wait()
                assert current is not None
                results.append((matrix[current], "hang", f"no answer within {timeout:g} s"))
                start = current + 1
                break
            if line is None:
                process.wait()
                if current is None:
                    start = len(matrix)
                else:
                    results.append((matrix[current], "crash",
                                    f"worker died (exit status {process.returncode})"))
                    start = current + 1
                break
            if line.startswith("BEGIN "):
                current = int(line.split()[1])
            elif line.startswith("END "):
                _, index, outcome, *rest = line.split(" ", 3)
                results.append((matrix[int(index)], outcome, rest[0] if rest else ""))
                current = None
            elif line == "DONE":
                process.wait()
                start = len(matrix)
                break
    return results


FAILURES = ("other", "accepted", "bad-result", "non-finite", "mutated", "crash", "hang",
            "runtime-warning")


def summarise(results: list[tuple[Call, str, str]]) -> str:
    counts: dict[str, int] = {}
    for _, outcome, _ in results:
        counts[outcome] = counts.get(outcome, 0) + 1
    lines = [f"{len(results)} calls over {len({c.target for c, _, _ in results})} targets"]
    lines += [f"  {k}: {v}" for k, v in sorted(counts.items())]
    for call, outcome, detail in results:
        if outcome in FAILURES:
            lines.append(f"{outcome:>10} {call.target}[{call.where}={call.value}]: {detail}")
    return "\n".join(lines)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    quick_mode = "--quick" in arguments
    selected = None
    if "--only" in arguments:
        selected = set(arguments[arguments.index("--only") + 1].split(","))
    if "--worker" in arguments:
        _worker(quick_mode, selected, int(arguments[arguments.index("--worker") + 1]))
    else:
        print(summarise(run_matrix(quick_mode, selected)))
