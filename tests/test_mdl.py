"""Tests of the MDL partitioning (spec ``specs/mdl.md``): kernels, naive reference,
pruning, properties, edge cases, result objects and the streaming API."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pilotstats import _config
from pilotstats._kernels import mdl as kernels
from pilotstats.changepoints import MdlStream, TrendGroups, mdl_partition
from pilotstats.changepoints._mdl_engine import _C0, _H_MAX, _H_MIN, _tables
from pilotstats.exceptions import (
    DataRangeWarning,
    InvalidInputError,
    NotEnoughDataError,
    PerformanceWarning,
)
from tests import naive_mdl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _csit_like import csit_like


def random_values(rng: np.random.Generator, n: int, runs: bool = False) -> list[Any]:
    x = rng.normal(100.0, 2.0, n)
    for _ in range(int(rng.integers(0, 4))):
        x[int(rng.integers(0, n)) :] += rng.normal(0.0, 10.0)
    if rng.random() < 0.3:
        x = np.round(x)  # exact ties
    values: list[Any] = [float(v) for v in x]
    if runs:
        values = [
            [float(v + d) for d in rng.normal(0.0, 1.0, int(rng.integers(1, 4)))]
            if rng.random() < 0.6
            else float(v)
            for v in x
        ]
    return values


def starts(result: TrendGroups) -> list[int]:
    return [g.start for g in result.groups]


# --------------------------------------------------------------------------- kernels


def _run_engine(
    func: Any, values: list[Any], prune: bool, max_history: int = 0
) -> tuple[np.ndarray, ...]:
    """Drive ``mdl_advance`` (compiled or ``py_func``) on parsed runs; return the state."""
    from pilotstats.changepoints._mdl_engine import _Engine
    from pilotstats.changepoints._mdl_input import _parse_values

    parsed = _parse_values(values, "raise")
    engine = _Engine(None, None, prune)
    engine.add_runs(parsed.samples, parsed.offsets)
    unit, _ = engine.resolved_resolution()
    max_u = engine.max_value / unit
    tables = _tables(engine.n_samples + 2)
    engine.best_bits[0] = 0.0
    engine.last_avg[0] = np.nan
    n_open = func(
        engine.runs(), 0, engine.n,
        (unit, max_u, min(0.0, engine.min_value) / unit),
        (prune, _config.MDL_PRUNING_MARGIN, max_history, _config.MDL_HISTORY_ANCHORS),
        (tables.tab_l, tables.tab_c, tables.tab_d, tables.tab_gb),
        engine.prefix(), engine.candidates(), engine.scratch, engine.keep, 0,
    )  # fmt: skip
    n = engine.n
    return (
        engine.best_bits[: n + 1].copy(),
        engine.last_avg[: n + 1].copy(),
        engine.best_start[:n].copy(),
        np.array([n_open]),
    )


@pytest.mark.parametrize(("prune", "max_history"), [(False, 0), (True, 0), (True, 3), (False, 5)])
def test_advance_kernel_matches_python_twin(prune: bool, max_history: int) -> None:
    rng = np.random.default_rng(11)
    for trial in range(6):
        values = random_values(rng, int(rng.integers(1, 40)), runs=trial % 2 == 1)
        compiled = _run_engine(kernels.mdl_advance, values, prune, max_history)
        python = _run_engine(kernels.mdl_advance.py_func, values, prune, max_history)
        for a, b in zip(compiled, python, strict=True):
            np.testing.assert_array_equal(a, b)


def test_small_kernels_match_python_twins() -> None:
    rng = np.random.default_rng(5)
    tables = _tables(64)
    for _ in range(50):
        n1, n2 = int(rng.integers(1, 30)), int(rng.integers(1, 5))
        a1, a2 = rng.normal(1e3, 10.0, 2)
        s1, s2 = abs(rng.normal(0.0, 3.0, 2))
        assert kernels.merge_pair(n1, a1, s1, n2, a2, s2) == kernels.merge_pair.py_func(
            n1, a1, s1, n2, a2, s2
        )
        assert kernels.remerge(n1, a1, s1) == kernels.remerge.py_func(n1, a1, s1)
        args = (n1, a1, s1, bool(rng.random() < 0.5), 3.2, 5.7e6, 0.37, 14.0, -1e-4,
                tables.tab_l, tables.tab_c, tables.tab_d)  # fmt: skip
        assert kernels.group_bits(*args) == kernels.group_bits.py_func(*args)
        assert kernels.mean_norm(a1, 8191.0) == kernels.mean_norm.py_func(a1, 8191.0)
    values = rng.normal(1e7, 0.01, 40)
    offsets = np.array([0, 1, 5, 17, 40], dtype=np.int64)
    out_c = (np.empty(4), np.empty(4))
    out_p = (np.empty(4), np.empty(4))
    kernels.run_statistics(values, offsets, *out_c)
    kernels.run_statistics.py_func(values, offsets, *out_p)
    np.testing.assert_array_equal(out_c[0], out_p[0])
    np.testing.assert_array_equal(out_c[1], out_p[1])


def test_run_statistics_match_naive_merge() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(50.0, 4.0, 30)
    offsets = np.array([0, 3, 4, 10, 30], dtype=np.int64)
    avg, sd = np.empty(4), np.empty(4)
    kernels.run_statistics(values, offsets, avg, sd)
    for r in range(4):
        _, a, s = naive_mdl.run_stats(list(values[offsets[r] : offsets[r + 1]]))
        assert (avg[r], sd[r]) == (a, s)


# --------------------------------------------------------------------------- naive


@pytest.mark.parametrize("seed", range(6))
def test_matches_naive_transcription_exactly(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = random_values(rng, int(rng.integers(1, 36)), runs=seed % 2 == 1)
    unit = 0.05 if seed == 2 else None
    sbps = 9.0 if seed == 3 else None
    ref_starts, ref_bits, ref_labels = naive_mdl.naive_partition(values, unit, sbps)
    for pruning in (False, True):
        res = mdl_partition(values, resolution=unit, sbps=sbps, pruning=pruning)
        assert starts(res) == ref_starts
        assert res.total_bits == ref_bits
        assert [g.classification for g in res.groups] == ref_labels


def test_exhaustive_gap_is_reported_not_asserted(capsys: pytest.CaptureFixture[str]) -> None:
    """Spec §5: the programme is a heuristic for the non-additive objective. Document
    how often and by how much it misses the exhaustive optimum on random n <= 10 series.
    The programme's answer is the target; this test never fails on the gap."""
    rng = np.random.default_rng(2026)
    misses, worst = 0, 0.0
    trials = 25
    for _ in range(trials):
        values = [float(v) for v in rng.normal(10.0, 1.0, 10) + np.repeat([0, 2], 5)]
        res = mdl_partition(values)
        _, best_bits = naive_mdl.exhaustive_minimum(values)
        gap = res.total_bits - best_bits
        assert gap >= -1e-9  # the exhaustive minimum is a true minimum
        if gap > 1e-9:
            misses += 1
            worst = max(worst, gap)
    with capsys.disabled():
        print(
            f"\nMDL programme vs exhaustive optimum: {misses}/{trials} misses, "
            f"worst {worst:.3g} bits"
        )


# --------------------------------------------------------------------------- pruning


def test_pruned_search_identical_on_random_inputs() -> None:
    rng = np.random.default_rng(77)
    n_max = 60 if _config.jit_disabled() else 600
    for trial in range(12):
        values = random_values(rng, int(rng.integers(1, n_max)), runs=trial % 3 == 0)
        full = mdl_partition(values, pruning=False)
        fast = mdl_partition(values, pruning=True)
        assert starts(full) == starts(fast)
        assert full.total_bits == fast.total_bits
        assert [g.bits for g in full.groups] == [g.bits for g in fast.groups]


@pytest.mark.slow
def test_pruned_search_identical_on_many_long_inputs() -> None:
    rng = np.random.default_rng(78)
    for trial in range(60):
        n = int(rng.integers(200, 3000))
        kind = trial % 4
        if kind == 0:
            x = rng.normal(100.0, 1.0, n)
        elif kind == 1:
            x = 100.0 + rng.standard_t(3, n)
        elif kind == 2:
            x = rng.normal(100.0, 1.0, n) + np.repeat(rng.normal(0, 3, 6), -(-n // 6))[:n]
        else:
            x = np.exp(rng.normal(0.0, 0.5, n)) * 10.0 + np.linspace(0, 3, n)
        unit = 0.01 if trial % 5 == 0 else None
        full = mdl_partition(x, resolution=unit, pruning=False)
        fast = mdl_partition(x, resolution=unit, pruning=True)
        assert starts(full) == starts(fast)
        assert full.total_bits == fast.total_bits


def test_pruning_constants_bound_the_size_term() -> None:
    """h(k) = g(k) − k·½ln(2πe) must lie in [h(2), −½ln(2π²)] (kernel Notes)."""
    tables = _tables(200_001)
    k = np.arange(2, 200_001)
    h = tables.tab_c[2:200_001] + tables.tab_d[2:200_001] - k * _C0
    assert h.min() >= _H_MIN and h.max() <= _H_MAX
    assert np.all(np.diff(h) >= -1e-9)  # increasing towards the limit (up to rounding)


# --------------------------------------------------------------------------- properties


finite_positive = st.floats(min_value=0.5, max_value=2.0, allow_nan=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(finite_positive, min_size=1, max_size=40),
    scale=st.sampled_from([1e-3, 0.5, 3.0, 1e6]),
)
def test_scale_invariance(data: list[float], scale: float) -> None:
    base = mdl_partition(data)
    scaled = mdl_partition([v * scale for v in data])
    assert starts(base) == starts(scaled)
    assert [g.classification for g in base.groups] == [g.classification for g in scaled.groups]
    assert scaled.total_bits == pytest.approx(base.total_bits, rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(data=st.lists(finite_positive, min_size=1, max_size=40))
def test_direction_swaps_labels_only(data: list[float]) -> None:
    up = mdl_partition(data, higher_is_better=True)
    down = mdl_partition(data, higher_is_better=False)
    swap = {"normal": "normal", "regression": "progression", "progression": "regression"}
    assert starts(up) == starts(down) and up.total_bits == down.total_bits
    assert [swap[g.classification] for g in up.groups] == [g.classification for g in down.groups]


@settings(max_examples=30, deadline=None)
@given(data=st.lists(finite_positive, min_size=1, max_size=30))
def test_singleton_run_equals_scalar(data: list[float]) -> None:
    scalar = mdl_partition(data)
    wrapped = mdl_partition([[v] for v in data])
    assert starts(scalar) == starts(wrapped) and scalar.total_bits == wrapped.total_bits


@pytest.mark.parametrize("value", [3.0, 1e7 + 0.1, 1e-3])
def test_constant_series_gives_exactly_zero_std(value: float) -> None:
    res = mdl_partition([value] * 25)
    assert len(res.groups) == 1
    assert res.groups[0].std == 0.0 and res.groups[0].mean == value
    assert res.boundaries.size == 0


def test_no_cancellation_at_large_offsets() -> None:
    """Values ~1e7 with a spread of 1e-3: the merge keeps the std (no raw sums)."""
    rng = np.random.default_rng(9)
    x = 1e7 + rng.normal(0.0, 1e-3, 200)
    res = mdl_partition(x, resolution=1e-4)
    assert len(res.groups) == 1
    assert res.groups[0].std == pytest.approx(float(np.std(x, ddof=1)), rel=1e-6)
    naive_sum = math.sqrt(max(0.0, float(np.mean(x * x) - np.mean(x) ** 2)))
    assert abs(naive_sum - float(np.std(x))) > 1e-4  # raw moments would have failed here
    stepped = np.concatenate([x[:100], x[100:] + 0.01])
    assert mdl_partition(stepped, resolution=1e-4).boundaries.tolist() == [100]


def test_runs_are_never_split() -> None:
    values = [[10.0, 10.1, 9.9], [10.0, 20.0, 20.1], [20.0, 20.2], [20.1]]
    res = mdl_partition(values)
    for b in res.boundaries:
        assert 0 < b < len(values)
    assert sum(g.n_samples for g in res.groups) == 9
    assert sum(g.n_runs for g in res.groups) == 4
    assert res.groups[0].sample_start == 0


# --------------------------------------------------------------------------- edge cases


def test_single_value() -> None:
    res = mdl_partition([7.5])
    assert len(res.groups) == 1 and res.groups[0].classification == "normal"
    assert res.total_bits == 14.0  # 1 bit for the length + log2(8192) for the mean


@pytest.mark.parametrize(
    ("values", "error", "match"),
    [
        ([], NotEnoughDataError, "empty"),
        (np.array([]), NotEnoughDataError, "empty"),
        ([1.0, float("nan")], InvalidInputError, "NaN"),
        (np.array([1.0, np.inf]), InvalidInputError, "infinite"),
        ([1.0, [2.0, -math.inf]], InvalidInputError, "infinite"),
        ([0.0, 0.0], InvalidInputError, "positive maximum"),
        ([-1.0, -2.0], InvalidInputError, "positive maximum"),
        (["a", 1.0], InvalidInputError, r"x\[0\]"),
        ([1.0, True], InvalidInputError, "boolean"),
        (np.array([True, False]), InvalidInputError, "boolean"),
        ([1.0, []], InvalidInputError, r"x\[1\] is an empty run"),
        ([1.0, [2.0, [3.0]]], InvalidInputError, "nested"),
        ([1.0, None], InvalidInputError, r"x\[1\]"),
        ("123", InvalidInputError, "sequence of runs"),
        (5.0, InvalidInputError, "sequence of runs"),
        (np.ones((2, 2, 2)), InvalidInputError, "shape"),
        ([1e200, 1.0], InvalidInputError, "magnitude"),
    ],
)
def test_bad_input(values: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        mdl_partition(values)


def test_all_nonpositive_even_with_unit() -> None:
    with pytest.raises(InvalidInputError, match="positive maximum"):
        mdl_partition([0.0, -1.0], resolution=0.1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"resolution": 0}, "resolution=None"),
        ({"resolution": "Mpps"}, "a unit label is not a resolution"),
        ({"resolution": -1.0}, "resolution"),
        ({"resolution": math.nan}, "resolution"),
        ({"resolution": math.inf}, "resolution"),
        ({"sbps": 0}, "sbps=None"),
        ({"sbps": 100.0}, "sbps"),
        ({"nan_policy": "drop"}, "nan_policy"),
        ({"higher_is_better": "yes"}, "higher_is_better"),
        ({"resolution": 1e-300}, "too small"),
        ({"max_history": 0}, "max_history"),
        ({"max_history": 2.5}, "max_history"),
        ({"max_history": True}, "max_history"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        mdl_partition([1.0, 2.0, 3.0], **kwargs)


def test_mixed_signs_warn_and_match_naive() -> None:
    values = [-1.0, 5.0, 5.2, 4.9, 9.0, 9.1]
    with pytest.warns(DataRangeWarning, match="negative"):
        res = mdl_partition(values)
    ref_starts, ref_bits, _ = naive_mdl.naive_partition(values)
    assert starts(res) == ref_starts and res.total_bits == ref_bits


def test_inputs_not_modified_and_types_accepted() -> None:
    x = np.array([5, 6, 5, 9, 9, 8], dtype=np.int64)
    before = x.copy()
    res_int = mdl_partition(x)
    np.testing.assert_array_equal(x, before)
    res_float = mdl_partition([float(v) for v in x])
    assert starts(res_int) == starts(res_float)
    assert res_int.total_bits == res_float.total_bits
    mixed = [np.float32(5.0), np.int16(6), 5, [9.0, np.float64(9.0)], (8.0,)]
    assert len(mdl_partition(mixed).groups) >= 1


def test_nan_policies() -> None:
    values = [10.0, 10.1, math.nan, 9.9, [10.0, math.nan], 10.1]
    omit = mdl_partition(values, nan_policy="omit")
    assert omit.missing.tolist() == [False, False, True, False, False, False]
    assert math.isnan(omit.trend_mean[2]) and omit.n_samples == 5
    reference = mdl_partition([10.0, 10.1, 9.9, [10.0], 10.1])
    assert omit.total_bits == reference.total_bits
    zero = mdl_partition(values, nan_policy="zero")
    assert zero.replaced.tolist() == [False, False, True, False, True, False]
    assert zero.total_bits == mdl_partition(
        [10.0, 10.1, 0.0, 9.9, [10.0, 0.0], 10.1]
    ).total_bits
    assert zero.anomaly[2] == "regression"
    with pytest.raises(NotEnoughDataError):
        mdl_partition([math.nan, [math.nan]], nan_policy="omit")
    arr = mdl_partition(np.array([10.0, np.nan, 10.2]), nan_policy="omit")
    assert arr.missing.tolist() == [False, True, False] and arr.groups[-1].end == 3


# --------------------------------------------------------------------------- result


def test_result_object() -> None:
    values = [10.0, 10.2, 9.9, 10.1, 10.0, 12.0, 12.1, 11.9, 12.2, 12.0]
    res = mdl_partition(values)
    assert res.boundaries.tolist() == [5]
    assert [g.classification for g in res.groups] == ["normal", "progression"]
    assert res.anomaly.tolist() == ["normal"] * 5 + ["progression"] + ["normal"] * 4
    assert res.trend_mean[7] == res.groups[1].mean
    assert res.trend_std[0] == res.groups[0].std
    assert res.groups[0].std == pytest.approx(float(np.std(values[:5], ddof=1)), rel=1e-12)
    single = mdl_partition([2.1, 3.1, 3.2], resolution=0.1)  # first group: one sample
    assert math.isnan(single.groups[0].std) and math.isnan(single.trend_std[0])
    assert single.to_dict()["groups"][0]["std"] is None
    for array in (res.boundaries, res.trend_mean, res.trend_std, res.anomaly, res.missing):
        assert not array.flags.writeable
    assert isinstance(res.total_bits, float) and isinstance(res.groups[0].n_samples, int)
    assert math.isclose(sum(g.bits for g in res.groups), res.total_bits, rel_tol=1e-12)
    data = res.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["groups"][1]["classification"] == "progression"
    text = str(res)
    assert "2 group(s)" in text and "boundaries [5]" in text and "\n" not in text
    assert "progression" in str(res.groups[1])
    assert "<table>" in res._repr_html_()
    assert res.sbps == 12.0 and mdl_partition(values, resolution=0.1).sbps is None
    assert res.resolution == max(values) / 8191.0
    lat = mdl_partition(values, higher_is_better=False)
    assert lat.groups[1].classification == "regression"


# --------------------------------------------------------------------------- stream


@pytest.mark.parametrize("pruning", [True, False])
def test_stream_equals_batch_after_every_append(pruning: bool) -> None:
    rng = np.random.default_rng(21)
    values = random_values(rng, 45, runs=True)
    stream = MdlStream(pruning=pruning)
    for index, run in enumerate(values):
        stream.append(run)
        if index % 4 == 0 or index == len(values) - 1:
            batch = mdl_partition(values[: index + 1])
            got = stream.result()
            assert starts(got) == starts(batch)
            assert got.total_bits == batch.total_bits
            assert [g.classification for g in got.groups] == [
                g.classification for g in batch.groups
            ]
    assert len(stream) == len(values)


def test_stream_recomputes_on_new_maximum_only() -> None:
    stream = MdlStream(resolution=0.01)
    stream.extend([10.0, 10.1, 10.0])
    stream.append(9.0)
    assert stream.recomputations == 0
    stream.append(11.0)  # new maximum: M changes, full recomputation
    assert stream.recomputations == 1
    assert stream.result().total_bits == mdl_partition(
        [10.0, 10.1, 10.0, 9.0, 11.0], resolution=0.01
    ).total_bits


def test_stream_edge_cases() -> None:
    stream = MdlStream(nan_policy="omit")
    with pytest.raises(NotEnoughDataError):
        stream.result()
    stream.append(0.0)
    with pytest.raises(InvalidInputError, match="positive maximum"):
        stream.result()
    stream.extend([math.nan, 5.0, 5.1])
    res = stream.result()
    assert res.missing.tolist() == [False, True, False, False]
    assert res.total_bits == mdl_partition([0.0, 5.0, 5.1]).total_bits
    with pytest.raises(InvalidInputError, match="value must be one run"):
        stream.append("x")
    assert len(stream) == 4  # the bad run was not kept
    stream.extend([])
    assert len(stream) == 4


def test_demo_report() -> None:
    from pilotstats.demo._changepoints import DEMO_THROUGHPUT, demo_mdl

    text = demo_mdl()
    assert text.startswith("MDL trend analysis")
    assert "regression" in text and "progression" in text and "compliance" in text
    groups = mdl_partition(DEMO_THROUGHPUT)
    assert groups.boundaries.tolist() == [20, 21, 30, 45]


def test_stream_recomputes_when_a_new_negative_minimum_arrives() -> None:
    values = [10.0, 10.2, 9.9, 10.1, 3.0, 3.1, 2.9]
    stream = MdlStream()
    stream.extend(values)
    assert stream.recomputations == 0
    with pytest.warns(DataRangeWarning):
        stream.append(-1.0)  # the pruning bound's floor moves: full recomputation
        got = stream.result()
    assert stream.recomputations == 1
    with pytest.warns(DataRangeWarning):
        batch = mdl_partition([*values, -1.0], pruning=False)
    assert starts(got) == starts(batch) and got.total_bits == batch.total_bits


def test_pandas_series_input() -> None:
    pd = pytest.importorskip("pandas")
    values = [10.0, 10.1, 9.9, 12.0, 12.1, 11.9]
    res = mdl_partition(pd.Series(values))
    assert res.total_bits == mdl_partition(values).total_bits


def test_mappings_are_rejected_by_mdl_and_trend_compliance() -> None:
    from pilotstats.changepoints import MdlStream, mdl_partition, trend_compliance

    values = {i: 5.0 for i in range(200)}
    for call in (lambda: mdl_partition(values), lambda: MdlStream().extend(values),
                 lambda: trend_compliance(values)):
        with pytest.raises(InvalidInputError, match=r"values\(\)"):
            call()
    # the documented way: the values in key order
    assert len(mdl_partition(list(values.values())).groups) == 1


def test_mdl_warns_above_the_size_where_it_takes_minutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pilotstats.changepoints import MdlStream, mdl_partition

    x = 10.0 + np.random.default_rng(5).standard_normal(300)
    monkeypatch.setattr(_config, "MDL_WARN_SIZE", 200)
    with pytest.warns(PerformanceWarning, match=r"O\(N²\)"):
        mdl_partition(x)
    stream = MdlStream()
    stream.extend(x[:150])
    with pytest.warns(PerformanceWarning):
        stream.extend(x[150:])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        mdl_partition(x[:150])


# MdlStream keeps its per-run bookkeeping in growing buffers: results equal the batch.
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


# Bounded-history MDL search (``mdl_partition(max_history=H)``): an approximation, so these
# tests pin what it guarantees: identical to the exact programme whenever nothing is forgotten,
# deterministic, the same in batch and stream, and close to the exact partition on CSIT-like
# series (measured, not timed).
def _series(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random series: shifts, heavy tails, exact ties and constant stretches."""
    kind = int(rng.integers(0, 4))
    if kind == 0:
        x = rng.normal(100.0, 2.0, n)
    elif kind == 1:
        x = 100.0 + rng.standard_t(2, n)
    elif kind == 2:
        x = np.round(rng.normal(50.0, 1.5, n))
    else:
        x = np.full(n, 7.0)
        x[int(rng.integers(0, n)) :] += 1.0
    for _ in range(int(rng.integers(0, 4))):
        x[int(rng.integers(0, n)) :] += rng.normal(0.0, 8.0)
    return np.abs(x) + 1.0


def test_identical_to_exact_when_history_covers_the_series() -> None:
    rng = np.random.default_rng(26)
    for _ in range(60):
        n = int(rng.integers(1, 300))
        x = _series(rng, n)
        exact = mdl_partition(x)
        bounded = mdl_partition(x, max_history=n)
        assert bounded.boundaries.tolist() == exact.boundaries.tolist()
        assert bounded.total_bits == exact.total_bits
        # pruning and bounded history combine
        plain = mdl_partition(x, max_history=n, pruning=False)
        assert plain.boundaries.tolist() == exact.boundaries.tolist()


def test_small_history_is_deterministic_and_mode_independent() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = _series(rng, int(rng.integers(50, 400)))
        a = mdl_partition(x, max_history=16)
        b = mdl_partition(x, max_history=16)
        c = mdl_partition(x, max_history=16, pruning=False)
        assert a.boundaries.tolist() == b.boundaries.tolist() == c.boundaries.tolist()
        assert a.total_bits == c.total_bits


def test_long_flat_series_stays_one_group() -> None:
    # the first group's start is an anchor: a long change-free series is never cut
    x = np.random.default_rng(0).normal(100.0, 1.0, 5000)
    assert mdl_partition(x, max_history=50).boundaries.tolist() == []


@pytest.mark.parametrize("pruning", [True, False])
def test_stream_equals_batch(pruning: bool) -> None:
    x = csit_like(700, 4)
    stream = MdlStream(max_history=40, pruning=pruning)
    for start in range(0, 700, 97):  # uneven chunks: forgetting depends on the run index
        stream.extend(x[start : start + 97].tolist())
        batch = mdl_partition(x[: start + 97], max_history=40, pruning=pruning)
        result = stream.result()
        assert result.boundaries.tolist() == batch.boundaries.tolist()
        assert result.total_bits == batch.total_bits


def test_agreement_on_csit_like_series() -> None:
    """Pooled boundary agreement |exact ∩ bounded| / |exact ∪ bounded| at H = 1000
    (the benchmark measures more series and longer ones)."""
    inter = union = 0
    for seed in range(6):
        x = csit_like(3000, seed)
        exact = set(mdl_partition(x).boundaries.tolist())
        bounded = set(mdl_partition(x, max_history=1000).boundaries.tolist())
        inter += len(exact & bounded)
        union += len(exact | bounded)
    assert union > 50
    assert inter / union >= 0.999
