"""What several features ask of one build: its table, the project's labels, the site's
base URL.

They live here rather than in the feature that first needed them, so a feature reads
another's answers without importing that feature (and the package has no import
circle, ``tests/test_wiring.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sphinx_relocate.core.landing import BUILT_PAGES
from sphinx_relocate.sphinx_ext.state import state_of

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.domains.std import StandardDomain
    from sphinx.environment import BuildEnvironment

    from sphinx_relocate.core.table import RelocationTable


def table_of(app: Sphinx) -> RelocationTable:
    """The table of this build (read at ``config-inited``, ``events.load_table``)."""
    return state_of(app).table


def labels_of(env: BuildEnvironment) -> set[str]:
    """Every label of the project, as Sphinx's std domain knows them (once all are read)."""
    std = cast("StandardDomain", env.get_domain("std"))
    return {*std.labels, *std.anonlabels}


def labels_on(
    env: BuildEnvironment, docnames: Collection[str]
) -> dict[str, list[tuple[str, str]]]:
    """The labels (name, anchor) of each of ``docnames`` that has any."""
    std: Any = env.get_domain("std")
    found: dict[str, list[tuple[str, str]]] = {}
    for name, (docname, anchor) in std.anonlabels.items():
        if docname in docnames:
            found.setdefault(docname, []).append((name, anchor))
    return found


def label_places(env: BuildEnvironment) -> dict[str, tuple[str, str]]:
    """Every label of the project -> its page and anchor (Sphinx's std domain)."""
    std: Any = env.get_domain("std")
    return {name: (docname, anchor) for name, (docname, anchor) in std.anonlabels.items()}


def object_places(env: BuildEnvironment) -> Callable[[str, str], tuple[str, str] | None]:
    """Where an object of the build is, by its role and name as its inventory line names
    it (``py:function``, ``std:label``): ``(docname, anchor)``, ``None`` when there is
    none.  Every domain's objects are listed on the first question only."""
    places: dict[tuple[str, str], tuple[str, str]] | None = None

    def place_of(role: str, name: str) -> tuple[str, str] | None:
        nonlocal places
        if places is None:
            places = {}
            for domain in env.domains.values():
                for fullname, _, kind, docname, anchor, _ in domain.get_objects():
                    places.setdefault((f"{domain.name}:{kind}", fullname), (docname, anchor))
        return places.get((role, name))

    return place_of


def rendered_pages(app: Sphinx) -> set[str]:
    """The pages the builder renders without a document (the indices, ablog's, the 404
    page of sphinx-notfound-page), known once it has written them (``build-finished``).

    Sphinx before 9 renders none in a build where no page is out of date: the last
    build that rendered them, whose list is kept in the doctree folder, tells then.
    """
    builder: Any = app.builder
    kept = Path(app.doctreedir, f"relocate-rendered-{builder.name}.json")
    pages = state_of(app).rendered_pages - app.env.found_docs
    if state_of(app).rendered_pages:
        with contextlib.suppress(OSError):  # else a build that renders nothing finds none
            kept.write_text(json.dumps(sorted(pages)), "utf-8")
        return pages
    try:
        listed = json.loads(kept.read_text("utf-8"))
    except (OSError, ValueError):
        return set()
    return {page for page in listed if isinstance(page, str)} if isinstance(listed, list) else set()


def base_url(config: Config | Mapping[str, Any]) -> str:
    """``html_baseurl``, else the canonical URL Read the Docs sets in every build.

    Read the Docs no longer writes ``html_baseurl`` into conf.py (since 2024), so a
    project there gets absolute canonical links and prefixed exports with no setting.
    ``config`` may be the settings of conf.py, as the command line reads them.
    """
    configured = (
        config.get("html_baseurl") if isinstance(config, Mapping) else config.html_baseurl
    )
    return str(configured or os.environ.get("READTHEDOCS_CANONICAL_URL", ""))


def generated_pages(env: BuildEnvironment) -> set[str]:
    """The pages the HTML builders write without a source: the indices, search, and
    ``html_additional_pages`` (what the check accepts, and the rule reads a moved page's
    link to from its old folder: ``Project.generated``)."""
    pages = set(BUILT_PAGES)
    pages.update(getattr(env.config, "html_additional_pages", None) or {})
    for domain in env.domains.values():
        pages.update(f"{domain.name}-{index.name}" for index in domain.indices)
    return pages
