"""Verdicts of ``compare`` on real harness output: identical reruns (A/A) and +30 % (A/B).

The files in ``tests/data/real_harness/<session>/<tool>/{base,rerun,slow}`` were written by
the real tools (pyperf, pytest-benchmark, hyperfine, Google Benchmark, asv; see that
folder's README for how and under which load). For every session and tool this counts the
verdicts of :func:`pilotstats.analysis.compare` (mean, default options, warm-up detection
on) over

- every pair of single files, base against rerun (A/A) and base against slow (A/B), and
- every pair of file groups (``--group`` files a side, every combination of the files of a
  variant; the files are then the units of the interval).

An A/A pair is *flagged* when its verdict is a regression or a progression; the nominal
rate is 5 %. An A/B pair should be a regression; a progression is a sign error.

Run (a few minutes on one core)::

    PYTHONPATH=$PWD python benchmarks/bench_real_harness.py
    PYTHONPATH=$PWD python benchmarks/bench_real_harness.py --sessions session3 --group 3
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import _compiled  # noqa: F401

from pilotstats.analysis import compare
from pilotstats.io import Measurements, load

ROOT = Path(__file__).resolve().parents[1] / "tests" / "data" / "real_harness"
GLOB = {"pyperf": "*.json", "hyperfine": "*.json", "google_benchmark": "*.json",
        "asv": "[0-9]*.json", "pytest_benchmark": "*.json.gz"}
LABEL = {"google_benchmark": "Google Benchmark (CPU time)", "pyperf": "pyperf",
         "hyperfine": "hyperfine (wall)", "asv": "asv --record-samples",
         "pytest_benchmark": "pytest-benchmark"}


def _load(session: str, tool: str, variant: str) -> list[Measurements]:
    options: dict[str, Any] = {"clock": "cpu"} if tool == "google_benchmark" else {}
    paths = sorted((ROOT / session / tool / variant).glob(GLOB[tool]))
    return [load(p, **options) for p in paths]


def _count(base: list[Measurements], new: list[Measurements], group: int) -> Counter[str]:
    """Verdict counts: ``single:<verdict>`` over file pairs, ``files:<verdict>`` over groups."""
    counts: Counter[str] = Counter()
    for b, n in itertools.product(base, new):
        for item in compare(b, n):
            counts["single:" + item.verdict] += 1
    size = min(group, len(base), len(new))
    if size >= 2:
        for a, c in itertools.product(itertools.combinations(base, size),
                                      itertools.combinations(new, size)):
            for item in compare(list(a), list(c)):
                counts["files:" + item.verdict] += 1
    return counts


def _cell(counts: Counter[str], mode: str, verdicts: tuple[str, ...]) -> str:
    total = sum(v for k, v in counts.items() if k.startswith(mode + ":"))
    if total == 0:
        return "-"
    hits = sum(counts[f"{mode}:{v}"] for v in verdicts)
    inconclusive = counts[f"{mode}:inconclusive"]
    note = f" ({inconclusive} inconclusive)" if inconclusive else ""
    return f"{hits} / {total}{note}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", nargs="+", default=None,
                        help="session folders (default: every session* folder)")
    parser.add_argument("--tools", nargs="+", default=sorted(GLOB))
    parser.add_argument("--group", type=int, default=3, help="files per side of a group")
    args = parser.parse_args()
    sessions = args.sessions or sorted(p.name for p in ROOT.glob("session*") if p.is_dir())
    print("| session | tool | files a variant | A/A flagged, one file a side "
          "| A/A flagged, files as units | A/B regression, one file a side "
          "| A/B regression, files as units | A/B called a progression |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for session in sessions:
        for tool in args.tools:
            if not (ROOT / session / tool).is_dir():
                continue
            base = _load(session, tool, "base")
            aa = _count(base, _load(session, tool, "rerun"), args.group)
            ab = _count(base, _load(session, tool, "slow"), args.group)
            flagged = ("regression", "progression")
            wrong = ab["single:progression"] + ab["files:progression"]
            print(f"| {session} | {LABEL[tool]} | {len(base)} "
                  f"| {_cell(aa, 'single', flagged)} | {_cell(aa, 'files', flagged)} "
                  f"| {_cell(ab, 'single', ('regression',))} "
                  f"| {_cell(ab, 'files', ('regression',))} | {wrong} |", flush=True)


if __name__ == "__main__":
    main()
