"""The exception and warning hierarchy of ``pilotstats.exceptions``."""

from __future__ import annotations

from pilotstats.exceptions import (
    DegenerateDesignError,
    InvalidInputError,
    NotEnoughDataError,
    PilotStatsError,
    PilotStatsWarning,
    SubsessionSizeNotFoundError,
    UnreachableTargetError,
)


def test_exception_hierarchy() -> None:
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(NotEnoughDataError, ValueError)
    assert issubclass(SubsessionSizeNotFoundError, NotEnoughDataError)
    assert issubclass(DegenerateDesignError, InvalidInputError)
    assert issubclass(UnreachableTargetError, ValueError)
    for error in (InvalidInputError, NotEnoughDataError, UnreachableTargetError):
        assert issubclass(error, PilotStatsError)
    assert issubclass(PilotStatsWarning, UserWarning)
