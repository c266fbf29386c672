"""Trial design (``pilotstats.regression._trial_design``): open systems as closed ones,
weights by trial length."""

from __future__ import annotations

import numpy as np
import pytest

from pilotstats.exceptions import InvalidInputError
from pilotstats.regression import (
    ClosedNetworkModel,
    calibrate,
    open_as_closed,
    open_system_conditions,
    weights_from_sample_sizes,
)

TRUE_D = np.array([2.0, 3.0, 4.0])
POPULATIONS = np.array([1, 4, 7, 10, 13, 16, 19])
MODEL = ClosedNetworkModel(3, think_time=10.0)


def noisy(z: np.ndarray, cv: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return z * (1 + cv * rng.standard_normal(z.shape))


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
