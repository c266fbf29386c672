"""Contributor classification, significance ranking and per-region correlations.

Documentation: *Algorithms › Smoothing* (``docs/algorithms/smoothing.md``, *Contributors*). Method
of Lockwood et al., SC'18, §5 (UMAMI classification of the "anomalous observation" of every
divergence region) and Fig. 8–10. Behavioural reference: NERSC/tokio-abcutils
``abcutils/classify.py`` (``identify_contributors``) and the notebooks ``sc18_figure10.ipynb`` and
``sc18_figure8_figure9.ipynb``; nothing is copied.

The classification of :func:`contributors`: for region R with job of interest j and metric m,
looking for *bad* values, the minmax cutoff is c = min_R m if higher is better else max_R m
(NaN ignored), flagged iff ``m_j == c``, ``n_match = #{i in R: m_i == c}``; the percentile
cutoff is c = the q-quantile (linear interpolation) if higher is better, flagged iff
``m_j < c``, else the (1 - q)-quantile and ``m_j > c``. ``p_value = n_match / n_obs`` is the
chance that a random non-NaN row of the region passes the same test, so ties raise it; a
unique extreme needs ``n_obs >= 11`` for ``p < 0.10``. Metrics that are all-NaN in a region
give no record; a NaN ``m_j`` gives a record with ``flagged=False`` (Lockwood et al., SC'18,
§5). Complexity: O(R·M·n) for R regions, M metrics and n rows, plus the optional
correlations (O(R·M²·n)).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pilotstats._protocols import select_items
from pilotstats._typing import ContributorClassifier, Int64Array1D
from pilotstats._validation import (
    check_classifier_options,
    check_int,
    check_probability,
)
from pilotstats.exceptions import EmptyGroupError, InvalidInputError, TargetNotExtremeWarning
from pilotstats.results import Result, format_number, json_safe
from pilotstats.smoothing._presets import tokio_directions
from pilotstats.smoothing._ranking import ranking, target_aliases
from pilotstats.smoothing._regions import Regions

__all__ = ["Contributors", "CorrelationOptions", "contributors", "region_correlations"]

_RECORD_COLUMNS = [
    "group",
    "platform",
    "region_id",
    "job_position",
    "job_t",
    "metric",
    "higher_is_better",
    "threshold",
    "target_value",
    "flagged",
    "n_match",
    "n_obs",
    "n_rows",
    "p_value",
    "random_p",
    "significant",
]


def resolve_directions(metrics_higher_is_better: Any) -> dict[str, bool]:
    """Mapping metric → higher-is-better from None, ``"tokio"`` or a mapping."""
    name = "metrics_higher_is_better"
    if metrics_higher_is_better is None:
        return {}
    if isinstance(metrics_higher_is_better, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name} must be a mapping {{metric: bool}}, None or the preset 'tokio'; got "
            f"{metrics_higher_is_better!r} (the direction of the target is "
            "higher_is_better)"
        )
    if isinstance(metrics_higher_is_better, str):
        if metrics_higher_is_better != "tokio":
            raise InvalidInputError(
                f"{name} must be a mapping {{metric: bool}}, None or the preset "
                f"'tokio'; got {metrics_higher_is_better!r}"
            )
        return tokio_directions()
    if isinstance(metrics_higher_is_better, Mapping):
        result: dict[str, bool] = {}
        for key, value in metrics_higher_is_better.items():
            if not isinstance(key, str) or not isinstance(value, (bool, np.bool_)):
                raise InvalidInputError(
                    f"{name} must map metric names (str) to True/False; got "
                    f"{key!r}: {value!r}"
                )
            result[key] = bool(value)
        return result
    raise InvalidInputError(
        f"{name} must be a mapping {{metric: bool}}, None or 'tokio'; got "
        f"{type(metrics_higher_is_better).__name__}"
    )


def resolve_metrics(
    frame: pd.DataFrame, metrics: Any, target: str, exclude: Sequence[str] = ()
) -> list[str]:
    """Metric columns to classify; unknown names raise, the target is never a metric."""
    if metrics is None:
        chosen = [
            str(c)
            for c in frame.columns
            if c != target
            and c not in exclude
            and pd.api.types.is_numeric_dtype(frame[c])
            and not pd.api.types.is_bool_dtype(frame[c])
        ]
        return chosen
    if isinstance(metrics, str):
        metrics = [metrics]
    names = list(metrics)
    unknown = [m for m in names if m not in frame.columns]
    if unknown:
        raise InvalidInputError(
            f"unknown metric name(s) {', '.join(map(repr, unknown))}: not columns of the "
            f"frame (it has {len(frame.columns)} columns, e.g. "
            f"{', '.join(map(repr, list(frame.columns)[:5]))})"
        )
    seen: list[str] = []
    for m in names:
        if m != target and m not in seen:
            seen.append(m)
    return seen


def classify_rows(
    frame: pd.DataFrame,
    metrics: Sequence[str],
    labels: Int64Array1D,
    job_rows: Int64Array1D,
    directions: Mapping[str, bool],
    classifier: str,
    quantile: float,
    skip_constant: bool,
) -> pd.DataFrame:
    """Vectorised per (region, metric) classification.

    ``labels`` gives each row its region id 0..K-1 (-1 outside every region) and
    ``job_rows[k]`` the row of region k's job of interest. Uses grouped reductions, no
    Python loop over regions.
    """
    inside = np.flatnonzero(labels >= 0)
    lab = labels[inside]
    n_regions = job_rows.shape[0]
    n_region_rows = np.bincount(lab, minlength=n_regions)
    parts = []
    for metric in metrics:
        column = frame[metric]
        if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        x = values[inside]
        higher_better = bool(directions.get(metric, True))
        grouped = pd.Series(x).groupby(lab, sort=True)
        if classifier == "minmax":
            cutoff_by = grouped.min() if higher_better else grouped.max()
        else:
            level = quantile if higher_better else 1.0 - quantile
            cutoff_by = grouped.quantile(level, interpolation="linear")
        cutoff = cutoff_by.reindex(np.arange(n_regions)).to_numpy(dtype=np.float64)
        n_obs = grouped.count().reindex(np.arange(n_regions), fill_value=0).to_numpy()
        match = _passes(x, cutoff[lab], classifier, higher_better)
        n_match = np.bincount(lab, weights=match.astype(np.float64), minlength=n_regions)
        target_value = values[job_rows]
        flagged = _passes(target_value, cutoff, classifier, higher_better)
        keep = ~np.isnan(cutoff)
        if skip_constant:
            constant = (grouped.max() == grouped.min()).reindex(
                np.arange(n_regions), fill_value=True
            )
            keep &= ~constant.to_numpy(dtype=bool)
        ids = np.flatnonzero(keep)
        if ids.size == 0:
            continue
        parts.append(
            pd.DataFrame(
                {
                    "region_id": ids.astype(np.int64),
                    "metric": metric,
                    "higher_is_better": higher_better,
                    "threshold": cutoff[ids],
                    "target_value": target_value[ids],
                    "flagged": flagged[ids].astype(bool),
                    "n_match": n_match[ids].astype(np.int64),
                    "n_obs": n_obs[ids].astype(np.int64),
                    "n_rows": n_region_rows[ids].astype(np.int64),
                }
            )
        )
    if not parts:
        return _empty_classification()
    result = pd.concat(parts, ignore_index=True)
    result = result.sort_values(["region_id"], kind="stable").reset_index(drop=True)
    return result


def _passes(values: np.ndarray, cutoff: np.ndarray, classifier: str,
            higher_better: bool) -> np.ndarray:
    """Whether each value passes the classifier's test against its cutoff (NaN: False)."""
    with np.errstate(invalid="ignore"):
        if classifier == "minmax":
            return np.asarray(values == cutoff)
        if higher_better:
            return np.asarray(values < cutoff)
        return np.asarray(values > cutoff)


def _empty_classification() -> pd.DataFrame:
    """The columns of :func:`classify_rows` without rows."""
    return pd.DataFrame(
        {
            "region_id": pd.Series(dtype=np.int64),
            "metric": pd.Series(dtype=object),
            "higher_is_better": pd.Series(dtype=bool),
            "threshold": pd.Series(dtype=float),
            "target_value": pd.Series(dtype=float),
            "flagged": pd.Series(dtype=bool),
            "n_match": pd.Series(dtype=np.int64),
            "n_obs": pd.Series(dtype=np.int64),
            "n_rows": pd.Series(dtype=np.int64),
        }
    )


def add_p_values(records: pd.DataFrame, significance_level: float) -> pd.DataFrame:
    """Add ``p_value = n_match / n_obs``, ``random_p = 1 / n_rows`` and ``significant``."""
    records = records.copy()
    records["p_value"] = records["n_match"].to_numpy(dtype=float) / records["n_obs"].to_numpy(
        dtype=float
    )
    records["random_p"] = 1.0 / records["n_rows"].to_numpy(dtype=float)
    records["significant"] = records["p_value"].to_numpy() < significance_level
    return records


def check_target_extreme(
    target_values: np.ndarray,
    labels: Int64Array1D,
    job_rows: Int64Array1D,
    higher_is_better: bool,
    classifier: str,
    quantile: float,
) -> int:
    """Count regions whose job of interest fails the classifier's test on the target."""
    if classifier == "minmax" or job_rows.size == 0:
        return 0
    inside = np.flatnonzero(labels >= 0)
    grouped = pd.Series(target_values[inside]).groupby(labels[inside], sort=True)
    level = (1.0 - quantile) if not higher_is_better else quantile
    cutoff = grouped.quantile(level).reindex(np.arange(job_rows.shape[0])).to_numpy()
    value = target_values[job_rows]
    with np.errstate(invalid="ignore"):
        passed = value < cutoff if higher_is_better else value > cutoff
    return int(np.sum(~passed & ~np.isnan(value)))


def _headline(records: pd.DataFrame) -> dict[str, int]:
    keys = ["group", "region_id"]
    significant = records[records["significant"]]
    return {
        "jobs_with_records": len(records.drop_duplicates(keys)),
        "anomalous_observations": len(significant.drop_duplicates(keys)),
        "flagged_significant": len(significant[significant["flagged"]].drop_duplicates(keys)),
        "flagged_any": len(records[records["flagged"]].drop_duplicates(keys)),
        "records": len(records),
        "significant_records": len(significant),
    }


@dataclasses.dataclass(frozen=True, slots=True)
class CorrelationOptions:
    """Settings of the per-region Pearson correlations of :func:`contributors`.

    Regions with fewer than ``min_points`` non-NaN targets are skipped; a (metric, target)
    pair is kept when ``p < p_threshold`` and ``r < 0.9999``. Complexity: O(1).

    Attributes
    ----------
    p_threshold : float, default 1e-5
    min_points : int, default 3
        At least 3.

    Examples
    --------
    >>> from pilotstats.smoothing import CorrelationOptions
    >>> CorrelationOptions(p_threshold=1e-3).min_points
    3
    """

    p_threshold: float = 1e-5
    min_points: int = 3


@dataclasses.dataclass(frozen=True, slots=True)
class Contributors(Result):
    """Per (region, metric) contributor records and their significance ranking.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one record, the
    ``dict`` of a row of :attr:`records` (``result[0]``); :meth:`to_frame` is a copy of
    :attr:`records`.

    Attributes
    ----------
    records : pandas.DataFrame
        One row per (region, metric): ``group``, ``platform``, ``region_id``,
        ``job_position`` (row of the job of interest), ``job_t`` (UTC epoch s), ``metric``,
        ``higher_is_better`` (the metric's direction), ``threshold`` (the cutoff c),
        ``target_value`` (the metric at the job), ``flagged``, ``n_match``, ``n_obs``
        (non-NaN values of the metric in the region), ``n_rows`` (rows of the region, as
        :attr:`Regions.n_rows`), ``p_value = n_match / n_obs``, ``random_p = 1 / n_rows``
        and ``significant`` (``p_value < significance_level``).
    target : str
        Target column.
    classifier : str
        ``"minmax"`` or ``"percentile"``.
    quantile : float
        Quantile of the percentile classifier.
    significance_level : float
        Records with ``p_value`` strictly below it are significant.
    metrics : tuple of str
        Metrics considered.
    correlations : pandas.DataFrame or None
        Per-region Pearson correlations when requested: ``region_id``,
        ``metric``, ``r``, ``p_value``, ``n_points``, ``start_t``, ``end_t``.
    excluded_aliases : tuple of str
        Columns left out automatically (``metrics=None``) because they are strictly
        monotone functions of the target (copies, unit conversions, the target before a
        normalisation): they are extreme at every job of interest by construction.

    Examples
    --------
    Returned by :func:`contributors`; one record per (region, metric):

    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import contributors, divergence_regions
    >>> t = np.arange(40) * 86400.0  # 40 daily probes
    >>> perf = np.where((t >= 15 * 86400) & (t < 25 * 86400), 0.6, 1.0)
    >>> perf[20] = 0.3  # the worst job of the slow region ...
    >>> load = np.ones(40); load[20] = 5.0  # ... ran under the highest load
    >>> frame = pd.DataFrame({"perf": perf, "load": load})
    >>> regions = divergence_regions(t, perf, short="4D", long="16D")
    >>> result = contributors(frame, regions, target="perf",
    ...                       metrics_higher_is_better={"load": False})
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    3 contributor records (minmax) for 3 jobs of interest; 0 anomalous observations
    with p < 0.1, 0 of them with a flagged metric
    >>> row = result[1]  # the slow region, whose job of interest is row 20
    >>> int(row["job_position"]), row["metric"], bool(row["flagged"])
    (20, 'load', True)
    """

    records: pd.DataFrame
    target: str
    classifier: str
    quantile: float
    significance_level: float
    metrics: tuple[str, ...]
    correlations: pd.DataFrame | None = None
    excluded_aliases: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.records)

    def _item(self, position: int) -> dict[str, Any]:
        row: dict[str, Any] = self.records.iloc[position].to_dict()
        return row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._item(position) for position in range(len(self.records)))

    def __getitem__(self, index: Any) -> Any:
        return select_items(index, len(self.records), self._item, "Contributors")

    def to_frame(self) -> pd.DataFrame:
        """One row per record: a copy of :attr:`records`.

        Returns
        -------
        pandas.DataFrame
        """
        return self.records.copy()

    def summary(
        self,
        *,
        binomial_p0: Any = "max_flagged",
        significance_level: float | None = None,
        multiple_testing: str = "holm",
    ) -> pd.DataFrame:
        """Rank metrics by significance, then by how often they were flagged.

        Parameters
        ----------
        binomial_p0 : "max_flagged" or float, default "max_flagged"
            Null success probability of the one-sided binomial test per metric:
            the largest ``p_value`` among the metric's flagged significant records (the
            reference code), or a fixed value (the paper's text says 0.10).
        significance_level : float, optional
            Defaults to the level stored in the result.
        multiple_testing : {"holm", "none"}, default "holm"
            Holm's correction of the binomial p-values over the metrics with at least one
            significant record, or none (the reference code, which marks a metric flagged
            once in one region significant at p = 1/11).

        Returns
        -------
        pandas.DataFrame
            One row per metric: ``fraction:<platform>`` (flagged significant records of that
            platform over all significant records of the metric), ``total``, ``k``
            (flagged), ``n`` (significant records), ``p0``, ``p_value`` (binomial,
            alternative "greater"; 1 when k = 0), ``p_value_adjusted`` and ``significant``
            (``p_value_adjusted <= significance_level``). Order: significant metrics first,
            then ``total`` descending (the effect), then ``p_value`` ascending, ``k``
            descending and the name. Lockwood et al.'s Fig. 10 sorts by ``total`` alone;
            their significant metrics lead it too, so its order is unchanged.
        """
        level = (
            self.significance_level
            if significance_level is None
            else check_probability(significance_level, "significance_level")
        )
        return ranking(self.records, level, binomial_p0, multiple_testing)

    def counts(self) -> dict[str, int]:
        """Headline counts: anomalous observations, flagged jobs and record numbers."""
        return _headline(self.records)

    def __str__(self) -> str:
        c = self.counts()
        return (
            f"{c['records']} contributor records ({self.classifier}) for "
            f"{c['jobs_with_records']} jobs of interest; {c['anomalous_observations']} "
            f"anomalous observations with p < {format_number(self.significance_level)}, "
            f"{c['flagged_significant']} of them with a flagged metric"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe data: settings, headline counts and the records as a list of dicts."""
        return {
            "target": self.target,
            "classifier": self.classifier,
            "quantile": self.quantile,
            "significance_level": self.significance_level,
            "metrics": list(self.metrics),
            "counts": self.counts(),
            "records": json_safe(self.records.to_dict(orient="records")),
            "correlations": None
            if self.correlations is None
            else json_safe(self.correlations.to_dict(orient="records")),
        }


def contributors(
    frame: pd.DataFrame, regions: Regions, *, target: str, metrics: Sequence[str] | None = None,
    metrics_higher_is_better: Mapping[str, bool] | str | None = None,
    classifier: ContributorClassifier = "minmax", quantile: float = 0.25,
    significance_level: float = 0.10, skip_constant: bool = False, group: Any = "all",
    platform: Any = None, correlations: bool | CorrelationOptions = False,
) -> Contributors:
    """Classify which metrics were at their worst at each region's job of interest.

    Classification, p-values and complexity (O(R·M·n)): see the module overview; see
    :class:`Contributors` for a further example.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows of one group, in the order used to compute ``regions``.
    regions : Regions
        Output of :func:`divergence_regions` on ``frame[target]`` (its ``higher_is_better``
        is the direction of the target).
    target : str
        Target column (performance); never itself a record.
    metrics : sequence of str, optional
        Metric columns; default every numeric column other than the target and its aliases
        (strictly monotone functions of the target; listed in ``excluded_aliases``).
    metrics_higher_is_better : mapping, "tokio" or None
        Direction of each metric (unlisted: higher-is-better); ``"tokio"``: TOKIO's.
    classifier : {"minmax", "percentile"}, default "minmax"
        ``"minmax"`` (SC'18 final): flagged iff the metric at the job is the region's worst.
        ``"percentile"`` (draft): flagged iff worse than the ``quantile`` percentile.
    quantile, significance_level : float, default 0.25 and 0.10
        Quantile of the percentile classifier; records with ``p_value <
        significance_level`` are significant.
    skip_constant : bool, default False
        Skip metrics that are constant within a region (the draft did).
    group, platform : optional
        Labels stored in the records (``platform`` defaults to ``group``).
    correlations : bool or CorrelationOptions, default False
        Also compute per-region Pearson correlations of every metric with the target
        (True: with the default :class:`CorrelationOptions`).

    Returns
    -------
    Contributors

    Raises
    ------
    InvalidInputError, EmptyGroupError
        ``frame`` does not match the regions or has no rows; unknown names, bad options.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pilotstats.smoothing import divergence_regions, contributors
    >>> t, perf = np.arange(40) * 86400.0, np.r_[np.ones(15), np.full(10, 0.6), np.ones(15)]
    >>> perf[20], load = 0.3, np.where(np.arange(40) == 20, 5.0, 1.0)
    >>> regions = divergence_regions(t, perf, short="4D", long="16D")
    >>> result = contributors(pd.DataFrame({"perf": perf, "load": load}), regions,
    ...                       target="perf", metrics_higher_is_better={"load": False})
    >>> round(float(result.records.iloc[1]["p_value"]), 3)  # 1 match among 9 values
    0.111
    """
    y = _check_frame(frame, regions, target)
    q, level = check_classifier_options(classifier, quantile, significance_level, skip_constant)
    directions = resolve_directions(metrics_higher_is_better)
    chosen = resolve_metrics(frame, metrics, target)
    aliases = target_aliases(frame, target, chosen) if metrics is None else []
    chosen = [m for m in chosen if m not in aliases]
    records = _group_records(frame, regions, target, y, chosen, directions, classifier, q,
                             bool(skip_constant))
    ids = records["region_id"].to_numpy()
    records = finish_records(
        records, group=[group] * len(records),
        platform=[group if platform is None else platform] * len(records),
        job_position=np.asarray(regions.job_positions)[ids],
        job_t=np.asarray(regions.job_times)[ids], significance_level=level)
    table = _region_correlation_table(frame, regions, target, chosen, correlations)
    return Contributors(records=records, target=target, classifier=str(classifier), quantile=q,
                        significance_level=level, metrics=tuple(chosen), correlations=table,
                        excluded_aliases=tuple(aliases))


def _group_records(frame: pd.DataFrame, regions: Regions, target: str, y: np.ndarray,
                   chosen: Sequence[str], directions: Mapping[str, bool], classifier: str,
                   q: float, skip_constant: bool) -> pd.DataFrame:
    """Classify the job of interest of every region holding one (warns on target ties)."""
    valid = np.asarray(regions.job_positions) >= 0
    region_ids = np.flatnonzero(valid)
    labels = np.full(len(frame), -1, dtype=np.int64)
    for new_id, k in enumerate(region_ids):
        labels[regions.starts[k] : regions.stops[k]] = new_id
    job_rows = np.asarray(regions.job_positions)[region_ids].astype(np.int64)
    records = classify_rows(frame, chosen, labels, job_rows, directions, classifier, q,
                            skip_constant)
    records["region_id"] = region_ids[records["region_id"].to_numpy()].astype(np.int64)
    bad = check_target_extreme(y, labels, job_rows, regions.higher_is_better, classifier, q)
    if bad:
        warnings.warn(
            f"in {bad} region(s) the job of interest does not pass the {classifier} test on "
            f"the target {target!r} itself (ties at the extreme)",
            TargetNotExtremeWarning,
            stacklevel=3,
        )
    return records


def _check_frame(frame: Any, regions: Any, target: Any) -> np.ndarray:
    """Check that ``frame[target]`` holds the values ``regions`` were built on; return them."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not isinstance(regions, Regions):
        raise InvalidInputError(
            f"regions must be the Regions result of divergence_regions, got "
            f"{type(regions).__name__}"
        )
    if len(frame) == 0:
        raise EmptyGroupError("frame has no rows; need the rows the regions were built from")
    if not isinstance(target, str) or target not in frame.columns:
        raise InvalidInputError(f"target {target!r} is not a column of frame")
    if len(frame) != regions.n:
        raise InvalidInputError(
            f"frame has {len(frame)} rows but the regions were computed on {regions.n} "
            "observations; pass the same rows in the same order"
        )
    y: np.ndarray = frame[target].to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.array_equal(y, np.asarray(regions.values), equal_nan=True):
        raise InvalidInputError(
            f"frame[{target!r}] differs from the values the regions were computed on; pass "
            "the same rows in the same order"
        )
    return y


def _region_correlation_table(frame: pd.DataFrame, regions: Regions, target: str,
                              chosen: Sequence[str],
                              correlations: bool | CorrelationOptions) -> pd.DataFrame | None:
    """The per-region correlations of :func:`contributors` (None when not requested)."""
    if not isinstance(correlations, CorrelationOptions):
        if not correlations:
            return None
        correlations = CorrelationOptions()
    threshold = check_probability(correlations.p_threshold, "p_threshold")
    minimum = check_int(correlations.min_points, "min_points", low=3)
    table = region_correlations(
        frame, target, chosen, regions.labels(), min_points=minimum, p_threshold=threshold
    ).rename(columns={"region": "region_id"})
    ids = table["region_id"].to_numpy(dtype=np.int64)
    table["start_t"] = np.asarray(regions.start_times)[ids]
    table["end_t"] = np.asarray(regions.end_times)[ids]
    return table


def finish_records(
    records: pd.DataFrame,
    *,
    group: Sequence[Any],
    platform: Sequence[Any],
    job_position: Any,
    job_t: Any,
    significance_level: float,
) -> pd.DataFrame:
    """Attach labels and job columns, add p-values, and order the columns."""
    records = records.copy()
    records["group"] = [str(g) for g in group]
    records["platform"] = [str(p) for p in platform]
    records["job_position"] = np.asarray(job_position, dtype=np.int64)
    records["job_t"] = np.asarray(job_t, dtype=np.float64)
    records = add_p_values(records, significance_level)
    return records[_RECORD_COLUMNS].reset_index(drop=True)


def region_correlations(
    frame: pd.DataFrame,
    target: str,
    metrics: Sequence[str],
    labels: Int64Array1D,
    *,
    min_points: int = 3,
    p_threshold: float = 1e-5,
) -> pd.DataFrame:
    """Pearson correlation of each metric with the target within each region.

    Regions with fewer than ``min_points`` non-NaN target values are skipped; each pair uses
    the rows where both values are non-NaN, skips constant inputs, and is kept when
    ``p < p_threshold`` and ``r < 0.9999`` (the second condition drops self-correlations).
    Returns columns ``region``, ``metric``, ``r``, ``p_value``, ``n_points``.
    """
    from scipy import stats

    y = frame[target].to_numpy(dtype=np.float64, na_value=np.nan)
    inside = labels >= 0
    rows = []
    if not inside.any():
        return pd.DataFrame(columns=["region", "metric", "r", "p_value", "n_points"])
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    boundaries = np.flatnonzero(np.diff(sorted_labels)) + 1
    columns = {
        m: frame[m].to_numpy(dtype=np.float64, na_value=np.nan)
        for m in metrics
        if isinstance(m, str) and pd.api.types.is_numeric_dtype(frame[m])
    }
    for chunk in np.split(order, boundaries):
        region = int(labels[chunk[0]])
        if region < 0:
            continue
        yr = y[chunk]
        if int(np.sum(~np.isnan(yr))) < min_points:
            continue
        for metric, values in columns.items():
            xr = values[chunk]
            both = ~np.isnan(xr) & ~np.isnan(yr)
            n = int(both.sum())
            if n < max(min_points, 3):
                continue
            a, b = xr[both], yr[both]
            if np.all(a == a[0]) or np.all(b == b[0]):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r, p = stats.pearsonr(a, b)
            r, p = float(r), float(p)
            if p < p_threshold and r < 0.9999:
                rows.append(
                    {"region": region, "metric": metric, "r": r, "p_value": p, "n_points": n}
                )
    return pd.DataFrame(rows, columns=["region", "metric", "r", "p_value", "n_points"])
