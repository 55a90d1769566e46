"""The table's sections, as a registry: what each moves, how its entries are normalized
and checked, and the line the docs give it.

A new section is one :class:`Section` in :data:`SECTIONS`: its key and value
normalization (a function from the written row to an :class:`Entry`, or ``None`` after
reporting why not) and its check against the project (:mod:`.checks`).  How the table
indexes and walks the entries of a section is :class:`~.lookup.RelocationTable`'s.
"""

from __future__ import annotations

import difflib
import enum
import fnmatch
import json
import re
import string
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sphinx_relocate.core.paths import longest_first, strip_source_suffix
from sphinx_relocate.core.table.lookup import RelocationTable
from sphinx_relocate.core.table.model import (
    CONTROL,
    SCHEME,
    WILDCARDS,
    Entry,
    Location,
    PatternValue,
    Problem,
    Target,
    control_character,
    normalize_label,
)

_UNSAFE_SCHEMES = ("javascript:", "data:", "vbscript:", "file:")
#: a Windows drive (``C:/``), which :data:`SCHEME` would take for a URL scheme
_DRIVE = re.compile(r"[A-Za-z]:[/\\]")
#: a path :meth:`Normalizer.check_path` returns as it is: relative, forward slashes, no
#: empty, ``.`` or ``..`` segment (the shape of nearly every entry)
CLEAN_PATH = re.compile(r"(?![A-Za-z]:)(?:(?!\.\.?(?:/|$))[^/\\]+/)*(?!\.\.?$)[^/\\]+")
#: a page name :func:`_plain_page` keeps as it is written: a :data:`CLEAN_PATH` with no
#: ``:`` (URL, drive), ``#``, wildcard, white space or control character
_NAME_CHAR = r"[^/\\:#*?\[\]\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
PLAIN_PAGE = re.compile(rf"(?:(?!\.\.?(?:/|$)){_NAME_CHAR}+/)*(?!\.\.?$){_NAME_CHAR}+")
#: Characters no value may hold: the controls (a value is percent-encoded wherever it is
#: written, so a line separator in an anchor is only odd, not harmful)
_VALUE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class Chain(enum.Enum):
    """The names a chain of a section's entries walks through, for the cycle check."""

    #: none: a pattern takes one step
    NONE = ""
    #: pages, moved one by one or with their folder: one walk for both sections
    PAGES = "pages"
    FILES = "files"
    LABELS = "labels"
    #: ``page#id`` to ``page#id``
    ANCHORS = "anchors"


@dataclass(frozen=True)
class Section:
    """One section of the table."""

    name: str
    #: what an entry of it moves, as docs/table.md introduces the section
    doc: str
    #: the written key and value (free of control characters) as an entry, or ``None``
    #: after reporting why not
    normalize: Callable[[Normalizer, object, object, Location, str], Entry | None]
    #: the entry of a row in the common shape, as :attr:`normalize` would make it, without
    #: its checks; ``None`` when the row needs them
    plain: Callable[[Normalizer, object, object, Location], Entry | None] | None = None
    #: what :func:`~.checks.check_against_project` checks of one entry; ``None`` for
    #: a section checked as a whole (:func:`~.checks.check_labels`, patterns)
    check: Callable[[ProjectCheck, Entry], None] | None = None
    #: the names a chain of its entries walks, for the cycle check
    chain: Chain = Chain.NONE
    #: whether its old names are files on disk (pages and files): names that differ only
    #: by letter case collide there, and an old name still on disk shadows its entry
    on_disk: bool = False


class Normalizer:
    """Normalizes rows into entries, collecting every problem on the way."""

    def __init__(self, suffixes: tuple[str, ...], problems: list[Problem]) -> None:
        self.suffixes = suffixes
        #: the suffixes as ``str.endswith`` takes them, longest first
        self.ordered_suffixes = longest_first(suffixes)
        self.problems = problems
        #: glob → (peer, compiled pattern), for the ``[patterns]`` entries
        self.globs: dict[str, tuple[str, re.Pattern[str]]] = {}

    def error(self, location: Location, message: str) -> None:
        self.problems.append(Problem(location, message))

    def note(self, location: Location, message: str) -> None:
        self.problems.append(Problem(location, message, fatal=False, subtype="note"))

    def entry(
        self, section: Section, key: object, value: object, location: Location
    ) -> Entry | None:
        """The entry of one written row of ``section``, or ``None`` (and its problem)."""
        label = f"[{section.name}] {key!r}"
        for what, text in (("key", key), ("value", value)):
            if isinstance(value, (dict, PatternValue)) and what == "value":
                text = value.get("to") if isinstance(value, dict) else value.to
            pattern = CONTROL if what == "key" else _VALUE_CONTROL
            char = control_character(text, pattern) if isinstance(text, str) else None
            if char is not None:
                self.error(location, f"{label}: the {what} holds the control character "
                           f"{char}; names and targets are one line of visible text")
                return None
        return section.normalize(self, key, value, location, label)

    def check_path(self, text: str, location: Location, label: str) -> str | None:
        """``text`` as a relative path with forward slashes and no empty, ``.`` or ``..``
        segment; ``None`` (reported) when it cannot be one."""
        if CLEAN_PATH.fullmatch(text):
            return text
        if "\\" in text:  # refused, not guessed: on POSIX a backslash is part of a name
            fixed = json.dumps(text.replace("\\", "/"), ensure_ascii=False)
            self.error(location, f"{label}: use forward slashes: {fixed}")
            return None
        if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
            self.error(location, f"{label}: paths are relative to the source folder, not absolute")
            return None
        parts = [p for p in text.split("/") if p not in ("", ".")]
        if ".." in parts:
            self.error(location, f"{label}: '..' segments are not allowed")
            return None
        if not parts:
            self.error(location, f"{label}: empty path")
            return None
        return "/".join(parts)

    def page(self, text: str, location: Location, label: str) -> str | None:
        """The docname a written page path names (its source suffix dropped)."""
        path = self.check_path(text, location, label)
        return None if path is None else strip_source_suffix(path, self.suffixes)[0]

    def page_key(self, key: str, location: Location, label: str) -> str | None:
        """A key that names a page; ``old.html`` means the page ``old``, never ``old.html.html``."""
        docname = self.page(key, location, label)
        if docname and docname.endswith(".html") and docname.rpartition("/")[2] != ".html":
            docname = docname[: -len(".html")]
            self.note(location, f"{label}: the '.html' suffix was dropped: the key names the "
                      f"page {docname!r}")
        return docname

    def url(self, value: str, location: Location, label: str) -> Target | None:
        """``value`` as a URL target when it is one (or a refused one: ``None``, reported);
        ``Target()`` when it is a path."""
        if ":" in value and value.strip().lower().startswith(_UNSAFE_SCHEMES):
            self.error(location, f"{label}: unsafe target {value!r}")
            return None
        if ":" in value and SCHEME.match(value) and not _DRIVE.match(value):
            if not re.match(r"^https?://[^/\s]+", value):
                self.error(location, f"{label}: external targets must be http(s) URLs")
                return None
            if any(c.isspace() for c in value):
                self.error(location, f"{label}: URL contains white space")
                return None
            return Target(url=value)
        return Target()

    def page_target(self, value: str, location: Location, label: str) -> Target | None:
        """A page, ``page#anchor`` or URL target (``[pages]``, ``[patterns]``)."""
        target = self.url(value, location, label)
        if target is None or target.url:
            return target
        if value.endswith("/"):
            self.error(location, f"{label}: a page must move to a page, not a folder")
            return None
        path_text, _, anchor = value.partition("#")
        path = self.check_path(path_text, location, label)
        return None if path is None else Target(strip_source_suffix(path, self.suffixes)[0], anchor)


# -- the sections' normalizations ---------------------------------------------------


def _plain_page(n: Normalizer, key: object, value: object, location: Location) -> Entry | None:
    """A ``[pages]`` entry of plain page names (nearly every one), as :func:`_page` keeps
    it, less a source suffix.  Kept for its figure: :func:`~.load.load_table` of the
    10,000-entry table of the benchmarks took 50 ms with it and 84 ms with every row
    through the checks (in-process, CPU, median of 9 runs, three rounds), 34 ms more: 11 %
    of the whole step's 0.3 s of extra build time, where the bar for a fast path is 5 %."""
    plain, ordered = PLAIN_PAGE.fullmatch, n.ordered_suffixes
    if type(key) is not str or type(value) is not str or not plain(key) or not plain(value):
        return None
    # most names have no suffix: one call each to see it
    docname = strip_source_suffix(key, ordered)[0] if key.endswith(ordered) else key
    path = strip_source_suffix(value, ordered)[0] if value.endswith(ordered) else value
    if docname == path or docname.endswith(".html"):
        return None
    return Entry("pages", docname, Target(path), location)


def _strings(n: Normalizer, key: object, value: object, location: Location, label: str) -> bool:
    """Whether key and value are non-empty strings; else one problem says which is not."""
    if not isinstance(key, str) or not isinstance(value, str):
        n.error(location, f"{label}: keys and values must be strings")
        return False
    if not key.strip() or not value.strip():
        n.error(location, f"{label}: empty {'key' if not key.strip() else 'value'}")
        return False
    return True


#: the HTTP statuses an entry's server rules may answer with (``status = 302``)
STATUSES = (301, 302)


def _status(
    n: Normalizer, value: dict[object, object], location: Location, label: str
) -> int | None:
    """The ``status`` of an entry's table (301 when left out); ``None`` (reported) when
    it is not one of :data:`STATUSES`."""
    status = value.get("status", 301)
    if not isinstance(status, int) or isinstance(status, bool) or status not in STATUSES:
        n.error(location, f"{label}: 'status' must be 301 (moved for good, the default) or "
                "302 (moved for now)")
        return None
    return status


def _target_table(
    n: Normalizer, value: object, location: Location, label: str
) -> tuple[object, int] | None:
    """A ``[pages]`` or ``[prefixes]`` value and its status: a string is itself with 301,
    ``{ to = "…", status = 302 }`` its ``to`` with its status; ``None`` (reported) when
    the table has another key or a wrong status."""
    if not isinstance(value, dict):
        return value, 301
    unknown = sorted(str(k) for k in value if k not in ("to", "status"))
    if unknown:
        n.error(location, f"{label}: unknown key {unknown[0]!r} (an entry's table has "
                "'to', the target, and 'status')")
        return None
    status = _status(n, value, location, label)
    return None if status is None else (value.get("to"), status)


def _path_key(n: Normalizer, section: str, key: str, location: Location, label: str) -> bool:
    """Whether ``key`` may name a path of ``section``: no URL, ``#`` or wildcard."""
    if ":" in key and SCHEME.match(key) and not _DRIVE.match(key):
        n.error(location, f"{label}: old names are paths in this project, not URLs")
        return False
    if "#" in key:
        n.error(location, f"{label}: '#' belongs in [anchors], not in [{section}]")
        return False
    if WILDCARDS.search(key):
        n.error(location, f"{label}: '*', '?' and '[…]' make the key a pattern, which "
                f'goes in [patterns]: {_quoted(key)} = "new/place/$source" ($source is '
                "the matched page)")
        return False
    return True


def _moved(n: Normalizer, entry: Entry, label: str) -> Entry | None:
    """``entry`` unless it moves its name to itself."""
    if not entry.new.url and entry.new.path == entry.old and not entry.new.anchor:
        n.error(entry.location, f"{label}: the old and new names are the same")
        return None
    return entry


def _page(
    n: Normalizer, key: object, value: object, location: Location, label: str
) -> Entry | None:
    written = _target_table(n, value, location, label)
    if written is None:
        return None
    value, status = written
    if not _strings(n, key, value, location, label):
        return None
    assert isinstance(key, str) and isinstance(value, str)
    if not _path_key(n, "pages", key, location, label):
        return None
    if key.endswith("/"):
        n.error(location, f"{label}: folders are moved under [prefixes]")
        return None
    old = n.page_key(key, location, label)
    new = None if old is None else n.page_target(value, location, label)
    if old is None or new is None:
        return None
    return _moved(n, Entry("pages", old, new, location, status=status), label)


def _file_or_folder(
    section: str, folder: str, n: Normalizer, key: object, value: object, location: Location,
    label: str, status: int = 301,
) -> Entry | None:
    """A ``[files]`` or ``[prefixes]`` entry: paths as written, each ending in ``folder``
    (``/`` for a folder), with the ``status`` of its server rules."""
    if not _strings(n, key, value, location, label):
        return None
    assert isinstance(key, str) and isinstance(value, str)
    if not _path_key(n, section, key, location, label):
        return None
    # a source file here is one that is not a document (an include fragment listed in
    # exclude_patterns); check_against_project warns when it is a document
    old = n.check_path(key, location, label)
    if old is None:
        return None
    new = n.url(value, location, label)
    if new is None:
        return None
    if not new.url:
        path_text, _, anchor = value.partition("#")
        if anchor:
            n.error(location, f"{label}: [{section}] targets cannot have an '#anchor'")
            return None
        path = n.check_path(path_text, location, label)
        if path is None:
            return None
        new = Target(path + folder)
    return _moved(n, Entry(section, old + folder, new, location, status=status), label)


def _file(
    n: Normalizer, key: object, value: object, location: Location, label: str
) -> Entry | None:
    return _file_or_folder("files", "", n, key, value, location, label)


def _folder(
    n: Normalizer, key: object, value: object, location: Location, label: str
) -> Entry | None:
    written = _target_table(n, value, location, label)
    if written is None:
        return None
    return _file_or_folder("prefixes", "/", n, key, written[0], location, label, written[1])


def _anchor(
    n: Normalizer, key: object, value: object, location: Location, label: str
) -> Entry | None:
    """An ``[anchors]`` entry: ``page#old-id`` to ``page#new-id`` (the page may be left out)."""
    if not _strings(n, key, value, location, label):
        return None
    assert isinstance(key, str) and isinstance(value, str)
    if ":" in key and SCHEME.match(key) and not _DRIVE.match(key):
        n.error(location, f"{label}: old names are paths in this project, not URLs")
        return None
    page, sep, anchor = key.partition("#")
    if not sep or not anchor or not page:
        n.error(location, f"{label}: anchor keys are written 'page#old-id'")
        return None
    docname = n.page(page, location, label)
    if docname is None:
        return None
    old = f"{docname}#{anchor}"
    new = n.url(value, location, label)
    if new is None:
        return None
    if not new.url:
        path_text, _, new_anchor = value.partition("#")
        if not new_anchor:
            n.error(location, f"{label}: anchor targets are written 'page#new-id'")
            return None
        path = n.page(path_text or page, location, label)
        if path is None:
            return None
        new = Target(path, new_anchor)
    if (old, "") == (new.path, new.anchor) or f"{new.path}#{new.anchor}" == old:
        n.error(location, f"{label}: the old and new names are the same")
        return None
    return Entry("anchors", old, new, location)


def _label(
    n: Normalizer, key: object, value: object, location: Location, label: str
) -> Entry | None:
    """A ``[labels]`` entry: both sides are label names, normalized as Sphinx does."""
    if not _strings(n, key, value, location, label):
        return None
    assert isinstance(key, str) and isinstance(value, str)
    for text in (key, value):
        if text.lstrip().startswith("#"):
            n.error(location, f"{label}: labels are written without '#' "
                    f"({_quoted(key.lstrip().lstrip('#'))} = "
                    f"{_quoted(value.lstrip().lstrip('#'))})")
            return None
        if SCHEME.match(text.strip()) and "://" in text:
            n.error(location, f"{label}: [labels] maps a label to a label of this "
                    "project; a page that left the site goes in [pages]")
            return None
    old, new = normalize_label(key), normalize_label(value)
    if old == new:
        n.error(location, f"{label}: the old and new labels are the same (labels are "
                "compared lowercase, as Sphinx names them)")
        return None
    return Entry("labels", old, Target(path=new), location)


def _pattern(
    n: Normalizer, key: object, value: object, location: Location, label: str
) -> Entry | None:
    """A ``[patterns]`` entry: a glob of old docnames and a target template; its compiled
    glob goes to ``n.globs``."""
    replace: object = False
    peer = ""
    status = 301
    if isinstance(value, PatternValue):
        replace, peer, value = value.replace, value.peer, value.to
    elif isinstance(value, dict):
        unknown = sorted(
            str(k) for k in value if k not in ("to", "replace", "peer", "status")
        )
        if unknown:
            n.error(location, f"{label}: unknown key {unknown[0]!r} (a pattern's table "
                    "has 'to', the target, 'replace', 'peer' and 'status')")
            return None
        checked = _status(n, value, location, label)
        if checked is None:
            return None
        status = checked
        replace = value.get("replace", False)
        if not isinstance(replace, bool):
            n.error(location, f"{label}: 'replace' must be true or false")
            return None
        # the extension a glob was written for (``sphinx-relocate import`` keeps it):
        # the check says which documents it matched stay pages, as for conf.py's
        peer = value.get("peer", "")
        if not isinstance(peer, str):
            n.error(location, f"{label}: 'peer' must be the name of an extension")
            return None
        value = value.get("to")
    if not isinstance(key, str) or not isinstance(value, str):
        n.error(location, f"{label}: a pattern maps a string to a target string, or to "
                '{ to = "…", replace = true }')
        return None
    if not key.strip() or not value.strip():
        n.error(location, f"{label}: empty {'key' if not key.strip() else 'target'}")
        return None
    if not WILDCARDS.search(key):
        n.error(location, f"{label}: no '*', '?' or '[…]' in the key: pages go in [pages]")
        return None
    if "#" in key or (SCHEME.match(key) and not _DRIVE.match(key)):
        n.error(location, f"{label}: a pattern matches page names: no '#' and no URL")
        return None
    glob = n.page_key(key, location, label)
    if glob is None:
        return None
    try:
        string.Template(value).substitute(source="x")
    except (KeyError, ValueError):
        n.error(location, f"{label}: the target may use only $source or ${{source}} "
                "(the matched page; write $$ for a $)")
        return None
    new = n.page_target(value, location, label)
    if new is None:
        return None
    n.globs.setdefault(glob, (peer, re.compile(fnmatch.translate(glob), re.DOTALL)))
    return Entry("patterns", glob, new, location, bool(replace), status)


def _quoted(text: str) -> str:
    """``text`` as a TOML basic string, for messages that show an entry to write."""
    return json.dumps(text, ensure_ascii=False)


# -- the sections' checks against the project ------------------------------------------


def nfc(name: str) -> str:
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def fold(name: str) -> str:
    """A name as a case-insensitive, normalizing file system compares it."""
    return nfc(name).casefold()


@dataclass
class ProjectCheck:
    """What the checks of one table against one project share, and what they found."""

    table: RelocationTable
    documents: set[str]
    file_exists: Callable[[str], bool]
    suffixes: tuple[str, ...]
    problems: list[Problem] = field(default_factory=list)
    #: the documents, sorted, once one target is missing (for "did you mean")
    ordered: list[str] = field(default_factory=list)
    #: non-ASCII documents by their NFC form, once one such target is missing
    by_nfc: dict[str, str] | None = None
    #: the folders the build writes pages into, with what writes them ("autosummary
    #: (api.rst:7)"): a check without a build cannot see their pages
    generated: Mapping[str, str] = field(default_factory=dict)
    #: why an old page is still there, when a build can tell (a page an extension wrote
    #: in an earlier build): advice for its ``shadowed`` warning, ``""`` if none
    left_over: Callable[[str], str] = field(default=lambda docname: "")

    def made_by_build(self, entry: Entry, path: str) -> bool:
        """Whether the missing target ``path`` is in a folder the build makes pages in;
        if it is, a note says it was not checked."""
        folder = next((f for f in self.generated if path.startswith(f) or path + "/" == f), None)
        if folder is None:
            return False
        self.found(entry, f"target {path!r} of {entry.old!r}: {self.generated[folder]} "
                    f"writes the pages of {folder} when the docs are built; not checked "
                    "without a build", "note")
        return True

    def missing(self, entry: Entry, what: str, page: str = "") -> None:
        """A ``target_missing`` warning, with the document ``page`` was probably meant
        to name."""
        if page and not page.isascii():  # a document written with another normalization?
            if self.by_nfc is None:
                self.by_nfc = {nfc(d): d for d in self.documents if not d.isascii()}
            found = self.by_nfc.get(nfc(page))
            if found is not None and found != page:
                what += (f"; the document {found!a} differs from {page!a} only by "
                         "Unicode normalization (NFC and NFD): write the name as it is on disk")
                page = ""
        if page:  # a typo in the target: the document it was probably meant to name
            self.ordered[:] = self.ordered or sorted(self.documents)
            close = difflib.get_close_matches(page, self.ordered, n=1, cutoff=0.8)
            what += f"; did you mean `{close[0]}`?" if close else ""
        self.found(entry, what, "target_missing")

    def shadowed(self, entry: Entry, advice: str = "") -> None:
        self.found(entry, f"{entry.old!r} still exists, so its entry is not used "
                    f"({advice or 'delete the old file or the entry'})", "shadowed")

    def found(self, entry: Entry, message: str, subtype: str) -> None:
        """A problem of ``entry`` that does not stop the build."""
        self.problems.append(Problem(entry.location, message, fatal=False, subtype=subtype))


def _check_page(check: ProjectCheck, entry: Entry) -> None:
    documents = check.documents
    if entry.old in documents:
        check.shadowed(entry, check.left_over(entry.old))
    elif not entry.new.url and entry.new.path not in documents:
        # a chain stops at the first page that exists: not this one
        final = check.table.locate_page(entry.old, documents.__contains__) or entry.new
        if not final.url and final.path not in documents and not check.made_by_build(
            entry, final.path
        ):
            check.missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a document",
                          final.path)


def _check_file(check: ProjectCheck, entry: Entry) -> None:
    if check.file_exists(entry.old):
        check.shadowed(entry)
        return
    stem, is_source = strip_source_suffix(entry.new.path, check.suffixes)
    if not entry.new.url and is_source and stem in check.documents:
        check.found(entry, f"{entry.new.path!r} is a document: pages are moved under "
                    "[pages], [files] is for other files (images, downloads, include "
                    "fragments)", "table")
        return
    final = check.table.locate_file(entry.old, check.file_exists) or entry.new
    if not final.url and not check.file_exists(final.path):
        check.missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a file")


def _check_anchor(check: ProjectCheck, entry: Entry) -> None:
    documents = check.documents
    final = check.table.anchors[tuple(entry.old.split("#", 1))]  # type: ignore[index]
    settled = check.table.settle_anchor_target(final, documents.__contains__)
    if not settled.url and settled.path not in documents:
        check.missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a document",
                      settled.path)


def _check_folder(check: ProjectCheck, entry: Entry) -> None:
    folder = entry.new.path
    if not entry.new.url and not any(d.startswith(folder) for d in check.documents) and (
        not check.file_exists(folder.rstrip("/"))
    ) and not check.made_by_build(entry, folder):
        check.missing(entry, f"target folder {folder!r} of {entry.old!r} does not exist")



PAGES = Section("pages", "old page → new page", _page, _plain_page, _check_page, Chain.PAGES,
                on_disk=True)
PREFIXES = Section("prefixes", "whole folders", _folder, check=_check_folder, chain=Chain.PAGES)
FILES = Section("files", "images, downloads: paths with their suffix", _file, check=_check_file,
                chain=Chain.FILES, on_disk=True)
ANCHORS = Section("anchors", "a section that moved or was renamed", _anchor, check=_check_anchor,
                  chain=Chain.ANCHORS)
LABELS = Section("labels", "renamed labels, for :ref:, {ref}, [](#label), :numref:", _label,
                 chain=Chain.LABELS)
PATTERNS = Section("patterns", "globs of old pages; $source is the page matched", _pattern)

#: every section, by name, in the order the docs list them
SECTIONS: dict[str, Section] = {
    s.name: s for s in (PAGES, PREFIXES, FILES, ANCHORS, LABELS, PATTERNS)
}
