"""The CI recipe of ``examples/ci``: the workflows' structure, and their comparison step run
locally on the two stored results of each harness."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / "examples" / "ci"
SAMPLE = CI / "sample"
DATA = ROOT / "tests" / "data" / "harnesses"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def compare_step(base: Path, new: Path, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    """Run ``examples/ci/compare.sh`` as the workflow does; return status, output, summary."""
    summary = tmp_path / "summary.md"
    env = {**os.environ, "PYTHON": sys.executable, "GITHUB_STEP_SUMMARY": str(summary),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(["bash", str(CI / "compare.sh"), str(base), str(new), *extra],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    text = summary.read_text() if summary.exists() else ""
    return done.returncode, done.stdout + done.stderr, text


@pytest.mark.parametrize("workflow", ["pyperf.yml", "pytest-benchmark.yml"])
def test_workflow_structure(workflow: str) -> None:
    yaml = pytest.importorskip("yaml")
    document = yaml.safe_load((CI / workflow).read_text())
    triggers = document[True] if True in document else document["on"]  # YAML 1.1: on = True
    assert triggers["push"]["branches"] == ["main"] and "pull_request" in triggers
    assert document["permissions"]["actions"] == "read"
    steps = document["jobs"]["benchmark"]["steps"]
    names = [step.get("name", step.get("uses", "")) for step in steps]
    assert names.index("Run the benchmark") < names.index("Store the result")
    store = steps[names.index("Store the result")]
    assert store["uses"].startswith("actions/upload-artifact")
    assert "benchmark-baseline" in store["with"]["name"]
    download = steps[names.index("Download main's baseline")]
    assert "--name benchmark-baseline" in download["run"]
    gate = steps[-1]
    assert gate["if"] == "github.event_name == 'pull_request'"
    assert gate["run"].strip() == "examples/ci/compare.sh baseline/result.json result.json"
    assert "result.json" in steps[names.index("Run the benchmark")]["run"]


@pytest.mark.parametrize("harness, suffix", [("pyperf", ".json"),
                                             ("pytest_benchmark", ".json.gz")])
def test_stored_regression_fails_the_gate(harness: str, suffix: str, tmp_path: Path) -> None:
    base = SAMPLE / f"{harness}_main{suffix}"
    new = SAMPLE / f"{harness}_pr{suffix}"
    extra: tuple[str, ...] = ()
    if harness == "pytest_benchmark":
        # one pytest-benchmark file a side is one run a side: inconclusive ...
        status, out, summary = compare_step(base, new, tmp_path)
        assert status == 5, out
        assert summary.startswith("### Benchmarks: inconclusive: one run per side")
        (tmp_path / "summary.md").unlink()
        extra = ("--assume-runs-equivalent",)  # ... unless the runs are assumed equivalent
    status, out, summary = compare_step(base, new, tmp_path, *extra)
    assert status == 1, out
    assert "regression" in out and "pilotstats compare: significant regression" in out
    assert summary.startswith("### Benchmarks: significant regression")
    assert "```" in summary and " p " in summary


def test_unchanged_result_passes(tmp_path: Path) -> None:
    base = SAMPLE / "pyperf_main.json"
    status, out, summary = compare_step(base, base, tmp_path)
    assert status == 0, out
    assert "0 regression(s)" in out and summary.startswith("### Benchmarks: no significant")


def test_first_run_without_baseline_passes(tmp_path: Path) -> None:
    status, out, summary = compare_step(tmp_path / "baseline" / "result.json",
                                        SAMPLE / "pyperf_pr.json", tmp_path)
    assert status == 0 and "no baseline result" in out and summary == ""


def test_incomplete_comparison_fails_unless_allowed(tmp_path: Path) -> None:
    # nothing in common (gbench.json's 4 repetitions are 4 runs: analysable)
    base, new = DATA / "hyperfine.json", DATA / "gbench.json"
    status, out, summary = compare_step(base, new, tmp_path)
    assert status == 2 and "comparison failed or incomplete (exit status 2)" in summary
    status, out, _ = compare_step(base, new, tmp_path, "--allow-missing")
    assert status == 0, out
