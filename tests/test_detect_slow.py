"""Slow, seeded simulations: false-alarm and warm-up recovery rates (spec ``edm.md`` §8).

Acceptance targets for the default ``detect_changes`` / ``stable_phase``
(δ = 30): any change reported in <= 5 % of i.i.d. N(0, 1) series (n = 100, 300, 1000, 200
series each) and in <= 10 % of AR(1) series with φ = 0.5; warm-up recovery (500 points,
first 50 shifted by −dσ) with the stable phase starting within ±10 of 50 in >= 95 % of runs
at d = 1 and >= 99 % at d = 2 — see the note on d = 1 below.

``stable_phase(method="pilot")`` is measured on the same series and must reproduce the
behaviour of Pilot's configuration in spec §8.1 within a binomial band (3 standard errors
of the difference between two independent proportions, the reference's own sample size
included).

Run with ``pytest tests/test_detect_slow.py --only-slow -s`` to see the tables.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pilotstats import _config
from pilotstats.changepoints import _detect_scan as scan_module
from pilotstats.changepoints import detect_changes, stable_phase
from tests.scripts import load_script

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

pytestmark = pytest.mark.slow

SERIES = 200
LENGTHS = (100, 300, 1000)
WARMUP_RUNS = 200
PHI = 0.5


def ar1(rng: np.random.Generator, n: int, phi: float, burn_in: int = 200) -> np.ndarray:
    e = rng.standard_normal(n + burn_in)
    y = np.empty_like(e)
    y[0] = e[0]
    for i in range(1, e.size):
        y[i] = phi * y[i - 1] + e[i]
    return y[burn_in:]


@functools.cache
def null_rates(kind: str, n: int) -> dict[str, float]:
    """Rates on stationary noise for the default method and Pilot's configuration."""
    rng = np.random.default_rng([2026, n, 0 if kind == "iid" else 1])
    robust_any = pilot_any = pilot_no_dominant = robust_not_found = 0
    kept: list[float] = []
    for _ in range(SERIES):
        x = rng.standard_normal(n) if kind == "iid" else ar1(rng, n, PHI)
        robust = stable_phase(x)
        pilot = stable_phase(x, method="pilot")
        robust_any += bool(robust.locations)
        robust_not_found += not robust.found
        pilot_any += bool(pilot.locations)
        pilot_no_dominant += pilot.outcome == "no_dominant_segment"
        if pilot.found:
            kept.append(pilot.kept_fraction)
    rates = {
        "robust_any_change": robust_any / SERIES,
        "robust_not_found": robust_not_found / SERIES,
        "pilot_any_change": pilot_any / SERIES,
        "pilot_no_dominant": pilot_no_dominant / SERIES,
        "pilot_kept_fraction": float(np.mean(kept)) if kept else math.nan,
    }
    print(
        f"\n[{kind} n={n}, {SERIES} series] " + ", ".join(f"{k} {v:.3f}" for k, v in rates.items())
    )
    return rates


@functools.cache
def warmup_rates(shift: float) -> dict[str, float]:
    """Warm-up recovery: 500 N(0, 1) points whose first 50 are shifted by −shift·σ."""
    rng = np.random.default_rng([2026, 500, int(10 * shift)])
    robust10 = robust20 = pilot10 = pilot20 = 0
    for _ in range(WARMUP_RUNS):
        x = rng.standard_normal(500)
        x[:50] -= shift
        robust = stable_phase(x)
        pilot = stable_phase(x, method="pilot")
        robust10 += robust.found and abs(robust.start - 50) <= 10
        robust20 += robust.found and abs(robust.start - 50) <= 20
        pilot10 += pilot.found and abs(pilot.start - 50) <= 10
        pilot20 += pilot.found and abs(pilot.start - 50) <= 20
    rates = {
        "robust_within_10": robust10 / WARMUP_RUNS,
        "robust_within_20": robust20 / WARMUP_RUNS,
        "pilot_within_10": pilot10 / WARMUP_RUNS,
        "pilot_within_20": pilot20 / WARMUP_RUNS,
    }
    print(
        f"\n[warm-up d={shift}, {WARMUP_RUNS} runs] "
        + ", ".join(f"{k} {v:.3f}" for k, v in rates.items())
    )
    return rates


def band(p: float, runs: int, reference_runs: int) -> float:
    """3 standard errors of the difference of two independent binomial proportions."""
    return 3.0 * math.sqrt(p * (1.0 - p) * (1.0 / runs + 1.0 / reference_runs))


# ------------------------------------------------------------------------------------------
# default method: the acceptance targets
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", LENGTHS)
def test_default_quiet_on_iid_noise(n: int) -> None:
    rates = null_rates("iid", n)
    assert rates["robust_any_change"] <= 0.05


@pytest.mark.parametrize("n", LENGTHS)
def test_default_quiet_on_ar1_noise(n: int) -> None:
    rates = null_rates("ar1", n)
    assert rates["robust_any_change"] <= 0.10


def test_warmup_recovery_two_sigma() -> None:
    assert warmup_rates(2.0)["robust_within_10"] >= 0.99


def test_warmup_recovery_one_sigma() -> None:
    """d = 1: the target is >= 95 % within ±10 (Pilot: 62.5 % within ±20, spec §8.1).

    This is near the information limit: the maximum-likelihood split with both means and σ
    *known* lands within ±10 of the true change in only 94.5 % of such series, and the
    rank-CUSUM arg-max in 91.5 %. The detector's location is the posterior-window estimate
    (the Bayes estimate for "within ±10", ``location_tolerance=10``), which reaches 96–97 %.
    """
    rates = warmup_rates(1.0)
    assert rates["robust_within_10"] >= 0.95
    assert rates["robust_within_20"] >= 0.95
    assert rates["robust_within_20"] > rates["pilot_within_20"]


# ------------------------------------------------------------------------------------------
# method="pilot": spec §8.1 behaviour within the binomial band
# ------------------------------------------------------------------------------------------

# (n, reference series, P(no dominant segment)) from spec §8.1
PILOT_NO_DOMINANT = [(100, 400, 0.735), (300, 400, 0.68), (1000, 100, 0.01)]


@pytest.mark.parametrize("n", LENGTHS)
def test_pilot_always_finds_a_change_in_noise(n: int) -> None:
    # spec §8.1: P(>= 1 change point) = 1.00 at every n (EDM-percent's first split, §4.2)
    assert null_rates("iid", n)["pilot_any_change"] >= 0.98


@pytest.mark.parametrize(("n", "reference_runs", "expected"), PILOT_NO_DOMINANT)
def test_pilot_no_dominant_rate(n: int, reference_runs: int, expected: float) -> None:
    rate = null_rates("iid", n)["pilot_no_dominant"]
    width = band(max(expected, 0.02), SERIES, reference_runs)
    assert abs(rate - expected) <= width


@pytest.mark.parametrize(("shift", "expected"), [(1.0, 0.625), (2.0, 0.985)])
def test_pilot_warmup_recovery(shift: float, expected: float) -> None:
    # spec §8.1: dominant segment began within [30, 70] in 62.5 % (d = 1), 98.5 % (d = 2)
    rate = warmup_rates(shift)["pilot_within_20"]
    # the spec does not state its number of runs; 200 (as here) is assumed for the band
    assert abs(rate - expected) <= band(expected, WARMUP_RUNS, 200)


@pytest.mark.parametrize(("n", "expected"), [(100, 0.63), (300, 0.62), (1000, 0.80)])
def test_pilot_kept_fraction(n: int, expected: float) -> None:
    # spec §8.1: mean kept fraction when a dominant segment is found (a mean of fractions
    # in [0.5, 1], sd about 0.1, so 0.05 is more than 3 standard errors at >= 40 rounds)
    assert abs(null_rates("iid", n)["pilot_kept_fraction"] - expected) <= 0.05


# ------------------------------------------------------------------------------------------
# beyond the acceptance table: longer series and spiky noise
# ------------------------------------------------------------------------------------------


def test_default_quiet_on_long_and_spiky_noise() -> None:
    """No growth of false alarms with n (selection-adjusted p-values; n = 3000 goes through
    the full EDM, n = 20000 through the block-median candidates), and isolated +20σ spikes
    (1 % of the samples) do not create change points."""
    from pilotstats.changepoints import detect_changes

    rng = np.random.default_rng([2026, 3000])
    cells = {
        "n=3000": (3000, 100, 0.0),
        "n=20000": (20000, 10, 0.0),
        "spiky n=500": (500, 200, 0.01),
    }
    rates = {}
    for name, (n, runs, spike_fraction) in cells.items():
        hits = 0
        for _ in range(runs):
            x = rng.standard_normal(n)
            if spike_fraction:
                x[rng.choice(n, size=int(spike_fraction * n), replace=False)] += 20.0
            hits += bool(detect_changes(x).locations)
        rates[name] = hits / runs
    print("\n[long/spiky noise] " + ", ".join(f"{k} {v:.3f}" for k, v in rates.items()))
    assert rates["n=3000"] <= 0.05
    assert rates["n=20000"] <= 0.10  # 10 series: at most 1
    assert rates["spiky n=500"] <= 0.05


def test_autocorrelation_correction_is_needed() -> None:
    """Without the variance inflation (cap set to 0) the same guard reports a change on
    AR(1) φ = 0.5 noise far more often than the target 10 %: the correction is what keeps
    the default quiet (measured: about 50 % at n = 300)."""
    from pilotstats import _config
    from pilotstats.changepoints import detect_changes

    rng = np.random.default_rng([2026, 300, 7])
    series = [ar1(rng, 300, PHI) for _ in range(100)]
    _config.DETECT_MAX_AUTOCORRELATION = 0.0
    try:
        uncorrected = sum(bool(detect_changes(x).locations) for x in series) / len(series)
    finally:
        _config.reset()
    corrected = sum(bool(detect_changes(x).locations) for x in series) / len(series)
    print(f"\n[AR(1) n=300] without correction {uncorrected:.3f}, with {corrected:.3f}")
    assert uncorrected > 0.25
    assert corrected <= 0.10


# ------------------------------------------------------------------------------------------
# changes of variance: detect_changes scans level and variance by default
# ------------------------------------------------------------------------------------------

VARIANCE_RUNS = 100


def test_variance_doubling_found() -> None:
    """σ doubling at mid-series (n = 500): found in >= 90 % of runs (measured 100 % of 200,
    94 % within ±25 of the change) by the default; the level-only scan (``variance_changes=False``)
    does not see it."""
    rng = np.random.default_rng([2026, 500, 99])
    found = near = level_only = 0
    for _ in range(VARIANCE_RUNS):
        x = rng.standard_normal(500)
        x[250:] *= 2.0
        result = detect_changes(x)
        found += bool(result.locations)
        near += any(abs(c - 250) <= 25 for c in result.locations)
        level_only += bool(detect_changes(x, variance_changes=False).locations)
    print(f"\n[variance doubling] found {found}, within ±25 {near}, level-only {level_only} "
          f"of {VARIANCE_RUNS}")
    assert found >= 0.90 * VARIANCE_RUNS
    assert near >= 0.85 * VARIANCE_RUNS
    assert level_only <= 0.10 * VARIANCE_RUNS


@pytest.mark.parametrize("kind", ["iid", "ar1"])
def test_variance_option_quiet_on_noise(kind: str) -> None:
    """The variance scan keeps the false-alarm bounds: <= 5 % (i.i.d.) and <= 10 % (AR(1)
    φ = 0.5) at n = 100, 300, 1000 (measured 0–1.5 % on 200 series per cell)."""
    rates = {}
    for n in LENGTHS:
        rng = np.random.default_rng([2026, n, 5 if kind == "iid" else 6])
        hits = 0
        for _ in range(VARIANCE_RUNS):
            x = rng.standard_normal(n) if kind == "iid" else ar1(rng, n, PHI)
            hits += bool(detect_changes(x, variance_changes=True).locations)
        rates[n] = hits / VARIANCE_RUNS
    print(f"\n[variance_changes=True, {kind}] "
          + ", ".join(f"n={n}: {r:.3f}" for n, r in rates.items()))
    assert max(rates.values()) <= (0.05 if kind == "iid" else 0.10)


# ------------------------------------------------------------------------------------------
# heavy-tailed pytest-benchmark-like rounds: a bounded guard
# ------------------------------------------------------------------------------------------


def test_heavy_tailed_rounds_bounded_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """On pytest-benchmark-like rounds (lognormal body, slow level changes, 1 % spikes of
    100x; ``benchmarks/bench_detect_heavy.py``) at n = 16,000 the guard makes a bounded
    number of passes and locates each window at most once (before the fix: 533 passes and
    159,033 location estimates on real rounds of this length)."""
    bench = load_script(BENCHMARKS / "bench_detect_heavy.py")
    counted = {"locate": 0}
    original = scan_module._posterior_location

    def counting(*args: object) -> int:
        counted["locate"] += 1
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_module, "_posterior_location", counting)
    cap = _config.DETECT_MAX_GUARD_PASSES * (1 + _config.DETECT_MAX_REFITS)
    for seed in (0, 1, 2):
        counted["locate"] = 0
        result = detect_changes(bench.pytest_benchmark_like(16_000, seed))
        print(f"\n[heavy n=16000 seed {seed}] {len(result.locations)} change points, "
              f"{result.guard_passes} guard passes, {counted['locate']} location estimates")
        assert 1 <= result.guard_passes <= cap
        assert counted["locate"] <= 2_000
        assert all(s.n >= 30 for s in result.segments)


# ------------------------------------------------------------------------------------------
# real data: TCPD floors, run whenever ../shared/datasets/tcpd is present
# ------------------------------------------------------------------------------------------

# floors slightly below the figures of benchmarks/RESULTS_detect.md (defaults, level and
# variance: F1 0.712, cover 0.657; variance_changes=False: F1 0.684, cover 0.595), so that no later
# change can quietly trade real-data accuracy for a synthetic table
TCPD_FLOORS = {False: (0.680, 0.590), True: (0.705, 0.657)}


@pytest.mark.parametrize("variance", [False, True])
def test_tcpd_floors(datasets_dir: Path, variance: bool) -> None:
    bench = load_script(BENCHMARKS / "bench_detect_tcpd.py")
    tcpd = datasets_dir / "tcpd"
    if not (tcpd / "annotations.json").is_file():
        pytest.skip(f"TCPD not found at {tcpd}")
    annotations = json.loads((tcpd / "annotations.json").read_text())
    names = sorted(
        p.stem for p in (tcpd / "datasets").glob("*.json") if p.stem not in bench.EXCLUDED
    )
    assert len(names) == 25
    f1, cover = [], []
    for name in names:
        data = json.loads((tcpd / "datasets" / f"{name}.json").read_text())
        x = np.asarray(data["series"][0]["raw"], dtype=float)
        x = (x - x.mean()) / x.std()
        found = list(detect_changes(x, variance_changes=variance).locations)
        f1.append(bench.f1_score(annotations[name], found, x.size))
        cover.append(bench.cover_score(annotations[name], found, x.size))
    mean_f1, mean_cover = float(np.mean(f1)), float(np.mean(cover))
    print(f"\n[TCPD variance={variance}] F1 {mean_f1:.3f}, cover {mean_cover:.3f}")
    floor_f1, floor_cover = TCPD_FLOORS[variance]
    assert mean_f1 >= floor_f1
    assert mean_cover >= floor_cover
    assert mean_f1 > 0.647  # the trivial "no change" method
