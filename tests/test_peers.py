"""The peers' tables read with their meaning (no Sphinx): sphinx-reredirects' ``redirects``
and sphinxext-rediraffe's ``rediraffe_redirects``, converted to table rows and loaded.

The cases are the peers' own test facts (their test projects' tables and the redirect
each one writes), restated as what our table must hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_relocate.core.peers import convert, read_rediraffe_file
from sphinx_relocate.core.table import (
    Problem,
    RelocationTable,
    Target,
    check_against_project,
    load_table,
)

SUFFIXES = (".rst", ".md")


def conf_text(name: str, mapping: dict[str, str]) -> str:
    """A conf.py that assigns ``mapping`` to ``name``, one entry a line (from line 3)."""
    lines = ['extensions = ["sphinx_relocate"]', f"{name} = {{"]
    lines += [f"    {key!r}: {value!r}," for key, value in mapping.items()]
    return "\n".join([*lines, "}", ""])


def reredirects(
    mapping: dict[str, str], *, html_suffix: str = ".html", documents: set[str] | None = None
) -> tuple[RelocationTable, list[Problem]]:
    converted = convert(
        {"redirects": mapping},
        conf_file="conf.py",
        conf_text=conf_text("redirects", mapping),
        srcdir=Path("."),
        html_suffix=html_suffix,
        is_document=(documents or set()).__contains__,
    )
    return load_table(
        None, peer_rows=converted.rows, peer_problems=converted.problems, source_suffixes=SUFFIXES
    )


def rediraffe(setting: object, srcdir: Path = Path(".")) -> tuple[RelocationTable, list[Problem]]:
    text = conf_text("rediraffe_redirects", setting) if isinstance(setting, dict) else ""
    converted = convert(
        {"rediraffe_redirects": setting},
        conf_file="conf.py",
        conf_text=text,
        srcdir=srcdir,
        shown=lambda path: path.name,
    )
    return load_table(
        None, peer_rows=converted.rows, peer_problems=converted.problems, source_suffixes=SUFFIXES
    )


# -- sphinx-reredirects ---------------------------------------------------------------

#: key, target as written for sphinx-reredirects → the page (or URL) it means
TARGETS = {
    "same folder": ("setup", "install.html", "install"),
    "relative to the old page's folder": ("faq/old", "new.html", "faq/new"),
    "up a folder": ("guides/index", "../index.html", "index"),
    "two folders up": ("a/b/c", "../../top.html", "top"),
    "site-absolute": ("guides/index", "/index.html", "index"),
    "site-absolute deep": ("faq/old", "/help/answers.html", "help/answers"),
    "external": (
        "install/requirements",
        "https://web.com/docs/requirements.html",
        "https://web.com/docs/requirements.html",
    ),
    "anchor": ("faq/deep/gone", "../one.html#the-answer", "faq/one#the-answer"),
    "no suffix": ("setup", "install", "install"),
    "folder URL of dirhtml": ("setup", "install/", "install"),
    "the site root": ("faq/old", "/", "index"),
    "a trailing slash on the key": ("install/", "/installing.html", "installing"),
}


@pytest.mark.parametrize("case", sorted(TARGETS))
def test_reredirects_targets_mean_what_the_stub_linked_to(case: str) -> None:
    key, value, meaning = TARGETS[case]
    table, problems = reredirects({key: value})
    assert problems == []
    old = key.rstrip("/")
    expected = Target(url=meaning) if "://" in meaning else Target(*meaning.partition("#")[::2])
    assert table.locate_page(old) == expected


def test_html_file_suffix_is_dropped_from_targets_and_keys() -> None:
    mapping = {"setup": "install.htm", "old.htm": "new.htm"}
    table, problems = reredirects(mapping, html_suffix=".htm")
    assert problems == []
    assert table.pages == {"setup": Target("install"), "old": Target("new")}


def test_folder_url_is_the_folder_index_when_that_is_the_document() -> None:
    table, _ = reredirects({"setup": "/guide/"}, documents={"guide/index"})
    assert table.locate_page("setup") == Target("guide/index")
    table, _ = reredirects({"setup": "/guide/"}, documents={"guide", "guide/index"})
    assert table.locate_page("setup") == Target("guide")


def test_html_key_means_the_page_with_a_note() -> None:
    # sphinx-reredirects' dirhtml test writes "index.html" and "install/index.html" as keys
    table, problems = reredirects({"install/index.html": "/installing.html"})
    assert problems == []
    assert table.pages == {"install/index": Target("installing")}
    (note,) = table.notes
    assert str(note) == (
        "conf.py:3: [pages] 'install/index.html': the '.html' suffix was dropped: "
        "the key names the page 'install/index'"
    )


def test_the_same_page_twice_with_two_targets_is_an_error_at_the_second() -> None:
    # sphinx-reredirects let the last one silently win (its dirhtml test)
    _, problems = reredirects({"index.html": "/newindex/", "index": "http://new.com/index"})
    assert [str(p) for p in problems] == [
        "conf.py:4: [pages] 'index': the same old name as the entry at conf.py:3 "
        "(which moves it to newindex); an old name may appear only once"
    ]


BAD = {
    "absolute key": ({"/index": "http://new.com/faq/"}, "not absolute"),
    "above the root": ({"faq/old": "../../x.html"}, "leads above the site's root"),
    "query": ({"setup": "install.html?x=1"}, "cannot keep a query string"),
    "only an anchor": ({"setup": "#top"}, "names no page"),
    "unknown placeholder": ({"faq/*": "https://x.org/$page"}, "only $source or ${source}"),
    "ftp": ({"setup": "ftp://x.org/a"}, "http(s) URLs"),
    "not a string": ({"setup": 3}, "must be strings"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_entry_is_one_problem_at_its_conf_line(case: str) -> None:
    mapping, words = BAD[case]
    _, problems = reredirects(mapping)  # type: ignore[arg-type]
    assert len(problems) == 1, problems
    assert str(problems[0].location) == "conf.py:3"
    assert words in problems[0].message
    assert problems[0].fatal


def test_a_redirects_value_that_is_not_a_dict_is_one_problem() -> None:
    converted = convert(
        {"redirects": ["setup"]}, conf_file="conf.py", conf_text="redirects = ['setup']\n",
        srcdir=Path("."),
    )
    assert [str(p) for p in converted.problems] == [
        "conf.py:1: redirects must be a dict of old page → target URL (sphinx-reredirects)"
    ]


def test_placeholder_is_the_whole_matched_docname() -> None:
    # sphinx-reredirects' test_placeholders: $source is the docname, not the part matched
    table, problems = reredirects({"features*": "https://elsewhere/$source.html"})
    assert problems == []
    assert table.locate_page("features/one") == Target(url="https://elsewhere/features/one.html")
    assert table.locate_page("features") == Target(url="https://elsewhere/features.html")
    table, _ = reredirects({"faq/*": "https://new.com/${source}/", "x*": "https://a.org/$$5"})
    assert table.locate_page("faq/one") == Target(url="https://new.com/faq/one/")
    assert table.locate_page("xyz") == Target(url="https://a.org/$5")


def test_a_glob_without_placeholder_and_a_plain_entry() -> None:
    # sphinx-reredirects' test_wildcards, with faq/one and faq/two as documents
    table, problems = reredirects({"faq/*": "http://new.com/faq/", "welcome": "intro.html"})
    assert problems == []
    assert table.locate_page("welcome") == Target("intro")
    assert table.locate_page("faq/gone") == Target(url="http://new.com/faq/")
    documents = {"faq/one", "faq/two", "intro", "index"}
    # the documents it matched, which sphinx-reredirects replaced, stay pages: said once
    assert table.locate_page("faq/one", documents.__contains__) is None
    (shadowed,) = check_against_project(table, documents, lambda path: False)
    assert (str(shadowed.location), shadowed.subtype, shadowed.fatal) == ("conf.py:3", "shadowed",
                                                                         False)
    assert "'faq/one', 'faq/two', which sphinx-reredirects replaced" in shadowed.message


def test_of_two_globs_the_last_written_still_wins() -> None:
    table, problems = reredirects(
        {"faq/*": "https://faq.example/$source", "*": "https://all.example/$source"}
    )
    assert problems == []
    assert [p.glob for p in table.patterns] == ["*", "faq/*"]  # first wins in [patterns]
    assert table.locate_page("faq/one") == Target(url="https://all.example/faq/one")


def test_a_relative_glob_target_is_read_from_the_folder_the_key_names() -> None:
    table, _ = reredirects({"faq/*": "../help/$source.html"})
    assert table.locate_page("faq/one") == Target("help/faq/one")
    (note,) = table.notes
    assert "read from the folder the key names ('faq')" in note.message


def test_keys_are_found_on_their_line_after_the_assignment() -> None:
    text = (
        'relocate_map = {"setup": "x"}\n\n'
        'redirects = {\n    "other": "a.html",\n    "setup": "b.html",\n}\n'
    )
    converted = convert(
        {"redirects": {"other": "a.html", "setup": "b.html", 7: "c"}},
        conf_file="conf.py", conf_text=text, srcdir=Path("."),
    )
    assert [str(row[3]) for row in converted.rows] == ["conf.py:4", "conf.py:5", "conf.py:3"]


# -- sphinxext-rediraffe --------------------------------------------------------------


def redirects_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "redirects.txt"
    path.write_text(text, encoding="utf-8")
    return path


def pairs(tmp_path: Path, text: str) -> dict[str, str]:
    problems: list[Problem] = []
    found = read_rediraffe_file(redirects_file(tmp_path, text), "redirects.txt", problems)
    assert problems == []
    return {old: new for old, new, _, _ in found}


QUOTING = {
    "spacing": ("\n    a  b\n    c d\n    d            e\n", {"a": "b", "c": "d", "d": "e"}),
    "single quotes": ("'a' b\nc 'd'\nd e\n", {"a": "b", "c": "d", "d": "e"}),
    "double quotes": ('"a" "b"\n"c" d\n', {"a": "b", "c": "d"}),
    "comments": ("# a comment\na b\n   # another\nc d\n", {"a": "b", "c": "d"}),
    "a quote that does not close is part of the name": (
        '"a b\nc d\'\nd "e\n"e\' f\'"\n',
        {'"a': "b", "c": "d'", "d": '"e', "\"e'": "f'\""},
    ),
    "spaces and quotes inside quotes": (
        "\"Double Quoted Path\" 'Single Quoted Path'\n"
        "\"Website's Contents\" \"other\"\n"
        "'Store's Contents' other\n"
        "\"quoteskept' \"other\"\n"
        "\"\"I'm ready! I'm ready!\" - Spongebob Squarepants.rst\" \"just why?.rst\"\n",
        {
            "Double Quoted Path": "Single Quoted Path",
            "Website's Contents": "other",
            "Store's Contents": "other",
            "\"quoteskept'": "other",
            "\"I'm ready! I'm ready!\" - Spongebob Squarepants.rst": "just why?.rst",
        },
    ),
}


@pytest.mark.parametrize("case", sorted(QUOTING))
def test_rediraffe_file_format(tmp_path: Path, case: str) -> None:
    text, expected = QUOTING[case]
    assert pairs(tmp_path, text) == expected


def test_rediraffe_bad_line_is_one_problem_at_its_line(tmp_path: Path) -> None:
    problems: list[Problem] = []
    path = redirects_file(tmp_path, "a.rst b.rst\n\nonly-one.rst\nc d  # trailing comment\n")
    found = read_rediraffe_file(path, "redirects.txt", problems)
    assert [(old, line) for old, _, _, line in found] == [("a.rst", "a.rst b.rst")]
    assert [str(p.location) for p in problems] == ["redirects.txt:3", "redirects.txt:4"]
    assert "expected two paths, old and new" in problems[0].message


def test_rediraffe_missing_file_is_one_line(tmp_path: Path) -> None:
    _, problems = rediraffe("fake-redirects.txt", tmp_path)
    assert [str(p) for p in problems] == [
        "fake-redirects.txt: cannot read the rediraffe_redirects file: No such file or directory"
    ]


def test_rediraffe_nested_backslashes_and_mixed_slashes(tmp_path: Path) -> None:
    # rediraffe's nested, backslashes and mixed_slashes projects: the same redirects
    for spelled in (
        "tof1.rst docs/folder1/f1.rst\ndocs/folder1/tof2.rst docs/folder2/f2.rst\n",
        "tof1.rst docs\\folder1\\f1.rst\ndocs\\folder1\\tof2.rst docs\\folder2\\f2.rst\n",
        "tof1.rst docs\\folder1/f1.rst\ndocs/folder1\\tof2.rst docs\\folder2/f2.rst\n",
    ):
        redirects_file(tmp_path, spelled)
        table, problems = rediraffe("redirects.txt", tmp_path)
        assert problems == []
        assert table.pages == {
            "tof1": Target("docs/folder1/f1"),
            "docs/folder1/tof2": Target("docs/folder2/f2"),
        }


def test_rediraffe_paths_as_rediraffe_reads_them(tmp_path: Path) -> None:
    # with or without the suffix, with dots and spaces; and as Windows paths, which
    # have no trailing separator (ubuntu-server-documentation names targets by their
    # dirhtml URL: "security-apparmor how-to/security/apparmor/")
    redirects_file(
        tmp_path, "docs/x.y.z.rst docs/a.b.c.rst\n\"old page.rst\" 'my page.rst'\nbare e\n"
        "security-apparmor how-to/security/apparmor/\nold\\ guide\\.\\new\\\n"
    )
    table, problems = rediraffe("redirects.txt", tmp_path)
    assert problems == []
    assert table.pages == {
        "docs/x.y.z": Target("docs/a.b.c"),
        "old page": Target("my page"),
        "bare": Target("e"),
        "security-apparmor": Target("how-to/security/apparmor"),
        "old": Target("guide/new"),
    }
    assert [str(e.location) for e in table.entries] == [
        f"redirects.txt:{number}" for number in range(1, 6)
    ]


#: rediraffe's complex project: every page of a chain lands on its end
COMPLEX = {
    "f.rst": "c.rst", "q.rst": "w.rst", "F2/1.rst": "x.rst", "c.rst": "d.rst",
    "i.rst": "j.rst", "k.rst": "l.rst", "r.rst": "w.rst", "m.rst": "n.rst", "n.rst": "o.rst",
    "u.rst": "w.rst", "F1/1.rst": "F1/2.rst", "t.rst": "w.rst", "b.rst": "c.rst",
    "g.rst": "d.rst", "h.rst": "g.rst", "p.rst": "z.rst", "a.rst": "b.rst", "d.rst": "e.rst",
    "w.rst": "x.rst", "y.rst": "x.rst", "x.rst": "z.rst", "v.rst": "u.rst",
    "F1/2.rst": "F2/1.rst", "s.rst": "w.rst", "F5/F4/F3/F2/F1/1.rst": "index.rst",
}
LANDS = {
    **dict.fromkeys("abcdfgh", "e"), "i": "j", "k": "l", "m": "o", "n": "o",
    **dict.fromkeys([*"pqrstuvwxy", "F1/1", "F1/2", "F2/1"], "z"), "F5/F4/F3/F2/F1/1": "index",
}


def test_rediraffe_chains_collapse_dict_and_file_alike(tmp_path: Path) -> None:
    redirects_file(tmp_path, "\n".join(f"  {old}   {new}  " for old, new in COMPLEX.items()))
    for setting in (COMPLEX, "redirects.txt"):
        table, problems = rediraffe(setting, tmp_path)
        assert problems == []
        assert {old: str(table.locate_page(old)) for old in LANDS} == LANDS


def test_rediraffe_loops_are_refused_member_by_member(tmp_path: Path) -> None:
    redirects_file(tmp_path, "a.rst b.rst\nb.rst a.rst\n")
    _, problems = rediraffe("redirects.txt", tmp_path)
    assert [str(p) for p in problems] == [
        "redirects.txt:1: relocation cycle: a → b → a (a at redirects.txt:1, b at redirects.txt:2)"
    ]


def test_rediraffe_page_redirected_twice_is_an_error(tmp_path: Path) -> None:
    redirects_file(tmp_path, "another.rst index.rst\nanother.rst index2.rst\n")
    _, problems = rediraffe("redirects.txt", tmp_path)
    assert [str(p.location) for p in problems] == ["redirects.txt:2"]
    assert "the same old name as the entry at redirects.txt:1" in problems[0].message


def test_rediraffe_dict_entries_are_at_their_conf_line() -> None:
    table, problems = rediraffe({"another.rst": "index.rst", "docs\\old.rst": "docs/new.rst"})
    assert problems == []
    assert table.pages == {"another": Target("index"), "docs/old": Target("docs/new")}
    assert [str(e.location) for e in table.entries] == ["conf.py:3", "conf.py:4"]


def test_rediraffe_setting_of_another_type_is_one_problem() -> None:
    _, problems = rediraffe(["a.rst"])
    assert len(problems) == 1
    assert "rediraffe_redirects must be a dict of old → new source paths or the name" in str(
        problems[0]
    )


def test_an_old_page_both_redirect_is_one_problem_only_where_both_write_a_stub(
    tmp_path: Path,
) -> None:
    """The table's entry and a loaded peer's redirect of one old page each write a stub
    there; an old name the table's folder entry sends to no page gets none of ours."""
    from sphinx_relocate.core.peers import doubled_by_peers

    path = tmp_path / "relocations.toml"
    path.write_text('[pages]\n"old" = "page"\n[prefixes]\n"syntax/" = "reference/syntax/"\n',
                    "utf-8")
    table, problems = load_table(path, source_suffixes=(".rst",))
    assert not problems
    served, _ = rediraffe({"old.rst": "page.rst", "syntax/syntax.rst": "page.rst",
                           "syntax/kept.rst": "page.rst", "other.rst": "page.rst"})
    documents = {"page", "reference/syntax/kept"}.__contains__
    found = doubled_by_peers(table, served, documents)
    assert [(p.location.line, p.subtype, p.message.split(" is also")[0]) for p in found] == [
        (2, "stub", "old"), (4, "stub", "syntax/kept")]
