"""Accuracy of ``detect_changes`` on the Turing Change Point Dataset (TCPD), next to the
published TCPDBench scores of 14 methods on the same series.

Run from the repository root (needs ``../shared/datasets/tcpd``)::

    python benchmarks/bench_detect_tcpd.py

Protocol (TCPDBench, van den Burg & Williams, arXiv:2003.06222; metric definitions as in
``datasets/tcpd/README.md``): univariate series only, without the five quality_control
series and uk_coal_employ (missing values), i.e. the 25 redistributable series present;
F1 with margin 5 and segmentation cover against the five annotators; index 0 added to every
set; methods with defaults ("default" experiment), a failure scored 0. Our detector is run
with its defaults (``min_size=30``) and with ``min_size=5`` (most TCPD series are short:
median n is about 150, several have fewer than 60 points, where ``min_size=30`` cannot split).
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _compiled  # noqa: E402, F401

from pilotstats.changepoints import detect_changes  # noqa: E402

TCPD = ROOT.parent / "shared" / "datasets" / "tcpd"
EXCLUDED = {f"quality_control_{i}" for i in range(1, 6)} | {"uk_coal_employ", "run_log"}
MARGIN = 5
CONFIGURATIONS = (
    ("detect_changes (defaults: min_size 30, level and variance)", 30, None),
    ("detect_changes (min_size 30, variance_changes=False: level only)", 30, False),
    ("detect_changes (min_size 5)", 5, None),
    ("detect_changes (min_size 5, variance_changes=False)", 5, False),
)


def true_positives(truth: set[int], prediction: set[int], margin: int) -> int:
    """Count true points matched by an unused prediction within ``margin``."""
    unused = sorted(prediction)
    found = 0
    for point in sorted(truth):
        close = [p for p in unused if abs(p - point) <= margin]
        if close:
            best = min(close, key=lambda p: abs(p - point))
            unused.remove(best)
            found += 1
    return found


def f1_score(annotations: dict[str, list[int]], prediction: list[int], n: int) -> float:
    predicted = {0, *prediction}
    sets = [{0, *points} for points in annotations.values()]
    union = set().union(*sets)
    precision = true_positives(union, predicted, MARGIN) / len(predicted)
    recall = statistics.mean(true_positives(s, predicted, MARGIN) / len(s) for s in sets)
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def segments(points: set[int], n: int) -> list[set[int]]:
    bounds = sorted({0, *points, n})
    return [set(range(a, b)) for a, b in itertools.pairwise(bounds) if b > a]


def cover_score(annotations: dict[str, list[int]], prediction: list[int], n: int) -> float:
    predicted = segments(set(prediction), n)
    scores = []
    for points in annotations.values():
        total = 0.0
        for reference in segments(set(points), n):
            best = max(len(reference & p) / len(reference | p) for p in predicted)
            total += len(reference) * best
        scores.append(total / n)
    return statistics.mean(scores)


def main() -> None:
    annotations = json.loads((TCPD / "annotations.json").read_text())
    published_f1 = json.loads((TCPD / "published_scores" / "default_f1_scores.json").read_text())
    published_cover = json.loads(
        (TCPD / "published_scores" / "default_cover_scores.json").read_text()
    )
    names = sorted(p.stem for p in (TCPD / "datasets").glob("*.json") if p.stem not in EXCLUDED)
    ours: dict[str, dict[str, list[float]]] = {
        label: {"f1": [], "cover": []} for label, _, _ in CONFIGURATIONS
    }
    for name in names:
        data = json.loads((TCPD / "datasets" / f"{name}.json").read_text())
        x = np.asarray(data["series"][0]["raw"], dtype=float)
        x = (x - x.mean()) / x.std()  # TCPDBench z-scores every series
        n = x.size
        for label, size, variance_changes in CONFIGURATIONS:
            found = list(detect_changes(x, min_size=size,
                                        variance_changes=variance_changes).locations)
            ours[label]["f1"].append(f1_score(annotations[name], found, n))
            ours[label]["cover"].append(cover_score(annotations[name], found, n))
    methods = sorted(next(iter(published_f1.values())).keys())
    print(f"TCPD, {len(names)} univariate series (default experiment)\n")
    print("| method | mean F1 | mean cover |")
    print("|---|---|---|")
    rows = []
    for method in methods:
        f1 = statistics.mean(published_f1[s][method] or 0.0 for s in names)
        cover = statistics.mean(published_cover[s][method] or 0.0 for s in names)
        rows.append((method, f1, cover))
    for label, scores in ours.items():
        rows.append(
            (f"**{label}**", statistics.mean(scores["f1"]), statistics.mean(scores["cover"]))
        )
    for method, f1, cover in sorted(rows, key=lambda r: -r[1]):
        print(f"| {method} | {f1:.3f} | {cover:.3f} |")


if __name__ == "__main__":
    main()
