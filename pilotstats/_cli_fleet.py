"""Subcommands ``pilotstats fleet`` and ``pilotstats warmup`` (hooked into :mod:`pilotstats.cli`).

``fleet`` analyses every series of an asv results folder or a long CSV/Parquet table and
prints the CSIT trending dashboard (worst regression first); exit status 1 when any series
has a new regression. ``warmup`` compiles every numba kernel into the on-disk cache.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["add_commands"]


def add_commands(commands: Any) -> None:
    """Register ``fleet`` and ``warmup`` on the subparsers of the main parser."""
    fleet = commands.add_parser(
        "fleet", help="trends of many series (asv results folder, long CSV/Parquet table); "
        "exit status 1 on a new regression")
    fleet.add_argument("source", metavar="SOURCE",
                       help="asv results folder, or a long .csv/.tsv/.parquet table")
    fleet.add_argument("--by", nargs="+", default=None, metavar="COL",
                       help="series-key column(s) (asv: machine env benchmark)")
    fleet.add_argument("--order", default=None, metavar="COL",
                       help="order column: time, commit index or run (asv: date)")
    fleet.add_argument("--value", default=None, metavar="COL",
                       help="value column (asv: value, the median)")
    fleet.add_argument("--method", choices=("trend", "detect"), default="trend",
                       help="MDL trend groups (CSIT, default) or guarded change points")
    fleet.add_argument("--higher-is-better", action="store_true",
                       help="values are throughputs (default: times, lower is better)")
    fleet.add_argument("--workers", type=int, default=None, metavar="N",
                       help="threads (default: the available cores; 1 = serial)")
    fleet.add_argument("--short-window", type=int, default=10, metavar="S",
                       help="CSIT short window in runs (default 10)")
    fleet.add_argument("--long-window", type=int, default=180, metavar="L",
                       help="CSIT long window in runs (default 180)")
    fleet.add_argument("--min-size", type=int, default=None, metavar="N",
                       help="--method detect: minimum segment length in observations "
                            "(default 30)")
    fleet.add_argument("--html", default=None, metavar="FILE",
                       help="also write the static HTML report (one trend plot per series)")
    fleet.add_argument("--parquet", default=None, metavar="FILE",
                       help="also write the per-series results as Parquet (needs pyarrow)")
    fleet.add_argument("--json", action="store_true", help="print JSON instead of a table")
    fleet.add_argument("--no-progress", action="store_true", help="no progress bar")
    fleet.set_defaults(fleet_handler=run_fleet)

    warmup = commands.add_parser(
        "warmup", help="compile every numba kernel into the on-disk cache (for images and CI)")
    warmup.add_argument("--json", action="store_true", help="print JSON instead of text")
    warmup.set_defaults(fleet_handler=run_warmup)


def run_fleet(args: argparse.Namespace) -> int:
    """``pilotstats fleet``: print the dashboard; 1 when any series has a new regression."""
    from pathlib import Path

    from pilotstats.analysis import fleet_report, write_parquet

    options: dict[str, Any] = {}
    if args.min_size is not None:
        if args.method != "detect":
            raise SystemExit("pilotstats: --min-size applies to --method detect only")
        options["min_size"] = args.min_size
    source = Path(args.source)
    unit = "s" if source.is_dir() and not args.higher_is_better else None
    progress = False if args.no_progress or not sys.stderr.isatty() else None
    table, defaults, order_note = _asv_table(source)
    report = fleet_report(table, by=args.by or defaults.get("by"),
                          order=args.order or defaults.get("order"),
                          value=args.value or defaults.get("value"),
                          method=args.method, workers=args.workers,
                          higher_is_better=args.higher_is_better,
                          short_window=args.short_window, long_window=args.long_window,
                          unit=unit, progress=progress, **options)
    if args.html:
        report.write_html(args.html, command_line=getattr(args, "command_line", None))
    if args.parquet:
        write_parquet(report.results, args.parquet)
    if args.json:
        extra = {} if order_note is None else {"commit_order": order_note}
        print(json.dumps({"command": "fleet", "source": args.source, **extra,
                          **report.to_dict()}, indent=2, allow_nan=False))
    else:
        print(report if order_note is None else f"{report}\norder: {order_note}")
    return 1 if report.new_regressions else 0


def _asv_table(source: Any) -> tuple[Any, dict[str, Any], str | None]:
    """An asv folder (project, results root or machine folder) read as one table, with
    the fleet's defaults and how equal commit dates were ordered; other sources as given."""
    from pathlib import Path

    if not Path(source).is_dir():
        return source, {}, None
    from pilotstats.io import load_asv_history

    table = load_asv_history(source)
    return (table, {"by": ["machine", "env", "benchmark"], "order": "date", "value": "value"},
            str(table.attrs.get("commit_order", "")) or None)


def run_warmup(args: argparse.Namespace) -> int:
    """``pilotstats warmup``: compile the kernels, print each entry point's time."""
    from pilotstats._compile import compile_kernels

    report = compile_kernels()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, allow_nan=False))
    else:
        print(report)
    return 0
