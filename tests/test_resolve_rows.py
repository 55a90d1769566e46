"""The cases seen on real reorganized trees, one row each, in the build and in ``rewrite``.

``tests/roots/test-resolve-rows`` is a repository whose docs live in ``docs/zh``: a page
that became a folder of its own name, a renamed section (``[anchors]``), a link that
leaves the docs folder and comes back in, own-repository URLs in prose and in a table
cell, a moved page's raw HTML link to a page that did not move, raw HTML in a subfolder
page (``singlehtml`` writes it into the root page), ``literalinclude``, ``csv-table
:file:`` and an ``include`` of an excluded fragment moved by ``[files]``, and a reST
grid table whose cell gets a longer target.  The build with the extension must land
every link, with no warning, under html, dirhtml and singlehtml; ``rewrite --write``
must fix the sources so that a plain build lands every link in the same place.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import builds
import pytest
from oracle import compare, landings

from sphinx_relocate.cli.main import main

ROOT = Path(__file__).parent / "roots" / "test-resolve-rows"
COLOR = re.compile(r"\x1b\[[0-9;]*m")
FORGE = "https://forge.example/org/repo/blob/master/docs/zh/"


def build(srcdir: Path, builder: str, outdir: Path, **overrides: object) -> str:
    built = builds.build(srcdir, builder, builddir=outdir, fresh=True, confoverrides=overrides)
    return COLOR.sub("", built.warnings)


def hrefs(path: Path) -> list[str]:
    return re.findall(r'href="([^"]*)"', path.read_text("utf-8"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(ROOT, tmp_path / "repo")
    return tmp_path / "repo"


@pytest.mark.parametrize("builder", ["html", "dirhtml", "singlehtml"])
def test_every_row_lands_in_the_build(repo: Path, tmp_path: Path, builder: str) -> None:
    docs = repo / "docs" / "zh"
    warnings = build(docs, builder, tmp_path / "out")
    assert warnings == ""
    out = tmp_path / "out" / builder
    if builder == "singlehtml":
        page = (out / "index.html").read_text("utf-8")
        # raw HTML of sub/page.md, written into the root page: the page's place there
        assert '<a href="#document-features/parallel/x">FSDP2, as raw HTML</a>' in page
        local = [h for h in hrefs(out / "index.html") if not h.startswith("https:")]
        assert not [h for h in local if ".md" in h]
        return
    links = out / ("links.html" if builder == "html" else "links/index.html")
    found = hrefs(links)
    ext = ".html" if builder == "html" else "/"
    up = "" if builder == "html" else "../"
    assert f"{up}introduction/overview{ext}" in found  # out and back, to a page now a folder
    assert f"{up}guide/setup{ext}#building-from-source" in found  # [anchors]
    # own-repository URLs of a moved page go to its new source on the forge
    assert found.count(FORGE + "features/parallel/x.md") == 2
    assert FORGE + "features/x.md" not in found
    # on another branch: history, left as written
    develop = "https://forge.example/org/repo/tree/develop/docs/zh/features/x.md"
    assert develop in found
    moved = out / "guide/deep" / ("moved.html" if builder == "html" else "moved/index.html")
    # the moved page's raw HTML link, read from its old folder, to a page that stayed
    assert f'<a href="../{up}setup{ext}">setup, as raw HTML</a>' in moved.read_text("utf-8")
    api = (out / ("api.html" if builder == "html" else "api/index.html")).read_text("utf-8")
    assert "print" in api and "alpha" in api and "from an include fragment" in api


def test_rewrite_then_a_plain_build_lands_every_link_where_the_build_did(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = repo / "docs" / "zh"
    assert build(docs, "html", tmp_path / "with") == ""
    with_extension = landings(tmp_path / "with" / "html", docs)

    assert main(["rewrite", str(docs), "--write"]) == 0
    assert "rewrote" in capsys.readouterr().err
    table = (docs / "relocations.toml").read_bytes()
    (docs / "relocations.toml").unlink()
    plain = build(docs, "html", tmp_path / "plain", extensions=["myst_parser"])
    assert plain == ""
    assert compare(with_extension, landings(tmp_path / "plain" / "html", docs)) == []
    # files outside the docs, dot-folders included, point at the new pages too
    assert "docs/zh/introduction/overview.md" in (repo / ".github/CONTRIBUTING.md").read_text()
    readme = (repo / "README.md").read_text("utf-8")
    assert "docs/zh/features/parallel/x.md" in readme
    assert FORGE + "guide/setup.md" in readme
    assert FORGE + "features/parallel/x.md for FSDP2" in (docs / "links.md").read_text("utf-8")
    # and a second rewrite has nothing left to do (with no table it checks nothing: exit 2)
    assert main(["rewrite", str(docs), "--check"]) == 2
    (docs / "relocations.toml").write_bytes(table)
    assert main(["rewrite", str(docs), "--check"]) == 0


def test_every_file_a_directive_reads_is_reported_when_rewritten(
    repo: Path, tmp_path: Path
) -> None:
    """``relocate_report_rewrites`` is the gate that the sources were updated: the files
    ``literalinclude``, ``csv-table :file:`` and ``include`` read through the table are
    among what it reports (on every build) and what the summary counts, as ``rewrite``
    changes them.  They were left out: the Packaging User Guide's moved AppVeyor sample
    passed the gate with two outdated ``literalinclude`` paths."""
    docs = repo / "docs" / "zh"
    for fresh in (True, False):  # the second build reads nothing: from the records
        built = builds.build(docs, builddir=tmp_path / "out", fresh=fresh,
                             confoverrides={"relocate_report_rewrites": True})
        # (the :doc: of the grid table's cell too, at a line docutils versions differ on)
        lines = [line.replace(f"{docs}/", "")
                 for line in COLOR.sub("", built.warnings).splitlines()
                 if line.startswith(f"{docs}/api.rst") and "'setup'" not in line]
        assert lines == [
            f"api.rst:{n}: WARNING: {old!r} is written against an old path; it now points "
            f"to {new!r} [relocate.outdated]"
            for n, old, new in [(4, "snippets/example.py", "code/example.py"),
                                (7, "files/data.csv", "data/data.csv"),
                                (10, "_fragments/note.rst", "_snippets/note.rst")]
        ], built.warnings
