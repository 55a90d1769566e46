"""Long chains are collapsed once: loading, checking and looking up an n-step chain
take work linear in n (issue 23: 10,000 steps took 30 s to build, 20,000 53 s)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinx_relocate.core.stubs import old_page_landings
from sphinx_relocate.core.table import RelocationTable, Target, check_against_project, load_table

STEPS = 20_000


class CountingDict(dict[str, Target]):
    """``[pages]`` that counts the lookups a chain walk makes."""

    gets = 0

    def get(self, key: str, default: Target | None = None) -> Target | None:  # type: ignore[override]
        CountingDict.gets += 1
        return super().get(key, default)


def chain_table(tmp_path: Path, steps: int) -> tuple[RelocationTable, float]:
    text = "[pages]\n" + "".join(f'"p{i}" = "p{i + 1}"\n' for i in range(steps))
    path = tmp_path / "relocations.toml"
    path.write_text(text + f'"p{steps}" = "new#end"\n', "utf-8")
    started = time.perf_counter()
    table, problems = load_table(path)
    assert problems == []
    return table, time.perf_counter() - started


def test_a_long_chain_is_followed_in_linear_steps(tmp_path: Path) -> None:
    table, seconds = chain_table(tmp_path, STEPS)
    assert seconds < 5  # 0.1 s here; quadratic, the first walk took minutes
    table = dataclasses.replace(table, pages=CountingDict(table.pages))
    CountingDict.gets = 0
    documents = {"new"}
    assert check_against_project(table, documents, lambda _: False) == []
    landings = old_page_landings(table, documents)
    assert len(landings) == STEPS + 1
    assert set(landings.values()) == {Target("new", "end")}
    for old in list(table.pages)[::97]:
        assert table.locate_reference(old, "x", documents.__contains__) == Target("new", "end")
    # each entry's chain is walked once, whatever the number of lookups
    assert CountingDict.gets < 4 * STEPS  # three passes over the table: about 3n


def test_a_table_that_changes_answers_is_walked_again(tmp_path: Path) -> None:
    """The memory of walks is per set of documents: a page that appears stops the chain."""
    table, _ = chain_table(tmp_path, 50)
    assert table.locate_page("p0", {"new"}.__contains__) == Target("new", "end")
    assert table.locate_page("p0", {"new", "p30"}.__contains__) == Target("p30")
    assert table.locate_page("p0") == Target("new", "end")
    assert table.locate_page("p40", lambda name: name == "p45") == Target("p45")


_NAME = st.sampled_from(["a", "b", "c", "d", "e", "new"])


@given(
    st.dictionaries(_NAME, st.tuples(_NAME, st.sampled_from(["", "x", "y"])), max_size=6),
    st.sets(_NAME),
    st.lists(_NAME, max_size=6),
)
def test_remembered_walks_answer_as_fresh_ones(
    moves: dict[str, tuple[str, str]], documents: set[str], order: list[str]
) -> None:
    """Any order of lookups gives what a table with no memory gives (cycles included:
    this table is made without load_table's checks)."""
    entries = [("pages", old, Target(new, anchor)) for old, (new, anchor) in moves.items()]
    from sphinx_relocate.core.table import Entry, Location

    def fresh() -> RelocationTable:
        return RelocationTable.of_entries(
            Entry(section, old, target, Location("t", 1)) for section, old, target in entries
        )

    remembered = fresh()
    exists = documents.__contains__
    for name in [*order, *moves]:
        expected = fresh().locate_page(name, exists)
        assert remembered.locate_page(name, exists) == expected, name
        assert remembered.locate_page(name) == fresh().locate_page(name), name


@pytest.mark.parametrize(
    "anchors",
    [
        '"new#a" = "new#b"\n"new#b" = "new#a"\n',
        '"new#a" = "new#b"\n"new#b" = "other#c"\n"other#c" = "new#a"\n',
        '"new#a" = "#b"\n"new#b" = "#a"\n',
    ],
)
def test_anchor_cycles_are_refused(tmp_path: Path, anchors: str) -> None:
    path = tmp_path / "relocations.toml"
    path.write_text("[anchors]\n" + anchors, "utf-8")
    _, problems = load_table(path, display_name="relocations.toml")
    assert len(problems) == 1 and problems[0].fatal
    assert str(problems[0]).startswith("relocations.toml:2: relocation cycle: new#a → ")


def test_anchor_chains_without_a_cycle_load(tmp_path: Path) -> None:
    path = tmp_path / "relocations.toml"
    path.write_text('[anchors]\n"new#a" = "new#b"\n"new#b" = "new#c"\n', "utf-8")
    assert load_table(path)[1] == []


class CountingLabels(dict[str, str]):
    gets = 0

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        CountingLabels.gets += 1
        return super().get(key, default)


def test_a_long_label_chain_is_followed_in_linear_steps(tmp_path: Path) -> None:
    from sphinx_relocate.core.table import check_labels

    path = tmp_path / "relocations.toml"
    path.write_text("[labels]\n" + "".join(f'"l{i}" = "l{i + 1}"\n' for i in range(STEPS)))
    table, problems = load_table(path)
    assert problems == []
    table = dataclasses.replace(table, labels=CountingLabels(table.labels))
    CountingLabels.gets = 0
    assert check_labels(table, {f"l{STEPS}"}) == []
    assert table.locate_label("l0", {"l7"}.__contains__) == "l7"  # other answers: walked anew
    assert table.locate_label("l0") == f"l{STEPS}"
    assert CountingLabels.gets < 4 * STEPS


@given(st.dictionaries(_NAME, _NAME, max_size=6), st.sets(_NAME), st.lists(_NAME, max_size=6))
def test_remembered_label_walks_answer_as_fresh_ones(
    moves: dict[str, str], labels: set[str], order: list[str]
) -> None:
    from sphinx_relocate.core.table import Entry, Location

    def fresh() -> RelocationTable:
        return RelocationTable.of_entries(
            Entry("labels", old, Target(new), Location("t", 1)) for old, new in moves.items()
        )

    remembered = fresh()
    for name in [*order, *moves]:
        assert remembered.locate_label(name, labels.__contains__) == fresh().locate_label(
            name, labels.__contains__
        ), name
        assert remembered.locate_label(name) == fresh().locate_label(name), name
