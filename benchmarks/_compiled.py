"""Imported before pilotstats by the benchmarks that time compiled kernels.

It turns the interpreted first calls off (``pilotstats/_kernels/_jit.py``) in this process
and in the processes it starts (Dask workers, CLI subprocesses), so that a benchmark's
warm-up call compiles every kernel it uses and no timed call runs a kernel's pure-Python
twin or pays a compilation. ``bench_cold_start.py`` does not import it: it measures the
first calls themselves.
"""

import os

os.environ["PILOTSTATS_INTERPRETED_TIER"] = "0"
