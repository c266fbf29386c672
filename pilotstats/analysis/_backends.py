"""Isolated access to the pillars the analyses build on.

:func:`pilotstats.analysis.analyze` uses the autocorrelation pillar (always present) and, when
the installed pilotstats has them, stable-phase detection
(:func:`pilotstats.changepoints.stable_phase`), the work-per-second regression
(:func:`pilotstats.regression.wps`), MDL trend partitioning
(:func:`pilotstats.changepoints.mdl_partition`) and EDM change points
(:func:`pilotstats.changepoints.edm`). Each accessor returns the function or ``None``; callers
report "unavailable" instead of failing, so a build without a pillar still analyses what it
can, and says what it skipped.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["call_collecting_warnings", "edm", "mdl_partition", "stable_phase", "wps"]

T = TypeVar("T")


def stable_phase() -> Callable[..., Any] | None:
    """``pilotstats.changepoints.stable_phase`` or None when this build lacks it."""
    try:
        from pilotstats.changepoints import stable_phase as function  # type: ignore[attr-defined]
    except ImportError:
        return None
    return function  # type: ignore[no-any-return]


def wps() -> Callable[..., Any] | None:
    """``pilotstats.regression.wps`` or None when this build lacks it."""
    try:
        from pilotstats.regression import wps as function
    except ImportError:
        return None
    return function


def mdl_partition() -> Callable[..., Any] | None:
    """``pilotstats.changepoints.mdl_partition`` or None when this build lacks it."""
    try:
        from pilotstats.changepoints import mdl_partition as function
    except ImportError:
        return None
    return function


def edm() -> Callable[..., Any] | None:
    """``pilotstats.changepoints.edm`` or None when this build lacks it."""
    try:
        from pilotstats.changepoints import edm as function
    except ImportError:
        return None
    return function


def call_collecting_warnings(function: Callable[..., T], *args: Any, **kwargs: Any
                             ) -> tuple[T, list[str]]:
    """Call ``function`` and return its result with the texts of the warnings it emitted.

    Analyses of many benchmarks report such warnings per benchmark (in ``notes``) instead of
    letting them scroll past.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]
