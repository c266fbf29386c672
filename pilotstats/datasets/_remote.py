"""Data sets too large to bundle: downloaded on first use with ``pooch`` and cached.

Each file has a fixed upstream URL (pinned to a commit) and a SHA-256; a download whose hash
differs is refused. Files are cached in the user cache folder (``pooch.os_cache``), or in
``PILOTSTATS_DATA_DIR`` when that variable is set. ``PILOTSTATS_DATA_URL`` replaces every
upstream URL by ``<PILOTSTATS_DATA_URL>/<file name>`` (a mirror, or a local server in tests).
``pooch`` is an optional dependency (``pip install "pilotstats[data]"``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pilotstats.exceptions import DatasetDownloadError, InvalidInputError, MissingDependencyError

__all__ = ["REMOTE_FILES", "RemoteFile", "fetch"]

_TOKIO = "https://raw.githubusercontent.com/NERSC/tokio-abcutils"
_TCPD = (
    "https://raw.githubusercontent.com/alan-turing-institute/TCPD/"
    "7c6c2e09e3ad1d41f26869cb7b9f9882175c8a6e/datasets"
)
_TOKIO_LICENCE = "modified BSD (LBNL), see pilotstats/datasets/data/tokio/LICENSE.md"
_TOKIO_CITATION = (
    'G. K. Lockwood et al., "A Year in the Life of a Parallel File System", SC\'18, 2018'
)
_TCPD_CITATION = (
    'G. J. J. van den Burg and C. K. I. Williams, "An Evaluation of Change Point Detection '
    'Algorithms", arXiv:2003.06222, 2020'
)


@dataclass(frozen=True)
class RemoteFile:
    """One downloadable file: its URL, SHA-256, licence and citation."""

    filename: str
    url: str
    sha256: str
    licence: str
    citation: str


REMOTE_FILES: dict[str, RemoteFile] = {
    item.filename: item
    for item in (
        RemoteFile(
            "cori-summaries_2017-02-14-2018-02-15.csv.gz",
            f"{_TOKIO}/813906d34e328ee33d1a909058675b2704fd7e86/summaries/"
            "cori-summaries_2017-02-14-2018-02-15.csv.gz",
            "6ab5e6ae540d312885a3cc12773fd4318315e5200a2df18c605b674aaea60bb3",
            _TOKIO_LICENCE, _TOKIO_CITATION,
        ),
        RemoteFile(
            "edison-summaries_2017-02-14-2018-02-15.csv.gz",
            f"{_TOKIO}/813906d34e328ee33d1a909058675b2704fd7e86/summaries/"
            "edison-summaries_2017-02-14-2018-02-15.csv.gz",
            "64719cafd2f260dc5dacc94eddf149750cbac13110e65b1e5c8042d1de72e29d",
            _TOKIO_LICENCE, _TOKIO_CITATION,
        ),
        RemoteFile(
            "mira-summaries_2017-02-14_2018-02-15.csv.gz",
            f"{_TOKIO}/94d4ee74f4f5c5b22b651c9c0ef2e30baa039743/summaries/"
            "mira-summaries_2017-02-14_2018-02-15.csv.gz",
            "c67f021fb1aa8fe04d85c290220ffc2caa8b7b21097209ed430b8510a6c58f45",
            _TOKIO_LICENCE, _TOKIO_CITATION,
        ),
        RemoteFile(
            "nile.json", f"{_TCPD}/nile/nile.json",
            "1d3bd0c3d8b4cbb5d1368aa1128d59631cfc71889f110def34ec42ba91ec9103",
            "GPL-2 (R datasets), via the TCPD repository", _TCPD_CITATION,
        ),
        RemoteFile(
            "seatbelts.json", f"{_TCPD}/seatbelts/seatbelts.json",
            "aacf93cbd3b41bba6d7fe9855172a0a54b5d2a605ba0998b29e4e6823804a11f",
            "GPL-2 (R datasets), via the TCPD repository", _TCPD_CITATION,
        ),
    )
}


def _cache_dir(cache_dir: str | os.PathLike[str] | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    configured = os.environ.get("PILOTSTATS_DATA_DIR")
    if configured:
        return Path(configured)
    return Path(_import_pooch().os_cache("pilotstats"))


def _import_pooch() -> Any:
    """``import pooch`` without tqdm's Jupyter warning.

    pooch imports ``tqdm.auto`` for its optional progress bars, which in a Jupyter kernel
    without ipywidgets warns "IProgress not found" (a red box in the notebook). pilotstats
    downloads without a progress bar (``progressbar=False``), so that warning, and tqdm's
    notebook-mode note when ipywidgets is installed, say nothing about what happens.

    Raises
    ------
    ImportError
        pooch is not installed.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"IProgress not found")
        warnings.filterwarnings("ignore", message=r"Using `tqdm\.autonotebook\.tqdm`")
        import pooch
    return pooch


def fetch(filename: str, *, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Path of a downloadable data file, downloading and verifying it on first use.

    Parameters
    ----------
    filename : str
        A key of :data:`REMOTE_FILES`, e.g. ``"nile.json"``.
    cache_dir : str or path-like, optional
        Folder of the cached files. Default: ``PILOTSTATS_DATA_DIR`` when set, else the
        user cache folder (``pooch.os_cache("pilotstats")``).

    Returns
    -------
    pathlib.Path
        The local file, whose SHA-256 matches the registry.

    Raises
    ------
    InvalidInputError
        Unknown file name.
    MissingDependencyError
        ``pooch`` is not installed.
    DatasetDownloadError
        Offline, the server failed, or the downloaded file's hash differs.

    Notes
    -----
    Complexity: O(file size): one download and one SHA-256 pass, then the cached copy.

    Examples
    --------
    >>> from pilotstats.datasets import fetch
    >>> path = fetch("nile.json")  # doctest: +SKIP
    >>> path.name  # doctest: +SKIP
    'nile.json'
    >>> fetch("nothing.csv")
    Traceback (most recent call last):
    ...
    pilotstats.exceptions.InvalidInputError: unknown data file 'nothing.csv'; downloadable files: cori-summaries_2017-02-14-2018-02-15.csv.gz, edison-summaries_2017-02-14-2018-02-15.csv.gz, mira-summaries_2017-02-14_2018-02-15.csv.gz, nile.json, seatbelts.json
    """  # noqa: E501
    item = REMOTE_FILES.get(filename)
    if item is None:
        raise InvalidInputError(
            f"unknown data file {filename!r}; downloadable files: {', '.join(REMOTE_FILES)}"
        )
    try:
        pooch = _import_pooch()
    except ImportError as error:
        raise MissingDependencyError(
            f"downloading {filename} needs pooch: pip install \"pilotstats[data]\"",
            package="pooch",
        ) from error
    folder = _cache_dir(cache_dir)
    mirror = os.environ.get("PILOTSTATS_DATA_URL")
    url = f"{mirror.rstrip('/')}/{filename}" if mirror else item.url
    pooch.get_logger().setLevel("WARNING")
    try:
        path = pooch.retrieve(
            url, known_hash=f"sha256:{item.sha256}", fname=filename, path=folder,
            progressbar=False,
        )
    except Exception as error:  # requests' connection errors, HTTP errors, hash mismatch
        raise DatasetDownloadError(
            f"could not download {filename} from {url} ({type(error).__name__}: {error}). "
            f"Connect to the network and retry, or place a copy of the file (SHA-256 "
            f"{item.sha256}) at {folder / filename}",
            url=url, path=str(folder / filename),
        ) from error
    return Path(path)
