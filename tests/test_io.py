"""Loaders of pilotstats.io on real harness output (tests/data/harnesses, see PROVENANCE.md).

Every expected value is recomputed here from the file itself with plain ``json``, so the tests
do not depend on the timings of the run that produced the fixtures.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import math
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from pilotstats.exceptions import FormatError, FormatWarning, InvalidInputError
from pilotstats.io import (
    Measurements,
    detect_format,
    load,
    load_asv,
    load_criterion,
    load_csv,
    load_google_benchmark,
    load_hyperfine,
    load_jmh,
    load_pilot_baseline,
    load_pyperf,
    load_pytest_benchmark,
)

DATA = Path(__file__).parent / "data" / "harnesses"


def raw(name: str) -> object:
    return json.loads((DATA / name).read_text())


# ------------------------------------------------------------------------------------------
# Measurements container


class TestMeasurements:
    def test_defaults_and_order(self) -> None:
        m = Measurements([1.0, 2.0, 3.0, 4.0], run=[0, 0, 1, 1], benchmark="x")
        assert m.order.tolist() == [0, 1, 0, 1]
        assert m.work.tolist() == [1.0] * 4
        assert not m.warmup.any()
        assert m.runs == (0, 1)
        assert [r for r, _ in m.by_run()] == [0, 1]

    def test_scalar_name_not_truncated(self) -> None:
        assert Measurements([1.0, 2.0], benchmark="a long name").names == ("a long name",)

    def test_arrays_are_read_only_copies(self) -> None:
        data = np.array([1.0, 2.0])
        m = Measurements(data)
        data[0] = 99.0
        assert m.elapsed[0] == 1.0
        with pytest.raises(ValueError):
            m.elapsed[0] = 5.0

    def test_iteration_and_selection(self) -> None:
        m = Measurements([1, 2, 3], benchmark=["a", "b", "a"],
                         metadata={"a": {"unit": "s"}, "b": {"k": 1}})
        assert len(m) == 2
        assert [part.names for part in m] == [("a",), ("b",)]
        assert m["a"].elapsed.tolist() == [1.0, 3.0]
        assert m["b"].metadata == {"b": {"k": 1}}
        assert "a" in m and "zz" not in m
        with pytest.raises(KeyError, match="available"):
            m["zz"]

    def test_validation(self) -> None:
        with pytest.raises(InvalidInputError, match="work"):
            Measurements([1.0, 2.0], work=[1.0, 0.0])
        with pytest.raises(InvalidInputError, match="NaN"):
            Measurements([1.0, math.nan])
        with pytest.raises(InvalidInputError, match="negative"):
            Measurements([1.0, -1.0])
        with pytest.raises(InvalidInputError, match="entries"):
            Measurements([1.0, 2.0], run=[0])

    def test_to_frame_and_dict(self) -> None:
        m = Measurements.from_values([2.0, 4.0], work=[1, 2], benchmark="b", warmup=[True, False])
        frame = m.to_frame()
        assert frame["elapsed"].tolist() == [2.0, 8.0]
        assert frame["warmup"].tolist() == [True, False]
        assert json.loads(json.dumps(m.to_dict(), allow_nan=False))["work"] == [1.0, 2.0]
        assert m.without_warmups().n_samples == 1

    def test_concat(self) -> None:
        a = Measurements([1.0], benchmark="a", metadata={"a": {"x": 1}})
        b = Measurements([2.0, 3.0], benchmark="b")
        c = Measurements.concat([a, b])
        assert c.names == ("a", "b") and c.n_samples == 3 and c.metadata["a"] == {"x": 1}


# ------------------------------------------------------------------------------------------
# source handling


class TestSources:
    def test_path_gzip_file_string_bytes_object(self) -> None:
        path = DATA / "pyperf_suite.json"
        reference = load_pyperf(path)
        text = path.read_text()
        variants = [
            str(path),
            DATA / "pyperf_suite.json.gz",
            io.StringIO(text),
            io.BytesIO(text.encode()),
            text,
            text.encode(),
            gzip.compress(text.encode()),
            json.loads(text),
        ]
        for variant in variants:
            m = load_pyperf(variant)
            np.testing.assert_array_equal(m.elapsed, reference.elapsed)
            assert m.names == reference.names

    def test_input_object_not_modified(self) -> None:
        document = raw("pyperf_suite.json")
        before = json.dumps(document, sort_keys=True)
        load_pyperf(document)
        assert json.dumps(document, sort_keys=True) == before

    def test_missing_file_and_bad_json(self, tmp_path: Path) -> None:
        with pytest.raises(FormatError, match="no such JSON file") as info:
            load_pyperf(tmp_path / "absent.json")
        assert info.value.source == str(tmp_path / "absent.json")
        bad = tmp_path / "bad.json"
        bad.write_text("{not json")
        with pytest.raises(FormatError, match=r"bad\.json: not valid JSON"):
            load_hyperfine(bad)
        with pytest.raises(FormatError, match="cannot read JSON"):
            load_hyperfine(42)

    def test_format_error_is_value_error(self) -> None:
        with pytest.raises(ValueError):
            load_hyperfine({"results": [{"command": "x"}]})


# ------------------------------------------------------------------------------------------
# pyperf (real pyperf 2.10.0 output)


class TestPyperf:
    def test_timeit_file_matches_json(self) -> None:
        document = raw("pyperf_timeit.json")
        m = load_pyperf(DATA / "pyperf_timeit.json")
        assert m.names == ("timeit",)
        loops = document["metadata"]["loops"]
        runs = document["benchmarks"][0]["runs"]
        value_runs = [i for i, r in enumerate(runs) if "values" in r]
        assert m.runs == tuple(value_runs)  # calibration run skipped, run ids = file indices
        for run_id in value_runs:
            part = m.select(m.run == run_id)
            expected_values = runs[run_id]["values"]
            expected_warm = runs[run_id]["warmups"]
            assert part.warmup.tolist() == [True] * len(expected_warm) + [False] * len(
                expected_values)
            assert part.order.tolist() == list(range(len(expected_warm) + len(expected_values)))
            np.testing.assert_allclose(part.time_per_work[~part.warmup], expected_values,
                                       rtol=1e-15)
            np.testing.assert_allclose(part.elapsed[~part.warmup],
                                       np.array(expected_values) * loops, rtol=1e-15)
            np.testing.assert_allclose(part.work[part.warmup], [w[0] for w in expected_warm])
            np.testing.assert_allclose(part.time_per_work[part.warmup],
                                       [w[1] for w in expected_warm], rtol=1e-15)
        meta = m.metadata["timeit"]
        assert meta["unit"] == "s" and meta["format"] == "pyperf"
        assert meta["python_implementation"] == "cpython"  # suite metadata merged in

    def test_calibration_and_warmup_options(self) -> None:
        document = raw("pyperf_timeit.json")
        runs = document["benchmarks"][0]["runs"]
        n_values = sum(len(r.get("values", [])) for r in runs)
        n_warm = sum(len(r["warmups"]) for r in runs)
        assert load_pyperf(document, include_warmups=False).n_samples == n_values
        full = load_pyperf(document, include_calibration=True)
        assert full.n_samples == n_values + n_warm
        calibration = full.select(full.run == 0)
        assert calibration.warmup.all()
        # calibration loops double: the work is not constant
        assert len(set(calibration.work.tolist())) > 3

    def test_suite_two_benchmarks_and_selection(self) -> None:
        m = load_pyperf(DATA / "pyperf_suite.json")
        assert m.names == ("sum_range_100", "sorted_list_50")
        one = load_pyperf(DATA / "pyperf_suite.json", benchmark="sorted_list_50")
        assert one.names == ("sorted_list_50",)
        assert one.metadata["sorted_list_50"]["loops"] == raw("pyperf_suite.json")[
            "benchmarks"][1]["metadata"]["loops"]
        with pytest.raises(FormatError, match="not found"):
            load_pyperf(DATA / "pyperf_suite.json", benchmark="nope")

    def test_old_format_6_raw_warmups(self) -> None:
        doc = {"version": 6, "metadata": {"name": "b", "loops": 4},
               "benchmarks": [{"runs": [{"values": [1.0], "warmups": [[4, 8.0]]}]}]}
        m = load_pyperf(doc)
        assert m.elapsed.tolist() == [8.0, 4.0]  # format 6 warm-ups are raw totals
        doc5 = {"version": 5, "metadata": {"name": "b", "loops": 2},
                "benchmarks": [{"runs": [{"samples": [1.0, 2.0]}]}]}
        assert load_pyperf(doc5).elapsed.tolist() == [2.0, 4.0]

    @pytest.mark.parametrize(
        ("mutate", "field"),
        [
            (lambda d: d.__setitem__("version", "9.9"), "'version'"),
            (lambda d: d["benchmarks"][0]["runs"][1]["values"].__setitem__(2, -1.0),
             r"benchmarks\[0\]\.runs\[1\]\.values\[2\]"),
            (lambda d: d["benchmarks"][0]["runs"][1]["values"].__setitem__(0, "x"),
             r"benchmarks\[0\]\.runs\[1\]\.values\[0\]"),
            (lambda d: d["benchmarks"][0]["runs"][2]["warmups"].__setitem__(0, [1]),
             r"benchmarks\[0\]\.runs\[2\]\.warmups\[0\]"),
            (lambda d: d["metadata"].pop("name"), r"benchmarks\[0\]\.metadata\.name"),
            (lambda d: d["metadata"].pop("loops"), r"runs\[1\]\.metadata\.loops"),
            (lambda d: d.pop("benchmarks"), "'benchmarks'"),
        ],
    )
    def test_malformed_names_the_field(self, mutate, field) -> None:  # type: ignore[no-untyped-def]
        document = raw("pyperf_timeit.json")
        mutate(document)
        with pytest.raises(FormatError, match=field):
            load_pyperf(document)


# ------------------------------------------------------------------------------------------
# pytest-benchmark (real 5.2.3 output)


class TestPytestBenchmark:
    def test_matches_json(self) -> None:
        document = raw("pytest_benchmark.json")
        m = load_pytest_benchmark(DATA / "pytest_benchmark.json")
        assert m.names == tuple(b["fullname"] for b in document["benchmarks"])
        for bench in document["benchmarks"]:
            part = m[bench["fullname"]]
            iterations = bench["stats"]["iterations"]
            assert part.work.tolist() == [iterations] * len(bench["stats"]["data"])
            np.testing.assert_allclose(part.time_per_work, bench["stats"]["data"], rtol=1e-15)
            assert part.runs == (0,)
            # the file's own mean agrees with ours
            assert math.isclose(float(np.mean(part.time_per_work)), bench["stats"]["mean"],
                                rel_tol=1e-9)
            assert part.metadata[bench["fullname"]]["machine_info"]["python_implementation"]

    def test_select_by_short_name_and_group(self) -> None:
        m = load_pytest_benchmark(DATA / "pytest_benchmark.json", name="test_fib_10")
        assert m.names == ("test_tiny_bench.py::test_fib_10",)
        with pytest.raises(FormatError, match="not found"):
            load_pytest_benchmark(DATA / "pytest_benchmark.json", name="nope")

    def test_saved_without_data_names_the_flag(self) -> None:
        with pytest.raises(FormatError, match="--benchmark-save-data") as info:
            load_pytest_benchmark(DATA / "pytest_benchmark_saved_nodata.json")
        assert info.value.field == "benchmarks[0].stats.data"

    def test_fixture_object_duck_typing(self) -> None:
        class Stats:
            data = (1e-6, 2e-6)

        class Meta:
            stats = Stats()
            iterations = 5
            name = "t"
            fullname = "f.py::t"
            group = None

        class Fixture:
            stats = Meta()
            name = "t"
            fullname = "f.py::t"

        m = load_pytest_benchmark(Fixture())
        np.testing.assert_allclose(m.elapsed, [5e-6, 1e-5])
        assert m.names == ("f.py::t",)


# ------------------------------------------------------------------------------------------
# asv (real asv 0.6.6 output)


class TestAsv:
    def test_matches_json_with_cartesian_params(self) -> None:
        document = raw("asv_result.json")
        columns = document["result_columns"]
        m = load_asv(DATA / "asv_result.json", benchmarks_json=DATA / "asv_benchmarks.json")
        expected_names = []
        for name, row in document["results"].items():
            cells = dict(zip(columns, row + [None] * (len(columns) - len(row)), strict=True))
            combos = list(itertools.product(*cells["params"])) or [()]
            for k, combo in enumerate(combos):
                full = f"{name}({', '.join(combo)})" if combo else name
                expected_names.append(full)
                part = m[full]
                np.testing.assert_allclose(part.time_per_work, cells["samples"][k], rtol=1e-15)
                assert part.work.tolist() == [cells["stats_number"][k]] * len(
                    cells["samples"][k])
                meta = part.metadata[full]
                assert meta["result"] == cells["result"][k]
                if combo:
                    assert meta["params"] == {"n": combo[0]}
        assert list(m.names) == expected_names

    def test_without_samples(self) -> None:
        document = raw("asv_result.json")
        columns = document["result_columns"]
        cut = columns.index("samples")
        document["results"] = {k: v[:cut] for k, v in document["results"].items()}
        with pytest.raises(FormatError, match="--record-samples"):
            load_asv(document)

    def test_bad_version_and_row(self) -> None:
        document = raw("asv_result.json")
        document["version"] = 1
        with pytest.raises(FormatError, match="version"):
            load_asv(document)
        document = raw("asv_result.json")
        name = next(iter(document["results"]))
        document["results"][name][document["result_columns"].index("samples")][0][1] = "x"
        with pytest.raises(FormatError, match=r"samples\[0\]\[1\]"):
            load_asv(document)


# ------------------------------------------------------------------------------------------
# Google Benchmark (real 1.7.1 output)


class TestGoogleBenchmark:
    def test_repetitions_matches_json(self) -> None:
        document = raw("gbench.json")
        m = load_google_benchmark(DATA / "gbench.json")
        rows = [r for r in document["benchmarks"] if r["run_type"] == "iteration"]
        assert m.n_samples == len(rows)
        assert sum(r["run_type"] == "aggregate" for r in document["benchmarks"]) > 0
        for row in rows:
            part = m[row["run_name"]]
            sample = part.select(part.run == row["repetition_index"])
            assert sample.n_samples == 1
            assert math.isclose(sample.elapsed[0], row["real_time"] * 1e-9 * row["iterations"],
                                rel_tol=1e-12)
            assert sample.work[0] == row["iterations"]
        with pytest.raises(InvalidInputError, match="clock"):
            load_google_benchmark(DATA / "gbench.json", clock="wall")  # type: ignore[arg-type]
        cpu = load_google_benchmark(DATA / "gbench.json", clock="cpu")
        assert math.isclose(cpu.time_per_work[0], rows[0]["cpu_time"] * 1e-9, rel_tol=1e-12)

    def test_aggregates_only_is_refused(self) -> None:
        with pytest.raises(FormatError, match="aggregates_only"):
            load_google_benchmark(DATA / "gbench_aggregates_only.json")

    def test_errored_rows_warn(self) -> None:
        document = raw("gbench.json")
        document["benchmarks"][0]["error_occurred"] = True
        with pytest.warns(FormatWarning, match="errored"):
            m = load_google_benchmark(document)
        assert m.n_samples == sum(r["run_type"] == "iteration"
                                  for r in document["benchmarks"]) - 1

    def test_units(self) -> None:
        document = raw("gbench.json")
        for row in document["benchmarks"]:
            row["time_unit"] = "ms"
        m = load_google_benchmark(document)
        first = next(r for r in document["benchmarks"] if r["run_type"] == "iteration")
        assert math.isclose(m.time_per_work[0], first["real_time"] * 1e-3, rel_tol=1e-12)
        document["benchmarks"][0]["time_unit"] = "fortnight"
        with pytest.raises(FormatError, match=r"benchmarks\[0\]\.time_unit"):
            load_google_benchmark(document)


# ------------------------------------------------------------------------------------------
# hyperfine (real 1.15.0 output)


class TestHyperfine:
    def test_matches_json(self) -> None:
        document = raw("hyperfine.json")
        m = load_hyperfine(DATA / "hyperfine.json")
        for result in document["results"]:
            part = m[result["command"]]
            assert part.elapsed.tolist() == result["times"]
            assert math.isclose(float(np.mean(part.elapsed)), result["mean"], rel_tol=1e-9)
            assert part.metadata[result["command"]]["exit_codes"] == result["exit_codes"]

    def test_same_command_twice_kept_apart(self) -> None:
        document = raw("hyperfine.json")
        document["results"][1]["command"] = document["results"][0]["command"]
        m = load_hyperfine(document)
        first = document["results"][0]["command"]
        assert m.names == (first, f"{first} (#2)")
        assert m[f"{first} (#2)"].elapsed.tolist() == document["results"][1]["times"]

    def test_parameter_scan(self) -> None:
        m = load_hyperfine(DATA / "hyperfine_scan.json")
        assert [m.metadata[n]["parameters"] for n in m.names] == [{"ms": "1"}, {"ms": "2"}]

    def test_failed_exit_codes_warn(self) -> None:
        document = raw("hyperfine.json")
        document["results"][0]["exit_codes"][0] = 1
        with pytest.warns(FormatWarning, match="exit codes"):
            load_hyperfine(document)
        document["results"][0]["times"] = document["results"][0]["times"][:-1]
        with pytest.raises(FormatError, match=r"results\[0\]\.exit_codes"):
            load_hyperfine(document)


# ------------------------------------------------------------------------------------------
# JMH and criterion (documented-format files, not tool output: see PROVENANCE.md)


class TestJmh:
    def test_forks_and_units(self) -> None:
        document = raw("jmh.json")
        m = load_jmh(DATA / "jmh.json")
        avgt = m["org.example.ListBench.arrayList(size=100)"]
        raw_avgt = document[0]["primaryMetric"]["rawData"]
        assert avgt.runs == (0, 1, 2)
        np.testing.assert_allclose(avgt.elapsed, np.concatenate(raw_avgt) * 1e-9, rtol=1e-15)
        # pooled mean = JMH's score
        assert math.isclose(float(np.mean(avgt.elapsed)) * 1e9,
                            document[0]["primaryMetric"]["score"], rel_tol=1e-12)

    def test_throughput_is_reciprocal_of_mean_throughput(self) -> None:
        document = raw("jmh.json")
        m = load_jmh(DATA / "jmh.json", benchmark="org.example.ListBench.linkedList")
        name = m.names[0]
        assert m.metadata[name]["mean_method"] == "harmonic"
        assert np.all(m.elapsed == 10.0)  # measurementTime "10 s"
        score = document[1]["primaryMetric"]["score"]
        harmonic = m.n_samples / float(np.sum(1.0 / m.time_per_work))
        assert math.isclose(harmonic, 1.0 / score, rel_tol=1e-12)

    def test_errors(self) -> None:
        document = raw("jmh.json")
        del document[0]["primaryMetric"]["rawData"]
        with pytest.raises(FormatError, match="rawData"):
            load_jmh(document)
        document = raw("jmh.json")
        document[0]["primaryMetric"]["rawData"][1][2] = "NaN"
        with pytest.raises(FormatError, match=r"\[0\]\.primaryMetric\.rawData\[1\]\[2\]"):
            load_jmh(document)
        document = raw("jmh.json")
        document[0]["primaryMetric"]["scoreUnit"] = "B/op"
        with pytest.raises(FormatError, match="scoreUnit"):
            load_jmh(document)
        with pytest.raises(FormatError, match="JSON array"):
            load_jmh({"benchmark": "x"})

    def test_sample_mode_histogram(self) -> None:
        doc = [{"benchmark": "p.C.m", "mode": "sample", "primaryMetric": {
            "score": 1.0, "scoreUnit": "us/op",
            "rawDataHistogram": [[[[1.0, 2], [3.0, 1]]], [[[2.0, 1]]]]}}]
        m = load_jmh(doc)
        np.testing.assert_allclose(m.elapsed, [1e-6, 1e-6, 3e-6, 2e-6])
        assert m.run.tolist() == [0, 0, 0, 1]


class TestCriterion:
    def test_folder_and_file(self) -> None:
        sample = DATA / "criterion" / "tiny" / "sum_squares_1000" / "new" / "sample.json"
        document = json.loads(sample.read_text())
        for source in (DATA / "criterion", DATA / "criterion" / "tiny" / "sum_squares_1000",
                       sample):
            m = load_criterion(source)
            assert m.names == ("tiny/sum_squares_1000",)
            np.testing.assert_allclose(m.elapsed, np.array(document["times"]) * 1e-9,
                                       rtol=1e-15)
            assert m.work.tolist() == document["iters"]
        assert load(sample).names == ("tiny/sum_squares_1000",)

    def test_errors(self) -> None:
        with pytest.raises(FormatError, match="'times'"):
            load_criterion({"sampling_mode": "Linear", "iters": [1.0, 2.0], "times": [1.0]})
        with pytest.raises(FormatError, match="sampling_mode"):
            load_criterion({"sampling_mode": "Odd", "iters": [1.0], "times": [1.0]})


# ------------------------------------------------------------------------------------------
# CSV and Pilot baseline


class TestCsv:
    def test_columns(self) -> None:
        text = "name,run,warm,ns,loops\na,0,1,500,10\na,0,0,400,10\na,1,0,410,10\nb,0,0,9,1\n"
        m = load_csv(text, value_column="ns", work_column="loops", benchmark_column="name",
                     run_column="run", warmup_column="warm", time_unit="ns")
        a = m["a"]
        np.testing.assert_allclose(a.elapsed, [5e-6, 4e-6, 4.1e-6])
        assert a.warmup.tolist() == [True, False, False]
        assert a.run.tolist() == [0, 0, 1]
        assert m["b"].n_samples == 1

    def test_elapsed_column_and_errors(self, tmp_path: Path) -> None:
        path = tmp_path / "s.csv"
        path.write_text("t\n1.5\n2.5\n")
        assert load_csv(path, elapsed_column="t").elapsed.tolist() == [1.5, 2.5]
        with pytest.raises(FormatError, match="column not found"):
            load_csv(path, elapsed_column="time")
        path.write_text("t\n1.5\nabc\n")
        with pytest.raises(FormatError, match="row 3, column t"):
            load_csv(path, elapsed_column="t")
        with pytest.raises(InvalidInputError, match="exactly one"):
            load_csv(path)
        with pytest.raises(InvalidInputError, match="time_unit"):
            load_csv(path, elapsed_column="t", time_unit="fortnight")


class CheckPilotBaseline:
    """Pinned records: shared/specs/autocorrelation.md §11 V7 (Pilot v0.14,
    lib/test/unit_test_compare_results.cc)."""

    readings: ClassVar[dict[int, tuple[int, float, float]]] = {
        0: (42, 666.66, 42.42), 3: (43, 666.66, 42.42), 4: (44, 666.66, 42.42)}
    unit_readings: ClassVar[dict[int, tuple[int, float, float]]] = {
        0: (12116, 0.00141797, 1.13e-6), 1: (12117, 0.00141797, 1.13e-6),
        2: (12118, 0.00141796, 1.13e-6)}
    source: object

    def test_indices(self) -> None:
        baseline = load_pilot_baseline(self.source)
        assert [r.piid for r in baseline.records] == [0, 1, 2, 3, 4]

    def test_readings(self) -> None:
        baseline = load_pilot_baseline(self.source)
        for piid in range(5):
            got = baseline[piid].readings
            if piid in self.readings:
                assert got is not None
                assert (got.n, got.mean, got.variance) == self.readings[piid]
            else:
                assert got is None

    def test_unit_readings(self) -> None:
        baseline = load_pilot_baseline(self.source)
        for piid in range(5):
            got = baseline[piid].unit_readings
            if piid in self.unit_readings:
                assert got is not None
                assert (got.n, got.mean, got.variance) == self.unit_readings[piid]
                assert got.optimal_subsession_size == 1
                assert got.half_width == 3.79e-05 / 2  # Pilot's ci_width column: full width
            else:
                assert got is None
        json.dumps(baseline.to_dict(), allow_nan=False)


class TestPilotBaselineFile(CheckPilotBaseline):
    source = DATA / "pilot_baseline.csv"


class TestPilotBaselineReorderedColumns(CheckPilotBaseline):
    """Columns are matched by name, not position."""

    @property
    def source(self) -> str:  # type: ignore[override]
        lines = (DATA / "pilot_baseline.csv").read_text().splitlines()
        rows = [line.split(",") for line in lines]
        order = list(reversed(range(len(rows[0]))))
        return "\n".join(",".join(row[i] for i in order) for row in rows) + "\n"


def test_pilot_baseline_errors() -> None:
    with pytest.raises(FormatError, match="piid"):
        load_pilot_baseline("a,b\n1,2\n")
    with pytest.raises(FormatError, match="readings_mean/readings_var"):
        load_pilot_baseline("piid,readings_num,readings_mean,readings_var\n0,3,,1\n")


# ------------------------------------------------------------------------------------------
# detection


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("pyperf_timeit.json", "pyperf"),
        ("pytest_benchmark.json", "pytest-benchmark"),
        ("asv_result.json", "asv"),
        ("gbench.json", "google-benchmark"),
        ("hyperfine.json", "hyperfine"),
        ("jmh.json", "jmh"),
    ],
)
def test_detect_and_load(file: str, expected: str) -> None:
    assert detect_format(raw(file)) == expected
    m = load(DATA / file)
    assert m.n_samples > 0
    assert all(meta["format"] == expected for meta in m.metadata.values())
    assert all(meta["source"] == str(DATA / file) for meta in m.metadata.values())


def test_load_unknown() -> None:
    with pytest.raises(FormatError, match="not a recognised"):
        load({"a": 1})
    with pytest.raises(FormatError, match="unknown format"):
        load({"a": 1}, format="nope")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"run": [0, math.nan]}, "run"),
        ({"warmup": [0, math.nan]}, "warmup"),
        ({"warmup": ["yes", "no"]}, "warmup"),
        ({"order": [0, 1.5]}, "order"),
        ({"work": -1.0}, "work"),
        ({"work": [1.0, -2.0]}, "work must be strictly positive"),
        ({"benchmark": 3}, "benchmark"),
    ],
)
def test_measurements_validates_columns(kwargs: dict[str, object], message: str) -> None:
    from pilotstats.io import Measurements

    with pytest.raises(InvalidInputError, match=message):
        Measurements([1.0, 2.0], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "elapsed",
    [
        [1 + 1j, 2.0],
        [[1.0, 2.0], [3.0, 4.0]],
        ["1.0", "2.0"],
        np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
        {0: 1.0, 1: 2.0},
        [10**400, 1.0],
    ],
    ids=["complex", "2-D", "numeric strings", "datetime64", "dict", "400 digits"],
)
def test_measurements_rejects_what_it_used_to_coerce(elapsed: object) -> None:
    from pilotstats.io import Measurements

    with pytest.raises(InvalidInputError, match="elapsed"):
        Measurements(elapsed)


def test_measurements_negative_work_names_work_not_elapsed() -> None:
    from pilotstats.io import Measurements

    with pytest.raises(InvalidInputError, match="work") as info:
        Measurements.from_values([1.0, 2.0], work=-3)
    assert "elapsed" not in str(info.value)
