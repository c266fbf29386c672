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

#: Allow numba ``parallel=True`` kernels (results are identical to the serial kernels).
PARALLEL: bool = True

#: Environment switch that makes the lazy JIT dispatcher return plain Python functions.
DISABLE_JIT_ENV: str = "PILOTSTATS_DISABLE_JIT"

#: Idle probabilities of load-dependent MVA in [-MVA_P0_CLAMP, 0) are clamped to 0 silently;
#: below that a NumericalAccuracyWarning is emitted (calibration spec §2.4).
MVA_P0_CLAMP: float = 1e-9

#: Load-dependent MVA takes idle probabilities from complement networks (stable) when at
#: most this many stations are load dependent; beyond, by subtraction (cost grows as K_LD!).
MVA_COMPLEMENT_MAX_STATIONS: int = 4

#: Convergence tolerance of Bard–Schweitzer approximate MVA (calibration spec §2.3).
SCHWEITZER_TOL: float = 1e-12

#: Maximum number of Bard–Schweitzer fixed-point sweeps.
SCHWEITZER_MAX_ITER: int = 100000

#: Relative forward-difference step of calibration sensitivities (calibration spec §3).
CALIBRATION_FD_STEP: float = 1e-6

#: Relative step tolerance of Gauss–Newton calibration (calibration spec §3).
CALIBRATION_XTOL: float = 1e-7

#: Relative objective tolerance of Gauss–Newton calibration (calibration spec §3).
CALIBRATION_FTOL: float = 1e-12

#: Gauss–Newton steps drop directions of the scaled M with σ < STEP_RCOND·σ_max
#: (minimum-norm step of the truncated pseudo-inverse; calibration spec §3).
CALIBRATION_STEP_RCOND: float = 1e-10

#: Scaled condition number above which an IdentifiabilityWarning is emitted (spec §8).
MAX_SCALED_CONDITION: float = 1e6

#: Default short SMA window of the divergence analysis (SC'18 final paper, smoothing spec §10).
SMOOTHING_SHORT_WINDOW: str = "14D"

#: Default long SMA window of the divergence analysis (SC'18 final paper, smoothing spec §10).
SMOOTHING_LONG_WINDOW: str = "49D"

#: Default significance level of contributor records (strict ``p_value < level``, spec §8).
SMOOTHING_SIGNIFICANCE_LEVEL: float = 0.10

#: Default p-value threshold of per-region Pearson correlations (smoothing spec §9).
SMOOTHING_CORRELATION_P_THRESHOLD: float = 1e-5

_DEFAULTS = {
    "CEIL_RELATIVE_TOLERANCE": CEIL_RELATIVE_TOLERANCE,
    "DEFAULT_CONFIDENCE_LEVEL": DEFAULT_CONFIDENCE_LEVEL,
    "DEFAULT_AUTOCORRELATION_LIMIT": DEFAULT_AUTOCORRELATION_LIMIT,
    "PARALLEL": PARALLEL,
    "MVA_P0_CLAMP": MVA_P0_CLAMP,
    "MVA_COMPLEMENT_MAX_STATIONS": MVA_COMPLEMENT_MAX_STATIONS,
    "SCHWEITZER_TOL": SCHWEITZER_TOL,
    "SCHWEITZER_MAX_ITER": SCHWEITZER_MAX_ITER,
    "CALIBRATION_FD_STEP": CALIBRATION_FD_STEP,
    "CALIBRATION_XTOL": CALIBRATION_XTOL,
    "CALIBRATION_FTOL": CALIBRATION_FTOL,
    "CALIBRATION_STEP_RCOND": CALIBRATION_STEP_RCOND,
    "MAX_SCALED_CONDITION": MAX_SCALED_CONDITION,
    "SMOOTHING_SHORT_WINDOW": SMOOTHING_SHORT_WINDOW,
    "SMOOTHING_LONG_WINDOW": SMOOTHING_LONG_WINDOW,
    "SMOOTHING_SIGNIFICANCE_LEVEL": SMOOTHING_SIGNIFICANCE_LEVEL,
    "SMOOTHING_CORRELATION_P_THRESHOLD": SMOOTHING_CORRELATION_P_THRESHOLD,
}


def jit_disabled() -> bool:
    """Return True when ``PILOTSTATS_DISABLE_JIT`` is set to a true value."""
    return os.environ.get(DISABLE_JIT_ENV, "").strip().lower() not in ("", "0", "false", "no")


def reset() -> None:
    """Restore every tunable of this module to its default value."""
    globals().update(_DEFAULTS)
