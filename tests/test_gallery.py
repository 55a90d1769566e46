"""sphinx-gallery's pages move with their example scripts.

sphinx-gallery writes a page per example script (``examples/plot_hello.py`` →
``auto_examples/plot_hello``) at every build, into a folder no commit holds, and labels
it ``sphx_glr_auto_examples_plot_hello.py``.  An example moved in git moves its page
and its labels, while git shows no page renamed: ``from-git`` derives the page and
label entries, ``from-git --check`` names the page, ``check`` knows the pages and
labels the scripts on disk make, and ``rewrite`` edits the examples' own reST.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from builds import build
from reorg_fixture import first_commit, git, write_tree

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.gallery import Gallery, galleries_of, labels_of
from sphinx_relocate.core.spans import find_targets

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytest.importorskip("sphinx_gallery")

CONF = """\
project = "gal"
extensions = ["sphinx_gallery.gen_gallery", "sphinx_relocate"]
sphinx_gallery_conf = {"examples_dirs": "../examples", "gallery_dirs": "auto_examples",
                       "plot_gallery": "False"}
"""
INDEX = "Home\n====\n\n.. toctree::\n\n   auto_examples/index\n   guide\n"
GUIDE = """\
Guide
=====

See :ref:`sphx_glr_auto_examples_plot_hello.py`, :doc:`auto_examples/basics/plot_sum`
and `the hello example <auto_examples/plot_hello.html>`_.
"""
HELLO = '''\
"""
Hello
=====

Says hello; see :ref:`sphx_glr_auto_examples_basics_plot_sum.py`.
"""
print("hello")

# %%
# Then :doc:`plot_hello`'s own folder: `the sum <basics/plot_sum.html>`_.
text = ":ref:`sphx_glr_auto_examples_basics_plot_sum.py` in code stays"
'''
SUM = '"""\nSum\n===\n\nAdds.\n"""\nprint(1 + 2)\n'
TREE = {
    ".gitignore": "docs/auto_examples/\ndocs/sg_execution_times.rst\n",
    "docs/conf.py": CONF, "docs/index.rst": INDEX, "docs/guide.rst": GUIDE,
    "examples/README.txt": "Examples\n========\n",
    "examples/basics/README.txt": "Basics\n------\n",
    "examples/plot_hello.py": HELLO,
    "examples/basics/plot_sum.py": SUM,
}


def test_a_gallery_names_its_pages_and_labels() -> None:
    [gallery] = galleries_of({"examples_dirs": "../examples", "gallery_dirs": "auto_examples",
                              "ignore_pattern": r"skip_"}, "docs")
    assert gallery == Gallery("examples/", "auto_examples/", (".py",), "skip_")
    assert gallery.page_of("examples/basics/plot_sum.py") == "auto_examples/basics/plot_sum"
    assert gallery.page_of("examples/basics/README.txt") == "auto_examples/basics/index"
    assert gallery.page_of("examples/data.csv") is None
    assert gallery.page_of("examples/skip_me.py") is None
    assert gallery.page_of("src/plot_sum.py") is None
    assert labels_of("auto_examples/basics/Plot_Sum", "examples/basics/Plot_Sum.py", gallery) == (
        "sphx_glr_auto_examples_basics_plot_sum.py",
        "sphx_glr_download_auto_examples_basics_plot_sum.py",
    )
    assert labels_of("auto_examples/basics/index", "examples/basics/README.txt", gallery) == (
        "sphx_glr_auto_examples_basics",)
    # sphinx-gallery's defaults; several galleries; what names no folder of the repository
    assert galleries_of({}, "docs") == [Gallery("examples/", "auto_examples/")]
    assert [g.pages for g in galleries_of(
        {"examples_dirs": ["../a", "../b"], "gallery_dirs": ["ga", "gb"]}, "docs")] == [
        "ga/", "gb/"]
    assert galleries_of({"examples_dirs": "../../../x"}, "docs") == []
    assert galleries_of({"examples_dirs": ".."}, "docs") == []  # the whole repository
    assert galleries_of(["not", "a", "dict"], "docs") == []
    assert galleries_of({"gallery_dirs": "../out"}, "docs") == []  # outside the docs
    assert galleries_of({"examples_dirs": [Path("../ex")], "gallery_dirs": [Path("g")]},
                        "docs") == [Gallery("ex/", "g/")]


def test_an_examples_rest_is_read_from_its_text_blocks_only() -> None:
    found = [HELLO[s.start : s.end] for s in find_targets(HELLO, "x.py", labels=True,
                                                            script=True)]
    assert found == ["sphx_glr_auto_examples_basics_plot_sum.py", "plot_hello",
                     "basics/plot_sum.html"]
    assert find_targets("x = ':doc:`a`'\n", "x.py", script=True) == []
    assert find_targets("def broken(:\n", "x.py", script=True) == []


def _moved(root: Path) -> str:
    """The project with ``plot_hello.py`` moved into ``basics/`` and ``plot_sum.py``
    renamed, committed; the commit before."""
    write_tree(root, TREE, {})
    base = first_commit(root, "base")
    git(root, "mv", "examples/plot_hello.py", "examples/basics/plot_hello.py")
    git(root, "mv", "examples/basics/plot_sum.py", "examples/basics/plot_add.py")
    git(root, "commit", "-q", "-m", "examples moved")
    return base


def _build(srcdir: Path, builddir: Path) -> str:
    """The warnings of an HTML build of ``srcdir``, each with its type."""
    built = build(srcdir, builddir=builddir, confoverrides={"show_warning_types": True})
    return re.sub(r"\x1b\[[0-9;]*m", "", built.warnings)


def test_moved_examples_keep_their_pages_labels_and_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    base = _moved(root)
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"docs/conf.py: auto_examples/basics/plot_sum was renamed to "
        f"auto_examples/basics/plot_add since {base} and has no entry",
        f"docs/conf.py: auto_examples/plot_hello was renamed to "
        f"auto_examples/basics/plot_hello since {base} and has no entry",
    ]
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    capsys.readouterr()
    table = tomllib.loads((root / "docs/relocations.toml").read_text("utf-8"))
    assert table == {
        "pages": {"auto_examples/basics/plot_sum": "auto_examples/basics/plot_add",
                  "auto_examples/plot_hello": "auto_examples/basics/plot_hello"},
        "labels": {
            "sphx_glr_auto_examples_basics_plot_sum.py":
                "sphx_glr_auto_examples_basics_plot_add.py",
            "sphx_glr_auto_examples_plot_hello.py":
                "sphx_glr_auto_examples_basics_plot_hello.py",
            "sphx_glr_download_auto_examples_basics_plot_sum.py":
                "sphx_glr_download_auto_examples_basics_plot_add.py",
            "sphx_glr_download_auto_examples_plot_hello.py":
                "sphx_glr_download_auto_examples_basics_plot_hello.py",
        },
    }
    # a fresh clone has no page of an example yet: the scripts on disk say which
    assert not (root / "docs/auto_examples").exists()
    assert main(["check", "docs"]) == 0
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    capsys.readouterr()

    html = tmp_path / "build/html"
    assert _build(root / "docs", tmp_path / "build") == ""
    stub = (html / "auto_examples/plot_hello.html").read_text("utf-8")
    assert 'href="basics/plot_hello.html"' in stub
    guide = (html / "guide.html").read_text("utf-8")
    hrefs = re.compile(r'href="([^"]+)"')
    assert {
        "auto_examples/basics/plot_hello.html#sphx-glr-auto-examples-basics-plot-hello-py",
        "auto_examples/basics/plot_add.html", "auto_examples/basics/plot_hello.html",
    } <= set(hrefs.findall(guide))

    # rewritten (the examples' reST too, not their code), the sources build without
    # the extension and without a warning, and the guide's links land the same
    assert main(["rewrite", "docs", "--write"]) == 0
    assert "rewrote 5 links in 2 files (doc 1, link 2, ref 2)" in capsys.readouterr().err
    hello = (root / "examples/basics/plot_hello.py").read_text("utf-8")
    assert hello == HELLO.replace(
        "see :ref:`sphx_glr_auto_examples_basics_plot_sum.py`",
        "see :ref:`sphx_glr_auto_examples_basics_plot_add.py`",
    ).replace("basics/plot_sum.html", "plot_add.html")
    (root / "docs/conf.py").write_text(CONF.replace(', "sphinx_relocate"', ""), "utf-8")
    assert _build(root / "docs", tmp_path / "plain") == ""
    plain = (tmp_path / "plain/html/guide.html").read_text("utf-8")
    assert hrefs.findall(plain) == hrefs.findall(guide)


def test_relocate_since_names_a_moved_example_without_an_entry(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = _moved(root)
    (root / "docs/conf.py").write_text(CONF + f"relocate_since = {base!r}\n", "utf-8")
    (root / "docs/relocations.toml").write_text(
        '[pages]\n"auto_examples/basics/plot_sum" = "auto_examples/basics/plot_add"\n', "utf-8")
    found = [line for line in _build(root / "docs", tmp_path / "build").splitlines()
             if "[relocate.unredirected]" in line]
    assert found == [
        f"{root / 'docs/relocations.toml'}:1: WARNING: auto_examples/plot_hello was renamed to "
        f"auto_examples/basics/plot_hello since {base} and has no entry "
        "[relocate.unredirected]",
    ]


def test_a_page_left_from_an_earlier_build_is_named_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """sphinx-gallery leaves the page of an example moved since the last build: the
    entry is shadowed, and the warning says why and what to delete."""
    root = tmp_path / "repo"
    write_tree(root, TREE, {})
    first_commit(root, "base")
    assert _build(root / "docs", tmp_path / "build") == ""
    git(root, "mv", "examples/plot_hello.py", "examples/basics/plot_hello.py")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--write"]) == 0
    capsys.readouterr()
    shadowed = [line for line in _build(root / "docs", tmp_path / "build").splitlines()
                if "'auto_examples/plot_hello' still exists" in line]
    assert shadowed == [
        f"{root / 'docs/relocations.toml'}:2: WARNING: 'auto_examples/plot_hello' still "
        "exists, so its entry is not used (a page sphinx-gallery wrote in an earlier build "
        "from an example that is gone: delete auto_examples/plot_hello.rst, or the whole "
        "auto_examples/, which the next build writes anew) [relocate.shadowed]",
    ]


def test_galleries_are_read_inside_the_repository_only(tmp_path: Path) -> None:
    """conf.py is untrusted: a gallery folder it names outside the repository (up to
    the whole disk) is never walked."""
    from sphinx_relocate.core.git import repository_galleries

    root = tmp_path / "repo"
    write_tree(root, {"docs/conf.py": "", "examples/plot_a.py": ""}, {})
    first_commit(root, "base")
    found_root, galleries = repository_galleries(
        {"examples_dirs": ["../examples", "../../..", "/", "../../../../../../.."],
         "gallery_dirs": ["a", "b", "c", "d"]}, root / "docs")
    assert found_root == root.resolve()
    assert galleries == [Gallery("examples/", "a/")]
