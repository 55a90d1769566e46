"""``status = 302``: every export writes each rule's status, a folder's rule its entry's.

The real servers answer it in tests/test_exports_servers.py; here the formats that
cannot run here (Netlify, Vercel, Read the Docs, json) are parsed, with nginx and Apache.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from sphinx_relocate.core.exports import (
    EXPORTS,
    NGINX_TEMPORARY_LINE,
    export_files,
    moved_folders,
    temporary_folders,
)
from sphinx_relocate.core.stubs import HtmlOutput, Redirect, temporary_urls
from sphinx_relocate.core.table import Target, load_table

#: under ``/en``: a page of 301 and one of 302; the folder ``/g/`` of 301 and ``/d/``
#: of 302, whose row of 301 (another entry's) stays a rule of its own
ROWS = [
    ("/a.html", "/b.html"), ("/t.html", "/b.html"), ("/g/x.html", "/m/x.html"),
    ("/d/x.html", "/n/x.html"), ("/d/y.html", "/n/y.html"),
]
FOLDERS = [("/d/", "/n/"), ("/g/", "/m/")]
TEMPORARY = {"/t.html", "/d/", "/d/x.html"}
EXPECTED = {"/a.html": 301, "/t.html": 302, "/d/y.html": 301, "/d/": 302, "/g/": 301}


def _name(written: str) -> str:
    """The old URL of a rule, without its server's syntax and the site's path."""
    return re.sub(r'[\\^$~"*]|\(\.\*\)|:path|:splat', "", written).removeprefix("/en")


def _json(text: str) -> list[tuple[str, int]]:
    rows = json.loads(text)
    assert all(row.get("status", 302) == 302 for row in rows)  # written only for 302
    return [(row["from"], row.get("status", 301)) for row in rows]


def _netlify(text: str) -> list[tuple[str, int]]:
    rows = [line.split(" ") for line in text.splitlines() if not line.startswith("#")]
    return [(old, int(status.removesuffix("!"))) for old, _, status in rows]


def _nginx(text: str) -> list[tuple[str, int]]:
    keys = text.split("map $uri $relocate_key {\n")[1].split("}\n")[0]
    return [
        (key, 302 if written.startswith('"302 ') else 301)
        for key, written in (line.strip().rstrip(";").split(" ", 1)
                             for line in keys.splitlines())
    ]


def _apache(text: str) -> list[tuple[str, int]]:
    rows = [line.split(" ") for line in text.splitlines() if not line.startswith("#")]
    return [(old, {"permanent": 301, "temp": 302}[word]) for _, word, old, _ in rows]


def _vercel(text: str) -> list[tuple[str, int]]:
    return [
        (row["source"], 301 if row["permanent"] else 302)
        for row in json.loads(text)["redirects"]
    ]


def _readthedocs(text: str) -> list[tuple[str, int]]:
    return [(row["from_url"], row["http_status"]) for row in json.loads(text)]


STATUSES: dict[str, Callable[[str], list[tuple[str, int]]]] = {
    "json": _json, "netlify": _netlify, "nginx": _nginx, "apache": _apache,
    "vercel": _vercel, "readthedocs": _readthedocs,
}


def test_every_forward_export_is_parsed_here() -> None:
    assert sorted(STATUSES) == sorted(n for n in EXPORTS if not n.endswith("-reverse"))


@pytest.mark.parametrize("name", sorted(STATUSES))
def test_each_rule_says_its_status(name: str) -> None:
    text = export_files(ROWS, [name], "/en", FOLDERS, temporary=TEMPORARY)[EXPORTS[name].path]
    found = {_name(old): status for old, status in STATUSES[name](text)}
    assert found == EXPECTED, text
    if name == "vercel":  # 307, Vercel's temporary redirect
        assert '"permanent": false' in text
    if name == "nginx":
        assert NGINX_TEMPORARY_LINE in text


@pytest.mark.parametrize("name", sorted(STATUSES))
def test_without_302_entries_every_rule_is_301(name: str) -> None:
    text = export_files(ROWS, [name], "/en", FOLDERS)[EXPORTS[name].path]
    assert {status for _, status in STATUSES[name](text)} == {301}


def test_the_table_says_which_urls_and_folders_answer_302(tmp_path: Path) -> None:
    path = tmp_path / "relocations.toml"
    path.write_text(
        '[pages]\n"t" = { to = "b", status = 302 }\n"a" = "b"\n'
        '[prefixes]\n"d/" = { to = "n/", status = 302 }\n"g/" = "m/"\n'
        '[patterns]\n"f/*" = { to = "h/$source", status = 302 }\n',
        "utf-8",
    )
    table, problems = load_table(path)
    assert not problems
    folders = moved_folders(table, ["b.html", "n/x.html", "m/x.html"])
    assert temporary_folders(table, folders) == {"/d/", "/f/"}
    site = HtmlOutput(dirhtml=False)
    redirects = [
        Redirect(old, site.file(old), "", "", "", target)
        for old, target in (("t", Target("b")), ("a", Target("b")), ("d/x", Target("n/x")),
                            ("g/x", Target("m/x")), ("f/q", Target("h/f/q")))
    ]
    # an old URL style's stub of a page that did not move is 301 whatever matches it
    redirects.append(Redirect("d/z", "d/z/index.html", "", "", "", Target("d/z"),
                              old_url="/d/z/"))
    assert temporary_urls(redirects, site, table) == {"/t.html", "/d/x.html", "/f/q.html"}


def test_the_docs_paste_the_temporary_line() -> None:
    """What docs/deploying.md and docs/stubs.md tell users to paste is what the
    real-server tests use, the 302 line included."""
    docs = Path(__file__).parent.parent / "docs"
    for page in ("deploying.md", "stubs.md"):
        assert NGINX_TEMPORARY_LINE in (docs / page).read_text("utf-8"), page
    assert "status-302-while-a-move-is-tentative" in (docs / "deploying.md").read_text("utf-8")
