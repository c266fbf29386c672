"""The input validators of ``pilotstats._validation`` and the checks public functions make
with them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pilotstats._validation import (
    as_float_array,
    check_choice,
    check_confidence_level,
    check_int,
    check_real,
    coerce_rng,
)
from pilotstats.exceptions import InvalidInputError, NotEnoughDataError
from pilotstats.session import WpsOptions


def test_as_float_array_copies_and_coerces() -> None:
    source = np.array([1, 2, 3], dtype=np.int32)
    out = as_float_array(source)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    out[0] = 99
    assert source[0] == 1
    assert as_float_array([True, False]).tolist() == [1.0, 0.0]
    assert as_float_array(np.array([1.5, 2.5], dtype=object)).tolist() == [1.5, 2.5]


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("text", InvalidInputError, "array of numbers"),
        (3.0, InvalidInputError, "scalar"),
        ([[1, 2], [3]], InvalidInputError, "could not be converted"),
        (np.array(["a"]), InvalidInputError, "real numbers"),
        (np.array([1 + 2j]), InvalidInputError, "real numbers"),
        (np.array([object()], dtype=object), InvalidInputError, "non-numeric"),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), InvalidInputError, "real numbers"),
        ([], NotEnoughDataError, "empty"),
        ([1.0, math.nan], InvalidInputError, "NaN"),
    ],
)
def test_as_float_array_rejects(value: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        as_float_array(value, "data")


def test_as_float_array_ranges() -> None:
    with pytest.raises(InvalidInputError, match="strictly positive"):
        as_float_array([1.0, 0.0], positive=True)
    with pytest.raises(InvalidInputError, match="non-negative"):
        as_float_array([1.0, -1.0], nonnegative=True)
    with pytest.raises(NotEnoughDataError, match="need at least 3"):
        as_float_array([1.0, 2.0], min_length=3)
    assert as_float_array([[1.0, 2.0]], ndim=2).shape == (1, 2)


def test_scalar_checks() -> None:
    assert check_real(2, "a", low=0) == 2.0
    with pytest.raises(InvalidInputError, match=r"a must lie in \(0, 1\]"):
        check_real(0.0, "a", low=0.0, high=1.0, low_inclusive=False)
    with pytest.raises(InvalidInputError, match="finite"):
        check_real(math.inf, "a")
    with pytest.raises(InvalidInputError, match="real number"):
        check_real(True, "a")
    with pytest.raises(InvalidInputError, match=r"did you mean 0\.95"):
        check_confidence_level(95)
    assert check_int(3.0, "k") == 3
    with pytest.raises(InvalidInputError, match="integer"):
        check_int(2.5, "k")
    with pytest.raises(InvalidInputError, match="one of"):
        check_choice("c", "opt", ("a", "b"))
    assert isinstance(coerce_rng(1), np.random.Generator)
    with pytest.raises(InvalidInputError, match="rng"):
        coerce_rng("seed")


def test_size_parameters_are_bounded_everywhere() -> None:
    from pilotstats import subsession_analysis
    from pilotstats.changepoints import edm, edm_single

    x = np.random.default_rng(0).normal(size=50)
    for call in (lambda: edm(x, min_size=2**62), lambda: edm_single(x, min_size=2**63),
                 lambda: subsession_analysis(x, subsession_size=2**62),
                 lambda: edm(x, min_size=10**400)):
        with pytest.raises(InvalidInputError, match="at most"):
            call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: __import__("pilotstats.changepoints").changepoints.MdlStream(pruning="False"),
        lambda: __import__("pilotstats.changepoints").changepoints.mdl_partition(
            [1.0, 2.0], higher_is_better="no"),
        lambda: __import__("pilotstats.regression").regression.mva(
            [1.0, 2.0], 5, all_populations="False"),
        lambda: __import__("pilotstats.session").session.WorkPlanner(
            1, 100, integer_work="False"),
        lambda: __import__("pilotstats.session").session.WorkPlanner(
            1,
            100,
            wps=WpsOptions(enabled=1),
        ),
        lambda: __import__("pilotstats.session").session.work_sequence(
            1, 10, integer_work="no"),
        lambda: __import__("pilotstats.regression").regression.wps(
            [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.5], alpha_filter="yes"),
        lambda: __import__("pilotstats.analysis").analysis.analyze(
            __import__("pilotstats.io").io.Measurements([1.0] * 20), detect_warmup="no"),
    ],
    ids=["MdlStream.pruning", "mdl.higher_is_better", "mva.all_populations",
         "WorkPlanner.integer_work", "WorkPlanner.wps_analysis",
         "work_sequence.integer_work", "wps.alpha_filter", "analyze.detect_warmup"],
)
def test_boolean_flags_reject_truthy_objects(call: object) -> None:
    with pytest.raises(InvalidInputError, match="must be True or False"):
        call()  # type: ignore[operator]


def test_confidence_level_hint_only_for_percentages() -> None:
    from pilotstats import subsession_analysis

    x = np.arange(30.0)
    with pytest.raises(InvalidInputError) as info:
        subsession_analysis(x, confidence_level=1.5)
    assert "did you mean" not in str(info.value)
    with pytest.raises(InvalidInputError, match=r"did you mean 0\.95"):
        subsession_analysis(x, confidence_level=95)
