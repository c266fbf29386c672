"""Loaders on real harness output made with the real tools (tests/data/real_harness).

The fixtures were made by ``tests/data/real_harness/make_fixtures.sh`` (see the README
there): per tool, ``base/`` (base code), ``rerun/`` (the identical code run again) and
``slow/`` (+30 % work), several files each. These tests check the replicate structure the
loaders build (``Measurements.run``), that the clock / time keywords pick the right JSON
fields (compared with values read by the json module), and that run ids stay distinct when
several files are loaded together. They do not depend on the timings themselves.
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pilotstats.exceptions import FormatError, FormatWarning, InvalidInputError
from pilotstats.io import (
    Measurements,
    detect_format,
    load,
    load_asv,
    load_google_benchmark,
    load_hyperfine,
    load_many,
    load_pyperf,
    load_pytest_benchmark,
)

ROOT = Path(__file__).parent / "data" / "real_harness"
SESSIONS = ("session1", "session2")
VARIANTS = ("base", "rerun", "slow")
TOOLS = {  # folder: (format, files per variant, benchmark name)
    "pyperf": ("pyperf", 3, "sum_squares"),
    "pytest_benchmark": ("pytest-benchmark", 6, "test_workload.py::test_sum_squares"),
    "hyperfine": ("hyperfine", 4, "./spin"),
    "google_benchmark": ("google-benchmark", 4, "BM_sum_squares"),
    "asv": ("asv", 3, "bench.SumSquares.time_sum_squares"),
}


def files(tool: str, variant: str, session: str = "session1") -> list[Path]:
    """The numbered result files (pytest-benchmark's are gzipped: ``1.json.gz``)."""
    return sorted((ROOT / session / tool / variant).glob("[0-9]*.json*"),
                  key=lambda p: int(p.name.split(".")[0]))


def raw(path: Path) -> Any:
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)


def all_files(tool: str) -> list[Path]:
    return [path for session in SESSIONS for variant in VARIANTS
            for path in files(tool, variant, session)]


def ids(tool: str) -> list[str]:
    return ["/".join(path.parts[-3:]) for path in all_files(tool)]


# ------------------------------------------------------------------------------------------
# layout


@pytest.mark.parametrize("session", SESSIONS)
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_layout_and_detection(tool: str, session: str) -> None:
    fmt, count, name = TOOLS[tool]
    for variant in VARIANTS:
        paths = files(tool, variant, session)
        assert len(paths) == count, (tool, variant)
        for path in paths:
            assert detect_format(raw(path)) == fmt
            m = load(path)
            assert name in m.names
            assert m.metadata[name]["format"] == fmt
    assert (ROOT / "README.md").is_file()
    assert (ROOT / "make_fixtures.sh").is_file()
    assert (ROOT / session / "VERSIONS.txt").is_file()
    log = ROOT / session / "files.tsv"
    if log.is_file():  # session2 onwards: one row per file made
        rows = [line.split("\t") for line in log.read_text().splitlines()[1:]]
        tool_name = {"pytest_benchmark": "pytest-benchmark",
                     "google_benchmark": "google-benchmark"}.get(tool, tool)
        mine = sorted((row[1], int(row[2])) for row in rows if row[0] == tool_name)
        assert mine == sorted((v, k) for v in VARIANTS for k in range(1, count + 1))


def test_fixtures_stay_small() -> None:
    total = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    assert total < 2_000_000


# ------------------------------------------------------------------------------------------
# pyperf: one run per worker process


@pytest.mark.parametrize("path", all_files("pyperf"), ids=ids("pyperf"))
def test_pyperf_processes_are_runs(path: Path) -> None:
    document = raw(path)
    (bench,) = document["benchmarks"]
    value_runs = [i for i, run in enumerate(bench["runs"]) if run.get("values")]
    assert len(value_runs) == 20  # --processes 20
    m = load_pyperf(path)
    assert m.runs == tuple(value_runs)
    loops = document["metadata"].get("loops", bench.get("metadata", {}).get("loops"))
    for index in value_runs:
        part = m.select(m.run == index)
        run = bench["runs"][index]
        kept = part.without_warmups()
        assert kept.n_samples == 3  # --values 3
        np.testing.assert_allclose(kept.time_per_work, run["values"], rtol=1e-15)
        warm = part.select(part.warmup)
        assert warm.n_samples == len(run["warmups"])
        loops_here = run["metadata"].get("loops", loops)
        assert kept.work.tolist() == [float(loops_here)] * 3
    calibration = load_pyperf(path, include_calibration=True)
    assert len(calibration.runs) == len(bench["runs"])


def test_pyperf_files_together_keep_processes_apart() -> None:
    paths = files("pyperf", "base")
    m = load_many(paths)
    assert m.runs == tuple(range(60))
    meta = m.metadata["sum_squares"]
    assert meta["sources"] == [str(p) for p in paths]
    for k, path in enumerate(paths):
        own = [r for r, label in meta["run_sources"].items() if label == str(path)]
        assert own == list(range(20 * k, 20 * k + 20))
        single = load_pyperf(path).without_warmups()
        np.testing.assert_array_equal(
            m.without_warmups().select(np.isin(m.without_warmups().run, own)).elapsed,
            single.elapsed)
    assert set(meta["run_metadata"]) == set(range(60))


# ------------------------------------------------------------------------------------------
# pytest-benchmark: one file, one run


@pytest.mark.parametrize("path", all_files("pytest_benchmark"), ids=ids("pytest_benchmark"))
def test_pytest_benchmark_file_is_one_run(path: Path) -> None:
    (bench,) = raw(path)["benchmarks"]
    m = load_pytest_benchmark(path)
    assert m.runs == (0,)
    assert m.n_samples == len(bench["stats"]["data"]) == bench["stats"]["rounds"]
    np.testing.assert_allclose(m.time_per_work, bench["stats"]["data"], rtol=1e-15)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pytest_benchmark_files_together_are_runs(variant: str) -> None:
    paths = files("pytest_benchmark", variant)
    m = load_many(paths)
    assert m.runs == tuple(range(len(paths)))
    for run_id, path in enumerate(paths):
        (bench,) = raw(path)["benchmarks"]
        part = m.select(m.run == run_id)
        np.testing.assert_allclose(part.time_per_work, bench["stats"]["data"], rtol=1e-15)
        assert m.metadata[bench["fullname"]]["run_sources"][run_id] == str(path)


# ------------------------------------------------------------------------------------------
# hyperfine: every timing is its own process


@pytest.mark.parametrize("path", all_files("hyperfine"), ids=ids("hyperfine"))
def test_hyperfine_timings_are_runs(path: Path) -> None:
    (result,) = raw(path)["results"]
    m = load_hyperfine(path)
    assert m.runs == tuple(range(20))  # --runs 20
    assert m.elapsed.tolist() == result["times"]
    assert load(path, time="wall").elapsed.tolist() == result["times"]
    assert m.metadata["./spin"]["time"] == "wall"


def test_hyperfine_cpu_times_need_per_run_values() -> None:
    path = files("hyperfine", "base")[0]
    for time in ("user", "user+system"):
        with pytest.raises(FormatError, match=r"results\[0\]\.user.*mean over the runs"):
            load_hyperfine(path, time=time)  # type: ignore[arg-type]
        with pytest.raises(FormatError, match="mean over the runs"):
            load_many([path], time=time)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="time must be one of"):
        load_hyperfine(path, time="cpu")  # type: ignore[arg-type]


def test_hyperfine_per_run_cpu_times_are_picked() -> None:
    """An export with one user/system value per run (as ``times``) is read per run."""
    document = raw(files("hyperfine", "base")[0])
    result = document["results"][0]
    count = len(result["times"])
    result["user"] = [result["user"] * (1 + k / 100) for k in range(count)]
    result["system"] = [result["system"] + k * 1e-6 for k in range(count)]
    user = load_hyperfine(document, time="user")
    assert user.elapsed.tolist() == result["user"]
    both = load(document, time="user+system")
    np.testing.assert_allclose(both.elapsed, np.add(result["user"], result["system"]),
                               rtol=1e-15)
    assert both.runs == tuple(range(count))
    result["system"] = result["system"][:-1]
    with pytest.raises(FormatError, match=r"results\[0\]\.system.*entries"):
        load_hyperfine(document, time="user+system")


def test_hyperfine_files_together() -> None:
    paths = files("hyperfine", "slow")
    m = load_many(paths)
    assert m.runs == tuple(range(20 * len(paths)))
    expected = [t for p in paths for t in raw(p)["results"][0]["times"]]
    assert m.elapsed.tolist() == expected


# ------------------------------------------------------------------------------------------
# Google Benchmark: one run per repetition, real or CPU clock


def _gbench_rows(path: Path) -> list[dict[str, Any]]:
    return [row for row in raw(path)["benchmarks"] if row["run_type"] == "iteration"]


@pytest.mark.parametrize("path", all_files("google_benchmark"), ids=ids("google_benchmark"))
@pytest.mark.parametrize("clock", ["real", "cpu"])
def test_google_benchmark_repetitions_and_clock(path: Path, clock: str) -> None:
    rows = _gbench_rows(path)
    assert len(raw(path)["benchmarks"]) > len(rows)  # aggregates present in the file
    m = load_google_benchmark(path, clock=clock)  # type: ignore[arg-type]
    assert m.n_samples == len(rows) == 20  # --benchmark_repetitions=20, aggregates excluded
    assert m.runs == tuple(row["repetition_index"] for row in rows) == tuple(range(20))
    assert rows[0]["time_unit"] == "ns"
    expected = [row[f"{clock}_time"] * 1e-9 * row["iterations"] for row in rows]
    np.testing.assert_allclose(m.elapsed, expected, rtol=1e-14)
    np.testing.assert_allclose(m.time_per_work, [row[f"{clock}_time"] * 1e-9 for row in rows],
                               rtol=1e-14)
    assert m.metadata["BM_sum_squares"]["clock"] == clock
    via_load = load(path, clock=clock)  # type: ignore[arg-type]
    np.testing.assert_array_equal(via_load.elapsed, m.elapsed)


def test_google_benchmark_default_clock_is_real() -> None:
    path = files("google_benchmark", "base")[0]
    rows = _gbench_rows(path)
    default = load(path)
    assert default.metadata["BM_sum_squares"]["clock"] == "real"
    np.testing.assert_allclose(default.time_per_work, [r["real_time"] * 1e-9 for r in rows],
                               rtol=1e-14)
    with pytest.raises(InvalidInputError, match="clock must be"):
        load_google_benchmark(path, clock="wall")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="clock must be"):
        load_many([path], clock="wall")  # type: ignore[arg-type]


def test_google_benchmark_files_together() -> None:
    paths = files("google_benchmark", "base")
    m = load_many(paths, clock="cpu")
    assert m.runs == tuple(range(20 * len(paths)))
    expected = [row["cpu_time"] * 1e-9 for p in paths for row in _gbench_rows(p)]
    np.testing.assert_allclose(m.time_per_work, expected, rtol=1e-14)
    sources = m.metadata["BM_sum_squares"]["run_sources"]
    assert [sources[r] for r in (0, 19, 20, 79)] == [str(paths[0]), str(paths[0]),
                                                     str(paths[1]), str(paths[3])]


# ------------------------------------------------------------------------------------------
# asv: one run per process (asv round)


def _asv_samples(path: Path, name: str) -> tuple[list[float], float]:
    document = raw(path)
    cells = dict(zip(document["result_columns"], document["results"][name], strict=False))
    return cells["samples"][0], float(cells["stats_number"][0])


@pytest.mark.parametrize("path", all_files("asv"), ids=ids("asv"))
def test_asv_processes_are_runs(path: Path) -> None:
    m = load_asv(path)  # benchmarks.json beside the file gives rounds and repeat
    fixed, default = "bench.SumSquares.time_sum_squares", "bench.time_sum_squares_default"
    described = raw(path.parent / "benchmarks.json")
    for name, processes in ((fixed, 8), (default, 2)):
        assert described[name]["rounds"] == processes
        samples, number = _asv_samples(path, name)
        part = m[name]
        assert part.runs == tuple(range(processes))
        assert part.metadata[name]["processes"] == processes
        assert [int((part.run == r).sum()) for r in part.runs] == [5] * processes
        np.testing.assert_allclose(part.time_per_work, samples, rtol=1e-15)
        assert part.work.tolist() == [number] * len(samples)


def test_asv_without_benchmarks_json_is_one_run() -> None:
    path = files("asv", "base")[0]
    m = load_asv(raw(path))
    assert m.runs == (0,)
    assert m.metadata["bench.SumSquares.time_sum_squares"]["processes"] is None


def test_asv_ambiguous_split_warns_and_keeps_one_run() -> None:
    """asv's default repeat stops a process at 1-5 samples; 9 samples cannot be split."""
    path = files("asv", "base")[0]
    document = raw(path)
    name = "bench.time_sum_squares_default"
    column = document["result_columns"].index("samples")
    document["results"][name][column][0] = document["results"][name][column][0][:9]
    described = raw(path.parent / "benchmarks.json")
    with pytest.warns(FormatWarning, match="which asv process"):
        m = load_asv(document, benchmarks_json=described)
    assert m[name].runs == (0,)
    assert m["bench.SumSquares.time_sum_squares"].runs == tuple(range(8))


def test_asv_files_together() -> None:
    paths = files("asv", "rerun")
    m = load_many(paths, benchmark="bench.SumSquares.time_sum_squares")
    assert m.runs == tuple(range(8 * len(paths)))
    expected = [s for p in paths for s in _asv_samples(p, "bench.SumSquares.time_sum_squares")[0]]
    np.testing.assert_allclose(m.time_per_work, expected, rtol=1e-15)


# ------------------------------------------------------------------------------------------
# load_many and the generic loader's keywords


@pytest.mark.parametrize("session", SESSIONS)
def test_load_many_run_ids_distinct_for_every_tool(session: str) -> None:
    for tool in TOOLS:
        for variant in VARIANTS:
            paths = files(tool, variant, session)
            singles = [load(p) for p in paths]
            m = load_many(paths)
            assert len(m.runs) == sum(len(s.runs) for s in singles), (tool, variant)
            assert m.n_samples == sum(s.n_samples for s in singles)
            assert m.runs == tuple(range(len(m.runs)))


def test_load_many_bad_input() -> None:
    base = files("pytest_benchmark", "base")
    with pytest.raises(InvalidInputError, match="pass \\[source\\]"):
        load_many(base[0])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="pass \\[source\\]"):
        load_many(str(base[0]))
    with pytest.raises(InvalidInputError, match="empty"):
        load_many([])
    with pytest.raises(InvalidInputError, match="twice"):
        load_many([base[0], base[1], str(base[0])])
    with pytest.raises(FormatError, match="different harness formats"):
        load_many([base[0], files("pyperf", "base")[0]])
    with pytest.raises(FormatError, match="no such JSON file"):
        load_many([base[0], ROOT / "missing.json"])
    with pytest.raises(InvalidInputError, match="applies to Google Benchmark"):
        load_many(base, clock="cpu")
    with pytest.raises(InvalidInputError, match="applies to hyperfine"):
        load(files("google_benchmark", "base")[0], time="user")
    with pytest.raises(InvalidInputError, match="take no option"):
        load(base[0], benchmark="x")


def test_load_many_does_not_modify_parsed_input() -> None:
    documents = [raw(p) for p in files("hyperfine", "base")[:2]]
    before = json.dumps(documents)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = load_many(documents)
    assert isinstance(m, Measurements)
    assert json.dumps(documents) == before
    assert m.metadata["./spin"]["sources"] == ["<object>", "<object>"]


def test_load_many_keeps_jmh_forks_and_criterion_folders_apart() -> None:
    """The documented-format JMH and criterion files of tests/data/harnesses (no JVM or
    cargo here to make real ones): forks and folders stay distinct runs across files."""
    harnesses = Path(__file__).parent / "data" / "harnesses"
    document = json.loads((harnesses / "jmh.json").read_text())
    name = "org.example.ListBench.arrayList(size=100)"
    forks = len(document[0]["primaryMetric"]["rawData"])
    m = load_many([document, document], format="jmh")
    part = m[name]
    assert part.runs == tuple(range(2 * forks))
    np.testing.assert_allclose(part.elapsed,
                               np.concatenate(document[0]["primaryMetric"]["rawData"] * 2)
                               * 1e-9, rtol=1e-15)
    folder = harnesses / "criterion" / "tiny" / "sum_squares_1000"
    both = load_many([folder, folder / "new" / "sample.json"])
    assert both.runs == (0, 1)
    assert both.names == load(folder).names
