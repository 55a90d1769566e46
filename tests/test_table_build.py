"""The table inside a Sphinx build: config errors stop it, project checks warn at the entry."""

from __future__ import annotations

import shutil
from pathlib import Path

import builds
import pytest
from sphinx.errors import ConfigError


@pytest.mark.sphinx("html", testroot="table-build", freshenv=True)
def test_table_warnings_point_at_entries(app, warning) -> None:
    app.build()
    lines = [line for line in warning.getvalue().splitlines() if "WARNING" in line]
    text = "\n".join(lines)
    assert len(lines) == 4, text
    assert "relocations.toml:4: WARNING: old names differ only by letter case" in text
    assert "[relocate.case_collision]" in text
    assert "relocations.toml:5: WARNING: 'still_here' still exists" in text
    assert "[relocate.shadowed]" in text
    assert "conf.py:4: WARNING: target 'guide/nowhere' of 'old/gone' is not a document" in text
    assert "relocations.toml:8: WARNING: target 'img/b.png' of 'img/a.png' is not a file" in text
    assert text.count("[relocate.target_missing]") == 2


@pytest.mark.sphinx("html", testroot="table-build", freshenv=True)
def test_table_warnings_repeat_on_a_no_op_build(make_app, app_params, warning) -> None:
    args, kwargs = app_params
    first = make_app(*args, **kwargs)
    first.build()
    again = make_app(*args, **{**kwargs, "freshenv": False})
    again._warning.truncate(0)
    again._warning.seek(0)
    again.build()
    assert again._warning.getvalue().count("[relocate.") == 4


@pytest.mark.sphinx("html", testroot="table-bad")
def test_bad_table_is_one_config_error(make_app, app_params) -> None:
    args, kwargs = app_params
    with pytest.raises(ConfigError) as info:
        make_app(*args, **kwargs)
    message = str(info.value)
    assert message.startswith("the relocation table has 2 problems")
    assert "relocations.toml:2: relocation cycle: a → b → a" in message
    assert "relocations.toml:4: [pages] 'c': unsafe target 'javascript:alert(1)'" in message


def test_folders_that_move_into_each_other_stop_the_build(
    make_app, rootdir: Path, tmp_path: Path
) -> None:
    """A table whose folders move into each other, the path longer at every turn, hung
    the build at the first lookup under them; now it is one line at its entry."""
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-table-bad", srcdir)
    (srcdir / "relocations.toml").write_text(
        '[prefixes]\n"a/" = "b/"\n"b/" = "a/x/"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError) as info:
        make_app("html", srcdir=srcdir)
    table = srcdir / "relocations.toml"
    assert str(info.value) == (
        f"{table}:2: relocation cycle: a/ → b/ → a/ (a/ at {table}:2, b/ at {table}:3)"
    )


def _build_with_table(make_app, rootdir: Path, tmp_path: Path, table: str):  # type: ignore[no-untyped-def]
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-table-bad", srcdir)
    (srcdir / "relocations.toml").write_text(table, encoding="utf-8")
    # Sphinx 7.4 does not add "[relocate.x]" by default
    return srcdir, lambda: make_app(
        "html", srcdir=srcdir, confoverrides={"show_warning_types": True}
    )


def test_keys_that_differ_only_by_normalization_are_a_collision(
    make_app, rootdir: Path, tmp_path: Path
) -> None:
    """NFC and NFD 'café' both got stubs without a word (D22); now they are a
    case_collision, shown escaped, and a target missing only by its normalization
    says so."""
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    srcdir, make = _build_with_table(
        make_app, rootdir, tmp_path,
        f'[pages]\n"{nfc}" = "index"\n"{nfd}" = "index"\n"x" = "docs/{nfd}"\n',
    )
    (srcdir / "docs").mkdir()
    (srcdir / "docs" / f"{nfc}.rst").write_text("Café\n====\n", encoding="utf-8")
    app = make()
    app.build()
    text = app._warning.getvalue()
    table = srcdir / "relocations.toml"
    assert (f"{table}:3: WARNING: old names differ only by Unicode normalization (NFC and NFD) "
            "or letter case: 'caf\\xe9' (" in text), text
    assert "[relocate.case_collision]" in text
    assert (f"{table}:4: WARNING: target 'docs/{nfd}' of 'x' is not a document; the document "
            "'docs/caf\\xe9' differs from 'docs/cafe\\u0301' only by Unicode normalization" in text)


def test_anchor_cycles_stop_the_build(make_app, rootdir: Path, tmp_path: Path) -> None:
    _, make = _build_with_table(
        make_app, rootdir, tmp_path, '[anchors]\n"new#a" = "new#b"\n"new#b" = "new#a"\n'
    )
    with pytest.raises(ConfigError) as info:
        make()
    assert "relocations.toml:2: relocation cycle: new#a → new#b → new#a" in str(info.value)


def test_a_key_with_a_line_break_stops_the_build(make_app, rootdir: Path, tmp_path: Path) -> None:
    """D2's key wrote Apache directives; now it is an error at its line."""
    _, make = _build_with_table(
        make_app, rootdir, tmp_path,
        '[pages]\n"ok" = "index"\n"a\\nRequire all denied\\nSetEnv X" = "index"\n',
    )
    with pytest.raises(ConfigError) as info:
        make()
    assert str(info.value).endswith(
        "relocations.toml:3: [pages] 'a\\nRequire all denied\\nSetEnv X': the key holds the "
        "control character U+000A; names and targets are one line of visible text"
    )


def test_anchors_of_a_page_nothing_serves_warn_at_their_line(tmp_path: Path) -> None:
    """The build says what ``check`` says: the old page of ``[anchors]`` entries that no
    entry moves gets no stub, so its fragments are read nowhere; a ``[pages]`` target
    for it settles it."""
    from reorg_fixture import write_tree

    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["sphinx_relocate"]\nshow_warning_types = True\n',
        "index.rst": "Home\n====\n\nUsage\n-----\n",
        "relocations.toml": '[anchors]\n"gone#usage" = "index#usage"\n',
    }, {})
    warnings = builds.build(docs, fresh=True).warnings
    assert "relocations.toml:2: WARNING: 'gone' of 'gone#usage' is no document" in warnings
    assert "[relocate.target_missing]" in warnings
    (docs / "relocations.toml").write_text(
        '[pages]\n"gone" = "index"\n\n[anchors]\n"gone#usage" = "index#usage"\n', "utf-8")
    assert "WARNING" not in builds.build(docs, fresh=True).warnings
