"""The HTML files ``html_extra_path`` copies link pages too.

No document holds them, so Sphinx reads none of their links: a landing page's link to
a page deleted without an entry is a 404 that no build reported.  The build checks each
of their relative links against what it serves (pages, files, redirect stubs) and warns
at the file's line; ``rewrite`` writes the new URLs of moved pages into them.
"""

from __future__ import annotations

import re
from pathlib import Path

import builds
import pytest
from builds import warning_lines
from reorg_fixture import first_commit, write_tree

from sphinx_relocate.cli.main import main

LANDING = """\
<!DOCTYPE html>
<html><head><link rel="stylesheet" href="style.css"><link href="_static/basic.css"
 rel="stylesheet"></head>
<body>
<a href="install.html">Install</a> and <a href="install.html#setup">its setup</a>,
<a href="guide/tutorial.html">the tutorial</a>, <a href="genindex.html">the index</a>,
<a href="gone.html">a page deleted since</a>, <a href="guide/tutorial.html#nope">a
section that is not there</a>, <a href="https://example.org/">elsewhere</a>,
<a href="#top">the top</a> and <a href="../other-site/">another site</a>.
<!-- <a href="commented.html">left alone</a> -->
</body></html>
"""
FILES = {
    "docs/conf.py": 'extensions = ["sphinx_relocate"]\nhtml_extra_path = ["_extra"]\n',
    "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   guide/install\n   guide/tutorial\n",
    "docs/guide/install.rst": "Install\n=======\n\nSetup\n-----\n\nText.\n",
    "docs/guide/tutorial.rst": "Tutorial\n========\n",
    "docs/_extra/landing.html": LANDING,
    "docs/_extra/style.css": "body {}\n",
    "docs/relocations.toml": '[pages]\n"install" = "guide/install"\n',
}


def hrefs(html: str) -> list[str]:
    """The links of an HTML file, outside its comments."""
    return re.findall(r'href="([^"]*)"', re.sub(r"<!--.*?-->", "", html, flags=re.DOTALL))


def test_the_links_of_extra_files_are_checked_at_their_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES, {})
    docs = tmp_path / "docs"
    expected = [
        "docs/_extra/landing.html:7: WARNING: link 'gone.html' does not land: nothing the "
        "build serves is at 'gone.html' (no page, file, redirect stub or server rule) "
        "[relocate.link]",
        "docs/_extra/landing.html:7: WARNING: link 'guide/tutorial.html#nope' does not "
        "land: page 'guide/tutorial' has no anchor 'nope' [relocate.link]",
    ]
    lines = warning_lines(docs, tmp_path / "build")
    assert [line for line in lines if "relocate." in line] == expected, lines
    assert (tmp_path / "build/html/install.html").is_file()  # the stub that serves it
    # an edited file is read again (the others' links are kept by size and time)
    landing = docs / "_extra/landing.html"
    landing.write_text(LANDING.replace("gone.html", "index.html"), "utf-8")
    lines = warning_lines(docs, tmp_path / "build")
    assert [line for line in lines if "relocate." in line] == expected[1:], lines
    landing.write_text(LANDING, "utf-8")
    # what the doctree folder keeps is read again when it is not of its form
    kept = tmp_path / "build/doctrees/relocate-extra-links.json"
    assert kept.is_file()
    stat = landing.stat()
    same = f'"landing.html": [{stat.st_size}, {stat.st_mtime_ns}, '
    for garbage in ("{" + same + "[[1, 2]], []]}", "{" + same + "7, 8]}", "[1]", "{"):
        kept.write_text(garbage, "utf-8")
        lines = warning_lines(docs, tmp_path / "build")
        assert [line for line in lines if "relocate." in line] == expected, (garbage, lines)
    # the dirhtml builder writes pages at other URLs (the old page's stub answers both)
    built = builds.build(docs, "dirhtml", builddir=tmp_path / "dirhtml",
                         confoverrides={"show_warning_types": True})
    assert [line.replace(str(docs), "docs") for line in builds.COLOR.sub(
        "", built.warnings).splitlines()] == [
        "docs/_extra/landing.html:6: WARNING: link 'guide/tutorial.html' does not land: the "
        "dirhtml builder writes page 'guide/tutorial' at 'guide/tutorial/' [relocate.link]",
        expected[0],
        "docs/_extra/landing.html:7: WARNING: link 'guide/tutorial.html#nope' does not land: "
        "the dirhtml builder writes page 'guide/tutorial' at 'guide/tutorial/' "
        "[relocate.link]"]
    # a link to what only the server adds is relocate_ignore's, as any other target
    lines = warning_lines(docs, tmp_path / "ignored", relocate_ignore=[r"gone\.html"])
    assert [line for line in lines if "relocate." in line] == expected[1:], lines
    # again, with nothing to read: the files are checked on every build
    lines = warning_lines(docs, tmp_path / "build")
    assert [line for line in lines if "relocate." in line] == expected, lines


def test_rewrite_writes_the_new_urls_into_extra_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = dict(FILES)
    files["docs/_extra/landing.html"] = LANDING.replace("gone.html", "index.html").replace(
        "#nope", "")
    write_tree(tmp_path, files, {})
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 0
    assert "rewrote 2 links in 1 file (html 2)" in capsys.readouterr().err
    landing = (tmp_path / "docs/_extra/landing.html").read_text("utf-8")
    assert landing == files["docs/_extra/landing.html"].replace(
        '"install.html', '"guide/install.html')
    # without the extension and the table, every link lands: no stub needed
    docs = tmp_path / "docs"
    (docs / "conf.py").write_text('html_extra_path = ["_extra"]\n', "utf-8")
    (docs / "relocations.toml").unlink()
    builds.build(docs, builddir=tmp_path / "plain")
    out = tmp_path / "plain/html"
    for href in hrefs((out / "landing.html").read_text("utf-8")):
        path = href.partition("#")[0]
        if path and "://" not in path and not path.startswith(".."):
            assert (out / path).is_file(), href


def test_a_new_url_with_a_quote_stays_inside_its_attribute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page name is any file name (and a table value): a quote or ``<`` in the new
    URL would end the attribute and write markup into an HTML file the site serves as
    it is, or into a page's raw HTML; it is written as the attribute's text instead."""
    files = dict(FILES)
    files["docs/conf.py"] = ('extensions = ["myst_parser", "sphinx_relocate"]\n'
                             'html_extra_path = ["_extra"]\n')
    files["docs/relocations.toml"] = '[pages]\n"install" = \'guide/in"st<all\'\n'
    files['docs/guide/in"st<all.md'] = "# Install\n"
    files["docs/_extra/landing.html"] = (
        "<a href=\"install.html\">a</a> <a href='install.html'>b</a> <a href=install.html>c</a>\n"
        '<a href="install.html?q=1&amp;r=2#setup">e</a>\n')
    files["docs/page.md"] = '# Page\n\n<a href="install.md">d</a>\n'
    write_tree(tmp_path, files, {})
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 0
    assert (tmp_path / "docs/_extra/landing.html").read_text("utf-8") == (
        '<a href="guide/in&quot;st&lt;all.html">a</a> '
        "<a href='guide/in&quot;st&lt;all.html'>b</a> "
        "<a href=guide/in&quot;st&lt;all.html>c</a>\n"  # character references need no quotes
        # what the source wrote stays as written: no reference is escaped twice
        '<a href="guide/in&quot;st&lt;all.html?q=1&amp;r=2#setup">e</a>\n')
    assert (tmp_path / "docs/page.md").read_text("utf-8") == (
        '# Page\n\n<a href="guide/in&quot;st&lt;all.md">d</a>\n')
