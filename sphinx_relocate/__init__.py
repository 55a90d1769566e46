"""Make documentation reorganizations safe: move files, write one table, build.

How it works:

* Every ``relocate_*`` value is checked once, first thing at ``config-inited``, by the
  check declared with it in ``core.settings.CONFIG_VALUES``; a wrong one stops the build with
  one line at its conf.py line.  Every stop prints its own line before Sphinx's report.
* The user moves pages (and images) and lists the moves in one relocation table:
  ``relocations.toml`` next to conf.py (``[pages]``, ``[prefixes]``, ``[files]``,
  ``[anchors]``, ``[labels]``, ``[patterns]``) and/or a ``relocate_map`` dict in
  conf.py, and a page may list its own old names (``relocated_from`` in its front
  matter or first field list, ``core/declared.py``: read from the top of the sources before
  any document).  The table is read and validated once per build, at ``config-inited``; a
  bad table stops the build with one line per problem, naming its file and line.
* Where a written target lands is one Sphinx-free rule (``core/landing.py``), which the
  build and ``sphinx-relocate rewrite`` both call.  While each document is read, every
  reference is resolved through it: Markdown and reST page links, ``:doc:``, toctree
  entries, images, downloads, raw HTML, own-repository and own-site URLs, and the files
  ``include``, ``literalinclude`` and ``csv-table`` read.  A moved page's relative links
  are read from the folder they were written from, its *frame*, decided per page by the
  links that land from only one of its folders; a link with two meanings that nothing
  decides is a ``relocate.ambiguous`` warning, never a guess.  Documents are re-read
  only when a table edit affects them (a hash of the table lives in the environment).
* HTML builders get a small redirect page at every old URL (``old.html`` or
  ``old/index.html``), which keeps ``?query`` and ``#fragment`` and speaks the build's
  ``language``, and ``objects.inv`` lists every old page name at its new page, for other
  projects' intersphinx.
* A moved page with no message catalog at its new name is translated from the catalog
  at its old name (``sphinx_ext/catalogs.py``); ``rewrite`` moves such catalogs.
* ``[labels]`` renames labels: ``:ref:``, ``:numref:`` and MyST ``[](#label)`` to an old
  label land on the new one, and ``objects.inv`` lists the old label at the new one's
  section, for other projects' intersphinx.
* The new section of an ``[anchors]`` or ``[labels]`` entry also carries the old id
  (``sphinx_ext/old_ids.py``), so ``page.html#old-id`` scrolls to it on a page that did not move.
* With ``relocate_published`` (a release's ``objects.inv``, a sitemap, a list of URLs, a
  previous output folder, or several), every URL, page and label the world has seen
  that lost its way in is a ``relocate.unredirected`` warning.
* Every internal reference that still does not land is a ``relocate.*`` warning at its
  file and line, on every build (the findings live in the environment), so
  ``sphinx-build -W`` fails until the docs are whole.
* Every build ends with one INFO line (``sphinx_ext/summary.py``): the table read with its entry
  count (or every place looked in), references rewritten, redirect pages written and
  removed, exports, dangling references.
* The ``sphinx-relocate`` command checks a table, rewrites sources from it and derives
  it from git renames.

:func:`setup` below is the whole of the extension's wiring: every config value,
directive, transform and event handler; the order in which the features run within
each event is in ``sphinx_ext/events.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinx_relocate.core.settings import CONFIG_VALUES
from sphinx_relocate.core.table import Location, Problem, RelocationTable, Target, load_table
from sphinx_relocate.sphinx_ext import events
from sphinx_relocate.sphinx_ext.catalogs import CatalogAtOldName
from sphinx_relocate.sphinx_ext.check import ReportedReferences
from sphinx_relocate.sphinx_ext.config import check_config, register
from sphinx_relocate.sphinx_ext.resolve import RelocatingTocTree
from sphinx_relocate.sphinx_ext.stubs import LOCALE_DIR, MESSAGE_CATALOG
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__version__ = "0.1.0"
__all__ = [
    "CONFIG_VALUES",
    "Location",
    "Problem",
    "RelocateWarning",
    "RelocationTable",
    "Target",
    "load_table",
    "setup",
]

#: Bump when the data kept in the environment changes shape.
ENV_VERSION = 10


def setup(app: Sphinx) -> dict[str, Any]:
    """Every config value, registration and event handler of the extension; the order
    within each event is in ``sphinx_ext/events.py``."""
    register(app)  # every relocate_* value, and the peers' values no other extension has
    app.add_message_catalog(MESSAGE_CATALOG, LOCALE_DIR)  # the stubs' sentence
    # the toctree that maps its entries through the table as it is parsed
    app.add_directive("toctree", RelocatingTocTree, override=True)
    # a moved page with no catalog at its new name is translated from its old one
    app.add_transform(CatalogAtOldName)
    # at write time: references to renamed labels, links with several meanings, and
    # dangling links (in that order: their default_priority 6, 7, 8)
    app.add_post_transform(ReportedReferences)

    # before anything reads a value (handlers at 500) and before Sphinx's own type
    # warnings (800); then after Sphinx has normalized source_suffix (800) and before
    # sphinx-external-toc reads its site map (900); then after it
    app.connect("config-inited", check_config, priority=400)
    app.connect("config-inited", events.load_table, priority=899)
    app.connect("config-inited", events.map_site_map, priority=905)
    app.connect("env-get-outdated", events.find_outdated)
    app.connect("env-before-read-docs", events.note_documents_to_read)
    app.connect("env-purge-doc", events.forget_document)
    app.connect("env-merge-info", events.merge_parallel_reads)
    app.connect("source-read", events.map_included_files)
    app.connect("include-read", events.map_files_of_included)
    # below Sphinx's collectors (500), then after every other handler
    app.connect("doctree-read", events.rewrite_references, priority=200)
    app.connect("doctree-read", events.collect_anchors, priority=900)
    app.connect("env-updated", events.check_site)
    app.connect("missing-reference", events.resolve_missing_reference)
    app.connect("doctree-resolved", events.finish_page)
    app.connect("html-page-context", events.give_moved_pages_their_sidebars, priority=400)
    app.connect("html-page-context", events.prepare_page_context)
    app.connect("build-finished", events.write_redirects)
    # after every other handler, so its lines are the last before Sphinx's own
    app.connect("build-finished", events.report_build, priority=900)
    return {
        "version": __version__,
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
