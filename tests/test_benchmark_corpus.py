"""The benchmark corpus generator keeps working: a small corpus, generated twice, builds clean.

``benchmarks/gen_corpus.py`` writes the corpora ``benchmarks/run.py`` measures; the
benchmarks only mean something if the unmoved corpus builds without warnings in plain
Sphinx and the moved one builds without warnings with sphinx_relocate.  Its ambiguity
mode (links a moved page's old and new folders both resolve) must keep the original
layout clean too, and make each of its cases at a small size.
"""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path
from types import ModuleType
from typing import Any

import builds
import myst_parser
import pytest
from conftest import GENERATOR
from sphinx.testing.util import SphinxTestApp

PAGES = 40
MYST_MAJOR = int(myst_parser.__version__.split(".")[0])
SEED = 0  # a seed whose 40 pages have a whole-folder move as well as single moves


@pytest.fixture(scope="module")
def corpus(gen_corpus: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    gen_corpus.generate(out, pages=PAGES, seed=SEED)
    return out


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def build(srcdir: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    monkeypatch.setenv("SPHINX_RELOCATE_BENCH", mode)
    built = builds.build(srcdir)
    return built.outdir, built.warnings


def test_generator_is_deterministic_and_has_the_promised_shape(
    gen_corpus: ModuleType, corpus: Path, tmp_path: Path
) -> None:
    again = gen_corpus.generate(tmp_path, pages=PAGES, seed=SEED)
    assert files_of(tmp_path) == files_of(corpus)

    assert again["pages"] == PAGES
    assert again["markdown_pages"] > again["rest_pages"] > 0
    assert set(again["links"]) == {"md", "md#", "doc", "docabs", "ref"}
    assert again["links_total"] >= 12 * PAGES
    assert again["raw_html_pages"] > 0 and again["cjk_headings"] > 0
    assert again["prefix_entries"] > 0 and again["page_entries"] > 0
    assert again["moved_pages"] == again["moved_by_folder"] + again["moved_one_by_one"]

    # the moved project holds the same page texts, each under its new name
    pages = re.compile(r"\.(md|rst)$")
    original = {k: v for k, v in files_of(corpus / "original").items() if pages.search(k)}
    moved = {k: v for k, v in files_of(corpus / "moved").items() if pages.search(k)}
    assert sorted(original.values()) == sorted(moved.values())
    assert len(set(original) - set(moved)) == again["moved_pages"]
    table = (corpus / "moved" / "relocations.toml").read_text("utf-8")
    assert "[prefixes]" in table and "[pages]" in table


def unexplained(warnings: str) -> list[str]:
    """The warnings of a corpus build, less those of myst-parser < 5's known limitation.

    myst-parser 4 (the newest for Sphinx 7.4) resolves ``[text](page.rst#label)`` only
    against heading slugs, which reST pages do not have: "local id not found".
    """
    lines = [line for line in warnings.splitlines() if line.strip()]
    if MYST_MAJOR < 5:
        lines = [line for line in lines if "local id not found in doc" not in line]
    return lines


def test_original_builds_clean_and_moved_builds_clean_with_sphinx_relocate(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, plain = build(corpus / "original", "plain", monkeypatch)
    assert unexplained(plain) == []

    outdir, relocated = build(corpus / "moved", "relocate", monkeypatch)
    assert unexplained(relocated) == []
    assert relocated.count("WARNING") == plain.count("WARNING")  # 0 on myst-parser 5
    # every old page of the table got a redirect stub
    old_pages = re.findall(
        r'^\s+"([^"]+)": ', (corpus / "moved" / "_relocate" / "reredirects.py").read_text("utf-8"),
        re.MULTILINE,
    )
    assert old_pages
    assert [p for p in old_pages if not (outdir / f"{p}.html").is_file()] == []


def build_once(srcdir: Path, outdir: Path, mode: str) -> dict[str, Any]:
    """``benchmarks/build_once.py``: one fresh build in a child, its JSON result."""
    script = GENERATOR.with_name("build_once.py")
    done = subprocess.run(
        [sys.executable, script, srcdir, outdir, "--mode", mode, "-E"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_build_once_times_the_extensions_own_code(corpus: Path, tmp_path: Path) -> None:
    """The runner's build process reports the time spent inside sphinx-relocate, and
    beside it that of the null extension, which looks up every reference once."""
    result = build_once(corpus / "moved", tmp_path / "out", "relocate")
    assert result["reread"] == PAGES and result["statuscode"] == 0
    assert 0 < result["own_cpu"] < result["cpu"]
    assert 0 < result["null_cpu"] < result["cpu"]
    manifest = json.loads((corpus / "manifest.json").read_text("utf-8"))
    assert result["null_lookups"] >= manifest["links_total"] + manifest["images"]
    assert {
        "sphinx_ext.resolve.on_doctree_read",
        "sphinx_ext.check.on_env_updated",
        "sphinx_ext.stubs.on_build_finished",
    } <= (
        result["own_by_name"].keys()
    )


def test_control_is_the_extension_with_nothing_to_relocate(corpus: Path, tmp_path: Path) -> None:
    """The control build: sphinx-relocate loaded on ``original/`` (the tree plain Sphinx
    builds), with no table, so it runs every handler and relocates nothing."""
    assert not (corpus / "original" / "relocations.toml").exists()
    result = build_once(corpus / "original", tmp_path / "out", "control")
    assert result["statuscode"] == 0 and result["reread"] == PAGES
    assert result["own_cpu"] > 0  # the extension ran
    assert "sphinx_ext.resolve.on_doctree_read" in result["own_by_name"]
    stubs = tmp_path / "out" / "_relocate" / "stubs.json"
    assert not stubs.exists() or json.loads(stubs.read_text("utf-8"))["files"] in ({}, [])


AMBIGUITY_PAGES = 60
#: the ambiguity mode's cases, each counted in the manifest
AMBIGUITY_FEATURES = (
    "ambiguous_pages", "ambiguous_links", "anchor_on_meant_page_only", "anchor_on_both_pages",
    "close_vote_pages", "decoy_pages", "become_folders", "out_and_back", "repo_urls",
    "includes",
)


def test_default_corpus_has_none_of_the_ambiguity_mode(corpus: Path) -> None:
    manifest = json.loads((corpus / "manifest.json").read_text("utf-8"))
    assert "ambiguity" not in manifest["arguments"]
    assert not set(AMBIGUITY_FEATURES) & manifest.keys()
    assert "relocate_repo_url" not in (corpus / "original" / "conf.py").read_text("utf-8")
    assert not (corpus / "original" / "_fragments").exists()


def test_ambiguity_corpus_is_deterministic_has_every_case_and_builds_clean(
    gen_corpus: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    manifest = gen_corpus.generate(first, pages=AMBIGUITY_PAGES, seed=SEED, ambiguity=True)
    assert gen_corpus.generate(second, pages=AMBIGUITY_PAGES, seed=SEED, ambiguity=True) == (
        manifest
    )
    assert files_of(first) == files_of(second)
    assert manifest["arguments"]["ambiguity"] is True
    assert {k: manifest[k] for k in AMBIGUITY_FEATURES if not manifest[k] > 0} == {}
    assert manifest["close_vote_votes"] == [1] * manifest["close_vote_pages"]
    assert manifest["moved_pages"] == manifest["moved_by_folder"] + manifest["moved_one_by_one"]

    original, moved = first / "original", first / "moved"
    # each page moved to be ambiguous has its folder's index page from both folders
    for old, new in manifest["ambiguity_moves"].items():
        old_folder, new_folder = (posixpath.dirname(name) for name in (old, new))
        assert old_folder != new_folder and old_folder.count("/") == new_folder.count("/")
        assert sorted(original.glob(f"{new_folder}/index.*")) and sorted(
            moved.glob(f"{new_folder}/index.*")
        )
        assert "Related: " in next(moved.glob(f"{new}.*")).read_text("utf-8")
    # the table, the forge and the include fragments
    table = (moved / "relocations.toml").read_text("utf-8")
    assert '"_fragments/" = "_snippets/"' in table
    for old in manifest["ambiguity_become_folders"]:
        assert f'"{old}" = "{old}/overview"' in table
    conf = (original / "conf.py").read_text("utf-8")
    assert 'relocate_repo_url = "https://forge.example/org/repo/blob/main/"' in conf
    assert '"_fragments", "_snippets"' in conf
    assert (original / "_fragments" / "notice.rst").is_file()
    assert (moved / "_snippets" / "notice.rst").is_file()
    assert not (moved / "_fragments").exists()
    # the moved project holds the same page texts, each under its new name
    pages = re.compile(r"^(?!_).*\.(md|rst)$")
    texts = {k: v for k, v in files_of(original).items() if pages.search(k)}
    assert sorted(texts.values()) == sorted(
        v for k, v in files_of(moved).items() if pages.search(k)
    )

    _, plain = build(original, "plain", monkeypatch)
    assert unexplained(plain) == []


@pytest.fixture
def endtoend(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``benchmarks/endtoend.py`` (which imports ``stubs_bench`` beside it)."""
    if not (GENERATOR.parent / "endtoend.py").exists():  # an sdist without benchmarks/
        pytest.skip("benchmarks/endtoend.py is not in this tree")
    monkeypatch.syspath_prepend(str(GENERATOR.parent))
    import endtoend as module  # type: ignore[import-not-found]

    return module


def test_whole_step_project_gives_every_old_name_a_stub(
    endtoend: ModuleType, tmp_path: Path
) -> None:
    """The one-page project of the whole-step benchmark builds clean, writes one stub per
    old name with sphinx_relocate (none without), and its in-process timings still run
    against the package's table and stub code."""
    projects = endtoend.write_projects(tmp_path / "src", 30)
    for mode in ("plain", "relocate"):
        warning = StringIO()
        app = SphinxTestApp("html", srcdir=projects[mode], status=StringIO(), warning=warning)
        try:
            app.build()
        finally:
            app.cleanup()
        assert warning.getvalue() == ""
        assert endtoend.check_stubs(Path(app.outdir), 30, mode) == (30 if mode == "relocate"
                                                                     else 0)
    row = endtoend.inprocess(30, 1, tmp_path)
    assert row["stubs"] == 30 and row["problems"] == 0
    assert len(row["load_cpu_s"]) == len(row["plan_cpu_s"]) == len(row["render_cpu_s"]) == 1
