"""Input checks and option objects of the changepoints pillar."""

from __future__ import annotations

import datetime as _dt
import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._typing import (
    ChangeTest,
    CsitEncoding,
    EdmScale,
    EdmTree,
    RandomState,
    StablePhaseMethod,
)
from pilotstats._validation._core import (
    as_float_array,
    check_bool,
    check_choice,
    check_confidence_level,
    check_int,
    check_probability,
    check_real,
    check_rng,
    check_text,
    reject_container_misuse,
)
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
)

# --- cp: changepoints ---

_PERIOD_UNITS = {"w": 604800.0, "d": 86400.0, "h": 3600.0, "min": 60.0, "m": 60.0, "s": 1.0}
_PERIOD_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(w|d|h|min|m|s)\s*$", re.IGNORECASE)


def check_period_seconds(value: Any, name: str) -> float:
    """A duration (``"7D"``, ``"12h"``, ``"30min"``, ``"45s"``, a timedelta or seconds) in
    seconds, finite and non-negative."""
    if isinstance(value, bool):
        raise InvalidInputError(f"{name} must be a duration, got {value!r}")
    if isinstance(value, str):
        match = _PERIOD_RE.match(value)
        if not match:
            raise InvalidInputError(
                f"{name} must look like '7D', '12h', '30min' or '45s', got {value!r}"
            )
        seconds = float(match.group(1)) * _PERIOD_UNITS[match.group(2).lower()]
    elif isinstance(value, _dt.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, np.timedelta64):
        seconds = float(value / np.timedelta64(1, "ns")) * 1e-9
    elif isinstance(value, numbers.Real):
        seconds = float(value)
    else:
        total_seconds = getattr(value, "total_seconds", None)  # pandas Timedelta
        if not callable(total_seconds):
            raise InvalidInputError(
                f"{name} must be a duration (string like '7D', timedelta or seconds), "
                f"got {type(value).__name__}"
            )
        seconds = float(total_seconds())
    if not (math.isfinite(seconds) and seconds >= 0.0):
        raise InvalidInputError(f"{name} must be a finite non-negative duration, got {value!r}")
    return seconds


def _object_times_seconds(array: np.ndarray) -> np.ndarray:
    """Seconds of an object array of datetimes (naive ones taken as UTC) and numbers."""
    converted = []
    for index, item in enumerate(array.tolist()):
        if isinstance(item, _dt.datetime):
            if item.tzinfo is None:
                item = item.replace(tzinfo=_dt.UTC)
            converted.append(item.timestamp())
        elif isinstance(item, numbers.Real) and not isinstance(item, bool):
            converted.append(float(item))
        else:
            raise InvalidInputError(
                f"times[{index}] must be a datetime, datetime64 or seconds, got "
                f"{type(item).__name__}"
            )
    return np.array(converted, dtype=np.float64)


def check_times_seconds(times: Any, n: int) -> np.ndarray:
    """One timestamp per run (datetimes, ``datetime64`` or seconds) as non-decreasing,
    finite float64 seconds."""
    if isinstance(times, (str, bytes)):
        raise InvalidInputError("times must be a sequence with one timestamp per run")
    array = np.asarray(times)
    if array.ndim != 1 or array.shape[0] != n:
        raise InvalidInputError(
            f"times must hold one timestamp per run ({n}), got shape {array.shape}"
        )
    if array.dtype.kind == "M":
        ns = array.astype("datetime64[ns]")
        if np.isnat(ns).any():
            raise InvalidInputError("times contains NaT; every run needs a timestamp")
        seconds = ns.astype(np.int64).astype(np.float64) * 1e-9
    elif array.dtype.kind in "iuf":
        seconds = array.astype(np.float64)
    elif array.dtype.kind == "O":
        seconds = _object_times_seconds(array)
    else:
        raise InvalidInputError(f"times must be datetimes or seconds, got dtype {array.dtype}")
    if not np.isfinite(seconds).all():
        raise InvalidInputError("times must be finite")
    if n > 1 and (np.diff(seconds) < 0).any():
        index = int(np.flatnonzero(np.diff(seconds) < 0)[0]) + 1
        raise InvalidInputError(
            f"times must be non-decreasing (run order); times[{index}] is earlier than "
            f"times[{index - 1}]"
        )
    return seconds


def check_compliance_options(
    short_window: Any,
    long_window: Any,
    per_run_average: Any,
    encoding: Any,
    higher_is_better: Any,
) -> tuple[int, int, bool, CsitEncoding]:
    """The windows, ``per_run_average`` and ``encoding`` of ``trend_compliance``."""
    s_window = check_int(short_window, "short_window", low=0)
    l_window = check_int(long_window, "long_window", low=1)
    average = check_bool(per_run_average, "per_run_average")
    coding: CsitEncoding = check_choice(encoding, "encoding", ("jumpavg", "methodology"))
    if higher_is_better is not None:
        check_bool(higher_is_better, "higher_is_better")
    return s_window, l_window, average, coding


@dataclass(frozen=True, slots=True)
class DetectOptions:
    """Validated options of ``detect_changes`` (shared with ``DetectStream``).

    ``delta`` is ``min_size``, ``level`` the significance level, ``permutations``
    ``n_permutations``, ``tolerance`` ``location_tolerance`` and ``threshold`` the
    per-test threshold ``_config.DETECT_THRESHOLD_FACTOR * level``.
    """

    delta: int
    level: float
    test: ChangeTest
    unit: str | None
    rng: RandomState
    permutations: int
    tolerance: int
    variance_changes: bool
    threshold: float


def _check_variance_changes(variance_changes: Any, test: ChangeTest) -> bool:
    """``variance_changes``: None (True with the rank test), or a bool the test allows."""
    if variance_changes is None:
        variance_changes = test == "rank"
    if not isinstance(variance_changes, (bool, np.bool_)):
        raise InvalidInputError(
            f"variance_changes must be True, False or None, got {variance_changes!r}"
        )
    if variance_changes and test != "rank":
        raise InvalidInputError(
            "variance_changes=True needs test='rank' (the permutation test scans levels "
            "only); "
            f"got test={test!r}"
        )
    return bool(variance_changes)


def _check_detect_threshold(level: float) -> float:
    """The per-test threshold ``_config.DETECT_THRESHOLD_FACTOR * level``, in (0, 1)."""
    threshold = float(_config.DETECT_THRESHOLD_FACTOR) * level
    if not 0.0 < threshold < 1.0:
        raise InvalidInputError(
            "_config.DETECT_THRESHOLD_FACTOR * significance_level must lie in (0, 1), got "
            f"{threshold!r}; restore the factor with pilotstats._config.reset()"
        )
    return threshold


def _check_permutation_test(rng: Any, permutations: int, level: float, threshold: float) -> None:
    """The permutation test needs a seed and enough permutations to reach the threshold."""
    if rng is None:
        raise InvalidInputError(
            "test='permutation' needs rng (an integer seed or a numpy Generator) so that "
            "the result is reproducible; got rng=None"
        )
    needed = math.ceil(1.0 / threshold - 1.0 - 1e-9)
    if permutations < needed:
        raise InvalidInputError(
            f"n_permutations must be at least {needed} for significance_level {level:g}: "
            f"the smallest permutation p-value 1/(n_permutations + 1) must not exceed "
            f"the per-test threshold {threshold:g}; got {permutations}"
        )


def check_detect_options(
    *,
    min_size: Any,
    significance_level: Any,
    rng: Any,
    test: Any,
    n_permutations: Any,
    location_tolerance: Any,
    variance_changes: Any,
    unit: Any,
) -> DetectOptions:
    """Validate the keyword arguments of ``detect_changes`` into a :class:`DetectOptions`."""
    delta = check_int(min_size, "min_size", low=2)
    level = check_probability(significance_level, "significance_level")
    chosen: ChangeTest = check_choice(test, "test", ("rank", "permutation"))
    unit = check_text(unit, "unit", allow_none=True)
    check_rng(rng)  # the Generator is built only for the permutation test
    permutations = check_int(n_permutations, "n_permutations", low=1)
    tolerance = check_int(location_tolerance, "location_tolerance", low=0)
    variance = _check_variance_changes(variance_changes, chosen)
    threshold = _check_detect_threshold(level)
    if chosen == "permutation":
        _check_permutation_test(rng, permutations, level, threshold)
    return DetectOptions(
        delta, level, chosen, unit, rng, permutations, tolerance, variance, threshold
    )


def check_equivalence_fractions(
    tolerance: Any, min_steady_fraction: Any, min_warmup_fraction: Any
) -> tuple[float, float, float]:
    """``tolerance`` and ``min_steady_fraction`` in (0, 1), ``min_warmup_fraction`` in
    [0, 1) and below ``1 - min_steady_fraction`` (the equivalence model of long forks)."""
    band = check_probability(tolerance, "tolerance")
    steady_share = check_probability(min_steady_fraction, "min_steady_fraction")
    warmup_share = check_real(
        min_warmup_fraction, "min_warmup_fraction", low=0.0, high=1.0, high_inclusive=False
    )
    if warmup_share >= 1.0 - steady_share:
        raise InvalidInputError(
            f"min_warmup_fraction must be below 1 - min_steady_fraction = "
            f"{1.0 - steady_share:g}; got {min_warmup_fraction!r}"
        )
    return band, steady_share, warmup_share


@dataclass(frozen=True, slots=True)
class StableOptions:
    """Validated options of ``stable_phase`` (shared with ``StablePhaseStream``).

    ``rng`` and ``location_tolerance`` are passed on unchecked: the change-point detector
    validates them.
    """

    method: StablePhaseMethod
    delta: int
    level: float
    ci_level: float
    tolerance: float
    steady_share: float
    warmup_share: float
    higher_is_better: bool
    unit: str | None
    rng: Any
    location_tolerance: Any


def check_stable_options(
    *,
    method: Any,
    min_size: Any,
    significance_level: Any,
    confidence_level: Any,
    rng: Any,
    location_tolerance: Any,
    tolerance: Any,
    min_steady_fraction: Any,
    min_warmup_fraction: Any,
    higher_is_better: Any,
    unit: Any,
) -> StableOptions:
    """Validate the keyword arguments of ``stable_phase`` into a :class:`StableOptions`."""
    requested: StablePhaseMethod = check_choice(
        method, "method", ("auto", "equivalence", "robust", "pilot")
    )
    delta = check_int(min_size, "min_size", low=2)
    level = check_probability(significance_level, "significance_level")
    ci_level = check_confidence_level(confidence_level)
    band, steady_share, warmup_share = check_equivalence_fractions(
        tolerance, min_steady_fraction, min_warmup_fraction
    )
    rates = check_bool(higher_is_better, "higher_is_better")
    unit = check_text(unit, "unit", allow_none=True)
    return StableOptions(
        requested, delta, level, ci_level, band, steady_share, warmup_share, rates, unit,
        rng, location_tolerance,
    )


def check_forks(forks: Any) -> list[np.ndarray]:
    """Validated float64 copies of the forks (2-D array or sequence of 1-D series)."""
    if isinstance(forks, (str, bytes)) or np.isscalar(forks):
        raise InvalidInputError(
            "forks must be a 2-D array (one row per fork) or a sequence of 1-D series, got "
            f"{type(forks).__name__}"
        )
    reject_container_misuse(forks, "forks")
    if isinstance(forks, np.ndarray) and forks.dtype == object and forks.ndim == 1:
        forks = list(forks)  # ragged forks held in an object array
    if isinstance(forks, np.ndarray) or hasattr(forks, "to_numpy"):
        matrix = as_float_array(forks, "forks", ndim=2)
        rows = [np.ascontiguousarray(row) for row in matrix]
    else:
        if not isinstance(forks, Sequence):
            raise InvalidInputError(
                "forks must be a 2-D array or a sequence of 1-D series, got "
                f"{type(forks).__name__} (materialise iterators with list() first)"
            )
        if forks and all(isinstance(item, (int, float, np.number)) for item in forks):
            raise InvalidInputError(
                "forks must hold one series per fork; got a single series of numbers (wrap "
                "it as [x], or use stable_phase for one fork)"
            )
        rows = [as_float_array(item, f"forks[{i}]") for i, item in enumerate(forks)]
    if not rows:
        raise NotEnoughDataError("forks is empty; need at least one fork")
    for i, row in enumerate(rows):
        if row.shape[0] < _config.EQUIVALENCE_MIN_LENGTH:
            raise NotEnoughDataError(
                f"forks[{i}] has {row.shape[0]} iterations; the steady-state model needs at "
                f"least {_config.EQUIVALENCE_MIN_LENGTH} per fork"
            )
    return rows


@dataclass(frozen=True, slots=True)
class SteadyOptions:
    """Validated options of ``steady_state``."""

    tolerance: float
    steady_share: float
    warmup_share: float
    unsteady_share: float
    higher_is_better: bool
    level: float
    ci_level: float
    unit: str | None


def check_steady_options(
    *,
    tolerance: Any,
    min_steady_fraction: Any,
    min_warmup_fraction: Any,
    max_unsteady_fraction: Any,
    higher_is_better: Any,
    significance_level: Any,
    confidence_level: Any,
    unit: Any,
) -> SteadyOptions:
    """Validate the keyword arguments of ``steady_state`` into a :class:`SteadyOptions`."""
    band, steady_share, warmup_share = check_equivalence_fractions(
        tolerance, min_steady_fraction, min_warmup_fraction
    )
    unsteady_share = check_real(
        max_unsteady_fraction, "max_unsteady_fraction", low=0.0, high=1.0,
        high_inclusive=False,
    )
    rates = check_bool(higher_is_better, "higher_is_better")
    level = check_probability(significance_level, "significance_level")
    ci_level = check_confidence_level(confidence_level)
    unit = check_text(unit, "unit", allow_none=True)
    return SteadyOptions(
        band, steady_share, warmup_share, unsteady_share, rates, level, ci_level, unit
    )


def check_edm_min_size(min_size: Any) -> int:
    return check_int(min_size, "min_size", low=2)


def check_edm_degree(degree: Any) -> int:
    value = check_int(degree, "degree")
    if value not in (0, 1, 2):
        raise InvalidInputError(
            f"degree must be 0 (no penalty), 1 (linear) or 2 (quadratic), got {value}"
        )
    return value


def check_edm_penalty(beta: Any, percent: Any) -> tuple[bool, float]:
    """Return (percent_mode, penalty) from the mutually exclusive ``beta`` / ``percent``."""
    if beta is not None and percent is not None:
        raise InvalidInputError(
            "beta and percent cannot be given together: pass beta for EDM-multi (additive "
            "penalty) or percent for EDM-percent (relative gain), not both"
        )
    if percent is not None:
        return True, check_real(percent, "percent", low=0.0)
    if beta is None:
        return False, _config.EDM_DEFAULT_BETA
    return False, check_real(beta, "beta", low=0.0)


def check_edm_scale(scale: Any) -> EdmScale:
    value: EdmScale = check_choice(scale, "scale", ("range", "none"))
    return value


def check_max_history(max_history: Any) -> int | None:
    """``max_history``: None or an integer >= 1."""
    if max_history is None:
        return None
    return check_int(max_history, "max_history", low=1)


def check_resolution_sbps(
    resolution: Any, sbps: Any
) -> tuple[float | None, float | None]:
    resolution_value: float | None = None
    sbps_value: float | None = None
    if resolution is not None:
        if (
            isinstance(resolution, numbers.Real)
            and not isinstance(resolution, bool)
            and resolution == 0
        ):
            raise InvalidInputError(
                "resolution must be a finite number > 0, got 0; pass resolution=None to "
                "derive it from the maximum (jumpavg treats a unit of 0 as 'not given')"
            )
        if isinstance(resolution, str):
            raise InvalidInputError(
                f"resolution must be a finite number > 0 (the numeric resolution of the "
                f"values), got the string {resolution!r}; a unit label is not a resolution"
            )
        resolution_value = check_real(resolution, "resolution", low=0.0, low_inclusive=False)
    if sbps is not None:
        if isinstance(sbps, numbers.Real) and not isinstance(sbps, bool) and sbps == 0:
            raise InvalidInputError(
                "sbps must be a number in (0, 60], got 0; pass sbps=None for the default 12"
            )
        sbps_value = check_real(sbps, "sbps", low=0.0, high=60.0, low_inclusive=False)
    return resolution_value, sbps_value


_MAX_MAGNITUDE = 1e150


#: Smallest magnitude of the largest sample: below it the resolution
#: ``max / (2**(sbps+1) - 1)`` and the squared deviations underflow (a zero standard
#: deviation, NaN code lengths).
_MIN_MAGNITUDE = 2.0**-500


def check_mdl_range(samples: np.ndarray, name: str) -> tuple[float, float] | None:
    """Check the magnitude of the samples; return their (minimum, maximum), None if empty."""
    if not samples.size:
        return None
    low, high = float(samples.min()), float(samples.max())
    peak = max(high, -low)
    if peak > _MAX_MAGNITUDE:
        raise InvalidInputError(
            f"{name} has a sample of magnitude above {_MAX_MAGNITUDE:g}; rescale the data "
            "(the moment accumulation would overflow)"
        )
    if 0.0 < peak < _MIN_MAGNITUDE:
        raise InvalidInputError(
            f"{name} has no sample of magnitude above {_MIN_MAGNITUDE:g} (largest "
            f"{peak!r}): the resolution would be subnormal and the code lengths "
            "NaN; rescale the data (e.g. express it in a smaller unit)"
        )
    return low, high


def check_edm_single_options(
    min_size: Any, exact: Any, alpha: Any, quantile: Any, tree: Any
) -> tuple[int, bool, float, float, EdmTree]:
    """``min_size``, ``exact`` and the EDM-tail settings of ``edm_single`` (validated even
    when EDM-X ignores them: a bad value is a mistake either way)."""
    delta = check_edm_min_size(min_size)
    if not isinstance(exact, (bool, np.bool_)):
        raise InvalidInputError(f"exact must be True or False, got {exact!r}")
    alpha_value = check_real(alpha, "alpha", low=0.0, high=2.0, low_inclusive=False)
    quantile_value = check_real(
        quantile, "quantile", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False
    )
    tree_value: EdmTree = check_choice(tree, "tree", ("paper", "reference"))
    return delta, bool(exact), alpha_value, quantile_value, tree_value
