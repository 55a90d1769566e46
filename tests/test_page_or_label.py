"""A MyST link that names no page from its folder, which the table or its page's old
folder sends to a page, while a label has its name: without the extension MyST takes the
label.  ``ref/config.md`` moved out of the top folder and writes ``[see here](topic/images)``,
which named the label ``topic/images`` (there was no page of that name); the rename of
``topic/figures`` made one.  The build and ``rewrite`` leave the link to MyST and warn,
never send it to the page silently; with no such label the page wins, also when an
incremental build removes the label."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import builds
import pytest

from sphinx_relocate.cli.main import main

ROOT = Path(__file__).parent / "roots" / "test-page-or-label"
COLOR = re.compile(r"\x1b\[[0-9;]*m")
AMBIGUOUS = ("link 'topic/images' is ambiguous: read against the old paths it lands on the "
             "page 'topic/images', and it names the label 'topic/images' too, which MyST takes")


def href(outdir: Path, page: str, text: str) -> str:
    """Where the link showing ``text`` goes (the body's, not the sidebar's)."""
    html = (outdir / page).read_text("utf-8")
    (found,) = re.findall(rf'href="([^"]*)"[^>]*>(?:<[^>]+>)*{re.escape(text)}<', html)
    return str(found)


@pytest.fixture
def srcdir(tmp_path: Path) -> Path:
    shutil.copytree(ROOT, tmp_path / "src")
    return tmp_path / "src"


def test_the_label_is_taken_and_warned_until_it_goes(srcdir: Path) -> None:
    built = builds.build(srcdir)
    warnings = COLOR.sub("", built.warnings)
    assert warnings.count(AMBIGUOUS) == 1, warnings
    assert "config.md:3:" in warnings
    # the label, as without the extension
    assert href(built.outdir, "ref/config.html", "see here") == "../topic/guide.html#topic-images"
    # a link with one meaning still goes to its page
    assert href(built.outdir, "ref/config.html", "the guide") == "../topic/guide.html"

    # the label goes: the page is the one meaning left (incremental, config.md not read)
    guide = srcdir / "topic" / "guide.md"
    guide.write_text("# Guide\n\n## HTML images\n\nText.\n", "utf-8")
    built = builds.build(srcdir)
    assert "ref/config" not in built.read
    assert AMBIGUOUS not in COLOR.sub("", built.warnings)
    assert href(built.outdir, "ref/config.html", "see here") == "../topic/images.html"

    # and comes back: warned again, the link goes to it again
    guide.write_text("# Guide\n\n(topic/images)=\n## HTML images\n\nText.\n", "utf-8")
    built = builds.build(srcdir)
    assert COLOR.sub("", built.warnings).count(AMBIGUOUS) == 1
    assert href(built.outdir, "ref/config.html", "see here") == "../topic/guide.html#topic-images"


def test_rewrite_leaves_the_link_and_says_why(
    srcdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(srcdir)
    before = (srcdir / "ref" / "config.md").read_text("utf-8")
    assert main(["rewrite", ".", "--write"]) == 1
    err = capsys.readouterr().err
    assert ("ref/config.md:3:23: 'topic/images' names a label too, which MyST takes, and "
            "the page ../topic/images read against the old paths; left as written") in err
    after = (srcdir / "ref" / "config.md").read_text("utf-8")
    # the other link is rewritten from the page's old folder; this one is left
    assert after == before.replace("(topic/guide)", "(../topic/guide)")


def test_a_label_of_the_name_on_a_new_page_is_found_without_checking_everything(
    srcdir: Path,
) -> None:
    """The link's answer is kept between builds (its page and the label's page are what
    it depends on, issue 27), yet a label of its name on a page added later takes it."""
    from sphinx_relocate.sphinx_ext.check import checks_of

    guide = srcdir / "topic" / "guide.md"
    guide.write_text("# Guide\n\n## HTML images\n\nText.\n", "utf-8")
    built = builds.build(srcdir)
    assert AMBIGUOUS not in COLOR.sub("", built.warnings)
    _, checks = checks_of(built.app.env)
    assert not checks["ref/config"].volatile  # checked again only when a page it names changes
    assert "topic/images" in checks["ref/config"].names

    (srcdir / "topic" / "labels.md").write_text(
        "---\norphan: true\n---\n\n# Labels\n\n(topic/images)=\n## Images\n\nText.\n", "utf-8")
    built = builds.build(srcdir)
    assert "ref/config" not in built.read
    assert COLOR.sub("", built.warnings).count(AMBIGUOUS) == 1
    assert href(built.outdir, "ref/config.html", "see here") == "../topic/labels.html#topic-images"


def test_a_link_that_names_a_folder_and_a_label_is_the_label_s_without_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """JupyterHub's changelog moved into ``reference/`` and links ``[x](rbac)``: from its
    old folder that is the folder ``rbac/``, which MyST links to no page, so MyST took the
    label ``rbac`` at the top of ``rbac/index`` then as now.  The build said nothing;
    ``rewrite`` called the link ambiguous between the label and a page ``../rbac``."""
    for name, text in {
        "conf.py": 'extensions = ["myst_parser", "sphinx_relocate"]\n',
        "relocations.toml": '[pages]\n"changelog" = "reference/changelog"\n',
        "index.md": "# Home\n\n```{toctree}\nreference/changelog\nrbac/index\n```\n",
        "reference/changelog.md": "# Changelog\n\nRead about [roles](rbac).\n",
        "rbac/index.md": "(rbac)=\n\n# RBAC\n\nText.\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    built = builds.build(tmp_path)
    assert "relocate" not in COLOR.sub("", built.warnings)
    assert href(built.outdir, "reference/changelog.html", "roles") == "../rbac/index.html#rbac"
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", ".", "--write"]) == 0
    assert "rbac" not in capsys.readouterr().err
    assert "[roles](rbac)" in (tmp_path / "reference/changelog.md").read_text("utf-8")
