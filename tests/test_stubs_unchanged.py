"""A build that changes nothing plans no stub: the old URLs already hold what it would write.

The doctree folder keeps a hash of what the last stub step was made from and each
file's stamp (``core.stubs.Stamps``); a build with the same inputs,
whose files all stand as written, skips planning, rendering and reading back every
stub, and the inventory finds its aliases by the same inputs.  Anything else (a
document read since, the table, the template, a stub deleted or edited by hand, a step
that warned) makes the step run whole.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import builds
import pytest

from sphinx_relocate.core import stubs as core_stubs
from sphinx_relocate.core.inventory import parse
from sphinx_relocate.sphinx_ext import inventory as sphinx_ext_inventory
from sphinx_relocate.sphinx_ext import stubs as sphinx_ext_stubs

ROOTS = Path(__file__).parent / "roots"
STUBS = ("old/plain.html", "old/other.html", "legacy/plain.html", "legacy/other.html")


def project(tmp_path: Path, root: str = "test-stubs-unchanged") -> Path:
    return Path(shutil.copytree(ROOTS / root, tmp_path / root,
                                ignore=shutil.ignore_patterns("_build")))


def written(out: Path) -> dict[str, tuple[int, bytes]]:
    """Each stub's modification time and bytes."""
    return {path: ((out / path).stat().st_mtime_ns, (out / path).read_bytes()) for path in STUBS}


def stamps_file(built: builds.Built) -> Path:
    return Path(built.app.doctreedir, "relocate-stubs-html.json")


def summary(built: builds.Built) -> str:
    return next(line for line in built.status.splitlines() if line.startswith("sphinx-relocate:"))


def test_a_build_that_changes_nothing_plans_no_stub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = project(tmp_path)
    first = builds.build(src, fresh=True)
    assert first.warnings == ""
    assert "4 redirect pages written" in summary(first)
    before = written(first.outdir)
    inventory = (first.outdir / "objects.inv").read_bytes()

    def not_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("worked out again")

    monkeypatch.setattr(sphinx_ext_stubs, "plan", not_again)
    monkeypatch.setattr(sphinx_ext_stubs, "old_page_landings", not_again)
    monkeypatch.setattr(sphinx_ext_inventory, "parse", not_again)
    second = builds.build(src)
    assert second.read == frozenset()
    assert second.warnings == ""
    assert written(second.outdir) == before
    assert (second.outdir / "objects.inv").read_bytes() == inventory
    assert summary(second) == summary(first)


def test_a_stub_deleted_or_edited_since_is_seen(tmp_path: Path) -> None:
    src = project(tmp_path)
    out = builds.build(src, fresh=True).outdir
    deleted = out / "old/plain.html"
    stub = deleted.read_bytes()
    deleted.unlink()
    again = builds.build(src)
    assert again.warnings == ""
    assert deleted.read_bytes() == stub
    # an edit that keeps the size and the modification time: the change time shows it
    edited = out / "old/other.html"
    before = edited.stat()
    text = edited.read_bytes().replace(b"Other page", b"OTHER PAGE")
    edited.write_bytes(text)
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert edited.stat().st_size == before.st_size
    built = builds.build(src)
    assert "'old/other.html' was changed since sphinx-relocate wrote it" in built.warnings
    for _ in range(2):  # out of the manifest now, it is warned on every build after
        built = builds.build(src)
        assert "'old/other.html' is a file sphinx-relocate did not write" in built.warnings
    assert edited.read_bytes() == text


@pytest.mark.parametrize("lost", ["a stub", "the manifest"])
def test_a_step_that_ran_whole_again_leaves_nothing_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lost: str
) -> None:
    """The files a whole step finds in place (by the manifest, or with the manifest lost,
    by their bytes) are stamped as those it writes: the build after it plans no stub."""
    src = project(tmp_path)
    out = builds.build(src, fresh=True).outdir
    (out / ("old/plain.html" if lost == "a stub" else core_stubs.MANIFEST)).unlink()
    assert builds.build(src).warnings == ""
    before = written(out)

    def not_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("planned again")

    monkeypatch.setattr(sphinx_ext_stubs, "plan", not_again)
    assert builds.build(src).warnings == ""
    assert written(out) == before


def test_new_table_entries_reach_the_stubs_and_inventory_without_a_document_read(
    tmp_path: Path,
) -> None:
    src = project(tmp_path)
    builds.build(src, fresh=True)
    table = src / "relocations.toml"
    table.write_text(
        table.read_text("utf-8").replace(
            "[pages]\n", '[pages]\n"old/third" = "https://example.org/third"\n'
        ) + '\n[labels]\n"old-label" = "plain-label"\n',
        "utf-8",
    )
    built = builds.build(src)
    assert built.read == frozenset()
    assert "https://example.org/third" in (built.outdir / "old/third.html").read_text("utf-8")
    labels = parse((built.outdir / "objects.inv").read_bytes()).of_role("std:label")
    assert labels["old-label"].uri == labels["plain-label"].uri == "new/plain.html#plain-label"


def test_an_edited_template_is_rendered_on_the_next_build(tmp_path: Path) -> None:
    src = project(tmp_path)
    settings = {"relocate_stub_template": "stub_template.html"}
    out = builds.build(src, fresh=True, confoverrides=settings).outdir
    assert "first template: Plain page" in (out / "old/plain.html").read_text("utf-8")
    template = src / "stub_template.html"
    template.write_text(template.read_text("utf-8").replace("first", "second"), "utf-8")
    built = builds.build(src, confoverrides=settings)
    assert built.read == frozenset()
    assert "second template: Plain page" in (out / "old/plain.html").read_text("utf-8")


def test_a_title_read_by_a_build_that_wrote_no_stub_reaches_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documents' titles are an input of the plan by the environment's token, which
    the build that read them keeps, not by what the build now reads."""
    src = project(tmp_path)
    out = builds.build(src, fresh=True).outdir
    (src / "new/plain.rst").write_text("Renamed page\n============\n\nText.\n", "utf-8")
    monkeypatch.setattr(sphinx_ext_stubs, "on_build_finished", lambda app, exception: None)
    assert "new/plain" in builds.build(src).read  # as if its stub step had failed
    monkeypatch.undo()
    built = builds.build(src)
    assert built.read == frozenset()
    assert "Renamed page" in (out / "old/plain.html").read_text("utf-8")
    assert "Renamed page" in (out / "legacy/plain.html").read_text("utf-8")


def not_again(*args: object, **kwargs: object) -> None:
    raise AssertionError("worked out again")


def test_an_edit_that_keeps_titles_and_labels_plans_no_stub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sphinx-autobuild loop: a page read again whose title and labels stand as
    they were leaves the stubs and the inventory's aliases as they are."""
    src = project(tmp_path)
    first = builds.build(src, fresh=True)
    before = written(first.outdir)
    inventory = (first.outdir / "objects.inv").read_bytes()
    page = src / "new/plain.rst"
    page.write_text(page.read_text("utf-8") + "\nAnother paragraph.\n", "utf-8")
    monkeypatch.setattr(sphinx_ext_stubs, "plan", not_again)
    monkeypatch.setattr(sphinx_ext_stubs, "old_page_landings", not_again)
    monkeypatch.setattr(sphinx_ext_inventory, "parse", not_again)
    second = builds.build(src)
    assert second.read == {"new/plain"}
    assert second.warnings == ""
    assert "Another paragraph." in (second.outdir / "new/plain.html").read_text("utf-8")
    assert written(second.outdir) == before
    assert (second.outdir / "objects.inv").read_bytes() == inventory
    assert summary(second) == summary(first)


def test_an_edit_of_what_a_plan_reads_reaches_the_stubs(tmp_path: Path) -> None:
    """A title, a label's page, a page added and removed: each makes the next plan."""
    src = project(tmp_path)
    table = src / "relocations.toml"
    table.write_text(table.read_text("utf-8") + '\n[labels]\n"old-label" = "plain-label"\n',
                     "utf-8")
    out = builds.build(src, fresh=True).outdir
    assert "plain-label" in (out / "old/plain.html").read_text("utf-8")
    plain, other = src / "new/plain.rst", src / "new/other.rst"

    plain.write_text(plain.read_text("utf-8").replace("Plain page\n==========",
                                                      "Plainer page\n============"), "utf-8")
    assert builds.build(src).read == {"new/plain"}
    assert "Plainer page" in (out / "old/plain.html").read_text("utf-8")

    plain.write_text(plain.read_text("utf-8").replace(".. _plain-label:\n", ""), "utf-8")
    other.write_text(".. _plain-label:\n\n" + other.read_text("utf-8"), "utf-8")
    assert builds.build(src).read == {"new/plain", "new/other"}
    assert "plain-label" not in (out / "old/plain.html").read_text("utf-8")
    assert "new/other.html#plain-label" in (out / "old/other.html").read_text("utf-8")

    third = src / "new/third.rst"
    third.write_text(":orphan:\n\nThird page\n==========\n", "utf-8")
    built = builds.build(src)
    assert built.warnings == ""
    assert "Third page" in (out / "legacy/third.html").read_text("utf-8")
    third.unlink()
    built = builds.build(src)
    assert built.warnings == ""
    assert not (out / "legacy/third.html").exists()


def test_a_step_that_warned_runs_whole_and_warns_again(tmp_path: Path) -> None:
    src = project(tmp_path, "test-stubs")
    first = builds.build(src, fresh=True)
    shadowed = [line for line in first.warnings.splitlines() if "still exists, so" in line]
    assert shadowed
    second = builds.build(src)
    assert second.read == frozenset()
    assert [line for line in second.warnings.splitlines() if "still exists, so" in line] == shadowed
    assert not stamps_file(second).exists()


# -- the stamps (core.stubs) -----------------------------------------------------------


def _write(out: Path, files: list[tuple[str, bytes]], kept: Path | None = None) -> dict[str, str]:
    """Write ``files``; keep their stamps at ``kept``, and check each is the file's now."""
    errors: list[str] = []
    done = core_stubs.write_all(out, files, core_stubs.read_manifest(out), set(),
                                lambda p, m: errors.append(m))
    assert errors == []
    assert done.stamps == {path: core_stubs.file_stamp(str(out / path)) for path in done.files}
    if kept is not None:
        core_stubs.write_stamps(kept, core_stubs.Stamps("key", done.stamps))
    return core_stubs.read_manifest(out)


def test_unchanged_needs_the_same_inputs_and_every_file_as_stamped(tmp_path: Path) -> None:
    out, kept = tmp_path / "out", tmp_path / "stamps.json"
    files = [("old/a.html", b"a"), ("old/b.html", b"b"), ("_redirects", b"/a /b 301\n")]
    manifest = _write(out, files, kept)
    stamps = core_stubs.read_stamps(kept)
    assert stamps is not None
    assert set(stamps.files) == set(manifest)
    assert core_stubs.unchanged(out, manifest, stamps, "key")
    assert not core_stubs.unchanged(out, manifest, stamps, "another key")
    assert not core_stubs.unchanged(out, {**manifest, "old/c.html": "0"}, stamps, "key")
    assert not core_stubs.unchanged(out, {"old/a.html": "0"}, stamps, "key")
    other = tmp_path / "other"  # the same files in another folder are other files
    assert _write(other, files) == manifest
    assert not core_stubs.unchanged(other, manifest, stamps, "key")
    (out / "old/b.html").unlink()
    assert not core_stubs.unchanged(out, manifest, stamps, "key")
    os.symlink(out / "old/a.html", out / "old/b.html")  # a link is no stub
    assert not core_stubs.unchanged(out, manifest, stamps, "key")
    core_stubs.write_stamps(kept, None)  # a step that warned keeps none
    assert not kept.exists()
    assert core_stubs.read_stamps(kept) is None


def test_odd_stamps_read_as_none(tmp_path: Path) -> None:
    kept = tmp_path / "stamps.json"
    good = {"inputs": "key", "files": {"a.html": "1 2 3 4"}}
    for odd in ({"files": {"a.html": [1, 2, 3, 4]}}, {"files": []}, {"inputs": 7}):
        kept.write_text(json.dumps({**good, **odd}), "utf-8")
        assert core_stubs.read_stamps(kept) is None
    kept.write_text("[" * 100_000, "utf-8")
    assert core_stubs.read_stamps(kept) is None
    kept.write_text(json.dumps(good), "utf-8")
    assert core_stubs.read_stamps(kept) == core_stubs.Stamps("key", {"a.html": "1 2 3 4"})


def test_the_output_folder_holds_no_stamp(tmp_path: Path) -> None:
    """Two builds of one site write the same manifest: the stamps, which differ on every
    file system, are kept in the doctree folder."""
    first = builds.build(project(tmp_path / "one"), fresh=True)
    second = builds.build(project(tmp_path / "two"), fresh=True)
    manifest = (first.outdir / core_stubs.MANIFEST).read_bytes()
    assert manifest == (second.outdir / core_stubs.MANIFEST).read_bytes()
    assert set(json.loads(manifest)) == {"version", "files"}
    assert core_stubs.read_stamps(stamps_file(first)) is not None
