"""Shared pytest configuration: slow-test selection and common fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATASETS = SHARED / "datasets"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--skip-slow", action="store_true", help="skip tests marked slow")
    parser.addoption("--only-slow", action="store_true", help="run only tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_slow = config.getoption("--skip-slow")
    only_slow = config.getoption("--only-slow")
    if skip_slow and only_slow:
        raise pytest.UsageError("--skip-slow and --only-slow exclude each other")
    for item in items:
        slow = "slow" in item.keywords
        if skip_slow and slow:
            item.add_marker(pytest.mark.skip(reason="slow test skipped by --skip-slow"))
        elif only_slow and not slow:
            item.add_marker(pytest.mark.skip(reason="fast test skipped by --only-slow"))


@pytest.fixture
def datasets_dir() -> Path:
    """The shared datasets folder; tests using it skip cleanly when it is absent."""
    if not DATASETS.is_dir():
        pytest.skip(f"shared datasets folder not found at {DATASETS}")
    return DATASETS
