"""Incremental per-round decisions of a benchmark session.

After each round the session must know whether every index meets its target (and how many
values each still needs, to pace the work). The full analysis of an index
(:func:`pilotstats.session._indices.analyse_index`) rescans all its values: O(n) per round,
O(n²) over a session. :class:`IndexStream` keeps an index's values in a growing buffer and
the state from which :meth:`IndexStream.requirement` decides the required sample size
exactly as :func:`~pilotstats.autocorrelation.required_sample_size` does, in O(new values +
sizes scanned) per round. For a binary index that state is the number of ones. For an
ordinary index (arithmetic mean):

- the overall mean continues the same compensated sum (bit-identical);
- the subsession-size scan and the subsession variance are bounded, from running block
  sums, together with every rounding error of the full computation
  (:mod:`pilotstats._kernels.session`); when the bounds settle the scan and the integer
  sample size, that is the full analysis's answer;
- otherwise (a value within about 1e-10 of a threshold, ratio indices, indices with a
  baseline, fewer than 3 values, values beyond 2**500) the caller runs the full analysis,
  so every decision is the one the full analysis would take.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from pilotstats._kernels import autocorrelation as _prefix
from pilotstats._kernels import session as _kernels
from pilotstats._typing import Float64Array1D
from pilotstats.autocorrelation._sample_size import (
    _blocks_required,
    target_half_width,
    wilson_size,
)
from pilotstats.exceptions import PilotStatsError
from pilotstats.session._results import IndexAnalysis

__all__ = ["IndexStream", "IndexVerdict", "RunningSum", "verdict_of"]

#: Largest magnitude the incremental state handles (the full analysis rescales beyond it).
_PEAK = 2.0**500
#: Relative widening of the variance bounds for the division by ``h - 1``.
_DIVISION = 4.0 * 2.0**-53


class IndexVerdict(NamedTuple):
    """What the session needs of an index after each round.

    Attributes
    ----------
    n : int
        Values of the index.
    done : bool
        It meets its targets (:attr:`IndexAnalysis.done`).
    fraction : float or None
        Its progress (:attr:`IndexAnalysis.fraction`); None when the incremental bounds
        settle that it is not done but not its required sample size (a target so narrow
        that it needs billions of values): the full analysis supplies it on request.
    needed : int or None
        While not done: values required by its interval target and reachable baseline
        comparison, the larger of the two (None: undetermined, or ``fraction`` is None).
    """

    n: int
    done: bool
    fraction: float | None
    needed: int | None


def verdict_of(item: IndexAnalysis) -> IndexVerdict:
    """The verdict contained in a full analysis.

    Parameters
    ----------
    item : IndexAnalysis
        The analysis.

    Returns
    -------
    IndexVerdict
        Its ``n``, ``done``, ``fraction`` and the larger requirement.
    """
    needed = None if item.required is None else item.required.samples
    if item.comparison_required is not None and item.comparison_note is None:
        needed = max(needed or 0, item.comparison_required.samples)
    return IndexVerdict(item.n, item.done, item.fraction, needed)


class IndexStream:
    """The values of one index, in a growing buffer, with its incremental state.

    Parameters
    ----------
    kind : {"mean", "proportion"} or None
        What :meth:`requirement` decides: the arithmetic mean of an ordinary index (block
        sums and their bounds are kept), the proportion of a binary index (the number of
        ones is kept), or nothing (ratio indices: only the values are kept).
    """

    __slots__ = (
        "_constant", "_high", "_low", "_ones", "_peak", "_peak_low", "_spread", "_table",
        "_values", "kind", "n",
    )

    def __init__(self, kind: str | None) -> None:
        self.kind = kind
        self.n = 0
        self._ones = 0
        self._values = np.empty(64)
        self._high = np.zeros(65)
        self._low = np.zeros(65)
        self._table = np.zeros((9, 8))  # sizes 1..8; grown when the scan needs more
        self._constant = True
        self._peak = 0.0
        self._spread = 0.0
        self._peak_low = 0.0

    def values(self) -> Float64Array1D:
        """All values so far (a read-only view)."""
        view = self._values[: self.n]
        view.flags.writeable = False
        return view

    def extend(self, values: Float64Array1D) -> None:
        """Append a round's values (already checked finite) and update the state.

        Parameters
        ----------
        values : ndarray, shape (k,)
            The values, in time order.
        """
        start, stop = self.n, self.n + int(values.shape[0])
        if stop == start:
            return
        if stop > self._values.shape[0]:
            capacity = max(stop, 2 * self._values.shape[0])
            self._values = np.concatenate([self._values[:start], np.empty(capacity - start)])
        self._values[start:stop] = values
        self.n = stop
        first = self._values[0]
        self._constant = self._constant and bool(np.all(values == first))
        self._peak = max(self._peak, float(np.max(np.abs(values))))
        if self.kind == "proportion":
            self._ones += int(np.count_nonzero(values))
        if self.kind != "mean" or self._peak > _PEAK:
            return
        if stop + 1 > self._high.shape[0]:
            capacity = max(stop + 1, 2 * self._high.shape[0])
            self._high = np.concatenate([self._high[: start + 1], np.zeros(capacity - start - 1)])
            self._low = np.concatenate([self._low[: start + 1], np.zeros(capacity - start - 1)])
        _prefix.extend_prefix_sums(self._values, start, stop, False, self._high, self._low)
        # An upper bound on sum |x_i - x_0| (for the error bounds only).
        self._spread += float(np.sum(np.abs(values - first))) * (1.0 + 1e-6)
        self._peak_low = max(
            self._peak_low, float(np.max(np.abs(self._low[start + 1 : stop + 1])))
        )
        _kernels.extend_blocks(self._high, self._low, stop, self._table, self._centre())

    def _mean(self) -> float:
        """The overall mean, as :func:`pilotstats._kernels.autocorrelation.overall_mean`."""
        n = self.n
        return float(self._values[0] + (self._high[n] + self._low[n]) / n)

    def _centre(self) -> float:
        return self._mean() - float(self._values[0])

    def _subsession_size(self, limit: float) -> int:
        """The certified scan; -1 none qualifies, -2 unsettled."""
        while True:
            q = _kernels.certified_subsession_size(
                self._table, self._centre(), self.n, self._spread, self._peak_low, limit
            )
            if q != -3:
                return int(q)
            rows = self._table.shape[0]
            grown = np.zeros((min(2 * rows - 1, self.n // 3 + 1), 8))
            grown[:rows] = self._table
            self._table = grown
            _kernels.extend_blocks(self._high, self._low, self.n, self._table, self._centre())


    def requirement(
        self,
        *,
        target: tuple[float | None, float | None],
        min_subsessions: int,
        confidence_level: float,
        autocorrelation_limit: float,
    ) -> tuple[int | None, int | None] | None:
        """Bounds on the ``samples`` that ``required_sample_size`` returns.

        For a proportion the bounds are equal: the proportion of the full analysis is the
        number of ones over ``n`` (an exact sum, correctly rounded quotient), so its
        Wilson sample size follows in O(log n).

        Parameters
        ----------
        target : (float or None, float or None)
            Target half width in percent of the mean and in the index's unit.
        min_subsessions : int
            Minimum number of subsessions.
        confidence_level, autocorrelation_limit : float
            The session's settings.

        Returns
        -------
        (int, int) or (None, None) or None
            Bounds ``low <= samples <= high`` on the full analysis's required number of
            values (equal when settled); ``(None, None)`` when, for certain, no subsession
            size qualifies; None when the scan is not settled (or the full analysis might
            raise).

        Notes
        -----
        O(sizes scanned) kernel work, plus the growth of the block table when the scan
        reaches sizes not summed yet.
        """
        n = self.n
        if self.kind is None or n < 3 or self._peak > _PEAK:
            return None
        if self.kind == "proportion":
            return self._proportion_requirement(target, min_subsessions, confidence_level)
        try:
            half = target_half_width(self._mean(), target[1], target[0])
        except PilotStatsError:
            return None
        if self._constant:
            samples = max(1, min_subsessions)
            return samples, samples
        q = self._subsession_size(autocorrelation_limit)
        if q == -2:
            return None
        if q == -1:
            return None, None
        ss_low, ss_high, _, _ = _kernels.moment_bounds(
            self._table, q, self._centre(), n, self._spread, self._peak_low
        )
        h = n // q
        try:
            low = _blocks_required("pilot", ss_low / (h - 1) * (1.0 - _DIVISION), half,
                                   confidence_level, h)
            high = _blocks_required("pilot", ss_high / (h - 1) * (1.0 + _DIVISION), half,
                                    confidence_level, h)
        except PilotStatsError:
            return None
        return q * max(low, min_subsessions), q * max(high, min_subsessions)

    def _proportion_requirement(
        self, target: tuple[float | None, float | None], min_subsessions: int,
        confidence_level: float,
    ) -> tuple[int, int] | None:
        """``required_sample_size(kind="proportion")`` from the number of ones."""
        p_hat = self._ones / self.n
        try:
            half = target_half_width(p_hat, target[1], target[0])
            samples = max(wilson_size(p_hat, half, confidence_level), min_subsessions)
        except PilotStatsError:
            return None
        return samples, samples


class RunningSum:
    """A sum extended value by value whose :meth:`value` is ``math.fsum`` of all of them.

    Shewchuk's partials (the algorithm behind :func:`math.fsum`) hold the exact sum as a
    few non-overlapping floats, so each :meth:`add` costs O(partials) and the correctly
    rounded total is the one ``math.fsum`` returns on the whole list.
    """

    __slots__ = ("_partials",)

    def __init__(self) -> None:
        self._partials: list[float] = []

    def add(self, x: float) -> None:
        """Add one finite value."""
        i = 0
        for y in self._partials:
            if abs(x) < abs(y):
                x, y = y, x
            high = x + y
            low = y - (high - x)
            if low:
                self._partials[i] = low
                i += 1
            x = high
        self._partials[i:] = [x]

    def value(self) -> float:
        """The correctly rounded sum of every value added."""
        return math.fsum(self._partials)
