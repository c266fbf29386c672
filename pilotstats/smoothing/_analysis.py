"""The frame-level divergence pipeline :func:`analyze_regions`."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pilotstats._typing import ContributorClassifier, SmoothingPreset
from pilotstats._validation import check_choice, check_int, check_probability, check_tz
from pilotstats.exceptions import EmptyGroupError, InvalidInputError, TargetNotExtremeWarning
from pilotstats.results import Result, json_safe
from pilotstats.smoothing._contributors import (
    Contributors,
    check_target_extreme,
    classify_rows,
    finish_records,
    region_correlations,
    resolve_directions,
    resolve_metrics,
)
from pilotstats.smoothing._presets import PRESETS
from pilotstats.smoothing._ranking import ranking, target_aliases
from pilotstats.smoothing._regions import _build_regions, check_windows
from pilotstats.smoothing._time import (
    as_utc_seconds,
    local_midnight_utc_seconds,
    parse_window,
    to_wallclock_seconds,
    window_label,
)

__all__ = ["DivergenceAnalysis", "analyze_regions"]


class _Unset:
    """Marker of an argument left at its default (so a preset may set it)."""

    def __repr__(self) -> str:
        return "<default>"


_UNSET: Any = _Unset()

#: Defaults without a preset: the published method's parameters (``sc18-final``), but no
#: TOKIO-specific metric list or metric directions.
_DEFAULTS: dict[str, Any] = {
    **PRESETS["sc18-final"],
    "metrics_higher_is_better": None,
    "metrics": None,
}


def _records_frame(frame: pd.DataFrame) -> list[dict[str, Any]]:
    data = frame.drop(
        columns=[c for c in frame.columns if pd.api.types.is_datetime64_any_dtype(frame[c])]
    )
    records: list[dict[str, Any]] = json_safe(data.to_dict(orient="records"))
    return records


@dataclasses.dataclass(frozen=True, slots=True)
class DivergenceAnalysis(Result):
    """Tidy tables of the divergence-region analysis.

    Times are UTC epoch seconds in every ``*t`` column.

    Attributes
    ----------
    sma : pandas.DataFrame
        Per row: group columns, ``group``, ``row`` (index label in the input frame), ``t``,
        ``y``, ``sma_short``, ``sma_long``, ``diff`` and ``above``.
    crossovers : pandas.DataFrame
        Per crossover: group, ``position`` (row within the group), ``t``, ``direction``,
        ``sma_short``, ``sma_long``.
    regions : pandas.DataFrame
        Per region: group, ``region_id``, ``start_t`` (first row), ``end_t`` (last row),
        ``next_crossover_t``, ``n_rows``, ``side``, ``mean_y``, and the job of interest
        ``job_row`` (input index label), ``job_position``, ``job_t``, ``job_y``.
    contributors : pandas.DataFrame
        Per (region, metric) records, see :class:`Contributors`.
    summary : pandas.DataFrame
        The metric ranking of :meth:`Contributors.summary`.
    correlations : pandas.DataFrame or None
        Per-region Pearson correlations when requested.
    counts : dict
        Headline counts (``regions``, ``anomalous_observations``, ``flagged_significant``,
        ``flagged_any``, ...) and rows dropped at each cleaning step.
    settings : dict
        The resolved parameters.

    Examples
    --------
    Returned by :func:`analyze_regions`:

    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import analyze_regions
    >>> rng = np.random.default_rng(0)
    >>> t = pd.date_range("2024-01-01", periods=120, freq="D")
    >>> load = rng.uniform(0, 1, 120)
    >>> perf = 1.0 - 0.3 * load + 0.2 * (t >= "2024-03-01") + rng.normal(0, 0.02, 120)
    >>> frame = pd.DataFrame({"time": t, "perf": perf, "load": load})
    >>> result = analyze_regions(frame, time="time", target="perf", short="7D",
    ...                          long="28D", metrics_higher_is_better={"load": False})
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    24 divergence regions in 1 groups (7D vs 28D SMA, 120 observations);
    2 anomalous observations with p < 0.1
    >>> result.counts["regions"], result.counts["significant_records"]
    (24, 2)
    """

    sma: pd.DataFrame
    crossovers: pd.DataFrame
    regions: pd.DataFrame
    contributors: pd.DataFrame
    summary: pd.DataFrame
    correlations: pd.DataFrame | None
    counts: dict[str, int]
    settings: dict[str, Any]
    target: str
    group_by: tuple[str, ...]

    def contributor_result(self) -> Contributors:
        """The contributor records as a :class:`Contributors` result."""
        s = self.settings
        return Contributors(
            records=self.contributors,
            target=self.target,
            classifier=str(s["classifier"]),
            quantile=float(s["quantile"]),
            significance_level=float(s["significance_level"]),
            metrics=tuple(s["metrics"]),
            excluded_aliases=tuple(s.get("excluded_aliases", ())),
        )

    def ranking(
        self, *, binomial_p0: Any = "max_flagged", multiple_testing: str = "holm"
    ) -> pd.DataFrame:
        """Recompute :attr:`summary` with another binomial null probability or correction
        (see :meth:`Contributors.summary`)."""
        return ranking(
            self.contributors, float(self.settings["significance_level"]), binomial_p0,
            multiple_testing,
        )

    def __str__(self) -> str:
        c = self.counts
        return (
            f"{c['regions']} divergence regions in {c['groups']} groups "
            f"({self.settings['short']} vs {self.settings['long']} SMA, "
            f"{c['rows_analysed']} observations); {c['anomalous_observations']} anomalous "
            f"observations with p < {self.settings['significance_level']:g}"
        )

    def plot(
        self, *, kind: str = "timeline", group: Any = None, ax: Any = None, **options: Any
    ) -> Any:
        """Draw the analysis (needs matplotlib); delegates to the smoothing plot functions.

        Parameters
        ----------
        kind : {"timeline", "sma_difference", "ranking", "heatmap"}, default "timeline"
            ``"timeline"`` (:func:`~pilotstats.smoothing.plot_timeline`) and
            ``"sma_difference"`` (:func:`~pilotstats.smoothing.plot_sma_difference`) draw
            one group; ``"ranking"`` the contributor ranking
            (:func:`~pilotstats.smoothing.plot_contributor_ranking`, the paper's Fig. 10);
            ``"heatmap"`` the flagged records
            (:func:`~pilotstats.smoothing.plot_flag_heatmap`).
        group : str or tuple, optional
            Group to draw (``"timeline"``, ``"sma_difference"``; needed when there are
            several).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure). ``plt.show`` is never called.
        **options
            Further keyword arguments of the chosen function.

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        InvalidInputError
            Unknown ``kind``, or ``group`` missing or unknown.
        MissingDependencyError
            matplotlib is not installed (``pip install "pilotstats[plot]"``).
        """
        from pilotstats.smoothing._plots import (
            plot_contributor_ranking,
            plot_flag_heatmap,
            plot_sma_difference,
            plot_timeline,
        )

        chosen = check_choice(kind, "kind", ("timeline", "sma_difference", "ranking", "heatmap"))
        if chosen == "timeline":
            return plot_timeline(self, group=group, ax=ax, **options)
        if chosen == "sma_difference":
            return plot_sma_difference(self, group=group, ax=ax, **options)
        if chosen == "ranking":
            return plot_contributor_ranking(self, ax=ax, **options)
        return plot_flag_heatmap(self, ax=ax, **options)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe data: every table as a list of records (times as UTC epoch s)."""
        return {
            "target": self.target,
            "group_by": list(self.group_by),
            "settings": json_safe(self.settings),
            "counts": json_safe(self.counts),
            "sma": _records_frame(self.sma),
            "crossovers": _records_frame(self.crossovers),
            "regions": _records_frame(self.regions),
            "contributors": _records_frame(self.contributors),
            "summary": _records_frame(self.summary),
            "correlations": None
            if self.correlations is None
            else _records_frame(self.correlations),
        }


def _group_label(key: tuple[Any, ...]) -> str:
    return " / ".join(str(k) for k in key) if key else "all"


def analyze_regions(
    frame: pd.DataFrame,
    *,
    time: str,
    target: str,
    group_by: str | Sequence[str] = (),
    preset: SmoothingPreset | None = None,
    metrics: Sequence[str] | None = _UNSET,
    short: Any = _UNSET,
    long: Any = _UNSET,
    classifier: ContributorClassifier = _UNSET,
    quantile: float = _UNSET,
    significance_level: float = _UNSET,
    higher_is_better: bool = True,
    metrics_higher_is_better: Mapping[str, bool] | str | None = _UNSET,
    min_observations: int = _UNSET,
    skip_constant: bool = _UNSET,
    binomial_p0: Any = "max_flagged",
    correlations: bool = False,
    correlation_p_threshold: float = _UNSET,
    min_width: Any = None,
    date_range: tuple[Any, Any] | None = None,
    date_tz: Any = "UTC",
    tz: Any = "UTC",
    wallclock_tz: Any = None,
) -> DivergenceAnalysis:
    """Run the SC'18 divergence-region and contributor pipeline on a long-format frame.

    Each group is sorted by time (stable), its NaN targets are dropped and counted, the
    short and long centred SMAs are compared, regions between crossovers are formed, each
    region's job of interest is classified against every metric, and the records are ranked.

    Parameters
    ----------
    frame : pandas.DataFrame
        Long format: one row per observation.
    time : str
        Time column: epoch seconds, ``datetime64`` or tz-aware timestamps.
    target : str
        Performance column.
    group_by : str or sequence of str, default ()
        Columns whose combinations are analysed separately (the paper: test platform and
        benchmark id, 40 groups). The first column is the *platform* of the ranking.
    preset : {"sc18-final", "sc18-draft"}, optional
        Parameter set of the SC'18 paper (final or draft). An explicit argument always overrides
        the preset.
    metrics : sequence of str, optional
        Metric columns (default: every numeric column except time, target and groups;
        the presets use the paper's nine metrics).
    short, long : str, timedelta, float or None
        Window widths (default ``"14D"`` and ``"49D"``); ``long=None`` is the global mean.
    classifier : {"minmax", "percentile"}, default "minmax"
    quantile : float, default 0.25
    significance_level : float, default 0.10
    higher_is_better : bool, default True
        Direction of the target: the job of interest is the lowest target of a region if
        True, else the highest.
    metrics_higher_is_better : mapping, "tokio" or None
        Direction of each metric; unlisted metrics are higher-is-better. Presets use
        ``"tokio"``.
    min_observations : int, default 1
        Minimum observations inside a time window: a region (the time window between two
        crossovers) with fewer observations (rows) is dropped (the draft used 7).
    skip_constant : bool, default False
        Skip metrics constant within a region (draft behaviour).
    binomial_p0 : "max_flagged" or float, default "max_flagged"
        Null probability of the ranking's binomial tests.
    correlations : bool, default False
        Also compute per-region Pearson correlations (the paper grouped by test
        platform only for these).
    correlation_p_threshold : float, default 1e-5
    min_width : duration, optional
        Drop crossovers closer than this to the previous one (not used by the paper).
    date_range : (start, end), optional
        Keep rows whose time lies in the half-open range; naive dates are local midnights in
        ``date_tz``.
    date_tz : str, default "UTC"
    tz : str, default "UTC"
        Zone of naive datetimes in the time column.
    wallclock_tz : str, optional
        Evaluate windows (and sort) on naive wall-clock times in this zone, as the SC'18
        reference code did; use ``"America/Los_Angeles"`` for paper-exact counts.

    Returns
    -------
    DivergenceAnalysis

    Raises
    ------
    InvalidInputError
        Missing columns, unknown metric names, bad options, long window not longer than the
        short one.
    EmptyGroupError
        No rows left after dropping NaN targets and the date filter.

    Notes
    -----
    Implements Lockwood et al., SC'18, §4–§5 and Fig. 10; see *Algorithms › Smoothing*
    (``docs/algorithms/smoothing.md``). SMAs are O(n) per group and the classification uses
    grouped reductions, not a loop per region. The paper's counts (1,146 regions, 490
    anomalous observations on the TOKIO data) are reproduced with ``preset="sc18-final"``
    and ``wallclock_tz="America/Los_Angeles"``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import analyze_regions
    >>> rng = np.random.default_rng(0)
    >>> t = pd.date_range("2024-01-01", periods=120, freq="D")
    >>> load = rng.uniform(0, 1, 120)
    >>> perf = 1.0 - 0.3 * load + 0.2 * (t >= "2024-03-01") + rng.normal(0, 0.02, 120)
    >>> frame = pd.DataFrame({"time": t, "perf": perf, "load": load})
    >>> result = analyze_regions(frame, time="time", target="perf", short="7D",
    ...                          long="28D", metrics_higher_is_better={"load": False})
    >>> int(result.counts["regions"]) > 0
    True
    """
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    settings = dict(_DEFAULTS)
    if preset is not None:
        check_choice(preset, "preset", tuple(PRESETS))
        settings.update(PRESETS[preset])
    explicit = {
        "short": short,
        "long": long,
        "classifier": classifier,
        "quantile": quantile,
        "min_observations": min_observations,
        "significance_level": significance_level,
        "skip_constant": skip_constant,
        "metrics_higher_is_better": metrics_higher_is_better,
        "metrics": metrics,
        "correlation_p_threshold": correlation_p_threshold,
    }
    settings.update({k: v for k, v in explicit.items() if v is not _UNSET})
    groups = [group_by] if isinstance(group_by, str) else list(group_by)
    for name, label in [(time, "time"), (target, "target"), *[(g, "group_by") for g in groups]]:
        if not isinstance(name, str) or name not in frame.columns:
            raise InvalidInputError(f"{label} column {name!r} is not a column of frame")
    short_width, long_width = check_windows(settings["short"], settings["long"])
    check_choice(settings["classifier"], "classifier", ("minmax", "percentile"))
    q = check_probability(settings["quantile"], "quantile")
    level = check_probability(settings["significance_level"], "significance_level")
    minimum = check_int(settings["min_observations"], "min_observations", low=1)
    p_threshold = check_probability(settings["correlation_p_threshold"], "correlation_p_threshold")
    directions = resolve_directions(settings["metrics_higher_is_better"])
    chosen = resolve_metrics(frame, settings["metrics"], target, exclude=[time, *groups])
    aliases: list[str] = []
    if settings["metrics"] is None:
        aliases = target_aliases(frame, target, chosen, groups)
        chosen = [m for m in chosen if m not in aliases]
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InvalidInputError(
            f"higher_is_better (the direction of the target) must be True or False, got "
            f"{higher_is_better!r}; metric directions go in metrics_higher_is_better"
        )
    width_filter = parse_window(min_width, "min_width") if min_width is not None else None
    counts: dict[str, int] = {"rows_in": len(frame)}

    data = frame
    y_all = pd.to_numeric(data[target], errors="coerce")
    if not pd.api.types.is_numeric_dtype(data[target]):
        raise InvalidInputError(f"target column {target!r} must be numeric")
    keep = y_all.notna().to_numpy()
    counts["dropped_nan_target"] = int((~keep).sum())
    data = data[keep]
    if len(data) == 0:
        raise EmptyGroupError(f"no rows left: every value of target {target!r} is NaN")
    seconds = as_utc_seconds(data[time], f"frame[{time!r}]", tz=tz)
    if date_range is not None:
        zone = check_tz(date_tz, "date_tz")
        if not isinstance(date_range, (tuple, list)) or len(date_range) != 2:
            raise InvalidInputError("date_range must be a (start, end) pair")
        low = local_midnight_utc_seconds(date_range[0], zone)
        high = local_midnight_utc_seconds(date_range[1], zone)
        inside = (seconds >= low) & (seconds < high)
        counts["dropped_date_range"] = int((~inside).sum())
        data = data[inside]
        seconds = seconds[inside]
        if len(data) == 0:
            raise EmptyGroupError(f"no rows left inside date_range {date_range!r}")
    window_time = seconds if wallclock_tz is None else to_wallclock_seconds(seconds, wallclock_tz)
    if groups:
        codes = data.groupby(groups, sort=True, dropna=False).ngroup().to_numpy()
        order = np.lexsort((window_time, codes))
    else:
        codes = np.zeros(len(data), dtype=np.int64)
        order = np.argsort(window_time, kind="stable")
    data = data.iloc[order]
    seconds = seconds[order]
    window_time = window_time[order]
    codes = codes[order]
    counts["rows_analysed"] = len(data)
    y = data[target].to_numpy(dtype=np.float64)
    if np.isinf(y).any():
        raise InvalidInputError(f"target column {target!r} contains infinite values")
    boundaries = np.flatnonzero(np.diff(codes)) + 1
    starts = np.concatenate(([0], boundaries))
    stops = np.concatenate((boundaries, [len(data)]))
    group_values = data[groups].iloc[starts] if groups else None
    index_labels = data.index.to_numpy()

    sma_parts, cross_parts, region_parts = [], [], []
    global_labels = np.full(len(data), -1, dtype=np.int64)
    job_rows: list[np.ndarray] = []
    region_group: list[str] = []
    region_platform: list[str] = []
    region_job_pos: list[np.ndarray] = []
    region_job_t: list[np.ndarray] = []
    offset = 0
    n_regions_total = 0
    for gi, (a, b) in enumerate(zip(starts, stops, strict=True)):
        key = tuple(group_values.iloc[gi]) if group_values is not None else ()
        label = _group_label(key)
        platform = str(key[0]) if key else "all"
        regions = _build_regions(
            seconds[a:b],
            window_time[a:b],
            y[a:b],
            short_width,
            long_width,
            minimum,
            bool(higher_is_better),
            min_width=width_filter,
        )
        cross = regions.crossovers
        positions = np.asarray(cross.positions)
        region_starts, region_stops = np.asarray(regions.starts), np.asarray(regions.stops)
        region_sides, region_means = regions.sides, np.asarray(regions.means)
        region_jobs, region_n = np.asarray(regions.job_positions), np.asarray(regions.n_rows)

        def with_group(
            table: dict[str, Any], n: int, key: tuple[Any, ...] = key, label: str = label
        ) -> pd.DataFrame:
            columns: dict[str, Any] = {g: [key[i]] * n for i, g in enumerate(groups)}
            columns["group"] = [label] * n
            columns.update(table)
            return pd.DataFrame(columns)

        short_sma = np.asarray(regions.sma_short)
        long_sma = np.asarray(regions.sma_long)
        sma_parts.append(
            with_group(
                {
                    "row": index_labels[a:b],
                    "t": seconds[a:b],
                    "y": y[a:b],
                    "sma_short": short_sma,
                    "sma_long": long_sma,
                    "diff": short_sma - long_sma,
                    "above": np.asarray(cross.above),
                },
                b - a,
            )
        )
        above = np.asarray(cross.above)
        cross_parts.append(
            with_group(
                {
                    "position": positions,
                    "t": seconds[a:b][positions],
                    "direction": ["up" if above[p] else "down" for p in positions],
                    "sma_short": short_sma[positions],
                    "sma_long": long_sma[positions],
                },
                positions.size,
            )
        )
        k = region_starts.shape[0]
        valid = region_jobs >= 0
        safe = np.where(valid, region_jobs, 0)
        region_parts.append(
            with_group(
                {
                    "region_id": np.arange(k, dtype=np.int64),
                    "start_t": seconds[a:b][region_starts],
                    "end_t": seconds[a:b][region_stops - 1],
                    "next_crossover_t": seconds[a:b][region_stops],
                    "n_rows": region_n,
                    "side": list(region_sides),
                    "mean_y": region_means,
                    "job_row": index_labels[a:b][safe] if k else np.zeros(0),
                    "job_position": region_jobs,
                    "job_t": np.where(valid, seconds[a:b][safe], np.nan),
                    "job_y": np.where(valid, y[a:b][safe], np.nan),
                },
                k,
            )
        )
        for r in range(k):
            global_labels[a + region_starts[r] : a + region_stops[r]] = offset + r
        job_rows.append(a + region_jobs)
        region_group.extend([label] * k)
        region_platform.extend([platform] * k)
        region_job_pos.append(region_jobs)
        region_job_t.append(np.where(valid, seconds[a:b][safe], np.nan))
        offset += k
        n_regions_total += k

    all_jobs = np.concatenate(job_rows) if job_rows else np.zeros(0, dtype=np.int64)
    records = classify_rows(
        data,
        chosen,
        global_labels,
        all_jobs.astype(np.int64),
        directions,
        settings["classifier"],
        q,
        bool(settings["skip_constant"]),
    )
    bad = check_target_extreme(
        y, global_labels, all_jobs.astype(np.int64), bool(higher_is_better),
        settings["classifier"], q,
    )
    if bad:
        warnings.warn(
            f"in {bad} region(s) the job of interest does not pass the {settings['classifier']}"
            f" test on the target {target!r} itself (ties at the extreme)",
            TargetNotExtremeWarning,
            stacklevel=2,
        )
    ids = records["region_id"].to_numpy()
    group_of = np.asarray(region_group, dtype=object)
    region_offsets = np.concatenate(
        ([0], np.cumsum([part.shape[0] for part in region_job_pos]))
    )[:-1] if region_job_pos else np.zeros(0, dtype=np.int64)
    local_ids = np.zeros(len(ids), dtype=np.int64)
    if len(ids):
        gidx = np.searchsorted(region_offsets, ids, side="right") - 1
        local_ids = ids - region_offsets[gidx]
    job_pos_all = np.concatenate(region_job_pos) if region_job_pos else np.zeros(0)
    job_t_all = np.concatenate(region_job_t) if region_job_t else np.zeros(0)
    records = finish_records(
        records,
        group=list(group_of[ids]) if len(ids) else [],
        platform=list(np.asarray(region_platform, dtype=object)[ids]) if len(ids) else [],
        job_position=job_pos_all[ids] if len(ids) else np.zeros(0),
        job_t=job_t_all[ids] if len(ids) else np.zeros(0),
        significance_level=level,
    )
    records["region_id"] = local_ids
    if group_values is not None and len(records):
        labels_to_key = {
            _group_label(tuple(group_values.iloc[i])): tuple(group_values.iloc[i])
            for i in range(len(starts))
        }
        position = 0
        for i, g in enumerate(groups):
            if g not in records.columns:
                records.insert(position, g, [labels_to_key[x][i] for x in records["group"]])
                position += 1
    summary = ranking(records, level, binomial_p0)

    correlation_table = None
    if correlations:
        table = region_correlations(
            data, target, chosen, global_labels,
            min_points=int(settings["correlation_min_points"]), p_threshold=p_threshold,
        )
        if len(table):
            rid = table["region"].to_numpy()
            gidx = np.searchsorted(region_offsets, rid, side="right") - 1
            table.insert(0, "group", group_of[rid])
            table["region_id"] = rid - region_offsets[gidx]
            region_start = np.concatenate([p["start_t"].to_numpy() for p in region_parts])
            region_end = np.concatenate([p["end_t"].to_numpy() for p in region_parts])
            table["start_t"] = region_start[rid]
            table["end_t"] = region_end[rid]
            table = table.drop(columns=["region"])
        else:
            table = pd.DataFrame(
                columns=["group", "metric", "r", "p_value", "n_points", "region_id", "start_t",
                         "end_t"]
            )
        correlation_table = table
        sizes = np.bincount(global_labels[global_labels >= 0], minlength=n_regions_total)
        counts["correlation_regions"] = int(
            np.sum(sizes >= int(settings["correlation_min_points"]))
        )
        counts["correlated_regions"] = int(table["region_id"].groupby(table["group"]).nunique(
        ).sum()) if len(table) else 0

    headline = Contributors(
        records=records, target=target, classifier=str(settings["classifier"]), quantile=q,
        significance_level=level, metrics=tuple(chosen),
    ).counts()
    counts.update(
        {
            "groups": len(starts),
            "crossovers": int(sum(len(p) for p in cross_parts)),
            "regions": n_regions_total,
            **headline,
        }
    )
    resolved = {
        "preset": preset,
        "short": window_label(short_width),
        "long": window_label(long_width),
        "short_seconds": short_width,
        "long_seconds": long_width,
        "classifier": settings["classifier"],
        "quantile": q,
        "significance_level": level,
        "min_observations": minimum,
        "skip_constant": bool(settings["skip_constant"]),
        "metrics": list(chosen),
        "excluded_aliases": list(aliases),
        "binomial_p0": binomial_p0,
        "higher_is_better": bool(higher_is_better),
        "tz": str(tz),
        "wallclock_tz": None if wallclock_tz is None else str(wallclock_tz),
        "date_range": None if date_range is None else [str(d) for d in date_range],
        "date_tz": str(date_tz),
    }
    return DivergenceAnalysis(
        sma=pd.concat(sma_parts, ignore_index=True),
        crossovers=pd.concat(cross_parts, ignore_index=True),
        regions=pd.concat(region_parts, ignore_index=True),
        contributors=records,
        summary=summary,
        correlations=correlation_table,
        counts=counts,
        settings=resolved,
        target=target,
        group_by=tuple(groups),
    )
