"""Rewrite ``href`` and ``src`` attributes in a fragment of raw HTML, and nothing else.

Raw HTML in Markdown (tables, ``<img width=...>``) is handed to the output as is, so
its links are invisible to Sphinx.  The resolver reads and rewrites them here.  This
is not an HTML parser: it finds start tags (skipping comments, ``<script>`` and
``<style>`` bodies) and their ``href``/``src`` attribute values, and splices new
values in place.  Every other byte - white space, quoting, attribute order, entity
spelling - is kept, so a rewrite of an unchanged value returns the input itself.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: the attributes whose values are URLs we resolve
URL_ATTRIBUTES = frozenset({"href", "src"})

_TOKEN = re.compile(
    r"""<!--.*?(?:-->|\Z)"""  # a comment (to its end, or to the end of the text)
    r"""|<(?P<tag>[A-Za-z][A-Za-z0-9:-]*)"""  # a start tag's name
    r"""(?P<attrs>(?:[^>"']|"[^"]*"|'[^']*')*)>""",  # its attributes, quotes kept whole
    re.DOTALL,
)
_ATTRIBUTE = re.compile(
    r"""(?P<name>[^\s"'>/=]+)"""
    r"""(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<uq>[^\s"'=<>`]+)))?"""
)
_RAW_TEXT = ("script", "style")


@dataclass(frozen=True)
class UrlAttribute:
    """One ``href``/``src`` value found in the HTML (``value`` has entities decoded)."""

    tag: str
    attribute: str
    value: str
    #: offsets of the value's text (inside its quotes) in the HTML
    start: int
    end: int
    quote: str


def find_urls(text: str) -> Iterator[UrlAttribute]:
    """Every ``href``/``src`` attribute of every start tag, in document order."""
    position = 0
    while True:
        match = _TOKEN.search(text, position)
        if match is None:
            return
        position = match.end()
        tag = match.group("tag")
        if tag is None:  # a comment
            continue
        offset = match.start("attrs")
        for attribute in _ATTRIBUTE.finditer(match.group("attrs")):
            name = attribute.group("name").lower()
            if name not in URL_ATTRIBUTES:
                continue
            for group, quote in (("dq", '"'), ("sq", "'"), ("uq", "")):
                if attribute.group(group) is not None:
                    yield UrlAttribute(
                        tag.lower(),
                        name,
                        html.unescape(attribute.group(group)),
                        offset + attribute.start(group),
                        offset + attribute.end(group),
                        quote,
                    )
                    break
        if tag.lower() in _RAW_TEXT:  # skip to the closing tag: its body is not HTML
            close = re.compile(rf"</{tag}\s*>", re.IGNORECASE).search(text, position)
            position = close.end() if close else len(text)


def _encode(value: str, quote: str) -> str:
    """Escape a new value for the quoting it is spliced into."""
    escaped = value.replace("&", "&amp;")
    if quote == '"':
        return escaped.replace('"', "&quot;")
    if quote == "'":
        return escaped.replace("'", "&#x27;")
    return escaped


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
        quote = found.quote
        encoded = _encode(new, quote)
        if not quote and (not encoded or re.search(r"""[\s"'=<>`]""", encoded)):
            encoded = '"' + _encode(new, '"') + '"'
        pieces.append(text[last : found.start])
        pieces.append(encoded)
        last = found.end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)
