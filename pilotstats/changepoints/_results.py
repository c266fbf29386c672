"""Result classes shared by every change-point function.

:class:`ChangePoints` is returned by :func:`~pilotstats.changepoints.edm`,
:class:`~pilotstats.changepoints.EdmStream` and
:func:`~pilotstats.changepoints.detect_changes`; :class:`SingleChangePoint` by
:func:`~pilotstats.changepoints.edm_single`. Conventions
(``docs/algorithms/index.md``): a change point is the 0-based index of the **first sample of the new
segment**; segments are half-open ``[start, end)``; locations are strictly increasing and
never contain 0 or n.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, SupportsIndex, TypeVar, cast, overload

import numpy as np

from pilotstats._protocols import select_items
from pilotstats._stats import arithmetic_scale
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import Result, draw, format_number, json_safe, plot_doc

__all__ = [
    "ChangePoints",
    "Segment",
    "SingleChangePoint",
    "keeps_index",
    "make_segments",
    "with_index_labels",
]

CP = TypeVar("CP", bound="ChangePoints")
F = TypeVar("F", bound=Callable[..., Any])


@dataclasses.dataclass(frozen=True, slots=True)
class Segment(Result):
    """Statistics of one segment ``x[start:end]`` between two change points.

    Attributes
    ----------
    start : int
        Index of the first sample (inclusive).
    end : int
        Index one past the last sample (exclusive).
    n : int
        Number of samples, ``end - start``.
    median : float
        Sample median (mean of the two middle order statistics for even n).
    mean : float
        Arithmetic mean.
    std : float
        Sample standard deviation with ``ddof=1``; NaN when ``n == 1`` (``None`` in
        :meth:`to_dict`).

    Examples
    --------
    The segments of a :class:`ChangePoints` result:

    >>> from pilotstats.changepoints import edm
    >>> x = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5,
    ...      9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    >>> first = edm(x, min_size=5, beta=0.008).segments[0]
    >>> first.start, first.end, first.n, first.median, first.mean
    (0, 10, 10, 2.0, 2.0)
    """

    start: int
    end: int
    n: int
    median: float
    mean: float
    std: float

    def __str__(self) -> str:
        return (
            f"[{self.start}, {self.end}): n = {self.n}, mean {format_number(self.mean)}, "
            f"median {format_number(self.median)}, std {format_number(self.std)}"
        )

    @property
    def population_std(self) -> float:
        """Standard deviation with ``ddof=0`` (Otava's ``stddev``; 0.0 when ``n == 1``)."""
        if self.n < 2:
            return 0.0
        return float(self.std * math.sqrt((self.n - 1) / self.n))


def with_index_labels(result: CP, x: Any) -> CP:
    """``result`` with ``labels`` taken from ``x.index`` when ``x`` is a pandas Series or
    DataFrame whose index has one entry per sample; otherwise ``result`` unchanged."""
    index = getattr(x, "index", None)
    if index is None or callable(index) or not hasattr(index, "tolist"):
        return result
    values = index.tolist()
    if len(values) != result.n:
        return result
    return dataclasses.replace(result, labels=tuple(values[c] for c in result.locations))


def keeps_index(function: F) -> F:
    """Decorate a detector ``f(x, ...) -> ChangePoints`` so that a pandas Series keeps its
    index: the result's ``labels`` hold the index values of the change points."""

    @functools.wraps(function)
    def wrapper(x: Any, *args: Any, **kwargs: Any) -> Any:
        return with_index_labels(function(x, *args, **kwargs), x)

    return cast(F, wrapper)


def make_segments(
    x: np.ndarray, locations: Sequence[int], scale: float | None = None
) -> tuple[Segment, ...]:
    """Build the :class:`Segment` statistics of ``x`` cut at ``locations``.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        The (unscaled) data, n >= 1.
    locations : sequence of int
        Strictly increasing change points in ``(0, n)``.
    scale : float, optional
        ``arithmetic_scale(x)`` when the caller has it. When it is 1.0 (every value within
        2**500 in magnitude), so is the scale of every segment, which is then not computed
        again.

    Returns
    -------
    tuple of Segment
        ``len(locations) + 1`` segments covering ``[0, n)`` in order.
    """
    n = int(x.shape[0])
    bounds = [0, *(int(c) for c in locations), n]
    segments = []
    for start, end in itertools.pairwise(bounds):
        part = x[start:end]
        part_scale = 1.0 if scale == 1.0 else arithmetic_scale(part)
        mean, std = _mean_std(part, part_scale)
        segments.append(
            Segment(
                start=start,
                end=end,
                n=end - start,
                median=safe_median(part, part_scale),
                mean=mean,
                std=std,
            )
        )
    return tuple(segments)


def safe_median(part: np.ndarray, scale: float | None = None) -> float:
    """Median that stays finite for finite data near the float64 limit (the mean of the
    two middle values of 1.7e308 and 1.7e308 would overflow).

    ``scale`` is ``arithmetic_scale(part)`` when the caller has it. Equal to ``np.median``
    of the (scaled) values, computed without its generic machinery (several times faster
    on the short segments of a change-point result): NumPy's mean of the middle order
    statistic, or of the two middle ones (``0.0 + (a + b)``, then ``/ 2``).
    """
    if scale is None:
        scale = arithmetic_scale(part)
    values = part * scale if scale != 1.0 else part
    k = values.shape[0] // 2
    if values.shape[0] % 2:
        middle = 0.0 + float(np.partition(values, k)[k])  # NumPy's mean of one value
    else:
        middle = float(np.add.reduce(np.partition(values, (k - 1, k))[k - 1 : k + 1])) / 2.0
    return middle / scale if scale != 1.0 else middle


def _mean_std(part: np.ndarray, scale: float | None = None) -> tuple[float, float]:
    """Mean and sample std (NaN for one value), finite for any finite data.

    Data beyond 2**500 in magnitude (whose squares, or sums near 1e308, overflow) are
    scaled by an exact power of two first (``scale``: ``arithmetic_scale(part)`` when the
    caller has it), so segment statistics of finite data stay finite instead of becoming
    inf/NaN with a RuntimeWarning. The operations are those of ``np.mean`` and
    ``np.std(ddof=1)`` (pairwise ``add.reduce``), without their generic machinery.
    """
    if scale is None:
        scale = arithmetic_scale(part)
    scaled = part * scale if scale != 1.0 else part
    count = scaled.shape[0]
    centre = float(np.add.reduce(scaled)) / count
    mean = centre / scale
    if count < 2:
        return mean, math.nan
    deviations = scaled - centre
    squares = float(np.add.reduce(np.multiply(deviations, deviations, out=deviations)))
    return mean, math.sqrt(squares / (count - 1)) / scale


def _relative_change(before: float, after: float) -> float:
    """Otava's relative change ``after / before - 1`` (0 when ``before == 0``)."""
    if before == 0.0:
        return 0.0
    return after / before - 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class ChangePoints(Result):
    """Change points of a series and the statistics of the segments between them.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`Segment`: iterating yields the segments, ``result[j]`` is segment j,
    ``len(result)`` is the number of segments (``len(result.locations) + 1``) and
    :meth:`to_frame` has one row per segment. The truth value is that of
    :attr:`locations`: a result without change points is falsy.

    Attributes
    ----------
    locations : tuple of int
        0-based index of the first sample of each new segment, strictly increasing, each in
        ``[min_size, n - min_size]``; empty when no change was found.
    segments : tuple of Segment
        ``len(locations) + 1`` half-open segments covering ``[0, n)``; statistics are
        computed on the data as given (unscaled).
    n : int
        Length of the series.
    method : str
        Procedure, e.g. ``"edm-multi"``, ``"edm-percent"`` or ``"detect_changes"``.
    parameters : mapping
        Every parameter used (min_size, beta or percent, degree, scale, ...), read-only.
    p_values : tuple of float or None
        One p-value per change point for significance-guarded detectors; None for the
        faithful :func:`~pilotstats.changepoints.edm` (which tests nothing).
    test : str or None
        Name of the significance test behind ``p_values``; None when there is none.
    score : float or None
        Final objective of the search where one exists (EDM: the dynamic-programme value
        F[n] in units of the scaled data); None otherwise.
    too_short : bool
        True when the series was too short to search (n < 2·min_size); then no change point.
    unit : str or None
        Optional label of the measured quantity.
    labels : tuple or None
        The index labels of the change points when the series was a pandas Series (or a
        one-column DataFrame): ``labels[j]`` is the index value of sample
        ``locations[j]``; None for unlabelled input.

    Examples
    --------
    Returned by :func:`edm` (and, as a subclass, by :func:`detect_changes`):

    >>> from pilotstats.changepoints import edm
    >>> x = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5,
    ...      9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    >>> result = edm(x, min_size=5, beta=0.008)
    >>> result.locations, len(result)
    ((10, 15, 20), 4)
    >>> [(s.start, s.end, s.median) for s in result]
    [(0, 10, 2.0), (10, 15, 5.0), (15, 20, 4.0), (20, 30, 9.0)]
    >>> result[-1].mean, bool(edm(x[:10], min_size=5))
    (8.4, False)
    """

    locations: tuple[int, ...]
    segments: tuple[Segment, ...]
    n: int
    method: str
    parameters: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    p_values: tuple[float, ...] | None = None
    test: str | None = None
    score: float | None = None
    too_short: bool = False
    unit: str | None = None
    labels: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        locations = tuple(int(c) for c in self.locations)
        if self.labels is not None:
            labels = tuple(self.labels)
            if len(labels) != len(locations):
                raise InvalidInputError(
                    f"labels must have one entry per change point ({len(locations)}), "
                    f"got {len(labels)}"
                )
            object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "locations", locations)
        object.__setattr__(self, "segments", tuple(self.segments))
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))
        if self.p_values is not None:
            p_values = tuple(float(p) for p in self.p_values)
            if len(p_values) != len(locations):
                raise InvalidInputError(
                    f"p_values must have one entry per change point ({len(locations)}), "
                    f"got {len(p_values)}"
                )
            object.__setattr__(self, "p_values", p_values)
        if self.score is not None:
            object.__setattr__(self, "score", float(self.score))
        if len(self.segments) != len(locations) + 1:
            raise InvalidInputError(
                f"segments must number len(locations) + 1 = {len(locations) + 1}, "
                f"got {len(self.segments)}"
            )

    def __iter__(self) -> Iterator[Segment]:
        return iter(self.segments)

    def __len__(self) -> int:
        return len(self.segments)

    @overload
    def __getitem__(self, index: SupportsIndex) -> Segment: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Segment, ...]: ...

    def __getitem__(self, index: Any) -> Any:
        return select_items(index, len(self.segments), self.segments.__getitem__,
                            type(self).__name__)

    def __bool__(self) -> bool:
        return bool(self.locations)

    def to_frame(self) -> Any:
        """One row per segment: the fields of :class:`Segment` (needs pandas).

        Returns
        -------
        pandas.DataFrame
            Columns ``start``, ``end``, ``n``, ``median``, ``mean`` and ``std``.

        Examples
        --------
        >>> from pilotstats.changepoints import edm
        >>> x = [0.0, 0.1] * 10 + [1.0, 1.1] * 10
        >>> edm(x, min_size=5).to_frame()[["start", "end", "median"]]
           start  end  median
        0      0   20    0.05
        1     20   40    1.05
        """
        import pandas as pd

        columns = [field.name for field in dataclasses.fields(Segment)]
        return pd.DataFrame(
            [[getattr(segment, name) for name in columns] for segment in self.segments],
            columns=columns,
        )

    def __str__(self) -> str:
        shown = ", ".join(
            f"{key} = {format_number(value) if isinstance(value, float) else value}"
            for key, value in self.parameters.items()
        )
        count = len(self.locations)
        noun = "change point" if count == 1 else "change points"
        if count == 0:
            head = f"{self.method}: no change points"
            if self.too_short:
                head += " (series too short to search)"
        else:
            head = f"{self.method}: {count} {noun} at {list(self.locations)}"
            if self.p_values is not None:
                ps = ", ".join(format_number(p, 3) for p in self.p_values)
                head += f" (p = [{ps}]"
                head += f", {self.test})" if self.test else ")"
            if self.labels is not None:
                head += f", labels {[str(label) for label in self.labels]}"
        tail = f"n = {self.n}"
        if shown:
            tail += f", {shown}"
        return f"{head} ({tail})"

    def _extra_dict(self) -> dict[str, Any]:
        return {"n_change_points": len(self.locations), "confidence_level": None}

    @plot_doc
    def plot(
        self,
        x: Any,
        *,
        ax: Any = None,
        level: str = "median",
        unit: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw the series, each segment's level and the change points (needs matplotlib).

        Change points are dashed vertical lines between the last sample of a segment and
        the first of the next, annotated with their p-values when the detector tested them
        (:class:`~pilotstats.changepoints.DetectedChangePoints`).

        Parameters
        ----------
        {series}
        {ax}
        level : {"median", "mean"}, default "median"
            Statistic drawn as each segment's horizontal level.
        {unit}
        {ylabel}
        title : str, optional
            Title (default: method, number of change points, test and n).

        {returns}

        Raises
        ------
        InvalidInputError
            ``len(x) != n`` or ``x`` not finite and 1-D; unknown ``level``.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.changepoints import edm
        >>> x = np.r_[np.zeros(40), np.ones(40)] + np.tile([0.0, 0.1], 40)
        >>> ax = edm(x, min_size=10).plot(x)
        >>> ax.get_xlabel(), len(ax.get_lines())
        ('sample index', 4)
        """
        return draw(self, x, ax=ax, level=level, unit=unit, ylabel=ylabel, title=title)

    def to_records(
        self,
        metric: str = "value",
        times: Sequence[Any] | np.ndarray | None = None,
        *,
        otava_keys: bool = False,
    ) -> list[dict[str, Any]]:
        """One Otava-like record per change point (the change-point records of Apache Otava).

        Parameters
        ----------
        metric : str, default "value"
            Metric name written into every record.
        times : sequence, optional
            Time stamp of every sample (length n); ``time`` is ``times[index]``. Without it
            ``time`` is None.
        otava_keys : bool, default False
            Write the p-value under Otava's key ``pvalue`` instead of ``p_value``.

        Returns
        -------
        list of dict
            Keys ``metric``, ``index`` (first sample of the new regime), ``time``,
            ``forward_change_percent`` (``100·(mean_after/mean_before − 1)``, 0 when
            ``mean_before`` is 0, as Otava), ``magnitude`` (the larger of the absolute
            forward and backward relative changes, as Otava's ``change_magnitude``),
            ``mean_before``, ``stddev_before``, ``mean_after``, ``stddev_after`` (adjacent
            segments; population standard deviations as Otava) and ``p_value`` (None when
            the detector tests nothing). Values stay numeric and JSON-safe.

        Raises
        ------
        InvalidInputError
            ``times`` does not have one entry per sample.
        """
        if times is not None and len(times) != self.n:
            raise InvalidInputError(
                f"times must have one entry per sample (n = {self.n}), got {len(times)}"
            )
        key = "pvalue" if otava_keys else "p_value"
        records = []
        for j, index in enumerate(self.locations):
            before, after = self.segments[j], self.segments[j + 1]
            forward = _relative_change(before.mean, after.mean)
            backward = _relative_change(after.mean, before.mean)
            record: dict[str, Any] = {
                "metric": metric,
                "index": index,
                "time": None if times is None else json_safe(times[index]),
                "forward_change_percent": forward * 100.0,
                "magnitude": max(abs(forward), abs(backward)),
                "mean_before": before.mean,
                "stddev_before": before.population_std,
                "mean_after": after.mean,
                "stddev_after": after.population_std,
                key: None if self.p_values is None else self.p_values[j],
            }
            records.append({name: json_safe(value) for name, value in record.items()})
        return records


@dataclasses.dataclass(frozen=True, slots=True)
class SingleChangePoint(Result):
    """At most one change point (EDM-X or EDM-tail).

    Attributes
    ----------
    location : int or None
        0-based index of the first sample after the change; None when no change was found
        (series shorter than ``2·min_size``, constant, or best statistic not > 0).
    statistic : float
        Maximum of the search statistic (scaled data units; 0.0 when nothing was searched).
    n : int
        Length of the series.
    min_size : int
        Minimum segment length in observations used.
    exact : bool
        True for EDM-X (exact medians), False for EDM-tail (interval-tree quantiles).
    method : str
        ``"edm-x"`` or ``"edm-tail"``.
    too_short : bool
        True when n < 2·min_size (no search).
    parameters : mapping
        Every parameter used, read-only.
    unit : str or None
        Optional label of the measured quantity.

    Examples
    --------
    Returned by :func:`edm_single`:

    >>> from pilotstats.changepoints import edm_single
    >>> result = edm_single([0.0] * 10 + [1.0] * 10, min_size=5)
    >>> print(result)
    edm-x: change at 10 (statistic 5, n = 20, min_size = 5)
    >>> result.location
    10
    """

    location: int | None
    statistic: float
    n: int
    min_size: int
    exact: bool
    method: str = "edm-x"
    too_short: bool = False
    parameters: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    unit: str | None = None

    def __post_init__(self) -> None:
        if self.location is not None:
            object.__setattr__(self, "location", int(self.location))
        object.__setattr__(self, "statistic", float(self.statistic))
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "min_size", int(self.min_size))
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def found(self) -> bool:
        """True when a change point was reported."""
        return self.location is not None

    @property
    def locations(self) -> tuple[int, ...]:
        """The change point as a tuple (empty when none), for symmetry with ChangePoints."""
        return () if self.location is None else (self.location,)

    def __str__(self) -> str:
        if self.location is None:
            reason = " (series too short to search)" if self.too_short else ""
            head = f"{self.method}: no change point{reason}"
        else:
            head = f"{self.method}: change at {self.location}"
        return (
            f"{head} (statistic {format_number(self.statistic)}, n = {self.n}, "
            f"min_size = {self.min_size})"
        )

    def _extra_dict(self) -> dict[str, Any]:
        return {"confidence_level": None}

    @plot_doc
    def plot(
        self,
        x: Any,
        *,
        ax: Any = None,
        level: str = "median",
        unit: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw the series, the two segment levels and the change point (needs matplotlib).

        Parameters
        ----------
        {series}
        {ax}
        level : {"median", "mean"}, default "median"
            Statistic drawn as each segment's horizontal level.
        {unit}
        {ylabel}
        title : str, optional
            Title (default: method, change point and n).

        {returns}

        Raises
        ------
        InvalidInputError
            ``len(x) != n`` or ``x`` not finite and 1-D; unknown ``level``.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.changepoints import edm_single
        >>> x = np.r_[np.zeros(30), np.ones(30)] + np.tile([0.0, 0.1], 30)
        >>> ax = edm_single(x, min_size=10).plot(x, unit="ms")
        >>> ax.get_ylabel()
        'value (ms)'
        """
        return draw(self, x, ax=ax, level=level, unit=unit, ylabel=ylabel, title=title)
