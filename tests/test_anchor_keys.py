"""An ``[anchors]`` key may name the page by any of its names: its name now, an old one,
one in the middle of a chain, or the old name of another page merged into it; a link
written against any of them is moved by it, in the build and in ``rewrite`` alike."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.landing import Project, Site, land
from sphinx_relocate.core.table import load_table

#: "a" became "b", then "guide/setup"; "merged" was merged into it
PAGES = '[pages]\n"a" = "b"\n"b" = "guide/setup"\n"merged" = "guide/setup"\n'
NAMES = ["a", "b", "merged", "guide/setup"]
COLOR = re.compile(r"\x1b\[[0-9;]*m")


def table_with_key(tmp_path: Path, key: str) -> Any:
    path = tmp_path / "relocations.toml"
    path.write_text(PAGES + f'[anchors]\n"{key}#old-id" = "guide/setup#new-id"\n', "utf-8")
    table, problems = load_table(path, source_suffixes=(".md",))
    assert not problems
    return table


@pytest.mark.parametrize(("key", "written"), list(itertools.product(NAMES, NAMES)))
def test_any_name_of_the_key_covers_links_to_any_name(
    tmp_path: Path, key: str, written: str
) -> None:
    table = table_with_key(tmp_path, key)
    docs = {"index", "guide/setup"}
    project = Project(table, (".md",), "", docs.__contains__, lambda p: False, lambda p: False)
    landing = land(f"{written}.md#old-id", "any", Site(("",)), project)
    assert landing is not None
    assert (landing.target, landing.anchor) == ("guide/setup", "new-id")


def test_in_a_build_and_in_rewrite(
    make_app: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key names the page in the middle of its chain; links name it by each name."""
    srcdir = tmp_path / "docs"
    (srcdir / "guide").mkdir(parents=True)
    (srcdir / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\nmyst_heading_anchors = 2\n', "utf-8"
    )
    (srcdir / "relocations.toml").write_text(
        PAGES + '[anchors]\n"b#old-id" = "guide/setup#new-id"\n', "utf-8"
    )
    links = "\n".join(f"[{name}]({name}.md#old-id)" for name in NAMES)
    (srcdir / "index.md").write_text(
        f"# Home\n\n{links}\n\n```{{toctree}}\n:maxdepth: 1\n\nguide/setup\n```\n", "utf-8"
    )
    (srcdir / "guide" / "setup.md").write_text("# Setup\n\n## New id\n", "utf-8")
    app = make_app("html", srcdir=srcdir, freshenv=True)
    try:
        app.build()
    finally:
        app.cleanup()
    assert COLOR.sub("", app.warning.getvalue()) == ""
    html = (Path(app.outdir) / "index.html").read_text("utf-8")
    assert html.count('href="guide/setup.html#new-id"') == len(NAMES)

    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "docs", "--write"]) == 0
    text = (srcdir / "index.md").read_text("utf-8")
    assert text.count("(guide/setup.md#new-id)") == len(NAMES), text
