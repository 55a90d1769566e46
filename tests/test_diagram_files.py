"""Files a directive names, in forms a moved page must not lose: diagrams, substitutions.

``.. uml:: umls/context.puml`` (sphinxcontrib-plantuml, conda's architecture page),
``.. graphviz:: flow.dot`` (``sphinx.ext.graphviz``) and ``.. mermaid:: x.mmd``
(sphinxcontrib-mermaid) read their file from the page's folder, as ``literalinclude``
does.  When ``mv`` moved ``architecture.rst`` a level down, it rewrote the toctree entry
and left the diagram paths, which then named nothing, with no warning of ours.
"""

from __future__ import annotations

from pathlib import Path

import builds
import pytest
from reorg_fixture import write_tree

from sphinx_relocate.cli.main import main

PAGE = (
    "Architecture\n============\n\n.. uml:: umls/context.puml\n\n"
    ".. graphviz:: umls/flow.dot\n\n.. mermaid:: /umls/seq.mmd\n"
)
MYST = "# Notes\n\n```{graphviz} umls/flow.dot\n```\n"


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["myst_parser", "sphinx.ext.graphviz", "sphinx_relocate"]\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   architecture\n   notes\n",
        "architecture.rst": PAGE,
        "notes.md": MYST,
        "umls/context.puml": "@startuml\nA -> B\n@enduml\n",
        "umls/flow.dot": "digraph { a -> b }\n",
        "umls/seq.mmd": "sequenceDiagram\n",
    }, {})
    return docs


def test_mv_rewrites_the_diagram_paths_of_a_moved_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "architecture.rst", "dev-guide/architecture.rst"]) == 0
    assert main(["mv", "docs", "notes.md", "dev-guide/notes.md"]) == 0
    assert (docs / "dev-guide/architecture.rst").read_text("utf-8") == PAGE.replace(
        ":: umls/", ":: ../umls/")  # a path from the top (/umls/seq.mmd) stays
    assert (docs / "dev-guide/notes.md").read_text("utf-8") == MYST.replace(
        "} umls/", "} ../umls/")


def test_the_build_reads_a_moved_pages_diagram_from_its_old_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mv --keep-links``: the page is as it was; the build maps the path before the
    directive reads the file (the text builder renders no image, so no ``dot`` runs)."""
    docs = _docs(tmp_path)
    conf = docs / "conf.py"
    conf.write_text(conf.read_text("utf-8") + "relocate_report_rewrites = True\n"
                    "show_warning_types = True\n", "utf-8")  # Sphinx 7.4 shows none by default
    (docs / "architecture.rst").write_text(PAGE.split(".. uml::")[0]
                                           + ".. graphviz:: umls/flow.dot\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "architecture.rst", "dev-guide/architecture.rst",
                 "--keep-links"]) == 0
    built = builds.build(docs, "text", fresh=True)
    warnings = builds.COLOR.sub("", built.warnings)
    assert "not found" not in warnings and "graphviz" not in warnings.lower(), warnings
    assert "dev-guide/architecture.rst:4" in warnings  # outdated, as any include path
    assert "[relocate.outdated]" in warnings


def test_the_image_of_a_substitution_follows_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JupyterLab's ``.. |dependencies| image:: dependency-graph.svg``: ``mv`` of the page
    and of the image left it, and the page lost its figure without the extension."""
    docs = tmp_path / "docs"
    write_tree(docs, {
        "conf.py": 'extensions = ["sphinx_relocate"]\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   dev/guide\n",
        "dev/guide.rst": "Guide\n=====\n\nThe graph: |deps|\n\n"
                         ".. |deps| image:: graph.svg\n   :alt: dependencies\n",
        "dev/graph.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n",
    }, {})
    monkeypatch.chdir(tmp_path)
    assert main(["mv", "docs", "dev/guide.rst", "ext/guide.rst"]) == 0
    assert main(["mv", "docs", "dev/graph.svg", "ext/images/graph.svg"]) == 0
    assert ".. |deps| image:: images/graph.svg\n" in (docs / "ext/guide.rst").read_text("utf-8")
    conf = docs / "conf.py"
    conf.write_text("extensions = []\n", "utf-8")
    built = builds.build(docs, fresh=True)
    assert "WARNING" not in built.warnings, built.warnings
    assert 'src="../_images/graph.svg"' in (built.outdir / "ext/guide.html").read_text("utf-8")
