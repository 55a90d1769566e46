"""``sphinx-relocate from-git``: derive the table from git renames, merge it by text."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import myst_parser
import pytest
from docutils.nodes import make_id
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from reorg_fixture import (
    EXPECTED_DELETED,
    EXPECTED_FILES,
    EXPECTED_PAGES,
    commit_all,
    first_commit,
    git,
    make_reorganized_repo,
    write_tree,
)

from sphinx_relocate.cli.main import main
from sphinx_relocate.cli.project import read_project
from sphinx_relocate.core.git import Derived, fold_folders, merge_into, render
from sphinx_relocate.core.ids import Headings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "repo"
    base = make_reorganized_repo(root)
    monkeypatch.chdir(root)
    return root, base


def test_from_git_derives_exactly_the_reorganization(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    index_before = (root / ".git/index").read_bytes()
    assert main(["from-git", "docs/zh", "--since", base]) == 0
    out, err = capsys.readouterr()
    data = tomllib.loads(out)
    assert data == {"pages": EXPECTED_PAGES, "files": EXPECTED_FILES}
    for docname in EXPECTED_DELETED:
        assert f'# "{docname}" = ""  # deleted: needs a target' in out
    assert "docs/zh/pytorch/old_page: page deleted without a rename" in err
    assert (root / ".git/index").read_bytes() == index_before  # the user's index is untouched
    assert "?? docs/zh/introduction/" in git(root, "status", "--short")


def test_without_since_only_uncommitted_moves(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["from-git", "docs/zh"]) == 0
    data = tomllib.loads(capsys.readouterr().out)
    assert set(data["pages"]) == {"features/EP_balance", "features/特性总览", "release_notes"}


def test_similarity_threshold(repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, base = repo
    page = root / "docs/zh/features/ep_balance.md"
    page.write_text(page.read_text(encoding="utf-8") + "A new paragraph of text.\n" * 3,
                    encoding="utf-8")
    assert main(["from-git", "docs/zh", "--since", base, "--similarity", "95"]) == 0
    out, err = capsys.readouterr()
    assert "features/EP_balance" not in tomllib.loads(out)["pages"]
    assert "features/EP_balance: page deleted" in err
    assert main(["from-git", "docs/zh", "--since", base, "--similarity", "30%"]) == 0
    assert "features/EP_balance" in tomllib.loads(capsys.readouterr().out)["pages"]


def test_write_merges_and_keeps_comments(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    table = root / "docs/zh/relocations.toml"
    table.write_bytes(
        b'# Our moves\r\n[pages]\r\n"release_notes" = "release_notes_mm"  # by hand\r\n'
        b"\r\n# images\r\n[anchors]\r\n"
    )
    assert main(["from-git", "docs/zh", "--since", base, "--write"]) == 0
    text = table.read_bytes().decode()
    assert text.startswith('# Our moves\r\n[pages]\r\n"release_notes" = "release_notes_mm"  # by')
    assert "\r\n# images\r\n[anchors]\r\n" in text
    assert "\n" not in text.replace("\r\n", "")
    data = tomllib.loads(text)
    assert data["pages"] == EXPECTED_PAGES and data["files"] == EXPECTED_FILES
    assert text.count("release_notes") == 2
    assert "1 already in the table" in capsys.readouterr().err
    assert main(["from-git", "docs/zh", "--since", base, "--write"]) == 0
    assert table.read_bytes().decode() == text  # merging twice changes nothing


def test_merge_into_places_entries_in_their_section() -> None:
    derived = Derived(pages=[("a", "b")], files=[("x.png", "y.png")], deleted=["gone"])
    text = '[pages]\n"c" = "d"\n\n# comment of anchors\n[anchors]\n"p#x" = "p#y"\n'
    merged = merge_into(text, derived)
    assert merged == (
        '[pages]\n"c" = "d"\n"a" = "b"\n'
        "# Deleted without a rename: give each a target (a page or an https:// URL),\n"
        "# or leave it out if the page is meant to go.\n"
        '# "gone" = ""  # deleted: needs a target\n'
        '\n# comment of anchors\n[anchors]\n"p#x" = "p#y"\n\n[files]\n"x.png" = "y.png"\n'
    )
    assert merge_into(merged, derived) == merged
    assert tomllib.loads(render(derived)) == {"pages": {"a": "b"}, "files": {"x.png": "y.png"}}
    assert render(Derived(pages=[('q"\\', "特")])) == '[pages]\n"q\\"\\\\" = "特"\n'


def test_usage_errors(
    tmp_path: Path, repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["from-git", "docs/zh", "--since", "no-such-rev"]) == 2
    assert "'no-such-rev' is not a commit" in capsys.readouterr().err
    assert main(["from-git", "docs/zh", "--similarity", "150"]) == 2
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "conf.py").write_text("", "utf-8")
    assert main(["from-git", str(plain)]) == 2
    err = capsys.readouterr().err
    assert "not inside a git work tree" in err and "Traceback" not in err


def test_a_folder_moved_as_a_whole_becomes_one_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    page = "# Page\n\nSome text that makes the file long enough to be recognised.\n"
    write_tree(
        root,
        {
            "docs/conf.py": 'extensions = ["myst_parser"]\n',
            "docs/index.md": "# Home\n",
            "docs/api/a.md": page.replace("Page", "A"),
            "docs/api/deep/b.md": page.replace("Page", "B"),
            "docs/keep/k.md": page.replace("Page", "K"),
            "docs/keep/l.md": page.replace("Page", "L"),
            "docs/gone/g.md": page.replace("Page", "G"),
            "docs/gone/h.md": page.replace("Page", "H"),
        },
        {"docs/api/img/x.png": b"\x89PNG fake image bytes " * 20},
    )
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "before")
    monkeypatch.chdir(root)
    git(root, "mv", "docs/api", "docs/reference")
    (root / "docs/reference").rename(root / "docs/api-reference")  # a plain mv on top
    (root / "docs/moved").mkdir()
    git(root, "mv", "docs/keep/k.md", "docs/moved/k.md")  # keep/l.md stays
    git(root, "mv", "docs/gone/g.md", "docs/moved/g.md")
    git(root, "rm", "-q", "docs/gone/h.md")  # deleted: gone/ did not just move

    assert main(["from-git", "docs"]) == 0
    out = capsys.readouterr().out
    assert tomllib.loads(out) == {
        "prefixes": {"api/": "api-reference/"},
        "pages": {"keep/k": "moved/k", "gone/g": "moved/g"},
    }
    # the table it gives resolves every old page, the image and files added later
    project = read_project(root / "docs")
    (root / "docs/relocations.toml").write_text(out, encoding="utf-8")
    assert main(["check", "docs"]) == 0
    table, problems = project.load_table(None)
    assert not problems
    assert table.locate_page("api/deep/b").path == "api-reference/deep/b"
    assert table.locate_file("api/img/x.png").path == "api-reference/img/x.png"
    # merged into the table, the prefix is known: nothing left to add
    assert main(["from-git", "docs", "--write"]) == 0
    assert "added 0 entries (3 already in the table)" in capsys.readouterr().err


def test_folders_that_did_not_move_as_a_whole_keep_their_entries() -> None:
    into_itself = Derived(pages=[("f/a", "f/sub/a"), ("f/b", "f/sub/b")])
    assert fold_folders(into_itself, ["f/sub/a.md", "f/sub/b.md"]) == into_itself
    to_the_root = Derived(pages=[("f/a", "a"), ("f/b", "b")])
    assert fold_folders(to_the_root, ["a.md", "b.md"]) == to_the_root
    split_up = Derived(pages=[("f/a", "x/a"), ("f/b", "y/b")])
    assert fold_folders(split_up, ["x/a.md", "y/b.md"]) == split_up
    one_page = Derived(pages=[("f/a", "x/a")])
    assert fold_folders(one_page, ["x/a.md"]) == one_page
    nested = Derived(
        pages=[("f/a", "x/a"), ("f/g/b", "x/g/b"), ("k", "m")], files=[("f/g/i.png", "x/g/i.png")]
    )
    assert fold_folders(nested, ["x/a.md", "x/g/b.md", "x/g/i.png", "m.md"]) == Derived(
        pages=[("k", "m")], prefixes=[("f/", "x/")]
    )


# -- build output and exclude_patterns (D8) ---------------------------------------------


def test_build_output_and_excluded_files_are_never_paired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no ``.gitignore``, a build in ``docs/_build`` (and one in ``docs/out``) holds
    copies of the renamed page; git must pair the page with its new name, not with a
    copy, in ``from-git`` and in the build's ``relocate_since``; files that
    ``exclude_patterns`` exclude are left out too.  The user's index is not changed."""
    from sphinx.cmd.build import build_main

    root = tmp_path / "repo"
    text = "Moved\n=====\n\n" + " ".join(["A page that moves."] * 20) + "\n"
    conf = ('extensions = ["sphinx_relocate"]\nhtml_sourcelink_suffix = ""\n'
            'exclude_patterns = ["_build", "out", "drafts/*"]\nrelocate_since = "HEAD"\n'
            'show_warning_types = True\n')  # Sphinx 7.4 does not add "[relocate.x]" by default
    write_tree(root, {"docs/conf.py": conf, "docs/index.rst": "Index\n=====\n",
                      "docs/moved.rst": text}, {})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    (root / "docs/moved.rst").rename(root / "docs/moved2.rst")
    (root / "docs/drafts").mkdir()
    (root / "docs/drafts/moved2.rst").write_text(text, "utf-8")
    for out in ("_build/html", "out"):
        assert build_main(["-q", "-b", "html", str(root / "docs"), str(root / "docs" / out)]) in (
            0, 1
        )
    assert (root / "docs/_build/html/_sources/moved2.rst").read_text("utf-8") == text
    index = (root / ".git/index").read_bytes()
    monkeypatch.chdir(root)
    assert main(["from-git", "docs"]) == 0
    assert capsys.readouterr().out == '[pages]\n"moved" = "moved2"\n'
    assert main(["from-git", "docs", "--check"]) == 1
    assert capsys.readouterr().out == (
        "docs/conf.py: moved was renamed to moved2 since HEAD and has no entry\n"
    )
    assert (root / ".git/index").read_bytes() == index
    # the build's relocate_since reads the same changes
    status = build_main(["-q", "-b", "html", "-w", str(tmp_path / "warnings.txt"),
                         str(root / "docs"), str(tmp_path / "html")])
    warnings = (tmp_path / "warnings.txt").read_text("utf-8")
    assert status == 0
    relocate = [line.split(": WARNING: ")[1] for line in warnings.splitlines()
                if "[relocate." in line]
    assert relocate == [
        "moved was renamed to moved2 since HEAD and has no entry [relocate.unredirected]"
    ], warnings


def test_excluded_files_with_commits_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--since`` an older commit, with files that ``exclude_patterns`` excludes: the
    commits in between are read without git's ``:(exclude)`` magic where a command
    refuses it (``ls-tree``; CPython's devguide, conf.py at the repository's top)."""
    root = tmp_path / "repo"
    write_tree(root, {"conf.py": 'exclude_patterns = ["_build", ".github"]\n',
                      "index.rst": "Index\n=====\n", "old.rst": "Old\n===\n",
                      ".github/CONTRIBUTING.rst": "Contributing\n============\n"}, {})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    git(root, "mv", "old.rst", "new.rst")
    git(root, "commit", "-q", "-m", "rename")
    monkeypatch.chdir(root)
    assert main(["from-git", "--since", "HEAD~1", "."]) == 0
    assert capsys.readouterr().out == '[pages]\n"old" = "new"\n'


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab*?[]!^/\\.", max_size=12))
def test_exclude_patterns_match_as_sphinx_matches_them(pattern: str) -> None:
    """The core may not import Sphinx: its reading of ``exclude_patterns`` and of
    toctree globs is Sphinx's."""
    from sphinx.util.matching import _translate_pattern

    from sphinx_relocate.core.paths import sphinx_pattern

    assert sphinx_pattern(pattern) == _translate_pattern(pattern)


def test_excluded_paths() -> None:
    from sphinx_relocate.core.git import excluded_paths

    paths = ["a.rst", "_build/html/x.txt", "out/html/.buildinfo", "out/html/_sources/a.txt",
             "out/doctrees/environment.pickle", "drafts/a/b.rst", "drafts/c.rst",
             "x/.ipynb_checkpoints/y.md", "Thumbs.db", "guide/_build.rst"]
    assert excluded_paths(paths, ["drafts/*", "**.ipynb_checkpoints", "**/Thumbs.db"]) == {
        "_build", "out/html", "out/doctrees", "drafts/a", "drafts/c.rst",
        "x/.ipynb_checkpoints", "Thumbs.db",
    }


# -- the whole history and renamed headings (issue 25, items 4 and 5) -------------------

#: enough text that git pairs a page with its renamed self after a heading changed
FILLER = "".join(f"Line {n} of a paragraph that stays as it is.\n" for n in range(12))
HISTORY_CONF = 'extensions = ["myst_parser", "sphinx_relocate"]\nmyst_heading_anchors = 3\n'
FAQ = f"""\
# FAQ

(install-label)=
## Install problems

How to install, and what goes wrong when installing it.
{FILLER}
## Usage

How to use it.

## 旧的标题

中文的内容，很多很多的中文内容，在这里。

## Obsolete

Nothing of this is kept.
"""
GUIDE = f"""\
Guide
=====

Old section
-----------

alpha beta gamma

Next
----

{FILLER}"""
PAGE_A = f"# Page A\n\n## Step one\n\nDo the first step.\n\n{FILLER}"
TOPIC = f"# Topic\n\n{FILLER}"


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")


def make_history_repo(root: Path) -> str:
    """A history with a heading renamed in one commit, a page moved twice across commits
    (``a → b → c``), a page that lived only in between, and a merged branch that moved a
    page twice; return the first commit."""
    write_tree(
        root,
        {
            "docs/conf.py": HISTORY_CONF,
            "docs/index.md": "# Home\n\n```{toctree}\nfaq\nguide\na\ntopic\n```\n",
            "docs/faq.md": FAQ,
            "docs/guide.rst": GUIDE,
            "docs/a.md": PAGE_A,
            "docs/topic.md": TOPIC,
        },
        {},
    )
    base = first_commit(root, "base")
    # one commit renames headings: at the same place (the reST one, its text changed
    # too), by its text (the MyST ones; a CJK one), a label; and removes a section
    edit(root, "docs/faq.md", "(install-label)=\n## Install problems",
         "(installation-label)=\n## Installation issues")
    edit(root, "docs/faq.md", "## 旧的标题", "## 新的标题")
    edit(root, "docs/faq.md", "\n## Obsolete\n\nNothing of this is kept.\n", "")
    edit(root, "docs/guide.rst", "Old section\n-----------\n\nalpha beta gamma",
         "Performance tuning\n------------------\n\nsomething else entirely")
    git(root, "commit", "-q", "-am", "rename headings")
    git(root, "mv", "docs/a.md", "docs/b.md")
    (root / "docs/temp.md").write_text(f"# Temp\n\n{FILLER}", "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a → b, and a page for a while")
    git(root, "checkout", "-q", "-b", "side")
    (root / "docs/topics").mkdir()
    git(root, "mv", "docs/topic.md", "docs/topics/topic.md")
    git(root, "commit", "-q", "-m", "move topic on a branch")
    git(root, "mv", "docs/topics/topic.md", "docs/topics/intro.md")
    git(root, "commit", "-q", "-m", "and rename it there")
    git(root, "checkout", "-q", "main")
    git(root, "mv", "docs/b.md", "docs/c.md")
    edit(root, "docs/c.md", "## Step one", "## First step")
    git(root, "rm", "-q", "docs/temp.md")
    git(root, "commit", "-q", "-am", "b → c, drop temp")
    git(root, "merge", "-q", "--no-ff", "side", "-m", "merge side")
    edit(root, "docs/index.md", "a\ntopic", "c\ntopics/intro")
    git(root, "commit", "-q", "-am", "toctree")
    return base


HISTORY_TABLE = """\
[pages]
"a" = "c"
"b" = "c"
"topic" = "topics/intro"
"topics/topic" = "topics/intro"
# Deleted without a rename: give each a target (a page or an https:// URL),
# or leave it out if the page is meant to go.
# "temp" = ""  # deleted: needs a target

[anchors]
"a#step-one" = "c#first-step"
"faq#install-label" = "faq#installation-label"
"faq#install-problems" = "faq#installation-issues"
"faq#旧的标题" = "faq#新的标题"
"guide#old-section" = "guide#performance-tuning"
# Removed sections: give each a target (page#id of the section that holds its
# text now), or leave it out if the section is meant to go.
# "faq#obsolete" = ""  # removed: needs a target
"""


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "repo"
    base = make_history_repo(root)
    monkeypatch.chdir(root)
    return root, base


def test_from_git_follows_every_commit_and_finds_renamed_headings(
    history: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = history
    assert main(["from-git", "docs", "--since", base]) == 0
    out, err = capsys.readouterr()
    assert out == HISTORY_TABLE
    assert "docs/temp: page deleted without a rename" in err
    assert "docs/faq#obsolete: section removed" in err
    # --write merges the same entries; twice changes nothing
    table = root / "docs/relocations.toml"
    table.write_text('[anchors]\n"faq#kept" = "faq#usage"\n', "utf-8")
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    written = table.read_text("utf-8")
    assert tomllib.loads(written)["anchors"] == {
        "faq#kept": "faq#usage", **tomllib.loads(HISTORY_TABLE)["anchors"]
    }
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    assert table.read_text("utf-8") == written
    assert "added 0 entries" in capsys.readouterr().err
    table.unlink()
    # a rename not yet committed comes on top: c → d gives a → d, b → d and c → d
    git(root, "mv", "docs/c.md", "docs/d.md")
    assert main(["from-git", "docs", "--since", base]) == 0
    data = tomllib.loads(capsys.readouterr().out)
    assert data["pages"] == {
        "a": "d", "b": "d", "c": "d", "topic": "topics/intro", "topics/topic": "topics/intro"
    }
    assert data["anchors"]["a#step-one"] == "d#first-step"


def test_from_git_check_fails_on_a_renamed_heading_without_an_entry(
    history: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = history
    table = root / "docs/relocations.toml"
    covered = (HISTORY_TABLE.replace('# "temp" = ""  # deleted: needs a target', '"temp" = "index"')
               .replace('# "faq#obsolete" = ""  # removed: needs a target',
                        '"faq#obsolete" = "faq#usage"'))
    table.write_text(covered.replace('"faq#install-problems" = "faq#installation-issues"\n', ""),
                     "utf-8")
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out, err = capsys.readouterr()
    assert out == (
        "docs/faq.md:4: heading faq#install-problems was renamed to faq#installation-issues "
        f"since {base} and has no [anchors] entry\n"
    )
    assert "1 heading renamed or deleted" in err
    table.write_text(covered, "utf-8")
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    assert "every page and heading renamed or deleted since" in capsys.readouterr().err
    assert main(["from-git", "docs", "--since", base]) == 0
    assert capsys.readouterr().out == ""  # nothing left to add


def test_relocate_since_warns_for_a_renamed_heading(
    history: tuple[Path, str], tmp_path: Path
) -> None:
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    root, base = history
    docs = root / "docs"
    (docs / "conf.py").write_text(HISTORY_CONF + f"relocate_since = {base!r}\n", "utf-8")
    (docs / "relocations.toml").write_text(
        HISTORY_TABLE.replace('"faq#install-problems" = "faq#installation-issues"\n', ""),
        "utf-8",
    )
    warning = StringIO()
    app = SphinxTestApp("html", srcdir=docs, builddir=tmp_path / "build", status=StringIO(),
                        warning=warning, confoverrides={"show_warning_types": True})
    try:
        app.build()
    finally:
        app.cleanup()
    lines = re.sub(r"\x1b\[[0-9;]*m", "", warning.getvalue()).splitlines()
    found = [line for line in lines if "[relocate.unredirected]" in line]
    table = docs / "relocations.toml"
    assert found == [
        f"{docs / 'faq.md'}:4: WARNING: heading faq#install-problems was renamed to "
        f"faq#installation-issues since {base} and has no [anchors] entry "
        "[relocate.unredirected]",
        f"{table}:1: WARNING: heading faq#obsolete was removed since {base} and has no "
        "[anchors] entry [relocate.unredirected]",
        f"{table}:1: WARNING: temp was deleted since {base} and has no entry "
        "[relocate.unredirected]",
    ], lines


_WORDS = st.sampled_from(["Install", "install", "problems", "API", "v2.0", "中文", "标题", "é",
                          "a_b", "C++", "--", "x!", "日本語", "`code`", "[link](t.md)",
                          # what MyST leaves out of a heading's text, or reads as a character
                          '<img src="logo.svg" width=40 />', "<b>bold</b>", "![alt](i.png)",
                          "&amp;", "\\*", "<https://e.org>", "`` a`b ``", "*em*"])
_TITLES = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)
#: and links, whose URL is no part of a reST title's id (JupyterLab's headings)
_REST_TITLES = st.lists(
    st.one_of(_WORDS, st.sampled_from(["`Contexts <https://e.org/a.html>`__",
                                       "`API <../api/index.html>`_", "`named`_",
                                       "`Guide <guide.html>`__"])),
    min_size=1, max_size=4,
).map(" ".join)
#: and what MyST's smartquotes and replacements extensions change
_MD_TITLES = st.lists(
    st.one_of(_WORDS, st.sampled_from(["doesn't", "a--b", "x---y", "...", "(c)", "(TM)", "+-",
                                       "?....", "`don't`"])),
    min_size=1, max_size=4,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), _MD_TITLES), min_size=1, max_size=6),
       st.sampled_from([(), ("smartquotes",), ("replacements",), ("smartquotes", "replacements")]))
def test_markdown_section_ids_are_myst_slugs(
    headings: list[tuple[int, str]], extensions: tuple[str, ...]
) -> None:
    """``_git`` may not import Sphinx: its heading slugs are the ones myst-parser makes
    (``myst_heading_anchors = 3``; CJK, markup, duplicates and the typographic extensions
    included), and deeper headings have docutils' ids (myst-parser's own docs have
    ``### Why doesn't my role…`` with ``smartquotes``: ``why-doesnt-my-role-…``)."""
    from docutils import nodes
    from docutils.core import publish_doctree
    from myst_parser.parsers.docutils_ import Parser

    from sphinx_relocate.core.git import sections_in

    text = "".join(f"{'#' * level} {title}\n\ntext\n\n" for level, title in headings)
    doctree = publish_doctree(text, parser=Parser(), settings_overrides={
        "myst_heading_anchors": 3, "report_level": 5, "doctitle_xform": False,
        "myst_enable_extensions": list(extensions),
    })
    # myst-parser 4 lists a heading with no text (an image only) under the empty slug,
    # which no fragment names; 5 gives it none
    slugs = [slug for slug in doctree.myst_slugs if slug]  # type: ignore[attr-defined]
    if int(myst_parser.__version__.split(".")[0]) < 5:
        # myst-parser 4 numbers a third duplicate "x-1-2" (5 made it "x-2"): the numbering
        # of duplicates is compared with the current myst-parser only
        assume(not any(re.search(r"-\d+$", slug) for slug in slugs))
    typeset = Headings.of(3, list(extensions))
    ours = sections_in(text, "page.md", typeset)
    assert len(ours) == len(headings)
    shallow = [
        s.ids[0] for s, (level, _) in zip(ours, headings, strict=True) if level <= 3 and s.ids
    ]
    assert shallow == slugs
    theirs = [section["ids"] for section in doctree.findall(nodes.section)]
    every = [typeset.docutils_id(title) for _, title in headings]
    for section, ids, (level, _) in zip(ours, theirs, headings, strict=True):
        # docutils' id, which a heading with a slug has too (a repeated one is numbered)
        docutils_id = section.ids[0] if level > 3 and section.ids else section.docutils_id
        if docutils_id and every.count(docutils_id) == 1:
            assert docutils_id in ids


def test_headings_read_what_conf_py_gives_and_never_fail() -> None:
    """``myst_heading_anchors`` and ``myst_enable_extensions`` as conf.py has them: a set,
    a list, or something myst-parser will reject itself (not ours to stop on)."""
    assert Headings.of(2, ["smartquotes", "colon_fence"]) == Headings(2, True, False)
    assert Headings.of(None, {"replacements"}) == Headings(0, False, True)
    assert Headings.of("x", [{"not": "hashable"}, "smartquotes"]) == Headings(0, True, False)
    assert Headings.of(3, "smartquotes") == Headings(3)


@settings(max_examples=100, deadline=None)
@given(st.lists(_REST_TITLES, min_size=1, max_size=5, unique_by=lambda t: make_id(t) or t),
       st.sampled_from(["", "old-label", "My Label"]))
def test_rest_section_ids_are_docutils_ids(titles: list[str], label: str) -> None:
    from docutils import nodes
    from docutils.core import publish_doctree

    from sphinx_relocate.core.git import sections_in

    rules = "=-~^"
    text = f".. _{label}:\n\n" if label else ""
    text += "".join(f"{title}\n{rules[min(n, 3)] * (len(title) * 2 + 3)}\n\nbody\n\n"
                    for n, title in enumerate(titles))
    doctree = publish_doctree(text, settings_overrides={
        "report_level": 5, "doctitle_xform": False, "sectsubtitle_xform": False,
    })
    ids = [set(section["ids"]) for section in doctree.findall(nodes.section)]
    ours = [set(section.ids) for section in sections_in(text, "page.rst")]
    # docutils numbers an id it already gave (id1), a title with no id of its own
    # (CJK: section-1) and one whose link took it first (api-1): unstable ids, never
    # proposed; compare the others
    assert len(ours) == len(ids)
    for mine, theirs in zip(ours, ids, strict=True):
        numbered = {i for i in theirs - mine if re.search(r"-\d+$", i)}
        if not any(re.fullmatch(r"id\d+|section-\d+", i) for i in theirs):
            assert mine == theirs - numbered


def test_renamed_heading_at_the_same_place_or_by_its_text() -> None:
    from sphinx_relocate.core.git import compare_sections, sections_in

    old = sections_in("# T\n\n## A\n\nsame text here\n\n## B\n\nb text\n\n## C\n\nc\n",
                      "p.md", Headings(2))
    # B renamed in place with new text; A renamed and its text kept, moved to the end
    new = sections_in("# T\n\n## B2\n\nother words\n\n## C\n\nc\n\n## A2\n\nsame text here\n",
                      "p.md", Headings(2))
    assert compare_sections(old, new) == [("a", "a2"), ("b", None)]
    in_place = sections_in("# T\n\n## A\n\nsame text here\n\n## B2\n\nnew\n\n## C\n\nc\n",
                           "p.md", Headings(2))
    assert compare_sections(old, in_place) == [("b", "b2")]
    # a label kept says which section it is, whatever its place and text
    labelled = sections_in("# T\n\n(x)=\n## Old\n\nold text\n", "p.md", Headings(2))
    moved = sections_in("# T\n\n## Other\n\nold text\n\n(x)=\n## New\n\nnew\n", "p.md", Headings(2))
    assert compare_sections(labelled, moved) == [("old", "new")]


def test_sections_alike_only_in_markup_are_not_the_same_section() -> None:
    """Two sections that each show one API object share their directive's markup and
    options, not their text: ``Provisional strategies`` (``.. automodule::
    hypothesis.provisional``) is not the ``Settings`` section (``.. autoclass::
    hypothesis.settings``) that came in beside it (Hypothesis's docs, 2025: difflib
    found them 0.60 alike).  A heading whose label is its id is one section id, once."""
    from sphinx_relocate.core.git import compare_sections, sections_in

    old = sections_in(
        "Data\n====\n\n"
        ".. _tuning:\n\nTuning\n------\n\nSet the cache size and the number of workers.\n\n"
        "Provisional strategies\n----------------------\n\n"
        ".. automodule:: hypothesis.provisional\n  :members:\n"
        "  :exclude-members: DomainNameStrategy\n",
        "data.rst", Headings(0),
    )
    new = sections_in(
        "Data\n====\n\nEngine\n------\n\nSet the cache size and the number of workers.\n\n"
        "Settings\n--------\n\n.. autoclass:: hypothesis.settings\n"
        "    :members:\n    :exclude-members: register_profile, get_profile, load_profile\n",
        "data.rst", Headings(0),
    )
    assert compare_sections(old, new) == [("tuning", "engine"),
                                          ("provisional-strategies", None)]
    # the same in MyST, where a label is often its heading's slug
    old = sections_in(
        "# Data\n\n(tuning)=\n## Tuning\n\nSet the cache size and the number of workers.\n\n"
        "## Provisional strategies\n\n```{automodule} hypothesis.provisional\n:members:\n"
        ":exclude-members: DomainNameStrategy\n```\n",
        "data.md", Headings(2),
    )
    new = sections_in(
        "# Data\n\n## Engine\n\nSet the cache size and the number of workers.\n\n"
        "## Settings\n\n```{autoclass} hypothesis.settings\n:members:\n"
        ":exclude-members: register_profile, get_profile, load_profile\n```\n",
        "data.md", Headings(2),
    )
    assert compare_sections(old, new) == [("tuning", "engine"),
                                          ("provisional-strategies", None)]


def test_a_page_that_changed_suffix_is_the_same_page_and_a_retitled_page_keeps_its_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``guide/index.rst`` rewritten as ``guide/index.md`` (too unlike for git to pair)
    is the same page, changed: not "deleted without a rename", in ``from-git`` or its
    ``--check`` (nor ``relocate_since``), and the sections it lost are found where they
    went. The title of a page renamed and retitled (and the label over it) goes to the
    new page's title: a link to it meant the top of the page (pydata-sphinx-theme's
    user guide, split in 2022)."""
    root = tmp_path / "repo"
    body = "".join(f"Sentence {n} about configuring the theme, kept.\n" for n in range(12))
    write_tree(root, {
        "docs/conf.py": HISTORY_CONF,
        "docs/index.md": "# Home\n\n```{toctree}\nguide/index\ncustomizing\nabout\n```\n",
        "docs/guide/index.rst": (
            "User Guide\n==========\n\nIntro.\n\n"
            f"Configure the theme\n-------------------\n\n{body}"
        ),
        "docs/customizing.rst": (
            f".. _customizing:\n\nCustomizing the theme\n=====================\n\n{FILLER}"
        ),
        "docs/about.rst": "About\n=====\n\nWho wrote this theme.\n",
    }, {})
    base = first_commit(root, "base")
    git(root, "rm", "-q", "docs/guide/index.rst", "docs/about.rst")
    write_tree(root, {
        "docs/guide/index.md": "# User Guide\n\n```{toctree}\nlayout\n```\n",
        "docs/guide/layout.rst": (
            f"Layout\n======\n\nConfigure the theme\n-------------------\n\n{body}"
        ),
        "docs/about.md": "# About\n\nThe people behind it, in Markdown now.\n",
    }, {})
    git(root, "mv", "docs/customizing.rst", "docs/styling.rst")
    edit(root, "docs/styling.rst",
         ".. _customizing:\n\nCustomizing the theme\n=====================",
         "Theme variables and CSS\n=======================")
    edit(root, "docs/index.md", "customizing", "styling")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "split the guide")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    out, err = capsys.readouterr()
    assert "deleted" not in err and "removed" not in err, err
    assert tomllib.loads(out) == {
        "pages": {"customizing": "styling"},
        "anchors": {
            "customizing#customizing": "styling#theme-variables-and-css",
            "customizing#customizing-the-theme": "styling#theme-variables-and-css",
            "guide/index#configure-the-theme": "guide/layout#configure-the-theme",
        },
    }
    assert main(["from-git", "docs", "--since", base, "--write"]) == 0
    capsys.readouterr()
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    assert "every page and heading renamed or deleted since" in capsys.readouterr().err


def test_a_section_id_gets_one_entry_and_two_places_are_a_question() -> None:
    """A TOML table cannot hold a key twice: an old id found twice at one place is one
    ``[anchors]`` entry; found at two places, it is a section for the user to place."""
    from sphinx_relocate.core.git import Changes, SectionChange, derive

    changes = Changes(sections=[
        SectionChange("guide", "tuning", "guide/advanced", "tuning"),
        SectionChange("guide", "tuning", "guide/advanced", "tuning"),
        SectionChange("guide", "caveats", "notes", "known-limits"),
        SectionChange("guide", "caveats", "faq", "caveats"),
        SectionChange("guide", "obsolete"),
    ])
    derived = derive(changes, "", (".md",), present=())
    assert derived.anchors == [("guide#tuning", "guide/advanced#tuning")]
    assert derived.removed == ["guide#caveats", "guide#obsolete"]


def test_a_heading_id_found_on_another_page_is_that_section_only_if_its_text_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """myst-parser's docs (2022) deleted two example pages, each with an *Overview*, and
    gave the index an *Overview* of its own: ``from-git`` sent both old overviews there
    by id alone (their texts 0.00 and 0.01 alike). A heading id on another page is the
    section when its text agrees; a label its author kept is, whatever the text; a
    heading kept with its text is, as before."""
    root = tmp_path / "repo"
    tuning = "".join(f"Tuning step {n}: set the cache size and the workers.\n" for n in range(8))
    write_tree(root, {
        "docs/conf.py": HISTORY_CONF,
        "docs/index.md": "# Home\n\n```{toctree}\nguide\nwealth\n```\n",
        "docs/wealth.md": (
            "# Wealth dynamics\n\n## Overview\n\nThis lecture studies the distribution "
            "of wealth in a population of households over time.\n"
        ),
        "docs/guide.md": (
            f"# Guide\n\nStart here.\n\n## Tuning\n\n{tuning}\n"
            "(guide-faq)=\n## Questions\n\nAsk on the forum, or read the list below.\n"
        ),
    }, {})
    base = first_commit(root, "base")
    git(root, "rm", "-q", "docs/wealth.md")
    write_tree(root, {
        "docs/index.md": (
            "# Home\n\n## Overview\n\nA parser of Markdown for Sphinx and docutils, with "
            "roles and directives.\n\n```{toctree}\nguide\nguide/advanced\n```\n"
        ),
        "docs/guide.md": "# Guide\n\nStart here.\n",
        "docs/guide/advanced.md": (
            f"# Advanced\n\n## Tuning\n\n{tuning}\n"
            "(guide-faq)=\n## FAQ\n\nEvery question users asked, with its answer.\n"
        ),
    }, {})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "merge and drop")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    out = capsys.readouterr().out
    assert tomllib.loads(out)["anchors"] == {
        "guide#guide-faq": "guide/advanced#guide-faq",
        "guide#questions": "guide/advanced#faq",
        "guide#tuning": "guide/advanced#tuning",
    }


def test_from_git_reads_the_ids_myst_typesets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With MyST's ``smartquotes``, ``#### Why doesn't it work?`` has the docutils id
    ``why-doesnt-it-work`` (the apostrophe is ``’``, which ids drop), the slug it had one
    level up: no entry. myst-parser's docs got ``why-doesn-t-…`` from ``from-git``, an
    entry to an id no page has."""
    root = tmp_path / "repo"
    answer = "".join(f"Answer line {n} about links in directives.\n" for n in range(8))
    write_tree(root, {
        "docs/conf.py": HISTORY_CONF + 'myst_enable_extensions = ["smartquotes"]\n',
        "docs/index.md": "# Home\n\n```{toctree}\nfaq\n```\n",
        "docs/faq.md": f"# FAQ\n\n## Links\n\n### Why doesn't it work?\n\n{answer}",
    }, {})
    base = first_commit(root, "base")
    write_tree(root, {
        "docs/faq.md": f"# FAQ\n\n## Links and roles\n\n#### Why doesn't it work?\n\n{answer}",
    }, {})
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr().out)["anchors"] == {
        "faq#links": "faq#links-and-roles",
    }
    # the build reads them as the command does: relocate_since asks for the one entry
    from io import StringIO

    from sphinx.testing.util import SphinxTestApp

    with (root / "docs" / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(f"relocate_since = {base!r}\n")
    warning = StringIO()
    app = SphinxTestApp("html", srcdir=root / "docs", builddir=tmp_path / "build",
                        status=StringIO(), warning=warning,
                        confoverrides={"show_warning_types": True})
    try:
        app.build()
    finally:
        app.cleanup()
    found = [line for line in warning.getvalue().splitlines() if "relocate.unredirected" in line]
    assert len(found) == 1 and "faq#links was renamed to faq#links-and-roles" in found[0], found


@pytest.mark.parametrize("title", [
    "`" * 50_000 + "a", "[a](" * 30_000, "![a](" * 30_000, "[" * 50_000 + "](x",
    "<a:" * 30_000, "&#" * 50_000,
])
def test_a_heading_of_runs_is_read_in_one_pass(title: str) -> None:
    """A page is untrusted input: a heading of thousands of backticks, brackets or
    parentheses is read in a time that grows with its length, not with its square (the
    first pattern took 7.7 s on 5,000 backticks and 7.7 s on 30,000 ``[a](``)."""
    headings = Headings(3, True, True)
    assert headings.slug(title, 1) == headings.slug(title, 1).strip()
    assert headings.docutils_id(title) == make_id(headings.text(title))


def test_a_page_renamed_to_a_file_that_is_no_page_says_what_it_became(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page turned into an include fragment (``notes.md`` → ``notes.txt``, which
    ``index.md`` includes) is gone as a page and needs a target, as a deleted one does;
    but git renamed it, and "deleted without a rename" sent its author looking for a
    deletion."""
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": HISTORY_CONF,
        "docs/index.md": "# Home\n\n```{toctree}\nnotes\n```\n",
        "docs/notes.md": f"# Notes\n\n{FILLER}",
    }, {})
    base = first_commit(root, "base")
    git(root, "mv", "docs/notes.md", "docs/notes.txt")
    edit(root, "docs/index.md", "```{toctree}\nnotes\n```", "```{include} notes.txt\n```")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a fragment")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    out, err = capsys.readouterr()
    assert [line for line in err.splitlines() if "give it a target" in line] == [
        "docs/notes: page renamed to docs/notes.txt (not a page); give it a target in "
        "[pages] (a page or a URL), or confirm it is meant to go",
    ], err
    assert '# "notes" = ""  # docs/notes.txt (not a page): needs a target' in out
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    assert (f"notes was renamed to docs/notes.txt (not a page) since {base} and has no "
            "entry") in capsys.readouterr().out


_WORDS = st.lists(st.sampled_from(["the", "cache", "size", "set", "run", "a", "build"]),
                  min_size=1, max_size=12).map(" ".join)


@given(st.lists(_WORDS, min_size=1, max_size=20, unique=True), st.data())
def test_past_the_pairs_compared_a_copy_is_a_candidate(
    bodies: list[str], data: st.DataObject,
) -> None:
    """A lost section whose text went on unchanged is among the new sections it is
    compared with, or as many as are compared share every run of its words too."""
    from sphinx_relocate.core.git import TEXT_CANDIDATES, Section, _Alike, _word_runs

    fresh = [(f"p{n}", f"p{n}.md", Section((f"s{n}",), 1, body))
             for n, body in enumerate(bodies)]
    lost = Section(("old",), 1, data.draw(st.sampled_from(bodies)))
    assert _Alike(fresh, every=True)(lost) == fresh
    alike = _Alike(fresh, every=False)(lost)
    assert len(alike) <= TEXT_CANDIDATES
    runs = _word_runs(lost.body)
    copies = [place for place in fresh if place[2].body == lost.body]
    assert copies[0] in alike or (
        len(alike) == TEXT_CANDIDATES and all(runs <= _word_runs(p[2].body) for p in alike))


def test_unpaired_names_an_index_by_its_folder() -> None:
    """Read the Docs deleted ``legal/index`` and added ten ``*/index``: none of them is
    its page, while ``about`` → ``about/index`` and ``guide/faq`` → ``help/faq`` are
    candidates."""
    from sphinx_relocate.core.git import Changes, unpaired

    changes = Changes(
        deleted=["docs/legal/index.rst", "docs/about.rst", "docs/guide/faq.md"],
        added=["docs/tutorials/index.rst", "docs/guides/build/index.rst",
               "docs/about/index.rst", "docs/help/faq.md", "docs/reference/legal.rst"],
    )
    assert unpaired(changes, "docs/", (".rst", ".md")) == [
        ("about", "about/index"), ("guide/faq", "help/faq"), ("legal/index", "reference/legal"),
    ]


def test_unpaired_index_goes_where_its_folders_pages_went() -> None:
    """pip moved ``reference/`` to ``cli/`` and rewrote its index as ``cli/index.md``: git
    paired the other pages, and the index is a candidate for where they all went, not
    for a folder that took only some of them."""
    from sphinx_relocate.core.git import Changes, unpaired

    changes = Changes(
        renames=[("docs/reference/pip.rst", "docs/cli/pip.rst"),
                 ("docs/reference/install.rst", "docs/cli/install.rst"),
                 ("docs/guide/a.rst", "docs/one/a.rst"), ("docs/guide/b.rst", "docs/two/b.rst")],
        deleted=["docs/reference/index.rst", "docs/guide/index.rst"],
        added=["docs/cli/index.md", "docs/one/index.md", "docs/two/index.md"],
    )
    assert unpaired(changes, "docs/", (".rst", ".md")) == [("reference/index", "cli/index")]


@pytest.mark.parametrize(("title", "wanted"), [
    ("`Document Contexts <https://jupyterlab.github.io/api/icontext.html>`__", ""),
    ("`Document Contexts <../api/icontext.html>`_ and more", ""),
    ("Plain *emphasis* and ``code``", ""),
    # Sphinx's roles show their title, else their target (``~`` its last part)
    (":doc:`The guide <guide/index>` itself", "the-guide-itself"),
    (":ref:`a-label` and :py:class:`~pkg.Thing`", "a-label-and-thing"),
])
def test_a_rest_titles_id_is_docutils(title: str, wanted: str) -> None:
    """The id docutils gives a reST title is that of the text its markup shows: a link's
    URL is no part of it (JupyterLab changed the URL in ``Document Contexts``'s heading,
    and ``from-git`` derived an entry from the old id it made of the whole line)."""
    from docutils.core import publish_doctree
    from docutils.nodes import section

    from sphinx_relocate.core.git import sections_in

    text = f"Top\n===\n\n{title}\n{'-' * len(title)}\n\ntext\n"
    if not wanted:  # docutils is the oracle
        document = publish_doctree(text, settings_overrides={
            "report_level": 5, "doctitle_xform": False})
        wanted = [node["ids"][0] for node in document.findall(section)][1]
    assert sections_in(text, "p.rst")[1].ids == (wanted,)


def test_a_label_above_a_directive_that_leaves_no_node_names_the_heading() -> None:
    """NumPy writes ``.. _new-or-different:``, then ``.. currentmodule:: numpy.random``,
    then the heading: the label is the heading's (docutils gives it its id), and
    ``from-git --check`` failed on a rename that did not happen."""
    from docutils.core import publish_doctree
    from docutils.nodes import section

    from sphinx_relocate.core.git import sections_in

    text = ("Top\n===\n\n.. _new-or-different:\n\n.. highlight:: python\n\n"
            "What's New or Different\n-----------------------\n\ntext\n")
    document = publish_doctree(text, settings_overrides={
        "report_level": 5, "doctitle_xform": False})
    ids = [set(node["ids"]) for node in document.findall(section)][1]
    assert ids == {"what-s-new-or-different", "new-or-different"}
    assert set(sections_in(text, "p.rst")[1].ids) == ids


@pytest.mark.parametrize(("path", "text"), [
    ("index.rst", ".. _features:\n\nTitle here\n==========\n\n{intro}\n\n"
                  "Features\n--------\n\ntext\n"),
    ("index.md", "(features)=\n# Title here\n\n{intro}\n\n## Features\n\ntext\n"),
])
def test_a_title_of_a_label_s_name_is_not_the_label_s_section(path: str, text: str) -> None:
    """pytest's index has ``.. _features:`` above its title and, further down, a
    *Features* section, whose id docutils numbers since the label took ``features``: an
    edit of the intro made ``from-git --check`` report the title renamed to it."""
    from sphinx_relocate.core.git import compare_sections, sections_in

    old = sections_in(text.format(intro="Intro now."), path, Headings(0))
    new = sections_in(text.format(intro="Intro again."), path, Headings(0))
    assert [s.ids for s in old] == [("title-here", "features"), ()]
    assert compare_sections(old, new) == []


def test_pages_renamed_with_the_source_suffix_conf_py_dropped_keep_their_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """setuptools renamed its ``.txt`` pages ``.rst`` as conf.py dropped
    ``source_suffix = '.txt'``: read with today's suffixes, each old page was a file,
    and ``from-git`` derived ``[files] "guide.txt" = "guide.rst"``, which the build
    refuses (a page is no file)."""
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": "extensions = ['sphinx_relocate']\nsource_suffix = '.txt'\n",
        "docs/index.txt": "Home\n====\n\n.. toctree::\n\n   guide\n",
        "docs/guide.txt": "Guide\n=====\n\nText.\n",
        "docs/notes.txt": "Notes\n=====\n\nMore text.\n",
    }, {})
    base = first_commit(root, "txt")
    for name in ("index", "guide"):
        git(root, "mv", f"docs/{name}.txt", f"docs/{name}.rst")
    git(root, "mv", "docs/notes.txt", "docs/manual.rst")  # renamed too: an entry
    (root / "docs/conf.py").write_text("extensions = ['sphinx_relocate']\n", "utf-8")
    git(root, "commit", "-qam", "canonical suffix")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr().out) == {"pages": {"notes": "manual"}}


def test_files_of_a_static_folder_renamed_as_conf_py_renamed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """setuptools renamed its static folder ``logo/`` to ``images/``, and
    ``html_static_path`` with it: the images got no entry (today's static folder was
    left out of the comparison), and ``logo/README.rst``, a file of the static folder
    then, was a deleted page for ``--check``."""
    root = tmp_path / "repo"
    conf = "extensions = ['sphinx_relocate']\nhtml_static_path = ['{}']\n"
    write_tree(root, {
        "docs/conf.py": conf.format("logo"),
        "docs/index.rst": "Home\n====\n\n.. image:: logo/banner.svg\n",
        "docs/logo/README.rst": "Logos\n=====\n\nThe project's logos, and how to make them.\n",
        "docs/logo/banner.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n",
    }, {})
    base = first_commit(root, "logo")
    git(root, "mv", "docs/logo", "docs/images")
    (root / "docs/conf.py").write_text(conf.format("images"), "utf-8")
    git(root, "commit", "-qam", "images")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    capsys.readouterr()
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr().out) == {"prefixes": {"logo/": "images/"}}


def test_a_line_of_inline_code_in_backticks_opens_no_fence() -> None:
    """MyST-Parser's how-to page wrote ``` `` `hi` `` ``` (inline code) at a line's start:
    read as a code fence, it hid the next heading, whose text then counted as the
    section's above, and ``from-git`` sent that section to the wrong page."""
    from sphinx_relocate.core.git import sections_in
    from sphinx_relocate.core.spans import find_targets

    text = ("## Show backticks\n\n``` `` `hi` `` ```  will be rendered as: `` `hi` ``\n\n"
            "## Targets\n\nSee [the page](other.md).\n")
    assert [s.ids for s in sections_in(text, "howto.md", Headings(2))] == [
        ("show-backticks",), ("targets",)]
    assert [text[s.start : s.end] for s in find_targets(text, "howto.md")] == ["other.md"]


def test_a_page_renamed_then_split_goes_where_its_commits_took_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The devguide moved ``triaging.rst`` to ``triage/triaging.rst`` unchanged, then
    split most of its text out into a new ``triage/labels.rst``: comparing the two ends,
    git pairs the old page with the page that got most of its text, and ``from-git``
    sent ``triaging`` (its links and its stub) to the Labels page.  The commits follow
    the file to the page that still has its title."""
    root = tmp_path / "repo"
    labels = "".join(
        f"Label {n} means the issue has property {n} and needs team {n}.\n\n"
        for n in range(40)
    )
    write_tree(root, {
        "docs/conf.py": "extensions = ['sphinx_relocate']\n",
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   triaging\n",
        "docs/triaging.rst": "Triaging an issue\n=================\n\nRead it, reproduce it.\n\n"
                             "Labels\n======\n\n" + labels,
    }, {})
    base = first_commit(root, "start")
    (root / "docs/triage").mkdir()
    git(root, "mv", "docs/triaging.rst", "docs/triage/triaging.rst")
    git(root, "commit", "-qm", "move")
    text = (root / "docs/triage/triaging.rst").read_text("utf-8")
    head, _, rest = text.partition("Labels\n======\n")
    (root / "docs/triage/triaging.rst").write_text(head, "utf-8")
    (root / "docs/triage/labels.rst").write_text("Labels\n======\n" + rest, "utf-8")
    commit_all(root, "split")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    pages = tomllib.loads(capsys.readouterr().out)["pages"]
    assert pages["triaging"] == "triage/triaging"


def test_pages_that_became_markdown_as_conf_py_changed_suffix_are_the_same_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Littlest JupyterHub rewrote its pages in MyST (``source_suffix`` ``.rst`` →
    ``.md``) and moved three of them: read with today's suffixes, each old ``.rst`` was
    no page, so every page was "deleted without a rename" (``--check`` failed for 39
    pages still there) and the moved ones got no hint of their entry."""
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": "source_suffix = ['.rst']\n",
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   a/page\n   b/other\n",
        "docs/a/page.rst": "Page\n====\n\nSome reST text about the page, *emphasised*.\n",
        "docs/b/other.rst": "Other\n=====\n\n.. note::\n\n   A note, ``code``.\n",
    }, {})
    base = first_commit(root, "rst")
    git(root, "rm", "-q", "docs/index.rst", "docs/a/page.rst", "docs/b/other.rst")
    write_tree(root, {
        "docs/conf.py": "extensions = ['myst_parser']\nsource_suffix = ['.md']\n",
        "docs/index.md": "# Home\n\n```{toctree}\na/page\nc/other\n```\n",
        "docs/a/page.md": "# Page\n\nSome MyST text about the page, *emphasised*.\n",
        "docs/c/other.md": "# Other\n\n:::{note}\nA note, `code`.\n:::\n",
    }, {})
    commit_all(root, "myst")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    err = capsys.readouterr().err
    assert '"b/other" = "c/other"' in err
    assert "index" not in err.replace("docs/index.md", "")
    assert "a/page" not in err


def test_a_page_entry_already_written_takes_the_page_title_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The devguide split ``documenting.rst`` into a short ``start-documenting.rst``,
    retitled, with its label and intro, and a long ``markup.rst``; its table sent
    ``documenting`` to ``start-documenting``, but git paired the old page with
    ``markup`` and ``from-git`` sent the old title's id to markup's title.  The page's
    sections are compared with the page its entry names."""
    root = tmp_path / "repo"
    rules = "".join(f"Markup rule {n}: write role {n} like this, never like that.\n\n"
                    for n in range(40))
    write_tree(root, {
        "docs/conf.py": "extensions = ['sphinx_relocate']\n",
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   documenting\n",
        "docs/documenting.rst": ".. _documenting:\n\nDocumenting Python\n==================\n\n"
                                "Where the docs live, and who writes them.\n\n"
                                "reST Primer\n-----------\n\n" + rules,
    }, {})
    base = first_commit(root, "start")
    git(root, "rm", "-q", "docs/documenting.rst")
    write_tree(root, {
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   documentation/start-documenting\n"
                          "   documentation/markup\n",
        "docs/documentation/start-documenting.rst": (
            ".. _documenting:\n\nGetting Started\n===============\n\n"
            "Where the docs live, and who writes them.\n"),
        "docs/documentation/markup.rst": "reStructuredText Markup\n=======================\n\n"
                                         "reST Primer\n-----------\n\n" + rules,
        "docs/relocations.toml": '[pages]\n"documenting" = "documentation/start-documenting"\n',
    }, {})
    commit_all(root, "split")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    anchors = tomllib.loads(capsys.readouterr().out).get("anchors", {})
    assert anchors.get("documenting#documenting-python") in (
        None, "documentation/start-documenting#getting-started"), anchors
    assert anchors["documenting#rest-primer"] == "documentation/markup#rest-primer"


@settings(max_examples=60, deadline=None)
@given(
    title=st.text(alphabet="Rab x漢字", min_size=1, max_size=6).map(str.strip).filter(bool),
    width=st.integers(min_value=1, max_value=8),
)
def test_a_rest_title_is_one_whose_underline_docutils_accepts(title: str, width: int) -> None:
    """repo2docker's FAQ had a section *R* over a one-character ``~``: from-git saw no
    title, counted its text as the section above (sent ``faq#julia`` to *R*'s place) and
    lost ``faq#r``.  A title is what docutils takes for one: an underline as wide as the
    title, or four wide at least."""
    from docutils import nodes
    from docutils.core import publish_doctree

    from sphinx_relocate.core.git import sections_in

    text = f"Top\n===\n\nIntro.\n\n{title}\n{'~' * width}\n\nBody of it.\n"
    doctree = publish_doctree(text, settings_overrides={"report_level": 5})
    titles = [node.astext() for node in doctree.findall(nodes.title)]
    found = [s.ids for s in sections_in(text, "page.rst")]
    assert (title in titles) == (len(found) == 2), (titles, found)


def test_a_retitled_page_s_title_stays_its_top_when_the_title_takes_a_section_s_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """ROS 2 moved *Using event handlers in launch files* and retitled it *Using event
    handlers*, the heading of one of its sections before: the old title found no place
    on the page, was matched by its boilerplate (Goal, Level, Time) with another
    tutorial's new title, and its links and stub went to that page."""
    root = tmp_path / "repo"
    header = ("**Goal:** Learn about {}.\n\n.. contents:: Table of Contents\n   :local:\n\n"
              "**Tutorial level:** Advanced\n\n**Time:** 15 minutes\n\n")
    write_tree(root, {
        "docs/conf.py": "extensions = ['sphinx_relocate']\n",
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   old/events\n   demos/filter\n",
        "docs/old/events.rst": "Using event handlers in launch files\n" + "=" * 36 + "\n\n"
                               + header.format("event handlers")
                               + "Using event handlers\n--------------------\n\n"
                               "Launch can react to process events.\n",
        "docs/demos/filter.rst": "Content Filtering Subscription\n" + "=" * 30 + "\n\n"
                                 "Filtering happens in the middleware.\n",
    }, {})
    base = first_commit(root, "start")
    git(root, "mv", "docs/old/events.rst", "docs/events.rst")
    write_tree(root, {
        "docs/events.rst": "Using event handlers\n====================\n\n"
                           + header.format("event handlers")
                           + "Launch can react to process events.\n",
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   events\n   demos/filter\n",
        "docs/demos/filter.rst": "Creating a content filtering subscription\n" + "=" * 41
                                 + "\n\n" + header.format("content filtering")
                                 + "Filtering happens in the middleware.\n",
    }, {})
    commit_all(root, "move")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    anchors = tomllib.loads(capsys.readouterr().out)["anchors"]
    assert anchors["old/events#using-event-handlers-in-launch-files"] == (
        "events#using-event-handlers")


@pytest.mark.parametrize("conf", [
    "extensions = []\n",
    "extensions = ['sphinx.ext.autosummary']\nautosummary_generate = False\n",
])
def test_a_toctree_of_autosummary_makes_no_folder_where_autosummary_writes_no_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    conf: str,
) -> None:
    """Sphinx's own guide to autosummary shows ``:toctree: DIRNAME`` in a code sample
    and moved into ``usage/extensions/``: ``from-git`` wrote ``"ext/DIRNAME/" =
    "usage/extensions/DIRNAME/"``, a folder no build makes (autosummary_generate was
    off), which the build then warned about."""
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": conf,
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   ext/autosummary\n",
        "docs/ext/autosummary.rst": "Autosummary\n===========\n\nFor example::\n\n"
                                    "    .. autosummary::\n       :toctree: DIRNAME\n\n"
                                    "       mypkg.mod\n",
    }, {})
    base = first_commit(root, "start")
    (root / "docs/usage").mkdir()
    git(root, "mv", "docs/ext", "docs/usage/extensions")
    git(root, "commit", "-qm", "move")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    data = tomllib.loads(capsys.readouterr().out)
    assert "DIRNAME" not in str(data), data


def test_a_heading_inside_a_directive_ends_with_the_directive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pyOpenSci guide moved an ``{important}`` block holding ``## Quick takeaways``
    unchanged to another page; the heading (a rubric, which ends where its directive
    does) was read to the next heading, over the page's intro after the block, and its
    old fragment got no ``[anchors]`` entry."""
    root = tmp_path / "repo"
    block = ("```{important}\n## Quick takeaways\n\nYour package:\n"
             "* Should have a documentation website\n* Should document its functions\n"
             "* Should use numpy-style docstrings\n```\n")
    intro = "".join(f"Intro line {i}: the page's own text after the block.\n" for i in range(20))
    api = "".join(f"API line {i}: what an API is and how docstrings document it.\n"
                  for i in range(30))
    write_tree(root, {
        "docs/conf.py": "extensions = ['myst_parser', 'sphinx_relocate']\n",
        "docs/index.md": "# Home\n\n```{toctree}\np\n```\n",
        "docs/p.md": "# Page P\n\n" + block + "\n" + intro + "\n## The API\n\n" + api,
    }, {})
    base = first_commit(root, "start")
    git(root, "rm", "-q", "docs/p.md")
    write_tree(root, {
        "docs/index.md": "# Home\n\n```{toctree}\nw/g\nw/d\n```\n",
        "docs/w/g.md": "# Get started\n\n" + block,
        "docs/w/d.md": "# The API\n\n" + api,
    }, {})
    commit_all(root, "split")
    monkeypatch.chdir(root)
    main(["from-git", "docs", "--since", base])
    table = tomllib.loads(capsys.readouterr().out)
    assert table["pages"] == {"p": "w/d"}  # most of its text, The API, is there now
    assert table["anchors"] == {
        "p#quick-takeaways": "w/g#quick-takeaways",  # the block, unchanged
        "p#page-p": "w/d#the-api",  # its title, to the title of the page it went to
    }
