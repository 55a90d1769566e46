"""A ``:doc:`` or a toctree entry whose ``../`` climbs above the source folder.

Sphinx reads a document name with ``docname_join``, which stops ``../`` at the source
folder: in ``Concepts.rst``, ``:doc:`../Tutorials/Qos``` names ``Tutorials/Qos`` (ROS 2's
docs have such links). When the table moved that page, the build took the target for a
file outside the source folder (``relocate.repo_file``, "no file '../Tutorials/Qos'")
and the link was lost; ``rewrite`` left it. Both read it as Sphinx does now.
"""

from __future__ import annotations

from pathlib import Path

import builds
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sphinx.util import docname_join

from sphinx_relocate.cli.main import main
from sphinx_relocate.core.landing import Project, Site, land
from sphinx_relocate.core.spans import find_targets
from sphinx_relocate.core.table import RelocationTable

FILES = {
    "conf.py": 'extensions = ["sphinx_relocate"]\nexclude_patterns = ["_build"]\n'
               "show_warning_types = True\n",
    "relocations.toml": '[pages]\n"Tutorials/Qos" = "Tutorials/Demos/Qos"\n',
    "index.rst": "Home\n====\n\n.. toctree::\n\n   Concepts\n   Tutorials/Demos/Qos\n"
                 "   Tutorials/Demos/Logging\n",
    "Concepts.rst": "Concepts\n========\n\nSee :doc:`QoS <../Tutorials/Qos>`.\n",
    "Tutorials/Demos/Qos.rst": "QoS\n===\n\nQuality of service.\n",
    "Tutorials/Demos/Logging.rst": "Logging\n=======\n\nSee :doc:`../../../Concepts`"
                                   " and :doc:`../../../../Tutorials/Qos`.\n",
}


def _project(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return tmp_path / "docs"


def test_the_build_reads_a_doc_above_the_source_folder_as_sphinx_does(tmp_path: Path) -> None:
    srcdir = _project(tmp_path)
    built = builds.build(srcdir, fresh=True)
    assert "WARNING" not in built.warnings
    concepts = (built.outdir / "Concepts.html").read_text("utf-8")
    assert 'href="Tutorials/Demos/Qos.html"' in concepts
    logging = (built.outdir / "Tutorials" / "Demos" / "Logging.html").read_text("utf-8")
    assert 'href="../../Concepts.html"' in logging
    assert 'href="Qos.html"' in logging


def test_rewrite_reads_it_as_the_build_does(tmp_path: Path) -> None:
    srcdir = _project(tmp_path)
    assert main(["rewrite", str(srcdir), "--write"]) == 0
    assert ":doc:`QoS <Tutorials/Demos/Qos>`" in (srcdir / "Concepts.rst").read_text("utf-8")
    assert ":doc:`../../../Concepts`" in (srcdir / "Tutorials/Demos/Logging.rst").read_text(
        "utf-8"
    )  # it lands as written: left as it is
    (srcdir / "relocations.toml").unlink()
    (srcdir / "conf.py").write_text('exclude_patterns = ["_build"]\n', "utf-8")
    built = builds.build(srcdir, fresh=True)
    assert "WARNING" not in built.warnings
    assert 'href="Tutorials/Demos/Qos.html"' in (built.outdir / "Concepts.html").read_text(
        "utf-8"
    )


_PARTS = st.lists(st.sampled_from(["..", "a", "b", "."]), min_size=1, max_size=6)


@given(folder=st.lists(st.sampled_from(["a", "b"]), max_size=3), parts=_PARTS,
       prefix=st.sampled_from(["", "docs/"]))
def test_a_page_read_from_a_folder_is_sphinx_s_docname(
    folder: list[str], parts: list[str], prefix: str
) -> None:
    """The rule's page reading of a relative name is ``docname_join`` (every name is a
    document here, so the landing is the name)."""
    written = "/".join(parts)
    docname = "/".join([*folder, "page"])
    expected = docname_join(docname, written)
    project = Project(RelocationTable(), (".rst",), prefix, lambda name: bool(name),
                      lambda path: False, lambda path: False)
    site = Site(((prefix + "/".join(folder)).rstrip("/"),), prefix.rstrip("/"))
    landing = land(written, "page", site, project)
    if expected in ("", "."):
        return  # the source folder itself: no document
    assert landing is not None
    assert (landing.lands_on, landing.target) == ("page", expected)


ANY_FILES = {
    "conf.py": 'extensions = ["sphinx_relocate"]\nexclude_patterns = ["_build"]\n'
               'default_role = "any"\nshow_warning_types = True\n',
    "relocations.toml": '[pages]\n"Tutorials/Qos" = "Tutorials/Demos/Qos"\n'
                        '"Tutorials/Logging" = "Tutorials/Demos/Logging"\n',
    "index.rst": "Home\n====\n\n.. toctree::\n\n   Concepts/About-Logging\n"
                 "   Tutorials/Demos/Qos\n   Tutorials/Demos/Logging\n\n"
                 "See `QoS tutorial <Tutorials/Qos>`, `the logging label <logging-label>`"
                 " and :any:`Tutorials/Qos`.\n",
    "Concepts/About-Logging.rst": ".. _logging-label:\n\nAbout logging\n=============\n\n"
                                  "Text.\n",
    "Tutorials/Demos/Qos.rst": "QoS\n===\n\nQuality of service.\n",
    # moved from Tutorials/: its links were written from there
    "Tutorials/Demos/Logging.rst": "Logging\n=======\n\n"
                                   "See `the logging page <../Concepts/About-Logging>`.\n",
}


def test_an_any_reference_to_a_moved_page_goes_to_its_new_name(tmp_path: Path) -> None:
    """ROS 2 sets ``default_role = 'any'``, so `` `QoS <Tutorials/Qos>` `` is a page link
    (the ``any`` role tries ``:doc:`` first); the table moved the page, and the link was
    lost without a warning of ours. A moved page's such link is read from its old folder."""
    for name, text in ANY_FILES.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    built = builds.build(tmp_path / "docs", fresh=True)
    assert "WARNING" not in built.warnings
    index = (built.outdir / "index.html").read_text("utf-8")
    body = index.split('<div class="body"', 1)[1]
    assert body.count('href="Tutorials/Demos/Qos.html"') >= 3  # toctree, ` `, :any:
    assert 'href="Concepts/About-Logging.html#logging-label"' in body  # a label: as it was
    logging = (built.outdir / "Tutorials" / "Demos" / "Logging.html").read_text("utf-8")
    assert 'href="../../Concepts/About-Logging.html"' in logging.split('<div class="body"')[1]


def test_rewrite_sends_an_any_reference_to_a_moved_page_where_the_build_does(
    tmp_path: Path,
) -> None:
    """With ``default_role = 'any'`` in conf.py, `` `text <target>` `` and ``:any:`` name a
    page as well as a label: ``rewrite`` writes a moved page's new name there, and the
    rewritten sources land every link built without the extension."""
    for name, text in ANY_FILES.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    srcdir = tmp_path / "docs"
    assert main(["rewrite", str(srcdir), "--write"]) == 0
    index = (srcdir / "index.rst").read_text("utf-8")
    assert "`QoS tutorial <Tutorials/Demos/Qos>`" in index
    assert ":any:`Tutorials/Demos/Qos`" in index
    assert "`the logging label <logging-label>`" in index  # a label: left as it is
    assert "`the logging page <../../Concepts/About-Logging>`" in (
        srcdir / "Tutorials/Demos/Logging.rst").read_text("utf-8")
    (srcdir / "relocations.toml").unlink()
    (srcdir / "conf.py").write_text(
        'exclude_patterns = ["_build"]\ndefault_role = "any"\n', "utf-8"
    )
    built = builds.build(srcdir, fresh=True)
    assert "WARNING" not in built.warnings
    body = (built.outdir / "index.html").read_text("utf-8").split('<div class="body"', 1)[1]
    assert body.count('href="Tutorials/Demos/Qos.html"') >= 3


@pytest.mark.parametrize(("text", "found"), [
    ("See `QoS <Tutorials/Qos>`.", ["Tutorials/Qos"]),
    ("See `Tutorials/Qos` here.", ["Tutorials/Qos"]),
    ("A :doc:`x <a/b>` role, a `link <https://x.org>`_, ``code`` and `x`:doc: too.", []),
    ("An `anonymous <a/b>`__ link.", []),
])
def test_default_role_spans_are_interpreted_text_without_a_role(
    text: str, found: list[str]
) -> None:
    spans = find_targets(text, "page.rst", default_role="any")
    assert [text[s.start : s.end] for s in spans if s.syntax == "any"] == found
