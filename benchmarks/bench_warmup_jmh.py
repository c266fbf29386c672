"""Steady-state detection on real JMH forks with human labels, next to CP-SSD.

Data: the development split of the JMH steady-state data set (294 forks of 15 Java
projects, 3000 iterations each; series of Traini et al., EMSE 28:13, 2023; human labels of
Beseda et al., arXiv:2506.04204, 2025). It is built locally from the two public
repositories, outside this repository, and never committed; the other 15 projects are an
evaluation split that is neither built nor scored here. Run from the repository root::

    python benchmarks/bench_warmup_jmh.py [DATA_DIR]
    python benchmarks/bench_warmup_jmh.py --all-forks [DATA_DIR]
    python benchmarks/bench_warmup_jmh.py --cv [DATA_DIR]
    python benchmarks/bench_warmup_jmh.py --grid [DATA_DIR]

``DATA_DIR`` (or the environment variable ``PILOTSTATS_JMH_DEV``) holds
``series_fork0.json.gz``, ``manual_labels.json`` and ``cpssd_classification_all_forks.json``;
``--all-forks`` also needs ``series_all_forks.json.gz`` (the recipe's ``--all-forks``) and
judges fork 0 with :func:`~pilotstats.changepoints.steady_state` on all ten forks of its
benchmark, next to fork 0 alone with ``stable_phase``. ``--cv`` (also needs the ten forks)
cross-validates the one parameter chosen on this split, the number of forks that may fail to
settle (``max_unsteady_fraction`` x 10), by 5-fold cross-validation over benchmarks and by
leaving one project out, and prints fork 0's class against the human label and the best
accuracy any rule on (fork 0's own verdict, number of unsteady forks) could reach here.
``--grid`` does the same cross-validation over ``tolerance`` x ``min_steady_fraction`` x
the tolerated number of unsteady forks (20 x 5 options; about 2 minutes): the figure a
choice of all three on this split can be expected to reach on unseen benchmarks.

Protocol (fork 0 of each benchmark): *accuracy* is the share of forks whose steady /
no-steady answer equals the human label; *onset error* is, over the forks labelled steady,
``|start - median of the five annotators' onsets|``, a fork called "no steady state"
counting as 3000; *in band* is the share of steady-labelled forks whose start lies within
[min, max] of the five annotators' onsets.
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _compiled  # noqa: E402, F401

from pilotstats.changepoints import stable_phase, steady_state  # noqa: E402

MISS = 3000
Answer = tuple[bool, int]


def data_dir(argv: list[str]) -> Path | None:
    """The data folder from the command line or ``PILOTSTATS_JMH_DEV`` (None if absent)."""
    argv = [arg for arg in argv if arg not in ("--all-forks", "--cv", "--grid")]
    raw = argv[1] if len(argv) > 1 else os.environ.get("PILOTSTATS_JMH_DEV", "")
    if not raw:
        return None
    path = Path(raw).expanduser()
    return path if (path / "series_fork0.json.gz").is_file() else None


def load(folder: Path) -> tuple[dict[str, list[float]], dict[str, object], dict[str, object]]:
    """Series, human labels and CP-SSD's classification of the development split."""
    with gzip.open(folder / "series_fork0.json.gz", "rt") as handle:
        series = json.load(handle)
    labels = json.loads((folder / "manual_labels.json").read_text())
    cpssd = json.loads((folder / "cpssd_classification_all_forks.json").read_text())
    return series, labels, cpssd


def score(answers: Mapping[str, Answer], labels: Mapping[str, object]) -> dict[str, float]:
    """Accuracy, median onset error (miss = 3000) and in-band share (protocol above)."""
    correct = 0
    errors: list[float] = []
    inside = 0
    steady_count = 0
    for key, (steady, start) in answers.items():
        label = labels[key]
        assert isinstance(label, dict)
        correct += steady == label["steady"]
        if not label["steady"]:
            continue
        steady_count += 1
        onsets = list(label["steady_start"].values())
        if steady:
            errors.append(abs(start - statistics.median(onsets)))
            inside += min(onsets) <= start <= max(onsets)
        else:
            errors.append(MISS)
    return {
        "accuracy": correct / len(answers),
        "median_onset_error": statistics.median(errors),
        "in_band": inside / steady_count,
    }


def ours(series: Mapping[str, list[float]], **options: object) -> tuple[dict[str, Answer], float,
                                                                          Counter[str]]:
    """Run ``stable_phase`` on every fork: answers, seconds per fork and the classes."""
    answers: dict[str, Answer] = {}
    classes: Counter[str] = Counter()
    begin = time.process_time()
    for key, values in series.items():
        phase = stable_phase(np.asarray(values, dtype=float), **options)  # type: ignore[arg-type]
        answers[key] = (phase.found, phase.start)
        classes[phase.classification] += 1
    return answers, (time.process_time() - begin) / len(series), classes


def load_all_forks(folder: Path) -> dict[str, list[list[float]]] | None:
    """All ten forks of every benchmark, keyed like ``series_fork0`` (None if not built)."""
    path = folder / "series_all_forks.json.gz"
    if not path.is_file():
        return None
    with gzip.open(path, "rt") as handle:
        forks: dict[str, list[list[float]]] = json.load(handle)
    return {f"{key}_0": value for key, value in forks.items()}


def across_forks(forks: Mapping[str, list[list[float]]], **options: object) -> tuple[
        dict[str, Answer], float, Counter[str]]:
    """Run ``steady_state`` on every benchmark: fork 0's answers, seconds per benchmark and
    the benchmark verdicts."""
    answers: dict[str, Answer] = {}
    verdicts: Counter[str] = Counter()
    begin = time.process_time()
    for key, values in forks.items():
        result = steady_state(np.asarray(values, dtype=float), **options)  # type: ignore[arg-type]
        first = result[0]
        answers[key] = (first.steady, 0 if first.onset is None else first.onset)
        verdicts[result.verdict] += 1
    return answers, (time.process_time() - begin) / len(forks), verdicts


def cpssd_answers(series: Mapping[str, object], cpssd: Mapping[str, object]) -> dict[str, Answer]:
    """CP-SSD's fork-0 answers (``forks[0] == "steady state"``, ``steady_state_starts[0]``)."""
    answers = {}
    for key in series:
        record = cpssd[key.rsplit("_", 1)[0]]
        assert isinstance(record, dict)
        answers[key] = (record["forks"][0] == "steady state", int(record["steady_state_starts"][0]))
    return answers


def _accuracy(keys: list[str], own: Mapping[str, tuple[bool, int]], tolerated: int,
              labels: Mapping[str, object]) -> float:
    """Accuracy of fork 0 steady = own verdict steady and at most ``tolerated`` unsteady."""
    hits = 0
    for key in keys:
        label = labels[key]
        assert isinstance(label, dict)
        steady, unsteady = own[key]
        hits += (steady and unsteady <= tolerated) == label["steady"]
    return hits / len(keys)


def _own_verdicts(forks: Mapping[str, list[list[float]]], labels: Mapping[str, object],
                  **options: object) -> tuple[dict[str, tuple[bool, int]],
                                              Counter[tuple[str, str]]]:
    """Fork 0's own verdict and the number of unsteady forks of every benchmark, and the
    confusion of fork 0's class against the human label (``steady_state(**options)``)."""
    own: dict[str, tuple[bool, int]] = {}
    classes: Counter[tuple[str, str]] = Counter()
    for key, values in forks.items():
        result = steady_state(np.asarray(values, dtype=float), **options)  # type: ignore[arg-type]
        unsteady = sum(f.own_classification == "no_steady_state" for f in result)
        own[key] = (result[0].own_classification != "no_steady_state", unsteady)
        label = labels[key]
        assert isinstance(label, dict)
        classes[(result[0].classification, "steady" if label["steady"] else "no steady")] += 1
    return own, classes


#: The grid of ``--grid``: tolerance x min_steady_fraction (defaults 0.05, 0.2).
GRID = [(t, f) for t in (0.03, 0.035, 0.04, 0.045, 0.05) for f in (0.1, 0.125, 0.15, 0.2)]


def cross_validate(forks: Mapping[str, list[list[float]]], labels: Mapping[str, object],
                   grid: bool = False) -> None:
    """Cross-validation of the tolerated number of unsteady forks (with ``grid``, also of
    ``tolerance`` and ``min_steady_fraction``), confusion and ceiling."""
    configs = GRID if grid else [(0.05, 0.2)]
    owns = {}
    for tolerance, fraction in configs:
        owns[(tolerance, fraction)], found = _own_verdicts(
            forks, labels, tolerance=tolerance, min_steady_fraction=fraction)
        if (tolerance, fraction) == (0.05, 0.2):
            own, classes = owns[(tolerance, fraction)], found
    keys = sorted(own)
    choices = range(5)
    print("| tolerated unsteady forks | " + " | ".join(str(t) for t in choices) + " |")
    print("|---|" + "---|" * len(choices))
    for config, verdicts in owns.items():
        name = ("accuracy (whole split)" if not grid else
                f"tolerance {config[0]}, min_steady_fraction {config[1]}")
        print(f"| {name} | " + " | ".join(
            f"{_accuracy(keys, verdicts, t, labels):.3f}" for t in choices) + " |")
    print()
    order = np.random.default_rng(0).permutation(len(keys))
    folds = [[keys[i] for i in order[j::5]] for j in range(5)]
    projects = sorted({key.split("#")[0] for key in keys})
    by_project = [[key for key in keys if key.split("#")[0] == p] for p in projects]
    options = [(config, t) for config in owns for t in choices]

    def distance(option: tuple[tuple[float, float], int]) -> float:
        """Ties go to the option nearest the defaults."""
        (tolerance, fraction), t = option
        return 10 * abs(tolerance - 0.05) + abs(fraction - 0.2) + 0.1 * abs(t - 1)

    for name, groups in (("5-fold over benchmarks", folds),
                         (f"leave one project out ({len(projects)})", by_project)):
        hits, chosen = 0.0, []
        for test in groups:
            held = set(test)
            train = [key for key in keys if key not in held]
            best = max(options, key=lambda o: (
                round(_accuracy(train, owns[o[0]], o[1], labels), 9), -distance(o)))
            chosen.append(best)
            hits += _accuracy(test, owns[best[0]], best[1], labels) * len(test)
        picks = Counter(chosen) if grid else Counter(t for _, t in chosen)
        print(f"{name}: out-of-fold accuracy {hits / len(keys):.3f}; chosen {dict(picks)}")
    cells: dict[tuple[bool, int], Counter[bool]] = {}
    for key in keys:
        label = labels[key]
        assert isinstance(label, dict)
        cells.setdefault(own[key], Counter())[bool(label["steady"])] += 1
    best_rule = sum(max(c.values()) for c in cells.values()) / len(keys)
    print(f"ceiling of any rule on (fork 0's own verdict, number of unsteady forks), fitted "
          f"in-sample: {best_rule:.3f}\n")
    print("| fork 0 class (steady_state) | labelled steady | labelled no steady state |")
    print("|---|---|---|")
    for name in ("flat", "warmup", "slowdown", "no_steady_state"):
        print(f"| {name} | {classes[(name, 'steady')]} | {classes[(name, 'no steady')]} |")


def main(argv: list[str]) -> int:
    folder = data_dir(argv)
    if folder is None:
        print("JMH development split not found: pass its folder or set PILOTSTATS_JMH_DEV")
        return 2
    series, labels, cpssd = load(folder)
    if "--cv" in argv or "--grid" in argv:
        all_forks = load_all_forks(folder)
        if all_forks is None:
            print("series_all_forks.json.gz not found: build the split with --all-forks")
            return 2
        cross_validate(all_forks, labels, grid="--grid" in argv)
        return 0
    rows: list[tuple[str, dict[str, float], str]] = []
    runs: list[tuple[str, Callable[[], tuple[dict[str, Answer], float, Counter[str]]]]] = [
        ("stable_phase (defaults)", lambda: ours(series)),
    ]
    if "--all-forks" in argv:
        forks = load_all_forks(folder)
        if forks is None:
            print("series_all_forks.json.gz not found: build the split with --all-forks")
            return 2
        runs += [
            ("steady_state (10 forks, defaults)", lambda: across_forks(forks)),
            ("steady_state(max_unsteady_fraction=0)", lambda: across_forks(
                forks, max_unsteady_fraction=0.0)),
        ]
    else:
        runs += [
            ("stable_phase(method='robust')", lambda: ours(series, method="robust")),
            ("stable_phase(method='pilot')", lambda: ours(series, method="pilot")),
        ]
    stable_phase(np.asarray(next(iter(series.values())), dtype=float))  # compile kernels
    for name, run in runs:
        answers, seconds, classes = run()
        per = "benchmark" if name.startswith("steady_state") else "fork"
        detail = f"{1000 * seconds:.1f} ms/{per}; " + ", ".join(
            f"{k} {v}" for k, v in sorted(classes.items())
        )
        rows.append((name, score(answers, labels), detail))
    rows.append(("CP-SSD (Traini et al. 2023)", score(cpssd_answers(series, cpssd), labels), ""))
    steady = sum(1 for v in labels.values() if isinstance(v, dict) and v["steady"])
    print(f"JMH development split: {len(series)} forks, {steady} labelled steady\n")
    print("| method | accuracy | median onset error | in band | time, classes |")
    print("|---|---|---|---|---|")
    for name, result, detail in rows:
        print(
            f"| {name} | {result['accuracy']:.3f} | {result['median_onset_error']:.1f} | "
            f"{result['in_band']:.3f} | {detail} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
