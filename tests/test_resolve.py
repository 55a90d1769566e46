"""References written against old paths resolve at build time (test root ``reorg``).

The root reproduces a realistic reorganization (see its ``relocations.toml``): a page
moved one folder deeper, a folder move, a rename, a CJK file name renamed to ASCII, a
case-only rename and a heading whose anchor changed.  Every source still links to the
old paths.  Each builder builds it once per module; the tests read the output.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import builds
import pytest
from sphinx.testing.util import SphinxTestApp

from sphinx_relocate.sphinx_ext.record import Reference
from sphinx_relocate.sphinx_ext.resolve import lookups_of, unpacked_lookups

ROOT = Path(__file__).parent / "roots" / "test-reorg"


@dataclass
class Built:
    outdir: Path
    warnings: str
    references: dict[str, list[Reference]]
    lookups: dict[str, set[tuple[str, str, str]]]

    def read(self, name: str) -> str:
        return (self.outdir / name).read_text("utf-8")

    def hrefs(self, name: str) -> list[str]:
        """The href of every link in the page body (theme links left out)."""
        body = self.read(name).split('<div class="body"', 1)[-1]
        body = body.split('<div class="sphinxsidebar"')[0]
        links = re.findall(r"""<a ([^>]*?)href=["']([^"']*)["']""", body)
        return [href for attrs, href in links if "headerlink" not in attrs]

    def srcs(self, name: str) -> list[str]:
        return re.findall(r"""<img [^>]*?src=["']([^"']*)["']""", self.read(name))


def build(tmp: Path, buildername: str, **overrides: object) -> Built:
    srcdir = tmp / "src"
    shutil.copytree(ROOT, srcdir)
    built = builds.build(
        srcdir, buildername, confoverrides={"nitpicky": True, **overrides}
    )
    env = built.app.env
    references = dict(env.relocate_references)  # type: ignore[attr-defined]
    lookups = {docname: set(unpacked_lookups(made)) for docname, made in lookups_of(env).items()}
    return Built(built.outdir, built.warnings, references, lookups)


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory.mktemp("reorg-html"), "html")


@pytest.fixture(scope="module")
def dirhtml(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory.mktemp("reorg-dirhtml"), "dirhtml")


def test_no_warnings_with_nitpicky(html: Built, dirhtml: Built) -> None:
    assert html.warnings == ""
    assert dirhtml.warnings == ""


# the anchors Sphinx gives the CJK headings (MyST maps the slug to them)
INSTALL_SOURCE = "#id3"  # guides/install_guide: "## 源码安装"
NOTES_VERSIONS = "#id1"  # release_notes: "## 相关产品版本配套说明"


def test_myst_page_links(html: Built) -> None:
    assert html.hrefs("overview.html")[:14] == [
        "guides/install_guide.html",  # a folder move
        "guides/install_guide.html",  # implicit text
        "guides/install_guide.html" + INSTALL_SOURCE,  # [anchors] to a CJK slug
        "features/parallel/fsdp2.html",  # .html written
        "features/parallel/fsdp2.html#fsdp2-usage",  # ./ and an anchor kept
        "features/ep_balance.html",  # case-only rename
        "introduction/feature_overview.html",  # CJK name → ASCII
        "introduction/feature_overview.html",  # the same, percent-encoded
        "release_notes.html" + NOTES_VERSIONS,  # rename, CJK slug kept
        "release_notes.html" + NOTES_VERSIONS,  # percent-encoded fragment
        "_downloads/a5dbb5e699b14e0103eabbf3e07ae368/data.csv",  # non-page file, folder move
        "release_notes.html",  # already current: untouched
        "features/parallel/fsdp2.html#fsdp2-usage",  # raw HTML
        "release_notes.html" + NOTES_VERSIONS,  # raw HTML, single quotes
    ]


def test_moved_page_resolves_its_own_links_from_its_old_folder(html: Built) -> None:
    page = "features/parallel/fsdp2.html"
    assert html.hrefs(page)[:4] == [
        "../ep_balance.html",
        "../../guides/install_guide.html" + INSTALL_SOURCE,
        "../../release_notes.html" + NOTES_VERSIONS,
        "../ep_balance.html",  # raw HTML
    ]
    assert html.srcs(page) == ["../../_images/arch.png", "../../_images/arch.png"]
    overview = "introduction/feature_overview.html"
    assert html.hrefs(overview)[:2] == [
        "../features/ep_balance.html",
        "../features/parallel/fsdp2.html#fsdp2-usage",
    ]


def test_rst_roles_links_images_and_raw_html(html: Built) -> None:
    page = "guides/quickstart.html"
    assert html.hrefs(page)[:7] == [
        "../features/parallel/fsdp2.html",  # :doc: relative
        "../features/ep_balance.html",  # :doc: /absolute
        "install_guide.html",  # :doc: already current
        "../_downloads/a5dbb5e699b14e0103eabbf3e07ae368/data.csv",  # :download:
        "../introduction/feature_overview.html",  # `text <old.html>`_
        "install_guide.html" + INSTALL_SOURCE,  # `text <old.md#old-anchor>`_
        "../features/parallel/fsdp2.html#fsdp2-usage",  # .. raw:: html
    ]
    assert html.srcs(page) == [
        "../_images/logo.png",  # .. image:: of a relocated file ([files])
        "../_images/arch.png",  # .. figure::
        "../_images/logo.png",  # raw <img>
    ]
    assert (html.outdir / "_images" / "logo.png").read_bytes() == (
        ROOT / "images" / "new" / "logo.png"
    ).read_bytes()


def test_anchor_of_an_existing_page_keyed_by_its_old_name(html: Built) -> None:
    assert html.hrefs("guides/tuning.html")[0] == "install_guide.html" + INSTALL_SOURCE


def test_toctrees_rst_and_myst_fence(html: Built) -> None:
    toc = html.read("index.html").split('class="toctree-wrapper', 1)[1]
    for title in ("安装指南", "Quick start", "FSDP2", "EP balance", "特性总览", "Release notes"):
        assert f">{title}</a>" in toc
    fence = html.read("introduction/feature_overview.html").split('class="toctree-wrapper', 1)[1]
    assert 'href="../guides/advanced.html">Advanced</a>' in fence
    assert 'href="../guides/tuning.html">Tuning</a>' in fence


def test_raw_html_keeps_every_other_byte(html: Built) -> None:
    text = html.read("overview.html")
    assert (
        '<td><a href="features/parallel/fsdp2.html#fsdp2-usage" class="x">FSDP2</a></td>\n'
        '      <td><img src="_images/logo.png" width="20" alt="logo"></td>\n'
        "      <td><a href='release_notes.html#id1'>notes</a></td>\n"
        '      <td><a href="_downloads/a5dbb5e699b14e0103eabbf3e07ae368/data.csv">data</a>'
    ) in text


def test_dirhtml_urls(dirhtml: Built) -> None:
    assert dirhtml.hrefs("overview/index.html")[:6] == [
        "../guides/install_guide/",
        "../guides/install_guide/",
        "../guides/install_guide/" + INSTALL_SOURCE,
        "../features/parallel/fsdp2/",
        "../features/parallel/fsdp2/#fsdp2-usage",
        "../features/ep_balance/",
    ]
    page = "features/parallel/fsdp2/index.html"
    assert dirhtml.hrefs(page)[:4] == [
        "../../ep_balance/",
        "../../../guides/install_guide/" + INSTALL_SOURCE,
        "../../../release_notes/" + NOTES_VERSIONS,
        "../../ep_balance/",  # raw HTML gets the dirhtml form too
    ]
    assert dirhtml.srcs(page) == ["../../../_images/arch.png", "../../../_images/arch.png"]
    quick = "guides/quickstart/index.html"
    assert "../../features/parallel/fsdp2/#fsdp2-usage" in dirhtml.hrefs(quick)
    assert dirhtml.srcs(quick) == ["../../_images/logo.png", "../../_images/arch.png"] * 1 + [
        "../../_images/logo.png"
    ]


def test_every_reference_is_recorded_after_rewriting(html: Built) -> None:
    refs = html.references
    by_written = {
        (r.docname, r.written): r
        for docrefs in refs.values()
        for r in docrefs
        if r.kind != "raw_html"
    }
    guide = by_written["overview", "pytorch/install_guide.md#方式二源码安装"]
    assert (guide.line, guide.kind, guide.target, guide.is_page, guide.anchor, guide.rewritten) == (
        5, "link", "guides/install_guide", True, "源码安装", True
    )
    image = by_written["features/parallel/fsdp2", "../images/arch.png"]
    assert (image.kind, image.target, image.is_page, image.rewritten) == (
        "image", "images/arch.png", False, True
    )
    toc = by_written["introduction/feature_overview", "../pytorch/tuning"]
    assert (toc.kind, toc.line, toc.target, toc.rewritten) == ("toctree", 12, "guides/tuning", True)
    raw = [r for r in refs["guides/quickstart"] if r.kind == "raw_html"]
    assert [(r.line, r.written, r.target, r.anchor) for r in raw] == [
        (15, "../features/fsdp2.md#fsdp2-usage", "features/parallel/fsdp2", "fsdp2-usage"),
        (15, "../images/logo.png", "images/new/logo.png", ""),
    ]
    assert {r.kind for r in refs["overview"]} == {"link", "image", "raw_html"}
    # a link that lands as written on a page that exists is not recorded (there is
    # nothing to check while the page exists); the lookup the rule noted re-reads its
    # page when the target goes, and records it then
    assert ("guides/quickstart", "install_guide") not in by_written
    assert ("page", "guides/install_guide", "") in html.lookups["guides/quickstart"]


def test_report_rewrites_warns_at_the_source_line(tmp_path: Path) -> None:
    built = build(tmp_path, "text", relocate_report_rewrites=True)
    lines = re.sub(r"\x1b\[[0-9;]*m", "", built.warnings).splitlines()
    expected = "overview.md:3: WARNING: 'pytorch/install_guide.md' is written against an old path"
    assert any(expected in line for line in lines), built.warnings
    assert all("is written against an old path" in line for line in lines)
    assert len(lines) == sum(r.rewritten for refs in built.references.values() for r in refs)
    # a build that re-reads nothing reports them again (they come from the records)
    warning = StringIO()
    again = SphinxTestApp(
        "text",
        srcdir=tmp_path / "src",
        confoverrides={"nitpicky": True, "relocate_report_rewrites": True},
        status=StringIO(),
        warning=warning,
    )
    try:
        again.build()
    finally:
        again.cleanup()
    repeated = re.sub(r"\x1b\[[0-9;]*m", "", warning.getvalue()).splitlines()
    assert sorted(repeated) == sorted(lines)


@pytest.mark.parametrize("buildername", ["singlehtml", "latex", "text"])
def test_other_builders_get_resolved_references(tmp_path: Path, buildername: str) -> None:
    built = build(tmp_path, buildername)
    assert built.warnings == ""
    if buildername == "singlehtml":
        text = built.read("index.html")
        assert 'href="#document-features/parallel/fsdp2"' in text
        assert 'href="#id3"' in text or 'href="#document-guides/install_guide#id3"' not in text
        assert '<img src="_images/logo.png" width="20"' in text
    elif buildername == "latex":
        tex = next(built.outdir.glob("*.tex")).read_text("utf-8")
        assert r"\hyperref[\detokenize{features/parallel/fsdp2::doc}]" in tex
        assert r"\sphinxincludegraphics{{logo}.png}" in tex
    else:
        assert "安装指南" in built.read("overview.txt") or built.read("index.txt")
