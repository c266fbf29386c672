"""The MDL optimal-partitioning programme: code-length tables and the engine state.

:class:`_Engine` holds the O(N) state of the dynamic programme for a growing list of runs,
drives the compiled kernels of :mod:`pilotstats._kernels.mdl` and builds the
:class:`~pilotstats.changepoints.TrendGroups` result; :class:`_Tables` holds the per-group-size
terms of the code length (computed with CPython's ``math``).
"""

from __future__ import annotations

import math

import numpy as np

from pilotstats import _config
from pilotstats._kernels import mdl as _k
from pilotstats._typing import ChangeLabel, Float64Array1D
from pilotstats.changepoints._csit import classify_change
from pilotstats.changepoints._mdl_results import TrendGroup, TrendGroups
from pilotstats.exceptions import InvalidInputError

__all__: list[str] = []


_LN2 = math.log(2.0)
_C0 = 0.5 * math.log(2.0 * math.pi * math.e)
#: h(k) = g(k) − k·c0 increases from h(2) = −ln(πe) towards −½·ln(2π²) (checked in tests).
_H_MIN = -math.log(math.pi * math.e) - 1e-9
_H_MAX = -0.5 * math.log(2.0 * math.pi * math.pi) + 1e-9


class _Tables:
    """Per-group-size terms of the code length, computed with CPython's ``math``.

    ``lgamma`` must be CPython's (numba's differs in the last ulp), so the tables are
    built here and passed to the kernels (tabulating per-size terms changes no result).
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


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


class _Engine:
    """The programme's O(N) state for a growing list of runs.

    Runs are only ever appended; :meth:`result` relies on that (the merge chains of the
    groups and the groups of the previous result stay valid while the runs they cover are
    unchanged).
    """

    _ints: np.ndarray  # the blocks whose rows are the arrays below
    _floats: np.ndarray
    run_n: np.ndarray
    run_avg: np.ndarray
    run_sd: np.ndarray
    run_offset: np.ndarray  # first sample of each run
    best_bits: np.ndarray
    last_avg: np.ndarray
    best_start: np.ndarray
    open_start: np.ndarray
    open_n: np.ndarray
    open_avg: np.ndarray
    open_sd: np.ndarray
    open_base: np.ndarray
    open_prev: np.ndarray
    open_norm: np.ndarray
    open_log2norm: np.ndarray
    open_far: np.ndarray
    open_mean_y: np.ndarray
    open_mean_ln: np.ndarray
    open_mean_inv: np.ndarray
    open_sd_y: np.ndarray
    open_sd_ln: np.ndarray
    open_size_l: np.ndarray
    open_size_h: np.ndarray
    scratch: np.ndarray
    memo_end: np.ndarray
    memo_n: np.ndarray
    memo_avg: np.ndarray
    memo_sd: np.ndarray
    group_start: np.ndarray
    group_end: np.ndarray
    group_n: np.ndarray
    group_avg: np.ndarray
    group_sd: np.ndarray
    group_bits: np.ndarray

    def __init__(
        self,
        resolution: float | None,
        sbps: float | None,
        prune: bool,
        name: str = "x",
        capacity: int = 16,
        max_history: int | None = None,
    ) -> None:
        self.resolution_given = resolution
        self.sbps_given = sbps
        self.prune = prune
        self.max_history = 0 if max_history is None else int(max_history)
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
        # Bumped whenever the programme restarts from run 0 (new maximum or minimum): the
        # code lengths and P of earlier prefixes may then differ.
        self.generation = 0
        # The groups of the previous result, reused while they stay the same (see result).
        self.last_groups: list[TrendGroup] = []
        self.last_labels: list[ChangeLabel] = []
        self.last_means: list[float] = []
        self.last_stds: list[float] = []
        self.last_ends = np.zeros(0, dtype=np.int64)
        self.last_key: tuple[int, bool] = (-1, False)
        self._allocate(max(int(capacity), 1))

    _INT_ARRAYS = (
        "run_n", "run_offset", "best_start", "open_start", "open_n", "memo_end", "memo_n",
        "group_start", "group_end", "group_n",
    )  # fmt: skip
    #: rows group_start, group_end, group_n (consecutive)
    _GROUP_INTS = slice(_INT_ARRAYS.index("group_start"), _INT_ARRAYS.index("group_n") + 1)
    _FLOAT_ARRAYS = (
        "best_bits", "last_avg", "run_avg", "run_sd", "open_avg", "open_sd", "open_base",
        "open_prev", "open_norm", "open_log2norm", "open_far", "open_mean_y", "open_mean_ln",
        "open_mean_inv", "open_sd_y", "open_sd_ln", "open_size_l", "open_size_h", "scratch",
        "memo_avg", "memo_sd", "group_avg", "group_sd", "group_bits",
    )  # fmt: skip
    #: rows group_avg, group_sd, group_bits (consecutive)
    _GROUP_FLOATS = slice(
        _FLOAT_ARRAYS.index("group_avg"), _FLOAT_ARRAYS.index("group_bits") + 1
    )

    def _allocate(self, capacity: int) -> None:
        """Grow every per-run array to ``capacity`` runs, keeping the held values.

        The arrays are the C-contiguous rows of two blocks (one allocation per dtype) of
        ``capacity + 1`` entries (per prefix length; the per-run arrays leave the last
        entry unused).
        """
        self.keep = np.zeros(capacity + 1, dtype=np.bool_)
        ints = np.zeros((len(self._INT_ARRAYS), capacity + 1), dtype=np.int64)
        floats = np.zeros((len(self._FLOAT_ARRAYS), capacity + 1), dtype=np.float64)
        if self.capacity:
            ints[:, : self.capacity + 1] = self._ints
            floats[:, : self.capacity + 1] = self._floats
        self._ints, self._floats = ints, floats
        self.__dict__.update(zip(self._INT_ARRAYS, ints, strict=True))
        self.__dict__.update(zip(self._FLOAT_ARRAYS, floats, strict=True))
        self.capacity = capacity

    def runs(self) -> _k.RunStats:
        """The per-run arrays as the kernels' bundle."""
        return (self.run_n, self.run_avg, self.run_sd)

    def prefix(self) -> _k.Prefix:
        """The per-prefix arrays as the kernels' bundle."""
        return (self.best_bits, self.last_avg, self.best_start)

    def candidates(self) -> _k.Candidates:
        """The open candidates' arrays as the kernels' bundle."""
        return (
            self.open_start, self.open_n, self.open_avg, self.open_sd, self.open_base,
            self.open_prev, self.open_norm, self.open_log2norm, self.open_far,
            self.open_mean_y, self.open_mean_ln, self.open_mean_inv, self.open_sd_y,
            self.open_sd_ln, self.open_size_l, self.open_size_h,
        )

    def add_runs(
        self,
        samples: Float64Array1D,
        offsets: np.ndarray,
        bounds: tuple[float, float] | None = None,
    ) -> None:
        """Append runs (samples already validated and finite; ``bounds``: their minimum and
        maximum when the caller has them)."""
        count = offsets.shape[0] - 1
        if count <= 0:
            return
        if self.n + count > self.capacity:
            self._allocate(max(2 * self.capacity, self.n + count))
        n, stop = self.n, self.n + count
        # the kernel writes straight into the engine's rows
        _k.run_statistics(samples, offsets, self.run_avg[n:stop], self.run_sd[n:stop])
        np.subtract(offsets[1:], offsets[:-1], out=self.run_n[n:stop])
        np.add(offsets, self.run_offset[n] - offsets[0], out=self.run_offset[n : stop + 1])
        self.n = stop
        self.n_samples += int(offsets[-1] - offsets[0])
        if samples.size:
            low, high = (float(samples.min()), float(samples.max())) if bounds is None else bounds
            self.max_value = max(self.max_value, high)
            self.min_value = min(self.min_value, low)

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
            self.generation += 1
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
            self.runs(),
            self.done,
            self.n,
            (resolution, max_u, self.low_used / resolution),
            (self.prune, _config.MDL_PRUNING_MARGIN, self.max_history,
             _config.MDL_HISTORY_ANCHORS),
            (tables.tab_l, tables.tab_c, tables.tab_d, tables.tab_gb),
            self.prefix(),
            self.candidates(),
            self.scratch,
            self.keep,
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
        """The partition of the runs held (``original``: caller's index of each run).

        ``replaced`` and ``missing`` (bool, per original run) become the result's arrays
        (made read-only): pass arrays nothing else writes to.

        Groups equal to those of the previous result (same runs, same programme
        generation and direction, and all groups before them equal) are reused as they
        are; the others are built anew, so the cost beyond the O(n) per-run arrays is that
        of the groups that changed.
        """
        self.update()
        resolution, sbps_used = self.resolved_resolution()
        n = self.n
        slot = self._describe(resolution)
        # group_start/end/n and group_avg/sd/bits are consecutive rows of their blocks
        # (the groups are in slots slot .. n - 1)
        starts = self.group_start[slot:n]
        ends = self.group_end[slot:n].copy()
        key = (self.generation, bool(higher_is_better))
        reused = self._reused_groups(key, ends)
        # caller's index of each group's first run (original[r] == r without missing runs)
        first = starts.copy() if n == n_original else original[starts]
        self._extend_groups(slot, reused, first, original, n_original, higher_is_better)
        self.last_ends = ends
        self.last_key = key
        trend_mean, trend_std = _per_run(
            self.last_means, self.last_stds, ends - starts, original, n_original
        )
        anomaly = np.empty(n_original, dtype="<U11")
        anomaly[:] = "normal"
        if n - slot > 1:
            anomaly[first[1:]] = self.last_labels[1:]
        return TrendGroups(
            groups=tuple(self.last_groups),
            boundaries=_readonly(first[1:]),
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
            replaced=_readonly(replaced),
            missing=_readonly(missing),
            pruned=bool(self.prune),
        )

    def _describe(self, resolution: float) -> int:
        """Describe the groups of the best partition (kernel); return the first slot."""
        tables = _tables(self.n_samples + 2)
        slot: int = _k.describe_groups(
            self.runs(),
            self.prefix(),
            self.n,
            resolution,
            self.max_value / resolution,
            (tables.tab_l, tables.tab_c, tables.tab_d, tables.tab_gb),
            (self.memo_end, self.memo_n, self.memo_avg, self.memo_sd),
            (self.group_start, self.group_end, self.group_n, self.group_avg, self.group_sd,
             self.group_bits),
        )
        return slot

    def _reused_groups(self, key: tuple[int, bool], ends: np.ndarray) -> int:
        """How many leading groups of the previous result are unchanged. Its last group
        reported live (not re-merged) statistics, so it is never reused."""
        if key != self.last_key:
            return 0
        limit = min(ends.shape[0], self.last_ends.shape[0]) - 1
        if limit <= 0:
            return 0
        differs = np.flatnonzero(ends[:limit] != self.last_ends[:limit])
        return int(differs[0]) if differs.size else limit

    def _extend_groups(
        self,
        slot: int,
        reused: int,
        first: np.ndarray,
        original: np.ndarray,
        n_original: int,
        higher_is_better: bool,
    ) -> None:
        """Keep the ``reused`` leading groups of the previous result and build the others
        from the described slots ``slot .. n − 1`` (into ``last_groups`` and the lists of
        labels, means and standard deviations)."""
        n = self.n
        n_groups = n - slot
        start_l, end_l, size_l = self._ints[self._GROUP_INTS, slot:n].tolist()
        avg_l, sd_l, bits_l = self._floats[self._GROUP_FLOATS, slot:n].tolist()
        groups = self.last_groups[:reused]
        previous = groups[-1].mean if groups else 0.0
        offsets = self.run_offset
        labels = self.last_labels[:reused]
        means = self.last_means[:reused]
        stds = self.last_stds[:reused]
        for g in range(reused, n_groups):
            avg, sd = avg_l[g], sd_l[g]
            if g < n_groups - 1:
                # jumpavg reports every group but the last through a copy.
                avg, sd = (float(v) for v in _k.remerge.py_func(size_l[g], avg, sd))
            std = _sample_std(sd, size_l[g])
            label: ChangeLabel = (
                "normal" if g == 0 else classify_change(avg, previous, higher_is_better)
            )
            previous = avg
            labels.append(label)
            means.append(avg)
            stds.append(std)
            groups.append(
                TrendGroup(
                    start=int(first[g]),
                    end=end_l[g] if n == n_original else int(original[end_l[g] - 1]) + 1,
                    n_samples=size_l[g],
                    n_runs=end_l[g] - start_l[g],
                    sample_start=int(offsets[start_l[g]]),
                    mean=avg,
                    std=std,
                    bits=bits_l[g],
                    classification=label,
                )
            )
        self.last_groups = groups
        self.last_labels = labels
        self.last_means = means
        self.last_stds = stds


def _per_run(
    means: list[float],
    stds: list[float],
    counts: np.ndarray,
    original: np.ndarray,
    n_original: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each run's group mean and standard deviation (NaN for missing runs)."""
    trend_mean = np.array(means).repeat(counts)
    trend_std = np.array(stds).repeat(counts)
    if counts.sum() != n_original:
        full_mean = np.full(n_original, np.nan)
        full_std = np.full(n_original, np.nan)
        full_mean[original] = trend_mean
        full_std[original] = trend_std
        trend_mean, trend_std = full_mean, full_std
    return trend_mean, trend_std


def _sample_std(population_std: float, size: int) -> float:
    """Sample standard deviation (``ddof=1``) from jumpavg's population one; NaN for one
    sample (as :attr:`Segment.std`)."""
    if size < 2:
        return math.nan
    return population_std * math.sqrt(size / (size - 1))
