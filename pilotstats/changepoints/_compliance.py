"""Trend compliance metrics of FD.io CSIT's dashboard, computed from an MDL partition.

Public: :func:`trend_compliance`, :class:`TrendCompliance` (documentation
``docs/algorithms/mdl.md``, *Compliance metrics*).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pilotstats._typing import CsitEncoding, Float64Array1D
from pilotstats._validation import check_compliance_options, check_resolution_sbps
from pilotstats.changepoints._mdl import mdl_partition
from pilotstats.changepoints._mdl_input import _parse_values
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
        A result of :func:`mdl_partition`, or values that are partitioned first.
    times : sequence, optional
        One timestamp per run (datetimes, ``datetime64`` or seconds; naive datetimes are
        UTC), non-decreasing. Selects the real-time window.
    short_window, long_window : int, default 10, 180
        S and L, runs standing in for "one week" and "three months".
    short_period, long_period : str, timedelta or float, default "7D", "180D"
        Real-time limits (only with ``times``): "7D", "12h", "30min", or seconds.
    higher_is_better : bool, optional
        Max or min as reference (default: the partition's flag, or True for values).
    resolution, sbps : float, optional
        Passed to :func:`mdl_partition` when values are given.
    per_run_average : bool, default False
        Code each run's average of its trials as one sample (CSIT's presentation) instead
        of every trial (jumpavg's model). Only when values are given.
    encoding : {"jumpavg", "methodology"}, default "jumpavg"
        Derived resolution: jumpavg's ``max / (2**(sbps + 1) − 1)`` or CSIT's methodology
        text ``max / 2**sbps``. Only for values without ``resolution``.

    Returns
    -------
    TrendCompliance
        ``long_term_change`` is a fraction, ``(last_trend − reference) / reference``
        (``long_term_change_percent`` in percent).

    Raises
    ------
    InvalidInputError
        Bad windows, periods or times; invalid values (see :func:`mdl_partition`).

    Notes
    -----
    The reference window (runs ``max(0, n − L) .. n − 1 − S``, or the real-time window;
    the earliest trend for a short history) and the metrics: ``docs/algorithms/mdl.md``,
    *Compliance metrics* (FD.io CSIT's trending methodology, ``analysis.md``). Cost: that of
    :func:`mdl_partition` on values, plus O(n).

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
    encoding: CsitEncoding,
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
    _, bits = check_resolution_sbps(None, sbps)
    runs = _parse_values(values, "raise", name="groups_or_values")
    maximum = max(0.0, float(np.max(runs.samples)))
    if maximum <= 0.0:
        return None
    return float(maximum / 2.0 ** (_DEFAULT_SBPS if bits is None else bits))
