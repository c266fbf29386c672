"""Crossovers of two SMAs and the divergence regions between them.

Documentation: *Algorithms › Smoothing* (``docs/algorithms/smoothing.md``, *Crossovers and
regions*).

In :func:`crossovers`, ties count as "not above": touching the long SMA from below creates
no crossover, touching it from above creates a down and an up crossover. Doubles are
compared exactly, as in the reference (NERSC/tokio-abcutils ``abcutils/features.py``,
``find_sma_intercepts``); two SMAs that are mathematically equal but were summed differently
can differ in the last bits and then count as crossed. :func:`~pilotstats.smoothing.sma`
gives bit-identical means for windows that hold the same rows, so its output is safe here.
Duplicate timestamps share their SMA values, so a crossover lands on the first of them.

:func:`divergence_regions` follows Lockwood et al. (SC'18, §4–§5): with crossovers at rows
``c_0 < ... < c_{K-1}``, region k is ``[c_k, c_{k+1})``; K crossovers give K - 1 regions,
and the unbounded head and tail are dropped. A region's side is the sign of
``short - long`` at its first row. The job of interest ("anomalous observation") is the
worst value in the region, the earliest on ties. Regions of a single row are kept (their
contributor p-values are 1). Reference behaviour: NERSC/tokio-abcutils
``abcutils/features.py`` (``intercepts_to_region``) and ``sc18_figure10.ipynb``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from pilotstats._protocols import select_items
from pilotstats._typing import Float64Array1D, Int64Array1D
from pilotstats._validation import as_float_array, check_int, check_sorted
from pilotstats.exceptions import EmptyGroupError, InvalidInputError
from pilotstats.results import Result, draw, format_number, plot_doc
from pilotstats.smoothing._sma import _PrefixSums
from pilotstats.smoothing._time import (
    as_utc_seconds,
    parse_window,
    to_wallclock_seconds,
    window_label,
)

__all__ = ["Crossovers", "Regions", "crossovers", "divergence_regions"]


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.flags.writeable = False
    return array


def _frozen_copy(array: Any, dtype: Any) -> np.ndarray:
    return _readonly(np.array(array, dtype=dtype, copy=True))


@dataclasses.dataclass(frozen=True, slots=True)
class Crossovers(Result):
    """Crossovers of a short SMA over a long one.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one crossover, a
    ``dict`` with the columns of :meth:`to_frame` (``position``, ``t``, ``direction``,
    ``sma_short``, ``sma_long``).

    Attributes
    ----------
    positions : ndarray of int64
        Row of each crossover: the first observation after the sign change.
    times : ndarray of float64
        UTC epoch seconds of those rows (NaN when no times were given).
    directions : tuple of str
        ``"up"`` where the short SMA crosses above the long one, else ``"down"``.
    sma_short, sma_long : ndarray of float64
        Both SMAs at the crossover rows.
    above : ndarray of bool
        ``short > long`` at every row (strict; NaN compares as False).
    n : int
        Number of observations (rows) of the series.

    Examples
    --------
    Returned by :func:`crossovers` (and kept in :attr:`Regions.crossovers`):

    >>> from pilotstats.smoothing import crossovers
    >>> result = crossovers([1.0, 2.0, 3.0, 2.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0])
    >>> print(result)
    2 crossovers (1 up, 1 down) over 5 observations
    >>> result.positions.tolist(), result.directions
    ([2, 3], ('up', 'down'))
    >>> result[0]
    {'position': 2, 't': nan, 'direction': 'up', 'sma_short': 3.0, 'sma_long': 2.0}
    """

    positions: Int64Array1D
    times: Float64Array1D
    directions: tuple[str, ...]
    sma_short: Float64Array1D
    sma_long: Float64Array1D
    above: np.ndarray
    n: int

    def __len__(self) -> int:
        return int(self.positions.shape[0])

    def _item(self, k: int) -> dict[str, Any]:
        return {
            "position": int(self.positions[k]),
            "t": float(self.times[k]),
            "direction": self.directions[k],
            "sma_short": float(self.sma_short[k]),
            "sma_long": float(self.sma_long[k]),
        }

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._item(k) for k in range(len(self)))

    def __getitem__(self, index: Any) -> Any:
        return select_items(index, len(self), self._item, "Crossovers")

    def __str__(self) -> str:
        ups = sum(1 for d in self.directions if d == "up")
        return (
            f"{len(self)} crossovers ({ups} up, {len(self) - ups} down) over {self.n} "
            "observations"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per crossover: position, t (UTC epoch s), direction, sma_short, sma_long."""
        return pd.DataFrame(
            {
                "position": np.asarray(self.positions),
                "t": np.asarray(self.times),
                "direction": list(self.directions),
                "sma_short": np.asarray(self.sma_short),
                "sma_long": np.asarray(self.sma_long),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe data: the crossover records (the per-row ``above`` flags omitted)."""
        data = Result.to_dict(self)
        data.pop("above", None)
        return data


def _above(short: Float64Array1D, long: Float64Array1D) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.asarray(short > long, dtype=bool)


def _crossover_positions(above: np.ndarray) -> Int64Array1D:
    if above.shape[0] < 2:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(above[1:] != above[:-1]).astype(np.int64) + 1


def _build_crossovers(
    short: Float64Array1D,
    long: Float64Array1D,
    seconds: Float64Array1D | None,
    min_width: float | None,
) -> Crossovers:
    above = _above(short, long)
    positions = _crossover_positions(above)
    if min_width is not None and positions.size > 1 and seconds is not None:
        gaps = seconds[positions[1:]] - seconds[positions[:-1]]
        keep = np.concatenate(([True], gaps >= min_width))
        positions = positions[keep]
    times = (
        seconds[positions] if seconds is not None else np.full(positions.shape[0], np.nan)
    )
    return Crossovers(
        positions=_frozen_copy(positions, np.int64),
        times=_frozen_copy(times, np.float64),
        directions=tuple("up" if above[p] else "down" for p in positions),
        sma_short=_frozen_copy(short[positions], np.float64),
        sma_long=_frozen_copy(long[positions], np.float64),
        above=_readonly(above.copy()),
        n=int(short.shape[0]),
    )


def crossovers(short: Any, long: Any, *, min_width: Any = None, times: Any = None) -> Crossovers:
    """Find where a short SMA crosses a long one.

    With ``a_i = [short_i > long_i]`` (strict; NaN compares as False), row i >= 1 is a
    crossover iff ``a_i != a_{i-1}``. The crossover is reported at the first observation
    after the sign change, without interpolating the crossing instant.

    Parameters
    ----------
    short, long : array_like or pandas.Series, shape (n,)
        The two SMAs on the same observation times (e.g. from :func:`sma`). Series must
        share their index.
    min_width : str, timedelta or float, optional
        Drop a crossover that comes less than this duration after the previous unfiltered
        crossover (needs times). The paper did not use it.
    times : array_like, optional
        Observation times (as for :func:`sma`); taken from a ``DatetimeIndex`` of ``short``
        when omitted.

    Returns
    -------
    Crossovers

    Raises
    ------
    InvalidInputError
        Different lengths or indexes, non-numeric values, ``min_width`` without times or
        not a positive duration.
    EmptyGroupError
        No observations.

    Notes
    -----
    Ties and exact comparison: see the module overview. Complexity: O(n) time and memory.

    Examples
    --------
    >>> from pilotstats.smoothing import crossovers
    >>> c = crossovers([1.0, 2.0, 3.0, 2.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0])
    >>> c.positions.tolist(), c.directions
    ([2, 3], ('up', 'down'))
    """
    if isinstance(short, pd.Series) and isinstance(long, pd.Series):
        if not short.index.equals(long.index):
            raise InvalidInputError(
                "short and long must be Series on the same index (the same observation times)"
            )
    s = as_float_array(short, "short", allow_nonfinite=True, min_length=0)
    g = as_float_array(long, "long", allow_nonfinite=True, min_length=0)
    if s.shape[0] == 0:
        raise EmptyGroupError("short is empty; need at least one observation")
    if s.shape[0] != g.shape[0]:
        raise InvalidInputError(
            f"short has {s.shape[0]} values but long has {g.shape[0]}; they must be aligned"
        )
    seconds: Float64Array1D | None = None
    if times is None and isinstance(short, pd.Series) and isinstance(
        short.index, pd.DatetimeIndex
    ):
        times = short.index
    if times is not None:
        seconds = as_utc_seconds(times, "times")
        check_sorted(seconds, "times")
        if seconds.shape[0] != s.shape[0]:
            raise InvalidInputError(
                f"times has {seconds.shape[0]} values but the SMAs have {s.shape[0]}"
            )
    width = None
    if min_width is not None:
        width = parse_window(min_width, "min_width")
        if width is None:
            raise InvalidInputError("min_width must be a finite positive duration")
        if seconds is None:
            raise InvalidInputError(
                "min_width needs observation times: pass times= or Series with a DatetimeIndex"
            )
    return _build_crossovers(s, g, seconds, width)


@dataclasses.dataclass(frozen=True, slots=True)
class Regions(Result):
    """Divergence regions between consecutive SMA crossovers.

    Region k holds rows ``[start_k, stop_k)``: from the row of crossover k up to, not
    including, the row of crossover k + 1. The unbounded head and tail are dropped.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one region, a
    ``dict`` with the columns of :meth:`to_frame`; ``len(regions)`` is the number of
    regions (:attr:`n` the number of observations).

    Attributes
    ----------
    starts, stops : ndarray of int64
        Row ranges ``[start, stop)`` of the regions (``stop`` is the next crossover row).
    start_times, end_times, next_crossover_times : ndarray of float64
        UTC epoch seconds of the first row, the last row and the next crossover row.
    n_rows : ndarray of int64
        Rows (observations) per region, NaN values included.
    sides : tuple of str
        Side of the short SMA in the region: ``"above"`` the long one, else ``"below"``.
    means : ndarray of float64
        Mean of the non-NaN values in the region.
    job_positions : ndarray of int64
        Row of the job of interest (lowest value if higher is better, else highest; the
        earliest row on ties); -1 when the region has only NaN values.
    job_times, job_values : ndarray of float64
        Time and value of the job of interest.
    times, values, sma_short, sma_long : ndarray of float64
        The input series (UTC epoch seconds) and both SMAs at every row.
    crossovers : Crossovers
        All crossovers (before the region-size filter).
    short_period, long_period : float or None
        Widths of the two SMA time windows in seconds (None: the global mean). A
        ``*_period`` is a time span; a ``*_window`` (as in :class:`TrendCompliance`) counts
        runs.
    min_observations : int
        Minimum observations inside a time window: regions (the time window between two
        crossovers) with fewer observations (rows, NaN values included) were dropped.
    higher_is_better : bool
        Direction of the values (the job of interest is the lowest value when True).

    Examples
    --------
    Returned by :func:`divergence_regions`:

    >>> import numpy as np
    >>> from pilotstats.smoothing import divergence_regions
    >>> days = np.arange(60) * 86400.0
    >>> y = np.where((days > 20 * 86400) & (days < 40 * 86400), 0.5, 1.0)
    >>> regions = divergence_regions(days, y, short="6D", long="24D")
    >>> len(regions), regions.sides
    (3, ('above', 'below', 'above'))
    >>> regions[1]["side"], regions[1]["job_y"], len(regions.to_frame())
    ('below', 0.5, 3)
    >>> print(regions)  # doctest: +ELLIPSIS
    3 divergence regions from ... crossovers of the 6D SMA over the 24D SMA (60 observations, ...)
    """

    starts: Int64Array1D
    stops: Int64Array1D
    start_times: Float64Array1D
    end_times: Float64Array1D
    next_crossover_times: Float64Array1D
    n_rows: Int64Array1D
    sides: tuple[str, ...]
    means: Float64Array1D
    job_positions: Int64Array1D
    job_times: Float64Array1D
    job_values: Float64Array1D
    times: Float64Array1D
    values: Float64Array1D
    sma_short: Float64Array1D
    sma_long: Float64Array1D
    crossovers: Crossovers
    short_period: float | None
    long_period: float | None
    min_observations: int
    higher_is_better: bool

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    def _item(self, k: int) -> dict[str, Any]:
        return {
            "region_id": k,
            "start": int(self.starts[k]),
            "stop": int(self.stops[k]),
            "start_t": float(self.start_times[k]),
            "end_t": float(self.end_times[k]),
            "next_crossover_t": float(self.next_crossover_times[k]),
            "n_rows": int(self.n_rows[k]),
            "side": self.sides[k],
            "mean_y": float(self.means[k]),
            "job_position": int(self.job_positions[k]),
            "job_t": float(self.job_times[k]),
            "job_y": float(self.job_values[k]),
        }

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._item(k) for k in range(len(self)))

    def __getitem__(self, index: Any) -> Any:
        return select_items(index, len(self), self._item, "Regions")

    @property
    def n(self) -> int:
        """Number of observations (rows) of the analysed series."""
        return int(self.times.shape[0])

    def labels(self) -> Int64Array1D:
        """Region id (0, 1, ...) of every row; -1 for rows outside every region."""
        label = np.full(self.n, -1, dtype=np.int64)
        for k in range(len(self)):
            label[self.starts[k] : self.stops[k]] = k
        return label

    def __str__(self) -> str:
        return (
            f"{len(self)} divergence regions from {len(self.crossovers)} crossovers of the "
            f"{window_label(self.short_period)} SMA over the "
            f"{window_label(self.long_period)} SMA ({self.n} observations, median "
            f"{format_number(float(np.median(self.n_rows)) if len(self) else None, 3)} rows "
            "per region)"
        )

    @plot_doc
    def plot(self, *, kind: str = "timeline", ax: Any = None, **options: Any) -> Any:
        """Draw the regions (needs matplotlib); delegates to the smoothing plot functions.

        Parameters
        ----------
        kind : {"timeline", "sma_difference"}, default "timeline"
            ``"timeline"``: raw values, both SMAs, crossovers, shaded regions and jobs of
            interest (:func:`~pilotstats.plotting.plot_timeline`). ``"sma_difference"``:
            short minus long SMA with the crossovers
            (:func:`~pilotstats.plotting.plot_sma_difference`).
        {ax}
        **options
            Further keyword arguments of the chosen function (e.g. ``ylabel``,
            ``min_region_duration``, ``shade_regions`` for the timeline).

        {returns}

        Raises
        ------
        InvalidInputError
            Unknown ``kind``.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.smoothing import divergence_regions
        >>> t = np.arange(60) * 86400.0
        >>> y = np.sin(np.arange(60) / 4.0)
        >>> ax = divergence_regions(t, y, short="3D", long="12D").plot(ylabel="MB/s")
        >>> ax.get_xlabel()
        'time (UTC)'
        """
        return draw(self, kind=kind, ax=ax, **options)

    def to_frame(self) -> pd.DataFrame:
        """One row per region (times in UTC epoch seconds).

        Returns
        -------
        pandas.DataFrame
            Columns ``region_id``, ``start``, ``stop``, ``start_t``, ``end_t``,
            ``next_crossover_t``, ``n_rows``, ``side``, ``mean_y`` (mean of the values),
            ``job_position``, ``job_t`` and ``job_y`` (the job of interest's value).
        """
        return pd.DataFrame(
            {
                "region_id": np.arange(len(self), dtype=np.int64),
                "start": np.asarray(self.starts),
                "stop": np.asarray(self.stops),
                "start_t": np.asarray(self.start_times),
                "end_t": np.asarray(self.end_times),
                "next_crossover_t": np.asarray(self.next_crossover_times),
                "n_rows": np.asarray(self.n_rows),
                "side": list(self.sides),
                "mean_y": np.asarray(self.means),
                "job_position": np.asarray(self.job_positions),
                "job_t": np.asarray(self.job_times),
                "job_y": np.asarray(self.job_values),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe data: the region records and settings (no per-row arrays)."""
        from pilotstats.results import json_safe

        return {
            "regions": json_safe(self.to_frame().to_dict(orient="records")),
            "crossovers": self.crossovers.to_dict(),
            "short_period": self.short_period,
            "long_period": self.long_period,
            "min_observations": self.min_observations,
            "higher_is_better": self.higher_is_better,
            "n": self.n,
        }


def _region_arrays(
    values: Float64Array1D,
    prefix: _PrefixSums,
    positions: Int64Array1D,
    above: np.ndarray,
    min_observations: int,
    higher_is_better: bool,
) -> dict[str, Any]:
    """Region bounds, sides, means and jobs of interest from crossover rows."""
    starts = positions[:-1].astype(np.int64)
    stops = positions[1:].astype(np.int64)
    sizes = stops - starts
    keep = sizes >= min_observations
    starts, stops, sizes = starts[keep], stops[keep], sizes[keep]
    means = prefix.range_means(starts, stops)
    jobs = np.full(starts.shape[0], -1, dtype=np.int64)
    sentinel = np.inf if higher_is_better else -np.inf
    for i in range(starts.shape[0]):
        a, b = int(starts[i]), int(stops[i])
        segment = values[a:b]
        if np.isnan(segment).all():
            continue
        filled = np.where(np.isnan(segment), sentinel, segment)
        offset = np.argmin(filled) if higher_is_better else np.argmax(filled)
        jobs[i] = a + int(offset)
    return {
        "starts": starts,
        "stops": stops,
        "n_rows": sizes,
        "means": means,
        "jobs": jobs,
        "sides": tuple("above" if above[s] else "below" for s in starts),
    }


def _build_regions(
    seconds: Float64Array1D,
    window_seconds: Float64Array1D,
    values: Float64Array1D,
    short_width: float | None,
    long_width: float | None,
    min_observations: int,
    higher_is_better: bool,
    closed: str = "left",
    min_width: float | None = None,
) -> Regions:
    prefix = _PrefixSums(values)
    short = prefix.window_means(window_seconds, short_width, closed)
    long = prefix.window_means(window_seconds, long_width, closed)
    cross = _build_crossovers(short, long, seconds, min_width)
    parts = _region_arrays(
        values, prefix, cross.positions, cross.above, min_observations, higher_is_better
    )
    jobs = parts["jobs"]
    valid = jobs >= 0
    safe = np.where(valid, jobs, 0)
    job_times = np.where(valid, seconds[safe], np.nan) if jobs.size else np.zeros(0)
    job_values = np.where(valid, values[safe], np.nan) if jobs.size else np.zeros(0)
    starts, stops = parts["starts"], parts["stops"]
    return Regions(
        starts=_frozen_copy(starts, np.int64),
        stops=_frozen_copy(stops, np.int64),
        start_times=_frozen_copy(seconds[starts], np.float64),
        end_times=_frozen_copy(seconds[stops - 1], np.float64),
        next_crossover_times=_frozen_copy(seconds[stops], np.float64),
        n_rows=_frozen_copy(parts["n_rows"], np.int64),
        sides=parts["sides"],
        means=_frozen_copy(parts["means"], np.float64),
        job_positions=_frozen_copy(jobs, np.int64),
        job_times=_frozen_copy(job_times, np.float64),
        job_values=_frozen_copy(job_values, np.float64),
        times=_frozen_copy(seconds, np.float64),
        values=_frozen_copy(values, np.float64),
        sma_short=_readonly(short),
        sma_long=_readonly(long),
        crossovers=cross,
        short_period=short_width,
        long_period=long_width,
        min_observations=int(min_observations),
        higher_is_better=bool(higher_is_better),
    )


def check_windows(short: Any, long: Any) -> tuple[float | None, float | None]:
    """Parse both windows; the long one must be longer than the short one."""
    short_width = parse_window(short, "short")
    long_width = parse_window(long, "long")
    if short_width is None:
        raise InvalidInputError(
            "short must be a finite window such as '14D'; only long may be None (global mean)"
        )
    if long_width is not None and long_width <= short_width:
        raise InvalidInputError(
            f"long ({window_label(long_width)}) must be longer than short "
            f"({window_label(short_width)})"
        )
    return short_width, long_width


def divergence_regions(
    times: Any, values: Any, *, short: Any = "14D", long: Any = "49D",
    min_observations: int = 1, higher_is_better: bool = True, tz: Any = "UTC",
    wallclock_tz: Any = None,
) -> Regions:
    """Regions where a short SMA stays on one side of a long SMA.

    Parameters
    ----------
    times : array_like, shape (n,)
        Observation times sorted ascending (as for :func:`sma`).
    values : array_like, shape (n,)
        Observed performance (NaN ignored by the SMAs).
    short, long : str, timedelta, float or None, default "14D" and "49D"
        Window widths; ``long=None`` (or ``"inf"``) compares with the global mean.
    min_observations : int, default 1
        Minimum observations inside a time window: a region (the time window between two
        crossovers) with fewer observations (rows, NaN values included) is dropped (the
        SC'18 draft used 7).
    higher_is_better : bool, default True
        Direction of the values: the job of interest is the lowest value of the region if
        True, else the highest.
    tz : str, default "UTC"
        Zone of naive datetimes.
    wallclock_tz : str, optional
        Evaluate windows on naive wall-clock times in this zone (paper-exact mode).

    Returns
    -------
    Regions

    Raises
    ------
    InvalidInputError
        As :func:`sma`; ``long`` not longer than ``short``; ``min_observations < 1``.
    EmptyGroupError
        No observations.

    Notes
    -----
    Regions as defined in the module overview. Complexity: O(n log n) (sorting the
    times), then O(n) for the two moving averages and the regions.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.smoothing import divergence_regions
    >>> days = np.arange(60) * 86400.0
    >>> y = np.where((days > 20 * 86400) & (days < 40 * 86400), 0.5, 1.0)
    >>> r = divergence_regions(days, y, short="6D", long="24D")
    >>> len(r), r.sides, r.job_values.tolist()
    (3, ('above', 'below', 'above'), [1.0, 0.5, 1.0])
    """
    short_width, long_width = check_windows(short, long)
    minimum = check_int(min_observations, "min_observations", low=1)
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InvalidInputError(f"higher_is_better must be True or False, got {higher_is_better!r}")
    seconds = as_utc_seconds(times, "times", tz=tz)
    check_sorted(seconds, "times")
    y = as_float_array(values, "values", allow_nonfinite=True)
    if y.shape[0] != seconds.shape[0]:
        raise InvalidInputError(
            f"values has {y.shape[0]} elements but times has {seconds.shape[0]}"
        )
    if np.isinf(y).any():
        raise InvalidInputError("values contains infinite entries; replace them with NaN")
    window_seconds = seconds
    if wallclock_tz is not None:
        window_seconds = to_wallclock_seconds(seconds, wallclock_tz)
        check_sorted(window_seconds, "times (as wall-clock times)")
    return _build_regions(
        seconds, window_seconds, y, short_width, long_width, minimum, bool(higher_is_better)
    )
