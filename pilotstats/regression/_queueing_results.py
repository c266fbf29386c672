"""Result types of the queueing solvers: :class:`MvaResult` (closed product-form
networks), :class:`ThreadPoolResult` (a thread pool as a flow-equivalent server) and the
assembly of an :class:`MvaResult` from a solver's residence times and throughputs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats.results import Result, format_number

FloatArray = npt.NDArray[np.float64]


def _readonly(array: npt.ArrayLike, dtype: Any = np.float64) -> Any:
    out = np.array(array, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class MvaResult(Result):
    """Solution of a closed (or open-as-closed) product-form queueing network.

    Shapes follow the ``demands`` given to the solver. A single class (1-D demands of
    shape (K,)) has no class axis: class quantities (``population``, ``think_time``,
    ``throughput``, ``response_time``) are plain Python numbers and station quantities
    have shape (K,). Several classes (2-D demands of shape (K, C), also with C = 1) keep
    the class axis: class quantities have shape (C,) (``population`` a tuple) and station
    quantities shape (K, C). The shapes below are those of several classes; drop the
    class axis C for a single class.

    Attributes
    ----------
    population : int or tuple of int
        Population N (single class) or N_c of each class.
    think_time : float or ndarray, shape (C,)
        Think time Z_c (a delay in front of all stations), seconds.
    demands : ndarray, shape (K,) or (K, C)
        Service demands D_kc = V_kc S_kc, seconds per response.
    servers : ndarray, shape (K,)
        Server count of each station; ``inf`` marks a delay (infinite-server) station.
    residence_times : ndarray, shape (K,) or (K, C)
        T_kc: residence time (queueing plus service, summed over visits) per response.
    throughput : float or ndarray, shape (C,)
        f_c (X_c): responses per second.
    response_time : float or ndarray, shape (C,)
        R_c = Σ_k T_kc (think time excluded).
    utilizations : ndarray, shape (K,) or (K, C)
        U_kc = X_c D_kc / m_k, per server; for a delay station the mean number in service
        X_c D_kc.
    queue_lengths : ndarray, shape (K,) or (K, C)
        Q_kc = X_c T_kc (customers present, in service included).
    method : str
        ``"exact"``, ``"exact-load-dependent"``, ``"seidmann"``, ``"schweitzer"`` or
        ``"schweitzer-seidmann"``.
    iterations : int
        Fixed-point sweeps of approximate MVA (0 for exact solvers).
    populations : ndarray of int, shape (P,) or (P, C)
        With ``all_populations=True``: every population solved (single class: 1..N, shape
        (N,); several classes: every lattice point except 0, last class fastest). Else
        empty.
    throughput_all : ndarray, shape (P,) or (P, C)
        Throughput at each entry of ``populations``.
    residence_times_all : ndarray, shape (P, K) or (P, K, C)
        Residence times at each entry of ``populations``.
    response_time_all : ndarray, shape (P,) or (P, C)
        Response times R_c at each entry of ``populations``.
    queue_lengths_all : ndarray, shape (P, K) or (P, K, C)
        Queue lengths Q_kc at each entry of ``populations``.
    utilizations_all : ndarray, shape (P, K) or (P, K, C)
        Per-server utilisations at each entry of ``populations``.

    Examples
    --------
    Returned by :func:`mva` (and :func:`amva`, :func:`seidmann`, :func:`open_as_closed`):

    >>> from pilotstats.regression import mva
    >>> result = mva([2.0, 3.0, 4.0], 10, think_time=10.0)
    >>> print(result)
    MVA (exact, K = 3): N = 10, X = 0.236694/s, R = 32.2487 s
    >>> round(result.throughput, 6), result.residence_times.shape
    (0.236694, (3,))
    """

    population: int | tuple[int, ...]
    think_time: float | FloatArray
    demands: FloatArray
    servers: FloatArray
    residence_times: FloatArray
    throughput: float | FloatArray
    response_time: float | FloatArray
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
        """Alias of :attr:`utilizations` (British spelling)."""
        return self.utilizations

    @property
    def n_classes(self) -> int:
        """Number of customer classes C."""
        return 1 if self.demands.ndim == 1 else int(self.demands.shape[1])

    @property
    def n_stations(self) -> int:
        """Number of stations K."""
        return int(self.demands.shape[0])

    def __str__(self) -> str:
        population = np.atleast_1d(np.asarray(self.population))
        throughput = np.atleast_1d(np.asarray(self.throughput))
        response_time = np.atleast_1d(np.asarray(self.response_time))
        parts = []
        for c in range(self.n_classes):
            label = f"class {c + 1}: " if self.n_classes > 1 else ""
            parts.append(
                f"{label}N = {int(population[c])}, X = "
                f"{format_number(float(throughput[c]), 6)}/s, R = "
                f"{format_number(float(response_time[c]), 6)} s"
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
    one_class: bool = False,
) -> MvaResult:
    """Assemble an :class:`MvaResult` from (K, C) solver output; ``one_class`` drops the
    class axis (plain numbers per class, (K,) per station, (P, ...) per population)."""
    k_count, c_count = demands.shape
    per_server = np.where(np.isinf(servers), 1.0, servers)
    util = throughput[None, :] * demands / per_server[:, None]
    if populations is None or throughput_all is None or residence_all is None:
        populations = np.zeros((0, c_count), dtype=np.int64)
        throughput_all = np.zeros((0, c_count))
        residence_all = np.zeros((0, k_count, c_count))
    arrays = {
        "demands": demands,
        "residence_times": residence,
        "utilizations": util,
        "queue_lengths": throughput[None, :] * residence,
        "populations": populations,
        "throughput_all": throughput_all,
        "residence_times_all": residence_all,
        "response_time_all": residence_all.sum(axis=1),
        "queue_lengths_all": throughput_all[:, None, :] * residence_all,
        "utilizations_all": (
            throughput_all[:, None, :] * demands[None, :, :] / per_server[None, :, None]
        ),
    }
    response = residence.sum(axis=0)
    per_class: dict[str, Any]
    if one_class:
        arrays = {name: value[..., 0] for name, value in arrays.items()}
        per_class = {
            "population": int(pop[0]),
            "think_time": float(think[0]),
            "throughput": float(throughput[0]),
            "response_time": float(response[0]),
        }
    else:
        per_class = {
            "population": tuple(int(v) for v in pop),
            "think_time": _readonly(think),
            "throughput": _readonly(throughput),
            "response_time": _readonly(response),
        }
    frozen = {
        name: _readonly(value, np.int64 if name == "populations" else np.float64)
        for name, value in arrays.items()
    }
    return MvaResult(
        servers=_readonly(servers),
        method=method,
        iterations=int(iterations),
        **per_class,
        **frozen,
    )


