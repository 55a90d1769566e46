"""Loading: rows from the TOML file, conf.py and the peers, normalized into one
validated, frozen table, and every problem on the way."""

from __future__ import annotations

import contextlib
import gc
import operator
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from sphinx_relocate.core.paths import DEFAULT_SOURCE_SUFFIXES
from sphinx_relocate.core.table.lookup import RelocationTable
from sphinx_relocate.core.table.model import Entry, Location, Pattern, Problem, Row, Target
from sphinx_relocate.core.table.reader import mapping_lines, read_toml
from sphinx_relocate.core.table.sections import SECTIONS, Chain, Normalizer, fold, nfc


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
    table_bytes: bytes | None = None,
) -> tuple[RelocationTable, list[Problem]]:
    """Read a TOML table and/or a ``relocate_map`` dict into one validated table.

    Returns the table built from every valid entry and the list of problems; a
    caller must not go on when any of them is ``fatal``.
    ``display_name`` is how the table file is named in messages (default: its path).
    ``peer_rows`` are entries converted from another extension's config
    (:mod:`sphinx_relocate.core.peers`), validated like the rest; ``peer_problems`` are what
    went wrong reading them.  Notes go to ``table.notes``, not to the problems; the
    problems that are not fatal are also the table's ``warnings``.  ``table_bytes``: the
    table file as a command would write it, read instead of the file.
    """
    with collection_paused():
        return _load_table(
            table_file, mapping, mapping_file, mapping_text, source_suffixes, display_name,
            peer_rows, peer_problems, table_bytes,
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
    table_bytes: bytes | None = None,
) -> tuple[RelocationTable, list[Problem]]:
    suffixes = tuple(source_suffixes) or DEFAULT_SOURCE_SUFFIXES
    problems: list[Problem] = list(peer_problems)
    raw: list[Row] = []

    if table_file is not None:
        name = display_name or str(table_file)
        raw.extend(read_toml(table_file, name, SECTIONS, problems, table_bytes))
    if mapping:
        lines = mapping_lines(mapping_text or "")
        for key, value in mapping.items():
            line = lines.get(key, 0) if isinstance(key, str) else 0
            line = line or lines.get("", 1)
            raw.append(("pages", key, value, Location(mapping_file, line)))
    raw.extend(peer_rows)

    builder = _Builder(suffixes, problems)
    builder.add_all(raw)
    table = builder.finish()
    return table, [p for p in problems if p.subtype != "note"]


#: the sections whose old names are files on disk
_ON_DISK = frozenset(name for name, section in SECTIONS.items() if section.on_disk)
#: an :class:`Entry`'s place in the table: its location, then section and old name
_BY_LINE = operator.itemgetter(3, 0, 1)
_LOCATION = operator.itemgetter(3)


class _Builder:
    """Turns rows into a table: each normalized by its section, then the checks of the
    whole table (cycles, names that collide on disk)."""

    def __init__(self, suffixes: tuple[str, ...], problems: list[Problem]) -> None:
        self.normalizer = Normalizer(suffixes, problems)
        self.problems = problems
        self.entries: dict[tuple[str, str], Entry] = {}

    def error(self, location: Location, message: str) -> None:
        self.problems.append(Problem(location, message))

    def add_all(self, rows: Iterable[Row]) -> None:
        """Normalize each row (by its section's shortcut when it has the common shape)
        and keep its entry."""
        normalizer, entries = self.normalizer, self.entries
        for section, key, value, location in rows:
            rules = SECTIONS[section]
            entry = rules.plain(normalizer, key, value, location) if rules.plain else None
            if entry is None:
                entry = normalizer.entry(rules, key, value, location)
            if entry is None:
                continue
            previous = entries.get((section, entry.old))
            if previous is None:
                entries[section, entry.old] = entry
            elif (previous.new, previous.replace, previous.status) != (
                entry.new, entry.replace, entry.status
            ):
                # the same move written twice is kept once; another move is an error
                self.error(
                    entry.location,
                    f"[{section}] {key!r}: the same old name as the entry at "
                    f"{previous.location} (which moves it to {previous.new}); an old name "
                    "may appear only once",
                )

    def finish(self) -> RelocationTable:
        entries = list(self.entries.values())
        locations = list(map(_LOCATION, entries))
        if not all(map(operator.lt, locations, locations[1:])):  # one file is in order
            entries.sort(key=_BY_LINE)
        patterns = tuple(
            Pattern(glob, entry.new, entry.location, entry.replace, peer, entry.status, regex)
            # in the order written: the first match wins
            for glob, (peer, regex) in self.normalizer.globs.items()
            for entry in [self.entries["patterns", glob]]
        )
        collisions = self._case_collisions(entries)
        table = self._table(entries, patterns, collisions)
        broken = self._cycles(table)
        if broken:  # a walk of what is left ends (anchors are walked on their own)
            entries = [
                e for e in entries
                if (_kind(e), e.old) not in broken
                or SECTIONS[e.section].chain in (Chain.ANCHORS, Chain.NONE)
            ]
            collisions = self._case_collisions(entries)
            table = self._table(entries, patterns, collisions)
        self.problems += collisions
        return table

    def _table(
        self, entries: list[Entry], patterns: tuple[Pattern, ...], collisions: list[Problem]
    ) -> RelocationTable:
        """The table of ``entries``, with what loading found that does not stop a build
        (the cycles :meth:`_cycles` reports do)."""
        found = [*self.problems, *collisions]
        return RelocationTable.of_entries(
            entries,
            patterns,
            warnings=tuple(p for p in found if not p.fatal and p.subtype != "note"),
            notes=tuple(p for p in found if p.subtype == "note"),
        )

    def _cycles(self, table: RelocationTable) -> set[tuple[str, str]]:
        """Report each cycle once, member by member; return the members as
        ``(kind, name)``, kind ``"labels"`` for labels and ``""`` for paths."""
        members: set[tuple[str, str]] = set()
        #: paths whose chain is walked and ends without a cycle: a walk that reaches one
        #: stops there, so the whole check is linear in the table
        settled: set[tuple[str, str]] = set()
        pages, one_step = table.pages, not table.prefixes
        for entry in table.entries:
            start, walk = entry.old, SECTIONS[entry.section].chain
            if walk is Chain.PAGES and one_step:
                moved = pages[start]
                if moved.url or moved.path not in pages:
                    continue  # a chain of one step (most entries) has no cycle
            if walk is Chain.ANCHORS:
                self._anchor_cycle(table, start, members, settled)
                continue
            if walk is Chain.NONE:
                continue
            kind = _kind(entry)
            if (kind, start) in members:
                continue
            exact = table.files if walk is Chain.FILES else table.pages
            path, chain = start, [start]
            in_chain = {start}  # for the test of each step: the list is for the message
            while True:
                if kind:
                    new = table.labels.get(path)
                    step = None if new is None else Target(path=new)
                else:
                    step = exact.get(path) or table.prefix_step(path)
                if step is None or step.url or (walk.value, step.path) in settled:
                    settled.update((walk.value, p) for p in chain)
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
            + " → ".join([*names, names[0]])
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

    @staticmethod
    def _case_collisions(entries: list[Entry]) -> list[Problem]:
        """Old names that differ only by letter case or Unicode normalization (NFC and
        NFD ``café``): one file on macOS and Windows disks, and alike to the eye."""
        paths = [e for e in entries if e.section in _ON_DISK]
        if len({fold(e.old) for e in paths}) == len(paths):
            return []  # the usual table: no two names collide
        problems = []
        groups: dict[str, list[Entry]] = {}
        for entry in paths:
            groups.setdefault(fold(entry.old), []).append(entry)
        for group in groups.values():
            if len(group) > 1:
                if len({nfc(e.old) for e in group}) == len(group):
                    names = ", ".join(f"{e.old!r} ({e.location})" for e in group)
                    how, where = "letter case", "case-insensitive file systems"
                else:  # shown escaped: the names look the same
                    names = ", ".join(f"{e.old!a} ({e.location})" for e in group)
                    how = "Unicode normalization (NFC and NFD) or letter case"
                    where = "normalizing or case-insensitive file systems (macOS)"
                problems.append(
                    Problem(
                        group[-1].location,
                        f"old names differ only by {how}: {names}; they collide on {where}",
                        fatal=False,
                        subtype="case_collision",
                    )
                )
        return problems


def _kind(entry: Entry) -> str:
    """The names a cycle of ``entry`` is one of: ``"labels"``, or ``""`` for paths."""
    return "labels" if SECTIONS[entry.section].chain is Chain.LABELS else ""
