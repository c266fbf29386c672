"""``compare(pairs=, match=)`` and ``pilotstats compare --pair OLD=NEW --match REGEX``:
differently named benchmarks compared with each other."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pilotstats.analysis import ComparisonReport, compare
from pilotstats.analysis._pairing import name_key, pair_benchmarks
from pilotstats.exceptions import InvalidInputError
from pilotstats.io import Measurements
from tests.test_cli import run


class TestPairing:
    def test_default_is_same_name(self) -> None:
        pairing = pair_benchmarks(["a", "b", "c"], ["c", "a", "d"])
        assert pairing.pairs == (("a", "a"), ("c", "c"))
        assert pairing.only_in_base == ("b",) and pairing.only_in_new == ("d",)

    def test_match_removes_the_match_or_its_first_group(self) -> None:
        assert name_key("sha256sum f100", re.compile(r"f\d+")) == "sha256sum "
        assert name_key("sort n=100 fast", re.compile(r"n=(\d+)")) == "sort n= fast"
        assert name_key("sort fast", re.compile(r"n=(\d+)")) == "sort fast"  # no match
        assert name_key("x1y2", re.compile(r"\d")) == "xy2"  # the first match only
        assert name_key("ab", re.compile(r"a(z)?")) == "ab"  # the group did not take part
        pairing = pair_benchmarks(["sha256sum f100", "md5sum f100", "cat f100"],
                                  ["md5sum f130", "sha256sum f130", "wc f130"],
                                  match=r"f\d+")
        assert pairing.pairs == (("sha256sum f100", "sha256sum f130"),
                                 ("md5sum f100", "md5sum f130"))
        assert pairing.only_in_base == ("cat f100",) and pairing.only_in_new == ("wc f130",)

    def test_explicit_pairs_come_first(self) -> None:
        pairing = pair_benchmarks(["a f1", "b f1"], ["a f2", "b f2", "a f3"],
                                  pairs=[("a f1", "a f3")], match=r"f\d")
        assert pairing.pairs == (("a f1", "a f3"), ("b f1", "b f2"))
        assert pairing.only_in_new == ("a f2",)
        assert pair_benchmarks(["x"], ["y"], pairs={"x": "y"}).pairs == (("x", "y"),)

    def test_old_new_text_splits_at_the_fitting_equals_sign(self) -> None:
        base, new = ["run --n=1", "other"], ["run --n=2", "other"]
        pairing = pair_benchmarks(base, new, pairs=["run --n=1=run --n=2"])
        assert pairing.pairs == (("run --n=1", "run --n=2"), ("other", "other"))

    @pytest.mark.parametrize(("options", "message"), [
        ({"pairs": ["a=nope"]}, "names no baseline benchmark and new benchmark"),
        ({"pairs": ["no separator"]}, "is not OLD=NEW"),
        ({"pairs": [("a", "nope")]}, "'nope' is not a new benchmark"),
        ({"pairs": [("nope", "c")]}, "'nope' is not a baseline benchmark"),
        ({"pairs": [("a", "c"), ("b", "c")]}, "appear in more than one pair"),
        ({"pairs": "a=c"}, "pairs must be a mapping"),
        ({"pairs": [("a", 1)]}, "each entry is (old, new)"),
        ({"match": "("}, "not a valid regular expression"),
        ({"match": 3}, "match must be a regular expression"),
        ({"match": r"[ab]"}, "have the same key ''"),
    ])
    def test_bad_pairs_are_named_errors(self, options: dict[str, object], message: str
                                        ) -> None:
        with pytest.raises(InvalidInputError, match=re.escape(message)):
            pair_benchmarks(["a", "b"], ["c", "d"], **options)  # type: ignore[arg-type]


def _side(levels: dict[str, float], seed: int, n_files: int = 4) -> list[Measurements]:
    """``n_files`` result files, each one run of 30 samples per benchmark."""
    rng = np.random.default_rng(seed)
    files = []
    for _ in range(n_files):
        values, names = [], []
        for name, level in levels.items():
            values.append(rng.normal(rng.normal(level, 0.005), 0.01, 30))
            names += [name] * 30
        files.append(Measurements(np.concatenate(values), benchmark=names))
    return files


def test_compare_pairs_differently_named_benchmarks() -> None:
    base = _side({"sha256sum f100": 1.0, "md5sum f100": 0.5, "gone": 0.3}, seed=1)
    new = _side({"sha256sum f130": 1.1, "md5sum f130": 0.5, "added": 0.2}, seed=2)
    plain = compare(base, new)
    assert len(plain) == 0 and set(plain.only_in_base) == {"sha256sum f100", "md5sum f100",
                                                          "gone"}
    report = compare(base, new, match=r"f\d+")
    assert [c.label for c in report] == ["sha256sum f100 -> sha256sum f130",
                                         "md5sum f100 -> md5sum f130"]
    assert report["sha256sum f100"].verdict == "regression"  # 10 % slower
    assert report["sha256sum f100"].new_name == "sha256sum f130"
    assert report["md5sum f100"].verdict == "no significant change"
    assert report.only_in_base == ("gone",) and report.only_in_new == ("added",)
    assert "sha256sum f100 -> sha256sum f130" in str(report)
    again = ComparisonReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.to_dict() == report.to_dict() and again[0].new_name == "sha256sum f130"
    # the same with explicit pairs; a same-name comparison has no new_name
    report = compare(base, new, pairs={"sha256sum f100": "sha256sum f130",
                                       "gone": "added"})
    assert [c.label for c in report] == ["sha256sum f100 -> sha256sum f130", "gone -> added"]
    assert report.only_in_base == ("md5sum f100",)
    same = compare(base, base)
    assert all(c.new_name is None and c.label == c.name for c in same)


def _hyperfine(path: Path, commands: dict[str, float], seed: int) -> str:
    rng = np.random.default_rng(seed)
    results = [{"command": name, "times": (level + rng.normal(0, 0.002, 20)).tolist()}
               for name, level in commands.items()]
    path.write_text(json.dumps({"results": results}))
    return str(path)


def test_cli_pair_and_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The newcomer's case: hyperfine's ``sha256sum f100`` against ``sha256sum f130``."""
    base = [_hyperfine(tmp_path / f"base{i}.json", {"sha256sum f100": 0.100, "wc f100": 0.05},
                       seed=i) for i in range(3)]
    new = [_hyperfine(tmp_path / f"new{i}.json", {"sha256sum f130": 0.130, "cat f130": 0.05},
                      seed=10 + i) for i in range(3)]
    status, out, _ = run(["compare", *base, "--", *new], capsys)
    assert status == 2 and "only in the baseline: sha256sum f100, wc f100" in out
    status, out, _ = run(["compare", *base, "--", *new, "--match", r"f\d+"], capsys)
    assert status == 1, out  # 30 % slower: a regression
    assert "sha256sum f100 -> sha256sum f130" in out and "regression" in out
    assert "only in the baseline: wc f100" in out and "only in the new results: cat f130" in out
    status, out, _ = run(["compare", *base, "--", *new, "--pair",
                          "sha256sum f100=sha256sum f130", "--pair", "wc f100=cat f130",
                          "--json"], capsys)
    data = json.loads(out)
    assert status == 1 and [c["new_name"] for c in data["comparisons"]] == [
        "sha256sum f130", "cat f130"]
    assert data["only_in_base"] == [] and data["only_in_new"] == []
    status, _, err = run(["compare", *base, "--", *new, "--pair", "nope=cat f130"], capsys)
    assert status == 2 and "names no baseline benchmark" in err
    status, _, err = run(["compare", *base, "--", *new, "--match", "("], capsys)
    assert status == 2 and "not a valid regular expression" in err
