"""Input coercion and checks shared by every public function.

Public functions never trust their arguments: data go through :func:`as_float_array`
(a fresh, C-contiguous float64 copy, so caller data are never modified) and parameters
through the ``check_*`` helpers, which raise :class:`~pilotstats.exceptions.InvalidInputError`
or :class:`~pilotstats.exceptions.NotEnoughDataError` with a message that names the argument,
says what was wrong and what is needed.
"""

from __future__ import annotations

import datetime
import datetime as _dt
import math
import numbers
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import numpy as np
import numpy.typing as npt

from pilotstats import _config
from pilotstats._typing import (
    ChangeTest,
    CsitEncoding,
    EdmScale,
    EdmTree,
    Float64Array1D,
    IndexType,
    RandomState,
    StablePhaseMethod,
)
from pilotstats.exceptions import (
    FormatError,
    InputLimitError,
    InvalidInputError,
    MissingDependencyError,
    NotEnoughDataError,
)

__all__ = [
    "as_float_array",
    "as_parameter_vector",
    "as_real_array",
    "check_bool",
    "check_choice",
    "check_confidence_level",
    "check_finite_scalar",
    "check_int",
    "check_int_sequence",
    "check_pattern",
    "check_probability",
    "check_real",
    "check_rng",
    "check_text",
    "coerce_rng",
    "reject_container_misuse",
]

T = TypeVar("T")


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _single_column(frame: Any, name: str) -> Any:
    """The only column of a pandas DataFrame passed where a series is expected."""
    columns = list(frame.columns)
    if len(columns) != 1:
        raise InvalidInputError(
            f"{name} must be a series; got a DataFrame with {len(columns)} columns "
            f"({', '.join(map(str, columns[:5]))}): pass one column, e.g. frame[{columns[0]!r}]"
            if columns else f"{name} must be a series; got a DataFrame without columns"
        )
    return frame.iloc[:, 0]


def as_float_array(
    values: Any,
    name: str = "x",
    *,
    min_length: int = 1,
    ndim: int = 1,
    allow_nonfinite: bool = False,
    positive: bool = False,
    nonnegative: bool = False,
) -> Float64Array1D:
    """Coerce data to a fresh C-contiguous float64 array and check it.

    Parameters
    ----------
    values : array_like
        Numbers: list, tuple, numpy array, pandas Series/Index, a one-column pandas
        DataFrame (taken as its column when ``ndim == 1``), or anything
        :func:`numpy.asarray` understands. Booleans count as 0/1.
    name : str
        Argument name used in error messages.
    min_length : int, default 1
        Minimum number of elements (along the first axis).
    ndim : int, default 1
        Required number of dimensions (1 or 2).
    allow_nonfinite : bool, default False
        Accept NaN and infinities.
    positive, nonnegative : bool, default False
        Require every value to be > 0 (or >= 0).

    Returns
    -------
    numpy.ndarray
        A new float64 array that does not share memory with ``values``.

    Raises
    ------
    InvalidInputError
        Non-numeric data (strings, numeric strings, complex numbers, dates, objects), a
        mapping (ambiguous: keys or values?), a one-shot iterator, wrong number of
        dimensions, NaN/inf, numbers beyond the float64 range, or values out of range.
    NotEnoughDataError
        Fewer than ``min_length`` values.

    Notes
    -----
    Complexity O(n) time and memory.
    """
    raw = _numeric_ndarray(values, name, ndim)
    array = np.array(raw, dtype=np.float64, order="C", copy=True)
    _check_values(array, name, min_length, allow_nonfinite, positive, nonnegative)
    return array


def _numeric_ndarray(values: Any, name: str, ndim: int) -> np.ndarray:
    """``values`` as a real-valued numpy array of ``ndim`` dimensions (maybe a view), or raise."""
    if ndim == 1 and hasattr(values, "columns") and hasattr(values, "iloc"):
        values = _single_column(values, name)  # a 1-column pandas DataFrame is a series
    if isinstance(values, (str, bytes)):
        raise InvalidInputError(
            f"{name} must be an array of numbers, got a {type(values).__name__}"
        )
    if isinstance(values, numbers.Number) and not isinstance(values, bool):
        raise InvalidInputError(
            f"{name} must be a {ndim}-D array of numbers, got the scalar {_describe(values)}"
        )
    reject_container_misuse(values, name)
    try:
        raw = np.asarray(values)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged nested sequences
        raise InvalidInputError(
            f"{name} must be a {ndim}-D array of numbers; it could not be converted ({exc})"
        ) from exc
    if raw.dtype.kind not in "biuf":
        if raw.dtype.kind == "O":
            flat = raw.ravel()
            for item in flat:
                if isinstance(item, (str, bytes)) or not isinstance(item, numbers.Real):
                    raise InvalidInputError(
                        f"{name} must contain only real numbers; found the non-numeric entry "
                        f"{_describe(item)} "
                        f"(convert strings with float() first; complex numbers, dates and "
                        f"other objects are not accepted)"
                    )
            try:
                raw = raw.astype(np.float64)
            except (ValueError, TypeError, OverflowError) as exc:
                raise InvalidInputError(
                    f"{name} must contain only real numbers; found non-numeric entries "
                    f"(object array: {exc})"
                ) from exc
        else:
            raise InvalidInputError(
                f"{name} must contain real numbers, got dtype {raw.dtype} "
                f"(strings, dates and complex numbers are not accepted)"
            )
    if raw.ndim != ndim:
        raise InvalidInputError(
            f"{name} must be {ndim}-dimensional, got an array of shape {raw.shape}"
        )
    return raw


def _check_values(array: np.ndarray, name: str, min_length: int, allow_nonfinite: bool,
                  positive: bool, nonnegative: bool) -> None:
    """Raise unless ``array`` has ``min_length`` rows and values in the required range."""
    if array.shape[0] < min_length:
        if array.shape[0] == 0:
            raise NotEnoughDataError(f"{name} is empty; need at least {min_length} value(s)")
        raise NotEnoughDataError(
            f"{name} has {array.shape[0]} value(s); need at least {min_length}"
        )
    if not allow_nonfinite and not np.isfinite(array).all():
        bad = np.flatnonzero(~np.isfinite(array.ravel()))
        raise InvalidInputError(
            f"{name} contains {bad.size} NaN or infinite value(s) (first at flat index "
            f"{int(bad[0])}); remove or impute them first"
        )
    if positive and not (array > 0).all():
        index = int(np.flatnonzero(~(array.ravel() > 0))[0])
        raise InvalidInputError(
            f"{name} must be strictly positive; value {array.ravel()[index]!r} at index {index}"
        )
    if nonnegative and not (array >= 0).all():
        index = int(np.flatnonzero(~(array.ravel() >= 0))[0])
        raise InvalidInputError(
            f"{name} must be non-negative; value {array.ravel()[index]!r} at index {index}"
        )


def as_real_array(values: Any, name: str, *, ndims: tuple[int, ...] = (1, 2),
                  allow_nonfinite: bool = False) -> np.ndarray:
    """:func:`as_float_array` for data of one of several numbers of dimensions (conditions of
    a calibration: one value or one row per trial): the same strict rules, so numeric
    strings, dates, complex numbers (even with a zero imaginary part), objects and mappings
    are rejected instead of being converted by :func:`numpy.asarray`.

    Raises
    ------
    InvalidInputError
        As :func:`as_float_array`, or a number of dimensions not in ``ndims``.
    """
    reject_container_misuse(values, name)
    if isinstance(values, (str, bytes)):
        raise InvalidInputError(f"{name} must be an array of numbers, got a "
                                f"{type(values).__name__}")
    try:
        dimensions = int(np.ndim(values))
    except (ValueError, TypeError):  # ragged: as_float_array explains
        dimensions = ndims[0]
    ndim = dimensions if dimensions in ndims else ndims[0]
    return as_float_array(values, name, ndim=ndim, min_length=0,
                          allow_nonfinite=allow_nonfinite)


def as_parameter_vector(params: Any, size: int, name: str = "params") -> np.ndarray:
    """Model parameters: ``size`` finite real numbers (NaN, inf, strings, complex numbers
    and objects raise :class:`~pilotstats.exceptions.InvalidInputError` naming ``name``)."""
    values = as_float_array(params, name, min_length=0)
    if values.shape != (size,):
        raise InvalidInputError(f"{name} must have {size} entries, got {values.shape[0]}")
    return values


def check_int_sequence(values: Any, name: str, *, low: int | None = None,
                       high: int | None = None) -> list[int]:
    """A list, tuple, range or 1-D integer array of whole numbers (each through
    :func:`check_int`). A mapping (whose keys would be read), a set, a string, an iterator or
    a scalar raises :class:`~pilotstats.exceptions.InvalidInputError`."""
    reject_container_misuse(values, name)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InvalidInputError(f"{name} must be a 1-D sequence of integers, got shape "
                                    f"{values.shape}")
        values = values.tolist()
    if not isinstance(values, (list, tuple, range)):
        raise InvalidInputError(f"{name} must be a list, tuple or range of integers, got "
                                f"{_describe(values)}")
    return [check_int(v, name, low=low, high=high) for v in values]


def reject_container_misuse(values: Any, name: str) -> None:
    """Reject mappings and one-shot iterators where an array of numbers is expected.

    A ``dict`` would otherwise be read as its keys (``numpy.asarray`` of a dict is a 0-d
    object array, and ``list(d)`` gives the keys); a generator would be consumed. Both raise
    :class:`~pilotstats.exceptions.InvalidInputError` with the fix.
    """
    if isinstance(values, Mapping):
        raise InvalidInputError(
            f"{name} must be an array of numbers, got a mapping ({type(values).__name__}); "
            f"pass list(mapping.values()) (or the keys) explicitly"
        )
    if isinstance(values, Iterator) or isinstance(values, (set, frozenset)):
        raise InvalidInputError(
            f"{name} must be an array of numbers, got a {type(values).__name__}; "
            f"pass a list or numpy array (materialise iterators with list(...))"
        )


def check_bool(value: Any, name: str) -> bool:
    """Check a boolean flag: ``True``/``False`` (or numpy booleans) only.

    Strings such as ``'False'`` (truthy in Python) and numbers are rejected.

    Raises
    ------
    InvalidInputError
        ``value`` is not a bool.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidInputError(f"{name} must be True or False, got {_describe(value)}")


def check_text(value: Any, name: str, *, allow_none: bool = False) -> Any:
    """Check a free-text label (a unit, a name): a ``str`` (or None when allowed).

    Raises
    ------
    InvalidInputError
        ``value`` is not a string (NaN, numbers and other objects are not labels).
    """
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        return value
    expected = "a string or None" if allow_none else "a string"
    raise InvalidInputError(f"{name} must be {expected}, got {_describe(value)}")


def check_pattern(value: Any, name: str) -> re.Pattern[str] | None:
    """Check a regular expression (a ``str`` or compiled ``re.Pattern``, or None).

    Raises
    ------
    InvalidInputError
        ``value`` is not text or a compiled text pattern, or does not compile.
    """
    if value is None:
        return None
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        return value
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a regular expression (a string), got "
                                f"{_describe(value)}")
    try:
        return re.compile(value)
    except re.error as exc:
        raise InvalidInputError(f"{name}: {value!r} is not a valid regular expression "
                                f"({exc})") from None


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    allow_inf: bool = False,
) -> float:
    """Check a real scalar parameter and return it as a Python float.

    Raises
    ------
    InvalidInputError
        Not a real number, NaN (or infinite unless ``allow_inf``), or outside the range.
    """
    if type(value) is float:  # the common case, without the abstract-class checks below
        result = value
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{name} must be a real number, got {_describe(value)}")
    else:
        try:
            result = float(value)
        except OverflowError:
            raise InvalidInputError(
                f"{name} must be a finite number, got an integer of {len(str(value))} "
                "digits (beyond the float64 range)"
            ) from None
    if math.isnan(result) or (math.isinf(result) and not allow_inf):
        raise InvalidInputError(f"{name} must be a finite number, got {result!r}")
    lower_ok = low is None or (result >= low if low_inclusive else result > low)
    upper_ok = high is None or (result <= high if high_inclusive else result < high)
    if not (lower_ok and upper_ok):
        left = "-inf" if low is None else f"{low:g}"
        right = "inf" if high is None else f"{high:g}"
        bracket_left = "[" if (low is not None and low_inclusive) else "("
        bracket_right = "]" if (high is not None and high_inclusive) else ")"
        raise InvalidInputError(
            f"{name} must lie in {bracket_left}{left}, {right}{bracket_right}, got {result!r}"
        )
    return result


def check_finite_scalar(value: Any, name: str) -> float:
    """Check that ``value`` is a finite real number and return it as a float."""
    return check_real(value, name)


def check_probability(value: Any, name: str) -> float:
    """Check a probability-like parameter in the open interval (0, 1)."""
    return check_real(value, name, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)


def check_confidence_level(value: Any, name: str = "confidence_level") -> float:
    """Check a two-sided confidence level; it must lie in the open interval (0, 1).

    Note that 0.95 means 95 %; a percentage such as 95 is rejected with a hint (only for
    values in [50, 100), which read as a percentage; 1.5 gets no "did you mean 0.015").
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 50 <= value < 100:
        raise InvalidInputError(
            f"{name} must lie in (0, 1), got {value!r}; did you mean {float(value) / 100:g}?"
        )
    return check_probability(value, name)


def check_int(
    value: Any, name: str, *, low: int | None = None, high: int | None = None
) -> int:
    """Check an integer parameter (bools rejected, integral floats accepted) within bounds.

    Without ``high``, integers above ``_config.MAX_INTEGER_PARAMETER`` (2**40) are rejected:
    no size, count or index in pilotstats can meaningfully exceed it, and larger values
    would overflow 64-bit arithmetic inside compiled kernels. Without ``low``, integers
    below ``-high`` are rejected for the same reason.
    """
    if high is None:
        high = _config.MAX_INTEGER_PARAMETER
    if type(value) is int:  # the common case, without the abstract-class checks below
        result = value
    elif isinstance(value, bool):
        raise InvalidInputError(f"{name} must be an integer, got {value!r}")
    elif isinstance(value, numbers.Integral):
        result = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(
        value
    ).is_integer():
        result = int(float(value))
    else:
        raise InvalidInputError(f"{name} must be an integer, got {_describe(value)}")
    if low is not None and result < low:
        raise InvalidInputError(f"{name} must be at least {low}, got {result}")
    if low is None and result < -high:  # ids may be negative, but not beyond int64 either
        shown = str(result) if result > -10**30 else f"an integer of {len(str(result))} digits"
        raise InvalidInputError(f"{name} must be at least {-high}, got {shown}")
    if result > high:
        shown = str(result) if result < 10**30 else f"an integer of {len(str(result))} digits"
        raise InvalidInputError(f"{name} must be at most {high}, got {shown}")
    return result


def check_choice(value: T, name: str, choices: Iterable[T]) -> T:
    """Check that ``value`` is one of ``choices`` (compared by type and value)."""
    options = tuple(choices)
    if not any(isinstance(value, type(option)) and value == option for option in options):
        listed = ", ".join(repr(option) for option in options)
        raise InvalidInputError(f"{name} must be one of {listed}; got {_describe(value)}")
    return value


def check_rng(rng: Any, name: str = "rng") -> None:
    """Check that :func:`coerce_rng` accepts ``rng``, without building a Generator.

    Raises
    ------
    InvalidInputError
        ``rng`` is not None, a non-negative integer seed, a SeedSequence, a BitGenerator or
        a Generator.
    """
    if rng is None or isinstance(rng, np.random.Generator):
        return
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InvalidInputError(f"{name} seed must be non-negative, got {rng}")
        return
    if not isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        raise InvalidInputError(
            f"{name} must be None, a non-negative integer seed or a numpy Generator, "
            f"got {_describe(rng)}"
        )


def coerce_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Turn ``None``, an integer seed or a Generator into a :class:`numpy.random.Generator`."""
    check_rng(rng, name)
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral):
        return np.random.default_rng(int(rng))
    return np.random.default_rng(rng)


def check_stream_value(value: Any) -> Float64Array1D:
    """One observation of a numeric :class:`pilotstats.Stream` as a float64 array of length 1.

    Raises
    ------
    InvalidInputError
        ``value`` is an array or a sequence (the message names ``extend``), or not one
        finite real number.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (Iterable, np.ndarray)) and not isinstance(value, (str, bytes)):
        size = f" of length {len(value)}" if isinstance(value, Sized) else ""
        raise InvalidInputError(
            f"append takes one value, got {type(value).__name__}{size}; use "
            "extend(values) to add several values"
        )
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(
            f"value must be one finite real number, got {type(value).__name__} "
            f"{value!r:.60}"
        )
    return as_float_array([value], "value")


def check_stream_values(values: Any) -> Float64Array1D:
    """Several observations of a numeric :class:`pilotstats.Stream` (possibly none).

    Raises
    ------
    InvalidInputError
        A lone number (the message names ``append``), NaN/inf, non-numeric or not 1-D.
    """
    if isinstance(values, (numbers.Real, np.bool_)) or (
        isinstance(values, np.ndarray) and values.ndim == 0
    ):
        raise InvalidInputError(
            f"extend takes a sequence of values, got the single {type(values).__name__} "
            f"{values!r}; use append(value) to add one value"
        )
    return as_float_array(values, "values", min_length=0)


# --- cp: changepoints ---

_PERIOD_UNITS = {"w": 604800.0, "d": 86400.0, "h": 3600.0, "min": 60.0, "m": 60.0, "s": 1.0}
_PERIOD_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(w|d|h|min|m|s)\s*$", re.IGNORECASE)


def check_period_seconds(value: Any, name: str) -> float:
    """A duration (``"7D"``, ``"12h"``, ``"30min"``, ``"45s"``, a timedelta or seconds) in
    seconds, finite and non-negative."""
    if isinstance(value, bool):
        raise InvalidInputError(f"{name} must be a duration, got {value!r}")
    if isinstance(value, str):
        match = _PERIOD_RE.match(value)
        if not match:
            raise InvalidInputError(
                f"{name} must look like '7D', '12h', '30min' or '45s', got {value!r}"
            )
        seconds = float(match.group(1)) * _PERIOD_UNITS[match.group(2).lower()]
    elif isinstance(value, _dt.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, np.timedelta64):
        seconds = float(value / np.timedelta64(1, "ns")) * 1e-9
    elif isinstance(value, numbers.Real):
        seconds = float(value)
    else:
        total_seconds = getattr(value, "total_seconds", None)  # pandas Timedelta
        if not callable(total_seconds):
            raise InvalidInputError(
                f"{name} must be a duration (string like '7D', timedelta or seconds), "
                f"got {type(value).__name__}"
            )
        seconds = float(total_seconds())
    if not (math.isfinite(seconds) and seconds >= 0.0):
        raise InvalidInputError(f"{name} must be a finite non-negative duration, got {value!r}")
    return seconds


def _object_times_seconds(array: np.ndarray) -> np.ndarray:
    """Seconds of an object array of datetimes (naive ones taken as UTC) and numbers."""
    converted = []
    for index, item in enumerate(array.tolist()):
        if isinstance(item, _dt.datetime):
            if item.tzinfo is None:
                item = item.replace(tzinfo=_dt.UTC)
            converted.append(item.timestamp())
        elif isinstance(item, numbers.Real) and not isinstance(item, bool):
            converted.append(float(item))
        else:
            raise InvalidInputError(
                f"times[{index}] must be a datetime, datetime64 or seconds, got "
                f"{type(item).__name__}"
            )
    return np.array(converted, dtype=np.float64)


def check_times_seconds(times: Any, n: int) -> np.ndarray:
    """One timestamp per run (datetimes, ``datetime64`` or seconds) as non-decreasing,
    finite float64 seconds."""
    if isinstance(times, (str, bytes)):
        raise InvalidInputError("times must be a sequence with one timestamp per run")
    array = np.asarray(times)
    if array.ndim != 1 or array.shape[0] != n:
        raise InvalidInputError(
            f"times must hold one timestamp per run ({n}), got shape {array.shape}"
        )
    if array.dtype.kind == "M":
        ns = array.astype("datetime64[ns]")
        if np.isnat(ns).any():
            raise InvalidInputError("times contains NaT; every run needs a timestamp")
        seconds = ns.astype(np.int64).astype(np.float64) * 1e-9
    elif array.dtype.kind in "iuf":
        seconds = array.astype(np.float64)
    elif array.dtype.kind == "O":
        seconds = _object_times_seconds(array)
    else:
        raise InvalidInputError(f"times must be datetimes or seconds, got dtype {array.dtype}")
    if not np.isfinite(seconds).all():
        raise InvalidInputError("times must be finite")
    if n > 1 and (np.diff(seconds) < 0).any():
        index = int(np.flatnonzero(np.diff(seconds) < 0)[0]) + 1
        raise InvalidInputError(
            f"times must be non-decreasing (run order); times[{index}] is earlier than "
            f"times[{index - 1}]"
        )
    return seconds


def check_compliance_options(
    short_window: Any,
    long_window: Any,
    per_run_average: Any,
    encoding: Any,
    higher_is_better: Any,
) -> tuple[int, int, bool, CsitEncoding]:
    """The windows, ``per_run_average`` and ``encoding`` of ``trend_compliance``."""
    s_window = check_int(short_window, "short_window", low=0)
    l_window = check_int(long_window, "long_window", low=1)
    average = check_bool(per_run_average, "per_run_average")
    coding: CsitEncoding = check_choice(encoding, "encoding", ("jumpavg", "methodology"))
    if higher_is_better is not None:
        check_bool(higher_is_better, "higher_is_better")
    return s_window, l_window, average, coding


@dataclass(frozen=True, slots=True)
class DetectOptions:
    """Validated options of ``detect_changes`` (shared with ``DetectStream``).

    ``delta`` is ``min_size``, ``level`` the significance level, ``permutations``
    ``n_permutations``, ``tolerance`` ``location_tolerance`` and ``threshold`` the
    per-test threshold ``_config.DETECT_THRESHOLD_FACTOR * level``.
    """

    delta: int
    level: float
    test: ChangeTest
    unit: str | None
    rng: RandomState
    permutations: int
    tolerance: int
    variance_changes: bool
    threshold: float


def _check_variance_changes(variance_changes: Any, test: ChangeTest) -> bool:
    """``variance_changes``: None (True with the rank test), or a bool the test allows."""
    if variance_changes is None:
        variance_changes = test == "rank"
    if not isinstance(variance_changes, (bool, np.bool_)):
        raise InvalidInputError(
            f"variance_changes must be True, False or None, got {variance_changes!r}"
        )
    if variance_changes and test != "rank":
        raise InvalidInputError(
            "variance_changes=True needs test='rank' (the permutation test scans levels "
            "only); "
            f"got test={test!r}"
        )
    return bool(variance_changes)


def _check_detect_threshold(level: float) -> float:
    """The per-test threshold ``_config.DETECT_THRESHOLD_FACTOR * level``, in (0, 1)."""
    threshold = float(_config.DETECT_THRESHOLD_FACTOR) * level
    if not 0.0 < threshold < 1.0:
        raise InvalidInputError(
            "_config.DETECT_THRESHOLD_FACTOR * significance_level must lie in (0, 1), got "
            f"{threshold!r}; restore the factor with pilotstats._config.reset()"
        )
    return threshold


def _check_permutation_test(rng: Any, permutations: int, level: float, threshold: float) -> None:
    """The permutation test needs a seed and enough permutations to reach the threshold."""
    if rng is None:
        raise InvalidInputError(
            "test='permutation' needs rng (an integer seed or a numpy Generator) so that "
            "the result is reproducible; got rng=None"
        )
    needed = math.ceil(1.0 / threshold - 1.0 - 1e-9)
    if permutations < needed:
        raise InvalidInputError(
            f"n_permutations must be at least {needed} for significance_level {level:g}: "
            f"the smallest permutation p-value 1/(n_permutations + 1) must not exceed "
            f"the per-test threshold {threshold:g}; got {permutations}"
        )


def check_detect_options(
    *,
    min_size: Any,
    significance_level: Any,
    rng: Any,
    test: Any,
    n_permutations: Any,
    location_tolerance: Any,
    variance_changes: Any,
    unit: Any,
) -> DetectOptions:
    """Validate the keyword arguments of ``detect_changes`` into a :class:`DetectOptions`."""
    delta = check_int(min_size, "min_size", low=2)
    level = check_probability(significance_level, "significance_level")
    chosen: ChangeTest = check_choice(test, "test", ("rank", "permutation"))
    unit = check_text(unit, "unit", allow_none=True)
    check_rng(rng)  # the Generator is built only for the permutation test
    permutations = check_int(n_permutations, "n_permutations", low=1)
    tolerance = check_int(location_tolerance, "location_tolerance", low=0)
    variance = _check_variance_changes(variance_changes, chosen)
    threshold = _check_detect_threshold(level)
    if chosen == "permutation":
        _check_permutation_test(rng, permutations, level, threshold)
    return DetectOptions(
        delta, level, chosen, unit, rng, permutations, tolerance, variance, threshold
    )


def check_equivalence_fractions(
    tolerance: Any, min_steady_fraction: Any, min_warmup_fraction: Any
) -> tuple[float, float, float]:
    """``tolerance`` and ``min_steady_fraction`` in (0, 1), ``min_warmup_fraction`` in
    [0, 1) and below ``1 - min_steady_fraction`` (the equivalence model of long forks)."""
    band = check_probability(tolerance, "tolerance")
    steady_share = check_probability(min_steady_fraction, "min_steady_fraction")
    warmup_share = check_real(
        min_warmup_fraction, "min_warmup_fraction", low=0.0, high=1.0, high_inclusive=False
    )
    if warmup_share >= 1.0 - steady_share:
        raise InvalidInputError(
            f"min_warmup_fraction must be below 1 - min_steady_fraction = "
            f"{1.0 - steady_share:g}; got {min_warmup_fraction!r}"
        )
    return band, steady_share, warmup_share


@dataclass(frozen=True, slots=True)
class StableOptions:
    """Validated options of ``stable_phase`` (shared with ``StablePhaseStream``).

    ``rng`` and ``location_tolerance`` are passed on unchecked: the change-point detector
    validates them.
    """

    method: StablePhaseMethod
    delta: int
    level: float
    ci_level: float
    tolerance: float
    steady_share: float
    warmup_share: float
    higher_is_better: bool
    unit: str | None
    rng: Any
    location_tolerance: Any


def check_stable_options(
    *,
    method: Any,
    min_size: Any,
    significance_level: Any,
    confidence_level: Any,
    rng: Any,
    location_tolerance: Any,
    tolerance: Any,
    min_steady_fraction: Any,
    min_warmup_fraction: Any,
    higher_is_better: Any,
    unit: Any,
) -> StableOptions:
    """Validate the keyword arguments of ``stable_phase`` into a :class:`StableOptions`."""
    requested: StablePhaseMethod = check_choice(
        method, "method", ("auto", "equivalence", "robust", "pilot")
    )
    delta = check_int(min_size, "min_size", low=2)
    level = check_probability(significance_level, "significance_level")
    ci_level = check_confidence_level(confidence_level)
    band, steady_share, warmup_share = check_equivalence_fractions(
        tolerance, min_steady_fraction, min_warmup_fraction
    )
    rates = check_bool(higher_is_better, "higher_is_better")
    unit = check_text(unit, "unit", allow_none=True)
    return StableOptions(
        requested, delta, level, ci_level, band, steady_share, warmup_share, rates, unit,
        rng, location_tolerance,
    )


def check_forks(forks: Any) -> list[np.ndarray]:
    """Validated float64 copies of the forks (2-D array or sequence of 1-D series)."""
    if isinstance(forks, (str, bytes)) or np.isscalar(forks):
        raise InvalidInputError(
            "forks must be a 2-D array (one row per fork) or a sequence of 1-D series, got "
            f"{type(forks).__name__}"
        )
    reject_container_misuse(forks, "forks")
    if isinstance(forks, np.ndarray) and forks.dtype == object and forks.ndim == 1:
        forks = list(forks)  # ragged forks held in an object array
    if isinstance(forks, np.ndarray) or hasattr(forks, "to_numpy"):
        matrix = as_float_array(forks, "forks", ndim=2)
        rows = [np.ascontiguousarray(row) for row in matrix]
    else:
        if not isinstance(forks, Sequence):
            raise InvalidInputError(
                "forks must be a 2-D array or a sequence of 1-D series, got "
                f"{type(forks).__name__} (materialise iterators with list() first)"
            )
        if forks and all(isinstance(item, (int, float, np.number)) for item in forks):
            raise InvalidInputError(
                "forks must hold one series per fork; got a single series of numbers (wrap "
                "it as [x], or use stable_phase for one fork)"
            )
        rows = [as_float_array(item, f"forks[{i}]") for i, item in enumerate(forks)]
    if not rows:
        raise NotEnoughDataError("forks is empty; need at least one fork")
    for i, row in enumerate(rows):
        if row.shape[0] < _config.EQUIVALENCE_MIN_LENGTH:
            raise NotEnoughDataError(
                f"forks[{i}] has {row.shape[0]} iterations; the steady-state model needs at "
                f"least {_config.EQUIVALENCE_MIN_LENGTH} per fork"
            )
    return rows


@dataclass(frozen=True, slots=True)
class SteadyOptions:
    """Validated options of ``steady_state``."""

    tolerance: float
    steady_share: float
    warmup_share: float
    unsteady_share: float
    higher_is_better: bool
    level: float
    ci_level: float
    unit: str | None


def check_steady_options(
    *,
    tolerance: Any,
    min_steady_fraction: Any,
    min_warmup_fraction: Any,
    max_unsteady_fraction: Any,
    higher_is_better: Any,
    significance_level: Any,
    confidence_level: Any,
    unit: Any,
) -> SteadyOptions:
    """Validate the keyword arguments of ``steady_state`` into a :class:`SteadyOptions`."""
    band, steady_share, warmup_share = check_equivalence_fractions(
        tolerance, min_steady_fraction, min_warmup_fraction
    )
    unsteady_share = check_real(
        max_unsteady_fraction, "max_unsteady_fraction", low=0.0, high=1.0,
        high_inclusive=False,
    )
    rates = check_bool(higher_is_better, "higher_is_better")
    level = check_probability(significance_level, "significance_level")
    ci_level = check_confidence_level(confidence_level)
    unit = check_text(unit, "unit", allow_none=True)
    return SteadyOptions(
        band, steady_share, warmup_share, unsteady_share, rates, level, ci_level, unit
    )


def check_edm_min_size(min_size: Any) -> int:
    return check_int(min_size, "min_size", low=2)


def check_edm_degree(degree: Any) -> int:
    value = check_int(degree, "degree")
    if value not in (0, 1, 2):
        raise InvalidInputError(
            f"degree must be 0 (no penalty), 1 (linear) or 2 (quadratic), got {value}"
        )
    return value


def check_edm_penalty(beta: Any, percent: Any) -> tuple[bool, float]:
    """Return (percent_mode, penalty) from the mutually exclusive ``beta`` / ``percent``."""
    if beta is not None and percent is not None:
        raise InvalidInputError(
            "beta and percent cannot be given together: pass beta for EDM-multi (additive "
            "penalty) or percent for EDM-percent (relative gain), not both"
        )
    if percent is not None:
        return True, check_real(percent, "percent", low=0.0)
    if beta is None:
        return False, _config.EDM_DEFAULT_BETA
    return False, check_real(beta, "beta", low=0.0)


def check_edm_scale(scale: Any) -> EdmScale:
    value: EdmScale = check_choice(scale, "scale", ("range", "none"))
    return value


def check_max_history(max_history: Any) -> int | None:
    """``max_history``: None or an integer >= 1."""
    if max_history is None:
        return None
    return check_int(max_history, "max_history", low=1)


def check_resolution_sbps(
    resolution: Any, sbps: Any
) -> tuple[float | None, float | None]:
    resolution_value: float | None = None
    sbps_value: float | None = None
    if resolution is not None:
        if (
            isinstance(resolution, numbers.Real)
            and not isinstance(resolution, bool)
            and resolution == 0
        ):
            raise InvalidInputError(
                "resolution must be a finite number > 0, got 0; pass resolution=None to "
                "derive it from the maximum (jumpavg treats a unit of 0 as 'not given')"
            )
        if isinstance(resolution, str):
            raise InvalidInputError(
                f"resolution must be a finite number > 0 (the numeric resolution of the "
                f"values), got the string {resolution!r}; a unit label is not a resolution"
            )
        resolution_value = check_real(resolution, "resolution", low=0.0, low_inclusive=False)
    if sbps is not None:
        if isinstance(sbps, numbers.Real) and not isinstance(sbps, bool) and sbps == 0:
            raise InvalidInputError(
                "sbps must be a number in (0, 60], got 0; pass sbps=None for the default 12"
            )
        sbps_value = check_real(sbps, "sbps", low=0.0, high=60.0, low_inclusive=False)
    return resolution_value, sbps_value


_MAX_MAGNITUDE = 1e150


#: Smallest magnitude of the largest sample: below it the resolution
#: ``max / (2**(sbps+1) - 1)`` and the squared deviations underflow (a zero standard
#: deviation, NaN code lengths).
_MIN_MAGNITUDE = 2.0**-500


def check_mdl_range(samples: np.ndarray, name: str) -> tuple[float, float] | None:
    """Check the magnitude of the samples; return their (minimum, maximum), None if empty."""
    if not samples.size:
        return None
    low, high = float(samples.min()), float(samples.max())
    peak = max(high, -low)
    if peak > _MAX_MAGNITUDE:
        raise InvalidInputError(
            f"{name} has a sample of magnitude above {_MAX_MAGNITUDE:g}; rescale the data "
            "(the moment accumulation would overflow)"
        )
    if 0.0 < peak < _MIN_MAGNITUDE:
        raise InvalidInputError(
            f"{name} has no sample of magnitude above {_MIN_MAGNITUDE:g} (largest "
            f"{peak!r}): the resolution would be subnormal and the code lengths "
            "NaN; rescale the data (e.g. express it in a smaller unit)"
        )
    return low, high


def check_edm_single_options(
    min_size: Any, exact: Any, alpha: Any, quantile: Any, tree: Any
) -> tuple[int, bool, float, float, EdmTree]:
    """``min_size``, ``exact`` and the EDM-tail settings of ``edm_single`` (validated even
    when EDM-X ignores them: a bad value is a mistake either way)."""
    delta = check_edm_min_size(min_size)
    if not isinstance(exact, (bool, np.bool_)):
        raise InvalidInputError(f"exact must be True or False, got {exact!r}")
    alpha_value = check_real(alpha, "alpha", low=0.0, high=2.0, low_inclusive=False)
    quantile_value = check_real(
        quantile, "quantile", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False
    )
    tree_value: EdmTree = check_choice(tree, "tree", ("paper", "reference"))
    return delta, bool(exact), alpha_value, quantile_value, tree_value


# --- sio: smoothing, io, datasets, analysis ---


def check_tz(tz: Any, name: str) -> str | datetime.tzinfo:
    """Return ``tz`` if pandas accepts it as a time zone, else raise InvalidInputError."""
    import pandas as pd

    if isinstance(tz, (str, datetime.tzinfo)):
        try:
            pd.Timestamp("2000-01-01").tz_localize(tz)
        except Exception as exc:
            raise InvalidInputError(
                f"{name} must be a time-zone name such as 'UTC' or 'America/Los_Angeles', "
                f"got {_describe(tz)} ({exc})"
            ) from exc
        return tz
    raise InvalidInputError(
        f"{name} must be a time-zone name such as 'UTC' or 'America/Los_Angeles', "
        f"got {_describe(tz)}"
    )


def raise_input_limit(label: str, limit: str, size: int, what: str) -> NoReturn:
    """Raise :class:`InputLimitError`: ``what`` exceeds the tunable ``limit``."""
    import pilotstats._config as _config

    value = getattr(_config, limit)
    raise InputLimitError(
        f"{label}: {what} is larger than the limit of {value:,} (pilotstats._config.{limit}); "
        f"if the input is trusted, raise it, e.g. pilotstats._config.{limit} = {2 * value}",
        source=label, limit=limit, size=size)


def check_size(label: str, size: int, limit: str = "MAX_INPUT_BYTES",
               what: str | None = None) -> None:
    """Raise :class:`InputLimitError` when ``size`` exceeds the tunable ``limit`` of
    :mod:`pilotstats._config`."""
    import pilotstats._config as _config

    if size > getattr(_config, limit):
        raise_input_limit(label, limit, size, what or f"the input ({size:,} bytes)")


_FILE_TYPES = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISDIR, "a folder"))


def refuse_irregular_file(label: str, mode: int) -> NoReturn:
    """Raise :class:`InputLimitError` for a FIFO, device, socket or folder."""
    kind = next((name for test, name in _FILE_TYPES if test(mode)), "not a regular file")
    raise InputLimitError(
        f"{label}: is {kind}; pilotstats reads regular files only (a FIFO could block for "
        "ever and a device such as /dev/zero never ends): copy the data into a regular file",
        source=label, limit="regular file")


def check_regular_file(path: str | os.PathLike[str], *, kind: str = "input") -> int:
    """Check that ``path`` (followed if a link) is a regular file within
    ``_config.MAX_INPUT_BYTES``; return its size. Raises :class:`FormatError` when it does not
    exist, :class:`InputLimitError` when it is a FIFO, device, socket or too large."""
    label = os.fspath(path)
    try:
        info = os.stat(label)
    except FileNotFoundError as exc:
        raise FormatError(f"{label}: no such {kind} file", source=label, field=None) from exc
    except OSError as exc:
        raise FormatError(f"{label}: cannot read the file ({exc})", source=label,
                          field=None) from exc
    if not stat.S_ISREG(info.st_mode):
        refuse_irregular_file(label, info.st_mode)
    check_size(label, info.st_size, what=f"the file ({info.st_size:,} bytes)")
    return info.st_size


def check_name(name: str, label: str, what: str = "benchmark name") -> str:
    """Return ``name`` when it is at most ``_config.MAX_NAME_LENGTH`` characters long."""
    import pilotstats._config as _config

    if len(name) > _config.MAX_NAME_LENGTH:
        raise_input_limit(label, "MAX_NAME_LENGTH", len(name),
                          f"a {what} ({len(name):,} characters, starting {name[:40]!r})")
    return name


def check_delimiter(delimiter: Any) -> str:
    """A CSV delimiter must be one character other than a quote, newline or NUL."""
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\"\r\n\0":
        raise InvalidInputError(
            f"delimiter must be a single character such as ',' or '\\t' (not a quote or a "
            f"newline), got {delimiter!r:.40}"
        )
    return delimiter


def check_sorted(seconds: Float64Array1D, name: str = "times") -> None:
    """Raise :class:`InvalidInputError` unless ``seconds`` is non-decreasing."""
    if seconds.size > 1:
        decreasing = np.flatnonzero(np.diff(seconds) < 0)
        if decreasing.size:
            i = int(decreasing[0])
            raise InvalidInputError(
                f"{name} must be sorted in ascending order (duplicates are allowed); "
                f"position {i + 1} is earlier than position {i}. Sort the observations by "
                "time first (analyze_regions sorts each group itself)"
            )


def check_trend_windows(short_window: int, long_window: int) -> tuple[int, int]:
    """CSIT's short and long windows, in runs (short >= 0, long >= 1)."""
    return (check_int(short_window, "short_window", low=0),
            check_int(long_window, "long_window", low=1))


def require_module(module: str, extra: str) -> None:
    """Raise :class:`MissingDependencyError` when ``module`` is not installed."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f"this needs {module}, which is not installed: pip install \"pilotstats[{extra}]\"",
            package=module,
        )


def check_classifier_options(classifier: Any, quantile: Any, significance_level: Any,
                   skip_constant: Any) -> tuple[float, float]:
    """Check the classifier options; return the quantile and the significance level."""
    check_choice(classifier, "classifier", ("minmax", "percentile"))
    q = check_probability(quantile, "quantile")
    level = check_probability(significance_level, "significance_level")
    if not isinstance(skip_constant, (bool, np.bool_)):
        raise InvalidInputError(f"skip_constant must be True or False, got {skip_constant!r}")
    return q, level


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
