"""A page moved to the name of the folder its neighbours stay in: ``guide/intro.md`` →
``guide.md`` beside ``guide/``.

From ``guide/``, that page is ``../guide``; ``.`` names the folder (pip moved
``reference/build-system/pyproject-toml.md`` to ``reference/build-system.md`` in 2025,
and ``rewrite`` wrote ``{doc}`.``` and a toctree entry ``.`` for it, which broke every
page's navigation).  Judged by where the links land: the rewritten sources built by
plain Sphinx, and the moved sources built with the extension.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import builds
import pytest

from sphinx_relocate.cli.main import main


def _project(root: Path, *, relocate: bool) -> Path:
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    extensions = '["myst_parser", "sphinx_relocate"]' if relocate else '["myst_parser"]'
    (docs / "conf.py").write_text(f"extensions = {extensions}\nshow_warning_types = True\n")
    (docs / "relocations.toml").write_text('[pages]\n"guide/intro" = "guide"\n')
    (docs / "index.md").write_text("# Home\n\n```{toctree}\nguide/index\n```\n")
    (docs / "guide" / "index.md").write_text(
        "# Guide\n\n```{toctree}\nintro\nsetup\n```\n\nStart [here](intro).\n"
    )
    (docs / "guide" / "setup.md").write_text("# Setup\n\nRead {doc}`intro` first.\n")
    (docs / "guide.md").write_text("# Intro\n")  # was guide/intro.md
    return docs


def _build(docs: Path) -> tuple[dict[str, str], list[str]]:
    built = builds.build(docs)
    pages = {name: (built.outdir / name).read_text("utf-8")
             for name in ("guide/index.html", "guide/setup.html")}
    return pages, [w for w in built.warnings.splitlines() if "WARNING" in w]


def _links_to_the_page(html: str) -> list[str]:
    return [href for href, text in re.findall(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>', html)
            if "Intro" in text or "here" in text]


def test_rewrite_names_the_page_from_inside_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _project(tmp_path, relocate=False)
    assert main(["rewrite", str(docs), "--write"]) == 0
    capsys.readouterr()
    assert (docs / "guide" / "index.md").read_text() == (
        "# Guide\n\n```{toctree}\n../guide\nsetup\n```\n\nStart [here](../guide).\n"
    )
    assert (docs / "guide" / "setup.md").read_text() == "# Setup\n\nRead {doc}`../guide` first.\n"
    pages, warnings = _build(docs)
    assert warnings == []
    assert set(_links_to_the_page(pages["guide/index.html"])) == {"../guide.html"}
    assert set(_links_to_the_page(pages["guide/setup.html"])) == {"../guide.html"}


def test_the_build_lands_them_as_written(tmp_path: Path) -> None:
    docs = _project(tmp_path, relocate=True)
    pages, warnings = _build(docs)
    assert warnings == []
    assert set(_links_to_the_page(pages["guide/index.html"])) == {"../guide.html"}
    assert set(_links_to_the_page(pages["guide/setup.html"])) == {"../guide.html"}
