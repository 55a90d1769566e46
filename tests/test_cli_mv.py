"""``sphinx-relocate mv`` end to end: a page, a folder and an image moved, in a git
repository and outside one.

After each move the landing oracle (tests/oracle.py: the original layout built plain,
each link's landing carried through the table) finds every link where it was: built
with the extension, and after the rewrite built without it.  Refusals, ``--dry-run``
and ``--keep-links`` change nothing they should not (a hash of the whole tree).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import builds
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import compare, expected, landings
from reorg_fixture import git

from sphinx_relocate.cli.main import main

ROOT = Path(__file__).parent / "roots" / "test-mv"
PLAIN = {"extensions": ["myst_parser"]}
RELOCATE = {"extensions": ["myst_parser", "sphinx_relocate"]}

#: (OLD, NEW) of each kind of move, as a user would type them in the docs folder
MOVES = {
    "page": ("guide/install", "manual/start/setup"),
    "folder": ("guide", "handbook/guide"),
    "image": ("img/logo.png", "static/images/logo.png"),
}


def make_repo(base: Path, in_git: bool) -> Path:
    repo = base / "repo"
    shutil.copytree(ROOT, repo)
    if in_git:
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "original")
    return repo


def tree_hash(repo: Path) -> str:
    """Every path and byte under ``repo`` (git's index and refs too)."""
    digest = hashlib.sha256()
    for path in sorted(repo.rglob("*")):
        digest.update(path.relative_to(repo).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def misses(original: Path, original_out: Path, docs: Path, outdir: Path) -> list[str]:
    """The links of ``docs`` built into ``outdir`` that land elsewhere than the oracle says."""
    found = landings(outdir / "html", docs)
    want = expected(original_out / "html", original, docs / "relocations.toml", set(found))
    return [str(miss) for miss in compare(want, found)]


@pytest.fixture(params=[True, False], ids=["git", "no-git"])
def in_git(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.mark.parametrize("kind", list(MOVES))
def test_every_link_lands_where_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    in_git: bool, kind: str,
) -> None:
    original_out = tmp_path / "original-out"
    assert builds.build(ROOT / "docs", builddir=original_out, fresh=True,
                        confoverrides=PLAIN).warnings == ""
    old, new = MOVES[kind]
    kept = make_repo(tmp_path / "kept", in_git)
    rewritten = make_repo(tmp_path / "rewritten", in_git)

    monkeypatch.chdir(kept)
    assert main(["mv", "docs", old, new, "--keep-links"]) == 0
    monkeypatch.chdir(rewritten)
    assert main(["mv", "docs", old, new]) == 0
    err = capsys.readouterr().err
    assert f"moved docs/{old}" in err and "rewrote" in err, err
    for repo in (kept, rewritten):
        assert not (repo / "docs" / old).exists() or kind == "page"
        assert (repo / "docs" / new).exists() or (repo / "docs" / f"{new}.md").exists()
        if in_git:  # git records the move as a rename
            staged = git(repo, "diff", "--cached", "--name-status", "-M").splitlines()
            assert any(
                line.startswith("R") and f"\tdocs/{old}" in line for line in staged
            ), staged

    # the table's entry brings every old reference where it landed
    built = builds.build(kept / "docs", builddir=tmp_path / "kept-out", fresh=True,
                         confoverrides=RELOCATE)
    assert misses(ROOT / "docs", original_out, kept / "docs", tmp_path / "kept-out") == []
    assert "relocate" not in built.warnings, built.warnings
    # without the table they land nowhere: the oracle sees the links that moved
    builds.build(kept / "docs", builddir=tmp_path / "kept-plain", fresh=True,
                 confoverrides=PLAIN)
    assert misses(ROOT / "docs", original_out, kept / "docs", tmp_path / "kept-plain")
    # the rewritten sources need no table, and agree with it
    for name, overrides in (("plain", PLAIN), ("relocate", RELOCATE)):
        outdir = tmp_path / f"rewritten-{name}"
        built = builds.build(rewritten / "docs", builddir=outdir, fresh=True,
                             confoverrides=overrides)
        assert built.warnings == "", built.warnings
        assert misses(ROOT / "docs", original_out, rewritten / "docs", outdir) == [], name


def test_move_records_what_from_git_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table gets one entry per kind, as ``from-git --write`` writes it, comments kept;
    the README outside the docs follows; the page's catalog moves with it."""
    repo = make_repo(tmp_path, in_git=True)
    monkeypatch.chdir(repo)
    assert main(["mv", "docs", "guide/install.md", "manual/start/setup.md"]) == 0
    assert main(["mv", "docs", "img/logo.png", "static/images/logo.png"]) == 0
    assert main(["mv", "docs", "ref", "reference"]) == 0  # a folder of one page
    table = (repo / "docs/relocations.toml").read_text("utf-8")
    assert table == (
        "# Moves of this project.\n\n[pages]\n"
        '"guide/install" = "manual/start/setup"\n'
        '"ref/api" = "reference/api"\n\n'
        '[files]\n"img/logo.png" = "static/images/logo.png"\n'
    )
    readme = (repo / "README.md").read_text("utf-8")
    assert "(docs/manual/start/setup.md)" in readme
    assert "(docs/static/images/logo.png)" in readme
    catalogs = repo / "docs/locales/de/LC_MESSAGES"
    assert (catalogs / "manual/start/setup.po").is_file()
    assert not (catalogs / "guide/install.po").exists()
    assert "R  docs/locales/de/LC_MESSAGES/guide/install.po" in git(
        repo, "status", "--porcelain"
    )

    # from-git derives nothing the table lacks
    capsys.readouterr()
    assert main(["from-git", "docs", "--check"]) == 0


def test_a_folder_of_several_files_is_one_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, in_git=True)
    monkeypatch.chdir(repo)
    assert main(["mv", "docs", "guide", "handbook/guide"]) == 0
    table = (repo / "docs/relocations.toml").read_text("utf-8")
    assert '[prefixes]\n"guide/" = "handbook/guide/"\n' in table
    assert '"guide/install"' not in table


def test_mv_twice_collapses_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, in_git=False)
    monkeypatch.chdir(repo / "docs")
    assert main(["mv", ".", "guide/install", "a/install"]) == 0
    assert main(["mv", ".", "a/install", "b/install"]) == 0
    assert "1 retargeted" in capsys.readouterr().err
    assert main(["mv", ".", "guide", "handbook"]) == 0  # one page left in it
    assert main(["mv", ".", "img/logo.png", "pics/logo.png"]) == 0
    assert main(["mv", ".", "pics", "art"]) == 0
    table = (repo / "docs/relocations.toml").read_text("utf-8")
    assert table == (
        "# Moves of this project.\n\n[pages]\n"
        '"guide/install" = "b/install"\n'
        '"a/install" = "b/install"\n'
        '"guide/usage" = "handbook/usage"\n\n'
        '[files]\n"img/logo.png" = "art/logo.png"\n"pics/logo.png" = "art/logo.png"\n'
    )
    # and back again: the entry that would name its own key goes
    assert main(["mv", ".", "b/install", "a/install"]) == 0
    table = (repo / "docs/relocations.toml").read_text("utf-8")
    assert '"guide/install" = "a/install"\n' in table
    assert '"a/install" = ' not in table
    assert '"b/install" = "a/install"\n' in table


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("guide/install", "ref/api", "ref/api: exists already (the page ref/api)"),
        ("guide/install.md", "ref/api.md", "ref/api.md: exists already (the page ref/api)"),
        ("guide", "ref", "ref: exists already"),
        ("img/logo.png", "ref/api.md", "ref/api.md: exists already"),
        ("guide/nothing", "x", "guide/nothing: not a document, file or folder of the project"),
        ("_build", "x", "_build: not a document, file or folder of the project"),
        ("_build/page.md", "x.md", "_build/page.md: not a document, file or folder of"),
        ("guide/install", "../../elsewhere", "../../elsewhere: outside the repository"),
        ("guide/install", "../top", "../top: outside the docs folder"),
        ("guide", "guide/inner", "guide/inner: inside the folder it would move (guide)"),
        ("guide/install", "x.txt", "x.txt: .txt is no source suffix of this project (.rst, .md)"
                                   ": the page would be x.txt.md"),
        ("guide/install.md", "guide/install.md", "guide/install.md: is where the page is"),
        ("ref", "x", "ref: names the folder ref/ and the page ref; write ref/ for the folder"),
        ("conf.py", "x.py", "conf.py: conf.py and the relocation table stay where the build"),
        ("relocations.toml", "x.toml", "relocations.toml: conf.py and the relocation table"),
    ],
)
def test_refusals_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    old: str, new: str, message: str,
) -> None:
    repo = make_repo(tmp_path, in_git=True)
    (repo / "docs/_build").mkdir()
    (repo / "docs/_build/page.md").write_text("# built\n", "utf-8")
    (repo / "docs/ref.md").write_text("# Reference\n\n```{toctree}\nref/api\n```\n", "utf-8")
    monkeypatch.chdir(repo)
    before = tree_hash(repo)
    capsys.readouterr()
    assert main(["mv", "docs", old, new]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith(f"sphinx-relocate: error: {message}"), err
    assert len(err) == 2  # the table read, then the one problem
    assert tree_hash(repo) == before


@pytest.mark.parametrize(("old", "new", "entry", "written"), [
    ("_includes/perms.rst", "shared/perms.rst", "shared/perms.rst", "/shared/perms.rst"),
    ("_includes", "shared/inc", "shared/inc/perms.rst", "/shared/inc/perms.rst"),
])
def test_an_excluded_include_fragment_moves_as_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str, entry: str,
    written: str,
) -> None:
    """Read the Docs keeps include fragments in an excluded ``_includes`` folder: one is a
    file of the project, moved with a ``[files]`` entry and its includes rewritten (it
    was refused as no file, and as a page it would be a ``[pages]`` entry)."""
    from reorg_fixture import write_tree

    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["sphinx_relocate"]\n'
                   'exclude_patterns = ["_build", "_includes", "shared"]\n',
        "index.rst": "Home\n====\n\n.. include:: /_includes/perms.rst\n",
        "_includes/perms.rst": "Owners can do anything.\n",
    }, {})
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", old, new]) == 0
    assert (docs / "relocations.toml").read_text("utf-8") == (
        f'[files]\n"_includes/perms.rst" = "{entry}"\n')
    assert f".. include:: {written}\n" in (docs / "index.rst").read_text("utf-8")
    conf = docs / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace('"sphinx_relocate"', ""), "utf-8")
    built = builds.build(docs, builddir=tmp_path / "out", fresh=True)
    assert built.warnings == ""
    assert "Owners can do anything." in (built.outdir / "index.html").read_text("utf-8")


def test_a_move_that_conf_py_would_contradict_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry of the table that conf.py also has (redirects imported and left there)
    is retargeted by the move in the table only: the build would refuse the two
    targets, so the move is refused first (CPython's devguide, rediraffe's dict kept)."""
    repo = make_repo(tmp_path, in_git=True)
    docs = repo / "docs"
    with (docs / "relocations.toml").open("a", encoding="utf-8") as table:
        table.write('"old/install" = "guide/install"\n')
    with (docs / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('relocate_map = {"old/install": "guide/install"}\n')
    monkeypatch.chdir(repo)
    before = tree_hash(repo)
    capsys.readouterr()
    assert main(["mv", "docs", "guide/install", "manual/install"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("sphinx-relocate: error: docs/conf.py:"), err
    assert "'old/install'" in err[-1] and err[-1].endswith(
        "(after the move: nothing was changed)"
    ), err
    assert tree_hash(repo) == before


def test_every_problem_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, in_git=False)
    monkeypatch.chdir(repo)
    before = tree_hash(repo)
    capsys.readouterr()
    assert main(["mv", "docs", "../../a", "../../b"]) == 2
    err = capsys.readouterr().err
    assert "../../a: outside the repository" in err and "../../b: outside the repository" in err
    assert "Traceback" not in err
    assert tree_hash(repo) == before


def test_dry_run_prints_the_plan_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    in_git: bool,
) -> None:
    repo = make_repo(tmp_path, in_git)
    monkeypatch.chdir(repo)
    before = tree_hash(repo)
    capsys.readouterr()
    assert main(["mv", "docs", "docs/guide/install.md", "docs/manual/setup.md",
                 "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert tree_hash(repo) == before
    assert "would move docs/guide/install.md → docs/manual/setup.md" in err
    assert "would move docs/locales/de/LC_MESSAGES/guide/install.po" in err
    assert "docs/relocations.toml: would add 1 entry" in err
    assert '+++ b/docs/relocations.toml\n' in out
    assert '+"guide/install" = "manual/setup"\n' in out
    assert "+- [Install](docs/manual/setup.md)\n" in out  # the README
    # the moved page's own links, read from its old folder
    assert "+++ b/docs/manual/setup.md\n" in out
    assert "+- [API](../ref/api.md)\n" not in out  # the same from either folder
    assert "+- [Usage](../guide/usage.md) and [home](../index.md)\n" in out


def test_keep_links_edits_no_source_but_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, in_git=True)
    monkeypatch.chdir(repo)
    texts = {p.relative_to(repo): p.read_bytes() for p in repo.rglob("*.md")}
    assert main(["mv", "docs", "guide/install", "manual/setup", "--keep-links"]) == 0
    assert "rewrote" not in capsys.readouterr().err
    moved = Path("docs/guide/install.md")
    after = {p.relative_to(repo): p.read_bytes() for p in repo.rglob("*.md")}
    assert after.pop(Path("docs/manual/setup.md")) == texts.pop(moved)
    assert after == texts
    assert '"guide/install" = "manual/setup"' in (repo / "docs/relocations.toml").read_text()


def test_a_path_from_both_folders_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``README.md`` from the repository root and from the docs folder: never a guess."""
    repo = make_repo(tmp_path, in_git=False)
    (repo / "docs/README.md").write_text("# Docs readme\n", "utf-8")
    monkeypatch.chdir(repo)
    before = tree_hash(repo)
    capsys.readouterr()
    assert main(["mv", "docs", "README.md", "docs/about.md"]) == 2
    err = capsys.readouterr().err
    assert "README.md: names docs/README.md in the docs folder and README.md from the " \
        "current folder; give its absolute path" in err, err
    assert tree_hash(repo) == before
    assert main(["mv", "docs", str(repo / "docs/README.md"), str(repo / "docs/about.md")]) == 0
    assert (repo / "docs/about.md").is_file()


def test_a_failure_midway_says_what_was_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sphinx_relocate.cli import mv

    def fail(path: Path, merge: object) -> None:
        raise OSError(28, "No space left on device")

    repo = make_repo(tmp_path, in_git=False)
    monkeypatch.chdir(repo)
    monkeypatch.setattr(mv, "write_merged", fail)
    capsys.readouterr()
    assert main(["mv", "docs", "guide/install", "manual/setup"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        "sphinx-relocate: error: cannot finish the move: [Errno 28] No space left on device; "
        "done so far: moved docs/guide/install.md → docs/manual/setup.md"
    )


def test_a_read_only_file_is_left_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, in_git=False)
    readme = repo / "README.md"
    readme.chmod(0o444)
    text = readme.read_bytes()
    monkeypatch.chdir(repo)
    capsys.readouterr()
    assert main(["mv", "docs", "guide/install", "manual/setup", "--format", "github"]) == 1
    err = capsys.readouterr().err
    assert "::error file=README.md::left as it is: read-only (1 link to rewrite)" in err, err
    assert readme.read_bytes() == text
    assert "manual/setup" in (repo / "docs/index.md").read_text("utf-8")


def _moved_to_c(section: str, target: str) -> str | None:
    path, sep, anchor = target.partition("#")
    return "c" + path[1:] + sep + anchor if path.split(".")[0] == "b" else None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('[pages]\n"a" = "b"  # kept\n', '[pages]\n"a" = "c"  # kept\n'),
        ("[pages]\r\n'a' = 'b.md'\r\n", '[pages]\r\n\'a\' = "c.md"\r\n'),
        ('[pages]\na = "b#sec"\n', '[pages]\na = "c#sec"\n'),
        ('[pages]\n"a" = { to = "b", status = 302 }\n',
         '[pages]\n"a" = { to = "c", status = 302 }\n'),
        ('[pages]\n"c" = "b"\n"x" = "y"\n', '[pages]\n"x" = "y"\n'),  # moved back
        ('# "a" = "b" in a comment\n[pages]\n"ab" = "bb"\n',
         '# "a" = "b" in a comment\n[pages]\n"ab" = "bb"\n'),
    ],
)
def test_retarget_edits_only_the_targets_that_moved(text: str, want: str) -> None:
    from sphinx_relocate.core.git import retarget

    assert retarget(text, _moved_to_c)[0] == want


@given(st.lists(st.tuples(st.sampled_from("abcxy"), st.sampled_from("abcxy")), max_size=6,
                unique_by=lambda entry: entry[0]),
       st.sampled_from(["", "# note\n"]))
def test_retarget_keeps_every_other_line(
    entries: list[tuple[str, str]], comment: str
) -> None:
    """Each entry to ``b`` goes to ``c`` (or, named ``c``, goes); nothing else changes."""
    from sphinx_relocate.core.git import retarget

    text = comment + "[pages]\n" + "".join(f'"{old}" = "{new}"\n' for old, new in entries)
    result, changed = retarget(text, _moved_to_c)
    kept = [
        (old, "c" if new == "b" else new) for old, new in entries
        if not (old == "c" and new == "b")
    ]
    assert result == comment + "[pages]\n" + "".join(f'"{o}" = "{n}"\n' for o, n in kept)
    assert changed == [("pages", old, "c") for old, new in entries if new == "b"]


def test_a_move_leaves_links_it_does_not_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """``mv`` edits what points to its move: a link by an old source file of another page
    (``b.rst`` of ``b.md``), which ``rewrite`` writes anew, is left as written."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('extensions = ["myst_parser"]\n', encoding="utf-8")
    (docs / "index.md").write_text("# Home\n\n[B](b.rst) and [C](c.md)\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n", encoding="utf-8")
    (docs / "c.md").write_text("# C\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "c.md", "d.md"]) == 0
    assert (docs / "index.md").read_text("utf-8") == "# Home\n\n[B](b.rst) and [C](d.md)\n"
    capsys.readouterr()
    assert main(["rewrite", "docs", "--check"]) == 1
    assert capsys.readouterr().out == "index.md:3:5: b.rst → b.md\n"  # no git: from docs


# -- a loaded peer's redirects ---------------------------------------------------------


def test_rediraffe_targets_follow_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """sphinxext-rediraffe, still loaded, checks that each redirect's target exists and
    fails the build when one does not: ``mv`` writes the page's new name into the
    ``rediraffe_redirects`` values that named it (its keys are old names, which stay);
    a value spelled with an escape is not read, as a sidebar key is not."""
    from reorg_fixture import first_commit, write_tree

    from sphinx_relocate.core.spans import conf_targets

    conf = (
        'extensions = ["sphinx_relocate", "sphinxext.rediraffe"]\n'
        "rediraffe_redirects = {\n"
        '    "old.rst": "guide.rst",\n'
        "    'older': 'guide',\n"
        '    "guide.rst": "other.rst",\n'
        '    "kept.rst": "other.rst",\n'
        '    "escaped.rst": "gui\\x64e.rst",\n'
        "}\n"
    )
    write_tree(tmp_path, {
        "docs/conf.py": conf,
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n   other\n",
        "docs/guide.rst": "Guide\n=====\n",
        "docs/other.rst": "Other\n=====\n",
    }, {})
    # the values, as plain literals: not the keys, not one spelled with an escape
    assert [conf[s.start : s.end] for s in conf_targets(conf)] == [
        "guide.rst", "guide", "other.rst", "other.rst"]
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "guide", "manual/guide"]) == 0
    err = capsys.readouterr().err
    assert "rediraffe_redirects 2" in err, err
    moved_conf = conf.replace(
        '"old.rst": "guide.rst"', '"old.rst": "manual/guide.rst"'
    ).replace("'older': 'guide'", "'older': 'manual/guide'")
    assert (tmp_path / "docs/conf.py").read_text("utf-8") == moved_conf
    # --keep-links edits no page, but the peer's redirects are a table, whose targets
    # follow as the table's entries do: the build cannot resolve them for rediraffe
    assert main(["mv", "--keep-links", "docs", "other", "manual/other"]) == 0
    assert "rewrote 2 links in 1 file (rediraffe_redirects 2); 1 file scanned" in (
        capsys.readouterr().err
    )
    assert (tmp_path / "docs/conf.py").read_text("utf-8") == moved_conf.replace(
        '"other.rst"', '"manual/other.rst"'
    )
    assert "   other\n" in (tmp_path / "docs/index.rst").read_text("utf-8")  # left as written


def test_reredirects_targets_follow_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """sphinx-reredirects' targets are URLs relative to their key's folder: those of a
    key at the top of the source folder (conf.py's) follow the move, in the spelling
    written (zarr's ``"release": "developers/release.html"``); one of a key in a folder,
    a pattern's, a URL and a site-absolute one are left alone (they still land, through
    the stub of the moved page)."""
    from reorg_fixture import first_commit, write_tree

    from sphinx_relocate.core.spans import conf_targets

    conf = (
        'extensions = ["sphinx_relocate", "sphinx_reredirects"]\n'
        "redirects = {\n"
        '    "release": "developers/release.html",\n'
        '    "notes": "developers/release.html#notes",\n'
        '    "old/x": "../developers/release.html",\n'
        '    "old*": "developers/release.html",\n'
        '    "site": "/en/latest/developers/release.html",\n'
        '    "away": "https://example.org/developers/release.html",\n'
        "}\n"
    )
    write_tree(tmp_path, {
        "docs/conf.py": conf,
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   developers/release\n",
        "docs/developers/release.rst": "Release\n=======\n\nNotes\n-----\n",
    }, {})
    assert [conf[s.start : s.end] for s in conf_targets(conf)] == [
        "developers/release.html", "developers/release.html#notes"]
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "developers/release", "dev/release"]) == 0
    assert "redirects 2" in capsys.readouterr().err
    moved = conf.replace('"release": "developers/', '"release": "dev/').replace(
        '"notes": "developers/', '"notes": "dev/')
    assert (tmp_path / "docs/conf.py").read_text("utf-8") == moved
    # --keep-links: the peer's table follows as the table's entries do
    assert main(["mv", "--keep-links", "docs", "dev/release", "guide/release"]) == 0
    assert "rewrote 2 links in 1 file (redirects 2); 1 file scanned" in capsys.readouterr().err
    assert (tmp_path / "docs/conf.py").read_text("utf-8") == moved.replace(
        '": "dev/', '": "guide/')


def test_rediraffe_file_targets_follow_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same for rediraffe's redirects file (``rediraffe_redirects = "redirects.txt"``):
    the second path of each line, bare or quoted, follows; comments and old paths stay."""
    from reorg_fixture import first_commit, write_tree

    from sphinx_relocate.core.spans import redirects_file_targets

    redirects = (
        "# old page → its page now\n"
        "old.rst guide.rst\n"
        '  "older page.rst"   "guide.rst"  \n'
        "guide.rst\tother.rst\n"
    )
    write_tree(tmp_path, {
        "docs/conf.py": 'extensions = ["sphinx_relocate", "sphinxext.rediraffe"]\n'
                        'rediraffe_redirects = "redirects.txt"\n',
        "docs/redirects.txt": redirects,
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n   other\n",
        "docs/guide.rst": "Guide\n=====\n",
        "docs/other.rst": "Other\n=====\n",
    }, {})
    assert [redirects[s.start : s.end] for s in redirects_file_targets(redirects)] == [
        "guide.rst", "guide.rst", "other.rst"]
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "guide", "manual/guide"]) == 0
    assert "rediraffe_redirects 2" in capsys.readouterr().err
    moved = redirects.replace(" guide.rst\n", " manual/guide.rst\n").replace(
        '"guide.rst"', '"manual/guide.rst"')
    assert (tmp_path / "docs/redirects.txt").read_text("utf-8") == moved
    assert main(["mv", "--keep-links", "docs", "other", "manual/other"]) == 0
    assert "rewrote 1 link in 1 file (rediraffe_redirects 1)" in capsys.readouterr().err
    assert (tmp_path / "docs/redirects.txt").read_text("utf-8") == moved.replace(
        "\tother.rst", "\tmanual/other.rst")


def test_mv_gives_a_page_another_source_suffix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """setuptools renamed its pages from ``.txt`` to ``.rst``, a MyST migration renames
    ``.rst`` to ``.md``: the page keeps its name and URL (no entry), and links that name
    it by its source file follow it; mv refused it, or wrote ``guide.rst.txt``."""
    repo = make_repo(tmp_path, in_git=True)
    monkeypatch.chdir(repo)
    before = (repo / "docs/relocations.toml").read_text("utf-8")
    assert main(["mv", "docs", "guide/install.md", "guide/install.rst"]) == 0
    assert "no entry needed" in capsys.readouterr().err
    assert (repo / "docs/guide/install.rst").is_file()
    assert (repo / "docs/relocations.toml").read_text("utf-8") == before
    index = (repo / "docs/index.md").read_text("utf-8")
    assert "[Install](guide/install.rst) and [its section](guide/install.rst#from-source)" \
        in index
    assert "{doc}`guide/install`" in index and "\nguide/install\n" in index


def test_mv_leaves_no_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pydata-sphinx-theme moved the last page out of ``contribute/``: ``git mv`` left
    the folder, empty."""
    repo = make_repo(tmp_path, in_git=True)
    monkeypatch.chdir(repo)
    assert main(["mv", "docs", "guide/install.md", "manual/install.md"]) == 0
    assert (repo / "docs/guide").is_dir()  # usage.md is still there
    assert main(["mv", "docs", "guide/usage.md", "manual/usage.md"]) == 0
    assert not (repo / "docs/guide").exists()
    assert (repo / "docs").is_dir()
