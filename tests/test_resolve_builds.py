"""Resolution across builds: incremental re-reads, ``-j 2``, rST only, links out of the tree,
and sphinx-autobuild picking up a table edit."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from io import StringIO
from pathlib import Path

import pytest
from builds import build, build_reading
from sphinx.testing.util import SphinxTestApp

ROOTS = Path(__file__).parent / "roots"
#: the bytes of a PNG file, as far as anything here reads them
PNG = b"\x89PNG\r\n\x1a\n" + b"png" * 16
REORG = ROOTS / "test-reorg"


def test_table_edits_reread_only_the_documents_they_affect(tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(REORG, srcdir)
    read, warnings = build_reading(srcdir)
    assert len(read) == 10 and warnings == ""

    assert build_reading(srcdir)[0] == set()  # a no-op rebuild reads nothing

    table = srcdir / "relocations.toml"
    table.write_text(
        table.read_text("utf-8").replace(
            '= "guides/install_guide#源码安装"', '= "guides/install_guide#环境准备"'
        ),
        "utf-8",
    )
    read, warnings = build_reading(srcdir)
    # the four documents that link to the old anchor, and no other
    assert read == {"overview", "features/parallel/fsdp2", "guides/quickstart", "guides/tuning"}
    assert warnings == ""
    assert 'href="guides/install_guide.html#id2"' in (
        srcdir / "_build" / "html" / "overview.html"
    ).read_text("utf-8")
    assert build_reading(srcdir)[0] == set()

    # moving a page (and saying so in the table) re-reads its referrers
    (srcdir / "guides" / "tuning.md").rename(srcdir / "guides" / "performance.md")
    table.write_text(
        table.read_text("utf-8").replace(
            "[pages]\n", '[pages]\n"guides/tuning" = "guides/performance"\n'
        ),
        "utf-8",
    )
    read, warnings = build_reading(srcdir)
    assert read == {"guides/performance", "introduction/feature_overview"}
    assert warnings == ""
    assert 'href="../guides/performance.html">Tuning</a>' in (
        srcdir / "_build" / "html" / "introduction" / "feature_overview.html"
    ).read_text("utf-8")


def test_parallel_output_is_byte_identical(tmp_path: Path) -> None:
    outputs = []
    for parallel in (0, 2):
        srcdir = tmp_path / f"j{parallel}"
        shutil.copytree(REORG, srcdir)
        _, warnings = build_reading(srcdir, parallel=parallel)
        assert warnings == ""
        outdir = srcdir / "_build" / "html"
        outputs.append(
            {
                p.relative_to(outdir).as_posix(): p.read_bytes()
                for p in sorted(outdir.rglob("*"))
                if p.is_file() and not p.name.startswith(".") and p.suffix != ".js"
            }
        )
    assert outputs[0].keys() == outputs[1].keys()
    for name in outputs[0]:
        assert outputs[0][name] == outputs[1][name], name


def test_rst_only_project_builds_without_myst(tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(ROOTS / "test-resolve-rst", srcdir)
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nsys.modules['myst_parser'] = None  # as if it were not installed\n"
    )
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", str(srcdir),
         str(tmp_path / "out")],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "out" / "guide" / "moved.html").read_text("utf-8")
    assert 'href="../other.html"' in page  # :doc: written from the old folder
    assert 'src="../_images/pic.png"' in page
    assert 'href="../other.html#part"' in page  # raw HTML


def _out_of_tree_project(tmp_path: Path) -> Path:
    """repo/docs is the source folder; repo/examples and repo/sources are outside it."""
    repo = tmp_path / "repo"
    docs = repo / "docs"
    (docs / "guide").mkdir(parents=True)
    (repo / "examples" / "x").mkdir(parents=True)
    (repo / "examples" / "x" / "README.md").write_text("# Example\n")
    (repo / "sources" / "images").mkdir(parents=True)
    shutil.copy(REORG / "images" / "arch.png", repo / "sources" / "images" / "x.png")
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\nrelocate_repo_root = ".."\n'
    )
    (docs / "relocations.toml").write_text('[pages]\n"page" = "guide/page"\n')
    (docs / "index.md").write_text("# Home\n\n```{toctree}\npage\n```\n")
    # written when the page lived at docs/page.md
    (docs / "guide" / "page.md").write_text(
        textwrap.dedent(
            """\
            # Page

            [example](../examples/x/README.md) and [the folder](../examples/x)
            and [on the forge](https://forge.example/org/repo/blob/main/docs/guide/page.md#page)

            ![x](../sources/images/x.png)
            """
        )
    )
    return docs


@pytest.mark.parametrize("repo_url", [None, "https://forge.example/org/repo/blob/main/"])
def test_links_leaving_the_source_folder(tmp_path: Path, repo_url: str | None) -> None:
    docs = _out_of_tree_project(tmp_path)
    overrides = {"relocate_repo_url": repo_url} if repo_url else {}
    warning = StringIO()
    app = SphinxTestApp("html", srcdir=docs, confoverrides=overrides, status=StringIO(),
                        warning=warning)
    try:
        app.build()
        refs = {r.written: r for r in app.env.relocate_references["guide/page"]}  # type: ignore[attr-defined]
    finally:
        app.cleanup()
    page = (docs / "_build" / "html" / "guide" / "page.html").read_text("utf-8")
    assert 'src="../_images/x.png"' in page
    readme = refs["../examples/x/README.md"]
    assert (readme.kind, readme.target, readme.rewritten) == (
        "repo_file", "../examples/x/README.md", True
    )
    if repo_url:
        own = refs["https://forge.example/org/repo/blob/main/docs/guide/page.md#page"]
        assert (own.kind, own.target, own.is_page, own.anchor) == (
            "repo_url", "guide/page", True, "page"
        )
        assert f'href="{repo_url}examples/x/README.md"' in page
        assert f'href="{repo_url}examples/x"' in page
        assert warning.getvalue() == ""
    else:
        assert re.search(r'href="\.\./_downloads/[0-9a-f]+/README\.md"', page)


def _tarball_project(tmp_path: Path) -> Path:
    """repo/docs links and downloads files of repo/tools, as Sphinx's own docs do; the
    caller decides where ``.git`` is, if anywhere (a release tarball has none)."""
    repo = tmp_path / "repo"
    docs = repo / "docs"
    docs.mkdir(parents=True)
    (repo / "tools").mkdir()
    (repo / "tools" / "script.py").write_text("print('hi')\n")
    shutil.copy(REORG / "images" / "arch.png", repo / "tools" / "logo.png")
    (docs / "conf.py").write_text('extensions = ["myst_parser", "sphinx_relocate"]\n')
    (docs / "index.rst").write_text(textwrap.dedent("""\
        Home
        ====

        .. toctree::

           page

        Get :download:`the script <../tools/script.py>`.

        .. raw:: html

           <img src="../tools/logo.png">
        """))
    (docs / "page.md").write_text("# Page\n\n[the script](../tools/script.py)\n")
    return docs


@pytest.mark.parametrize("git", [None, "repo", "repo/docs"])
def test_files_outside_the_docs_without_a_repository(tmp_path: Path, git: str | None) -> None:
    """Built from a release tarball (no ``.git``), a download or link to an existing
    file above the docs folder lands, as it does for Sphinx; inside a repository it must
    be in the repository.  Raw HTML copies nothing from outside the conf dir either way."""
    assert not any((folder / ".git").exists() for folder in tmp_path.parents)
    docs = _tarball_project(tmp_path)
    if git is not None:
        (tmp_path / git / ".git").mkdir()
    warnings = build(docs).warnings
    out = docs / "_build" / "html"
    raw = ("raw html '../tools/logo.png' does not land: '../tools/logo.png' is outside "
           "the repository")
    if git == "repo":  # every file is in the repository: the image is copied too
        assert "WARNING" not in warnings, warnings
        assert (out / "_images" / "logo.png").is_file()
        return
    assert raw in warnings
    assert not (out / "_images").exists()
    if git is None:
        assert warnings.count("WARNING") == 1, warnings
        assert (out / "_downloads").is_dir()  # Sphinx copied the script, as without us
        (tmp_path / "repo" / "tools" / "script.py").unlink()  # gone: both references warn
        warnings = build(docs).warnings
        assert "download '../tools/script.py' does not land: no file '../tools/script.py'" in (
            warnings
        )
        assert "link '../tools/script.py' does not land: no file '../tools/script.py'" in (
            warnings
        )
    else:  # the download and the link, each
        assert warnings.count("repo file '../tools/script.py' does not land: "
                              "'../tools/script.py' is outside the repository") == 2, warnings


def test_files_the_build_wrote_beside_its_output(tmp_path: Path) -> None:
    """MyST-NB writes an executed notebook's outputs to ``jupyter_execute/`` beside the
    output folder, which may be outside the repository (``sphinx-build docs /tmp/out``);
    its pages name them, and Sphinx copies them: they land.  Another file outside the
    repository is still reported, and one the build did not write is missing, not
    outside."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    docs = tmp_path / "repo" / "docs"
    docs.mkdir()
    made = tmp_path / "build" / "jupyter_execute"
    made.mkdir(parents=True)
    (made / "out.png").write_bytes(PNG)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.png").write_bytes(PNG)
    (docs / "conf.py").write_text('extensions = ["myst_parser", "sphinx_relocate"]\n')
    (docs / "index.md").write_text(
        "# Home\n\n![output](../../build/jupyter_execute/out.png)\n\n"
        "![other](../../elsewhere/x.png)\n\n"
        "![renamed](../../build/jupyter_execute/old-name.png)\n"
    )
    built = build(docs, builddir=tmp_path / "build")
    assert "out.png" not in built.warnings
    assert (built.outdir / "_images" / "out.png").is_file()
    assert built.warnings.count("WARNING") == 2, built.warnings
    assert "'../../elsewhere/x.png' is outside the repository" in built.warnings
    assert (
        "index.md:7: WARNING: image '../../build/jupyter_execute/old-name.png' does not "
        "land: the build wrote no file '../../build/jupyter_execute/old-name.png' (in "
        f"{tmp_path / 'build'})"
    ) in built.warnings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # loopback only
            return response.read().decode("utf-8")
    except OSError:
        return ""


def test_a_moved_page_links_a_file_with_the_text_myst_gives(tmp_path: Path) -> None:
    """``[](data.txt)`` on a moved page, which names the file from its old folder: the
    link shows the target as written, as MyST shows it where the page was (it showed an
    empty link before)."""
    pages = {
        "original": ("sub/page.md", "sub/data.txt"),
        "moved": ("sub/deeper/page.md", "sub/data.txt"),
    }
    texts = {}
    for layout, (page, data) in pages.items():
        srcdir = tmp_path / layout
        (srcdir / page).parent.mkdir(parents=True)
        (srcdir / data).write_text("1,2\n", "utf-8")
        conf = 'extensions = ["myst_parser"]\n'
        if layout == "moved":
            conf += 'extensions.append("sphinx_relocate")\n'
            conf += 'relocate_map = {"sub/page": "sub/deeper/page"}\n'
        (srcdir / "conf.py").write_text(conf, "utf-8")
        (srcdir / "index.md").write_text(
            f"# Home\n\n```{{toctree}}\n{page}\n```\n", "utf-8"
        )
        (srcdir / page).write_text("# Page\n\n[](data.txt) and [Data](data.txt)\n", "utf-8")
        built = build(srcdir)
        assert built.warnings == ""
        html = (built.outdir / page.replace(".md", ".html")).read_text("utf-8")
        texts[layout] = re.findall(r'download="" href="[^"]*">(.*?)</a>', html)
    assert texts["moved"] == texts["original"]
    assert "<span class=\"pre\">data.txt</span>" in texts["moved"][0]


def test_a_moved_page_includes_inside_a_directive_from_its_old_folder(tmp_path: Path) -> None:
    """``{include}`` nested in a ``:::{note}`` of a moved page reads its file from the
    page's old folder, as one at the top level does (docutils stopped the page with a
    "file not found" error before: nested directives were never mapped)."""
    srcdir = tmp_path / "src"
    (srcdir / "sub").mkdir(parents=True)
    (srcdir / "guides").mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\n'
        'relocate_map = {"sub/page": "guides/page"}\nexclude_patterns = ["sub/snippet.md"]\n',
        "utf-8",
    )
    (srcdir / "index.md").write_text("# Home\n\n```{toctree}\nguides/page\n```\n", "utf-8")
    (srcdir / "sub" / "snippet.md").write_text("Snippet text.\n", "utf-8")
    (srcdir / "guides" / "page.md").write_text(
        "# Page\n\n:::{note}\n```{include} snippet.md\n```\n:::\n", "utf-8"
    )
    built = build(srcdir)
    assert built.warnings == ""
    assert "Snippet text." in (built.outdir / "guides" / "page.html").read_text("utf-8")


def _included_page_project(srcdir: Path) -> None:
    """CPython's devguide after its ``core-developers/`` → ``core-team/`` move: a page
    that moved (its table's file renamed) is included whole by a page that did not."""
    from reorg_fixture import write_tree

    write_tree(srcdir, {
        "conf.py": 'extensions = ["sphinx_relocate"]\n',
        "relocations.toml": '[pages]\n"core/committing" = "team/committing"\n\n'
                            '[files]\n"core/people.csv" = "team/members.csv"\n'
                            '"core/chart.html" = "team/chart.html"\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   team/committing\n"
                     "   contrib/committing\n",
        "team/members.csv": "Name,Role\nAda-marker,core\n",
        "team/chart.html": "<p>chart-marker</p>\n",
        "team/committing.rst": "Committing\n==========\n\n"
                               ".. csv-table::\n   :header-rows: 1\n   :file: people.csv\n\n"
                               ".. raw:: html\n   :file: chart.html\n",
        "contrib/committing.rst": "Contributing\n============\n\n"
                                  ".. include:: ../core/committing.rst\n   :start-line: 3\n",
    }, {})


def test_an_included_moved_page_and_the_files_it_reads(tmp_path: Path) -> None:
    """The include names the page's old file, which its ``[pages]`` entry moved; the
    page's ``csv-table :file:`` and ``raw :file:``, read by docutils from the included
    file's folder, are mapped in the included text too (Sphinx's ``include-read``), as
    on the page itself (docutils stopped both with "file not found" before)."""
    srcdir = tmp_path / "src"
    _included_page_project(srcdir)
    built = build(srcdir)
    assert built.warnings == ""
    for page in ("team/committing", "contrib/committing"):
        html = (built.outdir / f"{page}.html").read_text("utf-8")
        assert "Ada-marker" in html and "<p>chart-marker</p>" in html, page


def test_an_include_of_a_moved_page_that_became_markdown_is_not_guessed(
    tmp_path: Path,
) -> None:
    """``.. include:: ../core/committing.rst`` of a page now ``team/committing.md``:
    that is another file (reST would read its Markdown), so the path is left and lands
    nowhere, as docutils says."""
    srcdir = tmp_path / "src"
    _included_page_project(srcdir)
    (srcdir / "conf.py").write_text('extensions = ["myst_parser", "sphinx_relocate"]\n',
                                    "utf-8")
    (srcdir / "team" / "committing.rst").unlink()
    (srcdir / "team" / "committing.md").write_text("# Committing\n\nMarkdown-marker\n",
                                                  "utf-8")
    built = build(srcdir)
    assert "core/committing.rst'" in built.warnings  # docutils: no such file
    html = (built.outdir / "contrib" / "committing.html").read_text("utf-8")
    assert "Markdown-marker" not in html


def test_rewrite_maps_an_include_of_a_moved_page(tmp_path: Path) -> None:
    """``rewrite`` follows the page's entry for the include, by the same rule; what the
    included text reads from its own folder is rewritten in the page itself."""
    from sphinx_relocate.cli.main import main

    srcdir = tmp_path / "src"
    _included_page_project(srcdir)
    (srcdir / "conf.py").write_text("", "utf-8")
    assert main(["rewrite", str(srcdir), "--repo-root", str(srcdir), "--write"]) == 0
    assert ".. include:: ../team/committing.rst\n" in (
        srcdir / "contrib" / "committing.rst"
    ).read_text("utf-8")
    page = (srcdir / "team" / "committing.rst").read_text("utf-8")
    assert ":file: members.csv\n" in page and ":file: chart.html\n" in page
    built = build(srcdir)
    assert built.warnings == ""
    assert "Ada-marker" in (built.outdir / "contrib" / "committing.html").read_text("utf-8")


def test_sphinx_autobuild_picks_up_a_table_edit(tmp_path: Path) -> None:
    autobuild = shutil.which("sphinx-autobuild", path=str(Path(sys.executable).parent))
    if autobuild is None:
        pytest.skip("sphinx-autobuild is not installed")
    srcdir = tmp_path / "src"
    shutil.copytree(ROOTS / "test-resolve-rst", srcdir)
    port = _free_port()
    process = subprocess.Popen(
        [autobuild, "--host", "127.0.0.1", "--port", str(port), "-q", str(srcdir),
         str(tmp_path / "out")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/index.html"
    try:
        deadline = time.monotonic() + 60
        while 'href="other.html"><span class="doc">Old other' not in _fetch(url):
            assert time.monotonic() < deadline, "the first build was never served"
            time.sleep(0.3)
        table = srcdir / "relocations.toml"
        edited = table.read_text().replace('"old/other" = "other"', '"old/other" = "third"')
        table.write_text(edited)
        while 'href="third.html"><span class="doc">Old other' not in _fetch(url):
            assert time.monotonic() < deadline, "the table edit was never picked up"
            time.sleep(0.3)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def test_a_page_named_by_its_old_source_file_lands_and_is_reported(tmp_path: Path) -> None:
    """``b.rst`` renamed ``b.md`` (the document ``b`` unchanged): a MyST link to
    ``b.rst`` lands on the page, and is a link written against an old path."""
    srcdir = tmp_path / "src"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\nshow_warning_types = True\n',
        encoding="utf-8",
    )
    (srcdir / "relocations.toml").write_text("", encoding="utf-8")
    (srcdir / "index.md").write_text(
        "# Home\n\nSee [B](b.rst).\n\n```{toctree}\nb\n```\n", encoding="utf-8"
    )
    (srcdir / "b.md").write_text("# B\n", encoding="utf-8")
    built = build(srcdir, fresh=True)
    assert built.warnings == ""
    html = (built.outdir / "index.html").read_text("utf-8")
    assert 'href="b.html"' in html
    built = build(srcdir, fresh=True, confoverrides={"relocate_report_rewrites": True})
    assert re.sub(r"\x1b\[[0-9;]*m", "", built.warnings).strip() == (
        f"{srcdir / 'index.md'}:3: WARNING: 'b.rst' is written against an old path; "
        "it now points to 'b' [relocate.outdated]"
    )
