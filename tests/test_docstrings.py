"""Docstrings that autodoc puts on pages name pages and labels too.

The build rewrites their references like any other (they are nodes of the page that
documents them); ``rewrite`` edits them in the Python files, where a target written from
the top of the docs (``/…``) or a label means the same whichever page documents it, and
names the relative ones it cannot place.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import builds
import pytest
from builds import warning_lines
from reorg_fixture import first_commit, write_tree

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.spans import find_targets

MODULE = "relocate_docstrings_mod"
SOURCE = '''"""Tools: :doc:`/install` and :ref:`old-label`."""

NAME = ":doc:`/install`"  # code, not a docstring
"""The name, see :doc:`the guide </install>`."""


def tool() -> None:
    """Read :doc:`install` first (relative: from the page that documents it)."""


class Tool:
    r"""Raw: ``:doc:`/install``` is code, :ref:`old-label` is not."""
'''
FILES = {
    f"{MODULE}.py": SOURCE,
    "docs/conf.py": 'extensions = ["sphinx.ext.autodoc", "sphinx_relocate"]\n',
    "docs/index.rst": "Index\n=====\n\n.. toctree::\n\n   api\n   guide/install\n",
    "docs/api.rst": f"API\n===\n\n.. automodule:: {MODULE}\n   :members:\n",
    "docs/guide/install.rst": ".. _new-label:\n\nInstall\n=======\n\nSetup\n-----\n",
    "docs/relocations.toml": '[pages]\n"install" = "guide/install"\n\n'
                             '[labels]\n"old-label" = "new-label"\n',
}


def api_links(html: Path) -> list[str]:
    """The links of the API page's body (the docstrings), in order."""
    body = (html / "api.html").read_text("utf-8").partition('id="module-')[2]
    return re.findall(r'href="(guide/[^"]*)"', body.partition('class="sphinxsidebar"')[0])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_tree(tmp_path, FILES, {})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    return tmp_path


def test_docstring_targets_are_found_outside_code() -> None:
    spans = find_targets(SOURCE, f"{MODULE}.py", labels=True, docstrings=True)
    assert [(SOURCE[s.start : s.end], s.mode) for s in spans] == [
        ("/install", "doc"), ("old-label", "label"), ("/install", "doc"),
        ("install", "doc"), ("old-label", "label")]
    escaped = 'def f():\n    """:doc:`/a\\\\b` and :doc:`/c`."""\n'
    assert [escaped[s.start : s.end] for s in find_targets(
        escaped, "m.py", docstrings=True)] == ["/c"]
    assert find_targets(SOURCE, f"{MODULE}.py") == []  # without autodoc: not read


def test_rewrite_edits_docstrings_and_names_the_relative_ones(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = project / "docs"
    # the build lands each of the docstrings' references
    assert warning_lines(docs, project / "build") == []
    assert api_links(project / "build/html") == [
        "guide/install.html", "guide/install.html#new-label", "guide/install.html",
        "guide/install.html#new-label", "guide/install.html"]
    first_commit(project, "base")
    monkeypatch.chdir(project)
    assert main(["rewrite", "docs", "--write"]) == 1  # the relative one is named
    err = capsys.readouterr().err
    assert (f"{MODULE}.py:8:19: 'install' in a docstring is read from the folder of the "
            "page that documents it, which the sources do not say; read from the top of "
            "the docs it goes to guide/install now: left as written; write it from the "
            "top of the docs (`/…`) [relocate.link]") in err, err
    assert "rewrote 4 links in 1 file (doc 2, ref 2)" in err, err
    text = (project / f"{MODULE}.py").read_text("utf-8")
    assert text == (SOURCE.replace("</install>", "</guide/install>")
                    .replace(":doc:`/install` and :ref:`old-label`",
                             ":doc:`/guide/install` and :ref:`new-label`")
                    .replace("is code, :ref:`old-label`", "is code, :ref:`new-label`"))
    # without the extension, the rewritten docstrings land where the build sent them
    (docs / "conf.py").write_text('extensions = ["sphinx.ext.autodoc"]\n', "utf-8")
    (docs / "relocations.toml").unlink()
    (project / f"{MODULE}.py").write_text(text.replace(":doc:`install`", ":doc:`guide/install`"),
                                          "utf-8")
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    assert builds.build(docs, builddir=project / "plain").warnings == ""
    assert api_links(project / "plain/html") == api_links(project / "build/html")


def test_an_any_reference_is_rewritten_unless_a_document_may_have_its_name(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ``:any:`` may name a document from the page that documents the docstring: a
    document of that name in any folder makes it ambiguous, as the build finds it."""
    source = '"""See :any:`old-label`."""\n'
    (project / f"{MODULE}.py").write_text(source, "utf-8")
    first_commit(project, "base")
    monkeypatch.chdir(project)
    assert main(["rewrite", "docs", "--write"]) == 0
    assert (project / f"{MODULE}.py").read_text("utf-8") == source.replace("old-", "new-")
    (project / f"{MODULE}.py").write_text(source, "utf-8")
    (project / "docs/guide/old-label.rst").write_text("Old\n===\n", "utf-8")
    assert main(["rewrite", "docs", "--write"]) == 1
    assert ("'old-label' names a renamed label and a document too; left as written"
            in capsys.readouterr().err)
    assert (project / f"{MODULE}.py").read_text("utf-8") == source


def test_a_project_without_autodoc_keeps_its_python_files(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs/conf.py").write_text('extensions = ["sphinx_relocate"]\n', "utf-8")
    (project / "docs/api.rst").write_text("API\n===\n", "utf-8")
    first_commit(project, "base")
    monkeypatch.chdir(project)
    assert main(["rewrite", "docs", "--check"]) == 0
    assert (project / f"{MODULE}.py").read_text("utf-8") == SOURCE


def test_a_new_name_that_would_end_the_docstring_is_not_written(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs/relocations.toml").write_text(
        '[pages]\n"install" = \'guide/in"stall\'\n', "utf-8")
    (project / 'docs/guide/in"stall.rst').write_text("I\n=\n", "utf-8")
    first_commit(project, "base")
    monkeypatch.chdir(project)
    assert main(["rewrite", "docs", "--write"]) == 1
    err = capsys.readouterr().err
    assert (f"{MODULE}.py:1:17: '/install' in a docstring goes to '/guide/in\"stall' now, "
            "which would end the string or change it: left as written; write it in the "
            "docstring [relocate.link]") in err, err
    assert (project / f"{MODULE}.py").read_text("utf-8") == SOURCE
