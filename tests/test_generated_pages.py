"""A moved page's links to the pages the builder writes without a source (``genindex``,
``search``, ``html_additional_pages``), written by their URLs from the page's old folder.

The oracle is the original layout built with plain Sphinx; the moved layout built with
the extension, and the sources ``mv`` rewrote built without it, must land each link on
the same output file.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path

import pytest
from builds import COLOR, build, copy_root
from reorg_fixture import first_commit

from sphinx_relocate.cli.main import main

_HREF = re.compile(r'<a class="reference[^"]*" href="([^"]*)"|<a href="([^"]*)"')


def landings(outdir: Path, page: str) -> list[str]:
    """Where each link of the page's body lands: an output path with query and fragment."""
    html = (outdir / page).read_text("utf-8")
    body = html[html.index('<div class="body"') : html.index('<div class="sphinxsidebar"')]
    found = []
    for match in _HREF.finditer(body):
        href = match.group(1) or match.group(2)
        if href.startswith("#"):
            continue
        path, rest = re.match(r"([^?#]*)(.*)", href).groups()  # type: ignore[union-attr]
        landed = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        assert (outdir / landed).is_file(), f"{href} on {page} lands on no file"
        found.append(landed + rest)
    return found


ORACLE = ["contents.html", "genindex.html", "search.html?q=relocate", "index.html",
          "genindex.html#A"]


def moved(tmp_path: Path) -> Path:
    """The root with ``tutorial/`` moved to ``guide/tutorial/`` and its table entry."""
    srcdir = copy_root("generated-pages", tmp_path)
    (srcdir / "guide").mkdir()
    shutil.move(srcdir / "tutorial", srcdir / "guide/tutorial")
    (srcdir / "relocations.toml").write_text(
        '[prefixes]\n"tutorial/" = "guide/tutorial/"\n', "utf-8"
    )
    return srcdir


def landings_without_the_extension(srcdir: Path, builddir: Path, page: str) -> list[str]:
    """:func:`landings` of ``page`` built by plain Sphinx, which warns nothing."""
    conf = srcdir / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace('["sphinx_relocate"]', "[]"), "utf-8")
    built = build(srcdir, builddir=builddir, fresh=True)
    assert COLOR.sub("", built.warnings) == ""
    return landings(built.outdir, page)


def test_the_oracle(tmp_path: Path) -> None:
    srcdir = copy_root("generated-pages", tmp_path)
    assert landings_without_the_extension(srcdir, tmp_path / "plain", "tutorial/end.html") == (
        ORACLE
    )


def test_the_build_reads_them_from_the_old_folder(tmp_path: Path) -> None:
    srcdir = moved(tmp_path)
    built = build(srcdir, builddir=tmp_path / "build", fresh=True)
    assert COLOR.sub("", built.warnings) == ""
    assert landings(built.outdir, "guide/tutorial/end.html") == ORACLE
    # no dependency on a file that is not there: nothing is read again
    again = build(srcdir, builddir=tmp_path / "build")
    assert again.read == frozenset()
    # from where the page is now the same links would have named no page: warned
    text = (srcdir / "guide/tutorial/end.rst").read_text("utf-8")
    (srcdir / "relocations.toml").unlink()
    built = build(srcdir, builddir=tmp_path / "no-table", fresh=True)
    assert "link '../contents.html' does not land" in COLOR.sub("", built.warnings)
    assert text == (srcdir / "guide/tutorial/end.rst").read_text("utf-8")


def test_mv_rewrites_them_for_plain_sphinx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    srcdir = copy_root("generated-pages", tmp_path)
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "tutorial", "guide/tutorial"]) == 0
    assert "rewrote 6 links in 2 files" in capsys.readouterr().err
    text = (srcdir / "guide/tutorial/end.rst").read_text("utf-8")
    assert "<../../contents.html>" in text and 'href="../../genindex.html#A"' in text
    assert landings_without_the_extension(
        srcdir, tmp_path / "plain", "guide/tutorial/end.html"
    ) == ORACLE


def test_raw_html_linking_a_folder_is_not_read_again(tmp_path: Path) -> None:
    """A folder a page's raw HTML links is no dependency of the page: Sphinx reads a page
    again on every build while a dependency of it is not a file."""
    srcdir = tmp_path / "docs"
    (srcdir / "data").mkdir(parents=True)
    (srcdir / "data/table.csv").write_text("a,b\n", "utf-8")
    (srcdir / "conf.py").write_text('extensions = ["sphinx_relocate"]\n', "utf-8")
    (srcdir / "index.rst").write_text(
        'Home\n====\n\n.. raw:: html\n\n   <a href="data/">the data</a>\n', "utf-8"
    )
    first = build(srcdir, builddir=tmp_path / "build")
    assert first.read == {"index"} and COLOR.sub("", first.warnings) == ""
    assert build(srcdir, builddir=tmp_path / "build").read == frozenset()
