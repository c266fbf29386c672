"""Persistence of a benchmark session: its JSON state format, saving and loading.

A session's state is ``{"version", "options", "rounds"}``: the keyword arguments it was
created with (JSON-safe, baselines as lists) and every recorded round as given to
:meth:`~pilotstats.session.BenchmarkSession.record`. The session is rebuilt by replaying
the rounds, so the state holds no analysis results and no module paths.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pilotstats._validation import check_int
from pilotstats.exceptions import InvalidInputError
from pilotstats.session._indices import _as_baselines
from pilotstats.session._statefiles import read_json, write_file

__all__ = [
    "STATE_VERSION",
    "RawRound",
    "check_state",
    "read_state",
    "session_state",
    "state_baselines",
    "state_options",
    "write_state",
]

#: Version of the JSON state written by :meth:`BenchmarkSession.save`.
STATE_VERSION = 1

#: One recorded round as stored: work, duration, readings row, unit-reading rows.
RawRound = tuple[float | None, float, list[float] | None, list[list[float]] | None]


def state_baselines(value: Any) -> Any:
    """Baselines as JSON (lists) for the saved state."""
    if value is None:
        return None
    baselines = _as_baselines(value, "baseline")
    return [
        None if b is None else [b.mean, b.subsession_variance, b.n_subsessions]
        for b in baselines
    ]


def session_state(
    options: dict[str, Any], raw: list[RawRound], first_round: int
) -> dict[str, Any]:
    """The state of a session with these options and recorded rounds.

    Parameters
    ----------
    options : dict
        The session's JSON-safe keyword arguments.
    raw : list of tuple
        Every recorded round as ``(work, duration, readings, unit_readings)``.
    first_round : int
        Include only the rounds from this one on (0-based).

    Returns
    -------
    dict
        ``{"version", "options", "rounds"}``.
    """
    start = check_int(first_round, "first_round", low=0)
    rounds = [
        {"work": work, "duration": duration, "readings": readings, "unit_readings": units}
        for work, duration, readings, units in raw[start:]
    ]
    return {"version": STATE_VERSION, "options": dict(options), "rounds": rounds}


def check_state(state: Any) -> None:
    """Check that ``state`` is a session state of the supported version.

    Parameters
    ----------
    state : object
        Candidate state.

    Raises
    ------
    InvalidInputError
        ``state`` is not a dict of version :data:`STATE_VERSION`.
    """
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise InvalidInputError(
            f"state must be a dict written by BenchmarkSession.state() (version "
            f"{STATE_VERSION}), got {type(state).__name__}"
            + (f" version {state.get('version')!r}" if isinstance(state, dict) else "")
        )


def state_options(state: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the session a state was saved from.

    Parameters
    ----------
    state : dict
        A state accepted by :func:`check_state`.

    Returns
    -------
    dict
        The options, baselines as tuples again.

    Raises
    ------
    TypeError, AttributeError
        The options are malformed (the caller reports an invalid state).
    """
    options = dict(state.get("options", {}))
    for key in ("baseline_readings", "baseline_unit_readings"):
        if options.get(key) is not None:
            options[key] = [None if b is None else tuple(b) for b in options[key]]
    return options


def write_state(path: str | os.PathLike[str], state: dict[str, Any]) -> None:
    """Write ``state`` as JSON to ``path`` atomically (a crash leaves the old file).

    The JSON goes to a new temporary file beside ``path`` (never through a symbolic link),
    is flushed to disk and renamed over ``path``; a symbolic link at ``path`` is refused.

    Parameters
    ----------
    path : str or path-like
        File to write.
    state : dict
        The session state.

    Raises
    ------
    SessionStateError
        ``path`` is a symbolic link or not a regular file.
    """
    target = os.fspath(path)
    directory, name = os.path.split(target)
    write_file(directory or ".", name, json.dumps(state, allow_nan=False).encode("utf-8"))


def read_state(path: str | os.PathLike[str]) -> Any:
    """The parsed JSON of a file written by :func:`write_state`.

    Parameters
    ----------
    path : str or path-like
        File to read (a regular file; symbolic links are not followed).

    Returns
    -------
    object
        The parsed JSON (checked by the caller).

    Raises
    ------
    SessionStateError
        ``path`` is a link or not a regular file, or does not hold JSON.
    """
    return read_json(os.fspath(path))
