"""``pilotstats.results``: the base result class (JSON-safe ``to_dict``, HTML, frozen) and
the formatting of numbers and intervals.

One unit per table cell: an interval is printed in its estimate's unit, never
``mean 923 ms [0.8409, 1.005 s]``; the interval follows the estimate's scale everywhere an
estimate and its interval are printed together.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

import numpy as np
import pytest

from pilotstats.analysis import analyze
from pilotstats.autocorrelation import subsession_analysis
from pilotstats.io import Measurements
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    format_interval,
    format_quantity,
    json_safe,
)


def test_interval_in_the_estimates_unit() -> None:
    assert format_interval(0.8409, 1.005, 0.95, "s", estimate=0.923) == (
        "95 % CI [840.9, 1005] ms")
    assert format_interval(0.8409, 1.005, 0.95, "s") == "95 % CI [0.8409, 1.005] s"
    assert format_interval(9.5e-7, 1.2e-6, 0.9, "s", estimate=1.01e-6) == (
        "90 % CI [0.95, 1.2] µs")
    assert format_interval(2.0, 3.0, 0.95, "B/s", estimate=2.5) == "95 % CI [2, 3] B/s"
    # an undetermined estimate keeps seconds, as format_quantity does
    assert format_interval(0.5, 1.5, 0.95, "s", estimate=float("nan")).endswith("] s")
    assert format_quantity(float("nan"), "s") == "nan s"


def test_analysis_table_cell_has_one_unit() -> None:
    """The newcomer's case: a mean below 1 s whose interval reaches above it."""
    rng = np.random.default_rng(3)
    report = analyze(Measurements(rng.gamma(4, 0.93 / 4, 40), benchmark="x"))
    b = report.benchmarks[0]
    assert b.mean is not None and b.ci_high is not None
    assert b.mean < 1.0 < b.ci_high  # the case that used to mix ms and s
    cell = re.search(r"mean \S+ \S+ \[[^\]]*\]", str(report))
    assert cell is not None
    assert re.fullmatch(r"mean [0-9.]+ ms \[[0-9.]+, [0-9.]+ ms\]", cell.group()), cell.group()
    low, high = (float(v) for v in cell.group().split("[")[1].rstrip(" ms]").split(", "))
    assert abs(low - 1e3 * b.ci_low) < 1.0 and abs(high - 1e3 * b.ci_high) < 1.0
    assert " s]" not in str(report) and " s (" not in str(b)
    assert str(b).count(" ms") >= 2 and "] ms" in str(b)


def test_subsession_result_prints_one_unit() -> None:
    rng = np.random.default_rng(5)
    result = subsession_analysis(rng.gamma(4, 0.95 / 4, 200), unit="s", subsession_size=1)
    assert result.mean < 1.0 < result.ci_high  # the mean is in ms, the upper bound above 1 s
    text = str(result)
    assert re.search(r"mean [0-9.]+ ms \(95 % CI \[[0-9.]+, [0-9.]+\] ms", text), text


@dataclasses.dataclass(frozen=True, slots=True)
class _Example(Result):
    value: float
    values: np.ndarray
    nested: dict[str, object]


def test_result_to_dict_is_json_safe() -> None:
    example = _Example(math.inf, np.array([1.0, math.nan]), {"a": np.float64(2.0), 3: (1, 2)})
    data = example.to_dict()
    # Infinities are encoded losslessly as "inf"/"-inf"; NaN becomes None.
    assert data == {"value": "inf", "values": [1.0, None], "nested": {"a": 2.0, "3": [1, 2]}}
    json.dumps(data, allow_nan=False)
    assert "<table>" in example._repr_html_()
    with pytest.raises(dataclasses.FrozenInstanceError):
        example.value = 1.0  # type: ignore[misc]


def test_formatting() -> None:
    assert format_quantity(0.00123, "s") == "1.23 ms"
    assert format_quantity(12.5, "MB/s") == "12.5 MB/s"
    assert format_interval(0.001, 0.002, 0.95, "s") == "95 % CI [1, 2] ms"
    assert format_interval(1.0, 2.0, 0.99) == "99 % CI [1, 2]"
    assert json_safe(np.int64(3)) == 3 and json_safe(np.bool_(True)) is True
    assert ConfidenceInterval(1.0, 2.0).low == 1.0


def test_to_dict_encodes_infinity_losslessly() -> None:
    from pilotstats.regression import wps
    from pilotstats.results import decode_float

    work = np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
    durations = 1.0 + work / 100 + np.array([0.3, -0.3, 0.2, -0.25, 0.3, -0.2])
    result = wps(work, durations, autocorrelation_limit=1.0, alpha_filter=False)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert decode_float(data["throughput_ci_high"]) == result.throughput_ci_high
    if math.isinf(result.throughput_ci_high):
        assert data["throughput_ci_high"] == "inf"
