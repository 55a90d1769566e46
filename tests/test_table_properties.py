"""Property tests for the table model and path arithmetic (hypothesis)."""

from __future__ import annotations

import json
import posixpath
import tempfile
from pathlib import Path
from urllib.parse import unquote

from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_relocate._paths import (
    html_page_path,
    join_relative,
    join_target,
    page_href,
    relative_path,
    split_target,
)
from sphinx_relocate._table import load_table

SEGMENT = st.sampled_from(["a", "b", "c", "guide", "安装", "Ep", "ep", "index"])
DOCNAME = st.lists(SEGMENT, min_size=1, max_size=4).map("/".join)
FOLDER = st.lists(SEGMENT, min_size=0, max_size=3).map("/".join)


def toml_of(pages: dict[str, str], prefixes: dict[str, str]) -> str:
    lines = ["[pages]"]
    lines += [
        f"{json.dumps(k, ensure_ascii=False)} = {json.dumps(v, ensure_ascii=False)}"
        for k, v in pages.items()
    ]
    lines.append("[prefixes]")
    lines += [
        f"{json.dumps(k + '/', ensure_ascii=False)} = {json.dumps(v + '/', ensure_ascii=False)}"
        for k, v in prefixes.items()
    ]
    return "\n".join(lines) + "\n"


def load_text(text: str):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.toml"
        path.write_text(text, encoding="utf-8")
        return load_table(path, display_name="t.toml")


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(DOCNAME, DOCNAME, max_size=6),
    st.dictionaries(DOCNAME, DOCNAME, max_size=3),
    st.lists(DOCNAME, max_size=6),
)
def test_resolving_never_yields_a_name_that_moves_on(pages, prefixes, probes) -> None:
    table, problems = load_text(toml_of(pages, prefixes))
    assert all("\n" not in str(p) for p in problems)
    for name in [*pages, *probes]:
        found = table.locate_page(name)
        if found is not None and not found.url:
            assert table.locate_page(found.path) is None, (name, found)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(DOCNAME, DOCNAME, max_size=6), st.dictionaries(DOCNAME, DOCNAME, max_size=3))
def test_normalization_is_idempotent(pages, prefixes) -> None:
    table, _ = load_text(toml_of(pages, prefixes))
    again, problems = load_text(
        toml_of(
            {e.old: str(e.new) for e in table.entries if e.section == "pages"},
            {
                e.old.rstrip("/"): e.new.path.rstrip("/")
                for e in table.entries
                if e.section == "prefixes"
            },
        )
    )
    assert not [p for p in problems if p.fatal]
    assert again.digest == table.digest


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_problems_not_exceptions(text) -> None:
    _, problems = load_text(text)
    for problem in problems:
        assert str(problem).startswith("t.toml")
        assert "\n" not in str(problem)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.one_of(st.text(max_size=12), st.integers()),
        st.one_of(st.text(max_size=12), st.integers(), st.none()),
        max_size=5,
    )
)
def test_any_mapping_gives_problems_not_exceptions(mapping) -> None:
    load_table(None, mapping, mapping_text="relocate_map = {}\n")


@given(FOLDER, DOCNAME)
def test_relative_path_round_trips(folder, path) -> None:
    assert join_relative(folder, relative_path(folder, path)) == path


WRITTEN = st.lists(st.sampled_from(["a", "b.md", ".", "..", "", ".x", "x."]), max_size=5).map(
    "/".join
)


@given(FOLDER, WRITTEN, st.booleans())
def test_join_relative_is_normpath_of_the_join(folder, written, absolute) -> None:
    """The shortcut for paths without "." or ".." parts agrees with ``normpath``."""
    written = "/" + written if absolute else written
    if written.startswith("/"):  # from the source root
        joined = written.lstrip("/")
    else:
        joined = posixpath.join(folder, written) if folder else written
    expected = posixpath.normpath(joined) if joined else ""
    assert join_relative(folder, written) == ("" if expected == "." else expected)


@given(FOLDER, DOCNAME, st.booleans())
def test_page_url_leads_to_the_page_file(from_folder, to_docname, dirhtml) -> None:
    from_file = posixpath.join(from_folder, "page.html") if from_folder else "page.html"
    url = unquote(page_href(from_file, to_docname, dirhtml=dirhtml))
    assert not url.startswith("/") and "//" not in url
    landed = posixpath.normpath(posixpath.join(posixpath.dirname(from_file), url))
    if url.endswith("/"):
        landed = posixpath.normpath(posixpath.join(landed, "index.html"))
    assert landed == html_page_path(to_docname, dirhtml=dirhtml)


@given(st.text(alphabet="ab/.?#%", max_size=20))
def test_split_and_join_target(target) -> None:
    path, query, fragment = split_target(target)
    if (not query or "?" in target) and (not fragment or "#" in target):
        rebuilt = join_target(path, query, fragment)
        assert split_target(rebuilt) == (path, query, fragment)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=15), st.text(max_size=15), max_size=5))
def test_every_entry_and_problem_has_a_line(pages) -> None:
    lines = ["# comment", "[pages]"]
    lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in pages.items()]
    table, problems = load_text("\n".join(lines) + "\n")
    for entry in table.entries:
        assert entry.location.line > 2, entry
    for problem in problems:
        assert problem.location.line > 0, problem
