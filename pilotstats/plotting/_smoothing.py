"""Renderers of the smoothing results; matplotlib and pandas are imported lazily.

Every function draws on an existing Axes when given one and returns what it drew on.
:meth:`Regions.plot <pilotstats.smoothing.Regions.plot>` and
:meth:`DivergenceAnalysis.plot <pilotstats.smoothing.DivergenceAnalysis.plot>` reach them
through :func:`pilotstats.results.draw` and the ``kind`` they are given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pilotstats._validation import check_choice
from pilotstats.exceptions import InvalidInputError
from pilotstats.plotting._common import new_axes, pyplot
from pilotstats.results import plot_doc, renders

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from pilotstats.smoothing import DivergenceAnalysis, Regions

__all__ = [
    "UMAMI_COLOURS",
    "plot_contributor_ranking",
    "plot_flag_heatmap",
    "plot_sma_difference",
    "plot_timeline",
    "plot_umami",
    "umami_colour",
]

#: Quartile colours of the UMAMI panel, lowest to highest bucket (NERSC/pytokio ``umami.py``).
UMAMI_COLOURS: tuple[str, str, str, str] = ("#DA0017", "#FD6A07", "#40A43A", "#2C69A9")

_GREY = "#CCCCCC"


def _to_datetimes(seconds: Any) -> pd.DatetimeIndex:
    import pandas as pd

    return pd.DatetimeIndex(pd.to_datetime(np.asarray(seconds, dtype=float), unit="s", utc=True))


def umami_colour(value: float, others: Any, higher_is_better: bool = True) -> str:
    """Colour of a highlighted UMAMI value from its quartile among the other values.

    The bucket is the first of the 25th/50th/75th/100th percentiles of ``others`` (NaN
    ignored) that is >= ``value``: a tie goes to the lower bucket and a value above the
    maximum to the top one. Buckets run red, orange, green, blue from low to high; the order
    is reversed for higher-is-worse metrics, so the worst quartile is always red (as
    in NERSC/pytokio ``tokio/analysis/umami.py``).
    """
    data = np.asarray(others, dtype=float)
    data = data[~np.isnan(data)]
    if data.size == 0 or np.isnan(value):
        return _GREY
    cuts = np.percentile(data, [25, 50, 75, 100])
    bucket = 3
    for i, cut in enumerate(cuts):
        if cut >= value:
            bucket = i
            break
    colours = UMAMI_COLOURS if higher_is_better else UMAMI_COLOURS[::-1]
    return colours[bucket]


def _analysis_group(analysis: Any, group: Any) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    sma = analysis.sma
    labels = list(dict.fromkeys(sma["group"]))
    if group is None:
        if len(labels) != 1:
            raise InvalidInputError(
                f"the analysis has {len(labels)} groups; pass group= one of "
                f"{', '.join(map(repr, labels[:5]))}{', ...' if len(labels) > 5 else ''}"
            )
        group = labels[0]
    if isinstance(group, tuple):
        group = " / ".join(str(g) for g in group)
    if group not in labels:
        raise InvalidInputError(f"group {group!r} is not in the analysis")
    return (
        sma[sma["group"] == group],
        analysis.regions[analysis.regions["group"] == group],
        str(group),
    )


@plot_doc
def plot_timeline(
    result: Any,
    *,
    group: Any = None,
    ax: Any = None,
    min_region_duration: Any = None,
    shade_regions: bool = True,
    mark_jobs: bool = True,
    ylabel: str | None = None,
) -> Any:
    """Timeline of raw values, both SMAs, crossovers, shaded regions and jobs of interest.

    Parameters
    ----------
    result : Regions or DivergenceAnalysis
        Output of :func:`divergence_regions` or :func:`analyze_regions`.
    group : str or tuple, optional
        Group to draw from a multi-group analysis (its ``group`` label or key tuple).
    {ax}
    min_region_duration : duration, optional
        Draw crossover lines and shading only around regions at least this long (e.g.
        ``"30D"``, as the paper's single-panel Fig. 5 did).
    shade_regions, mark_jobs : bool, default True
        Shade regions alternately; mark each region's job of interest.
    ylabel : str, optional
        Label of the y axis (default: the analysis target, or ``"value"`` for Regions).

    {returns}

    Notes
    -----
    Complexity: O(n), plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from pilotstats.smoothing import divergence_regions
    >>> days = np.arange(60) * 86400.0
    >>> y = np.where((days > 20 * 86400) & (days < 40 * 86400), 0.5, 1.0)
    >>> ax = plot_timeline(divergence_regions(days, y, short="6D", long="24D"), ylabel="perf")
    >>> ax.get_ylabel()
    'perf'
    """
    from pilotstats.smoothing._time import parse_window

    data = _timeline_data(result, group)
    table = data["table"]
    ax = new_axes(ax, figsize=(10, 4))
    when = _to_datetimes(data["times"])
    ax.plot(when, data["y"], ".", color="0.55", markersize=3, label="observations")
    ax.plot(when, data["short"], "-", color="C0", linewidth=1.5,
            label=f"SMA {data['short_label']}")
    long_label = data["long_label"]
    long_name = "global mean" if long_label == "inf" else f"SMA {long_label}"
    ax.plot(when, data["long"], "-", color="C1", linewidth=1.5, label=long_name)
    minimum = parse_window(min_region_duration, "min_region_duration")
    durations = table["next_crossover_t"].to_numpy(dtype=float) - table["start_t"].to_numpy(
        dtype=float
    )
    chosen = np.ones(len(table), dtype=bool) if minimum is None else durations >= minimum
    shown = table[chosen]
    _mark_regions(ax, shown, shade_regions)
    title = data["title"]
    if mark_jobs and len(shown):
        jobs = shown[shown["job_position"] >= 0]
        ax.plot(_to_datetimes(jobs["job_t"].to_numpy(dtype=float)),
                jobs["job_y"].to_numpy(dtype=float), "x", color="#DA0017", markersize=6,
                label="job of interest")
    ax.set_xlabel("time (UTC)")
    ax.set_ylabel(ylabel or data["default_ylabel"])
    regions_text = f"{len(shown)} divergence region{'s' if len(shown) != 1 else ''}"
    ax.set_title(f"{title}: {regions_text}" if title else regions_text, fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    return ax


def _mark_regions(ax: Any, shown: pd.DataFrame, shade: bool) -> None:
    """Dotted lines at both ends of each region, shaded alternately when ``shade``."""
    for i, (_, region) in enumerate(shown.iterrows()):
        start = _to_datetimes([region["start_t"]])[0]
        stop = _to_datetimes([region["next_crossover_t"]])[0]
        if shade:
            ax.axvspan(start, stop, color="C2" if i % 2 == 0 else "C4", alpha=0.08, linewidth=0)
        ax.axvline(start, color="0.3", linestyle=":", linewidth=0.8)
        ax.axvline(stop, color="0.3", linestyle=":", linewidth=0.8)


def _timeline_data(result: Any, group: Any) -> dict[str, Any]:
    """Times, values, both SMAs, the region table and the labels of one timeline."""
    from pilotstats.smoothing import Regions
    from pilotstats.smoothing._time import window_label

    if isinstance(result, Regions):
        return {"times": np.asarray(result.times), "y": np.asarray(result.values),
                "short": np.asarray(result.sma_short), "long": np.asarray(result.sma_long),
                "table": result.to_frame(), "short_label": window_label(result.short_period),
                "long_label": window_label(result.long_period), "title": None,
                "default_ylabel": "value"}
    if hasattr(result, "sma") and hasattr(result, "regions"):
        rows, table, title = _analysis_group(result, group)
        return {"times": rows["t"].to_numpy(dtype=float), "y": rows["y"].to_numpy(dtype=float),
                "short": rows["sma_short"].to_numpy(dtype=float),
                "long": rows["sma_long"].to_numpy(dtype=float), "table": table,
                "short_label": str(result.settings["short"]),
                "long_label": str(result.settings["long"]), "title": title,
                "default_ylabel": str(getattr(result, "target", "value"))}
    raise InvalidInputError(
        "result must be a Regions or DivergenceAnalysis, got " + type(result).__name__
    )


def plot_umami(
    frame: pd.DataFrame,
    regions: Regions,
    region_id: int,
    *,
    target: str,
    metrics: Sequence[str] | None = None,
    metrics_higher_is_better: Mapping[str, bool] | str | None = None,
    labels: Mapping[str, str] | None = None,
    figure: Any = None,
) -> Any:
    """UMAMI panel of one region: per metric a time series and a box plot.

    After NERSC/pytokio ``Umami.plot``: one row per metric (the target first); left the
    region's values over time, right a box plot of the other values (whiskers at the 5th and
    95th percentiles); the job of interest is a star coloured by its quartile among them
    (:func:`umami_colour`; pytokio excluded the *last* value instead).

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows the regions were computed from, in the same order.
    regions : Regions
        Output of :func:`divergence_regions`.
    region_id : int
        Region to draw.
    target : str
        Target column (drawn in the first row).
    metrics : sequence of str, optional
        Metric columns (default: every numeric column but the target).
    metrics_higher_is_better : mapping, "tokio" or None
        Direction of each metric (colour order); the direction of the target is
        ``regions.higher_is_better``.
    labels : mapping, optional
        Display names of the columns.
    figure : matplotlib Figure, optional
        Figure to draw into (default: a new one).

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes, shape (n_metrics + 1, 2)

    Notes
    -----
    Complexity: O(n·M) for n rows and M metrics, plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import divergence_regions
    >>> t = np.arange(40) * 86400.0  # 40 daily probes
    >>> perf = np.where((t >= 15 * 86400) & (t < 25 * 86400), 0.6, 1.0)
    >>> perf[20] = 0.3  # the worst job of the slow region ...
    >>> load = np.ones(40); load[20] = 5.0  # ... ran under the highest load
    >>> frame = pd.DataFrame({"perf": perf, "load": load})
    >>> regions = divergence_regions(t, perf, short="4D", long="16D")
    >>> axes = plot_umami(frame, regions, 1, target="perf")
    >>> axes.shape, [ax.get_ylabel() for ax in axes[:, 0]]
    ((2, 2), ['perf', 'load'])
    """
    plt = pyplot()
    columns, directions = _umami_columns(frame, regions, region_id, target, metrics,
                                         metrics_higher_is_better)
    start, stop = int(regions.starts[region_id]), int(regions.stops[region_id])
    job = int(regions.job_positions[region_id]) - start
    when = _to_datetimes(np.asarray(regions.times)[start:stop])
    figure = figure if figure is not None else plt.figure(figsize=(8, 1.6 * len(columns)))
    grid = figure.add_gridspec(len(columns), 2, width_ratios=(4, 1), hspace=0.35, wspace=0.05)
    axes = np.empty((len(columns), 2), dtype=object)
    for row, column in enumerate(columns):
        left = figure.add_subplot(grid[row, 0], sharex=axes[0, 0] if row else None)
        right = figure.add_subplot(grid[row, 1], sharey=left)
        axes[row, 0], axes[row, 1] = left, right
        values = frame[column].to_numpy(dtype=float, na_value=np.nan)[start:stop]
        _umami_row(left, right, when, values, job, directions.get(column, True),
                   (labels or {}).get(column, column), row == len(columns) - 1)
    figure.autofmt_xdate()
    return axes


def _umami_columns(frame: Any, regions: Any, region_id: int, target: str, metrics: Any,
                   higher_is_better: Any) -> tuple[list[str], dict[str, bool]]:
    """Check the inputs of :func:`plot_umami`; its columns (target first) and directions."""
    import pandas as pd

    from pilotstats.smoothing import Regions
    from pilotstats.smoothing._contributors import resolve_directions, resolve_metrics

    if not isinstance(regions, Regions):
        raise InvalidInputError("regions must be the Regions result of divergence_regions")
    if not isinstance(frame, pd.DataFrame) or len(frame) != regions.n:
        raise InvalidInputError("frame must be the DataFrame of the rows the regions came from")
    if not 0 <= int(region_id) < len(regions):
        raise InvalidInputError(
            f"region_id must lie in [0, {len(regions) - 1}], got {region_id!r}"
        )
    if target not in frame.columns:
        raise InvalidInputError(f"target {target!r} is not a column of frame")
    directions = resolve_directions(higher_is_better)
    directions[target] = regions.higher_is_better
    return [target, *resolve_metrics(frame, metrics, target)], directions


def _umami_row(left: Any, right: Any, when: Any, values: np.ndarray, job: int,
               higher_is_better: bool, label: str, last: bool) -> None:
    """One UMAMI row: the series (left) and the box plot of the other values (right), the
    job of interest coloured by its quartile among them."""
    left.plot(when, values, "-x", color="0.35", linewidth=1.0, markersize=4)
    others = np.delete(values, job) if job >= 0 else values
    others = others[~np.isnan(others)]
    if others.size:
        right.boxplot(others, whis=(5, 95), widths=0.6, showfliers=False)
    if job >= 0 and not np.isnan(values[job]):
        colour = umami_colour(values[job], others, higher_is_better)
        left.plot(when[job], values[job], "*", color=colour, markersize=14, zorder=5)
        if job > 0:
            left.plot(when[job - 1 : job + 1], values[job - 1 : job + 1], "-", color=colour,
                      linewidth=3.0, zorder=4)
        right.axhline(values[job], color=colour, linestyle="--", linewidth=1.5)
    left.set_ylabel(label, rotation=0, ha="right", fontsize="small")
    left.grid(True, alpha=0.3)
    right.tick_params(labelleft=False, labelbottom=False)
    if not last:
        left.tick_params(labelbottom=False)


@plot_doc
def plot_contributor_ranking(
    summary: Any,
    *,
    ax: Any = None,
    metric_labels: Mapping[str, str] | None = None,
    platform_labels: Mapping[str, str] | None = None,
    significant_only: bool = False,
) -> Any:
    """Stacked bars of the metric ranking per platform; insignificant metrics grey (Fig. 10).

    Parameters
    ----------
    summary : pandas.DataFrame, Contributors or DivergenceAnalysis
        The ranking of :meth:`Contributors.summary` (or an object holding it).
    {ax}
    metric_labels, platform_labels : mapping, optional
        Display names.
    significant_only : bool, default False
        Draw only metrics whose binomial test is significant.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Complexity: O(rows of the summary), plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import RegionOptions, analyze_regions
    >>> rng = np.random.default_rng(0)
    >>> t = pd.date_range("2024-01-01", periods=120, freq="D")
    >>> load = rng.uniform(0, 1, 120)
    >>> perf = 1.0 - 0.3 * load + 0.2 * (t >= "2024-03-01") + rng.normal(0, 0.02, 120)
    >>> frame = pd.DataFrame({"time": t, "perf": perf, "load": load})
    >>> result = analyze_regions(frame, time="time", target="perf",
    ...                          options=RegionOptions(short="7D", long="28D"),
    ...                          metrics_higher_is_better={"load": False})
    >>> ax = plot_contributor_ranking(result)  # one bar per metric
    >>> ax.get_ylabel(), [label.get_text() for label in ax.get_xticklabels()]
    ('fraction of significant records flagged', ['load'])
    """
    table = _ranking_table(summary)
    if significant_only:
        table = table[table["significant"]]
    fractions = [c for c in table.columns if str(c).startswith("fraction:")]
    ax = new_axes(ax, figsize=(8, 4))
    x = np.arange(len(table))
    bottom = np.zeros(len(table))
    significant = table["significant"].to_numpy(dtype=bool)
    for i, column in enumerate(fractions):
        heights = table[column].to_numpy(dtype=float)
        platform = str(column)[len("fraction:"):]
        colours = [f"C{i % 10}" if s else _GREY for s in significant]
        ax.bar(x, heights, bottom=bottom, width=0.9, color=colours,
               label=(platform_labels or {}).get(platform, platform))
        bottom += heights
    for xi, total in zip(x, table["total"].to_numpy(dtype=float), strict=True):
        ax.annotate(f"{100 * total:.0f}%", xy=(xi, total + 0.01), ha="center", fontsize="small")
    names = [(metric_labels or {}).get(m, m) for m in table["metric"]]
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_xlabel("metric")
    ax.set_ylabel("fraction of significant records flagged")
    ax.set_title(f"contributor ranking of {len(table)} metrics (grey: binomial test not "
                 "significant)", fontsize="medium")
    ax.set_ylim(0, max(0.05, float(bottom.max(initial=0.0)) * 1.25))
    if fractions:
        ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return ax


def _ranking_table(summary: Any) -> pd.DataFrame:
    """The ranking DataFrame of ``summary`` (a DataFrame, Contributors or analysis)."""
    import pandas as pd

    if hasattr(summary, "summary") and callable(summary.summary):
        table = summary.summary()
    elif hasattr(summary, "summary") and isinstance(summary.summary, pd.DataFrame):
        table = summary.summary
    elif isinstance(summary, pd.DataFrame):
        table = summary
    else:
        raise InvalidInputError(
            "summary must be a ranking DataFrame, a Contributors or a DivergenceAnalysis"
        )
    required = {"metric", "total", "significant"}
    if not required.issubset(table.columns):
        raise InvalidInputError(f"summary must have the columns {sorted(required)}")
    return table


@plot_doc
def plot_sma_difference(result: Any, *, group: Any = None, ax: Any = None) -> Any:
    """SMA_short - SMA_long over time, with crossovers marked.

    Parameters
    ----------
    result : Regions or DivergenceAnalysis
        Output of :func:`divergence_regions` or :func:`analyze_regions`.
    group : str or tuple, optional
        Group of a multi-group analysis.
    {ax}

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Complexity: O(n), plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from pilotstats.smoothing import divergence_regions
    >>> days = np.arange(60) * 86400.0
    >>> y = np.where((days > 20 * 86400) & (days < 40 * 86400), 0.5, 1.0)
    >>> ax = plot_sma_difference(divergence_regions(days, y, short="6D", long="24D"))
    >>> ax.get_ylabel()
    'SMA short - SMA long'
    """
    from pilotstats.smoothing import Regions

    if isinstance(result, Regions):
        times = np.asarray(result.times)
        diff = np.asarray(result.sma_short) - np.asarray(result.sma_long)
        positions = np.asarray(result.crossovers.positions)
    elif hasattr(result, "sma") and hasattr(result, "regions"):
        rows, _, label = _analysis_group(result, group)
        times = rows["t"].to_numpy(dtype=float)
        diff = rows["diff"].to_numpy(dtype=float)
        cross = result.crossovers
        positions = (cross.loc[cross["group"] == label, "position"].to_numpy(dtype=np.int64)
                     if "group" in cross.columns else np.zeros(0, dtype=np.int64))
    else:
        raise InvalidInputError(
            "result must be a Regions or DivergenceAnalysis, got " + type(result).__name__
        )
    ax = new_axes(ax, figsize=(10, 3))
    when = _to_datetimes(times)
    ax.plot(when, diff, "-", color="C0", linewidth=1.2)
    ax.fill_between(when, diff, 0.0, where=diff > 0, color="C2", alpha=0.3, linewidth=0)
    ax.fill_between(when, diff, 0.0, where=diff <= 0, color="C3", alpha=0.3, linewidth=0)
    ax.axhline(0.0, color="0.3", linewidth=0.8)
    if positions.size:
        ax.plot(when[positions], diff[positions], "|", color="0.2", markersize=10)
    ax.set_xlabel("time (UTC)")
    ax.set_ylabel("SMA short - SMA long")
    count = int(positions.size)
    ax.set_title(f"SMA difference: {count} crossover{'s' if count != 1 else ''}",
                 fontsize="medium")
    return ax


@plot_doc
def plot_flag_heatmap(records: Any, *, ax: Any = None, significant_only: bool = True) -> Any:
    """Region × metric heatmap of flagged contributor records.

    Cells are 1 where the metric was flagged at the region's job of interest, 0 where it
    was not, and blank where there is no (significant) record.

    Parameters
    ----------
    records : pandas.DataFrame, Contributors or DivergenceAnalysis
        Contributor records (``group``, ``region_id``, ``metric``, ``flagged``,
        ``significant``).
    {ax}
    significant_only : bool, default True
        Show only records with ``p_value < significance_level``.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Complexity: O(records), plus matplotlib's rendering.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import RegionOptions, analyze_regions
    >>> rng = np.random.default_rng(0)
    >>> t = pd.date_range("2024-01-01", periods=120, freq="D")
    >>> load = rng.uniform(0, 1, 120)
    >>> perf = 1.0 - 0.3 * load + 0.2 * (t >= "2024-03-01") + rng.normal(0, 0.02, 120)
    >>> frame = pd.DataFrame({"time": t, "perf": perf, "load": load})
    >>> result = analyze_regions(frame, time="time", target="perf",
    ...                          options=RegionOptions(short="7D", long="28D"),
    ...                          metrics_higher_is_better={"load": False})
    >>> ax = plot_flag_heatmap(result)  # metrics x jobs of interest
    >>> ax.get_xlabel(), [label.get_text() for label in ax.get_yticklabels()]
    ('region (2 jobs of interest)', ['load'])
    """
    import pandas as pd

    if hasattr(records, "records") and isinstance(records.records, pd.DataFrame):
        table = records.records
    elif hasattr(records, "contributors") and isinstance(records.contributors, pd.DataFrame):
        table = records.contributors
    elif isinstance(records, pd.DataFrame):
        table = records
    else:
        raise InvalidInputError(
            "records must be a records DataFrame, a Contributors or a DivergenceAnalysis"
        )
    if significant_only:
        table = table[table["significant"]]
    grid = table.assign(flag=table["flagged"].astype(float)).pivot_table(
        index=["group", "region_id"], columns="metric", values="flag", aggfunc="max"
    )
    ax = new_axes(ax, figsize=(6, 6))
    ax.imshow(grid.to_numpy(dtype=float).T, aspect="auto", interpolation="nearest",
              cmap="Reds", vmin=0.0, vmax=1.0)
    ax.set_yticks(np.arange(len(grid.columns)))
    ax.set_yticklabels(list(grid.columns), fontsize="small")
    ax.set_xlabel(f"region ({len(grid)} jobs of interest)")
    ax.set_ylabel("metric")
    ax.set_title("flagged contributors at the jobs of interest", fontsize="medium")
    return ax


@renders("pilotstats.smoothing.Regions")
def _draw_regions(result: Regions, *, kind: str = "timeline", ax: Any = None,
                  **options: Any) -> Any:
    """:meth:`Regions.plot <pilotstats.smoothing.Regions.plot>`: the figure ``kind``."""
    chosen = check_choice(kind, "kind", ("timeline", "sma_difference"))
    if chosen == "timeline":
        return plot_timeline(result, ax=ax, **options)
    return plot_sma_difference(result, ax=ax, **options)


@renders("pilotstats.smoothing.DivergenceAnalysis")
def _draw_analysis(result: DivergenceAnalysis, *, kind: str = "timeline", group: Any = None,
                   ax: Any = None, **options: Any) -> Any:
    """:meth:`DivergenceAnalysis.plot <pilotstats.smoothing.DivergenceAnalysis.plot>`."""
    chosen = check_choice(kind, "kind", ("timeline", "sma_difference", "ranking", "heatmap"))
    if chosen == "timeline":
        return plot_timeline(result, group=group, ax=ax, **options)
    if chosen == "sma_difference":
        return plot_sma_difference(result, group=group, ax=ax, **options)
    if chosen == "ranking":
        return plot_contributor_ranking(result, ax=ax, **options)
    return plot_flag_heatmap(result, ax=ax, **options)
