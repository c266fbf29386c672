"""The public API never crashes, never hangs and never returns garbage.

Three parts:

* the bad-value matrix of ``tests/fuzz_harness.py`` over every public callable (a quick
  subset in the fast suite, the whole matrix marked slow), run in watched worker processes
  so that a segfault or a hang is an outcome, not the end of the test run;
* hypothesis properties (streams equal batch, affine invariance, segments partition
  [0, n), intervals contain the estimate and widen with the level, JSON round trip with
  infinities);
* named bad-value cases that raise a named error.

The command-line matrix (exit status 0 ok, 1 regression found, 2 bad input or usage,
3 internal error, and a traceback only with ``--debug``) is in ``tests/test_cli.py``; the
named tests of single bad inputs are in the test file of the function they call.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz_harness as harness


def _failures(results: list[tuple[harness.Call, str, str]]) -> list[str]:
    return [f"{outcome} {call.target}[{call.where}={call.value}]: {detail}"
            for call, outcome, detail in results
            if outcome in harness.FAILURES]


# ------------------------------------------------------------------------------------
# The matrix
# ------------------------------------------------------------------------------------


def test_every_public_callable_is_a_target_or_excluded_with_a_reason() -> None:
    public = set(harness.public_callables())
    covered = harness.target_names() | set(harness.EXCLUDED) | harness.owned_elsewhere()
    missing = sorted(public - covered)
    assert not missing, f"public callables without a fuzz target or a reason: {missing}"
    stale = sorted(set(harness.EXCLUDED) - public)
    assert not stale, f"EXCLUDED names that are not public any more: {stale}"


def test_matrix_classifies_a_defect() -> None:
    """The classifier itself can fail: a non-pilotstats error is a failure outcome."""
    target = harness.Target("probe", lambda x: float(x), lambda: [1.0], data=(),
                            scalars=(0,))
    original = harness._targets
    try:
        harness._targets = lambda: [target]  # type: ignore[assignment]
        outcome, detail = harness.run_call(harness.Call("probe", 0, "string", True))
        assert outcome == "other" and "ValueError" in detail
        outcome, _ = harness.run_call(harness.Call("probe", 0, "0.5", False))
        assert outcome == "answer"
        outcome, _ = harness.run_call(harness.Call("probe", 0, "True", True))
        assert outcome == "accepted"
    finally:
        harness._targets = original  # type: ignore[assignment]


def test_fuzz_quick_matrix() -> None:
    results = harness.run_matrix(quick=True)
    assert len(results) == len(harness.calls(quick=True))
    failures = _failures(results)
    assert not failures, "\n".join(failures[:40])
    outcomes = {outcome for _, outcome, _ in results}
    assert "named" in outcomes and "answer" in outcomes


@pytest.mark.slow
def test_fuzz_full_matrix() -> None:
    results = harness.run_matrix(quick=False)
    assert len(results) == len(harness.calls(quick=False))
    failures = _failures(results)
    assert not failures, "\n".join(failures[:40])
    print("\n" + harness.summarise(results).splitlines()[0])


@pytest.mark.slow
def test_watchdog_reports_crash_and_hang_and_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A segfault and a hang become outcomes; the matrix resumes after each."""
    monkeypatch.setenv("PILOTSTATS_FUZZ_PROBE", "1")
    results = harness.run_matrix(quick=True, only={"probe"}, timeout=10.0)
    outcomes = {call.value: outcome for call, outcome, _ in results}
    assert outcomes["string"] == "crash"
    assert outcomes["None"] == "hang"
    assert outcomes["baseline"] == "answer" and outcomes["2**62"] == "answer"
    assert len(results) == len(harness.calls(quick=True, only={"probe"}))


# ------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------

levels = st.floats(0.5, 0.995)


@st.composite
def noisy_series(draw: st.DrawFn, low: int = 24, high: int = 120) -> np.ndarray:
    n = draw(st.integers(low, high))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    level = draw(st.floats(-1e3, 1e3))
    step = draw(st.sampled_from([0.0, 0.0, 3.0]))
    x = level + rng.standard_normal(n)
    x[n // 2:] += step
    return x


@pytest.mark.filterwarnings("ignore::pilotstats.exceptions.DataRangeWarning")  # step series
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noisy_series(), st.floats(0.1, 1e3), st.floats(-1e3, 1e3))
def test_property_affine_invariance_of_subsession_analysis(
    x: np.ndarray, scale: float, shift: float
) -> None:
    from pilotstats import subsession_analysis
    from pilotstats.exceptions import NotEnoughDataError

    try:
        base = subsession_analysis(x)
    except NotEnoughDataError:
        return
    moved = subsession_analysis(shift + scale * x, subsession_size=base.subsession_size)
    tol = 1e-7 * (abs(shift) + scale * (np.abs(x).max() + 1.0))
    assert moved.mean == pytest.approx(shift + scale * base.mean, abs=tol)
    assert moved.ci_low == pytest.approx(shift + scale * base.ci_low, abs=tol)
    assert moved.ci_high == pytest.approx(shift + scale * base.ci_high, abs=tol)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noisy_series(40, 100), st.floats(0.1, 100.0), st.floats(-100.0, 100.0))
def test_property_affine_invariance_of_edm(x: np.ndarray, scale: float, shift: float) -> None:
    from pilotstats.changepoints import edm

    assert edm(x, min_size=8).locations == edm(shift + scale * x, min_size=8).locations


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noisy_series(20, 90), st.integers(1, 7))
def test_property_streams_equal_batch(x: np.ndarray, chunk: int) -> None:
    from pilotstats.changepoints import EdmStream, MdlStream, edm, mdl_partition

    values = np.abs(x) + 1.0
    stream = MdlStream()
    edm_stream = EdmStream(min_size=6)
    for start in range(0, values.size, chunk):
        stream.extend(values[start:start + chunk])
        edm_stream.extend(values[start:start + chunk])
    assert stream.result().boundaries.tolist() == mdl_partition(values).boundaries.tolist()
    assert edm_stream.result().locations == edm(values, min_size=6).locations


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noisy_series(20, 150))
def test_property_segments_partition_the_series(x: np.ndarray) -> None:
    from pilotstats.changepoints import edm, mdl_partition

    n = x.size
    for result in (edm(x, min_size=5), edm(x, min_size=5, percent=0.3)):
        bounds = [(s.start, s.end) for s in result.segments]
        assert bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(bounds))
        assert list(result.locations) == [b[0] for b in bounds[1:]]
    groups = mdl_partition(np.abs(x) + 1.0).groups
    assert groups[0].start == 0 and groups[-1].end == n
    assert all(a.end == b.start for a, b in itertools.pairwise(groups))


@settings(max_examples=40, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(0, 1e6), st.integers(2, 10**6),
       st.floats(-1e6, 1e6), st.floats(0, 1e6), st.integers(2, 10**6), levels, levels,
       st.sampled_from(["two-sided", "less", "greater"]))
def test_property_welch_interval_contains_estimate_and_widens(
    m1: float, v1: float, n1: int, m2: float, v2: float, n2: int, c1: float, c2: float,
    alternative: str,
) -> None:
    from pilotstats import welch_test

    low_level, high_level = sorted((c1, c2))
    narrow = welch_test(m1, v1, n1, m2, v2, n2, confidence_level=low_level,
                        alternative=alternative)
    wide = welch_test(m1, v1, n1, m2, v2, n2, confidence_level=high_level,
                      alternative=alternative)
    for r in (narrow, wide):
        assert r.ci_low <= r.difference <= r.ci_high
        assert math.isfinite(r.difference) and 0.0 <= r.p_value <= 1.0
    assert wide.ci_low <= narrow.ci_low and narrow.ci_high <= wide.ci_high


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=2, max_size=200), levels, levels,
       st.sampled_from(["wilson", "pilot"]))
def test_property_proportion_interval_contains_estimate_and_widens(
    x: list[float], c1: float, c2: float, method: str
) -> None:
    from pilotstats.autocorrelation import proportion_interval

    low_level, high_level = sorted((c1, c2))
    narrow = proportion_interval(x, confidence_level=low_level, method=method)
    wide = proportion_interval(x, confidence_level=high_level, method=method)
    for r in (narrow, wide):
        assert 0.0 <= r.ci_low <= r.proportion <= r.ci_high <= 1.0
    assert wide.ci_low <= narrow.ci_low + 1e-15 and narrow.ci_high <= wide.ci_high + 1e-15


@pytest.mark.filterwarnings("ignore::pilotstats.exceptions.LackOfFitWarning")  # 0.1 %
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), levels, levels)
def test_property_wps_interval_contains_estimate_and_widens(
    seed: int, c1: float, c2: float
) -> None:
    from pilotstats.regression import wps

    rng = np.random.default_rng(seed)
    work = rng.uniform(1e4, 1e5, 40)
    durations = 0.01 + work / 1e6 * (1 + 0.02 * rng.standard_normal(40))
    low_level, high_level = sorted((c1, c2))
    narrow = wps(work, durations, confidence_level=low_level, autocorrelation_limit=1.0)
    wide = wps(work, durations, confidence_level=high_level, autocorrelation_limit=1.0)
    for r in (narrow, wide):
        assert r.slope_ci_low <= r.slope <= r.slope_ci_high
        assert r.alpha_ci_low <= r.alpha <= r.alpha_ci_high
        assert r.throughput_ci_low <= r.throughput <= r.throughput_ci_high
    assert wide.slope_ci_low <= narrow.slope_ci_low
    assert narrow.slope_ci_high <= wide.slope_ci_high


finite_or_infinite = st.one_of(
    st.floats(allow_nan=False), st.just(math.inf), st.just(-math.inf)
)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite_or_infinite, min_size=1, max_size=6), st.text(max_size=8))
def test_property_json_round_trip_keeps_infinities(values: list[float], name: str) -> None:
    from pilotstats.changepoints import TrendGroup
    from pilotstats.results import decode_float, json_safe

    data = json.loads(json.dumps(json_safe(values), allow_nan=False))
    assert decode_float(data) == values
    segment = TrendGroup(0, 3, 3, 3, 0, values[0], values[-1], 1.0, name or "inf")
    again = json.loads(json.dumps(segment.to_dict(), allow_nan=False))
    from pilotstats.results import decode_float_fields

    rebuilt = TrendGroup(**decode_float_fields(TrendGroup, again))
    assert rebuilt == segment


def test_json_round_trip_of_an_analysis_report_with_an_unbounded_end() -> None:
    import dataclasses

    from pilotstats.analysis import AnalysisReport, ComparisonReport, analyze, compare
    from pilotstats.io import Measurements

    rng = np.random.default_rng(4)
    report = analyze(Measurements(rng.normal(1.0, 0.01, 80), benchmark="b"),
                     detect_warmup=False)
    item = dataclasses.replace(report.benchmarks[0], ci_high=math.inf)
    report = dataclasses.replace(report, benchmarks=(item,))
    text = json.dumps(report.to_dict(), allow_nan=False)
    assert '"inf"' in text
    again = AnalysisReport.from_dict(json.loads(text))
    assert again.benchmarks[0].ci_high == math.inf and again.to_dict() == report.to_dict()
    comparison = compare(Measurements(rng.normal(1.0, 0.01, 80), benchmark="b"),
                         Measurements(rng.normal(1.0, 0.01, 80), benchmark="b"),
                         detect_warmup=False)
    text = json.dumps(comparison.to_dict(), allow_nan=False)
    assert ComparisonReport.from_dict(json.loads(text)).to_dict() == comparison.to_dict()


# ------------------------------------------------------------------------------------
# The cases an independent matrix found, each by name
# ------------------------------------------------------------------------------------


def _named_bad_value_cases() -> list[tuple[str, object]]:
    from pilotstats import regression
    from pilotstats.analysis import detect_many, fleet_report, trend_many
    from pilotstats.autocorrelation import welch_test
    from pilotstats.io import Measurements, load_pytest_benchmark

    x = harness._base_series()
    u = np.arange(1.0, 9.0)
    y = 2.0 + 3.0 * u
    model = regression.polynomial_model(1)
    network = regression.ClosedNetworkModel(3, think_time=10.0)
    return [
        ("welch_test at 1e308", lambda: welch_test(1e308, 0.04, 30, 1.1, 0.05, 25)),
        ("detect_many higher_is_better='False'",
         lambda: detect_many({"s": x}, higher_is_better="False")),
        ("trend_many higher_is_better='False'",
         lambda: trend_many({"s": x}, higher_is_better="False")),
        ("fleet_report higher_is_better='False'",
         lambda: fleet_report({"s": x}, higher_is_better="False")),
        ("compare_polynomials degrees=dict",
         lambda: regression.compare_polynomials(u, y, degrees={1: "a", 2: "b"})),
        ("calibrate numeric-string conditions",
         lambda: regression.calibrate(model, [str(v) for v in u], y, [1.0, 1.0])),
        ("calibrate complex conditions",
         lambda: regression.calibrate(model, u.astype(complex), y, [1.0, 1.0])),
        ("calibrate date conditions",
         lambda: regression.calibrate(model, np.arange(8).astype("datetime64[D]"), y,
                                      [1.0, 1.0])),
        ("ClosedNetworkModel numeric-string conditions",
         lambda: network.evaluate_all([2.0, 3.0, 4.0], ["1", "5"])),
        ("ClosedNetworkModel NaN parameters", lambda: network([np.nan, 3.0, 4.0], 10)),
        ("polynomial NaN parameters", lambda: model.evaluate_all([np.nan, 1.0], u)),
        ("Measurements warmup=None", lambda: Measurements(x, warmup=None)),
        ("Measurements run=-1e308", lambda: Measurements(x, run=-1e308)),
        ("load_pytest_benchmark of an ndarray", lambda: load_pytest_benchmark(x)),
    ]


@pytest.mark.parametrize("case", range(14))
def test_named_bad_value_case_raises_a_named_error(case: int) -> None:
    from pilotstats.exceptions import PilotStatsError

    name, call = _named_bad_value_cases()[case]
    try:
        call()  # type: ignore[operator]
    except PilotStatsError:
        return
    pytest.fail(f"{name}: accepted (no named error)")


def test_named_bad_value_cases_are_all_listed() -> None:
    assert len(_named_bad_value_cases()) == 14


def test_wps_with_durations_near_the_smallest_normal_is_finite_or_named() -> None:
    from pilotstats.exceptions import PilotStatsError
    from pilotstats.regression import wps

    work = np.tile([1e5, 2e5, 4e5, 8e5], 10).astype(float)
    durations = (0.01 + work * 1e-7) * 1e-306  # ~1e-308 s
    try:
        result = wps(work, durations, autocorrelation_limit=1.0)
    except PilotStatsError:
        return
    assert not harness._nonfinite_fields(result), harness._nonfinite_fields(result)
