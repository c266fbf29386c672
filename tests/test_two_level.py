"""Two-level (between-run / within-run) estimation, run comparisons and run plans.

Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013: intervals with
runs as the units, Fieller ratio intervals, optimal repetition counts.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from pilotstats.autocorrelation import (
    RunComparison,
    TwoLevelResult,
    compare_runs,
    required_runs,
    two_level_analysis,
)
from pilotstats.autocorrelation._run_comparison import ratio_interval
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError


def ar1(rng: np.random.Generator, shape: tuple[int, ...], phi: float) -> np.ndarray:
    """Stationary AR(1) rows with unit innovation variance."""
    noise = rng.normal(size=shape)
    if phi == 0.0:
        return noise
    out = np.empty(shape)
    out[..., 0] = noise[..., 0] / math.sqrt(1.0 - phi * phi)
    for t in range(1, shape[-1]):
        out[..., t] = phi * out[..., t - 1] + noise[..., t]
    return out


STATISTIC = {
    "mean": lambda v: v.mean(axis=1),
    "median": lambda v: np.median(v, axis=1),
    "min": lambda v: v.min(axis=1),
}


# --------------------------------------------------------------------------- estimator


def test_interval_is_the_t_interval_of_the_run_means() -> None:
    rng = np.random.default_rng(11)
    runs = [rng.normal(3.0 + rng.normal(0, 0.4), 0.2, 40 + 7 * i) for i in range(6)]
    result = two_level_analysis(runs, unit="s")
    means = np.array([r.mean() for r in runs])
    reference = stats.t.interval(0.95, 5, loc=means.mean(), scale=stats.sem(means))
    assert result.mean == pytest.approx(means.mean(), rel=1e-14)
    assert (result.ci_low, result.ci_high) == pytest.approx(reference, rel=1e-12)
    assert result.n_runs == result.n_units == 6 and result.dof == 5
    assert result.run_sizes == tuple(len(r) for r in runs)
    assert result.confidence_interval(0.9) == pytest.approx(
        stats.t.interval(0.9, 5, loc=means.mean(), scale=stats.sem(means)), rel=1e-12)


def test_variance_components_recover_the_truth_with_autocorrelated_runs() -> None:
    rng = np.random.default_rng(5)
    sigma_b, phi, n = 0.5, 0.7, 2000
    runs = 10.0 + sigma_b * rng.normal(size=(200, 1)) + ar1(rng, (200, n), phi)
    result = two_level_analysis(runs)
    # per-sample long-run variance of AR(1) with unit innovations: 1 / (1 - phi)^2
    assert result.within_variance == pytest.approx(1.0 / (1.0 - phi) ** 2, rel=0.15)
    assert result.between_variance == pytest.approx(sigma_b**2, rel=0.3)
    naive_within = float(np.mean(runs.var(axis=1, ddof=1)))
    assert naive_within < 0.5 * result.within_variance  # autocorrelation is accounted for


def test_no_between_run_variance_is_estimated_near_zero() -> None:
    rng = np.random.default_rng(6)
    runs = rng.normal(5.0, 1.0, size=(50, 500))
    result = two_level_analysis(runs)
    assert result.between_variance < 0.25 * result.within_variance / 500 * 10


def test_one_run_has_no_interval_unless_runs_are_assumed_equivalent() -> None:
    rng = np.random.default_rng(7)
    run = rng.normal(1.0, 0.1, 400)
    alone = two_level_analysis([run])
    assert math.isnan(alone.ci_low) and math.isnan(alone.ci_high)
    assert "run-to-run variance is unknown" in alone.note
    assert math.isnan(alone.between_variance)
    assumed = two_level_analysis([run], assume_runs_equivalent=True)
    assert assumed.units == "blocks" and assumed.n_units >= 2
    assert assumed.half_width == pytest.approx(1.97 * 0.1 / 20, rel=0.2)  # i.i.d.: q = 1
    assert "excludes run-to-run variation" in assumed.note
    assert "excluded" in str(assumed)


def test_median_and_min_use_one_block_size_for_runs_of_any_length() -> None:
    rng = np.random.default_rng(8)
    runs = [rng.normal(0, 1, 100), rng.normal(0, 1, 1000), rng.normal(0, 1, 250)]
    result = two_level_analysis(runs, summary_statistic="min")
    assert result.block_size == 100
    long_run = runs[1][:1000].reshape(10, 100).min(axis=1).mean()
    assert result.unit_values[1] == pytest.approx(long_run)
    assert result.unit_values[0] == pytest.approx(runs[0].min())
    median = two_level_analysis(runs, summary_statistic="median", block_size=50)
    assert median.unit_values[0] == pytest.approx(np.median(runs[0].reshape(2, 50), 1).mean())


def test_results_are_json_safe_and_readable() -> None:
    rng = np.random.default_rng(9)
    result = two_level_analysis([rng.normal(2, 0.1, 30) for _ in range(3)], unit="ms")
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["n_runs"] == 3 and data["summary_statistic"] == "mean"
    assert "3 runs" in str(result) and "95 % CI" in str(result)
    assert "<table>" in result._repr_html_()
    alone = two_level_analysis([rng.normal(2, 0.1, 30)])
    assert json.loads(json.dumps(alone.to_dict(), allow_nan=False))["ci_low"] is None


@pytest.mark.parametrize(
    ("runs", "options", "error"),
    [
        ([], {}, NotEnoughDataError),
        ("12", {}, InvalidInputError),
        ({"a": [1.0, 2.0]}, {}, InvalidInputError),
        (np.ones(5), {}, InvalidInputError),
        ([[1.0, np.nan]], {}, InvalidInputError),
        ([[1.0, 2.0], [1.0, 3.0]], {"summary_statistic": "mode"}, InvalidInputError),
        ([[1.0, 2.0], [1.0, 3.0]], {"assume_runs_equivalent": "yes"}, InvalidInputError),
        ([[1.0, 2.0], [1.0, 3.0]], {"confidence_level": 1.5}, InvalidInputError),
        ([[1.0, 2.0], [1.0, 3.0]], {"summary_statistic": "min", "block_size": 3},
         NotEnoughDataError),
        ([[1.0, 2.0, 3.0]], {"assume_runs_equivalent": True, "block_size": 2},
         NotEnoughDataError),
    ],
)
def test_bad_input_raises_named_errors(runs: object, options: dict[str, object],
                                       error: type[Exception]) -> None:
    with pytest.raises(error):
        two_level_analysis(runs, **options)  # type: ignore[arg-type]


def test_inputs_are_not_modified() -> None:
    runs = np.arange(20.0).reshape(4, 5) + 1.0
    copy = runs.copy()
    compare_runs(runs, runs * 1.1, summary_statistic="median")
    assert np.array_equal(runs, copy)


# --------------------------------------------------------------------------- comparison


def _brute_force_interval(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float]:
    """Fieller set by scanning a fine grid of ratios (the definition, no root finding)."""
    kx, ky = x.size, y.size
    vx, vy = x.var(ddof=1) / kx, y.var(ddof=1) / ky
    grid = np.linspace(0.0, 4.0 * y.mean() / x.mean(), 400_001)
    pivot = (y.mean() - grid * x.mean()) / np.sqrt(vy + grid**2 * vx)
    a, b = vy, grid**2 * vx
    dof = (a + b) ** 2 / (a * a / (ky - 1) + b * b / (kx - 1))
    inside = grid[np.abs(pivot) <= stats.t.ppf((1 + level) / 2, dof)]
    return float(inside.min()), float(inside.max())


@pytest.mark.parametrize("seed", range(8))
def test_ratio_interval_equals_the_brute_force_fieller_set(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(1.0, rng.uniform(0.01, 0.2), rng.integers(2, 12))
    y = rng.normal(rng.uniform(0.8, 1.4), rng.uniform(0.01, 0.2), rng.integers(2, 12))
    ratio, low, high, p_value, _ = ratio_interval(x, y, 0.95)
    brute = _brute_force_interval(x, y, 0.95)
    step = 4.0 * ratio / 400_000
    assert low == pytest.approx(brute[0], abs=2 * step)
    assert high == pytest.approx(brute[1], abs=2 * step)
    welch = stats.ttest_ind(y, x, equal_var=False)
    assert p_value == pytest.approx(welch.pvalue, rel=1e-9)
    assert (p_value < 0.05) == (not low <= 1.0 <= high)


def test_ratio_interval_is_unbounded_when_the_base_is_indistinguishable_from_zero() -> None:
    ratio, low, high, _, _ = ratio_interval(np.array([0.1, 2.0, -1.5]), np.array([1.0, 1.1]),
                                            0.95)
    assert math.isinf(high) and low >= 0.0 and ratio > 0


def test_compare_runs_separates_clear_changes_and_keeps_identical_code_quiet() -> None:
    # The reported Google Benchmark case: 62-65 us against 82-86 us, 20 repetitions each.
    rng = np.random.default_rng(3)
    base = [rng.uniform(62e-6, 65e-6, 1) for _ in range(20)]
    new = [rng.uniform(82e-6, 86e-6, 1) for _ in range(20)]
    result = compare_runs(base, new, unit="s")
    assert result.conclusive and result.ci_low > 1.25 and result.p_value < 1e-10
    same = compare_runs(base, [rng.uniform(62e-6, 65e-6, 1) for _ in range(20)])
    assert same.ci_low <= 1.0 <= same.ci_high


def test_one_run_per_side_is_inconclusive_unless_assumed_equivalent() -> None:
    rng = np.random.default_rng(4)
    base, new = rng.normal(1.0, 0.05, 300), rng.normal(1.3, 0.05, 300)
    result = compare_runs([base], [new])
    assert not result.conclusive and math.isnan(result.p_value)
    assert "inconclusive: 1 run per side" in result.note
    assert "inconclusive" in str(result)
    assumed = compare_runs([base], [new], assume_runs_equivalent=True)
    assert assumed.conclusive and assumed.ci_low > 1.2
    assert "excludes run-to-run variation" in assumed.note
    json.dumps(assumed.to_dict(), allow_nan=False)
    assert isinstance(assumed, RunComparison) and isinstance(assumed.base, TwoLevelResult)


def test_min_and_median_compare_the_same_quantity_on_both_sides() -> None:
    # Same distribution, runs ten times longer on one side: the minimum of a longer run is
    # lower, so comparing each run's own minimum would flag a change. One block size keeps
    # the two sides estimating the same quantity.
    rng = np.random.default_rng(12)
    alarms = 0
    for _ in range(200):
        base = rng.gamma(4.0, 1.0, size=(5, 50)) + 10.0
        new = rng.gamma(4.0, 1.0, size=(5, 500)) + 10.0
        alarms += compare_runs(base, new, summary_statistic="min").p_value < 0.05
    assert alarms <= 20


# --------------------------------------------------------------------------- plans


def test_plan_keeps_the_run_length_without_a_run_cost() -> None:
    rng = np.random.default_rng(3)
    runs = [rng.normal(10 + rng.normal(0, 0.3), 1.0, 100) for _ in range(5)]
    result = two_level_analysis(runs)
    plan = required_runs(result, half_width=0.1)
    s = float(np.std(result.unit_values, ddof=1))
    runs_needed = next(r for r in range(2, 10_000)
                       if stats.t.ppf(0.975, r - 1) * s / math.sqrt(r) <= 0.1)
    assert plan.planned_runs == runs_needed and plan.samples_per_run == 100
    assert plan.additional_runs == runs_needed - 5
    assert plan.predicted_half_width <= 0.1


def test_plan_with_a_run_cost_is_the_brute_force_optimum() -> None:
    rng = np.random.default_rng(13)
    runs = 4.0 + 0.2 * rng.normal(size=(6, 1)) + rng.normal(0, 1.0, size=(6, 300))
    result = two_level_analysis(runs)
    plan = required_runs(result, half_width_percent=1, run_cost=200)
    t1, t2, target = result.between_variance, result.within_variance, 0.01 * result.mean
    best = None
    for r in range(2, 3000):
        for n in range(1, 5000):
            if stats.t.ppf(0.975, r - 1) * math.sqrt((t1 + t2 / n) / r) <= target:
                cost = r * (200 + n)
                if best is None or cost < best[0]:
                    best = (cost, r, n)
                break
    assert best is not None
    assert plan.cost == pytest.approx(best[0])
    assert (plan.planned_runs, plan.samples_per_run) == best[1:]


def test_plan_needs_two_runs() -> None:
    rng = np.random.default_rng(1)
    plan = required_runs(two_level_analysis([rng.normal(1, 0.1, 50)]), half_width_percent=1)
    assert plan.planned_runs is None and "at least 2 runs" in str(plan)
    with pytest.raises(InvalidInputError):
        required_runs("not a result", half_width=1.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        required_runs(two_level_analysis(np.ones((3, 4))), half_width=1.0, run_cost=-1)


# --------------------------------------------------------------------------- coverage


def _cell(rng: np.random.Generator, sigma_b: float, phi: float, runs: int, n: int,
          statistic: str, ratio: float, reps: int) -> tuple[float, float]:
    """(coverage of the true ratio, rate of p < 0.05) over ``reps`` simulated comparisons."""
    summary = STATISTIC[statistic]
    shape = (reps * runs, n)
    base = 10.0 + sigma_b * rng.normal(size=(reps * runs, 1)) + ar1(rng, shape, phi)
    new = ratio * (10.0 + sigma_b * rng.normal(size=(reps * runs, 1)) + ar1(rng, shape, phi))
    base_units = summary(base).reshape(reps, runs)
    new_units = summary(new).reshape(reps, runs)
    covered = alarms = 0
    for x, y in zip(base_units, new_units, strict=True):
        _, low, high, p_value, _ = ratio_interval(x, y, 0.95)
        covered += low <= ratio <= high
        alarms += p_value < 0.05
    return covered / reps, alarms / reps


@pytest.mark.slow
@pytest.mark.parametrize("statistic", ["mean", "median", "min"])
def test_false_alarms_and_coverage_over_the_issue_grid(statistic: str) -> None:
    """sigma_b in {0, 0.5, 2} x phi in {0, 0.7} x R in {2, 3, 5, 10, 30} x
    iterations in {10, 100, 1000}: A/A false alarms <= 5 % + Monte Carlo error in every
    cell; A/B (ratio 1.3) coverage 93-97 % in every cell with R >= 3."""
    rng = np.random.default_rng({"mean": 1, "median": 2, "min": 3}[statistic])
    reps = 400
    slack = 3.0 * math.sqrt(0.05 * 0.95 / reps)  # three Monte Carlo standard errors
    rates, coverages = [], []
    for sigma_b in (0.0, 0.5, 2.0):
        for phi in (0.0, 0.7):
            for runs in (2, 3, 5, 10, 30):
                for n_eff in (10, 100, 1000):
                    _, alarm = _cell(rng, sigma_b, phi, runs, n_eff, statistic, 1.0, reps)
                    rates.append(alarm)
                    assert alarm <= 0.05 + slack, (sigma_b, phi, runs, n_eff, alarm)
                    if runs >= 3:
                        coverage, _ = _cell(rng, sigma_b, phi, runs, n_eff, statistic, 1.3,
                                            reps)
                        coverages.append(coverage)
                        assert 0.93 - slack <= coverage <= 0.97 + slack, (
                            sigma_b, phi, runs, n_eff, coverage)
    assert np.mean(rates) <= 0.05 + 0.01
    assert 0.935 <= np.mean(coverages) <= 0.965


# -- runs made one after another: drift between consecutive runs ---------------------------


def test_von_neumann_ratio_by_brute_force() -> None:
    from pilotstats.autocorrelation._two_level import von_neumann_z

    rng = np.random.default_rng(5)
    y = rng.normal(size=25)
    eta = sum((y[i + 1] - y[i]) ** 2 for i in range(24)) / sum((v - y.mean()) ** 2 for v in y)
    assert von_neumann_z(y) == pytest.approx((eta - 2) / math.sqrt(4 * 23 / (25 ** 2 - 1)))
    assert von_neumann_z(np.full(10, 3.0)) == 0.0
    assert von_neumann_z(np.arange(20.0)) < -3  # a trend: strongly dependent


def test_drifting_runs_are_batched_and_the_note_says_so() -> None:
    rng = np.random.default_rng(8)
    drift = np.linspace(0.0, 3.0, 20)  # the machine's load rising over the runs
    runs = [10.0 + d + rng.normal(0, 0.2, 30) for d in drift]
    r = two_level_analysis(runs)
    assert r.runs_per_unit == 5 and r.n_units == 4 and r.dof == 3 and r.n_runs == 20
    assert "consecutive runs drift" in r.note and "4 batches of 5" in r.note
    assert r.mean == pytest.approx(np.mean([x.mean() for x in runs]))
    naive = np.std([x.mean() for x in runs], ddof=1) / math.sqrt(20)
    assert r.half_width > 2.0 * naive * 2.09  # wider than the interval of independent runs
    assert r.to_dict()["runs_per_unit"] == 5
    # independent runs are left alone (seeded), and fewer than 8 runs are never tested
    iid = [rng.normal(10.0, 1.0, 30) for _ in range(20)]
    assert two_level_analysis(iid).runs_per_unit == 1
    assert two_level_analysis(runs[:7]).runs_per_unit == 1


@pytest.mark.slow
def test_drift_batching_keeps_coverage_with_independent_runs_and_restores_it_with_drift(
) -> None:
    """Seeded: AR(1) run effects (phi 0 and 0.6), R = 20 and 60 runs of 20 samples."""
    rng = np.random.default_rng(2013)
    reps = 400
    for runs_count, phi, low, high in ((20, 0.0, 0.93, 0.97), (60, 0.0, 0.93, 0.97),
                                       (60, 0.6, 0.90, 0.98)):
        covered = batched = 0
        for _ in range(reps):
            e = rng.normal(size=runs_count)
            x = np.empty(runs_count)
            x[0] = e[0] / math.sqrt(1.0 - phi * phi)
            for i in range(1, runs_count):
                x[i] = phi * x[i - 1] + e[i]
            r = two_level_analysis([10.0 + v + rng.normal(0, 0.3, 20) for v in x])
            covered += r.ci_low <= 10.0 <= r.ci_high
            batched += r.runs_per_unit > 1
        assert low <= covered / reps <= high, (runs_count, phi, covered)
        if phi == 0.0:
            assert batched / reps <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
