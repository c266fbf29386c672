"""Centred, time-based simple moving average.

Documentation: *Algorithms › Smoothing* (``docs/algorithms/smoothing.md``).

Lockwood et al. (SC'18, §4) define the SMA over a centred, half-open time window, so a
missing day means fewer samples, nothing is interpolated, edges are truncated (the window
is one-sided near the ends) and each observation (not each day) has equal weight. A
trailing window would lag by about w/2.

The window of every row of :func:`sma` is found by a two-pointer scan over the sorted
times, and its mean comes from compensated prefix sums, so the whole computation is O(n).
On a sorted ``DatetimeIndex`` the result equals pandas'
``s.rolling(pd.Timedelta(w), center=True, closed="left").mean()`` to rounding. Times are
float64 seconds: sub-microsecond differences are not resolved.

References: G. K. Lockwood, S. Snyder, T. Wang, S. Byna, P. Carns, N. J. Wright, "A Year in
the Life of a Parallel File System", SC'18, doi:10.1109/SC.2018.00077, §4.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from pilotstats._kernels import smoothing as _k
from pilotstats._typing import Float64Array1D, Int64Array1D, WindowClosed
from pilotstats._validation import as_float_array, check_choice, check_sorted
from pilotstats.exceptions import InvalidInputError
from pilotstats.smoothing._time import (
    as_utc_seconds,
    parse_window,
    to_wallclock_seconds,
)

__all__ = ["sma"]

_CLOSED: dict[str, tuple[bool, bool]] = {
    "left": (True, False),
    "right": (False, True),
    "both": (True, True),
    "neither": (False, False),
}


class _PrefixSums:
    """Compensated prefix sums of one series, shared by several windows."""

    __slots__ = ("count", "high", "low", "n", "scale", "values")

    def __init__(self, values: Float64Array1D) -> None:
        # Values near the float64 limit would overflow the prefix sums (two of 1e308 sum
        # to inf): scale by an exact power of two, undone on the means.
        peak = float(np.nanmax(np.abs(values))) if values.size and not np.isnan(
            values).all() else 0.0
        self.scale = 2.0**-24 if peak > 2.0**1000 else 1.0
        self.values = np.ascontiguousarray(values * self.scale if self.scale != 1.0 else values)
        self.high, self.low, self.count = _k.compensated_prefix_sums(self.values)
        self.n = values.shape[0]

    def window_means(
        self, seconds: Float64Array1D, width: float | None, closed: str = "left"
    ) -> Float64Array1D:
        """SMA over windows of ``width`` seconds (None: the global mean at every row)."""
        if width is None:
            first = np.zeros(self.n, dtype=np.int64)
            stop = np.full(self.n, self.n, dtype=np.int64)
        else:
            left_closed, right_closed = _CLOSED[closed]
            first, stop = _k.window_bounds(seconds, 0.5 * width, left_closed, right_closed)
        return self.range_means(first, stop)

    def range_means(self, first: Int64Array1D, stop: Int64Array1D) -> Float64Array1D:
        """Means of the non-NaN values of the row ranges ``[first, stop)``."""
        if first.shape[0] == 0:
            return np.zeros(0)
        means: Float64Array1D = _k.range_means(
            self.high,
            self.low,
            self.count,
            np.ascontiguousarray(first, dtype=np.int64),
            np.ascontiguousarray(stop, dtype=np.int64),
            self.values,
        )
        return means / self.scale if self.scale != 1.0 else means


def sma_seconds(
    seconds: Float64Array1D,
    values: Float64Array1D,
    width: float | None,
    closed: str = "left",
) -> Float64Array1D:
    """SMA on validated, sorted float64 times (seconds) and values (NaN allowed)."""
    return _PrefixSums(values).window_means(seconds, width, closed)


def _output_index(times: Any, values: Any) -> pd.Index | None:
    if isinstance(values, pd.Series):
        return values.index
    if isinstance(times, pd.Series):
        return times.index
    if isinstance(times, pd.Index):
        return times
    return None


def sma(times: Any, values: Any, window: Any, *, closed: WindowClosed = "left",
        tz: Any = "UTC", wallclock_tz: Any = None) -> Any:
    """Centred, time-based simple moving average evaluated at the observation times.

    For window width w, ``SMA_w(t_i) = mean{y_j : t_i - w/2 <= t_j < t_i + w/2, y_j not NaN}``.

    Parameters
    ----------
    times : array_like, shape (n,)
        Observation times sorted ascending (duplicates allowed): numpy ``datetime64``, a
        pandas ``DatetimeIndex`` or datetime ``Series`` (naive or tz-aware), or epoch
        seconds. Converted to UTC instants; naive datetimes are read in ``tz``.
    values : array_like, shape (n,)
        Observed values; NaN values are ignored.
    window : str, timedelta, float or None
        Window width w: a fixed-frequency duration string (``"14D"``), a ``timedelta`` or
        ``pandas.Timedelta``, or seconds. ``None`` or ``"inf"`` gives the global mean of all
        non-NaN values at every time (SMA_inf).
    closed : {"left", "right", "both", "neither"}, default "left"
        Which window edges are included. ``"left"``, ``[t - w/2, t + w/2)``, is the paper's
        definition; the others mirror pandas' ``closed`` options and exist for comparison.
    tz : str or tzinfo, default "UTC"
        Zone of naive datetimes.
    wallclock_tz : str or tzinfo, optional
        Evaluate the windows on naive wall-clock times in this zone instead of elapsed UTC
        time. Only for reproducing the SC'18 reference code; near a DST change a
        window then spans w ± 1 h of elapsed time.

    Returns
    -------
    numpy.ndarray or pandas.Series
        The SMA at every observation, float64. A pandas Series (with the index of ``values``,
        else of ``times``) when either input is a pandas object, else a numpy array. NaN only
        where every value in the window is NaN.

    Raises
    ------
    InvalidInputError
        Non-datetime or unsorted times, NaT, values of another length, non-numeric values,
        a window that is not a positive fixed duration, or an unknown ``closed``.
    EmptyGroupError
        No observations.

    Notes
    -----
    O(n): see the module overview for the algorithm, and :func:`divergence_regions`.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.smoothing import sma
    >>> days = np.array(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-05"],
    ...                 dtype="datetime64[s]")
    >>> sma(days, [1.0, 2.0, 3.0, 10.0], "2D")  # [t - 1 day, t + 1 day)
    array([ 1. ,  1.5,  2.5, 10. ])
    >>> sma(days, [1.0, 2.0, 3.0, 10.0], None)
    array([4., 4., 4., 4.])
    """
    check_choice(closed, "closed", tuple(_CLOSED))
    width = parse_window(window)
    seconds = as_utc_seconds(times, "times", tz=tz)
    check_sorted(seconds, "times")
    y = as_float_array(values, "values", allow_nonfinite=True)
    if y.shape[0] != seconds.shape[0]:
        raise InvalidInputError(
            f"values has {y.shape[0]} elements but times has {seconds.shape[0]}; they must "
            "have the same length"
        )
    if np.isinf(y).any():
        raise InvalidInputError("values contains infinite entries; replace them with NaN")
    if wallclock_tz is not None:
        seconds = to_wallclock_seconds(seconds, wallclock_tz)
        check_sorted(seconds, "times (as wall-clock times)")
    result = sma_seconds(seconds, y, width, closed)
    index = _output_index(times, values)
    if index is not None:
        name = values.name if isinstance(values, pd.Series) else None
        return pd.Series(result, index=index, name=name)
    return result
