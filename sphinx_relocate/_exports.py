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
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

#: ``(old URL path, new URL path or absolute URL)``
Row = tuple[str, str]

_HEADER = "# Redirects of moved pages, written by sphinx-relocate.\n"


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
    data = [{"from": old, "to": new} for old, new in rows]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _netlify(rows: Sequence[Row]) -> str:
    """``_redirects`` of Netlify and Cloudflare Pages.

    Forced (``!``), because the stubs themselves exist at the old paths.
    """
    return _HEADER + "".join(f"{old} {new} 301!\n" for old, new in rows)


def _nginx_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _nginx(rows: Sequence[Row]) -> str:
    """A ``map`` for the ``http`` block; the server block returns 301 where it is set.

    ``$uri`` is decoded, so the keys are; ``$`` in a value would name a variable, so it
    is percent-encoded there.
    """
    lines = [
        _HEADER,
        "# In the http block:   include /path/to/_relocate/nginx.conf;\n",
        "# In the server block: if ($relocate_target) { return 301 $relocate_target; }\n",
        "map $uri $relocate_target {\n",
    ]
    lines += [
        f"    {_nginx_string(unquote(old))} {_nginx_string(new.replace('$', '%24'))};\n"
        for old, new in rows
    ]
    return "".join([*lines, "}\n"])


def _apache_string(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _apache(rows: Sequence[Row]) -> str:
    """``Redirect permanent`` lines (``RedirectMatch`` for folder URLs) for mod_alias.

    ``Redirect`` matches the decoded path and every path below it, which is right for
    ``old.html`` but would also move the pages below a dirhtml folder ``/old/``: those
    get an anchored ``RedirectMatch``, whose target escapes ``$`` and ``&``.
    """
    lines = [
        _HEADER,
        "# Include it in the server configuration (Include /path/to/_relocate/apache.conf)\n",
        "# or add its lines to the .htaccess at the root of the site.\n",
    ]
    for old, new in rows:
        path = unquote(old)
        if path.endswith("/"):
            target = new.replace("\\", "\\\\").replace("$", "\\$").replace("&", "\\&")
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
                "source": _VERCEL_SYNTAX.sub(lambda m: "\\" + m.group(), old),
                "destination": new,
                "permanent": True,
            }
            for old, new in rows
        ]
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _readthedocs(rows: Sequence[Row]) -> str:
    """A JSON list of page redirects, each the body of a POST to Read the Docs' API v3."""
    data = [
        {"type": "page", "from_url": old, "to_url": new, "http_status": 301}
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
