"""Named numeric constants and tunables.

Module-level values may be changed by users (for example ``_config.PARALLEL = False``);
:func:`reset` restores the defaults.
"""

from __future__ import annotations

import os

#: Relative tolerance of the tolerant round-up ``ceil_tol``.
CEIL_RELATIVE_TOLERANCE: float = 1e-9

#: Default two-sided confidence level of every interval.
DEFAULT_CONFIDENCE_LEVEL: float = 0.95

#: Default precision goal, in percent of the estimate: the half-width of the interval that
#: :func:`~pilotstats.analysis.analyze` plans for, and the resolution that
#: :func:`~pilotstats.analysis.compare` plans for when no ``min_change_percent`` is given.
DEFAULT_HALF_WIDTH_PERCENT: float = 1.0

#: Default limit on |lag-1 autocorrelation| of subsession means (Pilot's default).
DEFAULT_AUTOCORRELATION_LIMIT: float = 0.1

#: Default additive penalty β of EDM-multi (the R front-end's ``breakout()`` default).
EDM_DEFAULT_BETA: float = 0.008

#: Compute independent EDM DP columns on ``numba.get_num_threads()`` workers
#: (results are identical to the serial kernel). Off by default: on a shared 2-core
#: machine the synchronisation per block of ``min_size`` columns can cost more than it saves.
EDM_PARALLEL: bool = False

#: Allow numba ``parallel=True`` kernels (results are identical to the serial kernels).
PARALLEL: bool = True

#: Compile kernels with ``nogil=True``: they release the GIL, so the thread pool of
#: ``detect_many``/``trend_many`` runs kernels of different series on several cores. Read
#: when a kernel is first compiled; it changes no result.
NOGIL: bool = True

#: Safety margin of the MDL pruning test, in bits per bit of the best code length
#: (absorbs floating-point rounding of the bound; see ``_kernels/mdl.py``).
MDL_PRUNING_MARGIN: float = 1e-7
#: ``mdl_partition(max_history=H)``: group starts of the current best partition (the last
#: ones, newest first) that stay candidates however old they are.
MDL_HISTORY_ANCHORS: int = 16

#: Environment switch that makes the lazy JIT dispatcher return plain Python functions.
DISABLE_JIT_ENV: str = "PILOTSTATS_DISABLE_JIT"


def env_flag(name: str, default: bool) -> bool:
    """Read an on/off environment switch: unset or empty gives ``default``; ``0``,
    ``false``, ``no`` and ``off`` (any case) give False; any other value gives True."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value not in ("0", "false", "no", "off")


#: Environment switch of the interpreted first calls: ``0`` (or ``false``/``no``/``off``)
#: makes every kernel compile on its first call.
INTERPRETED_TIER_ENV: str = "PILOTSTATS_INTERPRETED_TIER"

#: Run a kernel's small first calls as its pure-Python twin instead of compiling it at once
#: (see ``_kernels/_jit.py``). The twin's results are identical bit for bit, so this changes
#: no output; it spares a process that analyses a few short series the seconds of compiling.
INTERPRETED_TIER: bool = env_flag(INTERPRETED_TIER_ENV, default=True)

#: CPU seconds one kernel may spend interpreted, summed over its calls in this process,
#: before it compiles (ski rental: about the price of compiling one kernel, 0.1–2.5 s). The
#: call that crosses it runs interpreted to its end, so one large first call (an EDM
#: programme on 1,000 points: 1.2 s) does not make the small kernels of the same analysis
#: compile.
INTERPRETED_KERNEL_BUDGET: float = 0.5

#: CPU seconds the whole process may spend in interpreted kernels before every kernel
#: compiles on its next call: bounds the rent of a long batch, however many kernels it uses.
INTERPRETED_TIER_BUDGET: float = 2.0

#: Largest input (elements of the largest array argument) a kernel runs interpreted, by how
#: its cost grows, so that one interpreted call stays near 1 s CPU at most (interpreted
#: times at 1,000 points: EDM programmes 1.2–1.3 s, the MDL programme on pure noise 2.4 s,
#: EDM-tail 4.4 s). ``linear``: O(n) or O(n log n) kernels; ``quadratic``: the EDM
#: programmes, the residual autocorrelation of the rank scans (O(n · width)) and
#: single-class MVA; ``quadratic_heavy``: the MDL programme and EDM-tail (O(n²) with a
#: larger constant, O(n² log n)). Series of about 1,000 points (arrays of n + 1 to n + 3
#: elements) stay within ``quadratic``.
INTERPRETED_MAX_SIZE: dict[str, int] = {"linear": 20_000, "quadratic": 1_100,
                                        "quadratic_heavy": 500}

#: Longest series whose EDM-multi / EDM-percent programme runs vectorised in numpy
#: (``_kernels/edm_numpy.py``, identical results) while the compiled kernel is not needed:
#: no numba import and no compilation for a process that analyses short series. Its time
#: and memory grow as n² (CPU and extra peak memory: 1,000 points 0.05 s and 5 MB, 2,000
#: 0.13 s and 16 MB, 3,000 0.23 s and 35 MB, 5,000 0.49 s and 97 MB), against about 1.8 s
#: CPU and 110 MB of LLVM to import numba and compile the kernel; it is charged to the
#: interpreted tier's budgets, whose exhaustion compiles the kernel in the background.
EDM_VECTORISED_MAX_POINTS: int = 5000

#: Shortest series whose compiled EDM-multi / EDM-percent programme skips candidates by an
#: exact upper bound (``_kernels/edm_prune.py``, identical results). Around 1,000
#: points the bounds cost about what they save (noise: 2.6 ms pruned, 2.3 ms swept; 5,000:
#: 26 ms and 47 ms). Above ``EDM_VECTORISED_MAX_POINTS``, so that a series the vectorised
#: tier can answer never waits for this kernel to compile. ``EDM_PARALLEL`` runs the
#: unpruned sweep on several workers instead.
EDM_PRUNE_MIN_POINTS: int = 5001

#: Idle probabilities of load-dependent MVA in [-MVA_P0_CLAMP, 0) are clamped to 0 silently;
#: below that a NumericalAccuracyWarning is emitted.
MVA_P0_CLAMP: float = 1e-9

#: Load-dependent MVA takes idle probabilities from complement networks (stable) when at
#: most this many stations are load dependent; beyond, by subtraction (cost grows as K_LD!).
MVA_COMPLEMENT_MAX_STATIONS: int = 4

#: Convergence tolerance of Bard–Schweitzer approximate MVA.
SCHWEITZER_TOL: float = 1e-12

#: Maximum number of Bard–Schweitzer fixed-point sweeps.
SCHWEITZER_MAX_ITER: int = 100000

#: Relative forward-difference step of calibration sensitivities.
CALIBRATION_FD_STEP: float = 1e-6

#: Relative step tolerance of Gauss–Newton calibration.
CALIBRATION_XTOL: float = 1e-7

#: Relative objective tolerance of Gauss–Newton calibration.
CALIBRATION_FTOL: float = 1e-12

#: Gauss–Newton steps drop directions of the scaled M with σ < STEP_RCOND·σ_max
#: (minimum-norm step of the truncated pseudo-inverse).
CALIBRATION_STEP_RCOND: float = 1e-10

#: Scaled condition number above which an IdentifiabilityWarning is emitted.
MAX_SCALED_CONDITION: float = 1e6

#: Default short SMA window of the divergence analysis (SC'18 final paper).
SMOOTHING_SHORT_WINDOW: str = "14D"

#: Default long SMA window of the divergence analysis (SC'18 final paper).
SMOOTHING_LONG_WINDOW: str = "49D"

#: Default significance level of contributor records (strict ``p_value < level``).
SMOOTHING_SIGNIFICANCE_LEVEL: float = 0.10

#: Default p-value threshold of per-region Pearson correlations.
SMOOTHING_CORRELATION_P_THRESHOLD: float = 1e-5

#: Series length above which ``edm_single`` (EDM-X) and ``EdmStream`` warn
#: (PerformanceWarning): they are O(n²) (EDM-X O(n² log n)); the unpruned EDM programme took
#: 39 s at n = 1e5 on the reference machine (benchmarks/RESULTS_edm.md), so 1.5e5 is about
#: a minute and a half. ``edm`` has its own limit, ``EDM_MULTI_WARN_SIZE``.
EDM_WARN_SIZE: int = 150_000

#: The same for ``edm`` (EDM-multi / EDM-percent): its exact pruning takes noise-like series
#: of 10^6 points in about 7 s, but a series with many large shifts can stay O(n²) (10^5
#: points with 20 shifts of several standard deviations: 6.9 s), so minutes from 10^6 on.
EDM_MULTI_WARN_SIZE: int = 1_000_000

#: The same for EDM-tail (``edm_single(exact=False)``): with its exact τ pruning 1e6 points
#: take 3–5 s (worst case O(n² log n)).
EDM_TAIL_WARN_SIZE: int = 2_000_000

#: Number of runs above which ``mdl_partition`` and ``MdlStream`` warn (PerformanceWarning):
#: the programme is O(N²) on noise without level changes (2e4 runs: 7 s, 1e5: ~140 s).
MDL_WARN_SIZE: int = 60_000

#: Largest sample or subsession count a sample-size function reports (int64-safe); a target
#: needing more is unreachable (UnreachableTargetError instead of inf or ZeroDivisionError).
MAX_REPORTED_COUNT: int = 2**62

#: Largest integer accepted by ``check_int`` when no explicit bound is given (sizes, counts,
#: indices): larger values would overflow 64-bit arithmetic inside compiled kernels.
MAX_INTEGER_PARAMETER: int = 2**40

#: Largest number of cells (stations × population lattice points) an exact MVA may allocate;
#: larger problems raise InvalidInputError up front instead of exhausting memory.
MAX_MVA_CELLS: int = 2**26

#: Largest number of queueing stations accepted by the queueing models.
MAX_STATIONS: int = 100_000

#: Largest input file (or in-memory JSON/CSV text or bytes) a loader or folder walk reads, in
#: bytes; larger inputs raise InputLimitError before anything is read or parsed. Parsing
#: JSON needs several times its size in memory (a 1 GB JSON array of numbers took 11 GB),
#: so this bounds a load to a few GB. Real result files are far smaller (a pyperf file of
#: 10,000 values: ~0.2 MB).
MAX_INPUT_BYTES: int = 256 * 2**20

#: Largest decompressed size of gzip input, in bytes: a gzip bomb (1 GB of zeros compress to
#: 1 MB) is stopped after this many bytes instead of being decompressed whole.
MAX_DECOMPRESSED_BYTES: int = 256 * 2**20

#: Longest benchmark name (characters) a loader or :class:`~pilotstats.io.Measurements`
#: accepts: names are stored once per sample, so a 256 MiB name would need tens of GB.
MAX_NAME_LENGTH: int = 4096

#: Most files a folder walk (asv results, pytest-benchmark storage, criterion folders)
#: reads from one folder.
MAX_FOLDER_FILES: int = 100_000

#: subsession_analysis warns (DataRangeWarning) when its q was scanned, the lag-1
#: autocorrelation r1 of the samples is at least SUBSESSION_STRONG_AUTOCORRELATION and an
#: AR(1) with coefficient r1 predicts block means of size q correlated above
#: SUBSESSION_MAX_IMPLIED_AUTOCORRELATION: the scan's check on few block means passed by
#: chance. In a seeded AR(1) simulation (phi 0-0.95, n 100-2000) the 95 % intervals that
#: warned covered 85.6 %, the others 92.9 % (8,000 series; README, "Small samples say so").
SUBSESSION_STRONG_AUTOCORRELATION: float = 0.7
SUBSESSION_MAX_IMPLIED_AUTOCORRELATION: float = 0.2

#: Retries of a Dask task of ``detect_many``/``trend_many`` (``engine="dask"``) that
#: failed (a lost worker is rerun by the scheduler anyway); a batch that still fails gives
#: ClusterError rows for its series.
DASK_RETRIES: int = 3

_DEFAULTS = {
    "SUBSESSION_STRONG_AUTOCORRELATION": SUBSESSION_STRONG_AUTOCORRELATION,
    "SUBSESSION_MAX_IMPLIED_AUTOCORRELATION": SUBSESSION_MAX_IMPLIED_AUTOCORRELATION,
    "DASK_RETRIES": DASK_RETRIES,
    "MAX_INPUT_BYTES": MAX_INPUT_BYTES,
    "MAX_DECOMPRESSED_BYTES": MAX_DECOMPRESSED_BYTES,
    "MAX_NAME_LENGTH": MAX_NAME_LENGTH,
    "MAX_FOLDER_FILES": MAX_FOLDER_FILES,
    "MAX_REPORTED_COUNT": MAX_REPORTED_COUNT,
    "MDL_WARN_SIZE": MDL_WARN_SIZE,
    "EDM_WARN_SIZE": EDM_WARN_SIZE,
    "EDM_MULTI_WARN_SIZE": EDM_MULTI_WARN_SIZE,
    "EDM_TAIL_WARN_SIZE": EDM_TAIL_WARN_SIZE,
    "MAX_INTEGER_PARAMETER": MAX_INTEGER_PARAMETER,
    "MAX_MVA_CELLS": MAX_MVA_CELLS,
    "MAX_STATIONS": MAX_STATIONS,
    "CEIL_RELATIVE_TOLERANCE": CEIL_RELATIVE_TOLERANCE,
    "DEFAULT_CONFIDENCE_LEVEL": DEFAULT_CONFIDENCE_LEVEL,
    "DEFAULT_AUTOCORRELATION_LIMIT": DEFAULT_AUTOCORRELATION_LIMIT,
    "DEFAULT_HALF_WIDTH_PERCENT": DEFAULT_HALF_WIDTH_PERCENT,
    "PARALLEL": PARALLEL,
    "NOGIL": NOGIL,
    "MDL_PRUNING_MARGIN": MDL_PRUNING_MARGIN,
    "MDL_HISTORY_ANCHORS": MDL_HISTORY_ANCHORS,
    "EDM_DEFAULT_BETA": EDM_DEFAULT_BETA,
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
    "EDM_PARALLEL": EDM_PARALLEL,
    "INTERPRETED_TIER": INTERPRETED_TIER,
    "INTERPRETED_KERNEL_BUDGET": INTERPRETED_KERNEL_BUDGET,
    "INTERPRETED_TIER_BUDGET": INTERPRETED_TIER_BUDGET,
    "INTERPRETED_MAX_SIZE": dict(INTERPRETED_MAX_SIZE),
    "EDM_VECTORISED_MAX_POINTS": EDM_VECTORISED_MAX_POINTS,
    "EDM_PRUNE_MIN_POINTS": EDM_PRUNE_MIN_POINTS,
}


def jit_disabled() -> bool:
    """Return True when ``PILOTSTATS_DISABLE_JIT`` is set to a true value (:func:`env_flag`)."""
    return env_flag(DISABLE_JIT_ENV, default=False)


def reset() -> None:
    """Restore every tunable of this module to its default value."""
    # copies: a tunable changed in place (a dict) must not change its default
    globals().update({k: dict(v) if isinstance(v, dict) else v for k, v in _DEFAULTS.items()})


#: Most fits of the alpha-based round filter of the WPS regression.
WPS_MAX_FILTER_FITS: int = 10

#: Relative size below which the spread of block work amounts counts as zero:
#: ``S_xx <= h * (tolerance * max|X|)^2`` raises DegenerateDesignError.
WPS_DEGENERATE_RELATIVE_TOLERANCE: float = 64 * 2.220446049250313e-16

#: Pilot's "more than 20 subsessions" floor of the WPS stop rule.
WPS_MIN_SUBSESSIONS: int = 21

#: Pilot's soft limit: a proposal never exceeds this factor times the mean past work amount.
WPS_SOFT_LIMIT_FACTOR: float = 5.0

#: Residuals of a WPS line fit count as zero (noise-free data, subsession size 1) when all
#: are within this fraction of the longest duration.
WPS_ZERO_RESIDUAL_TOLERANCE: float = 1e-9

#: Most fits of the feasible WLS of the WPS ``wls``/``huber`` estimators (weights from the
#: previous fit until the slope settles).
WPS_WLS_MAX_ITERATIONS: int = 50

#: Most IRLS iterations of the Huber WPS estimator.
WPS_HUBER_MAX_ITERATIONS: int = 100

_DEFAULTS.update(
    {
        "WPS_WLS_MAX_ITERATIONS": WPS_WLS_MAX_ITERATIONS,
        "WPS_HUBER_MAX_ITERATIONS": WPS_HUBER_MAX_ITERATIONS,
        "WPS_MAX_FILTER_FITS": WPS_MAX_FILTER_FITS,
        "WPS_DEGENERATE_RELATIVE_TOLERANCE": WPS_DEGENERATE_RELATIVE_TOLERANCE,
        "WPS_MIN_SUBSESSIONS": WPS_MIN_SUBSESSIONS,
        "WPS_SOFT_LIMIT_FACTOR": WPS_SOFT_LIMIT_FACTOR,
        "WPS_ZERO_RESIDUAL_TOLERANCE": WPS_ZERO_RESIDUAL_TOLERANCE,
    }
)


# ----------------------------------------------------------------------------------------
# Guarded change-point detection and stable phase
# ----------------------------------------------------------------------------------------

#: Per-test threshold of :func:`~pilotstats.changepoints.detect_changes`: a change point is
#: kept when its selection-adjusted p-value is at most
#: ``DETECT_THRESHOLD_FACTOR * significance_level``. The factor absorbs the multiplicity of
#: the several tests of one series (every candidate, and every confirmed segment re-scanned
#: for a missed change); it was calibrated by simulation (``tests/test_detect_slow.py``,
#: 200 seeded series per cell). With 0.1 (threshold 0.005 at the default level 0.05) the
#: default reports a change in 0–0.5 % of i.i.d. N(0, 1) series and 1.5 % of AR(1) φ = 0.5
#: series (n = 100, 300, 1000); 0.4 reached 5 % (i.i.d., n = 1000) and 8 % (AR(1),
#: n = 300), and 0.2 let re-scans add spurious change points after a warm-up in about 1 %
#: of series.
DETECT_THRESHOLD_FACTOR: float = 0.1

#: EDM-percent parameters of the candidate search (Pilot's configuration).
DETECT_CANDIDATE_PERCENT: float = 0.25
DETECT_CANDIDATE_DEGREE: int = 1

#: Longest series searched point by point for candidates; longer series are searched on
#: the medians of DETECT_EDM_MAX_POINTS blocks of ``floor`` or ``ceil(n / DETECT_EDM_MAX_POINTS)``
#: samples (EDM is O(n²); a constant number of blocks, so that the cost does not drop from
#: n to n + 1), and every location is then refined on the raw data. 1,000: the O(L²)
#: search on up to 6,000 points made detect_changes 2-3x slower than ruptures Binseg
#: between 3,000 and 10,000 points;
#: at 1,000 it stays below Binseg at every n (``benchmarks/RESULTS_detect.md``) and within
#: the vectorised EDM tier (``EDM_VECTORISED_MAX_POINTS``), so no call of detect_changes
#: waits for the EDM kernel to compile. TCPD series (at most 816 points) are searched point
#: by point either way; on the 294 JMH forks of 3,000 points (RESULTS_warmup.md) the
#: default stable_phase has 0.816 accuracy (0.813 with 6,000), method="robust" 0.544 (0.548:
#: one fork), with the same onset errors and in-band shares.
DETECT_EDM_MAX_POINTS: int = 1000

#: Cap on the lag-1 autocorrelation of the rank residuals used for the variance inflation
#: ``(1 + rho) / (1 - rho)`` of the rank statistic (keeps the factor finite: at most 39).
DETECT_MAX_AUTOCORRELATION: float = 0.95

#: Default ``location_tolerance`` h (samples) of detect_changes: the split whose
#: ``[t - h, t + h]`` neighbourhood holds the most posterior probability of the change under
#: a two-level Gaussian working likelihood (the Bayes estimate under the loss "missed by
#: more than h samples"). h = 5 is the margin of the standard evaluation of change-point
#: detectors (TCPDBench, van den Burg & Williams 2020: a change counts as found within +/-5):
#: on 500 N(0, 1) samples with a 1 sigma shift after 50 (200 series) the location falls
#: within +/-5 of the truth in 86 % of series with h = 5 against 74 % with h = 10 (within
#: +/-10: 92 % against 96 %).
DETECT_LOCATION_TOLERANCE: int = 5

#: Default ``location_tolerance`` h of stable_phase (its ``method="robust"`` detection):
#: warm-up ends are wanted within +/-10 samples (the acceptance target), and
#: h = 10 is the Bayes estimate for that loss: with a 1 sigma shift after 50 of 500 N(0, 1)
#: samples the location falls within +/-10 of the truth in 97-98 % of series, against 93 %
#: for the rank-CUSUM arg-max and 94.5 % for the maximum-likelihood split that knows both
#: levels.
STABLE_LOCATION_TOLERANCE: int = 10

#: Before the location estimate, each side of the provisional split is clipped to its
#: median +/- DETECT_LOCATION_CLIP * MAD (scaled to sigma), so that spikes cannot move it.
DETECT_LOCATION_CLIP: float = 4.0

#: Most re-scan passes of the guard of detect_changes (each pass: re-scan every confirmed
#: segment, then backward elimination). The guard also stops when a segmentation repeats,
#: so the number of passes is bounded by this constant, not by n // min_size.
DETECT_MAX_GUARD_PASSES: int = 8

#: Most refits of the noise dependence of detect_changes under the fitted segmentation
#: (each refit reruns the guard with the larger variance inflation; inflation only grows).
DETECT_MAX_REFITS: int = 3

_DEFAULTS.update(
    {
        "DETECT_MAX_GUARD_PASSES": DETECT_MAX_GUARD_PASSES,
        "DETECT_MAX_REFITS": DETECT_MAX_REFITS,
        "DETECT_LOCATION_TOLERANCE": DETECT_LOCATION_TOLERANCE,
        "STABLE_LOCATION_TOLERANCE": STABLE_LOCATION_TOLERANCE,
        "DETECT_LOCATION_CLIP": DETECT_LOCATION_CLIP,
        "DETECT_THRESHOLD_FACTOR": DETECT_THRESHOLD_FACTOR,
        "DETECT_CANDIDATE_PERCENT": DETECT_CANDIDATE_PERCENT,
        "DETECT_CANDIDATE_DEGREE": DETECT_CANDIDATE_DEGREE,
        "DETECT_EDM_MAX_POINTS": DETECT_EDM_MAX_POINTS,
        "DETECT_MAX_AUTOCORRELATION": DETECT_MAX_AUTOCORRELATION,
    }
)


# ----------------------------------------------------------------------------------------
# Steady state of long forks by practical equivalence (stable_phase, method="equivalence")
# ----------------------------------------------------------------------------------------

#: ``stable_phase(method="auto")`` uses the equivalence model from this length on (long
#: forks of JMH, pyperf or asv), and the dominant-segment rule below it (short rounds).
EQUIVALENCE_LONG_SERIES: int = 1000

#: Shortest series the equivalence model accepts (shorter ones are kept whole).
EQUIVALENCE_MIN_LENGTH: int = 120

#: The fork is summarised by medians of ``max(MIN_WINDOW, n // WINDOWS)`` samples each, so
#: that isolated GC/JIT spikes and periodic patterns within a window do not move it.
EQUIVALENCE_WINDOWS: int = 60
EQUIVALENCE_MIN_WINDOW: int = 5

#: The final level is the median of this trailing share of the fork.
EQUIVALENCE_FINAL_SHARE: float = 0.25

#: A window median is practically equivalent to the final level within
#: ``max(tolerance * excursion, LEVEL_TOLERANCE * |level|, NOISE_MULTIPLIER * noise)``:
#: 1 % of the level never ends a steady state, and neither does the sampling noise of a
#: window median (robust spread of the window medians of the second half).
EQUIVALENCE_LEVEL_TOLERANCE: float = 0.01
EQUIVALENCE_NOISE_MULTIPLIER: float = 5.0

#: The settled part is accepted without a test when its 10-90 % inter-percentile range is
#: at most ``max(SPREAD_EXCURSION * excursion, SPREAD_LEVEL * |level|)``; otherwise
#: :func:`~pilotstats.changepoints.detect_changes` (minimum segment CONFIRM_MIN_SIZE) must
#: find no change in it.
EQUIVALENCE_SPREAD_EXCURSION: float = 0.04
EQUIVALENCE_SPREAD_LEVEL: float = 0.03
EQUIVALENCE_CONFIRM_MIN_SIZE: int = 30

_DEFAULTS.update(
    {
        "EQUIVALENCE_LONG_SERIES": EQUIVALENCE_LONG_SERIES,
        "EQUIVALENCE_MIN_LENGTH": EQUIVALENCE_MIN_LENGTH,
        "EQUIVALENCE_WINDOWS": EQUIVALENCE_WINDOWS,
        "EQUIVALENCE_MIN_WINDOW": EQUIVALENCE_MIN_WINDOW,
        "EQUIVALENCE_FINAL_SHARE": EQUIVALENCE_FINAL_SHARE,
        "EQUIVALENCE_LEVEL_TOLERANCE": EQUIVALENCE_LEVEL_TOLERANCE,
        "EQUIVALENCE_NOISE_MULTIPLIER": EQUIVALENCE_NOISE_MULTIPLIER,
        "EQUIVALENCE_SPREAD_EXCURSION": EQUIVALENCE_SPREAD_EXCURSION,
        "EQUIVALENCE_SPREAD_LEVEL": EQUIVALENCE_SPREAD_LEVEL,
        "EQUIVALENCE_CONFIRM_MIN_SIZE": EQUIVALENCE_CONFIRM_MIN_SIZE,
    }
)
