"""Brute-force references for the MDL partitioning (spec ``specs/mdl.md`` §4–§6).

A direct transcription with per-candidate run lists: every candidate group keeps the list
of its runs, statistics are rebuilt by the sequential merge of §6 and every code length is
evaluated from scratch with Python's ``math``. O(N³) time; for small tests only. Also an
exhaustive search over all partitions (n <= 12) to document the programme-vs-optimum gap
of §5.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

Stats = tuple[int, float, float]


def merge(runs: Sequence[Stats]) -> Stats:
    """Spec §6 merge of run statistics taken in order."""
    size, avg, moment = 0, 0.0, 0.0
    for run_size, run_avg, run_sd in runs:
        if run_size < 1:
            continue
        delta = run_avg - avg
        old = size
        size += run_size
        avg += delta * run_size / size
        moment += run_sd * run_sd * run_size
        moment += delta * delta * old * run_size / size
    return size, avg, math.sqrt(moment / size)


def run_stats(run: float | Sequence[float]) -> Stats:
    """A scalar sample is the run (1, x, 0); a sequence is merged sample by sample."""
    if isinstance(run, (int, float)):
        return 1, float(run), 0.0
    return merge([(1, float(x), 0.0) for x in run])


def group_stats(runs: Sequence[Stats]) -> Stats:
    """Statistics of a group as the programme builds them: new group, then extensions."""
    stats = merge([runs[0]])
    for run in runs[1:]:
        stats = merge([stats, run])
    return stats


def bits(stats: Stats, prev_avg: float | None, max_value: float, unit: float) -> float:
    """Spec §4 code length of one group, in the §6 order of operations."""
    size, avg, stdev = merge([stats])
    result = 0.0
    m = max_value / unit
    a = avg / unit
    result += math.log(size * (size + 1), 2)
    if prev_avg is None:
        result += math.log(m + 1, 2)
    else:
        p = prev_avg / unit
        z = p * p
        z -= (p - 1) * m
        z += m * m / 2
        result -= math.log((abs(a - p) + 1) / z, 2)
    if size < 2:
        return result
    s = stdev / unit
    result += math.log((s + 1) * (s + 2), 2)
    result += math.log(1 - 1 / (m + 2), 2)
    sphere = math.log(2)
    sphere += math.log(math.pi) * ((size - 1) / 2)
    sphere -= math.lgamma((size - 1) / 2)
    sphere += math.log(s + 1) * (size - 2)
    sphere += math.log(size) * ((size - 2) / 2)
    return result + sphere / math.log(2)


def unit_and_max(
    values: Sequence[float | Sequence[float]], unit: float | None, sbps: float | None
) -> tuple[float, float]:
    max_value = 0.0
    for run in values:
        for x in [run] if isinstance(run, (int, float)) else run:
            max_value = max(max_value, float(x))
    if unit is None:
        unit = max_value / (pow(2.0, (12.0 if sbps is None else sbps) + 1.0) - 1.0)
    return unit, max_value


def naive_partition(
    values: Sequence[float | Sequence[float]],
    unit: float | None = None,
    sbps: float | None = None,
) -> tuple[list[int], float, list[str]]:
    """Spec §5 programme with explicit candidate lists.

    Returns
    -------
    starts : list of int
        Start run of every group.
    total_bits : float
        F(n).
    labels : list of str
        Labels (higher is better).
    """
    unit, max_value = unit_and_max(values, unit, sbps)
    runs = [run_stats(v) for v in values]
    n = len(runs)
    best: list[float] = [0.0]
    last_avg: list[float | None] = [None]
    best_start: list[int] = []
    for i in range(1, n + 1):
        # Candidate j (1-based) groups runs j..i after the best prefix j-1.
        def candidate(j: int, i: int = i) -> tuple[float, Stats]:
            stats = group_stats(runs[j - 1 : i])
            return best[j - 1] + bits(stats, last_avg[j - 1], max_value, unit), stats

        record, record_stats = candidate(i)
        record_j = i
        for j in range(1, i):
            value, stats = candidate(j)
            if value < record:
                record, record_stats, record_j = value, stats, j
        best.append(record)
        last_avg.append(merge([record_stats])[1])
        best_start.append(record_j - 1)
    starts: list[int] = []
    end = n
    while end > 0:
        starts.append(best_start[end - 1])
        end = best_start[end - 1]
    starts.reverse()
    means = []
    for g, start in enumerate(starts):
        stop = starts[g + 1] if g + 1 < len(starts) else n
        means.append(merge([group_stats(runs[start:stop])])[1])
    labels = ["normal"]
    for g in range(1, len(means)):
        if means[g] < means[g - 1]:
            labels.append("regression")
        elif means[g] > means[g - 1]:
            labels.append("progression")
        else:
            labels.append("normal")
    return starts, best[n], labels


def partition_bits(
    values: Sequence[float | Sequence[float]],
    starts: Sequence[int],
    unit: float | None = None,
    sbps: float | None = None,
) -> float:
    """Total code length of a given partition (each group coded after the previous mean)."""
    unit, max_value = unit_and_max(values, unit, sbps)
    runs = [run_stats(v) for v in values]
    total = 0.0
    prev: float | None = None
    bounds = [*starts, len(runs)]
    for g in range(len(starts)):
        stats = group_stats(runs[bounds[g] : bounds[g + 1]])
        total += bits(stats, prev, max_value, unit)
        prev = merge([stats])[1]
    return total


def exhaustive_minimum(
    values: Sequence[float | Sequence[float]],
    unit: float | None = None,
    sbps: float | None = None,
) -> tuple[list[int], float]:
    """True minimum of the total code length over all 2^(n−1) partitions (n <= 12)."""
    n = len(values)
    best_starts: list[int] = [0]
    best_value = partition_bits(values, [0], unit, sbps)
    for mask in itertools.product((False, True), repeat=n - 1):
        starts = [0] + [i + 1 for i, cut in enumerate(mask) if cut]
        value = partition_bits(values, starts, unit, sbps)
        if value < best_value:
            best_value, best_starts = value, starts
    return best_starts, best_value
