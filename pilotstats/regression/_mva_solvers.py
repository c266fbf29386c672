"""Exact MVA drivers around the numba kernels: single-class (load-dependent) MVA with idle
probabilities from complement networks, the multi-class population lattice and Seidmann's
split of multi-server stations (``docs/algorithms/calibration.md``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats import _config
from pilotstats._kernels import queueing as _kq
from pilotstats.exceptions import NumericalAccuracyWarning
from pilotstats.regression._queueing_results import (
    FloatArray,
    MvaResult,
    _finish,
)


def _seidmann_transform(
    demands: FloatArray, servers: FloatArray
) -> tuple[FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Split each m-server queue into a queue D/m and a delay D(m−1)/m."""
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
    capacity = np.ones((k_count, population + 1))
    j = np.arange(population + 1, dtype=np.float64)
    for k in range(k_count):
        if math.isinf(servers[k]):
            kind[k] = _kq.DELAY
        elif servers[k] == 1:
            kind[k] = _kq.QUEUE
        else:
            kind[k] = _kq.LOAD_DEPENDENT
            capacity[k] = np.maximum(np.minimum(j, servers[k]), 1.0)
    throughput, residence, min_p0, marginals = _solve_single(
        np.ascontiguousarray(demands, dtype=np.float64), float(think), int(population), kind,
        capacity,
    )
    _warn_p0(min_p0)
    return throughput, residence, marginals


def _solve_single(
    demands: FloatArray,
    think: float,
    population: int,
    kind: npt.NDArray[np.int64],
    capacity: FloatArray,
) -> tuple[FloatArray, FloatArray, float, FloatArray]:
    """Run the single-class kernel with idle probabilities from complement networks.

    For each load-dependent station k (up to ``MVA_COMPLEMENT_MAX_STATIONS`` of them) the
    network without k is solved first (recursively), and p_k(0 | n) = G_{−k}(n)/G(n) =
    Π_{i<=n} X(i)/X_{−k}(i) replaces the subtraction 1 − Σ_{j>=1} p_k(j | n), which loses
    all accuracy when p_k(0 | n) is tiny (many servers behind a bottleneck).
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
                np.ascontiguousarray(kind[keep]), np.ascontiguousarray(capacity[keep]),
            )
            complement[k] = x_rest
    throughput, residence, min_p0, marginals = _kq.single_class_mva(
        demands, float(think), int(population), kind, capacity, complement, use_complement
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
    one_class: bool = False,
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
        demands, srv, think, pop, residence[-1], throughput[-1], method, one_class=one_class,
        **extra,
    )


def _seidmann_exact(
    total: FloatArray,
    pop: FloatArray,
    think: FloatArray,
    srv: FloatArray,
    all_populations: bool,
    one_class: bool = False,
) -> MvaResult:
    split, delay, owner = _seidmann_transform(total, srv)
    return _lattice(
        split, pop, think, srv, delay, all_populations, "seidmann", owner, total.shape[0], total,
        one_class,
    )
