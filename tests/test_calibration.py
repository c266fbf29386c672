"""Tests of calibrate, identifiability diagnostics, F tests and polynomial comparison
(calibration spec §3–§8, §12)."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import least_squares

from pilotstats.exceptions import (
    ConvergenceWarning,
    IdentifiabilityWarning,
    InvalidInputError,
    LabelSwitchingWarning,
    NotEnoughDataError,
)
from pilotstats.regression import (
    CalibrationResult,
    ClosedNetworkModel,
    SolverOptions,
    calibrate,
    compare_polynomials,
    design_diagnostics,
    f_test,
    polynomial_model,
)
from tests.reference.queueing import values as ref

TRUE_D = np.array([2.0, 3.0, 4.0])
POPULATIONS = np.array([1, 4, 7, 10, 13, 16, 19])
MODEL = ClosedNetworkModel(3, think_time=10.0)


def noisy(z: np.ndarray, cv: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return z * (1 + cv * rng.standard_normal(z.shape))


@pytest.fixture(scope="module")
def clean() -> np.ndarray:
    return MODEL.evaluate_all(TRUE_D, POPULATIONS)


@pytest.fixture(scope="module")
def data(clean: np.ndarray) -> np.ndarray:
    return noisy(clean, 0.05, 1)


# --------------------------------------------------------------------------- recovery


@pytest.mark.parametrize(
    ("weights", "fd"), [(None, "forward"), ("fixed", "forward"), ("irls", "forward"),
                        ("irls", "central")]
)
def test_noise_free_recovery_from_ones(clean: np.ndarray, weights, fd) -> None:
    """Spec §12: noise-free RC-1 data, start [1, 1, 1] → D to 1e-6."""
    fit = calibrate(MODEL, POPULATIONS, clean, [1.0, 1.0, 1.0], weights=weights,
                    solver_options=SolverOptions(fd=fd))
    np.testing.assert_allclose(fit.params, TRUE_D, rtol=1e-6)
    assert fit.converged and fit.status == "converged"
    assert fit.iterations <= 30


def test_poor_start_uses_step_halving(data: np.ndarray) -> None:
    fit = calibrate(MODEL, POPULATIONS, data, [20.0, 0.1, 0.1], weights=None)
    assert fit.converged
    assert (fit.history[:, 2] < 1).any(), "a full first step from a poor start must be halved"
    good = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0], weights=None)
    np.testing.assert_allclose(fit.params, good.params, rtol=1e-6)
    assert np.all(np.diff(fit.history[:, 0]) <= 0), "S must never increase"


def test_result_fields_and_json(data: np.ndarray) -> None:
    fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0])
    assert isinstance(fit, CalibrationResult)
    assert fit.dof == 7 * 4 - 3 and fit.n_observations == 28
    assert fit.mse == pytest.approx(fit.sse / fit.dof)
    assert fit.t_quantile == pytest.approx(stats.t.ppf(0.975, 25))
    np.testing.assert_allclose(fit.stderr, np.sqrt(np.diag(fit.covariance)))
    np.testing.assert_allclose(fit.ci_high - fit.params, fit.t_quantile * fit.stderr)
    low, high = fit.confidence_interval(0.99)
    assert (low < fit.ci_low).all() and (high > fit.ci_high).all()
    assert fit.rank == 3 and fit.condition_number < 1e3
    assert fit.parameter_names == ("D1", "D2", "D3")
    assert fit.weighting == "irls" and fit.irls_passes >= 2
    assert isinstance(fit.sse, float) and isinstance(fit.dof, int)
    assert "95 % CI" in str(fit) and "D3" in fit.summary()
    json.dumps(fit.to_dict(), allow_nan=False)
    assert not fit.params.flags.writeable
    assert "<table>" in fit._repr_html_()


def test_rc9_quantiles_used_by_fits(data: np.ndarray) -> None:
    """RC-9: t_{0.975; 25} (7 trials × 4 measures, 3 demands) and t_{0.975; 24} (28 values,
    4 parameters) are the quantiles calibrate uses."""
    fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0])
    assert fit.dof == 25
    assert fit.t_quantile == pytest.approx(float(ref.RC9_T[25]), abs=5e-7)
    n = np.arange(1.0, 29.0)
    cubic = calibrate(polynomial_model(3), n, 1 + n + 0.01 * n**3 + np.sin(n), np.zeros(4))
    assert cubic.dof == 24
    assert cubic.t_quantile == pytest.approx(float(ref.RC9_T[24]), abs=5e-7)


# --------------------------------------------------------------------------- cross-checks


def _least_squares_reference(model, conditions, z, weights, x0):
    """Same objective with scipy.optimize.least_squares; covariance mse (JᵀJ)⁻¹ (spec §11)."""
    root = np.sqrt(np.asarray(weights))
    observed = np.isfinite(z)

    def residual(x):
        return (root * (np.where(observed, z, 0) - model.evaluate_all(x, conditions)))[observed]

    result = least_squares(
        residual, x0, xtol=1e-15, ftol=1e-15, gtol=1e-15, method="lm", x_scale="jac"
    )
    # Jacobian by central differences (least_squares' own 2-point jac carries ~1e-8 error)
    x = result.x
    cols = []
    for j in range(x.size):
        h = 1e-6 * max(abs(x[j]), 1.0)
        e = np.zeros_like(x)
        e[j] = h
        cols.append((residual(x - e) - residual(x + e)) / (2 * h))
    jac = np.array(cols).T
    dof = observed.sum() - x.size
    mse = float(residual(x) @ residual(x)) / dof
    se = np.sqrt(np.diag(mse * np.linalg.inv(jac.T @ jac)))
    return x, se


class _Callable:
    """A user model given as a plain callable h(x, u) -> vector, wrapped for the reference."""

    def __init__(self, func):
        self.func = func

    def evaluate_all(self, x, conditions):
        return np.array([np.atleast_1d(self.func(x, u)) for u in conditions])


def _vector_model(x, u):
    return np.array([x[0] + x[1] * u, x[0] * np.exp(-x[2] * u / 10.0)])


@pytest.mark.parametrize(
    "case",
    ["mva-ols", "mva-fixed", "mva-irls", "two-class-irls", "vector-callable", "polynomial"],
)
def test_agrees_with_scipy_least_squares(case: str, data: np.ndarray) -> None:
    """Spec §11/§12: estimates and standard errors agree with least_squares to 1e-6 rel."""
    if case.startswith("mva"):
        weights = {"mva-ols": None, "mva-fixed": "fixed", "mva-irls": "irls"}[case]
        fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0], weights=weights)
        x, se = _least_squares_reference(MODEL, POPULATIONS, data, fit.weights, [1.0, 1, 1])
    elif case == "two-class-irls":
        model = ClosedNetworkModel(3, classes=2, think_time=ref.RC2_THINK)
        grid = [(a, b) for a in (1, 7, 13, 19) for b in (1, 9, 19, 29)]
        true = np.array(ref.RC2_DEMANDS).ravel()
        z = noisy(model.evaluate_all(true, grid), 0.05, 11)
        fit = calibrate(model, grid, z, np.ones(6))
        x, se = _least_squares_reference(model, grid, z, fit.weights, np.ones(6))
    elif case == "vector-callable":
        u = np.linspace(0, 20, 15)
        z = np.array([_vector_model(np.array([1.0, 0.5, 1.5]), v) for v in u])
        z = z + 0.05 * np.random.default_rng(5).standard_normal(z.shape)
        fit = calibrate(_vector_model, u, z, [0.5, 0.3, 1.0], weights=None)
        x, se = _least_squares_reference(_Callable(_vector_model), u, z, fit.weights,
                                         [0.5, 0.3, 1.0])
    else:
        n = np.arange(1.0, 21.0)
        z = 3 + 0.5 * n + 0.08 * n**2 + 0.3 * np.random.default_rng(2).standard_normal(20)
        fit = calibrate(polynomial_model(2), n, z, [0.0, 0.0, 0.0], weights=None)
        x, se = _least_squares_reference(polynomial_model(2), n, z[:, None], fit.weights,
                                          [0.0, 0.0, 0.0])
    np.testing.assert_allclose(fit.params, x, rtol=1e-6)
    np.testing.assert_allclose(fit.stderr, se, rtol=1e-6)


class CheckNistCertified:
    """NIST StRD nonlinear regression, certified values (public domain).

    Source: https://www.itl.nist.gov/div898/strd/nls/data/misra1a.shtml (Misra, 1978;
    "lower difficulty"); model y = b1 (1 − exp(−b2 x)); certified to 11 digits.
    """

    x: np.ndarray
    y: np.ndarray
    start: tuple[float, ...]
    certified_params: tuple[float, ...]
    certified_stderr: tuple[float, ...]
    certified_sse: float

    @pytest.fixture(autouse=True)
    def _fit(self) -> None:
        self.res = calibrate(
            lambda b, u: b[0] * (1 - np.exp(-b[1] * u)), self.x, self.y, self.start, weights=None
        )

    def test_params(self) -> None:
        np.testing.assert_allclose(self.res.params, self.certified_params, rtol=1e-7)

    def test_stderr(self) -> None:
        np.testing.assert_allclose(self.res.stderr, self.certified_stderr, rtol=1e-7)

    def test_sse(self) -> None:
        assert self.res.sse == pytest.approx(self.certified_sse, rel=1e-8)


_MISRA_X = np.array([77.6, 114.9, 141.1, 190.8, 239.9, 289.0, 332.8, 378.4, 434.8, 477.3,
                     536.8, 593.1, 689.1, 760.0])
_MISRA_Y = np.array([10.07, 14.73, 17.94, 23.93, 29.61, 35.18, 40.02, 44.82, 50.76, 55.05,
                     61.01, 66.40, 75.47, 81.78])


class TestMisra1aStart1(CheckNistCertified):
    x, y, start = _MISRA_X, _MISRA_Y, (500.0, 1e-4)
    certified_params = (2.3894212918e02, 5.5015643181e-04)
    certified_stderr = (2.7070075241e00, 7.2668688436e-06)
    certified_sse = 1.2455138894e-01


class TestMisra1aStart2(TestMisra1aStart1):
    start = (250.0, 5e-4)


# --------------------------------------------------------------------------- two classes


def test_two_class_example_recovers_all_six_demands() -> None:
    """Spec §9: RC-2 demands, grid N1 ∈ {1, 4, …, 19} × N2 ∈ {1, 5, …, 29}, 5 % CV."""
    model = ClosedNetworkModel(3, classes=2, think_time=ref.RC2_THINK)
    grid = [(a, b) for a in range(1, 20, 3) for b in range(1, 30, 4)]
    true = np.array(ref.RC2_DEMANDS).ravel()
    clean = model.evaluate_all(true, grid)
    exact = calibrate(model, grid, clean, np.ones(6))
    np.testing.assert_allclose(exact.params, true, rtol=1e-6)
    fit = calibrate(model, grid, noisy(clean, 0.05, 4), np.ones(6))
    assert fit.dof == 442
    assert fit.t_quantile == pytest.approx(float(ref.RC9_T[442]), abs=5e-7)
    # 6 marginal 95 % intervals: all within 3 se (spec §9), at least 5 of 6 cover
    assert (np.abs(fit.params - true) < 3 * fit.stderr).all()
    assert ((fit.ci_low <= true) & (true <= fit.ci_high)).sum() >= 5
    assert fit.condition_number < 1e3


# --------------------------------------------------------------------------- weights


def test_irls_is_a_fixed_point(data: np.ndarray) -> None:
    """Spec §4/§12: a refit with W frozen at x̂ returns x̂."""
    fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0])
    np.testing.assert_allclose(fit.weights, 1 / fit.predictions**2, rtol=1e-12)
    refit = calibrate(MODEL, POPULATIONS, data, fit.params, weights=np.array(fit.weights))
    np.testing.assert_allclose(refit.params, fit.params, rtol=1e-6)
    np.testing.assert_allclose(refit.stderr, fit.stderr, rtol=1e-5)


def test_fixed_weights_reject_zero_measurement(data: np.ndarray) -> None:
    z = data.copy()
    z[2, 1] = 0.0
    with pytest.raises(InvalidInputError, match="1/z"):
        calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], weights="fixed")


def test_callable_and_covariance_weights(data: np.ndarray) -> None:
    irls = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0])
    by_callable = calibrate(
        MODEL, POPULATIONS, data, [1.0, 1.0, 1.0], weights=lambda y, z: 1.0 / y**2
    )
    np.testing.assert_allclose(by_callable.params, irls.params, rtol=1e-6)
    fixed = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0], weights="fixed")
    cov = np.stack([np.diag(row**2) for row in data])
    gls = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0], covariance=cov)
    np.testing.assert_allclose(gls.params, fixed.params, rtol=1e-7)
    np.testing.assert_allclose(gls.stderr, fixed.stderr, rtol=1e-6)
    assert gls.weighting == "covariance"


def test_missing_values_get_zero_weight(data: np.ndarray) -> None:
    z = data.copy()
    z[3, 0] = np.nan
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0], weights=None)
    assert fit.n_observations == 27 and fit.dof == 24
    assert fit.weights[3, 0] == 0.0
    assert np.isfinite(fit.params).all()


# --------------------------------------------------------------------------- identifiability


def test_throughput_at_one_population_is_rank_deficient() -> None:
    """Spec §8: throughput alone at one population identifies only a combination of D."""
    model = ClosedNetworkModel(3, think_time=10.0, measures=("throughput",))
    conditions = [10] * 6
    z = noisy(model.evaluate_all(TRUE_D, conditions), 0.01, 8)
    with pytest.warns(IdentifiabilityWarning, match="rank 1 of 3") as record:
        fit = calibrate(model, conditions, z, [1.0, 1.0, 1.0], weights=None)
    message = str(record[0].message)
    for name in ("D1", "D2", "D3"):
        assert name in message
    assert fit.rank == 1 and fit.status == "rank_deficient"
    assert np.isnan(fit.stderr).all() and np.isnan(fit.ci_low).all()
    assert fit.poorly_determined == ("D1", "D2", "D3")
    assert math.isinf(fit.condition_number)
    diag = design_diagnostics(model, conditions, TRUE_D)
    assert diag.rank == 1 and not diag.identifiable
    json.dumps(fit.to_dict(), allow_nan=False)


def test_per_station_times_are_well_conditioned() -> None:
    diag = design_diagnostics(MODEL, POPULATIONS, TRUE_D, weights="irls")
    assert diag.identifiable and diag.rank == 3
    assert diag.scaled_condition_number < 100
    assert diag.message() == ""
    assert "identifiable" in str(diag)


def test_symmetric_start_total_response_time_is_singular() -> None:
    """Spec §3: start [2, 2, 2] with only R measured gives an exactly singular M."""
    model = ClosedNetworkModel(3, think_time=10.0, measures=("response_time",))
    z = model.evaluate_all(TRUE_D, POPULATIONS)
    with pytest.warns(IdentifiabilityWarning):
        fit = calibrate(model, POPULATIONS, noisy(z, 0.01, 2), [2.0, 2.0, 2.0], weights=None,
                        solver_options=SolverOptions(max_iter=5))
    assert fit.rank_deficient_steps >= 1


def test_unused_parameter_named() -> None:
    def model(x, u):
        return x[0] * u + 0.0 * x[1]

    u = np.arange(1.0, 8.0)
    with pytest.warns(IdentifiabilityWarning, match="x\\[1\\]"):
        fit = calibrate(model, u, 2 * u + 0.01 * np.sin(u), [1.0, 1.0], weights=None)
    assert fit.poorly_determined == ("x[1]",)


# --------------------------------------------------------------------------- integers


@pytest.mark.parametrize("start_servers", [1.0, 4.0])
def test_integer_server_count_found_from_both_sides(start_servers: float) -> None:
    """Spec §5/§12: true m3 = 2 with unknown demands; starts on both sides reach it."""
    model = ClosedNetworkModel(3, think_time=10.0, server_parameters=[2])
    truth = np.array([2.0, 3.0, 4.0, 2.0])
    z = model.evaluate_all(truth, POPULATIONS)
    fit = calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0, start_servers], integer=[3])
    assert fit.params[3] == 2.0
    np.testing.assert_allclose(fit.params[:3], truth[:3], rtol=1e-5)
    configurations = dict(fit.integer_profile)
    assert (2,) in configurations and len(configurations) >= 2
    assert configurations[(2,)] == min(configurations.values())
    # No linearised se for an integer, but a profile interval (noise-free data:
    # S(x̂) ~ 0, so the interval shrinks onto the estimate)
    assert np.isnan(fit.stderr[3])
    assert fit.ci_low[3] <= 2.0 <= fit.ci_high[3] and fit.ci_high[3] - fit.ci_low[3] < 0.1
    assert fit.integer_indices == (3,)


def test_integer_tutorial_strategies_run() -> None:
    model = ClosedNetworkModel(3, think_time=10.0, server_parameters=[2])
    truth = np.array([2.0, 3.0, 4.0, 2.0])
    z = noisy(model.evaluate_all(truth, POPULATIONS), 0.01, 3)
    fit = calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0, 3.0], integer=[3],
                    solver_options=SolverOptions(integer_strategy="tutorial_then_neighbour"))
    assert fit.params[3] == 2.0
    tutorial = calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0, 2.0], integer=[3],
                         solver_options=SolverOptions(integer_strategy="tutorial"))
    assert tutorial.params[3] == 2.0 and len(tutorial.integer_profile) == 1
    with pytest.raises(InvalidInputError, match="whole-number"):
        calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0, 2.5], integer=[3])


# --------------------------------------------------------------------------- prediction


def test_prediction_covariance_and_extrapolation(data: np.ndarray) -> None:
    fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0])
    new = [10, 25, 40]
    pred = fit.predict(new)
    # C = H P Hᵀ by an independent central-difference H
    h = []
    for j in range(3):
        step = 1e-5 * fit.params[j]
        e = np.zeros(3)
        e[j] = step
        h.append((MODEL.evaluate_all(fit.params + e, new) - MODEL.evaluate_all(fit.params - e,
                                                                               new)) / (2 * step))
    jac = np.stack(h, axis=-1)
    cov = np.einsum("tia,ab,tjb->tij", jac, fit.covariance, jac)
    np.testing.assert_allclose(pred.covariance, cov, rtol=1e-6, atol=1e-14)
    np.testing.assert_allclose(pred.half_widths, fit.t_quantile * np.sqrt(np.einsum("tii->ti",
                                                                                     cov)),
                               rtol=1e-6)
    assert pred.half_widths[2, 2] > pred.half_widths[0, 2], "extrapolation widens the band"
    total, half = pred.combine([1, 1, 1, 0])
    np.testing.assert_allclose(total, pred.values[:, :3].sum(axis=1))
    assert (half > 0).all()
    interval = fit.prediction_interval(new)
    assert (interval.half_widths > pred.half_widths).all()
    assert interval.kind == "new observation"
    json.dumps(pred.to_dict(), allow_nan=False)


# --------------------------------------------------------------------------- convergence


def test_max_iter_gives_convergence_warning(data: np.ndarray) -> None:
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0], weights=None,
                        solver_options=SolverOptions(max_iter=1))
    assert fit.status == "max_iter" and not fit.converged


# --------------------------------------------------------------------------- bad input


def _nan_model(x, u):
    return np.nan if u > 3 else x[0] * u


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda d: calibrate(MODEL, POPULATIONS[:5], d, [1.0, 1, 1]), InvalidInputError,
         "one row of measurements per trial"),
        (lambda d: calibrate(MODEL, POPULATIONS, d[:, :3], [1.0, 1, 1]), InvalidInputError,
         "must match"),
        (lambda d: calibrate(_nan_model, [1, 2, 3, 4, 5], [1.0, 2, 3, 4, 5], [1.0]),
         InvalidInputError, "non-finite"),
        (lambda d: calibrate(MODEL, POPULATIONS[:4], d[:4, :2], [1.0, 1, 1]), InvalidInputError,
         "must match"),
        (lambda d: calibrate(ClosedNetworkModel(3, think_time=10.0, measures=("throughput",)),
                             [5, 10], d[:2, 3], [1.0, 1, 1]), NotEnoughDataError, "dof"),
        (lambda d: calibrate(MODEL, POPULATIONS, d, [-1.0, 1, 1]), InvalidInputError,
         "outside its bounds"),
        (lambda d: calibrate(MODEL, POPULATIONS, d, [1.0, 1, 1], weights=np.ones((3, 3))),
         InvalidInputError, "shape"),
        (lambda d: calibrate(MODEL, POPULATIONS, d, [1.0, 1, 1], weights="robust"),
         InvalidInputError, "weights"),
        (lambda d: calibrate(MODEL, POPULATIONS, d, [1.0, 1, 1], confidence_level=95),
         InvalidInputError, "did you mean"),
        (lambda d: calibrate(MODEL, POPULATIONS, d, [1.0, 1]), InvalidInputError, "entries"),
        (lambda d: calibrate("model", POPULATIONS, d, [1.0, 1, 1]), InvalidInputError,
         "callable"),
        (lambda d: calibrate(lambda x, u: 0.0 * x[0], [1, 2, 3], [1.0, 2.0, 3.0], [1.0]),
         InvalidInputError, "non-zero predictions"),
    ],
)
def test_bad_input(call, error, match, data: np.ndarray) -> None:
    with pytest.raises(error, match=match):
        call(data)


def test_inputs_not_modified(data: np.ndarray) -> None:
    z = data.copy()
    x0 = np.array([1.0, 1.0, 1.0])
    calibrate(MODEL, POPULATIONS, z, x0)
    np.testing.assert_array_equal(z, data)
    np.testing.assert_array_equal(x0, [1.0, 1.0, 1.0])


# --------------------------------------------------------------------------- F tests


def _poly_data(seed: int = 6):
    n = np.arange(1.0, 26.0)
    z = 10 + 0.4 * n + 0.03 * n**2 + 0.002 * n**3
    return n, z * (1 + 0.02 * np.random.default_rng(seed).standard_normal(n.size))


@pytest.mark.parametrize("weights", [None, "fixed"])
def test_f_test_equals_statsmodels_compare_f_test(weights) -> None:
    """Spec §7.2: for WLS polynomial fits, f_test = big.compare_f_test(small)."""
    import statsmodels.api as sm

    n, z = _poly_data()
    small = calibrate(polynomial_model(1), n, z, np.zeros(2), weights=weights)
    big = calibrate(polynomial_model(2), n, z, np.zeros(3), weights=weights)
    result = f_test(small, big)
    w = np.ones_like(z) if weights is None else 1 / z**2
    fit_small = sm.WLS(z, np.vander(n, 2, increasing=True), weights=w).fit()
    fit_big = sm.WLS(z, np.vander(n, 3, increasing=True), weights=w).fit()
    statistic, p_value, df_diff = fit_big.compare_f_test(fit_small)
    assert result.statistic == pytest.approx(statistic, rel=1e-6)
    assert result.p_value == pytest.approx(p_value, rel=1e-6)
    assert result.dof1 == df_diff == 1 and result.dof2 == 22
    f_stat, p = result
    assert (f_stat, p) == (result.statistic, result.p_value)
    json.dumps(result.to_dict(), allow_nan=False)
    assert "F =" in str(result)


def test_f_test_irls_refits_restricted_with_full_weights() -> None:
    n, z = _poly_data()
    small = calibrate(polynomial_model(1), n, z, np.zeros(2))
    big = calibrate(polynomial_model(2), n, z, np.zeros(3))
    result = f_test(small, big)
    assert result.refitted
    # restricted refitted with the full model's frozen weights, as WLS
    import statsmodels.api as sm

    w = np.asarray(big.weights)[:, 0]
    ssr_small = sm.WLS(z, np.vander(n, 2, increasing=True), weights=w).fit().ssr
    assert result.sse_restricted == pytest.approx(ssr_small, rel=1e-8)
    expected = (ssr_small - big.sse) / (big.sse / big.dof)
    assert result.statistic == pytest.approx(expected, rel=1e-8)


def test_f_test_two_versus_three_queues() -> None:
    """Spec §7.1: is a third queue needed? Data from 3 queues, R and f measured."""
    three = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "throughput"))
    two = ClosedNetworkModel(2, think_time=10.0, measures=("response_time", "throughput"))
    conditions = np.arange(1, 26, 2)
    z = noisy(three.evaluate_all(TRUE_D, conditions), 0.01, 12)
    # R and f do not say which queue is which (label switching is flagged)
    with pytest.warns(LabelSwitchingWarning, match="D1, D2, D3"):
        full = calibrate(three, conditions, z, [1.0, 1.5, 2.0])
    assert full.interchangeable == (("D1", "D2", "D3"),)
    assert full.scaled_condition_number < 1e3
    # the best two-queue fit has D1 = D2 (R is symmetric in the demands), where the two
    # demands are not separately determined: the diagnostics say so, S_A is still defined
    with pytest.warns(IdentifiabilityWarning, match="D1, D2"):
        restricted = calibrate(two, conditions, z, [1.0, 2.0])
    assert restricted.params[0] == pytest.approx(restricted.params[1], rel=1e-4)
    result = f_test(restricted, full)
    assert result.dof1 == 1 and result.dof2 == 2 * conditions.size - 3
    assert result.p_value < 0.01


def test_f_test_errors_and_negative_statistic() -> None:
    n, z = _poly_data()
    small = calibrate(polynomial_model(1), n, z, np.zeros(2), weights=None)
    big = calibrate(polynomial_model(2), n, z, np.zeros(3), weights=None)
    with pytest.raises(InvalidInputError, match="more parameters"):
        f_test(big, small)
    other = calibrate(polynomial_model(2), n, z * 1.01, np.zeros(3), weights=None)
    with pytest.raises(InvalidInputError, match="same measurements"):
        f_test(small, other)
    # a "full" model that does not contain the restricted one and fits worse
    u = np.arange(1.0, 21.0)
    line = 2.0 + 0.5 * u + 0.01 * np.cos(5 * u)
    restricted = calibrate(polynomial_model(1), u, line, np.zeros(2), weights=None)

    def trig(x, v):
        return x[0] + x[1] * np.sin(v) + x[2] * np.cos(v)

    unrelated = calibrate(trig, u, line, np.ones(3), weights=None)
    assert unrelated.sse > restricted.sse
    with pytest.warns(ConvergenceWarning, match="not nested"):
        result = f_test(restricted, unrelated)
    assert result.p_value == 1.0 and result.statistic < 0


def test_compare_polynomials_pairwise_and_largest() -> None:
    """Spec §7.2/§7.4: pairwise rows = compare_f_test, 'largest' rows = anova_lm."""
    import statsmodels.api as sm
    from statsmodels.stats.anova import anova_lm

    n, z = _poly_data(9)
    table = compare_polynomials(n, z, degrees=range(1, 5), weights=None)
    fits = [sm.OLS(z, np.vander(n, d + 1, increasing=True)).fit() for d in range(1, 5)]
    for i in range(3):
        statistic, p_value, _ = fits[i + 1].compare_f_test(fits[i])
        assert table.statistic[i] == pytest.approx(statistic, rel=1e-8)
        assert table.p_value[i] == pytest.approx(p_value, rel=1e-8)
    assert math.isnan(table.statistic[-1])
    largest = compare_polynomials(n, z, degrees=range(1, 5), weights=None, denominator="largest")
    anova = anova_lm(*fits)
    np.testing.assert_allclose(largest.statistic[:3], anova["F"].to_numpy()[1:], rtol=1e-8)
    np.testing.assert_allclose(largest.p_value[:3], anova["Pr(>F)"].to_numpy()[1:], rtol=1e-8)
    assert largest.statistic[2] == pytest.approx(table.statistic[2], rel=1e-10)
    assert table.recommended_degree in (2, 3)
    assert "recommended" in table.table()
    json.dumps(table.to_dict(), allow_nan=False)


def test_compare_polynomials_recovers_quadratic_with_irls() -> None:
    n = np.arange(1.0, 31.0)
    z = (5 + 0.3 * n + 0.05 * n**2) * (1 + 0.01 * np.random.default_rng(4).standard_normal(30))
    table = compare_polynomials(n, z, degrees=range(1, 6))
    assert table.recommended_degree == 2 and table.weighting == "irls"
    fit = calibrate(polynomial_model(2), n, z, np.zeros(3))
    np.testing.assert_allclose(fit.params, table.coefficients[1], rtol=1e-6)
    with pytest.raises(InvalidInputError, match="consecutive"):
        compare_polynomials(n, z, degrees=[1, 3])
    with pytest.raises(NotEnoughDataError):
        compare_polynomials(n[:4], z[:4], degrees=range(1, 5))


# --------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(scale=st.floats(min_value=0.05, max_value=20.0), seed=st.integers(0, 1000))
def test_unit_change_scales_estimates_and_intervals(scale: float, seed: int) -> None:
    """Times in other units (D, Z, T × c; f / c): estimates and CI ends scale by c."""
    base_model = ClosedNetworkModel(3, think_time=10.0)
    z = noisy(base_model.evaluate_all(TRUE_D, POPULATIONS), 0.03, seed)
    fit = calibrate(base_model, POPULATIONS, z, [1.0, 1.0, 1.0])
    scaled_model = ClosedNetworkModel(3, think_time=10.0 * scale)
    zs = z * np.array([scale, scale, scale, 1 / scale])
    scaled = calibrate(scaled_model, POPULATIONS, zs, [scale, scale, scale])
    np.testing.assert_allclose(scaled.params, scale * fit.params, rtol=1e-6)
    np.testing.assert_allclose(scaled.ci_low, scale * fit.ci_low, rtol=1e-5)
    np.testing.assert_allclose(scaled.ci_high, scale * fit.ci_high, rtol=1e-5)


@settings(max_examples=10, deadline=None)
@given(permutation=st.permutations(list(range(7))))
def test_trial_order_does_not_matter(permutation: list[int]) -> None:
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 17)
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0])
    order = np.array(permutation)
    shuffled = calibrate(MODEL, POPULATIONS[order], z[order], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(shuffled.params, fit.params, rtol=1e-7)
    np.testing.assert_allclose(shuffled.stderr, fit.stderr, rtol=1e-6)


# --------------------------------------------------------------------------- more models


def test_non_nested_one_versus_two_servers() -> None:
    """Spec §7.3: 1 vs 2 servers at station 3 (same n): compare mse, labelled rough guide."""
    from pilotstats.regression import compare_non_nested

    two_servers = ClosedNetworkModel(3, think_time=10.0, servers=[1, 1, 2])
    one_server = ClosedNetworkModel(3, think_time=10.0)
    z = noisy(two_servers.evaluate_all(TRUE_D, POPULATIONS), 0.02, 21)
    a = calibrate(one_server, POPULATIONS, z, [1.0, 1.0, 1.0])
    b = calibrate(two_servers, POPULATIONS, z, [1.0, 1.0, 1.0])
    result = compare_non_nested(a, b)
    assert result.preferred == "b" and result.ratio > 1
    assert result.rough_p_value == pytest.approx(stats.f.sf(a.mse / b.mse, a.dof, b.dof))
    assert "rough guide" in str(result)
    free_servers = ClosedNetworkModel(3, think_time=10.0, server_parameters=[2])
    bigger = calibrate(free_servers, POPULATIONS, z, [1.0, 1.0, 1.0, 2.0], integer=[3])
    assert bigger.params[3] == 2.0
    with pytest.raises(InvalidInputError, match="f_test"):
        compare_non_nested(a, bigger)


def test_thread_pool_size_as_integer_parameter() -> None:
    """Spec §2.5/§5: pool size calibrated as an integer parameter with the demands."""
    from pilotstats.regression import ThreadPoolModel

    model = ThreadPoolModel(2, think_time=10.0)
    populations = [2, 6, 10, 16]
    z = noisy(model.evaluate_all([2.0, 3.0, 3.0], populations), 0.01, 5)
    fit = calibrate(model, populations, z, [1.0, 1.0, 5.0], integer=[2])
    assert fit.params[2] == 3.0
    np.testing.assert_allclose(fit.params[:2], [2.0, 3.0], rtol=0.05)
    assert fit.parameter_names == ("D1", "D2", "threads")
    assert dict(fit.integer_profile)[(3,)] == min(dict(fit.integer_profile).values())


def test_linearised_intervals_match_lmfit_profile_intervals(data: np.ndarray) -> None:
    """Spec §6: in the 3-station example the linearised CIs barely differ from
    profile-likelihood intervals (lmfit ``conf_interval``, same weighted objective)."""
    lmfit = pytest.importorskip("lmfit")
    fit = calibrate(MODEL, POPULATIONS, data, [1.0, 1.0, 1.0])
    root = np.sqrt(np.asarray(fit.weights))
    params = lmfit.Parameters()
    for i in range(3):
        params.add(f"D{i + 1}", value=1.0, min=0.0)

    def residual(p):
        x = np.array([p["D1"].value, p["D2"].value, p["D3"].value])
        return (root * (data - MODEL.evaluate_all(x, POPULATIONS))).ravel()

    minimizer = lmfit.Minimizer(residual, params)
    result = minimizer.minimize(method="leastsq")
    profile = lmfit.conf_interval(minimizer, result, sigmas=[0.95])
    for i, name in enumerate(("D1", "D2", "D3")):
        low, high = profile[name][0][1], profile[name][-1][1]
        half = fit.ci_high[i] - fit.params[i]
        assert abs(low - fit.ci_low[i]) < 0.02 * half
        assert abs(high - fit.ci_high[i]) < 0.02 * half
        assert result.params[name].stderr == pytest.approx(fit.stderr[i], rel=1e-4)


# Woodside's tutorial (WOSP/SIPEW 2010), step by step: held parameters (slide 47), utilizations
# as measures (slides 31-32), label switching, H and M (slide 23), joint confidence regions and
# contours of E (slides 23, 38-40), residual diagnostics (slide 47), integer intervals from the
# profile of E, F tests on different measure sets and the half width in %.
R_AND_U = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "utilizations"))
R_AND_F = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "throughput"))


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


def test_summary_shows_half_width_percent() -> None:
    z = noisy(MODEL.evaluate_all(TRUE_D, POPULATIONS), 0.03, 10)
    fit = calibrate(MODEL, POPULATIONS, z, [1.0, 1.0, 1.0])
    text = fit.summary()
    assert "± %" in text.splitlines()[1]
    for i, line in enumerate(text.splitlines()[2:5]):
        percent = 100 * fit.t_quantile * fit.stderr[i] / fit.params[i]
        assert float(line.split()[-1]) == pytest.approx(percent, rel=1e-2)
        assert fit.half_width_percent[i] == pytest.approx(percent, rel=1e-12)


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


# Slow: the R+U calibration recovers the truth within its 95 % intervals in >= 93 % of 500
# seeded simulations. The measurements are the exact model values with seeded Gaussian noise (as
# the spec's §4 Monte Carlo): 5 % multiplicative noise on R and U (IRLS, the matching
# weighting). Run with ``-s`` to see the coverage table. Measured on this code (seeds 0..499):
# D1 / D2 / D3 = 0.938 / 0.946 / 0.954.
#
# Measured once, not asserted (431 s): with discrete-event simulated measurements
# (``tests/sim_closed_network.simulate_heapq(..., utilizations=True)``, 500 seeds, horizon 20
# 000 s) the R+U IRLS calibration covered 0.940 / 0.966 / 0.884: simulated means are not
# constant-CV (docs/algorithms/calibration.md).
REPLICATIONS = 500
MINIMUM = 0.93


def _covered(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return (low <= TRUE_D) & (TRUE_D <= high)


@pytest.mark.slow
def test_r_and_u_calibration_coverage() -> None:
    model = ClosedNetworkModel(3, think_time=10.0, measures=("response_time", "utilizations"))
    clean = model.evaluate_all(TRUE_D, POPULATIONS)
    hits = np.zeros(3)
    for seed in range(REPLICATIONS):
        rng = np.random.default_rng(seed)
        z = clean * (1 + 0.05 * rng.standard_normal(clean.shape))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fit = calibrate(model, POPULATIONS, z, [1.0, 1.0, 1.0])
        hits += _covered(fit.ci_low, fit.ci_high)
    coverage = hits / REPLICATIONS
    print(f"\nR+U calibration coverage (R = {REPLICATIONS}): "
          + " / ".join(f"{v:.3f}" for v in coverage))
    assert (coverage >= MINIMUM).all()
