"""Property tests of the URL helpers behind redirect stubs (pure, no Sphinx build)."""

from __future__ import annotations

import json
import posixpath
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_relocate.core.paths import (
    html_page_path,
    page_href,
    page_root_url,
    quote_fragment,
    quote_path,
    quote_url,
    relative_path,
    safe_output_path,
    site_path,
)
from sphinx_relocate.core.stubs import (
    ENGLISH,
    HtmlOutput,
    Redirect,
    StubText,
    js_string,
    old_page_landings,
    old_pages,
    plan,
    render_default,
    rendered_default,
)
from sphinx_relocate.core.table import RelocationTable, Target, load_table

_CHARS = st.sampled_from(list("abcXYZ09-_.~ '\"<>&%:#?@=+;,!()[]特性总览é\u2028"))
segment = st.one_of(
    st.sampled_from(["index", "guide", "a", "特性总览", "EP_balance"]),
    st.text(_CHARS, min_size=1, max_size=8).filter(lambda s: s not in (".", "..")),
)
docname = st.lists(segment, min_size=1, max_size=5).map("/".join)
anchor = st.one_of(st.just(""), st.text(_CHARS, max_size=8))
shape = st.one_of(
    st.tuples(st.just(True), st.sampled_from([".html", ".htm"]), st.just(None)),
    st.tuples(
        st.just(False),
        st.sampled_from([".html", ".htm", ".xhtml"]),
        st.sampled_from([None, "", ".html", "/"]),
    ),
)
BASE = "http://host/prefix/"


def urljoin(base: str, reference: str) -> str:
    """Resolve a relative-path ``reference`` as browsers do (RFC 3986, section 5.2).

    ``urllib.parse.urljoin`` splits ``;params`` off the last segment, so it resolves
    ``;`` to the base itself where a browser goes to ``…/;``.
    """
    origin = base[: base.index("/", len("http://"))]
    rest, hash_mark, fragment = reference.partition("#")
    path, question_mark, query = rest.partition("?")
    base_path = urlsplit(base).path
    merged = base_path[: base_path.rfind("/") + 1] + path if path else base_path
    segments = merged.split("/")[1:]
    kept: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment in (".", ".."):
            if segment == ".." and kept:
                kept.pop()
            if last:
                kept.append("")
        else:
            kept.append(segment)
    return origin + "/" + "/".join(kept) + question_mark + query + hash_mark + fragment


@given(docname, docname, anchor, shape)
def test_href_resolves_to_the_target_page(old, new, fragment, form) -> None:
    dirhtml, file_suffix, link_suffix = form
    stub = html_page_path(old, dirhtml=dirhtml, file_suffix=file_suffix)
    href = page_href(
        stub, new, fragment, dirhtml=dirhtml, file_suffix=file_suffix, link_suffix=link_suffix
    )
    # relative: no scheme, no host, no leading '/'; only printable ASCII
    parts = urlsplit(href)
    assert not parts.scheme and not parts.netloc and not href.startswith("/")
    assert href.isascii() and href.isprintable() and not set(href) & set(' "<>\\`')
    # from the stub's own URL, under any prefix, it lands on the target page
    stub_url = BASE + quote_path(stub)
    root = page_root_url(new, dirhtml=dirhtml, file_suffix=file_suffix, link_suffix=link_suffix)
    resolved = urljoin(stub_url, href)
    assert resolved == BASE + root + ("#" + quote_fragment(fragment) if fragment else "")
    assert unquote(urlsplit(href).fragment) == fragment
    # and the decoded path is the file Sphinx writes (html) or its folder (dirhtml)
    path = unquote(urlsplit(resolved).path)[len("/prefix/") :]
    target = html_page_path(new, dirhtml=dirhtml, file_suffix=file_suffix)
    if dirhtml:
        assert posixpath.join(path, "index" + file_suffix).lstrip("/") == target
    elif link_suffix is None or link_suffix == file_suffix:
        assert path == target


@given(docname, docname, anchor, st.sampled_from([".html", ".htm"]))
def test_index_file_href_names_the_file_the_builder_writes(old, new, fragment, suffix) -> None:
    """Under dirhtml, ``index_file`` URLs end at the page's own file, so a site opened
    from disk lands on the page and not on a folder listing."""
    stub = html_page_path(old, dirhtml=True, file_suffix=suffix)
    href = page_href(stub, new, fragment, dirhtml=True, file_suffix=suffix, index_file=True)
    resolved = urljoin(BASE + quote_path(stub), href)
    path = unquote(urlsplit(resolved).path)[len("/prefix/") :]
    assert path == html_page_path(new, dirhtml=True, file_suffix=suffix)
    assert path.endswith("index" + suffix)
    assert unquote(urlsplit(href).fragment) == fragment


def test_site_path_is_below_the_base_url_only() -> None:
    for base in ("https://e.org/docs/", "https://e.org/docs"):  # with or without the "/"
        assert site_path("https://e.org/docs/a/b.html#x", base) == "a/b.html#x"
        assert site_path("https://e.org/docs", base) == ""
        assert site_path("https://e.org/docs?q=1", base) == "?q=1"
        # a sibling that shares the text of the base is another site
        assert site_path("https://e.org/docs-old/a.html", base) is None
    assert site_path("https://e.org.example/x", "https://e.org") is None
    assert site_path("https://e.org/x", "https://e.org") == "x"
    assert site_path("https://e.org/x", "") is None  # no html_baseurl: no site


@given(st.text(max_size=20), st.text(max_size=20))
def test_site_path_rebuilds_the_url(base: str, rest: str) -> None:
    below = site_path(base.rstrip("/") + "/" + rest, base)
    if base.rstrip("/"):
        assert below == rest


@given(st.text(max_size=30))
def test_safe_output_path_never_leaves_the_folder(path) -> None:
    safe = safe_output_path(path)
    if safe is None:
        return
    assert safe == posixpath.normpath(safe)
    assert not safe.startswith("/") and ".." not in safe.split("/")
    assert "\\" not in safe and "\0" not in safe
    assert posixpath.join("/out", safe).startswith("/out/")


@given(st.text(alphabet="a./\\:\0", max_size=12))
def test_safe_output_path_is_normpath_when_it_stays_inside(path) -> None:
    """The shortcut for paths with no ``.`` or empty part gives what normpath gives."""
    safe = safe_output_path(path)
    if safe is not None:
        assert safe == posixpath.normpath(path)


def test_safe_output_path_examples() -> None:
    assert safe_output_path("a/./b/../c.html") == "a/c.html"
    assert safe_output_path(".:.html") == ".:.html"  # no drive: the table accepts ".:"
    for bad in ("../x.html", "a/../../x", "/etc/passwd", "C:/x", "a\\b", "", ".", "a/.."):
        assert safe_output_path(bad) is None, bad


@given(st.text(max_size=30))
def test_quote_url_is_idempotent_and_keeps_valid_urls(text) -> None:
    once = quote_url("https://example.org/" + text)
    assert quote_url(once) == once
    assert once.isascii() and not set(once) & set(' "<>\\`')
    valid = "https://example.org/a/b.html?x=1&y=%20#frag"
    assert quote_url(valid) == valid


@given(
    st.recursive(
        st.one_of(st.text(_CHARS), st.integers()),
        lambda inner: st.dictionaries(st.text(_CHARS), inner, max_size=3),
        max_leaves=6,
    )
)
def test_js_string_cannot_leave_the_script_element(value) -> None:
    import json

    text = js_string(value)
    assert not set(text) & set("<>&\u2028\u2029") and text.isascii()
    assert json.loads(text) == value


@given(docname, st.one_of(st.just(""), docname))
def test_relative_path_is_relpath(to_path, from_folder) -> None:
    found = relative_path(from_folder, to_path)
    assert posixpath.normpath(posixpath.join(from_folder, found)) == to_path
    if from_folder == to_path or from_folder.startswith(to_path + "/"):
        # from inside a folder named as the page is, the page's own name: ``.`` or
        # ``..`` would name the folder, where ``guide.md`` is ``../guide``
        assert found.endswith("../" + to_path.rpartition("/")[2])
    else:
        assert found == posixpath.relpath(to_path, from_folder or ".")


@given(docname, docname, anchor, shape)
def test_pretty_is_the_canonical_href(
    old: str, new: str, anchor: str, shape: tuple[bool, str, str | None]
) -> None:
    """``HtmlOutput.pretty`` of a stub's link is the link without anchor and ``index.html``."""
    dirhtml, suffix, link_suffix = shape
    site = HtmlOutput(dirhtml=dirhtml, file_suffix=suffix, link_suffix=link_suffix)
    stub = site.file(old)
    assert site.pretty(site.href(stub, Target(path=new, anchor=anchor))) == site.href(
        stub, Target(path=new), index_file=False
    )


@given(docname, docname, anchor, shape, st.booleans())
def test_a_stubs_href_is_page_href(
    old: str, new: str, anchor: str, shape: tuple[bool, str, str | None], index_file: bool
) -> None:
    """``HtmlOutput.href`` (with its own path for the html builder) is ``page_href``."""
    dirhtml, suffix, link_suffix = shape
    site = HtmlOutput(dirhtml=dirhtml, file_suffix=suffix, link_suffix=link_suffix)
    stub = site.file(old)
    assert site.href(stub, Target(path=new, anchor=anchor), index_file=index_file) == page_href(
        stub, new, anchor, dirhtml=dirhtml, file_suffix=suffix, link_suffix=link_suffix,
        index_file=index_file,
    )


_NAME = st.sampled_from(["a", "b", "c", "d/a", "d/b", "e/f/a", "index"])


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(_NAME, st.one_of(_NAME, _NAME.map(lambda n: n + "#top"),
                                     st.just("https://example.org/x")), max_size=6),
    st.dictionaries(st.sampled_from(["d", "e/f", "g"]), st.sampled_from(["d", "g", "h"]),
                    max_size=2),
    st.sets(_NAME, max_size=4),
)
def test_where_old_pages_land_is_where_locate_reference_leads(pages, prefixes, documents) -> None:
    """The stubs' short way for a ``[pages]`` entry whose target is a page (or a URL)
    lands where ``locate_reference`` does, chains and folder moves included."""
    lines = ["[pages]", *(f'"{k}" = "{v}"' for k, v in pages.items()), "[prefixes]"]
    lines += [f'"{k}/" = "{v}/"' for k, v in prefixes.items()]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "t.toml")
        path.write_text("\n".join(lines) + "\n", "utf-8")
        table, problems = load_table(path)
    if any(p.fatal for p in problems):
        return
    expected = {}
    for old in old_pages(table, documents):
        target = table.locate_reference(old, "", exists=documents.__contains__)
        if target is not None and (target.url or target.path in documents):
            expected[old] = target
    assert old_page_landings(table, set(documents)) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b/c", "b/d", "e/f/g"]), docname), max_size=8),
       st.booleans(), st.sampled_from(["", "https://docs.example.org/en/"]))
def test_stubs_that_share_a_folder_and_target_say_what_each_would_alone(
    moves, dirhtml, baseurl
) -> None:
    """``plan`` works out a stub's URLs once per folder and target: every stub still
    gets what planning it on its own gives."""
    pages = {f"{folder}/old{i}": new for i, (folder, new) in enumerate(moves)}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "t.toml")
        path.write_text("[pages]\n" + "".join(
            f"{json.dumps(k, ensure_ascii=False)} = {json.dumps(v, ensure_ascii=False)}\n"
            for k, v in pages.items()), "utf-8")
        table, problems = load_table(path)
    if any(p.fatal for p in problems):
        return
    documents = {new for _, new in moves}
    site = HtmlOutput(dirhtml=dirhtml, baseurl=baseurl)
    together, _ = plan(table, documents, site, landings=old_page_landings(table, documents))
    for redirect in together:
        alone = RelocationTable.of_entries(e for e in table.entries if e.old == redirect.old)
        landings = old_page_landings(alone, documents)
        assert plan(alone, documents, site, landings=landings)[0] == [redirect]


_HOSTILE = st.text(st.sampled_from(["a", "/", "<", ">", "&", '"', "'", "#", "\u2028", "é"]),
                   max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_HOSTILE, _HOSTILE, _HOSTILE,
                          st.dictionaries(_HOSTILE, _HOSTILE, max_size=2)), max_size=6),
       st.sampled_from([ENGLISH, StubText("de", ("Verschoben: ", ""), ("Nach ", " <&>"))]))
def test_stubs_rendered_once_per_shape_are_what_each_renders_alone(stubs, text) -> None:
    """``rendered_default`` hands a stub the bytes of the one before when its URLs, title
    and anchors are the same: hostile values are escaped exactly as rendering it alone."""
    redirects = [
        Redirect(f"old{i}", f"old{i}.html", url, canonical, title, Target("new"), anchors)
        for i, (url, canonical, title, anchors) in enumerate(
            [shape for shape in stubs for _ in range(2)]  # neighbours with one shape
        )
    ]
    assert list(rendered_default(redirects, text)) == [
        (redirect.path, render_default(redirect, text).encode("utf-8")) for redirect in redirects
    ]
