"""The links of the HTML files ``html_extra_path`` copies: checked like every other.

A project's extra files (a landing page, a ``404.html`` written by hand, a page kept
from an older site) are copied into the output as they are: no document, so Sphinx
reads none of their links, and a link to a page that was deleted or renamed without an
entry is a 404 that no build warns about.  Once the output is written, each relative
``href``/``src`` of those files is read from where the file is served; one that
nothing serves (no page, file, redirect stub or server rule: ``core.history.served``)
or that names a fragment its page does not have is a ``relocate.link`` warning at the
file's line, on every build.  ``rewrite`` writes the new URLs of moved pages into them.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util.matching import Matcher

from sphinx_relocate.core.history import (
    ClosestPages,
    extra_files,
    page_candidates,
    served,
)
from sphinx_relocate.core.html import find_urls
from sphinx_relocate.core.landing import EXTERNAL
from sphinx_relocate.core.paths import decode, leaves_root, split_target
from sphinx_relocate.sphinx_ext.check import SITE_BUILDERS, has_anchor
from sphinx_relocate.sphinx_ext.published import output_path, written_output
from sphinx_relocate.sphinx_ext.queries import rendered_pages
from sphinx_relocate.sphinx_ext.record import Reference, anchors_of
from sphinx_relocate.sphinx_ext.state import Finding, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn


def extra_links(app: Sphinx) -> list[tuple[Path, int, str, str]]:
    """``(file, line, link as written, site path it names)`` of each relative link of
    the HTML files ``html_extra_path`` copies that may not land: one to no other such
    file (a link that leaves the site, a site-absolute one and one to the file's own
    fragments are left out).

    A tree of generated HTML (Doxygen's) may hold thousands of files linking each
    other, which no table entry moves: what a file links is kept in the doctree folder
    by its size and time, the links to the tree's own files as the paths they name, so
    a build reads a file again only when it changed or one of those paths went.
    """
    found: list[tuple[Path, int, str, str]] = []
    files = extra_files(Path(app.confdir), app.config.html_extra_path or (),
                        Matcher(app.config.exclude_patterns))
    kept_file = Path(app.doctreedir, "relocate-extra-links.json")
    try:
        kept = json.loads(kept_file.read_text("utf-8"))
    except (OSError, ValueError):
        kept = {}
    if not isinstance(kept, dict):
        kept = {}
    now: dict[str, list[Any]] = {}
    for site_path, path in sorted(files.items()):
        if not site_path.endswith((".html", ".htm")):
            continue
        try:
            stat = path.stat()
        except OSError:
            continue
        links = _kept_links(kept.get(site_path), stat.st_size, stat.st_mtime_ns, files)
        if links is None:
            outside, inside = _links_in(path, site_path, files)
            links = [(line, written, target) for line, written, target in outside]
            now[site_path] = [stat.st_size, stat.st_mtime_ns, outside, sorted(inside)]
        else:
            now[site_path] = kept[site_path]
        found.extend((path, line, written, target) for line, written, target in links)
    if now != kept:
        with contextlib.suppress(OSError):
            kept_file.write_text(json.dumps(now), "utf-8")
    return found


def _kept_links(
    known: object, size: int, mtime: int, files: Mapping[str, Path]
) -> list[tuple[int, str, str]] | None:
    """The links kept for a file of that size and time, ``None`` when it must be read
    again: it changed, a file it linked went, or what was kept is not of this form."""
    if not (isinstance(known, list) and len(known) == 4 and known[:2] == [size, mtime]
            and isinstance(known[2], list) and isinstance(known[3], list)):
        return None
    links: list[tuple[int, str, str]] = []
    for link in known[2]:
        if not (isinstance(link, list) and len(link) == 3 and isinstance(link[0], int)
                and isinstance(link[1], str) and isinstance(link[2], str)):
            return None
        links.append((link[0], link[1], link[2]))
    if not all(isinstance(target, str) and target in files for target in known[3]):
        return None
    return links


def _links_in(
    path: Path, site_path: str, files: Mapping[str, Path]
) -> tuple[list[tuple[int, str, str]], set[str]]:
    """``(line, link, site path)`` of each relative ``href``/``src`` of an HTML file
    served at ``site_path``, but for those to one of ``files``, whose paths come second."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], set()
    folder = posixpath.dirname(site_path)
    outside: list[tuple[int, str, str]] = []
    inside: set[str] = set()
    line, counted = 1, 0  # the URLs come in document order: count lines as they come
    for url in find_urls(text):
        written = url.value
        if not written or written.startswith(("#", "/", "?")) or EXTERNAL.match(written):
            continue
        link = decode(split_target(written)[0])
        target = posixpath.normpath(posixpath.join(folder, link))
        if leaves_root(target) or target == ".":
            continue
        if target in files:
            inside.add(target)
            continue
        line += text.count("\n", counted, url.start)
        counted = url.start
        outside.append((line, written, target + ("/" if link.endswith("/") else "")))
    return outside, inside


def check_extra_links(app: Sphinx) -> None:
    """Warn for each link of an extra HTML file that lands nowhere, at its line."""
    state = state_of(app)
    if (app.builder.name not in SITE_BUILDERS or state.report is None
            or not app.config.html_extra_path):
        return
    links = extra_links(app)
    if not links:
        return
    env = app.env
    output = written_output(app)
    documents, table, outputs = output.documents, output.table, output.outputs
    folders = [old for old, _ in output.folders]
    rendered = rendered_pages(app)
    anchors = anchors_of(env)
    hints: ClosestPages | None = None
    ignore = state.settings.ignore
    answers: dict[str, bool] = {}  # site path → whether it is served (a tree of
    # generated HTML links the same files thousands of times)
    for path, line, written, site_path in links:
        if ignore and any(p.match(written) or p.match(site_path) for p in ignore):
            continue
        names = page_candidates(site_path)
        fragment = decode(split_target(written)[2]) if "#" in written else ""
        page = next((name for name in names if name in documents), None)
        answer = answers.get(site_path)
        if answer is None:
            if page is not None and site_path.endswith(("/", ".html")):
                # a page of this build, at the URL its builder writes (a URL without
                # either, servers answer by either: GitHub Pages' x.html, a folder's x/)
                file = site_path + "index.html" if site_path.endswith("/") else site_path
                answer = file in outputs
            else:
                answer = any(name in rendered for name in names) or served(
                    site_path, names, documents, table, is_file=output.is_file, folders=folders)
            answers[site_path] = answer
        if answer:
            if not fragment or page is None or has_anchor(anchors, page, fragment):
                continue
            message = f"link {written!r} does not land: page {page!r} has no anchor {fragment!r}"
        elif page is not None:
            url = output_path(app, page)
            url = url.removesuffix("index.html") if app.builder.name == "dirhtml" else url
            message = (f"link {written!r} does not land: the {app.builder.name} builder "
                       f"writes page {page!r} at {url!r}")
        else:
            hints = hints or ClosestPages(documents)
            hint = hints.closest(names or [site_path])
            message = (f"link {written!r} does not land: nothing the build serves is at "
                       f"{site_path!r} (no page, file, redirect stub or server rule)")
            if hint:
                message += f"; the closest page now is {hint}"
        reference = Reference("", line, RelocateWarning.LINK, written, site_path, False,
                              source=str(path))
        warn(RelocateWarning.LINK, message, location=f"{path}:{line}")
        state.report.findings.append(Finding(reference, RelocateWarning.LINK, message))
