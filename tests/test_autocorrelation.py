"""Behaviour of the autocorrelation pillar: brute force, kernels, properties, bad input,
and the coverage simulation of ``specs/autocorrelation.md`` §10."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pilotstats import _config
from pilotstats._kernels import autocorrelation as kernels
from pilotstats.autocorrelation import (
    compare_subsession_means,
    lag1_autocorrelation,
    optimal_subsession_size,
    proportion_interval,
    required_sample_size,
    required_sample_size_for_comparison,
    subsession_analysis,
    welch_test,
    wilson_interval,
)
from pilotstats.datasets import ferrari_response_times
from pilotstats.exceptions import (
    DataRangeWarning,
    InvalidInputError,
    NotEnoughDataError,
    SubsessionSizeNotFoundError,
    UnreachableTargetError,
)
from tests import naive_autocorrelation as naive

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


def series(elements: st.SearchStrategy[float], min_size: int = 1, max_size: int = 60):
    return arrays(np.float64, st.integers(min_size, max_size), elements=elements)


def not_constant(x: np.ndarray) -> bool:
    return x.size >= 2 and float(np.ptp(x)) > 1e-9 * max(1.0, float(np.abs(x).max()))


# --- brute force -------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(series(finite), st.integers(1, 20), st.booleans())
def test_lag1_matches_brute_force(x: np.ndarray, q: int, harmonic: bool) -> None:
    if harmonic:
        x = np.abs(x) + 1.0
    got = lag1_autocorrelation(x, q, mean_method="harmonic" if harmonic else "arithmetic")
    if np.ptp(x) == 0:
        # Constant data: zero variance, r1 undefined -> 1.0 as in Pilot. The naive sums
        # turn rounding noise into a spurious variance here; the compensated kernels do not.
        assert got == 1.0
        return
    if not not_constant(x):
        # A spread of a few ulps (e.g. 1 + [1e-15, 0, ...] in harmonic mode): both r1 values
        # are rounding noise and need not agree, but the kernel's stays a finite coefficient.
        assert np.isfinite(got)
        return
    expected = naive.r1(list(x), q, harmonic)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(series(finite, 1, 45), st.sampled_from([0.05, 0.1, 0.3, 1.0]))
def test_optimal_size_matches_brute_force(x: np.ndarray, limit: float) -> None:
    expected = naive.optimal_q(list(x), limit)
    got = optimal_subsession_size(x, autocorrelation_limit=limit)
    if got != expected:  # only a floating-point near tie on the limit may differ
        q = got if got is not None else expected
        assert q is not None
        assert abs(abs(naive.r1(list(x), q)) - limit) < 1e-9
    else:
        assert got == expected


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 9])
def test_limits_of_n(n: int) -> None:
    """n at the limits: n = 1, 2, 3 and q = floor(n/3)."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    q = optimal_subsession_size(x, autocorrelation_limit=1.0)
    assert q == (None if n <= 2 else 1)
    if n >= 3:
        largest = n // 3
        assert lag1_autocorrelation(x, largest) == pytest.approx(naive.r1(list(x), largest))
        result = subsession_analysis(x, subsession_size=largest, autocorrelation_limit=1.0)
        low, high = naive.ci(list(x), largest, 0.95)
        assert (result.ci_low, result.ci_high) == pytest.approx((low, high), rel=1e-10)
    if n == 2:
        with pytest.raises(SubsessionSizeNotFoundError, match="no subsession size"):
            subsession_analysis(x)


@settings(max_examples=100, deadline=None)
@given(series(finite, 6, 60), st.floats(0.5, 0.999))
def test_interval_matches_brute_force(x: np.ndarray, level: float) -> None:
    assume(not_constant(x))
    q = max(1, x.size // 6)
    result = subsession_analysis(x, subsession_size=q, confidence_level=level)
    low, high = naive.ci(list(x), q, level)
    scale = max(1.0, float(np.abs(x).max()))
    assert result.ci_low == pytest.approx(low, rel=1e-9, abs=1e-9 * scale)
    assert result.ci_high == pytest.approx(high, rel=1e-9, abs=1e-9 * scale)


# --- kernels vs pure Python ------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("harmonic", [False, True])
def test_kernels_match_python_twin(seed: int, harmonic: bool) -> None:
    rng = np.random.default_rng(seed)
    x = rng.lognormal(size=int(rng.integers(3, 300)))
    m = kernels.overall_mean(x, harmonic)
    assert m == pytest.approx(kernels.overall_mean.py_func(x, harmonic), rel=1e-12)
    for q in range(1, x.size // 2 + 1):
        compiled = kernels.block_moments(x, q, harmonic, m)
        plain = kernels.block_moments.py_func(x, q, harmonic, m)
        assert compiled == pytest.approx(plain, rel=1e-12, abs=1e-300)
        assert kernels.lag1_coefficient(x, q, harmonic, m) == pytest.approx(
            kernels.lag1_coefficient.py_func(x, q, harmonic, m), rel=1e-12
        )
    for limit in (0.05, 0.2, 1.0):
        assert kernels.first_subsession_size(x, limit, harmonic, m) == (
            kernels.first_subsession_size.py_func(x, limit, harmonic, m)
        )


# --- properties --------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(series(finite, 3, 60), st.floats(-1e3, 1e3), st.floats(1e-2, 1e2))
def test_affine_equivariance(x: np.ndarray, shift: float, scale: float) -> None:
    """r1 and q invariant; mean, endpoints a + b * endpoint; s2 scaled by b^2."""
    assume(not_constant(x))
    y = shift + scale * x
    assume(not_constant(y))
    for q in (1, 2):
        if x.size // q >= 2:
            r_x, r_y = lag1_autocorrelation(x, q), lag1_autocorrelation(y, q)
            assert r_y == pytest.approx(r_x, abs=1e-6)
    q = max(1, x.size // 4)
    a = subsession_analysis(x, subsession_size=q)
    b = subsession_analysis(y, subsession_size=q)
    tolerance = 1e-7 * (abs(shift) + scale * float(np.abs(x).max()) + 1.0)
    assert b.mean == pytest.approx(shift + scale * a.mean, abs=tolerance)
    assert b.ci_low == pytest.approx(shift + scale * a.ci_low, abs=tolerance)
    assert b.ci_high == pytest.approx(shift + scale * a.ci_high, abs=tolerance)
    assert b.subsession_variance == pytest.approx(
        scale**2 * a.subsession_variance, rel=1e-6, abs=tolerance**2
    )


def test_optimal_size_scale_invariant_exact() -> None:
    rng = np.random.default_rng(3)
    x = np.cumsum(rng.normal(size=400)) * 0.1 + rng.normal(size=400)
    q = optimal_subsession_size(x)
    assert q is not None
    assert optimal_subsession_size(4.0 * x) == q
    assert optimal_subsession_size(7.5 + 2.0 * x) == q


def test_result_ci_recomputes_at_other_levels() -> None:
    result = subsession_analysis(ferrari_response_times())
    assert result.confidence_interval() == pytest.approx((result.ci_low, result.ci_high))
    wide = result.confidence_interval(0.99)
    assert wide.low < result.ci_low and wide.high > result.ci_high
    direct = subsession_analysis(ferrari_response_times(), confidence_level=0.99)
    assert wide == pytest.approx((direct.ci_low, direct.ci_high), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-100, 100), st.floats(0.01, 50), st.integers(2, 200),
    st.floats(-100, 100), st.floats(0.01, 50), st.integers(2, 200),
    st.floats(0.5, 0.999), st.sampled_from(["two-sided", "less", "greater"]),
)
def test_welch_duality(m1, v1, n1, m2, v2, n2, level, alternative) -> None:  # type: ignore[no-untyped-def]
    """p <= 1 - c exactly when 0 lies outside the interval at level c (same alternative)."""
    result = welch_test(m1, v1, n1, m2, v2, n2, confidence_level=level, alternative=alternative)
    outside = not (result.ci_low <= 0.0 <= result.ci_high)
    assume(abs(result.p_value - (1 - level)) > 1e-9)
    assert (result.p_value <= 1 - level) == outside


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 500), st.data(), st.floats(0.5, 0.999))
def test_wilson_inside_unit_interval(n: int, data: st.DataObject, level: float) -> None:
    ones = data.draw(st.integers(0, n))
    x = np.r_[np.ones(ones), np.zeros(n - ones)]
    result = proportion_interval(x, confidence_level=level)
    assert 0.0 <= result.ci_low <= result.proportion <= result.ci_high <= 1.0
    assert result.half_width > 0


@settings(max_examples=80, deadline=None)
@given(series(finite, 3, 80), st.floats(0.5, 30.0))
def test_iterated_and_current_dof_agree_on_verdict(x: np.ndarray, percent: float) -> None:
    """If h_req > h then h < h_req* <= h_req, otherwise h_req* <= h (spec §10)."""
    assume(not_constant(x) and abs(float(np.mean(x))) > 1e-3)
    kwargs = {"half_width_percent": percent, "autocorrelation_limit": 1.0}
    pilot = required_sample_size(x, **kwargs)
    iterated = required_sample_size(x, method="iterate", **kwargs)
    assert pilot.enough == iterated.enough
    h = pilot.n_subsessions
    assert h is not None and pilot.required_subsessions is not None
    assert iterated.required_subsessions is not None
    if pilot.required_subsessions > h:
        assert h < iterated.required_subsessions <= pilot.required_subsessions
    else:
        assert iterated.required_subsessions <= h


def test_iterated_matches_linear_scan() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        x = rng.normal(10, rng.uniform(0.1, 5), size=int(rng.integers(5, 80)))
        result = required_sample_size(x, method="iterate", half_width_percent=2.5,
                                      autocorrelation_limit=1.0)
        s2 = float(np.var(x, ddof=1))
        e = result.target_half_width
        assert result.required_subsessions == naive.blocks_required_iterated(s2, e, 0.95)


def test_wilson_required_size_is_smallest() -> None:
    x = np.r_[np.ones(30), np.zeros(20)]
    result = required_sample_size(x, kind="proportion", half_width=0.05)
    n_req = result.required_subsessions
    assert n_req is not None
    z = 1.959963984540054

    low, high = wilson_interval(0.6, n_req, z)
    assert (high - low) / 2 <= 0.05
    low, high = wilson_interval(0.6, n_req - 1, z)
    assert (high - low) / 2 > 0.05


def test_comparison_sample_size_rounds_up_and_guards() -> None:
    result = required_sample_size_for_comparison(10.0, 1.0, 50, 10.5, 1.0, 20,
                                                 subsession_size=3, min_subsessions=5)
    assert result.required_subsessions >= 2
    assert result.samples == 3 * max(result.required_subsessions, 5)
    with pytest.raises(UnreachableTargetError, match="no sample size"):
        required_sample_size_for_comparison(10.0, 1.0, 50, 10.0, 1.0, 20)
    with pytest.raises(UnreachableTargetError):  # baseline uncertainty dominates
        required_sample_size_for_comparison(10.0, 100.0, 3, 10.1, 1.0, 20,
                                            significance_level=0.001)


def test_compare_subsession_means_uses_block_statistics() -> None:
    x = ferrari_response_times()
    a = subsession_analysis(x[:24], subsession_size=2)
    b = subsession_analysis(x[24:], subsession_size=2)
    result = compare_subsession_means(a, b)
    direct = welch_test(a.mean, a.subsession_variance, a.n_subsessions,
                        b.mean, b.subsession_variance, b.n_subsessions)
    assert result == direct
    statistic, p_value = result
    assert (statistic, p_value) == (result.statistic, result.p_value)


# --- degenerate input --------------------------------------------------------------------


def test_constant_data_documented_answer() -> None:
    result = subsession_analysis([5.0] * 10, unit="ms")
    assert result.constant and result.mean == 5.0 and result.half_width == 0.0
    assert result.subsession_size == 1 and result.subsession_variance == 0.0
    assert math.isnan(result.autocorrelation)
    assert json.dumps(result.to_dict(), allow_nan=False)
    size = required_sample_size([5.0] * 10, min_subsessions=4)
    assert (size.samples, size.enough) == (4, True)
    assert lag1_autocorrelation([5.0] * 10) == 1.0  # Pilot's convention
    assert optimal_subsession_size([5.0] * 10) is None


def test_welch_zero_standard_error() -> None:
    same = welch_test(1.0, 0.0, 5, 1.0, 0.0, 5)
    assert same.p_value == 1.0 and math.isnan(same.dof)
    differ = welch_test(2.0, 0.0, 5, 1.0, 0.0, 5)
    assert differ.p_value == 0.0 and (differ.ci_low, differ.ci_high) == (1.0, 1.0)


def test_inputs_not_modified() -> None:
    x = ferrari_response_times()
    copy = x.copy()
    subsession_analysis(x)
    required_sample_size(x)
    lag1_autocorrelation(x, 2, mean_method="harmonic")
    np.testing.assert_array_equal(x, copy)


def test_accepts_lists_and_pandas() -> None:
    pd = pytest.importorskip("pandas")
    x = ferrari_response_times()
    expected = subsession_analysis(x)
    assert subsession_analysis(list(x)) == expected
    assert subsession_analysis(pd.Series(x)) == expected


def test_results_are_json_safe_and_readable() -> None:
    x = ferrari_response_times()
    results = [
        subsession_analysis(x, unit="s"),
        required_sample_size(x),
        proportion_interval([0, 1, 1, 0, 1]),
        welch_test(1.0, 1.0, 10, 2.0, 1.0, 10, alternative="less"),
        required_sample_size_for_comparison(1.0, 1.0, 10, 2.0, 1.0, 10),
        required_sample_size(x[:6], autocorrelation_limit=0.01),
    ]
    for result in results:
        text = json.dumps(result.to_dict(), allow_nan=False)
        assert json.loads(text) == result.to_dict()
        assert "np.float64" not in repr(result)
        assert str(result) and "<table>" in result._repr_html_()
    assert "95 % CI" in str(results[0])
    assert "undetermined" in str(results[-1])


BAD_DATA = [
    ([], NotEnoughDataError, "empty"),
    ([1.0], NotEnoughDataError, "at least 2"),
    ([1.0, np.nan, 2.0], InvalidInputError, "NaN or infinite"),
    ([1.0, np.inf, 2.0], InvalidInputError, "NaN or infinite"),
    ([[1.0, 2.0], [3.0, 4.0]], InvalidInputError, "1-dimensional"),
    (["a", "b", "c"], InvalidInputError, "real numbers"),
    ("abc", InvalidInputError, "array of numbers"),
]


@pytest.mark.parametrize(("data", "error", "message"), BAD_DATA)
def test_bad_data(data: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        subsession_analysis(data)


@pytest.mark.parametrize("level", [-0.5, 0.0, 1.0, 95, math.nan, "0.95"])
def test_bad_confidence_level(level: object) -> None:
    with pytest.raises(InvalidInputError, match="confidence_level"):
        subsession_analysis(ferrari_response_times(), confidence_level=level)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [0.0, -0.1, 1.5, math.nan])
def test_bad_autocorrelation_limit(limit: float) -> None:
    with pytest.raises(InvalidInputError, match="autocorrelation_limit"):
        optimal_subsession_size(ferrari_response_times(), autocorrelation_limit=limit)
    with pytest.raises(InvalidInputError, match="autocorrelation_limit"):
        subsession_analysis(ferrari_response_times(), autocorrelation_limit=limit)


def test_other_bad_parameters() -> None:
    x = ferrari_response_times()
    with pytest.raises(InvalidInputError, match="mean"):
        subsession_analysis(x, mean_method="geometric")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="strictly positive"):
        subsession_analysis(x - 2.0, mean_method="harmonic")
    with pytest.raises(InvalidInputError, match="subsession_size"):
        subsession_analysis(x, subsession_size=0)
    with pytest.raises(NotEnoughDataError, match="subsession_size=30"):
        subsession_analysis(x, subsession_size=30)
    with pytest.raises(InvalidInputError, match="method"):
        required_sample_size(x, method="exact")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="half_width"):
        required_sample_size(x, half_width=-1.0)
    with pytest.raises(InvalidInputError, match="absolute half_width"):
        required_sample_size([-1.0, 0.0, 1.0])
    with pytest.raises(InvalidInputError, match="min_subsessions"):
        required_sample_size(x, min_subsessions=-1)
    with pytest.raises(NotEnoughDataError, match="at least 3"):
        required_sample_size([1.0, 2.0])
    with pytest.raises(InvalidInputError, match="0/1"):
        proportion_interval([0, 1, 2])
    with pytest.raises(NotEnoughDataError, match="n1"):
        welch_test(1.0, 1.0, 1, 2.0, 1.0, 10)
    with pytest.raises(InvalidInputError, match="var2"):
        welch_test(1.0, 1.0, 10, 2.0, -1.0, 10)
    with pytest.raises(InvalidInputError, match="significance_level"):
        required_sample_size_for_comparison(1.0, 1.0, 10, 2.0, 1.0, 10, significance_level=1.5)
    with pytest.raises(InvalidInputError, match="alternative"):
        welch_test(1.0, 1.0, 10, 2.0, 1.0, 10, alternative="both")  # type: ignore[arg-type]


# --- coverage simulation -------------------------------------------


def ar1(rng: np.random.Generator, phi: float, n: int, size: int) -> np.ndarray:
    """``size`` AR(1) series of length n, stationary start, innovations N(0, 1)."""
    out = np.empty((size, n))
    out[:, 0] = rng.normal(size=size) / math.sqrt(1 - phi**2)
    noise = rng.normal(size=(size, n))
    for t in range(1, n):
        out[:, t] = phi * out[:, t - 1] + noise[:, t]
    return out


def coverage(phi: float, replications: int, *, naive_iid: bool = False) -> float:
    rng = np.random.default_rng(20261121 + int(phi * 10))
    data = ar1(rng, phi, 2000, replications) + 10.0
    hits = 0
    for x in data:
        if naive_iid:
            result = subsession_analysis(x, subsession_size=1)
        else:
            result = subsession_analysis(x)
        hits += result.ci_low <= 10.0 <= result.ci_high
    return hits / replications


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pilotstats.exceptions.DataRangeWarning")
@pytest.mark.parametrize(("phi", "low", "high"), [(0.0, 0.93, 0.97), (0.5, 0.90, 1.0),
                                                  (0.8, 0.90, 1.0)])
def test_coverage_ar1(phi: float, low: float, high: float) -> None:
    rate = coverage(phi, 1000)
    print(f"coverage phi={phi}: {rate:.3f}")
    assert low <= rate <= high


@pytest.mark.slow
def test_naive_iid_interval_undercovers_at_phi_08() -> None:
    rate = coverage(0.8, 1000, naive_iid=True)
    print(f"naive q=1 coverage phi=0.8: {rate:.3f}")
    assert rate < 0.75  # theory: about 2 Phi(1.96 sqrt((1-phi)/(1+phi))) - 1 = 0.57


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


def test_comparison_sample_size_names_the_baseline_arguments() -> None:
    from pilotstats.autocorrelation import required_sample_size_for_comparison

    with pytest.raises(InvalidInputError, match=r"^baseline_mean must"):
        required_sample_size_for_comparison(math.nan, 1, 10, 1, 1, 10)
    with pytest.raises(InvalidInputError, match=r"^var must"):
        required_sample_size_for_comparison(1, 1, 10, 1, -1, 10)


# Small samples say so: ``subsession_analysis`` warns when strong autocorrelation leaves too few
# effective samples for its nominal coverage (README, "Small samples say so";
# ``benchmarks/bench_subsession_coverage.py`` for the full table).
def _ar1(seed: int, phi: float, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0] / np.sqrt(1.0 - phi * phi)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + e[i]
    return x


def test_strong_autocorrelation_with_few_effective_samples_warns() -> None:
    x = _ar1(3, 0.95, 500)
    with pytest.warns(DataRangeWarning, match="strong autocorrelation") as caught:
        result = subsession_analysis(x)
    message = str(caught[0].message)
    assert f"h = {result.n_subsessions}" in message and "collect more samples" in message


@pytest.mark.parametrize(("phi", "n"), [(0.0, 200), (0.5, 500), (0.95, 50_000)])
def test_no_warning_when_the_sample_is_large_enough_or_independent(phi: float, n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        subsession_analysis(_ar1(4, phi, n))


def test_textbook_example_and_explicit_subsession_size_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        subsession_analysis(ferrari_response_times())  # lag-1 r = 0.64: below 0.7
        subsession_analysis(_ar1(3, 0.95, 500), subsession_size=100)  # the user's choice


def test_thresholds_are_tunables(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _ar1(3, 0.95, 500)
    monkeypatch.setattr(_config, "SUBSESSION_MAX_IMPLIED_AUTOCORRELATION", 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        subsession_analysis(x)


@pytest.mark.slow
def test_warned_intervals_are_the_ones_that_undercover() -> None:
    """Seeded AR(1) phi = 0.95, n = 200 (300 series): the intervals that warned cover well
    below 95 %; i.i.d. series of the same length never warn and cover near 95 %."""
    warned_hits = warned = 0
    for seed in range(300):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = subsession_analysis(_ar1(1000 + seed, 0.95, 200))
        if any(issubclass(w.category, DataRangeWarning) for w in caught):
            warned += 1
            warned_hits += result.ci_low <= 0.0 <= result.ci_high
    assert warned >= 150
    assert warned_hits / warned < 0.9
    hits = 0
    for seed in range(300):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = subsession_analysis(_ar1(5000 + seed, 0.0, 200))
        hits += result.ci_low <= 0.0 <= result.ci_high
    assert 0.91 <= hits / 300 <= 0.99


@pytest.mark.parametrize(("phi", "q"), [(0.9, 10), (0.5, 3)])
def test_ar1_block_autocorrelation_matches_simulated_block_means(phi: float, q: int) -> None:
    from scipy.signal import lfilter

    from pilotstats.autocorrelation._subsession import _ar1_block_autocorrelation

    x = lfilter([1.0], [1.0, -phi], np.random.default_rng(0).standard_normal(1_000_000))
    blocks = x[: x.size // q * q].reshape(-1, q).mean(axis=1)
    simulated = np.corrcoef(blocks[:-1], blocks[1:])[0, 1]
    assert _ar1_block_autocorrelation(phi, q) == pytest.approx(simulated, abs=0.01)
