"""EDM change points: reference values (specs/edm.md §9), validation, degenerate input and
properties (§10). Provenance of every reference: ``tests/reference/edm/README.md``."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pilotstats import _config
from pilotstats.changepoints import ChangePoints, SingleChangePoint, edm, edm_single
from pilotstats.changepoints._edm import (
    _edm_multi_locations,
    _edm_percent_locations,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError, PerformanceWarning

REFERENCE = Path(__file__).resolve().parent / "reference" / "edm"
CV1 = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5, 9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
STEP = [0.0] * 10 + [1.0] * 10
CONSTANT = [1.0] * 100
SPIKE = [1.0] * 50 + [2.0] + [1.0] * 49
SCRIBE_SHA256 = "22cfc542cb85c9f6d3861c0e6fd7c0b259ac4840fc07ac1e2f6cd6ed060d89b2"


def load_scribe() -> np.ndarray:
    text = (REFERENCE / "scribe.txt").read_text()
    return np.array([float(v) for v in re.split(r"[,\s]+", text) if v])


def test_scribe_data_integrity() -> None:
    """Spec §9 "Scribe data": 160 values, range 30.1167–1015.35, SHA-256 of the float64s."""
    scribe = load_scribe()
    assert scribe.shape == (160,)
    assert hashlib.sha256(scribe.astype("<f8").tobytes()).hexdigest() == SCRIBE_SHA256
    assert scribe.min() == pytest.approx(30.1167, abs=1e-4)
    assert scribe.max() == 1015.35


# ----------------------------------------------------------------------------------------
# Check classes
# ----------------------------------------------------------------------------------------


class CheckLocations:
    """``self.res`` (pilotstats) against ``self.ref`` (expected locations)."""

    res: ChangePoints
    ref: tuple[int, ...]
    method: ClassVar[str]

    def test_locations(self) -> None:
        assert self.res.locations == self.ref

    def test_method(self) -> None:
        assert self.res.method == self.method

    def test_segments_cover_series(self) -> None:
        bounds = [0, *self.ref, self.res.n]
        assert [(s.start, s.end) for s in self.res.segments] == list(itertools.pairwise(bounds))
        assert self.res.p_values is None and self.res.test is None

    def test_json(self) -> None:
        json.dumps(self.res.to_dict(), allow_nan=False)


class CheckSingle:
    """``self.res`` (pilotstats) against ``self.ref`` (location or None) and statistic."""

    res: SingleChangePoint
    ref: int | None
    ref_statistic: float | None = None

    def test_location(self) -> None:
        assert self.res.location == self.ref

    def test_statistic(self) -> None:
        if self.ref_statistic is not None:
            assert self.res.statistic == self.ref_statistic
        if self.ref is None:
            assert self.res.statistic == 0.0
        else:
            assert self.res.statistic > 0.0

    def test_json(self) -> None:
        json.dumps(self.res.to_dict(), allow_nan=False)


# CV-1: ankane/breakout-python tests/test_breakout.py (R BreakoutDetection 1.0.1 values).
class TestCV1Multi(CheckLocations):
    method = "edm-multi"
    res = edm(CV1, min_size=5, beta=0.008, degree=1)
    ref = (10, 15, 20)


class TestCV1Percent(CheckLocations):
    method = "edm-percent"
    res = edm(CV1, min_size=5, percent=0.5, degree=1)
    ref = (8, 19)


class TestCV1EdmX(CheckSingle):
    res = edm_single(CV1, min_size=5)
    ref = 19


class TestCV1EdmTail(CheckSingle):
    # R/port tree and the spec §5.5 default tree alike give 20
    res = edm_single(CV1, min_size=5, exact=False)
    ref = 20


class TestCV1EdmTailReferenceTree(CheckSingle):
    # the reference code's tree (spec §5.5 [R] switch): R and the port give 20
    res = edm_single(CV1, min_size=5, exact=False, tree="reference")
    ref = 20


# CV-2: step [0]*10 + [1]*10 (spec §9).
class TestCV2Multi(CheckLocations):
    method = "edm-multi"
    res = edm(STEP, min_size=5)
    ref = (10,)


class TestCV2MultiTooShort(CheckLocations):
    method = "edm-multi"
    res = edm(STEP, min_size=11)
    ref = ()

    def test_flag(self) -> None:
        assert self.res.too_short


class TestCV2EdmX(CheckSingle):
    res = edm_single(STEP, min_size=5)
    ref = 10
    ref_statistic = 5.0  # 10·10/20·1², exact


class TestCV2EdmXTooShort(CheckSingle):
    # R returns loc 0, stat −3 here; the project reports no change (spec §2.3 [FIX])
    res = edm_single(STEP, min_size=11)
    ref = None


# CV-3: constant series, default δ (spec §9).
class TestCV3Multi(CheckLocations):
    method = "edm-multi"
    res = edm(CONSTANT)
    ref = ()


class TestCV3Percent(CheckLocations):
    method = "edm-percent"
    res = edm(CONSTANT, percent=1.0)
    ref = ()


class TestCV3EdmX(CheckSingle):
    res = edm_single(CONSTANT)
    ref = None


class TestCV3EdmTail(CheckSingle):
    res = edm_single(CONSTANT, exact=False)
    ref = None


# CV-4: one spike in a constant series; every median coincides (spec §9).
class TestCV4Multi(CheckLocations):
    method = "edm-multi"
    res = edm(SPIKE)
    ref = ()


class TestCV4Percent(CheckLocations):
    method = "edm-percent"
    res = edm(SPIKE, percent=1.0)
    ref = ()


class TestCV4EdmX(CheckSingle):
    res = edm_single(SPIKE)
    ref = None


class TestCV4EdmTail(CheckSingle):
    res = edm_single(SPIKE, exact=False)
    ref = None


# CV-4b: 1..10 with δ 6 (n < 2δ); R amoc: loc 0, stat −3.
class TestCV4bMulti(CheckLocations):
    method = "edm-multi"
    res = edm(list(range(1, 11)), min_size=6)
    ref = ()


class TestCV4bEdmX(CheckSingle):
    res = edm_single(list(range(1, 11)), min_size=6)
    ref = None


# CV-5: Scribe (twitter/BreakoutDetection data/Scribe.RData; README example; Go golden values).
class TestCV5ReadmeExample(CheckLocations):
    method = "edm-multi"
    res = edm(load_scribe(), min_size=24, beta=0.001, degree=1)
    ref = (47, 87)


class TestCV5DefaultBeta(CheckLocations):
    method = "edm-multi"
    res = edm(load_scribe(), min_size=24)
    ref = ()


class TestCV5EdmX(CheckSingle):
    res = edm_single(load_scribe(), min_size=24)
    ref = 95


class TestCV5EdmTail(CheckSingle):
    res = edm_single(load_scribe(), min_size=24, exact=False)
    ref = 47


class TestCV5EdmTailReferenceTree(CheckSingle):
    # R and the port agree on 47 (Go golden value)
    res = edm_single(load_scribe(), min_size=24, exact=False, tree="reference")
    ref = 47

    def test_parameters(self) -> None:
        assert self.res.parameters["tree"] == "reference"
        assert self.res.parameters["tree_depth"] == 10


class TestCV3EdmTailReferenceTree(CheckSingle):
    res = edm_single(CONSTANT, exact=False, tree="reference")
    ref = None


# P-1: Pilot lib/test/unit_test_statistics.cc (δ 30, percent 0.25, degree 1, raw values).
PILOT_A = [1.1] * 30 + [5.1] * 30 + [1.1] * 30
PILOT_B = [1.1] * 30 + [5.1] * 130 + [1.1] * 30
PILOT_C = [1.1] * 30 + [5.1] * 30


def pilot_locations(values: list[float]) -> tuple[int, ...]:
    return _edm_percent_locations(np.array(values), 30, 0.25, 1, scale=False)


def dominant_segment(locations: tuple[int, ...], n: int) -> tuple[int, int] | None:
    """Pilot's dominant-segment walk (spec §4.4), restated for these tests."""
    bounds = [0, *locations, n]
    best = None
    for begin, end in itertools.pairwise(bounds):
        if best is None or end - begin > best[1] - best[0]:
            best = (begin, end)
        if best[1] - best[0] > n // 2:
            return best
    return None


class TestPilotChangeInMean1(CheckLocations):
    """TestChangeInMean1: change points [30, 60]."""

    method = "edm-percent"
    res = edm(PILOT_A, min_size=30, percent=0.25, degree=1, scale="none")
    ref = (30, 60)

    def test_private_helper(self) -> None:
        assert pilot_locations(PILOT_A) == self.ref
        assert dominant_segment(self.ref, 90) is None  # FindDominantSegment (a)


class TestPilotDominantSegmentB(CheckLocations):
    """FindDominantSegment (b): the dominant segment is [30, 131)."""

    method = "edm-percent"
    res = edm(PILOT_B, min_size=30, percent=0.25, degree=1, scale="none")
    ref = (30, 131)

    def test_dominant(self) -> None:
        assert dominant_segment(pilot_locations(PILOT_B), 190) == (30, 131)


def test_pilot_find_changepoint() -> None:
    """FindChangepoint (a) none for n = 30, (b) last 30, (c) last 60."""
    assert pilot_locations([1.1] * 30) == ()
    assert pilot_locations(PILOT_C)[-1] == 30
    assert pilot_locations(PILOT_A)[-1] == 60


def test_pilot_scaled_equals_raw_here() -> None:
    """Spec §4.3: the percent test is scale-free, so range scaling gives the same result."""
    for values in (PILOT_A, PILOT_B, PILOT_C):
        assert _edm_percent_locations(np.array(values), 30, 0.25, 1, scale=True) == (
            pilot_locations(values)
        )


def test_private_multi_helper() -> None:
    scribe = load_scribe()
    assert _edm_multi_locations(scribe, 24, 0.001, 1, scale=True) == (47, 87)
    assert _edm_multi_locations(np.ones(10), 2, 0.001, 1, scale=True) == ()


# ----------------------------------------------------------------------------------------
# Validation and degenerate input (spec §2.1, §2.3)
# ----------------------------------------------------------------------------------------

GOOD = np.linspace(0.0, 1.0, 70)


@pytest.mark.parametrize(
    ("data", "kwargs", "error", "match"),
    [
        ([1.0, np.nan, 2.0] * 30, {}, InvalidInputError, "NaN or infinite.*index 1"),
        ([1.0, np.inf] * 40, {}, InvalidInputError, "NaN or infinite"),
        ([], {}, NotEnoughDataError, "empty"),
        (np.ones((10, 10)), {}, InvalidInputError, "1-dimensional"),
        (["a", "b"], {}, InvalidInputError, "real numbers"),
        ("abc", {}, InvalidInputError, "array of numbers"),
        (GOOD, {"min_size": 1}, InvalidInputError, "min_size must be at least 2"),
        (GOOD, {"min_size": 2.5}, InvalidInputError, "min_size must be an integer"),
        (GOOD, {"beta": -0.1}, InvalidInputError, "beta must lie in"),
        (GOOD, {"beta": np.inf}, InvalidInputError, "beta must be a finite"),
        (GOOD, {"percent": -1.0}, InvalidInputError, "percent must lie in"),
        (GOOD, {"percent": np.nan}, InvalidInputError, "percent must be a finite"),
        (GOOD, {"degree": 3}, InvalidInputError, "degree must be 0"),
        (GOOD, {"degree": True}, InvalidInputError, "degree must be an integer"),
        (GOOD, {"beta": 0.1, "percent": 0.1}, InvalidInputError, "cannot be given together"),
        (GOOD, {"scale": "log"}, InvalidInputError, "scale must be one of"),
    ],
)
def test_edm_bad_input(data: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        edm(data, **kwargs)


@pytest.mark.parametrize(
    ("data", "kwargs", "error", "match"),
    [
        ([np.nan] * 70, {}, InvalidInputError, "NaN"),
        ([], {}, NotEnoughDataError, "empty"),
        (np.ones((3, 30)), {}, InvalidInputError, "1-dimensional"),
        (GOOD, {"min_size": 0}, InvalidInputError, "min_size"),
        (GOOD, {"exact": "yes"}, InvalidInputError, "exact must be True or False"),
        (GOOD, {"exact": False, "alpha": 0.0}, InvalidInputError, "alpha must lie in"),
        (GOOD, {"exact": False, "alpha": 2.5}, InvalidInputError, "alpha must lie in"),
        (GOOD, {"exact": False, "quantile": 1.0}, InvalidInputError, "quantile must lie in"),
        (GOOD, {"exact": False, "tree": "go"}, InvalidInputError, "tree must be one of"),
    ],
)
def test_edm_single_bad_input(data: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        edm_single(data, **kwargs)


def test_input_not_modified() -> None:
    x = np.array(CV1, dtype=float)
    copy = x.copy()
    edm(x, min_size=5)
    edm_single(x, min_size=5, exact=False)
    assert np.array_equal(x, copy)


@pytest.mark.parametrize("n", [1, 5, 59])
def test_too_short_is_documented_empty(n: int) -> None:
    x = np.arange(float(n))
    result = edm(x)
    assert result.locations == () and result.too_short and result.score is None
    assert len(result.segments) == 1 and result.segments[0].n == n
    single = edm_single(x)
    assert single.location is None and single.too_short and single.statistic == 0.0


def test_constant_series_is_empty_not_too_short() -> None:
    result = edm([2.5] * 80)
    assert result.locations == () and not result.too_short
    assert result.segments[0].mean == 2.5


def test_defaults_and_parameters() -> None:
    result = edm(load_scribe(), min_size=24)
    assert result.parameters["beta"] == 0.008 and result.parameters["degree"] == 1
    assert result.parameters["scale"] == "range"
    assert result.parameters["data_min"] == pytest.approx(30.1166666666667)
    percent = edm(CV1, min_size=5, percent=0.5)
    assert "beta" not in percent.parameters and percent.parameters["percent"] == 0.5
    assert edm(np.arange(100.0)).parameters["min_size"] == 30


def test_result_contents() -> None:
    result = edm(CV1, min_size=5)
    assert [s.median for s in result] == [2.0, 5.0, 4.0, 9.0]
    assert result.segments[0].mean == pytest.approx(2.0)
    assert result.score is not None and result.score > 0
    records = result.to_records(metric="latency")
    assert [r["index"] for r in records] == [10, 15, 20]
    assert str(result).startswith("edm-multi: 3 change points at [10, 15, 20]")


def test_degree_zero_ignores_beta() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=80)
    assert edm(x, min_size=5, beta=0.0, degree=0).locations == (
        edm(x, min_size=5, beta=10.0, degree=0).locations
    )


def test_degree_two_penalises_more() -> None:
    x = np.repeat([0.0, 1.0, 0.0, 1.0, 0.0, 1.0], 10) + np.tile([0.0, 0.01], 30)
    linear = edm(x, min_size=5, beta=0.02, degree=1)
    quadratic = edm(x, min_size=5, beta=0.02, degree=2)
    assert len(quadratic) <= len(linear)


# ----------------------------------------------------------------------------------------
# Properties (spec §10)
# ----------------------------------------------------------------------------------------

series = st.lists(
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_subnormal=False),
    min_size=12,
    max_size=40,
)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(series, st.integers(min_value=-8, max_value=8), st.integers(min_value=2, max_value=6))
def test_power_of_two_scaling_is_bit_exact(values: list[float], k: int, min_size: int) -> None:
    """Under range scaling x → 2^k·x leaves z bit-identical: every variant is unchanged."""
    x = np.array(values)
    y = x * 2.0**k
    assert edm(x, min_size=min_size).locations == edm(y, min_size=min_size).locations
    assert (
        edm(x, min_size=min_size, percent=0.3, degree=2).locations
        == edm(y, min_size=min_size, percent=0.3, degree=2).locations
    )
    for exact in (True, False):
        a = edm_single(x, min_size=min_size, exact=exact)
        b = edm_single(y, min_size=min_size, exact=exact)
        assert (a.location, a.statistic) == (b.location, b.statistic)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=2**32 - 1),
    st.floats(min_value=0.01, max_value=100.0),
    st.floats(min_value=-100.0, max_value=100.0),
)
def test_affine_invariance_percent_and_edmx(seed: int, a: float, b: float) -> None:
    """Continuous data: EDM-percent (any scale mode) and EDM-X ignore x → a·x + b."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=40) + np.repeat([0.0, 1.5], 20)
    y = a * x + b
    for degree in (0, 1, 2):
        assert (
            edm(x, min_size=4, percent=0.25, degree=degree).locations
            == edm(y, min_size=4, percent=0.25, degree=degree).locations
        )
    assert (
        edm(x, min_size=4, percent=0.25, scale="none").locations
        == edm(y, min_size=4, percent=0.25, scale="none").locations
    )
    assert edm_single(x, min_size=4).location == edm_single(y, min_size=4).location


def test_beta_depends_on_data_range() -> None:
    """Spec §2.2/§3.7: one added outlier compresses the shift and removes the detection."""
    rng = np.random.default_rng(7)
    x = np.r_[rng.normal(0, 0.1, 60), rng.normal(1, 0.1, 60)]
    assert edm(x, min_size=20).locations != ()
    y = x.copy()
    y[30] = 12.0
    assert edm(y, min_size=20).locations == ()
    # scale="none" measures β in squared data units and keeps the detection
    assert edm(y, min_size=20, scale="none").locations != ()


def test_locations_respect_min_size() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(10, 90))
        delta = int(rng.integers(2, 10))
        x = rng.normal(size=n) + rng.integers(0, 3, size=n) * (rng.random() < 0.5)
        for kwargs in ({"beta": 0.0, "degree": 0}, {"percent": 0.0}):
            result = edm(x, min_size=delta, **kwargs)
            bounds = [0, *result.locations, n]
            assert all(b - a >= delta for a, b in itertools.pairwise(bounds))


def test_edm_warns_above_the_size_where_it_takes_minutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pilotstats.changepoints import EdmStream, edm, edm_single

    x = np.random.default_rng(3).standard_normal(300)
    monkeypatch.setattr(_config, "EDM_WARN_SIZE", 200)
    monkeypatch.setattr(_config, "EDM_MULTI_WARN_SIZE", 200)
    monkeypatch.setattr(_config, "EDM_TAIL_WARN_SIZE", 100)
    with pytest.warns(PerformanceWarning, match=r"O\(n²\) in the series length in the worst"):
        edm(x, min_size=30)
    with pytest.warns(PerformanceWarning):
        edm_single(x, min_size=30, exact=False)
    stream = EdmStream(min_size=30)
    stream.extend(x[:150])
    with pytest.warns(PerformanceWarning) as record:
        stream.extend(x[150:])
    assert record[0].filename == __file__  # attributed to the caller
    stream = EdmStream(min_size=30)
    stream.extend(x[:200])
    with pytest.warns(PerformanceWarning) as record:
        stream.append(float(x[200]))
    assert record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        edm(x[:150], min_size=30)
