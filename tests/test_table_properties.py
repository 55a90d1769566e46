"""Property tests for the table model and path arithmetic (hypothesis)."""

from __future__ import annotations

import json
import posixpath
import re
import signal
import tempfile
from pathlib import Path
from unittest import mock
from urllib.parse import unquote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sphinx_relocate.core.paths import (
    html_page_path,
    join_relative,
    join_target,
    page_href,
    relative_path,
    split_target,
)
from sphinx_relocate.core.table import Location, load_table
from sphinx_relocate.core.table.load import _Builder
from sphinx_relocate.core.table.reader import LineIndex, _index_rest, index_lines, tomllib
from sphinx_relocate.core.table.sections import CLEAN_PATH, Normalizer

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



# -- the one-pass reader of common tables -------------------------------------------------

#: key and value text, rich in the characters that change their meaning in TOML
_TEXT = st.one_of(
    st.text(alphabet="ab/._-# '\"\\\t\r=[]*安\x00\x7f\u2028", max_size=8),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=6),
)
_KEY = st.one_of(
    st.from_regex(r"[A-Za-z0-9_.-]{1,6}", fullmatch=True),
    _TEXT.map(lambda t: f'"{t}"'),
    _TEXT.map(lambda t: f"'{t}'"),
    _TEXT.map(lambda t: json.dumps(t, ensure_ascii=False)),
)
_GAP = st.sampled_from(["", " ", "\t", "  "])
_COMMENT = st.one_of(st.just(""), _TEXT.map(lambda t: f"#{t}"))
_LINE = st.one_of(
    st.tuples(_GAP, _KEY, _GAP, _GAP, _KEY, _GAP, _COMMENT).map(
        lambda p: f"{p[0]}{p[1]}{p[2]}={p[3]}{p[4]}{p[5]}{p[6]}"
    ),
    st.tuples(_GAP, st.one_of(st.sampled_from(["pages", "files", "[pages]"]), _KEY), _COMMENT)
    .map(lambda p: f"{p[0]}[{p[1]}]{p[2]}"),
    _COMMENT,
    _TEXT,
)


@settings(max_examples=400)
@given(st.lists(_LINE, max_size=8), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
@example(["[']#']"], "\n", True)  # a quoted section name with "]" and "#" in it
@example(["[pages]", '"a" = "b"'], "\n", False)  # no line break at the end
def test_the_one_pass_reader_reads_as_tomllib(
    lines: list[str], newline: str, ends_with_newline: bool
) -> None:
    """Whatever the one-pass reader accepts, tomllib reads the same, at the lines the
    index of any other text gives."""
    text = newline.join(lines) + (newline if ends_with_newline else "")
    scanned = _scanned(text)
    if scanned is None:
        return  # tomllib reads it, as before
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise AssertionError(f"accepted what tomllib refuses: {err}") from None
    document, positions = scanned
    assert document == expected
    assert positions == _indexed(text).positions


def _indexed(text: str) -> LineIndex:
    """The line index of ``text`` as the pass makes it for a text tomllib reads."""
    lines = text.split("\n")
    if "\r" in text:
        lines[:-1] = [line[:-1] if line.endswith("\r") else line for line in lines[:-1]]
    index = LineIndex()
    _index_rest(lines, 1, None, index.positions)
    return index


def _scanned(
    text: str,
) -> tuple[dict[str, dict[str, object]], dict[tuple[str, str | None], int]] | None:
    """What the one-pass reader read, as tomllib's document and the line index."""
    scanned = index_lines(text, "t.toml")
    if scanned.rows is None:
        return None
    headers, rows = scanned.headers, scanned.rows
    document: dict[str, dict[str, object]] = {section: {} for section, _ in headers}
    positions: dict[tuple[str, str | None], int] = {(s, None): line for s, line in headers}
    for section, key, value, location in rows:
        assert location.file == "t.toml"
        document[section][str(key)] = value
        positions[section, str(key)] = location.line
    return document, positions


def test_a_common_table_is_read_in_one_pass() -> None:
    """The fast path is the one nearly every table takes (so the property above holds
    where it matters): headers, quoted and bare keys, comments, CRLF."""
    text = (
        "# moved in the 2.0 reorganization\r\n[pages]\r\n"
        '"guide/install.md" = "manual/install"  # the whole chapter\r\n'
        "faq = 'help/faq#top'\r\n\r\n[ prefixes ]\r\n\"api/\" = \"reference/\"\r\n"
    )
    scanned = _scanned(text)
    assert scanned is not None
    assert scanned[0] == tomllib.loads(text)
    assert scanned[1] == {
        ("pages", None): 2, ("pages", "guide/install.md"): 3, ("pages", "faq"): 4,
        ("prefixes", None): 6, ("prefixes", "api/"): 7,
    }


@pytest.mark.parametrize(
    "text",
    [
        '[pages]\n"a" = "b"\n"a" = "c"\n',  # a duplicate key: tomllib's error
        '[pages]\n"a" = "b\\u00e9"\n',  # an escape
        '[patterns]\n"v1/*" = { to = "new", replace = true }\n',  # an inline table
        'pages."a" = "b"\n',  # a dotted top-level key
        '[pages]\n"a" = """b"""\n',  # a multi-line string
        "[pages]\n[pages]\n",  # a header twice
    ],
)
def test_other_tables_go_to_tomllib(text: str) -> None:
    assert index_lines(text, "t.toml").rows is None


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=12), st.text(max_size=12), max_size=6))
def test_the_table_is_the_same_by_either_reader(
    pages: dict[str, str],
) -> None:
    """Validation does not depend on the reader: the same entries, problems and lines."""
    lines = ["[pages]"] + [
        f"{json.dumps(k, ensure_ascii=False)} = {json.dumps(v, ensure_ascii=False)}"
        for k, v in pages.items()
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "relocations.toml")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        fast = load_table(path)
        with mock.patch("sphinx_relocate.core.table.reader.index_lines",
                        lambda text, name: _indexed(text)):
            slow = load_table(path)
    assert fast[0].entries == slow[0].entries
    assert [str(p) for p in fast[1]] == [str(p) for p in slow[1]]


@settings(max_examples=300)
@given(st.text(alphabet="ab./\\:C", max_size=10))
def test_a_clean_path_is_one_check_path_keeps(text: str) -> None:
    """The shortcut in ``check_path`` takes only paths the full check returns as they are."""
    problems: list[object] = []
    with mock.patch("sphinx_relocate.core.table.sections.CLEAN_PATH", re.compile("(?!)")):
        checked = Normalizer((".md",), problems).check_path(text, Location("t"), "l")  # type: ignore[arg-type]
    if CLEAN_PATH.fullmatch(text):
        assert (checked, problems) == (text, [])


_PAGE_TEXT = st.text(alphabet="ab./\\:#*? \t.mdhtl", max_size=12)


@settings(max_examples=400)
@given(st.lists(st.tuples(_PAGE_TEXT, _PAGE_TEXT), max_size=5))
def test_the_short_way_for_plain_pages_keeps_what_the_checks_keep(
    rows: list[tuple[str, str]],
) -> None:
    """``[pages]``' shortcut skips the checks for plain page names: the same entries and
    problems as when every row goes through them."""

    def build() -> tuple[list[object], list[str]]:
        problems: list[object] = []
        builder = _Builder((".md", ".rst"), problems)  # type: ignore[arg-type]
        builder.add_all(
            ("pages", key, value, Location("t.toml", line))
            for line, (key, value) in enumerate(rows, 1)
        )
        return list(builder.entries.values()), [str(p) for p in problems]

    short = build()
    with mock.patch("sphinx_relocate.core.table.sections.PLAIN_PAGE", re.compile("(?!)")):
        checked = build()
    assert short == checked


def _chain(table, name: str) -> list[str]:
    """The pages ``[pages]`` leads ``name`` through, one entry at a time (no cycles)."""
    seen, path = [name], name
    while (step := table.pages.get(path)) is not None and not step.url:
        path = step.path
        if path in seen:
            break
        seen.append(path)
    return seen[1:]


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(DOCNAME, DOCNAME, max_size=8), st.lists(DOCNAME, max_size=4))
def test_old_names_are_the_entries_whose_chain_passes_the_page(pages, probes) -> None:
    """``old_names`` (a set difference per step, not a test per name) finds exactly the
    ``[pages]`` keys whose chain reaches the page."""
    table, _ = load_text(toml_of(pages, {}))
    for docname in {*pages.values(), *probes}:
        expected = sorted(k for k in table.pages if k != docname and docname in _chain(table, k))
        assert list(table.old_names(docname)) == expected, docname


def _passes(table, name: str, docname: str) -> bool:
    """Whether the table's steps lead ``name`` through ``docname`` (at most 50 steps)."""
    path = name
    for _ in range(50):
        step = table.pages.get(path) or table.prefix_step(path)
        if step is None or step.url:
            return False
        path = step.path
        if path == docname:
            return True
    return False


# entries that feed each other: a/b/ → a/a/ → a/ made a/b/b/x, a/a/b/b/x, … for ever
@example(ups=[("a", "a")], prefixes={"a": "a", "a/b": "a/a"}, probes=["a"])
@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(DOCNAME, SEGMENT), min_size=1, max_size=3),
    st.dictionaries(DOCNAME, DOCNAME, max_size=3),
    st.lists(DOCNAME, min_size=1, max_size=4),
)
def test_old_names_end_where_folders_moved_up(ups, prefixes, probes) -> None:
    """A folder moved into its parent (``guide/old/`` → ``guide/``, as ``from-git``
    derives for a flattened folder) sends ``guide/old/old/a`` there too, one step at a
    time: the walk back from ``guide/a`` nested deeper for ever, and the build hung
    (JupyterHub's 2023 reorganization).  It ends, and every name it finds leads to the
    page."""
    moved = {**prefixes, **{f"{parent}/{child}": parent for parent, child in ups}}
    table, _ = load_text(toml_of({}, moved))

    def hung(*_: object) -> None:
        raise TimeoutError("old_names did not end")

    for docname in {*probes, *(f"{parent}/x" for parent, _ in ups)}:
        before = signal.signal(signal.SIGALRM, hung)  # a hang fails, it does not stall the run
        signal.setitimer(signal.ITIMER_REAL, 10)
        try:
            found = table.old_names(docname)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, before)
        assert all(_passes(table, name, docname) for name in found), (docname, found)
        if table.prefix_step(docname) is not None:
            continue  # not a page of the new layout: a name a move left behind
        for parent, child in ups:  # the name the move made is found
            if docname.startswith(f"{parent}/"):
                old = f"{parent}/{child}/{docname[len(parent) + 1:]}"
                if table.prefix_step(old) is not None and _passes(table, old, docname):
                    assert old in found, (docname, old, found)


@pytest.mark.parametrize(
    "line",
    [" " * 100_000 + "x", "\t " * 50_000 + "=", '"a"' + " " * 100_000 + "=", "[" + " " * 100_000],
)
def test_a_long_line_of_blanks_is_read_in_one_pass(line: str) -> None:
    """The reader's pattern has no two runs of white space side by side: a search over
    such a line would try every split of it (this took minutes with one that had)."""
    assert index_lines(f"[pages]\n{line}\n", "t.toml").rows is None
    index = index_lines(f"[pages]\n\"a\" = \"b\"{' ' * 100_000}# c\n", "t.toml")
    assert (index.headers, index.rows) == (
        [("pages", 1)], [("pages", "a", "b", Location("t.toml", 2))]
    )
