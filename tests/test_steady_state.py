"""Steady state of long forks: ``stable_phase(method="equivalence")`` and ``method="auto"``.

Synthetic forks of known shape check each rule of the model (settling band, final-run
length, spread and confirmation, classification); the real-data guard runs the JMH
development split when ``PILOTSTATS_JMH_DEV`` points at it and skips otherwise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from pilotstats import _config
from pilotstats.changepoints import stable_phase
from pilotstats.changepoints._steady import window_medians
from pilotstats.exceptions import InvalidInputError
from tests.scripts import load_script

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_warmup_jmh.py"


def decaying_fork(rng: np.random.Generator, n: int = 3000, amplitude: float = 0.3,
                  tau: float = 100.0, noise: float = 0.01) -> np.ndarray:
    t = np.arange(n)
    return 1.0 + amplitude * np.exp(-t / tau) + rng.normal(0.0, noise, n)


def test_window_medians_match_a_plain_loop() -> None:
    rng = np.random.default_rng(1)
    for n, window in [(10, 3), (12, 4), (7, 10), (3001, 50)]:
        x = rng.normal(size=n)
        expected = [np.median(x[i : i + window]) for i in range(0, n, window)]
        np.testing.assert_allclose(window_medians(x, window), expected, rtol=0, atol=0)


def test_flat_noise_is_flat_without_change_points() -> None:
    rng = np.random.default_rng(2)
    x = 10.0 + rng.normal(0.0, 1.0, 3000)
    phase = stable_phase(x)
    assert phase.method == "equivalence"
    assert phase.found and phase.classification == "flat"
    assert phase.locations == ()
    # only the conservative 5 % discard
    assert phase.start == 150 and phase.outcome == "trimmed"


def test_flat_without_discard_is_no_change() -> None:
    rng = np.random.default_rng(3)
    phase = stable_phase(10.0 + rng.normal(0.0, 0.1, 2000), min_warmup_fraction=0.0)
    assert (phase.start, phase.outcome, phase.classification) == (0, "no_change", "flat")


@pytest.mark.parametrize("seed", range(5))
def test_zero_mean_and_wide_noise_is_steady(seed: int) -> None:
    """The level tolerance vanishes at mean 0; the significance check keeps noise steady."""
    rng = np.random.default_rng(seed)
    assert stable_phase(rng.standard_normal(1000)).found
    assert stable_phase(rng.exponential(1.0, 3000)).found


def test_warmup_decay_is_found_and_classified() -> None:
    rng = np.random.default_rng(4)
    x = decaying_fork(rng)
    phase = stable_phase(x)
    assert phase.found and phase.classification == "warmup"
    # 0.3·exp(-t/100) falls below the 0.019 band (1.9 % of 1.0) at t ≈ 276: window end 300
    assert 200 <= phase.start <= 350
    assert phase.locations == (phase.start,)
    assert phase.mean == pytest.approx(1.0, abs=0.005)


def test_rates_swap_warmup_and_slowdown() -> None:
    rng = np.random.default_rng(5)
    rate = 2.0 - decaying_fork(rng)  # throughput rising to its steady value
    assert stable_phase(rate, higher_is_better=True).classification == "warmup"
    assert stable_phase(rate).classification == "slowdown"


def test_slowdown_after_a_good_start() -> None:
    rng = np.random.default_rng(6)
    x = 1.0 + rng.normal(0.0, 0.01, 3000)
    x[600:] += 0.2
    phase = stable_phase(x)
    assert phase.found and phase.classification == "slowdown"
    assert phase.start == 600


def test_small_significant_shift_does_not_end_the_steady_state() -> None:
    rng = np.random.default_rng(7)
    x = 1.0 + rng.normal(0.0, 0.005, 3000)
    x[1500:] += 0.003  # 0.3 %: significant with 1500 samples a side, practically irrelevant
    phase = stable_phase(x)
    assert phase.found and phase.classification == "flat"
    assert stable_phase(x, method="robust").locations  # the guard does see it


def test_late_change_means_no_steady_state() -> None:
    rng = np.random.default_rng(8)
    x = 1.0 + rng.normal(0.0, 0.01, 3000)
    x[2700:] += 0.5
    phase = stable_phase(x)
    assert not phase.found
    assert (phase.outcome, phase.classification) == ("no_steady_state", "no_steady_state")
    assert (phase.start, phase.end) == (0, 3000)
    assert "settles only in its last" in (phase.note or "")
    assert str(phase).startswith("no steady state in 3000 samples")


def test_wandering_level_means_no_steady_state() -> None:
    rng = np.random.default_rng(9)
    walk = np.cumsum(rng.normal(0.0, 0.02, 3000))
    phase = stable_phase(10.0 + walk + rng.normal(0.0, 0.05, 3000))
    assert not phase.found and phase.classification == "no_steady_state"


def test_spikes_and_periodic_patterns_do_not_end_the_steady_state() -> None:
    rng = np.random.default_rng(10)
    x = 1e-5 * (1.0 + rng.lognormal(0.0, 0.05, 3000))
    x[rng.choice(3000, 30, replace=False)] *= 100.0  # GC pauses
    x += 2e-7 * (np.arange(3000) % 20 == 0)  # a periodic hiccup every 20 iterations
    phase = stable_phase(x)
    assert phase.found and phase.classification == "flat"


def test_bimodal_iterations_are_steady() -> None:
    rng = np.random.default_rng(11)
    modes = np.where(rng.random(3000) < 0.3, 1.2, 1.0)
    phase = stable_phase(modes + rng.normal(0.0, 0.01, 3000))
    assert phase.found


def test_auto_switches_at_the_long_series_length() -> None:
    rng = np.random.default_rng(12)
    x = 5.0 + rng.normal(0.0, 0.1, _config.EQUIVALENCE_LONG_SERIES)
    assert stable_phase(x).method == "equivalence"
    assert stable_phase(x[:-1]).method == "robust"
    assert stable_phase(x, method="robust").method == "robust"
    assert stable_phase(x[:500], method="equivalence").method == "equivalence"


def test_too_short_for_equivalence_is_kept_whole() -> None:
    phase = stable_phase(np.arange(50.0), method="equivalence")
    assert (phase.outcome, phase.start, phase.end, phase.found) == ("not_enough_data", 0, 50, True)


def test_scale_invariance_and_no_mutation() -> None:
    rng = np.random.default_rng(13)
    x = decaying_fork(rng)
    before = x.copy()
    a = stable_phase(x)
    b = stable_phase(1e-6 * x)
    np.testing.assert_array_equal(x, before)
    assert (a.start, a.found, a.classification) == (b.start, b.found, b.classification)


def test_result_serialises_with_class_and_note() -> None:
    rng = np.random.default_rng(14)
    data = stable_phase(decaying_fork(rng)).to_dict()
    text = json.dumps(data)
    assert data["classification"] == "warmup" and "band" in data["note"]
    assert json.loads(text)["method"] == "equivalence"


def test_every_method_classifies() -> None:
    rng = np.random.default_rng(15)
    x = np.r_[rng.normal(14.0, 1.0, 60), rng.normal(10.0, 1.0, 440)]
    assert stable_phase(x).classification == "warmup"
    assert stable_phase(x, method="pilot").classification in ("warmup", "no_steady_state")
    assert stable_phase(rng.normal(10.0, 1.0, 300)).classification == "flat"


@pytest.mark.parametrize(
    ("keyword", "value", "message"),
    [
        ("tolerance", 0.0, "tolerance"),
        ("tolerance", 1.0, "tolerance"),
        ("min_steady_fraction", 1.5, "min_steady_fraction"),
        ("min_warmup_fraction", -0.1, "min_warmup_fraction"),
        ("min_warmup_fraction", 0.9, "1 - min_steady_fraction"),
        ("higher_is_better", "yes", "higher_is_better must be True or False"),
        ("method", "fork", "method"),
    ],
)
def test_bad_parameters_are_named(keyword: str, value: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        stable_phase(np.ones(1500), **{keyword: value})  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------
# real-data guard: the JMH development split (built locally, never committed)
# ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_jmh_development_split_floors() -> None:
    """Floors slightly below the figures measured on the final commit (README): accuracy
    0.813, median onset error 143, in band 0.611 (CP-SSD: 0.701, 277.5, 0.18)."""
    bench = load_script(BENCH, "bench_warmup_jmh")
    folder = bench.data_dir(["", os.environ.get("PILOTSTATS_JMH_DEV", "")])
    if folder is None:
        pytest.skip("PILOTSTATS_JMH_DEV does not point at the JMH development split")
    series, labels, _ = bench.load(folder)
    answers, _, _ = bench.ours(series)
    result = bench.score(answers, labels)
    assert result["accuracy"] >= 0.80
    assert result["median_onset_error"] <= 160
    assert result["in_band"] >= 0.58


@pytest.mark.parametrize("n", [3000, 16000])
def test_step_inside_a_window_is_the_end_of_the_transient(n: int) -> None:
    """A step that falls inside a window is located by the significance check, not read as
    a change that keeps occurring."""
    rng = np.random.default_rng(16)
    x = np.r_[rng.normal(10.0, 1.0, n // 2), rng.normal(12.0, 1.0, n - n // 2)]
    phase = stable_phase(x)
    assert phase.found and phase.classification == "slowdown"
    assert abs(phase.start - n // 2) <= 40
