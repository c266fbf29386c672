"""EdmStream: batch equivalence under any chunking (spec §7) and atomic validation."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pilotstats._kernels import edm as K
from pilotstats.changepoints import EdmStream, edm
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError


def batch_arrays(
    x: np.ndarray, min_size: int, penalty: float, degree: int, percent_mode: bool, scale: str
) -> tuple[np.ndarray, ...]:
    low, high = float(x.min()), float(x.max())
    z = (x - low) / (high - low) if scale == "range" else x
    return K.edm_dp(z, min_size, penalty, degree, percent_mode)


def chunked(values: np.ndarray, cuts: list[int]) -> list[np.ndarray]:
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    return [values[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 45),
    ties=st.booleans(),
    cuts=st.lists(st.integers(0, 60), max_size=8),
    min_size=st.integers(2, 6),
    mode=st.sampled_from(["beta", "percent"]),
    degree=st.integers(0, 2),
    scale=st.sampled_from(["range", "none"]),
    trend=st.floats(-0.2, 0.2),
)
def test_stream_equals_batch(
    seed: int,
    n: int,
    ties: bool,
    cuts: list[int],
    min_size: int,
    mode: str,
    degree: int,
    scale: str,
    trend: float,
) -> None:
    """After any chunking (including one-value chunks) the result equals edm() bit for bit."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, n).astype(float) if ties else rng.normal(size=n)
    x = x + trend * np.arange(n)  # trends make new extremes (range recomputation) common
    kwargs = {"beta": 0.01} if mode == "beta" else {"percent": 0.2}
    stream = EdmStream(min_size=min_size, degree=degree, scale=scale, **kwargs)  # type: ignore[arg-type]
    for chunk in chunked(x, cuts):
        stream.append(chunk)
        assert stream.n <= n
    expected = edm(x, min_size=min_size, degree=degree, scale=scale, **kwargs)  # type: ignore[arg-type]
    got = stream.result()
    assert got == expected
    assert stream.locations == expected.locations
    if n >= 2 * min_size and x.max() > x.min():
        percent_mode = mode == "percent"
        ref = batch_arrays(
            x, min_size, 0.01 if mode == "beta" else 0.2, degree, percent_mode, scale
        )
        for a, b in zip(stream._dp_arrays(), ref, strict=True):
            assert np.array_equal(a, b)


def test_one_value_at_a_time_cv1() -> None:
    cv1 = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5, 9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    stream = EdmStream(min_size=5)
    history = []
    for value in cv1:
        stream.append(value)
        history.append(stream.locations)
        assert stream.locations == edm(cv1[: stream.n], min_size=5).locations
    assert history[-1] == (10, 15, 20)


def test_atomic_validation() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=70)
    stream = EdmStream(min_size=10, percent=0.25)
    stream.append(x[:50])
    before = (stream.n, stream.locations, stream._dp_arrays())
    for bad in ([1.0, np.nan], [np.inf], np.ones((2, 2)), ["a"]):
        with pytest.raises(InvalidInputError):
            stream.append(bad)
        assert stream.n == before[0] and stream.locations == before[1]
        for a, b in zip(stream._dp_arrays(), before[2], strict=True):
            assert np.array_equal(a, b)
    stream.append(x[50:])
    assert stream.result() == edm(x, min_size=10, percent=0.25)


def test_empty_chunks_and_empty_stream() -> None:
    stream = EdmStream()
    stream.append([])
    assert stream.n == 0 and stream.locations == ()
    with pytest.raises(NotEnoughDataError, match="empty"):
        stream.result()
    stream.append(np.ones(5))
    result = stream.result()
    assert result.too_short and result.locations == ()
    json.dumps(result.to_dict(), allow_nan=False)
    assert "EdmStream(n=5" in repr(stream)


def test_constant_then_varying() -> None:
    stream = EdmStream(min_size=5)
    stream.append([2.0] * 12)
    assert stream.locations == ()
    assert stream.result() == edm([2.0] * 12, min_size=5)
    stream.append([5.0] * 12)
    assert stream.locations == edm([2.0] * 12 + [5.0] * 12, min_size=5).locations == (12,)


def test_stream_bad_parameters() -> None:
    with pytest.raises(InvalidInputError, match="together"):
        EdmStream(beta=0.1, percent=0.1)
    with pytest.raises(InvalidInputError, match="min_size"):
        EdmStream(min_size=1)
    with pytest.raises(InvalidInputError, match="degree"):
        EdmStream(degree=5)
    with pytest.raises(InvalidInputError, match="scale"):
        EdmStream(scale="z")  # type: ignore[arg-type]
