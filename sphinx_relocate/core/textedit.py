"""Splice edits into source text so that the file still parses; tell when it parses worse.

``rewrite`` replaces link targets in place.  Inside a reST table a longer or shorter target
moves the column border after it, and docutils then drops the whole table as "Malformed
table".  This module keeps such tables whole and checks the result:

* ``apply_edits(text, edits, *, rest=False) -> str`` replaces non-overlapping
  ``(start, end, new)`` character spans (the splice of ``_rewrite.apply_edits``).  With
  ``rest=True`` every grid table and simple table holding an edit is re-padded: the column of
  a grown cell is widened in every row and border of that table; a shrunk cell is padded with
  spaces and its column keeps its width, so the diff stays small.  Text outside the edited
  tables is kept byte for byte.
* ``apply_edits_checked(text, edits, *, rest=False) -> tuple[str, list[str]]`` does the same
  and also names the tables it spliced without re-padding, since those may now be broken:
  a shape it does not recognise, an edit across a cell border or with a line break, a table
  docutils already rejects, or a re-padded table that docutils would read differently.
* ``parse_errors(text, path) -> list[tuple[int, str]]`` reads a file with plain docutils
  (reST) or MyST's docutils parser (Markdown) and returns its errors.
* ``adds_parse_errors(old_text, new_text, path) -> list[tuple[int, str]]`` returns only the
  errors the new text has and the old one had not, so that what plain docutils cannot know
  (Sphinx roles, directives, substitutions and links) never counts.

Columns are counted as docutils counts them (``docutils.utils.column_width``): an East Asian
wide character takes two columns, a combining character none (docutils before 0.22 counts it
as one in grid tables; such tables are then left to the plain splice, and reported).  Every
line that looks like a table's top border starts a table, at its own indentation or after a
list marker, as the reST parser sees tables inside directives and lists.  Nothing here imports
Sphinx.
"""

from __future__ import annotations

import io
import os
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, NamedTuple, TypeAlias

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers import Parser
from docutils.parsers.rst import Directive, directives
from docutils.parsers.rst import Parser as RstParser
from docutils.parsers.rst.tableparser import (
    GridTableParser,
    SimpleTableParser,
    TableMarkupError,
    TableParser,
)
from docutils.readers import standalone
from docutils.statemachine import StringList
from docutils.utils import column_width

Edit: TypeAlias = tuple[int, int, str]

#: Suffixes :func:`parse_errors` reads as reStructuredText and as MyST Markdown.
_REST_SUFFIXES = (".rst", ".rest", ".txt")
_MARKDOWN_SUFFIXES = (".md", ".markdown")


def apply_edits(text: str, edits: Iterable[Edit], *, rest: bool = False) -> str:
    """Replace non-overlapping ``(start, end, new)`` spans, keeping reST tables well-formed.

    ``rest=True`` is for reStructuredText: tables holding an edit are re-padded (see the
    module docstring).  A table that cannot be re-padded is spliced as is; use
    :func:`apply_edits_checked` to learn about those.
    """
    return apply_edits_checked(text, edits, rest=rest)[0]


def apply_edits_checked(
    text: str, edits: Iterable[Edit], *, rest: bool = False
) -> tuple[str, list[str]]:
    """Like :func:`apply_edits`, and also say which tables were spliced without re-padding.

    The problems read ``"grid table at line N could not be re-padded (why); spliced as is"``
    (``N`` counts from 1), so that the caller can show them or refuse the file; they are
    empty for ``rest=False``.
    """
    ordered = sorted(edits)
    if not rest or not ordered:
        return _splice(text, ordered), []
    lines = _split_lines(text)
    starts = [line.start for line in lines]
    spliced: list[Edit] = []
    consumed: set[int] = set()
    problems: list[str] = []
    for table in _find_tables(lines):
        region_start = lines[table.first].start
        region_end = lines[table.last].start + len(lines[table.last].text)
        touching = [
            number
            for number, (start, end, _new) in enumerate(ordered)
            if start < region_end and end > region_start
        ]
        if not touching:
            continue
        try:
            if table.shape_error:
                raise _Unpaddable(table.shape_error)
            region = _repad(table, lines, starts, [ordered[number] for number in touching])
        except _Unpaddable as why:
            line_number = table.first + 1
            problems.append(
                f"{table.kind} table at line {line_number} could not be re-padded ({why}); "
                "spliced as is"
            )
            continue
        spliced.append((region_start, region_end, region))
        consumed.update(touching)
    spliced.extend(edit for number, edit in enumerate(ordered) if number not in consumed)
    return _splice(text, sorted(spliced)), problems


def _splice(text: str, ordered: Sequence[Edit]) -> str:
    """The plain splice of edits sorted by start (``_rewrite.apply_edits``)."""
    if not ordered:
        return text
    parts: list[str] = []
    last = 0
    for start, end, new in ordered:
        parts.append(text[last:start])
        parts.append(new)
        last = end
    parts.append(text[last:])
    return "".join(parts)


# -- lines and tables ---------------------------------------------------------------

#: Line breaks as docutils splits lines (``str.splitlines`` after turning \v and \f into
#: spaces), so that a table has the same lines here as there.
_LINE_BREAK = re.compile("\r\n|[\n\r\x1c\x1d\x1e\x85\u2028\u2029]")
_NOT_IN_TABLES = re.compile("[\t\v\f\x00]|" + _LINE_BREAK.pattern)  # docutils changes them
_ENUMERATOR = r"(?:\d+|#|[A-Za-z]|[ivxlcdm]+|[IVXLCDM]+)"
#: A line that may start a table: indentation, maybe a list marker, then the border.
_TABLE_START = re.compile(
    rf"(?P<indent>[ ]*)(?P<marker>(?:[-*+•‣⁃]|{_ENUMERATOR}[.)]|\({_ENUMERATOR}\))[ ]+)?"
    r"(?P<border>[+=])"
)
_GRID_BORDER = re.compile(r"\+-[-+]+-\+")  # docutils' grid_table_top_pat, on a stripped line
_SIMPLE_TOP = re.compile(r"=+( +=+)+")  # simple_table_top_pat
_SIMPLE_BORDER = re.compile(r"=+[ =]*$")  # simple_table_border_pat
_SIMPLE_SPAN = re.compile(r"-[ -]*$")  # SimpleTableParser.span_pat


class _Line(NamedTuple):
    start: int  # offset in the text
    text: str  # the line with its line break
    content: str  # the line without its line break


@dataclass(frozen=True)
class _Table:
    kind: str  # "grid" or "simple"
    first: int  # index of the top border line
    last: int  # index of the last line (inclusive)
    indent: int  # columns before the border: indentation and list marker
    shape_error: str  # why docutils would not read it as a table, "" when it would


class _Unpaddable(Exception):
    """A table that cannot be re-padded safely; the message says why."""


def _split_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(_Line(start, text[start : match.end()], text[start : match.start()]))
        start = match.end()
    if start < len(text):
        lines.append(_Line(start, text[start:], text[start:]))
    return lines


def _find_tables(lines: Sequence[_Line]) -> Iterator[_Table]:
    """The tables in the text: wherever a border line starts one, at its own indentation.

    This also finds tables docutils reads as paragraph or literal text (after a paragraph
    line, in a literal block); re-padding them keeps them aligned, and missing a real table
    (after a title, a comment) would break it.
    """
    number = 0
    while number < len(lines):
        match = _TABLE_START.match(lines[number].content)
        table = None
        if match:
            indent = match.start("border")
            if match["border"] == "+":
                table = _grid_table(lines, number, indent)
            else:
                table = _simple_table(lines, number, indent)
        if table is None:
            number += 1
            continue
        yield table
        number = table.last + 1


def _grid_table(lines: Sequence[_Line], first: int, indent: int) -> _Table | None:
    if not _GRID_BORDER.fullmatch(lines[first].content[indent:].rstrip()):
        return None
    margin = " " * indent
    last = first
    while last + 1 < len(lines):
        content = lines[last + 1].content
        if not (content.startswith(margin) and content[indent : indent + 1] in ("+", "|")):
            break
        last += 1
    # Like docutils: without a bottom border, the table ends at the last border line.
    if not _GRID_BORDER.fullmatch(lines[last].content[indent:].rstrip()):
        for bottom in range(last - 1, first + 1, -1):
            if _GRID_BORDER.fullmatch(lines[bottom].content[indent:].rstrip()):
                return _Table("grid", first, bottom, indent, "")
        return _Table("grid", first, last, indent, "bottom border missing or corrupt")
    return _Table("grid", first, last, indent, "")


def _simple_table(lines: Sequence[_Line], first: int, indent: int) -> _Table | None:
    if not _SIMPLE_TOP.fullmatch(lines[first].content[indent:].rstrip()):
        return None
    margin = " " * indent

    def relative(offset: int) -> str | None:
        if first + offset >= len(lines):
            return None
        content = lines[first + offset].content
        if not content.strip():
            return ""
        if offset and not content.startswith(margin):
            return None  # the enclosing block ends here
        return content[indent:].rstrip()

    bottom, error = _simple_extent(relative)
    return _Table("simple", first, first + bottom, indent, error)


def _simple_extent(relative: Callable[[int], str | None]) -> tuple[int, str]:
    """The offset of a simple table's last line and why it is malformed ("" if it is not).

    ``relative(n)`` is line ``n`` of the table's block ("" when blank, ``None`` past the
    block's end); this is docutils' ``isolate_simple_table``.
    """
    top = relative(0) or ""
    found = 0
    offset = 1
    while (line := relative(offset)) is not None:
        if _SIMPLE_BORDER.match(line):
            if len(line.strip()) != len(top.strip()):
                return offset, "bottom border or header rule does not match top border"
            found += 1
            if found == 2 or not relative(offset + 1):
                return offset, ""
        offset += 1
    return offset - 1, "no bottom table border found"


def _repad(
    table: _Table, lines: Sequence[_Line], starts: Sequence[int], edits: Sequence[Edit]
) -> str:
    """The table's lines with the edits applied and the columns re-padded."""
    table_lines = lines[table.first : table.last + 1]
    bodies = [line.content[table.indent :].rstrip() for line in table_lines]
    if any(_NOT_IN_TABLES.search(body) for body in bodies):
        raise _Unpaddable("it holds a tab or a control character")
    by_line: dict[int, list[Edit]] = {}
    for start, end, new in edits:
        number = bisect_right(starts, start) - 1 - table.first
        body_start = table_lines[max(number, 0)].start + table.indent
        if number < 0 or not (body_start <= start and end <= body_start + len(bodies[number])):
            raise _Unpaddable("an edit is not inside one line of a cell")
        if _NOT_IN_TABLES.search(new):
            raise _Unpaddable("a replacement holds a tab or line break")
        by_line.setdefault(number, []).append((start - body_start, end - body_start, new))
    if table.kind == "grid":
        new_bodies = _repad_grid(bodies, by_line)
    else:
        new_bodies = _repad_simple(bodies, by_line)
    return "".join(
        line.content[: table.indent]
        + new_body
        + line.content[table.indent + len(body) :]
        + line.text[len(line.content) :]
        for line, body, new_body in zip(table_lines, bodies, new_bodies, strict=True)
    )


# -- columns ------------------------------------------------------------------------


class _Columns:
    """The display columns of one table line, counted the way docutils' table parsers do.

    docutils pads each wide character to two columns and drops combining characters before
    it looks for borders, so a table lines up by columns, not by characters.
    """

    __slots__ = ("_char_at", "_column_of", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        char_at: list[int] = []  # per column: index of the character starting there, or -1
        column_of: list[int] = []  # per character: the column it starts at, or -1
        for index, char in enumerate(text):
            wide = unicodedata.east_asian_width(char) in "WF"
            if unicodedata.combining(char):
                column_of.append(-1)
            else:
                column_of.append(len(char_at))
                char_at.append(index)
            if wide:
                char_at.append(-1)
        column_of.append(len(char_at))
        char_at.append(len(text))
        self._char_at = char_at
        self._column_of = column_of

    @property
    def width(self) -> int:
        return len(self._char_at) - 1

    def column(self, index: int) -> int:
        """The column where ``text[index]`` starts."""
        column = self._column_of[index]
        if column < 0:
            raise _Unpaddable("an edit starts or ends at a combining character")
        return column

    def index(self, column: int) -> int:
        """The index of the character that starts at ``column`` (the end past the text)."""
        index = self._char_at[min(column, self.width)]
        if index < 0:
            raise _Unpaddable("a wide or combining character sits on a column border")
        return index

    def slice(self, start: int, end: int) -> str:
        return self.text[self.index(start) : self.index(end)]


def _fit(segment: str, width: int) -> str:
    """``segment`` padded with spaces to ``width`` columns."""
    if column_width(segment) > width:
        segment = segment.rstrip()
    missing = width - column_width(segment)
    if missing < 0:
        raise _Unpaddable("a cell does not fit its column")  # the widening is wrong
    return segment + " " * missing


def _allocate(needs: Iterable[tuple[int, int, int]], count: int) -> list[int]:
    """How many columns to add to each column so that every ``(first, last, extra)`` span
    grows by ``extra``: the narrowest spans first, each one's shortfall on its last column."""
    growth = [0] * count
    for first, last, extra in sorted(needs, key=lambda need: need[1] - need[0]):
        short = extra - sum(growth[first : last + 1])
        if short > 0:
            growth[last] += short
    return growth


_Layout: TypeAlias = list[list[tuple[int, int, int] | None]]


class _Reading(NamedTuple):
    """docutils' reading of a table."""

    colspecs: list[int]  # column widths
    heads: int  # head rows
    layout: _Layout  # per row and column: the cell's (morerows, morecols, first line) or None
    contents: list[list[str]]  # each cell's lines, in row order


def _parse_table(parser: TableParser, bodies: Sequence[str]) -> _Reading:
    block = StringList(list(bodies))
    block.pad_double_width(parser.double_width_pad_char)
    try:
        colspecs, head, body = parser.parse(block)
    except (TableMarkupError, AssertionError) as error:
        raise _Unpaddable(" ".join(str(arg) for arg in error.args) or "malformed") from None
    layout: _Layout = []
    contents: list[list[str]] = []
    for row in head + body:
        layout.append([None if cell is None else (cell[0], cell[1], cell[2]) for cell in row])
        contents.extend(list(cell[3]) for cell in row if cell is not None)
    return _Reading(list(colspecs), len(head), layout, contents)


def _normalized(cell_lines: Iterable[str]) -> list[str]:
    """Cell lines as the cell's content reads them: without common indentation or trailing
    whitespace."""
    stripped = [line.rstrip() for line in cell_lines]
    indent = min((len(line) - len(line.lstrip()) for line in stripped if line), default=0)
    return [line[indent:] for line in stripped]


def _check_reading(parser: TableParser, new_bodies: Sequence[str], expected: _Reading) -> None:
    """Refuse a re-padded table that docutils reads other than as the edited original
    (``expected.colspecs`` empty: any widths)."""
    reading = _parse_table(parser, new_bodies)
    if (
        (expected.colspecs and reading.colspecs != expected.colspecs)
        or (reading.heads, reading.layout) != (expected.heads, expected.layout)
        or [_normalized(cell) for cell in reading.contents]
        != [_normalized(cell) for cell in expected.contents]
    ):
        raise _Unpaddable("the re-padded table reads differently")


# -- grid tables --------------------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    top: int  # line of the top border
    bottom: int  # line of the bottom border
    first: int  # first column
    last: int  # last column (inclusive)


def _check_grid_shape(columns: Sequence[_Columns]) -> None:
    """What docutils checks before it parses a grid table (``isolate_grid_table``)."""
    if not _GRID_BORDER.fullmatch(columns[-1].text):
        raise _Unpaddable("bottom border missing or corrupt")
    if len({line.width for line in columns}) != 1 or any(
        line.text[-1:] not in ("+", "|") for line in columns
    ):
        raise _Unpaddable("right border not aligned or missing")


def _repad_grid(bodies: Sequence[str], edits: dict[int, list[Edit]]) -> list[str]:
    columns = [_Columns(body) for body in bodies]
    _check_grid_shape(columns)
    reading = _parse_table(GridTableParser(), bodies)
    bounds = list(accumulate([0] + [width + 1 for width in reading.colspecs]))
    cells = _grid_cells(reading.layout, len(bodies))
    interior = {
        (line, column): number
        for number, cell in enumerate(cells)
        for line in range(cell.top + 1, cell.bottom)
        for column in range(cell.first, cell.last + 1)
    }

    def segment(number: int, line: int) -> slice:
        """Where the text between the cell's borders sits in the line."""
        cell = cells[number]
        return slice(
            columns[line].index(bounds[cell.first]) + 1,
            columns[line].index(bounds[cell.last + 1]),
        )

    def width(cell: _Cell) -> int:
        return bounds[cell.last + 1] - bounds[cell.first] - 1

    edited: dict[tuple[int, int], str] = {}  # (cell, line) -> the new text between its borders
    for line, line_edits in edits.items():
        by_cell: dict[int, list[Edit]] = {}
        for start, end, new in line_edits:
            column = bisect_left(bounds, columns[line].column(start)) - 1
            number = interior.get((line, column), -1)
            if number < 0 or columns[line].column(end) > bounds[cells[number].last + 1]:
                raise _Unpaddable("an edit is not inside one cell")
            by_cell.setdefault(number, []).append((start, end, new))
        for number, cell_edits in by_cell.items():
            where = segment(number, line)
            edited[number, line] = _splice(
                bodies[line][where],
                [(s - where.start, e - where.start, new) for s, e, new in cell_edits],
            )

    needs = []
    for (number, line), text in edited.items():
        cell = cells[number]
        margin = 1 if bodies[line][segment(number, line)].endswith(" ") else 0
        extra = column_width(text.rstrip()) + margin - width(cell)
        if extra > 0:
            needs.append((cell.first, cell.last, extra))
    growth = _allocate(needs, len(reading.colspecs))

    new_bodies = []
    for line, body in enumerate(bodies):
        parts = [body[0]]
        column = 0
        while column < len(reading.colspecs):
            number = interior.get((line, column), -1)
            if number < 0:  # a border runs here
                run = columns[line].slice(bounds[column] + 1, bounds[column + 1])
                if growth[column] and (run[-1:] not in ("-", "=") or run.strip(run[-1])):
                    raise _Unpaddable("a border is not made of - or =")
                parts.append(run + run[-1:] * growth[column])
                column += 1
            else:
                cell = cells[number]
                text = edited.get((number, line), body[segment(number, line)])
                parts.append(_fit(text, width(cell) + sum(growth[cell.first : cell.last + 1])))
                column = cell.last + 1
            parts.append(columns[line].slice(bounds[column], bounds[column] + 1))
        new_bodies.append("".join(parts))

    _check_grid_shape([_Columns(body) for body in new_bodies])
    expected = _Reading(
        [width + extra for width, extra in zip(reading.colspecs, growth, strict=True)],
        reading.heads,
        reading.layout,
        [
            [
                edited.get((number, line), bodies[line][segment(number, line)])
                for line in range(cell.top + 1, cell.bottom)
            ]
            for number, cell in enumerate(cells)
        ],
    )
    _check_reading(GridTableParser(), new_bodies, expected)
    return new_bodies


def _grid_cells(layout: _Layout, line_count: int) -> list[_Cell]:
    """The cells in row order, with their border lines and columns."""
    tops = []
    for row in layout:
        offsets = [cell[2] for cell in row if cell is not None]
        if not offsets:
            raise _Unpaddable("a row without a cell")
        tops.append(min(offsets) - 1)
    tops.append(line_count - 1)
    return [
        _Cell(top=cell[2] - 1, bottom=tops[row + cell[0] + 1], first=column, last=column + cell[1])
        for row, cells in enumerate(layout)
        for column, cell in enumerate(cells)
        if cell is not None
    ]


# -- simple tables ------------------------------------------------------------------

_UNBOUNDED = 1 << 62


def _repad_simple(bodies: Sequence[str], edits: dict[int, list[Edit]]) -> list[str]:
    reading = _parse_table(SimpleTableParser(), bodies)
    rules = [(match.start(), match.end()) for match in re.finditer("=+", bodies[0])]
    last_column = len(rules) - 1
    rows: list[tuple[range, list[tuple[int, int]]]] = []  # lines, cells' (first, last) columns
    contents = iter(reading.contents)
    for row in reading.layout:
        row_lines = range(0)
        groups: list[tuple[int, int]] = []
        column = 0
        for shape in row:
            if shape is None:
                raise _Unpaddable("a row without a cell")  # not in simple tables
            _morerows, morecols, first_line = shape
            row_lines = range(first_line, first_line + len(next(contents)))
            groups.append((column, column + morecols))
            column += morecols + 1
        rows.append((row_lines, groups))
    groups_at = {line: groups for row_lines, groups in rows for line in row_lines}
    for line, body in enumerate(bodies):
        if (
            body
            and line not in groups_at
            and not (_SIMPLE_BORDER.match(body) or _SIMPLE_SPAN.match(body))
        ):
            raise _Unpaddable(f"table line {line + 1} belongs to no row")
    columns = [_Columns(body) for body in bodies]

    def bounds(group: tuple[int, int]) -> tuple[int, int]:
        """The columns a cell's text may use; the last column runs to the end of the line."""
        return rules[group[0]][0], rules[group[1]][1] if group[1] < last_column else _UNBOUNDED

    def segment(line: int, group: tuple[int, int]) -> slice:
        start, end = bounds(group)
        return slice(columns[line].index(start), columns[line].index(end))

    edited: dict[tuple[int, int], str] = {}  # (line, cell of the row) -> the cell's new text
    for line, line_edits in edits.items():
        groups = groups_at.get(line, [])
        by_cell: dict[int, list[Edit]] = {}
        for start, end, new in line_edits:
            first, last = columns[line].column(start), columns[line].column(end)
            cell = next(
                (n for n, g in enumerate(groups) if bounds(g)[0] <= first and last <= bounds(g)[1]),
                -1,
            )
            if cell < 0:
                raise _Unpaddable("an edit is not inside one cell")
            by_cell.setdefault(cell, []).append((start, end, new))
        for cell, cell_edits in by_cell.items():
            where = segment(line, groups[cell])
            edited[line, cell] = _splice(
                bodies[line][where],
                [(s - where.start, e - where.start, new) for s, e, new in cell_edits],
            )

    needs = []
    for (line, cell), text in edited.items():
        first, last = groups_at[line][cell]
        if last < last_column:  # docutils lets text run past the last column's rule
            start, end = bounds((first, last))
            extra = column_width(text.rstrip()) - (end - start)
            if extra > 0:
                needs.append((first, last, extra))
    growth = _allocate(needs, len(rules))

    new_bodies = []
    for line, body in enumerate(bodies):
        if line not in groups_at:  # a rule or a blank line
            for column in reversed(range(len(rules))):
                end = rules[column][1]
                if growth[column]:
                    if body[end - 1 : end] not in ("-", "="):
                        raise _Unpaddable(f"table line {line + 1} is an incomplete rule")
                    body = body[:end] + body[end - 1] * growth[column] + body[end:]
            new_bodies.append(body)
            continue
        parts = []
        for cell, group in enumerate(groups_at[line]):
            text = edited.get((line, cell), body[segment(line, group)])
            if group[1] == last_column:
                parts.append(text)
                continue
            start, end = bounds(group)
            parts.append(_fit(text, end - start + sum(growth[group[0] : group[1] + 1])))
            parts.append(columns[line].slice(end, rules[group[1] + 1][0]))  # the gap
        new_bodies.append("".join(parts).rstrip())

    new_extent = _simple_extent(lambda n: new_bodies[n] if n < len(new_bodies) else None)
    if new_extent != (len(new_bodies) - 1, ""):
        raise _Unpaddable("the re-padded table reads differently")
    expected = [
        [edited.get((line, cell), bodies[line][segment(line, group)]) for line in row_lines]
        for row_lines, groups in rows
        for cell, group in enumerate(groups)
    ]
    _check_reading(
        SimpleTableParser(), new_bodies, _Reading([], reading.heads, reading.layout, expected)
    )
    return new_bodies


# -- parse errors -------------------------------------------------------------------

_ERROR_LEVEL = 3
#: What plain docutils cannot know about a Sphinx project: roles and directives Sphinx and
#: its extensions add, and the substitutions Sphinx defines.
_SPHINX_ONLY = re.compile(
    r'Unknown interpreted text role "[^"]*"\.'
    r'|Unknown directive type "[^"]*"\.'
    r'|Undefined substitution referenced: "(?:version|release|today)"\.'
)
#: MyST leaves links to documents and files to Sphinx; plain docutils calls them unknown.
_MARKDOWN_LINK = re.compile(r'Unknown target name: ".*"\.', re.DOTALL)
#: Sphinx (and sphinx-design, sphinx-tabs) directives whose content is body text: stand-ins
#: parse it, so that a table broken inside them counts.
_CONTENT_DIRECTIVES = (
    "only",
    "versionadded",
    "versionchanged",
    "versionremoved",
    "deprecated",
    "seealso",
    "hlist",
    "tab-set",
    "tab-item",
    "tabs",
    "tab",
    "group-tab",
    "grid",
    "grid-item",
    "grid-item-card",
    "card",
    "dropdown",
)


def parse_errors(text: str, path: str) -> list[tuple[int, str]]:
    """The ``(line, message)`` of every error docutils reports reading ``text`` as ``path``.

    ``.rst``/``.rest``/``.txt`` are read as reStructuredText, ``.md``/``.markdown`` as MyST
    (``[]`` when myst_parser is not installed), anything else gives ``[]``.  Errors plain
    docutils reports only because it is not Sphinx (unknown roles and directives, MyST links
    to documents) are left out; the messages are those of docutils, line 0 when it gives none.
    Stand-ins for Sphinx directives with body content (``only``, ``versionadded``, tabs ...)
    are registered in docutils while the text is parsed, so parse in one thread at a time.
    """
    suffix = os.path.splitext(path)[1].lower()
    markdown = suffix in _MARKDOWN_SUFFIXES
    parser: Parser
    if suffix in _REST_SUFFIXES:
        parser = RstParser()
    elif markdown:
        try:
            from myst_parser.parsers.docutils_ import Parser as MystParser
        except ImportError:
            return []
        parser = MystParser()
    else:
        return []
    reader = _ObservingReader(parser)
    settings = {
        "report_level": 5,  # print nothing
        "halt_level": 5,  # raise on nothing
        "warning_stream": io.StringIO(),
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "_disable_config": True,  # no docutils.conf of the machine or the project
    }
    with _content_directive_stand_ins():
        try:
            publish_doctree(
                text, source_path=path, reader=reader, parser=parser, settings_overrides=settings
            )
        except Exception as error:  # a parser's bug must not stop a rewrite: compare it
            return [(0, f"the parser failed: {type(error).__name__}: {error}")]
    errors = []
    for message in reader.messages:
        if message["level"] < _ERROR_LEVEL:
            continue
        body = message[0].astext() if len(message) else message.astext()
        if _SPHINX_ONLY.fullmatch(body) or (markdown and _MARKDOWN_LINK.fullmatch(body)):
            continue
        errors.append((message.get("line") or 0, body))
    return errors


def adds_parse_errors(old_text: str, new_text: str, path: str) -> list[tuple[int, str]]:
    """The errors of ``new_text`` that ``old_text`` does not have (see :func:`parse_errors`).

    Messages are compared as a multiset without their lines, since a rewrite may shift
    lines; each added error comes with its line in ``new_text``.
    """
    if old_text == new_text:
        return []
    old = Counter(message for _line, message in parse_errors(old_text, path))
    added = []
    for line, message in parse_errors(new_text, path):
        if old[message]:
            old[message] -= 1
        else:
            added.append((line, message))
    return added


class _ObservingReader(standalone.Reader):  # type: ignore[type-arg]
    """The standalone reader, keeping every system message (also those never put in the
    tree, and those of the transforms)."""

    def __init__(self, parser: Parser) -> None:
        super().__init__(parser=parser)
        self.messages: list[nodes.system_message] = []

    def new_document(self) -> nodes.document:
        document = super().new_document()
        document.reporter.attach_observer(self.messages.append)
        return document


class _AnyOption(dict[str, Callable[[str], Any]]):
    """An option spec taking every option, as the stand-ins do not know the real ones."""

    def __missing__(self, name: str) -> Callable[[str], Any]:
        return directives.unchanged


class _ContentDirective(Directive):
    """Stands in for a Sphinx directive whose content is body text."""

    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOption(name=directives.unchanged)  # not empty: docutils tests truth
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


@contextmanager
def _content_directive_stand_ins() -> Iterator[None]:
    """Register the stand-ins for the parse only, and only where no directive is known, so
    that a Sphinx in the same process keeps its own."""
    registry: dict[str, Any] = directives._directives  # type: ignore[attr-defined]
    known = set(registry) | set(directives._directive_registry)  # type: ignore[attr-defined]
    added = [name for name in _CONTENT_DIRECTIVES if name not in known]
    for name in added:
        registry[name] = _ContentDirective
    try:
        yield
    finally:
        for name in added:
            if registry.get(name) is _ContentDirective:
                del registry[name]
