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

#: Allow numba ``parallel=True`` kernels (results are identical to the serial kernels).
PARALLEL: bool = True

#: Safety margin of the MDL pruning test, in bits per bit of the best code length
#: (absorbs floating-point rounding of the bound; see ``_kernels/mdl.py``).
MDL_PRUNING_MARGIN: float = 1e-7

#: Environment switch that makes the lazy JIT dispatcher return plain Python functions.
DISABLE_JIT_ENV: str = "PILOTSTATS_DISABLE_JIT"

_DEFAULTS = {
    "CEIL_RELATIVE_TOLERANCE": CEIL_RELATIVE_TOLERANCE,
    "DEFAULT_CONFIDENCE_LEVEL": DEFAULT_CONFIDENCE_LEVEL,
    "DEFAULT_AUTOCORRELATION_LIMIT": DEFAULT_AUTOCORRELATION_LIMIT,
    "PARALLEL": PARALLEL,
    "MDL_PRUNING_MARGIN": MDL_PRUNING_MARGIN,
    "EDM_DEFAULT_BETA": EDM_DEFAULT_BETA,
}


def jit_disabled() -> bool:
    """Return True when ``PILOTSTATS_DISABLE_JIT`` is set to a true value."""
    return os.environ.get(DISABLE_JIT_ENV, "").strip().lower() not in ("", "0", "false", "no")


def reset() -> None:
    """Restore every tunable of this module to its default value."""
    globals().update(_DEFAULTS)


#: Most fits of the alpha-based round filter of the WPS regression (wps spec §5).
WPS_MAX_FILTER_FITS: int = 10

#: Relative size below which the spread of block work amounts counts as zero (wps spec §3.4):
#: ``S_xx <= h * (tolerance * max|X|)^2`` raises DegenerateDesignError.
WPS_DEGENERATE_RELATIVE_TOLERANCE: float = 64 * 2.220446049250313e-16

#: Pilot's "more than 20 subsessions" floor of the WPS stop rule (wps spec §6.6).
WPS_MIN_SUBSESSIONS: int = 21

#: Pilot's soft limit: a proposal never exceeds this factor times the mean past work amount.
WPS_SOFT_LIMIT_FACTOR: float = 5.0

#: Residuals of a WPS line fit count as zero (noise-free data, subsession size 1) when all
#: are within this fraction of the longest duration.
WPS_ZERO_RESIDUAL_TOLERANCE: float = 1e-9

_DEFAULTS.update(
    {
        "WPS_MAX_FILTER_FITS": WPS_MAX_FILTER_FITS,
        "WPS_DEGENERATE_RELATIVE_TOLERANCE": WPS_DEGENERATE_RELATIVE_TOLERANCE,
        "WPS_MIN_SUBSESSIONS": WPS_MIN_SUBSESSIONS,
        "WPS_SOFT_LIMIT_FACTOR": WPS_SOFT_LIMIT_FACTOR,
        "WPS_ZERO_RESIDUAL_TOLERANCE": WPS_ZERO_RESIDUAL_TOLERANCE,
    }
)
