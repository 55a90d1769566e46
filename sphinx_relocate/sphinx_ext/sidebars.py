"""Sidebar keys that name pages the table moved: followed, or warned about.

A key of ``html_sidebars`` (and of pydata-sphinx-theme's ``secondary_sidebar_items``)
is a page name or a pattern of them (``"install": []``, ``"api/**": [...]``).  When the
page moves, the key matches nothing and the page gets the theme's default sidebars, with
no word from Sphinx.  So once the documents are known, each key that matches no
document is carried through the table as a link would be
(``core.landing.moved_sidebar_key``), and the pages it lands on get its sidebars when
they are rendered; a key the table moved where no key can follow (a page that became a
URL, a pattern whose pages went to different folders) is a ``relocate.sidebar`` warning
at its line of conf.py, on every build.  ``rewrite`` writes the new keys into conf.py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.matching import patmatch

from sphinx_relocate.core.landing import lost_sidebar_key, moved_sidebar_key
from sphinx_relocate.core.paths import SIDEBAR_WILDCARDS
from sphinx_relocate.core.spans import SIDEBAR_SETTINGS, sidebar_keys
from sphinx_relocate.sphinx_ext.queries import table_of
from sphinx_relocate.sphinx_ext.state import state_of
from sphinx_relocate.sphinx_ext.warnings import RelocateWarning, warn


def keyed_settings(app: Sphinx) -> dict[str, Mapping[Any, Any]]:
    """Each setting whose keys name pages, as conf.py sets it (those left unset or not
    a mapping are left out)."""
    found: dict[str, Mapping[Any, Any]] = {}
    sidebars = getattr(app.config, "html_sidebars", None)
    if isinstance(sidebars, Mapping) and sidebars:
        found["html_sidebars"] = sidebars
    options = getattr(app.config, "html_theme_options", None)
    secondary = options.get("secondary_sidebar_items") if isinstance(options, Mapping) else None
    if isinstance(secondary, Mapping) and secondary:
        found["secondary_sidebar_items"] = secondary
    return found


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> None:
    """Work out which keys move (for :func:`follow_sidebars`), and warn for those that
    named moved pages and cannot follow them."""
    state = state_of(app)
    state.moved_sidebars = {}
    table = table_of(app)
    if not table or app.builder.format != "html":
        return
    documents = env.found_docs
    lines: dict[tuple[str, str], int] | None = None
    for setting, keys in keyed_settings(app).items():
        for key in keys:
            if not isinstance(key, str):
                continue
            moved = moved_sidebar_key(key, table, documents)
            if moved is not None and moved not in keys:  # a key for the new name wins
                state.moved_sidebars.setdefault(setting, {})[key] = moved
                if app.config.relocate_report_rewrites:
                    lines = _key_lines(app) if lines is None else lines
                    warn(RelocateWarning.OUTDATED,
                         f"{setting} key {key!r} names old pages; it now applies to {moved!r}",
                         location=_location(app, lines, setting, key))
                continue
            lost = None if moved is not None else lost_sidebar_key(key, table, documents)
            if lost is not None:
                lines = _key_lines(app) if lines is None else lines
                warn(RelocateWarning.SIDEBAR,
                     f"{setting} key {key!r} matches no page: the table moved what it "
                     f"named ({lost}); write a key for the new names",
                     location=_location(app, lines, setting, key))


def follow_sidebars(app: Sphinx, pagename: str, context: dict[str, Any]) -> None:
    """Give a page the sidebars of the key that named it before it moved: for
    ``html_sidebars`` by Sphinx's rule (a key without wildcards wins over a pattern,
    else the first pattern that matches), before a theme reads them; the theme's
    ``secondary_sidebar_items`` with the keys moved, for the theme to match."""
    moved = state_of(app).moved_sidebars
    if not moved:
        return
    keys = moved.get("html_sidebars")
    if keys:
        matched: str | None = None
        chosen: Any = None
        followed = False
        for key, value in app.config.html_sidebars.items():
            pattern = keys.get(key, key)
            if not isinstance(pattern, str) or not patmatch(pagename, pattern):
                continue
            if matched is not None and SIDEBAR_WILDCARDS.intersection(pattern):
                continue  # Sphinx keeps the key it matched first (and warns for two patterns)
            matched, chosen, followed = pattern, value, key in keys
        if followed:
            context["sidebars"] = [chosen] if isinstance(chosen, str) else list(chosen)
    keys = moved.get("secondary_sidebar_items")
    items = context.get("theme_secondary_sidebar_items")
    if keys and isinstance(items, Mapping):
        context["theme_secondary_sidebar_items"] = {keys.get(k, k): v for k, v in items.items()}


def _key_lines(app: Sphinx) -> dict[tuple[str, str], int]:
    """The line of conf.py each key of :data:`SIDEBAR_SETTINGS` is written on."""
    if not app.confdir:
        return {}
    path = os.path.join(app.confdir, "conf.py")
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return {}
    return {(span.syntax, text[span.start : span.end]): text.count("\n", 0, span.start) + 1
            for span in reversed(sidebar_keys(text))  # the first of a repeated key
            if span.syntax in SIDEBAR_SETTINGS}


def _location(
    app: Sphinx, lines: dict[tuple[str, str], int], setting: str, key: str
) -> str | None:
    line = lines.get((setting, key))
    return None if line is None else f"{os.path.join(app.confdir, 'conf.py')}:{line}"
