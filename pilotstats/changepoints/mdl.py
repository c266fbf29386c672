"""MDL trend partitioning and anomaly classification (FD.io CSIT's jumpavg method).

Public: :func:`mdl_partition`, :class:`TrendGroups`, :class:`TrendGroup`, :class:`MdlStream`.

The model (``docs/algorithms/mdl.md``; reference implementation jumpavg 0.4.2, the
library behind FD.io CSIT trend analysis): a series of test runs is split into consecutive
groups, each an i.i.d. normal sample with its own mean and standard deviation, so that the
total description length in bits is minimal under the "optimal partitioning" dynamic
programme; every group is then labelled relative to the group before it.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, overload

import numpy as np

from pilotstats import _config
from pilotstats._kernels import mdl as _k
from pilotstats._protocols import select_items
from pilotstats._typing import Float64Array1D, MdlLabel, NanPolicy
from pilotstats._validation import check_bool, check_choice, check_real
from pilotstats.exceptions import (
    DataRangeWarning,
    InvalidInputError,
    NotEnoughDataError,
    PerformanceWarning,
)
from pilotstats.results import Result, format_number

if TYPE_CHECKING:
    from pilotstats.changepoints.compliance import TrendCompliance

__all__ = ["MdlStream", "TrendGroup", "TrendGroups", "mdl_partition"]

_LN2 = math.log(2.0)
_C0 = 0.5 * math.log(2.0 * math.pi * math.e)
#: h(k) = g(k) − k·c0 increases from h(2) = −ln(πe) towards −½·ln(2π²) (checked in tests).
_H_MIN = -math.log(math.pi * math.e) - 1e-9
_H_MAX = -0.5 * math.log(2.0 * math.pi * math.pi) + 1e-9
_MAX_MAGNITUDE = 1e150


# --------------------------------------------------------------------------- tables


class _Tables:
    """Per-group-size terms of the code length, computed with CPython's ``math``.

    ``lgamma`` must be CPython's (numba's differs in the last ulp), so the tables are
    built here and passed to the kernels (spec §5 allows tabulating per-size terms).
    """

    def __init__(self) -> None:
        self.size = 0
        self.tab_l = np.zeros(0)
        self.tab_c = np.zeros(0)
        self.tab_d = np.zeros(0)
        self.tab_gb = np.zeros(0)

    def ensure(self, k_max: int) -> None:
        if k_max < self.size:
            return
        size = max(k_max + 1, 2 * self.size, 64)
        log, lgamma = math.log, math.lgamma
        ln_pi = log(math.pi)
        tab_l = [0.0, *(log(k * (k + 1), 2) for k in range(1, size))]
        tab_c = [0.0, 0.0]
        tab_c.extend(
            (_LN2 + ln_pi * ((k - 1) / 2)) - lgamma((k - 1) / 2) for k in range(2, size)
        )
        tab_d = [0.0, 0.0, *(log(k) * ((k - 2) / 2) for k in range(2, size))]
        gb = [0.0] * size
        if size > 1:
            gb[1] = min((2 * _C0 + _H_MIN) / _LN2, (_C0 + _H_MIN - _H_MAX) / _LN2 - 1.0)
        for k in range(2, size):
            h = tab_c[k] + tab_d[k] - k * _C0
            gb[k] = min((_C0 + _H_MIN - h) / _LN2, (_H_MIN - _H_MAX - h) / _LN2 - 1.0)
        self.tab_l = np.array(tab_l, dtype=np.float64)
        self.tab_c = np.array(tab_c, dtype=np.float64)
        self.tab_d = np.array(tab_d, dtype=np.float64)
        self.tab_gb = np.array(gb, dtype=np.float64) - 1e-9
        self.size = size


_TABLES = _Tables()


def _tables(k_max: int) -> _Tables:
    _TABLES.ensure(k_max)
    return _TABLES


# --------------------------------------------------------------------------- input


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _warn_size(n_runs: int, what: str) -> None:
    """PerformanceWarning above ``_config.MDL_WARN_SIZE`` runs (O(N²) worst case)."""
    if n_runs > _config.MDL_WARN_SIZE:
        warnings.warn(
            f"{what}: {n_runs} runs is above {_config.MDL_WARN_SIZE}; the MDL programme is "
            "O(N²) when no level change lets the pruning discard candidates (i.i.d. noise) "
            "and can take minutes; partition a window or per-day means instead",
            PerformanceWarning,
            stacklevel=3,
        )


def _finite_float(value: Any, name: str) -> float:
    """``float(value)``, with a named error for integers beyond the float64 range."""
    try:
        return float(value)
    except OverflowError:
        raise InvalidInputError(
            f"{name} is an integer too large for float64 ({len(str(value))} digits); "
            "rescale the values"
        ) from None


def _parse_run(run: Any, index: int, name: str) -> list[float]:
    """Samples of one run (a real number or a non-empty iterable of reals)."""
    if _is_real(run):
        return [_finite_float(run, f"{name}[{index}]")]
    if isinstance(run, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name}[{index}] is a boolean ({run!r}); runs must be real numbers or "
            "non-empty sequences of real numbers"
        )
    if isinstance(run, (str, bytes)) or not isinstance(run, Iterable):
        raise InvalidInputError(
            f"{name}[{index}] must be a real number or a non-empty sequence of real "
            f"numbers (the samples of one test run), got {type(run).__name__} {run!r:.60}"
        )
    if isinstance(run, np.ndarray) and run.ndim != 1:
        raise InvalidInputError(
            f"{name}[{index}] must be a number or a 1-D sequence of samples, got an "
            f"array of shape {run.shape}"
        )
    samples: list[float] = []
    for position, sample in enumerate(run):
        if not _is_real(sample):
            raise InvalidInputError(
                f"{name}[{index}][{position}] must be a real number, got "
                f"{type(sample).__name__} {sample!r:.60}; a run is a flat sequence of "
                "samples (nested runs are not allowed)"
            )
        samples.append(_finite_float(sample, f"{name}[{index}][{position}]"))
    if not samples:
        raise InvalidInputError(
            f"{name}[{index}] is an empty run; every run needs at least one sample "
            "(drop the run, or pass NaN with nan_policy='omit' to mark it missing)"
        )
    return samples


@dataclasses.dataclass
class _Runs:
    """Parsed runs: per present run its statistics, plus per original run flags."""

    samples: Float64Array1D  # all present samples, run after run
    offsets: np.ndarray  # int64, per present run
    original: np.ndarray  # int64: original run index of each present run
    n_original: int
    replaced: np.ndarray  # bool, per original run
    missing: np.ndarray  # bool, per original run


def _apply_nan_policy(
    samples: list[float], index: int, policy: str, name: str
) -> tuple[list[float], bool]:
    replaced = False
    if any(math.isinf(x) for x in samples):
        raise InvalidInputError(
            f"{name}[{index}] contains an infinite value; the MDL model needs finite "
            "samples (remove the run or replace the value)"
        )
    if any(math.isnan(x) for x in samples):
        if policy == "raise":
            raise InvalidInputError(
                f"{name}[{index}] contains NaN; remove it, or pass nan_policy='omit' "
                "(drop NaN samples) or nan_policy='zero' (CSIT-Dash: a failed run is 0)"
            )
        if policy == "omit":
            samples = [x for x in samples if not math.isnan(x)]
        else:
            samples = [0.0 if math.isnan(x) else x for x in samples]
            replaced = True
    return samples, replaced


def _parse_values(values: Any, policy: str, name: str = "x") -> _Runs:
    if isinstance(values, (str, bytes)) or _is_real(values):
        raise InvalidInputError(
            f"{name} must be a sequence of runs (numbers or sequences of numbers), got "
            f"{type(values).__name__}"
        )
    if isinstance(values, Mapping) or isinstance(values, (set, frozenset)):
        raise InvalidInputError(
            f"{name} must be a sequence of runs in time order, got a "
            f"{type(values).__name__} (unordered or keyed); pass list(mapping.values()) "
            "for a mapping's values in key order"
        )
    fast: np.ndarray | None = None
    if not isinstance(values, np.ndarray) and hasattr(values, "__array__"):
        values = np.asarray(values)  # pandas/polars series and other array-likes
    if isinstance(values, np.ndarray):
        if values.dtype.kind == "b":
            raise InvalidInputError(f"{name} must contain real numbers, got a boolean array")
        if values.ndim == 1 and values.dtype.kind in "iuf":
            fast = np.array(values, dtype=np.float64, copy=True)
        elif values.ndim == 0:
            raise InvalidInputError(f"{name} must be a sequence of runs, got a 0-d array")
        elif values.dtype.kind not in "iufO":
            raise InvalidInputError(
                f"{name} must contain real numbers, got an array of dtype {values.dtype}"
            )
    if fast is not None:
        n = fast.shape[0]
        if n == 0:
            raise NotEnoughDataError(f"{name} is empty; need at least one run")
        replaced = np.zeros(n, dtype=bool)
        missing = np.zeros(n, dtype=bool)
        if np.isinf(fast).any():
            index = int(np.flatnonzero(np.isinf(fast))[0])
            raise InvalidInputError(
                f"{name}[{index}] is infinite; the MDL model needs finite samples"
            )
        nan = np.isnan(fast)
        if nan.any():
            if policy == "raise":
                index = int(np.flatnonzero(nan)[0])
                raise InvalidInputError(
                    f"{name}[{index}] is NaN; remove it, or pass nan_policy='omit' (drop "
                    "NaN samples) or nan_policy='zero' (CSIT-Dash: a failed run is 0)"
                )
            if policy == "zero":
                fast[nan] = 0.0
                replaced = nan.copy()
            else:
                missing = nan.copy()
        keep = np.flatnonzero(~missing)
        samples = np.ascontiguousarray(fast[keep])
        offsets = np.arange(keep.size + 1, dtype=np.int64)
        return _Runs(samples, offsets, keep.astype(np.int64), n, replaced, missing)
    try:
        items = list(values)
    except TypeError as exc:
        raise InvalidInputError(
            f"{name} must be a sequence of runs (numbers or sequences of numbers), got "
            f"{type(values).__name__}"
        ) from exc
    if not items:
        raise NotEnoughDataError(f"{name} is empty; need at least one run")
    flat: list[float] = []
    offsets_list = [0]
    original: list[int] = []
    replaced_list: list[bool] = []
    missing_list: list[bool] = []
    for index, run in enumerate(items):
        samples_run = _parse_run(run, index, name)
        samples_run, was_replaced = _apply_nan_policy(samples_run, index, policy, name)
        replaced_list.append(was_replaced)
        missing_list.append(not samples_run)
        if samples_run:
            flat.extend(samples_run)
            offsets_list.append(len(flat))
            original.append(index)
    return _Runs(
        np.array(flat, dtype=np.float64),
        np.array(offsets_list, dtype=np.int64),
        np.array(original, dtype=np.int64),
        len(items),
        np.array(replaced_list, dtype=bool),
        np.array(missing_list, dtype=bool),
    )


def _check_resolution_sbps(
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


def _resolve_resolution(
    max_value: float, resolution: float | None, sbps: float | None, name: str = "x"
) -> tuple[float, float | None]:
    if max_value <= 0.0:
        raise InvalidInputError(
            f"every sample of {name} is <= 0 (maximum {max_value!r}); the MDL model codes "
            "group means on [0, max] and needs a positive maximum. Shift the data to a "
            "positive range or pass the metric with a positive scale (e.g. throughput or "
            "latency rather than a signed difference)"
        )
    if resolution is not None:
        return resolution, None
    bits = 12.0 if sbps is None else sbps
    derived = max_value / (pow(2.0, bits + 1.0) - 1.0)
    if not (derived > 0.0 and math.isfinite(derived)):
        raise InvalidInputError(
            f"the derived resolution max_value / (2**(sbps + 1) - 1) = {derived!r} is not a "
            "positive finite number; pass an explicit resolution"
        )
    return derived, bits


# --------------------------------------------------------------------------- results


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

    def plot(
        self,
        x: Any = None,
        *,
        ax: Any = None,
        unit: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
        show_std: bool = True,
    ) -> Any:
        """Draw the samples, group means as steps with ±std bands and the labels.

        Needs matplotlib. Each group's mean is a horizontal step over its runs, shaded
        ± its :attr:`TrendGroup.std`; the first run of a regression (red) or progression (green)
        group gets a dashed line and a triangle pointing the way the mean moved; other
        boundaries are grey.

        Parameters
        ----------
        x : sequence of runs, optional
            The runs the result was computed from (results do not keep them); without
            them only the groups are drawn.
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure). ``plt.show`` is never called.
        unit : str, optional
            Unit label of the values (a display label; the numeric coding resolution is
            :attr:`resolution`); ``"s"`` is auto-scaled to ms/µs/ns.
        ylabel : str, optional
            Name of the measured quantity on the y axis (default ``"value"``).
        title : str, optional
            Title (default: groups, regressions and progressions).
        show_std : bool, default True
            Shade mean ± std of each group (groups of one sample have no band).

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        InvalidInputError
            ``x`` is not ``n_runs`` runs of finite numbers.
        MissingDependencyError
            matplotlib is not installed (``pip install "pilotstats[plot]"``).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pilotstats.changepoints import mdl_partition
        >>> runs = [12.5, 12.4, 12.6, 12.5, 12.4, 12.0, 11.9, 12.0, 11.9, 12.1]
        >>> ax = mdl_partition(runs).plot(runs, ylabel="throughput", unit="Mpps")
        >>> ax.get_ylabel()
        'throughput (Mpps)'
        """
        from pilotstats.changepoints._plots import plot_trend_groups

        return plot_trend_groups(
            self,
            x,
            ax=ax,
            unit=unit,
            ylabel=ylabel,
            title=title,
            show_std=show_std,
        )


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _label(mean: float, previous: float, higher_is_better: bool) -> MdlLabel:
    if mean < previous:
        return "regression" if higher_is_better else "progression"
    if mean > previous:
        return "progression" if higher_is_better else "regression"
    return "normal"


# --------------------------------------------------------------------------- engine


class _Engine:
    """The programme's O(N) state for a growing list of runs (spec §5)."""

    def __init__(
        self, resolution: float | None, sbps: float | None, prune: bool, name: str = "x"
    ) -> None:
        self.resolution_given = resolution
        self.sbps_given = sbps
        self.prune = prune
        self.name = name
        self.capacity = 0
        self.n = 0  # runs held
        self.done = 0  # runs processed by the programme
        self.n_open = 0
        self.max_value = 0.0
        self.min_value = math.inf
        self.low_used = 0.0
        self.max_used = -1.0
        self.n_samples = 0
        self._allocate(16)

    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity

        def grow(array: np.ndarray | None, size: int, dtype: Any, fill: Any = 0) -> np.ndarray:
            new = np.full(size, fill, dtype=dtype)
            if array is not None:
                new[: array.shape[0]] = array
            return new

        get = self.__dict__.get
        self.run_n = grow(get("run_n"), capacity, np.int64)
        self.run_avg = grow(get("run_avg"), capacity, np.float64)
        self.run_sd = grow(get("run_sd"), capacity, np.float64)
        self.best_bits = grow(get("best_bits"), capacity + 1, np.float64)
        self.last_avg = grow(get("last_avg"), capacity + 1, np.float64)
        self.best_start = grow(get("best_start"), capacity, np.int64)
        self.open_start = grow(get("open_start"), capacity, np.int64)
        self.open_n = grow(get("open_n"), capacity, np.int64)
        self.open_avg = grow(get("open_avg"), capacity, np.float64)
        self.open_sd = grow(get("open_sd"), capacity, np.float64)
        self.open_base = grow(get("open_base"), capacity, np.float64)
        self.open_prev = grow(get("open_prev"), capacity, np.float64)
        self.open_norm = grow(get("open_norm"), capacity, np.float64)
        self.open_log2norm = grow(get("open_log2norm"), capacity, np.float64)
        self.open_far = grow(get("open_far"), capacity, np.float64)
        self.open_mean_y = grow(get("open_mean_y"), capacity, np.float64)
        self.open_mean_ln = grow(get("open_mean_ln"), capacity, np.float64)
        self.open_mean_inv = grow(get("open_mean_inv"), capacity, np.float64)
        self.open_sd_y = grow(get("open_sd_y"), capacity, np.float64)
        self.open_sd_ln = grow(get("open_sd_ln"), capacity, np.float64)
        self.open_size_l = grow(get("open_size_l"), capacity, np.float64)
        self.open_size_h = grow(get("open_size_h"), capacity, np.float64)
        self.scratch = grow(get("scratch"), capacity, np.float64)

    def add_runs(self, samples: Float64Array1D, offsets: np.ndarray) -> None:
        """Append runs (samples already validated and finite)."""
        count = offsets.shape[0] - 1
        if count <= 0:
            return
        if self.n + count > self.capacity:
            self._allocate(max(2 * self.capacity, self.n + count))
        avg = np.empty(count)
        sd = np.empty(count)
        _k.run_statistics(samples, offsets, avg, sd)
        sizes = np.diff(offsets)
        self.run_n[self.n : self.n + count] = sizes
        self.run_avg[self.n : self.n + count] = avg
        self.run_sd[self.n : self.n + count] = sd
        self.n += count
        self.n_samples += int(sizes.sum())
        if samples.size:
            self.max_value = max(self.max_value, float(samples.max()))
            self.min_value = min(self.min_value, float(samples.min()))

    def resolved_resolution(self) -> tuple[float, float | None]:
        return _resolve_resolution(
            self.max_value, self.resolution_given, self.sbps_given, self.name
        )

    def update(self) -> None:
        """Run the programme over the runs not yet processed (all of them if the maximum
        or, with pruning, the minimum moved)."""
        if self.n == self.done:
            return
        resolution, _ = self.resolved_resolution()
        low = min(0.0, self.min_value)
        if self.max_value != self.max_used or (self.prune and low < self.low_used):
            self.done = 0
            self.n_open = 0
            self.max_used = self.max_value
            self.low_used = low
        max_u = self.max_value / resolution
        if not math.isfinite(max_u * max_u):
            raise InvalidInputError(
                f"resolution {resolution!r} is too small for the data (max_value / "
                f"resolution = {max_u!r}); use a resolution closer to that of the "
                "measurements"
            )
        tables = _tables(self.n_samples + 2)
        self.best_bits[0] = 0.0
        self.last_avg[0] = np.nan
        self.n_open = _k.mdl_advance(
            self.run_n,
            self.run_avg,
            self.run_sd,
            self.done,
            self.n,
            resolution,
            max_u,
            self.low_used / resolution,
            self.prune,
            _config.MDL_PRUNING_MARGIN,
            tables.tab_l,
            tables.tab_c,
            tables.tab_d,
            tables.tab_gb,
            self.best_bits,
            self.last_avg,
            self.best_start,
            self.open_start,
            self.open_n,
            self.open_avg,
            self.open_sd,
            self.open_base,
            self.open_prev,
            self.open_norm,
            self.open_log2norm,
            self.open_far,
            self.open_mean_y,
            self.open_mean_ln,
            self.open_mean_inv,
            self.open_sd_y,
            self.open_sd_ln,
            self.open_size_l,
            self.open_size_h,
            self.scratch,
            self.n_open,
        )
        self.done = self.n

    def result(
        self,
        higher_is_better: bool,
        original: np.ndarray,
        n_original: int,
        replaced: np.ndarray,
        missing: np.ndarray,
    ) -> TrendGroups:
        self.update()
        resolution, sbps_used = self.resolved_resolution()
        max_u = self.max_value / resolution
        n = self.n
        starts_rev: list[int] = []
        end = n
        while end > 0:
            first = int(self.best_start[end - 1])
            starts_rev.append(first)
            end = first
        starts = np.array(starts_rev[::-1], dtype=np.int64)
        ends = np.append(starts[1:], n).astype(np.int64)
        n_groups = starts.shape[0]
        out_n = np.empty(n_groups, dtype=np.int64)
        out_avg = np.empty(n_groups)
        out_sd = np.empty(n_groups)
        out_bits = np.empty(n_groups)
        tables = _tables(self.n_samples + 2)
        _k.describe_groups(
            self.run_n,
            self.run_avg,
            self.run_sd,
            starts,
            ends,
            self.last_avg,
            resolution,
            max_u,
            tables.tab_l,
            tables.tab_c,
            tables.tab_d,
            out_n,
            out_avg,
            out_sd,
            out_bits,
        )
        sample_starts = np.concatenate(([0], np.cumsum(self.run_n[:n])))[starts]
        groups: list[TrendGroup] = []
        trend_mean = np.full(n_original, np.nan)
        trend_std = np.full(n_original, np.nan)
        anomaly = np.full(n_original, "normal", dtype="<U11")
        previous = 0.0
        for g in range(n_groups):
            avg, sd = float(out_avg[g]), float(out_sd[g])
            if g < n_groups - 1:
                # jumpavg reports every group but the last through a copy (spec §6).
                avg, sd = (float(v) for v in _k.remerge.py_func(int(out_n[g]), avg, sd))
            label: MdlLabel = "normal" if g == 0 else _label(avg, previous, higher_is_better)
            previous = avg
            first_original = int(original[starts[g]])
            last_original = int(original[ends[g] - 1])
            members = original[starts[g] : ends[g]]
            std = _sample_std(sd, int(out_n[g]))
            trend_mean[members] = avg
            trend_std[members] = std
            anomaly[first_original] = label
            groups.append(
                TrendGroup(
                    start=first_original,
                    end=last_original + 1,
                    n_samples=int(out_n[g]),
                    n_runs=int(ends[g] - starts[g]),
                    sample_start=int(sample_starts[g]),
                    mean=avg,
                    std=std,
                    bits=float(out_bits[g]),
                    classification=label,
                )
            )
        boundaries = np.array([grp.start for grp in groups[1:]], dtype=np.int64)
        return TrendGroups(
            groups=tuple(groups),
            boundaries=_readonly(boundaries),
            total_bits=float(self.best_bits[n]),
            resolution=float(resolution),
            max_value=float(self.max_value),
            sbps=None if sbps_used is None else float(sbps_used),
            higher_is_better=bool(higher_is_better),
            n_runs=int(n_original),
            n_samples=int(self.n_samples),
            trend_mean=_readonly(trend_mean),
            trend_std=_readonly(trend_std),
            anomaly=_readonly(anomaly),
            replaced=_readonly(np.array(replaced, dtype=bool)),
            missing=_readonly(np.array(missing, dtype=bool)),
            pruned=bool(self.prune),
        )


def _sample_std(population_std: float, size: int) -> float:
    """Sample standard deviation (``ddof=1``) from jumpavg's population one; NaN for one
    sample (as :attr:`Segment.std`)."""
    if size < 2:
        return math.nan
    return population_std * math.sqrt(size / (size - 1))


#: Smallest magnitude of the largest sample: below it the resolution
#: ``max / (2**(sbps+1) - 1)`` and the squared deviations underflow (a zero standard
#: deviation, NaN code lengths).
_MIN_MAGNITUDE = 2.0**-500


def _check_range(samples: np.ndarray, name: str) -> None:
    if samples.size and float(np.abs(samples).max()) > _MAX_MAGNITUDE:
        raise InvalidInputError(
            f"{name} has a sample of magnitude above {_MAX_MAGNITUDE:g}; rescale the data "
            "(the moment accumulation would overflow)"
        )
    if samples.size:
        peak = float(np.abs(samples).max())
        if 0.0 < peak < _MIN_MAGNITUDE:
            raise InvalidInputError(
                f"{name} has no sample of magnitude above {_MIN_MAGNITUDE:g} (largest "
                f"{peak!r}): the resolution would be subnormal and the code lengths "
                "NaN; rescale the data (e.g. express it in a smaller unit)"
            )


def _warn_mixed_signs(min_value: float, max_value: float, name: str) -> None:
    if max_value > 0.0 and min_value < 0.0:
        warnings.warn(
            f"{name} has negative samples (minimum {min_value!r}); the MDL model "
            "codes group means on [0, max], so results on mixed-sign data are unvalidated "
            "(they match jumpavg). Shift the data to a non-negative range if you can",
            DataRangeWarning,
            stacklevel=3,
        )


def mdl_partition(
    x: Any,
    *,
    resolution: float | None = None,
    sbps: float | None = None,
    higher_is_better: bool = True,
    nan_policy: NanPolicy = "raise",
    pruning: bool = True,
) -> TrendGroups:
    """Partition a trend series into normal groups by minimum description length.

    Reproduces ``jumpavg.classify`` 0.4.2 (FD.io CSIT trend analysis) bit for bit: the
    same groups, labels and (to the last ulp) code lengths, in O(N) memory and compiled
    code.

    Parameters
    ----------
    x : sequence of runs
        Runs in time order (a list, tuple, array, pandas/polars series, or an iterator).
        Mappings and sets are rejected (a dict would otherwise be read as its keys): pass
        ``list(mapping.values())`` for a mapping's values in key order. A run is one real
        number (one sample) or a non-empty sequence of reals (several samples of one test
        run, e.g. trials). A 1-D array is a sequence of one-sample runs. Runs are
        indivisible: boundaries fall only between runs. Note that CSIT found
        trial-to-trial noise within a run to be smaller than run-to-run noise
        (FDio/csit#3289), so passing trials as samples understates the noise between runs
        and over-detects.
    resolution : float, optional
        Numeric resolution of the values (finite, > 0; jumpavg's ``unit``): everything is
        coded in multiples of it.
    sbps : float, optional
        "Significant bits per sample", used when ``resolution`` is None:
        ``resolution = max_value / (2**(sbps + 1) − 1)``, so the largest sample is
        ``sbps + 1`` binary ones in multiples of the resolution. Default 12 (in (0, 60]).
    higher_is_better : bool, default True
        Direction of the labels only (throughput: True; latency: False, where a lower
        mean is a "progression"). The partition does not depend on it.
    nan_policy : {"raise", "omit", "zero"}, default "raise"
        NaN samples: raise ``InvalidInputError``; drop them (a run left empty becomes
        ``missing``); or replace them by 0.0 (CSIT-Dash: a failed run is a severe
        regression; flagged in ``replaced``).
    pruning : bool, default True
        Skip candidate groups that provably can never become optimal again (see
        :func:`pilotstats._kernels.mdl.mdl_advance`). The output is identical with
        ``pruning=False``; only the run time differs.

    Returns
    -------
    TrendGroups
        Groups, boundaries, labels, code lengths and per-run trend arrays.

    Raises
    ------
    NotEnoughDataError
        ``x`` is empty (or every run is missing under ``nan_policy='omit'``).
    InvalidInputError
        Non-numeric or boolean entries, nested or empty runs, ±inf, NaN (with
        ``nan_policy='raise'``), every sample <= 0, or an invalid ``resolution``/``sbps``.

    Warns
    -----
    DataRangeWarning
        Some samples are negative while the maximum is positive.
    PerformanceWarning
        More than ``_config.MDL_WARN_SIZE`` (60,000) runs: the programme is O(N²) when the
        pruning cannot discard candidates (noise without level changes), and such a call
        can take minutes (2e4 i.i.d. runs: 7 s; 1e5: about 140 s on the reference machine).

    See Also
    --------
    trend_compliance : CSIT dashboard metrics computed from the groups.
    MdlStream : the same partition, updated one run at a time.

    Notes
    -----
    Each group of k samples with mean a and population standard deviation s (in
    multiples of the resolution; M = max/resolution)
    costs ``log2(k(k+1))`` for its length, ``log2(M+1)`` for the first mean or
    ``−log2((|a−p|+1)/Z)`` after a group of mean p (``Z = p² − (p−1)M + M²/2``), and for
    k >= 2 ``log2((s+1)(s+2)) + log2(1 − 1/(M+2))`` for s plus the log-area of the
    (k−2)-sphere of radius ``(s+1)√k`` for the samples (spec §4). The partition is the
    answer of the optimal-partitioning programme with the previous mean frozen from the
    best prefix and jumpavg's tie rule (spec §5). It is O(N²) time without pruning and
    O(N) memory. Labels compare each group mean with the previous one strictly (spec §7).

    References
    ----------
    .. [1] FD.io CSIT, "Trend analysis", methodology documentation
       (``docs/content/methodology/trending/analysis.md``).
    .. [2] jumpavg 0.4.2, PyPI (``jumpavg/classify.py``, ``bit_counting_stats.py``).

    Examples
    --------
    >>> from pilotstats.changepoints import mdl_partition
    >>> result = mdl_partition([2.1, 3.1, 3.2], resolution=0.1)
    >>> [(g.start, g.end, g.classification) for g in result]
    [(0, 1, 'normal'), (1, 3, 'progression')]
    """
    policy = check_choice(nan_policy, "nan_policy", ("raise", "omit", "zero"))
    resolution_value, sbps_value = _check_resolution_sbps(resolution, sbps)
    check_bool(higher_is_better, "higher_is_better")
    check_bool(pruning, "pruning")
    runs = _parse_values(x, policy)
    if runs.original.size == 0:
        raise NotEnoughDataError(
            "x has no samples left after dropping NaN (nan_policy='omit'); need at "
            "least one finite sample"
        )
    _check_range(runs.samples, "x")
    _warn_size(runs.n_original, "mdl_partition")
    engine = _Engine(resolution_value, sbps_value, bool(pruning))
    engine.add_runs(runs.samples, runs.offsets)
    engine.resolved_resolution()  # named error for a non-positive maximum before any work
    _warn_mixed_signs(engine.min_value, engine.max_value, "x")
    return engine.result(
        bool(higher_is_better), runs.original, runs.n_original, runs.replaced, runs.missing
    )


def _push(buffer: np.ndarray, used: int, values: np.ndarray) -> np.ndarray:
    """Write ``values`` after the first ``used`` entries, doubling the buffer when full."""
    need = used + values.shape[0]
    if need > buffer.shape[0]:
        grown = np.zeros(max(need, 2 * buffer.shape[0]), dtype=buffer.dtype)
        grown[:used] = buffer[:used]
        buffer = grown
    buffer[used:need] = values
    return buffer


class MdlStream:
    """Streaming :func:`mdl_partition`: add runs, get exactly the batch result.

    Follows the :class:`pilotstats.Stream` protocol (``append`` one observation, ``extend``
    with many, ``result()``, ``len(stream)``); an observation is one **run**: a number, or
    a non-empty sequence of the samples of one run (as in :func:`mdl_partition`).

    Each added run is one more step of the dynamic programme, O(N) time (less with
    pruning) and O(N) memory in total; :meth:`result` backtracks from the newest run, so
    earlier groups can change, exactly as in :func:`mdl_partition` on all runs so far. A
    sample above the current maximum changes the derived resolution (and M) and forces a
    recomputation of the whole programme at the next update (spec §5); so does, with
    pruning, a sample below the current minimum when it is negative.

    Parameters
    ----------
    resolution, sbps, higher_is_better, nan_policy, pruning
        As in :func:`mdl_partition`.

    See Also
    --------
    mdl_partition : the batch computation.
    pilotstats.Stream : the protocol.

    Examples
    --------
    >>> from pilotstats.changepoints import MdlStream
    >>> stream = MdlStream()
    >>> stream.extend([10.0, 10.1, 9.9, 10.0])
    >>> stream.append(5.0)
    >>> len(stream), stream.result().boundaries.tolist()
    (5, [4])
    """

    def __init__(
        self,
        *,
        resolution: float | None = None,
        sbps: float | None = None,
        higher_is_better: bool = True,
        nan_policy: NanPolicy = "raise",
        pruning: bool = True,
    ) -> None:
        self._policy = check_choice(nan_policy, "nan_policy", ("raise", "omit", "zero"))
        resolution_value, sbps_value = _check_resolution_sbps(resolution, sbps)
        self.higher_is_better = check_bool(higher_is_better, "higher_is_better")
        self._engine = _Engine(
            resolution_value, sbps_value, check_bool(pruning, "pruning"), name="stream"
        )
        # per-run bookkeeping in growing buffers (no list -> array copy per result)
        self._original = np.empty(16, dtype=np.int64)
        self._replaced = np.zeros(16, dtype=bool)
        self._missing = np.zeros(16, dtype=bool)
        self._n_runs = 0  # runs appended (missing ones included)
        self._n_kept = 0  # entries of _original: runs that hold samples
        self.recomputations = 0

    def __len__(self) -> int:
        """Number of runs added (missing ones included)."""
        return self._n_runs

    def append(self, value: Any) -> None:
        """Add one run and update the programme.

        Parameters
        ----------
        value : float or sequence of float
            One run: a number (one sample) or a non-empty sequence of the samples of one
            run.

        Raises
        ------
        InvalidInputError
            The run is invalid (see :func:`mdl_partition`); the stream is left unchanged.
        """
        if isinstance(value, (str, bytes, Mapping, set, frozenset)):
            raise InvalidInputError(
                f"value must be one run (a number or a sequence of samples), got "
                f"{type(value).__name__}"
            )
        self._extend([value], "value")

    def extend(self, values: Sequence[Any] | Iterable[Any]) -> None:
        """Add several runs in time order and update the programme.

        Parameters
        ----------
        values : sequence of runs
            Runs in time order, each a number or a non-empty sequence of samples (an
            empty sequence is a no-op).

        Raises
        ------
        InvalidInputError
            A run is invalid (see :func:`mdl_partition`), or ``values`` is not a sequence
            (a lone number: use :meth:`append`); no run of this call is kept.
        """
        if isinstance(values, (str, bytes, Mapping, set, frozenset)) or not isinstance(
            values, Iterable
        ):
            hint = ("; use append(value) to add one run" if _is_real(values)
                    else "; for a mapping pass list(mapping.values())")
            raise InvalidInputError(
                f"values must be a sequence (or iterable) of runs in time order, got "
                f"{type(values).__name__}{hint}"
            )
        self._extend(values, "values")

    def _extend(self, runs: Iterable[Any], name: str) -> None:
        items = list(runs)
        if not items:
            return
        parsed = _parse_values(items, self._policy, name=name)
        _check_range(parsed.samples, name)
        engine = self._engine
        before = self._n_runs
        if before <= _config.MDL_WARN_SIZE < before + parsed.n_original:
            _warn_size(before + parsed.n_original, "MdlStream (in total over its appends)")
        old_max, old_low = engine.max_used, engine.low_used
        engine.add_runs(parsed.samples, parsed.offsets)
        kept = np.asarray(parsed.original, dtype=np.int64) + before
        self._original = _push(self._original, self._n_kept, kept)
        self._n_kept += kept.shape[0]
        added = np.asarray(parsed.missing, dtype=bool)
        self._replaced = _push(self._replaced, before, np.asarray(parsed.replaced, dtype=bool))
        self._missing = _push(self._missing, before, added)
        self._n_runs += added.shape[0]
        if engine.max_value > 0.0:
            low = min(0.0, engine.min_value)
            if engine.done and (
                engine.max_value != old_max or (engine.prune and low < old_low)
            ):
                self.recomputations += 1
            engine.update()

    def result(self) -> TrendGroups:
        """The partition of every run appended so far (same as :func:`mdl_partition`).

        Raises
        ------
        NotEnoughDataError
            No sample has been appended yet.
        InvalidInputError
            Every sample so far is <= 0.
        """
        engine = self._engine
        if engine.n == 0:
            raise NotEnoughDataError(
                "the stream holds no samples yet; append or extend runs first"
            )
        _warn_mixed_signs(engine.min_value, engine.max_value, "stream")
        return engine.result(
            self.higher_is_better,
            self._original[: self._n_kept],
            self._n_runs,
            self._replaced[: self._n_runs],
            self._missing[: self._n_runs],
        )
