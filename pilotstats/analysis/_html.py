"""Self-contained HTML pages of the analysis reports: the shared page, plots and tables.

A page is one file with inline CSS and the figures as inline SVG, no
script and no external resource, so it opens from disk or as a CI artifact with no
network. :mod:`pilotstats.analysis._html_reports` builds the pages of
:class:`~pilotstats.analysis.AnalysisReport`, :class:`~pilotstats.analysis.ComparisonReport`
and :class:`~pilotstats.analysis.TrendReport`; :mod:`pilotstats.analysis._fleet_report`
uses the same shell for the fleet dashboard.
"""

from __future__ import annotations

import html
import io
import os
import platform
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pilotstats.exceptions import InvalidInputError

__all__ = ["PLOT_HINT", "command_text", "figure_svg", "page", "plot_or_note", "table",
           "versions", "write_page"]

#: Shown instead of the figures when matplotlib is missing.
PLOT_HINT = 'plots need matplotlib: pip install "pilotstats[plot]"'

#: Lines with more points than this are embedded as an image inside the SVG.
_DENSE = 600

_CSS = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.2em auto;"
    "max-width:1150px;color:#222;padding:0 1em}"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;"
    "border-bottom:1px solid #ccc}h3{font-size:1.05em;margin-bottom:.3em}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.9em}"
    "td,th{padding:3px 9px;border-bottom:1px solid #ddd;text-align:right;"
    "vertical-align:top}th{background:#f3f3f3}"
    "td:first-child,th:first-child{text-align:left;font-family:monospace}"
    "tr.regression td{background:#fdecea}tr.progression td,tr.within-target td"
    "{background:#eafaf1}tr.inconclusive td,tr.failed td{color:#777}"
    ".verdict-regression{color:#b03a2e;font-weight:bold}"
    ".verdict-progression{color:#1e8449;font-weight:bold}"
    ".summary{font-size:1.05em;background:#f7f7f7;padding:.6em .8em;border-left:4px solid "
    "#2e5c8a}.summary.bad{border-left-color:#c0392b}"
    "figure{margin:.4em 0}svg{max-width:100%;height:auto}"
    ".plots{display:flex;flex-wrap:wrap;gap:.5em}.plots figure{flex:1 1 540px}"
    "ul.notes{font-size:.88em;color:#444}"
    "footer{margin-top:2em;font-size:.85em;color:#555;border-top:1px solid #ccc}"
    "code{background:#f3f3f3;padding:1px 4px;word-break:break-all}"
    "td.name{max-width:20em;word-break:break-all}.scroll{overflow-x:auto}"
    "td>svg{max-width:none}"
)


def versions() -> dict[str, str]:
    """Versions behind a page: pilotstats, numpy, Python (and matplotlib when present)."""
    import numpy

    from pilotstats._version import __version__

    found = {"pilotstats": __version__, "numpy": numpy.__version__,
             "python": platform.python_version()}
    try:
        import matplotlib
    except ImportError:
        found["matplotlib"] = "not installed"
    else:
        found["matplotlib"] = matplotlib.__version__
    found["platform"] = platform.platform(terse=True)
    return found


def command_text(command: str | Sequence[str] | None) -> str | None:
    """The command line as one shell-quoted string (a sequence is joined with quoting)."""
    if command is None:
        return None
    if isinstance(command, str):
        return command
    if not all(isinstance(part, str) for part in command):
        raise InvalidInputError("command_line must be a string or a sequence of strings")
    return shlex.join(command)


def table(header: Sequence[str], rows: Iterable[Sequence[str]],
          row_classes: Iterable[str] | None = None) -> str:
    """An HTML table (cells escaped); ``row_classes`` styles each row (e.g. the verdict)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    classes = list(row_classes) if row_classes is not None else None
    body = []
    for i, row in enumerate(rows):
        css = f' class="{html.escape(classes[i])}"' if classes and classes[i] else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row)
                    + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def new_figure(figsize: tuple[float, float] = (8.0, 3.4)) -> Any:
    """A matplotlib Figure outside pyplot (no GUI backend, nothing global) and its axes."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize, layout="constrained")
    return figure.add_subplot()


def figure_svg(ax: Any, *, alt: str | None = None) -> str:
    """The figure of ``ax`` as inline SVG (glyphs as paths: the same in every browser),
    titled with the axes' title for readers and tests (``<title>``, ``aria-label``)."""
    import matplotlib

    figure = ax.figure
    for line in ax.lines:  # thousands of markers: one embedded image keeps the page light
        if len(line.get_xdata()) > _DENSE:
            line.set_rasterized(True)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "pilotstats"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, dpi=110)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    title = alt if alt is not None else ax.get_title().replace("\n", " ")
    if title:
        text = re.sub(r"(<svg[^>]*>)", lambda m: m.group(1) + f"<title>{html.escape(title)}"
                      "</title>", text, count=1)
    return f'<figure role="img" aria-label="{html.escape(title or "plot")}">{text}</figure>'


def plot_or_note(draw: Callable[..., Any], figsize: tuple[float, float] = (8.0, 3.4)
                 ) -> str:
    """Call ``draw(ax=ax)`` on a new figure and return its SVG; a note when it cannot draw."""
    try:
        ax = new_figure(figsize)
    except ImportError:
        return f'<p class="note">{html.escape(PLOT_HINT)}</p>'
    from pilotstats.exceptions import PilotStatsError

    try:
        draw(ax=ax)
    except (PilotStatsError, ValueError) as exc:
        return f'<p class="note">no plot: {html.escape(str(exc))}</p>'
    return figure_svg(ax)


def page(title: str, body: Sequence[str], *, command_line: str | Sequence[str] | None = None,
         wide: bool = False) -> str:
    """The whole page: ``title``, the ``body`` parts (HTML), then the command and versions.

    Parameters
    ----------
    title : str
        Page title and heading.
    body : sequence of str
        HTML fragments, in order.
    command_line : str or sequence of str, optional
        The command line that made the page (shown verbatim, shell-quoted).
    wide : bool, default False
        Let the page use the whole window (wide tables).
    """
    esc = html.escape
    shown = command_text(command_line)
    found = versions()
    listed = ", ".join(f"{esc(k)} {esc(v)}" for k, v in found.items())
    footer = ("<footer><p>Made by "
              + (f"<code>{esc(shown)}</code>" if shown else "the pilotstats Python API")
              + f"</p><p>Versions: {listed}.</p><p>Self-contained page: inline CSS and "
              "SVG, no script, no network.</p></footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"pilotstats {esc(found['pilotstats'])}\">"
            f"<title>{esc(title)}</title><style>{_CSS}"
            + ("body{max-width:none}" if wide else "") + "</style></head><body>"
            f"<h1>{esc(title)}</h1>{''.join(body)}{footer}</body></html>\n")


def write_page(text: str, path: str | os.PathLike[str]) -> Path:
    """Write a page (UTF-8) and return its path.

    Raises
    ------
    InvalidInputError
        ``path`` is not a path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a file path, got {type(path).__name__}")
    target = Path(os.fspath(path))
    target.write_text(text, encoding="utf-8")
    return target
