"""EdmStream: batch equivalence under any chunking (spec §7) and atomic validation."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

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
    for index, chunk in enumerate(chunked(x, cuts)):
        if index % 2 and len(chunk):  # one value at a time, or the chunk at once
            for value in chunk:
                stream.append(float(value))
        else:
            stream.extend(chunk)
        assert len(stream) <= n
    expected = edm(x, min_size=min_size, degree=degree, scale=scale, **kwargs)  # type: ignore[arg-type]
    got = stream.result()
    assert got == expected
    assert len(stream) == n and got.locations == expected.locations
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
        history.append(stream.result().locations)
        assert history[-1] == edm(cv1[: len(stream)], min_size=5).locations
    assert history[-1] == (10, 15, 20)


def test_atomic_validation() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=70)
    stream = EdmStream(min_size=10, percent=0.25)
    stream.extend(x[:50])
    before = (len(stream), stream.result(), stream._dp_arrays())
    bad_calls = [(stream.extend, bad) for bad in ([1.0, np.nan], [np.inf], np.ones((2, 2)),
                                                   ["a"], 1.0)]
    bad_calls += [(stream.append, bad) for bad in (np.nan, np.inf, "a", None, True, [1.0],
                                                   np.ones(2))]
    for method, bad in bad_calls:
        with pytest.raises(InvalidInputError):
            method(bad)
        assert len(stream) == before[0] and stream.result() == before[1]
        for a, b in zip(stream._dp_arrays(), before[2], strict=True):
            assert np.array_equal(a, b)
    stream.extend(x[50:])
    assert stream.result() == edm(x, min_size=10, percent=0.25)


def test_empty_chunks_and_empty_stream() -> None:
    stream = EdmStream()
    stream.extend([])
    assert len(stream) == 0
    with pytest.raises(NotEnoughDataError, match="empty"):
        stream.result()
    stream.extend(np.ones(5))
    result = stream.result()
    assert result.too_short and result.locations == ()
    json.dumps(result.to_dict(), allow_nan=False)
    assert "EdmStream(n=5" in repr(stream)


def test_constant_then_varying() -> None:
    stream = EdmStream(min_size=5)
    stream.extend([2.0] * 12)
    assert stream.result().locations == ()
    assert stream.result() == edm([2.0] * 12, min_size=5)
    stream.extend([5.0] * 12)
    assert stream.result().locations == edm([2.0] * 12 + [5.0] * 12, min_size=5).locations
    assert stream.result().locations == (12,)


def test_append_takes_one_value_and_extend_a_chunk() -> None:
    stream = EdmStream(min_size=5)
    with pytest.raises(InvalidInputError, match=r"append takes one value.*extend\(values\)"):
        stream.append([1.0, 2.0])
    with pytest.raises(InvalidInputError, match=r"extend takes a sequence.*append\(value\)"):
        stream.extend(3.0)
    stream.append(np.float64(1.0))
    stream.append(np.array(2.0))  # a 0-d array is one value
    stream.append(3)
    assert len(stream) == 3
    assert not hasattr(stream, "locations") and not hasattr(stream, "n")


def test_stream_bad_parameters() -> None:
    with pytest.raises(InvalidInputError, match="together"):
        EdmStream(beta=0.1, percent=0.1)
    with pytest.raises(InvalidInputError, match="min_size"):
        EdmStream(min_size=1)
    with pytest.raises(InvalidInputError, match="degree"):
        EdmStream(degree=5)
    with pytest.raises(InvalidInputError, match="scale"):
        EdmStream(scale="z")  # type: ignore[arg-type]


ROOT = Path(__file__).resolve().parents[1]


def test_edm_stream_huge_min_size_is_a_named_error_not_a_segfault() -> None:
    code = (
        "from pilotstats.changepoints import EdmStream\n"
        "from pilotstats.exceptions import InvalidInputError\n"
        "for size in (2**62, 2**63, 2**64 - 1):\n"
        "    try:\n"
        "        EdmStream(min_size=size).extend([1.0, 2.0, 3.0])\n"
        "    except InvalidInputError as error:\n"
        "        assert 'min_size must be at most' in str(error)\n"
        "    else:\n"
        "        raise SystemExit('accepted')\n"
        "s = EdmStream(min_size=2**40)\n"
        "s.extend([1.0, 2.0, 3.0])\n"
        "assert s.result().too_short\n"
        "print('ok')\n"
    )
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == "ok"
