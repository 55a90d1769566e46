"""The pages a project's HTML templates link with ``pathto('name')``.

Templates are no documents: Sphinx makes a URL of any name and says nothing when no
page has it, so a footer's ``pathto('copyright')`` broke silently when the page moved.
The build follows the table there and warns, at the template's line, for a name that
lands nowhere, on every build; ``rewrite`` writes the new names into the templates.
"""

from __future__ import annotations

import re
from pathlib import Path

import builds
import pytest
from builds import copy_root, warning_lines
from reorg_fixture import first_commit

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.spans import template_targets

LINKS = re.compile(r'<p class="template-links">(.*?)</p>', re.DOTALL)
HREF = re.compile(r'href="([^"]*)">([^<]*)<')


def footer(html: str) -> dict[str, str]:
    match = LINKS.search(html)
    assert match is not None
    return {text: href for href, text in HREF.findall(match.group(1))}


def test_pathto_names_are_read_from_string_literals() -> None:
    text = ("{{ pathto('a/b') }} {{ pathto(\"c\")|e }} {{ pathto('_static/x.png', 1) }} "
            "{{ pathto('_static/y', resource=True) }} {{ pathto(master_doc) }} "
            "{{ pathto('d', 0) }} {{ pathto('{{ x }}') }} {% if hasdoc('e') %}")
    assert [(text[s.start : s.end], s.syntax) for s in template_targets(text)] == [
        ("a/b", "pathto"), ("c", "pathto"), ("d", "pathto"), ("e", "hasdoc")]


def test_template_links_follow_the_table_and_dangle_loudly(tmp_path: Path) -> None:
    srcdir = copy_root("templates", tmp_path)
    # a name the template asks hasdoc() of first is linked only where there is a page
    dangling = ("docs/_templates/partials/links.html:3: WARNING: pathto('team') does not "
                "land: no document 'team' [relocate.link]")
    assert warning_lines(srcdir, tmp_path / "build") == [dangling]
    html = tmp_path / "build/html"
    # hasdoc('copyright') follows the table too: the footer shows the link
    assert footer((html / "index.html").read_text("utf-8")) == {
        "copyright": "about/copyright.html", "team": "team.html", "index": "genindex.html",
        "landing": "landing.html", "home": "#",
    }
    assert footer((html / "about/guide.html").read_text("utf-8"))["copyright"] == (
        "copyright.html")
    landing = (html / "landing.html").read_text("utf-8")
    assert 'class="start" href="about/guide.html#guide"' in landing
    # again with nothing to read or write: the template is still checked
    assert warning_lines(srcdir, tmp_path / "build") == [dangling]
    assert warning_lines(srcdir, tmp_path / "quiet",
                       suppress_warnings=["relocate.link"]) == []
    notes = warning_lines(srcdir, tmp_path / "notes", relocate_report_rewrites=True)
    assert [n for n in notes if "relocate.outdated" in n and "pathto" in n] == [
        "docs/_templates/landing.html:2: WARNING: pathto('guide') names an old page; it "
        "now links 'about/guide#guide' [relocate.outdated]",
        "docs/_templates/partials/links.html:2: WARNING: pathto('copyright') names an old "
        "page; it now links 'about/copyright' [relocate.outdated]",
    ]


def test_rewrite_writes_the_new_names_into_the_templates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    srcdir = copy_root("templates", tmp_path)
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 1  # one name it cannot write
    err = capsys.readouterr().err
    assert ("docs/_templates/landing.html:2:51: 'guide' goes to about/guide#guide now, "
            "which a template's pathto() and hasdoc() cannot name (they take a page's name "
            "only): left as written; write it in the template [relocate.link]") in err, err
    assert "rewrote 2 links in 1 file (hasdoc 1, pathto 1)" in err
    links = (srcdir / "_templates/partials/links.html").read_text("utf-8")
    assert "hasdoc('about/copyright')" in links and "pathto('about/copyright')" in links
    assert 'pathto("team")' in links
    # built without the extension, the footer links the page where it is
    conf = srcdir / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace('["sphinx_relocate"]', "[]"), "utf-8")
    builds.build(srcdir, builddir=tmp_path / "plain")
    index = (tmp_path / "plain/html/index.html").read_text("utf-8")
    assert footer(index)["copyright"] == "about/copyright.html"
