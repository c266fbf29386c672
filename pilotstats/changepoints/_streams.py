"""Streaming :func:`detect_changes` and :func:`stable_phase`: :class:`DetectStream` and
:class:`StablePhaseStream`.

Both follow :class:`pilotstats.Stream`: :meth:`append` and :meth:`extend` only store the
values (amortised O(1) per value), :meth:`result` brings the analysis up to date and equals
the batch call on all values so far. What stays valid between two calls on growing prefixes
of one series is kept: the EDM-percent dynamic programme of the candidates up to
``_config.DETECT_EDM_MAX_POINTS`` (1,000) values (causal, one column per new value:
:class:`~pilotstats.changepoints.EdmStream`) and the rank scans of windows that lie in the
part already seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pilotstats import _config
from pilotstats._stats import arithmetic_scale
from pilotstats._typing import (
    ArrayLike1D,
    ChangeTest,
    Float64Array1D,
    RandomState,
    StablePhaseMethod,
)
from pilotstats._validation import (
    as_float_array,
    check_detect_options,
    check_stable_options,
    check_stream_value,
    check_stream_values,
)
from pilotstats.changepoints._detect import DetectedChangePoints, detect_validated
from pilotstats.changepoints._detect_scan import (
    _candidate_limit,
    _candidate_locations,
    _candidate_penalty,
)
from pilotstats.changepoints._edm import EdmStream
from pilotstats.changepoints._stable import (
    PILOT_DEGREE,
    PILOT_PERCENT,
    StablePhase,
    stable_validated,
)
from pilotstats.exceptions import NotEnoughDataError

__all__ = ["DetectStream", "StablePhaseStream"]


class _Values:
    """Growing float64 buffer (capacity doubles: amortised O(1) per value)."""

    def __init__(self) -> None:
        self._data = np.empty(64)
        self.n = 0

    def add(self, chunk: Float64Array1D) -> None:
        k = int(chunk.shape[0])
        if self.n + k > self._data.shape[0]:
            grown = np.empty(max(2 * self._data.shape[0], self.n + k))
            grown[: self.n] = self._data[: self.n]
            self._data = grown
        self._data[self.n : self.n + k] = chunk
        self.n += k

    def copy(self) -> Float64Array1D:
        """The values so far as a fresh array."""
        return self._data[: self.n].copy()


class _EdmCandidates:
    """Incremental EDM-percent candidates of :func:`detect_changes` on growing prefixes.

    Called like :func:`pilotstats.changepoints._detect_scan._candidate_locations` with the
    (exactly scaled) data. Up to ``DETECT_EDM_MAX_POINTS`` values it keeps one
    :class:`EdmStream` on them and adds the new values as columns; it rebuilds it when the
    configuration changes (and on :meth:`reset`: the owner calls it when the exact
    power-of-two data scale changes). Beyond, the block boundaries move with n and the
    batch search on the block medians runs again.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._stream: EdmStream | None = None
        self._fed = 0

    def __call__(self, data: Float64Array1D, min_size: int) -> tuple[tuple[int, ...], int]:
        n = int(data.shape[0])
        if n > _candidate_limit():
            self.reset()  # a prefix never comes back: free the state
            return _candidate_locations(data, min_size)
        percent, degree = _candidate_penalty()
        key = (percent, degree, min_size)
        if key != self._key or self._stream is None:
            self._stream = EdmStream(
                min_size=min_size, percent=percent, degree=degree, scale="range"
            )
            self._key, self._fed = key, 0
        self._stream.extend(data[self._fed : n])
        self._fed = n
        return self._stream._locations(), 1


class _ScanMemo(dict[Any, Any]):
    """Rank-scan memo of :class:`DetectStream` that records which settings were used."""

    def __init__(self) -> None:
        super().__init__()
        self.used: set[Any] = set()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self.used.add(key)
        return super().setdefault(key, default)

    def prune(self, n: int) -> None:
        """Keep the settings used by the last call and the windows ending before ``n``."""
        for key in [k for k in self if k not in self.used]:
            del self[key]
        for tables in self.values():
            for table in tables:
                for window in [w for w in table if w[1] >= n]:
                    del table[window]
        self.used = set()


class DetectStream:
    """Streaming :func:`detect_changes`: guarded change points updated as values arrive.

    Follows the :class:`pilotstats.Stream` protocol (``append`` one value, ``extend`` with
    many, ``result()``, ``len(stream)``); an observation is one finite number. After any
    sequence of calls, :meth:`result` equals ``detect_changes(all values so far, ...)`` with
    the same options (the same :class:`DetectedChangePoints`, field for field).

    Parameters
    ----------
    min_size, significance_level, rng, test, n_permutations, location_tolerance, \
variance_changes, unit
        As in :func:`detect_changes` (same defaults). With ``test="permutation"`` pass an
        integer seed for results that depend on the values only: every :meth:`result` then
        draws from a new generator of that seed, as the batch call does (a Generator is
        drawn from at each :meth:`result`, as the batch call would draw from it).

    Raises
    ------
    InvalidInputError
        Bad options (see :func:`detect_changes`).

    See Also
    --------
    detect_changes : the batch computation.
    StablePhaseStream : the streaming :func:`stable_phase`.
    pilotstats.Stream : the protocol.

    Notes
    -----
    **Appends** only store the value: amortised O(1) per value (a buffer that doubles), so
    a session or a monitoring loop can append every round and ask for the result when it
    needs one.

    **result()** brings the analysis up to date and costs about what the batch call costs
    on the parts that depend on the whole series; it reuses what stays valid:

    * The EDM-percent candidates (the O(n²) part of :func:`detect_changes`) up to
      ``_config.DETECT_EDM_MAX_POINTS`` = 1,000 values: the dynamic programme is causal
      (James, Kejariwal & Matteson 2014, arXiv:1411.7955), so each value added since the
      last call adds one column at O(n), as in :class:`EdmStream`, instead of the batch
      O(n²). It is recomputed when the range-scaled values change (a new minimum or maximum:
      O(log n) times on stationary noise) or the exact power-of-two data scale changes.
      Beyond 1,000 values the batch call searches the medians of 1,000 blocks whose
      boundaries move with n, so this search, O(1,000²) (about 2 ms), runs again at every
      call.
    * The rank scans and location estimates of windows inside the values already seen,
      when the autocorrelation inflation is the same as in an earlier call (it is 1 on
      series whose residual ranks are not positively autocorrelated); not kept for the
      permutation test, whose draws depend on the order of the scans.
    * The result itself, returned again while no value was added.

    Recomputed at every call, O(n log n): the residual autocorrelations (ranks of the
    whole series), the scans of windows that end at the newest value, and the segment
    statistics. So a result costs about one batch call beyond 1,000 values, and less below.

    Measured (``benchmarks/bench_streams.py``, ``benchmarks/RESULTS_streams.md``; process
    CPU on a shared 2-core machine): 10^5 appends of N(0, 1) noise cost 0.33 s, 1.0× one
    batch call at 10^5 (0.34 s); with a result after every 1,000th append the 100 results
    cost 21.7 s, as much as 100 batch calls on the same prefixes (21.9 s). Within the EDM
    limit the reuse pays: with the limit at 6,000 instead of 1,000, a
    result every 100th of 6,000 appends took 0.32–0.49 s for the 60 results against
    1.5–1.7 s for the batch calls; with the limit at 1,000 the batch calls themselves cost
    about that (0.3–0.5 s), and so do the results.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import DetectStream, detect_changes
    >>> rng = np.random.default_rng(7)
    >>> x = np.concatenate([rng.normal(12.0, 1.0, 60), rng.normal(10.0, 1.0, 240)])
    >>> stream = DetectStream()
    >>> stream.extend(x[:200])
    >>> for value in x[200:]:
    ...     stream.append(value)
    >>> len(stream), stream.result().locations
    (300, (61,))
    >>> stream.result() == detect_changes(x)
    True
    """

    def __init__(
        self,
        *,
        min_size: int = 30,
        significance_level: float = 0.05,
        rng: RandomState = None,
        test: ChangeTest = "rank",
        n_permutations: int = 199,
        location_tolerance: int = _config.DETECT_LOCATION_TOLERANCE,
        variance_changes: bool | None = None,
        unit: str | None = None,
    ) -> None:
        self._options: dict[str, Any] = {
            "min_size": min_size,
            "significance_level": significance_level,
            "rng": rng,
            "test": test,
            "n_permutations": n_permutations,
            "location_tolerance": location_tolerance,
            "variance_changes": variance_changes,
            "unit": unit,
        }
        check_detect_options(**self._options)  # validated now; again at each result (config)
        self._values = _Values()
        self._candidates = _EdmCandidates()
        self._memo = _ScanMemo()
        self._scale = 1.0
        self._last: DetectedChangePoints | None = None

    def append(self, value: Any) -> None:
        """Add one value.

        Parameters
        ----------
        value : float
            The next finite value.

        Raises
        ------
        InvalidInputError
            ``value`` is not one finite real number (an array or a sequence: use
            :meth:`extend`); the stream is then left unchanged.
        """
        self._values.add(check_stream_value(value))

    def extend(self, values: ArrayLike1D) -> None:
        """Add several values in time order.

        Parameters
        ----------
        values : array_like, shape (k,)
            New finite values in time order (an empty chunk is a no-op).

        Raises
        ------
        InvalidInputError
            NaN/inf, non-numeric or not 1-D, or a lone number (use :meth:`append`); the
            stream is then left unchanged.
        """
        self._values.add(check_stream_values(values))

    def __len__(self) -> int:
        """Number of values added so far."""
        return self._values.n

    def result(self) -> DetectedChangePoints:
        """The :class:`DetectedChangePoints` of all values so far (equal to
        :func:`detect_changes` on them).

        Returns
        -------
        DetectedChangePoints

        Raises
        ------
        NotEnoughDataError
            Nothing has been added yet.
        """
        n = self._values.n
        if n == 0:
            raise NotEnoughDataError(
                "the stream is empty; append or extend values before result()"
            )
        if self._last is not None and self._last.n == n:
            return self._last
        options = check_detect_options(**self._options)
        data = self._values.copy()
        scale = arithmetic_scale(data)
        if scale != self._scale:  # the scaled values all changed: nothing carries over
            self._memo.clear()
            self._candidates.reset()
            self._scale = scale
        memo = self._memo if options.test == "rank" else None
        self._memo.used = set()
        found = detect_validated(data, options, candidates_of=self._candidates, memo=memo)
        self._memo.prune(n)
        self._last = found
        return found

    def __repr__(self) -> str:
        return (
            f"DetectStream(n={self._values.n}, min_size={self._options['min_size']!r}, "
            f"test={self._options['test']!r})"
        )


class StablePhaseStream:
    """Streaming :func:`stable_phase`: the stable phase updated as values arrive.

    Follows the :class:`pilotstats.Stream` protocol (``append`` one value, ``extend`` with
    many, ``result()``, ``len(stream)``); an observation is one finite number (one unit
    reading of the round or fork). After any sequence of calls, :meth:`result` equals
    ``stable_phase(all values so far, ...)`` with the same options.

    Parameters
    ----------
    method, min_size, significance_level, confidence_level, rng, location_tolerance, \
tolerance, min_steady_fraction, min_warmup_fraction, higher_is_better, unit
        As in :func:`stable_phase` (same defaults; ``method="auto"`` chooses by the current
        length, so a stream switches from ``"robust"`` to ``"equivalence"`` at 1,000
        values, as the batch call does).

    Raises
    ------
    InvalidInputError
        Bad options (see :func:`stable_phase`).

    See Also
    --------
    stable_phase : the batch computation.
    DetectStream : the streaming detector behind ``method="robust"``.
    pilotstats.Stream : the protocol.

    Notes
    -----
    Appends only store the value (amortised O(1)). :meth:`result` costs, by method:

    * ``"robust"``: that of :meth:`DetectStream.result` (it holds one), plus O(n) for the
      statistics and the confidence interval of the stable phase (a result every 100th of
      6,000 appends, EDM limit then 6,000: 0.33–0.49 s CPU for the 60 results against
      1.6–1.7 s for the batch calls, ``benchmarks/RESULTS_streams.md``).
    * ``"pilot"``: EDM-percent on the raw values is causal; new values add one column each
      (O(n) per value, as :class:`EdmStream`) instead of the batch O(n²); plus O(n).
    * ``"equivalence"``: recomputed at every call, O(n) plus one :func:`detect_changes` of
      the settled part when the model needs it (its windows are ``n / 60`` values long,
      so every window changes as the fork grows).

    Options are validated at construction by the batch function itself, on one value.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import StablePhaseStream, stable_phase
    >>> rng = np.random.default_rng(3)
    >>> x = np.concatenate([rng.normal(14.0, 1.0, 50), rng.normal(10.0, 1.0, 450)])
    >>> stream = StablePhaseStream()
    >>> for value in x:
    ...     stream.append(value)
    >>> phase = stream.result()
    >>> phase.start, phase.end, phase.outcome
    (50, 500, 'trimmed')
    >>> phase == stable_phase(x)
    True
    """

    def __init__(
        self,
        *,
        method: StablePhaseMethod = "auto",
        min_size: int = 30,
        significance_level: float = 0.05,
        confidence_level: float = _config.DEFAULT_CONFIDENCE_LEVEL,
        rng: RandomState = None,
        location_tolerance: int = _config.STABLE_LOCATION_TOLERANCE,
        tolerance: float = 0.05,
        min_steady_fraction: float = 0.2,
        min_warmup_fraction: float = 0.05,
        higher_is_better: bool = False,
        unit: str | None = None,
    ) -> None:
        self._options: dict[str, Any] = {
            "method": method,
            "min_size": min_size,
            "significance_level": significance_level,
            "confidence_level": confidence_level,
            "rng": rng,
            "location_tolerance": location_tolerance,
            "tolerance": tolerance,
            "min_steady_fraction": min_steady_fraction,
            "min_warmup_fraction": min_warmup_fraction,
            "higher_is_better": higher_is_better,
            "unit": unit,
        }
        # the batch function validates every option the way it does for a real call
        stable_validated(as_float_array(np.zeros(1), "x"), check_stable_options(**self._options))
        self._values = _Values()
        self._detector: DetectStream | None = None
        self._pilot: EdmStream | None = None
        self._last: StablePhase | None = None

    def append(self, value: Any) -> None:
        """Add one value.

        Parameters
        ----------
        value : float
            The next finite value.

        Raises
        ------
        InvalidInputError
            ``value`` is not one finite real number (an array or a sequence: use
            :meth:`extend`); the stream is then left unchanged.
        """
        self._values.add(check_stream_value(value))

    def extend(self, values: ArrayLike1D) -> None:
        """Add several values in time order.

        Parameters
        ----------
        values : array_like, shape (k,)
            New finite values in time order (an empty chunk is a no-op).

        Raises
        ------
        InvalidInputError
            NaN/inf, non-numeric or not 1-D, or a lone number (use :meth:`append`); the
            stream is then left unchanged.
        """
        self._values.add(check_stream_values(values))

    def __len__(self) -> int:
        """Number of values added so far."""
        return self._values.n

    def _robust(self, data: Float64Array1D, **options: Any) -> DetectedChangePoints:
        """The ``detect_changes`` call of ``method="robust"``, served by a DetectStream."""
        if self._detector is None:
            self._detector = DetectStream(**options)
        self._detector.extend(data[len(self._detector) :])
        return self._detector.result()

    def _pilot_locations(self, data: Float64Array1D, min_size: int) -> tuple[int, ...]:
        """EDM-percent on the raw values (``method="pilot"``), served by an EdmStream."""
        if self._pilot is None:
            self._pilot = EdmStream(
                min_size=min_size, percent=PILOT_PERCENT, degree=PILOT_DEGREE, scale="none"
            )
        self._pilot.extend(data[len(self._pilot) :])
        if float(data.min()) == float(data.max()):
            return ()  # a constant series has no change point (the batch search is skipped)
        return self._pilot._locations()

    def result(self) -> StablePhase:
        """The :class:`StablePhase` of all values so far (equal to :func:`stable_phase`).

        Returns
        -------
        StablePhase

        Raises
        ------
        NotEnoughDataError
            Nothing has been added yet.
        """
        n = self._values.n
        if n == 0:
            raise NotEnoughDataError(
                "the stream is empty; append or extend values before result()"
            )
        if self._last is not None and self._last.n == n:
            return self._last
        self._last = stable_validated(
            as_float_array(self._values.copy(), "x"),
            check_stable_options(**self._options),
            detector=self._robust,
            pilot_locations=self._pilot_locations,
        )
        return self._last

    def __repr__(self) -> str:
        return (
            f"StablePhaseStream(n={self._values.n}, method={self._options['method']!r}, "
            f"min_size={self._options['min_size']!r})"
        )
