"""A thread pool in front of a product-form subsystem, solved as a flow-equivalent server
(:func:`thread_pool`; ``docs/algorithms/calibration.md``).

:func:`thread_pool`, notes:

Flow-equivalent server (Chandy–Herzog–Woo / Norton flow-equivalent server [4]_): solve the
subsystem alone with Z = 0 for j = 1..m, giving X_in(j); replace it by one
load-dependent station of rate μ(j) = X_in(min(j, m)); solve the outer model by exact
load-dependent MVA. With j customers at the pool the subsystem holds min(j, m), whose
conditional state is that of the isolated subsystem, so inner residence times follow
from T_k = Σ_j p(j | N) Q_k^in(min(j, m)) / X. Exact for product-form inner systems.

:func:`thread_pool`, references:

.. [4] K. M. Chandy, U. Herzog and L. Woo, IBM J. Res. Dev. 19(1), 1975.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._kernels import queueing as _kq
from pilotstats._validation import (
    as_float_array,
    check_cycle_scale,
    check_int,
    check_mva_size,
    check_pool_size,
    check_real,
)
from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._mva_solvers import (
    _single_class_exact,
    _solve_single,
    _warn_p0,
)
from pilotstats.regression._queueing_results import (
    FloatArray,
    ThreadPoolResult,
    _readonly,
)

__all__ = ["thread_pool"]


def _check_pool_problem(
    inner: FloatArray, outer: FloatArray, n: int, think: float, m: float
) -> None:
    """A positive inner demand, and a problem small enough to solve exactly."""
    if not inner.max() > 0:
        raise InvalidInputError("inner_demands must contain a positive demand")
    check_mva_size(inner.shape[0] + outer.shape[0] + 1, [n], "thread_pool")
    check_cycle_scale(np.concatenate([inner, outer])[:, None], np.array([think]), np.array([n]))
    check_cycle_scale(inner[:, None], np.zeros(1), np.array([float(min(m, n))]))
    if float(n) * float(n) > _config.MAX_MVA_CELLS * 16:
        raise InvalidInputError(
            f"thread_pool: population {n} is too large for the load-dependent exact solution "
            f"(O(N²) = {float(n) ** 2:.3g} steps); use a population of at most "
            f"{int(math.sqrt(_config.MAX_MVA_CELLS * 16))}"
        )


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
    Complexity: O(K·N + N²) for K stations and population N (a load-dependent pool).

    Examples
    --------
    >>> from pilotstats.regression import thread_pool
    >>> r = thread_pool([2.0, 3.0], 10, pool_size=2, think_time=10.0)
    >>> round(r.pool_residence_time, 5)
    28.02008
    """
    inner = as_float_array(inner_demands, "inner_demands", nonnegative=True)
    n = check_int(population, "population", low=1)
    think = check_real(think_time, "think_time", low=0.0)
    m = check_pool_size(pool_size)
    outer = (np.zeros(0) if outer_demands is None
             else as_float_array(outer_demands, "outer_demands", nonnegative=True))
    _check_pool_problem(inner, outer, n, think, m)
    j_max = int(min(m, n))
    ones = np.ones(inner.shape[0])
    x_in, r_in, _ = _single_class_exact(inner, 0.0, j_max, ones)
    q_in = x_in[:, None] * r_in  # (j_max + 1, K_in)
    k_out = outer.shape[0]
    demands = np.concatenate([[1.0], outer])
    kind = np.concatenate([[_kq.LOAD_DEPENDENT], np.full(k_out, _kq.QUEUE)]).astype(np.int64)
    capacity = np.ones((k_out + 1, n + 1))
    capped = np.minimum(np.arange(n + 1), j_max)
    capacity[0, 1:] = x_in[capped[1:]]
    throughput, residence, min_p0, marginals = _solve_single(
        np.ascontiguousarray(demands), think, n, kind, capacity
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
