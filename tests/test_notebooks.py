"""Jupyter notebooks (MyST-NB, nbsphinx): their Markdown cells hold links like any page.

The span finder reads each Markdown cell of a notebook's JSON as MyST and gives the
targets at their offsets in the JSON text, so the build's frame rule, ``rewrite`` and
``mv`` read and edit a notebook as they do a Markdown page, and nothing else in it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from builds import build
from hypothesis import example, given
from hypothesis import strategies as st
from oracle import compare, expected, landings
from reorg_fixture import git

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.spans import find_targets

MARKDOWN = "See [the other page](other.md), [its part](other.md#part-two) and ![pic](img/p.png).\n"


def notebook(*cells: tuple[str, str], ascii_only: bool = False) -> str:
    """A notebook of ``(cell_type, source)`` cells, as Jupyter writes one."""
    return json.dumps({
        "cells": [
            {"cell_type": kind, "id": f"cell-{index}", "metadata": {},
             "source": source.splitlines(keepends=True),
             **({"outputs": [], "execution_count": None} if kind == "code" else {})}
            for index, (kind, source) in enumerate(cells)
        ],
        "metadata": {"title": "[not a link](x.md)"},
        "nbformat": 4,
        "nbformat_minor": 5,
    }, indent=1, ensure_ascii=ascii_only) + "\n"


def targets(text: str, path: str) -> list[str]:
    return [text[span.start : span.end] for span in find_targets(text, path)]


def test_only_markdown_cells_hold_links() -> None:
    text = notebook(("markdown", "# Title\n\n" + MARKDOWN),
                    ("code", 'print("[a](code.md)")\n'), ("raw", "[b](raw.md)\n"))
    assert targets(text, "nb.ipynb") == ["other.md", "other.md#part-two", "img/p.png"]
    assert targets("not json", "nb.ipynb") == []
    assert targets('{"cells": 3}', "nb.ipynb") == []


PIECES = ["[a](a.md) ", "![i](i.png) ", "中文 ", '"quoted" ', "tab\there ", "\\back ",
          "`[c](c.md)` ", "\n", "<a href=\"h.md\">h</a> ", "[d](<d e.md>) ", "é "]


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8), min_size=1, max_size=3),
       st.booleans())
# escaped CJK before the second link put the first link's place under it
@example(cells=[["中文 ", "[a](a.md) ", "[a](a.md) "]], ascii_only=True)
def test_a_notebook_has_the_targets_of_its_cells(cells: list[list[str]], ascii_only: bool) -> None:
    """Each target is at its place in the JSON text: the same targets, in order, as the
    cells read as Markdown, where the JSON writes a target as the cell does."""
    sources = ["".join(pieces) for pieces in cells]
    text = notebook(*(("markdown", source) for source in sources), ascii_only=ascii_only)
    want = [target for source in sources for target in targets(source, "page.md")
            if json.dumps(target, ensure_ascii=ascii_only)[1:-1] == target]
    assert targets(text, "nb.ipynb") == want


def test_rewrite_edits_a_notebook_as_json(tmp_path: Path) -> None:
    """A moved notebook's own links are rewritten in its Markdown cells; code cells and
    metadata stay; the file stays JSON that reads as the same notebook but for them."""
    root = tmp_path / "repo"
    (root / "guide").mkdir(parents=True)
    (root / "img").mkdir()
    (root / "conf.py").write_text('extensions = ["myst_nb"]\nnb_execution_mode = "off"\n',
                                  "utf-8")
    (root / "index.md").write_text("# Home\n\n```{toctree}\nguide/nb\nguide/other\n```\n",
                                   "utf-8")
    (root / "guide" / "other.md").write_text("# Other\n\n## Part two\n", "utf-8")
    (root / "img" / "p.png").write_bytes(b"PNG")
    cell = "# NB\n\n" + MARKDOWN.replace("img/", "../img/") + "中文 [home](../index.md)\n"
    text = notebook(("markdown", cell), ("code", 'x = "[a](other.md)"\n'))
    (root / "guide" / "nb.ipynb").write_text(text, "utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "original")
    assert main(["mv", str(root), "guide/nb.ipynb", "tutorials/deep/nb.ipynb"]) == 0
    assert (root / "relocations.toml").read_text("utf-8") == (
        '[pages]\n"guide/nb" = "tutorials/deep/nb"\n'
    )
    moved = json.loads((root / "tutorials/deep/nb.ipynb").read_text("utf-8"))
    before = json.loads(text)
    assert moved["cells"][1] == before["cells"][1] and moved["metadata"] == before["metadata"]
    assert "".join(moved["cells"][0]["source"]) == (
        "# NB\n\nSee [the other page](../../guide/other.md), [its part]"
        "(../../guide/other.md#part-two) and ![pic](../../img/p.png).\n"
        "中文 [home](../../index.md)\n"
    )


def test_a_moved_notebook_builds_with_every_link_landing(tmp_path: Path) -> None:
    """MyST-NB: the notebook moved by the table, its links written from its old folder,
    land where they did (the landing oracle); ``rewrite`` then a plain build too."""
    pytest.importorskip("myst_nb")
    original = tmp_path / "original"
    (original / "guide").mkdir(parents=True)
    (original / "img").mkdir()
    # source_suffix written out: Sphinx adds an extension's suffixes to its default
    # value itself, which every later app of this process (MyST's) would then read
    conf = ('extensions = ["myst_nb"]\nnb_execution_mode = "off"\nmyst_heading_anchors = 2\n'
            'exclude_patterns = ["_build"]\nsource_suffix = {".rst": "restructuredtext", '
            '".md": "myst-nb", ".ipynb": "myst-nb"}\n')
    (original / "conf.py").write_text(conf, "utf-8")
    (original / "index.md").write_text("# Home\n\n```{toctree}\nguide/nb\nguide/other\n```\n",
                                       "utf-8")
    (original / "guide" / "other.md").write_text("# Other\n\n## Part two\n\nText.\n", "utf-8")
    (original / "img" / "p.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (original / "guide" / "nb.ipynb").write_text(
        notebook(("markdown", "# NB\n\n" + MARKDOWN.replace("img/", "../img/"))), "utf-8"
    )
    plain = build(original, fresh=True)
    moved = tmp_path / "moved"
    shutil.copytree(original, moved, ignore=shutil.ignore_patterns("_build"))
    (moved / "tutorials/deep").mkdir(parents=True)
    (moved / "guide/nb.ipynb").rename(moved / "tutorials/deep/nb.ipynb")
    (moved / "relocations.toml").write_text('[pages]\n"guide/nb" = "tutorials/deep/nb"\n',
                                            "utf-8")
    (moved / "conf.py").write_text(conf.replace('"myst_nb"]', '"myst_nb", "sphinx_relocate"]'),
                                   "utf-8")
    built = build(moved, fresh=True)
    assert "WARNING" not in built.warnings, built.warnings
    found = landings(built.outdir, moved)
    want = expected(plain.outdir, original, moved / "relocations.toml", set(found))
    assert compare(want, found) == []
    assert sum(len(links) for links in want.values()) >= 5
    # rewritten, then built without the extension
    assert main(["rewrite", str(moved), "--repo-root", str(moved), "--write"]) == 0
    (moved / "conf.py").write_text(conf, "utf-8")
    rebuilt = build(moved, fresh=True)
    assert "WARNING" not in rebuilt.warnings, rebuilt.warnings
    assert compare(want, landings(rebuilt.outdir, moved)) == []
