"""The landing oracle: where every link of a built site lands, page by page.

Resolution is judged by where links land, not by a warning count.  The oracle is the
original layout built with plain Sphinx: each link's landing (a page and anchor, or
the bytes of an image or download), carried through the relocation table, is where
the same link must land in the moved layout built with the extension, and in the
moved layout after ``sphinx-relocate rewrite --write`` built without it.

:func:`landings` reads an HTML output folder; :func:`compare` lists every link that
lands elsewhere (or nowhere) in the second site.  Run as a script to compare two
output folders by hand::

    python tests/oracle.py ORIGINAL_HTML MOVED_HTML MOVED/relocations.toml [REPO_URL]
"""

from __future__ import annotations

import hashlib
import html
import posixpath
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

_BODY = re.compile(r'<div class="body" role="main">(.*?)<div class="sphinxsidebar"', re.S)
_LINK = re.compile(r"<a\s([^>]*)>(.*?)</a>", re.S)
_IMG = re.compile(r"<img\s([^>]*)>", re.S)
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_TAG = re.compile(r"<[^>]+>")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
#: code as a page shows it: literal blocks, inline literals and HTML comments
_LITERAL = re.compile(r"<pre\b[^>]*>.*?</pre>|<code\b[^>]*>.*?</code>|<!--.*?-->", re.S)
_SOURCE_SUFFIXES = (".md", ".rst", ".txt")


@dataclass(frozen=True)
class Link:
    """One link or image of a page: its text and where it lands."""

    text: str
    #: ``page:DOCNAME#anchor``, ``file:SHA256`` or ``none:HREF`` (lands on nothing)
    landing: str


def _attributes(text: str) -> dict[str, str]:
    return {m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or "")
            for m in _ATTR.finditer(text)}


def _docname_of(path: str) -> str | None:
    if path.endswith(".html"):
        return path[: -len(".html")]
    return None


def landings(outdir: Path, srcdir: Path | None = None) -> dict[str, list[Link]]:
    """docname → the links and images of its page body, in document order.

    Raw HTML is copied to the output as written, so a plain build leaves its source
    paths (``<img src="img/a.png">``, ``<a href="page.md">``): those land on the source
    file they name, which is what their author meant.
    """
    pages: dict[str, list[Link]] = {}
    docs = {p.relative_to(outdir).as_posix()[: -len(".html")]
            for p in outdir.rglob("*.html") if not p.relative_to(outdir).as_posix().startswith("_")}
    elements = _Elements(outdir)
    for docname in sorted(docs):
        text = (outdir / f"{docname}.html").read_text("utf-8")
        body = _BODY.search(text)
        if body is None or 'http-equiv="refresh"' in text[:2000]:
            continue  # a redirect stub, or not a page
        folder = posixpath.dirname(docname)
        found: list[tuple[int, Link]] = []
        page = _COMMENT.sub("", body.group(1))  # a link in a comment is no link
        for match in _LINK.finditer(page):
            attrs = _attributes(match.group(1))
            href = attrs.get("href")
            if href is None or "headerlink" in attrs.get("class", ""):
                continue
            label = " ".join(html.unescape(_TAG.sub("", match.group(2))).split())
            landing = _land(elements, srcdir, docs, folder, docname, href)
            found.append((match.start(), Link(label, landing)))
        for match in _IMG.finditer(page):
            src = _attributes(match.group(1)).get("src", "")
            landing = _land(elements, srcdir, docs, folder, docname, src)
            found.append((match.start(), Link("<img>", landing)))
        pages[docname] = [link for _, link in sorted(found, key=lambda item: item[0])]
    return pages


def literals(outdir: Path) -> dict[str, list[str]]:
    """docname → the text of its code (literal blocks, inline literals) and HTML comments,
    in document order: text that holds no link, so a build and ``rewrite`` must keep it."""
    pages: dict[str, list[str]] = {}
    for file in sorted(outdir.rglob("*.html")):
        docname = file.relative_to(outdir).as_posix()[: -len(".html")]
        body = _BODY.search(file.read_text("utf-8"))
        if body is None or docname.startswith("_"):
            continue
        pages[docname] = [
            html.unescape(_TAG.sub("", m.group())) if not m.group().startswith("<!--")
            else m.group()
            for m in _LITERAL.finditer(body.group(1))
        ]
    return pages


_ID = re.compile(r"""<[a-zA-Z][^>]*?\sid="([^"]*)"[^>]*>""")
_BETWEEN = re.compile(r"^(?:\s|</?span>)*$")
#: a heading right after an id (``match`` at a position: no ``^`` needed)
_HEADING = re.compile(r"\s*(?:</span>\s*)?<h[1-6][^>]*>(.*?)<a class=\"headerlink\"", re.S)
_SLUG_CLEAN = re.compile(r"[^\w\u4e00-\u9fff\- ]")


class _Elements:
    """The element each fragment of a page names, read from the page's HTML once.

    One heading carries several ids (a label, docutils' ``id1``, MyST's slug); a link
    to any of them lands on the same place, so each maps to the first id of its group.
    A fragment that names no id but is the GitHub-style slug of a heading (what MyST
    resolves) lands on that heading too.
    """

    def __init__(self, outdir: Path) -> None:
        self.outdir = outdir
        self.pages: dict[str, dict[str, str]] = {}

    def canonical(self, docname: str, fragment: str) -> str:
        page = self.pages.get(docname)
        if page is None:
            page = self.pages[docname] = self._read(docname)
        return page.get(fragment, fragment)

    def _read(self, docname: str) -> dict[str, str]:
        text = (self.outdir / f"{docname}.html").read_text("utf-8")
        found: dict[str, str] = {}
        group = ""
        end = -1
        for match in _ID.finditer(text):
            ident = match.group(1)
            if end < 0 or not _BETWEEN.match(text[end : match.start()]):
                group = ident
            found.setdefault(ident, group)
            end = match.end()
            heading = _HEADING.match(text, end)
            if heading is not None:
                title = html.unescape(_TAG.sub("", heading.group(1))).strip()
                found.setdefault(_SLUG_CLEAN.sub("", title.lower().replace(" ", "-")), group)
        return found


def _land(
    elements: _Elements, srcdir: Path | None, docs: set[str], folder: str, docname: str,
    href: str,
) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
        return f"url:{unquote(href)}"  # one URL, whether written percent-encoded or not
    path, _, fragment = href.partition("#")
    path = unquote(path.partition("?")[0])
    fragment = unquote(fragment)
    if not path:
        return f"page:{docname}#{elements.canonical(docname, fragment)}"
    target = posixpath.normpath(posixpath.join(folder, path))
    name = _docname_of(target)
    if name not in docs:
        for suffix in _SOURCE_SUFFIXES:  # raw HTML written with the source's name
            if target.endswith(suffix) and target[: -len(suffix)] in docs:
                name = target[: -len(suffix)]
    if name in docs:
        return f"page:{name}#{elements.canonical(name, fragment) if fragment else ''}"
    if target.startswith("_modules/") and target.endswith(".html"):
        # viewcode's page of a module: made by the build, with links back to the pages
        # that document it (moved pages' new names), so its bytes differ
        return f"built:{target}#{fragment}"
    outdir = elements.outdir
    for root in (outdir, srcdir):
        file = root / target if root is not None else None
        if file is not None and file.is_file():
            return "file:" + hashlib.sha256(file.read_bytes()).hexdigest()[:16]
    return f"none:{href}"


def carried(
    original: dict[str, list[Link]], locate: Callable[[str], str], repo_url: str = ""
) -> dict[str, list[Link]]:
    """The original landings with every page name carried through the table.

    A URL of the page's source on the forge (``repo_url`` + ``page.md``, the docs at the
    repository's root) is carried to the URL of the page's new source.
    """
    result: dict[str, list[Link]] = {}
    for docname, links in original.items():
        moved = []
        for link in links:
            landing = link.landing
            if landing.startswith("page:"):
                name, _, anchor = landing[len("page:") :].partition("#")
                landing = f"page:{locate(name)}#{anchor}"
            elif repo_url and landing.startswith("url:" + repo_url):
                path, sep, anchor = landing[len("url:" + repo_url) :].partition("#")
                stem, suffix = posixpath.splitext(path)
                if suffix in _SOURCE_SUFFIXES:
                    landing = f"url:{repo_url}{locate(stem)}{suffix}{sep}{anchor}"
            moved.append(Link(link.text, landing))
        result[locate(docname)] = moved
    return result


def expected(
    original_html: Path, original_src: Path, table_file: Path, moved_docs: set[str],
    repo_url: str = "",
) -> dict[str, list[Link]]:
    """Where every link of the moved layout must land: the original's, through the table."""
    from sphinx_relocate.core.table import load_table

    table, problems = load_table(table_file, source_suffixes=_SOURCE_SUFFIXES)
    assert not [p for p in problems if p.fatal], problems

    def locate(name: str) -> str:
        target = table.locate_page(name, moved_docs.__contains__)
        return target.path if target is not None and not target.url else name

    return carried(landings(original_html, original_src), locate, repo_url)


@dataclass(frozen=True)
class Miss:
    """A link that does not land where the oracle says."""

    docname: str
    index: int
    text: str
    expected: str
    actual: str

    def __str__(self) -> str:
        where = f"{self.docname} #{self.index} {self.text!r}"
        return f"{where}: {self.actual} (expected {self.expected})"


def compare(expected: dict[str, list[Link]], actual: dict[str, list[Link]]) -> list[Miss]:
    """Every link of ``expected`` that lands elsewhere in ``actual``, occurrence by occurrence."""
    misses: list[Miss] = []
    for docname, links in sorted(expected.items()):
        got = actual.get(docname)
        if got is None:
            misses.append(Miss(docname, 0, "", "a page", "no page"))
            continue
        if docname == "genindex":  # entries of one term are listed in docname order
            links, got = (sorted(link.landing for link in found) for found in (links, got))
            if links != got:
                misses.append(Miss(docname, 0, "", " ".join(links), " ".join(got)))
            continue
        if [link.text for link in links] != [link.text for link in got]:
            misses.append(Miss(docname, 0, "", f"{len(links)} links", f"{len(got)} links"))
            continue
        for index, (want, have) in enumerate(zip(links, got, strict=True)):
            if want.landing != have.landing:
                misses.append(Miss(docname, index, want.text, want.landing, have.landing))
    return misses


def wrong_pages(misses: list[Miss]) -> list[Miss]:
    """The misses that land on an existing, wrong page (worse than a dangling link)."""
    return [m for m in misses if m.actual.startswith(("page:", "file:"))]


def main(argv: list[str]) -> int:
    original, moved, table_file = (Path(a) for a in argv[:3])
    repo_url = argv[3] if len(argv) > 3 else ""
    after = landings(moved, moved.parent.parent)
    want = expected(original, original.parent.parent, table_file, set(after), repo_url)
    links = sum(len(found) for found in want.values())
    if not want:  # a gate that checked nothing does not pass
        print(f"{original}: no page body found (the oracle reads alabaster's layout: "
              "build both sides with -D html_theme=alabaster)")
        return 2
    misses = compare(want, after)
    for miss in misses:
        print(miss)
    print(f"compared {links} links on {len(want)} pages: "
          f"{len(misses)} misses, {len(wrong_pages(misses))} on a wrong page")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
