"""Input checks of smoothing, io, datasets and analysis: time zones, files, sizes and names."""

from __future__ import annotations

import datetime
import os
import stat
from typing import Any, NoReturn

import numpy as np

from pilotstats._typing import Float64Array1D
from pilotstats._validation._core import _describe, check_choice, check_int, check_probability
from pilotstats.exceptions import (
    FormatError,
    InputLimitError,
    InvalidInputError,
    MissingDependencyError,
)

# --- sio: smoothing, io, datasets, analysis ---


def check_tz(tz: Any, name: str) -> str | datetime.tzinfo:
    """Return ``tz`` if pandas accepts it as a time zone, else raise InvalidInputError."""
    import pandas as pd

    if isinstance(tz, (str, datetime.tzinfo)):
        try:
            pd.Timestamp("2000-01-01").tz_localize(tz)
        except Exception as exc:
            raise InvalidInputError(
                f"{name} must be a time-zone name such as 'UTC' or 'America/Los_Angeles', "
                f"got {_describe(tz)} ({exc})"
            ) from exc
        return tz
    raise InvalidInputError(
        f"{name} must be a time-zone name such as 'UTC' or 'America/Los_Angeles', "
        f"got {_describe(tz)}"
    )


def raise_input_limit(label: str, limit: str, size: int, what: str) -> NoReturn:
    """Raise :class:`InputLimitError`: ``what`` exceeds the tunable ``limit``."""
    import pilotstats._config as _config

    value = getattr(_config, limit)
    raise InputLimitError(
        f"{label}: {what} is larger than the limit of {value:,} (pilotstats._config.{limit}); "
        f"if the input is trusted, raise it, e.g. pilotstats._config.{limit} = {2 * value}",
        source=label, limit=limit, size=size)


def check_size(label: str, size: int, limit: str = "MAX_INPUT_BYTES",
               what: str | None = None) -> None:
    """Raise :class:`InputLimitError` when ``size`` exceeds the tunable ``limit`` of
    :mod:`pilotstats._config`."""
    import pilotstats._config as _config

    if size > getattr(_config, limit):
        raise_input_limit(label, limit, size, what or f"the input ({size:,} bytes)")


_FILE_TYPES = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISDIR, "a folder"))


def refuse_irregular_file(label: str, mode: int) -> NoReturn:
    """Raise :class:`InputLimitError` for a FIFO, device, socket or folder."""
    kind = next((name for test, name in _FILE_TYPES if test(mode)), "not a regular file")
    raise InputLimitError(
        f"{label}: is {kind}; pilotstats reads regular files only (a FIFO could block for "
        "ever and a device such as /dev/zero never ends): copy the data into a regular file",
        source=label, limit="regular file")


def check_regular_file(path: str | os.PathLike[str], *, kind: str = "input") -> int:
    """Check that ``path`` (followed if a link) is a regular file within
    ``_config.MAX_INPUT_BYTES``; return its size. Raises :class:`FormatError` when it does not
    exist, :class:`InputLimitError` when it is a FIFO, device, socket or too large."""
    label = os.fspath(path)
    try:
        info = os.stat(label)
    except FileNotFoundError as exc:
        raise FormatError(f"{label}: no such {kind} file", source=label, field=None) from exc
    except OSError as exc:
        raise FormatError(f"{label}: cannot read the file ({exc})", source=label,
                          field=None) from exc
    if not stat.S_ISREG(info.st_mode):
        refuse_irregular_file(label, info.st_mode)
    check_size(label, info.st_size, what=f"the file ({info.st_size:,} bytes)")
    return info.st_size


def check_name(name: str, label: str, what: str = "benchmark name") -> str:
    """Return ``name`` when it is at most ``_config.MAX_NAME_LENGTH`` characters long."""
    import pilotstats._config as _config

    if len(name) > _config.MAX_NAME_LENGTH:
        raise_input_limit(label, "MAX_NAME_LENGTH", len(name),
                          f"a {what} ({len(name):,} characters, starting {name[:40]!r})")
    return name


def check_delimiter(delimiter: Any) -> str:
    """A CSV delimiter must be one character other than a quote, newline or NUL."""
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\"\r\n\0":
        raise InvalidInputError(
            f"delimiter must be a single character such as ',' or '\\t' (not a quote or a "
            f"newline), got {delimiter!r:.40}"
        )
    return delimiter


def check_sorted(seconds: Float64Array1D, name: str = "times") -> None:
    """Raise :class:`InvalidInputError` unless ``seconds`` is non-decreasing."""
    if seconds.size > 1:
        decreasing = np.flatnonzero(np.diff(seconds) < 0)
        if decreasing.size:
            i = int(decreasing[0])
            raise InvalidInputError(
                f"{name} must be sorted in ascending order (duplicates are allowed); "
                f"position {i + 1} is earlier than position {i}. Sort the observations by "
                "time first (analyze_regions sorts each group itself)"
            )


def check_trend_windows(short_window: int, long_window: int) -> tuple[int, int]:
    """CSIT's short and long windows, in runs (short >= 0, long >= 1)."""
    return (check_int(short_window, "short_window", low=0),
            check_int(long_window, "long_window", low=1))


def require_module(module: str, extra: str) -> None:
    """Raise :class:`MissingDependencyError` when ``module`` is not installed."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f"this needs {module}, which is not installed: pip install \"pilotstats[{extra}]\"",
            package=module,
        )


def check_classifier_options(classifier: Any, quantile: Any, significance_level: Any,
                   skip_constant: Any) -> tuple[float, float]:
    """Check the classifier options; return the quantile and the significance level."""
    check_choice(classifier, "classifier", ("minmax", "percentile"))
    q = check_probability(quantile, "quantile")
    level = check_probability(significance_level, "significance_level")
    if not isinstance(skip_constant, (bool, np.bool_)):
        raise InvalidInputError(f"skip_constant must be True or False, got {skip_constant!r}")
    return q, level
