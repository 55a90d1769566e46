"""Rewrite link targets in source text from the relocation table.

The build fixes the built site; forge readers browse the Markdown itself, and files
outside the docs folder (READMEs) are never built.  This module fixes the sources:

* :class:`Rewriter` knows the table, the repository's files and documents and where
  the docs folder sits in the repository.  :meth:`Rewriter.new_target` takes a written
  target and where it was written (a ``_landing.Site``, its frame read from the file's
  text) and returns the new target, or ``None`` to leave it alone.  Where the target
  lands is the rule of ``_landing``, the build's own: a target is rewritten when it lands
  elsewhere than it reads from the file's folder now, so a plain build of the rewritten
  tree lands every link where the build with the extension did.
* ``_find.find_targets`` finds the target substrings of every link syntax in one file
  (Markdown, MyST, reST, raw HTML, own-repository URLs, optional path mentions); the
  rewriter replaces just those substrings (``textedit`` re-pads reST tables), so the
  diff shows only link targets.  A file whose rewrite could change how it parses is
  parsed before and after, and left as it is when it would parse worse.
* References to a renamed label (``[labels]``: ``:ref:``, ``:numref:``, ``:any:``, MyST's
  ``{ref}`` and ``[](#label)``) are rewritten by the build's rule too
  (``_landing.land_label``), against the labels written in the sources
  (:func:`project_labels`).
* :func:`list_repository` lists what git tracks (else :func:`walk_repository` walks the
  tree, skipping VCS and build folders, tools' caches, virtual environments, symlinks
  and anything but regular files);
  :func:`write_source` applies a change with a temp file and ``os.replace``, keeping
  the file's mode, encoding, BOM and newlines.

Nothing here imports Sphinx.
"""

from __future__ import annotations

import codecs
import dataclasses
import difflib
import json
import os
import posixpath
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Callable, Collection, Generator, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.html import attribute_value
from sphinx_relocate.core.ids import PLAIN_HEADINGS, Headings
from sphinx_relocate.core.landing import (
    UNDECIDED,
    Project,
    ReadAs,
    Site,
    Undecided,
    current_url_pattern,
    document_label,
    framed,
    land,
    land_label,
    lost_sidebar_key,
    moved_glob,
    repo_base,
    repository_reads_as,
    site_of,
    span_reads_as,
)
from sphinx_relocate.core.paths import (
    decode,
    join_relative,
    longest_first,
    relative_path,
    served_version,
    split_target,
    strip_source_suffix,
)
from sphinx_relocate.core.spans import (
    MARKDOWN_SUFFIXES,
    NOTEBOOK_SUFFIX,
    REST_SUFFIXES,
    SIDEBAR_SETTINGS,
    SPHINX_LABELS,
    anchors_in_source,
    external_toc_targets,
    find_targets,
    html_file_targets,
    labels_in,
    redirects_file_targets,
    role_around,
    shown_as_text,
    template_targets,
    title_in,
)
from sphinx_relocate.core.table import RelocationTable, normalize_label
from sphinx_relocate.core.textedit import SourceParser, apply_edits_checked

#: Folders never entered: build output, virtual environments, version control, tools'
#: caches.  Other dot-folders are read (``.github/``, ``.agents/skills/…/SKILL.md``).
SKIPPED_FOLDERS = frozenset({
    "_build", "build", "node_modules", "venv", "site-packages", "__pycache__",
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".hypothesis", ".eggs", ".cache", ".ipynb_checkpoints", ".direnv",
})

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
#: Characters kept as they are when an author's target was percent-encoded.
_SAFE = "/._-~!$&'()*+,;=:@"


@dataclass
class FileChange:
    """The new text of one file and how many targets of each syntax changed.

    The texts are empty when the caller asked only to count or write the changes.
    """

    path: str
    old_text: str
    new_text: str
    syntaxes: Counter[str] = field(default_factory=Counter)
    #: why writing the file failed, when it was to be written
    error: str | None = None
    #: it was to be written, and is read-only: left as it is
    read_only: bool = False
    #: targets left as written because they land on two targets and nothing decides
    ambiguous: tuple[str, ...] = ()
    #: references to renamed labels left as written: they may name a document too
    ambiguous_labels: tuple[str, ...] = ()
    #: why the file is left as it is: its rewrite would add this parse error
    refused: str | None = None
    #: each link rewritten, where it was written (kept when the texts are not)
    links: tuple[LinkEdit, ...] = ()
    #: toctree entries without a title whose page became a URL: left as written, since
    #: the toctree would show the bare URL and the old page's title is not known
    untitled: tuple[LinkEdit, ...] = ()
    #: MyST links left as written that name a label too, which MyST takes
    named: tuple[LinkEdit, ...] = ()
    #: site map entries left as written whose page became a URL (``Rewritten.unwritable``)
    unwritable: tuple[LinkEdit, ...] = ()
    #: docstring targets left as written that the table moves: relative, they are read
    #: from the page that documents them (``Rewritten.documented``)
    documented: tuple[LinkEdit, ...] = ()
    #: how the file is encoded on disk, for :func:`patch_of`
    encoding: str = "utf-8"
    bom: bytes = b""

    @property
    def changed(self) -> bool:
        return bool(self.syntaxes)


class LinkEdit(NamedTuple):
    """One rewritten link: where its target was written (line and column from 1, in
    characters) and what it becomes."""

    line: int
    column: int
    written: str
    new: str


def _fits_quotes(new: str, quote: str) -> bool:
    """Whether ``new`` can stand between ``quote`` characters (each of them, for a
    docstring, whose quote is not read here) as it is: in conf.py and a
    template a name is a string literal of code, where a quote or an escape would end it
    or change it (a page named ``a"b`` would write code into conf.py)."""
    return (not any(q in new for q in quote) and "\\" not in new and "\n" not in new
            and "\r" not in new)


def _link_edit(text: str, start: int, written: str, new: str) -> LinkEdit:
    line_start = text.rfind("\n", 0, start) + 1
    return LinkEdit(text.count("\n", 0, start) + 1, start - line_start + 1, written, new)


class Rewriter:
    """Computes new link targets for one repository and one table, by the rule of
    ``_landing`` (the build's), so a rewritten tree lands every link where the build of
    the unrewritten one did."""

    def __init__(
        self,
        table: RelocationTable,
        *,
        parser: SourceParser,
        docs_prefix: str,
        source_suffixes: Iterable[str],
        files: set[str],
        folders: set[str] | None = None,
        documents: set[str] | None = None,
        repo_url: str | None = None,
        mentions: bool = False,
        headings: Headings = PLAIN_HEADINGS,
        root: Path | None = None,
        labels: set[str] | None = None,
        moved: dict[str, str] | None = None,
        labels_by_document: bool = False,
        site_map: str = "",
        respell: bool | frozenset[str] = True,
        scripts: Mapping[str, str] | None = None,
        templates: Collection[str] = (),
        conf: str = "",
        docstrings: bool = False,
        extra_html: Mapping[str, str] | None = None,
        generated: Collection[str] = (),
        syntaxes: Collection[str] | None = None,
        redirects_file: str = "",
        site_url: str = "",
        default_role: str = "",
    ) -> None:
        #: the docs folder relative to the repository root: ``""`` or ending with ``/``
        self.docs_prefix = docs_prefix
        #: sphinx-gallery's example scripts (repository-relative) by the document each
        #: makes: their text blocks are reST written from that page
        self.scripts = scripts or {}
        #: the project's HTML templates (repository-relative), whose ``pathto('name')``
        #: names documents from the source folder
        self.templates = frozenset(templates)
        #: the project's conf.py (repository-relative; ``""``: none in the repository),
        #: whose ``html_sidebars`` keys name documents from the source folder
        self.conf = conf
        #: read the docstrings of the repository's Python files, which autodoc (or
        #: sphinx-autoapi) makes part of pages: their targets are written from the
        #: page that documents them, so only those from the top (``/…``) and labels
        #: can be rewritten
        self.docstrings = docstrings
        #: the HTML files ``html_extra_path`` copies (repository-relative), each with
        #: the folder of the output it is served from (``""``: the root), whose links
        #: are URLs of the built pages
        self.extra_html = extra_html or {}
        #: sphinx-external-toc's site map (``_toc.yml``), repository-relative; ``""``: none
        self.site_map = site_map
        #: the only kinds of target (``Span.syntax``) rewritten; ``None``: every kind
        #: (``mv --keep-links`` rewrites the peers' redirect targets alone)
        self.syntaxes = None if syntaxes is None else frozenset(syntaxes)
        #: sphinxext-rediraffe's redirects file (repository-relative; ``""``: none),
        #: whose targets name pages from the top of the source folder
        self.redirects_file = redirects_file
        #: rewrite a link that names a page by a source file it no longer has, which no
        #: table entry changes (``Landing.respelled``): ``rewrite`` does; ``mv``, which
        #: edits what its move changes, only for the pages whose suffix it changed (the
        #: docnames of this set)
        self.respell = respell
        self.table = table
        #: reads reST tables to re-pad them, and tells a file that parses worse
        self.parser = parser
        self.suffixes = longest_first(tuple(source_suffixes))
        self.files = files
        self.folders = folders if folders is not None else _folders_of(files)
        if documents is None:  # every source file in the docs folder
            documents = set()
            for path in files:
                if path.startswith(docs_prefix):
                    stem, had = strip_source_suffix(path[len(docs_prefix) :], self.suffixes)
                    if had:
                        documents.add(stem)
        self.documents = documents
        #: how MyST ids headings, and the repository on disk, to read pages' anchors
        self.headings = headings
        self.root = root
        #: files at their new path still at their old one (``mv`` plans every edit
        #: before it moves anything): read from there
        self.moved = moved or {}
        #: the project's labels, for ``[labels]`` (read from the sources when not given)
        self.labels: set[str] = set()
        if table.labels:
            self.labels = labels if labels is not None else (
                project_labels(root, docs_prefix, files, self.suffixes) if root else set()
            )
        #: every label, read once a MyST link needs them (:meth:`names_label`)
        self._every_label: set[str] | None = self.labels if table.labels else None
        #: section labels are ``page:section`` (``Settings.labels_by_document``)
        self.labels_by_document = labels_by_document
        #: references to labels may need a rewrite: renamed ones, or ones of moved pages
        self._label_references = bool(table.labels) or labels_by_document
        #: conf.py's ``default_role``: with ``any`` or ``doc``, `` `text <target>` `` names
        #: a page (``any``: or a label)
        self.default_role = default_role
        self.project = Project(
            table,
            self.suffixes,
            docs_prefix,
            documents.__contains__,
            files.__contains__,
            self.folders.__contains__,
            self.has_anchor,
            # the pages the builders write without a source (``Project.generated``)
            generated=frozenset(generated),
            root=Path(root).resolve().as_posix() if root else "",
        )
        # raw HTML gets its URL in the build before anchors are known: an anchor never
        # decides between its meanings there, so it does not here either
        self._raw_html_project = dataclasses.replace(
            self.project, has_anchor=lambda docname, anchor: None
        )
        self.repo_base = repo_base(repo_url) if repo_url else ""
        #: new targets by site, written target and how it is read (sibling pages share a
        #: site)
        self._cache: dict[tuple[Site, str, ReadAs, bool], str | Undecided | None] = {}
        self._sites: dict[str, Site] = {}
        self._anchors: dict[str, frozenset[str] | None] = {}
        self._titles: dict[str, str | None] = {}
        stop = r"\s<>()\[\]{}\"'`|"
        self._url_re = (
            re.compile(
                current_url_pattern(repo_url or "") + rf"([^{stop}]*[^{stop}.,;:!?])"
            )
            if self.repo_base
            else None
        )
        #: the published site (``html_baseurl``), whose URLs of moved pages the build
        #: sends on: rewritten the same way (:meth:`new_site_url`)
        self.site_url = site_url.rstrip("/")
        self._site_re = (
            re.compile("(" + re.escape(self.site_url) + rf"/[^{stop}]*[^{stop}.,;:!?])")
            if self.site_url else None
        )
        # a mention may be glued to CJK text: it starts where the docs folder's name
        # starts (after anything but a path character) and ends with a file's suffix,
        # else where a path's characters end
        cjk_stop = "，。；：、！？（）《》「」『』【】…"
        self._mention_re = (
            re.compile(
                r"(?<![A-Za-z0-9_./-])(" + re.escape(docs_prefix) + "(?:"
                + rf"[^{stop},;*{cjk_stop}]*?\.[A-Za-z][A-Za-z0-9]{{0,7}}(?![A-Za-z0-9])"
                + r"|[A-Za-z0-9_./-]*[A-Za-z0-9_/-]))"
            )
            if mentions and docs_prefix
            else None
        )

    # -- the one mechanism --------------------------------------------------------

    def new_target(
        self, written: str, site: Site, reads_as: ReadAs = "any", *, raw_html: bool = False
    ) -> str | Undecided | None:
        """The target to write instead of ``written``, or ``None`` to keep it;
        :data:`UNDECIDED` while its meaning waits for the site's frame (``framed``)."""
        key = (site, written, reads_as, raw_html)
        if key in self._cache:
            return self._cache[key]
        new = self._cache[key] = self._new_target(written, site, reads_as, raw_html)
        return new

    def _new_target(
        self, written: str, site: Site, reads_as: ReadAs, raw_html: bool
    ) -> str | Undecided | None:
        if not written or written.startswith(("#", "//")) or _SCHEME.match(written):
            return None
        path, query, fragment = split_target(written)
        if not path or (reads_as == "page" and any(c in path for c in "*?[")):
            return None
        project = self._raw_html_project if raw_html else self.project
        landing = land(written, reads_as, site, project)
        if landing is not None and landing.others:  # the frame did not decide, or is unread
            return UNDECIDED if site.frame is UNDECIDED else _AMBIGUOUS
        if landing is None or not landing.exists or not landing.changed:
            return None
        if not (landing.via_table or landing.folder) and not (
            self.respell is True or (self.respell and landing.target in self.respell)
        ):
            return None  # only its file's name is old
        if landing.lands_on == "url":
            return landing.target
        new_path = landing.target
        if landing.lands_on == "page":
            new_path = self.docs_prefix + landing.target + self._page_suffix(landing.target, path)
        if path.startswith("/"):
            root = site.root + "/" if site.root else ""
            text = "/" + (new_path[len(root) :] if new_path.startswith(root) else new_path)
        else:
            text = relative_path(site.folders[0], new_path)
            if path.startswith("./") and not text.startswith("../"):
                text = "./" + text
        if path.endswith("/") and not text.endswith("/"):
            text += "/"
        if _PERCENT.search(path):
            text = quote(text, safe=_SAFE)
        if landing.anchor == decode(fragment):
            frag_text = fragment
        else:
            frag_text = quote(landing.anchor, safe=_SAFE) if "%" in fragment else landing.anchor
        new = text + (f"?{query}" if query else "") + (f"#{frag_text}" if frag_text else "")
        if written.endswith("#") and not frag_text:
            new += "#"
        return None if new == written else new

    def new_site_url(self, url: str) -> str | None:
        """A URL of the published site (``html_baseurl``) of a page the table moved, as
        the build sends it on: the new page's URL, in the written spelling (``.html``,
        a ``dirhtml`` folder's ``/``, percent-encoded or not), fragment and query kept."""
        rest = url[len(self.site_url) + 1 :]
        root = self.docs_prefix.rstrip("/")
        version, current = served_version(rest, lambda name: name in self.documents or any(
            doc.startswith(name + "/") for doc in self.documents))
        if not current:
            return None  # a page of another version of the site: history
        rest = rest[len(version) :]
        path = split_target(rest)[0]
        tail = rest[len(path) :]
        site = Site((root,), root, 0)
        # a folder's URL (dirhtml's page/, or a folder's index) names its index first
        tries = [path + "index", path] if not path or path.endswith("/") else [path]
        for written in filter(None, tries):
            new = self.new_target("/" + written + tail, site, "page")
            if not isinstance(new, str) or new in (_AMBIGUOUS, _AMBIGUOUS_LABEL):
                continue
            if _SCHEME.match(new):  # the table sends the page to another site
                return new
            new_path = split_target(new)[0]
            if written != path and new_path.endswith("/index"):  # back to the folder's URL
                new = new_path[: -len("index")] + new[len(new_path) :]
            return self.site_url + ("/" + version[:-1] if version else "") + new
        return None

    def new_glob(self, pattern: str, site: Site, path: str) -> str | None:
        """A toctree's or a site map's glob in the file ``path``, read from the file's
        folder (from the top with ``/``) and moved as the build moves it
        (:func:`moved_glob`, among the documents but the page itself, as Sphinx's)."""
        root = self.docs_prefix.rstrip("/")
        folder = site.folders[0]
        if folder == root:
            folder = ""
        elif folder.startswith(self.docs_prefix):
            folder = folder[len(self.docs_prefix) :]
        else:
            return None  # not in the docs folder: no toctree of the build
        absolute = pattern.startswith("/")
        joined = pattern.lstrip("/") if absolute else posixpath.normpath(
            posixpath.join(folder, pattern)
        )
        page = strip_source_suffix(path[len(self.docs_prefix) :], self.suffixes)[0]
        moved = moved_glob(joined, self.table, self.documents - {page})
        if moved is None:
            return None
        return "/" + moved if absolute else relative_path(folder, moved)

    def new_label(
        self, written: str, syntax: str, path: str, text: str, bracketed: bool = False
    ) -> str | None:
        """The label target to write instead of ``written`` (a role's target, or a MyST
        link's ``#name``, ``bracketed`` in ``<…>`` or not) in the document ``path`` whose
        text is ``text``, or ``None`` to keep it; ``_AMBIGUOUS`` when it may name a
        document too (``:any:``, MyST links), as the build warns."""
        link = syntax not in ("ref", "any")
        name = decode(written[1:] if link and written.startswith("#") else written)
        renamed = normalize_label(name) in self.table.labels
        script = self.scripts.get(path)  # an example's text is reST of its page
        # a docstring's label means the same whichever page documents it
        documented = self._documented(path) and syntax in ("ref", "any")
        if (script is None and not documented and not path.startswith(self.docs_prefix)) or not (
            renamed or (
                self.labels_by_document and document_label(self.table, name, self._is_label)
            )
        ):
            return None
        page = script or ("" if documented else strip_source_suffix(
            path[len(self.docs_prefix) :], self.suffixes)[0])
        if link and not written.startswith("#") and join_relative(
            posixpath.dirname(path), name
        ) in self.files:
            return None  # MyST takes it for a file
        other = False
        if syntax != "ref":
            if link and name in anchors_in_source(text, path, self.headings):
                return None  # an anchor of the page itself: MyST links there
            if documented:  # an :any: may name a document from a page the sources do not say
                other = ".." in name or any(
                    doc == name or doc.endswith("/" + name) for doc in self.documents)
            else:
                other = join_relative(posixpath.dirname(page), name) in self.documents
        landing = land_label(self.table, name, self._is_label, other, self.labels_by_document)
        if landing is None:
            return None
        if landing.ambiguous:
            return _AMBIGUOUS_LABEL
        new = landing.label
        if not renamed:  # the page's new name, the section as the author wrote it
            new = new.partition(":")[0] + name[name.index(":") :]
        if link:
            new = "#" + new if written.startswith("#") else new
            if any(c.isspace() for c in new) and not bracketed:
                new = f"<{new}>"
        return None if new == written else new

    def _is_label(self, name: str) -> bool:
        """Whether ``name`` is a label of the project: written in the sources, or a
        section's ``page:section`` of a page that exists (``labels_by_document``)."""
        if name in self.labels:
            return True
        docname, colon, _ = name.partition(":")
        return self.labels_by_document and bool(colon) and docname in self.documents

    def _page_suffix(self, docname: str, written_path: str) -> str:
        """The suffix to write for a page: the author's kind of suffix, the new file's."""
        if written_path.endswith(".html"):
            return ".html"
        if not strip_source_suffix(decode(written_path), self.suffixes)[1]:
            return ""
        base = self.docs_prefix + docname
        for suffix in self.suffixes:
            if written_path.endswith(suffix) and base + suffix in self.files:
                return suffix
        for suffix in self.suffixes:
            if base + suffix in self.files:
                return suffix
        if self.root is not None:  # a page in no listing (autosummary's, git-ignored)
            return next(
                (sfx for sfx in self.suffixes if (self.root / (base + sfx)).is_file()), ""
            )
        return ""

    def has_anchor(self, docname: str, anchor: str) -> bool | None:
        """Whether a page has an anchor, from its source text (the build knows them from
        its doctrees; here, headings, labels and HTML ids stand for them)."""
        anchors = self._anchors.get(docname, frozenset({""}))
        if anchors == frozenset({""}):
            anchors = self._anchors[docname] = self._read_anchors(docname)
        if anchors is None:
            return None
        return anchor in anchors

    def _read_anchors(self, docname: str) -> frozenset[str] | None:
        for suffix in self.suffixes:
            path = self.docs_prefix + docname + suffix
            if path in self.files and self.root is not None:
                source = read_source(self.root / self.moved.get(path, path))
                if source is None:
                    return None
                return anchors_in_source(source.text, path, self.headings)
        return None

    def old_title(self, path: str, written: str) -> str | None:
        """The title of the deleted page a toctree entry of ``path`` names, from git."""
        if self.root is None or not path.startswith(self.docs_prefix):
            return None
        page = path[len(self.docs_prefix) :]
        name = written[1:] if written.startswith("/") else posixpath.join(
            posixpath.dirname(page), written
        )
        name = strip_source_suffix(posixpath.normpath(name), self.suffixes)[0]
        key = self.docs_prefix + name
        if key not in self._titles:
            candidates = [key + suffix for suffix in self.suffixes]
            self._titles[key] = deleted_page_title(self.root, candidates)
        return self._titles[key]

    # -- files -------------------------------------------------------------------

    def names_label(self, written: str, site: Site) -> bool:
        """Whether a MyST link the rule changes names a label too, which MyST takes: it
        names no page from its file's folder now, and a label has its name.

        The build leaves such a link to MyST and warns (``Checker._page_or_label``).
        """
        here = land(written, "page", site._replace(folders=site.folders[:1], frame=0),
                    self.project)
        if here is not None and here.exists and not here.changed:
            return False  # MyST finds the page itself
        if self._every_label is None:
            self._every_label = (
                project_labels(self.root, self.docs_prefix, self.files, self.suffixes)
                if self.root else set()
            )
        return normalize_label(decode(written)) in self._every_label

    def names_folder(self, written: str, site: Site) -> bool:
        """Whether a MyST link lands on a folder: MyST links no folder, and takes the
        label of its name in the old layout as in the new one (JupyterHub's changelog,
        moved a folder deeper, links ``[x](rbac)``, the label at the top of
        ``rbac/index``), which the build leaves as it is without a word."""
        landing = land(written, "any", site, self.project)
        return (landing is not None and landing.lands_on == "file"
                and self.project.is_folder(landing.target))

    @property
    def named_files(self) -> frozenset[str]:
        """The files read in a syntax of their own: the site map, the example scripts,
        the templates, conf.py, rediraffe's redirects file and the HTML files of
        ``html_extra_path``."""
        return frozenset({
            self.site_map, self.conf, self.redirects_file, *self.scripts, *self.templates,
            *self.extra_html,
        } - {""})

    def _documented(self, path: str) -> bool:
        """Whether ``path`` is read for its docstrings (:attr:`docstrings`)."""
        return (self.docstrings and path.endswith(".py") and path != self.conf
                and path not in self.scripts)

    def site_of(self, path: str) -> Site:
        """The :class:`Site` of targets written in the repository file ``path`` (a moved
        page's frame is read from its text when a link first needs it)."""
        site = self._sites.get(path)
        if site is not None:
            return site
        page, had = (None, False)
        if path in self.extra_html:  # from the folder of the output it is served from
            folder = self.docs_prefix.rstrip("/")
            served = posixpath.join(folder, self.extra_html[path]).rstrip("/")
            site = self._sites[path] = Site((served,), folder, 0)
            return site
        if (path in (self.site_map, self.conf, self.redirects_file) or path in self.templates
                or self._documented(path)):  # from the top
            folder = self.docs_prefix.rstrip("/")
            site = self._sites[path] = Site((folder,), folder, 0)
            return site
        if path in self.scripts:
            page, had = self.scripts[path], True
        elif path.startswith(self.docs_prefix):
            page, had = strip_source_suffix(path[len(self.docs_prefix) :], self.suffixes)
        if had and page is not None:
            site = site_of(page, self.project)
        else:  # outside the docs (a README): written from where it is, "/" from the root
            site = Site((posixpath.dirname(path),), "", 0)
        self._sites[path] = site
        return site

    def rewrite_text(self, path: str, text: str) -> Rewritten:
        """The new text of the repository file ``path``, what was rewritten and left."""
        if path == self.site_map:
            spans = external_toc_targets(text)
        elif path in self.templates:
            spans = template_targets(text)
        elif path in self.extra_html:
            spans = html_file_targets(text)
        elif path == self.redirects_file:
            spans = redirects_file_targets(text)
        elif path == self.conf:  # and, with --mentions, what any .py file is read for
            mentions = self._mention_re is not None
            spans = find_targets(text, path, self._url_re if mentions else None,
                                 self._mention_re, conf=True)
        else:
            spans = find_targets(
                text, path, self._url_re, self._mention_re, site_re=self._site_re,
                labels=self._label_references, script=path in self.scripts,
                docstrings=self._documented(path), default_role=self.default_role,
                any_role=True,
            )
        if self.syntaxes is not None:
            spans = [span for span in spans if span.syntax in self.syntaxes]
        syntaxes: Counter[str] = Counter()
        if not spans:
            return Rewritten(text, syntaxes)
        edits: list[tuple[int, int, str]] = []
        ambiguous: list[str] = []
        ambiguous_labels: list[str] = []
        named: list[LinkEdit] = []
        links_rewritten: list[LinkEdit] = []
        untitled: list[LinkEdit] = []
        unwritable: list[LinkEdit] = []
        documented: list[LinkEdit] = []
        markup = False
        docstrings = self._documented(path)
        site = self.site_of(path)
        # a MyST link may name a label: [](#old-label)
        suffix = posixpath.splitext(path)[1].lower()
        notebook = suffix == NOTEBOOK_SUFFIX  # spans in its Markdown cells' JSON strings
        markdown = suffix in MARKDOWN_SUFFIXES or notebook
        links = self._label_references and markdown
        for span in spans:
            written = text[span.start : span.end]
            new: str | Undecided | None = None
            if span.mode == "label" or (links and span.syntax in ("link", "reference")):
                bracketed = text[span.start - 1 : span.start] == "<"
                new = self.new_label(written, span.syntax, path, text, bracketed)
                if new is None and span.syntax == "any":
                    # the document it names, which the role tries first (as the build):
                    # only one the table moved; else a label's or an object's name
                    new = self.new_target(written, site, "page")
                    if new is UNDECIDED:
                        site = self._sites[path] = framed(site, text, path, self.project)
                        new = self.new_target(written, site, "page")
                    if isinstance(new, str) and _SCHEME.match(new):
                        new = None  # a URL is no role's target: left, as the build does
            if span.mode == "glob":
                new = self.new_glob(written, site, path)
            elif new is None and span.mode == "repo":
                new = self.new_target("/" + written, _REPO_SITE, repository_reads_as(
                    split_target(written)[0], self.project))
                new = new[1:] if isinstance(new, str) and new.startswith("/") else new
            elif new is None and span.mode == "site":
                new = self.new_site_url(written)
            elif new is None and span.mode != "label":
                reads_as, raw_html = span_reads_as(span), span.syntax == "html"
                new = self.new_target(written, site, reads_as, raw_html=raw_html)
                if docstrings and not written.startswith("/"):
                    if isinstance(new, str) and new not in (_AMBIGUOUS, _AMBIGUOUS_LABEL):
                        documented.append(_link_edit(text, span.start, written, new))
                    continue
                if new is UNDECIDED:  # the first link with two meanings: read the frame
                    site = self._sites[path] = framed(site, text, path, self.project)
                    new = self.new_target(written, site, reads_as, raw_html=raw_html)
                if (
                    isinstance(new, str) and markdown and span.syntax == "link"
                    and new not in (_AMBIGUOUS, _AMBIGUOUS_LABEL)
                    and self.names_label(written, site)
                ):
                    if not self.names_folder(written, site):
                        named.append(_link_edit(text, span.start, written, new))
                    continue
            assert new is not UNDECIDED  # asked again once the frame was read
            if new is _AMBIGUOUS:
                ambiguous.append(written)
            elif new is _AMBIGUOUS_LABEL:
                ambiguous_labels.append(written)
            elif span.syntax in SIDEBAR_SETTINGS:  # a page name or a pattern of them
                if new is not None and any(
                    k.syntax == span.syntax and text[k.start : k.end] == new for k in spans
                ):
                    continue  # conf.py has a key for the new name already, which wins
                if new is None or _SCHEME.match(new) or "#" in new:
                    lost = lost_sidebar_key(written, self.table, self.documents)
                    if lost is not None:
                        unwritable.append(_link_edit(text, span.start, written, lost))
                    continue
                if not _fits_quotes(new, text[span.start - 1]):  # conf.py is code
                    unwritable.append(_link_edit(text, span.start, written, repr(new)))
                    continue
                links_rewritten.append(_link_edit(text, span.start, written, new))
                edits.append((span.start, span.end, new))
                syntaxes[span.syntax] += 1
            elif new is not None and docstrings and not _fits_quotes(new, "'\""):
                # a docstring is a string literal of code: a quote or an escape in the
                # new target would end it or change it
                unwritable.append(_link_edit(text, span.start, written, repr(new)))
            elif new is not None and span.syntax in (
                "pathto", "hasdoc", "rediraffe_redirects", "redirects"
            ):
                # in a string literal of code (a template, conf.py), or a path of
                # rediraffe's file, in quotes or bare (no space, no quote); a page name
                # only (rediraffe's stub sends readers to a page, never to a URL or a
                # section), but for sphinx-reredirects' target, a URL
                before = text[span.start - 1 : span.start]
                quote = before if before in ("'", '"') else " \t'\""
                page_only = span.syntax != "redirects"
                if ((page_only and (_SCHEME.match(new) or "#" in new))
                        or not _fits_quotes(new, quote)):
                    unwritable.append(_link_edit(text, span.start, written, new))
                    continue
                links_rewritten.append(_link_edit(text, span.start, written, new))
                edits.append((span.start, span.end, new))
                syntaxes[span.syntax] += 1
            elif new is not None and span.syntax == "external-toc":
                if _SCHEME.match(new):  # a file: entry names no URL
                    unwritable.append(_link_edit(text, span.start, written, new))
                    continue
                links_rewritten.append(_link_edit(text, span.start, written, new))
                edits.append((span.start, span.end, _yaml_scalar(new, text[span.start - 1])))
                syntaxes[span.syntax] += 1
            elif (
                new is not None and span.syntax == "toctree" and _SCHEME.match(new)
                and text[span.start - 1 : span.start] != "<"
            ):  # a toctree shows a URL by its title: the old page's, if git has it
                title = self.old_title(path, written)
                if title is None:  # not known: the author writes one
                    untitled.append(_link_edit(text, span.start, written, new))
                    continue
                entry = f"{title} <{new}>"
                links_rewritten.append(_link_edit(text, span.start, written, entry))
                edits.append((span.start, span.end, entry))
                syntaxes[span.syntax] += 1
                markup = True
            elif new is not None:
                links_rewritten.append(_link_edit(text, span.start, written, new))
                role = role_around(text, span) if _SCHEME.match(new) else None
                autolink = text.rfind("<", 0, span.start) if _SCHEME.match(new) else -1
                if role is not None:  # a role cannot name a URL: the same text, as a link
                    title = role.title or written
                    link = f"[{title}]({new})" if role.myst else f"`{title} <{new}>`__"
                    edits.append((role.start, role.end, link))
                elif (
                    autolink >= 0 and text[autolink : span.start] in ("<project:", "<path:")
                    and text.startswith(">", span.end)
                ):  # <project:old.md> of a page that became a URL: <https://…>
                    edits.append((autolink, span.end + 1, f"<{new}>"))
                elif span.syntax == "html":  # an attribute's value: a quote in it is data
                    quote = text[span.start - 1 : span.start]  # (the rest is the source's)
                    edits.append((span.start, span.end, attribute_value(
                        new, quote if quote in "\"'" else "", ampersands=False)))
                elif (shown := shown_as_text(text, span)) is not None:
                    # the written target is the text readers see: it stays, as a title
                    if shown == "download":
                        edits.append((span.start, span.end, f"{written} <{new}>"))
                    else:  # `<old>`_ → `old <new>`_
                        edits.append((span.start - 1, span.end, f"{written} <{new}"))
                    markup = True
                else:
                    edits.append((span.start, span.end, new))
                syntaxes[span.syntax] += 1
                markup = markup or bool(_MARKUP.search(new))
        rest = suffix in (*REST_SUFFIXES, ".txt")
        if notebook:  # each new target written as the inside of a JSON string
            edits = [(start, end, json.dumps(new, ensure_ascii=False)[1:-1])
                     for start, end, new in edits]
        new_text, unpadded = apply_edits_checked(
            text, edits, read_table=self.parser.read_table if rest else None
        )
        # a table the re-padding did not recognise is spliced as is: check it too
        tables = rest and bool(edits) and bool(_REST_TABLE.search(text))
        return Rewritten(
            new_text, syntaxes, tuple(ambiguous), markup or tables or bool(unpadded),
            tuple(ambiguous_labels), tuple(links_rewritten), tuple(untitled), tuple(named),
            tuple(unwritable), tuple(documented),
        )


class Rewritten(NamedTuple):
    """The rewrite of one file's text."""

    text: str
    #: how many targets of each syntax (``Span.syntax``) changed
    syntaxes: Counter[str]
    #: targets left as written because they land on two targets and nothing decides
    ambiguous: tuple[str, ...] = ()
    #: an edit may change how the file parses (a new target with markup characters, a
    #: table that could not be re-padded): parse it before writing
    suspect: bool = False
    #: references to renamed labels left as written: they may name a document too
    ambiguous_labels: tuple[str, ...] = ()
    #: each link rewritten, where it was written
    links: tuple[LinkEdit, ...] = ()
    #: toctree entries without a title whose page became a URL, left as written
    untitled: tuple[LinkEdit, ...] = ()
    #: MyST links left as written that name a label too, which MyST takes
    #: (:meth:`Rewriter.names_label`), with the page they would go to
    named: tuple[LinkEdit, ...] = ()
    #: site map entries left as written whose page became a URL, which a ``file:``
    #: entry cannot name
    unwritable: tuple[LinkEdit, ...] = ()
    #: targets of docstrings left as written that the table moves when they are read
    #: from the top of the docs: written relative, they are read from the folder of
    #: whichever page documents them, which the sources do not say
    documented: tuple[LinkEdit, ...] = ()


#: a new site map entry that reads as the same string unquoted in YAML ...
_YAML_PLAIN = re.compile(r"""[^\s"'#,{}\[\]&*!|>%@`?:-][^\s"'#,{}\[\]:]*""")
#: ... unless YAML reads it as a boolean, a null or a number (``yes``, ``~``, ``2024``)
_YAML_NOT_STRING = re.compile(
    r"(?i)[yn]|yes|no|true|false|on|off|null|~|[-+.\d][\d_:.e+-]*|[-+]?\.(?:inf|nan)|=|<<"
)


def _yaml_scalar(new: str, quote: str) -> str:
    """``new`` as the inside of a YAML scalar quoted by ``quote`` (``"``, ``'``, or
    another character before a plain one, which gets double quotes when it needs them)."""
    if quote == "'":
        return new.replace("'", "''")
    if quote == '"':
        return json.dumps(new, ensure_ascii=False)[1:-1]
    if _YAML_PLAIN.fullmatch(new) and not _YAML_NOT_STRING.fullmatch(new):
        return new
    return json.dumps(new, ensure_ascii=False)


#: characters of a new target that are markup in Markdown, reST or HTML; a target made
#: of others replaces a target in the same place without changing how the file parses
_MARKUP = re.compile(r"""[\s()\[\]{}<>`\\|*"']""")
#: a border of a reST grid table or a column rule of a simple table
_REST_TABLE = re.compile(r"^[ \t]*(?:\+[-=]+\+|=+[ \t]+=+)", re.MULTILINE)


#: what :meth:`Rewriter.new_target` answers for a target with two meanings;
#: :meth:`Rewriter.new_label` for a label reference that may name a document too
_AMBIGUOUS = "\0ambiguous"
_AMBIGUOUS_LABEL = "\0ambiguous label"
_REPO_SITE = Site(("",), "", 0)


def deleted_page_title(root: Path, paths: Iterable[str]) -> str | None:
    """The title of a page that is gone, read from the last version git has of it
    (``paths``: its possible sources, relative to ``root``), so that a toctree entry
    sent to a URL can show it; ``None`` when git has no such file (or no title that a
    toctree entry can hold)."""
    from sphinx_relocate.core.git import GitError, GitMissing, git

    for path in paths:
        try:
            commit = git(["rev-list", "-n", "1", "HEAD", "--", path], root).decode().strip()
        except (GitError, GitMissing, OSError):
            return None  # not a git work tree
        for revision in (commit, commit + "^") if commit else ():
            try:
                data = git(["show", f"{revision}:./{path}"], root)
            except (GitError, GitMissing, OSError):
                continue
            title = title_in(data.decode("utf-8-sig", "replace"), path)
            if title is None or "<" in title or ">" in title or "`" in title:
                return None
            return title
    return None


def _folders_of(files: Iterable[str]) -> set[str]:
    """Every folder that holds one of ``files``."""
    folders: set[str] = set()
    for path in files:
        folder = posixpath.dirname(path)
        while folder and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    return folders



# -- files on disk -----------------------------------------------------------------


@dataclass
class SourceFile:
    """A text file as read: its text and how to write it back byte for byte."""

    text: str
    encoding: str
    bom: bytes


def read_source(path: Path) -> SourceFile | None:
    """Read a text file; ``None`` for binary or undecodable files, and for anything but a
    regular file (opened without blocking, so a FIFO named ``*.md`` cannot hang us)."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return None
        data = stream.read()
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            try:
                return SourceFile(data[len(bom) :].decode(encoding), encoding, bom)
            except UnicodeDecodeError:
                return None
    if b"\0" in data[:8192]:
        return None
    try:
        return SourceFile(data.decode("utf-8"), "utf-8", b"")
    except UnicodeDecodeError:
        return None


def write_source(path: Path, source: SourceFile, text: str) -> None:
    """Replace the source file ``path`` with ``text`` in the file's encoding and BOM, in one
    step (:func:`~sphinx_relocate.core.files.write_atomically`: mode and owner kept).

    Text is never newline-translated, so ``\\r\\n`` files stay ``\\r\\n``.
    """
    write_atomically(path, source.bom + text.encode(source.encoding))


def read_only(path: Path) -> bool:
    """Whether ``path`` is meant to be left alone: no write permission for anyone, or
    none for this process (root may write anything: the mode decides then)."""
    mode = os.stat(path).st_mode
    return not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
        path, os.W_OK
    )


def project_labels(
    root: Path, docs_prefix: str, files: Iterable[str], suffixes: Iterable[str]
) -> set[str]:
    """The labels of a docs folder without a build: those written in its source files
    (include fragments too), plus the ones Sphinx makes in every project."""
    wanted = {*suffixes, *MARKDOWN_SUFFIXES, *REST_SUFFIXES, ".txt"}
    found = set(SPHINX_LABELS)
    for path in files:
        if path.startswith(docs_prefix) and posixpath.splitext(path)[1].lower() in wanted:
            try:
                source = read_source(root / path)
            except OSError:
                continue
            if source is not None:
                found |= labels_in(source.text)
    return found


def list_repository(root: Path) -> tuple[list[str], set[str]]:
    """Every file (repository-relative, sorted) and folder to consider under ``root``:
    what git tracks or would track (dot-folders such as ``.github`` included, ignored
    files left out) in a git work tree, else :func:`walk_repository`."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
             "--exclude-standard", "--full-name", "."],
            capture_output=True, check=True, timeout=120,
        ).stdout
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-prefix"],
            capture_output=True, check=True, timeout=60, text=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return walk_repository(root)
    files: list[str] = []
    for raw in sorted(set(listed.split(b"\0"))):
        name = os.fsdecode(raw)
        if not name or not name.startswith(top):
            continue
        rel = name[len(top) :]
        full = root / rel
        # a tracked file moved away with a plain mv is gone; a link is not followed
        if not os.path.islink(full) and full.is_file():
            files.append(rel)
    return files, _folders_of(files)


def walk_repository(root: Path) -> tuple[list[str], set[str]]:
    """Every regular file (repository-relative, sorted) and folder under ``root``.

    Skips :data:`SKIPPED_FOLDERS` (version control, tools' caches), build output (a
    folder with Sphinx's ``.buildinfo``), virtual environments, symlinks and anything
    but regular files (a FIFO would block the read), so nothing outside the root is read,
    nothing is read twice and nothing hangs.
    """
    files: list[str] = []
    folders: set[str] = set()
    root_text = str(root)
    for current, dirnames, filenames in os.walk(root_text):
        rel = os.path.relpath(current, root_text).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        kept = []
        for name in dirnames:
            full = os.path.join(current, name)
            if name in SKIPPED_FOLDERS or os.path.islink(full):
                continue
            if any(os.path.exists(os.path.join(full, mark))
                   for mark in ("pyvenv.cfg", ".buildinfo")):
                continue
            kept.append(name)
            folders.add(rel + name)
        dirnames[:] = sorted(kept)
        for name in filenames:
            try:
                mode = os.lstat(os.path.join(current, name)).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                files.append(rel + name)
    files.sort()
    return files, folders


def candidate_files(
    files: Iterable[str], docs_prefix: str, suffixes: Iterable[str], python: bool,
    named: Collection[str] = (),
) -> list[str]:
    """The files whose text may hold links: Markdown and reST anywhere, docs sources,
    Python files when ``python`` (for ``--mentions``, and for their docstrings:
    :attr:`Rewriter.docstrings`), and the files the rewriter reads in a syntax of their
    own whatever their suffix (``named``: :attr:`Rewriter.named_files`)."""
    wanted = {*MARKDOWN_SUFFIXES, *REST_SUFFIXES}
    if python:
        wanted.add(".py")
    docs_suffixes = set(suffixes)
    chosen = []
    for path in files:
        suffix = posixpath.splitext(path)[1].lower()
        if (suffix in wanted or (suffix in docs_suffixes and path.startswith(docs_prefix))
                or path in named):
            chosen.append(path)
    return chosen


#: Trees with at least this many candidate files are split among worker processes.
PARALLEL_FILES = 1000
#: Files per task handed to a worker: enough that passing them around costs little.
_CHUNK = 100

_worker: tuple[Rewriter, Path, bool, bool] | None = None


def rewrite_files(
    rewriter: Rewriter,
    root: Path,
    paths: list[str],
    progress: Callable[[int, int], None] | None = None,
    *,
    write: bool = False,
    with_text: bool = True,
) -> Generator[FileChange, None, None]:
    """The change of every file in ``paths`` that has links to rewrite, in path order;
    each is written (atomically) too when ``write``.  Without ``with_text`` the changes
    carry no texts, which then need not travel back from the workers.

    Every file is read, rewritten and written independently of the others, so a large
    tree is split among one worker process per CPU.
    """
    workers = min(_usable_cpus(), 8)
    if workers < 2 or len(paths) < PARALLEL_FILES:
        for number, rel in enumerate(paths, 1):
            if progress is not None:
                progress(number, len(paths))
            change = rewrite_file(rewriter, root, rel, write, with_text)
            if change is not None:
                yield change
        return
    chunks = [paths[start : start + _CHUNK] for start in range(0, len(paths), _CHUNK)]
    pool = ProcessPoolExecutor(workers, initializer=_start_worker,
                               initargs=(rewriter, root, write, with_text))
    try:
        done = 0
        for changes, count in pool.map(_rewrite_chunk, chunks):
            done += count
            if progress is not None:
                progress(done, len(paths))
            yield from changes
    finally:  # on an error (or an interrupt) no further file is written
        pool.shutdown(wait=True, cancel_futures=True)


def _usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # the CPUs this process may run on (Linux)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def rewrite_file(
    rewriter: Rewriter, root: Path, rel: str, write: bool, with_text: bool = True
) -> FileChange | None:
    """The change of one file (written when ``write``), ``None`` when it has none."""
    try:
        source = read_source(root / rewriter.moved.get(rel, rel))
    except OSError:
        return None
    if source is None:
        return None
    rewritten = rewriter.rewrite_text(rel, source.text)
    new_text, syntaxes, links = rewritten.text, rewritten.syntaxes, rewritten.links
    if new_text == source.text and not (
        rewritten.ambiguous or rewritten.ambiguous_labels or rewritten.untitled
        or rewritten.named or rewritten.unwritable or rewritten.documented
    ):
        return None
    suspect = rewritten.suspect
    broken = rewriter.parser.adds_parse_errors(source.text, new_text, rel) if suspect else []
    if broken:  # never hand back a file that parses worse: leave it as it is
        line, message = broken[0]
        refused = f"line {line}: {message.splitlines()[0]}" if line else message.splitlines()[0]
        new_text, syntaxes, links = source.text, Counter(), ()
    else:
        refused = None
    text_of = (lambda text: text) if with_text else (lambda text: "")
    change = FileChange(
        rel, text_of(source.text), text_of(new_text), syntaxes,
        ambiguous=rewritten.ambiguous, ambiguous_labels=rewritten.ambiguous_labels,
        refused=refused, links=links, untitled=rewritten.untitled, named=rewritten.named,
        unwritable=rewritten.unwritable, documented=rewritten.documented,
        encoding=source.encoding, bom=source.bom,
    )
    if write and new_text != source.text:
        try:
            if read_only(root / rel):
                change.read_only = True
            else:
                write_source(root / rel, source, new_text)
        except OSError as err:
            change.error = str(err.strerror or err)
    return change


def patch_of(change: FileChange) -> bytes | None:
    r"""The change as a unified diff that ``git apply`` and ``patch -p1`` accept, in the
    file's own bytes; ``None`` for a file not in UTF-8 (UTF-16), which no text patch can
    show.

    Lines are split at ``\n`` only, as both tools split them (a ``\r\n`` file keeps its
    ``\r``, a form feed or U+2028 splits nothing); a last line without a line break gets
    ``\ No newline at end of file``; a BOM stays in the first line, where it is on disk.
    """
    if change.encoding != "utf-8":
        return None
    lead = change.bom.decode("utf-8")
    lines = difflib.unified_diff(
        _patch_lines(lead + change.old_text),
        _patch_lines(lead + change.new_text),
        f"a/{change.path}",
        f"b/{change.path}",
    )
    parts = []
    for line in lines:
        parts.append(line)
        if not line.endswith("\n"):
            parts.append("\n\\ No newline at end of file\n")
    return "".join(parts).encode("utf-8", "surrogateescape")


def _patch_lines(text: str) -> list[str]:
    r"""``text`` in lines ending with ``\n`` (the last one maybe without)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def _start_worker(rewriter: Rewriter, root: Path, write: bool, with_text: bool) -> None:
    global _worker
    _worker = (rewriter, root, write, with_text)


def _rewrite_chunk(paths: list[str]) -> tuple[list[FileChange], int]:
    assert _worker is not None
    rewriter, root, write, with_text = _worker
    changes = [rewrite_file(rewriter, root, rel, write, with_text) for rel in paths]
    return [c for c in changes if c is not None], len(paths)
