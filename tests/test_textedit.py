"""Tests of the table-preserving splice and the parse check (docutils only, no Sphinx)."""

from __future__ import annotations

import io
import sys
import textwrap

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from docutils.utils import column_width
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_relocate.cli.docutils_parser import adds_parse_errors, parse_errors, read_table
from sphinx_relocate.core.textedit import apply_edits, apply_edits_checked


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """The plain splice, written out: each span replaced, everything else kept."""
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


QUIET = {
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": io.StringIO(),
    "_disable_config": True,
}


def entries(text: str) -> list[str]:
    """The text of every table cell docutils reads, in document order."""
    document = publish_doctree(text, source_path="t.rst", settings_overrides=dict(QUIET))
    for message in list(document.findall(nodes.system_message)):
        message.parent.remove(message)
    return [entry.astext() for entry in document.findall(nodes.entry)]


def edit(text: str, old: str, new: str, occurrence: int = 0) -> tuple[int, int, str]:
    """The edit replacing the ``occurrence``-th ``old`` in ``text``."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(old, start + 1)
    return start, start + len(old), new


def repad(text: str, *edits: tuple[int, int, str]) -> str:
    new_text, problems = apply_edits_checked(text, edits, read_table=read_table)
    assert problems == []
    assert parse_errors(new_text, "t.rst") == []
    return new_text


GRID = """\
Intro with :doc:`setup` outside.

+---------------+--------+
| Page          | Notes  |
+===============+========+
| :doc:`setup`  | first  |
+---------------+--------+
| other         | second |
+---------------+--------+

After.
"""


def test_grown_cell_widens_its_column() -> None:
    new = repad(GRID, edit(GRID, "setup", "guide/installation/setup", 1))
    assert new == GRID.replace(
        """\
+---------------+--------+
| Page          | Notes  |
+===============+========+
| :doc:`setup`  | first  |
+---------------+--------+
| other         | second |
+---------------+--------+
""",
        """\
+---------------------------------+--------+
| Page                            | Notes  |
+=================================+========+
| :doc:`guide/installation/setup` | first  |
+---------------------------------+--------+
| other                           | second |
+---------------------------------+--------+
""",
    )
    assert entries(new) == [
        "Page",
        "Notes",
        ":doc:`guide/installation/setup`",
        "first",
        "other",
        "second",
    ]


def test_shrunk_cell_is_padded_and_the_column_kept() -> None:
    new = repad(GRID, edit(GRID, "setup", "s", 1))
    assert new == GRID.replace("| :doc:`setup`  |", "| :doc:`s`      |")


def test_two_edits_in_one_row() -> None:
    text = textwrap.dedent("""\
        +-------------+-------------+
        | :doc:`a`    | :doc:`b`    |
        +-------------+-------------+
        | x           | y           |
        +-------------+-------------+
        """)
    new = repad(
        text,
        edit(text, "a`", "first/long/page/a`"),
        edit(text, "b`", "second/much/longer/page/b`"),
    )
    assert entries(new) == [
        ":doc:`first/long/page/a`",
        ":doc:`second/much/longer/page/b`",
        "x",
        "y",
    ]
    assert new.splitlines()[0] == "+" + "-" * 26 + "+" + "-" * 34 + "+"


def test_edit_in_a_multi_line_cell() -> None:
    text = textwrap.dedent("""\
        +------------+-----+
        | See        | a   |
        | :doc:`x`   | b   |
        | for more.  | c   |
        +------------+-----+
        """)
    new = repad(text, edit(text, "x`", "reference/api/x`"))
    assert entries(new) == ["See\n:doc:`reference/api/x`\nfor more.", "a\nb\nc"]


def test_header_separator_grows_with_equals_signs() -> None:
    new = repad(GRID, edit(GRID, "Notes", "Notes on the page"))
    assert "+===============+===================+" in new
    assert "| :doc:`setup`  | first             |" in new


def test_table_indented_in_a_directive() -> None:
    text = textwrap.dedent("""\
        .. note::

           +-----------+---+
           | :doc:`a`  | b |
           +-----------+---+

        Text.
        """)
    new = repad(text, edit(text, "a`", "guide/a`"))
    assert new == textwrap.dedent("""\
        .. note::

           +----------------+---+
           | :doc:`guide/a` | b |
           +----------------+---+

        Text.
        """)


def test_table_right_after_a_list_marker() -> None:
    text = "- +----------+---+\n  | :doc:`a` | b |\n  +----------+---+\n"
    new = repad(text, edit(text, "a`", "long/a`"))
    assert new == "- +---------------+---+\n  | :doc:`long/a` | b |\n  +---------------+---+\n"


def test_wide_characters_count_two_columns() -> None:
    text = textwrap.dedent("""\
        +------------------+------+
        | 安装 :doc:`a`    | 说明 |
        +------------------+------+
        | 其他             | 表格 |
        +------------------+------+
        """)
    assert parse_errors(text, "t.rst") == []
    new = repad(text, edit(text, "a`", "指南/安装`"))
    assert new == textwrap.dedent("""\
        +-----------------------+------+
        | 安装 :doc:`指南/安装` | 说明 |
        +-----------------------+------+
        | 其他                  | 表格 |
        +-----------------------+------+
        """)
    assert entries(new) == ["安装 :doc:`指南/安装`", "说明", "其他", "表格"]


def test_crlf_line_ends_are_kept() -> None:
    text = GRID.replace("\n", "\r\n")
    new = repad(text, edit(text, "setup", "guide/installation/setup", 1))
    assert new == repad(GRID, edit(GRID, "setup", "guide/installation/setup", 1)).replace(
        "\n", "\r\n"
    )


def test_column_span_row() -> None:
    text = textwrap.dedent("""\
        +----------+----------+
        | :doc:`a` | b        |
        +----------+----------+
        | spans both columns  |
        +----------+----------+
        | c        | :doc:`d` |
        +----------+----------+
        """)
    new = repad(text, edit(text, "a`", "guide/a`"), edit(text, "d`", "guide/d`"))
    assert entries(new) == [":doc:`guide/a`", "b", "spans both columns", "c", ":doc:`guide/d`"]
    assert new == textwrap.dedent("""\
        +----------------+----------------+
        | :doc:`guide/a` | b              |
        +----------------+----------------+
        | spans both columns              |
        +----------------+----------------+
        | c              | :doc:`guide/d` |
        +----------------+----------------+
        """)


def test_grown_spanning_cell_widens_its_last_column() -> None:
    text = textwrap.dedent("""\
        +-----+-----+
        | a   | b   |
        +-----+-----+
        | :doc:`x`  |
        +-----+-----+
        """)
    new = repad(text, edit(text, "x`", "guide/x`"))
    assert new.splitlines()[0] == "+-----+----------+"
    assert entries(new) == ["a", "b", ":doc:`guide/x`"]


def test_row_span() -> None:
    text = textwrap.dedent("""\
        +----------+------------+
        | row 1    | Cells may  |
        +----------+ span rows  |
        | :doc:`a` | :doc:`b`   |
        +----------+------------+
        """)
    new = repad(text, edit(text, "a`", "guide/a`"), edit(text, "b`", "guide/installation/b`"))
    assert entries(new) == [
        "row 1",
        "Cells may\nspan rows\n:doc:`guide/installation/b`",
        ":doc:`guide/a`",
    ]


def test_simple_table() -> None:
    text = textwrap.dedent("""\
        Before.

        =====  =========  =====
        A      B          C
        =====  =========  =====
        x      :doc:`a`   zz
        y      b          :doc:`q`
        span across       two
        ----------------  -----
        z      w          v
        =====  =========  =====

        After.
        """)
    new = repad(
        text,
        edit(text, "a`", "guide/longer/a`"),
        edit(text, "q`", "very/long/q`"),
        edit(text, "across", "across much further"),
    )
    assert new == textwrap.dedent("""\
        Before.

        =====  =====================  =====
        A      B                      C
        =====  =====================  =====
        x      :doc:`guide/longer/a`  zz
        y      b                      :doc:`very/long/q`
        span across much further      two
        ----------------------------  -----
        z      w                      v
        =====  =====================  =====

        After.
        """)


def test_simple_table_last_column_is_left_to_overflow() -> None:
    text = "=====  =====\na      :doc:`b`\n=====  =====\n"
    assert repad(text, edit(text, "b`", "guide/b`")) == (
        "=====  =====\na      :doc:`guide/b`\n=====  =====\n"
    )


def test_text_outside_tables_is_kept_byte_for_byte() -> None:
    text = "Odd  spacing\t and trailing  \r\n" + GRID + "\n  end \x0c\n"
    edits = [edit(text, "setup", "elsewhere/setup"), edit(text, "setup", "g/setup", 1)]
    new = repad(text, *edits)
    head, tail = text.split("+---", 1)[0], text.rsplit("+\n", 1)[1]
    assert new.startswith(head.replace(":doc:`setup`", ":doc:`elsewhere/setup`"))
    assert new.endswith(tail)


def test_untouched_tables_are_kept() -> None:
    text = GRID + "\n+--+\n|a |\n+--+\n\n" + GRID
    new = repad(text, edit(text, "setup", "guide/installation/setup", 1))
    assert new.endswith("\n+--+\n|a |\n+--+\n\n" + GRID)


def test_combining_characters_take_no_column() -> None:
    row = "| cafe\u0301 :doc:`a` "
    rule = "+" + "-" * (column_width(row) - 1) + "+---+\n"
    text = rule + row + "| x |\n" + rule
    grown = edit(text, "a`", "guide/a`")
    new, problems = apply_edits_checked(text, [grown], read_table=read_table)
    if problems:  # docutils < 0.22 counts a combining character as a column
        assert new == splice(text, [grown])
    else:
        assert new.splitlines()[0] == "+" + "-" * 21 + "+---+"
        assert parse_errors(new, "t.rst") == []
        assert entries(new) == ["cafe\u0301 :doc:`guide/a`", "x"]


def test_simple_table_that_cannot_be_repadded() -> None:
    text = "=====  =====\na      b\n=====  =====\n\n=====  =====\nc      :doc:`d`\n"
    grown = edit(text, "d`", "guide/d`")
    new, problems = apply_edits_checked(text, [grown], read_table=read_table)
    assert new == splice(text, [grown])
    assert problems == [
        "simple table at line 5 could not be re-padded (no bottom table border found); "
        "spliced as is"
    ]


def test_without_rest_it_is_the_plain_splice() -> None:
    edits = [edit(GRID, "setup", "guide/installation/setup", 1), edit(GRID, "Notes", "N")]
    plain = splice(GRID, list(edits))
    assert apply_edits(GRID, edits) == plain
    assert apply_edits_checked(GRID, edits) == (plain, [])
    assert apply_edits(GRID, [], read_table=read_table) == GRID


def test_a_table_that_cannot_be_repadded_is_spliced_and_reported() -> None:
    across = edit(GRID, "setup`  | first", "x` | y")
    new, problems = apply_edits_checked(GRID, [across], read_table=read_table)
    assert new == splice(GRID, [across])
    assert problems == [
        "grid table at line 3 could not be re-padded (an edit is not inside one cell); "
        "spliced as is"
    ]
    broken = GRID.replace("| other         |", "| other        |")
    new, problems = apply_edits_checked(broken, [edit(broken, "Notes", "N")], read_table=read_table)
    assert new == broken.replace("Notes", "N")
    assert problems == [
        "grid table at line 3 could not be re-padded (right border not aligned or missing); "
        "spliced as is"
    ]


def test_adds_parse_errors_flags_a_broken_table_only() -> None:
    grown = edit(GRID, "setup", "guide/installation/setup", 1)
    plain = splice(GRID, [grown])
    added = adds_parse_errors(GRID, plain, "t.rst")
    assert [message.splitlines()[0] for _line, message in added] == ["Malformed table."]
    assert 3 <= added[0][0] <= 9  # a line of the table
    assert adds_parse_errors(GRID, apply_edits(GRID, [grown], read_table=read_table), "t.rst") == []


def test_sphinx_roles_and_directives_are_no_errors() -> None:
    text = textwrap.dedent("""\
        See :doc:`a`, :ref:`b`, :py:class:`C` and |version|.

        .. toctree::
           :maxdepth: 2

           a

        .. only:: html

           +---+
           | a |
           +---+
        """)
    assert parse_errors(text, "t.rst") == []
    broken = text.replace("| a |", "| ab |")
    assert [message.splitlines()[0] for _line, message in parse_errors(broken, "t.rst")] == [
        "Malformed table."
    ]


def test_stand_in_directives_are_registered_only_while_parsing() -> None:
    from docutils.parsers.rst import directives

    parse_errors(".. only:: html\n\n   text\n", "t.rst")
    assert "only" not in directives._directives  # type: ignore[attr-defined]


def test_parse_errors_by_file_type() -> None:
    assert parse_errors("`unclosed\n\n.. bad::\n  :x:\n", "t.txt") == []
    assert parse_errors("x_\n", "t.rst") == [(1, 'Unknown target name: "x".')]
    assert parse_errors("x_\n", "t.py") == []
    assert parse_errors("x_\n", "T.REST") == [(1, 'Unknown target name: "x".')]


def test_markdown_links_to_documents_are_no_errors() -> None:
    pytest.importorskip("myst_parser")
    text = "# T\n\nSee {doc}`a`, [b](b.md) and [c](../c.md#x).\n\n```{toctree}\na\n```\n"
    assert parse_errors(text, "t.md") == []
    new = text.replace("b.md", "guide/b.md")
    assert adds_parse_errors(text, new, "t.md") == []
    eval_rst = "# T\n\n```{eval-rst}\n+---+\n| a |\n+---+\n```\n"
    assert parse_errors(eval_rst, "t.md") == []
    added = adds_parse_errors(eval_rst, eval_rst.replace("| a |", "| ab |"), "t.md")
    assert [message.splitlines()[0] for _line, message in added] == ["Malformed table."]


def test_markdown_without_myst_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "myst_parser.parsers.docutils_", None)
    assert parse_errors("[a](b.md)\n\n```{eval-rst}\n+--+\n| ab |\n```\n", "t.md") == []


# -- property -----------------------------------------------------------------------

WORD = st.text(alphabet="abcXYZ019漢字かな한", min_size=1, max_size=6)
REPLACEMENT = st.text(alphabet="abXY09/漢字か", max_size=14)


@st.composite
def grid_tables(draw: st.DrawFn) -> tuple[list[list[list[str]]], list[list[int]], list[int], bool]:
    """Rows of cells (each a list of lines), each row's column spans, widths, header."""
    count = draw(st.integers(1, 4))
    rows: list[list[list[str]]] = []
    spans: list[list[int]] = []
    for _row in range(draw(st.integers(1, 4))):
        height = draw(st.integers(1, 3))
        row_spans: list[int] = []
        while sum(row_spans) < count:
            row_spans.append(min(draw(st.sampled_from([1, 1, 1, 2, 3])), count - sum(row_spans)))
        cells = []
        for _span in row_spans:
            lines = draw(
                st.lists(
                    st.lists(WORD, min_size=1, max_size=3).map(" ".join),
                    min_size=1,
                    max_size=height,
                )
            )
            cells.append(lines + [""] * (height - len(lines)))
        rows.append(cells)
        spans.append(row_spans)
    widths = [2 + draw(st.integers(0, 3)) for _column in range(count)]
    for cells, row_spans in zip(rows, spans, strict=True):
        column = 0
        for lines, span in zip(cells, row_spans, strict=True):
            need = max(column_width(line) for line in lines) + 2
            have = sum(widths[column : column + span]) + span - 1
            widths[column + span - 1] += max(0, need - have)
            column += span
    return rows, spans, widths, len(rows) > 1 and draw(st.booleans())


def render(
    rows: list[list[list[str]]],
    spans: list[list[int]],
    widths: list[int],
    header: bool,
    indent: str,
    newline: str,
) -> tuple[str, list[list[list[int]]]]:
    """The table's text, and the offset of each cell line's text in it."""
    bounds = [0]
    for width in widths:
        bounds.append(bounds[-1] + width + 1)
    parts: list[str] = []
    offsets: list[list[list[int]]] = []
    size = 0

    def put(text: str) -> None:
        nonlocal size
        parts.append(text)
        size += len(text)

    def border(char: str) -> None:
        put(indent + "+" + "+".join(char * width for width in widths) + "+" + newline)

    border("-")
    for number, (cells, row_spans) in enumerate(zip(rows, spans, strict=True)):
        row_offsets: list[list[int]] = [[] for _cell in cells]
        for line in range(len(cells[0])):
            put(indent + "|")
            column = 0
            for cell, (lines, span) in enumerate(zip(cells, row_spans, strict=True)):
                inner = bounds[column + span] - bounds[column] - 1
                put(" ")
                row_offsets[cell].append(size)
                text = lines[line]
                put(text + " " * (inner - 1 - column_width(text)) + "|")
                column += span
            put(newline)
        offsets.append(row_offsets)
        border("=" if header and number == 0 else "-")
    return "".join(parts), offsets


@settings(max_examples=60, deadline=None)
@given(
    table=grid_tables(),
    indent=st.sampled_from(["", "   "]),
    newline=st.sampled_from(["\n", "\r\n"]),
    data=st.data(),
)
def test_repadded_grid_tables_read_as_edited(
    table: tuple[list[list[list[str]]], list[list[int]], list[int], bool],
    indent: str,
    newline: str,
    data: st.DataObject,
) -> None:
    rows, spans, widths, header = table
    body, offsets = render(rows, spans, widths, header, indent, newline)
    before = f"Before.{newline}{newline}" + (f".. note::{newline}{newline}" if indent else "")
    after = f"{newline}After *this*.{newline}"
    text = before + body + after
    edits = []
    expected = []
    for cells, row_offsets in zip(rows, offsets, strict=True):
        for lines, line_offsets in zip(cells, row_offsets, strict=True):
            edited_lines = []
            for line, offset in zip(lines, line_offsets, strict=True):
                if len(line) > 1 and data.draw(st.booleans()):
                    start = data.draw(st.integers(1, len(line)))
                    end = data.draw(st.integers(start, len(line)))
                    new = data.draw(REPLACEMENT)
                    at = len(before) + offset
                    edits.append((at + start, at + end, new))
                    line = line[:start] + new + line[end:]
                edited_lines.append(line.strip())
            expected.append("\n".join(line for line in edited_lines if line))

    new_text, problems = apply_edits_checked(text, edits, read_table=read_table)

    assert problems == []
    assert parse_errors(new_text, "t.rst") == []
    assert entries(new_text) == expected
    assert new_text.startswith(before) and new_text.endswith(after)
    assert new_text.count(newline) == text.count(newline)


@st.composite
def simple_tables(draw: st.DrawFn) -> tuple[list[list[list[str]]], list[int], bool]:
    """Rows of lines of cells (a row's later lines leave the first column blank), the
    rules' widths (the last one may be shorter than its text), header."""
    count = draw(st.integers(2, 4))
    rows = []
    for _row in range(draw(st.integers(1, 4))):
        first = draw(st.lists(WORD, min_size=count, max_size=count))
        more = draw(
            st.lists(
                st.lists(WORD | st.just(""), min_size=count - 1, max_size=count - 1), max_size=1
            )
        )
        rows.append([first] + [["", *line] for line in more])
    widths = [
        max(column_width(line[column]) for row in rows for line in row) + draw(st.integers(0, 2))
        for column in range(count - 1)
    ]
    widths.append(draw(st.integers(1, 6)))
    return rows, widths, len(rows) > 1 and draw(st.booleans())


@settings(max_examples=40, deadline=None)
@given(table=simple_tables(), data=st.data())
def test_repadded_simple_tables_read_as_edited(
    table: tuple[list[list[list[str]]], list[int], bool], data: st.DataObject
) -> None:
    rows, widths, header = table
    rule = "  ".join("=" * width for width in widths)
    parts = ["Before.\n\n", rule + "\n"]
    size = sum(map(len, parts))
    edits = []
    expected: list[list[str]] = []
    for number, row in enumerate(rows):
        cells: list[list[str]] = [[] for _width in widths]
        for line in row:
            text = ""
            for column, (cell, width) in enumerate(zip(line, widths, strict=True)):
                if len(cell) > 1 and data.draw(st.booleans()):
                    start = data.draw(st.integers(1, len(cell)))
                    end = data.draw(st.integers(start, len(cell)))
                    new = data.draw(REPLACEMENT)
                    at = size + len(text)
                    edits.append((at + start, at + end, new))
                    cells[column].append((cell[:start] + new + cell[end:]).strip())
                else:
                    cells[column].append(cell)
                text += cell + " " * (width - column_width(cell) + 2)
            parts.append(text.rstrip() + "\n")
            size += len(parts[-1])
        expected.extend(cells)
        if header and number == 0:
            parts.append(rule + "\n")
            size += len(parts[-1])
    parts.append(rule + "\n\nAfter.\n")
    text = "".join(parts)
    assert parse_errors(text, "t.rst") == []

    new_text, problems = apply_edits_checked(text, edits, read_table=read_table)

    assert problems == []
    assert parse_errors(new_text, "t.rst") == []
    assert entries(new_text) == ["\n".join(line for line in cell if line) for cell in expected]
    assert new_text.startswith("Before.\n\n") and new_text.endswith("\n\nAfter.\n")
