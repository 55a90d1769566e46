"""The HTML id docutils derives from a title or label, without importing docutils.

Sphinx turns a section title or a label into an id with ``docutils.nodes.make_id``;
the rewriter and ``from-git`` read titles from source text and must derive the same ids,
and the core may not import docutils.  This is that function, for the docutils versions
Sphinx 7.4 to 9.2 use (tests/test_layout.py compares the two on arbitrary text).
"""

from __future__ import annotations

import re
import unicodedata

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
