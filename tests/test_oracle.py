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
from pathlib import Path
from types import ModuleType

import builds
import pytest
from oracle import compare, expected, landings, literals, wrong_pages

from sphinx_relocate.cli.main import main

REPO_URL = "https://forge.example/org/repo/blob/main/"
#: (pages, seed): small corpora with every kind of ambiguity, and one larger
CORPORA = [(60, 0), (60, 1), (60, 2), (150, 3)]


def build(srcdir: Path, outdir: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SPHINX_RELOCATE_BENCH", mode)
    return builds.build(srcdir, builddir=outdir, fresh=True).warnings


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


# -- code and comments: neither the build nor ``rewrite`` treats them as links (D7) ---

_CONF = """\
import os
extensions = ["myst_parser"]
if os.environ.get("SPHINX_RELOCATE_BENCH") == "relocate":
    extensions.append("sphinx_relocate")
exclude_patterns = ["_build"]
"""
#: every line marked NOLINK holds link-like text in code or a comment
_MYST_PAGE = """\
# Index

```{toctree}
api
old
```

A real [Old](old.md) and <a href="old.md">raw</a>.
Inline `[Old](old.md)` and ``{doc}`old` `` NOLINK

    [Old](old.md) NOLINK
    <a href="old.md">x</a> NOLINK

Text.

<!-- [Old](old.md) <a href="old.md">x</a> NOLINK -->

% [Old](old.md) NOLINK

```markdown
[Old](old.md) {doc}`old` NOLINK
```

```{code-block} md
[Old](old.md) NOLINK
```

- item with [Old](old.md)

    nested [Old](old.md) in the item, not code
"""
_REST_PAGE = """\
API
===

A real :doc:`old`, `Old <old.html>`_ and
``:doc:`old``` NOLINK.

Example::

   :doc:`old` `Old <old.html>`_ NOLINK

.. code-block:: rst

   :doc:`old` NOLINK
   .. image:: img/old.png NOLINK

.. a comment :doc:`old` NOLINK
   `Old <old.html>`_ NOLINK

..
   .. image:: img/old.png NOLINK

.. raw:: html

   <!-- <a href="old.html">c</a> NOLINK -->
   <a href="old.html">raw</a>
"""


def _code_corpus(root: Path) -> tuple[Path, Path]:
    original, moved = root / "original", root / "moved"
    for tree, old in ((original, "old.md"), (moved, "moved/old.md")):
        (tree / "moved").mkdir(parents=True)
        (tree / "conf.py").write_text(_CONF, encoding="utf-8")
        (tree / "index.md").write_text(_MYST_PAGE, encoding="utf-8")
        (tree / "api.rst").write_text(_REST_PAGE, encoding="utf-8")
        (tree / old).write_text("# Old\n\nThe old page.\n", encoding="utf-8")
    (moved / "relocations.toml").write_text('[pages]\n"old" = "moved/old"\n', encoding="utf-8")
    return original, moved


def test_code_and_comments_hold_no_link_for_the_build_nor_rewrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    original, moved = _code_corpus(tmp_path / "corpus")
    build(original, tmp_path / "original", "plain", monkeypatch)
    pages = ("index", "api")

    def code(outdir: Path) -> list[list[str]]:
        found = literals(outdir / "html")
        return [found[page] for page in pages]

    want_code = code(tmp_path / "original")
    assert all(any("NOLINK" in text for text in page) for page in want_code[:1])

    def misses(outdir: Path, srcdir: Path) -> list[str]:
        found = landings(outdir / "html", srcdir)
        want = expected(
            tmp_path / "original" / "html", original, moved / "relocations.toml", set(found)
        )
        return [str(miss) for miss in compare(want, found)]

    # the build with the extension lands the real links and shows the code as written
    build(moved, tmp_path / "moved", "relocate", monkeypatch)
    assert misses(tmp_path / "moved", moved) == []
    assert code(tmp_path / "moved") == want_code

    rewritten = tmp_path / "rewritten"
    shutil.copytree(moved, rewritten)
    assert main(["rewrite", str(rewritten), "--write"]) == 0
    capsys.readouterr()
    for name in ("index.md", "api.rst"):  # real links rewritten, code and comments not
        before = (moved / name).read_text(encoding="utf-8").splitlines()
        after = (rewritten / name).read_text(encoding="utf-8").splitlines()
        assert [a for a, b in zip(before, after, strict=True) if a != b]
        assert [a for a, b in zip(before, after, strict=True) if "NOLINK" in a and a != b] == []
    build(rewritten, tmp_path / "rewritten-relocate", "relocate", monkeypatch)
    assert misses(tmp_path / "rewritten-relocate", rewritten) == []
    (rewritten / "relocations.toml").unlink()
    build(rewritten, tmp_path / "rewritten-plain", "plain", monkeypatch)
    assert misses(tmp_path / "rewritten-plain", rewritten) == []
    assert code(tmp_path / "rewritten-plain") == want_code
