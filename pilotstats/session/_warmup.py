"""Warm-up and cool-down removal of a session round's unit readings.

:func:`trim_warmup` is Pilot's fixed-percentage trimming; :func:`stable_range` is the one
switch between it, stable-phase detection (:func:`pilotstats.changepoints.stable_phase`)
and no removal (``"pooled"`` is decided across rounds by
:mod:`pilotstats.session._rounds`, so a round alone keeps everything here), and reports
when a round had to keep its warm-up; :class:`UnitReadings`
counts, per index, the removed readings and the rounds that kept their warm-up, and words
the latter.
"""

from __future__ import annotations

import math

from pilotstats._typing import ArrayLike1D, Float64Array1D, WarmupRemoval
from pilotstats._validation import as_float_array, check_real
from pilotstats.changepoints import stable_phase

__all__ = ["WARMUP_METHODS", "UnitReadings", "stable_range", "trim_warmup"]

WARMUP_METHODS: tuple[WarmupRemoval, ...] = ("pooled", "stable_phase", "trim", "none")


def trim_warmup(values: ArrayLike1D, trim_fraction: float = 0.1) -> tuple[int, int]:
    """Pilot's fixed-percentage warm-up trimming of one round's unit readings.

    Drops the first ``round_half_away_from_zero(trim_fraction * n)`` readings, but a non-empty
    round always keeps at least its last reading; an empty round contributes nothing
    (Pilot ``lib/test/unit_test_unit_readings_iter.cc``).

    Parameters
    ----------
    values : array_like, shape (n,)
        The round's unit readings (numbers; may be empty).
    trim_fraction : float, default 0.1
        Fraction of the round treated as warm-up, in [0, 1).

    Returns
    -------
    (start, end) : tuple of int
        Half-open range of the readings kept.

    Raises
    ------
    InvalidInputError
        ``values`` is not a 1-D array of finite numbers, or ``trim_fraction`` is outside
        [0, 1).

    Examples
    --------
    >>> trim_warmup([1, 5, 10, 20, 30, 40, 42, 43, 41])
    (1, 9)
    """
    n = int(as_float_array(values, "values", min_length=0).shape[0])
    p = check_real(trim_fraction, "trim_fraction", low=0.0, high=1.0, high_inclusive=False)
    if n == 0:
        return 0, 0
    drop = min(math.floor(p * n + 0.5), n - 1)
    return drop, n


#: Outcome of warm-up removal in one round: removed (or nothing to remove), too short to
#: search (fewer than 2 * min_size readings), or change points without a dominant segment.
REMOVED, TOO_SHORT, UNRESOLVED = "removed", "too_short", "unresolved"


def stable_range(
    values: Float64Array1D, method: WarmupRemoval, fraction: float, min_size: int
) -> tuple[int, int, str]:
    """The one switch for warm-up/cool-down removal of a round's unit readings."""
    n = int(values.shape[0])
    if method == "pooled":  # decided across rounds (session._rounds); per round: none
        method = "none"
    if method == "none" or n == 0:
        return 0, n, REMOVED
    if method == "trim":
        return (*trim_warmup(values, fraction), REMOVED)
    if n < 2 * min_size:
        return 0, n, TOO_SHORT  # cannot be searched: kept whole and reported
    phase = stable_phase(values, min_size=min_size)
    if not phase.found:
        return 0, n, UNRESOLVED  # no dominant segment: keep the round (reported)
    return int(phase.start), int(phase.end), REMOVED


class UnitReadings:
    """Warm-up bookkeeping of a session's unit readings, per index.

    Each used round's readings lose their warm-up and cool-down (:func:`stable_range`)
    before the session keeps them; the counts of used rounds, of removed readings and of
    rounds that kept their warm-up feed the index's analysis and note.
    """

    __slots__ = ("removed", "too_short", "unresolved", "used")

    def __init__(self) -> None:
        self.used: list[int] = []  # per index: used rounds
        self.removed: list[int] = []
        self.too_short: list[int] = []
        self.unresolved: list[int] = []

    def __len__(self) -> int:
        """Number of indices (0 before the first round with unit readings)."""
        return len(self.used)

    def start(self, count: int) -> None:
        """Prepare ``count`` indices (at the first round with unit readings)."""
        self.used = [0] * count
        self.removed = [0] * count
        self.too_short = [0] * count
        self.unresolved = [0] * count

    def keep(
        self,
        index: int,
        values: Float64Array1D,
        method: WarmupRemoval,
        fraction: float,
        min_size: int,
    ) -> Float64Array1D:
        """Remove one round's warm-up from an index's readings; return the rest."""
        start, end = self.keep_range(index, values, method, fraction, min_size)
        return values[start:end]

    def keep_range(
        self,
        index: int,
        values: Float64Array1D,
        method: WarmupRemoval,
        fraction: float,
        min_size: int,
    ) -> tuple[int, int]:
        """Count one round of an index and return the range its warm-up removal keeps."""
        start, end, outcome = stable_range(values, method, fraction, min_size)
        self.used[index] += 1
        self.removed[index] += int(values.shape[0]) - (end - start)
        if outcome == TOO_SHORT:
            self.too_short[index] += 1
        elif outcome == UNRESOLVED:
            self.unresolved[index] += 1
        return start, end

    def warmup_kept(self, index: int) -> int:
        """Rounds of an index that kept their warm-up (too short, or unresolved)."""
        return self.too_short[index] + self.unresolved[index]

    def note(self, index: int, label: str, min_size: int) -> str | None:
        """Why an index's interval may be biased by warm-up, or None when it is not.

        Parameters
        ----------
        index : int
            The index.
        label : str
            Its label (``kind[name]``).
        min_size : int
            The session's minimum segment length.

        Returns
        -------
        str or None
            The note.
        """
        too_short, unresolved = self.too_short[index], self.unresolved[index]
        if not too_short and not unresolved:
            return None
        used = self.used[index]
        parts = []
        if too_short:
            parts.append(
                f"{too_short} had fewer than 2 * min_size = {2 * min_size} unit "
                "readings to search (lower min_size, or run longer rounds)"
            )
        if unresolved:
            parts.append(f"{unresolved} had change points but no dominant stable segment")
        return (
            f"{label}: warm-up could not be removed in {too_short + unresolved} of {used} "
            f"rounds ({'; '.join(parts)}); the interval may be biased by warm-up"
        )
