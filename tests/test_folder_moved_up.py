"""A folder flattened into its parent: ``[prefixes] "guide/old/" = "guide/"``.

``from-git`` derives such entries (JupyterHub's 2023 reorganization moved
``explanation/admin/*`` to ``explanation/``).  The entry also sends
``guide/old/old/a`` to ``guide/a``, one step at a time, and the walk back from a page
to its old names nested deeper for ever: the build hung on the first page of
``guide/``, and so did ``rewrite``.  Each runs in a subprocess with a time limit, so a
hang fails the test instead of stalling the run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def _project(root: Path) -> Path:
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\nshow_warning_types = True\n'
    )
    (docs / "relocations.toml").write_text('[prefixes]\n"guide/old/" = "guide/"\n')
    (docs / "index.md").write_text("# Home\n\n```{toctree}\nguide/a\nguide/b\n```\n")
    # guide/a.md stood in guide/old/: its link to b.md is read from there too
    (docs / "guide" / "a.md").write_text("# A\n\nSee [B](b.md) and [the old B](old/b.md).\n")
    (docs / "guide" / "b.md").write_text("# B\n")
    return docs


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_build_and_rewrite_end_and_land(tmp_path: Path) -> None:
    docs = _project(tmp_path)
    built = _run("-m", "sphinx", "-E", "-q", "-b", "html", str(docs), str(tmp_path / "out"),
                 cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert built.stderr == ""
    page = (tmp_path / "out" / "guide" / "a.html").read_text("utf-8")
    page = page[page.index('<div class="body"') : page.index('<div class="sphinxsidebar"')]
    links = re.findall(r'<a [^>]*href="([^"]*)"[^>]*>(?:<span[^>]*>)?(B|the old B)<', page)
    assert links == [("b.html", "B"), ("b.html", "the old B")]
    # the old URLs of the flattened folder are stubs
    assert (tmp_path / "out" / "guide" / "old" / "a.html").is_file()
    rewritten = _run("-m", "sphinx_relocate", "rewrite", str(docs), "--write", cwd=tmp_path)
    assert rewritten.returncode == 0, rewritten.stderr
    assert (docs / "guide" / "a.md").read_text() == "# A\n\nSee [B](b.md) and [the old B](b.md).\n"
