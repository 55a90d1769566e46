"""Translations: moved pages read the catalog at their old name, stubs speak the reader's
language, and ``rewrite --write`` moves catalogs (tests/roots/test-i18n-moved).

The root has ``language = "de"``, ``gettext_compact = False`` and three moved pages:
``faq`` → ``help/faq`` (its catalog only at the old name), ``own-old`` → ``help/own``
(a catalog at both names: the new one must win) and ``setup`` → ``guide/setup`` (a
catalog at the old name, and the per-folder ``guide.po`` for ``gettext_compact = True``).
"""

from __future__ import annotations

import gettext
import shutil
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from builds import build_reading
from reorg_fixture import git
from sphinx.testing.util import SphinxTestApp
from sphinx.util.i18n import CatalogInfo

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.catalogs import (
    CatalogMove,
    borrowed_catalogs,
    domain_of,
    move_catalog,
    plan_moves,
)
from sphinx_relocate.core.stubs import stub_text
from sphinx_relocate.core.table import RelocationTable, load_table
from sphinx_relocate.sphinx_ext.stubs import LOCALE_DIR

ROOT = Path(__file__).parent / "roots" / "test-i18n-moved"
MESSAGES = "locale/de/LC_MESSAGES"


def outdated(warning: Any) -> list[str]:
    """The ``relocate.outdated`` lines about catalogs."""
    return [
        line
        for line in warning.getvalue().splitlines()
        if "the catalog of its old name" in line
        and "[relocate.outdated]" in line
    ]


def text_of(app: Any, page: str) -> str:
    return (Path(app.outdir) / page).read_text("utf-8")


# -- moved pages read the catalog at their old name --------------------------------------


@pytest.mark.sphinx("html", testroot="i18n-moved", freshenv=True)
def test_a_moved_page_reads_the_catalog_at_its_old_name(app, warning) -> None:
    app.build()
    faq = text_of(app, "help/faq.html")
    assert "Häufig gestellte Fragen" in faq and "Wie installiere ich es?" in faq
    assert "How do I install it?" not in faq and "Doppelt" not in faq
    # a page with a catalog at its new name keeps it; the old one is not looked at
    own = text_of(app, "help/own.html")
    assert "Eigene Seite" in own and "Diese Seite hat einen eigenen Katalog." in own
    assert "Veraltete Übersetzung" not in own
    # a page that did not move is not touched
    assert "Start" in text_of(app, "index.html")
    notes = sorted(outdated(warning))
    assert len(notes) == 2, warning.getvalue()
    assert "guide/setup.rst" in notes[0] and f"{MESSAGES}/setup.po" in notes[0]
    assert "help/faq.rst" in notes[1]
    assert f"translated from {MESSAGES}/faq.po, the catalog of its old name 'faq'" in notes[1]
    assert f"move it to {MESSAGES}/help/faq.po" in notes[1]


@pytest.mark.sphinx(
    "html", testroot="i18n-moved", freshenv=True, confoverrides={"gettext_compact": True}
)
def test_per_folder_catalogs(app, warning) -> None:
    """``gettext_compact = True``: a page that changed top-level folder reads its old
    folder's catalog when its new folder has none; one whose new folder has one keeps it."""
    app.build()
    faq = text_of(app, "help/faq.html")
    assert "Häufig gestellte Fragen" in faq and "Wie installiere ich es?" in faq
    setup = text_of(app, "guide/setup.html")
    assert "Einrichtung" in setup and "Starten Sie das Installationsprogramm." in setup
    assert "Veraltete Einrichtung" not in setup
    notes = outdated(warning)
    faq_note = next(line for line in notes if "help/faq.rst" in line)
    assert f"the messages of this page belong in {MESSAGES}/help.po" in faq_note
    assert not any("guide/setup" in line for line in notes)


@pytest.mark.sphinx(
    "html", testroot="i18n-moved", freshenv=True, confoverrides={"gettext_compact": "docs"}
)
def test_one_catalog_for_all_pages_changes_nothing(app, warning) -> None:
    app.build()
    assert "Frequently asked questions" in text_of(app, "help/faq.html")
    assert outdated(warning) == []


@pytest.mark.sphinx(
    "html", testroot="i18n-moved", freshenv=True,
    confoverrides={"relocate_report_rewrites": False},
)
def test_without_report_rewrites_one_line_counts_them(app, status, warning) -> None:
    app.build()
    assert "Häufig gestellte Fragen" in text_of(app, "help/faq.html")
    assert outdated(warning) == [] and "WARNING" not in warning.getvalue()
    assert "2 moved pages are translated from the catalog at an old name" in status.getvalue()


@pytest.mark.sphinx("gettext", testroot="i18n-moved", freshenv=True)
def test_the_gettext_builder_extracts_the_source_text(app) -> None:
    app.build()
    pot = (Path(app.outdir) / "help/faq.pot").read_text("utf-8")
    assert 'msgid "How do I install it?"' in pot and "Wie" not in pot


def faq_html(srcdir: Path) -> str:
    return (srcdir / "_build/html/help/faq.html").read_text("utf-8")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")


def test_incremental_builds_follow_the_catalogs(tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(ROOT, srcdir)
    read, _ = build_reading(srcdir)
    assert read == {"index", "help/faq", "help/own", "guide/setup"}
    assert build_reading(srcdir)[0] == set()  # a no-op rebuild reads nothing

    # the old catalog changed: the page it serves is read again (Sphinx would not)
    edit(srcdir / MESSAGES / "faq.po", "Wie installiere ich es?", "Wie wird es installiert?")
    assert build_reading(srcdir)[0] == {"help/faq"}
    assert "Wie wird es installiert?" in faq_html(srcdir)
    assert build_reading(srcdir)[0] == set()

    # the catalog moved to the new name: the page reads it there, with no note
    (srcdir / MESSAGES / "faq.po").rename(srcdir / MESSAGES / "help/faq.po")
    edit(srcdir / MESSAGES / "help/faq.po", "Häufig gestellte Fragen", "Oft gestellte Fragen")
    read, warnings = build_reading(srcdir)
    assert read == {"help/faq"}
    assert "Oft gestellte Fragen" in faq_html(srcdir)
    assert "help/faq.rst" not in warnings

    # the new catalog gone, the old one back: read again from the old name
    (srcdir / MESSAGES / "help/faq.po").rename(srcdir / MESSAGES / "faq.po")
    (srcdir / MESSAGES / "help/faq.mo").unlink()
    read, warnings = build_reading(srcdir)
    assert read == {"help/faq"}
    assert "Oft gestellte Fragen" in faq_html(srcdir)
    assert "the catalog of its old name 'faq'" in warnings


def test_parallel_reads_translate_alike(tmp_path: Path) -> None:
    """With ``-j 2`` (enough pages that Sphinx reads in two processes) the output matches
    a serial build."""
    outputs = []
    for parallel in (1, 2):
        srcdir = tmp_path / f"src{parallel}"
        shutil.copytree(ROOT, srcdir)
        extra = [f"extra/page{n}" for n in range(8)]
        for name in extra:
            (srcdir / name).parent.mkdir(exist_ok=True)
            (srcdir / f"{name}.rst").write_text(f"Page {name}\n=========\n\nText.\n", "utf-8")
        index = srcdir / "index.rst"
        index.write_text(
            index.read_text("utf-8") + "".join(f"   {n}\n" for n in extra), "utf-8"
        )
        build_reading(srcdir, parallel=parallel)
        outputs.append(faq_html(srcdir))
    assert "Wie installiere ich es?" in outputs[1]
    assert outputs[0] == outputs[1]


def test_a_build_of_named_files_compiles_the_old_catalog(tmp_path: Path) -> None:
    """``sphinx-build SRC OUT help/faq.rst`` compiles only the catalogs of the files
    named, so the old one is compiled here, as Sphinx would compile it."""
    srcdir = tmp_path / "src"
    shutil.copytree(ROOT, srcdir)
    app = SphinxTestApp("html", srcdir=srcdir, status=StringIO(), warning=StringIO())
    try:
        app.build(False, [str(srcdir / "help/faq.rst")])
    finally:
        app.cleanup()
    assert (srcdir / MESSAGES / "faq.mo").is_file()
    assert "Wie installiere ich es?" in faq_html(srcdir)


# -- the plan ------------------------------------------------------------------------


def table(**pages: str) -> RelocationTable:
    loaded, problems = load_table(None, pages)
    assert not problems
    return loaded


def test_domain_of_matches_sphinx() -> None:
    from sphinx.util.i18n import docname_to_domain

    for docname in ("faq", "help/faq", "a/b/c"):
        for compact in (False, True, "docs"):
            assert domain_of(docname, compact) == docname_to_domain(docname, compact)


def test_borrowed_catalogs() -> None:
    moves = table(faq="help/faq", a="b", b="c", x="help/x", y="y2")
    documents = {"help/faq", "c", "help/x", "y2", "y"}
    catalogs = {"faq", "a", "b", "help/x", "x", "y"}
    found = borrowed_catalogs(moves, documents, False, catalogs.__contains__)
    # faq: the old catalog; c: the latest name of the chain a → b → c; help/x has its
    # own; y2's old name is still a document (its catalog is that page's)
    assert {d: (b.domain, b.new_domain) for d, b in found.items()} == {
        "help/faq": ("faq", "help/faq"),
        "c": ("b", "c"),
    }
    compact = borrowed_catalogs(moves, documents, True, {"faq", "help"}.__contains__)
    assert compact == {}  # help/faq's new folder has a catalog
    compact = borrowed_catalogs(moves, documents, True, {"faq"}.__contains__)
    assert list(compact) == ["help/faq"] and compact["help/faq"].new_domain == "help"
    assert borrowed_catalogs(moves, documents, "docs", lambda d: True) == {}


def test_borrowed_catalogs_of_a_moved_folder(tmp_path: Path) -> None:
    path = tmp_path / "relocations.toml"
    path.write_text('[prefixes]\n"pytorch/" = "guides/"\n', "utf-8")
    moved, problems = load_table(path)
    assert not problems
    documents = {"guides/install", "guides/tuning", "index"}
    found = borrowed_catalogs(moved, documents, False, {"pytorch/install"}.__contains__)
    assert {d: b.domain for d, b in found.items()} == {"guides/install": "pytorch/install"}
    found = borrowed_catalogs(moved, documents, True, {"pytorch"}.__contains__)
    assert {d: (b.domain, b.new_domain) for d, b in found.items()} == {
        "guides/install": ("pytorch", "guides"),
        "guides/tuning": ("pytorch", "guides"),
    }


def test_rewrite_plans_per_folder_catalogs_only_when_they_move_whole(tmp_path: Path) -> None:
    folder = tmp_path / "locale/fr/LC_MESSAGES"
    folder.mkdir(parents=True)
    for name in ("faq", "own-old", "setup"):
        (folder / f"{name}.po").write_text("", "utf-8")
    moves_table = table(faq="help/faq", **{"own-old": "help/own"}, setup="guide/setup")
    documents = {"help/faq", "help/own", "guide/setup"}
    moves, kept = plan_moves(tmp_path, ["locale"], True, moves_table, documents)
    assert [(m.domain, m.new_domain) for m in moves] == [("setup", "guide")]
    assert sorted(path.name for path, _ in kept) == ["faq.po", "own-old.po"]
    assert all("shares its new name" in why for _, why in kept)
    # a page still in the old folder keeps the folder's catalog where it is
    moves, kept = plan_moves(
        tmp_path, ["locale"], True, table(**{"setup/a": "guide/a"}), {"guide/a", "setup/b"}
    )
    assert moves == [] and "also serves pages still in setup/" in kept[0][1]


def test_a_catalog_is_never_moved_over_another(tmp_path: Path) -> None:
    (tmp_path / "faq.po").write_text("old", "utf-8")
    (tmp_path / "help").mkdir()
    (tmp_path / "help/faq.po").write_text("new", "utf-8")
    move = CatalogMove(tmp_path, "faq", "help/faq", ("help/faq",))
    error = move_catalog(move, lambda path: False, lambda a, b: None, lambda p: p.name)
    assert error == "faq.po exists; merge the two catalogs (msgcat) instead"
    assert (tmp_path / "faq.po").read_text("utf-8") == "old"
    assert (tmp_path / "help/faq.po").read_text("utf-8") == "new"


# -- rewrite moves catalogs ------------------------------------------------------------


def test_rewrite_moves_tracked_catalogs_with_git_mv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(ROOT, root / "docs")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "docs")
    (root / "docs" / MESSAGES / "faq.mo").write_bytes(b"")  # compiled, not tracked
    monkeypatch.chdir(root)

    assert main(["rewrite", "docs", "--check"]) == 1
    out = capsys.readouterr().out
    assert (
        f"docs/{MESSAGES}/faq.po: catalog of 'help/faq' at an old name; "
        f"move it to docs/{MESSAGES}/help/faq.po"
    ) in out

    assert main(["rewrite", "docs", "--write"]) == 0
    err = capsys.readouterr().err
    assert f"moved docs/{MESSAGES}/faq.po → docs/{MESSAGES}/help/faq.po" in err
    status = git(root, "status", "--porcelain").splitlines()
    assert f"R  docs/{MESSAGES}/faq.po -> docs/{MESSAGES}/help/faq.po" in status
    assert f"R  docs/{MESSAGES}/setup.po -> docs/{MESSAGES}/guide/setup.po" in status
    # the untracked .mo moved by a plain rename; the catalog of help/own stayed
    assert (root / "docs" / MESSAGES / "help/faq.mo").is_file()
    assert (root / "docs" / MESSAGES / "own-old.po").is_file()
    assert main(["rewrite", "docs", "--check"]) == 0  # nothing left to move


def test_rewrite_renames_catalogs_outside_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(ROOT, tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs"]) == 0  # the default shows what it would do
    assert f"would move {MESSAGES}/faq.po → {MESSAGES}/help/faq.po" in capsys.readouterr().err
    assert (tmp_path / "docs" / MESSAGES / "faq.po").is_file()
    assert main(["rewrite", "docs", "--write"]) == 0
    assert not (tmp_path / "docs" / MESSAGES / "faq.po").exists()
    assert "Wie installiere" in (tmp_path / "docs" / MESSAGES / "help/faq.po").read_text("utf-8")


# -- stubs in the reader's language -----------------------------------------------------


@pytest.mark.sphinx("html", testroot="i18n-moved", freshenv=True)
def test_stubs_speak_the_language_of_the_build(app) -> None:
    app.build()
    stub = text_of(app, "faq.html")
    assert '<html lang="de">' in stub
    assert "<title>Verschoben: Häufig gestellte Fragen</title>" in stub
    assert (
        '<p>Diese Seite wurde nach <a href="help/faq.html">Häufig gestellte Fragen</a> '
        "verschoben.</p>"
    ) in stub


@pytest.mark.sphinx(
    "html", testroot="i18n-moved", freshenv=True, confoverrides={"language": "pt_BR"}
)
def test_stub_language_tag_is_bcp47(app) -> None:
    app.build()
    stub = text_of(app, "faq.html")
    assert '<html lang="pt-BR">' in stub
    assert "Esta página foi movida para <a" in stub


@pytest.mark.sphinx(
    "html", testroot="i18n-moved", freshenv=True, confoverrides={"language": "ko"}
)
def test_a_language_without_a_catalog_reads_english(app) -> None:
    app.build()
    stub = text_of(app, "faq.html")
    assert '<html lang="ko">' in stub
    assert "<title>Moved: Frequently asked questions</title>" in stub
    assert "This page has moved to <a" in stub


@pytest.mark.sphinx(
    "html", testroot="i18n-moved", freshenv=True,
    confoverrides={"relocate_stub_template": "stub_template.html", "language": "fr"},
)
def test_custom_templates_get_the_translated_words(app, warning) -> None:
    app.build()
    stub = text_of(app, "faq.html")
    assert '<html lang="fr">' in stub and '<body class="custom">' in stub
    assert "<title>Page déplacée\u00a0: Frequently asked questions</title>" in stub
    assert (
        '<p class="moved">Cette page a été déplacée vers '
        '<a href="help/faq.html">Frequently asked questions</a>.</p>'
    ) in stub
    assert "relocate_stub_template" not in warning.getvalue()


def test_stub_text_keeps_english_for_a_broken_translation() -> None:
    translations = {
        "Moved: %(title)s": "Verschoben %(name)s",
        "This page has moved to %(link)s.": "Nach <%(link)s> & weg, 100%(link)s",
    }
    text = stub_text("de_AT", lambda message: translations.get(message, message))
    assert text.lang == "de-AT"
    assert text.title_of("T") == "Moved: T"  # no %(title)s
    assert text.sentence_of("L") == "This page has moved to L."  # two placeholders
    good = stub_text("x", {"This page has moved to %(link)s.": "<%(link)s> & y"}.get)
    assert good.sentence_of("L") == "&lt;L&gt; &amp; y"


REQUIRED = {"de", "es", "fr", "ja", "pt_BR", "zh_CN"}


def test_shipped_catalogs_are_complete_and_compiled(tmp_path: Path) -> None:
    """Every shipped ``.po`` translates both strings, and its ``.mo`` is what Sphinx
    compiles from it.  After editing a ``.po``, compile it with
    ``CatalogInfo(folder, "sphinx_relocate", "utf-8").write_mo(language)``."""
    from babel.messages.pofile import read_po

    locale = Path(LOCALE_DIR)
    languages = {p.name for p in locale.iterdir() if p.is_dir()}
    assert languages >= REQUIRED
    for language in sorted(languages):
        folder = locale / language / "LC_MESSAGES"
        with open(folder / "sphinx_relocate.po", encoding="utf-8") as handle:
            catalog = read_po(handle, language)
        strings = {m.id: m.string for m in catalog if m.id}
        assert set(strings) == {"Moved: %(title)s", "This page has moved to %(link)s."}
        assert strings["Moved: %(title)s"].count("%(title)s") == 1, language
        assert strings["This page has moved to %(link)s."].count("%(link)s") == 1, language
        copy = tmp_path / language
        copy.mkdir()
        shutil.copy(folder / "sphinx_relocate.po", copy)
        CatalogInfo(str(copy), "sphinx_relocate", "utf-8").write_mo(language)
        assert messages(copy / "sphinx_relocate.mo") == messages(
            folder / "sphinx_relocate.mo"
        ), f"{folder}/sphinx_relocate.mo is not compiled from its .po"


def messages(mo: Path) -> dict[str, str]:
    """The translations of a ``.mo`` file, without its header (dates, babel's version)."""
    with open(mo, "rb") as handle:
        catalog: dict[str, str] = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    return {key: value for key, value in catalog.items() if key}
