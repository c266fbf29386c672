"""Pandas in and out: DataFrames and Series as input, index labels kept, to_frame() on
every report, Measurements.from_frame round trips, HTML tables for Jupyter."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pilotstats.analysis import analyze, compare, trend
from pilotstats.autocorrelation import subsession_analysis
from pilotstats.changepoints import detect_changes, edm, stable_phase
from pilotstats.exceptions import InvalidInputError
from pilotstats.io import Measurements


@pytest.fixture
def shifted() -> pd.Series:
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.normal(12.0, 1.0, 60), rng.normal(10.0, 1.0, 240)])
    return pd.Series(values, index=pd.date_range("2024-01-01", periods=300, freq="D"),
                     name="latency")


def test_one_column_frame_is_taken_as_the_series(shifted: pd.Series) -> None:
    frame = shifted.to_frame()
    before = frame.copy()
    assert subsession_analysis(frame).mean == subsession_analysis(shifted.to_numpy()).mean
    assert stable_phase(frame, rng=1).start == stable_phase(shifted.to_numpy(), rng=1).start
    assert detect_changes(frame).locations == detect_changes(shifted.to_numpy()).locations
    pd.testing.assert_frame_equal(frame, before)  # input not modified


def test_wider_frame_is_a_named_error(shifted: pd.Series) -> None:
    frame = pd.DataFrame({"a": shifted, "b": shifted})
    with pytest.raises(InvalidInputError, match=r"2 columns \(a, b\).*frame\['a'\]"):
        subsession_analysis(frame)


def test_series_index_becomes_change_point_labels(shifted: pd.Series) -> None:
    result = detect_changes(shifted)
    assert result.locations == (61,)
    assert result.labels == (shifted.index[61],)
    assert "labels ['2024-03-02 00:00:00']" in str(result)
    assert json.loads(json.dumps(result.to_dict()))["labels"] == ["2024-03-02 00:00:00"]
    found = edm(shifted.reset_index(drop=True).set_axis(range(100, 400)), min_size=10)
    assert found.labels == tuple(100 + c for c in found.locations)


def test_plain_arrays_and_lists_have_no_labels(shifted: pd.Series) -> None:
    assert detect_changes(shifted.to_numpy()).labels is None
    assert edm(shifted.tolist(), min_size=10).labels is None


def _two_benchmarks(seed: int, slow: float = 1.0) -> Measurements:
    rng = np.random.default_rng(seed)
    return Measurements(
        np.concatenate([rng.normal(1.0, 0.01, 100), rng.normal(2.0 * slow, 0.02, 100)]),
        benchmark=["fast"] * 100 + ["slow"] * 100,
    )


def test_measurements_round_trip_through_a_frame() -> None:
    m = Measurements(np.arange(1.0, 7.0), work=[1, 2, 1, 2, 1, 2], run=[0, 0, 1, 1, 0, 0],
                     benchmark=["a", "a", "a", "a", "b", "b"],
                     warmup=[True, False, False, False, False, False])
    back = Measurements.from_frame(m.to_frame())
    for name in ("elapsed", "work", "run", "order", "warmup", "benchmark"):
        assert np.array_equal(getattr(back, name), getattr(m, name)), name
    pd.testing.assert_frame_equal(back.to_frame(), m.to_frame())


def test_from_frame_with_own_column_names_and_errors() -> None:
    frame = pd.DataFrame({"test": ["x"] * 3 + ["y"] * 2, "ns": [5.0, 6, 7, 8, 9],
                          "rep": [0, 1, 2, 0, 0]})
    m = Measurements.from_frame(frame, benchmark="test", value="ns", run="rep")
    assert m.names == ("x", "y") and list(m["x"].runs) == [0, 1, 2]
    assert m["y"].elapsed.tolist() == [8.0, 9.0]
    with pytest.raises(InvalidInputError, match="value='seconds' is not a column"):
        Measurements.from_frame(frame, value="seconds")
    with pytest.raises(InvalidInputError, match="must be a pandas DataFrame"):
        Measurements.from_frame({"elapsed": [1.0]})


def test_analysis_report_to_frame_matches_the_report() -> None:
    report = analyze(_two_benchmarks(1), detect_warmup=False)
    frame = report.to_frame()
    assert list(frame.index) == ["fast", "slow"]
    for item in report:
        assert frame.loc[item.name, "mean"] == pytest.approx(item.mean)
        assert frame.loc[item.name, "ci_low"] == pytest.approx(item.ci_low)


def test_comparison_report_to_frame_one_sided_benchmarks_on_request() -> None:
    base = _two_benchmarks(1)
    extra = Measurements(np.ones(20), benchmark="extra").to_frame()
    new = Measurements.from_frame(
        pd.concat([_two_benchmarks(2, slow=1.1).to_frame(), extra], ignore_index=True)
    )
    # one run per side: runs assumed equivalent, else inconclusive
    report = compare(base, new, detect_warmup=False, assume_runs_equivalent=True)
    assert "extra" not in report.to_frame().index  # one row per item (compared benchmark)
    frame = report.to_frame(one_sided=True)
    assert frame.loc["slow", "verdict"] == "regression"
    assert frame.loc["extra", "verdict"] == "only in new"
    assert frame.loc["slow", "relative_change"] == pytest.approx(report["slow"].relative_change)


def test_trend_report_to_frame_per_benchmark_or_long() -> None:
    files = [Measurements([1.0, 1.01, 0.99, 1.0] * 5, benchmark="b") for _ in range(4)]
    files += [Measurements([1.5, 1.51, 1.49, 1.5] * 5, benchmark="b") for _ in range(4)]
    report = trend(files, labels=[f"c{i}" for i in range(8)])
    short = report.to_frame()
    assert list(short.index) == ["b"] and short.loc["b", "n_segments"] == 2
    assert short.loc["b", "last_mean"] == pytest.approx(1.5)
    frame = report.to_frame(long_format=True)
    assert frame.shape[0] == 8
    assert frame.loc[("b", "c0"), "classification"] == "normal"
    assert frame.loc[("b", "c7"), "segment"] == 1
    assert frame.loc[("b", "c7"), "mean"] == pytest.approx(1.5)


def test_reports_render_html_tables() -> None:
    m = _two_benchmarks(1)
    html_texts = [
        m._repr_html_(),
        analyze(m, detect_warmup=False)._repr_html_(),
        compare(m, _two_benchmarks(2), detect_warmup=False)._repr_html_(),
        trend([m, m, m], detect_warmup=False)._repr_html_(),
    ]
    for text in html_texts:
        assert "<table>" in text and "<th" in text and "<caption" in text
        assert "[{" not in text and "<strong>" in text
        assert text.count("<tr>") >= 3  # header + one row per benchmark

