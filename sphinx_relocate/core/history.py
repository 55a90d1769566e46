"""A site's published history (``relocate_published``): every URL it ever served, and
whether something still serves it.

* :func:`read_history` reads each source a setting lists (one string, or a list: one a
  version or a site): a release's ``objects.inv`` (:mod:`sphinx_relocate.core.published`,
  which also checks its labels), a ``sitemap.xml``, a text file of URLs or paths (one a
  line, ``#`` comments), or a previous build's output folder (its ``.html`` files, and
  the ``folder/`` URL of each ``folder/index.html``).  A file or an http(s) URL is told
  apart by its name (``.inv``, ``.xml``), else by its content; a URL's bytes come from
  the caller's ``fetch``.  Every source
  is untrusted: the size limits of an inventory apply, a sitemap with a DOCTYPE (where
  entity expansion hides) is refused, and each error is one line naming the source and
  the line.
* :func:`unserved` maps each published URL to what serves it now: a page (``page.html``,
  ``page/`` and the clean ``page`` of MkDocs or Docusaurus all name the document
  ``page``), a file of the output, a redirect stub (a page the table moves), or a
  folder rule of the server exports.  Each URL nothing serves is a finding with the
  closest current page as a hint.  URLs outside the site's base path are counted, not
  checked.

Nothing here imports Sphinx.
"""

from __future__ import annotations

import difflib
import os
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from sphinx_relocate.core.inventory import FILENAME, InventoryError
from sphinx_relocate.core.published import (
    MAX_INVENTORY_BYTES,
    MAX_INVENTORY_LINES,
    Published,
    Unredirected,
    from_bytes,
    is_url,
)

if TYPE_CHECKING:
    from sphinx_relocate.core.table import RelocationTable

#: Pages every HTML build writes that no source names.
GENERATED_PAGES = frozenset({"genindex", "search", "py-modindex"})
#: Folders of an output that hold what the build generates (``_static``, ``_modules``):
#: no source of the next build names their pages, so a previous output's are not read.
_GENERATED_FOLDER = "_"
_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


@dataclass(frozen=True)
class PublishedUrl:
    """A URL a source listed, as a path relative to the site (``guide/page.html``)."""

    url: str
    path: str
    source: str
    line: int


@dataclass
class History:
    """What the sources of ``relocate_published`` listed."""

    inventories: list[Published] = field(default_factory=list)
    urls: list[PublishedUrl] = field(default_factory=list)
    #: URLs outside the site's base path: not checked
    outside: int = 0
    #: each source read, as shown in messages
    sources: list[str] = field(default_factory=list)

    def page_names(self, documents: set[str], table: RelocationTable) -> set[str]:
        """The old pages the sources published that the table moves: the stubs' old
        pages (a page of a URL, in whatever style, by the one name its stub serves)."""
        names = {name for published in self.inventories for name in published.pages()}
        for url in self.urls:
            candidates = page_candidates(url.path)
            if not any(name in documents for name in candidates):
                names.update(moved_page(candidates, documents, table)[:1])
        return names

    def check_read(self) -> None:
        """Refuse a history that lists no URL: a gate that read nothing passes nothing."""
        if not any(p.pages() for p in self.inventories) and not self.urls:
            outside = (f" ({self.outside} outside the site's base path: is html_baseurl "
                       "right?)" if self.outside else "")
            raise InventoryError(f"no published URL in {', '.join(self.sources)}{outside}")

    def summary(self) -> str:
        """One line saying what was read: a gate must say what it checked against."""
        read = ", ".join(self.sources)
        count = sum(len(p.inventory.of_role("std:doc")) for p in self.inventories)
        text = f"published history: {count + len(self.urls)} URLs read from {read}"
        if self.outside:
            text += f"; {self.outside} outside the site's base path, not checked"
        return text


def settings_list(setting: str | Sequence[str] | None) -> list[str]:
    """The sources of ``relocate_published``: one string, or a list of them."""
    if not setting:
        return []
    return [setting] if isinstance(setting, str) else [str(item) for item in setting]


def read_history(
    setting: str | Sequence[str],
    folder: Path,
    *,
    fetch: Callable[[str], bytes],
    base_url: str = "",
) -> History:
    """The history the sources of ``setting`` list (files and folders relative to
    ``folder``).  A source that cannot be read is an :class:`InventoryError` with one
    line naming it."""
    history = History()
    for source in settings_list(setting):
        if is_url(source):
            shown, data, base = source, fetch(source), base_url or source.rsplit("/", 1)[0]
        else:
            path = folder / source
            shown, base = str(path), base_url
            if path.is_dir():
                history.sources.append(shown)
                history.urls += _read_output(path, base_url, history.inventories)
                continue
            data = _read_bytes(path, shown)
        history.sources.append(shown)
        kind = Path(urlsplit(source).path if is_url(source) else source).suffix.lower()
        if kind == ".inv" or (kind != ".xml" and data.startswith(b"# Sphinx inventory")):
            history.inventories.append(from_bytes(data, source, shown, base_url))
            continue
        if kind == ".xml" or data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
            listed = sitemap_urls(data, shown)
        else:
            listed = text_urls(data, shown)
        for url, line in listed:
            path_in_site = site_path(url, base)
            if path_in_site is None:
                history.outside += 1
            else:
                history.urls.append(PublishedUrl(url, path_in_site, shown, line))
    history.check_read()
    return history


def _read_bytes(path: Path, shown: str) -> bytes:
    try:
        if path.stat().st_size > MAX_INVENTORY_BYTES:
            raise InventoryError(f"{shown}: more than {MAX_INVENTORY_BYTES // 2**20} MiB: not read")
        return path.read_bytes()
    except OSError as err:
        raise InventoryError(f"cannot read {shown}: {err.strerror or err}") from None


def _read_output(folder: Path, base_url: str, inventories: list[Published]) -> list[PublishedUrl]:
    """A previous build's output: its ``objects.inv`` when it has one (its labels and
    objects, whose fragments stubs follow), and the URLs of its pages that the inventory
    does not list (each page is checked once)."""
    urls = output_urls(folder)
    path = folder / FILENAME
    if not path.is_file():
        return urls
    published = from_bytes(_read_bytes(path, str(path)), FILENAME, str(path), base_url)
    inventories.append(published)
    listed = published.pages()
    return [url for url in urls if not listed.intersection(page_candidates(url.path))]


def sitemap_urls(data: bytes, shown: str) -> list[tuple[str, int]]:
    """The ``<loc>`` of each ``<url>`` of a sitemap, with its line.

    A DOCTYPE or ENTITY declaration is refused before parsing: without one, the parser
    knows no entity but XML's five, so nothing expands."""
    found = _DOCTYPE.search(data)
    if found:
        line = data.count(b"\n", 0, found.start()) + 1
        raise InventoryError(f"{shown}:{line}: a sitemap with a DOCTYPE or ENTITY "
                             "declaration is refused (entities can expand without end)")
    if len(data) > MAX_INVENTORY_BYTES:
        raise InventoryError(f"{shown}: more than {MAX_INVENTORY_BYTES // 2**20} MiB: not read")
    parser: ElementTree.XMLPullParser[ElementTree.Element] = ElementTree.XMLPullParser(
        events=("end",)
    )
    urls: list[tuple[str, int]] = []
    line = 1
    try:
        for chunk in data.splitlines(keepends=True):
            parser.feed(chunk)
            for event in parser.read_events():
                element = event[-1]
                if not isinstance(element, ElementTree.Element):
                    continue
                tag = element.tag.rpartition("}")[2]
                if tag == "sitemap":
                    raise InventoryError(f"{shown}:{line}: a sitemap index: list its "
                                         "sitemaps instead")
                if tag == "loc" and element.text and element.text.strip():
                    urls.append((element.text.strip(), line))
                    if len(urls) > MAX_INVENTORY_LINES:
                        raise InventoryError(f"{shown}: more than {MAX_INVENTORY_LINES:,} "
                                             "URLs: not read")
                if tag == "url":
                    element.clear()
            line += 1
        parser.close()
    except ElementTree.ParseError as err:
        where = getattr(err, "position", (line, 0))[0]
        raise InventoryError(f"{shown}:{where}: not a sitemap: {err}") from None
    return urls


def text_urls(data: bytes, shown: str) -> list[tuple[str, int]]:
    """The URLs or paths of a text file, one a line, with their lines."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise InventoryError(f"{shown}:{line}: not UTF-8 text") from None
    urls: list[tuple[str, int]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        if number > MAX_INVENTORY_LINES:
            raise InventoryError(f"{shown}: more than {MAX_INVENTORY_LINES:,} lines: not read")
        if any(c.isspace() for c in entry):
            raise InventoryError(f"{shown}:{number}: one URL or path a line: {entry!r}")
        urls.append((entry, number))
    return urls


def output_urls(folder: Path) -> list[PublishedUrl]:
    """The page URLs of a previous build's output: each ``.html`` file, and the
    ``folder/`` that serves each ``folder/index.html``."""
    shown = str(folder)
    urls: list[PublishedUrl] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(_GENERATED_FOLDER))
        relative = Path(root).relative_to(folder).as_posix()
        prefix = "" if relative == "." else relative + "/"
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            if name == "index.html" and prefix:  # the URL readers hold comes first
                urls.append(PublishedUrl(prefix, prefix, shown, 0))
            path = prefix + name
            urls.append(PublishedUrl(path, path, shown, 0))
    return urls


def site_path(url: str, base: str) -> str | None:
    """``url`` relative to the site at ``base`` (``None``: outside it), decoded, without
    query or fragment.  A path is from the base's path when it starts with ``/``,
    else relative to the site; a URL without a base is relative to its server."""
    parts = urlsplit(url)
    base_parts = urlsplit(base)
    root = base_parts.path if base_parts.path.endswith("/") else base_parts.path + "/"
    if parts.scheme or parts.netloc:
        if base_parts.netloc and parts.netloc.lower() != base_parts.netloc.lower():
            return None
        path = parts.path or "/"
    elif parts.path.startswith("/"):
        path = parts.path
    else:
        return unquote(parts.path)
    if not path.startswith(root) and path + "/" != root:
        return None
    return unquote(path[len(root):])


# -- what serves a URL now -------------------------------------------------------------


def page_candidates(path: str) -> list[str]:
    """The document names a page URL may stand for: ``a.html`` → ``a``; ``a/``,
    ``a/index.html`` and the clean ``a`` → ``a/index`` or ``a``.  A file (another
    extension) stands for none."""
    if path.endswith(".html"):
        name = path.removesuffix(".html")
        if name == "index" or name.endswith("/index"):
            folder = name.removesuffix("index").rstrip("/")
            return [name] + ([folder] if folder else [])
        return [name]
    if path == "" or path.endswith("/"):
        folder = path.rstrip("/")
        return [path + "index"] + ([folder] if folder else [])
    if "." in path.rpartition("/")[2]:
        return []
    return [path, path + "/index"]


def unserved(
    history: History,
    documents: set[str],
    table: RelocationTable,
    *,
    is_file: Callable[[str], bool],
    folders: Iterable[tuple[str, str]] = (),
) -> list[Unredirected]:
    """Each published URL of ``history`` that nothing serves now, with a hint: the
    closest current page.  ``is_file`` says whether the output has a file at a path;
    ``folders`` are the ``(old, new)`` folder rules of the server exports."""
    olds = [old for old, _ in folders]
    hints = ClosestPages(documents)
    found: list[Unredirected] = []
    seen: set[str] = set()
    for url in history.urls:
        names = page_candidates(url.path)
        key = "\n".join(sorted(names)) or url.path  # a page once, by any of its URLs
        if key in seen:
            continue
        seen.add(key)
        if served(url.path, names, documents, table, is_file=is_file, folders=olds):
            continue
        where = f"{url.source}, line {url.line}" if url.line else url.source
        message = (f"{url.url} was published ({where}) and nothing serves it now: no page, "
                   "file, redirect stub or server rule")
        hint = hints.closest(names or [url.path])
        if hint:
            message += f"; the closest page now is {hint}"
        found.append(Unredirected(names[0] if names else url.path, url.url, message, "pages"))
    return found


def served(
    path: str, names: Sequence[str], documents: set[str], table: RelocationTable, *,
    is_file: Callable[[str], bool], folders: Sequence[str] = (),
) -> bool:
    """Whether something serves the site path ``path`` (whose page names are ``names``:
    :func:`page_candidates`): a document, a page the builder generates, a file of the
    output, a redirect stub (the table moves the page) or a folder rule of the server
    exports (``folders``: their old folders, ``/``-absolute)."""
    return (
        any(name in documents or name in GENERATED_PAGES for name in names)
        or is_file(path)
        or bool(moved_page(names, documents, table))
        or any(("/" + path).startswith(old) for old in folders)
    )


def moved_page(names: Sequence[str], documents: set[str], table: RelocationTable) -> list[str]:
    """The first of ``names`` that the table sends to a URL or a document, whose redirect
    stub serves it (``[]``: none)."""
    exists = documents.__contains__
    for name in names:
        target = table.locate_reference(name, "", exists)
        if target is not None and (target.url or target.path in documents):
            return [name]
    return []


class ClosestPages:
    """The current document most like a gone page, for the hint: indexed once, so a
    history of 100,000 URLs is not 100,000 scans of the documents."""

    #: difflib compares a name with every candidate: past this many documents, only
    #: those in the gone page's folder are candidates
    ALL_CANDIDATES = 2000

    def __init__(self, documents: Iterable[str]) -> None:
        self.documents = sorted(documents)
        self.by_last: dict[str, str] = {}  # last path segment -> the shortest such page
        self.by_folder: dict[str, list[str]] = {}
        for doc in sorted(self.documents, key=len):
            folder, _, last = doc.rpartition("/")
            if last != "index":
                self.by_last.setdefault(last, doc)
            self.by_folder.setdefault(folder, []).append(doc)

    def closest(self, names: Sequence[str]) -> str | None:
        """One with the same last path segment as one of ``names`` (the shortest such),
        else the closest by difflib."""
        for name in names:
            found = self.by_last.get(name.removesuffix("/index").rpartition("/")[2])
            if found:
                return found
        for name in names:
            candidates = (self.documents if len(self.documents) <= self.ALL_CANDIDATES
                          else self.by_folder.get(name.rpartition("/")[0], []))
            close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
            if close:
                return close[0]
        return None


def extra_files(
    confdir: Path, extra_paths: Iterable[str], excluded: Callable[[str], bool]
) -> dict[str, Path]:
    """The files ``html_extra_path`` copies into the output folder, by their path there,
    walked as Sphinx's ``copy_asset`` walks them (symbolic links to folders followed,
    ``excluded`` paths left out), each folder once."""
    found: dict[str, Path] = {}
    for extra in extra_paths:
        base = os.path.join(confdir, extra)
        if os.path.isfile(base):
            found[os.path.basename(base)] = Path(base)
            continue
        reals: dict[str, str] = {}  # each folder walked -> where it really is
        for folder, folders, names in os.walk(base, followlinks=True):
            real = reals[folder] = os.path.realpath(folder)
            up = os.path.dirname(folder)
            while up in reals:  # a link back up: Sphinx would go round; the files are known
                if reals[up] == real:
                    folders[:], names = [], []
                    break
                up = os.path.dirname(up)
            rel = os.path.relpath(folder, base).replace(os.sep, "/")
            rel = "" if rel == "." else rel + "/"
            folders[:] = sorted(name for name in folders if not excluded(rel + name))
            for name in sorted(names):
                if not excluded(rel + name):
                    found[rel + name] = Path(folder, name)
    return found


def output_files(
    confdir: Path, extra_paths: Iterable[str], static_paths: Iterable[str],
    outdir: Path | None = None,
) -> Callable[[str], bool]:
    """Whether the output has a file at a path: one ``html_extra_path`` copies to the
    root, one of ``html_static_path`` in ``_static/``, or (``outdir``) one already
    written there (images, downloads).  An ``.html`` file of ``outdir`` does not count:
    it may be the page of a document deleted since (Sphinx leaves those behind)."""
    extras = [confdir / extra for extra in extra_paths]
    statics = [confdir / static for static in static_paths]

    def is_file(path: str) -> bool:
        if not path or path.endswith("/") or ".." in path.split("/"):
            return False
        if outdir is not None and not path.endswith(".html") and (outdir / path).is_file():
            return True
        if any((extra / path).is_file() or extra.name == path for extra in extras):
            return True
        inside = path.removeprefix("_static/")
        return inside != path and any((static / inside).is_file() for static in statics)

    return is_file
