"""Where a written reference lands: the one rule, shared by the build and ``rewrite``.

The build (``_resolve.py``) and the source rewriter (``_rewrite.py``) each describe
the project to this module (:class:`Project`: which documents, files and anchors
exist, and the table) and ask it where a written target lands (:func:`land`).  Neither
keeps a landing order, a page-name rule or a list of old folders of its own, so they
cannot disagree.  Paths are POSIX and relative to the repository root, so a link that
leaves the docs folder and comes back in (``../zh/page.md`` from ``docs/zh/``) is the
same path as one that never left.

From one folder, a written path lands on, in this order:

1. the document it names, if there is one (an ``[anchors]`` entry for the document, or
   one of its old names, moves the fragment);
2. the file it names, if there is one;
3. the document the table moves it to (``[pages]``, ``[prefixes]``, chains followed);
4. the file the table moves it to (``[files]``, ``[prefixes]``);
5. the folder it names (only for links that may name a file).

A moved page was written from another folder than the one it stands in.  Its
references are tried from each of its folders (now, then every old one), and
:func:`frame_of` decides the page's *frame*, the folder its author wrote it from: each
reference that lands from only one folder votes for it.  A reference that lands from
several folders on different targets follows the frame; with no frame (a tie) an
anchor that exists on only one candidate decides; what is left is ambiguous and is
reported, never guessed.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

from sphinx_relocate.core.ids import make_id
from sphinx_relocate.core.paths import (
    REPO_URL_REF,
    SIDEBAR_WILDCARDS,
    decode,
    forge_files_url,
    join_relative,
    leaves_root,
    longest_first,
    sphinx_pattern,
    split_target,
    strip_source_suffix,
)
from sphinx_relocate.core.table import RelocationTable, Target, normalize_label

if TYPE_CHECKING:
    from sphinx_relocate.core.spans import Span

#: How a written target is read: as a document (toctree entry, ``:doc:``), a file (image,
#: include, download) or either (a Markdown, reST or raw HTML link).
ReadAs = Literal["page", "file", "any"]

#: a URL with a scheme (``https:``, ``mailto:``) or a protocol-relative one
EXTERNAL = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
#: extensions that make a link target a file rather than a page or a label
FILE_LIKE = re.compile(
    r"\.(?:html?|png|jpe?g|gif|svg|webp|ico|pdf|csv|tsv|txt|md|markdown|rst|json|ya?ml|toml|"
    r"ini|cfg|py|ipynb|"
    r"sh|zip|gz|tgz|tar|xlsx?|docx?|pptx?|mp4|webm|mp3|ogg|drawio)$",
    re.IGNORECASE,
)


def repo_base(url: str) -> str:
    """``https://host/org/repo`` from a repository URL, with or without ``blob/REF/``."""
    url = url.strip().rstrip("/")
    match = re.match(r"^(.*?)/(?:-/)?(?:blob|tree|raw|edit)/[^/]+(?:/.*)?$", url)
    base = match.group(1) if match else url
    return base[:-4] if base.endswith(".git") else base


def forge_url(repo_url: str, path: str) -> str:
    """The forge URL of a file or folder of the repository (``path`` from its root).

    A ``repo_url`` that names no ref (``https://github.com/org/repo``) gets the default
    branch's, ``HEAD``: the bare repository URL followed by a path is no page of a forge.
    """
    url = repo_url.strip()
    if not re.search(REPO_URL_REF, url.rstrip("/") + "/"):
        url = forge_files_url(repo_base(url), "HEAD")
    return url.rstrip("/") + "/" + path


#: default branch names that stand for each other: a forge sends the old name's URLs to
#: the new one after a rename (``master`` → ``main``)
_DEFAULT_BRANCHES = ("main", "master")


def current_refs(repo_url: str) -> tuple[str, ...]:
    """The refs whose forge URLs name today's tree: the branch ``relocate_repo_url``
    names, the other default branch name when it is ``main`` or ``master`` (both when
    it names none), and ``HEAD``.  A URL on any other ref (a tag, a release branch) is
    history, left alone."""
    match = re.match(r"^.*?/(?:-/)?(?:blob|tree|raw|edit)/([^/]+)", repo_url.strip())
    branch = match.group(1) if match else ""
    if not branch or branch in _DEFAULT_BRANCHES:
        return (*_DEFAULT_BRANCHES, "HEAD")
    return (branch, "HEAD")


#: a GitHub repository, whose files are also served from its raw host
_GITHUB = re.compile(r"^https?://(?:www\.)?github\.com/([^/]+/[^/]+)$", re.IGNORECASE)


@functools.lru_cache(maxsize=8)
def current_url_pattern(repo_url: str) -> str:
    """The start of a URL of a file of the repository on today's tree (the refs of
    :func:`current_refs`): the forge's ``…/blob/REF/`` (``tree``, ``raw``, ``edit``,
    GitLab's ``/-/``), and for GitHub its raw host's
    ``https://raw.githubusercontent.com/ORG/REPO/REF/``, which READMEs and docs link
    files by as often.  A URL on any other ref (a tag, a release branch) is history.
    Cached: the build asks it for every absolute URL, always of the same repository."""
    refs = "|".join(re.escape(ref) for ref in current_refs(repo_url))
    base = repo_base(repo_url)
    pattern = re.escape(base) + rf"/(?:-/)?(?:blob|tree|raw|edit)/(?:{refs})/"
    github = _GITHUB.match(base)
    if github:
        raw = rf"https://raw\.githubusercontent\.com/{re.escape(github.group(1))}/"
        pattern = rf"(?:{pattern}|{raw}(?:refs/heads/)?(?:{refs})/)"
    return pattern


def repository_path(url: str, repo_url: str) -> str | None:
    """The path in the repository that a URL of its file on today's tree names
    (:func:`current_url_pattern`), ``None`` for any other URL."""
    match = re.match(current_url_pattern(repo_url), url)
    return url[match.end() :] if match else None


@dataclass
class Project:
    """What the rule needs to know of a project; the build and ``rewrite`` each make one.

    ``is_file`` and ``is_folder`` take repository-relative paths; ``has_anchor`` answers
    ``None`` while it cannot know yet (the build, before every document is read).
    """

    table: RelocationTable
    suffixes: tuple[str, ...]
    #: the source folder within the repository: ``""`` or ``"docs/zh/"``
    docs_prefix: str
    is_document: Callable[[str], bool]
    is_file: Callable[[str], bool]
    is_folder: Callable[[str], bool]
    has_anchor: Callable[[str, str], bool | None] = lambda docname, anchor: None
    #: the pages the HTML builders write without a source (``genindex``, ``search``, the
    #: domain indices, ``html_additional_pages``), which a link names by their URL
    #: (``../genindex.html``); a moved page's such link is read from its old folder too
    generated: Collection[str] = ()
    #: called with ``("page", docname, fragment)`` and ``("file", path, "")`` for every
    #: name the rule looks up, so the build re-reads a document when their answer changes
    #: (set once, by :meth:`recording`)
    on_lookup: Callable[[tuple[str, str, str]], None] | None = None
    #: the absolute folder repository paths are relative to, for a path that leaves it
    #: and comes back in through its name (:meth:`back_inside`); ``""`` where paths are
    #: the file system's (the build's)
    root: str = ""
    _anchor_keys: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    #: docname → whether an ``[anchors]`` entry is keyed by one of its names
    _moves_anchors: dict[str, bool] = field(default_factory=dict, repr=False)
    #: docname → the pages of ``[anchors]`` keys that the table sends to it
    _anchor_pages: dict[str, list[str]] | None = field(default=None, repr=False)
    #: the table's answers, asked once each: ("page", docname, fragment) or ("file",
    #: path, ""), under this project's documents and files (which do not change under it)
    _located: dict[tuple[str, str, str], Target | None] = field(
        default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        self.suffixes = longest_first(tuple(self.suffixes))
        is_file, prefix = self.is_file, self.docs_prefix
        #: whether a path relative to the source folder is a file: one callable for
        #: the life of the project (the table remembers its walks under it)
        self._is_docs_file: Callable[[str], bool] = lambda path: is_file(prefix + path)

    def locate_reference(self, docname: str, fragment: str) -> Target | None:
        """Where the table sends ``docname#fragment`` (:meth:`RelocationTable.locate_reference`)."""
        key = ("page", docname, fragment)
        located = self._located
        if key in located:
            return located[key]
        found = located[key] = self.table.locate_reference(docname, fragment, self.is_document)
        return found

    def locate_file(self, docs_path: str) -> Target | None:
        """Where the table sends a file (:meth:`RelocationTable.locate_file`)."""
        key = ("file", docs_path, "")
        located = self._located
        if key in located:
            return located[key]
        found = located[key] = self.table.locate_file(docs_path, self._is_docs_file)
        return found

    def back_inside(self, repo_path: str) -> str | None:
        """The repository path of a path that leaves the repository and comes back in
        through the repository folder's own name (JupyterHub's
        ``../../../../../../jupyterhub/examples/x.py``, which works in a checkout of that
        name, as the build reads it there); ``None`` for one that stays outside."""
        if not self.root:
            return None
        joined = posixpath.normpath(posixpath.join(self.root, repo_path))
        root = self.root.rstrip("/") + "/"
        return joined[len(root) :] if joined.startswith(root) else None

    def repo_path(self, docs_path: str) -> str:
        """The repository path of a path relative to the source folder."""
        return self.docs_prefix + docs_path

    def repo_folder(self, docs_folder: str) -> str:
        """The repository folder of a folder relative to the source folder."""
        return (self.docs_prefix + docs_folder).rstrip("/")

    def docs_path(self, repo_path: str) -> str | None:
        """The path relative to the source folder, ``None`` outside it."""
        prefix = self.docs_prefix
        if not prefix:
            return repo_path
        if repo_path.startswith(prefix):
            return repo_path[len(prefix) :]
        return None

    def page_name(self, docs_path: str, reads_as: ReadAs) -> str | None:
        """The docname a path may name: with a source suffix, ``.html``, or no suffix.

        A dot in the name is no suffix unless it is a file's (``logo.png``): MyST takes
        ``[..](api/pkg.mod)`` for the page ``api/pkg.mod``, as autosummary names them.
        """
        if reads_as == "file":
            return None
        stem, had_suffix = strip_source_suffix(docs_path, self.suffixes)
        if had_suffix:
            return stem
        if docs_path.endswith(".html"):
            return docs_path[: -len(".html")]
        base = posixpath.basename(docs_path)
        if reads_as == "page" or "." not in base or not FILE_LIKE.search(base):
            return docs_path or None
        return None

    def recording(self, on_lookup: Callable[[tuple[str, str, str]], None]) -> Project:
        """This project noting its lookups with ``on_lookup`` (the build's: one
        document's), its caches shared with this one."""
        self._anchor_pages_of()  # made here, so every recording project shares it
        # a resolver makes one per document: no __init__, and not copy.copy (its
        # protocol costs more than resolving a reference)
        recording = object.__new__(Project)
        recording.__dict__.update(self.__dict__, on_lookup=on_lookup)
        return recording

    def anchor_keys(self, docname: str) -> tuple[str, ...]:
        """The names an ``[anchors]`` entry for this document may be keyed by: its name
        now and every old one, also one only a ``[patterns]`` glob or the middle of a
        chain gives (the page of every key the table sends to it)."""
        keys = self._anchor_keys.get(docname)
        if keys is None:
            keys = self._anchor_keys[docname] = tuple(dict.fromkeys((
                docname, *self.table.old_names(docname),
                *self._anchor_pages_of().get(docname, ()),
            )))
        return keys

    def moves_anchors_of(self, docname: str) -> bool:
        """Whether an ``[anchors]`` entry may send a fragment of this document elsewhere."""
        known = self._moves_anchors.get(docname)
        if known is None:
            anchors = self.table.anchor_pages
            known = self._moves_anchors[docname] = bool(anchors) and any(
                key in anchors for key in self.anchor_keys(docname)
            )
        return known

    def _anchor_pages_of(self) -> dict[str, list[str]]:
        if self._anchor_pages is None:
            self._anchor_pages = {}
            for page in dict.fromkeys(page for page, _ in self.table.anchors):
                moved = self.table.locate_page(page, self.is_document)
                if moved is not None and not moved.url and moved.path != page:
                    self._anchor_pages.setdefault(moved.path, []).append(page)
        return self._anchor_pages


class Landing(NamedTuple):
    """Where a reference lands (a tuple: tens of thousands per build, hashed and cached)."""

    #: what it lands on: "page" (a docname), "file" (a repository path, a file or a
    #: folder) or "url"
    lands_on: str
    target: str
    anchor: str = ""
    #: the table moved it (a page, a file or an anchor)
    via_table: bool = False
    #: the index of the site's folder it was resolved from (0: where the file is now)
    folder: int = 0
    exists: bool = True
    #: the other meanings of a reference that lands on several targets and that
    #: nothing decided: settled by anchors later (:func:`settle`), else ambiguous
    others: tuple[Landing, ...] = ()
    #: it names a document by a source file the document no longer has (``install.rst``
    #: of what is ``install.md`` now): the file was renamed, the document was not
    respelled: bool = False

    @property
    def changed(self) -> bool:
        """Whether it lands elsewhere than the written target read from where it is now
        (or on its document by another file's name)."""
        return self.via_table or self.folder > 0 or self.respelled

    @property
    def key(self) -> tuple[str, str, str]:
        return self.lands_on, self.target, self.anchor


class Undecided(Enum):
    """Not decided yet: a type of its own, so it is never taken for a frame (an index
    of ``-1`` would name the last folder) nor for a new target (a string would)."""

    UNDECIDED = "undecided"


#: the frame of a moved file that no link has needed yet (see :func:`framed`); also what
#: ``rewrite`` answers for a target whose meaning waits for that frame
UNDECIDED: Final = Undecided.UNDECIDED


class Site(NamedTuple):
    """Where references are written: a file's folders and the frame of its links."""

    #: repository folders: where the file is now, then where it stood before it moved
    folders: tuple[str, ...]
    #: the repository folder a ``/``-absolute path starts from
    root: str = ""
    #: the index in ``folders`` the file's links were written from; ``None``: a tie;
    #: :data:`UNDECIDED`: not read yet
    frame: int | Undecided | None = 0


def site_of(docname: str, project: Project) -> Site:
    """The :class:`Site` of a document; a moved one's frame is :data:`UNDECIDED`, to be
    read from its text by :func:`framed` the first time a link lands on two targets
    (most moved pages have none, and counting votes costs a pass over every link)."""
    folders = [project.repo_folder(posixpath.dirname(docname))]
    # dict: each old folder once, in order (a merged page can have thousands of old names)
    old_folders = dict.fromkeys([o.rpartition("/")[0] for o in project.table.old_names(docname)])
    for old_folder in old_folders:
        repo_folder = project.repo_folder(old_folder)
        if repo_folder not in folders:
            folders.append(repo_folder)
    return Site(tuple(folders), project.repo_folder(""), 0 if len(folders) == 1 else UNDECIDED)


def framed(site: Site, text: str, path: str, project: Project) -> Site:
    """The site with its frame decided from the links of its source text.

    The build and ``rewrite`` both read the frame from the source text, through the
    same :func:`~sphinx_relocate.core.spans.find_targets`, so they count the same links.
    """
    if site.frame is not UNDECIDED:
        return site
    return site._replace(frame=frame_of(references_in(text, path), site, project))


#: how the target of each syntax of span (``_find.Span.syntax``) is read, if not "any"
_SPAN_READS_AS: dict[str, ReadAs] = {"image": "file", "include": "file", "download": "file"}


def repository_reads_as(path: str, project: Project) -> ReadAs:
    """How a path of the project's repository URL is read: a file or a folder, a page
    only by its source file (black's ``…/docs/compatible_configs/`` is that folder, which
    stayed, not the page ``compatible_configs`` that moved)."""
    return "any" if strip_source_suffix(decode(path), project.suffixes)[1] else "file"


def span_reads_as(span: Span) -> ReadAs:
    """How a target found in source text is read."""
    return "page" if span.mode == "doc" else _SPAN_READS_AS.get(span.syntax, "any")


def references_in(text: str, path: str) -> list[tuple[str, ReadAs]]:
    """The relative references of a source file, as written, with how each is read."""
    from sphinx_relocate.core.spans import (
        find_targets,  # only for a moved page whose frame is asked for
    )

    return [
        (text[span.start : span.end], span_reads_as(span))
        for span in find_targets(text, path)
        if span.mode not in ("repo", "glob")
    ]


def land(written: str, reads_as: ReadAs, site: Site, project: Project) -> Landing | None:
    """Where ``written`` lands; ``None`` for what is not a local path (URLs, ``#id``).

    A reference that lands nowhere gets a landing with ``exists=False`` that names what
    it would be read as from where it is written (for the messages).  While the site's
    frame is :data:`UNDECIDED`, a reference with two meanings comes back with
    ``others``: read the frame with :func:`framed` and ask again.
    """
    if site.frame == 0 or written.startswith("/"):
        quick = existing_landing(written, reads_as, site, project)
        if quick is not None:
            return quick
    return _land(written, reads_as, site, project)


def _land(written: str, reads_as: ReadAs, site: Site, project: Project) -> Landing | None:
    """:func:`land` by the whole rule."""
    path, _, fragment = split_target(written)
    path, fragment = decode(path), decode(fragment)
    if not path or EXTERNAL.match(path):
        return None
    found = candidates(path, fragment, reads_as, site, project)
    if len(found) == 1:  # a page that did not move, or a "/"-absolute path
        return found[0] or _missing(path, fragment, reads_as, site, project)
    landed = [c for c in found if c is not None]
    if not landed:
        return _missing(path, fragment, reads_as, site, project)
    distinct = list({c.key: c for c in reversed(landed)}.values())[::-1]
    if len(distinct) == 1:
        return landed[0]
    undecided = distinct[0]._replace(others=tuple(distinct[1:]))
    if site.frame is UNDECIDED:  # the caller reads the frame (framed) and asks again
        return undecided
    if site.frame is not None and found[site.frame] is not None:
        return found[site.frame]
    return settle(undecided, project.has_anchor)


def existing_landing(
    written: str, reads_as: ReadAs, site: Site, project: Project
) -> Landing | None:
    """What :func:`land` answers, by set lookups alone, for most references: a path read
    from one folder that names an existing document no ``[anchors]`` entry moves a
    fragment of, or an existing file, neither of which the table can change.  ``None``:
    the whole rule decides (the table may matter, or the path needs decoding).

    A build checks tens of thousands of references that the table does not touch; this
    keeps them to a few dict lookups each (a property test checks it equals the rule).
    """
    path, _, fragment = written.partition("#")
    if not path or "%" in written or "?" in path or ":" in path or path.startswith("//"):
        return None
    if path[0] == "/":
        repo_path = join_relative(site.root, path.lstrip("/"))
    else:
        repo_path = join_relative(site.folders[0], path)
    if leaves_root(repo_path):
        return None
    inside = project.docs_path(repo_path)
    if not inside:
        return None
    name = project.page_name(inside, reads_as)
    if name is not None and project.is_document(name):
        if fragment and project.moves_anchors_of(name):
            return None
        landing = Landing(
            "page", name, fragment, respelled=_respelled(inside, name, repo_path, project)
        )
    elif reads_as != "page" and project.is_file(repo_path):
        landing = Landing("file", repo_path, fragment)
    else:
        return None
    note = project.on_lookup
    if note is not None:  # what _at notes for the same path
        if name is not None:
            note(("page", name, fragment))
        if landing.lands_on == "file":
            note(("file", inside, ""))
    return landing


def _respelled(docs_path: str, docname: str, repo_path: str, project: Project) -> bool:
    """Whether ``docs_path`` names the document ``docname`` by a source file that is not
    there while another is (``install.rst`` of ``install.md``); a built page's name
    (``install.html``) or the docname itself (``install``) is no file's."""
    if docs_path == docname or docs_path.endswith(".html") or project.is_file(repo_path):
        return False
    base = project.repo_path(docname)
    return any(project.is_file(base + suffix) for suffix in project.suffixes)


def moved_glob(pattern: str, table: RelocationTable, documents: Iterable[str]) -> str | None:
    """A glob of docnames (a toctree's, a site map's) that matches none of
    ``documents``, with its folder moved by ``[prefixes]``, when it matches there;
    ``None``: keep it as written (it matches, or no move makes it match)."""
    documents = list(documents)
    if _matches_one(pattern, documents):
        return None
    moved = table.locate_pattern(pattern)
    if moved is None or moved.url or not _matches_one(moved.path, documents):
        return None
    return moved.path


def moved_sidebar_key(key: str, table: RelocationTable, documents: Collection[str]) -> str | None:
    """The sidebar key (of ``html_sidebars``, of pydata-sphinx-theme's
    ``secondary_sidebar_items``) for the pages ``key`` named before the table moved them:
    a page name where the page went, a pattern with its folder moved (:func:`moved_glob`);
    ``None``: keep it (it matches a document, or the table moves it nowhere it can name)."""
    if SIDEBAR_WILDCARDS.intersection(key):
        return moved_glob(key, table, documents)
    if key in documents:
        return None
    target = table.locate_page(key, documents.__contains__)
    if target is None or target.url or target.anchor or target.path not in documents:
        return None
    return target.path


def lost_sidebar_key(key: str, table: RelocationTable, documents: Collection[str]) -> str | None:
    """Where the table sent the pages of a sidebar key that matches no document
    and that :func:`moved_sidebar_key` cannot move (a page that became a URL, a pattern
    whose pages went to different folders), for a warning; ``None``: the table has no
    entry for what it names (a key of its own, such as ``search``, or one left over)."""
    if SIDEBAR_WILDCARDS.intersection(key):
        if _matches_one(key, documents):
            return None
        match = re.compile(sphinx_pattern(key)).match
        olds = sorted(old for old in table.pages if match(old))
        moved = table.locate_pattern(key)
        if moved is not None:
            return f"{key!r} went to {moved.url or moved.path!r}"
        if not olds:
            return None
        shown = ", ".join(f"{old!r} → {_written(table.pages[old])!r}" for old in olds[:3])
        return shown + (f" and {len(olds) - 3} more" if len(olds) > 3 else "")
    if key in documents:
        return None
    target = table.locate_page(key, documents.__contains__)
    return None if target is None else f"{key!r} went to {_written(target)!r}"


class SidebarKeys(NamedTuple):
    """What the table does to the keys of the settings that name pages
    (:data:`~sphinx_relocate.core.spans.SIDEBAR_SETTINGS`)."""

    #: setting → key → the key that names its pages now (the build follows it,
    #: ``rewrite`` writes it)
    moved: dict[str, dict[str, str]]
    #: ``(setting, key, message)`` of each key the table moved where no key can follow
    lost: list[tuple[str, str, str]]


def page_keyed_settings(get: Callable[[str], object]) -> dict[str, Mapping[object, object]]:
    """Each setting whose keys name pages, by the value ``get`` gives of a conf.py name
    (left out when unset or not a mapping): the build's config and the command's
    settings alike."""
    found: dict[str, Mapping[object, object]] = {}
    sidebars = get("html_sidebars")
    if isinstance(sidebars, Mapping) and sidebars:
        found["html_sidebars"] = sidebars
    options = get("html_theme_options")
    secondary = options.get("secondary_sidebar_items") if isinstance(options, Mapping) else None
    if isinstance(secondary, Mapping) and secondary:
        found["secondary_sidebar_items"] = secondary
    return found


def sidebar_keys_through(
    keyed: Mapping[str, Mapping[object, object]], table: RelocationTable,
    documents: Collection[str],
) -> SidebarKeys:
    """Each key carried through the table: the keys that follow their pages, and those
    that cannot (one message each, the build's warning and ``check``'s problem)."""
    moved: dict[str, dict[str, str]] = {}
    lost: list[tuple[str, str, str]] = []
    for setting, keys in keyed.items():
        for key in keys:
            if not isinstance(key, str):
                continue
            new = moved_sidebar_key(key, table, documents)
            if new is not None:
                if new not in keys:  # a key conf.py already has for the new name wins
                    moved.setdefault(setting, {})[key] = new
                continue
            why = lost_sidebar_key(key, table, documents)
            if why is not None:
                lost.append((setting, key, f"{setting} key {key!r} matches no page: the "
                             f"table moved what it named ({why}); write a key for the new "
                             "names"))
    return SidebarKeys(moved, lost)


def _written(target: Target) -> str:
    return target.url or (f"{target.path}#{target.anchor}" if target.anchor else target.path)


def _matches_one(pattern: str, documents: Iterable[str]) -> bool:
    match = re.compile(sphinx_pattern(pattern)).match  # as Sphinx's patfilter
    return any(match(docname) for docname in documents)


def existing_page(docname: str, fragment: str, site: Site, project: Project) -> Landing | None:
    """Where a reference lands that a reader already made the name of a document (MyST
    does for a Markdown link it found a page for), when set lookups decide: read from
    the folder the file's links are written from, a document that exists and that no
    ``[anchors]`` entry moves a fragment of lands as it is.  ``None``: ask :func:`land`
    with the target as written."""
    if (
        site.frame != 0 or "%" in fragment or not project.is_document(docname)
        or (fragment and project.moves_anchors_of(docname))
    ):
        return None
    if project.on_lookup is not None:  # what _at notes for the same name
        project.on_lookup(("page", docname, fragment))
    return Landing("page", docname, fragment)


def candidates(
    path: str, fragment: str, reads_as: ReadAs, site: Site, project: Project
) -> list[Landing | None]:
    """Where a decoded path lands from each of the site's folders (``None``: nowhere)."""
    if path.startswith("/"):
        return [_at(join_relative(site.root, path.lstrip("/")), fragment, reads_as, 0, project)]
    if reads_as == "page":
        return [
            _at(_join_page(folder, path, project), fragment, reads_as, index, project)
            for index, folder in enumerate(site.folders)
        ]
    return [
        _at(join_relative(folder, path), fragment, reads_as, index, project)
        for index, folder in enumerate(site.folders)
    ]


def _join_page(folder: str, path: str, project: Project) -> str:
    """``path`` read from the repository folder ``folder`` as a document name: Sphinx
    (``docname_join``) stops a ``:doc:``'s or a toctree entry's ``../`` at the source
    folder, so ``../../x`` written one folder down names the page ``x``."""
    joined = join_relative(folder, path)
    prefix = project.docs_prefix
    if not leaves_root(joined) and (not prefix or joined.startswith(prefix)):
        return joined
    docs_folder = project.docs_path(folder + "/")
    if docs_folder is None:
        return joined  # not a folder of the source: as written
    return prefix + posixpath.normpath(posixpath.join("/", docs_folder, path)).lstrip("/")


def settle(landing: Landing, has_anchor: Callable[[str, str], bool | None]) -> Landing:
    """Decide a landing with ``others`` by its anchor, when anchors are known.

    The one candidate page that has the anchor wins; while any answer is unknown the
    landing keeps its ``others``, and when none or several have it the reference stays
    ambiguous (it keeps them too, and the caller reports it).
    """
    if not landing.others:
        return landing
    every = (landing, *landing.others)
    if not landing.anchor or any(c.lands_on != "page" for c in every):
        return landing
    answers = [has_anchor(c.target, c.anchor) for c in every]
    if any(answer is None for answer in answers):
        return landing
    having = [c for c, answer in zip(every, answers, strict=True) if answer]
    if len(having) == 1:
        return having[0]._replace(others=())
    return landing


def frame_of(references: Iterable[tuple[str, ReadAs]], site: Site, project: Project) -> int | None:
    """The folder a moved file's links were written from: the one most links land from
    alone; ``None`` on a tie (no votes, or as many for two folders)."""
    if len(site.folders) == 1:
        return 0
    votes = [0] * len(site.folders)
    for written, reads_as in references:
        path, _, fragment = split_target(written)
        path = decode(path)
        if not path or path.startswith("/") or EXTERNAL.match(path):
            continue
        found = candidates(path, decode(fragment), reads_as, site, project)
        landed = [index for index, c in enumerate(found) if c is not None]
        if len(landed) == 1:
            votes[landed[0]] += 1
    best = max(votes)
    if best == 0 or votes.count(best) > 1:
        return None
    return votes.index(best)


def _at(
    repo_path: str, fragment: str, reads_as: ReadAs, folder: int, project: Project
) -> Landing | None:
    """Where a repository path lands, if anywhere (the order of the module docstring)."""
    if leaves_root(repo_path):
        inside_again = project.back_inside(repo_path)
        if inside_again is None:
            return None
        repo_path = inside_again
    inside = project.docs_path(repo_path)
    if inside is None:  # outside the source folder: a file of the repository
        if reads_as != "page" and (project.is_file(repo_path) or project.is_folder(repo_path)):
            return Landing("file", repo_path, fragment, False, folder)
        return None
    table = project.table
    name = project.page_name(inside, reads_as)
    documents = project.is_document
    note = project.on_lookup
    if note is not None and name is not None:
        note(("page", name, fragment))
    if name is not None and documents(name):
        if fragment and table.anchors:
            target = _moved_anchor(name, fragment, project)
            if target is not None:
                return _through(target, folder, project)
        return Landing("page", name, fragment, False, folder,
                       respelled=_respelled(inside, name, repo_path, project))
    # a file entry cannot change a landing on a document (documents come first): noted
    # only past it, and the page's lookup re-reads the document when the page goes
    if note is not None and reads_as != "page":
        note(("file", inside, ""))
    if reads_as != "page" and inside and project.is_file(repo_path):
        return Landing("file", repo_path, fragment, False, folder)
    if name is not None:
        target = project.locate_reference(name, fragment)
        if note is not None and target is not None and not target.url:
            # the page the table sends it to: when that page goes (or comes), the
            # document is read again and its link lands nowhere (or there)
            note(("page", target.path, ""))
        if target is not None and (target.url or documents(target.path)):
            if fragment and table.anchors and not target.url and target.anchor == fragment:
                # the written fragment, kept: an entry keyed by another name of the page
                # (its name now, one in the middle of a chain, one a glob gives) moves it
                target = _moved_anchor(target.path, fragment, project) or target
            return _through(target, folder, project)
    if reads_as != "page" and inside:
        moved = project.locate_file(inside)
        if moved is None and not inside.endswith("/"):  # a folder a prefix moved
            moved = project.locate_file(inside + "/")
            if moved is not None and not moved.url:
                moved = moved._replace(path=moved.path.rstrip("/"))
        if moved is not None:
            if moved.url:
                return Landing("url", moved.url, "", True, folder)
            new_path = project.repo_path(moved.path)
            if project.is_file(new_path) or project.is_folder(new_path.rstrip("/")):
                return Landing("file", new_path, fragment, True, folder)
        elif reads_as == "file":
            source = _moved_source(inside, project)
            if source is not None:  # a page's source file, read by include and the like
                return Landing("file", source, fragment, True, folder)
        if project.is_folder(repo_path):
            return Landing("file", repo_path, fragment, False, folder)
        if reads_as == "any" and generated_page(inside, project.generated):
            # the output file of a generated page (a link's path, which keeps its
            # ``.html``): rewritten from a moved page's new folder as a file's
            return Landing("file", repo_path, fragment, False, folder)
    return None


#: the pages Sphinx's HTML builders write without a source, besides the domain indices
#: and ``html_additional_pages``
BUILT_PAGES = frozenset({"genindex", "search", "modindex", "py-modindex"})


def generated_page(docs_path: str, generated: Collection[str]) -> bool:
    """Whether a path relative to the source folder is a generated page's output file
    (``genindex.html``): what :func:`_at` lands a link on when nothing else is there."""
    return docs_path.endswith(".html") and docs_path[: -len(".html")] in generated


def _moved_source(docs_path: str, project: Project) -> str | None:
    """The repository path of the source file of the document that the table moved
    from ``docs_path``, a page's source file (``old/page.rst``), if it exists.

    ``include`` reads a page's file by its path: the page's ``[pages]`` entry moved the
    file with it.  Only a file with the suffix written counts: a page that became
    Markdown is another file to an ``include`` of its reST source (read as reST), so
    such a path lands nowhere and is warned.
    """
    stem, had_suffix = strip_source_suffix(docs_path, project.suffixes)
    if not had_suffix:
        return None
    if project.on_lookup is not None:  # re-read when the page's entry or target changes
        project.on_lookup(("page", stem, ""))
    target = project.locate_reference(stem, "")
    if target is None or target.url or not project.is_document(target.path):
        return None
    source = project.repo_path(target.path + docs_path[len(stem) :])
    return source if project.is_file(source) else None


def _moved_anchor(docname: str, fragment: str, project: Project) -> Target | None:
    """Where an ``[anchors]`` entry keyed by any name of the document sends ``fragment``."""
    table = project.table
    for key in project.anchor_keys(docname):
        if (key, fragment) in table.anchors:
            return project.locate_reference(key, fragment)
    return None


def _through(target: Target, folder: int, project: Project) -> Landing:
    if target.url:
        return Landing("url", target.url, "", True, folder)
    return Landing("page", target.path, target.anchor, True, folder)


def _missing(path: str, fragment: str, reads_as: ReadAs, site: Site, project: Project) -> Landing:
    """What a reference that lands nowhere is read as, from where it is written."""
    start = site.root if path.startswith("/") else site.folders[0]
    repo_path = join_relative(start, path.lstrip("/") if path.startswith("/") else path)
    inside = project.docs_path(repo_path) if not leaves_root(repo_path) else None
    name = project.page_name(inside, reads_as) if inside is not None else None
    if name is not None and (
        reads_as == "page" or not FILE_LIKE.search(name) or name.endswith(".html")
    ):
        return Landing("page", name, fragment, False, 0, False)
    return Landing("file", repo_path, fragment, False, 0, False)


# -- labels ----------------------------------------------------------------------


class LabelLanding(NamedTuple):
    """Where a reference to a renamed label (a ``[labels]`` key) lands."""

    label: str
    #: the written name may mean something else too: it is left as written and reported
    ambiguous: bool = False


def land_label(
    table: RelocationTable, written: str, is_label: Callable[[str], bool], other_meaning: bool,
    by_document: bool = False,
) -> LabelLanding | None:
    """Where a reference to the label ``written`` lands now; ``None`` when the table
    does not send it to another label.

    A label that still exists keeps its references (its entry is shadowed, which the
    table check reports), a chain stops at the first label that exists, and a target
    that is not a label is not taken (Sphinx warns for the reference, the table check
    for the entry).  ``other_meaning`` says that the name names something else as well:
    ``:any:`` and a MyST link such as ``[](#name)`` may also name a document (``name``
    next to the page) or an anchor of the page itself, which Sphinx and MyST try too.
    Such a reference is ambiguous: reported, never guessed.  ``by_document``: labels
    carry their page's name (:func:`document_label`).
    """
    new = table.locate_label(written, is_label)
    if new is None and by_document:
        new = document_label(table, written, is_label)
    if new is None or not is_label(new):
        return None
    return LabelLanding(new, other_meaning)


def document_label(
    table: RelocationTable, written: str, is_label: Callable[[str], bool]
) -> str | None:
    """The label ``new/page:section`` of a reference to ``old/page:section`` whose page
    the table moved; ``None`` when it names no such page, or exists as it is.

    ``sphinx.ext.autosectionlabel`` with ``autosectionlabel_prefix_document`` names each
    section by its page: the label is a path, and it moves with the page.
    """
    label = normalize_label(written)
    docname, colon, section = label.partition(":")
    if not colon or not docname or is_label(label):
        return None
    # the section itself may have gone to another page by an [anchors] entry, its title
    # kept (tox's user_guide:logging, now how-to/usage's Logging): its label went too
    section_id = make_id(section)
    target = table.locate_reference(docname, section_id) if section_id else None
    if target is not None and not target.url and target.anchor == section_id:
        moved = f"{target.path}:{section}"
        if is_label(moved):
            return moved
    target = table.locate_page(docname)
    if target is None or target.url:
        return None
    return f"{target.path}:{section}"
