"""Behaviour tables of the MDL partitioning (spec ``specs/mdl.md`` §11), as slow tests.

The spec's tables were measured with jumpavg 0.4.2 on its own random draws; our draws
differ, so each cell is compared within a binomial band, and (when jumpavg is installed)
the detection table is also recomputed with jumpavg on the very same series, which must
give identical counts because the model and the search are the same.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pilotstats.changepoints import mdl_partition

try:  # test-only peer
    import jumpavg
except ImportError:  # pragma: no cover
    jumpavg = None

DELTAS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0)
MS = (1, 3, 10, 30)
#: Spec §11, CV = 1 %, counts out of 10 seeds (jumpavg 0.4.2).
SPEC_DETECTION = {
    1: (0, 0, 0, 0, 3, 5, 10, 10),
    3: (0, 0, 0, 4, 6, 10, 10, 10),
    10: (0, 1, 4, 6, 10, 10, 10, 10),
    30: (0, 1, 6, 9, 10, 10, 10, 10),
}
#: Spec §11 false splits out of 100 change-free series (values 10 + 0.1·e).
SPEC_FALSE = {("gauss", 50): 0, ("gauss", 200): 1, ("t3", 50): 4, ("t3", 200): 33,
              ("lognormal", 50): 7, ("lognormal", 200): 16}  # fmt: skip


def step_series(seed: int, m: int, delta: float, cv: float = 0.01) -> np.ndarray:
    rng = np.random.default_rng([seed, m, int(delta * 10)])
    sd = cv * 10.0
    x = rng.normal(10.0, sd, 100 + m)
    x[100:] -= delta * sd
    return x


def detected(starts_and_labels: list[tuple[int, str]]) -> bool:
    return any(abs(s - 100) <= 2 and lab == "regression" for s, lab in starts_and_labels)


def ours(x: np.ndarray) -> list[tuple[int, str]]:
    return [(g.start, g.classification) for g in mdl_partition(x).groups[1:]]


def theirs(x: np.ndarray) -> list[tuple[int, str]]:
    out, pos = [], 0
    for g in jumpavg.classify([float(v) for v in x]):
        if pos:
            out.append((pos, g.comment))
        pos += len(g)
    return out


def detection_table(seeds: range, func=ours) -> dict[int, list[int]]:
    return {
        m: [sum(detected(func(step_series(s, m, d))) for s in seeds) for d in DELTAS]
        for m in MS
    }


def band(p: float, n: int) -> float:
    return 3.0 * math.sqrt(max(p * (1.0 - p), 0.02) * n) + 1.0


@pytest.mark.slow
def test_detection_table(capsys: pytest.CaptureFixture[str]) -> None:
    table = detection_table(range(60))
    with capsys.disabled():
        print("\nMDL detection of a step of delta sigma after 100 samples (CV 1 %, /60 seeds)")
        print("m \\ delta " + " ".join(f"{d:>5}" for d in DELTAS))
        for m in MS:
            print(f"{m:>9} " + " ".join(f"{c:>5}" for c in table[m]))
    for m in MS:
        for cell, spec in zip(table[m], SPEC_DETECTION[m], strict=True):
            # two-sample comparison of proportions: 60 of our seeds vs the spec's 10
            p = (cell + spec) / 70.0
            sd = math.sqrt(max(p * (1.0 - p), 0.01) * (1.0 / 10.0 + 1.0 / 60.0))
            assert abs(cell / 60.0 - spec / 10.0) <= 3.0 * sd + 0.1, (m, cell, spec)
        assert table[m][-1] == 60  # a 10 sigma step is always found
        assert table[m][0] <= 3  # half a sigma is (almost) never found
    # more following samples -> at least as sensitive (up to noise)
    for d in range(len(DELTAS)):
        assert table[30][d] + 8 >= table[1][d]


@pytest.mark.slow
@pytest.mark.skipif(jumpavg is None, reason="jumpavg 0.4.2 not installed")
def test_detection_counts_identical_to_jumpavg() -> None:
    seeds = range(10)
    assert detection_table(seeds) == detection_table(seeds, theirs)


def noise(kind: str, rng: np.random.Generator, n: int) -> np.ndarray:
    if kind == "gauss":
        e = rng.normal(0.0, 1.0, n)
    elif kind == "t3":
        e = rng.standard_t(3, n) / math.sqrt(3.0)  # unit variance
    else:
        e = rng.lognormal(0.0, 0.5, n) - math.exp(0.125)  # centred
    return 10.0 + 0.1 * e


@pytest.mark.slow
def test_false_split_table(capsys: pytest.CaptureFixture[str]) -> None:
    rows = []
    for (kind, n), spec in SPEC_FALSE.items():
        rng = np.random.default_rng([7, n, len(kind)])
        counts = [len(mdl_partition(noise(kind, rng, n)).groups) for _ in range(100)]
        split = sum(c > 1 for c in counts)
        rows.append((kind, n, split, float(np.mean(counts)), max(counts), spec))
        p = spec / 100.0
        assert abs(split - spec) <= band(p, 100), (kind, n, split, spec)
    with capsys.disabled():
        print("\nMDL false splits on change-free series (100 seeds; spec value in brackets)")
        for kind, n, split, mean, top, spec in rows:
            print(f"{kind:>9} n={n:<4} {split:>3}/100 [{spec}]  mean groups {mean:.2f}, max {top}")
