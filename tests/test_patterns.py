"""``[patterns]`` in the table model (no Sphinx): globs of old docnames and their targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_relocate.core.table import Target, check_against_project, load_table


def load_text(tmp_path: Path, text: str, **kwargs: object):
    path = tmp_path / "relocations.toml"
    path.write_text(text, encoding="utf-8")
    return load_table(path, display_name="relocations.toml", **kwargs)  # type: ignore[arg-type]


TABLE = """\
[pages]
"faq/pinned" = "help/pinned-answer"

[prefixes]
"faq/archive/" = "archive/faq/"

[patterns]
"faq/*" = "help/$source"
"legacy/*" = { to = "https://new.example/$source.html", replace = true }
"*.old" = "https://archive.example/${source}#top"
"notes/?" = "notes/short-$source"
"v[12]/*" = "current/index"
"""


@pytest.fixture
def table(tmp_path: Path):
    table, problems = load_text(tmp_path, TABLE)
    assert problems == []
    return table


def test_globs_match_like_fnmatch_and_placeholders_expand(table) -> None:
    assert table.locate_page("faq/one") == Target("help/faq/one")
    assert table.locate_page("faq/deep/two") == Target("help/faq/deep/two")  # * crosses /
    assert table.locate_page("guide.old") == Target(url="https://archive.example/guide.old#top")
    assert table.locate_page("notes/a") == Target("notes/short-notes/a")
    assert table.locate_page("notes/ab") is None
    assert table.locate_page("v2/setup") == Target("current/index")
    assert table.locate_page("v3/setup") is None


def test_pages_and_prefixes_come_before_patterns(table) -> None:
    assert table.locate_page("faq/pinned") == Target("help/pinned-answer")
    assert table.locate_page("faq/archive/q1") == Target("archive/faq/q1")


def test_references_keep_their_fragment(table) -> None:
    assert table.locate_reference("faq/one", "install") == Target("help/faq/one", "install")
    assert table.locate_reference("x.old", "y") == Target(url="https://archive.example/x.old#top")


def test_a_document_takes_only_a_pattern_that_replaces_it(table) -> None:
    documents = {"faq/one", "legacy/page", "help/faq/one"}
    exists = documents.__contains__
    assert table.locate_page("faq/one", exists) is None  # a page of the build: it wins
    assert table.locate_page("faq/gone", exists) == Target("help/faq/gone")
    assert table.locate_page("legacy/page", exists) == Target(
        url="https://new.example/legacy/page.html"
    )
    assert [d for d in sorted(documents) if table.replaced(d)] == ["legacy/page"]


def test_first_pattern_written_wins(tmp_path: Path) -> None:
    table, _ = load_text(
        tmp_path, '[patterns]\n"faq/*" = "help/$source"\n"*" = "https://elsewhere.example/$source"\n'
    )
    assert table.locate_page("faq/a") == Target("help/faq/a")
    assert table.locate_page("b") == Target(url="https://elsewhere.example/b")


def test_a_template_that_feeds_itself_takes_one_step(tmp_path: Path) -> None:
    table, problems = load_text(tmp_path, '[patterns]\n"a/*" = "a/x/$source"\n')
    assert problems == []
    assert table.locate_page("a/q") == Target("a/x/a/q")


def test_a_chain_through_pages_after_a_pattern(tmp_path: Path) -> None:
    text = '[pages]\n"help/faq/a" = "help/a"\n\n[patterns]\n"faq/*" = "help/$source"\n'
    table, problems = load_text(tmp_path, text)
    assert problems == []
    assert table.locate_page("faq/a") == Target("help/a")


def test_a_page_template_tells_where_a_page_came_from(table) -> None:
    # so the stubs of the old URLs are written and a moved page's links read from its old folder
    assert table.old_names("help/faq/one") == ("faq/one",)
    assert table.old_names("help/pinned-answer") == ("faq/pinned",)
    assert table.old_names("notes/short-notes/a") == ("notes/a",)
    assert table.old_names("current/index") == ()  # many pages went there: none is known
    assert table.old_names("help/other") == ()


def test_location_and_digest(tmp_path: Path, table) -> None:
    assert str(table.location_of("legacy/a")) == "relocations.toml:9"
    again, _ = load_text(tmp_path, TABLE.replace(", replace = true", ""))
    assert again.digest != table.digest
    reordered, _ = load_text(tmp_path, "# a comment\n" + TABLE)
    assert reordered.digest == table.digest


#: (table text, line, words of the one problem)
ERRORS = {
    "glob in pages": ('[pages]\n"faq/*" = "help/faq"\n', 2, 'goes in [patterns]: "faq/*" = '),
    "question mark in files": ('[files]\n"img/?.png" = "i.png"\n', 2, "goes in [patterns]"),
    "brackets in prefixes": ('[prefixes]\n"v[12]/" = "v/"\n', 2, "goes in [patterns]"),
    "glob in relocate_map": ("", 1, "goes in [patterns]"),
    "no wildcard": ('[patterns]\n"faq/one" = "x"\n', 2, "pages go in [pages]"),
    "unknown placeholder": ('[patterns]\n"a/*" = "b/$name"\n', 2, "only $source or ${source}"),
    "lone dollar": ('[patterns]\n"a/*" = "b/$"\n', 2, "write $$ for a $"),
    "unknown key": ('[patterns]\n"a/*" = { to = "b", where = 1 }\n', 2, "unknown key 'where'"),
    "replace not a bool": ('[patterns]\n"a/*" = { to = "b", replace = 1 }\n', 2, "true or false"),
    "no target": ('[patterns]\n"a/*" = { replace = true }\n', 2, "to a target string"),
    "anchor in key": ('[patterns]\n"a/*#x" = "b"\n', 2, "no '#' and no URL"),
    "dotdot": ('[patterns]\n"../a/*" = "b"\n', 2, "'..' segments"),
    "unsafe target": ('[patterns]\n"a/*" = "javascript:$source"\n', 2, "unsafe target"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_each_bad_pattern_is_one_problem(tmp_path: Path, name: str) -> None:
    text, line, words = ERRORS[name]
    mapping = {"faq/*": "help"} if name == "glob in relocate_map" else None
    _, problems = load_text(tmp_path, text, mapping=mapping, mapping_text="relocate_map = {}")
    where = "conf.py" if mapping else "relocations.toml"
    assert [str(p.location) for p in problems] == [f"{where}:{line}"], problems
    assert words in problems[0].message
    assert problems[0].fatal


def test_html_keys_name_the_page_with_a_note(tmp_path: Path) -> None:
    table, problems = load_text(
        tmp_path, '[pages]\n"old.html" = "new"\n\n[patterns]\n"faq/*.html" = "help/$source"\n'
    )
    assert problems == []
    assert table.pages == {"old": Target("new")}  # never old.html.html
    assert [p.glob for p in table.patterns] == ["faq/*"]
    assert [(str(n.location), n.fatal, n.subtype) for n in table.notes] == [
        ("relocations.toml:2", False, "note"),
        ("relocations.toml:5", False, "note"),
    ]
    assert "the '.html' suffix was dropped: the key names the page 'old'" in table.notes[0].message
    assert table.warnings == ()


def test_checks_that_need_the_project(tmp_path: Path) -> None:
    text = (
        '[patterns]\n"gone/*" = { to = "x/$source", replace = true }\n'
        '"legacy/*" = { to = "missing/$source", replace = true }\n'
        '"faq/*" = "help/index"\n'
    )
    table, _ = load_text(tmp_path, text)
    found = check_against_project(table, {"legacy/a", "index"}, lambda path: False)
    assert [(str(p.location), p.subtype) for p in found] == [
        ("relocations.toml:2", "table"),
        ("relocations.toml:3", "target_missing"),
        ("relocations.toml:4", "target_missing"),
    ]
    assert "replaces no document: it matches none" in found[0].message
    assert "target 'missing/$source' (for 'legacy/a') is not a document" in found[1].message
    assert "target 'help/index' is not a document" in found[2].message
