"""Progress bars and warning collection shared by analyze, compare and trend."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["StepBar", "call_collecting_warnings", "progress_items"]


class StepBar:
    """A tqdm bar over the steps of a long analysis (each run's stable-phase detection, each
    benchmark's intervals), showing the current step; silent without tqdm or steps."""

    def __init__(self, total: int, label: str) -> None:
        self._bar: Any = None
        if total >= 2:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped]
            except ImportError:
                return
            self._bar = tqdm(total=total, desc=label, unit="step", leave=False)

    def step(self, what: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(1)

    def __enter__(self) -> StepBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()


def progress_items(items: list[str], enabled: bool, label: str) -> Iterable[str]:
    if not enabled or len(items) < 2:
        return items
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:
        return items
    return tqdm(items, desc=label, unit="benchmark", leave=False)  # type: ignore[no-any-return]


T = TypeVar("T")


def call_collecting_warnings(function: Callable[..., T], *args: Any, **kwargs: Any
                             ) -> tuple[T, list[str]]:
    """Call ``function`` and return its result with the texts of the warnings it emitted.

    Analyses of many benchmarks report such warnings per benchmark (in ``notes``) instead of
    letting them scroll past.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]
