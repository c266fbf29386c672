"""The median and minimum statistics' intervals (``pilotstats.analysis._robust``)."""

from __future__ import annotations

import numpy as np
import pytest


def test_median_interval_is_the_order_statistic_interval() -> None:
    """n = 20 independent samples (q = 1): the 95 % interval is [x(6), x(15)]."""
    from pilotstats.analysis._robust import block_statistic

    values = np.random.default_rng(2).permutation(np.arange(1.0, 21.0))
    result = block_statistic(values, 1, "median", 0.95)
    assert (result["ci_low"], result["mean"], result["ci_high"]) == (6.0, 10.5, 15.0)
    few = block_statistic(values[:5], 1, "median", 0.95)  # P(all 5 on one side) > 2.5 %
    assert few["ci_low"] is None and "too few" in few["notes"][0]
    minima = block_statistic(values, 4, "min", 0.95)
    expected = values.reshape(5, 4).min(axis=1)
    assert minima["mean"] == pytest.approx(expected.mean()) and minima["n_subsessions"] == 5
    assert minima["ci_low"] < expected.mean() < minima["ci_high"]


@pytest.mark.slow
def test_median_interval_coverage() -> None:
    """Coverage of the median's interval on AR(1) data (phi = 0.5) at least the level,
    up to simulation error (400 series)."""
    from pilotstats.analysis._robust import block_statistic
    from pilotstats.autocorrelation import subsession_analysis

    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(400):
        e = rng.standard_normal(400)
        x = np.empty_like(e)
        x[0] = e[0] / np.sqrt(1 - 0.25)
        for i in range(1, x.size):
            x[i] = 0.5 * x[i - 1] + e[i]
        q = subsession_analysis(x).subsession_size
        result = block_statistic(x, q, "median", 0.95)
        covered += result["ci_low"] <= 0.0 <= result["ci_high"]
    assert covered / 400 >= 0.91
