"""The live display of ``pilotstats run``: fraction done, ETA, and one line that fits.

On a terminal the display is one status line redrawn in place (``\\r`` and "erase line")
after every round, never longer than the terminal is wide (at most ``columns - 1``
characters, so that no terminal wraps it): the round, the fraction done and the ETA come
first, then each index's interval against its target, each shortened and finally left
out (``+2 more``) as the width demands. Anywhere else (a file, a pipe, a CI log) every
round prints one plain line with everything (:func:`progress_line`).

Fraction done and ETA (:func:`session_eta`): a session ends at the first of its targets
(every required interval narrow enough: :attr:`BenchmarkSession.progress`, the least
advanced requirement's fraction of the samples it needs), ``max_rounds`` and
``max_duration``. Each of these projects its end linearly from the time elapsed so far,
``elapsed / fraction``; the earliest projected end is the ETA, and its fraction is the
fraction done.
"""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from typing import TextIO

from pilotstats.results import format_number
from pilotstats.session import BenchmarkSession, IndexAnalysis, SessionResult

__all__ = ["LiveDisplay", "SessionEta", "duration_text", "progress_line", "session_eta",
           "status_line"]


@dataclass(frozen=True, slots=True)
class SessionEta:
    """How far a running session is and when it will end.

    Attributes
    ----------
    fraction : float
        Fraction done in [0, 1] (1 once the session is done).
    eta : float or None
        Seconds until the session ends (None while nothing can project it, e.g. before
        the first interval exists without a round or duration limit).
    ended_by : str
        What the projection expects to end the session: ``"targets"``, ``"max_rounds"``
        or ``"max_duration"``.
    """

    fraction: float
    eta: float | None
    ended_by: str


def session_eta(session: BenchmarkSession, elapsed: float) -> SessionEta:
    """Fraction done and ETA of ``session`` after ``elapsed`` seconds of wall time.

    Examples
    --------
    >>> from pilotstats.session import RoundLimits
    >>> limits = RoundLimits(min_rounds=10, max_rounds=40)
    >>> session = BenchmarkSession(max_work=None, limits=limits)
    >>> for _ in range(4):
    ...     session.record(None, 0.5, readings=[1.0])
    >>> eta = session_eta(session, elapsed=2.0)
    >>> eta.fraction, eta.eta, eta.ended_by   # 4 of the 10 rounds needed at least
    (0.4, 3.0, 'targets')
    """
    if session.done:
        return SessionEta(1.0, 0.0, str(session.result().stop_reason or "targets"))
    fractions = {"targets": session.progress.fraction}
    if session.max_rounds is not None:
        fractions["max_rounds"] = session.n_rounds / session.max_rounds
    if session.max_duration is not None:
        fractions["max_duration"] = session.total_duration / session.max_duration
    ended_by = max(fractions, key=lambda key: fractions[key])
    fraction = min(1.0, max(0.0, fractions[ended_by]))
    eta = elapsed * (1.0 / fraction - 1.0) if fraction > 0.0 and elapsed > 0.0 else None
    return SessionEta(fraction, eta, ended_by)


def duration_text(seconds: float | None) -> str:
    """``"?"``, ``"<1 s"``, ``"42 s"``, ``"3 min 5 s"`` or ``"2 h 10 min"``.

    Examples
    --------
    >>> [duration_text(s) for s in (None, 0.2, 42.4, 185, 7_800)]
    ['?', '<1 s', '42 s', '3 min 5 s', '2 h 10 min']
    """
    if seconds is None or not math.isfinite(seconds):
        return "?"
    if seconds < 1.0:
        return "<1 s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def _percent(fraction: float, digits: int = 1) -> str:
    return f"{100.0 * fraction:.{digits}f} %"


def _eta_text(eta: SessionEta) -> str:
    limit = {"max_rounds": " (max rounds)", "max_duration": " (max duration)"}.get(
        eta.ended_by, "")
    return f"{eta.fraction:.0%} done, ETA {duration_text(eta.eta)}{limit}"


def _relative(item: IndexAnalysis) -> tuple[str, str | None] | None:
    """The half width and its target, relative to the estimate when it is not 0."""
    estimate = item.estimate
    if item.analysis is None or estimate is None:
        return None
    half = item.analysis.half_width
    target = None if item.required is None else item.required.target_half_width
    if estimate != 0:
        return (_percent(abs(half / estimate)),
                None if target is None else _percent(abs(target / estimate)))
    return format_number(half), None if target is None else format_number(target)


def _width_text(item: IndexAnalysis) -> str:
    label = item.name or item.label
    widths = _relative(item)
    if widths is None or item.analysis is None:
        return f"{label}: n = {item.n}, CI undetermined"
    unit = f" {item.unit}" if item.unit else ""
    level = _percent(item.analysis.confidence_level, 0)
    goal = "" if widths[1] is None else f" (target ±{widths[1]})"
    mark = "" if item.must_satisfy else ", not required"
    return f"{label} {format_number(item.estimate)}{unit}, {level} CI ±{widths[0]}{goal}{mark}"


def _short_text(item: IndexAnalysis, with_estimate: bool = False) -> str:
    """``latency ±3.1/2.5 %``: the half width over its target (``done`` once met);
    ``latency 5.01 ms ±3.1/2.5 %`` with the estimate."""
    label = item.name or item.label
    widths = _relative(item)
    if widths is None:
        return f"{label} n={item.n}"
    if with_estimate:
        label += f" {format_number(item.estimate)}" + (f" {item.unit}" if item.unit else "")
    half, target = widths
    if item.done:
        return f"{label} ±{half} done"
    if target is None:
        return f"{label} ±{half}"
    if half.endswith(" %") and target.endswith(" %"):
        return f"{label} ±{half[:-2]}/{target}"
    return f"{label} ±{half}/{target}"


def _wps_texts(session: BenchmarkSession, result: SessionResult) -> tuple[str, str] | None:
    """The WPS throughput's long and short text (None without a WPS analysis)."""
    if not session.wps_analysis:
        return None
    fit = result.wps
    if fit is None or not fit.valid:
        return "wps undetermined", "wps ?"
    target = result.wps_target_half_width
    half = _percent(fit.throughput_half_width / fit.throughput)
    goal = "" if target is None else f" (target ±{_percent(target / fit.throughput)})"
    level = _percent(result.confidence_level, 0)
    long = (f"wps v {format_number(fit.throughput)} {result.unit}/s, {level} CI ±{half}"
            f"{goal}")
    short = (f"wps ±{half} done" if result.wps_done else
             f"wps ±{half}" if target is None else
             f"wps ±{half[:-2]}/{_percent(target / fit.throughput)}")
    return long, short


def progress_line(session: BenchmarkSession, result: SessionResult, elapsed: float) -> str:
    """One plain progress line: round, time, fraction done and ETA, every interval.

    Examples
    --------
    Two readings per round (20 rounds of 0.5 s so far), each with a target of ±0.5 %:

    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> from pilotstats.session import IndexOptions, IntervalTarget
    >>> readings = IndexOptions(interval=IntervalTarget(half_width_percent=0.5))
    >>> session = BenchmarkSession(max_work=None, readings=readings)
    >>> for _ in range(20):
    ...     session.record(None, 0.5, readings=list(rng.normal([5.0, 2.0], [0.1, 0.05])))
    >>> for part in progress_line(session, session.result(), 10.0).split(" | "):
    ...     print(part)
    round 20
    10.0 s elapsed
    20% done, ETA 39 s
    readings[0] 5.023, 95 % CI ±0.4 % (target ±0.5 %)
    readings[1] 1.989, 95 % CI ±1.1 % (target ±0.5 %)
    """
    parts = [f"round {session.n_rounds}", f"{elapsed:.1f} s elapsed",
             _eta_text(session_eta(session, elapsed))]
    wps = _wps_texts(session, result)
    if wps is not None:
        parts.append(wps[0])
    parts.extend(_width_text(item) for item in (*result.readings, *result.unit_readings))
    return " | ".join(parts)


def status_line(session: BenchmarkSession, result: SessionResult, elapsed: float,
                width: int) -> str:
    """The terminal's status line, at most ``width - 1`` characters long.

    The round, fraction done and ETA come first; the intervals follow in full, or shorter
    (``latency 5.01 ms ±3.1/2.5 %``), or shortest (``latency ±3.1/2.5 %``), or as many of
    the shortest as fit and ``+N more`` (the least advanced required ones first).

    Examples
    --------
    The session of :func:`progress_line` on terminals 100 and 60 columns wide: the least
    advanced required index (the one the ETA waits for) is kept longest.

    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> from pilotstats.session import IndexOptions, IntervalTarget
    >>> readings = IndexOptions(interval=IntervalTarget(half_width_percent=0.5))
    >>> session = BenchmarkSession(max_work=None, readings=readings)
    >>> for _ in range(20):
    ...     session.record(None, 0.5, readings=list(rng.normal([5.0, 2.0], [0.1, 0.05])))
    >>> print(status_line(session, session.result(), 10.0, 100))
    round 20 · 10.0 s · 20% done · ETA 39 s | readings[0] ±0.4/0.5 % | readings[1] ±1.1/0.5 %
    >>> print(status_line(session, session.result(), 10.0, 60))
    r20 20% ETA 39s | readings[1] ±1.1/0.5% | +1
    >>> print(status_line(session, session.result(), 10.0, 40))
    r20 20% ETA 39s | +2
    """
    limit = max(1, width - 1)
    eta = session_eta(session, elapsed)
    heads = [f"round {session.n_rounds} · {elapsed:.1f} s · {eta.fraction:.0%} done · "
             f"ETA {duration_text(eta.eta)}",
             f"r{session.n_rounds} {eta.fraction:.0%} ETA "
             f"{duration_text(eta.eta).replace(' ', '')}"]
    items = (*result.readings, *result.unit_readings)
    longs = [_width_text(item) for item in items]
    mediums = [_short_text(item, with_estimate=True) for item in items]
    shorts = [_short_text(item) for item in items]
    wps = _wps_texts(session, result)
    ranks = [(not item.must_satisfy, item.fraction) for item in items]
    if wps is not None:
        longs.insert(0, wps[0])
        mediums.insert(0, wps[1])
        shorts.insert(0, wps[1])
        ranks.insert(0, (False, 1.0 if result.wps_done else 0.0))
    # the least advanced required intervals first: the ETA waits for them
    urgent = [shorts[i] for i in sorted(range(len(shorts)), key=lambda i: ranks[i])]
    tight = [text.replace(" %", "%") for text in urgent]  # for the narrowest terminals
    candidates = [[heads[0], *longs], [heads[0], *mediums], [heads[0], *shorts],
                  [heads[1], *tight]]
    for keep in range(len(shorts) - 1, -1, -1):
        more = len(shorts) - keep
        candidates += [[heads[0], *urgent[:keep], f"+{more} more"],
                       [heads[1], *tight[:keep], f"+{more}"]]
    for parts in candidates:
        line = " | ".join(parts)
        if len(line) <= limit:
            return line
    head = heads[-1]
    return head if len(head) <= limit else head[:max(0, limit - 1)] + "…"


def _width(stream: TextIO) -> int:
    """Columns of the terminal ``stream`` writes to (``COLUMNS`` wins, as in ``shutil``)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return shutil.get_terminal_size().columns


class LiveDisplay:
    """The progress of a ``pilotstats run`` session on ``stream``.

    A terminal (``stream.isatty()``) gets one status line redrawn in place after every
    round, as wide as the terminal at that moment (``width`` fixes it); anything else gets
    one plain line per round.

    Parameters
    ----------
    stream : text stream
        Where the display goes (``sys.stderr``).
    width : int, optional
        Columns of the terminal (default: measured before each redraw).

    Examples
    --------
    >>> import io
    >>> from pilotstats.session import RoundLimits
    >>> session = BenchmarkSession(max_work=None, limits=RoundLimits(min_rounds=10))
    >>> session.record(None, 0.5, readings=[1.0])
    >>> log = io.StringIO()
    >>> display = LiveDisplay(log)
    >>> display.show(session, session.result(), 0.5)
    >>> display.close()
    >>> print(log.getvalue().replace(" | ", "\\n"), end="")  # one plain line per round
    round 1
    0.5 s elapsed
    0% done, ETA 8 min 20 s (max rounds)
    readings[0]: n = 1, CI undetermined
    """

    def __init__(self, stream: TextIO, width: int | None = None) -> None:
        self._stream = stream
        self._width = width
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._drawn = False

    def show(self, session: BenchmarkSession, result: SessionResult, elapsed: float) -> None:
        """Draw the state after a round."""
        if self.tty:
            width = self._width if self._width is not None else _width(self._stream)
            line = status_line(session, result, elapsed, width)
            self._stream.write("\r\x1b[2K" + line)
            self._drawn = True
        else:
            self._stream.write(progress_line(session, result, elapsed) + "\n")
        self._stream.flush()

    def close(self) -> None:
        """End the status line (the next output starts on a line of its own)."""
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = False
