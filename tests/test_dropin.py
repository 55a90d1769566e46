"""Drop-in: added to a healthy project with no table, the extension changes nothing.

Each project is built as it is and with ``sphinx_relocate`` added to ``extensions``
(the one line a new user adds): every output file must be byte-identical, and the
extension adds no warning.  The projects link to labels that contain ``/`` (which
look like page paths), through intersphinx (a local inventory, also with
``:external:doc:``), to pages the builder generates (``html_additional_pages``, the
indices, ``html_extra_path``), to a page of the site by its dirhtml URL, with a
``:doc:`` whose ``../`` Sphinx stops at the source folder, and to the built site
(a page's dirhtml URL, a file under ``_images/``).
"""

from __future__ import annotations

import re
import shutil
import zlib
from pathlib import Path

import builds
import pytest
from sphinx.util.console import strip_colors

ROOTS = Path(__file__).parent / "roots"
#: the extension's own entry in the environment versions the search index lists
#: (Sphinx 8 writes the index as compact JSON, 7.4 with a space after ``,`` and ``:``)
ENV_VERSION = re.compile(r',\s*"sphinx_relocate":\s*\d+')


def build(
    root: str, folder: Path, relocate: bool, table: str = "", source: Path | None = None
) -> tuple[Path, str]:
    """Build a copy of the test root (or of ``source``); return its output folder and
    its warnings."""
    srcdir = folder / ("with" if relocate else "without")
    shutil.copytree(source or ROOTS / root, srcdir)
    if relocate:
        with (srcdir / "conf.py").open("a", encoding="utf-8") as conf:
            conf.write('extensions.append("sphinx_relocate")\n')
    if table:
        (srcdir / "relocations.toml").write_text(table, "utf-8")
    built = builds.build(srcdir, fresh=True)
    return built.outdir, built.warnings.replace(str(srcdir), "SRC")


def outputs(outdir: Path) -> dict[str, bytes]:
    """Every output file but the environment and the build info (which hash the
    configuration), with the search index's list of extension versions made equal."""
    found = {}
    for path in sorted(outdir.rglob("*")):
        relative = path.relative_to(outdir).as_posix()
        if not path.is_file() or relative.startswith(".doctrees/") or relative == ".buildinfo":
            continue
        data = path.read_bytes()
        if relative == "searchindex.js":
            data = ENV_VERSION.sub("", data.decode("utf-8")).encode("utf-8")
        found[relative] = data
    return found


@pytest.mark.parametrize("root", ["dropin-myst", "dropin-rst"])
def test_dropin_changes_nothing(
    tmp_path: Path, root: str
) -> None:
    plain, plain_warnings = build(f"test-{root}", tmp_path, relocate=False)
    relocated, warnings = build(f"test-{root}", tmp_path, relocate=True)
    assert plain_warnings == ""  # a healthy project
    assert warnings == plain_warnings
    before, after = outputs(plain), outputs(relocated)
    assert sorted(after) == sorted(before)
    assert [name for name in before if name.endswith(".html")]
    changed = [name for name in before if before[name] != after[name]]
    assert changed == []


def test_warnings_a_project_silenced_stay_silent(tmp_path: Path) -> None:
    # many conf.py files silence MyST's warning for links to files outside the docs
    # ("real links for a reader on the repository"); the check takes that warning's place
    srcdir = tmp_path / "docs"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_relocate"]\nshow_warning_types = True\n'
        'suppress_warnings = ["myst.xref_missing", "ref.doc", "image.not_readable"]\n',
        "utf-8",
    )
    (srcdir / "index.md").write_text(
        "# Home\n\n[changes](../CHANGES.md) [gone](gone.md) [anchor](page.md#nope)\n\n"
        "{doc}`missing` ![logo](missing.png)\n\n```{toctree}\npage\n```\n",
        "utf-8",
    )
    (srcdir / "page.rst").write_text(
        "Page\n====\n\n`old <old.html>`_\n", "utf-8"
    )
    for fresh in (True, False):  # and so on every build, also one that reads nothing
        built = builds.build(srcdir, fresh=fresh)
        # only the link no one warned about before (Sphinx writes it as it is)
        assert [line.split(": ", 1)[1] for line in strip_colors(built.warnings).splitlines()] == [
            "WARNING: link 'old.html' does not land: no document 'old' [relocate.link]"
        ]
        assert "1 dangling reference in 1 document" in built.status


def test_a_page_and_a_label_of_one_name_stay_mystical(tmp_path: Path) -> None:
    """``[t](hashing)`` and ``[t](#hashing)`` where ``hashing`` is a page and a label:
    MyST takes the label and warns that the link is ambiguous; with the extension too
    (it made the page of it, silently, before)."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "conf.py").write_text('extensions = ["myst_parser"]\n', "utf-8")
    (root / "index.md").write_text(
        "# Home\n\n```{toctree}\nhashing\nother\n```\n\n[a](hashing) [b](#hashing)\n", "utf-8"
    )
    (root / "hashing.md").write_text("# Hashing\n", "utf-8")
    (root / "other.md").write_text("# Other\n\n(hashing)=\n## Section\n", "utf-8")
    plain, plain_warnings = build(str(root), tmp_path / "plain", relocate=False)
    relocated, warnings = build(str(root), tmp_path / "relocated", relocate=True)
    # MyST's myst.xref_ambiguous (Sphinx 7.4 does not show the type)
    assert plain_warnings.count("more than one target found for 'myst'") == 2, plain_warnings
    assert warnings == plain_warnings
    assert outputs(relocated) == outputs(plain)
    page = (relocated / "index.html").read_text("utf-8")
    assert page.count('href="other.html#hashing"><span class="std std-ref">') == 2


def test_links_to_built_pages_keep_their_query_under_dirhtml(tmp_path: Path) -> None:
    """``text <sub/page.html?tab=2#section>`_`` stays as written under the html builder
    (``test_dropin_changes_nothing``); under dirhtml, where the written URL would miss,
    it gets the page's URL there, with its query and fragment (the query was dropped)."""
    srcdir = tmp_path / "src"
    shutil.copytree(ROOTS / "test-dropin-rst", srcdir)
    with (srcdir / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('extensions.append("sphinx_relocate")\n')
    built = builds.build(srcdir, "dirhtml", fresh=True)
    assert built.warnings == ""
    page = (built.outdir / "index.html").read_text("utf-8")
    assert 'href="sub/page/?tab=2#section"' in page
    assert 'href="?tab=1"' in page
    # LaTeX links a page by its name: no query there
    latex = builds.build(srcdir, "latex", fresh=True)
    tex = "".join(path.read_text("utf-8") for path in latex.outdir.glob("*.tex"))
    assert r"\hyperref[\detokenize{sub/page:section}]" in tex
    assert "tab=2" not in tex


def test_raw_html_links_the_files_sphinx_copies_itself(tmp_path: Path) -> None:
    """Raw HTML naming a file of ``html_static_path`` links Sphinx's own copy under
    ``_static/``, as without the extension (it made a second one under ``_images/``
    before, where a script would not find its neighbours); under dirhtml from the page's
    folder, where the written path, read from the source folder, would miss it."""
    root = tmp_path / "root"
    (root / "_static").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / "_static" / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    (root / "_static" / "app.js").write_text("// app\n")
    (root / "conf.py").write_text(
        'extensions = ["myst_parser"]\nhtml_static_path = ["_static"]\n', "utf-8"
    )
    (root / "index.md").write_text(
        "# Home\n\n```{toctree}\nsub/page\n```\n\n"
        '<p><img src="_static/logo.svg"><script src="_static/app.js"></script></p>\n', "utf-8"
    )
    (root / "sub" / "page.md").write_text(
        '# Sub\n\n<p><img src="../_static/logo.svg"></p>\n', "utf-8"
    )
    plain, plain_warnings = build(str(root), tmp_path / "plain", relocate=False)
    relocated, warnings = build(str(root), tmp_path / "relocated", relocate=True)
    assert (plain_warnings, warnings) == ("", "")
    assert outputs(relocated) == outputs(plain)
    assert not (relocated / "_images").exists()
    dirhtml = builds.build(tmp_path / "relocated" / "with", "dirhtml", fresh=True)
    assert dirhtml.warnings == ""
    page = (dirhtml.outdir / "sub" / "page" / "index.html").read_text("utf-8")
    assert '<img src="../../_static/logo.svg">' in page


def test_dropin_keeps_the_links(tmp_path: Path) -> None:
    """The links the comparison covers are links (so it is not comparing two broken builds)."""
    outdir, _ = build("test-dropin-myst", tmp_path, relocate=True)
    page = (outdir / "guide" / "page.html").read_text("utf-8")
    assert 'href="../syntax.html#syntax-substitutions"' in page
    assert 'href="../index.html#syntax-intro"' in page
    assert 'href="https://other.example/page.html#other-label"' in page
    assert "relocate-dangling" not in page


@pytest.mark.parametrize("root", ["dropin-myst", "dropin-rst"])
def test_a_table_changes_only_what_it_touches(tmp_path: Path, root: str) -> None:
    """With a table that moves a page nothing links to, the only change is its stub."""
    plain, plain_warnings = build(f"test-{root}", tmp_path, relocate=False)
    relocated, warnings = build(
        f"test-{root}", tmp_path, relocate=True, table='[pages]\n"old-home" = "index"\n'
    )
    assert warnings == plain_warnings
    before, after = outputs(plain), outputs(relocated)
    # the stub, and the record of the stubs written (to remove them when they go)
    assert sorted(set(after) - set(before)) == ["_relocate/stubs.json", "old-home.html"]
    # the inventory gains the old name, for other projects' links to it; nothing else
    assert inventory(after["objects.inv"]) - inventory(before["objects.inv"]) == {
        "old-home std:doc -1 index.html Home"
    }
    assert inventory(before["objects.inv"]) <= inventory(after["objects.inv"])
    assert [name for name in before if before[name] != after[name]] == ["objects.inv"]


def inventory(data: bytes) -> set[str]:
    """The entries of an objects.inv file."""
    body = data.partition(b"zlib.\n")[2]
    return set(zlib.decompress(body).decode("utf-8").splitlines())


def test_myst_parsers_settings_are_left_to_it(tmp_path: Path) -> None:
    """The extension reads how myst-parser makes heading ids (``myst_heading_anchors``,
    ``myst_enable_extensions``) but never stops a build on them: a value myst-parser
    takes (``True`` for 1, a set) builds as it does without the extension."""
    root = shutil.copytree(ROOTS / "test-dropin-myst", tmp_path / "root")
    with (root / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('myst_heading_anchors = True\nmyst_enable_extensions = {"smartquotes"}\n')
    _, plain_warnings = build("", tmp_path / "plain", relocate=False, source=root)
    relocated, warnings = build("", tmp_path / "relocated", relocate=True, source=root)
    assert warnings == plain_warnings
    assert (relocated / "index.html").is_file()
