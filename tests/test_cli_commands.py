"""pilotstats.cli: one dispatch style, every subcommand a module in one table."""

from __future__ import annotations

import argparse

from pilotstats.cli import COMMANDS, _parser


def test_every_subcommand_is_a_registered_module() -> None:
    parser = _parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(action.choices) == list(COMMANDS)
    for name, module in COMMANDS.items():
        assert module.__name__.startswith("pilotstats.cli._"), name
        assert callable(module.add_parser) and callable(module.run), name
        assert not action.choices[name]._defaults, name  # no handler hooks: one dispatch


def test_the_jit_step_is_called_compile() -> None:
    assert "compile" in COMMANDS and "warmup" not in COMMANDS
