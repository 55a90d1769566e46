"""Resolve references written against old paths, while each document is read.

One mechanism, :meth:`Resolver.resolve`, takes a written target and answers where it
lands now, by asking the rule of ``_landing`` (which ``rewrite`` asks too) with this
build's view of the project: the documents found, the files on disk, the table.  A
moved page's frame is read from its source text, as ``rewrite`` reads it.

A link with several meanings that its page's frame does not decide keeps them all:
they are recorded as alternatives, and the link goes to the one page that has its
anchor once every document is read (``check.ReportedReferences``), else it is reported as
ambiguous.

Each kind of reference is one entry of :data:`REFERENCE_KINDS`, its nodes thin
adapters around it: MyST links (rewritten at ``doctree-read``, before MyST's own
resolver runs as a post-transform), ``:doc:``, ``:download:``, images and figures,
local reST links and own URLs, raw HTML (source paths at read time, built URLs at
``doctree-resolved``), and references to renamed labels (``:ref:``, ``:numref:``,
``:any:``, MyST's ``[](#label)``), which are only recorded: the label they land on
needs every document read, so ``_check`` decides it and its post-transform
``ReportedReferences`` sends them there.
Toctree entries are mapped by a ``toctree`` directive before Sphinx reads them, and the
files of ``include``, ``literalinclude`` and ``csv-table`` in the source text as it is
read (``source-read``).  Every reference is recorded for the checker, and the table
lookups each document made are kept so that a table edit re-reads only the documents
it affects.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.directives.other import TocTree
from sphinx.util import docname_join
from sphinx.util.nodes import make_refnode
from sphinx.util.osutil import relative_uri

from sphinx_relocate.core import html as _html
from sphinx_relocate.core.landing import (
    EXTERNAL,
    FILE_LIKE,
    UNDECIDED,
    Landing,
    ReadAs,
    Site,
    existing_landing,
    existing_page,
    forge_url,
    framed,
    land,
    moved_glob,
    repository_path,
    repository_reads_as,
    site_of,
    span_reads_as,
)
from sphinx_relocate.core.paths import (
    decode,
    folder_of,
    join_relative,
    join_target,
    leaves_root,
    page_root_url,
    quote_url,
    relative_path,
    served_version,
    site_path,
    split_target,
    strip_source_suffix,
)
from sphinx_relocate.core.settings import Settings
from sphinx_relocate.core.spans import find_targets
from sphinx_relocate.core.table import RelocationTable, normalize_label
from sphinx_relocate.core.textedit import apply_edits
from sphinx_relocate.sphinx_ext.adapters import (
    app_of,
    current_docname,
    label_xref,
    line_of,
    nodes_of_class,
    points_elsewhere,
    source_suffixes,
)
from sphinx_relocate.sphinx_ext.queries import generated_pages
from sphinx_relocate.sphinx_ext.record import (
    EnvValue,
    PerDocument,
    Reference,
    anchors_of,
    record,
    references_of,
)
from sphinx_relocate.sphinx_ext.state import UNPLAIN, QuickAnswers, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, logger, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.sphinx_ext.state import BuildState

#: what makes a toctree entry a glob pattern (with ``:glob:``), as for Sphinx
_GLOB = re.compile(r"[*?\[]")
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.DOTALL)


#: per document, the table lookups it made: ("page", docname, fragment), ("file", path, "")
#: or ("label", label, "")
Lookup = tuple[str, str, str]


class Resolved(NamedTuple):
    """Where a written target lands now, in the terms a node needs."""

    #: a docname when ``is_page``, else a source-relative path (``../`` when it leaves)
    path: str
    is_page: bool
    anchor: str = ""
    #: set when the table sends the target to another site
    url: str = ""
    exists: bool = True
    #: the table or an old folder of the document changed the written target
    rewritten: bool = False
    query: str = ""
    #: ``(lands_on, target, anchor)`` of the other meanings of a reference that lands on
    #: several targets, to be settled once anchors are known (``_check``)
    alternatives: tuple[tuple[str, str, str], ...] = ()


#: the table keys and paths each document looked up, to re-read it when they change: a
#: set while the document is read (:func:`noted_lookups`), kept packed between builds
#: (:func:`pack_lookups`)
lookups_of: PerDocument[set[Lookup] | tuple[str, ...]] = PerDocument("relocate_lookups")
#: the documents with raw HTML, whose URLs are made when each is written
raw_html_of: PerDocument[bool] = PerDocument("relocate_raw_html")
#: the table of the last build, to re-read only what an edit of it changes
last_table_of: EnvValue[RelocationTable | None] = EnvValue("relocate_last_table", lambda: None)
#: the repository's forge URL of the last build, which may come from the theme's options
#: (``Settings.repo_url``), which Sphinx does not re-read documents for
last_repo_url_of: EnvValue[str | None] = EnvValue("relocate_last_repo_url", lambda: None)


def noted_lookups(lookups: dict[str, set[Lookup] | tuple[str, ...]], docname: str
                  ) -> set[Lookup]:
    """The set a document being read notes its lookups in."""
    made = lookups.get(docname)
    if type(made) is not set:
        made = lookups[docname] = set(unpacked_lookups(made)) if made else set()
    return made


def unpacked_lookups(made: set[Lookup] | tuple[str, ...]) -> Iterable[Lookup]:
    """A document's lookups, packed or not."""
    if type(made) is tuple:
        return zip(made[0::3], made[1::3], made[2::3], strict=True)
    return cast("set[Lookup]", made)


def pack_lookups(env: BuildEnvironment) -> None:
    """Keep each document's lookups as one flat tuple of strings: the environment is
    loaded on every build and pickled after every read phase, where a set of tuples
    costs several times as much (2,000 pages, 58,000 lookups: 22 → 7 ms to load), and
    only a changed table or set of pages reads them (:func:`on_env_get_outdated`)."""
    lookups = lookups_of(env)
    for docname, made in lookups.items():
        if type(made) is set:
            lookups[docname] = tuple(chain.from_iterable(made))


class Resolver:
    """The rule of ``_landing`` for one document, and what its nodes need of an answer."""

    def __init__(self, app: Sphinx, docname: str) -> None:
        self.app = app
        self.env = app.env
        self.docname = docname
        self.state = state_of(app)
        self.table: RelocationTable = self.state.table
        self.srcdir = str(app.srcdir)
        self.suffixes = source_suffixes(app)
        self.docs = self.env.found_docs
        self.verbose = app.verbosity > 0
        self.lookups = noted_lookups(lookups_of(self.env), docname)
        #: the document's reference records (``record.references_of``)
        self.records = references_of(self.env).setdefault(docname, [])
        self.project = self.state.project_of(
            self.env, self.suffixes, self.note_lookup, generated_pages
        )
        self.site = self.state.site(self.env, docname, self.project)
        #: the page's written targets a link may be read as a page by (``written_as``):
        #: ``(start, written, reads_as)``, found once its first such link asks
        self._written: list[tuple[int, str, ReadAs]] | None = None
        #: what each of them lands on read from the page's folder now, asked once each
        self._landed_here: dict[int, Landing | None] = {}
        #: the source path the document's own nodes carry (the doctree's, once known)
        self.own_source = ""

    def note_lookup(self, lookup: Lookup) -> None:
        """Note a name the document looked up (its tuple shared: ``shared_lookups``)."""
        self.lookups.add(self.state.shared_lookups.setdefault(lookup, lookup))

    def written_as(self, docname: str, anchor: str, line: int) -> str | None:
        """How the source wrote a link that MyST already made the docname ``docname``.

        MyST reads a Markdown link from the page's folder now and keeps only the
        docname; of the page's links that read so, the one written at (or next after)
        the node's line.
        """
        if self._written is None:
            text = self.state.text_of(self.env, self.docname)
            path = self.state.source_path(self.env, self.docname)
            self._written = [
                (span.start, text[span.start : span.end], reads_as)
                for span in find_targets(text, path)
                if span.mode not in ("repo", "glob")
                and (reads_as := span_reads_as(span)) != "file"
            ]
        # only a target whose last part names the page can land on it: the rest are not
        # read (most of a page's targets)
        name = docname.rpartition("/")[2]
        fragment = decode(anchor)
        found: list[tuple[int, str]] = []
        for start, written, reads_as in self._written:
            if not _may_name(written, name):
                continue
            landing = self._landed_here.get(start, UNDECIDED)
            if landing is UNDECIDED:
                here = self.site._replace(folders=self.site.folders[:1], frame=0)
                landing = self._landed_here[start] = land(written, reads_as, here, self.project)
            if (landing is not None and landing.lands_on == "page" and landing.exists
                    and landing.target == docname and landing.anchor == fragment):
                text = self.state.text_of(self.env, self.docname)
                found.append((text.count("\n", 0, start) + 1, written))
        if not found:
            return None
        after = [item for item in found if item[0] >= line] or found
        return min(after)[1]

    def included_from(self, node: nodes.Node | None) -> str:
        """The file ``node`` was read from when the document includes it, else ``""``."""
        source = getattr(node, "source", None)
        if not source or source == self.own_source:  # most nodes: the page's own text
            return ""
        found = _included_source(source, self.own_source, str(self.env.doc2path(self.docname)))
        if not found:
            self.own_source = source  # as the page's nodes spell it
        return found

    def lands_as_written(self, written: str, reads_as: ReadAs, kind: RelocateWarning) -> bool:
        """Whether ``written`` lands as it reads, on a page (without a fragment) or a
        file of its kind's dependencies that exists, decided by the rule's set lookups
        alone (:func:`existing_landing`, which notes the lookups): nothing to rewrite,
        record or check, as :meth:`note` would find, so the adapter stops there.

        Most references of a site are such, and the whole way through :meth:`resolve`
        and :meth:`note` cost several times the lookups that decide them (issue 27).
        """
        if self.site.frame != 0:
            return False  # a moved page: its links may read from its old folders
        quick = existing_landing(written, reads_as, self.site, self.project)
        if quick is None or quick.respelled:
            return False
        if quick.lands_on == "page":
            return not quick.anchor
        return _RECORDED[kind].file_is_dependency

    @property
    def moved(self) -> bool:
        """Whether the document stood in another folder before (it has old folders)."""
        return len(self.site.folders) > 1

    def resolve(self, written: str, reads_as: ReadAs, site: Site | None = None) -> Resolved | None:
        """Where ``written`` lands, read as a "page", a "file" or "any"; ``None`` if not
        local.  ``site``: read from another file's folders (one the document includes)."""
        landing = land(written, reads_as, site or self.site, self.project)
        if landing is None:
            return None
        if landing.others and site is None and self.site.frame is UNDECIDED:
            self.site = self.state.framed_site(self.env, self.docname, self.project)
            landing = land(written, reads_as, self.site, self.project)
            if landing is None:
                return None
        return self.resolved(landing, split_target(written)[1] if "?" in written else "")

    def resolved(self, landing: Landing, query: str = "") -> Resolved:
        if landing.lands_on == "page" and not landing.others:  # most references
            return Resolved(landing.target, True, landing.anchor, "", landing.exists,
                            landing.changed, query)
        alternatives = tuple(
            (other.lands_on, self.docs_path(other), other.anchor)
            for other in landing.others
        )
        if landing.lands_on == "url":
            return Resolved("", True, "", landing.target, True, True, query)
        is_page = landing.lands_on == "page"
        path = landing.target if is_page else self.docs_path(landing)
        return Resolved(
            path, is_page, landing.anchor, "", landing.exists, landing.changed, query,
            alternatives,
        )

    def docs_path(self, landing: Landing) -> str:
        """A file landing's path relative to the source folder (``../`` when it leaves)."""
        if landing.lands_on != "file":
            return landing.target
        inside = self.project.docs_path(landing.target)
        if inside is not None:
            return inside
        return relative_path(self.project.repo_folder(""), landing.target)

    # -- turning a resolution into what a node needs ------------------------------

    def source_path(self, resolved: Resolved) -> str:
        """The source-relative file of a resolution (a page's source file with suffix)."""
        if not resolved.is_page or resolved.path not in self.docs:
            return resolved.path
        return self.state.source_path(self.env, resolved.path)

    def relative(self, resolved: Resolved, *, keep_fragment: bool = True) -> str:
        """The resolution written relative to this document's folder."""
        if resolved.url:
            return resolved.url
        path = relative_path(folder_of(self.docname), self.source_path(resolved))
        return join_target(path, resolved.query, resolved.anchor if keep_fragment else "")

    def repo_url(self, resolved: Resolved) -> str | None:
        """The forge URL of an existing target outside the source folder, if configured."""
        settings = self.state.settings
        base = settings.repo_url
        if (not base or not settings.checks_repo_urls or resolved.is_page
                or not resolved.exists or not leaves_root(resolved.path)):
            return None
        inside = self.in_repository(resolved.path)
        if inside is None:
            return None
        return join_target(forge_url(base, inside), resolved.query, resolved.anchor)

    def in_repository(self, docs_path: str) -> str | None:
        """A source-relative path as a path from the repository root, ``None`` outside."""
        return _in_repository(self.state.settings, self.srcdir, docs_path)

    def note(self, node: nodes.Node | None, line: int, written: str, resolved: Resolved,
             kind: RelocateWarning, *, by_name: bool = False, published: bool = True,
             source: str = "") -> None:
        """Record the reference, and log a rewrite (``by_name``, ``published``, ``source``:
        see ``Reference``; ``source`` is found from ``node`` when not given).

        A reference that lands as written on a page that exists, without a fragment, is
        not recorded: there is nothing to check while the page exists, and the lookup
        the rule noted for it re-reads this document when the page goes
        (:func:`on_env_get_outdated`), which records it then.  Nor is an existing file
        in the source folder that Sphinx re-reads the document for when it goes
        (``ReferenceKind.file_is_dependency``: images, downloads, raw HTML).  Most
        references of a site are such; a record each would be checked again.
        """
        entry = _RECORDED[kind]
        if (resolved.exists and not resolved.anchor and not resolved.rewritten
                and not resolved.url and not resolved.alternatives
                and (resolved.is_page or (entry.file_is_dependency
                                          and not leaves_root(resolved.path)))):
            return
        outside = entry.outside_recorded_as
        if outside and resolved.exists and not resolved.is_page and leaves_root(resolved.path):
            kind = outside
        replaces = entry.replaces or (
            _XREF_WARNINGS.get(node.get("reftype"), "")
            if isinstance(node, addnodes.pending_xref) else ""
        )
        self.records.append(
            Reference(
                self.docname,
                line,
                kind,
                written,
                resolved.url or resolved.path,
                resolved.is_page and not resolved.url,
                resolved.anchor,
                resolved.rewritten,
                resolved.alternatives,
                by_name,
                source or self.included_from(node),
                replaces,
                published,
            ),
        )
        if resolved.rewritten and self.verbose:
            now = resolved.url or (
                f"{resolved.path}#{resolved.anchor}" if resolved.anchor else resolved.path
            )
            location = (self.docname, line) if line else self.docname
            # relocate.outdated comes from the checker, on every build, from the record
            logger.verbose(
                "relocated %s reference %r → %r", kind.value, written, now, location=location
            )


# -- doctree-read: the node adapters --------------------------------------------


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Rewrite every reference of the document just read (before Sphinx's collectors),
    and note its anchors on the way: one walk of the doctree does both
    (``check.collect_anchors`` adds what other handlers add later).

    Lookup first: where the document did not move, a Markdown link or a ``:doc:`` to a
    page that exists, an image that exists and a ``:ref:`` to a label the table does not
    name are decided in the walk by the set lookups of :class:`QuickAnswers`, as the
    rule would decide them (``existing_page``, ``existing_landing``, ``_label_xref``);
    every other reference goes to its adapter, and only then is a :class:`Resolver` made.
    Each object a page's handler touches costs it a cache miss, parsing the page having
    evicted the build's state: this handler touches few.
    """
    state = state_of(app)
    quick = quick_answers(app, state)
    docname = current_docname(quick.env)
    # the toctree's entries and the files the source read have noted theirs already
    lookups = noted_lookups(quick.lookups, docname)
    records: list[Reference] = quick.records.setdefault(docname, [])
    anchors: set[str] = set()
    quick.anchors[docname] = anchors
    #: (adapter, kind, node) of the references the walk leaves to their adapters, and
    #: (None, record, node) of those it decided and records
    found: list[tuple[Any, Any, Any]] = []
    on = not (quick.moved and quick.moved(docname))
    docs, labels, moves_anchors = quick.docs, quick.labels, quick.moves_anchors
    shared, is_file, prefix = quick.shared, quick.is_file, quick.prefix
    folder = folder_of(docname)
    own_source = doctree.get("source") or ""
    adapters_of = _ADAPTERS_OF_CLASS
    text, target = nodes.Text, nodes.target
    xref, image = addnodes.pending_xref, nodes.image
    # an explicit stack, inline: the walk visits every node of every page, and a
    # generator or a call per node costs more than the rest of the walk
    stack: list[nodes.Node] = [doctree]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        cls = node.__class__
        if cls is text:
            continue
        adapters = adapters_of.get(cls)
        if adapters is None:  # once per element class: which kinds it may be, in order
            if not isinstance(node, nodes.Element):
                continue  # another kind of text: nothing under it
            adapters = adapters_of[cls] = _adapters_of(node)
        attributes = node.attributes  # type: ignore[attr-defined]
        if attributes["ids"] and (cls is not target or not points_elsewhere(node)):
            anchors.update(attributes["ids"])
        if adapters:
            key: Lookup | None = None
            if cls is xref and on:
                reftype = attributes.get("reftype")
                if reftype == "myst":
                    name = attributes["reftarget"]
                    if (attributes.get("refdomain") == "doc" and name in docs
                            and "intersphinx" not in attributes):
                        # a Markdown link MyST found an existing page for (existing_page)
                        anchor = attributes.get("reftargetid") or ""
                        if not anchor:
                            attributes["reftargetid"] = None
                            key = ("page", name, "")
                        elif "%" not in anchor and not (moves_anchors and moves_anchors(name)):
                            key = ("page", name, anchor)
                            # recorded for the check of its anchor (Resolver.note), in
                            # document order with the adapters' records
                            found.append((None, Reference(
                                docname, line_of(node), RelocateWarning.LINK,
                                f"{name}#{anchor}", name, True, anchor, False, (), False,
                                _included_source(node.source, own_source, own_source),
                                _XREF_WARNINGS["myst"],
                            ), node))
                elif reftype == "doc":
                    if (attributes.get("refdomain") == "std"
                            and "intersphinx" not in attributes
                            and (name := quick.page(folder, attributes["reftarget"]))):
                        key = ("page", name, "")  # a :doc: of an existing page as written
                elif (reftype in _LABEL_ROLES and labels is not None
                        and attributes.get("refdomain") == "std"):
                    label = normalize_label(attributes["reftarget"])
                    if label not in labels:  # a label the table does not rename
                        key = ("label", label, "")
            elif cls is image and on:
                written = attributes["uri"]
                if (not UNPLAIN.search(written) and not leaves_root(
                        path := join_relative(folder, written)) and is_file(prefix + path)):
                    key = ("file", path, "")  # an image of a file that exists as written
            if key is not None:
                lookups.add(shared.setdefault(key, key))
            else:
                for adapter, kind in adapters:
                    if adapter.applies(node):
                        found.append((adapter, kind, node))
                        break
        children = node.children
        if children:
            push(children[::-1])
    resolver: Resolver | None = None
    for adapter, kind, node in found:  # adapters replace nodes: not while walking
        if adapter is None:  # a record the walk made
            records.append(kind)
            continue
        if resolver is None:
            resolver = Resolver(app, docname)
            resolver.own_source = own_source
        if kind is RelocateWarning.RAW_HTML:  # before its URLs are rewritten
            anchors.update(_html.element_ids(node.astext()))
        adapter.resolve(resolver, node, kind)
    if state.texts:
        state.texts.pop(docname, None)


def _may_name(written: str, name: str) -> bool:
    """Whether the written target ``written`` may land on a page whose name ends in
    ``name``: its last part is that name, with a suffix or without, or one that
    reading changes (``.``, ``..``, an escape)."""
    tail = decode(split_target(written)[0]).rstrip("/").rpartition("/")[2]
    return (tail == name or tail.startswith(name + ".") or tail in ("", ".", "..")
            or "\\" in tail)


def _included_source(source: str | None, own_source: str, own_path: str) -> str:
    """The file a node was read from (``source``) when its document includes it, else
    ``""``: not the document's own source, as its nodes spell it (``own_source``) or as
    a path (``own_path``)."""
    if not source or source == own_source:
        return ""
    return "" if os.path.normpath(source) == os.path.normpath(own_path) else str(source)


#: the roles whose target is only a label (``label_xref`` answers "label")
_LABEL_ROLES = frozenset({"ref", "numref"})


def quick_answers(app: Sphinx, state: BuildState) -> QuickAnswers:
    """The :class:`QuickAnswers` of this read phase, made by the first handler that asks."""
    if state.quick_answers is not None:
        return state.quick_answers
    env, table, settings = app.env, state.table, state.settings
    project = state.project_of(env, settings.source_suffixes, lambda lookup: None,
                               generated_pages)
    moves = bool(table.reverse_pages or table.reverse_prefixes or table.patterns)

    def moved(docname: str) -> bool:
        return len(state.site(env, docname, project).folders) > 1

    quick = state.quick_answers = QuickAnswers(
        env,
        env.found_docs,
        None if settings.labels_by_document else table.labels,
        project.moves_anchors_of if table.anchor_pages else None,
        moved if moves else None,
        state.shared_lookups,
        state.files.is_file,
        settings.docs_prefix,
        (*settings.source_suffixes, ".html"),
        lookups_of(env),
        references_of(env),
        anchors_of(env),
    )
    return quick


def make_sites(app: Sphinx, docnames: list[str]) -> None:
    """The site of each document this read phase reads, made in one pass before any
    is read: made as each page is read, each costs the cache misses of a table that
    parsing the page evicted (issue 27)."""
    if not docnames:
        return
    quick = quick_answers(app, state_of(app))
    if quick.moved is None:
        return  # the table moves no page: every site is the page's folder
    for docname in docnames:
        quick.moved(docname)


def _adapters_of(node: nodes.Element) -> tuple[tuple[NodeAdapter, RelocateWarning], ...]:
    """The adapters an element of this class may take, with their kinds, in their order."""
    return tuple(
        (adapter, entry.kind)
        for entry in REFERENCE_KINDS
        for adapter in entry.node_adapters if isinstance(node, adapter.node)
    )


def _pending_xref(resolver: Resolver, node: addnodes.pending_xref, kind: RelocateWarning) -> None:
    if label_xref(node) and _label_xref(resolver, node, RelocateWarning.LABEL):
        return  # a MyST link to a renamed label, [](#old-label)
    if "intersphinx" in node.attributes:  # not node.get: asked of every cross-reference
        return  # :external:doc: and the like: a page of another project
    if node["reftype"] == "doc":  # :doc:
        written = node["reftarget"]
        if resolver.lands_as_written(written, "page", kind):
            return
        resolved = resolver.resolve(written, "page")
        if resolved is None:
            return
        if not resolved.exists and docname_join(resolver.docname, written) in resolver.docs:
            return  # Sphinx stops "../" at the source folder: the page it finds, as it finds it
        if resolved.rewritten and resolved.exists and not resolved.url:
            node["reftarget"] = "/" + resolved.path
        elif resolved.url:
            node.replace_self(_external(node, resolved.url))
        resolver.note(node, line_of(node), written, resolved, kind)
        return
    # a MyST link: refdomain "doc" when MyST found the page, None when it found nothing
    if node.get("refdomain") == "doc" and (
        os.path.isabs(node["reftarget"]) or leaves_root(node["reftarget"])
    ):
        # a Markdown file outside the source folder, which Sphinx names by its path
        # (absolute since Sphinx 8, relative with '../' in 7.4)
        outside = _outside_file(resolver, node["reftarget"])
        if outside is None:
            return
        node["refdomain"] = None
        node["reftarget"] = relative_path(folder_of(resolver.docname), outside) + (
            f"#{node['reftargetid']}" if node.get("reftargetid") else ""
        )
    is_doc = node.get("refdomain") == "doc"
    anchor = node.get("reftargetid") or ""
    if is_doc and (page := existing_page(node["reftarget"], anchor, resolver.site,
                                         resolver.project)):
        # most Markdown links: the page MyST found exists and the table cannot change it
        # (recorded only for the check of its anchor: see Resolver.note)
        node["reftargetid"] = anchor or None
        if anchor:
            resolver.note(node, line_of(node), f"{node['reftarget']}#{anchor}",
                          resolver.resolved(page), kind)
        return
    line = line_of(node)
    if is_doc and resolver.moved:
        # MyST made the written path a docname, read from the page's new folder: find
        # the target as written, so the rule reads it from the page's old folders too
        written = resolver.written_as(node["reftarget"], anchor, line) or relative_path(
            folder_of(resolver.docname), resolver.state.source_path(resolver.env, node["reftarget"])
        ) + (f"#{anchor}" if anchor else "")
        resolved = resolver.resolve(written, "any")
    elif is_doc:
        written = "/" + node["reftarget"] + (f"#{anchor}" if anchor else "")
        resolved = resolver.resolve(written, "page")
    else:
        written = node["reftarget"]
        resolved = resolver.resolve(written, "any")
    if resolved is None:
        return
    if not resolved.exists:
        if is_doc or (_looks_like_path(written, resolver)
                      and not _names_built_url(written, resolver)):
            # MyST found no page: it may still resolve the target as a label, an object
            # or an intersphinx name, which the checker knows once every page is read
            resolver.note(node, line, node["reftarget"], resolved, kind, by_name=not is_doc)
        return
    if (not is_doc and resolved.is_page
            and not (resolved.rewritten or resolved.url or resolved.anchor or resolved.alternatives)
            and docname_join(resolver.docname, written) == resolved.path):
        # the page MyST finds itself, as it does without the extension, after a label of
        # that name (and then warns that the link is ambiguous): left to it
        resolver.note(node, line, written, resolved, kind)
        return
    url = resolved.url or resolver.repo_url(resolved)
    if url:
        node.replace_self(_external(node, url))
    elif resolved.is_page and resolved.query:  # a doc reference has no query: a link
        node.replace_self(_page_link(resolver, node, resolved))
    elif resolved.is_page:
        if not is_doc:  # MyST found no page: a label of this name is its (the check asks)
            node["relocate_written"] = written
        node["refdomain"] = "doc"
        node["reftarget"] = resolved.path
        node["reftargetid"] = resolved.anchor or None
        if resolved.alternatives:  # settled by check.ReportedReferences, once anchors are known
            node["relocate_alternatives"] = list(resolved.alternatives)
    elif not os.path.isfile(os.path.join(resolver.srcdir, resolved.path)):
        pass  # a folder: nothing to download; the checker judges the link
    else:
        download = addnodes.download_reference(
            "",
            "",
            *node.children,
            refdomain=None,
            reftarget=resolver.relative(resolved, keep_fragment=False),
            refdoc=node.get("refdoc", resolver.docname),
            reftype="myst",
            refexplicit=node.get("refexplicit", False),
        )
        download.source, download.line = node.source, node.line
        for child in download.children:  # MyST's classes of a download: xref download myst
            if isinstance(child, nodes.Element):
                classes = child["classes"]
                at = classes.index("xref") + 1 if "xref" in classes else len(classes)
                child["classes"] = [*classes[:at], "download", *classes[at:]]
        if not download.astext():  # [](file): the target as written, as MyST shows it
            download.children = [
                nodes.literal(node["reftarget"], node["reftarget"],
                              classes=["xref", "download", "myst"])
            ]
        node.replace_self(download)
    resolver.note(node, line, written.lstrip("/") if is_doc else written, resolved, kind,
                  by_name=not is_doc and resolved.is_page and not url)


def _label_xref(resolver: Resolver, node: addnodes.pending_xref, kind: RelocateWarning) -> bool:
    """Record a reference to a renamed label (a ``[labels]`` key); ``False`` for others.

    Which label it lands on needs every label of the project, so it is decided once all
    documents are read (``_check``), and the node is sent there by a post-transform
    (``check.ReportedReferences``).  The record keeps the other meanings a ``:any:`` or
    MyST reference may have, a document next to the page and an anchor of the page.
    """
    written = node["reftarget"]
    label = normalize_label(written)
    resolver.note_lookup(("label", label, ""))
    if label not in resolver.table.labels and not _names_moved_page(resolver, label):
        return False
    others: tuple[tuple[str, str, str], ...] = ()
    if label_xref(node) == "any":
        others = (("page", docname_join(resolver.docname, written), ""),)
        if node.get("reflocalid"):  # MyST 5: an id on the page that is not a label
            others += (("page", resolver.docname, node["reflocalid"]),)
    record(resolver.env, Reference(
        resolver.docname, line_of(node), kind, written, label, False, "", False, others
    ))
    return True


def _role_xref(resolver: Resolver, node: addnodes.pending_xref, kind: RelocateWarning) -> None:
    """``:ref:``, ``:numref:`` and ``:any:``: a renamed label (:func:`_label_xref`), else,
    for ``:any:`` (which ``default_role = 'any'`` makes of every `` `text <target>` ``),
    the document it names, which Sphinx tries first: a page the table moved is sent to
    its new name, as a ``:doc:`` is."""
    if _label_xref(resolver, node, kind) or node.get("reftype") != "any":
        return
    written = node["reftarget"]
    if resolver.lands_as_written(written, "page", RelocateWarning.LINK):
        return
    resolved = resolver.resolve(written, "page")
    if resolved is None or not resolved.exists or not resolved.rewritten:
        return  # a label's, an object's or a term's name, as Sphinx reads it
    if resolved.url:
        node.replace_self(_external(node, resolved.url))
    else:
        node["reftarget"] = "/" + resolved.path
    resolver.note(node, line_of(node), written, resolved, RelocateWarning.LINK)


def _names_moved_page(resolver: Resolver, label: str) -> bool:
    """Whether ``label`` is ``page:section`` of a page the table moved, where section
    labels carry their page's name (``Settings.labels_by_document``)."""
    if not resolver.state.settings.labels_by_document:
        return False
    docname, colon, _ = label.partition(":")
    if not colon or not docname:
        return False
    resolver.note_lookup(("page", docname, ""))
    return resolver.table.locate_page(docname) is not None


def _outside_file(resolver: Resolver, docname: str) -> str | None:
    """The source-relative path (``../``…) of an out-of-tree file MyST took for a page."""
    base = os.path.join(resolver.srcdir, docname)  # an absolute docname stays as it is
    for suffix in resolver.suffixes:
        if os.path.isfile(base + suffix):
            return os.path.relpath(base + suffix, resolver.srcdir).replace(os.sep, "/")
    return None


#: the folders an HTML builder writes of its own accord, which no source file names
_BUILT_FOLDERS = frozenset({"_images", "_downloads", "_sources", "_static", "_modules"})
#: the folders of a site's URL that no source names: the builder's, and ``_``, where
#: Read the Docs serves its own files (``_/downloads/en/latest/pdf/``)
_SERVED_FOLDERS = _BUILT_FOLDERS | {"_"}


def _names_built_url(written: str, resolver: Resolver) -> bool:
    """Whether a path that lands on no source names what an HTML builder writes: a file
    of its own folders (``_images/pic.png``) or a page by its ``dirhtml`` URL
    (``../b/``), read from the page's URL under the html or the dirhtml builder.

    Such a link is written against the built site, not the sources: Sphinx's to write
    as it is, as without the extension.
    """
    path = decode(split_target(written)[0])
    docname = resolver.docname
    folders = [folder_of(docname)]  # the html builder's page.html
    if posixpath.basename(docname) != "index":
        folders.append(docname)  # dirhtml's page/
    for folder in folders:
        joined = posixpath.normpath(posixpath.join(folder, path)) if path else folder or "."
        if leaves_root(joined):
            continue
        if joined.split("/", 1)[0] in _BUILT_FOLDERS:
            return True
        if not path or path.endswith("/"):
            name = "" if joined == "." else joined
            if name in resolver.docs or posixpath.join(name, "index") in resolver.docs:
                return True
    return False


def _looks_like_path(written: str, resolver: Resolver) -> bool:
    """Whether an unresolved MyST target is a path (and not a label or an object name)."""
    path = split_target(written)[0]
    return (
        "/" in path
        or path.endswith(".html")
        or strip_source_suffix(path, resolver.suffixes)[1]
        or bool(FILE_LIKE.search(path))
    )


def _external(node: nodes.Element, url: str) -> nodes.reference:
    reference = nodes.reference("", "", refuri=url)
    for child in node.children:
        reference += child.deepcopy()
    if not reference.children or not reference.astext():
        reference.children = []
        reference += nodes.literal(url, url)
    reference.source, reference.line = node.source, node.line
    return reference


def _download(resolver: Resolver, node: addnodes.download_reference, kind: RelocateWarning) -> None:
    written = node["reftarget"]
    if resolver.lands_as_written(written, "file", kind):
        return
    resolved = resolver.resolve(written, "file")
    if resolved is None:
        return
    is_link = node.get("reftype") == "myst"
    if resolved.exists and is_link and (url := resolved.url or resolver.repo_url(resolved)):
        node.replace_self(_external(node, url))
    elif resolved.exists and resolved.rewritten and not resolved.url:
        node["reftarget"] = resolver.relative(resolved, keep_fragment=False)
    resolver.note(
        node, line_of(node), written, resolved, RelocateWarning.LINK if is_link else kind
    )


def _image(resolver: Resolver, node: nodes.image, kind: RelocateWarning) -> None:
    written = node["uri"]
    if written.startswith("data:") or "://" in written or written.endswith(".*"):
        return
    if resolver.lands_as_written(written, "file", kind):
        return
    resolved = resolver.resolve(written, "file")
    if resolved is None:
        return
    if resolved.exists and resolved.rewritten and not resolved.url:
        node["uri"] = resolver.relative(resolved, keep_fragment=False)
    elif resolved.url:
        node["uri"] = resolved.url
    resolver.note(node, line_of(node), written, resolved, kind)


def _reference(resolver: Resolver, node: nodes.reference, kind: RelocateWarning) -> None:
    """A local link written in reST (```text <old/page.html>`_``) or an own absolute URL."""
    written = node["refuri"]
    if EXTERNAL.match(written):
        new = _own_url(resolver, written, line_of(node))
        if new is not None:
            node["refuri"] = new
        return
    if written.startswith("#"):
        return
    resolved = resolver.resolve(written, "any")
    if resolved is None or not resolved.exists:
        if (resolved is not None and _looks_like_path(written, resolver)
                and not _names_built_url(written, resolver)):
            resolver.note(node, line_of(node), written, resolved, kind)
        return
    published = True
    if resolved.url or (url := resolver.repo_url(resolved)):
        node["refuri"] = resolved.url or url
    elif resolved.is_page:  # a page: resolved late, so every builder gets its own URL
        node.replace_self(_page_link(resolver, node, resolved, dict(node.attributes)))
    else:  # a local file, which Sphinx does not copy for a link (MyST makes a download)
        published = False
        if resolved.rewritten:
            node["refuri"] = resolver.relative(resolved)
    resolver.note(node, line_of(node), written, resolved, kind, published=published)


def _page_link(
    resolver: Resolver, node: nodes.Element, resolved: Resolved,
    written: dict[str, Any] | None = None,
) -> addnodes.pending_xref:
    """A link to a page that each builder resolves to its own URL
    (:func:`on_missing_reference`), keeping the link's query.

    ``written`` is the attributes of a ``reference`` as written: where the builder's URL
    is the one written, the link stays that reference, as Sphinx writes it without the
    extension (``page.html`` under the html builder; ``page/`` under dirhtml).
    """
    shown = [child.deepcopy() for child in node.children]
    # a cross-reference shows one element: MyST's link text is one inline, as is the
    # text of a link sphinx-design's card makes; other text gets one, which the link
    # restored as written drops again (``relocate_wrapped``)
    wrapped = not (len(shown) == 1 and isinstance(shown[0], nodes.inline))
    if wrapped:
        shown = [nodes.inline("", "", *shown)]
    xref = addnodes.pending_xref(
        "",
        *shown,
        refdomain="",
        reftype="relocate",
        reftarget=resolved.path,
        refanchor=resolved.anchor,
        refquery=resolved.query,
        refdoc=resolver.docname,
        refexplicit=True,
    )
    if written is not None:
        xref["relocate_reference"] = written
        xref["relocate_wrapped"] = wrapped
        xref["relocate_rewritten"] = resolved.rewritten
    if resolved.alternatives:
        xref["relocate_alternatives"] = list(resolved.alternatives)
    xref.source, xref.line = node.source, node.line
    return xref


def _own_url(resolver: Resolver, url: str, line: int) -> str | None:
    """An absolute URL of the project's own repository or site: record it for the check,
    and return the URL of where it lands now when the table moved it."""
    settings = resolver.state.settings
    baseurl = resolver.app.config.html_baseurl
    project = resolver.project
    in_repository = repository_path(url, settings.repo_url) if settings.repo_url else None
    if in_repository is not None:  # a file of the repository, on today's branch
        path, query, fragment = split_target(in_repository)
        inside = os.path.relpath(
            os.path.join(settings.repo_root, decode(path) or "."), resolver.srcdir
        ).replace(os.sep, "/")
        root = project.repo_folder("")
        written = "/" + join_relative(root, inside) + (f"#{fragment}" if fragment else "")
        landing = land(written, repository_reads_as(inside, project), Site((root,), ""),
                       project)
    elif (below := site_path(url, baseurl)) is not None:  # a page of the built site
        root = project.repo_folder("")
        version, current = served_version(
            below, lambda name: name in resolver.docs or project.is_folder(
                join_relative(root, name)))
        if not current:
            return None  # a page of another version of the site: history
        path, query, fragment = split_target(below[len(version) :])
        path = decode(path)
        if path.split("/", 1)[0] in _SERVED_FOLDERS:
            return None  # a file the builder names itself, or one the host serves
        name = path[: -len(".html")] if path.endswith(".html") else path.rstrip("/")
        names = [name]
        if path.endswith("/") or not path:  # a folder's index, or a page's dirhtml URL
            names = [(name + "/index").lstrip("/"), *([name] if name else [])]
        for name in names:
            landing = land("/" + name + (f"#{fragment}" if fragment else ""), "page",
                           resolver.site, project)
            if landing is not None and landing.exists:
                break
        else:
            landing = land("/" + names[0] + (f"#{fragment}" if fragment else ""), "page",
                           resolver.site, project)
    else:
        return None
    if landing is None:
        return None
    resolved = resolver.resolved(landing, query)
    if in_repository is not None and not resolved.rewritten and not settings.checks_repo_urls:
        return None  # the theme's repository: followed where the table moved it, no more
    record(
        resolver.env,
        Reference(
            resolver.docname, line, RelocateWarning.REPO_URL, url, resolved.url or resolved.path,
            resolved.is_page and not resolved.url, resolved.anchor, resolved.rewritten,
        ),
    )
    if not (resolved.exists and resolved.rewritten):
        return None
    if resolved.url:
        return resolved.url
    if in_repository is not None:  # the new file's URL on the branch the URL names
        new_path = resolver.in_repository(resolver.source_path(resolved))
        if new_path is None:
            return None
        if path.endswith("/") and not new_path.endswith("/"):  # a folder, as written
            new_path += "/"
        new = url[: len(url) - len(in_repository)] + new_path
    else:
        builder = resolver.app.builder
        new = baseurl.rstrip("/") + "/" + version + page_root_url(
            resolved.path, dirhtml=builder is not None and builder.name == "dirhtml",
            file_suffix=resolver.app.config.html_file_suffix or ".html",
            link_suffix=resolver.app.config.html_link_suffix,
        )
    new = join_target(new, query, resolved.anchor)
    return quote_url(new) if "%" in url else new  # the author's spelling of the URL


def _raw_html(resolver: Resolver, node: nodes.raw, kind: RelocateWarning) -> None:
    """Rewrite raw HTML's href/src to resolved source paths; register its images."""
    line = line_of(node)
    env = resolver.env

    def rewrite(found: _html.UrlAttribute) -> str | None:
        written = found.value
        if EXTERNAL.match(written):
            return _own_url(resolver, written, line)
        if written.startswith(("#", "/")):
            return None
        image = found.attribute == "src"
        resolved = resolver.resolve(written, "file" if image else "any")
        if resolved is None:
            return None
        # its URL is made per builder from the written path, which keeps one meaning
        resolved = resolved._replace(alternatives=())
        if not resolved.exists and (
            not _looks_like_path(written, resolver) or _names_built_url(written, resolver)
        ):
            return None
        outside = _outside_repository(resolver, resolved) if resolved.exists else None
        if outside is not None:  # never copied into the output: warned, left as written
            resolved = resolved._replace(path=outside, exists=False, rewritten=False)
        resolver.note(node, line, written, resolved, kind)
        if not resolved.exists:
            return None
        url = resolved.url or resolver.repo_url(resolved)
        if url:
            return url
        if not resolved.is_page and copied_by_sphinx(resolver.app, resolved.path) is None:
            # a file of the sources: copied to the output, and the page read again when
            # it changes; not a folder or a generated page's output, which no source
            # file is (Sphinx reads a page again on every build while a dependency of it
            # is not a file)
            is_file = resolver.project.is_file(resolver.project.repo_path(resolved.path))
            if image:
                env.images.add_file(resolver.docname, resolved.path)
            elif not leaves_root(resolved.path) and is_file:
                env.dlfiles.add_file(resolver.docname, resolved.path)
            if is_file or image:
                env.note_dependency(resolved.path)
        return resolver.relative(resolved) if resolved.rewritten else None

    text = node.astext()
    new = _html.rewrite_urls(text, rewrite)
    if new != text:
        node.children = []
        node += nodes.Text(new)
    # its paths are relative to this document, also where a builder (singlehtml) writes
    # it into another page
    node["relocate_docname"] = resolver.docname
    raw_html_of(env)[resolver.docname] = True


def copied_by_sphinx(app: Sphinx, path: str) -> str | None:
    """Where an HTML builder copies the file ``path`` (relative to the source folder) of
    its own accord: into ``_static/`` from ``html_static_path``, to the top of the output
    from ``html_extra_path``; ``None`` for any other file.

    Raw HTML that names such a file links that copy, as it does without the extension
    (a script or a stylesheet finds its neighbours there), not a second copy under
    ``_images/`` or ``_downloads/``.
    """
    known = state_of(app).files.copied_by_sphinx  # a site's raw HTML names few files
    if path not in known:
        known[path] = _copied_by_sphinx(app, path)
    return known[path]


def _copied_by_sphinx(app: Sphinx, path: str) -> str | None:
    full = os.path.normpath(os.path.join(app.srcdir, path))
    for setting, prefix in (("html_static_path", "_static/"), ("html_extra_path", "")):
        for entry in getattr(app.config, setting, None) or ():
            root = os.path.normpath(os.path.join(app.confdir, entry))
            if full == root and os.path.isfile(root):  # a file entry: copied by its name
                return prefix + os.path.basename(root)
            if full.startswith(root.rstrip(os.sep) + os.sep):
                return prefix + os.path.relpath(full, root).replace(os.sep, "/")
    return None


def _outside_repository(resolver: Resolver, resolved: Resolved) -> str | None:
    """The real path (links followed, relative to the source folder) of a raw HTML file
    that lies outside the repository, else ``None``.

    Sphinx copies nothing that raw HTML names; the extension copies such a file only
    from inside the repository, so a page cannot publish ``/proc/self/environ`` or a
    file that a link in the docs points out of the repository.
    """
    if resolved.is_page or resolved.url:
        return None
    known = resolver.state.files.outside_repository
    if resolved.path not in known:  # a page's raw HTML names the same few files
        known[resolved.path] = _outside_repository_path(resolver, resolved.path)
    return known[resolved.path]


def _outside_repository_path(resolver: Resolver, path: str) -> str | None:
    files = resolver.state.files
    real = files.real_path(os.path.join(resolver.srcdir, path))
    root = files.real_folder(str(resolver.state.settings.repo_root))
    if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
        return None
    lexical = os.path.normpath(os.path.join(resolver.srcdir, path))
    if not (lexical == root or lexical.startswith(root.rstrip(os.sep) + os.sep)):
        return path  # as written: ``/proc/self`` is not named by its process id
    return os.path.relpath(real, resolver.srcdir).replace(os.sep, "/")


class NodeAdapter(NamedTuple):
    """A doctree node that is a reference of some kind, and the adapter that resolves it
    through :class:`Resolver` and records it."""

    node: type[nodes.Element]
    applies: Callable[[Any], bool]
    #: resolves the node, rewrites it and records it as the kind it is given
    resolve: Callable[[Resolver, Any, RelocateWarning], object]


@dataclass(frozen=True)
class ReferenceKind:
    """One kind of reference: where the build finds it, and what the check does with it.

    A new kind of reference is one entry of :data:`REFERENCE_KINDS` (and a test root):
    the check (``_check``) reads only these flags, never a list of kinds of its own.
    """

    #: ``Reference.kind`` and the subtype warned when it dangles
    kind: RelocateWarning
    #: how a message names it ("raw html 'x.png' does not land: ...")
    label: str
    #: where the build finds it, for the reader of this table
    found: str
    #: the doctree nodes it is at ``doctree-read``, tried in the order of the registry
    node_adapters: tuple[NodeAdapter, ...] = ()
    #: the spans (``Span.syntax``) it is mapped in the source text at ``source-read``:
    #: a file a directive reads while the document is parsed, before any node exists
    source_spans: frozenset[str] = frozenset()
    #: text without which a source has none of those spans (so it is not searched)
    source_markers: tuple[str, ...] = ()
    #: a missing file's node is replaced by its text at read time, before Sphinx warns
    #: (``*.not_readable``) and re-reads the document on every build
    replaced_if_missing: bool = False
    #: Sphinx warns its misses on every build itself: counted, not warned twice
    warned_by_sphinx: bool = False
    #: it names a renamed label, decided once every label is known (case-insensitive)
    names_label: bool = False
    #: a meaning of several is chosen by the anchor once every page is read (raw HTML
    #: keeps the one meaning of its written path: its URL is made per builder)
    settled_by_anchor: bool = True
    #: a page the table relocates counts as landing (an own URL: its stub answers)
    relocated_page_lands: bool = False
    #: the kind it is recorded as when it lands on an existing file outside the source
    #: folder (``None``: it stays this kind)
    outside_recorded_as: RelocateWarning | None = None
    #: the subtype when its target outside the source folder does not land
    outside_warned_as: RelocateWarning = RelocateWarning.REPO_FILE
    #: the extension copies its file (Sphinx does not), and only from inside the
    #: repository, so a file outside it is reported even where no repository was found
    #: and the conf dir stands for one (``Settings.repository_found``)
    copied_by_extension: bool = False
    #: an existing file it names is a dependency of its document (a Sphinx collector
    #: or the resolver notes it), which Sphinx re-reads the document for when the file
    #: goes: the check need not look at it again until then
    file_is_dependency: bool = False
    #: the warning Sphinx gives it when it dangles without the extension
    #: (``Reference.replaces``; a link's depends on its node: :data:`_XREF_WARNINGS`)
    replaces: str = ""
    #: how a message names one that is a URL of the published site (``html_baseurl``),
    #: when that is another name ("site url"; ``""``: ``label``)
    site_label: str = ""


#: the warning a page cross-reference gets when it dangles without the extension, by
#: its ``reftype``: ``:doc:`` Sphinx's, a Markdown link MyST's (a reST link: none)
_XREF_WARNINGS = {"doc": "ref.doc", "myst": "myst.xref_missing"}


def _page_xref(node: addnodes.pending_xref) -> bool:
    """MyST links and ``:doc:`` (other roles name labels and objects, not paths)."""
    return bool(
        node.get("reftype") == "myst"
        or (node.get("reftype") == "doc" and node.get("refdomain") == "std")
    )


#: every kind of reference, in the order their nodes are tried (a download reference is
#: also a reference; a MyST link that names no file may name a label, which
#: ``_pending_xref`` asks first)
REFERENCE_KINDS: tuple[ReferenceKind, ...] = (
    ReferenceKind(
        RelocateWarning.DOWNLOAD, "download", "doctree-read: ``:download:``",
        (NodeAdapter(addnodes.download_reference, lambda node: True, _download),),
        replaced_if_missing=True, outside_recorded_as=RelocateWarning.REPO_FILE,
        file_is_dependency=True, replaces="download.not_readable",
    ),
    ReferenceKind(
        RelocateWarning.IMAGE, "image", "doctree-read: images and figures",
        (NodeAdapter(nodes.image, lambda node: True, _image),),
        replaced_if_missing=True, file_is_dependency=True, replaces="image.not_readable",
    ),
    ReferenceKind(
        RelocateWarning.LINK, "link",
        "doctree-read: MyST links, ``:doc:``, local reST links (a MyST link to a file "
        "becomes a download)",
        (
            NodeAdapter(addnodes.pending_xref, _page_xref, _pending_xref),
            NodeAdapter(
                nodes.reference, lambda node: "refuri" in node and not node.get("internal"),
                _reference,
            ),
        ),
        replaced_if_missing=True, outside_recorded_as=RelocateWarning.REPO_FILE,
    ),
    ReferenceKind(
        RelocateWarning.LABEL, "label",
        "doctree-read: ``:ref:``, ``:numref:``, ``:any:``, MyST's ``[](#label)`` to a "
        "``[labels]`` key; sent to its label by ``check.ReportedReferences``",
        (NodeAdapter(addnodes.pending_xref, lambda node: bool(label_xref(node)), _role_xref),),
        names_label=True,
    ),
    ReferenceKind(
        RelocateWarning.RAW_HTML, "raw html",
        "doctree-read: ``href`` and ``src`` of raw HTML, as source paths; made the "
        "builder's URLs at doctree-resolved (:func:`on_doctree_resolved`)",
        (NodeAdapter(nodes.raw, lambda node: "html" in node.get("format", "").split(),
                     _raw_html),),
        settled_by_anchor=False, outside_recorded_as=RelocateWarning.REPO_FILE,
        file_is_dependency=True, copied_by_extension=True,
    ),
    ReferenceKind(
        RelocateWarning.TOCTREE, "toctree", "parse: the ``toctree`` directive's entries "
        "(:class:`RelocatingTocTree`)",
        warned_by_sphinx=True, replaces="toc.not_readable",
    ),
    ReferenceKind(
        RelocateWarning.REPO_URL, "repo url",
        "doctree-read: an absolute URL of the project's repository or site, in a link or "
        "raw HTML (:func:`_own_url`)", site_label="site url",
        relocated_page_lands=True, outside_warned_as=RelocateWarning.REPO_URL,
    ),
    ReferenceKind(
        RelocateWarning.REPO_FILE, "repo file",
        "a link, download or raw HTML URL that lands on a file outside the source folder",
    ),
    ReferenceKind(
        RelocateWarning.INCLUDE, "include", "source-read: the files of ``include``, "
        "``literalinclude``, ``csv-table :file:``, ``raw :file:`` and the diagrams of "
        "``graphviz``, ``uml`` and ``mermaid``, mapped in the source "
        "text (:func:`on_source_read`), and in an included file's (:func:`on_include_read`); "
        "recorded where the table changed them (``relocate.outdated``, the summary)",
        source_spans=frozenset({"include"}), warned_by_sphinx=True, file_is_dependency=True,
        # ``.. include::``, ``{literalinclude}``, csv-table's ``:file: x``: not the word
        # "include" or the ``:file:`` role, which most prose that has either means
        source_markers=("include::", "include}", ":file: ", ":file:\t", "graphviz::",
                        "{graphviz}", "uml::", "{uml}", "mermaid::", "{mermaid}"),
    ),
)

#: the spans mapped in the source text, and the text that a source with any has
_SOURCE_SPANS = frozenset().union(*(entry.source_spans for entry in REFERENCE_KINDS))
_SOURCE_MARKERS = tuple(marker for entry in REFERENCE_KINDS for marker in entry.source_markers)

#: the recorded kinds, by ``Reference.kind``
_RECORDED: dict[RelocateWarning, ReferenceKind] = {
    entry.kind: entry for entry in REFERENCE_KINDS
}


def kind_of(kind: RelocateWarning) -> ReferenceKind:
    """The registry entry of a recorded kind; any other subtype is an error."""
    try:
        return _RECORDED[kind]
    except KeyError:
        raise ValueError(f"{kind!r} is not a kind of reference") from None


#: node class -> the node adapters its nodes may be, with their kind (most classes: none)
_ADAPTERS_OF_CLASS: dict[type, tuple[tuple[NodeAdapter, RelocateWarning], ...]] = {}


# -- toctree entries -----------------------------------------------------------


class RelocatingTocTree(TocTree):
    """The ``toctree`` directive, with entries written against old names mapped first."""

    def run(self) -> list[nodes.Node]:
        app, docname = app_of(self.env), current_docname(self.env)
        resolver = _LazyResolver(app, docname)
        quick = quick_answers(app, state_of(app))
        on = not (quick.moved and quick.moved(docname))
        folder = folder_of(docname)
        glob = "glob" in self.options
        lines: list[str] = []
        content: StringList = self.content
        # docutils gives absolute content offsets; MyST counts from the directive's body
        relative = bool(content) and content.offset(0) < self.lineno - 1
        for index, entry in enumerate(content):
            if relative:
                line = self.lineno + self.content_offset + index + 1
            else:
                line = content.offset(index) + 1
            name = quick.page(folder, entry.strip()) if on else None
            if name is not None and not (glob and _GLOB.search(entry)):
                # an existing page as written, which the table cannot change (its
                # lookup noted as the rule notes it): no resolver
                key = ("page", name, "")
                noted_lookups(quick.lookups, docname).add(quick.shared.setdefault(key, key))
                lines.append(entry)
            else:
                lines.append(self._map(resolver.get(), entry, glob, line))
        self.content = StringList(lines, items=list(content.items))
        return super().run()

    @staticmethod
    def _map(resolver: Resolver, entry: str, glob: bool, line: int) -> str:
        stripped = entry.strip()
        if not stripped or stripped == "self" or EXTERNAL.match(stripped):
            return entry
        explicit = _EXPLICIT_TITLE.match(stripped)
        title, ref = (explicit.group(1), explicit.group(2)) if explicit else (None, stripped)
        if ref == "self" or EXTERNAL.match(ref):
            return entry
        if glob and not explicit and _GLOB.search(ref):
            return _map_glob(resolver, entry, ref)
        resolved = resolver.resolve(ref, "page")
        if resolved is None:
            return entry
        resolver.note(None, line, ref, resolved, RelocateWarning.TOCTREE)
        if not resolved.exists or not resolved.rewritten:
            return entry
        new = resolved.url or "/" + resolved.path
        if resolved.url and title is None:  # a toctree shows a URL by its title
            title = _old_title(resolver, ref)
            if title is None:
                warn(
                    RelocateWarning.TOCTREE,
                    f"toctree entry {ref!r} goes to {new} now, and the old page's title is "
                    f"not known: the toctree shows the URL; write the title: 'Title <{new}>'",
                    (resolver.docname, line),
                )
        return f"{title} <{new}>" if title is not None else new


class _LazyResolver:
    """A document's :class:`Resolver`, made when first asked for."""

    def __init__(self, app: Sphinx, docname: str) -> None:
        self.app, self.docname = app, docname
        self.resolver: Resolver | None = None

    def get(self) -> Resolver:
        if self.resolver is None:
            self.resolver = Resolver(self.app, self.docname)
        return self.resolver


def _old_title(resolver: Resolver, ref: str) -> str | None:
    """The title of the deleted page ``ref`` names, from the last version git has."""
    return old_page_title(
        resolver.state.settings, resolver.srcdir, docname_join(resolver.docname, ref)
    )


def old_page_title(settings: Settings, srcdir: str, docname: str) -> str | None:
    """The title of the deleted page ``docname``, from the last version git has: what a
    toctree's or a site map's entry that goes to a URL shows."""
    from sphinx_relocate.core.rewrite import deleted_page_title

    paths = [_in_repository(settings, srcdir, docname + suffix)
             for suffix in settings.source_suffixes]
    return deleted_page_title(
        Path(settings.repo_root), [path for path in paths if path is not None]
    )


def _in_repository(settings: Settings, srcdir: str, docs_path: str) -> str | None:
    absolute = os.path.normpath(os.path.join(srcdir, docs_path))
    inside = os.path.relpath(absolute, settings.repo_root).replace(os.sep, "/")
    return None if leaves_root(inside) else inside


def _map_glob(resolver: Resolver, entry: str, pattern: str) -> str:
    """A glob entry that matches no document, with its folder moved by ``[prefixes]``."""
    written = docname_join(resolver.docname, pattern)
    resolver.note_lookup(("file", written, ""))  # re-read when the table moves it again
    others = resolver.docs - {resolver.docname}  # as Sphinx, which leaves out the page itself
    moved = moved_glob(written, resolver.table, others)
    if moved is None:
        return entry  # it matches as written, or Sphinx warns that it matches nothing
    if resolver.verbose:
        logger.verbose("relocated toctree glob %r → %r", pattern, moved,
                       location=resolver.docname)
    return "/" + moved


# -- directives that read a file --------------------------------------------------


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    """Map the files that ``include``, ``literalinclude`` and ``csv-table :file:`` read.

    Those directives read their file while the document is parsed, before any doctree
    handler runs, and MyST's ``{include}`` reads it itself, so the path is mapped in the
    source text, on the spans ``rewrite`` would change (the same lines, so every line
    number stays).  A moved page's path is read from its frame, a moved file through
    ``[files]``.
    """
    text = source[0]
    state = state_of(app)
    quick = quick_answers(app, state)
    if quick.moved and quick.moved(docname):
        # kept until the document is read: a moved page's frame and spellings come from it
        state.texts[docname] = text
    if any(marker in text for marker in _SOURCE_MARKERS):
        resolver = Resolver(app, docname)
        source[0] = _map_read_files(resolver, text, state.source_path(app.env, docname))


def on_include_read(app: Sphinx, path: Path, _parent: str, content: list[str]) -> None:
    """Map the files that the directives of an included file read (``include-read``).

    Sphinx reads an ``include`` or ``literalinclude`` written there from the including
    document's folder (MyST's ``{include}`` too), docutils a ``csv-table :file:`` or a
    ``raw :file:`` from the included file's own: from its old folders too when the table
    moved it as a page.  The document is the one being read (MyST gives only its file's
    stem).
    """
    text = content[0]
    if any(marker in text for marker in _SOURCE_MARKERS):
        resolver = Resolver(app, current_docname(app.env))
        content[0] = _map_read_files(resolver, text, path.as_posix(), included=True)


def _map_read_files(resolver: Resolver, text: str, path: str, *, included: bool = False) -> str:
    """``text`` (the source file ``path``, relative to the source folder) with the files
    its directives read mapped; ``included``: a file the document includes."""
    own_site = _file_site(resolver, text, path) if included else None
    edits = []
    for span in find_targets(text, path):
        if span.syntax not in _SOURCE_SPANS:
            continue
        written = text[span.start : span.end]
        # docutils reads the :file: of csv-table and raw from the file it is written in
        line = text[text.rfind("\n", 0, span.start) + 1 : span.start]
        site = own_site if own_site is not None and line.lstrip().startswith(":file:") else None
        resolved = resolver.resolve(written, "file", site)
        if resolved is None or not resolved.exists or not resolved.rewritten or resolved.url:
            continue
        if site is None:
            new = resolver.relative(resolved, keep_fragment=False)
        else:
            new = relative_path(folder_of(path), resolver.source_path(resolved))
        edits.append((span.start, span.end, new))
        # recorded, so that relocate.outdated and the summary count it on every build
        number = text.count("\n", 0, span.start) + 1
        source = os.path.join(resolver.srcdir, path) if included else ""
        resolver.note(None, number, written, resolved, RelocateWarning.INCLUDE, source=source)
    return apply_edits(text, edits) if edits else text


def _file_site(resolver: Resolver, text: str, path: str) -> Site:
    """The site of an included file: a page's (its old folders too), else its folder."""
    project = resolver.project
    stem, is_source = strip_source_suffix(path, resolver.suffixes)
    if is_source and stem in resolver.docs:
        site = site_of(stem, project)
    else:
        site = Site((project.repo_folder(folder_of(path)),), project.repo_folder(""))
    return framed(site, text, project.repo_path(path), project)


# -- late resolution -----------------------------------------------------------


def _anchor_id(env: BuildEnvironment, docname: str, anchor: str) -> str:
    """The HTML id of ``anchor`` in ``docname`` (a MyST heading slug maps to its id)."""
    if not anchor:
        return ""
    slugs = env.metadata.get(docname, {}).get("myst_slugs", {})
    if anchor in slugs:
        return cast(str, slugs[anchor][1])
    return anchor


def on_missing_reference(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.reference | None:
    """Resolve the page links of reST references that the resolver turned into xrefs."""
    if node.get("reftype") != "relocate" or node["reftarget"] not in env.all_docs:
        return None
    target, refdoc = node["reftarget"], node["refdoc"]
    anchor = _anchor_id(env, target, node.get("refanchor", ""))
    query = node.get("refquery") or ""
    written = node.get("relocate_reference")
    if written is not None:
        # the reference as written, where the builder's URL is the one written, or
        # (moved) the one the rewritten source writes: Sphinx's markup, an external
        # link's class included (pytest's ``.. _nose: nose.html``)
        if node.get("relocate_rewritten"):
            url = join_target(app.builder.get_relative_uri(refdoc, target), query, anchor)
            same_style = split_target(written["refuri"])[0].endswith(".html") and \
                split_target(url)[0].endswith(".html")
            written = {**written, "refuri": url} if same_style else None
        elif not _names_page(app, refdoc, written["refuri"], target, query, anchor):
            written = None
    if written is not None:
        shown = contnode.children if node.get("relocate_wrapped", True) else [contnode]
        return nodes.reference("", "", *shown, **written)
    if query and app.builder.format == "html":  # other builders' links take no query
        uri = join_target(app.builder.get_relative_uri(refdoc, target), query, anchor)
        return nodes.reference("", "", contnode, internal=True, refuri=uri)
    return make_refnode(app.builder, refdoc, target, anchor, contnode)


def _names_page(
    app: Sphinx, refdoc: str, url: str, target: str, query: str, anchor: str
) -> bool:
    """Whether the URL written on ``refdoc`` is this builder's URL of ``target`` with
    ``query`` and ``anchor``."""
    builder = app.builder
    path, written_query, fragment = split_target(url)
    page = builder.get_target_uri(refdoc)
    here = posixpath.join(posixpath.dirname(page), path) if path else page
    return (
        posixpath.normpath(here or ".") == posixpath.normpath(builder.get_target_uri(target) or ".")
        and written_query == query and decode(fragment) == decode(anchor)
    )


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn raw HTML's source paths into the URLs this HTML builder writes."""
    builder = app.builder
    if builder is None or builder.format != "html":
        return
    env = app.env
    if builder.name != "singlehtml" and docname not in raw_html_of(env):
        return  # no raw HTML read in this document (singlehtml joins every document's)
    suffixes = source_suffixes(app)
    page_uri = builder.get_target_uri(docname).partition("#")[0]
    imagedir = getattr(builder, "imagedir", "_images")
    folder = ""

    def rewrite(found: _html.UrlAttribute) -> str | None:
        path, query, fragment = split_target(found.value)
        path = decode(path)
        if not path or EXTERNAL.match(path) or path.startswith("/"):
            return None
        source = join_relative(folder, path)
        stem, had_suffix = strip_source_suffix(source, suffixes)
        if found.attribute == "href" and had_suffix and stem in env.all_docs:
            uri = builder.get_relative_uri(docname, stem)
            anchor = _anchor_id(env, stem, decode(fragment))
            if uri.startswith("#") and anchor:
                return "#" + anchor
            return join_target(uri, query, anchor)
        copied = copied_by_sphinx(app, source)
        if copied is not None:
            return join_target(relative_uri(page_uri, copied), query, fragment)
        if found.attribute == "src" and source in env.images:
            filename = env.images[source][1]
            if hasattr(builder, "images"):
                builder.images[source] = filename
            return join_target(
                relative_uri(page_uri, imagedir) + "/" + filename, query, fragment
            )
        downloads: Any = env.dlfiles
        entry = downloads.get(source) or downloads.get(Path(source))
        if found.attribute == "href" and entry is not None:
            return join_target(
                relative_uri(page_uri, "_downloads") + "/" + str(entry[1]).replace(os.sep, "/"),
                query,
                fragment,
            )
        return None

    for node in nodes_of_class(doctree, nodes.raw):
        if "html" not in node.get("format", "").split():
            continue
        folder = folder_of(node.get("relocate_docname", docname))
        text = node.astext()
        new = _html.rewrite_urls(text, rewrite)
        if new != text:
            node.children = []
            node += nodes.Text(new)


# -- incremental builds --------------------------------------------------------


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Documents whose references resolve differently now: the table or the pages changed."""
    state = state_of(app)
    state.forget_files()  # files may have come, gone or changed their suffix
    table = state.table
    lookups = lookups_of(env)
    # the table of the last build; compared only when there is one (a fresh build of a big
    # table does not hash it)
    previous = last_table_of(env)
    last_table_of.set(env, table)
    outdated: set[str] = set()
    appeared_or_gone = added | removed
    changed_table = previous is not None and previous.digest != state.table_digest()
    old_table = previous if changed_table else None
    if appeared_or_gone or old_table is not None:
        srcdir = str(app.srcdir)

        def file_exists(path: str) -> bool:
            return os.path.exists(os.path.join(srcdir, path))

        docs = env.found_docs.__contains__
        for docname, made in lookups.items():
            if docname in outdated:
                continue
            for looked_up, key, fragment in unpacked_lookups(made):
                if looked_up == "page" and key in appeared_or_gone:
                    outdated.add(docname)
                    break
                if old_table is None:
                    continue
                before: object
                after: object
                if looked_up == "page":
                    before = old_table.locate_reference(key, fragment, docs)
                    after = table.locate_reference(key, fragment, docs)
                elif looked_up == "label":  # where it lands is decided once all are read
                    before, after = key in old_table.labels, key in table.labels
                else:
                    before = old_table.locate_file(key, file_exists)
                    after = table.locate_file(key, file_exists)
                if before != after:
                    outdated.add(docname)
                    break
    if old_table is not None:
        outdated.update(
            docname
            for docname in env.found_docs
            if old_table.old_names(docname) != table.old_names(docname)
        )
    previous_url = last_repo_url_of(env)
    last_repo_url_of.set(env, state.settings.repo_url)
    if previous_url is not None and previous_url != state.settings.repo_url:
        outdated.update(env.found_docs)  # its links to the forge are made at reading
    result = sorted(outdated & env.found_docs - changed - added)
    if result:
        logger.verbose("relocation table or repository URL changed: re-reading %d documents",
                       len(result))
    return result
