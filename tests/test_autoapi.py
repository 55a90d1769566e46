"""sphinx-autoapi's pages move with ``autoapi_root``.

sphinx-autoapi writes a page per package and module into ``autoapi_root`` (``autoapi``
by default) at every build; the pages are in no commit.  A reorganization that sets
``autoapi_root = "reference/api"`` moves every API page, and git shows no rename:
``from-git`` derives the folder's ``[prefixes]`` entry from conf.py then and now,
``from-git --check`` and ``relocate_since`` name it missing at conf.py's line, and
``check`` says it cannot see the folder's pages without a build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from builds import build
from reorg_fixture import first_commit, write_tree

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.git import autoapi_folder

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

COLOR = re.compile(r"\x1b\[[0-9;]*m")
CONF = """\
project = "astrial"
extensions = ["autoapi.extension", "sphinx_relocate"]
autoapi_dirs = ["../astrial"]
autoapi_add_toctree_entry = True
"""
INDEX = "Home\n====\n\nSee :doc:`autoapi/astrial/index`.\n"
PACKAGE = ('"""The astrial package."""\n\n\n'
           'def orbit() -> int:\n    """One orbit."""\n    return 1\n')


@pytest.mark.parametrize(("values", "folder"), [
    ({"extensions": ["autoapi.extension"]}, "autoapi/"),
    ({"extensions": ["autoapi.extension"], "autoapi_root": "reference/api/"}, "reference/api/"),
    ({"extensions": ["sphinx.ext.autodoc"], "autoapi_root": "api"}, None),  # not loaded
    ({"extensions": ["autoapi.extension"], "autoapi_root": "../outside"}, None),
    ({"extensions": ["autoapi.extension"], "autoapi_root": "/abs"}, None),
    ({"extensions": ["autoapi.extension"], "autoapi_root": 3}, None),
])
def test_the_folder_is_read_from_conf_py(values: dict[str, object], folder: str | None) -> None:
    assert autoapi_folder(values) == folder


def _moved_project(root: Path) -> str:
    """A repository whose conf.py moves sphinx-autoapi's pages since its first commit."""
    write_tree(root, {
        ".gitignore": "docs/autoapi/\ndocs/reference/api/\ndocs/_build/\n",
        "docs/conf.py": CONF, "docs/index.rst": INDEX, "astrial/__init__.py": PACKAGE,
    }, {})
    base = first_commit(root, "base")
    (root / "docs/conf.py").write_text(CONF + 'autoapi_root = "reference/api"\n', "utf-8")
    return base


def test_from_git_derives_the_folder_and_check_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    base = _moved_project(root)
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"docs/conf.py:5: sphinx-autoapi's pages in autoapi/ moved to reference/api/ with "
        f"autoapi_root since {base}, and no [prefixes] entry moves them"]
    assert "1 generated folder renamed or deleted" in err
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr()[0]) == {
        "prefixes": {"autoapi/": "reference/api/"}}
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    capsys.readouterr()
    # a fresh clone has no API page yet: the target is noted, not failed
    assert main(["check", "docs"]) == 0
    assert ("target 'reference/api/' of 'autoapi/': sphinx-autoapi (docs/conf.py) writes "
            "the pages of reference/api/ when the docs are built; not checked without a "
            "build") in capsys.readouterr().err


def test_a_folder_git_tracks_is_left_to_its_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages kept in git (``autoapi_keep_files``) show their own renames."""
    root = tmp_path / "repo"
    write_tree(root, {"docs/conf.py": CONF, "docs/index.rst": INDEX,
                      "docs/autoapi/index.rst": "API\n===\n"}, {})
    base = first_commit(root, "base")
    (root / "docs/conf.py").write_text(CONF + 'autoapi_root = "api"\n', "utf-8")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert "autoapi/" not in capsys.readouterr()[0]


def test_the_build_names_the_folder_and_lands_its_old_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("autoapi")
    root = tmp_path / "repo"
    base = _moved_project(root)
    conf = root / "docs/conf.py"
    conf.write_text(conf.read_text("utf-8") + f"relocate_since = {base!r}\n", "utf-8")
    built = build(root / "docs", builddir=tmp_path / "since", fresh=True,
                  confoverrides={"show_warning_types": True})
    found = [line for line in COLOR.sub("", built.warnings).splitlines()
             if "[relocate.unredirected]" in line]
    assert len(found) == 1 and found[0].endswith(
        f"docs/conf.py:5: WARNING: sphinx-autoapi's pages in autoapi/ moved to reference/api/ "
        f"with autoapi_root since {base}, and no [prefixes] entry moves them "
        "[relocate.unredirected]"), found
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    built = build(root / "docs", builddir=tmp_path / "build", fresh=True)
    assert "relocate" not in built.warnings, built.warnings
    html = tmp_path / "build/html"
    assert (html / "reference/api/astrial/index.html").is_file()
    stub = (html / "autoapi/astrial/index.html").read_text("utf-8")
    assert 'href="../../reference/api/astrial/index.html"' in stub
    index = (html / "index.html").read_text("utf-8")
    assert 'href="reference/api/astrial/index.html"' in index
