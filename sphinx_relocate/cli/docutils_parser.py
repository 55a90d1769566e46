"""What the rewriter asks of docutils: how a reST table reads, and whether a file parses worse.

The core splices and re-pads (:mod:`sphinx_relocate.core.textedit`) without importing
docutils; ``sphinx-relocate rewrite`` hands it :func:`read_table`, and refuses a rewritten
file that :func:`adds_parse_errors` finds broken.

* ``read_table(kind, lines) -> TableReading`` reads a grid or simple table with docutils'
  own table parsers.
* ``parse_errors(text, path) -> list[tuple[int, str]]`` reads a file with plain docutils
  (reST) or MyST's docutils parser (Markdown) and returns its errors.
* ``adds_parse_errors(old_text, new_text, path) -> list[tuple[int, str]]`` returns only the
  errors the new text has and the old one had not, so that what plain docutils cannot know
  (Sphinx roles, directives, substitutions and links) never counts.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

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

from sphinx_relocate.core.textedit import Layout, TableReading, Unpaddable


class DocutilsParser:
    """docutils as the rewriter's :class:`~sphinx_relocate.core.textedit.SourceParser`
    (an object, so that it travels to the rewriter's worker processes)."""

    def read_table(self, kind: Literal["grid", "simple"], lines: Sequence[str]) -> TableReading:
        return read_table(kind, lines)

    def adds_parse_errors(self, old_text: str, new_text: str, path: str) -> list[tuple[int, str]]:
        return adds_parse_errors(old_text, new_text, path)


#: Suffixes :func:`parse_errors` reads as reStructuredText and as MyST Markdown.
_REST_SUFFIXES = (".rst", ".rest", ".txt")
_MARKDOWN_SUFFIXES = (".md", ".markdown")


def read_table(kind: Literal["grid", "simple"], lines: Sequence[str]) -> TableReading:
    """docutils' reading of a table's lines (a ``textedit.TableReader``)."""
    parser: TableParser = GridTableParser() if kind == "grid" else SimpleTableParser()
    block = StringList(list(lines))
    block.pad_double_width(parser.double_width_pad_char)
    try:
        colspecs, head, body = parser.parse(block)
    except (TableMarkupError, AssertionError) as error:
        raise Unpaddable(" ".join(str(arg) for arg in error.args) or "malformed") from None
    layout: Layout = []
    contents: list[list[str]] = []
    for row in head + body:
        layout.append([None if cell is None else (cell[0], cell[1], cell[2]) for cell in row])
        contents.extend(list(cell[3]) for cell in row if cell is not None)
    return TableReading(list(colspecs), len(head), layout, contents)


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
