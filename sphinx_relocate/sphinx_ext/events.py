"""The extension's handler of each Sphinx event: which features run, in which order.

``setup()`` connects these and nothing else, so the order in which the features hand
data to each other is written here, once, instead of following from priorities and
from the order modules were connected in.  Each handler names its job; the feature
modules keep the work.  An event has a second handler only where other handlers
(Sphinx's own, or other extensions') must run in between; each pair says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinx_relocate.sphinx_ext import (
    catalogs,
    check,
    config,
    external_toc,
    extra_html,
    inventory,
    old_ids,
    published,
    record,
    resolve,
    sidebars,
    stubs,
    summary,
    templates,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from docutils import nodes
    from sphinx import addnodes
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

# -- config-inited: config.check_config (400, before Sphinx's own checks at 800) builds
#    the settings; load_table runs after Sphinx normalized source_suffix (800) and
#    before sphinx-external-toc reads its site map (900); map_site_map after it


def load_table(app: Sphinx, config_: Config) -> None:
    """What this build reads besides conf.py, once, before any document is read."""
    # 1. the table (stops the build on a bad one), read with the settings
    config.read_build_table(app, config_)
    # 2. the stub template (stops the build on a bad one) and the stub bookkeeping
    stubs.load_stub_template(app)
    # 3. exclude_patterns as conf.py set them (sphinx-external-toc adds to them)
    external_toc.note_exclude_patterns(app, config_)


def map_site_map(app: Sphinx, config_: Config) -> None:
    """sphinx-external-toc's site map, read at 900, with its entries mapped through the
    table before any page's toctree is made from it."""
    external_toc.map_site_map(app, config_)


# -- env-get-outdated ------------------------------------------------------------


def find_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """The documents to read again besides Sphinx's own (Sphinx takes the union)."""
    # 1. the table checked against this project's documents and files (and pages renamed
    #    since relocate_since without an entry), warned on every build
    outdated = config.on_env_get_outdated(app, env, added, changed, removed)
    # 2. forget this process's file answers; documents whose lookups answer otherwise now
    outdated += resolve.on_env_get_outdated(app, env, added, changed, removed)
    # 3. documents whose replaced image or download now exists
    outdated += check.on_env_get_outdated(app, env, added, changed, removed)
    # 4. the catalogs borrowed from old names (state.catalogs, read by the transform)
    outdated += catalogs.on_env_get_outdated(app, env, added, changed, removed)
    # 5. the last build's stubs (state.previous_stubs, state.stale_pages, read at
    #    build-finished): pages a stub replaced that the table no longer replaces
    outdated += stubs.on_env_get_outdated(app, env, added, changed, removed)
    return outdated


def note_documents_to_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """The documents this build reads (every reader's, ``-j`` included)."""
    # 1. the check looks again at them and at the documents that depend on them
    check.note_changed(app, docnames)
    # 2. their sites (old folders), made in one pass
    resolve.make_sites(app, docnames)


# -- reading ----------------------------------------------------------------------


def map_included_files(app: Sphinx, docname: str, source: list[str]) -> None:
    """Keep the source text (a moved page's frame) and map the files it includes."""
    resolve.on_source_read(app, docname, source)


def map_files_of_included(app: Sphinx, path: Path, docname: str, content: list[str]) -> None:
    """The same for a file that a document includes, as it is read."""
    resolve.on_include_read(app, path, docname, content)


def rewrite_references(app: Sphinx, doctree: nodes.document) -> None:
    """Below Sphinx's collectors (500), which record images, downloads and toctrees."""
    # 1. every reference resolved through the table, and recorded for the check
    resolve.on_doctree_read(app, doctree)
    # 2. images and downloads that name no file become text (from the records of 1)
    check.neutralize_files(app, doctree)


def collect_anchors(app: Sphinx, doctree: nodes.document) -> None:
    """The second ``doctree-read`` handler, at 900: after every other extension's
    handler, so each id they add is an anchor a link may name."""
    check.collect_anchors(app, doctree)


def forget_document(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    """A document is read again or removed: drop what every store kept of it."""
    # 1. every store's data of the document
    record.purge(env, docname)
    # 2. the stubs' plan read its title and labels: compared once every page is read
    stubs.on_env_purge_doc(app, docname)


def merge_parallel_reads(
    app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment
) -> None:
    """Take what every store of a parallel reader kept of its documents."""
    record.merge(env, docnames, other)


# -- env-updated: every document is read --------------------------------------------


def check_site(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Check the whole site on every build; return the documents to write again."""
    # 1. the recorded references, again where this build's changes reach (state.report)
    rewrite = check.on_env_updated(app, env)
    # 2. what the last release published (state.published_pages and published_ids)
    rewrite += published.on_env_updated(app, env)
    # 3. the old ids that sections carry, and those that left their page (from the
    #    anchors of every document, the table and 2)
    rewrite += old_ids.on_env_updated(app, env)
    # 4. whether the documents read changed what the stubs' plan reads of them
    stubs.on_env_updated(app, env)
    # 5. the html_sidebars keys that named moved pages (state.moved_sidebars)
    sidebars.on_env_updated(app, env)
    # 6. the table lookups of the documents read, packed: Sphinx pickles the
    #    environment next
    resolve.pack_lookups(env)
    return rewrite


# -- writing ----------------------------------------------------------------------


def resolve_missing_reference(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.reference | None:
    """The reST page links the resolver turned into cross-references."""
    return resolve.on_missing_reference(app, env, node, contnode)


def finish_page(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """What a page needs just before an HTML builder writes it."""
    # 1. raw HTML's source paths become this builder's URLs
    resolve.on_doctree_resolved(app, doctree, docname)
    # 2. sections carry their old ids
    old_ids.on_doctree_resolved(app, doctree, docname)


# -- html-page-context: give_moved_pages_their_sidebars at 400, before a theme's
#    handlers (pydata-sphinx-theme's at 500) read and filter the sidebars; then
#    prepare_page_context among the others


def give_moved_pages_their_sidebars(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], *args: object
) -> None:
    """A moved page keeps the sidebars its old name's key gave it."""
    sidebars.follow_sidebars(app, pagename, context)


def prepare_page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], *args: object
) -> None:
    """What a page's template gets, and which pages the builder rendered itself."""
    # 1. a page the builder rendered itself is one no stub may replace
    stubs.on_html_page_context(app, pagename)
    # 2. the script that sends the page's departed fragments on
    old_ids.on_html_page_context(app, pagename, context)
    # 3. the template's pathto('old/page') links the page it moved to
    templates.follow_pathto(app, context)


# -- build-finished: write_redirects at 500, among other extensions' outputs, then
#    report_build at 900, after every other handler's output


def write_redirects(app: Sphinx, exception: BaseException | None) -> None:
    """The old URLs of a successful HTML build: stubs, exports, ``objects.inv`` aliases."""
    # 1. the stubs and exports (state.stub_report, for the summary line)
    stubs.on_build_finished(app, exception)
    # 2. the old names in objects.inv (reuses the old pages' landings of 1)
    inventory.on_build_finished(app, exception)


def report_build(app: Sphinx, exception: BaseException | None) -> None:
    """The last lines of a build, after every other handler's warnings."""
    # 0. the published URLs nothing serves, now that the builder's own pages are known
    published.on_build_finished(app, exception)
    if exception is None:  # and the pages the templates and extra files name, counted
        templates.check_template_links(app)  # with the rest
        extra_html.check_extra_links(app)
    # 1. the dangling count (state.dangling); fails the build when asked to
    check.on_build_finished(app, exception)
    # 2. the summary line, from what 1 and write_redirects left in the state
    summary.on_build_finished(app, exception)
