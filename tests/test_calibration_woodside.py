"""Calibration against Woodside's tutorial (WOSP/SIPEW 2010), step by step.

Held parameters (slide 47), utilizations as measures (slides 31-32), label switching, H and M
(slide 23), joint confidence regions and contours of E (slides 23, 38-40), residual diagnostics
(slide 47), integer intervals from the profile of E, F tests on different measure sets, open
systems as closed (slides 46/49), weights by trial length (slide 15), the half width in % and
the utilization law.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from pilotstats.exceptions import (
    DegenerateDesignError,
    IdentifiabilityWarning,
    InvalidInputError,
    LabelSwitchingWarning,
    NotEnoughDataError,
)
from pilotstats.regression import (
    ClosedNetworkModel,
    calibrate,
    f_test,
    open_as_closed,
    open_system_conditions,
    polynomial_model,
    utilization_law_demands,
    weights_from_sample_sizes,
)
from tests.reference.queueing import values as ref

TRUE_D = np.array([2.0, 3.0, 4.0])
POPULATIONS = np.array([1, 4, 7, 10, 13, 16, 19])
MODEL = ClosedNetworkModel(3, think_time=10.0)
R_AND_U = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "utilizations"))
R_AND_F = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "throughput"))


def noisy(z: np.ndarray, cv: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return z * (1 + cv * rng.standard_normal(z.shape))


# --------------------------------------------------------------------------- fixed parameters


def test_fixed_by_name_equals_fit_of_the_reduced_model() -> None:
    """fixed={"D1": 2}: the others equal a fit of the model with D1 substituted (brute force)."""
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 4)
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed={"D1": 2.0})

    def reduced(x, u):
        return MODEL(np.array([2.0, x[0], x[1]]), u)

    brute = calibrate(reduced, POPULATIONS, z, [1.0, 1.0])
    assert fit.params[0] == 2.0 and fit.fixed_indices == (0,)
    np.testing.assert_allclose(fit.params[1:], brute.params, rtol=1e-6)
    np.testing.assert_allclose(fit.stderr[1:], brute.stderr, rtol=1e-5)
    assert fit.dof == brute.dof == z.size - 2
    assert math.isnan(fit.stderr[0]) and math.isnan(fit.ci_low[0]) and math.isnan(fit.ci_high[0])
    assert np.isnan(fit.covariance[0]).all()
    assert "(fixed)" in fit.summary()
    json.dumps(fit.to_dict(), allow_nan=False)


def test_fixed_by_index_holds_x0_value_and_by_index_mapping() -> None:
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 5)
    by_list = calibrate(MODEL, POPULATIONS, z, [1.0, 3.0, 1.0], fixed=[1])
    by_map = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed={1: 3.0})
    assert by_list.params[1] == 3.0
    np.testing.assert_allclose(by_list.params, by_map.params, rtol=1e-12)


def test_equal_bounds_mean_fixed_not_an_overflow_error() -> None:
    """lower == upper holds the parameter fixed; no InvalidInputError blaming float overflow."""
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 6)
    pinned = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0],
                       bounds=([2.0, 0.0, 0.0], [2.0, np.inf, np.inf]))
    fixed = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed={"D1": 2.0})
    assert pinned.fixed_indices == (0,)
    np.testing.assert_allclose(pinned.params, fixed.params, rtol=1e-12)


def test_fixed_errors() -> None:
    z = MODEL.evaluate_all(TRUE_D, POPULATIONS)
    with pytest.raises(InvalidInputError, match="unknown parameter name 'D9'"):
        calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed={"D9": 1.0})
    with pytest.raises(InvalidInputError, match="fixed value of D1"):
        calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed={"D1": -1.0})
    with pytest.raises(InvalidInputError, match="at least one parameter must be estimated"):
        calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed=[0, 1, 2])
    with pytest.raises(InvalidInputError, match="fixed must be"):
        calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], fixed="D1")


# --------------------------------------------------------------------------- utilizations


def test_utilizations_measure_matches_rc1_and_the_utilization_law() -> None:
    """ClosedNetworkModel(measures=("utilization",)) is accepted."""
    model = ClosedNetworkModel(3, think_time=10.0, measures=("utilization",))
    assert model.measures == ("utilizations",) and model.measure_names == ("U1", "U2", "U3")
    u = model(TRUE_D, 10)
    np.testing.assert_allclose(u, [float(v) for v in ref.RC1_U_Z10_N10], rtol=0, atol=5e-11)
    # multi-server (per server) and two classes (summed over classes)
    servers = ClosedNetworkModel(3, think_time=10.0, servers=[1, 2, 4],
                                 measures=("throughput", "utilizations"))
    out = servers(TRUE_D, 10)
    np.testing.assert_allclose(out[1:], out[0] * TRUE_D / [1, 2, 4], rtol=1e-12)
    two = ClosedNetworkModel(3, classes=2, think_time=[10.0, 30.0],
                             measures=("throughput", "utilizations"))
    demands = np.array([[2.0, 5.0], [3.0, 10.0], [4.0, 1.0]])
    out = two(demands.ravel(), [4, 5])
    np.testing.assert_allclose(out[2:], demands @ out[:2], rtol=1e-12)
    assert two.measure_names == ("f1", "f2", "U1", "U2", "U3")


def test_r_and_u_calibration_recovers_truth_where_r_only_swaps_queues() -> None:
    """Slides 31-32: R and U identify the stations; R alone (and f) does not say which is
    which: a fit on R and f from an asymmetric start can return swapped queues, and that
    is flagged."""
    z = noisy(R_AND_U.evaluate_all(TRUE_D, POPULATIONS), 0.02, 1)
    fit = calibrate(R_AND_U, POPULATIONS, z, [1.0, 1.0, 1.0])
    assert ((fit.ci_low <= TRUE_D) & (TRUE_D <= fit.ci_high)).all()
    assert fit.interchangeable == ()
    z_rf = noisy(R_AND_F.evaluate_all(TRUE_D, POPULATIONS), 0.02, 7)
    with pytest.warns(LabelSwitchingWarning, match="D1, D2, D3"):
        swapped = calibrate(R_AND_F, POPULATIONS, z_rf, [3.5, 2.5, 1.5])
    assert swapped.interchangeable == (("D1", "D2", "D3"),)
    assert "label switching" in swapped.summary()
    # holding one of them fixed leaves the other two interchangeable
    with pytest.warns(LabelSwitchingWarning, match="D2, D3"):
        held = calibrate(R_AND_F, POPULATIONS, z_rf, [2.0, 2.5, 3.5], fixed={"D1": 2.0})
    assert held.interchangeable == (("D2", "D3"),)


def test_label_switching_of_a_plain_callable() -> None:
    """Models without declared symmetries are probed by transpositions."""

    def symmetric(x, u):
        return (x[0] + x[1]) * u + x[0] * x[1] * u**2

    u = np.arange(1.0, 9.0)
    z = symmetric([1.0, 2.0], u) * (1 + 0.01 * np.sin(3 * u))
    with pytest.warns(LabelSwitchingWarning, match="x\\[0\\], x\\[1\\]"):
        fit = calibrate(symmetric, u, z, [0.5, 3.0])
    assert fit.interchangeable == (("x[0]", "x[1]"),)
    line = calibrate(polynomial_model(1), u, 1 + 2 * u + 0.01 * np.sin(u), [0.0, 0.0],
                     weights=None)
    assert line.interchangeable == ()
    assert issubclass(LabelSwitchingWarning, IdentifiabilityWarning)


# --------------------------------------------------------------------------- H and M


def test_sensitivity_and_information_of_a_linear_model() -> None:
    """Slide 23: H = ∂h/∂x (here the design matrix), M = Σ Hᵀ W H, P = mse M⁻¹."""
    u = np.arange(1.0, 9.0)
    z = 1 + 2 * u + 0.3 * u**2 + 0.05 * np.cos(4 * u)
    fit = calibrate(polynomial_model(2), u, z, [0.0, 0.0, 0.0])  # IRLS weights
    design = np.vander(u, 3, increasing=True)
    np.testing.assert_allclose(fit.sensitivity[:, 0, :], design, rtol=1e-7, atol=1e-9)
    w = fit.weights[:, 0]
    np.testing.assert_allclose(fit.information, design.T @ (w[:, None] * design), rtol=1e-7)
    np.testing.assert_allclose(fit.covariance, fit.mse * np.linalg.inv(fit.information),
                               rtol=1e-6)


def test_sensitivity_marks_fixed_and_integer_columns() -> None:
    model = ClosedNetworkModel(3, think_time=10.0, server_parameters=[2])
    z = noisy(model.evaluate_all(np.array([2.0, 3.0, 4.0, 2.0]), POPULATIONS), 0.01, 3)
    fit = calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0, 2.0], integer=[3], fixed={"D1": 2.0})
    assert fit.sensitivity.shape == (7, 4, 4)
    assert np.isnan(fit.sensitivity[..., [0, 3]]).all()
    assert np.isfinite(fit.sensitivity[..., [1, 2]]).all()
    assert np.isnan(fit.information[0]).all() and np.isnan(fit.information[:, 3]).all()


# --------------------------------------------------------------------------- regions


def test_confidence_region_of_a_linear_model_is_its_ellipse() -> None:
    """For a model linear in x, S is exactly quadratic: the E contour is the ellipse."""
    u = np.arange(1.0, 11.0)
    z = 1 + 2 * u + 0.2 * np.sin(5 * u)
    fit = calibrate(polynomial_model(1), u, z, [0.0, 0.0], weights=None)
    region = fit.confidence_region(0.9, grid=31)
    f = stats.f.ppf(0.9, 2, fit.dof)
    assert region.f_quantile == pytest.approx(f, rel=1e-12)
    assert region.sse_threshold == pytest.approx(fit.sse * (1 + 2 * f / fit.dof), rel=1e-12)
    # boundary points of the ellipse: (x − x̂)ᵀ P⁻¹ (x − x̂) = 2 F, and S there = threshold
    d = region.ellipse - region.center
    quad = np.einsum("ki,ij,kj->k", d, np.linalg.inv(region.covariance), d)
    np.testing.assert_allclose(quad, 2 * f, rtol=1e-9)
    for point in region.ellipse[::30]:
        residual = z - (point[0] + point[1] * u)
        assert residual @ residual == pytest.approx(region.sse_threshold, rel=1e-6)
    assert region.agreement > 0.99 and not region.profiled
    assert region.contains(*fit.params) and region.contains(*fit.params, region="exact")
    json.dumps(region.to_dict(), allow_nan=False)


def test_confidence_region_of_the_three_station_model_is_nearly_elliptical() -> None:
    """Slides 38-40: "contours of E nearly elliptical, so the assumptions are supported"."""
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 8)
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0])
    region = fit.confidence_region(pair=("D1", "D3"), grid=15)
    assert region.parameter_names == ("D1", "D3") and region.profiled
    assert region.agreement > 0.95
    # the exact profile at the estimate is S(x̂); far outside the ellipse it exceeds the bar
    assert np.nanmin(region.sse_grid) == pytest.approx(fit.sse, rel=1e-2)
    assert region.sse_grid[0, 0] > region.sse_threshold
    with pytest.raises(InvalidInputError, match="two different"):
        fit.confidence_region(pair=("D1", "D1"))
    with pytest.raises(InvalidInputError, match="unknown parameter"):
        fit.confidence_region(pair=("D1", "Q"))


def test_region_and_residual_plots() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 9)
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0])
    ax = fit.confidence_region(grid=9, profile=False).plot()
    assert ax.get_xlabel() == "D1" and ax.get_ylabel() == "D2"
    ax = fit.residual_diagnostics().plot(xlabel="N")
    assert ax.get_xlabel() == "N" and len(ax.lines) >= 4


# --------------------------------------------------------------------------- residuals


def test_residual_diagnostics_reference_values() -> None:
    """Trend F test, Shapiro–Wilk and lack of fit against statsmodels / scipy."""
    sm = pytest.importorskip("statsmodels.api")
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(11)
    n = np.repeat(np.arange(1.0, 9.0), 3)
    z = 1 + 0.5 * n + 0.04 * n**2 + 0.1 * rng.standard_normal(n.size)
    fit = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    diag = fit.residual_diagnostics(significance_level=0.01)
    r = fit.residuals[:, 0] / math.sqrt(fit.mse)
    np.testing.assert_allclose(diag.standardized[:, 0], r, rtol=1e-12)
    design = sm.add_constant(np.column_stack([n, n**2]))
    assert diag.trend_p_values[0] == pytest.approx(sm.OLS(r, design).fit().f_pvalue, rel=1e-7)
    linear = fit.residual_diagnostics(trend_degree=1)
    assert linear.trend_p_values[0] == pytest.approx(stats.linregress(n, r).pvalue, rel=1e-7)
    w, p = stats.shapiro(r)
    assert diag.normality_statistic == pytest.approx(w) and diag.normality_p_value == p
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"z": z, "n": n})
    table = anova_lm(ols("z ~ n", frame).fit(), ols("z ~ C(n)", frame).fit())
    assert diag.lack_of_fit_dof == (6, 16)
    assert diag.lack_of_fit_statistic == pytest.approx(table["F"].iloc[1], rel=1e-9)
    assert diag.lack_of_fit_p_value == pytest.approx(table["Pr(>F)"].iloc[1], rel=1e-7)
    assert diag.lack_of_fit and diag.trend_detected
    json.dumps(diag.to_dict(), allow_nan=False)


def test_residual_trend_flags_additional_resource_use() -> None:
    """Slide 47: a trend of the residuals indicates additional resource use. The true demand
    of station 3 grows 2 % per user; the constant-demand model leaves a trend."""
    populations = np.arange(1, 20, 2)
    z = np.array([MODEL(np.array([2.0, 3.0, 4.0 * (1 + 0.02 * n)]), n) for n in populations])
    fit = calibrate(MODEL, populations, noisy(z, 0.02, 0), [1.0, 2.0, 3.0])
    assert fit.residual_diagnostics().trend_detected
    honest = calibrate(MODEL, populations,
                       noisy(MODEL.evaluate_all(TRUE_D, populations), 0.02, 0), [1.0, 2.0, 3.0])
    diag = honest.residual_diagnostics()
    assert not diag.trend_detected and math.isnan(diag.lack_of_fit_p_value)
    assert diag.measure_names == ("T1", "T2", "T3", "f")


def test_residual_diagnostics_needs_an_axis_for_row_conditions() -> None:
    model = ClosedNetworkModel(3)
    rows = [[n, 10.0] for n in POPULATIONS]
    fit = calibrate(model, rows, noisy(model.evaluate_all(TRUE_D, rows), 0.02, 1),
                    [1.0, 1.0, 1.0])
    with pytest.raises(InvalidInputError, match="condition_index"):
        fit.residual_diagnostics()
    np.testing.assert_array_equal(
        fit.residual_diagnostics(condition_index=0).condition_values, POPULATIONS
    )
    with pytest.raises(InvalidInputError, match="x_axis"):
        fit.residual_diagnostics(x_axis=[1, 2])


# --------------------------------------------------------------------------- integers


def test_integer_interval_from_the_profile_of_e() -> None:
    """Integer parameters had NaN intervals; the tutorial reports ±0.207-type half widths.
    Brute force: refit with the count held at m̂ ± 1 and the weights frozen at x̂."""
    model = ClosedNetworkModel(3, think_time=10.0, server_parameters=[2])
    truth = np.array([2.0, 3.0, 4.0, 2.0])
    z = noisy(model.evaluate_all(truth, POPULATIONS), 0.03, 2)
    fit = calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0, 2.0], integer=[3])
    assert fit.params[3] == 2.0 and math.isnan(fit.stderr[3])
    critical = fit.sse * (1 + fit.t_quantile**2 / fit.dof)
    ends = []
    for side in (-1.0, 1.0):
        start = np.array(fit.params)
        start[3] += side
        held = calibrate(model, POPULATIONS, z, start, weights=np.array(fit.weights),
                         fixed=[3])
        ends.append(2.0 + side * math.sqrt((critical - fit.sse) / (held.sse - fit.sse)))
    assert fit.ci_low[3] == pytest.approx(ends[0], rel=1e-6)
    assert fit.ci_high[3] == pytest.approx(ends[1], rel=1e-6)
    assert 0 < fit.ci_high[3] - 2.0 < 1 and 0 < 2.0 - fit.ci_low[3] < 1
    line = next(v for v in fit.summary().splitlines() if v.strip().startswith("m3"))
    assert "(integer)" in line and "[" in line


# --------------------------------------------------------------------------- summary


def test_summary_shows_half_width_percent() -> None:
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 10)
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0])
    text = fit.summary()
    assert "± %" in text.splitlines()[1]
    for i, line in enumerate(text.splitlines()[2:5]):
        percent = 100 * fit.t_quantile * fit.stderr[i] / fit.params[i]
        assert float(line.split()[-1]) == pytest.approx(percent, rel=1e-2)
        assert fit.half_width_percent[i] == pytest.approx(percent, rel=1e-12)


# --------------------------------------------------------------------------- F tests


def test_f_test_on_different_measure_sets_refits_on_the_common_measures() -> None:
    """The restricted model is fitted on R (m = 1), the full one on R and U (m = 4): f_test
    accepts this. Brute force: refit both on R with common frozen weights."""
    two_r = ClosedNetworkModel(2, think_time=10.0, measures=("response_time",))
    three_r = ClosedNetworkModel(3, think_time=10.0, measures=("response_time",))
    conditions = np.arange(1, 26, 2)
    z = noisy(R_AND_U.evaluate_all(TRUE_D, conditions), 0.01, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentifiabilityWarning)
        restricted = calibrate(two_r, conditions, z[:, :1], [1.0, 2.0])
        full = calibrate(R_AND_U, conditions, z, [1.0, 1.5, 2.0])
        result = f_test(restricted, full)
        b = calibrate(three_r, conditions, z[:, :1], np.array(full.params))
        a = calibrate(two_r, conditions, z[:, :1], np.array(restricted.params),
                      weights=np.array(b.weights))
    assert result.common_measures == ("R",) and result.refitted
    assert result.sse_full == pytest.approx(b.sse, rel=1e-6)
    assert result.sse_restricted == pytest.approx(a.sse, rel=1e-6)
    f = ((a.sse - b.sse) / 1) / (b.sse / b.dof)
    assert result.statistic == pytest.approx(f, rel=1e-5)
    assert result.dof1 == 1 and result.dof2 == conditions.size - 3
    assert result.p_value == pytest.approx(stats.f.sf(f, 1, b.dof), rel=1e-4)
    # explicit columns give the same test
    same = f_test(restricted, full, common_measures=([0], [0]))
    assert same.statistic == pytest.approx(result.statistic, rel=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentifiabilityWarning)
        shorter = calibrate(two_r, conditions[:-1], z[:-1, :1], [1.0, 2.0])
    with pytest.raises(InvalidInputError, match="same trials"):
        f_test(shorter, full)


def test_f_test_tutorial_form_is_the_mse_ratio() -> None:
    n = np.arange(1.0, 13.0)
    z = 1 + 0.5 * n + 0.02 * n**2 + 0.01 * np.sin(7 * n)
    line = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    quad = calibrate(polynomial_model(2), n, z, [0.0, 0.0, 0.0], weights=None)
    result = f_test(line, quad, form="tutorial")
    assert result.form == "tutorial"
    assert result.statistic == pytest.approx(line.mse / quad.mse, rel=1e-12)
    assert (result.dof1, result.dof2) == (line.dof, quad.dof)
    assert result.p_value == pytest.approx(stats.f.sf(line.mse / quad.mse, 10, 9), rel=1e-12)
    assert "tutorial form" in str(result)
    with pytest.raises(InvalidInputError, match="form"):
        f_test(line, quad, form="slides")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- trials


def test_open_system_conditions_reproduce_open_as_closed_rc5() -> None:
    """Slides 46/49: an open system with measured f as closed classes [N, Z = N/f]."""
    rows = open_system_conditions([0.2, 0.1], population=1000)
    np.testing.assert_array_equal(rows, [[1000.0, 5000.0], [1000.0, 10000.0]])
    model = ClosedNetworkModel(3, measures=("residence_times", "throughput"))
    out = model.evaluate_all(TRUE_D, rows)
    direct = open_as_closed(TRUE_D, 0.2, population=1000)
    np.testing.assert_allclose(out[0, :3], direct.residence_times, rtol=1e-12)
    assert out[0, 3] == pytest.approx(0.1988106343, abs=5e-11)  # RC-5
    two = open_system_conditions([[0.1, 0.05]], population=10)
    np.testing.assert_array_equal(two, [[10.0, 10.0, 100.0, 200.0]])
    for bad in ([0.0, 0.1], [np.nan]):
        with pytest.raises(InvalidInputError):
            open_system_conditions(bad)


def test_weights_from_sample_sizes_equal_explicit_weights() -> None:
    """Slide 15: variance of a trial's mean ~ 1/S, so weight ∝ S."""
    sizes = np.array([100, 100, 200, 400, 400, 800, 800])
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 13)
    absolute = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0],
                         weights=weights_from_sample_sizes(sizes, relative=False))
    explicit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], weights=sizes.astype(float))
    np.testing.assert_allclose(absolute.params, explicit.params, rtol=1e-8)
    np.testing.assert_allclose(absolute.stderr, explicit.stderr, rtol=1e-6)
    relative = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0],
                         weights=weights_from_sample_sizes(sizes))
    frozen = (sizes / sizes.mean())[:, None] / relative.predictions**2
    np.testing.assert_allclose(relative.weights, frozen, rtol=1e-9)
    refit = calibrate(MODEL, POPULATIONS, z, relative.params, weights=frozen)
    np.testing.assert_allclose(refit.params, relative.params, rtol=1e-6)
    with pytest.raises(InvalidInputError):
        weights_from_sample_sizes([10, 0])
    with pytest.raises(InvalidInputError, match="built for 2 trials"):
        calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0],
                  weights=weights_from_sample_sizes([1, 2]))


# --------------------------------------------------------------------------- utilization law


def test_utilization_law_matches_statsmodels_ols_and_wls() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    x = np.linspace(0.02, 0.2, 9)
    u = np.outer(x, TRUE_D) * (1 + 0.05 * rng.standard_normal((9, 3)))
    ols = utilization_law_demands(x, u, confidence_level=0.9)
    wls = utilization_law_demands(x, u, weights="relative")
    for k in range(3):
        reference = sm.OLS(u[:, k], x[:, None]).fit()
        assert ols.demands[k] == pytest.approx(reference.params[0], rel=1e-12)
        assert ols.stderr[k] == pytest.approx(reference.bse[0], rel=1e-10)
        low, high = reference.conf_int(alpha=0.1)[0]
        assert ols.ci_low[k] == pytest.approx(low, rel=1e-10)
        assert ols.ci_high[k] == pytest.approx(high, rel=1e-10)
        weighted = sm.WLS(u[:, k], x[:, None], weights=1 / x**2).fit()
        assert wls.demands[k] == pytest.approx(weighted.params[0], rel=1e-10)
        assert wls.stderr[k] == pytest.approx(weighted.bse[0], rel=1e-8)
        assert wls.demands[k] == pytest.approx(np.mean(u[:, k] / x), rel=1e-12)
    assert ols.dof == 8 and wls.weights == "relative"
    json.dumps(ols.to_dict(), allow_nan=False)


def test_utilization_law_two_classes_and_servers() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(4)
    x = rng.uniform(0.01, 0.1, size=(12, 2))
    demands = np.array([[2.0, 5.0], [3.0, 10.0]])
    servers = np.array([1.0, 2.0])
    u = (x @ demands.T) / servers + 0.005 * rng.standard_normal((12, 2))
    result = utilization_law_demands(x, u, servers=servers)
    assert result.demands.shape == (2, 2) and result.dof == 10
    for k in range(2):
        reference = sm.OLS(u[:, k] * servers[k], x).fit()
        np.testing.assert_allclose(result.demands[k], reference.params, rtol=1e-10)
        np.testing.assert_allclose(result.stderr[k], reference.bse, rtol=1e-9)
    relative = utilization_law_demands(x, np.clip(u, 1e-3, None), weights="relative")
    assert relative.passes > 1 and np.isfinite(relative.stderr).all()
    assert "D2,2" in str(result)


def test_utilization_law_errors() -> None:
    with pytest.raises(InvalidInputError, match="trials"):
        utilization_law_demands([0.1, 0.2], [[0.2], [0.4], [0.6]])
    with pytest.raises(NotEnoughDataError):
        utilization_law_demands([0.1], [0.2])
    with pytest.raises(DegenerateDesignError):
        utilization_law_demands([0.0, 0.0, 0.0], [0.1, 0.2, 0.3])
    with pytest.raises(DegenerateDesignError):
        utilization_law_demands([[0.1, 0.2], [0.2, 0.4], [0.3, 0.6]], [0.1, 0.2, 0.3])
    with pytest.raises(InvalidInputError, match="servers"):
        utilization_law_demands([0.1, 0.2], [0.2, 0.4], servers=[0.5])
    with pytest.raises(InvalidInputError):
        utilization_law_demands([0.1, np.nan], [0.2, 0.4])
