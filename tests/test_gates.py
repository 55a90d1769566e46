"""The CI gates: ``from-git --check``, ``relocate_since`` in the build, ``--format github``
and the pre-commit hooks.

The repository of :func:`make_repo` renames one page of each kind of coverage: one in
``relocate_map``, one in ``[pages]``, a folder in ``[prefixes]``; and renames one page
(a plain ``mv``) and deletes another (staged) that no entry covers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import builds
import pytest
from reorg_fixture import committed_hook_repo, first_commit, git, write_tree

from sphinx_relocate.cli.main import main
from sphinx_relocate.cli.output import finding

CONF = 'extensions = ["sphinx_relocate"]\nrelocate_map = {"mapped": "mapped_new"}\n'
TABLE = '# our moves\n[pages]\n"paged" = "paged_new"\n\n[prefixes]\n"guide/" = "manual/"\n'
COLOR = re.compile(r"\x1b\[[0-9;]*m")
ROOT = Path(__file__).resolve().parents[1]


def table_with(*pages: str) -> str:
    """:data:`TABLE` with more ``[pages]`` lines (from line 4 on)."""
    added = "".join(f"\n{line}" for line in pages)
    return TABLE.replace("\n\n[prefixes]", added + "\n\n[prefixes]")


def page(title: str) -> str:
    """A page with text of its own, so git pairs its rename and nothing else."""
    return f"{title}\n{'=' * len(title)}\n\n{title}: " + " ".join([title] * 30) + "\n"


def make_repo(root: Path, *, table: str | None = TABLE) -> str:
    """The docs in ``root/docs``, moved after the returned commit (see the module doc)."""
    pages = ["index", "mapped", "paged", "guide/x", "guide/y", "lost", "gone"]
    files = {f"docs/{name}.rst": page(name) for name in pages}
    files["docs/conf.py"] = CONF
    if table is not None:
        files["docs/relocations.toml"] = table
    write_tree(root, files, {"docs/img/a.png": b"\x89PNG " * 50})
    base = first_commit(root, "before")
    git(root, "mv", "docs/mapped.rst", "docs/mapped_new.rst")
    git(root, "mv", "docs/paged.rst", "docs/paged_new.rst")
    git(root, "mv", "docs/guide", "docs/manual")
    git(root, "commit", "-q", "-m", "move")
    git(root, "rm", "-q", "docs/gone.rst")
    git(root, "mv", "docs/img/a.png", "docs/img/b.png")
    (root / "docs/lost.rst").rename(root / "docs/found.rst")
    return base


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "repo"
    base = make_repo(root)
    monkeypatch.chdir(root)
    return root, base


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


# -- from-git --check ------------------------------------------------------------------


def test_from_git_check_lists_each_page_without_an_entry(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert (status, out) == (1, [
        f"docs/relocations.toml: gone was deleted since {base} and has no entry",
        f"docs/relocations.toml: lost was renamed to found since {base} and has no entry",
    ])
    assert err.splitlines()[-1] == f"2 pages renamed or deleted since {base} without an entry"
    assert "lost" not in (root / "docs/relocations.toml").read_text("utf-8")  # no write
    # with no table yet the findings name conf.py, and the summary says what --write makes
    table = (root / "docs/relocations.toml").read_text("utf-8")
    (root / "docs/relocations.toml").unlink()
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert status == 1 and all(line.startswith("docs/conf.py: ") for line in out)
    assert err.splitlines()[-1] == (
        f"{len(out)} pages renamed or deleted since {base} without an entry; no table yet "
        "(findings are at docs/conf.py): `--write` makes docs/relocations.toml")
    (root / "docs/relocations.toml").write_text(table, "utf-8")
    # without --since: what is not committed yet, against HEAD
    status, out, _ = run(capsys, "from-git", "docs", "--check")
    assert status == 1 and out[-1].endswith("was renamed to found since HEAD and has no entry")
    # every page covered: exit 0, nothing on stdout
    (root / "docs/relocations.toml").write_text(
        table_with('"lost" = "found"', '"gone" = "https://example.org/gone"'), "utf-8"
    )
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert (status, out) == (0, [])
    assert f"every page renamed or deleted since {base} has an entry" in err


def test_from_git_check_names_conf_py_when_there_is_no_table_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each page of a moved folder is checked on its own (no ``[prefixes]`` now)."""
    base = make_repo(tmp_path, table=None)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert status == 1
    assert [line.split(" since ")[0] for line in out] == [
        "docs/conf.py: gone was deleted",
        "docs/conf.py: guide/x was renamed to manual/x",
        "docs/conf.py: guide/y was renamed to manual/y",
        "docs/conf.py: lost was renamed to found",
        "docs/conf.py: paged was renamed to paged_new",
    ]


def test_pages_a_loaded_peer_redirects_need_no_entry(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A project that still loads sphinxext-rediraffe: the pages its redirects name keep
    their old URLs (its stubs), so ``from-git --check`` and ``relocate_since`` do not
    list them, ``from-git`` derives no entry for them (a second stub at the same path),
    and each command says what the peer covered."""
    root, base = repo
    conf = root / "docs/conf.py"
    conf.write_text(
        'extensions = ["sphinx_relocate", "sphinxext.rediraffe"]\n'
        'relocate_map = {"mapped": "mapped_new"}\n'
        'rediraffe_redirects = {"lost.rst": "found.rst", "gone.rst": "index.rst"}\n',
        encoding="utf-8",
    )
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert (status, out) == (0, [])
    assert (f"every page renamed or deleted since {base} has an entry (6 pages in docs; 2 "
            "served by sphinxext.rediraffe's redirects (rediraffe_redirects), which conf.py "
            "loads)") in err
    status, out, err = run(capsys, "from-git", "docs", "--since", base)
    assert status == 0 and not any("lost" in line or "gone" in line for line in out), out
    assert "served by sphinxext.rediraffe's redirects (rediraffe_redirects)" in err
    conf.write_text(conf.read_text("utf-8") + f'relocate_since = "{base}"\n', "utf-8")
    # the build loads the peer: a stand-in that declares its option (the tests do not
    # install sphinxext-rediraffe)
    peer = types.ModuleType("sphinxext.rediraffe")
    peer.setup = lambda app: app.add_config_value("rediraffe_redirects", {}, "env")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sphinxext.rediraffe", peer)
    assert build(root / "docs", tmp_path / "build")[0] == []
    # not loaded, rediraffe_redirects is part of the table: covered as entries
    conf.write_text(conf.read_text("utf-8").replace(', "sphinxext.rediraffe"', ""), "utf-8")
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert (status, out) == (0, []) and "served by" not in err
    # loaded, a redirect for one page only: the other is listed
    conf.write_text(
        conf.read_text("utf-8").replace('"sphinx_relocate"', '"sphinx_relocate", '
                                        '"sphinxext.rediraffe"')
        .replace(', "gone.rst": "index.rst"', ""),
        "utf-8",
    )
    status, out, _ = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert (status, out) == (1, [
        f"docs/relocations.toml: gone was deleted since {base} and has no entry",
    ])


def test_from_git_check_usage(
    repo: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    assert main(["from-git", "docs", "--check", "--write"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main(["from-git", "docs", "--check", "--since", "no-such-rev"]) == 2
    assert "'no-such-rev' is not a commit" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert main(["from-git", "docs", "--check"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == "sphinx-relocate: error: git is not installed (or not on PATH)"


# -- relocate_since in the build -------------------------------------------------------


def build(docs: Path, builddir: Path, **overrides: object) -> tuple[list[str], str]:
    """The ``relocate.unredirected`` warnings of an HTML build, and its status output."""
    # Sphinx 7.4 does not add "[relocate.x]" by default
    built = builds.build(
        docs, builddir=builddir, confoverrides={"show_warning_types": True, **overrides}
    )
    lines = COLOR.sub("", built.warnings).splitlines()
    return [line for line in lines if "[relocate.unredirected]" in line], built.status


def test_relocate_since_warns_on_every_build(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, base = repo
    docs = root / "docs"
    conf = docs / "conf.py"
    conf.write_text(CONF + f'relocate_since = "{base}"\n', encoding="utf-8")
    table = docs / "relocations.toml"
    expected = [
        f"{table}:2: WARNING: gone was deleted since {base} and has no entry "
        "[relocate.unredirected]",
        f"{table}:2: WARNING: lost was renamed to found since {base} and has no entry "
        "[relocate.unredirected]",
    ]
    builddir = tmp_path / "build"
    assert build(docs, builddir)[0] == expected
    # a build that re-reads nothing says it again
    again, status = build(docs, builddir)
    assert "0 added, 0 changed, 0 removed" in COLOR.sub("", status)
    assert again == expected
    # an entry silences its page; without relocate_since nothing is checked
    table.write_text(table_with('"lost" = "found"'), "utf-8")
    assert build(docs, builddir)[0] == [expected[0]]
    assert build(docs, builddir, relocate_since=None)[0] == []


def test_relocate_since_without_a_table_file_warns_at_its_line(
    tmp_path: Path,
) -> None:
    base = make_repo(tmp_path / "repo", table=None)
    conf = tmp_path / "repo/docs/conf.py"
    conf.write_text(CONF + f"\nrelocate_since = {base!r}\n", encoding="utf-8")
    warnings, _ = build(tmp_path / "repo/docs", tmp_path / "build")
    assert len(warnings) == 5
    assert all(line.startswith(f"{conf}:4: WARNING: ") for line in warnings), warnings
    assert f"guide/x was renamed to manual/x since {base}" in warnings[1]


@pytest.mark.parametrize("case", ["not a work tree", "no git", "unknown revision"])
def test_relocate_since_that_cannot_run_is_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    base = make_repo(tmp_path / "repo")
    docs = tmp_path / "repo/docs"
    since = "no-such-rev" if case == "unknown revision" else base
    if case == "not a work tree":
        docs = Path(shutil.copytree(docs, tmp_path / "plain"))
    if case == "no git":
        monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    (docs / "conf.py").write_text(CONF + f"relocate_since = {since!r}\n", encoding="utf-8")
    warnings, _ = build(docs, tmp_path / "build")
    reason = {
        "not a work tree": f"{docs}: not inside a git work tree",
        "no git": "git is not installed (or not on PATH)",
        "unknown revision": f"'no-such-rev' is not a commit in {tmp_path / 'repo'}",
    }[case]
    assert warnings == [
        f"{docs / 'conf.py'}:3: WARNING: relocate_since = {since!r}: cannot check for pages "
        f"without an entry: {reason} [relocate.unredirected]"
    ]


# -- --format github -------------------------------------------------------------------


def test_finding_formats() -> None:
    assert finding("text", "docs/t.toml", 3, "a: b") == "docs/t.toml:3: a: b"
    assert finding("text", "README.md", 0, "2 links to rewrite") == "README.md: 2 links to rewrite"
    assert finding("github", "docs/t.toml", 3, "a: b") == "::error file=docs/t.toml,line=3::a: b"
    assert finding("github", "a,b:c%.md", 0, "100% sure\r\nnext, 50%") == (
        "::error file=a%2Cb%3Ac%25.md::100%25 sure%0D%0Anext, 50%25"
    )


def test_format_github_on_every_gate(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    table = root / "docs/relocations.toml"
    table.write_text(TABLE + '\n[files]\n"img/a.png" = "img/nowhere.png"\n', "utf-8")
    status, out, _ = run(capsys, "check", "docs", "--format", "github")
    assert (status, out) == (1, [
        "::error file=docs/relocations.toml,line=9::target 'img/nowhere.png' of 'img/a.png' "
        "is not a file",
    ])
    status, out, _ = run(capsys, "from-git", "docs", "--since", base, "--check",
                         "--format", "github")
    assert (status, out[0]) == (
        1, f"::error file=docs/relocations.toml::gone was deleted since {base} and has no entry"
    )
    (root / "docs/index.rst").write_text("Index\n=====\n\n:doc:`paged` and :doc:`lost`.\n",
                                         "utf-8")
    status, out, _ = run(capsys, "rewrite", "docs", "--check", "--format", "github")
    assert (status, out) == (1, ["::error file=docs/index.rst,line=4,col=7::paged → paged_new"])
    # the default stays 'file:line:column: message'
    assert run(capsys, "rewrite", "docs", "--check")[1] == [
        "docs/index.rst:4:7: paged → paged_new"
    ]


def test_format_github_names_files_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rewrite`` names files from the repository root (here the docs folder: no git);
    annotations name them from the current folder, as GitHub reads them; a file left as
    it is (exit 1) is an annotation too."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text("", "utf-8")
    (docs / "relocations.toml").write_text('[pages]\n"setup" = "guide/setup"\n', "utf-8")
    (docs / "guide" / "setup.rst").write_text("Setup\n=====\n", "utf-8")
    grid = "\t+-------+---------------+\n\t| Setup | :doc:`setup`  |\n\t+-------+---------------+\n"
    (docs / "index.rst").write_text(f"Index\n=====\n\n.. note::\n\n{grid}", "utf-8")
    (docs / "other.rst").write_text("Other\n=====\n\nSee :doc:`setup`.\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "rewrite", "docs", "--check")
    assert (status, out) == (1, ["other.rst:4:11: setup → guide/setup"])
    assert "index.rst: left as it is: rewriting it would add a parse error" in err
    status, out, err = run(capsys, "rewrite", "docs", "--check", "--format", "github")
    assert (status, out) == (
        1, ["::error file=docs/other.rst,line=4,col=11::setup → guide/setup"]
    )
    assert err.splitlines()[1].startswith(
        "::error file=docs/index.rst::left as it is: rewriting it would add a parse error ("
    )


# -- pre-commit ------------------------------------------------------------------------


def test_pre_commit_hooks(tmp_path: Path) -> None:
    """The hooks of ``.pre-commit-hooks.yaml``, installed by ``pre-commit try-repo`` from a
    committed copy of this project (each try-repo installs them afresh, ~20 s): each
    fails on its finding, and all pass once the findings are fixed."""
    pytest.importorskip("pre_commit")
    hooks = committed_hook_repo(tmp_path / "hooks")
    project = tmp_path / "project"
    make_repo(project)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "moved")
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "PRE_COMMIT_COLOR": "never",
    }

    def try_repo() -> tuple[int, str]:
        """Every hook of the manifest with its default ``args: [docs]``."""
        done = subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "--all-files"],
            cwd=project, env=env, capture_output=True, text=True, check=False,
        )
        return done.returncode, done.stdout + done.stderr

    # a bad target, a staged rename with no entry, a link written against an old path
    table = project / "docs/relocations.toml"
    table.write_text(table_with('"gone" = "nowhere"'), "utf-8")
    git(project, "mv", "docs/index.rst", "docs/home.rst")
    with (project / "docs/home.rst").open("a", encoding="utf-8") as home:
        home.write("\nSee :doc:`paged`.\n")
    git(project, "add", "-A")
    status, out = try_repo()
    assert status == 1, out
    assert re.findall(r"^(sphinx-relocate .*?)\.+(Passed|Failed)$", out, re.MULTILINE) == [
        ("sphinx-relocate check", "Failed"),
        ("sphinx-relocate from-git --check", "Failed"),
        ("sphinx-relocate rewrite --check", "Failed"),
    ], out
    assert "docs/relocations.toml:4: target 'nowhere' of 'gone' is not a document" in out
    assert "docs/relocations.toml: index was renamed to home since HEAD and has no entry" in out
    assert "docs/home.rst:" in out and ": paged → " in out
    # fixed: all pass
    table.write_text(table_with('"gone" = "https://example.org/gone"', '"index" = "home"'),
                     "utf-8")
    assert main(["rewrite", str(project / "docs"), "--write"]) == 0
    git(project, "add", "-A")
    status, out = try_repo()
    assert status == 0, out
    assert out.count("Passed") == 3, out


def test_from_git_leaves_out_templates_and_static_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """xarray deleted ``_templates/autosummary/base.rst`` (``templates_path``): Sphinx
    reads no page there, so ``--check`` has nothing to say of it (it failed)."""
    from reorg_fixture import first_commit, git, write_tree

    write_tree(tmp_path, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\ntemplates_path = ["_templates"]\n'
                        'html_static_path = ["_static"]\n',
        "docs/index.rst": "Home\n====\n",
        "docs/_templates/autosummary/base.rst": "{{ fullname }}\n",
        "docs/_static/notes.rst": "Not a page.\n",
        "docs/_static/style.css": "p {}\n",
    }, {})
    base = first_commit(tmp_path, "base")
    git(tmp_path, "rm", "-q", "docs/_templates/autosummary/base.rst", "docs/_static/notes.rst")
    git(tmp_path, "commit", "-q", "-m", "drop the template")
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert (status, out) == (0, [])
    assert f"no page renamed or deleted since {base} in docs" in err
    # the build's relocate_since, the same
    built = builds.build(tmp_path / "docs", fresh=True, confoverrides={"relocate_since": base})
    assert "WARNING" not in built.warnings, built.warnings
