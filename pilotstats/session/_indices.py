"""Performance indices of a session: declarations, baselines and the analysis of one index.

:class:`PerformanceIndex` declares an index (name, unit, type, whether it must meet its
target) and :class:`Baseline` summarises an earlier result to compare against; the helpers
below validate both as :class:`~pilotstats.session.BenchmarkSession` receives them, check
recorded values against the index type, and :func:`analyse_index` computes one index's
interval, required sample size and Welch comparison with its baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pilotstats._typing import Float64Array1D, IndexType, MeanMethod
from pilotstats._validation import check_choice, check_int, check_real
from pilotstats.autocorrelation import (
    ProportionResult,
    SampleSizeResult,
    SubsessionResult,
    proportion_interval,
    required_sample_size,
    required_sample_size_for_comparison,
    subsession_analysis,
    welch_test,
)
from pilotstats.autocorrelation._two_level import TwoLevelResult
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
    PilotStatsError,
    UnreachableTargetError,
)
from pilotstats.session._results import IndexAnalysis

__all__ = [
    "Baseline",
    "IndexRequest",
    "PerformanceIndex",
    "analyse_index",
    "finish_analysis",
    "index_progress",
]

_INDEX_TYPES: tuple[IndexType, ...] = ("ordinary", "ratio", "binary")


class Baseline(NamedTuple):
    """Summary of a baseline result to compare against (Welch).

    For autocorrelated data give subsession statistics: the mean, the subsession variance
    ``s2_q`` and the number of subsessions ``h`` (a
    :class:`~pilotstats.autocorrelation.SubsessionResult` is accepted wherever a
    ``Baseline`` is). For a binary index give the proportion, ``p (1 - p) n / (n - 1)`` and
    the number of outcomes ``n`` (subsessions of one outcome).

    Examples
    --------
    Compare a session's readings with an earlier result (mean, subsession variance,
    number of subsessions):

    >>> import numpy as np
    >>> from pilotstats.session import Baseline, BenchmarkSession, IndexOptions, RoundLimits
    >>> rng = np.random.default_rng(0)
    >>> baseline = Baseline(mean=0.52, subsession_variance=1e-4, n_subsessions=10)
    >>> session = BenchmarkSession(max_work=10_000,
    ...                            limits=RoundLimits(min_rounds=5, min_round_duration=0.0),
    ...                            readings=IndexOptions(baseline=baseline))
    >>> while not session.done:
    ...     work = session.next_work()
    ...     session.record(work, 0.01 + work / 1e4, readings=[0.5 + 0.01 * rng.normal()])
    >>> comparison = session.result().readings[0].comparison
    >>> round(comparison.difference, 3), comparison.p_value < 0.001
    (-0.022, True)
    """

    mean: float
    subsession_variance: float
    n_subsessions: int


class PerformanceIndex(NamedTuple):
    """Declaration of one performance index of a session (Pilot's ``--pi``).

    Attributes
    ----------
    name : str
        Label used in reports (may be empty: the index number is shown instead).
    unit : str
        Unit of the values, for display.
    index_type : {"ordinary", "ratio", "binary"}
        ``"ordinary"``: arithmetic mean (times, sizes); ``"ratio"``: harmonic mean, for
        rates such as throughput (Pilot's type 1); ``"binary"``: 0/1 outcomes, a
        proportion with the Wilson interval (no warm-up removal).
    must_satisfy : bool
        The index must meet its interval target before the session stops; False records
        and reports it only.

    Examples
    --------
    A latency that must reach the target and a hit/miss flag that is only reported:

    >>> from pilotstats.session import (
    ...     BenchmarkSession, IndexOptions, PerformanceIndex, RoundLimits)
    >>> session = BenchmarkSession(
    ...     limits=RoundLimits(min_rounds=3),
    ...     readings=IndexOptions(declarations=[
    ...         PerformanceIndex("latency", "ms"),
    ...         PerformanceIndex("hit", "", "binary", must_satisfy=False)]))
    >>> for value, hit in [(10.1, 1), (9.9, 0), (10.0, 1), (10.05, 1), (9.95, 1)]:
    ...     session.record(None, 1.0, readings=[value, hit])
    >>> print(session.result().readings[1])  # doctest: +ELLIPSIS
    readings[hit]: proportion 0.8 (95 % CI [0.3755, 0.9638] wilson, n = 5) (not required...)
    """

    name: str = ""
    unit: str = ""
    index_type: IndexType = "ordinary"
    must_satisfy: bool = True


def _as_index(value: Any, name: str) -> PerformanceIndex:
    if isinstance(value, str):
        return PerformanceIndex(value)
    if isinstance(value, dict):
        value = PerformanceIndex(**value)
    if isinstance(value, (tuple, list)) and not isinstance(value, PerformanceIndex):
        value = PerformanceIndex(*value)
    if not isinstance(value, PerformanceIndex):
        raise InvalidInputError(
            f"{name} must be a PerformanceIndex(name, unit, index_type, must_satisfy) or a "
            f"name, got {type(value).__name__}"
        )
    index_type = check_choice(value.index_type, f"{name}.index_type", _INDEX_TYPES)
    if not isinstance(value.must_satisfy, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name}.must_satisfy must be True or False, got {value.must_satisfy!r}"
        )
    return PerformanceIndex(
        str(value.name), str(value.unit), index_type, bool(value.must_satisfy)
    )


def _as_indices(value: Any, name: str) -> tuple[PerformanceIndex, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, PerformanceIndex, dict)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(
            f"{name} must be a list of PerformanceIndex (one per index), got "
            f"{type(value).__name__}"
        )
    return tuple(_as_index(item, f"{name}[{i}]") for i, item in enumerate(value))


def _as_baseline(value: Any, name: str) -> Baseline | None:
    if value is None:
        return None
    if isinstance(value, SubsessionResult):
        return Baseline(value.mean, value.subsession_variance, value.n_subsessions)
    if isinstance(value, (tuple, list)) and len(value) == 3:
        mean = check_real(value[0], f"{name} mean")
        variance = check_real(value[1], f"{name} subsession_variance", low=0.0)
        n = check_int(value[2], f"{name} n_subsessions", low=2)
        return Baseline(mean, variance, n)
    raise InvalidInputError(
        f"{name} must be a Baseline(mean, subsession_variance, n_subsessions), a "
        "SubsessionResult or None, "
        f"got {type(value).__name__}"
    )


def _as_baselines(value: Any, name: str) -> tuple[Baseline | None, ...]:
    """One baseline per performance index; a single baseline applies to index 0."""
    if value is None:
        return ()
    single = isinstance(value, (Baseline, SubsessionResult)) or (
        isinstance(value, tuple)
        and len(value) == 3
        and all(np.ndim(v) == 0 for v in value)
        and not any(v is None or isinstance(v, tuple) for v in value)
    )
    if single:
        return (_as_baseline(value, name),)
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(
            f"{name} must be a Baseline, a SubsessionResult, or a list of them (one per "
            f"index, None for none), got {type(value).__name__}"
        )
    return tuple(_as_baseline(item, f"{name}[{i}]") for i, item in enumerate(value))


#: Lag-1 autocorrelation of subsession means above which an interval is flagged when a
#: looser ``autocorrelation_limit`` accepted it (the library's default limit).
_FLAG_AUTOCORRELATION = 0.1


def _autocorrelation_note(
    sub: SubsessionResult, autocorrelation_limit: float, note: str | None
) -> str | None:
    """Add a note when the accepted subsession means are clearly autocorrelated.

    A limit looser than 0.1 (Pilot's ``quick`` preset allows 0.8) accepts subsession means
    whose positive lag-1 autocorrelation makes the interval too narrow (by about
    ``sqrt((1 + r) / (1 - r))``). The note is added when ``r`` exceeds 0.1 and its
    one-sided 95 % noise bound ``1.645 / sqrt(h)``.
    """
    r, h = sub.autocorrelation, sub.n_subsessions
    if (autocorrelation_limit <= _FLAG_AUTOCORRELATION or not math.isfinite(r) or h < 3
            or r <= max(_FLAG_AUTOCORRELATION, 1.645 / math.sqrt(h))):
        return note
    text = (
        f"lag-1 autocorrelation of the subsession means is {r:.2f} (q = "
        f"{sub.subsession_size}, h = {h}), above {_FLAG_AUTOCORRELATION}: the interval may "
        f"be too narrow (autocorrelation_limit = {autocorrelation_limit}; "
        f"{_FLAG_AUTOCORRELATION} would choose a larger subsession size)"
    )
    return text if note is None else f"{note}; {text}"


@dataclass(frozen=True, slots=True)
class IndexRequest:
    """What a session asks of one index: which index it is (kind, position, declaration), its
    target half width (percent of the estimate, and in its unit), minimum number of
    subsessions and baseline, and the session's confidence level, autocorrelation limit and
    significance level."""

    kind: str
    index: int
    spec: PerformanceIndex
    target: tuple[float | None, float | None]
    min_subsessions: int
    baseline: Baseline | None
    confidence_level: float
    autocorrelation_limit: float
    significance_level: float


def analyse_index(
    data: Float64Array1D,
    request: IndexRequest,
    *,
    index_type: IndexType,
    removed: int,
    warmup_kept: int,
    note: str | None,
) -> IndexAnalysis:
    """Interval, required size and baseline comparison of one index.

    Parameters
    ----------
    data : ndarray, shape (n,)
        The index's values of every used round (unit readings: after warm-up removal).
    request : IndexRequest
        The index, its target, minimum number of subsessions, baseline and the settings.
    index_type : {"ordinary", "ratio", "binary"}
        Its type (an undeclared index follows the session's mean method).
    removed : int
        Unit readings removed as warm-up/cool-down.
    warmup_kept : int
        Rounds that kept their warm-up.
    note : str or None
        Why the interval may mislead (warm-up kept), if it may.

    Returns
    -------
    IndexAnalysis
        The analysis, with its progress towards the target.
    """
    n = int(data.shape[0])
    confidence_level = request.confidence_level
    autocorrelation_limit = request.autocorrelation_limit
    analysis: SubsessionResult | ProportionResult | None = None
    required: SampleSizeResult | None = None
    mean_method: MeanMethod = "harmonic" if index_type == "ratio" else "arithmetic"
    variance_and_count: tuple[float, float, int, int] | None = None
    if n >= 3:
        try:
            if index_type == "binary":
                proportion = proportion_interval(data, confidence_level=confidence_level)
                analysis = proportion
                p = proportion.proportion
                variance_and_count = (p, p * (1.0 - p) * n / (n - 1), n, 1)
            else:
                sub = subsession_analysis(
                    data,
                    confidence_level=confidence_level,
                    autocorrelation_limit=autocorrelation_limit,
                    mean_method=mean_method,
                )
                analysis = sub
                note = _autocorrelation_note(sub, autocorrelation_limit, note)
                variance_and_count = (
                    sub.mean,
                    sub.subsession_variance,
                    sub.n_subsessions,
                    sub.subsession_size,
                )
        except NotEnoughDataError:
            analysis = None
        try:
            required = required_sample_size(
                data,
                half_width_percent=request.target[0],
                half_width=request.target[1],
                confidence_level=confidence_level,
                autocorrelation_limit=autocorrelation_limit,
                min_subsessions=request.min_subsessions,
                mean_method=mean_method,
                kind="proportion" if index_type == "binary" else "mean",
            )
        except PilotStatsError:
            required = None
    return finish_analysis(
        data.shape[0], request, index_type=index_type, removed=removed,
        warmup_kept=warmup_kept, analysis=analysis, required=required,
        variance_and_count=variance_and_count, note=note,
    )


def finish_analysis(
    n: int,
    request: IndexRequest,
    *,
    index_type: IndexType,
    removed: int,
    warmup_kept: int,
    analysis: SubsessionResult | ProportionResult | TwoLevelResult | None,
    required: SampleSizeResult | None,
    variance_and_count: tuple[float, float, int, int] | None,
    note: str | None,
    warmup_cut: int | None = None,
    widened: bool = False,
) -> IndexAnalysis:
    """The baseline comparison and progress of an analysed index, as an IndexAnalysis."""
    baseline, spec = request.baseline, request.spec
    comparison = comparison_required = None
    comparison_note = None
    if baseline is not None and variance_and_count is not None and variance_and_count[2] >= 2:
        estimate, variance, count, size = variance_and_count
        try:
            comparison = welch_test(
                estimate,
                variance,
                count,
                baseline.mean,
                baseline.subsession_variance,
                baseline.n_subsessions,
                confidence_level=request.confidence_level,
            )
            comparison_required = required_sample_size_for_comparison(
                baseline.mean,
                baseline.subsession_variance,
                baseline.n_subsessions,
                estimate,
                variance,
                count,
                significance_level=request.significance_level,
                subsession_size=size,
                min_subsessions=request.min_subsessions,
            )
        except UnreachableTargetError as exc:
            comparison_note = str(exc)
        except PilotStatsError as exc:  # e.g. both variances 0: no test is possible
            comparison_note = f"no Welch comparison: {exc}"
    done, fraction = index_progress(
        int(n),
        None if required is None else required.samples,
        required is not None and required.enough,
        baseline is not None,
        None if comparison_required is None else comparison_required.samples,
        comparison_note,
    )
    return IndexAnalysis(
        kind=request.kind,
        index=request.index,
        name=spec.name,
        unit=spec.unit,
        index_type=index_type,
        must_satisfy=spec.must_satisfy,
        n=int(n),
        n_removed=removed,
        warmup_kept_rounds=warmup_kept,
        analysis=analysis,
        required=required,
        comparison=comparison,
        comparison_required=comparison_required,
        comparison_note=comparison_note,
        note=note,
        done=done,
        fraction=fraction,
        warmup_cut=warmup_cut,
        widened=widened,
    )


def index_progress(
    n: int,
    required: int | None,
    enough: bool,
    has_baseline: bool,
    comparison_required: int | None,
    comparison_note: str | None,
) -> tuple[bool, float]:
    """Whether an index is done, and its progress towards its targets.

    Parameters
    ----------
    n : int
        Values of the index.
    required : int or None
        Values its interval target requires (None: undetermined).
    enough : bool
        ``n`` meets ``required``.
    has_baseline : bool
        The index is compared with a baseline.
    comparison_required : int or None
        Values the comparison with the baseline requires (None: undetermined).
    comparison_note : str or None
        Why the comparison cannot be made or reached, if it cannot.

    Returns
    -------
    done : bool
        The interval target is met and so is the comparison (when there is one to reach).
    fraction : float
        1.0 when done, else ``n`` over the larger requirement, at most 0.999.
    """
    comparison_ok = (
        not has_baseline
        or comparison_note is not None
        or (comparison_required is not None and n >= comparison_required)
    )
    progress = 0.0
    if required:
        progress = min(1.0, n / required)
    if has_baseline and comparison_required is not None:
        progress = min(progress, n / comparison_required)
    done = enough and comparison_ok
    return done, 1.0 if done else min(progress, 0.999)
