"""The layers: nothing in ``sphinx_relocate/core/`` imports Sphinx or docutils, and what
the core does in their place gives their results."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from docutils.nodes import make_id as docutils_make_id
from docutils.utils import column_width as docutils_column_width
from hypothesis import example, given
from hypothesis import strategies as st

from sphinx_relocate.core.ids import make_id
from sphinx_relocate.core.textedit import column_width

CORE = Path(__file__).parents[1] / "sphinx_relocate" / "core"
#: the packages the core must not import, at top level, in a function or for type checking
FORBIDDEN = ("sphinx", "docutils", "sphinxcontrib")
#: every module of the core, packages (``core/table/``) included
CORE_FILES = sorted(CORE.rglob("*.py"))
CORE_MODULES = sorted(
    "sphinx_relocate." + ".".join(path.relative_to(CORE.parent).with_suffix("").parts)
    .removesuffix(".__init__")
    for path in CORE_FILES
)


def forbidden_imports(source: str) -> list[str]:
    """Each ``import`` statement of ``source`` (anywhere in it) that names a forbidden package."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [
            f"line {node.lineno}: {name}"
            for name in names
            if name.split(".")[0] in FORBIDDEN
        ]
    return found


def test_the_scan_finds_every_kind_of_import() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import sphinx_relocate\n"
        "import docutils.nodes\n"
        "if TYPE_CHECKING:\n    from sphinx.application import Sphinx\n"
        "def f():\n    from sphinxcontrib import x\n    import sphinx_rtd_theme\n"
    )
    assert forbidden_imports(source) == [
        "line 3: docutils.nodes", "line 5: sphinx.application", "line 7: sphinxcontrib"
    ]


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda path: str(path.relative_to(CORE)))
def test_core_module_imports_no_sphinx_or_docutils(path: Path) -> None:
    assert forbidden_imports(path.read_text(encoding="utf-8")) == []


def test_importing_the_core_loads_no_sphinx_or_docutils() -> None:
    """Each core module imported alone in a fresh interpreter: what it pulls in, also
    through other packages, loads none of them.  The package's ``__init__`` (the Sphinx
    extension's ``setup``) is left out: the core must work without it."""
    script = (
        "import importlib, json, sys, types\n"
        "package = types.ModuleType('sphinx_relocate')\n"
        "package.__path__ = [sys.argv[1]]\n"
        "sys.modules['sphinx_relocate'] = package\n"
        "forbidden = sys.argv[2].split(',')\n"
        "before = set(sys.modules)\n"
        "importlib.import_module(sys.argv[3])\n"
        "new = set(sys.modules) - before\n"
        "print(json.dumps(sorted(m for m in new if m.split('.')[0] in forbidden)))\n"
    )
    loaded = {}
    for module in CORE_MODULES:  # one interpreter each: a module loaded by another hides
        result = subprocess.run(
            [sys.executable, "-c", script, str(CORE.parent), ",".join(FORBIDDEN), module],
            capture_output=True, text=True, check=True, cwd=CORE.parents[1],
        )
        loaded[module] = json.loads(result.stdout)
    assert loaded == {module: [] for module in CORE_MODULES}


_TEXT = st.text(
    st.one_of(
        st.characters(),
        st.sampled_from("ßæœȸȹøđħıłŧƀ åéîõüÅÉçÇñ日本語中文한국어-_.:/ \t#?!()"),
    )
)


@given(_TEXT)
@example("Straße Œuvre æsir ȸ ȹ")
@example("  1. Intro -- über_den Fluss: naïve café  ")
@example("日本語の見出し")
def test_make_id_is_docutils_make_id(text: str) -> None:
    assert make_id(text) == docutils_make_id(text)


@given(_TEXT)
@example("日本語e\u0301\u302a")
def test_column_width_is_docutils_column_width(text: str) -> None:
    assert column_width(text) == docutils_column_width(text)
