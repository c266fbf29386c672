"""Named errors and warnings of pilotstats.

Every error derives from :class:`PilotStatsError` and also from the matching built-in
exception, so ``except ValueError`` keeps working in user code. Every warning derives from
:class:`PilotStatsWarning` (a :class:`UserWarning`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ClusterError",
    "ConvergenceWarning",
    "DataRangeWarning",
    "DatasetDownloadError",
    "DegenerateDesignError",
    "EmptyGroupError",
    "FormatError",
    "FormatWarning",
    "IdentifiabilityWarning",
    "InputLimitError",
    "InvalidInputError",
    "LabelSwitchingWarning",


    "LackOfFitWarning",
    "MissingDependencyError",
    "NotEnoughDataError",
    "NumericalAccuracyWarning",
    "PerformanceWarning",
    "PilotStatsError",
    "PilotStatsWarning",
    "RendererNotFoundError",
    "SessionFinishedError",
    "SessionStateError",
    "ShortRoundWarning",
    "SubsessionSizeNotFoundError",
    "TargetNotExtremeWarning",
    "UnreachableTargetError",
    "WorkloadError",
]


class PilotStatsError(Exception):
    """Base class of every error raised by pilotstats.

    Examples
    --------
    One ``except`` clause catches every pilotstats error:

    >>> from pilotstats import PilotStatsError, subsession_analysis
    >>> try:
    ...     subsession_analysis([1.0, 2.0, float("nan")])
    ... except PilotStatsError as error:
    ...     print(type(error).__name__)
    InvalidInputError
    """


class InvalidInputError(PilotStatsError, ValueError):
    """Input data or a parameter is invalid (NaN/inf, wrong shape or type, out of range).

    Also a :class:`ValueError`; the message names the argument and what it needs.

    Examples
    --------
    >>> from pilotstats import InvalidInputError, subsession_analysis
    >>> try:
    ...     subsession_analysis([1.0, float("nan"), 2.0, 3.0])
    ... except InvalidInputError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    x contains 1 NaN or infinite value(s) (first at flat index 1); ...
    >>> issubclass(InvalidInputError, ValueError)
    True
    """


class NotEnoughDataError(PilotStatsError, ValueError):
    """The data are valid but too few for the requested computation.

    Examples
    --------
    Two samples cannot reveal a subsession size with small lag-1 autocorrelation
    (:class:`SubsessionSizeNotFoundError` is a subclass):

    >>> from pilotstats import NotEnoughDataError, subsession_analysis
    >>> try:
    ...     subsession_analysis([1.0, 2.0])
    ... except NotEnoughDataError as error:
    ...     print(type(error).__name__)
    SubsessionSizeNotFoundError
    >>> issubclass(NotEnoughDataError, ValueError)
    True
    """


class SubsessionSizeNotFoundError(NotEnoughDataError):
    """No subsession size brings the lag-1 autocorrelation within the limit.

    More data allows larger subsessions; alternatively raise ``autocorrelation_limit``
    or pass an explicit ``subsession_size``.
    """


class DegenerateDesignError(InvalidInputError):
    """A regression design does not identify its parameters (e.g. all work amounts equal)."""


class UnreachableTargetError(PilotStatsError, ValueError):
    """No sample size can reach the requested target."""


class PilotStatsWarning(UserWarning):
    """Base class of every warning emitted by pilotstats.

    Examples
    --------
    Silence (or turn into errors) every pilotstats warning with one filter:

    >>> import warnings
    >>> from pilotstats import PilotStatsWarning
    >>> from pilotstats.exceptions import ConvergenceWarning
    >>> issubclass(ConvergenceWarning, PilotStatsWarning)
    True
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("ignore", PilotStatsWarning)
    ...     warnings.warn("fit stopped early", ConvergenceWarning)
    >>> len(caught)
    0
    """


class PerformanceWarning(PilotStatsWarning):
    """A slow code path is in use (e.g. numba is unavailable and kernels run as Python)."""


class ConvergenceWarning(PilotStatsWarning):
    """An iterative procedure stopped before meeting its convergence criterion."""


class ShortRoundWarning(PilotStatsWarning):
    """Benchmark rounds were too short to be timed reliably."""


class IdentifiabilityWarning(PilotStatsWarning):
    """Some model parameters are not determined by the data (rank deficiency, bad conditioning)."""


class LabelSwitchingWarning(IdentifiabilityWarning):
    """Permuting some fitted parameters leaves the fit unchanged (label switching).

    The data determine the parameters' values only up to a relabelling: for example service
    demands fitted to response times and throughputs alone, which do not say which station
    is which (Woodside, WOSP/SIPEW 2010 tutorial, slide 47: fix one of two interchangeable
    parameters). Hold one fixed (``calibrate(..., fixed=...)``) or measure per-station
    quantities (residence times, utilizations). A subclass of
    :class:`IdentifiabilityWarning`.
    """


class LackOfFitWarning(PilotStatsWarning):
    """A straight-line model does not fit: a lack-of-fit test rejected linearity."""


class NumericalAccuracyWarning(PilotStatsWarning):
    """A result may have lost accuracy to floating-point cancellation or rounding."""


class DataRangeWarning(PilotStatsWarning):
    """Data fall outside the range a method was designed or validated for."""


class FormatError(PilotStatsError, ValueError):
    """A benchmark result file is malformed or not in the expected format.

    The message names the file (or ``<object>``/``<string>`` for in-memory input), the
    offending field as a path such as ``benchmarks[2].runs[0].values`` and what was wrong.
    The attributes :attr:`source` and :attr:`field` hold the same information.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None):
        super().__init__(message)
        self.source = source
        self.field = field


class InputLimitError(FormatError):
    """An input is larger than a limit of :mod:`pilotstats._config`, or not a regular file.

    Raised before the input is parsed or decompressed, so that a hostile or corrupt input (a
    gzip bomb, a multi-gigabyte JSON file, a 256 MiB benchmark name, a FIFO or a link to
    ``/dev/zero`` in a results folder) cannot exhaust memory or hang. The message names the
    input, the limit and how to raise it. :attr:`limit` is the name of the tunable in
    :mod:`pilotstats._config` (``MAX_INPUT_BYTES``, ``MAX_DECOMPRESSED_BYTES``,
    ``MAX_NAME_LENGTH``, ``MAX_FOLDER_FILES``), or ``"regular file"`` for a FIFO, device or
    socket, which pilotstats never reads; :attr:`size` is the size found (bytes, characters or
    files) when known.

    Examples
    --------
    >>> from pilotstats import _config
    >>> from pilotstats.io import load_hyperfine
    >>> _config.MAX_INPUT_BYTES = 10
    >>> try:
    ...     load_hyperfine('{"results": []}')
    ... except InputLimitError as error:
    ...     print(error.limit, error.size)
    MAX_INPUT_BYTES 15
    >>> _config.reset()
    """

    def __init__(self, message: str, *, source: str | None = None, limit: str | None = None,
                 size: int | None = None):
        super().__init__(message, source=source)
        self.limit = limit
        self.size = size


class FormatWarning(PilotStatsWarning):
    """A loader skipped or reinterpreted part of a result file (e.g. errored rows)."""
class EmptyGroupError(InvalidInputError, NotEnoughDataError):
    """A group, region or series to analyse has no rows (``docs/algorithms/smoothing.md``)."""


class TargetNotExtremeWarning(PilotStatsWarning):
    """The job of interest does not pass the classifier's test on the target itself.

    Possible only with the ``"percentile"`` classifier when the target ties at its extreme
    (``docs/algorithms/smoothing.md``, *Contributors*).
    """


class MissingDependencyError(PilotStatsError, ImportError):
    """An optional dependency needed by the called feature is not installed.

    The message names the package and the pip command that installs it (for plots:
    ``pip install "pilotstats[plot]"``). The attribute :attr:`package` holds the missing
    package's import name.
    """

    def __init__(self, message: str, *, package: str | None = None):
        super().__init__(message, name=package)
        self.package = package


class SessionFinishedError(PilotStatsError, RuntimeError):
    """A benchmark session was asked to record a round after it had finished.

    Check :attr:`pilotstats.session.BenchmarkSession.done` before running another round;
    to continue with stricter targets, start a new session from the saved state.

    Examples
    --------
    >>> from pilotstats.session import BenchmarkSession, RoundLimits
    >>> session = BenchmarkSession(limits=RoundLimits(min_rounds=1, max_rounds=1))
    >>> session.record(None, 1.0)
    >>> try:
    ...     session.record(None, 1.0)
    ... except SessionFinishedError as error:
    ...     print(str(error)[:45])
    the session is finished (stop reason: targets
    """


class SessionStateError(FormatError):
    """The saved state of a ``pilotstats run`` session cannot be used as it is.

    Raised when ``session.json`` does not validate against its schema, a line of
    ``rounds.jsonl`` other than the last is not a complete round (a file changed after it
    was written), another run holds the session's lock, or a symbolic link was planted where
    the session writes. The message names the file, the line or field and what to do;
    nothing is appended or run. ``pilotstats run`` exits with status 2 on it.

    Examples
    --------
    >>> import os, tempfile
    >>> from pilotstats.session._statefiles import read_rounds
    >>> folder = tempfile.mkdtemp()
    >>> line = '{"work": null, "duration": 1.0, "readings": [2.0], "unit_readings": null}\\n'
    >>> with open(os.path.join(folder, "rounds.jsonl"), "w") as handle:
    ...     _ = handle.write(line + "garbage\\n" + line)
    >>> try:
    ...     read_rounds(folder)
    ... except SessionStateError as error:
    ...     print(str(error).split(": ", 1)[1][:45])
    line 2 of 3 complete lines is not a valid rou
    """


class WorkloadError(PilotStatsError, RuntimeError):
    """The benchmark workload failed during a session; nothing measured is lost.

    Raised from the original exception (``__cause__``). :attr:`session` is the session with
    every round recorded before the failure (save it, inspect it, or continue it with
    ``run_session(workload, session=error.session)``), :attr:`result` its current estimates
    and :attr:`round_index` the 0-based number of the failed round.

    Examples
    --------
    >>> from pilotstats.session import RoundLimits, run_session
    >>> def workload(work):
    ...     if workload.calls == 3:
    ...         raise OSError("disk full")
    ...     workload.calls += 1
    ...     return 0.5
    >>> workload.calls = 0
    >>> try:
    ...     run_session(workload, limits=RoundLimits(min_rounds=5))
    ... except WorkloadError as error:
    ...     print(error.round_index, error.session.n_rounds, type(error.__cause__).__name__)
    3 3 OSError
    """

    def __init__(
        self,
        message: str,
        *,
        session: Any = None,
        result: Any = None,
        round_index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.session = session
        self.result = result
        self.round_index = round_index


class ClusterError(PilotStatsError, RuntimeError):
    """A Dask task of a batch analysis failed after its retries (a worker lost again and
    again, the scheduler gone).

    :func:`~pilotstats.analysis.detect_many` and :func:`~pilotstats.analysis.trend_many`
    record it in the ``error`` column of the series of that task (the other series keep
    their results); for a Dask DataFrame input, whose partitions cannot be told apart, it
    is raised. ``pilotstats._config.DASK_RETRIES`` sets the number of retries.
    """


class DatasetDownloadError(PilotStatsError, OSError):
    """A data set of :mod:`pilotstats.datasets` could not be downloaded or verified.

    Raised when the machine is offline, the server refuses the file or the file's SHA-256
    does not match the registry. The message names the file, the URL tried and the cache
    folder into which a manually downloaded copy can be placed. The attributes :attr:`url`
    and :attr:`path` hold the same information.
    """

    def __init__(self, message: str, *, url: str | None = None, path: str | None = None):
        super().__init__(message)
        self.url = url
        self.path = path


class RendererNotFoundError(PilotStatsError, TypeError):
    """No plot renderer is registered for the type of the result given to ``plot``.

    :mod:`pilotstats.plotting` registers one renderer per result type when it is imported
    (``import pilotstats`` imports it); a result type without a figure, or a result drawn
    before :mod:`pilotstats.plotting` was imported, raises this error.
    """
