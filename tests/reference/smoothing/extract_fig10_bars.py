"""Recover the bar heights of the published SC'18 Fig. 10 from its vector PDF.

Source: glennklockwood/papers-yearinlife, ``figs/contributors-bad-by-system-grey.pdf``
(commit 45a0a4e75f40ac34bad70af76aaf602b8249b139, the figure included by ``results.tex`` as
Fig. 10, ``\\label{fig:contributors-bad-by-system}``).

Usage::

    git -C papers-yearinlife show HEAD:figs/contributors-bad-by-system-grey.pdf > fig10.pdf
    python extract_fig10_bars.py fig10.pdf > sc18_figure10_bars.json

The PDF was written by matplotlib; its page content stream draws each stacked bar segment as
a closed path ``x y m / x y l / x y l / x y l / h``. The y axis maps 0.0 to y = 116.187987 and
0.1 to y = 159.675987 (the tick labels' positions), i.e. 434.88 points per unit. Bars are
grouped by x position in the order of the x tick labels, segments bottom-up in the order of
the legend (the platforms sorted by name, as pandas' pivot_table sorts its columns).
"""

from __future__ import annotations

import json
import re
import sys
import zlib

Y0 = 116.187987
SCALE = 434.88
LABELS = ["contention_ops", "contention_bw", "contention_opens", "contention_stats",
          "fs_ave_oss_cpu", "fs_ave_mds_cpu", "fshealth_ost_most_full_pct",
          "topology_job_max_radius"]
PLATFORMS = ["cscratch@cori-knl", "mira-fs1@mira", "scratch1@edison", "scratch2@edison",
             "scratch3@edison"]
PATH = re.compile(r"([\d.]+) ([\d.]+) m\n([\d.]+) ([\d.]+) l\n([\d.]+) ([\d.]+) l\n"
                  r"([\d.]+) ([\d.]+) l\nh")


def main(path: str) -> None:
    data = open(path, "rb").read()
    segments: dict[float, list[tuple[float, float]]] = {}
    for match in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            text = zlib.decompress(match.group(1)).decode("latin1")
        except zlib.error:
            continue
        if "Tj" not in text:
            continue
        for m in PATH.finditer(text):
            xs = [float(m.group(i)) for i in (1, 3, 5, 7)]
            ys = [float(m.group(i)) for i in (2, 4, 6, 8)]
            width = max(xs) - min(xs)
            if abs(width - 47.83) < 0.01:  # bar segments (legend patches are narrower)
                bottom = (min(ys) - Y0) / SCALE
                height = (max(ys) - min(ys)) / SCALE
                segments.setdefault(round(min(xs), 2), []).append((bottom, height))
    bars = {}
    for label, x in zip(LABELS, sorted(segments), strict=True):
        stack = segments[x]  # one segment per platform, bottom-up
        bars[label] = {p: round(h, 4) for p, (_, h) in zip(PLATFORMS, stack, strict=True)}
    json.dump({"source": "glennklockwood/papers-yearinlife@45a0a4e "
                         "figs/contributors-bad-by-system-grey.pdf",
               "metric_order": LABELS, "fractions": bars}, sys.stdout, indent=2)


if __name__ == "__main__":
    main(sys.argv[1])
