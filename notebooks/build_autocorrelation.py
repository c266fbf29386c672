"""Build ``notebooks/autocorrelation.ipynb``: subsession analysis of autocorrelated samples.

Run ``python notebooks/build_autocorrelation.py`` to rewrite the notebook (without outputs).
"""

from __future__ import annotations

from typing import Any

from _cells import notebook_from_cells, write_notebook

CELLS = [
    ("markdown", """# How sure are we, and how long must we run?

Consecutive benchmark samples are usually **autocorrelated**: a slow request makes the next
one slow, a busy period lasts. The textbook interval `mean ± t·s/√n` assumes independence and
is then far too narrow. `pilotstats.autocorrelation` implements Pilot's subsession analysis
(Ferrari 1978; Li et al., MASCOTS 2016): average consecutive samples in blocks of `q` until
the block means are nearly uncorrelated, then build the interval from the block means."""),
    ("code", """%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from pilotstats.autocorrelation import (lag1_autocorrelation, optimal_subsession_size,
    subsession_analysis, required_sample_size, compare_subsession_means)
from pilotstats.plotting import plot_half_width
from pilotstats.datasets import ferrari_response_times

x = ferrari_response_times()
print(f"n = {x.size}, lag-1 autocorrelation = {lag1_autocorrelation(x):.3f}")
for q in range(1, 6):
    print(f"q = {q}: r1 of block means = {lag1_autocorrelation(x, q):+.3f}")
print("optimal subsession size:", optimal_subsession_size(x))"""),
    ("markdown", """## The interval: naive vs subsession

With `q = 4` the block means have `|r1| = 0.08 <= 0.1`; the interval is almost twice as wide
as the naive one, and honest."""),
    ("code", """naive = subsession_analysis(x, subsession_size=1, unit="s")
honest = subsession_analysis(x, unit="s")
print("naive     :", naive)
print("subsession:", honest)
honest"""),
    ("markdown", """## Does it cover? A simulation on AR(1) data

1000 AR(1) series (φ = 0.8, n = 2000) with true mean 10: how often does each 95 % interval
contain 10?"""),
    ("code", """rng = np.random.default_rng(1)
phi, n, reps = 0.8, 2000, 300
hits_naive = hits_honest = 0
for _ in range(reps):
    e = rng.normal(size=n)
    y = np.empty(n)
    y[0] = e[0] / np.sqrt(1 - phi**2)
    for t in range(1, n):
        y[t] = phi * y[t - 1] + e[t]
    y += 10
    a = subsession_analysis(y, subsession_size=1)
    b = subsession_analysis(y)
    hits_naive += a.ci_low <= 10 <= a.ci_high
    hits_honest += b.ci_low <= 10 <= b.ci_high
print(f"coverage of the nominal 95 % interval: naive {hits_naive / reps:.1%}, "
      f"subsession {hits_honest / reps:.1%}")"""),
    ("markdown", """## How long must I run?

`required_sample_size` answers with the current subsession size and variance (Pilot's rule:
t quantile at the current degrees of freedom), or self-consistently with
`method="iterate"`."""),
    ("code", """for percent in (5, 2, 1):
    plan = required_sample_size(x, half_width_percent=percent)
    iterated = required_sample_size(x, half_width_percent=percent, method="iterate")
    print(f"CI of ±{percent} % of the mean: {plan.samples} samples "
          f"(iterated dof: {iterated.samples}); have {plan.n}")

# the interval's half width as the session grows; shaded: lengths with no interval yet
# (no subsession size brings |r1| <= 0.1), which a plain line would hide as gaps
ax = plot_half_width(x, unit="s")
plt.show()"""),
    ("markdown", """## Comparing two configurations

Compare on subsession statistics `(mean, s2_q, h)` with Welch's test, never on the raw
samples."""),
    ("code", """first, second = x[:24], x[24:]
a = subsession_analysis(first, subsession_size=2, unit="s")
b = subsession_analysis(second, subsession_size=2, unit="s")
print(a)
print(b)
print(compare_subsession_means(a, b))"""),
]


def build() -> Any:
    """Return the notebook object."""
    return notebook_from_cells(CELLS)


if __name__ == "__main__":
    print(write_notebook(build(), "autocorrelation.ipynb"))
