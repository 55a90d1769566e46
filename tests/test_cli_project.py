"""What every command reads: the docs folder it finds (or refuses), its conf.py (run, or
read as literals when running it fails) and the table, each said in one line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from reorg_fixture import committed_hook_repo, first_commit, git, write_tree

from sphinx_relocate.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
GATES = {
    "check": ["check"],
    "rewrite --check": ["rewrite", "--check"],
    "from-git --check": ["from-git", "--check"],
}
#: A conf.py that imports the project's own package, which is not installed here.
CONF_IMPORTING = (
    '"""Docs of mypkg."""\n'
    "from mypkg import __version__\n\n"
    'project = "mypkg"\n'
    "release = __version__\n"
    'extensions = ["sphinx_relocate"]\n'
    'exclude_patterns = ["_build"]\n'
    # read for its literal entries (the theme's repository), not as a whole
    "html_theme_options = {'version': __version__, 'source_repository': 'https://f.example/o/r'}\n"
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def page(title: str, text: str = "") -> str:
    """A page with text of its own, so git pairs its rename and nothing else."""
    return f"{title}\n{'=' * len(title)}\n\n{title}: " + " ".join([title] * 30) + f"\n{text}"


def make_source_repo(root: Path, conf: str = 'extensions = ["sphinx_relocate"]\n') -> str:
    """A repository whose conf.py is in ``docs/source``: the table moves ``setup``, the
    index still links to it (a link to rewrite), and ``other`` is renamed with no entry
    (staged).  Returns the first commit."""
    write_tree(root, {
        "README.md": "# proj\n",
        "docs/source/conf.py": conf,
        "docs/source/relocations.toml": '[pages]\n"setup" = "guide/setup"\n',
        "docs/source/index.rst": page("Index", "\nSee :doc:`setup`.\n"),
        "docs/source/guide/setup.rst": page("Setup"),
        "docs/source/other.rst": page("Other"),
    }, {})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    git(root, "mv", "docs/source/other.rst", "docs/source/other2.rst")
    return git(root, "rev-parse", "HEAD").strip()


# -- finding the docs folder --------------------------------------------------------------


@pytest.mark.parametrize("gate", sorted(GATES))
def test_a_folder_without_conf_py_below_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    gate: str,
) -> None:
    """No conf.py (a package's settings module without pages does not count): exit 2,
    one line saying where the command looked."""
    write_tree(tmp_path, {"README.md": "# x\n", "src/pkg/conf.py": "DEBUG = True\n"}, {})
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    command, *options = GATES[gate]
    status, out, err = run(capsys, command, ".", *options)
    assert (status, out) == (2, [])
    assert err.splitlines() == [
        "sphinx-relocate: error: .: no conf.py in it or below it (looked in docs, doc, "
        "docs/source, doc/source, …, 3 levels down); src/pkg/conf.py has no pages next to "
        "it: give the folder with conf.py"
    ]


def test_a_jupyter_book_without_conf_py_is_told_how_to_make_one(tmp_path, capsys,
                                                                 monkeypatch) -> None:
    """Jupyter Book 1 keeps its settings in ``_config.yml``: the conf.py the commands read
    is one command away, and the error names it."""
    write_tree(tmp_path, {
        "book/_config.yml": "title: A book\n", "book/_toc.yml": "root: intro\n",
        "book/intro.md": "# Intro\n",
    }, {})
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "rewrite", "book")
    assert (status, out) == (2, [])
    assert err.splitlines() == [
        "sphinx-relocate: error: book: no conf.py in it or below it (looked in docs, doc, "
        "docs/source, doc/source, …, 3 levels down): book is a Jupyter Book: "
        "`jupyter-book config sphinx book` writes the conf.py its build uses"
    ]


@pytest.mark.parametrize("gate", sorted(GATES))
def test_a_folder_with_two_conf_py_below_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    gate: str,
) -> None:
    write_tree(tmp_path, {
        f"docs/{lang}/{name}": text
        for lang in ("en", "zh")
        for name, text in (("conf.py", ""), ("index.rst", page("Index")))
    }, {})
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    command, *options = GATES[gate]
    status, out, err = run(capsys, command, ".", *options)
    assert (status, out) == (2, [])
    assert err.splitlines() == [
        "sphinx-relocate: error: .: no conf.py in it, 2 below it (docs/en/conf.py, "
        "docs/zh/conf.py): give one folder"
    ]


@pytest.mark.parametrize("gate", sorted(GATES))
def test_the_repository_root_finds_docs_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    gate: str,
) -> None:
    """Given the repository root, each gate uses ``docs/source/conf.py``, says so and what
    it read, and finds what is there: a stale link, a rename without an entry."""
    make_source_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    command, *options = GATES[gate]
    status, out, err = run(capsys, command, ".", *options)
    lines = err.splitlines()
    assert lines[0] == "no conf.py in .: using docs/source/conf.py"
    read = "read docs/source/conf.py; table docs/source/relocations.toml: 1 entry"
    if gate == "check":
        assert (status, out) == (0, [])
        assert lines[1:] == ["relocation table OK: docs/source/relocations.toml: 1 entry"]
        return
    assert lines[1] == read
    assert status == 1
    if gate == "rewrite --check":
        assert len(out) == 1 and out[0].startswith("docs/source/index.rst:"), out
        assert lines[-1].endswith("; 5 files scanned")  # README, the three pages, conf.py
    else:
        assert out == ["docs/source/relocations.toml: other was renamed to other2 since HEAD "
                       "and has no entry"]


def test_check_without_a_table_checks_nothing_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Never "OK: 0 entries": with no table it says where it looked (exit 2); an empty
    table file is no better; rewrite says the same."""
    write_tree(tmp_path, {"docs/conf.py": "", "docs/index.rst": page("Index")}, {})
    monkeypatch.chdir(tmp_path)
    looked = ("docs/relocations.toml, relocate_map, redirects or rediraffe_redirects in "
              "docs/conf.py")
    assert run(capsys, "check", "docs") == (2, [], (
        f"sphinx-relocate: error: no relocation table (looked for {looked}): nothing to check\n"
    ))
    status, _, err = run(capsys, "rewrite", "docs", "--check")
    assert status == 2
    assert err.splitlines()[-1] == (
        f"sphinx-relocate: error: no relocation table (looked for {looked}): nothing to rewrite"
    )
    (tmp_path / "docs/relocations.toml").write_text("# no moves yet\n[pages]\n", "utf-8")
    assert run(capsys, "check", "docs") == (2, [], (
        "sphinx-relocate: error: no relocation entries in docs/relocations.toml: "
        "nothing to check\n"
    ))
    # from-git --check has something to check without a table: the renames
    status, _, err = run(capsys, "from-git", "docs", "--check")
    assert status == 2 and "not inside a git work tree" in err


# -- a conf.py that cannot run here --------------------------------------------------------


def test_every_command_reads_a_conf_py_that_imports_an_uninstalled_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_source_repo(tmp_path, CONF_IMPORTING)
    monkeypatch.chdir(tmp_path)
    note = (
        "note: docs/source/conf.py:2: cannot run it here (ModuleNotFoundError: No module "
        "named 'mypkg'); read as literals: exclude_patterns, extensions, html_theme_options"
    )
    for command in (["check"], ["rewrite", "--check"], ["rewrite"], ["from-git", "--check"],
                    ["from-git"], ["import"]):
        status, _, err = run(capsys, command[0], "docs/source", *command[1:])
        assert note in err.splitlines(), (command, err)
        assert "Traceback" not in err
        assert status == {"check": 0, "from-git": 1 if "--check" in command else 0,
                          "rewrite": 1 if "--check" in command else 0, "import": 0}[command[0]]
    status, _, _ = run(capsys, "rewrite", "docs/source", "--write")
    assert status == 0
    assert ":doc:`guide/setup`" in (tmp_path / "docs/source/index.rst").read_text("utf-8")


def test_a_setting_that_is_not_a_literal_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = CONF_IMPORTING + (
        "source_suffix = {'.rst': 'restructuredtext'}\n"
        "if __version__:\n    language = 'en'\n"
        "extensions.append('myst_parser')\n"
        "extensions += ['sphinx.ext.todo']\n"
        "exclude_patterns = [p for p in ('drafts',)]\n"
    )
    make_source_repo(tmp_path, conf)
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "check", "docs/source")
    assert status == 0
    assert err.splitlines()[0] == (
        "note: docs/source/conf.py:2: cannot run it here (ModuleNotFoundError: No module "
        "named 'mypkg'); read as literals: extensions, html_theme_options, source_suffix; "
        "not read: "
        "exclude_patterns (line 14: not a literal), language (line 10: set by a "
        "statement that only running conf.py can read)"
    )


# -- conf.py values of the wrong type (D16) -------------------------------------------------


@pytest.mark.parametrize(("setting", "shown"), [
    ('source_suffix = [".md", 5]', "source_suffix must hold strings only, not int 5: "
                                   "['.md', 5]"),
    ("exclude_patterns = [5]", "exclude_patterns must hold strings only, not int 5: [5]"),
    ("locale_dirs = [5]", "locale_dirs must hold strings only, not int 5: [5]"),
    ("source_suffix = {'.md': 5}", "source_suffix must hold strings only, not int 5: "
                                    "{'.md': 5}"),
])
@pytest.mark.parametrize("command", ["check", "rewrite", "from-git", "import"])
def test_a_list_item_of_the_wrong_type_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    setting: str, shown: str, command: str,
) -> None:
    write_tree(tmp_path, {
        "docs/conf.py": f'project = "x"\n{setting}\n',
        "docs/relocations.toml": '[pages]\n"a" = "index"\n',
        "docs/index.rst": page("Index"),
    }, {})
    monkeypatch.chdir(tmp_path)
    assert run(capsys, command, "docs") == (2, [], f"sphinx-relocate: error: docs/conf.py:2: "
                                                    f"{shown}\n")


# -- --version, python -m -------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from sphinx_relocate import __version__

    for option in ("--version", "-V"):
        assert main([option]) == 0
        assert capsys.readouterr().out == f"sphinx-relocate {__version__}\n"
    done = subprocess.run([sys.executable, "-m", "sphinx_relocate", "--version"],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout) == (0, f"sphinx-relocate {__version__}\n")
    done = subprocess.run([sys.executable, "-m", "sphinx_relocate"],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and done.stderr.startswith("usage: sphinx-relocate")


# -- the pre-commit hooks -------------------------------------------------------------------


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed copy of this project, for ``pre-commit try-repo``."""
    pytest.importorskip("pre_commit")
    return committed_hook_repo(tmp_path_factory.mktemp("hooks"))


def try_repo(hooks: Path, project: Path) -> tuple[int, str]:
    """Every hook of the manifest with its default ``args`` (the repository root)."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)  # the hooks run the copy pre-commit installed
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "--all-files"],
        cwd=project, env=env, capture_output=True, text=True, check=False,
    )
    return done.returncode, done.stdout + done.stderr


def verdicts(out: str) -> list[tuple[str, str]]:
    return re.findall(r"^(sphinx-relocate .*?)\.+(Passed|Failed)$", out, re.MULTILINE)


def test_pre_commit_hooks_find_docs_source_in_a_project_that_imports_itself(
    hooks: Path, tmp_path: Path
) -> None:
    """From the repository root (the default ``args``), the hooks find
    ``docs/source/conf.py``, read it although it imports the uninstalled package, and
    fail on the stale link and the rename without an entry."""
    make_source_repo(tmp_path, CONF_IMPORTING)
    git(tmp_path, "add", "-A")
    status, out = try_repo(hooks, tmp_path)
    assert status == 1, out
    assert verdicts(out) == [
        ("sphinx-relocate check", "Passed"),
        ("sphinx-relocate from-git --check", "Failed"),
        ("sphinx-relocate rewrite --check", "Failed"),
    ], out
    assert "no conf.py in .: using docs/source/conf.py" in out
    assert "note: docs/source/conf.py:2: cannot run it here (ModuleNotFoundError" in out
    assert "docs/source/relocations.toml: other was renamed to other2 since HEAD" in out
    assert "docs/source/index.rst:" in out


def test_pre_commit_hooks_refuse_a_project_without_conf_py_or_with_two(
    hooks: Path, tmp_path: Path
) -> None:
    write_tree(tmp_path, {"README.md": "# x\n"}, {})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    status, out = try_repo(hooks, tmp_path)
    assert status == 1, out
    assert [verdict for _, verdict in verdicts(out)] == ["Failed"] * 3, out
    assert out.count("sphinx-relocate: error: .: no conf.py in it or below it") == 3, out
    assert out.count("- exit code: 2") == 3, out
    write_tree(tmp_path, {
        f"docs/{lang}/{name}": text
        for lang in ("en", "zh")
        for name, text in (("conf.py", ""), ("index.rst", page("Index")))
    }, {})
    git(tmp_path, "add", "-A")
    status, out = try_repo(hooks, tmp_path)
    assert status == 1, out
    assert out.count("sphinx-relocate: error: .: no conf.py in it, 2 below it "
                     "(docs/en/conf.py, docs/zh/conf.py): give one folder") == 3, out
    assert out.count("- exit code: 2") == 3, out


# -- reading files: FIFOs (D17), dot-folders outside git -------------------------------------


def run_command(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, so that a read that blocks fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx_relocate", *args], cwd=cwd, capture_output=True,
        text=True, check=False, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_never_read(tmp_path: Path) -> None:
    """Outside a git work tree ``rewrite`` lists files itself, and ``check`` reads the
    labels of the sources: a FIFO named like a page is skipped, not read (it would block
    until something writes to it)."""
    write_tree(tmp_path, {
        "docs/conf.py": "",
        "docs/relocations.toml": '[pages]\n"setup" = "guide/setup"\n\n[labels]\n"old" = "new"\n',
        "docs/index.rst": page("Index", "\n.. _new:\n\nSee :doc:`setup`.\n"),
        "docs/guide/setup.rst": page("Setup"),
    }, {})
    os.mkfifo(tmp_path / "docs/pipe.rst")
    os.mkfifo(tmp_path / "docs/guide/notes.md")
    done = run_command(tmp_path, "rewrite", "docs", "--check")
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("index.rst:")
    done = run_command(tmp_path, "check", "docs")
    assert done.returncode == 0, done.stdout + done.stderr


def test_rewrite_outside_git_reads_dot_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's skill file in ``.agents/`` that names a moved page is rewritten; the
    folders of tools (``.tox``, ``.venv``, caches) and build output are not read."""
    link = "[setup](../../../docs/setup.md)\n"
    write_tree(tmp_path, {
        "docs/conf.py": 'extensions = ["myst_parser"]\n',
        "docs/relocations.toml": '[pages]\n"setup" = "guide/setup"\n',
        "docs/index.md": "# Index\n",
        "docs/guide/setup.md": "# Setup\n",
        ".agents/skills/docs/SKILL.md": link,
        ".tox/py/lib/README.md": link,
        ".mypy_cache/x/README.md": link,
        "out/html/.buildinfo": "",
        "out/html/_sources/x/y/README.md": link,
    }, {})
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "rewrite", "docs", "--check", "--repo-root", ".")
    assert status == 1, err
    assert len(out) == 1 and out[0].startswith(".agents/skills/docs/SKILL.md:"), out
    assert run(capsys, "rewrite", "docs", "--write", "--repo-root", ".")[0] == 0
    assert (tmp_path / ".agents/skills/docs/SKILL.md").read_text("utf-8") == (
        "[setup](../../../docs/guide/setup.md)\n"
    )
    assert (tmp_path / ".tox/py/lib/README.md").read_text("utf-8") == link


# -- a symlinked table (D9) ---------------------------------------------------------------


def test_write_goes_through_a_symlinked_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table shared through a symlink stays a link: ``from-git --write`` and
    ``import --write`` update the file it points to."""
    make_source_repo(tmp_path, 'redirects = {"faq": "index.html"}\n')
    docs = tmp_path / "docs/source"
    shared = tmp_path / "shared.toml"
    (docs / "relocations.toml").rename(shared)
    (docs / "relocations.toml").symlink_to("../../shared.toml")
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "from-git", "docs/source", "--write")[0] == 0
    assert run(capsys, "import", "docs/source", "--write")[0] == 0
    assert (docs / "relocations.toml").is_symlink()
    assert os.readlink(docs / "relocations.toml") == "../../shared.toml"
    assert shared.read_text("utf-8") == (
        '[pages]\n"setup" = "guide/setup"\n"other" = "other2"\n'
        '"faq" = "index"  # docs/source/conf.py:1: redirects "faq": "index.html"\n'
    )


# -- renames git cannot see ----------------------------------------------------------------


def test_from_git_names_deleted_and_added_pages_it_could_not_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A short page moved and rewritten in the same commit (``rewrite --write`` after the
    move) is below git's similarity: it shows as deleted, and the page of the same name
    that was added is named as its candidate."""
    write_tree(tmp_path, {
        "docs/conf.py": "",
        "docs/index.rst": page("Index", "\n:doc:`guide/faq`\n"),
        "docs/guide/faq.rst": "FAQ\n===\n\nAsk.\n",
        "docs/guide/other.rst": page("Other"),
    }, {})
    base = first_commit(tmp_path, "docs")
    git(tmp_path, "rm", "-q", "docs/guide/faq.rst")
    write_tree(tmp_path, {"docs/help/faq.rst": "Questions\n=========\n\nSee :doc:`../index`.\n"},
               {})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "moved and rewritten")
    monkeypatch.chdir(tmp_path)
    hint = ('docs/guide/faq: deleted, and docs/help/faq added: git did not pair them (less '
            'than 50% alike); if the page moved, its entry is "guide/faq" = "help/faq"')
    status, out, err = run(capsys, "from-git", "docs", "--since", base)
    assert status == 0
    assert hint in err.splitlines()
    assert '# "guide/faq" = ""  # deleted: needs a target' in out
    status, out, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert status == 1
    assert hint in err.splitlines()
    (tmp_path / "docs/relocations.toml").write_text('[pages]\n"guide/faq" = "help/faq"\n')
    status, _, err = run(capsys, "from-git", "docs", "--since", base, "--check")
    assert status == 0 and "did not pair" not in err


def test_a_syntax_warning_of_conf_py_is_not_said_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the devguide's conf.py of 2022 had '\/.*' in linkcheck_ignore: Python warns
    # once when Sphinx runs it; reading its syntax tree again said it at <unknown>
    conf = 'extensions = ["sphinx_relocate"]\nlinkcheck_ignore = ["\\/.*"]\n'
    make_source_repo(tmp_path, conf)
    monkeypatch.chdir(tmp_path)
    for command in (["check"], ["rewrite"], ["rewrite", "--mentions"]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run(capsys, command[0], "docs/source", *command[1:])
        # a SyntaxWarning since Python 3.12, a DeprecationWarning before
        said = [str(w.filename) for w in caught if "invalid escape" in str(w.message)]
        assert said and all(name.endswith("conf.py") for name in said), (command, said)


def test_what_conf_py_prints_goes_to_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Spack's conf.py runs ``spack commands``, which prints ``==> Updating file: …``: on
    stdout it went into ``from-git > relocations.toml`` and made the file no TOML.  What
    conf.py and the programs it starts print goes to stderr; stdout is the command's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        "import subprocess, sys\n"
        "print('printed by conf.py')\n"
        "subprocess.call([sys.executable, '-c', 'print(\"printed by a program\")'])\n"
    )
    (docs / "relocations.toml").write_text('[pages]\n"old" = "new"\n')
    (docs / "new.rst").write_text("New\n===\n")
    (docs / "index.rst").write_text("Home\n====\n\nSee :doc:`old`.\n\n.. toctree::\n\n   new\n")
    assert main(["rewrite", str(docs)]) == 0
    out, err = capfd.readouterr()
    assert out.startswith("--- a/index.rst\n+++ b/index.rst\n"), out
    assert "printed by" not in out
    assert "printed by conf.py" in err and "printed by a program" in err
    print("still the command's")  # stdout is given back
    assert capfd.readouterr().out == "still the command's\n"
