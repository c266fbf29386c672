"""Reading sources (path, ``.gz`` path, open file, JSON text or parsed object) and field checks.

Every loader goes through :func:`read_json` (or :func:`read_text` for CSV), which returns the
parsed document together with a label naming where it came from, and then pulls fields out with
the ``field_*`` helpers, which raise :class:`~pilotstats.exceptions.FormatError` naming the
label and the field path.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from pilotstats._validation import check_size, raise_input_limit, refuse_irregular_file
from pilotstats.exceptions import FormatError

__all__ = [
    "Source",
    "fail",
    "field",
    "field_float",
    "field_float_list",
    "field_int",
    "field_list",
    "field_mapping",
    "field_str",
    "folder_files",
    "gunzip",
    "read_file",
    "read_json",
    "read_text",
]

#: Anything a loader accepts as input.
Source = str | os.PathLike[str] | bytes | Any

_GZIP_MAGIC = b"\x1f\x8b"


def fail(label: str, path: str | None, problem: str) -> NoReturn:
    """Raise a :class:`FormatError` naming the source ``label`` and the field ``path``."""
    where = f"{label}: field {path!r}: " if path else f"{label}: "
    raise FormatError(where + problem, source=label, field=path)


def read_file(path: str | os.PathLike[str], *, kind: str = "input") -> bytes:
    """The bytes of a regular file, at most ``_config.MAX_INPUT_BYTES`` of them.

    The file is opened without blocking (a FIFO cannot hang the call) and its type checked
    on the open descriptor (a link to ``/dev/zero`` is refused, not read for ever).
    """
    import pilotstats._config as _config

    label = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(label, flags)
    except FileNotFoundError:
        fail(label, None, f"no such {kind} file")
    except OSError as exc:
        fail(label, None, f"cannot read the file ({exc})")
    with os.fdopen(descriptor, "rb", closefd=True) as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            refuse_irregular_file(label, info.st_mode)
        check_size(label, info.st_size, what=f"the file ({info.st_size:,} bytes)")
        limit = _config.MAX_INPUT_BYTES
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            fail(label, None, f"cannot read the file ({exc})")
    check_size(label, len(raw), what="the file (it grew while read)")
    return raw


def gunzip(raw: bytes, label: str) -> bytes:
    """Decompress gzip data, at most ``_config.MAX_DECOMPRESSED_BYTES`` of them (a gzip
    bomb raises :class:`InputLimitError` after that many bytes, not at the end)."""
    import gzip
    import io
    import zlib

    import pilotstats._config as _config

    limit = _config.MAX_DECOMPRESSED_BYTES
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        fail(label, None, f"corrupt gzip data ({exc})")
    if len(data) > limit:
        raise_input_limit(label, "MAX_DECOMPRESSED_BYTES", len(data),
               f"the decompressed gzip data (more than {limit:,} bytes)")
    return data


def _decode(raw: bytes, label: str) -> str:
    if raw[:2] == _GZIP_MAGIC:
        raw = gunzip(raw, label)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        fail(label, None, f"not UTF-8 text ({exc})")


def _looks_like_path(text: str) -> bool:
    stripped = text.lstrip()
    return not (stripped.startswith(("{", "[")) or "\n" in text)


def read_text(source: Source, *, kind: str = "JSON") -> tuple[str, str]:
    """Return ``(text, label)`` for a path, ``.gz`` path, open file, bytes or text.

    A ``str`` is a path unless it starts with ``{``/``[`` or contains a newline, in which case
    it is the content itself. gzip data are recognised by their magic bytes, so a ``.gz`` path
    and gzip bytes both work.

    Every input is bounded before it is read or parsed: a path must name a regular file (no
    FIFO or device, also behind a link) of at most ``_config.MAX_INPUT_BYTES`` bytes, text,
    bytes and open files hold at most as many, and gzip data decompress to at most
    ``_config.MAX_DECOMPRESSED_BYTES`` bytes; beyond, :class:`InputLimitError`.
    """
    import pilotstats._config as _config

    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        path = os.fspath(source)
        if not isinstance(path, str):
            raise FormatError(f"cannot read {kind} from a bytes path {path!r:.80}; pass a str "
                              "or pathlib.Path", source="<object>")
        return _decode(read_file(path, kind=kind), str(path)), str(path)
    if isinstance(source, str):
        check_size("<string>", len(source), what=f"the {kind} text ({len(source):,} characters)")
        return source, "<string>"
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        check_size("<bytes>", len(data), what=f"the {kind} bytes ({len(data):,} bytes)")
        return _decode(data, "<bytes>"), "<bytes>"
    read = getattr(source, "read", None)
    if callable(read):
        label = str(getattr(source, "name", "<file>"))
        try:
            data = read(_config.MAX_INPUT_BYTES + 1)
        except TypeError:  # a reader without a size argument
            data = read()
        if not isinstance(data, (bytes, bytearray, str)):
            fail(label, None, f"read() returned {type(data).__name__}, expected str or bytes")
        check_size(label, len(data), what="the open file (more than "
                                          f"{_config.MAX_INPUT_BYTES:,} bytes)")
        if isinstance(data, (bytes, bytearray)):
            return _decode(bytes(data), label), label
        return data, label
    raise FormatError(
        f"cannot read {kind} from a {type(source).__name__}: pass a path, an open file, "
        f"{kind} text or bytes" + (", or an already-parsed object" if kind == "JSON" else ""),
        source="<object>",
    )


def folder_files(root: str | os.PathLike[str], pattern: str, *, recursive: bool = True
                 ) -> list[Path]:
    """The files matching ``pattern`` below ``root`` (``rglob``; links to folders are not
    followed; ``recursive=False``: in ``root`` only), sorted, at most
    ``_config.MAX_FOLDER_FILES`` of them. Entries that are not regular files (FIFOs, devices,
    sockets, also behind a link) raise :class:`InputLimitError` naming them, instead of
    hanging or reading for ever."""
    import pilotstats._config as _config

    found: list[Path] = []
    walk = Path(root).rglob if recursive else Path(root).glob
    for path in walk(pattern):
        try:
            mode = os.stat(path).st_mode
        except OSError:  # a dangling link: nothing to read
            continue
        if stat.S_ISDIR(mode):
            continue
        if not stat.S_ISREG(mode):
            refuse_irregular_file(str(path), mode)
        found.append(path)
        if len(found) > _config.MAX_FOLDER_FILES:
            raise_input_limit(str(root), "MAX_FOLDER_FILES", len(found),
                   f"the number of {pattern} files in the folder (more than "
                   f"{_config.MAX_FOLDER_FILES:,})")
    return sorted(found)


def read_json(source: Source) -> tuple[Any, str]:
    """Return ``(document, label)``; a ``dict`` or ``list`` is taken as already parsed."""
    if isinstance(source, (Mapping, list)):
        return source, "<object>"
    import json

    text, label = read_text(source, kind="JSON")
    try:
        return json.loads(text), label
    except json.JSONDecodeError as exc:
        fail(label, None, f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})")
    except RecursionError:
        fail(label, None, "JSON nested too deeply to parse (no benchmark format nests this "
                          "far); the file is corrupt or hostile")
    except ValueError as exc:  # e.g. an integer beyond sys.get_int_max_str_digits()
        fail(label, None, f"not usable JSON ({exc})")


def field(obj: Any, key: str, label: str, path: str, *, default: Any = ..., ) -> Any:
    """Return ``obj[key]``; a missing key raises unless ``default`` is given."""
    if not isinstance(obj, Mapping):
        fail(label, path or None, f"expected a JSON object, got {type(obj).__name__}")
    where = f"{path}.{key}" if path else key
    if key not in obj:
        if default is not ...:
            return default
        fail(label, where, "missing")
    return obj[key]


def field_mapping(obj: Any, key: str, label: str, path: str, *, default: Any = ...) -> Any:
    """Return ``obj[key]`` checked to be a JSON object."""
    value = field(obj, key, label, path, default=default)
    if value is default and default is not ...:
        return value
    if not isinstance(value, Mapping):
        fail(label, f"{path}.{key}" if path else key,
             f"expected a JSON object, got {type(value).__name__}")
    return value


def field_list(obj: Any, key: str, label: str, path: str, *, default: Any = ...) -> Any:
    """Return ``obj[key]`` checked to be a JSON array."""
    value = field(obj, key, label, path, default=default)
    if value is default and default is not ...:
        return value
    if not isinstance(value, list):
        fail(label, f"{path}.{key}" if path else key,
             f"expected a JSON array, got {type(value).__name__}")
    return value


def field_str(obj: Any, key: str, label: str, path: str, *, default: Any = ...) -> Any:
    """Return ``obj[key]`` checked to be a string."""
    value = field(obj, key, label, path, default=default)
    if value is default and default is not ...:
        return value
    if not isinstance(value, str):
        fail(label, f"{path}.{key}" if path else key,
             f"expected a string, got {type(value).__name__}")
    return value


def as_number(value: Any, label: str, where: str, *, positive: bool = False,
              nonnegative: bool = False) -> float:
    """Check one JSON number (JMH's ``"NaN"``/``"+INF"`` strings are refused too)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(label, where, f"expected a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        fail(label, where, f"expected a finite number, got an integer of {len(str(value))} "
                           "digits (beyond the float64 range)")
    if not math.isfinite(number):
        fail(label, where, f"expected a finite number, got {value!r}")
    if positive and number <= 0:
        fail(label, where, f"expected a positive number, got {value!r}")
    if nonnegative and number < 0:
        fail(label, where, f"expected a non-negative number, got {value!r}")
    return number


def field_float(obj: Any, key: str, label: str, path: str, *, default: Any = ...,
                positive: bool = False, nonnegative: bool = False) -> Any:
    """Return ``obj[key]`` as a finite float."""
    value = field(obj, key, label, path, default=default)
    if value is default and default is not ...:
        return value
    return as_number(value, label, f"{path}.{key}" if path else key, positive=positive,
                     nonnegative=nonnegative)


def field_int(obj: Any, key: str, label: str, path: str, *, default: Any = ...,
              minimum: int | None = None) -> Any:
    """Return ``obj[key]`` as an int (integral floats such as ``3.0`` are accepted)."""
    value = field(obj, key, label, path, default=default)
    if value is default and default is not ...:
        return value
    where = f"{path}.{key}" if path else key
    number = as_number(value, label, where)
    if number != int(number):
        fail(label, where, f"expected an integer, got {value!r}")
    if minimum is not None and number < minimum:
        fail(label, where, f"expected an integer >= {minimum}, got {value!r}")
    return int(number)


def field_float_list(obj: Any, key: str, label: str, path: str, *, positive: bool = False,
                     nonnegative: bool = False, default: Any = ...) -> Any:
    """Return ``obj[key]`` as a list of finite floats."""
    values = field_list(obj, key, label, path, default=default)
    if values is default and default is not ...:
        return values
    where = f"{path}.{key}" if path else key
    return number_list(values, label, where, positive=positive, nonnegative=nonnegative)


def number_list(values: Sequence[Any], label: str, where: str, *, positive: bool = False,
                nonnegative: bool = False) -> list[float]:
    """Check every element of a JSON array of numbers."""
    if not isinstance(values, list):
        fail(label, where, f"expected a JSON array, got {type(values).__name__}")
    fast = all(type(v) is float or type(v) is int for v in values)  # exact types
    try:
        array = np.asarray(values, dtype=np.float64) if fast else None
    except OverflowError:  # an integer beyond float64: the slow path names it
        array = None
    if array is not None:
        good = np.isfinite(array)
        if positive:
            good &= array > 0
        if nonnegative:
            good &= array >= 0
        if bool(good.all()):
            return array.tolist()  # type: ignore[no-any-return]
    # slow path: find the first offending element and name it
    return [as_number(v, label, f"{where}[{i}]", positive=positive, nonnegative=nonnegative)
            for i, v in enumerate(values)]
