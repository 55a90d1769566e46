"""``sphinx-relocate import``: the peers' tables as ``relocations.toml``, printed or merged."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from sphinx_relocate.cli.main import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOTS = Path(__file__).parent / "roots"
DOCS = Path(__file__).parent.parent / "docs"
IGNORED = shutil.ignore_patterns("_build")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def reredirects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(ROOTS / "test-reredirects", docs, ignore=IGNORED)
    monkeypatch.chdir(tmp_path)
    return docs


def test_prints_the_equivalent_table(reredirects: Path, capsys) -> None:
    status, out, err = run(capsys, "import", "docs")
    assert status == 0
    assert out.splitlines() == [
        "[pages]",
        '"setup" = "install"  # docs/conf.py:7: redirects "setup": "install.html"',
        '"install/requirements" = "https://web.com/docs/requirements.html"  # docs/conf.py:8: '
        'redirects "install/requirements": "https://web.com/docs/requirements.html"',
        '"faq/old" = "faq/two"  # docs/conf.py:9: redirects "faq/old": "two.html"',
        '"faq/deep/gone" = "faq/one#the-answer"  # docs/conf.py:10: redirects "faq/deep/gone": '
        '"../one.html#the-answer"',
        '"news" = "rn"  # docs/conf.py:11: redirects "news": "/rn.html"',
        "",
        "[patterns]",
        "# sphinx-reredirects replaced 'install' with redirects; they stay pages unless this "
        'is { to = "go-to-${source}", replace = true }',
        '"*all" = { to = "go-to-${source}", peer = "sphinx-reredirects" }  # docs/conf.py:13: '
        'redirects "*all": "go-to-${source}"',
        "# sphinx-reredirects replaced 'faq/one', 'faq/two' with redirects; they stay pages "
        'unless this is { to = "https://new.com/$source.html", replace = true }',
        '"faq/*" = { to = "https://new.com/$source.html", peer = "sphinx-reredirects" }  '
        '# docs/conf.py:12: redirects "faq/*": "https://new.com/$source.html"',
    ]
    assert tomllib.loads(out)["patterns"]["faq/*"] == {
        "to": "https://new.com/$source.html", "peer": "sphinx-reredirects"
    }
    assert "7 entries imported" in err
    assert not (reredirects / "relocations.toml").exists()


def test_write_merges_into_the_table_and_keeps_what_is_there(reredirects: Path, capsys) -> None:
    table = reredirects / "relocations.toml"
    table.write_text('# ours\n[pages]\n"setup.rst" = "install"  # same target\n', "utf-8")
    status, _, err = run(capsys, "import", "docs", "--write")
    assert status == 0
    assert "docs/relocations.toml: added 6 entries (1 already in the table); redirects" in err
    text = table.read_text("utf-8")
    assert text.startswith('# ours\n[pages]\n"setup.rst" = "install"  # same target\n"install/')
    data = tomllib.loads(text)
    assert sorted(data["pages"]) == [
        "faq/deep/gone", "faq/old", "install/requirements", "news", "setup.rst"
    ]
    assert list(data["patterns"]) == ["*all", "faq/*"]
    # a second run adds nothing; the build reads both and they agree
    status, _, err = run(capsys, "import", "docs", "--write")
    assert (status, table.read_text("utf-8")) == (0, text)
    assert "added 0 entries (7 already in the table)" in err
    # the same findings as from conf.py's redirects alone: the pages the globs kept
    status, out, _ = run(capsys, "check", "docs")
    assert status == 1
    assert [line.split(": ", 1)[1].split(" matches ")[0] for line in out.splitlines()] == [
        "[patterns] '*all'", "[patterns] 'faq/*'"
    ]


def test_an_entry_with_another_target_is_never_overwritten(reredirects: Path, capsys) -> None:
    table = reredirects / "relocations.toml"
    table.write_text('[pages]\n"setup" = "rn"\n', "utf-8")
    status, out, err = run(capsys, "import", "docs", "--write")
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        "sphinx-relocate: error: docs/conf.py:7: redirects \"setup\": \"install.html\" would "
        "move 'setup' to 'install', but docs/relocations.toml:2 already moves it to 'rn'; "
        "import never overwrites an entry: change one of them"
    ]
    assert table.read_text("utf-8") == '[pages]\n"setup" = "rn"\n'


def test_rediraffe_file(tmp_path: Path, monkeypatch, capsys) -> None:
    shutil.copytree(ROOTS / "test-rediraffe", tmp_path / "docs", ignore=IGNORED)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "import", "docs")
    assert status == 0
    lines = out.splitlines()
    assert lines[:3] == [
        "[pages]",
        '"tof1" = "docs/folder1/f1"  # docs/redirects.txt:2: tof1.rst                  '
        "docs\\folder1\\f1.rst",
        '"docs/folder1/tof1" = "docs/folder1/f1"  # docs/redirects.txt:3: '
        "docs/folder1\\tof1.rst     docs/folder1/f1.rst",
    ]
    pages = tomllib.loads(out)["pages"]
    assert pages["old page"] == "my page"
    assert pages["docs/x.y.z"] == "docs/a.b.c"
    assert len(pages) == 23


def test_rediraffe_dict_with_a_peer_still_loaded(tmp_path: Path, monkeypatch, capsys) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(ROOTS / "test-rediraffe-dict", docs, ignore=IGNORED)
    conf = docs / "conf.py"
    conf.write_text(conf.read_text("utf-8").replace('"sphinx_relocate"', '"sphinxext.rediraffe"'))
    monkeypatch.chdir(tmp_path)
    # check leaves a loaded peer's table alone (and says it checked nothing); import
    # reads it, to replace the peer
    status, _, err = run(capsys, "check", "docs")
    assert status == 2
    assert err.strip().endswith(
        "rediraffe_redirects is left to sphinxext.rediraffe, which conf.py loads): "
        "nothing to check"
    )
    status, out, _ = run(capsys, "import", "docs")
    assert status == 0
    line = '"F1/1" = "F1/2"  # docs/conf.py:18: rediraffe_redirects "F1\\\\1.rst": "F1/2.rst"'
    assert line in out.splitlines()
    assert len(tomllib.loads(out)["pages"]) == 25


BAD = {
    "loop": ("a.rst b.rst\nb.rst a.rst\n", "docs/redirects.txt:1: relocation cycle: a → b → a"),
    "bad line": ("a.rst\n", "docs/redirects.txt:1: expected two paths, old and new"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_broken_peer_table_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, case) -> None:
    text, words = BAD[case]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('rediraffe_redirects = "redirects.txt"\n', "utf-8")
    (docs / "redirects.txt").write_text(text, "utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "import", "docs")
    assert (status, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(f"sphinx-relocate: error: {words}")


def test_nothing_to_import(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/conf.py").write_text("", "utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "import", "docs")
    assert (status, out) == (0, "")
    assert "nothing to import" in err


# -- the docs' example is what the command prints ---------------------------------------


def switching_blocks() -> list[tuple[str, str]]:
    """The fenced blocks of the Switching section of docs/comparison.md: (language, text)."""
    text = (DOCS / "comparison.md").read_text("utf-8")
    section = text.split("\n## Switching\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```(\w*)\n(.*?)^```$", section, re.S | re.M)


def test_the_docs_show_what_import_prints(tmp_path: Path, monkeypatch, capsys) -> None:
    blocks = switching_blocks()
    confs = [
        body for lang, body in blocks if lang == "python" and "redirects = " in body
    ]
    outputs = [body for lang, body in blocks if lang == "toml"]
    (redirects_txt,) = [body for lang, body in blocks if lang == "text"]
    assert len(confs) == 2 and len(outputs) == 2
    monkeypatch.chdir(tmp_path)
    for number, (conf, expected) in enumerate(zip(confs, outputs, strict=True)):
        docs = tmp_path / str(number) / "docs"
        docs.mkdir(parents=True)
        (docs / "conf.py").write_text(conf, "utf-8")
        (docs / "redirects.txt").write_text(redirects_txt, "utf-8")
        (docs / "index.rst").write_text("Home\n====\n", "utf-8")
        monkeypatch.chdir(docs.parent)
        status, out, _ = run(capsys, "import", "docs")
        assert status == 0
        assert out == expected


def test_an_imported_whole_site_pattern_warns_as_conf_py_does(
    tmp_path: Path, monkeypatch, capsys, make_app
) -> None:
    """sphinx-reredirects' ``"*"`` replaced every page; read from conf.py the pattern
    keeps the pages and the build says so.  Imported, it says the same: the import keeps
    the peer the glob was written for (``peer = …``), so the table is the same table."""
    from sphinx.util.console import strip_colors

    docs = tmp_path / "docs"
    conf = ('extensions = ["sphinx_relocate"]\nhtml_theme = "basic"\n'
            'show_warning_types = True\n'  # Sphinx 7.4 does not add "[relocate.x]" by default
            'redirects = {"*": "https://new.example/docs/$source.html"}\n')
    (docs / "guide").mkdir(parents=True)
    (docs / "conf.py").write_text(conf, "utf-8")
    (docs / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   guide/intro\n", "utf-8")
    (docs / "guide/intro.rst").write_text("Intro\n=====\n", "utf-8")
    monkeypatch.chdir(tmp_path)

    def relocate_warnings() -> list[str]:
        app = make_app("html", srcdir=docs, freshenv=True)
        app.build()
        lines = strip_colors(app._warning.getvalue()).splitlines()
        return [line.split("WARNING: ", 1)[1] for line in lines
                if "WARNING: " in line and "[relocate." in line]

    from_conf = relocate_warnings()
    assert any("'*' matches 'guide/intro', 'index', which sphinx-reredirects replaced" in w
               for w in from_conf), from_conf
    assert run(capsys, "import", "docs", "--write")[0] == 0
    status, _, err = run(capsys, "import", "docs")  # a second import finds it there
    assert status == 0 and "(1 already in the table)" in err
    (docs / "conf.py").write_text(conf.split("redirects =")[0], "utf-8")
    assert relocate_warnings() == from_conf
    assert run(capsys, "check", "docs")[1].splitlines() == [
        "docs/relocations.toml:3: [patterns] '*' matches 'guide/intro', 'index', which "
        "sphinx-reredirects replaced with redirects; here they stay pages (a pattern "
        "replaces documents only with replace = true, in relocations.toml)"
    ]
