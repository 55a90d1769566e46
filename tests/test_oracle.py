"""The landing oracle over generated reorganizations: every link lands where it did.

For each corpus (``benchmarks/gen_corpus.py`` with ``ambiguity=True``: moved pages whose
``../index.md`` and sibling links name a page from both folders, anchors on one
candidate only, pages that become folders, out-and-back links, own-repository URLs,
include fragments), the original layout is built with plain Sphinx and each link's
landing carried through the table.  Then, occurrence by occurrence:

* the moved layout built with sphinx-relocate lands every link there;
* the moved layout after ``sphinx-relocate rewrite --write`` lands every link there,
  built without the extension and built with it.

A warning count proves nothing about links that land on the wrong page; this does.
"""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path
from types import ModuleType

import pytest
from oracle import compare, expected, landings, wrong_pages
from sphinx.testing.util import SphinxTestApp

from sphinx_relocate._cli import main

REPO_URL = "https://forge.example/org/repo/blob/main/"
#: (pages, seed): small corpora with every kind of ambiguity, and one larger
CORPORA = [(60, 0), (60, 1), (60, 2), (150, 3)]


def build(srcdir: Path, outdir: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SPHINX_RELOCATE_BENCH", mode)
    warning = StringIO()
    app = SphinxTestApp(
        "html", srcdir=srcdir, builddir=outdir, status=StringIO(), warning=warning,
        freshenv=True,
    )
    try:
        app.build()
    finally:
        app.cleanup()
    return warning.getvalue()


@pytest.mark.parametrize(("pages", "seed"), CORPORA, ids=[f"{p}p-seed{s}" for p, s in CORPORA])
def test_every_link_lands_where_the_original_did(
    gen_corpus: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], pages: int, seed: int,
) -> None:
    manifest = gen_corpus.generate(tmp_path / "corpus", pages=pages, seed=seed, ambiguity=True)
    assert manifest["ambiguous_links"] > 0
    original, moved = tmp_path / "corpus" / "original", tmp_path / "corpus" / "moved"
    build(original, tmp_path / "original", "plain", monkeypatch)

    def misses(outdir: Path, srcdir: Path) -> list[str]:
        found = landings(outdir / "html", srcdir)
        want = expected(
            tmp_path / "original" / "html", original, moved / "relocations.toml", set(found),
            REPO_URL,
        )
        missed = compare(want, found)
        wrong = wrong_pages(missed)
        return [f"{len(wrong)} on a wrong page of {len(missed)}:", *map(str, missed)] if (
            missed
        ) else []

    build(moved, tmp_path / "moved", "relocate", monkeypatch)
    assert misses(tmp_path / "moved", moved) == []

    rewritten = tmp_path / "rewritten"
    shutil.copytree(moved, rewritten)
    assert main(["rewrite", str(rewritten), "--write"]) == 0
    assert "ambiguous" not in capsys.readouterr().err
    build(rewritten, tmp_path / "rewritten-relocate", "relocate", monkeypatch)
    assert misses(tmp_path / "rewritten-relocate", rewritten) == []
    (rewritten / "relocations.toml").unlink()
    build(rewritten, tmp_path / "rewritten-plain", "plain", monkeypatch)
    assert misses(tmp_path / "rewritten-plain", rewritten) == []
