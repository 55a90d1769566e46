"""The command line's layout: each command in a module of its own, next to the parser."""

from __future__ import annotations

import argparse

from sphinx_relocate.cli.main import build_parser


def test_each_command_runs_from_a_module_of_its_own() -> None:
    parser = build_parser()
    (commands,) = [
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    ]
    modules = {
        name: command.get_default("run").__module__ for name, command in commands.choices.items()
    }
    assert sorted(modules) == ["check", "from-git", "import", "mv", "rewrite"]
    assert len(set(modules.values())) == len(modules), modules
    for name, module in modules.items():
        assert module.startswith("sphinx_relocate.cli."), (name, module)
        assert module != "sphinx_relocate.cli.main", name
