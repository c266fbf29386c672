"""The demonstration of ``python -m pilotstats demo``, and the bisection demo repository.

:func:`run_demo` returns the whole report: one section per pillar, each analysing an
embedded sample (autocorrelation, EDM change points, stable phase, MDL trend, work per
second, model calibration, smoothing, harness files). :func:`demo_repository` writes a small
git repository whose benchmark slows down at a chosen commit, for
:func:`pilotstats.session.bisect` (README, docs and tests).
"""

from __future__ import annotations

from pilotstats.demo._bisect import demo_repository
from pilotstats.demo._report import run_demo

__all__ = ["demo_repository", "run_demo"]
