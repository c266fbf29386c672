"""The fleet report (CSIT dashboard table, text, static HTML page) and `pilotstats fleet`."""

from __future__ import annotations

import contextlib
import io
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pilotstats.analysis import FleetReport, fleet_report, trend_many
from pilotstats.cli import main
from pilotstats.exceptions import InvalidInputError
from tests.test_many import asv_results_folder


class _Page(HTMLParser):
    """Rows of the report's table body, with the tags inside each row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.stack: list[str] = []
        self.external: list[str] = []
        self.in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.external.append(value)
        if tag in ("script", "link", "img", "iframe"):
            self.external.append(tag)
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append({"cells": [], "tags": [], "class": dict(attrs).get("class")})
        elif self.in_body and self.rows:
            self.rows[-1]["tags"].append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self.in_body = False
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self.in_body and self.rows and self.stack and self.stack[-1] == "td":
            self.rows[-1]["cells"].append(data)


def _fleet() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    return {
        "flat": rng.normal(10.0, 0.1, 80),
        "slower": np.r_[rng.normal(10.0, 0.1, 72), rng.normal(12.0, 0.1, 8)],
        "much-slower": np.r_[rng.normal(10.0, 0.1, 72), rng.normal(15.0, 0.1, 8)],
        "faster": np.r_[rng.normal(10.0, 0.1, 72), rng.normal(8.0, 0.1, 8)],
        "broken <b>": np.r_[np.ones(5), np.nan],
    }


def test_dashboard_order_worst_first() -> None:
    report = fleet_report(_fleet(), higher_is_better=False)
    table = report.dashboard()
    assert table["series"].tolist() == ["much-slower", "slower", "flat", "faster", "broken <b>"]
    assert report.new_regressions == ("slower", "much-slower")  # in the batch's order
    assert table.loc[0, "long_term_change_percent"] == pytest.approx(50.0, abs=2.0)
    assert table.loc[4, "error"].startswith("InvalidInputError")
    text = str(report)
    assert text.splitlines()[2].startswith("much-slower") and "NEW REGRESSION" in text
    data = report.to_dict()
    json.dumps(data, allow_nan=False)
    assert [r["series"] for r in data["series"]] == table["series"].tolist()


def test_dashboard_of_change_points() -> None:
    rng = np.random.default_rng(2)
    series = {"up": np.r_[rng.normal(1, 0.01, 60), rng.normal(2, 0.01, 60)],
              "same": rng.normal(1, 0.01, 120)}
    report = fleet_report(series, method="detect", higher_is_better=False, min_size=20)
    assert report.kind == "detect" and report.new_regressions == ("up",)
    table = report.dashboard()
    assert table["series"].tolist() == ["up", "same"]
    assert table["runs"].tolist() == [120 - report.results.loc[0, "last_change"], 120]


def test_html_page_parses_with_one_plot_per_series(tmp_path: Path) -> None:
    report = fleet_report(_fleet(), higher_is_better=False, unit="s")
    path = report.write_html(tmp_path / "fleet.html")
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    assert page.external == []  # self-contained: no script, stylesheet, image or link
    assert len(page.rows) == len(_fleet())
    names = [row["cells"][0] for row in page.rows]
    assert names == report.dashboard()["series"].tolist()  # escaped and decoded back
    for row in page.rows:
        assert row["tags"].count("svg") == 1
    plotted = [row for row in page.rows if "polyline" in row["tags"]]
    assert len(plotted) == len(_fleet())
    # trend levels: one line per segment (2 for a step, 1 for flat)
    levels = {row["cells"][0]: row["tags"].count("line") for row in page.rows}
    assert levels["slower"] == 2 and levels["flat"] == 1 and levels["broken <b>"] == 0
    assert page.rows[0]["class"] == "regression"


def test_report_is_a_result() -> None:
    report = fleet_report({"a": np.r_[np.full(30, 5.0), np.full(5, 4.0)]})
    assert isinstance(report, FleetReport)
    assert report.results.equals(trend_many({"a": np.r_[np.full(30, 5.0), np.full(5, 4.0)]}))
    with pytest.raises(InvalidInputError, match="method"):
        fleet_report({"a": [1.0, 2.0]}, method="spline")  # type: ignore[arg-type]


def test_unit_label_and_mdl_resolution_do_not_collide() -> None:
    """``unit`` is the display label; the MDL numeric resolution passes as ``resolution``."""
    from pilotstats.changepoints import mdl_partition

    series = {"a": np.r_[np.full(30, 5.0), np.full(5, 4.0)] + np.tile([0.0, 0.01], 35)[:35]}
    report = fleet_report(series, unit="Mpps", resolution=0.01)
    assert report.unit == "Mpps" and "[Mpps]" in str(report)
    groups = mdl_partition(series["a"], resolution=0.01)
    assert report[0]["total_bits"] == groups.total_bits
    assert report[0]["group_means"] == tuple(g.mean for g in groups)


def _run(argv: list[str]) -> tuple[int, str]:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        status = main(argv)
    return status, out.getvalue()


def test_cli_fleet_over_asv_folder(tmp_path: Path) -> None:
    folder = asv_results_folder(tmp_path, n_commits=30)
    status, text = _run(["fleet", str(folder), "--no-progress"])
    assert status == 1  # time_sum_range got 30 % slower at commit 25
    assert "NEW REGRESSION" in text and "time_sum_range" in text.splitlines()[2]
    status, text = _run(["fleet", str(folder), "--json", "--html", str(tmp_path / "r.html"),
                         "--parquet", str(tmp_path / "r.parquet")])
    data = json.loads(text)
    assert status == 1 and data["command"] == "fleet"
    assert [s for s in data["new_regressions"] if s.endswith("time_sum_range")]
    assert (tmp_path / "r.html").read_text().count("<svg") == len(data["series"])
    if (tmp_path / "r.parquet").exists():
        assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(data["series"])


def test_cli_fleet_over_long_csv(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    rows = [{"test": name, "build": k, "mpps": v}
            for name, shift in (("a", 0.0), ("b", 0.0)) for k, v in
            enumerate(rng.normal(10.0 + shift, 0.05, 40))]
    pd.DataFrame(rows).to_csv(tmp_path / "long.csv", index=False)
    argv = ["fleet", str(tmp_path / "long.csv"), "--by", "test", "--order", "build",
            "--value", "mpps", "--higher-is-better"]
    status, text = _run(argv)
    assert status == 0 and "a " in text
    status, text = _run([*argv, "--method", "detect", "--min-size", "10", "--json"])
    assert status == 0 and json.loads(text)["kind"] == "detect"
    with contextlib.redirect_stderr(io.StringIO()) as err:
        status = main(["fleet", str(tmp_path / "long.csv"), "--by", "nope", "--value", "mpps"])
    assert status == 2 and "nope" in err.getvalue()


def test_html_plots_have_axes_with_values_and_the_page_names_its_versions(
        tmp_path: Path) -> None:
    report = fleet_report(_fleet(), higher_is_better=False, unit="s")
    text = report.to_html(command_line=["pilotstats", "fleet", "results dir"])
    row = text[text.index('<td class="name">slower</td>'):]
    svg = row[row.index("<svg"):row.index("</svg>")]
    ticks = [t.split(">", 1)[1] for t in svg.split("<text")[1:]]
    values = [t[:-len(" s</text>")] for t in ticks if t.endswith(" s</text>")]
    assert len(values) >= 3  # value ticks in the unit of the series
    numbers = sorted(float(v) for v in values)
    assert numbers[0] <= 10.0 and numbers[-1] >= 12.0  # the range of "slower"
    assert "run (oldest first)</text>" in svg and ">79</text>" in svg  # run ticks: 0 .. 79
    assert "last level" in svg.split("</title>")[0]
    assert "pilotstats fleet &#x27;results dir&#x27;" in text and "Versions: pilotstats" in text
    assert "numpy" in text and "python" in text


def test_undefined_change_reads_history_too_short() -> None:
    report = fleet_report(_fleet(), higher_is_better=False)
    short = FleetReport(report.kind, report.results.assign(long_term_change_percent=np.nan),
                        report.values, report.higher_is_better)
    assert "n/a (history too short)" in str(short) and " nan " not in str(short)
    page = _Page()
    page.feed(short.to_html())
    cells = [row["cells"] for row in page.rows if row["class"] != "failed"]
    assert cells and all(c[4] == "n/a (history too short)" for c in cells)
    assert all("nan" not in c for row in cells for c in row)


def test_cli_fleet_html_records_the_command(tmp_path: Path) -> None:
    folder = asv_results_folder(tmp_path, n_commits=12)
    page = tmp_path / "fleet.html"
    status, _ = _run(["fleet", str(folder), "--no-progress", "--html", str(page)])
    text = page.read_text(encoding="utf-8")
    assert status in (0, 1) and f"pilotstats fleet {folder} --no-progress --html {page}" in text
    assert text.count("<svg") == text.count('<td class="name">')
