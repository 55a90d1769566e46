"""The HTML ids docutils and MyST derive from a title or label, without importing either.

Sphinx turns a section title or a label into an id with ``docutils.nodes.make_id``, and
MyST slugs a Markdown heading (``myst_heading_anchors``); the rewriter and ``from-git``
read titles from source text and must derive the same ids, and the core may not import
docutils.  These are those functions, for the docutils versions Sphinx 7.4 to 9.2 use
(tests/test_layout.py compares ``make_id`` on arbitrary text, tests/test_git.py the
slugs with myst-parser's).
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

_NON_ID_CHARS = re.compile("[^a-z0-9]+")
_NON_ID_AT_ENDS = re.compile("^[-0-9]+|-+$")
#: letters NFKD does not decompose to ASCII, and what docutils writes for them
_NON_ID_TRANSLATE = {
    0x00F8: "o", 0x0111: "d", 0x0127: "h", 0x0131: "i", 0x0142: "l", 0x0167: "t",
    0x0180: "b", 0x0183: "b", 0x0188: "c", 0x018C: "d", 0x0192: "f", 0x0199: "k",
    0x019A: "l", 0x019E: "n", 0x01A5: "p", 0x01AB: "t", 0x01AD: "t", 0x01B4: "y",
    0x01B6: "z", 0x01E5: "g", 0x0225: "z", 0x0234: "l", 0x0235: "n", 0x0236: "t",
    0x0237: "j", 0x023C: "c", 0x023F: "s", 0x0240: "z", 0x0247: "e", 0x0249: "j",
    0x024B: "q", 0x024D: "r", 0x024F: "y",
}  # fmt: skip
_NON_ID_TRANSLATE_DIGRAPHS = {0x00DF: "sz", 0x00E6: "ae", 0x0153: "oe", 0x0238: "db", 0x0239: "qp"}


def make_id(text: str) -> str:
    """``text`` as an id matching ``[a-z](-?[a-z0-9]+)*``, as ``docutils.nodes.make_id``
    makes it: lower case, letters folded to ASCII, other runs of characters one hyphen."""
    folded = text.lower().translate(_NON_ID_TRANSLATE_DIGRAPHS).translate(_NON_ID_TRANSLATE)
    ascii_only = unicodedata.normalize("NFKD", folded).encode("ascii", "ignore").decode("ascii")
    return _NON_ID_AT_ENDS.sub("", _NON_ID_CHARS.sub("-", " ".join(ascii_only.split())))


#: the inline Markdown of a heading, each by what is left of it in the heading's text:
#: a code span's code, a link's text, an autolink's URL, an escaped or entity character;
#: nothing of an image, an HTML tag or an emphasis mark
#: (linear in the heading's length: a backtick run is tried whole, and a link's text
#: holds no bracket nor its target a parenthesis, so thousands of backticks, brackets or
#: parentheses in a heading cost no more than their count)
_INLINE = re.compile(
    r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)"
    r"|(?P<image>!\[[^\][]*\]\([^()]*\))"
    r"|\[(?P<text>[^\][]*)\]\([^()]*\)"
    r"|<(?P<url>[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>"
    r"|(?P<tag></?[A-Za-z][^<>]*>)"
    r"|\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|\*+|(?<!\w)_+|_+(?!\w)"
)
#: what MyST's GitHub-style slug drops (``myst_parser.slugs.github_slugify``)
_SLUG_CLEAN = re.compile(r"[^\w\u4e00-\u9fff\- ]")
#: markdown-it's typographic replacements (MyST's ``replacements``), in its order
_SYMBOLS = re.compile(r"\((c|tm|r)\)", re.IGNORECASE)
_SYMBOL = {"c": "\u00a9", "r": "\u00ae", "tm": "\u2122"}
_REPLACEMENTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), replacement) for pattern, replacement in (
        (r"\+-", "\u00b1"), (r"\.{2,}", "\u2026"), (r"([?!])\u2026", r"\1.."),
        (r"([?!]){4,}", r"\1\1\1"), (r",{2,}", ","),
        (r"(^|[^-])---(?=[^-]|$)", "\\1\u2014"), (r"(^|\s)--(?=\s|$)", "\\1\u2013"),
        (r"(^|[^-\s])--(?=[^-\s]|$)", "\\1\u2013"),
    )
)
#: an apostrophe inside a word, which MyST's ``smartquotes`` makes ``’``
_APOSTROPHE = re.compile(r"(?<=\w)'(?=\w)")


@dataclass(frozen=True)
class Headings:
    """How MyST makes a project's Markdown headings into ids, by the conf.py values that
    change them: the build reads ids off its doctrees, source readers (``from-git``,
    ``rewrite``, ``relocate_since``) derive them from the text."""

    #: ``myst_heading_anchors``: headings this deep or less get MyST's slug too
    anchors: int = 0
    #: MyST's ``smartquotes`` extension: ``doesn't`` is ``doesn’t``, which ids drop
    smartquotes: bool = False
    #: MyST's ``replacements`` extension: ``--`` is ``–``, ``...`` is ``…``
    replacements: bool = False

    @classmethod
    def of(cls, heading_anchors: object, extensions: object) -> Headings:
        """From ``myst_heading_anchors`` and ``myst_enable_extensions`` as conf.py has
        them (anything else than a number or a list of names counts as unset)."""
        listed = extensions if isinstance(extensions, (list, tuple, set, frozenset)) else ()
        names = {name for name in listed if isinstance(name, str)}
        anchors = heading_anchors if isinstance(heading_anchors, int) else 0
        return cls(anchors, "smartquotes" in names, "replacements" in names)

    def text(self, title: str) -> str:
        """A heading's text as MyST slugs it and Sphinx ids it: the contents of its text
        and code tokens, typeset as the extensions say, so an ``<img>`` or an image in a
        heading adds nothing (and the space before it stays: MyST does not strip)."""
        parts: list[str] = []
        end = 0
        for match in _INLINE.finditer(title):
            parts += (self._typeset(title[end : match.start()]), self._inline(match))
            end = match.end()
        parts.append(self._typeset(title[end:]))
        return "".join(parts)

    def slug(self, title: str, level: int) -> str:
        """MyST's slug of a heading at ``level`` (``""`` below ``anchors``)."""
        if level > self.anchors:
            return ""
        return _SLUG_CLEAN.sub("", self.text(title).lower().replace(" ", "-"))

    def docutils_id(self, title: str) -> str:
        """The id docutils gives a Markdown heading."""
        return make_id(self.text(title))

    def _typeset(self, text: str) -> str:
        if self.replacements:
            text = _SYMBOLS.sub(lambda match: _SYMBOL[match.group(1).lower()], text)
            for pattern, replacement in _REPLACEMENTS:
                text = pattern.sub(replacement, text)
        if self.smartquotes:
            text = _APOSTROPHE.sub("\u2019", text)
        return text

    def _inline(self, match: re.Match[str]) -> str:
        code = match.group("code")
        if code is not None:  # CommonMark strips one space from both ends of a code span
            spaced = len(code) > 2 and code[0] == code[-1] == " " and code.strip(" ")
            return code[1:-1] if spaced else code
        if match.group("text") is not None:
            return self.text(match.group("text"))
        if match.group("url") is not None:
            return match.group("url")
        if match.group("escaped") is not None:
            return match.group("escaped")
        if match.group("entity") is not None:
            return html.unescape(match.group("entity"))
        return ""  # an image, an HTML tag, emphasis marks


#: headings of a project that sets none of :class:`Headings`' values: docutils' ids only
PLAIN_HEADINGS = Headings()
