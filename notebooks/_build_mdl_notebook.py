"""Build ``notebooks/mdl_trend.ipynb`` (run: ``python notebooks/_build_mdl_notebook.py``).

The notebook is saved without outputs; ``tests/test_mdl_notebook.py`` executes it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    new_markdown_cell(
        "# MDL trend analysis: groups, regressions, progressions and compliance\n\n"
        "`pilotstats.changepoints.mdl_partition` reproduces FD.io CSIT's trend analysis "
        "(the `jumpavg` library): a series of test results is split into groups of "
        "normally distributed samples by minimum description length, and each group is "
        "labelled against the previous one. `trend_compliance` computes CSIT's dashboard "
        "metrics (last trend, reference, long-term change, recent anomalies)."
    ),
    new_code_cell(
        "import numpy as np\n"
        "import matplotlib.pyplot as plt\n"
        "from pilotstats.changepoints import mdl_partition, trend_compliance\n\n"
        "rng = np.random.default_rng(7)\n"
        "levels = [(14.0, 80), (13.4, 40), (13.45, 30), (14.2, 50)]\n"
        "throughput = np.concatenate([rng.normal(mu, 0.12, n) for mu, n in levels])\n"
        "throughput[30] = 12.6   # one bad run\n"
        "groups = mdl_partition(throughput)   # higher is better (throughput, Mpps)\n"
        "print(groups)\n"
        "for g in groups.groups:\n"
        "    print(g)"
    ),
    new_markdown_cell(
        "Each group's mean is a step with its 95 % confidence interval (dark band: the "
        "group is an i.i.d. normal sample in the MDL model) and ± its standard deviation "
        "(light band); dashed lines and triangles mark the first run of a group labelled "
        "regression (red) or progression (green), as on the CSIT dashboard. The title "
        "states the newest level with its interval."
    ),
    new_code_cell(
        "fig, ax = plt.subplots(figsize=(10, 4), layout='constrained')\n"
        "groups.plot(throughput, ax=ax, ylabel='throughput', unit='Mpps')\n"
        "print(f'figure: {len(groups.groups)} group means with intervals; {ax.get_title()}')\n"
        "plt.show()"
    ),
    new_markdown_cell(
        "Compliance with runs standing in for time (10 runs ≈ one week, 180 runs ≈ three "
        "months): the reference is the best trend in the window, the long-term change "
        "(CSIT's trend change) is relative to it."
    ),
    new_code_cell(
        "compliance = trend_compliance(groups, short_window=10, long_window=180)\n"
        "print(compliance)\n"
        "print(f'long-term change: {compliance.long_term_change_percent:.2f} %')\n"
        "compliance.to_dict()"
    ),
    new_markdown_cell(
        "Latency-like metrics: `higher_is_better=False` swaps the labels (a lower mean is a "
        "progression); the partition itself does not change. Runs of trials are never split."
    ),
    new_code_cell(
        "latency = 1.0 / throughput\n"
        "lat = mdl_partition(latency, higher_is_better=False)\n"
        "print([g.classification for g in lat.groups])\n"
        "print(lat.boundaries.tolist() == groups.boundaries.tolist())\n"
        "trials = [list(rng.normal(mu, 0.1, 3)) for mu in [10.0] * 20 + [9.5] * 10]\n"
        "print(mdl_partition(trials))"
    ),
]


def build() -> nbformat.NotebookNode:
    notebook = new_notebook(cells=CELLS)
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    return notebook


if __name__ == "__main__":
    path = Path(__file__).with_name("mdl_trend.ipynb")
    nbformat.write(build(), path)
    print(f"wrote {path}")
