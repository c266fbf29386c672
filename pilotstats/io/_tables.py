"""Plain CSV samples (columns named by the user) and Pilot's baseline CSV."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pilotstats._validation import check_delimiter
from pilotstats.exceptions import InvalidInputError
from pilotstats.io._harness import TIME_UNITS
from pilotstats.io._measurements import Measurements
from pilotstats.io._source import Source, fail, read_text
from pilotstats.results import Result, format_number

__all__ = ["BaselineStatistics", "PilotBaseline", "PilotBaselineRecord", "load_csv",
           "load_pilot_baseline"]

_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}


def _rows(source: Source, delimiter: str) -> tuple[list[str], list[list[str]], str]:
    check_delimiter(delimiter)
    text, label = read_text(source, kind="CSV")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    # skip blank lines (and lines of empty cells, e.g. a trailing ",,")
    try:
        lines = [row for row in reader if row and (row[0].strip() or "".join(row).strip())]
    except csv.Error as exc:  # e.g. a field over csv.field_size_limit()
        fail(label, None, f"malformed CSV: {exc}")
    if not lines:
        fail(label, None, "empty CSV: need a header row and at least one data row")
    header = [cell.strip() for cell in lines[0]]
    return header, lines[1:], label


def _column_index(header: list[str], column: str | None, label: str, role: str) -> int | None:
    if column is None:
        return None
    if column not in header:
        fail(label, column, f"{role} column not found; header has {header}")
    return header.index(column)


def _number(text: str, label: str, row: int, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        fail(label, f"row {row}, column {column}", f"not a number: {text!r}")
    if not math.isfinite(value):
        fail(label, f"row {row}, column {column}", f"not a finite number: {text!r}")
    return value


def _numeric_column(rows: list[list[str]], index: int, column: str, label: str
                    ) -> npt.NDArray[np.float64]:
    cells = [row[index] for row in rows]
    try:
        values = np.asarray(cells, dtype=np.float64)
    except ValueError:
        values = np.full(len(cells), np.nan)
    if not bool(np.all(np.isfinite(values))):
        for number, text in enumerate(cells, start=2):
            _number(text, label, number, column)  # raises, naming the first bad cell
    return values


def load_csv(
    source: Source, *, value_column: str | None = None, elapsed_column: str | None = None,
    work_column: str | None = None, benchmark_column: str | None = None,
    run_column: str | None = None, warmup_column: str | None = None,
    benchmark: str = "benchmark", time_unit: str = "s", delimiter: str = ",",
) -> Measurements:
    """Load samples from a CSV file whose columns you name.

    Give either ``value_column`` (time per unit of work, e.g. seconds per call) or
    ``elapsed_column`` (total time of each sample); rows are samples in time order.

    Parameters
    ----------
    source : path, file or str
        The CSV (a path, ``.gz`` path, open file, or the CSV text itself).
    value_column, elapsed_column : str
        Exactly one of them.
    work_column : str, optional
        Work per sample (default 1).
    benchmark_column, run_column, warmup_column : str, optional
        Benchmark name, replicate id (integers) and warm-up flag (1/0, true/false, yes/no).
    benchmark : str, default "benchmark"
        Name used when there is no ``benchmark_column``.
    time_unit : {"ns", "us", "ms", "s", ...}, default "s"
        Unit of the time column, converted to seconds.
    delimiter : str, default ","

    Returns
    -------
    Measurements

    Raises
    ------
    FormatError
        Missing column, non-numeric cell (the message gives row and column).

    Notes
    -----
    Complexity: O(size of the file).

    Examples
    --------
    >>> text = "bench,ms\\na,1.5\\na,1.7\\nb,2.0\\n"
    >>> m = load_csv(text, value_column="ms", benchmark_column="bench", time_unit="ms")
    >>> m.names, m["a"].elapsed.tolist()
    (('a', 'b'), [0.0015, 0.0017])
    """
    if (value_column is None) == (elapsed_column is None):
        raise InvalidInputError("give exactly one of value_column= (time per unit of work) "
                                "and elapsed_column= (total time of each sample)")
    if not isinstance(time_unit, str) or time_unit not in TIME_UNITS:
        raise InvalidInputError(
            f"time_unit must be one of {sorted(TIME_UNITS)}, got {time_unit!r}")
    header, rows, label = _rows(source, delimiter)
    time_name = str(value_column if value_column is not None else elapsed_column)
    i_time = _column_index(header, time_name, label, "time")
    i_work = _column_index(header, work_column, label, "work")
    i_name = _column_index(header, benchmark_column, label, "benchmark")
    i_run = _column_index(header, run_column, label, "run")
    i_warm = _column_index(header, warmup_column, label, "warm-up")
    if not rows:
        fail(label, None, "no data rows below the header")
    scale = TIME_UNITS[time_unit]
    short = next((i for i, row in enumerate(rows) if len(row) < len(header)), None)
    if short is not None:
        fail(label, f"row {short + 2}", f"has {len(rows[short])} cells, header has {len(header)}")
    time_values = _numeric_column(rows, int(i_time or 0), time_name, label) * scale
    work = _csv_work(rows, header, i_work, label)
    elapsed = time_values * work if value_column is not None else time_values
    names = ([row[i_name].strip() for row in rows] if i_name is not None
             else [benchmark] * len(rows))
    runs = _csv_runs(rows, header, i_run, label)
    warm = _csv_warmups(rows, header, i_warm, label)
    meta = {"unit": "s", "format": "csv", "source": label, "time_column": time_name,
            "time_unit": time_unit}
    return Measurements(elapsed, work=work, run=runs, warmup=warm, benchmark=names,
                        metadata={name: dict(meta) for name in dict.fromkeys(names)})


def _csv_work(rows: list[list[str]], header: list[str], i_work: int | None,
              label: str) -> np.ndarray:
    """The work column (positive), or ones."""
    work = np.ones(len(rows))
    if i_work is not None:
        work = _numeric_column(rows, i_work, header[i_work], label)
        bad = np.flatnonzero(work <= 0)
        if bad.size:
            fail(label, f"row {int(bad[0]) + 2}, column {header[i_work]}",
                 "work must be positive")
    return work


def _csv_runs(rows: list[list[str]], header: list[str], i_run: int | None,
              label: str) -> np.ndarray:
    """The run ids (integers), or zeros."""
    runs = np.zeros(len(rows), dtype=np.int64)
    if i_run is not None:
        run_values = _numeric_column(rows, i_run, header[i_run], label)
        bad = np.flatnonzero(run_values != np.round(run_values))
        if bad.size:
            fail(label, f"row {int(bad[0]) + 2}, column {header[i_run]}",
                 "run ids must be integers")
        runs = run_values.astype(np.int64)
    return runs


def _csv_warmups(rows: list[list[str]], header: list[str], i_warm: int | None,
                 label: str) -> np.ndarray:
    """The warm-up flags (1/0, true/false, yes/no), or all False."""
    warm = np.zeros(len(rows), dtype=bool)
    if i_warm is not None:
        for number, row in enumerate(rows, start=2):
            flag = row[i_warm].strip().lower()
            if flag not in _TRUE | _FALSE:
                fail(label, f"row {number}, column {header[i_warm]}",
                     f"warm-up flag must be 1/0, true/false or yes/no, got {row[i_warm]!r}")
            warm[number - 2] = flag in _TRUE
    return warm


def load_csv_series(source: Source, column: str, *, time_column: str | None = None,
                    delimiter: str = ",") -> tuple[npt.NDArray[np.float64], list[str] | None]:
    """One numeric column of a CSV (finite numbers, rows in order) and, with
    ``time_column``, the text of that column in each row (time stamps, e.g. for records).

    The same reading, checks and messages as :func:`load_csv`.

    Examples
    --------
    >>> load_csv_series("t,ms\\n1,2.5\\n2,2.7\\n", "ms", time_column="t")
    (array([2.5, 2.7]), ['1', '2'])
    """
    header, rows, label = _rows(source, delimiter)
    i_value = int(_column_index(header, column, label, "value") or 0)
    i_time = _column_index(header, time_column, label, "time")
    if not rows:
        fail(label, None, "no data rows below the header")
    short = next((i for i, row in enumerate(rows) if len(row) < len(header)), None)
    if short is not None:
        fail(label, f"row {short + 2}", f"has {len(rows[short])} cells, header has {len(header)}")
    values = _numeric_column(rows, i_value, column, label)
    return values, None if i_time is None else [row[i_time] for row in rows]


@dataclass(frozen=True, slots=True)
class BaselineStatistics(Result):
    """One baseline of Pilot: count, mean and variance (and unit-reading extras).

    ``half_width`` is half the CI width Pilot writes (its ``unit_readings_ci_width`` column
    holds a full width).

    Examples
    --------
    The ``readings`` and ``unit_readings`` of a :class:`PilotBaselineRecord`:

    >>> from pilotstats.io import load_pilot_baseline
    >>> text = ("piid,readings_num,readings_mean,readings_var,unit_readings_num,"
    ...         "unit_readings_mean,unit_readings_var\\n0,42,666.66,42.42,,,\\n")
    >>> baseline = load_pilot_baseline(text)
    >>> statistics = baseline[0].readings
    >>> print(statistics)
    mean 666.7 (variance 42.42, n = 42)
    >>> statistics.n, statistics.mean
    (42, 666.66)
    """

    n: int
    mean: float
    variance: float
    half_width: float | None = None
    optimal_subsession_size: int | None = None

    def __str__(self) -> str:
        return (f"mean {format_number(self.mean)} (variance {format_number(self.variance)}, "
                f"n = {self.n})")


@dataclass(frozen=True, slots=True)
class PilotBaselineRecord(Result):
    """Baselines of one performance index (``piid``): readings and unit readings.

    Examples
    --------
    One performance index of a :class:`PilotBaseline`:

    >>> from pilotstats.io import load_pilot_baseline
    >>> text = ("piid,readings_num,readings_mean,readings_var,unit_readings_num,"
    ...         "unit_readings_mean,unit_readings_var\\n0,42,666.66,42.42,,,\\n")
    >>> baseline = load_pilot_baseline(text)
    >>> print(baseline[0])
    piid 0: readings mean 666.7 (variance 42.42, n = 42), unit readings None
    """

    piid: int
    readings: BaselineStatistics | None
    unit_readings: BaselineStatistics | None

    def __str__(self) -> str:
        return f"piid {self.piid}: readings {self.readings}, unit readings {self.unit_readings}"


@dataclass(frozen=True, slots=True)
class PilotBaseline(Result):
    """All records of a Pilot baseline CSV, in file order.

    Examples
    --------
    Returned by :func:`load_pilot_baseline`:

    >>> from pilotstats.io import load_pilot_baseline
    >>> text = ("piid,readings_num,readings_mean,readings_var,unit_readings_num,"
    ...         "unit_readings_mean,unit_readings_var\\n0,42,666.66,42.42,,,\\n")
    >>> baseline = load_pilot_baseline(text)
    >>> print(baseline)
    Pilot baseline (1 performance indices, <string>)
    >>> len(baseline), baseline[0].piid
    (1, 0)
    """

    records: tuple[PilotBaselineRecord, ...]
    source: str

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, piid: int) -> PilotBaselineRecord:
        for record in self.records:
            if record.piid == piid:
                return record
        raise KeyError(f"no record with piid {piid}")

    def __str__(self) -> str:
        return f"Pilot baseline ({len(self.records)} performance indices, {self.source})"


def _optional(row: dict[str, str], column: str, label: str, number: int) -> float | None:
    text = row.get(column, "").strip()
    if text == "":
        return None
    return _number(text, label, number, column)


def _baseline(row: dict[str, str], prefix: str, label: str, number: int,
              extras: bool) -> BaselineStatistics | None:
    count = _optional(row, f"{prefix}_num", label, number)
    if count is None or count == 0:
        return None
    if count != int(count) or count < 0:
        fail(label, f"row {number}, column {prefix}_num", "count must be a non-negative integer")
    mean = _optional(row, f"{prefix}_mean", label, number)
    var = _optional(row, f"{prefix}_var", label, number)
    if mean is None or var is None:
        fail(label, f"row {number}, column {prefix}_mean/{prefix}_var",
             "a baseline with a count needs both mean and variance")
    if var < 0:
        fail(label, f"row {number}, column {prefix}_var", "variance must be >= 0")
    width = _optional(row, f"{prefix}_ci_width", label, number) if extras else None
    q = _optional(row, f"{prefix}_optimal_subsession_size", label, number) if extras else None
    return BaselineStatistics(int(count), mean, var, None if width is None else width / 2.0,
                              None if q is None or q <= 0 else int(q))


def load_pilot_baseline(source: Source) -> PilotBaseline:
    """Read the baseline CSV written by Pilot (``pilot ... --save-baseline``).

    Columns are matched by name; an empty field or a count of 0 means "not set".

    Parameters
    ----------
    source : path, file or str
        The CSV (header ``piid,readings_num,readings_mean,...``).

    Returns
    -------
    PilotBaseline
        One :class:`PilotBaselineRecord` per row, with ``readings`` and ``unit_readings``
        baselines (``n``, ``mean``, ``variance``; for unit readings also ``half_width``, half
        Pilot's ``ci_width`` column, and ``optimal_subsession_size``) or ``None`` when unset.

    Notes
    -----
    Format: Pilot (``ascar-io/pilot-bench`` v0.14) ``lib/workload.cc`` baseline writer and
    ``lib/test/unit_test_compare_results.cc``, whose records the tests reproduce.
    Pilot's "formatted" columns are ignored: they are derived (and its formatted variance is
    computed wrongly).

    Complexity: O(size of the file).

    Examples
    --------
    >>> text = ("piid,readings_num,readings_mean,readings_var,unit_readings_num,"
    ...         "unit_readings_mean,unit_readings_var\\n0,42,666.66,42.42,,,\\n")
    >>> load_pilot_baseline(text)[0].readings.n
    42
    """
    header, rows, label = _rows(source, ",")
    if "piid" not in header:
        fail(label, "piid", f"missing column; this is not a Pilot baseline CSV (header {header})")
    records = []
    for number, cells in enumerate(rows, start=2):
        row = {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(header)}
        piid = _number(row["piid"], label, number, "piid")
        if piid != int(piid) or piid < 0:
            fail(label, f"row {number}, column piid", "must be a non-negative integer")
        records.append(PilotBaselineRecord(
            int(piid),
            _baseline(row, "readings", label, number, extras=False),
            _baseline(row, "unit_readings", label, number, extras=True),
        ))
    return PilotBaseline(tuple(records), label)

