"""Path arithmetic shared by the table, the resolver, the stubs and the command line.

Every redirect extension has had its bugs here (dirhtml ``index``, double ``.html``,
a leading ``/``), so these are small pure functions, tested exhaustively.  Paths are
POSIX strings relative to the Sphinx source folder; a docname has no suffix.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Iterable
from urllib.parse import quote, unquote

#: Suffixes of source files when a project says nothing else.
DEFAULT_SOURCE_SUFFIXES: tuple[str, ...] = (".rst", ".md", ".txt")


#: what follows the repository in a forge URL of a file: ``/blob/REF/`` (GitLab: ``/-/``)
REPO_URL_REF = r"/(?:-/)?(?:blob|tree|raw|edit)/[^/\s]+/"


def forge_files_url(repository: str, ref: str) -> str:
    """``https://host/org/repo/blob/REF/``, the URL files of ``ref`` are under (GitLab
    puts ``/-/`` before ``blob``)."""
    gitlab = "gitlab" in repository.split("/")[2]
    return f"{repository.rstrip('/')}{'/-/blob/' if gitlab else '/blob/'}{ref}/"


def strip_source_suffix(path: str, source_suffixes: Iterable[str]) -> tuple[str, bool]:
    """Return ``(docname, had_suffix)`` for a source path or a docname."""
    ordered = longest_first(tuple(source_suffixes))
    if not path.endswith(ordered):  # one call for the usual docname, which has none
        return path, False
    for suffix in ordered:
        if path.endswith(suffix) and len(path) > len(suffix):
            return path[: -len(suffix)], True
    return path, False


@functools.lru_cache(maxsize=16)
def longest_first(suffixes: tuple[str, ...]) -> tuple[str, ...]:
    """The suffixes, longest first (``.rst.txt`` before ``.txt``); called for every link."""
    return tuple(sorted(filter(None, suffixes), key=len, reverse=True))


def split_target(target: str) -> tuple[str, str, str]:
    """Split a written link target into ``(path, query, fragment)``, none keeping its mark."""
    path, _, fragment = target.partition("#")
    path, _, query = path.partition("?")
    return path, query, fragment


def join_target(path: str, query: str = "", fragment: str = "") -> str:
    """Inverse of :func:`split_target`."""
    return path + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


def decode(text: str) -> str:
    """Percent-decode a path or fragment (``%E5%AE%89`` → ``安``)."""
    return unquote(text) if "%" in text else text


def folder_of(docname: str) -> str:
    """The folder of a docname or path, ``""`` for the top level."""
    return posixpath.dirname(docname)


def join_relative(folder: str, written: str) -> str:
    """Resolve ``written`` (relative, or ``/``-absolute from the source root) from ``folder``.

    The result is normalized and may start with ``../`` when it leaves the source folder.
    """
    if written.startswith("/"):
        joined = written.lstrip("/")
    else:
        joined = f"{folder}/{written}" if folder else written
    if not joined.startswith(".") and "/." not in joined and "//" not in joined:
        return joined.rstrip("/")  # no "." or ".." part: the common case needs no normpath
    normal = posixpath.normpath(joined)
    return "" if normal == "." else normal


def relative_path(from_folder: str, to_path: str) -> str:
    """A relative path that leads from ``from_folder`` to ``to_path`` (both normalized).

    ``posixpath.relpath`` without its cost: it asks the OS for the working folder on
    every call, which dominated 10,000 redirect stubs and source rewrites.
    """
    folder, _, name = to_path.rpartition("/")
    if name:
        # the way between the two folders, worked out once for each pair of folders (a
        # site has few; its links and stubs many); from inside ``to_path`` too, since a
        # page may be named as a folder is: from ``guide/``, the page ``guide`` (its
        # file ``guide.md``) is ``../guide``, where ``.`` would name the folder
        return _steps_between(from_folder, folder) + name
    to_parts = to_path.split("/")
    from_parts = from_folder.split("/") if from_folder else []
    common = 0
    for a, b in zip(from_parts, to_parts, strict=False):
        if a != b:
            break
        common += 1
    return "/".join([".."] * (len(from_parts) - common) + to_parts[common:]) or "."


@functools.lru_cache(maxsize=4096)
def _steps_between(from_folder: str, to_folder: str) -> str:
    """What leads from one folder to another: ``""`` or ``../../x/``, ending with ``/``."""
    to_parts = to_folder.split("/") if to_folder else []
    from_parts = from_folder.split("/") if from_folder else []
    common = 0
    for a, b in zip(from_parts, to_parts, strict=False):
        if a != b:
            break
        common += 1
    steps = [".."] * (len(from_parts) - common) + to_parts[common:]
    return "/".join(steps) + "/" if steps else ""


def site_path(url: str, baseurl: str) -> str | None:
    """The part of ``url`` below the site at ``baseurl`` (``html_baseurl``), ``None`` when
    it is not under it: ``https://e.org/docs-old/`` is not under ``https://e.org/docs``."""
    base = baseurl.rstrip("/")
    if not base or not url.startswith(base):
        return None
    rest = url[len(base):]
    if not rest or rest[0] in "?#":
        return rest
    return rest[1:] if rest[0] == "/" else None


#: Read the Docs serves a project's pages under ``/<language>/<version>/``: a base URL
#: without them (conda's ``html_baseurl = "https://docs.conda.io/projects/conda/"``)
#: still has its pages' URLs under them (``…/conda/en/latest/architecture.html``)
_SERVED_VERSION = re.compile(r"([a-z]{2,3}(?:[-_][A-Za-z]{2,4})?)/([^/?#]+)/")
#: the versions of a Read the Docs site that serve the tree being built
CURRENT_VERSIONS = ("latest", "stable")


def served_version(below: str, is_project_name: Callable[[str], bool]) -> tuple[str, bool]:
    """``(prefix, current)`` of a path below ``html_baseurl``: the Read the Docs
    ``<language>/<version>/`` it starts with (``""``: none, or its first segment is a
    page or folder of the project, ``is_project_name``, which wins), and whether that
    version serves today's tree (``latest``, ``stable``); another version's URL is
    history, as a forge URL of a tag is."""
    match = _SERVED_VERSION.match(below)
    if match is None or is_project_name(match.group(1)):
        return "", True
    return match.group(0), match.group(2) in CURRENT_VERSIONS


def leaves_root(path: str) -> bool:
    """Whether a normalized source-relative path points outside the source folder."""
    return path == ".." or path.startswith("../")


def html_page_path(docname: str, *, dirhtml: bool, file_suffix: str = ".html") -> str:
    """The output file an HTML builder writes for ``docname``."""
    if not dirhtml:
        return docname + file_suffix
    if docname == "index" or docname.endswith("/index"):
        return docname + file_suffix
    return docname + "/index" + file_suffix


# -- URLs of output pages (redirect stubs and exports) ------------------------------

#: Characters a URL path keeps as they are.  ``:`` is not among them, so a relative URL
#: such as ``a:b.html`` never reads as a scheme; ``%`` is not either, so a name that
#: contains it survives the round trip.
_PATH_SAFE = "/!$&'()*+,;=-._~@"
_FRAGMENT_SAFE = _PATH_SAFE + ":?"
#: Characters of an absolute URL that are kept (the reserved set and ``%`` escapes).
_URL_SAFE = _FRAGMENT_SAFE + "#[]%"


#: Text that needs no percent-encoding in a path (the common case, checked fast).
_PLAIN_PATH = re.compile(r"[A-Za-z0-9/!$&'()*+,;=._~@-]*")
_PLAIN_FRAGMENT = re.compile(r"[A-Za-z0-9/!$&'()*+,;=._~@:?-]*")


def quote_path(path: str) -> str:
    """Percent-encode a relative URL path (``特性.html`` → ``%E7%89%B9%E6%80%A7.html``)."""
    return path if _PLAIN_PATH.fullmatch(path) else quote(path, safe=_PATH_SAFE)


def quote_fragment(fragment: str) -> str:
    """Percent-encode a fragment (without its ``#``) for use in a URL."""
    return fragment if _PLAIN_FRAGMENT.fullmatch(fragment) else quote(fragment, safe=_FRAGMENT_SAFE)


def quote_url(url: str) -> str:
    """Percent-encode what an absolute URL must not carry raw (spaces, quotes, ``<``, non-ASCII).

    Existing ``%`` escapes and the reserved characters are kept, so a valid URL is unchanged.
    """
    return quote(url, safe=_URL_SAFE)


def page_href(
    from_file: str,
    to_docname: str,
    anchor: str = "",
    *,
    dirhtml: bool,
    file_suffix: str = ".html",
    link_suffix: str | None = None,
    index_file: bool = False,
) -> str:
    """The relative, percent-encoded URL from the output file ``from_file`` to a page.

    Under dirhtml the URL ends with ``/`` (``../guide/``) rather than ``index.html``, as
    Sphinx's own dirhtml links do, unless ``index_file``: a site opened from disk
    (``file://``) shows a folder listing for ``../guide/``, the page only for
    ``../guide/index.html``.  ``link_suffix`` is Sphinx's ``html_link_suffix`` (default
    ``file_suffix``); a non-empty ``anchor`` is appended as ``#anchor``.
    """
    target = html_page_path(to_docname, dirhtml=dirhtml, file_suffix=file_suffix)
    rel = relative_path(from_file.rpartition("/")[0], target)  # from_file is normalized
    index = "index" + file_suffix
    if dirhtml and not index_file and (rel == index or rel.endswith("/" + index)):
        rel = rel[: -len(index)] or "./"
    elif not dirhtml and link_suffix is not None and link_suffix != file_suffix:
        rel = (rel[: -len(file_suffix)] if file_suffix else rel) + link_suffix
    href = quote_path(rel) or "./"
    return href + "#" + quote_fragment(anchor) if anchor else href


def page_root_url(
    docname: str, *, dirhtml: bool, file_suffix: str = ".html", link_suffix: str | None = None
) -> str:
    """The percent-encoded URL path of a page from the root of the site, without a leading ``/``.

    As Sphinx's own ``get_target_uri``: ``guide/page.html``, or under dirhtml
    ``guide/page/`` (``""`` for the top ``index``).
    """
    if dirhtml:
        if docname == "index":
            return ""
        if docname.endswith("/index"):
            return quote_path(docname[: -len("index")])
        return quote_path(docname + "/")
    suffix = file_suffix if link_suffix is None else link_suffix
    return quote_path(docname + suffix)


def safe_output_path(path: str) -> str | None:
    """``path`` normalized if it stays inside the output folder, else ``None``.

    Refuses absolute paths, drive letters, backslashes, NUL and any ``..`` left after
    normalization: a redirect is never written (or deleted) outside the output folder.
    """
    if not path or "\\" in path or "\0" in path or path.startswith("/"):
        return None
    if len(path) > 1 and path[1] == ":" and path[0].isascii() and path[0].isalpha():
        return None  # a Windows drive; ".:" is a name like any other
    if not path.startswith(".") and "/." not in path and "//" not in path and path[-1] != "/":
        return path  # no "", "." or ".." part: normpath would return it as it is
    normal = posixpath.normpath(path)
    if normal in (".", "") or leaves_root(normal) or normal.startswith("/"):
        return None
    return normal


#: characters that make an ``html_sidebars`` key a pattern (Sphinx's ``_has_wildcard``)
SIDEBAR_WILDCARDS = frozenset("*?[")


def sphinx_pattern(pattern: str) -> str:
    """A Sphinx pattern (``exclude_patterns``, a toctree glob) as a regular expression,
    as ``sphinx.util.matching`` translates it: ``*`` and ``?`` stop at ``/``, ``**`` not."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        index += 1
        if char == "*":
            if pattern[index : index + 1] == "*":
                index += 1
                out.append(".*")
            else:
                out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = index
            if pattern[end : end + 1] == "!":
                end += 1
            if pattern[end : end + 1] == "]":
                end += 1
            end = pattern.find("]", end)
            if end < 0:
                out.append("\\[")
                continue
            body = pattern[index:end].replace("\\", "\\\\")
            index = end + 1
            if body.startswith("!"):
                body = "^/" + body[1:]  # a negated set never matches "/" either
            elif body.startswith("^"):
                body = "\\" + body
            out.append(f"[{body}]")
        else:
            out.append(re.escape(char))
    return "".join(out) + "$"
