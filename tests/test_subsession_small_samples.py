"""Issue 24, small samples say so: ``subsession_analysis`` warns when strong autocorrelation
leaves too few effective samples for its nominal coverage (README, "Small samples say so";
``benchmarks/bench_subsession_coverage.py`` for the full table)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pilotstats import _config
from pilotstats.autocorrelation import subsession_analysis
from pilotstats.datasets import ferrari_response_times
from pilotstats.exceptions import DataRangeWarning


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
