"""MdlStream keeps its per-run bookkeeping in growing buffers: results equal the batch."""

from __future__ import annotations

import numpy as np
import pytest

from pilotstats.changepoints import MdlStream, mdl_partition


@pytest.mark.parametrize("policy", ["omit", "zero"])
def test_stream_with_missing_runs_equals_batch_across_buffer_growth(policy: str) -> None:
    rng = np.random.default_rng(8)
    values: list[object] = list(rng.normal(100.0, 1.0, 90))
    values[60:] = [v + 5.0 for v in values[60:]]  # type: ignore[operator]
    for i in (3, 17, 40, 41, 77):
        values[i] = float("nan")
    values[50] = [101.0, float("nan"), 99.0]  # a run of trials with a NaN
    stream = MdlStream(nan_policy=policy)  # type: ignore[arg-type]
    position = 0
    for size in (1, 2, 13, 1, 30, 5, 38):  # chunks crossing the 16, 32, 64 buffer sizes
        stream.extend(values[position:position + size])
        position += size
        got = stream.result()
        want = mdl_partition(values[:position], nan_policy=policy)  # type: ignore[arg-type]
        assert len(stream) == position == got.n_runs
        assert got.boundaries.tolist() == want.boundaries.tolist()
        np.testing.assert_array_equal(got.trend_mean, want.trend_mean)
        np.testing.assert_array_equal(got.anomaly, want.anomaly)
        np.testing.assert_array_equal(got.replaced, want.replaced)
        np.testing.assert_array_equal(got.missing, want.missing)
    assert position == len(values)


def test_result_arrays_are_not_the_stream_buffers() -> None:
    stream = MdlStream(nan_policy="omit")
    stream.extend([1.0, float("nan"), 2.0])
    first = stream.result()
    stream.extend([float("nan"), 3.0])
    assert first.missing.tolist() == [False, True, False]
    assert not first.missing.flags.writeable
