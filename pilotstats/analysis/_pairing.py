"""Which baseline benchmark is compared with which new one (``compare(pairs=, match=)``).

By default a baseline benchmark is compared with the new benchmark of the same name. Two
ways pair differently named ones (a hyperfine command whose argument changed,
``sha256sum f100`` against ``sha256sum f130``):

* ``pairs``: explicit ``(old, new)`` pairs (or ``"OLD=NEW"`` texts, or a mapping
  ``{old: new}``); they come first.
* ``match``: a regular expression. The *key* of a name is the name with the text of the
  expression's first match (:func:`re.search`) removed; when the expression has groups,
  only the text of its first group is removed. A name the expression does not match is
  its own key. Benchmarks not paired explicitly are paired when their keys are equal;
  two names of one side with the same key are an error (the expression is too broad).

Names left without a partner are reported as only in the baseline / only in the new
results.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pilotstats._validation import check_pattern
from pilotstats.exceptions import InvalidInputError

__all__ = ["Pairing", "name_key", "pair_benchmarks"]


@dataclass(frozen=True, slots=True)
class Pairing:
    """Paired benchmarks and those left on one side.

    Attributes
    ----------
    pairs : tuple of (str, str)
        ``(baseline name, new name)`` in the baseline's order.
    only_in_base, only_in_new : tuple of str
        Names without a partner, each in its side's order.
    """

    pairs: tuple[tuple[str, str], ...]
    only_in_base: tuple[str, ...]
    only_in_new: tuple[str, ...]


def name_key(name: str, pattern: re.Pattern[str] | None) -> str:
    """The key of a benchmark name under ``match`` (see the module docstring).

    Examples
    --------
    >>> name_key("sha256sum f100", re.compile(r"f\\d+"))
    'sha256sum '
    >>> name_key("bench[n=100]/fast", re.compile(r"\\[n=(\\d+)\\]"))
    'bench[n=]/fast'
    >>> name_key("other", re.compile(r"f\\d+"))
    'other'
    """
    if pattern is None:
        return name
    found = pattern.search(name)
    if found is None:
        return name
    group = 1 if pattern.groups else 0
    start, end = found.span(group)
    if start < 0:  # the group took no part in the match
        return name
    return name[:start] + name[end:]


def _split(text: str, base: Sequence[str], new: Sequence[str]) -> tuple[str, str]:
    """``"OLD=NEW"`` split at the ``=`` that leaves a baseline and a new benchmark name."""
    splits = [(text[:i], text[i + 1:]) for i, char in enumerate(text) if char == "="]
    fitting = [(old, young) for old, young in splits if old in base and young in new]
    if len(fitting) == 1:
        return fitting[0]
    if not splits:
        raise InvalidInputError(f"pairs: {text!r} is not OLD=NEW")
    if fitting:
        raise InvalidInputError(f"pairs: {text!r} splits into several OLD=NEW pairs of "
                                "existing benchmarks; pass (old, new) tuples instead")
    old, young = splits[0]
    raise InvalidInputError(
        f"pairs: {text!r} names no baseline benchmark and new benchmark ({old!r} = "
        f"{young!r}?); baseline benchmarks: {', '.join(base)}; new benchmarks: "
        f"{', '.join(new)}")


def _explicit(pairs: Any, base: Sequence[str], new: Sequence[str]) -> list[tuple[str, str]]:
    if pairs is None:
        return []
    if isinstance(pairs, Mapping):
        entries: list[Any] = list(pairs.items())
    elif isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise InvalidInputError("pairs must be a mapping {old: new} or a sequence of "
                                f"(old, new) pairs or 'OLD=NEW' texts, got {pairs!r}")
    else:
        entries = list(pairs)
    result: list[tuple[str, str]] = []
    for entry in entries:
        if isinstance(entry, str):
            old, young = _split(entry, base, new)
        elif (isinstance(entry, Sequence) and len(entry) == 2
              and all(isinstance(part, str) for part in entry)):
            old, young = entry[0], entry[1]
        else:
            raise InvalidInputError(f"pairs: each entry is (old, new) or 'OLD=NEW', got "
                                    f"{entry!r}")
        if old not in base:
            raise InvalidInputError(f"pairs: {old!r} is not a baseline benchmark "
                                    f"(baseline benchmarks: {', '.join(base)})")
        if young not in new:
            raise InvalidInputError(f"pairs: {young!r} is not a new benchmark "
                                    f"(new benchmarks: {', '.join(new)})")
        result.append((old, young))
    for side, names in (("baseline", [p[0] for p in result]), ("new", [p[1] for p in result])):
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise InvalidInputError(f"pairs: the {side} benchmark(s) {', '.join(twice)} "
                                    "appear in more than one pair")
    return result


def _keys(names: Sequence[str], pattern: re.Pattern[str] | None, side: str) -> dict[str, str]:
    keys: dict[str, str] = {}
    for name in names:
        key = name_key(name, pattern)
        if key in keys:
            raise InvalidInputError(
                f"match: the {side} benchmarks {keys[key]!r} and {name!r} have the same key "
                f"{key!r}; make the expression more specific or pair them with pairs")
        keys[key] = name
    return keys


def pair_benchmarks(base: Sequence[str], new: Sequence[str], *, pairs: Any = None,
                    match: str | re.Pattern[str] | None = None) -> Pairing:
    """Pair the baseline's benchmark names with the new ones.

    Parameters
    ----------
    base, new : sequence of str
        Benchmark names of each side.
    pairs : mapping, or sequence of (str, str) or str, optional
        Explicit pairs (see the module docstring).
    match : str or re.Pattern, optional
        Expression whose match is removed from names to pair them.

    Returns
    -------
    Pairing

    Raises
    ------
    InvalidInputError
        A pair names a benchmark its side does not have, or one twice; ``match`` is not a
        valid expression or gives two names of one side the same key.

    Examples
    --------
    >>> pairing = pair_benchmarks(["sha256sum f100", "md5sum f100"],
    ...                           ["sha256sum f130", "md5sum f130", "new tool"],
    ...                           match=r"f\\d+")
    >>> pairing.pairs
    (('sha256sum f100', 'sha256sum f130'), ('md5sum f100', 'md5sum f130'))
    >>> pairing.only_in_new
    ('new tool',)
    >>> pair_benchmarks(["a", "b"], ["c", "b"], pairs=["a=c"]).pairs
    (('a', 'c'), ('b', 'b'))
    """
    pattern = check_pattern(match, "match")
    chosen = _explicit(pairs, base, new)
    taken_base = {old for old, _ in chosen}
    taken_new = {young for _, young in chosen}
    rest_new = _keys([n for n in new if n not in taken_new], pattern, "new")
    rest_base = _keys([n for n in base if n not in taken_base], pattern, "baseline")
    partner = dict(chosen)
    for key, name in rest_base.items():
        if key in rest_new:
            partner[name] = rest_new[key]
    paired = [(name, partner[name]) for name in base if name in partner]
    used = set(partner.values())
    return Pairing(tuple(paired), tuple(n for n in base if n not in partner),
                   tuple(n for n in new if n not in used))
