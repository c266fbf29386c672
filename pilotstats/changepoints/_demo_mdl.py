"""Demonstration of the MDL trend analysis on an embedded sample (``demo_mdl``)."""

from __future__ import annotations

from pilotstats.changepoints._compliance import trend_compliance
from pilotstats.changepoints._mdl import mdl_partition
from pilotstats.results import format_number

__all__ = ["DEMO_THROUGHPUT", "demo_mdl"]

#: 60 daily throughput results in Mpps (synthetic, CSIT-like): a stable trend with one
#: failed-looking dip at run 20, a regression at run 30 and a progression at run 45.
DEMO_THROUGHPUT: tuple[float, ...] = (
    12.52, 12.42, 12.56, 12.58, 12.34, 12.40, 12.51, 12.47, 12.50, 12.43,
    12.57, 12.56, 12.51, 12.59, 12.54, 12.43, 12.53, 12.42, 12.57, 12.50,
    11.60, 12.45, 12.60, 12.49, 12.47, 12.47, 12.54, 12.53, 12.53, 12.53,
    12.17, 11.97, 11.96, 11.93, 12.05, 12.09, 11.99, 11.93, 11.93, 12.05,
    12.06, 12.04, 11.95, 12.02, 12.01, 12.92, 12.97, 12.92, 12.95, 12.91,
    12.92, 12.95, 12.78, 12.87, 12.86, 12.85, 12.88, 13.02, 12.83, 12.98,
)  # fmt: skip


def demo_mdl() -> str:
    """Return a short report of the MDL trend analysis of :data:`DEMO_THROUGHPUT`.

    Returns
    -------
    str
        Groups with their labels, and the CSIT compliance metrics.

    Examples
    --------
    >>> from pilotstats.changepoints._demo_mdl import demo_mdl
    >>> print(demo_mdl().splitlines()[0])
    MDL trend analysis (jumpavg model) of 60 throughput runs [Mpps]:
    """
    groups = mdl_partition(DEMO_THROUGHPUT)
    lines = [f"MDL trend analysis (jumpavg model) of {groups.n_runs} throughput runs [Mpps]:"]
    for group in groups.groups:
        lines.append(
            f"  runs {group.start:>2}-{group.end - 1:<2} mean {format_number(group.mean, 5):>6} "
            f"std {format_number(group.std, 2):>5}  {group.classification}"
        )
    compliance = trend_compliance(groups, short_window=10, long_window=180)
    lines.append(
        f"  boundaries {groups.boundaries.tolist()}, {format_number(groups.total_bits, 6)} "
        f"bits (resolution {format_number(groups.resolution, 3)} Mpps)"
    )
    lines.append(f"  compliance: {compliance}")
    return "\n".join(lines)
