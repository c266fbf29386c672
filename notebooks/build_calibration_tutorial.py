"""Build notebooks/calibration_tutorial.ipynb (run: python notebooks/build_calibration_tutorial.py).

The notebook reproduces the example of M. Woodside's tutorial "Regression techniques for
performance parameter estimation" (WOSP/SIPEW 2010) end to end with pilotstats: simulate a
closed 3-station network, calibrate its demands, confidence intervals, joint regions and
contours of E, residual diagnostics, a prediction band against N with extrapolation, the F
test of a 2-queue against a 3-queue model, R and U vs R only (label switching, held
parameters, F tests on different measure sets), the utilization law, an integer server count,
open systems and trial weights. The later cells live in ``_calibration_cells.py``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from _calibration_cells import CHECKS, R_AND_U
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    new_markdown_cell(
        "# Calibrating a queueing model by regression\n\n"
        "This notebook follows the example of M. Woodside's tutorial *Regression techniques "
        "for performance parameter estimation* (WOSP/SIPEW 2010): a closed system with a "
        "think time Z = 10 s and three single-server stations whose service demands "
        "D = [2, 3, 4] s are unknown. We\n\n"
        "1. measure it (here: a seeded discrete-event simulation) at N = 1, 4, ..., 19 users,\n"
        "2. fit the demands of an MVA model by Gauss–Newton with IRLS weights,\n"
        "3. read off confidence intervals (half widths in %, H and M),\n"
        "4. check the joint confidence region against the contours of E,\n"
        "5. look at the residuals (trend, normality, lack of fit),\n"
        "6. predict the response time against N, extrapolating beyond the measured range,\n"
        "7. test whether a 3-queue model is needed rather than a 2-queue one (F test),\n"
        "8. fit response times and utilizations rather than response times alone, hold a "
        "known parameter fixed, and compare fits on different measure sets,\n"
        "9. estimate demands from throughputs and utilizations alone (utilization law),\n"
        "10. fit a server count (an integer parameter) with its interval,\n"
        "11. model an open system as a closed one and weight trials by their length,\n"
        "12. check identifiability before measuring."
    ),
    new_code_cell(
        "import sys\n"
        "from pathlib import Path\n"
        "\n"
        "try:\n"
        "    import pilotstats\n"
        "except ImportError:  # running from notebooks/ without an installed package\n"
        "    sys.path.insert(0, str(Path.cwd().parent))\n"
        "    import pilotstats\n"
        "\n"
        "import heapq\n"
        "from collections import deque\n"
        "\n"
        "import matplotlib\n"
        "import matplotlib.pyplot as plt\n"
        "import numpy as np\n"
        "\n"
        "from pilotstats.regression import (ClosedNetworkModel, calibrate, f_test,\n"
        "                                   compare_polynomials, design_diagnostics,\n"
        "                                   open_system_conditions, utilization_law_demands,\n"
        "                                   weights_from_sample_sizes)"
    ),
    new_markdown_cell(
        "## 1. Measurements\n\n"
        "A small event simulation: N users think for an exponential time (mean Z), then "
        "visit three FCFS stations with exponential service times in series. After a "
        "warm-up we record each station's mean residence time T_k (queueing + service), "
        "the throughput f (completed cycles per second) and each station's utilization U_k "
        "(busy time / measured time)."
    ),
    new_code_cell(
        "def simulate(demands, population, think, horizon=20_000.0, warmup=2_000.0, seed=0):\n"
        "    \"\"\"Mean residence times T_k, throughput f and utilizations U_k of one run.\"\"\"\n"
        "    rng = np.random.default_rng(seed)\n"
        "    k_count = len(demands)\n"
        "    events, sequence = [], 0\n"
        "    queues = [deque() for _ in range(k_count)]\n"
        "    arrival = np.zeros((population, k_count))\n"
        "    totals, counts, cycles = np.zeros(k_count), np.zeros(k_count), 0\n"
        "    busy, started = np.zeros(k_count), np.zeros(k_count)\n"
        "    for user in range(population):\n"
        "        heapq.heappush(events, (rng.exponential(think), sequence, -1, user))\n"
        "        sequence += 1\n"
        "    def arrive(now, k, user):\n"
        "        nonlocal sequence\n"
        "        arrival[user, k] = now\n"
        "        queues[k].append(user)\n"
        "        if len(queues[k]) == 1:\n"
        "            started[k] = now\n"
        "            service = rng.exponential(demands[k])\n"
        "            heapq.heappush(events, (now + service, sequence, k, user))\n"
        "            sequence += 1\n"
        "    while events:\n"
        "        now, _, k, user = heapq.heappop(events)\n"
        "        if now > horizon:\n"
        "            break\n"
        "        if k == -1:\n"
        "            arrive(now, 0, user); continue\n"
        "        queues[k].popleft()\n"
        "        busy[k] += now - max(started[k], warmup) if now >= warmup else 0.0\n"
        "        if arrival[user, k] >= warmup:\n"
        "            totals[k] += now - arrival[user, k]; counts[k] += 1\n"
        "        if queues[k]:\n"
        "            started[k] = now\n"
        "            heapq.heappush(events, (now + rng.exponential(demands[k]), sequence, k,\n"
        "                                    queues[k][0])); sequence += 1\n"
        "        if k + 1 < k_count:\n"
        "            arrive(now, k + 1, user)\n"
        "        else:\n"
        "            cycles += now >= warmup\n"
        "            heapq.heappush(events, (now + rng.exponential(think), sequence, -1, user))\n"
        "            sequence += 1\n"
        "    span = horizon - warmup\n"
        "    return np.concatenate([totals / counts, [cycles / span], busy / span])\n"
        "\n"
        "TRUE_D = [2.0, 3.0, 4.0]\n"
        "Z = 10.0\n"
        "populations = np.arange(1, 20, 3)\n"
        "runs = np.array([simulate(TRUE_D, n, Z, seed=int(n)) for n in populations])\n"
        "z, u = runs[:, :4], runs[:, 4:]   # T1, T2, T3, f and the utilizations U1..U3\n"
        "print('   N      T1      T2      T3       f      U1      U2      U3')\n"
        "for n, row in zip(populations, runs):\n"
        "    print(f'{n:4d} ' + ' '.join(f'{v:7.4f}' for v in row))"
    ),
    new_markdown_cell(
        "## 2. Calibration\n\n"
        "The model `h(params, N)` is exact MVA for the 3-station network with Z = 10 s; it returns "
        "T_1, T_2, T_3 and f. The default weighting is IRLS (weights 1/y(x̂)², i.e. a constant "
        "coefficient of variation), which our Monte Carlo study "
        "(tests/test_calibration_slow.py) shows gives nominal CI "
        "coverage, unlike OLS."
    ),
    new_code_cell(
        "model = ClosedNetworkModel(3, think_time=Z)\n"
        "fit = calibrate(model, populations, z, x0=[1.0, 1.0, 1.0])\n"
        "print(fit.summary())"
    ),
    new_code_cell(
        "ols = calibrate(model, populations, z, x0=[1.0, 1.0, 1.0], weights=None)\n"
        "print('OLS for comparison (its intervals are too wide for D1, too narrow for D3):')\n"
        "print(ols.summary())"
    ),
    new_markdown_cell(
        "## 3. Confidence intervals\n\n"
        "Marginal 95 % intervals x̂_i ± t_{0.975; dof} se_i from P = mse·M⁻¹; the true "
        "demands were 2, 3 and 4 s."
    ),
    new_code_cell(
        "for name, est, lo, hi, true in zip(fit.parameter_names, fit.params, fit.ci_low,\n"
        "                                   fit.ci_high, TRUE_D):\n"
        "    flag = 'covers' if lo <= true <= hi else 'MISSES'\n"
        "    print(f'{name}: {est:.4f} s, 95 % CI [{lo:.4f}, {hi:.4f}] s -> {flag} '\n"
        "          f'the true {true}')\n"
        "print('condition number of M:', round(fit.condition_number, 2))"
    ),
    *CHECKS,
    new_markdown_cell(
        "## 6. Prediction band against N (with extrapolation)\n\n"
        "`fit.predict(N)` returns ŷ and C = H P Hᵀ per condition; the response time "
        "R = T_1 + T_2 + T_3 is a linear combination, with variance aᵀCa. The band widens "
        "beyond the measured range (N > 19)."
    ),
    new_code_cell(
        "grid = np.arange(1, 41)\n"
        "mean = fit.predict(grid)\n"
        "r_hat, r_half = mean.combine([1.0, 1.0, 1.0, 0.0])\n"
        "new = fit.prediction_interval(grid)\n"
        "fig, ax = plt.subplots(figsize=(7, 4))\n"
        "ax.fill_between(grid, r_hat - r_half, r_hat + r_half, alpha=0.4,\n"
        "                label='95 % CI of the mean response time')\n"
        "ax.plot(grid, r_hat, label='calibrated MVA model')\n"
        "ax.plot(populations, z[:, :3].sum(axis=1), 'o', label='measured')\n"
        "ax.axvline(19, ls=':', color='grey')\n"
        "ax.set_xlabel('users N'); ax.set_ylabel('response time R (s)'); ax.legend()\n"
        "plt.close(fig)\n"
        "for n in (10, 19, 30, 40):\n"
        "    print(f'N = {n:2d}: R = {r_hat[n - 1]:7.2f} s ± {r_half[n - 1]:.2f} s (95 % CI)')\n"
        "fig"
    ),
    new_markdown_cell(
        "## 7. How many queues? F test of nested models\n\n"
        "Suppose only the response time R and the throughput f were measured. Is a 3-queue "
        "model needed, or do 2 queues suffice? The 2-queue model is the 3-queue model with "
        "one demand fixed at 0, so the extra-sum-of-squares F test applies (same weights "
        "for both fits: the IRLS weights of the larger model). From R and f alone the best "
        "fits often have two *equal* demands (R(N) is symmetric in the demands), which the "
        "data cannot tell apart: pilotstats warns and names them (`IdentifiabilityWarning`), "
        "the intervals of those two demands are huge, yet the sums of squares, and so the F "
        "test, are well defined. Nor can R and f say which queue is which "
        "(`LabelSwitchingWarning`, section 8)."
    ),
    new_code_cell(
        "import warnings\n"
        "from pilotstats.exceptions import IdentifiabilityWarning\n"
        "\n"
        "rf = np.column_stack([z[:, :3].sum(axis=1), z[:, 3]])\n"
        "three = ClosedNetworkModel(3, think_time=Z, measures=('response_time', 'throughput'))\n"
        "two = ClosedNetworkModel(2, think_time=Z, measures=('response_time', 'throughput'))\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always', IdentifiabilityWarning)\n"
        "    full = calibrate(three, populations, rf, x0=[1.0, 1.5, 2.0])\n"
        "    restricted = calibrate(two, populations, rf, x0=[1.0, 2.0])\n"
        "for w in caught:\n"
        "    print('warning:', w.message)\n"
        "print('3 queues:', full)\n"
        "print('2 queues:', restricted)\n"
        "test = f_test(restricted, full)\n"
        "print(test)\n"
        "print('a third queue is needed' if test.p_value < 0.05 else '2 queues suffice')"
    ),
    *R_AND_U,
    new_markdown_cell(
        "## 12. Why measure per station? Identifiability\n\n"
        "With the response time alone a quadratic in N fits about as well as the queueing "
        "model, and throughput alone at light load identifies only ΣD. "
        "`design_diagnostics` checks a planned experiment before measuring."
    ),
    new_code_cell(
        "print('T1..T3 and f over N = 1..19:', design_diagnostics(model, populations, TRUE_D,\n"
        "                                                        weights='irls'))\n"
        "light = ClosedNetworkModel(3, think_time=Z, measures=('throughput',))\n"
        "diag = design_diagnostics(light, [1, 1, 1, 1], TRUE_D)\n"
        "print('f only, four runs at N = 1:', diag)\n"
        "print(diag.message())\n"
        "print()\n"
        "print(compare_polynomials(populations, z[:, :3].sum(axis=1), degrees=range(1, 5)).table())"
    ),
]


def build() -> nbformat.NotebookNode:
    """Return the notebook object (without outputs)."""
    notebook = new_notebook(cells=CELLS)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return notebook


def write(path: Path | None = None) -> Path:
    """Write the notebook (without outputs) and return its path."""
    target = path or Path(__file__).with_name("calibration_tutorial.ipynb")
    nbformat.write(build(), target)
    return target


if __name__ == "__main__":
    print(write())
