"""``FileCache.real_path`` asks each folder's real path once, and must still answer as
``os.path.realpath`` does: raw HTML outside the repository is refused on its answer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinx_relocate.sphinx_ext.state import FileCache


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A repository with a linked folder, a linked file, a link to a link, a link out."""
    repo = tmp_path / "repo"
    (repo / "docs" / "img").mkdir(parents=True)
    (repo / "docs" / "img" / "a.png").write_bytes(b"png")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x", encoding="utf-8")
    (repo / "docs" / "linked").symlink_to(repo / "docs" / "img", target_is_directory=True)
    (repo / "docs" / "img" / "b.png").symlink_to(repo / "docs" / "img" / "a.png")
    (repo / "docs" / "img" / "c.png").symlink_to(repo / "docs" / "img" / "b.png")
    (repo / "docs" / "out").symlink_to(outside, target_is_directory=True)
    (repo / "docs" / "img" / "leak.txt").symlink_to(outside / "secret.txt")
    return repo


PATHS = [
    "docs/img/a.png",
    "docs/linked/a.png",
    "docs/img/b.png",
    "docs/linked/c.png",
    "docs/out/secret.txt",
    "docs/img/leak.txt",
    "docs/img/../linked/b.png",
    "docs/missing/x.png",
    "docs/img",
    "docs/linked",
    "docs/img/..",
    "docs/img/.",
    "docs/linked/",
]


@pytest.mark.parametrize("path", PATHS)
def test_real_path_answers_as_realpath(tree: Path, path: str) -> None:
    cache = FileCache(tree)
    full = os.path.join(str(tree), path)
    assert cache.real_path(full) == os.path.realpath(full)
    assert cache.real_path(full) == os.path.realpath(full)  # asked again: from the cache


def test_every_path_in_one_cache_answers_as_realpath(tree: Path) -> None:
    """Folders asked once are shared by every path below them, in any order."""
    cache = FileCache(tree)
    for path in [*PATHS, *reversed(PATHS)]:
        full = os.path.join(str(tree), path)
        assert cache.real_path(full) == os.path.realpath(full), path
    assert cache.real_folder(str(tree / "docs" / "linked")) == str(
        (tree / "docs" / "img").resolve()
    )
