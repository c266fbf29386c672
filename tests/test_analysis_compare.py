"""``compare`` (and analyze / the CLI) with runs (and files) as units.

Each case is a test in which the runs of a file must not be flattened into one series,
built from the real harness fixtures
in ``tests/data/real_harness`` (see its README: pyperf, pytest-benchmark, hyperfine,
Google Benchmark and asv output made with the real tools on a loaded 2-core machine)
where they have the case, synthetically otherwise; then the real-fixture counts (A/A and
A/B over file pairs) and a compare-level simulation over cells of a grid of between-run
and within-run noise.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from pilotstats._kernels._jit import numba_available
from pilotstats.analysis import analyze, compare
from pilotstats.autocorrelation import two_level_analysis
from pilotstats.cli import EXIT_INCONCLUSIVE, main
from pilotstats.io import Measurements, load

REAL = Path(__file__).parent / "data" / "real_harness"
SESSIONS = ("session1", "session2", "session3")
#: Made on a quiet machine (nothing else running; see the fixtures' README).
QUIET = "session3"
GLOB = {"pyperf": "*.json", "hyperfine": "*.json", "google_benchmark": "*.json",
        "asv": "[0-9].json", "pytest_benchmark": "*.json.gz"}

pytestmark = [
    pytest.mark.skipif(not (REAL / "session1").is_dir(), reason="real harness fixtures absent"),
    # Whole harness files (up to 2,000 samples a run) through warm-up detection: minutes
    # per comparison as plain Python; the kernels' code paths are covered by their own tests.
    pytest.mark.skipif(not numba_available(), reason="real files need the compiled kernels"),
]


def files(session: str, tool: str, variant: str) -> list[Path]:
    return sorted((REAL / session / tool / variant).glob(GLOB[tool]))


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    return status, capsys.readouterr().out


# -- every case under "Why" --------------------------------------------------------------


@pytest.mark.parametrize("session", SESSIONS)
def test_pytest_benchmark_same_code_in_two_processes_is_not_a_regression(
    session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: +19.00 % [+12.78, +25.22 %] p = 4.3e-9 regression, exit 1 (one file a side)."""
    base, rerun = files(session, "pytest_benchmark", "base"), files(session, "pytest_benchmark",
                                                                    "rerun")
    status, out = run(["compare", str(base[0]), str(rerun[0])], capsys)
    assert status == EXIT_INCONCLUSIVE and "inconclusive: 1 run per side" in out
    status, out = run(["compare", *map(str, base), "--", *map(str, rerun), "--json"], capsys)
    item = json.loads(out)["comparisons"][0]
    assert status == 0 and item["verdict"] == "no significant change"
    assert item["base_n_runs"] == item["new_n_runs"] == 6


@pytest.mark.parametrize("session", SESSIONS)
def test_pytest_benchmark_thirty_percent_slower_is_never_a_progression(session: str) -> None:
    """Was: a 30 % slower function reported as a -17.8 % speed-up (p = 2e-16)."""
    base = [load(f) for f in files(session, "pytest_benchmark", "base")]
    slow = [load(f) for f in files(session, "pytest_benchmark", "slow")]
    for b, s in itertools.product(base[:3], slow[:3]):  # one file a side: no verdict
        assert compare(b, s).comparisons[0].verdict == "inconclusive"
    item = compare(base, slow).comparisons[0]
    assert item.verdict in ("regression", "no significant change")
    assert item.ratio is not None and item.ratio > 1.0
    assert item.relative_ci_high is not None and item.relative_ci_high > 0.0


@pytest.mark.parametrize("session", SESSIONS)
def test_median_of_an_unchanged_benchmark_does_not_fail_the_gate(
    session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: --summary-statistic median failed the gate at p = 1e-286 for 0.9 %."""
    base, rerun = files(session, "pytest_benchmark", "base"), files(session, "pytest_benchmark",
                                                                    "rerun")
    status, _ = run(["compare", str(base[0]), str(rerun[0]), "--summary-statistic",
                     "median"], capsys)
    assert status == EXIT_INCONCLUSIVE
    status, out = run(["compare", *map(str, base), "--", *map(str, rerun),
                       "--summary-statistic", "median", "--json"], capsys)
    assert status == 0
    assert json.loads(out)["comparisons"][0]["summary_statistic"] == "run median"


def _doubled(source: Path, target: Path) -> Path:
    """The pyperf file with every value (warm-ups too) twice as long: a 2x slowdown."""
    document = json.loads(source.read_text())
    for bench in document["benchmarks"]:
        for process in bench["runs"]:
            if "values" in process:
                process["values"] = [2.0 * v for v in process["values"]]
            if "warmups" in process:
                process["warmups"] = [[loops, 2.0 * v] for loops, v in process["warmups"]]
    target.write_text(json.dumps(document))
    return target


@pytest.mark.parametrize("session", SESSIONS)
def test_pyperf_twice_as_slow_is_a_regression(
    session: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: +99.4 % [-85.4 %, +284.1 %] p = 0.148, no significant change, exit 0 (q = 16
    subsessions over the flattened 20 processes x 3 values)."""
    base = files(session, "pyperf", "base")[0]
    slow = _doubled(files(session, "pyperf", "rerun")[0], tmp_path / "slow.json")
    status, out = run(["compare", str(base), str(slow), "--json"], capsys)
    item = json.loads(out)["comparisons"][0]
    assert status == 1 and item["verdict"] == "regression"
    assert item["base_n_runs"] == item["new_n_runs"] == 20
    assert item["relative_ci_low"] > 0.3 and item["interval_units"] == "runs"


@pytest.mark.parametrize("session", SESSIONS)
def test_google_benchmark_cpu_time_slowdown_is_a_regression(
    session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: clock="cpu", 62-65 us against 82-86 us: "not analysable" (no subsession size
    on 20 repetitions).

    A Google Benchmark file's repetitions run in one process, so one file a side cannot
    tell a code change from the process-to-process variation (identical code differs by
    0.5-2 % in CPU time between processes, 5-25 standard errors of the repetitions): the
    verdict needs several files per side, or the runs stated equivalent.
    """
    base, slow = files(session, "google_benchmark", "base"), files(session, "google_benchmark",
                                                                   "slow")
    one = compare(load(base[0], clock="cpu"), load(slow[0], clock="cpu"))["BM_sum_squares"]
    assert one.verdict == "inconclusive" and one.base_n_runs == 20
    assert "share one process" in one.note and 1.25 < one.ratio < 1.35
    item = compare(load(base[0], clock="cpu"), load(slow[0], clock="cpu"),
                   assume_runs_equivalent=True)["BM_sum_squares"]
    assert item.verdict == "regression" and item.interval_units == "runs"
    assert 1.25 < item.ratio < 1.35 and item.relative_ci_low is not None
    item = compare([load(f, clock="cpu") for f in base],
                   [load(f, clock="cpu") for f in slow])["BM_sum_squares"]
    assert item.verdict == "regression" and item.interval_units == "files"
    status, out = run(["compare", str(base[0]), str(slow[0]), "--clock", "cpu"], capsys)
    assert status == EXIT_INCONCLUSIVE and "not analysable" not in out.split("\n")[4]
    status, out = run(["compare", str(base[0]), str(slow[0]), "--clock", "cpu",
                       "--assume-runs-equivalent"], capsys)
    assert status == 1 and "regression" in out
    status, out = run(["compare", *map(str, base), "--", *map(str, slow), "--clock", "cpu"],
                      capsys)
    assert status == 1 and "regression" in out


def test_clear_separation_of_twenty_repetitions_is_a_regression() -> None:
    """The reported figures: 62-65 us against 82-86 us over 20 repetitions each."""
    rng = np.random.default_rng(22)
    runs = np.arange(20)
    base = Measurements(rng.uniform(62e-6, 65e-6, 20), run=runs, benchmark="b")
    new = Measurements(rng.uniform(82e-6, 86e-6, 20), run=runs, benchmark="b")
    item = compare(base, new)["b"]
    assert item.verdict == "regression" and item.relative_ci_low is not None
    assert item.relative_ci_low > 0.25


def test_min_is_the_mean_of_the_run_minima_not_the_mean() -> None:
    """Was: "min" reported the mean (81 us) when the subsession size was 1 (minimum 14.6 us)."""
    rng = np.random.default_rng(3)
    # heavy right tail: most samples near 15 us, many far slower
    runs = [15e-6 + rng.exponential(60e-6, 50) for _ in range(8)]
    m = Measurements(np.concatenate(runs), run=np.repeat(np.arange(8), 50), benchmark="b")
    item = analyze(m, summary_statistic="min", detect_warmup=False)["b"]
    mean = analyze(m, detect_warmup=False)["b"]
    ref = two_level_analysis(runs, summary_statistic="min")
    assert item.summary_statistic == "run min" and item.block_size == 50
    assert item.mean == pytest.approx(ref.mean, rel=1e-12)
    assert item.mean == pytest.approx(np.mean([r.min() for r in runs]), rel=1e-12)
    assert item.mean < 20e-6 < 60e-6 < mean.mean
    # both sides of a comparison estimate the same quantity (one block size)
    short = Measurements(np.concatenate([r[:20] for r in runs]), run=np.repeat(np.arange(8), 20),
                         benchmark="b")
    assert compare(m, short, summary_statistic="min")["b"].verdict != "progression"


@pytest.mark.parametrize("session", SESSIONS)
def test_asv_identical_rerun_does_not_exit_2(
    session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: asv --record-samples identical rerun: exit 2 ("not analysable", 10 samples)."""
    base, rerun = files(session, "asv", "base"), files(session, "asv", "rerun")
    status, out = run(["compare", str(base[0]), str(rerun[0]), "--json"], capsys)
    data = json.loads(out)
    assert status != 2 and not data["not_analysable"]
    runs = {c["name"]: c["base_n_runs"] for c in data["comparisons"]}
    assert runs == {"bench.SumSquares.time_sum_squares": 8, "bench.time_sum_squares_default": 2}


def test_several_files_per_side_make_the_files_the_units(
    capsys: pytest.CaptureFixture[str]
) -> None:
    base, slow = files("session2", "google_benchmark", "base"), files("session2",
                                                                     "google_benchmark", "slow")
    status, out = run(["compare", *map(str, base), "--", *map(str, slow), "--clock", "cpu",
                       "--json"], capsys)
    item = json.loads(out)["comparisons"][0]
    assert status == 1 and item["interval_units"] == "files"
    assert item["base_n_runs"] == 80 and item["base_n_subsessions"] == 4
    status, out = run(["analyze", *map(str, base), "--", "--clock", "cpu"], capsys)
    assert status == 0 and "files as units: 4 files of 80 runs" in out
    assert "files x 20" in out  # the plan counts files (invocations) of 20 repetitions
    item = analyze([load(f, clock="cpu") for f in base])["BM_sum_squares"]
    assert item.interval_units == "files" and len(item.run_values) == 4
    assert item.confidence_interval() == pytest.approx((item.ci_low, item.ci_high), rel=1e-12)
    status, _ = run(["compare", str(base[0]), "--", *map(str, slow), "--clock", "cpu"], capsys)
    assert status == EXIT_INCONCLUSIVE  # one file on the base side: file variance unknown


# -- the real fixtures: verdict counts over file pairs -------------------------------------


def _pairs(tool: str, session: str, new: str) -> Counter[tuple[str, str]]:
    """Verdicts over every base/new pair of single files and over pairs of file groups.

    Groups: 3 files a side when a variant has 6 or more (7 of the 20 combinations), else
    2. Keys: ("single" or "files", verdict), and ("single <benchmark>", verdict).
    """
    options = {"clock": "cpu"} if tool == "google_benchmark" else {}
    data = {v: [load(f, **options) for f in files(session, tool, v)] for v in ("base", new)}
    k = len(data["base"])
    size = 3 if k >= 6 else 2
    groups = [list(g) for g in itertools.combinations(range(k), size)]
    if k >= 6:
        groups = groups[::3]  # 7 of the 20 groups of 3: 49 group pairs
    counts: Counter[tuple[str, str]] = Counter()
    for i, j in itertools.product(range(k), range(k)):
        for c in compare(data["base"][i], data[new][j], detect_warmup=False):
            counts[("single", c.verdict)] += 1
            counts[(f"single {c.name}", c.verdict)] += 1
    for a, b in itertools.product(groups, groups):
        for c in compare([data["base"][i] for i in a], [data[new][j] for j in b],
                         detect_warmup=False):
            counts[("files", c.verdict)] += 1
    return counts


def _total(counts: Counter[tuple[str, str]], mode: str) -> int:
    return sum(v for (m, _), v in counts.items() if m == mode)


def _allowed(total: int, rate: float = 0.05, sigmas: float = 3.0) -> float:
    """The nominal false-alarm count plus ``sigmas`` Monte Carlo standard errors."""
    return rate * total + sigmas * math.sqrt(rate * (1.0 - rate) * total)


@pytest.mark.slow
@pytest.mark.parametrize("tool", sorted(GLOB))
def test_real_fixtures_never_report_a_slowdown_as_a_progression(tool: str) -> None:
    """Acceptance: no slowdown (+30 %) is ever a progression, over every file pair.

    One exception is measured, and kept visible here rather than hidden: asv's default
    benchmark (2 processes x 5 samples per file) in session 2, base file 2 against slow
    file 2, one file a side: the slow code ran 25 % *faster* (the machine's load fell
    between the two invocations: pooled over the files its slow/base ratio is 0.89, see the
    fixtures' README). With one file per side the variation between invocations cannot be
    in the interval (the comparison's note says so); with files as units it never happens.
    """
    measured = {("asv", "session2"): 1}
    for session in SESSIONS:
        counts = _pairs(tool, session, "slow")
        assert counts[("files", "progression")] == 0
        assert counts[("single", "progression")] == measured.get((tool, session), 0)
        grouped = _total(counts, "files")
        if tool == "google_benchmark":  # CPU time: the one clock the machine's load spares
            # one file a side: the 20 repetitions share one process, so no verdict
            assert counts[("single", "inconclusive")] == _total(counts, "single")
            assert counts[("files", "regression")] >= 0.9 * grouped
        if session == QUIET:  # every tool finds the slowdown with files as units
            assert counts[("files", "regression")] >= 0.9 * grouped


@pytest.mark.slow
def test_real_fixtures_identical_code_with_files_as_units() -> None:
    """Acceptance: identical code (A/A) with several files per side is flagged at most at
    the nominal rate (+ Monte Carlo error): CPU time on the loaded machine, every tool on
    the quiet one."""
    flagged = total = 0
    for session in SESSIONS:
        counts = _pairs("google_benchmark", session, "rerun")
        flagged += counts[("files", "regression")] + counts[("files", "progression")]
        total += _total(counts, "files")
    assert total == 72 + 49 and flagged <= _allowed(total)
    for tool in sorted(GLOB):
        counts = _pairs(tool, QUIET, "rerun")
        flagged = counts[("files", "regression")] + counts[("files", "progression")]
        assert flagged <= _allowed(_total(counts, "files")), (tool, counts)


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["asv", "hyperfine", "pyperf"])
def test_quiet_machine_one_file_a_side(tool: str) -> None:
    """On the quiet machine one file a side (its processes the units) keeps the nominal
    false-alarm rate and finds a +30 % slowdown in >= 90 % of pairs, wherever a file holds
    enough processes: asv's default benchmark has 2 per file, whose 1-degree-of-freedom
    intervals find it in about half the pairs (never the wrong way)."""
    same = _pairs(tool, QUIET, "rerun")
    flagged = same[("single", "regression")] + same[("single", "progression")]
    assert flagged <= _allowed(_total(same, "single")), same
    slow = _pairs(tool, QUIET, "slow")
    for (mode, verdict), count in slow.items():
        if not mode.startswith("single ") or verdict != "regression":
            continue
        total = sum(v for (m, _), v in slow.items() if m == mode)
        share = 0.4 if mode.endswith("time_sum_squares_default") else 0.9
        assert count >= share * total, (mode, count, total)
    assert slow[("single", "progression")] == 0


def test_asv_two_processes_say_how_many_would_decide() -> None:
    """asv's default of 2 processes a side leaves +22 % undecided (interval about ±100 %);
    the comparison says how many processes a side would resolve a change of that size."""
    base = load(REAL / QUIET / "asv" / "base" / "1.json")
    slow = load(REAL / QUIET / "asv" / "slow" / "3.json")
    item = compare(base, slow)["bench.time_sum_squares_default"]
    assert item.verdict == "no significant change" and item.base_n_runs == 2
    assert item.units_needed == 4
    assert "about 4 runs a side would narrow the interval to ±22.2 %" in item.note


# -- compare-level simulation over cells of a noise grid ------------------------------------


def _side(rng: np.random.Generator, runs: int, n: int, sigma_b: float, phi: float,
          scale: float = 1.0) -> Measurements:
    """``runs`` runs of ``n`` AR(1) samples (unit innovation sd) around 10 + run effect."""
    series = []
    for _ in range(runs):
        e = rng.normal(size=n)
        x = np.empty(n)
        x[0] = e[0] / math.sqrt(1.0 - phi * phi)
        for i in range(1, n):
            x[i] = phi * x[i - 1] + e[i]
        series.append(scale * (20.0 + sigma_b * rng.normal() + x))
    return Measurements(np.concatenate(series), run=np.repeat(np.arange(runs), n),
                        benchmark="b")


CELLS = [(0.0, 0.0, 3, 100), (2.0, 0.7, 3, 100), (0.5, 0.7, 10, 10), (2.0, 0.0, 5, 10),
         (0.5, 0.0, 2, 100), (0.0, 0.7, 30, 10)]


@pytest.mark.slow
def test_compare_keeps_the_false_alarm_rate_on_the_grid() -> None:
    """A/A through the whole pipeline (analyze + compare, warm-up detection off as the
    simulated runs have none): false alarms <= 5 % + Monte Carlo error for mean, median and
    min, pooled and per cell; seeded."""
    rng = np.random.default_rng(2022)
    reps = 100
    pooled = Counter()
    for sigma_b, phi, runs, n in CELLS:
        for statistic in ("mean", "median", "min"):
            alarms = 0
            for _ in range(reps):
                item = compare(_side(rng, runs, n, sigma_b, phi), _side(rng, runs, n, sigma_b,
                                                                        phi),
                               detect_warmup=False, summary_statistic=statistic)["b"]
                alarms += item.verdict in ("regression", "progression")
            pooled[statistic] += alarms
            assert alarms <= 0.05 * reps + 3 * math.sqrt(0.05 * 0.95 * reps), (
                sigma_b, phi, runs, n, statistic, alarms)
    total = reps * len(CELLS)
    for statistic, alarms in pooled.items():
        assert alarms <= 0.05 * total + 2 * math.sqrt(0.05 * 0.95 * total), (statistic, alarms)
