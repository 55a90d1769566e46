"""The test modules build their projects through ``tests/builds.py``, not a copy of it."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
#: what only ``builds.build`` may call in a build helper
APP_FACTORIES = ("SphinxTestApp", "make_app")


def own_build_helpers(source: str) -> list[str]:
    """The functions named ``build*`` in ``source`` that make a Sphinx application."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("build"):
            calls = [call.func for call in ast.walk(node) if isinstance(call, ast.Call)]
            if any(isinstance(func, ast.Name) and func.id in APP_FACTORIES for func in calls):
                found.append(node.name)
    return found


def test_no_test_module_has_a_build_helper_of_its_own() -> None:
    found = {
        path.name: names
        for path in sorted(TESTS.glob("test_*.py"))
        if (names := own_build_helpers(path.read_text("utf-8")))
    }
    assert found == {}


def test_a_build_helper_of_its_own_is_found() -> None:
    source = 'def build(srcdir):\n    app = SphinxTestApp("html", srcdir=srcdir)\n'
    assert own_build_helpers(source) == ["build"]
    assert own_build_helpers("def build(srcdir):\n    return builds.build(srcdir)\n") == []
