"""Input coercion and checks shared by every public function.

Public functions never trust their arguments: data go through :func:`as_float_array`
(a fresh, C-contiguous float64 copy, so caller data are never modified) and parameters
through the ``check_*`` helpers, which raise :class:`~pilotstats.exceptions.InvalidInputError`
or :class:`~pilotstats.exceptions.NotEnoughDataError` with a message that names the argument,
says what was wrong and what is needed.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping, Sized
from typing import Any, TypeVar

import numpy as np

from pilotstats import _config
from pilotstats._typing import Float64Array1D
from pilotstats.exceptions import (
    InvalidInputError,
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
