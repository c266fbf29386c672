"""Product-form queueing-network solvers: exact and approximate mean value analysis.

Implements specification ``calibration.md`` §2: exact single-class MVA with think time (§2.1),
exact multi-class MVA over the population lattice (§2.2), Bard–Schweitzer approximate MVA
(§2.3), multi-server stations by exact load-dependent MVA or Seidmann's approximation (§2.4),
thread pools as flow-equivalent servers (§2.5) and open classes solved as closed ones (§2.6).

References
----------
.. [1] M. Reiser and S. S. Lavenberg, "Mean-value analysis of closed multichain queuing
   networks", J. ACM 27(2):313–322, 1980.
.. [2] P. J. Schweitzer, "Approximate analysis of multiclass closed networks of queues",
   Proc. Int. Conf. Stochastic Control and Optimization, Amsterdam, 1979.
.. [3] A. Seidmann, P. Schweitzer and S. Shalev-Oren, "Computerized closed queueing network
   models of flexible manufacturing systems", Large Scale Systems 12:91–107, 1987.
.. [4] K. M. Chandy, U. Herzog and L. Woo, "Parametric analysis of queuing networks",
   IBM J. Res. Dev. 19(1):36–42, 1975 (flow-equivalent servers).
.. [5] M. Woodside, "Regression techniques for performance parameter estimation",
   tutorial, WOSP/SIPEW 2010.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from pilotstats import _config
from pilotstats._config import SCHWEITZER_MAX_ITER, SCHWEITZER_TOL
from pilotstats._kernels import queueing as _kq
from pilotstats._validation import check_bool
from pilotstats.exceptions import (
    ConvergenceWarning,
    InvalidInputError,
    NumericalAccuracyWarning,
)
from pilotstats.results import Result, format_number

__all__ = [
    "MvaResult",
    "ThreadPoolResult",
    "amva",
    "mva",
    "open_as_closed",
    "seidmann",
    "thread_pool",
]

FloatArray = npt.NDArray[np.float64]
MultiServerMethod = Literal["exact", "seidmann"]


def _readonly(array: npt.ArrayLike, dtype: Any = np.float64) -> Any:
    out = np.array(array, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class MvaResult(Result):
    """Solution of a closed (or open-as-closed) product-form queueing network.

    Arrays always carry a class axis, also for one class: station quantities have shape
    (K, C) and class quantities shape (C,). For a single-class network use
    ``result.throughput[0]`` or ``result.residence_times[:, 0]``.

    Attributes
    ----------
    population : tuple of int
        Population N_c of each class.
    think_time : ndarray, shape (C,)
        Think time Z_c (a delay in front of all stations), seconds.
    demands : ndarray, shape (K, C)
        Service demands D_kc = V_kc S_kc, seconds per response.
    servers : ndarray, shape (K,)
        Server count of each station; ``inf`` marks a delay (infinite-server) station.
    residence_times : ndarray, shape (K, C)
        T_kc: residence time (queueing plus service, summed over visits) per response.
    throughput : ndarray, shape (C,)
        f_c (X_c): responses per second.
    response_time : ndarray, shape (C,)
        R_c = Σ_k T_kc (think time excluded).
    utilizations : ndarray, shape (K, C)
        U_kc = X_c D_kc / m_k, per server; for a delay station the mean number in service
        X_c D_kc.
    queue_lengths : ndarray, shape (K, C)
        Q_kc = X_c T_kc (customers present, in service included).
    method : str
        ``"exact"``, ``"exact-load-dependent"``, ``"seidmann"``, ``"schweitzer"`` or
        ``"schweitzer-seidmann"``.
    iterations : int
        Fixed-point sweeps of approximate MVA (0 for exact solvers).
    populations : ndarray of int, shape (P, C)
        With ``all_populations=True``: every population solved (single class: 1..N;
        several classes: every lattice point except 0, last class fastest). Else empty.
    throughput_all : ndarray, shape (P, C)
        Throughput at each row of ``populations``.
    residence_times_all : ndarray, shape (P, K, C)
        Residence times at each row of ``populations``.
    response_time_all : ndarray, shape (P, C)
        Response times R_c at each row of ``populations``.
    queue_lengths_all : ndarray, shape (P, K, C)
        Queue lengths Q_kc at each row of ``populations``.
    utilizations_all : ndarray, shape (P, K, C)
        Per-server utilisations at each row of ``populations``.

    Examples
    --------
    Returned by :func:`mva` (and :func:`amva`, :func:`seidmann`, :func:`open_as_closed`):

    >>> from pilotstats.regression import mva
    >>> result = mva([2.0, 3.0, 4.0], 10, think_time=10.0)
    >>> print(result)
    MVA (exact, K = 3): N = 10, X = 0.236694/s, R = 32.2487 s
    >>> round(float(result.throughput[0]), 6)
    0.236694
    """

    population: tuple[int, ...]
    think_time: FloatArray
    demands: FloatArray
    servers: FloatArray
    residence_times: FloatArray
    throughput: FloatArray
    response_time: FloatArray
    utilizations: FloatArray
    queue_lengths: FloatArray
    method: str
    iterations: int
    populations: npt.NDArray[np.int64]
    throughput_all: FloatArray
    residence_times_all: FloatArray
    response_time_all: FloatArray
    queue_lengths_all: FloatArray
    utilizations_all: FloatArray

    @property
    def utilisations(self) -> FloatArray:
        """Alias of :attr:`utilizations` (the spelling of the issue and the spec)."""
        return self.utilizations

    @property
    def n_classes(self) -> int:
        """Number of customer classes C."""
        return len(self.population)

    @property
    def n_stations(self) -> int:
        """Number of stations K."""
        return int(self.demands.shape[0])

    def __str__(self) -> str:
        parts = []
        for c in range(self.n_classes):
            label = f"class {c + 1}: " if self.n_classes > 1 else ""
            parts.append(
                f"{label}N = {self.population[c]}, X = {format_number(self.throughput[c], 6)}"
                f"/s, R = {format_number(self.response_time[c], 6)} s"
            )
        return f"MVA ({self.method}, K = {self.n_stations}): " + "; ".join(parts)


@dataclasses.dataclass(frozen=True, slots=True)
class ThreadPoolResult(Result):
    """A thread pool in front of a product-form subsystem, solved as a flow-equivalent server.

    Attributes
    ----------
    population : int
        Number of users N.
    think_time : float
        Think time Z, seconds.
    pool_size : float
        Number of threads m (``inf`` for an unlimited pool).
    throughput : float
        X, responses per second.
    response_time : float
        R = N/X − Z, seconds (pool plus outer stations).
    pool_residence_time : float
        Residence time in the pool (waiting for a thread plus the inner subsystem).
    pool_wait : float
        Mean time waiting for a free thread.
    inner_residence_times : ndarray, shape (K_in,)
        Residence time per response at each inner station.
    inner_utilizations : ndarray, shape (K_in,)
        X D_k of each inner station.
    outer_residence_times : ndarray, shape (K_out,)
        Residence time at each station outside the pool.
    busy_threads : float
        Mean number of threads in use.
    subsystem_throughput : ndarray, shape (min(m, N),)
        X_in(j), j = 1..min(m, N): throughput of the subsystem alone with j customers.

    Examples
    --------
    Returned by :func:`thread_pool`:

    >>> from pilotstats.regression import thread_pool
    >>> result = thread_pool([2.0, 3.0], 10, pool_size=2, think_time=10.0)
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    thread pool (m = 2, N = 10): X = 0.263019/s, pool residence 28.0201 s,
    wait for a thread 20.4225 s
    """

    population: int
    think_time: float
    pool_size: float
    throughput: float
    response_time: float
    pool_residence_time: float
    pool_wait: float
    inner_residence_times: FloatArray
    inner_utilizations: FloatArray
    outer_residence_times: FloatArray
    busy_threads: float
    subsystem_throughput: FloatArray

    def __str__(self) -> str:
        return (
            f"thread pool (m = {format_number(self.pool_size)}, N = {self.population}): "
            f"X = {format_number(self.throughput, 6)}/s, pool residence "
            f"{format_number(self.pool_residence_time, 6)} s, wait for a thread "
            f"{format_number(self.pool_wait, 6)} s"
        )


# --------------------------------------------------------------------------- validation


def _demands(demands: Any, name: str = "demands") -> tuple[FloatArray, bool]:
    """Return demands as (K, C) and whether the input was one-dimensional (one class)."""
    from pilotstats._validation import reject_container_misuse

    reject_container_misuse(demands, name)
    try:
        raw = np.asarray(demands) if not isinstance(demands, (str, bytes)) else demands
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidInputError(
            f"{name} must be a 1-D or 2-D array of numbers; it could not be converted ({exc})"
        ) from exc
    ndim = getattr(raw, "ndim", None)
    if ndim not in (1, 2):
        raise InvalidInputError(
            f"{name} must be a 1-D array (one class, one value per station) or a 2-D "
            f"array of shape (stations, classes); got {raw!r:.60}"
        )
    array = _as_float(raw, name, ndim=int(ndim))
    if (array < 0).any():
        index = np.argwhere(array < 0)[0]
        raise InvalidInputError(
            f"{name} must be non-negative (a service demand is a time); value "
            f"{array[tuple(index)]!r} at index {tuple(int(i) for i in index)}"
        )
    if array.ndim == 1:
        return np.ascontiguousarray(array[:, None]), True
    return np.ascontiguousarray(array), False


def _check_size(n_stations: int, populations: Any, what: str) -> None:
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


def _as_float(values: Any, name: str, ndim: int) -> FloatArray:
    from pilotstats._validation import as_float_array

    return as_float_array(values, name, ndim=ndim)


def _population(population: Any, n_classes: int, name: str = "population") -> FloatArray:
    """Validate an integer population (scalar for one class, else one per class)."""
    if isinstance(population, numbers.Number) and not isinstance(population, bool):
        values = [population]
    else:
        try:
            values = list(np.asarray(population).ravel())
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"{name} must be integers, got {population!r:.60}") from exc
    if len(values) != n_classes:
        raise InvalidInputError(
            f"{name} must give one population per class ({n_classes}), got {len(values)}"
        )
    out = np.empty(n_classes)
    for c, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise InvalidInputError(f"{name} must contain integers, got {value!r}")
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float64 range
            number = math.inf
        if not math.isfinite(number) or not number.is_integer():
            raise InvalidInputError(
                f"{name} must contain whole numbers of customers, got {value!r} for class "
                f"{c + 1}; round it or use amva for a fractional population"
            )
        if number < 0:
            raise InvalidInputError(f"{name} must be non-negative, got {value!r}")
        out[c] = number
    if out.sum() < 1:
        raise InvalidInputError(f"{name} must contain at least one customer, got {values}")
    return out


def _per_class(value: Any, n_classes: int, name: str) -> FloatArray:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        from pilotstats._validation import check_real

        array = np.full(n_classes, check_real(value, name, allow_inf=True))
    else:
        array = _as_float(value, name, ndim=1)
        if array.shape[0] != n_classes:
            raise InvalidInputError(
                f"{name} must be a scalar or give one value per class ({n_classes}), got "
                f"{array.shape[0]} values"
            )
    if not np.isfinite(array).all() or (array < 0).any():
        raise InvalidInputError(f"{name} must be finite and non-negative, got {array.tolist()}")
    return array


def _servers(servers: Any, n_stations: int) -> FloatArray:
    """Server counts (integers >= 1, or inf for a delay station)."""
    if servers is None:
        return np.ones(n_stations)
    from pilotstats._validation import as_float_array

    array = as_float_array(servers, "servers", allow_nonfinite=True)
    if array.shape[0] != n_stations:
        raise InvalidInputError(
            f"servers must give one count per station ({n_stations}), got {array.shape[0]}"
        )
    for k, value in enumerate(array):
        if math.isinf(value) and value > 0:
            continue
        if not math.isfinite(value) or not float(value).is_integer() or value < 1:
            raise InvalidInputError(
                f"servers must be whole numbers >= 1 (or inf for a delay station); station "
                f"{k} has {value!r}"
            )
    return array


def _visits(visits: Any, shape: tuple[int, int], one_class: bool) -> FloatArray:
    if visits is None:
        return np.ones(shape)
    from pilotstats._validation import as_float_array

    raw = np.asarray(visits)
    array = as_float_array(raw, "visits", ndim=raw.ndim if raw.ndim in (1, 2) else 1)
    if array.ndim == 1:
        if array.shape[0] != shape[0]:
            raise InvalidInputError(
                f"visits must give one value per station ({shape[0]}), got {array.shape[0]}"
            )
        array = np.repeat(array[:, None], shape[1], axis=1)
    elif array.shape != shape:
        raise InvalidInputError(f"visits must have shape {shape}, got {array.shape}")
    if (array < 0).any():
        raise InvalidInputError("visits must be non-negative")
    return array


def _check_scale(demands: FloatArray, think: FloatArray, population: FloatArray) -> None:
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


def _check_cycle(demands: FloatArray, think: FloatArray, population: FloatArray) -> None:
    _check_scale(demands, think, population)
    for c in range(demands.shape[1]):
        if population[c] > 0 and think[c] + demands[:, c].sum() <= 0:
            raise InvalidInputError(
                f"class {c + 1} has zero think time and zero total demand, so its throughput "
                "is unbounded; give a positive demand or think time"
            )


def _prepare(
    demands: Any, population: Any, think_time: Any, servers: Any, visits: Any
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, bool]:
    service, one_class = _demands(demands)
    k_count, c_count = service.shape
    pop = _population(population, c_count)
    think = _per_class(think_time, c_count, "think_time")
    srv = _servers(servers, k_count)
    total = service * _visits(visits, service.shape, one_class)
    _check_cycle(total, think, pop)
    return np.ascontiguousarray(total), pop, think, srv, one_class


def _finish(
    demands: FloatArray,
    servers: FloatArray,
    think: FloatArray,
    pop: FloatArray,
    residence: FloatArray,
    throughput: FloatArray,
    method: str,
    iterations: int = 0,
    populations: npt.NDArray[np.int64] | None = None,
    throughput_all: FloatArray | None = None,
    residence_all: FloatArray | None = None,
) -> MvaResult:
    k_count, c_count = demands.shape
    per_server = np.where(np.isinf(servers), 1.0, servers)
    util = throughput[None, :] * demands / per_server[:, None]
    if populations is None or throughput_all is None or residence_all is None:
        populations = np.zeros((0, c_count), dtype=np.int64)
        throughput_all = np.zeros((0, c_count))
        residence_all = np.zeros((0, k_count, c_count))
    return MvaResult(
        population=tuple(int(v) for v in pop),
        think_time=_readonly(think),
        demands=_readonly(demands),
        servers=_readonly(servers),
        residence_times=_readonly(residence),
        throughput=_readonly(throughput),
        response_time=_readonly(residence.sum(axis=0)),
        utilizations=_readonly(util),
        queue_lengths=_readonly(throughput[None, :] * residence),
        method=method,
        iterations=int(iterations),
        populations=_readonly(populations, np.int64),
        throughput_all=_readonly(throughput_all),
        residence_times_all=_readonly(residence_all),
        response_time_all=_readonly(residence_all.sum(axis=1)),
        queue_lengths_all=_readonly(throughput_all[:, None, :] * residence_all),
        utilizations_all=_readonly(
            throughput_all[:, None, :] * demands[None, :, :] / per_server[None, :, None]
        ),
    )


def _seidmann_transform(
    demands: FloatArray, servers: FloatArray
) -> tuple[FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Split each m-server queue into a queue D/m and a delay D(m−1)/m (spec §2.4)."""
    rows: list[FloatArray] = []
    delay: list[bool] = []
    owner: list[int] = []
    for k in range(demands.shape[0]):
        m = servers[k]
        if math.isinf(m):
            rows.append(demands[k])
            delay.append(True)
            owner.append(k)
        elif m == 1:
            rows.append(demands[k])
            delay.append(False)
            owner.append(k)
        else:
            rows.append(demands[k] / m)
            delay.append(False)
            owner.append(k)
            rows.append(demands[k] * (m - 1) / m)
            delay.append(True)
            owner.append(k)
    return (
        np.ascontiguousarray(np.array(rows, dtype=np.float64)),
        np.array(delay, dtype=np.bool_),
        np.array(owner, dtype=np.int64),
    )


def _fold(residence: FloatArray, owner: npt.NDArray[np.int64], k_count: int) -> FloatArray:
    out = np.zeros((k_count, residence.shape[-1]))
    np.add.at(out, owner, residence)
    return out


def _single_class_exact(
    demands: FloatArray,
    think: float,
    population: int,
    servers: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Exact single-class MVA (load-dependent where m > 1); return X(n), R(n, k), marginals."""
    k_count = demands.shape[0]
    kind = np.empty(k_count, dtype=np.int64)
    alpha = np.ones((k_count, population + 1))
    j = np.arange(population + 1, dtype=np.float64)
    for k in range(k_count):
        if math.isinf(servers[k]):
            kind[k] = _kq.DELAY
        elif servers[k] == 1:
            kind[k] = _kq.QUEUE
        else:
            kind[k] = _kq.LOAD_DEPENDENT
            alpha[k] = np.maximum(np.minimum(j, servers[k]), 1.0)
    throughput, residence, min_p0, marginals = _solve_single(
        np.ascontiguousarray(demands, dtype=np.float64), float(think), int(population), kind,
        alpha,
    )
    _warn_p0(min_p0)
    return throughput, residence, marginals


def _solve_single(
    demands: FloatArray,
    think: float,
    population: int,
    kind: npt.NDArray[np.int64],
    alpha: FloatArray,
) -> tuple[FloatArray, FloatArray, float, FloatArray]:
    """Run the single-class kernel with idle probabilities from complement networks.

    For each load-dependent station k (up to ``MVA_COMPLEMENT_MAX_STATIONS`` of them) the
    network without k is solved first (recursively), and p_k(0 | n) = G_{−k}(n)/G(n) =
    Π_{i<=n} X(i)/X_{−k}(i) replaces the subtraction 1 − Σ_{j>=1} p_k(j | n), which loses
    all accuracy when p_k(0 | n) is tiny (many servers behind a bottleneck, spec §2.4).
    """
    k_count = demands.shape[0]
    complement = np.full((k_count, population + 1), np.inf)
    use_complement = np.zeros(k_count, dtype=np.bool_)
    load_dependent = np.flatnonzero(kind == _kq.LOAD_DEPENDENT)
    if 0 < load_dependent.size <= _config.MVA_COMPLEMENT_MAX_STATIONS:
        for k in load_dependent:
            keep = np.arange(k_count) != k
            use_complement[k] = True
            if think <= 0 and not (demands[keep] > 0).any():
                continue  # the rest of the network is empty: station k holds everyone
            x_rest, _, _, _ = _solve_single(
                np.ascontiguousarray(demands[keep]), think, population,
                np.ascontiguousarray(kind[keep]), np.ascontiguousarray(alpha[keep]),
            )
            complement[k] = x_rest
    throughput, residence, min_p0, marginals = _kq.single_class_mva(
        demands, float(think), int(population), kind, alpha, complement, use_complement
    )
    return throughput, residence, float(min_p0), marginals


def _warn_p0(min_p0: float) -> None:
    if min_p0 < -_config.MVA_P0_CLAMP:
        warnings.warn(
            f"load-dependent MVA lost accuracy: an idle probability p(0) computed by "
            f"subtraction was {min_p0:.3g} (clamped to 0); the station is near saturation "
            "with many servers; consider multiserver='seidmann'",
            NumericalAccuracyWarning,
            stacklevel=4,
        )


# --------------------------------------------------------------------------- public API


def mva(
    demands: Any,
    population: Any,
    *,
    think_time: Any = 0.0,
    servers: Any = None,
    visits: Any = None,
    multiserver: MultiServerMethod = "exact",
    all_populations: bool = False,
) -> MvaResult:
    """Exact mean value analysis of a closed product-form queueing network.

    Parameters
    ----------
    demands : array_like, shape (K,) or (K, C)
        Service demand of each station (and class), seconds per response. With ``visits``
        these are service times per visit and the demand is ``visits * demands``.
    population : int or sequence of int, length C
        Number of customers (users) per class; whole numbers >= 0, at least one in total.
    think_time : float or array_like, shape (C,), default 0
        Think time Z_c, a delay in front of all stations.
    servers : array_like, shape (K,), optional
        Servers per station: whole numbers >= 1, ``numpy.inf`` for a delay station
        (infinite server, residence time = demand). Default: single-server queues.
    visits : array_like, shape (K,) or (K, C), optional
        Mean visits per response; ``demands`` are then per-visit service times.
    multiserver : {"exact", "seidmann"}, default "exact"
        Multi-server stations by exact load-dependent MVA (single class only) or by
        Seidmann's approximation (any number of classes).
    all_populations : bool, default False
        Also return the solution at every smaller population (``populations``,
        ``throughput_all``, ``residence_times_all``, ``response_time_all``,
        ``queue_lengths_all``, ``utilizations_all``); one sweep computes them anyway.

    Returns
    -------
    MvaResult

    Raises
    ------
    InvalidInputError
        Negative or non-finite demands, non-integer or negative populations, server counts
        that are not whole numbers >= 1, mismatched shapes, a class with zero think time and
        zero demand, or exact multi-server MVA with several classes.

    Warns
    -----
    NumericalAccuracyWarning
        An idle probability of load-dependent MVA computed by subtraction fell below −1e-9
        before clamping (only with many multi-server stations).

    See Also
    --------
    amva : Bard–Schweitzer approximation for large multi-class populations.
    seidmann : Seidmann's multi-server approximation.

    Notes
    -----
    Single class (spec §2.1): with Q_k(0) = 0 and for n = 1..N, R_k(n) = D_k (1 + Q_k(n−1))
    (arrival theorem; D_k at a delay), X(n) = n/(Z + Σ_k R_k(n)), Q_k(n) = X(n) R_k(n).
    Several classes (§2.2): the lattice recursion R_kc(n) = D_kc (1 + Σ_j Q_kj(n − e_c)),
    X_c(n) = n_c/(Z_c + Σ_k R_kc(n)), at cost Π_c (N_c + 1)·K·C. Multi-server stations
    (§2.4): exact load-dependent MVA with α_k(j) = min(j, m_k) [1]_, or Seidmann [3]_.
    The idle probabilities p_k(0 | n) of load-dependent MVA are taken from complement
    networks, p_k(0 | n) = G_{−k}(n)/G(n) = Π_{i≤n} X(i)/X_{−k}(i), rather than by the
    subtraction 1 − Σ_{j≥1} p_k(j | n), which cancels catastrophically when p_k(0 | n) is
    tiny (e.g. 64 servers behind a bottleneck); with more than
    ``_config.MVA_COMPLEMENT_MAX_STATIONS`` multi-server stations subtraction is used, with
    values in [−1e-9, 0) clamped to 0 and a warning below. Utilisation per server is
    U_k = X D_k / m_k.

    Complexity: O(K·Π_c(N_c + 1)) time and memory for K stations and populations N_c
    (one class: O(K·N)); a load-dependent (multi-server) station adds O(N²). Problems
    beyond ``_config.MAX_MVA_CELLS`` cells are rejected up front.

    References
    ----------
    .. [1] M. Reiser and S. S. Lavenberg, J. ACM 27(2):313–322, 1980.
    .. [3] A. Seidmann, P. Schweitzer and S. Shalev-Oren, Large Scale Systems 12, 1987.

    Examples
    --------
    >>> from pilotstats.regression import mva
    >>> r = mva([2.0, 3.0, 4.0], 10, think_time=10.0)
    >>> round(float(r.response_time[0]), 4), round(float(r.throughput[0]), 6)
    (32.2487, 0.236694)
    """
    from pilotstats._validation import check_choice

    check_choice(multiserver, "multiserver", ("exact", "seidmann"))
    all_populations = check_bool(all_populations, "all_populations")
    total, pop, think, srv, _ = _prepare(demands, population, think_time, servers, visits)
    _check_size(total.shape[0] * (2 if multiserver == "seidmann" else 1), pop, "mva")
    c_count = total.shape[1]
    multi = bool(((srv > 1) & np.isfinite(srv)).any())
    if multi and multiserver == "seidmann":
        return _seidmann_exact(total, pop, think, srv, all_populations)
    if c_count == 1:
        n = int(pop[0])
        throughput, residence, _ = _single_class_exact(total[:, 0], float(think[0]), n, srv)
        method = "exact-load-dependent" if multi else "exact"
        extra: dict[str, Any] = {}
        if all_populations:
            extra = {
                "populations": np.arange(1, n + 1, dtype=np.int64)[:, None],
                "throughput_all": throughput[1:, None],
                "residence_all": residence[1:, :, None],
            }
        return _finish(
            total, srv, think, pop, residence[n][:, None], throughput[n : n + 1], method,
            **extra,
        )
    if multi:
        raise InvalidInputError(
            "exact MVA with multi-server stations is implemented for one class only; use "
            "multiserver='seidmann' (or amva) for several classes"
        )
    return _lattice(total, pop, think, srv, np.isinf(srv), all_populations, "exact")


def _lattice(
    total: FloatArray,
    pop: FloatArray,
    think: FloatArray,
    srv: FloatArray,
    delay: npt.NDArray[np.bool_],
    all_populations: bool,
    method: str,
    owner: npt.NDArray[np.int64] | None = None,
    k_out: int | None = None,
    report_demands: FloatArray | None = None,
) -> MvaResult:
    population = pop.astype(np.int64)
    throughput, residence = _kq.lattice_mva(
        np.ascontiguousarray(total), think, population, delay, bool(all_populations)
    )
    if owner is not None and k_out is not None:
        residence = np.stack([_fold(r, owner, k_out) for r in residence])
    demands = total if report_demands is None else report_demands
    extra: dict[str, Any] = {}
    if all_populations:
        grids = np.indices(tuple(int(n) + 1 for n in population)).reshape(len(population), -1)
        extra = {
            "populations": grids.T[1:].astype(np.int64),
            "throughput_all": throughput[1:],
            "residence_all": residence[1:],
        }
    return _finish(
        demands, srv, think, pop, residence[-1], throughput[-1], method, **extra
    )


def _seidmann_exact(
    total: FloatArray,
    pop: FloatArray,
    think: FloatArray,
    srv: FloatArray,
    all_populations: bool,
) -> MvaResult:
    split, delay, owner = _seidmann_transform(total, srv)
    return _lattice(
        split, pop, think, srv, delay, all_populations, "seidmann", owner, total.shape[0], total
    )


def seidmann(
    demands: Any,
    population: Any,
    *,
    think_time: Any = 0.0,
    servers: Any = None,
    visits: Any = None,
    all_populations: bool = False,
) -> MvaResult:
    """Seidmann's approximation for multi-server stations, solved by exact MVA.

    Parameters
    ----------
    demands, population, think_time, servers, visits, all_populations
        As in :func:`mva`.

    Returns
    -------
    MvaResult
        ``residence_times`` of a multi-server station is the sum of its two parts.

    Notes
    -----
    An m-server station of demand D becomes a single-server queue of demand D/m plus a
    delay of demand D(m−1)/m (spec §2.4, [3]_). Exact at N = 1 and for the asymptotic
    throughput; in between the throughput is typically a few per cent low (2.6 % at N = 5
    in reference case RC-4).

    Complexity: As :func:`mva` with twice the stations.

    References
    ----------
    .. [3] A. Seidmann, P. Schweitzer and S. Shalev-Oren, Large Scale Systems 12, 1987.

    Examples
    --------
    >>> from pilotstats.regression import seidmann
    >>> r = seidmann([2.0, 3.0, 4.0], 5, think_time=10.0, servers=[1, 2, 4])
    >>> round(float(r.throughput[0]), 6)
    0.239562
    """
    return mva(
        demands,
        population,
        think_time=think_time,
        servers=servers,
        visits=visits,
        multiserver="seidmann",
        all_populations=all_populations,
    )


def amva(
    demands: Any,
    population: Any,
    *,
    think_time: Any = 0.0,
    servers: Any = None,
    visits: Any = None,
    tol: float = SCHWEITZER_TOL,
    max_iter: int = SCHWEITZER_MAX_ITER,
) -> MvaResult:
    """Bard–Schweitzer approximate mean value analysis (fixed point at N only).

    Parameters
    ----------
    demands, population, think_time, servers, visits
        As in :func:`mva`. Multi-server stations use Seidmann's split.
    tol : float, default 1e-12
        Stop when every queue length changes by at most ``tol`` (relative above 1).
    max_iter : int, default 100000
        Maximum number of fixed-point sweeps.

    Returns
    -------
    MvaResult
        ``iterations`` holds the number of sweeps.

    Warns
    -----
    ConvergenceWarning
        ``max_iter`` sweeps did not reach ``tol``.

    Notes
    -----
    Spec §2.3 and [2]_: the queue seen on arrival is approximated by
    Q_k^(c)(N − e_c) ≈ Σ_j Q_kj(N) − Q_kc(N)/N_c; R_kc = D_kc (1 + estimate),
    X_c = N_c/(Z_c + Σ_k R_kc), Q_kc = X_c R_kc, starting from Q_kc = N_c/K. For one class
    R_k = D_k (1 + (N−1)/N · Q_k). Cost per sweep O(K C), independent of N.

    References
    ----------
    .. [2] P. J. Schweitzer, "Approximate analysis of multiclass closed networks of
       queues", 1979.

    Examples
    --------
    >>> from pilotstats.regression import amva
    >>> r = amva([2.0, 3.0, 4.0], 10, think_time=10.0)
    >>> round(float(r.throughput[0]), 8)
    0.2284812
    """
    from pilotstats._validation import check_int, check_real

    tol = check_real(tol, "tol", low=0.0, low_inclusive=False)
    max_iter = check_int(max_iter, "max_iter", low=1)
    total, pop, think, srv, _ = _prepare(demands, population, think_time, servers, visits)
    k_count = total.shape[0]
    split, delay, owner = _seidmann_transform(total, srv)
    throughput, residence, iterations = _kq.schweitzer_mva(
        split, think, np.ascontiguousarray(pop), delay, float(tol), int(max_iter)
    )
    if iterations > max_iter:
        warnings.warn(
            f"Schweitzer AMVA did not converge to tol={tol:g} in max_iter={max_iter} sweeps",
            ConvergenceWarning,
            stacklevel=2,
        )
        iterations = max_iter
    multi = bool(((srv > 1) & np.isfinite(srv)).any())
    return _finish(
        total,
        srv,
        think,
        pop,
        _fold(residence, owner, k_count),
        throughput,
        "schweitzer-seidmann" if multi else "schweitzer",
        iterations,
    )


def open_as_closed(
    demands: Any,
    arrival_rate: Any,
    *,
    population: int = 5000,
    servers: Any = None,
    visits: Any = None,
    method: Literal["auto", "exact", "schweitzer"] = "auto",
) -> MvaResult:
    """Solve open classes as closed classes with a large population and Z = N/λ.

    Parameters
    ----------
    demands : array_like, shape (K,) or (K, C)
        Service demands, seconds per response.
    arrival_rate : float or array_like, shape (C,)
        Arrival rate λ_c (responses per second), e.g. the measured throughput f.
    population : int, default 5000
        Population N used for every class; convergence in N is slow near saturation
        (reference case RC-5: T_3 is still 4 % low at N = 1000).
    servers, visits
        As in :func:`mva`.
    method : {"auto", "exact", "schweitzer"}, default "auto"
        ``"auto"`` uses exact MVA (O(N K)) for one class and Schweitzer for several.

    Returns
    -------
    MvaResult

    Raises
    ------
    InvalidInputError
        Non-positive arrival rates, or a station saturated by the open load
        (Σ_c λ_c D_kc / m_k >= 1), for which no steady state exists.

    Notes
    -----
    Spec §2.6 (the tutorial's form: Z = N/f). As N → ∞ with Z = N/λ, the closed class
    approaches an open Poisson stream of rate λ.

    Examples
    --------
    >>> from pilotstats.regression import open_as_closed
    >>> r = open_as_closed([2.0, 3.0, 4.0], 0.2, population=1000)
    >>> round(float(r.throughput[0]), 8)
    0.19881063
    """
    from pilotstats._validation import check_choice, check_int, check_real

    check_choice(method, "method", ("auto", "exact", "schweitzer"))
    population = check_int(population, "population", low=1)
    service, one_class = _demands(demands)
    c_count = service.shape[1]
    if isinstance(arrival_rate, numbers.Real) and not isinstance(arrival_rate, bool):
        rates = np.full(c_count, check_real(arrival_rate, "arrival_rate", allow_inf=True))
    else:
        rates = _as_float(arrival_rate, "arrival_rate", ndim=1)
    if rates.shape[0] != c_count or not (rates > 0).all() or not np.isfinite(rates).all():
        raise InvalidInputError(
            f"arrival_rate must be {c_count} positive finite value(s), got {rates.tolist()}"
        )
    srv = _servers(servers, service.shape[0])
    if method == "exact" or (method == "auto" and c_count == 1):
        _check_size(service.shape[0], np.full(c_count, population), "open_as_closed")
    elif service.shape[0] > _config.MAX_STATIONS:
        _check_size(service.shape[0], [0], "open_as_closed")
    total = service * _visits(visits, service.shape, one_class)
    per_server = np.where(np.isinf(srv), np.inf, srv)
    load = (total * rates[None, :]).sum(axis=1) / per_server
    if (load >= 1).any():
        k = int(np.argmax(load))
        raise InvalidInputError(
            f"station {k} is saturated by the open load (utilisation {load[k]:.4g} >= 1); "
            "no steady state exists for this arrival_rate"
        )
    with np.errstate(over="ignore"):
        think = population / rates
    if not np.isfinite(think).all():
        raise InvalidInputError(
            f"arrival_rate {rates.tolist()} is so small that the equivalent closed think time "
            f"population / arrival_rate overflows float64; rescale the time unit"
        )
    pops = np.full(c_count, population)
    if method == "schweitzer" or (method == "auto" and c_count > 1):
        return amva(total, pops, think_time=think, servers=srv)
    return mva(total, pops if c_count > 1 else population, think_time=think, servers=srv)


def thread_pool(
    inner_demands: Any,
    population: int,
    *,
    pool_size: float,
    think_time: float = 0.0,
    outer_demands: Any = None,
) -> ThreadPoolResult:
    """A pool of m threads in front of a product-form subsystem, as a flow-equivalent server.

    Parameters
    ----------
    inner_demands : array_like, shape (K_in,)
        Demands of the single-server queues served while a thread is held (e.g. web CPU
        and database disk), seconds per response.
    population : int
        Number of users N (single class).
    pool_size : int or inf
        Number of threads m >= 1; ``numpy.inf`` for an unlimited pool.
    think_time : float, default 0
        Think time Z.
    outer_demands : array_like, shape (K_out,), optional
        Single-server queues visited outside the pool (without holding a thread).

    Returns
    -------
    ThreadPoolResult

    Notes
    -----
    Spec §2.5 (Chandy–Herzog–Woo / Norton flow-equivalent server [4]_): solve the
    subsystem alone with Z = 0 for j = 1..m, giving X_in(j); replace it by one
    load-dependent station of rate μ(j) = X_in(min(j, m)); solve the outer model by exact
    load-dependent MVA. With j customers at the pool the subsystem holds min(j, m), whose
    conditional state is that of the isolated subsystem, so inner residence times follow
    from T_k = Σ_j p(j | N) Q_k^in(min(j, m)) / X. Exact for product-form inner systems.

    Complexity: O(K·N + N²) for K stations and population N (the pool is a load-
    dependent station); populations beyond the size limit are rejected up front.

    References
    ----------
    .. [4] K. M. Chandy, U. Herzog and L. Woo, IBM J. Res. Dev. 19(1), 1975.

    Examples
    --------
    >>> from pilotstats.regression import thread_pool
    >>> r = thread_pool([2.0, 3.0], 10, pool_size=2, think_time=10.0)
    >>> round(r.pool_residence_time, 5)
    28.02008
    """
    from pilotstats._validation import as_float_array, check_int, check_real

    inner = as_float_array(inner_demands, "inner_demands", nonnegative=True)
    n = check_int(population, "population", low=1)
    think = check_real(think_time, "think_time", low=0.0)
    if isinstance(pool_size, bool) or not isinstance(pool_size, numbers.Real):
        raise InvalidInputError(f"pool_size must be a whole number >= 1 or inf, got {pool_size!r}")
    try:
        m = float(pool_size)
    except OverflowError:
        m = math.nan
    if not (math.isinf(m) and m > 0) and (not m.is_integer() or m < 1):
        raise InvalidInputError(f"pool_size must be a whole number >= 1 or inf, got {pool_size!r}")
    outer = (
        np.zeros(0)
        if outer_demands is None
        else as_float_array(outer_demands, "outer_demands", nonnegative=True)
    )
    if not inner.max() > 0:
        raise InvalidInputError("inner_demands must contain a positive demand")
    _check_size(inner.shape[0] + outer.shape[0] + 1, [n], "thread_pool")
    _check_scale(np.concatenate([inner, outer])[:, None], np.array([think]), np.array([n]))
    _check_scale(inner[:, None], np.zeros(1), np.array([float(min(m, n))]))
    if float(n) * float(n) > _config.MAX_MVA_CELLS * 16:
        raise InvalidInputError(
            f"thread_pool: population {n} is too large for the load-dependent exact solution "
            f"(O(N²) = {float(n) ** 2:.3g} steps); use a population of at most "
            f"{int(math.sqrt(_config.MAX_MVA_CELLS * 16))}"
        )
    j_max = int(min(m, n))
    ones = np.ones(inner.shape[0])
    x_in, r_in, _ = _single_class_exact(inner, 0.0, j_max, ones)
    q_in = x_in[:, None] * r_in  # (j_max + 1, K_in)
    k_out = outer.shape[0]
    demands = np.concatenate([[1.0], outer])
    kind = np.concatenate([[_kq.LOAD_DEPENDENT], np.full(k_out, _kq.QUEUE)]).astype(np.int64)
    alpha = np.ones((k_out + 1, n + 1))
    capped = np.minimum(np.arange(n + 1), j_max)
    alpha[0, 1:] = x_in[capped[1:]]
    throughput, residence, min_p0, marginals = _solve_single(
        np.ascontiguousarray(demands), think, n, kind, alpha
    )
    _warn_p0(min_p0)
    x = float(throughput[n])
    p_pool = marginals[0]
    inner_queue = (p_pool[:, None] * q_in[capped]).sum(axis=0)
    inner_times = inner_queue / x
    pool_time = float(residence[n, 0])
    busy = float((p_pool * capped).sum())
    return ThreadPoolResult(
        population=n,
        think_time=think,
        pool_size=m,
        throughput=x,
        response_time=float(n / x - think),
        pool_residence_time=pool_time,
        pool_wait=float(pool_time - inner_times.sum()),
        inner_residence_times=_readonly(inner_times),
        inner_utilizations=_readonly(x * inner),
        outer_residence_times=_readonly(residence[n, 1:]),
        busy_threads=busy,
        subsystem_throughput=_readonly(x_in[1:]),
    )
