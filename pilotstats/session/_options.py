"""Option objects of :class:`BenchmarkSession` and :class:`WorkPlanner`.

Each object groups the keywords of one concern: an interval target (:class:`IntervalTarget`),
the WPS analysis (:class:`WpsOptions`), a family of performance indices
(:class:`IndexOptions`, once for readings and once for unit readings), the planner's initial
ramp (:class:`RampOptions`), the round limits (:class:`RoundLimits`) and the warm-up removal
of unit readings (:class:`WarmupOptions`). The objects only carry values: the session and the
planner validate them (the error messages name the flat keyword, e.g.
``readings_half_width_percent``).

A saved session state keeps the flat form (one key per former keyword);
:func:`flat_options` and :func:`options_from_flat` map between the two.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from pilotstats import _config
from pilotstats._typing import MeanMethod, SubsessionBasis, WarmupRemoval
from pilotstats.regression._outliers import OUTLIER_THRESHOLD

__all__ = [
    "IndexOptions",
    "IntervalTarget",
    "RampOptions",
    "RoundLimits",
    "WarmupOptions",
    "WpsOptions",
    "flat_options",
    "options_from_flat",
]


@dataclasses.dataclass(frozen=True, slots=True)
class IntervalTarget:
    """Target of one confidence interval.

    Parameters
    ----------
    half_width_percent : float, optional
        Target half width in percent of the estimate.
    half_width : float, optional
        Target half width in the unit of the estimate. The smaller enabled target applies;
        both None: 5 %.
    min_subsessions : int, optional
        Minimum number of subsessions before the target can be met (None: 21 for the WPS
        throughput, 10 for a readings or unit-readings index).

    Examples
    --------
    >>> from pilotstats.session import IntervalTarget
    >>> IntervalTarget(half_width_percent=2.5).half_width_percent
    2.5
    """

    half_width_percent: float | None = None
    half_width: float | None = None
    min_subsessions: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class WpsOptions:
    """Options of the WPS throughput analysis.

    Parameters
    ----------
    interval : IntervalTarget, optional
        Target of the throughput interval (default: 5 %, at least 21 subsessions).
    enabled : bool, default True
        Estimate the stable throughput by WPS regression (needs ``max_work``).
    subsession_basis : {"residuals", "rates"}, default "residuals"
        Passed to the WPS regression (see :func:`pilotstats.regression.wps`).
    outlier_threshold : float or None, default 10.0
        Rounds further than this many robust standard deviations from the WPS line are
        excluded from the fit; None keeps all.

    Examples
    --------
    >>> from pilotstats.session import IntervalTarget, WpsOptions
    >>> WpsOptions(interval=IntervalTarget(half_width_percent=2.0)).enabled
    True
    """

    interval: IntervalTarget = IntervalTarget()
    enabled: bool = True
    subsession_basis: SubsessionBasis = "residuals"
    outlier_threshold: float | None = OUTLIER_THRESHOLD


@dataclasses.dataclass(frozen=True, slots=True)
class IndexOptions:
    """Options of a family of performance indices (readings or unit readings).

    Parameters
    ----------
    interval : IntervalTarget, optional
        Target of each index's interval (default: 5 %, at least 10 subsessions).
    mean_method : {"arithmetic", "harmonic"}, default "arithmetic"
        Mean of undeclared indices; declared indices follow their ``index_type``.
    declarations : sequence of PerformanceIndex, optional
        Declarations of the indices, one per index in the order of the recorded values.
    baseline : Baseline or sequence, optional
        Baselines per index (a single one applies to index 0).

    Examples
    --------
    >>> from pilotstats.session import IndexOptions, IntervalTarget
    >>> IndexOptions(interval=IntervalTarget(half_width=0.1), mean_method="harmonic").mean_method
    'harmonic'
    """

    interval: IntervalTarget = IntervalTarget()
    mean_method: MeanMethod = "arithmetic"
    declarations: Sequence[Any] | None = None
    baseline: Any = None


@dataclasses.dataclass(frozen=True, slots=True)
class RampOptions:
    """Options of the work planner's start: first round and initial ramp.

    Parameters
    ----------
    initial_work : float, optional
        Work amount of the first round (``max(1, min_work)`` when None).
    target_initial_time : float, default 60.0
        Time budget of the initial ramp (s).
    initial_rounds : int, default 51
        Number of rounds the ramp is planned over.
    soft_limit_factor : float, default 5.0
        No proposal exceeds this factor times the mean of all previous work amounts.

    Examples
    --------
    >>> from pilotstats.session import RampOptions
    >>> RampOptions(target_initial_time=2.0).initial_rounds
    51
    """

    initial_work: float | None = None
    target_initial_time: float = 60.0
    initial_rounds: int = 51
    soft_limit_factor: float = _config.WPS_SOFT_LIMIT_FACTOR


@dataclasses.dataclass(frozen=True, slots=True)
class RoundLimits:
    """How many rounds a session runs, and which rounds count.

    Parameters
    ----------
    min_rounds : int, default 10
        The session never finishes before this many rounds.
    max_rounds : int or None, default 1000
        Stop (``stop_reason="max_rounds"``) after this many rounds.
    max_duration : float, optional
        Stop once the recorded rounds add up to this many seconds.
    min_round_duration : float, optional
        Rounds shorter than this (s) are *short*: stored but not analysed. None: 1 s when
        the session sets the work amount (``max_work``), 0 s otherwise.

    Examples
    --------
    >>> from pilotstats.session import RoundLimits
    >>> RoundLimits(min_rounds=5, max_rounds=None).max_rounds is None
    True
    """

    min_rounds: int = 10
    max_rounds: int | None = 1000
    max_duration: float | None = None
    min_round_duration: float | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class WarmupOptions:
    """How each round's unit readings lose their warm-up.

    Parameters
    ----------
    removal : {"pooled", "stable_phase", "trim", "none"}, default "pooled"
        The method (see :class:`BenchmarkSession`).
    min_size : int, default 30
        Minimum segment length for ``removal="stable_phase"``.
    trim_fraction : float, default 0.1
        Fraction trimmed by ``removal="trim"``.

    Examples
    --------
    >>> from pilotstats.session import WarmupOptions
    >>> WarmupOptions(removal="trim", trim_fraction=0.2).min_size
    30
    """

    removal: WarmupRemoval = "pooled"
    min_size: int = 30
    trim_fraction: float = 0.1


# Flat key -> (option group, field); a target's fields are "interval.<field>".
_FLAT: dict[str, tuple[str, str]] = {
    "initial_work": ("ramp", "initial_work"),
    "target_initial_time": ("ramp", "target_initial_time"),
    "half_width_percent": ("wps", "interval.half_width_percent"),
    "half_width": ("wps", "interval.half_width"),
    "min_subsessions": ("wps", "interval.min_subsessions"),
    "wps_analysis": ("wps", "enabled"),
    "subsession_basis": ("wps", "subsession_basis"),
    "outlier_threshold": ("wps", "outlier_threshold"),
    "min_rounds": ("limits", "min_rounds"),
    "max_rounds": ("limits", "max_rounds"),
    "max_duration": ("limits", "max_duration"),
    "min_round_duration": ("limits", "min_round_duration"),
    "warmup_removal": ("warmup", "removal"),
    "min_size": ("warmup", "min_size"),
    "trim_fraction": ("warmup", "trim_fraction"),
}
for _family in ("readings", "unit_readings"):
    _FLAT.update({
        f"{_family}_half_width_percent": (_family, "interval.half_width_percent"),
        f"{_family}_half_width": (_family, "interval.half_width"),
        f"{_family}_min_subsessions": (_family, "interval.min_subsessions"),
        f"{_family}_mean_method": (_family, "mean_method"),
        f"{_family}_indices": (_family, "declarations"),
    })
_FLAT["baseline_readings"] = ("readings", "baseline")
_FLAT["baseline_unit_readings"] = ("unit_readings", "baseline")
# Ramp fields saved only when they differ from their default.
_OPTIONAL_FLAT: dict[str, tuple[str, str]] = {
    "initial_rounds": ("ramp", "initial_rounds"),
    "soft_limit_factor": ("ramp", "soft_limit_factor"),
}
_GROUPS: dict[str, type] = {
    "ramp": RampOptions, "wps": WpsOptions, "readings": IndexOptions,
    "unit_readings": IndexOptions, "limits": RoundLimits, "warmup": WarmupOptions,
}
# The order of the saved keys.
_ORDER = (
    "max_work", "min_work", "initial_work", "half_width_percent", "half_width",
    "readings_half_width_percent", "readings_half_width", "unit_readings_half_width_percent",
    "unit_readings_half_width", "confidence_level", "autocorrelation_limit", "min_rounds",
    "max_rounds", "max_duration", "min_round_duration", "target_initial_time", "wps_analysis",
    "min_subsessions", "readings_min_subsessions", "unit_readings_min_subsessions",
    "warmup_removal", "min_size", "trim_fraction", "readings_mean_method",
    "unit_readings_mean_method", "readings_indices", "unit_readings_indices",
    "baseline_readings", "baseline_unit_readings", "significance_level", "subsession_basis",
    "outlier_threshold", "unit",
)
_SESSION_DEFAULT_MIN_SUBSESSIONS = {"wps": 21, "readings": 10, "unit_readings": 10}


def _field(group: Any, path: str) -> Any:
    for part in path.split("."):
        group = getattr(group, part)
    return group


def flat_options(groups: dict[str, Any], **plain: Any) -> dict[str, Any]:
    """The flat saved form of a session's options.

    Parameters
    ----------
    groups : dict
        The option objects by keyword (``ramp``, ``wps``, ``readings``, ``unit_readings``,
        ``limits``, ``warmup``).
    **plain
        The keywords that are not option objects (``max_work``, ``unit``, ...).

    Returns
    -------
    dict
        One key per flat option; a missing ``min_subsessions`` is its family default.
    """
    flat = dict(plain)
    for key, (group, path) in _FLAT.items():
        flat[key] = _field(groups[group], path)
        if path == "interval.min_subsessions" and flat[key] is None:
            flat[key] = _SESSION_DEFAULT_MIN_SUBSESSIONS[group]
    flat = {key: flat[key] for key in _ORDER if key in flat}
    ramp_defaults = RampOptions()
    for key, (group, path) in _OPTIONAL_FLAT.items():
        value = _field(groups[group], path)
        if value != _field(ramp_defaults, path):
            flat[key] = value
    return flat


def options_from_flat(flat: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :class:`BenchmarkSession` for a flat option dict.

    Parameters
    ----------
    flat : dict
        Flat options, as saved in a session state; missing keys take their defaults.

    Returns
    -------
    dict
        Plain keywords as given, flat keys gathered into option objects.
    """
    mapping = {**_FLAT, **_OPTIONAL_FLAT}
    fields: dict[str, dict[str, Any]] = {group: {} for group in _GROUPS}
    targets: dict[str, dict[str, Any]] = {group: {} for group in _GROUPS}
    kwargs: dict[str, Any] = {}
    for key, value in flat.items():
        if key not in mapping:
            kwargs[key] = value
            continue
        group, path = mapping[key]
        if path.startswith("interval."):
            targets[group][path.removeprefix("interval.")] = value
        else:
            fields[group][path] = value
    for group, cls in _GROUPS.items():
        if targets[group]:
            fields[group]["interval"] = IntervalTarget(**targets[group])
        kwargs[group] = cls(**fields[group])
    return kwargs
