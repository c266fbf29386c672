"""Small embedded sample data sets for examples, demos and tests.

Each function returns a fresh float64 array (callers may modify it).
"""

from __future__ import annotations

import numpy as np

from pilotstats._typing import Float64Array1D

__all__ = [
    "binary_outcomes",
    "ferrari_response_times",
    "speed_of_light",
]

_FERRARI = (
    1.21, 1.67, 1.71, 1.53, 2.03, 2.15, 1.88, 2.02, 1.75, 1.84, 1.61, 1.35,
    1.43, 1.64, 1.52, 1.44, 1.17, 1.42, 1.64, 1.86, 1.68, 1.91, 1.73, 2.18,
    2.27, 1.93, 2.19, 2.04, 1.92, 1.97, 1.65, 1.71, 1.89, 1.70, 1.62, 1.48,
    1.55, 1.39, 1.45, 1.67, 1.62, 1.77, 1.88, 1.82, 1.93, 2.09, 2.24, 2.16,
)

_BINARY = (1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1)

_LIGHT_1 = (
    850, 740, 900, 1070, 930, 850, 950, 980, 980, 880, 1000, 980, 930, 650, 760,
    810, 1000, 1000, 960, 960, 960, 940, 960, 940, 880, 800, 850, 880, 900, 840,
    830, 790, 810, 880, 880, 830, 800, 790, 760, 800, 880, 880, 880, 860, 720,
    720, 620, 860, 970, 950, 880, 910, 850, 870, 840, 840, 850, 840, 840, 840,
    890, 810, 810, 820, 800, 770, 760, 740, 750, 760, 910, 920, 890, 860, 880,
    720, 840, 850, 850, 780, 890, 840, 780, 810, 760, 810, 790, 810, 820, 850,
    870, 870, 810, 740, 810, 940, 950, 800, 810, 870,
)

_LIGHT_2 = (
    883, 816, 778, 796, 682, 711, 611, 599, 1051, 781, 578, 796, 774, 820, 772,
    696, 573, 748, 748, 797, 851, 809, 723,
)


def ferrari_response_times() -> Float64Array1D:
    """48 response times in seconds, in time order (Ferrari 1978, *Computer Systems
    Performance Evaluation*, p. 79); the data set of Pilot's autocorrelation tests.

    Notes
    -----
    Complexity: O(1): embedded data.
    """
    return np.array(_FERRARI, dtype=np.float64)


def binary_outcomes() -> Float64Array1D:
    """20 pass/fail (1/0) outcomes used by Pilot's binomial-proportion tests.

    Notes
    -----
    Complexity: O(1): embedded data.
    """
    return np.array(_BINARY, dtype=np.float64)


def speed_of_light() -> tuple[Float64Array1D, Float64Array1D]:
    """Michelson's (n = 100) and Newcomb-style (n = 23) speed-of-light velocities
    (km/s minus 299,000), the two samples of Pilot's Welch-test example.

    Notes
    -----
    Complexity: O(1): embedded data.
    """
    return np.array(_LIGHT_1, dtype=np.float64), np.array(_LIGHT_2, dtype=np.float64)
