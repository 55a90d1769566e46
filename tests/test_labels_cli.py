"""``[labels]`` on the command line: ``check`` from the labels the sources write, and
``rewrite`` updating ``:ref:``, ``{ref}``, ``:numref:``, ``:any:`` and ``[](#label)`` so
that a plain build of the rewritten tree lands where the build with the table did."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace
from test_labels import hrefs as body_hrefs

from sphinx_relocate.cli.docutils_parser import DocutilsParser
from sphinx_relocate.cli.main import main
from sphinx_relocate.core.rewrite import Rewriter
from sphinx_relocate.core.table import load_table

ROOT = Path(__file__).parent / "roots" / "test-labels"


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    srcdir = tmp_path / "docs"
    shutil.copytree(ROOT, srcdir)
    monkeypatch.chdir(srcdir)
    return srcdir


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_reports_label_entries_from_the_sources(docs: Path, capsys) -> None:
    status, out, _ = run(capsys, "check", ".")
    assert status == 1
    assert out.splitlines() == [
        "relocations.toml:7: label 'still-here' still exists, so its entry is not used "
        "(delete the label or the entry)",
        "relocations.toml:8: target 'no-such-label' of label 'gone-label' is not a label",
    ]


def test_check_leaves_targets_alone_when_extensions_make_labels(docs: Path, capsys) -> None:
    conf = docs / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace(
        '"sphinx_relocate"]', '"sphinx_relocate", "sphinx.ext.autosectionlabel"]'
    ), "utf-8")
    status, out, _ = run(capsys, "check", ".")
    assert status == 1
    assert out.splitlines() == [  # every section title is a label: targets cannot be known
        "relocations.toml:7: label 'still-here' still exists, so its entry is not used "
        "(delete the label or the entry)",
    ]


def plain_build(srcdir: Path, outdir: Path) -> str:
    """Warnings of an HTML build without sphinx_relocate."""
    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(
            srcdir, srcdir, outdir, outdir / ".doctrees", "html",
            status=None, warning=warnings, freshenv=True,
            confoverrides={"extensions": ["myst_parser"]},
        )
        app.build()
    return warnings.getvalue()


def hrefs(path: Path) -> list[str]:
    return [href for href, _ in body_hrefs(path.read_text("utf-8"))]


def test_rewrite_updates_label_references(docs: Path, tmp_path: Path, capsys) -> None:
    with docutils_namespace():
        app = Sphinx(docs, docs, tmp_path / "before", tmp_path / "before" / ".doctrees",
                     "html", status=None, warning=io.StringIO(), freshenv=True)
        app.build()
    status, _, err = run(capsys, "rewrite", ".", "--write")
    assert status == 1  # the one reference that may name a document too is left
    assert "refs_md.md: '#install' names a renamed label and a document too" in err
    assert "rewrote 11 links in 2 files (any 1, link 2, ref 8)" in err
    assert (docs / "refs.rst").read_text("utf-8").split("\n\n")[1:] == [
        "Plain :ref:`installation`.",
        "Another case :ref:`installation`.",
        "With a title :ref:`the install page <installation>`.",
        "A figure :numref:`fig-architecture`.",
        "A section of another page :ref:`configuring`.",
        "A chain :ref:`installation`.",
        "The any role :any:`installation`.",
        "A kept label :ref:`still-here`.",  # the label still exists
        "A typo :ref:`nowhere`.\n",  # not a key
    ]
    assert (docs / "refs_md.md").read_text("utf-8").split("\n\n")[1:] == [
        "A role {ref}`installation`.",
        "A link [](#installation).",
        "A link with text [the install page](#installation).",
        "A figure {numref}`fig-architecture`.",
        "A name that is a document too: [](#install).\n",
    ]
    # a plain Sphinx build of the rewritten tree lands every link where the build did
    warnings = plain_build(docs, tmp_path / "after")
    assert "undefined label: 'nowhere'" in warnings
    assert warnings.count("WARNING") == 1, warnings
    assert hrefs(tmp_path / "after" / "refs.html") == hrefs(tmp_path / "before" / "refs.html")
    before_md = hrefs(tmp_path / "before" / "refs_md.html")
    after_md = hrefs(tmp_path / "after" / "refs_md.html")
    assert after_md[: len(before_md)] == before_md
    assert after_md[len(before_md) :] == ["install.html"]  # the document: MyST's guess
    # and a second run has nothing left to rewrite
    status, _, err = run(capsys, "rewrite", ".", "--check")
    assert "nothing to rewrite" in err


def rewriter(table_text: str, files: set[str], labels: set[str], tmp_path: Path) -> Rewriter:
    path = tmp_path / "t.toml"
    path.write_text(table_text, encoding="utf-8")
    table, problems = load_table(path)
    assert problems == []
    return Rewriter(
        table,
        parser=DocutilsParser(),
        docs_prefix="docs/",
        source_suffixes=(".rst", ".md"),
        files=files,
        labels=labels,
    )


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("docs/a.md", "[x](#old)", "[x](#new)"),
        ("docs/a.md", "[x](#Old)\n\n[y]: #old\n", "[x](#new)\n\n[y]: #new\n"),
        ("docs/a.md", "[x](old)", "[x](new)"),  # MyST reads a link to no file as a name too
        ("docs/a.md", "[x](#spaced)", "[x](<#new label>)"),
        ("docs/a.md", "[x](<#spaced>)", "[x](<#new label>)"),
        ("docs/a.md", "{ref}`text <old>` {numref}`old`", "{ref}`text <new>` {numref}`new`"),
        ("docs/a.rst", ":ref:`old` :std:ref:`x <old>` :any:`old`",
         ":ref:`new` :std:ref:`x <new>` :any:`new`"),
        # sphinx-design's links to labels
        ("docs/a.md", ":::{grid-item-card} T\n:link: old\n:link-type: ref\n:::",
         ":::{grid-item-card} T\n:link: new\n:link-type: ref\n:::"),
        ("docs/a.rst", ".. button-ref:: old\n   :ref-type: ref\n",
         ".. button-ref:: new\n   :ref-type: ref\n"),
        # left: the label still exists, the target is not a label, an anchor of the page
        ("docs/a.rst", ":ref:`kept` :ref:`gone`", ":ref:`kept` :ref:`gone`"),
        ("docs/a.md", "# Old\n\n[x](#old)\n", "# Old\n\n[x](#old)\n"),
        ("docs/a.md", "# Old\n\n{any}`old`\n", "# Old\n\n{any}`new`\n"),  # any: no anchors
        # outside the docs folder no link names a label
        ("README.md", "[x](#old)", "[x](#old)"),
    ],
)
def test_rewriter_label_targets(path: str, text: str, expected: str, tmp_path: Path) -> None:
    table = (
        '[labels]\n"old" = "new"\n"spaced" = "new label"\n"kept" = "new"\n'
        '"gone" = "nowhere"\n'
    )
    found = rewriter(table, {"docs/a.md", "docs/a.rst", "README.md"},
                     {"new", "new label", "kept"}, tmp_path)
    assert found.rewrite_text(path, text).text == expected


def test_rewriter_leaves_a_name_that_is_a_document_too(tmp_path: Path) -> None:
    found = rewriter('[labels]\n"other" = "new"\n', {"docs/a.md", "docs/other.md"}, {"new"},
                     tmp_path)
    result = found.rewrite_text("docs/a.md", "[x](#other) {ref}`other` {any}`other`")
    assert result.text == "[x](#other) {ref}`new` {any}`other`"
    assert result.ambiguous_labels == ("#other", "other")
