"""``plot`` methods of the results (matplotlib Agg) and the missing-matplotlib error."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pilotstats.changepoints import detect_changes, edm, edm_single, stable_phase
from pilotstats.demo._regression import SAMPLE_MEASUREMENTS, SAMPLE_POPULATIONS
from pilotstats.exceptions import InvalidInputError, MissingDependencyError
from pilotstats.plotting._common import INSTALL_HINT, axis_label
from pilotstats.regression import ClosedNetworkModel, calibrate, wps
from pilotstats.results import format_number, time_scale, value_scale
from pilotstats.smoothing import RegionOptions, analyze_regions, divergence_regions

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DAY = 86400.0


@pytest.fixture(autouse=True)
def _close_figures() -> Any:
    yield
    plt.close("all")


def _dashed(ax: Any) -> list[Any]:
    """Change-point markers: the dashed vertical lines."""
    return [line for line in ax.get_lines() if line.get_linestyle() == "--"]


def _labelled(ax: Any) -> None:
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()


def _steps() -> np.ndarray:
    rng = np.random.default_rng(1)
    return np.concatenate([
        rng.normal(12e-3, 0.4e-3, 40), rng.normal(10e-3, 0.4e-3, 80), rng.normal(11e-3, 0.4e-3, 40)
    ])


# ------------------------------------------------------------------ shared helpers


def test_helpers_scale_and_label() -> None:
    assert time_scale([2e-3, 3e-3, None, np.nan]) == ("ms", 1e-3)
    assert time_scale([]) == ("s", 1.0)
    assert value_scale([5e-7], "s") == ("ns", 1e-9)
    assert value_scale([5e-7], "MB/s") == ("MB/s", 1.0)
    assert axis_label("work", "requests") == "work (requests)"
    assert axis_label("work", None) == "work"


# ------------------------------------------------------------------ change points


class TestChangePoints:
    def test_edm_levels_and_markers(self) -> None:
        x = _steps()
        result = edm(x, min_size=20)
        ax = result.plot(x, unit="s", ylabel="round time")
        _labelled(ax)
        assert ax.get_ylabel() == "round time (ms)"  # seconds auto-scaled
        assert len(result.locations) >= 2
        assert len(_dashed(ax)) == len(result.locations)
        levels = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
        assert len(levels) == len(result.segments)
        assert levels[1].get_ydata()[0] == pytest.approx(result.segments[1].median / 1e-3)
        # a change point c is drawn between samples c - 1 and c
        assert _dashed(ax)[0].get_xdata()[0] == pytest.approx(result.locations[0] - 0.5)
        assert result.method in ax.get_title()

    def test_mean_levels_and_given_axes(self) -> None:
        x = _steps()
        result = edm(x, min_size=20)
        _, given = plt.subplots()
        ax = result.plot(x, ax=given, level="mean")
        assert ax is given
        levels = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
        assert np.asarray(levels[0].get_ydata())[0] == pytest.approx(result.segments[0].mean)
        assert ax.get_ylabel() == "value"  # no unit: no parentheses
        with pytest.raises(InvalidInputError, match="level"):
            result.plot(x, level="mode")

    def test_length_mismatch_is_named(self) -> None:
        x = _steps()
        result = edm(x, min_size=20)
        with pytest.raises(InvalidInputError, match=r"length n = 160; got length 159"):
            result.plot(x[:-1])
        single = edm_single(x, min_size=20)
        with pytest.raises(InvalidInputError, match="length"):
            single.plot(x[1:])

    def test_single_change_point(self) -> None:
        x = _steps()[:120]
        result = edm_single(x, min_size=20)
        ax = result.plot(x, unit="ms")
        _labelled(ax)
        assert ax.get_ylabel() == "value (ms)"
        assert len(_dashed(ax)) == 1
        assert [line.get_linestyle() for line in ax.get_lines()].count("-") == 2

    def test_single_without_change(self) -> None:
        x = np.arange(10.0)
        result = edm_single(x, min_size=30)  # too short to search
        assert result.location is None
        ax = result.plot(x)
        assert not _dashed(ax) and "no change" in ax.get_title()
        assert [line.get_linestyle() for line in ax.get_lines()].count("-") == 1

    def test_no_change(self) -> None:
        x = np.random.default_rng(0).normal(size=100)
        result = detect_changes(x, min_size=20)
        ax = result.plot(x)
        assert not _dashed(ax) and "no change" in ax.get_title()

    def test_detected_change_points_annotate_p_values(self) -> None:
        x = _steps()
        result = detect_changes(x, min_size=20, unit="s")
        ax = result.plot(x)
        assert ax.get_ylabel() == "value (ms)"  # the result's unit
        assert len(_dashed(ax)) == len(result.locations) == 2
        notes = [t.get_text() for t in ax.texts]
        assert len(notes) == 2 and all(t.startswith("p ") for t in notes)
        assert "rank test" in ax.get_title()


class TestStablePhase:
    def test_warmup_cooldown_and_ci_band(self) -> None:
        rng = np.random.default_rng(3)
        x = np.concatenate([rng.normal(14.0, 1.0, 40), rng.normal(10.0, 1.0, 200),
                            rng.normal(12.0, 1.0, 40)])
        result = stable_phase(x, unit="ms")
        assert result.warmup_length and result.cooldown_length
        ax = result.plot(x, ylabel="latency")
        _labelled(ax)
        assert ax.get_ylabel() == "latency (ms)"
        assert "95 % CI" in ax.get_title()
        assert len(ax.patches) == 2  # warm-up and cool-down shading
        assert len(ax.collections) == 1  # the CI band of the mean
        band = ax.collections[0].get_paths()[0].vertices[:, 1]
        low, high = result.confidence_interval()
        assert band.min() == pytest.approx(low) and band.max() == pytest.approx(high)
        assert len(_dashed(ax)) == len(result.locations)
        labels = ax.get_legend_handles_labels()[1]
        assert "warm-up (40 samples)" in labels[0]

    def test_no_change_and_given_axes(self) -> None:
        x = np.random.default_rng(0).normal(10.0, 1.0, 120)
        result = stable_phase(x)
        _, given = plt.subplots()
        ax = result.plot(x, ax=given, show_change_points=False)
        assert ax is given and not ax.patches and not _dashed(ax)
        with pytest.raises(InvalidInputError, match="length"):
            result.plot(np.r_[x, 1.0])

    def test_no_dominant_segment_is_said(self) -> None:
        rng = np.random.default_rng(5)
        x = np.concatenate([rng.normal(m, 0.1, 40) for m in (1.0, 3.0, 5.0)])
        result = stable_phase(x, min_size=10)
        assert result.outcome == "no_dominant_segment"
        ax = result.plot(x)
        assert ax.get_title().startswith("no stable phase")
        assert not ax.collections  # no mean, no band


# ------------------------------------------------------------------ regression


def _rounds() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    w = rng.uniform(100, 2000, 40)
    t = 0.05 + w / 5000.0 + rng.normal(0, 0.01, 40)
    t[:2] = 0.01  # too short: filtered out
    return w, t


class TestWps:
    def test_line_bands_and_rounds(self) -> None:
        w, t = _rounds()
        result = wps(w, t, unit="requests", min_round_duration=0.05)
        ax = result.plot(w, t)
        _labelled(ax)
        assert ax.get_xlabel() == "work per round (requests)"
        assert ax.get_ylabel() == "round duration (ms)"
        assert "requests/s" in ax.get_title() and "95 % CI" in ax.get_title()
        assert len(ax.collections) == 2  # prediction band and confidence band
        used, excluded = ax.get_lines()[:2]
        assert len(used.get_xdata()) == result.n_rounds_used
        assert len(excluded.get_xdata()) == result.n_rounds - result.n_rounds_used
        # the confidence band lies inside the prediction band
        pi, ci = (c.get_paths()[0].vertices[:, 1] for c in ax.collections)
        assert np.ptp(ci) <= np.ptp(pi)
        fitted = ax.get_lines()[-1].get_ydata()
        assert fitted[0] * 1e-3 == pytest.approx(result.alpha + result.slope * w.min())

    def test_options_and_length_mismatch(self) -> None:
        w, t = _rounds()
        result = wps(w, t, min_round_duration=0.05)
        _, given = plt.subplots()
        ax = result.plot(w, t, ax=given, prediction_band=False)
        assert ax is given and len(ax.collections) == 1
        with pytest.raises(InvalidInputError, match=r"durations.*length n = 40"):
            result.plot(w, t[:-1])


@pytest.fixture(scope="module")
def network_fit() -> Any:
    z = np.array(SAMPLE_MEASUREMENTS)
    return calibrate(ClosedNetworkModel(3, think_time=10.0), SAMPLE_POPULATIONS, z,
                     [1.0, 1.0, 1.0])


class TestCalibration:
    def test_measurements_model_and_bands(self, network_fit: Any) -> None:
        ax = network_fit.plot(2, conditions=range(1, 31), xlabel="population N",
                              ylabel="residence time T3", unit="s")
        _labelled(ax)
        assert ax.get_ylabel() == "residence time T3 (s)"
        measured = ax.get_lines()[0]
        assert list(measured.get_xdata()) == list(SAMPLE_POPULATIONS)
        np.testing.assert_allclose(measured.get_ydata(), np.array(SAMPLE_MEASUREMENTS)[:, 2])
        assert len(ax.collections) == 2  # CI band of the mean and PI band
        assert len(ax.patches) == 1  # extrapolation N > 19 shaded
        model = ax.get_lines()[1]
        assert len(model.get_xdata()) == 30

    def test_default_grid_and_errors(self, network_fit: Any) -> None:
        ax = network_fit.plot(3, prediction_band=False)
        assert len(ax.get_lines()[1].get_xdata()) == 19  # every N from 1 to 19
        assert len(ax.collections) == 1 and not ax.patches
        with pytest.raises(InvalidInputError, match="output"):
            network_fit.plot(4)
        with pytest.raises(InvalidInputError, match="length"):
            network_fit.plot(0, conditions=[1, 2], x_axis=[1.0])

    def test_row_conditions_need_an_index(self) -> None:
        conditions = [[n, 1.0] for n in (1, 2, 3, 4)]
        fit = calibrate(lambda p, u: p[0] * u[0] * u[1], conditions, [2.1, 3.9, 6.2, 7.9],
                        [1.0], weights=None)
        with pytest.raises(InvalidInputError, match="condition_index"):
            fit.plot()
        ax = fit.plot(condition_index=0)
        assert list(ax.get_lines()[0].get_xdata()) == [1.0, 2.0, 3.0, 4.0]

    def test_prediction_plot(self, network_fit: Any) -> None:
        populations = np.arange(1, 31)
        prediction = network_fit.predict(list(populations))
        _, given = plt.subplots()
        ax = prediction.plot(populations, 3, ax=given, xlabel="population N",
                             ylabel="throughput", unit="1/s")
        assert ax is given
        _labelled(ax)
        assert ax.get_ylabel() == "throughput (1/s)"
        assert len(ax.collections) == 1
        with pytest.raises(InvalidInputError, match="length"):
            prediction.plot(populations[:-1])
        with pytest.raises(InvalidInputError, match="output"):
            prediction.plot(populations, 7)


# ------------------------------------------------------------------ smoothing


class TestSmoothing:
    def test_regions_delegate(self) -> None:
        t = np.arange(80) * DAY
        y = np.sin(np.arange(80) / 5.0) + 2.0
        regions = divergence_regions(t, y, short="3D", long="12D")
        ax = regions.plot(ylabel="bandwidth (MB/s)")
        _labelled(ax)
        assert ax.get_ylabel() == "bandwidth (MB/s)"
        assert f"{len(regions)} divergence regions" in ax.get_title()
        ax = regions.plot(kind="sma_difference")
        _labelled(ax)
        with pytest.raises(InvalidInputError, match="kind"):
            regions.plot(kind="pie")

    def test_analysis_delegates(self) -> None:
        rng = np.random.default_rng(2)
        frame = pd.DataFrame({
            "time": np.arange(90) * DAY,
            "perf": np.sin(np.arange(90) / 6.0) + rng.normal(0, 0.05, 90) + 2.0,
            "load": rng.uniform(0, 1, 90),
        })
        analysis = analyze_regions(frame, time="time", target="perf",
                                   options=RegionOptions(short="3D", long="15D"))
        ax = analysis.plot()
        _labelled(ax)
        assert ax.get_ylabel() == "perf"
        _, given = plt.subplots()
        assert analysis.plot(kind="ranking", ax=given) is given
        _labelled(given)
        assert analysis.plot(kind="sma_difference").get_xlabel() == "time (UTC)"
        _labelled(analysis.plot(kind="heatmap", significant_only=False))


# ------------------------------------------------------------------ missing matplotlib


def test_missing_matplotlib_named_error(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _steps()
    result = edm(x, min_size=20)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "pilotstats\[plot\]"') as info:
        result.plot(x)
    assert isinstance(info.value, ImportError) and info.value.package == "matplotlib"
    w, t = _rounds()
    with pytest.raises(MissingDependencyError, match="matplotlib"):
        wps(w, t, min_round_duration=0.05).plot(w, t)


def test_plotting_does_not_import_matplotlib_until_called() -> None:
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import pilotstats, pilotstats.changepoints, pilotstats.regression
        import pilotstats.smoothing, pilotstats.analysis
        from pilotstats.changepoints import edm
        assert "matplotlib" not in sys.modules, "imported at package import"
        x = np.r_[np.zeros(30), np.ones(30)] + np.tile([0.0, 0.1], 30)
        result = edm(x, min_size=10)
        assert "matplotlib" not in sys.modules, "imported by the analysis"
        sys.modules["matplotlib"] = None  # as if it were not installed
        from pilotstats.exceptions import MissingDependencyError
        try:
            result.plot(x)
        except MissingDependencyError as exc:
            print(exc)
        else:
            raise SystemExit("no error")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert INSTALL_HINT in done.stdout and "matplotlib" in done.stdout


# ------------------------------------------------------------------ MDL trend groups


class TestTrendGroups:
    @staticmethod
    def _runs() -> list[list[float]]:
        rng = np.random.default_rng(4)
        means = np.r_[np.full(12, 12.5), np.full(10, 11.5), np.full(12, 12.8)]
        return [list(rng.normal(m, 0.1, 3)) for m in means]

    def test_steps_bands_and_labels(self) -> None:
        from pilotstats.changepoints import mdl_partition

        runs = self._runs()
        result = mdl_partition(runs)
        labels = [g.classification for g in result.groups]
        assert labels == ["normal", "regression", "progression"]
        ax = result.plot(runs, ylabel="throughput", unit="Mpps")
        _labelled(ax)
        assert ax.get_ylabel() == "throughput (Mpps)"
        assert "1 regression," in ax.get_title() and "1 progression " in ax.get_title()
        samples = ax.get_lines()[0]
        assert len(samples.get_xdata()) == 3 * len(runs)
        # per group: the interval of its mean (dark) and ±std (light)
        assert len(ax.collections) == 2 * len(result.groups)
        means = [c for c in ax.collections if "of the group mean" in str(c.get_label())]
        assert len(means) == 1  # labelled once
        from pilotstats._stats import two_sided_t

        last = result.groups[-1]
        half = two_sided_t(0.95, last.n_samples - 1) * last.std / np.sqrt(last.n_samples)
        tops = sorted(c.get_paths()[0].vertices[:, 1].max() for c in ax.collections)
        assert min(tops, key=lambda v: abs(v - (last.mean + half))) == pytest.approx(
            last.mean + half)
        assert ax.get_title().startswith(
            f"MDL trend: newest level {format_number(last.mean)} ± "
            f"{format_number(half, 2)} Mpps (progression); 3 groups")
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "95 % CI of the group mean" in legend and "group mean ± std" in legend
        dashed = _dashed(ax)
        assert [line.get_color() for line in dashed] == ["C3", "C2"]
        assert [line.get_xdata()[0] for line in dashed] == [11.5, 21.5]
        steps = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
        assert [line.get_ydata()[0] for line in steps] == pytest.approx(
            [g.mean for g in result.groups])

    def test_without_values_given_axes_and_mismatch(self) -> None:
        from pilotstats.changepoints import mdl_partition

        runs = self._runs()
        result = mdl_partition(runs)
        _, given = plt.subplots()
        ax = result.plot(ax=given, show_std=False, confidence_level=None)
        assert ax is given and not ax.collections
        assert len(result.plot(show_std=False).collections) == len(result.groups)
        assert ax.get_ylabel() == "value"
        with pytest.raises(InvalidInputError, match="n_runs = 34; got 33 runs"):
            result.plot(runs[:-1])
        single = mdl_partition([2.1, 3.1, 3.2], resolution=0.1)  # a group of one sample
        ax = single.plot([2.1, 3.1, 3.2])
        assert len(ax.collections) == 2  # no bands where the std is NaN


class TestHalfWidth:
    def test_gaps_without_an_interval_are_shaded_and_named(self) -> None:
        from pilotstats.autocorrelation import subsession_analysis
        from pilotstats.datasets import ferrari_response_times
        from pilotstats.plotting import plot_half_width

        x = ferrari_response_times()
        ax = plot_half_width(x, unit="s")
        (curve,) = ax.get_lines()
        sizes, widths = curve.get_xdata(), curve.get_ydata()
        assert list(sizes) == list(range(3, x.size + 1))
        missing = [int(k) for k, w in zip(sizes, widths, strict=True) if np.isnan(w)]
        assert 8 in missing and 48 not in missing
        assert len(ax.patches) == len(missing)  # one shaded span per prefix without interval
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == ["95 % CI half width",
                          "no interval: no subsession size brings |r1| <= 0.1"]
        full = subsession_analysis(x)
        assert widths[-1] == pytest.approx(full.half_width * 1e3)  # in ms
        assert ax.get_ylabel() == "half width of the interval of x[:k] (ms)"
        assert ax.get_title().startswith("half width at n = 48: ±145.8 ms (8.3 % of the mean")

    def test_long_series_and_bad_input(self) -> None:
        from pilotstats.plotting import plot_half_width

        rng = np.random.default_rng(1)
        ax = plot_half_width(rng.normal(10, 1, 5000), min_samples=10)
        sizes = ax.get_lines()[0].get_xdata()
        assert sizes.size <= 200 and sizes[0] == 10 and sizes[-1] == 5000
        widths = ax.get_lines()[0].get_ydata()
        assert len(ax.patches) == int(np.isnan(widths).sum()) < 5  # i.i.d.: hardly any gap
        assert "% of the mean, 95 % CI)" in ax.get_title()
        with pytest.raises(InvalidInputError, match="min_samples"):
            plot_half_width([1.0, 2.0, 3.0], min_samples=7)
        with pytest.raises(InvalidInputError):
            plot_half_width([1.0, np.nan, 3.0])
        short = plot_half_width([1.0, 2.0, 1.5, 2.5], min_samples=2)
        assert short.get_title().startswith("no interval at n = 4") or "±" in short.get_title()
        names = {t.get_text() for t in short.get_legend().get_texts()}
        assert names <= {"95 % CI half width", "no interval: fewer than 2 subsessions",
                         "no interval: no subsession size brings |r1| <= 0.1"}


class TestRendererRegistry:
    """``plot`` methods delegate to :func:`pilotstats.results.draw` and its registry."""

    def test_every_registered_name_is_a_result_type_of_its_package(self) -> None:
        import importlib

        from pilotstats.results import registered_renderers

        names = registered_renderers()
        assert len(names) >= 16
        for name in names:
            module, _, attribute = name.rpartition(".")
            found = getattr(importlib.import_module(module), attribute, None)
            assert isinstance(found, type), f"{name} is not a type any more"

    def test_every_result_with_a_plot_method_has_a_renderer(self) -> None:
        import importlib
        import inspect

        from pilotstats.results import registered_renderers

        registered = set(registered_renderers())
        for package in ("changepoints", "regression", "smoothing", "analysis", "io"):
            module = importlib.import_module(f"pilotstats.{package}")
            for name in module.__all__:
                obj = getattr(module, name)
                if inspect.isclass(obj) and callable(getattr(obj, "plot", None)):
                    bases = {f"pilotstats.{package}.{base.__name__}" for base in obj.__mro__}
                    assert bases & registered, f"pilotstats.{package}.{name} has no renderer"

    def test_draw_without_a_renderer_raises_a_named_error(self) -> None:
        from pilotstats.exceptions import PilotStatsError, RendererNotFoundError
        from pilotstats.results import draw

        with pytest.raises(RendererNotFoundError, match="no plot renderer") as caught:
            draw(object())
        assert isinstance(caught.value, PilotStatsError)

    def test_no_module_below_plotting_imports_it_or_matplotlib_at_import(self) -> None:
        import ast

        package = ROOT / "pilotstats"
        for path in package.rglob("*.py"):
            if path.parent.name == "plotting" or path == package / "__init__.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                else:
                    continue
                bad = [n for n in names if n.startswith("pilotstats.plotting")]
                assert not bad, f"{path.relative_to(ROOT)} imports {bad}"
            for node in tree.body:  # module level: no matplotlib
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    module = node.module if isinstance(node, ast.ImportFrom) else (
                        node.names[0].name)
                    assert not (module or "").startswith("matplotlib"), path


class TestStatisticsTheFiguresRead:
    """The plots draw statistics the results carry; these are the ones added for them."""

    def test_trend_group_mean_half_width_is_the_t_interval(self) -> None:
        from scipy import stats

        from pilotstats.changepoints import mdl_partition

        runs = [12.5, 12.4, 12.6, 12.5, 12.4, 12.0, 11.9, 12.0, 11.9, 12.1]
        group = mdl_partition(runs).groups[-1]
        expected = stats.t.ppf(0.975, group.n_samples - 1) * group.std / np.sqrt(
            group.n_samples)
        assert group.mean_half_width(0.95) == pytest.approx(expected, rel=1e-12)
        single = mdl_partition([1.0, 5.0], resolution=0.1).groups[-1]
        assert np.isnan(single.mean_half_width())

    def test_wps_mean_duration_interval_is_centred_on_the_line(self) -> None:
        rng = np.random.default_rng(0)
        w = rng.uniform(100, 1000, 60)
        fit = wps(w, 0.5 + w / 200.0 + rng.normal(0, 0.05, 60))
        grid = np.linspace(100.0, 1000.0, 7)
        low, high = fit.mean_duration_interval(grid)
        line = fit.alpha + fit.slope * grid
        np.testing.assert_allclose((low + high) / 2, line, rtol=1e-12)
        prediction = fit.predict(grid)
        assert np.all(high - low < np.asarray(prediction.high) - np.asarray(prediction.low))

    def test_benchmark_analysis_achieved_half_width_percent(self) -> None:
        from pilotstats.analysis import analyze
        from pilotstats.io import Measurements

        rng = np.random.default_rng(0)
        item = analyze(Measurements(rng.normal(1.0, 0.01, 100), benchmark="b"))["b"]
        assert item.achieved_half_width_percent == pytest.approx(
            50.0 * (item.ci_high - item.ci_low) / abs(item.mean))
