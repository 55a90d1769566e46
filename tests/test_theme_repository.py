"""The repository conf.py tells its theme of stands for ``relocate_repo_url``.

A project that sets Furo's ``source_repository``, sphinx-book-theme's ``repository_url``
or ``html_context``'s ``github_user``/``github_repo`` has declared where its sources
live; its own-repository URLs (``…/blob/main/docs/old.md``) follow moves without
``relocate_repo_url`` (the Python devguide moved ``core-developers/`` to ``core-team/``
and fixed two such URLs by hand).  ``relocate_repo_url = ""`` says: none at all.
"""

from __future__ import annotations

from pathlib import Path

import builds
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reorg_fixture import forge_url_project

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.landing import forge_url
from sphinx_relocate.core.settings import theme_repository

GITHUB = "https://github.com/org/repo"


@pytest.mark.parametrize(
    ("options", "context", "expected"),
    [
        ({"source_repository": f"{GITHUB}/", "source_branch": "main"}, None,
         (f"{GITHUB}/blob/main/", "html_theme_options['source_repository']")),
        ({"source_repository": GITHUB, "source_directory": "docs/"}, None,
         (f"{GITHUB}/", "html_theme_options['source_repository']")),
        ({"repository_url": GITHUB, "repository_branch": "develop", "path_to_docs": "docs"},
         None, (f"{GITHUB}/blob/develop/", "html_theme_options['repository_url']")),
        (None, {"github_user": "org", "github_repo": "repo", "github_version": "main",
                "doc_path": "docs"},
         (f"{GITHUB}/blob/main/", "html_context['github_repo']")),
        (None, {"github_user": "org", "github_repo": "repo", "github_version": "main",
                "conf_py_path": "/docs/"},
         (f"{GITHUB}/blob/main/", "html_context['github_repo']")),
        ({"repository_url": f"{GITHUB}/tree/main", "path_to_docs": "./docs/"}, None,
         (f"{GITHUB}/tree/main/", "html_theme_options['repository_url']")),
        (None, {"gitlab_user": "org", "gitlab_repo": "repo", "gitlab_version": "main"},
         ("https://gitlab.com/org/repo/-/blob/main/", "html_context['gitlab_repo']")),
        (None, {"github_user": "org", "github_repo": "repo",
                "github_url": "https://git.example.org"},
         ("https://git.example.org/org/repo/", "html_context['github_repo']")),
    ],
)
def test_the_themes_repository(options: object, context: object,
                               expected: tuple[str, str]) -> None:
    assert theme_repository(options, context, "docs") == expected


@pytest.mark.parametrize(
    ("options", "context", "docs_folder"),
    [
        # the theme names another docs folder: another tree than the one found
        ({"source_repository": GITHUB, "source_directory": "documentation/"}, None, "docs"),
        (None, {"github_user": "org", "github_repo": "repo", "doc_path": "site"}, "docs"),
        (None, {"github_user": "org", "github_repo": "repo", "conf_py_path": "/site/"}, "docs"),
        # no repository found above conf.py: no path from its root to go by
        ({"source_repository": GITHUB}, None, None),
        # not a URL, a branch that is no ref, a user that is a path, nothing declared
        ({"source_repository": "github.com/org/repo"}, None, "docs"),
        ({"source_repository": GITHUB, "source_branch": "main?x"}, None, "docs"),
        ({"source_repository": GITHUB, "source_branch": "release/2.x"}, None, "docs"),
        (None, {"github_user": "org/other", "github_repo": "repo"}, "docs"),
        ({"github_url": GITHUB}, {"display_github": True}, "docs"),
        ("not a dict", ["nor", "this"], "docs"),
    ],
)
def test_no_repository_taken(options: object, context: object,
                             docs_folder: str | None) -> None:
    assert theme_repository(options, context, docs_folder) == ("", "")


@given(user=st.text(max_size=12), repo=st.text(max_size=12), branch=st.text(max_size=12))
def test_a_taken_repository_is_an_http_url_of_a_folder(user: str, repo: str,
                                                       branch: str) -> None:
    context = {"github_user": user, "github_repo": repo, "github_version": branch}
    url, told_by = theme_repository(None, context, "")
    assert (url == "") == (told_by == "")
    if url:
        assert url.startswith("https://github.com/") and url.endswith("/")
        assert not any(c.isspace() or c in "?#" for c in url)


def test_a_forge_link_names_a_ref() -> None:
    assert forge_url(f"{GITHUB}/blob/main/", "docs/x.md") == f"{GITHUB}/blob/main/docs/x.md"
    # a repository URL alone followed by a path is no page of the forge: HEAD's
    assert forge_url(GITHUB, "README.md") == f"{GITHUB}/blob/HEAD/README.md"
    assert forge_url("https://gitlab.com/o/r/", "a") == "https://gitlab.com/o/r/-/blob/HEAD/a"


CONTEXT = '{"github_user": "org", "github_repo": "%s", "github_version": "main"}'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    forge_url_project(
        tmp_path / "repo", f"html_context = {CONTEXT % 'repo'}",
        f"[the source]({GITHUB}/blob/main/docs/old.md)\n\n"
        f"[not in the tree]({GITHUB}/blob/main/docs/gone.md)\n",
    )
    (tmp_path / "repo" / "README.md").write_text(f"See {GITHUB}/blob/main/docs/old.md\n")
    return tmp_path / "repo"


def _build(docs: Path) -> tuple[str, list[str]]:
    built = builds.build(docs)
    page = (built.outdir / "index.html").read_text("utf-8")
    return page, [w for w in built.warnings.splitlines() if "WARNING" in w]


def test_a_build_follows_the_themes_repository(repo: Path) -> None:
    page, warnings = _build(repo / "docs")
    assert f'href="{GITHUB}/blob/main/docs/new.md"' in page
    # only where the table moved the file: a URL to a file not in the tree is left to
    # the author, as without the extension (relocate_repo_url checks them)
    assert f'href="{GITHUB}/blob/main/docs/gone.md"' in page
    assert warnings == []


def test_relocate_repo_url_also_checks_them(repo: Path) -> None:
    conf = repo / "docs" / "conf.py"
    conf.write_text(conf.read_text() + f'relocate_repo_url = "{GITHUB}"\n')
    page, warnings = _build(repo / "docs")
    assert f'href="{GITHUB}/blob/main/docs/new.md"' in page
    assert len(warnings) == 1 and "docs/gone.md' does not land" in warnings[0]


def test_an_empty_repo_url_takes_none(repo: Path) -> None:
    conf = repo / "docs" / "conf.py"
    conf.write_text(conf.read_text() + 'relocate_repo_url = ""\n')
    page, warnings = _build(repo / "docs")
    assert f'href="{GITHUB}/blob/main/docs/old.md"' in page
    assert warnings == []


def test_the_themes_repository_changed_reads_the_pages_again(repo: Path) -> None:
    docs = repo / "docs"
    conf = docs / "conf.py"
    conf.write_text(conf.read_text().replace(CONTEXT % "repo", CONTEXT % "other"))
    page, _ = _build(docs)
    assert f'href="{GITHUB}/blob/main/docs/old.md"' in page  # another repository's URL
    # Sphinx re-reads no page for html_context; the extension does, as the URL changed
    conf.write_text(conf.read_text().replace(CONTEXT % "other", CONTEXT % "repo"))
    page, warnings = _build(docs)
    assert f'href="{GITHUB}/blob/main/docs/new.md"' in page
    assert warnings == []


def test_rewrite_names_and_follows_the_themes_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rewrite", str(repo / "docs"), "--write"]) == 0
    err = capsys.readouterr().err
    assert (f"repository URL {GITHUB}/blob/main/ from html_context['github_repo']"
            in err.splitlines()[0])
    assert (repo / "README.md").read_text() == f"See {GITHUB}/blob/main/docs/new.md\n"
    assert f"({GITHUB}/blob/main/docs/new.md)" in (repo / "docs" / "index.md").read_text()


@pytest.mark.parametrize("explicit", [False, True])
def test_a_link_leaving_the_docs_becomes_a_forge_link_only_with_relocate_repo_url(
    repo: Path, explicit: bool
) -> None:
    docs = repo / "docs"
    (docs / "index.md").write_text("# Index\n\n```{toctree}\nnew\n```\n\n[readme](../README.md)\n")
    if explicit:
        (docs / "conf.py").write_text(
            (docs / "conf.py").read_text() + f'relocate_repo_url = "{GITHUB}/blob/main/"\n'
        )
    page, _ = _build(docs)
    assert (f'href="{GITHUB}/blob/main/README.md"' in page) is explicit
