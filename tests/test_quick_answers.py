"""The walk's set lookups (``resolve.QuickAnswers``) answer as the whole rule does.

``on_doctree_read`` decides most references by set lookups in its walk (a Markdown link
or a ``:doc:`` to a page that exists, an image that exists, a ``:ref:`` to a label the
table does not rename) and hands the rest to their adapters.  Each project below is
built twice, once as it is and once with those lookups finding nothing, so that every
reference goes through its adapter and the rule: the pages written, the warnings, and
what the environment keeps for the check and for incremental builds (the records, the
lookups, the anchors) must be the same.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import builds
import pytest

from sphinx_relocate.sphinx_ext import resolve
from sphinx_relocate.sphinx_ext.record import anchors_of, references_of
from sphinx_relocate.sphinx_ext.state import BuildState, QuickAnswers


def _without_lookups(app: Any, state: BuildState) -> QuickAnswers:
    """The read phase's quick answers with nothing found by set lookups."""
    quick = ORIGINAL(app, state)
    if quick.docs:
        quick = state.quick_answers = dataclasses.replace(
            quick, docs=frozenset(), labels=None, is_file=lambda path: False
        )
    return quick


ORIGINAL = resolve.quick_answers


def _outcome(srcdir: Path, outdir: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    built = builds.build(srcdir, builddir=outdir, fresh=True, confoverrides=overrides)
    env = built.app.env
    pages = {
        str(path.relative_to(built.outdir)): path.read_text("utf-8")
        for path in sorted(built.outdir.rglob("*.html"))
    }
    assert pages, "the build wrote no page"
    return {
        "warnings": built.warnings.replace(str(outdir), "OUT"),
        "pages": {name: text.replace(str(outdir), "OUT") for name, text in pages.items()},
        "records": {d: sorted(r) for d, r in references_of(env).items() if r},
        "lookups": {d: sorted(resolve.unpacked_lookups(found))
                    for d, found in resolve.lookups_of(env).items() if found},
        "anchors": {d: sorted(found) for d, found in anchors_of(env).items()},
    }


def _same_both_ways(
    srcdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    overrides: dict[str, Any] | None = None,
) -> int:
    """Build ``srcdir`` with and without the quick answers; the number of table lookups
    the pages made."""
    quick = _outcome(srcdir, tmp_path / "quick", overrides or {})
    with monkeypatch.context() as patch:
        patch.setattr(resolve, "quick_answers", _without_lookups)
        ruled = _outcome(srcdir, tmp_path / "ruled", overrides or {})
    for part in ("warnings", "records", "lookups", "anchors"):
        assert quick[part] == ruled[part], part
    assert quick["pages"].keys() == ruled["pages"].keys()
    for name in quick["pages"]:
        assert quick["pages"][name] == ruled["pages"][name], name
    return sum(len(found) for found in quick["lookups"].values())


#: the drop-in root's conf.py leaves the extension out (its test adds it)
_DROPIN = {"extensions": ["myst_parser", "sphinx.ext.intersphinx", "sphinx_relocate"]}


@pytest.mark.parametrize(("root", "srcdir", "overrides"), [
    ("reorg", ".", {}),
    ("check-dangling", "docs", {}),
    ("check-lines", ".", {}),
    ("dropin-myst", ".", _DROPIN),
    ("labels", ".", {}),
    ("old-ids", ".", {}),
    ("page-or-label", ".", {}),
    ("resolve-ambiguity", ".", {}),
    ("resolve-rows", "docs/zh", {}),
    ("resolve-rst", ".", {}),
])
def test_a_root_builds_the_same_with_and_without_quick_answers(
    root: str, srcdir: str, overrides: dict[str, Any], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copied = tmp_path / "src"
    shutil.copytree(builds.ROOTS / f"test-{root}", copied)
    assert _same_both_ways(copied / srcdir, tmp_path, monkeypatch, overrides) > 0


@pytest.mark.parametrize("layout", ["original", "moved"])
def test_a_reorganized_corpus_builds_the_same_with_and_without_quick_answers(
    gen_corpus: ModuleType, layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen_corpus.generate(tmp_path / "corpus", pages=60, seed=4, ambiguity=True)
    monkeypatch.setenv("SPHINX_RELOCATE_BENCH", "control" if layout == "original" else "relocate")
    assert _same_both_ways(tmp_path / "corpus" / layout, tmp_path, monkeypatch) > 100


def test_the_walk_decides_most_references_of_a_page_that_did_not_move(
    gen_corpus: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lookup first: on a project with nothing to relocate, no adapter runs for a
    Markdown link, a ``:doc:``, an image or a ``:ref:`` (only raw HTML gets one)."""
    gen_corpus.generate(tmp_path / "corpus", pages=60, seed=5, ambiguity=False)
    monkeypatch.setenv("SPHINX_RELOCATE_BENCH", "control")
    adapted: list[str] = []
    originals = {name: getattr(resolve, name) for name in ("_pending_xref", "_image",
                                                            "_label_xref")}
    for name, adapter in originals.items():
        def counting(*args: Any, _name: str = name, _adapter: Any = adapter) -> Any:
            adapted.append(_name)
            return _adapter(*args)

        monkeypatch.setattr(resolve, name, counting)
    # the registry holds the adapters themselves: rebuild it from the counting ones
    monkeypatch.setattr(resolve, "_ADAPTERS_OF_CLASS", {})
    kinds = tuple(
        dataclasses.replace(kind, node_adapters=tuple(
            adapter._replace(
                resolve=getattr(resolve, adapter.resolve.__name__, adapter.resolve)
            )
            for adapter in kind.node_adapters
        ))
        for kind in resolve.REFERENCE_KINDS
    )
    monkeypatch.setattr(resolve, "REFERENCE_KINDS", kinds)
    built = builds.build(tmp_path / "corpus" / "original", builddir=tmp_path / "out",
                         fresh=True)
    looked_up = sum(len(list(resolve.unpacked_lookups(found)))
                    for found in resolve.lookups_of(built.app.env).values())
    assert looked_up > 500
    assert adapted == []
