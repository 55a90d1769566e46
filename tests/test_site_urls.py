"""Absolute URLs of the published site (``html_baseurl``) to pages the table moved.

ms-swift's Chinese docs link their own pages as
``https://swift.readthedocs.io/zh-cn/latest/Customization/%E8%87%AA….html``.  The build
sends such a URL on to the moved page's URL; ``rewrite`` (and ``mv``) left it as
written, so ``relocate_report_rewrites`` failed a ``-W`` gate that no command could
fix.  Both now do the same: the new page's URL in the written spelling (``.html`` or a
``dirhtml`` folder, percent-encoded or not), fragment kept; another version of the
site is history, left alone.  A warning names the link's own line, however MyST
spelled its URL.
"""

from __future__ import annotations

import re
from pathlib import Path

import builds
import pytest

from sphinx_relocate.cli.main import main

SITE = "https://site.example/zh/latest"
LINKS = [
    f"- [a]({SITE}/old.html)",
    f"- [b]({SITE}/%E6%97%A7.html)",
    f"- [c]({SITE}/旧.html)",
    f"- [d]({SITE}/%E6%97%A7.html#id1)",
    f"- [e]({SITE}/old/)",
    "- [f](https://site.example/zh/v1.0/old.html)",
]
REWRITTEN = [
    f"- [a]({SITE}/new.html)",
    f"- [b]({SITE}/%E5%91%BD%E4%BB%A4%E8%A1%8C%E5%8F%82%E6%95%B0.html)",
    f"- [c]({SITE}/命令行参数.html)",
    f"- [d]({SITE}/%E5%91%BD%E4%BB%A4%E8%A1%8C%E5%8F%82%E6%95%B0.html#id1)",
    f"- [e]({SITE}/new/)",
    "- [f](https://site.example/zh/v1.0/old.html)",
]


def _conf(tmp_path: Path, base: str, extensions: list[str]) -> Path:
    """A docs folder whose conf.py publishes the site at ``base``."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        f'extensions = {extensions!r}\nhtml_baseurl = "{base}/"\nshow_warning_types = True\n'
    )
    return docs


def _docs(tmp_path: Path, base: str = SITE) -> Path:
    docs = _conf(tmp_path, base, ["myst_parser", "sphinx_relocate"])
    (docs / "relocations.toml").write_text('[pages]\n"old" = "new"\n"旧" = "命令行参数"\n')
    (docs / "new.md").write_text("# New\n")
    (docs / "命令行参数.md").write_text("# 命令行参数\n")
    (docs / "index.md").write_text(
        "# Home\n\n```{toctree}\nnew\n命令行参数\n```\n\n" + "\n".join(LINKS) + "\n"
    )
    return docs


def _outdated(warnings: str, docs: Path) -> list[str]:
    return [line.split(": WARNING: ")[0].removeprefix(f"{docs}/")
            for line in builds.COLOR.sub("", warnings).splitlines()
            if line.endswith("[relocate.outdated]")]


#: conda's html_baseurl names the project's root on Read the Docs, which serves its pages
#: under /<language>/<version>/ below it
ROOT = "https://site.example"


@pytest.mark.parametrize("base", [SITE, ROOT])
def test_the_build_and_rewrite_send_site_urls_to_the_moved_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: str
) -> None:
    docs = _docs(tmp_path, base)
    built = builds.build(docs, confoverrides={"relocate_report_rewrites": True})
    # each at its own line: MyST gives the raw one percent-encoded, as the next one
    assert _outdated(built.warnings, docs) == [f"index.md:{n}" for n in (8, 9, 10, 11, 12)]
    hrefs = re.findall(r'href="(https://site[^"]*)"', (built.outdir / "index.html").read_text())
    assert [f"{SITE}/new.html", f"{SITE}/new.html"] == [h for h in hrefs if "new" in h][:2]
    assert main(["rewrite", str(docs), "--write"]) == 0
    assert "site-url 5" in capsys.readouterr().err
    assert (docs / "index.md").read_text().splitlines()[7:] == REWRITTEN
    again = builds.build(docs, fresh=True, confoverrides={"relocate_report_rewrites": True})
    assert _outdated(again.warnings, docs) == []


def test_a_base_url_above_the_language_and_version_checks_todays_pages(tmp_path: Path) -> None:
    """conda's ``html_baseurl`` is its project's root on Read the Docs, without the
    ``/en/latest/`` its pages are served under: links to them warned as dangling in a
    healthy project.  The version's pages are today's (``latest``, ``stable``); another
    version's are history, not checked; a project folder of the same name wins."""
    docs = _conf(tmp_path, ROOT, ["sphinx_relocate"])
    (docs / "page.rst").write_text("Page\n====\n")
    (docs / "de" / "v2").mkdir(parents=True)
    (docs / "de" / "v2" / "intro.rst").write_text("Intro\n=====\n")
    links = ["en/latest/page.html", "en/stable/page.html", "pt-br/latest/page.html",
             "en/latest/", "en/4.12.x/gone.html", "de/v2/intro.html", "en/latest/gone.html"]
    (docs / "index.rst").write_text(
        "Home\n====\n\n.. toctree::\n\n   page\n   de/v2/intro\n\n"
        + "\n".join(f"* `{n} <{ROOT}/{link}>`_" for n, link in enumerate(links)) + "\n"
    )
    built = builds.build(docs, fresh=True)
    found = [line for line in builds.COLOR.sub("", built.warnings).splitlines()
             if "WARNING" in line]
    assert len(found) == 1, found
    assert f"site url '{ROOT}/en/latest/gone.html' does not land: no document 'gone'" in found[0]
