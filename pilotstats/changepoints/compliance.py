"""Trend compliance metrics of FD.io CSIT's dashboard, computed from an MDL partition.

Public: :func:`trend_compliance`, :class:`TrendCompliance` (documentation
``docs/algorithms/mdl.md``, *Compliance metrics*).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import numbers
import re
from typing import Any

import numpy as np

from pilotstats._typing import CsitEncoding, Float64Array1D
from pilotstats._validation import check_bool, check_choice, check_int
from pilotstats.changepoints._mdl_input import _check_resolution_sbps, _parse_values
from pilotstats.changepoints.mdl import TrendGroups, mdl_partition
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import Result, format_number

__all__ = ["TrendCompliance", "trend_compliance"]

_PERIOD_UNITS = {
    "w": 604800.0,
    "d": 86400.0,
    "h": 3600.0,
    "min": 60.0,
    "m": 60.0,
    "s": 1.0,
}
#: jumpavg's default significant bits per sample.
_DEFAULT_SBPS = 12.0

_PERIOD_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(w|d|h|min|m|s)\s*$", re.IGNORECASE)


@dataclasses.dataclass(frozen=True, slots=True)
class TrendCompliance(Result):
    """CSIT trend compliance metrics.

    Attributes
    ----------
    last_trend : float
        Trend (group mean) at the last run.
    runs_in_last_trend : int
        Number of runs in the last group (CSIT's "Runs"; the column of the same name of
        :func:`~pilotstats.analysis.trend_many`).
    reference : float
        Best trend inside the reference window (max when higher is better, min
        otherwise); NaN when the window is empty.
    long_term_change : float
        CSIT's trend change (the dashboard's "Long-Term Change"),
        ``(last_trend − reference) / reference`` as a fraction (see
        :attr:`long_term_change_percent`); NaN when the reference is NaN or 0.
    n_regressions, n_progressions : int
        Groups labelled regression / progression that start in the last
        ``short_window`` runs.
    window_start, window_end : int or None
        First and last run (inclusive) of the reference window; None when empty.
    last_run : int
        Index of the last run with a trend value.
    short_window, long_window : int
        Run-count windows (CSIT: 10 runs ≈ one week, 180 runs ≈ three months).
    short_period, long_period : float or None
        Real-time windows in seconds (None in the runs-as-time variant).
    higher_is_better : bool
        Direction of the reference.
    reference_is_earliest : bool
        The history is shorter than the short window (``n <= short_window``, or no run is
        ``short_period`` older than the last): as CSIT defines it, the earliest available
        trend is the reference (``window_start == window_end``).

    Examples
    --------
    Returned by :func:`trend_compliance`:

    >>> from pilotstats.changepoints import trend_compliance
    >>> values = [10.0, 10.1, 9.9, 10.0, 10.1] * 6 + [8.0, 8.1, 7.9, 8.0, 8.1] * 3
    >>> print(trend_compliance(values))  # doctest: +NORMALIZE_WHITESPACE
    last trend 8.02 over 15 runs; reference (max, runs 0..34) 10.02; long-term change
    -19.96 %; recent (last 10 runs): 0 regression(s), 0 progression(s)
    """

    last_trend: float
    runs_in_last_trend: int
    reference: float
    long_term_change: float
    n_regressions: int
    n_progressions: int
    window_start: int | None
    window_end: int | None
    last_run: int
    short_window: int
    long_window: int
    short_period: float | None
    long_period: float | None
    higher_is_better: bool
    reference_is_earliest: bool = False

    @property
    def long_term_change_percent(self) -> float:
        """:attr:`long_term_change` in percent (the column of the same name of
        :func:`~pilotstats.analysis.trend_many`)."""
        return 100.0 * self.long_term_change

    def __str__(self) -> str:
        if self.window_start is None:
            window = "empty reference window"
        elif self.reference_is_earliest:
            window = f"short history: earliest trend, run {self.window_start}"
        else:
            window = f"runs {self.window_start}..{self.window_end}"
        kind = "max" if self.higher_is_better else "min"
        return (
            f"last trend {format_number(self.last_trend, 6)} over {self.runs_in_last_trend} "
            f"runs; reference ({kind}, {window}) {format_number(self.reference, 6)}; "
            f"long-term change {format_number(self.long_term_change_percent, 4)} %; "
            "recent (last "
            f"{self.short_window} runs): {self.n_regressions} regression(s), "
            f"{self.n_progressions} progression(s)"
        )

    def _extra_dict(self) -> dict[str, Any]:
        return {"confidence_level": None, "unit": None}


def _period_seconds(value: Any, name: str) -> float:
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


def _times_seconds(times: Any, n: int) -> np.ndarray:
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
        seconds = np.array(converted, dtype=np.float64)
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


def trend_compliance(
    groups_or_values: Any,
    *,
    times: Any = None,
    short_window: int = 10,
    long_window: int = 180,
    short_period: Any = "7D",
    long_period: Any = "180D",
    higher_is_better: bool | None = None,
    resolution: float | None = None,
    sbps: float | None = None,
    per_run_average: bool = False,
    encoding: CsitEncoding = "jumpavg",
) -> TrendCompliance:
    """CSIT trend compliance: last trend, runs in it, reference and long-term change.

    Parameters
    ----------
    groups_or_values : TrendGroups or sequence of runs
        A result of :func:`mdl_partition`, or values that are partitioned first (with
        ``resolution``, ``sbps`` and ``higher_is_better``).
    times : sequence, optional
        One timestamp per run (datetimes, ``datetime64`` or seconds), non-decreasing;
        naive datetimes are taken as UTC. Selects the real-time window.
    short_window : int, default 10
        S, runs standing in for "one week" (CSIT used 10, or 5 for single-testbed types;
        its daily jobs used 14).
    long_window : int, default 180
        L, runs standing in for "three months".
    short_period, long_period : str, timedelta or float, default "7D", "180D"
        Real-time limits (only with ``times``); strings like "7D", "12h", "30min", or
        seconds.
    higher_is_better : bool, optional
        Direction (max or min as reference). Defaults to the partition's own flag, or True
        when values are given.
    resolution, sbps : float, optional
        Passed to :func:`mdl_partition` when values are given.
    per_run_average : bool, default False
        Replace every run (a sequence of trials) by the average of its trials before
        partitioning, as CSIT's presentation does: "the current presentation takes average
        of all trials within the MRR run as the sample. Effectively, this acts as a single
        trial with aggregate duration." False codes every trial as a sample (jumpavg's
        own model, boundaries still between runs). Only when values are given.
    encoding : {"jumpavg", "methodology"}, default "jumpavg"
        Numeric precision of the derived resolution. ``"jumpavg"``: jumpavg's code, the
        largest sample is ``2**(sbps + 1) - 1`` units (8191 at ``sbps = 12``; the pinned
        jumpavg values). ``"methodology"``: CSIT's methodology text, "the max sample value
        is 4096 (2^12) pixels", i.e. a resolution of ``max / 2**sbps``. Only when values
        are given and ``resolution`` is not.

    Returns
    -------
    TrendCompliance

    Raises
    ------
    InvalidInputError
        Bad windows, periods or times; invalid values (see :func:`mdl_partition`).

    Notes
    -----
    With trend[r] the mean of the group holding run r and ``last = n − 1``:
    Reference = best of trend over the window, Long-Term Change (CSIT's "trend change") =
    (trend[last] − Reference) / Reference. Runs as time (default): the window is runs
    ``max(0, n − L) .. n − 1 − S`` (CSIT's slice ``trend[n − min(n, L) : n − min(n, S)]``).
    Real time: runs with ``t_r <= t_last − short_period``, ``t_r >= t_last − long_period``
    and ``r >= n − L`` ("180 days or 180 runs, whichever comes first"). "If the history is
    too short, the earliest available trend is used" (CSIT): when ``n <= S`` (real time: no
    run is ``short_period`` older than the last) the reference is the trend of the first
    run that has one, and ``reference_is_earliest`` is set. Missing runs (NaN trend) are
    ignored; n counts up to the last run that has a trend.

    Complexity: That of :func:`mdl_partition` on the values (nothing when a partition is
    given), plus O(n).

    References
    ----------
    .. [1] FD.io CSIT, "Trend analysis" and "Trend compliance" sections of the trending
       methodology (``docs/content/methodology/trending/analysis.md``).

    Examples
    --------
    >>> from pilotstats.changepoints import trend_compliance
    >>> values = [10.0, 10.1, 9.9, 10.0, 10.1] * 6 + [8.0, 8.1, 7.9, 8.0, 8.1] * 3
    >>> c = trend_compliance(values)
    >>> round(c.last_trend, 2), c.runs_in_last_trend, round(c.long_term_change_percent, 1)
    (8.02, 15, -20.0)
    """
    s_window = check_int(short_window, "short_window", low=0)
    l_window = check_int(long_window, "long_window", low=1)
    per_run_average = check_bool(per_run_average, "per_run_average")
    coding = check_choice(encoding, "encoding", ("jumpavg", "methodology"))
    if higher_is_better is not None:
        check_bool(higher_is_better, "higher_is_better")
    if isinstance(groups_or_values, TrendGroups):
        groups = groups_or_values
        if resolution is not None or sbps is not None:
            raise InvalidInputError(
                "resolution and sbps apply only when values are given; the partition "
                "already has its resolution"
            )
        direction = groups.higher_is_better if higher_is_better is None else higher_is_better
        if per_run_average or coding != "jumpavg":
            raise InvalidInputError(
                "per_run_average and encoding apply only when values are given; the "
                "partition is already made"
            )
    else:
        direction = True if higher_is_better is None else higher_is_better
        values: Any = groups_or_values
        if per_run_average:
            values = _run_averages(values)
        if coding == "methodology":
            if resolution is not None:
                raise InvalidInputError(
                    'encoding="methodology" derives the resolution from the maximum; pass '
                    "either resolution or encoding, not both"
                )
            resolution = _methodology_resolution(values, sbps)
            sbps = None
        groups = mdl_partition(
            values, resolution=resolution, sbps=sbps, higher_is_better=bool(direction)
        )
    direction = bool(direction)
    trend = np.asarray(groups.trend_mean)
    last_group = groups.groups[-1]
    last = int(last_group.end) - 1  # the last run with a trend ends the last group
    n = last + 1
    last_trend = float(trend[last])
    n_last = int(last_group.n_runs)
    short_seconds: float | None = None
    long_seconds: float | None = None
    if times is None:
        lo = n - min(n, l_window)
        hi = n - min(n, s_window)  # exclusive
        candidates = np.arange(lo, hi)
        window = trend[lo:hi]
        short_history = n <= s_window
        oldest = max(0, n - l_window)
    else:
        seconds = _times_seconds(times, groups.n_runs)
        short_seconds = _period_seconds(short_period, "short_period")
        long_seconds = _period_seconds(long_period, "long_period")
        t_last = seconds[last]
        index = np.arange(n)
        mask = (
            (seconds[:n] <= t_last - short_seconds)
            & (seconds[:n] >= t_last - long_seconds)
            & (index >= n - l_window)
        )
        candidates = index[mask]
        window = trend[candidates]
        short_history = not bool(np.any(seconds[:n] <= t_last - short_seconds))
        within = (seconds[:n] >= t_last - long_seconds) & (index >= n - l_window)
        oldest = int(np.flatnonzero(within)[0])  # the last run itself is always within
    earliest = False
    if short_history:
        # "If the history is too short, the earliest available trend is used" (CSIT)
        present = np.flatnonzero(~np.isnan(trend[oldest:n]))
        candidates = present[:1] + oldest
        window = trend[candidates]
        earliest = bool(candidates.size)
    finite = window[~np.isnan(window)]
    if finite.size:
        reference = float(finite.max() if direction else finite.min())
        window_start: int | None = int(candidates[0])
        window_end: int | None = int(candidates[-1])
    else:
        reference = math.nan
        window_start = window_end = None
    if math.isnan(reference) or reference == 0.0:
        change = math.nan
    else:
        change = (last_trend - reference) / reference
    recent_start = n - s_window
    n_reg = sum(
        1 for g in groups.groups if g.start >= recent_start and g.classification == "regression"
    )
    n_prog = sum(
        1 for g in groups.groups if g.start >= recent_start and g.classification == "progression"
    )
    return TrendCompliance(
        last_trend=last_trend,
        runs_in_last_trend=n_last,
        reference=reference,
        long_term_change=float(change),
        n_regressions=int(n_reg),
        n_progressions=int(n_prog),
        window_start=window_start,
        window_end=window_end,
        last_run=last,
        short_window=s_window,
        long_window=l_window,
        short_period=short_seconds,
        long_period=long_seconds,
        higher_is_better=direction,
        reference_is_earliest=earliest,
    )


def _run_averages(values: Any) -> Float64Array1D:
    """One sample per run: the average of its trials (CSIT's presentation)."""
    runs = _parse_values(values, "raise", name="groups_or_values")
    sums = np.add.reduceat(runs.samples, runs.offsets[:-1])
    return np.asarray(sums / np.diff(runs.offsets), dtype=np.float64)


def _methodology_resolution(values: Any, sbps: float | None) -> float | None:
    """``max / 2**sbps``: "the max sample value is 4096 (2^12) pixels" (CSIT's text).

    None when the maximum is not positive (then :func:`mdl_partition` reports it).
    """
    _, bits = _check_resolution_sbps(None, sbps)
    runs = _parse_values(values, "raise", name="groups_or_values")
    maximum = max(0.0, float(np.max(runs.samples)))
    if maximum <= 0.0:
        return None
    return float(maximum / 2.0 ** (_DEFAULT_SBPS if bits is None else bits))
