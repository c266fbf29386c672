"""The MDL optimal-partitioning programme: code-length tables and the engine state.

:class:`_Engine` holds the O(N) state of the dynamic programme for a growing list of runs,
drives the compiled kernels of :mod:`pilotstats._kernels.mdl` and builds the
:class:`~pilotstats.changepoints.TrendGroups` result; :class:`_Tables` holds the per-group-size
terms of the code length (computed with CPython's ``math``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._kernels import mdl as _k
from pilotstats._typing import Float64Array1D, MdlLabel
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


def _label(mean: float, previous: float, higher_is_better: bool) -> MdlLabel:
    if mean < previous:
        return "regression" if higher_is_better else "progression"
    if mean > previous:
        return "progression" if higher_is_better else "regression"
    return "normal"


class _Engine:
    """The programme's O(N) state for a growing list of runs."""

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
                # jumpavg reports every group but the last through a copy.
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
