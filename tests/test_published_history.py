"""``relocate_published`` beyond an inventory: sitemaps, URL lists, a previous output
folder, several sources at once.

The project is ``tests/roots/test-inventory`` (see ``test_published``): since its release
``dropped`` was deleted with no entry, ``intro`` moved by ``[pages]``, ``setup/`` by
``[prefixes]``, ``v1/*`` by a glob alone and ``gone`` to an external URL.
"""

from __future__ import annotations

import functools
import http.server
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_inventory import build, copy
from test_published import messages

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.history import (
    ClosestPages,
    page_candidates,
    read_history,
    site_path,
)
from sphinx_relocate.core.inventory import InventoryError

BASE = "https://demo.example/docs/"
NOTHING = "and nothing serves it now: no page, file, redirect stub or server rule"


def unfetched(url: str) -> bytes:
    raise AssertionError(f"no fetch expected: {url}")


def sitemap(*urls: str) -> str:
    items = "".join(f"  <url>\n    <loc>{url}</loc>\n  </url>\n" for url in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{items}</urlset>\n"
    )


def inventory(path: Path, pages: dict[str, str]) -> Path:
    """An objects.inv listing ``pages`` (name → URI)."""
    body = "".join(f"{name} std:doc -1 {uri} {name}\n" for name, uri in pages.items())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        b"# Sphinx inventory version 2\n# Project: demo\n# Version: \n"
        b"# The remainder of this file is compressed using zlib.\n"
        + zlib.compress(body.encode("utf-8"))
    )
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    srcdir = copy(tmp_path, "test-inventory")
    (srcdir / "published").mkdir()
    return srcdir


# -- sources -----------------------------------------------------------------------------


def test_a_mkdocs_sitemap_with_clean_urls(project: Path) -> None:
    """A site built by MkDocs before the move to Sphinx: clean ``folder/`` URLs."""
    (project / "published" / "sitemap.xml").write_text(sitemap(
        BASE,
        BASE + "kept/",
        BASE + "guide/introduction/",
        BASE + "intro/",  # [pages]: a stub
        BASE + "setup/install/",  # [prefixes]: a stub
        BASE + "install/",  # nothing: manual/install has the same name
        BASE + "img/logo.png",  # nothing
        BASE + "v1/legacy/",  # only the glob v1/* moves it: its stub comes from here
        "https://demo.example/blog/2020/",  # outside the docs
    ), "utf-8")
    out, warnings = build(project, fresh=True, html_baseurl=BASE,
                          relocate_published="published/sitemap.xml")
    where = f"{project / 'published' / 'sitemap.xml'}, line"
    assert messages(warnings) == [
        ("relocations.toml:2", f"{BASE}install/ was published ({where} 19) {NOTHING}; "
                               "the closest page now is manual/install"),
        ("relocations.toml:2", f"{BASE}img/logo.png was published ({where} 22) {NOTHING}"),
    ]
    assert (out / "intro.html").is_file()
    assert (out / "v1/legacy/index.html").is_file()  # the stub serves the clean URL
    _, warnings = build(project, "dirhtml", fresh=True, html_baseurl=BASE,
                        relocate_published="published/sitemap.xml")
    assert len(warnings) == 2


def test_a_url_list_with_comments(project: Path) -> None:
    (project / "extra").mkdir()
    (project / "extra" / "robots.txt").write_text("User-agent: *\n", "utf-8")
    (project / "published" / "urls.txt").write_text(
        "# what the access logs show\n"
        "/docs/kept.html\n"
        "guide/introduction.html?utm=x#top\n"
        "\n"
        "v1/legacy.html   \n"  # only the glob v1/* moves it: its stub comes from here
        "robots.txt\n"  # html_extra_path
        "dropped.html\n"
        "https://other.example/docs/kept.html\n",  # another server
        "utf-8",
    )
    out, warnings = build(project, fresh=True, html_baseurl=BASE, html_extra_path=["extra"],
                          relocate_published="published/urls.txt")
    where = f"{project / 'published' / 'urls.txt'}, line 7"
    assert messages(warnings) == [
        ("relocations.toml:2", f"dropped.html was published ({where}) {NOTHING}"),
    ]
    assert (out / "v1/legacy.html").is_file()


def test_a_previous_output_folder(project: Path, tmp_path: Path) -> None:
    """The release's own HTML output, as html and as dirhtml."""
    before = copy(tmp_path, "test-inventory-before")
    html, _ = build(before, fresh=True)
    dirhtml, _ = build(before, "dirhtml", fresh=True)
    for folder, dropped, install in ((html, "dropped.html", "setup/install.html"),
                                     (dirhtml, "dropped/", "setup/install/")):
        # its objects.inv is the release's inventory: its labels and objects count too,
        # and a page it lists is checked once
        _, warnings = build(project, fresh=True, relocate_published=str(folder))
        found = [m for _, m in messages(warnings)]
        assert found == [
            f"dropped was published at {dropped} and is no longer a page; it has no entry",
            f"label install-label was published at {install}#install-label and is no "
            "longer a label; it has no [labels] entry",
        ], found
        (folder / "objects.inv").unlink()
        _, warnings = build(project, fresh=True, relocate_published=str(folder))
        found = [m for _, m in messages(warnings)]
        assert found == [f"{dropped} was published ({folder}) {NOTHING}"], found
        if folder == dirhtml:  # its index.html is read too
            history = read_history(str(folder), Path(), fetch=unfetched)
            assert {"dropped/", "dropped/index.html"} <= {u.path for u in history.urls}


def test_what_the_build_writes_serves_its_url(project: Path) -> None:
    """sphinx-notfound-page renders ``404.html`` through ``html-collect-pages``: no
    document, and not written yet when the documents are checked; an image is copied
    into ``_images`` as its page is written.  Their published URLs are served, on a
    fresh build and on one that writes no page."""
    with (project / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(
            "\ndef setup(app):\n"
            "    app.connect('html-collect-pages', lambda app: [('404', {}, 'page.html')])\n"
        )
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with (project / "kept.md").open("a", encoding="utf-8") as page:
        page.write("\n![logo](logo.png)\n")
    (project / "published" / "urls.txt").write_text(
        "404.html\n_images/logo.png\ndropped.html\n", "utf-8"
    )
    where = f"{project / 'published' / 'urls.txt'}, line 3"
    expected = [("relocations.toml:2", f"dropped.html was published ({where}) {NOTHING}")]
    for fresh in (True, False):
        out, warnings = build(project, fresh=fresh, relocate_published="published/urls.txt")
        assert messages(warnings) == expected
        assert (out / "404.html").is_file() and (out / "_images/logo.png").is_file()


def test_two_versions_inventories_listed_together(project: Path) -> None:
    v1 = inventory(project / "published" / "v1.inv",
                   {"kept": "kept.html", "dropped": "dropped.html"})
    v2 = inventory(project / "published" / "v2.inv",
                   {"kept": "kept.html", "dropped": "dropped.html", "news": "news.html"})
    _, warnings = build(project, fresh=True,
                        relocate_published=["published/v1.inv", "published/v2.inv"])
    assert [m for _, m in messages(warnings)] == [  # dropped once, though both list it
        "dropped was published at dropped.html and is no longer a page; it has no entry",
        "news was published at news.html and is no longer a page; it has no entry",
    ]
    assert v1.is_file() and v2.is_file()


# -- untrusted input ---------------------------------------------------------------------

LAUGHS = (
    b'<?xml version="1.0"?>\n'
    b'<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + b"".join(b' <!ENTITY lol%d "%s">\n' % (i, b"&lol%d;" % (i - 1) * 10 if i > 1
                                           else b"&lol;" * 10) for i in range(1, 10))
    + b"]>\n<urlset><url><loc>&lol9;</loc></url></urlset>\n"
)
EXTERNAL = (
    b'<?xml version="1.0"?>\n<urlset>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    b"\n<url><loc>&e;</loc></url></urlset>\n"
)


@pytest.mark.parametrize(("data", "line"), [(LAUGHS, 2), (EXTERNAL, 3)])
def test_a_hostile_sitemap_is_refused_with_one_line(
    project: Path, data: bytes, line: int
) -> None:
    path = project / "published" / "sitemap.xml"
    path.write_bytes(data)
    with pytest.raises(InventoryError) as caught:
        read_history("published/sitemap.xml", project, fetch=unfetched)
    assert str(caught.value) == (
        f"{path}:{line}: a sitemap with a DOCTYPE or ENTITY declaration is refused "
        "(entities can expand without end)"
    )
    out, warnings = build(project, fresh=True, relocate_published="published/sitemap.xml")
    assert len(warnings) == 1
    assert f"{path}:{line}: a sitemap with a DOCTYPE" in warnings[0]
    assert (out / "index.html").is_file()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken.xml", b"<urlset>\n<url><loc>x</url>\n", "{path}:2: not a sitemap: mismatched tag"),
        ("index.xml", b"<sitemapindex>\n<sitemap><loc>a.xml</loc></sitemap>\n</sitemapindex>",
         "{path}:2: a sitemap index: list its sitemaps instead"),
        ("urls.txt", b"# nothing\n\n", "no published URL in {path}"),
        ("urls.txt", b"https://else.example/a.html\n",
         "no published URL in {path} (1 outside the site's base path: is html_baseurl right?)"),
        ("urls.txt", b"a.html\nb.html c.html\n", "{path}:2: one URL or path a line: "
                                                 "'b.html c.html'"),
        ("urls.txt", b"a.html\n\xff\n", "{path}:2: not UTF-8 text"),
    ],
)
def test_a_bad_source_is_one_line_naming_it(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InventoryError) as caught:
        read_history(name, tmp_path, fetch=unfetched, base_url=BASE)
    assert str(caught.value).startswith(reason.format(path=path))
    assert "\n" not in str(caught.value)


# -- a URL -------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A loopback server of a folder, and its URL."""
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    site = tmp_path / "site"
    site.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield site, f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_sitemap_url_is_read_once_and_kept_next_to_the_build(
    project: Path, served: tuple[Path, str]
) -> None:
    site, url = served
    (site / "sitemap.xml").write_text(sitemap(url + "kept.html", url + "dropped.html"), "utf-8")
    _, warnings = build(project, fresh=True, relocate_published=url + "sitemap.xml")
    assert [m for _, m in messages(warnings)] == [
        f"{url}dropped.html was published ({url}sitemap.xml, line 7) {NOTHING}"
    ]
    (site / "sitemap.xml").unlink()  # the next build does not ask again
    _, again = build(project, relocate_published=url + "sitemap.xml")
    assert messages(again) == messages(warnings)


# -- the command line --------------------------------------------------------------------


def test_the_check_names_what_it_read_and_fails_on_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    conf = project / "conf.py"
    conf.write_text(conf.read_text("utf-8") + f"html_baseurl = {BASE!r}\n", "utf-8")
    (project / "published" / "sitemap.xml").write_text(
        sitemap(BASE + "kept/", BASE + "dropped/", "https://else.example/x/"), "utf-8")
    inventory(project / "published" / "v2.inv", {"news": "news.html"})
    assert main(["check", ".", "--published", "published/sitemap.xml",
                 "--published", "published/v2.inv"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"relocations.toml:2: news was published at {BASE}news.html and is no longer a page; "
        "it has no entry",
        f"relocations.toml:2: {BASE}dropped/ was published "
        f"(published/sitemap.xml, line 7) {NOTHING}",
    ]
    assert ("note: published history: 3 URLs read from published/sitemap.xml, "
            "published/v2.inv; 1 outside the site's base path, not checked") in captured.err
    # a list of nothing passes nothing
    (project / "published" / "urls.txt").write_text("# to do\n", "utf-8")
    assert main(["check", ".", "--published", "published/urls.txt"]) == 2
    assert capsys.readouterr().err == (
        "sphinx-relocate: error: no published URL in published/urls.txt\n"
    )


# -- the pieces --------------------------------------------------------------------------


def test_page_candidates() -> None:
    assert page_candidates("a/b.html") == ["a/b"]
    assert page_candidates("a/index.html") == ["a/index", "a"]
    assert page_candidates("a/") == ["a/index", "a"]
    assert page_candidates("a") == ["a", "a/index"]
    assert page_candidates("") == ["index"]
    assert page_candidates("a/file.pdf") == []


def test_site_path() -> None:
    assert site_path(BASE + "a%20b/c.html", BASE) == "a b/c.html"
    assert site_path("http://DEMO.example/docs/x/?q=1#f", BASE) == "x/"
    assert site_path("https://demo.example/blog/", BASE) is None
    assert site_path("https://else.example/docs/x/", BASE) is None
    assert site_path("/docs/x.html", BASE) == "x.html"
    assert site_path("/x.html", BASE) is None
    assert site_path("x.html", BASE) == "x.html"
    assert site_path("https://demo.example/x/", "") == "x/"


def test_closest_page() -> None:
    hints = ClosestPages({"index", "manual/install", "old/manual/install", "guide/introduction"})
    assert hints.closest(["install"]) == "manual/install"
    assert hints.closest(["setup/install/index", "setup/install"]) == "manual/install"
    assert hints.closest(["guide/introductoin"]) == "guide/introduction"
    assert hints.closest(["zzz"]) is None


def test_closest_page_among_many_looks_in_the_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClosestPages, "ALL_CANDIDATES", 2)
    hints = ClosestPages({"guide/introduction", "guide/tuning", "api/introductio"})
    assert hints.closest(["guide/introductoin"]) == "guide/introduction"
    assert hints.closest(["other/introductoin"]) is None


def test_a_folder_rule_of_the_exports_serves_the_files_below_it(project: Path) -> None:
    """``setup/`` moved as a whole: with a server export, its rule also sends the files
    below it (which get no stub) to ``manual/``; without one, nothing serves them."""
    (project / "published" / "urls.txt").write_text("setup/diagram.png\n", "utf-8")
    _, warnings = build(project, fresh=True, relocate_published="published/urls.txt")
    assert [m for _, m in messages(warnings)] == [
        f"setup/diagram.png was published ({project / 'published' / 'urls.txt'}, line 1) "
        f"{NOTHING}"
    ]
    _, warnings = build(project, fresh=True, relocate_published="published/urls.txt",
                        relocate_redirect_exports=["netlify"])
    assert warnings == []


def test_a_page_left_behind_in_the_output_serves_nothing(project: Path) -> None:
    """Sphinx leaves the page of a deleted document in the output folder: an incremental
    build does not take it for a file that serves the URL."""
    (project / "published" / "urls.txt").write_text("kept.html\n", "utf-8")
    out, warnings = build(project, fresh=True, relocate_published="published/urls.txt")
    assert warnings == []
    (project / "kept.md").unlink()
    index = project / "index.md"
    index.write_text(index.read_text("utf-8").replace("kept\n", ""), "utf-8")
    out, warnings = build(project, relocate_published="published/urls.txt")
    assert (out / "kept.html").is_file()
    assert [m for _, m in messages(warnings)][-1].startswith("kept.html was published (")


def test_a_page_relocate_since_reports_is_not_reported_again(
    project: Path, tmp_path: Path
) -> None:
    """With ``relocate_since`` and ``relocate_published`` both set, a page deleted since
    the release is one warning (git's, at its place), not two: one entry answers both.
    A label the release listed is still its own finding: a ``[labels]`` entry answers it
    (myst-parser's docs, replayed with both settings: 8 pages twice)."""
    from reorg_fixture import first_commit, git

    (project / "dropped.md").write_text("# Dropped\n", "utf-8")
    base = first_commit(project, "release")
    git(project, "rm", "-q", "dropped.md")
    git(project, "commit", "-q", "-m", "drop a page")
    before = copy(tmp_path, "test-inventory-before")
    release, _ = build(before, fresh=True)
    _, warnings = build(project, fresh=True, relocate_published=str(release),
                        relocate_since=base)
    found = [m for _, m in messages(warnings) if "dropped" in m or "label" in m]
    assert found == [
        f"dropped was deleted since {base} and has no entry",
        "label install-label was published at setup/install.html#install-label and is no "
        "longer a label; it has no [labels] entry",
    ], found
