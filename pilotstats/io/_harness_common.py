"""Shared parts of the harness loaders: seconds per time-unit label, the sample builder
that turns parsed samples into :class:`~pilotstats.io.Measurements`, and the selection of
benchmarks by name with the "not found" errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pilotstats.exceptions import FormatError
from pilotstats.io._measurements import Measurements

#: Seconds per time unit label used by the harnesses.
TIME_UNITS: dict[str, float] = {
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0,
    "min": 60.0, "hr": 3600.0, "day": 86400.0,
}


class _Builder:
    """Accumulates samples, then builds one :class:`Measurements`."""

    def __init__(self) -> None:
        self.elapsed: list[float] = []
        self.work: list[float] = []
        self.run: list[int] = []
        self.order: list[int] = []
        self.warmup: list[bool] = []
        self.name: list[str] = []
        self.metadata: dict[str, dict[str, Any]] = {}

    def add(self, name: str, elapsed: float, work: float, run: int, order: int,
            warmup: bool = False) -> None:
        self.elapsed.append(elapsed)
        self.work.append(work)
        self.run.append(run)
        self.order.append(order)
        self.warmup.append(warmup)
        self.name.append(name)

    def add_many(self, name: str, elapsed: list[float], work: float | list[float], run: int,
                 order_start: int, warmup: bool = False) -> None:
        count = len(elapsed)
        self.elapsed.extend(elapsed)
        self.work.extend(work if isinstance(work, list) else [work] * count)
        self.run.extend([run] * count)
        self.order.extend(range(order_start, order_start + count))
        self.warmup.extend([warmup] * count)
        self.name.extend([name] * count)

    def build(self, label: str, what: str) -> Measurements:
        if not self.elapsed:
            raise FormatError(f"{label}: no samples found ({what})", source=label)
        return Measurements(self.elapsed, work=self.work, run=self.run, order=self.order,
                            warmup=self.warmup, benchmark=self.name, metadata=self.metadata)


def _select(name: str, wanted: str | Iterable[str] | None) -> bool:
    if wanted is None:
        return True
    if isinstance(wanted, str):
        return name == wanted
    return name in set(wanted)


def _check_found(builder: _Builder, wanted: str | Iterable[str] | None, label: str,
                 available: list[str]) -> None:
    if wanted is None:
        return
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    missing = [n for n in names if n not in builder.metadata]
    if missing:
        raise FormatError(
            f"{label}: benchmark(s) {missing} not found; available: {available}", source=label
        )


def _check_found_any(builder: _Builder, wanted: str | Iterable[str], label: str,
                     available: list[str]) -> None:
    if not builder.metadata:
        raise FormatError(f"{label}: benchmark(s) {wanted!r} not found; available: "
                          f"{available}", source=label)

