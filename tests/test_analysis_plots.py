"""Figures of measurements and reports (matplotlib Agg), progress bars."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pilotstats.analysis import analyze, compare, trend
from pilotstats.io import Measurements, load
from tests.test_pandas import _two_benchmarks

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DATA = Path(__file__).parent / "data" / "harnesses"


@pytest.fixture(autouse=True)
def _close_figures():  # type: ignore[no-untyped-def]
    yield
    plt.close("all")


def _legend_texts(ax) -> list[str]:  # type: ignore[no-untyped-def]
    legend = ax.get_legend()
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def test_measurements_plot_marks_warmups_and_runs() -> None:
    m = load(DATA / "pyperf_timeit.json")
    ax = m.plot()
    assert ax.get_ylabel().startswith("time per work unit (")
    # one filled series and one of warm-up crosses per run (each run has warm-ups)
    assert len(ax.lines) == 2 * len(m.runs) + (len(m.runs) > 8)
    drawn = [line for line in ax.lines if line.get_marker() in ("o", "x")]
    assert sum(len(line.get_xdata()) for line in drawn) == m.n_samples
    assert all(line.get_markerfacecolor() != "none" for line in drawn)  # filled markers
    texts = _legend_texts(ax)
    assert texts[0] == "run 1" or texts[0].startswith("run ")
    assert "harness warm-up" in texts
    assert ax.get_title() == f"{m.names[0]}: {m.n_samples} samples, {len(m.runs)} runs"


def test_measurements_plot_legend_counts_hidden_runs() -> None:
    runs = np.repeat(np.arange(12), 5)
    m = Measurements(np.linspace(1.0, 1.1, 60), run=runs, benchmark="b")
    texts = _legend_texts(m.plot())
    assert texts == [f"run {i}" for i in range(8)] + ["+ 4 more runs"]


def test_measurements_plot_colours_runs_by_file_of_load_many(tmp_path: Path) -> None:
    from pilotstats.io import load_many

    paths = []
    for i in range(3):
        path = tmp_path / f"job{i}.json"
        times = (0.1 + 0.001 * np.arange(10) / 10).tolist()
        path.write_text(json.dumps({"results": [{"command": "c", "times": times}]}))
        paths.append(path)
    m = load_many(paths)
    ax = m.plot()
    assert _legend_texts(ax) == [f"job{i}.json (10 runs)" for i in range(3)]
    colours = {line.get_color() for line in ax.lines if line.get_marker() == "o"}
    assert len(colours) == 3 and "in 3 files" in ax.get_title()


def test_analysis_plot_has_one_interval_per_analysable_benchmark() -> None:
    report = analyze(load(DATA / "asv_result.json"))
    ax = report.plot()
    assert len(ax.get_yticks()) == sum(b.ci_low is not None for b in report)
    assert "95 % CI" in ax.get_xlabel()
    # absolute values written next to each interval, in one unit each
    notes = [t.get_text() for t in ax.texts]
    assert len(notes) == len(ax.get_yticks()) and all("[" in n for n in notes)
    assert ax.get_title().startswith(f"{len(report)} benchmarks: ")


def test_analysis_plot_of_one_benchmark_shows_absolute_values_and_runs() -> None:
    rng = np.random.default_rng(5)
    levels = rng.normal(2e-3, 4e-5, 8)
    m = Measurements(np.concatenate([rng.normal(v, 2e-5, 50) for v in levels]),
                     run=np.repeat(np.arange(8), 50), benchmark="bench")
    report = analyze(m, detect_warmup=False)
    item = report["bench"]
    ax = report.plot(benchmark="bench")
    assert ax.get_ylabel() == "mean time per work unit (ms)"
    runs = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(runs) == 1 and np.allclose(runs[0].get_ydata(), np.array(item.run_values) * 1e3)
    (band,) = ax.collections  # the interval, in ms
    low, high = band.get_paths()[0].vertices[:, 1].min(), band.get_paths()[0].vertices[:, 1].max()
    assert low == pytest.approx(item.ci_low * 1e3) and high == pytest.approx(item.ci_high * 1e3)
    # the estimate and its interval in one unit
    assert re.fullmatch(r"bench: mean [0-9.]+ ms \[[0-9.]+, [0-9.]+ ms\] \(95 % CI, 8 runs\)",
                        ax.get_title())
    assert "95 % CI of the mean" in _legend_texts(ax)


def test_comparison_plot_colours_verdicts() -> None:
    rng = np.random.default_rng(4)
    runs = np.repeat(np.arange(8), 25)  # 8 processes per side (runs are the units)
    base = Measurements(rng.normal(1.0, 0.01, 200), run=runs, benchmark="b")
    new = Measurements(rng.normal(1.05, 0.01, 200), run=runs, benchmark="b")
    report = compare(base, new, min_change_percent=1)
    ax = report.plot()
    points = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(points) == 1 and points[0].get_color() == "tab:red"
    assert points[0].get_xdata()[0] == pytest.approx(5.0, abs=0.5)
    item = report["b"]
    expected = (f"b: {100 * item.relative_change:+.2f} % [{100 * item.relative_ci_low:+.2f}, "
                f"{100 * item.relative_ci_high:+.2f} %] regression (95 % CI, 8 vs 8 runs)")
    assert ax.get_title() == expected  # the title states the answer
    assert [t.get_text() for t in ax.texts] == [f"{100 * item.relative_change:+.2f} %"]


def test_comparison_plot_of_several_benchmarks_counts_verdicts() -> None:
    rng = np.random.default_rng(6)
    runs = np.repeat(np.arange(6), 20)
    names = np.repeat(["a", "b"], 120)
    base = Measurements(rng.normal(1.0, 0.01, 240), run=np.tile(runs, 2), benchmark=names)
    new = Measurements(np.r_[rng.normal(1.1, 0.01, 120), rng.normal(1.0, 0.01, 120)],
                       run=np.tile(runs, 2), benchmark=names)
    ax = compare(base, new).plot()
    assert ax.get_title().startswith("new vs baseline: 1 regression(s), 0 progression(s) of 2")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert "regression" in _legend_texts(ax)


def test_trend_plot() -> None:
    files = [Measurements(np.full(30, 1.0) + 0.01 * np.sin(np.arange(30) + i), benchmark="b")
             for i in range(4)]
    files += [Measurements(np.full(30, 2.0) + 0.01 * np.sin(np.arange(30) + i), benchmark="b")
              for i in range(4)]
    report = trend(files)
    ax = report.plot()
    (bars,) = ax.containers  # one interval per result that has one
    with_ci = sum(low is not None for low in report["b"].ci_low)
    assert with_ci >= 1 and len(bars.lines[2][0].get_segments()) == with_ci
    # per MDL segment: its level line and the interval of the level (4 results each)
    levels = [c for c in ax.collections if type(c).__name__ == "LineCollection"
              and c is not bars.lines[2][0]]
    bands = [c for c in ax.collections if type(c).__name__ in ("PolyCollection",
                                                                "FillBetweenPolyCollection")]
    assert len(levels) == 2 and len(bands) == 2
    segment = report["b"].segments[1]
    from pilotstats._stats import two_sided_t

    half = two_sided_t(0.95, 3) * segment.std / 2.0
    top = bands[1].get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(segment.mean + half)
    assert ax.get_title().startswith("b: newest level 2 s, regression (+")
    assert "95 % CI of each level" in _legend_texts(ax)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(i) for i in range(8)]


def test_trend_plot_labels_results_by_file_name() -> None:
    report = trend([load(DATA / "pyperf_timeit.json")] * 2)
    assert report.labels == ("0", "1")  # the same file twice: names repeat, indices
    first = load(DATA / "pyperf_timeit.json")
    second = Measurements(first.elapsed * 1.5, run=first.run, warmup=first.warmup,
               benchmark=first.benchmark, metadata={n: {**first.metadata[n],
                                                        "source": "later/run2.json"}
                                                    for n in first.names})
    report = trend([first, second])
    assert report.labels == ("pyperf_timeit.json", "run2.json")
    ax = report.plot()
    assert [t.get_text() for t in ax.get_xticklabels()] == list(report.labels)


def test_progress_bar_path() -> None:
    pytest.importorskip("tqdm")
    m = load(DATA / "pytest_benchmark.json")
    with_bar = analyze(m, progress=True)
    assert with_bar.to_dict() == analyze(m).to_dict()


def test_compare_and_trend_plots_are_titled_with_uncertainty() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    runs = np.tile(np.repeat(np.arange(5), 20), 2)  # 5 processes per benchmark
    base, new = _two_benchmarks(1), _two_benchmarks(2, slow=1.1)
    base, new = (Measurements(m.elapsed, run=runs, benchmark=m.benchmark) for m in (base, new))
    ax = compare(base, new, detect_warmup=False).plot()
    assert ax.get_title().startswith("new vs baseline: 1 regression(s)")
    single = compare(_two_benchmarks(1), _two_benchmarks(2, slow=1.1), detect_warmup=False)
    assert "2 inconclusive (1 run on a side)" in single.plot().get_title().replace("\n", " ")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["regression",
                                                                  "no significant change"]
    rng = np.random.default_rng(5)
    files = [Measurements(rng.normal(1.0 + 0.5 * (i >= 3), 0.01, 100), benchmark="b")
             for i in range(6)]
    report = trend(files, labels=[f"v{i}" for i in range(6)], detect_warmup=False)
    assert all(low is not None and low < mean < high for low, mean, high in
               zip(report["b"].ci_low, report["b"].means, report["b"].ci_high, strict=True))
    ax = report.plot()
    (bars,) = ax.containers
    assert len(bars.lines[2][0].get_segments()) == 6
    assert ax.get_xlabel() == "result (oldest first)"
    assert "interval of each mean (95 % CI)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_progress_moves_inside_each_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    """One step per run and one per benchmark's intervals, each naming what it does."""
    import sys
    import types

    events: list[tuple[str, object]] = []

    class FakeBar:
        def __init__(self, total: int, **kwargs: object) -> None:
            events.append(("total", total))

        def set_postfix_str(self, text: str, refresh: bool = True) -> None:
            events.append(("at", text))

        def update(self, n: int) -> None:
            events.append(("update", n))

        def close(self) -> None:
            events.append(("close", None))

    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeBar))
    rng = np.random.default_rng(0)
    m = Measurements(rng.normal(1.0, 0.01, 60), run=np.repeat([0, 1, 2], 20), benchmark="b")
    analyze(m, progress=True, detect_warmup=False)
    assert events[0] == ("total", 4) and events[-1] == ("close", None)
    assert [text for kind, text in events if kind == "at"] == [
        "b, run 0", "b, run 1", "b, run 2", "b, intervals"]
    assert sum(1 for kind, _ in events if kind == "update") == 4
