"""The one settings object: declared once, checked and derived once, the same for the
build and for the command line."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest
from sphinx.errors import ConfigError

from sphinx_relocate.cli.main import main
from sphinx_relocate.cli.project import read_project
from sphinx_relocate.core.settings import (
    CONFIG_VALUES,
    DECLARED,
    Settings,
    SettingsError,
    build_settings,
    extensions_suffixes,
    source_suffixes,
)
from sphinx_relocate.sphinx_ext.queries import table_of
from sphinx_relocate.sphinx_ext.state import state_of

DOCS = Path(__file__).parent.parent / "docs"


def test_settings_derive_what_readers_need(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    confdir = tmp_path / "docs"
    confdir.mkdir()
    settings = build_settings({
        "relocate_ignore": ["^https://x", "old/.*"],
        "relocate_redirect_exports": ["netlify", "json"],
        "relocate_stub_template": "_templates/stub.html",
        "relocate_repo_url": "https://forge.example/repo/blob/main/",
        "source_suffix": {".rst": "restructuredtext", ".rst.txt": "restructuredtext"},
    }, confdir=confdir)
    assert settings.ignore == (re.compile("^https://x"), re.compile("old/.*"))
    assert settings.exports == ("netlify", "json")
    assert settings.stub_template == confdir / "_templates/stub.html"
    assert settings.repo_url == "https://forge.example/repo/blob/main/"
    assert settings.repo_root == tmp_path.resolve()
    assert settings.repository_found
    assert settings.source_suffixes == (".rst", ".rst.txt")
    assert settings.table_path is None  # the default file counts only when it exists
    (confdir / "relocations.toml").write_text("", encoding="utf-8")
    assert build_settings({}, confdir=confdir).table_path == confdir / "relocations.toml"
    assert settings.docs_prefix.endswith("/docs/")
    assert settings.files_root / settings.docs_prefix == confdir.absolute()


def test_without_a_repository_the_conf_dir_stands_for_one(tmp_path: Path) -> None:
    """A release tarball has no ``.git``: the conf dir bounds only raw HTML's copies."""
    assert not any((folder / ".git").exists() for folder in tmp_path.parents)
    settings = build_settings({}, confdir=tmp_path)
    assert (settings.repo_root, settings.repository_found) == (tmp_path.resolve(), False)
    given = build_settings({"relocate_repo_root": "."}, confdir=tmp_path)
    assert (given.repo_root, given.repository_found) == (tmp_path.resolve(), True)


def test_settings_are_frozen(tmp_path: Path) -> None:
    settings = build_settings({"relocate_ignore": ["a"]}, confdir=tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.ignore = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.values["relocate_ignore"] = []  # type: ignore[index]


def test_get_gives_the_value_else_the_declared_default_else_none(tmp_path: Path) -> None:
    settings = build_settings({"html_file_suffix": ".htm"}, confdir=tmp_path)
    assert settings.get("html_file_suffix") == ".htm"
    assert settings.get("relocate_table") == "relocations.toml"
    assert settings.get("include_patterns") is None


@pytest.mark.parametrize(("source_suffix", "extensions", "expected"), [
    (None, [], (".rst",)),
    (".txt", [], (".txt",)),
    ([".md", ".rst"], [], (".md", ".rst")),
    ({".rst": "restructuredtext"}, ["myst_parser"], (".rst", ".md")),
    (None, ["myst_parser"], (".rst", ".md")),
    ({".md": "markdown"}, ["myst_parser"], (".md",)),
    (None, ["myst_nb"], (".rst", ".md", ".ipynb")),
    (None, ["nbsphinx"], (".rst", ".ipynb")),
])
def test_source_suffixes_are_read_one_way(source_suffix, extensions, expected) -> None:
    assert source_suffixes(source_suffix, extensions_suffixes(extensions)) == expected


def test_myst_nb_custom_formats_are_sources(tmp_path: Path) -> None:
    """The command line knows a notebook is a page as the build does (MyST-NB's own
    suffixes and ``nb_custom_formats``): ``mv`` records it under ``[pages]``."""
    from sphinx_relocate.core.settings import build_settings

    settings = build_settings(
        {"extensions": ["myst_nb"], "nb_custom_formats": {".Rmd": ["jupytext.reads", {}]}},
        confdir=tmp_path,
    )
    assert settings.source_suffixes == (".rst", ".md", ".ipynb", ".Rmd")


def test_every_problem_is_named_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'relocate_ignore = "abc"\nx = 1\nrelocate_fail_on_dangling = "no"\n', encoding="utf-8"
    )
    with pytest.raises(SettingsError) as info:
        build_settings(
            {"relocate_ignore": "abc", "relocate_fail_on_dangling": "no", "x": 1},
            confdir=tmp_path, shown="docs/conf.py",
        )
    assert [str(problem) for problem in info.value.problems] == [
        "docs/conf.py:1: relocate_ignore must be a list of regular expressions, not the "
        "string 'abc' (write ['abc'])",
        "docs/conf.py:3: relocate_fail_on_dangling must be True or False, not the string 'no'",
    ]


def test_the_build_and_the_command_line_build_the_same_settings(
    make_app, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'project = "x"\nextensions = ["sphinx_relocate", "myst_parser"]\n'
        'relocate_ignore = ["^https://example"]\n'
        'relocate_redirect_exports = ["nginx"]\n'
        'relocate_repo_root = ".."\n'
        'relocate_map = {"old": "index"}\n',
        encoding="utf-8",
    )
    (docs / "index.rst").write_text("Home\n====\n", encoding="utf-8")
    app = make_app("html", srcdir=docs)
    built = state_of(app).settings
    read = read_project(docs).settings

    def derived(settings: Settings) -> dict[str, object]:
        fields = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
        del fields["values"]  # Sphinx's config holds more names than conf.py sets
        return fields

    assert derived(built) == derived(read)
    assert built.source_suffixes == (".rst", ".md")
    assert {name: built.get(name) for name in DECLARED if name.startswith("relocate_")} == {
        name: read.get(name) for name in DECLARED if name.startswith("relocate_")
    }


def test_table_of_reads_nothing(tmp_path: Path) -> None:
    """The table is read once, at ``config-inited``; a reader only looks it up."""

    class App:  # no config, no folders: reading the table here would fail
        pass

    app = App()
    assert table_of(app) is state_of(app).table  # type: ignore[arg-type]


def test_the_configuration_page_is_generated_from_the_declarations() -> None:
    assert "```{relocate-config}\n```" in (DOCS / "configuration.md").read_text("utf-8")
    spec = importlib.util.spec_from_file_location("relocate_docs", DOCS / "_ext/relocate_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "\n".join(module.confval_lines(CONFIG_VALUES))
    for value in CONFIG_VALUES:
        entry = text.partition(f"```{{confval}} {value.name}\n")[2].partition("\n```\n")[0]
        assert f":default: ``{value.default!r}``" in entry, value.name
        assert value.accepts in entry and value.help in entry, value.name


@pytest.mark.parametrize(("setting", "reason"), [
    ('relocate_ignore = "abc"', "relocate_ignore must be a list of regular expressions, not "
                                "the string 'abc' (write ['abc'])"),
    ('relocate_redirect_exports = ["ngnix"]', "relocate_redirect_exports: unknown export "
                                              "'ngnix' (expected any of: 'apache', "
                                              "'apache-reverse', 'json', 'netlify', 'nginx', "
                                              "'nginx-reverse', 'readthedocs', "
                                              "'readthedocs-reverse', 'vercel')"),
])
def test_a_value_the_build_refuses_the_commands_refuse(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], setting: str, reason: str,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        f'extensions = ["sphinx_relocate"]\n{setting}\n', encoding="utf-8"
    )
    (docs / "index.rst").write_text("Home\n====\n", encoding="utf-8")
    (docs / "relocations.toml").write_text('[pages]\n"a" = "index"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs)
    assert str(info.value) == f"{docs / 'conf.py'}:2: {reason}"
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "docs"]) == 2
    assert capsys.readouterr().err == f"sphinx-relocate: error: docs/conf.py:2: {reason}\n"
