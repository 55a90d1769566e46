"""The table as a package: sections as one registry, a frozen table, one TOML reader."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from sphinx_relocate.core.table import SECTIONS, RelocationTable, check_against_project, load_table

PACKAGE = Path(__file__).parent.parent / "sphinx_relocate" / "core" / "table"
DOCS = Path(__file__).parent.parent / "docs" / "table.md"

TABLE = """\
[pages]
"a" = "b"
"b" = "c"
"guide/Old.html" = "guide/new#top"
"GUIDE/old" = "guide/new"
[prefixes]
"api/" = "reference/"
[files]
"img/x.png" = "img/y.png"
[anchors]
"c#one" = "c#two"
[labels]
"old-label" = "new-label"
[patterns]
"faq/*" = "help/$source"
"""


@pytest.fixture
def loaded(tmp_path: Path) -> RelocationTable:
    path = tmp_path / "relocations.toml"
    path.write_text(TABLE, "utf-8")
    table, problems = load_table(path)
    assert not [p for p in problems if p.fatal], problems
    return table


def test_every_section_is_documented_as_the_registry_says() -> None:
    """docs/table.md's example names each section with the registry's line, and its
    "Sections" part defines each one."""
    text = DOCS.read_text("utf-8")
    for section in SECTIONS.values():
        assert re.search(rf"^\[{section.name}\] +# {re.escape(section.doc)}$", text, re.M), section
        assert f"\n`[{section.name}]`\n: " in text, section.name


def test_an_unknown_section_names_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "relocations.toml"
    path.write_text('[page]\n"a" = "b"\n', "utf-8")
    _, problems = load_table(path)
    assert [str(p) for p in problems] == [
        f"{path}:1: unknown section [page] (expected one of: "
        + ", ".join(f"[{name}]" for name in SECTIONS) + ")"
    ]


def test_a_table_is_frozen(loaded: RelocationTable) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded.pages = {}  # type: ignore[misc]


def test_lookups_change_nothing_on_the_table(loaded: RelocationTable) -> None:
    """What a table holds is built at construction: lookups and checks add no cache
    (only the walks remembered in its memo, which change no answer)."""
    fields = [f.name for f in dataclasses.fields(loaded) if f.name != "_memos"]
    before = {name: getattr(loaded, name) for name in fields}
    copies = {name: repr(value) for name, value in before.items()}
    documents = {"c", "guide/new", "reference/x", "help/faq/q"}
    loaded.locate_page("a", documents.__contains__)
    loaded.locate_reference("c", "one", documents.__contains__)
    loaded.locate_label("old-label")
    loaded.old_names("c")
    loaded.location_of("api/x")
    _ = loaded.digest
    check_against_project(loaded, documents, lambda _: False)
    assert set(vars(loaded)) == {f.name for f in dataclasses.fields(loaded)}
    for name in fields:
        assert getattr(loaded, name) is before[name], name
        assert repr(getattr(loaded, name)) == copies[name], name


def test_what_the_load_found_is_given_at_construction(loaded: RelocationTable) -> None:
    assert [n.subtype for n in loaded.notes] == ["note"]
    assert [w.subtype for w in loaded.warnings] == ["case_collision"]


def test_a_pickled_table_is_the_same_table(loaded: RelocationTable) -> None:
    import pickle

    back = pickle.loads(pickle.dumps(loaded))
    assert back == loaded
    assert (back.reverse_pages, back.folders) == (loaded.reverse_pages, loaded.folders)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"tuple\.__new__", "entries are made by their constructors"),
        (r"==\s*\"(pages|prefixes|files|anchors|labels|patterns)\"",
         "what a section does is its registry entry, not a test of its name"),
        (r"__dict__", "a table is frozen: nothing is cached on it"),
    ],
)
def test_the_package_keeps_its_rules(pattern: str, why: str) -> None:
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.glob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if re.search(pattern, line)
    ]
    assert found == [], why
