"""Analysis extras of issue 15: titled plots with uncertainty, the median and minimum
statistics' intervals, progress inside long analyses."""

from __future__ import annotations

import numpy as np
import pytest

from pilotstats.analysis import analyze, compare, trend
from pilotstats.io import Measurements
from tests.test_pandas import _two_benchmarks


def test_compare_and_trend_plots_are_titled_with_uncertainty() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    runs = np.tile(np.repeat(np.arange(5), 20), 2)  # 5 processes per benchmark (issue 22)
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


def test_median_interval_is_the_order_statistic_interval() -> None:
    """n = 20 independent samples (q = 1): the 95 % interval is [x(6), x(15)]."""
    from pilotstats.analysis._robust import block_statistic

    values = np.random.default_rng(2).permutation(np.arange(1.0, 21.0))
    result = block_statistic(values, 1, "median", 0.95)
    assert (result["ci_low"], result["mean"], result["ci_high"]) == (6.0, 10.5, 15.0)
    few = block_statistic(values[:5], 1, "median", 0.95)  # P(all 5 on one side) > 2.5 %
    assert few["ci_low"] is None and "too few" in few["notes"][0]
    minima = block_statistic(values, 4, "min", 0.95)
    expected = values.reshape(5, 4).min(axis=1)
    assert minima["mean"] == pytest.approx(expected.mean()) and minima["n_subsessions"] == 5
    assert minima["ci_low"] < expected.mean() < minima["ci_high"]


@pytest.mark.slow
def test_median_interval_coverage() -> None:
    """Coverage of the median's interval on AR(1) data (phi = 0.5) at least the level,
    up to simulation error (400 series)."""
    from pilotstats.analysis._robust import block_statistic
    from pilotstats.autocorrelation import subsession_analysis

    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(400):
        e = rng.standard_normal(400)
        x = np.empty_like(e)
        x[0] = e[0] / np.sqrt(1 - 0.25)
        for i in range(1, x.size):
            x[i] = 0.5 * x[i - 1] + e[i]
        q = subsession_analysis(x).subsession_size
        result = block_statistic(x, q, "median", 0.95)
        covered += result["ci_low"] <= 0.0 <= result["ci_high"]
    assert covered / 400 >= 0.91


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
