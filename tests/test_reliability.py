"""Issue 13: one named regression test per defect (crash, hang, garbage, misleading text).

The bad-value matrix, the CLI matrix and the properties are in ``tests/test_fuzz.py``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pilotstats import _config
from pilotstats.exceptions import (
    DegenerateDesignError,
    InvalidInputError,
    NotEnoughDataError,
    PerformanceWarning,
    PilotStatsError,
)
from pilotstats.session import WpsOptions

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------
# Crashes and hangs
# ------------------------------------------------------------------------------------


def test_edm_stream_huge_min_size_is_a_named_error_not_a_segfault() -> None:
    code = (
        "from pilotstats.changepoints import EdmStream\n"
        "from pilotstats.exceptions import InvalidInputError\n"
        "for size in (2**62, 2**63, 2**64 - 1):\n"
        "    try:\n"
        "        EdmStream(min_size=size).extend([1.0, 2.0, 3.0])\n"
        "    except InvalidInputError as error:\n"
        "        assert 'min_size must be at most' in str(error)\n"
        "    else:\n"
        "        raise SystemExit('accepted')\n"
        "s = EdmStream(min_size=2**40)\n"
        "s.extend([1.0, 2.0, 3.0])\n"
        "assert s.result().too_short\n"
        "print('ok')\n"
    )
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == "ok"


def test_thread_pool_model_absurd_size_fails_up_front() -> None:
    from pilotstats.regression import ClosedNetworkModel, ThreadPoolModel, thread_pool

    with pytest.raises(InvalidInputError, match="n_inner must be at most"):
        ThreadPoolModel(2**62, think_time=10.0)
    with pytest.raises(InvalidInputError, match="at most"):
        ClosedNetworkModel(10, classes=10**6)
    with pytest.raises(InvalidInputError, match="too large"):
        thread_pool([1.0, 2.0], 10**7, pool_size=2)


def test_open_as_closed_with_a_million_stations_fails_up_front() -> None:
    from pilotstats.regression import mva, open_as_closed

    with pytest.raises(InvalidInputError, match="stations exceed"):
        open_as_closed(np.full(10**6, 1e-9), 0.2)
    with pytest.raises(InvalidInputError, match="cells"):
        open_as_closed(np.full(20_000, 1e-9), 0.2)  # 20,000 x 5,001 lattice cells
    with pytest.raises(InvalidInputError, match="amva"):
        mva([1.0, 2.0], 10**9)


def test_size_parameters_are_bounded_everywhere() -> None:
    from pilotstats import subsession_analysis
    from pilotstats.changepoints import edm, edm_single

    x = np.random.default_rng(0).normal(size=50)
    for call in (lambda: edm(x, min_size=2**62), lambda: edm_single(x, min_size=2**63),
                 lambda: subsession_analysis(x, subsession_size=2**62),
                 lambda: edm(x, min_size=10**400)):
        with pytest.raises(InvalidInputError, match="at most"):
            call()


# ------------------------------------------------------------------------------------
# wps
# ------------------------------------------------------------------------------------


def _cyclic(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    work = np.tile([1e5, 2e5, 4e5, 8e5], 10).astype(float)
    return work, 0.01 + work * 1e-7 * (1 + 0.02 * rng.standard_normal(work.size))


@pytest.mark.parametrize("seed", range(12))
def test_wps_accepts_a_cyclic_schedule(seed: int) -> None:
    from pilotstats.regression import wps

    work, durations = _cyclic(seed)
    result = wps(work, durations)
    assert result.subsession_size % 4 != 0  # a multiple of the period is degenerate
    assert result.slope_ci_low <= 1e-7 <= result.slope_ci_high or abs(
        result.slope - 1e-7) < 1e-8
    with pytest.raises(DegenerateDesignError):  # an explicit degenerate size still fails
        wps(work, durations, subsession_size=4)


@pytest.mark.parametrize("seed", range(40))
def test_wps_auto_q_equals_explicit_q(seed: int) -> None:
    from pilotstats.regression import wps

    rng = np.random.default_rng(seed)
    n = 32
    work = rng.uniform(1.0, 100.0, n)
    durations = np.abs(-0.5 + work / 10 * (1 + 0.3 * rng.standard_normal(n))) + 0.01
    try:
        auto = wps(work, durations)
    except PilotStatsError:
        return
    if any("alpha filter rerun" in note for note in auto.notes):
        # the size found does not fit a set the filter visits: the explicit call fails and
        # the automatic one reports its first pass, saying so
        with pytest.raises((NotEnoughDataError, DegenerateDesignError)):
            wps(work, durations, subsession_size=auto.subsession_size)
        return
    explicit = wps(work, durations, subsession_size=auto.subsession_size)
    assert {**auto.to_dict(), "notes": []} == {**explicit.to_dict(), "notes": []}


def test_wps_alpha_filter_cycle_has_a_deterministic_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two fits that exclude each other's rounds: the fit keeping most rounds wins."""
    import importlib

    from pilotstats.exceptions import ConvergenceWarning

    wps_module = importlib.import_module("pilotstats.regression._wps")
    fit_module = importlib.import_module("pilotstats.regression._wps_fit")

    rng = np.random.default_rng(1)
    work = rng.uniform(10.0, 100.0, 40)
    durations = 0.5 + work / 50 * (1 + 0.01 * rng.standard_normal(40))
    thresholds = iter([30.0, 60.0, 30.0, 60.0, 30.0, 60.0] * 5)
    monkeypatch.setattr(fit_module, "_alpha_minimum", lambda fit: next(thresholds))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        result = wps_module.wps(work, durations, subsession_size=1, autocorrelation_limit=1.0)
    # base -> (w > 30) -> (w > 60) -> (w > 30) again: the cycle is {w > 30, w > 60}; the
    # member keeping more rounds is w > 30.
    assert result.n_rounds_used == int((work > 30.0).sum())
    assert result.min_work == 30.0


def test_wps_constant_durations_are_a_named_error_not_v_1e39() -> None:
    from pilotstats.regression import wps

    rng = np.random.default_rng(1)
    work = rng.uniform(1e4, 1e6, 40)
    with pytest.raises(DegenerateDesignError, match="durations"):
        wps(work, np.full(40, 0.0039), autocorrelation_limit=1.0)


# ------------------------------------------------------------------------------------
# Inputs that were silently misread
# ------------------------------------------------------------------------------------


def test_mappings_are_rejected_by_mdl_and_trend_compliance() -> None:
    from pilotstats.changepoints import MdlStream, mdl_partition, trend_compliance

    values = {i: 5.0 for i in range(200)}
    for call in (lambda: mdl_partition(values), lambda: MdlStream().extend(values),
                 lambda: trend_compliance(values)):
        with pytest.raises(InvalidInputError, match=r"values\(\)"):
            call()
    # the documented way: the values in key order
    assert len(mdl_partition(list(values.values())).groups) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"run": [0, math.nan]}, "run"),
        ({"warmup": [0, math.nan]}, "warmup"),
        ({"warmup": ["yes", "no"]}, "warmup"),
        ({"order": [0, 1.5]}, "order"),
        ({"work": -1.0}, "work"),
        ({"work": [1.0, -2.0]}, "work must be strictly positive"),
        ({"benchmark": 3}, "benchmark"),
    ],
)
def test_measurements_validates_columns(kwargs: dict[str, object], message: str) -> None:
    from pilotstats.io import Measurements

    with pytest.raises(InvalidInputError, match=message):
        Measurements([1.0, 2.0], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "elapsed",
    [
        [1 + 1j, 2.0],
        [[1.0, 2.0], [3.0, 4.0]],
        ["1.0", "2.0"],
        np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
        {0: 1.0, 1: 2.0},
        [10**400, 1.0],
    ],
    ids=["complex", "2-D", "numeric strings", "datetime64", "dict", "400 digits"],
)
def test_measurements_rejects_what_it_used_to_coerce(elapsed: object) -> None:
    from pilotstats.io import Measurements

    with pytest.raises(InvalidInputError, match="elapsed"):
        Measurements(elapsed)


def test_measurements_negative_work_names_work_not_elapsed() -> None:
    from pilotstats.io import Measurements

    with pytest.raises(InvalidInputError, match="work") as info:
        Measurements.from_values([1.0, 2.0], work=-3)
    assert "elapsed" not in str(info.value)


def test_wilson_interval_validates() -> None:
    from pilotstats.autocorrelation import wilson_interval

    with pytest.raises(InvalidInputError, match="n must lie"):
        wilson_interval(0.3, -1, 1.96)
    with pytest.raises(InvalidInputError, match="n must lie"):
        wilson_interval(0.3, 0, 1.96)
    with pytest.raises(InvalidInputError, match="p_hat"):
        wilson_interval(1.3, 10, 1.96)
    low, high = wilson_interval(0.3, 10, 1.96)
    assert 0.0 <= low <= 0.3 <= high <= 1.0


def test_trim_warmup_validates() -> None:
    from pilotstats.session import trim_warmup

    with pytest.raises(InvalidInputError):
        trim_warmup(["a"] * 200)
    with pytest.raises(InvalidInputError):
        trim_warmup(np.ones((2, 5)))
    assert trim_warmup([1.0] * 25, 0.1) == (3, 25)


@pytest.mark.parametrize(
    "call",
    [
        lambda: __import__("pilotstats.changepoints").changepoints.MdlStream(pruning="False"),
        lambda: __import__("pilotstats.changepoints").changepoints.mdl_partition(
            [1.0, 2.0], higher_is_better="no"),
        lambda: __import__("pilotstats.regression").regression.mva(
            [1.0, 2.0], 5, all_populations="False"),
        lambda: __import__("pilotstats.session").session.WorkPlanner(
            1, 100, integer_work="False"),
        lambda: __import__("pilotstats.session").session.WorkPlanner(
            1,
            100,
            wps=WpsOptions(enabled=1),
        ),
        lambda: __import__("pilotstats.session").session.work_sequence(
            1, 10, integer_work="no"),
        lambda: __import__("pilotstats.regression").regression.wps(
            [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.5], alpha_filter="yes"),
        lambda: __import__("pilotstats.analysis").analysis.analyze(
            __import__("pilotstats.io").io.Measurements([1.0] * 20), detect_warmup="no"),
    ],
    ids=["MdlStream.pruning", "mdl.higher_is_better", "mva.all_populations",
         "WorkPlanner.integer_work", "WorkPlanner.wps_analysis",
         "work_sequence.integer_work", "wps.alpha_filter", "analyze.detect_warmup"],
)
def test_boolean_flags_reject_truthy_objects(call: object) -> None:
    with pytest.raises(InvalidInputError, match="must be True or False"):
        call()  # type: ignore[operator]


# ------------------------------------------------------------------------------------
# Numerics
# ------------------------------------------------------------------------------------


def test_subsession_mean_at_offset_1e9_is_correctly_rounded() -> None:
    from pilotstats import subsession_analysis

    x = 1e9 + np.random.default_rng(0).standard_normal(100_000)
    result = subsession_analysis(x)
    exact = float(sum(Fraction(v) for v in x.tolist()) / x.size)
    assert result.ci_low <= exact <= result.ci_high
    assert abs(result.mean - exact) <= 4 * np.spacing(exact)


def test_lag1_autocorrelation_at_offset_1e9_matches_the_centred_series() -> None:
    from pilotstats.autocorrelation import lag1_autocorrelation

    rng = np.random.default_rng(1)
    noise = rng.standard_normal(50_000)
    centred = lag1_autocorrelation(noise, 5)
    shifted = lag1_autocorrelation(1e9 + noise, 5)
    assert shifted == pytest.approx(centred, abs=1e-6)


def test_subsession_search_matches_the_direct_scan_on_a_level_shift() -> None:
    """The O(n log n) prefix-sum scan chooses the same q as the O(n) per-q direct scan."""
    from pilotstats._kernels import autocorrelation as kernels
    from pilotstats.autocorrelation import optimal_subsession_size

    rng = np.random.default_rng(2)
    for shift in (0.0, 0.5, 5.0):
        x = rng.standard_normal(3_000)
        x[1_500:] += shift
        m = float(kernels.overall_mean(x, False))
        direct = next((q for q in range(1, x.size // 3 + 1)
                       if abs(kernels.lag1_coefficient(x, q, False, m)) <= 0.1), None)
        assert optimal_subsession_size(x) == direct


def test_sma_keeps_small_windows_on_data_spanning_600_decades() -> None:
    from pilotstats.smoothing import sma

    times = 1.5e9 + 86400.0 * np.arange(300)
    values = np.logspace(-300, 300, 300)
    means = sma(times, values, "3D")
    assert not np.any(means == 0)
    expected = [math.fsum(values[max(0, i - 1):i + 2]) / len(values[max(0, i - 1):i + 2])
                for i in range(300)]
    np.testing.assert_allclose(means, expected, rtol=1e-14)
    assert np.all(np.isfinite(sma(times, np.full(300, 1.7e308), "3D")))


def test_welch_degenerate_case_is_finite() -> None:
    from pilotstats import welch_test

    result = welch_test(0, 0, 2, 0, 1.7e-203, 2)
    assert math.isfinite(result.dof) and math.isfinite(result.ci_low)
    assert result.ci_low <= 0.0 <= result.ci_high
    with pytest.raises(InvalidInputError, match="overflows"):
        welch_test(1.7e308, 1.0, 10, -1.7e308, 1.0, 10)


def test_proportion_interval_pilot_is_clipped_to_0_1() -> None:
    from pilotstats.autocorrelation import proportion_interval

    result = proportion_interval([0, 1], method="pilot", confidence_level=0.99)
    assert result.ci_low == 0.0 and result.ci_high == 1.0
    result = proportion_interval([0, 1, 0, 1, 1], method="pilot")
    assert 0.0 <= result.ci_low <= result.proportion <= result.ci_high <= 1.0


def test_required_sample_size_tiny_target_is_unreachable_not_zero_division() -> None:
    from pilotstats.autocorrelation import required_sample_size
    from pilotstats.exceptions import UnreachableTargetError

    x = 1 + 0.05 * np.random.default_rng(0).standard_normal(64)
    with pytest.raises(UnreachableTargetError):
        required_sample_size(x, half_width=5e-324)


def test_queueing_overflow_and_underflow_are_named_errors() -> None:
    from pilotstats.regression import mva, open_as_closed, thread_pool

    with pytest.raises(InvalidInputError, match="overflows"):
        thread_pool(np.full(8, 1e308), 10, pool_size=2, think_time=10.0)
    with pytest.raises(InvalidInputError, match="subnormal"):
        mva(np.full(4, 5e-320), 3)
    with pytest.raises(InvalidInputError, match="arrival_rate") as info:
        open_as_closed([2.0, 3.0], 5e-324)
    assert "think_time" not in str(info.value)  # the user passed no think time


# ------------------------------------------------------------------------------------
# Messages, JSON, warnings
# ------------------------------------------------------------------------------------


def test_confidence_level_hint_only_for_percentages() -> None:
    from pilotstats import subsession_analysis

    x = np.arange(30.0)
    with pytest.raises(InvalidInputError) as info:
        subsession_analysis(x, confidence_level=1.5)
    assert "did you mean" not in str(info.value)
    with pytest.raises(InvalidInputError, match=r"did you mean 0\.95"):
        subsession_analysis(x, confidence_level=95)


def test_comparison_sample_size_names_the_baseline_arguments() -> None:
    from pilotstats.autocorrelation import required_sample_size_for_comparison

    with pytest.raises(InvalidInputError, match=r"^baseline_mean must"):
        required_sample_size_for_comparison(math.nan, 1, 10, 1, 1, 10)
    with pytest.raises(InvalidInputError, match=r"^var must"):
        required_sample_size_for_comparison(1, 1, 10, 1, -1, 10)


def test_to_dict_encodes_infinity_losslessly() -> None:
    from pilotstats.regression import wps
    from pilotstats.results import decode_float

    work = np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
    durations = 1.0 + work / 100 + np.array([0.3, -0.3, 0.2, -0.25, 0.3, -0.2])
    result = wps(work, durations, autocorrelation_limit=1.0, alpha_filter=False)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert decode_float(data["throughput_ci_high"]) == result.throughput_ci_high
    if math.isinf(result.throughput_ci_high):
        assert data["throughput_ci_high"] == "inf"


def test_edm_warns_above_the_size_where_it_takes_minutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pilotstats.changepoints import EdmStream, edm, edm_single

    x = np.random.default_rng(3).standard_normal(300)
    monkeypatch.setattr(_config, "EDM_WARN_SIZE", 200)
    monkeypatch.setattr(_config, "EDM_MULTI_WARN_SIZE", 200)
    monkeypatch.setattr(_config, "EDM_TAIL_WARN_SIZE", 100)
    with pytest.warns(PerformanceWarning, match=r"O\(n²\) in the series length in the worst"):
        edm(x, min_size=30)
    with pytest.warns(PerformanceWarning):
        edm_single(x, min_size=30, exact=False)
    stream = EdmStream(min_size=30)
    stream.extend(x[:150])
    with pytest.warns(PerformanceWarning) as record:
        stream.extend(x[150:])
    assert record[0].filename == __file__  # attributed to the caller
    stream = EdmStream(min_size=30)
    stream.extend(x[:200])
    with pytest.warns(PerformanceWarning) as record:
        stream.append(float(x[200]))
    assert record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        edm(x[:150], min_size=30)


def test_cli_header_only_csv_says_no_rows() -> None:
    import contextlib
    import io

    from pilotstats.cli import main

    path = ROOT / "tests" / "_header_only_tmp.csv"
    try:
        path.write_text("t\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(["changepoints", str(path), "--column", "t"]) == 2
        assert "no data rows" in err.getvalue() and "header []" not in err.getvalue()
    finally:
        path.unlink(missing_ok=True)


def test_every_public_function_documents_its_complexity() -> None:
    """Issue 13: every function states its cost (a "Complexity" note or an O(...) bound)."""
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


def test_mdl_warns_above_the_size_where_it_takes_minutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pilotstats.changepoints import MdlStream, mdl_partition

    x = 10.0 + np.random.default_rng(5).standard_normal(300)
    monkeypatch.setattr(_config, "MDL_WARN_SIZE", 200)
    with pytest.warns(PerformanceWarning, match=r"O\(N²\)"):
        mdl_partition(x)
    stream = MdlStream()
    stream.extend(x[:150])
    with pytest.warns(PerformanceWarning):
        stream.extend(x[150:])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        mdl_partition(x[:150])
