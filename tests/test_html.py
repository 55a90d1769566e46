"""The raw-HTML rewriter changes href/src values and preserves every other byte."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from sphinx_relocate._html import UrlAttribute, find_urls, rewrite_urls


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


def test_callback_sees_tag_and_attribute() -> None:
    seen: list[UrlAttribute] = []
    rewrite_urls('<source src="v.webm"><area href="m.md">', lambda f: seen.append(f) or None)
    assert [(f.tag, f.attribute) for f in seen] == [("source", "src"), ("area", "href")]
