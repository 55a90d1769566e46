"""The state of one build in one typed object, as intersphinx keeps its inventories.

Every handler asks :func:`state_of` for the table, the settings derived from the config,
the project as the resolution rule sees it (:class:`~sphinx_relocate.core.landing.Project`)
and the report of the last check, instead of each module keeping a dict of its own.
What must outlive a build (references, anchors, lookups) lives in the environment
(``_record.PerDocument``); this is what one ``Sphinx`` object derives and caches.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_relocate.core.landing import Project, Site, framed, site_of
from sphinx_relocate.core.settings import Settings
from sphinx_relocate.core.table import Problem, RelocationTable, Target

if TYPE_CHECKING:
    import jinja2
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.sphinx_ext.catalogs import Serving
    from sphinx_relocate.sphinx_ext.check import Report
    from sphinx_relocate.sphinx_ext.stubs import StubReport
    from sphinx_relocate.sphinx_ext.summary import Sources


class FileCache:
    """Whether repository paths are files or folders, asked once each per build.

    Most references of a site name the same few pages and images, and asking the file
    system again for each costs more than resolving the reference.
    """

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._files: dict[str, bool] = {}
        self._folders: dict[str, bool] = {}

    def is_file(self, path: str) -> bool:
        return self._ask(self._files, path, os.path.isfile)

    def is_folder(self, path: str) -> bool:
        return self._ask(self._folders, path, os.path.isdir)

    def _ask(self, known: dict[str, bool], path: str, test: Callable[[str], bool]) -> bool:
        found = known.get(path)
        if found is None:
            found = known[path] = bool(path) and test(os.path.join(self.root, path))
        return found


@dataclass
class BuildState:
    """Everything one build derives from its config and its project."""

    #: the table, read once at ``config-inited``
    table: RelocationTable = field(default_factory=RelocationTable)
    #: the peers' options this extension registered (``None``: the config is not checked yet)
    peer_options: list[str] | None = None
    #: for the summary line (``_summary``): where the table came from, what this build
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
    #: the findings of the last check (``_check.Report``)
    report: Report | None = None
    #: ``relocate_stub_template``, compiled once per build, and its file for messages
    stub_template: jinja2.Template | None = None
    stub_template_name: str = ""
    #: pages the builder rendered in this process (genindex, search, domain indices, …),
    #: which no stub may replace
    rendered_pages: set[str] = field(default_factory=set)
    #: the pages of ``relocate_published`` (read once the documents are read), which
    #: get stubs and inventory entries when the table moves them
    published_pages: frozenset[str] = frozenset()
    #: moved pages this build translates from a catalog at an old name (``_catalogs``)
    catalogs: dict[str, Serving] = field(default_factory=dict)
    #: the table checked against this build's documents (labels aside), when the build
    #: started; the dangling count at its end reuses it
    table_problems: list[Problem] | None = None
    #: the stubs manifest the last build left (``_stubs.read_manifest``), read when this
    #: build starts; ``None``: not read yet
    previous_stubs: dict[str, str] | None = None
    #: the pages the last build wrote for documents removed since, which a stub may
    #: replace (``_stubs.on_env_get_outdated``)
    stale_pages: set[str] = field(default_factory=set)
    #: the old pages that need a stub → where they land (``_stubs.landings_of``), with the
    #: documents and published pages they were worked out for
    old_page_landings: (
        tuple[tuple[frozenset[str], frozenset[str]], dict[str, Target]] | None
    ) = None
    #: what this build's stubs and exports did (``_stubs.StubReport``), for the build's summary line
    stub_report: StubReport | None = None

    def forget_files(self) -> None:
        """Before a read phase: files may have come, gone or changed their suffix."""
        self.files = FileCache(self.settings.files_root)
        self.project = None
        self.sites = {}
        self.source_paths = {}
        self.texts = {}

    def project_of(self, env: BuildEnvironment, suffixes: tuple[str, ...]) -> Project:
        if self.project is None:
            self.project = Project(
                self.table,
                suffixes,
                self.settings.docs_prefix,
                env.found_docs.__contains__,
                self.files.is_file,
                self.files.is_folder,
            )
        return self.project

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


def state_of(app: Sphinx) -> BuildState:
    """The state of this application's builds."""
    state = _STATES.get(app)
    if state is None:
        state = _STATES[app] = BuildState()
    return state
