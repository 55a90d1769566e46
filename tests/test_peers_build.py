"""Switching from sphinx-reredirects or sphinxext-rediraffe by changing the extension line.

Each test root is one of the peers' own test projects (its table and the redirects its
tests expect), with ``extensions = ["sphinx_relocate"]`` instead of the peer.  The tests
follow every stub written to where it sends the reader, and read the warning stream.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from sphinx.errors import ConfigError
from sphinx.util.console import strip_colors
from test_peers import LANDS

from sphinx_relocate.core.paths import html_page_path

ROOTS = Path(__file__).parent / "roots"
_SUBTYPE = re.compile(r" \[[a-z_]+\.[a-z_]+\]$")
_REFRESH = re.compile(r'http-equiv="refresh" content="0; url=([^"]*)"')


def landing(out: Path, stub: str) -> str:
    """Where the stub ``stub`` sends a reader: an output file (``#fragment``), or a URL."""
    text = (out / stub).read_text("utf-8")
    match = _REFRESH.search(text)
    assert match is not None, f"{stub} is not a redirect stub"
    url = html.unescape(match.group(1))
    if "://" in url:
        return url
    path, _, fragment = url.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(stub), unquote(path)))
    if path.endswith("/") or path in ("", "."):
        target = posixpath.join(target, "index.html") if target != "." else "index.html"
    assert (out / target).is_file(), f"{stub} sends readers to {target}, which is not written"
    assert not is_stub(out, target), f"{stub} sends readers to another stub, {target}"
    return target + (f"#{fragment}" if fragment else "")


def copy(tmp_path: Path, root: str) -> Path:
    """A fresh copy of a test root, so a build writes nothing into the repository."""
    return Path(shutil.copytree(ROOTS / root, tmp_path / root,
                                ignore=shutil.ignore_patterns("_build")))


def is_stub(out: Path, path: str) -> bool:
    return _REFRESH.search((out / path).read_text("utf-8")) is not None


def stubs(out: Path) -> set[str]:
    """The stubs the extension wrote (its manifest)."""
    manifest = out / "_relocate/stubs.json"
    files = json.loads(manifest.read_text("utf-8"))["files"] if manifest.exists() else {}
    return {path for path in files if path.endswith((".html", ".htm"))}


def warnings(warning) -> list[str]:
    """The warning lines, without colors and without the ``[type.subtype]`` Sphinx 8 adds."""
    text = strip_colors(warning.getvalue())
    return [_SUBTYPE.sub("", line) for line in text.splitlines() if "WARNING" in line]


# -- sphinx-reredirects ---------------------------------------------------------------

#: old page → the page or URL its stub sends readers to (sphinx-reredirects' test_ext and
#: its usage docs: relative, ../, site-absolute, external, anchors)
REREDIRECTS = {
    "setup": "install",
    "install/requirements": "https://web.com/docs/requirements.html",
    "faq/old": "faq/two",
    "faq/deep/gone": "faq/one#the-answer",
    "news": "rn",
}


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_reredirects_table_is_read_as_it_is(make_app, builder, tmp_path) -> None:
    app = make_app(builder, srcdir=copy(tmp_path, "test-reredirects"), freshenv=True)
    app.build()
    out, dirhtml = Path(app.outdir), builder == "dirhtml"
    expected = {}
    for old, new in REREDIRECTS.items():
        page, _, fragment = new.partition("#")
        to = new if "://" in new else html_page_path(page, dirhtml=dirhtml)
        expected[html_page_path(old, dirhtml=dirhtml)] = to + (f"#{fragment}" if fragment else "")
    assert {stub: landing(out, stub) for stub in sorted(stubs(out))} == expected
    # what its globs matched, it replaced with redirects; here they stay pages, said once each
    for page in ("faq/one", "faq/two", "install"):
        assert not is_stub(out, html_page_path(page, dirhtml=dirhtml))
    lines = warnings(app._warning)
    assert len(lines) == 2, lines
    assert "conf.py:12: WARNING: [patterns] 'faq/*' matches 'faq/one', 'faq/two', which " \
           "sphinx-reredirects replaced with redirects; here they stay pages" in lines[1]
    assert "conf.py:13: WARNING: [patterns] '*all' matches 'install'" in lines[0]


def test_reredirects_links_written_against_old_paths_resolve_too(make_app, tmp_path) -> None:
    app = make_app("html", srcdir=copy(tmp_path, "test-reredirects"), freshenv=True)
    app.build()
    links = (Path(app.outdir) / "links.html").read_text("utf-8")
    hrefs = re.findall(r'<li><p><a class="reference [a-z]+" href="([^"]+)"', links)
    # setup and faq/old by their entries, faq/three by the glob with $source, news by /…
    assert hrefs == ["install.html", "faq/two.html", "https://new.com/faq/three.html", "rn.html"]


def test_reredirects_html_file_suffix(make_app, tmp_path) -> None:
    app = make_app(
        "html", srcdir=copy(tmp_path, "test-reredirects"), freshenv=True,
        confoverrides={"html_file_suffix": ".htm"},
    )
    app.build()
    out = Path(app.outdir)
    assert landing(out, "setup.htm") == "install.htm"
    assert landing(out, "faq/deep/gone.htm") == "faq/one.htm#the-answer"
    assert not (out / "setup.html").exists()


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_reredirects_dirhtml_project(make_app, builder, tmp_path) -> None:
    # its dirhtml test: folder-URL targets, .html keys; one table for both builders
    app = make_app(builder, srcdir=copy(tmp_path, "test-reredirects-dirhtml"), freshenv=True)
    app.build()
    out, dirhtml = Path(app.outdir), builder == "dirhtml"
    installing = html_page_path("installing", dirhtml=dirhtml)
    assert {stub: landing(out, stub) for stub in sorted(stubs(out))} == {
        html_page_path("install", dirhtml=dirhtml): installing,
        html_page_path("setup", dirhtml=dirhtml): installing,
        html_page_path("guide/start", dirhtml=dirhtml): installing + "#step-one",
    }
    # it overwrote the home page with a redirect; here the page stays, said at its line
    assert "Welcome" in (out / "index.html").read_text("utf-8")
    (line,) = warnings(app._warning)
    assert "conf.py:7: WARNING: 'index' still exists, so its entry is not used" in line


# -- sphinxext-rediraffe --------------------------------------------------------------

#: old docname → new (rediraffe's nested, backslashes, mixed_slashes, deleted folders,
#: dots in names, complex chains and dirhtml index files, and spaces from its README)
REDIRAFFE = {
    "tof1": "docs/folder1/f1",
    "docs/folder1/tof1": "docs/folder1/f1",
    "docs/folder1/tof2": "docs/folder2/f2",
    "docs/folder2/toindex": "index",
    "totoindex": "index",
    "deletedfolder/another": "index",
    "deletedfolder/deletedfolder2/another": "index",
    "docs/x.y.z": "docs/a.b.c",
    "old page": "my page",
    **dict.fromkeys("abcd", "e"),
    "i": "j",
    **dict.fromkeys(["q", "w", "x", "F1/1", "F1/2", "F2/1"], "z"),
    "F5/F4/F3/F2/F1/1": "index",
    "another": "mydir/index",
    "without-suffix": "e",
}


def expected_stubs(moves: dict[str, str], dirhtml: bool) -> dict[str, str]:
    return {
        html_page_path(old, dirhtml=dirhtml): html_page_path(new, dirhtml=dirhtml)
        for old, new in moves.items()
    }


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_rediraffe_file_is_read_as_it_is(make_app, builder, tmp_path) -> None:
    app = make_app(builder, srcdir=copy(tmp_path, "test-rediraffe"), freshenv=True)
    app.build()
    out = Path(app.outdir)
    assert {stub: landing(out, stub) for stub in sorted(stubs(out))} == expected_stubs(
        REDIRAFFE, builder == "dirhtml"
    )
    assert warnings(app._warning) == []


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_rediraffe_dict_is_read_as_it_is(make_app, builder, tmp_path) -> None:
    app = make_app(builder, srcdir=copy(tmp_path, "test-rediraffe-dict"), freshenv=True)
    app.build()
    out = Path(app.outdir)
    assert {stub: landing(out, stub) for stub in sorted(stubs(out))} == expected_stubs(
        LANDS, builder == "dirhtml"
    )
    assert warnings(app._warning) == []


def rediraffe_project(tmp_path: Path, redirects: str | None, *pages: str) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    setting = '\nrediraffe_redirects = "redirects.txt"\n' if redirects is not None else "\n"
    (docs / "conf.py").write_text('extensions = ["sphinx_relocate"]\n' + setting, "utf-8")
    (docs / "index.rst").write_text("Home\n====\n\n.. toctree::\n   :glob:\n\n   *\n", "utf-8")
    for page in pages:
        (docs / f"{page}.rst").write_text(f"{page}\n{'=' * len(page)}\n", "utf-8")
    if redirects:
        (docs / "redirects.txt").write_text(redirects, "utf-8")
    return docs


STOPS = {
    "loop": ("a.rst b.rst\nb.rst a.rst\n",
             "{file}:1: relocation cycle: a → b → a (a at {file}:1, b at {file}:2)"),
    "redirected twice": (
        "another.rst index.rst\nanother.rst index2.rst\n",
        "{file}:2: [pages] 'another.rst': the same old name as the entry at {file}:1 (which "
        "moves it to index); an old name may appear only once",
    ),
    "bad line": ("another.rst\n", "{file}:1: expected two paths, old and new"),
}


@pytest.mark.parametrize("case", sorted(STOPS))
def test_rediraffe_errors_stop_the_build_in_one_line(make_app, tmp_path, case) -> None:
    text, expected = STOPS[case]
    docs = rediraffe_project(tmp_path, text, "index2")
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs)
    assert str(info.value).startswith(expected.format(file=docs / "redirects.txt"))
    assert "\n" not in str(info.value)


def test_rediraffe_missing_file_stops_the_build_in_one_line(make_app, tmp_path) -> None:
    docs = rediraffe_project(tmp_path, "")
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs)
    assert str(info.value) == (
        f"{docs / 'redirects.txt'}: cannot read the rediraffe_redirects file: "
        "No such file or directory"
    )


def test_rediraffe_target_missing_and_existing_page_are_warned(make_app, tmp_path) -> None:
    # its link_redirected_to_nonexistant_file and existing_link_redirected projects
    docs = rediraffe_project(tmp_path, "gone.rst fake.rst\nanother.rst index.rst\n", "another")
    app = make_app("html", srcdir=docs)
    app.build()
    file = docs / "redirects.txt"
    assert warnings(app._warning) == [
        f"{file}:1: WARNING: target 'fake' of 'gone' is not a document",
        f"{file}:2: WARNING: 'another' still exists, so its entry is not used (delete the old "
        "file or the entry)",
    ]
    out = Path(app.outdir)
    assert stubs(out) == set()
    assert not is_stub(out, "another.html")


def test_no_rediraffe_setting_no_stubs(make_app, tmp_path) -> None:
    app = make_app("html", srcdir=rediraffe_project(tmp_path, None, "another"))
    app.build()
    assert warnings(app._warning) == []
    assert stubs(Path(app.outdir)) == set()


# -- whose option it is -----------------------------------------------------------------

FAKE_PEER = '''
def setup(app):
    app.add_config_value("redirects", {}, "env")
    return {"parallel_read_safe": True}
'''


@pytest.mark.parametrize("order", ["ours first", "theirs first"])
def test_a_peer_still_loaded_keeps_its_option(make_app, tmp_path, order) -> None:
    docs = copy(tmp_path, "test-reredirects")
    (docs / "fake_peer.py").write_text(FAKE_PEER, "utf-8")
    (docs / "links.rst").unlink()  # links to the old pages: only our table would land them
    extensions = ["sphinx_relocate", "fake_peer"]
    if order == "theirs first":
        extensions.reverse()
    conf = (docs / "conf.py").read_text("utf-8").replace(
        'extensions = ["sphinx_relocate"]',
        f"import sys\nsys.path.insert(0, {str(docs)!r})\nextensions = {extensions!r}",
    )
    (docs / "conf.py").write_text(conf, "utf-8")
    app = make_app("html", srcdir=docs)
    app.build()
    assert stubs(Path(app.outdir)) == set()  # the peer's table is the peer's to write
    assert warnings(app._warning) == []


FAKE_REDIRAFFE = '''
def setup(app):
    app.add_config_value("rediraffe_redirects", {}, "env")
    return {"parallel_read_safe": True}
'''

#: links to the site's own URLs that land without a page of the docs (the peer's redirect
#: pages, the builder's files, the host's), then those that land nowhere
SITE_LINKS = """\
Home
====

- https://example.org/docs/old-page.html and https://example.org/docs/old-page
- `relative <old-page.html>`_ and `its folder <old-folder/>`_
- https://example.org/docs/objects.inv and https://example.org/docs/_static/x.css
- https://example.org/docs/_/downloads/en/latest/pdf/
- https://example.org/docs-old/x.html, another site
- https://example.org/docs/nothing.html
- https://example.org/docs/nothing.inv
- https://example.org/docs/dead-end.html, which redirects to no page
- https://example.org/docs/../../conf.py, above the site: no file of the output

.. toctree::

   page
"""


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
@pytest.mark.parametrize("peer", [True, False])
def test_links_to_a_loaded_peers_redirects_land(make_app, tmp_path, builder, peer) -> None:
    # ubuntu-server-documentation keeps sphinxext-rediraffe beside sphinx-relocate and
    # links to https://…/server/docs/security-apparmor, an old name rediraffe redirects
    docs = tmp_path / "docs"
    (docs / "_static").mkdir(parents=True)
    (docs / "_static/x.css").write_text("p {}\n", "utf-8")
    (docs / "fake_rediraffe.py").write_text(FAKE_REDIRAFFE, "utf-8")
    extensions = ["fake_rediraffe"] if peer else []
    (docs / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(docs)!r})\n"
        f"extensions = {[*extensions, 'sphinx_relocate']!r}\n"
        'html_baseurl = "https://example.org/docs"\nhtml_static_path = ["_static"]\n'
        'rediraffe_redirects = {"old-page": "page", "old-folder/index": "page", '
        '"dead-end": "gone"}\n',
        "utf-8",
    )
    (docs / "index.rst").write_text(SITE_LINKS, "utf-8")
    (docs / "page.rst").write_text("Page\n====\n", "utf-8")
    app = make_app(builder, srcdir=docs, freshenv=True)
    app.build()
    found = [line.split("WARNING: ", 1)[1] for line in warnings(app._warning)]
    dangling = [
        "site url 'https://example.org/docs/nothing.html' does not land: no document 'nothing'",
        "site url 'https://example.org/docs/nothing.inv' does not land: "
        "no document 'nothing.inv'",
        "site url 'https://example.org/docs/../../conf.py' does not land: "
        "no file '../../conf.py'",
    ]
    # the peer writes the redirect pages, or, not loaded, this extension writes stubs;
    # a redirect to no page is no landing either
    dead_end = (
        "site url 'https://example.org/docs/dead-end.html' does not land: "
        "no document 'dead-end'"
    )
    if peer:
        assert sorted(found) == sorted([*dangling, dead_end])
    else:  # the table's own check names the entry too
        assert found[0] == "target 'gone' of 'dead-end' is not a document"
        assert sorted(found[1:]) == sorted([*dangling, found[-1]])
        assert found[-1].startswith(f"{dead_end}; the table moves `dead-end` to `gone`")
    # and, as the table, sends the old URL to the page's new one; a peer's stays as written
    home = (Path(app.outdir) / "index.html").read_text("utf-8")
    new = "https://example.org/docs/" + ("page/" if builder == "dirhtml" else "page.html")
    assert (f'href="{new}"' in home) is not peer


def _with_fake_rediraffe(docs: Path, extensions: list[str], redirects: dict[str, str]) -> None:
    """``docs`` with a stand-in for sphinxext-rediraffe and a conf.py that loads it."""
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "fake_rediraffe.py").write_text(FAKE_REDIRAFFE, "utf-8")
    (docs / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(docs)!r})\n"
        f"extensions = {extensions!r}\nrediraffe_redirects = {redirects!r}\n", "utf-8")


def test_a_link_a_loaded_peers_table_moves_says_so(make_app, tmp_path) -> None:
    """xarray kept sphinxext-rediraffe, whose redirects send ``io`` to ``user-guide/io``:
    its ``:doc:`io``` dangled, and nothing said that the peer's table has the move."""
    docs = tmp_path / "docs"
    _with_fake_rediraffe(docs, ["fake_rediraffe", "sphinx_relocate"], {"io": "user-guide/io"})
    (docs / "user-guide").mkdir()
    (docs / "index.rst").write_text(
        "Home\n====\n\nSee :doc:`io`.\n\n.. toctree::\n\n   user-guide/io\n", "utf-8")
    (docs / "user-guide/io.rst").write_text("IO\n==\n", "utf-8")
    app = make_app("html", srcdir=docs, freshenv=True)
    app.build()
    (found,) = warnings(app._warning)
    assert (
        "`rediraffe_redirects` of the loaded sphinxext-rediraffe sends `io` to "
        "`user-guide/io`, which its redirect pages follow and no link does: without it in "
        "extensions, sphinx-relocate reads that table and rewrites the link") in found, found


def test_an_entry_a_loaded_peer_also_redirects_is_warned(
    make_app, tmp_path, monkeypatch, capsys
) -> None:
    """The table and a peer conf.py still loads both redirect ``old``: each would write a
    stub at ``old.html``. The build and ``check`` name the entry at its line and the
    peer's at conf.py's, once; the build leaves the page to the peer (SymPy's build said
    again that ``old.html`` was no file of ours, "delete it to have it replaced")."""
    from sphinx_relocate.cli.main import main

    docs = tmp_path / "docs"
    # a module of its own name: the others' fake_rediraffe stays imported
    _with_fake_rediraffe(docs, ["sphinx_relocate", "fake_rediraffe_pages"],
                         {"old": "page", "older": "page"})
    (docs / "relocations.toml").write_text('[pages]\n"old" = "page"\n', "utf-8")
    (docs / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   page\n", "utf-8")
    (docs / "page.rst").write_text("Page\n====\n", "utf-8")
    message = (
        "old is also redirected by a peer that conf.py loads ({conf}:4), which writes its "
        "own stub at the same path, so this entry writes none: keep one (drop this entry, "
        "or take the peer out of extensions, and sphinx-relocate reads its redirects as part "
        "of the table)"
    )
    # the peer's page is there when the stubs are written (sphinx-reredirects writes it
    # at html-collect-pages)
    (docs / "fake_rediraffe_pages.py").write_text(FAKE_REDIRAFFE.replace(
        "    return {",
        "    app.connect('html-collect-pages', lambda app: [('old', {}, 'page.html')])\n"
        "    return {"), "utf-8")
    app = make_app("html", srcdir=docs, freshenv=True)
    app.build()
    assert warnings(app._warning) == [
        f"{docs / 'relocations.toml'}:2: WARNING: {message.format(conf=docs / 'conf.py')}"
    ]
    assert (Path(app.outdir) / "old.html").is_file()
    # check names the peer by its module in extensions (it imports no extension)
    conf = docs / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace("'fake_rediraffe_pages'",
                                                    "'sphinxext.rediraffe'"),
                    "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "docs"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"docs/relocations.toml:2: {message.format(conf='docs/conf.py')}"
    ]
    # the entry gone, nothing to say: the peer's stub serves the old URL
    (docs / "relocations.toml").write_text('[pages]\n"oldest" = "page"\n', "utf-8")
    assert main(["check", "docs"]) == 0


# -- [patterns] -------------------------------------------------------------------------


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_patterns_in_the_table(make_app, builder, tmp_path) -> None:
    app = make_app(builder, srcdir=copy(tmp_path, "test-patterns"), freshenv=True)
    app.build()
    out, dirhtml = Path(app.outdir), builder == "dirhtml"

    def page(docname: str) -> str:
        return html_page_path(docname, dirhtml=dirhtml)

    assert {stub: landing(out, stub) for stub in sorted(stubs(out))} == {
        # the old URLs of the pages "faq/*" = "help/$source" moved
        page("faq/install"): page("help/faq/install"),
        page("faq/uninstall"): page("help/faq/uninstall"),
        # documents that a pattern with replace = true turns into redirects
        page("legacy/a"): "https://new.example/legacy/a.html",
        page("legacy/b"): "https://new.example/legacy/b.html",
    }
    assert warnings(app._warning) == []
    # links written against old paths land where the patterns say, from the old folder too
    links = (out / page("links")).read_text("utf-8")
    hrefs = re.findall(r'<li><p><a class="reference [a-z]+" href="([^"]+)"', links)
    up = "../" if dirhtml else ""
    assert [h.replace("index.html", "") for h in hrefs] == [
        f"{up}{page('help/faq/install')}".replace("index.html", ""),
        f"{up}{page('legacy/a')}".replace("index.html", ""),
        "https://archive.example/gone/retired-page.html",
        f"{up}{page('keep/page')}".replace("index.html", ""),
    ]
    moved = (out / page("help/faq/install")).read_text("utf-8")
    assert ('href="../../keep/page' if not dirhtml else 'href="../../../keep/page') in moved


def test_a_pattern_that_stops_replacing_gives_the_pages_back(make_app, tmp_path) -> None:
    docs = copy(tmp_path, "test-patterns")
    first = make_app("html", srcdir=docs, freshenv=True)
    first.build()
    out = Path(first.outdir)
    assert is_stub(out, "legacy/a.html")
    table = docs / "relocations.toml"
    table.write_text(table.read_text("utf-8").replace(", replace = true", ""), "utf-8")
    second = make_app("html", srcdir=docs)
    second.build()
    assert "Old content." in (out / "legacy/a.html").read_text("utf-8")
    assert "Old content." in (out / "legacy/b.html").read_text("utf-8")
    assert stubs(out) == {"faq/install.html", "faq/uninstall.html"}


def test_the_whole_site_moved(make_app, tmp_path) -> None:
    # sphinx-reredirects' "*": "https://…/$source.html", opted in with replace = true
    app = make_app("html", srcdir=copy(tmp_path, "test-site-moved"), freshenv=True)
    app.build()
    out = Path(app.outdir)
    assert {stub: landing(out, stub) for stub in sorted(stubs(out))} == {
        "guide/intro.html": "https://new.example/docs/guide/intro.html",
        "index.html": "https://new.example/docs/index.html",
    }
    assert not is_stub(out, "genindex.html") and not is_stub(out, "search.html")
    assert warnings(app._warning) == []


def test_a_published_url_a_loaded_peer_redirects_is_served(make_app, tmp_path) -> None:
    """SymPy keeps sphinx-reredirects: with ``relocate_published`` naming the last
    release's output, each URL whose redirect page the peer writes was "published and
    nothing serves it now", though it is served as a stub of ours would be."""
    release = tmp_path / "release"
    _with_fake_rediraffe(release, ["fake_rediraffe", "sphinx_relocate"], {})
    (release / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   old-page\n", "utf-8")
    (release / "old-page.rst").write_text("Old\n===\n", "utf-8")
    make_app("html", srcdir=release, freshenv=True).build()
    docs = tmp_path / "docs"
    _with_fake_rediraffe(docs, ["fake_rediraffe", "sphinx_relocate"], {"old-page": "index"})
    (docs / "index.rst").write_text("Home\n====\n", "utf-8")
    published = release / "_build" / "html"
    assert (published / "old-page.html").is_file()
    app = make_app("html", srcdir=docs, freshenv=True,
                   confoverrides={"relocate_published": str(published)})
    app.build()
    assert [line for line in warnings(app._warning) if "published" in line] == []
