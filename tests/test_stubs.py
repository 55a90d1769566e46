"""Redirect stubs written by real Sphinx builds (tests/roots/test-stubs)."""

from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import sphinx
from sphinx.errors import ConfigError

from sphinx_relocate.core import stubs as _stubs
from sphinx_relocate.core.table import Target
from sphinx_relocate.sphinx_ext import stubs as sphinx_ext_stubs
from sphinx_relocate.sphinx_ext.state import state_of

ROOT = Path(__file__).parent / "roots" / "test-stubs"


class _Tags(HTMLParser):
    """Collects start tags (name, attrs) and the text of <title> and <script>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: dict[str, str] = {}
        self._in = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag

    def handle_endtag(self, tag: str) -> None:
        self._in = ""

    def handle_data(self, data: str) -> None:
        if self._in in ("title", "script", "noscript", "a"):
            self.text[self._in] = self.text.get(self._in, "") + data


def parse(path: Path) -> _Tags:
    parser = _Tags()
    parser.feed(path.read_text("utf-8"))
    return parser


def attr(page: _Tags, tag: str, **match: str) -> dict[str, str | None]:
    found = [a for t, a in page.tags if t == tag and all(a.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (tag, match, page.tags)
    return found[0]


def refresh_url(page: _Tags) -> str:
    content = attr(page, "meta", **{"http-equiv": "refresh"})["content"] or ""
    assert content.startswith("0; url=")
    return content[len("0; url=") :]


#: How each warning reads, for Sphinx 7.4, which does not print ``[relocate.<kind>]``.
SIGNATURES = {
    "shadowed": ("still exists, so", "the build writes its own file"),
    "case_rename": ("differ only by letter case, so",),
    "stub": (
        "is not a folder inside",
        "cannot write",
        "relocate_stub_template:",
        "is not a place for a page",
        "export is not written",
        "sphinx-relocate did not write",
        "was changed since sphinx-relocate wrote it",
    ),
}


def lines(warning: Any, kind: str) -> list[str]:
    """The warning lines of one ``relocate.<kind>``."""
    found = []
    for line in warning.getvalue().splitlines():
        if sphinx.version_info >= (8,):
            if f"[relocate.{kind}]" in line:
                found.append(line)
        elif "WARNING" in line and any(sign in line for sign in SIGNATURES[kind]):
            found.append(line)
    return found


def stub_files(outdir: Path) -> dict[str, bytes]:
    return {
        p.relative_to(outdir).as_posix(): p.read_bytes()
        for p in sorted(outdir.rglob("*"))
        if p.is_file() and ("old" in p.parts or "legacy" in p.parts or "_relocate" in p.parts)
    }


@pytest.mark.sphinx("html", testroot="stubs", freshenv=True)
def test_html_stub_contents(app, warning) -> None:
    app.build()
    out = Path(app.outdir)
    text = (out / "old/plain.html").read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>\n")
    page = parse(out / "old/plain.html")
    assert attr(page, "meta", charset="utf-8")
    assert attr(page, "meta", name="robots")["content"] == "noindex"
    assert attr(page, "link", rel="canonical")["href"] == "../new/plain.html"
    assert refresh_url(page) == "../new/plain.html"
    assert attr(page, "a")["href"] == "../new/plain.html"
    assert page.text["a"] == "Plain page"
    assert page.text["title"] == "Moved: Plain page"
    assert '"../new/plain.html"' in page.text["script"]
    # a chain lands on the last page; [prefixes] and CJK names get stubs too
    assert refresh_url(parse(out / "old/chain.html")) == "../new/plain.html"
    assert refresh_url(parse(out / "legacy/other.html")) == "../new/other.html"
    assert refresh_url(parse(out / "old/特性总览.html")) == "../new/%E7%89%B9%E6%80%A7.html"
    # a target with an anchor; an old anchor mapped in the script
    assert refresh_url(parse(out / "old/anchored.html")) == "../new/plain.html#section-two"
    script = parse(out / "old/mapped.html").text["script"]
    assert '"old-id":"../new/other.html#new-id"' in script
    assert '"renamed":"../new/plain.html#section-two"' in script
    # relative URLs only, in every stub
    for path in out.joinpath("old").rglob("*.html"):
        for _, attrs in parse(path).tags:
            for name in ("href", "content"):
                value = attrs.get(name) or ""
                assert not value.startswith(("/", "file:")), (path, value)
    assert not lines(warning, "stub")


@pytest.mark.sphinx("html", testroot="stubs", freshenv=True)
def test_shadowed_page_gets_no_stub_and_one_warning(app, warning) -> None:
    app.build()
    kept = (Path(app.outdir) / "kept/page.html").read_text("utf-8")
    assert "Still here." in kept and "noindex" not in kept
    assert len(lines(warning, "shadowed")) == 1
    assert (
        "kept/page"
        not in json.loads((Path(app.outdir) / _stubs.MANIFEST).read_text("utf-8"))["files"]
    )


@pytest.mark.sphinx("html", testroot="stubs", freshenv=True)
def test_case_only_rename_writes_no_stub(app, warning) -> None:
    app.build()
    out = Path(app.outdir)
    assert [p.name for p in (out / "Features").iterdir()] == ["ep_balance.html"]
    assert "EP balance" in (out / "Features/ep_balance.html").read_text("utf-8")
    (line,) = lines(warning, "case_rename")
    assert "relocations.toml:11:" in line
    assert "no redirect stub for 'Features/EP_balance'" in line
    assert "differ only by letter case" in line


@pytest.mark.sphinx("html", testroot="stubs", freshenv=True)
def test_values_are_escaped_for_their_context(app) -> None:
    app.build()
    out = Path(app.outdir)
    # a target anchor with quotes, '<' and '&'
    quoted = parse(out / "old/quoted.html")
    assert refresh_url(quoted) == "../new/plain.html#it's%20%22q%22%20%3Cb%3E&"
    raw = (out / "old/quoted.html").read_text("utf-8")
    assert "<b>" not in raw
    # an external URL with quotes and '<': percent-encoded, then attribute-escaped
    external = (out / "old/ext-quoted.html").read_text("utf-8")
    assert 'href="https://example.org/a%22b%3Cc%3E&#x27;d"' in external
    assert "<c>" not in external
    # a page title with '<', quotes and '&' (the link text and <title>)
    other = (out / "legacy/other.html").read_text("utf-8")
    assert "Other &lt;page&gt; &quot;quoted&quot; &amp; &#x27;single&#x27;" in other
    assert parse(out / "legacy/other.html").text["a"] == "Other <page> \"quoted\" & 'single'"
    # JS strings: no '</script>' or '<!--' inside the script, U+2028 escaped
    for path in (out / "old/mapped.html", out / "old/a<b>\"c'.html"):
        body = path.read_text("utf-8")
        script = body[body.index("<script>") + 8 : body.index("</script>")]
        assert body.count("</script>") == 1
        assert "<" not in script and "\u2028" not in script
    assert '"\\u003c/script\\u003e\\u003c!--":' in (out / "old/mapped.html").read_text("utf-8")


@pytest.mark.sphinx("dirhtml", testroot="stubs", freshenv=True)
def test_dirhtml_stubs(app) -> None:
    """The refresh, the link and the script name the page's index.html, which a site
    opened from disk shows (a folder URL there is a listing); canonical stays pretty."""
    app.build()
    out = Path(app.outdir)
    assert not (out / "old/plain.html").exists()
    page = parse(out / "old/plain/index.html")
    assert refresh_url(page) == "../../new/plain/index.html"
    assert attr(page, "a")["href"] == "../../new/plain/index.html"
    assert '"../../new/plain/index.html"' in page.text["script"]
    assert attr(page, "link", rel="canonical")["href"] == "../../new/plain/"
    mapped = parse(out / "old/mapped/index.html")
    assert refresh_url(mapped) == "../../new/plain/index.html"
    assert '"old-id":"../../new/other/index.html#new-id"' in mapped.text["script"]
    # a [prefixes] move alike
    assert refresh_url(parse(out / "legacy/other/index.html")) == "../../new/other/index.html"


@pytest.mark.sphinx(
    "html",
    testroot="stubs",
    srcdir="stubs-suffix",
    freshenv=True,
    confoverrides={"html_file_suffix": ".htm", "html_baseurl": "https://docs.example.org/en/"},
)
def test_file_suffix_and_baseurl(app) -> None:
    app.build()
    out = Path(app.outdir)
    assert not (out / "old/plain.html").exists()
    page = parse(out / "old/plain.htm")
    assert refresh_url(page) == "../new/plain.htm"
    canonical = attr(page, "link", rel="canonical")["href"]
    assert canonical == "https://docs.example.org/en/new/plain.htm"
    cjk = attr(parse(out / "old/特性总览.htm"), "link", rel="canonical")["href"]
    assert cjk == "https://docs.example.org/en/new/%E7%89%B9%E6%80%A7.htm"


@pytest.mark.sphinx(
    "dirhtml",
    testroot="stubs",
    srcdir="stubs-baseurl",
    freshenv=True,
    confoverrides={"html_baseurl": "https://docs.example.org/en/latest/"},
)
def test_dirhtml_baseurl_canonical(app) -> None:
    app.build()
    page = parse(Path(app.outdir) / "old/anchored/index.html")
    # the canonical URL names the page, without the anchor
    assert attr(page, "link", rel="canonical")["href"] == (
        "https://docs.example.org/en/latest/new/plain/"
    )
    assert refresh_url(page) == "../../new/plain/index.html#section-two"


@pytest.mark.sphinx(
    "html",
    testroot="stubs",
    srcdir="stubs-exports",
    freshenv=True,
    confoverrides={"relocate_redirect_exports": ["netlify", "json"]},
)
def test_exports(app) -> None:
    app.build()
    out = Path(app.outdir)
    rules = (out / "_redirects").read_text("utf-8").splitlines()
    assert rules[0].startswith("#")
    assert "/old/plain.html /new/plain.html 301!" in rules
    assert "/old/anchored.html /new/plain.html#section-two 301!" in rules
    assert "/legacy/* /new/:splat 301!" in rules  # a folder moved as a whole: one rule
    assert (
        "/old/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.html /new/%E7%89%B9%E6%80%A7.html 301!" in rules
    )
    assert "/old/ext-quoted.html https://example.org/a%22b%3Cc%3E'd 301!" in rules
    assert all(len(rule.split()) == 3 for rule in rules[1:])
    data = json.loads((out / "_relocate/redirects.json").read_text("utf-8"))
    exact = [row for row in data if "prefix" not in row]
    assert exact == sorted(exact, key=lambda row: row["from"])
    assert data[len(exact) :] == [{"from": "/legacy/", "to": "/new/", "prefix": True}]
    assert {"from": "/old/chain.html", "to": "/new/plain.html"} in data
    assert len(data) == len(rules) - 1
    # the case-only rename and the still-existing page are in neither
    assert not any("EP_balance" in row["from"] or "kept" in row["from"] for row in data)


@pytest.mark.sphinx(
    "dirhtml",
    testroot="stubs",
    srcdir="stubs-exports-dir",
    freshenv=True,
    confoverrides={"relocate_redirect_exports": ["netlify"]},
)
def test_netlify_export_dirhtml(app) -> None:
    app.build()
    rules = (Path(app.outdir) / "_redirects").read_text("utf-8").splitlines()
    assert "/old/plain/ /new/plain/ 301!" in rules
    assert "/old/mapped/ /new/plain/ 301!" in rules
    assert not (Path(app.outdir) / "_relocate/redirects.json").exists()


@pytest.mark.parametrize("builder", ["text", "singlehtml", "epub", "latex"])
def test_no_stubs_for_other_builders(make_app, tmp_path, builder) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    exports = {"relocate_redirect_exports": ["netlify", "json"]}
    app = make_app(builder, srcdir=src, confoverrides=exports)
    app.build()
    out = Path(app.outdir)
    assert not (out / "old").exists()
    assert not (out / "_relocate").exists()
    assert not (out / "_redirects").exists()
    assert not lines(app._warning, "case_rename")
    assert not lines(app._warning, "stub")


@pytest.mark.sphinx("html", testroot="stubs", srcdir="stubs-stale", freshenv=True)
def test_stale_stubs_are_removed(make_app, app_params) -> None:
    args, kwargs = app_params
    first = make_app(*args, **kwargs)
    first.build()
    out = Path(first.outdir)
    src = Path(first.srcdir)
    # a file of someone else's that looks like a stub, and a stub the user edited
    (out / "old/user.html").write_text("mine", "utf-8")
    (out / "old/anchored.html").write_text("edited by hand", "utf-8")
    # the table drops three entries; one old name becomes a real page again
    table = (src / "relocations.toml").read_text("utf-8")
    for entry in (
        '"old/plain" = "new/plain"\n',
        '"old/anchored" = "new/plain#section-two"\n',
        '"old/chain" = "old/plain"\n',
    ):
        table = table.replace(entry, "")
    (src / "relocations.toml").write_text(table, "utf-8")
    (src / "old").mkdir()
    (src / "old/chain.rst").write_text("Chain is back\n=============\n\nBack.\n", "utf-8")
    second = make_app(*args, **{**kwargs, "freshenv": False})
    second.build()
    assert not (out / "old/plain.html").exists()
    assert (out / "old/user.html").read_text("utf-8") == "mine"
    assert (out / "old/anchored.html").read_text("utf-8") == "edited by hand"
    assert "Back." in (out / "old/chain.html").read_text("utf-8")
    assert (out / "old/mapped.html").exists()
    manifest = json.loads((out / _stubs.MANIFEST).read_text("utf-8"))["files"]
    assert "old/plain.html" not in manifest and "old/chain.html" not in manifest
    assert "old/mapped.html" in manifest


@pytest.mark.sphinx("html", testroot="stubs", srcdir="stubs-symlink", freshenv=True)
def test_never_writes_through_a_symlink(app, warning, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    out = Path(app.outdir)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "legacy", ignore_errors=True)
    os.symlink(outside, out / "legacy")
    (out / "old").mkdir(exist_ok=True)
    os.symlink(outside / "x.html", out / "old/plain.html")
    app.build()
    assert list(outside.iterdir()) == []
    stub = lines(warning, "stub")
    assert any("'legacy' is not a folder inside the output folder" in line for line in stub)
    assert any("cannot write 'old/plain.html'" in line for line in stub)


def test_manifest_paths_outside_are_ignored(tmp_path) -> None:
    (tmp_path / "_relocate").mkdir()
    victim = tmp_path.parent / f"{tmp_path.name}-victim.html"
    victim.write_text("x", "utf-8")
    manifest = {"files": {f"../{victim.name}": _stubs.digest(b"x"), "/etc/passwd": "0"}}
    (tmp_path / _stubs.MANIFEST).write_text(json.dumps(manifest), "utf-8")
    assert _stubs.read_manifest(tmp_path) == {}
    _stubs.write_all(tmp_path, [], _stubs.read_manifest(tmp_path), set(), lambda p, m: None)
    assert victim.exists()


@pytest.mark.sphinx("html", testroot="stubs", srcdir="stubs-twice")
def test_output_is_deterministic(make_app, app_params) -> None:
    args, kwargs = app_params
    kwargs["confoverrides"] = {"relocate_redirect_exports": ["netlify", "json"]}
    first = make_app(*args, **{**kwargs, "freshenv": True})
    first.build()
    before = stub_files(Path(first.outdir))
    shutil.rmtree(first.outdir)
    second = make_app(*args, **{**kwargs, "freshenv": True, "parallel": 2})
    second.build()
    after = stub_files(Path(second.outdir))
    assert len(before) > 10
    assert before == after


@pytest.mark.sphinx(
    "html",
    testroot="stubs",
    srcdir="stubs-template",
    freshenv=True,
    confoverrides={"relocate_stub_template": "stub_template.html"},
)
def test_custom_template(app, warning) -> None:
    app.build()
    out = Path(app.outdir)
    text = (out / "old/mapped.html").read_text("utf-8")
    assert text.startswith('<!DOCTYPE html>\n<html class="themed">')
    page = parse(out / "old/mapped.html")
    assert refresh_url(page) == "../new/plain.html"
    assert attr(page, "meta", name="robots")["content"] == "noindex"
    assert "old: old/mapped; new: new/plain" in text
    assert attr(page, "link", rel="stylesheet")["href"] == "../_static/basic.css"
    # autoescaped values
    other = (out / "legacy/other.html").read_text("utf-8")
    assert "Other &lt;page&gt;" in other
    assert not lines(warning, "stub")


def test_bad_template_is_one_config_error(make_app, tmp_path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    (src / "bad.html").write_text("<p>\n{% if %}\n", "utf-8")
    for name, message in (
        ("bad.html", r"bad\.html:2: relocate_stub_template: "),
        ("missing.html", r"relocate_stub_template: cannot read .*missing\.html"),
    ):
        with pytest.raises(ConfigError, match=message):
            make_app("html", srcdir=src, confoverrides={"relocate_stub_template": name})


def test_unknown_export_is_a_config_error(make_app, tmp_path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src)
    known = (
        "'apache', 'apache-reverse', 'json', 'netlify', 'nginx', 'nginx-reverse', "
        "'readthedocs', 'readthedocs-reverse', 'vercel'"
    )
    message = f"unknown export 'iis' (expected any of: {known})"
    with pytest.raises(ConfigError, match=re.escape(message)):
        make_app("html", srcdir=src, confoverrides={"relocate_redirect_exports": ["iis"]})


@pytest.mark.sphinx("html", testroot="stubs", freshenv=True)
def test_landings_are_worked_out_once_per_build_and_not_kept_on_the_table(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stubs and the inventory's aliases share one working-out of where the old pages
    land, kept in the build's state; planning leaves nothing on the table."""
    calls: list[object] = []
    work_out = sphinx_ext_stubs.old_page_landings

    def counted(*args: Any) -> dict[str, Target]:
        calls.append(args)
        return work_out(*args)

    monkeypatch.setattr(sphinx_ext_stubs, "old_page_landings", counted)
    app.build()
    assert app.config.relocate_inventory_aliases
    assert len(calls) == 1
    table = state_of(app).table
    cached = [key for key in vars(table) if key.startswith("_")]
    assert not [key for key in cached if "landing" in key or "anchor" in key], cached
