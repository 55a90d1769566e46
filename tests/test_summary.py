"""The one summary line of every build (issue 22.3): which table was read, or where
the build looked for one, and what the extension did and found."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sphinx_relocate.sphinx_ext.state import Sources, StubReport
from sphinx_relocate.sphinx_ext.summary import summary_line

ROOTS = Path(__file__).parent / "roots"
REORG = (
    "sphinx-relocate: relocations.toml (8 entries); 42 references rewritten in 7 documents; "
    "{stubs}no dangling references"
)
NO_TABLE = (
    "sphinx-relocate: no relocation table "
    "(looked for relocations.toml, relocate_map, redirects, rediraffe_redirects{hint}); "
    "no dangling references"
)


def lines_of(status: str) -> list[str]:
    return [line for line in status.splitlines() if line.startswith("sphinx-relocate:")]


@pytest.fixture
def reorg(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(ROOTS / "test-reorg", src)
    return src


def test_html_build_names_the_table_and_counts_and_so_does_the_next(make_app, reorg) -> None:
    line = REORG.format(stubs="7 redirect pages written; ")
    app = make_app("html", srcdir=reorg)
    app.build()
    assert lines_of(app.status.getvalue()) == [line]
    again = make_app("html", srcdir=reorg, freshenv=False)
    again.build()
    assert "0 added, 0 changed, 0 removed" in again.status.getvalue()  # nothing read
    assert lines_of(again.status.getvalue()) == [line]  # the project's counts, not the build's


def test_a_parallel_build_counts_the_same(make_app, reorg) -> None:
    app = make_app("html", srcdir=reorg, parallel=2)
    app.build()
    assert lines_of(app.status.getvalue()) == [REORG.format(stubs="7 redirect pages written; ")]


def test_a_builder_without_stubs_has_no_stub_part(make_app, reorg) -> None:
    app = make_app("text", srcdir=reorg)
    app.build()
    assert lines_of(app.status.getvalue()) == [REORG.format(stubs="")]


def test_removed_stubs_and_exports_are_counted(make_app, reorg) -> None:
    app = make_app("html", srcdir=reorg, confoverrides={"relocate_redirect_exports": ["json"]})
    app.build()
    assert lines_of(app.status.getvalue()) == [REORG.format(
        stubs="7 redirect pages written; exports _relocate/redirects.json; "
    )]
    again = make_app("html", srcdir=reorg, freshenv=False)
    again.build()
    assert lines_of(again.status.getvalue()) == [
        # the json export is gone, but it is no redirect page
        REORG.format(stubs="7 redirect pages written; ")
    ]


def make_docs(folder: Path, conf: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "conf.py").write_text(
        f'project = "x"\nextensions = ["sphinx_relocate"]\n{conf}\n', encoding="utf-8"
    )
    (folder / "index.rst").write_text("Home\n====\n\nSee :doc:`old`.\n", encoding="utf-8")
    (folder / "new.rst").write_text("New\n===\n", encoding="utf-8")
    return folder


def test_no_table_says_where_it_looked(make_app, tmp_path) -> None:
    docs = make_docs(tmp_path / "docs")
    (docs / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   new\n", encoding="utf-8")
    app = make_app("html", srcdir=docs)
    app.build()
    assert lines_of(app.status.getvalue()) == [NO_TABLE.format(hint="")]


def test_a_table_one_folder_up_is_named_as_not_read(make_app, tmp_path) -> None:
    docs = make_docs(tmp_path / "docs")
    (tmp_path / "relocations.toml").write_text('[pages]\nold = "new"\n', encoding="utf-8")
    app = make_app("html", srcdir=docs)
    app.build()
    hint = "; ../relocations.toml is not read: set relocate_table = '../relocations.toml'"
    assert lines_of(app.status.getvalue()) == [
        NO_TABLE.format(hint=hint).replace(
            "no dangling references", "1 dangling reference in 1 document"
        )
    ]
    assert not (Path(app.outdir) / "old.html").exists()


def test_conf_py_and_file_entries_are_named_apart(make_app, tmp_path) -> None:
    docs = make_docs(tmp_path / "docs", 'relocate_map = {"old": "new"}')
    (docs / "relocations.toml").write_text('[pages]\ngone = "new"\n', encoding="utf-8")
    app = make_app("html", srcdir=docs)
    app.build()
    assert lines_of(app.status.getvalue()) == [
        "sphinx-relocate: relocate_map in conf.py (1 entry), relocations.toml (1 entry); "
        "1 reference rewritten in 1 document; 2 redirect pages written; "
        "no dangling references"
    ]


def test_a_peer_table_is_named(make_app, tmp_path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOTS / "test-reredirects", src)
    app = make_app("html", srcdir=src)
    app.build()
    (line,) = lines_of(app.status.getvalue())
    assert line.startswith("sphinx-relocate: redirects in conf.py (9 entries); ")


def test_quiet_hides_the_line_and_plain_shows_it(tmp_path) -> None:
    docs = make_docs(tmp_path / "docs", 'relocate_map = {"old": "new"}')
    for flags, shown in (([], True), (["-q"], False)):
        result = subprocess.run(
            [sys.executable, "-m", "sphinx", *flags, "-b", "html", str(docs),
             str(tmp_path / "out")],
            capture_output=True, text=True, check=True,
        )
        assert ("sphinx-relocate: relocate_map in conf.py (1 entry)" in result.stdout) is shown


def test_summary_line_parts() -> None:
    read = Sources([("relocations.toml", 1)], ["relocations.toml"])
    assert summary_line(read, (1, 1), StubReport(1, 0, (), 0), (0, 0)) == (
        "sphinx-relocate: relocations.toml (1 entry); 1 reference rewritten in 1 document; "
        "1 redirect page written; no dangling references"
    )
    none = Sources([], [])
    assert summary_line(none, (0, 0), StubReport(0, 3, (), 0), None) == (
        "sphinx-relocate: no relocation table (looked for nothing: relocate_table = None); "
        "0 redirect pages written, 3 removed"
    )


@pytest.mark.parametrize("root", ["reorg", "labels", "resolve-ambiguity"])
def test_references_rewritten_are_those_reported_as_outdated(make_app, tmp_path, root) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOTS / f"test-{root}", src)
    app = make_app("html", srcdir=src, confoverrides={"relocate_report_rewrites": True})
    app.build()
    outdated = [w for w in app.warning.getvalue().splitlines() if "[relocate.outdated]" in w]
    documents = {w.split(":")[0] for w in outdated}
    (line,) = lines_of(app.status.getvalue())
    assert outdated
    assert f"; {len(outdated)} reference{'s' if len(outdated) > 1 else ''} rewritten in " \
        f"{len(documents)} document{'s' if len(documents) > 1 else ''};" in line
