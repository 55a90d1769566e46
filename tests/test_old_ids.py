"""Old ids carried on their new sections: ``page.html#old-id`` lands on the renamed section.

The build root ``test-old-ids`` renames headings on pages that did not move (reST and
MyST, a CJK slug), renames a label, and moves a page with an old fragment; every HTML
builder must write each old id exactly once, on the new section, and never a second
element with an id the page still uses.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import builds
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_relocate.core.table import Entry, Location, RelocationTable, Target
from sphinx_relocate.sphinx_ext.old_ids import (
    Carried,
    Clash,
    carried_ids,
    changed_documents,
    departed_ids,
)

ROOT = Path(__file__).parent / "roots" / "test-old-ids"

#: where each builder writes the pages of the root (singlehtml: one page for all)
PAGES = {
    "html": {"faq": "faq.html", "notes": "notes.html", "new/guide": "new/guide.html"},
    "dirhtml": {
        "faq": "faq/index.html", "notes": "notes/index.html", "new/guide": "new/guide/index.html",
    },
    "singlehtml": {"faq": "index.html", "notes": "index.html", "new/guide": "index.html"},
    "epub": {"faq": "faq.xhtml", "notes": "notes.xhtml", "new/guide": "new/guide.xhtml"},
}


def table_of(*entries: tuple[str, str, Target]) -> RelocationTable:
    where = Location("t.toml", 1)
    return RelocationTable.of_entries(Entry(s, old, new, where) for s, old, new in entries)


# -- the map -------------------------------------------------------------------------


def test_an_anchor_on_a_page_that_did_not_move_is_carried_there() -> None:
    table = table_of(("anchors", "faq#install-problems", Target("faq", "installation-issues")))
    assert carried_ids(table, {"faq"}.__contains__, {})[0] == {
        "faq": (Carried("installation-issues", "install-problems", "anchors",
                        "faq#install-problems"),)
    }


def test_an_anchor_of_a_moved_page_is_carried_on_the_new_page() -> None:
    table = table_of(
        ("pages", "old/guide", Target("new/guide")),
        ("anchors", "old/guide#tuning-old", Target("old/guide", "tuning")),
    )
    found, _ = carried_ids(table, {"new/guide"}.__contains__, {})
    assert found == {"new/guide": (Carried("tuning", "tuning-old", "anchors",
                                           "old/guide#tuning-old"),)}


@pytest.mark.parametrize(
    "target",
    [
        Target(url="https://elsewhere.example/page#x"),  # off the project
        Target("gone", "x"),  # no such document
        Target("faq", "same"),  # the section's own id
    ],
)
def test_what_lands_off_a_section_of_the_project_is_not_carried(target: Target) -> None:
    table = table_of(("anchors", "faq#same", target))
    assert carried_ids(table, {"faq"}.__contains__, {})[0] == {}


def test_an_old_id_that_html_cannot_hold_is_not_carried() -> None:
    table = table_of(("anchors", 'faq#a"><script>', Target("faq", "b")))
    assert carried_ids(table, {"faq"}.__contains__, {})[0] == {}


def test_a_percent_encoded_old_id_is_carried_as_the_browser_matches_it() -> None:
    table = table_of(("anchors", "notes#%E6%97%A7", Target("notes", "%E6%96%B0")))
    assert carried_ids(table, {"notes"}.__contains__, {})[0] == {
        "notes": (Carried("新", "旧", "anchors", "notes#%E6%97%A7"),)
    }


def test_a_renamed_label_carries_the_id_docutils_gave_the_old_one() -> None:
    table = table_of(("labels", "old_label", Target("new-label")))
    labels = {"new-label": ("faq", "installation-issues")}
    assert carried_ids(table, {"faq"}.__contains__, labels)[0] == {
        "faq": (Carried("installation-issues", "old-label", "labels", "old_label"),)
    }
    assert carried_ids(table, {"faq"}.__contains__, {})[0] == {}  # the new label is gone


def test_one_old_id_on_two_sections_of_a_page_is_a_clash() -> None:
    """Two pages merged into one each had ``#setup``: the first entry keeps it."""
    table = table_of(
        ("anchors", "a#setup", Target("merged", "setup-a")),
        ("anchors", "b#setup", Target("merged", "setup-b")),
        ("anchors", "c#setup", Target("merged", "setup-a")),  # the same section: no clash
    )
    found, clashes = carried_ids(table, {"merged"}.__contains__, {})
    first = Carried("setup-a", "setup", "anchors", "a#setup")
    assert found == {"merged": (first,)}
    assert clashes == [Clash("merged", first, Carried("setup-b", "setup", "anchors", "b#setup"))]


_ids = st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.tuples(st.sampled_from(["a", "b", "c"]), _ids),
                       st.tuples(st.sampled_from(["a", "b", "gone"]), _ids), max_size=8))
def test_every_carried_id_lands_where_the_table_sends_its_links(
    entries: dict[tuple[str, str], tuple[str, str]],
) -> None:
    table = table_of(*(
        ("anchors", f"{page}#{old}", Target(new_page, new)) for (page, old), (new_page, new)
        in entries.items()
    ))
    documents = {"a", "b"}.__contains__
    found, clashes = carried_ids(table, documents, {})
    for docname, carried in found.items():
        assert documents(docname)
        assert len({c.old_id for c in carried}) == len(carried)  # one section per old id
        for item in carried:
            page, _, fragment = item.key.partition("#")
            target = table.locate_reference(page, fragment, documents)
            assert target == Target(docname, item.anchor)
            assert item.old_id == fragment != item.anchor
    for clash in clashes:  # left out: the old id stays on the first entry's section
        assert found[clash.docname] and clash.kept in found[clash.docname]
        assert clash.dropped not in found[clash.docname]
        assert clash.kept.old_id == clash.dropped.old_id
        assert clash.kept.anchor != clash.dropped.anchor
    assert changed_documents(found, found) == []
    assert changed_documents({}, found) == sorted(found)


def test_a_fragment_that_left_a_page_still_there_is_departed() -> None:
    """An ``[anchors]`` key of a page that stays, sent to another page or a URL, and what
    a release's inventory says left the page; not a rename on the page itself (carried
    there), nor a fragment the page still answers, nor a page that is gone (its stub)."""
    table = table_of(
        ("anchors", "faq#went", Target("guide", "tuning")),
        ("anchors", "faq#far", Target(url="https://example.org/x")),
        ("anchors", "faq#renamed", Target("faq", "new-name")),
        ("anchors", "faq#still", Target("guide", "still")),
        ("anchors", "gone#went", Target("guide", "tuning")),
    )
    followed = {"faq": {"api.f": ("guide", "api.f"), "went": ("notes", "went")},
                "gone": {"x": ("guide", "x")}}
    departed = departed_ids(table, {"faq", "guide", "notes"}.__contains__, followed,
                            lambda docname: {"still"} if docname == "faq" else set())
    assert departed == {"faq": (
        ("api.f", Target("guide", "api.f")),
        ("far", Target(url="https://example.org/x")),
        ("went", Target("guide", "tuning")),  # the table comes first
    )}


# -- builds --------------------------------------------------------------------------


def build(src: Path, out: Path, builder: str, parallel: int = 0) -> tuple[Path, str]:
    built = builds.build(src, builder, builddir=out, parallel=parallel)
    return built.outdir, built.warnings


@pytest.fixture
def src(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    return src


def count(path: Path, old_id: str) -> int:
    return len(re.findall(rf'\bid="{re.escape(old_id)}"', path.read_text("utf-8")))


def section_of(path: Path, old_id: str) -> str:
    """The id of the section whose start carries ``old_id``."""
    text = path.read_text("utf-8")
    found = re.search(rf'<section id="([^"]+)">\s*(?:<span id="[^"]*"></span>)*'
                      rf'<span id="{re.escape(old_id)}"></span>', text)
    return found.group(1) if found else ""


@pytest.mark.parametrize("builder", ["html", "dirhtml", "singlehtml", "epub"])
def test_every_html_builder_writes_each_old_id_once_on_its_section(
    src: Path, tmp_path: Path, builder: str
) -> None:
    outdir, warnings = build(src, tmp_path / "out", builder)
    pages = {name: outdir / path for name, path in PAGES[builder].items()}
    # a heading renamed on a page that did not move (reST), and a renamed label
    assert count(pages["faq"], "install-problems") == 1
    assert section_of(pages["faq"], "install-problems") == "installation-issues"
    assert count(pages["faq"], "old-label") == 1
    assert section_of(pages["faq"], "old-label") == "installation-issues"
    # a MyST heading's CJK slug
    assert count(pages["notes"], "旧的安装") == 1
    assert section_of(pages["notes"], "旧的安装") == "id1"
    # an old fragment of a moved page: on the new page too
    assert count(pages["new/guide"], "tuning-old") == 1
    assert section_of(pages["new/guide"], "tuning-old") == "tuning"
    # an old id the page still uses: a warning naming both, no second element
    assert count(pages["faq"], "kept") == 1
    assert section_of(pages["faq"], "kept") == ""
    assert re.search(
        r"relocations\.toml:6: WARNING: old id 'kept' \(\[anchors\] 'faq#kept'\) is not "
        r"carried on the section 'installation-issues' of 'faq': the section at faq:\d+ "
        r"still has that id \(readers of faq#kept land there\); rename one of them or drop "
        r"the entry \[relocate\.anchor\]",
        warnings,
    ), warnings
    # also one that raw HTML holds
    assert count(pages["notes"], "raw-old") == 1
    assert section_of(pages["notes"], "raw-old") == ""
    assert re.search(
        r"relocations\.toml:8: WARNING: old id 'raw-old' \(\[anchors\] 'notes#raw-old'\) is "
        r"not carried on the section '安装指南' of 'notes': raw HTML at notes:3 still has "
        r"that id",
        warnings,
    ), warnings


def test_an_old_id_the_page_uses_is_reported_on_every_build(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(src, out, "html")
    outdir, warnings = build(src, out, "html")  # nothing changed: nothing is written
    assert "old id 'kept' ([anchors] 'faq#kept') is not carried" in warnings
    assert "old id 'raw-old' ([anchors] 'notes#raw-old') is not carried" in warnings
    assert count(outdir / "faq.html", "kept") == 1


def test_the_stub_of_a_moved_page_still_maps_its_old_fragment(src: Path, tmp_path: Path) -> None:
    outdir, _ = build(src, tmp_path / "out", "html")
    stub = (outdir / "old/guide.html").read_text("utf-8")
    assert '"tuning-old":"../new/guide.html#tuning"' in stub


def test_parallel_writers_carry_the_old_ids(src: Path, tmp_path: Path) -> None:
    outdir, _ = build(src, tmp_path / "out", "html", parallel=2)
    assert count(outdir / "faq.html", "install-problems") == 1
    assert count(outdir / "notes.html", "旧的安装") == 1


def test_a_table_edit_rewrites_the_pages_whose_old_ids_change(src: Path, tmp_path: Path) -> None:
    table = src / "relocations.toml"
    text = table.read_text("utf-8")
    out = tmp_path / "out"
    entry = '"faq#install-problems" = "#installation-issues"\n'
    table.write_text(text.replace(entry, ""), "utf-8")
    outdir, _ = build(src, out, "html")
    assert count(outdir / "faq.html", "install-problems") == 0
    table.write_text(text, "utf-8")  # the entry comes: only the table changed
    outdir, _ = build(src, out, "html")
    assert count(outdir / "faq.html", "install-problems") == 1
    table.write_text(text.replace(entry, ""), "utf-8")  # and goes
    outdir, _ = build(src, out, "html")
    assert count(outdir / "faq.html", "install-problems") == 0
    assert count(outdir / "faq.html", "old-label") == 1


def test_a_page_without_old_ids_is_written_as_before(src: Path, tmp_path: Path) -> None:
    (src / "relocations.toml").write_text('[pages]\n"old/guide" = "new/guide"\n', "utf-8")
    outdir, _ = build(src, tmp_path / "out", "html")
    assert '<section id="installation-issues">\n<span id="new-label"></span><h2>' in (
        outdir / "faq.html"
    ).read_text("utf-8")
    assert '<section id="tuning">\n<h2>' in (outdir / "new/guide.html").read_text("utf-8")


DEPARTED = '"faq#went-away" = "new/guide#tuning"\n"faq#installation-issues" = "new/guide#tuning"\n'


@pytest.mark.parametrize(("builder", "page", "href"), [
    ("html", "faq.html", "new/guide.html#tuning"),
    ("dirhtml", "faq/index.html", "../new/guide/index.html#tuning"),
])
def test_a_page_that_stays_sends_a_departed_fragment_on(
    src: Path, tmp_path: Path, builder: str, page: str, href: str
) -> None:
    """``faq.html#went-away``: the section went to ``new/guide``; ``faq`` is still a
    page, so no stub answers the old URL: a script in its head does.  A fragment the
    page still has (``installation-issues``) stays on the page."""
    table = src / "relocations.toml"
    table.write_text(table.read_text("utf-8").replace("[anchors]\n", "[anchors]\n" + DEPARTED),
                     "utf-8")
    outdir, _ = build(src, tmp_path / "out", builder)
    head = (outdir / page).read_text("utf-8").partition("</head>")[0]
    assert f'<script>(function(){{var m={{"went-away":"{href}"}},l=window.location' in head
    assert "installation-issues" not in head


def test_a_table_edit_rewrites_the_page_a_fragment_departs_from(
    src: Path, tmp_path: Path
) -> None:
    table = src / "relocations.toml"
    text = table.read_text("utf-8")
    out = tmp_path / "out"
    outdir, _ = build(src, out, "html")
    assert '"went-away"' not in (outdir / "faq.html").read_text("utf-8")
    table.write_text(text.replace("[anchors]\n", "[anchors]\n" + DEPARTED), "utf-8")
    outdir, _ = build(src, out, "html")  # only the table changed
    assert '"went-away":"new/guide.html#tuning"' in (outdir / "faq.html").read_text("utf-8")
    table.write_text(text, "utf-8")
    outdir, _ = build(src, out, "html")
    assert '"went-away"' not in (outdir / "faq.html").read_text("utf-8")


@pytest.mark.parametrize("exports", [[], ["nginx"]])
def test_another_pages_old_id_the_target_uses_warns_only_with_server_rules(
    tmp_path: Path, exports: list[str]
) -> None:
    """``[anchors] "a#foo" = "b#bar"`` where ``b`` has a section ``foo`` of its own (Spack's
    packaging guide, whose sections went to several pages): ``b`` cannot carry ``foo``
    on ``bar``, but no reader needs it to, as the redirect page of ``a`` maps
    ``#foo`` to ``#bar`` and links are rewritten; only a server redirect, which keeps the
    fragment, lands on ``b``'s own ``foo``.  The warning once told to drop the entry,
    which would have sent ``a#foo`` there."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f'extensions = ["sphinx_relocate"]\nrelocate_redirect_exports = {exports!r}\n'
        "show_warning_types = True\n"
    )
    (src / "relocations.toml").write_text('[pages]\n"a" = "b"\n\n[anchors]\n"a#foo" = "b#bar"\n')
    (src / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   b\n")
    (src / "b.rst").write_text("B\n=\n\nBar\n---\n\nOld foo text.\n\nFoo\n---\n\nB's own foo.\n")
    outdir, warnings = build(src, tmp_path / "out", "html")
    lines = [w for w in builds.COLOR.sub("", warnings).splitlines() if "WARNING" in w]
    if not exports:
        assert lines == []
    else:
        assert len(lines) == 1
        assert lines[0].endswith(
            "old id 'foo' ([anchors] 'a#foo') is not carried on the section 'bar' of 'b': "
            "the section at b:10 has that id already; the redirect page of 'a' sends #foo to "
            "#bar, but the server rules of relocate_redirect_exports keep the fragment and "
            "land on b:10: rename one of them [relocate.anchor]"
        )
    assert '"foo":"b.html#bar"' in (outdir / "a.html").read_text("utf-8")
