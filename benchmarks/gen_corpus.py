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

Both projects share one ``conf.py``; ``SPHINX_RELOCATE_BENCH`` picks the extension:
``plain`` (default), ``relocate``, ``reredirects`` or ``rediraffe``.

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


# -- writing -------------------------------------------------------------------------


CONF_PY = '''\
"""Benchmark corpus written by benchmarks/gen_corpus.py (shared by original/ and moved/).

SPHINX_RELOCATE_BENCH picks the extension under test: plain, relocate, reredirects,
rediraffe.
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
if _mode == "relocate":
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
                     "reredirects or rediraffe")
'''


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
) -> dict[str, object]:
    """Write ``original/``, ``moved/`` and ``manifest.json`` under ``out``; return the manifest."""
    rng = random.Random(seed)
    folders, corpus = make_pages(pages, md_share, rng)
    plan_links(corpus, max(4, links), rng)
    texts = {p.number: render(p, corpus, random.Random(seed * 7919 + p.number)) for p in corpus}
    moves = plan_moves(folders, corpus, move_fraction, rng)
    undone = drop_ambiguous(moves, corpus)

    original: dict[str, bytes] = {"conf.py": CONF_PY.encode()}
    for p in corpus:
        original[p.docname + p.suffix] = texts[p.number].encode()
        original[p.image] = png(zlib.crc32(f"{seed}:{p.number}".encode()))
    for k in range(24):
        original[f"images/shared-{k}.png"] = png(zlib.crc32(f"{seed}:shared:{k}".encode()))

    new_docname = {p.number: moves.pages.get(p.number) or moves.new_docname(p.docname)
                   for p in corpus}
    moved: dict[str, bytes] = {"conf.py": CONF_PY.encode()}
    for path, data in original.items():
        if path.endswith(".png") or path == "conf.py":
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
    manifest: dict[str, object] = {
        "generator": "benchmarks/gen_corpus.py",
        "arguments": {"pages": pages, "seed": seed, "move_fraction": move_fraction,
                      "links": links, "md_share": md_share},
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
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    args = parser.parse_args(argv)
    manifest = generate(args.out, pages=args.pages, seed=args.seed,
                        move_fraction=args.move_fraction, links=args.links,
                        md_share=args.md_share)
    print(json.dumps(manifest, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
