"""``sphinx-relocate from-git``: derive the table from git renames, merge it by text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from reorg_fixture import (
    EXPECTED_DELETED,
    EXPECTED_FILES,
    EXPECTED_PAGES,
    git,
    make_reorganized_repo,
)

from sphinx_relocate._cli import main
from sphinx_relocate._git import Derived, merge_into, render

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "repo"
    base = make_reorganized_repo(root)
    monkeypatch.chdir(root)
    return root, base


def test_from_git_derives_exactly_the_reorganization(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    index_before = (root / ".git/index").read_bytes()
    assert main(["from-git", "docs/zh", "--since", base]) == 0
    out, err = capsys.readouterr()
    data = tomllib.loads(out)
    assert data == {"pages": EXPECTED_PAGES, "files": EXPECTED_FILES}
    for docname in EXPECTED_DELETED:
        assert f'# "{docname}" = ""  # deleted: needs a target' in out
    assert "docs/zh/pytorch/old_page: page deleted without a rename" in err
    assert (root / ".git/index").read_bytes() == index_before  # the user's index is untouched
    assert "?? docs/zh/introduction/" in git(root, "status", "--short")


def test_without_since_only_uncommitted_moves(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["from-git", "docs/zh"]) == 0
    data = tomllib.loads(capsys.readouterr().out)
    assert set(data["pages"]) == {"features/EP_balance", "features/特性总览", "release_notes"}


def test_similarity_threshold(repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, base = repo
    page = root / "docs/zh/features/ep_balance.md"
    page.write_text(page.read_text(encoding="utf-8") + "A new paragraph of text.\n" * 3,
                    encoding="utf-8")
    assert main(["from-git", "docs/zh", "--since", base, "--similarity", "95"]) == 0
    out, err = capsys.readouterr()
    assert "features/EP_balance" not in tomllib.loads(out)["pages"]
    assert "features/EP_balance: page deleted" in err
    assert main(["from-git", "docs/zh", "--since", base, "--similarity", "30%"]) == 0
    assert "features/EP_balance" in tomllib.loads(capsys.readouterr().out)["pages"]


def test_write_merges_and_keeps_comments(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    table = root / "docs/zh/relocations.toml"
    table.write_bytes(
        b'# Our moves\r\n[pages]\r\n"release_notes" = "release_notes_mm"  # by hand\r\n'
        b"\r\n# images\r\n[anchors]\r\n"
    )
    assert main(["from-git", "docs/zh", "--since", base, "--write"]) == 0
    text = table.read_bytes().decode()
    assert text.startswith('# Our moves\r\n[pages]\r\n"release_notes" = "release_notes_mm"  # by')
    assert "\r\n# images\r\n[anchors]\r\n" in text
    assert "\n" not in text.replace("\r\n", "")
    data = tomllib.loads(text)
    assert data["pages"] == EXPECTED_PAGES and data["files"] == EXPECTED_FILES
    assert text.count("release_notes") == 2
    assert "1 already in the table" in capsys.readouterr().err
    assert main(["from-git", "docs/zh", "--since", base, "--write"]) == 0
    assert table.read_bytes().decode() == text  # merging twice changes nothing


def test_merge_into_places_entries_in_their_section() -> None:
    derived = Derived(pages=[("a", "b")], files=[("x.png", "y.png")], deleted=["gone"])
    text = '[pages]\n"c" = "d"\n\n# comment of anchors\n[anchors]\n"p#x" = "p#y"\n'
    merged = merge_into(text, derived)
    assert merged == (
        '[pages]\n"c" = "d"\n"a" = "b"\n'
        "# Deleted without a rename: give each a target (a page or an https:// URL),\n"
        "# or leave it out if the page is meant to go.\n"
        '# "gone" = ""  # deleted: needs a target\n'
        '\n# comment of anchors\n[anchors]\n"p#x" = "p#y"\n\n[files]\n"x.png" = "y.png"\n'
    )
    assert merge_into(merged, derived) == merged
    assert tomllib.loads(render(derived)) == {"pages": {"a": "b"}, "files": {"x.png": "y.png"}}
    assert render(Derived(pages=[('q"\\', "特")])) == '[pages]\n"q\\"\\\\" = "特"\n'


def test_usage_errors(
    tmp_path: Path, repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["from-git", "docs/zh", "--since", "no-such-rev"]) == 2
    assert "'no-such-rev' is not a commit" in capsys.readouterr().err
    assert main(["from-git", "docs/zh", "--similarity", "150"]) == 2
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["from-git", str(plain)]) == 2
    err = capsys.readouterr().err
    assert "not inside a git work tree" in err and "Traceback" not in err
