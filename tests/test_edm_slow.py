"""Slow, seeded simulations of the reference behaviour that ``edm`` reproduces
(specs/edm.md §8.1): nothing is tested for significance, so noise yields change points."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pilotstats.changepoints import edm
from pilotstats.changepoints._edm import _edm_percent_locations

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("n", "mean_count"), [(60, 1.00), (100, 1.73), (300, 4.25)])
def test_pilot_configuration_on_noise(n: int, mean_count: float) -> None:
    """Pilot's EDM-percent (δ 30, percent 0.25, degree 1, raw values) on i.i.d. N(0, 1):
    at least one change point in every series (spec §8.1 table: P = 1.00) and the mean
    number of change points of the table within 4 standard errors."""
    rng = np.random.default_rng([81, n])
    replications = 400
    counts = np.array(
        [
            len(_edm_percent_locations(rng.normal(size=n), 30, 0.25, 1, scale=False))
            for _ in range(replications)
        ]
    )
    assert (counts >= 1).all()
    standard_error = max(counts.std(ddof=1), 0.05) / math.sqrt(replications)
    assert abs(counts.mean() - mean_count) <= 4 * standard_error + 0.02


def test_edm_multi_false_changes_on_noise() -> None:
    """EDM-multi on N(0, 1), n = 500, δ = 30 (spec §8.1): β = 0.008 is essentially silent,
    β = 0.001 reports many false changes (spec: 8.5 per series)."""
    rng = np.random.default_rng(82)
    series = [rng.normal(size=500) for _ in range(100)]
    strict = np.mean([len(edm(x, min_size=30, beta=0.008).locations) for x in series])
    loose = np.mean([len(edm(x, min_size=30, beta=0.001).locations) for x in series])
    assert strict <= 0.05
    assert 7.0 <= loose <= 10.5


def test_edm_percent_scaled_equals_raw_on_noise() -> None:
    """Spec §4.3: under range scaling the percent test is scale-free, so the scaled and the
    raw configuration agree (barring floating-point near-ties) on continuous data."""
    rng = np.random.default_rng(83)
    agree = 0
    for _ in range(200):
        x = 50.0 + 3.0 * rng.normal(size=150)
        raw = _edm_percent_locations(x, 30, 0.25, 1, scale=False)
        scaled = _edm_percent_locations(x, 30, 0.25, 1, scale=True)
        agree += raw == scaled
    assert agree >= 198
