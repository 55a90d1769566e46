#!/usr/bin/env python3
"""Generate a large, deterministic Sphinx project and a reorganized copy of it.

The benchmarks need a corpus that looks like a real documentation set and a
reorganization of it that breaks references the way real ones do.  This script
writes, under ``--out``:

``original/``
    N pages (about 70 % MyST, 30 % reST) in a folder tree of depth 1-4.  Every folder
    has an ``index`` page whose toctree lists its pages and subfolders, so the pages
    form one tree under the root ``index``.  Each page has a title and 3-5 sections
    (some headings CJK, some file names CJK), about 15 cross-references of every kind
    (relative Markdown links with and without anchors, CJK heading slugs included,
    ``:doc:`` relative and absolute, ``:ref:``), 1-2 images (one in the folder's
    ``img/``, one shared from ``/images``) and, in about 20 % of the pages, a raw
    HTML block with ``<a href>`` and ``<img src>``.  It builds with 0 warnings.
``moved/``
    The same page texts, byte for byte, with ``--move-fraction`` of the pages
    relocated: whole folders moved (with their images) and pages moved one level
    deeper, renamed, or into other and new folders; images of single moved pages stay
    where they were.  ``relocations.toml`` lists the moves (``[prefixes]`` for folders,
    ``[pages]`` for pages); ``_relocate/`` holds the same moves for sphinx-reredirects
    (``reredirects.py``) and sphinxext-rediraffe (``rediraffe.txt``), with every page
    of a moved folder spelled out, because neither knows folders.
``manifest.json``
    The parameters and counts.

``--ambiguity`` (``generate(..., ambiguity=True)``; without it the output is byte for byte
what it always was) makes on purpose the links a moved page's old and new folders both
resolve, each to another page, while ``original/`` still builds with 0 warnings and every
link there has one meaning, its author's.  The references it adds to a page are a last
paragraph, ``Related: ...``; its includes come after it.

- About 4 % of the pages (at least 3; MyST pages two to one, folders of depth 2 or more
  first) move one by one to another folder of the same depth (under another parent when
  the depth is 2 or more; when no folder fits, a new one, ``<word>-a<k>/`` with an
  ``index.md``, is made under another parent).  Each such page links ``index.md`` /
  ``{doc}`index``` (its folder's index), ``../index.md`` / ``{doc}`../index``` (depth 2
  or more) and a sibling, ``name.md`` / ``{doc}`name```, preferably one it already links;
  a decoy page of that file name and suffix is made in the new folder (a real page of
  both layouts, in that folder's toctree), so each name exists from both folders.  The
  ``.md`` spelling is used only where both pages have that suffix, ``{doc}`` otherwise;
  reST pages use ``:doc:``.  MyST pages also link some of them with an anchor that only
  the meant page has (a heading slug, or a label of a reST page) and with one both pages
  have (a heading of the meant page that the decoy, or the other index, has as well:
  copied there).
- About 1 % of the pages (at least 1) of those are *close*: their other references are
  written absolute (same landing from both folders) and they have no raw HTML, so
  exactly one link, besides the page's own image, lands from the old folder only (an
  out-and-back link, or a sibling the new folder has no page for).  Every other such page
  is given such links, if it needs them, until it has two where its old folder allows
  (so far always); a page that cannot have one stays where it is.
- About 1 % of the pages (at least 1) become folders: ``d/foo.md`` (listed in
  ``d/index``'s toctree, linked from other pages) moves to ``d/foo/overview.md``, table
  entry ``"d/foo" = "d/foo/overview"``.
- Out-and-back links, ``../d/other.md`` or ``{doc}`../d/other``` written in ``d/``, in
  pages of moved folders, pages moved one by one and pages that stay (about 3 %).
- Links to a page's source on the project's forge: ``conf.py`` sets ``relocate_repo_url =
  "https://forge.example/org/repo/blob/main/"`` and ``relocate_repo_root = "."`` (plain
  Sphinx ignores both), and about 3 % of the pages link ``[T (source)](<url><docname>.md)``
  (MyST) or ```` `T (source) <<url><docname>.rst>`_ ```` (reST), to moved pages as well.
- Include fragments ``_fragments/notice.md``, ``support.md`` and ``notice.rst``, one plain
  paragraph each (no links), included with ``{include}`` / ``.. include::`` and a relative
  path by about 3 % of the pages (moved ones first); ``moved/`` has them in
  ``_snippets/``, table entry ``[prefixes] "_fragments/" = "_snippets/"``, and
  ``exclude_patterns`` lists both folders.

The other moves stay unambiguous, as without the mode (one that the new pages made
ambiguous is undone).  The manifest adds the counts: ``ambiguous_links`` (relative
references of moved pages that, written from the new folder, name another existing page
or file, as written; ``ambiguous_links_added`` of them added), ``anchor_on_meant_page_only``,
``anchor_on_both_pages``, ``ambiguous_pages``, ``close_vote_pages``, ``decoy_pages``,
``become_folders``, ``out_and_back``, ``repo_urls``, ``includes``, and which pages moved.

Both projects share one ``conf.py``; ``SPHINX_RELOCATE_BENCH`` picks the extension:
``plain`` (default), ``relocate``, ``control`` (sphinx_relocate on ``original/``, which
has no table: the extension with nothing to relocate), ``reredirects`` or ``rediraffe``.

Standard library only: the same arguments give the same bytes on every machine.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import random
import re
import shutil
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

_WORDS = """
api auth backup batch build cache client cluster config deploy driver event export filter
gateway guide hook import kernel layout metric model monitor network node plugin policy proxy
queue quota release render route runtime schema search server shard storage stream task theme
token tuning upgrade worker
"""
_CJK = "安装指南 配置说明 快速开始 常见问题 性能调优 部署流程 接口参考 数据迁移 故障排查 版本说明 权限管理 最佳实践 并行训练 内存优化 特性总览"  # noqa: E501
WORDS = tuple(_WORDS.split())
CJK = tuple(_CJK.split())
MAX_DEPTH = 4
_SLUG_DROP = re.compile(r"[^\w\u4e00-\u9fff\- ]")


def slug(title: str) -> str:
    """The anchor MyST derives from a heading (``myst_heading_anchors``, GitHub style)."""
    return _SLUG_DROP.sub("", title.lower().replace(" ", "-"))


def relpath(target: str, from_doc: str) -> str:
    """``target`` (a path from the source root) as written in document ``from_doc``."""
    return posixpath.relpath(target, posixpath.dirname(from_doc) or ".")


@dataclass
class Extra:
    """A reference the ambiguity mode adds to a page, as written in it."""

    #: the reference in the page's markup
    text: str
    #: the relative path as written, without its anchor ("" for an absolute URL)
    path: str
    #: what it means in the original layout, spelled as :func:`relative_paths` spells it
    meant: str
    #: why it is there: ambiguous, anchor-one, anchor-both, vote, out-and-back, repo-url
    feature: str
    anchor: str = ""


@dataclass
class Page:
    number: int
    docname: str
    suffix: str
    title: str
    headings: list[str] = field(default_factory=list)
    toctree: list[str] = field(default_factory=list)
    #: (kind, target page number, section index or None)
    links: list[tuple[str, int, int | None]] = field(default_factory=list)
    shared_image: int | None = None
    raw_html: bool = False
    #: references added by the ambiguity mode, written out (a paragraph at the end)
    extra: list[Extra] = field(default_factory=list)
    #: lines appended at the end of the page (the ambiguity mode's includes)
    tail: list[str] = field(default_factory=list)

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.docname)

    @property
    def name(self) -> str:
        return posixpath.basename(self.docname)

    @property
    def markdown(self) -> bool:
        return self.suffix == ".md"

    @property
    def image(self) -> str:
        """The page's own image, in its folder's ``img/``."""
        return posixpath.join(self.folder, "img", f"fig-{self.number}.png")

    def label(self, section: int | None) -> str:
        return f"p{self.number}" if section is None else f"p{self.number}-s{section}"

    def anchor(self, section: int) -> str:
        """What a Markdown link writes after ``#``: the slug on MyST pages, a label on reST."""
        return slug(self.headings[section]) if self.markdown else self.label(section)


def heading(rng: random.Random, number: int, cjk: float) -> str:
    if rng.random() < cjk:
        return f"{rng.choice(CJK)} {number}"
    return f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {number}"


# -- the original project ------------------------------------------------------------


def make_folders(count: int, rng: random.Random) -> list[str]:
    """``count`` folders in a tree of depth 1-4, parents before children."""
    folders: list[str] = []
    parents = [""]
    for k in range(count):
        parent = "" if k < max(2, count // 8) else rng.choice(parents)
        folder = posixpath.join(parent, f"{rng.choice(WORDS)}-{k}")
        folders.append(folder)
        if folder.count("/") + 1 < MAX_DEPTH:
            parents.append(folder)
    return folders


def make_pages(total: int, md_share: float, rng: random.Random) -> tuple[list[str], list[Page]]:
    folders = make_folders(max(1, round(total / 12)), rng)
    if total < len(folders) + 2:
        raise SystemExit("gen_corpus: --pages must be at least 3")

    def suffix() -> str:
        return ".md" if rng.random() < md_share else ".rst"

    pages = [Page(0, "index", ".md", "Relocation benchmark")]
    for folder in folders:
        title = posixpath.basename(folder).replace("-", " ").title()
        pages.append(Page(len(pages), f"{folder}/index", suffix(), title))
    while len(pages) < total:
        number = len(pages)
        folder = rng.choice(folders)
        stem = rng.choice(CJK) if rng.random() < 0.03 else rng.choice(WORDS)
        pages.append(
            Page(number, f"{folder}/{stem}-{number}", suffix(), heading(rng, number, 0.15))
        )
    index_of = {posixpath.dirname(p.docname): p for p in pages[: len(folders) + 1]}
    for page in pages[1:]:
        parent_folder = page.folder if page.name != "index" else posixpath.dirname(page.folder)
        index_of[parent_folder].toctree.append(page.docname)
    for page in pages:
        page.toctree.sort()
        page.headings = [heading(rng, k + 1, 0.3) for k in range(rng.randint(3, 5))]
        page.shared_image = rng.randrange(24) if rng.random() < 0.5 else None
        page.raw_html = rng.random() < 0.2
    return folders, pages


MD_KINDS = ("md", "md#", "doc", "docabs", "ref")
MD_WEIGHTS = (35, 25, 12, 5, 23)
RST_KINDS = ("doc", "docabs", "ref")
RST_WEIGHTS = (55, 10, 35)


def plan_links(pages: list[Page], per_page: int, rng: random.Random) -> None:
    """About ``per_page`` references per page; half stay in the page's top folder."""
    by_top: dict[str, list[Page]] = {}
    for page in pages:
        by_top.setdefault(page.docname.split("/", 1)[0], []).append(page)
    for page in pages:
        near = by_top[page.docname.split("/", 1)[0]]
        kinds, weights = (MD_KINDS, MD_WEIGHTS) if page.markdown else (RST_KINDS, RST_WEIGHTS)
        for _ in range(rng.randint(per_page - 3, per_page + 3)):
            target = page
            while target is page:
                target = rng.choice(near if len(near) > 1 and rng.random() < 0.5 else pages)
            kind = rng.choices(kinds, weights)[0]
            if target.name == "index" and page.docname.startswith(target.folder):
                # the index of a folder above: a relative path to it ("../index.md")
                # names another index once the page moves, so these stay absolute
                kind = {"md": "ref", "md#": "ref", "doc": "docabs"}.get(kind, kind)
            section = None
            if kind == "md#" or (kind == "ref" and rng.random() < 0.7):
                section = rng.randrange(len(target.headings))
            page.links.append((kind, target.number, section))


def reference(page: Page, kind: str, target: Page, section: int | None) -> str:
    text = target.title if section is None else target.headings[section]
    if kind in ("md", "md#"):
        path = relpath(target.docname + target.suffix, page.docname)
        anchor = "" if section is None else "#" + target.anchor(section)
        return f"[{text}]({path}{anchor})"
    if kind == "ref":
        role, name = "ref", target.label(section)
    else:
        role = "doc"
        name = "/" + target.docname if kind == "docabs" else relpath(target.docname, page.docname)
    return f"{{{role}}}`{text} <{name}>`" if page.markdown else f":{role}:`{text} <{name}>`"


def html_targets(page: Page) -> tuple[int, int]:
    """The two pages a raw HTML block links to: the first and last relative links' targets."""
    relative = [n for kind, n, _ in page.links if kind in ("md", "md#", "doc")]
    relative = relative or [n for _, n, _ in page.links]
    return relative[0], relative[-1]


def raw_html(page: Page, pages: list[Page]) -> list[str]:
    """A legacy HTML block: links as the author wrote them, and the page's own image."""
    first, second = (pages[n] for n in html_targets(page))
    if page.markdown:  # Markdown authors link to the source file, as on the forge
        hrefs = [relpath(first.docname + first.suffix, page.docname),
                 relpath(second.docname + second.suffix, page.docname)]
        if second.markdown:
            hrefs[1] += "#" + second.anchor(0)
    else:  # reST authors link to the built page
        hrefs = [relpath(first.docname, page.docname) + ".html",
                 relpath(second.docname, page.docname) + ".html"]
    return [
        '<table class="legacy"><tr>',
        f'<td><a href="{hrefs[0]}">{first.title}</a></td>',
        f'<td><a href="{hrefs[1]}">{second.title}</a></td>',
        f'<td><img src="{relpath(page.image, page.docname)}" width="24" alt="fig"></td>',
        "</tr></table>",
    ]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))).capitalize() + "."


def render(page: Page, pages: list[Page], rng: random.Random) -> str:
    """The page's text, written against its original location."""
    md = page.markdown
    refs = [reference(page, kind, pages[t], s) for kind, t, s in page.links]
    per_section = -(-len(refs) // len(page.headings))
    out: list[str] = []

    def title(text: str, label: str, level: int) -> None:
        if md:
            out.extend([f"({label})=", "#" * level + " " + text, ""])
        else:  # a CJK glyph is two columns wide
            width = sum(2 if ord(c) > 0x2E80 else 1 for c in text)
            out.extend([f".. _{label}:", "", text, "=-"[level - 1] * width, ""])

    def image(path: str, alt: str) -> None:
        out.extend([f"![{alt}]({path})" if md else f".. image:: {path}\n   :alt: {alt}", ""])

    title(page.title, page.label(None), 1)
    out.extend([sentence(rng), ""])
    image(relpath(page.image, page.docname), f"figure {page.number}")
    if page.toctree:
        entries = [relpath(child, page.docname) for child in page.toctree]
        if md:
            out.extend(["```{toctree}", ":maxdepth: 2", "", *entries, "```", ""])
        else:
            out.extend([".. toctree::", "   :maxdepth: 2", "", *("   " + e for e in entries), ""])
    for k, text in enumerate(page.headings):
        title(text, page.label(k), 2)
        chunk = refs[k * per_section : (k + 1) * per_section]
        see = " See " + ", ".join(chunk) + "." if chunk else ""
        out.extend([sentence(rng) + see, "", sentence(rng), ""])
        if k == 0 and page.shared_image is not None:
            image(relpath(f"images/shared-{page.shared_image}.png", page.docname), "shared")
        if k == 1 and page.raw_html:
            block = raw_html(page, pages)
            if not md:
                block = [".. raw:: html", "", *("   " + b for b in block)]
            out.extend([*block, ""])
    if page.extra:
        out.extend(["Related: " + ", ".join(e.text for e in page.extra) + ".", ""])
    out.extend(page.tail)
    return "\n".join(out)


def png(seed: int) -> bytes:
    """A small solid-colour PNG (stdlib only)."""
    width, height = 8 + seed % 17, 8 + (seed >> 5) % 17
    colour = bytes((seed & 255, (seed >> 8) & 255, (seed >> 16) & 255))

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data)
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + colour * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


# -- the reorganization --------------------------------------------------------------


@dataclass
class Moves:
    #: old folder → new folder (whole subtrees, images included)
    folders: dict[str, str] = field(default_factory=dict)
    #: page number → new docname, for pages moved one by one
    pages: dict[int, str] = field(default_factory=dict)

    def new_docname(self, docname: str) -> str:
        for old, new in self.folders.items():
            if docname.startswith(old + "/"):
                return new + docname[len(old) :]
        return docname

    def new_path(self, path: str) -> str:
        """Where a file (page source or image) lives in the moved project."""
        return self.new_docname(path)


def plan_moves(
    folders: list[str], pages: list[Page], fraction: float, rng: random.Random
) -> Moves:
    """Move about ``fraction`` of the pages: ~40 % by whole folders, the rest one by one."""
    goal = round(fraction * (len(pages) - 1))
    moves = Moves()
    if goal == 0:
        return moves
    count = {f: 0 for f in folders}
    for page in pages[1:]:
        parts = page.folder.split("/")
        for depth in range(1, len(parts) + 1):
            count["/".join(parts[:depth])] += 1
    taken: list[str] = []
    by_folder = 0
    for folder in rng.sample(folders, len(folders)):
        if by_folder >= 0.4 * goal:
            break
        if count[folder] > max(8, 0.2 * goal) or any(
            folder == t or folder.startswith(t + "/") or t.startswith(folder + "/") for t in taken
        ):
            continue
        taken.append(folder)
        by_folder += count[folder]
    kept = [f for f in folders if not any(f == t or f.startswith(t + "/") for t in taken)]
    shallow = [f for f in kept if f.count("/") + 1 < MAX_DEPTH - 1]
    existing = {p.docname.casefold() for p in pages} | {f.casefold() for f in folders}
    for j, folder in enumerate(sorted(taken)):
        parent = rng.choice(["", *shallow])
        moves.folders[folder] = posixpath.join(parent, f"{rng.choice(WORDS)}-m{j}")
    existing |= {f.casefold() for f in moves.folders.values()}

    singles = [p for p in pages[1:] if p.folder in kept]
    chosen = rng.sample(singles, min(len(singles), max(0, goal - by_folder)))
    picked = {p.number for p in chosen}
    chosen += [p for p in singles  # half of the CJK file names get ASCII ones
               if not p.name.isascii() and p.number not in picked and rng.random() < 0.5]
    new_folders = [posixpath.join(rng.choice(["", *shallow]), f"{rng.choice(WORDS)}-n{j}")
                   for j in range(max(1, len(chosen) // 10))]
    for page in sorted(chosen, key=lambda p: p.number):
        name = page.name
        if not name.isascii():
            name = f"page-{page.number}"  # a CJK file name gets an ASCII one
        elif name == "index":
            name = posixpath.basename(page.folder) + "-overview"
        how = rng.random()
        if how < 0.3:  # one level deeper, next to its old place
            new = posixpath.join(page.folder, f"part-{page.number % 7}", name)
        elif how < 0.45 and name != page.name:
            new = posixpath.join(page.folder, name)
        elif how < 0.45:  # renamed in place
            new = posixpath.join(page.folder, name + "-v2")
        elif how < 0.7:  # into another existing folder
            new = posixpath.join(rng.choice(kept), name)
        else:  # into a new folder
            new = posixpath.join(rng.choice(new_folders), name)
        if new.casefold() in existing:
            continue
        existing.add(new.casefold())
        moves.pages[page.number] = new
    return moves


def relative_paths(page: Page, pages: list[Page]) -> list[tuple[str, str]]:
    """Every relative path written in ``page``: (as written, the file it means)."""
    found = [(relpath(child, page.docname), child) for child in page.toctree]
    for kind, number, _ in page.links:
        target = pages[number]
        if kind in ("md", "md#"):
            path = target.docname + target.suffix
            found.append((relpath(path, page.docname), path))
        elif kind == "doc":
            found.append((relpath(target.docname, page.docname), target.docname))
    images = [page.image]
    if page.shared_image is not None:
        images.append(f"images/shared-{page.shared_image}.png")
    found += [(relpath(image, page.docname), image) for image in images]
    if page.raw_html:  # the same targets as its first and last links
        for number in html_targets(page):
            target = pages[number]
            path = target.docname + (target.suffix if page.markdown else ".html")
            found.append((relpath(path, page.docname), path))
    found += [(e.path, e.meant) for e in page.extra if e.path]
    return found


def _page_key(path: str) -> str:
    for suffix in (".md", ".rst", ".html"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def drop_ambiguous(moves: Moves, pages: list[Page]) -> int:
    """Undo moves after which a page's relative path names another existing file.

    A page moved one level deeper that links ``../index.md`` meant its old parent's
    index, but from its new folder the link names a different page that exists.  No
    tool can tell which one the author meant (sphinx-relocate keeps a link to a file
    that exists, and reports it when an anchor does not match), so the benchmark
    corpus, which must build without warnings, leaves such pages where they were.
    Returns how many moves were undone.
    """
    written = {p.number: relative_paths(p, pages) for p in pages}
    original = {_page_key(p.docname) for p in pages} | {p.image for p in pages}
    dropped = 0
    while True:
        where = {p.docname: moves.pages.get(p.number) or moves.new_docname(p.docname)
                 for p in pages}
        now = set(where.values()) | {moves.new_path(p.image) for p in pages}
        undo: set[tuple[str, object]] = set()
        for page in pages:
            new_folder = posixpath.dirname(where[page.docname])
            if new_folder == page.folder:
                continue
            for path, meant in written[page.number]:
                landed = _page_key(posixpath.normpath(posixpath.join(new_folder, path)))
                meant_now = where.get(_page_key(meant)) or moves.new_path(meant)
                if landed not in (_page_key(meant), meant_now) and (
                    landed in now or landed in original
                ):
                    if page.number in moves.pages:
                        undo.add(("page", page.number))
                    else:
                        undo.update(("folder", f) for f in moves.folders
                                    if page.docname.startswith(f + "/"))
                    break
        if not undo:
            return dropped
        for kind, key in undo:
            if kind == "page":
                del moves.pages[key]  # type: ignore[arg-type]
            else:
                del moves.folders[key]  # type: ignore[arg-type]
        dropped += len(undo)


# -- the ambiguity mode --------------------------------------------------------------

#: the project's own forge, as conf.py declares it in the ambiguity mode
REPO_URL = "https://forge.example/org/repo/blob/main/"
#: the include fragments' folder in original/, and where moved/ has it
FRAGMENTS, SNIPPETS = "_fragments", "_snippets"
#: a plain paragraph each, no links: an include changes no landing
FRAGMENT_TEXTS = {
    "notice.md": "This notice is shared by several pages: it is written once, in a fragment "
                 "file, and included where it is needed.\n",
    "support.md": "Support questions go to the issue tracker; search it before you open a "
                  "new issue, and give the version you run.\n",
    "notice.rst": "This notice is shared by several pages: it is written once, in a fragment "
                  "file, and included where it is needed.\n",
}


def anchors(page: Page) -> set[str]:
    """What a Markdown link can write after ``#`` for ``page``: slugs, or reST labels."""
    if page.markdown:
        return {slug(page.title), *(slug(h) for h in page.headings)}
    return {page.label(None), *(page.label(k) for k in range(len(page.headings)))}


@dataclass
class Layouts:
    """What exists in original/ and moved/, to tell where a path written in a page lands."""

    moves: Moves
    #: original docname → docname in moved/
    where: dict[str, str]
    sources: set[str]
    moved_sources: set[str]
    moved_docs: set[str]
    files: set[str]
    moved_files: set[str]

    @classmethod
    def of(cls, moves: Moves, pages: list[Page]) -> Layouts:
        where = {p.docname: moves.pages.get(p.number) or moves.new_docname(p.docname)
                 for p in pages}
        shared = {f"images/shared-{k}.png" for k in range(24)}
        return cls(
            moves, where, {p.docname + p.suffix for p in pages},
            {where[p.docname] + p.suffix for p in pages}, set(where.values()),
            {p.image for p in pages} | shared, {moves.new_path(p.image) for p in pages} | shared,
        )

    def land(self, target: str, *, loose: bool) -> str | None:
        """Where ``target`` (from the source root) lands in moved/: as it is, or through
        the table as an old name; ``loose`` matches a page whatever suffix is written."""
        key = _page_key(target)
        if target.endswith((".md", ".rst")) and not loose:
            if target in self.moved_sources:
                return key
            return self.where[key] if target in self.sources else None
        if target.endswith(".png"):
            if target in self.moved_files:
                return target
            return self.moves.new_path(target) if target in self.files else None
        if key in self.moved_docs:
            return key
        return self.where.get(key)


def classify(page: Page, pages: list[Page], world: Layouts) -> list[tuple[str, str, str, str]]:
    """Each relative path of a page that changed folders: (as written, meant, verdict,
    landing from the new folder).

    The verdict is ``old`` (it lands from the old folder only: a vote for it), ``same``
    (the new folder gives the same page), ``ambiguous`` (the new folder gives another
    existing page, or file, as written) or ``loose`` (another page, but only if the
    written suffix is ignored).
    """
    new_folder = posixpath.dirname(world.where[page.docname])
    if new_folder == page.folder:
        return []
    result = []
    for path, meant in relative_paths(page, pages):
        target = posixpath.normpath(posixpath.join(new_folder, path))
        meant_now = world.where.get(_page_key(meant)) or world.moves.new_path(meant)
        precise, loose = world.land(target, loose=False), world.land(target, loose=True)
        if precise is not None and precise != meant_now:
            verdict = "ambiguous"
        elif loose is not None and loose != meant_now:
            verdict = "loose"
        else:
            verdict = "old" if loose is None else "same"
        result.append((path, meant, verdict, precise or loose or ""))
    return result


@dataclass
class Ambiguity:
    """What the ambiguity mode added (page numbers), for the manifest."""

    moved: list[int] = field(default_factory=list)
    close: list[int] = field(default_factory=list)
    decoys: list[int] = field(default_factory=list)
    become_folders: list[int] = field(default_factory=list)
    includes: list[int] = field(default_factory=list)
    regular_moves_undone: int = 0


def _write_link(page: Page, kind: str, path: str, text: str, anchor: str = "") -> str:
    """A link as the page's author writes it: ``md`` (MyST, with the suffix), ``doc``."""
    if kind == "md":
        return f"[{text}]({path}{'#' + anchor if anchor else ''})"
    if kind == "url":
        return f"[{text}]({path})" if page.markdown else f"`{text} <{path}>`_"
    return f"{{doc}}`{text} <{path}>`" if page.markdown else f":doc:`{text} <{path}>`"


def _extra(page: Page, kind: str, rel: str, target: Page, feature: str, *,
           text: str | None = None, anchor: str = "") -> Extra:
    """``page`` links ``target``, written ``rel`` (without suffix) from its own folder."""
    path = rel + target.suffix if kind == "md" else rel
    meant = target.docname + target.suffix if kind == "md" else target.docname
    return Extra(_write_link(page, kind, path, text or target.title, anchor), path, meant,
                 feature, anchor)


def plan_ambiguity(
    folders: list[str], pages: list[Page], moves: Moves, rng: random.Random
) -> Ambiguity:
    """Make links that exist from a moved page's old folder and from its new one.

    Adds pages (decoys, a folder when the tree has no suitable one), references and
    moves to ``pages`` and ``moves``; every page keeps one meaning per link in
    original/.  See the module docstring for what is made.
    """
    total = len(pages)
    originals = list(pages)
    amb = Ambiguity()
    index_of = {p.folder: p for p in pages if p.name == "index"}
    existing: set[str] = set()
    for p in pages:
        for name in (p.docname, moves.pages.get(p.number) or moves.new_docname(p.docname)):
            parts = name.casefold().split("/")
            existing.update("/".join(parts[:k]) for k in range(1, len(parts) + 1))

    def moved(p: Page) -> bool:
        return (moves.pages.get(p.number) or moves.new_docname(p.docname)) != p.docname

    def kept(folder: str) -> bool:
        return moves.new_docname(folder + "/x") == folder + "/x"

    def free(name: str) -> bool:
        return name.casefold() not in existing

    def claim(name: str) -> None:
        parts = name.casefold().split("/")
        existing.update("/".join(parts[:k]) for k in range(1, len(parts) + 1))

    def depth(folder: str) -> int:
        return folder.count("/") + 1 if folder else 0

    def add_page(page: Page, parent_index: Page) -> Page:
        pages.append(page)
        parent_index.toctree.append(page.docname)
        parent_index.toctree.sort()
        claim(page.docname)
        amb.decoys.append(page.number)
        return page

    # 1. pages moved to a folder of the same depth: index.md, ../index.md and a sibling
    #    exist from both folders (the sibling as a decoy page created in the new one)
    used: set[int] = set()
    decoys: dict[tuple[str, int], Page] = {}
    #: decoy page number → anchors chosen as "on the meant page only": never copied there
    reserved: dict[int, set[str]] = {}
    counts = {"anchor-one": 0, "anchor-both": 0}
    want, n_close = max(3, round(0.04 * total)), max(1, round(0.01 * total))
    in_folder: dict[str, list[Page]] = {}
    for p in pages:
        in_folder.setdefault(p.folder, []).append(p)
    candidates = [p for p in pages if p.name != "index" and p.name.isascii()
                  and depth(p.folder) >= 1 and not moved(p) and kept(p.folder)]
    rng.shuffle(candidates)
    # two MyST pages for one reST page (only MyST links carry anchors); pages of depth 2
    # and more first (their ../index is ambiguous too), then those of depth 1
    md = [p for p in candidates if p.markdown]
    rst = [p for p in candidates if not p.markdown]
    candidates = [p for k in range(len(candidates))
                  for p in (md[2 * k : 2 * k + 2] + rst[k : k + 1])]
    candidates.sort(key=lambda p: depth(p.folder) < 2)
    new_folders = 0
    for page in candidates:
        if len(amb.moved) >= want:
            break
        if page.number in used:
            continue
        old, parent = page.folder, posixpath.dirname(page.folder)
        deep = depth(old) >= 2  # ../index names another page from the new folder too
        options = [f for f in folders if depth(f) == depth(old) and f != old
                   and (not deep or posixpath.dirname(f) != parent)
                   and kept(f) and not moved(index_of[f])
                   and not moved(index_of[posixpath.dirname(f)]) and free(f"{f}/{page.name}")]
        if options:
            new = rng.choice(options)
        else:  # a folder of that depth under another parent, with its index page
            parents = [f for f in ["", *folders] if depth(f) == depth(old) - 1
                       and (f != parent or not deep) and kept(f) and not moved(index_of[f])]
            if not parents:
                continue
            under = rng.choice(parents)
            new = posixpath.join(under, f"{rng.choice(WORDS)}-a{new_folders}")
            if not free(new):
                continue
            new_folders += 1
            folder_index = Page(len(pages), f"{new}/index", ".md",
                                posixpath.basename(new).replace("-", " ").title())
            folder_index.headings = [heading(rng, k + 1, 0.3) for k in range(3)]
            folder_index.links = [("docabs", index_of[under].number, None),
                                  ("ref", index_of[under].number, None)]
            index_of[new] = add_page(folder_index, index_of[under])
            folders.append(new)
        siblings = [s for s in in_folder.get(old, []) if s.name != "index" and s.name.isascii()
                    and s.number != page.number and not moved(s) and s.number not in used]
        linked = {n for kind, n, _ in page.links if kind in ("md", "md#", "doc")}
        sibling = None
        if siblings:
            sibling = rng.choice([s for s in siblings if s.number in linked] or siblings)
        decoy = None if sibling is None else decoys.get((new, sibling.number))
        if sibling is not None and decoy is None and free(f"{new}/{sibling.name}"):
            number = len(pages)
            decoy = Page(number, f"{new}/{sibling.name}", sibling.suffix,
                         heading(rng, number, 0.15))
            heads = [rng.choice(sibling.headings)] if sibling.markdown else []
            taken = anchors(sibling)
            k = 1
            while len(heads) < 3:
                h = heading(rng, k, 0.3)
                if slug(h) not in taken | {slug(x) for x in heads}:
                    heads.append(h)
                k += 1
            decoy.headings = heads
            decoy.links = [("docabs", index_of[new].number, None),
                           ("ref", sibling.number, None)]
            decoys[(new, sibling.number)] = add_page(decoy, index_of[new])
        if decoy is None:
            sibling = None
        moves.pages[page.number] = f"{new}/{page.name}"
        claim(f"{new}/{page.name}")
        used.add(page.number)
        if sibling is not None:
            used.add(sibling.number)
        amb.moved.append(page.number)
        close = page.markdown and len(amb.close) < n_close
        if close:  # every other link lands the same from both folders
            amb.close.append(page.number)
            page.links = [({"md": "ref", "md#": "ref", "doc": "docabs"}.get(kind, kind), n, s)
                          for kind, n, s in page.links]
            page.raw_html = False
        pairs = [(index_of[old], index_of[new], "index")]
        if deep:
            pairs.append((index_of[parent], index_of[posixpath.dirname(new)], "../index"))
        if sibling is not None and decoy is not None:
            pairs.append((sibling, decoy, sibling.name))
        for meant, other, rel in pairs:
            same_suffix = page.markdown and meant.suffix == other.suffix
            kind = "md" if same_suffix and rng.random() < 0.6 else "doc"
            page.extra.append(_extra(page, kind, rel, meant, "ambiguous"))
            if not same_suffix:
                continue
            only = [k for k in range(len(meant.headings)) if meant.anchor(k) not in anchors(other)]
            if only and (rng.random() < 0.7 or not counts["anchor-one"]):
                k = rng.choice(only)
                reserved.setdefault(other.number, set()).add(meant.anchor(k))
                page.extra.append(_extra(page, "md", rel, meant, "anchor-one",
                                         text=meant.headings[k], anchor=meant.anchor(k)))
                counts["anchor-one"] += 1
            if meant.markdown and (rng.random() < 0.8 or not counts["anchor-both"]):
                on_both = [k for k in range(len(meant.headings))
                           if meant.anchor(k) in anchors(other)]
                can_copy = [k for k in range(len(meant.headings))
                            if meant.anchor(k) not in reserved.get(other.number, set())]
                if not on_both and can_copy and other.name == "index":
                    k = rng.choice(can_copy)
                    other.headings.append(meant.headings[k])
                    on_both = [k]
                if on_both:
                    k = rng.choice(on_both)
                    page.extra.append(_extra(page, "md", rel, meant, "anchor-both",
                                             text=meant.headings[k], anchor=meant.anchor(k)))
                    counts["anchor-both"] += 1

    # 2. pages that become folders: foo.md → foo/overview.md
    linked_to = {n for p in pages for _, n, _ in p.links}
    candidates = [p for p in originals if p.name != "index" and p.name.isascii()
                  and not moved(p) and kept(p.folder) and p.number in linked_to
                  and p.number not in used and free(f"{p.docname}/overview")]
    for page in rng.sample(candidates, min(len(candidates), max(1, round(0.01 * total)))):
        moves.pages[page.number] = f"{page.docname}/overview"
        claim(moves.pages[page.number])
        used.add(page.number)
        amb.become_folders.append(page.number)

    def rotation(pools: list[list[Page]], count: int) -> list[Page]:
        """``count`` pages taken in turn from each pool (shuffled), none twice."""
        pools = [rng.sample(pool, len(pool)) for pool in pools]
        chosen: list[Page] = []
        seen: set[int] = set()
        while len(chosen) < count and any(pools):
            for pool in pools:
                while pool and pool[-1].number in seen:
                    pool.pop()
                if pool and len(chosen) < count:
                    chosen.append(pool.pop())
                    seen.add(chosen[-1].number)
        return chosen

    in_moved_folder = [p for p in originals if moves.new_docname(p.docname) != p.docname]
    singles = [p for p in originals if p.number in moves.pages]
    staying = [p for p in originals if not moved(p) and p.folder]

    # 3. out-and-back links: ../d/other.md written in d/
    by_folder: dict[str, list[Page]] = {}
    for p in pages:
        by_folder.setdefault(p.folder, []).append(p)
    for page in rotation([in_moved_folder, singles, staying], max(4, round(0.03 * total))):
        others = [o for o in by_folder[page.folder] if o.number != page.number]
        if not others:
            continue
        moving = [o for o in others if moved(o)]
        back = rng.choice(moving if moving and rng.random() < 0.5 else others)
        kind = "md" if page.markdown and rng.random() < 0.6 else "doc"
        page.extra.append(_extra(page, kind, f"../{posixpath.basename(page.folder)}/{back.name}",
                                 back, "out-and-back"))

    # 4. links to a page's source on the project's own forge
    md_pages = [p for p in originals if p.markdown]
    rst_pages = [p for p in originals if not p.markdown]
    count = max(3, round(0.03 * total))
    moving_pages = {p.number for p in originals if moved(p)}
    for page in rotation([md_pages, md_pages, rst_pages], count):
        same = md_pages if page.markdown else rst_pages
        targets = [t for t in (same if len(same) > 1 else originals) if t.number != page.number]
        moving = [t for t in targets if t.number in moving_pages]
        target = rng.choice(moving if moving and rng.random() < 0.5 else targets)
        page.extra.append(Extra(
            _write_link(page, "url", f"{REPO_URL}{target.docname}{target.suffix}",
                        f"{target.title} (source)"),
            "", target.docname + target.suffix, "repo-url"))

    # 5. include fragments, from pages that stay and pages that move
    delib = [pages[n] for n in amb.moved]
    pools = [delib, in_moved_folder, singles, staying]
    count = max(3, round(0.03 * total))
    rst_count = max(1, count // 3)
    chosen = (rotation([[p for p in pool if not p.markdown] for pool in pools], rst_count)
              + rotation([[p for p in pool if p.markdown] for pool in pools], count - rst_count))
    for j, page in enumerate(chosen):
        if page.markdown:
            name = ("notice.md", "support.md")[j % 2]
            path = relpath(f"{FRAGMENTS}/{name}", page.docname)
            page.tail += [f"```{{include}} {path}", "```", ""]
        else:
            page.tail += [f".. include:: {relpath(f'{FRAGMENTS}/notice.rst', page.docname)}", ""]
        amb.includes.append(page.number)
    moves.folders[FRAGMENTS] = SNIPPETS

    # 6. the other moves stay unambiguous: undo those that are not (decoys are new pages)
    deliberate = set(amb.moved)
    while True:
        world = Layouts.of(moves, pages)
        undo_pages: set[int] = set()
        undo_folders: set[str] = set()
        for page in pages:
            if page.number in deliberate:
                continue
            if any(v in ("ambiguous", "loose") for _, _, v, _ in classify(page, pages, world)):
                if page.number in moves.pages:
                    undo_pages.add(page.number)
                else:
                    undo_folders.update(f for f in moves.folders
                                        if page.docname.startswith(f + "/"))
        if not undo_pages and not undo_folders:
            break
        for number in undo_pages:
            del moves.pages[number]
            if number in amb.become_folders:
                amb.become_folders.remove(number)
        for folder in undo_folders:
            del moves.folders[folder]
        amb.regular_moves_undone += len(undo_pages) + len(undo_folders)

    # 7. every deliberately ambiguous page keeps votes for its old folder, links that land
    #    from it only: exactly one on the close pages, two or more elsewhere (out of the old
    #    folder and back in, or to a sibling without a decoy), else it does not move
    world = Layouts.of(moves, pages)  # the added links change no page's place
    for number in list(amb.moved):
        page = pages[number]
        need = 1 if number in amb.close else 2
        have = votes(page, pages, world)
        others = [o for o in by_folder[page.folder] if o.number != number]
        name = posixpath.basename(page.folder)
        tries = [(f"../{name}/{o.name}", o, "out-and-back") for o in others]
        tries += [(o.name, o, "vote") for o in others if o.name != "index"]
        for rel, back, feature in tries:
            if have >= need:
                break
            page.extra.append(_extra(page, "md" if page.markdown else "doc", rel, back, feature))
            if classify(page, pages, world)[-1][2] == "old":
                have += 1
            else:
                page.extra.pop()
        if have == 0:  # undecidable: the page stays where it is
            del moves.pages[number]
            amb.moved.remove(number)
            if number in amb.close:
                amb.close.remove(number)
            world = Layouts.of(moves, pages)
    return amb


def votes(page: Page, pages: list[Page], world: Layouts) -> int:
    """The links (not images) of a moved page that land from its old folder only."""
    return sum(1 for _, meant, verdict, _ in classify(page, pages, world)
               if verdict == "old" and not meant.endswith(".png"))


def ambiguity_counts(amb: Ambiguity, pages: list[Page], moves: Moves) -> dict[str, object]:
    """The manifest's counts of the ambiguity mode."""
    world = Layouts.of(moves, pages)
    by_docname = {world.where[p.docname]: p for p in pages}
    ambiguous = added_ambiguous = anchor_one = anchor_both = 0
    for page in pages:
        verdicts = classify(page, pages, world)
        ambiguous += sum(1 for _, _, v, _ in verdicts if v == "ambiguous")
        # the added links come last in relative_paths, in the order of page.extra
        added = [e for e in page.extra if e.path]
        if not verdicts or not added:
            continue
        for extra, (_, _, verdict, landed) in zip(
            added, verdicts[len(verdicts) - len(added):], strict=True
        ):
            added_ambiguous += verdict == "ambiguous"
            if verdict == "ambiguous" and extra.anchor:
                meant = by_docname[world.where[_page_key(extra.meant)]]
                other = by_docname[landed]
                assert extra.anchor in anchors(meant), (page.docname, extra)
                if extra.anchor in anchors(other):
                    anchor_both += 1
                else:
                    anchor_one += 1
    features: dict[str, int] = {}
    for page in pages:
        for extra in page.extra:
            features[extra.feature] = features.get(extra.feature, 0) + 1
    return {
        "ambiguous_pages": len(amb.moved),
        "ambiguous_links": ambiguous,
        "ambiguous_links_added": added_ambiguous,
        "anchor_on_meant_page_only": anchor_one,
        "anchor_on_both_pages": anchor_both,
        "close_vote_pages": len(amb.close),
        "close_vote_votes": [votes(pages[n], pages, world) for n in amb.close],
        "decoy_pages": len(amb.decoys),
        "become_folders": len(amb.become_folders),
        "out_and_back": features.get("out-and-back", 0),
        "repo_urls": features.get("repo-url", 0),
        "includes": len(amb.includes),
        "fragments": len(FRAGMENT_TEXTS),
        "regular_moves_undone": amb.regular_moves_undone,
        "ambiguity_moves": {pages[n].docname: moves.pages[n] for n in amb.moved},
        "ambiguity_close_pages": [pages[n].docname for n in amb.close],
        "ambiguity_become_folders": [pages[n].docname for n in amb.become_folders],
    }


# -- writing -------------------------------------------------------------------------


CONF_PY = '''\
"""Benchmark corpus written by benchmarks/gen_corpus.py (shared by original/ and moved/).

SPHINX_RELOCATE_BENCH picks the extension under test: plain, relocate, control,
reredirects, rediraffe (control: sphinx_relocate on original/, which has no table).
"""

import os
import sys

project = "relocate-bench"
extensions = ["myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
exclude_patterns = ["_build", "_relocate"]
html_theme = "basic"
html_copy_source = False

_mode = os.environ.get("SPHINX_RELOCATE_BENCH", "plain")
if _mode in ("relocate", "control"):
    extensions.append("sphinx_relocate")
elif _mode == "reredirects":
    extensions.append("sphinx_reredirects")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_relocate"))
    from reredirects import redirects
elif _mode == "rediraffe":
    extensions.append("sphinxext.rediraffe")
    rediraffe_redirects = "_relocate/rediraffe.txt"
elif _mode != "plain":
    raise ValueError(f"SPHINX_RELOCATE_BENCH={_mode!r}: expected plain, relocate, "
                     "control, reredirects or rediraffe")
'''


def conf_py(ambiguity: bool) -> str:
    """The shared conf.py; the ambiguity mode adds the forge and the fragment folders."""
    if not ambiguity:
        return CONF_PY
    return CONF_PY.replace(
        'exclude_patterns = ["_build", "_relocate"]',
        f'exclude_patterns = ["_build", "_relocate", "{FRAGMENTS}", "{SNIPPETS}"]',
    ).replace(
        "html_copy_source = False\n",
        "html_copy_source = False\n"
        "# the project's own forge: sphinx-relocate checks links to it (plain Sphinx ignores)\n"
        f'relocate_repo_url = "{REPO_URL}"\n'
        'relocate_repo_root = "."\n',
    )


def q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def write_project(root: Path, files: dict[str, bytes]) -> None:
    if root.exists():
        shutil.rmtree(root)
    for path in sorted(files):
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(files[path])


def generate(
    out: Path,
    *,
    pages: int = 2000,
    seed: int = 0,
    move_fraction: float = 0.3,
    links: int = 15,
    md_share: float = 0.7,
    ambiguity: bool = False,
) -> dict[str, object]:
    """Write ``original/``, ``moved/`` and ``manifest.json`` under ``out``; return the manifest.

    ``ambiguity`` makes links that exist from a moved page's old and new folders on
    purpose (see the module docstring); without it the output is what it always was.
    """
    rng = random.Random(seed)
    folders, corpus = make_pages(pages, md_share, rng)
    plan_links(corpus, max(4, links), rng)
    moves = plan_moves(folders, corpus, move_fraction, rng)
    undone = drop_ambiguous(moves, corpus)
    amb = (plan_ambiguity(folders, corpus, moves, random.Random(f"ambiguity:{seed}"))
           if ambiguity else None)
    texts = {p.number: render(p, corpus, random.Random(seed * 7919 + p.number)) for p in corpus}

    conf = conf_py(ambiguity).encode()
    original: dict[str, bytes] = {"conf.py": conf}
    for p in corpus:
        original[p.docname + p.suffix] = texts[p.number].encode()
        original[p.image] = png(zlib.crc32(f"{seed}:{p.number}".encode()))
    for k in range(24):
        original[f"images/shared-{k}.png"] = png(zlib.crc32(f"{seed}:shared:{k}".encode()))
    if amb is not None:
        for name, text in FRAGMENT_TEXTS.items():
            original[f"{FRAGMENTS}/{name}"] = text.encode()

    new_docname = {p.number: moves.pages.get(p.number) or moves.new_docname(p.docname)
                   for p in corpus}
    moved: dict[str, bytes] = {"conf.py": conf}
    for path, data in original.items():
        if path.endswith(".png") or path == "conf.py" or path.startswith(FRAGMENTS + "/"):
            moved[moves.new_path(path)] = data
    for p in corpus:
        moved[new_docname[p.number] + p.suffix] = original[p.docname + p.suffix]

    renamed = sorted((p.docname, new_docname[p.number], p.suffix) for p in corpus
                     if new_docname[p.number] != p.docname)
    toml = ["# Written by benchmarks/gen_corpus.py: the moves from original/ to moved/.", ""]
    if moves.folders:
        toml.append("[prefixes]")
        toml += [f"{q(old + '/')} = {q(new + '/')}" for old, new in sorted(moves.folders.items())]
        toml.append("")
    if moves.pages:
        toml.append("[pages]")
        toml += [f"{q(corpus[n].docname)} = {q(new)}" for n, new in sorted(
            moves.pages.items(), key=lambda item: corpus[item[0]].docname)]
        toml.append("")
    moved["relocations.toml"] = "\n".join(toml).encode()
    redirects = "".join(f"    {q(old)}: {q(relpath(new, old) + '.html')},\n"
                        for old, new, _ in renamed)
    moved["_relocate/reredirects.py"] = (
        "# sphinx-reredirects: every moved page, folders spelled out\n"
        f"redirects = {{\n{redirects}}}\n"
    ).encode()
    moved["_relocate/rediraffe.txt"] = "".join(
        f"{q(old + suffix)} {q(new + suffix)}\n" for old, new, suffix in renamed
    ).encode()

    out.mkdir(parents=True, exist_ok=True)
    write_project(out / "original", original)
    write_project(out / "moved", moved)
    kinds: dict[str, int] = {}
    for p in corpus:
        for kind, _, _ in p.links:
            kinds[kind] = kinds.get(kind, 0) + 1
    moved_by_folder = sum(1 for p in corpus if moves.new_docname(p.docname) != p.docname)
    arguments: dict[str, object] = {"pages": pages, "seed": seed, "move_fraction": move_fraction,
                                    "links": links, "md_share": md_share}
    if ambiguity:
        arguments["ambiguity"] = True
    manifest: dict[str, object] = {
        "generator": "benchmarks/gen_corpus.py",
        "arguments": arguments,
        "pages": len(corpus),
        "markdown_pages": sum(p.markdown for p in corpus),
        "rest_pages": sum(not p.markdown for p in corpus),
        "folders": len(folders),
        "max_depth": max(f.count("/") + 1 for f in folders),
        "cjk_file_names": sum(not p.name.isascii() for p in corpus),
        "cjk_headings": sum(not h.isascii() for p in corpus for h in [p.title, *p.headings]),
        "images": sum(1 for path in original if path.endswith(".png")),
        "raw_html_pages": sum(p.raw_html for p in corpus),
        "links": dict(sorted(kinds.items())),
        "links_total": sum(kinds.values()),
        "toctree_entries": sum(len(p.toctree) for p in corpus),
        "moved_pages": len(renamed),
        "moved_by_folder": moved_by_folder,
        "moved_one_by_one": len(moves.pages),
        "prefix_entries": len(moves.folders),
        "page_entries": len(moves.pages),
        "ambiguous_moves_undone": undone,
    }
    if amb is not None:
        manifest.update(ambiguity_counts(amb, corpus, moves))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="documents (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--move-fraction", type=float, default=0.3,
                        help="share of pages relocated in moved/ (default 0.3)")
    parser.add_argument("--links", type=int, default=15,
                        help="mean cross-references per page (default 15)")
    parser.add_argument("--md-share", type=float, default=0.7,
                        help="share of MyST pages (default 0.7)")
    parser.add_argument("--ambiguity", action="store_true",
                        help="move pages so that some links exist from both their old and "
                             "new folders, with the other cases of the module docstring")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    args = parser.parse_args(argv)
    manifest = generate(args.out, pages=args.pages, seed=args.seed,
                        move_fraction=args.move_fraction, links=args.links,
                        md_share=args.md_share, ambiguity=args.ambiguity)
    print(json.dumps(manifest, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
