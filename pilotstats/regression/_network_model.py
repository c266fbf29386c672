"""Closed queueing-network models packaged for :func:`~pilotstats.regression.calibrate`.

A :class:`ClosedNetworkModel` is a plain callable ``h(x, u) -> y``
whose parameters x are service demands (and optionally server counts) and whose outputs
are per-station residence times, throughputs and/or response times. It also offers the
vectorised form ``evaluate_all(params, conditions) -> (T, m)``: trials that share a think time
are served by one MVA sweep (single class) or one lattice (several classes), so the
finite-difference loop of the calibration needs n + 1 sweeps per iteration, not T (n + 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from pilotstats._kernels import queueing as _kq
from pilotstats._validation import (
    as_parameter_vector,
    as_real_array,
    check_choice,
    check_closed_cycle,
    check_int,
    check_servers,
)
from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._mva_solvers import _fold, _seidmann_transform, _single_class_exact
from pilotstats.regression._queueing import amva
from pilotstats.regression._queueing_inputs import _per_class, _servers
from pilotstats.regression._thread_pool import thread_pool

__all__ = ["ClosedNetworkModel", "ThreadPoolModel"]

FloatArray = npt.NDArray[np.float64]
Measure = Literal["residence_times", "throughput", "response_time", "utilizations"]
_MEASURES = ("residence_times", "throughput", "response_time", "utilizations")


class ClosedNetworkModel:
    """A closed product-form network as a calibration model h(x, u).

    Parameters
    ----------
    n_stations : int
        Number of stations K.
    classes : int, default 1
        Number of customer classes C.
    think_time : float or sequence of float, optional
        Fixed think time per class. If given, each trial's condition is its population
        (an int for one class, or a length-C sequence); if omitted, each condition is a row
        ``[N_1, ..., N_C, Z_1, ..., Z_C]``.
    measures : sequence of {"residence_times", "throughput", "response_time", "utilizations"}
        Outputs per trial, in this order: residence times T_kc (station-major, then
        class), throughputs f_c, response times R_c, utilizations U_k (per station, summed
        over classes, per server: U_k = Σ_c f_c D_kc / m_k by the utilization law; a delay
        station reports its mean number of busy servers Σ_c f_c D_kc). Fitting response
        times and utilizations ("R and U") rather than response times alone is the
        comparison of Woodside's tutorial (WOSP/SIPEW 2010, slides 31-32).
    servers : sequence, optional
        Fixed server count per station (inf for a delay station); default single servers.
    server_parameters : sequence of int, optional
        Stations whose server counts are unknown parameters, appended to x after the
        demands (calibrate them with ``integer=``).
    multiserver : {"exact", "seidmann"}, default "exact"
        Multi-server stations by exact load-dependent MVA (one class) or Seidmann.
    solver : {"exact", "schweitzer"}, default "exact"
        Exact MVA or Bard–Schweitzer approximate MVA (for many classes or large N).

    Attributes
    ----------
    n_parameters : int
        K·C demands (order D[k, c], station-major) plus the free server counts.
    parameter_names : tuple of str
    lower_bounds, upper_bounds : ndarray
        Demands >= 0, server counts >= 1 (used by :func:`calibrate` as default bounds).
    n_measures : int
    measure_names : tuple of str
        One label per output column (``"T1"``, ``"f"``, ``"R"``, ``"U1"``; with several
        classes ``"T1,2"``, ``"f2"``, ``"R2"``); :func:`~pilotstats.regression.f_test`
        uses them to match the measures of fits on different measure sets.
    symmetric_permutations : tuple of tuple of int
        Parameter permutations that leave every output unchanged (swapping the demands of
        two stations with equal server counts when no per-station measure is fitted);
        :func:`~pilotstats.regression.calibrate` checks them for label switching.

    Notes
    -----
    Complexity: Each evaluation costs one :func:`mva` (or :func:`amva`) solution per
    distinct think-time vector.

    Examples
    --------
    >>> import numpy as np
    >>> model = ClosedNetworkModel(3, think_time=10.0)
    >>> np.round(model(np.array([2.0, 3.0, 4.0]), 10), 4)
    array([ 3.6383,  8.5154, 20.095 ,  0.2367])
    """

    def __init__(
        self,
        n_stations: int,
        *,
        classes: int = 1,
        think_time: float | Sequence[float] | None = None,
        measures: Sequence[Measure] = ("residence_times", "throughput"),
        servers: Sequence[float] | None = None,
        server_parameters: Sequence[int] = (),
        multiserver: Literal["exact", "seidmann"] = "exact",
        solver: Literal["exact", "schweitzer"] = "exact",
    ) -> None:
        from pilotstats import _config

        self.n_stations = check_int(n_stations, "n_stations", low=1, high=_config.MAX_STATIONS)
        self.classes = check_int(classes, "classes", low=1, high=_config.MAX_STATIONS)
        if self.n_stations * self.classes > _config.MAX_STATIONS:
            raise InvalidInputError(
                f"n_stations × classes = {self.n_stations * self.classes} demands exceed the "
                f"supported maximum of {_config.MAX_STATIONS}"
            )
        # "utilization" (singular) is accepted as a synonym of "utilizations"
        self.measures: tuple[str, ...] = tuple(
            "utilizations" if str(m) == "utilization" else str(m) for m in measures
        )
        if not self.measures:
            raise InvalidInputError("measures must name at least one measure")
        for measure in self.measures:
            check_choice(measure, "measures entry", _MEASURES)
        self.think_time = (
            None
            if think_time is None
            else _per_class(think_time, self.classes, "think_time")
        )
        self.servers = _servers(servers, self.n_stations)
        self.server_parameters = tuple(
            check_int(k, "server_parameters entry", low=0, high=self.n_stations - 1)
            for k in server_parameters
        )
        self.multiserver = check_choice(multiserver, "multiserver", ("exact", "seidmann"))
        self.solver = check_choice(solver, "solver", ("exact", "schweitzer"))
        k, c = self.n_stations, self.classes
        self.n_demands = k * c
        self.n_parameters = self.n_demands + len(self.server_parameters)
        if c == 1:
            names = [f"D{i + 1}" for i in range(k)]
        else:
            names = [f"D{i + 1},{j + 1}" for i in range(k) for j in range(c)]
        names += [f"m{i + 1}" for i in self.server_parameters]
        self.parameter_names = tuple(names)
        self.lower_bounds = np.concatenate(
            [np.zeros(self.n_demands), np.ones(len(self.server_parameters))]
        )
        self.upper_bounds = np.full(self.n_parameters, np.inf)
        self._parsed: tuple[Any, Any] | None = None
        sizes = {"residence_times": k * c, "throughput": c, "response_time": c,
                 "utilizations": k}
        self.n_measures = sum(sizes[m] for m in self.measures)
        self.measure_names = _measure_names(self.measures, k, c)
        self.symmetric_permutations = self._symmetries()

    def _symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Station swaps that leave the outputs unchanged (no per-station measure fitted)."""
        if {"residence_times", "utilizations"} & set(self.measures):
            return ()
        k, c = self.n_stations, self.classes
        out = []
        for a in range(k):
            for b in range(a + 1, k):
                if a in self.server_parameters or b in self.server_parameters:
                    continue
                if self.servers[a] != self.servers[b]:
                    continue
                perm = list(range(self.n_parameters))
                for j in range(c):
                    perm[a * c + j], perm[b * c + j] = b * c + j, a * c + j
                out.append(tuple(perm))
        return tuple(out)

    def __repr__(self) -> str:
        return (
            f"ClosedNetworkModel(n_stations={self.n_stations}, classes={self.classes}, "
            f"measures={self.measures}, solver={self.solver!r})"
        )

    def __call__(self, params: Any, u: Any) -> FloatArray:
        """Predicted measures of one trial, shape (m,)."""
        out: FloatArray = self.evaluate_all(params, [u])[0]
        return out

    # ------------------------------------------------------------------ helpers

    def _split(self, params: Any) -> tuple[FloatArray, FloatArray]:
        values = as_parameter_vector(params, self.n_parameters,
                                     f"params ({', '.join(self.parameter_names)})")
        demands = values[: self.n_demands].reshape(self.n_stations, self.classes)
        servers = self.servers.copy()
        for position, k in enumerate(self.server_parameters):
            servers[k] = values[self.n_demands + position]
        return np.ascontiguousarray(demands), servers

    def _conditions(
        self, conditions: Any
    ) -> tuple[npt.NDArray[np.int64], FloatArray, dict[tuple[float, ...], list[int]]]:
        cached = self._parsed
        if (
            cached is not None
            and cached[0] is conditions
            and isinstance(conditions, np.ndarray)
            and not conditions.flags.writeable
        ):
            # the same read-only array as last time (calibrate passes one frozen copy)
            hit: tuple[npt.NDArray[np.int64], FloatArray, dict[tuple[float, ...], list[int]]]
            hit = cached[1]
            return hit
        parsed = self._parse_conditions(conditions)
        self._parsed = (conditions, parsed)
        return parsed

    def _parse_conditions(
        self, conditions: Any
    ) -> tuple[npt.NDArray[np.int64], FloatArray, dict[tuple[float, ...], list[int]]]:
        rows = as_real_array(conditions, "conditions")
        c = self.classes
        width = c if self.think_time is not None else 2 * c
        if rows.ndim == 1 and width == 1:
            rows = rows[:, None]
        if rows.ndim != 2 or rows.shape[1] != width:
            layout = "[N_1..N_C]" if self.think_time is not None else "[N_1..N_C, Z_1..Z_C]"
            raise InvalidInputError(
                f"conditions must be one row {layout} of {width} value(s) per trial, got an "
                f"array of shape {rows.shape}"
            )
        populations = rows[:, :c]
        if (
            not np.isfinite(rows).all()
            or (populations < 0).any()
            or not np.all(populations == np.round(populations))
        ):
            raise InvalidInputError(
                "conditions: populations must be whole numbers >= 0 and think times finite"
            )
        think = (
            np.broadcast_to(self.think_time, (rows.shape[0], c))
            if self.think_time is not None
            else rows[:, c:]
        )
        if (think < 0).any():
            raise InvalidInputError("conditions: think times must be non-negative")
        groups: dict[tuple[float, ...], list[int]] = {}
        for t in range(rows.shape[0]):
            groups.setdefault(tuple(float(v) for v in think[t]), []).append(t)
        return (
            populations.astype(np.int64),
            np.ascontiguousarray(think, dtype=np.float64),
            groups,
        )

    def evaluate_all(self, params: Any, conditions: Any) -> FloatArray:
        """Predicted measures for every trial, shape (T, m).

        Trials sharing a think-time vector are solved by one sweep over all populations.
        """
        demands, servers = self._split(params)
        populations, _, groups = self._conditions(conditions)
        t_count = populations.shape[0]
        k, c = self.n_stations, self.classes
        residence = np.empty((t_count, k, c))
        throughput = np.empty((t_count, c))
        for key, members in groups.items():
            z = np.array(key)
            self._solve_group(demands, servers, z, populations, members, residence, throughput)
        parts = []
        for measure in self.measures:
            if measure == "residence_times":
                parts.append(residence.reshape(t_count, k * c))
            elif measure == "throughput":
                parts.append(throughput)
            elif measure == "utilizations":
                busy = (throughput[:, None, :] * demands[None, :, :]).sum(axis=2)
                per_server = np.where(np.isinf(servers), 1.0, servers)
                parts.append(busy / per_server[None, :])
            else:
                parts.append(residence.sum(axis=1))
        return np.concatenate(parts, axis=1)

    def _solve_group(
        self,
        demands: FloatArray,
        servers: FloatArray,
        think: FloatArray,
        populations: npt.NDArray[np.int64],
        members: list[int],
        residence: FloatArray,
        throughput: FloatArray,
    ) -> None:
        if self.solver == "schweitzer":
            for t in members:
                if populations[t].sum() == 0:
                    residence[t] = demands
                    throughput[t] = 0.0
                    continue
                result = amva(demands, populations[t], think_time=think, servers=servers)
                residence[t] = result.residence_times
                throughput[t] = result.throughput
            return
        top = populations[members].max(axis=0)
        multi = bool(((servers > 1) & np.isfinite(servers)).any())
        if multi and self.multiserver == "exact" and self.classes > 1:
            raise InvalidInputError(
                "exact multi-server MVA supports one class; use multiserver='seidmann'"
            )
        check_servers(servers)
        if self.classes == 1 and not (multi and self.multiserver == "seidmann"):
            check_closed_cycle(demands, think)
            x_all, r_all, _ = _single_class_exact(
                demands[:, 0], float(think[0]), int(top[0]), servers
            )
            for t in members:
                n = int(populations[t, 0])
                residence[t, :, 0] = r_all[n]
                throughput[t, 0] = x_all[n]
            return
        check_closed_cycle(demands, think)
        if multi:
            split, delay, owner = _seidmann_transform(demands, servers)
        else:
            split, delay, owner = demands, np.isinf(servers), np.arange(self.n_stations)
        x_all, r_all = _kq.lattice_mva(
            np.ascontiguousarray(split), think, top.astype(np.int64), delay, True
        )
        strides = np.ones(self.classes, dtype=np.int64)
        for j in range(self.classes - 2, -1, -1):
            strides[j] = strides[j + 1] * (top[j + 1] + 1)
        for t in members:
            index = int(populations[t] @ strides)
            residence[t] = _fold(r_all[index], owner, self.n_stations)
            throughput[t] = x_all[index]


def _measure_names(measures: Sequence[str], k: int, c: int) -> tuple[str, ...]:
    names: list[str] = []

    def suffix(j: int) -> str:
        return "" if c == 1 else str(j + 1)

    for measure in measures:
        if measure == "residence_times":
            names += [f"T{i + 1}" + ("" if c == 1 else f",{j + 1}")
                      for i in range(k) for j in range(c)]
        elif measure == "throughput":
            names += [f"f{suffix(j)}" for j in range(c)]
        elif measure == "response_time":
            names += [f"R{suffix(j)}" for j in range(c)]
        else:
            names += [f"U{i + 1}" for i in range(k)]
    return tuple(names)


_POOL_MEASURES = ("inner_residence_times", "pool_wait", "response_time", "throughput")


class ThreadPoolModel:
    """A thread pool in front of a product-form subsystem as a calibration model.

    Parameters x are the inner demands D_1..D_K followed by the pool size m (declare it
    with ``integer=[K]`` in :func:`~pilotstats.regression.calibrate`); each condition is
    a population N. Solved by :func:`~pilotstats.regression.thread_pool`.

    Parameters
    ----------
    n_inner : int
        Number of inner single-server stations K (served while a thread is held).
    think_time : float
        Think time Z.
    measures : sequence of {"inner_residence_times", "pool_wait", "response_time",
        "throughput"}
        Outputs per trial, in this order.

    Attributes
    ----------
    n_parameters, parameter_names, lower_bounds, upper_bounds, n_measures

    Notes
    -----
    Complexity: Each evaluation costs one :func:`thread_pool` solution per trial.

    Examples
    --------
    >>> import numpy as np
    >>> model = ThreadPoolModel(2, think_time=10.0, measures=("response_time",))
    >>> round(float(model(np.array([2.0, 3.0, 2.0]), 10)[0]), 5)
    28.02008
    """

    def __init__(
        self,
        n_inner: int,
        *,
        think_time: float,
        measures: Sequence[str] = ("inner_residence_times", "response_time", "throughput"),
    ) -> None:
        from pilotstats import _config
        from pilotstats._validation import check_real

        self.n_inner = check_int(n_inner, "n_inner", low=1, high=_config.MAX_STATIONS)
        self.think_time = check_real(think_time, "think_time", low=0.0)
        self.measures = tuple(measures)
        if not self.measures:
            raise InvalidInputError("measures must name at least one measure")
        for measure in self.measures:
            check_choice(measure, "measures entry", _POOL_MEASURES)
        self.n_parameters = self.n_inner + 1
        self.parameter_names = (*tuple(f"D{i + 1}" for i in range(self.n_inner)), "threads")
        self.lower_bounds = np.concatenate([np.zeros(self.n_inner), [1.0]])
        self.upper_bounds = np.full(self.n_parameters, np.inf)
        self.n_measures = sum(
            self.n_inner if m == "inner_residence_times" else 1 for m in self.measures
        )

    def __repr__(self) -> str:
        return f"ThreadPoolModel(n_inner={self.n_inner}, measures={self.measures})"

    def __call__(self, params: Any, u: Any) -> FloatArray:
        """Predicted measures of one trial, shape (m,)."""
        out: FloatArray = self.evaluate_all(params, [u])[0]
        return out

    def evaluate_all(self, params: Any, conditions: Any) -> FloatArray:
        """Predicted measures for every trial (population), shape (T, m)."""
        values = as_parameter_vector(params, self.n_parameters,
                                     f"params ({', '.join(self.parameter_names)})")
        pool = float(values[-1])
        if not (pool.is_integer() and pool >= 1):
            raise InvalidInputError(
                f"the pool size must be a whole number >= 1, got {pool!r}; declare it with "
                f"integer=[{self.n_inner}] in calibrate"
            )
        rows = []
        from pilotstats._validation import as_float_array

        for n in as_float_array(conditions, "conditions"):
            result = thread_pool(
                values[:-1], int(check_int(n, "population", low=1)), pool_size=pool,
                think_time=self.think_time,
            )
            parts: list[Any] = []
            for measure in self.measures:
                if measure == "inner_residence_times":
                    parts.extend(result.inner_residence_times)
                elif measure == "pool_wait":
                    parts.append(result.pool_wait)
                elif measure == "response_time":
                    parts.append(result.response_time)
                else:
                    parts.append(result.throughput)
            rows.append(parts)
        return np.array(rows, dtype=np.float64)
