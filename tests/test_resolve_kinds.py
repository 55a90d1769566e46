"""The kinds of reference are one registry (``_resolve.REFERENCE_KINDS``): the check
reads their flags and names no kind itself, and a kind outside the registry is an error."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from docutils import nodes
from hypothesis import given
from hypothesis import strategies as st
from sphinx import addnodes

from sphinx_relocate.core.spans import find_targets
from sphinx_relocate.sphinx_ext import check
from sphinx_relocate.sphinx_ext.record import Reference
from sphinx_relocate.sphinx_ext.resolve import (
    _SOURCE_MARKERS,
    _SOURCE_SPANS,
    REFERENCE_KINDS,
    kind_of,
)
from sphinx_relocate.sphinx_ext.state import Settings
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning


def test_every_recorded_kind_is_one_entry() -> None:
    kinds = [entry.kind for entry in REFERENCE_KINDS if entry.kind is not None]
    assert len(kinds) == len(set(kinds))
    for kind in kinds:
        assert kind_of(kind).kind is kind
    # toctree entries, includes and raw HTML are entries too
    labels = {entry.label for entry in REFERENCE_KINDS}
    assert {"toctree", "include", "raw html", "image", "download"} <= labels


def _first_kind(node: object) -> RelocateWarning | None:
    """The kind ``on_doctree_read`` takes a node for: the first entry whose adapter applies."""
    return next(
        (
            entry.kind
            for entry in REFERENCE_KINDS
            for adapter in entry.node_adapters
            if isinstance(node, adapter.node) and adapter.applies(node)
        ),
        None,
    )


def test_the_order_of_the_registry_decides_between_kinds() -> None:
    """A download reference is also a reference; a MyST link that names no file may name
    a label, which the link's adapter asks itself."""
    download = addnodes.download_reference("", "", reftarget="x.zip", refuri="x.zip")
    assert _first_kind(download) is RelocateWarning.DOWNLOAD
    myst = addnodes.pending_xref("", reftype="myst", refdomain=None, reftarget="name")
    assert _first_kind(myst) is RelocateWarning.LINK
    ref = addnodes.pending_xref("", reftype="ref", refdomain="std", reftarget="name")
    assert _first_kind(ref) is RelocateWarning.LABEL
    assert _first_kind(nodes.reference("", "", refuri="page.html")) is RelocateWarning.LINK
    assert _first_kind(nodes.raw("", "<a href='x'>", format="html")) is RelocateWarning.RAW_HTML
    assert _first_kind(nodes.raw("", "x", format="latex")) is None


def test_a_subtype_that_is_no_kind_of_reference_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a kind of reference"):
        kind_of(RelocateWarning.STUB)


def test_the_check_fails_on_an_unknown_kind() -> None:
    """No silent mapping to ``link``: a record of another subtype stops the check."""
    ref = Reference("page", 1, RelocateWarning.SUMMARY, "x.md", "x.md", False)
    checker = check.Checker.__new__(check.Checker)
    checker.settings = Settings()
    with pytest.raises(ValueError, match="not a kind of reference"):
        checker.check(ref)


def test_a_kind_is_its_subtype_and_equals_its_value() -> None:
    """Records compare with (and hash as) the subtype's value, as when they were strings."""
    assert RelocateWarning.RAW_HTML == "raw_html"
    assert {RelocateWarning.LINK, RelocateWarning.IMAGE} == {"link", "image"}
    assert str(RelocateWarning.LINK) == "relocate.link"


def test_the_check_compares_no_kind_by_name() -> None:
    """Every decision about a kind is a flag of its registry entry, none a list in
    ``_check``: no ``.kind`` is compared there (``==``, ``in``, ``is``)."""
    tree = ast.parse(Path(check.__file__).read_text("utf-8"))
    compared = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(
            isinstance(operand, ast.Attribute) and operand.attr == "kind"
            for operand in (node.left, *node.comparators)
        )
    ]
    assert compared == []


def test_undecided_is_a_value_of_its_own() -> None:
    """The frame not read yet, and ``rewrite``'s answer that waits for it, are one enum
    member: never an index (``-1`` named the last folder) nor a string target."""
    from sphinx_relocate.core.landing import UNDECIDED, Site, Undecided

    assert isinstance(UNDECIDED, Undecided) and not isinstance(UNDECIDED, (int, str))
    assert Site(("docs/new", "docs/old"), "docs", UNDECIDED).frame is UNDECIDED


# -- the markers that let source-read skip a text --------------------------------

_PIECES = (
    ".. include:: part.rst\n",
    ".. literalinclude:: code.py\n   :lines: 1-3\n",
    ".. csv-table:: Data\n   :file: data.csv\n",
    ".. csv-table:: Data\n   :file:\tdata.csv\n",
    "```{include} part.md\n```\n",
    ":::{literalinclude} code.py\n:::\n",
    "```{csv-table}\n:file: data.csv\n```\n",
    ".. raw:: html\n   :file: chart.html\n",
    "```{raw} html\n:file: chart.html\n```\n",
    "```{eval-rst}\n.. include:: part.rst\n```\n",
    "Read :file:`conf.py` and include it.\n",
    "The ``include`` option includes: everything.\n",
    "::\n\n   .. include:: in-a-literal-block.rst\n",
    "`include <x.rst>`_ and [include](y.md)\n",
    "\n",
)


@given(st.lists(st.sampled_from(_PIECES), max_size=6), st.sampled_from([".rst", ".md"]))
def test_a_text_without_source_markers_has_no_include_span(
    pieces: list[str], suffix: str
) -> None:
    """``on_source_read`` skips a text that has none of ``_SOURCE_MARKERS``: only where
    the span finder would have found no file a directive reads."""
    text = "".join(pieces)
    found = [s for s in find_targets(text, "page" + suffix) if s.syntax in _SOURCE_SPANS]
    if found:
        assert any(marker in text for marker in _SOURCE_MARKERS), text


@pytest.mark.parametrize(("text", "suffix"), [
    (".. raw:: html\n   :file: chart.html\n", ".rst"),
    (".. raw:: latex\n   :file: chart.tex\n", ".rst"),
    ("```{raw} html\n:file: chart.html\n```\n", ".md"),
])
def test_raw_reads_its_file_option(text: str, suffix: str) -> None:
    """``raw :file:`` reads a file while the page is parsed, as ``csv-table :file:``."""
    found = [text[s.start : s.end] for s in find_targets(text, "page" + suffix)
             if s.syntax in _SOURCE_SPANS]
    assert found == [text.split(":file: ")[1].split("\n")[0]]
