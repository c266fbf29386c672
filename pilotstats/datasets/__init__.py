"""Sample and real data sets for examples, demos, notebooks and tests.

* Small embedded samples (``ferrari_response_times``, ``binary_outcomes``,
  ``speed_of_light``): each call returns a fresh float64 array.
* Real data bundled with its licence and citation (``pilotstats/datasets/data/``): TCPD
  series under CC0 / CC BY 4.0 (:func:`tcpd_series`), a TOKIO sample under modified BSD
  (:func:`tokio_sample`), a MongoDB performance series under Apache-2.0
  (:func:`mongodb_series`); :func:`dataset_licence` prints the texts.
* Larger files downloaded on first use with ``pooch`` (an optional dependency,
  ``pip install "pilotstats[data]"``), checked by SHA-256 and cached in the user cache
  folder: :func:`fetch`, :func:`tokio_summaries`, the GPL-2 TCPD series.
* :func:`read_tokio_summaries` loads the TOKIO year-long summaries with the SC'18 paper's
  cleaning.
"""

from pilotstats.datasets._bundled import (
    TCPDSeries,
    dataset_licence,
    mongodb_series,
    tcpd_names,
    tcpd_series,
    tokio_sample,
    tokio_summaries,
)
from pilotstats.datasets._embedded import binary_outcomes, ferrari_response_times, speed_of_light
from pilotstats.datasets._remote import REMOTE_FILES, RemoteFile, fetch
from pilotstats.datasets._tokio import SC18_DATE_RANGE, TOKIO_FILES, read_tokio_summaries

__all__ = [
    "REMOTE_FILES",
    "SC18_DATE_RANGE",
    "TOKIO_FILES",
    "RemoteFile",
    "TCPDSeries",
    "binary_outcomes",
    "dataset_licence",
    "ferrari_response_times",
    "fetch",
    "mongodb_series",
    "read_tokio_summaries",
    "speed_of_light",
    "tcpd_names",
    "tcpd_series",
    "tokio_sample",
    "tokio_summaries",
]
