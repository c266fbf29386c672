"""pytest-benchmark test: python -m pytest test_workload.py --benchmark-json=OUT.json."""

from workload import WORK, sum_squares


def test_sum_squares(benchmark):
    benchmark(sum_squares, WORK)
