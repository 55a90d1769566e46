"""What a package index shows: an SPDX licence, ``py.typed``, links that work off GitHub,
one extra for MyST."""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def test_the_licence_is_an_spdx_expression() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    # a licence classifier next to an expression is refused by PEP 639 tools
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    # flit_core writes License-Expression from 3.12 on
    assert PYPROJECT["build-system"]["requires"] == ["flit_core>=3.12,<4"]


def test_the_package_says_it_is_typed() -> None:
    assert (ROOT / "sphinx_relocate" / "py.typed").is_file()


def test_one_extra_for_myst() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert sorted(extras) == ["myst", "test"]
    tox = (ROOT / "tox.ini").read_text("utf-8")
    docs_env = tox.split("[testenv:docs]")[1].split("\n[")[0]
    assert "extras =\n    myst\n" in docs_env
    assert "- myst" in (ROOT / ".readthedocs.yaml").read_text("utf-8")


def test_readme_links_work_on_a_package_index() -> None:
    """The index shows README.md without the repository around it: no relative links."""
    readme = (ROOT / "README.md").read_text("utf-8")
    readme = re.sub(r"```.*?```|``.*?``|`[^`]*`", "", readme, flags=re.DOTALL)  # code
    targets = re.findall(r"\]\(([^)]+)\)", readme)
    assert targets
    assert [t for t in targets if not t.startswith("https://")] == []


def test_a_built_wheel_carries_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built with flit_core itself when it is installed (no network)."""
    buildapi = pytest.importorskip("flit_core.buildapi")
    monkeypatch.chdir(ROOT)
    name = buildapi.build_wheel(str(tmp_path))
    with zipfile.ZipFile(tmp_path / name) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert "sphinx_relocate/py.typed" in names
    assert b"\nLicense-Expression: MIT\n" in metadata
    assert b"\nProvides-Extra: myst\n" in metadata
    assert b"Provides-Extra: docs" not in metadata
