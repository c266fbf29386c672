"""Batch analyses of many series: detect_many, trend_many, write_parquet, load_asv_history.

Every row is checked against the live single-series functions (never stored numbers), so
the identity holds whatever algorithm detect_changes or mdl_partition implement.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pilotstats.analysis import detect_many, trend_many, write_parquet
from pilotstats.analysis._many import (
    DETECT_COLUMNS,
    TREND_COLUMNS,
    InvalidSeries,
    _frame_tasks,
    csit_changes,
)
from pilotstats.changepoints import detect_changes, mdl_partition, trend_compliance
from pilotstats.exceptions import FormatError, InvalidInputError
from pilotstats.io import load_asv_history

HARNESSES = Path(__file__).parent / "data" / "harnesses"


def _table(n_series: int = 12, n: int = 160, seed: int = 3) -> pd.DataFrame:
    """Long table: keys (suite, test), shuffled rows, some series with a step."""
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(n_series):
        x = rng.normal(10.0, 0.2, n)
        if i % 3 == 1:
            x[n // 2:] -= 1.0  # a drop: a regression when higher is better
        elif i % 3 == 2:
            x[n // 3:] += 0.8
        frames.append(pd.DataFrame({"suite": f"s{i % 2}", "test": f"t{i:02d}",
                                    "run": np.arange(n), "mpps": x}))
    table = pd.concat(frames, ignore_index=True)
    return table.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _series(table: pd.DataFrame) -> dict[str, np.ndarray]:
    out = {}
    for (suite, test), group in table.groupby(["suite", "test"]):
        out[f"{suite}/{test}"] = group.sort_values("run")["mpps"].to_numpy()
    return out


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _assert_frames_identical(left: pd.DataFrame, right: pd.DataFrame) -> None:
    assert list(left.columns) == list(right.columns)
    assert len(left) == len(right)
    for column in left.columns:
        for a, b in zip(left[column].tolist(), right[column].tolist(), strict=True):
            a = None if a is pd.NA else a
            b = None if b is pd.NA else b
            assert _same(a, b), (column, a, b)


class TestDetectMany:
    def test_rows_match_a_loop_over_detect_changes(self) -> None:
        table = _table()
        before = table.copy()
        out = detect_many(table, by=["suite", "test"], order="run", value="mpps", workers=2,
                          min_size=20)
        pd.testing.assert_frame_equal(table, before)  # input not modified
        series = _series(table)
        assert out["series"].tolist() == sorted(series)
        assert list(out.columns) == list(DETECT_COLUMNS)
        for row in out.itertuples(index=False):
            single = detect_changes(series[row.series], min_size=20)
            assert row.locations == single.locations
            assert isinstance(row.locations, tuple)
            assert all(type(c) is int for c in row.locations)
            assert row.p_values == single.p_values
            assert row.n == single.n and row.n_changes == len(single.locations)
            means = tuple(s.mean for s in single.segments)
            assert row.segment_means == means
            assert row.last_trend == means[-1]
            assert row.error is None
        # the planted drops are found and labelled regressions (higher is better)
        drops = out[out["series"].str.endswith(("t01", "t04", "t07", "t10"))]
        assert drops["new_regression"].all()
        rises = out[out["series"].str.endswith(("t02", "t05", "t08", "t11"))]
        assert (rises["last_classification"] == "progression").all()

    def test_threads_identical_to_serial(self) -> None:
        table = _table(n_series=9)
        serial = detect_many(table, by=["suite", "test"], order="run", value="mpps",
                             workers=1, min_size=20)
        threaded = detect_many(table, by=["suite", "test"], order="run", value="mpps",
                               workers=3, min_size=20)
        _assert_frames_identical(serial, threaded)

    def test_direction_flips_labels(self) -> None:
        table = _table(n_series=3)
        up = detect_many(table, by="test", order="run", value="mpps", min_size=20)
        down = detect_many(table, by="test", order="run", value="mpps", min_size=20,
                           higher_is_better=False)
        assert up["regressions"].tolist() == down["progressions"].tolist()
        assert up.loc[1, "last_classification"] == "regression"
        assert down.loc[1, "last_classification"] == "progression"

    def test_failing_series_does_not_abort(self) -> None:
        series = {"ok": np.r_[np.zeros(50), np.ones(50)] + np.tile([0.0, 0.01], 50),
                  "nan": np.r_[np.ones(10), np.nan, np.ones(10)],
                  "empty": np.zeros(0)}
        out = detect_many(series, workers=2, min_size=10)
        assert out["series"].tolist() == ["ok", "nan", "empty"]
        assert out.loc[0, "error"] is None and out.loc[0, "locations"] == (50,)
        assert out.loc[1, "error"].startswith("InvalidInputError")
        assert out.loc[2, "error"].startswith("NotEnoughDataError")
        assert out.loc[1, "locations"] is None and out.loc[1, "n"] == 21
        assert pd.isna(out.loc[1, "last_trend"])

    def test_one_text_cell_fails_its_series_only(self) -> None:
        """One string cell in the value column must not abort a 1,000-series batch;
        numeric strings are not numbers either."""
        rng = np.random.default_rng(2)
        table = pd.DataFrame({"k": np.repeat([f"s{i:04d}" for i in range(1000)], 20),
                              "o": np.tile(np.arange(20), 1000),
                              "v": rng.normal(10.0, 1.0, 20_000)})
        serial = trend_many(table, by="k", order="o", value="v", workers=1)
        table["v"] = table["v"].astype(object)
        table.loc[17, "v"] = "oops"
        table.loc[45, "v"] = "10.5"  # a numeric string: no silent coercion
        out = trend_many(table, by="k", order="o", value="v", workers=2)
        assert len(out) == 1000
        assert out.loc[0, "error"].startswith("InvalidInputError") and "'oops'" in (
            out.loc[0, "error"])
        assert "'10.5'" in out.loc[2, "error"]
        assert out["error"].isna().sum() == 998
        kept = [i for i in range(1000) if i not in (0, 2)]
        _assert_frames_identical(out.iloc[kept].reset_index(drop=True),
                                 serial.iloc[kept].reset_index(drop=True))

    def test_missing_order_fails_its_series_and_none_key_is_not_nan(self) -> None:
        table = pd.DataFrame({"k": ["a"] * 30 + [None] * 30 + ["nan"] * 30,
                              "o": np.r_[np.arange(30.0), np.arange(30.0), np.arange(30.0)],
                              "v": np.r_[np.ones(30), 2 * np.ones(30), 3 * np.ones(30)]})
        out = trend_many(table, by="k", order="o", value="v")
        assert out["series"].tolist() == ["a", "nan", "<NA>"]
        assert out["error"].isna().all() and out["group_means"].tolist() == [
            (1.0,), (3.0,), (2.0,)]
        table.loc[3, "o"] = np.nan
        out = trend_many(table, by="k", order="o", value="v")
        assert "order column 'o' has a missing value (row 3)" in out.loc[0, "error"]
        assert out.loc[1:, "error"].isna().all()

    def test_row_order_does_not_matter(self) -> None:
        table = _table(n_series=4)
        shuffled = table.sample(frac=1.0, random_state=99)
        a = detect_many(table, by=["suite", "test"], order="run", value="mpps", min_size=20)
        b = detect_many(shuffled, by=["suite", "test"], order="run", value="mpps",
                        min_size=20)
        _assert_frames_identical(a, b)

    def test_arrow_table_and_dict_of_columns(self) -> None:
        pa = pytest.importorskip("pyarrow")
        table = _table(n_series=3)
        expected = detect_many(table, by="test", order="run", value="mpps", min_size=20)
        arrow = detect_many(pa.Table.from_pandas(table), by="test", order="run",
                            value="mpps", min_size=20)
        columns = detect_many({c: table[c].to_numpy() for c in table.columns}, by="test",
                              order="run", value="mpps", min_size=20)
        _assert_frames_identical(expected, arrow)
        _assert_frames_identical(expected, columns)

    def test_csv_and_parquet_files(self, tmp_path: Path) -> None:
        pytest.importorskip("pyarrow")
        table = _table(n_series=3)
        table.to_csv(tmp_path / "t.csv", index=False)
        table.to_parquet(tmp_path / "t.parquet", index=False)
        expected = detect_many(table, by="test", order="run", value="mpps", min_size=20)
        for name in ("t.csv", "t.parquet"):
            got = detect_many(tmp_path / name, by="test", order="run", value="mpps",
                              min_size=20)
            _assert_frames_identical(expected, got)

    def test_bad_arguments(self) -> None:
        table = _table(n_series=2)
        with pytest.raises(InvalidInputError, match="engine"):
            detect_many(table, by="test", value="mpps", engine="spark")  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="workers"):
            detect_many(table, by="test", value="mpps", workers=0)
        with pytest.raises(InvalidInputError, match="nope"):
            detect_many(table, by="nope", value="mpps")
        with pytest.raises(InvalidInputError, match="value="):
            detect_many(table, by="test")
        every_cell_text = detect_many(table.assign(mpps="x"), by="test", value="mpps")
        assert every_cell_text["error"].str.contains("non-numeric cell 'x'").all()
        with pytest.raises(InvalidInputError, match="higher_is_better"):
            detect_many(table, by="test", value="mpps", higher_is_better="False")
        with pytest.raises(InvalidInputError, match="higher_is_better"):
            trend_many(table, by="test", value="mpps", higher_is_better=0)
        with pytest.raises(InvalidInputError, match="table must be"):
            detect_many(42, by="test", value="mpps")

    def test_dask_engine_without_client_is_a_named_error(self) -> None:
        distributed = pytest.importorskip("distributed")
        try:
            distributed.get_client()
            pytest.skip("a default dask client exists in this process")
        except ValueError:
            pass
        with pytest.raises(InvalidInputError, match="Client"):
            detect_many({"a": np.ones(10)}, engine="dask")

    def test_progress_bar(self, capsys: pytest.CaptureFixture[str]) -> None:
        pytest.importorskip("tqdm")
        series = {f"s{i}": np.arange(5, dtype=float) for i in range(3)}
        out = detect_many(series, progress=True, min_size=2)
        assert len(out) == 3
        assert "detect_many" in capsys.readouterr().err


class TestTrendMany:
    def test_rows_match_mdl_partition_and_compliance(self) -> None:
        table = _table(n_series=8, n=120)
        out = trend_many(table, by=["suite", "test"], order="run", value="mpps", workers=2,
                         short_window=14)
        assert list(out.columns) == list(TREND_COLUMNS)
        for name, x in _series(table).items():
            row = out[out["series"] == name].iloc[0]
            groups = mdl_partition(x)
            comp = trend_compliance(groups, short_window=14)
            assert row["boundaries"] == tuple(groups.boundaries)
            assert row["classifications"] == tuple(g.classification for g in groups.groups)
            assert row["group_means"] == tuple(g.mean for g in groups.groups)
            assert row["total_bits"] == groups.total_bits
            assert row["last_trend"] == comp.last_trend
            assert row["runs_in_last_trend"] == comp.runs_in_last_trend
            assert _same(row["long_term_change_percent"], comp.long_term_change_percent)
            assert row["regressions"] == comp.n_regressions
            assert row["progressions"] == comp.n_progressions
            assert row["new_regression"] == (comp.n_regressions > 0)

    def test_options_and_direction_reach_mdl_partition(self) -> None:
        x = [1.0, 1.1, np.nan, 1.0, 2.0, 2.1, 2.0]
        out = trend_many({"s": x}, higher_is_better=False, nan_policy="omit")
        groups = mdl_partition(x, higher_is_better=False, nan_policy="omit")
        assert out.loc[0, "classifications"] == tuple(g.classification for g in groups.groups)
        assert out.loc[0, "error"] is None
        raised = trend_many({"s": x})  # default nan_policy="raise": a per-series error
        assert raised.loc[0, "error"].startswith("InvalidInputError")

    def test_threads_identical_to_serial(self) -> None:
        table = _table(n_series=6, n=90)
        serial = trend_many(table, by="test", order="run", value="mpps", workers=1)
        threaded = trend_many(table, by="test", order="run", value="mpps", workers=4)
        _assert_frames_identical(serial, threaded)


class TestTableSplit:
    """The vectorised split equals ``sort_values(order).groupby(by, sort=False, dropna=False)``
    followed by a sort of the series by key, missing keys last."""

    @staticmethod
    def _by_groupby(frame: pd.DataFrame, by: list[str], order: str | None
                    ) -> list[tuple[str, tuple[object, ...], np.ndarray]]:
        if order is not None:
            frame = frame.sort_values(order, kind="stable")
        values = frame["v"].to_numpy(dtype=np.float64)
        groups = frame.groupby(by if len(by) > 1 else by[0], sort=False, dropna=False).indices
        keyed = []
        for key, index in groups.items():
            parts = key if isinstance(key, tuple) else (key,)
            parts = tuple(p.item() if isinstance(p, np.generic) else p for p in parts)
            # missing keys: NaN in float columns, None (named <NA>) in any other
            parts = tuple(None if pd.isna(p) and frame[c].dtype.kind != "f" else p
                          for p, c in zip(parts, by, strict=True))
            name = "/".join("<NA>" if p is None else str(p) for p in parts)
            series = values[index]
            if order is not None and frame[order].iloc[index].isna().any():
                series = None  # a missing order: an error row
            keyed.append((name, parts, series))
        # missing keys (NaN or None) after every present value, part by part
        keyed.sort(key=lambda task: tuple(
            (1, 0) if p is None or (isinstance(p, float) and math.isnan(p)) else (0, p)
            for p in task[1]))
        return keyed

    @pytest.mark.parametrize("by", [["i"], ["f"], ["i", "b"], ["f", "d", "i"], ["c"], ["I"]])
    @pytest.mark.parametrize("order", [None, "o", "r", "nan_order", "d"])
    def test_series_and_values_as_groupby(self, by: list[str], order: str | None) -> None:
        rng = np.random.default_rng(8)
        m = 600
        frame = pd.DataFrame({
            "f": rng.choice([1.5, np.nan, -2.0], m),
            "d": pd.to_datetime(rng.choice(["2024-01-01", "2025-06-01"], m)),
            "i": rng.integers(0, 7, m),
            "b": rng.random(m) < 0.5,
            "c": pd.Categorical(rng.choice(["x", "y"], m)),
            "I": pd.array(rng.choice([1, 2, None], m), dtype="Int64"),
            "o": rng.normal(size=m).round(1),
            "nan_order": rng.choice([1.0, np.nan, 2.0], m),
            "v": rng.normal(size=m),
        })
        frame["r"] = frame.groupby(by, dropna=False).cumcount()  # each series in order
        frame.index = rng.permutation(m) + 10
        expected = self._by_groupby(frame, by, order)
        got = _frame_tasks(frame, by, order, "v")
        assert [(name, repr(parts)) for name, parts, _ in got] == [
            (name, repr(parts)) for name, parts, _ in expected]
        for (_, _, a), (_, _, b) in zip(got, expected, strict=True):
            if b is None:
                assert isinstance(a, InvalidSeries) and "missing value" in str(a.error)
                continue
            np.testing.assert_array_equal(a, b)
            assert a.dtype == np.float64 and a.flags.c_contiguous


class TestCsitChanges:
    def test_long_term_change_is_trend_compliance(self) -> None:
        rng = np.random.default_rng(5)
        for trial in range(20):
            n = int(rng.integers(3, 60))
            x = np.round(rng.normal(10, 1, n)).clip(1)
            groups = mdl_partition(x, higher_is_better=bool(trial % 2))
            for short, long in ((10, 180), (3, 7), (0, 5)):
                comp = trend_compliance(groups, short_window=short, long_window=long)
                _, change, reference = csit_changes(np.asarray(groups.trend_mean), short,
                                                    long, bool(trial % 2))
                if n <= short:
                    # A history of S runs or fewer takes the earliest trend
                    # (CSIT's rule), in both implementations
                    assert comp.reference_is_earliest
                    assert comp.reference == groups.trend_mean[0] == reference
                assert _same(reference, comp.reference)
                assert _same(change, comp.long_term_change_percent)

    def test_short_term_change_brute_force(self) -> None:
        trend = np.array([10.0, 10.0, 12.0, 12.0, 9.0])
        assert csit_changes(trend, 2, 180, True)[0] == pytest.approx(100 * (9 - 12) / 12)
        assert csit_changes(trend, 10, 180, True)[0] == pytest.approx(100 * (9 - 10) / 10)
        assert math.isnan(csit_changes(trend, 0, 180, True)[0])
        assert all(math.isnan(v) for v in csit_changes(np.full(3, np.nan), 1, 5, True))
        holes = np.array([10.0, np.nan, 12.0, np.nan])  # runs without a trend are skipped
        assert csit_changes(holes, 1, 180, True) == (0.0, pytest.approx(20.0), 10.0)
        assert math.isnan(csit_changes(holes, 2, 180, True)[0])  # trend[1] is missing
        assert all(math.isnan(v) for v in csit_changes(np.zeros(0), 1, 5, True))


def test_write_parquet_round_trip(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    out = detect_many(_table(n_series=4), by="test", order="run", value="mpps", min_size=20)
    path = write_parquet(out, tmp_path / "out.parquet")
    back = pd.read_parquet(path)
    assert back["series"].tolist() == out["series"].tolist()
    assert [tuple(int(c) for c in v) for v in back["locations"]] == out["locations"].tolist()
    assert back["p_values"].map(len).tolist() == out["p_values"].map(len).tolist()


# ----------------------------------------------------------------------------------------
# asv results folder (from the project's own asv fixture, tests/data/harnesses)
# ----------------------------------------------------------------------------------------


def asv_results_folder(root: Path, n_commits: int = 40, seed: int = 0) -> Path:
    """An asv results folder: the fixture's result file at ``n_commits`` commits.

    The fixture (real asv 0.6.6 output) is written once per commit with its commit hash,
    date and headline results changed; the time_sum_range benchmark gets 30 % slower at
    commit 25.
    """
    rng = np.random.default_rng(seed)
    document = json.loads((HARNESSES / "asv_result.json").read_text())
    results = root / "results"
    machine = results / "fixture"
    machine.mkdir(parents=True)
    shutil.copy(HARNESSES / "asv_benchmarks.json", results / "benchmarks.json")
    (machine / "machine.json").write_text(json.dumps({"machine": "fixture", "version": 1}))
    column = document["result_columns"].index("result")
    base = {name: row[column] for name, row in document["results"].items()}
    for k in range(n_commits):
        doc = json.loads(json.dumps(document))
        doc["commit_hash"] = f"{k:040x}"
        doc["date"] = document["date"] + 3_600_000 * k
        for name, row in doc["results"].items():
            slower = 1.3 if (name.endswith("time_sum_range") and k >= 25) else 1.0
            row[column] = [None if v is None else v * slower * (1 + rng.normal(0, 0.01))
                           for v in base[name]]
        (machine / f"{k:08x}-{doc['env_name']}.json").write_text(json.dumps(doc))
    return results


class TestAsvHistory:
    def test_reads_every_benchmark_and_commit(self, tmp_path: Path) -> None:
        folder = asv_results_folder(tmp_path, n_commits=40)
        table = load_asv_history(folder)
        fixture = json.loads((HARNESSES / "asv_result.json").read_text())
        column = fixture["result_columns"].index("result")
        expected = sum(sum(v is not None for v in row[column])
                       for row in fixture["results"].values())
        assert len(table) == 40 * expected
        assert table["commit"].nunique() == 40
        assert set(table["machine"]) == {"fixture"}
        assert "bench_tiny.TimeSuite.time_sorted(10)" in set(table["benchmark"])
        assert (table["unit"] == "s").all()
        assert table["date"].dt.tz is not None
        # the project folder (holding results/) is accepted too
        assert len(load_asv_history(tmp_path)) == len(table)

    def test_detect_and_trend_over_the_folder(self, tmp_path: Path) -> None:
        folder = asv_results_folder(tmp_path, n_commits=40)
        out = trend_many(folder, higher_is_better=False)
        table = load_asv_history(folder)
        assert len(out) == table.groupby(["machine", "env", "benchmark"]).ngroups
        slow = out[out["series"].str.endswith("time_sum_range")].iloc[0]
        assert slow["boundaries"] == (25,)
        assert slow["last_classification"] == "regression"
        assert slow["long_term_change_percent"] == pytest.approx(30, abs=3)
        detected = detect_many(folder, higher_is_better=False, min_size=10)
        row = detected[detected["series"].str.endswith("time_sum_range")].iloc[0]
        assert len(row["locations"]) == 1 and abs(row["locations"][0] - 25) <= 2
        assert bool(row["new_regression"])
        history = table[table["benchmark"].str.endswith("time_sum_range")]
        single = detect_changes(history.sort_values("date")["value"].to_numpy(), min_size=10)
        assert row["locations"] == single.locations and row["p_values"] == single.p_values

    def test_not_a_results_folder(self, tmp_path: Path) -> None:
        with pytest.raises(FormatError, match="no asv result file"):
            load_asv_history(tmp_path)
        (tmp_path / "m").mkdir()
        (tmp_path / "m" / "x.json").write_text(json.dumps({"version": 1, "results": {}}))
        with pytest.raises(FormatError, match="API version"):
            load_asv_history(tmp_path)


@pytest.mark.parametrize(
    "keys, want",
    [
        # A missing key of a non-float column is named <NA>, never "nan"
        (["b", None, "a"], ["a", "b", "<NA>"]),
        (pd.to_datetime(["2024-01-02", None, "2024-01-01"]),
         ["2024-01-01 00:00:00", "2024-01-02 00:00:00", "<NA>"]),
        (pd.Series([1, "x", 2.5], dtype=object), ["1", "2.5", "x"]),
    ],
)
def test_missing_and_mixed_keys_sort_without_error(keys: object, want: list[str]) -> None:
    # A missing key beside string or datetime keys used to raise TypeError (NaN < "a").
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({
        "test": np.repeat(np.asarray(keys, dtype=object), 80),
        "run": np.tile(np.arange(80), 3),
        "value": rng.normal(size=240),
    })
    out = detect_many(frame, by="test", order="run", value="value", workers=1)
    assert out["series"].tolist() == want
    assert out["error"].isna().all()
    blocks = {str(k) if not pd.isna(k) else "<NA>": frame["value"].to_numpy()[i * 80:(i + 1) * 80]
              for i, k in enumerate(pd.Series(keys, dtype=object))}
    for series, locations in zip(out["series"], out["locations"], strict=True):
        assert locations == detect_changes(blocks[series]).locations
