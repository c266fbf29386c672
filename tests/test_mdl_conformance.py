"""Conformance of :func:`mdl_partition` with jumpavg 0.4.2 (spec ``specs/mdl.md`` §1, §13).

* ``Check*`` classes: frozen values produced once by jumpavg (recipe and inputs in
  ``tests/reference/mdl/``); CI does not need jumpavg for them.
* A random generator comparing with ``jumpavg.classify`` when jumpavg is importable
  (test extra); it skips with a reason otherwise and installs nothing.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from pilotstats.changepoints import mdl_partition
from pilotstats.exceptions import DataRangeWarning

REFERENCE = json.loads(
    (Path(__file__).parent / "reference" / "mdl" / "jumpavg_reference.json").read_text()
)["cases"]

try:  # test-only peer; never imported by the package
    import jumpavg
except ImportError:  # pragma: no cover - depends on the environment
    jumpavg = None

needs_jumpavg = pytest.mark.skipif(
    jumpavg is None, reason="jumpavg 0.4.2 is not installed (pip install '.[test]')"
)


def population_std(std: float, size: int) -> float:
    """jumpavg's ``stdev`` (ddof 0) from :attr:`TrendGroup.std` (ddof 1, NaN for one
    sample): the reported field changed, the code-length arithmetic did not."""
    return 0.0 if size < 2 else std * math.sqrt((size - 1) / size)


class CheckJumpavgReference:
    """Base: one test per quantity; concrete classes name a case of the JSON file."""

    case: ClassVar[str]
    rtol_stats: ClassVar[float] = 1e-12
    atol_bits: ClassVar[float] = 1e-9

    @pytest.fixture(autouse=True)
    def _setup(self) -> None:
        data = REFERENCE[self.case]
        self.ref = data["expected"]
        # jumpavg's ``unit`` is pilotstats' ``resolution``
        self.res = mdl_partition(data["values"], resolution=data["unit"], sbps=data["sbps"])

    def test_boundaries_and_sizes(self) -> None:
        got = [(g.start, g.end, g.n_samples) for g in self.res.groups]
        assert got == [(g["start"], g["end"], g["size"]) for g in self.ref["groups"]]

    def test_labels(self) -> None:
        got = [g.classification for g in self.res.groups]
        assert got == [g["classification"] for g in self.ref["groups"]]

    def test_resolution_and_max(self) -> None:
        assert self.res.resolution == self.ref["unit"]
        assert self.res.max_value == self.ref["max_value"]

    def test_group_statistics(self) -> None:
        for got, ref in zip(self.res.groups, self.ref["groups"], strict=True):
            assert got.mean == pytest.approx(ref["avg"], rel=self.rtol_stats, abs=1e-300)
            assert population_std(got.std, got.n_samples) == pytest.approx(
                ref["stdev"], rel=self.rtol_stats, abs=1e-300
            )

    def test_bits(self) -> None:
        for got, ref in zip(self.res.groups, self.ref["groups"], strict=True):
            assert abs(got.bits - ref["bits"]) <= self.atol_bits
        assert abs(self.res.total_bits - self.ref["total_bits"]) <= self.atol_bits

    def test_total_bits_bit_identical(self) -> None:
        # Section 6 arithmetic gives the very same float on the scalar path.
        assert self.res.total_bits == self.ref["total_bits"]


class TestReadmeExample(CheckJumpavgReference):
    """jumpavg README: ``classify([2.1, 3.1, 3.2], unit=0.1)``."""

    case = "readme_example"


class TestStepDown(CheckJumpavgReference):
    case = "step_down_default_unit"


class TestLatencyOutlier(CheckJumpavgReference):
    case = "latency_outlier_and_drop"


class TestRunsOfTrials(CheckJumpavgReference):
    case = "runs_of_trials"


class TestLargeValuesTinySpread(CheckJumpavgReference):
    case = "large_values_tiny_spread"


class TestLargeValuesTinySpreadUnit(CheckJumpavgReference):
    case = "large_values_tiny_spread_unit"


class TestWaveSbps8(CheckJumpavgReference):
    case = "deterministic_wave_sbps8"


class TestWaveUnit(CheckJumpavgReference):
    case = "deterministic_wave_unit"


class TestConstant(CheckJumpavgReference):
    case = "constant"


class TestSingleValue(CheckJumpavgReference):
    case = "single_value"


# --------------------------------------------------------------------------- generator


def random_series(rng: np.random.Generator, max_length: int) -> dict[str, Any]:
    """One random conformance case: shape, scale, runs of trials, unit or sbps."""
    if rng.random() < 0.1:  # some long series
        n = int(rng.integers(max_length // 2, max_length + 1))
    else:  # log-uniform lengths keep the peer's O(N²) run time in budget
        n = min(max_length, int(math.exp(rng.uniform(0.0, math.log(max_length + 1)))))
    scale = float(10.0 ** rng.uniform(-3, 8))
    kind = str(rng.choice(["steps", "outliers", "bimodal", "constant", "noise", "trend"]))
    cv = float(10.0 ** rng.uniform(-3.5, -0.7))
    base = rng.normal(1.0, cv, n)
    if kind == "steps":
        for _ in range(int(rng.integers(1, 5))):
            at = int(rng.integers(0, n))
            base[at:] += float(rng.normal(0.0, 6 * cv))
    elif kind == "outliers":
        hits = rng.random(n) < 0.05
        base[hits] *= rng.choice([0.5, 1.5, 3.0], size=int(hits.sum()))
    elif kind == "bimodal":
        base += np.where(rng.random(n) < 0.3, 4 * cv, 0.0)
    elif kind == "constant":
        base[:] = 1.0
    elif kind == "trend":
        base += np.linspace(0.0, float(rng.normal(0, 10 * cv)), n)
    values: list[Any] = list(base * scale)
    if rng.random() < 0.25:  # quantised values (exact ties, equal means)
        values = [float(np.round(v / scale, 2) * scale) for v in values]
    if rng.random() < 0.3:  # runs of trials (1-5 samples each)
        runs: list[Any] = []
        for v in values:
            size = int(rng.integers(1, 6))
            trial = v * (1.0 + rng.normal(0.0, cv / 3.0, size))
            runs.append(float(trial[0]) if size == 1 and rng.random() < 0.5 else list(trial))
        values = runs
    unit = None
    sbps = None
    choice = rng.random()
    if choice < 0.2:
        unit = float(scale * 10.0 ** rng.uniform(-5, -1))
    elif choice < 0.4:
        sbps = float(rng.choice([4.0, 8.0, 10.0, 16.0, 20.0, 9.5]))
    return {"values": values, "unit": unit, "sbps": sbps}


def _compare(case: dict[str, Any], modes: tuple[bool, ...] = (True, False)) -> None:
    values, unit, sbps = case["values"], case["unit"], case["sbps"]
    ref = jumpavg.classify(values, unit=unit, sbps=sbps)
    for pruning in modes:
        with warnings.catch_warnings():
            # mixed-sign series are part of the conformance space (spec §9)
            warnings.simplefilter("ignore", DataRangeWarning)
            res = mdl_partition(values, resolution=unit, sbps=sbps, pruning=pruning)
        _check_against(res, ref)


def _check_against(res: Any, ref: Any) -> None:
    ref_groups = []
    start = 0
    for group in ref:
        ref_groups.append((start, start + len(group), group.stats.size, group.comment))
        start += len(group)
    got = [(g.start, g.end, g.n_samples, g.classification) for g in res.groups]
    assert got == ref_groups
    assert res.resolution == ref.unit and res.max_value == ref.max_value
    assert math.isclose(res.total_bits, ref.bits, rel_tol=1e-9, abs_tol=1e-9)
    for mine, theirs in zip(res.groups, ref, strict=True):
        assert mine.mean == pytest.approx(theirs.stats.avg, rel=1e-12, abs=1e-300)
        assert population_std(mine.std, mine.n_samples) == pytest.approx(
            theirs.stats.stdev, rel=1e-12, abs=1e-300
        )
        assert abs(mine.bits - theirs.bits) <= 1e-9 * max(1.0, abs(theirs.bits))


def _cases(seed: int, count: int, max_length: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    return [random_series(rng, max_length) for _ in range(count)]


@needs_jumpavg
def test_random_conformance_small() -> None:
    """40 short random series, both search modes (fast; also runs with the JIT disabled)."""
    for case in _cases(20261121, 40, 40):
        _compare(case)


@needs_jumpavg
@pytest.mark.slow
def test_random_conformance_300() -> None:
    """>= 300 random series, lengths 1..400, scales 1e-3..1e8, with steps, outliers,
    bimodal, constant and trending shapes, runs of trials, explicit unit and sbps;
    identical boundaries and labels, bits within 1e-9 (spec §13). Both search modes."""
    cases = _cases(4, 320, 400)
    for index, case in enumerate(cases):
        try:
            _compare(case)
        except AssertionError as exc:  # pragma: no cover - diagnostic
            raise AssertionError(f"case {index} differs: {exc}") from exc


def test_generator_covers_the_requested_space() -> None:
    cases = _cases(4, 320, 400)
    lengths = [len(c["values"]) for c in cases]
    assert min(lengths) <= 5 and max(lengths) >= 350
    assert any(c["unit"] is not None for c in cases)
    assert any(c["sbps"] is not None for c in cases)
    assert any(any(not isinstance(v, float) for v in c["values"]) for c in cases)
