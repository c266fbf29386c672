"""``pilotstats._config``: the tunables and their reset."""

from __future__ import annotations

from pilotstats import _config


def test_config_reset() -> None:
    _config.PARALLEL = False
    _config.reset()
    assert _config.PARALLEL is True
