"""HTML reports: pages of analyze / compare / trend / fleet, in a real browser.

The pages are built from the real harness fixtures (``tests/report_pages.py``: Google
Benchmark with ``--clock cpu``, pytest-benchmark with several files a side, pyperf, asv),
checked as HTML (self-contained, the answer, the run structure, the command and the
versions), then loaded in headless Chromium (``--dump-dom``): the rendered DOM holds the
content and the browser logs no console message. The browser tests skip cleanly when no
Chromium is installed; ``--html FILE`` of the command line is tested as the other CLI
tests are (``main(argv)``).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pilotstats._kernels._jit import numba_available
from pilotstats.analysis import analyze, compare, trend
from pilotstats.cli import main
from pilotstats.exceptions import InvalidInputError
from pilotstats.io import Measurements
from tests.report_pages import REAL, browser, build_pages, chromium, console_messages

pytest.importorskip("matplotlib")

real = pytest.mark.skipif(
    not REAL.is_dir() or not numba_available(),
    reason="real harness fixtures absent, or no compiled kernels (minutes per file)")
needs_browser = pytest.mark.skipif(chromium() is None, reason="no chromium installed")


class _Page(HTMLParser):
    """Text, headings, table rows and external references of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.text: list[str] = []
        self.rows: list[list[str]] = []
        self.titles: list[str] = []
        self.headings: list[str] = []
        self._tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("data:"):
                self.external.append(value)
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.external.append(tag)
        if tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag: str) -> None:
        while self._tags and self._tags.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if not data.strip():
            return
        self.text.append(data)
        where = self._tags[-1] if self._tags else ""
        if where in ("td", "th") and self.rows:
            self.rows[-1].append(data.strip())
        elif where == "title" and "svg" in self._tags:
            self.titles.append(data)
        elif where in ("h1", "h2", "h3"):
            self.headings.append(data)


def parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_pages(tmp_path_factory.mktemp("pages"))


def _runs(level: float, seed: int, n_runs: int = 6) -> Measurements:
    rng = np.random.default_rng(seed)
    means = rng.normal(level, 0.01 * level, n_runs)
    return Measurements(np.concatenate([rng.normal(m, 0.01 * level, 30) for m in means]),
                        run=np.repeat(np.arange(n_runs), 30), benchmark="job")


# -- the pages from the real fixtures ------------------------------------------------------


@real
def test_every_page_is_self_contained_and_names_command_and_versions(
        pages: dict[str, Path]) -> None:
    import numpy

    import pilotstats

    assert set(pages) == {"compare_google_benchmark", "compare_pytest_benchmark",
                          "analyze_pyperf", "trend_pyperf", "fleet_asv"}
    for name, path in pages.items():
        text = path.read_text(encoding="utf-8")
        page = parse(text)
        assert page.external == [], name  # no script, stylesheet, link or remote image
        assert text.startswith("<!DOCTYPE html>") and "<svg" in text, name
        footer = text[text.index("<footer>"):]
        assert f"pilotstats {pilotstats.__version__}" in footer, name
        assert f"numpy {numpy.__version__}" in footer and "python 3." in footer, name
        assert "Made by <code>pilotstats " in footer, name
        assert path.stat().st_size < 400_000, name


@real
def test_compare_page_states_verdict_run_structure_and_plots(pages: dict[str, Path]) -> None:
    page = parse(pages["compare_google_benchmark"].read_text(encoding="utf-8"))
    verdicts = [row for row in page.rows if row and row[0] == "BM_sum_squares"]
    assert verdicts[0][-1] == "regression" and verdicts[0][1] == "80 / 80"
    structure = verdicts[1]  # the run-structure table: 4 files a side are the units
    assert structure[1:4] == ["80 / 80", "files", "4 / 4"]
    heading = next(h for h in page.headings if h.startswith("BM_sum_squares: +"))
    assert re.fullmatch(r"BM_sum_squares: \+\d+\.\d\d % \[\+\d+\.\d\d, \+\d+\.\d\d %\] "
                        r"regression \(95 % CI, 4 vs 4 files\)", heading)
    assert heading in page.titles  # the change plot says the same
    samples = [t for t in page.titles if "samples" in t]
    assert samples == ["baseline: 80 samples, 80 runs in 4 files",
                       "new: 80 samples, 80 runs in 4 files"]
    assert "--clock cpu" in "".join(page.text)


@real
def test_pytest_benchmark_page_has_runs_as_units_and_variance_components(
        pages: dict[str, Path]) -> None:
    page = parse(pages["compare_pytest_benchmark"].read_text(encoding="utf-8"))
    name = "test_workload.py::test_sum_squares"
    rows = [row for row in page.rows if row and row[0] == name]
    assert rows[0][1] == "6 / 6"  # six files of one run each, per side
    assert rows[1][2] == "runs" and all(cell != "-" for cell in rows[1][4:])  # T1, T2 known
    assert any(t.startswith(f"{name}: +") for t in page.titles)


@real
def test_analysis_and_trend_pages(pages: dict[str, Path]) -> None:
    page = parse(pages["analyze_pyperf"].read_text(encoding="utf-8"))
    estimate = next(t for t in page.titles if t.startswith("sum_squares: mean "))
    assert estimate.endswith("(95 % CI, 60 runs)")
    assert "samples: 240 samples, 60 runs in 3 files" in page.titles
    row = next(r for r in page.rows if r and r[0] == "sum_squares" and len(r) == 8)
    assert row[1:3] == ["60", "files"] and row[3].endswith("s")  # between-file std known
    page = parse(pages["trend_pyperf"].read_text(encoding="utf-8"))
    labels = [f"{v}/{i}.json" for v in ("base", "rerun", "slow") for i in (1, 2, 3)]
    assert page.rows[-2] == ["benchmark", *labels]  # results named by their files
    assert page.rows[-1] == ["sum_squares", *["20"] * 9]  # runs per result
    assert any(t.startswith("sum_squares: newest level ") for t in page.titles)


@real
def test_fleet_page_plots_have_axes(pages: dict[str, Path]) -> None:
    text = pages["fleet_asv"].read_text(encoding="utf-8")
    rows = parse(text).rows[1:]
    assert len(rows) == 2 and all(row[-1] == "new regression" for row in rows)
    assert all("nan" not in cell for row in rows for cell in row)
    assert text.count("<svg") == len(rows) == text.count("run (oldest first)")  # with axes


#: A text each page shows once rendered.
EXPECTED = {"compare_google_benchmark": "BM_sum_squares",
            "compare_pytest_benchmark": "test_workload.py::test_sum_squares",
            "analyze_pyperf": "sum_squares", "trend_pyperf": "newest level",
            "fleet_asv": "time_sum_squares"}


@real
@needs_browser
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_page_renders_in_chromium_without_console_messages(pages: dict[str, Path],
                                                           name: str) -> None:
    path = pages[name]
    done = browser(path, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert dom.count("<svg") == path.read_text(encoding="utf-8").count("<svg")
    assert EXPECTED[name] in dom and "Versions: pilotstats" in dom
    assert console_messages(done.stderr) == []


@needs_browser
def test_console_check_catches_a_failing_page(tmp_path: Path) -> None:
    """The console check above can fail: a page with a script error is caught."""
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><html><body><p>x</p><script>undefinedCall();"
                      "</script></body></html>", encoding="utf-8")
    done = browser(broken, "--dump-dom")
    messages = console_messages(done.stderr)
    assert messages and any("undefinedCall" in line for line in messages)


@needs_browser
def test_synthetic_pages_render(tmp_path: Path) -> None:
    """Without the real fixtures: the three report pages load in the browser too."""
    base, new = _runs(1.0, 1), _runs(1.1, 2)
    written = [compare(base, new).write_html(tmp_path / "c.html", base=base, new=new),
               analyze(base).write_html(tmp_path / "a.html", measurements=base),
               trend([_runs(1.0, 3), _runs(1.0, 4), _runs(1.3, 5), _runs(1.3, 6)]).write_html(
                   tmp_path / "t.html")]
    for path in written:
        done = browser(path, "--dump-dom")
        assert "<svg" in done.stdout and console_messages(done.stderr) == [], path


# -- the Python API -------------------------------------------------------------------------


def test_report_pages_from_the_api(tmp_path: Path) -> None:
    base, new = _runs(1.0, 1), _runs(1.1, 2)
    report = compare(base, new)
    text = report.to_html(base=base, new=new, command_line=["pilotstats", "compare", "a b"])
    page = parse(text)
    assert page.external == [] and "pilotstats compare &#x27;a b&#x27;" in text
    assert text.count("<svg") == 3  # the change, and each side's samples
    assert parse(report.to_html()).text.count("Run structure") == 1
    assert report.to_html().count("<svg") == 1
    path = report.write_html(tmp_path / "report.html", title="nightly")
    assert path == tmp_path / "report.html" and "<title>nightly</title>" in path.read_text()
    analysis = analyze(base)
    assert analysis.to_html(measurements=base).count("<svg") == 2
    with pytest.raises(InvalidInputError):
        analysis.to_html(measurements="not measurements")
    with pytest.raises(InvalidInputError, match="command_line"):
        analysis.to_html(command_line=["pilotstats", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="path"):
        analysis.write_html(3)  # type: ignore[arg-type]


def test_pages_without_matplotlib_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from pilotstats.analysis import _html

    def missing(*_: Any) -> Any:
        raise ImportError("no matplotlib")

    monkeypatch.setattr(_html, "new_figure", missing)
    text = compare(_runs(1.0, 1), _runs(1.1, 2)).to_html()
    assert "<svg" not in text and _html.PLOT_HINT.replace('"', "&quot;") in text
    assert "regression" in text  # the tables are still there


# -- the command line -----------------------------------------------------------------------


def _hyperfine(path: Path, level: float, seed: int) -> str:
    rng = np.random.default_rng(seed)
    times = (level * (1 + 0.01 * rng.standard_normal(20))).tolist()
    path.write_text(json.dumps({"results": [{"command": "job", "times": times}]}))
    return str(path)


def test_cli_html_of_compare_analyze_and_trend(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    base = [_hyperfine(tmp_path / f"base{i}.json", 0.100, i) for i in range(3)]
    slow = [_hyperfine(tmp_path / f"new{i}.json", 0.110, 10 + i) for i in range(3)]
    out = tmp_path / "compare.html"
    argv = ["compare", *base, "--", *slow, "--html", str(out), "--no-warmup-detection"]
    assert main(argv) == 1  # the regression still decides the exit status
    captured = capsys.readouterr()
    assert "1 significant regression(s)" in captured.out
    assert f"HTML report written to {out}" in captured.err
    text = out.read_text(encoding="utf-8")
    assert "pilotstats compare " + " ".join(base) in text and f"--html {out}" in text
    assert text.count("<svg") == 3 and "3 / 3" in text  # 3 files of 20 runs a side
    out = tmp_path / "analyze.html"
    assert main(["analyze", base[0], slow[0], "--html", str(out)]) == 0
    page = parse(out.read_text(encoding="utf-8"))
    assert [h for h in page.headings if h in (base[0], slow[0])] == [base[0], slow[0]]
    out = tmp_path / "trend.html"
    files = base + slow
    assert main(["trend", *files, "--html", str(out), "--no-warmup-detection"]) == 0
    text = out.read_text(encoding="utf-8")
    assert all(Path(f).name in text for f in files) and "newest level" in text


def test_cli_html_to_an_unwritable_place_is_a_named_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _hyperfine(tmp_path / "b.json", 0.1, 1)
    status = main(["analyze", base, "--html", str(tmp_path / "missing" / "a.html")])
    assert status == 2 and "pilotstats: error:" in capsys.readouterr().err


def test_cli_trend_labels_name_the_folder_when_file_names_repeat(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["trend"]
    for c, level in enumerate((0.1, 0.1, 0.13)):
        folder = tmp_path / f"commit{c}"
        folder.mkdir()
        argv += ["--"] if c else []
        argv += [_hyperfine(folder / f"{i}.json", level, 10 * c + i) for i in range(2)]
    assert main([*argv, "--json", "--no-warmup-detection"]) == 0
    labels = json.loads(capsys.readouterr().out)["labels"]
    assert labels == [f"commit{c}/0.json +1 files" for c in range(3)]
