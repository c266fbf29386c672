"""What ``pilotstats run`` writes: CSV tables and the summary (the live display: _run_progress).

Every output file is written atomically through
:func:`pilotstats.session._statefiles.write_file` (no symbolic links followed). A WPS
throughput that is undetermined (a slope at or below 0) is written with an empty estimate
and empty bounds in ``summary.csv`` and nulls in ``summary.json``: an undetermined
throughput never carries a finite bound.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from pilotstats.session import BenchmarkSession, SessionResult
from pilotstats.session._statefiles import write_file

__all__ = ["export", "summary_result"]



def summary_result(result: SessionResult) -> dict[str, Any]:
    """``result.to_dict()``: an undetermined throughput's estimate and bounds are NaN in the
    result (:class:`~pilotstats.regression.WpsResult`), hence null here."""
    return result.to_dict()


def _csv(header: list[str], rows: list[list[Any]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _wps_row(session: BenchmarkSession, result: SessionResult) -> list[Any]:
    fit = result.wps
    assert fit is not None
    if fit.valid:
        values: list[Any] = [fit.throughput, fit.throughput_ci_low, fit.throughput_ci_high]
    else:  # undetermined: no estimate and no bound, never a finite one
        values = ["", "", ""]
    return ["wps", "throughput", f"{result.unit}/s", "ratio", int(session.wps_analysis),
            fit.n_rounds_used, 0, *values, result.confidence_level, int(bool(result.wps_done))]


def export(directory: str, config: dict[str, Any], session: BenchmarkSession,
           result: SessionResult, summary: dict[str, Any]) -> None:
    """rounds.csv, readings.csv, unit_readings.csv, summary.csv, summary.json.

    Raises
    ------
    OSError
        A file could not be written (e.g. the disk is full); the files written before it
        are complete, the others unchanged.
    """
    names = [pi["name"] for pi in config["pis"]]
    rounds = session.state()["rounds"]
    short, outliers = set(result.short_rounds), set(result.outlier_rounds)
    write_file(directory, "rounds.csv", _csv(
        ["round", "work", "duration_s", "short", "wps_outlier"],
        [[i, r["work"], r["duration"], int(i in short), int(i in outliers)]
         for i, r in enumerate(rounds)]))
    if any(r["readings"] is not None for r in rounds):
        write_file(directory, "readings.csv", _csv(
            ["round", *names],
            [[i, *r["readings"]] for i, r in enumerate(rounds) if r["readings"]]))
    if any(r["unit_readings"] is not None for r in rounds):
        rows = []
        for i, r in enumerate(rounds):
            for position, values in enumerate(zip(*(r["unit_readings"] or []), strict=True)):
                rows.append([i, position, *values])
        write_file(directory, "unit_readings.csv",
                   _csv(["round", "position", *names], rows))
    table = []
    if result.wps is not None:
        table.append(_wps_row(session, result))
    elif session.wps_analysis:  # no fit yet: the required throughput has no value at all
        table.append(["wps", "throughput", f"{result.unit}/s", "ratio", 1, 0, 0, "", "", "",
                      result.confidence_level, 0])
    for item in (*result.readings, *result.unit_readings):
        low = high = None
        if item.analysis is not None:
            low, high = item.analysis.ci_low, item.analysis.ci_high
        table.append([item.kind, item.name, item.unit, item.index_type, int(item.must_satisfy),
                      item.n, item.n_removed, item.estimate, low, high,
                      result.confidence_level, int(item.done)])
    write_file(directory, "summary.csv", _csv(
        ["analysis", "name", "unit", "index_type", "must_satisfy", "n", "n_removed",
         "estimate", "ci_low", "ci_high", "confidence_level", "done"], table))
    write_file(directory, "summary.json",
               json.dumps(summary, indent=2, allow_nan=False).encode("utf-8"))
