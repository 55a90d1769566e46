"""Hints name what the reader may have meant, never the linking page itself, and say
"now lives at" only for a page that moved."""

from __future__ import annotations

import re
from pathlib import Path

import builds

from sphinx_relocate.core.table import check_against_project, load_table

COLOR = re.compile(r"\x1b\[[0-9;]*m")

PAGES = {
    # Sphinx 7.4 does not add "[relocate.x]" by default
    "conf.py": 'extensions = ["myst_parser", "sphinx_relocate"]\nshow_warning_types = True\n',
    "relocations.toml": (
        '[pages]\n"old/moved" = "moved"\n"install" = "getting-started/instalation"\n'
    ),
    "index.md": "# Home\n\n```{toctree}\nsetup\nconcepts\nmoved\nguide/setup\nguide/intro\n"
    "getting-started/installation\nuser-guide/duckarrays\n```\n",
    "setup.md": "# Setup\n\nA typo of its own name: [t](setp.md).\n",
    "concepts.md": "# Concepts\n",
    "moved.md": "# Moved\n",
    "getting-started/installation.md": "# Installation\n",
    "guide/setup.md": (
        "# Guide setup\n\nA page of its name that is not there: [t](../gone/setup.md).\n"
        "\nA name that is nothing: [t](#usage/roles).\n"
    ),
    "guide/intro.md": "# Intro\n\nNever moved: [t](concepts.md). Moved: [t](moved.md).\n"
    "\nAnother project's page: [t](../user-guide/reference/arrays.datetime.md).\n",
    "user-guide/duckarrays.md": "# Duck arrays\n",
}


def build(srcdir: Path) -> list[str]:
    for name, text in PAGES.items():
        (srcdir / name).parent.mkdir(parents=True, exist_ok=True)
        (srcdir / name).write_text(text, "utf-8")
    warnings = builds.build(srcdir, fresh=True).warnings
    return COLOR.sub("", warnings).replace(str(srcdir) + "/", "").splitlines()


def warning(warnings: list[str], start: str) -> str:
    (found,) = [w for w in warnings if w.startswith(start)]
    return found


def test_hints(tmp_path: Path) -> None:
    warnings = build(tmp_path)
    # the closest document name to "setp" is the linking page: not named
    typo = warning(warnings, "setup.md:3:")
    assert "link 'setp.md' does not land: no document 'setp'" in typo
    assert "`setup`" not in typo
    # the only page named setup.md besides the one missing is the linking page
    own_name = warning(warnings, "guide/setup.md:3:")
    assert "no document 'gone/setup'" in own_name
    assert "guide/setup.md`" not in own_name
    # a MyST name is looked for as a label or an object too, and the message says so
    name = warning(warnings, "guide/setup.md:5:")
    assert ("link 'usage/roles' does not land: no label or object 'usage/roles', and no "
            "document 'guide/usage/roles'") in name
    # concepts.md never moved: it "is at", where moved.md "now lives at"
    intro = [w for w in warnings if w.startswith("guide/intro.md:3:")]
    assert any(
        "a page named `concepts.md` is at `concepts.md` (`../concepts.md` from here)" in w
        for w in intro
    ), intro
    assert any("a page named `moved.md` now lives at `moved.md`" in w for w in intro), intro
    # a folder in common is no likeness: no closest match (xarray's link to numpy)
    other = warning(warnings, "guide/intro.md:5:")
    assert "no document 'user-guide/reference/arrays.datetime'" in other
    assert "closest match" not in other and "duckarrays" not in other, other
    # a typo in a table target: the document it probably means
    table = warning(warnings, "relocations.toml:3:")
    assert "target 'getting-started/instalation' of 'install' is not a document" in table
    assert table.endswith(
        "; did you mean `getting-started/installation`? [relocate.target_missing]"
    )


def test_table_typo_suggestion(tmp_path: Path) -> None:
    """The same check serves ``sphinx-relocate check``: a far-off target gets no guess."""
    toml = tmp_path / "relocations.toml"
    toml.write_text(
        '[pages]\n"install" = "getting-started/instalation"\n"old" = "elsewhere/entirely"\n'
        '[anchors]\n"old#a" = "getting-started/instalation#a"\n',
        "utf-8",
    )
    table, problems = load_table(toml)
    assert problems == []
    found = check_against_project(
        table, {"getting-started/installation", "index"}, lambda path: False
    )
    messages = sorted(p.message for p in found)
    assert messages == [
        "target 'elsewhere/entirely' of 'old' is not a document",
        "target 'getting-started/instalation#a' of 'old#a' is not a document; "
        "did you mean `getting-started/installation`?",
        "target 'getting-started/instalation' of 'install' is not a document; "
        "did you mean `getting-started/installation`?",
    ]


def test_a_link_to_an_excluded_page_says_so(tmp_path: Path) -> None:
    """SymPy's guide links ``../../modules/solvers/solvers.rst``, a page its build leaves
    out: the hint named an unrelated ``tutorial/solvers.rst`` of the same name."""
    for name, text in {
        "conf.py": 'extensions = ["myst_parser", "sphinx_relocate"]\nshow_warning_types = True\n'
                   'exclude_patterns = ["modules"]\n',
        "index.md": "# Home\n\n```{toctree}\ntutorial/solvers\n```\n\n"
                    "[Solve](modules/solvers/solvers.rst)\n",
        "tutorial/solvers.md": "# Solvers\n",
        "modules/solvers/solvers.rst": "Solvers\n=======\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    warnings = COLOR.sub("", builds.build(tmp_path, fresh=True).warnings)
    (line,) = [w for w in warnings.splitlines() if "index.md:7:" in w]
    assert line.endswith("no document 'modules/solvers/solvers'; its source "
                         "`modules/solvers/solvers.rst` is there, but the build reads no page "
                         "from it (exclude_patterns) [relocate.link]"), line


def test_a_link_to_an_intersphinx_entry_names_the_inventory(tmp_path: Path) -> None:
    """MyST-Parser's ``[plugins](markdown_it:md/plugins)``, its inventory not loaded, was
    said to name no document ``using/markdown_it:md/plugins``."""
    from reorg_fixture import write_tree

    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["myst_parser", "sphinx.ext.intersphinx", "sphinx_relocate"]\n'
                   'intersphinx_mapping = {"markdown_it": ("https://example.invalid/", '
                   '"missing.inv")}\n',
        "index.md": "# Home\n\n```{toctree}\nusing/a\n```\n",
        "using/a.md": "# A\n\n[plugins](markdown_it:md/plugins)\n",
    }, {})
    warnings = builds.build(docs, fresh=True).warnings
    assert ("link 'markdown_it:md/plugins' does not land: no entry 'md/plugins' in the "
            "intersphinx inventory 'markdown_it' (not loaded, or without it)") in warnings


def test_a_rest_link_to_a_markdown_file_without_myst_warns(tmp_path: Path) -> None:
    """The Littlest JupyterHub's ``guides/install.rst`` linked `` `admin <admin.md>`_ ``
    in a project without MyST: ``admin.md`` was taken for the name of a page, not a
    file, and its link, a 404 on the site, gave no warning (``nothere.txt`` did)."""
    for name, text in {
        # set, not Sphinx's default: MyST's add_source_suffix adds ".md" to the default
        # itself, so every later build of the process reads .md pages (Sphinx 9.2;
        # sphinx-doc/sphinx#11795, config values copied shallowly)
        "conf.py": 'extensions = ["sphinx_relocate"]\nshow_warning_types = True\n'
                   'source_suffix = {".rst": "restructuredtext"}\n',
        "relocations.toml": '[pages]\n"guides/admin" = "howto/admin-users"\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   guides/install\n   howto/admin-users\n",
        "guides/install.rst": "Install\n=======\n\n`admin <admin.md>`_, `gone <nothere.md>`_, "
                              "`gone too <nothere.txt>`_.\n",
        "howto/admin-users.rst": "Admin users\n===========\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    warnings = COLOR.sub("", builds.build(tmp_path, fresh=True).warnings).splitlines()
    found = [w for w in warnings if "guides/install.rst:4:" in w]
    assert len(found) == 3, warnings
    assert all(w.endswith("[relocate.link]") for w in found), found
    assert any("'admin.md'" in w for w in found) and any("'nothere.md'" in w for w in found)
