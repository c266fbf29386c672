"""Results of MDL partitioning: :class:`TrendGroup`, :class:`TrendGroups` and their CSIT
compliance metrics :class:`TrendCompliance`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import Any, SupportsIndex, overload

import numpy as np

from pilotstats._protocols import select_items
from pilotstats._stats import two_sided_t
from pilotstats._typing import ChangeLabel, CsitEncoding
from pilotstats._validation import (
    check_compliance_options,
    check_period_seconds,
    check_times_seconds,
)
from pilotstats.changepoints._csit import (
    LongTermReference,
    long_term_reference,
    relative_change,
    run_window,
)
from pilotstats.exceptions import InvalidInputError
from pilotstats.results import Result, draw, format_number, plot_doc

__all__ = ["TrendCompliance", "TrendGroup", "TrendGroups", "partition_compliance"]


@dataclasses.dataclass(frozen=True, slots=True)
class TrendGroup(Result):
    """One group of consecutive runs, modelled as an i.i.d. normal sample.

    Attributes
    ----------
    start, end : int
        Run indices, half-open ``[start, end)`` in the caller's run numbering.
    n_samples : int
        Number of samples in the group (what the code length counts; jumpavg's ``size``).
    n_runs : int
        Number of runs in the group (missing runs excluded).
    sample_start : int
        Index of the group's first sample among all present samples.
    mean : float
        Mean of the group's samples.
    std : float
        Sample standard deviation of the group's samples, with ``ddof=1`` (as
        :attr:`Segment.std <pilotstats.changepoints.Segment.std>`); NaN for a group of one
        sample (``None`` in :meth:`to_dict`). The code length is computed, as in jumpavg,
        from the population standard deviation ``std·sqrt((n_samples − 1)/n_samples)``.
    bits : float
        Code length of the group, coded after the previous group's mean.
    classification : {"normal", "regression", "progression"}
        Label relative to the previous group (the first group is always "normal").

    Examples
    --------
    The groups of a :func:`mdl_partition` result:

    >>> from pilotstats.changepoints import mdl_partition
    >>> group = mdl_partition([2.1, 3.1, 3.2], resolution=0.1).groups[1]
    >>> group.start, group.end, round(group.mean, 2), group.classification
    (1, 3, 3.15, 'progression')
    >>> print(group)  # doctest: +ELLIPSIS
    runs [1, 3): mean 3.15, std 0.07071, 2 runs, ...
    """

    start: int
    end: int
    n_samples: int
    n_runs: int
    sample_start: int
    mean: float
    std: float
    bits: float
    classification: ChangeLabel

    def __str__(self) -> str:
        return (
            f"runs [{self.start}, {self.end}): mean {format_number(self.mean, 6)}, std "
            f"{format_number(self.std, 4)}, {self.n_runs} runs, "
            f"{self.n_samples} samples, {format_number(self.bits, 6)} bits, "
            f"{self.classification}"
        )

    def mean_half_width(self, confidence_level: float = 0.95) -> float:
        """Half width of the t confidence interval of the group mean.

        ``t_{n-1} std / sqrt(n_samples)`` (the group is an i.i.d. normal sample in the MDL
        model); NaN for a group of one sample.

        Parameters
        ----------
        confidence_level : float in (0, 1), default 0.95
            Level of the interval.

        Returns
        -------
        float
        """
        if self.n_samples < 2 or math.isnan(self.std):
            return math.nan
        return float(two_sided_t(confidence_level, self.n_samples - 1) * self.std
                     / math.sqrt(self.n_samples))


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


@dataclasses.dataclass(frozen=True, slots=True)
class TrendGroups(Result):
    """Result of :func:`mdl_partition`: the groups of a trend series and their labels.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`TrendGroup` (``result[0]`` is the first group, ``len(result)`` the number of
    groups, :meth:`to_frame` one row per group).

    Attributes
    ----------
    groups : tuple of TrendGroup
        Groups in time order.
    boundaries : ndarray of int64
        Start run index of every group after the first (change-point convention).
    total_bits : float
        Description length of the whole partition in bits.
    resolution : float
        Numeric resolution the values are coded in (given, or
        ``max_value / (2**(sbps+1) − 1)``).
    max_value : float
        Largest sample (at least 0.0).
    sbps : float or None
        Significant bits per sample used to derive the resolution (None when a resolution
        was given).
    higher_is_better : bool
        Direction used for the labels.
    n_runs, n_samples : int
        Number of runs (including missing ones) and of present samples.
    trend_mean, trend_std : ndarray of float64, shape (n_runs,)
        :attr:`TrendGroup.mean` and :attr:`TrendGroup.std` (``ddof=1``) of the group
        holding each run (NaN for missing runs; ``trend_std`` is also NaN in groups of one
        sample).
    anomaly : ndarray of str, shape (n_runs,)
        The group's label on its first run, "normal" elsewhere.
    replaced, missing : ndarray of bool, shape (n_runs,)
        Runs whose NaN samples were replaced by 0 (``nan_policy='zero'``), and runs left
        without samples (``nan_policy='omit'``).
    pruned : bool
        Whether the (output-preserving) pruned search was used.

    Examples
    --------
    Returned by :func:`mdl_partition`:

    >>> from pilotstats.changepoints import mdl_partition
    >>> result = mdl_partition([2.1, 3.1, 3.2], resolution=0.1)
    >>> print(result)  # doctest: +ELLIPSIS
    2 group(s) over 3 runs (boundaries [1]; 0 regression(s), 1 progression(s)); ...
    >>> len(result), result[1].start, result.to_frame()["classification"].tolist()
    (2, 1, ['normal', 'progression'])
    """

    groups: tuple[TrendGroup, ...]
    boundaries: np.ndarray
    total_bits: float
    resolution: float
    max_value: float
    sbps: float | None
    higher_is_better: bool
    n_runs: int
    n_samples: int
    trend_mean: np.ndarray
    trend_std: np.ndarray
    anomaly: np.ndarray
    replaced: np.ndarray
    missing: np.ndarray
    pruned: bool

    def __str__(self) -> str:
        last = self.groups[-1]
        n_reg = sum(g.classification == "regression" for g in self.groups)
        n_prog = sum(g.classification == "progression" for g in self.groups)
        shown = [int(b) for b in self.boundaries[:12]]
        listed = str(shown) if self.boundaries.size <= 12 else str(shown)[:-1] + ", ...]"
        return (
            f"{len(self.groups)} group(s) over {self.n_runs} runs "
            f"(boundaries {listed}; {n_reg} regression(s), "
            f"{n_prog} progression(s)); last group mean {format_number(last.mean, 6)}, "
            f"std {format_number(last.std, 4)}, {last.n_runs} runs; "
            f"{format_number(self.total_bits, 7)} bits, resolution "
            f"{format_number(self.resolution, 4)}"
        )

    def __len__(self) -> int:
        return len(self.groups)

    def __iter__(self) -> Iterator[TrendGroup]:
        return iter(self.groups)

    @overload
    def __getitem__(self, index: SupportsIndex) -> TrendGroup: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[TrendGroup, ...]: ...

    def __getitem__(self, index: Any) -> Any:
        return select_items(index, len(self.groups), self.groups.__getitem__, "TrendGroups")

    def to_frame(self) -> Any:
        """One row per group: the fields of :class:`TrendGroup` (needs pandas).

        Returns
        -------
        pandas.DataFrame
            Columns ``start``, ``end``, ``n_samples``, ``n_runs``, ``sample_start``, ``mean``,
            ``std``, ``bits`` and ``classification``.

        Examples
        --------
        >>> from pilotstats.changepoints import mdl_partition
        >>> mdl_partition([2.1, 3.1, 3.2], resolution=0.1).to_frame()[["start", "end"]]
           start  end
        0      0    1
        1      1    3
        """
        import pandas as pd

        columns = [field.name for field in dataclasses.fields(TrendGroup)]
        return pd.DataFrame(
            [[getattr(group, name) for name in columns] for group in self.groups],
            columns=columns,
        )

    def compliance(
        self,
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
        """Trend compliance metrics of this partition; see :func:`trend_compliance`.

        Parameters
        ----------
        times, short_window, long_window, short_period, long_period, higher_is_better
            As for :func:`trend_compliance` (``higher_is_better`` defaults to this
            partition's own flag).
        resolution, sbps, per_run_average, encoding
            Apply to values only and are refused here.

        Returns
        -------
        TrendCompliance
        """
        s_window, l_window, average, coding = check_compliance_options(
            short_window, long_window, per_run_average, encoding, higher_is_better
        )
        if resolution is not None or sbps is not None:
            raise InvalidInputError(
                "resolution and sbps apply only when values are given; the partition "
                "already has its resolution"
            )
        if average or coding != "jumpavg":
            raise InvalidInputError(
                "per_run_average and encoding apply only when values are given; the "
                "partition is already made"
            )
        direction = self.higher_is_better if higher_is_better is None else higher_is_better
        return partition_compliance(
            self, times, (s_window, l_window), (short_period, long_period), bool(direction)
        )

    def _extra_dict(self) -> dict[str, Any]:
        return {"confidence_level": None, "unit": None, "n_groups": len(self.groups)}

    @plot_doc
    def plot(
        self,
        x: Any = None,
        *,
        ax: Any = None,
        unit: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
        show_std: bool = True,
        confidence_level: float | None = 0.95,
    ) -> Any:
        """Draw the samples, group means as steps with their intervals and the labels.

        Needs matplotlib. Each group's mean is a horizontal step over its runs, shaded
        with the confidence interval of the mean and, lighter, ± its
        :attr:`TrendGroup.std`; the title states the newest level; the first run of a
        regression (red) or progression (green) group gets a dashed line and a triangle
        pointing the way the mean moved; other boundaries are grey.

        Parameters
        ----------
        x : sequence of runs, optional
            The runs the result was computed from (results do not keep them); without
            them only the groups are drawn.
        {ax}
        unit : str, optional
            Unit label of the values (a display label; the numeric coding resolution is
            :attr:`resolution`); ``"s"`` is auto-scaled to ms/µs/ns.
        {ylabel}
        title : str, optional
            Title (default: groups, regressions and progressions).
        show_std : bool, default True
            Shade mean ± std of each group (groups of one sample have no band).
        confidence_level : float in (0, 1) or None, default 0.95
            Shade the t interval of each group mean, ``mean ± t s / sqrt(n_samples)``
            (None: no interval).

        {returns}

        Raises
        ------
        InvalidInputError
            ``x`` is not ``n_runs`` runs of finite numbers.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pilotstats.changepoints import mdl_partition
        >>> runs = [12.5, 12.4, 12.6, 12.5, 12.4, 12.0, 11.9, 12.0, 11.9, 12.1]
        >>> ax = mdl_partition(runs).plot(runs, ylabel="throughput", unit="Mpps")
        >>> ax.get_ylabel()
        'throughput (Mpps)'
        >>> ax.get_title().split(";")[0]  # the newest level with its 95 % interval
        'MDL trend: newest level 11.98 ± 0.1 Mpps (regression)'
        """
        return draw(
            self, x, ax=ax, unit=unit, ylabel=ylabel, title=title, show_std=show_std,
            confidence_level=confidence_level
        )


def _time_window(
    seconds: np.ndarray, n: int, long_window: int, periods: tuple[float, float]
) -> tuple[np.ndarray, bool, int]:
    """The real-time reference window: runs at least ``short_period`` and at most
    ``long_period`` older than the last, and among the last ``long_window`` runs."""
    short_seconds, long_seconds = periods
    last = n - 1
    t_last = seconds[last]
    index = np.arange(n)
    mask = (
        (seconds[:n] <= t_last - short_seconds)
        & (seconds[:n] >= t_last - long_seconds)
        & (index >= n - long_window)
    )
    short_history = not bool(np.any(seconds[:n] <= t_last - short_seconds))
    within = (seconds[:n] >= t_last - long_seconds) & (index >= n - long_window)
    oldest = int(np.flatnonzero(within)[0])  # the last run itself is always within
    return index[mask], short_history, oldest


def _recent_counts(groups: TrendGroups, recent_start: int) -> tuple[int, int]:
    """Regressions and progressions among the groups that start at ``recent_start`` or
    later."""
    recent = [g.classification for g in groups.groups if g.start >= recent_start]
    return recent.count("regression"), recent.count("progression")


def partition_compliance(
    groups: TrendGroups,
    times: Any,
    windows: tuple[int, int],
    periods: tuple[Any, Any],
    higher_is_better: bool,
) -> TrendCompliance:
    """CSIT compliance metrics of a partition; ``windows`` (short, long) are validated run
    counts, ``periods`` (short, long) durations used only with ``times``."""
    s_window, l_window = windows
    trend = np.asarray(groups.trend_mean)
    last_group = groups.groups[-1]
    last = int(last_group.end) - 1  # the last run with a trend ends the last group
    n = last + 1
    last_trend = float(trend[last])
    seconds_of: tuple[float | None, float | None] = (None, None)
    if times is None:
        window = run_window(n, s_window, l_window)
    else:
        seconds = check_times_seconds(times, groups.n_runs)
        short_seconds = check_period_seconds(periods[0], "short_period")
        long_seconds = check_period_seconds(periods[1], "long_period")
        seconds_of = (short_seconds, long_seconds)
        window = _time_window(seconds, n, l_window, (short_seconds, long_seconds))
    reference: LongTermReference = long_term_reference(trend, n, window, higher_is_better)
    n_reg, n_prog = _recent_counts(groups, n - s_window)
    return TrendCompliance(
        last_trend=last_trend,
        runs_in_last_trend=int(last_group.n_runs),
        reference=reference.value,
        long_term_change=float(relative_change(last_trend, reference.value)),
        n_regressions=n_reg,
        n_progressions=n_prog,
        window_start=reference.start,
        window_end=reference.end,
        last_run=last,
        short_window=s_window,
        long_window=l_window,
        short_period=seconds_of[0],
        long_period=seconds_of[1],
        higher_is_better=higher_is_better,
        reference_is_earliest=reference.earliest,
    )
