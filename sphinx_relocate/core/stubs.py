"""Redirect stubs: what one is, which old pages get one, its page, and the manifest.

* :func:`plan` turns the table into one :class:`Redirect` per old page: its stub file
  (``old.html``, or ``old/index.html`` under dirhtml), the relative URL of the new page and
  a map of old ``#fragment`` → URL from ``[anchors]``.  Old pages that are still pages of
  the build, or that differ from a page only by letter case, get no stub.
* :func:`style_redirects` adds, for a site whose URL style changed
  (``relocate_old_url_styles``), a stub at each page's and old page's URL in the old
  style (``page.html`` → ``page/``); the fragment goes on as it came.
* A stub is rendered without a theme — a string format per stub (:func:`render_default`),
  or a Jinja template (:func:`template_context`) — in the reader's language
  (:class:`StubText`).
* :func:`write_all` writes them with one system call each, and ``_relocate/stubs.json``
  lists every file written, with a hash of its content.  A later build replaces, or deletes
  when the table no longer produces it, a listed file only while its content is still what
  the extension wrote.  Neither writing nor deleting goes through a symbolic link, in any
  part of the path.

The build's side (when to write, what the builder writes itself, the warnings) is
:mod:`sphinx_relocate.sphinx_ext.stubs`.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from html import escape
from json.encoder import encode_basestring_ascii as _json_string
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.ids import make_id
from sphinx_relocate.core.paths import (
    folder_of,
    html_page_path,
    join_relative,
    page_href,
    page_root_url,
    quote_fragment,
    quote_path,
    quote_url,
    relative_path,
    safe_output_path,
)
from sphinx_relocate.core.table import RelocationTable, Target

#: The manifest of every file the extension wrote into the output folder.
MANIFEST = "_relocate/stubs.json"
#: First path segments where Sphinx (or this extension) keeps its own files.
_RESERVED = frozenset(
    {"_relocate", "_static", "_images", "_downloads", "_sources", ".doctrees"}
)
_SPECIAL = re.compile(r"[&<>\"']")
#: the ``anchors`` of a stub without any (nearly every one): one shared, read-only
_NO_ANCHORS: Mapping[str, str] = MappingProxyType({})


# -- the plan ---------------------------------------------------------------------------


@dataclass(slots=True)
class Redirect:
    """One old page and where its stub sends the reader (one per old page: slots)."""

    old: str
    #: the stub file, relative to the output folder
    path: str
    #: the new page from the stub: relative URL (with the target's anchor; under dirhtml
    #: to its ``index.html``, which also opens from disk) or absolute URL
    url: str
    #: the new page's own URL without anchor (a folder under dirhtml): absolute with the
    #: base URL, else relative
    canonical: str
    #: the new page's title, for the visible link
    title: str
    #: where the table sends the old page
    target: Target
    #: old fragment → URL, from ``[anchors]``, ``[labels]`` and a release's inventory
    anchors: Mapping[str, str] = field(default_factory=dict)
    #: the old URL path from the site root, when it is not the old page's URL in the
    #: site's own style (a stub of an old URL style: :func:`style_redirects`)
    old_url: str = ""

    @property
    def new(self) -> str:
        """``docname``, ``docname#anchor`` or a URL."""
        return str(self.target)


@dataclass(frozen=True)
class Skipped:
    """An old page that gets no stub, and the warning to give (``None``: say nothing)."""

    old: str
    path: str
    #: the subtype of the warning to give (``relocate.<subtype>``); ``None``: say nothing
    warning: str | None
    message: str


@dataclass(frozen=True)
class HtmlOutput:
    """What a plan needs to know about the HTML output."""

    dirhtml: bool
    file_suffix: str = ".html"
    link_suffix: str | None = None
    baseurl: str = ""

    def file(self, docname: str) -> str:
        if not self.dirhtml:  # html_page_path's first case, without the call (every stub)
            return docname + self.file_suffix
        return html_page_path(docname, dirhtml=True, file_suffix=self.file_suffix)

    def href(self, from_file: str, target: Target, *, index_file: bool = True) -> str:
        """The URL of ``target`` from the stub ``from_file``: under dirhtml its
        ``index.html`` (a folder URL opened from disk is a folder listing), unless not
        ``index_file`` (the pretty URL, for ``<link rel="canonical">``)."""
        if target.url:
            return quote_url(target.url)
        if not self.dirhtml and self.link_suffix in (None, self.file_suffix):
            # page_href's case of the html builder, without its keyword call (every stub)
            folder = from_file.rpartition("/")[0]
            href = quote_path(relative_path(folder, target.path + self.file_suffix)) or "./"
            return href + "#" + quote_fragment(target.anchor) if target.anchor else href
        return page_href(
            from_file,
            target.path,
            target.anchor,
            dirhtml=self.dirhtml,
            file_suffix=self.file_suffix,
            link_suffix=self.link_suffix,
            index_file=index_file,
        )

    def pretty(self, href: str) -> str:
        """An :meth:`href` to a page as the site names the page itself: without the
        anchor, and under dirhtml without ``index.html`` (``../guide/``)."""
        href = href.partition("#")[0]
        index = "index" + self.file_suffix
        if self.dirhtml and (href == index or href.endswith("/" + index)):
            return href[: -len(index)] or "./"
        return href

    @property
    def root_path(self) -> str:
        """The path the site is served under, from the base URL: ``/en/latest`` or ``""``."""
        return urlsplit(self.baseurl).path.rstrip("/")

    def root_url(self, docname: str) -> str:
        return page_root_url(
            docname,
            dirhtml=self.dirhtml,
            file_suffix=self.file_suffix,
            link_suffix=self.link_suffix,
        )


def old_pages(
    table: RelocationTable, documents: Iterable[str], published: Iterable[str] = ()
) -> list[str]:
    """Every old page that needs a stub: ``[pages]`` keys, ``[prefixes]`` names of documents,
    and the documents a ``[patterns]`` entry with ``replace = true`` turns into stubs.

    ``published`` are pages a release listed (``relocate_published``): those the table
    moves count too, so a ``[patterns]`` or ``[prefixes]`` entry gives them stubs even
    when its target cannot be run backwards (a URL, ``v[12]/*`` → one page).
    """
    found = set(documents)
    old = {name for name in table.pages if name not in found}
    old.update(
        name for name in published if name not in found and table.locate_page(name) is not None
    )
    if table.prefixes or table.patterns:  # without, every old name is a [pages] key already
        for docname in found:
            old.update(name for name in table.old_names(docname) if name not in found)
    if any(pattern.replace for pattern in table.patterns):
        old.update(docname for docname in found if table.replaced(docname))
    return sorted(old)


def old_page_landings(
    table: RelocationTable, documents: set[str], published: Iterable[str] = ()
) -> dict[str, Target]:
    """Each old page that needs a stub (:func:`old_pages`) → the page or URL it lands on,
    for those that land.  The stubs and the inventory's aliases both need it: a build
    works it out once (``sphinx_ext.stubs.landings_of``)."""
    exists = documents.__contains__
    pages = table.pages
    landings: dict[str, Target] = {}
    for old in old_pages(table, documents, published):
        step = pages.get(old)
        if step is not None and (step.url or step.path in documents):
            landings[old] = step  # where locate_reference stops too: the first page there
            continue
        target = table.locate_reference(old, "", exists=exists)
        if target is not None and (target.url or target.path in documents):
            landings[old] = target
    return landings


def plan(
    table: RelocationTable,
    documents: Iterable[str],
    site: HtmlOutput,
    *,
    landings: Mapping[str, Target],
    protected: Iterable[str] = (),
    titles: Mapping[str, str] | None = None,
    labels: Mapping[str, tuple[str, str]] | None = None,
    followed: Mapping[str, Mapping[str, tuple[str, str]]] | None = None,
) -> tuple[list[Redirect], list[Skipped]]:
    """The stubs to write for ``table`` in a site with these ``documents``.

    ``landings`` are :func:`old_page_landings` of these documents; ``protected`` are further
    output files the build writes (``genindex.html``, extra files, ``objects.inv``);
    ``labels`` every label of the project -> its page and anchor, for ``[labels]``;
    ``followed`` each old page -> its published fragments -> where the label or object
    each stood for is now (``core.published.followed_ids``).  ``[anchors]`` come first,
    then ``[labels]``, then ``followed``.
    Returns the redirects, sorted by stub path, and the old pages left out.
    """
    found = set(documents)
    exists = found.__contains__
    pages = {site.file(d): d for d in found}
    others = {safe_output_path(p) or p for p in protected} - pages.keys()
    folded = {p.casefold(): p for p in sorted([*pages, *others])}
    titles = titles or {}
    redirects: dict[str, Redirect] = {}
    skipped: list[Skipped] = []
    # a stub's URLs depend on its folder and target only: worked out once for each pair
    # (thousands of old names merged into one page share it)
    urls: dict[tuple[str, Target], tuple[str, str, str]] = {}
    moved_labels = label_fragments(table, labels) if table.labels and labels else {}
    anchors_by_page = _anchors_by_page(table) if table.anchors else {}

    # an old page with no target page is left out: relocate.target_missing reported it
    for old, target in landings.items():
        path = safe_output_path(site.file(old))
        if path is None or path.partition("/")[0] in _RESERVED:
            shown = path or site.file(old)
            skipped.append(
                Skipped(
                    old,
                    shown,
                    "stub",
                    f"no redirect stub for {old!r}: "
                    f"{shown!r} is not a place for a page in the output folder",
                )
            )
            continue
        clash = folded.get(path.casefold())  # None: no page or other file is there
        if clash is not None:
            skip = _clash(table, old, target, path, clash, pages, others)
            if skip is not None:
                skipped.append(skip)
                continue
        if path in redirects:  # two old names, one file; the first in sorted order wins
            continue
        key = (path.rpartition("/")[0], target)
        landing = urls.get(key)
        if landing is None:
            landing = urls[key] = _urls_and_title(site, path, target, titles)
        anchors: Mapping[str, str] = _NO_ANCHORS
        if anchors_by_page:
            anchors = _old_anchors(table, anchors_by_page, site, old, path, target, exists)
        on_page = moved_labels.get(target.path) if moved_labels and not target.url else None
        if on_page:
            anchors = dict(anchors)
            for fragment, place in on_page.items():
                anchors.setdefault(fragment, site.href(path, place))
        ids = followed.get(old) if followed else None
        if ids:
            anchors = dict(anchors)
            lands = None if target.url or target.anchor else target.path  # #x → its #x
            for fragment, (docname, anchor) in ids.items():
                if exists(docname) and not (docname == lands and anchor == fragment):
                    anchors.setdefault(fragment, site.href(path, Target(docname, anchor)))
        redirects[path] = Redirect(old, path, *landing, target, anchors)
    return [redirects[p] for p in sorted(redirects)], skipped


def _clash(
    table: RelocationTable,
    old: str,
    target: Target,
    path: str,
    clash: str,
    pages: Mapping[str, str],
    others: Collection[str],
) -> Skipped | None:
    """Why the stub ``path`` of ``old`` is not written where the page or file ``clash``
    has the same name but for letter case (or is the same file); ``None``: it is."""
    if path in pages and not (pages[path] == old and table.replaced(old)):
        # dirhtml: 'a' and 'a/index' share a URL, which still works
        return Skipped(old, path, None, "")
    if path in others:
        return Skipped(
            old,
            path,
            "shadowed",
            f"no redirect stub for {old!r}: the build writes its own file {path!r}",
        )
    if clash != path:  # a replaced document is its own page
        return Skipped(
            old,
            path,
            "case_rename",
            f"no redirect stub for {old!r} → {target}: {path!r} and the page "
            f"{clash!r} differ only by letter case, so on case-insensitive file "
            "systems (macOS, Windows) the stub would replace that page; old links "
            "with the old spelling work only where the server ignores case",
        )
    return None


def _urls_and_title(
    site: HtmlOutput, path: str, target: Target, titles: Mapping[str, str]
) -> tuple[str, str, str]:
    """A stub's ``url``, ``canonical`` and ``title`` (see :class:`Redirect`)."""
    url = site.href(path, target)
    if target.url:
        return url, quote_url(target.url), target.url
    if site.baseurl:
        canonical = posixpath.join(site.baseurl, site.root_url(target.path))
    else:
        canonical = site.pretty(url)
    return url, canonical, titles.get(target.path) or target.path


def export_rows(redirects: Iterable[Redirect], site: HtmlOutput) -> list[tuple[str, str]]:
    """The old and new URL paths from the site root (``/old.html``) of each redirect,
    for the server-side exports."""
    rows = []
    for redirect in redirects:
        target, url = redirect.target, redirect.url
        if target.url:
            destination = quote_url(target.url)
        else:
            fragment = url[url.index("#") :] if "#" in url else ""
            destination = "/" + site.root_url(target.path) + fragment
        rows.append((redirect.old_url or "/" + site.root_url(redirect.old), destination))
    return rows


def temporary_urls(
    redirects: Iterable[Redirect], site: HtmlOutput, table: RelocationTable
) -> set[str]:
    """The old URL paths of :func:`export_rows` whose entry asked for ``status = 302``
    (a stub of an old URL style of a page that did not move answers 301)."""
    if not table.temporary:
        return set()
    return {
        redirect.old_url or "/" + site.root_url(redirect.old)
        for redirect in redirects
        if redirect.target != Target(redirect.old) and table.status_of(redirect.old) == 302
    }


# -- old URL styles ---------------------------------------------------------------------

#: The URL styles a site may have had before (``relocate_old_url_styles``): Sphinx's
#: ``html`` (``page.html``) and ``dirhtml`` (``page/``), and the clean URLs of other
#: generators (``page``, MkDocs' and Docusaurus' folders ``folder/``).
URL_STYLES = ("html", "dirhtml", "clean")


def style_url(docname: str, style: str, file_suffix: str = ".html") -> str:
    """The URL path from the site root that ``docname`` had in ``style``."""
    if style == "html":
        return "/" + quote_path(docname + file_suffix)
    if docname == "index" or docname.endswith("/index"):
        return "/" + quote_path(docname[: -len("index")])
    return "/" + quote_path(docname + ("/" if style == "dirhtml" else ""))


def style_file(docname: str, style: str, file_suffix: str = ".html") -> str:
    """The stub file that answers :func:`style_url`: a clean URL's is the ``dirhtml``
    one, which every static server reaches from ``/page`` by adding the slash."""
    return html_page_path(docname, dirhtml=style != "html", file_suffix=file_suffix)


def style_redirects(
    redirects: Iterable[Redirect],
    documents: Iterable[str],
    site: HtmlOutput,
    styles: Iterable[str],
    *,
    taken: Iterable[str],
    titles: Mapping[str, str] | None = None,
) -> list[Redirect]:
    """The stubs at the URLs each page, and each old page of ``redirects``, had in the
    old URL ``styles``, sorted by path: each sends to the page (or where the old page
    went) at its URL in the site's own style.

    ``taken`` are the files the build writes and the other stubs: no stub takes the
    place of one, nor of one that differs only by letter case (where the style is the
    site's own, every file is taken)."""
    folded = {path.casefold() for path in taken}
    named: list[tuple[str, Target, Redirect | None]] = [
        (docname, Target(docname), None) for docname in sorted(documents)
    ]
    named += [(redirect.old, redirect.target, redirect) for redirect in redirects]
    found: dict[str, Redirect] = {}
    for style in styles:
        for name, target, moved in named:
            path = safe_output_path(style_file(name, style, site.file_suffix))
            if (
                path is None
                or path.casefold() in folded
                or path.split("/", 1)[0] in _RESERVED
            ):
                continue
            url, canonical, title = _urls_and_title(site, path, target, titles or {})
            folded.add(path.casefold())
            # the old page's fragments go where they go from its stub in the site's style
            anchors = {fragment: rebased(href, moved.path, path)
                       for fragment, href in moved.anchors.items()} if moved else _NO_ANCHORS
            found[path] = Redirect(
                name, path, url, canonical, title, target, anchors or _NO_ANCHORS,
                old_url=style_url(name, style, site.file_suffix),
            )
    return [found[path] for path in sorted(found)]


def rebased(href: str, from_file: str, to_file: str) -> str:
    """``href``, written in the output file ``from_file``, as written in ``to_file``
    (a URL with a scheme, or from the server's root, stays as it is)."""
    path, hash_mark, fragment = href.partition("#")
    if not path or urlsplit(path).scheme or path.startswith("/"):
        return href
    whole = join_relative(folder_of(from_file), path)
    if path.endswith("/"):  # a folder: the way to a file in it, without the file
        inside = relative_path(folder_of(to_file), f"{whole}/x" if whole else "x")[:-1]
        return (inside or "./") + hash_mark + fragment
    return relative_path(folder_of(to_file), whole) + hash_mark + fragment


def _old_anchors(
    table: RelocationTable,
    by_page: Mapping[str, list[str]],
    site: HtmlOutput,
    old: str,
    path: str,
    target: Target,
    exists: Callable[[str], bool],
) -> dict[str, str]:
    """Old fragment of the stub's page → URL, from ``[anchors]``."""
    anchors: dict[str, str] = {}
    for fragment in sorted({*by_page.get(old, ()), *by_page.get(target.path, ())}):
        moved = table.locate_reference(old, fragment, exists=exists)
        if moved is not None and (moved.url or exists(moved.path)):
            anchors.setdefault(fragment, site.href(path, moved))
    return anchors


def label_fragments(
    table: RelocationTable, labels: Mapping[str, tuple[str, str]]
) -> dict[str, dict[str, Target]]:
    """The page of each label a ``[labels]`` key lands on -> old fragment -> the label's
    place, so that the stub of a page moved there sends ``#old-label`` to the label.

    An old label's anchor is the id docutils gave it (``Install_Label`` →
    ``install-label``) or its name as written.  Only the stubs of old pages that land on
    the label's page get it: where else the old label stood, the table does not say.
    """
    found: dict[str, dict[str, Target]] = {}
    for old in table.labels:
        new = table.locate_label(old, labels.__contains__)
        place = labels.get(new) if new is not None else None
        if place is None:
            continue
        docname, anchor = place
        on_page = found.setdefault(docname, {})
        for fragment in (make_id(old), old):
            if fragment:
                on_page.setdefault(fragment, Target(docname, anchor))
    return found


def _anchors_by_page(table: RelocationTable) -> dict[str, list[str]]:
    """The ``[anchors]`` fragments of each old page (once per plan)."""
    by_page: dict[str, list[str]] = {}
    for page, fragment in table.anchors:
        by_page.setdefault(page, []).append(fragment)
    return by_page


# -- rendering ---------------------------------------------------------------------------


def js_string(value: object) -> str:
    """``value`` as a JavaScript literal that is safe inside ``<script>`` in HTML.

    JSON with ASCII only (so U+2028/U+2029 are escaped) and ``<``, ``>``, ``&`` as
    ``\\u`` escapes, so neither ``</script>`` nor ``<!--`` can appear.
    """
    if isinstance(value, str):
        text = _json_string(value)
    else:
        text = json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    if "<" in text or ">" in text or "&" in text:
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text


#: the start of :data:`_SCRIPT` and :data:`_DEPARTED_SCRIPT`: ``m`` maps old fragments
_LOOKUP = (
    "h=l.hash.slice(1),k=h,u,i,b,f;"
    "try{{k=decodeURIComponent(h)}}catch(e){{}}"
    "var has=function(x){{return Object.prototype.hasOwnProperty.call(m,x)}};"
)
#: their end: the page's ``?query`` goes along to ``u``
_FORWARD = (
    "if(l.search){{i=u.indexOf('#');b=i==-1?u:u.slice(0,i);f=i==-1?'':u.slice(i);"
    "u=b+(b.indexOf('?')==-1?l.search:'&'+l.search.slice(1))+f}}"
    "l.replace(u)}})();</script>"
)
#: Forwards ``?query`` and ``#fragment``: a mapped old fragment wins; a target with its
#: own anchor keeps it (no second ``#``); otherwise the incoming fragment is appended.
#: The code has no ``<`` at all, so nothing in it can close the element.
_SCRIPT = (
    "<script>(function(){{var t={url},m={anchors},l=window.location," + _LOOKUP
    + "u=h&&has(k)?m[k]:h&&has(h)?m[h]:t.indexOf('#')==-1?t+l.hash:t;" + _FORWARD
)
#: A page that is still there, some of whose old fragments went to other pages: a
#: mapped fragment goes there (with the query), any other one stays on the page.
_DEPARTED_SCRIPT = (
    "<script>(function(){{var m={anchors},l=window.location," + _LOOKUP
    + "u=h&&has(k)?m[k]:h&&has(h)?m[h]:'';if(!u)return;" + _FORWARD
)


def departed_script(anchors: Mapping[str, str]) -> str:
    """The ``<script>`` for the ``<head>`` of a page still there whose old fragments
    ``anchors`` (fragment → URL from the page) went to other pages."""
    return _DEPARTED_SCRIPT.format(anchors=js_string(dict(anchors)))

#: :data:`_SCRIPT` around its two values, so a stub joins strings rather than formats one
_SCRIPT_START, _SCRIPT_MIDDLE, _SCRIPT_END = _SCRIPT.format(url="\0", anchors="\0").split("\0")


def _escape(text: str) -> str:
    """``html.escape`` with a fast path for text that needs none."""
    return escape(text) if _SPECIAL.search(text) else text


def head_html(redirect: Redirect) -> str:
    """The tags every stub needs in ``<head>``: robots, canonical, script, no-script refresh.

    The refresh sits in ``<noscript>`` so that it cannot race the script (which keeps the
    query and fragment) and still works with JavaScript off.
    """
    return _head(redirect, _escape(redirect.url))


def _head(redirect: Redirect, url: str) -> str:
    """:func:`head_html` with the stub's URL already escaped for HTML (``url``)."""
    anchors = js_string(dict(redirect.anchors)) if redirect.anchors else "{}"
    return (
        '<meta name="robots" content="noindex">\n'
        f'<link rel="canonical" href="{_escape(redirect.canonical)}">\n'
        + _SCRIPT_START + js_string(redirect.url) + _SCRIPT_MIDDLE + anchors + _SCRIPT_END
        + f'\n<noscript><meta http-equiv="refresh" content="0; url={url}"></noscript>\n'
    )


@dataclass(frozen=True)
class StubText:
    """The words of every stub in one language, HTML-escaped, each split around its
    placeholder, so a stub costs two concatenations, not a translation."""

    #: ``<html lang>``: the BCP 47 form of ``language`` (``pt_BR`` → ``pt-BR``)
    lang: str = "en"
    #: the ``<title>`` around the new page's title
    title: tuple[str, str] = ("Moved: ", "")
    #: the sentence around the link to the new page
    sentence: tuple[str, str] = ("This page has moved to ", ".")
    #: the built-in stub's fixed text around its title, head tags and link
    page: tuple[str, str, str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        page = (
            f'<!DOCTYPE html>\n<html lang="{self.lang}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{self.title[0]}",
            f"{self.title[1]}</title>\n",
            f"</head>\n<body>\n<p>{self.sentence[0]}",
            f"{self.sentence[1]}</p>\n</body>\n</html>\n",
        )
        object.__setattr__(self, "page", page)

    def title_of(self, title: str) -> str:
        return self.title[0] + title + self.title[1]

    def sentence_of(self, link: str) -> str:
        return self.sentence[0] + link + self.sentence[1]


ENGLISH = StubText()


def lang_attribute(language: str | None) -> str:
    """``language`` as HTML's ``lang`` wants it (BCP 47), as Sphinx's themes write it."""
    return _escape((language or "en").replace("_", "-"))


def stub_text(language: str | None, gettext: Callable[[str], str]) -> StubText:
    """The stubs' words in ``language``, from ``gettext`` (the package's catalog).

    A translation without its placeholder (or with a stray ``%``) is not used: that
    string stays English.
    """

    def around(message: str, translated: object, name: str) -> tuple[str, str]:
        text = str(translated)
        placeholder = f"%({name})s"
        if text.count(placeholder) != 1 or "%" in text.replace(placeholder, ""):
            text = message
        before, _, after = _escape(text).partition(placeholder)
        return before, after

    title = "Moved: %(title)s"
    sentence = "This page has moved to %(link)s."
    return StubText(
        lang_attribute(language),
        around(title, gettext(title), "title"),
        around(sentence, gettext(sentence), "link"),
    )


def render_default(redirect: Redirect, text: StubText = ENGLISH) -> str:
    """The built-in stub: a complete page that needs no theme."""
    title, url = _escape(redirect.title), _escape(redirect.url)
    start, title_end, body, end = text.page
    return (
        f'{start}{title}{title_end}{_head(redirect, url)}{body}<a href="{url}">{title}</a>{end}'
    )


def template_context(redirect: Redirect, text: StubText = ENGLISH) -> dict[str, Any]:
    """The variables of a ``relocate_stub_template`` (documented in docs/stubs.md)."""
    from markupsafe import Markup

    title = _escape(redirect.title)
    return {
        "head": Markup(head_html(redirect)),
        "root": "../" * redirect.path.count("/"),
        "url": redirect.url,
        "canonical": redirect.canonical,
        "title": redirect.title,
        "old": redirect.old,
        "new": redirect.new,
        "lang": text.lang,
        "moved_title": Markup(text.title_of(title)),
        "moved_sentence": Markup(
            text.sentence_of(f'<a href="{_escape(redirect.url)}">{title}</a>')
        ),
    }


# -- writing -----------------------------------------------------------------------------


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_EVERY_OPEN = _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
#: a file that may be replaced (ours, or Sphinx's page a stub takes the place of)
_REPLACE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _EVERY_OPEN
#: a file that must not be there yet: ``O_EXCL`` fails on anything, a link too
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _EVERY_OPEN
#: reading never waits on a FIFO (checked to be a regular file once open)
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _EVERY_OPEN


def _read_regular(full: str) -> bytes | None:
    """The bytes of the regular file ``full``, ``None`` when nothing is there.

    Raises ``OSError`` for a symbolic link (never followed), a folder, a FIFO or an
    unreadable file.
    """
    found = _read_regular_stat(full)
    return None if found is None else found[0]


def _read_regular_stat(full: str) -> tuple[bytes, os.stat_result] | None:
    """:func:`_read_regular`, with the file's status (taken on the open file)."""
    if not _NOFOLLOW and os.path.islink(full):  # pragma: no cover - Windows
        raise OSError(f"{full} is a symbolic link")
    try:
        fd = os.open(full, _READ)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise IsADirectoryError(full)
        return handle.read(), status


class Writer:
    """Writes files under one folder and deletes stale ones, never anything outside it
    and never a file the extension did not write.

    Every folder on the way must be a real folder, not a symbolic link (wherever it
    leads), for writing and deleting alike; each is created or checked once, in a loop
    (a key may have thousands of segments).  A file is replaced only when the previous
    manifest lists it and it still holds the bytes written then, or when it is a page
    of Sphinx's that a stub takes the place of (``replaceable``); any other file there
    stays, and its path goes to :attr:`occupied`.
    """

    def __init__(
        self,
        root: Path,
        previous: Mapping[str, str] = MappingProxyType({}),
        replaceable: Collection[str] = (),
    ) -> None:
        self.root = str(root)
        os.makedirs(self.root, exist_ok=True)
        self.real_root = os.path.realpath(self.root)
        self.previous = previous
        self.replaceable = replaceable
        #: folder (relative) -> it is a real folder inside
        self.folders: dict[str, bool] = {"": True}
        #: where a relative path is appended (``os.open`` takes ``/`` on every system)
        self.prefix = os.path.join(self.root, "")
        #: without ``O_NOFOLLOW`` (Windows) a symbolic link is looked for before writing
        self.check_links = not _NOFOLLOW
        #: paths not written because a file the extension did not write is there
        self.occupied: set[str] = set()
        #: each file written (or found in place) -> its :func:`file_stamp`, from the
        #: status of the file while it was open (no second look at each path)
        self.stamps: dict[str, str] = {}

    def folder_ok(self, folder: str, *, create: bool = True) -> bool:
        """Whether ``folder`` (relative) is a real folder inside, each part of it checked
        (and with ``create`` made) from the top down."""
        known = self.folders.get(folder)
        if known is not None:
            return known
        ok, path = True, ""
        for part in folder.split("/"):
            path = f"{path}/{part}" if path else part
            known = self.folders.get(path)
            if known is None:
                known = self._real_folder(path, create)
                if known or create:  # a folder missing while deleting may come later
                    self.folders[path] = known
            if not known:
                ok = False
                break
        if create:
            self.folders[folder] = ok
        return ok

    def _real_folder(self, path: str, create: bool) -> bool:
        """``path``, whose parent is a real folder inside, is (or now is) one too."""
        full = self.prefix + path
        if create:
            try:
                os.mkdir(full)
                return True
            except FileExistsError:
                pass
            except OSError:
                return False
        try:
            mode = os.lstat(full).st_mode
        except OSError:
            return False
        if not stat.S_ISDIR(mode):  # a symbolic link, wherever it leads, or a file
            return False
        if self.check_links:  # pragma: no cover - Windows: a junction is no link to lstat
            inside = os.path.join(self.real_root, path.replace("/", os.sep))
            return os.path.normcase(os.path.realpath(full)) == os.path.normcase(inside)
        return True

    def _taken(self, path: str, data: bytes) -> str | None:
        """Why ``path``, where something already is, is not written; ``None`` when what
        is there is ``data`` already (the manifest that listed it was lost)."""
        full = self.prefix + path
        try:
            found = _read_regular_stat(full)
            if found is not None and found[0] == data:
                self.stamps[path] = _stamp(found[1])
                return None
        except OSError:
            pass
        if os.path.islink(full):
            return f"cannot write {path!r}: it is a symbolic link"
        self.occupied.add(path)
        what = "a folder" if os.path.isdir(full) else "a file"
        return (
            f"{path!r} is {what} sphinx-relocate did not write; it is left as it is "
            "(delete it to have it replaced)"
        )

    def write(self, path: str, data: bytes, *, own: bool = False) -> str | None:
        """Write ``data`` to ``path`` (safe, relative); return an error message or ``None``.

        ``own``: the path is the extension's alone (its manifest), replaced whatever it
        holds.  One ``open``, one ``write`` (more only if the system writes less), one
        ``close``.
        """
        folder = path.rpartition("/")[0]
        if not self.folders.get(folder) and not self.folder_ok(folder):
            return f"{folder!r} is not a folder inside the output folder"
        full = self.prefix + path
        if self.check_links and os.path.islink(full):  # pragma: no cover
            return f"cannot write {path!r}: it is a symbolic link"
        flags = _CREATE
        expected = self.previous.get(path)
        if own or path in self.replaceable:
            flags = _REPLACE
        elif expected is not None:
            try:
                found = _read_regular_stat(full)
            except OSError as err:
                return f"cannot write {path!r}: {err.strerror or err}"
            current = None if found is None else found[0]
            if found is not None and current == data:
                self.stamps[path] = _stamp(found[1])
                return None  # nothing to do
            if current is not None and digest(current) != expected:
                self.occupied.add(path)
                return (
                    f"{path!r} was changed since sphinx-relocate wrote it; it is left as it "
                    "is (delete it to have it replaced)"
                )
            flags = _REPLACE
        try:
            fd = os.open(full, flags, 0o666)
        except FileExistsError:
            return self._taken(path, data)
        except OSError as err:
            return f"cannot write {path!r}: {err.strerror or err}"
        try:
            try:
                done = os.write(fd, data)
                if done < len(data):  # pragma: no cover - a full disk, a signal
                    view = memoryview(data)[done:]
                    while view:
                        view = view[os.write(fd, view) :]
                self.stamps[path] = _stamp(os.fstat(fd))
            finally:
                os.close(fd)
        except OSError as err:  # pragma: no cover - a full disk
            return f"cannot write {path!r}: {err.strerror or err}"
        return None

    def remove_stale(self, path: str, expected: str | None) -> bool:
        """Delete ``path`` if it still holds what the extension wrote (hash ``expected``;
        ``None``: whatever it holds), then the folders it leaves empty.

        Only a regular file reached through real folders inside is deleted: the same
        check as for writing, on every part of the path.
        """
        folder = path.rpartition("/")[0]
        if not self.folder_ok(folder, create=False):
            return False
        full = self.prefix + path
        try:
            current = _read_regular(full)
            if current is None or (expected is not None and digest(current) != expected):
                return False
            os.unlink(full)
        except OSError:
            return False
        while folder:  # each one a real folder inside, checked above
            try:
                os.rmdir(self.prefix + folder)
            except OSError:
                break
            self.folders.pop(folder, None)
            folder = folder.rpartition("/")[0]
        return True


def read_manifest(outdir: Path) -> dict[str, str]:
    """The files a previous build wrote, with their hashes; empty when unreadable."""
    try:
        raw = _read_regular(os.path.join(outdir, MANIFEST))
        data = json.loads(raw or b"")
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {
        safe: str(value)
        for key, value in files.items()
        if isinstance(key, str) and (safe := safe_output_path(key)) is not None
    }


# -- a step with nothing to do ------------------------------------------------------------


@dataclass(frozen=True)
class Stamps:
    """What the last stub step was planned from, and how its files stood right after it.

    Kept with the build's other caches (the doctree folder), not in the output folder,
    which holds the same bytes for the same site whatever the file system did.
    """

    #: a hash of everything the plan was made from
    inputs: str
    #: each file it wrote or found in place -> its :func:`file_stamp` (which names the
    #: file's inode: the same paths in another output folder are other files)
    files: Mapping[str, str]
    #: the builder's own pages (genindex, search, ...) the plan kept clear of
    pages: tuple[str, ...] = ()


def file_stamp(full: str) -> str | None:
    """What tells a file from the one a build wrote, short of reading it: its inode,
    size and modification and change times (``None``: not a regular file there).  A
    change time cannot be set back, so an edit shows even where a tool keeps the size
    and the modification time."""
    try:
        found = os.lstat(full)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    return _stamp(found)


def _stamp(status: os.stat_result) -> str:
    return f"{status.st_ino} {status.st_size} {status.st_mtime_ns} {status.st_ctime_ns}"


def write_stamps(path: Path, stamps: Stamps | None) -> None:
    """Keep ``stamps`` at ``path``; ``None`` removes what is there (the next step runs
    whole).  Only the next build's time depends on it: a failure is no error."""
    try:
        if stamps is None:
            os.unlink(path)
            return
        data = {"version": 1, "inputs": stamps.inputs, "files": dict(stamps.files),
                "pages": list(stamps.pages)}
        write_atomically(path, json.dumps(data, sort_keys=True).encode("utf-8"))
    except OSError:
        pass


def read_stamps(path: Path) -> Stamps | None:
    """The stamps kept at ``path``; ``None`` when there are none or they are unreadable."""
    try:
        data = json.loads(_read_regular(str(path)) or b"")
        inputs, files, pages = data["inputs"], data["files"], data.get("pages", [])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    if not (isinstance(inputs, str) and isinstance(files, dict) and isinstance(pages, list)
            and all(isinstance(item, str) for item in [*files.values(), *pages])):
        return None
    return Stamps(inputs, files, tuple(pages))


def unchanged(
    outdir: Path, manifest: Mapping[str, str], stamps: Stamps | None, inputs: str
) -> bool:
    """Whether the stubs and exports in ``outdir`` are what a plan made from ``inputs``
    would write, each still standing as the last step left it: then there is nothing to do.

    A build that changed nothing (sphinx-autobuild's, CI's second run) skips planning,
    rendering and reading back every stub; a stub deleted or edited since, another
    manifest, or any input makes the step run whole (and warn again where it warned).
    """
    if (stamps is None or not manifest or stamps.inputs != inputs
            or len(stamps.files) != len(manifest)):
        return False
    prefix = os.path.join(str(outdir), "")
    files = stamps.files
    return all(
        (stamp := files.get(path)) is not None and file_stamp(prefix + path) == stamp
        for path in manifest
    )


def rendered(
    redirects: Iterable[Redirect], render: Callable[[Redirect], str]
) -> Iterator[tuple[str, bytes]]:
    """Each stub's path and bytes, made as it is written: no stub waits in memory."""
    for redirect in redirects:
        yield redirect.path, render(redirect).encode("utf-8")


def rendered_default(
    redirects: Iterable[Redirect], text: StubText = ENGLISH
) -> Iterator[tuple[str, bytes]]:
    """:func:`rendered` with the built-in page (:func:`render_default`), which depends on
    a stub's URLs, title and anchors only: a stub that shares them with the one before
    (old pages of one folder sent to one page, in path order) gets the same bytes,
    rendered once."""
    shape: tuple[str, str, str, Mapping[str, str]] | None = None
    data = b""
    for redirect in redirects:
        key = (redirect.url, redirect.canonical, redirect.title, redirect.anchors)
        if key != shape:
            shape, data = key, render_default(redirect, text).encode("utf-8")
        yield redirect.path, data


@dataclass
class Written:
    """What :func:`write_all` did in the output folder."""

    #: the new manifest: path -> hash of the content written (or found already there)
    files: dict[str, str]
    #: the stale files it deleted
    removed: list[str]
    #: the paths it left alone because a file the extension did not write is there
    occupied: set[str]
    #: each file of :attr:`files` -> its :func:`file_stamp` once written (or found)
    stamps: dict[str, str] = field(default_factory=dict)


def write_all(
    outdir: Path,
    files: Iterable[tuple[str, bytes]],
    previous: Mapping[str, str],
    protected: set[str],
    on_error: Callable[[str, str], None],
    replaceable: Collection[str] = (),
) -> Written:
    """Write ``files`` (path, bytes) in their order, drop stale ones from ``previous``,
    update the manifest.

    ``protected`` are never deleted; ``replaceable`` are Sphinx's pages that a stub
    may take the place of (see :class:`Writer`).
    """
    writer = Writer(outdir, previous, replaceable)
    write = writer.write
    written: dict[str, str] = {}
    last, hashed = b"", digest(b"")  # stubs that share their bytes share one hash
    for path, data in files:
        error = write(path, data)
        if error is None:
            if data is not last:
                last, hashed = data, digest(data)
            written[path] = hashed
        else:
            on_error(path, error)
    removed = [
        path
        for path in sorted(previous.keys() - written.keys() - protected - {MANIFEST})
        if writer.remove_stale(path, previous[path])
    ]
    if written:
        body = json.dumps({"version": 1, "files": written}, indent=1, sort_keys=True) + "\n"
        writer.write(MANIFEST, body.encode("utf-8"), own=True)
    elif previous:
        writer.remove_stale(MANIFEST, None)
    stamps = writer.stamps
    return Written(written, removed, writer.occupied,
                   {path: stamps[path] for path in written if path in stamps})
