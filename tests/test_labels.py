"""``[labels]``: renamed labels in the table model, the rule, and real builds.

The build root ``test-labels`` has a reST and a MyST page that reference old labels in
every way Sphinx and MyST can (``:ref:``, ``{ref}``, ``[](#label)``, ``:numref:``,
``:any:``); the hrefs must land on the new label's section, the inventory must list
the old labels, and another project's intersphinx references must land through it.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from builds import build_reading
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_relocate.core.inventory import label_moves, parse, with_aliases
from sphinx_relocate.core.landing import LabelLanding, land_label
from sphinx_relocate.core.spans import find_targets, labels_in
from sphinx_relocate.core.table import check_labels, load_table, normalize_label

ROOT = Path(__file__).parent / "roots" / "test-labels"


def load_text(text: str):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.toml"
        path.write_text(text, encoding="utf-8")
        return load_table(path, display_name="t.toml")


# -- the table -----------------------------------------------------------------------


def test_labels_are_normalized_as_sphinx_names_them() -> None:
    table, problems = load_text('[labels]\n"Install  Label" = "Installation"\n')
    assert problems == []
    assert table.labels == {"install label": "installation"}
    assert normalize_label(" Install\tLabel ") == "install label"
    assert table.locate_label("INSTALL LABEL") == "installation"
    assert table.locate_label("installation") is None  # not a key: did not move


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('"#old" = "new"', "t.toml:2: [labels] '#old': labels are written without '#' "
                           '("old" = "new")'),
        ('"old" = "#new"', "t.toml:2: [labels] 'old': labels are written without '#'"),
        ('"old" = "https://example.org/x"', "t.toml:2: [labels] 'old': [labels] maps a label "
                                            "to a label of this project"),
        ('"old" = "OLD"', "t.toml:2: [labels] 'old': the old and new labels are the same"),
        ('"old" = ""', "t.toml:2: [labels] 'old': empty value"),
        ('"old" = 3', "t.toml:2: [labels] 'old': keys and values must be strings"),
    ],
)
def test_bad_label_entries_are_one_line_at_their_line(entry: str, message: str) -> None:
    table, problems = load_text(f"[labels]\n{entry}\n")
    assert next(str(p) for p in problems if p.fatal).startswith(message)
    assert table.labels == {}


def test_the_same_label_twice_with_another_target_is_refused() -> None:
    table, problems = load_text('[labels]\n"Old" = "a"\n"old" = "b"\n"OLD" = "a"\n')
    assert [str(p) for p in problems] == [
        "t.toml:3: [labels] 'old': the same old name as the entry at t.toml:2 (which moves "
        "it to a); an old name may appear only once"
    ]
    assert table.labels == {"old": "a"}


def test_label_chains_collapse_and_stop_at_a_label_that_exists() -> None:
    table, problems = load_text('[labels]\n"a" = "b"\n"b" = "c"\n"c" = "d"\n')
    assert problems == []
    assert table.labels == {"a": "b", "b": "c", "c": "d"}  # as written
    assert table.locate_label("a") == "d"
    assert table.locate_label("a", {"c", "d"}.__contains__) == "c"
    assert table.locate_label("b", {"b", "d"}.__contains__) is None  # b is still a label


def test_label_cycles_are_refused_member_by_member() -> None:
    table, problems = load_text('[labels]\n"a" = "b"\n"b" = "a"\n"c" = "a"\n')
    assert [str(p) for p in problems] == [
        "t.toml:2: label cycle: a → b → a (a at t.toml:2, b at t.toml:3)"
    ]
    assert table.labels == {"c": "a"}


def test_labels_and_pages_do_not_mix() -> None:
    """A page and a label may have the same name; neither moves the other."""
    table, problems = load_text('[pages]\n"a" = "b"\n[labels]\n"b" = "a"\n"x" = "y"\n')
    assert problems == []  # a → b (page) and b → a (label) is no cycle
    assert table.locate_page("a").path == "b" and table.locate_label("b") == "a"
    assert table.locate_page("x") is None
    assert table.location_of("a").line == 2 and table.location_of("b", "labels").line == 4
    assert table.location_of("b") is None


def test_the_digest_sees_label_edits() -> None:
    first, _ = load_text('[labels]\n"a" = "b"\n')
    second, _ = load_text('[labels]\n"a" = "c"\n')
    assert first.digest != second.digest


LABEL = st.sampled_from(["a", "b", "c", "d", "e", "Install-Label", "install-label", "x y"])


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(LABEL, LABEL, max_size=7), st.sets(LABEL, max_size=4))
def test_no_label_chain_ends_on_a_key_or_loops(written: dict[str, str], exist: set[str]) -> None:
    lines = ["[labels]"] + [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in written.items()]
    table, problems = load_text("\n".join(lines) + "\n")
    assert all("\n" not in str(p) for p in problems)
    for old in table.labels:
        found = table.locate_label(old)
        assert found is not None and found not in table.labels  # collapsed, no cycle left
        # a label that exists stops the chain there
        existing = {normalize_label(e) for e in exist}
        stopped = table.locate_label(old, existing.__contains__)
        if old in existing:
            assert stopped is None
        else:
            assert stopped is not None
            assert stopped in existing or stopped not in table.labels
    for problem in problems:
        assert problem.message.startswith(("label cycle", "[labels]"))


def test_check_labels_against_the_project() -> None:
    table, _ = load_text(
        '[labels]\n"kept" = "new"\n"gone" = "nowhere"\n"a" = "b"\n"b" = "c"\n"ok" = "new"\n'
    )
    problems = check_labels(table, {"kept", "new"})
    assert [(p.location.line, p.subtype, p.message) for p in problems] == [
        (2, "shadowed", "label 'kept' still exists, so its entry is not used (delete the "
                        "label or the entry)"),
        (3, "target_missing", "target 'nowhere' of label 'gone' is not a label"),
        (4, "target_missing", "target 'b' of label 'a' is not a label (the chain ends at 'c')"),
        (5, "target_missing", "target 'c' of label 'b' is not a label"),
    ]
    # a chain stops at the first label that exists
    assert [p.location.line for p in check_labels(table, {"new", "c"})] == [3]
    assert [p.location.line for p in check_labels(table, {"new", "b"})] == [3, 5]
    assert [p.subtype for p in check_labels(table, {"kept"}, targets=False)] == ["shadowed"]


# -- the rule ------------------------------------------------------------------------


def test_land_label() -> None:
    table, _ = load_text('[labels]\n"old" = "new"\n"gone" = "nowhere"\n')
    labels = {"new", "other"}.__contains__
    assert land_label(table, "Old", labels, False) == LabelLanding("new")
    assert land_label(table, "old", labels, True) == LabelLanding("new", ambiguous=True)
    assert land_label(table, "other", labels, False) is None  # not a key
    assert land_label(table, "gone", labels, False) is None  # its target is not a label
    assert land_label(table, "old", {"old", "new"}.__contains__, False) is None  # shadowed


# -- finding labels in sources ---------------------------------------------------------


def test_label_roles_are_found_only_when_asked() -> None:
    rest = (
        ":ref:`Old` :ref:`text <old>` :numref:`fig` :std:ref:`s` :any:`a` :myref:`no` "
        "{ref}`not-in-rest`"
    )
    spans = find_targets(rest, "page.rst", labels=True)
    assert [(rest[s.start : s.end], s.syntax, s.mode) for s in spans] == [
        ("Old", "ref", "label"), ("old", "ref", "label"), ("fig", "ref", "label"),
        ("s", "ref", "label"), ("a", "any", "label"),
    ]
    assert find_targets(rest, "page.rst") == []  # the build's frame never sees them
    markdown = "{ref}`old` {numref}`Fig <fig>` :ref:`not-in-myst` [x](#old)\n```\n{ref}`c`\n```\n"
    spans = find_targets(markdown, "page.md", labels=True)
    assert [(markdown[s.start : s.end], s.syntax) for s in spans] == [
        ("old", "ref"), ("fig", "ref"), ("#old", "link"),
    ]


def test_labels_written_in_sources() -> None:
    text = (
        ".. _Install Label:\n\n.. _external: https://example.org\n\n"
        "(myst-label)=\n\n```{figure} a.png\n:name: Fig-A\n```\n"
    )
    assert labels_in(text) == {"install label", "myst-label", "fig-a"}


# -- builds ---------------------------------------------------------------------------


def warnings_of(text: str, srcdir: Path) -> list[str]:
    """The warning lines, with the source folder taken off their paths."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text).replace(f"{srcdir}{'/'}", "")
    return [line for line in plain.splitlines() if "WARNING" in line]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    srcdir = tmp_path / "labels"
    shutil.copytree(ROOT, srcdir)
    return srcdir


def hrefs(html: str) -> list[tuple[str, str]]:
    """``(href, text)`` of every internal reference in the page's body."""
    body = html.split('<div class="body"', 1)[1].split('<div class="sphinxsidebar"', 1)[0]
    return [
        (href, re.sub(r"<[^>]+>", "", text))
        for href, text in re.findall(r'<a class="reference internal" href="([^"]*)">(.*?)</a>',
                                     body)
    ]


def test_references_to_old_labels_land_on_the_new_ones(project: Path) -> None:
    _, output = build_reading(project, confoverrides={"relocate_report_rewrites": True})
    out = project / "_build" / "html"
    assert hrefs((out / "refs.html").read_text("utf-8")) == [
        ("install.html#installation", "Installing"),  # :ref:`install-label`
        ("install.html#installation", "Installing"),  # :ref:`Install-Label`
        ("install.html#installation", "the install page"),
        ("install.html#fig-architecture", "Fig. 1"),  # :numref:
        ("guide.html#configuring", "Configuring"),
        ("install.html#installation", "Installing"),  # a chain
        ("install.html#installation", "Installing"),  # :any:
        ("guide.html#still-here", "Still here"),  # the label still exists: not moved
    ]
    md = (out / "refs_md.html").read_text("utf-8")
    assert hrefs(md) == [
        ("install.html#installation", "Installing"),  # {ref}
        ("install.html#installation", "Installing"),  # [](#install-label)
        ("install.html#installation", "the install page"),
        ("install.html#fig-architecture", "Fig. 1"),  # {numref}
    ]
    # a name that is a label key and a document: not guessed, not linked
    assert '<span class="relocate-dangling"><code class="docutils literal notranslate">' \
           '<span class="pre">install</span></code></span>' in md

    outdated = "is written against an old label; it now points to"
    assert sorted(warnings_of(output, project)) == sorted([
        "refs_md.md:11: WARNING: label reference 'install' is ambiguous: the table renames "
        "the label 'install' to 'installation' (relocations.toml:9), and it also names the "
        "document 'install'; it links nowhere until it says which: write the new label "
        "'installation', or the other target [relocate.label]",
        f"refs.rst:4: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs.rst:6: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs.rst:8: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs.rst:10: WARNING: 'fig-arch' {outdated} 'fig-architecture' [relocate.outdated]",
        f"refs.rst:12: WARNING: 'config-label' {outdated} 'configuring' [relocate.outdated]",
        f"refs.rst:14: WARNING: 'chain-a' {outdated} 'installation' [relocate.outdated]",
        f"refs.rst:16: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs_md.md:3: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs_md.md:5: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs_md.md:7: WARNING: 'install-label' {outdated} 'installation' [relocate.outdated]",
        f"refs_md.md:9: WARNING: 'fig-arch' {outdated} 'fig-architecture' [relocate.outdated]",
        "relocations.toml:7: WARNING: label 'still-here' still exists, so its entry is not "
        "used (delete the label or the entry) [relocate.shadowed]",
        "relocations.toml:8: WARNING: target 'no-such-label' of label 'gone-label' is not a "
        "label [relocate.target_missing]",
        # a label that is neither a label nor a key: Sphinx's own warning, once
        "refs.rst:20: WARNING: undefined label: 'nowhere' [ref.ref]",
    ])


def test_the_inventory_lists_old_labels_at_the_new_ones(project: Path) -> None:
    build_reading(project)
    inventory = parse((project / "_build" / "html" / "objects.inv").read_bytes())
    labels = {name: (e.uri, e.title) for name, e in inventory.of_role("std:label").items()}
    assert labels["install-label"] == labels["installation"] == (
        "install.html#installation", "Installing"
    )
    assert labels["chain-a"] == labels["install"] == labels["installation"]
    assert labels["fig-arch"] == ("install.html#fig-architecture", "The architecture.")
    assert labels["config-label"] == ("guide.html#configuring", "Configuring")
    assert labels["still-here"] == ("guide.html#still-here", "Still here")  # Sphinx's own
    assert "gone-label" not in labels and "no-such-label" not in labels
    # a build that reads nothing keeps one alias per old label, and drops the one whose
    # entry left the table
    table = project / "relocations.toml"
    table.write_text(table.read_text("utf-8").replace('"config-label" = "configuring"\n', ""),
                     "utf-8")
    build_reading(project)
    again = parse((project / "_build" / "html" / "objects.inv").read_bytes())
    names = [e.name for e in again.entries if e is not None and e.role == "std:label"]
    assert names.count("install-label") == 1 and "config-label" not in names


def test_with_aliases_drops_stale_entries_and_adds_each_alias_once() -> None:
    import zlib

    body = (
        "new std:label -1 page.html#new New section\n"
        "stale std:label -1 page.html#new New section\n"
        "page std:doc -1 page.html Page\n"
    )
    data = (b"# Sphinx inventory version 2\n# Project: p\n# Version: \n"
            b"# The remainder of this file is compressed using zlib.\n"
            + zlib.compress(body.encode()))
    inventory = parse(data)
    moves = {"old": ("new", ""), "missing": ("nowhere", ""), "new": ("new", "")}
    lines = with_aliases(inventory, {"std:label": ({"new"}, moves)})
    assert lines == [
        "new std:label -1 page.html#new New section\n",
        "page std:doc -1 page.html Page\n",
        "old std:label -1 page.html#new New section\n",
    ]


def test_label_moves_follow_the_table() -> None:
    table, _ = load_text('[labels]\n"a" = "b"\n"b" = "c"\n"x" = "nowhere"\n"kept" = "c"\n')
    assert label_moves(table, {"c", "kept"}) == {"a": ("c", ""), "b": ("c", "")}


def test_another_project_reaches_old_labels_through_intersphinx(
    project: Path, tmp_path: Path
) -> None:
    build_reading(project)
    inventory = project / "_build" / "html" / "objects.inv"
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx.ext.intersphinx"]\n'
        f'intersphinx_mapping = {{"demo": ("https://demo.example/", {str(inventory)!r})}}\n'
        "nitpicky = True\n",
        "utf-8",
    )
    (consumer / "index.rst").write_text(
        "Consumer\n========\n\n.. toctree::\n\n   links\n\n"
        ":ref:`demo:install-label` and :external+demo:ref:`the figure <fig-arch>`.\n",
        "utf-8",
    )
    (consumer / "links.md").write_text(
        "# Links\n\n[Installing](inv:demo:std:label#install-label) and "
        "{external+demo:ref}`config-label`.\n",
        "utf-8",
    )
    _, output = build_reading(consumer)
    assert warnings_of(output, consumer) == []
    index = (consumer / "_build" / "html" / "index.html").read_text("utf-8")
    links = (consumer / "_build" / "html" / "links.html").read_text("utf-8")
    assert 'href="https://demo.example/install.html#installation"' in index
    assert 'href="https://demo.example/install.html#fig-architecture"' in index
    assert 'href="https://demo.example/install.html#installation"' in links
    assert 'href="https://demo.example/guide.html#configuring"' in links


def test_label_edits_rebuild_what_they_affect(project: Path) -> None:
    read, output = build_reading(project)
    assert len(read) == 5
    read, again = build_reading(project)
    assert read == set()  # a no-op build reads nothing, and our warnings stay
    ours = [w for w in warnings_of(output, project) if "[relocate." in w]
    assert [w for w in warnings_of(again, project) if "[relocate." in w] == ours

    # the table gains a key that a page references: that page is read again
    table = project / "relocations.toml"
    table.write_text(table.read_text("utf-8") + '"nowhere" = "configuring"\n', "utf-8")
    read, output = build_reading(project)
    assert read == {"refs"}
    assert "undefined label" not in output
    out = project / "_build" / "html"
    assert hrefs((out / "refs.html").read_text("utf-8"))[-1] == (
        "guide.html#configuring", "Configuring"
    )

    # an old label comes back: its references go to it again (the page that references
    # it is written again, though nothing in it changed), and its entry is shadowed
    guide = project / "guide.rst"
    guide.write_text(guide.read_text("utf-8").replace(
        ".. _configuring:", ".. _config-label:\n\n.. _configuring:"
    ), "utf-8")
    read, output = build_reading(project)
    assert read == {"guide"}
    assert "label 'config-label' still exists" in output
    assert ("guide.html#config-label", "Configuring") in hrefs(
        (out / "refs.html").read_text("utf-8")
    )


def test_parallel_build_is_the_same(project: Path, tmp_path: Path) -> None:
    serial = tmp_path / "serial"
    shutil.copytree(project, serial)
    build_reading(serial)
    build_reading(project, parallel=2)
    for page in ("refs.html", "refs_md.html", "objects.inv"):
        assert (project / "_build" / "html" / page).read_bytes() == (
            serial / "_build" / "html" / page
        ).read_bytes(), page


# -- section labels named by their page (autosectionlabel_prefix_document) -------------


def _section_label_project(srcdir: Path) -> None:
    """A page moved by ``[pages]``; references to its sections by their old page name,
    as ``sphinx.ext.autosectionlabel`` names them with ``autosectionlabel_prefix_document``."""
    from reorg_fixture import write_tree

    write_tree(srcdir, {
        "conf.py": 'extensions = ["myst_parser", "sphinx.ext.autosectionlabel", '
                   '"sphinx_relocate"]\nautosectionlabel_prefix_document = True\n'
                   'relocate_map = {"old/page": "new/page"}\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   new/page\n   guide\n\n"
                     "See :ref:`old/page:Intro`, :ref:`the title <old/page:Page>` and "
                     ":ref:`old/page:No such section`.\n",
        "guide.md": "# Guide\n\nSee {ref}`old/page:Intro` and [the intro](#old/page:intro).\n",
        "new/page.rst": "Page\n====\n\nIntro\n-----\n\ntext\n",
    }, {})


def test_section_labels_of_a_moved_page_follow_it(tmp_path: Path) -> None:
    """The label is a path: ``old/page:intro`` lands on ``new/page:intro``; a section the
    page does not have is left to Sphinx, which warns (it lands nowhere either way)."""
    from builds import build

    srcdir = tmp_path / "src"
    _section_label_project(srcdir)
    built = build(srcdir)
    assert built.warnings.count("WARNING") == 1, built.warnings
    assert "undefined label: 'old/page:no such section'" in built.warnings
    index = (built.outdir / "index.html").read_text("utf-8")
    assert _section_refs(index) == ["new/page.html#intro", "new/page.html#page"]
    guide = (built.outdir / "guide.html").read_text("utf-8")
    assert _section_refs(guide) == ["new/page.html#intro"] * 2, guide
    # without the setting, a label is a name: the table's pages do not move it
    conf = srcdir / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace("= True", "= False"), "utf-8")
    built = build(srcdir, fresh=True)
    assert _section_refs((built.outdir / "index.html").read_text("utf-8")) == []


def _section_refs(html: str) -> list[str]:
    """The hrefs of a page's references to labels (not its toctree's)."""
    return re.findall(r'<a class="reference internal" href="([^"]*)"><span class="std std-ref">',
                      html)


def test_rewrite_moves_section_labels_with_their_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rewrite`` writes the page's new name and keeps the section as written."""
    from builds import build

    from sphinx_relocate.cli.main import main

    srcdir = tmp_path / "src"
    _section_label_project(srcdir)
    assert main(["rewrite", str(srcdir), "--repo-root", str(srcdir), "--write"]) == 0
    index = (srcdir / "index.rst").read_text("utf-8")
    assert ":ref:`new/page:Intro`, :ref:`the title <new/page:Page>`" in index
    assert ":ref:`new/page:No such section`" in index  # the page moved: so did its label
    assert "{ref}`new/page:Intro` and [the intro](#new/page:intro)" in (
        srcdir / "guide.md"
    ).read_text("utf-8")
    conf = srcdir / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace(', "sphinx_relocate"', ""), "utf-8")
    built = build(srcdir, fresh=True)
    assert "undefined label: 'new/page:no such section'" in built.warnings
    assert built.warnings.count("WARNING") == 1, built.warnings


def test_rewrite_moves_section_labels_of_a_page_at_the_top(tmp_path: Path) -> None:
    """``connected-accounts:Permissions`` looks like a URL's scheme; in a label role it
    is a page's section (Read the Docs' guides), and follows the page like any other."""
    from builds import build
    from reorg_fixture import write_tree

    from sphinx_relocate.cli.main import main

    srcdir = tmp_path / "src"
    write_tree(srcdir, {
        "conf.py": 'extensions = ["myst_parser", "sphinx.ext.autosectionlabel", '
                   '"sphinx_relocate"]\nautosectionlabel_prefix_document = True\n'
                   'relocate_map = {"connected-accounts": "guides/accounts"}\n',
        "index.rst": "Home\n====\n\n.. toctree::\n\n   guides/accounts\n   guide\n\n"
                     "See :ref:`connected-accounts:permissions` and "
                     ":ref:`below <connected-accounts:Permissions>`.\n",
        "guide.md": "# Guide\n\nSee {ref}`connected-accounts:Permissions`.\n",
        "guides/accounts.rst": "Accounts\n========\n\nPermissions\n-----------\n\ntext\n",
    }, {})
    assert main(["rewrite", str(srcdir), "--repo-root", str(srcdir), "--write"]) == 0
    assert (":ref:`guides/accounts:permissions` and :ref:`below <guides/accounts:Permissions>`"
            in (srcdir / "index.rst").read_text("utf-8"))
    assert "{ref}`guides/accounts:Permissions`" in (srcdir / "guide.md").read_text("utf-8")
    conf = srcdir / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace(', "sphinx_relocate"', ""), "utf-8")
    built = build(srcdir, fresh=True)
    assert "WARNING" not in built.warnings, built.warnings
    assert _section_refs((built.outdir / "index.html").read_text("utf-8")) == [
        "guides/accounts.html#permissions"] * 2


def test_document_label() -> None:
    """``page:section`` of a page the table moved names the section on the new page."""
    from sphinx_relocate.core.landing import document_label

    table, problems = load_text('[pages]\n"old/page" = "new/page"\n"gone" = "https://x.org/"\n')
    assert not problems
    labels = {"new/page:intro", "kept:intro"}.__contains__
    assert document_label(table, "old/page:Intro", labels) == "new/page:intro"
    assert document_label(table, "old/page", labels) is None  # no section: a plain label
    assert document_label(table, ":intro", labels) is None
    assert document_label(table, "kept:intro", labels) is None  # exists as written
    assert document_label(table, "gone:intro", labels) is None  # a URL has no labels
    assert document_label(table, "other:intro", labels) is None  # a page that did not move
    assert land_label(table, "old/page:Intro", labels, False) is None  # not by document
    assert land_label(table, "old/page:Intro", labels, False, True) == LabelLanding(
        "new/page:intro"
    )
    assert land_label(table, "old/page:nothing", labels, False, True) is None
