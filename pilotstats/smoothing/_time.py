"""Time and window coercion of the smoothing pillar.

Every time value becomes a UTC instant in float64 epoch seconds: epoch seconds are POSIX
time, tz-aware values are converted to UTC, naive datetimes are read in ``tz``. Window
arithmetic then uses elapsed time, so a day is always 24 h. The wall-clock mode
(:func:`to_wallclock_seconds`) exists only to reproduce the SC'18 reference code, which
computed its windows on naive America/Los_Angeles times.
"""

from __future__ import annotations

import datetime
import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

from pilotstats._typing import Float64Array1D
from pilotstats._validation import as_float_array, check_tz
from pilotstats.exceptions import EmptyGroupError, InvalidInputError

__all__ = [
    "as_utc_seconds",
    "local_midnight_utc_seconds",
    "parse_window",
    "to_wallclock_seconds",
    "window_label",
]

_NS_PER_S = 1_000_000_000


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def local_midnight_utc_seconds(date: Any, zone: Any) -> float:
    """Epoch seconds of ``date``: itself when zone-aware, else its local midnight in ``zone``."""
    stamp = pd.Timestamp(date)
    if stamp.tzinfo is not None:
        return float(stamp.timestamp())
    return float(stamp.normalize().tz_localize(zone).timestamp())


def _index_to_seconds(index: pd.DatetimeIndex, name: str, tz: Any) -> Float64Array1D:
    if index.hasnans:
        position = int(np.flatnonzero(index.isna())[0])
        raise InvalidInputError(
            f"{name} contains a missing time (NaT) at position {position}; every observation "
            "needs a time"
        )
    if index.tz is None:
        zone = check_tz(tz, "tz")
        if not (isinstance(zone, str) and zone.upper() == "UTC"):
            try:
                index = index.tz_localize(zone, ambiguous="raise", nonexistent="raise")
            except Exception as exc:
                raise InvalidInputError(
                    f"{name} holds naive local times that do not map to one instant in "
                    f"{zone!s} ({exc}); pass tz-aware times or epoch seconds instead"
                ) from exc
    nanoseconds = np.asarray(index.as_unit("ns").asi8, dtype=np.int64)
    whole, fraction = np.divmod(nanoseconds, _NS_PER_S)
    seconds: Float64Array1D = whole.astype(np.float64) + fraction.astype(np.float64) / 1e9
    return np.ascontiguousarray(seconds)


def as_utc_seconds(times: Any, name: str = "times", *, tz: Any = "UTC") -> Float64Array1D:
    """Convert times to float64 UTC epoch seconds.

    Parameters
    ----------
    times : array_like
        numpy ``datetime64`` values, a pandas ``DatetimeIndex`` or datetime ``Series``
        (naive or tz-aware), ``datetime.datetime`` objects, or epoch seconds (numbers).
    name : str
        Argument name for error messages.
    tz : str or tzinfo, default "UTC"
        Zone in which naive datetimes are read.

    Returns
    -------
    numpy.ndarray
        A fresh float64 array of UTC epoch seconds.

    Raises
    ------
    InvalidInputError
        Strings, booleans, timedeltas or other non-time data; NaT/NaN; naive local times that
        are ambiguous or do not exist in ``tz``.
    EmptyGroupError
        No times at all.
    """
    if isinstance(times, (str, bytes)) or isinstance(times, (numbers.Number, np.generic)):
        raise InvalidInputError(
            f"{name} must be an array of datetimes or epoch seconds, got the scalar "
            f"{_describe(times)}"
        )
    if isinstance(times, pd.DataFrame):
        raise InvalidInputError(f"{name} must be one-dimensional, got a DataFrame")
    if isinstance(times, (pd.Series, pd.Index)):
        raw: Any = times
        dtype = times.dtype
    else:
        try:
            raw = np.asarray(times)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"{name} could not be converted to an array ({exc})") from exc
        if raw.ndim != 1:
            raise InvalidInputError(f"{name} must be one-dimensional, got shape {raw.shape}")
        dtype = raw.dtype
    if len(raw) == 0:
        raise EmptyGroupError(f"{name} is empty; need at least one observation")
    if isinstance(dtype, pd.DatetimeTZDtype) or (
        isinstance(dtype, np.dtype) and dtype.kind == "M"
    ):
        return _index_to_seconds(pd.DatetimeIndex(raw), name, tz)
    kind = getattr(dtype, "kind", "O")
    if kind in "iuf":
        return as_float_array(raw, name)
    if kind == "O":
        inferred = pd.api.types.infer_dtype(raw, skipna=False)
        if inferred in ("datetime", "datetime64"):
            try:
                index = pd.DatetimeIndex(pd.to_datetime(np.asarray(raw, dtype=object)))
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(
                    f"{name} holds datetime objects that pandas cannot combine ({exc}); mixed "
                    "time zones must be converted to one zone first"
                ) from exc
            return _index_to_seconds(index, name, tz)
        raise InvalidInputError(
            f"{name} must be datetimes (numpy datetime64, pandas DatetimeIndex or Series, "
            f"datetime objects) or epoch seconds; got values inferred as {inferred!r}. "
            "Parse strings with pandas.to_datetime first"
        )
    raise InvalidInputError(
        f"{name} must be datetimes (numpy datetime64, pandas DatetimeIndex or Series) or "
        f"epoch seconds (numbers); got dtype {dtype}"
    )


def to_wallclock_seconds(seconds: Float64Array1D, wallclock_tz: Any) -> Float64Array1D:
    """Shift UTC epoch seconds to naive wall-clock seconds in ``wallclock_tz``.

    Used only for paper-exact reproduction: the SC'18 reference code
    computed its windows on naive America/Los_Angeles times, so near a DST change a window
    edge moves by one hour relative to elapsed time.
    """
    zone = check_tz(wallclock_tz, "wallclock_tz")
    whole = np.floor(seconds)
    index = pd.DatetimeIndex(pd.to_datetime(whole.astype(np.int64), unit="s", utc=True))
    local = index.tz_convert(zone).tz_localize(None)
    offset = (
        np.asarray(local.as_unit("s").asi8, dtype=np.int64)
        - np.asarray(index.as_unit("s").asi8, dtype=np.int64)
    ).astype(np.float64)
    return np.ascontiguousarray(seconds + offset)


def parse_window(window: Any, name: str = "window") -> float | None:
    """Window width in seconds, or None for the infinite window (the global mean).

    Parameters
    ----------
    window : str, timedelta, numpy.timedelta64, pandas.Timedelta, float or None
        A fixed-frequency duration string (``"14D"``, ``"36h"``), a duration, or seconds.
        ``None``, ``"inf"`` and ``math.inf`` mean the infinite window.
    name : str
        Argument name for error messages.

    Raises
    ------
    InvalidInputError
        Not a duration, a calendar offset (months, years), or a width that is not positive.
    """
    if window is None:
        return None
    if isinstance(window, str):
        if window.strip().lower() in ("inf", "infinite", "infinity"):
            return None
        try:
            seconds = pd.Timedelta(window).total_seconds()
        except (ValueError, TypeError) as exc:
            raise InvalidInputError(
                f"{name} must be a fixed-frequency duration such as '14D' or '36h', got "
                f"{window!r} (calendar offsets such as months are not fixed widths: {exc})"
            ) from exc
    elif isinstance(window, (datetime.timedelta, np.timedelta64, pd.Timedelta)):
        if pd.isna(window):
            raise InvalidInputError(f"{name} must be a positive duration, got NaT")
        seconds = pd.Timedelta(window).total_seconds()
    elif isinstance(window, numbers.Real) and not isinstance(window, (bool, np.bool_)):
        try:
            seconds = float(window)
        except OverflowError:
            raise InvalidInputError(
                f"{name} must be a finite number of seconds, got an integer beyond the "
                "float64 range"
            ) from None
        if math.isinf(seconds) and seconds > 0:
            return None
    else:
        raise InvalidInputError(
            f"{name} must be a duration string such as '14D', a timedelta, seconds or None, "
            f"got {_describe(window)}"
        )
    if not math.isfinite(seconds) or seconds <= 0:
        raise InvalidInputError(f"{name} must be a positive duration, got {_describe(window)}")
    return float(seconds)


def window_label(seconds: float | None) -> str:
    """Short label of a window width: ``"14D"``, ``"36h"``, ``"90s"`` or ``"inf"``."""
    if seconds is None:
        return "inf"
    for unit, size in (("D", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size and float(seconds / size).is_integer():
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"
