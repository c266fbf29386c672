"""Cells of notebooks/calibration_tutorial.ipynb that walk through the rest of Woodside's
workflow (issue 25): joint regions, residual diagnostics, R and U, the utilization law,
integer parameters, open systems and trial lengths. Imported by build_calibration_tutorial.py.
"""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell

CHECKS = [
    new_markdown_cell(
        "The table gives each interval's half width also in % of the estimate, as the "
        "tutorial tabulates it. Behind the intervals are the sensitivities H_t = ∂h/∂x at "
        "x̂ (`fit.sensitivity`, one T × m × n array) and M = Σ H_tᵀ W_t H_t "
        "(`fit.information`), with P = mse · M⁻¹ (slide 23)."
    ),
    new_code_cell(
        "print('H at N = 19 (rows T1, T2, T3, f; columns D1, D2, D3):')\n"
        "print(np.round(fit.sensitivity[-1], 3))\n"
        "print('M =')\n"
        "print(np.round(fit.information, 1))\n"
        "print('P = mse M^-1 reproduces the covariance:',\n"
        "      np.allclose(fit.covariance, fit.mse * np.linalg.inv(fit.information)))"
    ),
    new_markdown_cell(
        "## 4. Joint confidence region: contours of E\n\n"
        "The tutorial plots contours of E (the weighted sum of squares S) around the "
        "estimate (slides 38-40): if they are nearly elliptical, the linearised intervals "
        "are trustworthy. `confidence_region` draws the linearised 95 % ellipse of two "
        "parameters and the exact contour S = S(x̂)(1 + 2F/dof) of the profile of S (the "
        "third demand refitted at each grid point), and reports on how much of the grid "
        "the two agree."
    ),
    new_code_cell(
        "region = fit.confidence_region(pair=('D2', 'D3'))\n"
        "print(region)\n"
        "verdict = 'nearly elliptical' if region.agreement > 0.95 else 'NOT elliptical'\n"
        "print(f'contours of E are {verdict}: the linearised intervals are '\n"
        "      + ('supported' if region.agreement > 0.95 else 'doubtful'))\n"
        "ax = region.plot()\n"
        "ax.figure"
    ),
    new_markdown_cell(
        "## 5. Residual diagnostics: look at the predictions\n\n"
        "Slide 47: look at the model's predictions; a trend of the residuals against the load "
        "indicates additional resource use the model lacks. `residual_diagnostics` "
        "standardises the residuals and tests a (quadratic) trend against N per measure, "
        "normality (Shapiro–Wilk) and, with replicated conditions, lack of fit."
    ),
    new_code_cell(
        "diagnostics = fit.residual_diagnostics()\n"
        "print(diagnostics)\n"
        "ax = diagnostics.plot(xlabel='users N')\n"
        "ax.figure"
    ),
    new_markdown_cell(
        "For contrast, a system whose third station needs 2 % more time per extra user "
        "(say, a growing data structure): the constant-demand model fits it, but the "
        "residuals show the trend."
    ),
    new_code_cell(
        "rng = np.random.default_rng(5)\n"
        "growing = np.array([model(np.array([2.0, 3.0, 4.0 * (1 + 0.02 * n)]), n)\n"
        "                    for n in populations])\n"
        "growing *= 1 + 0.02 * rng.standard_normal(growing.shape)\n"
        "drift = calibrate(model, populations, growing, x0=[1.0, 1.0, 1.0])\n"
        "print(drift.residual_diagnostics())"
    ),
]

R_AND_U = [
    new_markdown_cell(
        "## 8. R and U vs R only: which queue is which?\n\n"
        "The F test above fitted response time and throughput only. Those measures are "
        "symmetric in the demands, so a fit cannot tell the stations apart: pilotstats "
        "checks the permutations of the fitted demands and raises a "
        "`LabelSwitchingWarning` when swapping them leaves S unchanged (the tutorial's "
        "advice, slide 47: fix one of two interchangeable parameters). Measuring the "
        "utilizations as well (slides 31-32, \"R and U vs R only\") identifies every "
        "station."
    ),
    new_code_cell(
        "from pilotstats.exceptions import LabelSwitchingWarning\n"
        "\n"
        "r_only = ClosedNetworkModel(3, think_time=Z, measures=('response_time', 'throughput'))\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always', IdentifiabilityWarning)\n"
        "    swapped = calibrate(r_only, populations, rf, x0=[3.5, 2.5, 1.5])\n"
        "for w in caught:\n"
        "    if issubclass(w.category, LabelSwitchingWarning):\n"
        "        print('warning:', str(w.message)[:110], '...')\n"
        "print('R and f only, start [3.5, 2.5, 1.5]:', swapped)\n"
        "print('interchangeable:', swapped.interchangeable)\n"
        "\n"
        "r_and_u = ClosedNetworkModel(3, think_time=Z, measures=('response_time', 'utilizations'))\n"
        "ru = np.column_stack([z[:, :3].sum(axis=1), u])\n"
        "both = calibrate(r_and_u, populations, ru, x0=[3.5, 2.5, 1.5])\n"
        "print('R and U:', both)\n"
        "held = calibrate(r_and_u, populations, ru, x0=[1.0, 1.0, 1.0], fixed={'D1': 2.0})\n"
        "print()\n"
        "print('D1 held at a known 2 s (fixed=):')\n"
        "print(held.summary())"
    ),
    new_markdown_cell(
        "Models fitted on different measure sets can still be compared: `f_test` refits "
        "both on the measures they share (here R) with common weights, as the tutorial "
        "compares its fits on m = 8 and m = 6 measures; `form='tutorial'` gives the ratio "
        "of the two fits' mean squared errors instead (a rough guide)."
    ),
    new_code_cell(
        "two_r = ClosedNetworkModel(2, think_time=Z, measures=('response_time',))\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore', IdentifiabilityWarning)\n"
        "    two_queues = calibrate(two_r, populations, ru[:, :1], x0=[1.0, 2.0])\n"
        "    print(f_test(two_queues, both))\n"
        "    print(f_test(two_queues, both, form='tutorial'))"
    ),
    new_markdown_cell(
        "## 9. Only throughputs and utilizations: the utilization law\n\n"
        "Without response times, the utilization law U_k = X D_k gives the demands "
        "directly: per station, a regression of U on X through the origin with a t "
        "interval (`weights='relative'` for a constant coefficient of variation)."
    ),
    new_code_cell(
        "law = utilization_law_demands(z[:, 3], u, weights='relative')\n"
        "print(law)\n"
        "for k, true in enumerate(TRUE_D):\n"
        "    flag = 'covers' if law.ci_low[k] <= true <= law.ci_high[k] else 'misses'\n"
        "    print(f'D{k + 1}: ± {law.half_width_percent[k]:.2f} %, {flag} the true {true}')"
    ),
    new_markdown_cell(
        "## 10. An integer parameter: how many servers?\n\n"
        "A server count is an integer parameter (`integer=`): pilotstats fits the demands for "
        "each count and searches ±1 neighbours. Its interval comes from the profile of E "
        "(the demands refitted at m ± 1), where it crosses S(x̂)(1 + F/dof), as the "
        "tutorial reports half widths for integers."
    ),
    new_code_cell(
        "counted = ClosedNetworkModel(3, think_time=Z, server_parameters=[2])\n"
        "servers = calibrate(counted, populations, z, x0=[1.0, 1.0, 1.0, 2.0], integer=[3])\n"
        "print(servers.summary())\n"
        "print('profile of S over m3:', {k[0]: round(v, 5) for k, v in servers.integer_profile})"
    ),
    new_markdown_cell(
        "## 11. Open systems and trials of different lengths\n\n"
        "An open system (arrivals at a measured rate f_t) is fitted with a closed model of "
        "large population N and think time N/f_t (slides 46, 49): "
        "`open_system_conditions` builds those [N, Z_t] rows. Trials of different lengths "
        "are weighted by their sample sizes, since the variance of a mean over S samples is "
        "about proportional to 1/S (slide 15): here the number of completed cycles, "
        "f · 18 000 s."
    ),
    new_code_cell(
        "rates = np.array([0.05, 0.1, 0.15, 0.2])\n"
        "open_model = ClosedNetworkModel(3, measures=('residence_times',))\n"
        "rows = open_system_conditions(rates, population=2000)\n"
        "rng = np.random.default_rng(8)\n"
        "observed = open_model.evaluate_all(np.array(TRUE_D), rows)\n"
        "observed *= 1 + 0.02 * rng.standard_normal(observed.shape)\n"
        "print('first condition row [N, Z]:', rows[0])\n"
        "print('open system:', calibrate(open_model, rows, observed, x0=[1.0, 1.0, 1.0]))\n"
        "\n"
        "cycles = z[:, 3] * 18_000.0\n"
        "by_length = calibrate(model, populations, z, x0=[1.0, 1.0, 1.0],\n"
        "                      weights=weights_from_sample_sizes(cycles))\n"
        "print('weighted by trial length:', by_length)"
    ),
]
