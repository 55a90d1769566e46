"""Bad config values and table files: one clean line from the build and every command.

A table file that cannot be read, or a ``relocate_*`` value of the wrong type, stops the
build with a configuration error that names the file (and conf.py's line), and makes
each command print one ``sphinx-relocate: error: …`` line: never a Python traceback.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sphinx.errors import ConfigError

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.settings import CONFIG_VALUES, validate_settings

CONF = 'project = "x"\nextensions = ["sphinx_relocate"]\n'


def make_docs(tmp_path: Path, setting: str) -> Path:
    """A docs folder whose conf.py ends with ``setting`` (on line 3)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(CONF + setting + "\n", encoding="utf-8")
    (docs / "index.rst").write_text("Home\n====\n", encoding="utf-8")
    (docs / "folder.toml").mkdir()
    return docs


UNREADABLE = {
    "missing": ('relocate_table = "missing.toml"', "missing.toml", "No such file or directory"),
    "folder": ('relocate_table = "folder.toml"', "folder.toml", "Is a directory"),
}


@pytest.mark.parametrize("name", sorted(UNREADABLE))
def test_unreadable_table_stops_the_build_in_one_line(make_app, tmp_path, name) -> None:
    setting, file, reason = UNREADABLE[name]
    docs = make_docs(tmp_path, setting)
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs)
    line = f"{docs / file}: cannot read the relocation table: {reason}"
    assert str(info.value) == line


def test_sphinx_build_exits_non_zero_without_a_python_traceback(tmp_path) -> None:
    docs = make_docs(tmp_path, UNREADABLE["missing"][0])
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(docs), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    line = f"{docs / 'missing.toml'}: cannot read the relocation table: No such file or directory"
    assert f"ERROR: {line}" in result.stderr
    assert "Configuration error" in result.stderr
    assert "has no attribute" not in result.stderr
    assert "Traceback (most recent call last)" not in result.stderr


WRONG_TYPES = {
    "map-list": (
        'relocate_map = ["intro"]',
        "relocate_map must be a dict of old page → new page, not the list ['intro']",
    ),
    "map-str": (
        'relocate_map = "intro"',
        "relocate_map must be a dict of old page → new page, not the string 'intro'",
    ),
    "table-int": (
        "relocate_table = 3",
        "relocate_table must be a file name (a string) or None, not the number 3",
    ),
    "table-list": (
        'relocate_table = ["a.toml"]',
        "relocate_table must be a file name (a string) or None, not the list ['a.toml']",
    ),
}
#: Each value of issue 23's D13, and its kin: one line at conf.py's line, no traceback.
BAD_VALUES = {
    **WRONG_TYPES,
    "repo-root-int": (
        "relocate_repo_root = 5",
        "relocate_repo_root must be a folder name (a string) or None, not the number 5",
    ),
    "ignore-int": (
        "relocate_ignore = 5",
        "relocate_ignore must be a list of regular expressions, not the number 5",
    ),
    "ignore-str": (
        'relocate_ignore = "abc"',
        "relocate_ignore must be a list of regular expressions, not the string 'abc' "
        "(write ['abc'])",
    ),
    "ignore-none": (
        "relocate_ignore = None",
        "relocate_ignore must be a list of regular expressions, not None",
    ),
    "ignore-item": (
        'relocate_ignore = ["a", 5]',
        "relocate_ignore: 5 is not a string",
    ),
    "ignore-regex": (
        'relocate_ignore = ["("]',
        "relocate_ignore: invalid regular expression '(': "
        "missing ), unterminated subpattern at position 0",
    ),
    "template-int": (
        "relocate_stub_template = 5",
        "relocate_stub_template must be a file name (a string) or None, not the number 5",
    ),
    "exports-int": (
        "relocate_redirect_exports = 5",
        "relocate_redirect_exports must be a list of export names, not the number 5",
    ),
    "exports-str": (
        'relocate_redirect_exports = "nginx"',
        "relocate_redirect_exports must be a list of export names, not the string 'nginx' "
        "(write ['nginx'])",
    ),
    "exports-unknown": (
        'relocate_redirect_exports = ["no-such-export"]',
        "relocate_redirect_exports: unknown export 'no-such-export' (expected any of: "
        "'apache', 'apache-reverse', 'json', 'netlify', 'nginx', 'nginx-reverse', "
        "'readthedocs', 'readthedocs-reverse', 'vercel')",
    ),
    "fail-on-dangling-str": (
        'relocate_fail_on_dangling = "no"',
        "relocate_fail_on_dangling must be True or False, not the string 'no'",
    ),
    "aliases-str": (
        'relocate_inventory_aliases = "no"',
        "relocate_inventory_aliases must be True or False, not the string 'no'",
    ),
    "report-int": (
        "relocate_report_rewrites = 1",
        "relocate_report_rewrites must be True or False, not the number 1",
    ),
    "repo-url-int": (
        "relocate_repo_url = 3",
        "relocate_repo_url must be an http(s) URL or None, not the number 3",
    ),
    "repo-url-no-scheme": (
        'relocate_repo_url = "github.com/org/repo/blob/main/"',
        "relocate_repo_url must be an http(s) URL or None, "
        "not the string 'github.com/org/repo/blob/main/'",
    ),
    "since-int": (
        "relocate_since = 5",
        "relocate_since must be a git revision (a string) or None, not the number 5",
    ),
    "published-int": (
        "relocate_published = 5",
        "relocate_published must be a file, folder or URL (a string), a list of them, or "
        "None, not the number 5",
    ),
    "redirects-int": (
        "redirects = 5",
        "redirects must be a dict of old page → target URL, not the number 5",
    ),
    "rediraffe-list": (
        'rediraffe_redirects = ["a"]',
        "rediraffe_redirects must be a dict of old → new source paths or a file name, "
        "not the list ['a']",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_bad_value_stops_the_build_at_its_conf_py_line(make_app, tmp_path, name) -> None:
    setting, message = BAD_VALUES[name]
    docs = make_docs(tmp_path, setting)
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs)
    assert str(info.value) == f"{docs / 'conf.py'}:3: {message}"


CLI_WRONG_TYPES = {
    **WRONG_TYPES,
    "repo-root": (
        "relocate_repo_root = 3",
        "relocate_repo_root must be a folder name (a string) or None, not the number 3",
    ),
    "repo-url": (
        "relocate_repo_url = 3",
        "relocate_repo_url must be an http(s) URL or None, not the number 3",
    ),
    "source-suffix": (
        "source_suffix = 3",
        "source_suffix must be a string or a list or a dict, not the number 3",
    ),
    "exclude": ("exclude_patterns = 3", "exclude_patterns must be a list, not the number 3"),
    "heading-anchors": (
        'myst_heading_anchors = "x"',
        "myst_heading_anchors must be a number, not the string 'x'",
    ),
}
COMMANDS = ("check", "rewrite", "from-git")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", sorted(CLI_WRONG_TYPES))
def test_wrong_type_is_one_usage_line_from_every_command(
    tmp_path, capsys, monkeypatch, command, name
) -> None:
    setting, message = CLI_WRONG_TYPES[name]
    make_docs(tmp_path, setting)
    monkeypatch.chdir(tmp_path)
    status = main([command, "docs"])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert err.startswith(f"sphinx-relocate: error: docs/conf.py:3: {message}")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("name", sorted(UNREADABLE))
@pytest.mark.parametrize("command", COMMANDS)
def test_unreadable_table_is_one_line_from_every_command(
    tmp_path, capsys, monkeypatch, command, name
) -> None:
    setting, file, reason = UNREADABLE[name]
    make_docs(tmp_path, setting)
    monkeypatch.chdir(tmp_path)
    status = main([command, "docs"])
    out, err = capsys.readouterr()
    line = f"docs/{file}: cannot read the relocation table: {reason}"
    if command == "check":  # a broken table is what check reports: a finding
        assert (status, out.splitlines()) == (1, [line])
    else:  # the others cannot work from it: a usage error
        assert (status, out) == (2, "")
        assert err.splitlines() == [f"sphinx-relocate: error: {line}"]


# -- every fatal problem opens with its own line (issue 22.6) -----------------------------

#: Fatal problems reachable from conf.py and the files it names: (conf.py line 3, files to
#: write, the first line sphinx-build must print to stderr, ``{docs}`` standing for the folder)
FATAL = {
    "unknown-export": (
        'relocate_redirect_exports = ["no-such-export"]', {},
        "{docs}/conf.py:3: ERROR: relocate_redirect_exports: unknown export 'no-such-export'",
    ),
    "ignore-string": (
        'relocate_ignore = "abc"', {},
        "{docs}/conf.py:3: ERROR: relocate_ignore must be a list of regular expressions",
    ),
    "bad-regex": (
        'relocate_ignore = ["("]', {},
        "{docs}/conf.py:3: ERROR: relocate_ignore: invalid regular expression '('",
    ),
    "template-missing": (
        'relocate_stub_template = "stub.html"', {},
        "ERROR: relocate_stub_template: cannot read {docs}/stub.html: No such file or directory",
    ),
    "template-syntax": (
        'relocate_stub_template = "stub.html"', {"stub.html": "<p>\n{% if %}\n"},
        "{docs}/stub.html:2: ERROR: relocate_stub_template: ",
    ),
    "table-entry": (
        'relocate_map = {"a": "../../x"}', {},
        "{docs}/conf.py:3: ERROR: [pages] 'a': '..' segments are not allowed",
    ),
    "table-file": (
        "", {"relocations.toml": "[pages]\nold = \n"},
        "{docs}/relocations.toml:2: ERROR: invalid TOML",
    ),
    "table-missing": (
        'relocate_table = "missing.toml"', {},
        "ERROR: {docs}/missing.toml: cannot read the relocation table: No such file or directory",
    ),
    "rediraffe-file": (
        'rediraffe_redirects = "missing.txt"', {},
        "ERROR: {docs}/missing.txt: cannot read the rediraffe_redirects file",
    ),
}


def sphinx_build(docs: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """sphinx-build's output without colour (tox or CI may set FORCE_COLOR)."""
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", str(docs), str(out)],
        capture_output=True, text=True, check=False,
    )
    result.stderr = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr)
    return result


@pytest.mark.parametrize("name", sorted(FATAL))
def test_a_fatal_problem_prints_its_own_line_first(tmp_path, name) -> None:
    setting, files, first = FATAL[name]
    docs = make_docs(tmp_path, setting)
    for file, text in files.items():
        (docs / file).write_text(text, encoding="utf-8")
    result = sphinx_build(docs, tmp_path / "out")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2
    assert lines[0].startswith(first.format(docs=docs)), result.stderr
    # then Sphinx's own report: "Configuration error:" (7.4-8.1) or its crash report (8.2+)
    assert "Configuration error" in "\n".join(lines[1:])
    assert "Traceback (most recent call last)" not in result.stderr


def test_several_problems_each_print_a_line_before_the_report(tmp_path) -> None:
    docs = make_docs(tmp_path, 'relocate_ignore = 5\nrelocate_fail_on_dangling = "no"')
    result = sphinx_build(docs, tmp_path / "out")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[:2] == [
        f"{docs}/conf.py:3: ERROR: relocate_ignore must be a list of regular expressions, "
        "not the number 5",
        f"{docs}/conf.py:4: ERROR: relocate_fail_on_dangling must be True or False, "
        "not the string 'no'",
    ]
    # Sphinx's type warnings would come first: the check runs before them
    assert "The config value" not in result.stderr


# -- the checks themselves --------------------------------------------------------------


def test_the_line_is_the_last_assignment_found_in_the_syntax_tree(make_app, tmp_path) -> None:
    setting = (
        "import os\n"
        "relocate_ignore = []\n"
        "if os.sep:\n"
        "    relocate_ignore = (\n"
        '        "abc"\n'
        "    )\n"
        '# relocate_ignore = ["never read"]'
    )
    docs = make_docs(tmp_path, setting)
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs)
    assert str(info.value).startswith(f"{docs / 'conf.py'}:6: relocate_ignore must be")


def test_a_value_not_set_in_conf_py_names_the_file_without_a_line(make_app, tmp_path) -> None:
    docs = make_docs(tmp_path, "")
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=docs, confoverrides={"relocate_since": 5})
    message = "relocate_since must be a git revision (a string) or None, not the number 5"
    assert str(info.value) == f"{docs / 'conf.py'}: {message}"


def test_every_default_is_accepted() -> None:
    assert validate_settings({v.name: v.default for v in CONFIG_VALUES}) == []


def test_validate_settings_names_conf_py_and_ignores_other_names(tmp_path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text('project = "x"\nrelocate_ignore = "abc"\n', encoding="utf-8")
    problems = validate_settings(
        {"project": 5, "relocate_ignore": "abc", "relocate_since": "main"}, conf, "conf.py"
    )
    assert [str(p) for p in problems] == [
        "conf.py:2: relocate_ignore must be a list of regular expressions, "
        "not the string 'abc' (write ['abc'])"
    ]
    assert str(validate_settings({"relocate_table": 1})[0]).startswith("conf.py: relocate_table")


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@given(name=st.sampled_from([v.name for v in CONFIG_VALUES]), value=VALUES)
def test_a_value_is_accepted_only_with_its_types_and_never_raises(name, value) -> None:
    (option,) = [v for v in CONFIG_VALUES if v.name == name]
    problems = validate_settings({name: value})
    assert len(problems) <= 1
    if not problems:
        assert isinstance(value, option.types)
        assert bool in option.types or not isinstance(value, bool)
    else:
        assert "\n" not in problems[0].message
        assert problems[0].message.startswith(name)


def test_an_old_myst_parser_stops_the_build_in_one_line(
    make_app, tmp_path, monkeypatch
) -> None:
    """MyST-Parser's own docs at 0.15 (its pin then) lost 17 relative links with the
    extension and no word of it: a myst-parser older than 3 is named and stops."""
    import myst_parser

    monkeypatch.setattr(myst_parser, "__version__", "0.15.0")
    (tmp_path / "conf.py").write_text('extensions = ["myst_parser", "sphinx_relocate"]\n')
    (tmp_path / "index.md").write_text("# Home\n")
    with pytest.raises(ConfigError, match=r"myst-parser 0\.15\.0: upgrade it"):
        make_app("html", srcdir=tmp_path)
