"""Real data sets bundled in the package (licences allowing redistribution) and typed
access to the downloadable ones."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pilotstats._typing import Float64Array1D
from pilotstats.datasets._remote import REMOTE_FILES, fetch
from pilotstats.exceptions import InvalidInputError

__all__ = [
    "TCPDSeries",
    "dataset_licence",
    "mongodb_series",
    "tcpd_names",
    "tcpd_series",
    "tokio_sample",
    "tokio_summaries",
]

_BUNDLED_TCPD = (
    "children_per_woman", "co2_canada", "gdp_argentina", "gdp_croatia", "gdp_iran",
    "gdp_japan", "jfk_passengers", "lga_passengers", "rail_lines", "shanghai_license",
)
_REMOTE_TCPD = ("nile", "seatbelts")
_TCPD_LICENCES = {
    **dict.fromkeys(
        ("gdp_argentina", "gdp_croatia", "gdp_iran", "gdp_japan", "rail_lines"),
        "CC BY 4.0 (World Bank)",
    ),
    **dict.fromkeys(("children_per_woman", "co2_canada"), "CC BY 4.0 (Gapminder)"),
    **dict.fromkeys(("jfk_passengers", "lga_passengers", "shanghai_license"), "CC0 1.0"),
    **dict.fromkeys(_REMOTE_TCPD, "GPL-2 (R datasets); downloaded, not bundled"),
}
_TCPD_CITATION = REMOTE_FILES["nile.json"].citation
_TOKIO_FILES = (
    "cori-summaries_2017-02-14-2018-02-15.csv.gz",
    "edison-summaries_2017-02-14-2018-02-15.csv.gz",
    "mira-summaries_2017-02-14_2018-02-15.csv.gz",
)


def _data(*parts: str) -> Any:
    return resources.files("pilotstats.datasets").joinpath("data", *parts)


@dataclass(frozen=True, eq=False)
class TCPDSeries:
    """One univariate series of the Turing Change Point Dataset with its annotations.

    Attributes
    ----------
    name, longname : str
        Short and descriptive name.
    values : numpy.ndarray
        The observations (float64, NaN where the source has a gap).
    time : tuple of str
        The time label of each observation (e.g. ``"1871"`` or ``"1977-01"``).
    annotations : dict
        Annotator id -> change points (0-based index of the first observation of a new
        regime), five annotators per series.
    licence, citation : str
        The data licence and the paper to cite.
    """

    name: str
    longname: str
    values: Float64Array1D = field(repr=False)
    time: tuple[str, ...] = field(repr=False)
    annotations: dict[str, tuple[int, ...]] = field(repr=False)
    licence: str
    citation: str

    def to_series(self) -> Any:
        """The values as a :class:`pandas.Series` indexed by the time labels.

        Examples
        --------
        >>> from pilotstats.datasets import tcpd_series
        >>> tcpd_series("gdp_japan").to_series().index[0]
        '1960'
        """
        import pandas as pd

        return pd.Series(self.values, index=pd.Index(self.time, name="time"), name=self.name)

    def __str__(self) -> str:
        return (
            f"TCPD {self.name}: {self.longname} (n = {self.values.size}, "
            f"{self.time[0]}..{self.time[-1]}; {len(self.annotations)} annotators; "
            f"licence {self.licence})"
        )


def tcpd_names() -> tuple[str, ...]:
    """Names of the TCPD series :func:`tcpd_series` provides (bundled, then downloadable).

    Notes
    -----
    Complexity: O(number of series).

    Examples
    --------
    >>> from pilotstats.datasets import tcpd_names
    >>> "gdp_japan" in tcpd_names() and "nile" in tcpd_names()
    True
    """
    return _BUNDLED_TCPD + _REMOTE_TCPD


def tcpd_series(name: str, *, cache_dir: str | os.PathLike[str] | None = None) -> TCPDSeries:
    """A univariate TCPD series (van den Burg & Williams 2020) with its five annotations.

    The CC0 and CC BY 4.0 series are bundled; the GPL-2 series (``nile``, ``seatbelts``)
    are downloaded on first use (see :func:`fetch`).

    Parameters
    ----------
    name : str
        One of :func:`tcpd_names`.
    cache_dir : str or path-like, optional
        Cache folder for downloaded series (see :func:`fetch`).

    Returns
    -------
    TCPDSeries

    Raises
    ------
    InvalidInputError
        Unknown name.
    DatasetDownloadError
        A downloadable series could not be fetched.

    Notes
    -----
    Complexity: O(size of the series file); a download the first time for series that are
    not bundled.

    Examples
    --------
    >>> from pilotstats.datasets import tcpd_series
    >>> japan = tcpd_series("gdp_japan")
    >>> print(japan.values.size, japan.time[0], japan.licence)
    58 1960 CC BY 4.0 (World Bank)
    """
    if name in _BUNDLED_TCPD:
        text = _data("tcpd", f"{name}.json").read_text(encoding="utf-8")
    elif name in _REMOTE_TCPD:
        text = fetch(f"{name}.json", cache_dir=cache_dir).read_text(encoding="utf-8")
    else:
        raise InvalidInputError(
            f"unknown TCPD series {name!r}; available: {', '.join(tcpd_names())}"
        )
    document = json.loads(text)
    raw = document["series"][0]["raw"]
    values = np.array([np.nan if v is None else v for v in raw], dtype=np.float64)
    time = document["time"]
    labels = tuple(str(t) for t in time.get("raw", time["index"]))
    notes = json.loads(_data("tcpd", "annotations.json").read_text(encoding="utf-8"))[name]
    return TCPDSeries(
        name=name, longname=str(document.get("longname", name)), values=values, time=labels,
        annotations={k: tuple(int(c) for c in v) for k, v in notes.items()},
        licence=_TCPD_LICENCES[name], citation=_TCPD_CITATION,
    )


def tokio_sample() -> Any:
    """162 daily Cori-KNL HACC-write jobs of the TOKIO data (Lockwood et al., SC'18).

    NERSC/pytokio's ``examples/sample_summary.csv.gz`` (modified BSD licence), bundled:
    one row per benchmark job with the TOKIO summary columns
    (``darshan_agg_perf_by_slowest_posix`` is the job's I/O rate in MiB/s).

    Returns
    -------
    pandas.DataFrame

    Notes
    -----
    Complexity: O(size of the bundled file).

    Examples
    --------
    >>> from pilotstats.datasets import tokio_sample
    >>> frame = tokio_sample()
    >>> len(frame), "darshan_agg_perf_by_slowest_posix" in frame
    (162, True)
    """
    import pandas as pd

    with _data("tokio", "sample_summary.csv.gz").open("rb") as handle:
        return pd.read_csv(handle, compression="gzip")


def tokio_summaries(*, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Folder holding the year-long TOKIO summaries of Cori, Edison and Mira (6 MB).

    Downloaded on first use from NERSC/tokio-abcutils (modified BSD licence), verified by
    SHA-256 and cached; the folder suits
    :func:`read_tokio_summaries`.

    Parameters
    ----------
    cache_dir : str or path-like, optional
        Cache folder (see :func:`fetch`).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    DatasetDownloadError
        A file could not be fetched.

    Notes
    -----
    Complexity: O(file size): one download and one SHA-256 pass, then the cached copy.

    Examples
    --------
    >>> from pilotstats.datasets import tokio_summaries
    >>> folder = tokio_summaries()  # doctest: +SKIP
    >>> sorted(p.name for p in folder.glob("*summaries*"))[0]  # doctest: +SKIP
    'cori-summaries_2017-02-14-2018-02-15.csv.gz'
    """
    paths = [fetch(name, cache_dir=cache_dir) for name in _TOKIO_FILES]
    return paths[0].parent


def mongodb_series() -> Float64Array1D:
    """A real MongoDB performance series (132 throughput values, in CI order).

    From mongodb/signal-processing-algorithms' tests (Apache-2.0; Daly et al., ICPE 2020),
    bundled.

    Notes
    -----
    Complexity: O(size of the bundled file).

    Examples
    --------
    >>> from pilotstats.datasets import mongodb_series
    >>> mongodb_series().size
    132
    """
    text = _data("mongodb", "real_series.json").read_text(encoding="utf-8")
    return np.asarray(json.loads(text), dtype=np.float64)


def dataset_licence(name: str) -> str:
    """Licence and citation text of a bundled data family: ``"tcpd"``, ``"tokio"`` or
    ``"mongodb"``.

    Parameters
    ----------
    name : str
        The data family.

    Returns
    -------
    str

    Raises
    ------
    InvalidInputError
        Unknown family.

    Notes
    -----
    Complexity: O(size of the licence files).

    Examples
    --------
    >>> from pilotstats.datasets import dataset_licence
    >>> "Redistribution and use" in dataset_licence("tokio")
    True
    """
    files = {"tcpd": ("LICENSE.md",), "tokio": ("CITATION.md", "LICENSE.md"),
             "mongodb": ("LICENSE.md",)}
    if not isinstance(name, str) or name not in files:
        raise InvalidInputError(f"unknown data family {name!r}; use one of {', '.join(files)}")
    return "\n\n".join(_data(name, f).read_text(encoding="utf-8") for f in files[name])
