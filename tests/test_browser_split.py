"""A split page in a real browser: headless Chromium (JavaScript on) opens
``guide.html#tuning`` and ``guide.html#something-else`` of ``guide``, split into
``guide/basics`` and ``guide/advanced``; the stub forwards each to the section it names.

The table is the one :mod:`test_split` checks: ``[pages]`` sends ``guide`` to
``guide/basics`` (its fallback, where ``#something-else`` still is) and ``[anchors]``
sends ``guide#tuning`` to ``guide/advanced``.  Each section stands between tall spacers,
so the section a fragment lands on is at the window's top and one it misses is not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from reorg_fixture import write_tree
from test_browser_old_ids import Tabs, build_sites, probe
from test_split import AFTER, CONF, TABLE

pytestmark = pytest.mark.browser

SPACER = '\n<div style="height: 3000px"></div>\n\n'


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("browser-split")
    src = base / "src"
    pages = {path.removeprefix("docs/"): text.replace("\n## ", f"{SPACER}## ") + SPACER
             for path, text in AFTER.items()}
    write_tree(src, {**pages, "conf.py": CONF, "relocations.toml": TABLE}, {})
    return build_sites(base)


def test_the_sections_of_a_split_page_land_in_chromium(
    sites: dict[str, Path], tmp_path: Path
) -> None:
    html, dirhtml = sites["html"].as_uri(), sites["dirhtml"].as_uri()
    cases = [
        # a section that went to the other half: its [anchors] entry
        (f"{html}/guide.html#tuning", "guide/advanced.html", "tuning"),
        (f"{dirhtml}/guide/index.html#tuning", "guide/advanced/index.html", "tuning"),
        # a section that stayed: the page's fallback
        (f"{html}/guide.html#something-else", "guide/basics.html", "something-else"),
        (f"{dirhtml}/guide/index.html#something-else", "guide/basics/index.html",
         "something-else"),
    ]
    assert_land(cases, tmp_path)


def assert_land(cases: list[tuple[str, str, str]], tmp_path: Path) -> None:
    """Each URL, opened in Chromium, ends on ``page#section`` with the section at the top
    of the window."""
    browser = Tabs(tmp_path / "js")
    try:
        found: list[dict[str, Any]] = [probe(browser, url) for url, _, _ in cases]
        finals = browser.urls()
    finally:
        browser.close()
    pages = sorted(finals.values())
    for (url, page, section), seen in zip(cases, found, strict=True):
        assert seen["section"] == section, (url, seen)
        assert seen["target"] == section, (url, seen)
        assert seen["scrolled"] > 0, (url, seen)  # the page moved to the section ...
        assert abs(seen["top"]) <= 2, (url, seen)  # ... which is at the window's top
        assert any(final.endswith(f"/{page}#{section}") for final in pages), (page, pages)


@pytest.fixture(scope="module")
def kept_sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``guide`` keeps its name and most of its text; its Tuning section went to
    ``guide/advanced`` (one ``[anchors]`` entry, no ``[pages]`` one)."""
    base = tmp_path_factory.mktemp("browser-departed")
    pages = {
        "index.md": "# Home\n\n```{toctree}\nguide\nguide/advanced\n```\n",
        "guide.md": f"# Guide\n\n## Something else\n\n{SPACER}## Kept\n\nStays.\n{SPACER}",
        "guide/advanced.md": f"# Advanced\n{SPACER}## Tuning\n\nMoved here.\n{SPACER}",
        "conf.py": CONF,
        "relocations.toml": '[anchors]\n"guide#tuning" = "guide/advanced#tuning"\n',
    }
    write_tree(base / "src", pages, {})
    return build_sites(base)


def test_a_section_that_left_a_page_still_there_lands_in_chromium(
    kept_sites: dict[str, Path], tmp_path: Path
) -> None:
    html, dirhtml = kept_sites["html"].as_uri(), kept_sites["dirhtml"].as_uri()
    cases = [
        # the section that left: the page's own script sends it on, query and all
        (f"{html}/guide.html?q=1#tuning", "guide/advanced.html?q=1", "tuning"),
        (f"{dirhtml}/guide/index.html#tuning", "guide/advanced/index.html", "tuning"),
        # one that stayed: the page itself
        (f"{html}/guide.html#kept", "guide.html", "kept"),
    ]
    assert_land(cases, tmp_path)
