"""Unit and property tests of the source rewriter (no git, no Sphinx)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sphinx_relocate.cli.docutils_parser import DocutilsParser
from sphinx_relocate.core.ids import Headings
from sphinx_relocate.core.landing import repo_base
from sphinx_relocate.core.rewrite import (
    Rewriter,
    SourceFile,
    find_targets,
    read_source,
    walk_repository,
    write_source,
)
from sphinx_relocate.core.spans import anchors_in_source
from sphinx_relocate.core.table import load_table

SUFFIXES = (".md", ".rst")


def make_rewriter(
    toml: str, files: set[str], tmp_path: Path, prefix: str = "docs/", **kwargs: object
) -> Rewriter:
    table_file = tmp_path / "relocations.toml"
    table_file.write_text(toml, encoding="utf-8")
    table, problems = load_table(table_file, source_suffixes=SUFFIXES)
    assert not problems
    return Rewriter(
        table,
        parser=DocutilsParser(),
        docs_prefix=prefix,
        source_suffixes=SUFFIXES,
        files=files,
        **kwargs,  # type: ignore[arg-type]
    )


FILES = {
    "README.md",
    "docs/index.md",
    "docs/guides/install.md",
    "docs/guides/deep/page.md",
    "docs/features/parallel/fsdp2.md",
    "docs/features/overview.md",
    "docs/images/new.png",
    "docs/api.rst",
    "assets/logo.png",
}
TABLE = """\
[pages]
"pytorch/install" = "guides/install"
"features/fsdp2" = "features/parallel/fsdp2"
"guides/page" = "guides/deep/page"
"old" = "https://example.org/old"

[files]
"images/old.png" = "images/new.png"

[anchors]
"pytorch/install#source" = "guides/install#from-source"
"""


@pytest.fixture
def rewriter(tmp_path: Path) -> Rewriter:
    return make_rewriter(TABLE, FILES, tmp_path, repo_url="https://github.com/o/r/blob/main/")


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        # Markdown links and images, keeping the author's style
        ("docs/index.md", "[i](pytorch/install.md)", "[i](guides/install.md)"),
        ("docs/index.md", "[i](./pytorch/install.md)", "[i](./guides/install.md)"),
        ("docs/index.md", "[i](pytorch/install)", "[i](guides/install)"),
        ("docs/index.md", "[i](pytorch/install.html#x)", "[i](guides/install.html#x)"),
        ("docs/index.md", "[i](<pytorch/install.md> 'T')", "[i](<guides/install.md> 'T')"),
        ("docs/index.md", '[i](pytorch/install.md "T")', '[i](guides/install.md "T")'),
        ("docs/index.md", "[i](/pytorch/install.md)", "[i](/guides/install.md)"),
        ("docs/index.md", "[i](pytorch/install.md#source)", "[i](guides/install.md#from-source)"),
        ("docs/index.md", "[i](pytorch/install.md?x=1#k)", "[i](guides/install.md?x=1#k)"),
        ("docs/index.md", "[o](old.md)", "[o](https://example.org/old)"),
        ("docs/index.md", "![p](images/old.png)", "![p](images/new.png)"),
        ("docs/index.md", "[r]: pytorch/install.md", "[r]: guides/install.md"),
        ("docs/index.md", "[r]: <pytorch/install.md>", "[r]: <guides/install.md>"),
        # MyST
        ("docs/index.md", "{doc}`pytorch/install`", "{doc}`guides/install`"),
        ("docs/index.md", "{doc}`T <pytorch/install>`", "{doc}`T <guides/install>`"),
        ("docs/index.md", "```{toctree}\n:maxdepth: 1\n\npytorch/install\nT <features/fsdp2>\n```",
         "```{toctree}\n:maxdepth: 1\n\nguides/install\nT <features/parallel/fsdp2>\n```"),
        ("docs/index.md", "```{image} images/old.png\n```", "```{image} images/new.png\n```"),
        # sphinx-design's links to pages
        ("docs/index.md", "```{button-ref} pytorch/install\n:ref-type: doc\n```",
         "```{button-ref} guides/install\n:ref-type: doc\n```"),
        ("docs/index.md", ":::{grid-item-card} T\n:link: pytorch/install\n:link-type: doc\n:::",
         ":::{grid-item-card} T\n:link: guides/install\n:link-type: doc\n:::"),
        ("docs/index.md", "```{card} T\n---\nlink: pytorch/install\nlink-type: doc\n---\n```",
         "```{card} T\n---\nlink: guides/install\nlink-type: doc\n---\n```"),
        ("docs/api.rst", ".. grid-item-card:: T\n   :link: pytorch/install\n   :link-type: doc\n",
         ".. grid-item-card:: T\n   :link: guides/install\n   :link-type: doc\n"),
        # ... and to URLs (a card's default link type), which the build reads as `T <url>`_
        ("docs/index.md", "```{button-link} pytorch/install.html#source\n```",
         "```{button-link} guides/install.html#from-source\n```"),
        ("docs/index.md", ":::{grid-item-card} T\n:link: pytorch/install.html\n:::",
         ":::{grid-item-card} T\n:link: guides/install.html\n:::"),
        ("docs/api.rst", ".. card:: T\n   :link: pytorch/install.html\n   :link-type: url\n",
         ".. card:: T\n   :link: guides/install.html\n   :link-type: url\n"),
        ("docs/api.rst", ".. button-link:: https://example.org/pytorch/install.html\n",
         ".. button-link:: https://example.org/pytorch/install.html\n"),
        # MyST autolinks
        ("docs/index.md", "<project:pytorch/install.md#source>",
         "<project:guides/install.md#from-source>"),
        ("docs/index.md", "<path:images/old.png>", "<path:images/new.png>"),
        ("docs/index.md", "<project:old.md>", "<https://example.org/old>"),
        # raw HTML
        ("docs/index.md", '<a href="pytorch/install.md">', '<a href="guides/install.md">'),
        ("docs/index.md", "<img src='images/old.png' alt=x>", "<img src='images/new.png' alt=x>"),
        # reST
        ("docs/api.rst", ":doc:`pytorch/install`", ":doc:`guides/install`"),
        ("docs/api.rst", ":doc:`T <pytorch/install>`", ":doc:`T <guides/install>`"),
        ("docs/api.rst", ":download:`f <images/old.png>`", ":download:`f <images/new.png>`"),
        ("docs/api.rst", "`T <pytorch/install.html>`_", "`T <guides/install.html>`_"),
        ("docs/api.rst", ".. image:: images/old.png\n", ".. image:: images/new.png\n"),
        ("docs/api.rst", ".. figure:: /images/old.png\n", ".. figure:: /images/new.png\n"),
        # an image's :target: is a link from the page, as the build reads it; a
        # reference name (name_) and a caption are not
        ("docs/api.rst", ".. image:: x.png\n   :target: images/old.png\n",
         ".. image:: x.png\n   :target: images/new.png\n"),
        ("docs/api.rst",
         ".. figure:: x.png\n   :target: pytorch/install.html\n\n   :target: images/old.png\n",
         ".. figure:: x.png\n   :target: guides/install.html\n\n   :target: images/old.png\n"),
        ("docs/api.rst", ".. image:: x.png\n   :target: images/old.png_\n",
         ".. image:: x.png\n   :target: images/old.png_\n"),
        ("docs/index.md", "```{figure} x.png\n:target: images/old.png\n\nCaption\n```",
         "```{figure} x.png\n:target: images/new.png\n\nCaption\n```"),
        ("docs/api.rst", ".. toctree::\n   :hidden:\n\n   pytorch/install\n\nText\n",
         ".. toctree::\n   :hidden:\n\n   guides/install\n\nText\n"),
        # outside the docs, and own-repository URLs
        ("README.md", "[i](docs/pytorch/install.md)", "[i](docs/guides/install.md)"),
        ("README.md", "https://github.com/o/r/blob/HEAD/docs/features/fsdp2.md.",
         "https://github.com/o/r/blob/HEAD/docs/features/parallel/fsdp2.md."),
        ("README.md", "<https://github.com/o/r/tree/main/docs/images/old.png>",
         "<https://github.com/o/r/tree/main/docs/images/new.png>"),
        # link targets with balanced parentheses and escapes; roles and directives
        # anywhere on a line or indented
        ("docs/index.md", "[i](images/old.png?(a)b)", "[i](images/new.png?(a)b)"),
        ("docs/index.md", "[i](images/old.png?a\\)b)", "[i](images/new.png?a\\)b)"),
        ("docs/index.md", "x{doc}`pytorch/install` {download}`images/old.png`",
         # a download without a title shows its path: the written one stays, as a title
         "x{doc}`guides/install` {download}`images/old.png <images/new.png>`"),
        ("docs/api.rst", "- .. not a directive\n\n  .. image:: images/old.png\n",
         "- .. not a directive\n\n  .. image:: images/new.png\n"),
        ("docs/api.rst", ".. _t: pytorch/install.html\n", ".. _t: guides/install.html\n"),
        # anonymous targets, both forms, the short one also after another target
        ("docs/api.rst", "`I`__\n\n.. __: pytorch/install.html\n",
         "`I`__\n\n.. __: guides/install.html\n"),
        ("docs/api.rst", "`I`__ `J`__\n\n__ pytorch/install.html\n__ images/old.png\n",
         "`I`__ `J`__\n\n__ guides/install.html\n__ images/new.png\n"),
        # a role cannot name a URL: a page that became a URL is written as a link
        ("docs/index.md", "See {doc}`old`.", "See [old](https://example.org/old)."),
        ("docs/index.md", "See {doc}`T <old>`.", "See [T](https://example.org/old)."),
        ("docs/api.rst", "See :doc:`old`.", "See `old <https://example.org/old>`__."),
        ("docs/api.rst", "See :doc:`T <old>`.", "See `T <https://example.org/old>`__."),
        ("docs/index.md", "```{eval-rst}\n:doc:`old`\n```",
         "```{eval-rst}\n`old <https://example.org/old>`__\n```"),
        # reST inside Markdown is read as reST
        ("docs/index.md", "```{eval-rst}\n:doc:`T <pytorch/install>` [x](old.md)\n```",
         "```{eval-rst}\n:doc:`T <guides/install>` [x](old.md)\n```"),
        # a page named by a source file it no longer has: the file's name now
        ("docs/index.md", "[a](api.md#usage) [b](api.html) {doc}`api`",
         "[a](api.rst#usage) [b](api.html) {doc}`api`"),
        ("docs/api.rst", "`I <guides/install.rst>`_", "`I <guides/install.md>`_"),
        # CRLF files keep their line ends
        ("docs/index.md", "[i](pytorch/install.md)\r\n[r]: old.md\r\n",
         "[i](guides/install.md)\r\n[r]: https://example.org/old\r\n"),
    ],
)
def test_rewrite_kinds(rewriter: Rewriter, path: str, before: str, after: str) -> None:
    assert rewriter.rewrite_text(path, before)[0] == after


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("docs/index.md", "[ok](guides/install.md) [web](https://example.org/x.md) [a](#x)"),
        ("docs/index.md", "[missing](nowhere.md) [mail](mailto:a@b.c)"),
        ("docs/index.md", "```text\n[code](pytorch/install.md)\n```\n"),
        ("docs/index.md", "Mentions docs/pytorch/install.md in text."),
        ("docs/api.rst", "`name <target_>`_ and `T <guides/install.html>`_"),
        # mismatched role marks, an empty target, directives and targets not at a
        # line start
        ("docs/index.md", "{doc:`pytorch/install` :doc}`pytorch/install` [e]() x"),
        ("docs/api.rst", "{doc:`pytorch/install` :doc}`pytorch/install`"),
        ("docs/api.rst", "Text .. image:: images/old.png\nText .. _t: pytorch/install.html\n"),
        ("docs/api.rst", ":ref:`T <pytorch/install>`"),
        # two underscores that start a paragraph's line, or in a literal block
        ("docs/api.rst", "Text\n__ pytorch/install.html\n"),
        ("docs/api.rst", "Code::\n\n  __ pytorch/install.html\n"),
        ("README.md", "[x](../outside/pytorch/install.md)"),
        ("README.md", "https://github.com/other/r/blob/main/docs/pytorch/install.md"),
        # another ref than relocate_repo_url's branch is history
        ("README.md", "https://github.com/o/r/blob/dev/docs/features/fsdp2.md"),
    ],
)
def test_left_alone(rewriter: Rewriter, path: str, text: str) -> None:
    assert rewriter.rewrite_text(path, text)[0] == text


def test_moved_page_links_are_rerelativized(tmp_path: Path) -> None:
    """A moved page's links resolve from its new folder first, then its old one."""
    rewriter = make_rewriter(TABLE, FILES, tmp_path)
    text = (
        "[stays](install.md) [sibling](../features/overview.md) "
        "![logo](../../assets/logo.png) [moved](../features/fsdp2.md)"
    )
    new, kinds = rewriter.rewrite_text("docs/guides/deep/page.md", text)[:2]
    assert new == (
        "[stays](../install.md) [sibling](../../features/overview.md) "
        "![logo](../../../assets/logo.png) [moved](../../features/parallel/fsdp2.md)"
    )
    assert kinds == {"link": 3, "image": 1}
    # a target that exists from the new folder stays as it is
    assert rewriter.rewrite_text("docs/guides/deep/page.md", "[x](page.md)")[0] == "[x](page.md)"


def test_percent_encoding_and_cjk(tmp_path: Path) -> None:
    rewriter = make_rewriter(
        '[pages]\n"features/特性总览" = "introduction/特性"\n',
        {"docs/introduction/特性.md", "docs/index.md"},
        tmp_path,
    )
    encoded = "[t](features/%E7%89%B9%E6%80%A7%E6%80%BB%E8%A7%88.md#%E5%AE%89)"
    assert rewriter.rewrite_text("docs/index.md", encoded)[0] == (
        "[t](introduction/%E7%89%B9%E6%80%A7.md#%E5%AE%89)"
    )
    assert rewriter.rewrite_text("docs/index.md", "[t](features/特性总览.md#安)")[0] == (
        "[t](introduction/特性.md#安)"
    )


def test_mentions_only_with_the_flag(tmp_path: Path) -> None:
    rewriter = make_rewriter(TABLE, FILES, tmp_path, mentions=True)
    text = 'See `docs/pytorch/install.md` and docs/features/fsdp2.md.\n"""docs/old.md"""'
    assert rewriter.rewrite_text("docs/index.md", text)[0] == (
        'See `docs/guides/install.md` and docs/features/parallel/fsdp2.md.\n'
        '"""https://example.org/old"""'
    )
    assert rewriter.rewrite_text("tools/x.py", '"""Read docs/pytorch/install.md."""')[0] == (
        '"""Read docs/guides/install.md."""'
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("参考docs/features/fsdp2.md中的说明", "参考docs/features/parallel/fsdp2.md中的说明"),
        ("详见：docs/features/fsdp2.md。", "详见：docs/features/parallel/fsdp2.md。"),
        ('"""配置docs/pytorch/install.md（安装）"""', '"""配置docs/guides/install.md（安装）"""'),
        ("见docs/pytorch/install.md，然后", "见docs/guides/install.md，然后"),
    ],
)
def test_mentions_glued_to_cjk_text(tmp_path: Path, before: str, after: str) -> None:
    rewriter = make_rewriter(TABLE, FILES, tmp_path, mentions=True)
    assert rewriter.rewrite_text("tools/x.py", before).text == after


def test_repo_base() -> None:
    assert repo_base("https://github.com/o/r/blob/main/") == "https://github.com/o/r"
    assert repo_base("https://gitlab.com/o/r/-/tree/main/docs") == "https://gitlab.com/o/r"
    assert repo_base("https://gitee.com/o/r.git") == "https://gitee.com/o/r"


# -- properties --------------------------------------------------------------------

_segment = st.text(
    alphabet=st.sampled_from("abcXYZ_-特性"), min_size=1, max_size=6
)
_surrounding = st.text(
    alphabet=st.sampled_from("ab ()[]<>#`\n\r\t!.:*-特"), max_size=30
)


@settings(max_examples=100, deadline=None)
@given(
    before=_surrounding,
    after=_surrounding,
    old=st.lists(_segment, min_size=1, max_size=3),
    new=st.lists(_segment, min_size=1, max_size=3),
    dot=st.booleans(),
    suffix=st.sampled_from([".md", "", ".html"]),
    fragment=st.sampled_from(["", "#x", "#相关"]),
)
def test_only_the_target_changes_and_twice_is_once(
    before: str, after: str, old: list[str], new: list[str], dot: bool, suffix: str,
    fragment: str,
) -> None:
    assume("```" not in before)  # an open code fence: nothing after it is a link
    old_doc, new_doc = "/".join(old), "/".join(["n", *new])
    table, _ = load_table(None, {old_doc: new_doc}, source_suffixes=SUFFIXES)
    files = {f"docs/{new_doc}.md", "docs/index.md"}
    rewriter = Rewriter(
        table, parser=DocutilsParser(), docs_prefix="docs/", source_suffixes=SUFFIXES, files=files
    )
    target = ("./" if dot else "") + old_doc + suffix + fragment
    link = f"[t]({target})"
    text = f"{before}\n{link}\n{after}"
    result = rewriter.rewrite_text("docs/index.md", text).text
    if not any(s.start == len(before) + 5 for s in find_targets(text, "docs/index.md")):
        assert result == text  # code or a comment around it: no link, left alone
        return
    expected_target = ("./" if dot else "") + new_doc + suffix + fragment
    head = f"{before}\n[t]("
    assert result.startswith(head)
    assert result.endswith(f")\n{after}")
    # the spans found in the original are the only places that changed
    spans = find_targets(text, "docs/index.md")
    masked_old = "".join(
        c for i, c in enumerate(text) if not any(s.start <= i < s.end for s in spans)
    )
    new_spans = find_targets(result, "docs/index.md")
    masked_new = "".join(
        c for i, c in enumerate(result) if not any(s.start <= i < s.end for s in new_spans)
    )
    assert masked_old == masked_new
    assert result[len(head) :].startswith(expected_target + ")")
    assert rewriter.rewrite_text("docs/index.md", result)[0] == result


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_no_table_changes_nothing(text: str) -> None:
    table, _ = load_table(None, {}, source_suffixes=SUFFIXES)
    rewriter = Rewriter(
        table, parser=DocutilsParser(), docs_prefix="", source_suffixes=SUFFIXES, files=set(FILES)
    )
    for path in ("index.md", "api.rst"):
        assert rewriter.rewrite_text(path, text)[0] == text


# -- files on disk -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"\xef\xbb\xbf[a](old.md)\r\n", "utf-8"),
        (b"[a](old.md)\n", "utf-8"),
        ("\ufeff[a](old.md)\r\n".encode("utf-16-le"), "utf-16-le"),
    ],
)
def test_write_keeps_bom_encoding_newlines_and_mode(
    tmp_path: Path, data: bytes, encoding: str
) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(data)
    path.chmod(0o640)
    source = read_source(path)
    assert source is not None and source.encoding == encoding
    write_source(path, source, source.text.replace("old", "new"))
    assert path.read_bytes() == data.replace(
        "old".encode(encoding), "new".encode(encoding)
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["page.md"]  # no temp file left


def test_binary_files_are_not_read(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_bytes(b"[a](b.md)\0\x01")
    assert read_source(path) is None
    path.write_bytes(b"\xff\xfe\xfa invalid")
    assert read_source(path) is None
    assert SourceFile("", "utf-8", b"").text == ""


def test_walk_skips_vcs_build_venv_and_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    for rel in ("a.md", "docs/b.md", ".git/c.md", "docs/_build/d.md", "node_modules/e.md",
                "env/pyvenv.cfg", "env/f.md", ".github/g.md", ".tox/h.md", "build/i.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x", encoding="utf-8")
    outside.mkdir()
    (outside / "secret.md").write_text("x", encoding="utf-8")
    (root / "link").symlink_to(outside)
    (root / "file_link.md").symlink_to(outside / "secret.md")
    files, folders = walk_repository(root)
    assert files == [".github/g.md", "a.md", "docs/b.md"]
    assert "docs" in folders and "link" not in folders


def test_existing_targets_keep_their_spelling(rewriter: Rewriter) -> None:
    text = "[a](../guides/install.md) [b](./install.md) [c](install)"
    assert rewriter.rewrite_text("docs/guides/x.md", text)[0] == text


# -- code and comments hold no link (D7) -------------------------------------------


@pytest.mark.parametrize(
    ("path", "text", "targets"),
    [
        # MyST: code spans, indented code, fences, HTML and % comments
        ("a.md", "[a](a.md) `[b](b.md)` ``x `[c](c.md)` y``", ["a.md"]),
        ("a.md", "`unclosed [a](a.md)\n\n`[b](b.md)`", ["a.md"]),
        ("a.md", "\\`[a](a.md)` x", ["a.md"]),
        ("a.md", "{doc}`a` and {download}`b.png`", ["a", "b.png"]),
        ("a.md", "Text\n\n    [a](a.md)\n    <img src='b.png'>\n\n[c](c.md)\n", ["c.md"]),
        ("a.md", "Text\n    [a](a.md)\n", ["a.md"]),  # continues the paragraph
        ("a.md", "# Title\n    [a](a.md)\n", []),
        ("a.md", "- item\n\n    [a](a.md)\n\n  - sub\n\n      [b](b.md)\n", ["a.md", "b.md"]),
        ("a.md", "- item\n\nText\n\n    [a](a.md)\n", []),
        ("a.md", "```\n[a](a.md)\n```\n~~~python\n[b](b.md)\n~~~\n[c](c.md)", ["c.md"]),
        ("a.md", "```{code-block} md\n[a](a.md)\n```\n", []),
        ("a.md", "<!-- [a](a.md) <a href='b.md'> -->\n[c](c.md)", ["c.md"]),
        ("a.md", "x <!-- [a](a.md)\n-->\n<!--\n[b](b.md)", []),
        ("a.md", "x <!-- no end [a](a.md)", ["a.md"]),
        # a fence line inside a comment opens no fence (pyOpenSci's commented toctree)
        ("a.md", "<!-- ```{toctree}\nold\n``` -->\n\n```{note}\nN.\n```\n\n[a](a.md) "
                 "<!-- x -->\n\n[b](b.md)\n", ["a.md", "b.md"]),
        ("a.md", "<!--\n```\n-->\n[a](a.md)\n", ["a.md"]),
        ("a.md", "% [a](a.md)\n%[b](b.md)\n[c](c.md) % [d](d.md)", ["c.md", "d.md"]),
        ("a.md", "```{toctree}\na\n```\n`x` {doc}`b`\n", ["a", "b"]),
        ("a.md", "```{eval-rst}\n``:doc:`a``` :doc:`b`\n\n::\n\n   :doc:`c`\n```\n", ["b"]),
        # a card's :link: is a URL unless its :link-type: says otherwise (read as a URL
        # is, as `T <a.md>`_); a button-ref's target is :any: unless its :ref-type: says
        ("a.md", "```{card} T\n:link: a.md\n```\n```{button-ref} b\n```\n", ["a.md"]),
        ("a.rst", ".. card:: T\n   :link: a\n   :link-type: doc\n\n   body\n", ["a"]),
        # directives inside a directive whose body is Markdown, not inside code
        ("a.md", ":::{note}\n```{image} a.png\n```\n\n```{code-block}\n![x](b.png)\n```\n"
                 ":::\n![y](c.png)\n", ["a.png", "c.png"]),
        ("a.md", "````{div}\n```{include} a.md\n```\n````\n```\n![x](b.png)\n```\n", ["a.md"]),
        ("a.md", "::::{note}\n:::{tip}\n```{toctree}\nchild\n```\n:::\n::::\n", ["child"]),
        # reST: inline literals, literal blocks, code directives, comments
        ("a.rst", ":doc:`a` ``:doc:`b``` ``x <c.html>`_``", ["a"]),
        ("a.rst", "Example::\n\n   :doc:`a`\n\n     `b <b.html>`_\n\n:doc:`c`\n", ["c"]),
        ("a.rst", "Example:\n\n::\n\n   .. image:: a.png\n\n.. image:: b.png\n", ["b.png"]),
        ("a.rst", "- item::\n\n      :doc:`a`\n\n  :doc:`b`\n", ["b"]),
        ("a.rst", "Term::\n   :doc:`a`, a definition\n", ["a"]),
        ("a.rst", ".. code-block:: rst\n   :caption: x\n\n   :doc:`a`\n\n:doc:`b`\n", ["b"]),
        ("a.rst", ".. note::\n\n   .. code:: rst\n\n      :doc:`a`\n\n   :doc:`b`\n", ["b"]),
        ("a.rst", ".. literalinclude:: a.py\n   :lines: 1\n", ["a.py"]),
        ("a.rst", ".. parsed-literal::\n\n   :doc:`a`\n", ["a"]),
        ("a.rst", ".. a comment :doc:`a`\n   .. image:: b.png\n\n.. image:: c.png\n", ["c.png"]),
        ("a.rst", "..\n   .. image:: a.png\n\n..\n\n   .. image:: b.png\n", ["b.png"]),
        ("a.rst", ".. _t: a.html\n.. |s| replace:: :doc:`b`\n.. [1] :doc:`c`\n",
         ["a.html", "b", "c"]),
        ("a.rst", ".. raw:: html\n\n   <!-- <a href='a.html'>\n   --> <a href='b.html'>\n",
         ["b.html"]),
    ],
)
def test_no_link_in_code_or_comments(path: str, text: str, targets: list[str]) -> None:
    assert [text[s.start : s.end] for s in find_targets(text, path)] == targets


def test_repo_urls_in_code_are_left_alone_mentions_are_not(tmp_path: Path) -> None:
    rewriter = make_rewriter(
        TABLE, FILES, tmp_path, repo_url="https://github.com/o/r/blob/main/", mentions=True
    )
    url = "https://github.com/o/r/blob/main/docs/features/fsdp2.md"
    text = f"`{url}`\n\n    {url}\n\n`docs/features/fsdp2.md`\n"
    assert rewriter.rewrite_text("README.md", text)[0] == (
        f"`{url}`\n\n    {url}\n\n`docs/features/parallel/fsdp2.md`\n"
    )


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="`<!->%:. \n\t[]()ab{}_", max_size=300))
def test_finding_targets_never_fails(text: str) -> None:
    for path in ("a.md", "a.rst"):
        spans = find_targets(text, path)
        assert all(0 <= s.start < s.end <= len(text) for s in spans)


def test_write_keeps_hard_links_and_owner(tmp_path: Path) -> None:
    linked = tmp_path / "linked.md"
    linked.write_text("old\n", "utf-8")
    (tmp_path / "other-name.md").hardlink_to(linked)
    source = read_source(linked)
    assert source is not None
    write_source(linked, source, "new\n")
    assert (tmp_path / "other-name.md").read_text("utf-8") == "new\n"
    if os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root")
    owned = tmp_path / "owned.md"
    owned.write_text("old\n", "utf-8")
    os.chown(owned, 4321, 8765)
    owned.chmod(0o2640)
    write_source(owned, SourceFile("old\n", "utf-8", b""), "new\n")
    result = owned.stat()
    assert (result.st_uid, result.st_gid, stat.S_IMODE(result.st_mode)) == (4321, 8765, 0o2640)
    assert owned.read_text("utf-8") == "new\n"


@pytest.mark.parametrize(
    ("path", "text", "title"),
    [
        ("a.md", "```python\n# not a title\n```\n\n# The Title\n\n## Next\n", "The Title"),
        ("a.md", "(label)=\n## Second level first ##\n", "Second level first"),
        ("a.md", "No heading at all.\n", None),
        ("a.rst", ".. _x:\n\n=======\n Title\n=======\n\nSub\n---\n", "Title"),
        ("a.rst", "Plain text\n\n:doc:`x`\n", None),
        ("a.txt", "Text title\n~~~~~~~~~~\n", "Text title"),
        ("a.py", "# Title\n", None),
    ],
)
def test_title_in(path: str, text: str, title: str | None) -> None:
    from sphinx_relocate.core.spans import title_in

    assert title_in(text, path) == title


def test_a_section_title_is_read_as_its_id_only() -> None:
    """The rewriter's anchors are the build's: a section's id (and a label's name), never
    its title, the name docutils gives it that no URL fragment finds."""
    rst = "Some Title\n==========\n\n.. _My Label:\n\nOther\n-----\n"
    found = anchors_in_source(rst, "page.rst")
    assert {"some-title", "other", "my label", "my-label"} <= found
    assert "some title" not in found
    md = "# 数据处理器（DataPreprocessor）\n"
    assert anchors_in_source(md, "page.md") == {"datapreprocessor"}


def test_a_heading_with_inline_html_has_the_ids_the_build_gives_it() -> None:
    """MyST slugs a heading's text tokens only: an ``<img>`` or an image in it adds
    nothing, and the space before it stays (``myst---markedly-structured-text-``, as
    myst-parser's own docs had it); docutils' id leaves them out too."""
    md = '# MyST - Markedly Structured Text <img src="_static/logo.svg" width=40 />\n'
    assert anchors_in_source(md, "index.md", Headings(2)) == {
        "myst---markedly-structured-text-", "myst-markedly-structured-text",
    }


def test_a_toctree_glob_of_a_moved_folder_follows_it(tmp_path: Path) -> None:
    """A glob that matches no document follows ``[prefixes]`` in the file, as the build
    moves it (read from the page's folder; one that matches as written is kept)."""
    rewriter = make_rewriter(
        '[prefixes]\n"api/" = "reference/api/"\n',
        {"docs/index.md", "docs/guide/index.rst", "docs/reference/api/a.md",
         "docs/reference/api/b.md", "docs/other/x.md"},
        tmp_path,
    )
    md = "```{toctree}\n:glob:\n\napi/*\nother/*\n/api/[ab]\nT <api/a>\n```\n"
    assert rewriter.rewrite_text("docs/index.md", md)[0] == md.replace(
        "\napi/*", "\nreference/api/*"
    ).replace("/api/[ab]", "/reference/api/[ab]").replace("<api/a>", "<reference/api/a>")
    rst = ".. toctree::\n   :glob:\n\n   ../api/*\n"
    assert rewriter.rewrite_text("docs/guide/index.rst", rst)[0] == (
        ".. toctree::\n   :glob:\n\n   ../reference/api/*\n"
    )
    # not a glob toctree: "api/*" is the name of a page, which no document has: left
    plain = "```{toctree}\napi/*\n```\n"
    assert rewriter.rewrite_text("docs/index.md", plain)[0] == plain
