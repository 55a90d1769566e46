"""Old names declared in the page they now belong to: ``relocated_from``.

A MyST page lists them in its front matter, a reST page in its file-wide field list
(the docinfo Sphinx keeps as the page's metadata)::

    ---                                   :relocated_from: features/fsdp2, pytorch/fsdp
    relocated_from: [features/fsdp2, pytorch/fsdp]
    ---                                   Title
                                          =====

Each name becomes the ``[pages]`` row old → this page, at the page's own file and line,
for the one table builder of :mod:`sphinx_relocate.core.table`: the same checks, and an old
name the table file moves elsewhere is an error naming both places.  References to old
names are resolved while documents are read, so the names must be known before: they are
read from the top of each source file, not from doctrees, and only files whose first
block mentions the key are parsed.

:func:`peer_declarations` reads what the peers write in the page for ``sphinx-relocate
import``: matplotlib's ``.. redirect-from::`` directive, Hugo's ``aliases`` (YAML or TOML front
matter) and Jekyll's ``redirect_from`` front-matter keys.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.paths import folder_of, join_relative, longest_first, strip_source_suffix
from sphinx_relocate.core.peers import Converted
from sphinx_relocate.core.spans import MARKDOWN_SUFFIXES
from sphinx_relocate.core.table import Location, Problem
from sphinx_relocate.core.table.sections import nfc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: The key of the front matter and the name of the reST field.
KEY = "relocated_from"
#: What a declaration is, in the words of its errors.
_EXPECTED = f"{KEY} lists old page names, like [old/page, other/old]"
#: Bytes read of every source first; a longer front matter is read whole.
_HEAD = 8192
_FENCE = re.compile(r"---[ \t]*\r?$")
_FIELD = re.compile(r":((?:[^:\\]|\\.)+):(?:[ \t]+(.*))?$")
#: what may come before reST docinfo: comments, targets, substitution definitions
_PRE_DOCINFO = re.compile(r"\.\.(?:[ \t]+(?:_|\||(?![\w:-]+::))|[ \t]*$)")
_REDIRECT_FROM = re.compile(r"^[ \t]*\.\.[ \t]+redirect-from::[ \t]*(\S*)[ \t]*$", re.MULTILINE)


class QuietSources:
    """The source files found to declare no old name, with the time and size they had
    then, kept between builds in a file of the doctree folder: a build reads the top of
    only the files that changed since (2,000 pages: one stat each instead of a read)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[str, list[int]] = {}
        self.now: dict[str, list[int]] = {}
        try:
            known = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return  # none yet, or unreadable: every file is read
        if isinstance(known, dict):
            self.known = {
                name: stamp for name, stamp in known.items()
                if isinstance(stamp, list) and len(stamp) == 2
                and all(type(number) is int for number in stamp)
            }

    @staticmethod
    def stamp(path: str) -> list[int] | None:
        try:
            found = os.stat(path)
        except OSError:
            return None
        return [found.st_mtime_ns, found.st_size]

    def save(self) -> None:
        """Keep what this build found, when it differs (most builds write nothing)."""
        if self.now != self.known:
            with contextlib.suppress(OSError):  # only the next build's time depends on it
                write_atomically(self.path, json.dumps(self.now).encode("utf-8"))


def declared_names(
    srcdir: Path,
    source_suffixes: Iterable[str],
    excluded: Callable[[str], bool],
    included: Callable[[str], bool],
    shown: Callable[[Path], str] = str,
    quiet: QuietSources | None = None,
) -> Converted:
    """The ``relocated_from`` names of the project's pages as ``[pages]`` rows, with a
    problem at its line for each bad one: what the build and the command line add to the
    table they load.

    Runs before Sphinx discovers the documents, so it walks the folder itself: every
    source file's first 8 KB is read, and only a file that mentions the key is matched
    against the include and exclude patterns (Sphinx's discovery of 2,000 pages costs
    more than twice the whole scan).  ``excluded`` and ``included`` match a source-relative
    path as Sphinx's matchers of the project's patterns do
    (:func:`sphinx_relocate.sphinx_ext.discovery.pattern_matchers`); ``quiet`` are the
    files a build before found to declare nothing, not read again while unchanged."""
    suffixes = longest_first(tuple(source_suffixes))
    declared = Converted()
    base = os.path.join(str(srcdir), "")
    for relpath in _sources(srcdir, suffixes, excluded):
        file = base + relpath  # strings: a Path per file cost more than the rest of the scan
        known = quiet.known.get(relpath) if quiet is not None else None
        if known is not None and quiet is not None and quiet.stamp(file) == known:
            quiet.now[relpath] = known
            continue
        markdown = relpath.endswith(MARKDOWN_SUFFIXES)
        top = _top(file, markdown)
        lines = _lines_with(top[0], (KEY,)) if top is not None else None
        if lines is None:
            if top is not None and quiet is not None:
                quiet.now[relpath] = top[1]  # the stamp of what was read
            continue
        if excluded(relpath) or not included(relpath):
            continue
        docname = strip_source_suffix(relpath, suffixes)[0]
        where = shown(srcdir / relpath)
        found = _front_matter(lines, where, (KEY,)) if markdown else _docinfo(lines, where)
        for _, names, problem in found:
            if problem is not None:
                declared.problems.append(problem)
            for name, line in names:
                location = Location(where, line)
                declared.add(("pages", name, docname, location), f"{KEY}: {name}")
    if quiet is not None:
        quiet.save()
    return declared


def _sources(srcdir: Path, suffixes: tuple[str, ...], excluded: Callable[[str], bool]
             ) -> Iterable[str]:
    """The source-relative paths of files with a source suffix, in sorted order, not
    under a folder ``excluded`` matches (as Sphinx prunes them)."""
    top = str(srcdir)
    start = len(os.path.join(top, ""))
    for root, dirs, files in os.walk(top, followlinks=True):
        # os.walk joins each folder to its parent's path: the rest is the relative path
        folder = root[start:].replace(os.sep, "/") + "/" if len(root) > len(top) else ""
        dirs[:] = sorted(d for d in dirs if not excluded(nfc(folder + d)))
        for name in sorted(files):
            if name.endswith(suffixes):
                yield nfc(folder + name)


def peer_declarations(srcdir: Path, files: Iterable[tuple[str, str]],
                      shown: Callable[[Path], str] = str) -> Converted:
    """The old names the peers declare in pages, as ``[pages]`` rows old → this page.

    matplotlib's ``.. redirect-from:: /old/page`` (``/`` from the source folder, else from
    the page's folder, as its directive reads it); Hugo's ``aliases`` (relative ones from
    the page's folder) and Jekyll's ``redirect_from`` (from the site root) are URLs: a
    leading ``/``, a trailing ``/`` or ``.html``, a query and a fragment are dropped.
    """
    converted = Converted()
    for docname, relpath in files:
        path = srcdir / relpath
        where = shown(path)
        folder = folder_of(docname)
        if relpath.endswith(MARKDOWN_SUFFIXES):
            lines = _top_lines(path, True, "aliases", "redirect_from")
            found = _front_matter(lines, where, ("aliases", "redirect_from")) if lines else []
            found += _hugo_toml(lines, where) if lines else []
            for key, names, problem in found:
                if problem is not None:
                    converted.problems.append(problem)
                for url, line in names:
                    # Jekyll's are from the site root; Hugo's relative ones from the page's
                    old = _url_name(url, folder if key == "aliases" else "")
                    row = ("pages", old, docname, Location(where, line))
                    converted.add(row, f"{key}: {url}")
            continue
        data = _read_regular(path)
        if data is None or b"redirect-from::" not in data:
            continue
        text = data.decode("utf-8-sig", "replace")
        for match in _REDIRECT_FROM.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            written = match.group(1)
            old = join_relative(folder, written) if written else ""
            converted.add(("pages", old, docname, Location(where, line)),
                          f".. redirect-from:: {written}")
    return converted


def _hugo_toml(
    lines: list[str], where: str
) -> list[tuple[str, list[tuple[str, int]], Problem | None]]:
    """Hugo's ``aliases`` in a TOML front matter (between ``+++`` lines): a list of URLs,
    each at the line that writes it."""
    if not lines or lines[0].strip() != "+++":
        return []
    end = next((n for n in range(1, len(lines)) if lines[n].strip() == "+++"), None)
    if end is None:
        return []
    try:
        data = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as err:
        message = f"the TOML front matter cannot be read, so aliases cannot be: {err}"
        return [("aliases", [], Problem(Location(where, 1), message))]
    aliases = data.get("aliases")
    if aliases is None:
        return []
    start = next((n for n in range(1, end) if lines[n].lstrip().startswith("aliases")), 0) + 1
    if isinstance(aliases, str):
        aliases = [aliases]
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
        return [("aliases", [], Problem(Location(where, start), "aliases lists old URLs"))]
    names = []
    for alias in aliases:
        line = next((n for n in range(start - 1, end) if alias in lines[n]), start - 1) + 1
        names.append((alias, line))
    return [("aliases", names, None)]


def _url_name(url: str, folder: str) -> str:
    """A Hugo or Jekyll alias URL as a docname: ``/old/page/`` and ``old.html`` are pages."""
    path = url.split("#", 1)[0].split("?", 1)[0]
    if path.endswith(".html"):
        path = path[: -len(".html")]
    name = join_relative(folder, path.rstrip("/") or "/") if path else ""
    return name or "index"


def _top_lines(path: Path | str, markdown: bool, *keys: str) -> list[str] | None:
    """The first lines of ``path`` when its top may declare one of ``keys``, else ``None``."""
    top = _top(path, markdown)
    return _lines_with(top[0], keys) if top is not None else None


def _top(path: Path | str, markdown: bool) -> tuple[bytes, list[int]] | None:
    """The top of ``path`` with its stamp (:meth:`QuietSources.stamp`), or ``None`` when
    it cannot be read: 8 KB, the whole file only for a front matter that does not end
    in them."""
    top = _read_stamped(path, _HEAD)
    if (top is not None and markdown and len(top[0]) == _HEAD and top[0].startswith(b"---")
            and b"\n---" not in top[0][3:]):
        top = _read_stamped(path)
    return top


def _lines_with(head: bytes, keys: Iterable[str]) -> list[str] | None:
    """The lines of ``head`` when it mentions one of ``keys``, else ``None``."""
    if not any(key.encode() in head for key in keys):
        return None
    return head.decode("utf-8-sig", "replace").splitlines()


def _read_regular(path: Path | str, size: int = -1) -> bytes | None:
    """The first ``size`` bytes of ``path`` (all with -1), or ``None`` when it cannot be
    read or is no regular file: a FIFO named like a page would block the build."""
    found = _read_stamped(path, size)
    return None if found is None else found[0]


#: reading never waits on a FIFO (checked to be a regular file once open)
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _read_stamped(path: Path | str, size: int = -1) -> tuple[bytes, list[int]] | None:
    """:func:`_read_regular`, with the file's stamp taken on the open file: the scan
    reads the top of every page of a fresh build, and a file object and a second
    ``stat`` per page cost as much as the reading (2,000 pages: 27 against 14 ms)."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            return None
        chunks: list[bytes] = []
        left = size  # -1: to the end
        while left:
            chunk = os.read(fd, left if left > 0 else max(found.st_size + 1, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            if left > 0:
                left -= len(chunk)
        return b"".join(chunks), [found.st_mtime_ns, found.st_size]
    except OSError:
        return None
    finally:
        os.close(fd)


def _front_matter(
    lines: list[str], where: str, keys: tuple[str, ...]
) -> list[tuple[str, list[tuple[str, int]], Problem | None]]:
    """Each of ``keys`` in the YAML front matter: its names with their lines, or a problem."""
    if not lines or not _FENCE.match(lines[0]):
        return []
    end = next((n for n in range(1, len(lines)) if _FENCE.match(lines[n])), None)
    if end is None:
        return []
    block = "\n".join(lines[1:end])
    if not any(key in block for key in keys):
        return []
    try:
        yaml = _yaml()
    except ImportError:  # pragma: no cover - myst-parser requires PyYAML
        return [(keys[0], [], Problem(Location(where, 1),
                                      f"{keys[0]}: reading front matter needs PyYAML"))]
    try:
        root = yaml.compose(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        reason = getattr(err, "problem", None) or err
        message = f"the front matter is not valid YAML ({reason}), so {keys[0]} cannot be read"
        return [(keys[0], [], Problem(Location(where, line), message))]
    if not isinstance(root, yaml.MappingNode):
        return []
    found = []
    for key_node, value in root.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value not in keys:
            continue
        key = key_node.value
        line = key_node.start_mark.line + 2  # the fence is line 1
        items = value.value if isinstance(value, yaml.SequenceNode) else [value]
        names: list[tuple[str, int]] = []
        problem = None
        for item in items:
            item_line = item.start_mark.line + 2
            if not isinstance(item, yaml.ScalarNode) or _is_null(item) or not item.value.strip():
                expected = _EXPECTED if key == KEY else f"{key} lists old URLs"
                problem = Problem(Location(where, item_line), f"{expected}; not {_shown(item)}")
                break
            names.append((item.value.strip(), item_line))
        if not names and problem is None:
            problem = Problem(Location(where, line), f"{key} lists no old name")
        found.append((key, names, problem))
    return found


def _yaml() -> Any:
    """PyYAML (which myst-parser requires), typed loosely: its stubs are optional."""
    return importlib.import_module("yaml")


def _is_null(node: Any) -> bool:
    return bool(node.tag == "tag:yaml.org,2002:null")


def _shown(node: Any) -> str:
    yaml = _yaml()

    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list inside the list"
    return "an empty item" if _is_null(node) or not node.value.strip() else repr(node.value)


def _docinfo(
    lines: list[str], where: str
) -> list[tuple[str, list[tuple[str, int]], Problem | None]]:
    """The ``:relocated_from:`` field of the field list that opens a reST document (only
    comments, targets and substitution definitions may come before it, as for Sphinx's
    file-wide metadata): names separated by commas, over continuation lines too."""
    n = 0
    while n < len(lines):  # what docutils lets stand before the docinfo
        line = lines[n]
        if not line.strip():
            n += 1
        elif _PRE_DOCINFO.match(line):
            n += 1
            while n < len(lines) and (not lines[n].strip() or lines[n][:1] in " \t"):
                n += 1
        else:
            break
    found = []
    while n < len(lines):
        field = _FIELD.match(lines[n])
        if field is None:
            break
        body = [(field.group(2) or "", n + 1)]
        start = n + 1
        n += 1
        while n < len(lines) and lines[n][:1] in " \t" and lines[n].strip():
            body.append((lines[n], n + 1))
            n += 1
        if field.group(1).strip() != KEY:
            continue
        names = [
            (name.strip(), line) for text, line in body for name in text.split(",") if name.strip()
        ]
        problem = None if names else Problem(Location(where, start), f"{KEY} lists no old name")
        found.append((KEY, names, problem))
    return found
