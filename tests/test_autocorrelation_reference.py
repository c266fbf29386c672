"""Pinned reference values of ``specs/autocorrelation.md`` §11 (Pilot's own tests).

Provenance of every number: ``tests/reference/autocorrelation/README.md``. Pilot states CI
widths and width targets as full widths; pilotstats takes and reports half widths, so the
Pilot numbers are kept as published and halved where they are compared.
"""

from __future__ import annotations

import numpy as np
import pytest

from pilotstats.autocorrelation import (
    lag1_autocorrelation,
    optimal_subsession_size,
    proportion_interval,
    required_sample_size,
    required_sample_size_for_comparison,
    subsession_analysis,
    welch_degrees_of_freedom,
    welch_test,
)
from pilotstats.autocorrelation._blocks import block_moments, prepare
from pilotstats.datasets import binary_outcomes, ferrari_response_times, speed_of_light
from pilotstats.exceptions import NotEnoughDataError

FERRARI = ferrari_response_times()


def moments(x: np.ndarray, q: int, mean_method: str = "arithmetic") -> tuple[float, float]:
    return block_moments(prepare(x, mean_method), q)  # type: ignore[arg-type]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise Check classes over exactly the quantities their reference pins."""
    if "quantity" in metafunc.fixturenames and metafunc.cls is not None:
        metafunc.parametrize("quantity", sorted(metafunc.cls.ref))


class CheckSubsession:
    """Compare ``self.res`` (a SubsessionResult) with ``self.ref`` (dict of expected values).

    ``rtol`` applies to floats; CLI-printed values use ``atol`` at their printed precision.
    ``pilot_ci_width`` is the full CI width Pilot prints; it is compared with
    ``2 * half_width`` (doubling is exact, so the tolerance is Pilot's own).
    """

    res: object
    ref: dict[str, float]
    rtol = 1e-12
    atol = 0.0

    def test_quantity(self, quantity: str) -> None:
        if quantity == "pilot_ci_width":  # Pilot's full width = 2 x pilotstats' half width
            got = 2.0 * self.res.half_width  # type: ignore[attr-defined]
        else:
            got = getattr(self.res, quantity)
        assert got == pytest.approx(self.ref[quantity], rel=self.rtol, abs=self.atol)


class TestFerrariQ4(CheckSubsession):
    """V1: unit_test_statistics.cc (AutocorrelationCoefficient), ASSERT_DOUBLE_EQ."""

    res = subsession_analysis(FERRARI)
    ref = {
        "mean": 1.756458333333333,
        "subsession_size": 4,
        "pilot_ci_width": 0.29157062128900485,
        "subsession_variance": 0.05264711174242424,
        "autocorrelation": 0.08230986644266707,
        "n": 48,
    }


class TestFerrariCliLimit08(CheckSubsession):
    """V1: cli/test/unit_test_analyze.sh, limit 0.8 arithmetic (6 decimals)."""

    res = subsession_analysis(FERRARI, autocorrelation_limit=0.8)
    rtol, atol = 0.0, 5e-7
    ref = {
        "n": 48,
        "mean": 1.756458,
        "subsession_size": 1,
        "pilot_ci_width": 0.157416,
        "subsession_variance": 0.073474,
        "autocorrelation": 0.636556,
    }


class TestFerrariCliLimit01(TestFerrariCliLimit08):
    """V1: cli/test/unit_test_analyze.sh, limit 0.1 arithmetic (6 decimals)."""

    res = subsession_analysis(FERRARI, autocorrelation_limit=0.1)
    ref = {
        "n": 48,
        "mean": 1.756458,
        "subsession_size": 4,
        "pilot_ci_width": 0.291571,
        "subsession_variance": 0.052647,
        "autocorrelation": 0.082310,
    }


class TestFerrariCliHarmonic(TestFerrariCliLimit08):
    """V1: cli/test/unit_test_analyze.sh, limit 0.8 harmonic (6 decimals)."""

    res = subsession_analysis(FERRARI, autocorrelation_limit=0.8, mean_method="harmonic")
    ref = {
        "n": 48,
        "mean": 1.713913,
        "subsession_size": 1,
        "pilot_ci_width": 0.159384,
        "subsession_variance": 0.075323,
        "autocorrelation": 0.646682,
    }


class TestReadingsSession(TestFerrariCliLimit08):
    """V3: cli/test/unit_test_benchmark.sh — the session stops at 44 readings (6 s.f.)."""

    res = subsession_analysis(FERRARI[:44])
    rtol, atol = 5e-6, 0.0
    ref = {
        "n": 44,
        "mean": 1.72477,
        "pilot_ci_width": 0.283944,
        "subsession_variance": 0.0446593,
        "subsession_size": 4,
    }


class TestReadingsSessionSecondIndex(TestReadingsSession):
    """V3: the second index (each value + 1): same width and s2_q, mean + 1."""

    res = subsession_analysis(FERRARI[:44] + 1.0)
    ref = {**TestReadingsSession.ref, "mean": 2.72477}


class TestTinySession(CheckSubsession):
    """V4: unit_test_run_workload.cc (RunWorkload), readings {42, 43, 44}."""

    res = subsession_analysis([42.0, 43.0, 44.0])
    ref = {
        "n": 3,
        "mean": 43.0,
        "subsession_size": 1,
        "subsession_variance": 1.0,
        "autocorrelation": 0.0,
        "pilot_ci_width": 4.9682754235006596,
    }


class TestBlockStatistics:
    """V1 block statistics, ASSERT_DOUBLE_EQ (relative 1e-12)."""

    def test_s2_1(self) -> None:
        assert moments(FERRARI, 1)[0] == pytest.approx(0.073474423758865273, rel=1e-12)

    def test_g_1(self) -> None:
        assert moments(FERRARI, 1)[1] == pytest.approx(0.046770566452423196, rel=1e-12)

    def test_r1_q1(self) -> None:
        assert lag1_autocorrelation(FERRARI, 1) == pytest.approx(0.63655574361384437, rel=1e-12)

    def test_r1_q2(self) -> None:
        assert lag1_autocorrelation(FERRARI, 2) == pytest.approx(0.55892351761172487, rel=1e-12)

    def test_s2_4(self) -> None:
        assert moments(FERRARI, 4)[0] == pytest.approx(0.05264711174242424, rel=1e-12)

    def test_r1_q4(self) -> None:
        assert lag1_autocorrelation(FERRARI, 4) == pytest.approx(0.08230986644266707, rel=1e-12)

    def test_optimal_q(self) -> None:
        assert optimal_subsession_size(FERRARI) == 4

    def test_harmonic_mean_first_six(self) -> None:
        """HarmonicMean: {1.21, 1.67, 1.71, 1.53, 2.03, 2.15}."""
        assert prepare(FERRARI[:6], "harmonic").mean == pytest.approx(
            1.6568334130160711, rel=1e-12
        )

    def test_corner_one_sample(self) -> None:
        """CornerCases: optimal size of one sample is None (Pilot -1)."""
        assert optimal_subsession_size([1.0]) is None

    def test_corner_autocovariance_one_sample(self) -> None:
        """CornerCases: autocovariance of one sample with q = 1 raises (Pilot aborts)."""
        with pytest.raises(NotEnoughDataError):
            moments(np.array([1.0]), 1)

    def test_tiny_unit_readings(self) -> None:
        """V4 unit readings: r1(1) pinned; no subsession size qualifies (Pilot -1)."""
        unit = [1, 5, 10, 20, 30, 40, 42, 42, 42, 2, 4, 9, 21, 22, 41, 43, 41, 40, 1, 4,
                12, 25, 32, 42, 42, 43, 41]
        assert lag1_autocorrelation(unit) == pytest.approx(0.62643602129514497, rel=1e-12)
        assert optimal_subsession_size(unit) is None
        result = required_sample_size(unit, half_width_percent=10 / 2)  # Pilot: full 10 %
        assert result.samples is None and result.subsession_size is None
        assert not result.enough


class TestRequiredSampleSize:
    def test_ferrari(self) -> None:
        """V1: required size with W_req = 0.1 m (a half width of 5 %), limit 0.1."""
        result = required_sample_size(FERRARI, half_width_percent=10 / 2)
        sizes = (result.subsession_size, result.required_subsessions, result.subsessions)
        assert sizes == (4, 34, 34)
        assert result.samples == 136

    def test_tiny_with_pilot_floor(self) -> None:
        """V4: Pilot's library floor of 200 subsessions."""
        result = required_sample_size([42, 43, 44], half_width_percent=10 / 2,
                                      min_subsessions=200)
        assert result.samples == 200

    def test_tiny_default_floor(self) -> None:
        """V4: project default min_subsessions = 0 gives 5."""
        assert required_sample_size([42, 43, 44], half_width_percent=10 / 2).samples == 5

    def test_readings_session_stops_at_44(self) -> None:
        """V3: re-evaluate after every reading; stop at the first `enough` (Pilot's full
        width of 30 % of the mean is a half width of 15 %)."""
        stop = next(
            n
            for n in range(3, FERRARI.size + 1)
            if required_sample_size(
                FERRARI[:n], half_width_percent=30 / 2, min_subsessions=10,
                autocorrelation_limit=0.1, confidence_level=0.95,
            ).enough
        )
        assert stop == 44

    def test_proportion_session_stops_at_20(self) -> None:
        """V2: binomial-proportion session with Pilot's rule stops with 20 samples (Pilot's
        full width of 90 % of the proportion is a half width of 45 %)."""
        outcomes = binary_outcomes()
        stop = next(
            n
            for n in range(3, outcomes.size + 1)
            if required_sample_size(
                outcomes[:n], kind="proportion", proportion_method="pilot",
                half_width_percent=90 / 2, min_subsessions=10,
            ).enough
        )
        assert stop == 20
        final = proportion_interval(outcomes, method="pilot")
        assert final.proportion == pytest.approx(0.55)
        assert 2 * final.half_width == pytest.approx(0.465668, abs=5e-7)  # Pilot: full width
        assert np.var(outcomes, ddof=1) == pytest.approx(0.260526, abs=5e-7)


class TestProportion:
    def test_pilot_width(self) -> None:
        """V2: unit_test_statistics.cc, ASSERT_DOUBLE_EQ (Pilot's full width)."""
        result = proportion_interval(binary_outcomes(), method="pilot")
        assert 2 * result.half_width == pytest.approx(0.46566845477273205, rel=1e-12)


class TestWelchBodyTemperature:
    """V7: TestOfSignificance, ASSERT_NEAR at 0.001."""

    args = (98.105, 0.699**2, 65, 98.394, 0.743**2, 65)

    def test_p_value(self) -> None:
        assert welch_test(*self.args).p_value == pytest.approx(0.024, abs=1e-3)

    def test_interval(self) -> None:
        result = welch_test(*self.args)
        assert result.ci_low == pytest.approx(-0.540, abs=1e-3)
        assert result.ci_high == pytest.approx(-0.039, abs=1e-3)

    def test_required_size_at_observed_p(self) -> None:
        p = welch_test(*self.args).p_value
        result = required_sample_size_for_comparison(*self.args, significance_level=p)
        assert result.required_subsessions == 65


class TestWelchSpeedOfLight:
    """V7: TestSpeedOfLight."""

    vel1, vel2 = speed_of_light()

    def test_variances(self) -> None:
        assert moments(self.vel1, 1)[0] == pytest.approx(79.0105478191**2, abs=1e-4)
        assert moments(self.vel2, 1)[0] == pytest.approx(107.114618526**2, abs=1e-4)

    def test_dof(self) -> None:
        dof = welch_degrees_of_freedom(
            self.vel1.var(ddof=1), 100, self.vel2.var(ddof=1), 23
        )
        assert dof == pytest.approx(27.754, abs=1e-3)

    def test_welch_99(self) -> None:
        result = welch_test(
            self.vel1.mean(), self.vel1.var(ddof=1), 100,
            self.vel2.mean(), self.vel2.var(ddof=1), 23, confidence_level=0.99,
        )
        assert result.p_value == pytest.approx(0.0003625357, abs=1e-10)
        assert result.ci_low == pytest.approx(30.67544, abs=1e-5)
        assert result.ci_high == pytest.approx(161.68977, abs=1e-5)
