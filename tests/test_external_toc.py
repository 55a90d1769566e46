"""sphinx-external-toc's site map (``_toc.yml``): the build maps its entries through the
table, ``rewrite`` rewrites them in the file, and the two land every entry alike."""

from __future__ import annotations

import re
import shutil
import string
from pathlib import Path

import builds
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from reorg_fixture import first_commit, git

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.rewrite import _yaml_scalar
from sphinx_relocate.core.spans import external_toc_targets

pytest.importorskip("sphinx_external_toc")

ROOT = Path(__file__).parent / "roots" / "test-external-toc"
COLOR = re.compile(r"\x1b\[[0-9;]*m")
HREF = re.compile(r'<a class="reference (?:internal|external)" href="([^"]*)">([^<]*)</a>')
PLAIN = ["myst_parser", "sphinx_external_toc"]


def copy_root(tmp_path: Path) -> Path:
    srcdir = tmp_path / "docs"
    shutil.copytree(ROOT, srcdir)
    return srcdir


def toctree_links(html: str) -> list[tuple[str, str]]:
    """The (href, text) of the links of a page's toctree (its ``toctree-wrapper``)."""
    start = html.index('<div class="toctree-wrapper')
    return HREF.findall(html[start : html.index("</div>", start)])


EXPECTED = [
    ("../tutorial/install.html", "Install"),
    ("../tutorial/usage.html", "Usage"),
    ("../tutorial/advanced.html", "Advanced"),
    ("../tutorial/extra-1.html", "Extra one"),
    ("https://tool.example.org/docs/", "The tool"),
    ("../tutorial/faq.html", "FAQ"),
]


@pytest.mark.sphinx("html", testroot="external-toc", freshenv=True)
def test_site_map_entries_follow_the_table(app) -> None:
    app.build()
    assert COLOR.sub("", app._warning.getvalue()) == ""
    # the root moved: the build starts from it, and its toctree names the pages now
    assert app.config.master_doc == "start/intro"
    html = (Path(app.outdir) / "start" / "intro.html").read_text("utf-8")
    assert toctree_links(html) == EXPECTED
    # a moved page the old site map did not name was not left out of the build
    assert "tutorial/install.md" not in app.config.exclude_patterns
    assert re.search(r'href="../tutorial/install.html"><span[^>]*>the install page', html)
    # a page renamed with its suffix written keeps it (guide/usage.md → tutorial/usage.md)
    assert "tutorial/usage.md" in app.config.external_site_map


def test_an_unchanged_build_reads_nothing_again(tmp_path: Path) -> None:
    srcdir = copy_root(tmp_path)
    first = builds.build(srcdir)
    assert COLOR.sub("", first.warnings) == ""
    again = builds.build(srcdir)
    assert again.read == frozenset()
    assert COLOR.sub("", again.warnings) == ""


def test_without_the_extension_the_old_site_map_warns(tmp_path: Path) -> None:
    """What the test above guards: sphinx-external-toc alone drops every moved entry."""
    srcdir = copy_root(tmp_path)
    toc = srcdir / "_toc.yml"  # else no build starts: its root page is not found
    toc.write_text(toc.read_text("utf-8").replace("root: intro", "root: start/intro"), "utf-8")
    built = builds.build(srcdir, confoverrides={"extensions": PLAIN})
    warnings = COLOR.sub("", built.warnings)
    assert "toctree contains reference to nonexisting document 'guide/install'" in warnings


def test_a_drop_in_changes_nothing(tmp_path: Path) -> None:
    """A healthy project with the extension and no table: the same site, no warning."""
    srcdir = copy_root(tmp_path)
    (srcdir / "relocations.toml").unlink()
    toc = (srcdir / "_toc.yml").read_text("utf-8").replace("guide/", "tutorial/")
    toc = toc.replace("root: intro", "root: start/intro")
    (srcdir / "_toc.yml").write_text(toc.replace("  - file: old/tool\n    title: The tool\n", ""))
    (srcdir / "start" / "intro.md").write_text("# Introduction\n", encoding="utf-8")
    pages = {}
    for name, extensions in (("plain", PLAIN), ("relocate", [*PLAIN, "sphinx_relocate"])):
        built = builds.build(srcdir, builddir=tmp_path / name, fresh=True,
                             confoverrides={"extensions": extensions})
        assert COLOR.sub("", built.warnings) == ""
        pages[name] = toctree_links((built.outdir / "start" / "intro.html").read_text("utf-8"))
    assert pages["relocate"] == pages["plain"] != []


def test_a_page_sent_to_a_url_without_a_title_warns_at_its_line(tmp_path: Path) -> None:
    srcdir = copy_root(tmp_path)
    toc = srcdir / "_toc.yml"
    toc.write_text(toc.read_text("utf-8").replace("    title: The tool\n", ""), "utf-8")
    built = builds.build(srcdir, confoverrides={"show_warning_types": True})  # 7.4: off
    assert COLOR.sub("", built.warnings).strip() == (
        f"{toc}:14: WARNING: site map entry 'old/tool' goes to "
        "https://tool.example.org/docs/ now, and the old page's title is not known: the "
        "toctree shows the URL; write it as 'url: https://tool.example.org/docs/' with a "
        "'title:' [relocate.toctree]"
    )
    links = toctree_links((built.outdir / "start" / "intro.html").read_text("utf-8"))
    assert ("https://tool.example.org/docs/", "https://tool.example.org/docs/") in links


def test_a_page_sent_to_a_url_shows_its_title_from_git(tmp_path: Path) -> None:
    """No ``title:`` in the site map: the URL entry shows the deleted page's title, as
    the last version git has of it gives it (as a toctree entry's does)."""
    srcdir = copy_root(tmp_path)
    (srcdir / "old").mkdir()
    (srcdir / "old" / "tool.md").write_text("# The old tool\n", encoding="utf-8")
    first_commit(tmp_path, "before")
    git(tmp_path, "rm", "-q", "docs/old/tool.md")
    toc = srcdir / "_toc.yml"
    toc.write_text(toc.read_text("utf-8").replace("    title: The tool\n", ""), "utf-8")
    built = builds.build(srcdir, confoverrides={"relocate_repo_root": str(tmp_path)})
    assert COLOR.sub("", built.warnings) == ""
    links = toctree_links((built.outdir / "start" / "intro.html").read_text("utf-8"))
    assert ("https://tool.example.org/docs/", "The old tool") in links


def test_rewrite_writes_the_site_map_and_a_plain_build_lands_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    srcdir = copy_root(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 1  # the URL entry is left: said below
    err = capsys.readouterr().err
    assert (
        "_toc.yml:14:11: site map entry 'old/tool' goes to https://tool.example.org/docs/ "
        "now, which a 'file:' entry cannot name: left as written; write it as "
        "'url: https://tool.example.org/docs/' with a 'title:' [relocate.toctree]"
    ) in err
    assert "rewrote 7 links in 2 files (external-toc 6, link 1)" in err
    assert (srcdir / "_toc.yml").read_text("utf-8") == (ROOT / "_toc.yml").read_text(
        "utf-8"
    ).replace("root: intro", "root: start/intro").replace("guide/usage.md", "tutorial/usage.md") \
        .replace("file: guide/", "file: tutorial/").replace("'guide/faq'", "'tutorial/faq'") \
        .replace("glob: guide/", "glob: tutorial/")
    # by hand, as rewrite said; then the plain build lands every entry where the
    # extension's build did
    toc = srcdir / "_toc.yml"
    toc.write_text(toc.read_text("utf-8").replace(
        "file: old/tool", "url: https://tool.example.org/docs/"), "utf-8")
    built = builds.build(srcdir, confoverrides={"extensions": PLAIN})
    assert COLOR.sub("", built.warnings) == ""
    html = (built.outdir / "start" / "intro.html").read_text("utf-8")
    assert toctree_links(html) == EXPECTED


# -- the site map's entries in the text -------------------------------------------


def test_entries_in_every_style_are_found() -> None:
    text = (
        "root: intro   # the root\r\n"
        "# file: commented out\n"
        "chapters:\n"
        "- file: guide/install\n"
        '  title: "see file: elsewhere"\n'
        '- file: "guide/usage.md"\n'
        "  sections:\n"
        "  - file: 'guide/with space'\n"
        "  - {file: guide/flow, title: T}\n"
        '  - {title: T, file: "guide/quoted"}\n'
        "  - glob: guide/*\n"
        "  - glob: '**/x*'\n"
        "  - url: https://example.org\n"
        "  - file: a#b\n"
        "  - file: &anchor x\n"
        '  - file: "escaped\\"quote"\n'
        "  - - file: nested\n"
        "  - file:glued\n"
        "  - file: two\n"
        "      lines\n"
        "  - file: last\n"
        "    title: T\n"
    )
    found = [text[span.start : span.end] for span in external_toc_targets(text)]
    assert found == [
        "intro", "guide/install", "guide/usage.md", "guide/with space", "guide/flow",
        "guide/quoted", "guide/*", "**/x*", "a#b", "nested", "last",
    ]
    modes = [span.mode for span in external_toc_targets(text)]
    assert modes == ["doc"] * 6 + ["glob"] * 2 + ["doc"] * 3
    assert external_toc_targets("root: [unclosed\n") == []  # YAML that does not parse


NAME = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + "/_-. 指南é#:,'\"{}"),
    min_size=1, max_size=20,
).filter(lambda name: name.strip() == name)


@given(names=st.lists(NAME, min_size=1, max_size=6), flow=st.booleans(),
       width=st.sampled_from([8, 20, 1000]))
def test_the_spans_are_the_entries_yaml_reads(names: list[str], flow: bool, width: int) -> None:
    """Each span is one ``root``/``file`` value as YAML reads it, or the entry is left
    out (never a part of a value, also of one folded over lines, nor anything else)."""
    data = {"root": names[0], "chapters": [{"file": name, "title": "t"} for name in names[1:]]}
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, width=width)
    found = [text[span.start : span.end] for span in external_toc_targets(text)]
    assert all(value in names for value in found), (text, found)
    if width == 1000:  # on one line each, every plain name is found
        plain = [name for name in names if re.fullmatch(r"[\w/.][\w/. -]*", name)]
        assert set(plain) <= set(found), (text, found)


@given(new=st.text(min_size=1, max_size=20).filter(lambda s: "\n" not in s and "\r" not in s
                                                  and s.isprintable()),
       quote=st.sampled_from(['"', "'", " "]))
def test_a_new_entry_reads_back_as_itself(new: str, quote: str) -> None:
    inside = _yaml_scalar(new, quote)
    written = f"{quote}{inside}{quote}" if quote != " " else inside
    assert yaml.safe_load(f"file: {written}\n") == {"file": new}


def test_a_link_to_the_site_root_lands_on_its_redirect_page(tmp_path: Path) -> None:
    """sphinx-external-toc writes ``index.html`` (a redirect to a root document not named
    ``index``): a link to the site's root lands there, as on the published site."""
    srcdir = tmp_path / "docs"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        f"extensions = {[*PLAIN, 'sphinx_relocate']!r}\n"
        'html_baseurl = "https://example.org/proposals"\n', encoding="utf-8"
    )
    (srcdir / "_toc.yml").write_text("root: README\n", encoding="utf-8")
    (srcdir / "README.md").write_text(
        "# Proposals\n\nRendered at <https://example.org/proposals>, and "
        "[a page that is not](https://example.org/proposals/missing.html).\n",
        encoding="utf-8",
    )
    for fresh in (True, False):  # the redirect page is written once, then kept
        built = builds.build(srcdir, fresh=fresh)
        warnings = COLOR.sub("", built.warnings)
        assert "'https://example.org/proposals'" not in warnings
        assert "site url 'https://example.org/proposals/missing.html' does not land" in warnings


def test_each_mapped_entry_is_reported_when_asked(tmp_path: Path) -> None:
    """``relocate_report_rewrites``: one ``relocate.outdated`` per entry, at its line."""
    srcdir = copy_root(tmp_path)
    built = builds.build(srcdir, confoverrides={
        "relocate_report_rewrites": True, "show_warning_types": True,
    })
    toc = srcdir / "_toc.yml"
    outdated = {line for line in COLOR.sub("", built.warnings).splitlines()
                if line.startswith(str(toc))}
    assert outdated == {
        f"{toc}:{line}: WARNING: {old!r} is written against an old path; it now points to "
        f"{new!r} [relocate.outdated]"
        for line, old, new in (
            (3, "intro", "start/intro"),
            (9, "guide/install", "tutorial/install"),
            (10, "guide/usage.md", "tutorial/usage.md"),
            (12, "guide/advanced", "tutorial/advanced"),
            (13, "guide/extra-*", "tutorial/extra-*"),
            (14, "old/tool", "https://tool.example.org/docs/"),
            (16, "guide/faq", "tutorial/faq"),
        )
    }


def test_a_site_map_of_unknown_shape_is_used_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another version of sphinx-external-toc, whose objects differ: one warning at the
    file, and the build goes on (no traceback)."""
    from sphinx_external_toc import api

    monkeypatch.delattr(api, "UrlItem")  # what a version without it would give
    srcdir = copy_root(tmp_path)
    toc = srcdir / "_toc.yml"  # its root as it is now, else no build starts
    toc.write_text(toc.read_text("utf-8").replace("root: intro", "root: start/intro"), "utf-8")
    built = builds.build(srcdir, confoverrides={"show_warning_types": True})
    warnings = COLOR.sub("", built.warnings)
    assert (f"WARNING: {toc}: the site map's entries are not mapped through the table: "
            "its objects are not as this extension knows them") in warnings
    assert "[relocate.toctree]" in warnings
    assert "nonexisting document 'guide/install'" in warnings  # as sphinx-external-toc says
