"""pyperf Runner script: python pyperf_bench.py -o OUT.json --inherit-environ=PILOT_WORK."""

import pyperf
from workload import WORK, sum_squares

runner = pyperf.Runner()
runner.bench_func("sum_squares", sum_squares, WORK)
