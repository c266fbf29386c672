"""Results of MDL partitioning: :class:`TrendGroup` and :class:`TrendGroups`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, SupportsIndex, overload

import numpy as np

from pilotstats._protocols import select_items
from pilotstats._stats import two_sided_t
from pilotstats._typing import MdlLabel
from pilotstats.results import Result, draw, format_number, plot_doc

if TYPE_CHECKING:
    from pilotstats.changepoints.compliance import TrendCompliance

__all__ = ["TrendGroup", "TrendGroups"]


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
    classification: MdlLabel

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

    def compliance(self, **kwargs: Any) -> TrendCompliance:
        """Trend compliance metrics of this partition; see :func:`trend_compliance`.

        Parameters
        ----------
        **kwargs
            Keyword arguments of :func:`trend_compliance` (``times``, ``short_window``,
            ``long_window``, ``short_period``, ``long_period``, ``higher_is_better``;
            ``resolution`` and ``sbps`` apply to values only and are refused here).

        Returns
        -------
        TrendCompliance
        """
        from pilotstats.changepoints.compliance import trend_compliance

        return trend_compliance(self, **kwargs)

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
