"""The pages an HTML template links with ``pathto('name')``: followed and checked.

A project's templates (``templates_path``: a footer's ``pathto('copyright')``, a
landing page's ``pathto('tutorial/index')``) are no documents: Sphinx turns the name
into a URL when it renders a page, and says nothing when no page has that name.  So at
``html-page-context`` the template's ``pathto`` follows the table (an old name links the
page it moved to, or the URL it went to), and once the build has rendered its pages
each name a template writes is checked: one that no document, page the builder rendered
or table entry answers is a ``relocate.link`` warning at the template's line, on every
build.  ``rewrite`` writes the new names into the templates (``core.spans``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from sphinx_relocate.core.spans import SPHINX_LABELS, template_targets
from sphinx_relocate.core.table import Target
from sphinx_relocate.sphinx_ext.queries import rendered_pages, table_of
from sphinx_relocate.sphinx_ext.record import Reference
from sphinx_relocate.sphinx_ext.state import Finding, state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn


def moved_page(app: Sphinx, name: str) -> Target | None:
    """Where the table sends a page name a template writes, when it is no document now
    and the table lands it on one (or on a URL)."""
    documents = app.env.found_docs
    if name in documents:
        return None
    # a theme asks the same few names (genindex, search) on every page it renders
    known = state_of(app).template_pages
    if name not in known:
        target = table_of(app).locate_page(name, documents.__contains__)
        known[name] = target if target is not None and (
            target.url or target.path in documents) else None
    return known[name]


def follow_pathto(app: Sphinx, context: dict[str, Any]) -> None:
    """Make the page's ``pathto`` send an old page name where the table moved it, and
    its ``hasdoc`` say such a name is there (a footer shows its link only then)."""
    pathto, hasdoc = context.get("pathto"), context.get("hasdoc")
    if not callable(pathto) or not table_of(app):
        return
    original: Callable[..., str] = pathto
    # the templates call both on every link of every page: a document's name, nearly
    # every one they ask, is answered here without a call
    documents = app.env.found_docs
    if callable(hasdoc):
        asked: Callable[[str], bool] = hasdoc
        context["hasdoc"] = lambda name: asked(name) or (
            isinstance(name, str) and name not in documents and moved_page(app, name) is not None
        )

    def followed(otheruri: str, resource: bool = False, *args: Any, **kwargs: Any) -> str:
        if resource or not isinstance(otheruri, str) or otheruri in documents:
            return original(otheruri, resource, *args, **kwargs)
        target = moved_page(app, otheruri)
        if target is None:
            return original(otheruri, resource, *args, **kwargs)
        if target.url:
            return target.url
        uri = original(target.path, resource, *args, **kwargs)
        return f"{uri.partition('#')[0]}#{target.anchor}" if target.anchor else uri

    context["pathto"] = followed


def template_links(app: Sphinx) -> list[tuple[Path, int, str, bool]]:
    """``(file, line, page name, guarded)`` of each ``pathto('name')`` in the project's
    templates (the folders of ``templates_path`` in its conf or source folder, not those
    a theme adds); ``guarded``: the same template asks ``hasdoc('name')``, so it links the
    page only where there is one (as the basic theme's footer does for ``copyright``)."""
    found: list[tuple[Path, int, str, bool]] = []
    project = (Path(app.confdir).resolve(), Path(app.srcdir).resolve())
    for folder in app.config.templates_path or ():
        top = Path(app.confdir, folder).resolve()
        if not any(top.is_relative_to(base) for base in project):
            continue  # a theme's own folder (pydata-sphinx-theme adds its components)
        for current, folders, names in os.walk(top):
            folders.sort()
            for name in sorted(names):
                if not name.endswith((".html", ".htm")):
                    continue
                path = Path(current, name)
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                spans = template_targets(text)
                asked = {text[s.start : s.end] for s in spans if s.syntax == "hasdoc"}
                for span in spans:
                    name = text[span.start : span.end]
                    if span.syntax == "pathto":
                        line = text.count("\n", 0, span.start) + 1
                        found.append((path, line, name, name in asked))
    return found


def check_template_links(app: Sphinx) -> None:
    """Warn for each page name a template writes that lands nowhere, at its line; with
    ``relocate_report_rewrites``, note each old name the table sends on."""
    if app.builder.format != "html" or state_of(app).report is None:
        return
    documents = app.env.found_docs
    rendered: set[str] | None = None
    for path, line, name, guarded in template_links(app):
        if name in documents or name in SPHINX_LABELS:  # genindex, modindex, …
            continue
        target = moved_page(app, name)
        if target is not None:
            if app.config.relocate_report_rewrites:
                now = target.url or (f"{target.path}#{target.anchor}" if target.anchor
                                     else target.path)
                warn(RelocateWarning.OUTDATED,
                     f"pathto({name!r}) names an old page; it now links {now!r}",
                     location=f"{path}:{line}")
            continue
        if guarded:
            continue
        if rendered is None:
            rendered = rendered_pages(app)
        if name in rendered:  # genindex, search, an index or a page of an extension
            continue
        message = f"pathto({name!r}) does not land: no document {name!r}"
        reference = Reference("", line, RelocateWarning.LINK, name, name, True, source=str(path))
        warn(RelocateWarning.LINK, message, location=f"{path}:{line}")
        state_of(app).report.findings.append(  # type: ignore[union-attr]
            Finding(reference, RelocateWarning.LINK, message)
        )
