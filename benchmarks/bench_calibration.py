"""Benchmark: MVA solvers and a full calibration loop (calibration spec §11, issue 6).

Run from the repository root:

    python benchmarks/bench_calibration.py

Times, in one run and on the same inputs:
1. exact two-class MVA of a 10-station network at N = (50, 50) (2 601 lattice points):
   pilotstats ``mva`` (numba kernel) vs a plain-Python MVA and a numpy-vectorised MVA;
2. exact single-class MVA, 3 stations, N = 5 000 (the open-as-closed size of spec §2.6);
3. full IRLS calibrations (3-station / 7 populations, and the two-class 56-trial example of
   spec §9): ``calibrate`` with the compiled model vs the same fit driven by the plain-Python
   solver, and scipy ``least_squares`` on the same objective (fixed final weights).

line-solver (the spec's other oracle) is not timed: it needs a ~600 MB install (JVM) and
its NC solver takes 13–200 s on tiny models (spec §11).
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _compiled  # noqa: E402, F401
import numba  # noqa: E402
import scipy  # noqa: E402
from scipy.optimize import least_squares  # noqa: E402

import pilotstats  # noqa: E402
from pilotstats.regression import ClosedNetworkModel, calibrate, mva  # noqa: E402
from tests.naive_queueing import plain_python_mva  # noqa: E402


def best_of(func, repeat: int = 5, number: int = 1) -> float:
    """Minimum over ``repeat`` runs of the mean time of ``number`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def numpy_mva(demands: np.ndarray, population: tuple[int, int], think: np.ndarray):
    """Exact two-class MVA vectorised over stations with numpy (a typical numpy port)."""
    n1, n2 = population
    k_count = demands.shape[0]
    totals = np.zeros((n1 + 1, n2 + 1, k_count))
    residence = np.zeros_like(demands)
    throughput = np.zeros(2)
    for a in range(n1 + 1):
        for b in range(n2 + 1):
            if a == b == 0:
                continue
            q = np.zeros(k_count)
            for c, (n_c, previous) in enumerate(((a, (a - 1, b)), (b, (a, b - 1)))):
                if n_c == 0:
                    throughput[c] = 0.0
                    continue
                r = demands[:, c] * (1.0 + totals[previous])
                throughput[c] = n_c / (think[c] + r.sum())
                residence[:, c] = r
                q += throughput[c] * r
            totals[a, b] = q
    return residence, throughput


def fmt(seconds: float) -> str:
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def plain_model_factory(n_stations: int, think: float):
    """A calibration model h(x, N) solved by the plain-Python MVA (one solve per trial)."""

    def model(x, n):
        residence, throughput = plain_python_mva([[v] for v in x], [int(n)], [think])
        return np.array([row[0] for row in residence] + throughput)

    return model


def main() -> None:
    rows: list[tuple[str, float, str, float]] = []
    print(f"pilotstats {pilotstats.__version__}, numpy {np.__version__}, scipy "
          f"{scipy.__version__}, numba {numba.__version__}")
    print(f"Python {platform.python_version()} on {platform.machine()} "
          f"({platform.processor() or platform.platform()})\n")

    # 1. 10-station, 2-class network at N = (50, 50)
    rng = np.random.default_rng(42)
    demands = rng.uniform(0.05, 1.0, (10, 2))
    think = np.array([5.0, 20.0])
    population = (50, 50)
    start = time.perf_counter()
    mva(demands, population, think_time=think)
    first = time.perf_counter() - start
    ours = mva(demands, population, think_time=think)
    plain_r, _plain_x = plain_python_mva(demands.tolist(), list(population), think.tolist())
    _np_r, np_x = numpy_mva(demands, population, think)
    np.testing.assert_allclose(ours.residence_times, plain_r, rtol=1e-12)
    np.testing.assert_allclose(ours.throughput, np_x, rtol=1e-12)
    t_ours = best_of(lambda: mva(demands, population, think_time=think), repeat=7, number=20)
    t_plain = best_of(
        lambda: plain_python_mva(demands.tolist(), list(population), think.tolist()), repeat=3
    )
    t_numpy = best_of(lambda: numpy_mva(demands, population, think), repeat=3)
    print(f"first call of mva incl. JIT compile/cache load: {fmt(first)}")
    rows.append(("mva 10 stations × 2 classes, N = (50, 50)", t_ours, "plain Python", t_plain))
    rows.append(("mva 10 stations × 2 classes, N = (50, 50)", t_ours, "numpy per point", t_numpy))

    # 2. single class, N = 5000
    d3 = np.array([2.0, 3.0, 4.0])
    t_single = best_of(lambda: mva(d3, 5000, think_time=25000.0), repeat=7, number=20)
    t_single_plain = best_of(
        lambda: plain_python_mva([[2.0], [3.0], [4.0]], [5000], [25000.0]), repeat=3
    )
    rows.append(("mva 3 stations, N = 5 000", t_single, "plain Python", t_single_plain))

    # 3a. single-class IRLS calibration, 7 populations, T_1..T_3 and f
    model = ClosedNetworkModel(3, think_time=10.0)
    populations = list(range(1, 20, 3))
    z = model.evaluate_all(d3, populations)
    z = z * (1 + 0.05 * rng.standard_normal(z.shape))
    fit = calibrate(model, populations, z, [1.0, 1.0, 1.0])
    plain = plain_model_factory(3, 10.0)
    fit_plain = calibrate(plain, populations, z, [1.0, 1.0, 1.0])
    np.testing.assert_allclose(fit.params, fit_plain.params, rtol=1e-9)
    t_fit = best_of(lambda: calibrate(model, populations, z, [1.0, 1.0, 1.0]), repeat=5)
    t_fit_plain = best_of(lambda: calibrate(plain, populations, z, [1.0, 1.0, 1.0]), repeat=3)
    weights = np.sqrt(np.asarray(fit.weights))

    def ls_single():
        return least_squares(
            lambda x: (weights * (z - model.evaluate_all(x, populations))).ravel(),
            [1.0, 1.0, 1.0],
            bounds=(0, np.inf),
        )

    t_ls = best_of(ls_single, repeat=5)
    print(f"3-station IRLS fit: {fit.iterations} GN iterations, {fit.irls_passes} passes, "
          f"{fit.n_evaluations} model evaluations")
    rows.append(("calibrate IRLS, 3 stations, 7 populations", t_fit, "same, plain-Python MVA",
                 t_fit_plain))
    rows.append(("calibrate IRLS, 3 stations, 7 populations", t_fit,
                 "scipy least_squares (1 fixed-weight pass)", t_ls))

    # 3b. two-class example of spec §9: 56 trials × 8 measures
    model2 = ClosedNetworkModel(3, classes=2, think_time=[10.0, 30.0])
    grid = [(a, b) for a in range(1, 20, 3) for b in range(1, 30, 4)]
    true2 = np.array([[2.0, 5.0], [3.0, 10.0], [4.0, 1.0]]).ravel()
    z2 = model2.evaluate_all(true2, grid)
    z2 = z2 * (1 + 0.05 * rng.standard_normal(z2.shape))
    fit2 = calibrate(model2, grid, z2, np.ones(6))
    t_fit2 = best_of(lambda: calibrate(model2, grid, z2, np.ones(6)), repeat=3)

    def plain2(x, u):
        residence, throughput = plain_python_mva(
            np.asarray(x).reshape(3, 2).tolist(), list(u), [10.0, 30.0]
        )
        return np.array([v for row in residence for v in row] + throughput)

    t_fit2_plain = best_of(lambda: calibrate(plain2, grid, z2, np.ones(6)), repeat=1)
    print(f"two-class IRLS fit: dof {fit2.dof}, cond(M) {fit2.condition_number:.3g}, "
          f"{fit2.n_evaluations} model evaluations")
    rows.append(("calibrate IRLS, 2 classes, 56 trials (spec §9)", t_fit2,
                 "same, plain-Python MVA per trial", t_fit2_plain))

    print()
    print("| case | pilotstats | peer | peer time | ratio pilotstats/peer |")
    print("|---|---|---|---|---|")
    for case, ours_t, peer, peer_t in rows:
        print(f"| {case} | {fmt(ours_t)} | {peer} | {fmt(peer_t)} | {ours_t / peer_t:.3g} |")


if __name__ == "__main__":
    main()
