"""The shared protocols: :class:`pilotstats.Stream` and
:class:`pilotstats.ResultCollection`, checked on every class that follows them."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pilotstats
from pilotstats import ResultCollection, Stream
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError

# ----------------------------------------------------------------------------------------
# Stream
# ----------------------------------------------------------------------------------------


def _edm_stream() -> tuple[Any, Callable[[Any], Any], list[Any]]:
    from pilotstats.changepoints import EdmStream, edm

    rng = np.random.default_rng(5)
    x = np.r_[rng.normal(0.0, 1.0, 40), rng.normal(4.0, 1.0, 40)].tolist()
    return EdmStream(min_size=10), lambda values: edm(values, min_size=10), x


def _mdl_stream() -> tuple[Any, Callable[[Any], Any], list[Any]]:
    from pilotstats.changepoints import MdlStream, mdl_partition

    rng = np.random.default_rng(6)
    runs: list[Any] = np.r_[rng.normal(10.0, 0.1, 30), rng.normal(8.0, 0.1, 30)].tolist()
    runs[7] = [10.0, 10.1, 9.9]  # a run of several samples is one observation
    return MdlStream(), mdl_partition, runs


def _detect_stream() -> tuple[Any, Callable[[Any], Any], list[Any]]:
    from pilotstats.changepoints import DetectStream, detect_changes

    rng = np.random.default_rng(8)
    x = np.r_[rng.normal(0.0, 1.0, 40), rng.normal(4.0, 1.0, 40)].tolist()
    return DetectStream(min_size=10), lambda values: detect_changes(values, min_size=10), x


def _stable_stream() -> tuple[Any, Callable[[Any], Any], list[Any]]:
    from pilotstats.changepoints import StablePhaseStream, stable_phase

    rng = np.random.default_rng(9)
    x = np.r_[rng.normal(5.0, 1.0, 20), rng.normal(0.0, 1.0, 60)].tolist()
    return StablePhaseStream(min_size=10), lambda values: stable_phase(values, min_size=10), x


STREAMS = {
    "EdmStream": _edm_stream,
    "MdlStream": _mdl_stream,
    "DetectStream": _detect_stream,
    "StablePhaseStream": _stable_stream,
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_stream_protocol(name: str) -> None:
    stream, batch, observations = STREAMS[name]()
    assert isinstance(stream, Stream)
    assert len(stream) == 0
    with pytest.raises(NotEnoughDataError):
        stream.result()
    stream.append(observations[0])  # one observation
    assert len(stream) == 1
    stream.extend(observations[1:20])  # many
    stream.extend([])  # nothing
    assert len(stream) == 20
    # to_dict(): TrendGroups holds arrays, so compare the JSON-safe data (NaN as None)
    assert stream.result().to_dict() == batch(observations[:20]).to_dict()
    for value in observations[20:]:
        stream.append(value)
    assert len(stream) == len(observations)
    assert stream.result().to_dict() == batch(observations).to_dict()


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_stream_extend_rejects_a_lone_number(name: str) -> None:
    stream, _, observations = STREAMS[name]()
    with pytest.raises(InvalidInputError, match=r"append\(value\)"):
        stream.extend(observations[0])
    assert len(stream) == 0


def test_edm_stream_append_rejects_several_values() -> None:
    stream, _, observations = _edm_stream()
    with pytest.raises(InvalidInputError, match=r"extend\(values\)"):
        stream.append(observations[:3])
    assert len(stream) == 0


def test_streams_document_the_protocol_once() -> None:
    from pilotstats.changepoints import DetectStream, EdmStream, MdlStream, StablePhaseStream

    for cls in (EdmStream, MdlStream, DetectStream, StablePhaseStream):
        assert "pilotstats.Stream" in (cls.__doc__ or "")
    assert "append(value)" in (Stream.__doc__ or "")
    assert pilotstats.Stream is Stream and "Stream" in pilotstats.__all__


# ----------------------------------------------------------------------------------------
# ResultCollection
# ----------------------------------------------------------------------------------------


def _edm() -> Any:
    from pilotstats.changepoints import edm

    x = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5,
         9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    return edm(x, min_size=5, beta=0.008)


def _edm_without_change() -> Any:
    from pilotstats.changepoints import edm

    return edm([1.0, 2.0, 1.0, 2.0], min_size=5)


def _detected() -> Any:
    from pilotstats.changepoints import detect_changes

    rng = np.random.default_rng(7)
    return detect_changes(np.r_[rng.normal(12.0, 1.0, 60), rng.normal(10.0, 1.0, 240)])


def _trend_groups() -> Any:
    from pilotstats.changepoints import mdl_partition

    return mdl_partition([10.0, 10.1, 9.9, 10.0, 8.0, 8.1, 7.9, 8.0, [8.0, 8.1]],
                         resolution=0.01)


def _regions() -> Any:
    from pilotstats.smoothing import divergence_regions

    days = np.arange(60) * 86400.0
    y = np.where((days > 20 * 86400) & (days < 40 * 86400), 0.5, 1.0)
    y[30] = np.nan
    return divergence_regions(days, y, short="6D", long="24D")


def _no_regions() -> Any:
    from pilotstats.smoothing import divergence_regions

    return divergence_regions(np.arange(5) * 86400.0, np.ones(5), short="2D", long="4D")


def _crossovers() -> Any:
    from pilotstats.smoothing import crossovers

    return crossovers([1.0, 2.0, 3.0, 2.0, 1.0], [2.0] * 5)


def _contributors() -> Any:
    from pilotstats.smoothing import contributors, divergence_regions

    t = np.arange(40) * 86400.0
    perf = np.where((t >= 15 * 86400) & (t < 25 * 86400), 0.6, 1.0)
    perf[20] = 0.3
    load = np.ones(40)
    load[20] = 5.0
    frame = pd.DataFrame({"perf": perf, "load": load, "other": np.arange(40.0)})
    regions = divergence_regions(t, perf, short="4D", long="16D")
    return contributors(frame, regions, target="perf", metrics_higher_is_better={"load": False})


def _measurements(seed: int, slow: float = 1.0) -> Any:
    from pilotstats.io import Measurements

    rng = np.random.default_rng(seed)
    return Measurements(
        np.r_[rng.normal(1.0, 0.01, 60), rng.normal(slow, 0.01, 60)],
        benchmark=np.repeat(["fast", "slow"], 60),
    )


def _analysis_report() -> Any:
    from pilotstats.analysis import analyze

    return analyze(_measurements(1), detect_warmup=False)


def _comparison_report() -> Any:
    from pilotstats.analysis import compare
    from pilotstats.io import Measurements

    new = _measurements(2, slow=1.1)
    extra = Measurements(np.ones(20), benchmark="extra")
    combined = Measurements.from_frame(pd.concat([new.to_frame(), extra.to_frame()],
                                                 ignore_index=True))
    return compare(_measurements(1), combined, detect_warmup=False)


def _trend_report() -> Any:
    from pilotstats.analysis import trend

    return trend([_measurements(1), _measurements(2), _measurements(3, slow=1.5)],
                 detect_warmup=False)


def _fleet_report() -> Any:
    from pilotstats.analysis import FleetExecution, fleet_report

    rng = np.random.default_rng(0)
    return fleet_report({"flat": rng.normal(10, 0.1, 50),
                         "slower": np.r_[rng.normal(10, 0.1, 45), [12.0] * 5],
                         "broken": [1.0, -1.0, math.nan]},
                        higher_is_better=False, execution=FleetExecution(workers=1))


def _steady_state() -> Any:
    from pilotstats.changepoints import steady_state

    return steady_state(np.random.default_rng(8).normal(1.0, 0.01, (3, 400)))


def _bisect_result() -> Any:
    import sys
    import tempfile

    from pilotstats.demo import demo_repository
    from pilotstats.session import bisect

    folder = tempfile.mkdtemp() + "/repo"
    commits = demo_repository(folder, commits=3, culprit=2, growth=3.0)
    return bisect(commits[0], commits[-1], [sys.executable, "bench.py"], repo=folder,
                  column=0)


COLLECTIONS: dict[str, Callable[[], Any]] = {
    "BisectResult": _bisect_result,
    "ChangePoints": _edm,
    "ChangePoints (no change point)": _edm_without_change,
    "DetectedChangePoints": _detected,
    "TrendGroups": _trend_groups,
    "SteadyState": _steady_state,
    "Regions": _regions,
    "Regions (none)": _no_regions,
    "Crossovers": _crossovers,
    "Contributors": _contributors,
    "AnalysisReport": _analysis_report,
    "ComparisonReport": _comparison_report,
    "TrendReport": _trend_report,
    "FleetReport": _fleet_report,
}


def _same(a: Any, b: Any) -> bool:
    """Equality where NaN equals NaN (record items hold floats that may be NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if a is pd.NA or b is pd.NA:
        return a is b
    result = a == b
    return bool(result.all()) if isinstance(result, np.ndarray) else bool(result)


@pytest.mark.parametrize("name", sorted(COLLECTIONS))
def test_result_collection_protocol(name: str) -> None:
    result = COLLECTIONS[name]()
    assert isinstance(result, ResultCollection)
    items = list(result)
    assert len(items) == len(result)
    indexed = [result[i] for i in range(len(result))]
    assert all(_same(a, b) for a, b in zip(items, indexed, strict=True))
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(result)
    if len(result):
        assert _same(result[-1], items[-1])
        assert all(_same(a, b) for a, b in zip(result[::2], items[::2], strict=True))
        assert isinstance(result[0:1], tuple) and len(result[0:1]) == 1
        assert _same(result[np.int64(0)], items[0])
    assert result[len(result):] == ()
    with pytest.raises(IndexError):
        result[len(result)]
    with pytest.raises(IndexError):
        result[-len(result) - 1]
    with pytest.raises((TypeError, KeyError)):
        result[1.5]


@pytest.mark.parametrize("name", ["Regions", "Crossovers", "Contributors", "FleetReport"])
def test_record_items_are_the_rows_of_to_frame(name: str) -> None:
    result = COLLECTIONS[name]()
    rows = result.to_frame().to_dict(orient="records")
    assert len(rows) == len(result) > 0
    for item, row in zip(result, rows, strict=True):
        assert isinstance(item, dict) and list(item) == list(row)
        assert _same(item, row)


@pytest.mark.parametrize("name", ["AnalysisReport", "ComparisonReport", "TrendReport"])
def test_reports_are_indexed_by_position_and_by_name(name: str) -> None:
    report = COLLECTIONS[name]()
    first = report[0]
    assert report[first.name] is first
    assert list(report.to_frame().index) == [item.name for item in report]
    with pytest.raises(KeyError):
        report["no such benchmark"]


def test_fleet_report_is_indexed_by_series_name() -> None:
    report = _fleet_report()
    assert report["slower"]["series"] == "slower"
    assert [row["series"] for row in report] == report.results["series"].tolist()
    with pytest.raises(KeyError):
        report["nothing"]


def test_change_points_truth_value_is_that_of_the_locations() -> None:
    assert len(_edm()) == len(_edm().locations) + 1 and _edm()
    empty = _edm_without_change()
    assert len(empty) == 1 and not empty


def test_one_sided_and_long_frames_are_opt_in() -> None:
    comparison = _comparison_report()
    assert comparison.only_in_new == ("extra",)
    assert "extra" not in comparison.to_frame().index
    assert comparison.to_frame(one_sided=True).loc["extra", "verdict"] == "only in new"
    report = _trend_report()
    assert len(report.to_frame(long_format=True)) == len(report) * len(report.labels)


NOT_COLLECTIONS = {
    # input data, not a result: one item per benchmark but one frame row per sample
    "Measurements",
    # records keyed by their performance-index id (an int), not by position
    "PilotBaseline",
    # streams: len() counts observations (the Stream protocol)
    "EdmStream",
    "MdlStream",
    "DetectStream",
    "StablePhaseStream",
    # the protocols themselves
    "ResultCollection",
    "Stream",
    # a (statistic, p_value) pair that unpacks and indexes as one (PValueResult)
    "WelchResult",
    "FTestResult",
}


def test_every_collection_like_result_is_covered() -> None:
    """A public class with ``__len__`` or ``to_frame`` follows the protocol and is checked
    above (named tuples and the listed exceptions aside)."""
    modules = [pilotstats] + [getattr(pilotstats, name) for name in (
        "analysis", "autocorrelation", "changepoints", "io", "regression", "session",
        "smoothing")]
    checked = {name.split(" ")[0] for name in COLLECTIONS}
    found = set()
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not inspect.isclass(obj) or issubclass(obj, tuple) or name in NOT_COLLECTIONS:
                continue
            if hasattr(obj, "__len__") or hasattr(obj, "to_frame"):
                found.add(name)
    assert found == checked
