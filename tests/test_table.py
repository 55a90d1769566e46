"""The relocation table model: parsing, validation, lookups (no Sphinx involved)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_relocate.core.table import Target, load_table

REORG = """\
# the real-world example of the design notes
[pages]
"features/fsdp2" = "features/parallel/fsdp2"
"features/EP_balance.md" = "features/parallel/ep_balance.md"
"features/特性总览" = "introduction/feature_overview"
"pytorch/old_page" = "https://example.org/elsewhere"
"guides/install_guide" = "guides/installation/install_guide"
"merged" = "guides/installation/install_guide#merged-section"

[prefixes]
"pytorch/" = "guides/"
"features" = "features/parallel"

[files]
"img/logo.png" = "_static/logo.png"

[anchors]
"pytorch/install_guide#方式二源码安装" = "guides/installation/install_guide#source-install"
"guides/installation/install_guide#old-heading" = "#new-heading"
"""


def load_text(tmp_path: Path, text: str, **kwargs: object):
    path = tmp_path / "relocations.toml"
    path.write_text(text, encoding="utf-8")
    return load_table(path, display_name="relocations.toml", **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def reorg(tmp_path: Path):
    table, problems = load_text(tmp_path, REORG)
    assert problems == []
    return table


def test_pages_accept_suffixes_and_unicode(reorg) -> None:
    assert reorg.locate_page("features/EP_balance") == Target("features/parallel/ep_balance")
    assert reorg.locate_page("features/特性总览") == Target("introduction/feature_overview")


def test_pages_beat_prefixes_and_chains_collapse(reorg) -> None:
    # pytorch/install_guide → (prefix) guides/install_guide → (page) guides/installation/…
    assert reorg.locate_page("pytorch/install_guide") == Target("guides/installation/install_guide")
    assert reorg.locate_page("pytorch/quick") == Target("guides/quick")
    assert reorg.locate_page("pytorch/old_page") == Target(url="https://example.org/elsewhere")


def test_folder_moved_into_its_own_subfolder_does_not_loop(reorg) -> None:
    assert reorg.locate_page("features/other") == Target("features/parallel/other")
    assert reorg.locate_page("features/parallel/other") is None


def test_glob_patterns_follow_prefixes_only(reorg) -> None:
    assert reorg.locate_pattern("pytorch/*") == Target("guides/*")
    assert reorg.locate_pattern("pytorch/sub/*.md") == Target("guides/sub/*.md")
    assert reorg.locate_pattern("features/parallel/*") is None  # made by the move itself
    assert reorg.locate_pattern("guides/*") is None
    assert reorg.locate_pattern("merged*") is None  # [pages] entries name single pages


def test_exists_stops_the_chain_at_a_real_page(reorg) -> None:
    found = reorg.locate_page("pytorch/install_guide", exists={"guides/install_guide"}.__contains__)
    assert found == Target("guides/install_guide")


def test_unmoved_page_is_none(reorg) -> None:
    assert reorg.locate_page("index") is None
    assert reorg.locate_reference("index", "intro") is None


def test_anchor_mapping(reorg) -> None:
    moved = reorg.locate_reference("pytorch/install_guide", "方式二源码安装")
    assert moved == Target("guides/installation/install_guide", "source-install")
    # an unmapped fragment is kept
    kept = reorg.locate_reference("pytorch/install_guide", "other")
    assert kept == Target("guides/installation/install_guide", "other")
    # an anchor renamed on the new page applies after the page move, and '#id' means same page
    renamed = reorg.locate_reference("pytorch/install_guide", "old-heading")
    assert renamed == Target("guides/installation/install_guide", "new-heading")
    # a heading renamed on a page that did not move
    same_page = reorg.locate_reference("guides/installation/install_guide", "old-heading")
    assert same_page == Target("guides/installation/install_guide", "new-heading")


def test_target_with_anchor_wins_over_unmapped_fragment(reorg) -> None:
    assert reorg.locate_reference("merged", "x") == Target(
        "guides/installation/install_guide", "merged-section"
    )


def test_files_and_prefixed_files(reorg) -> None:
    assert reorg.locate_file("img/logo.png") == Target("_static/logo.png")
    assert reorg.locate_file("pytorch/img/a.png") == Target("guides/img/a.png")


def test_old_names_reverse_pages_and_prefixes(reorg) -> None:
    assert "features/fsdp2" in reorg.old_names("features/parallel/fsdp2")
    assert reorg.old_names("guides/quick") == ("pytorch/quick",)
    assert set(reorg.old_names("guides/installation/install_guide")) >= {
        "guides/install_guide",
        "pytorch/install_guide",
        "merged",
    }


def test_digest_ignores_comments_and_order(tmp_path: Path, reorg) -> None:
    shuffled = "\n".join(reversed(REORG.splitlines())).replace("# the real-world", "# x")
    # reversing lines breaks sections, so build an equivalent table by hand
    other, _ = load_text(
        tmp_path,
        "[anchors]\n"
        '"guides/installation/install_guide#old-heading" = "#new-heading"\n'
        '"pytorch/install_guide#方式二源码安装" = '
        '"guides/installation/install_guide#source-install"\n'
        + REORG.split("[anchors]")[0].replace("# the real-world example", "# comment"),
    )
    assert shuffled and other.digest == reorg.digest
    changed, _ = load_text(tmp_path, REORG.replace("features/parallel/fsdp2", "features/fsdp"))
    assert changed.digest != reorg.digest


def test_relocate_map_merges_with_the_file(tmp_path: Path) -> None:
    table, problems = load_text(
        tmp_path,
        '[pages]\n"a" = "b"\n',
        mapping={"a": "b", "c": "d"},
        mapping_text='relocate_map = {\n    "a": "b",\n    "c": "d",\n}\n',
    )
    assert problems == []
    assert table.locate_page("c") == Target("d")
    assert str(table.location_of("c")) == "conf.py:3"


def test_relocate_map_conflict_is_an_error(tmp_path: Path) -> None:
    _, problems = load_text(tmp_path, '[pages]\n"a" = "b"\n', mapping={"a": "z"})
    assert len(problems) == 1
    assert "the same old name as the entry at relocations.toml:2" in str(problems[0])


def test_missing_file_is_one_problem(tmp_path: Path) -> None:
    _, problems = load_table(tmp_path / "nope.toml")
    assert len(problems) == 1
    assert "cannot read the relocation table: " in problems[0].message


def test_a_table_pickles_as_rows_and_comes_back_equal(tmp_path: Path) -> None:
    """Sphinx keeps the table in its environment: every section survives, lookups too."""
    import pickle

    path = tmp_path / "relocations.toml"
    path.write_text(
        '[pages]\n"a" = "b#top"\n"gone" = "https://example.org/x"\n'
        '[prefixes]\n"old/" = "new/"\n[files]\n"img/a.png" = "static/a.png"\n'
        '[anchors]\n"b#old" = "b#new"\n[labels]\n"old-label" = "new-label"\n'
        '[patterns]\n"v1/*" = { to = "new/$source", replace = true }\n',
        encoding="utf-8",
    )
    table, problems = load_table(path)
    assert not problems
    table.locate_page("old/x")  # fills a lookup cache, which is not pickled
    data = pickle.dumps(table, pickle.HIGHEST_PROTOCOL)
    back = pickle.loads(data)
    assert back == table
    assert back.entries == table.entries and back.digest == table.digest
    assert back.locate_page("v1/intro") == table.locate_page("v1/intro")
    assert b"_prefix_index" not in data and b"Entry" not in data
