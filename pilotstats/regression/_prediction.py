"""Predictions of a calibrated model with linearised confidence intervals of the mean and
prediction intervals of a new measurement (``docs/algorithms/calibration.md``, *Inference*).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from pilotstats._stats import t_quantile
from pilotstats._validation import as_float_array
from pilotstats.exceptions import InvalidInputError
from pilotstats.regression._calibration_problem import FloatArray
from pilotstats.results import Result, draw, format_number, plot_doc


@dataclasses.dataclass(frozen=True, slots=True)
class Prediction(Result):
    """Model predictions with linearised confidence (or prediction) intervals.

    Attributes
    ----------
    values : ndarray, shape (T, m)
        ŷ = h(x̂, u) for each condition (row) and measure (column).
    stderr : ndarray, shape (T, m)
        Standard error: √C_jj (mean) or √(C_jj + mse·r_j) (new measurement).
    half_widths : ndarray, shape (T, m)
        t_{(1+c)/2; dof} · stderr.
    covariance : ndarray, shape (T, m, m)
        C = H P Hᵀ per condition (mean only).
    confidence_level : float
    dof : int
    kind : str
        ``"mean"`` (confidence interval of h) or ``"new observation"`` (prediction
        interval).

    Examples
    --------
    Returned by :meth:`CalibrationResult.predict` and
    :meth:`CalibrationResult.prediction_interval`:

    >>> import numpy as np
    >>> from pilotstats.regression import ClosedNetworkModel, calibrate
    >>> model = ClosedNetworkModel(3, think_time=10.0)
    >>> populations = [1, 4, 7, 10, 13, 16, 19]
    >>> z = model.evaluate_all(np.array([2.0, 3.0, 4.0]), populations)
    >>> z = z * (1 + 0.01 * np.sin(np.arange(z.size)).reshape(z.shape))  # 1 % "noise"
    >>> fit = calibrate(model, populations, z, [1.0, 1.0, 1.0])
    >>> prediction = fit.predict([25])  # extrapolate to 25 users
    >>> prediction.values.shape, prediction.kind
    ((1, 4), 'mean')
    >>> bool(np.all(prediction.half_widths > 0))
    True
    """

    values: FloatArray
    stderr: FloatArray
    half_widths: FloatArray
    covariance: FloatArray
    confidence_level: float
    dof: int
    kind: str

    @property
    def low(self) -> FloatArray:
        """Lower interval ends ŷ − half_widths."""
        return self.values - self.half_widths

    @property
    def high(self) -> FloatArray:
        """Upper interval ends ŷ + half_widths."""
        return self.values + self.half_widths

    def combine(self, coefficients: Any) -> tuple[FloatArray, FloatArray]:
        """Value and half-width of a linear combination aᵀy per condition (e.g. R = Σ T_i).

        Parameters
        ----------
        coefficients : array_like, shape (m,)

        Returns
        -------
        values, half_widths : ndarray, shape (T,)
            aᵀŷ and t·√(aᵀ C a) (mean intervals only).
        """
        a = as_float_array(coefficients, "coefficients")
        if a.shape[0] != self.values.shape[1]:
            raise InvalidInputError(
                f"coefficients must have one entry per measure ({self.values.shape[1]})"
            )
        if self.kind != "mean":
            raise InvalidInputError("combine() needs a mean prediction (from predict())")
        t = t_quantile(0.5 + self.confidence_level / 2, self.dof)
        variance = np.einsum("i,tij,j->t", a, self.covariance, a)
        return self.values @ a, t * np.sqrt(np.maximum(variance, 0.0))

    @plot_doc
    def plot(
        self,
        x_axis: Any,
        output: int = 0,
        *,
        ax: Any = None,
        xlabel: str | None = None,
        ylabel: str | None = None,
        unit: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw one output's predictions over the condition axis with their band.

        Needs matplotlib. The band is the confidence interval of the mean
        (:meth:`CalibrationResult.predict`) or the prediction interval of a new measurement
        (:meth:`CalibrationResult.prediction_interval`), as :attr:`kind` says.

        Parameters
        ----------
        x_axis : array_like, shape (T,)
            Position of each condition on the x axis (e.g. the populations N); the
            prediction does not keep its conditions.
        output : int, default 0
            Column (measure) to draw.
        {ax}
        xlabel, ylabel : str, optional
            Axis names (default ``"condition"`` and ``"output <j>"``).
        unit : str, optional
            Unit of the output, appended to the y label.
        title : str, optional
            Title (default: the kind of interval and the degrees of freedom).

        {returns}

        Raises
        ------
        InvalidInputError
            ``len(x_axis)`` is not the number of conditions, or ``output`` is out of range.
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from pilotstats.regression import calibrate
        >>> fit = calibrate(lambda p, u: p[0] * u, [1, 2, 3, 4], [2.1, 3.9, 6.2, 7.9], [1.0],
        ...                 weights=None)
        >>> ax = fit.predict([1, 5, 10]).plot([1, 5, 10], xlabel="load", unit="s")
        >>> ax.get_ylabel()
        'output 0 (s)'
        """
        return draw(
            self, x_axis, output, ax=ax, xlabel=xlabel, ylabel=ylabel, unit=unit, title=title
        )

    def __str__(self) -> str:
        return (
            f"{self.kind} prediction at {self.values.shape[0]} condition(s) × "
            f"{self.values.shape[1]} measure(s), {format_number(self.confidence_level * 100)} "
            f"% CI half-widths up to {format_number(float(np.max(self.half_widths)))}"
        )
