"""MdlStream keeps its per-run bookkeeping in growing buffers: results equal the batch."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pilotstats._kernels import mdl as kernels
from pilotstats.changepoints import MdlStream, TrendGroups, mdl_partition
from pilotstats.changepoints._mdl_engine import _tables


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


def _fields(result: TrendGroups) -> tuple[object, ...]:
    """Every output of a result, floats by repr (NaN compares equal to NaN)."""
    groups = tuple(
        tuple(repr(getattr(g, f.name)) for f in dataclasses.fields(g)) for g in result.groups
    )
    arrays = tuple(
        getattr(result, name).tobytes()
        for name in ("boundaries", "trend_mean", "trend_std", "replaced", "missing")
    )
    scalars = tuple(
        repr(getattr(result, name))
        for name in ("total_bits", "resolution", "max_value", "sbps", "n_runs", "n_samples")
    )
    return groups, arrays, result.anomaly.tolist(), scalars


def _reopening_series(rng: np.random.Generator, n: int) -> list[object]:
    """Level changes that later data first confirms, then dissolves into wider groups:
    a short excursion looks like a new group until the level comes back, and alternating
    levels make earlier boundaries appear and vanish as runs arrive."""
    values = rng.normal(100.0, 1.0, n)
    for start in range(0, n, int(rng.integers(6, 15))):
        values[start : start + int(rng.integers(1, 6))] += rng.choice([-6.0, 0.0, 6.0])
    runs: list[object] = [float(v) for v in values]
    for i in rng.choice(n, size=n // 10, replace=False):
        runs[int(i)] = [float(runs[int(i)]), float(rng.normal(100.0, 1.0))]  # type: ignore[arg-type]
    return runs


@pytest.mark.parametrize("resolution", [0.01, None])
def test_result_memo_equals_batch_across_interleavings(resolution: float | None) -> None:
    """result() reuses merge chains and groups of earlier results; every output must still
    equal the batch, including when earlier groups merge or split after more data."""
    rng = np.random.default_rng(31)
    values = _reopening_series(rng, 160)
    stream = MdlStream(resolution=resolution)
    position = 0
    seen: set[tuple[int, ...]] = set()
    vanished = 0
    while position < len(values):
        size = int(rng.choice([1, 1, 1, 2, 5]))
        stream.extend(values[position : position + size])
        position += size
        if rng.random() < 0.7 or position >= len(values):
            got = stream.result()
            again = stream.result()  # a result with nothing new reuses everything
            want = mdl_partition(values[:position], resolution=resolution)
            assert _fields(got) == _fields(want) == _fields(again)
            bounds = tuple(got.boundaries.tolist())
            vanished += any(b not in bounds for old in seen for b in old if b < position - 20)
            seen.add(bounds)
    assert vanished > 0  # the series did make earlier boundaries disappear


def _outputs(n: int) -> list[np.ndarray]:
    return [np.zeros(n, dtype=np.int64) for _ in range(3)] + [np.zeros(n) for _ in range(3)]


def test_describe_groups_kernel_matches_python_twin_with_warm_memo() -> None:
    rng = np.random.default_rng(4)
    n = 60
    run_n = rng.integers(1, 4, n).astype(np.int64)
    run_avg = rng.normal(100.0, 3.0, n)
    run_sd = np.abs(rng.normal(0.0, 1.0, n)) * (run_n > 1)
    last_avg = np.r_[np.nan, rng.normal(100.0, 3.0, n)]
    tables = _tables(int(run_n.sum()) + 2)
    for trial in range(8):
        cuts = np.sort(rng.choice(np.arange(1, n), size=int(rng.integers(0, 8)), replace=False))
        best_start = np.zeros(n, dtype=np.int64)
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), n], strict=True):
            best_start[hi - 1] = lo
        outputs = []
        runs = (run_n, run_avg, run_sd)
        prefix = (np.zeros(n + 1), last_avg, best_start)
        codes = (tables.tab_l, tables.tab_c, tables.tab_d, tables.tab_gb)
        for func in (kernels.describe_groups, kernels.describe_groups.py_func):
            memo_rng = np.random.default_rng(trial)  # same warm memo for both
            memo_end = np.zeros(n, dtype=np.int64)
            memo_n = np.zeros(n, dtype=np.int64)
            memo_avg, memo_sd = np.zeros(n), np.zeros(n)
            for j in memo_rng.choice(n, size=20, replace=False).tolist():
                end = int(memo_rng.integers(j + 1, n + 1))  # some beyond a group's end
                size = int(run_n[j])
                avg, sd = kernels.remerge(size, run_avg[j], run_sd[j])
                for r in range(j + 1, end):
                    size, avg, sd = kernels.merge_pair(
                        size, avg, sd, run_n[r], run_avg[r], run_sd[r]
                    )
                memo_end[j], memo_n[j], memo_avg[j], memo_sd[j] = end, size, avg, sd
            out = _outputs(n)
            slot = func(runs, prefix, n, 0.01, 12000.0, codes,
                        (memo_end, memo_n, memo_avg, memo_sd),
                        tuple(out))  # fmt: skip
            outputs.append((slot, [a[slot:].tobytes() for a in out], memo_end.tobytes(),
                            memo_avg.tobytes(), memo_sd.tobytes()))  # fmt: skip
            fresh = _outputs(n)
            zero_memo = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                         np.zeros(n), np.zeros(n))  # fmt: skip
            assert func(runs, prefix, n, 0.01, 12000.0, codes, zero_memo,
                        tuple(fresh)) == slot
            assert [a[slot:].tobytes() for a in fresh] == outputs[-1][1]  # memo changes nothing
        assert outputs[0] == outputs[1]
        assert n - outputs[0][0] == len(cuts) + 1  # one slot per group
        starts_found = np.frombuffer(outputs[0][1][0], dtype=np.int64).tolist()
        assert starts_found == [0, *cuts.tolist()]


def test_result_memo_when_the_last_group_closes() -> None:
    """The last group reports live statistics, the others re-merged ones: a group that
    was last in the previous result and is closed by new runs is described anew."""
    rng = np.random.default_rng(12)
    for _ in range(30):
        head = [float(v) for v in rng.normal(100.0, 1.0, int(rng.integers(5, 40)))]
        head[len(head) // 2 :] = [v + 7.0 for v in head[len(head) // 2 :]]
        stream = MdlStream(resolution=0.01)
        stream.extend(head)
        stream.result()
        tail = [float(v) for v in rng.normal(50.0, 1.0, 3)]  # no new maximum
        for index, value in enumerate(tail):
            stream.append(value)
            want = mdl_partition(head + tail[: index + 1], resolution=0.01)
            assert _fields(stream.result()) == _fields(want)
