"""``sphinx-relocate check``: one line per problem, exit 0 / 1 / 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_table_errors import CASES

from sphinx_relocate.cli.main import main


def make_docs(tmp_path: Path, table: str | bytes, conf: str = "") -> Path:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text(conf, encoding="utf-8")
    (docs / "index.rst").write_text("Home\n====\n", encoding="utf-8")
    (docs / "guide" / "intro.rst").write_text("Intro\n=====\n", encoding="utf-8")
    if isinstance(table, bytes):
        (docs / "relocations.toml").write_bytes(table)
    else:
        (docs / "relocations.toml").write_text(table, encoding="utf-8")
    return docs


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_bad_input_is_one_line(tmp_path, capsys, monkeypatch, name) -> None:
    text, line, words = CASES[name]
    make_docs(tmp_path, text, conf='extensions = ["myst_parser"]\n')
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "check", "docs")
    assert status == 1
    assert len(out) == 1, out
    assert out[0].startswith(f"docs/relocations.toml:{line}: ")
    assert words in out[0]


def test_cycle_named_member_by_member(tmp_path, capsys, monkeypatch) -> None:
    make_docs(tmp_path, '[pages]\n"a" = "b"\n"b" = "c"\n"c" = "a"\n')
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "check", "docs")
    assert status == 1
    assert out == [
        "docs/relocations.toml:2: relocation cycle: a → b → c → a (a at docs/relocations.toml:2, "
        "b at docs/relocations.toml:3, c at docs/relocations.toml:4)"
    ]


def test_clean_table_exits_0(tmp_path, capsys, monkeypatch) -> None:
    make_docs(
        tmp_path,
        '[pages]\n"old/intro.rst" = "guide/intro.rst"\n\n[prefixes]\n"old/" = "guide/"\n',
        conf='relocate_map = {"start": "index"}\n',
    )
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "check", "docs")
    assert (status, out) == (0, [])
    assert "3 entries" in err


def test_project_problems(tmp_path, capsys, monkeypatch) -> None:
    make_docs(
        tmp_path,
        '[pages]\n"guide/intro" = "index"\n"old" = "missing/page"\n',
        conf='relocate_map = {\n    "older": "nowhere",\n}\n',
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "check", "docs")
    assert status == 1
    assert sorted(out) == [
        "docs/conf.py:2: target 'nowhere' of 'older' is not a document",
        "docs/relocations.toml:2: 'guide/intro' still exists, so its entry is not used "
        "(delete the old file or the entry)",
        "docs/relocations.toml:3: target 'missing/page' of 'old' is not a document",
    ]


def test_table_option_and_myst_suffix(tmp_path, capsys, monkeypatch) -> None:
    docs = make_docs(tmp_path, "", conf='extensions = ["myst_parser"]\n')
    (docs / "notes.md").write_text("# Notes\n", encoding="utf-8")
    other = tmp_path / "other.toml"
    other.write_text('[pages]\n"old-notes.md" = "notes.md"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "check", "docs", "--table", "other.toml")
    assert (status, out) == (0, [])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["check", "nowhere"], "nowhere: not a folder"),
        (["check", "docs", "--table", "none.toml"], "none.toml: no such table file"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_usage_errors_exit_2(tmp_path, capsys, monkeypatch, args, words) -> None:
    make_docs(tmp_path, "")
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, *args)
    assert status == 2
    assert words in err
    assert "Traceback" not in err


def test_broken_conf_py_is_a_usage_error(tmp_path, capsys, monkeypatch) -> None:
    make_docs(tmp_path, "", conf="extensions = [\n")
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "check", "docs")
    assert status == 2
    assert err.startswith("sphinx-relocate: error: docs/conf.py:1: cannot be read: ")
    assert len(err.strip().splitlines()) == 1


def test_conf_py_that_raises_is_read_as_literals(tmp_path, capsys, monkeypatch) -> None:
    """A conf.py that fails to run is read from its syntax tree, said in one line naming
    its failing line; a table setting that only running it could give stops the command."""
    make_docs(tmp_path, "", conf="relocate_map = {'a': 'index'}\nraise ValueError('bad')\n")
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "check", "docs")
    assert (status, out) == (0, [])
    assert err.splitlines()[0] == (
        "note: docs/conf.py:2: cannot run it here (ValueError: bad); read as literals: "
        "relocate_map"
    )
    (tmp_path / "docs/conf.py").write_text("relocate_map = dict(a='index')\nraise ValueError\n")
    status, _, err = run(capsys, "check", "docs")
    assert status == 2
    assert err.strip() == (
        "sphinx-relocate: error: docs/conf.py:2: cannot be read: ValueError: ; its "
        "relocate_map (line 1) is not a literal, so the table cannot be read without running it"
    )


def test_console_script(tmp_path) -> None:
    docs = make_docs(tmp_path, '[pages]\n"a" = "a"\n')
    script = Path(sys.executable).with_name("sphinx-relocate")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "sphinx_relocate"]
    result = subprocess.run(
        [*command, "check", str(docs)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.strip().endswith(
        "relocations.toml:2: [pages] 'a': the old and new names are the same"
    )


def test_anchors_of_a_page_nothing_serves(tmp_path, capsys, monkeypatch) -> None:
    """black's deleted ``pyproject_toml``: its sections' entries went elsewhere and the
    page got no ``[pages]`` target, so its old URL had no stub and ``check`` said OK.
    A page a loaded peer redirects (MyST-Parser's rediraffe) is served."""
    table = ('[pages]\n"moved" = "guide/intro"\n\n[anchors]\n"gone#lookup" = "guide/intro#x"\n'
             '"gone#more" = "index#y"\n"moved#y" = "guide/intro#y"\n"index#old" = "index#new"\n'
             '"peer#z" = "index#z"\n')
    rediraffe = ('extensions = ["sphinxext.rediraffe", "sphinx_relocate"]\n'
                 'rediraffe_redirects = {"peer": "index"}\n')
    make_docs(tmp_path, table, conf=rediraffe)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "check", "docs")
    assert status == 1
    assert out == [
        "docs/relocations.toml:5: 'gone' of 'gone#lookup' and 1 more is no document and no "
        "entry moves it: its old URL gets no stub to read the fragments on (give 'gone' a "
        "target in [pages])",
    ]
