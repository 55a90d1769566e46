"""A Markdown link of a moved page that MyST found a page for is read as written.

MyST reads ``[text](path)`` from the page's folder now and keeps only the docname it
found, so the build recovers how the source wrote the link (``Resolver.written_as``)
before reading it from the page's old folder too. Only a written target whose last part
names the page can land on it (``_may_name``): the others are never read.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import builds
from hypothesis import given
from hypothesis import strategies as st

from sphinx_relocate.core.landing import Project, Site, land
from sphinx_relocate.core.table import RelocationTable
from sphinx_relocate.sphinx_ext.resolve import _may_name

FILES = {
    "conf.py": 'extensions = ["myst_parser", "sphinx_relocate"]\n'
               'exclude_patterns = ["_build"]\nshow_warning_types = True\n',
    "relocations.toml": '[pages]\n"old/p" = "new/p"\n',
    "index.md": "# Home\n\n```{toctree}\nnew/p\nnew/sib\nold/sib\nold/only-old\n```\n",
    # written in old/: the first link names new/sib from there as from new/, the
    # second lands only from old/ (its vote makes old/ the page's frame)
    "new/p.md": "# P\n\nSee [the new sibling](../new/sib.md) and [only](only-old.md).\n",
    "new/sib.md": "# New sibling\n",
    "old/sib.md": "# Old sibling\n",
    "old/only-old.md": "# Only old\n",
}


def test_a_link_myst_found_lands_as_its_source_wrote_it(tmp_path: Path) -> None:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    built = builds.build(tmp_path, fresh=True)
    assert "WARNING" not in built.warnings, built.warnings
    page = (built.outdir / "new" / "p.html").read_text("utf-8")
    paragraph = re.search(r"<p>See .*?</p>", page, re.DOTALL)
    assert paragraph is not None
    hrefs = re.findall(r'href="([^"]*)"', paragraph.group())
    # read from new/ by its written path ../new/sib.md, not as new/sib's path from
    # there (sib.md), which the frame would read from old/ (the old sibling)
    assert hrefs == ["sib.html", "../old/only-old.html"], hrefs


_PART = st.sampled_from(["..", ".", "a", "b", "page", "page.md", "page.html", "pa%67e.md",
                         "page.x", "pag", ""])


@given(folder=st.lists(st.sampled_from(["a", "b"]), max_size=2),
       parts=st.lists(_PART, min_size=1, max_size=5),
       fragment=st.sampled_from(["", "#x", "?q"]),
       reads_as=st.sampled_from(["page", "any"]))
def test_only_a_target_whose_last_part_names_the_page_lands_on_it(
    folder: list[str], parts: list[str], fragment: str, reads_as: str
) -> None:
    """Whatever lands on a page, read from any folder, passes ``_may_name``."""
    written = "/".join(parts) + fragment
    documents = {posixpath.join(*p) if p else "" for p in (
        [x, y, z] for x in ("a", "b", "page") for y in ("a", "b", "page", "pag")
        for z in ("page", "pag")
    )} | {"page", "pag", "a/page", "b/page", "a", "b"}
    project = Project(RelocationTable(), (".md",), "", documents.__contains__,
                      lambda path: False, lambda path: False)
    landing = land(written, reads_as, Site(("/".join(folder),), ""), project)  # type: ignore[arg-type]
    if landing is None or landing.lands_on != "page" or not landing.exists:
        return
    assert _may_name(written, landing.target.rpartition("/")[2]), (written, landing)
