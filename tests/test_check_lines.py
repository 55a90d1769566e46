"""Findings at the link's own line: not the line of the paragraph, list item or table
row it stands in, for MyST and reST alike."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent / "roots" / "test-check-lines"
COLOR = re.compile(r"\x1b\[[0-9;]*m")
WARNING = re.compile(r"^(?P<file>.+?):(?P<line>\d+): WARNING: .*? \[(?P<type>[\w.]+)\]$")

#: (file, text on the link's line, warning type): each link is on its own line
EXPECTED = [
    ("index.md", "whose second line has [one](gone/second.md)", "relocate.link"),
    ("index.md", "and whose third line [another](gone/third.md)", "relocate.link"),
    ("index.md", "[here](gone/twice.md) on its first line", "relocate.link"),
    ("index.md", "[here again](gone/twice.md) on its second", "relocate.link"),
    ("index.md", "- A list item with [a link](gone/item.md)", "relocate.link"),
    ("index.md", "on its second line: [t](gone/item-second.md)", "relocate.link"),
    ("index.md", "| a cell | [cell](gone/cell.md) |", "relocate.link"),
    ("index.md", "[t](page.md#no-such-anchor)", "relocate.anchor"),
    ("index.md", "[t](#no/such-label)", "relocate.link"),
    ("index.md", "[t](other.md#nope)", "relocate.anchor"),
    ("index.md", "[t](./other.md#nope-again)", "relocate.anchor"),
    ("index.md", "{doc}`gone/role`", "relocate.link"),
    ("index.md", '<a href="gone/raw.md">', "relocate.raw_html"),
    ("page.rst", "whose second line has `one <gone/second.html>`_", "relocate.link"),
    ("page.rst", "and whose third line `another <gone/third.html>`_", "relocate.link"),
    ("page.rst", "- A list item with `a link <gone/item.html>`_", "relocate.link"),
    ("page.rst", "on its second line: `t <gone/item-second.html>`_", "relocate.link"),
    ("page.rst", "| a cell | `cell <gone/cell.html>`_", "relocate.link"),
    ("page.rst", ":doc:`a doc link <gone/doc>`", "relocate.link"),
    ("page.rst", ":doc:`another <gone/doc2>`", "relocate.link"),
    ("page.rst", ":download:`here <gone/file.zip>`", "relocate.download"),
    ("page.rst", '<a href="gone/raw.html">', "relocate.raw_html"),
]
#: a link in a file that index.md includes: warned at its own file, as MyST does (MyST 4
#: gives included lines one more than MyST 5)
INCLUDED = ("fragment.md", "[frag](gone/frag.md)", "relocate.link")


def line_of(srcdir: Path, file: str, text: str) -> int:
    lines = (srcdir / file).read_text("utf-8").splitlines()
    found = [number for number, line in enumerate(lines, 1) if text in line]
    assert len(found) == 1, (file, text)
    return found[0]


def findings(make_app: Callable[..., Any], srcdir: Path, **overrides: Any) -> list[tuple]:
    app = make_app("html", srcdir=srcdir, freshenv=True, confoverrides=overrides)
    try:
        app.build()
    finally:
        app.cleanup()
    found = []
    for line in COLOR.sub("", app.warning.getvalue()).splitlines():
        match = WARNING.match(line.strip())
        if match:
            file = os.path.relpath(match["file"], srcdir).replace(os.sep, "/")
            found.append((file, int(match["line"]), match["type"]))
    return sorted(found)


def test_each_finding_at_its_links_line(make_app: Callable[..., Any], tmp_path: Path) -> None:
    srcdir = tmp_path / "docs"
    shutil.copytree(ROOT, srcdir)
    expected = sorted((file, line_of(srcdir, file, text), kind) for file, text, kind in EXPECTED)
    found = findings(make_app, srcdir)
    file, text, kind = INCLUDED
    included = [f for f in found if f[0] == file]
    assert [(f[0], f[2]) for f in included] == [(file, kind)]
    assert included[0][1] - line_of(srcdir, file, text) in (0, 1)
    assert [f for f in found if f[0] != file] == expected


def test_rewrites_reported_at_their_links_line(
    make_app: Callable[..., Any], tmp_path: Path
) -> None:
    """``relocate.outdated`` (``relocate_report_rewrites``) names the link's line too."""
    srcdir = tmp_path / "docs"
    shutil.copytree(ROOT, srcdir)
    (srcdir / "relocations.toml").write_text('[prefixes]\n"gone/" = "here/"\n', "utf-8")
    (srcdir / "here").mkdir()
    (srcdir / "here" / "third.md").write_text("# Third\n", "utf-8")
    (srcdir / "here" / "item-second.rst").write_text("Item\n====\n", "utf-8")
    outdated = [
        (file, line) for file, line, kind in findings(
            make_app, srcdir, relocate_report_rewrites=True
        ) if kind == "relocate.outdated"
    ]
    assert outdated == sorted([
        ("index.md", line_of(srcdir, "index.md", "[another](gone/third.md)")),
        ("index.md", line_of(srcdir, "index.md", "[t](gone/item-second.md)")),
        # a page named by a source file it does not have (page.md of page.rst)
        ("index.md", line_of(srcdir, "index.md", "[t](page.md#no-such-anchor)")),
        ("page.rst", line_of(srcdir, "page.rst", "`another <gone/third.html>`_")),
        ("page.rst", line_of(srcdir, "page.rst", "`t <gone/item-second.html>`_")),
    ])


class FakeEnv:
    """What :class:`Locator` asks of an environment: where a document's source is."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def doc2path(self, docname: str) -> str:
        return str(self.folder / f"{docname}.md")


def locate(tmp_path: Path, text: str, refs: list[tuple[int, str]]) -> list[int]:
    from sphinx_relocate.sphinx_ext.check import Locator
    from sphinx_relocate.sphinx_ext.record import Reference
    from sphinx_relocate.sphinx_ext.warnings import RelocateWarning

    (tmp_path / "page.md").write_text(text, "utf-8")
    locator = Locator(FakeEnv(tmp_path), (".md",))  # type: ignore[arg-type]
    return [
        locator.line(Reference("page", line, RelocateWarning.LINK, written, written, False))
        for line, written in refs
    ]


def test_locator_takes_each_occurrence_once_within_its_block(tmp_path: Path) -> None:
    text = (
        "First [a](x/y.md) and\n"  # 1
        "again [a](x/y.md), [b](x/y.mdx)\n"  # 2
        "\n"
        "Next block [c](z.md)\n"  # 4
        "\n"
        "   indented [d](x/y.md)\n"  # 6: a code block, not the first block's
    )
    # two references of the first block to x/y.md: lines 1 and 2; a third has none left
    # in its block and keeps the line it was given
    assert locate(tmp_path, text, [(1, "x/y.md"), (1, "x/y.md"), (1, "x/y.md")]) == [1, 2, 1]
    assert locate(tmp_path, text, [(1, "x/y.mdx"), (4, "z.md"), (1, "z.md")]) == [2, 4, 1]
    # not in the text at all, or no line: as given
    assert locate(tmp_path, text, [(2, "gone.md"), (0, "x/y.md")]) == [2, 0]
