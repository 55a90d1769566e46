"""Redirect stubs in a real browser: headless Chromium opens each stub with ``?q=1#frag``.

The final URL of each tab is read over the DevTools protocol (``--remote-debugging-pipe``:
no port, nothing leaves the machine).  The external target is a page on 127.0.0.1.
html stubs and dirhtml stubs are opened over ``file://``; a dirhtml stub sends the
reader to the page's ``index.html`` (``new/plain/index.html``), since a folder URL opened
from disk shows a folder listing, not the page.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parent / "roots" / "test-stubs"
CHROMIUM = shutil.which("chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
    "--renderer-process-limit=1",  # tabs share one renderer: about 2x faster here
)

if CHROMIUM is None or sys.platform == "win32":
    if os.environ.get("CI") and sys.platform != "win32":
        pytest.fail("CI must install Debian's chromium for the browser tests", pytrace=False)
    pytest.skip(
        "headless Chromium is not installed (Debian: apt-get install chromium; .ci/run does it)",
        allow_module_level=True,
    )


class _Page(BaseHTTPRequestHandler):
    """The external target: any path answers 200 with a small page."""

    def do_GET(self) -> None:
        body = b"<!DOCTYPE html><title>external</title><p>external page</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class Browser:
    """One headless Chromium driven over ``--remote-debugging-pipe`` (fds 3 and 4)."""

    def __init__(self, profile: Path, *flags: str) -> None:
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def wire() -> None:  # in the child: our pipe ends become fds 3 and 4
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # its singleton socket goes to $TMPDIR and outlives the kill below: give it a
        # folder of its own, removed on close (short: a socket path has 107 bytes at most)
        self._scratch = tempfile.mkdtemp(prefix="relocate-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM or "chromium", *FLAGS, f"--user-data-dir={profile}", *flags, "about:blank"],
            env={**os.environ, "TMPDIR": self._scratch},
            preexec_fn=wire,
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self.send({"method": method, "params": params}).get("result", {})

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one DevTools message (numbered here) and return the reply to it."""
        self._id += 1
        os.write(self._write, json.dumps({"id": self._id, **message}).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
            raw, _, self._buffer = self._buffer.partition(b"\0")
            reply: dict[str, Any] = json.loads(raw)
            if reply.get("id") == self._id:
                return reply

    def open(self, url: str) -> str:
        return str(self.call("Target.createTarget", url=url)["targetId"])

    def urls(self) -> dict[str, str]:
        infos = self.call("Target.getTargets")["targetInfos"]
        return {info["targetId"]: info["url"] for info in infos}

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self._scratch, ignore_errors=True)


def settle(opened: list[tuple[Browser, str, str]], timeout: float = 20.0) -> list[str]:
    """Poll until every tab shows its expected URL (or time is up); return the final URLs."""
    deadline = time.monotonic() + timeout
    while True:
        seen = {}
        for browser in {b for b, _, _ in opened}:
            seen.update(browser.urls())
        finals = [seen.get(tab, "") for _, tab, _ in opened]
        if finals == [want for _, _, want in opened] or time.monotonic() > deadline:
            return finals
        time.sleep(0.05)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory, server: str) -> dict[str, Path]:
    """The test project built with html and dirhtml, with an external target on loopback."""
    base = tmp_path_factory.mktemp("browser")
    src = base / "src"
    shutil.copytree(ROOT, src)
    # a renamed label on the page the old pages moved to: its old anchor travels
    plain = src / "new/plain.rst"
    text = plain.read_text("utf-8")
    label = ".. _section-two-label:\n\nSection two\n"
    plain.write_text(text.replace("Section two\n", label), "utf-8")
    with (src / "relocations.toml").open("a", encoding="utf-8") as table:
        table.write('\n[labels]\n"Old_Section" = "section-two-label"\n')
    built = {}
    for builder in ("html", "dirhtml"):
        out = base / builder
        with docutils_namespace():  # the directives it registers go with it
            app = Sphinx(
                src,
                src,
                out,
                base / f"doctrees-{builder}",
                builder,
                confoverrides={"relocate_map": {"old/external": f"{server}/ext/page"}},
                status=None,
                warning=io.StringIO(),
                freshenv=True,
            )
            app.build()
        built[builder] = out
    return built


def test_stubs_land_in_chromium(sites: dict[str, Path], server: str, tmp_path: Path) -> None:
    html, dirhtml = sites["html"].as_uri(), sites["dirhtml"].as_uri()
    cjk = "%E7%89%B9%E6%80%A7"
    scripted = [
        # plain move: query and fragment kept
        (f"{html}/old/plain.html?q=1#frag", f"{html}/new/plain.html?q=1#frag"),
        (f"{dirhtml}/old/plain/index.html?q=1#frag", f"{dirhtml}/new/plain/index.html?q=1#frag"),
        # a chain and a [prefixes] move
        (f"{html}/old/chain.html?q=1#frag", f"{html}/new/plain.html?q=1#frag"),
        (
            f"{dirhtml}/legacy/other/index.html?q=1#frag",
            f"{dirhtml}/new/other/index.html?q=1#frag",
        ),
        # CJK names are percent-encoded
        (
            f"{html}/old/{cjk}.html?q=1#frag".replace(cjk, "%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88"),
            f"{html}/new/{cjk}.html?q=1#frag",
        ),
        # the target has its own anchor: no second '#'
        (f"{html}/old/anchored.html?q=1#frag", f"{html}/new/plain.html?q=1#section-two"),
        (
            f"{dirhtml}/old/anchored/index.html?q=1#frag",
            f"{dirhtml}/new/plain/index.html?q=1#section-two",
        ),
        # an old anchor mapped through [anchors], to another page
        (f"{html}/old/mapped.html?q=1#old-id", f"{html}/new/other.html?q=1#new-id"),
        (
            f"{dirhtml}/old/mapped/index.html?q=1#old-id",
            f"{dirhtml}/new/other/index.html?q=1#new-id",
        ),
        # an old label's anchor, sent to the label it was renamed to ([labels])
        (f"{html}/old/plain.html?q=1#old-section", f"{html}/new/plain.html?q=1#section-two-label"),
        (
            f"{dirhtml}/old/chain/index.html?q=1#old-section",
            f"{dirhtml}/new/plain/index.html?q=1#section-two-label",
        ),
        # an anchor renamed on the final page
        (f"{html}/old/mapped.html?q=1#renamed", f"{html}/new/plain.html?q=1#section-two"),
        # an external target (on loopback)
        (f"{html}/old/external.html?q=1#frag", f"{server}/ext/page?q=1#frag"),
        (f"{dirhtml}/old/external/index.html?q=1#frag", f"{server}/ext/page?q=1#frag"),
    ]
    no_script = [
        # the <noscript> refresh lands on the page (query and fragment need the script)
        (f"{html}/old/plain.html?q=1#frag", f"{html}/new/plain.html"),
        (f"{html}/old/anchored.html?q=1#frag", f"{html}/new/plain.html#section-two"),
        (f"{dirhtml}/old/plain/index.html?q=1#frag", f"{dirhtml}/new/plain/index.html"),
    ]
    with_js = Browser(tmp_path / "js")
    without_js = Browser(tmp_path / "nojs", "--blink-settings=scriptEnabled=false")
    try:
        opened = [(with_js, with_js.open(url), want) for url, want in scripted]
        opened += [(without_js, without_js.open(url), want) for url, want in no_script]
        finals = settle(opened)
    finally:
        with_js.close()
        without_js.close()
    cases = [*scripted, *no_script]
    assert [(url, final) for (url, _), final in zip(cases, finals, strict=True)] == [
        (url, want) for url, want in cases
    ]


def test_dirhtml_stub_from_disk_lands_on_the_page(sites: dict[str, Path], tmp_path: Path) -> None:
    """Opened over ``file://``, a dirhtml stub ends on the new page's index.html, with
    and without JavaScript, and the tab shows that page, not a folder listing."""
    dirhtml = sites["dirhtml"].as_uri()
    stub, page = f"{dirhtml}/old/plain/index.html", f"{dirhtml}/new/plain/index.html"
    with_js = Browser(tmp_path / "js")
    without_js = Browser(tmp_path / "nojs", "--blink-settings=scriptEnabled=false")
    try:
        opened = [(browser, browser.open(stub), page) for browser in (with_js, without_js)]
        finals = settle(opened)
        deadline = time.monotonic() + 20.0
        while True:  # the title arrives after the URL
            titles = [
                info["title"]
                for browser, tab, _ in opened
                for info in browser.call("Target.getTargets")["targetInfos"]
                if info["targetId"] == tab
            ]
            if all(t.startswith("Plain page") for t in titles) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    finally:
        with_js.close()
        without_js.close()
    assert finals == [page, page]
    assert [title.startswith("Plain page") for title in titles] == [True, True], titles
