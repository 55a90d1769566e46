"""Every ``relocate_redirect_exports`` format, read back by parsing what the build wrote.

Each parser reads its format as the server would (nginx and Apache match the decoded
path, Vercel's source is a path-to-regexp pattern) and returns ``(old, new)`` with the
old path percent-encoded, so every format is compared with the same expected rows; a
folder's wildcard rule is ``("/old/*", "/new/*")``, and comes after every exact rule.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

import builds
import pytest

from sphinx_relocate.core.exports import (
    EXPORTS,
    NGINX_REVERSE_SERVER_LINES,
    NGINX_SERVER_LINE,
    Export,
    ReverseExport,
    Row,
    compact,
    export_files,
    moved_folders,
    reverse_rows,
)
from sphinx_relocate.core.settings import CONFIG_VALUES
from sphinx_relocate.core.table import RelocationTable, load_table

ROOT = Path(__file__).parent / "roots" / "test-stubs"
DOCS = Path(__file__).parent.parent / "docs"

#: The redirects of tests/roots/test-stubs under the html builder, from the site root:
#: not 'kept/page' (still a page) nor 'Features/EP_balance' (a case-only rename); the
#: folder 'legacy/' moved as a whole, one wildcard rule.
HTML_ROWS = {
    "/legacy/*": "/new/*",
    "/old/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.html": "/new/%E7%89%B9%E6%80%A7.html",
    "/old/a%3Cb%3E%22c'.html": "/new/plain.html#x%E2%80%A8y%3C/script%3E",
    "/old/anchored.html": "/new/plain.html#section-two",
    "/old/chain.html": "/new/plain.html",
    "/old/ext-quoted.html": "https://example.org/a%22b%3Cc%3E'd",
    "/old/mapped.html": "/new/plain.html",
    "/old/plain.html": "/new/plain.html",
    "/old/quoted.html": "/new/plain.html#it's%20%22q%22%20%3Cb%3E&",
}


def folder_urls(path: str) -> str:
    """The dirhtml URL of an html one: ``/a/b.html#x`` → ``/a/b/#x``."""
    return re.sub(r"\.html(?=#|$)", "/", path) if path.startswith("/") else path


DIRHTML_ROWS = {folder_urls(old): folder_urls(new) for old, new in HTML_ROWS.items()}
#: The reverse exports' rows (new → old) of the same build: of the old names of one
#: page the first in sorted order, here always one of 'legacy/' (which had every page
#: of 'new/'), so the folder backwards is all; no absolute URL
HTML_REVERSE_ROWS = {"/new/*": "/legacy/*"}
DIRHTML_REVERSE_ROWS = {
    folder_urls(new): folder_urls(old) for new, old in HTML_REVERSE_ROWS.items()
}
#: the forward and the reverse exports
FORWARD = {name: e for name, e in EXPORTS.items() if isinstance(e, Export)}
REVERSE = {name: e for name, e in EXPORTS.items() if isinstance(e, ReverseExport)}

_QUOTED = r'"((?:[^"\\]|\\.)*)"'


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def wildcards_last(found: dict[str, str]) -> dict[str, str]:
    """``found`` as it is, once its wildcard rules are known to follow the exact ones."""
    kinds = [old.endswith("*") for old in found]
    assert kinds == sorted(kinds), list(found)
    return found


def parse_json(text: str) -> dict[str, str]:
    rows = json.loads(text)
    exact = [row["from"] for row in rows if "prefix" not in row]
    assert exact == sorted(exact)
    assert all(row["prefix"] is True for row in rows if "prefix" in row)
    star = {True: "*", False: ""}
    return wildcards_last(
        {row["from"] + star["prefix" in row]: row["to"] + star["prefix" in row] for row in rows}
    )


def parse_netlify(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        old, new, status = line.split(" ")
        assert status == "301!"
        if old.endswith("*"):  # a splat: an old path's own '*' is encoded
            assert new.endswith(":splat")
            new = new.removesuffix(":splat") + "*"
        found[old] = new
    return wildcards_last(found)


def parse_nginx(text: str) -> dict[str, str]:
    """The rows of the two maps, which must have the same keys; a string key's own
    ``$relocate_key`` is the key itself, a regular expression's is ``$uri``."""
    assert f"# In the server block: {NGINX_SERVER_LINE}\n" in text
    maps = re.fullmatch(
        r"(?:#.*\n)*map_hash_bucket_size \d+;\nmap_hash_max_size \d+;\n"
        r"map \$uri \$relocate_key \{\n(.*?)\}\nmap \$uri \$relocate_target \{\n(.*?)\}\n"
        r"((?:map \$request_uri \$relocate_rest_\d+ \{\n.*?\}\n)*)",
        text, re.S,
    )
    assert maps, text

    def rows(body: str) -> list[tuple[str, str]]:
        found = []
        for line in body.splitlines():
            if line.startswith("    # not written: "):
                continue
            match = re.fullmatch(rf"    {_QUOTED} (\$uri|{_QUOTED});", line)
            assert match, line
            found.append((_unescape(match.group(1)), match.group(2)))
        return found

    keys, targets = rows(maps.group(1)), rows(maps.group(2))
    assert [k for k, _ in keys] == [k for k, _ in targets]
    found = {}
    rests = dict(re.findall(
        r'map \$request_uri (\$relocate_rest_\d+) \{\n    "~\^\(\?:/\[\^/\?\]\*\)\{(\d+)\}/'
        r'\(\[\^\?\]\*\)" \$1;\n\}\n', maps.group(3),
    ))
    assert "".join(rests) == "".join(re.findall(r"\$relocate_rest_\d+", maps.group(3)))
    for (old, written), (_, new) in zip(keys, targets, strict=True):
        rest = re.search(r"\$relocate_rest_\d+", new)
        if rest:  # a folder: the rest of the path after as many segments as it has
            assert old.startswith("~^") and not old.endswith("$") and written == "$uri"
            old = _unescape(old[2:])
            assert int(rests[rest.group()]) == old.count("/") - 1
            assert new.endswith(f'{rest.group()}$is_args$args"')
            found[quote(old, safe="/!$&'()*+,;=-._~@") + "*"] = new[1 : rest.start()] + "*"
            continue
        if old.startswith("~"):  # differs from another only by letter case, or has a $
            assert old.startswith("~^") and old.endswith("$") and written == "$uri"
            old = _unescape(old[2:-1])
        else:
            assert _unescape(written[1:-1]) == old
        # the query goes on before the fragment; no other variable is named
        path, _, fragment = _unescape(new[1:-1]).partition("$is_args$args")
        assert "$" not in path + fragment
        found[quote(old, safe="/!$&'()*+,;=-._~@")] = path + fragment
    return wildcards_last(found)


def parse_apache(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        match = re.fullmatch(rf"(Redirect|RedirectMatch) permanent {_QUOTED} {_QUOTED}", line)
        assert match, line
        directive, old, new = match.group(1), *(_unescape(g) for g in match.groups()[1:])
        if directive == "RedirectMatch" and old.endswith("(.*)$"):  # a folder
            assert old.startswith("^") and new.endswith("$1") and not new.endswith("\\$1")
            path = _unescape(old[1:-5])
            assert re.fullmatch(old, path + "a/b.html")
            parts = urlsplit(_unescape(new[:-2]))
            found[quote(path, safe="/!$&'()*+,;=-._~@") + "*"] = "".join([
                f"{parts.scheme}://{parts.netloc}" if parts.scheme else "",
                quote(parts.path, safe="/!$&'()*+,;=-._~@:"),
            ]) + "*"
            continue
        if directive == "RedirectMatch":  # an anchored pattern that matches only its path
            assert old.startswith("^") and old.endswith("$")
            path = _unescape(old[1:-1])
            assert re.fullmatch(old, path) and not re.fullmatch(old, path + "page/")
            # mod_alias percent-encodes a RedirectMatch target's path itself
            parts = urlsplit(_unescape(new))
            assert "%" not in parts.path
            new = "".join([
                f"{parts.scheme}://{parts.netloc}" if parts.scheme else "",
                quote(parts.path, safe="/!$&'()*+,;=-._~@:"),
                f"?{parts.query}" if parts.query else "",
                f"#{parts.fragment}" if parts.fragment else "",
            ])
            old = path
        else:  # Redirect moves every path below too: never a folder URL
            assert not old.endswith("/")
        found[quote(old, safe="/!$&'()*+,;=-._~@")] = new
    return wildcards_last(found)


def parse_vercel(text: str) -> dict[str, str]:
    rows = json.loads(text)["redirects"]
    assert all(row["permanent"] is True for row in rows)
    found = {}
    for row in rows:
        old, new = _unescape(row["source"]), row["destination"]
        if old.endswith(":path*"):  # an old path's own ':' is encoded
            assert new.endswith(":path*")
            old, new = old.removesuffix(":path*") + "*", new.removesuffix(":path*") + "*"
        found[old] = new
    return wildcards_last(found)


def parse_readthedocs(text: str) -> dict[str, str]:
    rows = json.loads(text)
    assert all(row["type"] == "page" and row["http_status"] == 301 for row in rows)
    assert [row["position"] for row in rows] == list(range(len(rows)))
    found = {}
    for row in rows:
        old, new = row["from_url"], row["to_url"]
        if old.endswith("*"):  # an old path's own '*' is encoded
            assert new.endswith(":splat")
            new = new.removesuffix(":splat") + "*"
        found[old] = new
    return wildcards_last(found)


PARSERS: dict[str, Callable[[str], dict[str, str]]] = {
    "json": parse_json,
    "netlify": parse_netlify,
    "nginx": parse_nginx,
    "apache": parse_apache,
    "vercel": parse_vercel,
    "readthedocs": parse_readthedocs,
}


#: a version folder's name in a reverse rule
_VERSION = "([A-Za-z0-9._~+-]+)"
_SAFE = "/!$&'()*+,;=-._~@"


def parse_nginx_reverse(text: str) -> dict[str, str]:
    """The ``$relocate_reverse`` map: ``/<version>/new`` → ``/<version>/old``, a folder
    with the rest of the path its ``$relocate_reverse_rest_<n>`` map takes."""
    body = text.partition("map $uri $relocate_reverse {\n")[2].partition("\n}")[0]
    found = {}
    prefix = '"~^/(?<relocate_version>[A-Za-z0-9._~+-]+)'
    for line in body.splitlines():
        match = re.fullmatch(rf"    {_QUOTED} {_QUOTED};", line.replace(prefix, '"~^', 1))
        assert match and line.startswith("    " + prefix), line
        new, old = (_unescape(g) for g in match.groups())
        assert old.startswith("/$relocate_version/") and old.endswith("$is_args$args")
        old = old.removeprefix("/$relocate_version").removesuffix("$is_args$args")
        rest = re.search(r"\$relocate_reverse_rest_(\d+)$", old)
        if rest:
            assert int(rest.group(1)) == new.count("/") and not new.endswith("$")
            found[quote(_unescape(new[2:]), safe=_SAFE) + "*"] = old[: rest.start()] + "*"
            continue
        assert new.endswith("$") and "$" not in old
        found[quote(_unescape(new[2:-1]), safe=_SAFE)] = old
    return wildcards_last(found)


def parse_apache_reverse(text: str) -> dict[str, str]:
    """``RewriteRule`` lines after the one that skips them all for a file or folder
    that exists: ``<version>/new`` → ``/<version>/old``, the target decoded."""
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    rules = lines[4:]
    assert lines[:4] == [
        "RewriteEngine On",
        "RewriteCond %{REQUEST_FILENAME} -f [OR]",
        "RewriteCond %{REQUEST_FILENAME} -d",
        f"RewriteRule ^ - [S={len(rules)}]",
    ]
    found = {}
    for line in rules:
        match = re.fullmatch(rf'RewriteRule "\^{re.escape(_VERSION)}/(.*)" "/\$1(.*)" \[R=302,L\]',
                             line)
        assert match, line
        new, old = match.groups()
        folder = new.endswith("(.*)$")
        new = _unescape(new.removesuffix("(.*)$" if folder else "$"))
        old = quote(re.sub(r"\\([$%])", r"\1", old).removesuffix("$2"), safe=_SAFE)
        star = "*" if folder else ""
        found[quote("/" + new, safe=_SAFE) + star] = old + star
    return wildcards_last(found)


def parse_readthedocs_reverse(text: str) -> dict[str, str]:
    rows = json.loads(text)
    assert all(row["type"] == "page" and row["http_status"] == 302 for row in rows)
    assert [row["position"] for row in rows] == list(range(len(rows)))
    return wildcards_last({
        row["from_url"]: row["to_url"].removesuffix(":splat") + "*"
        if row["from_url"].endswith("*") else row["to_url"]
        for row in rows
    })


REVERSE_PARSERS: dict[str, Callable[[str], dict[str, str]]] = {
    "nginx-reverse": parse_nginx_reverse,
    "apache-reverse": parse_apache_reverse,
    "readthedocs-reverse": parse_readthedocs_reverse,
}


def build(tmp_path: Path, builder: str, **conf: object) -> Path:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    conf.setdefault("relocate_redirect_exports", sorted(EXPORTS))
    return builds.build(src, builder, confoverrides=conf).outdir


def prefixed(rows: dict[str, str], root: str) -> dict[str, str]:
    return {root + old: root + new if new.startswith("/") else new for old, new in rows.items()}


def test_every_export_has_a_parser() -> None:
    assert sorted(PARSERS) == sorted(FORWARD)
    assert sorted(REVERSE_PARSERS) == sorted(REVERSE)


@pytest.mark.parametrize(("builder", "rows"), [("html", HTML_ROWS), ("dirhtml", DIRHTML_ROWS)])
def test_each_export_holds_every_redirect(tmp_path, monkeypatch, builder, rows) -> None:
    monkeypatch.delenv("READTHEDOCS_CANONICAL_URL", raising=False)
    out = build(tmp_path, builder)
    for name, export in FORWARD.items():
        assert PARSERS[name]((out / export.path).read_text("utf-8")) == rows, name
    back = HTML_REVERSE_ROWS if builder == "html" else DIRHTML_REVERSE_ROWS
    for name, reverse in REVERSE.items():
        assert REVERSE_PARSERS[name]((out / reverse.path).read_text("utf-8")) == back, name


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_read_the_docs_canonical_url_is_the_base_url(
    tmp_path, monkeypatch, builder
) -> None:
    """Without html_baseurl, READTHEDOCS_CANONICAL_URL makes canonical links absolute and
    puts its path before the servers' paths; RTD's own redirects are per version."""
    monkeypatch.setenv("READTHEDOCS_CANONICAL_URL", "https://proj.readthedocs.io/en/latest/")
    out = build(tmp_path, builder)
    rows = HTML_ROWS if builder == "html" else DIRHTML_ROWS
    for name, export in FORWARD.items():
        expected = rows if name == "readthedocs" else prefixed(rows, "/en/latest")
        assert PARSERS[name]((out / export.path).read_text("utf-8")) == expected, name
    stub = "old/plain.html" if builder == "html" else "old/plain/index.html"
    page = "new/plain.html" if builder == "html" else "new/plain/"
    text = (out / stub).read_text("utf-8")
    assert f'<link rel="canonical" href="https://proj.readthedocs.io/en/latest/{page}">' in text


def test_html_baseurl_wins_over_read_the_docs(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("READTHEDOCS_CANONICAL_URL", "https://proj.readthedocs.io/en/latest/")
    out = build(tmp_path, "html", html_baseurl="https://docs.example.org/")
    text = (out / "old/plain.html").read_text("utf-8")
    assert '<link rel="canonical" href="https://docs.example.org/new/plain.html">' in text
    assert parse_netlify((out / "_redirects").read_text("utf-8")) == HTML_ROWS


def test_export_names_are_documented() -> None:
    """The config help and the stubs page name every export and its file."""
    (help_text,) = [v.help for v in CONFIG_VALUES if v.name == "relocate_redirect_exports"]
    page = (DOCS / "stubs.md").read_text("utf-8")
    for name, export in EXPORTS.items():
        assert f'"{name}"' in help_text and export.path in help_text, name
        assert f'"{name}"' in page and export.path in page, name


# -- untrusted fields (D2) -------------------------------------------------------------------

#: rows as the plan could hand them over from names it did not check (a release's
#: inventory): the old path encodes a line break, the targets hold raw text
HOSTILE_ROWS = [
    ("/a%0ARequire%20all%20denied%0ASetEnv%20X.html", "/new.html"),
    ("/b%E2%80%A8c.html", "/new.html"),
    ("/back\\slash\\", "/new.html"),
    ("/q%22uote.html", '/new.html#"\nRequire all denied'),
    ("/d.html", "https://x.example/a b\r\nc$d\\"),
]


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_no_field_writes_a_second_rule(name: str) -> None:
    """Each row is one rule or one comment that says it was not written; no line of
    any format holds a control character or starts a directive of its own."""
    text = export_files(HOSTILE_ROWS, [name])[EXPORTS[name].path]
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text)
    assert "\nRequire" not in text and "\nSetEnv" not in text
    if name in ("netlify", "nginx", "apache"):
        lines = [line for line in text.splitlines() if not line.startswith("#")]
        rules = [line for line in lines if not line.startswith(("map", "}", "    # not"))]
        if name == "nginx":  # two maps, one line each
            assert len(rules) % 2 == 0 and text.count("# not written: ") % 2 == 0
            rules, refused = rules[: len(rules) // 2], text.count("# not written: ") // 2
        else:
            refused = text.count("# not written: ")
        assert len(rules) + refused == len(HOSTILE_ROWS), text
        assert name == "netlify" or refused == 2  # the decoded line breaks
    else:
        data = json.loads(text)
        assert len(data["redirects"] if name == "vercel" else data) == len(HOSTILE_ROWS)
    if name == "apache":  # each rule is three words as Apache reads them (\\ and \" escaped)
        word = r'"(?:[^"\\]|\\.)*"'
        for line in rules:
            assert re.fullmatch(rf"(Redirect|RedirectMatch) permanent {word} {word}", line), line


# -- folders: one wildcard rule ------------------------------------------------------


def table_of(tmp_path: Path, text: str) -> RelocationTable:
    path = tmp_path / "relocations.toml"
    path.write_text(text, "utf-8")
    table, problems = load_table(path)
    assert not problems, problems
    return table


#: the rules of each format with wildcards, as the server counts them
RULES: dict[str, Callable[[str], int]] = {
    "netlify": lambda text: len([x for x in text.splitlines() if not x.startswith("#")]),
    "apache": lambda text: len([x for x in text.splitlines() if not x.startswith("#")]),
    "nginx": lambda text: text.partition("$relocate_target {\n")[2].partition("}")[0].count(";"),
    "vercel": lambda text: len(json.loads(text)["redirects"]),
    "readthedocs": lambda text: len(json.loads(text)),
    "json": lambda text: len(json.loads(text)),
}


@pytest.mark.parametrize("name", sorted(RULES))
def test_a_folder_of_300_pages_is_one_rule(tmp_path: Path, name: str) -> None:
    """One rule in every format, unless a page of the site is below the old folder:
    then a wildcard would send it away, and each page keeps its own rule."""
    table = table_of(tmp_path, '[prefixes]\n"guide/" = "manual/"\n')
    pages = [f"manual/p{n}.html" for n in range(300)]
    rows = [(f"/guide/p{n}.html", f"/manual/p{n}.html") for n in range(300)]
    path = EXPORTS[name].path
    folders = moved_folders(table, pages)
    assert folders == [("/guide/", "/manual/")]
    assert RULES[name](export_files(rows, [name], "/en", folders)[path]) == 1
    kept = moved_folders(table, [*pages, "guide/still.html"])
    assert kept == []
    assert RULES[name](export_files(rows, [name], "/en", kept)[path]) == 300


def test_specific_rows_win_over_their_folder() -> None:
    """A row its folder gives as it is goes; one it does not (a page that went
    elsewhere, an anchor, a nested folder's page) stays, before every wildcard."""
    folders = [("/guide/api/", "https://api.example/"), ("/guide/", "/manual/")]
    rows = [
        ("/guide/a.html", "/manual/a.html"),
        ("/guide/b.html", "/other/b.html"),
        ("/guide/c.html", "/manual/c.html#part"),
        ("/guide/api/x.html", "https://api.example/x.html"),
        ("/guide/api/y.html", "/manual/api/y.html"),  # the nested folder comes first
        ("/other/z.html", "/manual/z.html"),
    ]
    exact, used = compact(rows, folders)
    assert used == folders
    assert exact == [rows[1], rows[2], rows[4], rows[5]]


@pytest.mark.parametrize(
    ("folder", "why"),
    [
        (("/guide/", "/manual/?x=1"), "a query of its own"),
        (("/guide/", "/manual/#top"), "a fragment"),
        (("/g%0Aide/", "/manual/"), "a line break, decoded"),
        (("/guide/", "/man%0Aual/"), "a line break in the target, decoded"),
        (("/guide/", "/guide/sub/"), "a URL below the folder, sent further down"),
        (("/other/", "/manual/"), "no row it gives"),
    ],
)
def test_a_folder_that_cannot_be_written_keeps_its_rows(folder: Row, why: str) -> None:
    rows = [("/guide/a.html", "/manual/a.html")]
    assert compact(rows, [folder]) == (rows, []), why


def test_moved_folders_of_prefixes_and_patterns(tmp_path: Path) -> None:
    """Chains of folders end where the last one went; a pattern is a folder when it is
    ``folder/*`` → ``prefix$source`` and no entry applied before it takes names of it
    first ('all/sub/*' after 'all/*', 'guide/sub/*' after 'guide/'; 'more/*' goes
    first, so it is one)."""
    table = table_of(tmp_path, """
[prefixes]
"guide/" = "manual/"
"manual/" = "docs/"
"ext/" = "https://example.org/a\u00e9/"
"特性/" = "new folder/"
[patterns]
"faq/*" = "help/$source"
"tips/*" = "help/x#$source"
"misc/*/old" = "help/$source"
"all/*" = "help/$source"
"all/sub/*" = "other/$source"
"guide/sub/*" = "other/$source"
"more/*" = "x/y/$source"
"more/a*" = "other/$source"
""")
    assert moved_folders(table, ["docs/page.html", "tips/x.html"]) == [
        ("/%E7%89%B9%E6%80%A7/", "/new%20folder/"),
        ("/manual/", "/docs/"),
        ("/guide/", "/docs/"),
        ("/more/", "/x/y/more/"),
        ("/all/", "/help/all/"),
        ("/ext/", "https://example.org/a%C3%A9/"),
        ("/faq/", "/help/faq/"),
    ]


# -- reverse exports (versions) ----------------------------------------------------------


def test_reverse_rows_pick_one_old_name_and_skip_urls() -> None:
    rows = [
        ("/old/b.html", "/new/p.html"),
        ("/old/a.html", "/new/p.html#part"),
        ("/old/x.html", "https://example.org/x"),
        ("/old/q.html", "/new/q.html?v=1"),
        ("/guide/c.html", "/manual/c.html"),
    ]
    assert reverse_rows(rows, [("/guide/", "/manual/"), ("/ext/", "https://e.org/")]) == (
        [("/manual/c.html", "/guide/c.html"), ("/new/p.html", "/old/a.html")],
        [("/manual/", "/guide/")],
    )


@pytest.mark.parametrize(("root", "version"), [("", "/v1"), ("/v2", "/v1"),
                                               ("/en/latest", "/en/1.0")])
def test_reverse_rules_match_in_every_version_folder(root: str, version: str) -> None:
    """The rules are written for the folder that holds this version's folder: the
    version a request names is the one it is sent back to."""
    rows = [("/old/%E7%89%B9.html", "/new/a%20b.html")]
    files = export_files(rows, sorted(REVERSE), root)
    nginx = files[REVERSE["nginx-reverse"].path]
    parent = version.rpartition("/")[0]
    key = f'"~^{re.escape(parent)}/(?<relocate_version>'.replace("\\", "\\\\")
    assert key in nginx and "/new/a\\\\ b\\\\.html$" in nginx
    assert f'"{parent}/$relocate_version/old/%E7%89%B9.html$is_args$args"' in nginx
    apache = files[REVERSE["apache-reverse"].path]
    assert f'"{parent}/$1/old/\u7279.html" [R=302,L]' in apache
    assert parse_readthedocs_reverse(files[REVERSE["readthedocs-reverse"].path]) == {
        "/new/a%20b.html": "/old/%E7%89%B9.html"
    }


@pytest.mark.parametrize("name", sorted(REVERSE))
def test_no_reverse_field_writes_a_second_rule(name: str) -> None:
    """The new names of a reverse export are the keys: a line break in one is a
    comment; a target that cannot be written safely is one too."""
    rows = [(f"/o{n}.html", new) for n, (new, _) in enumerate(HOSTILE_ROWS)]
    rows.append(("/o%0ARequire%20all%20denied.html", "/n.html"))
    text = export_files(rows, [name])[EXPORTS[name].path]
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text)
    assert "\nRequire" not in text and "\nSetEnv" not in text
    if name == "readthedocs-reverse":
        assert len(json.loads(text)) == len(rows)
        return
    rules = [line for line in text.splitlines() if line.startswith(("    \"", "RewriteRule \""))]
    refused = text.count("# not written: ")
    assert len(rules) + refused == len(rows), text
    assert refused == (3 if name == "apache-reverse" else 2)


#: the reverse rules of each reverse export, as the server counts them
REVERSE_RULES: dict[str, Callable[[str], int]] = {
    "nginx-reverse": lambda text: text.partition("$relocate_reverse {\n")[2]
    .partition("\n}")[0].count(";"),
    "apache-reverse": lambda text: text.count('RewriteRule "'),
    "readthedocs-reverse": lambda text: len(json.loads(text)),
}


@pytest.mark.parametrize("name", sorted(REVERSE_RULES))
def test_a_folder_of_300_pages_is_one_reverse_rule(tmp_path: Path, name: str) -> None:
    table = table_of(tmp_path, '[prefixes]\n"guide/" = "manual/"\n')
    rows = [(f"/guide/p{n}.html", f"/manual/p{n}.html") for n in range(300)]
    folders = moved_folders(table, [f"manual/p{n}.html" for n in range(300)])
    text = export_files(rows, [name], "/en/latest", folders)[EXPORTS[name].path]
    assert REVERSE_RULES[name](text) == 1
    assert REVERSE_RULES[name](export_files(rows, [name], "/en/latest")[EXPORTS[name].path]) == 300


def test_the_deploying_page_pastes_what_the_tests_serve() -> None:
    """The server lines docs/deploying.md shows are those the real-server tests use,
    and it names every export and its file."""
    page = (DOCS / "deploying.md").read_text("utf-8")
    assert NGINX_SERVER_LINE in page
    for line in NGINX_REVERSE_SERVER_LINES.splitlines():
        assert line.strip() in page, line
    for name in EXPORTS:
        assert f'"{name}"' in page, name
