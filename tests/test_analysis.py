"""pilotstats.analysis: analyze, compare and trend on Measurements."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from pilotstats.analysis import (
    AnalysisReport,
    ComparisonReport,
    TrendReport,
    analyze,
    compare,
    trend,
)
from pilotstats.analysis._analyze import call_collecting_warnings
from pilotstats.autocorrelation import (
    compare_runs,
    required_runs,
    required_sample_size,
    subsession_analysis,
    two_level_analysis,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from pilotstats.io import Measurements, load

DATA = Path(__file__).parent / "data" / "harnesses"


def runs_measurements(mean: float, rel_noise: float, n_runs: int, per_run: int, seed: int,
                      name: str = "bench", warmups: int = 0) -> Measurements:
    """pyperf-like data: several runs (processes) of values, with optional slow warm-ups."""
    rng = np.random.default_rng(seed)
    values, runs, warm = [], [], []
    for run in range(n_runs):
        level = mean * (1 + rng.normal(0, rel_noise / 2))
        for i in range(warmups + per_run):
            slow = 1.5 if i < warmups else 1.0
            values.append(level * slow * (1 + rng.normal(0, rel_noise)))
            runs.append(run)
            warm.append(i < warmups)
    return Measurements.from_values(values, work=1000, run=runs, warmup=warm, benchmark=name)


class TestAnalyze:
    def test_matches_autocorrelation_pillar(self) -> None:
        # One run: the subsession analysis of that run (runs as units change nothing here).
        m = runs_measurements(2e-6, 0.02, 1, 120, seed=1, warmups=2)
        item = analyze(m, detect_warmup=False)["bench"]
        kept = m.without_warmups().time_per_work
        ref = subsession_analysis(kept)
        assert item.n == kept.size == 120 and item.n_runs == 1
        assert item.harness_warmups == 2
        assert item.mean == pytest.approx(ref.mean, rel=1e-15)
        assert (item.ci_low, item.ci_high) == pytest.approx((ref.ci_low, ref.ci_high), rel=1e-14)
        assert item.subsession_size == ref.subsession_size
        size = required_sample_size(kept, half_width_percent=1.0)
        assert item.samples == size.samples
        assert item.interval_units == "subsessions" and item.plan_runs is None
        assert any("run-to-run variance is unknown" in note for note in item.notes)
        low, high = item.confidence_interval(0.99)
        assert low < item.ci_low and high > item.ci_high

    def test_several_runs_use_the_runs_as_units(self) -> None:
        # Pyperf-like processes; the interval has the runs as its units.
        m = runs_measurements(2e-6, 0.02, 10, 12, seed=1, warmups=2)
        item = analyze(m, detect_warmup=False)["bench"]
        kept = [part.without_warmups().time_per_work for _, part in m.by_run()]
        ref = two_level_analysis(kept)
        assert item.n == 120 and item.harness_warmups == 20 and item.n_runs == 10
        assert item.mean == pytest.approx(ref.mean, rel=1e-15)
        assert (item.ci_low, item.ci_high) == pytest.approx((ref.ci_low, ref.ci_high), rel=1e-14)
        assert item.interval_units == "runs" and item.subsession_size is None
        assert item.run_values == pytest.approx(ref.unit_values, rel=1e-15)
        assert item.between_variance == pytest.approx(ref.between_variance, rel=1e-12)
        assert item.within_variance == pytest.approx(ref.within_variance, rel=1e-12)
        plan = required_runs(ref, half_width_percent=1.0)
        assert (item.plan_runs, item.plan_samples_per_run) == (plan.planned_runs,
                                                              plan.samples_per_run)
        assert item.additional_runs == max(0, plan.planned_runs - 10)
        assert item.warmup_removal == "none"
        assert item.between_run_std is not None and item.within_run_std is not None
        low, high = item.confidence_interval(0.99)
        assert low < item.ci_low and high > item.ci_high
        assert item.confidence_interval() == pytest.approx((item.ci_low, item.ci_high))
        assert "10 runs" in str(item) and "runs x" in str(analyze(m, detect_warmup=False))
        # the plan says how many more runs are needed than the files hold
        if item.additional_runs:
            assert any(f"{item.additional_runs} more run(s)" in n for n in item.notes)

    def test_half_width_percent_means_the_same_everywhere(self) -> None:
        m = runs_measurements(1.0, 0.01, 1, 400, seed=2)
        kept = m.time_per_work
        item = analyze(m, half_width_percent=0.5, detect_warmup=False)["bench"]
        assert item.samples == required_sample_size(kept, half_width_percent=0.5).samples

    def test_json_round_trip(self) -> None:
        report = analyze(load(DATA / "pyperf_suite.json"))
        text = json.dumps(report.to_dict(), allow_nan=False)
        again = AnalysisReport.from_dict(json.loads(text))
        assert again.to_dict() == report.to_dict()
        assert str(again) == str(report)

    def test_every_fixture_analyses(self) -> None:
        for name in ("pyperf_timeit.json", "pytest_benchmark.json", "asv_result.json",
                     "gbench.json", "hyperfine.json", "jmh.json"):
            report = analyze(load(DATA / name))
            assert len(report) >= 1
            text = str(report)
            assert "95 % CI" in text
            json.dumps(report.to_dict(), allow_nan=False)

    def test_short_series_reports_status(self) -> None:
        report = analyze(load(DATA / "gbench.json"))  # 4 repetitions: no q qualifies
        for item in report:
            assert item.status in ("ok", "no_subsession_size")
            if item.status != "ok":
                assert item.ci_low is None and item.samples is None
                assert any("collect more data" in note for note in item.notes)
        tiny = analyze(Measurements([1.0, 2.0], benchmark="x"))["x"]
        assert tiny.status == "not_enough_data" and tiny.mean is None

    def test_jmh_throughput_uses_harmonic_mean(self) -> None:
        m = load(DATA / "jmh.json")
        name = "org.example.ListBench.linkedList(size=100)"
        item = analyze(m)[name]
        ref = subsession_analysis(m[name].time_per_work, mean_method="harmonic")
        assert item.summary_statistic == "harmonic mean"
        assert item.mean == pytest.approx(ref.mean, rel=1e-15)
        score = json.loads((DATA / "jmh.json").read_text())[1]["primaryMetric"]["score"]
        assert item.mean == pytest.approx(1.0 / score, rel=1e-12)
        assert item.wps_throughput is None

    def test_wps_on_criterion_linear_samples(self) -> None:
        m = load(DATA / "criterion")
        item = analyze(m)["tiny/sum_squares_1000"]
        assert item.wps_throughput is not None and item.wps_throughput_ci_low is not None
        # slope of the linear schedule: ~1/612.5 ns per iteration (handwritten.py)
        assert 1.0 / item.wps_throughput == pytest.approx(612.5e-9, rel=0.02)
        assert item.wps_throughput_ci_low <= item.wps_throughput <= item.wps_throughput_ci_high

    def test_stable_phase_removes_a_long_warmup(self) -> None:
        rng = np.random.default_rng(5)
        values = np.concatenate([np.linspace(3.0, 1.2, 80), np.ones(400)])
        values = values * (1 + rng.normal(0, 0.01, values.size))
        item = analyze(Measurements(values, benchmark="w"))["w"]
        assert item.warmup_removal == "stable_phase"
        assert item.detected_warmup is not None and item.detected_warmup >= 40
        assert item.mean == pytest.approx(1.0, rel=0.01)

    def test_constant_data(self) -> None:
        item = analyze(Measurements(np.full(40, 2e-3), benchmark="c"))["c"]
        assert item.status == "ok" and item.mean == 2e-3
        assert item.ci_low == item.ci_high == 2e-3 and item.autocorrelation is None
        json.dumps(item.to_dict(), allow_nan=False)
        same = compare(Measurements(np.full(40, 2e-3), benchmark="c"),
                       Measurements(np.full(30, 2e-3), benchmark="c"),
                       assume_runs_equivalent=True)
        assert same["c"].verdict == "no significant change"
        runs = np.repeat([0, 1, 2, 3], 10)
        same = compare(Measurements(np.full(40, 2e-3), run=runs, benchmark="c"),
                       Measurements(np.full(40, 2e-3), run=runs, benchmark="c"))
        assert same["c"].verdict == "no significant change" and same["c"].ratio == 1.0

    def test_non_time_unit_pyperf(self) -> None:
        doc = {"version": "1.0", "metadata": {"name": "rss", "unit": "byte", "loops": 1},
               "benchmarks": [{"runs": [{"values": [1000.0 + i % 7 for i in range(60)]}]}]}
        item = analyze(load(doc))["rss"]
        assert item.unit == "byte" and "byte" in str(item)
        assert item.wps_throughput is None

    def test_validation(self) -> None:
        m = Measurements([1.0, 2.0, 3.0], benchmark="x")
        with pytest.raises(InvalidInputError, match="confidence_level"):
            analyze(m, confidence_level=1.5)
        with pytest.raises(InvalidInputError, match="half_width_percent"):
            analyze(m, half_width_percent=0)
        with pytest.raises(InvalidInputError, match="not in the measurements"):
            analyze(m, benchmarks=["y"])
        with pytest.raises(InvalidInputError, match="Measurements"):
            analyze([1.0, 2.0])  # type: ignore[arg-type]


class TestCompare:
    def test_five_percent_regression_detected(self) -> None:
        base = runs_measurements(1e-6, 0.01, 20, 10, seed=11)
        new = runs_measurements(1.05e-6, 0.01, 20, 10, seed=12)
        report = compare(base, new, detect_warmup=False)
        item = report["bench"]
        assert item.verdict == "regression" and report.has_regression
        assert item.relative_change == pytest.approx(0.05, abs=0.01)
        assert item.relative_ci_low is not None and item.relative_ci_low > 0

    def test_fieller_ratio_of_run_level_means(self) -> None:
        # The change is the ratio of run-level estimates (compare_runs), not a
        # Welch test on the subsessions of the concatenated runs.
        base = runs_measurements(1e-6, 0.01, 20, 10, seed=11)
        new = runs_measurements(1.01e-6, 0.01, 20, 10, seed=12)
        item = compare(base, new, detect_warmup=False)["bench"]
        ref = compare_runs([p.time_per_work for _, p in base.by_run()],
                           [p.time_per_work for _, p in new.by_run()])
        assert item.ratio == pytest.approx(ref.ratio, rel=1e-12)
        assert item.p_value == pytest.approx(ref.p_value, rel=1e-12)
        assert item.relative_change == pytest.approx(ref.ratio - 1, rel=1e-12)
        assert (item.relative_ci_low, item.relative_ci_high) == pytest.approx(
            (ref.ci_low - 1, ref.ci_high - 1), rel=1e-12)
        assert item.base_n_runs == item.new_n_runs == item.base_n_subsessions == 20
        assert item.difference == pytest.approx(ref.new.mean - ref.base.mean, rel=1e-12)
        assert item.ci_low is not None and item.ci_high is not None
        # the Welch interval of the difference agrees with the ratio interval on 0 / 1
        assert (item.ci_low > 0) == (ref.ci_low > 1) and (item.ci_high < 0) == (ref.ci_high < 1)
        assert item.base_between_variance == pytest.approx(ref.base.between_variance)

    def test_progression_noise_and_floor(self) -> None:
        base = runs_measurements(1e-6, 0.01, 20, 10, seed=21)
        faster = runs_measurements(0.95e-6, 0.01, 20, 10, seed=22)
        same = runs_measurements(1e-6, 0.01, 20, 10, seed=23)
        assert compare(base, faster, detect_warmup=False)["bench"].verdict == "progression"
        noise = compare(base, same, detect_warmup=False)
        assert noise["bench"].verdict == "no significant change" and not noise.has_regression
        slower = runs_measurements(1.05e-6, 0.01, 20, 10, seed=24)
        floor = compare(base, slower, detect_warmup=False, min_change_percent=10)
        assert floor["bench"].verdict == "no significant change"

    def test_names_matched_never_paired(self) -> None:
        a = Measurements.concat([runs_measurements(1.0, 0.01, 1, 60, 1, "x"),
                                 runs_measurements(1.0, 0.01, 1, 60, 2, "only_a")])
        b = Measurements.concat([runs_measurements(1.0, 0.01, 1, 90, 3, "x"),
                                 runs_measurements(1.0, 0.01, 1, 60, 4, "only_b")])
        report = compare(a, b, detect_warmup=False)
        assert [c.name for c in report] == ["x"]
        assert report.only_in_base == ("only_a",) and report.only_in_new == ("only_b",)
        assert report["x"].base_n == 60 and report["x"].new_n == 90  # unequal sizes are fine

    def test_reports_accepted_and_json_round_trip(self) -> None:
        base = analyze(runs_measurements(1e-6, 0.01, 20, 10, seed=31), detect_warmup=False)
        new = analyze(runs_measurements(1.05e-6, 0.01, 20, 10, seed=32), detect_warmup=False)
        report = compare(base, new)
        text = json.dumps(report.to_dict(), allow_nan=False)
        again = ComparisonReport.from_dict(json.loads(text))
        assert again.to_dict() == report.to_dict() and again.has_regression
        assert "regression" in str(report) and "95 % CI" in str(report)

    def test_not_analysable(self) -> None:
        short = Measurements([1.0], benchmark="x")  # one sample: not even 2 blocks
        report = compare(short, short, assume_runs_equivalent=True)
        assert report["x"].verdict == "not analysable" and not report.has_regression
        assert compare(short, short)["x"].verdict == "inconclusive"
        with pytest.raises(InvalidInputError):
            compare([1.0], short)  # type: ignore[arg-type]


class TestTrend:
    def test_step_is_a_regression(self) -> None:
        rng = np.random.default_rng(7)
        files = [Measurements(1.0 + rng.normal(0, 0.005, 60), benchmark="b") for _ in range(6)]
        files += [Measurements(1.2 + rng.normal(0, 0.005, 60), benchmark="b") for _ in range(6)]
        report = trend(files, labels=[f"r{i}" for i in range(12)])
        segments = report["b"].segments
        assert [(s.start, s.end) for s in segments] == [(0, 6), (6, 12)]
        assert report.regressions == ("b",)
        again = TrendReport.from_dict(json.loads(json.dumps(report.to_dict(), allow_nan=False)))
        assert again.to_dict() == report.to_dict()

    def test_means_are_per_file_estimates(self) -> None:
        files = [load(DATA / "pyperf_suite.json"), load(DATA / "pyperf_suite.json.gz")]
        report = trend(files)
        first = analyze(files[0])
        for item in report:
            assert item.means[0] == pytest.approx(first[item.name].mean)
            assert len(item.segments) == 1

    def test_needs_two(self) -> None:
        with pytest.raises(NotEnoughDataError):
            trend([Measurements([1.0, 2.0, 3.0])])


def test_call_collecting_warnings() -> None:
    result, caught = call_collecting_warnings(lambda: math.sqrt(4.0))
    assert result == 2.0 and caught == []

    def noisy() -> int:
        warnings.warn("careful", UserWarning, stacklevel=2)
        return 1

    result, caught = call_collecting_warnings(noisy)
    assert result == 1 and caught == ["UserWarning: careful"]


def test_otava_csv_export(tmp_path: Path) -> None:
    from pilotstats.analysis import to_otava_csv
    from pilotstats.io import load_csv

    rng = np.random.default_rng(8)
    reports = [analyze(Measurements(rng.normal(level, 0.01, 60), benchmark="b"),
                       detect_warmup=False) for level in (1.0, 1.0, 1.2)]
    reports[1] = analyze(Measurements.concat([
        Measurements(rng.normal(1.0, 0.01, 60), benchmark="b"),
        Measurements(rng.normal(5.0, 0.01, 60), benchmark="c")]), detect_warmup=False)
    path = tmp_path / "otava.csv"
    text = to_otava_csv(reports, path, times=["t0", "t1", "t2"],
                        attributes={"commit": ["a", "b", "c"]})
    assert path.read_text() == text
    lines = text.splitlines()
    assert lines[0] == "time,commit,b,b.ci_low,b.ci_high,b.n,c,c.ci_low,c.ci_high,c.n"
    assert lines[1].endswith(",,,,")  # no benchmark c in the first report
    # the CSV reads back with pilotstats' own loader; the means are exact
    back = load_csv(path, elapsed_column="b")
    assert back.elapsed.tolist() == [r["b"].mean for r in reports]
    with pytest.raises(InvalidInputError, match="times"):
        to_otava_csv(reports, times=["t0"])
