"""Product-form queueing-network solvers: exact and approximate mean value analysis.

Documentation: ``docs/algorithms/calibration.md`` (*Solvers*). Exact single-class MVA with think
time, exact multi-class MVA over the population lattice, Bard–Schweitzer approximate MVA,
multi-server stations by exact load-dependent MVA or Seidmann's approximation, thread pools as
flow-equivalent servers and open classes solved as closed ones.

This module holds the public solvers :func:`mva`, :func:`seidmann`, :func:`amva` and
:func:`open_as_closed`, and re-exports :func:`thread_pool` and the result types. The rest
lives in private modules: ``_queueing_inputs`` (validation), ``_mva_solvers`` (exact
single-class, lattice and Seidmann drivers around the numba kernels), ``_thread_pool`` and
``_queueing_results`` (:class:`MvaResult`, :class:`ThreadPoolResult`).

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

:func:`mva`, notes:

Single class: with Q_k(0) = 0 and for n = 1..N, R_k(n) = D_k (1 + Q_k(n−1))
(arrival theorem; D_k at a delay), X(n) = n/(Z + Σ_k R_k(n)), Q_k(n) = X(n) R_k(n).
Several classes: the lattice recursion R_kc(n) = D_kc (1 + Σ_j Q_kj(n − e_c)),
X_c(n) = n_c/(Z_c + Σ_k R_kc(n)), at cost Π_c (N_c + 1)·K·C. Multi-server
stations: exact load-dependent MVA with α_k(j) = min(j, m_k) [1]_, or Seidmann [3]_.
The idle probabilities p_k(0 | n) of load-dependent MVA are taken from complement
networks, p_k(0 | n) = G_{−k}(n)/G(n) = Π_{i≤n} X(i)/X_{−k}(i), rather than by the
subtraction 1 − Σ_{j≥1} p_k(j | n), which cancels catastrophically when p_k(0 | n) is
tiny (e.g. 64 servers behind a bottleneck); with more than
``_config.MVA_COMPLEMENT_MAX_STATIONS`` multi-server stations subtraction is used, with
values in [−1e-9, 0) clamped to 0 and a warning below. Utilisation per server is
U_k = X D_k / m_k.

:func:`mva`, references:

.. [1] M. Reiser and S. S. Lavenberg, J. ACM 27(2):313–322, 1980.
.. [3] A. Seidmann, P. Schweitzer and S. Shalev-Oren, Large Scale Systems 12, 1987.

:func:`amva`, references:

.. [2] P. J. Schweitzer, "Approximate analysis of multiclass closed networks of
   queues", 1979.

:func:`open_as_closed`, notes:

The closed class has think time Z = N/f, the form of Woodside's tutorial (WOSP/SIPEW
2010). As N → ∞ with Z = N/λ, the closed class approaches an open Poisson stream of
rate λ.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np

from pilotstats import _config
from pilotstats._config import SCHWEITZER_MAX_ITER, SCHWEITZER_TOL
from pilotstats._kernels import queueing as _kq
from pilotstats._validation import as_arrival_rates, check_bool, check_choice, check_mva_size
from pilotstats.exceptions import ConvergenceWarning, InvalidInputError
from pilotstats.regression._mva_solvers import (
    _fold,
    _lattice,
    _seidmann_exact,
    _seidmann_transform,
    _single_class_exact,
)
from pilotstats.regression._queueing_inputs import (
    _demands,
    _prepare,
    _servers,
    _visits,
)
from pilotstats.regression._queueing_results import (
    FloatArray,
    MvaResult,
    ThreadPoolResult,
    _finish,
)
from pilotstats.regression._thread_pool import thread_pool

__all__ = [
    "MvaResult",
    "ThreadPoolResult",
    "amva",
    "mva",
    "open_as_closed",
    "seidmann",
    "thread_pool",
]


MultiServerMethod = Literal["exact", "seidmann"]


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
        Service demand of each station (and class), seconds per response (per visit with
        ``visits``: the demand is then ``visits * demands``).
    population : int or sequence of int, length C
        Number of customers (users) per class; whole numbers >= 0, at least one in total.
    think_time : float or array_like, shape (C,), default 0
        Think time Z_c, a delay in front of all stations.
    servers : array_like, shape (K,), optional
        Servers per station (whole numbers >= 1, ``numpy.inf``: a delay station); default 1.
    visits : array_like, shape (K,) or (K, C), optional
        Mean visits per response; ``demands`` are then per-visit service times.
    multiserver : {"exact", "seidmann"}, default "exact"
        Multi-server stations: exact load-dependent MVA (one class) or Seidmann's method.
    all_populations : bool, default False
        Also return the solution at every smaller population (``populations`` and the
        ``*_all`` fields); one sweep computes them anyway.

    Returns
    -------
    MvaResult
        Class quantities of shape (C,), station quantities (K, C); floats and (K,) for 1-D
        ``demands``; ``*_all`` arrays with one row per population 1..N.

    Raises
    ------
    InvalidInputError
        Invalid inputs, an unbounded class, or exact multi-server MVA with several classes.

    Warns
    -----
    NumericalAccuracyWarning
        An idle probability of load-dependent MVA fell below −1e-9 before clamping.

    See Also
    --------
    amva : Bard–Schweitzer approximation for large multi-class populations.
    seidmann : Seidmann's multi-server approximation.

    Notes
    -----
    Complexity: O(K·Π_c(N_c + 1)) time and memory for K stations and populations N_c
    (one class: O(K·N)); a load-dependent station adds O(N²); at most
    ``_config.MAX_MVA_CELLS`` cells.

    Examples
    --------
    >>> from pilotstats.regression import mva
    >>> r = mva([2.0, 3.0, 4.0], 10, think_time=10.0)
    >>> round(r.response_time, 4), round(r.throughput, 6)
    (32.2487, 0.236694)
    """
    check_choice(multiserver, "multiserver", ("exact", "seidmann"))
    all_populations = check_bool(all_populations, "all_populations")
    total, pop, think, srv, one_class = _prepare(demands, population, think_time, servers, visits)
    check_mva_size(total.shape[0] * (2 if multiserver == "seidmann" else 1), pop, "mva")
    multi = bool(((srv > 1) & np.isfinite(srv)).any())
    if multi and multiserver == "seidmann":
        return _seidmann_exact(total, pop, think, srv, all_populations, one_class)
    if total.shape[1] == 1:
        return _mva_single_class(total, pop, think, srv, multi, all_populations, one_class)
    if multi:
        raise InvalidInputError(
            "exact MVA with multi-server stations is implemented for one class only; use "
            "multiserver='seidmann' (or amva) for several classes"
        )
    return _lattice(total, pop, think, srv, np.isinf(srv), all_populations, "exact")


def _mva_single_class(
    total: FloatArray, pop: FloatArray, think: FloatArray, srv: FloatArray, multi: bool,
    all_populations: bool, one_class: bool,
) -> MvaResult:
    """Exact (load-dependent with multi-server stations) MVA of one class."""
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
        one_class=one_class, **extra,
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
    delay of demand D(m−1)/m (Seidmann et al. 1987). Exact at N = 1 and for the asymptotic
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
    >>> round(r.throughput, 6)
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
    Following Schweitzer (1979), the queue seen on arrival is approximated by
    Q_k^(c)(N − e_c) ≈ Σ_j Q_kj(N) − Q_kc(N)/N_c; R_kc = D_kc (1 + estimate),
    X_c = N_c/(Z_c + Σ_k R_kc), Q_kc = X_c R_kc, starting from Q_kc = N_c/K. For one class
    R_k = D_k (1 + (N−1)/N · Q_k). Cost per sweep O(K C), independent of N.

    Examples
    --------
    >>> from pilotstats.regression import amva
    >>> r = amva([2.0, 3.0, 4.0], 10, think_time=10.0)
    >>> round(r.throughput, 8)
    0.2284812
    """
    from pilotstats._validation import check_int, check_real

    tol = check_real(tol, "tol", low=0.0, low_inclusive=False)
    max_iter = check_int(max_iter, "max_iter", low=1)
    total, pop, think, srv, one_class = _prepare(
        demands, population, think_time, servers, visits
    )
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
        one_class=one_class,
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

    Examples
    --------
    >>> from pilotstats.regression import open_as_closed
    >>> r = open_as_closed([2.0, 3.0, 4.0], 0.2, population=1000)
    >>> round(r.throughput, 8)
    0.19881063
    """
    from pilotstats._validation import check_choice, check_int

    check_choice(method, "method", ("auto", "exact", "schweitzer"))
    population = check_int(population, "population", low=1)
    service, one_class = _demands(demands)
    c_count = service.shape[1]
    rates = as_arrival_rates(arrival_rate, c_count)
    srv = _servers(servers, service.shape[0])
    if method == "exact" or (method == "auto" and c_count == 1):
        check_mva_size(service.shape[0], np.full(c_count, population), "open_as_closed")
    elif service.shape[0] > _config.MAX_STATIONS:
        check_mva_size(service.shape[0], [0], "open_as_closed")
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
    if one_class:  # 1-D demands in, single-class shapes out (see MvaResult)
        total, think = total[:, 0], think[0]
    if method == "schweitzer" or (method == "auto" and c_count > 1):
        return amva(total, pops, think_time=think, servers=srv)
    return mva(total, pops, think_time=think, servers=srv)


