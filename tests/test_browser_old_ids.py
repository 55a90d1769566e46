"""Old ids in a real browser: headless Chromium, JavaScript off, opens ``page.html#old-id``
of a page that did not move and must scroll to the renamed section.

The pages of ``test-old-ids`` are long (filler before and after each section), so a
fragment that matches nothing leaves the page at its top, and one that matches puts
the section at the top of the window.  Pages are opened over ``file://`` with
``--blink-settings=scriptEnabled=false``; what the browser did is read over the
DevTools protocol, which runs its own expressions while the page's scripts are off.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import builds
import pytest
from test_browser_stubs import Browser

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parent / "roots" / "test-old-ids"

#: what the tab shows: the element the fragment names, the section it stands in, and
#: where that section is in the window
_PROBE = """(() => {
  const target = document.querySelector(':target');
  const section = target && target.closest('section');
  return JSON.stringify({
    ready: document.readyState,
    target: target && target.id,
    section: section && section.id,
    top: section ? Math.round(section.getBoundingClientRect().top) : null,
    scrolled: Math.round(window.scrollY),
  });
})()"""


class Tabs(Browser):
    """A :class:`Browser` that also evaluates expressions in a tab (flat sessions)."""

    def evaluate(self, tab: str, expression: str, timeout: float = 20.0) -> Any:
        """The value of ``expression`` in the tab.  Chromium answers with an error while
        the tab's page is being replaced (its execution context is gone: a loaded machine
        makes that window wide), so an answer without a result is asked for again."""
        deadline = time.monotonic() + timeout
        while True:
            session = self.call("Target.attachToTarget", targetId=tab, flatten=True).get(
                "sessionId"
            )
            if session is not None:
                reply = self.send({"sessionId": session, "method": "Runtime.evaluate",
                                   "params": {"expression": expression, "returnByValue": True}})
                if "result" in reply.get("result", {}):
                    return reply["result"]["result"].get("value")
            if time.monotonic() > deadline:
                raise AssertionError(f"Chromium gave no value for {expression[:40]!r}")
            time.sleep(0.05)


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("browser-old-ids")
    shutil.copytree(ROOT, base / "src")
    return build_sites(base)


def build_sites(base: Path) -> dict[str, Path]:
    """The project in ``base / "src"`` built as html and dirhtml, by builder."""
    return {
        builder: builds.build(base / "src", builder, builddir=base / builder, fresh=True).outdir
        for builder in ("html", "dirhtml")
    }


def probe(browser: Tabs, url: str, timeout: float = 20.0) -> dict[str, Any]:
    """What the tab shows once the page is loaded (and has scrolled, or time is up)."""
    tab = browser.open(url)
    deadline = time.monotonic() + timeout
    while True:
        found: dict[str, Any] = json.loads(browser.evaluate(tab, _PROBE) or "{}")
        if (found.get("ready") == "complete" and found.get("scrolled")) or (
            time.monotonic() > deadline
        ):
            found["scripts"] = browser.evaluate(tab, "typeof DOCUMENTATION_OPTIONS")
            return found
        time.sleep(0.05)


def test_an_old_id_scrolls_to_the_renamed_section_without_javascript(
    sites: dict[str, Path], tmp_path: Path
) -> None:
    html, dirhtml = sites["html"].as_uri(), sites["dirhtml"].as_uri()
    cjk = "%E6%97%A7%E7%9A%84%E5%AE%89%E8%A3%85"  # 旧的安装, as a link writes it
    cases = [
        # a heading renamed on a page that did not move
        (f"{html}/faq.html#install-problems", "installation-issues"),
        (f"{dirhtml}/faq/index.html#install-problems", "installation-issues"),
        # a renamed label
        (f"{html}/faq.html#old-label", "installation-issues"),
        # a MyST heading with a CJK slug
        (f"{html}/notes.html#{cjk}", "id1"),
        (f"{dirhtml}/notes/index.html#{cjk}", "id1"),
        # an old fragment of a moved page, reached on the new page
        (f"{html}/new/guide.html#tuning-old", "tuning"),
        (f"{dirhtml}/new/guide/index.html#tuning-old", "tuning"),
    ]
    browser = Tabs(tmp_path / "nojs", "--blink-settings=scriptEnabled=false")
    try:
        found = [probe(browser, url) for url, _ in cases]
        unknown = probe(browser, f"{html}/faq.html#no-such-id", timeout=2.0)
    finally:
        browser.close()
    for (url, section), seen in zip(cases, found, strict=True):
        # the page's own scripts did not run (Sphinx's documentation_options.js)
        assert seen["scripts"] == "undefined", (url, seen)
        assert seen["section"] == section, (url, seen)
        assert seen["scrolled"] > 0, (url, seen)  # the page moved to the section ...
        assert abs(seen["top"]) <= 2, (url, seen)  # ... which is at the window's top
    # a fragment that names nothing leaves the page at its top
    assert unknown["target"] is None and unknown["scrolled"] == 0, unknown
