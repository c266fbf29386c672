"""DetectStream and StablePhaseStream: result() equals the batch call at every
k-th append, on seeded series with shifts, warm-ups, heavy tails and autocorrelation, under
the options that matter; the Stream protocol and atomic validation."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import pilotstats
from pilotstats import _config
from pilotstats._kernels._jit import numba_available
from pilotstats.changepoints import (
    DetectStream,
    StablePhaseStream,
    detect_changes,
    stable_phase,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError


def series(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "noise":
        return rng.normal(10.0, 1.0, n)
    if kind == "shifts":
        x = rng.normal(0.0, 1.0, n)
        x[n // 3 :] += 2.0
        x[2 * n // 3 :] -= 3.0
        return x
    if kind == "warmup":
        x = rng.normal(10.0, 1.0, n)
        x[: n // 10] += 4.0 * np.exp(-np.arange(n // 10) / (n / 40))
        return x
    if kind == "heavy":  # Student t(2) with a level change and a scale change
        x = rng.standard_t(2.0, n)
        x[n // 2 :] = 3.0 * x[n // 2 :] + 1.5
        return x
    if kind == "ar1":
        e = rng.normal(0.0, 1.0, n)
        x = np.empty(n)
        x[0] = e[0]
        for i in range(1, n):
            x[i] = 0.5 * x[i - 1] + e[i]
        x[n // 2 :] += 1.5
        return x
    if kind == "ties":  # quantised timer readings with a constant prefix
        x = np.round(rng.normal(5.0, 1.0, n))
        x[:40] = 5.0
        x[n // 2 :] += 2.0
        return x
    raise ValueError(kind)


def same(a: Any, b: Any) -> bool:
    """Field-for-field equality; repr compares NaN fields (permutation test) as equal."""
    return repr(a) == repr(b) and (a == b or "nan" in repr(a))


def check_detect(x: np.ndarray, every: int, **options: Any) -> None:
    stream = DetectStream(**options)
    for k, value in enumerate(x, start=1):
        stream.append(value)
        if k % every == 0 or k == len(x) or k < 3:
            assert same(stream.result(), detect_changes(x[:k], **options)), (k, options)


@pytest.mark.parametrize("kind", ["noise", "shifts", "warmup", "heavy", "ar1", "ties"])
@pytest.mark.parametrize("seed", [0, 1])
def test_detect_stream_equals_batch_at_every_kth_append(kind: str, seed: int) -> None:
    check_detect(series(kind, 700, seed), every=23)


@pytest.mark.parametrize(
    "options",
    [
        {"min_size": 10},
        {"min_size": 12, "variance_changes": False},
        {"significance_level": 0.01, "location_tolerance": 0},
        {"min_size": 8, "test": "permutation", "rng": 5, "n_permutations": 199},
        {"unit": "ms", "min_size": 15, "variance_changes": True},
    ],
)
def test_detect_stream_equals_batch_under_options(options: dict[str, Any]) -> None:
    x = series("shifts", 260 if options.get("test") == "permutation" else 400, 3)
    check_detect(x, every=17, **options)


def test_detect_stream_across_block_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond DETECT_EDM_MAX_POINTS the candidates come from block medians whose block size
    grows with n; the stream rebuilds its EDM state then and stays exact."""
    monkeypatch.setattr(_config, "DETECT_EDM_MAX_POINTS", 150)
    x = series("shifts", 1300, 4)
    x[700:] += np.linspace(0.0, 2.0, 600)
    stream = DetectStream(min_size=20)
    for k in range(0, len(x), 61):
        stream.extend(x[k : k + 61])
        found = stream.result()
        assert same(found, detect_changes(x[: k + 61], min_size=20)), k
    assert found.parameters["candidate_block_size"] == 9


@pytest.mark.skipif(not numba_available(),
                    reason="26 calls on up to 13,000 points: minutes each as plain Python; the "
                    "same code paths run on shorter series above")
@pytest.mark.parametrize("kind", ["shifts", "heavy"])
def test_detect_stream_every_1000th_append_past_the_edm_limit(kind: str) -> None:
    """The batch-equivalence property with the real limit (1,000 points): one value at a
    time, result() == detect_changes at every 1,000th append up to
    13,000 (block sizes 1 to 13)."""
    x = series(kind, 13_000, 12)
    stream = DetectStream()
    for k, value in enumerate(x, start=1):
        stream.append(value)
        if k % 1_000 == 0:
            assert same(stream.result(), detect_changes(x[:k])), k
    limit = int(_config.DETECT_EDM_MAX_POINTS)
    assert stream.result().parameters["candidate_block_size"] == -(-13_000 // limit) > 1


def test_detect_stream_chunking_and_extremes() -> None:
    """Chunks of any size, new extremes (range recomputation) and a change of the exact
    power-of-two data scale (values beyond 2**500) all keep the result exact."""
    rng = np.random.default_rng(11)
    x = np.concatenate([np.full(50, 3.0), rng.normal(0.0, 1.0, 200), rng.normal(4.0, 1.0, 200)])
    x = x + 0.01 * np.arange(x.size)  # a trend: new maxima all the time
    stream = DetectStream(min_size=20)
    position = 0
    for size in [1, 0, 7, 60, 1, 1, 120, 33, 100, 77, 50]:
        stream.extend(x[position : position + size])
        position += size
        assert same(stream.result(), detect_changes(x[:position], min_size=20)), position
    huge = np.concatenate([x[:position], 1e200 * rng.normal(5.0, 1.0, 80)])
    stream.extend(huge[position:])
    assert same(stream.result(), detect_changes(huge, min_size=20))


def test_detect_stream_protocol_and_validation() -> None:
    stream = DetectStream(min_size=5)
    assert isinstance(stream, pilotstats.Stream)
    with pytest.raises(NotEnoughDataError):
        stream.result()
    with pytest.raises(InvalidInputError, match="extend"):
        stream.append([1.0, 2.0])
    with pytest.raises(InvalidInputError, match="append"):
        stream.extend(3.0)
    stream.extend([1.0, 2.0, 3.0])
    with pytest.raises(InvalidInputError):
        stream.extend([1.0, np.nan])
    with pytest.raises(InvalidInputError):
        stream.append(float("inf"))
    with pytest.raises(InvalidInputError):
        stream.append(True)
    assert len(stream) == 3  # invalid calls left the stream unchanged
    first = stream.result()
    assert stream.result() is first  # nothing new: the same result object
    assert same(first, detect_changes([1.0, 2.0, 3.0], min_size=5))
    assert "DetectStream(n=3" in repr(stream)
    for bad in [
        {"min_size": 1},
        {"significance_level": 1.5},
        {"test": "bayes"},
        {"test": "permutation"},  # needs rng
        {"test": "permutation", "rng": 1, "variance_changes": True},
        {"location_tolerance": -1},
        {"variance_changes": "yes"},
    ]:
        with pytest.raises(InvalidInputError):
            DetectStream(**bad)


def test_detect_stream_does_not_keep_caller_arrays() -> None:
    x = series("shifts", 200, 8)
    stream = DetectStream()
    chunk = x.copy()
    stream.extend(chunk)
    chunk[:] = 0.0  # the caller reuses its buffer
    assert same(stream.result(), detect_changes(x))


def check_stable(x: np.ndarray, every: int, **options: Any) -> None:
    stream = StablePhaseStream(**options)
    for k in range(every, len(x) + every, every):
        stream.extend(x[k - every : k])
        assert same(stream.result(), stable_phase(x[:k], **options)), (k, options)


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        ("warmup", {"method": "robust"}),
        ("shifts", {"method": "robust", "min_size": 10, "location_tolerance": 3}),
        ("warmup", {"method": "pilot", "min_size": 10}),
        ("ties", {"method": "pilot"}),
        ("warmup", {"method": "equivalence"}),
        ("noise", {"higher_is_better": True, "unit": "ops/s"}),
    ],
)
def test_stable_phase_stream_equals_batch(kind: str, options: dict[str, Any]) -> None:
    check_stable(series(kind, 400, 6), every=19, **options)


def test_stable_phase_stream_auto_switches_method_like_the_batch_call() -> None:
    x = series("warmup", 1100, 9)
    stream = StablePhaseStream()
    stream.extend(x[:990])
    assert same(stream.result(), stable_phase(x[:990]))
    assert stream.result().method == "robust"
    stream.extend(x[990:])
    assert same(stream.result(), stable_phase(x))
    assert stream.result().method == "equivalence"


def test_stable_phase_stream_protocol_and_validation() -> None:
    stream = StablePhaseStream(method="pilot", min_size=3)
    assert isinstance(stream, pilotstats.Stream)
    with pytest.raises(NotEnoughDataError):
        stream.result()
    with pytest.raises(InvalidInputError, match="extend"):
        stream.append(np.array([1.0, 2.0]))
    with pytest.raises(InvalidInputError, match="append"):
        stream.extend(np.float64(2.0))
    stream.extend(np.full(8, 2.0))  # constant: Pilot's search finds nothing
    assert len(stream) == 8
    assert same(stream.result(), stable_phase(np.full(8, 2.0), method="pilot", min_size=3))
    assert "StablePhaseStream(n=8" in repr(stream)
    for bad in [
        {"method": "magic"},
        {"min_size": 0},
        {"confidence_level": 2.0},
        {"tolerance": 0.0},
        {"min_warmup_fraction": 0.9},
        {"higher_is_better": "no"},
        {"location_tolerance": -2},
    ]:
        with pytest.raises(InvalidInputError):
            StablePhaseStream(**bad)


def test_long_series_search_a_constant_number_of_block_medians(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No cost cliff: beyond DETECT_EDM_MAX_POINTS the EDM candidate search
    always runs on that many block medians, so its cost does not drop from n to n + 1."""
    from pilotstats.changepoints import _detect_scan as scan_module

    monkeypatch.setattr(_config, "DETECT_EDM_MAX_POINTS", 100)
    seen: list[int] = []
    original = scan_module._edm_percent_locations

    def spy(x: np.ndarray, *args: Any, **kwargs: Any) -> tuple[int, ...]:
        seen.append(int(x.shape[0]))
        return original(x, *args, **kwargs)

    monkeypatch.setattr(scan_module, "_edm_percent_locations", spy)
    sizes = (99, 100, 101, 150, 199, 200, 201, 1234)
    for n in sizes:
        found = detect_changes(series("shifts", n, 1), min_size=10)
        assert found.parameters["candidate_block_size"] == -(-n // 100)
        assert all(10 <= c <= n - 10 for c in found.candidates)
    assert seen == [99, 100, 100, 100, 100, 100, 100, 100]


def test_block_medians_are_the_medians_of_the_blocks() -> None:
    from pilotstats.changepoints._detect_scan import _block_medians

    x = np.random.default_rng(3).normal(size=1234)
    edges = (np.arange(101) * 1234) // 100
    expected = [np.median(x[a:b]) for a, b in itertools.pairwise(edges)]
    np.testing.assert_array_equal(_block_medians(x, edges), expected)
    assert set(np.diff(edges)) == {12, 13}
