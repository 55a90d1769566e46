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
* Each format says "permanent" its own way, and matches the exact old URL, never the
  pages below it.  nginx and Apache match the decoded path, so their old paths are
  written decoded and quoted.
* Every field is untrusted text (a table key, a page name a release listed): a field
  written percent-encoded has every byte that is not visible ASCII encoded once more
  (:func:`_encoded`), so no white space or line break can end it; a decoded old path
  with a control character cannot be written safely and becomes a comment that says
  so, in its encoded form.  One row is one rule, or one such comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

#: ``(old URL path, new URL path or absolute URL)``
Row = tuple[str, str]

_HEADER = "# Redirects of moved pages, written by sphinx-relocate.\n"

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


def _encoded(text: str, also: str = "") -> str:
    """``text`` with every character that is not visible ASCII, and those of ``also``,
    percent-encoded; a URL the plan encoded already comes back as it is."""
    return quote(
        text, safe="".join(c for c in _VISIBLE if c not in also), errors="surrogatepass"
    )


def _refused(old: str, why: str = "it decodes to a control character") -> str:
    """The comment that stands for a row that cannot be written safely."""
    return f"# not written: the old URL {_encoded(old)}: {why}\n"


@dataclass(frozen=True)
class Export:
    """One ``relocate_redirect_exports`` format: the file it writes and its renderer."""

    path: str
    render: Callable[[Sequence[Row]], str]
    #: the paths start at the server's root (after the base URL's path); Read the Docs'
    #: page redirects start at each version's root instead
    server_paths: bool = True


def _json(rows: Sequence[Row]) -> str:
    """``[{"from": …, "to": …}]``, sorted by ``from``: to generate any other format."""
    data = [{"from": _encoded(old), "to": _encoded(new)} for old, new in rows]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _netlify(rows: Sequence[Row]) -> str:
    """``_redirects`` of Netlify and Cloudflare Pages.

    Forced (``!``), because the stubs themselves exist at the old paths.  ``*`` (a
    splat) and ``:`` (a placeholder) are syntax in the old path, so they are encoded.
    """
    return _HEADER + "".join(
        f"{_encoded(old, '*:')} {_encoded(new, _QUOTES)} 301!\n" for old, new in rows
    )


def _nginx_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


#: what the server block of nginx needs, once (docs/stubs.md)
NGINX_SERVER_LINE = "if ($relocate_key = $uri) { return 301 $relocate_target; }"


#: nginx's hash element for a key of ``n`` bytes takes a pointer, two bytes of length
#: and the key, aligned to a pointer (``NGX_HASH_ELT_SIZE``); a bucket holds at least
#: one element and a closing pointer
def _bucket_need(length: int) -> int:
    return 8 + (length + 2 + 7) // 8 * 8 + 8


#: nginx refuses a bucket past 64 kB: a longer key (no page name is) is a regex
_LONGEST_STRING_KEY = 4000


def _nginx(rows: Sequence[Row]) -> str:
    """Two ``map`` blocks for the ``http`` block; the server block returns 301 where the
    old path matches with its letter case.

    ``$uri`` is decoded, so the keys are.  nginx compares a map's string keys without
    ASCII letter case, so ``$relocate_key`` gives the key as written and the server
    block compares it with ``$uri``; keys that differ from another only by case, and
    keys with a ``$`` (a map's value would read it as a variable), are anchored regular
    expressions instead, which keep the case themselves.  The hash sizes are set from
    the keys (the default bucket holds keys up to 46 bytes, and about 2,000 of them).
    The target keeps the query (``$is_args$args``) before the fragment; a ``$`` of its
    own is percent-encoded, so it names no variable.
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
        keys.append(f"    {key} {written};\n")
        targets.append(f"    {key} {value};\n")
    size = 2048
    while size < 2 * strings:
        size *= 2
    return "".join([
        _HEADER,
        "# In the http block:   include /path/to/_relocate/nginx.conf;\n",
        f"# In the server block: {NGINX_SERVER_LINE}\n",
        "# (If your http block sets map_hash_bucket_size or map_hash_max_size, keep the\n",
        "# larger of the values, once.)\n",
        f"map_hash_bucket_size {bucket};\n",
        f"map_hash_max_size {size};\n",
        "map $uri $relocate_key {\n", *keys, "}\n",
        "map $uri $relocate_target {\n", *targets, "}\n",
    ])


def _apache_string(text: str) -> str:
    """A quoted argument: Apache reads ``\\\\`` and ``\\"`` in one as ``\\`` and ``"``."""
    return _nginx_string(text)


def _apache_match_target(url: str) -> str | None:
    """A ``RedirectMatch`` target: mod_alias percent-encodes its path itself (not its
    query or fragment), so the path is written decoded; ``None`` when the decoded path
    would read as something else (a ``?``, ``#`` or control character)."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    if _CONTROL.search(path) or "?" in path or "#" in path:
        return None
    return (
        (f"{parts.scheme}://{parts.netloc}" if parts.scheme else "")
        + path
        + (f"?{parts.query}" if parts.query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )


def _apache(rows: Sequence[Row]) -> str:
    """``Redirect permanent`` lines (``RedirectMatch`` for folder URLs) for mod_alias.

    ``Redirect`` matches the decoded path and every path below it, which is right for
    ``old.html`` but would also move the pages below a dirhtml folder ``/old/``: those
    get an anchored ``RedirectMatch``, whose target escapes ``$`` and ``&`` and has its
    path decoded (:func:`_apache_match_target`).
    """
    lines = [
        _HEADER,
        "# Include it in the server configuration (Include /path/to/_relocate/apache.conf)\n",
        "# or add its lines to the .htaccess at the root of the site.\n",
    ]
    for old, new in rows:
        path, new = unquote(old), _encoded(new, _QUOTES)
        if _CONTROL.search(path) or not path.startswith("/"):
            lines.append(_refused(old))
        elif path.endswith("/"):
            target = _apache_match_target(new)
            if target is None:
                lines.append(_refused(old, "its target cannot be written for RedirectMatch"))
                continue
            target = target.replace("\\", "\\\\").replace("$", "\\$").replace("&", "\\&")
            pattern = "^" + re.escape(path) + "$"
            lines.append(
                f"RedirectMatch permanent {_apache_string(pattern)} {_apache_string(target)}\n"
            )
        else:
            lines.append(f"Redirect permanent {_apache_string(path)} {_apache_string(new)}\n")
    return "".join(lines)


#: Characters of a Vercel ``source`` (path-to-regexp) that are syntax; the others of
#: its syntax (``:``, ``?``, ``{}``, ``\``) are percent-encoded in every path already.
_VERCEL_SYNTAX = re.compile(r"[()*+]")


def _vercel(rows: Sequence[Row]) -> str:
    """``vercel.json`` with permanent (308) ``redirects``."""
    data = {
        "redirects": [
            {
                "source": _VERCEL_SYNTAX.sub(lambda m: "\\" + m.group(), _encoded(old, ":?{}\\")),
                "destination": _encoded(new),
                "permanent": True,
            }
            for old, new in rows
        ]
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _readthedocs(rows: Sequence[Row]) -> str:
    """A JSON list of page redirects, each the body of a POST to Read the Docs' API v3."""
    data = [
        {"type": "page", "from_url": _encoded(old, "*"), "to_url": _encoded(new),
         "http_status": 301}
        for old, new in rows
    ]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


#: Every ``relocate_redirect_exports`` name, what it writes and how.
EXPORTS: dict[str, Export] = {
    "json": Export("_relocate/redirects.json", _json),
    "netlify": Export("_redirects", _netlify),
    "nginx": Export("_relocate/nginx.conf", _nginx),
    "apache": Export("_relocate/apache.conf", _apache),
    "vercel": Export("vercel.json", _vercel),
    "readthedocs": Export("_relocate/readthedocs.json", _readthedocs, server_paths=False),
}


def export_files(rows: Iterable[Row], names: Iterable[str], root_path: str = "") -> dict[str, str]:
    """The text of each export in ``names``, by its path in the output folder.

    ``root_path`` is the path the site is served under (``/en/latest``, or ``""``).
    """
    site_rows = sorted(rows)
    server_rows = [
        (root_path + old, root_path + new if new.startswith("/") else new)
        for old, new in site_rows
    ]
    files: dict[str, str] = {}
    for name in sorted(set(names)):
        export = EXPORTS[name]
        files[export.path] = export.render(server_rows if export.server_paths else site_rows)
    return files
