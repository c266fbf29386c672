"""Input of MDL partitioning: runs parsed from any sequence, NaN policy, value range checks.

Shared by :func:`~pilotstats.changepoints.mdl_partition` and
:class:`~pilotstats.changepoints.MdlStream`: a run is one number or a non-empty sequence of
samples; :func:`_parse_values` flattens runs into samples with their offsets, applies the NaN
policy, and the checks reject values the code-length arithmetic cannot hold.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._typing import Float64Array1D
from pilotstats.exceptions import (
    DataRangeWarning,
    InvalidInputError,
    NotEnoughDataError,
    PerformanceWarning,
)

__all__: list[str] = []


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _warn_size(n_runs: int, what: str, stacklevel: int = 3) -> None:
    """PerformanceWarning above ``_config.MDL_WARN_SIZE`` runs (O(N²) worst case)."""
    if n_runs > _config.MDL_WARN_SIZE:
        warnings.warn(
            f"{what}: {n_runs} runs is above {_config.MDL_WARN_SIZE}; the MDL programme is "
            "O(N²) when no level change lets the pruning discard candidates (i.i.d. noise) "
            "and can take minutes; pass max_history= (bounded history, O(N·H)) or "
            "partition a window or per-day means instead",
            PerformanceWarning,
            stacklevel=stacklevel,
        )


def _finite_float(value: Any, name: str) -> float:
    """``float(value)``, with a named error for integers beyond the float64 range."""
    try:
        return float(value)
    except OverflowError:
        raise InvalidInputError(
            f"{name} is an integer too large for float64 ({len(str(value))} digits); "
            "rescale the values"
        ) from None


def _parse_run(run: Any, index: int, name: str) -> list[float]:
    """Samples of one run (a real number or a non-empty iterable of reals)."""
    if _is_real(run):
        return [_finite_float(run, f"{name}[{index}]")]
    if isinstance(run, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name}[{index}] is a boolean ({run!r}); runs must be real numbers or "
            "non-empty sequences of real numbers"
        )
    if isinstance(run, (str, bytes)) or not isinstance(run, Iterable):
        raise InvalidInputError(
            f"{name}[{index}] must be a real number or a non-empty sequence of real "
            f"numbers (the samples of one test run), got {type(run).__name__} {run!r:.60}"
        )
    if isinstance(run, np.ndarray) and run.ndim != 1:
        raise InvalidInputError(
            f"{name}[{index}] must be a number or a 1-D sequence of samples, got an "
            f"array of shape {run.shape}"
        )
    samples: list[float] = []
    for position, sample in enumerate(run):
        if not _is_real(sample):
            raise InvalidInputError(
                f"{name}[{index}][{position}] must be a real number, got "
                f"{type(sample).__name__} {sample!r:.60}; a run is a flat sequence of "
                "samples (nested runs are not allowed)"
            )
        samples.append(_finite_float(sample, f"{name}[{index}][{position}]"))
    if not samples:
        raise InvalidInputError(
            f"{name}[{index}] is an empty run; every run needs at least one sample "
            "(drop the run, or pass NaN with nan_policy='omit' to mark it missing)"
        )
    return samples


@dataclasses.dataclass
class _Runs:
    """Parsed runs: per present run its statistics, plus per original run flags."""

    samples: Float64Array1D  # all present samples, run after run
    offsets: np.ndarray  # int64, per present run
    original: np.ndarray  # int64: original run index of each present run
    n_original: int
    replaced: np.ndarray  # bool, per original run
    missing: np.ndarray  # bool, per original run


def _apply_nan_policy(
    samples: list[float], index: int, policy: str, name: str
) -> tuple[list[float], bool]:
    replaced = False
    if any(math.isinf(x) for x in samples):
        raise InvalidInputError(
            f"{name}[{index}] contains an infinite value; the MDL model needs finite "
            "samples (remove the run or replace the value)"
        )
    if any(math.isnan(x) for x in samples):
        if policy == "raise":
            raise InvalidInputError(
                f"{name}[{index}] contains NaN; remove it, or pass nan_policy='omit' "
                "(drop NaN samples) or nan_policy='zero' (CSIT-Dash: a failed run is 0)"
            )
        if policy == "omit":
            samples = [x for x in samples if not math.isnan(x)]
        else:
            samples = [0.0 if math.isnan(x) else x for x in samples]
            replaced = True
    return samples, replaced


def _reject_container(values: Any, name: str) -> None:
    """A number, a string, a mapping or a set is not a sequence of runs (an array is
    checked by dtype and shape instead)."""
    if isinstance(values, (str, bytes)) or _is_real(values):
        raise InvalidInputError(
            f"{name} must be a sequence of runs (numbers or sequences of numbers), got "
            f"{type(values).__name__}"
        )
    if isinstance(values, Mapping) or isinstance(values, (set, frozenset)):
        raise InvalidInputError(
            f"{name} must be a sequence of runs in time order, got a "
            f"{type(values).__name__} (unordered or keyed); pass list(mapping.values()) "
            "for a mapping's values in key order"
        )


def _numeric_vector(values: np.ndarray, name: str) -> np.ndarray | None:
    """A float64 copy of a 1-D numeric array (one sample per run); None for an array of
    runs (object dtype or 2-D)."""
    if values.dtype.kind == "b":
        raise InvalidInputError(f"{name} must contain real numbers, got a boolean array")
    if values.ndim == 1 and values.dtype.kind in "iuf":
        return np.array(values, dtype=np.float64, copy=True)
    if values.ndim == 0:
        raise InvalidInputError(f"{name} must be a sequence of runs, got a 0-d array")
    if values.dtype.kind not in "iufO":
        raise InvalidInputError(
            f"{name} must contain real numbers, got an array of dtype {values.dtype}"
        )
    return None


def _parse_vector(fast: np.ndarray, policy: str, name: str) -> _Runs:
    """The runs of a float64 vector (one sample each) under the NaN policy."""
    n = fast.shape[0]
    if n == 0:
        raise NotEnoughDataError(f"{name} is empty; need at least one run")
    replaced = np.zeros(n, dtype=bool)
    missing = np.zeros(n, dtype=bool)
    if np.isfinite(fast).all():  # the common case: every run present, none replaced
        keep = np.arange(n, dtype=np.int64)
        return _Runs(fast, np.arange(n + 1, dtype=np.int64), keep, n, replaced, missing)
    if np.isinf(fast).any():
        index = int(np.flatnonzero(np.isinf(fast))[0])
        raise InvalidInputError(
            f"{name}[{index}] is infinite; the MDL model needs finite samples"
        )
    nan = np.isnan(fast)
    if policy == "raise":
        index = int(np.flatnonzero(nan)[0])
        raise InvalidInputError(
            f"{name}[{index}] is NaN; remove it, or pass nan_policy='omit' (drop "
            "NaN samples) or nan_policy='zero' (CSIT-Dash: a failed run is 0)"
        )
    if policy == "zero":
        fast[nan] = 0.0
        replaced = nan.copy()
    else:
        missing = nan.copy()
    keep = np.flatnonzero(~missing)
    samples = np.ascontiguousarray(fast[keep])
    offsets = np.arange(keep.size + 1, dtype=np.int64)
    return _Runs(samples, offsets, keep.astype(np.int64), n, replaced, missing)


def _parse_items(values: Any, policy: str, name: str) -> _Runs:
    """The runs of a sequence (or iterable) of numbers and sequences of numbers."""
    try:
        items = list(values)
    except TypeError as exc:
        raise InvalidInputError(
            f"{name} must be a sequence of runs (numbers or sequences of numbers), got "
            f"{type(values).__name__}"
        ) from exc
    if not items:
        raise NotEnoughDataError(f"{name} is empty; need at least one run")
    flat: list[float] = []
    offsets_list = [0]
    original: list[int] = []
    replaced_list: list[bool] = []
    missing_list: list[bool] = []
    for index, run in enumerate(items):
        samples_run = _parse_run(run, index, name)
        samples_run, was_replaced = _apply_nan_policy(samples_run, index, policy, name)
        replaced_list.append(was_replaced)
        missing_list.append(not samples_run)
        if samples_run:
            flat.extend(samples_run)
            offsets_list.append(len(flat))
            original.append(index)
    return _Runs(
        np.array(flat, dtype=np.float64),
        np.array(offsets_list, dtype=np.int64),
        np.array(original, dtype=np.int64),
        len(items),
        np.array(replaced_list, dtype=bool),
        np.array(missing_list, dtype=bool),
    )


def _parse_values(values: Any, policy: str, name: str = "x") -> _Runs:
    """The runs of ``values`` (a vector, an array of runs or a sequence) under the NaN
    policy ``"raise"``, ``"omit"`` or ``"zero"``."""
    if not isinstance(values, np.ndarray):
        _reject_container(values, name)
        if hasattr(values, "__array__"):
            values = np.asarray(values)  # pandas/polars series and other array-likes
    if isinstance(values, np.ndarray):
        fast = _numeric_vector(values, name)
        if fast is not None:
            return _parse_vector(fast, policy, name)
    return _parse_items(values, policy, name)


def _warn_mixed_signs(
    min_value: float, max_value: float, name: str, stacklevel: int = 3
) -> None:
    if max_value > 0.0 and min_value < 0.0:
        warnings.warn(
            f"{name} has negative samples (minimum {min_value!r}); the MDL model "
            "codes group means on [0, max], so results on mixed-sign data are unvalidated "
            "(they match jumpavg). Shift the data to a non-negative range if you can",
            DataRangeWarning,
            stacklevel=stacklevel,
        )
