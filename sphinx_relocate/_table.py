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
* Chains collapse (A→B, B→C gives A→C) and cycles are refused.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ._paths import DEFAULT_SOURCE_SUFFIXES, strip_source_suffix

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SECTIONS = ("pages", "prefixes", "files", "anchors")
_UNSAFE_SCHEMES = ("javascript:", "data:", "vbscript:", "file:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True, order=True)
class Location:
    """Where an entry was written: a file and a 1-based line (0 when unknown)."""

    file: str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a table; ``fatal`` ones stop a build."""

    location: Location
    message: str
    fatal: bool = True
    #: a :class:`~sphinx_relocate._warnings.RelocateWarning` value for non-fatal ones
    subtype: str = "table"

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclass(frozen=True)
class Target:
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


@dataclass(frozen=True)
class Entry:
    """One normalized line of the table, kept for messages and the digest."""

    section: str
    old: str
    new: Target
    location: Location


@dataclass
class RelocationTable:
    """The validated table, with chain-following lookups."""

    pages: dict[str, Target] = field(default_factory=dict)
    files: dict[str, Target] = field(default_factory=dict)
    #: ``(old_folder/, new_folder/ or URL)``, longest old folder first
    prefixes: tuple[tuple[str, Target], ...] = ()
    anchors: dict[tuple[str, str], Target] = field(default_factory=dict)
    entries: tuple[Entry, ...] = ()
    #: problems found while loading that do not stop a build (case collisions)
    warnings: tuple[Problem, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.entries)

    @property
    def digest(self) -> str:
        """A hash of the normalized entries: comments and ordering do not change it."""
        rows = sorted((e.section, e.old, e.new.path, e.new.anchor, e.new.url) for e in self.entries)
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()

    def location_of(self, old: str) -> Location | None:
        """Where the entry that moves ``old`` (a docname, file path or folder) was written."""
        for entry in self.entries:
            if entry.old == old:
                return entry.location
        for entry in self.entries:
            if entry.section == "prefixes" and old.startswith(entry.old):
                return entry.location
        return None

    # -- lookups ---------------------------------------------------------------

    def locate_page(
        self, docname: str, exists: Callable[[str], bool] | None = None
    ) -> Target | None:
        """Where the page ``docname`` went, following chains; ``None`` if it did not move.

        With ``exists``, the chain stops at the first docname that exists, so a table
        whose targets are themselves old names of other pages still lands on real pages.
        """
        return self._follow(docname, self.pages, exists)

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

    def old_names(self, docname: str) -> tuple[str, ...]:
        """Every old docname that the table sends to ``docname`` (for old-folder resolution)."""
        found: set[str] = set()
        pending = [docname]
        while pending:
            current = pending.pop()
            for old in self._reverse_pages().get(current, ()):
                if old not in found and old != docname:
                    found.add(old)
                    pending.append(old)
            # the folders that moves created and that contain current: one probe per level
            end = 0
            while (end := current.find("/", end) + 1) > 0:
                for old_folder in self._reverse_prefixes().get(current[:end], ()):
                    candidate = old_folder + current[end:]
                    if candidate in found or candidate == docname:
                        continue
                    if self._page_step(candidate) == Target(path=current) and (
                        candidate not in self.pages
                    ):
                        found.add(candidate)
                        pending.append(candidate)
        return tuple(sorted(found))

    # -- internals -------------------------------------------------------------

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

    def _follow(
        self, start: str, exact: Mapping[str, Target], exists: Callable[[str], bool] | None
    ) -> Target | None:
        path, anchor, url = start, "", ""
        seen = {start}
        while True:
            step = exact.get(path) or self._prefix_step(path)
            if step is None:
                break
            path, anchor, url = step.path, step.anchor or anchor, step.url
            if url or (exists is not None and exists(path)):
                break
            if path in seen:  # a cycle; load_table refuses these
                return None
            seen.add(path)
        if path == start and not anchor and not url:
            return None
        return Target(path, anchor, url)

    def _settle_anchor_target(self, target: Target, exists: Callable[[str], bool] | None) -> Target:
        if target.url or (exists is not None and exists(target.path)):
            return target
        moved = self.locate_page(target.path, exists)
        if moved is None or moved.url:
            return moved or target
        return Target(path=moved.path, anchor=target.anchor or moved.anchor)


# -- loading -------------------------------------------------------------------


def load_table(
    table_file: Path | None,
    mapping: Mapping[object, object] | None = None,
    *,
    mapping_file: str = "conf.py",
    mapping_text: str | None = None,
    source_suffixes: Iterable[str] = DEFAULT_SOURCE_SUFFIXES,
    display_name: str | None = None,
) -> tuple[RelocationTable, list[Problem]]:
    """Read a TOML table and/or a ``relocate_map`` dict into one validated table.

    Returns the table built from every valid entry and the list of problems; a
    caller must not go on when any of them is ``fatal``.
    ``display_name`` is how the table file is named in messages (default: its path).
    """
    suffixes = tuple(source_suffixes) or DEFAULT_SOURCE_SUFFIXES
    problems: list[Problem] = []
    raw: list[tuple[str, object, object, Location]] = []

    if table_file is not None:
        name = display_name or str(table_file)
        raw.extend(_read_toml(table_file, name, problems))
    if mapping:
        lines = _mapping_lines(mapping_text or "")
        for key, value in mapping.items():
            line = lines.get(key, 0) if isinstance(key, str) else 0
            line = line or lines.get("", 1)
            raw.append(("pages", key, value, Location(mapping_file, line)))

    builder = _Builder(suffixes, problems)
    for section, key, value, location in raw:
        builder.add(section, key, value, location)
    table = builder.finish()
    table.warnings = tuple(p for p in problems if not p.fatal)
    return table, problems


def _read_toml(
    path: Path, name: str, problems: list[Problem]
) -> list[tuple[str, object, object, Location]]:
    try:
        data = path.read_bytes()
    except OSError as err:
        problems.append(Problem(Location(name), f"cannot read the table: {err.strerror or err}"))
        return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        problems.append(Problem(Location(name, line), "the table is not valid UTF-8"))
        return []
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
    rows: list[tuple[str, object, object, Location]] = []
    for section, body in document.items():
        location = Location(name, lines.get((section, None), 0))
        if section not in SECTIONS:
            problems.append(
                Problem(
                    location,
                    f"unknown section [{section}] (expected one of: "
                    + ", ".join(f"[{s}]" for s in SECTIONS)
                    + ")",
                )
            )
            continue
        if not isinstance(body, dict):
            problems.append(Problem(location, f"[{section}] must be a table of old = new entries"))
            continue
        for key, value in body.items():
            rows.append((section, key, value, Location(name, lines.get((section, key), 0))))
    return rows


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


_HEADER = re.compile(r"^\s*\[(?!\[)(.+?)\]\s*(#.*)?$")


def _toml_lines(text: str) -> dict[tuple[str, str | None], int]:
    """Map ``(section, key)`` to its 1-based line; ``(section, None)`` to the header line.

    tomllib keeps no positions, so a light scan of the text recovers them.
    """
    lines: dict[tuple[str, str | None], int] = {}
    section = ""
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            section = _decode_key(header.group(1)) or header.group(1).strip()
            lines.setdefault((section, None), number)
            continue
        key_text = _split_key(line)
        if key_text is None or not key_text.strip():
            continue
        key = _decode_key(key_text)
        if key is None:
            continue
        if not section and "." in key:  # dotted top-level key: pages."a" = "b"
            head, _, rest = key.partition(".")
            lines.setdefault((head, rest), number)
            lines.setdefault((head, None), number)
        else:
            lines.setdefault((section, key), number)
            if not section:  # a top-level "pages = ..." stands where a header would
                lines.setdefault((key, None), number)
    return lines


def _mapping_lines(conf_text: str) -> dict[str, int]:
    """Line numbers of quoted keys in conf.py, so ``relocate_map`` entries get a location.

    A key that cannot be found gets the line that names ``relocate_map`` (key ``""``).
    """
    found: dict[str, int] = {}
    for number, line in enumerate(conf_text.splitlines(), 1):
        if "relocate_map" in line:
            found.setdefault("", number)
        for match in re.finditer(r"""(["'])([^"'\n]+)\1\s*:""", line):
            found.setdefault(match.group(2), number)
    return found


class _Builder:
    """Turns raw rows into a table, collecting every problem on the way."""

    def __init__(self, suffixes: tuple[str, ...], problems: list[Problem]) -> None:
        self.suffixes = suffixes
        self.problems = problems
        self.entries: dict[tuple[str, str], Entry] = {}

    def error(self, location: Location, message: str) -> None:
        self.problems.append(Problem(location, message))

    def add(self, section: str, key: object, value: object, location: Location) -> None:
        label = f"[{section}] {key!r}"
        if not isinstance(key, str) or not isinstance(value, str):
            self.error(location, f"{label}: keys and values must be strings")
            return
        if not key.strip() or not value.strip():
            self.error(location, f"{label}: empty {'key' if not key.strip() else 'value'}")
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
        previous = self.entries.get((section, old))
        if previous is not None:
            if previous.new != new:
                self.error(
                    location,
                    f"{label}: the same old name as the entry at {previous.location} "
                    f"(which moves it to {previous.new}); an old name may appear only once",
                )
            return
        self.entries[section, old] = Entry(section, old, new, location)

    # -- normalization --

    def _check_path(self, text: str, location: Location, label: str) -> str | None:
        if "\\" in text:
            self.error(location, f"{label}: use forward slashes, not backslashes")
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
        if _SCHEME.match(key) and not re.match(r"^[A-Za-z]:[/\\]", key):
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
        if section == "pages":
            if key.endswith("/"):
                self.error(location, f"{label}: folders are moved under [prefixes]")
                return None
            return self._page(key, location, label)
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

    def _new(
        self, section: str, key: str, value: str, location: Location, label: str
    ) -> Target | None:
        lowered = value.strip().lower()
        if lowered.startswith(_UNSAFE_SCHEMES):
            self.error(location, f"{label}: unsafe target {value!r}")
            return None
        if _SCHEME.match(value) and not re.match(r"^[A-Za-z]:[/\\]", value):
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
        entries = sorted(self.entries.values(), key=lambda e: (e.location, e.section, e.old))
        prefixes = sorted(
            ((e.old, e.new) for e in entries if e.section == "prefixes"),
            key=lambda item: (-len(item[0]), item[0]),
        )
        table = RelocationTable(
            pages={e.old: e.new for e in entries if e.section == "pages"},
            files={e.old: e.new for e in entries if e.section == "files"},
            prefixes=tuple(prefixes),
            anchors={
                tuple(e.old.split("#", 1)): e.new  # type: ignore[misc]
                for e in entries
                if e.section == "anchors"
            },
            entries=tuple(entries),
        )
        broken = self._cycles(table)
        if broken:
            table = RelocationTable(
                pages={k: v for k, v in table.pages.items() if k not in broken},
                files={k: v for k, v in table.files.items() if k not in broken},
                prefixes=tuple(p for p in table.prefixes if p[0] not in broken),
                anchors=table.anchors,
                entries=tuple(e for e in entries if e.old not in broken),
            )
        self._case_collisions(table)
        return table

    def _cycles(self, table: RelocationTable) -> set[str]:
        """Report each cycle once, member by member; return the members."""
        members: set[str] = set()
        starts = [(e.old, e.section) for e in table.entries if e.section != "anchors"]
        for start, section in starts:
            if start in members:
                continue
            probe = start + "\0" if section == "prefixes" else start
            exact = table.files if section == "files" else table.pages
            path, chain = probe, [probe]
            while True:
                step = exact.get(path) or table._prefix_step(path)
                if step is None or step.url:
                    break
                path = step.path
                if path in chain:
                    cycle = chain[chain.index(path) :]
                    names = [self._entry_name(table, p) for p in cycle]
                    if not any(n in members for n in names):
                        first = table.location_of(names[0]) or Location("<table>")
                        self.error(
                            first,
                            "relocation cycle: "
                            + " → ".join([*(n.rstrip("\0") for n in names), names[0]])
                            + " ("
                            + ", ".join(f"{n} at {table.location_of(n)}" for n in names)
                            + ")",
                        )
                        members.update(names)
                    break
                chain.append(path)
                if len(chain) > len(table.entries) + 2:
                    break
        return members

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
        groups: dict[str, list[Entry]] = {}
        for entry in table.entries:
            if entry.section in ("pages", "files"):
                groups.setdefault(entry.old.casefold(), []).append(entry)
        for group in groups.values():
            if len(group) > 1:
                names = ", ".join(f"{e.old!r} ({e.location})" for e in group)
                self.problems.append(
                    Problem(
                        group[-1].location,
                        f"old names differ only by letter case: {names}; they collide on "
                        "case-insensitive file systems",
                        fatal=False,
                        subtype="case_collision",
                    )
                )


def check_against_project(
    table: RelocationTable,
    docnames: Iterable[str],
    file_exists: Callable[[str], bool],
    suffixes: Iterable[str] = DEFAULT_SOURCE_SUFFIXES,
) -> list[Problem]:
    """Problems that need the project: targets that are not there, old names still there.

    ``docnames`` are the project's documents; ``file_exists`` answers for a
    source-relative path.  These are warnings (``target_missing``, ``shadowed``), not
    fatal: a build can go on and report them at the entry's line.
    """
    documents = set(docnames)
    problems: list[Problem] = []

    def missing(entry: Entry, what: str) -> None:
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
            final = table.locate_page(entry.old, documents.__contains__) or entry.new
            if not final.url and final.path not in documents:
                missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a document")
        elif entry.section == "anchors":
            final = table.anchors[tuple(entry.old.split("#", 1))]  # type: ignore[index]
            settled = table._settle_anchor_target(final, documents.__contains__)
            if not settled.url and settled.path not in documents:
                missing(entry, f"target {str(entry.new)!r} of {entry.old!r} is not a document")
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
    return problems
