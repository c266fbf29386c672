"""Kernels of the product-form queueing-network solvers (mean value analysis).

Reference: ``docs/algorithms/calibration.md`` (exact single- and multi-class MVA,
Bard–Schweitzer approximate MVA, exact load-dependent MVA); M. Reiser and S. S. Lavenberg,
"Mean-value analysis of closed multichain queuing networks", J. ACM 27(2), 1980;
P. J. Schweitzer, "Approximate analysis of multiclass closed networks of queues", 1979.

Inputs are validated, C-contiguous arrays; nothing here raises user-facing errors.
Station kinds: 0 = delay (infinite server), 1 = single-server queue, 2 = load-dependent
station with capacity multipliers ``alpha[k, j]`` (rate ``alpha[k, j] / D_k`` with j present).
"""

from __future__ import annotations

import numpy as np

from pilotstats._kernels._jit import kernel

DELAY = 0
QUEUE = 1
LOAD_DEPENDENT = 2


# Never interpreted: the population lattice, not the size of any array, sets its cost.
@kernel
def lattice_mva(
    demands: np.ndarray,
    think: np.ndarray,
    population: np.ndarray,
    delay: np.ndarray,
    store_all: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact multi-class MVA over the population lattice ``0 <= n <= N``.

    Parameters
    ----------
    demands : ndarray of float64, shape (K, C)
        Service demand of class c at station k (seconds per response).
    think : ndarray of float64, shape (C,)
        Think time per class.
    population : ndarray of int64, shape (C,)
        Target population vector N.
    delay : ndarray of bool, shape (K,)
        True for delay (infinite-server) stations.
    store_all : bool
        Store the solution at every lattice point (else only at N).

    Returns
    -------
    throughput : ndarray of float64, shape (P, C)
        X_c(n) for every lattice point in mixed-radix (C) order, P = prod(N_c + 1);
        P = 1 (the point N) when ``store_all`` is False.
    residence : ndarray of float64, shape (P, K, C)
        Residence time per response R_kc(n).

    Notes
    -----
    Lattice points are numbered in mixed radix with the last class fastest; n − e_c has a
    smaller number than n, so one pass in index order respects the arrival theorem
    recursion R_kc(n) = D_kc (1 + Q_k(n − e_c)). Only the station totals Q_k(n) are kept for
    every point. Work O(P K C), memory O(P K).
    """
    n_stations = demands.shape[0]
    n_classes = demands.shape[1]
    strides = np.empty(n_classes, dtype=np.int64)
    size = 1
    for c in range(n_classes - 1, -1, -1):
        strides[c] = size
        size *= population[c] + 1
    totals = np.zeros((size, n_stations))
    out_points = size if store_all else 1
    throughput = np.zeros((out_points, n_classes))
    residence = np.zeros((out_points, n_stations, n_classes))
    point = np.empty(n_classes, dtype=np.int64)
    r_local = np.empty((n_stations, n_classes))
    x_local = np.empty(n_classes)
    for index in range(1, size):
        rest = index
        for c in range(n_classes):
            point[c] = rest // strides[c]
            rest -= point[c] * strides[c]
        for k in range(n_stations):
            totals[index, k] = 0.0
        for c in range(n_classes):
            if point[c] == 0:
                x_local[c] = 0.0
                for k in range(n_stations):
                    r_local[k, c] = 0.0
                continue
            previous = index - strides[c]
            cycle = think[c]
            for k in range(n_stations):
                if delay[k]:
                    r_local[k, c] = demands[k, c]
                else:
                    r_local[k, c] = demands[k, c] * (1.0 + totals[previous, k])
                cycle += r_local[k, c]
            x_local[c] = point[c] / cycle
            for k in range(n_stations):
                totals[index, k] += x_local[c] * r_local[k, c]
        if store_all:
            slot = index
        elif index == size - 1:
            slot = 0
        else:
            continue
        for c in range(n_classes):
            throughput[slot, c] = x_local[c]
            for k in range(n_stations):
                residence[slot, k, c] = r_local[k, c]
    return throughput, residence


# Interpretable: alpha holds K (N + 1) elements and the cost is up to O(N²) per
# load-dependent station, so the quadratic size limit bounds an interpreted call.
@kernel(interpret="quadratic")
def single_class_mva(
    demands: np.ndarray,
    think: float,
    population: int,
    kind: np.ndarray,
    alpha: np.ndarray,
    complement: np.ndarray,
    use_complement: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Exact single-class MVA with load-dependent stations, every n = 0..N.

    Parameters
    ----------
    demands : ndarray of float64, shape (K,)
        Service demand D_k (for a load-dependent station: demand at capacity 1).
    think : float
        Think time Z.
    population : int
        N >= 0.
    kind : ndarray of int64, shape (K,)
        0 delay, 1 single-server queue, 2 load-dependent station.
    alpha : ndarray of float64, shape (K, N + 1)
        Capacity multipliers alpha_k(j) > 0 for j = 1..N (column 0 unused); only rows of
        load-dependent stations are read. For m servers alpha_k(j) = min(j, m).
    complement : ndarray of float64, shape (K, N + 1)
        X_{−k}(n): throughput of the network without station k (row k read only where
        ``use_complement[k]``); ``inf`` when that network has no demand and no think time.
    use_complement : ndarray of bool, shape (K,)
        Obtain p_k(0 | n) from the complement network, p_k(0 | n) = p_k(0 | n−1) X(n) /
        X_{−k}(n) (= G_{−k}(n)/G(n), no subtraction), instead of 1 − Σ_{j≥1} p_k(j | n).

    Returns
    -------
    throughput : ndarray of float64, shape (N + 1,)
        X(n), with X(0) = 0.
    residence : ndarray of float64, shape (N + 1, K)
        R_k(n), residence time per response.
    min_p0 : float
        The smallest p_k(0 | n) obtained by subtraction before clamping (1.0 when no
        station uses subtraction); values below -1e-9 signal lost accuracy.
    marginals : ndarray of float64, shape (K, N + 1)
        p_k(j | N) at the final population for load-dependent stations (row k of other
        stations holds 1 at j = 0).

    Notes
    -----
    Queues: R_k(n) = D_k (1 + Q_k(n−1)); delays: R_k(n) = D_k; load-dependent stations keep
    marginals p_k(j | n) with R_k(n) = Σ_{j=1..n} j/α_k(j) D_k p_k(j−1 | n−1),
    p_k(j | n) = X(n) D_k/α_k(j) p_k(j−1 | n−1), p_k(0 | n) = 1 − Σ_{j≥1} p_k(j | n)
    (Reiser–Lavenberg load-dependent MVA). By subtraction, values of p_k(0 | n) in
    [−1e-9, 0) are clamped to 0; the complement-network ratio avoids the cancellation.
    Work O(N K) plus O(N²) per load-dependent station.
    """
    n_stations = demands.shape[0]
    throughput = np.zeros(population + 1)
    residence = np.zeros((population + 1, n_stations))
    queue = np.zeros(n_stations)
    marginals = np.zeros((n_stations, population + 1))
    for k in range(n_stations):
        marginals[k, 0] = 1.0
    min_p0 = 1.0
    for n in range(1, population + 1):
        cycle = think
        for k in range(n_stations):
            if kind[k] == 0:
                value = demands[k]
            elif kind[k] == 1:
                value = demands[k] * (1.0 + queue[k])
            else:
                value = 0.0
                for j in range(1, n + 1):
                    value += j / alpha[k, j] * demands[k] * marginals[k, j - 1]
            residence[n, k] = value
            cycle += value
        x = n / cycle
        throughput[n] = x
        for k in range(n_stations):
            queue[k] = x * residence[n, k]
            if kind[k] == 2:
                total = 0.0
                previous_p0 = marginals[k, 0]
                for j in range(n, 0, -1):
                    marginals[k, j] = x * demands[k] / alpha[k, j] * marginals[k, j - 1]
                    total += marginals[k, j]
                if use_complement[k]:
                    if np.isinf(complement[k, n]):
                        p0 = 0.0
                    else:
                        p0 = previous_p0 * x / complement[k, n]
                else:
                    p0 = 1.0 - total
                    if p0 < min_p0:
                        min_p0 = p0
                    if p0 < 0.0:
                        p0 = 0.0
                marginals[k, 0] = p0
    return throughput, residence, min_p0, marginals


# Never interpreted: the number of sweeps until convergence sets its cost.
@kernel
def schweitzer_mva(
    demands: np.ndarray,
    think: np.ndarray,
    population: np.ndarray,
    delay: np.ndarray,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Bard–Schweitzer approximate MVA fixed point at the population N.

    Parameters
    ----------
    demands : ndarray of float64, shape (K, C)
    think : ndarray of float64, shape (C,)
    population : ndarray of float64, shape (C,)
    delay : ndarray of bool, shape (K,)
    tol : float
        Stop when max |ΔQ_kc| <= tol · max(1, Q_kc).
    max_iter : int

    Returns
    -------
    throughput : ndarray of float64, shape (C,)
    residence : ndarray of float64, shape (K, C)
    iterations : int
        Number of sweeps; ``max_iter + 1`` signals no convergence.

    Notes
    -----
    Arrival estimate Q_k^(c)(N − e_c) ≈ Σ_j Q_kj(N) − Q_kc(N)/N_c; R_kc = D_kc (1 + estimate)
    (D_kc at delays), X_c = N_c/(Z_c + Σ_k R_kc), Q_kc = X_c R_kc; start Q_kc = N_c/K.
    """
    n_stations = demands.shape[0]
    n_classes = demands.shape[1]
    queue = np.empty((n_stations, n_classes))
    for k in range(n_stations):
        for c in range(n_classes):
            queue[k, c] = population[c] / n_stations
    residence = np.zeros((n_stations, n_classes))
    throughput = np.zeros(n_classes)
    totals = np.empty(n_stations)
    iterations = 0
    while True:
        iterations += 1
        for k in range(n_stations):
            total = 0.0
            for c in range(n_classes):
                total += queue[k, c]
            totals[k] = total
        for c in range(n_classes):
            cycle = think[c]
            for k in range(n_stations):
                if delay[k]:
                    residence[k, c] = demands[k, c]
                else:
                    seen = totals[k]
                    if population[c] > 0:
                        seen -= queue[k, c] / population[c]
                    residence[k, c] = demands[k, c] * (1.0 + seen)
                cycle += residence[k, c]
            throughput[c] = population[c] / cycle if population[c] > 0 else 0.0
        change = 0.0
        for k in range(n_stations):
            for c in range(n_classes):
                new = throughput[c] * residence[k, c]
                scale = abs(new) if abs(new) > 1.0 else 1.0
                delta = abs(new - queue[k, c]) / scale
                if delta > change:
                    change = delta
                queue[k, c] = new
        if change <= tol:
            return throughput, residence, iterations
        if iterations >= max_iter:
            return throughput, residence, max_iter + 1
