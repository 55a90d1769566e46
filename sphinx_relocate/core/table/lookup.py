"""The validated table and its chain-following lookups."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sphinx_relocate.core.table.model import (
    PLACEHOLDER,
    Entry,
    Location,
    Pattern,
    Problem,
    Target,
    normalize_label,
)

#: remembered chain ends of one section under one ``exists``: ``(path, pattern step
#: still allowed)`` → ``(path, anchor, url)``, ``None`` for a cycle
Memo = dict[tuple[str, bool], tuple[str, str, str] | None]


@dataclass(frozen=True)
class RelocationTable:
    """The validated table, with chain-following lookups.

    Frozen: the views are given (:meth:`of_entries` makes them from the entries), the
    indexes derived from them are built at construction, and nothing changes them
    after.  What the load found (``warnings``, ``notes``) is given at construction too.
    """

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
    #: new page → the old pages ``[pages]`` sends there in one step
    reverse_pages: dict[str, list[str]] = field(init=False, compare=False, repr=False)
    #: new folder → the old folders ``[prefixes]`` sends there
    reverse_prefixes: dict[str, list[str]] = field(init=False, compare=False, repr=False)
    #: old folder → its target, for one probe per level of a path
    folders: dict[str, Target] = field(init=False, compare=False, repr=False)
    #: the pages of ``[anchors]`` keys (a fragment of any other page keeps its page)
    anchor_pages: frozenset[str] = field(init=False, compare=False, repr=False)
    #: ``(section, old)`` → status of each entry whose status is not 301
    temporary: dict[tuple[str, str], int] = field(init=False, compare=False, repr=False)
    #: walks remembered under each ``exists`` (:meth:`_memo`): a memo of answers that
    #: depend only on the entries and ``exists``, so filling it changes no answer
    _memos: dict[object, Memo] = field(init=False, default_factory=dict, compare=False,
                                       repr=False)

    def __post_init__(self) -> None:
        """Build the indexes derived from the views, once (the only assignments a
        frozen table has)."""
        reverse_pages: dict[str, list[str]] = {}
        for old, target in self.pages.items():
            if not target.url:
                reverse_pages.setdefault(target.path, []).append(old)
        reverse_prefixes: dict[str, list[str]] = {}
        for old_folder, new in self.prefixes:
            if not new.url and new.path:
                reverse_prefixes.setdefault(new.path, []).append(old_folder)
        derived = {
            "reverse_pages": reverse_pages,
            "reverse_prefixes": reverse_prefixes,
            "folders": dict(self.prefixes),
            "anchor_pages": frozenset(page for page, _ in self.anchors),
            "temporary": {(e.section, e.old): e.status for e in self.entries if e.status != 301},
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def __bool__(self) -> bool:
        return bool(self.entries)

    @classmethod
    def of_entries(
        cls,
        entries: Iterable[Entry],
        patterns: tuple[Pattern, ...] = (),
        warnings: tuple[Problem, ...] = (),
        notes: tuple[Problem, ...] = (),
    ) -> RelocationTable:
        """The table of validated ``entries`` (in order), with their compiled
        ``patterns``: the lookups are views of the entries."""
        entries = tuple(entries)
        grouped: defaultdict[str, list[Entry]] = defaultdict(list)
        for entry in entries:
            grouped[entry.section].append(entry)
        return cls(
            pages={e.old: e.new for e in grouped.get("pages", ())},
            files={e.old: e.new for e in grouped.get("files", ())},
            prefixes=tuple(
                sorted(
                    ((e.old, e.new) for e in grouped.get("prefixes", ())),
                    key=lambda item: (-len(item[0]), item[0]),
                )
            ),
            anchors={
                tuple(e.old.split("#", 1)): e.new  # type: ignore[misc]
                for e in grouped.get("anchors", ())
            },
            patterns=patterns,
            labels={e.old: e.new.path for e in grouped.get("labels", ())},
            entries=entries,
            warnings=warnings,
            notes=notes,
        )

    def of_section(self, section: str) -> Iterator[Entry]:
        """The entries of ``section``, in table order."""
        return (e for e in self.entries if e.section == section)

    def __reduce__(self) -> tuple[Callable[..., RelocationTable], tuple[Any, ...]]:
        """Pickled (Sphinx keeps the table in its environment) as rows of strings: a
        fraction of the time and size of the objects, and without the indexes."""
        rows = tuple(
            (e.section, e.old, e.new.path, e.new.anchor, e.new.url, e.location.file,
             e.location.line, e.replace, e.status)
            for e in self.entries
        )
        return _unpickled_table, (rows, self.patterns, self.warnings, self.notes)

    @property
    def digest(self) -> str:
        """A hash of the normalized entries: comments and ordering do not change it."""
        rows = sorted(
            (
                e.section, e.old, e.new.path, e.new.anchor, e.new.url,
                *((True,) if e.replace else ()), *((e.status,) if e.status != 301 else ()),
            )
            for e in self.entries
        )
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()

    def location_of(self, old: str, section: str = "") -> Location | None:
        """Where the entry that moves ``old`` (a docname, file path or folder) was
        written; with ``section``, the entry of that section (``"labels"``: labels are
        names of their own)."""
        if section:
            return next((e.location for e in self.of_section(section) if e.old == old), None)
        for entry in self.entries:
            if entry.old == old and entry.section != "labels":
                return entry.location
        for entry in self.of_section("prefixes"):
            if old.startswith(entry.old):
                return entry.location
        for pattern in self.patterns:
            if pattern.matches(old):
                return pattern.location
        return None

    def status_of(self, old: str) -> int:
        """The HTTP status of the server rule for ``old`` (a docname, or a folder
        ``guide/``): that of the entry that takes its first step, as the chain is walked
        (its ``[pages]`` entry, else the longest ``[prefixes]`` folder that holds it, else
        the first pattern that matches); 301 when none does."""
        if not self.temporary:
            return 301
        if old in self.pages:
            return self.temporary.get(("pages", old), 301)
        end = len(old)
        while self.prefixes and (end := old.rfind("/", 0, end)) > 0:
            if old[: end + 1] in self.folders:
                return self.temporary.get(("prefixes", old[: end + 1]), 301)
        return next((p.status for p in self.patterns if p.matches(old)), 301)

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
            return self.settle_anchor_target(self.anchors[docname, fragment], exists)
        target = self.locate_page(docname, exists)
        if target is None or target.url:
            return target
        if fragment:
            if (target.path, fragment) in self.anchors:
                return self.settle_anchor_target(self.anchors[target.path, fragment], exists)
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
        """Every old docname that the table sends to ``docname`` (for old-folder resolution).

        Walking back through ``[prefixes]``, a name takes each entry at most once: a move
        happened once, and entries that feed each other (``guide/old/`` → ``guide/``,
        as ``from-git`` derives for a flattened folder) would make names nested deeper
        for ever (``guide/old/old/a``; JupyterHub's build hung on it)."""
        found: set[str] = set()
        pending: list[tuple[str, frozenset[str]]] = [(docname, frozenset())]
        reverse_pages, reverse_prefixes = self.reverse_pages, self.reverse_prefixes
        while pending:
            current, used = pending.pop()
            olds = reverse_pages.get(current)
            if olds:
                new = set(olds).difference(found)
                new.discard(docname)
                found.update(new)
                pending.extend((name, used) for name in new)
            # the folders that moves created and that contain current: one probe per level
            end = 0
            while reverse_prefixes and (end := current.find("/", end) + 1) > 0:
                new_folder = current[:end]
                for old_folder in reverse_prefixes.get(new_folder, ()):
                    candidate = old_folder + current[end:]
                    if old_folder in used or candidate in found or candidate == docname:
                        continue
                    if self._page_step(candidate) == Target(path=current) and (
                        candidate not in self.pages
                    ):
                        found.add(candidate)
                        pending.append((candidate, used | {old_folder}))
            for candidate in self._pattern_sources(current) if self.patterns else ():
                if candidate not in found and candidate != docname:
                    found.add(candidate)
                    pending.append((candidate, used))
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
            parts = PLACEHOLDER.split(pattern.to.path)
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

    def prefix_step(self, path: str) -> Target | None:
        """Where the longest moved folder that holds ``path`` sends it, one step."""
        if not self.prefixes:
            return None
        folders = self.folders
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
        return self.pages.get(path) or self.prefix_step(path)

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
        if memo is not None and (start, patterned) in memo:  # most lookups: walked before
            ends = memo[start, patterned]
        else:
            ends = self._walk(start, patterned, exact, exists, memo)
        if ends is None:
            return None
        path, anchor, url = ends
        if path == start and not anchor and not url:
            return None
        return Target(path, anchor, url)

    def _memo(
        self, kind: str, exists: Callable[[str], bool] | None
    ) -> Memo | None:
        """The remembered chain ends of one section (``pages``, ``files``, ``labels``)
        under ``exists``."""
        owner = getattr(exists, "__self__", None)
        # a set that grew or shrank is other answers (a cheap guard; callers do not)
        key = (kind, exists, len(owner) if isinstance(owner, Collection) else -1)
        memos = self._memos
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
        memo: Memo | None,
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
            step = exact.get(path) or self.prefix_step(path)
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

    def settle_anchor_target(self, target: Target, exists: Callable[[str], bool] | None) -> Target:
        """Where an anchor entry's ``target`` lands: its page followed, its anchor kept."""
        if target.url or (exists is not None and exists(target.path)):
            return target
        moved = self.locate_page(target.path, exists)
        if moved is None or moved.url:
            return moved or target
        return Target(path=moved.path, anchor=target.anchor or moved.anchor)



def _unpickled_table(
    rows: tuple[tuple[str, str, str, str, str, str, int, bool, int], ...],
    patterns: tuple[Pattern, ...],
    warnings: tuple[Problem, ...],
    notes: tuple[Problem, ...],
) -> RelocationTable:
    """A table from the rows :meth:`RelocationTable.__reduce__` pickled."""
    locations: dict[tuple[str, int], Location] = {}
    entries = []
    for section, old, path, anchor, url, file, line, replace, status in rows:
        location = locations.get((file, line))
        if location is None:
            location = locations[file, line] = Location(file, line)
        entries.append(Entry(section, old, Target(path, anchor, url), location, replace, status))
    return RelocationTable.of_entries(entries, patterns, warnings, notes)

