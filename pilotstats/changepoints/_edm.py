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
    check_choice,
    check_int,
    check_real,
    check_stream_value,
    check_stream_values,
)
from pilotstats.changepoints._results import (
    ChangePoints,
    SingleChangePoint,
    keeps_index,
    make_segments,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError, PerformanceWarning

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


def _check_min_size(min_size: Any) -> int:
    return check_int(min_size, "min_size", low=2)


def _check_degree(degree: Any) -> int:
    value = check_int(degree, "degree")
    if value not in (0, 1, 2):
        raise InvalidInputError(
            f"degree must be 0 (no penalty), 1 (linear) or 2 (quadratic), got {value}"
        )
    return value


def _check_penalty(beta: Any, percent: Any) -> tuple[bool, float]:
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


def _check_scale(scale: Any) -> EdmScale:
    value: EdmScale = check_choice(scale, "scale", ("range", "none"))
    return value


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
    exactly (and of its PyPI port ``breakout-detection``), with a faster exact algorithm.

    Parameters
    ----------
    x : array_like, shape (n,)
        Finite real values in time order.
    min_size : int, default 30
        Minimum segment length in observations, δ >= 2: every segment between two change
        points holds at least this many observations.
    beta : float, optional
        Additive penalty per change point (EDM-multi), >= 0, in units of the squared data
        range (``scale="range"``). Default 0.008 (the R front-end's) when neither ``beta``
        nor ``percent`` is given.
    percent : float, optional
        Relative-gain threshold (EDM-percent), >= 0: each added change point must raise the
        objective by this fraction (0.25 = 25 %). Mutually exclusive with ``beta``.
    degree : {0, 1, 2}, default 1
        Penalty degree: 0 no penalty, 1 every change costs the same, 2 the k-th change costs
        ``2k - 1`` times as much (total β·K²).
    scale : {"range", "none"}, default "range"
        ``"range"``: min–max scale to [0, 1] first, as the reference does; ``"none"``: use
        the raw values (β then in squared data units).

    Returns
    -------
    ChangePoints
        ``locations`` (0-based first index of each new segment), per-segment statistics on
        the unscaled data, ``method`` ``"edm-multi"`` or ``"edm-percent"``, the parameters
        used (including the data minimum and range under ``"range"``), ``score`` = F[n]
        minus the DP baseline (−3 for EDM-multi, 0 for EDM-percent), ``p_values = None``.
        Empty (``too_short=True``) when ``n < 2·min_size``; empty for a constant series.

    Raises
    ------
    InvalidInputError
        NaN/inf, not 1-D, non-numeric; ``min_size`` < 2 or not an integer; negative or
        non-finite ``beta``/``percent``; both given; ``degree`` not in {0, 1, 2}; bad
        ``scale``.
    NotEnoughDataError
        ``x`` is empty.

    Warns
    -----
    PerformanceWarning
        ``n`` above ``_config.EDM_MULTI_WARN_SIZE`` (1,000,000): the search is O(n²) in
        the worst case (series with many large shifts) and could take minutes; exact
        pruning takes noise-like series of 10^6 points in seconds.

    See Also
    --------
    edm_single : at most one change (EDM-X, EDM-tail).
    EdmStream : the same result, updated as values arrive.
    detect_changes : EDM candidates confirmed by a significance test.

    Notes
    -----
    Dynamic programme of James, Kejariwal & Matteson (2014), arXiv:1411.7955, as
    implemented by ``twitter/BreakoutDetection`` (``src/edm-multi.cpp``,
    ``src/edm-per.cpp``; ``docs/algorithms/edm.md``). With z the scaled series and
    δ = ``min_size``, for each prefix length s = 2δ, …, n and t ∈ [δ, s − δ], a = prev[t]:

    .. math::

        w = \\frac{(t - a)(s - t)}{(s - a)^2}, \\qquad
        \\mathrm{cand}(t) = F[t] + w\\,\\bigl(\\mathrm{med}\\,z_{a:t} -
        \\mathrm{med}\\,z_{t:s}\\bigr)^2 - \\beta\\,G(\\mathrm{number}[t])

    with G ≡ 0, 1 or 2k + 1 for degree 0, 1, 2. F[s] is the largest candidate if it exceeds
    the baseline −3 (smallest t among ties), prev[s] that t. EDM-percent starts from F ≡ 0,
    drops the β term and keeps column s only if
    ``F[s] − F[t*] >= percent·G(number[t*])·F[t*]``; otherwise it inherits column t*.
    The change points are read back from prev[n]. This is a greedy "previous optimum"
    recursion, not an optimal partition: one large shift can be counted twice, typically
    producing an extra change near twice the first one.

    Behaviour reproduced on purpose: nothing is tested for significance.
    EDM-percent accepts the first change point whatever its size (its threshold is
    ``percent·F = 0``), so on pure noise with n >= 2δ it almost always reports one; use
    :func:`detect_changes` for a guarded detector. Under ``scale="range"`` β is relative to
    the squared data range, so one large outlier makes EDM-multi less sensitive; a single
    balanced shift Δ is added only if Δ/range > 2√β (0.18 of the range at β = 0.008).

    Complexity: O(n²) time in the worst case and O(n log n) memory (the reference needs
    O(n² log n)). Each DP column obtains its right medians by deleting samples from a sorted
    doubly linked list with a median pointer (O(1) per deletion, undone afterwards), and the
    left medians ``med z[prev[t]:t]`` are computed once per column. From
    ``_config.EDM_PRUNE_MIN_POINTS`` (5,001) values on, candidates whose exact upper bound
    (order statistics of the windows, block maxima of the columns already final) is below
    the best one found are skipped, with identical results. Pair products are formed in
    float64, so there is no overflow beyond n = 92,680 (the reference's 32-bit product
    overflows). Measured (``benchmarks/RESULTS_edm.md``, one core): n = 10,000 in 28 ms,
    n = 100,000 in 0.36 s and n = 10^6 in 6.9 s on a warm-up-like series; 6.9 s at 100,000
    with 20 large level shifts; EDM-percent, which the bounds do not help, 26 s at
    100,000. Setting ``pilotstats._config.EDM_PARALLEL = True`` computes independent
    columns of the unpruned programme (blocks of ``min_size``) on numba's threads with
    identical results.

    References
    ----------
    .. [1] N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate
       user experience from 'breaking bad'", arXiv:1411.7955, 2014.

    Examples
    --------
    >>> from pilotstats.changepoints import edm
    >>> x = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5,
    ...      9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
    >>> edm(x, min_size=5, beta=0.008).locations
    (10, 15, 20)
    >>> edm(x, min_size=5, percent=0.5).locations
    (8, 19)
    """
    data = as_float_array(x, "x")
    delta = _check_min_size(min_size)
    percent_mode, penalty = _check_penalty(beta, percent)
    deg = _check_degree(degree)
    scale_mode = _check_scale(scale)
    n = int(data.shape[0])
    if n >= 2 * delta:
        _warn_size(n, _config.EDM_MULTI_WARN_SIZE, "edm",
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

    ``exact=True`` reproduces ``breakout(method="amoc", exact=TRUE)`` of
    ``twitter/BreakoutDetection`` (and the port's ``method="amoc"``) exactly.
    ``exact=False`` evaluates the EDM-tail statistic on the exact window sets with the
    paper-faithful interval tree; it gives the reference's locations on its test
    series but can differ on tie-heavy data, where the reference misfiles zero distances.

    Parameters
    ----------
    x : array_like, shape (n,)
        Finite real values in time order (min–max scaled internally).
    min_size : int, default 30
        Minimum segment length in observations, δ >= 2: both segments around the change
        point hold at least this many observations (EDM-tail: also the window length).
    exact : bool, default True
        True: EDM-X; False: EDM-tail.
    alpha : float, default 2.0
        EDM-tail exponent α ∈ (0, 2] applied to each tree quantile (ignored by EDM-X, whose
        reference accepts and ignores it too).
    quantile : float, default 0.5
        EDM-tail tree quantile level in (0, 1) (ignored by EDM-X).
    tree : {"paper", "reference"}, default "paper"
        EDM-tail interval tree. ``"paper"``: the paper-faithful tree on the exact window
        sets (depth ``max(ceil(log2 n), 10)``). ``"reference"``: reproduces
        ``twitter/BreakoutDetection``'s ``src/edmTail.cpp`` (and the PyPI port) exactly,
        quirks included: zero distances filed near 1, the 7/8 interpolation at an early
        exit, window sets that drift as τ advances, and depth ``max(ceil(ln n), 10)``.
        Ignored by EDM-X.

    Returns
    -------
    SingleChangePoint
        ``location`` (first index after the change) or None, and ``statistic``, the
        maximum of the search statistic (0.0 when nothing was searched). None when
        ``n < 2·min_size`` (``too_short``), the series is constant, or the maximum is not
        > 0.

    Raises
    ------
    InvalidInputError
        Bad data or parameters (see :func:`edm`), ``alpha`` outside (0, 2], ``quantile``
        outside (0, 1).
    NotEnoughDataError
        ``x`` is empty.

    Warns
    -----
    PerformanceWarning
        ``n`` above ``_config.EDM_WARN_SIZE`` (150,000; EDM-tail: ``EDM_TAIL_WARN_SIZE``,
        2,000,000): the search is O(n²) and would take minutes (EDM-tail: its worst case
        is O(n² log n), and its linear part alone takes seconds per million points).

    See Also
    --------
    edm : multiple change points.

    Notes
    -----
    James, Kejariwal & Matteson (2014), arXiv:1411.7955; ``docs/algorithms/edm.md``.
    EDM-X maximises over τ ∈ [δ, n − δ], κ ∈ [τ + δ, n]

    .. math::

        S(\\tau, \\kappa) = \\frac{\\tau(\\kappa - \\tau)}{\\kappa}
        \\bigl(\\mathrm{med}\\,z_{0:\\tau} - \\mathrm{med}\\,z_{\\tau:\\kappa}\\bigr)^2

    and reports the smallest τ attaining the maximum. EDM-tail replaces the medians by the
    energy-type contrast ``2·q(AB) − q(A) − q(B)`` of window distance sets (A inside
    ``z[τ−δ:τ]``, AB across ``z[τ−δ:τ]`` and ``z[τ:τ+δ]``, B inside ``z[τ:τ+δ]`` plus the
    consecutive differences up to κ), each q an interval-tree quantile raised to α (paper
    Section 8 / appendix; tree depth ``max(ceil(log2 n), 10)``).

    The default tree gives the reference's locations on its test series (CV-1, Scribe) but
    differs elsewhere (59 % agreement with the port on random shifted Gaussian series, 10 %
    on quantised ones); ``tree="reference"`` agrees with the port on all 300 random series
    tried, including quantised ones.

    No significance test is applied: both variants return their arg-max whenever it is
    positive, even on pure noise. EDM-X is biased late on warm-up-like data (the prefix
    median lags the change); it is not recommended for warm-up detection.

    Complexity: EDM-X O(n²) time (sorted linked list with a median pointer, deletions
    undone), O(n) memory. EDM-tail: the window terms of every τ cost O(n·δ·log n); the
    κ sweep (O(n·log n) per τ) runs only for the τ whose bound
    ``(2·q(AB) − q(A))·τ(n − τ)/n`` can still reach the best statistic (an exact pruning,
    same output): a few short sweeps on typical data (10^6 points in 3–5 s), O(n²·log n)
    in the worst case; O(n) memory.

    References
    ----------
    .. [1] N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate
       user experience from 'breaking bad'", arXiv:1411.7955, 2014.

    Examples
    --------
    >>> from pilotstats.changepoints import edm_single
    >>> result = edm_single([0.0] * 10 + [1.0] * 10, min_size=5)
    >>> result.location, result.statistic
    (10, 5.0)
    >>> print(result)
    edm-x: change at 10 (statistic 5, n = 20, min_size = 5)
    """
    data = as_float_array(x, "x")
    delta = _check_min_size(min_size)
    if not isinstance(exact, (bool, np.bool_)):
        raise InvalidInputError(f"exact must be True or False, got {exact!r}")
    exact = bool(exact)
    params: dict[str, Any] = {"min_size": delta}
    # Validated even when EDM-X ignores them: a bad value is a mistake either way.
    alpha_value = check_real(alpha, "alpha", low=0.0, high=2.0, low_inclusive=False)
    quantile_value = check_real(
        quantile, "quantile", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False
    )
    tree_value: EdmTree = check_choice(tree, "tree", ("paper", "reference"))
    if not exact:
        params.update(alpha=alpha_value, quantile=quantile_value, tree=tree_value)
    method = "edm-x" if exact else "edm-tail"
    n = int(data.shape[0])
    if n >= 2 * delta:
        _warn_size(n, _config.EDM_WARN_SIZE if exact else _config.EDM_TAIL_WARN_SIZE,
                   f"edm_single ({method})")
    low = float(np.min(data))
    high = float(np.max(data))
    too_short = n < 2 * delta
    if too_short or low == high:
        return SingleChangePoint(
            location=None,
            statistic=0.0,
            n=n,
            min_size=delta,
            exact=exact,
            method=method,
            too_short=too_short,
            parameters=params,
        )
    z = _range_scale(data, low, high)
    if exact:
        zz = _k.padded_values(z, n)
        order = np.argsort(z, kind="stable").astype(np.int64)
        tau, statistic = _k.edmx_search(zz, order, n, delta)
    else:
        if tree_value == "paper":
            depth = _k.tree_depth(n)
            search = _k.edm_tail_search
        else:
            depth = _k.reference_tree_depth(n)
            search = _k.edm_tail_search_reference
        params["tree_depth"] = depth
        tau, statistic = search(z, delta, depth, quantile_value, alpha_value)
    return SingleChangePoint(
        location=int(tau) if tau > 0 else None,
        statistic=float(statistic),
        n=n,
        min_size=delta,
        exact=exact,
        method=method,
        too_short=False,
        parameters=params,
    )


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
        self._delta = _check_min_size(min_size)
        self._percent_mode, self._penalty = _check_penalty(beta, percent)
        self._degree = _check_degree(degree)
        self._scale: EdmScale = _check_scale(scale)
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
