"""What a stub may never do, in real Sphinx builds: leave the output folder, replace or
delete a file the extension did not write (a user's file, Sphinx's own output, a copied
``html_extra_path`` file), crash on deep paths or on a template that fails.

Each project is written by the test into ``tmp_path``; the builds are ``sphinx.testing``
applications, so the warnings are the build's own.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import builds
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sphinx.testing.util import SphinxTestApp

from sphinx_relocate.core import stubs as _stubs
from sphinx_relocate.core.paths import safe_output_path
from sphinx_relocate.sphinx_ext.stubs import load_template

CONF = """\
project = "safety"
extensions = ["sphinx_relocate"]
html_theme = "basic"
exclude_patterns = ["_build", "outside"]
show_warning_types = True
"""

PAGE = "Plain page\n==========\n\nThe plain page body.\n"


def project(root: Path, table: str, conf: str = "", pages: tuple[str, ...] = ()) -> Path:
    """A project with ``index`` and ``new/plain`` (and ``pages``), and ``table``."""
    src = root / "src"
    (src / "new").mkdir(parents=True)
    toctree = "\n".join(f"   {page}" for page in ("new/plain", *pages))
    (src / "conf.py").write_text(CONF + conf, "utf-8")
    (src / "index.rst").write_text(f"Index\n=====\n\n.. toctree::\n\n{toctree}\n", "utf-8")
    (src / "new/plain.rst").write_text(PAGE, "utf-8")
    for page in pages:
        path = src / f"{page}.rst"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{page}\n{'=' * len(page)}\n\nBody of {page}.\n", "utf-8")
    (src / "relocations.toml").write_text(table, "utf-8")
    return src


def build(src: Path, builder: str = "html", **overrides: Any) -> SphinxTestApp:
    return builds.build(src, builder, confoverrides=overrides).app


def warned(app: Any, kind: str) -> list[str]:
    return [line for line in app._warning.getvalue().splitlines() if f"[relocate.{kind}]" in line]


def manifest(out: Path) -> dict[str, str]:
    return dict(json.loads((out / _stubs.MANIFEST).read_text("utf-8"))["files"])


# -- D3: removal never follows a symbolic link out -----------------------------------------


def test_stale_removal_never_follows_a_symlinked_folder_out(tmp_path) -> None:
    src = project(tmp_path, '[pages]\n"deep/er/old" = "new/plain"\n"kept" = "new/plain"\n')
    out = Path(build(src).outdir)
    stub = (out / "deep/er/old.html").read_bytes()
    assert manifest(out)["deep/er/old.html"] == _stubs.digest(stub)
    # the folder of the stub becomes a link to a folder outside, holding the same bytes
    outside = tmp_path / "outside"
    (outside / "deep/er").mkdir(parents=True)
    (outside / "deep/er/old.html").write_bytes(stub)
    for path in (out / "deep/er/old.html", out / "deep/er", out / "deep"):
        path.unlink() if path.is_file() else path.rmdir()
    os.symlink(outside / "deep", out / "deep")
    # the entry leaves the table: the stub is stale
    (src / "relocations.toml").write_text('[pages]\n"kept" = "new/plain"\n', "utf-8")
    app = build(src)
    assert (outside / "deep/er/old.html").read_bytes() == stub
    assert (outside / "deep/er").is_dir()
    assert (out / "kept.html").exists()
    assert "deep/er/old.html" not in manifest(Path(app.outdir))


def test_stale_removal_never_follows_a_symlinked_file(tmp_path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    (out / "old").mkdir(parents=True)
    outside.mkdir()
    (outside / "x.html").write_bytes(b"stub")
    os.symlink(outside / "x.html", out / "old/x.html")
    previous = {"old/x.html": _stubs.digest(b"stub")}
    _stubs.write_all(out, [], previous, set(), lambda path, message: None)
    assert (outside / "x.html").read_bytes() == b"stub"
    assert (out / "old").is_dir()


#: path segments that lead into the links of :func:`_outside_tree`, or out by ``..``
_SEGMENTS = st.sampled_from(["link", "flink.html", "a", "x", "y.html", "f.html", "..", "."])
_PATHS = st.lists(_SEGMENTS, min_size=1, max_size=5).map("/".join)


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
@settings(max_examples=150, deadline=None)
@given(stale=st.lists(_PATHS, max_size=6), new=st.lists(_PATHS, max_size=6))
def test_writing_and_removal_never_touch_what_a_link_leads_to(
    stale: list[str], new: list[str]
) -> None:
    """Whatever the manifest lists and the build writes (paths made safe as the plan
    makes them), nothing outside the output folder is written or deleted, even where a
    folder or a file inside is a link out and the file there holds the listed bytes."""
    data = b"the same bytes"
    with tempfile.TemporaryDirectory() as folder:
        out, outside = Path(folder, "out"), Path(folder, "outside")
        for name in ("f.html", "y.html", "x/y.html", "a/y.html", "x/x/y.html"):
            (outside / name).parent.mkdir(parents=True, exist_ok=True)
            (outside / name).write_bytes(data)
        out.mkdir()
        os.symlink(outside, out / "link")
        os.symlink(outside / "f.html", out / "flink.html")
        before = _snapshot(outside)
        safe = [p for p in map(safe_output_path, stale) if p]
        previous = dict.fromkeys(safe, _stubs.digest(data))
        files = [(p, data) for p in dict.fromkeys(map(safe_output_path, new)) if p]
        _stubs.write_all(out, files, previous, set(), lambda path, message: None)
        assert _snapshot(outside) == before
        assert (out / "link").is_symlink() and (out / "flink.html").is_symlink()


# -- D4: a file the extension did not write is never replaced or deleted --------------------


def test_a_users_file_at_an_old_url_is_kept(tmp_path) -> None:
    src = project(tmp_path, '[pages]\n"old" = "new/plain"\n"other" = "new/plain"\n')
    out = src / "_build/html"
    out.mkdir(parents=True)
    (out / "old.html").write_text("my own page", "utf-8")
    (out / "vercel.json").write_text('{"headers": []}\n', "utf-8")
    app = build(src, relocate_redirect_exports=["vercel", "netlify"])
    assert (out / "old.html").read_text("utf-8") == "my own page"
    assert (out / "vercel.json").read_text("utf-8") == '{"headers": []}\n'
    assert "noindex" in (out / "other.html").read_text("utf-8")
    stub = warned(app, "stub")
    assert any(
        "no redirect stub for 'old': 'old.html' is a file sphinx-relocate did not write" in line
        for line in stub
    ), stub
    assert any("the 'vercel' export is not written: 'vercel.json' is a file sphinx-relocate "
               "did not write" in line for line in stub)
    assert all("\n" not in line for line in stub)
    # no server rule sends the user's own page away either
    rules = (out / "_redirects").read_text("utf-8")
    assert "/other.html /new/plain.html 301!" in rules
    assert "/old.html" not in rules
    assert set(manifest(out)) == {"other.html", "_redirects"}
    # the entry leaves the table: the user's file stays
    (src / "relocations.toml").write_text('[pages]\n"other" = "new/plain"\n', "utf-8")
    build(src, relocate_redirect_exports=["netlify"])
    assert (out / "old.html").read_text("utf-8") == "my own page"
    assert (out / "vercel.json").read_text("utf-8") == '{"headers": []}\n'


def test_a_stub_edited_by_hand_is_not_overwritten(tmp_path) -> None:
    src = project(tmp_path, '[pages]\n"old" = "new/plain"\n')
    app = build(src)
    out = Path(app.outdir)
    (out / "old.html").write_text("edited", "utf-8")
    (src / "new/plain.rst").write_text(PAGE.replace("Plain page", "Plain title"), "utf-8")
    app = build(src)
    assert (out / "old.html").read_text("utf-8") == "edited"
    assert any("'old.html' was changed since sphinx-relocate wrote it" in line
               for line in warned(app, "stub"))


def test_an_unchanged_stub_is_rewritten_and_a_lost_manifest_is_made_again(
    tmp_path
) -> None:
    src = project(tmp_path, '[pages]\n"old" = "new/plain"\n')
    out = Path(build(src).outdir)
    (src / "new/plain.rst").write_text(PAGE.replace("Plain page", "Plain title"), "utf-8")
    app = build(src)
    assert "Moved: Plain title" in (out / "old.html").read_text("utf-8")
    assert not warned(app, "stub")
    # without the manifest, a stub whose bytes are what the build writes is taken back
    (out / _stubs.MANIFEST).unlink()
    app = build(src)
    assert not warned(app, "stub")
    assert "old.html" in manifest(out)


def test_a_page_of_a_removed_document_becomes_its_stub(tmp_path) -> None:
    """The reorganization itself: the page a previous build wrote for a document that
    moved since is Sphinx's output, and the stub takes its place."""
    src = project(tmp_path, "", pages=("install",))
    out = Path(build(src).outdir)
    assert "Body of install." in (out / "install.html").read_text("utf-8")
    (src / "guide").mkdir()
    (src / "install.rst").rename(src / "guide/install.rst")
    index = (src / "index.rst").read_text("utf-8")
    (src / "index.rst").write_text(index.replace("   install", "   guide/install"), "utf-8")
    (src / "relocations.toml").write_text('[pages]\n"install" = "guide/install"\n', "utf-8")
    app = build(src)
    assert "noindex" in (out / "install.html").read_text("utf-8")
    assert not warned(app, "stub")


# -- D5: Sphinx's own files --------------------------------------------------------------


def test_sphinx_own_files_are_never_replaced(tmp_path) -> None:
    table = (
        '[pages]\n"objects.inv" = "new/plain"\n"searchindex.js" = "new/plain"\n'
        '".buildinfo" = "new/plain"\n"genindex" = "new/plain"\n"old" = "new/plain"\n'
    )
    src = project(tmp_path, table)
    app = build(src, html_file_suffix="", relocate_redirect_exports=["json"])
    out = Path(app.outdir)
    assert (out / "objects.inv").read_bytes().startswith(b"# Sphinx inventory version 2")
    assert (out / "searchindex.js").read_text("utf-8").startswith("Search.setIndex(")
    assert (out / ".buildinfo").read_text("utf-8").startswith("# Sphinx build info")
    assert "noindex" not in (out / "genindex").read_text("utf-8")
    assert "noindex" in (out / "old").read_text("utf-8")
    assert set(manifest(out)) == {"old", "_relocate/redirects.json"}
    rows = json.loads((out / "_relocate/redirects.json").read_text("utf-8"))
    assert [row["from"] for row in rows] == ["/old"]
    shadowed = warned(app, "shadowed")
    for name in ("objects.inv", "searchindex.js", ".buildinfo", "genindex"):
        assert any(f"the build writes its own file {name!r}" in line for line in shadowed), name


# -- D6: html_extra_path, walked as Sphinx walks it ------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_extra_files_behind_a_symlinked_folder_are_kept(tmp_path) -> None:
    table = '[pages]\n"sub/page" = "new/plain"\n"sub/other" = "new/plain"\n'
    src = project(tmp_path, table, conf='html_extra_path = ["extra"]\n')
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "page.html").write_text("copied by Sphinx", "utf-8")
    (src / "extra").mkdir()
    os.symlink(shared, src / "extra/sub")
    app = build(src, relocate_redirect_exports=["json"])
    out = Path(app.outdir)
    assert (out / "sub/page.html").read_text("utf-8") == "copied by Sphinx"
    assert "noindex" in (out / "sub/other.html").read_text("utf-8")
    assert any("the build writes its own file 'sub/page.html'" in line
               for line in warned(app, "shadowed"))
    rows = json.loads((out / "_relocate/redirects.json").read_text("utf-8"))
    assert [row["from"] for row in rows] == ["/sub/other.html"]


# -- D14: no recursion on the depth of a path --------------------------------------------


def test_a_key_a_thousand_folders_deep(tmp_path) -> None:
    deep = "/".join(["a"] * 1000)
    src = project(tmp_path, f'[pages]\n"{deep}" = "new/plain"\n')
    app = build(src)
    out = Path(app.outdir)
    written = out / f"{deep}.html"
    if written.exists():  # the system takes the path: a stub like any other
        assert "noindex" in written.read_text("utf-8")
    else:
        assert any("no redirect stub for" in line for line in warned(app, "stub"))
    # and the entry leaves again: its folders go without recursion either
    (src / "relocations.toml").write_text("", "utf-8")
    build(src)
    assert not (out / "a").exists()


def test_writer_folders_need_no_recursion(tmp_path) -> None:
    limit = sys.getrecursionlimit()
    writer = _stubs.Writer(tmp_path)
    sys.setrecursionlimit(max(100, len(inspect.stack()) + 50))
    try:
        assert writer.folder_ok("/".join(["b"] * 400))
    finally:
        sys.setrecursionlimit(limit)


# -- D15: a template that fails in any way falls back ----------------------------------------


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ('{% include "other.html" %}', "TypeError: no loader for this environment specified"),
        ("<p>\n{{ 1 // 0 }}", "ZeroDivisionError: integer division or modulo by zero"),
        ("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "RecursionError: maximum recursion"),
        ("{{ nothing }}", "UndefinedError: 'nothing' is undefined"),
    ],
)
def test_a_failing_template_falls_back_with_one_line(tmp_path, template, error) -> None:
    src = project(tmp_path, '[pages]\n"old" = "new/plain"\n"older" = "new/plain"\n')
    (src / "stub.html").write_text(template, "utf-8")
    app = build(src, relocate_stub_template="stub.html")
    out = Path(app.outdir)
    for name in ("old.html", "older.html"):
        assert "This page has moved to" in (out / name).read_text("utf-8")
    (line,) = warned(app, "stub")  # once, not once per stub
    shown = re.escape(str(src / "stub.html"))
    assert re.search(shown + r"(:\d+)?: WARNING: relocate_stub_template: ", line), line
    assert error in line
    assert "the built-in stub is used instead" in line
    assert "stub.html.rst" not in app._warning.getvalue()
    if "//" in template:
        assert f"{src / 'stub.html'}:2:" in line


# -- [labels]: an old label's anchor travels to the new label in the stub -----------------


def test_stub_sends_an_old_label_to_the_new_one(tmp_path) -> None:
    """``install.md`` moved to ``getting-started/installation.md`` and its label
    ``install-label`` became ``installation``: ``install.html#install-label`` must
    reach the new label's anchor, as an ``[anchors]`` entry would."""
    src = tmp_path / "src"
    (src / "getting-started").mkdir(parents=True)
    (src / "conf.py").write_text(
        CONF.replace('["sphinx_relocate"]', '["myst_parser", "sphinx_relocate"]'), "utf-8"
    )
    (src / "index.md").write_text(
        "# Index\n\n```{toctree}\ngetting-started/installation\n```\n", "utf-8"
    )
    (src / "getting-started/installation.md").write_text(
        "# Getting started\n\nIntro.\n\n(installation)=\n## Installing\n\nHow.\n", "utf-8"
    )
    (src / "relocations.toml").write_text(
        '[pages]\n"install" = "getting-started/installation"\n\n'
        '[labels]\n"Install_Label" = "installation"\n"gone-label" = "no-such-label"\n',
        "utf-8",
    )
    new = "getting-started/installation"
    for builder, stub, url in (
        ("html", "install.html", f"{new}.html#installation"),
        ("dirhtml", "install/index.html", f"../{new}/index.html#installation"),
    ):
        app = build(src, builder)
        text = (Path(app.outdir) / stub).read_text("utf-8")
        assert f'"install-label":"{url}"' in text, text
        assert f'"install_label":"{url}"' in text
        assert "gone-label" not in text


# -- input that would recurse or block -------------------------------------------------------


def test_a_manifest_nested_deep_or_a_fifo_reads_as_none(tmp_path) -> None:
    (tmp_path / "_relocate").mkdir()
    manifest_path = tmp_path / _stubs.MANIFEST
    manifest_path.write_text("[" * 100_000, "utf-8")
    assert _stubs.read_manifest(tmp_path) == {}
    if hasattr(os, "mkfifo"):
        manifest_path.unlink()
        os.mkfifo(manifest_path)
        assert _stubs.read_manifest(tmp_path) == {}  # at once: no writer is waited for


def test_a_template_nested_too_deep_is_one_config_error(tmp_path) -> None:
    from sphinx.errors import ConfigError

    path = tmp_path / "deep.html"
    path.write_text("{% if x %}" * 5000 + "{% endif %}" * 5000, "utf-8")
    with pytest.raises(ConfigError, match=r"deep\.html: relocate_stub_template: \w+Error: "):
        load_template(path, str(path))
