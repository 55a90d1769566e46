"""autosummary's generated pages move with the page that makes them.

``.. autosummary::`` with ``:toctree: generated`` writes a page per entry into
``generated/`` beside its page at every build; the pages are in no commit (the folder is
usually ignored).  When the page moves into ``reference/``, they are written into
``reference/generated/`` and every old URL of them (the API pages, the most linked from
outside) is gone, while git shows no rename: ``from-git`` and ``mv`` derive the folder's
``[prefixes]`` entry, ``from-git --check`` and ``relocate_since`` name it missing at the
``:toctree:`` line, and ``check`` says it cannot see the folder's pages without a build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from builds import build
from reorg_fixture import first_commit, git, write_tree

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.git import FolderMove, generated_folder_moves
from sphinx_relocate.core.spans import autosummary_entries, autosummary_folders

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONF = """\
project = "astrial"
extensions = ["sphinx.ext.autosummary", "sphinx_relocate", "myst_parser"]
"""
API = """\
.. _api-top:

API
===

.. autosummary::
   :toctree: generated

   textwrap
   json.dumps
   json.loads

Also :doc:`guide`.
"""
#: a link by docname, one by file, one by a docname with a dot (MyST reads it as a page)
GUIDE = ("# Guide\n\nRead {doc}`generated/textwrap`, [dumps](generated/json.dumps.rst) and "
         "[loads](generated/json.loads).\n")
INDEX = "Home\n====\n\n.. toctree::\n\n   guide\n   api\n"
#: the line of ``:toctree:`` in API
TOCTREE_LINE = 7
#: an API page written anew (git pairs no rename with api.rst): the same objects'
#: pages, in another folder
REFERENCE = """\
Reference
=========

This reference replaces the old API page. It was written from scratch for the new
layout, with an introduction to each module and a table of every public function, so
that git sees a new file and a deleted one rather than one file that moved.

Text wrapping
-------------

The functions of the text module wrap and fill paragraphs to a given width.

JSON
----

.. currentmodule:: json

The functions of the JSON module read and write documents.

.. autosummary::
   :toctree: api
   :nosignatures:

   dumps
   ~loads
"""
#: the line of ``:toctree:`` in REFERENCE
REFERENCE_TOCTREE = 21


@pytest.mark.parametrize(("path", "text", "expected"), [
    ("api.rst", API, [(7, "generated")]),
    ("api.rst", ".. autosummary::\n   :nosignatures:\n   :toctree: ../gen\n\n   x\n",
     [(3, "../gen")]),
    ("api.rst", ".. autosummary::\n\n   x\n", []),  # no pages generated
    # a reST sample of the directive is no directive
    ("api.rst", "A\n=\n\n::\n\n   .. autosummary::\n      :toctree: no\n", []),
    ("api.md", "# A\n\n```{autosummary}\n:toctree: gen\njson.dumps\n```\n", [(4, "gen")]),
    ("api.md", ":::{autosummary}\n---\nnosignatures:\ntoctree: api/gen\n---\nx\n:::\n",
     [(4, "api/gen")]),
    ("api.md", "````md\n```{autosummary}\n:toctree: no\n```\n````\n", []),
    # reST inside MyST, as MyST projects often write it
    ("api.md", "# A\n\n```{eval-rst}\n.. autosummary::\n   :toctree: gen\n\n   x\n```\n",
     [(5, "gen")]),
    ("api.md", "````md\n```{eval-rst}\n.. autosummary::\n   :toctree: no\n```\n````\n", []),
    ("api.md", "Use `autosummary` here.\n", []),
])
def test_the_toctree_of_each_autosummary_is_read_outside_code(
    path: str, text: str, expected: list[tuple[int, str]]
) -> None:
    assert autosummary_folders(text, path) == expected


def test_a_folder_moves_with_its_page_only_where_a_folder_entry_can_say_it() -> None:
    rst = ".. autosummary::\n   :toctree: {}\n\n   x\n"
    assert generated_folder_moves(
        "docs/api.rst", "docs/reference/api.rst", API, API
    ) == [FolderMove("docs/generated/", "docs/reference/generated/", "docs/reference/api.rst",
                     TOCTREE_LINE)]
    # the same folder from both places: nothing moved
    assert generated_folder_moves(
        "docs/api.rst", "docs/reference/api.rst", rst.format("generated"),
        rst.format("../generated"),
    ) == []
    # the page's own folder holds its other pages: no folder entry can move only these
    assert generated_folder_moves(
        "docs/a/api.rst", "docs/b/api.rst", rst.format("."), rst.format(".")
    ) == []
    # written from the root, or a directive added: which folder went where is unknown
    assert generated_folder_moves(
        "docs/api.rst", "docs/r/api.rst", rst.format("/gen"), rst.format("/gen")
    ) == []
    assert generated_folder_moves(
        "docs/api.rst", "docs/r/api.rst", rst.format("gen"), rst.format("gen") * 2
    ) == []


@pytest.mark.parametrize("text", [
    API,
    REFERENCE,
    ".. module:: os\n\n.. autosummary::\n   :toctree: gen\n\n   os.path\n   getcwd\n",
    ".. automodule:: json\n\n.. autosummary::\n   :recursive:\n   :toctree: a/b\n\n"
    "   dumps\n\nText.\n\n.. autosummary::\n\n   not_generated\n",
    "```{eval-rst}\n.. autosummary::\n   :toctree: gen\n\n   textwrap\n```\n",
    "::\n\n   .. autosummary::\n      :toctree: in-a-sample\n\n      textwrap\n",
])
def test_the_objects_are_read_as_autosummary_reads_them(text: str) -> None:
    """The pages autosummary generates are named by its own reading of every source."""
    from sphinx.ext.autosummary.generate import find_autosummary_in_lines

    theirs = [(entry.name, entry.path) for entry in find_autosummary_in_lines(
        text.splitlines()) if entry.path is not None]
    assert [(name, toctree) for _, toctree, name in autosummary_entries(text)] == theirs


def _warnings(srcdir: Path, builddir: Path) -> str:
    """The warnings of an HTML build of ``srcdir``, each with its type."""
    built = build(srcdir, builddir=builddir, confoverrides={"show_warning_types": True})
    return re.sub(r"\x1b\[[0-9;]*m", "", built.warnings)


def _api_project(root: Path, ignored: str) -> str:
    """A project whose ``api.rst`` lists objects for autosummary, committed (git ignores
    ``ignored``); the commit."""
    write_tree(root, {".gitignore": ignored, "docs/conf.py": CONF, "docs/index.rst": INDEX,
                      "docs/guide.md": GUIDE, "docs/api.rst": API}, {})
    return first_commit(root, "base")


def _moved_project(root: Path, *, tracked: bool = False) -> str:
    """A project whose ``api.rst`` (with autosummary) moved into ``reference/``,
    committed; the commit before the move."""
    write_tree(root, {
        ".gitignore": "" if tracked else "docs/generated/\ndocs/reference/generated/\n",
        "docs/conf.py": CONF,
        "docs/index.rst": INDEX,
        "docs/guide.md": GUIDE,
        "docs/api.rst": API,
    }, {})
    if tracked:  # pages written by hand, or generated and committed
        for name in ("textwrap", "json.dumps"):
            (root / f"docs/generated/{name}.rst").parent.mkdir(exist_ok=True)
            (root / f"docs/generated/{name}.rst").write_text(
                f"{name}\n{'=' * len(name)}\n\n.. autofunction:: {name}\n", "utf-8")
    base = first_commit(root, "base")
    (root / "docs/reference").mkdir()
    git(root, "mv", "docs/api.rst", "docs/reference/api.rst")
    (root / "docs/index.rst").write_text(INDEX.replace("   api", "   reference/api"), "utf-8")
    git(root, "commit", "-q", "-am", "api into reference/")
    return base


def test_from_git_derives_the_folder_check_names_it_and_the_build_lands_its_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    base = _moved_project(root)
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out, err = capsys.readouterr()
    assert (f"docs/reference/api.rst:{TOCTREE_LINE}: autosummary's pages in generated/ moved "
            f"to reference/generated/ with the page that makes them since {base}, and no "
            "[prefixes] entry moves them") in out.splitlines(), out
    assert "1 page and 1 generated folder renamed or deleted" in err
    assert main(["from-git", "docs", "--since", base]) == 0
    derived = tomllib.loads(capsys.readouterr()[0])
    assert derived == {"pages": {"api": "reference/api"},
                       "prefixes": {"generated/": "reference/generated/"}}
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    capsys.readouterr()
    # a fresh clone has no generated page yet: the target is noted, not failed
    assert not (root / "docs/reference/generated").exists()
    assert main(["check", "docs"]) == 0
    err = capsys.readouterr().err
    assert ("note: docs/relocations.toml:5: target 'reference/generated/' of 'generated/': "
            f"autosummary (docs/reference/api.rst:{TOCTREE_LINE}) writes the pages of "
            "reference/generated/ when the docs are built; not checked without a build"
            ) in err, err

    assert _warnings(root / "docs", tmp_path / "build") == ""
    html = tmp_path / "build/html"
    names = ("textwrap", "json.dumps", "json.loads")
    for name in names:  # the old URLs are stubs to the pages now
        assert (html / f"reference/generated/{name}.html").is_file()
        stub = (html / f"generated/{name}.html").read_text("utf-8")
        assert f'href="../reference/generated/{name}.html"' in stub
    guide = (html / "guide.html").read_text("utf-8")
    assert [f'href="reference/generated/{name}.html"' in guide for name in names] == [True] * 3

    # rewritten, the sources land the same without the extension (the generated pages
    # are in no listing of the repository: git ignores them)
    assert main(["rewrite", "docs", "--write"]) == 0
    assert (root / "docs/guide.md").read_text("utf-8") == GUIDE.replace(
        "generated/", "reference/generated/")
    conf = root / "docs/conf.py"
    conf.write_text(CONF.replace('"sphinx_relocate", ', ""), "utf-8")
    assert _warnings(root / "docs", tmp_path / "plain") == ""
    hrefs = re.compile(r'href="([^"]+)"')
    plain = (tmp_path / "plain/html/guide.html").read_text("utf-8")
    assert hrefs.findall(plain) == hrefs.findall(guide)


def test_a_folder_git_tracks_is_left_to_its_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generated pages that are committed were not moved with their page here: git
    says what became of each file, and no folder entry is made up for them."""
    root = tmp_path / "repo"
    base = _moved_project(root, tracked=True)
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr()[0]) == {"pages": {"api": "reference/api"}}


def test_a_toctree_option_changed_in_place_moves_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    base = _api_project(root, "docs/generated/\ndocs/api/\n")
    (root / "docs/api.rst").write_text(API.replace(":toctree: generated", ":toctree: api"))
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr()[0]) == {"prefixes": {"generated/": "api/"}}
    # with a directive added, which folder went where is read from the objects
    (root / "docs/api.rst").write_text(API.replace(":toctree: generated", ":toctree: api")
                                       + "\n.. autosummary::\n   :toctree: os\n\n   os.getcwd\n")
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr()[0]) == {"prefixes": {"generated/": "api/"}}


def test_mv_records_the_folder_and_relocate_since_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    write_tree(root, {
        ".gitignore": "docs/generated/\ndocs/reference/generated/\n",
        "docs/conf.py": CONF, "docs/index.rst": INDEX, "docs/guide.md": GUIDE,
        "docs/api.rst": API,
    }, {})
    base = first_commit(root, "base")
    # the last build's pages (git ignores them) move with their page: left behind, the
    # next build would read them as pages of their own beside the pages made anew
    stale = root / "docs/generated/textwrap.rst"
    stale.parent.mkdir()
    stale.write_text("textwrap\n========\n\n.. automodule:: textwrap\n", "utf-8")
    monkeypatch.chdir(root)
    assert main(["mv", "docs", "docs/api.rst", "docs/reference/api.rst"]) == 0
    assert ("moved docs/generated/ → docs/reference/generated/ (the pages autosummary made "
            "for docs/reference/api.rst, in no commit)") in capsys.readouterr().err
    assert not stale.parent.exists()
    assert (root / "docs/reference/generated/textwrap.rst").is_file()
    table = root / "docs/relocations.toml"
    assert tomllib.loads(table.read_text("utf-8")) == {
        "pages": {"api": "reference/api"}, "prefixes": {"generated/": "reference/generated/"},
    }
    # without the folder's entry, a build with relocate_since names it at its line
    table.write_text('[pages]\n"api" = "reference/api"\n', "utf-8")
    (root / "docs/conf.py").write_text(CONF + f"relocate_since = {base!r}\n", "utf-8")
    found = [line for line in _warnings(root / "docs", tmp_path / "build").splitlines()
             if "[relocate.unredirected]" in line]
    assert found == [
        f"{root / 'docs/reference/api.rst'}:{TOCTREE_LINE}: WARNING: autosummary's pages in "
        f"generated/ moved to reference/generated/ with the page that makes them since "
        f"{base}, and no [prefixes] entry moves them [relocate.unredirected]",
    ]


def test_mv_of_a_folder_carries_the_generated_folder_inside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pydata-sphinx-theme's ``demo/`` held ``api.rst`` and the last build's
    ``demo/generated/``: moving the folder carried it along, and moving it again found
    nothing and stopped the move halfway, with no table entry and no link rewritten."""
    root = tmp_path / "repo"
    write_tree(root, {
        ".gitignore": "docs/demo/generated/\n",
        "docs/conf.py": CONF, "docs/index.rst": INDEX.replace("   api", "   demo/api"),
        "docs/guide.md": GUIDE.replace("generated/", "demo/generated/"),
        "docs/demo/api.rst": API,
    }, {})
    first_commit(root, "base")
    stale = root / "docs/demo/generated/textwrap.rst"
    stale.parent.mkdir()
    stale.write_text("textwrap\n========\n\n.. automodule:: textwrap\n", "utf-8")
    monkeypatch.chdir(root)
    assert main(["mv", "docs", "docs/demo", "docs/examples"]) == 0
    assert "error" not in capsys.readouterr().err
    assert (root / "docs/examples/generated/textwrap.rst").is_file()
    assert not (root / "docs/demo").exists()
    assert tomllib.loads((root / "docs/relocations.toml").read_text("utf-8")) == {
        "pages": {"demo/api": "examples/api"},
        "prefixes": {"demo/generated/": "examples/generated/"},
    }
    assert "   examples/api" in (root / "docs/index.rst").read_text("utf-8")


def test_a_folder_follows_its_objects_to_a_page_written_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """autosummary names each page after its object: where the page that lists them was
    replaced (no rename for git), the objects say where their pages went."""
    root = tmp_path / "repo"
    base = _api_project(root, "docs/generated/\ndocs/reference/api/\n")
    git(root, "rm", "-q", "docs/api.rst")
    (root / "docs/reference").mkdir()
    (root / "docs/reference/index.rst").write_text(REFERENCE, "utf-8")
    (root / "docs/index.rst").write_text(INDEX.replace("   api", "   reference/index"), "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a new reference")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out = capsys.readouterr().out
    # textwrap's page is gone (no directive lists it now); the others say where the
    # folder went
    assert (f"docs/reference/index.rst:{REFERENCE_TOCTREE}: autosummary's pages in "
            f"generated/ moved to reference/api/ since {base}: the objects they document "
            "have their pages there now, and no [prefixes] entry moves them"
            ) in out.splitlines(), out
    assert main(["from-git", "docs", "--since", base]) == 0
    derived = tomllib.loads(capsys.readouterr()[0])
    assert derived == {"pages": {}, "prefixes": {"generated/": "reference/api/"}}
    # the build with the derived entry writes the old URLs as stubs
    (root / "docs/relocations.toml").write_text(
        '[pages]\n"api" = "reference/index"\n\n[prefixes]\n"generated/" = "reference/api/"\n',
        "utf-8")
    (root / "docs/conf.py").write_text(CONF + f"relocate_since = {base!r}\n", "utf-8")
    # the one link to an object whose page is gone dangles, where the guide writes it
    assert _warnings(root / "docs", tmp_path / "build").splitlines() == [
        f"{root / 'docs/guide.md'}:3: WARNING: link 'generated/textwrap' does not land: no "
        "document 'generated/textwrap'; the table moves `generated/` to `reference/api/`, "
        "but `reference/api/textwrap` does not exist either [relocate.link]"]
    html = tmp_path / "build/html"
    for name in ("json.dumps", "json.loads"):
        stub = (html / f"generated/{name}.html").read_text("utf-8")
        assert f'href="../reference/api/{name}.html"' in stub


def test_objects_that_went_to_several_folders_derive_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    base = _api_project(root, "docs/generated/\n")
    git(root, "rm", "-q", "docs/api.rst")
    split = REFERENCE.replace("   ~loads\n", "")
    (root / "docs/reference").mkdir()
    (root / "docs/reference/index.rst").write_text(split, "utf-8")
    (root / "docs/reference/other.rst").write_text(
        split.replace(":toctree: api", ":toctree: other").replace("dumps", "loads"), "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two reference pages")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert "prefixes" not in tomllib.loads(capsys.readouterr()[0])
