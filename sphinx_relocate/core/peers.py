"""Read the redirect tables of sphinx-reredirects and sphinxext-rediraffe as they are.

A project that replaces one of them with sphinx-relocate keeps its config: ``redirects``
(sphinx-reredirects) and ``rediraffe_redirects`` (sphinxext-rediraffe, a dict or a file)
become the rows a ``relocations.toml`` would hold, for the one table builder of
:mod:`sphinx_relocate.core.table`.  So they are validated like the rest of the table, and
every problem names the conf.py line or the line of the redirects file.  Nothing here
imports Sphinx.

What each peer means, read from its source and its tests:

* sphinx-reredirects: a key is a docname, or a glob of docnames (``*``, ``?``, ``[seq]``,
  matched as ``fnmatch`` does, ``*`` across ``/``).  A value is the URL its redirect page
  links to, so a relative one is read from the old page's folder (``"faq/old":
  "new.html"`` is ``faq/new``), a ``/…`` one from the site root; ``.html`` (or
  ``html_file_suffix``) or a trailing ``/`` names a page; ``#anchor`` is kept and an
  ``http(s)://`` URL stays a URL.  ``$source`` / ``${source}`` is the matched docname.
  It replaced the documents a glob matched with redirects; a pattern here does that only
  with ``replace = true``, so a converted glob applies to old names and references, and
  the check says which documents stay pages.  Of several globs the last written won; in
  ``[patterns]`` the first wins, so they are converted in reverse order.
* sphinxext-rediraffe: keys and values are source paths relative to the source folder,
  with or without the source suffix, with ``/`` or ``\\``, read as Windows paths (so a
  trailing ``/`` is dropped: ``"guide/install/"`` is ``guide/install``).  Its file has
  one ``old new`` pair a line, separated by white space, either side in ``"…"`` or
  ``'…'`` (no escapes: a quote that does not close stays part of the name); a line that
  starts with ``#`` is a comment.  Chains collapse and loops are refused, as the table
  does anyway.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath

from sphinx_relocate.core.paths import join_relative, leaves_root
from sphinx_relocate.core.spans import REDIRECT_PAIR
from sphinx_relocate.core.table import (
    WILDCARDS,
    Entry,
    Location,
    PatternValue,
    Problem,
    RelocationTable,
    Row,
    load_table,
)
from sphinx_relocate.core.table.checks import some
from sphinx_relocate.core.table.model import SCHEME
from sphinx_relocate.core.table.reader import mapping_lines

#: Each peer's config value, the extension that owns it and the module it is loaded as.
PEERS: dict[str, tuple[str, str]] = {
    "redirects": ("sphinx-reredirects", "sphinx_reredirects"),
    "rediraffe_redirects": ("sphinxext-rediraffe", "sphinxext.rediraffe"),
}



@dataclass
class Converted:
    """The rows a peer's config converts to, what was written for each, and problems."""

    rows: list[Row] = field(default_factory=list)
    #: for each row, the option and the entry as the peer's config wrote it
    written: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def add(self, row: Row, written: str) -> None:
        self.rows.append(row)
        self.written.append(written)


def convert(
    values: Mapping[str, object],
    *,
    conf_file: str,
    conf_text: str,
    srcdir: Path,
    shown: Callable[[Path], str] = str,
    html_suffix: str = ".html",
    is_document: Callable[[str], bool] = lambda docname: False,
) -> Converted:
    """Rows for each peer option in ``values`` (option name → its value in conf.py).

    ``conf_text`` finds each key's line; ``srcdir`` is where rediraffe's file name is
    read from, ``shown`` how that file is named in messages; ``is_document`` tells
    whether a folder URL (``"guide/"``) is the page ``guide`` or ``guide/index``.
    """
    converted = Converted()
    for name, value in values.items():
        where = _key_locations(conf_file, conf_text, name)
        if name == "redirects":
            _reredirects(value, where, html_suffix, is_document, converted)
        elif name == "rediraffe_redirects":
            _rediraffe(value, where, srcdir, shown, converted)
    return converted


# -- sphinx-reredirects ---------------------------------------------------------------


def _reredirects(
    redirects: object,
    where: Callable[[object], Location],
    html_suffix: str,
    is_document: Callable[[str], bool],
    converted: Converted,
) -> None:
    if not isinstance(redirects, dict):
        converted.problems.append(Problem(
            where(None), "redirects must be a dict of old page → target URL (sphinx-reredirects)"
        ))
        return
    globs: list[tuple[Row, str]] = []
    for key, value in redirects.items():
        location = where(key)
        written = f"redirects {_shown_entry(key, value, ': ')}"
        if not isinstance(key, str) or not isinstance(value, str):
            converted.add(("pages", key, value, location), written)  # the builder says why
            continue
        old = key.rstrip("/") or key  # as sphinx-reredirects reads "install/"
        if html_suffix != ".html" and old.endswith(html_suffix):
            old = old[: -len(html_suffix)]  # ".html" itself is dropped by the table, with a note
        wildcard = WILDCARDS.search(old)
        pattern = wildcard is not None
        folder = posixpath.dirname(old[: wildcard.start()] if wildcard else old)
        target = _reredirects_target(
            folder, value, html_suffix, None if pattern else is_document, location, converted
        )
        if target is None:
            continue
        if pattern and not SCHEME.match(value.strip()) and not value.strip().startswith("/"):
            converted.problems.append(Problem(
                location,
                f"redirects {key!r}: the relative target is read from the folder the key "
                f"names ({repr(folder) if folder else 'the top'}); sphinx-reredirects read it "
                "from each matched page's folder, which differs for pages in its subfolders",
                fatal=False,
                subtype="note",
            ))
        if pattern:
            row: Row = ("patterns", old, PatternValue(target, peer="sphinx-reredirects"), location)
            globs.append((row, written))
        else:
            converted.add(("pages", old, target, location), written)
    for row, written in reversed(globs):  # the last glob won there, the first wins here
        converted.add(row, written)


def _reredirects_target(
    folder: str,
    value: str,
    html_suffix: str,
    is_document: Callable[[str], bool] | None,
    location: Location,
    converted: Converted,
) -> str | None:
    """A sphinx-reredirects target URL as a table value: a URL, or ``docname#anchor``.

    ``is_document`` is ``None`` for a glob's target, which names no page until matched.
    """
    if SCHEME.match(value.strip()):
        return value.strip()  # the table checks the scheme
    path, hash_sign, anchor = value.strip().partition("#")
    label = f"redirects target {value!r}"
    if "?" in path:
        converted.problems.append(Problem(
            location, f"{label}: a page target cannot keep a query string; use a full URL"
        ))
        return None
    if not path:
        converted.problems.append(Problem(location, f"{label}: names no page"))
        return None
    joined = join_relative(folder, path)
    if leaves_root(joined):
        converted.problems.append(Problem(location, f"{label}: leads above the site's root"))
        return None
    if path.endswith("/") or posixpath.basename(path) in (".", ".."):
        # a folder URL: the page 'guide' under dirhtml, or 'guide/index'
        index = f"{joined}/index" if joined else "index"
        if not joined or (is_document is not None and not is_document(joined)
                          and is_document(index)):
            joined = index
    else:
        for suffix in dict.fromkeys((html_suffix, ".html")):
            if suffix and joined.endswith(suffix) and len(joined) > len(suffix):
                joined = joined[: -len(suffix)]
                break
    return joined + (f"#{anchor}" if hash_sign else "")


# -- sphinxext-rediraffe --------------------------------------------------------------


def _rediraffe(
    setting: object,
    where: Callable[[object], Location],
    srcdir: Path,
    shown: Callable[[Path], str],
    converted: Converted,
) -> None:
    pairs: list[tuple[object, object, Location, str]]
    if setting is None:  # rediraffe's default: nothing to redirect
        return
    if isinstance(setting, dict):
        pairs = [
            (old, new, where(old), f"rediraffe_redirects {_shown_entry(old, new, ': ')}")
            for old, new in setting.items()
        ]
    elif isinstance(setting, str) and setting.strip():
        path = srcdir / setting
        pairs = [
            (old, new, location, line)
            for old, new, location, line in read_rediraffe_file(
                path, shown(path), converted.problems
            )
        ]
    else:
        converted.problems.append(Problem(
            where(None),
            "rediraffe_redirects must be a dict of old → new source paths or the name of a "
            "file of them (sphinxext-rediraffe)",
        ))
        return
    for old, new, location, written in pairs:
        converted.add(("pages", _forward(old), _forward(new), location), written)


def _forward(path: object) -> object:
    """A path as rediraffe reads it, as a Windows path (``PureWindowsPath``): ``\\`` is a
    folder separator, and a trailing one (``guide/install/``) or a ``.`` folder is dropped."""
    if not isinstance(path, str) or not path.strip():
        return path
    return PureWindowsPath(path).as_posix()


def read_rediraffe_file(
    path: Path, shown: str, problems: list[Problem]
) -> list[tuple[str, str, Location, str]]:
    """The ``(old, new, where, line as written)`` of a rediraffe redirects file, in order."""
    try:
        data = path.read_bytes()
    except OSError as err:
        reason = err.strerror or str(err)
        problems.append(Problem(
            Location(shown), f"cannot read the rediraffe_redirects file: {reason}"
        ))
        return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        bad = data[: err.start].count(b"\n") + 1
        problems.append(Problem(Location(shown, bad), "the redirects file is not valid UTF-8"))
        return []
    pairs: list[tuple[str, str, Location, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = REDIRECT_PAIR.fullmatch(stripped)
        if match is None:
            problems.append(Problem(
                Location(shown, number),
                "expected two paths, old and new, separated by spaces (quote a path that "
                "has spaces: \"my page.rst\"; a comment is a line of its own)",
            ))
            continue
        pairs.append((_side(match, "old"), _side(match, "new"), Location(shown, number), stripped))
    return pairs


def _side(match: re.Match[str], name: str) -> str:
    quoted = match.group(f"{name}quoted")
    return quoted if quoted is not None else match.group(f"{name}bare")


# -- where an entry was written -------------------------------------------------------


def _key_locations(conf_file: str, conf_text: str, name: str) -> Callable[[object], Location]:
    """Where each key of the dict assigned to ``name`` in conf.py was written.

    Keys are looked for from the assignment on (the same key may be in another dict
    above it), then anywhere; a key not found gets the assignment's line.
    """
    lines = conf_text.splitlines()
    assignment = re.compile(rf"\s*{re.escape(name)}\s*(:[^=]*)?=")
    start = next((n for n, line in enumerate(lines, 1) if assignment.match(line)), 0)
    from_start = "\n" * (start - 1) + "\n".join(lines[start - 1 :])
    after = mapping_lines(from_start, name) if start else {}
    anywhere = mapping_lines(conf_text, name)

    def location(key: object) -> Location:
        if isinstance(key, str):
            for spelled in (key, key.replace("\\", "\\\\")):
                found = after.get(spelled) or anywhere.get(spelled)
                if found:
                    return Location(conf_file, found)
        return Location(conf_file, start or anywhere.get("", 1))

    return location


def _shown_entry(key: object, value: object, separator: str) -> str:
    """An entry as the peer's config wrote it, quoted on one line, for comments."""
    def quote(text: object) -> str:
        return json.dumps(text, ensure_ascii=False) if isinstance(text, str) else repr(text)

    return f"{quote(key)}{separator}{quote(value)}"


def documents_on_disk(srcdir: Path, suffixes: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a docname has a source file: enough to tell ``guide`` from ``guide/index``."""
    return lambda docname: any((srcdir / (docname + suffix)).is_file() for suffix in suffixes)


# -- the table file that replaces them (``sphinx-relocate import``) -----------------------


@dataclass
class Imported:
    """The converted entries as TOML lines by section, and how they meet the table's own."""

    sections: dict[str, list[str]] = field(default_factory=dict)
    added: int = 0
    #: entries the table already has, with the same target
    known: int = 0
    #: one line each: an entry the table already has with another target
    conflicts: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The entries as a TOML document."""
        blocks = ["\n".join([f"[{name}]", *lines]) for name, lines in self.sections.items()]
        return "\n\n".join(blocks) + "\n" if blocks else ""


def table_lines(
    converted: Converted,
    table: RelocationTable,
    suffixes: tuple[str, ...],
    documents: Collection[str] = (),
) -> Imported:
    """The converted rows as ``relocations.toml`` lines, each with a comment naming where
    it was written; rows the ``table`` already has are left out, rows it has with another
    target are conflicts (an import never overwrites an entry)."""
    from sphinx_relocate.core.git import toml_string

    have = {(entry.section, entry.old): entry for entry in table.entries}
    imported = Imported()
    for row, written in zip(converted.rows, converted.written, strict=True):
        one, _ = load_table(None, peer_rows=[row], source_suffixes=suffixes)
        if not one.entries:
            continue  # a problem, which the whole table reports
        entry = one.entries[0]
        previous = have.get((entry.section, entry.old))
        if previous is not None:
            if (previous.new, previous.replace) == (entry.new, entry.replace):
                imported.known += 1
            else:
                imported.conflicts.append(
                    f"{entry.location}: {written} would move {entry.old!r} to "
                    f"{str(entry.new)!r}, but {previous.location} already moves it to "
                    f"{str(previous.new)!r}; import never overwrites an entry: change one of them"
                )
            continue
        lines = imported.sections.setdefault(entry.section, [])
        value = toml_string(str(entry.new))
        pattern = one.patterns[0] if one.patterns else None
        matched = sorted(d for d in documents if pattern.matches(d)) if pattern else []
        if pattern is not None and pattern.peer and not pattern.replace and matched:
            lines.append(
                f"# {pattern.peer} replaced {some(matched)} with redirects; they stay pages "
                f"unless this is {{ to = {value}, replace = true }}"
            )
            # the build says so too, as it does reading conf.py: same table, same warnings
            value = f"{{ to = {value}, peer = {toml_string(pattern.peer)} }}"
        lines.append(f"{toml_string(entry.old)} = {value}  # {entry.location}: {written}")
        imported.added += 1
    return imported


def doubled_by_peers(
    table: RelocationTable, served: RelocationTable, is_document: Callable[[str], bool]
) -> list[Problem]:
    """Old pages that both the table and the redirects of a peer conf.py still loads
    (``served``) send to a page or URL: each would write a stub at the page's old path;
    the build leaves it to the peer (its page may go elsewhere than the entry says).  An
    old name the table sends to no document (one under a ``[prefixes]`` folder that has
    no page there now) gets no stub of its own.  Reported by the build and ``check``
    alike."""
    problems = []
    for entry in served.of_section("pages"):
        target = table.locate_page(entry.old, is_document)
        if target is None or not (target.url or is_document(target.path)):
            continue
        problems.append(Problem(
            table.location_of(entry.old) or entry.location,
            f"{entry.old} is also redirected by a peer that conf.py loads ({entry.location}), "
            "which writes its own stub at the same path, so this entry writes none: keep one "
            "(drop this entry, or take the peer out of extensions, and sphinx-relocate reads "
            "its redirects as part of the table)",
            fatal=False,
            subtype="stub",
        ))
    return problems


def anchors_of_unserved_pages(
    table: RelocationTable, served: RelocationTable, is_document: Callable[[str], bool],
) -> list[Problem]:
    """One problem per old page that ``[anchors]`` entries name and that nothing serves:
    no document, no entry of the table and no redirect of a peer (``served``) moves it.
    Its old URL, where the fragments are read, gets no stub (black's deleted
    ``pyproject_toml``, whose sections went elsewhere and whose ``[pages]`` line
    ``from-git`` leaves commented, asking for a target).  Reported by the build and
    ``check`` alike."""
    problems = []
    named: dict[str, list[Entry]] = {}
    for entry in table.of_section("anchors"):
        named.setdefault(entry.old.split("#", 1)[0], []).append(entry)
    for page, entries in named.items():
        if is_document(page) or table.locate_page(page) is not None or (
                served.locate_page(page) is not None):
            continue
        others = f" and {len(entries) - 1} more" if len(entries) > 1 else ""
        problems.append(Problem(
            entries[0].location,
            f"'{page}' of '{entries[0].old}'{others} is no document and no entry moves it: "
            f"its old URL gets no stub to read the fragments on (give '{page}' a target in "
            "[pages])",
            fatal=False,
            subtype="target_missing",
        ))
    return problems
