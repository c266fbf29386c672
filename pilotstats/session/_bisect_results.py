"""Results of :func:`pilotstats.session.bisect`: one probed commit, and the whole bisection."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pilotstats._protocols import select_items
from pilotstats.results import Result, format_number

__all__ = ["BisectProbe", "BisectResult"]

#: Verdicts of a bisection.
VERDICTS = ("found", "no regression in range", "inconclusive")


def _percent(ratio: float) -> str:
    if not math.isfinite(ratio):
        return "n/a" if math.isnan(ratio) else "+inf %"
    return f"{(ratio - 1.0) * 100:+.1f} %"


@dataclass(frozen=True, slots=True)
class BisectProbe(Result):
    """One commit measured during a bisection.

    Attributes
    ----------
    commit : str
        Full hash.
    subject : str
        First line of its message.
    position : int
        1-based position in the range (``good`` is 0, ``bad`` is ``commits_in_range``).
    role : str
        ``"good"`` / ``"bad"`` for the two references, ``"probe"`` otherwise.
    decision : str
        ``"good"``, ``"bad"``, ``"skipped"`` (did not build or run), ``"inconclusive"``
        (the step's budget ran out) or, for the references, their role.
    n_runs : int
        Runs measured.
    mean : float
        Mean of the metric over its runs (NaN with none).
    ratio, ci_low, ci_high : float
        Ratio of its mean to the good reference's, with the Fieller interval over runs
        (:func:`~pilotstats.autocorrelation.compare_runs`) at ``confidence_level``; NaN
        with fewer than 2 runs on a side.
    confidence_level : float
        Level of the interval.
    log_likelihood_ratio : float
        Final log-likelihood ratio of its sequential test (bad against good; for the bad
        reference, regression against none); NaN for the good reference.
    note : str
        Why it was skipped, or other caveats.

    Examples
    --------
    The items of a :class:`BisectResult`, references first:

    >>> import sys, tempfile
    >>> from pilotstats.session import bisect
    >>> from pilotstats.demo import demo_repository
    >>> folder = tempfile.mkdtemp() + "/repo"
    >>> commits = demo_repository(folder, commits=3, culprit=2, growth=3.0)
    >>> result = bisect(commits[0], commits[-1], [sys.executable, "bench.py"],
    ...                 repo=folder, column=0)
    >>> [(probe.role, probe.decision) for probe in result]
    [('good', 'good'), ('bad', 'regression'), ('probe', 'good')]
    >>> result[1].ratio > 2
    True
    """

    commit: str
    subject: str
    position: int
    role: str
    decision: str
    n_runs: int
    mean: float
    ratio: float
    ci_low: float
    ci_high: float
    confidence_level: float
    log_likelihood_ratio: float
    note: str = ""

    def __str__(self) -> str:
        interval = (f"{_percent(self.ratio)} [{_percent(self.ci_low)}, {_percent(self.ci_high)}]"
                    if math.isfinite(self.ratio) else "no effect estimate")
        text = (f"{self.commit[:12]} ({self.role}, position {self.position}): {self.decision}, "
                f"{self.n_runs} runs, {interval} vs good")
        return f"{text}: {self.note}" if self.note else text


@dataclass(frozen=True, slots=True)
class BisectResult(Result):
    """Outcome of a statistically decided bisection.

    Follows the :class:`pilotstats.ResultCollection` protocol over :attr:`probes` (an item
    is one :class:`BisectProbe`; ``result["1a2b3c"]`` selects one by a commit prefix).

    Attributes
    ----------
    verdict : str
        ``"found"`` (the first bad commit is :attr:`first_bad`), ``"no regression in
        range"`` (``bad`` is not slower than ``good`` by ``min_change_percent``), or
        ``"inconclusive"`` (a budget ran out or skipped commits hide the answer; the
        culprit is one of :attr:`range_left`).
    first_bad : str or None
        First commit of the range that behaves like ``bad``.
    last_good : str or None
        Its parent in the range (the last commit that behaves like ``good``).
    range_left : tuple of str
        Commits still suspected, oldest first (just ``first_bad`` when found; empty when
        there is no regression).
    good, bad : str
        The two reference commits (full hashes).
    commits_in_range : int
        Commits after ``good`` up to and including ``bad``.
    ratio, ci_low, ci_high : float
        ``bad``'s metric over ``good``'s, with its Fieller interval over runs.
    min_change_percent : float
        Smallest change counted as a regression.
    higher_is_better : bool
        Direction of the metric.
    error_probability : float
        Bound on the probability of a wrong answer (split over the sequential tests).
    confidence_level : float
        Level of the reported intervals.
    probes : tuple of BisectProbe
        The references, then every probed commit in the order probed.
    skipped : tuple of str
        Commits that failed to build or run.
    n_runs : int
        Program runs in all.
    duration : float
        Wall-clock seconds spent (this invocation and the resumed ones).
    metric : str
        What was measured (``"wall-clock seconds"`` or the output column).
    note : str
        Why the bisection is inconclusive, and caveats.

    Examples
    --------
    Returned by :func:`~pilotstats.session.bisect`; ``to_markdown()`` is the summary to
    paste into an issue:

    >>> import sys, tempfile
    >>> from pilotstats.session import bisect
    >>> from pilotstats.demo import demo_repository
    >>> folder = tempfile.mkdtemp() + "/repo"
    >>> commits = demo_repository(folder, commits=4, culprit=None)
    >>> result = bisect(commits[0], commits[-1], [sys.executable, "bench.py"],
    ...                 repo=folder, column=0)
    >>> result.verdict, result.first_bad, result.range_left
    ('no regression in range', None, ())
    >>> result.to_markdown().splitlines()[2].startswith("**No regression in range**")
    True
    """

    verdict: str
    first_bad: str | None
    last_good: str | None
    range_left: tuple[str, ...]
    good: str
    bad: str
    commits_in_range: int
    ratio: float
    ci_low: float
    ci_high: float
    min_change_percent: float
    higher_is_better: bool
    error_probability: float
    confidence_level: float
    probes: tuple[BisectProbe, ...]
    skipped: tuple[str, ...]
    n_runs: int
    duration: float
    metric: str
    note: str = ""

    def __iter__(self) -> Iterator[BisectProbe]:
        return iter(self.probes)

    def __len__(self) -> int:
        return len(self.probes)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for probe in self.probes:
                if probe.commit.startswith(key):
                    return probe
            raise KeyError(key)
        return select_items(key, len(self.probes), self.probes.__getitem__, "probe")

    def __str__(self) -> str:
        change = (f"bad vs good {_percent(self.ratio)} "
                  f"({format_number(self.confidence_level * 100, 6)} % CI "
                  f"[{_percent(self.ci_low)}, {_percent(self.ci_high)}])")
        if self.verdict == "found" and self.first_bad is not None:
            head = f"first bad commit {self.first_bad[:12]}"
        elif self.verdict == "no regression in range":
            head = f"no regression in range (>= {format_number(self.min_change_percent)} %)"
        else:
            head = f"inconclusive: {len(self.range_left)} commit(s) left"
        text = (f"{head}; {change}; {len(self.probes) - 2} commit(s) probed of "
                f"{self.commits_in_range}, {self.n_runs} runs")
        return f"{text}: {self.note}" if self.note else text

    def to_frame(self) -> Any:
        """One row per measured commit (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame([p.to_dict() for p in self.probes])

    def to_csv(self) -> str:
        """The probes as CSV text (one row per measured commit)."""
        columns = ["commit", "subject", "position", "role", "decision", "n_runs", "mean", "ratio",
                   "ci_low", "ci_high", "log_likelihood_ratio", "note"]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for probe in self.probes:
            row = probe.to_dict()
            writer.writerow(["" if row[c] is None else row[c] for c in columns])
        return buffer.getvalue()

    def to_markdown(self) -> str:
        """A summary a reviewer can paste into an issue."""
        level = format_number(self.confidence_level * 100, 6)
        lines = ["## pilotstats bisect", ""]
        if self.verdict == "found" and self.first_bad is not None:
            probe = self[self.first_bad]
            lines.append(f"**First bad commit: `{self.first_bad[:12]}`** {probe.subject}")
        elif self.verdict == "no regression in range":
            lines.append(f"**No regression in range**: `{self.bad[:12]}` is not slower than "
                         f"`{self.good[:12]}` by {format_number(self.min_change_percent)} % "
                         "or more.")
        else:
            left = (', '.join(f'`{c[:12]}`' for c in self.range_left)
                    if len(self.range_left) <= 8 else
                    f"`{self.range_left[0][:12]}` .. `{self.range_left[-1][:12]}`")
            lines.append(f"**Inconclusive**: the culprit is one of {len(self.range_left)} "
                         f"commit(s): {left}.")
        lines += ["", f"- good `{self.good[:12]}`, bad `{self.bad[:12]}`: "
                  f"{_percent(self.ratio)} ({level} % CI [{_percent(self.ci_low)}, "
                  f"{_percent(self.ci_high)}]), {self.commits_in_range} commits in range",
                  f"- metric: {self.metric}; threshold {format_number(self.min_change_percent)}"
                  f" %; error probability {format_number(self.error_probability)}",
                  f"- {self.n_runs} runs in {format_number(self.duration, 3)} s"]
        if self.skipped:
            lines.append(f"- skipped (build or run failed): "
                         f"{', '.join(f'`{c[:12]}`' for c in self.skipped)}")
        if self.note:
            lines.append(f"- note: {self.note}")
        lines += ["", f"| commit | position | decision | runs | change vs good | {level} % CI |",
                  "|---|---|---|---|---|---|"]
        for p in self.probes:
            interval = (f"[{_percent(p.ci_low)}, {_percent(p.ci_high)}]"
                        if math.isfinite(p.ci_low) else "n/a")
            lines.append(f"| `{p.commit[:12]}` {p.subject[:60]} | {p.position} | {p.decision} "
                         f"| {p.n_runs} | {_percent(p.ratio)} | {interval} |")
        return "\n".join(lines) + "\n"
