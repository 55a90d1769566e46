"""The benchmark corpus generator keeps working: a small corpus, generated twice, builds clean.

``benchmarks/gen_corpus.py`` writes the corpora ``benchmarks/run.py`` measures; the
benchmarks only mean something if the unmoved corpus builds without warnings in plain
Sphinx and the moved one builds without warnings with sphinx_relocate.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path
from types import ModuleType

import myst_parser
import pytest
from sphinx.testing.util import SphinxTestApp

GENERATOR = Path(__file__).resolve().parent.parent / "benchmarks" / "gen_corpus.py"
PAGES = 40
MYST_MAJOR = int(myst_parser.__version__.split(".")[0])
SEED = 0  # a seed whose 40 pages have a whole-folder move as well as single moves


@pytest.fixture(scope="module")
def gen_corpus() -> ModuleType:
    if not GENERATOR.exists():  # an sdist without benchmarks/
        pytest.skip("benchmarks/gen_corpus.py is not in this tree")
    name = "sphinx_relocate_benchmarks_gen_corpus"
    spec = importlib.util.spec_from_file_location(name, GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus(gen_corpus: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    gen_corpus.generate(out, pages=PAGES, seed=SEED)
    return out


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def build(srcdir: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    monkeypatch.setenv("SPHINX_RELOCATE_BENCH", mode)
    warning = StringIO()
    app = SphinxTestApp("html", srcdir=srcdir, status=StringIO(), warning=warning)
    try:
        app.build()
    finally:
        app.cleanup()
    return Path(app.outdir), warning.getvalue()


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


def test_build_once_times_the_extensions_own_code(corpus: Path, tmp_path: Path) -> None:
    """The runner's build process reports the time spent inside sphinx-relocate."""
    script = GENERATOR.with_name("build_once.py")
    done = subprocess.run(
        [sys.executable, script, corpus / "moved", tmp_path / "out", "--mode", "relocate", "-E"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["reread"] == PAGES and result["statuscode"] == 0
    assert 0 < result["own_cpu"] < result["cpu"]
    assert {"_resolve.on_doctree_read", "_check.on_env_updated", "_stubs.on_build_finished"} <= (
        result["own_by_name"].keys()
    )
