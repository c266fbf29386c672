"""CI-driven benchmark sessions: run rounds until every requested interval is narrow enough.

:class:`BenchmarkSession` is a pure, embeddable controller answering Pilot's question "how long
shall I run this benchmark to get a precise result?". A harness asks :meth:`~BenchmarkSession.
next_work` for a work amount, runs the round, and hands back its duration and optional
per-round readings and per-unit readings with :meth:`~BenchmarkSession.record`;
:attr:`~BenchmarkSession.done` turns True once every requested confidence-interval target
(and baseline comparison) is met. :func:`run_session` drives a Python callable this way; the
command ``pilotstats run`` drives any program.

Analyses (``docs/algorithms/wps.md`` and ``docs/algorithms/subsession.md``):

- **WPS throughput** from whole rounds, ``t = alpha + w / v``
  (:func:`pilotstats.regression.wps`), paced by :class:`pilotstats.session.WorkPlanner`;
  isolated outlier rounds are excluded from the fit and reported;
- **readings** (one value per round and performance index): subsession analysis and
  required sample size;
- **unit readings** (many values per round, e.g. per-operation latencies): warm-up found
  across rounds (the same leading positions recur in every round) and removed from each,
  then an interval whose units are the rounds (two-level, round-to-round variation
  included) and the rounds it still needs; the work amount is paced to deliver the
  missing readings;
- each performance index is *ordinary* (arithmetic mean), *ratio* (harmonic mean, for
  rates) or *binary* (a 0/1 proportion with the Wilson interval), and may be recorded
  without having to meet its target (``must_satisfy=False``);
- optional **baseline comparison** (Welch's test on subsession statistics) with the sample
  size needed to separate the result from the baseline.

Rounds shorter than ``min_round_duration`` (and rounds a coarse timer measured as 0 s) are
*stored but not used*, as in Pilot: no analysis sees them, and the result lists them. With
``max_work`` the rule applies while the planner searches for a long enough work amount;
afterwards rounds of at least that work are used whatever their measured duration
(:meth:`pilotstats.session.WorkPlanner.is_short`), so fast rounds are not censored.
A session's complete state (options and raw rounds) is JSON; :meth:`BenchmarkSession.save`
and :meth:`BenchmarkSession.load` persist and resume it.

The subpackage holds the controller (:class:`BenchmarkSession`), the declarations and
per-index analysis (:class:`PerformanceIndex`, :class:`Baseline`), warm-up removal
(:func:`trim_warmup`), the results (:class:`IndexAnalysis`, :class:`SessionProgress`,
:class:`SessionResult`), the JSON state, :func:`run_session`, and the ``pilotstats run``
command (running a benchmark program each round and parsing its output) in private modules.

:func:`bisect` (``pilotstats bisect``) goes from "it regressed" to the commit that did it:
each bisection step is a sequential test on runs interleaved with both references, in
temporary git worktrees.
"""

from pilotstats.session._bisect import BisectOptions, bisect
from pilotstats.session._bisect_git import BisectError
from pilotstats.session._bisect_results import BisectProbe, BisectResult
from pilotstats.session._controller import BenchmarkSession
from pilotstats.session._indices import Baseline, PerformanceIndex
from pilotstats.session._options import (
    IndexOptions,
    IntervalTarget,
    RampOptions,
    RoundLimits,
    WarmupOptions,
    WpsOptions,
)
from pilotstats.session._planner import WorkPlanner, work_sequence
from pilotstats.session._results import IndexAnalysis, SessionProgress, SessionResult
from pilotstats.session._run import run_session
from pilotstats.session._warmup import trim_warmup

__all__ = [
    "Baseline",
    "BenchmarkSession",
    "BisectError",
    "BisectOptions",
    "BisectProbe",
    "BisectResult",
    "IndexAnalysis",
    "IndexOptions",
    "IntervalTarget",
    "PerformanceIndex",
    "RampOptions",
    "RoundLimits",
    "SessionProgress",
    "SessionResult",
    "WarmupOptions",
    "WorkPlanner",
    "WpsOptions",
    "bisect",
    "run_session",
    "trim_warmup",
    "work_sequence",
]
