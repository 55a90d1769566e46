"""Reading ``relocations.toml`` into rows, each with the line it was written on.

tomllib reads the TOML (its meaning and its errors); it keeps no positions, so one pass
over the lines indexes where each section and key was written.  That pass reads the
common table (every line a ``[section]`` header, a ``key = "string"`` entry, a comment or
blank) completely, and then tomllib is not called.  That shortcut is kept for its
figure: :func:`~.load.load_table` of the 10,000-entry table of the benchmarks took
50 ms with it and 131 ms through tomllib and the index of any shape (in-process, CPU,
median of 9 runs, three rounds), 81 ms more: over a quarter of the whole step's 0.3 s of
extra build time (docs/performance.md), where the bar for a fast path is 5 %.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from sphinx_relocate.core.table.model import Location, Problem, Row

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")

#: a key tomllib and this reader read alike: bare, or a string without escapes
_TOML_STRING = r"""(?:"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"|'([^'\x00-\x08\x0a-\x1f\x7f]*)')"""
_SIMPLE_KEY = rf"(?:([A-Za-z0-9_-]+)|{_TOML_STRING})"
#: the rest of a line after a value or header: white space and a comment
_LINE_END = r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
_SIMPLE_HEADER = re.compile(rf"[ \t]*\[[ \t]*{_SIMPLE_KEY}[ \t]*\]{_LINE_END}")
_SIMPLE_ENTRY = re.compile(rf"[ \t]*{_SIMPLE_KEY}[ \t]*=[ \t]*{_TOML_STRING}{_LINE_END}")
_BLANK = re.compile(_LINE_END)
_ONE_KEY = re.compile(_SIMPLE_KEY)
#: a ``[section]`` line: its name may be quoted, and a quoted name may hold ``]`` or ``#``
_HEADER = re.compile(
    r"""^\s*\[(?!\[)((?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\]"'#\n])+)\]\s*(#.*)?$"""
)


@dataclass
class LineIndex:
    """What one pass over a table's lines found.

    ``positions`` maps ``(section, key)`` to its 1-based line and ``(section, None)`` to
    the header's; ``rows`` are the entries, when every line had the common shape (in
    which the result is exactly tomllib's: the tests hold it to that), else ``None``.
    """

    positions: dict[tuple[str, str | None], int] = field(default_factory=dict)
    headers: list[tuple[str, int]] = field(default_factory=list)
    rows: list[Row] | None = None


def index_lines(text: str, name: str) -> LineIndex:
    """The positions of ``text``'s sections and keys, and its rows when it is common."""
    index = LineIndex()
    headers, rows = index.headers, []
    keys: set[str] | None = None  # of the current section, for duplicates
    section = ""
    sections: set[str] = set()
    header, entry, blank = _SIMPLE_HEADER.fullmatch, _SIMPLE_ENTRY.fullmatch, _BLANK.fullmatch
    lines = text.split("\n")  # TOML ends lines at LF
    if "\r" in text:  # CRLF; a CR elsewhere, the end of the text included, is no blank
        lines[:-1] = [line[:-1] if line.endswith("\r") else line for line in lines[:-1]]
    for number, line in enumerate(lines, 1):
        found = entry(line)
        if found is not None and keys is not None:  # not a top-level key
            bare, double, single, value, single_value = found.groups()
            key = bare or double or single or ""
            if key not in keys:
                keys.add(key)
                rows.append((section, key, value if value is not None else single_value,
                             Location(name, number)))
                continue
        else:
            found = header(line)
            if found is not None:
                section = found.group(1) or found.group(2) or found.group(3) or ""
                if section not in sections:
                    sections.add(section)
                    keys = set()
                    headers.append((section, number))
                    continue
            elif blank(line) is not None:
                continue
        # not the common shape: tomllib reads this text, the rest of the pass indexes it
        positions = index.positions
        for name_read, line_number in headers:
            positions[name_read, None] = line_number
        for name_read, key, _, location in rows:
            positions[name_read, str(key)] = location.line
        _index_rest(lines, number, section if headers else None, positions)
        return index
    index.rows = rows
    return index


def _index_rest(
    lines: list[str],
    start: int,
    section: str | None,
    positions: dict[tuple[str, str | None], int],
) -> None:
    """Index ``lines`` from the 1-based line ``start`` on, in any TOML shape, under
    ``section`` (``None`` before the first header); the first line a name is written on
    is its position."""
    for number, line in enumerate(lines[start - 1 :], start):
        found = _HEADER.match(line)
        if found:
            decoded = _decode_key(found.group(1))
            section = found.group(1).strip() if decoded is None else decoded
            positions.setdefault((section, None), number)
            continue
        key_text = _split_key(line)
        if key_text is None or not key_text.strip():
            continue
        key = _decode_key(key_text)
        if key is None:
            continue
        if section is None and "." in key:  # dotted top-level key: pages."a" = "b"
            head, _, rest = key.partition(".")
            positions.setdefault((head, rest), number)
            positions.setdefault((head, None), number)
        else:
            positions.setdefault((section or "", key), number)
            if section is None:  # a top-level "pages = ..." stands where a header would
                positions.setdefault((key, None), number)


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


def read_toml(
    path: Path, name: str, sections: Collection[str], problems: list[Problem],
    data: bytes | None = None,
) -> list[Row]:
    """The rows of the table file ``path`` (``name`` in messages), of the known
    ``sections``; what cannot be read becomes a problem.  ``data``: the file's bytes as
    a command is about to write them, read instead of the file."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as err:
            reason = err.strerror or err
            problems.append(
                Problem(Location(name), f"cannot read the relocation table: {reason}")
            )
            return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        problems.append(Problem(Location(name, line), "the table is not valid UTF-8"))
        return []
    index = index_lines(text, name)
    if index.rows is not None:
        unknown = {section for section, _ in index.headers if section not in sections}
        for section, line in index.headers:
            if section in unknown:
                problems.append(_unknown_section(section, sections, Location(name, line)))
        return [row for row in index.rows if row[0] not in unknown] if unknown else index.rows
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
    positions = index.positions
    rows: list[Row] = []
    for section, body in document.items():
        location = Location(name, positions.get((section, None), 0))
        if section not in sections:
            problems.append(_unknown_section(section, sections, location))
            continue
        if not isinstance(body, dict):
            problems.append(Problem(location, f"[{section}] must be a table of old = new entries"))
            continue
        for key, value in body.items():
            rows.append((section, key, value, Location(name, positions.get((section, key), 0))))
    return rows


def _unknown_section(section: str, sections: Collection[str], location: Location) -> Problem:
    return Problem(
        location,
        f"unknown section [{section}] (expected one of: "
        + ", ".join(f"[{s}]" for s in sections)
        + ")",
    )


def mapping_lines(conf_text: str, name: str = "relocate_map") -> dict[str, int]:
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
