"""The two protocols shared by the pillars: :class:`Stream` and :class:`ResultCollection`.

Both are :class:`typing.Protocol` classes marked ``runtime_checkable``, so
``isinstance(obj, pilotstats.Stream)`` checks that the methods exist. Their docstrings are
the one place where the protocols are documented; the classes that follow them say so and
document only what is specific to them (what one observation or one item is).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["ResultCollection", "Stream", "select_items"]

R_co = TypeVar("R_co", covariant=True)
T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


@runtime_checkable
class Stream(Protocol[R_co]):
    """An analysis updated as observations arrive: append, extend, result, len.

    A stream holds the observations received so far and keeps the state of one batch
    analysis up to date, so that at any moment :meth:`result` equals the batch function on
    all observations so far (the same result object, bit for bit). Followed by
    :class:`pilotstats.changepoints.EdmStream` (batch function
    :func:`~pilotstats.changepoints.edm`; an observation is one number) and
    :class:`pilotstats.changepoints.MdlStream` (batch function
    :func:`~pilotstats.changepoints.mdl_partition`; an observation is one run),
    :class:`pilotstats.changepoints.DetectStream` (batch function
    :func:`~pilotstats.changepoints.detect_changes`) and
    :class:`pilotstats.changepoints.StablePhaseStream` (batch function
    :func:`~pilotstats.changepoints.stable_phase`; an observation is one number).

    Methods
    -------
    append(value)
        Add **one** observation. A stream whose observations are numbers rejects an array
        or a sequence with :class:`~pilotstats.exceptions.InvalidInputError` naming
        :meth:`extend`.
    extend(values)
        Add several observations, in time order (an empty iterable is a no-op). A stream
        whose observations are numbers rejects a lone number, naming :meth:`append`.
    result()
        The current result of the batch function on every observation so far; raises
        :class:`~pilotstats.exceptions.NotEnoughDataError` before the first observation.
    __len__()
        ``len(stream)``: the number of observations added so far.

    Notes
    -----
    Both :meth:`append` and :meth:`extend` validate their input completely before changing
    anything: an invalid call raises and leaves the stream as it was. Extending with k
    observations gives the same state as k calls of :meth:`append` (only faster).

    Examples
    --------
    >>> import pilotstats
    >>> from pilotstats.changepoints import EdmStream, edm
    >>> stream = EdmStream(min_size=5)
    >>> isinstance(stream, pilotstats.Stream)
    True
    >>> stream.extend([3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5])
    >>> stream.append(9.0)
    >>> len(stream), stream.result().locations
    (21, (10,))
    """

    def append(self, value: Any) -> None:
        """Add one observation."""

    def extend(self, values: Iterable[Any]) -> None:
        """Add several observations in time order."""

    def result(self) -> R_co:
        """The batch result of every observation so far."""

    def __len__(self) -> int:
        """Number of observations so far."""


@runtime_checkable
class ResultCollection(Protocol[T_co]):
    """A result made of several items: iterable, indexable, sized, and a DataFrame.

    Followed by every collection-like result: :class:`~pilotstats.changepoints.ChangePoints`
    and :class:`~pilotstats.changepoints.DetectedChangePoints` (items: their segments),
    :class:`~pilotstats.changepoints.TrendGroups` (its groups),
    :class:`~pilotstats.changepoints.SteadyState` (its forks),
    :class:`~pilotstats.smoothing.Crossovers` (its crossovers),
    :class:`~pilotstats.smoothing.Regions` (its regions),
    :class:`~pilotstats.smoothing.Contributors` (its records), and the reports
    :class:`~pilotstats.analysis.AnalysisReport`,
    :class:`~pilotstats.analysis.ComparisonReport`,
    :class:`~pilotstats.analysis.TrendReport` and :class:`~pilotstats.analysis.FleetReport`
    (one item per benchmark or series), and :class:`~pilotstats.session.BisectResult` (one
    item per measured commit). Each class says what one item is.

    Methods
    -------
    __iter__()
        Iterate over the items in order.
    __len__()
        ``len(result)``: the number of items.
    __getitem__(index)
        ``result[i]`` is the i-th item (negative indices count from the end; an index out
        of range raises :class:`IndexError`); ``result[a:b]`` is a tuple of items. The
        reports also accept a benchmark or series name (:class:`KeyError` when unknown).
    to_frame()
        A :class:`pandas.DataFrame` with one row per item, in the same order.

    Notes
    -----
    For every such result ``list(result) == [result[i] for i in range(len(result))]`` and
    ``len(result.to_frame()) == len(result)``. Items that are records rather than result
    objects (crossovers, regions, contributor records, fleet rows) are plain ``dict``
    objects whose keys are the columns of :meth:`to_frame`.

    Examples
    --------
    >>> import pilotstats
    >>> from pilotstats.changepoints import edm
    >>> x = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5,
    ...      9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    >>> result = edm(x, min_size=5, beta=0.008)
    >>> isinstance(result, pilotstats.ResultCollection)
    True
    >>> len(result), result[0].end, result[-1].median, len(result.to_frame())
    (4, 10, 9.0, 4)
    """

    def __iter__(self) -> Iterator[T_co]:
        """Iterate over the items."""

    def __len__(self) -> int:
        """Number of items."""

    def __getitem__(self, index: Any) -> Any:
        """The item at ``index`` (a tuple of items for a slice)."""

    def to_frame(self) -> Any:
        """One row per item (pandas DataFrame)."""


def select_items(
    index: Any, length: int, item: Callable[[int], T], what: str
) -> T | tuple[T, ...]:
    """``item(i)`` for an integer index (negative from the end), a tuple for a slice.

    Parameters
    ----------
    index : int or slice
        Position(s) of the wanted items; numpy integers are accepted.
    length : int
        Number of items.
    item : callable
        Builds the item at a position in ``[0, length)``.
    what : str
        Name of the collection for the error messages.

    Returns
    -------
    item or tuple of items

    Raises
    ------
    IndexError
        An integer index outside ``[-length, length)``.
    TypeError
        ``index`` is neither an integer nor a slice.
    """
    if isinstance(index, slice):
        return tuple(item(i) for i in range(*index.indices(length)))
    if isinstance(index, bool):
        raise TypeError(f"{what} indices must be integers or slices, not bool")
    try:
        position = operator.index(index)
    except TypeError:
        raise TypeError(
            f"{what} indices must be integers or slices, not {type(index).__name__}"
        ) from None
    if position < 0:
        position += length
    if not 0 <= position < length:
        raise IndexError(f"{what} index {index} out of range ({length} items)")
    return item(position)
