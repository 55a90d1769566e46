"""``sphinx-relocate rewrite`` end to end on a reorganized git repository.

The flow of the guide: move files (the fixture), ``from-git --write``, give the deleted
page a target, ``rewrite --write``; then a plain Sphinx build (the extension NOT
enabled) has no warnings, every README link exists on disk, a second run is a no-op
and the word diff shows only link targets.
"""

from __future__ import annotations

import codecs
import io
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from reorg_fixture import REPO_URL, git, make_reorganized_repo
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from sphinx_relocate.cli.main import main
from sphinx_relocate.core import rewrite as _rewrite
from sphinx_relocate.core.rewrite import find_targets


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "repo"
    base = make_reorganized_repo(root)
    monkeypatch.chdir(root)
    assert main(["from-git", "docs/zh", "--since", base, "--write"]) == 0
    table = root / "docs/zh/relocations.toml"
    text = table.read_text(encoding="utf-8")
    table.write_text(
        text.replace(
            '# "pytorch/old_page" = ""  # deleted: needs a target',
            '"pytorch/old_page" = "https://example.org/old-page"',
        ),
        encoding="utf-8",
    )
    return root, base


def plain_build(srcdir: Path, outdir: Path) -> str:
    """Warnings of an HTML build without sphinx_relocate (only myst_parser)."""
    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(
            srcdir, srcdir, outdir, outdir / ".doctrees", "html",
            status=None, warning=warnings, freshenv=True,
            confoverrides={"extensions": ["myst_parser"]},
        )
        app.build()
    return warnings.getvalue()


def all_targets(root: Path) -> set[str]:
    """Every written link target of every Markdown file."""
    found = set()
    for path in root.rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        found.update(text[s.start : s.end] for s in find_targets(text, path.name))
    return found


def readme_targets(root: Path) -> list[tuple[Path, str]]:
    """Every relative link target of the READMEs outside the docs."""
    found = []
    for readme in (root / "README.md", root / "examples/demo/README.md"):
        text = readme.read_text(encoding="utf-8")
        for span in find_targets(text, readme.name):
            target = text[span.start : span.end]
            if "://" not in target and not target.startswith("#"):
                found.append((readme, target))
    return found


def test_rewrite_fixes_the_sources(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = repo
    capsys.readouterr()
    before = {p: p.read_bytes() for p in root.rglob("*.md") if ".git" not in p.parts}

    # default: a diff, nothing changed
    assert main(["rewrite", "docs/zh"]) == 0
    out, err = capsys.readouterr()
    assert "+++ b/examples/demo/README.md" in out
    assert "-- [安装](docs/zh/pytorch/install_guide.md)\n" in out
    assert "+- [安装](docs/zh/guides/install_guide.md)\n" in out
    assert re.search(r"would rewrite \d+ links in 9 files \(.*repo-url 3.*\)", err), err
    assert {p: p.read_bytes() for p in before} == before

    # --check: exit 1, one line per link
    assert main(["rewrite", "docs/zh", "--check"]) == 1
    out = capsys.readouterr().out
    assert len([line for line in out.splitlines() if line.startswith("README.md:")]) == 6

    # the plain build is broken before the rewrite
    assert "WARNING" in plain_build(root / "docs/zh", tmp_path / "broken")

    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "moved")
    old_targets = all_targets(root)
    assert main(["rewrite", "docs/zh", "--write"]) == 0
    assert "rewrote" in capsys.readouterr().err
    new_targets = all_targets(root)

    # a plain Sphinx build has zero warnings
    assert plain_build(root / "docs/zh", tmp_path / "out") == ""
    # every relative link of the READMEs exists on disk
    targets = readme_targets(root)
    assert len(targets) == 6
    for readme, target in targets:
        path = target.split("#")[0]
        assert (readme.parent / path).exists() or (readme.parent / _unquote(path)).exists(), target

    # a second run is a no-op
    assert main(["rewrite", "docs/zh", "--check"]) == 0
    assert "nothing to rewrite" in capsys.readouterr().err

    # the word diff shows only link targets
    diff = git(
        root, "diff", "--word-diff=porcelain",
        "--word-diff-regex=[^][()<>\"' \t`]+", "--", "*.md",
    )
    removed = [line[1:].strip("<>()[]\"' ") for line in diff.splitlines() if line.startswith("-")
               and not line.startswith("---")]
    added = [line[1:].strip("<>()[]\"' ") for line in diff.splitlines() if line.startswith("+")
             and not line.startswith("+++")]
    assert len(removed) == len(added) > 20
    for token in removed:
        assert token in old_targets or token.startswith(REPO_URL), token
    for token in added:
        assert token in new_targets or token.startswith((REPO_URL, "https://example.org/")), token

def _unquote(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text)


def test_rewrite_usage_errors(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = repo
    assert main(["rewrite", "docs/zh", "--check", "--write"]) == 2
    assert main(["rewrite", "no/such/dir"]) == 2
    assert "no/such/dir: not a folder" in capsys.readouterr().err
    assert main(["rewrite", "docs/zh", "--repo-root", str(tmp_path / "repo/examples")]) == 2
    assert "not inside the repository root" in capsys.readouterr().err
    bad = root / "docs/zh/relocations.toml"
    bad.write_text('[pages]\n"a" = "a"\n', encoding="utf-8")
    assert main(["rewrite", "docs/zh"]) == 2
    err = capsys.readouterr().err
    assert "relocations.toml:2:" in err and "Traceback" not in err


def test_mentions_flag(repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = repo
    tool = root / "tools/build.py"
    tool.parent.mkdir()
    tool.write_text('"""Reads docs/zh/pytorch/install_guide.md."""\n', encoding="utf-8")
    (root / "NOTES.md").write_text("Edit `docs/zh/features/fsdp2.md`.\n", encoding="utf-8")
    assert main(["rewrite", "docs/zh", "--write"]) == 0
    assert "pytorch" in tool.read_text(encoding="utf-8")
    assert main(["rewrite", "docs/zh", "--write", "--mentions"]) == 0
    assert tool.read_text(encoding="utf-8") == '"""Reads docs/zh/guides/install_guide.md."""\n'
    assert (root / "NOTES.md").read_text(encoding="utf-8") == (
        "Edit `docs/zh/features/parallel/fsdp2.md`.\n"
    )
    assert "mention 2" in capsys.readouterr().err


def _files(base: Path) -> dict[Path, bytes]:
    return {
        p.relative_to(base): p.read_bytes()
        for p in base.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }


def _in_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_rewrite, "PARALLEL_FILES", 1)
    monkeypatch.setattr(_rewrite, "_usable_cpus", lambda: 2)


def test_worker_processes_rewrite_exactly_as_one_process(
    repo: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, _ = repo
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    capsys.readouterr()
    assert main(["rewrite", "docs/zh"]) == 0
    serial_diff = capsys.readouterr().out
    assert main(["rewrite", "docs/zh", "--check"]) == 1
    serial_check = capsys.readouterr().out
    assert main(["rewrite", "docs/zh", "--write"]) == 0
    serial = capsys.readouterr().err

    monkeypatch.chdir(copy)
    _in_worker_processes(monkeypatch)
    assert main(["rewrite", "docs/zh"]) == 0
    assert capsys.readouterr().out == serial_diff
    assert main(["rewrite", "docs/zh", "--check"]) == 1
    assert capsys.readouterr().out == serial_check
    assert main(["rewrite", "docs/zh", "--write"]) == 0
    assert capsys.readouterr().err == serial
    assert _files(copy) == _files(root)


@pytest.mark.parametrize("workers", [False, True])
def test_a_file_that_cannot_be_written_is_one_line(
    repo: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    workers: bool,
) -> None:
    write = _rewrite.write_source

    def refuse_the_readme(path: Path, source: _rewrite.SourceFile, text: str) -> None:
        if path.name == "README.md" and path.parent.name != "demo":
            raise PermissionError(13, "Permission denied")
        write(path, source, text)

    monkeypatch.setattr(_rewrite, "write_source", refuse_the_readme)
    if workers:
        if multiprocessing.get_start_method() != "fork":
            pytest.skip("the refusing writer reaches worker processes only through fork")
        _in_worker_processes(monkeypatch)
    capsys.readouterr()
    assert main(["rewrite", "docs/zh", "--write"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        "sphinx-relocate: error: README.md: cannot write: Permission denied"
    )
    assert "Traceback" not in err


def test_a_file_that_would_parse_worse_is_left_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A grid table indented with a tab is not one the re-padding knows: splicing the
    longer target would break it, so the file is named and left untouched (exit 1), and
    the files that parse as well as before are still written."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text('extensions = ["sphinx_relocate"]\n', "utf-8")
    (docs / "relocations.toml").write_text('[pages]\n"setup" = "guide/setup"\n', "utf-8")
    (docs / "guide" / "setup.rst").write_text("Setup\n=====\n", "utf-8")
    table = (
        "Index\n=====\n\n.. note::\n\n"
        "\t+--------+----------------+\n"
        "\t| Page   | Link           |\n"
        "\t+========+================+\n"
        "\t| Setup  | :doc:`setup`   |\n"
        "\t+--------+----------------+\n"
    )
    (docs / "index.rst").write_text(table, "utf-8")
    (docs / "other.rst").write_text("Other\n=====\n\nSee :doc:`setup`.\n", "utf-8")
    assert main(["rewrite", str(docs), "--write"]) == 1
    err = capsys.readouterr().err
    refused = "index.rst: left as it is: rewriting it would add a parse error"
    # (docutils reports the table at its first or its last line, by version)
    assert re.search(re.escape(refused) + r" \(line \d+: Malformed table\.\)", err), err
    assert (docs / "index.rst").read_text("utf-8") == table
    assert ":doc:`guide/setup`" in (docs / "other.rst").read_text("utf-8")


def test_rewrite_reads_what_git_tracks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a git work tree: dot-folders are read (``.agents/``), ignored files are not,
    and a file not yet added is (it will be)."""
    root = tmp_path / "repo"
    (root / "docs" / "guide").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text('extensions = ["myst_parser"]\n', "utf-8")
    (root / "docs" / "relocations.toml").write_text('[pages]\n"setup" = "guide/setup"\n', "utf-8")
    (root / "docs" / "guide" / "setup.md").write_text("# Setup\n", "utf-8")
    written = {
        ".agents/skills/build/SKILL.md": "../../../",
        "notes/ignored/README.md": "../../",
        "new/README.md": "../",
    }
    for path, up in written.items():
        (root / path).parent.mkdir(parents=True)
        (root / path).write_text(f"See [setup]({up}docs/setup.md).\n", "utf-8")
    (root / ".gitignore").write_text("notes/ignored/\n", "utf-8")
    git(root, "init", "-q")
    git(root, "add", ".gitignore", "docs", ".agents")
    git(root, "commit", "-qm", "docs")
    assert main(["rewrite", str(root / "docs"), "--write"]) == 0
    capsys.readouterr()
    for path, up in written.items():
        target = "setup.md" if "ignored" in path else "guide/setup.md"
        assert (root / path).read_text("utf-8") == f"See [setup]({up}docs/{target}).\n"


# -- one finding per link, at its own line and column (22.4) ---------------------------

_MYST_FINDINGS = """\
# Concepts

First line of a paragraph,
second [Install](install.rst) and
third line {doc}`install`.

| A | B |
| --- | --- |
| x | [I](install.rst) |

- item
- an item with [I](install.rst)
"""
_REST_FINDINGS = """\
Concepts
========

First line,
second :doc:`install`
third `I <install.html>`_.

+------+------------------+
| x    | :doc:`install`   |
+------+------------------+

- item
- item :doc:`install`
"""


def test_check_names_each_link_at_its_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    (docs / "getting-started").mkdir(parents=True)
    (docs / "conf.py").write_text('extensions = ["myst_parser"]\n', "utf-8")
    (docs / "relocations.toml").write_text(
        '[pages]\n"install" = "getting-started/installation"\n', "utf-8"
    )
    (docs / "getting-started" / "installation.rst").write_text("Install\n=======\n", "utf-8")
    (docs / "concepts.md").write_text(_MYST_FINDINGS, "utf-8")
    (docs / "reference.rst").write_text(_REST_FINDINGS, "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--check"]) == 1
    new = "getting-started/installation"
    assert capsys.readouterr().out.splitlines() == [
        f"concepts.md:4:18: install.rst → {new}.rst",  # 2nd line of a paragraph
        f"concepts.md:5:18: install → {new}",  # 3rd line
        f"concepts.md:9:11: install.rst → {new}.rst",  # a table cell
        f"concepts.md:12:20: install.rst → {new}.rst",  # a list item
        f"reference.rst:5:14: install → {new}",
        f"reference.rst:6:11: install.html → {new}.html",
        f"reference.rst:9:16: install → {new}",
        f"reference.rst:13:14: install → {new}",
    ]
    assert main(["rewrite", "docs", "--check", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"::error file=docs/concepts.md,line=4,col=18::install.rst → {new}.rst"
    )
    assert lines[-1] == f"::error file=docs/reference.rst,line=13,col=14::install → {new}"
    assert len(lines) == 8


# -- the default diff is a patch git and patch apply (D20) -----------------------------

_PATCH_FILES: dict[str, bytes] = {
    "no-newline.md": b"# A\n\nSee [I](install.md).",
    "bom.md": codecs.BOM_UTF8 + b"[I](install.md) first\n\nrest\n",
    "crlf.md": b"# C\r\n\r\nSee [I](install.md).\r\nend\r\n",
    "separators.md": "x\x0cy\u2028z [I](install.md)\x1cw\nlast".encode(),
    "cr-only.md": b"# R\r\rSee [I](install.md).\r",
}


def _patch_project(root: Path) -> None:
    (root / "docs" / "guide").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text('extensions = ["myst_parser"]\n', "utf-8")
    (root / "docs" / "relocations.toml").write_text('[pages]\n"install" = "guide/install"\n')
    (root / "docs" / "guide" / "install.md").write_text("# Install\n", "utf-8")
    for name, data in _PATCH_FILES.items():
        (root / "docs" / name).write_bytes(data)
    (root / "docs" / "utf16.md").write_bytes(
        codecs.BOM_UTF16_LE + "# U\n\n[I](install.md)\n".encode("utf-16-le")
    )


def _run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    code = "import sys; from sphinx_relocate.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, check=False,
        env={**os.environ, "PYTHONPATH": str(Path(_rewrite.__file__).parent.parent)},
    )


def test_the_diff_is_a_patch_git_apply_and_patch_accept(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _patch_project(root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    done = _run_cli(root, "rewrite", "docs")
    assert done.returncode == 0, done.stderr
    patch = done.stdout
    for name in _PATCH_FILES:
        assert f"+++ b/docs/{name}\n".encode() in patch
    assert b"\\ No newline at end of file\n" in patch
    assert b"+" + codecs.BOM_UTF8 + b"[I](guide/install.md) first\n" in patch
    # the UTF-16 file is named, not left out silently
    assert b"utf16.md" not in patch
    assert b"docs/utf16.md: not in the diff: a UTF-16-LE file cannot be shown" in done.stderr
    (tmp_path / "rewrite.patch").write_bytes(patch)

    written = tmp_path / "written"
    shutil.copytree(root, written)
    assert _run_cli(written, "rewrite", "docs", "--write").returncode == 0
    checked = subprocess.run(
        ["git", "apply", "--check", str(tmp_path / "rewrite.patch")], cwd=root,
        capture_output=True, text=True, check=False,
    )
    assert checked.returncode == 0, checked.stderr
    subprocess.run(["git", "apply", str(tmp_path / "rewrite.patch")], cwd=root, check=True)
    for name in _PATCH_FILES:  # the patch makes the very bytes --write writes
        assert (root / "docs" / name).read_bytes() == (written / "docs" / name).read_bytes()

    if shutil.which("patch") is None:
        if os.environ.get("CI"):
            pytest.fail("GNU patch is not installed (Debian package 'patch')")
        pytest.skip("GNU patch is not installed (Debian package 'patch'): not checked with it")
    git(root, "checkout", "-q", "--", ".")
    dry = subprocess.run(
        ["patch", "-p1", "--dry-run", "--batch", "-i", str(tmp_path / "rewrite.patch")],
        cwd=root, capture_output=True, text=True, check=False,
    )
    assert dry.returncode == 0, dry.stdout + dry.stderr
    subprocess.run(
        ["patch", "-p1", "--batch", "--quiet", "-i", str(tmp_path / "rewrite.patch")],
        cwd=root, check=True,
    )
    for name in _PATCH_FILES:
        assert (root / "docs" / name).read_bytes() == (written / "docs" / name).read_bytes()


# -- a deleted page mapped to a URL in a toctree keeps its title ------------------------


@pytest.mark.parametrize("markdown", [False, True], ids=["rst", "myst"])
@pytest.mark.parametrize("in_git", [False, True], ids=["no-git", "git"])
def test_toctree_entry_to_a_url_keeps_its_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    markdown: bool, in_git: bool,
) -> None:
    """An explicit title stays; without one, the old page's title comes from git, and
    when git does not have it the entry is named (build warning, rewrite line) rather
    than shown or written as a bare URL."""
    from sphinx.testing.util import SphinxTestApp

    docs = tmp_path / "docs"
    docs.mkdir()
    if in_git:  # the deleted page's last version in git has its title
        git(tmp_path, "init", "-q")
        suffix = ".md" if markdown else ".rst"
        title = "# Project history\n" if markdown else "Project history\n===============\n"
        (docs / f"history{suffix}").write_text(f"{title}\nOld text.\n", "utf-8")
        git(tmp_path, "add", "-A")
        git(tmp_path, "commit", "-q", "-m", "history")
        git(tmp_path, "rm", "-q", f"docs/history{suffix}")
        git(tmp_path, "commit", "-q", "-m", "gone")
        docs.mkdir(exist_ok=True)
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\n'
        'show_warning_types = True\n',  # Sphinx 7.4 does not add "[relocate.x]" by default
        "utf-8",
    )
    (docs / "relocations.toml").write_text(
        '[pages]\n"changelog" = "https://example.org/changelog"\n'
        '"history" = "https://example.org/history"\n', "utf-8",
    )
    (docs / "intro.rst").write_text("Intro\n=====\n", "utf-8")
    entries = "intro\nOur changes <changelog>\nhistory\n"
    if markdown:
        (docs / "index.md").write_text(f"# Index\n\n```{{toctree}}\n{entries}```\n", "utf-8")
    else:
        body = "".join(f"   {line}\n" for line in entries.splitlines())
        (docs / "index.rst").write_text(f"Index\n=====\n\n.. toctree::\n\n{body}", "utf-8")
    index = "index.md" if markdown else "index.rst"
    history_line = 6 if markdown else 8

    warning = io.StringIO()
    app = SphinxTestApp("html", srcdir=docs, builddir=tmp_path / "build", status=io.StringIO(),
                        warning=warning, freshenv=True)
    try:
        app.build()
    finally:
        app.cleanup()
    html = (tmp_path / "build" / "html" / "index.html").read_text("utf-8")
    assert re.search(r'href="https://example.org/changelog">Our changes</a>', html), html
    monkeypatch.chdir(tmp_path)
    before = (docs / index).read_text("utf-8")
    after = before.replace(
        "Our changes <changelog>", "Our changes <https://example.org/changelog>"
    )
    if in_git:
        assert re.search(r'href="https://example.org/history">Project history</a>', html)
        assert "relocate.toctree" not in warning.getvalue()
        assert main(["rewrite", "docs", "--write"]) == 0
        assert (docs / index).read_text("utf-8") == after.replace(
            "history\n", "Project history <https://example.org/history>\n"
        )
        return
    assert f"{index}:{history_line}: WARNING: toctree entry 'history' goes to " in (
        warning.getvalue()
    )
    assert "[relocate.toctree]" in warning.getvalue()
    assert main(["rewrite", "docs", "--write"]) == 1  # an entry is left to the author
    err = capsys.readouterr().err
    assert f"{index}:{history_line}:" in err
    assert "toctree entry 'history' goes to https://example.org/history now" in err
    assert (docs / index).read_text("utf-8") == after


# -- --write keeps read-only files, owners and hard links (D21) -------------------------


def _link_project(docs: Path) -> None:
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text('extensions = ["myst_parser"]\n', "utf-8")
    (docs / "relocations.toml").write_text('[pages]\n"install" = "guide/install"\n', "utf-8")
    (docs / "guide" / "install.md").write_text("# Install\n", "utf-8")
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text(f"# {name}\n\nSee [I](install.md).\n", "utf-8")


def test_write_leaves_read_only_files_and_keeps_links_mode_and_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    _link_project(docs)
    (docs / "a.md").chmod(0o444)
    os.link(docs / "b.md", tmp_path / "b-elsewhere.md")
    (docs / "c.md").chmod(0o640)
    owner = None
    if os.geteuid() == 0:  # root can give a file away: check the owner stays
        owner = (12345, 23456)
        os.chown(docs / "c.md", *owner)
    inode = (docs / "b.md").stat().st_ino
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 1
    err = capsys.readouterr().err
    assert "a.md: left as it is: read-only (1 link to rewrite); make it writable" in err
    assert (docs / "a.md").read_text("utf-8") == "# a.md\n\nSee [I](install.md).\n"
    assert stat.S_IMODE((docs / "a.md").stat().st_mode) == 0o444
    # the hard link still names the rewritten file
    assert (docs / "b.md").stat().st_ino == inode
    assert (tmp_path / "b-elsewhere.md").read_text("utf-8").endswith("[I](guide/install.md).\n")
    assert (docs / "b.md").stat().st_nlink == 2
    # mode and owner stay
    assert (docs / "c.md").read_text("utf-8").endswith("[I](guide/install.md).\n")
    assert stat.S_IMODE((docs / "c.md").stat().st_mode) == 0o640
    if owner is not None:
        assert ((docs / "c.md").stat().st_uid, (docs / "c.md").stat().st_gid) == owner
    # made writable, it is rewritten
    (docs / "a.md").chmod(0o644)
    assert main(["rewrite", "docs", "--write"]) == 0
    assert (docs / "a.md").read_text("utf-8").endswith("[I](guide/install.md).\n")


def test_a_target_shown_as_the_links_text_keeps_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A download role without a title, and a reST link with none, show their target:
    the new target is written with the old one as the title, as the build shows it
    (Jupyter Book's ``{download}`hiding.md``` read "../content/hiding.md" after ``mv``).
    A role with a title, and ``:doc:``, which shows the page's title, get the target."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text('extensions = ["myst_parser"]\n')
    (docs / "relocations.toml").write_text('[pages]\n"guide/notes" = "ref/notes"\n')
    (docs / "ref").mkdir()
    (docs / "ref" / "notes.md").write_text("# Notes\n")
    (docs / "index.md").write_text(
        "# Home\n\n```{toctree}\nguide/page\nguide/rst\nref/notes\n```\n"
    )
    (docs / "guide" / "page.md").write_text(
        "# Page\n\n{download}`notes.md`, {download}`Notes <notes.md>`, [](notes.md).\n"
    )
    (docs / "guide" / "rst.rst").write_text(
        "RST\n===\n\n:download:`notes.md`, `<notes.md>`_, `<notes.md>`__, "
        "`Notes <notes.md>`_, :doc:`notes`.\n"
    )
    assert main(["rewrite", str(docs), "--write"]) == 0
    capsys.readouterr()
    assert (docs / "guide" / "page.md").read_text() == (
        "# Page\n\n{download}`notes.md <../ref/notes.md>`, {download}`Notes <../ref/notes.md>`, "
        "[](../ref/notes.md).\n"
    )
    assert (docs / "guide" / "rst.rst").read_text() == (
        "RST\n===\n\n:download:`notes.md <../ref/notes.md>`, `notes.md <../ref/notes.md>`_, "
        "`notes.md <../ref/notes.md>`__, `Notes <../ref/notes.md>`_, :doc:`../ref/notes`.\n"
    )
