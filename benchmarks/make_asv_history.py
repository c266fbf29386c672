"""Build a real asv results folder over many commits (kept out of the repository).

Usage::

    pip install asv==0.6.6
    python benchmarks/make_asv_history.py --commits 30 --out /tmp/asv-history
    pilotstats fleet /tmp/asv-history/results            # then read it whole

A tiny project in a temporary git repository gets ``--commits`` commits; each commit
rewrites its benchmark file (``--benchmarks`` asv timing benchmarks, each summing a range of
its own length) and, from commit ``--slow-from`` on, makes the first ``--slow`` benchmarks
do 40 % more work. ``asv run --python=same --quick --set-commit-hash <commit>`` runs at
every commit, so the folder holds genuine asv 0.6.6 output: ``benchmarks.json``,
``<machine>/machine.json`` and one ``<commit>-<env>.json`` per commit. Nothing is written
into this repository.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CONF = {
    "version": 1, "project": "fleetproj", "project_url": "https://example.invalid/",
    "repo": ".", "environment_type": "existing", "benchmark_dir": "benchmarks",
    "results_dir": "results", "html_dir": "html", "build_command": [],
    "install_command": [], "uninstall_command": [],
}


def bench_source(n_benchmarks: int, slow: int, slower: bool) -> str:
    lines = []
    for i in range(n_benchmarks):
        size = 2000 + 500 * i
        if slower and i < slow:
            size = int(size * 1.4)
        lines.append(f"def time_sum_{i:03d}():\n    sum(range({size}))\n")
    return "\n".join(lines)


def run(cmd: list[str], cwd: Path) -> str:
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--benchmarks", type=int, default=12)
    parser.add_argument("--slow", type=int, default=3)
    parser.add_argument("--slow-from", type=int, default=20)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    git = ["git", "-c", "user.email=fleet@example.invalid", "-c", "user.name=fleet"]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "benchmarks").mkdir()
        (root / "benchmarks" / "__init__.py").write_text("")
        (root / "asv.conf.json").write_text(json.dumps(CONF))
        run(["git", "init", "-q"], root)
        run(["asv", "machine", "--yes", "--machine", "fleet"], root)
        for k in range(args.commits):
            source = bench_source(args.benchmarks, args.slow, k >= args.slow_from)
            (root / "benchmarks" / "bench_fleet.py").write_text(source)
            (root / "VERSION").write_text(f"{k}\n")
            run(["git", "add", "-A"], root)
            run([*git, "commit", "-qm", f"commit {k}"], root)
            commit = run(["git", "rev-parse", "HEAD"], root).strip()
            run(["asv", "run", "--python=same", "--quick", "--machine", "fleet",
                 "--set-commit-hash", commit], root)
            print(f"commit {k + 1}/{args.commits} {commit[:8]}", flush=True)
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(root / "results", args.out / "results")
    print(f"wrote {args.out / 'results'} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
