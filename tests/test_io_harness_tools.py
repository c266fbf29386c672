"""Run the real harnesses of the ``test`` extra (pyperf, pytest-benchmark) and load their output.

The committed fixtures in tests/data/harnesses come from the same generator
(``tests/data/harnesses/generate.py``); this test regenerates them into a temporary folder,
so a change of either tool's format shows up here. Skipped when a tool is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from pilotstats.analysis import analyze
from pilotstats.exceptions import FormatError
from pilotstats.io import load, load_pyperf, load_pytest_benchmark
from tests.scripts import load_script

GENERATOR = Path(__file__).parent / "data" / "harnesses" / "generate.py"


def generator() -> ModuleType:
    return load_script(GENERATOR, "harness_generate")


@pytest.mark.slow
def test_fresh_pyperf_output(tmp_path: Path) -> None:
    pytest.importorskip("pyperf")
    notes = generator().generate_pyperf(tmp_path)
    assert notes[0].startswith("pyperf ")
    document = json.loads((tmp_path / "pyperf_timeit.json").read_text())
    m = load_pyperf(tmp_path / "pyperf_timeit.json")
    runs = document["benchmarks"][0]["runs"]
    assert m.without_warmups().n_samples == sum(len(r.get("values", [])) for r in runs) == 20
    assert int(m.warmup.sum()) == 4 * 3
    suite = load(tmp_path / "pyperf_suite.json.gz")
    assert suite.names == ("sum_range_100", "sorted_list_50")
    report = analyze(m)
    assert report["timeit"].n == 20 and report["timeit"].mean is not None


@pytest.mark.slow
def test_fresh_pytest_benchmark_output(tmp_path: Path) -> None:
    pytest.importorskip("pytest_benchmark")
    generator().generate_pytest_benchmark(tmp_path)
    document = json.loads((tmp_path / "pytest_benchmark.json").read_text())
    m = load_pytest_benchmark(tmp_path / "pytest_benchmark.json")
    for bench in document["benchmarks"]:
        part = m[bench["fullname"]]
        np.testing.assert_allclose(part.time_per_work, bench["stats"]["data"], rtol=1e-15)
    with pytest.raises(FormatError, match="--benchmark-save-data"):
        load_pytest_benchmark(tmp_path / "pytest_benchmark_saved_nodata.json")
