"""``html_sidebars`` keys that name pages the table moved.

A key is a page name or a pattern of them; once the page moves the key matches nothing
and the page silently gets the theme's default sidebars.  The build gives a moved page
the sidebars its old key named, warns (``relocate.sidebar``, at the key's line of
conf.py) where no key can follow the table, and ``rewrite`` writes the new keys.
"""

from __future__ import annotations

import re
from pathlib import Path

import builds
import pytest
from builds import copy_root, warning_lines
from reorg_fixture import first_commit, write_tree

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.landing import lost_sidebar_key, moved_sidebar_key
from sphinx_relocate.core.spans import find_targets, sidebar_keys
from sphinx_relocate.core.table import RelocationTable, load_table

SIDEBAR = re.compile(r'<div class="sphinxsidebar".*?<div class="clearer">', re.DOTALL)
#: the heading each sidebar template shows ("This Page": sourcelink.html, "Quick
#: search": searchbox.html)
HEADING = re.compile(r"<h[34][^>]*>([^<]+)</h[34]>")
LOST = [
    "docs/conf.py:7: WARNING: html_sidebars key 'faq' matches no page: the table moved "
    "what it named ('faq' went to 'https://example.org/faq'); write a key for the new "
    "names [relocate.sidebar]",
    "docs/conf.py:8: WARNING: html_sidebars key 'recipes/*' matches no page: the table "
    "moved what it named ('recipes/a' → 'guide/a', 'recipes/b' → 'other/b'); write a key "
    "for the new names [relocate.sidebar]",
]


def sidebars(html: Path, page: str) -> set[str]:
    match = SIDEBAR.search((html / f"{page}.html").read_text("utf-8"))
    assert match is not None
    return set(HEADING.findall(match.group(0)))


def table_of(tmp_path: Path, toml: str) -> RelocationTable:
    path = tmp_path / "relocations.toml"
    path.write_text(toml, encoding="utf-8")
    table, problems = load_table(path)
    assert not problems
    return table


def test_keys_are_read_from_plain_string_literals() -> None:
    text = ('# é\nhtml_sidebars = {"**": ["a"], \'ü/page\': [],  # c\n'
            '  "api/*" : [], r"raw": [], "a\\tb": [], 1: [], f"x": []}\n'
            'other = {"install": []}\n')
    assert [(text[s.start : s.end], s.mode) for s in sidebar_keys(text)] == [
        ("**", "glob"), ("ü/page", "doc"), ("api/*", "glob")]
    assert sidebar_keys("html_sidebars = {") == []
    # rewrite --mentions reads conf.py for the paths it quotes too, as any .py file
    conf = 'html_sidebars = {"a": []}\nsource = "docs/guide/a.md"\n'
    mention = re.compile(r"(docs/[\w/.]+)")
    assert [(conf[s.start : s.end], s.syntax) for s in find_targets(
        conf, "docs/conf.py", None, mention, conf=True)] == [
        ("a", "html_sidebars"), ("docs/guide/a.md", "mention")]


def test_a_key_follows_the_table_where_one_key_can_name_the_pages(tmp_path: Path) -> None:
    table = table_of(tmp_path, '[pages]\n"install" = "guide/install"\n"gone" = '
                     '"https://example.org/gone"\n"a/x" = "b/x"\n"a/y" = "c/y"\n'
                     '[prefixes]\n"howto/" = "guide/howto/"\n')
    documents = {"index", "guide/install", "guide/howto/one", "b/x", "c/y"}
    assert moved_sidebar_key("install", table, documents) == "guide/install"
    assert moved_sidebar_key("howto/*", table, documents) == "guide/howto/*"
    for kept in ("index", "**", "search", "gone", "a/*"):
        assert moved_sidebar_key(kept, table, documents) is None
    assert lost_sidebar_key("gone", table, documents) == (
        "'gone' went to 'https://example.org/gone'")
    assert lost_sidebar_key("a/*", table, documents) == "'a/x' → 'b/x', 'a/y' → 'c/y'"
    for unrelated in ("index", "**", "search", "nothing/*"):  # no entry: nothing to say
        assert lost_sidebar_key(unrelated, table, documents) is None


def test_moved_pages_keep_their_sidebars(tmp_path: Path) -> None:
    srcdir = copy_root("sidebars", tmp_path)
    assert warning_lines(srcdir, tmp_path / "build") == LOST
    html = tmp_path / "build/html"
    assert sidebars(html, "guide/install") == {"This Page"}  # "install" followed
    assert sidebars(html, "guide/howto/one") == {"Quick search"}  # "howto/*" followed
    assert sidebars(html, "guide/kept") == {"This Page"}  # conf.py's key for the new name
    # the theme's own (three or more, which differ between alabaster's versions): no
    # key names the page
    assert len(sidebars(html, "guide/a")) >= 3
    # again with nothing to read: the keys are still checked
    assert warning_lines(srcdir, tmp_path / "build") == LOST
    notes = warning_lines(srcdir, tmp_path / "notes", relocate_report_rewrites=True)
    assert [n for n in notes if "html_sidebars" in n and "outdated" in n] == [
        "docs/conf.py:5: WARNING: html_sidebars key 'install' names old pages; it now "
        "applies to 'guide/install' [relocate.outdated]",
        "docs/conf.py:6: WARNING: html_sidebars key 'howto/*' names old pages; it now "
        "applies to 'guide/howto/*' [relocate.outdated]",
    ]
    # without a table the extension changes nothing, and says nothing
    (srcdir / "relocations.toml").unlink()
    assert warning_lines(srcdir, tmp_path / "plain") == []
    assert len(sidebars(tmp_path / "plain/html", "guide/install")) >= 3


def test_rewrite_writes_the_new_keys_into_conf_py(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    srcdir = copy_root("sidebars", tmp_path)
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 1  # two keys it cannot write
    err = capsys.readouterr().err
    assert ("docs/conf.py:7:6: sidebar key 'faq' matches no page: the table moved "
            "what it named ('faq' went to 'https://example.org/faq'); left as written: "
            "write a key for the new names [relocate.sidebar]") in err, err
    assert "docs/conf.py:8:6: sidebar key 'recipes/*' matches no page" in err
    assert "rewrote 2 links in 1 file (html_sidebars 2)" in err
    conf = (srcdir / "conf.py").read_text("utf-8")
    assert '"guide/install": ["sourcelink.html"]' in conf
    assert '"guide/howto/*": ["searchbox.html"]' in conf
    assert '"kept": ["searchbox.html"]' in conf  # conf.py has "guide/kept" already
    # built without the extension, the moved pages have their sidebars
    conf = conf.replace('["sphinx_relocate"]', "[]")
    (srcdir / "conf.py").write_text(conf, "utf-8")
    builds.build(srcdir, builddir=tmp_path / "plain")
    html = tmp_path / "plain/html"
    assert sidebars(html, "guide/install") == {"This Page"}
    assert sidebars(html, "guide/howto/one") == {"Quick search"}


def test_pydata_theme_sidebars_follow_too(tmp_path: Path) -> None:
    """pydata-sphinx-theme reads ``html_sidebars`` (written without ``.html``) and matches
    its own ``secondary_sidebar_items`` keys, both after the moved keys are given."""
    pytest.importorskip("pydata_sphinx_theme")
    srcdir = copy_root("sidebars", tmp_path)
    (srcdir / "conf.py").write_text(
        'extensions = ["pydata_sphinx_theme", "sphinx_relocate"]\n'  # the theme first
        'html_theme = "pydata_sphinx_theme"\n'
        'html_sidebars = {"install": ["search-field"]}\n'
        'html_theme_options = {"secondary_sidebar_items": {\n'
        '    "**": ["page-toc"], "install": ["sourcelink"], "faq": []}}\n', "utf-8")
    for page in ("guide/install", "guide/a"):
        with (srcdir / f"{page}.rst").open("a", encoding="utf-8") as file:
            file.write("\nSection\n-------\n\nText.\n")
    assert warning_lines(srcdir, tmp_path / "build") == [
        "docs/conf.py:5: WARNING: secondary_sidebar_items key 'faq' matches no page: the "
        "table moved what it named ('faq' went to 'https://example.org/faq'); write a key "
        "for the new names [relocate.sidebar]"]
    install = (tmp_path / "build/html/guide/install.html").read_text("utf-8")
    other = (tmp_path / "build/html/guide/a.html").read_text("utf-8")
    assert "bd-docs-nav" not in install and "bd-docs-nav" in other  # the primary sidebar
    assert "Show Source" in install and 'class="page-toc' not in install  # the secondary
    assert 'class="page-toc' in other and "Show Source" not in other


def test_a_new_key_that_would_change_the_code_of_conf_py_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """conf.py is code: a page whose name holds the key's quote (or an escape) would end
    the string and write what follows into conf.py, so the key is left and named."""
    conf = 'extensions = ["sphinx_relocate"]\nhtml_sidebars = {"install": []}\n'
    write_tree(tmp_path, {
        "docs/conf.py": conf, "docs/index.rst": 'I\n=\n\n.. toctree::\n\n   guide/a"b\n',
        'docs/guide/a"b.rst': "A\n=\n",
        "docs/relocations.toml": '[pages]\n"install" = \'guide/a"b\'\n'}, {})
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 1
    assert ("docs/conf.py:2:19: sidebar key 'install' matches no page: the table moved what "
            "it named ('guide/a\"b'); left as written: write a key for the new names "
            "[relocate.sidebar]") in capsys.readouterr().err
    assert (tmp_path / "docs/conf.py").read_text("utf-8") == conf


def test_check_reports_the_keys_the_build_warns_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CI gate without a build names the keys the build would warn about, at the
    same lines; a key whose pages the build generates is a note, not a problem."""
    srcdir = copy_root("sidebars", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "docs"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [line.replace(" WARNING:", "").removesuffix(
        " [relocate.sidebar]") for line in LOST]
    assert "2 problems found" in err
    # a key computed in conf.py: at the line that assigns the setting
    conf = (srcdir / "conf.py").read_text("utf-8")
    (srcdir / "conf.py").write_text(conf.replace('"faq": [],', '"f" + "aq": [],'), "utf-8")
    assert main(["check", "docs"]) == 1
    assert capsys.readouterr().out.splitlines()[0].startswith(
        "docs/conf.py:4: html_sidebars key 'faq' matches no page")
    # keys whose pages the build writes (autosummary's folder) are not judged without it
    (srcdir / "conf.py").write_text(
        'extensions = ["sphinx.ext.autosummary", "sphinx_relocate"]\n'
        'html_sidebars = {"api/generated/*": []}\n', "utf-8")
    (srcdir / "api.rst").write_text(
        "API\n===\n\n.. autosummary::\n   :toctree: reference/generated\n\n   os.path\n",
        "utf-8")
    (srcdir / "relocations.toml").write_text(
        '[prefixes]\n"api/generated/" = "reference/generated/"\n', "utf-8")
    assert main(["check", "docs"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert ("note: docs/conf.py:2: html_sidebars key 'api/generated/*' matches no page: the "
            "table moved what it named ('api/generated/*' went to 'reference/generated/*'); "
            "write a key for the new names; autosummary (docs/api.rst:5) writes pages there "
            "when the docs are built: not checked without a build") in err, err


def test_the_build_names_the_setting_line_of_a_computed_key(tmp_path: Path) -> None:
    srcdir = copy_root("sidebars", tmp_path)
    conf = (srcdir / "conf.py").read_text("utf-8")
    (srcdir / "conf.py").write_text(conf.replace('"faq": [],', '"f" + "aq": [],'), "utf-8")
    assert warning_lines(srcdir, tmp_path / "build") == [
        LOST[0].replace("conf.py:7:", "conf.py:4:"), LOST[1]]
