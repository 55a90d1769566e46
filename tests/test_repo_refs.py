"""Own-repository URLs on another ref than ``relocate_repo_url``'s branch are history.

``…/blob/26.0.0/docs/old.md`` names the file as release 26.0.0 had it, where it still
is: the build neither checks nor rewrites it, nor does ``rewrite``.  URLs on the
configured branch (``main`` also stands for ``master``, and the other way round) and on
``HEAD`` are today's tree: moved files are followed, missing ones warned.
"""

from __future__ import annotations

import re
from pathlib import Path

import builds
import pytest
from reorg_fixture import forge_url_project

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.landing import current_refs, repository_path

FORGE = "https://forge.example/org/repo"

TODAY = [f"{FORGE}/blob/main/docs/old.md", f"{FORGE}/tree/master/docs/old.md",
         f"{FORGE}/blob/HEAD/docs/old.md"]
HISTORY = [f"{FORGE}/blob/26.0.0/docs/old.md", f"{FORGE}/tree/2.2.0/docs/gone.md",
           f"{FORGE}/blob/release-1.x/docs/old.md"]


@pytest.mark.parametrize(
    ("repo_url", "refs"),
    [
        (f"{FORGE}/blob/main/", ("main", "master", "HEAD")),
        (f"{FORGE}/tree/master", ("main", "master", "HEAD")),
        (f"{FORGE}/-/blob/develop/", ("develop", "HEAD")),
        (FORGE, ("main", "master", "HEAD")),
    ],
)
def test_the_refs_of_today(repo_url: str, refs: tuple[str, ...]) -> None:
    assert current_refs(repo_url) == refs


def test_repository_path_on_todays_refs_only() -> None:
    assert [repository_path(url, f"{FORGE}/blob/main/") for url in TODAY] == ["docs/old.md"] * 3
    assert [repository_path(url, f"{FORGE}/blob/main/") for url in HISTORY] == [None] * 3


GITHUB = "https://github.com/org/repo"


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://raw.githubusercontent.com/org/repo/main/docs/code/a.yml", "docs/code/a.yml"),
        ("https://raw.githubusercontent.com/org/repo/master/docs/a.yml", "docs/a.yml"),
        ("https://raw.githubusercontent.com/org/repo/HEAD/docs/a.yml", "docs/a.yml"),
        ("https://raw.githubusercontent.com/org/repo/refs/heads/main/docs/a.yml", "docs/a.yml"),
        ("https://raw.githubusercontent.com/org/repo/v1.0/docs/a.yml", None),  # history
        ("https://raw.githubusercontent.com/org/other/main/docs/a.yml", None),
        ("https://raw.githubusercontent.com/org/repository/main/docs/a.yml", None),
        (f"{GITHUB}/raw/main/docs/a.yml", "docs/a.yml"),
    ],
)
def test_githubs_raw_host_names_the_repositorys_files(url: str, path: str | None) -> None:
    for repo_url in (GITHUB, f"{GITHUB}/blob/main/docs/", f"{GITHUB}.git"):
        assert repository_path(url, repo_url) == path
    # another forge's repository of the same name has no raw host of GitHub's
    assert repository_path(url, f"{FORGE}/blob/main/") is None


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    lines = [f"- [link {n}]({url})" for n, url in enumerate(TODAY + HISTORY)]
    forge_url_project(
        tmp_path / "repo", f'relocate_repo_url = "{FORGE}/blob/main/"',
        "\n".join(lines) + f"\n- [gone on main]({FORGE}/blob/main/docs/gone.md)\n",
    )
    return tmp_path / "repo"


def test_a_build_follows_todays_urls_and_leaves_history(repo: Path) -> None:
    docs = repo / "docs"
    built = builds.build(docs)
    page = (built.outdir / "index.html").read_text("utf-8")
    for url in TODAY:
        assert f'href="{url.replace("old.md", "new.md")}"' in page
    for url in HISTORY:
        assert f'href="{url}"' in page
    warnings = [w for w in built.warnings.splitlines() if "WARNING" in w]
    # only the missing file on today's branch; none for 2.2.0's gone.md
    assert len(warnings) == 1
    assert f"repo url '{FORGE}/blob/main/docs/gone.md' does not land" in warnings[0]
    assert "[relocate.repo_url]" in warnings[0]


def test_rewrite_follows_todays_urls_and_leaves_history(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = repo / "README.md"
    readme.write_text("\n".join(TODAY + HISTORY) + "\n")
    main(["rewrite", str(repo / "docs"), "--write"])
    capsys.readouterr()
    assert readme.read_text().splitlines() == [
        url.replace("old.md", "new.md") for url in TODAY
    ] + HISTORY
    index = (repo / "docs" / "index.md").read_text()
    for url in HISTORY:
        assert f"({url})" in index
    for url in TODAY:
        assert f"({url.replace('old.md', 'new.md')})" in index


RAW = "https://raw.githubusercontent.com/org/repo"


def test_raw_urls_of_githubs_files_are_followed_checked_and_rewritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Packaging User Guide linked its AppVeyor sample by raw URL; when ``code/``
    moved, its maintainers rewrote them by hand, one with a typo."""
    links = (f"- [old]({RAW}/main/docs/old.md)\n- [tag]({RAW}/v1.0/docs/old.md)\n"
             f"- [gone]({RAW}/HEAD/docs/gone.md)\n")
    docs = forge_url_project(tmp_path / "repo", f'relocate_repo_url = "{GITHUB}/blob/main/"',
                             links)
    built = builds.build(docs)
    page = (built.outdir / "index.html").read_text("utf-8")
    assert f'href="{RAW}/main/docs/new.md"' in page  # the raw form kept
    assert f'href="{RAW}/v1.0/docs/old.md"' in page  # history
    warnings = [w for w in built.warnings.splitlines() if "WARNING" in w]
    assert len(warnings) == 1, warnings
    assert f"repo url '{RAW}/HEAD/docs/gone.md' does not land" in warnings[0]
    main(["rewrite", str(docs), "--write"])
    capsys.readouterr()
    assert (docs / "index.md").read_text().endswith(
        f"- [old]({RAW}/main/docs/new.md)\n- [tag]({RAW}/v1.0/docs/old.md)\n"
        f"- [gone]({RAW}/HEAD/docs/gone.md)\n"
    )


@pytest.mark.parametrize(("urls", "files", "table", "moved"), [
    # black's …/blob/master/docs/compatible_configs/ names the folder of sample configs,
    # which stayed beside the page compatible_configs that moved: rewrite sent it to the
    # page's new folder, and the build to the page's new source file
    (["blob/main/docs/old/", "tree/main/docs/old", "blob/main/docs/old.md#usage"],
     {"old/setup.cfg": "[flake8]\n"}, "", ("docs/old.md", "docs/new.md")),
    # a folder a [prefixes] entry moved: its URL follows, with or without its slash
    (["tree/main/docs/guide/", "tree/main/docs/guide", "blob/main/docs/guide/a.md"],
     {"manual/a.md": "# A\n"}, '\n[prefixes]\n"guide/" = "manual/"\n',
     ("docs/guide", "docs/manual")),
], ids=["folder-beside-a-moved-page", "moved-folder"])
def test_a_repository_url_of_a_folder_names_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], urls: list[str],
    files: dict[str, str], table: str, moved: tuple[str, str],
) -> None:
    """A repository URL names a file or a folder, and a page only by its source file,
    in the build and in ``rewrite`` alike."""
    from reorg_fixture import write_tree

    links = "".join(f"- [{n}]({GITHUB}/{url})\n" for n, url in enumerate(urls))
    docs = forge_url_project(tmp_path / "repo", f'relocate_repo_url = "{GITHUB}/blob/main/"',
                             links)
    write_tree(docs, files, {})
    with (docs / "relocations.toml").open("a", encoding="utf-8") as file:
        file.write(table)
    now = links.replace(*moved)
    page = (builds.build(docs).outdir / "index.html").read_text("utf-8")
    for url in re.findall(r"\((.*)\)", now):
        assert f'href="{url}"' in page, page
    main(["rewrite", str(docs), "--write"])
    capsys.readouterr()
    assert (docs / "index.md").read_text().endswith(now)
