"""Regenerate the harness fixtures in this folder with the real tools.

Run from anywhere:
``python tests/data/harnesses/generate.py [--tools pyperf,pytest-benchmark,...]``.
Each tool's command and version are written to ``PROVENANCE.md`` (section "generated").
The fixtures are committed; the tests read the committed files and never run the tools,
except ``tests/test_io_harness_tools.py`` which regenerates pyperf and pytest-benchmark
output into a temporary folder (when those packages are installed) and loads it.

Tools:

- ``pyperf`` (PyPI, the ``test`` extra): ``pyperf timeit`` and a two-benchmark ``Runner`` script.
- ``pytest-benchmark`` (PyPI, the ``test`` extra): a tiny test file run with
  ``--benchmark-json`` and with ``--benchmark-save`` (without ``--benchmark-save-data``).
- ``hyperfine`` (Debian package ``hyperfine``): ``--export-json``.
- ``asv`` (PyPI ``asv``, needs git): ``asv run --python=same --record-samples``.
- ``gbench`` (Debian package ``libbenchmark-dev`` plus ``g++``): a tiny C++ benchmark with
  ``--benchmark_repetitions``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PYPERF_SUITE_SCRIPT = '''
import pyperf
runner = pyperf.Runner()
runner.timeit("sum_range_100", stmt="sum(range(100))")
runner.timeit("sorted_list_50", stmt="sorted(data)", setup="data = list(range(50, 0, -1))")
'''

PYTEST_BENCH_FILE = '''
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_fib_10(benchmark):
    benchmark(fib, 10)


def test_sum_range(benchmark):
    benchmark(sum, range(200))
'''

GBENCH_SOURCE = r'''
#include <benchmark/benchmark.h>
#include <numeric>
#include <vector>
static void BM_Accumulate(benchmark::State& state) {
  std::vector<double> v(state.range(0), 1.5);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Accumulate)->Arg(64)->Arg(512);
BENCHMARK_MAIN();
'''


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    print("+", " ".join(cmd), file=sys.stderr)
    done = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def generate_pyperf(out: Path) -> list[str]:
    """pyperf: a ``timeit`` file (with calibration run and warm-ups) and a 2-benchmark suite."""
    import pyperf

    notes = [f"pyperf {pyperf.__version__}, Python {sys.version.split()[0]}"]
    timeit = [sys.executable, "-m", "pyperf", "timeit", "--processes", "4", "--values", "5",
              "--warmups", "3", "--min-time", "0.002", "-q",
              "-o", str(out / "pyperf_timeit.json"), "-s", "x = list(range(30))", "sorted(x)"]
    _run(timeit)
    notes.append(" ".join(["python", *timeit[1:]]).replace(str(out) + os.sep, ""))
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench_suite.py"
        script.write_text(PYPERF_SUITE_SCRIPT)
        suite = [sys.executable, str(script), "--processes", "3", "--values", "4",
                 "--warmups", "2", "--min-time", "0.002", "-q",
                 "-o", str(out / "pyperf_suite.json")]
        _run(suite)
        notes.append("python bench_suite.py " + " ".join(suite[2:]).replace(str(out) + os.sep, "")
                     + "  # script: Runner().timeit x2, see PYPERF_SUITE_SCRIPT in generate.py")
    raw = (out / "pyperf_suite.json").read_bytes()
    with gzip.open(out / "pyperf_suite.json.gz", "wb") as handle:
        handle.write(raw)
    notes.append("pyperf_suite.json.gz = gzip of pyperf_suite.json")
    return notes


def generate_pytest_benchmark(out: Path) -> list[str]:
    """pytest-benchmark: ``--benchmark-json`` (has ``data``) and a saved file without data."""
    import pytest_benchmark

    notes = [f"pytest-benchmark {pytest_benchmark.__version__}"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "test_tiny_bench.py").write_text(PYTEST_BENCH_FILE)
        (root / "pytest.ini").write_text("[pytest]\n")
        common = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                  "test_tiny_bench.py", "--benchmark-min-rounds=8",
                  "--benchmark-max-time=0.01", "--benchmark-min-time=0.00002"]
        _run([*common, "--benchmark-json", str(out / "pytest_benchmark.json")], cwd=root)
        shown = ["python", "-m", "pytest", *common[3:]]
        notes.append(" ".join([*shown, "--benchmark-json", "pytest_benchmark.json"]))
        _run([*common, "--benchmark-save=nodata", "--benchmark-storage", str(root / "store")],
             cwd=root)
        saved = sorted((root / "store").rglob("*.json"))
        shutil.copy(saved[0], out / "pytest_benchmark_saved_nodata.json")
        notes.append(" ".join([*shown, "--benchmark-save=nodata"])
                     + "  -> pytest_benchmark_saved_nodata.json (no --benchmark-save-data)")
    return notes


def generate_hyperfine(out: Path) -> list[str]:
    """hyperfine: two commands, a warm-up run and an explicit run count."""
    version = _run(["hyperfine", "--version"]).strip()
    cmd = ["hyperfine", "-N", "--warmup", "1", "--runs", "12", "--style", "none",
           "--export-json", str(out / "hyperfine.json"), "sleep 0.001", "sleep 0.003"]
    _run(cmd)
    scan = ["hyperfine", "-N", "--runs", "5", "--style", "none", "-P", "ms", "1", "2",
            "--export-json", str(out / "hyperfine_scan.json"), "sleep 0.00{ms}"]
    _run(scan)
    return [version, " ".join(cmd).replace(str(out) + os.sep, ""),
            " ".join(scan).replace(str(out) + os.sep, "")]


def generate_gbench(out: Path) -> list[str]:
    """Google Benchmark: 4 repetitions of 2 instances, plus aggregates-only output."""
    dpkg = _run(["dpkg-query", "-W", "-f=${Version}", "libbenchmark-dev"]).strip()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "tiny.cc").write_text(GBENCH_SOURCE)
        _run(["g++", "-O2", "tiny.cc", "-o", "tiny", "-lbenchmark", "-lpthread"], cwd=root)
        args = ["--benchmark_repetitions=4", "--benchmark_min_time=0.02",
                "--benchmark_out_format=json"]
        _run(["./tiny", *args, f"--benchmark_out={out / 'gbench.json'}"], cwd=root)
        _run(["./tiny", *args, "--benchmark_report_aggregates_only=true",
              f"--benchmark_out={out / 'gbench_aggregates_only.json'}"], cwd=root)
    return [f"Google Benchmark (Debian libbenchmark-dev {dpkg}), g++ -O2",
            "./tiny " + " ".join(args) + " --benchmark_out=gbench.json",
            "./tiny " + " ".join(args)
            + " --benchmark_report_aggregates_only=true"
            + " --benchmark_out=gbench_aggregates_only.json"]


ASV_CONF = {
    "version": 1, "project": "tinyproj", "project_url": "https://example.invalid/", "repo": ".",
    "environment_type": "existing", "benchmark_dir": "benchmarks", "results_dir": "results",
    "html_dir": "html", "build_command": [], "install_command": [], "uninstall_command": [],
}

ASV_BENCH = '''
class TimeSuite:
    repeat = (3, 5, 0.5)
    rounds = 2
    params = [10, 100]
    param_names = ["n"]

    def setup(self, n):
        self.data = list(range(n, 0, -1))

    def time_sorted(self, n):
        sorted(self.data)


def time_sum_range():
    sum(range(200))


time_sum_range.repeat = (3, 5, 0.5)
'''


def generate_asv(out: Path) -> list[str]:
    """asv: a one-commit repository run in the current Python with ``--record-samples``."""
    version = _run(["asv", "--version"]).strip()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "benchmarks").mkdir()
        (root / "benchmarks" / "__init__.py").write_text("")
        (root / "benchmarks" / "bench_tiny.py").write_text(ASV_BENCH)
        (root / "asv.conf.json").write_text(json.dumps(ASV_CONF))
        git = ["git", "-c", "user.email=fixture@example.invalid", "-c", "user.name=fixture"]
        _run(["git", "init", "-q"], cwd=root)
        _run(["git", "add", "-A"], cwd=root)
        _run([*git, "commit", "-qm", "fixture"], cwd=root)
        commit = _run(["git", "rev-parse", "HEAD"], cwd=root).strip()
        _run(["asv", "machine", "--yes", "--machine", "fixture"], cwd=root)
        cmd = ["asv", "run", "--python=same", "--record-samples", "--machine", "fixture",
               "--set-commit-hash", commit]
        _run(cmd, cwd=root)
        result = next(p for p in (root / "results" / "fixture").glob("*.json")
                      if p.name != "machine.json")
        shutil.copy(result, out / "asv_result.json")
        shutil.copy(root / "results" / "benchmarks.json", out / "asv_benchmarks.json")
    return [version, " ".join(cmd[:-1]) + " <commit>  (benchmarks: ASV_BENCH in generate.py)"
            + " -> results/<machine>/<commit>-existing-*.json copied to asv_result.json"]


GENERATORS = {
    "pyperf": generate_pyperf,
    "pytest-benchmark": generate_pytest_benchmark,
    "hyperfine": generate_hyperfine,
    "gbench": generate_gbench,
    "asv": generate_asv,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", default=",".join(GENERATORS))
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    log = {}
    for tool in args.tools.split(","):
        log[tool] = GENERATORS[tool](args.out.resolve())
    print(json.dumps(log, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
