"""Brute-force references for the queueing solvers (no MVA recursion).

Product-form (BCMP) state enumeration: the stationary probability of a closed network with
single-server processor-sharing/FCFS queues, multi-server stations and delays is

    P(n) ∝ Π_k f_k(n_k),   f_k = n_k! Π_c D_kc^{n_kc} / n_kc!  / Π_{j<=n_k} α_k(j)

(queue with capacity α_k(j) = min(j, m_k) for m_k servers; for a delay f_k = Π_c D_kc^{n_kc}
/ n_kc!). Think time is a delay station. Throughput X_c = E[n_Zc]/Z_c or, equivalently,
G(N − e_c)/G(N); residence time T_kc = E[n_kc]/X_c by Little's law. Exponential cost:
only for tiny populations.

Also a plain-Python exact single-class MVA used by the benchmark as the "plain Python"
baseline.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _compositions(total: int, parts: int):
    """All tuples of ``parts`` non-negative integers summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _station_factor(counts, demands_k, servers_k):
    n = sum(counts)
    value = 1.0
    for c, count in enumerate(counts):
        value *= demands_k[c] ** count / math.factorial(count)
    if math.isinf(servers_k):
        return value
    value *= math.factorial(n)
    for j in range(1, n + 1):
        value /= min(j, servers_k)
    return value


def _normalising(demands, think, population, servers):
    """G(N) with think time as an extra delay station, by enumeration."""
    k_count, c_count = demands.shape
    ext_d = np.vstack([demands, think[None, :]])
    ext_m = [*servers, math.inf]
    per_class = [list(_compositions(int(population[c]), k_count + 1)) for c in range(c_count)]
    total = 0.0
    queues = np.zeros((k_count, c_count))
    for combo in itertools.product(*per_class):
        weight = 1.0
        for k in range(k_count + 1):
            counts = tuple(combo[c][k] for c in range(c_count))
            weight *= _station_factor(counts, ext_d[k], ext_m[k])
        total += weight
        for k in range(k_count):
            for c in range(c_count):
                queues[k, c] += weight * combo[c][k]
    return total, queues / total


def product_form_solution(demands, population, think_time, servers=None):
    """Brute-force exact solution: residence times (K, C) and throughputs (C,).

    Parameters
    ----------
    demands : array_like, shape (K, C)
    population : sequence of int, length C
    think_time : sequence of float, length C (> 0 where the class is populated)
    servers : sequence of float, length K (inf = delay), default all 1
    """
    demands = np.asarray(demands, dtype=float)
    population = [int(v) for v in population]
    think = np.asarray(think_time, dtype=float)
    servers = [1.0] * demands.shape[0] if servers is None else list(servers)
    g, queues = _normalising(demands, think, population, servers)
    throughput = np.zeros(demands.shape[1])
    for c in range(demands.shape[1]):
        if population[c] == 0:
            continue
        reduced = list(population)
        reduced[c] -= 1
        g_minus, _ = _normalising(demands, think, reduced, servers)
        throughput[c] = g_minus / g
    residence = np.where(throughput > 0, queues / np.where(throughput > 0, throughput, 1), 0)
    return residence, throughput


def plain_python_mva(demands, population, think_time):
    """Exact multi-class MVA in plain Python lists (benchmark baseline, spec §2.2).

    Parameters
    ----------
    demands : list of list of float, K × C
    population : list of int, length C
    think_time : list of float, length C

    Returns
    -------
    residence : list of list of float (K × C), throughput : list of float (C)
    """
    k_count = len(demands)
    c_count = len(population)
    sizes = [n + 1 for n in population]
    strides = [1] * c_count
    for c in range(c_count - 2, -1, -1):
        strides[c] = strides[c + 1] * sizes[c + 1]
    total_points = strides[0] * sizes[0]
    totals = [[0.0] * k_count for _ in range(total_points)]
    residence = [[0.0] * c_count for _ in range(k_count)]
    throughput = [0.0] * c_count
    for index in range(1, total_points):
        rest = index
        point = []
        for c in range(c_count):
            point.append(rest // strides[c])
            rest -= point[c] * strides[c]
        row = totals[index]
        for c in range(c_count):
            if point[c] == 0:
                throughput[c] = 0.0
                continue
            previous = totals[index - strides[c]]
            cycle = think_time[c]
            for k in range(k_count):
                residence[k][c] = demands[k][c] * (1.0 + previous[k])
                cycle += residence[k][c]
            throughput[c] = point[c] / cycle
            for k in range(k_count):
                row[k] += throughput[c] * residence[k][c]
    return residence, throughput
