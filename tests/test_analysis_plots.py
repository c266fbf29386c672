"""Figures of measurements and reports (matplotlib Agg), progress bars."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pilotstats.analysis import analyze, compare, trend
from pilotstats.io import Measurements, load

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DATA = Path(__file__).parent / "data" / "harnesses"


@pytest.fixture(autouse=True)
def _close_figures():  # type: ignore[no-untyped-def]
    yield
    plt.close("all")


def test_measurements_plot_marks_warmups_and_runs() -> None:
    m = load(DATA / "pyperf_timeit.json")
    ax = m.plot()
    assert ax.get_ylabel().startswith("time per work unit (")
    # one filled and one hollow series per run (each run has warm-ups)
    assert len(ax.lines) == 2 * len(m.runs)
    total = sum(len(line.get_xdata()) for line in ax.lines)
    assert total == m.n_samples


def test_analysis_plot_has_one_interval_per_analysable_benchmark() -> None:
    report = analyze(load(DATA / "asv_result.json"))
    ax = report.plot()
    assert len(ax.get_yticks()) == sum(b.ci_low is not None for b in report)
    assert "95 % CI" in ax.get_xlabel()


def test_comparison_plot_colours_verdicts() -> None:
    rng = np.random.default_rng(4)
    runs = np.repeat(np.arange(8), 25)  # 8 processes per side (issue 22: runs are the units)
    base = Measurements(rng.normal(1.0, 0.01, 200), run=runs, benchmark="b")
    new = Measurements(rng.normal(1.05, 0.01, 200), run=runs, benchmark="b")
    ax = compare(base, new, min_change_percent=1).plot()
    points = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(points) == 1 and points[0].get_color() == "tab:red"
    assert points[0].get_xdata()[0] == pytest.approx(5.0, abs=0.5)


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
    assert len(ax.collections) == 2 + 1  # one level line per MDL segment, and the intervals
    assert ax.get_title().startswith("b: MDL levels") and ax.get_legend() is not None
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(i) for i in range(8)]


def test_progress_bar_path() -> None:
    pytest.importorskip("tqdm")
    m = load(DATA / "pytest_benchmark.json")
    with_bar = analyze(m, progress=True)
    assert with_bar.to_dict() == analyze(m).to_dict()
