"""Sphinx inventories (``objects.inv``): read one, and list old names in one.

How it works:

* :func:`parse` reads version 2 of the format, the only one Sphinx has written since 1.0,
  without Sphinx: four header lines, then zlib-compressed lines ``name domain:role
  priority location display``, matched with the pattern Sphinx's own reader uses.
* :func:`with_aliases` adds one ``std:doc`` entry for every old page name that the table
  moves to a page of the build (:func:`page_moves`, from the old names that get redirect
  stubs, :func:`~sphinx_relocate.core.stubs.old_page_landings`).  The entry copies the
  inventory's own entry for the new page, its location (plus the target's ``#anchor``) and
  its title, so ``:doc:`demo:old/name``` in another project lands on the new page, not on
  a stub.  Likewise one ``std:label`` entry for every ``[labels]`` key that lands on a
  label of the build (:func:`label_moves`), at the new label's section.
* ``std:doc`` and ``std:label`` entries that name nothing of the build are dropped first:
  Sphinx 7.4 keeps the last build's file when a build reads nothing, so the result is the
  same whatever came before, and an alias leaves with its table entry.
* A target outside the site (a URL) gets no entry: intersphinx joins every location to
  the inventory's base URL, so an entry cannot point at another site.

The build's side (after an HTML build has written ``objects.inv``) is
:mod:`sphinx_relocate.sphinx_ext.inventory`.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from sphinx_relocate.core.ids import make_id
from sphinx_relocate.core.paths import quote_fragment

if TYPE_CHECKING:
    from sphinx_relocate.core.table import RelocationTable, Target

#: The file every HTML builder writes into its output folder.
FILENAME = "objects.inv"
_HEADER = b"# Sphinx inventory version "
#: One entry line, as ``sphinx.util.inventory`` matches it (names may hold spaces).
_LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")


class InventoryError(Exception):
    """An inventory that cannot be read; the message is one line."""


class InventoryEntry(NamedTuple):
    """One line of an inventory."""

    name: str
    #: ``domain:role``, such as ``std:doc`` or ``std:label``
    role: str
    priority: str
    #: as written: relative to the inventory's URL, ``$`` at the end standing for the name
    location: str
    #: ``-`` when it is the name
    display: str

    @property
    def uri(self) -> str:
        """The location relative to the inventory's URL, ``$`` expanded."""
        if self.location.endswith("$"):
            return self.location[:-1] + self.name
        return self.location

    @property
    def title(self) -> str:
        return self.name if self.display == "-" else self.display

    def line(self) -> str:
        return f"{self.name} {self.role} {self.priority} {self.location} {self.display}\n"


@dataclass(frozen=True)
class Inventory:
    """A parsed ``objects.inv``: its header as written, its lines, and their entries."""

    project: str
    version: str
    header: bytes
    lines: tuple[str, ...]
    #: ``None`` for a line that is not an entry (kept as it is)
    entries: tuple[InventoryEntry | None, ...]

    def of_role(self, role: str) -> dict[str, InventoryEntry]:
        """The entries of one role by name (the first one of a name, as Sphinx reads it)."""
        found: dict[str, InventoryEntry] = {}
        for entry in self.entries:
            if entry is not None and entry.role == role:
                found.setdefault(entry.name, entry)
        return found

    def dump(self, lines: Iterable[str]) -> bytes:
        """This inventory's header with ``lines`` as its body."""
        # level 6, not Sphinx's 9: a third of the time for a tenth more bytes (10,000
        # aliases: 4 ms and 33 kB against 12 ms and 28 kB)
        return self.header + zlib.compress("".join(lines).encode("utf-8"), 6)


def parse(data: bytes) -> Inventory:
    """Read a version 2 inventory; anything else is an :class:`InventoryError`."""
    parts = data.split(b"\n", 4)
    if len(parts) < 5 or not parts[0].startswith(_HEADER):
        raise InventoryError("not a Sphinx inventory (objects.inv)")
    version = parts[0][len(_HEADER) :].strip()
    if version != b"2":
        raise InventoryError(
            f"a version {version.decode('ascii', 'replace')} inventory: only version 2 "
            "(written by Sphinx 1.0 and newer) is read"
        )
    if b"zlib" not in parts[3]:
        raise InventoryError("the inventory's header does not say it is compressed with zlib")
    try:
        text = zlib.decompress(parts[4]).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as err:
        raise InventoryError(f"the inventory's compressed part is damaged: {err}") from None
    lines = tuple(text.splitlines(keepends=True))
    return Inventory(
        project=parts[1].rstrip()[11:].decode("utf-8", "replace"),
        version=parts[2].rstrip()[11:].decode("utf-8", "replace"),
        header=b"\n".join(parts[:4]) + b"\n",
        lines=lines,
        entries=tuple(_entry(line) for line in lines),
    )


def _entry(line: str) -> InventoryEntry | None:
    match = _LINE.match(line.rstrip())
    if match is None or ":" not in match.group(2):
        return None
    return InventoryEntry(*match.groups())


def aliases(
    inventory: Inventory, role: str, moves: Mapping[str, tuple[str, str]]
) -> list[InventoryEntry]:
    """An entry of ``role`` for each old name → ``(new name, anchor)``, sorted by name.

    It lands where the new name's entry does (with ``#anchor`` when one is given,
    percent-encoded) and shows its title.  An old name the inventory lists already, a new
    name it lacks, and a name that would not read back as one entry (:func:`listable`)
    get none.  Labels use this too, with ``std:label`` and the new label.
    """
    known = inventory.of_role(role)
    # thousands of old names often land on one page: its entry is looked up once
    landings: dict[tuple[str, str], tuple[str, str, str] | None] = {}
    found: list[InventoryEntry] = []
    for old in sorted(moves):  # the names alone: sorting their pairs costs 4× as much
        if old in known:
            continue
        key = moves[old]
        if key in landings:
            landing = landings[key]
        else:
            landing = landings[key] = _landing(known.get(key[0]), key[1])
        if landing is None:
            continue
        priority, uri, title = landing
        entry = InventoryEntry(old, role, priority, uri, "-" if title == old else title)
        if _reads_back(entry):
            found.append(entry)
    return found


def listable(name: str, role: str = "std:doc") -> bool:
    """Whether an entry named ``name`` reads back as one entry of that name.

    Sphinx's reader splits a line at the first place where the rest looks like
    ``role priority location display``, so a name such as ``install std:label -1
    https:/evil.example/ Installation`` would be read as another entry; a line break
    would end it.  Such names get no alias.
    """
    if _WHITESPACE.search(name) is None:  # as _reads_back, without making the entry
        return _rest_reads_back((role, "-1", "x.html", "-"))
    return _line_reads_back(InventoryEntry(name, role, "-1", "x.html", "-"))


def _reads_back(entry: InventoryEntry) -> bool:
    # A name without whitespace ends where its line's first whitespace is, so the
    # reader's lazy first group stops there or the line is not this entry: whether the
    # rest reads back does not depend on the name, and is worked out once for each rest
    # (thousands of aliases share their page's role, priority, location and title).
    if _WHITESPACE.search(entry.name) is None:
        return _rest_reads_back(entry[1:])
    return _line_reads_back(entry)


@functools.lru_cache(maxsize=256)
def _rest_reads_back(rest: tuple[str, str, str, str]) -> bool:
    """Whether an entry ``x`` + ``rest`` (role, priority, location, display) reads back."""
    return _line_reads_back(InventoryEntry("x", *rest))


def _line_reads_back(entry: InventoryEntry) -> bool:
    line = entry.line()
    return not _breaks_line(line[:-1]) and _entry(line) == entry


def _landing(target: InventoryEntry | None, anchor: str) -> tuple[str, str, str] | None:
    """An alias's priority, location and title, from the new name's entry."""
    if target is None:
        return None
    uri = target.uri
    if anchor:  # singlehtml: index.html#document-new becomes index.html#anchor
        uri = uri.partition("#")[0] + "#" + quote_fragment(anchor)
    if uri.endswith("$"):  # a reader would put the name in its place
        uri = uri[:-1] + "%24"
    return target.priority, uri, target.title


#: what ``str.splitlines`` (and so an inventory reader) takes for the end of a line
_LINE_BREAK = re.compile("[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
#: what the reader's ``\s`` matches (every line break above too)
_WHITESPACE = re.compile(r"\s")


def _breaks_line(name: str) -> bool:
    return _LINE_BREAK.search(name) is not None


def with_aliases(
    inventory: Inventory,
    roles: Mapping[str, tuple[Collection[str], Mapping[str, tuple[str, str]]]],
) -> list[str]:
    """The inventory's lines, for each ``role → (names, moves)``: without the role's
    entries whose name is not in ``names`` (what the build has now), plus an alias for
    each move (:func:`aliases`)."""
    kept = [
        (line, entry)
        for line, entry in zip(inventory.lines, inventory.entries, strict=True)
        if entry is None or entry.role not in roles or entry.name in roles[entry.role][0]
    ]
    lines = [line for line, _ in kept]
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    cleaned = replace(inventory, lines=tuple(lines), entries=tuple(e for _, e in kept))
    for role, (_, moves) in roles.items():
        lines += [entry.line() for entry in aliases(cleaned, role, moves)]
    return lines


def page_moves(
    landings: Mapping[str, Target], documents: set[str]
) -> dict[str, tuple[str, str]]:
    """Old name → ``(new page, anchor)`` for each old page that lands on a page
    (``landings``: :func:`~sphinx_relocate.core.stubs.old_page_landings`)."""
    return {
        old: (target.path, target.anchor)
        for old, target in landings.items()
        # a document that a pattern replaces keeps Sphinx's own entry
        if old not in documents and not target.url
    }


def label_moves(table: RelocationTable, labels: Collection[str]) -> dict[str, tuple[str, str]]:
    """Old label → ``(new label, "")`` for each ``[labels]`` key that lands on a label."""
    moves: dict[str, tuple[str, str]] = {}
    for old in table.labels:
        new = table.locate_label(old, labels.__contains__)
        if new is not None and new in labels:
            moves[old] = (new, "")
    return moves


def section_label_moves(
    pages: Mapping[str, tuple[str, str]], labels: Collection[str],
    sections: Mapping[tuple[str, str], Target] | None = None,
) -> dict[str, tuple[str, str]]:
    """Old label → ``(new label, "")`` for each section label of a moved page (``pages``:
    :func:`page_moves`), when ``sphinx.ext.autosectionlabel`` names sections by their
    page (``guides/accounts:permissions``): the label moved with its page.  And for each
    section an ``[anchors]`` entry (``sections``) moved to another page with its id, so
    its title (tox's ``user_guide:logging``, now ``how-to/usage:logging``)."""
    by_page: dict[str, list[str]] = {}
    for label in labels:
        page, colon, _ = label.partition(":")
        if colon:
            by_page.setdefault(page, []).append(label)
    moves: dict[str, tuple[str, str]] = {}
    for (old, old_id), target in (sections or {}).items():
        if target.url or target.path == old or target.anchor != old_id:
            continue
        for label in by_page.get(target.path, ()):
            alias = old + label[len(target.path) :]
            if make_id(label[len(target.path) + 1 :]) == old_id and alias not in labels:
                moves[alias] = (label, "")
    for old, (new, anchor) in pages.items():
        for label in () if anchor else by_page.get(new, ()):
            alias = old + label[len(new) :]
            if alias not in labels:
                moves[alias] = (label, "")
    return moves

