"""F tests of nested calibrated models (``docs/algorithms/calibration.md``, *Model
comparison*), also when the two fits used different measure sets.

References
----------
.. [1] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989, §5.3
   (extra-sum-of-squares F test, a linearisation approximation for nonlinear models).
.. [2] M. Woodside, "Regression techniques for performance parameter estimation",
   tutorial, WOSP/SIPEW 2010 (model comparison of fits on different measure sets,
   slides 31-32; the tutorial's F form).

:func:`f_test`, notes:

Both sums of squares use the **same weights** and the **same measurements**: fixed
schemes already do; under IRLS (or callable weights) the weights are frozen at B's
final predictions and A is refitted with them from its estimate. When the two fits
used different measure sets, both are first refitted from their estimates on the
measures they share (B with its own weighting, then A with B's frozen weights), and the
test runs on those refits (:attr:`FTestResult.common_measures` names them). For
nonlinear models the F law is a linearisation approximation, good when the models
are nearly linear near the optimum.

:func:`f_test`, references:

.. [1] G. A. F. Seber and C. J. Wild, *Nonlinear Regression*, Wiley 1989, §5.3.
.. [2] M. Woodside, "Regression techniques for performance parameter estimation",
   WOSP/SIPEW 2010 tutorial.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from pilotstats._validation import check_choice, check_int
from pilotstats.exceptions import ConvergenceWarning, IdentifiabilityWarning, InvalidInputError
from pilotstats.regression._calibration import CalibrationResult, SolverOptions, calibrate
from pilotstats.results import PValueResult, format_number

__all__ = ["FTestResult", "f_test"]

FForm = Literal["extra_sum_of_squares", "tutorial"]


@dataclasses.dataclass(frozen=True, slots=True)
class FTestResult(PValueResult):
    """F test of a restricted model against a fuller one.

    Unpacks as ``statistic, p_value = f_test(...)``.

    Attributes
    ----------
    statistic : float
        ``form="extra_sum_of_squares"``: F = ((S_A − S_B)/q) / (S_B/dof2).
        ``form="tutorial"``: F = mse_A / mse_B.
    p_value : float
        P(F_{dof1, dof2} > F); 1 when F < 0.
    dof1 : int
        q = n_B − n_A (extra sum of squares) or dof_A (tutorial form).
    dof2 : int
        Residual dof of the full model on the compared measures.
    sse_restricted, sse_full : float
        S_A and S_B as compared (common weights, common measures).
    weighting : str
        The weighting of the full model.
    refitted : bool
        True if a model was refitted (frozen common weights, or the common measures).
    denominator : str
        ``"pairwise"``: the full model's mse is the denominator.
    form : str
        ``"extra_sum_of_squares"`` or ``"tutorial"``.
    common_measures : tuple of str
        Names (or "restricted column/full column" indices) of the measures the comparison
        used; empty when the fits share every measure.

    Examples
    --------
    Returned by :func:`f_test`; the quadratic term is clearly needed:

    >>> import numpy as np
    >>> from pilotstats.regression import calibrate, polynomial_model
    >>> n = np.arange(1.0, 11.0)
    >>> z = 1 + 0.5 * n + 0.02 * n**2 + 0.01 * np.sin(7 * n)
    >>> from pilotstats.regression import f_test
    >>> line = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    >>> quad = calibrate(polynomial_model(2), n, z, [0.0, 0.0, 0.0], weights=None)
    >>> result = f_test(line, quad)
    >>> print(result)  # doctest: +ELLIPSIS
    F = 9087.7 on (1, 7) dof, p = 3.683e-12 ...
    >>> result.p_value < 0.01
    True
    """

    statistic: float
    p_value: float
    dof1: int
    dof2: int
    sse_restricted: float
    sse_full: float
    weighting: str
    refitted: bool
    denominator: str = "pairwise"
    form: str = "extra_sum_of_squares"
    common_measures: tuple[str, ...] = ()

    def __str__(self) -> str:
        on = f", on {', '.join(self.common_measures)}" if self.common_measures else ""
        kind = "" if self.form == "extra_sum_of_squares" else ", tutorial form mse_A/mse_B"
        return (
            f"F = {format_number(self.statistic, 5)} on ({self.dof1}, {self.dof2}) dof, "
            f"p = {format_number(self.p_value, 4)} (S_restricted = "
            f"{format_number(self.sse_restricted, 5)}, S_full = {format_number(self.sse_full, 5)}"
            f", {self.weighting} weights{kind}{on})"
        )


def _f_from_sse(
    sse_small: float, sse_big: float, q: int, dof2: int, denominator_mse: float, df_den: int
) -> tuple[float, float]:
    from scipy import stats  # imported here: scipy.stats costs ~0.5 s, and importing
    # pilotstats.regression (mva, wps, ...) must not pay it

    statistic = ((sse_small - sse_big) / q) / denominator_mse
    p = float(stats.f.sf(statistic, q, df_den)) if statistic >= 0 else 1.0
    return float(statistic), p


class _Columns:
    """A model restricted to some of its output columns (vectorised when the model is)."""

    def __init__(self, model: Any, columns: Sequence[int]) -> None:
        self.model = model
        self.columns = list(columns)
        for name in ("parameter_names", "lower_bounds", "upper_bounds"):
            if hasattr(model, name):
                setattr(self, name, getattr(model, name))
        names = getattr(model, "measure_names", None)
        if names is not None:
            self.measure_names = tuple(names[j] for j in self.columns)
        self.symmetric_permutations: tuple[tuple[int, ...], ...] = ()
        if callable(getattr(model, "evaluate_all", None)):
            self.evaluate_all = self._evaluate_all

    def __call__(self, params: Any, u: Any) -> Any:
        return np.atleast_1d(np.asarray(self.model(params, u), dtype=np.float64))[self.columns]

    def _evaluate_all(self, params: Any, conditions: Any) -> Any:
        y = np.asarray(self.model.evaluate_all(params, conditions), dtype=np.float64)
        return (y[:, None] if y.ndim == 1 else y)[:, self.columns]


def _refit(
    fit: CalibrationResult, columns: Sequence[int] | None, weights: Any
) -> CalibrationResult:
    """Refit ``fit``'s model from its estimate on some columns and/or with other weights."""
    problem, options = fit._problem, fit._options
    z = problem.z if columns is None else problem.z[:, list(columns)]
    model = problem.model if columns is None else _Columns(problem.model, columns)
    fixed: dict[str | int, float] = {i: float(fit.params[i]) for i in fit.fixed_indices}
    with warnings.catch_warnings():
        # identifiability was already reported by the user's own fit
        warnings.simplefilter("ignore", IdentifiabilityWarning)
        return calibrate(
            model,
            problem.conditions,
            z[:, 0] if problem.scalar_output and columns is None else z,
            np.array(fit.params),
            weights=weights,
            integer=fit.integer_indices or None,
            bounds=(options.lower, options.upper),
            confidence_level=fit.confidence_level,
            parameter_names=fit.parameter_names,
            fixed=fixed or None,
            solver_options=SolverOptions(fd_step=options.fd_step, fd=options.fd, xtol=options.xtol,
                                 ftol=options.ftol, max_iter=options.max_iter),
        )


def _common_columns(
    restricted: CalibrationResult, full: CalibrationResult, measures: Any
) -> tuple[list[int], list[int], tuple[str, ...]]:
    """Matching output columns of the two fits: explicit, or by the models' measure names."""
    m_a, m_b = restricted._problem.z.shape[1], full._problem.z.shape[1]
    if measures is not None:
        if len(measures) != 2 or len(measures[0]) != len(measures[1]) or not len(measures[0]):
            raise InvalidInputError(
                "common_measures must be a pair (columns of restricted, columns of full) of "
                "equally "
                "long, non-empty index sequences"
            )
        cols_a = [check_int(j, "measures entry", low=0, high=m_a - 1) for j in measures[0]]
        cols_b = [check_int(j, "measures entry", low=0, high=m_b - 1) for j in measures[1]]
        return cols_a, cols_b, tuple(f"{a}/{b}" for a, b in zip(cols_a, cols_b, strict=True))
    names_a = getattr(restricted._problem.model, "measure_names", None)
    names_b = getattr(full._problem.model, "measure_names", None)
    if names_a is None or names_b is None:
        raise InvalidInputError(
            "restricted and full must be fitted to the same measurements, or their models "
            "must name their measures (measure_names) or common_measures=(columns of "
            "restricted, "
            "columns of full) must say which columns match"
        )
    common = [name for name in names_a if name in names_b]
    if not common:
        raise InvalidInputError(
            f"the fits share no measure (restricted: {tuple(names_a)}, full: {tuple(names_b)})"
        )
    return ([list(names_a).index(v) for v in common], [list(names_b).index(v) for v in common],
            tuple(common))


def _estimated_extra(restricted: CalibrationResult, full: CalibrationResult, form: str) -> int:
    """Checked inputs; q = n_B − n_A, the number of extra estimated parameters."""
    for name, value in (("restricted", restricted), ("full", full)):
        if not isinstance(value, CalibrationResult):
            raise InvalidInputError(f"{name} must be a CalibrationResult from calibrate()")
    check_choice(form, "form", ("extra_sum_of_squares", "tutorial"))
    n_a = restricted.params.shape[0] - len(restricted.fixed_indices)
    n_b = full.params.shape[0] - len(full.fixed_indices)
    q = n_b - n_a
    if q < 1:
        raise InvalidInputError(
            f"full must have more parameters than restricted (got {n_b} vs {n_a} estimated); "
            "for non-nested models of equal size compare their mse instead"
        )
    return int(q)


def _tutorial_f(restricted: CalibrationResult, full: CalibrationResult) -> FTestResult:
    """The tutorial form mse_A / mse_B on (dof_A, dof_B), each fit as it is."""
    from scipy import stats

    statistic = restricted.mse / full.mse if full.mse > 0 else np.inf
    p = float(stats.f.sf(statistic, restricted.dof, full.dof))
    return FTestResult(
        statistic=float(statistic), p_value=p, dof1=int(restricted.dof),
        dof2=int(full.dof), sse_restricted=float(restricted.sse),
        sse_full=float(full.sse), weighting=full.weighting, refitted=False,
        form="tutorial",
    )


def _full_on_common(
    restricted: CalibrationResult, full: CalibrationResult, common_measures: Any
) -> tuple[CalibrationResult, list[int] | None, tuple[str, ...]]:
    """The full fit on the common measures (refitted if needed), A's columns and names."""
    problem_a, problem_b = restricted._problem, full._problem
    same = problem_a.z.shape == problem_b.z.shape and np.array_equal(
        problem_a.z, problem_b.z, equal_nan=True
    )
    if same and common_measures is None:
        return full, None, ()
    if problem_a.z.shape[0] != problem_b.z.shape[0] or not _same_conditions(
        problem_a.condition_list, problem_b.condition_list
    ):
        raise InvalidInputError(
            "restricted and full must be fitted to the same trials (conditions); with "
            "different trials no F test applies"
        )
    cols_a, cols_b, names = _common_columns(restricted, full, common_measures)
    if not np.array_equal(problem_a.z[:, cols_a], problem_b.z[:, cols_b], equal_nan=True):
        raise InvalidInputError(
            "restricted and full must be fitted to the same measurements on their common "
            f"measures {names}"
        )
    if full.weighting not in ("irls", "fixed", "ols"):
        raise InvalidInputError(
            f"comparing fits on different measure sets needs OLS, 'fixed' or 'irls' "
            f"weights (the full fit used {full.weighting!r})"
        )
    b_fit = _refit(full, cols_b, None if full.weighting == "ols" else full.weighting)
    return b_fit, cols_a, names


def _restricted_sse(
    restricted: CalibrationResult,
    full: CalibrationResult,
    b_fit: CalibrationResult,
    cols_a: list[int] | None,
) -> tuple[float, bool]:
    """S_A with B's weights on the compared measures, and whether A was refitted."""
    same_weights = (
        cols_a is None
        and restricted.weighting == full.weighting
        and np.allclose(restricted.weights, full.weights, rtol=1e-12, atol=0.0)
    )
    if same_weights or (cols_a is None and restricted.weighting == full.weighting
                        == "covariance"):
        return restricted.sse, False
    if full.weighting == "covariance":
        raise InvalidInputError(
            "with covariance= weights both models must use the same covariance"
        )
    return _refit(restricted, cols_a, np.array(b_fit.weights)).sse, True


def _warn_not_nested(sse_a: float, sse_b: float) -> None:
    """Warn that S_A < S_B (F < 0, p set to 1), attributed to the caller of f_test."""
    warnings.warn(
        f"the restricted model fits better than the full one (S_A = {sse_a:.6g} < S_B = "
        f"{sse_b:.6g}): the models are not nested or a fit did not converge; p set "
        "to 1",
        ConvergenceWarning,
        stacklevel=3,
    )


def f_test(
    restricted: CalibrationResult,
    full: CalibrationResult,
    *,
    form: FForm = "extra_sum_of_squares",
    common_measures: Any = None,
) -> FTestResult:
    """F test: does the fuller (nested) model fit significantly better?

    Parameters
    ----------
    restricted : CalibrationResult
        Model A with n_A parameters (e.g. 2 queues).
    full : CalibrationResult
        Model B with n_B > n_A parameters that contains A as a special case (e.g. 3
        queues), fitted to the same trials (conditions); its measures may differ from A's
        (the test then compares both on their common measures, see the module docstring).
    form : {"extra_sum_of_squares", "tutorial"}, default "extra_sum_of_squares"
        ``"extra_sum_of_squares"``: F = ((S_A − S_B)/q) / (S_B/(N_obs − n_B)) on
        (q, N_obs − n_B) dof (Seber & Wild §5.3). ``"tutorial"``: F = mse_A / mse_B on
        (dof_A, dof_B), each fit on its own measures and weights (Woodside 2010, slides
        31-32); a rough guide only, since mse_A is not independent of mse_B.
    common_measures : pair of sequences of int, optional
        Columns of the restricted and of the full fit that hold the same measures, in the
        same order. Default: matched by the models' ``measure_names`` (e.g.
        :class:`ClosedNetworkModel`) when the measurements differ.

    Returns
    -------
    FTestResult

    Raises
    ------
    InvalidInputError
        The fits use different trials, differing measures that cannot be matched, or B
        does not have more parameters than A.

    Warns
    -----
    ConvergenceWarning
        S_A < S_B (models not nested or a fit not converged): F is negative and p = 1.

    Notes
    -----
    Complexity: at most two refits (none when the fits share measurements and fixed
    weights).

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.regression import calibrate, f_test, polynomial_model
    >>> n = np.arange(1.0, 11.0)
    >>> z = 1 + 0.5 * n + 0.02 * n**2 + 0.01 * np.sin(7 * n)
    >>> line = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    >>> quad = calibrate(polynomial_model(2), n, z, [0.0, 0.0, 0.0], weights=None)
    >>> f_test(line, quad).p_value < 0.01
    True
    >>> f_test(line, quad, form="tutorial").dof1
    8
    """
    q = _estimated_extra(restricted, full, form)
    if form == "tutorial":
        return _tutorial_f(restricted, full)
    b_fit, cols_a, names = _full_on_common(restricted, full, common_measures)
    sse_a, refitted_a = _restricted_sse(restricted, full, b_fit, cols_a)
    refitted = b_fit is not full or refitted_a
    dof2 = b_fit.dof
    statistic, p = _f_from_sse(sse_a, b_fit.sse, q, dof2, b_fit.sse / dof2, dof2)
    if statistic < 0:
        _warn_not_nested(sse_a, b_fit.sse)
    return FTestResult(
        statistic=statistic, p_value=p, dof1=int(q), dof2=int(dof2),
        sse_restricted=float(sse_a), sse_full=float(b_fit.sse), weighting=full.weighting,
        refitted=refitted, common_measures=names,
    )


def _same_conditions(a: list[Any], b: list[Any]) -> bool:
    try:
        return bool(np.array_equal(np.asarray(a, dtype=np.float64),
                                   np.asarray(b, dtype=np.float64)))
    except (TypeError, ValueError):
        return all(repr(x) == repr(y) for x, y in zip(a, b, strict=True))
