"""Old names declared in the page (``relocated_from``): builds, conflicts, the CLI, import."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sphinx.errors import ConfigError

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.declared import _docinfo, _front_matter, declared_names, peer_declarations
from sphinx_relocate.sphinx_ext.discovery import pattern_matchers

ROOTS = Path(__file__).parent / "roots"
_REFRESH = re.compile(r'http-equiv="refresh" content="0; url=([^"]*)"')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    srcdir = tmp_path / "src"
    shutil.copytree(ROOTS / "test-declared", srcdir)
    return srcdir


def hrefs(page: Path) -> list[str]:
    """The internal links of the page's body (not the theme's sidebar, which differs
    between Sphinx versions)."""
    text = page.read_text("utf-8")
    body = text.split('role="main"', 1)[-1].split('class="sphinxsidebar"', 1)[0]
    return re.findall(r'class="reference internal" href="([^"]*)"', body)


def refresh(stub: Path) -> str:
    match = _REFRESH.search(stub.read_text("utf-8"))
    assert match is not None, f"{stub} is not a redirect stub"
    return match.group(1)


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_declared_names_land_and_get_stubs(make_app, project: Path, builder: str) -> None:
    """MyST front matter and a reST docinfo field both declare old names: links written
    against them land on the page, and each old URL gets a redirect page to it."""
    app = make_app(builder, srcdir=project, freshenv=True)
    app.build()
    warnings = app._warning.getvalue()
    assert "WARNING" not in warnings and "ERROR" not in warnings, warnings
    assert "sphinx-relocate: relocated_from in 2 pages (4 entries); " in app._status.getvalue()
    out = Path(app.outdir)
    if builder == "html":
        assert hrefs(out / "index.html")[-3:] == [
            "guide/fsdp.html", "guide/fsdp.html", "guide/tuning.html"
        ]
        assert "tuning.html" in hrefs(out / "guide" / "fsdp.html")
        assert "fsdp.html" in hrefs(out / "guide" / "tuning.html")
        stubs = {
            "features/fsdp2.html": "../guide/fsdp.html",
            "pytorch/fsdp.html": "../guide/fsdp.html",
            "old/tuning.html": "../guide/tuning.html",
            "legacy/perf.html": "../guide/tuning.html",
        }
    else:
        stubs = {
            "features/fsdp2/index.html": "../../guide/fsdp/index.html",
            "pytorch/fsdp/index.html": "../../guide/fsdp/index.html",
            "old/tuning/index.html": "../../guide/tuning/index.html",
            "legacy/perf/index.html": "../../guide/tuning/index.html",
        }
    for stub, target in stubs.items():
        assert refresh(out / stub) == target, stub
    # the declaration is not shown on the page
    assert "relocated_from" not in (out / ("guide/fsdp.html" if builder == "html"
                                           else "guide/fsdp/index.html")).read_text("utf-8")


def test_same_old_name_in_table_and_page_names_both(make_app, project: Path) -> None:
    (project / "relocations.toml").write_text('[pages]\n"pytorch/fsdp" = "guide/tuning"\n')
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=project)
    assert str(info.value) == (
        f"{project / 'guide' / 'fsdp.md'}:2: [pages] 'pytorch/fsdp': the same old name as the "
        f"entry at {project / 'relocations.toml'}:2 (which moves it to guide/tuning); "
        "an old name may appear only once"
    )


def test_same_old_name_in_two_pages_names_both(make_app, project: Path) -> None:
    tuning = project / "guide" / "tuning.rst"
    tuning.write_text(tuning.read_text().replace("legacy/perf", "pytorch/fsdp"))
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=project)
    message = str(info.value)
    assert f"{tuning}:4: [pages] 'pytorch/fsdp': the same old name as the entry at " \
           f"{project / 'guide' / 'fsdp.md'}:2" in message


def test_same_target_in_table_and_page_is_one_entry(make_app, project: Path) -> None:
    (project / "relocations.toml").write_text('[pages]\n"pytorch/fsdp" = "guide/fsdp"\n')
    app = make_app("html", srcdir=project, freshenv=True)
    app.build()
    assert "WARNING" not in app._warning.getvalue()


@pytest.mark.parametrize(
    ("page", "text", "expected"),
    [
        ("guide/fsdp.md", "---\nrelocated_from:\n  - ok/one\n  - {a: b}\n---\n# F\n",
         "guide/fsdp.md:4: relocated_from lists old page names, like [old/page, other/old]; "
         "not a mapping"),
        ("guide/fsdp.md", "---\ntitle: F\nrelocated_from: []\n---\n# F\n",
         "guide/fsdp.md:3: relocated_from lists no old name"),
        ("guide/fsdp.md", "---\nrelocated_from: [guide/fsdp]\n---\n# F\n",
         "guide/fsdp.md:2: [pages] 'guide/fsdp': the old and new names are the same"),
        ("guide/fsdp.md", "---\nrelocated_from: [a, ../up]\n---\n# F\n",
         "guide/fsdp.md:2: [pages] '../up': '..' segments are not allowed"),
        ("guide/tuning.rst", ":orphan:\n:relocated_from:\n\nT\n=\n",
         "guide/tuning.rst:2: relocated_from lists no old name"),
        ("guide/tuning.rst", ":relocated_from: a,\n   /abs\n\nT\n=\n",
         "guide/tuning.rst:2: [pages] '/abs': paths are relative to the source folder, "
         "not absolute"),
    ],
)
def test_bad_declaration_is_an_error_at_its_line(
    make_app, project: Path, page: str, text: str, expected: str
) -> None:
    (project / page).write_text(text)
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=project)
    assert str(info.value) == f"{project}/{expected}"


def test_editing_a_declaration_rereads_the_pages_that_link_to_it(make_app, project: Path) -> None:
    """index.rst does not change, but where its link to ``pytorch/fsdp`` lands does."""
    app = make_app("html", srcdir=project, freshenv=True)
    app.build()
    index = Path(app.outdir) / "index.html"
    assert hrefs(index)[-2] == "guide/fsdp.html"
    time.sleep(0.01)
    fsdp = project / "guide" / "fsdp.md"
    fsdp.write_text(fsdp.read_text().replace(", pytorch/fsdp", ""))
    tuning = project / "guide" / "tuning.rst"
    tuning.write_text(tuning.read_text().replace("legacy/perf", "legacy/perf, pytorch/fsdp"))
    again = make_app("html", srcdir=project, freshenv=False)
    again._warning.truncate(0)  # a second app in one test re-registers Sphinx's nodes
    again._warning.seek(0)
    again.build()
    assert "WARNING" not in again._warning.getvalue()
    assert hrefs(index)[-2] == "guide/tuning.html"
    assert refresh(Path(again.outdir) / "pytorch" / "fsdp.html") == "../guide/tuning.html"


def test_rewrite_rewrites_links_written_against_declared_names(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rewrite", str(project), "--write"]) == 0
    err = capsys.readouterr().err
    assert "relocated_from in 2 pages: 4 entries" in err
    index = (project / "index.rst").read_text()
    assert ":doc:`guide/fsdp`, :doc:`guide/fsdp`\nand :doc:`guide/tuning`." in index
    assert "Back to [tuning](tuning.rst)." in (project / "guide" / "fsdp.md").read_text()
    assert main(["check", str(project)]) == 0


def test_check_reports_a_bad_declaration_at_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "guide" / "fsdp.md").write_text("---\nrelocated_from: [{a: b}]\n---\n# F\n")
    assert main(["check", str(project)]) != 0
    out = capsys.readouterr().out
    assert f"{project}/guide/fsdp.md:2:" in out or "guide/fsdp.md:2:" in out


def test_import_reads_the_peers_declarations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """matplotlib's redirect-from directive, Hugo's aliases and Jekyll's redirect_from."""
    docs = tmp_path / "docs"
    (docs / "topic").mkdir(parents=True)
    (docs / "blog").mkdir()
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser"]\n'
        'source_suffix = {".rst": "restructuredtext", ".md": "markdown"}\n'
    )
    (docs / "index.rst").write_text("I\n=\n\n.. toctree::\n\n   topic/new-page\n   blog/post\n")
    (docs / "topic" / "new-page.rst").write_text(
        "New\n===\n\n.. redirect-from:: /topic/old-page\n.. redirect-from:: sub/older.rst\n"
    )
    (docs / "blog" / "post.md").write_text(
        "---\ntitle: Post\naliases:\n  - /posts/old-post/\n  - legacy.html\n"
        "redirect_from: /2019/01/post.html\n---\n# Post\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["import", "docs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "[pages]",
        '"posts/old-post" = "blog/post"  # docs/blog/post.md:4: aliases: /posts/old-post/',
        '"blog/legacy" = "blog/post"  # docs/blog/post.md:5: aliases: legacy.html',
        '"2019/01/post" = "blog/post"  # docs/blog/post.md:6: redirect_from: /2019/01/post.html',
        '"topic/old-page" = "topic/new-page"  # docs/topic/new-page.rst:4: '
        ".. redirect-from:: /topic/old-page",
        '"topic/sub/older" = "topic/new-page"  # docs/topic/new-page.rst:5: '
        ".. redirect-from:: sub/older.rst",
    ]
    assert main(["import", "docs", "--write"]) == 0
    assert "5 entries" in capsys.readouterr().err
    assert main(["import", "docs"]) == 0
    assert "0 entries imported (5 already in the table)" in capsys.readouterr().err


# -- the scanners ----------------------------------------------------------------------

_NAME = st.from_regex(r"[a-z][a-z0-9_-]{0,8}(/[a-z][a-z0-9_-]{0,8}){0,2}", fullmatch=True)


@given(st.lists(_NAME, min_size=1, max_size=5))
def test_front_matter_flow_and_block_lists_agree(names: list[str]) -> None:
    flow = ["---", "title: x", f"relocated_from: [{', '.join(names)}]", "---", "# x"]
    block = ["---", "relocated_from:", *(f"  - {name}" for name in names), "---"]
    ((_, from_flow, p1),) = _front_matter(flow, "f.md", ("relocated_from",))
    ((_, from_block, p2),) = _front_matter(block, "f.md", ("relocated_from",))
    assert p1 is None and p2 is None
    assert [n for n, _ in from_flow] == [n for n, _ in from_block] == names
    assert {line for _, line in from_flow} == {3}
    assert [line for _, line in from_block] == list(range(3, 3 + len(names)))


@given(st.lists(_NAME, min_size=1, max_size=5), st.booleans())
def test_docinfo_names_over_continuation_lines(names: list[str], comment: bool) -> None:
    head = [".. a comment", "   more of it", ""] if comment else []
    first, *rest = names
    lines = [*head, ":orphan:", f":relocated_from: {first},", *(f"   {n}," for n in rest), "",
             "Title", "====="]
    ((_, found, problem),) = _docinfo(lines, "f.rst")
    assert problem is None
    assert [n for n, _ in found] == names
    assert found[0][1] == len(head) + 2


def test_docinfo_only_at_the_top() -> None:
    assert _docinfo(["Title", "=====", "", ":relocated_from: a"], "f.rst") == []
    assert _docinfo([".. note::", "", "   x", "", ":relocated_from: a"], "f.rst") == []


def test_scan_reads_only_what_mentions_the_key(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nrelocated_from: old/a\n---\n# A\n")
    (tmp_path / "b.md").write_text("# B\n\nrelocated_from: not front matter\n")
    (tmp_path / "c.rst").write_text("C\n=\n\n:relocated_from: not docinfo\n")
    long = "---\ntitle: " + "x" * 10000 + "\nrelocated_from: [old/d]\n---\n# D\n"
    (tmp_path / "d.md").write_text(long)
    found = declared_names(tmp_path, (".rst", ".md"), *pattern_matchers([]))
    assert [row[:3] for row in found.rows] == [("pages", "old/a", "a"), ("pages", "old/d", "d")]
    assert [row[3].line for row in found.rows] == [2, 3]
    assert not found.problems


def test_a_second_scan_reads_only_the_files_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files found to declare nothing are kept with their time and size, and not read
    again while those stay; one that changes is read, and its new declaration found."""
    from sphinx_relocate.core import declared

    srcdir = tmp_path / "src"
    srcdir.mkdir()
    (srcdir / "a.md").write_text("---\nrelocated_from: old/a\n---\n# A\n")
    (srcdir / "b.md").write_text("# B\n")
    (srcdir / "c.rst").write_text("C\n=\n")
    kept = tmp_path / "quiet.json"
    read: list[str] = []
    top = declared._top

    def reading(path: Path | str, markdown: bool) -> tuple[bytes, list[int]] | None:
        read.append(Path(path).name)
        return top(path, markdown)

    monkeypatch.setattr(declared, "_top", reading)

    def scan() -> list[tuple[str, str]]:
        found = declared_names(srcdir, (".rst", ".md"), *pattern_matchers([]),
                               quiet=declared.QuietSources(kept))
        return [(row[1], row[2]) for row in found.rows]

    assert scan() == [("old/a", "a")]
    assert read == ["a.md", "b.md", "c.rst"]
    read.clear()
    assert scan() == [("old/a", "a")]
    assert read == ["a.md"]  # the one that declares is read on every build
    (srcdir / "b.md").write_text("---\nrelocated_from: old/b\n---\n# B\n")
    read.clear()
    assert scan() == [("old/a", "a"), ("old/b", "b")]
    assert read == ["a.md", "b.md"]
    kept.write_text("not json")  # a damaged file: every file is read again
    read.clear()
    assert scan() == [("old/a", "a"), ("old/b", "b")]
    assert read == ["a.md", "b.md", "c.rst"]


def test_peer_scan_ignores_pages_without_declarations(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "b.rst").write_text("B\n=\n")
    files = [("a", "a.md"), ("b", "b.rst")]
    assert peer_declarations(tmp_path, files).rows == []


def test_from_git_check_counts_declared_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page renamed in git whose new page declares the old name has its entry."""
    from reorg_fixture import make_reorganized_repo

    root = tmp_path / "repo"
    base = make_reorganized_repo(root)
    monkeypatch.chdir(root)
    assert main(["from-git", "docs/zh", "--since", base, "--check"]) == 1
    assert "features/fsdp2 was renamed" in capsys.readouterr().out
    page = root / "docs" / "zh" / "features" / "parallel" / "fsdp2.md"
    page.write_text("---\nrelocated_from: [features/fsdp2]\n---\n" + page.read_text("utf-8"),
                    encoding="utf-8")
    assert main(["from-git", "docs/zh", "--since", base, "--check"]) == 1
    out, err = capsys.readouterr()
    assert "features/fsdp2 was renamed" not in out
    assert "features/EP_balance was renamed" in out
    assert "relocated_from in 1 page: 1 entry" in err


def test_hugo_toml_front_matter_aliases(tmp_path: Path) -> None:
    (tmp_path / "news").mkdir()
    (tmp_path / "news" / "post.md").write_text(
        '+++\ntitle = "Post"\naliases = [\n  "/old/post/",\n  "older.html",\n]\n+++\n# Post\n'
    )
    (tmp_path / "bad.md").write_text('+++\naliases = [1]\n+++\n# Bad\n')
    found = peer_declarations(tmp_path, [("news/post", "news/post.md"), ("bad", "bad.md")])
    assert [(row[1], row[2], row[3].line) for row in found.rows] == [
        ("old/post", "news/post", 4), ("news/older", "news/post", 5)
    ]
    assert [str(p) for p in found.problems] == [f"{tmp_path / 'bad.md'}:2: aliases lists old URLs"]


def test_the_scan_walks_folders_behind_links(tmp_path: Path) -> None:
    """As Sphinx's discovery does (``os.walk`` with ``followlinks``)."""
    srcdir = tmp_path / "src"
    (srcdir / "guide").mkdir(parents=True)
    (srcdir / "guide" / "tea.md").write_text("---\nrelocated_from: old/tea\n---\n# Tea\n",
                                             "utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "page.rst").write_text(":relocated_from: old/linked\n\nPage\n====\n", "utf-8")
    (srcdir / "linked").symlink_to(elsewhere, target_is_directory=True)
    found = declared_names(srcdir, (".rst", ".md"), *pattern_matchers([]))
    assert sorted((row[1], row[2]) for row in found.rows) == [
        ("old/linked", "linked/page"), ("old/tea", "guide/tea"),
    ]
