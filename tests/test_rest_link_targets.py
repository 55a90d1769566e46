"""reST link targets to pages: anonymous ones, and the markup of a moved page's link.

A page that moves keeps the pages and files anonymous targets (``.. __: path`` and its
short form ``__ path``) name only when both forms are rewritten by ``mv`` and read from
the old folder by the build; the short form was mapped by the build alone, so the
rewritten sources lost its link without the extension.
"""

from __future__ import annotations

from pathlib import Path

import builds
import pytest
from reorg_fixture import write_tree

from sphinx_relocate.cli.main import main

GUIDE = (
    "Guide\n=====\n\nSee `the other page`__, `the start`__ and `more`__.\n\n"
    "__ other.html\n.. __: index.html#home\n\n__ other.html#part\n"
)


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["sphinx_relocate"]\nshow_warning_types = True\n',
        "index.rst": ".. _home:\n\nHome\n====\n\n.. toctree::\n\n   guide\n   other\n",
        "guide.rst": GUIDE,
        "other.rst": "Other\n=====\n\nPart\n----\n",
    }, {})
    return docs


def _hrefs(built: builds.Built, page: str) -> str:
    return (built.outdir / page).read_text("utf-8")


def test_mv_rewrites_both_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "guide.rst", "dev/guide.rst"]) == 0
    assert (docs / "dev/guide.rst").read_text("utf-8") == GUIDE.replace(
        "__ other", "__ ../other").replace(".. __: index", ".. __: ../index")
    (docs / "conf.py").write_text("extensions = []\n", "utf-8")
    html = _hrefs(builds.build(docs, fresh=True), "dev/guide.html")
    for href in ("../other.html", "../index.html#home", "../other.html#part"):
        assert f'href="{href}"' in html, html


def test_the_build_reads_both_forms_from_the_old_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "guide.rst", "dev/guide.rst", "--keep-links"]) == 0
    built = builds.build(docs, fresh=True)
    assert "WARNING" not in built.warnings, built.warnings
    html = _hrefs(built, "dev/guide.html")
    for href in ("../other.html", "../index.html#home", "../other.html#part"):
        assert f'href="{href}"' in html, html


def test_a_moved_page_link_keeps_sphinx_s_markup(tmp_path: Path) -> None:
    """pytest's ``.. _nose: nose.html``, the page moved to ``how-to/``: the html builder
    writes the link as plain Sphinx writes the rewritten source, an external reference
    (a theme marks those), and dirhtml the page's own URL."""
    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["sphinx_relocate"]\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   how-to/nose\n   adopt\n",
        "how-to/nose.rst": "Nose\n====\n\nPart\n----\n",
        "adopt.rst": "Adopt\n=====\n\nSee nose_ and `part <nose.html#part>`_.\n\n"
                     ".. _nose: nose.html\n",
        "relocations.toml": '[pages]\n"nose" = "how-to/nose"\n',
    }, {})
    html = _hrefs(builds.build(docs, fresh=True), "adopt.html")
    assert '<a class="reference external" href="how-to/nose.html">' in html, html
    assert '<a class="reference external" href="how-to/nose.html#part">' in html, html
    dirhtml = builds.build(docs, "dirhtml", fresh=True)
    page = _hrefs(dirhtml, "adopt/index.html")
    assert 'href="../how-to/nose/#part"' in page, page
