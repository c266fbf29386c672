"""Conditions and weights of calibration trials: an open system measured as a closed one, and
trials weighted by their length (``docs/algorithms/calibration.md``, *Trials*).

* :func:`open_system_conditions` builds the rows [N, Z_t = N / f_t] with which a
  :class:`~pilotstats.regression.ClosedNetworkModel` (no fixed think time) models an open
  system whose measured throughput in trial t is f_t (Woodside's tutorial, WOSP/SIPEW 2010,
  slides 46 and 49: a large closed population with think time N/f behaves as an open
  Poisson stream of rate f).
* :func:`weights_from_sample_sizes` weights each trial by its length: the variance of a
  trial's mean is about proportional to 1/S for S samples (slide 15).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from pilotstats._validation import as_float_array, check_bool, check_int
from pilotstats.exceptions import InvalidInputError

__all__ = ["SampleSizeWeights", "open_system_conditions", "weights_from_sample_sizes"]

FloatArray = npt.NDArray[np.float64]


def open_system_conditions(throughputs: Any, *, population: int = 5000) -> FloatArray:
    """Conditions [N, Z_t = N / f_t] that model an open system as a closed one.

    Woodside's tutorial (WOSP/SIPEW 2010, slides 46 and 49) fits an open system with a
    closed model: each trial's measured throughput f_t becomes a closed class of large
    population N and think time Z_t = N / f_t, which approaches an open Poisson stream of
    rate f_t as N grows (see :func:`open_as_closed` for one solve).

    Parameters
    ----------
    throughputs : array_like, shape (T,) or (T, C)
        Measured throughput of each trial (and class), responses per second, > 0.
    population : int, default 5000
        N for every class. Convergence in N is slow near saturation (at N = 1000 a
        station at 80 % utilization is still 4 % low; the spec's reference case RC-5);
        exact single-class MVA costs O(N K) per distinct think time.

    Returns
    -------
    ndarray, shape (T, 2 C)
        Rows ``[N_1, ..., N_C, Z_1, ..., Z_C]``, the condition layout of a
        :class:`ClosedNetworkModel` built without ``think_time``.

    Raises
    ------
    InvalidInputError
        Non-positive or non-finite throughputs, or a population < 1.

    See Also
    --------
    open_as_closed : solve one open system as closed.

    Notes
    -----
    Complexity O(T C).

    Examples
    --------
    >>> from pilotstats.regression import open_system_conditions
    >>> open_system_conditions([0.1, 0.2], population=1000)
    array([[ 1000., 10000.],
           [ 1000.,  5000.]])
    """
    n = check_int(population, "population", low=1)
    raw = np.asarray(throughputs, dtype=object)
    rates = as_float_array(throughputs, "throughputs", ndim=2 if raw.ndim == 2 else 1,
                           positive=True)
    rates = rates[:, None] if rates.ndim == 1 else rates
    with np.errstate(over="ignore"):
        think = n / rates
    if not np.isfinite(think).all():
        raise InvalidInputError(
            "a throughput is so small that population / throughput overflows; rescale "
            "the time unit"
        )
    out = np.concatenate([np.full(rates.shape, float(n)), think], axis=1)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class SampleSizeWeights:
    """Calibration weights proportional to each trial's sample size (a ``weights=`` callable).

    Called by :func:`~pilotstats.regression.calibrate` as ``w(y, z)`` with the current
    predictions y and the measurements z, both (T, m); returns (T, m) weights
    ``s_t / mean(s)`` (``relative=False``) or ``s_t / mean(s) / y_tj²`` (``relative=True``,
    the IRLS weights scaled by the trial lengths).

    Attributes
    ----------
    sample_sizes : ndarray, shape (T,)
    relative : bool

    Examples
    --------
    >>> from pilotstats.regression import weights_from_sample_sizes
    >>> w = weights_from_sample_sizes([100, 300], relative=False)
    >>> w([[1.0], [1.0]], None).tolist()
    [[0.5], [1.5]]
    """

    sample_sizes: FloatArray
    relative: bool

    def __call__(self, y: Any, z: Any) -> FloatArray:
        predictions = np.asarray(y, dtype=np.float64)
        if predictions.ndim == 1:
            predictions = predictions[:, None]
        if predictions.shape[0] != self.sample_sizes.shape[0]:
            raise InvalidInputError(
                f"the weights were built for {self.sample_sizes.shape[0]} trials but the "
                f"calibration has {predictions.shape[0]}"
            )
        scale = (self.sample_sizes / self.sample_sizes.mean())[:, None]
        if not self.relative:
            out: FloatArray = np.broadcast_to(scale, predictions.shape).copy()
            return out
        if (predictions == 0).any():
            raise InvalidInputError(
                "relative weights 1/y^2 need non-zero predictions; use relative=False"
            )
        weights: FloatArray = scale / predictions**2
        return weights


def weights_from_sample_sizes(sample_sizes: Any, *, relative: bool = True) -> SampleSizeWeights:
    """Weights for trials of different lengths: variance of a trial's mean ~ 1/S.

    Woodside's tutorial (WOSP/SIPEW 2010, slide 15): a measured mean over S samples has a
    variance about proportional to 1/S, so a trial twice as long deserves twice the weight.
    Pass the result as ``calibrate(..., weights=weights_from_sample_sizes(sizes))``.

    Parameters
    ----------
    sample_sizes : array_like, shape (T,)
        Samples (responses, or seconds of measurement) behind each trial's measurements,
        > 0.
    relative : bool, default True
        Combine with the constant-coefficient-of-variation weights 1/y² of IRLS (the
        default weighting of :func:`calibrate`): W_tj = (S_t / S̄) / y_tj(x̂)². False:
        W_tj = S_t / S̄ (absolute errors).

    Returns
    -------
    SampleSizeWeights
        A callable ``w(y, z) -> (T, m)`` for ``weights=``; calibrate iterates it like IRLS.

    Raises
    ------
    InvalidInputError
        Non-positive or non-finite sample sizes.

    Notes
    -----
    Only the weights' shape matters (the mse re-estimates the scale), so they are
    normalised to mean 1. Prediction intervals of such a fit need
    ``variance_shape=`` (1/weight at the new conditions). Complexity O(T m) per call.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import calibrate, weights_from_sample_sizes
    >>> u = np.array([1.0, 2.0, 3.0, 4.0])
    >>> fit = calibrate(lambda p, v: p[0] * v, u, [2.1, 3.9, 6.2, 7.9], [1.0],
    ...                 weights=weights_from_sample_sizes([10, 10, 40, 40]))
    >>> round(float(fit.params[0]), 3)
    2.022
    """
    sizes = as_float_array(sample_sizes, "sample_sizes", positive=True)
    sizes.setflags(write=False)
    return SampleSizeWeights(sample_sizes=sizes, relative=check_bool(relative, "relative"))
