"""E-Divisive with Medians (EDM): the faithful algorithms of ``twitter/BreakoutDetection``.

Public: :func:`edm` (EDM-multi / EDM-percent), :func:`edm_single` (EDM-X / EDM-tail) and
:class:`EdmStream` (append API of :func:`edm`). Private helpers for other modules of the
package: :func:`_edm_percent_locations`, :func:`_edm_multi_locations` and
:func:`_edm_locations`.

Reference: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); behaviour of ``twitter/BreakoutDetection``
1.0.1 as described in ``docs/algorithms/edm.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._kernels import edm as _k
from pilotstats._kernels._jit import numba_available
from pilotstats._kernels.edm_numpy import edm_dp_tiered as _edm_dp_tiered
from pilotstats._typing import ArrayLike1D, EdmScale, EdmTree, Float64Array1D
from pilotstats._validation import (
    as_float_array,
    check_edm_degree,
    check_edm_min_size,
    check_edm_penalty,
    check_edm_scale,
    check_edm_single_options,
    check_stream_value,
    check_stream_values,
)
from pilotstats.changepoints._results import (
    ChangePoints,
    SingleChangePoint,
    keeps_index,
    make_segments,
)
from pilotstats.exceptions import NotEnoughDataError, PerformanceWarning

__all__ = ["EdmStream", "edm", "edm_single"]


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------


def _warn_size(
    n: int, limit: int, what: str, stacklevel: int = 3, worst: str = ""
) -> None:
    """Emit :class:`PerformanceWarning` when an O(n²) search of ``n`` values takes minutes
    (``worst``: when that holds only in the worst case, which series reach it)."""
    if n > limit:
        import warnings

        case = f" in the worst case ({worst})" if worst else ""
        warnings.warn(
            f"{what} is O(n²) in the series length{case}: n = {n} is above "
            f"{limit} (about a minute on one core; {n / limit:.3g}² times that here). "
            "Analyse a window or a decimated series, or raise _config limits to silence this",
            PerformanceWarning,
            stacklevel=stacklevel,
        )


def _lanes() -> int:
    """Workers for the EDM DP: 1 unless ``_config.EDM_PARALLEL`` (and numba) is enabled."""
    if not (_config.EDM_PARALLEL and _config.PARALLEL and numba_available()):
        return 1
    import numba

    return max(1, int(numba.get_num_threads()))


def _range_scale(x: Float64Array1D, low: float, high: float) -> Float64Array1D:
    """Min–max scaling ``(x - min) / (max - min)`` as a subtraction then a division."""
    result: Float64Array1D = (x - low) / (high - low)
    return result


# ----------------------------------------------------------------------------------------
# private helpers for other modules
# ----------------------------------------------------------------------------------------


def _edm_locations(
    x: np.ndarray,
    min_size: int,
    *,
    penalty: float,
    degree: int,
    percent_mode: bool,
    scale: bool,
) -> tuple[int, ...]:
    """Locations of EDM-multi (``percent_mode=False``) or EDM-percent on validated data.

    ``x`` must be a finite 1-D float64 array; nothing is validated here. Returns ``()``
    when ``n < 2·min_size`` or the series is constant.
    """
    n = int(x.shape[0])
    if n < 2 * min_size or n == 0:
        return ()
    low = float(x.min())
    high = float(x.max())
    if low == high:
        return ()
    z = _range_scale(x, low, high) if scale else np.ascontiguousarray(x, dtype=np.float64)
    _, prev, _ = _edm_dp_tiered(z, min_size, float(penalty), degree, percent_mode, _lanes())
    return tuple(_k.backtrack(prev, n).tolist())


def _edm_percent_locations(
    x: np.ndarray, min_size: int, percent: float, degree: int, *, scale: bool
) -> tuple[int, ...]:
    """EDM-percent change points of validated data.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        Finite values (not validated here).
    min_size : int
        Minimum segment length in observations, δ >= 2.
    percent : float
        Relative-gain threshold >= 0.
    degree : int
        0, 1 or 2.
    scale : bool
        True: min–max scale first (R front-end, :func:`edm`); False: run on the raw values
        (Pilot's configuration).

    Returns
    -------
    tuple of int
        Change points; ``()`` when ``n < 2·min_size`` or the series is constant.
    """
    return _edm_locations(
        x, min_size, penalty=percent, degree=degree, percent_mode=True, scale=scale
    )


def _edm_multi_locations(
    x: np.ndarray, min_size: int, beta: float, degree: int, *, scale: bool
) -> tuple[int, ...]:
    """EDM-multi change points of validated data; see :func:`_edm_percent_locations`.

    With ``scale=False`` β is in squared data units.
    """
    return _edm_locations(x, min_size, penalty=beta, degree=degree, percent_mode=False, scale=scale)


# ----------------------------------------------------------------------------------------
# edm
# ----------------------------------------------------------------------------------------


def _variant(percent_mode: bool) -> str:
    return "edm-percent" if percent_mode else "edm-multi"


def _parameters(
    min_size: int,
    percent_mode: bool,
    penalty: float,
    degree: int,
    scale: EdmScale,
    low: float | None,
    high: float | None,
) -> dict[str, Any]:
    params: dict[str, Any] = {"min_size": min_size}
    params["percent" if percent_mode else "beta"] = penalty
    params["degree"] = degree
    params["scale"] = scale
    if scale == "range" and low is not None and high is not None:
        params["data_min"] = low
        params["data_range"] = high - low
    return params


def _make_result(
    x: Float64Array1D,
    locations: tuple[int, ...],
    *,
    percent_mode: bool,
    params: dict[str, Any],
    score: float | None,
    too_short: bool,
) -> ChangePoints:
    return ChangePoints(
        locations=locations,
        segments=make_segments(x, locations),
        n=int(x.shape[0]),
        method=_variant(percent_mode),
        parameters=params,
        p_values=None,
        test=None,
        score=score,
        too_short=too_short,
    )


@keeps_index
def edm(
    x: ArrayLike1D,
    *,
    min_size: int = 30,
    beta: float | None = None,
    percent: float | None = None,
    degree: int = 1,
    scale: EdmScale = "range",
) -> ChangePoints:
    """Multiple change points by E-Divisive with Medians (EDM-multi or EDM-percent).

    Reproduces the locations of ``twitter/BreakoutDetection``'s ``breakout(method="multi")``
    (and its PyPI port) exactly, with a faster exact algorithm.

    Parameters
    ----------
    x : array_like, shape (n,)
        Finite real values in time order.
    min_size : int, default 30
        Minimum segment length δ >= 2.
    beta : float, optional
        Additive penalty per change point (EDM-multi), >= 0, in squared data ranges under
        ``scale="range"``; default 0.008 when neither ``beta`` nor ``percent`` is given.
    percent : float, optional
        Relative gain each change must add (EDM-percent), >= 0; excludes ``beta``.
    degree : {0, 1, 2}, default 1
        Penalty degree: none, equal, or ``2k − 1`` times the base for the k-th change.
    scale : {"range", "none"}, default "range"
        Min–max scale to [0, 1] first (as the reference), or use the raw values.

    Returns
    -------
    ChangePoints
        ``locations``, segment statistics on the unscaled data, ``method``, ``parameters``
        and ``score`` (F[n] minus the baseline); empty when ``n < 2·min_size``
        (``too_short``) or constant.

    Raises
    ------
    InvalidInputError
        Invalid ``x`` or option; ``beta`` and ``percent`` both given.
    NotEnoughDataError
        ``x`` is empty.

    Notes
    -----
    Complexity: O(n²) time in the worst case, O(n log n) memory; exact pruning takes
    noise-like and warm-up-like series of 10^6 points in seconds.

    The greedy recursion of James, Kejariwal & Matteson (2014, arXiv:1411.7955) as the
    reference implements it; nothing is tested (use :func:`detect_changes`). Recursion,
    pruning, cost: ``docs/algorithms/edm.md``. A ``PerformanceWarning`` is issued above
    ``_config.EDM_MULTI_WARN_SIZE`` points.

    Examples
    --------
    >>> from pilotstats.changepoints import edm
    >>> x = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5,
    ...      9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    >>> edm(x, min_size=5, beta=0.008).locations, edm(x, min_size=5, percent=0.5).locations
    ((10, 15, 20), (8, 19))
    """
    data = as_float_array(x, "x")
    delta = check_edm_min_size(min_size)
    percent_mode, penalty = check_edm_penalty(beta, percent)
    return _edm_multi(data, delta, (percent_mode, penalty), check_edm_degree(degree),
                      check_edm_scale(scale))


def _edm_multi(
    data: Float64Array1D,
    delta: int,
    penalty_of: tuple[bool, float],
    deg: int,
    scale_mode: EdmScale,
) -> ChangePoints:
    """:func:`edm` on validated data and settings (``penalty_of``: percent mode and the
    penalty)."""
    percent_mode, penalty = penalty_of
    n = int(data.shape[0])
    if n >= 2 * delta:
        _warn_size(n, _config.EDM_MULTI_WARN_SIZE, "edm", stacklevel=4,
                   worst="many large shifts; noise-like series are pruned to seconds")
    low = float(np.min(data))
    high = float(np.max(data))
    params = _parameters(delta, percent_mode, penalty, deg, scale_mode, low, high)
    if n < 2 * delta or low == high:
        return _make_result(
            data,
            (),
            percent_mode=percent_mode,
            params=params,
            score=None,
            too_short=n < 2 * delta,
        )
    z = _range_scale(data, low, high) if scale_mode == "range" else data
    F, prev, _ = _edm_dp_tiered(z, delta, penalty, deg, percent_mode, _lanes())
    locations = tuple(int(c) for c in _k.backtrack(prev, n))
    baseline = 0.0 if percent_mode else -3.0
    return _make_result(
        data,
        locations,
        percent_mode=percent_mode,
        params=params,
        score=float(F[n]) - baseline,
        too_short=False,
    )


# ----------------------------------------------------------------------------------------
# edm_single
# ----------------------------------------------------------------------------------------


def edm_single(
    x: ArrayLike1D,
    *,
    min_size: int = 30,
    exact: bool = True,
    alpha: float = 2.0,
    quantile: float = 0.5,
    tree: EdmTree = "paper",
) -> SingleChangePoint:
    """At most one change point: EDM-X (exact medians) or EDM-tail (interval trees).

    Parameters
    ----------
    x : array_like, shape (n,)
        Finite real values in time order (min–max scaled internally).
    min_size : int, default 30
        Minimum segment length δ >= 2 on each side (EDM-tail: also the window length).
    exact : bool, default True
        EDM-X (the reference's ``method="amoc"``, exactly), or EDM-tail.
    alpha, quantile : float, default 2.0, 0.5
        EDM-tail exponent in (0, 2] and tree quantile level in (0, 1).
    tree : {"paper", "reference"}, default "paper"
        EDM-tail tree: the paper's, or the reference's ``src/edmTail.cpp`` with its quirks.

    Returns
    -------
    SingleChangePoint
        ``location`` (first index after the change) or None, and ``statistic``.

    Raises
    ------
    InvalidInputError
        Bad data or parameters (see :func:`edm`).
    NotEnoughDataError
        ``x`` is empty.

    Notes
    -----
    Complexity: EDM-X O(n²), EDM-tail O(n·δ·log n) to O(n²·log n); O(n) memory.
    EDM-X maximises ``τ(κ − τ)/κ · (med z[0:τ] − med z[τ:κ])²``; EDM-tail the contrast
    ``2·q(AB) − q(A) − q(B)`` of window distance sets. Neither tests significance; EDM-X is
    biased late on warm-ups. Trees, pruning, cost, limits: ``docs/algorithms/edm.md``.

    Examples
    --------
    >>> from pilotstats.changepoints import edm_single
    >>> edm_single([0.0] * 10 + [1.0] * 10, min_size=5).location
    10
    """
    data = as_float_array(x, "x")
    delta, exact, alpha_value, quantile_value, tree_value = check_edm_single_options(
        min_size, exact, alpha, quantile, tree
    )
    params: dict[str, Any] = {"min_size": delta}
    if not exact:
        params.update(alpha=alpha_value, quantile=quantile_value, tree=tree_value)
    method, n = ("edm-x" if exact else "edm-tail"), int(data.shape[0])
    if n >= 2 * delta:
        _warn_size(n, _config.EDM_WARN_SIZE if exact else _config.EDM_TAIL_WARN_SIZE,
                   f"edm_single ({method})")
    low, high = float(np.min(data)), float(np.max(data))
    too_short = n < 2 * delta
    tau, statistic = 0, 0.0
    if not (too_short or low == high):
        z = _range_scale(data, low, high)
        if exact:
            tau, statistic = _edmx(z, delta)
        else:
            tau, statistic = _edm_tail(z, delta, (alpha_value, quantile_value, tree_value),
                                       params)
    return SingleChangePoint(
        location=int(tau) if tau > 0 else None,
        statistic=float(statistic),
        n=n,
        min_size=delta,
        exact=exact,
        method=method,
        too_short=too_short,
        parameters=params,
    )


def _edmx(z: Float64Array1D, delta: int) -> tuple[int, float]:
    """EDM-X's arg-max and maximum on the scaled series."""
    n = int(z.shape[0])
    zz = _k.padded_values(z, n)
    order = np.argsort(z, kind="stable").astype(np.int64)
    tau, statistic = _k.edmx_search(zz, order, n, delta)
    return int(tau), float(statistic)


def _edm_tail(
    z: Float64Array1D,
    delta: int,
    settings: tuple[float, float, EdmTree],
    params: dict[str, Any],
) -> tuple[int, float]:
    """EDM-tail's arg-max and maximum with ``(alpha, quantile, tree)``; records the tree
    depth in ``params``."""
    alpha, quantile, tree = settings
    n = int(z.shape[0])
    if tree == "paper":
        depth = _k.tree_depth(n)
        search = _k.edm_tail_search
    else:
        depth = _k.reference_tree_depth(n)
        search = _k.edm_tail_search_reference
    params["tree_depth"] = depth
    tau, statistic = search(z, delta, depth, quantile, alpha)
    return int(tau), float(statistic)


# ----------------------------------------------------------------------------------------
# EdmStream
# ----------------------------------------------------------------------------------------


class EdmStream:
    """Streaming :func:`edm`: change points updated as values arrive.

    Follows the :class:`pilotstats.Stream` protocol (``append`` one value, ``extend`` with
    many, ``result()``, ``len(stream)``); an observation is one finite number. After any
    sequence of calls, :meth:`result` equals ``edm(all values so far, ...)`` with the same
    parameters, bit for bit (locations, DP arrays, statistics).

    Parameters
    ----------
    min_size : int, default 30
        Minimum segment length in observations, δ >= 2: every segment between two change
        points holds at least this many observations.
    beta, percent : float, optional
        As in :func:`edm` (β = 0.008 when neither is given; not both).
    degree : {0, 1, 2}, default 1
        Penalty degree.
    scale : {"range", "none"}, default "range"
        As in :func:`edm`.

    Raises
    ------
    InvalidInputError
        Bad parameters (see :func:`edm`).

    See Also
    --------
    edm : the batch computation.
    pilotstats.Stream : the protocol.

    Notes
    -----
    The EDM dynamic programme is causal: column s depends on the first s values only
    (James, Kejariwal & Matteson 2014, arXiv:1411.7955; ``docs/algorithms/edm.md``). Adding
    one value adds one column at O(n) cost (O(n²) for a full recomputation), plus an O(n)
    walk to place the value in the sorted list. The change points are read back from the
    new end, so earlier change points can move or disappear.

    Under ``scale="range"`` a new minimum or maximum changes every scaled value; the stream
    then recomputes everything (O(n²)). Series whose range is set early (the usual case)
    pay that only a few times; ``scale="none"`` never does.

    Each :meth:`extend` validates its whole chunk first: a chunk with NaN/inf raises and
    leaves the stream unchanged.

    Examples
    --------
    >>> from pilotstats.changepoints import EdmStream
    >>> stream = EdmStream(min_size=5)
    >>> stream.extend([3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6])
    >>> stream.extend([4, 4, 4, 6, 5, 9, 8, 7, 9, 8, 9, 9, 9, 7])
    >>> stream.append(9)
    >>> len(stream), stream.result().locations
    (30, (10, 15, 20))
    """

    def __init__(
        self,
        *,
        min_size: int = 30,
        beta: float | None = None,
        percent: float | None = None,
        degree: int = 1,
        scale: EdmScale = "range",
    ) -> None:
        self._delta = check_edm_min_size(min_size)
        self._percent_mode, self._penalty = check_edm_penalty(beta, percent)
        self._degree = check_edm_degree(degree)
        self._scale: EdmScale = check_edm_scale(scale)
        self._n = 0
        self._x = np.zeros(0)
        self._low = np.inf
        self._high = -np.inf
        self._processed = 0  # columns computed: 0 or n (all)
        self._allocate(0)

    # -- state ---------------------------------------------------------------------------

    @property
    def _baseline(self) -> float:
        return 0.0 if self._percent_mode else -3.0

    def _allocate(self, capacity: int) -> None:
        self._capacity = capacity
        self._zz = _k.padded_values(np.zeros(0), capacity)
        self._F = np.full(capacity + 1, self._baseline)
        self._prev = np.zeros(capacity + 1, dtype=np.int64)
        self._number = np.zeros(capacity + 1, dtype=np.int64)
        self._LM = np.zeros(capacity + 1)
        self._tmp = np.zeros(capacity + 1)
        self._nxt = np.zeros(capacity + 2, dtype=np.int64)
        self._prv = np.zeros(capacity + 2, dtype=np.int64)
        self._nxt[_k.HEAD] = _k.TAIL
        self._prv[_k.TAIL] = _k.HEAD
        self._pred = np.full(capacity + 2, -1, dtype=np.int64)
        self._state = np.zeros(2, dtype=np.int64)
        self._processed = 0

    def _grow(self, needed: int) -> None:
        if needed <= self._capacity:
            return
        capacity = max(needed, 2 * self._capacity, 64)

        def extend(array: np.ndarray, size: int, fill: float) -> np.ndarray:
            out = np.full(size, fill, dtype=array.dtype)
            out[: array.shape[0]] = array
            return out

        self._zz = extend(self._zz, capacity + 2, 0.0)
        self._F = extend(self._F, capacity + 1, self._baseline)
        self._prev = extend(self._prev, capacity + 1, 0)
        self._number = extend(self._number, capacity + 1, 0)
        self._LM = extend(self._LM, capacity + 1, 0.0)
        self._tmp = extend(self._tmp, capacity + 1, 0.0)
        self._nxt = extend(self._nxt, capacity + 2, 0)
        self._prv = extend(self._prv, capacity + 2, 0)
        self._pred = extend(self._pred, capacity + 2, -1)
        self._capacity = capacity

    def _run_columns(self, s_begin: int, s_end: int) -> None:
        _k.edm_columns(
            self._zz,
            (self._delta, self._penalty, self._degree, self._percent_mode),
            (self._F, self._prev, self._number, self._LM),
            self._tmp,
            (self._nxt, self._prv),
            self._state,
            self._pred,
            s_begin,
            s_end,
        )

    def _recompute(self, z: Float64Array1D) -> None:
        n = int(z.shape[0])
        self._allocate(max(n, 64))
        self._zz[2 : n + 2] = z
        order = np.argsort(z, kind="stable").astype(np.int64)
        self._pred[: n + 2] = _k.insertion_predecessors(self._zz[: n + 2], order, n)
        self._run_columns(1, n + 1)
        self._pred[:] = -1
        self._processed = n

    # -- public --------------------------------------------------------------------------

    def append(self, value: Any) -> None:
        """Add one value and update the change points.

        Parameters
        ----------
        value : float
            The next finite value.

        Raises
        ------
        InvalidInputError
            ``value`` is not one finite real number (an array or a sequence: use
            :meth:`extend`); the stream is then left unchanged.
        """
        self._add(check_stream_value(value))

    def extend(self, values: ArrayLike1D) -> None:
        """Add several values in time order and update the change points.

        Parameters
        ----------
        values : array_like, shape (k,)
            New finite values in time order (an empty chunk is a no-op).

        Raises
        ------
        InvalidInputError
            NaN/inf, non-numeric or not 1-D, or a lone number (use :meth:`append`); the
            stream is then left unchanged.
        """
        self._add(check_stream_values(values))

    def _add(self, chunk: Float64Array1D) -> None:
        """Append validated finite values and run the new DP columns."""
        k = int(chunk.shape[0])
        if k == 0:
            return
        n_old = self._n
        n_new = n_old + k
        if n_old <= _config.EDM_WARN_SIZE < n_new:
            _warn_size(n_new, _config.EDM_WARN_SIZE, "EdmStream (in total over its appends)",
                       stacklevel=4)
        x = np.empty(n_new)
        x[:n_old] = self._x[:n_old]
        x[n_old:] = chunk
        low = min(self._low, float(np.min(chunk)))
        high = max(self._high, float(np.max(chunk)))
        range_changed = low != self._low or high != self._high
        self._x = x
        self._n = n_new
        self._low = low
        self._high = high
        if self._scale == "range":
            if low == high:
                self._allocate(0)  # constant so far: nothing to search
                return
            if range_changed or self._processed != n_old:
                self._recompute(_range_scale(x, low, high))
                return
            z_new = _range_scale(chunk, low, high)
        else:
            z_new = chunk
        self._grow(n_new)
        self._zz[n_old + 2 : n_new + 2] = z_new
        self._run_columns(n_old + 1, n_new + 1)
        self._processed = n_new

    def __len__(self) -> int:
        """Number of values added so far."""
        return self._n

    def _locations(self) -> tuple[int, ...]:
        """Current change points (those of :func:`edm` on all values so far)."""
        n = self._n
        if n < 2 * self._delta or self._processed != n:
            return ()
        return tuple(int(c) for c in _k.backtrack(self._prev, n))

    def result(self) -> ChangePoints:
        """The :class:`ChangePoints` of all values so far (equal to :func:`edm` on them).

        Returns
        -------
        ChangePoints

        Raises
        ------
        NotEnoughDataError
            Nothing has been added yet.
        """
        n = self._n
        if n == 0:
            raise NotEnoughDataError("the stream is empty; append or extend values before "
                                     "result()")
        data = self._x[:n].copy()
        params = _parameters(
            self._delta,
            self._percent_mode,
            self._penalty,
            self._degree,
            self._scale,
            self._low,
            self._high,
        )
        locations = self._locations()
        searched = n >= 2 * self._delta and self._processed == n and self._low < self._high
        score = float(self._F[n]) - self._baseline if searched else None
        return _make_result(
            data,
            locations,
            percent_mode=self._percent_mode,
            params=params,
            score=score,
            too_short=n < 2 * self._delta,
        )

    def _dp_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of F, prev, number for the n values so far (tests)."""
        n = self._n
        return self._F[: n + 1].copy(), self._prev[: n + 1].copy(), self._number[: n + 1].copy()

    def __repr__(self) -> str:
        kind = "percent" if self._percent_mode else "beta"
        return (
            f"EdmStream(n={self._n}, min_size={self._delta}, {kind}={self._penalty:g}, "
            f"degree={self._degree}, scale={self._scale!r}, locations={list(self._locations())})"
        )
