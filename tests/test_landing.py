"""Unit and property tests of the one resolution rule (``_landing``; no Sphinx)."""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_relocate.core.landing import (
    UNDECIDED,
    Landing,
    Project,
    ReadAs,
    Site,
    frame_of,
    framed,
    land,
    settle,
    site_of,
)
from sphinx_relocate.core.paths import relative_path
from sphinx_relocate.core.table import RelocationTable, Target, load_table

SUFFIXES = (".md", ".rst")


def table_of(tmp_path: Path, toml: str) -> RelocationTable:
    path = tmp_path / "relocations.toml"
    path.write_text(toml, encoding="utf-8")
    table, problems = load_table(path, source_suffixes=SUFFIXES)
    assert not problems
    return table


def project_of(
    table: RelocationTable,
    docs: set[str],
    files: set[str] = frozenset(),  # type: ignore[assignment]
    anchors: dict[str, set[str]] | None = None,
    prefix: str = "docs/",
) -> Project:
    folders = {posixpath.dirname(p) for p in files} | {
        prefix + posixpath.dirname(d) for d in docs if "/" in d
    }
    return Project(
        table,
        SUFFIXES,
        prefix,
        docs.__contains__,
        lambda path: path in files,
        lambda path: path in folders or any(f.startswith(path + "/") for f in folders),
        (lambda d, a: a in anchors.get(d, set())) if anchors is not None else (lambda d, a: None),
    )


def test_the_order_of_attempts(tmp_path: Path) -> None:
    table = table_of(tmp_path, """\
[pages]
"introduction" = "introduction/overview"
"setup" = "guide/setup"
[files]
"img/old.png" = "img/new.png"
[anchors]
"guide/setup#install-from-source" = "guide/setup#building-from-source"
""")
    docs = {"index", "introduction/overview", "guide/setup", "data"}
    files = {"docs/img/new.png", "docs/data.csv", "README.md"}
    project = project_of(table, docs, files)
    site = site_of("index", project)
    assert site == Site(("docs",), "docs", 0)
    # a document, as is; its [anchors] entry moves the fragment
    assert land("guide/setup.md#install-from-source", "any", site, project) == Landing(
        "page", "guide/setup", "building-from-source", True
    )
    assert land("data.md", "any", site, project) == Landing("page", "data")
    # a file, as is
    assert land("data.csv", "any", site, project) == Landing("file", "docs/data.csv")
    # through [pages]: a toctree entry never lands on the folder a page became
    assert land("introduction", "page", site, project) == Landing(
        "page", "introduction/overview", "", True
    )
    assert land("setup.html#x", "any", site, project) == Landing("page", "guide/setup", "x", True)
    # through [files]
    moved_image = Landing("file", "docs/img/new.png", "", True)
    assert land("img/old.png", "file", site, project) == moved_image
    # out of the docs and back in: one path
    assert land("../docs/setup.md", "any", site, project) == Landing(
        "page", "guide/setup", "", True
    )
    # a file of the repository outside the docs
    assert land("../README.md", "any", site, project) == Landing("file", "README.md")
    # nowhere: what it reads as, for the message
    missing = land("nowhere.md", "any", site, project)
    assert missing == Landing("page", "nowhere", "", False, 0, False)
    assert land("https://example.org/x", "any", site, project) is None
    assert land("#top", "any", site, project) is None


def test_a_moved_page_follows_its_frame(tmp_path: Path) -> None:
    """``../index.md`` lands from both folders; the page's other links vote."""
    table = table_of(tmp_path, '[pages]\n"a/b/c/page" = "x/y/z/page"\n')
    docs = {"a/b/index", "x/y/index", "a/b/c/sibling", "x/y/z/page"}
    project = project_of(table, docs)
    site = site_of("x/y/z/page", project)
    assert site.folders == ("docs/x/y/z", "docs/a/b/c") and site.frame == UNDECIDED
    # until the frame is read, a link with two meanings says so
    undecided = land("../index.md", "any", site, project)
    assert undecided is not None and [o.target for o in undecided.others] == ["a/b/index"]
    text = "[up](../index.md) [next](sibling.md)\n"
    site = framed(site, text, "docs/x/y/z/page.md", project)
    assert site.frame == 1  # sibling.md lands from the old folder only
    assert land("../index.md", "any", site, project) == Landing("page", "a/b/index", "", False, 1)
    # with the new folder's votes the same link means the new folder's index
    now = framed(site._replace(frame=UNDECIDED),
                 "[up](../index.md) [ok](../../../a/b/c/sibling.md)\n", "docs/x/y/z/page.md",
                 project)
    assert now.frame is None  # that link lands from both folders on one page: no vote


def test_a_tie_is_broken_by_an_anchor_on_one_page_only(tmp_path: Path) -> None:
    table = table_of(tmp_path, '[pages]\n"guide/page" = "guide/deep/page"\n')
    docs = {"index", "guide/index", "guide/deep/page"}
    anchors = {"index": {"setup"}, "guide/index": {"topics"}}
    project = project_of(table, docs, anchors=anchors)
    site = site_of("guide/deep/page", project)
    assert frame_of([("../index.md#setup", "any")], site, project) is None
    site = framed(site, "[a](../index.md#setup)\n", "docs/guide/deep/page.md", project)
    assert site.frame is None
    assert land("../index.md#setup", "any", site, project) == Landing(
        "page", "index", "setup", False, 1
    )
    assert land("../index.md#topics", "any", site, project) == Landing(
        "page", "guide/index", "topics", False, 0
    )
    # on both or on neither: ambiguous, both named
    both = land("../index.md", "any", site, project)
    assert both is not None and both.target == "guide/index"
    assert [o.target for o in both.others] == ["index"]
    # while anchors are not known yet (the build, reading), the choice waits
    waiting = project_of(table, docs)
    pending = land("../index.md#setup", "any", site, waiting)
    assert pending is not None and pending.others
    assert settle(pending, lambda d, a: a in anchors.get(d, set())).target == "index"


WORDS = st.sampled_from(["a", "b", "c", "index", "guide"])
FOLDERS = st.lists(WORDS, min_size=0, max_size=3).map("/".join)


@settings(max_examples=150, deadline=None)
@given(
    docs=st.sets(st.tuples(FOLDERS, WORDS).map(lambda t: posixpath.join(*t)), min_size=2,
                 max_size=25),
    old_folder=FOLDERS,
    new_folder=FOLDERS,
    picks=st.lists(st.integers(min_value=0), min_size=1, max_size=8),
)
def test_a_link_written_from_the_old_folder_never_lands_on_a_wrong_page(
    docs: set[str], old_folder: str, new_folder: str, picks: list[int]
) -> None:
    """Whatever the tree: the moved page's links land where they were written for, or
    are ambiguous (both named), never on another existing page."""
    old, new = posixpath.join(old_folder, "moved"), posixpath.join(new_folder, "moved")
    if old == new:
        return
    docs = (docs - {old}) | {new}
    targets = sorted(docs - {new})
    if not targets:
        return
    table = RelocationTable(
        pages={old: Target(path=new)}
    )
    project = project_of(table, docs)
    written = [
        relative_path(old_folder, targets[p % len(targets)] + ".md") for p in picks
    ]
    site = framed(site_of(new, project), "\n".join(f"[x]({w})" for w in written) + "\n",
                  f"docs/{new}.md", project)
    for pick, link in zip(picks, written, strict=True):
        meant = targets[pick % len(targets)]
        landing = land(link, "any", site, project)
        assert landing is not None and landing.exists
        assert landing.target == meant or (
            landing.others and meant in {landing.target, *(o.target for o in landing.others)}
        ), (link, landing, site)


# -- the set-lookup answer (``existing_landing``) is the rule's --------------------

_NAMES = st.sampled_from(["a", "b", "guide/a", "guide/b", "old/a", "index"])


@settings(max_examples=500, deadline=None)
@given(
    docs=st.sets(st.sampled_from(["a", "b", "guide/a", "guide/b", "index"]), max_size=5),
    files=st.sets(st.sampled_from(["img.png", "guide/img.png", "data.csv"]), max_size=3),
    pages=st.dictionaries(st.sampled_from(["a", "old/a", "guide/a", "b"]), _NAMES, max_size=3),
    anchors=st.sets(st.tuples(st.sampled_from(["a", "old/a", "guide/a"]),
                              st.sampled_from(["x", "y"])), max_size=2),
    folder=st.sampled_from(["", "guide", "old"]),
    old_folder=st.sampled_from([None, "", "guide", "old"]),
    written=st.tuples(
        st.sampled_from(["", "/", "../", "./", "guide/", "old/"]),
        st.sampled_from(["a", "b", "a.md", "b.rst", "a.html", "img.png", "data.csv", "index"]),
        st.sampled_from(["", "#x", "#y", "?q=1", "#%78"]),
    ),
    reads_as=st.sampled_from(["page", "file", "any"]),
)
def test_the_set_lookup_answers_as_the_whole_rule(
    docs: set[str], files: set[str], pages: dict[str, str], anchors: set[tuple[str, str]],
    folder: str, old_folder: str | None, written: tuple[str, str, str], reads_as: str,
) -> None:
    """Where ``existing_landing`` answers (a reference to a page or file that exists, read
    from the folder a file's links are written from), it answers what the whole rule does,
    and notes what the rule notes; so does ``existing_page`` for the page a reader
    made of it."""
    from sphinx_relocate.core.landing import _land, existing_landing, existing_page

    rows = [f'"{old}" = "{new}"' for old, new in pages.items() if old != new]
    rows += ["[anchors]"] + [f'"{page}#{id_}" = "{page}#z"' for page, id_ in sorted(anchors)]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, "relocations.toml")
        path.write_text("[pages]\n" + "\n".join(rows) + "\n", encoding="utf-8")
        table, problems = load_table(path, source_suffixes=SUFFIXES)
    if any(problem.fatal for problem in problems):
        return  # a table the loader refuses (a cycle): no build gets this far
    project = project_of(table, docs, {"docs/" + f for f in files})
    folders = (folder,) if old_folder is None or old_folder == folder else (folder, old_folder)
    site = Site(tuple(project.repo_folder(f) for f in folders), "docs", 0)
    target = "".join(written)
    quick_notes: set[tuple[str, str, str]] = set()
    rule_notes: set[tuple[str, str, str]] = set()
    how = cast(ReadAs, reads_as)
    quick = existing_landing(target, how, site, project.recording(quick_notes.add))
    rule = _land(target, how, site, project.recording(rule_notes.add))
    if quick is not None:
        assert quick == rule
        assert quick_notes <= rule_notes
    assert land(target, how, site, project) == rule
    if (rule is not None and rule.lands_on == "page" and rule.folder == 0
            and not rule.via_table and not rule.respelled):
        # the page a reader found from the file's folder (as MyST does, by its file)
        fragment = written[2][1:] if written[2].startswith("#") else ""
        page = existing_page(rule.target, fragment, site, project)
        assert page is None or page == rule


def test_a_page_named_by_a_source_file_it_no_longer_has(tmp_path: Path) -> None:
    """``install.rst`` of what is ``install.md`` now lands on the page, as written
    against an old path (``rewrite`` writes the file's name now); the page's own file,
    its built name and its docname are as written."""
    project = project_of(
        table_of(tmp_path, ""), {"install", "notes"}, {"docs/install.md", "docs/notes.rst"}
    )
    site = site_of("index", project)
    renamed = land("install.rst", "any", site, project)
    assert renamed == Landing("page", "install", respelled=True)
    assert renamed is not None and renamed.changed
    assert land("notes.md#usage", "any", site, project) == Landing(
        "page", "notes", "usage", respelled=True
    )
    for written in ("install.md", "install.html", "install", "/install.md"):
        found = land(written, "any", site, project)
        assert found == Landing("page", "install") and not found.changed, written


def test_served_version() -> None:
    """A Read the Docs ``<language>/<version>/`` below ``html_baseurl``: read through for
    today's versions, history for another; a page or folder of the project wins."""
    from sphinx_relocate.core.paths import served_version

    project = {"de", "guide"}.__contains__
    assert served_version("en/latest/page.html", project) == ("en/latest/", True)
    assert served_version("pt-br/stable/x/", project) == ("pt-br/stable/", True)
    assert served_version("zh_CN/latest/a.html#b", project) == ("zh_CN/latest/", True)
    assert served_version("en/4.12.x/page.html", project) == ("en/4.12.x/", False)
    assert served_version("de/latest/page.html", project) == ("", True)  # the project's
    assert served_version("guide/page.html", project) == ("", True)
    assert served_version("en/latest", project) == ("", True)  # no page below it


@given(st.text(alphabet="abenlt/.-_", max_size=30))
def test_served_version_is_a_prefix(below: str) -> None:
    from sphinx_relocate.core.paths import served_version

    prefix, current = served_version(below, lambda _: False)
    assert below.startswith(prefix) and (not prefix or prefix.count("/") == 2)
    assert current or prefix
