"""Split and merged pages: every section id of the old page must land on a section.

A page split in two (``guide`` → ``guide/basics`` + ``guide/advanced``) is written as a
``[pages]`` entry for the half that keeps most of it plus an ``[anchors]`` entry for
each section that went to the other half.  ``from-git`` proposes those entries from the
old page's text in git; ``from-git --check`` and ``relocate_since`` name each section
id that would land on no section.
"""

from __future__ import annotations

import re
import sys
from io import StringIO
from pathlib import Path

import pytest
from reorg_fixture import first_commit, git, write_tree

from sphinx_relocate.cli.main import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONF = 'extensions = ["myst_parser", "sphinx_relocate"]\nmyst_heading_anchors = 3\n'
SOMETHING = "What else there is to say about the basics, in a few words of its own.\n"
TUNING = "Tuning the engine: set the cache size and the number of workers.\n"
OBSOLETE = "Nothing of this is kept anywhere.\n"

BEFORE = {
    "docs/conf.py": CONF,
    "docs/index.md": "# Home\n\n```{toctree}\nguide\nnotes\n```\n",
    "docs/notes.md": "# Notes\n\n## Release\n\nThe notes.\n",
    "docs/guide.md": (
        f"# Guide\n\n\n## Something else\n\n{SOMETHING}\n## Tuning\n\n{TUNING}\n"
        f"## Obsolete\n\n{OBSOLETE}\n"
        "## Caveats\n\nA short note on caveats that moves to the notes page.\n"
    ),
}
AFTER = {
    "docs/index.md": "# Home\n\n```{toctree}\nguide/basics\nguide/advanced\nnotes\n```\n",
    "docs/guide/basics.md": f"# Basics\n\n\n## Something else\n\n{SOMETHING}",
    "docs/guide/advanced.md": f"# Advanced\n\n\n## Tuning\n\n{TUNING}",
    "docs/notes.md": (
        "# Notes\n\n## Release\n\nThe notes.\n"
        "\n## Known limits\n\nA short note on caveats that moves to the notes page.\n"
    ),
}

#: the table a split needs: the page's fallback and the sections that went elsewhere
TABLE = """\
[pages]
"guide" = "guide/basics"

[anchors]
"guide#tuning" = "guide/advanced#tuning"
"guide#caveats" = "notes#known-limits"
"guide#obsolete" = "guide/basics#basics"
"""


def split_repo(root: Path, commit: bool = True) -> str:
    """``guide`` split into ``guide/basics`` and ``guide/advanced`` (one of its sections
    merged into ``notes``, one dropped); return the commit before."""
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root, BEFORE, {})
    base = first_commit(root, "before")
    (root / "docs/guide.md").unlink()
    write_tree(root, AFTER, {})
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "split the guide")
    return base


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    root = tmp_path / "repo"
    base = split_repo(root)
    monkeypatch.chdir(root)
    return root, base


def test_from_git_proposes_the_anchors_of_a_split_page(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, base = repo
    assert main(["from-git", "docs", "--since", base]) == 0
    out, err = capsys.readouterr()
    data = tomllib.loads(out)
    # each section found on the page it went to, by its id or (renamed) by its text
    assert data["anchors"] == {
        "guide#caveats": "notes#known-limits",
        "guide#something-else": "guide/basics#something-else",
        "guide#tuning": "guide/advanced#tuning",
    }
    assert "docs/guide: page deleted without a rename" in err
    # where its sections went, most first, for the author to choose its target from
    assert ('# "guide" = ""  # deleted; its sections went to notes (1), guide/basics (1), '
            "guide/advanced (1): needs a target") in out.splitlines()
    # once the page has its fallback, the sections that land there need no entry, the
    # one that went nowhere does
    (repo[0] / "docs/relocations.toml").write_text('[pages]\n"guide" = "guide/basics"\n')
    assert main(["from-git", "docs", "--since", base]) == 0
    out, err = capsys.readouterr()
    assert tomllib.loads(out) == {"anchors": {
        "guide#caveats": "notes#known-limits", "guide#tuning": "guide/advanced#tuning",
    }}
    assert '# "guide#obsolete" = ""  # removed: needs a target' in out
    assert "docs/guide#obsolete: section removed" in err


def test_from_git_check_names_each_section_that_lands_nowhere(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = repo
    table = root / "docs/relocations.toml"
    table.write_text('[pages]\n"guide" = "guide/basics"\n', "utf-8")
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"docs/notes.md:7: heading guide#caveats moved to notes#known-limits since {base} "
        "and has no [anchors] entry",
        f"docs/relocations.toml: heading guide#obsolete was removed since {base} and has "
        "no [anchors] entry",
        f"docs/guide/advanced.md:4: heading guide#tuning moved to guide/advanced#tuning "
        f"since {base} and has no [anchors] entry",
    ]
    assert "3 headings renamed or deleted" in err
    table.write_text(TABLE, "utf-8")
    assert main(["from-git", "docs", "--since", base, "--check"]) == 0
    assert "every page and heading renamed or deleted since" in capsys.readouterr().err


def test_uncommitted_split_is_checked_against_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    split_repo(root, commit=False)
    monkeypatch.chdir(root)
    (root / "docs/relocations.toml").write_text(
        TABLE.replace('"guide#tuning" = "guide/advanced#tuning"\n', ""), "utf-8"
    )
    assert main(["from-git", "docs", "--check"]) == 1
    out = capsys.readouterr().out
    assert "heading guide#tuning moved to guide/advanced#tuning since HEAD" in out
    assert out.count("\n") == 1


def test_relocate_since_warns_for_a_section_of_a_split_page(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    from sphinx.testing.util import SphinxTestApp

    root, base = repo
    docs = root / "docs"
    (docs / "conf.py").write_text(CONF + f"relocate_since = {base!r}\n", "utf-8")
    (docs / "relocations.toml").write_text(
        TABLE.replace('"guide#tuning" = "guide/advanced#tuning"\n', ""), "utf-8"
    )

    def unredirected() -> list[str]:
        warning = StringIO()
        app = SphinxTestApp("html", srcdir=docs, builddir=tmp_path / "build",
                            status=StringIO(), warning=warning,
                            confoverrides={"show_warning_types": True}, freshenv=True)
        try:
            app.build()
        finally:
            app.cleanup()
        lines = re.sub(r"\x1b\[[0-9;]*m", "", warning.getvalue()).splitlines()
        return [line for line in lines if "[relocate.unredirected]" in line]

    assert unredirected() == [
        f"{docs / 'guide/advanced.md'}:4: WARNING: heading guide#tuning moved to "
        f"guide/advanced#tuning since {base} and has no [anchors] entry "
        "[relocate.unredirected]",
    ]
    (docs / "relocations.toml").write_text(TABLE, "utf-8")
    assert unredirected() == []


def _build(srcdir: Path, out: Path, **overrides: object) -> list[str]:
    """Build ``srcdir`` with html; the ``relocate.unredirected`` warnings."""
    from sphinx.testing.util import SphinxTestApp

    warning = StringIO()
    app = SphinxTestApp("html", srcdir=srcdir, builddir=out, status=StringIO(),
                        warning=warning, freshenv=True,
                        confoverrides={"show_warning_types": True, **overrides})
    try:
        app.build()
    finally:
        app.cleanup()
    lines = re.sub(r"\x1b\[[0-9;]*m", "", warning.getvalue()).splitlines()
    return [line for line in lines if "[relocate.unredirected]" in line]


def test_a_published_label_or_object_of_a_split_page_is_followed_by_its_stub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without git: the release's objects.inv lists the label ``tuning-label`` and the
    function ``tune`` at ``guide.html#…``; both still exist, on the other half.  The
    release said what each fragment stood for, so the stub of ``guide`` sends it there
    (no ``[anchors]`` entry needed), and neither the build nor ``check`` asks for one."""
    labelled = "(tuning-label)=\n## Tuning"
    function = "\n```{py:function} tune(size)\n\nSet the cache size.\n```\n"

    def with_objects(text: str) -> str:
        return text.replace("## Tuning", labelled).replace(TUNING, TUNING + function)

    before, after = tmp_path / "before", tmp_path / "after"
    write_tree(before, {path.removeprefix("docs/"): with_objects(text)
                        for path, text in BEFORE.items()}, {})
    assert _build(before, tmp_path / "release") == []
    inventory = tmp_path / "release/html/objects.inv"
    pages = {**{k: v for k, v in BEFORE.items() if k != "docs/guide.md"}, **AFTER}
    write_tree(after, {path.removeprefix("docs/"): with_objects(text)
                       for path, text in pages.items()}, {})
    table = after / "relocations.toml"
    table.write_text(TABLE.replace('"guide#tuning" = "guide/advanced#tuning"\n', ""), "utf-8")
    assert _build(after, tmp_path / "out", relocate_published=str(inventory),
                  relocate_old_url_styles=["dirhtml"]) == []
    stub = (tmp_path / "out/html/guide.html").read_text("utf-8")
    assert '"tune":"guide/advanced.html#tune"' in stub
    assert '"tuning-label":"guide/advanced.html#tuning-label"' in stub
    # the old page's URL in its old style (the site was dirhtml): the same places
    styled = (tmp_path / "out/html/guide/index.html").read_text("utf-8")
    assert '"tune":"advanced.html#tune"' in styled
    monkeypatch.chdir(after)
    assert main(["check", ".", "--published", str(inventory)]) == 0
    capsys.readouterr()


DOMAINS = "Domains\n=======\n\n{body}"
PY_FIELDS = "Python info field lists: the Python directives take these fields.\n"
CPP_FIELDS = "All the C++ directives support the following info fields.\n"


@pytest.mark.parametrize("label", [".. _info-field-lists:\n\n", ""])
def test_a_repeated_heading_goes_where_its_first_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    label: str,
) -> None:
    """Sphinx's 2023 split of ``domains.rst``: the old page had two sections titled
    *Info field lists*, and the id ``info-field-lists`` was the first's (the Python
    domain's; the C++ one got ``id1``).  Each went to its domain's page, where each is
    ``info-field-lists`` again: the old id goes to the Python page, whose section is
    the old first one, not to whichever page's name sorts first (``cpp``)."""
    root = tmp_path / "repo"
    sections = (
        f"The Python Domain\n-----------------\n\n{label}Info field lists\n~~~~~~~~~~~~~~~~\n\n"
        f"{PY_FIELDS}\nThe C++ Domain\n--------------\n\nInfo field lists\n"
        f"~~~~~~~~~~~~~~~~\n\n{CPP_FIELDS}"
    )
    write_tree(root, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\n',
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   domains\n",
        "docs/domains.rst": DOMAINS.format(body=sections),
    }, {})
    base = first_commit(root, "before")
    write_tree(root, {
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   domains\n   python\n   cpp\n",
        "docs/domains.rst": DOMAINS.format(body="See the pages of each domain.\n"),
        "docs/python.rst": (f"The Python Domain\n=================\n\n{label}Info field lists\n"
                            f"----------------\n\n{PY_FIELDS}"),
        "docs/cpp.rst": (f"The C++ Domain\n==============\n\nInfo field lists\n"
                         f"----------------\n\n{CPP_FIELDS}"),
    }, {})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "split the domains")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    anchors = tomllib.loads(capsys.readouterr().out)["anchors"]
    assert anchors["domains#info-field-lists"] == "python#info-field-lists"


def test_a_heading_as_alike_to_two_sections_is_none_of_them() -> None:
    """Never a guess: two new sections with the old id and texts as alike to the old
    one leave it for a target (``from-git`` lists it)."""
    from sphinx_relocate.core.git import CLEARLY_MORE, Section, _elsewhere, _id_text_score

    old = Section(("setup",), 3, "Run the installer, then restart.\n")
    places = [(doc, f"docs/{doc}.rst", Section(("setup",), 3, old.body))
              for doc in ("linux", "windows")]
    assert _elsewhere(old, "install", {"setup": places}, places) is None
    better = (*places[1][:2], Section(("setup",), 3, old.body + "Then log in.\n"))
    assert _elsewhere(old, "install", {"setup": [places[0], better]},
                      [places[0], better]) == places[0]
    # the same by text alone, under new headings
    renamed = [(doc, path, Section((f"{doc}-setup",), 3, section.body))
               for doc, path, section in places]
    assert _elsewhere(old, "install", {}, renamed) is None
    renamed[1] = (*renamed[1][:2], Section(("windows-setup",), 3, better[2].body))
    assert _elsewhere(old, "install", {}, renamed) == renamed[0]
    # nearly as alike is two meanings too: NumPy's deleted PCG64 page's *Extending*, one
    # template filled in for each generator, was 0.75 like Xoshiro256's, 0.71 like 512's
    template = "Extending: the {} bit generator can be wrapped with ctypes and cffi.\n"
    gone = Section(("extending",), 9, template.format("PCG64"))
    near = [(doc, f"docs/{doc}.rst", Section(("extending",), 9, template.format(name)))
            for doc, name in (("xoshiro256", "Xoshiro256"), ("xoshiro512", "Xoshiro512"))]
    scores = [_id_text_score(gone, place[2]) for place in near]
    assert scores[0] != scores[1] and abs(scores[0] - scores[1]) < CLEARLY_MORE, scores
    assert _elsewhere(gone, "pcg64", {"extending": near}, []) is None


def test_past_the_pairs_compared_a_section_is_found_by_the_runs_of_words_it_kept(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spack split a page of 168 sections into four: every lost section against every
    new one was past the pairs compared, and renamed headings were lost.  Past it, a
    section is compared with the new ones that share runs of words with it."""
    import sphinx_relocate.core.git

    monkeypatch.setattr(sphinx_relocate.core.git, "MAX_TEXT_PAIRS", 0)
    assert main(["from-git", "docs", "--since", repo[1]]) == 0
    assert tomllib.loads(capsys.readouterr().out)["anchors"] == {
        "guide#caveats": "notes#known-limits",
        "guide#something-else": "guide/basics#something-else",
        "guide#tuning": "guide/advanced#tuning",
    }


def test_a_deleted_page_merged_into_another_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Jupyter Book's ``use/page`` went into ``start/build`` as one section: the entry
    for its target says where its sections went, for the author to confirm."""
    root = tmp_path / "repo"
    text = "You can build a single page with the command jupyter-book page, as HTML.\n"
    write_tree(root, {
        "docs/conf.py": CONF,
        "docs/index.md": "# Home\n\n```{toctree}\nuse/page\nstart/build\n```\n",
        "docs/use/page.md": f"# Build a standalone page\n\n{text}",
        "docs/start/build.md": "# Build\n\nBuild the book.\n",
    }, {})
    base = first_commit(root, "before")
    (root / "docs/use/page.md").unlink()
    write_tree(root, {
        "docs/index.md": "# Home\n\n```{toctree}\nstart/build\n```\n",
        "docs/start/build.md": (
            f"# Build\n\nBuild the book.\n\n## Build a standalone page\n\n{text}"
        ),
    }, {})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "merge the page")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    out, err = capsys.readouterr()
    assert ('# "use/page" = ""  # deleted; its sections went to start/build: needs a target'
            in out.splitlines())
    assert tomllib.loads(out)["anchors"] == {
        "use/page#build-a-standalone-page": "start/build#build-a-standalone-page"
    }
    assert ("docs/use/page: page deleted without a rename, its sections went to start/build; "
            "give it a target") in err


def test_a_heading_id_taken_by_another_section_of_the_page_goes_with_its_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spack's 2025 packaging guide swapped two sections titled *Dependency patching*:
    ``#dependency-patching`` named the patch directive's, and now names the
    ``depends_on`` one.  Every id was still on the page, so nothing was derived, and
    old links landed on the other section.  The section that kept the labels is the
    old one: its heading's id goes there (the build then warns that the page still
    uses the id, for the author to decide)."""
    root = tmp_path / "repo"

    def section(rule: str, label: str, text: str) -> str:
        return f".. _{label}:\n\nDep patching\n{rule * 12}\n\n{text}\n\n"

    patch = section("^", "patch_x", "Applying a patch to a dependency with the patch directive.")
    dep = section("^", "dep_x", "Passing patches to depends_on so the dependency is patched.")
    write_tree(root, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\n',
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   p\n",
        "docs/p.rst": f"P\n=\n\nPatches\n-------\n\n{patch}Dependencies\n------------\n\n{dep}",
    }, {})
    base = first_commit(root, "before")
    write_tree(root, {
        "docs/p.rst": f"P\n=\n\nDependencies\n------------\n\n{dep}Patches\n-------\n\n{patch}",
    }, {})
    git(root, "commit", "-q", "-am", "swap")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr().out) == {"anchors": {"p#dep-patching": "p#patch-x"}}
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1


@pytest.mark.parametrize(("before", "after", "entry"), [
    # two CJK titles around the same ASCII words are both onnx-tensorrt to docutils
    # before it numbers the second: the old title is not the second heading (mmdetection)
    ({"docs/tutorials/onnx.md": "# 教程 9: ONNX 到 TensorRT 的模型转换\n\nIntro text.\n\n"
                                "## 如何将模型从 ONNX 转换为 TensorRT\n\nBody.\n"},
     {"docs/user_guides/onnx.md": "# ONNX 到 TensorRT 的模型转换\n\nIntro text.\n\n"
                                  "## 如何将模型从 ONNX 转换为 TensorRT\n\nBody.\n"},
     ("tutorials/onnx#教程-9-onnx-到-tensorrt-的模型转换",
      "user_guides/onnx#onnx-到-tensorrt-的模型转换")),
    # sections that are one directive each are 63 % alike by their module names alone:
    # none of them is another (mmdetection's api.rst)
    ({"docs/api.rst": "API\n===\n\nanchor\n------\n\n.. automodule:: mmdet.core.anchor\n\n"
                      "export\n------\n\n.. automodule:: mmdet.core.export\n"},
     {"docs/api.rst": "API\n===\n\nhooks\n-----\n\n.. automodule:: mmdet.engine.hooks\n\n"
                      "runner\n------\n\n.. automodule:: mmdet.engine.runner\n"},
     None),
])
def test_no_section_is_taken_for_another_by_a_near_id_or_a_short_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    before: dict[str, str], after: dict[str, str], entry: tuple[str, str] | None,
) -> None:
    root = tmp_path / "repo"
    conf = 'extensions = ["myst_parser", "sphinx_relocate"]\nmyst_heading_anchors = 3\n'
    write_tree(root, {"docs/conf.py": conf, **before}, {})
    base = first_commit(root, "before")
    for path in before:
        (root / path).unlink()
    write_tree(root, after, {})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "after")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    anchors = tomllib.loads(capsys.readouterr().out).get("anchors", {})
    assert anchors == (dict([entry]) if entry else {})


def test_a_heading_goes_where_its_text_went_not_where_its_label_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JupyterLab moved *Core Tokens* (its text unchanged) to another page and put its
    label ``tokens`` on a new, different *Tokens* section: ``#core-tokens`` went with the
    label, to a section that does not hold its text."""
    tokens = "".join(f"- ``@lab/token{n}``: a service plugins can request.\n" for n in range(6))
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\n',
        "docs/dev.rst": f"Dev\n===\n\n.. _tokens:\n\nCore Tokens\n-----------\n\n{tokens}",
        "docs/points.rst": "Points\n======\n\nIntro.\n",
    }, {})
    base = first_commit(root, "before")
    write_tree(root, {
        "docs/dev.rst": "Dev\n===\n\n.. _tokens:\n\nTokens\n------\n\n"
                        "A service is identified by a token, an instance of Token.\n",
        "docs/points.rst": f"Points\n======\n\nIntro.\n\nCore Tokens\n-----------\n\n{tokens}",
    }, {})
    git(root, "commit", "-qam", "move the tokens")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr().out)["anchors"] == {
        "dev#core-tokens": "points#core-tokens"}


def test_a_label_goes_to_the_page_that_has_it_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pip moved ``reference/pip_install.rst`` to ``cli/`` and wrote a page saying "This
    page has moved" in its place; the old title's id was its label ``pip install``, which
    went with the text to ``cli/``, and it used to be given to the new page's title."""
    body = ("Usage\n-----\n\nRun the command with the right options to get the result.\n\n"
            "Description\n-----------\n\nThe command does things described here at length.\n")
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\n',
        "docs/reference/pip_install.rst":
            f".. _`pip install`:\n\npip install\n===========\n\n{body}",
    }, {})
    base = first_commit(root, "before")
    (root / "docs/cli").mkdir()
    git(root, "mv", "docs/reference/pip_install.rst", "docs/cli/pip_install.rst")
    write_tree(root, {
        "docs/reference/pip_install.rst": ":orphan:\n\nThis page has moved\n"
                                          "===================\n\nSee :doc:`../cli/pip_install`.\n",
    }, {})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "move to cli")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert tomllib.loads(capsys.readouterr().out)["anchors"] == {
        "reference/pip_install#pip-install": "cli/pip_install#pip-install",
        "reference/pip_install#usage": "cli/pip_install#usage",
        "reference/pip_install#description": "cli/pip_install#description",
    }


def test_a_near_tie_goes_to_the_page_where_the_rest_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pip's reference pages, each with a *Usage* one word from the next page's: the
    *Usage* of the page that went to ``cli/pip_install`` is that page's, word for word,
    and 0.97 like ``cli/pip_uninstall``'s, which used to leave it without an entry."""
    def page(command: str) -> str:
        return (f"pip {command}\n{'=' * (len(command) + 4)}\n\nUsage\n-----\n\n"
                f"python -m pip {command} [options] <requirement specifier> ...\n\n"
                f"Description\n-----------\n\nWhat pip {command} does to packages, {command}ed.\n")

    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\n',
        "docs/reference/install.rst": page("install"),
        "docs/reference/uninstall.rst": page("uninstall"),
    }, {})
    base = first_commit(root, "before")
    write_tree(root, {
        f"docs/{folder}/{command}.rst": text
        for command in ("install", "uninstall")
        for folder, text in (
            ("reference", f":orphan:\n\nMoved\n=====\n\nSee :doc:`../cli/{command}`.\n"),
            ("cli", page(command).replace("Description", "Overview")))
    }, {})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "move to cli")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    anchors = tomllib.loads(capsys.readouterr().out)["anchors"]
    assert anchors["reference/install#usage"] == "cli/install#usage"
    assert anchors["reference/uninstall#usage"] == "cli/uninstall#usage"


def test_a_label_left_above_another_section_does_not_take_the_heading_s_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """MyST-Parser's docs left ``(syntax/linkify)=`` above *Math shortcuts* and moved
    *Linkify*, its text and ``#linkify`` kept, further down: ``#linkify`` was sent to
    ``#math-shortcuts``, with no warning, by the rule for two sections that swapped."""
    linkify = "Linkify turns bare web addresses in the text into links, when enabled.\n"
    math = "Math shortcuts write dollar signs for inline and display mathematics.\n"
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": 'extensions = ["myst_parser", "sphinx_relocate"]\n'
                        "myst_heading_anchors = 2\n",
        "docs/optional.md": f"# Optional\n\n(syntax/linkify)=\n## Linkify\n\n{linkify}\n"
                            f"(syntax/math)=\n## Math shortcuts\n\n{math}",
    }, {})
    base = first_commit(root, "before")
    write_tree(root, {
        "docs/optional.md": f"# Optional\n\n(syntax/linkify)=\n(syntax/math)=\n"
                            f"## Math shortcuts\n\n{math}\n## Linkify\n\n{linkify}",
    }, {})
    git(root, "commit", "-qam", "reorder")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base]) == 0
    assert "linkify" not in capsys.readouterr().out


def test_an_id_the_page_keeps_without_a_heading_is_not_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """tox turned its *sdist* section into a list item and kept ``.. _sdist:`` above it:
    the page still has ``#sdist``, which ``from-git`` asked a target for."""
    root = tmp_path / "repo"
    write_tree(root, {
        "docs/conf.py": 'extensions = ["sphinx_relocate"]\n',
        "docs/install.rst": "Install\n=======\n\n.. _sdist:\n\nsdist\n-----\n\nFrom source.\n\n"
                            "wheel\n-----\n\nFrom a wheel.\n",
    }, {})
    base = first_commit(root, "before")
    write_tree(root, {
        "docs/install.rst": "Install\n=======\n\nWays:\n\n.. _sdist:\n\n- sdist, from source\n",
    }, {})
    git(root, "commit", "-qam", "shorter")
    monkeypatch.chdir(root)
    assert main(["from-git", "docs", "--since", base, "--check"]) == 1
    out = capsys.readouterr().out
    assert "install#wheel" in out and "sdist" not in out
