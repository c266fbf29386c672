"""The README glossary against the public API.

The glossary (README section "Glossary", included verbatim by ``docs/glossary.md``) lists every
recurring parameter and result-field name with a *kind*. This module checks, from the live
signatures:

- every parameter name used by two or more public callables is in the glossary;
- every result-field name used by two or more public result classes is in the glossary;
- no glossary name is used with another meaning: each use's annotation belongs to the
  annotations allowed for its kind (``KIND_ANNOTATIONS``, the maintained table);
- ``docs/glossary.md`` includes the README section, so the two cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import pilotstats

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- glossary:start -->", "<!-- glossary:end -->"

# Maintained table: for each kind used in the glossary, the annotations (as written in the
# signatures, without "| None") that express it. A use whose annotation is not listed means a
# name is used with another meaning, or a new kind needs adding here *and* in the README.
KIND_ANNOTATIONS: dict[str, set[str]] = {
    'axes': {'Any'},
    'benchmarks': {'Iterable[str]', 'tuple[BenchmarkAnalysis, ...]', 'tuple[BenchmarkTrend, ...]'},
    'column': {'Sequence[str]', 'str', 'tuple[str, ...]'},
    'command': {'str | Sequence[str]'},
    'side': {'Measurements | AnalysisReport | Sequence[Measurements]',
             'Measurements | Sequence[Measurements]', 'TwoLevelResult'},
    'columns': {'str | Sequence[str]'},
    'conditions': {'Any'},
    'forks': {'Any', 'tuple[ForkSteadyState, ...]'},
    'contributors': {'ContributorClassifier', 'bool', 'bool | CorrelationOptions',
                     'pd.DataFrame', 'str'},
    'count': {'int'},
    'crossovers': {'Crossovers', 'pd.DataFrame'},
    'dates': {'tuple[Any, Any]'},
    'diagnostics': {'float', 'int', 'tuple[str, ...]'},
    'directions': {'Mapping[str, bool] | str'},
    'dof': {'float', 'int', 'npt.NDArray[np.int64]'},
    'edm': {'EdmScale', 'float', 'int'},
    'flag': {'bool', 'bool | None'},
    'options': {'BisectOptions', 'BisectOptions | None', 'RampOptions', 'RegionOptions',
                'RegionOptions | None'},
    'target': {'IntervalTarget'},
    'wps': {'WpsOptions', 'WpsResult'},
    'fraction': {'float'},
    'frame': {'Any', 'pd.DataFrame'},
    'group': {'Any', 'str'},
    'interval': {'FloatArray', 'float', 'float | Float64Array1D', 'tuple[float | None, ...]'},
    'label': {'ChangeLabel', 'ComparisonVerdict', 'str'},
    'labels': {'Mapping[str, str]', 'Sequence[str]', 'tuple[Any, ...]', 'tuple[str, ...]'},
    'mapping': {'Mapping[str, Any]'},
    'matrix': {'Any', 'FloatArray'},
    'measurements': {'Any', 'Measurements', 'Measurements | Sequence[Measurements]'},
    'measures': {'Sequence[Measure]', 'Sequence[str]'},
    'model': {'Any'},
    'names': {
        'Sequence[str]',
        'npt.NDArray[np.str_]',
        'str',
        'str | Iterable[str]',
        'tuple[str, ...]',
    },
    'number': {'FloatArray', 'float'},
    'numbers': {'Float64Array1D', 'FloatArray', 'tuple[float | None, ...]'},
    'operands': {'CalibrationResult', 'SubsessionResult', 'float'},
    'order': {'Int64Array1D', 'str'},
    'p-value': {'FloatArray', 'float', 'tuple[float, ...]'},
    'p0': {'Any'},
    'parallel': {'Any', 'FleetEngine', 'int'},
    'params': {'Any', 'FloatArray'},
    'path': {'str | os.PathLike[str]'},
    'percent': {'float'},
    'period': {'Any', 'float'},
    'plot': {'bool', 'int', 'str'},
    'population': {'Any', 'int', 'int | tuple[int, ...]'},
    'position': {'int'},
    'positions': {'tuple[int, ...]'},
    'probability': {'float'},
    'progress': {'Any', 'bool'},
    'quantity': {'float'},
    'readings': {
        'Any',
        'IndexOptions',
        'ArrayLike1D | float',
        'ArrayLike1D | int',
        'BaselineStatistics',
        'tuple[IndexAnalysis, ...]',
    },
    'records': {'Any', 'pd.DataFrame', 'tuple[PilotBaselineRecord, ...]'},
    'regions': {'Regions', 'pd.DataFrame'},
    'result': {'AnalysisReport', 'Any', 'ComparisonReport', 'TrendReport', 'TwoLevelResult'},
    'rng': {'RandomState'},
    'seconds': {
        'Any',
        'ArrayLike1D',
        'float',
        'float | Float64Array1D',
        'float | FloatArray',
        'float | Sequence[float]',
    },
    'segments': {'tuple[Segment, ...]', 'tuple[TrendGroup, ...]'},
    'selector': {
        'Alternative',
        'ChangeTest',
        'CsitEncoding',
        "Literal['auto', 'exact', 'schweitzer']",
        "Literal['exact', 'seidmann']",
        "Literal['real', 'cpu']",
        'HarnessFormat',
        "Literal['pairwise', 'largest']",
        "Literal['trend', 'detect']",
        'MeanMethod',
        'MultiServerMethod',
        'NanPolicy',
        'ProportionMethod',
        'SampleKind',
        'SampleSizeMethod',
        'StablePhaseMethod',
        'SubsessionBasis',
        'WpsMethod',
        'str',
    },
    'series': {'Any', 'ArrayLike1D'},
    'size': {'float', 'int'},
    'solver': {'float', 'int'},
    'source': {'Any', 'Source', 'str'},
    'station': {'Any', 'FloatArray', 'Sequence[float]'},
    'statistic': {'FloatArray', 'float'},
    'table': {'Any'},
    'text': {'str', 'tuple[str, ...]'},
    'throughput': {'float', 'float | FloatArray'},
    'times': {'Any', 'Float64Array1D', 'Sequence[Any]', 'Sequence[Any] | np.ndarray'},
    'time': {"Literal['wall', 'user', 'user+system']", 'str', 'tuple[str, ...]'},
    'timezone': {'Any'},
    'value': {'Any', 'float', 'str'},
    'values': {
        'Any',
        'ArrayLike1D',
        'Float64Array1D',
        'FloatArray',
        'Iterable[Any]',
        'Mapping[str, Any]',
        'Sequence[Any] | Iterable[Any]',
    },
    'weights': {
        'Any',
        'FloatArray',
        "Literal['irls', 'fixed'] | npt.ArrayLike",
        'WeightsOption',
        'str',
    },
    'window': {'Any'},
    'work': {
        'ArrayLike1D',
        'ArrayLike1D | float',
        'Float64Array1D',
        'float',
        'float | Float64Array1D',
    },
}


def _glossary() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(START, 1)[1].split(END, 1)[0]
    kinds: dict[str, str] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[0]):
            assert name not in kinds, f"{name!r} is listed twice in the glossary"
            kinds[name] = cells[1]
    return kinds


def _public_objects() -> list[tuple[str, Any]]:
    names = ["pilotstats"] + [
        info.name
        for info in pkgutil.walk_packages(pilotstats.__path__, "pilotstats.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
    ]
    seen: set[int] = set()
    objects: list[tuple[str, Any]] = []
    for module_name in names:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if id(obj) not in seen:
                seen.add(id(obj))
                objects.append((name, obj))
    return objects


def _annotation(parameter: inspect.Parameter) -> str:
    text = str(parameter.annotation)
    text = re.sub(r"ForwardRef\('([^']*)'\)", r"\1", text)
    parts = [part.strip() for part in text.split("|")]
    return " | ".join(part for part in parts if part != "None")


def _parameter_uses() -> dict[str, dict[str, set[str]]]:
    """name -> annotation -> owners, over public functions, methods and non-result classes."""
    uses: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))

    def add(owner: str, function: Any, bound: bool) -> None:
        try:
            parameters = list(inspect.signature(function).parameters.values())
        except (TypeError, ValueError):
            return
        for parameter in parameters[1 if bound else 0:]:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            uses[parameter.name][_annotation(parameter)].add(owner)

    for name, obj in _public_objects():
        if inspect.isclass(obj):
            if not issubclass(obj, BaseException) and not dataclasses.is_dataclass(obj):
                add(name, obj, False)
            for member, function in vars(obj).items():
                if not member.startswith("_") and inspect.isfunction(function):
                    add(f"{name}.{member}", function, True)
        elif callable(obj):
            add(name, obj, False)
    return uses


def _field_uses() -> dict[str, dict[str, set[str]]]:
    """name -> annotation -> result classes, over the public frozen result dataclasses."""
    uses: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for name, obj in _public_objects():
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            for field in dataclasses.fields(obj):
                annotation = re.sub(r"ForwardRef\('([^']*)'\)", r"\1", str(field.type))
                parts = [part.strip() for part in annotation.split("|")]
                uses[field.name][" | ".join(p for p in parts if p != "None")].add(name)
    return uses


def _recurring(uses: dict[str, dict[str, set[str]]]) -> dict[str, set[str]]:
    owners = {name: set().union(*by_annotation.values()) for name, by_annotation in uses.items()}
    return {name: found for name, found in owners.items() if len(found) >= 2}


def test_docs_page_includes_the_readme_glossary() -> None:
    page = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert "{include} ../README.md" in page
    assert f":start-after: {START}" in page and f":end-before: {END}" in page
    assert len(_glossary()) > 50


def test_every_kind_in_the_glossary_is_known() -> None:
    unknown = {name: kind for name, kind in _glossary().items() if kind not in KIND_ANNOTATIONS}
    assert not unknown, f"kinds missing from KIND_ANNOTATIONS: {unknown}"


@pytest.mark.parametrize("uses", [_parameter_uses, _field_uses], ids=["parameters", "fields"])
def test_recurring_names_are_in_the_glossary(uses: Any) -> None:
    glossary = _glossary()
    missing = {name: sorted(owners)[:4] for name, owners in _recurring(uses()).items()
               if name not in glossary}
    assert not missing, f"recurring public names missing from the README glossary: {missing}"


def _wrong_uses(uses: dict[str, dict[str, set[str]]], glossary: dict[str, str]) -> list[str]:
    wrong = []
    for name, by_annotation in uses.items():
        kind = glossary.get(name)
        if kind is None:
            continue
        allowed = KIND_ANNOTATIONS.get(kind, set())
        for annotation, owners in by_annotation.items():
            if annotation not in allowed:
                wrong.append(f"{name} ({kind}) is {annotation!r} in {sorted(owners)}")
    return wrong


@pytest.mark.parametrize("uses", [_parameter_uses, _field_uses], ids=["parameters", "fields"])
def test_glossary_names_keep_one_meaning(uses: Any) -> None:
    wrong = _wrong_uses(uses(), _glossary())
    assert not wrong, "glossary names used with another meaning:\n" + "\n".join(wrong)


def test_the_meaning_check_catches_a_second_meaning() -> None:
    # A numeric `unit` (the MDL resolution's old name) or a boolean `half_width` must fail.
    fake = {"unit": {"float": {"mdl_partition"}}, "half_width": {"bool": {"f"}},
            "unit_ok": {"str": {"g"}}}
    assert len(_wrong_uses(fake, _glossary())) == 2
