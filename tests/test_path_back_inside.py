"""A path that leaves the repository and comes back in through the checkout's own name.

JupyterHub's ``services.md`` read ``{literalinclude}
../../../../../../jupyterhub/examples/service-whoami-flask/whoami-flask.py``: it works
only in a checkout named ``jupyterhub``, where the build (which reads paths on disk)
finds the file from the page's old folder after a move.  ``mv`` and ``rewrite`` read
paths inside the repository only, left it as written, and the moved page no longer
built without the extension.  They now take such a path for the file it reaches, and
write the path inside the repository.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import builds
import pytest

from sphinx_relocate.cli.main import main

INCLUDE = "```{literalinclude} ../../../../hub/examples/x.py\n```\n"


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "hub"  # the checkout's name, which the path goes through
    (root / "examples").mkdir(parents=True)
    (root / "examples" / "x.py").write_text("print('whoami')\n")
    docs = root / "docs"
    (docs / "a" / "b").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (docs / "conf.py").write_text('extensions = ["myst_parser"]\n')
    (docs / "index.md").write_text("# Home\n\n```{toctree}\na/b/page\n```\n")
    (docs / "a" / "b" / "page.md").write_text("# Page\n\n" + INCLUDE)
    return docs


def test_mv_writes_the_path_inside_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _repo(tmp_path)
    assert "whoami" in (builds.build(docs).outdir / "a/b/page.html").read_text("utf-8")
    assert main(["mv", str(docs), "a/b/page.md", "page.md"]) == 0
    capsys.readouterr()
    assert (docs / "page.md").read_text() == (
        "# Page\n\n```{literalinclude} ../examples/x.py\n```\n"
    )
    built = builds.build(docs, fresh=True)  # without the extension
    assert "whoami" in (built.outdir / "page.html").read_text("utf-8")
    assert "WARNING" not in built.warnings


def test_a_page_that_did_not_move_keeps_it_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _repo(tmp_path)
    (docs / "relocations.toml").write_text('[pages]\n"index2" = "index"\n')
    assert main(["rewrite", str(docs), "--write"]) == 0
    assert "nothing to rewrite" in capsys.readouterr().err
    assert (docs / "a" / "b" / "page.md").read_text() == "# Page\n\n" + INCLUDE
