"""Validation of queueing-network inputs: demands, populations, think times, server counts
and visits, plus the size and float64-range checks that reject problems up front
(``docs/algorithms/calibration.md``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from pilotstats._validation import as_float_array, check_closed_cycle
from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._queueing_results import (
    FloatArray,
)


def _demands(demands: Any, name: str = "demands") -> tuple[FloatArray, bool]:
    """Return demands as (K, C) and whether the input was one-dimensional (one class)."""
    from pilotstats._validation import reject_container_misuse

    reject_container_misuse(demands, name)
    try:
        raw = np.asarray(demands) if not isinstance(demands, (str, bytes)) else demands
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidInputError(
            f"{name} must be a 1-D or 2-D array of numbers; it could not be converted ({exc})"
        ) from exc
    ndim = getattr(raw, "ndim", None)
    if ndim not in (1, 2):
        raise InvalidInputError(
            f"{name} must be a 1-D array (one class, one value per station) or a 2-D "
            f"array of shape (stations, classes); got {raw!r:.60}"
        )
    array = as_float_array(raw, name, ndim=int(ndim))
    if (array < 0).any():
        index = np.argwhere(array < 0)[0]
        raise InvalidInputError(
            f"{name} must be non-negative (a service demand is a time); value "
            f"{array[tuple(index)]!r} at index {tuple(int(i) for i in index)}"
        )
    if array.ndim == 1:
        return np.ascontiguousarray(array[:, None]), True
    return np.ascontiguousarray(array), False


def _population(population: Any, n_classes: int, name: str = "population") -> FloatArray:
    """Validate an integer population (scalar for one class, else one per class)."""
    if isinstance(population, numbers.Number) and not isinstance(population, bool):
        values = [population]
    else:
        try:
            values = list(np.asarray(population).ravel())
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"{name} must be integers, got {population!r:.60}") from exc
    if len(values) != n_classes:
        raise InvalidInputError(
            f"{name} must give one population per class ({n_classes}), got {len(values)}"
        )
    out = np.empty(n_classes)
    for c, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise InvalidInputError(f"{name} must contain integers, got {value!r}")
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float64 range
            number = math.inf
        if not math.isfinite(number) or not number.is_integer():
            raise InvalidInputError(
                f"{name} must contain whole numbers of customers, got {value!r} for class "
                f"{c + 1}; round it or use amva for a fractional population"
            )
        if number < 0:
            raise InvalidInputError(f"{name} must be non-negative, got {value!r}")
        out[c] = number
    if out.sum() < 1:
        raise InvalidInputError(f"{name} must contain at least one customer, got {values}")
    return out


def _per_class(value: Any, n_classes: int, name: str) -> FloatArray:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        from pilotstats._validation import check_real

        array = np.full(n_classes, check_real(value, name, allow_inf=True))
    else:
        array = as_float_array(value, name, ndim=1)
        if array.shape[0] != n_classes:
            raise InvalidInputError(
                f"{name} must be a scalar or give one value per class ({n_classes}), got "
                f"{array.shape[0]} values"
            )
    if not np.isfinite(array).all() or (array < 0).any():
        raise InvalidInputError(f"{name} must be finite and non-negative, got {array.tolist()}")
    return array


def _servers(servers: Any, n_stations: int) -> FloatArray:
    """Server counts (integers >= 1, or inf for a delay station)."""
    if servers is None:
        return np.ones(n_stations)
    array = as_float_array(servers, "servers", allow_nonfinite=True)
    if array.shape[0] != n_stations:
        raise InvalidInputError(
            f"servers must give one count per station ({n_stations}), got {array.shape[0]}"
        )
    for k, value in enumerate(array):
        if math.isinf(value) and value > 0:
            continue
        if not math.isfinite(value) or not float(value).is_integer() or value < 1:
            raise InvalidInputError(
                f"servers must be whole numbers >= 1 (or inf for a delay station); station "
                f"{k} has {value!r}"
            )
    return array


def _visits(visits: Any, shape: tuple[int, int], one_class: bool) -> FloatArray:
    if visits is None:
        return np.ones(shape)
    raw = np.asarray(visits)
    array = as_float_array(raw, "visits", ndim=raw.ndim if raw.ndim in (1, 2) else 1)
    if array.ndim == 1:
        if array.shape[0] != shape[0]:
            raise InvalidInputError(
                f"visits must give one value per station ({shape[0]}), got {array.shape[0]}"
            )
        array = np.repeat(array[:, None], shape[1], axis=1)
    elif array.shape != shape:
        raise InvalidInputError(f"visits must have shape {shape}, got {array.shape}")
    if (array < 0).any():
        raise InvalidInputError("visits must be non-negative")
    return array


def _prepare(
    demands: Any, population: Any, think_time: Any, servers: Any, visits: Any
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, bool]:
    service, one_class = _demands(demands)
    k_count, c_count = service.shape
    pop = _population(population, c_count)
    think = _per_class(think_time, c_count, "think_time")
    srv = _servers(servers, k_count)
    total = service * _visits(visits, service.shape, one_class)
    check_closed_cycle(total, think, pop)
    return np.ascontiguousarray(total), pop, think, srv, one_class


