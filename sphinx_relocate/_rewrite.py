"""Rewrite link targets in source text from the relocation table.

The build fixes the built site; forge readers browse the Markdown itself, and files
outside the docs folder (READMEs) are never built.  This module fixes the sources:

* :class:`Rewriter` knows the table, the repository's files and where the docs folder
  sits in the repository.  :meth:`Rewriter.new_target` is the one mechanism: it takes a
  written target and where it was written (:class:`Site`) and returns the new target,
  or ``None`` to leave it alone.  It resolves the way the build does: a target that
  exists from the page's new folder stays; otherwise it is resolved from the new folder
  and then from the page's old folders, through the table when it does not exist.
* :func:`find_targets` finds the target substrings of every link kind in one file
  (Markdown, MyST, reST, raw HTML, own-repository URLs, optional path mentions); the
  rewriter replaces just those substrings, so the diff shows only link targets.
* :func:`walk_repository` lists a repository, skipping VCS and build folders, virtual
  environments and symlinks; :func:`write_atomically` applies a change with a temp file
  and ``os.replace``, keeping the file's mode, encoding, BOM and newlines.

Nothing here imports Sphinx.
"""

from __future__ import annotations

import codecs
import os
import posixpath
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from ._paths import (
    decode,
    join_relative,
    leaves_root,
    relative_path,
    split_target,
    strip_source_suffix,
)
from ._table import RelocationTable, Target

#: Files read as Markdown and as reStructuredText anywhere in the repository.
MARKDOWN_SUFFIXES = (".md", ".markdown")
REST_SUFFIXES = (".rst", ".rest")
#: Folders never entered: build output, virtual environments, caches (and dot-folders).
SKIPPED_FOLDERS = frozenset(
    {"_build", "build", "node_modules", "venv", "site-packages", "__pycache__"}
)
#: Dot-folders that hold documents people read on a forge.
KEPT_DOT_FOLDERS = frozenset({".github", ".gitlab", ".gitee"})

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_SCHEME_AT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # for match(text, pos)
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
#: Characters kept as they are when an author's target was percent-encoded.
_SAFE = "/._-~!$&'()*+,;=:@"


class Site(NamedTuple):
    """Where a target was written.

    ``folder`` is the repository-relative folder of the file, ``old_folders`` the folders
    the file lived in before it moved (empty when it did not), ``root`` the folder a
    ``/``-absolute target starts from, ``docname`` whether the target is a docname
    (toctree entry, ``:doc:``) rather than a file path.  (A named tuple: it is a cache
    key for every link.)
    """

    folder: str
    old_folders: tuple[str, ...] = ()
    root: str = ""
    docname: bool = False


class Span(NamedTuple):
    """One written target in a file: its offsets, its kind and how to read it."""

    start: int
    end: int
    kind: str
    #: "path": relative to the file; "doc": a docname; "repo": relative to the repo root
    mode: str = "path"


@dataclass
class FileChange:
    """The new text of one file and how many targets of each kind changed.

    The texts are empty when the caller asked only to count or write the changes.
    """

    path: str
    old_text: str
    new_text: str
    kinds: Counter[str] = field(default_factory=Counter)
    #: why writing the file failed, when it was to be written
    error: str | None = None


def repo_base(url: str) -> str:
    """``https://host/org/repo`` from a repository URL, with or without ``blob/REF/``."""
    url = url.strip().rstrip("/")
    match = re.match(r"^(.*?)/(?:-/)?(?:blob|tree|raw|edit)/[^/]+(?:/.*)?$", url)
    base = match.group(1) if match else url
    return base[:-4] if base.endswith(".git") else base


class Rewriter:
    """Computes new link targets for one repository and one table."""

    def __init__(
        self,
        table: RelocationTable,
        *,
        docs_prefix: str,
        source_suffixes: Iterable[str],
        files: set[str],
        folders: set[str] | None = None,
        repo_url: str | None = None,
        mentions: bool = False,
    ) -> None:
        #: the docs folder relative to the repository root: ``""`` or ending with ``/``
        self.docs_prefix = docs_prefix
        self.table = table
        self.suffixes = tuple(sorted(set(source_suffixes), key=len, reverse=True))
        self.files = files
        self.folders = folders or set()
        self.repo_base = repo_base(repo_url) if repo_url else ""
        #: new targets by site and written target (sibling pages share a site)
        self._cache: dict[Site, dict[str, str | None]] = {}
        self._site_cache: dict[str, Site] = {}
        #: whether a repository path exists, for paths (False) and docnames (True)
        self._existing: dict[bool, dict[str, bool]] = {False: {}, True: {}}
        #: where a path that does not exist went, by (path, fragment, docname)
        self._moved: dict[tuple[str, str, bool], tuple[str, str | None] | None] = {}
        stop = r"\s<>()\[\]{}\"'`|"
        self._url_re = (
            re.compile(
                re.escape(self.repo_base)
                + rf"/(?:-/)?(?:blob|tree|raw|edit)/[^/\s]+/([^{stop}]*[^{stop}.,;:!?])"
            )
            if self.repo_base
            else None
        )
        self._mention_re = (
            re.compile(
                r"(?<![\w./-])(" + re.escape(docs_prefix) + rf"[^{stop},;*]*[^{stop},;*.:!?])"
            )
            if mentions and docs_prefix
            else None
        )

    # -- the one mechanism --------------------------------------------------------

    def new_target(self, written: str, site: Site) -> str | None:
        """The target to write instead of ``written``, or ``None`` to keep it."""
        cache = self._cache.get(site)
        if cache is None:
            cache = self._cache[site] = {}
        if written in cache:
            return cache[written]
        new = cache[written] = self._new_target(written, site)
        return new

    def _new_target(self, written: str, site: Site) -> str | None:
        if not written or written.startswith(("#", "//")) or _SCHEME.match(written):
            return None
        path, query, fragment = split_target(written)
        if not path or (site.docname and any(c in path for c in "*?[")):
            return None
        plain = decode(path)
        absolute = plain.startswith("/")
        if absolute:
            plain = plain.lstrip("/")
        folders = (site.root,) if absolute else (site.folder, *site.old_folders)
        settled: tuple[str, str | None] | None = None
        plain_fragment = decode(fragment)
        existing = self._existing[site.docname]
        for folder in folders:
            resolved = join_relative(folder, plain)
            if not resolved or leaves_root(resolved):
                continue
            found = existing.get(resolved)
            if found is None:
                found = existing[resolved] = self.exists(resolved, site.docname)
            if found:
                if folder is folders[0]:
                    return None  # it lands where it always did: keep it as written
                settled = (resolved, None)
                break
            key = (resolved, plain_fragment, site.docname)
            if key in self._moved:
                settled = self._moved[key]
            else:
                settled = self._moved[key] = self._settle(*key)
            if settled is not None:
                break
        if settled is None:
            return None
        new_path, new_fragment = settled
        if new_path.startswith(("http://", "https://")):
            return new_path
        if absolute:
            root = site.root + "/" if site.root else ""
            text = "/" + (new_path[len(root) :] if new_path.startswith(root) else new_path)
        else:
            text = relative_path(site.folder, new_path)
            if path.startswith("./") and not text.startswith("../"):
                text = "./" + text
        if path.endswith("/") and not text.endswith("/"):
            text += "/"
        if _PERCENT.search(path):
            text = quote(text, safe=_SAFE)
        if new_fragment is None:
            frag_text = fragment
        else:
            frag_text = quote(new_fragment, safe=_SAFE) if "%" in fragment else new_fragment
        new = text + (f"?{query}" if query else "") + (f"#{frag_text}" if frag_text else "")
        if written.endswith("#") and not frag_text:
            new += "#"
        return None if new == written else new

    def _settle(
        self, resolved: str, fragment: str, docname: bool
    ) -> tuple[str, str | None] | None:
        """Where a resolved repository path that does not exist went: ``(new path, new
        fragment or None)``, or ``None`` when the table does not move it.
        """
        if self.docs_prefix and not resolved.startswith(self.docs_prefix):
            return None
        inside = resolved[len(self.docs_prefix) :]
        name, suffix = self._split_page(inside, docname)
        if name is not None:
            target = self.table.locate_reference(name, fragment, self._page_exists)
            if target is not None:
                if target.url:
                    return target.url, None
                anchor = target.anchor if target.anchor != fragment else None
                return self.docs_prefix + target.path + self._page_suffix(target, suffix), anchor
            if suffix or docname:
                return None
        moved = self.table.locate_file(inside, self._file_exists)
        if moved is None:
            return None
        return (moved.url, None) if moved.url else (self.docs_prefix + moved.path, None)

    def _split_page(self, inside: str, docname: bool) -> tuple[str | None, str]:
        """``(docname, written suffix)`` when ``inside`` may name a page, else ``(None, "")``."""
        name, had = strip_source_suffix(inside, self.suffixes)
        if had:
            return name, inside[len(name) :]
        if inside.endswith(".html"):
            return inside[: -len(".html")], ".html"
        if docname or "." not in posixpath.basename(inside):
            return inside, ""
        return None, ""

    def _page_suffix(self, target: Target, written_suffix: str) -> str:
        """The suffix to write for a moved page: the author's, or the new file's."""
        if written_suffix in ("", ".html"):
            return written_suffix
        base = self.docs_prefix + target.path
        if base + written_suffix in self.files:
            return written_suffix
        for suffix in self.suffixes:
            if base + suffix in self.files:
                return suffix
        return written_suffix

    def _page_exists(self, docname: str) -> bool:
        base = self.docs_prefix + docname
        return any(base + suffix in self.files for suffix in self.suffixes)

    def _file_exists(self, path: str) -> bool:
        return self.docs_prefix + path in self.files

    def exists(self, path: str, docname: bool = False) -> bool:
        """Whether a repository path is there: a file, a folder, or a page by docname."""
        if path in self.files or path in self.folders:
            return True
        if docname or path.endswith(".html") or not posixpath.splitext(path)[1]:
            base = path[: -len(".html")] if path.endswith(".html") else path
            return any(base + suffix in self.files for suffix in self.suffixes)
        return False

    # -- files -------------------------------------------------------------------

    def site_of(self, path: str, docname: bool = False) -> Site:
        """The :class:`Site` of targets written in the repository file ``path``."""
        site = self._site_cache.get(path)
        if site is None:
            site = self._site_cache[path] = self._make_site(path, False)
        return site._replace(docname=True) if docname else site

    def _make_site(self, path: str, docname: bool) -> Site:
        folder = posixpath.dirname(path)
        if self.docs_prefix and not path.startswith(self.docs_prefix):
            return Site(folder, (), "", docname)
        page, had = strip_source_suffix(path[len(self.docs_prefix) :], self.suffixes)
        olds: list[str] = []
        if had:
            for old in self.table.old_names(page):
                old_folder = (self.docs_prefix + posixpath.dirname(old)).rstrip("/")
                if old_folder != folder and old_folder not in olds:
                    olds.append(old_folder)
        return Site(folder, tuple(olds), self.docs_prefix.rstrip("/"), docname)

    def rewrite_text(self, path: str, text: str) -> tuple[str, Counter[str]]:
        """The new text of the repository file ``path``, and the kinds rewritten."""
        spans = find_targets(text, path, self._url_re, self._mention_re)
        kinds: Counter[str] = Counter()
        if not spans:
            return text, kinds
        edits: list[tuple[int, int, str]] = []
        site = self.site_of(path)
        doc_site = site._replace(docname=True)
        for span in spans:
            written = text[span.start : span.end]
            if span.mode == "repo":
                new = self.new_target("/" + written, _REPO_SITE)
                new = new[1:] if new and new.startswith("/") else new
            else:
                new = self.new_target(written, doc_site if span.mode == "doc" else site)
            if new is not None:
                edits.append((span.start, span.end, new))
                kinds[span.kind] += 1
        return apply_edits(text, edits), kinds


_REPO_SITE = Site("", (), "", False)




def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Replace non-overlapping ``(start, end, new)`` spans; everything else is kept."""
    if not edits:
        return text
    parts: list[str] = []
    last = 0
    for start, end, new in sorted(edits):
        parts.append(text[last:start])
        parts.append(new)
        last = end
    parts.append(text[last:])
    return "".join(parts)


# -- finding targets ---------------------------------------------------------------

# Patterns start with a literal where they can, so the regex engine skips ahead to it;
# repetitions are "unrolled" (plain characters, then one escape or parenthesis) rather
# than one alternation per character.  Each of these was 3-4 times slower otherwise.
_MD_INLINE = re.compile(
    r"\]\([ \t]*(?:<([^<>\n]*)>"
    r"|([^\s()<>\\]*(?:(?:\\.|\((?:[^\s()\\]|\\.)*\))[^\s()<>\\]*)*))"
)
_MD_REFDEF = re.compile(
    r"^[ ]{0,3}\[(?!\^)[^\]\n]+\]:[ \t]*(?:<([^<>\n]*)>|([^\s<>]+))", re.MULTILINE
)
_HTML_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*\s[^<>]*?>")
_HTML_ATTR = re.compile(
    r"""\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`=]+))""", re.IGNORECASE
)
_FENCE = re.compile(
    r"^[ ]{0,3}(`{3,}|~{3,}|:{3,})[ \t]*(\{[\w:-]+\})?[ \t]*([^\n\r]*)", re.MULTILINE
)
#: ``{doc}`…``` and ``:doc:`…```, matched from the ``d`` (the opening and closing
#: marks are paired by :func:`_role_targets`)
_ROLE = re.compile(r"d(?<=[{:]d)(oc|ownload)([}:])`(?:[^`<]*<([^<>`]+)>|([^`<>]+))`")
_RST_LINK = re.compile(r"`(?<!:`)[^`]*?<([^<>`]+)>`__?")
#: directives and link targets, matched from the ``..`` (:func:`_at_line_start` checks
#: that only blanks precede it)
_RST_DIRECTIVE = re.compile(r"\.\.[ \t]+([\w:-]+)::[ \t]*([^\n\r]*)")
_RST_TARGET = re.compile(r"\.\.[ \t]+_[^:\n]+:[ \t]+([^\s]+)[ \t]*\r?$", re.MULTILINE)
_TOCTREE_ENTRY = re.compile(r"^(?:(.*\S)[ \t]+<([^<>]+)>|([^<>\s][^\n\r]*?))[ \t]*$")
_FILE_DIRECTIVES = {
    "image": "image",
    "figure": "image",
    "include": "include",
    "literalinclude": "include",
}


def find_targets(
    text: str,
    path: str,
    url_re: re.Pattern[str] | None = None,
    mention_re: re.Pattern[str] | None = None,
) -> list[Span]:
    """Every link target written in ``text``, as non-overlapping spans in text order."""
    suffix = posixpath.splitext(path)[1].lower()
    spans: list[Span] = []
    if suffix in MARKDOWN_SUFFIXES:
        spans.extend(_markdown_targets(text))
    elif suffix in REST_SUFFIXES or suffix == ".txt":
        spans.extend(_rest_targets(text))
    if url_re is not None and "://" in text:
        for match in url_re.finditer(text):
            spans.append(Span(match.start(1), match.end(1), "repo-url", "repo"))
    if mention_re is not None:
        for match in mention_re.finditer(text):
            spans.append(Span(match.start(1), match.end(1), "mention", "repo"))
    # absolute URLs are rewritten only as own-repository URLs, by their path
    spans = [s for s in spans if s.mode == "repo" or not _SCHEME_AT.match(text, s.start, s.end)]
    return _without_overlaps(spans)


def _without_overlaps(spans: list[Span]) -> list[Span]:
    """Earlier spans win; a span that overlaps a kept one is dropped."""
    kept: list[Span] = []
    end = -1
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.start >= end and span.end > span.start:
            kept.append(span)
            end = span.end
    return kept


def _lines(text: str, offset: int = 0) -> list[tuple[int, str]]:
    """``(offset, line)`` pairs, lines keeping their ends."""
    result = []
    for line in text.splitlines(keepends=True):
        result.append((offset, line))
        offset += len(line)
    return result


def _markdown_targets(text: str) -> list[Span]:
    spans: list[Span] = []
    code: list[tuple[int, int]] = []
    directives = (
        _myst_blocks(text, code) if "```" in text or "~~~" in text or ":::" in text else []
    )
    if "](" in text:
        for match in _MD_INLINE.finditer(text):
            group = 1 if match.group(1) is not None else 2
            if not match.group(group) and group == 2:
                continue  # "[text]()": nothing to rewrite
            bracket = text.rfind("[", 0, match.start())
            kind = "image" if bracket > 0 and text[bracket - 1] == "!" else "link"
            spans.append(Span(match.start(group), match.end(group), kind))
    if "]:" in text:
        for match in _MD_REFDEF.finditer(text):
            group = 1 if match.group(1) is not None else 2
            spans.append(Span(match.start(group), match.end(group), "reference"))
    if "<" in text:
        spans.extend(_html_targets(text))
    if "}`" in text:
        spans.extend(_role_targets(text))
    if code:  # nothing inside a code block (or a directive body) is a link
        spans = [s for s in spans if not any(a <= s.start < b for a, b in code)]
    return spans + directives


def _myst_blocks(text: str, code: list[tuple[int, int]]) -> list[Span]:
    """Toctree entries and file arguments of MyST directives; records plain code fences."""
    spans: list[Span] = []
    position = 0
    while True:
        match = _FENCE.search(text, position)
        if match is None:
            break
        fence, directive, argument = match.group(1), match.group(2), match.group(3)
        line_end = text.find("\n", match.end())
        body_start = len(text) if line_end < 0 else line_end + 1
        if fence.startswith(":") and not directive:
            position = body_start  # a bare ::: is not a fence
            continue
        closing = re.compile(
            rf"^[ ]{{0,3}}{re.escape(fence)}{re.escape(fence[0])}*[ \t]*\r?$", re.MULTILINE
        ).search(text, body_start)
        end = closing.start() if closing else len(text)
        position = closing.end() if closing else len(text)
        name = directive[1:-1] if directive else ""
        if name == "toctree":
            spans.extend(_toctree_entries(_lines(text[body_start:end], body_start), True))
        elif name in _FILE_DIRECTIVES and argument.strip():
            start = match.start(3)
            spans.append(Span(start, start + len(argument.rstrip()), _FILE_DIRECTIVES[name]))
        if not directive or name.startswith("code") or name in ("literalinclude", "toctree"):
            code.append((body_start, end))
    return spans


def _toctree_entries(body: list[tuple[int, str]], markdown: bool) -> list[Span]:
    spans: list[Span] = []
    glob = any(line.strip() == ":glob:" for _, line in body)
    in_yaml = False
    for offset, line in body:
        stripped = line.strip()
        if markdown and stripped == "---":
            in_yaml = not in_yaml
            continue
        if in_yaml or not stripped or stripped.startswith(":") or stripped == "self":
            continue
        lead = len(line) - len(line.lstrip())
        match = _TOCTREE_ENTRY.match(line[lead:].rstrip("\r\n"))
        if not match:
            continue
        group = 2 if match.group(2) is not None else 3
        if glob and any(c in match.group(group) for c in "*?["):
            continue
        start = offset + lead
        spans.append(Span(start + match.start(group), start + match.end(group), "toctree", "doc"))
    return spans


def _html_targets(text: str) -> list[Span]:
    spans: list[Span] = []
    for tag in _HTML_TAG.finditer(text):
        for attr in _HTML_ATTR.finditer(tag.group()):
            group = next(g for g in (1, 2, 3) if attr.group(g) is not None)
            start = tag.start() + attr.start(group)
            spans.append(Span(start, tag.start() + attr.end(group), "html"))
    return spans


def _role_targets(text: str) -> list[Span]:
    spans: list[Span] = []
    for match in _ROLE.finditer(text):
        if (text[match.start() - 1] == "{") != (match.group(2) == "}"):
            continue
        role = "doc" if match.group(1) == "oc" else "download"
        group = 3 if match.group(3) is not None else 4
        mode = "doc" if role == "doc" else "path"
        spans.append(Span(match.start(group), match.end(group), role, mode))
    return spans


def _rest_targets(text: str) -> list[Span]:
    spans: list[Span] = []
    if "`" in text:
        spans.extend(_role_targets(text))
        for match in _RST_LINK.finditer(text):
            if not match.group(1).endswith("_"):
                spans.append(Span(match.start(1), match.end(1), "link"))
    if ".." in text:
        for match in _RST_TARGET.finditer(text):
            if _at_line_start(text, match.start()) is not None:
                spans.append(Span(match.start(1), match.end(1), "link"))
        spans.extend(_rest_directives(text))
    return spans


def _at_line_start(text: str, position: int) -> str | None:
    """The blanks from the start of the line to ``position``; ``None`` if not only blanks."""
    lead = text[text.rfind("\n", 0, position) + 1 : position]
    return None if lead.strip(" \t") else lead


def _rest_directives(text: str) -> list[Span]:
    spans: list[Span] = []
    for match in _RST_DIRECTIVE.finditer(text):
        indent_text = _at_line_start(text, match.start())
        if indent_text is None:
            continue
        name = match.group(1)
        argument = match.group(2).rstrip()
        if name in _FILE_DIRECTIVES and argument:
            start = match.start(2)
            spans.append(Span(start, start + len(argument), _FILE_DIRECTIVES[name]))
        elif name == "toctree":
            indent = len(indent_text.expandtabs())
            body: list[tuple[int, str]] = []
            offset = text.find("\n", match.end())
            while offset != -1:
                next_end = text.find("\n", offset + 1)
                line = text[offset + 1 : next_end + 1 if next_end != -1 else len(text)]
                if line.strip() and len(line) - len(line.lstrip()) <= indent:
                    break
                body.append((offset + 1, line))
                offset = next_end
            spans.extend(_toctree_entries(body, markdown=False))
    return spans


# -- files on disk -----------------------------------------------------------------


@dataclass
class SourceFile:
    """A text file as read: its text and how to write it back byte for byte."""

    text: str
    encoding: str
    bom: bytes


def read_source(path: Path) -> SourceFile | None:
    """Read a text file; ``None`` for binary or undecodable files."""
    data = path.read_bytes()
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


def write_atomically(path: Path, source: SourceFile, text: str) -> None:
    """Replace ``path`` through a temp file in its folder, keeping mode, encoding and BOM.

    Text is never newline-translated, so ``\\r\\n`` files stay ``\\r\\n``.
    """
    data = memoryview(source.bom + text.encode(source.encoding))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            while data:
                data = data[os.write(handle, data) :]
        finally:
            os.close(handle)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def walk_repository(root: Path) -> tuple[list[str], set[str]]:
    """Every regular file (repository-relative, sorted) and folder under ``root``.

    Skips dot-folders (``.git``, ``.tox``, ``.venv``; not ``.github``), build folders,
    virtual environments and symlinks, so nothing outside the root is read and nothing
    is read twice.
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
            if name.startswith(".") and name not in KEPT_DOT_FOLDERS:
                continue
            if os.path.exists(os.path.join(full, "pyvenv.cfg")):
                continue
            kept.append(name)
            folders.add(rel + name)
        dirnames[:] = sorted(kept)
        for name in filenames:
            if not os.path.islink(os.path.join(current, name)):
                files.append(rel + name)
    files.sort()
    return files, folders


def candidate_files(
    files: Iterable[str], docs_prefix: str, suffixes: Iterable[str], mentions: bool
) -> list[str]:
    """The files whose text may hold links: Markdown and reST anywhere, docs sources."""
    wanted = {*MARKDOWN_SUFFIXES, *REST_SUFFIXES}
    if mentions:
        wanted.add(".py")
    docs_suffixes = set(suffixes)
    chosen = []
    for path in files:
        suffix = posixpath.splitext(path)[1].lower()
        if suffix in wanted or (suffix in docs_suffixes and path.startswith(docs_prefix)):
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
        source = read_source(root / rel)
    except OSError:
        return None
    if source is None:
        return None
    new_text, kinds = rewriter.rewrite_text(rel, source.text)
    if new_text == source.text:
        return None
    if with_text:
        change = FileChange(rel, source.text, new_text, kinds)
    else:
        change = FileChange(rel, "", "", kinds)
    if write:
        try:
            write_atomically(root / rel, source, new_text)
        except OSError as err:
            change.error = str(err.strerror or err)
    return change


def _start_worker(rewriter: Rewriter, root: Path, write: bool, with_text: bool) -> None:
    global _worker
    _worker = (rewriter, root, write, with_text)


def _rewrite_chunk(paths: list[str]) -> tuple[list[FileChange], int]:
    assert _worker is not None
    rewriter, root, write, with_text = _worker
    changes = [rewrite_file(rewriter, root, rel, write, with_text) for rel in paths]
    return [c for c in changes if c is not None], len(paths)
