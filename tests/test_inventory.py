"""Old page names in ``objects.inv``: another project's intersphinx references land.

``tests/roots/test-inventory`` is a project after a reorganization (``intro`` became
``guide/introduction``, ``api`` a section of ``reference/api``, ``setup/`` moved to
``manual/``, ``gone`` left for another site).  ``test-inventory-consumer`` is another
project that still links to the old names, through intersphinx with the first project's
built ``objects.inv`` as a local file.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import zlib
from pathlib import Path

import builds
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sphinx.util.console import strip_colors

from sphinx_relocate.core.files import write_atomically
from sphinx_relocate.core.inventory import (
    InventoryEntry,
    InventoryError,
    aliases,
    parse,
    with_aliases,
)

ROOTS = Path(__file__).parent / "roots"
BASE = "https://demo.example/"
#: old name → (new page's URL path under html, under dirhtml, its title)
OLD_NAMES = {
    "intro": ("guide/introduction.html", "guide/introduction/", "Introduction"),
    "api": ("reference/api.html#functions", "reference/api/#functions", "API reference"),
    "setup/install": ("manual/install.html", "manual/install/", "Installing"),
}

_EXTERNAL = r'<a class="reference external" href="([^"]+)"[^>]*>(.*?)</a>'


def copy(tmp_path: Path, root: str, name: str | None = None) -> Path:
    """A fresh copy of a test root, so a build writes nothing into the repository."""
    return Path(shutil.copytree(ROOTS / root, tmp_path / (name or root),
                                ignore=shutil.ignore_patterns("_build")))


def build(
    srcdir: Path, builder: str = "html", *, parallel: int = 0, fresh: bool = False,
    **overrides: object,
) -> tuple[Path, list[str]]:
    """Build ``srcdir`` into its ``_build`` (incrementally unless ``fresh``); return the
    output folder and the warning lines."""
    built = builds.build(
        srcdir, builder, fresh=fresh, confoverrides=overrides, parallel=parallel
    )
    lines = strip_colors(built.warnings).splitlines()
    return built.outdir, [line for line in lines if "WARNING" in line or "ERROR" in line]


def entries(path: Path, role: str = "std:doc") -> dict[str, tuple[str, str]]:
    """name → (URI, title) of one role in a built inventory."""
    found = parse(path.read_bytes()).of_role(role)
    return {name: (entry.uri, entry.title) for name, entry in found.items()}


def consumer_links(tmp_path: Path, inventory: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """Build the consumer against ``inventory``; its external links (href, text) and warnings."""
    srcdir = copy(tmp_path, "test-inventory-consumer")
    out, warnings = build(
        srcdir, fresh=True, intersphinx_mapping={"demo": (BASE, str(inventory))}
    )
    links = []
    for page in ("index.html", "links.html"):
        html = (out / page).read_text("utf-8")
        for href, inner in re.findall(_EXTERNAL, html, re.S):
            links.append((href, re.sub(r"<[^>]+>", "", inner).strip()))
    return links, warnings


# -- two projects ------------------------------------------------------------------------


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_other_projects_land_on_the_new_pages_by_old_names(tmp_path: Path, builder: str) -> None:
    out, warnings = build(copy(tmp_path, "test-inventory"), builder, fresh=True)
    assert warnings == []
    dirhtml = builder == "dirhtml"
    listed = entries(out / "objects.inv")
    for old, (html, folder, title) in OLD_NAMES.items():
        assert listed[old] == (folder if dirhtml else html, title)
    assert "gone" not in listed  # moved to another site: an entry cannot point there

    links, warnings = consumer_links(tmp_path, out / "objects.inv")
    assert warnings == []
    url = {old: BASE + (dirs if dirhtml else page) for old, (page, dirs, _) in OLD_NAMES.items()}
    assert links == [
        # :doc:, :external+demo:doc:, :doc: to a page that became a section, with a title
        (url["intro"], "Introduction"),
        (url["setup/install"], "Installing"),
        (url["api"], "API reference"),
        (url["intro"], "The old introduction"),
        # MyST: [text](inv:demo#intro), <inv:demo:std:doc#…>, {doc}
        (url["intro"], "the old introduction"),
        (url["setup/install"], "Installing"),
        (url["api"], "API reference"),
    ]


def test_without_the_aliases_the_other_project_breaks(tmp_path: Path) -> None:
    out, _ = build(copy(tmp_path, "test-inventory"), fresh=True, relocate_inventory_aliases=False)
    listed = entries(out / "objects.inv")
    assert not set(OLD_NAMES) & set(listed)
    assert listed["guide/introduction"] == ("guide/introduction.html", "Introduction")
    links, warnings = consumer_links(tmp_path, out / "objects.inv")
    assert links == []
    assert len(warnings) == 7, warnings  # every reference to an old name


def test_the_rest_of_the_inventory_is_what_sphinx_wrote(tmp_path: Path) -> None:
    with_aliases, _ = build(copy(tmp_path, "test-inventory", "a"), fresh=True)
    without, _ = build(copy(tmp_path, "test-inventory", "b"), fresh=True,
                       relocate_inventory_aliases=False)
    ours, sphinx = parse((with_aliases / "objects.inv").read_bytes()), parse(
        (without / "objects.inv").read_bytes()
    )
    assert ours.header == sphinx.header
    assert ours.lines[: len(sphinx.lines)] == sphinx.lines
    assert sorted(e.name for e in ours.entries[len(sphinx.lines) :] if e) == sorted(OLD_NAMES)


# -- incremental and parallel builds -----------------------------------------------------


def test_rebuilds_keep_the_aliases_once_and_follow_table_edits(tmp_path: Path) -> None:
    srcdir = copy(tmp_path, "test-inventory")
    out, _ = build(srcdir, fresh=True)
    first = (out / "objects.inv").read_bytes()
    out, warnings = build(srcdir)  # reads nothing (Sphinx 7.4 keeps the old file then)
    assert warnings == []
    assert (out / "objects.inv").read_bytes() == first

    table = srcdir / "relocations.toml"
    text = table.read_text("utf-8")
    table.write_text(text.replace('[pages]\n', '[pages]\n"start" = "index"\n'), "utf-8")
    build(srcdir)
    assert entries(out / "objects.inv")["start"] == ("index.html", "Demo")

    table.write_text(text.replace('"intro" = "guide/introduction"\n', ""), "utf-8")
    build(srcdir)
    listed = entries(out / "objects.inv")
    assert "start" not in listed
    assert "intro" not in listed
    assert listed["api"] == ("reference/api.html#functions", "API reference")


def test_a_build_that_changes_nothing_writes_the_last_inventory_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sphinx writes its inventory on every build; when it wrote the same one and the
    aliases are the same, the one made last time is written again, unparsed."""
    from sphinx_relocate.sphinx_ext import inventory

    srcdir = copy(tmp_path, "test-inventory")
    out, _ = build(srcdir, fresh=True)
    first = (out / "objects.inv").read_bytes()
    (out / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n")  # Sphinx's again

    def unparsed(data: bytes) -> object:
        raise AssertionError("parsed again")

    monkeypatch.setattr(inventory, "parse", unparsed)
    out, warnings = build(srcdir, fresh=True, nitpicky=False)  # Sphinx writes it anew
    assert warnings == []
    assert (out / "objects.inv").read_bytes() == first
    monkeypatch.undo()
    table = srcdir / "relocations.toml"  # another alias: made anew, not the kept one
    table.write_text(table.read_text("utf-8").replace(
        "[pages]\n", '[pages]\n"start" = "index"\n'), "utf-8")
    build(srcdir)
    assert entries(out / "objects.inv")["start"] == ("index.html", "Demo")


def test_parallel_build_writes_the_same_inventory(tmp_path: Path) -> None:
    serial, _ = build(copy(tmp_path, "test-inventory", "serial"), fresh=True)
    parallel, warnings = build(copy(tmp_path, "test-inventory", "parallel"), fresh=True, parallel=2)
    assert warnings == []
    assert (parallel / "objects.inv").read_bytes() == (serial / "objects.inv").read_bytes()


def test_builders_without_an_inventory_are_left_alone(tmp_path: Path) -> None:
    out, warnings = build(copy(tmp_path, "test-inventory"), "text", fresh=True)
    assert warnings == []
    assert not (out / "objects.inv").exists()


# -- the format (no Sphinx) --------------------------------------------------------------


def inventory_bytes(*lines: str, header: bytes | None = None) -> bytes:
    header = header or (
        b"# Sphinx inventory version 2\n# Project: demo\n# Version: 1.0\n"
        b"# The remainder of this file is compressed using zlib.\n"
    )
    return header + zlib.compress("".join(lines).encode("utf-8"))


INVENTORY = inventory_bytes(
    "guide/introduction std:doc -1 guide/introduction.html Introduction\n",
    "reference/api std:doc -1 reference/api.html API reference\n",
    "installation std:label -1 manual/install.html#$ Installing\n",
    "kept std:doc -1 kept.html -\n",
    "stale std:doc -1 guide/introduction.html Introduction\n",
    "py.func py:function 1 reference/api.html#$ -\n",
)


def test_parse_reads_sphinx_lines() -> None:
    inventory = parse(INVENTORY)
    assert (inventory.project, inventory.version) == ("demo", "1.0")
    label = inventory.of_role("std:label")["installation"]
    assert (label.uri, label.title) == ("manual/install.html#installation", "Installing")
    assert inventory.of_role("std:doc")["kept"].title == "kept"


def test_aliases_copy_the_new_entry() -> None:
    inventory = parse(INVENTORY)
    moves = {
        "intro": ("guide/introduction", ""),
        "api": ("reference/api", "functions"),
        "kept": ("guide/introduction", ""),  # still listed: left as it is
        "lost": ("nowhere", ""),  # a new name the inventory lacks
        "two\nlines": ("guide/introduction", ""),  # would end the line
        "guide/introduction.html": ("guide/introduction", ""),
    }
    assert aliases(inventory, "std:doc", moves) == [
        InventoryEntry("api", "std:doc", "-1", "reference/api.html#functions", "API reference"),
        InventoryEntry("guide/introduction.html", "std:doc", "-1", "guide/introduction.html",
              "Introduction"),
        InventoryEntry("intro", "std:doc", "-1", "guide/introduction.html", "Introduction"),
    ]
    # a label keeps the new label's fragment
    assert aliases(inventory, "std:label", {"install-label": ("installation", "")}) == [
        InventoryEntry("install-label", "std:label", "-1", "manual/install.html#installation",
              "Installing"),
    ]


def test_names_that_are_no_document_are_dropped_and_sphinx_reads_the_result() -> None:
    inventory = parse(INVENTORY)
    documents = {"guide/introduction", "reference/api", "kept"}
    moves = {"intro": ("guide/introduction", "")}
    lines = with_aliases(inventory, {"std:doc": (documents, moves)})
    result = parse(inventory.dump(lines))
    assert "stale" not in result.of_role("std:doc")
    assert result.of_role("std:doc")["intro"].uri == "guide/introduction.html"
    assert result.of_role("py:function")["py.func"].uri == "reference/api.html#py.func"
    assert result.header == inventory.header


def test_last_builds_aliases_are_written_again_not_twice() -> None:
    """Sphinx 7.4 keeps the last build's file when a build reads nothing."""
    last = parse(inventory_bytes(
        "guide/introduction std:doc -1 guide/introduction.html Introduction\n",
        "intro std:doc -1 guide/introduction.html Introduction\n",
        "setup std:doc -1 guide/introduction.html Introduction\n",  # its entry was removed
    ))
    moves = {"intro": ("guide/introduction", "")}
    lines = with_aliases(last, {"std:doc": ({"guide/introduction"}, moves)})
    assert lines == [
        "guide/introduction std:doc -1 guide/introduction.html Introduction\n",
        "intro std:doc -1 guide/introduction.html Introduction\n",
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a Sphinx inventory"),
        (b"<html>404</html>\n", "not a Sphinx inventory"),
        (b"# Sphinx inventory version 1\n# Project: x\n# Version: 1\nx mod a.html\n\n",
         "a version 1 inventory: only version 2"),
        (b"# Sphinx inventory version 2\n# Project: x\n# Version: 1\n# plain text\nx\n",
         "does not say it is compressed with zlib"),
        (inventory_bytes()[:-3] + b"zzz", "compressed part is damaged"),
        (inventory_bytes()[:120] + zlib.compress(b"\xff\xfe bad"), "compressed part is damaged"),
    ],
)
def test_unreadable_inventories_are_one_line(data: bytes, message: str) -> None:
    with pytest.raises(InventoryError, match=re.escape(message)) as caught:
        parse(data)
    assert "\n" not in str(caught.value)


_NAME = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Zs")), min_size=1, max_size=12
).filter(lambda s: s == s.strip() and not s.endswith("$"))


@given(st.dictionaries(_NAME, st.tuples(st.sampled_from(["a", "b/c"]), st.sampled_from(["", "x"]))))
def test_aliases_survive_a_round_trip(moves: dict[str, tuple[str, str]]) -> None:
    base = parse(inventory_bytes("a std:doc -1 a.html A title\n", "b/c std:doc -1 b/c.html C\n"))
    lines = with_aliases(base, {"std:doc": ({"a", "b/c"}, moves)})
    again = parse(base.dump(lines)).of_role("std:doc")
    for old, (new, anchor) in moves.items():
        if old in ("a", "b/c"):
            continue
        expected = f"{new}.html" + (f"#{anchor}" if anchor else "")
        assert (again[old].uri, again[old].title) == (expected, again[new].title)


#: fields made of what decides how a line reads: spaces, line breaks, digits, ``:``, ``-``
_FIELD = st.text(
    st.sampled_from([" ", "\t", "\n", "\x85", "\u2028", "\xa0", "1", "-", ":", "a", "$"]),
    max_size=5,
)


@given(_FIELD.filter(bool), _FIELD, _FIELD, _FIELD, _FIELD)
def test_the_cached_check_judges_every_line_as_the_reader_does(
    name: str, role: str, priority: str, location: str, display: str
) -> None:
    """Whether an alias reads back is worked out once for each rest of the line when the
    name has no whitespace; it must agree with reading the whole line back."""
    from sphinx_relocate.core import inventory

    for each in (name, "".join(c for c in name if not c.isspace()) or "n"):
        entry = InventoryEntry(each, role, priority, location, display)
        assert inventory._reads_back(entry) == inventory._line_reads_back(entry)


# -- names that would read as another entry (D19) ------------------------------------------

FORGED = "install std:label -1 https:/evil.example/ Installation"


def test_a_name_never_forges_another_entry(tmp_path: Path) -> None:
    """An old name that Sphinx's reader would split into another entry gets no alias (and
    a warning at its line); a name with spaces that reads back as itself keeps its alias;
    an odd anchor is percent-encoded, so the location stays one field."""
    from io import BytesIO

    from sphinx.util.inventory import InventoryFile

    srcdir = copy(tmp_path, "test-inventory")
    with (srcdir / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write("show_warning_types = True  # Sphinx 7.4 leaves it off\n")
    text = (srcdir / "relocations.toml").read_text("utf-8")
    text = text.replace("[pages]\n", f'[pages]\n"{FORGED}" = "guide/introduction"\n'
                        '"old spaced name" = "guide/introduction"\n'
                        '"odd" = "guide/introduction#a b$"\n', 1)
    (srcdir / "relocations.toml").write_text(text, "utf-8")
    out, warnings = build(srcdir, fresh=True)
    assert len(warnings) == 2, warnings  # and the anchor that is not there
    (stub,) = [w for w in warnings if "[relocate.stub]" in w]
    assert "gets no std:doc entry" in stub and "relocations.toml:3:" in stub
    data = (out / "objects.inv").read_bytes()
    sphinx_reads = InventoryFile.load(BytesIO(data), BASE, lambda a, b: a + b)
    assert "install" not in sphinx_reads.get("std:label", {})
    assert FORGED not in sphinx_reads["std:doc"] and "install" not in sphinx_reads["std:doc"]
    assert "old spaced name" in sphinx_reads["std:doc"]
    listed = entries(out / "objects.inv")
    assert listed["odd"] == ("guide/introduction.html#a%20b%24", "Introduction")
    assert listed["old spaced name"] == ("guide/introduction.html", "Introduction")
    # every line of ours is one entry, as Sphinx's reader splits it
    for line in zlib.decompress(data.split(b"\n", 4)[4]).decode().splitlines():
        assert FORGED not in line
    # a build that changes nothing warns again (the kept inventory is not taken for it)
    again, warnings = build(srcdir)
    assert [w for w in warnings if "[relocate.stub]" in w] == [stub]
    assert (again / "objects.inv").read_bytes() == data


def test_the_inventory_is_replaced_in_one_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``objects.inv`` goes through the package's one atomic write: its mode and its hard
    links stay, and a write that fails leaves the old file whole and no temp file."""
    path = tmp_path / "objects.inv"
    path.write_bytes(b"old")
    path.chmod(0o604)
    write_atomically(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o604
    (tmp_path / "linked.inv").hardlink_to(path)
    write_atomically(path, b"newer")
    assert (tmp_path / "linked.inv").read_bytes() == b"newer"
    (tmp_path / "linked.inv").unlink()

    def refuse(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        write_atomically(path, b"lost")
    assert path.read_bytes() == b"newer"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["objects.inv"]
    monkeypatch.undo()
    write_atomically(tmp_path / "new.inv", b"first")  # a new file: 0644
    assert (tmp_path / "new.inv").read_bytes() == b"first"
    assert stat.S_IMODE((tmp_path / "new.inv").stat().st_mode) == 0o644


def test_section_label_moves() -> None:
    """Each ``new:section`` of a page moved from ``old`` gives ``old:section``; a page
    moved to a section, or an old name that is a label itself, gives none."""
    from sphinx_relocate.core.inventory import section_label_moves

    labels = {"guides/a:intro", "guides/a:usage", "b:intro", "old/c:intro", "c:x", "plain"}
    pages = {"a": ("guides/a", ""), "old/b": ("b", "part"), "old/c": ("c", "")}
    assert section_label_moves(pages, labels) == {
        "a:intro": ("guides/a:intro", ""), "a:usage": ("guides/a:usage", ""),
        "old/c:x": ("c:x", ""),
    }
