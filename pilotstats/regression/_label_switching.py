"""Detection of permutation-symmetric (label-switching) calibration solutions.

Woodside's tutorial (WOSP/SIPEW 2010, slide 47) warns that interchangeable parameters, such
as the demands of two queues when only response times and throughputs are measured, are
determined only up to a relabelling: "fix one of two interchangeable parameters". After a
fit, :func:`_interchangeable` swaps candidate parameters and re-evaluates the weighted sum of
squares S; a swap of two clearly different values that leaves S unchanged is label switching
(``docs/algorithms/calibration.md``, *Label switching*).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._calibration_problem import FloatArray, _Problem, _Whitener

#: Relative tolerance on S: a permutation whose S is within it of S(x̂) leaves the fit unchanged.
_S_TOLERANCE = 1e-8
#: Two values closer than this (relative) are not "different labels" (the rank check covers them).
_VALUE_TOLERANCE = 1e-3
#: Generic models (no declared symmetries) are probed by all transpositions up to this size.
_MAX_GENERIC = 8


def _candidates(model: Any, n: int, free: npt.NDArray[np.int64]) -> list[tuple[int, ...]]:
    """Permutations of the parameter vector to try: the model's declared symmetries, else
    every transposition of two continuous estimated parameters (small problems only)."""
    declared = getattr(model, "symmetric_permutations", None)
    if declared is not None:
        return [tuple(int(v) for v in p) for p in declared if len(p) == n]
    if free.size > _MAX_GENERIC:
        return []
    out = []
    for a_pos, a in enumerate(free):
        for b in free[a_pos + 1:]:
            perm = list(range(n))
            perm[int(a)], perm[int(b)] = int(b), int(a)
            out.append(tuple(perm))
    return out


def _interchangeable(
    problem: _Problem,
    whiten: _Whitener,
    x: FloatArray,
    sse: float,
    free: npt.NDArray[np.int64],
    names: tuple[str, ...],
    lower: FloatArray,
    upper: FloatArray,
) -> tuple[tuple[str, ...], ...]:
    """Groups of parameter names whose values can be permuted without changing S.

    Only permutations that move estimated (free) parameters and keep every value within
    its bounds are tried; the model evaluations are not counted in ``n_evaluations``.
    """
    free_set = {int(i) for i in free}
    groups: list[set[int]] = []
    evaluations = problem.evaluations
    for perm in _candidates(problem.model, x.shape[0], free):
        moved = [i for i in range(x.shape[0]) if perm[i] != i]
        if not moved or not set(moved) <= free_set:
            continue
        trial = x[list(perm)]
        scale = np.maximum(np.abs(x[moved]), np.abs(trial[moved]))
        if np.all(np.abs(trial[moved] - x[moved]) <= _VALUE_TOLERANCE * scale):
            continue
        if (trial < lower).any() or (trial > upper).any():
            continue
        try:
            r = whiten(problem.z - problem.evaluate(trial))
        except InvalidInputError:
            continue
        if float(r @ r) <= sse * (1 + _S_TOLERANCE) + np.finfo(np.float64).tiny:
            members = set(moved)
            for group in [g for g in groups if g & members]:
                members |= group
                groups.remove(group)
            groups.append(members)
    problem.evaluations = evaluations
    return tuple(tuple(names[i] for i in sorted(g)) for g in sorted(groups, key=min))


def _message(groups: tuple[tuple[str, ...], ...], sse: float) -> str:
    listed = "; ".join(", ".join(g) for g in groups)
    return (
        f"label switching: permuting the fitted values of {listed} leaves the weighted sum "
        f"of squares unchanged (S = {sse:.6g}), so the data cannot tell these parameters "
        "apart and their labels are arbitrary. Measure per-station quantities (residence "
        "times or utilizations) or hold one of them fixed (calibrate(..., fixed=...); "
        "Woodside's tutorial, slide 47)"
    )
