"""A reST link to a local file that is no page: a 404 on the site unless the output has it.

Sphinx copies the file of an image or a ``:download:`` into the site, MyST makes a
Markdown link to a file a download, and the extension copies what raw HTML names; a
reST link (`` `data <files/data.csv>`_ ``, an image's ``:target:``) keeps its path and
nothing copies the file.  Once the output is written, each such link is looked up
where the browser takes it from its page's URL: a file ``html_static_path`` or
``html_extra_path`` put there is served, anything else is ``relocate.unpublished`` at
the link's line, on every build.
"""

from __future__ import annotations

import re
import subprocess
from io import StringIO
from pathlib import Path
from typing import Any

import builds
import pytest

COLOR = re.compile(r"\x1b\[[0-9;]*m")


def _unpublished(warnings: str, srcdir: Path) -> list[tuple[str, str]]:
    """(file:line, the link and where it reaches) of each relocate.unpublished warning."""
    found = []
    for line in COLOR.sub("", warnings).splitlines():
        if line.endswith("[relocate.unpublished]"):
            where, _, message = line.partition(": WARNING: ")
            found.append((where.removeprefix(f"{srcdir}/"), message.partition(", where")[0]))
    return sorted(found)


HTML = [
    ("guide/moved.rst:4", "link 'files/data.csv' reaches 'files/data.csv' on the site"),
    ("index.rst:14", "link 'files/diagram.png' reaches 'files/diagram.png' on the site"),
    ("index.rst:9", "link 'files/data.csv' reaches 'files/data.csv' on the site"),
]


@pytest.mark.sphinx("html", testroot="unpublished")
def test_a_link_to_a_file_nothing_publishes_warns_at_its_line(app: Any, warning: StringIO) -> None:
    app.build()
    # the static file, the extra file, the download and MyST's link are served
    assert _unpublished(warning.getvalue(), app.srcdir) == HTML, warning.getvalue()
    assert "relocate." not in COLOR.sub("", warning.getvalue()).replace(
        "[relocate.unpublished]", "")
    message = COLOR.sub("", warning.getvalue()).splitlines()[0]
    assert message.endswith(
        "where the html output has no file: Sphinx copies no file a reST link names; link "
        "it with :download: to publish it, or copy it there with html_extra_path "
        "[relocate.unpublished]")
    # the links are left as written: the warning is the whole change
    index = (Path(app.outdir) / "index.html").read_text("utf-8")
    assert 'href="files/data.csv"' in index and 'href="files/diagram.png"' in index
    moved = (Path(app.outdir) / "guide/moved.html").read_text("utf-8")
    assert 'href="../files/data.csv"' in moved and 'href="../_static/manual.pdf"' in moved


@pytest.mark.sphinx("dirhtml", testroot="unpublished")
def test_dirhtml_judges_each_link_from_its_pages_url(app: Any, warning: StringIO) -> None:
    app.build()
    found = _unpublished(warning.getvalue(), app.srcdir)
    assert found == [
        ("guide/moved.rst:4", "link 'files/data.csv' reaches 'guide/files/data.csv' on the site"),
        ("guide/moved.rst:5",
         "link '_static/manual.pdf' reaches 'guide/_static/manual.pdf' on the site"),
        ("index.rst:14", "link 'files/diagram.png' reaches 'files/diagram.png' on the site"),
        ("index.rst:9", "link 'files/data.csv' reaches 'files/data.csv' on the site"),
    ]
    static = [line for line in COLOR.sub("", warning.getvalue()).splitlines()
              if "manual.pdf" in line]
    assert "the dirhtml output has it at '_static/manual.pdf', which the link reaches only " \
        "from the page's html URL; link it with :download:" in static[0]


@pytest.mark.sphinx("latex", testroot="unpublished")
def test_other_builders_publish_no_site(app: Any, warning: StringIO) -> None:
    app.build()
    assert _unpublished(warning.getvalue(), app.srcdir) == []


@pytest.mark.sphinx("html", testroot="unpublished",
                    confoverrides={"suppress_warnings": ["relocate.unpublished"],
                                   "relocate_fail_on_dangling": True})
def test_suppressed_it_neither_warns_nor_counts(app: Any, warning: StringIO) -> None:
    app.build()
    assert COLOR.sub("", warning.getvalue()) == ""
    assert app.statuscode == 0


def test_every_build_warns_again_and_a_published_file_silences_it(tmp_path: Path) -> None:
    srcdir = builds.copy_root("unpublished", tmp_path)
    assert _unpublished(builds.build(srcdir).warnings, srcdir) == HTML
    again = builds.build(srcdir)  # nothing read again
    assert again.read == frozenset()
    assert _unpublished(again.warnings, srcdir) == HTML
    # the file copied where the links reach: served, with no page read again
    (srcdir / "conf.py").write_text(
        (srcdir / "conf.py").read_text().replace('["_extra"]', '["_extra", "published"]')
    )
    (srcdir / "published" / "files").mkdir(parents=True)
    (srcdir / "published" / "files" / "data.csv").write_text("a,b\n")
    assert _unpublished(builds.build(srcdir).warnings, srcdir) == [HTML[1]]


def test_a_file_outside_the_docs_is_served_only_as_a_forge_link(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "run.py").write_text("print()\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('extensions = ["sphinx_relocate"]\nshow_warning_types = True\n')
    (docs / "index.rst").write_text("Home\n====\n\nThe `tool <../tools/run.py>`_.\n")
    lines = COLOR.sub("", builds.build(docs).warnings).splitlines()
    assert [line.partition(": WARNING: ")[2] for line in lines] == [
        "repo file '../tools/run.py' reaches above the site's root, where the html output has "
        "no file: Sphinx copies no file a reST link names; link it with :download: to publish "
        "it, or copy it there with html_extra_path, or set relocate_repo_url to link it on "
        "the forge [relocate.unpublished]"
    ]
    assert lines[0].startswith(f"{docs}/index.rst:4: ")
    forge = builds.build(docs, confoverrides={"relocate_repo_url": "https://forge.example/o/r"})
    assert COLOR.sub("", forge.warnings) == ""
    assert 'href="https://forge.example/o/r/blob/HEAD/tools/run.py"' in (
        forge.outdir / "index.html").read_text("utf-8")


def test_a_page_another_tool_put_in_the_output_is_served(tmp_path: Path) -> None:
    """JupyterLab's conf.py copies its TypeDoc API pages into the output's ``api/``, and
    its guide links `` `here <../api/index.html>`_ ``: a drop-in build warned.  An HTML
    file no Sphinx builder wrote is served; a page an earlier build left is not."""
    docs = tmp_path / "docs"
    (docs / "dev").mkdir(parents=True)
    (docs / "conf.py").write_text(
        "import os\nextensions = ['sphinx_relocate']\nshow_warning_types = True\n"
        "def setup(app):\n"
        "    os.makedirs(os.path.join(app.outdir, 'api'), exist_ok=True)\n"
        "    with open(os.path.join(app.outdir, 'api', 'index.html'), 'w') as page:\n"
        "        page.write('<html><body>API</body></html>')\n"
    )
    (docs / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   dev/api\n   dev/old\n")
    (docs / "dev" / "api.rst").write_text(
        "API\n===\n\nThe `reference <../api/index.html>`_, the `old page <old.html>`_.\n")
    (docs / "dev" / "old.rst").write_text("Old\n===\n")
    assert COLOR.sub("", builds.build(docs).warnings) == ""
    # the old page goes; the page the last build wrote for it stays in the output
    (docs / "dev" / "old.rst").unlink()
    (docs / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   dev/api\n")
    for built in (builds.build(docs), builds.build(docs)):
        lines = COLOR.sub("", built.warnings).splitlines()
        assert len(lines) == 1 and "link 'old.html' does not land" in lines[0], lines
