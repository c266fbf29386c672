"""asv benchmarks: the same pure-Python loop as the other fixtures (WORK = 20000 base)."""

WORK = 20000


def _sum_squares(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


class SumSquares:
    """8 processes (asv rounds) of 5 samples each."""

    rounds = 8
    repeat = 5

    def time_sum_squares(self):
        _sum_squares(WORK)


def time_sum_squares_default():
    """asv's defaults: 2 rounds, up to 5 samples per round."""
    _sum_squares(WORK)
