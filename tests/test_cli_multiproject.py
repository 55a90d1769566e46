"""sphinx-multiproject: one conf.py, several projects, each with its own source folder.

Read the Docs builds its own docs so (``docs/conf.py``, ``docs/user/``, ``docs/dev/``,
the project picked by ``PROJECT``).  The extension sets the source folder and the
project's settings when the build starts; the commands, which read conf.py without a
build, read them the same way.  Without it, ``mv`` of Read the Docs' 2024 rename of
``user/integrations.rst`` wrote the entry ``"user/integrations"`` (a docname of no
project) and rewrote none of the four ``:doc:`/integrations``` links.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reorg_fixture import first_commit, write_tree

from sphinx_relocate.cli.main import main

CONF = (
    'extensions = ["multiproject", "sphinx_relocate"]\n'
    "multiproject_projects = {\n"
    '    "user": {"config": {"relocate_table": "user/relocations.toml"}},\n'
    '    "dev": {"path": "devdocs", "use_config_file": True},\n'
    "}\n"
)


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_tree(tmp_path, {
        "docs/conf.py": CONF,
        "docs/user/index.rst": "User\n====\n\n.. toctree::\n\n   integrations\n\n"
                               "See :doc:`/integrations`.\n",
        "docs/user/integrations.rst": "Integrations\n============\n",
        "docs/user/relocations.toml": "",
        "docs/devdocs/conf.py": 'relocate_table = "devdocs/moves.toml"\n',
        "docs/devdocs/index.rst": "Dev\n===\n\n.. toctree::\n\n   setup\n",
        "docs/devdocs/setup.rst": "Setup\n=====\n",
        "docs/devdocs/moves.toml": "",
    }, {})
    first_commit(tmp_path, "base")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROJECT", raising=False)
    return tmp_path / "docs"


def test_mv_reads_the_first_project_by_default(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mv", "docs", "integrations", "continuous-deployment"]) == 0
    err = capsys.readouterr().err
    assert "sphinx-multiproject: project 'user' (PROJECT), source folder docs/user" in err
    # the project's own docnames, in the table its config names
    assert (docs / "user" / "relocations.toml").read_text() == (
        '[pages]\n"integrations" = "continuous-deployment"\n'
    )
    assert not (docs / "relocations.toml").exists()
    assert (docs / "user" / "index.rst").read_text() == (
        "User\n====\n\n.. toctree::\n\n   continuous-deployment\n\n"
        "See :doc:`/continuous-deployment`.\n"
    )


def test_the_environment_variable_picks_the_project(
    docs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROJECT", "dev")
    # its path, and its own conf.py's settings (use_config_file)
    assert main(["mv", "docs", "setup", "install"]) == 0
    assert "project 'dev' (PROJECT), source folder docs/devdocs" in capsys.readouterr().err
    assert (docs / "devdocs" / "moves.toml").read_text() == '[pages]\n"setup" = "install"\n'
    assert (docs / "devdocs" / "install.rst").is_file()


def test_a_project_that_is_not_there_is_one_line(
    docs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROJECT", "blog")
    assert main(["check", "docs"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "sphinx-relocate: error: PROJECT=blog: not a project of multiproject_projects in "
        "docs/conf.py (user, dev)"
    ]


def test_no_table_is_made_that_every_project_would_read(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read the Docs' conf.py names no table for its projects: ``mv`` made
    ``docs/relocations.toml``, which the ``dev`` build then read (and warned about
    ``user``'s pages).  It stops, says where this project's table goes, changes nothing."""
    conf = docs / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace(
        '{"config": {"relocate_table": "user/relocations.toml"}}', "{}"), "utf-8")
    assert main(["mv", "docs", "integrations", "continuous-deployment"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "sphinx-relocate: error: docs/relocations.toml: every project of sphinx-multiproject "
        "would read a table here; give this one its own, relocate_table = "
        "'user/relocations.toml' in its \"config\" in multiproject_projects (nothing was "
        "changed)"
    )
    assert (docs / "user/integrations.rst").is_file()
    assert not (docs / "relocations.toml").exists()
    # a shared table that is there already is the user's choice
    (docs / "relocations.toml").write_text("", "utf-8")
    assert main(["mv", "docs", "integrations", "continuous-deployment"]) == 0
    assert (docs / "relocations.toml").read_text("utf-8") == (
        '[pages]\n"integrations" = "continuous-deployment"\n')
