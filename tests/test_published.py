"""``relocate_published``: no page or label of a release loses its URL silently.

``tests/roots/test-inventory-before`` is the release, built with plain Sphinx; its
``objects.inv`` is the published inventory of ``test-inventory``, the same project after a
reorganization.  Since then ``dropped`` was deleted with no entry, ``v1/legacy`` is
covered by the glob ``v1/*`` alone, and the label ``install-label`` became
``installation``; every other page has an entry or is still there.
"""

from __future__ import annotations

import dataclasses
import functools
import http.server
import shutil
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_inventory import build, copy, entries

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.history import read_history
from sphinx_relocate.core.inventory import InventoryError, parse
from sphinx_relocate.core.published import Published, followed_ids, unredirected
from sphinx_relocate.core.spans import labels_in
from sphinx_relocate.core.table import load_table
from sphinx_relocate.sphinx_ext import published as _published
from sphinx_relocate.sphinx_ext.published import fetch_url

PAGE = "dropped was published at {base}dropped.html and is no longer a page; it has no entry"
LABEL = (
    "label install-label was published at {base}setup/install.html#install-label and is no "
    "longer a label; it has no [labels] entry"
)
#: the command reads the labels written in the sources, and says so
LABEL_IN_SOURCES = (
    "label install-label was published at {base}setup/install.html#install-label and is "
    "written in no source now; it has no [labels] entry (a label that an extension makes is "
    "seen by the build's check only)"
)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release's objects.inv, built once."""
    out, warnings = build(copy(tmp_path_factory.mktemp("release"), "test-inventory-before"))
    assert warnings == []
    return out / "objects.inv"


@pytest.fixture
def project(tmp_path: Path, release: Path) -> Path:
    """The reorganized project, with the release's inventory at ``published/objects.inv``."""
    srcdir = copy(tmp_path, "test-inventory")
    (srcdir / "published").mkdir()
    shutil.copy(release, srcdir / "published" / "objects.inv")
    return srcdir


def messages(warnings: list[str]) -> list[tuple[str, str]]:
    """(file:line, message) of each warning, without the ``[type.subtype]`` suffix."""
    found = []
    for line in warnings:
        where, _, message = line.partition(": WARNING: ")
        found.append((Path(where.rpartition(":")[0]).name + ":" + where.rpartition(":")[2],
                      message.removesuffix(" [relocate.unredirected]")))
    return found


def test_each_gone_page_and_label_without_an_entry_warns(project: Path) -> None:
    out, warnings = build(project, fresh=True, relocate_published="published/objects.inv")
    # at the table's [pages] header; a label entry goes in [labels], which it lacks: line 1
    assert messages(warnings) == [
        ("relocations.toml:2", PAGE.format(base="")),
        ("relocations.toml:1", LABEL.format(base="")),
    ]
    # a page only a glob covers gets its stub and its inventory entry from the release
    assert (out / "v1/legacy.html").is_file()
    assert entries(out / "objects.inv")["v1/legacy"] == ("guide/introduction.html", "Introduction")
    # and every build says it again
    _, again = build(project, relocate_published="published/objects.inv")
    assert messages(again) == messages(warnings)


def test_without_the_setting_nothing_is_known(project: Path) -> None:
    out, warnings = build(project, fresh=True)
    assert warnings == []
    assert not (out / "v1/legacy.html").exists()
    assert "v1/legacy" not in entries(out / "objects.inv")


def test_entries_silence_the_pages(project: Path) -> None:
    table = project / "relocations.toml"
    table.write_text(table.read_text("utf-8").replace(
        "[pages]\n", '[pages]\n"dropped" = "kept"\n'), "utf-8")
    _, warnings = build(project, fresh=True, relocate_published="published/objects.inv")
    assert messages(warnings) == [("relocations.toml:1", LABEL.format(base=""))]


def test_urls_are_absolute_with_html_baseurl(project: Path) -> None:
    _, warnings = build(
        project, "dirhtml", fresh=True, relocate_published="published/objects.inv",
        html_baseurl="https://docs.example/en/latest",
    )
    base = "https://docs.example/en/latest/"
    assert [m for _, m in messages(warnings)] == [PAGE.format(base=base), LABEL.format(base=base)]


def test_without_a_table_file_the_setting_line_is_named(project: Path) -> None:
    (project / "relocations.toml").unlink()
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8") + 'relocate_published = "published/objects.inv"\n'
                    'relocate_map = {"intro": "guide/introduction"}\n', "utf-8")
    _, warnings = build(project, fresh=True)
    assert [w for w, _ in messages(warnings)] == ["conf.py:5"] * len(warnings)
    assert len(warnings) == 6  # api, dropped, gone, setup/install, v1/legacy; the label


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read {path}: No such file or directory"),
        (b"<!DOCTYPE html>\n<p>Not found</p>\n", "{path}: not a Sphinx inventory (objects.inv)"),
    ],
)
def test_an_unreadable_inventory_is_one_line(
    project: Path, content: bytes | None, reason: str
) -> None:
    path = project / "published" / "objects.inv"
    if content is None:
        path.unlink()
    else:
        path.write_bytes(content)
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8") + 'relocate_published = "published/objects.inv"\n',
                    "utf-8")
    out, warnings = build(project, fresh=True)
    assert messages(warnings) == [
        ("conf.py:5", "relocate_published = 'published/objects.inv': " + reason.format(path=path))
    ]
    assert (out / "index.html").is_file()  # the build goes on


# -- a URL -------------------------------------------------------------------------------


@pytest.fixture
def server(release: Path, tmp_path: Path) -> Iterator[str]:
    """A loopback server of the release's site: ``http://127.0.0.1:PORT/en/``."""
    site = tmp_path / "site" / "en"
    site.mkdir(parents=True)
    shutil.copy(release, site / "objects.inv")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site.parent))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/en/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_url_is_fetched_and_names_the_published_urls(project: Path, server: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    _, warnings = build(project, fresh=True, relocate_published=server + "objects.inv")
    assert [m for _, m in messages(warnings)] == [PAGE.format(base=server),
                                                  LABEL.format(base=server)]
    _, warnings = build(project, fresh=True, relocate_published=server + "missing.inv")
    assert len(warnings) == 1
    assert f"relocate_published = '{server}missing.inv': cannot fetch {server}missing.inv: " \
           "404 Client Error" in warnings[0]


# -- the command line --------------------------------------------------------------------


def test_check_published_without_a_build(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent)
    name = project.name
    assert main(["check", name, "--published", f"{name}/published/objects.inv"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{name}/relocations.toml:2: {PAGE.format(base='')}",
        f"{name}/relocations.toml:1: {LABEL_IN_SOURCES.format(base='')}",
    ]
    # conf.py's setting, relative to conf.py; GitHub annotations
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8") + 'relocate_published = "published/objects.inv"\n',
                    "utf-8")
    assert main(["check", name, "--format", "github"]) == 1
    assert capsys.readouterr().out.startswith(f"::error file={name}/relocations.toml,line=2::")


def test_check_published_that_cannot_be_read_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert main(["check", ".", "--published", "nothing.inv"]) == 2
    assert capsys.readouterr().err == (
        "sphinx-relocate: error: cannot read nothing.inv: No such file or directory\n"
    )
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8") + 'relocate_published = "nothing.inv"\n', "utf-8")
    assert main(["check", "."]) == 2
    assert capsys.readouterr().err == (
        "sphinx-relocate: error: conf.py:5: relocate_published = 'nothing.inv': cannot read "
        "nothing.inv: No such file or directory\n"
    )


def test_check_with_autosectionlabel_leaves_labels_to_the_build(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace(
        '"sphinx_relocate"]', '"sphinx_relocate", "sphinx.ext.autosectionlabel"]'), "utf-8")
    monkeypatch.chdir(project)
    assert main(["check", ".", "--published", "published/objects.inv"]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"relocations.toml:2: {PAGE.format(base='')}\n"
    assert "the published labels are not checked: sphinx.ext.autosectionlabel" in captured.err


# -- labels ------------------------------------------------------------------------------


def test_labels_written_in_sources() -> None:
    text = """
.. _install-label:
.. _`Odd  Name`:
.. _external: https://example.org/
.. __: https://example.org/anonymous
(myst-label)=
   (indented-myst)=
```{figure} x.png
:name: Fig-One
```
(not a label) = x
"""
    assert labels_in(text) == {"install-label", "odd name", "myst-label", "indented-myst",
                               "fig-one"}


def test_a_labels_entry_redirects_a_published_label(release: Path) -> None:
    """The one place the ``[labels]`` section will plug in: ``label_moved``."""
    published = read_history(str(release), Path(), fetch=fetch_url).inventories[0]
    table, _ = load_table(None, {"dropped": "kept"})
    documents = {"index", "guide/introduction", "reference/api", "manual/install", "kept",
                 "intro", "api", "setup/install", "gone", "v1/legacy"}
    labels = {"genindex", "modindex", "py-modindex", "search", "kept-label"}
    assert [f.name for f in unredirected(published, documents, labels, table)] == [
        "install-label"
    ]
    table = dataclasses.replace(table, labels={"install-label": "installation"})
    assert unredirected(published, documents, labels, table) == []
    assert unredirected(published, documents, None, table) == []
    assert isinstance(published, Published)


def test_a_parallel_build_gives_the_same_findings(project: Path) -> None:
    out, warnings = build(project, fresh=True, parallel=2,
                          relocate_published="published/objects.inv")
    assert messages(warnings) == [
        ("relocations.toml:2", PAGE.format(base="")),
        ("relocations.toml:1", LABEL.format(base="")),
    ]
    assert (out / "v1/legacy.html").is_file()


# -- bounds: an inventory that decompresses to gigabytes, a server that trickles ----------

HEADER = (b"# Sphinx inventory version 2\n# Project: demo\n# Version: 1\n"
          b"# The remainder of this file is compressed using zlib.\n")


def bomb(path: Path, line: bytes, size: int) -> Path:
    """An inventory whose compressed part decompresses to ``size`` bytes of ``line``."""
    compressor = zlib.compressobj(9)
    block = line * (2**20 // len(line))
    with path.open("wb") as out:
        out.write(HEADER)
        for _ in range(size // len(block)):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


@pytest.mark.parametrize(
    ("line", "size", "reason"),
    [
        (b"\0", 128 * 2**20, "more than 64 MiB"),  # 128 kB that inflate to 128 MiB
        (b"a\n", 8 * 2**20, "more than 1,000,000 lines"),
    ],
)
def test_an_inventory_that_decompresses_past_the_limit_is_refused_unread(
    tmp_path: Path, line: bytes, size: int, reason: str
) -> None:
    path = bomb(tmp_path / "objects.inv", line, size)
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(InventoryError) as caught:
            read_history("objects.inv", tmp_path, fetch=fetch_url)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value) == (
        f"{path}: the inventory decompresses to {reason} (a Sphinx inventory is far "
        "smaller): not read"
    )
    assert peak < 16 * 2**20  # a chunk at a time, never the whole


def test_a_bomb_in_a_build_is_one_line_and_the_build_goes_on(project: Path) -> None:
    bomb(project / "published" / "objects.inv", b"\0", 80 * 2**20)
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8") + 'relocate_published = "published/objects.inv"\n',
                    "utf-8")
    out, warnings = build(project, fresh=True)
    path = project / "published" / "objects.inv"
    assert messages(warnings) == [
        ("conf.py:5", f"relocate_published = 'published/objects.inv': {path}: the inventory "
                      "decompresses to more than 64 MiB (a Sphinx inventory is far smaller): "
                      "not read")
    ]
    assert (out / "index.html").is_file()


def test_a_real_inventory_is_within_the_limits(release: Path) -> None:
    published = read_history(str(release), Path(), fetch=fetch_url).inventories[0]
    assert "dropped" in published.pages()


class Trickle(http.server.BaseHTTPRequestHandler):
    """Answers 200, then one byte every 50 ms for as long as the client listens."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        try:
            self.wfile.write(HEADER)
            while not self.server.stopping.is_set():  # type: ignore[attr-defined]
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass

    def log_message(self, *args: object) -> None:
        pass


class Flood(Trickle):
    """Answers 200 and bytes without end, as fast as they are read."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        block = b"x" * 65536
        try:
            while not self.server.stopping.is_set():  # type: ignore[attr-defined]
                self.wfile.write(block)
        except OSError:
            pass


def serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    httpd.stopping = threading.Event()  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/objects.inv"
    finally:
        httpd.stopping.set()  # type: ignore[attr-defined]
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


def test_a_server_that_trickles_bytes_cannot_hold_the_fetch(
    no_proxy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read gets a byte within requests' timeout; the whole fetch has a deadline."""
    monkeypatch.setattr(_published, "FETCH_TIMEOUT", 1)
    for url in serve(Trickle):
        start = time.monotonic()
        with pytest.raises(InventoryError) as caught:
            read_history(url, Path(), fetch=fetch_url)
        elapsed = time.monotonic() - start
    assert str(caught.value) == f"cannot fetch {url}: no complete answer within 1 s"
    assert 1 <= elapsed < 5
    # and the download does not go on behind the build's back: its socket was shut down
    for _ in range(50):
        if not any(t.name.startswith("relocate_published") for t in threading.enumerate()):
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the download thread still runs")


def test_a_server_that_sends_without_end_is_cut_at_the_size_limit(
    no_proxy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_published, "MAX_INVENTORY_BYTES", 2**20)
    for url in serve(Flood):
        with pytest.raises(InventoryError) as caught:
            read_history(url, Path(), fetch=fetch_url)
    assert str(caught.value) == (
        f"cannot fetch {url}: more than 1 MiB (an inventory is far smaller): not read"
    )


def test_a_trickling_server_in_a_build_is_one_line(
    project: Path, no_proxy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_published, "FETCH_TIMEOUT", 1)
    for url in serve(Trickle):
        out, warnings = build(project, fresh=True, relocate_published=url)
    assert [m for _, m in messages(warnings)] == [
        f"relocate_published = {url!r}: cannot fetch {url}: no complete answer within 1 s"
    ]
    assert (out / "index.html").is_file()


# -- where a published id is now ---------------------------------------------------------


def inventory_of(*lines: str) -> Published:
    """A release's inventory with these entry lines (``name role prio uri display``)."""
    body = zlib.compress("".join(line + "\n" for line in lines).encode("utf-8"))
    header = b"# Sphinx inventory version 2\n# Project: p\n# Version: 1\n"
    return Published(parse(header + b"# The remainder of this file is compressed using zlib.\n"
                            + body))


RELEASE = inventory_of(
    "guide std:doc -1 guide.html Guide",
    "kept std:doc -1 kept.html Kept",
    "tune py:function 1 guide.html#$ -",
    "tuning std:label -1 guide.html#tuning Tuning",
    "old-label std:label -1 guide.html#old-label Old",
    "left py:function 1 kept.html#$ -",
    "stay py:function 1 kept.html#$ -",
)
NOW = {
    ("py:function", "tune"): ("guide/advanced", "tune"),
    ("std:label", "tuning"): ("guide/advanced", "tuning"),
    ("py:function", "left"): ("elsewhere", "left"),
    ("py:function", "stay"): ("kept", "stay"),
}


def test_each_fragment_that_left_its_page_follows_its_entry() -> None:
    """A gone page's labels and objects go where the same entry is now, and so does an
    object that left a page still there (``kept#left``); one still on its page
    (``kept#stay``) and an entry the build no longer has (``old-label``) give none."""
    found = followed_ids([RELEASE], {"kept", "guide/advanced", "elsewhere"},
                         lambda role, name: NOW.get((role, name)))
    assert found == {"guide": {"tune": ("guide/advanced", "tune"),
                               "tuning": ("guide/advanced", "tuning")},
                     "kept": {"left": ("elsewhere", "left")}}


def test_a_fragment_with_two_meanings_is_left_out() -> None:
    """Two releases say ``#tune`` stood for two objects that are now apart: which one a
    reader meant, nothing says."""
    other = inventory_of("guide std:doc -1 guide.html Guide",
                         "tune std:label -1 guide.html#tune Tune")
    now = {**NOW, ("std:label", "tune"): ("notes", "tune")}
    found = followed_ids([RELEASE, other], {"kept"}, lambda role, name: now.get((role, name)))
    assert found["guide"] == {"tuning": ("guide/advanced", "tuning")}
    same = {**NOW, ("std:label", "tune"): ("guide/advanced", "tune")}
    found = followed_ids([RELEASE, other], {"kept"}, lambda role, name: same.get((role, name)))
    assert found["guide"]["tune"] == ("guide/advanced", "tune")


_NAMES = st.sampled_from(["a", "b", "c"])


@given(
    entries=st.lists(st.tuples(_NAMES, st.sampled_from(["std:label", "py:function"]),
                               st.sampled_from(["p", "q"]), _NAMES), max_size=12),
    places=st.dictionaries(st.tuples(st.sampled_from(["std:label", "py:function"]), _NAMES),
                           st.tuples(st.sampled_from(["x", "q"]), _NAMES)),
)
def test_a_followed_fragment_is_one_meaning_that_left_its_page(
    entries: list[tuple[str, str, str, str]],
    places: dict[tuple[str, str], tuple[str, str]],
) -> None:
    """Whatever the release and the build (``p`` gone, ``q`` still there): a fragment is
    followed exactly when the entries naming it on its page that the build still has
    are at one place, and none of them is still on that page."""
    lines = ["p std:doc -1 p.html P", "q std:doc -1 q.html Q"]
    lines += [f"{name} {role} 1 {page}.html#{fragment} -" for name, role, page, fragment in entries]
    found = followed_ids([inventory_of(*lines)], {"q", "x"},
                         lambda role, name: places.get((role, name)))
    for page in ("p", "q"):
        by_fragment: dict[str, set[tuple[str, str] | None]] = {}
        for name, role, where, fragment in entries:
            if where == page:
                by_fragment.setdefault(fragment, set()).add(places.get((role, name)))
        for fragment, where_now in by_fragment.items():
            known = where_now - {None}
            if len(known) == 1 and not any(place[0] == page for place in known):
                assert found[page][fragment] == known.pop()
            else:
                assert fragment not in found.get(page, {})
    assert all(fragment for on_page in found.values() for fragment in on_page)


#: autosectionlabel naming sections by their page
SECTION_LABELS = ('extensions = ["sphinx.ext.autosectionlabel", "sphinx_relocate"]\n'
                  "autosectionlabel_prefix_document = True\n")


def _release_then_now(
    tmp_path: Path, release: dict[str, str], now: dict[str, str]
) -> tuple[Path, Path, list[str]]:
    """Build the ``release`` files, then the ``now`` ones with the release's
    ``objects.inv`` as ``relocate_published``; the second build's folder, output and
    warnings (the release's must have none)."""
    from reorg_fixture import write_tree

    write_tree(tmp_path / "release", {"conf.py": SECTION_LABELS, **release}, {})
    out, warnings = build(tmp_path / "release")
    assert warnings == []
    docs = tmp_path / "now"
    conf = SECTION_LABELS + 'relocate_published = "published/objects.inv"\n'
    write_tree(docs, {"conf.py": conf, **now}, {})
    (docs / "published").mkdir()
    shutil.copy(out / "objects.inv", docs / "published/objects.inv")
    out, warnings = build(docs)
    return docs, out, warnings


def test_section_labels_of_a_moved_page_are_followed_and_listed(tmp_path: Path) -> None:
    """With autosectionlabel naming sections by their page, a page moved by ``[pages]``
    takes its section labels along: ``objects.inv`` lists each old one, and the check of
    the release's labels passes (it warned once per section of every moved page, 40 on
    Read the Docs' guides)."""
    page = "Accounts\n========\n\nPermissions\n-----------\n\nText.\n"
    now, out, warnings = _release_then_now(
        tmp_path,
        {"sub/accounts.rst": page,
         "index.rst": "Index\n=====\n\n.. toctree::\n\n   sub/accounts\n"},
        {"relocations.toml": '[pages]\n"sub/accounts" = "guides/accounts"\n',
         "guides/accounts.rst": page,
         "index.rst": "Index\n=====\n\n.. toctree::\n\n   guides/accounts\n"},
    )
    assert warnings == []
    labels = entries(out / "objects.inv", "std:label")
    assert labels["sub/accounts:permissions"] == labels["guides/accounts:permissions"] == (
        "guides/accounts.html#permissions", "Permissions")
    # without page names in the labels, a label is a name: the table moves none
    out, warnings = build(now, fresh=True, autosectionlabel_prefix_document=False)
    assert "sub/accounts:permissions" not in entries(out / "objects.inv", "std:label")


def test_section_labels_follow_a_section_moved_to_another_page(tmp_path: Path) -> None:
    """tox moved *Logging* from ``user_guide`` (now ``explanation``) to ``how-to/usage``
    with an ``[anchors]`` entry ``from-git`` derived: ``user_guide:logging`` was warned as
    unredirected, left out of ``objects.inv``, and a ``:ref:`` to it was undefined."""
    guide = "User guide\n==========\n\nOverview\n--------\n\nText.\n\nLogging\n-------\n\nLogs.\n"
    _, out, warnings = _release_then_now(
        tmp_path,
        {"user_guide.rst": guide,
         "index.rst": "Index\n=====\n\n.. toctree::\n\n   user_guide\n"},
        {"relocations.toml": '[pages]\n"user_guide" = "explanation"\n\n'
                             '[anchors]\n"user_guide#logging" = "how-to/usage#logging"\n',
         "explanation.rst": "User guide\n==========\n\nOverview\n--------\n\nText.\n",
         "how-to/usage.rst": "Usage\n=====\n\nLogging\n-------\n\nLogs.\n",
         "index.rst": "Index\n=====\n\n.. toctree::\n\n   explanation\n   how-to/usage\n\n"
                      "See :ref:`user_guide:logging`.\n"},
    )
    assert warnings == []
    labels = entries(out / "objects.inv", "std:label")
    assert labels["user_guide:logging"] == ("how-to/usage.html#logging", "Logging")
    assert labels["user_guide:overview"] == ("explanation.html#overview", "Overview")
    assert 'href="how-to/usage.html#logging"' in (out / "index.html").read_text("utf-8")
