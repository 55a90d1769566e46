"""Each bad input gives exactly one clear problem at the right line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_relocate.core.table import Target, check_against_project, load_table

# (table text, expected line, expected words in the message)
CASES = {
    "malformed": ('[pages]\n"a" = "b"\n"c" = \n', 3, "invalid TOML, column"),
    "unknown-section": (
        '[pages]\n"a" = "b"\n\n[redirects]\n"x" = "y"\n',
        4,
        "unknown section [redirects]",
    ),
    "empty-key": ('[pages]\n"" = "b"\n', 2, "empty key"),
    "empty-value": ('[pages]\n"a" = ""\n', 2, "empty value"),
    "same": ('[pages]\n"a/b" = "a/b.md"\n', 2, "the old and new names are the same"),
    "dotdot": ('[pages]\n"../x" = "b"\n', 2, "'..' segments"),
    "dotdot-value": ('[pages]\n"x" = "a/../../b"\n', 2, "'..' segments"),
    "absolute": ('[pages]\n"/abs/x" = "b"\n', 2, "not absolute"),
    "backslash": ("[pages]\n'a\\b' = \"c\"\n", 2, "forward slashes"),
    "javascript": ('[pages]\n"a" = "javascript:alert(1)"\n', 2, "unsafe target"),
    "data": ('[pages]\n"a" = "data:text/html,x"\n', 2, "unsafe target"),
    "ftp": ('[pages]\n"a" = "ftp://example.org/x"\n', 2, "http(s) URLs"),
    "not-a-string": ('[pages]\n"a" = 3\n', 2, "must be strings"),
    "spelled-twice": ('[pages]\n"a" = "b"\n"a.md" = "c"\n', 3, "the same old name as the entry at"),
    "anchor-in-pages": ('[pages]\n"a#x" = "b"\n', 2, "'#' belongs in [anchors]"),
    "anchor-key": ('[anchors]\n"a" = "b#c"\n', 2, "'page#old-id'"),
    "anchor-value": ('[anchors]\n"a#x" = "b"\n', 2, "'page#new-id'"),
    "folder-in-pages": ('[pages]\n"a/" = "b/"\n', 2, "folders are moved under [prefixes]"),
    "url-key": ('[pages]\n"https://x.org/a" = "b"\n', 2, "not URLs"),
    "section-not-table": ('pages = "x"\n', 1, "must be a table"),
    "bad-utf8": (b'[pages]\n"a" = "\xff"\n', 2, "not valid UTF-8"),
    # control characters: a key is written as it is into server rules and inventories
    "newline-key": ('[pages]\n"x" = "y"\n"a\\nRequire all denied\\nSetEnv X" = "new"\n', 3,
                    "the key holds the control character U+000A"),
    "tab-key": ('[pages]\n"a\\tb" = "new"\n', 2, "control character U+0009"),
    "del-key": ('[files]\n"a\\u007f.png" = "b.png"\n', 2, "control character U+007F"),
    "c1-key": ('[prefixes]\n"a\\u0085/" = "b/"\n', 2, "control character U+0085"),
    "line-separator-key": ('[anchors]\n"a#x\\u2028y" = "b#c"\n', 2, "control character U+2028"),
    "bidi-key": ('[labels]\n"a\\u202eb" = "c"\n', 2, "control character U+202E"),
    "newline-value": ('[pages]\n"a" = "b#x\\ny"\n', 2, "the value holds the control character"),
    "status-303": ('[pages]\n"a" = "b"\n"c" = { to = "d", status = 303 }\n', 3,
                   "'status' must be 301 (moved for good, the default) or 302"),
    "status-string": ('[prefixes]\n"a/" = { to = "b/", status = "302" }\n', 2,
                      "'status' must be 301"),
    "status-pattern": ('[patterns]\n"a/*" = { to = "b/$source", status = 307 }\n', 2,
                       "'status' must be 301"),
    "status-files": ('[files]\n"a.png" = { to = "b.png", status = 302 }\n', 2,
                     "must be strings"),
    "status-unknown-key": ('[pages]\n"a" = { to = "b", code = 302 }\n', 2,
                           "unknown key 'code'"),
    "newline-pattern": ('[patterns]\n"a/*" = { to = "b\\r$source" }\n', 2,
                        "the value holds the control character U+000D"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_problem_per_bad_input(tmp_path: Path, name: str) -> None:
    text, line, words = CASES[name]
    path = tmp_path / "t.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    _, problems = load_table(path, display_name="t.toml")
    assert [str(p.location) for p in problems] == [f"t.toml:{line}"], problems
    assert words in problems[0].message
    assert problems[0].fatal
    assert "\n" not in str(problems[0])


@pytest.mark.parametrize("key", ["a\nb", "a\x00b", "a\u2029", "\x9b", "a\ud800"])
def test_control_characters_in_conf_py_keys_are_refused(key: str) -> None:
    table, problems = load_table(None, {key: "new", "fine": "new"})
    assert [str(p).split(": ", 1)[0] for p in problems] == ["conf.py:1"]
    assert "control character" in problems[0].message and "\n" not in str(problems[0])
    assert list(table.pages) == ["fine"]


def test_cycle_is_named_member_by_member(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[pages]\n"a" = "b"\n"b" = "c"\n"c" = "a"\n"ok" = "fine"\n', encoding="utf-8")
    table, problems = load_table(path, display_name="t.toml")
    assert len(problems) == 1
    message = str(problems[0])
    assert message.startswith("t.toml:2: relocation cycle: a → b → c → a")
    for member, line in (("a", 2), ("b", 3), ("c", 4)):
        assert f"{member} at t.toml:{line}" in message
    # the rest of the table still works
    assert table.locate_page("ok") is not None
    assert table.locate_page("a") is None


def test_prefix_cycle(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[prefixes]\n"x/" = "y/"\n"y/" = "x/"\n', encoding="utf-8")
    _, problems = load_table(path, display_name="t.toml")
    assert len(problems) == 1
    assert "relocation cycle: x/ → y/ → x/" in problems[0].message


@pytest.mark.parametrize(
    "prefixes",
    [
        '"a/" = "b/"\n"b/" = "a/x/"\n',  # a/p → b/p → a/x/p → b/x/p → a/x/x/p → …
        '"a/" = "b/"\n"b/" = "a/x/"\n"a/x/x/" = "c/"\n',  # the same, until a/x/x/ stops it
        '"a/" = "a/x/"\n',  # never moved again: the folder it created is excluded
    ],
)
def test_folders_that_move_into_each_other_are_a_cycle(tmp_path: Path, prefixes: str) -> None:
    """The path is longer at every turn, so no path comes round twice: without this, a
    lookup of a page under them never ended."""
    path = tmp_path / "t.toml"
    path.write_text("[prefixes]\n" + prefixes, encoding="utf-8")
    table, problems = load_table(path, display_name="t.toml")
    if prefixes.count("\n") == 1:
        assert problems == []
        assert table.locate_page("a/p") == Target("a/x/p")
        return
    assert [str(p) for p in problems] == [
        "t.toml:2: relocation cycle: a/ → b/ → a/ (a/ at t.toml:2, b/ at t.toml:3)"
    ]
    assert table.locate_page("a/p") is None  # the members left the table


def test_a_table_made_without_the_checks_still_ends_every_lookup() -> None:
    """RelocationTable.of_entries takes entries as they are (the checks are load_table's):
    a lookup gives up once it has taken more steps than there are entries."""
    from sphinx_relocate.core.table import Entry, Location, RelocationTable

    table = RelocationTable.of_entries([
        Entry("prefixes", "a/", Target("b/"), Location("t.toml", 2)),
        Entry("prefixes", "b/", Target("a/x/"), Location("t.toml", 3)),
    ])
    assert table.locate_page("a/p") is None


def test_mixed_page_and_prefix_cycle(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[pages]\n"b/x" = "a/x"\n\n[prefixes]\n"a/" = "b/"\n', encoding="utf-8")
    _, problems = load_table(path, display_name="t.toml")
    assert len(problems) == 1 and "relocation cycle" in problems[0].message


def test_case_collision_is_flagged_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[pages]\n"Guide" = "a"\n"guide" = "b"\n', encoding="utf-8")
    _, problems = load_table(path, display_name="t.toml")
    assert len(problems) == 1
    assert not problems[0].fatal and problems[0].subtype == "case_collision"
    assert "'Guide' (t.toml:2), 'guide' (t.toml:3)" in problems[0].message


def test_case_only_rename_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[pages]\n"features/EP_balance" = "features/ep_balance"\n', encoding="utf-8")
    _, problems = load_table(path, display_name="t.toml")
    assert problems == []


def test_files_may_move_sources_that_are_not_documents(tmp_path: Path) -> None:
    """An include fragment (excluded from the build) moves under [files]; a document
    named there is one clear warning at its line."""
    path = tmp_path / "t.toml"
    path.write_text(
        '[files]\n"_fragments/a.md" = "_snippets/a.md"\n"old.md" = "guide.md"\n', "utf-8"
    )
    table, problems = load_table(path, display_name="t.toml")
    assert problems == []
    assert table.locate_file("_fragments/a.md") == Target(path="_snippets/a.md")
    found = check_against_project(table, {"guide"}, lambda p: p in {"_snippets/a.md"})
    assert [(str(p.location), p.fatal) for p in found] == [("t.toml:3", False)]
    assert "'guide.md' is a document: pages are moved under [pages]" in found[0].message


def test_backslashes_are_refused_with_the_forward_slash_spelling(tmp_path: Path) -> None:
    """Never guessed (on POSIX a backslash is part of a file name): the hint shows the
    spelling to write, in the table file and in relocate_map alike."""
    path = tmp_path / "t.toml"
    path.write_text(
        "[pages]\n'guide\\setup.md' = \"new/setup\"\n\"old\" = 'new\\特性'\n", encoding="utf-8"
    )
    _, problems = load_table(path, {"a\\b": "c"}, display_name="t.toml")
    assert [str(p) for p in problems] == [
        "t.toml:2: [pages] 'guide\\\\setup.md': use forward slashes: \"guide/setup.md\"",
        "t.toml:3: [pages] 'old': use forward slashes: \"new/特性\"",
        "conf.py:1: [pages] 'a\\\\b': use forward slashes: \"a/b\"",
    ]
