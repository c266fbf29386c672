"""Named numeric constants and tunables.

Module-level values may be changed by users (for example ``_config.PARALLEL = False``);
:func:`reset` restores the defaults.
"""

from __future__ import annotations

import os

#: Relative tolerance of the tolerant round-up ``ceil_tol`` (autocorrelation spec §6.5).
CEIL_RELATIVE_TOLERANCE: float = 1e-9

#: Default two-sided confidence level of every interval.
DEFAULT_CONFIDENCE_LEVEL: float = 0.95

#: Default limit on |lag-1 autocorrelation| of subsession means (Pilot's default).
DEFAULT_AUTOCORRELATION_LIMIT: float = 0.1

#: Default additive penalty β of EDM-multi (the R front-end's ``breakout()`` default).
EDM_DEFAULT_BETA: float = 0.008

#: Compute independent EDM DP columns on ``numba.get_num_threads()`` workers (edm spec
#: §6.3; results are identical to the serial kernel). Off by default: on a shared 2-core
#: machine the synchronisation per block of ``min_size`` columns can cost more than it saves.
EDM_PARALLEL: bool = False

#: Allow numba ``parallel=True`` kernels (results are identical to the serial kernels).
PARALLEL: bool = True

#: Environment switch that makes the lazy JIT dispatcher return plain Python functions.
DISABLE_JIT_ENV: str = "PILOTSTATS_DISABLE_JIT"

_DEFAULTS = {
    "CEIL_RELATIVE_TOLERANCE": CEIL_RELATIVE_TOLERANCE,
    "DEFAULT_CONFIDENCE_LEVEL": DEFAULT_CONFIDENCE_LEVEL,
    "DEFAULT_AUTOCORRELATION_LIMIT": DEFAULT_AUTOCORRELATION_LIMIT,
    "PARALLEL": PARALLEL,
    "EDM_DEFAULT_BETA": EDM_DEFAULT_BETA,
    "EDM_PARALLEL": EDM_PARALLEL,
}


def jit_disabled() -> bool:
    """Return True when ``PILOTSTATS_DISABLE_JIT`` is set to a true value."""
    return os.environ.get(DISABLE_JIT_ENV, "").strip().lower() not in ("", "0", "false", "no")


def reset() -> None:
    """Restore every tunable of this module to its default value."""
    globals().update(_DEFAULTS)
