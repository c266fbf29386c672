"""Comparing calibrated models: F-tests for nested models and polynomial curve fits.

Documentation: ``docs/algorithms/calibration.md`` (*Model comparison and identifiability*). The
extra-sum-of-squares F statistic for nested models fitted with the same weights, its
relation to statsmodels' ``compare_f_test`` and ``anova_lm``, and polynomial curve-fit
models with a comparison table across degrees.

References
----------
.. [1] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989, §5.3
   (extra-sum-of-squares F test, a linearisation approximation for nonlinear models).
.. [2] M. Woodside, "Regression techniques for performance parameter estimation",
   tutorial, WOSP/SIPEW 2010.

:func:`compare_polynomials`, notes:

Fits use statsmodels ``WLS`` on a Vandermonde design; centring or scaling N changes
neither SSE nor F. With only total response time measured a low-degree polynomial fits
about as well as the queueing model, whose demands are then not identifiable: the
tutorial's argument for measuring per station ([2]_).

:func:`compare_polynomials`, references:

.. [2] M. Woodside, WOSP/SIPEW 2010 tutorial.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from pilotstats._validation import (
    as_float_array,
    as_parameter_vector,
    check_choice,
    check_int,
    check_int_sequence,
    check_probability,
)
from pilotstats.exceptions import (
    InvalidInputError,
    NotEnoughDataError,
)
from pilotstats.regression._calibration import CalibrationResult
from pilotstats.regression._f_test import FTestResult, _f_from_sse, f_test
from pilotstats.results import Result, format_number

__all__ = [
    "FTestResult",
    "NonNestedComparison",
    "PolynomialComparison",
    "PolynomialModel",
    "compare_non_nested",
    "compare_polynomials",
    "f_test",
    "polynomial_model",
]

FloatArray = npt.NDArray[np.float64]


def _readonly(array: npt.ArrayLike) -> FloatArray:
    out = np.array(array, dtype=np.float64, copy=True)
    out.setflags(write=False)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class NonNestedComparison(Result):
    """Comparison of two non-nested models with the same number of parameters.

    Attributes
    ----------
    mse_a, mse_b : float
        Mean squared (weighted) errors S/dof of the two fits.
    dof_a, dof_b : int
    ratio : float
        mse_a / mse_b (> 1 favours model B).
    rough_p_value : float
        P(F_{dof_a, dof_b} > ratio): a **rough guide only** — both fits use the same data,
        so the two mse are not independent and the F law does not hold.
    preferred : str
        ``"a"`` or ``"b"`` (smaller mse).

    Examples
    --------
    Returned by :func:`compare_non_nested`:

    >>> import numpy as np
    >>> from pilotstats.regression import calibrate, compare_non_nested, polynomial_model
    >>> n = np.arange(1.0, 11.0)
    >>> z = 2.0 + 3.0 * np.log(n) + 0.01 * np.sin(5 * n)
    >>> line = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    >>> logarithmic = calibrate(lambda x, u: x[0] + x[1] * np.log(u), n, z, [0.0, 0.0],
    ...                         weights=None)
    >>> comparison = compare_non_nested(line, logarithmic)
    >>> comparison.preferred, comparison.ratio > 100
    ('b', True)
    """

    mse_a: float
    mse_b: float
    dof_a: int
    dof_b: int
    ratio: float
    rough_p_value: float
    preferred: str

    def __str__(self) -> str:
        return (
            f"mse A = {format_number(self.mse_a, 5)}, mse B = {format_number(self.mse_b, 5)}, "
            f"ratio {format_number(self.ratio, 4)} (rough guide p = "
            f"{format_number(self.rough_p_value, 3)}); model {self.preferred.upper()} fits better"
        )


def compare_non_nested(a: CalibrationResult, b: CalibrationResult) -> NonNestedComparison:
    """Compare two non-nested calibrations of equal size by their mse.

    Parameters
    ----------
    a, b : CalibrationResult
        Fits of two models with the same number of parameters to the same measurements
        (e.g. one server against two servers at a station).

    Returns
    -------
    NonNestedComparison
        The mse of each fit, their ratio and, labelled as a rough guide only, the tail
        probability of the ratio under F(dof_a, dof_b).

    Raises
    ------
    InvalidInputError
        Different measurements or different numbers of parameters (use :func:`f_test`
        for nested models).

    Notes
    -----
    With weights that depend on the model (IRLS) each mse uses its own final weights;
    these are relative squared errors and remain comparable.

    Complexity: O(1).

    Examples
    --------
    A logarithmic curve and a straight line (two parameters each) fitted to data that grow
    logarithmically; the ratio of their mse favours the logarithmic model ``b``:

    >>> import numpy as np
    >>> from pilotstats.regression import calibrate, polynomial_model
    >>> n = np.arange(1.0, 11.0)
    >>> z = 2.0 + 3.0 * np.log(n) + 0.01 * np.sin(5 * n)
    >>> line = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    >>> logarithmic = calibrate(lambda x, u: x[0] + x[1] * np.log(u), n, z, [0.0, 0.0],
    ...                         weights=None)
    >>> print(compare_non_nested(line, logarithmic))
    mse A = 0.51701, mse B = 5.373e-05, ratio 9622 (rough guide p = 4.08e-15); model B fits better
    """
    from scipy import stats  # imported here, as in _f_from_sse

    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, CalibrationResult):
            raise InvalidInputError(f"{name} must be a CalibrationResult from calibrate()")
    if a._problem.z.shape != b._problem.z.shape or not np.array_equal(
        a._problem.z, b._problem.z, equal_nan=True
    ):
        raise InvalidInputError("a and b must be fitted to the same measurements")
    if a.params.shape != b.params.shape:
        raise InvalidInputError(
            "a and b must have the same number of parameters; for nested models use f_test"
        )
    ratio = a.mse / b.mse if b.mse > 0 else math.inf
    return NonNestedComparison(
        mse_a=float(a.mse),
        mse_b=float(b.mse),
        dof_a=int(a.dof),
        dof_b=int(b.dof),
        ratio=float(ratio),
        rough_p_value=float(stats.f.sf(ratio, a.dof, b.dof)),
        preferred="b" if ratio > 1 else "a",
    )


class PolynomialModel:
    """Polynomial curve-fit model h(x, N) = Σ_k x_k N^k, k = 0..degree.

    Linear in x, so :func:`calibrate` converges in one Gauss–Newton step and equals WLS.

    Parameters
    ----------
    degree : int

    Attributes
    ----------
    degree : int
    n_parameters : int
    parameter_names : tuple of str
        ``("a0", "a1", ...)``.

    Notes
    -----
    Complexity: O(T·p) per evaluation for T trials and p coefficients.

    Examples
    --------
    Built by :func:`polynomial_model`; calling it evaluates the polynomial:

    >>> from pilotstats.regression import polynomial_model
    >>> quadratic = polynomial_model(2)
    >>> quadratic.degree, quadratic([1.0, 2.0, 3.0], 2.0)  # 1 + 2*2 + 3*2**2
    (2, 17.0)
    """

    def __init__(self, degree: int) -> None:
        self.degree = check_int(degree, "degree", low=0, high=20)
        self.n_parameters = self.degree + 1
        self.parameter_names = tuple(f"a{k}" for k in range(self.n_parameters))

    def __repr__(self) -> str:
        return f"polynomial_model({self.degree})"

    def __call__(self, params: Any, u: Any) -> float:
        """Value at one condition N."""
        return float(self.evaluate_all(params, [u])[0, 0])

    def evaluate_all(self, params: Any, conditions: Any) -> FloatArray:
        """Values at every condition, shape (T, 1)."""
        coefficients = as_parameter_vector(params, self.n_parameters)
        n = as_float_array(conditions, "conditions")
        with np.errstate(over="ignore", invalid="ignore"):
            design = np.vander(n, self.n_parameters, increasing=True)
            out: FloatArray = (design @ coefficients)[:, None]
        if not np.isfinite(out).all():
            raise InvalidInputError(
                "the polynomial overflows float64 at these conditions; rescale them (e.g. "
                "change the unit)")
        return out


def polynomial_model(degree: int) -> PolynomialModel:
    """A polynomial curve-fit model usable with :func:`calibrate`.

    Parameters
    ----------
    degree : int
        Polynomial degree d >= 0; the model has d + 1 coefficients a_0..a_d.

    Returns
    -------
    PolynomialModel
        h(x, N) = Σ_{k=0..d} x_k N^k; conditions are the scalars N.

    Notes
    -----
    Complexity: O(1); evaluating the model is O(T·p).

    Examples
    --------
    >>> from pilotstats.regression import polynomial_model
    >>> polynomial_model(2)([1.0, 2.0, 3.0], 2.0)
    17.0
    """
    return PolynomialModel(degree)


@dataclasses.dataclass(frozen=True, slots=True)
class PolynomialComparison(Result):
    """Polynomial fits of increasing degree with sequential F tests.

    Attributes
    ----------
    degrees : tuple of int
    sse : ndarray
        Weighted SSE of each degree with its own final weights.
    dof : ndarray of int
        T − (d + 1).
    mse : ndarray
    coefficients : tuple of ndarray
        Fitted coefficients a_0..a_d of each degree.
    statistic, p_value : ndarray
        Test of "degree d+1 vs d" in row d (NaN in the last row).
    dof1, dof2 : ndarray of int
        Degrees of freedom of each test.
    recommended_degree : int
        Smallest d whose "d+1 vs d" test is not significant (the largest degree if all
        are).
    significance_level : float
    weighting : str
    denominator : str
        ``"pairwise"`` (mse of the larger model of each pair) or ``"largest"`` (mse of
        the largest model listed, as ``statsmodels.stats.anova.anova_lm``).

    Examples
    --------
    Returned by :func:`compare_polynomials`:

    >>> import numpy as np
    >>> from pilotstats.regression import compare_polynomials
    >>> n = np.arange(1.0, 21.0)
    >>> z = 5 + 0.3 * n + 0.05 * n**2 + 0.01 * np.cos(3 * n)
    >>> result = compare_polynomials(n, z, degrees=range(1, 5), weights=None)
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    polynomial comparison (ols, pairwise F): recommended degree 2 of [1, 2, 3, 4]
    at significance level 0.05
    >>> result.recommended_degree
    2
    """

    degrees: tuple[int, ...]
    sse: FloatArray
    dof: npt.NDArray[np.int64]
    mse: FloatArray
    coefficients: tuple[FloatArray, ...]
    statistic: FloatArray
    p_value: FloatArray
    dof1: npt.NDArray[np.int64]
    dof2: npt.NDArray[np.int64]
    recommended_degree: int
    significance_level: float
    weighting: str
    denominator: str

    def table(self) -> str:
        """A text table: degree, SSE, dof, F and p of the next-degree test."""
        lines = [f"{'degree':>6} {'SSE':>12} {'dof':>4} {'F (d+1 vs d)':>13} {'p':>10}"]
        for i, d in enumerate(self.degrees):
            f_text = "" if math.isnan(self.statistic[i]) else f"{self.statistic[i]:.4g}"
            p_text = "" if math.isnan(self.p_value[i]) else f"{self.p_value[i]:.4g}"
            mark = "  <- recommended" if d == self.recommended_degree else ""
            lines.append(
                f"{d:>6} {self.sse[i]:>12.6g} {self.dof[i]:>4} {f_text:>13} {p_text:>10}{mark}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return (
            f"polynomial comparison ({self.weighting}, {self.denominator} F): recommended "
            f"degree {self.recommended_degree} of {list(self.degrees)} at significance level "
            f"{format_number(self.significance_level)}"
        )


def _wls(design: FloatArray, z: FloatArray, w: FloatArray) -> tuple[FloatArray, float]:
    from statsmodels.regression.linear_model import WLS

    result = WLS(z, design, weights=w).fit()
    return np.asarray(result.params, dtype=np.float64), float(result.ssr)


def _fit_degree(
    n: FloatArray, z: FloatArray, degree: int, scheme: str, given: FloatArray | None
) -> tuple[FloatArray, FloatArray, float]:
    """Fit one degree with its own weights; return coefficients, final weights, SSE."""
    design = np.vander(n, degree + 1, increasing=True)
    if scheme == "ols":
        w = np.ones_like(z)
    elif scheme == "array":
        assert given is not None
        w = given
    else:
        w = 1.0 / z**2
    coefficients, sse = _wls(design, z, w)
    if scheme == "irls":
        for _ in range(50):
            y = design @ coefficients
            if (y == 0).any():
                raise InvalidInputError(
                    f"IRLS weights need non-zero predictions; degree {degree} predicts 0"
                )
            w = 1.0 / y**2
            new, sse = _wls(design, z, w)
            change = np.max(np.abs(new - coefficients) / np.maximum(np.abs(new), 1e-300))
            coefficients = new
            if change <= 1e-10:
                break
        y = design @ coefficients
        w = 1.0 / y**2
        sse = float((w * (z - y) ** 2).sum())
    return coefficients, w, sse


def _polynomial_inputs(
    populations: Any,
    measurements: Any,
    degrees: Iterable[int],
    weights: Any,
    significance_level: float,
    denominator: str,
) -> tuple[FloatArray, FloatArray, list[int], float, str, FloatArray | None]:
    """Checked N, z, degrees, significance level and weighting scheme (with given weights)."""
    n = as_float_array(populations, "populations")
    z = as_float_array(measurements, "measurements")
    if n.shape != z.shape:
        raise InvalidInputError(
            f"populations and measurements must have the same length, got {n.shape[0]} and "
            f"{z.shape[0]}"
        )
    degree_list = sorted(check_int_sequence(degrees, "degrees", low=0, high=20))
    if len(degree_list) < 2 or np.any(np.diff(degree_list) != 1):
        raise InvalidInputError(
            f"degrees must be at least two consecutive integers, got {degree_list}"
        )
    significance = check_probability(significance_level, "significance_level")
    check_choice(denominator, "denominator", ("pairwise", "largest"))
    given: FloatArray | None = None
    if weights is None:
        scheme = "ols"
    elif isinstance(weights, str):
        scheme = check_choice(weights, "weights", ("irls", "fixed"))
        if (z == 0).any():
            raise InvalidInputError(
                f"weights={weights!r} needs non-zero measurements; use weights=None"
            )
    else:
        scheme = "array"
        given = as_float_array(weights, "weights", nonnegative=True)
        if given.shape != z.shape:
            raise InvalidInputError("weights must have one value per measurement")
    top = degree_list[-1]
    if z.shape[0] - (top + 1) < 1:
        raise NotEnoughDataError(
            f"{z.shape[0]} measurements leave no residual dof for degree {top}; need at "
            f"least {top + 2}"
        )
    return n, z, degree_list, significance, scheme, given


def _sequential_f_tests(
    n: FloatArray,
    z: FloatArray,
    degree_list: list[int],
    fits: list[tuple[FloatArray, FloatArray, float]],
    dof: npt.NDArray[np.int64],
    denominator: str,
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """F statistic, p-value and dof of each "d+1 vs d" test (NaN / 0 in the last row)."""
    k = len(degree_list)
    statistic = np.full(k, np.nan)
    p_value = np.full(k, np.nan)
    dof1 = np.zeros(k, dtype=np.int64)
    dof2 = np.zeros(k, dtype=np.int64)
    if denominator == "largest":
        common = fits[-1][1]
        common_sse = [
            _wls(np.vander(n, d + 1, increasing=True), z, common)[1] for d in degree_list
        ]
        mse_top = common_sse[-1] / dof[-1]
        for i in range(k - 1):
            # as anova_lm: F over the largest model's mse, referred to F(1, dof of the
            # larger model of the row)
            statistic[i], p_value[i] = _f_from_sse(
                common_sse[i], common_sse[i + 1], 1, int(dof[-1]), mse_top, int(dof[i + 1])
            )
            dof1[i], dof2[i] = 1, dof[i + 1]
    else:
        for i in range(k - 1):
            common = fits[i + 1][1]
            small = _wls(np.vander(n, degree_list[i] + 1, increasing=True), z, common)[1]
            big = _wls(np.vander(n, degree_list[i + 1] + 1, increasing=True), z, common)[1]
            df_big = int(dof[i + 1])
            statistic[i], p_value[i] = _f_from_sse(small, big, 1, df_big, big / df_big, df_big)
            dof1[i], dof2[i] = 1, df_big
    return statistic, p_value, dof1, dof2


def _recommended_degree(
    degree_list: list[int], p_value: FloatArray, significance: float
) -> int:
    """Smallest degree whose next-degree test is not significant (else the largest)."""
    recommended = degree_list[-1]
    for i in range(len(degree_list) - 1):
        if p_value[i] >= significance:
            recommended = degree_list[i]
            break
    return recommended


def compare_polynomials(
    populations: Any,
    measurements: Any,
    degrees: Iterable[int] = range(1, 6),
    *,
    weights: Literal["irls", "fixed"] | npt.ArrayLike | None = "irls",
    significance_level: float = 0.05,
    denominator: Literal["pairwise", "largest"] = "pairwise",
) -> PolynomialComparison:
    """Fit polynomials of several degrees and test each against the next.

    Parameters
    ----------
    populations : array_like, shape (T,)
        Conditions N of each trial (one scalar measurement per trial).
    measurements : array_like, shape (T,)
        Measured z (e.g. total response time).
    degrees : iterable of int, default range(1, 6)
        Consecutive degrees to compare.
    weights : None, "fixed", "irls" or array_like, default "irls"
        As in :func:`calibrate`. Under ``"irls"`` each fit uses its own predictions and a
        pair's common weights are frozen from the larger model.
    significance_level : float, default 0.05
    denominator : {"pairwise", "largest"}, default "pairwise"
        ``"pairwise"``: each "d+1 vs d" test divides by the mse of degree d+1 (equals
        statsmodels ``compare_f_test``). ``"largest"``: every row divides by the mse and
        dof of the largest degree, with all fits using that model's weights (equals
        ``statsmodels.stats.anova.anova_lm``).

    Returns
    -------
    PolynomialComparison

    Raises
    ------
    InvalidInputError
        Mismatched lengths, non-consecutive degrees, zero measurements with 1/z² or IRLS
        weights.
    NotEnoughDataError
        No residual dof for the largest degree.

    Notes
    -----
    Complexity: O(D·(T·p² + p³)) for D degrees of at most p coefficients and T trials
    (one weighted least-squares fit per degree, a few IRLS passes each).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import compare_polynomials
    >>> n = np.arange(1.0, 21.0)
    >>> z = 5 + 0.3 * n + 0.05 * n**2 + 0.01 * np.cos(3 * n)
    >>> compare_polynomials(n, z, degrees=range(1, 5), weights=None).recommended_degree
    2
    """
    n, z, degree_list, significance, scheme, given = _polynomial_inputs(
        populations, measurements, degrees, weights, significance_level, denominator
    )
    fits = [_fit_degree(n, z, d, scheme, given) for d in degree_list]
    sse = np.array([f[2] for f in fits])
    dof = np.array([z.shape[0] - (d + 1) for d in degree_list], dtype=np.int64)
    statistic, p_value, dof1, dof2 = _sequential_f_tests(
        n, z, degree_list, fits, dof, denominator
    )
    recommended = _recommended_degree(degree_list, p_value, significance)
    return PolynomialComparison(
        degrees=tuple(degree_list),
        sse=_readonly(sse),
        dof=_readonly_int(dof),
        mse=_readonly(sse / dof),
        coefficients=tuple(_readonly(f[0]) for f in fits),
        statistic=_readonly(statistic),
        p_value=_readonly(p_value),
        dof1=_readonly_int(dof1),
        dof2=_readonly_int(dof2),
        recommended_degree=int(recommended),
        significance_level=float(significance),
        weighting=scheme,
        denominator=denominator,
    )


def _readonly_int(array: npt.ArrayLike) -> npt.NDArray[np.int64]:
    out = np.array(array, dtype=np.int64, copy=True)
    out.setflags(write=False)
    return out
