"""Compile every numba kernel ahead of use: ``python -m pilotstats compile``.

Kernels are compiled lazily with ``cache=True``; small first calls run interpreted (the
kernels' pure-Python twins, identical results) until a kernel has used its interpreted
budget or meets a large input, and then it is compiled and the machine code is cached for
later processes (``pilotstats/_kernels/_jit.py``). :func:`compile_kernels` compiles every kernel of
each public entry point at once, interpreted tier off, so that images, CI jobs and notebook
kernels start with compiled kernels also for large inputs. :data:`ENTRY_POINTS` is also what
``benchmarks/bench_cold_start.py`` times in fresh processes.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats.results import Result

__all__ = ["ENTRY_POINTS", "CompileReport", "cache_location", "compile_kernels"]


#: Length of the series the entry points' calls analyse (``bench_cold_start.py --size``).
SERIES_LENGTH = 240


def _series(n: int | None = None) -> np.ndarray:
    n = SERIES_LENGTH if n is None else n
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(10.0, 1.0, n // 2), rng.normal(12.0, 1.0, n - n // 2)])


def _subsession_analysis() -> Any:
    from pilotstats.autocorrelation import subsession_analysis

    return subsession_analysis(_series())


def _compare_subsession_means() -> Any:
    from pilotstats.autocorrelation import compare_subsession_means, subsession_analysis

    x = _series()
    half = x.size // 2
    return compare_subsession_means(subsession_analysis(x[:half]), subsession_analysis(x[half:]))


def _required_sample_size() -> Any:
    from pilotstats.autocorrelation import required_sample_size

    return required_sample_size(_series(), half_width_percent=0.5)


def _edm() -> Any:
    from pilotstats.changepoints import edm

    return edm(_series())


def _edm_long() -> Any:
    from pilotstats.changepoints import edm

    # long enough for the pruned programme (``_kernels/edm_prune.py``)
    return edm(_series(max(int(_config.EDM_PRUNE_MIN_POINTS), 2 * SERIES_LENGTH)))


def _edm_single() -> Any:
    from pilotstats.changepoints import edm_single

    return edm_single(_series())


def _detect_changes() -> Any:
    from pilotstats.changepoints import detect_changes

    return detect_changes(_series())


def _stable_phase() -> Any:
    from pilotstats.changepoints import stable_phase

    return stable_phase(_series())


def _mdl_partition() -> Any:
    from pilotstats.changepoints import mdl_partition

    return mdl_partition(_series())


def _trend_compliance() -> Any:
    from pilotstats.changepoints import trend_compliance

    return trend_compliance(_series())


def _wps() -> Any:
    from pilotstats.regression import wps

    work = np.array([50, 100, 50, 100, 80, 60, 90, 70.0] * max(5, SERIES_LENGTH // 48))
    durations = -2.0 + work / 1.5 + 0.1 * np.sin(np.arange(work.size))
    return wps(work, durations, autocorrelation_limit=1.0)


def _mva() -> Any:
    from pilotstats.regression import mva

    return mva([0.2, 0.3, 0.1], 20, think_time=1.0)


def _amva() -> Any:
    from pilotstats.regression import amva

    return amva([0.2, 0.3, 0.1], 20, think_time=1.0)


def _sma() -> Any:
    from pilotstats.smoothing import sma

    values = _series(max(SERIES_LENGTH // 2, 120))
    times = np.datetime64("2024-01-01") + np.arange(values.size) * np.timedelta64(1, "D")
    return sma(times, values, "14D")


def _mdl_stream() -> Any:
    from pilotstats.changepoints import MdlStream

    stream = MdlStream()
    for value in _series(max(SERIES_LENGTH // 4, 60)):
        stream.append(float(value))
    return stream.result()


#: Public entry points and a small call of each (compiled by :func:`compile_kernels`, timed
#: by the cold-start benchmark).
ENTRY_POINTS: dict[str, Callable[[], Any]] = {
    "subsession_analysis": _subsession_analysis,
    "required_sample_size": _required_sample_size,
    "compare_subsession_means": _compare_subsession_means,
    "edm": _edm,
    "edm_single": _edm_single,
    "detect_changes": _detect_changes,
    "stable_phase": _stable_phase,
    "mdl_partition": _mdl_partition,
    "trend_compliance": _trend_compliance,
    "MdlStream": _mdl_stream,
    "wps": _wps,
    "mva": _mva,
    "amva": _amva,
    "sma": _sma,
}

#: Extra calls :func:`compile_kernels` makes for an entry point whose kernels for large
#: inputs differ from those of :data:`ENTRY_POINTS`' small call (not timed by the cold-start
#: benchmark).
LARGE_INPUTS: dict[str, Callable[[], Any]] = {"edm": _edm_long}


def cache_location() -> str:
    """Where numba keeps the compiled kernels of this installation.

    ``$NUMBA_CACHE_DIR`` when set; otherwise ``__pycache__`` beside the kernel modules when
    that folder is writable; otherwise (read-only package, e.g. a wheel in a container)
    numba's user-wide cache folder, ``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``.

    Returns
    -------
    str
        The folder.

    Examples
    --------
    >>> isinstance(cache_location(), str)
    True
    """
    configured = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if configured:
        return configured
    kernels = Path(__file__).resolve().parent / "_kernels"
    in_tree = kernels / "__pycache__"
    probe = in_tree if in_tree.is_dir() else kernels
    if os.access(probe, os.W_OK):
        return str(in_tree)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "numba")


@dataclasses.dataclass(frozen=True, slots=True)
class CompileReport(Result):
    """CPU seconds of each entry point's compiling call and where the cache lives.

    Attributes
    ----------
    seconds : dict of str to float
        CPU time (this process) of each entry point's first call, compilation included.
    errors : dict of str to str
        Entry points whose compiling call failed, with the error.
    cache : str
        The numba cache folder (see :func:`cache_location`).
    jit : bool
        False when kernels run as plain Python (``PILOTSTATS_DISABLE_JIT`` or no numba).

    Examples
    --------
    >>> report = CompileReport({"edm": 0.5}, {}, "/tmp/cache", True)
    >>> print(report)
    compiled 1 entry point(s) in 0.5 s CPU; numba cache: /tmp/cache
      edm  0.5 s
    """

    seconds: dict[str, float]
    errors: dict[str, str]
    cache: str
    jit: bool

    def __str__(self) -> str:
        total = sum(self.seconds.values())
        head = (f"compiled {len(self.seconds)} entry point(s) in {total:.3g} s CPU; "
                f"numba cache: {self.cache}")
        if not self.jit:
            head = "JIT disabled: nothing to compile (kernels run as plain Python)"
        width = max((len(k) for k in [*self.seconds, *self.errors]), default=0)
        lines = [head]
        lines += [f"  {name.ljust(width)}  {value:.3g} s" for name, value in self.seconds.items()]
        lines += [f"  {name.ljust(width)}  error: {text}" for name, text in self.errors.items()]
        return "\n".join(lines)

    def _extra_dict(self) -> dict[str, Any]:
        return {"confidence_level": None, "unit": "s"}


def compile_kernels(names: list[str] | None = None) -> CompileReport:
    """Call each public entry point once with the interpreted tier off, so that its kernels
    are compiled and cached (and once more on a long series where :data:`LARGE_INPUTS`
    says that large inputs use other kernels).

    Parameters
    ----------
    names : list of str, optional
        Entry points to compile (keys of :data:`ENTRY_POINTS`); default all.

    Returns
    -------
    CompileReport

    Raises
    ------
    InvalidInputError
        An unknown name.

    Examples
    --------
    >>> report = compile_kernels(["mva"])
    >>> list(report.seconds), report.errors
    (['mva'], {})
    """
    from pilotstats._kernels._jit import numba_available
    from pilotstats.exceptions import InvalidInputError

    chosen = list(ENTRY_POINTS) if names is None else list(names)
    unknown = [n for n in chosen if n not in ENTRY_POINTS]
    if unknown:
        raise InvalidInputError(f"unknown entry point(s) {unknown}; choose from "
                                f"{list(ENTRY_POINTS)}")
    seconds: dict[str, float] = {}
    errors: dict[str, str] = {}
    interpreted = _config.INTERPRETED_TIER
    _config.INTERPRETED_TIER = False  # compile now, even for these small calls
    try:
        for name in chosen:
            start = time.process_time()
            try:
                ENTRY_POINTS[name]()
                if name in LARGE_INPUTS:
                    LARGE_INPUTS[name]()
            except Exception as exc:  # report and go on: one failure must not stop the rest
                errors[name] = f"{type(exc).__name__}: {exc}"
                continue
            seconds[name] = time.process_time() - start
    finally:
        _config.INTERPRETED_TIER = interpreted
    return CompileReport(seconds, errors, cache_location(), numba_available())


if __name__ == "__main__":  # pragma: no cover
    print(compile_kernels())
    sys.exit(0)
