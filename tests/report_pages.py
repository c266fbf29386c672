"""HTML reports and plots built from the real harness fixtures, and their screenshots.

Used by ``tests/test_html_reports.py`` (browser test) and to make the screenshots in
``docs/_static/screenshots`` (``python -m tests.report_pages docs/_static/screenshots``
from the repository root; needs matplotlib and Chromium). The fixtures are
``tests/data/real_harness/session2``: Google Benchmark (``--clock cpu``), pyperf and
pytest-benchmark output made by the real tools (several files per side), asv results.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real_harness" / "session2"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium() -> str | None:
    """Path of a Chromium (or Chrome) executable, or None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser(page: Path, *options: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium on ``page`` with ``options`` (``--dump-dom``, ``--screenshot``)."""
    executable = chromium()
    if executable is None:
        raise FileNotFoundError("no chromium executable")
    return subprocess.run(
        [executable, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--allow-file-access-from-files",
         *options, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=timeout, check=False)


def console_messages(stderr: str) -> list[str]:
    """Lines of Chromium's log that are page console messages or uncaught errors."""
    return [line for line in stderr.splitlines()
            if ":CONSOLE" in line or "Uncaught" in line]


def _files(tool: str, variant: str, pattern: str = "*.json") -> list[Path]:
    return sorted((REAL / tool / variant).glob(pattern))


def _rel(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(REAL)) for p in paths]


def build_pages(folder: Path) -> dict[str, Path]:
    """Write every HTML page made from the real fixtures into ``folder``; name -> path."""
    from pilotstats.analysis import analyze, compare, fleet_report, trend
    from pilotstats.io import load, load_many

    folder.mkdir(parents=True, exist_ok=True)
    pages: dict[str, Path] = {}
    gb = [_files("google_benchmark", v) for v in ("base", "slow")]
    base, slow = (load_many(files, clock="cpu") for files in gb)
    pages["compare_google_benchmark"] = compare(base, slow).write_html(
        folder / "compare_google_benchmark.html", base=base, new=slow,
        command_line=["pilotstats", "compare", "--clock", "cpu", *_rel(gb[0]), "--",
                 *_rel(gb[1]), "--html", "compare.html"])
    pb = [_files("pytest_benchmark", v, "*.json.gz") for v in ("base", "slow")]
    sides = [[load(path) for path in files] for files in pb]
    pages["compare_pytest_benchmark"] = compare(*sides).write_html(
        folder / "compare_pytest_benchmark.html", base=sides[0], new=sides[1],
        command_line=["pilotstats", "compare", *_rel(pb[0]), "--", *_rel(pb[1]), "--html",
                 "compare.html"])
    pyperf = _files("pyperf", "base")
    measured = load_many(pyperf)
    pages["analyze_pyperf"] = analyze(measured).write_html(
        folder / "analyze_pyperf.html", measurements=measured,
        command_line=["pilotstats", "analyze", *_rel(pyperf), "--", "--html", "analyze.html"])
    history = [path for v in ("base", "rerun", "slow") for path in _files("pyperf", v)]
    pages["trend_pyperf"] = trend([load(path) for path in history]).write_html(
        folder / "trend_pyperf.html",
        command_line=["pilotstats", "trend", *_rel(history), "--html", "trend.html"])
    pages["fleet_asv"] = fleet_report(REAL / "asv", unit="s", higher_is_better=False,
                                      progress=False).write_html(
        folder / "fleet_asv.html", command_line="pilotstats fleet asv --html fleet.html")
    return pages


def build_plots(folder: Path) -> dict[str, Path]:
    """Save each report plot, drawn from the real fixtures, as a PNG in ``folder``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from pilotstats.analysis import analyze, compare, trend
    from pilotstats.changepoints import mdl_partition
    from pilotstats.io import load, load_many
    from pilotstats.plotting import plot_half_width
    from pilotstats.regression import wps

    folder.mkdir(parents=True, exist_ok=True)
    base = load_many(_files("google_benchmark", "base"), clock="cpu")
    slow = load_many(_files("google_benchmark", "slow"), clock="cpu")
    pyperf = load_many(_files("pyperf", "base"))
    history = [load(path) for v in ("base", "rerun", "slow") for path in _files("pyperf", v)]
    series = pyperf.time_per_work[~pyperf.warmup]
    rng = np.random.default_rng(0)
    work = np.tile(np.linspace(100, 2000, 30), 2)
    durations = 0.05 + work / 5000 * (1 + 0.03 * rng.standard_normal(work.size))
    throughput = np.r_[rng.normal(14.0, 0.15, 40), rng.normal(13.3, 0.15, 30)]
    drawers: dict[str, Callable[[], Any]] = {
        "plot_measurements": lambda: pyperf.plot(),
        "plot_analysis": lambda: analyze(pyperf).plot(),
        "plot_comparison": lambda: compare(base, slow).plot(),
        "plot_trend": lambda: trend(history).plot(),
        "plot_trend_groups": lambda: mdl_partition(throughput).plot(throughput,
                                                                    ylabel="throughput",
                                                                    unit="Mpps"),
        "plot_wps": lambda: wps(work, durations, unit="requests").plot(work, durations),
        "plot_half_width": lambda: plot_half_width(series[:400], unit="s"),
    }
    saved: dict[str, Path] = {}
    for name, draw in drawers.items():
        ax = draw()
        path = folder / f"{name}.png"
        ax.figure.savefig(path, dpi=90)
        plt.close(ax.figure)
        saved[name] = shrink(path)
    return saved


def screenshot(page: Path, target: Path, width: int = 1200, height: int = 1600) -> Path:
    """A PNG of ``page`` as headless Chromium renders it (window ``width`` x ``height``)."""
    done = browser(page, f"--screenshot={target.resolve()}", f"--window-size={width},{height}")
    if not target.is_file():
        raise RuntimeError(f"chromium made no screenshot of {page}: {done.stderr[-500:]}")
    return shrink(target, trim=True)


def shrink(path: Path, *, trim: bool = False) -> Path:
    """Rewrite a PNG with a 256-colour palette (and without the blank bottom when
    ``trim``), so that the committed screenshots stay small."""
    import numpy as np
    from PIL import Image

    with Image.open(path) as opened:
        image = opened.convert("RGB")
    if trim:
        pixels = np.asarray(image)
        used = np.flatnonzero((pixels < 250).any(axis=(1, 2)))
        if used.size:
            image = image.crop((0, 0, image.width, min(image.height, int(used[-1]) + 24)))
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return path


def main(argv: list[str]) -> int:
    """Write the pages, their screenshots and the plots into the folder ``argv[0]``."""
    target = Path(argv[0] if argv else "docs/_static/screenshots")
    work = target / "pages"
    pages = build_pages(work)
    for name, page in pages.items():
        screenshot(page, target / f"{name}.png")
        print(target / f"{name}.png")
    for path in build_plots(target).values():
        print(path)
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
