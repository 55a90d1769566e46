"""The raw-HTML rewriter changes href/src values and preserves every other byte."""

from __future__ import annotations

import html
import itertools
import os
import re
import textwrap
import time
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sphinx.testing.util import SphinxTestApp

from sphinx_relocate.core.html import _ATTRIBUTE, UrlAttribute, find_urls, rewrite_urls


def values(text: str) -> list[tuple[str, str, str]]:
    return [(f.tag, f.attribute, f.value) for f in find_urls(text)]


def test_finds_quoted_unquoted_and_entity_values() -> None:
    text = (
        '<a class="x" href="a.md#b">A</a><IMG SRC=img.png width=3>'
        "<a href='q.md?x=1&amp;y=2'>Q</a><link rel=stylesheet href = \"s.css\">"
    )
    assert values(text) == [
        ("a", "href", "a.md#b"),
        ("img", "src", "img.png"),
        ("a", "href", "q.md?x=1&y=2"),
        ("link", "href", "s.css"),
    ]


def test_skips_comments_script_bodies_and_other_attributes() -> None:
    text = (
        '<!-- <a href="no.md"> --><script>var s = "<a href=\'no2.md\'>";</script>'
        '<a data-href="no3.md" title="href=no4.md" href="yes.md">'
    )
    assert values(text) == [("a", "href", "yes.md")]


def test_rewrites_only_the_value() -> None:
    text = '<p>\n  <a  class="x"\n href="old.md#s" >t</a> <img src=\'a.png\' alt="a"></p>'
    new = rewrite_urls(text, lambda f: {"old.md#s": "new.md#s", "a.png": "b.png"}[f.value])
    assert new == '<p>\n  <a  class="x"\n href="new.md#s" >t</a> <img src=\'b.png\' alt="a"></p>'


def test_escapes_for_the_quoting_it_lands_in() -> None:
    assert rewrite_urls("<a href=x>", lambda f: "a b&c") == '<a href="a b&amp;c">'
    assert rewrite_urls('<a href="x">', lambda f: 'q"&') == '<a href="q&quot;&amp;">'
    assert rewrite_urls("<a href='x'>", lambda f: "it's") == "<a href='it&#x27;s'>"


_chunks = st.lists(
    st.one_of(
        st.text(alphabet="<>=\"'/ abhrefsrcimg-!#.&;\n", max_size=12),
        st.sampled_from(
            ['<a href="p.md">', "<img src='i.png'>", "<a href=u.md>", "<!-- c -->", "<script>",
             "</script>", '<a title=">" href="t.md">', "&amp;", "<a href=>"]
        ),
    ),
    max_size=12,
)


@given(_chunks)
def test_identity_rewrite_returns_the_input(chunks: list[str]) -> None:
    text = "".join(chunks)
    assert rewrite_urls(text, lambda f: f.value) == text
    assert rewrite_urls(text, lambda f: None) == text


# a tag left open before the value: its quotes must not pair with the new value's
@example(['<b";', '="', "<a href=u.md>"], "")  # an empty value gets quotes
@example(["<b'", '<a href="p.md">', '<a title=">" href="t.md">'], "'")
@example(["<", "b'", "<img src='i.png'>"], ">")
@given(_chunks, st.text(max_size=8))
def test_rewrite_changes_nothing_outside_the_values(chunks: list[str], new: str) -> None:
    text = "".join(chunks)
    found = list(find_urls(text))
    result = rewrite_urls(text, lambda f: new)
    # what lies between the values is byte-identical
    spans = [(0, 0)] + [(f.start, f.end) for f in found] + [(len(text), len(text))]
    outside = [text[a[1] : b[0]] for a, b in itertools.pairwise(spans)]
    position = 0
    for piece in outside:
        index = result.find(piece, position)
        assert index >= 0
        position = index + len(piece)
    # and each new value reads back as written
    assert [f.value for f in find_urls(result)] == [new] * len(found)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20))
def test_values_round_trip_through_quotes(value: str) -> None:
    for template in ('<a href="x">', "<a href='x'>", "<a href=x>"):
        result = rewrite_urls(template, lambda f: value)
        found = list(find_urls(result))
        assert [f.value for f in found] == [value]


# -- linear in the text (D10) ------------------------------------------------------

#: the scanner as it was, one regular expression: the reference for what a token is
_REFERENCE_TOKEN = re.compile(
    r"""<!--.*?(?:-->|\Z)"""
    r"""|<(?P<tag>[A-Za-z][A-Za-z0-9:-]*)"""
    r"""(?P<attrs>(?:[^>"']|"[^"]*"|'[^']*')*)>""",
    re.DOTALL,
)


def reference_urls(text: str) -> list[tuple[str, str, str, int, int, str]]:
    """``find_urls`` of the single-expression scanner (quadratic on an open ``<``)."""
    found = []
    position = 0
    while (match := _REFERENCE_TOKEN.search(text, position)) is not None:
        position = match.end()
        tag = match.group("tag")
        if tag is None:
            continue
        offset = match.start("attrs")
        for attribute in _ATTRIBUTE.finditer(match.group("attrs")):
            name = (attribute.group("name") or "").lower()  # None: a quoted run skipped
            if name not in ("href", "src"):
                continue
            for group, quote in (("dq", '"'), ("sq", "'"), ("uq", "")):
                if attribute.group(group) is not None:
                    found.append((tag.lower(), name, html.unescape(attribute.group(group)),
                                  offset + attribute.start(group),
                                  offset + attribute.end(group), quote))
                    break
        if tag.lower() in ("script", "style"):
            close = re.compile(rf"</{tag}\s*>", re.IGNORECASE).search(text, position)
            position = close.end() if close else len(text)
    return found


def found_urls(text: str) -> list[tuple[str, str, str, int, int, str]]:
    return [(f.tag, f.attribute, f.value, f.start, f.end, f.quote) for f in find_urls(text)]


_malformed = st.lists(
    st.one_of(
        st.text(alphabet="<>=\"'/ abhrefsrcimgHREFSRC-!#.&;\n", max_size=10),
        st.sampled_from(
            ["<a ", "<img ", '"', "'", ">", "<!--", "-->", "<script>", "</script>",
             '<a href="p.md">', "<img src='i.png'>", "<a href=u.md>", "<style>", "</STYLE >",
             '<IMG SRC="I.png">', "<a data-src=d.png HrEf='h.md?a=1&amp;b=2'>", "&amp;"]
        ),
    ),
    max_size=30,
)


@given(_malformed)
def test_finds_what_the_single_expression_scanner_found(chunks: list[str]) -> None:
    """Tags left open, quotes without a partner, comments: the same tokens as before."""
    text = "".join(chunks)
    assert found_urls(text) == reference_urls(text)


def test_a_tag_left_open_is_not_a_tag_but_later_ones_are() -> None:
    text = '<a "x <img src="in-quotes.png"> <b title=\'open <a href="after.md">'
    assert found_urls(text) == reference_urls(text)
    assert [(f.tag, f.value) for f in find_urls(text)] == [
        ("img", "in-quotes.png"), ("a", "after.md"),
    ]
    assert values("<a <b 'x' <img src=i.png>") == [("a", "src", "i.png")]


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        list(find_urls(text))
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize(
    "unit",
    [
        "a <b c ",  # many '<' that no '>' closes
        "<a ",  # ... and, at the end, a quote without its partner (below)
        "x<p title='y' <a \"z\" ",
    ],
)
def test_scanning_malformed_html_grows_linearly(unit: str) -> None:
    """Four times the text takes about four times as long, not sixteen (the scanner was
    quadratic: 72 kB of such HTML took 11.8 s).  Times under the floor count as the
    floor, so that a loaded machine's noise on milliseconds cannot fail the test."""
    floor = 0.1

    def text(size: int) -> str:
        return unit * (size // len(unit)) + '"' + ">"

    small, large = (max(_seconds(text(size)), floor) for size in (16_000, 64_000))
    assert large / small <= 8, (small, large)


def test_callback_sees_tag_and_attribute() -> None:
    seen: list[UrlAttribute] = []
    rewrite_urls('<source src="v.webm"><area href="m.md">', lambda f: seen.append(f) or None)
    assert [(f.tag, f.attribute) for f in seen] == [("source", "src"), ("area", "href")]


# -- raw HTML that names a file outside the repository (a real build) -------------


def _build(srcdir: Path) -> tuple[Path, str]:
    warning = StringIO()
    app = SphinxTestApp("html", srcdir=srcdir, status=StringIO(), warning=warning)
    try:
        app.build()
    finally:
        app.cleanup()
    return srcdir / "_build" / "html", warning.getvalue()


@pytest.mark.parametrize("suffix", [".rst", ".md"])
def test_raw_html_never_publishes_a_file_outside_the_repository(
    tmp_path: Path, suffix: str
) -> None:
    """``<img src="../../../../proc/self/environ">`` is not copied to ``_images``: a file
    outside the repository (as written, or through a link) is warned and left alone."""
    repo = tmp_path / "repo"
    srcdir = repo / "docs"
    srcdir.mkdir(parents=True)
    (repo / ".git").mkdir()  # the repository root
    (tmp_path / "secret.txt").write_text("TOKEN=s3cret\n")
    (srcdir / "linked.txt").symlink_to(tmp_path / "secret.txt")
    (repo / "assets").mkdir()
    (repo / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    environ = os.path.relpath("/proc/self/environ", srcdir).replace(os.sep, "/")
    attributes = [
        f'<img src="{environ}">',
        '<img src="../../secret.txt">',
        '<a href="../../secret.txt">a</a>',
        '<img src="linked.txt">',
        '<a href="linked.txt">b</a>',
        '<img src="../assets/logo.png">',  # in the repository: copied as before
    ]
    extensions = ["sphinx_relocate"] + (["myst_parser"] if suffix == ".md" else [])
    (srcdir / "conf.py").write_text(f"extensions = {extensions!r}\n")
    body = "\n".join(attributes)
    if suffix == ".rst":
        text = "Title\n=====\n\n.. raw:: html\n\n" + textwrap.indent(body, "   ") + "\n"
    else:
        text = "# Title\n\n<div>\n" + body + "\n</div>\n"
    (srcdir / f"index{suffix}").write_text(text)

    outdir, warnings = _build(srcdir)

    assert sorted(p.name for p in (outdir / "_images").iterdir()) == ["logo.png"]
    assert not (outdir / "_downloads").exists()
    assert not any("s3cret" in p.read_text("utf-8", "replace")
                   for p in outdir.rglob("*") if p.is_file())
    page = (outdir / "index.html").read_text("utf-8")
    for attribute in attributes[:-1]:  # left as written
        assert attribute in page
    assert '<img src="_images/logo.png">' in page
    assert f"raw html '{environ}' does not land: '{environ}' is outside the repository" in (
        warnings
    )
    assert warnings.count("raw html '../../secret.txt' does not land: '../../secret.txt' is "
                          "outside the repository") == 2
    assert warnings.count("raw html 'linked.txt' does not land: '../../secret.txt' is "
                          "outside the repository") == 2
    assert warnings.count("WARNING") == 5
