"""``relocate_old_url_styles``: a site whose URL style changed keeps the old style's URLs.

The stubs and export rows of each page's (and old page's) URL in an old style, never
over a file the build writes; the servers' side is in test_exports_servers.py.
"""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path

import builds
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinx_relocate.core.stubs import (
    HtmlOutput,
    Redirect,
    export_rows,
    rebased,
    style_redirects,
    style_url,
)
from sphinx_relocate.core.table import Target

ROOT = Path(__file__).parent / "roots" / "test-servers"


@pytest.mark.parametrize(("style", "urls"), [
    ("html", ["/index.html", "/a/index.html", "/a/b%20c.html"]),
    ("dirhtml", ["/", "/a/", "/a/b%20c/"]),
    ("clean", ["/", "/a/", "/a/b%20c"]),
])
def test_style_url(style: str, urls: list[str]) -> None:
    assert [style_url(d, style) for d in ["index", "a/index", "a/b c"]] == urls


def test_every_page_gets_its_old_style_url_and_no_file_is_taken() -> None:
    """html → dirhtml: 'a.html' of each page; 'a/index.html' is the page itself, and
    an old page's stub keeps its target."""
    site = HtmlOutput(dirhtml=True)
    documents = {"index", "a", "g/index"}
    taken = {"index.html", "a/index.html", "g/index.html", "A.html"}
    found = style_redirects([], documents, site, ["html"], taken=taken)
    assert found == []  # 'a.html' differs from the file 'A.html' only by letter case
    found = style_redirects([], documents, site, ["html"], taken=taken - {"A.html"})
    assert [(r.path, r.url, r.old_url) for r in found] == [("a.html", "a/index.html", "/a.html")]
    assert export_rows(found, site) == [("/a.html", "/a/")]
    plain = style_redirects([], {"x"}, HtmlOutput(dirhtml=False), ["dirhtml", "clean"],
                            taken={"x.html"})
    assert [(r.path, r.old_url) for r in plain] == [("x/index.html", "/x/")]


def test_an_old_page_gets_its_old_style_url_too() -> None:
    site = HtmlOutput(dirhtml=True)
    moved = Redirect("old", "old/index.html", "", "", "", Target("a", "part"))
    (found,) = style_redirects([moved], set(), site, ["html"], taken={"old/index.html"})
    assert (found.path, found.url, found.target) == ("old.html", "a/index.html#part",
                                                     Target("a", "part"))
    assert export_rows([found], site) == [("/old.html", "/a/#part")]


def test_an_old_page_s_fragments_go_where_they_go_from_its_stub() -> None:
    """html → dirhtml: ``guide.html#tuning`` and the old style's ``guide/#tuning`` both
    land on the section the old page's ``[anchors]`` entry names."""
    site = HtmlOutput(dirhtml=False)
    moved = Redirect("guide", "guide.html", "guide/basics.html", "", "", Target("guide/basics"),
                     {"tuning": "guide/advanced.html#tuning", "far": "https://x.example/#f"})
    (found,) = style_redirects([moved], set(), site, ["dirhtml"], taken={"guide.html"})
    assert found.path == "guide/index.html"
    assert found.anchors == {"tuning": "advanced.html#tuning", "far": "https://x.example/#f"}


@pytest.mark.parametrize(("href", "from_file", "to_file", "rebased_href"), [
    ("a/b.html#x", "p.html", "p/index.html", "../a/b.html#x"),
    ("../a/b.html", "p/q.html", "p.html", "a/b.html"),
    ("../a/", "p/index.html", "p.html", "a/"),
    ("../", "p/index.html", "index.html", "./"),
    ("/abs/x.html#y", "p.html", "p/index.html", "/abs/x.html#y"),
    ("https://e.example/a.html", "p.html", "p/q/index.html", "https://e.example/a.html"),
])
def test_a_relative_href_is_rebased_to_another_file(
    href: str, from_file: str, to_file: str, rebased_href: str
) -> None:
    assert rebased(href, from_file, to_file) == rebased_href


_SEGMENTS = st.lists(st.sampled_from(["a", "b", "c d"]), max_size=3)


@given(target=_SEGMENTS, start=_SEGMENTS, end=_SEGMENTS, fragment=st.sampled_from(["", "#x"]))
def test_a_rebased_href_names_the_same_file(
    target: list[str], start: list[str], end: list[str], fragment: str
) -> None:
    """Read from the file it is rebased to, an href names the file it named from the
    file it was written in."""
    from_file, to_file = "/".join([*start, "s.html"]), "/".join([*end, "t.html"])
    whole = "/".join([*target, "page.html"])
    href = posixpath.relpath(whole, posixpath.dirname(from_file) or ".") + fragment
    moved = rebased(href, from_file, to_file)
    path, _, rest = moved.partition("#")
    assert posixpath.normpath(posixpath.join(posixpath.dirname(to_file), path)) == whole
    assert rest == fragment.lstrip("#")


@pytest.mark.parametrize(("builder", "style", "stub", "row"), [
    ("dirhtml", "html", "new/plain.html", ("/new/plain.html", "/new/plain/")),
    ("html", "dirhtml", "new/plain/index.html", ("/new/plain/", "/new/plain.html")),
    ("html", "clean", "new/plain/index.html", ("/new/plain", "/new/plain.html")),
])
def test_the_build_writes_the_old_style(
    tmp_path: Path, builder: str, style: str, stub: str, row: tuple[str, str]
) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    out = builds.build(src, builder, confoverrides={
        "relocate_old_url_styles": [style], "relocate_redirect_exports": ["json"],
    }).outdir
    assert 'http-equiv="refresh"' in (out / stub).read_text("utf-8")
    rules = json.loads((out / "_relocate/redirects.json").read_text("utf-8"))
    assert {"from": row[0], "to": row[1]} in rules
    # the builder's own pages too, and no real page was replaced
    search = "search.html" if style == "html" else "search/index.html"
    assert 'http-equiv="refresh"' in (out / search).read_text("utf-8")
    index = out / ("index.html")
    assert 'http-equiv="refresh"' not in index.read_text("utf-8")
    manifest = json.loads((out / "_relocate/stubs.json").read_text("utf-8"))["files"]
    assert "index.html" not in manifest and "manual/index.html" not in manifest


def test_a_file_of_the_user_is_never_replaced(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    out = tmp_path / "build/dirhtml"
    (out / "new").mkdir(parents=True)
    (out / "new/plain.html").write_text("mine", "utf-8")
    built = builds.build(src, "dirhtml", builddir=tmp_path / "build", confoverrides={
        "relocate_old_url_styles": ["html"],
    })
    assert (out / "new/plain.html").read_text("utf-8") == "mine"
    assert "'new/plain.html'" in built.warnings  # relocate.stub: not written
    assert 'http-equiv="refresh"' in (out / "manual/deep/page.html").read_text("utf-8")
