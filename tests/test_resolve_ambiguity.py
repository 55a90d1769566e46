"""A moved page's ``../index.md#anchor`` names a page from its new folder and another from
its old one.  The page's other links do not decide (every link of it lands from both
folders), so the link goes to the one page that has the anchor, decided once all is
read; when both or neither have it, it is ambiguous: a warning naming both."""

from __future__ import annotations

import re
import shutil
from io import StringIO
from pathlib import Path
from typing import Any

import builds
import pytest

ROOT = Path(__file__).parent / "roots" / "test-resolve-ambiguity"
COLOR = re.compile(r"\x1b\[[0-9;]*m")
WITHOUT_BROKEN = {"exclude_patterns": ["_build", "guide/deep/broken.md"]}
WITH_BROKEN = {"relocate_map": {"guide/broken": "guide/deep/broken"}}


def hrefs(app: Any, page: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', (Path(app.outdir) / page).read_text("utf-8"))


@pytest.mark.sphinx("html", testroot="resolve-ambiguity", confoverrides=WITHOUT_BROKEN)
def test_link_goes_to_the_page_that_has_the_anchor(app: Any, warning: StringIO) -> None:
    app.build()
    assert COLOR.sub("", warning.getvalue()) == ""
    links = hrefs(app, "guide/deep/page.html")
    # only the old folder's page (the top-level index) has #setup, MyST link and .html link
    assert links.count("../../index.html#setup") == 2
    assert "../index.html#setup" not in links
    # the new folder's page has #topics: it stays there
    assert "../index.html#topics" in links


@pytest.mark.sphinx("html", testroot="resolve-ambiguity", confoverrides=WITH_BROKEN)
def test_anchor_on_neither_page_is_one_warning_naming_both(app: Any, warning: StringIO) -> None:
    app.build()
    lines = COLOR.sub("", warning.getvalue()).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].endswith("[relocate.ambiguous]")
    assert "broken.md:7:" in lines[0]
    assert "is ambiguous: it lands on `guide/index#nowhere` and on `index#nowhere`" in lines[0]
    assert lines[0].endswith("write the one you mean as a path from the top of the docs "
                             "(`/…`), which reads the same from every folder [relocate.ambiguous]")
    # never a silent choice: the link goes to the top of the page it names as written
    # (from the page's new folder), as for any missing anchor
    assert "../index.html" in hrefs(app, "guide/deep/broken.html")


def test_a_changed_anchor_set_rewrites_the_linking_page(tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(ROOT, srcdir)

    def build() -> tuple[list[str], str]:
        built = builds.build(srcdir, confoverrides=WITHOUT_BROKEN)
        return hrefs(built.app, "guide/deep/page.html"), built.warnings

    links, warnings = build()
    assert "../../index.html#setup" in links and warnings == ""
    # the new folder's page gains the anchor: both have it, the links (not re-read) are
    # ambiguous now
    index = srcdir / "guide" / "index.md"
    index.write_text(index.read_text("utf-8") + "\n## Setup\n\nThe guide's setup.\n", "utf-8")
    links, warnings = build()
    assert COLOR.sub("", warnings).count("[relocate.ambiguous]") == 2, warnings
    assert "page.md:5:" in warnings and "page.md:6:" in warnings
    # and loses it again: back to the old folder's page
    index.write_text(index.read_text("utf-8").partition("\n## Setup")[0] + "\n", "utf-8")
    links, warnings = build()
    assert links.count("../../index.html#setup") == 2 and warnings == ""
