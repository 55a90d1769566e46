"""A ``:glob:`` toctree entry whose folder moved under ``[prefixes]`` follows the folder."""

from __future__ import annotations

import re
from pathlib import Path

import builds

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
