"""Dangling references: one warning each, at its line, on every build, until fixed."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import builds
import pytest
from sphinx.cmd.build import build_main
from sphinx.testing.util import SphinxTestApp

from sphinx_relocate import RelocateWarning
from sphinx_relocate.core.settings import CONFIG_VALUES

ROOT = Path(__file__).parent / "roots" / "test-check-dangling"
DOCS = Path(__file__).parent.parent / "docs"
COLOR = re.compile(r"\x1b\[[0-9;]*m")
WARNING = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+)?:? ?WARNING: (?P<message>.*?) \[(?P<type>[\w.]+)\]$"
)

#: Every dangling reference of the test root: (file, text on its line, warning type).
EXPECTED = [
    # Sphinx's own, at the directive; it re-reads the page on every build, so ours is silent
    ("index.md", "{toctree}", "toc.not_readable"),
    ("index.md", "[a page that moved away](fsdp2.md)", "relocate.link"),
    ("index.md", "guide.md#不存在的标题", "relocate.anchor"),
    ("index.md", "img/missing.png", "relocate.image"),
    ("index.md", '<a href="gone.md">', "relocate.raw_html"),
    ("index.md", '<img src="img/nothing.png"', "relocate.raw_html"),
    ("index.md", "../examples/lost/README.md", "relocate.repo_file"),
    ("index.md", "https://forge.example/org/repo/blob/main/docs/guides/in", "relocate.repo_url"),
    ("index.md", "pytorch/absent.md", "relocate.link"),
    ("rstpage.rst", ":doc:`nowhere`", "relocate.link"),
    ("rstpage.rst", "files/missing.zip", "relocate.download"),
    ("rstpage.rst", "<old-page.html>", "relocate.link"),
    ("relocations.toml", '"old-guide"', "relocate.anchor"),
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the test repository (docs/ inside it); returns its docs folder."""
    shutil.copytree(ROOT, tmp_path / "repo")
    return tmp_path / "repo" / "docs"


def warnings_of(text: str, srcdir: Path) -> list[tuple[str, int, str, str]]:
    """(file relative to srcdir, line, type, message) of every warning in ``text``."""
    found = []
    for line in COLOR.sub("", text).splitlines():
        match = WARNING.match(line.strip())
        if match:
            file = os.path.relpath(match["file"], srcdir).replace(os.sep, "/")
            found.append((file, int(match["line"] or 0), match["type"], match["message"]))
    return found


def line_of(srcdir: Path, file: str, text: str) -> int:
    lines = (srcdir / file).read_text("utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def expected(srcdir: Path) -> list[tuple[str, int, str]]:
    return sorted((file, line_of(srcdir, file, text), kind) for file, text, kind in EXPECTED)


def build(srcdir: Path, **overrides: Any) -> tuple[SphinxTestApp, list]:
    app = builds.build(srcdir, confoverrides=overrides).app
    return app, warnings_of(app.warning.getvalue(), srcdir)


def dangling(warnings: list[tuple[str, int, str, str]]) -> list[tuple[str, int, str]]:
    """The findings among ``warnings`` (the summary left out)."""
    return sorted(
        (file, line, kind) for file, line, kind, _ in warnings if kind != "relocate.summary"
    )


def summary_of(warnings: list[tuple[str, int, str, str]]) -> str:
    """The summary line that ``warnings`` call for."""
    kinds = ("relocate.", "toc.")
    found = [w for w in warnings if w[2].startswith(kinds) and "summary" not in w[2]]
    return f"{len(found)} dangling references in {len({w[0] for w in found})} documents"


def sphinx_build(
    capsys: pytest.CaptureFixture[str], srcdir: Path, *args: str
) -> tuple[int, str, str]:
    """Run the ``sphinx-build`` command in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    status = build_main(["-N", "-b", "html", *args, str(srcdir), str(srcdir / "_build")])
    out, err = capsys.readouterr()
    return status, out, err


def test_each_dangling_reference_is_one_warning_at_its_line(repo: Path) -> None:
    app, warnings = build(repo)
    assert dangling(warnings) == expected(repo)
    assert len(EXPECTED) >= 10
    messages = {(f, k): m for f, _, k, m in warnings}
    link = next(m for f, _, k, m in warnings if "fsdp2.md" in m)
    # the table does not say that it moved: it "is" there
    assert (
        "a page named `fsdp2.md` is at `features/parallel/fsdp2.md`"
        " (`features/parallel/fsdp2.md` from here)"
    ) in link
    absent = next(m for f, _, k, m in warnings if "pytorch/absent.md" in m)
    assert "the table moves `pytorch/` to `guides/`" in absent
    own = messages["index.md", "relocate.repo_url"]
    assert "closest match: `guides/install`" in own
    assert summary_of(warnings) in app.status.getvalue()


def test_no_warning_of_sphinx_or_myst_duplicates_ours(repo: Path) -> None:
    _, warnings = build(repo)
    others = [w for w in warnings if not w[2].startswith(("relocate.", "toc."))]
    assert others == []


def test_dangling_links_become_marked_text(repo: Path) -> None:
    app, _ = build(repo)
    index = (app.outdir / "index.html").read_text("utf-8")
    rstpage = (app.outdir / "rstpage.html").read_text("utf-8")
    assert index.count('class="relocate-dangling"') == 4  # fsdp2, image, lost README, absent
    assert 'href="fsdp2.html"' not in index and "missing.png" not in index
    assert 'href="guide.html#id2"' in index  # the CJK slug that exists
    assert 'href="guide.html"' in index  # the missing anchor: a link to the page
    assert rstpage.count('class="relocate-dangling"') == 2  # :doc: and :download:


def test_a_second_build_reports_the_same(repo: Path) -> None:
    _, first = build(repo)
    app, second = build(repo)
    assert "0 changed" in app.status.getvalue() or "1 changed" in app.status.getvalue()
    assert dangling(second) == dangling(first) == expected(repo)


def test_fixing_one_link_removes_exactly_one_finding(repo: Path) -> None:
    _, first = build(repo)
    page = repo / "rstpage.rst"
    page.write_text(page.read_text("utf-8").replace(":doc:`nowhere`", ":doc:`guide`"), "utf-8")
    _, second = build(repo)
    fixed = ("rstpage.rst", line_of(repo, "rstpage.rst", ":doc:`guide`."), "relocate.link")
    assert dangling(second) == [f for f in dangling(first) if f != fixed]
    assert len(dangling(second)) == len(dangling(first)) - 1


def test_adding_the_missing_files_rereads_their_referrers(repo: Path) -> None:
    build(repo)
    (repo / "fsdp2.md").write_text("# Back again\n", "utf-8")
    shutil.copy(repo / "img" / "logo.png", repo / "img" / "missing.png")
    app, warnings = build(repo)
    gone = {("index.md", "relocate.link", "fsdp2"), ("index.md", "relocate.image", "missing")}
    left = {
        (f, k, "fsdp2" if "fsdp2" in m else "missing" if "missing.png" in m else "")
        for f, _, k, m in warnings
    }
    assert not gone & left
    index = (app.outdir / "index.html").read_text("utf-8")
    assert 'href="fsdp2.html"' in index
    assert "missing.png" in index
    assert len([w for w in dangling(warnings) if w[0] != "fsdp2.md"]) == len(EXPECTED) - 2


def test_removing_a_page_reports_its_referrers(repo: Path) -> None:
    build(repo)
    (repo / "guides" / "install.md").unlink()
    _, warnings = build(repo)
    toctree = ("index.md", line_of(repo, "index.md", "{toctree}"), "toc.not_readable")
    assert dangling(warnings).count(toctree) == 2  # missing-chapter and guides/install


def test_ignore_and_suppress(repo: Path) -> None:
    app, warnings = build(
        repo,
        relocate_ignore=[r"fsdp2", r"\.\./examples/"],
        suppress_warnings=["relocate.download"],
    )
    # an ignored target is left to Sphinx and MyST, which may warn about it themselves
    messages = " ".join(m for _, _, kind, m in warnings if kind.startswith("relocate."))
    assert "fsdp2" not in messages and "examples/lost" not in messages
    assert not [w for w in warnings if w[2] == "relocate.download"]
    assert "10 dangling references in 3 documents" in app.status.getvalue()


def test_a_bad_ignore_pattern_is_a_one_line_error(make_app, repo: Path) -> None:
    from sphinx.errors import ConfigError

    with pytest.raises(ConfigError, match=r"relocate_ignore: invalid regular expression '\('"):
        make_app("html", srcdir=repo, confoverrides={"relocate_ignore": ["("]})


def test_fail_on_dangling_fails_without_w_and_sums_up_last(capsys, repo: Path) -> None:
    status, _, err = sphinx_build(capsys, repo, "-q")
    assert status == 0, err
    status, _, err = sphinx_build(capsys, repo, "-q", "-D", "relocate_fail_on_dangling=1")
    assert status == 1
    lines = [line for line in err.splitlines() if "WARNING" in line]
    assert lines[-1].endswith(f"WARNING: {summary_of(warnings_of(err, repo))} [relocate.summary]")


def test_w_fails_on_every_build(capsys, repo: Path) -> None:
    for _ in range(2):  # the second build reads nothing new and still fails
        status, _, err = sphinx_build(capsys, repo, "-W", "--keep-going", "-q")
        assert status == 1
        assert "[relocate.link]" in err


def test_parallel_read_gives_the_same_findings(capsys, repo: Path) -> None:
    _, _, serial = sphinx_build(capsys, repo, "-E", "-q")
    _, _, parallel = sphinx_build(capsys, repo, "-E", "-q", "-j", "2")
    assert sorted(warnings_of(parallel, repo)) == sorted(warnings_of(serial, repo))
    assert len(warnings_of(parallel, repo)) >= len(EXPECTED)


def test_existing_out_of_tree_links_become_forge_links(repo: Path) -> None:
    app, warnings = build(repo)
    forge = (app.outdir / "forge.html").read_text("utf-8")
    assert 'href="https://forge.example/org/repo/blob/main/examples/demo/README.md"' in forge
    assert [w for w in warnings if w[0] == "forge.md"] == []


# -- the docs keep up with the code ---------------------------------------------------


def test_docs_list_every_warning_subtype() -> None:
    text = (DOCS / "warnings.md").read_text("utf-8")
    missing = [str(member) for member in RelocateWarning if f"`{member}`" not in text]
    assert missing == []


def test_docs_list_every_config_value() -> None:
    page = DOCS / "configuration.md"
    if not page.exists():
        pytest.skip("docs/configuration.md is not written yet")
    text = page.read_text("utf-8")
    if "{relocate-config}" in text:
        return  # the page is generated from CONFIG_VALUES by the docs' own directive
    assert [v.name for v in CONFIG_VALUES if v.name not in text] == []


CONF = 'extensions = ["myst_parser", "sphinx_relocate"]\nshow_warning_types = True\n'


def project(tmp_path: Path, conf: str, pages: dict[str, str]) -> Path:
    """A docs folder of ``pages`` (name → text) under ``tmp_path`` with ``conf``."""
    srcdir = tmp_path / "docs"
    srcdir.mkdir(exist_ok=True)
    (srcdir / "conf.py").write_text(conf)
    for name, text in pages.items():
        (srcdir / name).write_text(text, "utf-8")
    return srcdir


def test_a_section_title_is_no_anchor_a_label_is(tmp_path: Path) -> None:
    """A fragment that spells a section's title (a name docutils gives the section, not
    an id of the page) lands nowhere: MyST warns once and a reader lands at the top, and
    an incremental build that does not write the page again warns nothing. The check
    reports it on every build, naming the section's id; a label's name, which MyST
    reads as the label's anchor, still lands."""
    srcdir = project(tmp_path, CONF, {
        "index.md": "# Home\n\n```{toctree}\nb\n```\n\n"
                    "[dead](b.md#数据处理器（datapreprocessor）)\n\n[label](b.md#the-label)\n",
        "b.md": "# B\n\n(the-label)=\n## 数据处理器（DataPreprocessor）\n\ntext\n",
    })
    for _ in range(2):  # the second build reads and writes nothing: the check still warns
        _, warnings = build(srcdir)
        findings = [w for w in warnings if w[2] == "relocate.anchor"]
        assert [(f, n) for f, n, _, _ in findings] == [("index.md", 7)], warnings
        assert "no anchor '数据处理器（datapreprocessor）' on 'b'" in findings[0][3]
        assert "closest match: `datapreprocessor`" in findings[0][3]
        # (MyST before 5 reads a fragment as a heading slug only, and warns of the
        # label's name, which the page's HTML has as an id: its warning, not ours)
        assert not [w for w in warnings if "the-label" in w[3]
                    and w[2].startswith("relocate.")], warnings


def test_the_ids_of_a_target_that_points_elsewhere_are_no_anchors(tmp_path: Path) -> None:
    """docutils gives `` `CSS variables <https://…>`_ `` and ``.. _name: https://…`` ids,
    but HTML writers write nothing for such a target: a link to one of them lands at the
    top of the page (reported), and an old id a table entry carries onto a section is
    carried there, not refused as "another element has it" (pydata-sphinx-theme's
    ``customizing#css-variables`` after its split)."""
    srcdir = project(tmp_path, CONF, {
        "relocations.toml": '[pages]\n"customizing" = "styling"\n\n[anchors]\n'
                            '"customizing#css-variables" = "styling#css-theme-variables"\n',
        "index.md": "# Home\n\n```{toctree}\nstyling\n```\n\n"
                    "[dead](styling.rst#mdn)\n\n[moved](customizing.rst#css-variables)\n",
        "styling.rst": "Styling\n=======\n\nCSS theme variables\n-------------------\n\n"
                       "Several `CSS variables <https://example.org/css>`_ control it.\n\n"
                       ".. _mdn: https://example.org/mdn\n",
    })
    app, warnings = build(srcdir)
    findings = [(f, n, k) for f, n, k, _ in warnings if k.startswith("relocate.")]
    assert findings == [("index.md", 7, "relocate.anchor")], warnings
    styling = (app.outdir / "styling.html").read_text("utf-8")
    assert '<section id="css-theme-variables">' in styling
    assert styling.count('id="css-variables"') == 1  # carried onto the section
    index = (app.outdir / "index.html").read_text("utf-8")
    assert 'href="styling.html#css-theme-variables"' in index


MADE_PAGE_CONF = '''\
extensions = ["myst_parser", "sphinx_relocate"]
show_warning_types = True  # Sphinx 7.4 does not show them by default


def _made_page(app):  # as ablog writes its blog's pages: no document of the project
    yield "made/page", {"title": "Made", "body": "<p>made</p>"}, "page.html"


def setup(app):
    app.connect("html-collect-pages", _made_page)
'''


def test_a_link_to_a_page_the_builder_writes_itself_lands(tmp_path: Path) -> None:
    """``[blog](made/page.html)`` names a page an extension writes at
    ``html-collect-pages`` (ablog's blog, in pydata-sphinx-theme's docs), which the
    check at ``env-updated`` cannot know: such a link is decided once the builder has
    written its pages, and a link to a page it did not write still dangles, at the
    end of the build, on every build."""
    srcdir = project(tmp_path, MADE_PAGE_CONF, {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   notes\n\n"
                     "`made <made/page.html>`_ and `not made <made/none.html#top>`_\n\n"
                     '.. raw:: html\n\n   <a href="made/page.html">made</a>\n',
        # MyST resolves a link as a cross-reference: no URL, "#made/page.html" written
        "notes.md": "# Notes\n\n[made](made/page.html)\n",
    })
    for _ in range(2):  # a fresh build, then one that reads and writes nothing
        app, warnings = build(srcdir)
        findings = [(f, n, k) for f, n, k, _ in warnings if k.startswith("relocate.")
                    and k != "relocate.summary"]
        assert sorted(findings) == [
            ("index.rst", 8, "relocate.link"), ("notes.md", 3, "relocate.link")
        ], warnings
        assert "made/none.html#top" in next(m for f, _, _, m in warnings if f == "index.rst")
        assert (app.outdir / "made" / "page.html").is_file()
        assert "2 dangling references in 2 documents" in app.status.getvalue()
        index = (app.outdir / "index.html").read_text("utf-8")
        assert index.count('href="made/page.html"') == 2


def test_the_closest_match_may_be_an_old_name_the_table_moves(tmp_path: Path) -> None:
    """A link that dangled before a move was closest to a page's name then: ms-swift's
    ``注册多模态模型最佳实践.md`` to ``注册多模态模型``, renamed ``MLLM-Registration``.
    After the move, the closest new name was an unrelated page (``GRPO``); the hint names
    the old name and where the table sends it."""
    (tmp_path / "docs" / "BP").mkdir(parents=True)
    srcdir = project(tmp_path, CONF, {
        "index.md": "# Home\n\n```{toctree}\nBP/MLLM-Registration\nBP/GRPO\n```\n\n"
                    "[best practice](BP/注册多模态模型最佳实践.md)\n",
        "BP/MLLM-Registration.md": "# MLLM\n",
        "BP/GRPO.md": "# GRPO\n",
        "relocations.toml": '[pages]\n"BP/注册多模态模型" = "BP/MLLM-Registration"\n',
    })
    _, warnings = build(srcdir)
    links = [w for w in warnings if w[2] == "relocate.link"]
    assert len(links) == 1, warnings
    assert links[0][3].endswith(
        "closest match: `BP/注册多模态模型`, which the table moves to `BP/MLLM-Registration`"
    )


def test_a_missing_image_shows_what_the_browser_would(tmp_path: Path) -> None:
    """sphinx-design's card images have an empty ``alt``: the broken image showed
    nothing, and its replacement showed the written path in the card."""
    from reorg_fixture import write_tree

    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["myst_parser", "sphinx_relocate"]\n',
        "index.md": "# Home\n\n![](gone.png)\n\n![A chart](lost.png)\n\n"
                    "```{image} absent.png\n```\n",
    }, {})
    page = (builds.build(docs, fresh=True).outdir / "index.html").read_text("utf-8")
    assert '<span class="relocate-dangling"></span>' in page  # alt="": nothing
    assert '<span class="relocate-dangling">A chart</span>' in page
    assert '<span class="relocate-dangling">absent.png</span>' in page  # no alt: the path
    assert "gone.png" not in page
