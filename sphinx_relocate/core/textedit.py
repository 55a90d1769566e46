"""Splice edits into source text so that reST tables stay whole.

``rewrite`` replaces link targets in place.  Inside a reST table a longer or shorter target
moves the column border after it, and docutils then drops the whole table as "Malformed
table".  This module keeps such tables whole:

* ``apply_edits(text, edits, *, read_table=None) -> str`` replaces non-overlapping
  ``(start, end, new)`` character spans (the build rewrites included files with it).  With a
  ``read_table`` (reST), every grid table and simple table holding an edit is re-padded: the
  column of a grown cell is widened in every row and border of that table; a shrunk cell is
  padded with spaces and its column keeps its width, so the diff stays small.  Text outside
  the edited tables is kept byte for byte.
* ``apply_edits_checked(text, edits, *, read_table=None) -> tuple[str, list[str]]`` does the
  same and also names the tables it spliced without re-padding, since those may now be
  broken: a shape it does not recognise, an edit across a cell border or with a line break,
  a table the reader rejects, or a re-padded table that the reader reads differently.

How a table reads (its columns, rows and cells) is docutils' to say, and the core imports
no docutils: the caller passes a :data:`TableReader` (``sphinx_relocate.cli.docutils_parser``
has docutils' one, and the check that a rewritten file parses no worse).

Columns are counted as docutils counts them (``docutils.utils.column_width``): an East Asian
wide character takes two columns, a combining character none (docutils before 0.22 counts it
as one in grid tables; such tables are then left to the plain splice, and reported).  Every
line that looks like a table's top border starts a table, at its own indentation or after a
list marker, as the reST parser sees tables inside directives and lists.  Nothing here imports
Sphinx or docutils.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal, NamedTuple, Protocol, TypeAlias

Edit: TypeAlias = tuple[int, int, str]
#: Per row and column of a table: the cell starting there as (morerows, morecols, first
#: line), or ``None`` where a cell of an earlier row or column spans it.
Layout: TypeAlias = list[list[tuple[int, int, int] | None]]


class TableReading(NamedTuple):
    """How docutils reads a table (its table parsers' result)."""

    colspecs: list[int]  # column widths
    heads: int  # head rows
    layout: Layout
    contents: list[list[str]]  # each cell's lines, in row order


class Unpaddable(Exception):
    """A table that cannot be re-padded safely; the message says why.  A
    :data:`TableReader` raises it for a table docutils rejects."""


#: Reads the lines of a ``"grid"`` or ``"simple"`` table (without their indentation);
#: raises :class:`Unpaddable` when docutils would not read them as that table.
TableReader: TypeAlias = Callable[[Literal["grid", "simple"], Sequence[str]], TableReading]


class SourceParser(Protocol):
    """What the rewriter asks of a reST and MyST parser (docutils' is
    ``sphinx_relocate.cli.docutils_parser.DocutilsParser``)."""

    def read_table(self, kind: Literal["grid", "simple"], lines: Sequence[str]) -> TableReading:
        """See :data:`TableReader`."""

    def adds_parse_errors(self, old_text: str, new_text: str, path: str) -> list[tuple[int, str]]:
        """The ``(line, message)`` of each parse error ``new_text`` has and ``old_text`` had
        not (as a multiset of messages), left out what only Sphinx knows."""


def apply_edits(
    text: str, edits: Iterable[Edit], *, read_table: TableReader | None = None
) -> str:
    """Replace non-overlapping ``(start, end, new)`` spans, keeping reST tables well-formed.

    ``read_table`` is for reStructuredText: tables holding an edit are re-padded (see the
    module docstring).  A table that cannot be re-padded is spliced as is; use
    :func:`apply_edits_checked` to learn about those.
    """
    return apply_edits_checked(text, edits, read_table=read_table)[0]


def apply_edits_checked(
    text: str, edits: Iterable[Edit], *, read_table: TableReader | None = None
) -> tuple[str, list[str]]:
    """Like :func:`apply_edits`, and also say which tables were spliced without re-padding.

    The problems read ``"grid table at line N could not be re-padded (why); spliced as is"``
    (``N`` counts from 1), so that the caller can show them or refuse the file; they are
    empty without ``read_table``.
    """
    ordered = sorted(edits)
    if read_table is None or not ordered:
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
                raise Unpaddable(table.shape_error)
            region = _repad(
                table, lines, starts, [ordered[number] for number in touching], read_table
            )
        except Unpaddable as why:
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
    table: _Table,
    lines: Sequence[_Line],
    starts: Sequence[int],
    edits: Sequence[Edit],
    read_table: TableReader,
) -> str:
    """The table's lines with the edits applied and the columns re-padded."""
    table_lines = lines[table.first : table.last + 1]
    bodies = [line.content[table.indent :].rstrip() for line in table_lines]
    if any(_NOT_IN_TABLES.search(body) for body in bodies):
        raise Unpaddable("it holds a tab or a control character")
    by_line: dict[int, list[Edit]] = {}
    for start, end, new in edits:
        number = bisect_right(starts, start) - 1 - table.first
        body_start = table_lines[max(number, 0)].start + table.indent
        if number < 0 or not (body_start <= start and end <= body_start + len(bodies[number])):
            raise Unpaddable("an edit is not inside one line of a cell")
        if _NOT_IN_TABLES.search(new):
            raise Unpaddable("a replacement holds a tab or line break")
        by_line.setdefault(number, []).append((start - body_start, end - body_start, new))
    if table.kind == "grid":
        new_bodies = _repad_grid(bodies, by_line, read_table)
    else:
        new_bodies = _repad_simple(bodies, by_line, read_table)
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
            raise Unpaddable("an edit starts or ends at a combining character")
        return column

    def index(self, column: int) -> int:
        """The index of the character that starts at ``column`` (the end past the text)."""
        index = self._char_at[min(column, self.width)]
        if index < 0:
            raise Unpaddable("a wide or combining character sits on a column border")
        return index

    def slice(self, start: int, end: int) -> str:
        return self.text[self.index(start) : self.index(end)]


def column_width(text: str) -> int:
    """The columns ``text`` takes, as ``docutils.utils.column_width`` counts them: two for
    an East Asian wide or full-width character, none for a combining one."""
    return sum(
        (2 if unicodedata.east_asian_width(char) in "WF" else 1)
        - (1 if unicodedata.combining(char) else 0)
        for char in text
    )


def _fit(segment: str, width: int) -> str:
    """``segment`` padded with spaces to ``width`` columns."""
    if column_width(segment) > width:
        segment = segment.rstrip()
    missing = width - column_width(segment)
    if missing < 0:
        raise Unpaddable("a cell does not fit its column")  # the widening is wrong
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


def _normalized(cell_lines: Iterable[str]) -> list[str]:
    """Cell lines as the cell's content reads them: without common indentation or trailing
    whitespace."""
    stripped = [line.rstrip() for line in cell_lines]
    indent = min((len(line) - len(line.lstrip()) for line in stripped if line), default=0)
    return [line[indent:] for line in stripped]


def _check_reading(
    read_table: TableReader,
    kind: Literal["grid", "simple"],
    new_bodies: Sequence[str],
    expected: TableReading,
) -> None:
    """Refuse a re-padded table that docutils reads other than as the edited original
    (``expected.colspecs`` empty: any widths)."""
    reading = read_table(kind, new_bodies)
    if (
        (expected.colspecs and reading.colspecs != expected.colspecs)
        or (reading.heads, reading.layout) != (expected.heads, expected.layout)
        or [_normalized(cell) for cell in reading.contents]
        != [_normalized(cell) for cell in expected.contents]
    ):
        raise Unpaddable("the re-padded table reads differently")


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
        raise Unpaddable("bottom border missing or corrupt")
    if len({line.width for line in columns}) != 1 or any(
        line.text[-1:] not in ("+", "|") for line in columns
    ):
        raise Unpaddable("right border not aligned or missing")


def _repad_grid(
    bodies: Sequence[str], edits: dict[int, list[Edit]], read_table: TableReader
) -> list[str]:
    columns = [_Columns(body) for body in bodies]
    _check_grid_shape(columns)
    reading = read_table("grid", bodies)
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
                raise Unpaddable("an edit is not inside one cell")
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
                    raise Unpaddable("a border is not made of - or =")
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
    expected = TableReading(
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
    _check_reading(read_table, "grid", new_bodies, expected)
    return new_bodies


def _grid_cells(layout: Layout, line_count: int) -> list[_Cell]:
    """The cells in row order, with their border lines and columns."""
    tops = []
    for row in layout:
        offsets = [cell[2] for cell in row if cell is not None]
        if not offsets:
            raise Unpaddable("a row without a cell")
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


def _repad_simple(
    bodies: Sequence[str], edits: dict[int, list[Edit]], read_table: TableReader
) -> list[str]:
    reading = read_table("simple", bodies)
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
                raise Unpaddable("a row without a cell")  # not in simple tables
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
            raise Unpaddable(f"table line {line + 1} belongs to no row")
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
                raise Unpaddable("an edit is not inside one cell")
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
                        raise Unpaddable(f"table line {line + 1} is an incomplete rule")
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
        raise Unpaddable("the re-padded table reads differently")
    expected = [
        [edited.get((line, cell), bodies[line][segment(line, group)]) for line in row_lines]
        for row_lines, groups in rows
        for cell, group in enumerate(groups)
    ]
    _check_reading(
        read_table, "simple", new_bodies, TableReading([], reading.heads, reading.layout, expected)
    )
    return new_bodies
