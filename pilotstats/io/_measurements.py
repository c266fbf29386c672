"""The common container every loader returns: :class:`Measurements`.

One sample is one timed quantity as the harness stored it: its *elapsed* time in seconds, the
*work* it covered (loops, iterations, calls, operations), the *run* (replicate: process, fork,
repetition) it belongs to, its *order* within that run, whether it was a *warm-up*, and the
*benchmark* it measures. This is the input shape of the work-per-second regression
(t = α + w/v) and, through the within-run order, of the subsession analysis
(``docs/algorithms/wps.md``, ``docs/algorithms/subsession.md``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats._typing import Float64Array1D, Int64Array1D
from pilotstats._validation import (
    as_float_array,
    check_int,
    check_name,
    check_real,
    reject_container_misuse,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from pilotstats.results import draw, format_quantity

__all__ = ["Measurements"]

BoolArray1D = npt.NDArray[np.bool_]


def _readonly(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.setflags(write=False)
    return array


def _length_check(array: npt.NDArray[Any], name: str, n: int) -> npt.NDArray[Any]:
    if array.shape[0] != n:
        raise InvalidInputError(
            f"{name} has {array.shape[0]} entries but elapsed has {n}; give one per sample"
        )
    return array


def _is_scalar(values: Any) -> bool:
    return np.isscalar(values) or (isinstance(values, np.ndarray) and values.ndim == 0)


def _reject_none(values: Any, name: str, default: Any) -> None:
    """None is not a value of a per-sample column (``warmup=None`` must not be taken as
    False); omitting the argument gives the default."""
    if values is None:
        raise InvalidInputError(f"{name} must not be None; omit it for the default "
                                f"({default!r} for every sample)")


def _float_column(values: Any, name: str, n: int, default: float) -> Float64Array1D:
    """Positive finite reals (work amounts): a scalar for every sample, or one per sample."""
    _reject_none(values, name, default)
    if _is_scalar(values) and not isinstance(values, (str, bytes)):
        value = check_real(values.item() if isinstance(values, np.ndarray) else values, name,
                           low=0.0, low_inclusive=False)
        return np.full(n, value, dtype=np.float64)
    array = as_float_array(values, name, min_length=0, positive=True)
    return _length_check(array, name, n)


def _plain_array(values: Any) -> npt.NDArray[Any] | None:
    """``numpy.asarray(values)``, or None when that fails (as_float_array then explains)."""
    if isinstance(values, (str, bytes)):
        return None
    try:
        return np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        return None


def _int_column(values: Any, name: str, n: int, default: int, *, low: int | None = None
                ) -> Int64Array1D:
    """Integer ids (run, order): a scalar for every sample, or one per sample."""
    _reject_none(values, name, default)
    if _is_scalar(values) and not isinstance(values, (str, bytes)):
        item = values.item() if isinstance(values, np.ndarray) else values
        return np.full(n, check_int(item, name, low=low), dtype=np.int64)
    raw = _plain_array(values)
    if raw is not None and raw.dtype.kind in "iub" and raw.ndim == 1:
        array = np.array(raw, dtype=np.int64, copy=True)
    else:
        floats = as_float_array(values, name, min_length=0)
        if not np.all(floats == np.round(floats)) or np.any(np.abs(floats) > 2.0**53):
            index = int(np.flatnonzero((floats != np.round(floats))
                                       | (np.abs(floats) > 2.0**53))[0])
            raise InvalidInputError(
                f"{name} must contain whole numbers (ids); value {floats[index]!r} at index "
                f"{index}"
            )
        array = floats.astype(np.int64)
    if low is not None and np.any(array < low):
        index = int(np.flatnonzero(array < low)[0])
        raise InvalidInputError(
            f"{name} must be at least {low}; value {int(array[index])} at index {index}"
        )
    return _length_check(array, name, n)


def _bool_column(values: Any, name: str, n: int) -> npt.NDArray[np.bool_]:
    """Flags (warm-up): True/False for every sample, or one bool (or 0/1) per sample."""
    _reject_none(values, name, False)
    if isinstance(values, (bool, np.bool_)):
        return np.full(n, bool(values), dtype=np.bool_)
    if _is_scalar(values):
        raise InvalidInputError(
            f"{name} must be True/False or one flag per sample, got {values!r:.60}"
        )
    raw = _plain_array(values)
    if raw is not None and raw.dtype.kind == "b" and raw.ndim == 1:
        return _length_check(np.array(raw, dtype=np.bool_, copy=True), name, n)
    floats = as_float_array(values, name, min_length=0)
    if not np.all((floats == 0.0) | (floats == 1.0)):
        index = int(np.flatnonzero((floats != 0.0) & (floats != 1.0))[0])
        raise InvalidInputError(
            f"{name} must contain booleans (or 0/1); value {floats[index]!r} at index {index}"
        )
    return _length_check(floats.astype(np.bool_), name, n)


def _name_column(values: Any, n: int) -> npt.NDArray[np.str_]:
    """Benchmark names: one string for every sample, or one string per sample."""
    _reject_none(values, "benchmark", "benchmark")
    if isinstance(values, str):
        check_name(values, "benchmark")
        return np.array([values] * n, dtype=np.str_)
    reject_container_misuse(values, "benchmark")
    if _is_scalar(values):
        raise InvalidInputError(f"benchmark must be a string or one string per sample, got "
                                f"{values!r:.60}")
    raw = _plain_array(values)
    if raw is not None and raw.ndim == 1 and raw.dtype.kind == "O" and all(
        isinstance(item, str) for item in raw
    ):  # pandas string columns, lists of str with mixed lengths
        for item in raw:  # before the fixed-width copy: n * longest name * 4 bytes
            check_name(item, "benchmark")
        raw = raw.astype(np.str_)
    elif raw is not None and raw.dtype.kind in "US" and raw.ndim == 1 and raw.size:
        check_name(str(max(raw.tolist(), key=len)), "benchmark")
    if raw is None or raw.ndim != 1 or raw.dtype.kind not in "US":
        raise InvalidInputError(
            "benchmark must be a string or a 1-D sequence of strings, got "
            + ("an unconvertible object" if raw is None else
               f"dtype {raw.dtype} and shape {raw.shape}")
        )
    return _length_check(np.array(raw, dtype=np.str_, copy=True), "benchmark", n)


def _positions_within_groups(names: npt.NDArray[np.str_], runs: Int64Array1D) -> Int64Array1D:
    """0, 1, 2, ... within each (benchmark, run) group, in the given order."""
    n = names.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    _, name_codes = np.unique(names, return_inverse=True)
    _, run_codes = np.unique(runs, return_inverse=True)
    group = name_codes.astype(np.int64) * (int(run_codes.max()) + 1) + run_codes
    by_group = np.argsort(group, kind="stable")
    sorted_groups = group[by_group]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    lengths = np.diff(np.r_[starts, n])
    positions = np.arange(n) - np.repeat(starts, lengths)
    order = np.empty(n, dtype=np.int64)
    order[by_group] = positions
    return order


@dataclass(frozen=True, eq=False)
class Measurements:
    """Time-ordered benchmark samples of one or more benchmarks, with replicate structure.

    Samples are stored benchmark by benchmark, run by run, in time order within each run
    (the order the harness recorded them). Iterating yields one :class:`Measurements` per
    benchmark; ``m["name"]`` selects one benchmark; ``len(m)`` is the number of benchmarks and
    :attr:`n_samples` the number of samples.

    Parameters
    ----------
    elapsed : array_like, shape (n,)
        Elapsed time of each sample, seconds (for a pyperf benchmark whose ``unit`` is not
        ``second``, the value in that unit; see :attr:`units`).
    work : array_like or float, shape (n,)
        Amount of work each sample covered (loops, iterations, calls); 1 when unknown.
    run : array_like or int, shape (n,)
        Replicate id: pyperf worker process, JMH fork, Google Benchmark repetition, hyperfine
        timing (one process each), asv process; 0 when the harness has one replicate per file
        (pytest-benchmark, criterion.rs). :func:`pilotstats.io.load_many` gives the runs of
        several files distinct ids.
    order : array_like, shape (n,), optional
        Position of the sample within its run (warm-ups included). Default: 0, 1, ... per
        (benchmark, run) in the given order.
    warmup : array_like or bool, shape (n,)
        Whether the harness marked the sample as a warm-up (only pyperf stores warm-ups).
    benchmark : array_like or str, shape (n,)
        Benchmark name of each sample.
    metadata : mapping, optional
        Per-benchmark metadata ``{name: {key: value}}`` (machine, versions, harness options,
        ``unit``, ``format``, ``source``). Missing names get an empty mapping.

    Raises
    ------
    InvalidInputError
        Through the same validation as every public function: ``elapsed`` not a 1-D array
        of finite non-negative real numbers (strings, numeric strings, complex numbers,
        dates, 2-D input, mappings and iterators are rejected, never coerced); ``work`` not
        finite and positive; ``run``/``order`` not whole numbers (a NaN id is an error,
        not INT64_MIN); ``warmup`` not booleans or 0/1 (a NaN flag is an error, not True);
        ``benchmark`` not strings; a per-sample column of the wrong length; None for
        ``work``, ``run``, ``warmup`` or ``benchmark`` (omit the argument for its default).
    InputLimitError
        A benchmark name longer than ``pilotstats._config.MAX_NAME_LENGTH`` characters
        (checked before the per-sample copy of the names).

    Notes
    -----
    Complexity O(n log n) (the default ``order`` sorts by benchmark and run).

    Examples
    --------
    >>> from pilotstats.io import Measurements
    >>> m = Measurements.from_values([1.0, 1.1, 0.9, 1.0], work=10, benchmark="demo")
    >>> m
    Measurements(1 benchmark, 4 samples, 1 run)
    >>> m.elapsed.tolist()
    [10.0, 11.0, 9.0, 10.0]
    >>> [b.names for b in m]
    [('demo',)]
    """

    elapsed: Float64Array1D
    work: Float64Array1D
    run: Int64Array1D
    order: Int64Array1D
    warmup: BoolArray1D
    benchmark: npt.NDArray[np.str_]
    metadata: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __init__(
        self,
        elapsed: Any,
        *,
        work: Any = 1.0,
        run: Any = 0,
        order: Any = None,
        warmup: Any = False,
        benchmark: Any = "benchmark",
        metadata: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        elapsed_array = as_float_array(elapsed, "elapsed", min_length=0, nonnegative=True)
        n = elapsed_array.shape[0]
        work_array = _float_column(work, "work", n, 1.0)
        run_array = _int_column(run, "run", n, 0)
        warm_array = _bool_column(warmup, "warmup", n)
        name_array = _name_column(benchmark, n)
        if order is None:
            order_array = _positions_within_groups(name_array, run_array)
        else:
            order_array = _int_column(order, "order", n, 0, low=0)
        if metadata is not None and not isinstance(metadata, Mapping):
            raise InvalidInputError(
                f"metadata must be a mapping {{name: {{key: value}}}}, got "
                f"{type(metadata).__name__}"
            )
        names = list(dict.fromkeys(name_array.tolist()))
        meta: dict[str, dict[str, Any]] = {}
        for name in names:
            meta[name] = dict((metadata or {}).get(name, {}))
        object.__setattr__(self, "elapsed", _readonly(elapsed_array))
        object.__setattr__(self, "work", _readonly(work_array))
        object.__setattr__(self, "run", _readonly(run_array))
        object.__setattr__(self, "order", _readonly(order_array))
        object.__setattr__(self, "warmup", _readonly(warm_array))
        object.__setattr__(self, "benchmark", _readonly(name_array))
        object.__setattr__(self, "metadata", meta)

    # -- construction ------------------------------------------------------------------
    @classmethod
    def from_values(
        cls,
        values: Any,
        *,
        work: Any = 1.0,
        run: Any = 0,
        warmup: Any = False,
        benchmark: Any = "benchmark",
        metadata: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Measurements:
        """Build from per-work values (seconds per loop/iteration): ``elapsed = value * work``.

        Examples
        --------
        >>> Measurements.from_values([2e-6, 3e-6], work=1000).elapsed.tolist()
        [0.002, 0.003]
        """
        per_work = as_float_array(values, "values", min_length=0, nonnegative=True)
        work_array = _float_column(work, "work", per_work.shape[0], 1.0)
        return cls(per_work * work_array, work=work_array, run=run, warmup=warmup,
                   benchmark=benchmark, metadata=metadata)

    @classmethod
    def concat(cls, parts: Sequence[Measurements]) -> Measurements:
        """Concatenate containers (benchmark names should differ, or runs will be merged).

        To load several result files of the same benchmarks as separate runs, use
        :func:`pilotstats.io.load_many`, which renumbers the runs of each file.

        Examples
        --------
        >>> a = Measurements([1.0, 2.0], benchmark="a")
        >>> b = Measurements([3.0], benchmark="b")
        >>> Measurements.concat([a, b]).names
        ('a', 'b')
        """
        if not parts:
            raise NotEnoughDataError("concat needs at least one Measurements object")
        metadata: dict[str, dict[str, Any]] = {}
        for part in parts:
            for name, meta in part.metadata.items():
                metadata.setdefault(name, {}).update(meta)
        return cls(
            np.concatenate([p.elapsed for p in parts]),
            work=np.concatenate([p.work for p in parts]),
            run=np.concatenate([p.run for p in parts]),
            order=np.concatenate([p.order for p in parts]),
            warmup=np.concatenate([p.warmup for p in parts]),
            benchmark=np.concatenate([p.benchmark for p in parts]),
            metadata=metadata,
        )

    # -- views -------------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """Benchmark names, in order of first appearance."""
        return tuple(self.metadata)

    @property
    def n_samples(self) -> int:
        """Number of samples (warm-ups included)."""
        return int(self.elapsed.shape[0])

    @property
    def runs(self) -> tuple[int, ...]:
        """Replicate ids, in order of first appearance."""
        return tuple(dict.fromkeys(int(r) for r in self.run))

    @property
    def time_per_work(self) -> Float64Array1D:
        """Seconds per unit of work of each sample, ``elapsed / work`` (what harnesses print)."""
        return _readonly(self.elapsed / self.work)

    @property
    def unit(self) -> str:
        """Unit of ``elapsed`` (``"s"`` unless a pyperf benchmark says otherwise)."""
        units = {str(meta.get("unit", "s")) for meta in self.metadata.values()}
        return units.pop() if len(units) == 1 else "mixed"

    def select(self, mask: Any) -> Measurements:
        """Samples where the boolean ``mask`` is true (metadata kept for remaining names)."""
        keep = np.asarray(mask, dtype=bool)
        if keep.shape != self.elapsed.shape:
            raise InvalidInputError(
                f"mask has shape {keep.shape}, expected {self.elapsed.shape} (one per sample)"
            )
        names = set(self.benchmark[keep].tolist())
        return Measurements(
            self.elapsed[keep], work=self.work[keep], run=self.run[keep],
            order=self.order[keep], warmup=self.warmup[keep], benchmark=self.benchmark[keep],
            metadata={k: v for k, v in self.metadata.items() if k in names},
        )

    def without_warmups(self) -> Measurements:
        """The samples the harness did not mark as warm-ups."""
        return self.select(~self.warmup)

    def by_run(self) -> Iterator[tuple[int, Measurements]]:
        """Yield ``(run id, samples of that run)`` in order of first appearance."""
        for run_id in self.runs:
            yield run_id, self.select(self.run == run_id)

    def values(self, *, include_warmups: bool = False) -> Float64Array1D:
        """Seconds per work unit in storage order (runs one after another)."""
        part = self if include_warmups else self.without_warmups()
        return part.time_per_work

    def __getitem__(self, name: str) -> Measurements:
        if name not in self.metadata:
            raise KeyError(f"no benchmark named {name!r}; available: {list(self.names)}")
        return self.select(self.benchmark == name)

    def __contains__(self, name: object) -> bool:
        return name in self.metadata

    def __iter__(self) -> Iterator[Measurements]:
        if len(self.metadata) == 1:
            yield self
            return
        for name in self.names:
            yield self[name]

    def items(self) -> Iterator[tuple[str, Measurements]]:
        """Yield ``(name, single-benchmark Measurements)`` pairs."""
        for part in self:
            yield part.names[0], part

    def __len__(self) -> int:
        return len(self.metadata)

    def __repr__(self) -> str:
        nb = len(self.metadata)
        nr = len(self.runs)
        return (f"Measurements({nb} benchmark{'s' if nb != 1 else ''}, {self.n_samples} "
                f"samples, {nr} run{'s' if nr != 1 else ''})")

    def _summary_rows(self) -> list[tuple[str, int, int, int, str]]:
        """(name, samples, warm-ups, runs, mean per work unit) of each benchmark."""
        rows = []
        for name, part in self.items():
            meta = part.metadata[name]
            unit = str(meta.get("unit", "s"))
            kept = part.without_warmups()
            mean = float(np.mean(kept.time_per_work)) if kept.n_samples else math.nan
            rows.append((name, kept.n_samples, part.n_samples - kept.n_samples, len(part.runs),
                         format_quantity(mean, unit if unit != "second" else "s", 3)))
        return rows

    def __str__(self) -> str:
        lines = [repr(self)]
        for name, kept, warm, runs, mean in self._summary_rows():
            lines.append(f"  {name}: {kept} samples + {warm} warm-ups in {runs} runs, "
                         f"mean {mean} per work unit")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from pilotstats._html import report_html

        return report_html(repr(self), ["benchmark", "samples", "warm-ups", "runs",
                                        "mean per work unit"], self._summary_rows())

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        benchmark: str | None = "benchmark",
        run: str | None = "run",
        value: str = "elapsed",
        work: str | None = "work",
        order: str | None = "order",
        warmup: str | None = "warmup",
        metadata: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Measurements:
        """Build measurements from a pandas DataFrame with one row per sample.

        Each keyword names the column holding that field. A field whose column is None, or
        whose default column name is absent from the frame, takes the constructor's default
        (one benchmark ``"benchmark"``, run 0, work 1, no warm-ups, order by row). The
        defaults are the columns of :meth:`to_frame`, so ``from_frame(m.to_frame())`` round
        trips (without ``metadata``). Rows must be in time order within each run.

        Parameters
        ----------
        frame : pandas.DataFrame
            One row per sample.
        benchmark, run, work, order, warmup : str or None
            Column names of the benchmark name, replicate id, work per sample, position in
            the run and harness warm-up flag.
        value : str, default "elapsed"
            Column of the elapsed time of each sample (seconds).
        metadata : mapping, optional
            Per-benchmark metadata, as for the constructor.

        Returns
        -------
        Measurements

        Raises
        ------
        InvalidInputError
            ``frame`` is not a DataFrame, or a named column is missing.

        Examples
        --------
        >>> import pandas as pd
        >>> from pilotstats.io import Measurements
        >>> frame = pd.DataFrame({"test": ["a", "a", "b"], "seconds": [1.0, 1.2, 3.0]})
        >>> m = Measurements.from_frame(frame, benchmark="test", value="seconds")
        >>> m.names, m["b"].elapsed.tolist()
        (('a', 'b'), [3.0])
        """
        columns = getattr(frame, "columns", None)
        if columns is None or not hasattr(frame, "iloc"):
            raise InvalidInputError(
                f"frame must be a pandas DataFrame with one row per sample, got "
                f"{type(frame).__name__}"
            )
        defaults = {"benchmark": "benchmark", "run": "run", "work": "work", "order": "order",
                    "warmup": "warmup"}
        chosen = {"benchmark": benchmark, "run": run, "value": value, "work": work,
                  "order": order, "warmup": warmup}
        data: dict[str, Any] = {}
        for field_name, column in chosen.items():
            if column is None:
                continue
            if column not in columns:
                if defaults.get(field_name) == column:
                    continue
                raise InvalidInputError(
                    f"{field_name}={column!r} is not a column of the frame; columns: "
                    f"{', '.join(map(str, columns))}"
                )
            data[field_name] = frame[column].to_numpy()
        elapsed = data.pop("value")
        if "benchmark" in data:
            data["benchmark"] = data["benchmark"].astype(str)
        return cls(elapsed, metadata=metadata, **data)

    def plot(self, *, benchmark: str | None = None, ax: Any = None) -> Any:
        """Time per work unit of each sample, one colour per run (needs matplotlib).

        See :func:`pilotstats.plotting.plot_measurements`.
        """
        return draw(self, benchmark=benchmark, ax=ax)

    def to_frame(self) -> Any:
        """Return a pandas DataFrame, one row per sample (pandas is imported here, lazily).

        Columns: ``benchmark, run, order, warmup, elapsed, work, time_per_work``.

        Examples
        --------
        >>> frame = Measurements([1.0, 2.0], work=[1, 4], benchmark="x").to_frame()
        >>> list(frame.columns)
        ['benchmark', 'run', 'order', 'warmup', 'elapsed', 'work', 'time_per_work']
        >>> frame["time_per_work"].tolist()
        [1.0, 0.5]
        """
        import pandas as pd

        return pd.DataFrame({
            "benchmark": self.benchmark.astype(object),
            "run": self.run.copy(),
            "order": self.order.copy(),
            "warmup": self.warmup.copy(),
            "elapsed": self.elapsed.copy(),
            "work": self.work.copy(),
            "time_per_work": self.elapsed / self.work,
        })

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe plain data (lists), suitable for ``json.dumps``."""
        from pilotstats.results import json_safe

        return {
            "benchmark": self.benchmark.tolist(),
            "run": self.run.tolist(),
            "order": self.order.tolist(),
            "warmup": self.warmup.tolist(),
            "elapsed": self.elapsed.tolist(),
            "work": self.work.tolist(),
            "metadata": json_safe(self.metadata),
        }
