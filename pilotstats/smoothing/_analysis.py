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
from pilotstats.results import Result, draw, json_safe, plot_doc
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
from pilotstats.smoothing._regions import Regions, _build_regions, check_windows
from pilotstats.smoothing._time import (
    as_utc_seconds,
    local_midnight_utc_seconds,
    parse_window,
    to_wallclock_seconds,
    window_label,
)

__all__ = ["DivergenceAnalysis", "RegionOptions", "analyze_regions"]


_OPTION_FIELDS = ("short", "long", "min_observations", "min_width", "metrics", "classifier",
                  "quantile", "significance_level", "skip_constant", "binomial_p0",
                  "correlations", "correlation_p_threshold", "correlation_min_points")


@dataclasses.dataclass(frozen=True, slots=True)
class RegionOptions:
    """Method settings of :func:`analyze_regions`: windows, thresholds, contributor tests.

    The defaults are the final SC'18 method (``preset="sc18-final"``) without its TOKIO
    metric list; :meth:`from_preset` starts from a preset instead. Values are checked when
    :func:`analyze_regions` runs. Complexity: O(1).

    Attributes
    ----------
    short, long : str, timedelta, float or None
        Window widths (default ``"14D"`` and ``"49D"``); ``long=None`` is the global mean.
    min_observations : int, default 1
        A region (the time window between two crossovers) with fewer observations (rows) is
        dropped (the draft used 7).
    min_width : duration, optional
        Drop crossovers closer than this to the previous one (not used by the paper).
    metrics : sequence of str, optional
        Metric columns (default: every numeric column except time, target and groups, less
        the target's aliases; the presets use the paper's nine metrics).
    classifier : {"minmax", "percentile"}, default "minmax"
    quantile : float, default 0.25
    significance_level : float, default 0.10
    skip_constant : bool, default False
        Skip metrics constant within a region (draft behaviour).
    binomial_p0 : "max_flagged" or float, default "max_flagged"
        Null probability of the ranking's binomial tests.
    correlations : bool, default False
        Also compute per-region Pearson correlations (the paper grouped by test platform
        only for these).
    correlation_p_threshold : float, default 1e-5
    correlation_min_points : int, default 3
        Regions with fewer non-NaN target values get no correlations.

    Examples
    --------
    >>> from pilotstats.smoothing import RegionOptions
    >>> RegionOptions(short="7D", long="28D").long
    '28D'
    >>> RegionOptions.from_preset("sc18-draft", long="49D").min_observations
    7
    """

    short: Any = "14D"
    long: Any = "49D"
    min_observations: int = 1
    min_width: Any = None
    metrics: Sequence[str] | None = None
    classifier: ContributorClassifier = "minmax"
    quantile: float = 0.25
    significance_level: float = 0.10
    skip_constant: bool = False
    binomial_p0: Any = "max_flagged"
    correlations: bool = False
    correlation_p_threshold: float = 1e-5
    correlation_min_points: int = 3

    @classmethod
    def from_preset(cls, preset: SmoothingPreset, **changes: Any) -> RegionOptions:
        """The options of a preset (see :data:`PRESETS`), with ``changes`` applied.

        The preset's ``metrics_higher_is_better`` is not an option: pass it to
        :func:`analyze_regions`.

        Raises
        ------
        InvalidInputError
            Unknown preset or option name.
        """
        check_choice(preset, "preset", tuple(PRESETS))
        values = {k: v for k, v in PRESETS[preset].items() if k in _OPTION_FIELDS}
        unknown = sorted(set(changes) - set(_OPTION_FIELDS))
        if unknown:
            raise InvalidInputError(f"unknown option(s) {unknown}; options: {list(_OPTION_FIELDS)}")
        return cls(**{**values, **changes})


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
    >>> from pilotstats.smoothing import RegionOptions, analyze_regions
    >>> rng = np.random.default_rng(0)
    >>> t = pd.date_range("2024-01-01", periods=120, freq="D")
    >>> load = rng.uniform(0, 1, 120)
    >>> perf = 1.0 - 0.3 * load + 0.2 * (t >= "2024-03-01") + rng.normal(0, 0.02, 120)
    >>> frame = pd.DataFrame({"time": t, "perf": perf, "load": load})
    >>> result = analyze_regions(frame, time="time", target="perf",
    ...                          options=RegionOptions(short="7D", long="28D"),
    ...                          metrics_higher_is_better={"load": False})
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

    @plot_doc
    def plot(
        self, *, kind: str = "timeline", group: Any = None, ax: Any = None, **options: Any
    ) -> Any:
        """Draw the analysis (needs matplotlib); delegates to the smoothing plot functions.

        Parameters
        ----------
        kind : {"timeline", "sma_difference", "ranking", "heatmap"}, default "timeline"
            ``"timeline"`` (:func:`~pilotstats.plotting.plot_timeline`) and
            ``"sma_difference"`` (:func:`~pilotstats.plotting.plot_sma_difference`) draw
            one group; ``"ranking"`` the contributor ranking
            (:func:`~pilotstats.plotting.plot_contributor_ranking`, the paper's Fig. 10);
            ``"heatmap"`` the flagged records
            (:func:`~pilotstats.plotting.plot_flag_heatmap`).
        group : str or tuple, optional
            Group to draw (``"timeline"``, ``"sma_difference"``; needed when there are
            several).
        {ax}
        **options
            Further keyword arguments of the chosen function.

        {returns}

        Raises
        ------
        InvalidInputError
            Unknown ``kind``, or ``group`` missing or unknown.
        {no_matplotlib}
        """
        return draw(self, kind=kind, group=group, ax=ax, **options)

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
    frame: pd.DataFrame, *, time: str, target: str, group_by: str | Sequence[str] = (),
    preset: SmoothingPreset | None = None, options: RegionOptions | None = None,
    higher_is_better: bool = True,
    metrics_higher_is_better: Mapping[str, bool] | str | None = None,
    date_range: tuple[Any, Any] | None = None, date_tz: Any = "UTC", tz: Any = "UTC",
    wallclock_tz: Any = None,
) -> DivergenceAnalysis:
    """Run the SC'18 divergence-region and contributor pipeline on a long-format frame.

    Per group (sorted by time, NaN targets dropped and counted): short and long centred
    SMAs, regions between their crossovers, each region's job of interest classified
    against every metric, and the ranking. See *Algorithms › Smoothing*: the paper's counts
    (1,146 regions, 490 anomalous observations on TOKIO) need ``preset="sc18-final"`` and
    ``wallclock_tz="America/Los_Angeles"``. SMAs are O(n) per group.

    Parameters
    ----------
    frame : pandas.DataFrame
        Long format: one row per observation.
    time, target : str
        Time column (epoch seconds, ``datetime64`` or tz-aware) and performance column.
    group_by : str or sequence of str, default ()
        Columns whose combinations are analysed separately; the first is the *platform*.
    preset : {"sc18-final", "sc18-draft"}, optional
        Shorthand for ``options=RegionOptions.from_preset(preset)``; not with ``options``.
    options : RegionOptions, optional
        Windows, thresholds and contributor settings (default ``RegionOptions()``).
    higher_is_better : bool, default True
        Target direction: the job of interest is a region's lowest target if True.
    metrics_higher_is_better : mapping, "tokio" or None, default None
        Direction of each metric (unlisted: higher-is-better). None means ``"tokio"`` with
        a ``preset``, else every metric higher-is-better.
    date_range : (start, end), optional
        Keep times in this half-open range; naive dates are midnights in ``date_tz``.
    date_tz, tz : str, default "UTC"
        Zones of ``date_range`` and of naive datetimes in the time column.
    wallclock_tz : str, optional
        Evaluate windows on naive wall-clock times in this zone, as the reference code did.

    Returns
    -------
    DivergenceAnalysis

    Raises
    ------
    InvalidInputError
        Missing columns, unknown metrics, bad options, both ``preset`` and ``options``.
    EmptyGroupError
        No rows left after dropping NaN targets and the date filter.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import RegionOptions, analyze_regions
    >>> t, load = pd.date_range("2024-01-01", periods=120), np.sin(np.arange(120) / 9)
    >>> frame = pd.DataFrame({"time": t, "perf": 1.0 - 0.3 * load, "load": load})
    >>> options = RegionOptions(short="7D", long="28D")
    >>> analyze_regions(frame, time="time", target="perf", options=options).counts["regions"]
    4
    """
    setup = _resolve(frame, time, target, group_by, preset, options, higher_is_better,
                     metrics_higher_is_better)
    counts: dict[str, int] = {"rows_in": len(frame)}
    rows = _prepare_rows(frame, time, target, setup.groups, date_range, date_tz, tz,
                         wallclock_tz, counts)
    tables = _region_tables(rows, setup)
    records = _contributor_records(rows, setup, tables, target)
    correlation_table = (_correlations(rows, setup, tables, target, counts)
                         if setup.options.correlations else None)
    counts.update({"groups": len(rows.starts), "crossovers": tables.n_crossovers,
                   "regions": tables.n_regions, **_headline(records, target, setup)})
    return DivergenceAnalysis(
        sma=pd.concat(tables.sma, ignore_index=True),
        crossovers=pd.concat(tables.crossovers, ignore_index=True),
        regions=pd.concat(tables.regions, ignore_index=True), contributors=records,
        summary=ranking(records, setup.level, setup.options.binomial_p0),
        correlations=correlation_table, counts=counts,
        settings=_settings_record(setup, preset, tz, wallclock_tz, date_range, date_tz),
        target=target, group_by=tuple(setup.groups))


@dataclasses.dataclass(frozen=True, slots=True)
class _Setup:
    """The checked settings of one :func:`analyze_regions` call."""

    options: RegionOptions
    groups: list[str]
    short_width: float | None
    long_width: float | None
    quantile: float
    level: float
    minimum: int
    p_threshold: float
    directions: dict[str, bool]
    metrics: list[str]
    aliases: list[str]
    width_filter: float | None
    higher_is_better: bool


def _resolve(frame: pd.DataFrame, time: str, target: str, group_by: str | Sequence[str],
             preset: SmoothingPreset | None, options: RegionOptions | None,
             higher_is_better: Any, metrics_higher_is_better: Any) -> _Setup:
    """Check the columns and options; resolve the preset, windows, metrics and directions."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if preset is not None:
        if options is not None:
            raise InvalidInputError("give preset or options, not both; start from a preset "
                                    "with RegionOptions.from_preset(preset, ...)")
        options = RegionOptions.from_preset(preset)
        if metrics_higher_is_better is None:
            metrics_higher_is_better = PRESETS[preset]["metrics_higher_is_better"]
    elif options is None:
        options = RegionOptions()
    elif not isinstance(options, RegionOptions):
        raise InvalidInputError(f"options must be a RegionOptions, got {type(options).__name__}")
    groups = [group_by] if isinstance(group_by, str) else list(group_by)
    for name, label in [(time, "time"), (target, "target"), *[(g, "group_by") for g in groups]]:
        if not isinstance(name, str) or name not in frame.columns:
            raise InvalidInputError(f"{label} column {name!r} is not a column of frame")
    short_width, long_width = check_windows(options.short, options.long)
    check_choice(options.classifier, "classifier", ("minmax", "percentile"))
    q = check_probability(options.quantile, "quantile")
    level = check_probability(options.significance_level, "significance_level")
    minimum = check_int(options.min_observations, "min_observations", low=1)
    p_threshold = check_probability(options.correlation_p_threshold, "correlation_p_threshold")
    directions = resolve_directions(metrics_higher_is_better)
    chosen = resolve_metrics(frame, options.metrics, target, exclude=[time, *groups])
    aliases: list[str] = []
    if options.metrics is None:
        aliases = target_aliases(frame, target, chosen, groups)
        chosen = [m for m in chosen if m not in aliases]
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InvalidInputError(
            f"higher_is_better (the direction of the target) must be True or False, got "
            f"{higher_is_better!r}; metric directions go in metrics_higher_is_better"
        )
    width_filter = (parse_window(options.min_width, "min_width")
                    if options.min_width is not None else None)
    return _Setup(options, groups, short_width, long_width, q, level, minimum, p_threshold,
                  directions, chosen, aliases, width_filter, bool(higher_is_better))


def _headline(records: pd.DataFrame, target: str, setup: _Setup) -> dict[str, int]:
    """The headline counts of :meth:`Contributors.counts` for these records."""
    return Contributors(
        records=records, target=target, classifier=str(setup.options.classifier),
        quantile=setup.quantile, significance_level=setup.level, metrics=tuple(setup.metrics),
    ).counts()


@dataclasses.dataclass(frozen=True, slots=True)
class _Rows:
    """The analysed rows, sorted by group and (window) time, with the group bounds."""

    data: pd.DataFrame
    seconds: np.ndarray
    window_time: np.ndarray
    y: np.ndarray
    starts: np.ndarray
    stops: np.ndarray
    group_values: pd.DataFrame | None
    index_labels: np.ndarray


def _prepare_rows(frame: pd.DataFrame, time: str, target: str, groups: list[str],
                  date_range: Any, date_tz: Any, tz: Any, wallclock_tz: Any,
                  counts: dict[str, int]) -> _Rows:
    """Drop NaN targets and rows outside ``date_range`` (counted), then sort the groups."""
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
    codes = codes[order]
    counts["rows_analysed"] = len(data)
    y = data[target].to_numpy(dtype=np.float64)
    if np.isinf(y).any():
        raise InvalidInputError(f"target column {target!r} contains infinite values")
    boundaries = np.flatnonzero(np.diff(codes)) + 1
    starts = np.concatenate(([0], boundaries))
    return _Rows(data, seconds[order], window_time[order], y, starts,
                 np.concatenate((boundaries, [len(data)])),
                 data[groups].iloc[starts] if groups else None, data.index.to_numpy())


@dataclasses.dataclass(slots=True)
class _Tables:
    """Per-group tables and the row -> region labels, filled group by group."""

    labels: np.ndarray
    sma: list[pd.DataFrame] = dataclasses.field(default_factory=list)
    crossovers: list[pd.DataFrame] = dataclasses.field(default_factory=list)
    regions: list[pd.DataFrame] = dataclasses.field(default_factory=list)
    job_rows: list[np.ndarray] = dataclasses.field(default_factory=list)
    region_group: list[str] = dataclasses.field(default_factory=list)
    region_platform: list[str] = dataclasses.field(default_factory=list)
    region_job_pos: list[np.ndarray] = dataclasses.field(default_factory=list)
    region_job_t: list[np.ndarray] = dataclasses.field(default_factory=list)
    n_regions: int = 0

    @property
    def n_crossovers(self) -> int:
        """Crossovers over every group."""
        return int(sum(len(p) for p in self.crossovers))

    def region_offsets(self) -> np.ndarray:
        """Global id of each group's first region."""
        if not self.region_job_pos:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(
            ([0], np.cumsum([part.shape[0] for part in self.region_job_pos])))[:-1]


def _region_tables(rows: _Rows, setup: _Setup) -> _Tables:
    """SMAs, crossovers and regions of every group (the region ids are global)."""
    tables = _Tables(labels=np.full(len(rows.data), -1, dtype=np.int64))
    for gi, (a, b) in enumerate(zip(rows.starts, rows.stops, strict=True)):
        key = tuple(rows.group_values.iloc[gi]) if rows.group_values is not None else ()
        regions = _build_regions(
            rows.seconds[a:b],
            rows.window_time[a:b],
            rows.y[a:b],
            setup.short_width,
            setup.long_width,
            setup.minimum,
            setup.higher_is_better,
            min_width=setup.width_filter,
        )
        _add_group(tables, rows, setup.groups, key, int(a), int(b), regions)
    return tables


def _add_group(tables: _Tables, rows: _Rows, groups: list[str], key: tuple[Any, ...],
               a: int, b: int, regions: Regions) -> None:
    """Append one group's SMA, crossover and region tables and label its region rows."""
    label = _group_label(key)
    platform = str(key[0]) if key else "all"
    seconds, y, index_labels = rows.seconds[a:b], rows.y[a:b], rows.index_labels[a:b]
    cross = regions.crossovers
    positions = np.asarray(cross.positions)
    region_starts, region_stops = np.asarray(regions.starts), np.asarray(regions.stops)
    region_jobs = np.asarray(regions.job_positions)

    def with_group(table: dict[str, Any], n: int) -> pd.DataFrame:
        columns: dict[str, Any] = {g: [key[i]] * n for i, g in enumerate(groups)}
        columns["group"] = [label] * n
        columns.update(table)
        return pd.DataFrame(columns)

    short_sma = np.asarray(regions.sma_short)
    long_sma = np.asarray(regions.sma_long)
    above = np.asarray(cross.above)
    tables.sma.append(with_group(
        {"row": index_labels, "t": seconds, "y": y, "sma_short": short_sma,
         "sma_long": long_sma, "diff": short_sma - long_sma, "above": above}, b - a))
    tables.crossovers.append(with_group(
        {"position": positions, "t": seconds[positions],
         "direction": ["up" if above[p] else "down" for p in positions],
         "sma_short": short_sma[positions], "sma_long": long_sma[positions]},
        positions.size))
    k = region_starts.shape[0]
    valid = region_jobs >= 0
    safe = np.where(valid, region_jobs, 0)
    tables.regions.append(with_group(
        {"region_id": np.arange(k, dtype=np.int64), "start_t": seconds[region_starts],
         "end_t": seconds[region_stops - 1], "next_crossover_t": seconds[region_stops],
         "n_rows": np.asarray(regions.n_rows), "side": list(regions.sides),
         "mean_y": np.asarray(regions.means),
         "job_row": index_labels[safe] if k else np.zeros(0), "job_position": region_jobs,
         "job_t": np.where(valid, seconds[safe], np.nan),
         "job_y": np.where(valid, y[safe], np.nan)}, k))
    for r in range(k):
        tables.labels[a + region_starts[r] : a + region_stops[r]] = tables.n_regions + r
    tables.job_rows.append(a + region_jobs)
    tables.region_group.extend([label] * k)
    tables.region_platform.extend([platform] * k)
    tables.region_job_pos.append(region_jobs)
    tables.region_job_t.append(np.where(valid, seconds[safe], np.nan))
    tables.n_regions += k


def _contributor_records(rows: _Rows, setup: _Setup, tables: _Tables,
                         target: str) -> pd.DataFrame:
    """Classify every region's job of interest against every metric (one record each)."""
    options = setup.options
    all_jobs = (np.concatenate(tables.job_rows) if tables.job_rows
                else np.zeros(0, dtype=np.int64)).astype(np.int64)
    records = classify_rows(rows.data, setup.metrics, tables.labels, all_jobs,
                            setup.directions, options.classifier, setup.quantile,
                            bool(options.skip_constant))
    bad = check_target_extreme(rows.y, tables.labels, all_jobs, setup.higher_is_better,
                               options.classifier, setup.quantile)
    if bad:
        warnings.warn(
            f"in {bad} region(s) the job of interest does not pass the {options.classifier}"
            f" test on the target {target!r} itself (ties at the extreme)",
            TargetNotExtremeWarning,
            stacklevel=3,
        )
    ids = records["region_id"].to_numpy()
    region_offsets = tables.region_offsets()
    local_ids = np.zeros(len(ids), dtype=np.int64)
    if len(ids):
        gidx = np.searchsorted(region_offsets, ids, side="right") - 1
        local_ids = ids - region_offsets[gidx]
    job_pos_all = (np.concatenate(tables.region_job_pos) if tables.region_job_pos
                   else np.zeros(0))
    job_t_all = np.concatenate(tables.region_job_t) if tables.region_job_t else np.zeros(0)
    records = finish_records(
        records,
        group=list(np.asarray(tables.region_group, dtype=object)[ids]) if len(ids) else [],
        platform=list(np.asarray(tables.region_platform, dtype=object)[ids])
        if len(ids) else [],
        job_position=job_pos_all[ids] if len(ids) else np.zeros(0),
        job_t=job_t_all[ids] if len(ids) else np.zeros(0),
        significance_level=setup.level,
    )
    records["region_id"] = local_ids
    if rows.group_values is not None and len(records):
        keys = [tuple(rows.group_values.iloc[i]) for i in range(len(rows.starts))]
        labels_to_key = {_group_label(key): key for key in keys}
        position = 0
        for i, g in enumerate(setup.groups):
            if g not in records.columns:
                records.insert(position, g, [labels_to_key[x][i] for x in records["group"]])
                position += 1
    return records


def _correlations(rows: _Rows, setup: _Setup, tables: _Tables, target: str,
                  counts: dict[str, int]) -> pd.DataFrame:
    """Per-region Pearson correlations with group-local region ids; counts them."""
    min_points = int(setup.options.correlation_min_points)
    table = region_correlations(rows.data, target, setup.metrics, tables.labels,
                                min_points=min_points, p_threshold=setup.p_threshold)
    if len(table):
        rid = table["region"].to_numpy()
        region_offsets = tables.region_offsets()
        gidx = np.searchsorted(region_offsets, rid, side="right") - 1
        table.insert(0, "group", np.asarray(tables.region_group, dtype=object)[rid])
        table["region_id"] = rid - region_offsets[gidx]
        region_start = np.concatenate([p["start_t"].to_numpy() for p in tables.regions])
        region_end = np.concatenate([p["end_t"].to_numpy() for p in tables.regions])
        table["start_t"] = region_start[rid]
        table["end_t"] = region_end[rid]
        table = table.drop(columns=["region"])
    else:
        table = pd.DataFrame(
            columns=["group", "metric", "r", "p_value", "n_points", "region_id", "start_t",
                     "end_t"]
        )
    labels = tables.labels
    sizes = np.bincount(labels[labels >= 0], minlength=tables.n_regions)
    counts["correlation_regions"] = int(np.sum(sizes >= min_points))
    counts["correlated_regions"] = int(table["region_id"].groupby(table["group"]).nunique(
    ).sum()) if len(table) else 0
    return table


def _settings_record(setup: _Setup, preset: SmoothingPreset | None, tz: Any, wallclock_tz: Any,
                     date_range: Any, date_tz: Any) -> dict[str, Any]:
    """The resolved parameters, as stored in :attr:`DivergenceAnalysis.settings`."""
    options = setup.options
    return {
        "preset": preset,
        "short": window_label(setup.short_width),
        "long": window_label(setup.long_width),
        "short_seconds": setup.short_width,
        "long_seconds": setup.long_width,
        "classifier": options.classifier,
        "quantile": setup.quantile,
        "significance_level": setup.level,
        "min_observations": setup.minimum,
        "skip_constant": bool(options.skip_constant),
        "metrics": list(setup.metrics),
        "excluded_aliases": list(setup.aliases),
        "binomial_p0": options.binomial_p0,
        "higher_is_better": setup.higher_is_better,
        "tz": str(tz),
        "wallclock_tz": None if wallclock_tz is None else str(wallclock_tz),
        "date_range": None if date_range is None else [str(d) for d in date_range],
        "date_tz": str(date_tz),
    }
