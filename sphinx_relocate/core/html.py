"""Rewrite ``href`` and ``src`` attributes in a fragment of raw HTML, and nothing else.

Raw HTML in Markdown (tables, ``<img width=...>``) is handed to the output as is, so
its links are invisible to Sphinx.  The resolver reads and rewrites them here.  This
is not an HTML parser: it finds start tags (skipping comments, ``<script>`` and
``<style>`` bodies) and their ``href``/``src`` attribute values, and splices new
values in place.  Every other byte - white space, quoting, attribute order, entity
spelling - is kept, so a rewrite of an unchanged value returns the input itself.  A
``<`` that no ``>`` closes is text, as it is for the browser, and costs no more than
any other text: the scan is linear in the fragment's length, however malformed.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

#: the attributes whose values are URLs we resolve
URL_ATTRIBUTES = frozenset({"href", "src"})

#: a comment or a start tag's name; where the tag ends is found by :class:`_TagEnds`
_START = re.compile(r"<(?:(?P<comment>!--)|(?P<tag>[A-Za-z][A-Za-z0-9:-]*))")
#: a start tag's attributes, quotes kept whole; the tag is closed when ``>`` follows
_ATTRIBUTES = re.compile(r"""(?:[^>"']|"[^"]*"|'[^']*')*""")
#: what ends a run of attribute text outside quotes
_SPECIAL = re.compile(r"""[>"']""")
#: an attribute, or a quoted run where no attribute's value is (``<b";="<a href=u>``):
#: skipped whole, as the tag's end is found, so that quoting a value cannot pair a quote
#: before it with its own and hide it
_ATTRIBUTE = re.compile(
    r"""(?P<name>[^\s"'>/=]+)"""
    r"""(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<uq>[^\s"'=<>`]+)))?"""
    r"""|"[^"]*"|'[^']*'"""
)
_RAW_TEXT = ("script", "style")
#: what every name of :data:`URL_ATTRIBUTES` holds, in any case
_URL_NAME = re.compile("href|src", re.IGNORECASE)


class UrlAttribute(NamedTuple):
    """One ``href``/``src`` value found in the HTML (``value`` has entities decoded).

    A named tuple: one is made for each URL of a page's raw HTML when the page is read
    and again when it is written."""

    tag: str
    attribute: str
    value: str
    #: offsets of the value's text (inside its quotes) in the HTML
    start: int
    end: int
    quote: str


class _TagEnds:
    """Where a start tag whose name ends at a position is closed by ``>``, in linear time.

    A ``<`` that no ``>`` closes made the regular expression try every later ``<`` to the
    end of the text again: quadratic.  The tag's end is a walk over the ``>``, ``"`` and
    ``'`` outside quotes (a quote jumps to its partner), and two walks that meet at the
    same such position go on alike; so each position a walk finds to lead nowhere is
    kept, and a later walk stops there.  Each quote is then jumped from at most twice
    (once on a walk that fails, once on the one that succeeds), and a quote's partner is
    the next one of its kind, so the jumps add up to the text's length.  Used only once
    a tag is left open: well-formed HTML takes the one regular-expression match.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.specials = [m.start() for m in _SPECIAL.finditer(text)]
        #: positions (of a quote met outside quotes) from which no ``>`` is reached
        self.dead: set[int] = set()

    def close(self, position: int) -> int | None:
        """The offset of the ``>`` that closes a tag whose attributes start here."""
        text, specials, dead = self.text, self.specials, self.dead
        walked: list[int] = []
        while True:
            index = bisect.bisect_left(specials, position)
            if index == len(specials):
                break
            special = specials[index]
            if special in dead:
                break
            char = text[special]
            if char == ">":
                return special
            walked.append(special)
            partner = text.find(char, special + 1)
            if partner < 0:
                break
            position = partner + 1
        dead.update(walked)
        return None


#: an ``id`` or ``name`` attribute, with its value in one of three groups
_ID_ATTRIBUTE = re.compile(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>'"]+))""", re.I)


def element_ids(text: str) -> list[str]:
    """The ``id`` and ``name`` values of an HTML fragment, in order: the anchors a link
    into raw HTML may name."""
    return [
        next(group for group in match.groups() if group is not None)
        for match in _ID_ATTRIBUTE.finditer(text)
    ]


def find_urls(text: str) -> Iterator[UrlAttribute]:
    """Every ``href``/``src`` attribute of every start tag, in document order."""
    position = 0
    ends: _TagEnds | None = None  # made once a tag is left open
    while True:
        match = _START.search(text, position)
        if match is None:
            return
        if match.group("comment"):  # to its end, or to the end of the text
            close = text.find("-->", match.end())
            position = close + 3 if close >= 0 else len(text)
            continue
        tag = match.group("tag")
        offset = match.end()
        if ends is None:
            attributes = _ATTRIBUTES.match(text, offset)
            assert attributes is not None  # it matches the empty string
            end: int | None = attributes.end()
            if not text.startswith(">", attributes.end()):
                ends = _TagEnds(text)
                end = ends.close(offset)
        else:
            end = ends.close(offset)
        if end is None:  # not a tag: the next ``<`` may start one
            position = match.start() + 1
            continue
        position = end + 1
        tag = tag.lower()
        # most tags (a table's rows and cells) have no URL: one search says so
        if _URL_NAME.search(text, offset, end) is not None:
            for attribute in _ATTRIBUTE.finditer(text, offset, end):
                name = attribute.group("name")
                if name is None or name.lower() not in URL_ATTRIBUTES:
                    continue
                for group, quote in (("dq", '"'), ("sq", "'"), ("uq", "")):
                    value = attribute.group(group)
                    if value is not None:
                        yield UrlAttribute(
                            tag,
                            name.lower(),
                            html.unescape(value) if "&" in value else value,
                            attribute.start(group),
                            attribute.end(group),
                            quote,
                        )
                        break
        if tag in _RAW_TEXT:  # skip to the closing tag: its body is not HTML
            raw_end = re.compile(rf"</{tag}\s*>", re.IGNORECASE).search(text, position)
            position = raw_end.end() if raw_end else len(text)


def encode_attribute(value: str, *, ampersands: bool = True) -> str:
    """Escape a new value so that nothing in it can end or open anything around it: a
    quote or ``>`` in it would pair with, or close, a tag left open before it
    (``<b'<img src='x'>``), which the old value left alone.  ``ampersands=False``: the
    value holds text as the source wrote it (``?a=1&amp;b=2`` carried over), whose
    character references stay as they are."""
    if ampersands:
        value = value.replace("&", "&amp;")
    return (
        value.replace('"', "&quot;").replace("'", "&#x27;")
        .replace("<", "&lt;").replace(">", "&gt;")
    )


def attribute_value(new: str, quote: str, *, ampersands: bool = True) -> str:
    """``new`` as the text that replaces an attribute's value between its quotes
    (``quote``; ``""``: it had none, and gets double quotes when it needs them)."""
    encoded = encode_attribute(new, ampersands=ampersands)
    if not quote and (not encoded or re.search(r"""[\s=`]""", encoded)):
        return f'"{encoded}"'
    return encoded


def rewrite_urls(text: str, rewrite: Callable[[UrlAttribute], str | None]) -> str:
    """Replace each ``href``/``src`` value for which ``rewrite`` returns a new value.

    ``rewrite`` receives the decoded value and returns the new (unescaped) value, or
    ``None`` (or the same value) to leave the attribute's bytes untouched.  An unquoted
    value that needs quoting after the change gets double quotes.
    """
    pieces: list[str] = []
    last = 0
    for found in find_urls(text):
        new = rewrite(found)
        if new is None or new == found.value:
            continue
        encoded = attribute_value(new, found.quote)
        pieces.append(text[last : found.start])
        pieces.append(encoded)
        last = found.end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)
