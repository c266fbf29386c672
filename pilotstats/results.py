"""Result base classes and formatting helpers shared by every pillar.

Results are ``@dataclass(frozen=True, slots=True)`` classes that inherit :class:`Result`,
which supplies a JSON-safe :meth:`Result.to_dict` and a small HTML table for Jupyter.
Each result writes its own one-line ``__str__`` with :func:`format_quantity` and
:func:`format_interval`, so the confidence level always stands next to an interval.

JSON schema of ``to_dict()``
----------------------------
Plain JSON types only (``json.dumps(result.to_dict(), allow_nan=False)`` always works):
numbers are JSON numbers, **except the non-finite floats, which JSON cannot hold**:

* ``+inf`` is the string ``"inf"`` and ``-inf`` the string ``"-inf"`` (lossless: an
  unbounded interval end stays unbounded through a JSON round trip);
* NaN ("undefined", e.g. the throughput of a non-positive slope) is ``null`` (``None``).

:func:`decode_float` (and the ``from_dict`` class methods of the analysis reports, which
use it) turns ``"inf"``/``"-inf"`` back into floats, so ``from_dict(to_dict())``
round-trips infinities exactly.

Plot renderers
--------------
Result ``plot`` methods call :func:`draw`, which looks up the renderer registered for the
result's type (walking its MRO). :mod:`pilotstats.plotting` registers them with
:func:`renders` when it is imported, and ``import pilotstats`` imports it last, so no result
module imports the plotting layer or matplotlib.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, NamedTuple, SupportsIndex, TypeVar, overload

import numpy as np

from pilotstats.exceptions import RendererNotFoundError

__all__ = [
    "ConfidenceInterval",
    "PValueResult",
    "Result",
    "decode_float",
    "decode_float_fields",
    "draw",
    "format_interval",
    "format_number",
    "format_quantity",
    "json_safe",
    "level_text",
    "plot_doc",
    "registered_renderers",
    "renders",
    "time_scale",
    "value_scale",
]

_F = TypeVar("_F", bound=Callable[..., Any])


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``[low, high]`` (shaped like scipy's ``ConfidenceInterval``).

    Examples
    --------
    Results with an estimate return one from ``confidence_interval()``:

    >>> from pilotstats import subsession_analysis
    >>> from pilotstats.datasets import ferrari_response_times
    >>> ci = subsession_analysis(ferrari_response_times()).confidence_interval()
    >>> round(ci.low, 3), round(ci.high, 3)
    (1.611, 1.902)
    >>> low, high = ci  # a named tuple
    >>> low < high
    True
    """

    low: float
    high: float


def json_safe(value: Any) -> Any:
    """Convert ``value`` to plain JSON-safe Python data.

    numpy scalars become Python scalars, arrays and tuples become lists, ``+inf``/``-inf``
    become the strings ``"inf"``/``"-inf"`` and NaN becomes ``None`` (see the module's JSON
    schema), results and dataclasses become dicts (through their ``to_dict``).

    Notes
    -----
    Complexity: O(size of the value).

    Examples
    --------
    >>> import numpy as np
    >>> json_safe({"low": 1.5, "high": float("inf"), "values": np.array([1.0, np.nan])})
    {'low': 1.5, 'high': 'inf', 'values': [1.0, None]}
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if math.isfinite(number):
            return number
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        return None
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return [json_safe(item) for item in value.tolist()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(item) for item in value]
    if isinstance(value, np.datetime64):
        return str(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return json_safe(to_dict())
    return str(value)


def decode_float(value: Any) -> Any:
    """Inverse of :func:`json_safe` for one float: ``"inf"``/``"-inf"`` back to floats.

    Other values are returned unchanged (``None`` stays ``None``: a field that may be
    absent keeps its meaning; NaN was written as ``None``).

    Notes
    -----
    Complexity: O(size of the value).

    Examples
    --------
    >>> decode_float("inf"), decode_float("-inf"), decode_float(2.5), decode_float(None)
    (inf, -inf, 2.5, None)
    """
    if isinstance(value, str) and value in ("inf", "-inf", "Infinity", "-Infinity"):
        return math.inf if not value.startswith("-") else -math.inf
    if isinstance(value, list):
        return [decode_float(item) for item in value]
    return value


def decode_float_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The items of ``data`` that are fields of dataclass ``cls``, float fields decoded.

    Only fields annotated with ``float`` are decoded, so a string field whose value happens
    to be ``"inf"`` (a benchmark name) is left alone.

    Notes
    -----
    Complexity: O(number of fields).

    Examples
    --------
    >>> from pilotstats.changepoints import TrendGroup
    >>> decode_float_fields(TrendGroup, {"mean": "inf", "classification": "inf", "x": 1})
    {'mean': inf, 'classification': 'inf'}
    """
    out: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if field.name not in data:
            continue
        value = data[field.name]
        out[field.name] = decode_float(value) if "float" in str(field.type) else value
    return out


_TIME_SCALES = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def format_number(value: float | None, digits: int = 4) -> str:
    """Format a number with ``digits`` significant digits (``nan``/``inf`` spelled out).

    Notes
    -----
    Complexity: O(1).
    """
    if value is None:
        return "n/a"
    number = float(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return f"{number:.{digits}g}"


def _time_scale(values: list[float]) -> tuple[str, float]:
    finite = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return "s", 1.0
    reference = max(finite)
    for label, factor in _TIME_SCALES:
        if reference >= factor:
            return label, factor
    return "ns", 1e-9


def level_text(confidence_level: float, kind: str = "CI") -> str:
    """``"95 % CI"`` (or another ``kind``, e.g. ``"PI"``) for a level in (0, 1).

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> level_text(0.95), level_text(0.9, "PI")
    ('95 % CI', '90 % PI')
    """
    return f"{format_number(confidence_level * 100, 6)} % {kind}"


def time_scale(values: Any) -> tuple[str, float]:
    """Display unit and factor of an axis of durations in seconds (s, ms, µs or ns).

    The scale is chosen from the median of the finite non-zero magnitudes (None and NaN
    ignored), so that typical values show 1 to 3 digits before the decimal point.

    Returns
    -------
    label : str
        ``"s"``, ``"ms"``, ``"µs"`` or ``"ns"``.
    factor : float
        Seconds per display unit: divide values in seconds by it.

    Notes
    -----
    Complexity: O(n log n) for n values.

    Examples
    --------
    >>> time_scale([0.002, 0.003, 0.5])
    ('ms', 0.001)
    """
    raw = [v for v in np.ravel(np.asarray(values, dtype=object)) if v is not None]
    finite = np.abs(np.asarray(raw, dtype=float))
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if finite.size == 0:
        return "s", 1.0
    reference = float(np.median(finite))
    for label, factor in _TIME_SCALES:
        if reference >= factor:
            return label, factor
    return "ns", 1e-9


def value_scale(values: Any, unit: str | None) -> tuple[str | None, float]:
    """Display unit and divisor of an axis of values measured in ``unit``.

    Seconds (``unit == "s"``) are auto-scaled with :func:`time_scale`; any other unit is
    kept as it is (factor 1).

    Notes
    -----
    Complexity: O(n log n) for n values.

    Examples
    --------
    >>> value_scale([2e-6, 3e-6], "s"), value_scale([2e-6], "B")
    (('µs', 1e-06), ('B', 1.0))
    """
    if unit == "s":
        return time_scale(values)
    return unit, 1.0


def format_quantity(value: float | None, unit: str | None = None, digits: int = 4) -> str:
    """Format a value with its unit; seconds are auto-scaled to s/ms/µs/ns.

    Notes
    -----
    Complexity: O(1).
    """
    if unit == "s" and value is not None:
        label, factor = _time_scale([float(value)])
        return f"{format_number(float(value) / factor, digits)} {label}"
    text = format_number(value, digits)
    return f"{text} {unit}" if unit else text


def format_interval(
    low: float | None,
    high: float | None,
    confidence_level: float,
    unit: str | None = None,
    digits: int = 4,
    *,
    estimate: float | None = None,
) -> str:
    """Format ``95 % CI [low, high] unit`` (seconds auto-scaled consistently).

    Given the ``estimate`` the interval belongs to, seconds are scaled to the unit
    :func:`format_quantity` chooses for the estimate, so that an estimate and its interval
    printed side by side share one unit (``923 ms (95 % CI [840.9, 1005] ms)``, never
    ``923 ms (95 % CI [0.8409, 1.005] s)``).

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> format_interval(0.8409, 1.005, 0.95, "s")
    '95 % CI [0.8409, 1.005] s'
    >>> format_interval(0.8409, 1.005, 0.95, "s", estimate=0.923)
    '95 % CI [840.9, 1005] ms'
    """
    level = f"{format_number(confidence_level * 100, 6)} % CI"
    if unit == "s":
        reference = [v for v in (low, high) if v is not None] if estimate is None else [
            float(estimate)]
        label, factor = _time_scale(reference)
        scaled = [None if v is None else float(v) / factor for v in (low, high)]
        return (
            f"{level} [{format_number(scaled[0], digits)}, "
            f"{format_number(scaled[1], digits)}] {label}"
        )
    suffix = f" {unit}" if unit else ""
    return f"{level} [{format_number(low, digits)}, {format_number(high, digits)}]{suffix}"


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """Base of all result dataclasses: JSON-safe ``to_dict`` and an HTML table.

    Subclasses are frozen, slotted dataclasses whose scalar fields are Python scalars.
    """

    def to_dict(self) -> dict[str, Any]:
        """Return the result as JSON-safe plain data.

        ``+inf``/``-inf`` become ``"inf"``/``"-inf"`` and NaN becomes ``None`` (the module's
        JSON schema); :func:`decode_float` reverses the first.
        """
        data: dict[str, Any] = {
            field.name: json_safe(getattr(self, field.name))
            for field in dataclasses.fields(self)
            if not field.name.startswith("_")
        }
        data.update({key: json_safe(value) for key, value in self._extra_dict().items()})
        return data

    def _extra_dict(self) -> dict[str, Any]:
        """Derived quantities added to :meth:`to_dict` (override in subclasses)."""
        return {}

    def _repr_html_(self) -> str:
        rows = []
        for key, value in self.to_dict().items():
            if isinstance(value, (list, dict)) and len(value) > 12:
                shown = f"{type(value).__name__} of {len(value)} items"
            elif isinstance(value, float):
                shown = format_number(value, 6)
            else:
                shown = str(value)
            rows.append(
                f"<tr><th style='text-align:left'>{html.escape(key)}</th>"
                f"<td style='text-align:left'>{html.escape(shown)}</td></tr>"
            )
        title = html.escape(type(self).__name__)
        summary = html.escape(str(self))
        return (
            f"<div><strong>{title}</strong>: {summary}"
            f"<table>{''.join(rows)}</table></div>"
        )


#: Docstring blocks shared by the plot functions and methods: in a docstring decorated with
#: :func:`plot_doc`, a line holding only ``{name}`` becomes ``PLOT_DOC[name]`` (indented).
PLOT_DOC = {
    "ax": "ax : matplotlib Axes, optional\n"
          "    Where to draw (default: a new figure). ``plt.show`` is never called.",
    "unit": "unit : str, optional\n"
            "    Unit of the values (default: the result's ``unit``); seconds are auto-scaled\n"
            "    to ms/µs/ns.",
    "ylabel": "ylabel : str, optional\n"
              "    Name of the measured quantity on the y axis (default ``\"value\"``).",
    "series": "x : array_like, shape (n,)\n"
              "    The series the result was computed from (results do not keep it).",
    "benchmark": "benchmark : str, optional\n"
                 "    Draw only this benchmark (default: the first, or every benchmark of\n"
                 "    a report that draws them side by side).",
    "returns": "Returns\n-------\nmatplotlib.axes.Axes",
    "no_matplotlib": "MissingDependencyError\n"
                     "    matplotlib is not installed (``pip install \"pilotstats[plot]\"``).",
}

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.MULTILINE)


def plot_doc(function: _F) -> _F:
    """Fill the shared blocks of :data:`PLOT_DOC` into the docstring of ``function``.

    A docstring line holding only ``{ax}`` (or another key) is replaced by that block,
    indented like the line, so the common parameters of the plots are written once.

    Notes
    -----
    Complexity: O(length of the docstring).

    Examples
    --------
    >>> @plot_doc
    ... def figure(ax=None):
    ...     '''A figure.
    ...
    ...     Parameters
    ...     ----------
    ...     {ax}
    ...     '''
    >>> print(figure.__doc__.splitlines()[4].strip())
    ax : matplotlib Axes, optional
    """
    doc = function.__doc__
    if doc:
        function.__doc__ = _PLACEHOLDER.sub(
            lambda match: textwrap.indent(PLOT_DOC[match.group(2)], match.group(1)), doc
        )
    return function


#: Renderers registered with :func:`renders`: dotted type name -> renderer.
_RENDERERS: dict[str, Callable[..., Any]] = {}

#: The registered names resolved to their types (filled lazily by :func:`draw`).
_RESOLVED: dict[type, Callable[..., Any]] = {}


def renders(type_name: str) -> Callable[[_F], _F]:
    """Register the decorated function as the renderer of results of type ``type_name``.

    ``type_name`` is the dotted name under which the type's package exports it (e.g.
    ``"pilotstats.changepoints.StablePhase"``). The type is looked up only when a result is
    drawn, and only in packages already imported, so registering imports nothing. The
    renderer is called as ``renderer(result, *args, **kwargs)`` by :func:`draw`.

    Notes
    -----
    Complexity: O(1).

    Examples
    --------
    >>> @renders("pilotstats.results.ConfidenceInterval")
    ... def _draw_interval(ci, ax=None):
    ...     return f"[{ci.low}, {ci.high}]"
    >>> draw(ConfidenceInterval(1.0, 2.0))
    '[1.0, 2.0]'
    >>> _ = _RENDERERS.pop("pilotstats.results.ConfidenceInterval")
    >>> _RESOLVED.clear()
    """

    def register(function: _F) -> _F:
        _RENDERERS[type_name] = function
        return function

    return register


def registered_renderers() -> dict[str, Callable[..., Any]]:
    """The renderers registered with :func:`renders`, by dotted type name (a copy).

    Notes
    -----
    Complexity: O(number of renderers).

    Examples
    --------
    >>> import pilotstats
    >>> "pilotstats.changepoints.StablePhase" in registered_renderers()
    True
    """
    return dict(_RENDERERS)


def _resolve_renderers() -> None:
    """Map the registered names whose package is imported to their types."""
    for name, renderer in _RENDERERS.items():
        module_name, _, attribute = name.rpartition(".")
        module = sys.modules.get(module_name)
        found = getattr(module, attribute, None) if module is not None else None
        if isinstance(found, type):
            _RESOLVED[found] = renderer


def draw(result: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Draw ``result`` with the renderer registered for its type (or a base type).

    Every ``plot`` method of a result calls it; the arguments after ``result`` are passed
    to the renderer unchanged, and its return value (usually the matplotlib Axes) is
    returned.

    Raises
    ------
    RendererNotFoundError
        No renderer is registered for the type of ``result`` nor its bases
        (:mod:`pilotstats.plotting`, imported by ``import pilotstats``, registers them).

    Notes
    -----
    Complexity: O(number of renderers) plus the renderer's.

    Examples
    --------
    >>> import pilotstats
    >>> draw(object())
    Traceback (most recent call last):
    ...
    pilotstats.exceptions.RendererNotFoundError: no plot renderer is registered for object ...
    """
    _resolve_renderers()
    for cls in type(result).__mro__:
        renderer = _RESOLVED.get(cls)
        if renderer is not None:
            return renderer(result, *args, **kwargs)
    raise RendererNotFoundError(
        f"no plot renderer is registered for {type(result).__name__} (import "
        "pilotstats.plotting, which registers one per result type that has a figure)"
    )


class PValueResult(Result):
    """Base of test results that unpack as ``(statistic, p_value)``.

    The result stays a full object with named fields, and also behaves like the 2-tuple
    ``(statistic, p_value)`` for unpacking, ``len`` and indexing; every other field is
    reached by name only.

    Notes
    -----
    Complexity: O(1) for unpacking, ``len`` and indexing.

    Examples
    --------
    >>> from pilotstats.autocorrelation import welch_test
    >>> r = welch_test(98.105, 0.699**2, 65, 98.394, 0.743**2, 65)
    >>> t, p = r
    >>> (t, p) == (r[0], r[1]) == (r.statistic, r.p_value) and len(r) == 2
    True
    >>> r[-1] == r.p_value and r[:] == (r.statistic, r.p_value)
    True
    """

    _fields: ClassVar[tuple[str, str]] = ("statistic", "p_value")
    statistic: float
    p_value: float

    def _pair(self) -> tuple[float, float]:
        return (self.statistic, self.p_value)

    def __iter__(self) -> Iterator[float]:
        return iter(self._pair())

    def __len__(self) -> int:
        return 2

    @overload
    def __getitem__(self, index: SupportsIndex) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[float, ...]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> float | tuple[float, ...]:
        return self._pair()[index]
