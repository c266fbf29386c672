"""The workload every Python fixture times: a pure-Python loop over ``PILOT_WORK`` integers.

The base variant uses PILOT_WORK=20000; the slow variant 26000 (1.3x the work).
"""

import os

WORK = int(os.environ.get("PILOT_WORK", "20000"))


def sum_squares(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total
