"""A ``:glob:`` toctree entry whose folder moved under ``[prefixes]`` follows the folder."""

from __future__ import annotations

import re
from pathlib import Path

import builds
import pytest

from sphinx_relocate.cli.main import main

COLOR = re.compile(r"\x1b\[[0-9;]*m")
INDEX = """\
# Home

```{toctree}
:glob:

api/*
reference/extra*
```
"""


def build(srcdir: Path, table: str) -> tuple[str, str]:
    (srcdir / "relocations.toml").write_text(table, encoding="utf-8")
    built = builds.build(srcdir, confoverrides={"extensions": ["myst_parser", "sphinx_relocate"]})
    return (built.outdir / "index.html").read_text("utf-8"), built.warnings


def test_a_glob_of_a_moved_folder_lists_its_pages(tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    (srcdir / "reference" / "api").mkdir(parents=True)
    (srcdir / "conf.py").write_text('exclude_patterns = ["_build"]\n', encoding="utf-8")
    (srcdir / "index.md").write_text(INDEX, encoding="utf-8")
    for name in ("alpha", "beta"):
        (srcdir / "reference" / "api" / f"{name}.md").write_text(f"# {name.title()}\n", "utf-8")
    (srcdir / "reference" / "extra-notes.md").write_text("# Extra notes\n", "utf-8")

    html, warnings = build(srcdir, '[prefixes]\n"api/" = "reference/api/"\n')
    assert COLOR.sub("", warnings) == ""
    assert 'href="reference/api/alpha.html"' in html
    assert 'href="reference/api/beta.html"' in html
    assert 'href="reference/extra-notes.html"' in html  # matched as written: kept

    # without the prefix, Sphinx reports the glob that matches nothing, as usual
    html, warnings = build(srcdir, "")
    assert "toctree glob pattern 'api/*' didn't match any documents" in COLOR.sub("", warnings)
    assert "reference/api/alpha.html" not in html


def test_rewrite_writes_the_moved_glob_and_a_plain_build_lists_the_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewritten sources, built without the extension, list what the build with it
    listed: Sphinx's own glob matches the pattern ``rewrite`` wrote."""
    srcdir = tmp_path / "src"
    (srcdir / "reference" / "api").mkdir(parents=True)
    (srcdir / "conf.py").write_text(  # the command line reads it: Markdown pages
        'extensions = ["myst_parser"]\nexclude_patterns = ["_build"]\n', encoding="utf-8"
    )
    (srcdir / "index.md").write_text(INDEX, encoding="utf-8")
    for name in ("alpha", "beta"):
        (srcdir / "reference" / "api" / f"{name}.md").write_text(f"# {name.title()}\n", "utf-8")
    (srcdir / "reference" / "extra-notes.md").write_text("# Extra notes\n", "utf-8")
    with_extension, _ = build(srcdir, '[prefixes]\n"api/" = "reference/api/"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "src", "--write"]) == 0
    assert "\nreference/api/*\n" in (srcdir / "index.md").read_text("utf-8")
    plain = builds.build(srcdir, fresh=True, confoverrides={"extensions": ["myst_parser"]})
    assert COLOR.sub("", plain.warnings) == ""
    html = (plain.outdir / "index.html").read_text("utf-8")
    links = re.compile(r'href="(reference/[^"#]*)"')
    assert links.findall(html) == links.findall(with_extension) != []
