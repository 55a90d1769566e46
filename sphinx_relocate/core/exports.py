"""Server-side redirect rules written from the same plan as the stubs (no Sphinx).

How it works:

* :data:`EXPORTS` is the registry of ``relocate_redirect_exports``: each name has the
  file it writes (relative to the output folder) and the function that renders it from
  the rows of the plan.  A new hosting format is one entry.
* A row is ``(old, new)``: the old page's URL path and where it went, a URL path with
  any ``#anchor`` or an absolute URL.  Paths are percent-encoded and start at the site
  root (``/old/page.html``, ``/old/page/`` under dirhtml); for the servers' formats
  they start with the path of the base URL (``/en/latest``) when the site is served
  under one.  Read the Docs' page redirects are relative to each version, so they
  never carry it.
* Each format says "permanent" its own way, and a row matches the exact old URL, never
  the pages below it.  An old URL in ``temporary`` (its entry asked for ``status =
  302``: :meth:`~sphinx_relocate.core.table.RelocationTable.status_of`) says "found"
  instead, a 302 (Vercel's temporary redirect is a 307); a folder's rule carries the
  status of its entry.  nginx and Apache match the decoded path, so their old paths are
  written decoded and quoted.
* A folder that moved as a whole (a ``[prefixes]`` entry, or a ``[patterns]`` entry
  that is one: ``faq/*`` → ``help/$source``) is one wildcard rule, ``(old folder URL,
  new folder URL)``, in every format (:func:`moved_folders`, :func:`compact`): the rows
  it gives exactly are dropped, the others stay and come first, so a page of the folder
  that went elsewhere keeps its own rule; nested folders go longest first.  A folder
  with a file of the current site below it (or a stub not written) gets no wildcard,
  since a wildcard would send that file's URL away: its rows stay, one rule each.
* A reverse export (``nginx-reverse``, ``apache-reverse``, ``readthedocs-reverse``:
  :class:`ReverseExport`) serves an older version of a versioned site: new name → old
  name (:func:`reverse_rows`), a 302 that applies only where the new name is not a
  file of that version (on a 404), in every version folder next to this one
  (``/v1/new.html`` → ``/v1/old.html`` for a site under ``/v2``).
* Every field is untrusted text (a table key, a page name a release listed): a field
  written percent-encoded has every byte that is not visible ASCII encoded once more
  (:func:`_encoded`), so no white space or line break can end it; a decoded old path
  with a control character cannot be written safely and becomes a comment that says
  so, in its encoded form.  One row is one rule, or one such comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from sphinx_relocate.core.paths import quote_path, quote_url
from sphinx_relocate.core.table import WILDCARDS, RelocationTable

#: ``(old URL path, new URL path or absolute URL)``
Row = tuple[str, str]

_HEADER = "# Redirects of moved pages, written by sphinx-relocate.\n"
_REVERSE_HEADER = (
    "# Reverse redirects for the older versions of the site (new name -> old name, where\n"
    "# the new name is not found), written by sphinx-relocate.\n"
)

#: visible ASCII: what a percent-encoded field keeps (``%`` included, so that
#: encoding an encoded field again changes nothing)
_VISIBLE = "".join(map(chr, range(0x21, 0x7F)))
#: what no decoded old path may hold in a server's configuration: controls, DEL, C1,
#: the Unicode line and paragraph separators and the bidirectional controls
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


#: what a target never holds raw in a configuration file: the quote and the escape
_QUOTES = '"\\'
#: a ``[patterns]`` target's placeholder for the old name, as the end of a folder move
_SOURCE = "$source"


def _encoded(text: str, also: str = "") -> str:
    """``text`` with every character that is not visible ASCII, and those of ``also``,
    percent-encoded; a URL the plan encoded already comes back as it is."""
    return quote(
        text, safe="".join(c for c in _VISIBLE if c not in also), errors="surrogatepass"
    )


def _refused(old: str, why: str = "it decodes to a control character") -> str:
    """The comment that stands for a row that cannot be written safely."""
    return f"# not written: the old URL {_encoded(old)}: {why}\n"


def moved_folders(table: RelocationTable, in_use: Iterable[str]) -> list[Row]:
    """``(old folder URL, new folder URL or absolute URL)`` of each folder that moved as a
    whole, from the site root (``/guide/``, ``/manual/``), longest old folder first.

    ``in_use`` holds the output files (``guide/page.html``) that must keep answering:
    a folder with one of them below it is left out.  A ``[patterns]`` entry is a folder
    when its glob is ``folder/*`` and its target ``prefix$source``, and no entry the
    table applies before it (a ``[prefixes]`` one, an earlier pattern) could take a
    name below the folder first.
    """
    used = {path[: end + 1] for path in in_use for end in _slashes(path)}
    found: dict[str, str] = {}
    for old, _ in table.prefixes:
        new = table.locate_pattern(old + "*")
        if new is not None and (new.url or new.path).endswith("*") and not new.anchor:
            found.setdefault(old, quote_url(new.url[:-1]) if new.url else new.path[:-1])
    earlier = [old for old, _ in table.prefixes]
    for pattern in table.patterns:
        folder, to = pattern.glob.removesuffix("*"), pattern.to
        literal = WILDCARDS.split(pattern.glob, maxsplit=1)[0]  # what its names start with
        overlaps = any(folder.startswith(o) or o.startswith(folder) for o in earlier)
        earlier.append(literal)
        if overlaps or not folder.endswith("/") or WILDCARDS.search(folder):
            continue
        start = to.path.removesuffix(_SOURCE)
        if to.url or to.anchor or start == to.path or "$" in start:
            continue
        new = table.locate_pattern(start + folder + "*")
        if new is not None and (new.url or new.path).endswith("*") and not new.anchor:
            found[folder] = quote_url(new.url[:-1]) if new.url else new.path[:-1]
        else:
            found[folder] = start + folder
    folders = [
        ("/" + quote_path(old), new if "://" in new else "/" + quote_path(new))
        for old, new in found.items()
        if old not in used and old.endswith("/")
    ]
    return sorted(folders, key=lambda row: (-len(row[0]), row))


def _slashes(path: str) -> Iterator[int]:
    end = path.find("/")
    while end > 0:
        yield end
        end = path.find("/", end + 1)


def temporary_folders(table: RelocationTable, folders: Iterable[Row]) -> set[str]:
    """The old URLs of the :func:`moved_folders` whose entry asked for ``status = 302``."""
    return {old for old, _ in folders if table.status_of(unquote(old)[1:]) == 302}


def compact(
    rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str] = ()
) -> tuple[list[Row], list[Row]]:
    """The rows no folder gives as they are, and the folders written as one wildcard in
    every format.

    A URL is looked up as the servers will: the exact rows first, then the folders,
    longest first (``folders`` comes in that order); a row is dropped when the first
    folder containing it sends it where the row does, with the same status
    (``temporary`` holds the old URLs of the rows and folders that answer 302).  A
    folder that gives no row is left out, and so is one that a format could not write
    or that would send a URL below itself (``a/`` → ``a/b/``: ``/a/b/x`` → ``/a/b/b/x`` → …).
    """
    usable = [
        (old, new)
        for old, new in folders
        if old.startswith("/") and old.endswith("/") and new.endswith("/")
        and not new.startswith(old)
        and not _CONTROL.search(unquote(old)) and not _CONTROL.search(unquote(new))
        and "?" not in new and "#" not in new
        and _apache_match_target(_encoded(new, _QUOTES)) is not None
    ]
    exact, given = _given(rows, usable, temporary)
    used = [folder for folder in usable if folder in given]
    if len(used) < len(usable):  # a shorter folder may now give rows the other did not
        exact, _ = _given(rows, used, temporary)
    return exact, used


def _given(
    rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]
) -> tuple[list[Row], set[Row]]:
    """The rows no folder gives, and the folders that give one."""
    by_old = dict(folders)
    exact: list[Row] = []
    given: set[Row] = set()
    for old, new in rows:
        end = len(old)  # the longest folder that holds old: one dict probe a level
        while (end := old.rfind("/", 0, end)) >= 0 and old[: end + 1] not in by_old:
            pass
        folder = old[: end + 1]
        if end >= 0 and by_old[folder] + old[end + 1 :] == new and (
            (old in temporary) == (folder in temporary)
        ):
            given.add((folder, by_old[folder]))
        else:
            exact.append((old, new))
    return exact, given


@dataclass(frozen=True)
class Export:
    """One ``relocate_redirect_exports`` format: the file it writes and its renderer,
    which takes the exact rows, the folders (:func:`compact`) and the old URLs of those
    that answer 302."""

    path: str
    render: Callable[[Sequence[Row], Sequence[Row], Collection[str]], str]
    #: the paths start at the server's root (after the base URL's path); Read the Docs'
    #: page redirects start at each version's root instead
    server_paths: bool = True


@dataclass(frozen=True)
class ReverseExport:
    """A reverse ``relocate_redirect_exports`` format: the file it writes and its
    renderer, which takes the reverse rows and folders (paths from a version's root,
    ``/new.html``) and the path of the folder that holds the versions (``/en`` for a
    site under ``/en/latest``, ``""`` for ``/v2``)."""

    path: str
    render: Callable[[Sequence[Row], Sequence[Row], str], str]


#: one version folder's name in a reverse rule: the characters a URL path keeps as they
#: are (``v1``, ``1.2``, ``latest``), so the captured name is written back unchanged
_VERSION_NAME = "[A-Za-z0-9._~+-]+"
_VERSION = f"({_VERSION_NAME})"


def reverse_rows(rows: Iterable[Row], folders: Iterable[Row]) -> tuple[list[Row], list[Row]]:
    """``(new URL, old URL)`` of each row and folder that lands on a page of the site
    (not an absolute URL), without the target's fragment; of several old names of one
    page the first in sorted order, which any older version that had one of them
    serves as well."""
    back: dict[str, str] = {}
    for old, new in sorted(rows):
        path = new.partition("#")[0]
        if path.startswith("/") and "?" not in path and path != old:
            back.setdefault(path, old)
    back_folders: dict[str, str] = {}
    for old, new in sorted(folders):
        if new.startswith("/"):
            back_folders.setdefault(new, old)
    return (
        sorted(back.items()),
        sorted(back_folders.items(), key=lambda row: (-len(row[0]), row)),
    )


def _status(old: str, temporary: Collection[str]) -> int:
    return 302 if old in temporary else 301


def _json(rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]) -> str:
    """``[{"from": …, "to": …}]``, sorted by ``from``, then ``{"from": "/old/", "to":
    "/new/", "prefix": true}`` for each folder, longest first: to generate any other
    format.  The first entry that matches a URL applies; a prefix entry matches every
    URL that starts with ``from`` and sends it to ``to`` followed by the rest.  An entry
    of 302 says ``"status": 302``; without it, it is 301 (as every entry was before
    statuses)."""
    data: list[dict[str, str | int | bool]] = []
    for rule, prefix in [(row, False) for row in rows] + [(row, True) for row in folders]:
        old, new = rule
        entry: dict[str, str | int | bool] = {"from": _encoded(old), "to": _encoded(new)}
        if old in temporary:
            entry["status"] = 302
        if prefix:
            entry["prefix"] = True
        data.append(entry)
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _netlify(rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]) -> str:
    """``_redirects`` of Netlify and Cloudflare Pages.

    Forced (``!``), because the stubs themselves exist at the old paths.  ``*`` (a
    splat) and ``:`` (a placeholder) are syntax in the old path, so they are encoded;
    a folder is a splat (``/old/*  /new/:splat``) after every exact rule, since the
    first rule that matches applies.
    """
    return _HEADER + "".join(
        [f"{_encoded(old, '*:')} {_encoded(new, _QUOTES)} {_status(old, temporary)}!\n"
         for old, new in rows]
        + [f"{_encoded(old, '*:')}* {_encoded(new, _QUOTES)}:splat {_status(old, temporary)}!\n"
           for old, new in folders]
    )


def _nginx_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


#: what the server block of nginx needs, once (docs/stubs.md)
NGINX_SERVER_LINE = "if ($relocate_key = $uri) { return 301 $relocate_target; }"
#: and the line for the entries with ``status = 302``, whose key is ``302 $uri``: nginx
#: takes no variable for the code of ``return``
NGINX_TEMPORARY_LINE = 'if ($relocate_key = "302 $uri") { return 302 $relocate_target; }'


#: nginx's hash element for a key of ``n`` bytes takes a pointer, two bytes of length
#: and the key, aligned to a pointer (``NGX_HASH_ELT_SIZE``); a bucket holds at least
#: one element and a closing pointer
def _bucket_need(length: int) -> int:
    return 8 + (length + 2 + 7) // 8 * 8 + 8


#: nginx refuses a bucket past 64 kB: a longer key (no page name is) is a regex
_LONGEST_STRING_KEY = 4000


def _nginx(rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]) -> str:
    """``map`` blocks for the ``http`` block; the server block returns 301 where the old
    path matches with its letter case (302 where ``$relocate_key`` is ``302`` and the
    path: :data:`NGINX_TEMPORARY_LINE`).

    ``$uri`` is decoded, so the keys are.  nginx compares a map's string keys without
    ASCII letter case, so ``$relocate_key`` gives the key as written and the server
    block compares it with ``$uri``; keys that differ from another only by case, and
    keys with a ``$`` (a map's value would read it as a variable), are anchored regular
    expressions instead, which keep the case themselves.  The hash sizes are set from
    the keys (the default bucket holds keys up to 46 bytes, and about 2,000 of them).
    The target keeps the query (``$is_args$args``) before the fragment; a ``$`` of its
    own is percent-encoded, so it names no variable.

    A folder is a regular expression after the exact ones (string keys win over regular
    expressions, which apply in the order written).  A capture of ``$uri`` would be
    decoded, and ``return`` writes it as it is (raw spaces, raw UTF-8), so the rest of
    the path is taken from ``$request_uri``, as the client encoded it: the part after
    as many segments as the old folder has (``$relocate_rest_1`` after ``/guide/``).
    """
    decoded = [(unquote(old), old, _encoded(new, "$" + _QUOTES)) for old, new in rows]
    folded: dict[bytes, int] = {}
    for path, _, _ in decoded:
        lowered = path.encode("utf-8", "surrogatepass").lower()
        folded[lowered] = folded.get(lowered, 0) + 1
    keys: list[str] = []
    targets: list[str] = []
    bucket, strings = 64, 0
    for path, old, new in decoded:
        if _CONTROL.search(path) or not path.startswith("/"):
            keys.append("    " + _refused(old))
            targets.append("    " + _refused(old))
            continue
        target, hash_, fragment = new.partition("#")
        query = "" if "?" in target else "$is_args$args"  # a target's own query wins
        value = _nginx_string(f"{target}{query}{hash_}{fragment}")
        raw = path.encode("utf-8", "surrogatepass")
        if folded[raw.lower()] > 1 or "$" in path or len(raw) > _LONGEST_STRING_KEY:
            key, written = _nginx_string("~^" + re.escape(path) + "$"), "$uri"
        else:
            key, written, strings = _nginx_string(path), _nginx_string(path), strings + 1
            while bucket < 4 * _bucket_need(len(raw)):  # room for a few keys a bucket
                bucket *= 2
        if old in temporary:  # the key's value names the status: NGINX_TEMPORARY_LINE
            written = '"302 ' + (written if written == "$uri" else written[1:-1]) + '"'
        keys.append(f"    {key} {written};\n")
        targets.append(f"    {key} {value};\n")
    depths: set[int] = set()
    for old, new in folders:
        key = _nginx_string("~^" + re.escape(unquote(old)))
        depth = old.count("/") - 1
        depths.add(depth)
        value = _nginx_string(f"{_encoded(new, '$' + _QUOTES)}$relocate_rest_{depth}$is_args$args")
        written = '"302 $uri"' if old in temporary else "$uri"
        keys.append(f"    {key} {written};\n")
        targets.append(f"    {key} {value};\n")
    rests = [
        f"map $request_uri $relocate_rest_{depth} {{\n"
        f'    "~^(?:/[^/?]*){{{depth}}}/([^?]*)" $1;\n}}\n'
        for depth in sorted(depths)
    ]
    size = 2048
    while size < 2 * strings:
        size *= 2
    return "".join([
        _HEADER,
        "# In the http block:   include /path/to/_relocate/nginx.conf;\n",
        f"# In the server block: {NGINX_SERVER_LINE}\n",
        f"# and, for entries with status = 302: {NGINX_TEMPORARY_LINE}\n",
        "# (If your http block sets map_hash_bucket_size or map_hash_max_size, keep the\n",
        "# larger of the values, once.)\n",
        f"map_hash_bucket_size {bucket};\n",
        f"map_hash_max_size {size};\n",
        "map $uri $relocate_key {\n", *keys, "}\n",
        "map $uri $relocate_target {\n", *targets, "}\n",
        *rests,
    ])


def _apache_string(text: str) -> str:
    """A quoted argument: Apache reads ``\\\\`` and ``\\"`` in one as ``\\`` and ``"``."""
    return _nginx_string(text)


def _apache_match_target(url: str) -> str | None:
    """A ``RedirectMatch`` target: mod_alias percent-encodes its path itself (not its
    query or fragment), so the path is written decoded; ``None`` when the decoded path
    would read as something else (a ``?``, ``#`` or control character), or when it does
    not split as a URL (``//[`` names an IPv6 host that is not one)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    path = unquote(parts.path)
    if _CONTROL.search(path) or "?" in path or "#" in path:
        return None
    return (
        (f"{parts.scheme}://{parts.netloc}" if parts.scheme else "")
        + path
        + (f"?{parts.query}" if parts.query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )


def _apache_match(pattern: str, target: str, status: int, capture: str = "") -> str:
    """A ``RedirectMatch`` line: the target's ``$`` and ``&`` escaped, then ``capture``
    (``$1``) as it is."""
    target = target.replace("\\", "\\\\").replace("$", "\\$").replace("&", "\\&")
    return (
        f"RedirectMatch {_APACHE_STATUS[status]} {_apache_string(pattern)} "
        f"{_apache_string(target + capture)}\n"
    )


#: mod_alias's word for each status
_APACHE_STATUS = {301: "permanent", 302: "temp"}


def _apache(rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]) -> str:
    """``Redirect permanent`` lines (``RedirectMatch`` for folder URLs) for mod_alias.

    ``Redirect`` matches the decoded path and every path below it, which is right for
    ``old.html`` but would also move the pages below a dirhtml folder ``/old/``: those
    get an anchored ``RedirectMatch``, whose target escapes ``$`` and ``&`` and has its
    path decoded (:func:`_apache_match_target`).  A folder is a ``RedirectMatch`` that
    captures the rest of the path, after every exact rule (the first that matches
    applies); mod_alias encodes the target's path, capture included, and keeps the query.
    """
    lines = [
        _HEADER,
        "# Include it in the server configuration (Include /path/to/_relocate/apache.conf)\n",
        "# or add its lines to the .htaccess at the root of the site.\n",
    ]
    for old, new in rows:
        path, new, status = unquote(old), _encoded(new, _QUOTES), _status(old, temporary)
        if _CONTROL.search(path) or not path.startswith("/"):
            lines.append(_refused(old))
        elif path.endswith("/"):
            target = _apache_match_target(new)
            if target is None:
                lines.append(_refused(old, "its target cannot be written for RedirectMatch"))
                continue
            lines.append(_apache_match("^" + re.escape(path) + "$", target, status))
        else:
            lines.append(
                f"Redirect {_APACHE_STATUS[status]} {_apache_string(path)} "
                f"{_apache_string(new)}\n"
            )
    for old, new in folders:
        target = _apache_match_target(_encoded(new, _QUOTES))
        assert target is not None  # compact() keeps only such folders
        lines.append(_apache_match(
            "^" + re.escape(unquote(old)) + "(.*)$", target, _status(old, temporary), "$1"
        ))
    return "".join(lines)


#: what the server block of nginx needs for the reverse export, once (docs/deploying.md)
NGINX_REVERSE_SERVER_LINES = (
    "error_page 404 = @relocate_reverse;\n"
    "location @relocate_reverse {\n"
    "    if ($relocate_reverse) { return 302 $relocate_reverse; }\n"
    "    return 404;\n"
    "}\n"
)


def _nginx_reverse(rows: Sequence[Row], folders: Sequence[Row], versions: str) -> str:
    """A ``map`` for the ``http`` block; the server block sends a request that found no
    file (``error_page 404``) to its old name, with the version folder it asked for.

    As in :func:`_nginx`: the keys match the decoded ``$uri``; the rest of a folder's
    path is taken from ``$request_uri`` as the client encoded it; the query is kept.
    """
    # a named capture: the rest of a folder's path (another map) has captures of its own
    prefix = "~^" + re.escape(unquote(versions)) + f"/(?<relocate_version>{_VERSION_NAME})"
    lines: list[str] = []
    for new, old in rows:
        if _CONTROL.search(unquote(new)):
            lines.append("    " + _refused(new))
            continue
        key = _nginx_string(prefix + re.escape(unquote(new)) + "$")
        value = _nginx_string(
            f"{versions}/$relocate_version{_encoded(old, '$' + _QUOTES)}$is_args$args"
        )
        lines.append(f"    {key} {value};\n")
    depths: set[int] = set()
    for new, old in folders:
        depth = versions.count("/") + new.count("/")
        depths.add(depth)
        key = _nginx_string(prefix + re.escape(unquote(new)))
        value = _nginx_string(
            f"{versions}/$relocate_version{_encoded(old, '$' + _QUOTES)}"
            f"$relocate_reverse_rest_{depth}"
            "$is_args$args"
        )
        lines.append(f"    {key} {value};\n")
    rests = [
        f"map $request_uri $relocate_reverse_rest_{depth} {{\n"
        f'    "~^(?:/[^/?]*){{{depth}}}/([^?]*)" $1;\n}}\n'
        for depth in sorted(depths)
    ]
    server = "".join(f"#   {line}\n" for line in NGINX_REVERSE_SERVER_LINES.splitlines())
    return "".join([
        _REVERSE_HEADER,
        "# In the http block:   include /path/to/_relocate/nginx-reverse.conf;\n",
        "# In the server block:\n",
        server,
        "map $uri $relocate_reverse {\n", *lines, "}\n",
        *rests,
    ])


def _apache_reverse(rows: Sequence[Row], folders: Sequence[Row], versions: str) -> str:
    """``mod_rewrite`` rules for the ``.htaccess`` of the web server's root (or its
    ``<Directory>``), where a path has no leading ``/``; the rules are skipped when the
    request names a file or folder of that version.

    The target's path is written decoded and mod_rewrite encodes it, with the rest of
    a folder's path; a literal ``$`` or ``%`` is escaped with a backslash, since both
    start a back-reference there.  The query is kept.
    """
    prefix = "^" + re.escape(unquote(versions).lstrip("/") + "/" if versions else "")
    rules: list[str] = []
    for new, old, rest in [(n, o, "") for n, o in rows] + [(n, o, "$2") for n, o in folders]:
        target = _apache_match_target(_encoded(old, _QUOTES))
        if _CONTROL.search(unquote(new)) or target is None or any(c in target for c in _QUOTES):
            rules.append(_refused(new, "it or its target cannot be written for RewriteRule"))
            continue
        target = target.replace("$", "\\$").replace("%", "\\%")
        # mod_rewrite reads a quoted argument as it is: re.escape writes a '"' as '\"'
        pattern = prefix + _VERSION + "/" + re.escape(unquote(new).lstrip("/"))
        pattern += "(.*)$" if rest else "$"
        rules.append(f'RewriteRule "{pattern}" "{versions}/$1{target}{rest}" [R=302,L]\n')
    written = sum(1 for rule in rules if rule.startswith("RewriteRule"))
    return "".join([
        _REVERSE_HEADER,
        "# Add its lines to the .htaccess at the root of the web server (the folder of the\n",
        "# versions' folders), or inside <Directory /that/folder>; needs mod_rewrite.\n",
        "RewriteEngine On\n",
        "RewriteCond %{REQUEST_FILENAME} -f [OR]\n",
        "RewriteCond %{REQUEST_FILENAME} -d\n",
        f"RewriteRule ^ - [S={written}]\n",
        *rules,
    ])


def _readthedocs_reverse(rows: Sequence[Row], folders: Sequence[Row], versions: str) -> str:
    """Read the Docs' page redirects (as :func:`_readthedocs`), as 302: they apply only
    where the page does not exist, in every version of the project."""
    pairs = [(_encoded(new, "*"), _encoded(old)) for new, old in rows] + [
        (_encoded(new, "*") + "*", _encoded(old) + ":splat") for new, old in folders
    ]
    data = [
        {"type": "page", "from_url": new, "to_url": old, "http_status": 302,
         "position": position}
        for position, (new, old) in enumerate(pairs)
    ]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


#: Characters of a Vercel ``source`` (path-to-regexp) that are syntax; the others of
#: its syntax (``:``, ``?``, ``{}``, ``\``) are percent-encoded in every path already.
_VERCEL_SYNTAX = re.compile(r"[()*+]")


def _vercel_source(old: str) -> str:
    return _VERCEL_SYNTAX.sub(lambda m: "\\" + m.group(), _encoded(old, ":?{}\\"))


def _vercel(rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]) -> str:
    """``vercel.json`` with permanent (308) ``redirects``, temporary (307) ones for the
    entries with ``status = 302``; a folder is ``/old/:path*`` after every exact rule
    (the first that matches applies)."""
    data = {
        "redirects": [
            {
                "source": _vercel_source(old),
                "destination": _encoded(new),
                "permanent": old not in temporary,
            }
            for old, new in rows
        ]
        + [
            {
                "source": _vercel_source(old) + ":path*",
                "destination": _encoded(new) + ":path*",
                "permanent": old not in temporary,
            }
            for old, new in folders
        ]
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _readthedocs(
    rows: Sequence[Row], folders: Sequence[Row], temporary: Collection[str]
) -> str:
    """A JSON list of page redirects, each the body of a POST to Read the Docs' API v3;
    a folder is ``/old/*`` → ``/new/:splat``.  Read the Docs applies the first redirect
    by ``position`` (lower first), so each says its place: the folders after every
    exact one."""
    pairs = [
        (_encoded(old, "*"), _encoded(new), _status(old, temporary)) for old, new in rows
    ] + [
        (_encoded(old, "*") + "*", _encoded(new) + ":splat", _status(old, temporary))
        for old, new in folders
    ]
    data = [
        {"type": "page", "from_url": old, "to_url": new, "http_status": status,
         "position": position}
        for position, (old, new, status) in enumerate(pairs)
    ]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


#: Every ``relocate_redirect_exports`` name, what it writes and how.
EXPORTS: dict[str, Export | ReverseExport] = {
    "json": Export("_relocate/redirects.json", _json),
    "netlify": Export("_redirects", _netlify),
    "nginx": Export("_relocate/nginx.conf", _nginx),
    "apache": Export("_relocate/apache.conf", _apache),
    "vercel": Export("vercel.json", _vercel),
    "readthedocs": Export("_relocate/readthedocs.json", _readthedocs, server_paths=False),
    "nginx-reverse": ReverseExport("_relocate/nginx-reverse.conf", _nginx_reverse),
    "apache-reverse": ReverseExport("_relocate/apache-reverse.conf", _apache_reverse),
    "readthedocs-reverse": ReverseExport(
        "_relocate/readthedocs-reverse.json", _readthedocs_reverse
    ),
}


def export_files(
    rows: Iterable[Row],
    names: Iterable[str],
    root_path: str = "",
    folders: Sequence[Row] = (),
    style_rows: Iterable[Row] = (),
    temporary: Collection[str] = (),
) -> dict[str, str]:
    """The text of each export in ``names``, by its path in the output folder.

    ``root_path`` is the path the site is served under (``/en/latest``, or ``""``);
    ``folders`` are the folders that moved as a whole (:func:`moved_folders`);
    ``style_rows`` the old URL styles' URLs of the pages (``relocate_old_url_styles``),
    which only the forward exports write (an older version's style is its own);
    ``temporary`` the old URLs of the rows and folders whose entry asked for ``status =
    302`` (:func:`temporary_folders`, :func:`~sphinx_relocate.core.stubs.temporary_urls`).
    """
    rows = sorted(rows)
    site_rows, site_folders = compact(sorted([*rows, *style_rows]), folders, temporary)
    back_rows, back_folders = compact(*reverse_rows(rows, folders))

    def served(rows: Iterable[Row]) -> list[Row]:
        return [
            (root_path + old, root_path + new if new.startswith("/") else new)
            for old, new in rows
        ]

    server_rows, server_folders = served(site_rows), served(site_folders)
    server_temporary = {root_path + old for old in temporary}
    versions = root_path.rpartition("/")[0]
    files: dict[str, str] = {}
    for name in sorted(set(names)):
        export = EXPORTS[name]
        if isinstance(export, ReverseExport):
            files[export.path] = export.render(back_rows, back_folders, versions)
        elif export.server_paths:
            files[export.path] = export.render(server_rows, server_folders, server_temporary)
        else:
            files[export.path] = export.render(site_rows, site_folders, temporary)
    return files
