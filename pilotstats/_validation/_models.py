"""Input checks of regression, autocorrelation and session inputs, and of session option objects."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats import _config
from pilotstats._typing import (
    Float64Array1D,
    IndexType,
)
from pilotstats._validation._core import T, as_float_array, check_int, check_real
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
)

# --- reg: regression, autocorrelation and session inputs ---

_FloatArray = npt.NDArray[np.float64]


def check_autocorrelation_limit(limit: Any) -> float:
    """``autocorrelation_limit`` must lie in (0, 1]."""
    return check_real(limit, "autocorrelation_limit", low=0.0, high=1.0, low_inclusive=False)


def check_welch_side(
    mean: Any, var: Any, n: Any, side: str, names: tuple[str, str, str] | None = None
) -> tuple[float, float, int]:
    mean_name, var_name, n_name = names or (f"mean{side}", f"var{side}", f"n{side}")
    mean_value = check_real(mean, mean_name)
    var_value = check_real(var, var_name)
    if var_value < 0:
        raise InvalidInputError(f"{var_name} must be non-negative, got {var_value!r}")
    count = check_int(n, n_name, low=0)
    if count < 2:
        raise NotEnoughDataError(
            f"{n_name} = {count}: Welch's test needs at least 2 observations per side"
        )
    return mean_value, var_value, count


def as_outcomes(x: Any, name: str = "x") -> Float64Array1D:
    """Validate 0/1 outcomes (at least 2)."""
    values = as_float_array(x, name, min_length=2)
    if not bool(np.all((values == 0.0) | (values == 1.0))):
        bad = int(np.flatnonzero((values != 0.0) & (values != 1.0))[0])
        raise InvalidInputError(
            f"{name} must contain only 0/1 outcomes; value {values[bad]!r} at index {bad}"
        )
    return values


def check_predictions_nonzero(y: _FloatArray, observed: npt.NDArray[np.bool_]) -> None:
    bad = observed & (y == 0)
    if bad.any():
        t, j = np.argwhere(bad)[0]
        raise InvalidInputError(
            f"IRLS weights 1/y^2 need non-zero predictions; the model predicts 0 for trial "
            f"{int(t)}, measure {int(j)}; use weights=None or an explicit weight array"
        )


def check_servers(servers: _FloatArray) -> None:
    for k, value in enumerate(servers):
        if math.isinf(value) and value > 0:
            continue
        if not float(value).is_integer() or value < 1:
            raise InvalidInputError(
                f"server count of station {k} must be a whole number >= 1, got {value!r}; "
                "declare server parameters as integer= in calibrate"
            )


def check_mva_size(n_stations: int, populations: Any, what: str) -> None:
    """Reject problems whose exact solution would allocate more than ``MAX_MVA_CELLS``.

    Exact MVA stores one value per station and population-lattice point,
    ``K · Π_c (N_c + 1)`` cells; an absurd size must fail up front with a named error rather
    than exhaust memory or run for hours.
    """
    if n_stations > _config.MAX_STATIONS:
        raise InvalidInputError(
            f"{what}: {n_stations} stations exceed the supported maximum of "
            f"{_config.MAX_STATIONS}; aggregate stations into fewer, larger ones"
        )
    cells = float(n_stations)
    for count in np.atleast_1d(np.asarray(populations, dtype=np.float64)):
        cells *= float(count) + 1.0
    if cells > _config.MAX_MVA_CELLS:
        raise InvalidInputError(
            f"{what}: the exact solution needs {cells:.3g} cells (stations × population "
            f"lattice), more than the limit of {_config.MAX_MVA_CELLS}; use amva (approximate "
            f"MVA, O(K·C) memory) or a smaller population"
        )


def check_cycle_scale(
    demands: _FloatArray, think: _FloatArray, population: _FloatArray
) -> None:
    """Reject inputs whose cycle time ``N (Z + Σ D)`` overflows float64 (inf/NaN results)."""
    with np.errstate(over="ignore", invalid="ignore"):
        cycle = (think + demands.sum(axis=0)) * (population + 1.0)
    if not np.isfinite(cycle).all():
        raise InvalidInputError(
            "demands, think times and population are so large that the cycle time "
            "N·(Z + ΣD) overflows float64; rescale the times (e.g. use milliseconds -> "
            "seconds) before solving"
        )
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        total = think + demands.sum(axis=0)
        rate = (population + 1.0) / np.where(total > 0, total, 1.0)
    if not np.isfinite(rate).all() or ((total > 0) & (total < 1e-290)).any():
        raise InvalidInputError(
            "demands and think times are so small (subnormal) that throughputs N/(Z + ΣD) "
            "overflow float64; rescale the times (e.g. seconds -> microseconds) before solving"
        )


def check_text_path(path: Any) -> str:
    """A path given as ``str`` or ``os.PathLike``."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path:
        raise InvalidInputError(f"repo must be a directory path, got {path!r}")
    return path


def check_index_values(index_type: IndexType, values: Float64Array1D, name: str) -> None:
    """Check recorded values against the type of their index.

    Parameters
    ----------
    index_type : {"ordinary", "ratio", "binary"}
        Type of the index the values belong to.
    values : ndarray, shape (n,)
        The values (already finite numbers).
    name : str
        How error messages name the values.

    Raises
    ------
    InvalidInputError
        A binary index got a value other than 0 and 1, or a ratio index a value <= 0.
    """
    if index_type == "binary" and not np.all((values == 0.0) | (values == 1.0)):
        raise InvalidInputError(
            f"{name} belongs to a binary index and must hold only 0 and 1, got "
            f"{values[(values != 0.0) & (values != 1.0)][0]!r}"
        )
    if index_type == "ratio" and np.any(values <= 0.0):
        raise InvalidInputError(
            f"{name} belongs to a ratio index (harmonic mean) and must be > 0"
        )


def check_readings(
    readings: Any,
    *,
    n_earlier: int | None,
    n_declared: int,
    n_rounds: int,
    index_type: Callable[[int], IndexType],
) -> Float64Array1D | None:
    """Check a round's readings (one value per performance index).

    Parameters
    ----------
    readings : float, array_like or None
        The readings passed to :meth:`~pilotstats.session.BenchmarkSession.record`.
    n_earlier : int or None
        Number of readings indices of earlier rounds (None: no round had readings yet).
    n_declared : int
        Number of declared readings indices (0: none declared).
    n_rounds : int
        Rounds recorded before this one.
    index_type : callable
        Type of the index at a position.

    Returns
    -------
    ndarray or None
        The readings as a float array (None when there are none).

    Raises
    ------
    InvalidInputError
        Not finite numbers, another count than in earlier rounds or than declared, readings
        after rounds without any, or values not fitting their index type.
    """
    if readings is None:
        return None
    row = as_float_array(np.atleast_1d(readings), "readings")
    expected = n_earlier
    if expected is None and n_declared:
        expected = n_declared
    if expected is not None and row.shape[0] != expected:
        raise InvalidInputError(
            f"readings must have one value per performance index ({expected} as "
            f"{'declared' if n_earlier is None else 'in earlier rounds'}), "
            f"got {row.shape[0]}"
        )
    if n_earlier is None and n_rounds > 0:
        raise InvalidInputError(
            "readings must be given for every round (earlier rounds had none)"
        )
    for index in range(row.shape[0]):
        check_index_values(index_type(index), row[index : index + 1], f"readings[{index}]")
    return row


def check_unit_readings(
    unit_readings: Any,
    *,
    n_earlier: int,
    n_declared: int,
    index_type: Callable[[int], IndexType],
) -> list[Float64Array1D] | None:
    """Check a round's unit readings (one 1-D array per performance index).

    Parameters
    ----------
    unit_readings : array_like, sequence of array_like or None
        The unit readings passed to :meth:`~pilotstats.session.BenchmarkSession.record`:
        a 1-D array for a single index, or one 1-D array per index.
    n_earlier : int
        Number of unit-readings indices of earlier rounds (0: no round had any yet).
    n_declared : int
        Number of declared unit-readings indices (0: none declared).
    index_type : callable
        Type of the index at a position.

    Returns
    -------
    list of ndarray or None
        One float array per index (None when there are none).

    Raises
    ------
    InvalidInputError
        Not finite numbers, another count than in earlier rounds or than declared, an empty
        array in the first round with unit readings, or values not fitting their index type.
    """
    if unit_readings is None:
        return None
    items: list[Any]
    if (
        isinstance(unit_readings, (list, tuple))
        and unit_readings
        and all(np.ndim(item) == 1 for item in unit_readings)
    ):
        items = list(unit_readings)
    else:
        items = [unit_readings]
    rows = [
        as_float_array(item, f"unit_readings[{i}]", min_length=0)
        for i, item in enumerate(items)
    ]
    expected = n_earlier or n_declared or None
    if expected is not None and len(rows) != expected:
        raise InvalidInputError(
            f"unit_readings must have one array per performance index ({expected} as "
            f"{'in earlier rounds' if n_earlier else 'declared'}), got {len(rows)}"
        )
    if not n_earlier:
        empty = [i for i, row in enumerate(rows) if row.shape[0] == 0]
        if empty:
            raise InvalidInputError(
                f"unit_readings[{empty[0]}] is empty in the first round with unit "
                "readings: an index without readings can never meet its target; pass "
                "None for a round without unit readings"
            )
    for index, row in enumerate(rows):
        check_index_values(index_type(index), row, f"unit_readings[{index}]")
    return rows


def check_closed_cycle(
    demands: _FloatArray, think: _FloatArray, population: _FloatArray | None = None
) -> None:
    """Every (populated) class of a closed network needs a positive think time or demand.

    With ``population`` the cycle time must also fit in float64 (:func:`check_cycle_scale`)
    and classes of population 0 are exempt; without it every class is checked.
    """
    if population is not None:
        check_cycle_scale(demands, think, population)
    for c in range(demands.shape[1]):
        if (population is None or population[c] > 0) and think[c] + demands[:, c].sum() <= 0:
            raise InvalidInputError(
                f"class {c + 1} has zero think time and zero total demand, so its throughput "
                "is unbounded; give a positive demand or think time"
            )


def as_arrival_rates(arrival_rate: Any, n_classes: int) -> _FloatArray:
    """Open-class arrival rates: one positive finite value per class (a scalar is broadcast)."""
    if isinstance(arrival_rate, numbers.Real) and not isinstance(arrival_rate, bool):
        rates = np.full(n_classes, check_real(arrival_rate, "arrival_rate", allow_inf=True))
    else:
        rates = as_float_array(arrival_rate, "arrival_rate", ndim=1)
    if rates.shape[0] != n_classes or not (rates > 0).all() or not np.isfinite(rates).all():
        raise InvalidInputError(
            f"arrival_rate must be {n_classes} positive finite value(s), got {rates.tolist()}"
        )
    return rates


def check_conditions_sequence(conditions: Any) -> None:
    """Calibration ``conditions``: a sequence with one entry per trial (not a string or set)."""
    if isinstance(conditions, (str, bytes, Mapping, set, frozenset)) or not hasattr(
        conditions, "__len__"
    ):
        raise InvalidInputError(
            f"conditions must be a sequence with one entry per trial, got "
            f"{type(conditions).__name__}"
        )


def check_pool_size(pool_size: Any) -> float:
    """A thread-pool size: a whole number >= 1, or ``inf`` for an unlimited pool."""
    if isinstance(pool_size, bool) or not isinstance(pool_size, numbers.Real):
        raise InvalidInputError(f"pool_size must be a whole number >= 1 or inf, got {pool_size!r}")
    try:
        m = float(pool_size)
    except OverflowError:
        m = math.nan
    if not (math.isinf(m) and m > 0) and (not m.is_integer() or m < 1):
        raise InvalidInputError(f"pool_size must be a whole number >= 1 or inf, got {pool_size!r}")
    return m


# --- sess: session option objects ---

def check_option(value: T, name: str, cls: type) -> T:
    """Return ``value`` if it is an instance of the option class ``cls``.

    Raises
    ------
    InvalidInputError
        Another type.
    """
    if not isinstance(value, cls):
        raise InvalidInputError(
            f"{name} must be a {cls.__name__}, got {type(value).__name__}"
        )
    return value
