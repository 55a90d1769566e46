"""The table's vocabulary: where an entry was written, what it moves to, what is wrong.

Named tuples for what a table makes one of per entry (:class:`Location`,
:class:`Target`, :class:`Entry`): a tuple is made several times faster than a frozen
dataclass.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import NamedTuple

#: Characters that make a key a glob pattern (``fnmatch``: ``*``, ``?``, ``[seq]``).
WILDCARDS = re.compile(r"[*?\[\]]")
#: what starts a URL (``https:``); a Windows drive (``C:``) looks the same
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: ``$source`` or ``${source}`` in a pattern's target, as ``string.Template`` reads it.
PLACEHOLDER = re.compile(r"\$(?:source(?![_A-Za-z0-9])|\{source\})")
#: Characters no key may hold (:func:`control_character`): C0 and C1 controls and DEL,
#: the Unicode line and paragraph separators, the bidirectional controls that make text
#: read other than it runs, and lone surrogates.  A key is written as it is into server
#: rules and inventory lines, where each of these ends a line or a field, and no page
#: name needs one.
CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def control_character(text: str, pattern: re.Pattern[str] = CONTROL) -> str | None:
    """``U+000A`` for the first ``pattern`` (:data:`CONTROL`) character of ``text``."""
    found = pattern.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def normalize_label(name: str) -> str:
    """A label as Sphinx's std domain names it: lowercase, white space collapsed.

    Docutils names a target ``.. _Install  Label:`` ``install label``
    (``fully_normalize_name``) and ``:ref:`` lowercases what it is given, so the table
    compares labels the same way.
    """
    return " ".join(name.lower().split())


class Location(NamedTuple):
    """Where an entry was written: a file and a 1-based line (0 when unknown).

    Named tuples, like :class:`Target` and :class:`Entry`: a table makes one of each per
    entry, and a tuple is made several times faster than a frozen dataclass."""

    file: str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a table; ``fatal`` ones stop a build.

    Subtype ``"note"`` is not a problem but something the reader should know (a key's
    ``.html`` suffix was dropped): it is logged, never warned, and never fails a check.
    """

    location: Location
    message: str
    fatal: bool = True
    #: a :class:`~sphinx_relocate.sphinx_ext.warnings.RelocateWarning` value for non-fatal ones
    subtype: str = "table"

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class Target(NamedTuple):
    """Where an old page, file or anchor now lives.

    Exactly one of ``path`` (a docname, or a source-relative file path) and ``url``
    is set.  ``anchor`` is a fragment without ``#``.
    """

    path: str = ""
    anchor: str = ""
    url: str = ""

    def __str__(self) -> str:
        if self.url:
            return self.url
        return f"{self.path}#{self.anchor}" if self.anchor else self.path


class Entry(NamedTuple):
    """One normalized line of the table, kept for messages and the digest."""

    section: str
    old: str
    new: Target
    location: Location
    #: ``[patterns]`` only: the pattern also replaces the documents it matches
    replace: bool = False
    #: the HTTP status of its server rules (``[pages]``, ``[prefixes]``, ``[patterns]``):
    #: 301, or 302 while a move is tentative
    status: int = 301


@dataclass(frozen=True)
class PatternValue:
    """A ``[patterns]`` value given in code, as a peer's wildcard entry converts to.

    ``peer`` names the extension the entry was written for; that extension replaced the
    documents it matched, so the check says when they stay pages here.
    """

    to: str
    replace: bool = False
    peer: str = ""


@dataclass(frozen=True)
class Pattern:
    """One ``[patterns]`` entry: old docnames matching ``glob`` move to ``to``.

    ``to`` is a target whose path, anchor or URL may hold ``$source`` (the matched
    docname, as sphinx-reredirects expands it).
    """

    glob: str
    to: Target
    location: Location
    replace: bool = False
    peer: str = ""
    status: int = 301
    regex: re.Pattern[str] = field(default=re.compile(""), compare=False, repr=False)

    def matches(self, docname: str) -> bool:
        return self.regex.fullmatch(docname) is not None

    def target(self, docname: str) -> Target:
        """The target for ``docname`` (which the caller knows matches)."""
        values = {"source": docname}
        return Target(
            path=string.Template(self.to.path).substitute(values),
            anchor=string.Template(self.to.anchor).substitute(values),
            url=string.Template(self.to.url).substitute(values),
        )


#: One entry as written, before normalization: ``(section, key, value, where)``.
Row = tuple[str, object, object, Location]
