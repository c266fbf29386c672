"""Results that unpack as ``(statistic, p_value)`` (:class:`pilotstats.results.PValueResult`):
unpacking, ``len`` and indexing agree with the named fields."""

from __future__ import annotations

import numpy as np
import pytest

from pilotstats.autocorrelation import WelchResult, welch_test
from pilotstats.regression import calibrate, f_test, polynomial_model
from pilotstats.results import PValueResult


def _welch() -> WelchResult:
    return welch_test(98.105, 0.699**2, 65, 98.394, 0.743**2, 65)


def _f() -> PValueResult:
    n = np.arange(1.0, 11.0)
    z = 1 + 0.5 * n + 0.02 * n**2 + 0.01 * np.sin(7 * n)
    line = calibrate(polynomial_model(1), n, z, [0.0, 0.0], weights=None)
    quad = calibrate(polynomial_model(2), n, z, [0.0, 0.0, 0.0], weights=None)
    return f_test(line, quad)


@pytest.mark.parametrize("make", [_welch, _f], ids=["welch_test", "f_test"])
def test_unpacking_len_and_indexing_agree(make: object) -> None:
    result = make()  # type: ignore[operator]
    assert isinstance(result, PValueResult)
    statistic, p_value = result
    assert (statistic, p_value) == (result.statistic, result.p_value)
    assert len(result) == 2
    assert result[0] == result.statistic and result[1] == result.p_value
    assert result[-1] == result.p_value and result[-2] == result.statistic
    assert result[:] == tuple(result) == (result.statistic, result.p_value)
    assert result[::-1] == (result.p_value, result.statistic)
    assert result._fields == ("statistic", "p_value")
    assert [getattr(result, name) for name in result._fields] == list(result)
    with pytest.raises(IndexError):
        result[2]
    with pytest.raises(ValueError):
        _a, _b, _c = result


def test_other_fields_stay_named_only() -> None:
    result = _welch()
    assert result.to_dict()["difference"] == result.difference
    assert result.difference not in tuple(result)
    with pytest.raises(TypeError):
        result["p_value"]  # type: ignore[call-overload]
