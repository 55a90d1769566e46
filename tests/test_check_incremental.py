"""The check at ``env-updated`` looks again only where a build's changes can have
changed an answer (issue 27), and every warning still survives incremental builds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from builds import Built, build

from sphinx_relocate.sphinx_ext import check

CONF = """\
extensions = ["myst_parser", "sphinx_relocate"]
myst_heading_anchors = 2
relocate_table = None
"""
PAGES = {
    "index.md": "# Home\n\n```{toctree}\na\nb\nc\nd\n```\n",
    "a.md": "# A\n\nSee [the section](b.md#details).\n",
    "b.md": "# B\n\n## Details\n\nText.\n",
    "c.md": "# C\n\nA [link to nothing](gone.md).\n",
    "d.md": "# D\n\n![a picture](pic.png)\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    srcdir = tmp_path / "src"
    srcdir.mkdir()
    (srcdir / "conf.py").write_text(CONF, encoding="utf-8")
    for name, text in PAGES.items():
        (srcdir / name).write_text(text, encoding="utf-8")
    (srcdir / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return srcdir


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The documents the check looks at again, build after build."""
    seen: list[str] = []
    original = check.check_document

    def counting(checker: check.Checker, locator: check.Locator, refs: list) -> object:  # type: ignore[type-arg]
        seen.extend(dict.fromkeys(ref.docname for ref in refs))
        return original(checker, locator, refs)

    monkeypatch.setattr(check, "check_document", counting)
    yield seen


def _dangling(built: Built) -> list[str]:
    return [line for line in built.warnings.splitlines() if "does not land" in line]


def test_a_build_that_changes_nothing_checks_only_what_can_change(
    project: Path, checked: list[str]
) -> None:
    first = build(project, fresh=True)
    assert len(_dangling(first)) == 1 and "c.md:3" in _dangling(first)[0]
    # d's image exists and Sphinx re-reads d when it goes: not recorded, not checked
    assert set(checked) == {"a", "c"}
    checked.clear()
    again = build(project)
    assert again.read == frozenset()
    assert _dangling(again) == _dangling(first)  # the warning survives
    # only the document whose link dangles (it may come to land) is looked at again;
    # a's anchor link (on a page that did not change) is not
    assert checked == ["c"]


def test_a_changed_page_rechecks_the_pages_that_depend_on_it(
    project: Path, checked: list[str]
) -> None:
    build(project, fresh=True)
    checked.clear()
    (project / "b.md").write_text("# B\n\n## Renamed\n\nText.\n", encoding="utf-8")
    built = build(project)
    assert built.read == {"b"}  # a is not read again...
    assert "a" in checked  # ...but checked again, as it links into b
    assert any("a.md:3" in line and "details" in line for line in _dangling(built)), (
        built.warnings
    )
    checked.clear()
    assert any("a.md:3" in line for line in _dangling(build(project)))  # and it stays


def test_a_removed_page_makes_the_pages_that_link_to_it_warn(project: Path) -> None:
    """Links that land as written on a page that exists are not recorded: their lookup
    re-reads the page that links when the target goes, for every kind of link."""
    (project / "a.md").write_text("# A\n\nSee [b](b.md) and [its section](b.md#details).\n",
                                  encoding="utf-8")
    (project / "e.rst").write_text(
        "E\n=\n\nSee :doc:`b` and `b's page <b.html>`_.\n", encoding="utf-8"
    )
    (project / "index.md").write_text(PAGES["index.md"].replace("d\n", "d\ne\n"),
                                      encoding="utf-8")
    assert _dangling(build(project, fresh=True)) == [
        line for line in _dangling(build(project)) if "c.md" in line
    ]
    (project / "b.md").unlink()
    (project / "index.md").write_text(
        PAGES["index.md"].replace("b\n", "").replace("d\n", "d\ne\n"), encoding="utf-8"
    )
    built = build(project)
    assert {"a", "e"} <= built.read  # their lookups of b re-read them
    warned = [line for line in _dangling(built) if "a.md:3" in line or "e.rst:4" in line]
    assert len(warned) == 4, built.warnings  # plain, anchored, :doc: and reST links
    assert [line for line in _dangling(build(project))
            if "a.md:3" in line or "e.rst:4" in line] == warned


def test_a_removed_table_target_makes_the_pages_that_link_to_it_warn(project: Path) -> None:
    """The page a table entry sends old links and toctree entries to goes: the pages
    that link through the entry are read again, and they warn on every build (a toctree
    entry is Sphinx's warning: it reads such a page again on every build itself)."""
    (project / "conf.py").write_text(
        CONF + 'relocate_map = {"old-b": "b"}\n', encoding="utf-8"
    )
    (project / "a.md").write_text("# A\n\nSee [b](old-b.md).\n", encoding="utf-8")
    (project / "index.md").write_text(PAGES["index.md"].replace("b\n", "old-b\n"),
                                      encoding="utf-8")
    assert _dangling(build(project, fresh=True)) == [
        line for line in _dangling(build(project)) if "c.md" in line
    ]
    (project / "b.md").unlink()
    for _ in range(2):
        built = build(project)
        assert any("a.md:3" in line and "old-b.md" in line for line in _dangling(built))
        assert "toctree contains reference to nonexisting document 'old-b'" in built.warnings


def test_a_removed_image_warns_on_every_build(project: Path) -> None:
    build(project, fresh=True)
    (project / "pic.png").unlink()
    built = build(project)
    assert "d" in built.read
    assert any("d.md:3" in line and "pic.png" in line for line in _dangling(built))
    assert any("d.md:3" in line for line in _dangling(build(project)))


def test_removed_files_of_downloads_and_raw_html_warn_on_every_build(project: Path) -> None:
    """An existing file that lands as written is not recorded (Sphinx re-reads its page
    when it goes): removing it still warns, on that build and the next."""
    (project / "f.md").write_text(
        "# F\n\n<p><img src=\"chart.png\" alt=\"chart\"></p>\n\n"
        "Get {download}`the data <data.csv>`.\n",
        encoding="utf-8",
    )
    (project / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (project / "data.csv").write_text("a,b\n", encoding="utf-8")
    (project / "index.md").write_text(PAGES["index.md"].replace("d\n", "d\nf\n"),
                                      encoding="utf-8")
    first = build(project, fresh=True)
    assert not [line for line in _dangling(first) if "f.md" in line], first.warnings
    (project / "chart.png").unlink()
    (project / "data.csv").unlink()
    built = build(project)
    assert "f" in built.read
    warned = [line for line in _dangling(built) if "f.md" in line]
    assert any("chart.png" in line for line in warned), built.warnings
    assert any("data.csv" in line for line in warned), built.warnings
    assert [line for line in _dangling(build(project)) if "f.md" in line] == warned



def test_documents_share_the_names_of_their_lookups(project: Path) -> None:
    """Two pages that look up the same name hold one string of it, packed as flat
    tuples once read (``resolve.pack_lookups``): the environment pickles (and loads)
    it once, and a tuple of strings, not a set of tuples."""
    from sphinx_relocate.sphinx_ext.resolve import lookups_of, unpacked_lookups

    for name in ("e", "g"):
        (project / f"{name}.md").write_text(f"# {name}\n\nSee [b](b.md).\n",
                                            encoding="utf-8")
    (project / "index.md").write_text(PAGES["index.md"].replace("d\n", "d\ne\ng\n"),
                                      encoding="utf-8")
    lookups = lookups_of(build(project, fresh=True).app.env)
    assert all(type(made) is tuple for made in lookups.values())
    key = ("page", "b", "")
    of_e = [lookup for lookup in unpacked_lookups(lookups["e"]) if lookup == key]
    of_g = [lookup for lookup in unpacked_lookups(lookups["g"]) if lookup == key]
    assert of_e and of_g
    assert of_e[0][1] is of_g[0][1]


def test_records_come_back_from_the_pickle_as_records() -> None:
    """A record comes back from the environment's pickle equal, of its class and shared
    where it was, made by ``tuple.__new__`` (no Python call per record when a build
    loads the environment)."""
    import pickle
    import pickletools

    from sphinx_relocate.sphinx_ext.record import Reference
    from sphinx_relocate.sphinx_ext.warnings import RelocateWarning

    record = Reference("a/b", 3, RelocateWarning.LINK, "../x.md#y", "x", True, "y",
                       alternatives=(("page", "a/x", "y"),), replaces="myst.xref_missing")
    data = pickle.dumps([record, record], pickle.HIGHEST_PROTOCOL)
    loaded = pickle.loads(data)
    assert loaded == [record, record]
    assert type(loaded[0]) is Reference and loaded[0] is loaded[1]
    assert loaded[0].anchor == "y" and loaded[0].published
    assert "NEWOBJ" not in {op.name for op, _, _ in pickletools.genops(data)}
