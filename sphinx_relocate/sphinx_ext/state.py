"""The state of one build in one typed object, as intersphinx keeps its inventories.

Every handler asks :func:`state_of` for the table, the settings derived from the config,
the project as the resolution rule sees it (:class:`~sphinx_relocate.core.landing.Project`)
and the report of the last check, instead of each module keeping a dict of its own.
What must outlive a build (references, anchors, lookups) lives in the environment
(``record.py``); this is what one ``Sphinx`` object derives and caches.

The types of what one feature leaves here for another (the check's :class:`Report`, the
stubs' :class:`StubReport`, …) are defined here too, so this module imports no feature
module and the package has no import circle (``tests/test_wiring.py``).
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.core.catalogs import Borrowed
from sphinx_relocate.core.landing import Project, Site, framed, site_of
from sphinx_relocate.core.paths import join_relative
from sphinx_relocate.core.settings import Settings
from sphinx_relocate.core.table import Problem, RelocationTable, Target
from sphinx_relocate.sphinx_ext.record import Reference
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning

if TYPE_CHECKING:
    import jinja2
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.core.history import History


class FileCache:
    """Whether repository paths are files or folders, asked once each per build.

    Most references of a site name the same few pages and images, and asking the file
    system again for each costs more than resolving the reference.
    """

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._files: dict[str, bool] = {}
        self._folders: dict[str, bool] = {}
        self._real_folders: dict[str, str] = {}
        #: path relative to the source folder → its real path when that lies outside the
        #: repository, else ``None`` (``resolve._outside_repository``)
        self.outside_repository: dict[str, str | None] = {}
        #: path relative to the source folder → where an HTML builder copies it of its
        #: own accord (``resolve.copied_by_sphinx``)
        self.copied_by_sphinx: dict[str, str | None] = {}

    def is_file(self, path: str) -> bool:
        return self._ask(self._files, path, os.path.isfile)

    def is_folder(self, path: str) -> bool:
        return self._ask(self._folders, path, os.path.isdir)

    def real_path(self, path: str) -> str:
        """``os.path.realpath`` of an absolute path, each folder's asked once: a page's
        files share a few folders, and ``realpath`` asks the file system for every part."""
        folder, name = os.path.split(path)
        if name in ("", ".", ".."):
            return self.real_folder(path)
        joined = os.path.join(self.real_folder(folder), name)
        return os.path.realpath(joined) if os.path.islink(joined) else joined

    def real_folder(self, folder: str) -> str:
        """``os.path.realpath`` of a folder, asked once."""
        found = self._real_folders.get(folder)
        if found is None:
            found = self._real_folders[folder] = os.path.realpath(folder)
        return found

    def _ask(self, known: dict[str, bool], path: str, test: Callable[[str], bool]) -> bool:
        found = known.get(path)
        if found is None:
            found = known[path] = bool(path) and test(os.path.join(self.root, path))
        return found


#: the documents and the published pages whose old pages' landings are known
OldPagesKey = tuple[frozenset[str], frozenset[str]]


# -- what one feature leaves in the state for another ---------------------------


@dataclass
class Sources:
    """Where this build looked for table entries and how many each gave."""

    #: (shown name, entry count) of each source that gave entries
    read: list[tuple[str, int]] = field(default_factory=list)
    #: every place looked in, for the line without a table
    looked: list[str] = field(default_factory=list)
    #: a hint for a table that is not where it is looked for (``""``: none)
    hint: str = ""


@dataclass(frozen=True)
class StubReport:
    """What the stubs of one build did, for the build's summary line."""

    #: redirect stubs written (or found already in place, unchanged)
    written: int
    #: stale stubs of earlier builds deleted
    removed: int
    #: export files written (``relocate_redirect_exports``), by path
    exports: tuple[str, ...]
    #: stubs and exports not written (each one warned)
    failed: int


@dataclass(frozen=True)
class Serving:
    """The catalog that serves a moved page in this build, and its compiled files."""

    borrowed: Borrowed
    #: the ``.mo`` files Sphinx's ``Locale`` reads for it (one per locale dir that has it)
    mo_files: tuple[str, ...]
    #: the file to name in the note (the ``.po`` if there is one) and where it should go
    shown: str
    destination: str

    def stamp(self) -> tuple[str, tuple[tuple[str, int], ...]]:
        """What the page was read with: the catalog and its files' modification times."""
        return self.borrowed.domain, tuple((f, _mtime(f)) for f in self.mo_files)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


@dataclass(frozen=True)
class Finding:
    """One reference that does not land."""

    reference: Reference
    subtype: RelocateWarning
    message: str

    @property
    def location(self) -> tuple[str, int | None] | str:
        """``(docname, line)``, or ``"file:line"`` for a reference in an included file."""
        reference = self.reference
        if reference.source:
            return f"{reference.source}:{reference.line}" if reference.line else reference.source
        return reference.docname, reference.line or None


@dataclass
class Report:
    """The findings of this build, for the post-transform and the summary."""

    findings: list[Finding] = field(default_factory=list)
    #: (docname, written) of each finding, to find its node again at write time
    written: set[tuple[str, str]] = field(default_factory=set)
    #: (docname, target page) of missing pages and (docname, page, anchor) of missing anchors
    pages: set[tuple[str, str]] = field(default_factory=set)
    anchors: set[tuple[str, str, str]] = field(default_factory=set)
    #: (docname, written) of MyST links sent to a page that a label of the written name
    #: claims too: left to MyST, which takes the label (``Checker._check_page``)
    named: set[tuple[str, str]] = field(default_factory=set)
    #: (location, message) of table targets whose anchor is missing
    table: list[tuple[str, str]] = field(default_factory=list)
    #: some reference has alternatives for ``check.ReportedReferences`` to settle
    alternatives: bool = False
    #: references to renamed labels, by ``check.label_key``: the label each lands on now,
    #: ``""`` for an ambiguous one (for ``check.ReportedReferences``)
    labels: dict[tuple[str, str, bool], str] = field(default_factory=dict)
    #: links written as an output URL (``blog/index.html``) that name no document: an
    #: HTML builder may write the page itself (ablog's, viewcode's), so each is decided
    #: once it has written its pages (``check.on_build_finished``)
    unwritten: list[Finding] = field(default_factory=list)


@dataclass
class QuickAnswers:
    """What decides most references of a read phase by set lookups, made once per read
    phase (``BuildState.forget_files`` drops it), with the stores a page writes to."""

    env: BuildEnvironment
    docs: set[str]
    #: the labels the table renames (``None``: where section labels carry their page's
    #: name, every label goes to the rule, which asks whether that page moved)
    labels: Collection[str] | None
    #: whether an ``[anchors]`` entry may move a fragment of a page (``None``: there is
    #: no entry)
    moves_anchors: Callable[[str], bool] | None
    #: whether a document stood in another folder (``None``: the table moves none)
    moved: Callable[[str], bool] | None
    shared: dict[tuple[str, str, str], tuple[str, str, str]]
    is_file: Callable[[str], bool]
    #: the source folder in the file cache's terms (``Settings.docs_prefix``)
    prefix: str
    #: the endings that make a ``:doc:`` target a file name or a built URL
    page_suffixes: tuple[str, ...]
    #: ``resolve.lookups_of``: a set for each document read (``resolve.noted_lookups``)
    lookups: dict[str, set[tuple[str, str, str]] | tuple[str, ...]]
    records: dict[str, list[Reference]]
    anchors: dict[str, set[str]]

    def page(self, folder: str, written: str) -> str | None:
        """The existing document that ``written`` (a ``:doc:`` target, a toctree entry)
        names as it is written from ``folder``, when set lookups decide as the rule does
        (``core.landing.existing_landing``): no fragment, query, escape, scheme or source
        suffix, which the whole rule reads."""
        name = join_relative(folder, written)
        if (name in self.docs and not UNPLAIN.search(written)
                and not written.endswith(self.page_suffixes)):
            return name
        return None


#: what sends a ``:doc:`` target, a toctree entry or an image path to the whole rule: a
#: fragment, a query, percent escapes, a scheme (``data:``), a glob or a ``//`` host
UNPLAIN = re.compile(r"[#%?:*]|^//")


@dataclass
class BuildState:
    """Everything one build derives from its config and its project."""

    #: the table, read once at ``config-inited``
    table: RelocationTable = field(default_factory=RelocationTable)
    #: the peers' options this extension registered (``None``: the config is not checked yet)
    peer_options: list[str] | None = None
    #: the redirects of the peers conf.py still loads (``config.read_loaded_peers``)
    peer_redirects: RelocationTable = field(default_factory=RelocationTable)
    #: for the summary line (``summary.py``): where the table came from, what this build
    #: wrote (HTML builders) and the (references, documents) that dangle
    sources: Sources | None = None
    dangling: tuple[int, int] | None = None
    #: the settings, built once at ``config-inited``
    settings: Settings = field(default_factory=Settings)
    files: FileCache = field(default_factory=lambda: FileCache(Path()))
    #: the project as the rule sees it; made once the documents are known
    project: Project | None = None
    #: the framed site of every document looked at in this build
    sites: dict[str, Site] = field(default_factory=dict)
    #: docname -> its source file, relative to the source folder
    source_paths: dict[str, str] = field(default_factory=dict)
    #: the source text of the document being read (its frame's votes, its spellings)
    texts: dict[str, str] = field(default_factory=dict)
    #: the findings of the last check (:class:`Report`)
    report: Report | None = None
    #: the documents this build reads or removed (from ``env-get-outdated`` and
    #: ``env-before-read-docs``): the check looks again at them and at what depends on
    #: them; ``None``: not known, it looks at every document
    changed_documents: set[str] | None = None
    #: ``relocate_stub_template``, compiled once per build, and its file for messages
    stub_template: jinja2.Template | None = None
    stub_template_name: str = ""
    #: a hash of its text, for the plan's inputs (``stubs._plan_inputs``)
    stub_template_hash: str = ""
    #: pages the builder rendered in this process (genindex, search, domain indices, …),
    #: which no stub may replace
    rendered_pages: set[str] = field(default_factory=set)
    #: the pages of ``relocate_published`` (read once the documents are read), which
    #: get stubs and inventory entries when the table moves them
    published_pages: frozenset[str] = frozenset()
    #: each of those pages that is gone → its published fragments → where the label or
    #: object each stood for is now (``core.published.followed_ids``), for its stub
    published_ids: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    #: the published history when it lists URLs, checked at ``build-finished`` against
    #: the written output (``published.on_build_finished``)
    published_urls: History | None = None
    #: the old pages and ``page#id`` sections ``relocate_since`` warned for this build,
    #: which ``relocate_published`` does not warn for again (one fix answers both)
    since_reported: set[str] = field(default_factory=set)
    #: moved pages this build translates from a catalog at an old name (``catalogs.py``)
    catalogs: dict[str, Serving] = field(default_factory=dict)
    #: the table checked against this build's documents (labels aside), when the build
    #: started; the dangling count at its end reuses it
    table_problems: list[Problem] | None = None
    #: the stubs manifest the last build left (``stubs.read_manifest``), read when this
    #: build starts; ``None``: not read yet
    previous_stubs: dict[str, str] | None = None
    #: the pages the last build wrote for documents removed since, which a stub may
    #: replace (``stubs.on_env_get_outdated``)
    stale_pages: set[str] = field(default_factory=set)
    #: ((documents, published pages), each old page that gets a stub → where it lands):
    #: worked out once for the stubs and the inventory (``stubs.landings_of``)
    old_page_landings: tuple[OldPagesKey, dict[str, Target]] | None = None
    #: what this build's stubs and exports did (:class:`StubReport`), for the build's summary line
    stub_report: StubReport | None = None
    #: the documents read again or removed in this build (``env-purge-doc``), whose
    #: titles and labels ``stubs.on_env_updated`` compares with the last build's
    purged_documents: set[str] = field(default_factory=set)
    #: every table lookup a document noted (``resolve.lookups_of``), one tuple each: the
    #: documents share it, and its strings once packed (``resolve.pack_lookups``), so
    #: the environment pickles (and loads) each name once
    shared_lookups: dict[tuple[str, str, str], tuple[str, str, str]] = field(
        default_factory=dict
    )
    #: setting (``html_sidebars``, ``secondary_sidebar_items``) → each of its keys that
    #: named pages the table moved → the key for their new names
    #: (``sidebars.on_env_updated``), worked out once per build
    moved_sidebars: dict[str, dict[str, str]] = field(default_factory=dict)
    #: ``exclude_patterns`` before sphinx-external-toc adds to them (``external_toc.py``)
    excluded_before_site_map: tuple[str, ...] | None = None
    #: the set lookups that decide most references of this read phase
    #: (``resolve.QuickAnswers``), made by the first document read
    quick_answers: QuickAnswers | None = None
    #: a name no document has → where the table lands it for the templates
    #: (``templates.moved_page``), asked on every page the build renders
    template_pages: dict[str, Target | None] = field(default_factory=dict)
    _table_digest: tuple[RelocationTable, str] | None = None

    def table_digest(self) -> str:
        """``table.digest``, worked out once per build: the stubs, the inventory and the
        check of what to read again all ask, and a big table takes a while to hash."""
        if self._table_digest is None or self._table_digest[0] is not self.table:
            self._table_digest = (self.table, self.table.digest)
        return self._table_digest[1]

    def forget_files(self) -> None:
        """Before a read phase: files may have come, gone or changed their suffix."""
        self.files = FileCache(self.settings.files_root)
        self.project = None
        self.quick_answers = None
        self.template_pages = {}
        self.sites = {}
        self.source_paths = {}
        self.texts = {}

    def project_of(
        self, env: BuildEnvironment, suffixes: tuple[str, ...],
        on_lookup: Callable[[tuple[str, str, str]], None],
        generated: Callable[[BuildEnvironment], Collection[str]],
    ) -> Project:
        """The project as the rule sees it, noting its lookups with ``on_lookup``: made
        once per read phase, each caller's with its own ``on_lookup``; ``generated``
        gives the pages the builders write without a source."""
        if self.project is None:
            self.project = Project(
                self.table,
                suffixes,
                self.settings.docs_prefix,
                env.found_docs.__contains__,
                self.files.is_file,
                self.files.is_folder,
                generated=frozenset(generated(env)),
            )
        return self.project.recording(on_lookup)

    def site(self, env: BuildEnvironment, docname: str, project: Project) -> Site:
        """The document's site (a moved one's frame as far as it was needed so far)."""
        found = self.sites.get(docname)
        if found is None:
            found = self.sites[docname] = site_of(docname, project)
        return found

    def framed_site(self, env: BuildEnvironment, docname: str, project: Project) -> Site:
        """The document's site with its frame read from its source text, as ``rewrite``
        reads it (the first time one of its links lands on two targets)."""
        site = framed(
            self.site(env, docname, project), self.text_of(env, docname),
            project.repo_path(self.source_path(env, docname)), project,
        )
        self.sites[docname] = site
        return site

    def text_of(self, env: BuildEnvironment, docname: str) -> str:
        """The source text of a document, as ``source-read`` gave it (else from disk)."""
        text = self.texts.get(docname)
        if text is None:
            try:
                text = Path(env.srcdir, self.source_path(env, docname)).read_text("utf-8-sig")
            except (OSError, UnicodeDecodeError):
                text = ""
            self.texts[docname] = text
        return text

    def source_path(self, env: BuildEnvironment, docname: str) -> str:
        """The source file of a document, relative to the source folder."""
        found = self.source_paths.get(docname)
        if found is None:
            found = str(env.doc2path(docname, False)).replace(os.sep, "/")
            self.source_paths[docname] = found
        return found


_STATES: weakref.WeakKeyDictionary[Any, BuildState] = weakref.WeakKeyDictionary()
#: the application asked for last and its state: every node adapter and handler asks,
#: and a weak dictionary makes a new weak reference for each question
_LAST: tuple[weakref.ref[Any], BuildState] | None = None


def state_of(app: Sphinx) -> BuildState:
    """The state of this application's builds."""
    global _LAST
    if _LAST is not None and _LAST[0]() is app:
        return _LAST[1]
    state = _STATES.get(app)
    if state is None:
        state = _STATES[app] = BuildState()
    _LAST = (weakref.ref(app), state)
    return state
