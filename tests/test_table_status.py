"""``status = 302``: an entry of ``[pages]``, ``[prefixes]`` or ``[patterns]`` may ask
its server rules to answer "found" while a move is tentative."""

from __future__ import annotations

import pickle
from pathlib import Path

from sphinx_relocate.core.table import RelocationTable, load_table

TABLE = (
    '[pages]\n"plain" = "new"\n"tentative" = { to = "new", status = 302 }\n'
    '"for-good" = { to = "new", status = 301 }\n'
    '[prefixes]\n"guide/" = { to = "manual/", status = 302 }\n"old/" = "new-folder/"\n'
    '[patterns]\n"faq/*" = { to = "help/$source", status = 302 }\n'
    '"v1/*" = { to = "v2/$source", replace = true }\n'
)


def load(tmp_path: Path, text: str = TABLE) -> RelocationTable:
    path = tmp_path / "relocations.toml"
    path.write_text(text, encoding="utf-8")
    table, problems = load_table(path)
    assert not problems, problems
    return table


def test_each_entry_has_the_status_it_asked_for(tmp_path: Path) -> None:
    table = load(tmp_path)
    statuses = {e.old: e.status for e in table.entries}
    assert statuses == {
        "plain": 301, "tentative": 302, "for-good": 301, "guide/": 302, "old/": 301,
        "faq/*": 302, "v1/*": 301,
    }
    assert table.locate_page("tentative") == table.locate_page("plain")


def test_the_status_of_a_name_is_its_first_steps_entry(tmp_path: Path) -> None:
    table = load(tmp_path)
    assert [table.status_of(name) for name in (
        "plain", "tentative", "guide/a/b", "guide/", "old/a", "faq/x", "v1/x", "elsewhere"
    )] == [301, 302, 302, 302, 301, 302, 301, 301]


def test_a_table_without_302_answers_301_for_every_name(tmp_path: Path) -> None:
    table = load(tmp_path, '[pages]\n"a" = "b"\n[prefixes]\n"x/" = "y/"\n')
    assert not table.temporary
    assert table.status_of("a") == table.status_of("x/z") == 301


def test_the_status_survives_pickling_and_changes_the_digest(tmp_path: Path) -> None:
    table = load(tmp_path)
    back = pickle.loads(pickle.dumps(table, pickle.HIGHEST_PROTOCOL))
    assert back.entries == table.entries and back.status_of("faq/x") == 302
    assert back.status_of("guide/a") == 302
    permanent = load(tmp_path, TABLE.replace(", status = 302", ""))
    assert permanent.digest != table.digest
    # a 301 written out is the default: the digest of the plain spelling
    assert load(tmp_path, '[pages]\n"a" = { to = "b", status = 301 }\n').digest == load(
        tmp_path, '[pages]\n"a" = "b"\n'
    ).digest


def test_one_move_with_two_statuses_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "relocations.toml"
    path.write_text('[pages]\n"a" = "b"\n"a.md" = { to = "b", status = 302 }\n', "utf-8")
    _, problems = load_table(path, display_name="t.toml")
    assert [str(p.location) for p in problems] == ["t.toml:3"]
    assert "the same old name" in problems[0].message
