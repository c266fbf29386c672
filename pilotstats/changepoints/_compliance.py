"""Trend compliance metrics of FD.io CSIT's dashboard, computed from an MDL partition.

Public: :func:`trend_compliance`, :class:`TrendCompliance` (documentation
``docs/algorithms/mdl.md``, *Compliance metrics*).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pilotstats._typing import CsitEncoding, Float64Array1D
from pilotstats._validation import check_compliance_options
from pilotstats.changepoints._mdl import mdl_partition
from pilotstats.changepoints._mdl_input import _check_resolution_sbps, _parse_values
from pilotstats.changepoints._mdl_results import TrendCompliance, TrendGroups, partition_compliance
from pilotstats.exceptions import InvalidInputError

__all__ = ["trend_compliance"]

#: jumpavg's default significant bits per sample.
_DEFAULT_SBPS = 12.0


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
    s_window, l_window, average, coding = check_compliance_options(
        short_window, long_window, per_run_average, encoding, higher_is_better
    )
    if isinstance(groups_or_values, TrendGroups):
        return groups_or_values.compliance(
            times=times, short_window=s_window, long_window=l_window,
            short_period=short_period, long_period=long_period,
            higher_is_better=higher_is_better, resolution=resolution, sbps=sbps,
            per_run_average=average, encoding=coding,
        )
    direction = True if higher_is_better is None else bool(higher_is_better)
    groups = _partition(groups_or_values, average, coding, resolution, sbps, direction)
    return partition_compliance(
        groups, times, (s_window, l_window), (short_period, long_period), direction
    )


def _partition(
    values: Any,
    per_run_average: bool,
    encoding: str,
    resolution: float | None,
    sbps: float | None,
    higher_is_better: bool,
) -> TrendGroups:
    """:func:`mdl_partition` of the values as :func:`trend_compliance` codes them."""
    if per_run_average:
        values = _run_averages(values)
    if encoding == "methodology":
        if resolution is not None:
            raise InvalidInputError(
                'encoding="methodology" derives the resolution from the maximum; pass '
                "either resolution or encoding, not both"
            )
        resolution = _methodology_resolution(values, sbps)
        sbps = None
    return mdl_partition(
        values, resolution=resolution, sbps=sbps, higher_is_better=higher_is_better
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
