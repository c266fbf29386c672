"""The significance guard of :func:`~pilotstats.changepoints.detect_changes`.

Backward elimination of the candidates, re-scans of the segments left between the confirmed
change points (bounded passes, stopping on a repeated segmentation), and the test whether a
larger autocorrelation inflation would make a confirmed change point fail.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pilotstats import _config
from pilotstats.changepoints._detect_scan import _refine, _Scan, _scan_all, _scan_p_value, _Scanner

__all__: list[str] = []


@dataclass(frozen=True, slots=True)
class _Guarded:
    locations: tuple[int, ...]
    p_values: tuple[float, ...]
    statistics: tuple[float, ...]
    kinds: tuple[str, ...]
    passes: int


def _eliminate(
    scanner: _Scanner, candidates: Sequence[int], n: int, threshold: float
) -> tuple[list[int], list[_Scan]]:
    """Backward elimination of ``candidates``.

    Each round tests the window between the two neighbours of every change point and drops
    the change point with the largest p-value if it exceeds ``threshold`` (ties: the smaller
    statistic, then the leftmost). When all survive, locations are refined to the window
    location estimate and the test is repeated on the refined segmentation; the loop ends
    when every remaining change point passes after one refinement. Scans and locations are
    memoised per window, so each round costs two new window scans.
    """
    locations = [int(c) for c in candidates]
    scans: list[_Scan] = []
    refined_once = False
    while locations:
        scans = _scan_all(scanner, locations, n)
        worst = max(range(len(scans)), key=lambda j: (scans[j].p_value, -scans[j].statistic, -j))
        if scans[worst].p_value > threshold:
            del locations[worst]
            refined_once = False
            continue
        if refined_once:
            break
        moved = _refine(scanner, locations, n)
        refined_once = True
        if moved == locations:
            break
        locations = moved
    return locations, scans if locations else []


def _rescan(scanner: _Scanner, locations: Sequence[int], n: int, threshold: float) -> list[int]:
    """Significant splits of the confirmed segments (one binary-segmentation step)."""
    bounds = [0, *locations, n]
    found = []
    for left, right in itertools.pairwise(bounds):
        if right - left >= 2 * scanner.min_size:
            if scanner.scan(left, right).p_value <= threshold:
                found.append(scanner.locate(left, right))
    return found


def _guard(scanner: _Scanner, candidates: Sequence[int], n: int, threshold: float) -> _Guarded:
    """Confirm ``candidates`` by backward elimination, then look for missed changes.

    After :func:`_eliminate`, every confirmed segment of length >= 2·δ is tested with the
    same scan; significant splits are added and the elimination is rerun. This repeats
    until nothing changes, a segmentation comes back that was already seen (the
    refinement of one pass undoing that of another, which on heavy-tailed real rounds
    otherwise cycled up to n // δ times), or ``_config.DETECT_MAX_GUARD_PASSES`` passes
    were made; the last confirmed segmentation is returned. EDM's greedy dynamic programme
    can miss a clear change, which this step recovers; each pass splits every
    segment that still holds a change, so a handful of passes suffices.
    """
    locations, scans = _eliminate(scanner, candidates, n, threshold)
    seen = {tuple(locations)}
    passes = 0
    limit = max(1, int(_config.DETECT_MAX_GUARD_PASSES))
    while passes < limit:
        passes += 1
        extra = _rescan(scanner, locations, n, threshold)
        if not extra:
            break
        merged = sorted(set(locations) | set(extra))
        updated, updated_scans = _eliminate(scanner, merged, n, threshold)
        if tuple(updated) in seen:
            break
        seen.add(tuple(updated))
        locations, scans = updated, updated_scans
    bounds = [0, *locations, n]
    kinds = tuple(scanner.kind(bounds[j], bounds[j + 2]) for j in range(len(locations)))
    return _Guarded(
        tuple(locations),
        tuple(sc.p_value for sc in scans),
        tuple(sc.statistic for sc in scans),
        kinds,
        passes,
    )


def _refit_needed(
    guarded: _Guarded,
    inflations: tuple[float, float],
    fitted: tuple[float, float],
    n: int,
    min_size: int,
    threshold: float,
    tests: int,
) -> bool:
    """Whether the larger inflations ``fitted`` would make a confirmed change point fail.

    ``inflations`` and ``fitted`` hold the (level, variance) inflations in use and those
    re-estimated under the fitted segmentation. A change point of kind ``"level"`` is
    tested on the values, one of kind ``"variance"`` on the absolute differences, so its
    statistic scales by ``sqrt(inflation / fitted)`` of its own scan; when every confirmed
    change point stays below ``threshold`` with its window's selection-adjusted p-value
    (times ``tests``, the Bonferroni factor of ``variance_changes=True``), the segmentation
    stands (re-scans only get harder) and the guard is not rerun.
    """
    if not guarded.locations:
        return False
    bounds = [0, *guarded.locations, n]
    shrink = {
        "level": math.sqrt(inflations[0] / max(fitted[0], inflations[0])),
        "variance": math.sqrt(inflations[1] / max(fitted[1], inflations[1])),
    }
    return any(
        tests * _scan_p_value(statistic * shrink[kind], bounds[j + 2] - bounds[j], min_size)
        > threshold
        for j, (statistic, kind) in enumerate(zip(guarded.statistics, guarded.kinds, strict=True))
        if shrink[kind] < 1.0
    )
