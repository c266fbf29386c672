"""MDL trend partitioning and anomaly classification (FD.io CSIT's jumpavg method).

Public: :func:`mdl_partition`, :class:`TrendGroups`, :class:`TrendGroup`, :class:`MdlStream`.

The model (``docs/algorithms/mdl.md``; reference implementation jumpavg 0.4.2, the
library behind FD.io CSIT trend analysis): a series of test runs is split into consecutive
groups, each an i.i.d. normal sample with its own mean and standard deviation, so that the
total description length in bits is minimal under the "optimal partitioning" dynamic
programme; every group is then labelled relative to the group before it.

This module holds :func:`mdl_partition` and :class:`MdlStream`; the result classes are in
:mod:`pilotstats.changepoints._mdl_results`, the input parsing and checks in
:mod:`pilotstats.changepoints._mdl_input` and the programme's tables and engine in
:mod:`pilotstats.changepoints._mdl_engine`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._typing import NanPolicy
from pilotstats._validation import (
    check_bool,
    check_choice,
    check_max_history,
    check_mdl_range,
    check_resolution_sbps,
)
from pilotstats.changepoints._mdl_engine import _Engine
from pilotstats.changepoints._mdl_input import (
    _is_real,
    _parse_values,
    _Runs,
    _warn_mixed_signs,
    _warn_size,
)
from pilotstats.changepoints._mdl_results import TrendGroups
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError

__all__ = ["MdlStream", "mdl_partition"]


def mdl_partition(
    x: Any,
    *,
    resolution: float | None = None,
    sbps: float | None = None,
    higher_is_better: bool = True,
    nan_policy: NanPolicy = "raise",
    pruning: bool = True,
    max_history: int | None = None,
) -> TrendGroups:
    """Partition a trend series into normal groups by minimum description length.

    Reproduces ``jumpavg.classify`` 0.4.2 (FD.io CSIT trend analysis) bit for bit: the
    same groups, labels and (to the last ulp) code lengths, in O(N) memory.

    Parameters
    ----------
    x : sequence of runs
        Runs in time order (list, tuple, array, pandas/polars series or iterator; not a
        mapping or set). A run is one real (one sample) or a non-empty sequence of reals
        (trials of one run); boundaries fall only between runs. Trials understate the
        noise between runs (FDio/csit#3289).
    resolution : float, optional
        Numeric resolution of the values (finite, > 0; jumpavg's ``unit``).
    sbps : float, optional
        Significant bits per sample when ``resolution`` is None (default 12, in (0, 60]):
        ``resolution = max_value / (2**(sbps + 1) − 1)``.
    higher_is_better : bool, default True
        Direction of the labels only (latency: False, a lower mean is a "progression").
    nan_policy : {"raise", "omit", "zero"}, default "raise"
        NaN samples: raise; drop them (an emptied run is ``missing``); or replace them by
        0.0 (CSIT-Dash: a failed run is a severe regression; flagged in ``replaced``).
    pruning : bool, default True
        Skip candidates that can never become optimal again (identical output).
    max_history : int, optional
        None: the exact O(N²) programme. ``H >= 1``: an O(N·H) approximation that closes
        candidates starting more than H runs back (except the starts of the last
        ``_config.MDL_HISTORY_ANCHORS`` groups).

    Returns
    -------
    TrendGroups
        Groups, boundaries, labels, code lengths and per-run trend arrays.

    Raises
    ------
    NotEnoughDataError
        ``x`` is empty (or every run is missing under ``nan_policy='omit'``).
    InvalidInputError
        Non-numeric, boolean, nested or empty runs, ±inf, NaN (``nan_policy='raise'``),
        every sample <= 0, or an invalid ``resolution``/``sbps``.

    Warns
    -----
    DataRangeWarning
        Some samples are negative while the maximum is positive.
    PerformanceWarning
        More than ``_config.MDL_WARN_SIZE`` (60,000) runs (the programme is O(N²)).

    Notes
    -----
    Code length, search, pruning, bounded history: ``docs/algorithms/mdl.md``.

    Examples
    --------
    >>> from pilotstats.changepoints import mdl_partition
    >>> result = mdl_partition([2.1, 3.1, 3.2], resolution=0.1)
    >>> [(g.start, g.end, g.classification) for g in result]
    [(0, 1, 'normal'), (1, 3, 'progression')]
    """
    policy = check_choice(nan_policy, "nan_policy", ("raise", "omit", "zero"))
    resolution_value, sbps_value = check_resolution_sbps(resolution, sbps)
    check_bool(higher_is_better, "higher_is_better")
    check_bool(pruning, "pruning")
    history = check_max_history(max_history)
    runs = _parse_values(x, policy)
    engine = _loaded_engine(runs, (resolution_value, sbps_value), bool(pruning), history)
    return engine.result(
        bool(higher_is_better), runs.original, runs.n_original, runs.replaced, runs.missing
    )


def _loaded_engine(
    runs: _Runs,
    coding: tuple[float | None, float | None],
    pruning: bool,
    history: int | None,
) -> _Engine:
    """Check the parsed runs (samples left, magnitude, size, signs) and load them into a
    new engine with the ``(resolution, sbps)`` coding."""
    if runs.original.size == 0:
        raise NotEnoughDataError(
            "x has no samples left after dropping NaN (nan_policy='omit'); need at "
            "least one finite sample"
        )
    bounds = check_mdl_range(runs.samples, "x")
    if history is None:
        _warn_size(runs.n_original, "mdl_partition", stacklevel=4)
    engine = _Engine(
        coding[0], coding[1], pruning, capacity=runs.offsets.shape[0] - 1, max_history=history
    )
    engine.add_runs(runs.samples, runs.offsets, bounds)
    engine.resolved_resolution()  # named error for a non-positive maximum before any work
    _warn_mixed_signs(engine.min_value, engine.max_value, "x", stacklevel=4)
    return engine


def _push(buffer: np.ndarray, used: int, values: np.ndarray) -> np.ndarray:
    """Write ``values`` after the first ``used`` entries, doubling the buffer when full."""
    need = used + values.shape[0]
    if need > buffer.shape[0]:
        grown = np.zeros(max(need, 2 * buffer.shape[0]), dtype=buffer.dtype)
        grown[:used] = buffer[:used]
        buffer = grown
    buffer[used:need] = values
    return buffer


class MdlStream:
    """Streaming :func:`mdl_partition`: add runs, get exactly the batch result.

    Follows the :class:`pilotstats.Stream` protocol (``append`` one observation, ``extend``
    with many, ``result()``, ``len(stream)``); an observation is one **run**: a number, or
    a non-empty sequence of the samples of one run (as in :func:`mdl_partition`).

    Each added run is one more step of the dynamic programme, O(N) time (less with
    pruning) and O(N) memory in total; :meth:`result` backtracks from the newest run, so
    earlier groups can change, exactly as in :func:`mdl_partition` on all runs so far. A
    sample above the current maximum changes the derived resolution (and M) and forces a
    recomputation of the whole programme at the next update; so does, with
    pruning, a sample below the current minimum when it is negative.

    Parameters
    ----------
    resolution, sbps, higher_is_better, nan_policy, pruning, max_history
        As in :func:`mdl_partition` (with ``max_history``, the stream gives the bounded
        mode's batch result).

    See Also
    --------
    mdl_partition : the batch computation.
    pilotstats.Stream : the protocol.

    Examples
    --------
    >>> from pilotstats.changepoints import MdlStream
    >>> stream = MdlStream()
    >>> stream.extend([10.0, 10.1, 9.9, 10.0])
    >>> stream.append(5.0)
    >>> len(stream), stream.result().boundaries.tolist()
    (5, [4])
    """

    def __init__(
        self,
        *,
        resolution: float | None = None,
        sbps: float | None = None,
        higher_is_better: bool = True,
        nan_policy: NanPolicy = "raise",
        pruning: bool = True,
        max_history: int | None = None,
    ) -> None:
        self._policy = check_choice(nan_policy, "nan_policy", ("raise", "omit", "zero"))
        resolution_value, sbps_value = check_resolution_sbps(resolution, sbps)
        self.higher_is_better = check_bool(higher_is_better, "higher_is_better")
        self._engine = _Engine(
            resolution_value,
            sbps_value,
            check_bool(pruning, "pruning"),
            name="stream",
            max_history=check_max_history(max_history),
        )
        # per-run bookkeeping in growing buffers (no list -> array copy per result)
        self._original = np.empty(16, dtype=np.int64)
        self._replaced = np.zeros(16, dtype=bool)
        self._missing = np.zeros(16, dtype=bool)
        self._n_runs = 0  # runs appended (missing ones included)
        self._n_kept = 0  # entries of _original: runs that hold samples
        self.recomputations = 0

    def __len__(self) -> int:
        """Number of runs added (missing ones included)."""
        return self._n_runs

    def append(self, value: Any) -> None:
        """Add one run and update the programme.

        Parameters
        ----------
        value : float or sequence of float
            One run: a number (one sample) or a non-empty sequence of the samples of one
            run.

        Raises
        ------
        InvalidInputError
            The run is invalid (see :func:`mdl_partition`); the stream is left unchanged.
        """
        if isinstance(value, (str, bytes, Mapping, set, frozenset)):
            raise InvalidInputError(
                f"value must be one run (a number or a sequence of samples), got "
                f"{type(value).__name__}"
            )
        self._extend([value], "value")

    def extend(self, values: Sequence[Any] | Iterable[Any]) -> None:
        """Add several runs in time order and update the programme.

        Parameters
        ----------
        values : sequence of runs
            Runs in time order, each a number or a non-empty sequence of samples (an
            empty sequence is a no-op).

        Raises
        ------
        InvalidInputError
            A run is invalid (see :func:`mdl_partition`), or ``values`` is not a sequence
            (a lone number: use :meth:`append`); no run of this call is kept.
        """
        if isinstance(values, (str, bytes, Mapping, set, frozenset)) or not isinstance(
            values, Iterable
        ):
            hint = ("; use append(value) to add one run" if _is_real(values)
                    else "; for a mapping pass list(mapping.values())")
            raise InvalidInputError(
                f"values must be a sequence (or iterable) of runs in time order, got "
                f"{type(values).__name__}{hint}"
            )
        self._extend(values, "values")

    def _extend(self, runs: Iterable[Any], name: str) -> None:
        items = list(runs)
        if not items:
            return
        parsed = _parse_values(items, self._policy, name=name)
        bounds = check_mdl_range(parsed.samples, name)
        engine = self._engine
        before = self._n_runs
        if engine.max_history == 0 and (
            before <= _config.MDL_WARN_SIZE < before + parsed.n_original
        ):
            _warn_size(before + parsed.n_original, "MdlStream (in total over its appends)")
        old_max, old_low = engine.max_used, engine.low_used
        engine.add_runs(parsed.samples, parsed.offsets, bounds)
        kept = np.asarray(parsed.original, dtype=np.int64) + before
        self._original = _push(self._original, self._n_kept, kept)
        self._n_kept += kept.shape[0]
        added = np.asarray(parsed.missing, dtype=bool)
        self._replaced = _push(self._replaced, before, np.asarray(parsed.replaced, dtype=bool))
        self._missing = _push(self._missing, before, added)
        self._n_runs += added.shape[0]
        if engine.max_value > 0.0:
            low = min(0.0, engine.min_value)
            if engine.done and (
                engine.max_value != old_max or (engine.prune and low < old_low)
            ):
                self.recomputations += 1
            engine.update()

    def result(self) -> TrendGroups:
        """The partition of every run appended so far (same as :func:`mdl_partition`).

        Raises
        ------
        NotEnoughDataError
            No sample has been appended yet.
        InvalidInputError
            Every sample so far is <= 0.
        """
        engine = self._engine
        if engine.n == 0:
            raise NotEnoughDataError(
                "the stream holds no samples yet; append or extend runs first"
            )
        _warn_mixed_signs(engine.min_value, engine.max_value, "stream")
        return engine.result(
            self.higher_is_better,
            self._original[: self._n_kept],
            self._n_runs,
            self._replaced[: self._n_runs].copy(),  # the result keeps its own arrays
            self._missing[: self._n_runs].copy(),
        )
