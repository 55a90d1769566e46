"""The relocation table: parse, normalize, validate and look up.

Nothing here imports Sphinx, so the build, the command line and the tests share one
model and it stays fast to test.  A table is read from a TOML file and/or a conf.py
dict; every problem becomes a :class:`Problem` with the file and line of the entry.

Semantics, in one place:

* ``[pages]`` maps an old docname to a new one, to ``docname#anchor`` or to an
  absolute http(s) URL.  Keys and values may carry a source suffix (``a.md``).
* ``[prefixes]`` moves whole folders; the longest prefix wins and ``[pages]`` beats it.
  A folder moved into its own subfolder (``a/`` → ``a/b/``) does not apply again to
  the paths it produced.
* ``[files]`` moves files that are not pages (images, downloads), by path with suffix.
* ``[anchors]`` maps ``old/page#old-id`` to ``new/page#new-id``.
* ``[labels]`` maps an old label to a new one (``"install-label" = "installation"``),
  for ``:ref:``, ``:numref:`` and MyST ``[](#label)``.  Both sides are normalized as
  Sphinx's std domain names labels (:func:`normalize_label`: lowercase, runs of white
  space as one space), so ``"Install-Label"`` is the label ``install-label``.
* ``[patterns]`` maps old docnames that match a glob (``faq/*``) to a target template
  (``help/$source``).  A pattern applies to names that are not documents (the old pages
  links still name); a document only when its entry says ``replace = true``.  It comes
  after ``[pages]`` and ``[prefixes]``, the first pattern written that matches wins, and a
  chain takes at most one pattern step (a template cannot feed itself for ever).
* Chains collapse (A→B, B→C gives A→C) and cycles are refused.
* A key ending in ``.html`` names the page (the suffix is dropped, with a note); a key
  with glob characters outside ``[patterns]`` is an error that points there.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import hashlib
import json
import operator
import re
import string
import sys
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sphinx_relocate.core.paths import DEFAULT_SOURCE_SUFFIXES, longest_first, strip_source_suffix

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SECTIONS = ("pages", "prefixes", "files", "anchors", "labels", "patterns")
#: Characters that make a key a glob pattern (``fnmatch``: ``*``, ``?``, ``[seq]``).
WILDCARDS = re.compile(r"[*?\[\]]")
#: ``$source`` or ``${source}`` in a pattern's target, as ``string.Template`` reads it.
_PLACEHOLDER = re.compile(r"\$(?:source(?![_A-Za-z0-9])|\{source\})")
_UNSAFE_SCHEMES = ("javascript:", "data:", "vbscript:", "file:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: a Windows drive (``C:/``), which :data:`_SCHEME` would take for a URL scheme
_DRIVE = re.compile(r"[A-Za-z]:[/\\]")
#: a path :meth:`_Builder._check_path` returns as it is: relative, forward slashes, no
#: empty, ``.`` or ``..`` segment (the shape of nearly every entry)
_CLEAN_PATH = re.compile(r"(?![A-Za-z]:)(?:(?!\.\.?(?:/|$))[^/\\]+/)*(?!\.\.?$)[^/\\]+")
#: a page name :meth:`_Builder.add` keeps as it is written: a :data:`_CLEAN_PATH` with no
#: ``:`` (URL, drive), ``#``, wildcard, white space or control character
_NAME_CHAR = r"[^/\\:#*?\[\]\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
_PLAIN_PAGE = re.compile(rf"(?:(?!\.\.?(?:/|$)){_NAME_CHAR}+/)*(?!\.\.?$){_NAME_CHAR}+")
#: Characters no key may hold (:func:`control_character`): C0 and C1 controls and DEL,
#: the Unicode line and paragraph separators, the bidirectional controls that make text
#: read other than it runs, and lone surrogates.  A key is written as it is into server
#: rules and inventory lines, where each of these ends a line or a field, and no page
#: name needs one.
CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
#: Characters no value may hold: the controls (a value is percent-encoded wherever it is
#: written, so a line separator in an anchor is only odd, not harmful)
_VALUE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def control_character(text: str, pattern: re.Pattern[str] = CONTROL) -> str | None:
    """``U+000A`` for the first ``pattern`` (:data:`CONTROL`) character of ``text``."""
    found = pattern.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


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


@dataclass
class RelocationTable:
    """The validated table, with chain-following lookups."""

    pages: dict[str, Target] = field(default_factory=dict)
    files: dict[str, Target] = field(default_factory=dict)
    #: ``(old_folder/, new_folder/ or URL)``, longest old folder first
    prefixes: tuple[tuple[str, Target], ...] = ()
    anchors: dict[tuple[str, str], Target] = field(default_factory=dict)
    #: ``[patterns]``, in the order written: the first that matches wins
    patterns: tuple[Pattern, ...] = ()
    #: ``[labels]``: old label → new label as written (chains not followed), both
    #: normalized (:func:`normalize_label`)
    labels: dict[str, str] = field(default_factory=dict)
    entries: tuple[Entry, ...] = ()
    #: problems found while loading that do not stop a build (case collisions)
    warnings: tuple[Problem, ...] = ()
    #: notes for the reader (subtype ``"note"``), logged rather than warned
    notes: tuple[Problem, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.entries)

    @classmethod
    def of_entries(
        cls, entries: Iterable[Entry], patterns: tuple[Pattern, ...] = ()
    ) -> RelocationTable:
        """The table of validated ``entries`` (in order), with their compiled
        ``patterns``: the lookups are views of the entries."""
        entries = tuple(entries)
        by_section: dict[str, list[Entry]] = {section: [] for section in SECTIONS}
        for entry in entries:
            by_section[entry.section].append(entry)
        return cls(
            pages={e.old: e.new for e in by_section["pages"]},
            files={e.old: e.new for e in by_section["files"]},
            prefixes=tuple(
                sorted(
                    ((e.old, e.new) for e in by_section["prefixes"]),
                    key=lambda item: (-len(item[0]), item[0]),
                )
            ),
            anchors={
                tuple(e.old.split("#", 1)): e.new  # type: ignore[misc]
                for e in by_section["anchors"]
            },
            patterns=patterns,
            labels={e.old: e.new.path for e in by_section["labels"]},
            entries=entries,
        )

    def __reduce__(self) -> tuple[Callable[..., RelocationTable], tuple[Any, ...]]:
        """Pickled (Sphinx keeps the table in its environment) as rows of strings: a
        fraction of the time and size of the objects, and without the lookup caches."""
        rows = tuple(
            (e.section, e.old, e.new.path, e.new.anchor, e.new.url, e.location.file,
             e.location.line, e.replace)
            for e in self.entries
        )
        return _unpickled_table, (rows, self.patterns, self.warnings, self.notes)

    @property
    def digest(self) -> str:
        """A hash of the normalized entries: comments and ordering do not change it."""
        cached: str | None = self.__dict__.get("_digest")
        if cached is None:
            cached = self.__dict__["_digest"] = self._compute_digest()
        return cached

    def _compute_digest(self) -> str:
        rows = sorted(
            (e.section, e.old, e.new.path, e.new.anchor, e.new.url, *((True,) if e.replace else ()))
            for e in self.entries
        )
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()

    def location_of(self, old: str, section: str = "") -> Location | None:
        """Where the entry that moves ``old`` (a docname, file path or folder; a label
        with ``section="labels"``) was written."""
        if section == "labels":
            return next((e.location for e in self.entries
                         if e.section == "labels" and e.old == old), None)
        for entry in self.entries:
            if entry.old == old and entry.section != "labels":
                return entry.location
        for entry in self.entries:
            if entry.section == "prefixes" and old.startswith(entry.old):
                return entry.location
        for pattern in self.patterns:
            if pattern.matches(old):
                return pattern.location
        return None

    # -- lookups ---------------------------------------------------------------

    def locate_page(
        self, docname: str, exists: Callable[[str], bool] | None = None
    ) -> Target | None:
        """Where the page ``docname`` went, following chains; ``None`` if it did not move.

        With ``exists``, the chain stops at the first docname that exists, so a table
        whose targets are themselves old names of other pages still lands on real pages.
        """
        return self._follow(docname, self.pages, exists, patterns=True)

    def replaced(self, docname: str) -> bool:
        """Whether a ``[patterns]`` entry with ``replace = true`` makes this document a stub."""
        return any(p.replace and p.matches(docname) for p in self.patterns)

    def locate_file(self, path: str, exists: Callable[[str], bool] | None = None) -> Target | None:
        """Where the non-page file ``path`` (source-relative, with suffix) went."""
        return self._follow(path, self.files, exists)

    def locate_pattern(self, pattern: str) -> Target | None:
        """Where the folder of a glob pattern went (``old/*`` → ``new/*``), by ``[prefixes]``."""
        return self._follow(pattern, {}, None)

    def locate_reference(
        self, docname: str, fragment: str = "", exists: Callable[[str], bool] | None = None
    ) -> Target | None:
        """Where a reference to ``docname#fragment`` should point now; ``None`` if unchanged.

        An ``[anchors]`` entry for the written fragment wins; otherwise the page target's
        own anchor; otherwise the written fragment is kept.
        """
        if fragment and (docname, fragment) in self.anchors:
            return self._settle_anchor_target(self.anchors[docname, fragment], exists)
        target = self.locate_page(docname, exists)
        if target is None or target.url:
            return target
        if fragment:
            if (target.path, fragment) in self.anchors:
                return self._settle_anchor_target(self.anchors[target.path, fragment], exists)
            if not target.anchor:
                return Target(path=target.path, anchor=fragment)
        return target

    def locate_label(self, name: str, exists: Callable[[str], bool] | None = None) -> str | None:
        """The label a reference to ``name`` lands on now; ``None`` if it did not move.

        As for pages, a label that exists keeps its references (its entry is shadowed)
        and, with ``exists``, a chain stops at the first label that exists.
        """
        start = label = normalize_label(name)
        if exists is not None and exists(label):
            return None
        memo = self._memo("labels", exists)  # a chain is walked once (see _follow)
        seen = {label}
        end: str | None = None
        while True:
            if memo is not None and (label, True) in memo:
                remembered = memo[label, True]
                end = None if remembered is None else remembered[0]
                break
            new = self.labels.get(label)
            if new is None:
                end = label
                break
            label = new
            if exists is not None and exists(label):
                end = label
                break
            if label in seen:  # a cycle; load_table refuses these
                break
            seen.add(label)
        if memo is not None:
            ends = None if end is None else (end, "", "")
            for passed in seen:
                memo[passed, True] = ends
        return None if end is None or end == start else end

    def old_names(self, docname: str) -> tuple[str, ...]:
        """Every old docname that the table sends to ``docname`` (for old-folder resolution)."""
        found: set[str] = set()
        pending = [docname]
        reverse_pages = self._reverse_pages()
        reverse_prefixes = self._reverse_prefixes() if self.prefixes else None
        while pending:
            current = pending.pop()
            olds = reverse_pages.get(current)
            if olds:
                new = set(olds).difference(found)
                new.discard(docname)
                found.update(new)
                pending.extend(new)
            # the folders that moves created and that contain current: one probe per level
            end = 0
            while reverse_prefixes and (end := current.find("/", end) + 1) > 0:
                for old_folder in reverse_prefixes.get(current[:end], ()):
                    candidate = old_folder + current[end:]
                    if candidate in found or candidate == docname:
                        continue
                    if self._page_step(candidate) == Target(path=current) and (
                        candidate not in self.pages
                    ):
                        found.add(candidate)
                        pending.append(candidate)
            for candidate in self._pattern_sources(current) if self.patterns else ():
                if candidate not in found and candidate != docname:
                    found.add(candidate)
                    pending.append(candidate)
        return tuple(sorted(found))

    # -- internals -------------------------------------------------------------

    def _pattern_sources(self, docname: str) -> list[str]:
        """The old names a pattern sends to ``docname``, found by running it backwards.

        Only a page template with one ``$source`` (``help/$source``) can be: the old name
        is what stands for it, and it counts when the table sends it forward to ``docname``.
        """
        sources: list[str] = []
        for pattern in self.patterns:
            if pattern.to.url or pattern.to.anchor or "$$" in pattern.to.path:
                continue
            parts = _PLACEHOLDER.split(pattern.to.path)
            if len(parts) != 2:
                continue
            head, tail = parts
            if not (docname.startswith(head) and docname.endswith(tail)):
                continue
            candidate = docname[len(head) : len(docname) - len(tail)]
            if (
                candidate
                and pattern.matches(candidate)
                and self._page_step(candidate) is None
                and self._pattern_step(candidate, None) == Target(path=docname)
            ):
                sources.append(candidate)
        return sources

    def _reverse_pages(self) -> dict[str, list[str]]:
        cache: dict[str, list[str]] | None = self.__dict__.get("_reverse_cache")
        if cache is None:
            cache = {}
            for old, target in self.pages.items():
                if not target.url:
                    cache.setdefault(target.path, []).append(old)
            self.__dict__["_reverse_cache"] = cache
        return cache

    def _reverse_prefixes(self) -> dict[str, list[str]]:
        cache: dict[str, list[str]] | None = self.__dict__.get("_reverse_prefix_cache")
        if cache is None:
            cache = {}
            for old_folder, new in self.prefixes:
                if not new.url and new.path:
                    cache.setdefault(new.path, []).append(old_folder)
            self.__dict__["_reverse_prefix_cache"] = cache
        return cache

    def _prefix_step(self, path: str) -> Target | None:
        if not self.prefixes:
            return None
        folders: dict[str, Target] | None = self.__dict__.get("_prefix_index")
        if folders is None:
            folders = self.__dict__["_prefix_index"] = dict(self.prefixes)
        # the longest moved folder that contains path: one dict probe per level
        end = len(path)
        while (end := path.rfind("/", 0, end)) > 0:
            old_folder = path[: end + 1]
            new = folders.get(old_folder)
            if new is None:
                continue
            if new.path.startswith(old_folder) and path.startswith(new.path):
                return None  # already inside the folder this move created
            rest = path[len(old_folder) :]
            if new.url:
                return Target(url=new.url + rest)
            return Target(path=new.path + rest)
        return None

    def _page_step(self, path: str) -> Target | None:
        return self.pages.get(path) or self._prefix_step(path)

    def _pattern_step(self, path: str, exists: Callable[[str], bool] | None) -> Target | None:
        """The first pattern that applies to ``path``; a document takes only one that replaces."""
        is_document = exists is not None and exists(path)
        for pattern in self.patterns:
            if (pattern.replace or not is_document) and pattern.matches(path):
                return pattern.target(path)
        return None

    def _follow(
        self,
        start: str,
        exact: Mapping[str, Target],
        exists: Callable[[str], bool] | None,
        *,
        patterns: bool = False,
    ) -> Target | None:
        """Follow the chain from ``start``; ``None`` if it does not move (or cycles).

        Every path a walk passes is remembered with where the rest of the chain ends
        (path compression), so following each entry of an n-step chain is linear in the
        table, not quadratic.  The memory is kept per ``exists``: callers pass the
        answers of one build (a set's ``__contains__``), which do not change under it.
        """
        kind = "pages" if exact is self.pages else "files" if exact is self.files else ""
        memo = self._memo(kind, exists) if kind else None
        patterned = not (patterns and self.patterns)  # one pattern step per chain at most
        ends = self._walk(start, patterned, exact, exists, memo)
        if ends is None:
            return None
        path, anchor, url = ends
        if path == start and not anchor and not url:
            return None
        return Target(path, anchor, url)

    def _memo(
        self, kind: str, exists: Callable[[str], bool] | None
    ) -> dict[tuple[str, bool], tuple[str, str, str] | None] | None:
        """The remembered chain ends of one section (``pages``, ``files``, ``labels``)
        under ``exists``."""
        owner = getattr(exists, "__self__", None)
        # a set that grew or shrank is other answers (a cheap guard; callers do not)
        key = (kind, exists, len(owner) if isinstance(owner, Collection) else -1)
        memos: dict[object, dict[tuple[str, bool], tuple[str, str, str] | None]] = (
            self.__dict__.setdefault("_follow_memos", {})
        )
        try:
            memo = memos.get(key)
        except TypeError:  # an exists that cannot be a key: no memory
            return None
        if memo is None:
            if len(memos) >= 8:  # each lambda a caller makes is another key
                memos.clear()
            memo = memos[key] = {}
        return memo

    def _walk(
        self,
        start: str,
        patterned: bool,
        exact: Mapping[str, Target],
        exists: Callable[[str], bool] | None,
        memo: dict[tuple[str, bool], tuple[str, str, str] | None] | None,
    ) -> tuple[str, str, str] | None:
        """Where the chain from ``start`` ends: ``(path, anchor, url)``, the anchor the
        last one a step gave; ``None`` for a cycle."""
        path = start
        seen = {start}
        #: the paths passed, each with whether a pattern step was still allowed there
        #: and the anchor of the step that reached it
        passed: list[tuple[str, bool, str]] = [(start, patterned, "")]
        ends: tuple[str, str, str] | None = None  # where the last path passed ends
        while True:
            if memo is not None and (path, patterned) in memo:
                ends = memo[path, patterned]
                break
            step = exact.get(path) or self._prefix_step(path)
            if step is None and not patterned:
                step, patterned = self._pattern_step(path, exists), True
            if step is None:
                ends = (path, "", "")
                break
            path = step.path
            if step.url or (exists is not None and exists(path)):
                ends = (path, step.anchor, step.url)
                break
            if path in seen or len(seen) > len(self.entries):  # a cycle; load_table
                break  # refuses these, those of folders that grow at every turn too
            seen.add(path)
            passed.append((path, patterned, step.anchor))
        # back from the end: each path passed ends where the next one does, with the
        # last anchor a step gave after it
        for index in range(len(passed) - 1, -1, -1):
            name, allowed, reached_by = passed[index]
            if memo is not None:
                memo[name, allowed] = ends
            if ends is not None and index:
                ends = (ends[0], ends[1] or reached_by, ends[2])
        return ends

    def _settle_anchor_target(self, target: Target, exists: Callable[[str], bool] | None) -> Target:
        if target.url or (exists is not None and exists(target.path)):
            return target
        moved = self.locate_page(target.path, exists)
        if moved is None or moved.url:
            return moved or target
        return Target(path=moved.path, anchor=target.anchor or moved.anchor)


# -- loading -------------------------------------------------------------------

#: One entry as written, before normalization: ``(section, key, value, where)``.
Row = tuple[str, object, object, Location]


def load_table(
    table_file: Path | None,
    mapping: Mapping[object, object] | None = None,
    *,
    mapping_file: str = "conf.py",
    mapping_text: str | None = None,
    source_suffixes: Iterable[str] = DEFAULT_SOURCE_SUFFIXES,
    display_name: str | None = None,
    peer_rows: Iterable[Row] = (),
    peer_problems: Iterable[Problem] = (),
) -> tuple[RelocationTable, list[Problem]]:
    """Read a TOML table and/or a ``relocate_map`` dict into one validated table.

    Returns the table built from every valid entry and the list of problems; a
    caller must not go on when any of them is ``fatal``.
    ``display_name`` is how the table file is named in messages (default: its path).
    ``peer_rows`` are entries converted from another extension's config
    (:mod:`sphinx_relocate.core.peers`), validated like the rest; ``peer_problems`` are what
    went wrong reading them.  Notes go to ``table.notes``, not to the problems.
    """
    with collection_paused():
        return _load_table(
            table_file, mapping, mapping_file, mapping_text, source_suffixes, display_name,
            peer_rows, peer_problems,
        )


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: for steps that make an object or two per
    entry and no cycles (loading a table, planning and writing its stubs).  Each
    collection would scan the whole heap, Sphinx's environment included; at 10,000
    entries that was half the time of the step."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _load_table(
    table_file: Path | None,
    mapping: Mapping[object, object] | None,
    mapping_file: str,
    mapping_text: str | None,
    source_suffixes: Iterable[str],
    display_name: str | None,
    peer_rows: Iterable[Row],
    peer_problems: Iterable[Problem],
) -> tuple[RelocationTable, list[Problem]]:
    suffixes = tuple(source_suffixes) or DEFAULT_SOURCE_SUFFIXES
    problems: list[Problem] = list(peer_problems)
    raw: list[Row] = []

    if table_file is not None:
        name = display_name or str(table_file)
        raw.extend(_read_toml(table_file, name, problems))
    if mapping:
        lines = _mapping_lines(mapping_text or "")
        for key, value in mapping.items():
            line = lines.get(key, 0) if isinstance(key, str) else 0
            line = line or lines.get("", 1)
            raw.append(("pages", key, value, Location(mapping_file, line)))
    raw.extend(peer_rows)

    builder = _Builder(suffixes, problems)
    builder.add_all(raw)
    table = builder.finish()
    notes = [p for p in problems if p.subtype == "note"]
    problems = [p for p in problems if p.subtype != "note"]
    table.warnings = tuple(p for p in problems if not p.fatal)
    table.notes = tuple(notes)
    return table, problems


def _read_toml(
    path: Path, name: str, problems: list[Problem]
) -> list[tuple[str, object, object, Location]]:
    try:
        data = path.read_bytes()
    except OSError as err:
        reason = err.strerror or err
        problems.append(Problem(Location(name), f"cannot read the relocation table: {reason}"))
        return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        problems.append(Problem(Location(name, line), "the table is not valid UTF-8"))
        return []
    scanned = _scan_simple(text, name)
    if scanned is not None:  # the common table: one pass, no TOML parser
        headers, rows = scanned
        unknown = {section for section, _ in headers if section not in SECTIONS}
        for section, line in headers:
            if section in unknown:
                problems.append(_unknown_section(section, Location(name, line)))
        return [row for row in rows if row[0] not in unknown] if unknown else rows
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        match = _TOML_POSITION.search(message)
        line = int(match.group(1)) if match else 0
        column = f", column {match.group(2)}" if match else ""
        reason = _TOML_POSITION.sub("", message).strip()
        problems.append(Problem(Location(name, line), f"invalid TOML{column}: {reason}"))
        return []
    lines = _toml_lines(text)
    parsed: list[Row] = []
    for section, body in document.items():
        location = Location(name, lines.get((section, None), 0))
        if section not in SECTIONS:
            problems.append(_unknown_section(section, location))
            continue
        if not isinstance(body, dict):
            problems.append(Problem(location, f"[{section}] must be a table of old = new entries"))
            continue
        for key, value in body.items():
            parsed.append((section, key, value, Location(name, lines.get((section, key), 0))))
    return parsed


def _unknown_section(section: str, location: Location) -> Problem:
    return Problem(
        location,
        f"unknown section [{section}] (expected one of: "
        + ", ".join(f"[{s}]" for s in SECTIONS)
        + ")",
    )


#: a key tomllib and this scanner read alike: bare, or a string without escapes
_TOML_STRING = r"""(?:"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"|'([^'\x00-\x08\x0a-\x1f\x7f]*)')"""
_SIMPLE_KEY = rf"(?:([A-Za-z0-9_-]+)|{_TOML_STRING})"
#: the rest of a line after a value or header: white space and a comment
_LINE_END = r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
_SIMPLE_HEADER = re.compile(rf"[ \t]*\[[ \t]*{_SIMPLE_KEY}[ \t]*\]{_LINE_END}")
_SIMPLE_ENTRY = re.compile(
    rf"[ \t]*{_SIMPLE_KEY}[ \t]*=[ \t]*{_TOML_STRING}{_LINE_END}"
)
_BLANK = re.compile(_LINE_END)
_ONE_KEY = re.compile(_SIMPLE_KEY)


def _scan_simple(text: str, name: str) -> tuple[list[tuple[str, int]], list[Row]] | None:
    """The table's section headers ``(section, line)`` and its rows, in one pass, when
    every line is a section header, a ``key = "string"`` entry, a comment or blank; else
    ``None`` (read it with tomllib).

    This is the shape of nearly every table, and a subset of TOML in which the result is
    exactly tomllib's (the tests hold it to that); anything else, such as a duplicate
    key, an escape or an inline table, goes to tomllib, for its meaning and its errors.
    """
    headers: list[tuple[str, int]] = []
    rows: list[Row] = []
    keys: set[str] | None = None  # of the current section, for duplicates
    section = ""
    header, entry, blank = _SIMPLE_HEADER.fullmatch, _SIMPLE_ENTRY.fullmatch, _BLANK.fullmatch
    sections: set[str] = set()
    new_location = tuple.__new__  # Location(name, number), without the call of its __new__
    lines = text.split("\n")
    if "\r" in text:  # CRLF; a CR elsewhere, the end of the text included, is no blank
        lines[:-1] = [line[:-1] if line.endswith("\r") else line for line in lines[:-1]]
    for number, line in enumerate(lines, 1):
        found = entry(line)
        if found is not None:
            if keys is None:
                return None  # a top-level key
            bare, double, single, value, single_value = found.groups()
            key = bare or double or single or ""
            if key in keys:
                return None
            keys.add(key)
            rows.append((
                section, key, value if value is not None else single_value,
                new_location(Location, (name, number)),
            ))
            continue
        found = header(line)
        if found is not None:
            section = found.group(1) or found.group(2) or found.group(3) or ""
            if section in sections:
                return None
            sections.add(section)
            keys = set()
            headers.append((section, number))
        elif blank(line) is None:
            return None
    return headers, rows


def _quoted(text: str) -> str:
    """``text`` as a TOML basic string, for messages that show an entry to write."""
    return json.dumps(text, ensure_ascii=False)


def _split_key(line: str) -> str | None:
    """The text before the first ``=`` that is outside quotes, or None."""
    quote = ""
    escaped = False
    for index, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "=":
            return line[:index]
        elif char == "#":
            return None
    return None


def _decode_key(text: str) -> str | None:
    simple = _ONE_KEY.fullmatch(text.strip(" \t"))
    if simple is not None:
        return simple.group(1) or simple.group(2) or simple.group(3) or ""
    try:
        parsed = tomllib.loads(f"{text.strip()} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    node: object = parsed
    while isinstance(node, dict) and len(node) == 1:
        key = next(iter(node))
        parts.append(key)
        node = node[key]
    return ".".join(parts) if parts else None


#: a ``[section]`` line: its name may be quoted, and a quoted name may hold ``]`` or ``#``
_HEADER = re.compile(
    r"""^\s*\[(?!\[)((?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\]"'#\n])+)\]\s*(#.*)?$"""
)


def _toml_lines(text: str) -> dict[tuple[str, str | None], int]:
    """Map ``(section, key)`` to its 1-based line; ``(section, None)`` to the header line.

    tomllib keeps no positions, so a light scan of the text recovers them.
    """
    lines: dict[tuple[str, str | None], int] = {}
    section: str | None = None  # before the first header
    for number, line in enumerate(text.split("\n"), 1):  # TOML ends lines at LF only
        header = _HEADER.match(line)
        if header:
            decoded = _decode_key(header.group(1))
            section = header.group(1).strip() if decoded is None else decoded
            lines.setdefault((section, None), number)
            continue
        key_text = _split_key(line)
        if key_text is None or not key_text.strip():
            continue
        key = _decode_key(key_text)
        if key is None:
            continue
        if section is None and "." in key:  # dotted top-level key: pages."a" = "b"
            head, _, rest = key.partition(".")
            lines.setdefault((head, rest), number)
            lines.setdefault((head, None), number)
        else:
            lines.setdefault((section or "", key), number)
            if section is None:  # a top-level "pages = ..." stands where a header would
                lines.setdefault((key, None), number)
    return lines


def _mapping_lines(conf_text: str, name: str = "relocate_map") -> dict[str, int]:
    """Line numbers of quoted keys in conf.py, so the entries of a dict there get a location.

    A key that cannot be found gets the line that names the dict, ``name`` (key ``""``).
    """
    found: dict[str, int] = {}
    for number, line in enumerate(conf_text.splitlines(), 1):
        if name in line:
            found.setdefault("", number)
        for match in re.finditer(r"""(["'])([^"'\n]+)\1\s*:""", line):
            found.setdefault(match.group(2), number)
    return found


def _unpickled_table(
    rows: tuple[tuple[str, str, str, str, str, str, int, bool], ...],
    patterns: tuple[Pattern, ...],
    warnings: tuple[Problem, ...],
    notes: tuple[Problem, ...],
) -> RelocationTable:
    """A table from the rows :meth:`RelocationTable.__reduce__` pickled."""
    locations: dict[tuple[str, int], Location] = {}
    entries = []
    for section, old, path, anchor, url, file, line, replace in rows:
        location = locations.get((file, line))
        if location is None:
            location = locations[file, line] = Location(file, line)
        entries.append(Entry(section, old, Target(path, anchor, url), location, replace))
    table = RelocationTable.of_entries(entries, patterns)
    table.warnings, table.notes = warnings, notes
    return table


#: an :class:`Entry`'s place in the table: its location, then section and old name
_BY_LINE = operator.itemgetter(3, 0, 1)
_LOCATION = operator.itemgetter(3)


class _Builder:
    """Turns raw rows into a table, collecting every problem on the way."""

    def __init__(self, suffixes: tuple[str, ...], problems: list[Problem]) -> None:
        self.suffixes = suffixes
        #: the suffixes as ``str.endswith`` takes them, longest first
        self.ordered_suffixes = longest_first(suffixes)
        self.problems = problems
        self.entries: dict[tuple[str, str], Entry] = {}
        #: glob → (peer, compiled pattern), for the ``[patterns]`` entries
        self.globs: dict[str, tuple[str, re.Pattern[str]]] = {}

    def error(self, location: Location, message: str) -> None:
        self.problems.append(Problem(location, message))

    def note(self, location: Location, message: str) -> None:
        self.problems.append(Problem(location, message, fatal=False, subtype="note"))

    def add_all(self, rows: Iterable[Row]) -> None:
        """:meth:`add` each row; a plain ``[pages]`` entry (nearly every one) goes in
        here, as the checks of :meth:`add` would keep it, less a source suffix."""
        entries, plain, ordered = self.entries, _PLAIN_PAGE.fullmatch, self.ordered_suffixes
        new_tuple = tuple.__new__
        for section, key, value, location in rows:
            if (
                section == "pages"
                and type(key) is str
                and type(value) is str
                and plain(key)
                and plain(value)
            ):
                # most names have no suffix: one call each to see it
                docname = strip_source_suffix(key, ordered)[0] if key.endswith(ordered) else key
                path = strip_source_suffix(value, ordered)[0] if value.endswith(ordered) else value
                if (
                    docname != path
                    and not docname.endswith(".html")
                    and ("pages", docname) not in entries
                ):
                    # Entry("pages", docname, Target(path), location), without the calls
                    # of the named tuples' __new__ (a Python function each, once an entry)
                    entries["pages", docname] = new_tuple(
                        Entry, ("pages", docname, new_tuple(Target, (path, "", "")), location,
                                False)
                    )
                    continue
            self.add(section, key, value, location)

    def add(self, section: str, key: object, value: object, location: Location) -> None:
        label = f"[{section}] {key!r}"
        for what, text in (("key", key), ("value", value)):
            if isinstance(value, (dict, PatternValue)) and what == "value":
                text = value.get("to") if isinstance(value, dict) else value.to
            pattern = CONTROL if what == "key" else _VALUE_CONTROL
            char = control_character(text, pattern) if isinstance(text, str) else None
            if char is not None:
                self.error(location, f"{label}: the {what} holds the control character "
                           f"{char}; names and targets are one line of visible text")
                return
        if section == "patterns":
            self._add_pattern(key, value, location, label)
            return
        if not isinstance(key, str) or not isinstance(value, str):
            self.error(location, f"{label}: keys and values must be strings")
            return
        if not key.strip() or not value.strip():
            self.error(location, f"{label}: empty {'key' if not key.strip() else 'value'}")
            return
        if section == "labels":
            self._add_label(key, value, location, label)
            return
        old = self._old(section, key, location, label)
        if old is None:
            return
        new = self._new(section, key, value, location, label)
        if new is None:
            return
        if section == "anchors":
            same = (old, "") == (new.path, new.anchor) or f"{new.path}#{new.anchor}" == old
        else:
            same = not new.url and new.path == old and not new.anchor
        if same:
            self.error(location, f"{label}: the old and new names are the same")
            return
        self._keep(Entry(section, old, new, location), label)

    def _keep(self, entry: Entry, label: str) -> bool:
        """Add ``entry`` unless its old name is taken; taken with another target is an error."""
        previous = self.entries.get((entry.section, entry.old))
        if previous is not None:
            if (previous.new, previous.replace) != (entry.new, entry.replace):
                self.error(
                    entry.location,
                    f"{label}: the same old name as the entry at {previous.location} "
                    f"(which moves it to {previous.new}); an old name may appear only once",
                )
            return False
        self.entries[entry.section, entry.old] = entry
        return True

    def _add_label(self, key: str, value: str, location: Location, label: str) -> None:
        """A ``[labels]`` entry: both sides are label names, normalized as Sphinx does."""
        for text in (key, value):
            if text.lstrip().startswith("#"):
                self.error(location, f"{label}: labels are written without '#' "
                           f"({_quoted(key.lstrip().lstrip('#'))} = "
                           f"{_quoted(value.lstrip().lstrip('#'))})")
                return
            if _SCHEME.match(text.strip()) and "://" in text:
                self.error(location, f"{label}: [labels] maps a label to a label of this "
                           "project; a page that left the site goes in [pages]")
                return
        old, new = normalize_label(key), normalize_label(value)
        if old == new:
            self.error(location, f"{label}: the old and new labels are the same (labels are "
                       "compared lowercase, as Sphinx names them)")
            return
        self._keep(Entry("labels", old, Target(path=new), location), label)

    def _add_pattern(self, key: object, value: object, location: Location, label: str) -> None:
        """A ``[patterns]`` entry: a glob of old docnames and a target template."""
        replace: object = False
        peer = ""
        if isinstance(value, PatternValue):
            replace, peer, value = value.replace, value.peer, value.to
        elif isinstance(value, dict):
            unknown = sorted(str(k) for k in value if k not in ("to", "replace", "peer"))
            if unknown:
                self.error(location, f"{label}: unknown key {unknown[0]!r} (a pattern's table "
                           "has 'to', the target, 'replace' and 'peer')")
                return
            replace = value.get("replace", False)
            if not isinstance(replace, bool):
                self.error(location, f"{label}: 'replace' must be true or false")
                return
            # the extension a glob was written for (``sphinx-relocate import`` keeps it):
            # the check says which documents it matched stay pages, as for conf.py's
            peer = value.get("peer", "")
            if not isinstance(peer, str):
                self.error(location, f"{label}: 'peer' must be the name of an extension")
                return
            value = value.get("to")
        if not isinstance(key, str) or not isinstance(value, str):
            self.error(location, f"{label}: a pattern maps a string to a target string, or to "
                       '{ to = "…", replace = true }')
            return
        if not key.strip() or not value.strip():
            self.error(location, f"{label}: empty {'key' if not key.strip() else 'target'}")
            return
        if not WILDCARDS.search(key):
            self.error(location, f"{label}: no '*', '?' or '[…]' in the key: pages go in [pages]")
            return
        if "#" in key or (_SCHEME.match(key) and not _DRIVE.match(key)):
            self.error(location, f"{label}: a pattern matches page names: no '#' and no URL")
            return
        glob = self._page_key(key, location, label)
        if glob is None:
            return
        try:
            string.Template(value).substitute(source="x")
        except (KeyError, ValueError):
            self.error(location, f"{label}: the target may use only $source or ${{source}} "
                       "(the matched page; write $$ for a $)")
            return
        new = self._new("pages", key, value, location, label)
        if new is None:
            return
        if self._keep(Entry("patterns", glob, new, location, bool(replace)), label):
            self.globs[glob] = (peer, re.compile(fnmatch.translate(glob), re.DOTALL))

    # -- normalization --

    def _check_path(self, text: str, location: Location, label: str) -> str | None:
        if _CLEAN_PATH.fullmatch(text):
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

    def _old(self, section: str, key: str, location: Location, label: str) -> str | None:
        if ":" in key and _SCHEME.match(key) and not _DRIVE.match(key):
            self.error(location, f"{label}: old names are paths in this project, not URLs")
            return None
        if section == "anchors":
            page, sep, anchor = key.partition("#")
            if not sep or not anchor or not page:
                self.error(location, f"{label}: anchor keys are written 'page#old-id'")
                return None
            docname = self._page(page, location, label)
            return None if docname is None else f"{docname}#{anchor}"
        if "#" in key:
            self.error(location, f"{label}: '#' belongs in [anchors], not in [{section}]")
            return None
        if WILDCARDS.search(key):
            self.error(location, f"{label}: '*', '?' and '[…]' make the key a pattern, which "
                       f'goes in [patterns]: {_quoted(key)} = "new/place/$source" ($source is '
                       "the matched page)")
            return None
        if section == "pages":
            if key.endswith("/"):
                self.error(location, f"{label}: folders are moved under [prefixes]")
                return None
            return self._page_key(key, location, label)
        path = self._check_path(key, location, label)
        if path is None:
            return None
        if section == "prefixes":
            return path + "/"
        # a source file here is one that is not a document (an include fragment listed
        # in exclude_patterns); check_against_project warns when it is a document
        return path

    def _page(self, text: str, location: Location, label: str) -> str | None:
        path = self._check_path(text, location, label)
        return None if path is None else strip_source_suffix(path, self.suffixes)[0]

    def _page_key(self, key: str, location: Location, label: str) -> str | None:
        """A key that names a page; ``old.html`` means the page ``old``, never ``old.html.html``."""
        docname = self._page(key, location, label)
        if docname and docname.endswith(".html") and docname.rpartition("/")[2] != ".html":
            docname = docname[: -len(".html")]
            self.note(location, f"{label}: the '.html' suffix was dropped: the key names the "
                      f"page {docname!r}")
        return docname

    def _new(
        self, section: str, key: str, value: str, location: Location, label: str
    ) -> Target | None:
        if ":" in value and value.strip().lower().startswith(_UNSAFE_SCHEMES):
            self.error(location, f"{label}: unsafe target {value!r}")
            return None
        if ":" in value and _SCHEME.match(value) and not _DRIVE.match(value):
            if not re.match(r"^https?://[^/\s]+", value):
                self.error(location, f"{label}: external targets must be http(s) URLs")
                return None
            if any(c.isspace() for c in value):
                self.error(location, f"{label}: URL contains white space")
                return None
            return Target(url=value)
        path_text, _, anchor = value.partition("#")
        if section in ("files", "prefixes") and anchor:
            self.error(location, f"{label}: [{section}] targets cannot have an '#anchor'")
            return None
        if section == "anchors" and not anchor:
            self.error(location, f"{label}: anchor targets are written 'page#new-id'")
            return None
        if section == "anchors" and not path_text:
            path_text = key.partition("#")[0]
        if section == "pages" and value.endswith("/"):
            self.error(location, f"{label}: a page must move to a page, not a folder")
            return None
        path = self._check_path(path_text, location, label)
        if path is None:
            return None
        if section == "prefixes":
            return Target(path=path + "/")
        if section == "files":
            return Target(path=path)
        return Target(path=strip_source_suffix(path, self.suffixes)[0], anchor=anchor)

    # -- whole-table checks --

    def finish(self) -> RelocationTable:
        entries = list(self.entries.values())
        locations = list(map(_LOCATION, entries))
        if not all(map(operator.lt, locations, locations[1:])):  # one file is in order
            entries.sort(key=_BY_LINE)
        patterns = tuple(
            Pattern(e.old, e.new, e.location, e.replace, *self.globs[e.old])
            for e in self.entries.values()  # in the order written: the first match wins
            if e.section == "patterns"
        )
        table = RelocationTable.of_entries(entries, patterns)
        broken = self._cycles(table)
        if broken:
            table = RelocationTable.of_entries(
                (
                    e for e in entries
                    if (e.section if e.section == "labels" else "", e.old) not in broken
                    or e.section in ("anchors", "patterns")
                ),
                patterns,
            )
        self._case_collisions(table)
        return table

    def _cycles(self, table: RelocationTable) -> set[tuple[str, str]]:
        """Report each cycle once, member by member; return the members as
        ``(kind, name)``, kind ``"labels"`` for labels and ``""`` for paths."""
        members: set[tuple[str, str]] = set()
        #: paths whose chain is walked and ends without a cycle: a walk that reaches one
        #: stops there, so the whole check is linear in the table
        settled: set[tuple[str, str]] = set()
        pages, one_step = table.pages, not table.prefixes
        for start, section in [(e.old, e.section) for e in table.entries]:
            if section == "pages" and one_step:
                moved = pages[start]
                if moved.url or moved.path not in pages:
                    continue  # a chain of one step (most entries) has no cycle
            if section == "anchors":
                self._anchor_cycle(table, start, members, settled)
                continue
            if section == "patterns":
                continue
            kind = "labels" if section == "labels" else ""
            section = "pages" if section == "prefixes" else section  # one walk for both
            if (kind, start) in members:
                continue
            probe = start + "\0" if section == "prefixes" else start
            exact = table.files if section == "files" else table.pages
            path, chain = probe, [probe]
            in_chain = {probe}  # for the test of each step: the list is for the message
            while True:
                if kind:
                    new = table.labels.get(path)
                    step = None if new is None else Target(path=new)
                else:
                    step = exact.get(path) or table._prefix_step(path)
                if step is None or step.url or (section, step.path) in settled:
                    settled.update((section, p) for p in chain)
                    break
                path = step.path
                if path in in_chain:
                    cycle = chain[chain.index(path) :]
                    names = [path if kind else self._entry_name(table, path) for path in cycle]
                    self._report_cycle(table, names, kind, members)
                    break
                chain.append(path)
                in_chain.add(path)
                if len(chain) > len(table.entries) + 1:
                    # more steps than entries, and no path twice: folders that move into
                    # each other ("a/" → "b/", "b/" → "a/x/"), the path longer at every
                    # turn; a lookup would never end
                    names = [self._entry_name(table, p) for p in chain]
                    first: dict[str, int] = {}
                    for index, name in enumerate(names):
                        if name in first:  # an entry used twice: the cycle runs through it
                            self._report_cycle(table, names[first[name] : index], kind, members)
                            break
                        first[name] = index
                    break
        return members

    def _anchor_cycle(
        self,
        table: RelocationTable,
        start: str,
        members: set[tuple[str, str]],
        settled: set[tuple[str, str]],
    ) -> None:
        """Report a cycle of ``[anchors]`` entries from ``page#id`` ``start``: each
        target that is itself an anchor key is one more step."""
        key = tuple(start.split("#", 1))
        chain: list[tuple[str, str]] = []
        while key in table.anchors and ("anchors", "#".join(key)) not in settled:
            if key in chain:
                cycle = chain[chain.index(key) :]
                self._report_cycle(table, ["#".join(k) for k in cycle], "", members)
                break
            chain.append(key)  # type: ignore[arg-type]
            step = table.anchors[key]  # type: ignore[index]
            if step.url:
                break
            key = (step.path, step.anchor)
        settled.update(("anchors", "#".join(k)) for k in chain)

    def _report_cycle(
        self, table: RelocationTable, names: list[str], kind: str, members: set[tuple[str, str]]
    ) -> None:
        """One error for the cycle through ``names`` (entry keys), unless reported."""
        if any((kind, n) in members for n in names):
            return
        first = table.location_of(names[0], kind) or Location("<table>")
        self.error(
            first,
            ("label cycle: " if kind else "relocation cycle: ")
            + " → ".join([*(n.rstrip("\0") for n in names), names[0]])
            + " ("
            + ", ".join(f"{n} at {table.location_of(n, kind)}" for n in names)
            + ")",
        )
        members.update((kind, n) for n in names)

    @staticmethod
    def _entry_name(table: RelocationTable, path: str) -> str:
        """The key of the entry that moves ``path`` (a page, file or folder)."""
        if path in table.pages or path in table.files:
            return path
        for old_folder, _ in table.prefixes:
            if path.startswith(old_folder):
                return old_folder
        return path

    def _case_collisions(self, table: RelocationTable) -> None:
        """Old names that differ only by letter case or Unicode normalization (NFC and
        NFD ``café``): one file on macOS and Windows disks, and alike to the eye."""
        old_names = [*table.pages, *table.files]
        if len(set(map(_fold, old_names))) == len(old_names):
            return  # the usual table: no two names collide
        paths = [e for e in table.entries if e.section in ("pages", "files")]
        groups: dict[str, list[Entry]] = {}
        for entry in paths:
            groups.setdefault(_fold(entry.old), []).append(entry)
        for group in groups.values():
            if len(group) > 1:
                if len({_nfc(e.old) for e in group}) == len(group):
                    names = ", ".join(f"{e.old!r} ({e.location})" for e in group)
                    how, where = "letter case", "case-insensitive file systems"
                else:  # shown escaped: the names look the same
                    names = ", ".join(f"{e.old!a} ({e.location})" for e in group)
                    how = "Unicode normalization (NFC and NFD) or letter case"
                    where = "normalizing or case-insensitive file systems (macOS)"
                self.problems.append(
                    Problem(
                        group[-1].location,
                        f"old names differ only by {how}: {names}; they collide on {where}",
                        fatal=False,
                        subtype="case_collision",
                    )
                )


def _nfc(name: str) -> str:
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def _fold(name: str) -> str:
    """A name as a case-insensitive, normalizing file system compares it."""
    return _nfc(name).casefold()


def check_against_project(
    table: RelocationTable,
    docnames: Iterable[str],
    file_exists: Callable[[str], bool],
    suffixes: Iterable[str] = DEFAULT_SOURCE_SUFFIXES,
    labels: Collection[str] | None = None,
) -> list[Problem]:
    """Problems that need the project: targets that are not there, old names still there.

    ``docnames`` are the project's documents; ``file_exists`` answers for a
    source-relative path; ``labels`` are its labels, when known (:func:`check_labels`).
    These are warnings (``target_missing``, ``shadowed``), not fatal: a build can go on
    and report them at the entry's line.
    """
    documents = set(docnames)
    problems: list[Problem] = []
    ordered: list[str] = []

    by_nfc: dict[str, str] | None = None

    def missing(entry: Entry, what: str, page: str = "") -> None:
        nonlocal by_nfc
        if page and not page.isascii():  # a document written with another normalization?
            if by_nfc is None:
                by_nfc = {_nfc(d): d for d in documents if not d.isascii()}
            found = by_nfc.get(_nfc(page))
            if found is not None and found != page:
                what += (f"; the document {found!a} differs from {page!a} only by "
                         "Unicode normalization (NFC and NFD): write the name as it is on disk")
                page = ""
        if page:  # a typo in the target: the document it was probably meant to name
            import difflib  # only when a target is missing

            ordered[:] = ordered or sorted(documents)
            close = difflib.get_close_matches(page, ordered, n=1, cutoff=0.8)
            what += f"; did you mean `{close[0]}`?" if close else ""
        problems.append(Problem(entry.location, what, fatal=False, subtype="target_missing"))

    for entry in table.entries:
        if entry.section in ("pages", "files") and (
            entry.old in documents if entry.section == "pages" else file_exists(entry.old)
        ):
            problems.append(
                Problem(
                    entry.location,
                    f"{entry.old!r} still exists, so its entry is not used "
                    "(delete the old file or the entry)",
                    fatal=False,
                    subtype="shadowed",
                )
            )
            continue
        if entry.section == "pages":
            if entry.new.url or entry.new.path in documents:
                continue  # a chain stops at the first page that exists: this one
            final = table.locate_page(entry.old, documents.__contains__) or entry.new
            if not final.url and final.path not in documents:
                missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a document",
                        final.path)
        elif entry.section == "anchors":
            final = table.anchors[tuple(entry.old.split("#", 1))]  # type: ignore[index]
            settled = table._settle_anchor_target(final, documents.__contains__)
            if not settled.url and settled.path not in documents:
                missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a document",
                        settled.path)
        elif entry.section == "files":
            stem, is_source = strip_source_suffix(entry.new.path, suffixes)
            if not entry.new.url and is_source and stem in documents:
                problems.append(Problem(
                    entry.location,
                    f"{entry.new.path!r} is a document: pages are moved under [pages], "
                    "[files] is for other files (images, downloads, include fragments)",
                    fatal=False,
                ))
                continue
            final = table.locate_file(entry.old, file_exists) or entry.new
            if not final.url and not file_exists(final.path):
                missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a file")
        elif entry.section == "prefixes" and not entry.new.url:
            folder = entry.new.path
            if not any(d.startswith(folder) for d in documents) and not file_exists(
                folder.rstrip("/")
            ):
                missing(entry, f"target folder {folder!r} of {entry.old!r} does not exist")
    problems += _check_patterns(table, documents)
    if labels is not None:
        problems += check_labels(table, labels)
    return problems


def check_labels(
    table: RelocationTable, labels: Collection[str], *, targets: bool = True
) -> list[Problem]:
    """``[labels]`` against the project's labels: an old label that is still one
    (``shadowed``), a target that is not one (``target_missing``, only with ``targets``:
    a caller that knows only some labels checks the keys alone)."""
    problems: list[Problem] = []
    for entry in table.entries:
        if entry.section != "labels":
            continue
        if entry.old in labels:
            problems.append(Problem(
                entry.location,
                f"label {entry.old!r} still exists, so its entry is not used "
                "(delete the label or the entry)",
                fatal=False,
                subtype="shadowed",
            ))
            continue
        final = table.locate_label(entry.old, labels.__contains__) or entry.new.path
        if targets and final not in labels:
            what = f"target {entry.new.path!r} of label {entry.old!r} is not a label"
            if final != entry.new.path:
                what += f" (the chain ends at {final!r})"
            problems.append(Problem(entry.location, what, fatal=False, subtype="target_missing"))
    return problems


def _check_patterns(table: RelocationTable, documents: set[str]) -> list[Problem]:
    """What a pattern does to the documents it matches, and targets that are not there."""
    problems: list[Problem] = []
    for pattern in table.patterns:
        label = f"[patterns] {pattern.glob!r}"
        matched = sorted(d for d in documents if pattern.matches(d))
        if pattern.replace and not matched:
            problems.append(Problem(
                pattern.location, f"{label} replaces no document: it matches none", fatal=False
            ))
        elif pattern.peer and (kept := [d for d in matched if not table.replaced(d)]):
            problems.append(Problem(
                pattern.location,
                f"{label} matches {_some(kept)}, which {pattern.peer} replaced with "
                "redirects; here they stay pages (a pattern replaces documents only with "
                "replace = true, in relocations.toml)",
                fatal=False,
                subtype="shadowed",
            ))
        templated = "$" in str(pattern.to)
        if pattern.replace:
            lost = [d for d in matched if not _lands(table.locate_page(d, documents.__contains__),
                                                      documents)]
        else:
            final = pattern.to if pattern.to.url else (
                table.locate_page(pattern.to.path, documents.__contains__) or pattern.to
            )
            lost = [] if templated or _lands(final, documents) else [""]
        if lost:
            whose = f" (for {_some(lost)})" if lost != [""] else ""
            problems.append(Problem(
                pattern.location,
                f"{label}: target {str(pattern.to)!r}{whose} is not a document",
                fatal=False,
                subtype="target_missing",
            ))
    return problems


def _lands(target: Target | None, documents: set[str]) -> bool:
    return target is not None and (bool(target.url) or target.path in documents)


def _some(names: list[str], shown: int = 3) -> str:
    """``'a', 'b', 'c' and 4 more``: a few names of a long list, for one line."""
    text = ", ".join(map(repr, names[:shown]))
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")
