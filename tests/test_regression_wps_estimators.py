"""WPS estimators: no exception on the planner's own schedules, lack of fit, estimators.

The README quick-start schedule is ``work = tile([1e5, 2e5, 4e5, 8e5], 6)`` with
``seconds = 0.3 + work / 2e5 + noise``: ``wps`` must not raise
``SubsessionSizeNotFoundError`` or ``DegenerateDesignError`` on any seed of it, a workload not
linear in the work must get a lack-of-fit warning, and the estimators beyond OLS must keep
their coverage (OLS alone: 86 % under 5 % multiplicative noise).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pytest

from pilotstats.exceptions import (
    DegenerateDesignError,
    InvalidInputError,
    LackOfFitWarning,
    NotEnoughDataError,
)
from pilotstats.regression import wps
from pilotstats.regression._wps_estimators import (
    huber_regression,
    lack_of_fit,
    variance_weights,
    wls_line,
)

V = 2e5
CYCLE = np.tile([1e5, 2e5, 4e5, 8e5], 6)


def _schedule(kind: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One seeded run of the README schedule.

    ``"rel10"``/``"rel30"``: noise sd 10 % / 30 % of each round's duration; ``"random"``:
    24 work amounts uniform in [1e5, 8e5] with 10 % noise; ``"additive"``: the README's
    N(0, 0.02 s); ``"additive10"``: N(0, 0.2 s), about 10 % of the mean duration;
    ``"mult5"``: 5 % multiplicative noise. Normal deviates are clipped to +-3 sd so that no
    duration is negative (a negative duration is bad input, not a schedule).
    """
    rng = np.random.default_rng(seed)
    work = rng.uniform(1e5, 8e5, 24) if kind == "random" else CYCLE.copy()
    base = 0.3 + work / V
    z = np.clip(rng.standard_normal(work.size), -3.0, 3.0)
    relative = {"rel10": 0.1, "rel30": 0.3, "random": 0.1, "mult5": 0.05}
    if kind in relative:
        return work, base * (1.0 + relative[kind] * z)
    return work, base + (0.02 if kind == "additive" else 0.2) * z


def _quiet_wps(work: np.ndarray, seconds: np.ndarray, **options: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LackOfFitWarning)
        return wps(work, seconds, **options)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------
# Never raises on the planner's schedules
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "seed", "raised_before"),
    [
        ("rel10", 8, "SubsessionSizeNotFoundError"),
        ("rel10", 24, "DegenerateDesignError"),
        ("rel30", 0, "SubsessionSizeNotFoundError"),
        ("rel30", 19, "NotEnoughDataError"),
        ("random", 8, "SubsessionSizeNotFoundError"),
    ],
)
def test_readme_schedule_seeds_that_raised_now_fit(
    kind: str, seed: int, raised_before: str
) -> None:
    work, seconds = _schedule(kind, seed)
    for estimator in ("ols", "wls", "huber"):
        result = _quiet_wps(work, seconds, estimator=estimator)
        assert result.valid and result.n_subsessions >= 3  # type: ignore[attr-defined]
        assert result.subsession_size % 4 != 0 or kind == "random"  # type: ignore[attr-defined]
    assert raised_before  # documents the error of the unfixed version


def test_fallback_size_is_reported_in_notes() -> None:
    work, seconds = _schedule("rel10", 8)
    result = wps(work, seconds)
    assert len(result.notes) == 1
    assert "no subsession size met autocorrelation_limit=0.1" in result.notes[0]
    assert result.to_dict()["notes"] == list(result.notes)
    assert "1 note(s) in result.notes" in str(result)
    # the note names the size used, the least correlated identifiable one
    assert f"used q = {result.subsession_size}" in result.notes[0]


def test_alpha_filter_rerun_failure_keeps_the_first_pass() -> None:
    work, seconds = _schedule("rel30", 19)
    result = wps(work, seconds)
    assert any("alpha filter rerun" in note for note in result.notes)
    with pytest.raises(NotEnoughDataError):  # the explicit size still fails, as documented
        wps(work, seconds, subsession_size=result.subsession_size)


def test_genuinely_degenerate_input_still_raises() -> None:
    with pytest.raises(DegenerateDesignError, match="same work amount"):
        wps(np.full(12, 5e5), np.linspace(2.0, 3.0, 12))
    work, seconds = _schedule("additive", 0)
    with pytest.raises(DegenerateDesignError):  # an explicit size of the period
        wps(work, seconds, subsession_size=4)
    with pytest.raises(InvalidInputError, match="durations"):
        wps(work, -seconds)


# ------------------------------------------------------------------------------------------
# Lack of fit
# ------------------------------------------------------------------------------------------


def test_nonlinear_workload_warns_and_is_flagged() -> None:
    # The reported case: t grows faster than linearly; R^2 stays 0.995 and the interval narrow.
    rng = np.random.default_rng(3)
    seconds = 0.3 + CYCLE / V + 0.4 * (CYCLE / 8e5) ** 2 + rng.normal(0, 0.02, CYCLE.size)
    with pytest.warns(LackOfFitWarning, match="pure error lack-of-fit test"):
        result = wps(CYCLE, seconds)
    assert result.lack_of_fit and result.lack_of_fit_test == "pure error"
    assert result.lack_of_fit_p_value < 1e-4 and result.r_squared > 0.99
    assert "LACK OF FIT" in str(result)
    # random work amounts (no replicates): the quadratic-term test
    work = rng.uniform(1e5, 8e5, 24)
    seconds = 0.3 + work / V + 1.0 * (work / 8e5) ** 2 + rng.normal(0, 0.02, 24)
    with pytest.warns(LackOfFitWarning, match="quadratic"):
        result = wps(work, seconds, estimator="wls")
    assert result.lack_of_fit and result.lack_of_fit_test == "quadratic"


def test_linear_workload_is_not_flagged() -> None:
    work, seconds = _schedule("additive", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LackOfFitWarning)
        result = wps(work, seconds)
    assert not result.lack_of_fit and result.lack_of_fit_p_value > 0.001
    assert result.lack_of_fit_test == "pure error"
    two_levels = wps(np.tile([1.0, 2.0], 4), 1.0 + np.tile([1.0, 2.0], 4) + 0.01 * np.arange(8))
    assert two_levels.lack_of_fit_test == "none" and math.isnan(two_levels.lack_of_fit_p_value)
    assert not two_levels.lack_of_fit


def _f_sf(statistic: float, dfn: int, dfd: int) -> float:
    from scipy import stats

    return float(stats.f.sf(statistic, dfn, dfd))


def test_pure_error_test_equals_brute_force_anova() -> None:
    """Pure-error F: the line against one mean per work amount (two nested OLS fits)."""
    rng = np.random.default_rng(5)
    w = np.repeat([1.0, 2.0, 3.0, 5.0, 8.0], 3)
    d = 0.5 + w + 0.1 * w**2 + rng.normal(0, 0.3, w.size)
    line = np.column_stack([np.ones_like(w), w])
    cells = (w[:, None] == np.unique(w)[None, :]).astype(float)
    ss_line = float(np.sum((d - line @ np.linalg.lstsq(line, d, rcond=None)[0]) ** 2))
    ss_cells = float(np.sum((d - cells @ np.linalg.lstsq(cells, d, rcond=None)[0]) ** 2))
    expected = _f_sf(((ss_line - ss_cells) / 3) / (ss_cells / 10), 3, 10)
    p_value, test = lack_of_fit(w, d, weighted=False)
    assert test == "pure error" and p_value == pytest.approx(expected, rel=1e-9)


def test_quadratic_test_equals_brute_force() -> None:
    rng = np.random.default_rng(6)
    w = rng.uniform(1.0, 10.0, 15)
    d = 0.5 + w + 0.05 * w**2 + rng.normal(0, 0.3, w.size)
    ss = [float(np.sum((d - np.polyval(np.polyfit(w, d, k), w)) ** 2)) for k in (1, 2)]
    expected = _f_sf((ss[0] - ss[1]) / (ss[1] / 12), 1, 12)
    p_value, test = lack_of_fit(w, d, weighted=False)
    assert test == "quadratic" and p_value == pytest.approx(expected, rel=1e-8)


def test_lack_of_fit_level_and_validation() -> None:
    rng = np.random.default_rng(3)
    seconds = 0.3 + CYCLE / V + 0.4 * (CYCLE / 8e5) ** 2 + rng.normal(0, 0.02, CYCLE.size)
    quiet = wps(CYCLE, seconds, lack_of_fit_level=0.0)  # a level of 0 never rejects
    assert not quiet.lack_of_fit and quiet.lack_of_fit_level == 0.0
    with pytest.raises(InvalidInputError, match="lack_of_fit_level"):
        wps(CYCLE, seconds, lack_of_fit_level=1.5)


# ------------------------------------------------------------------------------------------
# Estimators
# ------------------------------------------------------------------------------------------


def test_estimator_validation_and_pilot_mode() -> None:
    work, seconds = _schedule("additive", 0)
    with pytest.raises(InvalidInputError, match="estimator"):
        wps(work, seconds, estimator="lad")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match='method="pilot"'):
        wps(work, seconds, method="pilot", estimator="wls")


@pytest.mark.parametrize("estimator", ["wls", "huber"])
def test_noise_free_line_is_exact_for_every_estimator(estimator: str) -> None:
    work = np.array([50, 100, 50, 100, 80, 60, 90, 70.0])
    result = wps(work, -2.0 + work / 1.5, autocorrelation_limit=1.0, estimator=estimator)
    assert result.throughput == pytest.approx(1.5, rel=1e-9)
    assert result.alpha == pytest.approx(-2.0, abs=1e-8)
    assert result.estimator == estimator


def test_wls_is_the_fixed_point_of_statsmodels_wls() -> None:
    sm = pytest.importorskip("statsmodels.api")
    work, seconds = _schedule("mult5", 4)
    line = wls_line(work, seconds)
    weights, _ = variance_weights(work, seconds)
    design = sm.add_constant(work)
    reference = sm.WLS(seconds, design, weights=weights).fit()
    assert [line.alpha, line.beta] == pytest.approx(list(reference.params), rel=1e-10)
    np.testing.assert_allclose(line.covariance, reference.cov_params(), rtol=1e-8)
    # the weights are those of the returned line: 1 / mu^2 up to a constant
    mu = line.alpha + line.beta * work
    np.testing.assert_allclose(weights * mu**2, (weights * mu**2)[0], rtol=1e-9)


def test_huber_equals_statsmodels_rlm() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(11)
    x = rng.uniform(1.0, 10.0, 30)
    y = 1.0 + 2.0 * x + rng.standard_t(3, 30)
    y[[4, 17]] += 25.0  # two outliers
    design = sm.add_constant(x)
    reference = sm.RLM(y, design, M=sm.robust.norms.HuberT()).fit(
        scale_est=sm.robust.scale.HuberScale()
    )
    params, covariance, scale = huber_regression(design, y)
    np.testing.assert_allclose(params, reference.params, rtol=1e-6)
    np.testing.assert_allclose(covariance, reference.bcov_scaled, rtol=1e-5)
    assert scale == pytest.approx(reference.scale, rel=1e-6)


def test_huber_resists_an_outlying_round() -> None:
    work, seconds = _schedule("additive", 2)
    seconds = seconds.copy()
    seconds[5] += 3.0  # a descheduled round
    ols = _quiet_wps(work, seconds, autocorrelation_limit=1.0)
    huber = _quiet_wps(work, seconds, autocorrelation_limit=1.0, estimator="huber")
    assert abs(huber.throughput / V - 1) < abs(ols.throughput / V - 1)  # type: ignore[attr-defined]
    assert huber.throughput_ci_low <= V <= huber.throughput_ci_high  # type: ignore[attr-defined]


@pytest.mark.parametrize("estimator", ["wls", "huber"])
def test_weighted_prediction_interval_widens_with_duration(estimator: str) -> None:
    work, seconds = _schedule("mult5", 1)
    result = wps(work, seconds, estimator=estimator)
    small, large = result.predict(1e5), result.predict(8e5)
    assert (large.high - large.low) > 2 * (small.high - small.low)
    assert small.low < 0.3 + 1e5 / V < small.high


# ------------------------------------------------------------------------------------------
# Acceptance: 400 seeded runs (slow)
# ------------------------------------------------------------------------------------------

RUNS = 400
#: kind -> estimators whose 95 % interval of v must cover the truth in >= 93 % of the runs
COVERAGE_TARGETS = {
    "additive": ("ols", "wls", "huber"),
    "additive10": ("ols", "wls", "huber"),
    "mult5": ("wls", "huber"),
}


@pytest.mark.slow
def test_readme_schedule_400_runs_no_exception_and_coverage() -> None:
    """0 exceptions on 10 %, 30 % and random-work runs; coverage >= 93 %.

    Measured (``pytest -s --only-slow -k 400_runs``): see ``benchmarks/RESULTS_wps.md``.
    """
    started = time.perf_counter()
    coverage: dict[tuple[str, str], float] = {}
    for kind in ("rel10", "rel30", "random", "additive", "additive10", "mult5"):
        for estimator in ("ols", "wls", "huber"):
            hits = 0
            for seed in range(RUNS):
                work, seconds = _schedule(kind, seed)
                result = _quiet_wps(work, seconds, estimator=estimator)  # must not raise
                hits += result.throughput_ci_low <= V <= result.throughput_ci_high  # type: ignore[attr-defined]
            coverage[kind, estimator] = hits / RUNS
    print(f"\nwps on {RUNS} seeded README-schedule runs, 0 exceptions; coverage of v:")
    for (kind, estimator), share in coverage.items():
        print(f"  {kind:10s} {estimator:6s} {share:.3f}")
    print(f"  ({time.perf_counter() - started:.1f} s)")
    for kind, estimators in COVERAGE_TARGETS.items():
        for estimator in estimators:
            assert coverage[kind, estimator] >= 0.93, (kind, estimator)
